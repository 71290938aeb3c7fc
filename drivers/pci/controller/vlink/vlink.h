/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink: what the endpoint and root-complex halves of the link share.
 *
 * A link device is an ivshmem-doorbell PCI device whose device-tree node
 * says which role this guest plays.  Its BAR2 is the link's shared memory
 * (layout in <uapi/linux/vlink.h>), its MSI-X vectors are the doorbells
 * the peer rings.  A second ivshmem device, named by the "vlink,peer-ram"
 * phandle, maps the peer guest's whole RAM: the window.
 */
#ifndef _PCIE_VLINK_H
#define _PCIE_VLINK_H

#include <linux/build_bug.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/stddef.h>
#include <linux/workqueue.h>
#include <uapi/linux/vlink.h>

/*
 * The endpoint and the root complex may differ in word size (32-bit ARM and
 * arm64), and the server is built for yet another ABI: none of them may lay
 * the shared structures out differently.  qemu/server/shm.h checks the same.
 */
static_assert(sizeof(struct vlink_header) == 96);
static_assert(offsetof(struct vlink_header, xlat_offset) == 88);
static_assert(offsetof(struct vlink_header, msi_address) == 56);
static_assert(offsetof(struct vlink_header, present) == 64);
static_assert(sizeof(struct vlink_side) == 48);
static_assert(offsetof(struct vlink_side, scratch_phys) == 8);
static_assert(sizeof(struct vlink_bar_desc) == 24);
static_assert(offsetof(struct vlink_bar_desc, phys) == 0);
static_assert(offsetof(struct vlink_bar_desc, size) == 8);
static_assert(sizeof(struct vlink_func_desc) == 6 * 24);
static_assert(sizeof(struct vlink_side) <= VLINK_SIDE_STRIDE);
static_assert(sizeof(struct vlink_func_desc) <= VLINK_FUNC_STRIDE);
static_assert(sizeof(struct vlink_xlat_extent) == 32);
static_assert(offsetof(struct vlink_xlat_extent, kind) == 24);
static_assert(sizeof(struct vlink_bar_xlat) == 32 + 32 * VLINK_XLAT_EXTENTS);
static_assert(VLINK_XLAT_OFFSET + VLINK_MAX_FUNCTIONS * PCI_STD_NUM_BARS *
	      sizeof(struct vlink_bar_xlat) <= VLINK_SHM_SIZE);

/*
 * A vendor ID no function may have: it is what a host reads while a
 * function answers Configuration Request Retry Status, so it retries.
 */
#define VLINK_VENDOR_ID_RETRY	0x0001

/* The first bits of the pending bitmap: INTx, bit 4 * function + pin - 1. */
#define VLINK_INTX_BITS		(4 * VLINK_MAX_FUNCTIONS)

struct dentry;
struct vlink;

/**
 * struct vlink_rtt - round trips measured over the link, in nanoseconds
 * @n: how many
 * @min: the fastest
 * @median: the median
 * @p99: the 99th percentile
 * @max: the slowest
 */
struct vlink_rtt {
	u32 n;
	u32 min;
	u32 median;
	u32 p99;
	u32 max;
};

/**
 * struct vlink_ops - what a role adds to the shared link behaviour
 * @link_event: called from process context after every link doorbell,
 *              once the shared state has been re-read; @peer_alive says
 *              whether the peer's driver is there
 * @irq: called in hard-irq context when the peer rings VLINK_VEC_IRQ
 * @dma: called in hard-irq context when the server rings VLINK_VEC_DMA
 */
struct vlink_ops {
	void (*link_event)(struct vlink *vl, bool peer_alive);
	void (*irq)(struct vlink *vl);
	void (*dma)(struct vlink *vl);
};

/**
 * struct vlink_window - an ivshmem-plain device showing a guest's whole RAM
 * @pdev: the device
 * @res: its address range, claimed inside the device's BAR2
 * @phys: CPU physical address of the window
 * @size: size of the window, that is of that RAM
 * @base: where that RAM starts in its guest's own view
 */
struct vlink_window {
	struct pci_dev *pdev;
	struct resource res;
	phys_addr_t phys;
	resource_size_t size;
	u64 base;
};

/*
 * Where [addr, addr + size) of the window's RAM, by its guest's own
 * address, shows in the window; 0 if not wholly inside that RAM.
 */
static inline phys_addr_t vlink_window_phys(const struct vlink_window *w,
					    u64 addr, u64 size)
{
	u64 off = addr - w->base;

	if (!w->pdev || addr < w->base || off >= w->size ||
	    size > w->size - off)
		return 0;
	return w->phys + off;
}

/**
 * struct vlink - one link device
 * @pdev: the ivshmem-doorbell device
 * @role: the role this guest plays
 * @peer: the role of the other guest
 * @ops: role-specific callbacks
 * @priv: role driver's data
 * @regs: ivshmem registers (BAR0)
 * @shm: the link's shared memory (BAR2)
 * @hdr: header in @shm, written by the server
 * @self: this role's side area in @shm
 * @other: the peer's side area in @shm
 * @win: the window onto the peer's RAM
 * @lock: serialises link events and the self test
 * @kick_lock: orders vlink_kick() against vlink_stop()
 * @stopped: vlink_stop() ran: nothing queues the link worker any more
 * @doorbells: how many doorbell vectors have a handler
 * @link_work: re-reads the shared state after a link doorbell
 * @test_work: pattern and round-trip self test after the peer came up
 * @pong: completed by the peer's answer to a ping
 * @scratch: page the peer fills with a pattern through its window
 * @announced: our boot id and scratch page are published: until then a
 *	doorbell must not make us judge the peer against stale fields of ours
 * @peer_boot_id: boot id of the peer we last saw alive, 0 if none
 * @peer_ups: how many times the peer came up: names a stretch of link
 * @pattern_checked: the peer's pattern in @scratch was checked
 * @faults: endpoint fault injection, when configured
 * @rtt_lock: one round-trip measurement at a time (they share @pong)
 * @rtt_last: the last measurement asked for through debugfs
 * @rtt_kind: what it measured: "doorbell" or "irq"
 * @debugfs: the link's debugfs directory, NULL until it is made (an error
 *	     pointer in a kernel without debugfs)
 */
struct vlink {
	struct pci_dev *pdev;
	enum vlink_role role;
	enum vlink_role peer;
	const struct vlink_ops *ops;
	void *priv;
	void __iomem *regs;
	void *shm;
	struct vlink_header *hdr;
	struct vlink_side *self;
	struct vlink_side *other;
	struct vlink_window win;
	struct mutex lock;		/* link events, self test */
	spinlock_t kick_lock;		/* @stopped */
	bool stopped;
	unsigned int doorbells;
	struct work_struct link_work;
	struct work_struct test_work;
	struct completion pong;
	struct page *scratch;
	bool announced;
	u32 peer_boot_id;
	u32 peer_ups;
	bool pattern_checked;
	struct vlink_ep_faults *faults;
	struct mutex rtt_lock;		/* @pong */
	struct vlink_rtt rtt_last;
	char rtt_kind[16];
	struct dentry *debugfs;
};

/*
 * A field of the link shm, which the peer or the server may write at any
 * time: one access, converted from or to the wire's byte order.  32-bit ARM
 * may read a 64-bit field in two halves: each is written before the flag or
 * doorbell that announces it, and a torn value from the peer is judged like
 * any other it could write.
 */
static inline u32 vlink_rd32(const __le32 *p)
{
	return le32_to_cpu(READ_ONCE(*p));
}

static inline void vlink_wr32(__le32 *p, u32 v)
{
	WRITE_ONCE(*p, cpu_to_le32(v));
}

static inline u64 vlink_rd64(const __le64 *p)
{
	return le64_to_cpu(READ_ONCE(*p));
}

static inline void vlink_wr64(__le64 *p, u64 v)
{
	WRITE_ONCE(*p, cpu_to_le64(v));
}

/* The MSI pending bitmap, for the little-endian bit operations */
static inline void *vlink_irq_bits(struct vlink *vl)
{
	return vl->shm + VLINK_IRQ_OFFSET;
}

/* Function fn's config space image in the link shm */
static inline u8 *vlink_cfg(struct vlink *vl, unsigned int fn)
{
	return vl->shm + VLINK_CFG_OFFSET + fn * VLINK_CFG_SIZE;
}

/* Function fn's BAR descriptors in the link shm */
static inline struct vlink_func_desc *vlink_desc(struct vlink *vl,
						 unsigned int fn)
{
	return vl->shm + VLINK_FUNC_OFFSET + fn * VLINK_FUNC_STRIDE;
}

/* The translation table of function fn's BAR bar in the link shm */
static inline struct vlink_bar_xlat *vlink_xlat(struct vlink *vl,
						unsigned int fn,
						unsigned int bar)
{
	struct vlink_bar_xlat *x = vl->shm + VLINK_XLAT_OFFSET;

	return &x[fn * PCI_STD_NUM_BARS + bar];
}

struct vlink *vlink_probe(struct pci_dev *pdev, enum vlink_role role,
			  const struct vlink_ops *ops, void *priv);
int vlink_start(struct vlink *vl);
void vlink_stop(struct vlink *vl);
void vlink_ring(struct vlink *vl, enum vlink_vector vec);
void vlink_ring_id(struct vlink *vl, u32 peer_id, unsigned int vec);
void vlink_kick(struct vlink *vl);
bool vlink_peer_alive(struct vlink *vl);
int vlink_get_window(struct device *dev, const char *prop, const char *name,
		     struct vlink_window *w);
int vlink_post_msi(struct vlink *vl, u64 addr, u32 data);
void __iomem *vlink_map_peer(struct vlink *vl, u64 peer_addr, size_t size);
const char *vlink_role_name(enum vlink_role role);
int vlink_rtt_measure(struct vlink *vl, bool via_irq, unsigned int n,
		      struct vlink_rtt *res);
void vlink_rtt_stats(u32 *ns, unsigned int n, struct vlink_rtt *res);
ssize_t vlink_rtt_read(char __user *ubuf, size_t count, loff_t *ppos,
		       const char *kind, const struct vlink_rtt *r);
void vlink_rtt_debugfs_init(struct vlink *vl);
int vlink_debugfs_line(char *buf, size_t size, const char __user *ubuf,
		       size_t count);

/*
 * EP: count a move of a BAR's translation whose descriptor is written, and
 * ring the root complex to follow it.
 */
static inline void vlink_bar_moved(struct vlink *vl)
{
	wmb();	/* the descriptor before its generation */
	vlink_wr32(&vl->self->bar_gen, vlink_rd32(&vl->self->bar_gen) + 1);
	vlink_ring(vl, VLINK_VEC_LINK);
}

#endif /* _PCIE_VLINK_H */
