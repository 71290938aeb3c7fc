/* SPDX-License-Identifier: GPL-2.0 */
/*
 * configfs directories of the PCI endpoint framework:
 * /sys/kernel/config/pci_ep/controllers/<controller>/ and
 * /sys/kernel/config/pci_ep/functions/<function driver>/.
 * Without CONFIG_PCI_ENDPOINT_CONFIGFS the helpers do nothing.
 */

#ifndef __LINUX_PCI_EP_CFS_H
#define __LINUX_PCI_EP_CFS_H

#include <linux/configfs.h>

#if IS_ENABLED(CONFIG_PCI_ENDPOINT_CONFIGFS)

struct config_group *pci_ep_cfs_add_epf_group(const char *name);
void pci_ep_cfs_remove_epf_group(struct config_group *group);
struct config_group *pci_ep_cfs_add_epc_group(const char *name);
void pci_ep_cfs_remove_epc_group(struct config_group *group);

#else

static inline struct config_group *pci_ep_cfs_add_epf_group(const char *name)
{
	return NULL;
}

static inline void pci_ep_cfs_remove_epf_group(struct config_group *group) { }

static inline struct config_group *pci_ep_cfs_add_epc_group(const char *name)
{
	return NULL;
}

static inline void pci_ep_cfs_remove_epc_group(struct config_group *group) { }

#endif

#endif /* __LINUX_PCI_EP_CFS_H */
