/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink-server: the link's shared memory.
 */
#ifndef VLINK_SERVER_SHM_H
#define VLINK_SERVER_SHM_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/vlink.h>

/*
 * The guests may be 32-bit or 64-bit and the server is built for the host:
 * none of them may lay the shared structures out differently.  The kernel
 * side (drivers/pci/controller/vlink/vlink.h) checks the same.
 */
static_assert(sizeof(struct vlink_header) == 88, "vlink_header size");
static_assert(offsetof(struct vlink_header, msi_address) == 56,
	      "vlink_header.msi_address offset");
static_assert(offsetof(struct vlink_header, present) == 64,
	      "vlink_header.present offset");
static_assert(sizeof(struct vlink_side) == 48, "vlink_side size");
static_assert(offsetof(struct vlink_side, scratch_phys) == 8,
	      "vlink_side.scratch_phys offset");
static_assert(sizeof(struct vlink_bar_desc) == 24, "vlink_bar_desc size");
static_assert(offsetof(struct vlink_bar_desc, phys) == 0,
	      "vlink_bar_desc.phys offset");
static_assert(offsetof(struct vlink_bar_desc, size) == 8,
	      "vlink_bar_desc.size offset");
static_assert(sizeof(struct vlink_func_desc) == 6 * 24,
	      "vlink_func_desc size");
static_assert(sizeof(struct vlink_side) <= VLINK_SIDE_STRIDE,
	      "vlink_side fits its stride");
static_assert(sizeof(struct vlink_func_desc) <= VLINK_FUNC_STRIDE,
	      "vlink_func_desc fits its stride");

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
