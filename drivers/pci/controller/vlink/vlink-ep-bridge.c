// SPDX-License-Identifier: GPL-2.0
/*
 * vlink bridged BARs: one endpoint guest joining two hosts.
 *
 * pci-epf-ntb sets a BAR of its primary controller with an address it took
 * from its secondary controller's outbound window (and the other way
 * round): what the first host writes into that BAR goes out through the
 * second controller's window, into the second host's RAM or, where the
 * window maps that host's MSI address, into its interrupt controller.  In
 * silicon the two controllers share the endpoint's bus and this needs
 * nothing.  Here each host reaches the endpoint only through its own link,
 * so the BAR's controller publishes, per page of the BAR, what the other
 * window shows there: far-host RAM (which that host's root complex reaches
 * through a window of its own onto the far host's RAM), a doorbell page in
 * our RAM (vlink-outbound.c turns what lands there into the MSI), or
 * nothing.  Whenever the other window is mapped, unmapped or parked, the
 * table is published again and the root complex follows it.
 *
 * Every outbound window of this guest is registered here, so that a BAR
 * address can be told to lie in one; bridged BARs are listed with the
 * window they lie in.  One lock serialises both lists and the tables.
 */

#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "vlink.h"
#include "vlink-ep-bridge.h"
#include "vlink-outbound.h"

/**
 * struct vlink_bridge_ext - an extent as computed, before it is published
 * @bar_off: offset in the BAR
 * @addr: address of the memory it shows
 * @size: bytes
 * @kind: enum vlink_xlat_kind
 */
struct vlink_bridge_ext {
	u64 bar_off;
	u64 addr;
	u64 size;
	u32 kind;
};

/**
 * struct vlink_bridge_bar - a BAR that lies in another controller's window
 * @node: in vlink_bridged
 * @vl: the link of the BAR's controller, where its table is published
 * @fn: its function
 * @bar: its number
 * @phys: where the function set it, inside @far
 * @size: its size
 * @far: the outbound window it lies in; NULL once that went away
 * @seq: the table's sequence count, which only we write
 * @ext: what was last published
 */
struct vlink_bridge_bar {
	struct list_head node;
	struct vlink *vl;
	unsigned int fn;
	unsigned int bar;
	phys_addr_t phys;
	u64 size;
	struct vlink_ob *far;
	u32 seq;
	struct vlink_bridge_ext ext[VLINK_XLAT_EXTENTS];
};

static DEFINE_MUTEX(vlink_bridge_lock);
static LIST_HEAD(vlink_obs);
static LIST_HEAD(vlink_bridged);

static int vlink_bridge_cmp(const void *a, const void *b)
{
	const struct vlink_bridge_ext *x = a, *y = b;

	return x->bar_off < y->bar_off ? -1 : x->bar_off > y->bar_off;
}

/* What the far window shows under the BAR now, in BAR order. */
static void vlink_bridge_extents(struct vlink_bridge_bar *b,
				 struct vlink_bridge_ext *ext)
{
	struct vlink_ob_map maps[VLINK_OB_MAPS];
	struct vlink_ob *ob = b->far;
	phys_addr_t start, end;
	unsigned int i, n = 0;
	bool up;

	if (!ob)
		return;
	spin_lock_irq(&ob->map_lock);
	up = ob->up;
	memcpy(maps, ob->map, sizeof(maps));
	spin_unlock_irq(&ob->map_lock);

	for (i = 0; up && i < VLINK_OB_MAPS; i++) {
		struct vlink_ob_map *m = &maps[i];

		if (!m->size || m->parked)
			continue;
		start = max(m->phys, b->phys);
		end = min_t(u64, (u64)m->phys + m->size, (u64)b->phys + b->size);
		if (start >= end)
			continue;
		if (n == VLINK_XLAT_EXTENTS) {
			dev_err_ratelimited(&b->vl->pdev->dev, "function %u: BAR%u spans more than %u outbound mappings: the rest shows nothing\n",
					    b->fn, b->bar, VLINK_XLAT_EXTENTS);
			break;
		}
		ext[n].bar_off = start - b->phys;
		ext[n].size = end - start;
		if (m->bell) {
			ext[n].kind = VLINK_XLAT_EP_RAM;
			ext[n].addr = page_to_phys(ob->bells[i]) +
				      (start - m->phys);
		} else {
			ext[n].kind = VLINK_XLAT_FAR_RAM;
			ext[n].addr = m->pci_addr + (start - m->phys);
		}
		n++;
	}
	sort(ext, n, sizeof(*ext), vlink_bridge_cmp, NULL);
}

/*
 * Write the table between two counts of its sequence, the second even, and
 * ring the root complex; unless nothing changed, or @force.
 */
static void vlink_bridge_publish(struct vlink_bridge_bar *b, bool force)
{
	struct vlink_bar_xlat *x = vlink_xlat(b->vl, b->fn, b->bar);
	struct vlink_bridge_ext ext[VLINK_XLAT_EXTENTS] = {};
	unsigned int i;

	vlink_bridge_extents(b, ext);
	if (!force && !memcmp(ext, b->ext, sizeof(ext)))
		return;
	memcpy(b->ext, ext, sizeof(ext));
	vlink_wr32(&x->seq, ++b->seq);
	wmb();	/* odd before the extents */
	for (i = 0; i < VLINK_XLAT_EXTENTS; i++) {
		vlink_wr64(&x->ext[i].bar_off, ext[i].bar_off);
		vlink_wr64(&x->ext[i].addr, ext[i].addr);
		vlink_wr64(&x->ext[i].size, ext[i].size);
		vlink_wr32(&x->ext[i].kind, ext[i].kind);
		vlink_wr32(&x->ext[i].reserved, 0);
	}
	wmb();	/* the extents before even */
	vlink_wr32(&x->seq, ++b->seq);
	vlink_bar_moved(b->vl);
}

static struct vlink_bridge_bar *vlink_bridge_find(struct vlink *vl,
						  unsigned int fn,
						  unsigned int bar)
{
	struct vlink_bridge_bar *b;

	list_for_each_entry(b, &vlink_bridged, node)
		if (b->vl == vl && b->fn == fn && b->bar == bar)
			return b;
	return NULL;
}

/**
 * vlink_bridge_set_bar() - note a BAR that may lie in another window
 * @vl: the link of the BAR's controller
 * @fn: the function
 * @bar: the BAR
 * @phys: the address the function set it with
 * @size: its size
 *
 * Context: process; the caller holds the controller's lock.
 * Return: 1 if the BAR lies in another controller's outbound window and its
 * translation table is published, 0 if it does not, -EINVAL if it lies
 * partly outside that window, -ENOMEM.
 */
int vlink_bridge_set_bar(struct vlink *vl, unsigned int fn, unsigned int bar,
			 phys_addr_t phys, u64 size)
{
	struct vlink_bridge_bar *b;
	struct vlink_ob *ob, *far = NULL;
	int ret = 1;

	mutex_lock(&vlink_bridge_lock);
	list_for_each_entry(ob, &vlink_obs, node)
		if (ob->vl != vl && phys >= ob->phys &&
		    phys - ob->phys < ob->size)
			far = ob;
	b = vlink_bridge_find(vl, fn, bar);
	if (!far) {
		ret = 0;
		goto drop;
	}
	if (size > far->size - (phys - far->phys)) {
		dev_err(&vl->pdev->dev, "function %u: BAR%u %pa+%#llx reaches beyond %s's outbound window\n",
			fn, bar, &phys, size, pci_name(far->vl->pdev));
		ret = -EINVAL;
		goto drop;
	}
	if (!b) {
		b = kzalloc(sizeof(*b), GFP_KERNEL);
		if (!b) {
			ret = -ENOMEM;
			goto out;
		}
		b->vl = vl;
		b->fn = fn;
		b->bar = bar;
		list_add(&b->node, &vlink_bridged);
	}
	b->phys = phys;
	b->size = size;
	b->far = far;
	vlink_bridge_publish(b, true);
	dev_info(&vl->pdev->dev, "function %u: BAR%u lies in %s's outbound window\n",
		 fn, bar, pci_name(far->vl->pdev));
	goto out;
drop:
	if (b) {
		list_del(&b->node);
		kfree(b);
	}
out:
	mutex_unlock(&vlink_bridge_lock);
	return ret;
}

/**
 * vlink_bridge_clear_bar() - forget a BAR the function cleared
 * @vl: the link of the BAR's controller
 * @fn: the function
 * @bar: the BAR
 */
void vlink_bridge_clear_bar(struct vlink *vl, unsigned int fn,
			    unsigned int bar)
{
	struct vlink_bridge_bar *b;

	mutex_lock(&vlink_bridge_lock);
	b = vlink_bridge_find(vl, fn, bar);
	if (b) {
		list_del(&b->node);
		kfree(b);
	}
	mutex_unlock(&vlink_bridge_lock);
}

/**
 * vlink_bridge_ob_changed() - an outbound window was mapped, unmapped or
 *                             parked: republish the BARs that lie in it
 * @ob: the window
 *
 * Context: process, without @ob's locks.
 */
void vlink_bridge_ob_changed(struct vlink_ob *ob)
{
	struct vlink_bridge_bar *b;

	mutex_lock(&vlink_bridge_lock);
	list_for_each_entry(b, &vlink_bridged, node)
		if (b->far == ob)
			vlink_bridge_publish(b, false);
	mutex_unlock(&vlink_bridge_lock);
}

/**
 * vlink_bridge_add_ob() - let other controllers' BARs lie in a window
 * @ob: the window, set up
 */
void vlink_bridge_add_ob(struct vlink_ob *ob)
{
	mutex_lock(&vlink_bridge_lock);
	list_add(&ob->node, &vlink_obs);
	mutex_unlock(&vlink_bridge_lock);
}

/**
 * vlink_bridge_del_ob() - a window and its controller go away
 * @ob: the window
 *
 * The BARs that lay in it show nothing from now on; those of its own
 * controller are forgotten.
 *
 * Return: true if a BAR lay in it: a host may not have followed that BAR
 * away from the window's doorbell pages yet, which must then be kept.
 */
bool vlink_bridge_del_ob(struct vlink_ob *ob)
{
	struct vlink_bridge_bar *b, *tmp;
	bool kept = false;

	mutex_lock(&vlink_bridge_lock);
	list_del(&ob->node);
	list_for_each_entry_safe(b, tmp, &vlink_bridged, node) {
		if (b->vl == ob->vl) {
			list_del(&b->node);
			kfree(b);
		} else if (b->far == ob) {
			b->far = NULL;
			vlink_bridge_publish(b, false);
			kept = true;
		}
	}
	mutex_unlock(&vlink_bridge_lock);
	if (kept)
		pci_info(ob->vl->pdev, "outbound window gone while other controllers' BARs lay in it: its doorbell pages are kept\n");
	return kept;
}
