// SPDX-License-Identifier: GPL-2.0
/*
 * vlink root-complex host bridge: the root-complex half of the virtual PCIe
 * link.
 *
 * The endpoint guest publishes each function's config space image and BARs
 * in the link's shared memory.  This driver puts a root bus in a PCI domain
 * of its own in front of them: config cycles are emulated on the images
 * (read-only fields, BAR sizing, the command register and the MSI/MSI-X
 * fields the host writes), the BARs are presented already assigned inside
 * the window onto the endpoint's RAM and claimed there, like firmware
 * would leave them.  The bus is scanned when the endpoint starts its
 * controller and emptied when it stops or dies.
 *
 * Interrupts: MSI and MSI-X messages carry VLINK_MSI_ADDRESS and the vector's
 * bit number in the link's pending bitmap as data; the endpoint sets the bit
 * and rings VLINK_VEC_IRQ, and we dispatch every set bit.  The first
 * VLINK_INTX_BITS bits are INTx assertions, bit (4 * function + pin - 1).
 */

#include <linux/bitmap.h>
#include <linux/irq.h>
#include <linux/irqchip/chained_irq.h>
#include <linux/irqdomain.h>
#include <linux/kref.h>
#include <linux/msi.h>
#include <linux/of.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "vlink.h"
#include "vlink-aperture.h"

#define VLINK_RC_CFG_EMULATED	0x100	/* beyond it, config space reads 0 */
#define VLINK_RC_MAX_CAPS	48
#define VLINK_RC_AP_SIZE	SZ_32M

/**
 * struct vlink_rc_fn - the root complex's view of one endpoint function
 * @present: the function answers config cycles
 * @shm_cfg: its config space image in the link shm, where host writes go
 * @cfg: our copy of that image, validated once; every read is served here
 * @wmask: which bits of each config byte the host may write
 * @bar_size: size of each BAR, 0 when not implemented
 * @bar_reg: the value each BAR register holds: address and flags
 * @bar_sizing: the host wrote all ones to the BAR: it reads the size mask
 * @bar_phys: where the endpoint said each BAR's memory is, as we follow it
 * @bar_movable: the BAR is presented through the aperture
 * @bar_ap_off: where in the aperture
 * @bar_shown: bytes of a movable BAR that show the endpoint's memory
 * @bar_xlat: the movable BAR's pages follow a translation table
 * @bar_xlat_seq: the table's sequence count we last followed
 */
struct vlink_rc_fn {
	bool present;
	u8 *shm_cfg;
	u8 cfg[VLINK_RC_CFG_EMULATED];
	u8 wmask[VLINK_RC_CFG_EMULATED];
	u64 bar_size[PCI_STD_NUM_BARS];
	u32 bar_reg[PCI_STD_NUM_BARS];
	bool bar_sizing[PCI_STD_NUM_BARS];
	u64 bar_phys[PCI_STD_NUM_BARS];
	bool bar_movable[PCI_STD_NUM_BARS];
	size_t bar_ap_off[PCI_STD_NUM_BARS];
	u64 bar_shown[PCI_STD_NUM_BARS];
	bool bar_xlat[PCI_STD_NUM_BARS];
	u32 bar_xlat_seq[PCI_STD_NUM_BARS];
};

/**
 * struct vlink_rc - one root-complex link
 * @vl: the link
 * @ref: held by the driver binding and by a queued or running @scan_work;
 *       the scan worker may still wait for the PCI rescan lock after the
 *       driver is gone (whoever removes our device may hold that lock)
 * @bridge: our host bridge
 * @bus: its root bus
 * @busn: the bus number range of the root bus
 * @lock: protects @fn against config cycles (which run under pci_lock)
 * @fn: the functions behind the link
 * @stage: a function being loaded, before it replaces its @fn entry
 * @scan_work: follows the endpoint: scans, withdraws and removes functions
 * @scan_lock: serialises scanning, removal and @dying
 * @dying: the driver is going away: the scan worker must not touch the bus
 * @enumerated: the bus holds the endpoint's functions
 * @stretch: the link layer's count of peer ups while the peer is alive,
 *           else 0: which stretch of link the scan worker follows
 * @acked_stretch: the stretch of the generation we acknowledged
 * @acked_gen: the endpoint generation we acknowledged
 * @seen: the functions we present, as published in our side area
 * @ap: host addresses of the BARs whose translation moves (32-bit ARM)
 * @ap_next: the first offset of @ap that no BAR of this enumeration has
 * @bar_gen: the endpoint's count of BAR moves we have followed
 * @far: a window onto the RAM of the host at the endpoint's other link,
 *       where bridged BARs show it (vlink,far-ram); far.pdev is NULL
 *       without one
 * @msi_inner: the domain of the pending-bitmap bits
 * @msi_domain: the PCI/MSI domain on top of it, the bus's MSI domain
 * @intx_domain: INTA..INTD of the root bus
 * @msi_lock: protects @msi_used
 * @msi_used: pending-bitmap bits given out as MSI vectors
 * @add_nb: gives the functions of our bus our MSI domain
 */
struct vlink_rc {
	struct vlink *vl;
	struct kref ref;
	struct pci_host_bridge *bridge;
	struct pci_bus *bus;
	struct resource busn;
	raw_spinlock_t lock;
	struct vlink_rc_fn fn[VLINK_MAX_FUNCTIONS];
	struct vlink_rc_fn stage;
	struct work_struct scan_work;
	struct mutex scan_lock;		/* scanning, removal, @dying */
	bool dying;
	bool enumerated;
	u32 stretch;
	u32 acked_stretch;
	u32 acked_gen;
	u32 seen;
	struct vlink_aperture *ap;
	size_t ap_next;
	u32 bar_gen;
	struct vlink_window far;
	struct irq_domain *msi_inner;
	struct irq_domain *msi_domain;
	struct irq_domain *intx_domain;
	struct mutex msi_lock;		/* @msi_used */
	unsigned long msi_used[BITS_TO_LONGS(VLINK_IRQ_BITS)];
	struct notifier_block add_nb;
};

/* Config space emulation */

static struct vlink_rc_fn *vlink_rc_fn(struct vlink_rc *rc,
				       struct pci_bus *bus, unsigned int devfn)
{
	/* One device on the root bus: the endpoint, functions 0..7. */
	if (bus->number || PCI_SLOT(devfn) || !rc->fn[devfn].present)
		return NULL;
	return &rc->fn[devfn];
}

/* Is this BAR register the upper half of the 64-bit BAR below it? */
static bool vlink_rc_bar_upper(const struct vlink_rc_fn *f, unsigned int bar)
{
	return bar && f->bar_size[bar - 1] &&
	       (f->bar_reg[bar - 1] & PCI_BASE_ADDRESS_MEM_TYPE_64);
}

static u32 vlink_rc_bar_read(const struct vlink_rc_fn *f, unsigned int bar)
{
	u64 size = f->bar_size[bar];

	if (!f->bar_sizing[bar])
		return f->bar_reg[bar];
	if (size)
		return (lower_32_bits(~(size - 1)) & PCI_BASE_ADDRESS_MEM_MASK) |
		       (f->bar_reg[bar] & ~PCI_BASE_ADDRESS_MEM_MASK);
	return upper_32_bits(~(f->bar_size[bar - 1] - 1));
}

static int vlink_rc_read(struct pci_bus *bus, unsigned int devfn, int where,
			 int size, u32 *val)
{
	struct vlink_rc *rc = bus->sysdata;
	struct vlink_rc_fn *f;
	unsigned long flags;
	u32 v = 0;
	int i;

	raw_spin_lock_irqsave(&rc->lock, flags);
	f = vlink_rc_fn(rc, bus, devfn);
	if (!f) {
		raw_spin_unlock_irqrestore(&rc->lock, flags);
		PCI_SET_ERROR_RESPONSE(val);
		return PCIBIOS_DEVICE_NOT_FOUND;
	}
	for (i = 0; i < size; i++) {
		unsigned int at = where + i;
		u32 b = 0;

		if (at >= PCI_BASE_ADDRESS_0 && at <= PCI_BASE_ADDRESS_5 + 3)
			b = vlink_rc_bar_read(f, (at - PCI_BASE_ADDRESS_0) / 4) >>
			    (8 * (at & 3));
		else if (at < VLINK_RC_CFG_EMULATED)
			b = f->cfg[at];
		v |= (b & 0xff) << (8 * i);
	}
	raw_spin_unlock_irqrestore(&rc->lock, flags);
	*val = v;
	return PCIBIOS_SUCCESSFUL;
}

/*
 * The translation behind a BAR is fixed where the endpoint's memory is:
 * the address reads back as we placed it, except while the host sizes it.
 */
static void vlink_rc_write_bar(struct vlink_rc_fn *f, unsigned int bar,
			       unsigned int shift, u32 mask, u32 val)
{
	u32 cur = vlink_rc_bar_read(f, bar);
	u32 reg = (cur & ~(mask << shift)) | ((val & mask) << shift);
	u64 size = f->bar_size[bar];
	u32 ones = size ? lower_32_bits(~(size - 1)) & PCI_BASE_ADDRESS_MEM_MASK :
			  ~0u;

	f->bar_sizing[bar] = (size || vlink_rc_bar_upper(f, bar)) &&
			     (reg & ones) == ones;
}

static int vlink_rc_write(struct pci_bus *bus, unsigned int devfn, int where,
			  int size, u32 val)
{
	struct vlink_rc *rc = bus->sysdata;
	struct vlink_rc_fn *f;
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&rc->lock, flags);
	f = vlink_rc_fn(rc, bus, devfn);
	if (!f) {
		raw_spin_unlock_irqrestore(&rc->lock, flags);
		return PCIBIOS_DEVICE_NOT_FOUND;
	}
	if (where >= PCI_BASE_ADDRESS_0 && where <= PCI_BASE_ADDRESS_5 + 3) {
		u32 mask = size == 4 ? ~0u : (1u << (8 * size)) - 1;

		vlink_rc_write_bar(f, (where - PCI_BASE_ADDRESS_0) / 4,
				   8 * (where & 3), mask, val);
	} else {
		for (i = 0; i < size && where + i < VLINK_RC_CFG_EMULATED; i++) {
			unsigned int at = where + i;
			u8 m = f->wmask[at], b = val >> (8 * i);

			if (!m)
				continue;
			f->cfg[at] = (f->cfg[at] & ~m) | (b & m);
			/* The endpoint acts on these: forward them. */
			WRITE_ONCE(f->shm_cfg[at],
				   (READ_ONCE(f->shm_cfg[at]) & ~m) | (b & m));
		}
	}
	raw_spin_unlock_irqrestore(&rc->lock, flags);
	/* The endpoint reads what the host wrote (e.g. MSI address/data). */
	wmb();
	return PCIBIOS_SUCCESSFUL;
}

static struct pci_ops vlink_rc_pci_ops = {
	.read = vlink_rc_read,
	.write = vlink_rc_write,
};

/* Loading a function: the endpoint's image is copied once, then judged */

#define vlink_rc_refuse(rc, fn, fmt, ...)				\
	({								\
		dev_err(&(rc)->vl->pdev->dev,				\
			"function %u: " fmt ", function refused\n",	\
			fn, ##__VA_ARGS__);				\
		-EINVAL;						\
	})

static u16 vlink_rc_cfg16(const struct vlink_rc_fn *f, unsigned int where)
{
	return f->cfg[where] | f->cfg[where + 1] << 8;
}

static u32 vlink_rc_cfg32(const struct vlink_rc_fn *f, unsigned int where)
{
	return vlink_rc_cfg16(f, where) | vlink_rc_cfg16(f, where + 2) << 16;
}

static void vlink_rc_set_wmask(struct vlink_rc_fn *f, unsigned int where,
			       unsigned int bytes, u32 mask)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		f->wmask[where + i] = mask >> (8 * i);
}

static int vlink_rc_check_header(struct vlink_rc *rc, struct vlink_rc_fn *f,
				 unsigned int fn)
{
	u16 vendor = vlink_rc_cfg16(f, PCI_VENDOR_ID);
	u8 type = f->cfg[PCI_HEADER_TYPE] & PCI_HEADER_TYPE_MASK;

	if (vendor == VLINK_VENDOR_ID_RETRY)
		return vlink_rc_refuse(rc, fn, "vendor ID %#06x would read as a retried request",
				       vendor);
	if (type != PCI_HEADER_TYPE_NORMAL)
		return vlink_rc_refuse(rc, fn, "header type %u is not an endpoint's",
				       type);
	/* The multi-function bit is ours: vlink_rc_set_multi() */
	f->cfg[PCI_HEADER_TYPE] = 0;
	/* BARs are emulated, there is no expansion ROM, no Cardbus CIS. */
	memset(f->cfg + PCI_BASE_ADDRESS_0, 0, PCI_CARDBUS_CIS + 4 -
	       PCI_BASE_ADDRESS_0);
	memset(f->cfg + PCI_ROM_ADDRESS, 0, 4);

	vlink_rc_set_wmask(f, PCI_COMMAND, 2, PCI_COMMAND_IO |
			   PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER |
			   PCI_COMMAND_PARITY | PCI_COMMAND_SERR |
			   PCI_COMMAND_INTX_DISABLE);
	vlink_rc_set_wmask(f, PCI_CACHE_LINE_SIZE, 2, 0xffff);
	vlink_rc_set_wmask(f, PCI_INTERRUPT_LINE, 1, 0xff);
	return 0;
}

/*
 * Point a movable BAR's pages where the endpoint says its memory is now,
 * or park them while that is not in its RAM.  @phys and @size come from
 * our copy of the descriptor.
 */
static void vlink_rc_move_bar(struct vlink_rc *rc, struct vlink_rc_fn *f,
			      unsigned int fn, unsigned int bar, u64 phys,
			      u64 size)
{
	struct vlink *vl = rc->vl;
	u64 off = phys - vl->win.base;
	size_t ap_off = f->bar_ap_off[bar];
	u64 bar_size = f->bar_size[bar];
	u64 shown = PAGE_ALIGN(min(size, bar_size));

	if (!PAGE_ALIGNED(phys) || phys < vl->win.base ||
	    off >= vl->win.size || shown > vl->win.size - off)
		shown = 0;
	if (phys == f->bar_phys[bar] && shown == f->bar_shown[bar])
		return;
	f->bar_phys[bar] = phys;
	f->bar_shown[bar] = shown;
	vlink_ap_park(rc->ap, ap_off + shown, bar_size - shown);
	if (shown) {
		vlink_ap_map(rc->ap, ap_off, shown, vl->win.phys + off);
		dev_info(&vl->pdev->dev, "function %u: BAR%u shows endpoint memory %#llx+%#llx\n",
			 fn, bar, phys, shown);
	} else {
		dev_info(&vl->pdev->dev, "function %u: BAR%u has no endpoint memory at %#llx+%#llx: parked\n",
			 fn, bar, phys, size);
	}
}

/* Where an extent's memory shows, or 0 if it is not where its kind says. */
static phys_addr_t vlink_rc_xlat_target(struct vlink_rc *rc,
					const struct vlink_xlat_extent *e)
{
	u64 addr = le64_to_cpu(e->addr);
	u64 size = le64_to_cpu(e->size);

	if (!PAGE_ALIGNED(addr))
		return 0;
	switch (le32_to_cpu(e->kind)) {
	case VLINK_XLAT_EP_RAM:
		return vlink_window_phys(&rc->vl->win, addr, size);
	case VLINK_XLAT_FAR_RAM:
		return vlink_window_phys(&rc->far, addr, size);
	default:
		return 0;
	}
}

/*
 * Point a bridged BAR's pages where its translation table says, copied
 * once between two even reads of its sequence count.  Each page is
 * retargeted in place, never parked on the way: a doorbell the host rings
 * while the table changes elsewhere still arrives.  A torn or bad table
 * leaves the pages it cannot vouch for parked; the endpoint rings again
 * when it has rewritten the table.
 */
static void vlink_rc_xlat_bar(struct vlink_rc *rc, struct vlink_rc_fn *f,
			      unsigned int fn, unsigned int bar)
{
	struct vlink_bar_xlat *shared = vlink_xlat(rc->vl, fn, bar);
	struct vlink_xlat_extent ext[VLINK_XLAT_EXTENTS];
	struct device *dev = &rc->vl->pdev->dev;
	size_t ap_off = f->bar_ap_off[bar];
	u64 bar_size = f->bar_size[bar];
	unsigned int i, far = 0, n = 0;
	u64 end = 0, off, size;
	phys_addr_t target;
	u32 seq;

	seq = vlink_rd32(&shared->seq);
	rmb();	/* the count before the extents */
	memcpy(ext, shared->ext, sizeof(ext));
	rmb();	/* the extents before the count again */
	if ((seq & 1) || vlink_rd32(&shared->seq) != seq) {
		vlink_ap_park(rc->ap, ap_off, bar_size);
		dev_info_ratelimited(dev, "function %u: BAR%u's translation is being rewritten: parked\n",
				     fn, bar);
		return;
	}
	for (i = 0; i < VLINK_XLAT_EXTENTS && ext[i].size; i++) {
		off = le64_to_cpu(ext[i].bar_off);
		size = le64_to_cpu(ext[i].size);
		target = vlink_rc_xlat_target(rc, &ext[i]);
		if (!PAGE_ALIGNED(off) || !PAGE_ALIGNED(size) || off < end ||
		    off > bar_size || size > bar_size - off || !target) {
			dev_err_ratelimited(dev, "function %u: BAR%u extent %u (%#llx+%#llx kind %u at %#llx) is not one this link can show: the rest of the BAR is parked\n",
					    fn, bar, i, off, size,
					    le32_to_cpu(ext[i].kind),
					    le64_to_cpu(ext[i].addr));
			break;
		}
		vlink_ap_park(rc->ap, ap_off + end, off - end);
		vlink_ap_map(rc->ap, ap_off + off, size, target);
		far += le32_to_cpu(ext[i].kind) == VLINK_XLAT_FAR_RAM;
		end = off + size;
		n++;
	}
	vlink_ap_park(rc->ap, ap_off + end, bar_size - end);
	if (seq != f->bar_xlat_seq[bar])
		dev_info_ratelimited(dev, "function %u: BAR%u follows %u extent(s), %u of them the far host's RAM\n",
				     fn, bar, n, far);
	f->bar_xlat_seq[bar] = seq;
}

/* A movable BAR follows its translation table or its memory's address. */
static void vlink_rc_follow_bar(struct vlink_rc *rc, struct vlink_rc_fn *f,
				unsigned int fn, unsigned int bar, u64 phys,
				u64 size)
{
	if (f->bar_xlat[bar])
		vlink_rc_xlat_bar(rc, f, fn, bar);
	else
		vlink_rc_move_bar(rc, f, fn, bar, phys, size);
}

/*
 * A movable BAR gets a host address of its own in the aperture, naturally
 * aligned (the aperture is aligned to its size), whose pages follow the
 * endpoint's translation.
 */
static int vlink_rc_place_movable(struct vlink_rc *rc, struct vlink_rc_fn *f,
				  unsigned int fn, unsigned int bar, u64 phys,
				  u64 size, u32 attr, u64 *addr)
{
	size_t off;

	if (!rc->ap)
		return vlink_rc_refuse(rc, fn,
				       "BAR%u moves, and only a 32-bit ARM root complex can present a moving BAR",
				       bar);
	if (size < PAGE_SIZE)
		return vlink_rc_refuse(rc, fn, "BAR%u moves and is smaller than a page",
				       bar);
	off = ALIGN(rc->ap_next, size);
	if (off > rc->ap->size || size > rc->ap->size - off)
		return vlink_rc_refuse(rc, fn,
				       "BAR%u moves: no room for %#llx bytes left in the aperture",
				       bar, size);
	rc->ap_next = off + size;
	f->bar_movable[bar] = true;
	f->bar_ap_off[bar] = off;
	f->bar_size[bar] = size;
	f->bar_phys[bar] = ~0ULL;
	f->bar_xlat[bar] = attr & VLINK_BAR_XLAT;
	f->bar_xlat_seq[bar] = 1;
	vlink_rc_follow_bar(rc, f, fn, bar, phys, size);
	*addr = rc->ap->phys + off;
	return 0;
}

/*
 * Present the function's BARs as assigned: the PCI address of a fixed BAR
 * is where its memory shows through the window onto the endpoint's RAM,
 * that of a movable BAR is in the aperture.
 */
static int vlink_rc_place_bars(struct vlink_rc *rc, struct vlink_rc_fn *f,
			       const struct vlink_func_desc *desc,
			       unsigned int fn)
{
	struct vlink *vl = rc->vl;
	unsigned int bar;
	int ret;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
		u64 phys = le64_to_cpu(desc->bar[bar].phys);
		u64 size = le64_to_cpu(desc->bar[bar].size);
		u32 flags = le32_to_cpu(desc->bar[bar].flags);
		u32 attr = le32_to_cpu(desc->bar[bar].attr);
		u64 off = phys - vl->win.base;
		u64 addr = vl->win.phys + off;

		if (!size)
			continue;
		if (!is_power_of_2(size) || size < 16 || size > SZ_1G ||
		    (flags & PCI_BASE_ADDRESS_SPACE_IO) ||
		    ((flags & PCI_BASE_ADDRESS_MEM_TYPE_64) &&
		     bar == PCI_STD_NUM_BARS - 1) ||
		    (!(attr & VLINK_BAR_MOVABLE) &&
		     (phys < vl->win.base || off >= vl->win.size ||
		      size > vl->win.size - off || !IS_ALIGNED(addr, size))))
			return vlink_rc_refuse(rc, fn,
					       "BAR%u %#llx+%#llx flags %#x is not a BAR this link can present",
					       bar, phys, size, flags);
		if (attr & VLINK_BAR_MOVABLE) {
			ret = vlink_rc_place_movable(rc, f, fn, bar, phys,
						     size, attr, &addr);
			if (ret)
				return ret;
		}
		f->bar_size[bar] = size;
		f->bar_phys[bar] = phys;
		f->bar_reg[bar] = lower_32_bits(addr) |
				  (flags & (PCI_BASE_ADDRESS_MEM_TYPE_MASK |
					    PCI_BASE_ADDRESS_MEM_PREFETCH));
		if (flags & PCI_BASE_ADDRESS_MEM_TYPE_64)
			f->bar_reg[++bar] = upper_32_bits(addr);
	}
	return 0;
}

static u64 vlink_rc_bar_addr(const struct vlink_rc_fn *f, unsigned int bar)
{
	u64 addr = f->bar_reg[bar] & PCI_BASE_ADDRESS_MEM_MASK;

	if (f->bar_reg[bar] & PCI_BASE_ADDRESS_MEM_TYPE_64)
		addr |= (u64)f->bar_reg[bar + 1] << 32;
	return addr;
}

/* The BAR of @o that overlaps BAR @bar of @f (other than itself), or -1. */
static int vlink_rc_overlapping_bar(const struct vlink_rc_fn *f,
				    unsigned int bar,
				    const struct vlink_rc_fn *o)
{
	u64 a = vlink_rc_bar_addr(f, bar), as = f->bar_size[bar];
	unsigned int i;

	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		u64 b = vlink_rc_bar_addr(o, i), bs = o->bar_size[i];

		if (bs && (o != f || i != bar) && a < b + bs && b < a + as)
			return i;
	}
	return -1;
}

/* Two BARs on one piece of memory would be two windows onto one target. */
static int vlink_rc_check_overlap(struct vlink_rc *rc, struct vlink_rc_fn *f,
				  unsigned int fn)
{
	const struct vlink_rc_fn *o;
	unsigned int bar, ofn;
	int other;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
		if (!f->bar_size[bar])
			continue;
		for (ofn = 0; ofn <= fn; ofn++) {
			o = ofn == fn ? f : &rc->fn[ofn];
			if (o != f && !o->present)
				continue;
			other = vlink_rc_overlapping_bar(f, bar, o);
			if (other >= 0)
				return vlink_rc_refuse(rc, fn,
						       "BAR%u overlaps BAR%d of function %u",
						       bar, other, ofn);
		}
	}
	return 0;
}

/* A capability must lie in the header space, and be whole there. */
static unsigned int vlink_rc_cap_len(const struct vlink_rc_fn *f,
				     unsigned int pos)
{
	u16 ctrl = vlink_rc_cfg16(f, pos + PCI_CAP_FLAGS);

	switch (f->cfg[pos + PCI_CAP_LIST_ID]) {
	case PCI_CAP_ID_MSI:
		if (ctrl & PCI_MSI_FLAGS_MASKBIT)
			return ctrl & PCI_MSI_FLAGS_64BIT ? 24 : 20;
		return ctrl & PCI_MSI_FLAGS_64BIT ? 14 : 10;
	case PCI_CAP_ID_MSIX:
		return PCI_CAP_MSIX_SIZEOF;
	default:
		return 2;
	}
}

/* The MSI-X table and PBA must lie inside a BAR the function has. */
static int vlink_rc_check_msix(struct vlink_rc *rc, struct vlink_rc_fn *f,
			       unsigned int fn, unsigned int pos)
{
	unsigned int nr = (vlink_rc_cfg16(f, pos + PCI_MSIX_FLAGS) &
			   PCI_MSIX_FLAGS_QSIZE) + 1;
	static const char *const what[] = { "table", "PBA" };
	u32 reg[2] = {
		vlink_rc_cfg32(f, pos + PCI_MSIX_TABLE),
		vlink_rc_cfg32(f, pos + PCI_MSIX_PBA),
	};
	u64 len[2] = {
		(u64)nr * PCI_MSIX_ENTRY_SIZE,
		BITS_TO_U64(nr) * sizeof(u64),
	};
	unsigned int i;

	for (i = 0; i < 2; i++) {
		unsigned int bir = reg[i] & PCI_MSIX_TABLE_BIR;
		u64 off = reg[i] & PCI_MSIX_TABLE_OFFSET;

		if (bir >= PCI_STD_NUM_BARS || !f->bar_size[bir] ||
		    off > f->bar_size[bir] || len[i] > f->bar_size[bir] - off)
			return vlink_rc_refuse(rc, fn,
					       "MSI-X %s BAR%u+%#llx (%llu bytes) is not inside a BAR",
					       what[i], bir, off, len[i]);
	}
	return 0;
}

/*
 * Which bits the host may write in the capabilities: what a host programs
 * in MSI and MSI-X.  The list comes from the endpoint, so it is walked with
 * suspicion.
 */
static int vlink_rc_check_caps(struct vlink_rc *rc, struct vlink_rc_fn *f,
			       unsigned int fn)
{
	unsigned int pos, len, n = 0;
	bool msi = false, msix = false;
	u16 ctrl;
	int ret;

	if (!(vlink_rc_cfg16(f, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return 0;
	for (pos = f->cfg[PCI_CAPABILITY_LIST]; pos;
	     pos = f->cfg[pos + PCI_CAP_LIST_NEXT]) {
		if (pos < PCI_STD_HEADER_SIZEOF || (pos & 3) ||
		    ++n > VLINK_RC_MAX_CAPS)
			return vlink_rc_refuse(rc, fn, "capability list broken at %#x",
					       pos);
		len = vlink_rc_cap_len(f, pos);
		if (pos + len > VLINK_RC_CFG_EMULATED)
			return vlink_rc_refuse(rc, fn,
					       "capability at %#x, %u bytes, leaves the header space",
					       pos, len);
		ctrl = vlink_rc_cfg16(f, pos + PCI_CAP_FLAGS);
		switch (f->cfg[pos + PCI_CAP_LIST_ID]) {
		case PCI_CAP_ID_MSI: {
			bool is64 = ctrl & PCI_MSI_FLAGS_64BIT;
			unsigned int data = pos + (is64 ? PCI_MSI_DATA_64 :
						   PCI_MSI_DATA_32);

			if (msi)
				return vlink_rc_refuse(rc, fn, "second MSI capability at %#x",
						       pos);
			msi = true;
			vlink_rc_set_wmask(f, pos + PCI_MSI_FLAGS, 1,
					   PCI_MSI_FLAGS_ENABLE |
					   PCI_MSI_FLAGS_QSIZE);
			vlink_rc_set_wmask(f, pos + PCI_MSI_ADDRESS_LO, 4, ~3u);
			if (is64)
				vlink_rc_set_wmask(f, pos + PCI_MSI_ADDRESS_HI,
						   4, ~0u);
			vlink_rc_set_wmask(f, data, 2, 0xffff);
			if (ctrl & PCI_MSI_FLAGS_MASKBIT)
				vlink_rc_set_wmask(f, data + 4, 4, ~0u);
			break;
		}
		case PCI_CAP_ID_MSIX:
			if (msix)
				return vlink_rc_refuse(rc, fn, "second MSI-X capability at %#x",
						       pos);
			msix = true;
			ret = vlink_rc_check_msix(rc, f, fn, pos);
			if (ret)
				return ret;
			vlink_rc_set_wmask(f, pos + PCI_MSIX_FLAGS + 1, 1,
					   (PCI_MSIX_FLAGS_ENABLE |
					    PCI_MSIX_FLAGS_MASKALL) >> 8);
			break;
		}
	}
	return 0;
}

/*
 * Copy one function's image and descriptors out of the shared memory,
 * once, and judge the copy: the endpoint may rewrite the original at any
 * time, and nothing of it is read again.
 */
static int vlink_rc_load_function(struct vlink_rc *rc, struct vlink_rc_fn *f,
				  unsigned int fn, u32 mask)
{
	struct vlink *vl = rc->vl;
	struct vlink_func_desc desc;
	int ret;

	memset(f, 0, sizeof(*f));
	f->shm_cfg = vlink_cfg(vl, fn);
	if (!(mask & BIT(fn)))
		return -ENODEV;
	memcpy(f->cfg, f->shm_cfg, sizeof(f->cfg));
	memcpy(&desc, vlink_desc(vl, fn), sizeof(desc));

	ret = vlink_rc_check_header(rc, f, fn);
	if (!ret)
		ret = vlink_rc_place_bars(rc, f, &desc, fn);
	if (!ret)
		ret = vlink_rc_check_overlap(rc, f, fn);
	if (!ret)
		ret = vlink_rc_check_caps(rc, f, fn);
	return ret;
}

/* Function 0 is multi-function while the endpoint offers others. */
static void vlink_rc_set_multi(struct vlink_rc *rc, u32 mask)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&rc->lock, flags);
	rc->fn[0].cfg[PCI_HEADER_TYPE] = mask & ~1u ? 0x80 : 0;
	raw_spin_unlock_irqrestore(&rc->lock, flags);
}

/* Build our view of the endpoint's functions from what it published. */
static unsigned int vlink_rc_load_functions(struct vlink_rc *rc, u32 mask)
{
	struct vlink_rc_fn *f = &rc->stage;
	unsigned long flags;
	unsigned int fn, n = 0;

	/* Nothing maps the aperture now: the bus is empty. */
	rc->ap_next = 0;
	if (rc->ap)
		vlink_ap_park(rc->ap, 0, rc->ap->size);
	for (fn = 0; fn < VLINK_MAX_FUNCTIONS; fn++) {
		f->present = !vlink_rc_load_function(rc, f, fn, mask);
		n += f->present;
		raw_spin_lock_irqsave(&rc->lock, flags);
		rc->fn[fn] = *f;
		raw_spin_unlock_irqrestore(&rc->lock, flags);
	}
	vlink_rc_set_multi(rc, mask);
	return n;
}

static void vlink_rc_hide_functions(struct vlink_rc *rc)
{
	unsigned long flags;
	unsigned int fn;

	raw_spin_lock_irqsave(&rc->lock, flags);
	for (fn = 0; fn < VLINK_MAX_FUNCTIONS; fn++)
		rc->fn[fn].present = false;
	raw_spin_unlock_irqrestore(&rc->lock, flags);
}

/* Link state: the scan worker runs under the PCI rescan lock */

static void vlink_rc_remove_devices(struct vlink_rc *rc)
{
	struct pci_dev *pdev, *tmp;
	unsigned int n = 0;

	list_for_each_entry_safe_reverse(pdev, tmp, &rc->bus->devices,
					 bus_list) {
		pci_stop_and_remove_bus_device(pdev);
		n++;
	}
	vlink_rc_hide_functions(rc);
	rc->enumerated = false;
	dev_info(&rc->vl->pdev->dev, "link down: removed %u function(s)\n", n);
}

/* Publish which functions we present: the endpoint waits on it. */
static u32 vlink_rc_functions_seen(struct vlink_rc *rc)
{
	u32 seen = 0;
	unsigned int fn;

	for (fn = 0; fn < VLINK_MAX_FUNCTIONS; fn++)
		if (rc->fn[fn].present)
			seen |= BIT(fn);
	vlink_wr32(&rc->vl->self->func_seen, seen);
	return seen;
}

/* The endpoint withdrew some functions while its link stays up. */
static void vlink_rc_withdraw(struct vlink_rc *rc, u32 mask)
{
	struct pci_dev *pdev;
	unsigned long flags;
	unsigned int fn;

	for (fn = 0; fn < VLINK_MAX_FUNCTIONS; fn++) {
		if (!rc->fn[fn].present || (mask & BIT(fn)))
			continue;
		pdev = pci_get_slot(rc->bus, PCI_DEVFN(0, fn));
		if (pdev) {
			pci_stop_and_remove_bus_device(pdev);
			pci_dev_put(pdev);
		}
		raw_spin_lock_irqsave(&rc->lock, flags);
		rc->fn[fn].present = false;
		raw_spin_unlock_irqrestore(&rc->lock, flags);
		dev_info(&rc->vl->pdev->dev, "endpoint withdrew function %u: removed\n",
			 fn);
	}
	vlink_rc_set_multi(rc, mask);
}

/*
 * The endpoint moved BAR translations: follow the movable BARs of the
 * functions we present, each descriptor copied once.  A fixed BAR cannot
 * follow; its host address stays where its memory was.
 */
static void vlink_rc_follow_bars(struct vlink_rc *rc)
{
	struct vlink *vl = rc->vl;
	u32 gen = vlink_rd32(&vl->other->bar_gen);
	struct vlink_bar_desc d;
	unsigned int fn, bar;
	struct vlink_rc_fn *f;

	if (gen == rc->bar_gen)
		return;
	rc->bar_gen = gen;
	rmb();	/* the generation before the descriptors it counts */
	for (fn = 0; fn < VLINK_MAX_FUNCTIONS; fn++) {
		f = &rc->fn[fn];
		for (bar = 0; f->present && bar < PCI_STD_NUM_BARS; bar++) {
			if (!f->bar_size[bar] || vlink_rc_bar_upper(f, bar))
				continue;
			memcpy(&d, &vlink_desc(vl, fn)->bar[bar], sizeof(d));
			if (f->bar_movable[bar])
				vlink_rc_follow_bar(rc, f, fn, bar,
						    le64_to_cpu(d.phys),
						    le64_to_cpu(d.size));
			else if (le64_to_cpu(d.phys) != f->bar_phys[bar])
				dev_err_ratelimited(&vl->pdev->dev, "function %u: BAR%u moved to %#llx, but the host reaches it at a fixed address: it still shows %#llx\n",
						    fn, bar, le64_to_cpu(d.phys),
						    f->bar_phys[bar]);
		}
	}
}

static void vlink_rc_scan(struct vlink_rc *rc, u32 gen, u32 mask)
{
	struct device *dev = &rc->vl->pdev->dev;
	unsigned int n;

	/* Moves from now on are followed; earlier ones are in the copies. */
	rc->bar_gen = vlink_rd32(&rc->vl->other->bar_gen);
	n = vlink_rc_load_functions(rc, mask);

	dev_info(dev, "endpoint started (generation %u): %u function(s) to enumerate\n",
		 gen, n);
	pci_scan_child_bus(rc->bus);
	pci_bus_claim_resources(rc->bus);
	pci_bus_add_devices(rc->bus);
	rc->enumerated = true;
}

/*
 * Follow the endpoint's side area, read once.  A generation is enumerated
 * once per stretch of link: the endpoint may come back with the generation
 * it had (the server took the link down and up again, its side untouched),
 * and that must be enumerated anew before the endpoint is told it is.
 */
static void vlink_rc_sync(struct vlink_rc *rc)
{
	struct vlink *vl = rc->vl;
	u32 stretch = READ_ONCE(rc->stretch);
	bool alive = stretch && vlink_peer_alive(vl);
	bool started = alive && vlink_rd32(&vl->other->started);
	u32 gen = vlink_rd32(&vl->other->start_gen);
	u32 mask = vlink_rd32(&vl->other->func_mask) &
		   GENMASK(VLINK_MAX_FUNCTIONS - 1, 0);
	bool fresh = stretch != rc->acked_stretch || gen != rc->acked_gen;
	u32 seen = rc->seen;

	if (rc->enumerated && (!started || fresh))
		vlink_rc_remove_devices(rc);
	if (started && fresh) {
		vlink_rc_scan(rc, gen, mask);
	} else if (rc->enumerated) {
		vlink_rc_withdraw(rc, mask);
		vlink_rc_follow_bars(rc);
	}
	rc->seen = vlink_rc_functions_seen(rc);
	if (alive && (fresh || seen != rc->seen)) {
		/* Tell the endpoint this generation is taken care of. */
		rc->acked_stretch = stretch;
		rc->acked_gen = gen;
		vlink_wr32(&vl->self->enum_gen, gen);
		vlink_ring(vl, VLINK_VEC_LINK);
	}
}

static void vlink_rc_release(struct kref *ref)
{
	kfree(container_of(ref, struct vlink_rc, ref));
}

static void vlink_rc_scan_work(struct work_struct *work)
{
	struct vlink_rc *rc = container_of(work, struct vlink_rc, scan_work);

	pci_lock_rescan_remove();
	mutex_lock(&rc->scan_lock);
	if (!rc->dying)
		vlink_rc_sync(rc);
	mutex_unlock(&rc->scan_lock);
	pci_unlock_rescan_remove();
	kref_put(&rc->ref, vlink_rc_release);
}

static void vlink_rc_link_event(struct vlink *vl, bool peer_alive)
{
	struct vlink_rc *rc = vl->priv;

	WRITE_ONCE(rc->stretch, peer_alive ? vl->peer_ups : 0);
	kref_get(&rc->ref);
	if (!queue_work(system_wq, &rc->scan_work))
		kref_put(&rc->ref, vlink_rc_release);
}

/* Interrupts */

/*
 * The endpoint's word size may differ from ours: the bitmap is taken bit
 * by bit in its little-endian layout, never a word at a time.
 */
static void vlink_rc_irq(struct vlink *vl)
{
	struct vlink_rc *rc = vl->priv;
	void *bits = vlink_irq_bits(vl);
	unsigned int hw;

	for (hw = find_next_bit_le(bits, VLINK_IRQ_BITS, 0);
	     hw < VLINK_IRQ_BITS;
	     hw = find_next_bit_le(bits, VLINK_IRQ_BITS, hw + 1)) {
		if (!test_and_clear_bit_le(hw, bits))
			continue;
		if (hw == VLINK_IRQ_ECHO_BIT)
			vlink_ring(vl, VLINK_VEC_PONG);
		else if (hw < VLINK_INTX_BITS)
			generic_handle_domain_irq(rc->intx_domain, hw % 4);
		else if (generic_handle_domain_irq(rc->msi_inner, hw))
			dev_warn_ratelimited(&vl->pdev->dev,
					     "endpoint raised vector %u, which no function owns: dropped\n",
					     hw);
	}
}

static const struct vlink_ops vlink_rc_ops = {
	.link_event = vlink_rc_link_event,
	.irq = vlink_rc_irq,
};

static void vlink_rc_compose_msi(struct irq_data *d, struct msi_msg *msg)
{
	msg->address_lo = lower_32_bits(VLINK_MSI_ADDRESS);
	msg->address_hi = upper_32_bits(VLINK_MSI_ADDRESS);
	msg->data = d->hwirq;
}

static int vlink_rc_set_affinity(struct irq_data *d,
				 const struct cpumask *mask, bool force)
{
	return -EINVAL;
}

static void vlink_rc_noop(struct irq_data *d)
{
}

static struct irq_chip vlink_rc_msi_bottom_chip = {
	.name = "vlink-msi",
	.irq_ack = vlink_rc_noop,
	.irq_mask = vlink_rc_noop,
	.irq_unmask = vlink_rc_noop,
	.irq_compose_msi_msg = vlink_rc_compose_msi,
	.irq_set_affinity = vlink_rc_set_affinity,
};

static int vlink_rc_msi_alloc(struct irq_domain *domain, unsigned int virq,
			      unsigned int nr_irqs, void *args)
{
	struct vlink_rc *rc = domain->host_data;
	unsigned int i;
	int hw;

	/*
	 * Multi-message MSI adds the vector number to the data: blocks are a
	 * power of two, aligned to their size.
	 */
	mutex_lock(&rc->msi_lock);
	hw = bitmap_find_free_region(rc->msi_used, VLINK_IRQ_BITS,
				     order_base_2(nr_irqs));
	mutex_unlock(&rc->msi_lock);
	if (hw < 0)
		return -ENOSPC;
	for (i = 0; i < nr_irqs; i++)
		irq_domain_set_info(domain, virq + i, hw + i,
				    &vlink_rc_msi_bottom_chip, rc,
				    handle_simple_irq, NULL, NULL);
	return 0;
}

static void vlink_rc_msi_free(struct irq_domain *domain, unsigned int virq,
			      unsigned int nr_irqs)
{
	struct irq_data *d = irq_domain_get_irq_data(domain, virq);
	struct vlink_rc *rc = domain->host_data;

	mutex_lock(&rc->msi_lock);
	bitmap_release_region(rc->msi_used, d->hwirq, order_base_2(nr_irqs));
	mutex_unlock(&rc->msi_lock);
}

static const struct irq_domain_ops vlink_rc_msi_ops = {
	.alloc = vlink_rc_msi_alloc,
	.free = vlink_rc_msi_free,
};

/*
 * The endpoint cannot see the host unmask an MSI-X vector in its table:
 * ring it, so that it delivers what became pending meanwhile.
 */
static void vlink_rc_msi_unmask(struct irq_data *d)
{
	struct vlink_rc *rc = irq_data_get_irq_chip_data(d->parent_data);

	pci_msi_unmask_irq(d);
	vlink_ring(rc->vl, VLINK_VEC_LINK);
}

static struct irq_chip vlink_rc_msi_top_chip = {
	.name = "vlink-pci-msi",
	.irq_mask = pci_msi_mask_irq,
	.irq_unmask = vlink_rc_msi_unmask,
};

static struct msi_domain_info vlink_rc_msi_info = {
	.flags = MSI_FLAG_USE_DEF_DOM_OPS | MSI_FLAG_USE_DEF_CHIP_OPS |
		 MSI_FLAG_MULTI_PCI_MSI | MSI_FLAG_PCI_MSIX,
	.chip = &vlink_rc_msi_top_chip,
};

/* INTx arrives as assert messages: nothing to mask or acknowledge. */
static struct irq_chip vlink_rc_intx_chip = {
	.name = "vlink-intx",
	.irq_mask = vlink_rc_noop,
	.irq_unmask = vlink_rc_noop,
};

static int vlink_rc_intx_map(struct irq_domain *domain, unsigned int irq,
			     irq_hw_number_t hwirq)
{
	irq_set_chip_and_handler(irq, &vlink_rc_intx_chip, handle_simple_irq);
	irq_set_chip_data(irq, domain->host_data);
	return 0;
}

static const struct irq_domain_ops vlink_rc_intx_ops = {
	.map = vlink_rc_intx_map,
};

static int vlink_rc_map_irq(const struct pci_dev *pdev, u8 slot, u8 pin)
{
	struct vlink_rc *rc = pdev->bus->sysdata;

	if (pin < 1 || pin > 4)
		return 0;
	return irq_create_mapping(rc->intx_domain, pin - 1);
}

static void vlink_rc_remove_domains(struct vlink_rc *rc)
{
	unsigned int hw, virq;

	if (rc->msi_domain)
		irq_domain_remove(rc->msi_domain);
	if (rc->msi_inner)
		irq_domain_remove(rc->msi_inner);
	if (rc->intx_domain) {
		for (hw = 0; hw < 4; hw++) {
			virq = irq_find_mapping(rc->intx_domain, hw);
			if (virq)
				irq_dispose_mapping(virq);
		}
		irq_domain_remove(rc->intx_domain);
	}
}

static int vlink_rc_create_domains(struct vlink_rc *rc)
{
	struct device *dev = &rc->vl->pdev->dev;
	struct fwnode_handle *fwnode = of_node_to_fwnode(dev->of_node);

	rc->intx_domain = irq_domain_create_linear(fwnode, 4,
						   &vlink_rc_intx_ops, rc);
	if (!rc->intx_domain)
		return -ENOMEM;
	irq_domain_update_bus_token(rc->intx_domain, DOMAIN_BUS_WIRED);

	rc->msi_inner = irq_domain_create_tree(fwnode, &vlink_rc_msi_ops, rc);
	if (!rc->msi_inner)
		return -ENOMEM;
	irq_domain_update_bus_token(rc->msi_inner, DOMAIN_BUS_NEXUS);
	rc->msi_domain = pci_msi_create_irq_domain(fwnode, &vlink_rc_msi_info,
						   rc->msi_inner);
	return rc->msi_domain ? 0 : -ENOMEM;
}

/* The bus */

/*
 * The PCI core looks a new function's MSI domain up through the device
 * tree, and the walk from our bus reaches the board's host bridge and its
 * GICv2m frame, which the endpoint cannot reach.  Our functions get our
 * domain as they are added, before any driver probes them.
 */
static int vlink_rc_device_added(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	struct vlink_rc *rc = container_of(nb, struct vlink_rc, add_nb);
	struct pci_dev *pdev = to_pci_dev(data);

	if (action == BUS_NOTIFY_ADD_DEVICE && pdev->bus == rc->bus)
		dev_set_msi_domain(&pdev->dev, rc->msi_domain);
	return NOTIFY_DONE;
}

static int vlink_rc_create_bus(struct vlink_rc *rc)
{
	struct vlink *vl = rc->vl;
	struct device *dev = &vl->pdev->dev;
	struct pci_host_bridge *bridge;
	int ret;

	bridge = devm_pci_alloc_host_bridge(dev, 0);
	if (!bridge)
		return -ENOMEM;
	rc->busn = (struct resource)DEFINE_RES_NAMED(0, 1, "vlink bus",
						     IORESOURCE_BUS);
	pci_add_resource(&bridge->windows, &rc->busn);
	/* BARs live in the window onto the endpoint's RAM, at PCI addr = phys. */
	pci_add_resource(&bridge->windows, &vl->win.res);
	if (rc->ap)
		pci_add_resource(&bridge->windows, &rc->ap->res);
	bridge->sysdata = rc;
	bridge->busnr = 0;
	bridge->ops = &vlink_rc_pci_ops;
	bridge->map_irq = vlink_rc_map_irq;
	bridge->swizzle_irq = pci_common_swizzle;
	rc->bridge = bridge;

	rc->add_nb.notifier_call = vlink_rc_device_added;
	ret = bus_register_notifier(&pci_bus_type, &rc->add_nb);
	if (ret)
		return ret;
	/* No function is present yet: this scan only creates the bus. */
	ret = pci_scan_root_bus_bridge(bridge);
	if (ret) {
		bus_unregister_notifier(&pci_bus_type, &rc->add_nb);
		return ret;
	}
	rc->bus = bridge->bus;
	dev_set_msi_domain(&rc->bus->dev, rc->msi_domain);
	pci_bus_add_devices(rc->bus);
	return 0;
}

/*
 * As vmd_remove() does: quiesce the doorbells and the link worker, then
 * take the bus down (whoever removes our device may hold the rescan lock:
 * it is not taken here), then what the bus used.  A scan worker that waits
 * for the rescan lock meanwhile finds @dying and leaves the bus alone.
 */
static void vlink_rc_teardown(struct vlink_rc *rc)
{
	vlink_stop(rc->vl);
	mutex_lock(&rc->scan_lock);
	rc->dying = true;
	if (rc->bus) {
		pci_stop_root_bus(rc->bus);
		pci_remove_root_bus(rc->bus);
		bus_unregister_notifier(&pci_bus_type, &rc->add_nb);
		rc->bus = NULL;
	}
	mutex_unlock(&rc->scan_lock);
	if (cancel_work(&rc->scan_work))
		kref_put(&rc->ref, vlink_rc_release);
	vlink_rc_remove_domains(rc);
	if (rc->ap)
		vlink_ap_destroy(rc->ap);
	rc->ap = NULL;
}

static void vlink_rc_put(void *data)
{
	struct vlink_rc *rc = data;

	kref_put(&rc->ref, vlink_rc_release);
}

static int vlink_rc_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct vlink_rc *rc;
	int ret;

	/* Every ivshmem device is offered to us: take only our link. */
	if (!of_device_is_compatible(pdev->dev.of_node, "vlink,pcie-rc"))
		return -ENODEV;

	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	if (!rc)
		return -ENOMEM;
	kref_init(&rc->ref);
	raw_spin_lock_init(&rc->lock);
	mutex_init(&rc->scan_lock);
	mutex_init(&rc->msi_lock);
	INIT_WORK(&rc->scan_work, vlink_rc_scan_work);
	/* The INTx bits and the echo bit are never MSI vectors. */
	bitmap_set(rc->msi_used, 0, VLINK_INTX_BITS);
	set_bit(VLINK_IRQ_ECHO_BIT, rc->msi_used);
	/* The binding's reference, dropped after everything else. */
	ret = devm_add_action_or_reset(&pdev->dev, vlink_rc_put, rc);
	if (ret)
		return ret;

	rc->vl = vlink_probe(pdev, VLINK_ROLE_RC, &vlink_rc_ops, rc);
	if (IS_ERR(rc->vl))
		return PTR_ERR(rc->vl);
	if (vlink_ap_can_ioremap()) {
		rc->ap = vlink_ap_create(&pdev->dev, "vlink BAR aperture",
					 VLINK_RC_AP_SIZE);
		if (IS_ERR(rc->ap)) {
			ret = PTR_ERR(rc->ap);
			rc->ap = NULL;
			dev_err_probe(&pdev->dev, ret, "cannot set up the BAR aperture\n");
			goto err;
		}
	}
	ret = vlink_get_window(&pdev->dev, "vlink,far-ram", "vlink far RAM",
			       &rc->far);
	if (ret == -ENOENT) {
		rc->far.pdev = NULL;
	} else if (ret) {
		goto err;
	} else {
		dev_info(&pdev->dev, "window onto the far host's RAM %pR (its %#llx)\n",
			 &rc->far.res, rc->far.base);
	}
	ret = vlink_rc_create_domains(rc);
	if (ret) {
		dev_err_probe(&pdev->dev, ret, "cannot create irq domains\n");
		goto err;
	}
	ret = vlink_rc_create_bus(rc);
	if (ret) {
		dev_err_probe(&pdev->dev, ret, "cannot create the root bus\n");
		goto err;
	}
	pci_set_drvdata(pdev, rc);
	ret = vlink_start(rc->vl);
	if (ret)
		goto err;
	return 0;

err:
	vlink_rc_teardown(rc);
	return ret;
}

static void vlink_rc_remove(struct pci_dev *pdev)
{
	struct vlink_rc *rc = pci_get_drvdata(pdev);

	vlink_rc_teardown(rc);
	dev_info(&pdev->dev, "root complex link removed\n");
}

static const struct pci_device_id vlink_rc_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },
	{ }
};
MODULE_DEVICE_TABLE(pci, vlink_rc_ids);

static struct pci_driver vlink_rc_driver = {
	.name = "vlink-rc",
	.id_table = vlink_rc_ids,
	.probe = vlink_rc_probe,
	.remove = vlink_rc_remove,
};
builtin_pci_driver(vlink_rc_driver);
