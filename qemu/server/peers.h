/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink-server: the peers of the link and what happens when they come and go.
 */
#ifndef VLINK_SERVER_PEERS_H
#define VLINK_SERVER_PEERS_H

#include <stdbool.h>
#include <linux/vlink.h>

#include "faults.h"
#include "shm.h"

struct vlink_peer {
	int sock;			/* -1 while the role has no client */
	int efd[VLINK_NR_VECTORS];	/* the vectors this peer receives on */
	/* What the others ring instead, when the server interposes. */
	int mbox[VLINK_NR_VECTORS];
	bool failed;			/* a send failed: drop it soon */
	bool chatty;			/* already logged that it sends data */
};

struct vlink_dma;

struct vlink_link {
	struct vlink_shm shm;
	struct vlink_peer peer[VLINK_NR_ROLES];
	bool interpose;			/* doorbells pass through mailboxes */
	struct vlink_faults faults;
	struct vlink_dma *dma;		/* NULL: no DMA engine */
};

const char *link_role_name(int role);
void link_init(struct vlink_link *link);
void link_accept(struct vlink_link *link, int role, int listen_sock);
void link_input(struct vlink_link *link, int role);
void link_reap(struct vlink_link *link);
void link_close_all(struct vlink_link *link);
bool link_peer_connected(struct vlink_link *link, int role);
void link_ring(struct vlink_link *link, int role, int vector, __u64 count);
void link_ring_all(struct vlink_link *link);

#endif /* VLINK_SERVER_PEERS_H */
