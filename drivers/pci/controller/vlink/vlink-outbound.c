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
 * The window's virtual range is built page by page here rather than by
 * ioremap(): arm64 maps a large aligned ioremap() with block entries, whose
 * pages cannot be moved one at a time.  The page-table walk uses symbols
 * ARM does not export: built in only.
 */

#include <linux/io.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/vmalloc.h>
#include <asm/tlbflush.h>

#include "vlink.h"
#include "vlink-outbound.h"

/* vlink_ob_set_link() notes the slots it parks in a word. */
static_assert(VLINK_OB_MAPS <= BITS_PER_LONG);

struct vlink_ob_retarget {
	unsigned long pfn;
	bool step;
};

static int vlink_ob_set_pte(pte_t *pte, unsigned long addr, void *data)
{
	struct vlink_ob_retarget *t = data;

	set_pte_at(&init_mm, addr, pte,
		   pfn_pte(t->pfn, pgprot_device(PAGE_KERNEL)));
	if (t->step)
		t->pfn++;
	return 0;
}

static int vlink_ob_retarget(struct vlink_ob *ob, size_t off, size_t size,
			     unsigned long pfn, bool step)
{
	struct vlink_ob_retarget t = { .pfn = pfn, .step = step };
	unsigned long va = (unsigned long)ob->virt + off;
	int ret;

	ret = apply_to_existing_page_range(&init_mm, va, size,
					   vlink_ob_set_pte, &t);
	flush_tlb_kernel_range(va, va + size);
	return ret;
}

/* Point part of the window at the parking page. */
static int vlink_ob_park(struct vlink_ob *ob, size_t off, size_t size)
{
	return vlink_ob_retarget(ob, off, size, page_to_pfn(ob->parking), false);
}

static struct vlink_ob_map *vlink_ob_find(struct vlink_ob *ob,
					  phys_addr_t phys)
{
	unsigned int i;

	for (i = 0; i < VLINK_OB_MAPS; i++)
		if (ob->map[i].size && ob->map[i].phys == phys)
			return &ob->map[i];
	return NULL;
}

/**
 * vlink_ob_map() - point part of the outbound window at host memory
 * @ob: the outbound window
 * @phys: start of the part, as the address-space library gave it out
 * @pci_addr: host (PCI) address it must show
 * @size: bytes
 *
 * Return: 0, -EINVAL for an unaligned or out-of-window request or one that
 * reaches beyond the host's RAM, -ENOLINK while the link is down, -EBUSY if
 * @phys is already mapped, -ENOSPC when all mapping slots are in use.
 */
int vlink_ob_map(struct vlink_ob *ob, phys_addr_t phys, u64 pci_addr,
		 size_t size)
{
	struct vlink *vl = ob->vl;
	u64 off = (u64)phys - ob->phys;
	u64 host_off = pci_addr - vl->peer_ram_base;
	struct vlink_ob_map *m;
	int ret;

	if (!size || !PAGE_ALIGNED(phys) || !PAGE_ALIGNED(pci_addr) ||
	    phys < ob->phys || off >= ob->size || size > ob->size - off) {
		pci_err(vl->pdev, "outbound map %pa -> %#llx+%#zx: not a page-aligned part of the window\n",
			&phys, pci_addr, size);
		return -EINVAL;
	}
	if (pci_addr < vl->peer_ram_base || host_off >= vl->win_size ||
	    size > vl->win_size - host_off) {
		pci_err(vl->pdev, "outbound map to %#llx+%#zx: outside the host's RAM\n",
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
	if (vlink_ob_find(ob, phys)) {
		ret = -EBUSY;
		goto out;
	}
	for (m = ob->map; m < ob->map + VLINK_OB_MAPS && m->size; m++)
		;
	if (m == ob->map + VLINK_OB_MAPS) {
		ret = -ENOSPC;
		goto out;
	}
	size = PAGE_ALIGN(size);
	ret = vlink_ob_retarget(ob, off, size,
				PHYS_PFN(vl->win_phys + host_off), true);
	if (!ret) {
		spin_lock_irq(&ob->map_lock);
		m->phys = phys;
		m->pci_addr = pci_addr;
		m->size = size;
		spin_unlock_irq(&ob->map_lock);
	}
out:
	mutex_unlock(&ob->lock);
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
			vlink_ob_park(ob, phys - ob->phys, size);
		m->parked = false;
	} else {
		pci_warn(ob->vl->pdev, "outbound unmap of %pa, which is not mapped\n",
			 &phys);
	}
	mutex_unlock(&ob->lock);
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
		vlink_ob_park(ob, m->phys - ob->phys, m->size);
		n++;
	}
	mutex_unlock(&ob->lock);
	if (n)
		pci_info(ob->vl->pdev, "link down: parked %u outbound mapping(s)\n",
			 n);
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
 * -EFAULT if the range is not wholly inside one mapping.
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
		} else {
			*pci_addr = m->pci_addr + (phys - m->phys);
			ret = 0;
		}
		break;
	}
	spin_unlock_irqrestore(&ob->map_lock, flags);
	return ret;
}

/**
 * vlink_ob_translate() - where a host address shows in the peer-RAM window
 * @ob: the outbound window
 * @pci_addr: host (PCI) address
 * @size: bytes that must be reachable
 *
 * Return: the CPU physical address inside the window device's BAR, or 0 if
 * the range is not entirely host RAM.
 */
phys_addr_t vlink_ob_translate(struct vlink_ob *ob, u64 pci_addr, size_t size)
{
	struct vlink *vl = ob->vl;
	u64 off = pci_addr - vl->peer_ram_base;

	if (pci_addr < vl->peer_ram_base || off >= vl->win_size ||
	    size > vl->win_size - off)
		return 0;
	return vl->win_phys + off;
}

static void vlink_ob_release(void *data)
{
	struct vlink_ob *ob = data;

	free_vm_area(ob->area);
	__free_page(ob->parking);
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
	struct vlink_ob_retarget t = { };
	int ret;

	ob->vl = vl;
	mutex_init(&ob->lock);
	spin_lock_init(&ob->map_lock);
	ob->size = min_t(size_t, size, vl->win_size);
	ob->phys = vl->win_phys;
	ob->parking = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!ob->parking)
		return -ENOMEM;
	ob->area = get_vm_area(ob->size, VM_IOREMAP);
	if (!ob->area) {
		__free_page(ob->parking);
		return -ENOMEM;
	}
	ob->virt = (void __iomem *)ob->area->addr;
	/* One PTE per page, all parked; map_addr() moves them. */
	t.pfn = page_to_pfn(ob->parking);
	ret = apply_to_page_range(&init_mm, (unsigned long)ob->area->addr,
				  ob->size, vlink_ob_set_pte, &t);
	if (ret) {
		vlink_ob_release(ob);
		return ret;
	}
	return devm_add_action_or_reset(&vl->pdev->dev, vlink_ob_release, ob);
}
