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
static_assert(sizeof(struct vlink_header) == 96, "vlink_header size");
static_assert(offsetof(struct vlink_header, xlat_offset) == 88,
	      "vlink_header.xlat_offset offset");
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
static_assert(sizeof(struct vlink_xlat_extent) == 32,
	      "vlink_xlat_extent size");
static_assert(offsetof(struct vlink_xlat_extent, kind) == 24,
	      "vlink_xlat_extent.kind offset");
static_assert(sizeof(struct vlink_bar_xlat) == 32 + 32 * VLINK_XLAT_EXTENTS,
	      "vlink_bar_xlat size");

/* The DMA engine's rings, in the endpoint's RAM (dma.c). */
static_assert(sizeof(struct vlink_dma_ring) == 128, "vlink_dma_ring size");
static_assert(offsetof(struct vlink_dma_ring, abort) == 8,
	      "vlink_dma_ring.abort offset");
static_assert(offsetof(struct vlink_dma_ring, ack_gen) == 64,
	      "vlink_dma_ring.ack_gen offset");
static_assert(offsetof(struct vlink_dma_ring, tail) == 68,
	      "vlink_dma_ring.tail offset");
static_assert(offsetof(struct vlink_dma_ring, abort_ack) == 72,
	      "vlink_dma_ring.abort_ack offset");
static_assert(sizeof(struct vlink_dma_xfer) == 32, "vlink_dma_xfer size");
static_assert(offsetof(struct vlink_dma_xfer, dst) == 8,
	      "vlink_dma_xfer.dst offset");
static_assert(offsetof(struct vlink_dma_xfer, len) == 16,
	      "vlink_dma_xfer.len offset");
static_assert(offsetof(struct vlink_dma_xfer, src_ram) == 20,
	      "vlink_dma_xfer.src_ram offset");
static_assert(offsetof(struct vlink_dma_xfer, dst_ram) == 21,
	      "vlink_dma_xfer.dst_ram offset");
static_assert(offsetof(struct vlink_dma_xfer, status) == 24,
	      "vlink_dma_xfer.status offset");
static_assert(sizeof(struct vlink_dma_ring) <= VLINK_DMA_SLOTS_OFFSET,
	      "vlink_dma_ring ends before its slots");
static_assert(VLINK_DMA_SLOTS_OFFSET +
	      VLINK_DMA_SLOTS * sizeof(struct vlink_dma_xfer) <=
	      VLINK_DMA_RING_STRIDE, "a ring and its slots fit the stride");
static_assert(VLINK_DMA_RINGS * VLINK_DMA_RING_STRIDE <=
	      VLINK_DMA_REGION_SIZE, "the rings fit the DMA region");
static_assert((VLINK_DMA_SLOTS & (VLINK_DMA_SLOTS - 1)) == 0,
	      "VLINK_DMA_SLOTS is a power of two");

struct vlink_shm {
	int fd;
	void *base;
	struct vlink_header *hdr;
	/*
	 * Our own copy of present[], which the guests could overwrite in the
	 * shared page: read by the DMA engine's threads (shm_on_link()).
	 */
	int on_link[VLINK_NR_ROLES];
};

int shm_create(struct vlink_shm *shm);
void shm_destroy(struct vlink_shm *shm);
void shm_set_present(struct vlink_shm *shm, enum vlink_role role,
		     bool present);
void shm_force_present(struct vlink_shm *shm, enum vlink_role role,
		       bool present);
bool shm_on_link(const struct vlink_shm *shm, int role);

#endif /* VLINK_SERVER_SHM_H */
