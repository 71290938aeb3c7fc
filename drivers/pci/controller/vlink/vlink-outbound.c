// SPDX-License-Identifier: GPL-2.0
/*
 * vlink outbound window: the endpoint's "outbound ATU".
 *
 * The window device maps the root complex's whole RAM.  A function reaches a
 * host buffer by allocating an address in the outbound window from the EPC
 * address-space library and asking map_addr() to point it at a PCI address.
 * Here the window is a fixed virtual range handed to the library already
 * mapped; mapping rewrites the kernel page-table entries of the allocated
 * part in place so that it shows the host pages at that PCI address (PCI
 * address = the root complex's physical address).  Nothing is allocated on
 * that path.  Unmapped pages point at a parking page in our own RAM, so a
 * stray access through an unmapped window lands nowhere that matters.
 *
 * The window is an aperture (vlink-aperture.c): on 32-bit ARM the
 * addresses the library gives out are the aperture's own physical range,
 * so a function driver that ioremap()s one (as ntb_transport does with
 * pci-epf-vntb's) sees what map_addr() points it at.  Elsewhere they are
 * the window device's BAR, a cookie only the library's own mapping uses.
 */

#include <linux/gfp.h>
#include <linux/mm.h>

#include "vlink.h"
#include "vlink-aperture.h"
#include "vlink-ep-bridge.h"
#include "vlink-outbound.h"

/* How often the doorbell pages are looked at while any is mapped. */
#define VLINK_OB_BELL_POLL	msecs_to_jiffies(1)

/* vlink_ob_set_link() notes the slots it parks in a word. */
static_assert(VLINK_OB_MAPS <= BITS_PER_LONG);

static struct vlink_ob_map *vlink_ob_find(struct vlink_ob *ob,
					  phys_addr_t phys)
{
	unsigned int i;

	for (i = 0; i < VLINK_OB_MAPS; i++)
		if (ob->map[i].size && ob->map[i].phys == phys)
			return &ob->map[i];
	return NULL;
}

/*
 * The doorbell page of mapping slot @slot, cleared: where a part mapped
 * onto the MSI address points.  Kept for the slot's next use.
 */
static int vlink_ob_bell(struct vlink_ob *ob, unsigned int slot,
			 phys_addr_t *target)
{
	if (!ob->bells[slot]) {
		ob->bells[slot] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!ob->bells[slot])
			return -ENOMEM;
	}
	WRITE_ONCE(*(u32 *)page_address(ob->bells[slot]), 0);
	*target = page_to_phys(ob->bells[slot]);
	return 0;
}

/*
 * A write of message data to the MSI address lands in the first word of a
 * doorbell page: take it (whoever wrote, whenever) and deliver it.  Two
 * writes between polls are one interrupt, as MSIs may be.
 */
static void vlink_ob_bell_work(struct work_struct *work)
{
	struct vlink_ob *ob = container_of(to_delayed_work(work),
					   struct vlink_ob, bell_work);
	u32 data[VLINK_OB_MAPS];
	unsigned int i, n = 0;
	bool any = false;
	u32 raw;

	spin_lock_irq(&ob->map_lock);
	for (i = 0; i < VLINK_OB_MAPS; i++) {
		if (!ob->map[i].size || !ob->map[i].bell)
			continue;
		any = true;
		if (!ob->up || ob->map[i].parked)
			continue;
		raw = xchg((u32 *)page_address(ob->bells[i]), 0);
		if (raw)
			data[n++] = le32_to_cpu((__force __le32)raw);
	}
	spin_unlock_irq(&ob->map_lock);
	for (i = 0; i < n; i++)
		vlink_post_msi(ob->vl, VLINK_MSI_ADDRESS, data[i]);
	if (any)
		queue_delayed_work(system_wq, &ob->bell_work,
				   VLINK_OB_BELL_POLL);
}

/**
 * vlink_ob_map() - point part of the outbound window at host memory
 * @ob: the outbound window
 * @phys: start of the part, as the address-space library gave it out
 * @pci_addr: host (PCI) address it must show
 * @size: bytes
 *
 * Mapping again an address whose mapping the last link down parked
 * replaces that mapping.
 *
 * Return: 0, -EINVAL for an unaligned or out-of-window request or one that
 * reaches beyond the host's RAM (or, mapping its MSI address, beyond a
 * page), -ENOMEM, -ENOLINK while the link is down, -EBUSY if
 * @phys is already mapped, -ENOSPC when all mapping slots are in use.
 */
int vlink_ob_map(struct vlink_ob *ob, phys_addr_t phys, u64 pci_addr,
		 size_t size)
{
	struct vlink *vl = ob->vl;
	u64 off = (u64)phys - ob->phys;
	u64 host_off = pci_addr - vl->win.base;
	struct vlink_ob_map *m;
	phys_addr_t target;
	bool bell;
	int ret;

	if (!size || !PAGE_ALIGNED(phys) || !PAGE_ALIGNED(pci_addr) ||
	    phys < ob->phys || off >= ob->size || size > ob->size - off) {
		pci_err(vl->pdev, "outbound map %pa -> %#llx+%#zx: not a page-aligned part of the window\n",
			&phys, pci_addr, size);
		return -EINVAL;
	}
	bell = pci_addr == VLINK_MSI_ADDRESS && size <= PAGE_SIZE;
	if (!bell && (pci_addr < vl->win.base || host_off >= vl->win.size ||
		      size > vl->win.size - host_off)) {
		pci_err(vl->pdev, "outbound map to %#llx+%#zx: outside the host's RAM and MSI page\n",
			pci_addr, size);
		return -EINVAL;
	}

	mutex_lock(&ob->lock);
	if (!ob->up) {
		dev_err_ratelimited(&vl->pdev->dev, "outbound map to %#llx+%#zx while the link is down: refused\n",
				    pci_addr, size);
		ret = -ENOLINK;
		goto out;
	}
	/*
	 * A mapping the link parked when it went down belongs to a host that
	 * is gone; a function that maps its address again for the new host
	 * (pci-epf-vntb does, never unmapping) replaces it.
	 */
	m = vlink_ob_find(ob, phys);
	if (m && !m->parked) {
		ret = -EBUSY;
		goto out;
	}
	if (!m)
		for (m = ob->map; m < ob->map + VLINK_OB_MAPS && m->size; m++)
			;
	if (m == ob->map + VLINK_OB_MAPS) {
		ret = -ENOSPC;
		goto out;
	}
	size = PAGE_ALIGN(size);
	target = vl->win.phys + host_off;
	if (bell) {
		ret = vlink_ob_bell(ob, m - ob->map, &target);
		if (ret)
			goto out;
	}
	ret = vlink_ap_map(ob->ap, off, size, target);
	if (!ret) {
		spin_lock_irq(&ob->map_lock);
		m->phys = phys;
		m->pci_addr = pci_addr;
		m->size = size;
		m->parked = false;
		m->bell = bell;
		spin_unlock_irq(&ob->map_lock);
	}
out:
	mutex_unlock(&ob->lock);
	if (!ret && bell)
		mod_delayed_work(system_wq, &ob->bell_work, 0);
	if (!ret)
		vlink_bridge_ob_changed(ob);
	return ret;
}

/**
 * vlink_ob_unmap() - park a mapped part of the outbound window again
 * @ob: the outbound window
 * @phys: start of the part, as given to vlink_ob_map()
 */
void vlink_ob_unmap(struct vlink_ob *ob, phys_addr_t phys)
{
	struct vlink_ob_map *m;

	mutex_lock(&ob->lock);
	m = vlink_ob_find(ob, phys);
	if (m) {
		size_t size = m->size;

		spin_lock_irq(&ob->map_lock);
		m->size = 0;
		spin_unlock_irq(&ob->map_lock);
		if (!m->parked)
			vlink_ap_park(ob->ap, phys - ob->phys, size);
		m->parked = false;
	} else {
		pci_warn(ob->vl->pdev, "outbound unmap of %pa, which is not mapped\n",
			 &phys);
	}
	mutex_unlock(&ob->lock);
	if (m)
		vlink_bridge_ob_changed(ob);
}

/**
 * vlink_ob_set_link() - follow the link state
 * @ob: the outbound window
 * @up: the link is up
 *
 * When the link goes down every mapping is parked: a write through it
 * lands in the parking page, never in the RAM of a root complex that
 * restarted meanwhile.  The slots stay taken until their owners unmap
 * them; new mappings wait for the link to come up.
 */
void vlink_ob_set_link(struct vlink_ob *ob, bool up)
{
	unsigned long newly = 0;
	struct vlink_ob_map *m;
	unsigned int i, n = 0;

	mutex_lock(&ob->lock);
	spin_lock_irq(&ob->map_lock);
	ob->up = up;
	for (i = 0; !up && i < VLINK_OB_MAPS; i++)
		if (ob->map[i].size && !ob->map[i].parked) {
			ob->map[i].parked = true;
			newly |= BIT(i);
		}
	spin_unlock_irq(&ob->map_lock);
	/* The DMA engine stops using them first, then the CPU cannot. */
	for_each_set_bit(i, &newly, VLINK_OB_MAPS) {
		m = &ob->map[i];
		vlink_ap_park(ob->ap, m->phys - ob->phys, m->size);
		n++;
	}
	mutex_unlock(&ob->lock);
	if (n) {
		pci_info(ob->vl->pdev, "link down: parked %u outbound mapping(s)\n",
			 n);
		vlink_bridge_ob_changed(ob);
	}
}

/**
 * vlink_ob_resolve() - the host address a part of the window shows now
 * @ob: the outbound window
 * @phys: start of the part, anywhere inside a mapping
 * @size: bytes, all inside that mapping
 * @pci_addr: where the host address is returned
 *
 * For the DMA engine, which reaches the host by its own addresses rather
 * than through the window's pages.  Any context.
 *
 * Return: 0, -ENOLINK while the link is down or the mapping is parked,
 * -EFAULT if the range is not wholly inside one mapping of host RAM.
 */
int vlink_ob_resolve(struct vlink_ob *ob, phys_addr_t phys, size_t size,
		     u64 *pci_addr)
{
	struct vlink_ob_map *m;
	unsigned long flags;
	int ret = -EFAULT;

	spin_lock_irqsave(&ob->map_lock, flags);
	for (m = ob->map; m < ob->map + VLINK_OB_MAPS; m++) {
		if (!m->size || phys < m->phys || phys - m->phys >= m->size ||
		    size > m->size - (phys - m->phys))
			continue;
		if (!ob->up || m->parked) {
			ret = -ENOLINK;
		} else if (m->bell) {
			/* An interrupt, not memory: no engine writes there. */
			ret = -EFAULT;
		} else {
			*pci_addr = m->pci_addr + (phys - m->phys);
			ret = 0;
		}
		break;
	}
	spin_unlock_irqrestore(&ob->map_lock, flags);
	return ret;
}

/*
 * The poll stops before the doorbell pages go; a page another host may
 * still write (it has not yet followed its BAR away from it) is kept.
 */
static void vlink_ob_release(void *data)
{
	struct vlink_ob *ob = data;
	bool keep = vlink_bridge_del_ob(ob);
	unsigned int i;

	cancel_delayed_work_sync(&ob->bell_work);
	for (i = 0; i < VLINK_OB_MAPS && !keep; i++)
		if (ob->bells[i])
			__free_page(ob->bells[i]);
	vlink_ap_destroy(ob->ap);
}

/**
 * vlink_ob_init() - set up the outbound window of an endpoint link
 * @ob: the window to set up
 * @vl: the link
 * @size: bytes of window to offer functions
 *
 * Return: 0 or a negative errno.
 */
int vlink_ob_init(struct vlink_ob *ob, struct vlink *vl, size_t size)
{
	ob->vl = vl;
	mutex_init(&ob->lock);
	spin_lock_init(&ob->map_lock);
	ob->size = min_t(size_t, size, vl->win.size);
	ob->ap = vlink_ap_create(&vl->pdev->dev, "vlink outbound window",
				 ob->size);
	if (IS_ERR(ob->ap))
		return PTR_ERR(ob->ap);
	ob->phys = ob->ap->phys ?: vl->win.phys;
	ob->virt = ob->ap->virt;
	INIT_DELAYED_WORK(&ob->bell_work, vlink_ob_bell_work);
	vlink_bridge_add_ob(ob);
	return devm_add_action_or_reset(&vl->pdev->dev, vlink_ob_release, ob);
}
