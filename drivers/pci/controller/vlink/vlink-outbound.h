/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink outbound window: the endpoint's outbound address translation onto
 * the root complex's RAM.
 */
#ifndef _VLINK_OUTBOUND_H
#define _VLINK_OUTBOUND_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct vlink;
struct vlink_aperture;

#define VLINK_OB_MAPS		32

/**
 * struct vlink_ob_map - one mapped part of the window
 * @phys: its start, as the address-space library gave it out
 * @pci_addr: the host address it shows
 * @size: bytes, page-aligned; 0 for a free slot
 * @parked: the link went down under it: it shows the parking page
 * @bell: it shows the host's MSI address: a doorbell page of ours
 */
struct vlink_ob_map {
	phys_addr_t phys;
	u64 pci_addr;
	size_t size;
	bool parked;
	bool bell;
};

/**
 * struct vlink_ob - the outbound window of an endpoint link
 * @vl: the link
 * @phys: the window's start, a cookie for the address-space library
 * @ap: its pages, which map_addr() moves; unmapped ones are parked
 * @virt: where they start
 * @size: its size
 * @lock: serialises changes of @map and @up
 * @map_lock: taken too by those changes, for readers that cannot sleep
 * @up: the link is up: mappings may be made
 * @map: the mapped parts
 * @bells: per mapping slot, the page that stands for the host's MSI
 *         address when the slot maps it, allocated on first use
 * @bell_work: turns what was written into the bells into MSIs
 * @node: in the list of windows other controllers' BARs may lie in
 */
struct vlink_ob {
	struct vlink *vl;
	phys_addr_t phys;
	struct vlink_aperture *ap;
	void __iomem *virt;
	size_t size;
	struct mutex lock;		/* @map, @up */
	spinlock_t map_lock;		/* @map, @up, for vlink_ob_resolve() */
	bool up;
	struct vlink_ob_map map[VLINK_OB_MAPS];
	struct page *bells[VLINK_OB_MAPS];
	struct delayed_work bell_work;
	struct list_head node;
};

int vlink_ob_init(struct vlink_ob *ob, struct vlink *vl, size_t size);
int vlink_ob_map(struct vlink_ob *ob, phys_addr_t phys, u64 pci_addr,
		 size_t size);
void vlink_ob_unmap(struct vlink_ob *ob, phys_addr_t phys);
void vlink_ob_set_link(struct vlink_ob *ob, bool up);
int vlink_ob_resolve(struct vlink_ob *ob, phys_addr_t phys, size_t size,
		     u64 *pci_addr);

#endif /* _VLINK_OUTBOUND_H */
