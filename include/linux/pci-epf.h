/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PCI endpoint function (EPF) interface.
 *
 * An endpoint function is one PCI function as the remote host will see it:
 * a configuration header, up to six BARs and its interrupts. The function
 * driver decides what lies behind the BARs; the endpoint controller (see
 * pci-epc.h) makes the function visible on the link.
 */

#ifndef __LINUX_PCI_EPF_H
#define __LINUX_PCI_EPF_H

#include <linux/configfs.h>
#include <linux/device.h>
#include <linux/mod_devicetable.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pci.h>

struct pci_epc;
struct pci_epf;
enum pci_epc_interface_type;

/*
 * Events carried by a controller's notifier chain to callbacks registered
 * with pci_epc_register_notifier(). Only these two travel on the chain, so
 * that callbacks written for it never see an event they do not know; the
 * newer events reach functions through struct pci_epc_event_ops.
 */
enum pci_notify_event {
	CORE_INIT,
	LINK_UP,
};

enum pci_barno {
	NO_BAR = -1,
	BAR_0,
	BAR_1,
	BAR_2,
	BAR_3,
	BAR_4,
	BAR_5,
};

/**
 * struct pci_epf_header - type 0 configuration header of a function
 * @vendorid: vendor ID register
 * @deviceid: device ID register
 * @revid: revision ID register
 * @progif_code: programming interface byte of the class code
 * @subclass_code: sub-class byte of the class code
 * @baseclass_code: base class byte of the class code
 * @cache_line_size: cache line size register, in dwords
 * @subsys_vendor_id: subsystem vendor ID register
 * @subsys_id: subsystem ID register
 * @interrupt_pin: legacy interrupt pin the function uses (0 for none)
 */
struct pci_epf_header {
	u16	vendorid;
	u16	deviceid;
	u16	subsys_vendor_id;
	u16	subsys_id;
	u8	revid;
	u8	progif_code;
	u8	subclass_code;
	u8	baseclass_code;
	u8	cache_line_size;
	enum pci_interrupt_pin interrupt_pin;
};

/**
 * struct pci_epf_ops - callbacks of a function driver
 * @bind: the function has been attached to a controller; set up BARs, the
 *	  header and interrupts. Called once per attached interface, so a
 *	  driver that needs two controllers returns 0 until both are there.
 * @unbind: the function is being detached; undo everything @bind did
 * @add_cfs: optionally add a driver specific configfs group below the
 *	     function's directory; return NULL when there is nothing to add
 */
struct pci_epf_ops {
	int	(*bind)(struct pci_epf *epf);
	void	(*unbind)(struct pci_epf *epf);
	struct config_group *(*add_cfs)(struct pci_epf *epf,
					struct config_group *group);
};

/**
 * struct pci_epc_event_ops - controller events a bound function may handle
 * @core_init: the controller core is ready to be programmed
 * @link_up: the link to the host is up
 * @link_down: the link to the host went down
 * @bme: the host enabled bus mastering for the function
 *
 * The callbacks run in process context with the function's lock held and
 * may call any pci_epc_*() helper. Their return value is only logged.
 */
struct pci_epc_event_ops {
	int	(*core_init)(struct pci_epf *epf);
	int	(*link_up)(struct pci_epf *epf);
	int	(*link_down)(struct pci_epf *epf);
	int	(*bme)(struct pci_epf *epf);
};

/**
 * struct pci_epf_driver - a function driver
 * @probe: a function device matching the driver was created
 * @remove: the function device is going away
 * @driver: the embedded driver core object
 * @ops: bind/unbind callbacks; @ops->bind and @ops->unbind are mandatory
 * @owner: module of the driver, pinned while one of its functions is bound
 * @epf_group: configfs directories made for the driver (internal to the core)
 * @id_table: names of the functions the driver handles, ending with an
 *	      entry whose name is empty
 */
struct pci_epf_driver {
	int	(*probe)(struct pci_epf *epf);
	void	(*remove)(struct pci_epf *epf);

	struct device_driver	driver;
	struct pci_epf_ops	*ops;
	struct module		*owner;
	struct list_head	epf_group;
	const struct pci_epf_device_id	*id_table;
};

#define to_pci_epf_driver(drv)	\
	container_of((drv), struct pci_epf_driver, driver)

/**
 * struct pci_epf_bar - one BAR of a function
 * @phys_addr: bus address of the memory behind the BAR, as the controller's
 *	       inbound translation needs it
 * @addr: kernel virtual address of that memory
 * @size: size of the BAR in bytes
 * @barno: which BAR this is
 * @flags: PCI_BASE_ADDRESS_* flags for the BAR
 * @keep: set by a controller's clear_bar() when the host may still reach
 *	  the memory; pci_epf_free_space() then keeps (leaks) it
 */
struct pci_epf_bar {
	dma_addr_t	phys_addr;
	void		*addr;
	size_t		size;
	enum pci_barno	barno;
	int		flags;
	bool		keep;
};

/**
 * struct pci_epf - an endpoint function device
 * @dev: the device on the pci-epf bus
 * @name: driver part of the device name (before the first '.'), used for
 *	  matching against &struct pci_epf_driver.id_table
 * @header: configuration header, provided by the function driver
 * @bar: BARs as seen through the primary controller
 * @msi_interrupts: MSI vectors the function asks for (1 to 32)
 * @msix_interrupts: MSI-X vectors the function asks for (1 to 2048)
 * @func_no: function number on the primary controller
 * @vfunc_no: virtual function number within the physical function (from 1)
 * @epc: primary controller, NULL while not attached
 * @epf_pf: physical function this virtual function belongs to
 * @driver: function driver bound on the pci-epf bus
 * @event_ops: controller event callbacks, set by the driver (in probe or
 *	       bind); called only while the function is bound
 * @list: entry in the primary controller's list of functions, or in the
 *	  physical function's list when this is a virtual function
 * @nb: notifier block for pci_epc_register_notifier()
 * @lock: serialises the driver's callbacks and guards @pci_vepf,
 *	  @vfunction_num_map, @is_bound and @bind_count
 * @sec_epc: secondary controller, for functions that span two controllers
 * @sec_epc_list: entry in the secondary controller's list of functions
 * @sec_epc_bar: BARs as seen through the secondary controller
 * @sec_epc_func_no: function number on the secondary controller
 * @group: configfs directory of the function
 * @is_bound: the driver's @ops->bind ran and @ops->unbind has not run since
 * @bind_count: pci_epf_bind() calls not yet undone by pci_epf_unbind()
 * @is_vf: this is a virtual function
 * @vfunction_num_map: virtual function numbers in use (bit 0 never is)
 * @pci_vepf: virtual functions of this physical function
 */
struct pci_epf {
	struct device		dev;
	const char		*name;
	struct pci_epf_header	*header;
	struct pci_epf_driver	*driver;
	const struct pci_epc_event_ops *event_ops;
	struct config_group	*group;
	/* see @lock in the kernel-doc above */
	struct mutex		lock;
	struct notifier_block	nb;

	struct pci_epc		*epc;
	struct list_head	list;
	struct pci_epf_bar	bar[PCI_STD_NUM_BARS];
	u8			func_no;
	u8			msi_interrupts;
	u16			msix_interrupts;

	struct pci_epc		*sec_epc;
	struct list_head	sec_epc_list;
	struct pci_epf_bar	sec_epc_bar[PCI_STD_NUM_BARS];
	u8			sec_epc_func_no;

	unsigned int		is_bound;
	unsigned int		bind_count;

	unsigned int		is_vf;
	u8			vfunc_no;
	struct pci_epf		*epf_pf;
	unsigned long		vfunction_num_map;
	struct list_head	pci_vepf;
};

/**
 * struct pci_epf_msix_tbl - one entry of an MSI-X table in a function's BAR
 * @msg_addr: address the host programmed for the vector
 * @msg_data: data to write to @msg_addr to signal the vector
 * @vector_ctrl: vector control word; bit 0 masks the vector
 */
struct pci_epf_msix_tbl {
	u64 msg_addr;
	u32 msg_data;
	u32 vector_ctrl;
};

#define to_pci_epf(epf_dev) container_of((epf_dev), struct pci_epf, dev)

#define pci_epf_register_driver(driver)	\
	__pci_epf_register_driver((driver), THIS_MODULE)

static inline void epf_set_drvdata(struct pci_epf *epf, void *data)
{
	dev_set_drvdata(&epf->dev, data);
}

static inline void *epf_get_drvdata(struct pci_epf *epf)
{
	return dev_get_drvdata(&epf->dev);
}

int __pci_epf_register_driver(struct pci_epf_driver *driver,
			      struct module *owner);
void pci_epf_unregister_driver(struct pci_epf_driver *driver);

struct pci_epf *pci_epf_create(const char *name);
void pci_epf_destroy(struct pci_epf *epf);

int pci_epf_bind(struct pci_epf *epf);
void pci_epf_unbind(struct pci_epf *epf);

int pci_epf_add_vepf(struct pci_epf *epf_pf, struct pci_epf *epf_vf);
void pci_epf_remove_vepf(struct pci_epf *epf_pf, struct pci_epf *epf_vf);

void *pci_epf_alloc_space(struct pci_epf *epf, size_t size, enum pci_barno bar,
			  size_t align, enum pci_epc_interface_type type);
void pci_epf_free_space(struct pci_epf *epf, void *addr, enum pci_barno bar,
			enum pci_epc_interface_type type);

struct config_group *pci_epf_type_add_cfs(struct pci_epf *epf,
					  struct config_group *group);

#endif /* __LINUX_PCI_EPF_H */
