/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink apertures: kernel virtual ranges whose pages the link retargets one
 * at a time, as an address translation unit would, and which ioremap()
 * hands out for a physical range of their own where the architecture lets
 * a driver take part in ioremap() (32-bit ARM).
 */
#ifndef _VLINK_APERTURE_H
#define _VLINK_APERTURE_H

#include <linux/ioport.h>
#include <linux/list.h>
#include <linux/types.h>

struct device;
struct page;
struct vm_struct;

/**
 * struct vlink_aperture - a retargetable range of pages
 * @node: in the list ioremap() searches
 * @dev: whose it is, for messages
 * @area: its virtual range, a PTE per page
 * @virt: where that range starts
 * @size: its size
 * @parking: where pages that show nothing point
 * @res: its physical range, which nothing backs: only ioremap() reaches it
 * @phys: @res's start; 0 where ioremap() cannot hand the range out
 * @users: ioremap()s of the range not yet iounmap()ed
 */
struct vlink_aperture {
	struct list_head node;
	struct device *dev;
	struct vm_struct *area;
	void __iomem *virt;
	size_t size;
	struct page *parking;
	struct resource res;
	phys_addr_t phys;
	unsigned int users;
};

/* Does ioremap() hand out apertures' pages for their physical ranges? */
static inline bool vlink_ap_can_ioremap(void)
{
	return IS_ENABLED(CONFIG_ARM);
}

struct vlink_aperture *vlink_ap_create(struct device *dev, const char *name,
				       size_t size);
void vlink_ap_destroy(struct vlink_aperture *ap);
int vlink_ap_map(struct vlink_aperture *ap, size_t off, size_t size,
		 phys_addr_t target);
int vlink_ap_park(struct vlink_aperture *ap, size_t off, size_t size);

#endif /* _VLINK_APERTURE_H */
