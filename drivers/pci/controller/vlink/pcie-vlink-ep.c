// SPDX-License-Identifier: GPL-2.0
/*
 * vlink endpoint controller: the endpoint half of the virtual PCIe link.
 *
 * One PCI endpoint controller per link device.  What a real controller keeps
 * in its config space and BAR registers, this one publishes in the link's
 * shared memory for the root complex to emulate: a config space image per
 * function (header, MSI and MSI-X capabilities) and a descriptor of each BAR
 * (where its memory is in our RAM).  Starting the controller tells the root
 * complex to enumerate; its acknowledgment is our link up.
 *
 * Interrupts are posted writes: MSI and MSI-X messages must carry the link's
 * MSI address, and their data is a bit number in the link's pending bitmap,
 * which we set before ringing the root complex.  INTx is an assertion bit of
 * the same bitmap, delivered like a message.
 */

#include <linux/bitfield.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/pci.h>
#include <linux/pci-epc.h>
#include <linux/pci-epf.h>

#include "vlink.h"
#include "vlink-dma.h"
#include "vlink-ep-bridge.h"
#include "vlink-ep-faults.h"
#include "vlink-outbound.h"

/* Where the capabilities sit in each function's config space image. */
#define VLINK_EP_MSI_CAP	0x50
#define VLINK_EP_MSIX_CAP	0x70

#define VLINK_EP_OB_SIZE	SZ_32M
#define VLINK_EP_WITHDRAW_POLL_US	1000
#define VLINK_EP_WITHDRAW_TIMEOUT_S	5

/**
 * struct vlink_ep_fn - one function as this controller publishes it
 * @cfg: its config space image in the link shm
 * @desc: its BAR descriptors in the link shm
 * @bar: kernel address of each BAR's memory, for the MSI-X table
 * @bar_size: size of each BAR, which the MSI-X table and PBA must lie within
 * @bar_phys: where each BAR's translation points, as last published
 * @bar_movable: the BAR's translation may move while the host uses it
 * @has_header: write_header() was called
 * @msi: it has an MSI capability
 * @msix: it has an MSI-X capability
 * @msix_nr: its number of MSI-X vectors, as set_msix() gave it
 * @msix_table: BIR and offset of its MSI-X table, as set_msix() gave them
 * @msix_pba: BIR and offset of its PBA
 * @stranded: the root complex did not confirm its withdrawal: the host may
 *            still reach its BARs until they are set anew
 *
 * What the host can write (the image in the link shm, the BAR memory) is
 * read once per use; what we decided ourselves is kept here, under
 * &struct vlink_ep.msix_lock.
 */
struct vlink_ep_fn {
	u8 *cfg;
	struct vlink_func_desc *desc;
	void *bar[PCI_STD_NUM_BARS];
	size_t bar_size[PCI_STD_NUM_BARS];
	phys_addr_t bar_phys[PCI_STD_NUM_BARS];
	bool bar_movable[PCI_STD_NUM_BARS];
	bool has_header;
	bool msi;
	bool msix;
	unsigned int msix_nr;
	u32 msix_table;
	u32 msix_pba;
	bool stranded;
};

/**
 * struct vlink_ep - one endpoint link
 * @vl: the link
 * @epc: the endpoint controller
 * @ob: the outbound window
 * @dma: the memcpy engine
 * @fn: the functions
 * @link_lock: serialises link state changes
 * @msix_lock: serialises the function images and MSI-X pending bits
 *             between the setters, raising and unmasking
 * @linked: the root complex has enumerated our current generation
 */
struct vlink_ep {
	struct vlink *vl;
	struct pci_epc *epc;
	struct vlink_ob ob;
	struct vlink_dma dma;
	struct vlink_ep_fn fn[VLINK_MAX_FUNCTIONS];
	struct mutex link_lock;		/* link state changes */
	spinlock_t msix_lock;		/* PBA and BAR pointers */
	bool linked;
	struct pci_epc_features features;
};

/* The outbound window maps whole pages: host buffers must be page aligned. */
static const struct pci_epc_features vlink_ep_features = {
	.linkup_notifier = true,
	.msi_capable = true,
	.msix_capable = true,
	.align = PAGE_SIZE,
};

/*
 * With "vlink,bar-64bit" the controller has the BAR layout of i.MX8M's
 * DesignWare endpoint: BARs 0, 2 and 4 are 64-bit, 1, 3 and 5 their upper
 * halves.  Host drivers written for such silicon (ntb_hw_epf's 1957:0809)
 * look for their registers in BARs 0, 2 and 4.
 */
#define VLINK_EP_BARS_64BIT	(BIT(BAR_0) | BIT(BAR_2) | BIT(BAR_4))

static struct vlink_ep_fn *vlink_ep_fn(struct pci_epc *epc, u8 func_no,
				       u8 vfunc_no)
{
	struct vlink_ep *ep = epc_get_drvdata(epc);

	/* The link has no SR-IOV: only physical functions. */
	if (vfunc_no || func_no >= epc->max_functions)
		return NULL;
	return &ep->fn[func_no];
}

static void cfg_w16(u8 *cfg, unsigned int where, u16 v)
{
	WRITE_ONCE(*(__le16 *)(cfg + where), cpu_to_le16(v));
}

static void cfg_w32(u8 *cfg, unsigned int where, u32 v)
{
	WRITE_ONCE(*(__le32 *)(cfg + where), cpu_to_le32(v));
}

static u16 cfg_r16(const u8 *cfg, unsigned int where)
{
	return le16_to_cpu(READ_ONCE(*(const __le16 *)(cfg + where)));
}

static u32 cfg_r32(const u8 *cfg, unsigned int where)
{
	return le32_to_cpu(READ_ONCE(*(const __le32 *)(cfg + where)));
}

/* Chain whichever capabilities the function has. */
static void vlink_ep_link_caps(struct vlink_ep_fn *f)
{
	u8 first = 0, *next = &first;

	if (f->msi) {
		*next = VLINK_EP_MSI_CAP;
		next = &f->cfg[VLINK_EP_MSI_CAP + PCI_CAP_LIST_NEXT];
	}
	if (f->msix) {
		*next = VLINK_EP_MSIX_CAP;
		next = &f->cfg[VLINK_EP_MSIX_CAP + PCI_CAP_LIST_NEXT];
	}
	*next = 0;
	f->cfg[PCI_CAPABILITY_LIST] = first;
	cfg_w16(f->cfg, PCI_STATUS, first ? PCI_STATUS_CAP_LIST : 0);
}

static bool vlink_ep_has_bars(struct vlink_ep_fn *f)
{
	unsigned int bar;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++)
		if (f->bar[bar])
			return true;
	return false;
}

/*
 * A function number passes to the next function driver once the previous
 * one's BARs are gone: none of its capabilities may show through.
 */
static void vlink_ep_forget_caps(struct vlink_ep *ep, struct vlink_ep_fn *f)
{
	spin_lock_irq(&ep->msix_lock);
	f->msi = false;
	f->msix = false;
	memset(f->cfg + PCI_STD_HEADER_SIZEOF, 0,
	       VLINK_CFG_SIZE - PCI_STD_HEADER_SIZEOF);
	vlink_ep_link_caps(f);
	spin_unlock_irq(&ep->msix_lock);
}

static int vlink_ep_write_header(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
				 struct pci_epf_header *hdr)
{
	struct vlink_ep *ep = epc_get_drvdata(epc);
	struct vlink_ep_fn *f = vlink_ep_fn(epc, func_no, vfunc_no);
	u8 *cfg;

	if (!f)
		return -EINVAL;
	/* A host reading this vendor ID would retry the read for a minute. */
	if (hdr->vendorid == VLINK_VENDOR_ID_RETRY) {
		dev_err(&epc->dev, "function %u: vendor ID %#06x is reserved for Configuration Request Retry Status\n",
			func_no, hdr->vendorid);
		return -EINVAL;
	}
	if (!vlink_ep_has_bars(f))
		vlink_ep_forget_caps(ep, f);
	spin_lock_irq(&ep->msix_lock);
	cfg = f->cfg;
	memset(cfg, 0, PCI_STD_HEADER_SIZEOF);
	cfg_w16(cfg, PCI_VENDOR_ID, hdr->vendorid);
	cfg_w16(cfg, PCI_DEVICE_ID, hdr->deviceid);
	cfg[PCI_REVISION_ID] = hdr->revid;
	cfg[PCI_CLASS_PROG] = hdr->progif_code;
	cfg[PCI_CLASS_DEVICE] = hdr->subclass_code;
	cfg[PCI_CLASS_DEVICE + 1] = hdr->baseclass_code;
	cfg[PCI_CACHE_LINE_SIZE] = hdr->cache_line_size;
	cfg[PCI_HEADER_TYPE] = PCI_HEADER_TYPE_NORMAL;
	cfg_w16(cfg, PCI_SUBSYSTEM_VENDOR_ID, hdr->subsys_vendor_id);
	cfg_w16(cfg, PCI_SUBSYSTEM_ID, hdr->subsys_id);
	cfg[PCI_INTERRUPT_PIN] = hdr->interrupt_pin;
	vlink_ep_link_caps(f);
	f->has_header = true;
	spin_unlock_irq(&ep->msix_lock);
	return 0;
}

/*
 * A BAR set before it has memory (outside our RAM: pci-epf-vntb's memory
 * windows start at 0), or set again with other memory, is movable: the
 * root complex presents it at a host address of its own whose pages
 * follow the translation, which therefore need only be page-aligned.
 * A fixed BAR shows its memory through the window at the host address,
 * which must be naturally aligned.  A BAR set inside another controller's
 * outbound window is bridged (vlink-ep-bridge.c): its pages follow that
 * window's mappings.
 */
static bool vlink_ep_bar_moves(struct vlink_ep_fn *f, enum pci_barno bar,
			       phys_addr_t phys)
{
	return f->bar_movable[bar] || !page_is_ram(PHYS_PFN(phys)) ||
	       (f->bar_size[bar] && f->bar_phys[bar] != phys);
}

static int vlink_ep_set_bar(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			    struct pci_epf_bar *epf_bar)
{
	struct vlink_ep *ep = epc_get_drvdata(epc);
	struct vlink_ep_fn *f = vlink_ep_fn(epc, func_no, vfunc_no);
	enum pci_barno bar = epf_bar->barno;
	u8 wide = ep->features.bar_fixed_64bit;
	int flags = epf_bar->flags;
	u32 attr = 0;
	bool movable;
	int bridged;

	if (!f || bar < BAR_0 || bar > BAR_5)
		return -EINVAL;
	/* A fixed 64-bit BAR is one whatever the function asks, as in silicon. */
	if (wide & BIT(bar))
		flags |= PCI_BASE_ADDRESS_MEM_TYPE_64;
	if (bar > BAR_0 && (wide & BIT(bar - 1))) {
		dev_err(&epc->dev, "function %u: BAR%d is the upper half of 64-bit BAR%d\n",
			func_no, bar, bar - 1);
		return -EINVAL;
	}
	if ((flags & PCI_BASE_ADDRESS_MEM_TYPE_64) && bar == BAR_5)
		return -EINVAL;
	/* Only what the root complex can present: memory, naturally aligned. */
	movable = vlink_ep_bar_moves(f, bar, epf_bar->phys_addr);
	if ((flags & PCI_BASE_ADDRESS_SPACE_IO) ||
	    !is_power_of_2(epf_bar->size) ||
	    !IS_ALIGNED(epf_bar->phys_addr,
			movable ? PAGE_SIZE : epf_bar->size))
		return -EINVAL;
	bridged = vlink_bridge_set_bar(ep->vl, func_no, bar,
				       epf_bar->phys_addr, epf_bar->size);
	if (bridged < 0)
		return bridged;
	if (movable)
		attr |= VLINK_BAR_MOVABLE;
	if (bridged)
		attr |= VLINK_BAR_XLAT;

	spin_lock_irq(&ep->msix_lock);
	f->bar[bar] = epf_bar->addr;
	f->bar_size[bar] = epf_bar->size;
	f->bar_phys[bar] = epf_bar->phys_addr;
	f->bar_movable[bar] = movable;
	f->stranded = false;
	spin_unlock_irq(&ep->msix_lock);
	vlink_wr64(&f->desc->bar[bar].phys, epf_bar->phys_addr);
	vlink_wr32(&f->desc->bar[bar].flags, flags);
	vlink_wr32(&f->desc->bar[bar].attr, attr);
	vlink_wr64(&f->desc->bar[bar].size, epf_bar->size);
	/* The root complex may present it: let it follow. */
	if (movable)
		vlink_bar_moved(ep->vl);
	return 0;
}

/*
 * A function that clears a BAR while the host may use it (it is being
 * unbound on a live link) is withdrawn first: the root complex removes it,
 * and only then may its memory go.  A root complex that is alive but does
 * not confirm may still write the memory: then it must not be freed.
 *
 * Return: true when the host can no longer reach the function's BARs.
 */
static bool vlink_ep_withdraw(struct vlink_ep *ep, u8 func_no)
{
	struct vlink *vl = ep->vl;
	u32 mask = vlink_rd32(&vl->self->func_mask);
	u32 seen;

	if (mask & BIT(func_no)) {
		vlink_wr32(&vl->self->func_mask, mask & ~BIT(func_no));
		ep->fn[func_no].has_header = false;
		vlink_ring(vl, VLINK_VEC_LINK);
	} else if (ep->fn[func_no].stranded) {
		/* Its other BARs: the root complex did not answer for this one. */
		return false;
	}
	/*
	 * Polled, not woken by our link worker: we hold epc->lock here, and
	 * the worker may be waiting for the function's lock to deliver an
	 * event.
	 */
	if (read_poll_timeout(vlink_rd32, seen, !(seen & BIT(func_no)) ||
			      !vlink_peer_alive(vl),
			      VLINK_EP_WITHDRAW_POLL_US,
			      VLINK_EP_WITHDRAW_TIMEOUT_S * USEC_PER_SEC, false,
			      &vl->other->func_seen)) {
		dev_err(&ep->epc->dev, "function %u withdrawn, but the root complex did not confirm within %u s: its BAR memory is kept\n",
			func_no, VLINK_EP_WITHDRAW_TIMEOUT_S);
		ep->fn[func_no].stranded = true;
		return false;
	}
	if (mask & BIT(func_no))
		dev_info(&ep->epc->dev, "function %u withdrawn\n", func_no);
	return true;
}

static void vlink_ep_clear_bar(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			       struct pci_epf_bar *epf_bar)
{
	struct vlink_ep *ep = epc_get_drvdata(epc);
	struct vlink_ep_fn *f = vlink_ep_fn(epc, func_no, vfunc_no);
	enum pci_barno bar = epf_bar->barno;

	if (!f || bar < BAR_0 || bar > BAR_5)
		return;
	/*
	 * The BAR's memory is freed next: the host must no longer reach it
	 * and no MSI-X walk may be looking at it.
	 */
	if (!vlink_ep_withdraw(ep, func_no))
		epf_bar->keep = true;
	vlink_wr64(&f->desc->bar[bar].size, 0);
	vlink_bridge_clear_bar(ep->vl, func_no, bar);
	spin_lock_irq(&ep->msix_lock);
	f->bar[bar] = NULL;
	f->bar_size[bar] = 0;
	f->bar_movable[bar] = false;
	spin_unlock_irq(&ep->msix_lock);
	if (!vlink_ep_has_bars(f)) {
		f->has_header = false;
		vlink_ep_forget_caps(ep, f);
	}
}

/*
 * The root complex, if alive, has enumerated our current generation: the
 * link is up.
 */
static bool vlink_ep_acked(struct vlink *vl)
{
	return vlink_rd32(&vl->self->started) &&
	       vlink_rd32(&vl->other->enum_gen) ==
	       vlink_rd32(&vl->self->start_gen);
}

/*
 * The host's drivers may reach a function before the root complex's
 * acknowledgment reaches our link worker: pci-epf-vntb, answering the
 * command a new host wrote into its BAR, maps the window while we still
 * count the link down.  The acknowledgment in the link memory is the
 * link's state already, so the window opens on it; the functions hear of
 * the link up from the worker, which also parks the window again should
 * the link go down meanwhile.
 */
static void vlink_ep_open_acked_window(struct vlink_ep *ep)
{
	mutex_lock(&ep->link_lock);
	if (!ep->linked && vlink_peer_alive(ep->vl) && vlink_ep_acked(ep->vl))
		vlink_ob_set_link(&ep->ob, true);
	mutex_unlock(&ep->link_lock);
}

static int vlink_ep_map_addr(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			     phys_addr_t addr, u64 pci_addr, size_t size)
{
	struct vlink_ep *ep = epc_get_drvdata(epc);

	if (!vlink_ep_fn(epc, func_no, vfunc_no))
		return -EINVAL;
	vlink_ep_open_acked_window(ep);
	return vlink_ob_map(&ep->ob, addr, pci_addr, size);
}

static void vlink_ep_unmap_addr(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
				phys_addr_t addr)
{
	struct vlink_ep *ep = epc_get_drvdata(epc);

	if (vlink_ep_fn(epc, func_no, vfunc_no))
		vlink_ob_unmap(&ep->ob, addr);
}

static int vlink_ep_set_msi(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			    u8 mmc)
{
	struct vlink_ep *ep = epc_get_drvdata(epc);
	struct vlink_ep_fn *f = vlink_ep_fn(epc, func_no, vfunc_no);
	u8 *cap;

	if (!f || mmc > 5)
		return -EINVAL;
	spin_lock_irq(&ep->msix_lock);
	cap = f->cfg + VLINK_EP_MSI_CAP;
	memset(cap, 0, PCI_MSI_PENDING_64 + 4);
	cap[PCI_CAP_LIST_ID] = PCI_CAP_ID_MSI;
	cfg_w16(cap, PCI_MSI_FLAGS, PCI_MSI_FLAGS_64BIT | (mmc << 1));
	f->msi = true;
	vlink_ep_link_caps(f);
	spin_unlock_irq(&ep->msix_lock);
	return 0;
}

static int vlink_ep_get_msi(struct pci_epc *epc, u8 func_no, u8 vfunc_no)
{
	struct vlink_ep_fn *f = vlink_ep_fn(epc, func_no, vfunc_no);
	u16 flags;

	if (!f || !f->msi)
		return -EINVAL;
	flags = cfg_r16(f->cfg + VLINK_EP_MSI_CAP, PCI_MSI_FLAGS);
	if (!(flags & PCI_MSI_FLAGS_ENABLE))
		return -EINVAL;
	return FIELD_GET(PCI_MSI_FLAGS_QSIZE, flags);
}

static int vlink_ep_set_msix(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			     u16 interrupts, enum pci_barno bir, u32 offset)
{
	struct vlink_ep *ep = epc_get_drvdata(epc);
	struct vlink_ep_fn *f = vlink_ep_fn(epc, func_no, vfunc_no);
	u64 pba = (u64)offset + (interrupts + 1) * PCI_MSIX_ENTRY_SIZE;
	u8 *cap;

	if (!f || interrupts >= 2048 || bir < BAR_0 || bir > BAR_5 ||
	    (offset & 7) || pba > PCI_MSIX_TABLE_OFFSET)
		return -EINVAL;
	spin_lock_irq(&ep->msix_lock);
	f->msix_nr = interrupts + 1;
	f->msix_table = offset | bir;
	f->msix_pba = ALIGN(pba, 8) | bir;
	cap = f->cfg + VLINK_EP_MSIX_CAP;
	memset(cap, 0, PCI_CAP_MSIX_SIZEOF);
	cap[PCI_CAP_LIST_ID] = PCI_CAP_ID_MSIX;
	cfg_w16(cap, PCI_MSIX_FLAGS, interrupts);
	cfg_w32(cap, PCI_MSIX_TABLE, f->msix_table);
	cfg_w32(cap, PCI_MSIX_PBA, f->msix_pba);
	f->msix = true;
	vlink_ep_link_caps(f);
	spin_unlock_irq(&ep->msix_lock);
	return 0;
}

static int vlink_ep_get_msix(struct pci_epc *epc, u8 func_no, u8 vfunc_no)
{
	struct vlink_ep_fn *f = vlink_ep_fn(epc, func_no, vfunc_no);
	u16 flags;

	if (!f || !f->msix)
		return -EINVAL;
	flags = cfg_r16(f->cfg + VLINK_EP_MSIX_CAP, PCI_MSIX_FLAGS);
	if (!(flags & PCI_MSIX_FLAGS_ENABLE))
		return -EINVAL;
	return flags & PCI_MSIX_FLAGS_QSIZE;
}

static int vlink_ep_raise_msi(struct vlink_ep *ep, struct vlink_ep_fn *f,
			      u16 n)
{
	const u8 *cap = f->cfg + VLINK_EP_MSI_CAP;
	u16 flags = cfg_r16(cap, PCI_MSI_FLAGS);
	u64 addr;

	if (!f->msi || !(flags & PCI_MSI_FLAGS_ENABLE))
		return -EINVAL;
	if (!n || n > BIT(FIELD_GET(PCI_MSI_FLAGS_QSIZE, flags)))
		return -EINVAL;
	addr = cfg_r32(cap, PCI_MSI_ADDRESS_LO) |
	       (u64)cfg_r32(cap, PCI_MSI_ADDRESS_HI) << 32;
	/* Multi-message MSI: the vector number goes in the low data bits. */
	return vlink_post_msi(ep->vl, addr,
			      cfg_r16(cap, PCI_MSI_DATA_64) | (n - 1));
}

static u32 bar_r32(const void *p)
{
	return le32_to_cpu(READ_ONCE(*(const __le32 *)p));
}

/**
 * struct vlink_ep_msix - where a function's MSI-X table and PBA are now
 * @nr: vectors
 * @table: the table, inside its BAR
 * @pba: the pending bits, inside their BAR: little-endian, as the host
 *       reads them whatever our word size
 */
struct vlink_ep_msix {
	unsigned int nr;
	void *table;
	void *pba;
};

/* len bytes at BIR/offset reg, all inside the BAR, or NULL. */
static void *vlink_ep_msix_at(struct vlink_ep_fn *f, u32 reg, size_t len)
{
	unsigned int bir = reg & PCI_MSIX_TABLE_BIR;
	size_t off = reg & PCI_MSIX_TABLE_OFFSET;

	if (!f->bar[bir] || off > f->bar_size[bir] ||
	    len > f->bar_size[bir] - off)
		return NULL;
	return f->bar[bir] + off;
}

/*
 * Look the function's MSI-X structures up once, from what set_msix() and
 * set_bar() gave us, under msix_lock.  The flags (enable, mask all) are the
 * host's: @flags gets them, read once.
 */
static bool vlink_ep_msix_get(struct vlink_ep_fn *f, struct vlink_ep_msix *m,
			      u16 *flags)
{
	if (!f->msix)
		return false;
	*flags = cfg_r16(f->cfg + VLINK_EP_MSIX_CAP, PCI_MSIX_FLAGS);
	m->nr = f->msix_nr;
	m->table = vlink_ep_msix_at(f, f->msix_table,
				    m->nr * PCI_MSIX_ENTRY_SIZE);
	m->pba = vlink_ep_msix_at(f, f->msix_pba,
				  BITS_TO_LONGS(m->nr) * sizeof(long));
	return m->table && m->pba && (*flags & PCI_MSIX_FLAGS_ENABLE);
}

/*
 * Send MSI-X vector n (0-based) unless it is masked, in which case its
 * pending bit is set for vlink_ep_msix_unmasked() to deliver later.  The
 * host's table entry is read once.
 */
static int vlink_ep_send_msix(struct vlink_ep *ep, struct vlink_ep_msix *m,
			      u16 flags, unsigned int n)
{
	void *entry = m->table + n * PCI_MSIX_ENTRY_SIZE;
	u32 lo = bar_r32(entry + PCI_MSIX_ENTRY_LOWER_ADDR);
	u32 hi = bar_r32(entry + PCI_MSIX_ENTRY_UPPER_ADDR);
	u32 data = bar_r32(entry + PCI_MSIX_ENTRY_DATA);
	u32 ctrl = bar_r32(entry + PCI_MSIX_ENTRY_VECTOR_CTRL);

	if ((flags & PCI_MSIX_FLAGS_MASKALL) ||
	    (ctrl & PCI_MSIX_ENTRY_CTRL_MASKBIT)) {
		set_bit_le(n, m->pba);
		return 0;
	}
	clear_bit_le(n, m->pba);
	return vlink_post_msi(ep->vl, lo | (u64)hi << 32, data);
}

static int vlink_ep_raise_msix(struct vlink_ep *ep, struct vlink_ep_fn *f,
			       u16 n)
{
	unsigned long irqflags;
	struct vlink_ep_msix m;
	u16 flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&ep->msix_lock, irqflags);
	if (vlink_ep_msix_get(f, &m, &flags) && n && n <= m.nr)
		ret = vlink_ep_send_msix(ep, &m, flags, n - 1);
	spin_unlock_irqrestore(&ep->msix_lock, irqflags);
	return ret;
}

/*
 * The host rings us after unmasking a vector: deliver what became pending
 * while it was masked.  The work is bounded by the vectors set_msix() gave
 * each function, whatever the host wrote.
 */
static void vlink_ep_msix_unmasked(struct vlink_ep *ep)
{
	unsigned long irqflags;
	struct vlink_ep_msix m;
	unsigned int i, n;
	u16 flags;

	spin_lock_irqsave(&ep->msix_lock, irqflags);
	for (i = 0; i < ep->epc->max_functions; i++) {
		if (!vlink_ep_msix_get(&ep->fn[i], &m, &flags) ||
		    (flags & PCI_MSIX_FLAGS_MASKALL))
			continue;
		for (n = find_next_bit_le(m.pba, m.nr, 0); n < m.nr;
		     n = find_next_bit_le(m.pba, m.nr, n + 1))
			vlink_ep_send_msix(ep, &m, flags, n);
	}
	spin_unlock_irqrestore(&ep->msix_lock, irqflags);
}

static int vlink_ep_raise_irq(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			      enum pci_epc_irq_type type, u16 interrupt_num)
{
	struct vlink_ep *ep = epc_get_drvdata(epc);
	struct vlink_ep_fn *f = vlink_ep_fn(epc, func_no, vfunc_no);
	u8 pin;

	if (!f || !f->has_header)
		return -EINVAL;
	if (!ep->linked)
		return -ENOLINK;

	switch (type) {
	case PCI_EPC_IRQ_LEGACY:
		pin = f->cfg[PCI_INTERRUPT_PIN];
		if (pin < 1 || pin > 4 ||
		    (cfg_r16(f->cfg, PCI_COMMAND) & PCI_COMMAND_INTX_DISABLE))
			return -EINVAL;
		set_bit_le(4 * func_no + pin - 1, vlink_irq_bits(ep->vl));
		vlink_ring(ep->vl, VLINK_VEC_IRQ);
		return 0;
	case PCI_EPC_IRQ_MSI:
		return vlink_ep_raise_msi(ep, f, interrupt_num);
	case PCI_EPC_IRQ_MSIX:
		return vlink_ep_raise_msix(ep, f, interrupt_num);
	default:
		return -EINVAL;
	}
}

static int vlink_ep_start(struct pci_epc *epc)
{
	struct vlink_ep *ep = epc_get_drvdata(epc);
	struct vlink_side *self = ep->vl->self;
	u32 mask = 0, gen;
	unsigned int i;

	for (i = 0; i < epc->max_functions; i++)
		if (ep->fn[i].has_header && (epc->function_num_map & BIT(i)))
			mask |= BIT(i);
	/* A host scans function 0 first and stops there if it is absent. */
	if (!(mask & BIT(0))) {
		dev_err(&epc->dev, "start: function 0 has not written its header (functions %#x)\n",
			mask);
		return -EINVAL;
	}
	vlink_ep_faults_apply(ep->vl, mask);
	mutex_lock(&ep->link_lock);
	gen = vlink_rd32(&self->start_gen) + 1;
	vlink_wr32(&self->func_mask, mask);
	vlink_wr32(&self->start_gen, gen);
	vlink_wr32(&self->started, 1);
	mutex_unlock(&ep->link_lock);
	dev_info(&epc->dev, "started (generation %u, functions %#x)\n",
		 gen, mask);
	vlink_ring(ep->vl, VLINK_VEC_LINK);
	return 0;
}

static void vlink_ep_stop(struct pci_epc *epc)
{
	struct vlink_ep *ep = epc_get_drvdata(epc);
	struct vlink_side *self = ep->vl->self;
	u32 gen;

	mutex_lock(&ep->link_lock);
	gen = vlink_rd32(&self->start_gen) + 1;
	vlink_wr32(&self->started, 0);
	vlink_wr32(&self->start_gen, gen);
	mutex_unlock(&ep->link_lock);
	dev_info(&epc->dev, "stopped (generation %u)\n", gen);
	vlink_ring(ep->vl, VLINK_VEC_LINK);
	/* Link down reaches the functions from the link worker, not from here. */
	vlink_kick(ep->vl);
}

static const struct pci_epc_features *
vlink_ep_get_features(struct pci_epc *epc, u8 func_no, u8 vfunc_no)
{
	struct vlink_ep *ep = epc_get_drvdata(epc);

	return vlink_ep_fn(epc, func_no, vfunc_no) ? &ep->features : NULL;
}

static const struct pci_epc_ops vlink_ep_ops = {
	.write_header = vlink_ep_write_header,
	.set_bar = vlink_ep_set_bar,
	.clear_bar = vlink_ep_clear_bar,
	.map_addr = vlink_ep_map_addr,
	.unmap_addr = vlink_ep_unmap_addr,
	.set_msi = vlink_ep_set_msi,
	.get_msi = vlink_ep_get_msi,
	.set_msix = vlink_ep_set_msix,
	.get_msix = vlink_ep_get_msix,
	.raise_irq = vlink_ep_raise_irq,
	.start = vlink_ep_start,
	.stop = vlink_ep_stop,
	.get_features = vlink_ep_get_features,
	.owner = THIS_MODULE,
};

/*
 * Our generation is up once the root complex has enumerated it; it is down
 * again when the root complex or its driver goes away.
 */
static void vlink_ep_set_linked(struct vlink_ep *ep, bool up)
{
	bool changed;

	mutex_lock(&ep->link_lock);
	changed = up != ep->linked;
	ep->linked = up;
	/*
	 * No write through the window may reach the host of the next link:
	 * park every mapping before the functions hear of the link down, and
	 * also when they never heard of it up, the window having opened on
	 * the acknowledgment alone (vlink_ep_open_acked_window()).
	 */
	vlink_ob_set_link(&ep->ob, up);
	mutex_unlock(&ep->link_lock);
	if (!changed)
		return;
	dev_info(&ep->epc->dev, "link %s\n", up ? "up" : "down");
	if (up)
		pci_epc_linkup(ep->epc);
	else
		pci_epc_linkdown(ep->epc);
}

static void vlink_ep_link_event(struct vlink *vl, bool peer_alive)
{
	struct vlink_ep *ep = vl->priv;
	bool up = peer_alive && vlink_ep_acked(vl);

	vlink_ep_set_linked(ep, up);
	if (up)
		vlink_ep_msix_unmasked(ep);
}

static void vlink_ep_dma_irq(struct vlink *vl)
{
	struct vlink_ep *ep = vl->priv;

	vlink_dma_irq(&ep->dma);
}

static const struct vlink_ops vlink_ep_link_ops = {
	.link_event = vlink_ep_link_event,
	.dma = vlink_ep_dma_irq,
};

static int vlink_ep_init_functions(struct vlink_ep *ep)
{
	struct vlink *vl = ep->vl;
	struct device_node *np = vl->pdev->dev.of_node;
	u32 room = vlink_rd32(&vl->hdr->max_functions);
	u8 max = VLINK_MAX_FUNCTIONS;
	unsigned int i;

	ep->features = vlink_ep_features;
	if (of_property_read_bool(np, "vlink,bar-64bit")) {
		ep->features.bar_fixed_64bit = VLINK_EP_BARS_64BIT;
		dev_info(&vl->pdev->dev, "BARs 0, 2 and 4 are 64-bit\n");
	}
	of_property_read_u8(np, "max-functions", &max);
	if (!max || max > room) {
		dev_err(&vl->pdev->dev, "max-functions %u: the link has room for 1..%u\n",
			max, room);
		return -EINVAL;
	}
	ep->epc->max_functions = max;
	for (i = 0; i < max; i++) {
		ep->fn[i].cfg = vlink_cfg(vl, i);
		ep->fn[i].desc = vlink_desc(vl, i);
		memset(ep->fn[i].cfg, 0, VLINK_CFG_SIZE);
		memset(ep->fn[i].desc, 0, sizeof(*ep->fn[i].desc));
	}
	return 0;
}

static int vlink_ep_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct pci_epc_mem_window win;
	struct vlink_ep *ep;
	int ret;

	/* Every ivshmem device is offered to us: take only our link. */
	if (!of_device_is_compatible(dev->of_node, "vlink,pcie-ep"))
		return -ENODEV;

	ep = devm_kzalloc(dev, sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return -ENOMEM;
	mutex_init(&ep->link_lock);
	spin_lock_init(&ep->msix_lock);

	ep->vl = vlink_probe(pdev, VLINK_ROLE_EP, &vlink_ep_link_ops, ep);
	if (IS_ERR(ep->vl))
		return PTR_ERR(ep->vl);
	ret = vlink_ob_init(&ep->ob, ep->vl, VLINK_EP_OB_SIZE);
	if (ret)
		return dev_err_probe(dev, ret, "cannot set up the outbound window\n");
	ret = vlink_dma_init(&ep->dma, ep->vl, &ep->ob);
	if (ret)
		return dev_err_probe(dev, ret, "cannot register the DMA engine\n");

	ep->epc = devm_pci_epc_create(dev, &vlink_ep_ops);
	if (IS_ERR(ep->epc))
		return dev_err_probe(dev, PTR_ERR(ep->epc), "cannot create the EPC\n");
	epc_set_drvdata(ep->epc, ep);
	ret = vlink_ep_init_functions(ep);
	if (ret)
		return ret;

	/* The window is mapped already: the library hands out parts of it. */
	win = (struct pci_epc_mem_window) {
		.phys_base = ep->ob.phys,
		.virt_base = ep->ob.virt,
		.size = ep->ob.size,
		.page_size = PAGE_SIZE,
	};
	ret = pci_epc_multi_mem_init(ep->epc, &win, 1);
	if (ret)
		return dev_err_probe(dev, ret, "cannot init the outbound address space\n");

	vlink_ep_faults_init(ep->vl);
	pci_set_drvdata(pdev, ep);
	ret = vlink_start(ep->vl);
	if (ret)
		return ret;
	dev_info(dev, "endpoint controller %s: %u function(s), outbound window %zu MiB\n",
		 dev_name(&ep->epc->dev), ep->epc->max_functions,
		 ep->ob.size >> 20);
	return 0;
}

/*
 * The link worker uses the controller: it is quiesced first, then the
 * functions hear the link is gone, then devres destroys the controller
 * (which unbinds them), the DMA engine and the window.
 */
static void vlink_ep_remove(struct pci_dev *pdev)
{
	struct vlink_ep *ep = pci_get_drvdata(pdev);

	vlink_stop(ep->vl);
	vlink_ep_set_linked(ep, false);
	dev_info(&pdev->dev, "endpoint controller %s removed\n",
		 dev_name(&ep->epc->dev));
}

static const struct pci_device_id vlink_ep_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },
	{ }
};
MODULE_DEVICE_TABLE(pci, vlink_ep_ids);

static struct pci_driver vlink_ep_driver = {
	.name = "vlink-ep",
	.id_table = vlink_ep_ids,
	.probe = vlink_ep_probe,
	.remove = vlink_ep_remove,
};
builtin_pci_driver(vlink_ep_driver);
