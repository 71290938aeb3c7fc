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
#include <linux/msi.h>
#include <linux/of.h>
#include <linux/pci.h>

#include "vlink.h"

#define VLINK_RC_CFG_EMULATED	0x100	/* beyond it, config space reads 0 */
#define VLINK_RC_MAX_CAPS	48

/**
 * struct vlink_rc_fn - the root complex's view of one endpoint function
 * @present: the function answers config cycles
 * @cfg: its config space image in the link shm
 * @bar_size: size of each BAR, 0 when not implemented
 * @bar_reg: the value each BAR register reads back (sizing included)
 * @wmask: which bits of each config byte the host may write
 */
struct vlink_rc_fn {
	bool present;
	u8 *cfg;
	u64 bar_size[PCI_STD_NUM_BARS];
	u32 bar_reg[PCI_STD_NUM_BARS];
	u8 wmask[VLINK_RC_CFG_EMULATED];
};

/**
 * struct vlink_rc - one root-complex link
 * @vl: the link
 * @bridge: our host bridge
 * @bus: its root bus
 * @busn: the bus number range of the root bus
 * @lock: protects @fn against config cycles (which run under pci_lock)
 * @fn: the functions behind the link
 * @scan_lock: serialises scanning and removal
 * @enumerated: the bus holds the endpoint's functions
 * @msi_inner: the domain of the pending-bitmap bits
 * @msi_domain: the PCI/MSI domain on top of it, the bus's MSI domain
 * @intx_domain: INTA..INTD of the root bus
 * @msi_lock: protects @msi_used
 * @msi_used: pending-bitmap bits given out as MSI vectors
 * @add_nb: gives the functions of our bus our MSI domain
 */
struct vlink_rc {
	struct vlink *vl;
	struct pci_host_bridge *bridge;
	struct pci_bus *bus;
	struct resource busn;
	raw_spinlock_t lock;
	struct vlink_rc_fn fn[VLINK_MAX_FUNCTIONS];
	struct mutex scan_lock;		/* scanning and removal */
	bool enumerated;
	struct irq_domain *msi_inner;
	struct irq_domain *msi_domain;
	struct irq_domain *intx_domain;
	struct mutex msi_lock;		/* @msi_used */
	unsigned long msi_used[BITS_TO_LONGS(VLINK_IRQ_BITS)];
	struct notifier_block add_nb;
};

#define VLINK_INTX_BITS		(4 * VLINK_MAX_FUNCTIONS)

/* Config space emulation */

static struct vlink_rc_fn *vlink_rc_fn(struct vlink_rc *rc,
				       struct pci_bus *bus, unsigned int devfn)
{
	/* One device on the root bus: the endpoint, functions 0..7. */
	if (bus->number || PCI_SLOT(devfn) || !rc->fn[devfn].present)
		return NULL;
	return &rc->fn[devfn];
}

static u32 vlink_rc_read_byte(struct vlink_rc *rc, struct vlink_rc_fn *f,
			      unsigned int where)
{
	u8 v;

	if (where >= PCI_BASE_ADDRESS_0 && where <= PCI_BASE_ADDRESS_5 + 3) {
		unsigned int bar = (where - PCI_BASE_ADDRESS_0) / 4;

		return (f->bar_reg[bar] >> (8 * (where & 3))) & 0xff;
	}
	/* No expansion ROM, and nothing beyond the emulated space. */
	if ((where >= PCI_ROM_ADDRESS && where < PCI_ROM_ADDRESS + 4) ||
	    where >= VLINK_RC_CFG_EMULATED)
		return 0;
	v = READ_ONCE(f->cfg[where]);
	/* Function 0 says it is multi-function when others are there. */
	if (where == PCI_HEADER_TYPE && f == &rc->fn[0] &&
	    (READ_ONCE(rc->vl->other->func_mask) & ~1u))
		v |= 0x80;
	return v;
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
	for (i = 0; i < size; i++)
		v |= vlink_rc_read_byte(rc, f, where + i) << (8 * i);
	raw_spin_unlock_irqrestore(&rc->lock, flags);
	*val = v;
	return PCIBIOS_SUCCESSFUL;
}

static void vlink_rc_write_bar(struct vlink_rc_fn *f, unsigned int bar,
			       unsigned int shift, u32 mask, u32 val)
{
	u32 reg = (f->bar_reg[bar] & ~(mask << shift)) | ((val & mask) << shift);
	u64 size = f->bar_size[bar];

	if (size) {
		/* The low bits are the size and the type: read-only. */
		reg = (reg & ~((u32)size - 1)) | (f->bar_reg[bar] & 0xf);
	} else if (bar && (f->bar_reg[bar - 1] & PCI_BASE_ADDRESS_MEM_TYPE_64) &&
		   f->bar_size[bar - 1]) {
		/* Upper half of a 64-bit BAR below 4 GiB: any value sticks. */
	} else {
		reg = 0;
	}
	f->bar_reg[bar] = reg;
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
			u8 m = f->wmask[where + i], b = val >> (8 * i);

			if (m)
				WRITE_ONCE(f->cfg[where + i],
					   (f->cfg[where + i] & ~m) | (b & m));
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

static void vlink_rc_set_wmask(struct vlink_rc_fn *f, unsigned int where,
			       unsigned int bytes, u32 mask)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		f->wmask[where + i] = mask >> (8 * i);
}

static int vlink_rc_check_ids(struct vlink_rc *rc, struct vlink_rc_fn *f,
			      unsigned int fn)
{
	u16 vendor = f->cfg[PCI_VENDOR_ID] | f->cfg[PCI_VENDOR_ID + 1] << 8;

	if (vendor != VLINK_VENDOR_ID_RETRY)
		return 0;
	dev_err(&rc->vl->pdev->dev, "function %u: vendor ID %#06x would read as a retried request, function refused\n",
		fn, vendor);
	return -EINVAL;
}

/*
 * Which bits the host may write: the usual header fields, and in the MSI and
 * MSI-X capabilities what a host programs.  The capability list comes from
 * the endpoint, so it is walked with suspicion.
 */
static int vlink_rc_build_wmask(struct vlink_rc *rc, struct vlink_rc_fn *f,
				unsigned int fn)
{
	struct device *dev = &rc->vl->pdev->dev;
	unsigned int pos, n = 0;
	u16 ctrl;

	memset(f->wmask, 0, sizeof(f->wmask));
	vlink_rc_set_wmask(f, PCI_COMMAND, 2, PCI_COMMAND_IO |
			   PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER |
			   PCI_COMMAND_PARITY | PCI_COMMAND_SERR |
			   PCI_COMMAND_INTX_DISABLE);
	vlink_rc_set_wmask(f, PCI_CACHE_LINE_SIZE, 2, 0xffff);
	vlink_rc_set_wmask(f, PCI_INTERRUPT_LINE, 1, 0xff);

	if (!(f->cfg[PCI_STATUS] & PCI_STATUS_CAP_LIST))
		return 0;
	for (pos = f->cfg[PCI_CAPABILITY_LIST]; pos; pos = f->cfg[pos + 1]) {
		if (pos < PCI_STD_HEADER_SIZEOF || pos > 0xf0 || (pos & 3) ||
		    ++n > VLINK_RC_MAX_CAPS) {
			dev_err(dev, "function %u: capability list broken at %#x, function refused\n",
				fn, pos);
			return -EINVAL;
		}
		ctrl = f->cfg[pos + 2] | f->cfg[pos + 3] << 8;
		switch (f->cfg[pos]) {
		case PCI_CAP_ID_MSI: {
			bool is64 = ctrl & PCI_MSI_FLAGS_64BIT;
			unsigned int data = pos + (is64 ? PCI_MSI_DATA_64 :
						   PCI_MSI_DATA_32);

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
			vlink_rc_set_wmask(f, pos + PCI_MSIX_FLAGS + 1, 1,
					   (PCI_MSIX_FLAGS_ENABLE |
					    PCI_MSIX_FLAGS_MASKALL) >> 8);
			break;
		}
	}
	return 0;
}

/*
 * Present the function's BARs as assigned: the PCI address of a BAR is
 * where its memory shows through the window onto the endpoint's RAM.
 */
static int vlink_rc_place_bars(struct vlink_rc *rc, struct vlink_rc_fn *f,
			       const struct vlink_func_desc *desc,
			       unsigned int fn)
{
	struct vlink *vl = rc->vl;
	struct device *dev = &vl->pdev->dev;
	unsigned int bar;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
		u64 phys = READ_ONCE(desc->bar[bar].phys);
		u64 size = READ_ONCE(desc->bar[bar].size);
		u32 flags = READ_ONCE(desc->bar[bar].flags);
		u64 off = phys - vl->peer_ram_base;
		u64 addr = vl->win_phys + off;

		f->bar_size[bar] = 0;
		if (!size) {
			/* Keep the upper half of a 64-bit BAR below. */
			if (!bar || !(f->bar_reg[bar - 1] &
				      PCI_BASE_ADDRESS_MEM_TYPE_64))
				f->bar_reg[bar] = 0;
			continue;
		}
		if (!is_power_of_2(size) || size < 16 || size > SZ_1G ||
		    phys < vl->peer_ram_base || off >= vl->win_size ||
		    size > vl->win_size - off || !IS_ALIGNED(addr, size) ||
		    (flags & PCI_BASE_ADDRESS_SPACE_IO) ||
		    ((flags & PCI_BASE_ADDRESS_MEM_TYPE_64) &&
		     bar == PCI_STD_NUM_BARS - 1)) {
			dev_err(dev, "function %u BAR%u: %#llx+%#llx flags %#x is not a BAR this link can present, function refused\n",
				fn, bar, phys, size, flags);
			return -EINVAL;
		}
		f->bar_size[bar] = size;
		f->bar_reg[bar] = lower_32_bits(addr) |
				  (flags & (PCI_BASE_ADDRESS_MEM_TYPE_MASK |
					    PCI_BASE_ADDRESS_MEM_PREFETCH));
		if (flags & PCI_BASE_ADDRESS_MEM_TYPE_64)
			f->bar_reg[++bar] = upper_32_bits(addr);
	}
	return 0;
}

/* Build our view of the endpoint's functions from what it published. */
static unsigned int vlink_rc_load_functions(struct vlink_rc *rc)
{
	struct vlink *vl = rc->vl;
	u32 mask = READ_ONCE(vl->other->func_mask);
	struct vlink_rc_fn staged;
	unsigned long flags;
	unsigned int fn, n = 0;

	for (fn = 0; fn < vl->hdr->max_functions; fn++) {
		const struct vlink_func_desc *desc = vl->shm +
			VLINK_FUNC_OFFSET + fn * VLINK_FUNC_STRIDE;
		bool ok = mask & BIT(fn);

		memset(&staged, 0, sizeof(staged));
		staged.cfg = vl->shm + VLINK_CFG_OFFSET + fn * VLINK_CFG_SIZE;
		if (ok)
			ok = !vlink_rc_check_ids(rc, &staged, fn) &&
			     !vlink_rc_build_wmask(rc, &staged, fn) &&
			     !vlink_rc_place_bars(rc, &staged, desc, fn);
		staged.present = ok;
		n += ok;
		raw_spin_lock_irqsave(&rc->lock, flags);
		rc->fn[fn] = staged;
		raw_spin_unlock_irqrestore(&rc->lock, flags);
	}
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

/* Link state */

static void vlink_rc_remove_devices(struct vlink_rc *rc)
{
	struct pci_dev *pdev, *tmp;
	unsigned int n = 0;

	pci_lock_rescan_remove();
	list_for_each_entry_safe_reverse(pdev, tmp, &rc->bus->devices,
					 bus_list) {
		pci_stop_and_remove_bus_device(pdev);
		n++;
	}
	pci_unlock_rescan_remove();
	vlink_rc_hide_functions(rc);
	rc->enumerated = false;
	dev_info(&rc->vl->pdev->dev, "link down: removed %u function(s)\n", n);
}

/* Publish which functions we present: the endpoint waits on it. */
static void vlink_rc_functions_seen(struct vlink_rc *rc)
{
	u32 seen = 0;
	unsigned int fn;

	for (fn = 0; fn < VLINK_MAX_FUNCTIONS; fn++)
		if (rc->fn[fn].present)
			seen |= BIT(fn);
	WRITE_ONCE(rc->vl->self->func_seen, seen);
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
		pci_lock_rescan_remove();
		pdev = pci_get_slot(rc->bus, PCI_DEVFN(0, fn));
		if (pdev) {
			pci_stop_and_remove_bus_device(pdev);
			pci_dev_put(pdev);
		}
		pci_unlock_rescan_remove();
		raw_spin_lock_irqsave(&rc->lock, flags);
		rc->fn[fn].present = false;
		raw_spin_unlock_irqrestore(&rc->lock, flags);
		dev_info(&rc->vl->pdev->dev, "endpoint withdrew function %u: removed\n",
			 fn);
	}
}

static void vlink_rc_scan(struct vlink_rc *rc, u32 gen)
{
	struct device *dev = &rc->vl->pdev->dev;
	unsigned int n = vlink_rc_load_functions(rc);

	dev_info(dev, "endpoint started (generation %u): %u function(s) to enumerate\n",
		 gen, n);
	pci_lock_rescan_remove();
	pci_scan_child_bus(rc->bus);
	pci_bus_claim_resources(rc->bus);
	pci_bus_add_devices(rc->bus);
	pci_unlock_rescan_remove();
	rc->enumerated = true;
}

static void vlink_rc_link_event(struct vlink *vl, bool peer_alive)
{
	struct vlink_rc *rc = vl->priv;
	bool started = peer_alive && READ_ONCE(vl->other->started);
	u32 gen = READ_ONCE(vl->other->start_gen);

	u32 seen = vl->self->func_seen;

	mutex_lock(&rc->scan_lock);
	if (rc->enumerated && (!started || gen != vl->self->enum_gen))
		vlink_rc_remove_devices(rc);
	if (started && gen != vl->self->enum_gen)
		vlink_rc_scan(rc, gen);
	else if (rc->enumerated)
		vlink_rc_withdraw(rc, READ_ONCE(vl->other->func_mask));
	vlink_rc_functions_seen(rc);
	if (peer_alive && (gen != vl->self->enum_gen ||
			   seen != vl->self->func_seen)) {
		/* Tell the endpoint this generation is taken care of. */
		WRITE_ONCE(vl->self->enum_gen, gen);
		vlink_ring(vl, VLINK_VEC_LINK);
	}
	mutex_unlock(&rc->scan_lock);
}

/* Interrupts */

static void vlink_rc_irq(struct vlink *vl)
{
	struct vlink_rc *rc = vl->priv;
	u32 *words = vl->shm + VLINK_IRQ_OFFSET;
	unsigned int i, bit;
	unsigned long pending;

	for (i = 0; i < VLINK_IRQ_BITS / 32; i++) {
		if (!READ_ONCE(words[i]))
			continue;
		pending = xchg(&words[i], 0);
		for_each_set_bit(bit, &pending, 32) {
			unsigned int hw = i * 32 + bit;

			if (hw == VLINK_IRQ_ECHO_BIT)
				vlink_ring(vl, VLINK_VEC_PONG);
			else if (hw < VLINK_INTX_BITS)
				generic_handle_domain_irq(rc->intx_domain,
							  hw % 4);
			else if (generic_handle_domain_irq(rc->msi_inner, hw))
				dev_warn_ratelimited(&vl->pdev->dev,
						     "endpoint raised vector %u, which no function owns: dropped\n",
						     hw);
		}
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

static void vlink_rc_remove_domains(void *data)
{
	struct vlink_rc *rc = data;

	if (rc->msi_domain)
		irq_domain_remove(rc->msi_domain);
	if (rc->msi_inner)
		irq_domain_remove(rc->msi_inner);
	if (rc->intx_domain)
		irq_domain_remove(rc->intx_domain);
}

static int vlink_rc_create_domains(struct vlink_rc *rc)
{
	struct device *dev = &rc->vl->pdev->dev;
	struct fwnode_handle *fwnode = of_node_to_fwnode(dev->of_node);
	int ret;

	ret = devm_add_action(dev, vlink_rc_remove_domains, rc);
	if (ret)
		return ret;
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

static void vlink_rc_remove_notifier(void *data)
{
	struct vlink_rc *rc = data;

	bus_unregister_notifier(&pci_bus_type, &rc->add_nb);
}

static void vlink_rc_remove_bus(void *data)
{
	struct vlink_rc *rc = data;

	pci_lock_rescan_remove();
	pci_stop_root_bus(rc->bus);
	pci_remove_root_bus(rc->bus);
	pci_unlock_rescan_remove();
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
	pci_add_resource(&bridge->windows, &vl->win_res);
	bridge->sysdata = rc;
	bridge->busnr = 0;
	bridge->ops = &vlink_rc_pci_ops;
	bridge->map_irq = vlink_rc_map_irq;
	bridge->swizzle_irq = pci_common_swizzle;
	rc->bridge = bridge;

	/* No function is present yet: this scan only creates the bus. */
	ret = pci_scan_root_bus_bridge(bridge);
	if (ret)
		return ret;
	rc->bus = bridge->bus;
	dev_set_msi_domain(&rc->bus->dev, rc->msi_domain);
	pci_bus_add_devices(rc->bus);
	ret = devm_add_action_or_reset(dev, vlink_rc_remove_bus, rc);
	if (ret)
		return ret;

	rc->add_nb.notifier_call = vlink_rc_device_added;
	ret = bus_register_notifier(&pci_bus_type, &rc->add_nb);
	if (ret)
		return ret;
	return devm_add_action_or_reset(dev, vlink_rc_remove_notifier, rc);
}

static int vlink_rc_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct vlink_rc *rc;
	int ret;

	/* Every ivshmem device is offered to us: take only our link. */
	if (!of_device_is_compatible(pdev->dev.of_node, "vlink,pcie-rc"))
		return -ENODEV;

	rc = devm_kzalloc(&pdev->dev, sizeof(*rc), GFP_KERNEL);
	if (!rc)
		return -ENOMEM;
	raw_spin_lock_init(&rc->lock);
	mutex_init(&rc->scan_lock);
	mutex_init(&rc->msi_lock);
	/* The INTx bits and the echo bit are never MSI vectors. */
	bitmap_set(rc->msi_used, 0, VLINK_INTX_BITS);
	set_bit(VLINK_IRQ_ECHO_BIT, rc->msi_used);

	rc->vl = vlink_probe(pdev, VLINK_ROLE_RC, &vlink_rc_ops, rc);
	if (IS_ERR(rc->vl))
		return PTR_ERR(rc->vl);
	ret = vlink_rc_create_domains(rc);
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "cannot create irq domains\n");
	ret = vlink_rc_create_bus(rc);
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "cannot create the root bus\n");
	return vlink_start(rc->vl);
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
};
builtin_pci_driver(vlink_rc_driver);
