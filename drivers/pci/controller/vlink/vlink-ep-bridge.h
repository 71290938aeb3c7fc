/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink bridged BARs: a BAR of one endpoint controller backed by another
 * controller's outbound window, as pci-epf-ntb sets them.
 */
#ifndef _VLINK_EP_BRIDGE_H
#define _VLINK_EP_BRIDGE_H

#include <linux/types.h>

struct vlink;
struct vlink_ob;

void vlink_bridge_add_ob(struct vlink_ob *ob);
bool vlink_bridge_del_ob(struct vlink_ob *ob);
void vlink_bridge_ob_changed(struct vlink_ob *ob);
int vlink_bridge_set_bar(struct vlink *vl, unsigned int fn, unsigned int bar,
			 phys_addr_t phys, u64 size);
void vlink_bridge_clear_bar(struct vlink *vl, unsigned int fn,
			    unsigned int bar);

#endif /* _VLINK_EP_BRIDGE_H */
