/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The endpoint's side of the server's DMA engine, for the tests: both
 * guests' RAM files mapped, rings started and descriptors posted as the
 * endpoint's driver would.
 */
#ifndef VLINK_TEST_FAKEDMA_H
#define VLINK_TEST_FAKEDMA_H

#include <stddef.h>
#include <linux/types.h>
#include <linux/vlink.h>

#include "fakepeer.h"

/* What the server never writes: a slot still holding it was not passed. */
#define FDMA_POISON		0xdeadbeef

struct fake_dma {
	struct fake_peer *ep;		/* rings the engine, hears VEC_DMA */
	char *ram[VLINK_DMA_NR_RAMS];
	size_t size;			/* of each RAM */
	__u64 region;			/* where the rings are in the EP's */
	/* The EP's own idea of each ring. */
	__u32 gen[VLINK_DMA_RINGS];
	__u32 head[VLINK_DMA_RINGS];
	__u32 abort[VLINK_DMA_RINGS];
};

void fdma_map(struct fake_dma *f, struct fake_peer *ep);
void fdma_unmap(struct fake_dma *f);
struct vlink_dma_ring *fdma_ring(struct fake_dma *f, int ring);
struct vlink_dma_xfer *fdma_slot(struct fake_dma *f, int ring, __u32 n);
__u32 fdma_load(const __le32 *field);
void fdma_store(__le32 *field, __u32 val);

void fdma_start(struct fake_dma *f, int ring);
void fdma_post(struct fake_dma *f, int ring, int src_ram, __u64 src,
	       int dst_ram, __u64 dst, __u32 len);
void fdma_kick(struct fake_dma *f, int ring);
void fdma_wait(struct fake_dma *f, int ring, __u32 tail, int timeout_ms,
	       const char *what);
void fdma_wait_past(struct fake_dma *f, int ring, __u32 n, int timeout_ms,
		    const char *what);
void fdma_drain(struct fake_dma *f);
void fdma_wait_abort_ack(struct fake_dma *f, int ring, int timeout_ms,
			 const char *what);
__u32 fdma_status(struct fake_dma *f, int ring, __u32 n);
void fdma_expect_status(struct fake_dma *f, int ring, __u32 n, __u32 want,
			const char *what);

long long mono_ms(void);
void fill(char *mem, size_t len, unsigned int seed);
void check_filled(const char *mem, size_t from, size_t len,
		  unsigned int seed, const char *what);
void check_bytes(const char *mem, size_t len, int byte, const char *what);

#endif /* VLINK_TEST_FAKEDMA_H */
