// SPDX-License-Identifier: GPL-2.0
/*
 * vlink endpoint controller: the endpoint half of the virtual PCIe link.
 *
 * Binds to the ivshmem-doorbell device that the device tree marks
 * "vlink,pcie-ep" and brings the link up for the endpoint role.
 */

#include <linux/module.h>
#include <linux/of.h>
#include <linux/pci.h>

#include "vlink.h"

static void vlink_ep_link_event(struct vlink *vl, bool peer_alive)
{
}

static const struct vlink_ops vlink_ep_ops = {
	.link_event = vlink_ep_link_event,
};

static int vlink_ep_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct vlink *vl;

	/* Every ivshmem device is offered to us: take only our link. */
	if (!of_device_is_compatible(pdev->dev.of_node, "vlink,pcie-ep"))
		return -ENODEV;

	vl = vlink_probe(pdev, VLINK_ROLE_EP, &vlink_ep_ops, NULL);
	return PTR_ERR_OR_ZERO(vl);
}

static const struct pci_device_id vlink_ep_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },
	{ }
};
MODULE_DEVICE_TABLE(pci, vlink_ep_ids);

static struct pci_driver vlink_ep_driver = {
	.name = "vlink-ep",
	.id_table = vlink_ep_ids,
	.probe = vlink_ep_probe,
};
builtin_pci_driver(vlink_ep_driver);
