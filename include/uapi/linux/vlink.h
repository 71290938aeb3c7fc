/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * vlink: wire format of the virtual PCIe link between an endpoint guest and
 * a root-complex guest.
 *
 * The link is an ivshmem-doorbell device in each guest, both attached to the
 * vlink server.  The server owns the shared memory (BAR2 of that device) and
 * writes the header below when it creates it; the guests only read the
 * header and write their own areas.  Every area has exactly one writer, so no
 * cross-guest atomics are needed, except the MSI pending bitmap, which the
 * endpoint sets and the root complex clears with atomic bit operations.
 *
 * Everything is little-endian and fixed-width, whatever the word size and
 * byte order of the guest or server reading it: the fields are __le32 and
 * __le64, and every 64-bit field is naturally aligned, with no implicit
 * padding.  Bit n of the MSI pending bitmap is bit n % 8 of its byte n / 8.
 * The layout is fixed per VLINK_VERSION; the header repeats the offsets so
 * that a reader can validate them.  The drivers and the server check the
 * sizes and offsets at build time.
 *
 * This header is shared by the kernel drivers and the userspace server.
 */
#ifndef _UAPI_LINUX_VLINK_H
#define _UAPI_LINUX_VLINK_H

#include <linux/types.h>

#define VLINK_MAGIC		0x4b4e4c56	/* "VLNK" */
#define VLINK_VERSION		4

/* ivshmem requires a power-of-two shared memory size. */
#define VLINK_SHM_SIZE		0x100000

/* Roles, and the fixed ivshmem peer id the server gives each of them. */
enum vlink_role {
	VLINK_ROLE_EP = 0,
	VLINK_ROLE_RC = 1,
	VLINK_ROLE_MONITOR = 2,
	VLINK_NR_ROLES = 3,
};

#define VLINK_PEER_ID(role)	((role) + 1)

/* Doorbell vectors: each peer's ivshmem-doorbell device has this many. */
enum vlink_vector {
	VLINK_VEC_LINK = 0,	/* link state changed: re-read the side areas */
	VLINK_VEC_IRQ = 1,	/* EP -> RC: MSI pending bits or INTx changed */
	VLINK_VEC_PING = 2,	/* round-trip probe: answer with VLINK_VEC_PONG */
	VLINK_VEC_PONG = 3,	/* answer to a ping */
	VLINK_VEC_DMA = 4,	/* server -> EP: a DMA ring moved its tail */
	VLINK_NR_VECTORS = 5,
};

/* Fixed layout of the shared memory (offsets from its start). */
#define VLINK_HDR_OFFSET	0x00000
#define VLINK_SIDE_OFFSET	0x01000	/* struct vlink_side[VLINK_NR_ROLES] */
#define VLINK_SIDE_STRIDE	0x100
#define VLINK_FUNC_OFFSET	0x02000	/* struct vlink_func_desc[max_functions] */
#define VLINK_FUNC_STRIDE	0x100
#define VLINK_IRQ_OFFSET	0x04000	/* MSI pending bitmap */
#define VLINK_IRQ_BITS		32768
/* A pending bit the RC answers with a PONG: interrupt-path latency probe. */
#define VLINK_IRQ_ECHO_BIT	(VLINK_IRQ_BITS - 2)
#define VLINK_CFG_OFFSET	0x08000	/* config space images */
#define VLINK_CFG_SIZE		0x1000	/* per function: PCIe extended space */
#define VLINK_MAX_FUNCTIONS	8
#define VLINK_XLAT_OFFSET	0x10000	/* struct vlink_bar_xlat[8][6] */
#define VLINK_XLAT_EXTENTS	16

/*
 * PCI address the root complex gives every MSI/MSI-X vector.  The endpoint
 * recognises it and turns the posted write into a pending bit: bit number =
 * message data.  It lies outside both guests' RAM and PCI windows.
 */
#define VLINK_MSI_ADDRESS	0xfee00000ULL

/**
 * struct vlink_header - written once by the server when it creates the shm
 * @magic: VLINK_MAGIC
 * @version: VLINK_VERSION
 * @shm_size: size of the whole shared memory in bytes
 * @nr_vectors: doorbell vectors per peer (VLINK_NR_VECTORS)
 * @peer_id: ivshmem peer id of each role
 * @max_functions: number of function slots (VLINK_MAX_FUNCTIONS)
 * @side_offset: VLINK_SIDE_OFFSET
 * @func_offset: VLINK_FUNC_OFFSET
 * @irq_offset: VLINK_IRQ_OFFSET
 * @irq_bits: VLINK_IRQ_BITS
 * @cfg_offset: VLINK_CFG_OFFSET
 * @cfg_size: VLINK_CFG_SIZE
 * @msi_address: VLINK_MSI_ADDRESS
 * @present: per role, nonzero while that role's QEMU is connected (server)
 * @connects: per role, incremented on every connection (server)
 * @xlat_offset: VLINK_XLAT_OFFSET
 * @xlat_extents: VLINK_XLAT_EXTENTS
 */
struct vlink_header {
	__le32 magic;
	__le32 version;
	__le32 shm_size;
	__le32 nr_vectors;
	__le32 peer_id[VLINK_NR_ROLES];
	__le32 max_functions;
	__le32 side_offset;
	__le32 func_offset;
	__le32 irq_offset;
	__le32 irq_bits;
	__le32 cfg_offset;
	__le32 cfg_size;
	__le64 msi_address;
	__le32 present[VLINK_NR_ROLES];
	__le32 connects[VLINK_NR_ROLES];
	__le32 xlat_offset;
	__le32 xlat_extents;
};

/* vlink_side.state */
enum vlink_state {
	VLINK_STATE_OFF = 0,	/* no driver (the server resets to this) */
	VLINK_STATE_ALIVE = 1,	/* driver bound, answering doorbells */
};

/**
 * struct vlink_side - one per role; written only by that role's driver,
 *                     and zeroed by the server when the role's QEMU connects
 *                     or disconnects
 * @state: enum vlink_state
 * @boot_id: random, new at every driver probe; tells a rebooted peer apart
 * @scratch_phys: guest-physical address of a page the peer may fill with
 *                the test pattern (proves the peer's RAM window)
 * @scratch_seed: seed of the pattern expected in that page
 * @pattern_for: boot_id of the peer whose scratch page this side filled
 * @start_gen: EP only: incremented by every pci_epc_start()/pci_epc_stop()
 * @started: EP only: nonzero while the controller is started
 * @func_mask: EP only: functions whose config image is valid; a bit
 *             cleared while started withdraws that function
 * @enum_gen: RC only: the start_gen the RC has last acted on
 * @func_seen: RC only: the functions it presents now; the EP frees a
 *             withdrawn function's memory only once its bit is clear here
 * @bar_gen: EP only: incremented whenever a function the RC may present
 *           moves the translation of a BAR (&struct vlink_bar_desc)
 */
struct vlink_side {
	__le32 state;
	__le32 boot_id;
	__le64 scratch_phys;
	__le32 scratch_seed;
	__le32 pattern_for;
	__le32 start_gen;
	__le32 started;
	__le32 func_mask;
	__le32 enum_gen;
	__le32 func_seen;
	__le32 bar_gen;
};

/*
 * vlink_bar_desc.attr: the endpoint may move this BAR's translation while
 * the host uses it (it was set before it had memory, or set again).  The
 * root complex then gives it a host address of its own whose pages follow
 * @phys, which need only be page-aligned; a fixed BAR's host address is
 * where its memory shows through the window.
 */
#define VLINK_BAR_MOVABLE	0x1
/*
 * vlink_bar_desc.attr: a movable BAR whose pages follow the extents of its
 * &struct vlink_bar_xlat instead of @phys.  pci-epf-ntb backs a BAR of one
 * controller with another controller's outbound window: parts of it show
 * the far host's RAM, parts that far host's MSI address (a doorbell page
 * in the endpoint's RAM, which the endpoint watches), the rest nothing.
 */
#define VLINK_BAR_XLAT		0x2

/**
 * struct vlink_bar_desc - a BAR as the endpoint set it
 * @phys: EP guest-physical address of the BAR's memory; for a movable BAR,
 *        anything outside the EP's RAM means no memory yet
 * @size: size in bytes, a power of two; 0 when the BAR is not set
 * @flags: PCI_BASE_ADDRESS_* space, type and prefetch bits
 * @attr: VLINK_BAR_* attributes
 */
struct vlink_bar_desc {
	__le64 phys;
	__le64 size;
	__le32 flags;
	__le32 attr;
};

/**
 * struct vlink_func_desc - per-function data the EP publishes beside the
 *                          config image
 * @bar: the six BARs
 */
struct vlink_func_desc {
	struct vlink_bar_desc bar[6];
};

/* vlink_xlat_extent.kind: where an extent's addresses are */
enum vlink_xlat_kind {
	VLINK_XLAT_EP_RAM = 0,		/* the endpoint's RAM */
	VLINK_XLAT_FAR_RAM = 1,		/* the far host's RAM, its own view */
};

/**
 * struct vlink_xlat_extent - part of a BAR and the memory it shows
 * @bar_off: page-aligned offset in the BAR
 * @addr: page-aligned address of the memory, per @kind
 * @size: bytes, whole pages; 0 ends the table
 * @kind: enum vlink_xlat_kind
 * @reserved: zero
 */
struct vlink_xlat_extent {
	__le64 bar_off;
	__le64 addr;
	__le64 size;
	__le32 kind;
	__le32 reserved;
};

/**
 * struct vlink_bar_xlat - the extents of a BAR with VLINK_BAR_XLAT
 * @seq: odd while the endpoint rewrites the table, even when it is whole
 * @reserved: zero
 * @ext: extents in ascending, non-overlapping order; pages of the BAR
 *       that no extent names show nothing
 *
 * Table n * 6 + b, VLINK_XLAT_OFFSET from the start of the link memory,
 * is function n's BAR b.  A reader copies the table between two reads of
 * @seq and uses the copy only if both were the same even number.
 */
struct vlink_bar_xlat {
	__le32 seq;
	__le32 reserved[7];
	struct vlink_xlat_extent ext[VLINK_XLAT_EXTENTS];
};

/*
 * The link's DMA engine runs in the server, beside the guests, as an eDMA
 * runs beside the CPU.  The server maps both guests' RAM files and copies
 * between them as the endpoint's driver asks in rings that live in a
 * region of the endpoint's own RAM, which the endpoint reserves at this
 * fixed offset from the start of its RAM: the root complex cannot write
 * there (not so the link memory), so it can neither post descriptors nor
 * read the endpoint's RAM through the engine.  Each ring has its own
 * doorbell: the endpoint rings ivshmem peer VLINK_DMA_PEER_ID(ring) on
 * vector VLINK_DMA_VECTOR(ring), ids the server announces only to the
 * endpoint and only when it has both RAM files.  Completions come back on
 * the endpoint's VLINK_VEC_DMA.  The offset keeps the region clear of what
 * the boot loaders use: QEMU's initrd at 128 MiB, U-Boot's FIT at 128 MiB
 * and U-Boot itself, which relocates into the top 32 MiB of 256.
 */
#define VLINK_DMA_REGION_OFFSET	0x0c000000
#define VLINK_DMA_REGION_SIZE	0x20000
/*
 * An endpoint guest with several links keeps a region per link, side by
 * side: the one of its k-th link device (PCI slot order) at
 * VLINK_DMA_REGION(k).  Each link's server is told its k (--dma-region);
 * a descriptor may write into none of them.
 */
#define VLINK_DMA_REGIONS	4
#define VLINK_DMA_REGION(k)	(VLINK_DMA_REGION_OFFSET + \
				 (k) * VLINK_DMA_REGION_SIZE)
#define VLINK_DMA_REGIONS_END	VLINK_DMA_REGION(VLINK_DMA_REGIONS)
#define VLINK_DMA_RINGS		16
#define VLINK_DMA_RING_STRIDE	0x2000	/* rings follow each other */
#define VLINK_DMA_SLOTS_OFFSET	0x100	/* from the ring's start */
#define VLINK_DMA_SLOTS		128	/* a power of two */
#define VLINK_DMA_PEER_ID_BASE	(VLINK_PEER_ID(VLINK_NR_ROLES))
#define VLINK_DMA_PEER_ID(ring)	(VLINK_DMA_PEER_ID_BASE + \
				 (ring) / VLINK_NR_VECTORS)
#define VLINK_DMA_VECTOR(ring)	((ring) % VLINK_NR_VECTORS)
/* One descriptor moves at most this much. */
#define VLINK_DMA_MAX_LEN	0x4000000

/* Which RAM a descriptor names. */
enum vlink_dma_ram {
	VLINK_DMA_RAM_EP = 0,
	VLINK_DMA_RAM_RC = 1,
	VLINK_DMA_NR_RAMS = 2,
};

/* vlink_dma_xfer.status, written by the server when it passes the slot. */
enum vlink_dma_status {
	VLINK_DMA_DONE = 0,
	VLINK_DMA_BAD_RANGE = 1,	/* not wholly inside the RAM it names */
	VLINK_DMA_BAD_DESC = 2,		/* no such RAM, zero or too long */
	VLINK_DMA_NO_PEER = 3,		/* that guest is not on the link */
	VLINK_DMA_ABORTED = 4,		/* the endpoint asked to stop */
};

/**
 * struct vlink_dma_ring - head of one DMA ring
 * @gen: EP: nonzero, new each time the EP (re)starts the ring; the server
 *       then starts over at slot 0
 * @head: EP: free-running count of descriptors posted since @gen changed
 * @abort: EP: incremented to stop what the ring holds now
 * @ep_reserved: zero
 * @ack_gen: server: the @gen it works to
 * @tail: server: free-running count of descriptors done since @ack_gen
 * @abort_ack: server: the last @abort it acted on
 * @srv_reserved: zero
 *
 * Descriptor n lives in slot n % VLINK_DMA_SLOTS, VLINK_DMA_SLOTS_OFFSET
 * from the ring's start.  The EP fills a slot, then moves @head and rings;
 * the server copies the slot once, judges its copy, does or refuses the
 * transfer, writes the slot's status, then moves @tail and rings back.  On
 * an @abort the server ends the transfer under way at its next chunk and
 * completes every posted descriptor with VLINK_DMA_ABORTED.
 */
struct vlink_dma_ring {
	__le32 gen;
	__le32 head;
	__le32 abort;
	__le32 ep_reserved[13];
	__le32 ack_gen;
	__le32 tail;
	__le32 abort_ack;
	__le32 srv_reserved[13];
};

/**
 * struct vlink_dma_xfer - one descriptor: copy @len bytes
 * @src: byte offset of the source in RAM @src_ram
 * @dst: byte offset of the destination in RAM @dst_ram
 * @len: bytes, 1 to VLINK_DMA_MAX_LEN
 * @src_ram: enum vlink_dma_ram
 * @dst_ram: enum vlink_dma_ram
 * @reserved0: zero
 * @status: enum vlink_dma_status, written by the server
 * @reserved1: zero
 */
struct vlink_dma_xfer {
	__le64 src;
	__le64 dst;
	__le32 len;
	__u8 src_ram;
	__u8 dst_ram;
	__le16 reserved0;
	__le32 status;
	__le32 reserved1;
};

#endif /* _UAPI_LINUX_VLINK_H */
