/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink-server: the link's shared memory.
 */
#ifndef VLINK_SERVER_SHM_H
#define VLINK_SERVER_SHM_H

#include <stdbool.h>
#include <linux/vlink.h>

struct vlink_shm {
	int fd;
	void *base;
	struct vlink_header *hdr;
};

int shm_create(struct vlink_shm *shm);
void shm_destroy(struct vlink_shm *shm);
void shm_set_present(struct vlink_shm *shm, enum vlink_role role,
		     bool present);
void shm_force_present(struct vlink_shm *shm, enum vlink_role role,
		       bool present);

#endif /* VLINK_SERVER_SHM_H */
