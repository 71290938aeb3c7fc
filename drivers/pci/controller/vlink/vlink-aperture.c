// SPDX-License-Identifier: GPL-2.0
/*
 * vlink apertures: the link's address translation units.
 *
 * An aperture is a range of kernel virtual addresses with a page-table
 * entry per page, each pointing either at a page of the peer's RAM in the
 * window or at a parking page of our own.  Retargeting rewrites entries in
 * place: whoever holds the range sees the new target from then on, with
 * nothing allocated on that path.  The endpoint's outbound window is one
 * (map_addr() moves it); the root complex's BARs whose translation the
 * endpoint moves while the host uses them are another.
 *
 * A host driver or a function driver does not take a virtual address from
 * us but ioremap()s a physical one: a BAR's address, or what
 * pci_epc_mem_alloc_addr() gave out.  On 32-bit ARM an aperture therefore
 * also owns a physical range that nothing backs, above the end of RAM, and
 * takes part in ioremap() through arch_ioremap_caller and arch_iounmap
 * (which kernel/glue.patch adds): an ioremap() inside the range gets the
 * aperture's own pages, and every mapping of a page follows its
 * retargeting.  Other architectures have no such hook; there an aperture
 * has no physical range (@phys is 0) and the callers refuse what would
 * need one.  The page-table walk uses symbols the architectures do not
 * export: built in only.
 */

#include <linux/device.h>
#include <linux/io.h>
#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <asm/tlbflush.h>

#include "vlink-aperture.h"

/*
 * Parking more pages than this invalidates the whole TLB instead of one
 * entry per page.  Under emulation each broadcast invalidation of a page
 * costs the vCPU an exit (120 us for a 1 MiB window), where one full flush
 * costs 10-16 us.  A full flush is also when QEMU resizes its software
 * TLB, by how full it was: a CPU copy through the window, just before its
 * unmap, has filled it, so the TLB grows to hold the window.  QEMU's TLB is
 * direct mapped, and two windows placed at the same alignment (the source
 * and destination of a copy) alias page for page when it is small: 4 MiB
 * window-to-window copies ran at 760 MB/s until a full flush grew it, and
 * at 2100-2450 MB/s after.  Mapping keeps the per-page invalidation: a
 * full flush there, with the TLB barely used since the unmap, would shrink
 * it again just before the copy.
 */
#define VLINK_AP_PARK_FLUSH_ALL_PAGES	64

struct vlink_ap_target {
	unsigned long pfn;
	bool step;
};

static int vlink_ap_set_pte(pte_t *pte, unsigned long addr, void *data)
{
	struct vlink_ap_target *t = data;

	set_pte_at(&init_mm, addr, pte,
		   pfn_pte(t->pfn, pgprot_device(PAGE_KERNEL)));
	if (t->step)
		t->pfn++;
	return 0;
}

static int vlink_ap_retarget(struct vlink_aperture *ap, size_t off,
			     size_t size, unsigned long pfn, bool step)
{
	struct vlink_ap_target t = { .pfn = pfn, .step = step };
	unsigned long va = (unsigned long)ap->virt + off;
	int ret;

	if (!PAGE_ALIGNED(off) || off > ap->size ||
	    PAGE_ALIGN(size) > ap->size - off)
		return -EINVAL;
	size = PAGE_ALIGN(size);
	if (!size)
		return 0;
	ret = apply_to_existing_page_range(&init_mm, va, size,
					   vlink_ap_set_pte, &t);
	/* !step is parking: see VLINK_AP_PARK_FLUSH_ALL_PAGES. */
	if (!step && size > VLINK_AP_PARK_FLUSH_ALL_PAGES * PAGE_SIZE)
		flush_tlb_all();
	else
		flush_tlb_kernel_range(va, va + size);
	return ret;
}

/**
 * vlink_ap_map() - point part of an aperture at memory
 * @ap: the aperture
 * @off: page-aligned offset of the part
 * @size: its size, rounded up to whole pages
 * @target: page-aligned physical address it must show from now on
 *
 * Return: 0, or -EINVAL if the part is not inside the aperture.
 */
int vlink_ap_map(struct vlink_aperture *ap, size_t off, size_t size,
		 phys_addr_t target)
{
	if (!PAGE_ALIGNED(target))
		return -EINVAL;
	return vlink_ap_retarget(ap, off, size, PHYS_PFN(target), true);
}

/**
 * vlink_ap_park() - point part of an aperture at the parking page
 * @ap: the aperture
 * @off: page-aligned offset of the part
 * @size: its size, rounded up to whole pages
 *
 * What is written there afterwards lands in a page of ours that nobody
 * reads; what is read is whatever was parked there before.
 *
 * Return: 0, or -EINVAL if the part is not inside the aperture.
 */
int vlink_ap_park(struct vlink_aperture *ap, size_t off, size_t size)
{
	return vlink_ap_retarget(ap, off, size, page_to_pfn(ap->parking),
				 false);
}

#ifdef CONFIG_ARM
/* The apertures ioremap() hands out, and the hook it had before ours. */
static DEFINE_SPINLOCK(vlink_ap_lock);
static LIST_HEAD(vlink_aps);
static void __iomem *(*vlink_ap_next_ioremap)(phys_addr_t, size_t,
					      unsigned int, void *);

/*
 * The pages of an aperture are device memory whatever type the caller
 * asks for: they are retargeted under the caller, and the stricter type is
 * always correct.
 */
static void __iomem *vlink_ap_ioremap(phys_addr_t phys, size_t size,
				      unsigned int mtype, void *caller)
{
	struct vlink_aperture *ap;
	void __iomem *virt = NULL;
	unsigned long flags;
	bool ours = false;

	spin_lock_irqsave(&vlink_ap_lock, flags);
	list_for_each_entry(ap, &vlink_aps, node) {
		if (phys < ap->phys || phys - ap->phys >= ap->size)
			continue;
		ours = true;
		if (size && size <= ap->size - (phys - ap->phys)) {
			virt = ap->virt + (phys - ap->phys);
			ap->users++;
		}
		break;
	}
	spin_unlock_irqrestore(&vlink_ap_lock, flags);
	if (!ours)
		return vlink_ap_next_ioremap(phys, size, mtype, caller);
	if (!virt)
		pr_err("vlink: ioremap of %pa+%#zx runs past the end of an aperture: refused\n",
		       &phys, size);
	return virt;
}

static bool vlink_ap_iounmap(void __iomem *addr)
{
	struct vlink_aperture *ap;
	unsigned long flags;
	bool ours = false;

	spin_lock_irqsave(&vlink_ap_lock, flags);
	list_for_each_entry(ap, &vlink_aps, node) {
		if (addr < ap->virt || addr >= ap->virt + ap->size)
			continue;
		ours = true;
		if (ap->users)
			ap->users--;
		else
			pr_err("vlink: iounmap of %p, which nobody mapped\n",
			       addr);
		break;
	}
	spin_unlock_irqrestore(&vlink_ap_lock, flags);
	return ours;
}

static int vlink_ap_publish(struct vlink_aperture *ap, const char *name)
{
	phys_addr_t ram_end = memblock_end_of_DRAM();
	unsigned long flags;
	int ret;

	ap->res.name = name;
	ap->res.flags = IORESOURCE_MEM;
	ret = allocate_resource(&iomem_resource, &ap->res, ap->size, ram_end,
				iomem_resource.end,
				roundup_pow_of_two(ap->size), NULL, NULL);
	if (ret) {
		dev_err(ap->dev, "no room for a %zu MiB aperture above the end of RAM\n",
			ap->size >> 20);
		return ret;
	}
	ap->phys = ap->res.start;

	spin_lock_irqsave(&vlink_ap_lock, flags);
	if (!vlink_ap_next_ioremap) {
		vlink_ap_next_ioremap = arch_ioremap_caller;
		WRITE_ONCE(arch_ioremap_caller, vlink_ap_ioremap);
		WRITE_ONCE(arch_iounmap, vlink_ap_iounmap);
	}
	list_add(&ap->node, &vlink_aps);
	spin_unlock_irqrestore(&vlink_ap_lock, flags);
	return 0;
}

/* Return: false if some ioremap() still holds the aperture. */
static bool vlink_ap_withdraw(struct vlink_aperture *ap)
{
	unsigned long flags;
	unsigned int users;

	if (!ap->phys)
		return true;
	spin_lock_irqsave(&vlink_ap_lock, flags);
	users = ap->users;
	if (!users)
		list_del(&ap->node);
	spin_unlock_irqrestore(&vlink_ap_lock, flags);
	if (users) {
		dev_err(ap->dev, "%u ioremap()s of %pR still live: the aperture stays\n",
			users, &ap->res);
		return false;
	}
	release_resource(&ap->res);
	return true;
}
#else
static int vlink_ap_publish(struct vlink_aperture *ap, const char *name)
{
	return 0;
}

static bool vlink_ap_withdraw(struct vlink_aperture *ap)
{
	return true;
}
#endif

static void vlink_ap_free(struct vlink_aperture *ap)
{
	if (ap->area)
		free_vm_area(ap->area);
	if (ap->parking)
		__free_page(ap->parking);
	kfree(ap);
}

/**
 * vlink_ap_create() - set up an aperture, all of it parked
 * @dev: whose it is
 * @name: name of its physical range in /proc/iomem; must outlive it
 * @size: its size, rounded up to whole pages
 *
 * Return: the aperture, or an ERR_PTR().
 */
struct vlink_aperture *vlink_ap_create(struct device *dev, const char *name,
				       size_t size)
{
	struct vlink_ap_target t = { };
	struct vlink_aperture *ap;
	int ret = -ENOMEM;

	ap = kzalloc(sizeof(*ap), GFP_KERNEL);
	if (!ap)
		return ERR_PTR(-ENOMEM);
	ap->dev = dev;
	ap->size = PAGE_ALIGN(size);
	ap->parking = alloc_page(GFP_KERNEL | __GFP_ZERO);
	ap->area = get_vm_area(ap->size, VM_IOREMAP);
	if (!ap->parking || !ap->area)
		goto err;
	ap->virt = (void __iomem *)ap->area->addr;
	t.pfn = page_to_pfn(ap->parking);
	ret = apply_to_page_range(&init_mm, (unsigned long)ap->area->addr,
				  ap->size, vlink_ap_set_pte, &t);
	if (!ret)
		ret = vlink_ap_publish(ap, name);
	if (!ret)
		return ap;
err:
	vlink_ap_free(ap);
	return ERR_PTR(ret);
}

/**
 * vlink_ap_destroy() - take an aperture down
 * @ap: the aperture
 *
 * Its users have unmapped it: a host bridge's bus is gone, a function
 * driver has unbound.  One that did not would be left with pages that
 * vanish under it, so then the aperture is left as it is, with a message.
 */
void vlink_ap_destroy(struct vlink_aperture *ap)
{
	if (vlink_ap_withdraw(ap))
		vlink_ap_free(ap);
}
