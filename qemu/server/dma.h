/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink-server: the link's DMA engine, copying between the guests' RAM.
 */
#ifndef VLINK_SERVER_DMA_H
#define VLINK_SERVER_DMA_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/vlink.h>

#include "shm.h"

/* --ram-mb: more would not be a guest of the virt board. */
#define DMA_RAM_MB_MAX		1048576U	/* 1 TiB */

struct vlink_dma;

/* One ring and the thread that serves it. */
struct dma_ring {
	struct vlink_dma *dma;
	int index;
	int doorbell;			/* eventfd the EP rings, -1: none */
	pthread_t thread;
	bool running;			/* created and not joined yet */
	/* The rest belongs to the ring's thread alone. */
	struct vlink_dma_ring *hw;	/* in the EP's RAM */
	struct vlink_dma_xfer *slot;
	__u32 gen;			/* the gen we work to, 0: none */
	__u32 tail;
	__u32 abort;			/* the last abort acted on */
	bool overrun;			/* head ran away: wait for a new gen */
	unsigned int logged;		/* lines logged in this gen */
	/* Written by the ring's thread alone, read by dma_log_stats(). */
	unsigned long long copies;	/* descriptors copied whole */
	unsigned long long bytes;
	unsigned long long copy_ns;	/* spent in their copies */
	unsigned long long longest_ns;
};

struct dma_ram {
	const char *path;
	char *base;			/* NULL: not mapped */
};

struct vlink_dma {
	struct dma_ram ram[VLINK_DMA_NR_RAMS];
	unsigned int ram_mb;
	size_t ram_size;
	unsigned int region;		/* which VLINK_DMA_REGION() holds our rings */
	const struct vlink_shm *shm;	/* who is on the link */
	int stop_fd;			/* readable once the threads must end */
	int stopping;			/* atomic: the same, between chunks */
	int done_fd;			/* atomic: the EP's VLINK_VEC_DMA */
	unsigned int stall_ms;		/* atomic: dma_stall_next() */
	struct dma_ring ring[VLINK_DMA_RINGS];
};

void dma_init(struct vlink_dma *dma);
int dma_map(struct vlink_dma *dma, const char *ep_ram, const char *rc_ram,
	    unsigned int ram_mb, unsigned int region);
int dma_start(struct vlink_dma *dma, const struct vlink_shm *shm);
void dma_stop(struct vlink_dma *dma);
void dma_close(struct vlink_dma *dma);
int dma_doorbell(const struct vlink_dma *dma, int ring);
void dma_set_done_fd(struct vlink_dma *dma, int fd);
void dma_stall_next(struct vlink_dma *dma, unsigned int ms);
void dma_log_stats(struct vlink_dma *dma);

#endif /* VLINK_SERVER_DMA_H */
