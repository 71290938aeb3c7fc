/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink endpoint fault injection: a misbehaving endpoint on demand, to prove
 * that the root complex refuses what it must not trust.
 */
#ifndef _VLINK_EP_FAULTS_H
#define _VLINK_EP_FAULTS_H

#include <linux/types.h>

struct dentry;
struct vlink;

/**
 * enum vlink_ep_fault - what the next pci_epc_start() publishes broken
 * @VLINK_FAULT_NONE: nothing
 * @VLINK_FAULT_BAR_SIZE: BAR0 of each function has a size that is not a
 *                        power of two
 * @VLINK_FAULT_BAR_OUTSIDE: BAR0 of each function lies beyond our RAM
 * @VLINK_FAULT_CAP_LOOP: the capability list points back at itself
 * @VLINK_FAULT_CAP_OUTSIDE: the capability pointer leaves config space
 * @VLINK_FAULT_VENDOR_RETRY: the vendor ID is the retry value 0x0001
 * @VLINK_FAULT_BAR_OVERLAP: BAR1 of each function lies on its BAR0
 * @VLINK_FAULT_CAP_MSI_END: a 64-bit MSI capability with per-vector
 *                           masking at 0xf0, whose end leaves the header
 * @VLINK_FAULT_MSIX_OUTSIDE: an MSI-X table that starts at BAR0's end
 * @VLINK_FAULT_HEADER_TYPE: a bridge's header type
 */
enum vlink_ep_fault {
	VLINK_FAULT_NONE,
	VLINK_FAULT_BAR_SIZE,
	VLINK_FAULT_BAR_OUTSIDE,
	VLINK_FAULT_CAP_LOOP,
	VLINK_FAULT_CAP_OUTSIDE,
	VLINK_FAULT_VENDOR_RETRY,
	VLINK_FAULT_BAR_OVERLAP,
	VLINK_FAULT_CAP_MSI_END,
	VLINK_FAULT_MSIX_OUTSIDE,
	VLINK_FAULT_HEADER_TYPE,
};

#ifdef CONFIG_PCIE_VLINK_EP_FAULTS
void vlink_ep_faults_init(struct vlink *vl);
void vlink_ep_faults_apply(struct vlink *vl, u32 func_mask);
void vlink_ep_fuzz_init(struct vlink *vl, struct dentry *dir);
#else
static inline void vlink_ep_faults_init(struct vlink *vl) { }
static inline void vlink_ep_faults_apply(struct vlink *vl, u32 func_mask) { }
#endif

#endif /* _VLINK_EP_FAULTS_H */
