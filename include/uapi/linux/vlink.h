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
#define VLINK_VERSION		2

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
	VLINK_NR_VECTORS = 4,
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
 * @reserved: zero; the structure's size is the same on every ABI
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
	__le32 reserved;
};

/**
 * struct vlink_bar_desc - a BAR as the endpoint set it
 * @phys: EP guest-physical address of the BAR's memory
 * @size: size in bytes, a power of two; 0 when the BAR is not set
 * @flags: PCI_BASE_ADDRESS_* space, type and prefetch bits
 */
struct vlink_bar_desc {
	__le64 phys;
	__le64 size;
	__le32 flags;
	__le32 reserved;
};

/**
 * struct vlink_func_desc - per-function data the EP publishes beside the
 *                          config image
 * @bar: the six BARs
 */
struct vlink_func_desc {
	struct vlink_bar_desc bar[6];
};

#endif /* _UAPI_LINUX_VLINK_H */
