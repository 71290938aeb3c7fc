// SPDX-License-Identifier: GPL-2.0
/*
 * PCI endpoint function (EPF) core.
 *
 * Function devices live on the "pci-epf" bus. A device is named
 * "<driver>.<instance>" and matches a driver whose id_table (or, without
 * one, whose driver name) equals the part before the first dot. Binding a
 * function to a controller is separate from binding the device to its
 * driver: pci_epf_bind() runs the driver's bind() once the function has
 * been attached to a controller with pci_epc_add_epf().
 *
 * epf->lock serialises bind(), unbind(), add_cfs() and the event handlers
 * of a function, and protects its binding state and its list of virtual
 * functions; a virtual function's binding state is protected by its
 * physical function's lock. See pci-epc-core.c for how it nests with the
 * controller locks.
 */

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <linux/pci-epc.h>
#include <linux/pci-epf.h>
#include <linux/pci-ep-cfs.h>

/* Smallest BAR handed out: the PCI spec's minimum memory BAR is 128 bytes. */
#define PCI_EPF_MIN_BAR_SIZE	128

static struct bus_type pci_epf_bus_type;

/* One configfs directory made for a driver, on pci_epf_driver.epf_group. */
struct pci_epf_cfs_dir {
	struct list_head	node;
	struct config_group	*group;
};

/**
 * pci_epf_type_add_cfs() - let the function driver add its configfs group
 * @epf: the function
 * @group: the function's configfs directory, the parent of the new group
 *
 * Return: the driver's group, NULL when the driver adds none or @epf has no
 * driver, or an ERR_PTR() from the driver.
 */
struct config_group *pci_epf_type_add_cfs(struct pci_epf *epf,
					  struct config_group *group)
{
	struct config_group *driver_group = NULL;

	if (IS_ERR_OR_NULL(epf) || !group)
		return NULL;

	mutex_lock(&epf->lock);
	if (epf->driver && epf->driver->ops->add_cfs)
		driver_group = epf->driver->ops->add_cfs(epf, group);
	mutex_unlock(&epf->lock);

	return driver_group;
}
EXPORT_SYMBOL_GPL(pci_epf_type_add_cfs);

/* Silence the function's notifier on every controller it is attached to. */
static void pci_epf_drop_notifier(struct pci_epf *epf)
{
	if (epf->epc)
		blocking_notifier_chain_unregister(&epf->epc->notifier,
						   &epf->nb);
	if (epf->sec_epc)
		blocking_notifier_chain_unregister(&epf->sec_epc->notifier,
						   &epf->nb);
}

/*
 * Free BAR memory the driver left behind after a failed bind() (drivers
 * tend to return early without undoing their allocations) or after its
 * unbind(). Otherwise the next bind() could not allocate those BARs again
 * and the memory would be lost. The controller may still present the BAR
 * to the host: it is cleared there first.
 */
static void pci_epf_reclaim_bars(struct pci_epf *epf)
{
	int bar;

	for (bar = BAR_0; bar <= BAR_5; bar++) {
		if (epf->epc && epf->bar[bar].addr) {
			dev_warn(&epf->dev, "freeing BAR%d left by the driver\n",
				 bar);
			pci_epc_clear_bar(epf->epc, epf->func_no,
					  epf->vfunc_no, &epf->bar[bar]);
			pci_epf_free_space(epf, epf->bar[bar].addr, bar,
					   PRIMARY_INTERFACE);
		}
		if (epf->sec_epc && epf->sec_epc_bar[bar].addr) {
			dev_warn(&epf->dev,
				 "freeing secondary BAR%d left by the driver\n",
				 bar);
			pci_epc_clear_bar(epf->sec_epc, epf->sec_epc_func_no,
					  epf->vfunc_no,
					  &epf->sec_epc_bar[bar]);
			pci_epf_free_space(epf, epf->sec_epc_bar[bar].addr, bar,
					   SECONDARY_INTERFACE);
		}
	}
}

/*
 * Run the driver's unbind() of a function whose bind() succeeded and drop
 * the module reference taken with it. Called with the (physical) function's
 * lock held.
 */
static void pci_epf_unbind_one(struct pci_epf *epf)
{
	if (!epf->is_bound)
		return;

	pci_epf_drop_notifier(epf);
	epf->driver->ops->unbind(epf);
	pci_epf_reclaim_bars(epf);
	epf->is_bound = false;
	module_put(epf->driver->owner);
}

/* Counterpart of pci_epf_unbind_one(). */
static int pci_epf_bind_one(struct pci_epf *epf)
{
	int ret;

	if (!epf->driver)
		return -ENODEV;
	if (!try_module_get(epf->driver->owner))
		return -ENODEV;

	ret = epf->driver->ops->bind(epf);
	if (ret) {
		pci_epf_drop_notifier(epf);
		pci_epf_reclaim_bars(epf);
		module_put(epf->driver->owner);
		return ret;
	}

	epf->is_bound = true;
	return 0;
}

/* Can @epc give physical function @func_no a virtual function @vfunc_no? */
static bool pci_epf_vf_fits(struct pci_epc *epc, u8 func_no, u8 vfunc_no)
{
	if (!epc)
		return true;
	return epc->max_vfs && vfunc_no <= epc->max_vfs[func_no];
}

static void pci_epf_unbind_vfs(struct pci_epf *epf)
{
	struct pci_epf *vf;

	list_for_each_entry_reverse(vf, &epf->pci_vepf, list) {
		pci_epf_unbind_one(vf);
		vf->epc = NULL;
		vf->sec_epc = NULL;
	}
}

/*
 * Bind the virtual functions not bound yet. They take their controllers
 * and function numbers from @epf. Called with epf->lock held.
 */
static int pci_epf_bind_vfs(struct pci_epf *epf)
{
	struct pci_epf *vf;
	int ret;

	list_for_each_entry(vf, &epf->pci_vepf, list) {
		if (vf->is_bound)
			continue;

		if (!pci_epf_vf_fits(epf->epc, epf->func_no, vf->vfunc_no) ||
		    !pci_epf_vf_fits(epf->sec_epc, epf->sec_epc_func_no,
				     vf->vfunc_no)) {
			dev_err(&epf->dev,
				"controller has no virtual function %u for %s\n",
				vf->vfunc_no, dev_name(&vf->dev));
			return -EINVAL;
		}

		vf->epc = epf->epc;
		vf->func_no = epf->func_no;
		vf->sec_epc = epf->sec_epc;
		vf->sec_epc_func_no = epf->sec_epc_func_no;

		ret = pci_epf_bind_one(vf);
		if (ret) {
			vf->epc = NULL;
			vf->sec_epc = NULL;
			return ret;
		}
	}

	return 0;
}

/**
 * pci_epf_bind() - run the function driver's bind() after an attach
 * @epf: a physical function attached with pci_epc_add_epf()
 *
 * Call once per attached interface: the driver's bind() runs each time
 * (a driver spanning two controllers waits for both), preceded by the
 * bind() of each virtual function not bound yet. Each successful call holds
 * a reference on the driver's module and must be balanced by
 * pci_epf_unbind().
 *
 * Return: 0 on success, -EINVAL when @epf is invalid or not attached,
 * -ENODEV when it has no driver, or the error of a driver's bind().
 */
int pci_epf_bind(struct pci_epf *epf)
{
	bool was_bound;
	int ret;

	if (IS_ERR_OR_NULL(epf) || epf->is_vf)
		return -EINVAL;

	mutex_lock(&epf->lock);
	if (!epf->epc && !epf->sec_epc) {
		ret = -EINVAL;
		goto out;
	}
	if (!epf->driver) {
		dev_err(&epf->dev, "no function driver\n");
		ret = -ENODEV;
		goto out;
	}
	if (!try_module_get(epf->driver->owner)) {
		ret = -ENODEV;
		goto out;
	}

	was_bound = epf->is_bound;
	ret = pci_epf_bind_vfs(epf);
	if (!ret)
		ret = epf->driver->ops->bind(epf);
	if (ret) {
		/* keep what an earlier, good bind set up */
		if (!was_bound) {
			pci_epf_drop_notifier(epf);
			pci_epf_reclaim_bars(epf);
			pci_epf_unbind_vfs(epf);
		}
		module_put(epf->driver->owner);
		goto out;
	}

	epf->is_bound = true;
	epf->bind_count++;
out:
	mutex_unlock(&epf->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(pci_epf_bind);

/**
 * pci_epf_unbind() - undo one pci_epf_bind() before a detach
 * @epf: the function
 *
 * The first call after a bind runs the driver's unbind() (and then that of
 * each virtual function): with one of its controllers going, the function
 * can no longer work. Later calls only drop their module reference. A call
 * without a matching pci_epf_bind() is ignored.
 */
void pci_epf_unbind(struct pci_epf *epf)
{
	struct module *owner;

	if (IS_ERR_OR_NULL(epf))
		return;

	mutex_lock(&epf->lock);
	if (!epf->bind_count) {
		mutex_unlock(&epf->lock);
		return;
	}

	/* bind_count pins the driver's module, so epf->driver is still set */
	owner = epf->driver->owner;
	if (epf->is_bound) {
		pci_epf_drop_notifier(epf);
		epf->driver->ops->unbind(epf);
		pci_epf_reclaim_bars(epf);
		epf->is_bound = false;
		pci_epf_unbind_vfs(epf);
	}
	epf->bind_count--;
	mutex_unlock(&epf->lock);

	module_put(owner);
}
EXPORT_SYMBOL_GPL(pci_epf_unbind);

/**
 * pci_epf_add_vepf() - make a function a virtual function of another
 * @epf_pf: the physical function
 * @epf_vf: the function to become its virtual function
 *
 * Both must be detached from any controller. The virtual function gets the
 * lowest free virtual function number, starting at 1.
 *
 * Return: 0 on success, -EINVAL for invalid arguments (the same function
 * twice, a virtual function as @epf_pf, a physical function that has
 * virtual functions as @epf_vf), -EBUSY when either is attached or @epf_vf
 * already belongs to a physical function, -ENOSPC when all virtual
 * function numbers are taken.
 */
int pci_epf_add_vepf(struct pci_epf *epf_pf, struct pci_epf *epf_vf)
{
	unsigned int vfunc_no;
	int ret = 0;

	if (IS_ERR_OR_NULL(epf_pf) || IS_ERR_OR_NULL(epf_vf) ||
	    epf_pf == epf_vf)
		return -EINVAL;

	mutex_lock(&epf_pf->lock);
	if (epf_pf->is_vf || !list_empty(&epf_vf->pci_vepf)) {
		ret = -EINVAL;
	} else if (epf_pf->epc || epf_pf->sec_epc || epf_vf->epc ||
		   epf_vf->sec_epc || epf_vf->epf_pf) {
		ret = -EBUSY;
	} else {
		vfunc_no = find_first_zero_bit(&epf_pf->vfunction_num_map,
					       BITS_PER_LONG);
		if (vfunc_no >= BITS_PER_LONG) {
			ret = -ENOSPC;
		} else {
			list_add_tail(&epf_vf->list, &epf_pf->pci_vepf);
			__set_bit(vfunc_no, &epf_pf->vfunction_num_map);
			epf_vf->is_vf = true;
			epf_vf->epf_pf = epf_pf;
			epf_vf->vfunc_no = vfunc_no;
		}
	}
	mutex_unlock(&epf_pf->lock);

	return ret;
}
EXPORT_SYMBOL_GPL(pci_epf_add_vepf);

/**
 * pci_epf_remove_vepf() - undo pci_epf_add_vepf()
 * @epf_pf: the physical function
 * @epf_vf: its virtual function
 *
 * A virtual function that is still bound is unbound first. Calling this for
 * a pair that pci_epf_add_vepf() did not join does nothing.
 */
void pci_epf_remove_vepf(struct pci_epf *epf_pf, struct pci_epf *epf_vf)
{
	if (IS_ERR_OR_NULL(epf_pf) || IS_ERR_OR_NULL(epf_vf))
		return;

	mutex_lock(&epf_pf->lock);
	if (epf_vf->epf_pf == epf_pf) {
		pci_epf_unbind_one(epf_vf);
		epf_vf->epc = NULL;
		epf_vf->sec_epc = NULL;
		__clear_bit(epf_vf->vfunc_no, &epf_pf->vfunction_num_map);
		list_del_init(&epf_vf->list);
		epf_vf->epf_pf = NULL;
		epf_vf->is_vf = false;
		epf_vf->vfunc_no = 0;
	}
	mutex_unlock(&epf_pf->lock);
}
EXPORT_SYMBOL_GPL(pci_epf_remove_vepf);

/*
 * The controller, function number and BAR array that belong to @type, or
 * false when @epf is not attached through it.
 */
static bool pci_epf_interface(struct pci_epf *epf,
			      enum pci_epc_interface_type type,
			      struct pci_epc **epc, u8 *func_no,
			      struct pci_epf_bar **bars)
{
	if (type == PRIMARY_INTERFACE) {
		*epc = epf->epc;
		*func_no = epf->func_no;
		*bars = epf->bar;
	} else if (type == SECONDARY_INTERFACE) {
		*epc = epf->sec_epc;
		*func_no = epf->sec_epc_func_no;
		*bars = epf->sec_epc_bar;
	} else {
		return false;
	}

	return !!*epc;
}

/**
 * pci_epf_alloc_space() - allocate the memory behind a BAR
 * @epf: the function, attached through @type
 * @size: bytes needed
 * @bar: the BAR
 * @align: alignment the controller needs for BAR memory (a power of two,
 *	   see &struct pci_epc_features.align), or 0
 * @type: which of the function's controllers the BAR belongs to
 *
 * A BAR's size is a power of two and the host aligns the BAR to its size,
 * so the allocation is too: @size is raised to 128 bytes, to the next power
 * of two and to @align, unless the controller fixes the size of @bar, in
 * which case that size is used (and @size must fit in it). The memory is
 * coherent DMA memory of the controller's parent device, which the DMA API
 * aligns to its size rounded up to pages. On success the BAR description
 * in @epf (address, size, BAR number, 64-bit flag when needed) is filled in
 * for pci_epc_set_bar(); flags set there before are kept.
 *
 * Return: the kernel virtual address of the memory, or NULL on failure.
 */
void *pci_epf_alloc_space(struct pci_epf *epf, size_t size, enum pci_barno bar,
			  size_t align, enum pci_epc_interface_type type)
{
	const struct pci_epc_features *features;
	struct pci_epf_bar *bars;
	struct pci_epc *epc;
	dma_addr_t dma;
	u64 fixed = 0;
	void *space;
	u8 func_no;

	/* beyond this, rounding up to a power of two would overflow */
	if (IS_ERR_OR_NULL(epf) || bar < BAR_0 || bar > BAR_5 || !size ||
	    size > SIZE_MAX / 2 + 1)
		return NULL;
	if (!pci_epf_interface(epf, type, &epc, &func_no, &bars))
		return NULL;
	if (align && !is_power_of_2(align)) {
		dev_err(&epf->dev, "BAR%d: alignment %zu not a power of two\n",
			bar, align);
		return NULL;
	}
	if (bars[bar].addr) {
		dev_err(&epf->dev, "BAR%d already has memory\n", bar);
		return NULL;
	}

	features = pci_epc_get_features(epc, func_no, epf->vfunc_no);
	if (features)
		fixed = features->bar_fixed_size[bar];

	if (fixed) {
		if (size > fixed) {
			dev_err(&epf->dev, "BAR%d: %zu bytes exceed fixed %llu\n",
				bar, size, fixed);
			return NULL;
		}
		size = fixed;
	} else {
		size = roundup_pow_of_two(max_t(size_t, size,
						PCI_EPF_MIN_BAR_SIZE));
		size = max(size, align);
	}

	space = dma_alloc_coherent(epc->dev.parent, size, &dma, GFP_KERNEL);
	if (!space)
		return NULL;

	bars[bar].phys_addr = dma;
	bars[bar].addr = space;
	bars[bar].size = size;
	bars[bar].barno = bar;
	if (upper_32_bits(size))
		bars[bar].flags |= PCI_BASE_ADDRESS_MEM_TYPE_64;

	return space;
}
EXPORT_SYMBOL_GPL(pci_epf_alloc_space);

/**
 * pci_epf_free_space() - free the memory from pci_epf_alloc_space()
 * @epf: the function
 * @addr: the address pci_epf_alloc_space() returned; NULL is ignored
 * @bar: the BAR
 * @type: which of the function's controllers the BAR belongs to
 *
 * Also clears the BAR description in @epf. An @addr that is not the BAR's
 * memory is reported and ignored.
 */
void pci_epf_free_space(struct pci_epf *epf, void *addr, enum pci_barno bar,
			enum pci_epc_interface_type type)
{
	struct pci_epf_bar *bars;
	struct pci_epc *epc;
	u8 func_no;

	if (IS_ERR_OR_NULL(epf) || !addr || bar < BAR_0 || bar > BAR_5)
		return;
	if (!pci_epf_interface(epf, type, &epc, &func_no, &bars)) {
		dev_err(&epf->dev, "BAR%d: free while not attached\n", bar);
		return;
	}
	if (bars[bar].addr != addr) {
		dev_err(&epf->dev, "BAR%d: free of memory it does not own\n",
			bar);
		return;
	}

	/* A stray host write into freed memory would corrupt whoever has it. */
	if (bars[bar].keep)
		dev_err(&epf->dev, "BAR%d: the host may still write its %zu bytes at %pad: kept, not freed\n",
			bar, bars[bar].size, &bars[bar].phys_addr);
	else
		dma_free_coherent(epc->dev.parent, bars[bar].size, addr,
				  bars[bar].phys_addr);
	memset(&bars[bar], 0, sizeof(bars[bar]));
}
EXPORT_SYMBOL_GPL(pci_epf_free_space);

static void pci_epf_remove_cfs(struct pci_epf_driver *driver)
{
	struct pci_epf_cfs_dir *dir, *next;

	list_for_each_entry_safe(dir, next, &driver->epf_group, node) {
		pci_ep_cfs_remove_epf_group(dir->group);
		list_del(&dir->node);
		kfree(dir);
	}
}

static int pci_epf_add_cfs_dir(struct pci_epf_driver *driver,
			       const char *name)
{
	struct config_group *group;
	struct pci_epf_cfs_dir *dir;

	group = pci_ep_cfs_add_epf_group(name);
	if (IS_ERR(group))
		return PTR_ERR(group);
	if (!group)		/* configfs support not built */
		return 0;

	dir = kzalloc(sizeof(*dir), GFP_KERNEL);
	if (!dir) {
		pci_ep_cfs_remove_epf_group(group);
		return -ENOMEM;
	}
	dir->group = group;
	list_add_tail(&dir->node, &driver->epf_group);

	return 0;
}

/* functions/<name>/ for every name the driver matches */
static int pci_epf_add_cfs(struct pci_epf_driver *driver)
{
	const struct pci_epf_device_id *id;
	int ret;

	if (!driver->id_table)
		return pci_epf_add_cfs_dir(driver, driver->driver.name);

	for (id = driver->id_table; id->name[0]; id++) {
		ret = pci_epf_add_cfs_dir(driver, id->name);
		if (ret) {
			pci_epf_remove_cfs(driver);
			return ret;
		}
	}

	return 0;
}

/**
 * __pci_epf_register_driver() - register a function driver
 * @driver: the driver; @driver->ops with bind() and unbind() is required
 * @owner: the driver's module
 *
 * Use the pci_epf_register_driver() wrapper. Besides registering with the
 * driver core this creates the configfs directory
 * functions/<name>/ for each name in the id_table, in which users make
 * functions. Binding through sysfs is disabled for these drivers: a
 * function loses its driver only when the function goes away.
 *
 * Return: 0 on success, -EINVAL for an incomplete driver, or an errno from
 * the driver core or configfs.
 */
int __pci_epf_register_driver(struct pci_epf_driver *driver,
			      struct module *owner)
{
	int ret;

	if (!driver || !driver->ops || !driver->ops->bind ||
	    !driver->ops->unbind)
		return -EINVAL;

	driver->owner = owner;
	driver->driver.owner = owner;
	driver->driver.bus = &pci_epf_bus_type;
	driver->driver.suppress_bind_attrs = true;
	INIT_LIST_HEAD(&driver->epf_group);

	ret = driver_register(&driver->driver);
	if (ret)
		return ret;

	ret = pci_epf_add_cfs(driver);
	if (ret) {
		pr_err("pci-epf: %s: configfs setup failed: %d\n",
		       driver->driver.name, ret);
		driver_unregister(&driver->driver);
	}

	return ret;
}
EXPORT_SYMBOL_GPL(__pci_epf_register_driver);

/**
 * pci_epf_unregister_driver() - unregister a function driver
 * @driver: the driver
 *
 * Removes the driver's configfs directories. Functions made in them hold
 * the driver's module, so they are gone by the time a module unloads.
 */
void pci_epf_unregister_driver(struct pci_epf_driver *driver)
{
	if (!driver)
		return;

	pci_epf_remove_cfs(driver);
	driver_unregister(&driver->driver);
}
EXPORT_SYMBOL_GPL(pci_epf_unregister_driver);

static void pci_epf_release(struct device *dev)
{
	struct pci_epf *epf = to_pci_epf(dev);

	kfree(epf->name);
	kfree(epf);
}

static const struct device_type pci_epf_type = {
	.release = pci_epf_release,
};

/**
 * pci_epf_create() - create a function device
 * @name: device name, "<driver name>.<instance>"; the part before the first
 *	  dot selects the driver
 *
 * The device is added to the pci-epf bus right away, so a registered
 * driver that matches has probed it by the time this returns.
 *
 * Return: the function, or an ERR_PTR() on failure.
 */
struct pci_epf *pci_epf_create(const char *name)
{
	struct pci_epf *epf;
	int ret;

	if (!name || !name[0] || name[0] == '.')
		return ERR_PTR(-EINVAL);

	epf = kzalloc(sizeof(*epf), GFP_KERNEL);
	if (!epf)
		return ERR_PTR(-ENOMEM);

	epf->name = kstrndup(name, strcspn(name, "."), GFP_KERNEL);
	if (!epf->name) {
		kfree(epf);
		return ERR_PTR(-ENOMEM);
	}

	mutex_init(&epf->lock);
	INIT_LIST_HEAD(&epf->list);
	INIT_LIST_HEAD(&epf->sec_epc_list);
	INIT_LIST_HEAD(&epf->pci_vepf);
	/* virtual function numbers start at 1 */
	epf->vfunction_num_map = BIT(0);

	device_initialize(&epf->dev);
	epf->dev.bus = &pci_epf_bus_type;
	epf->dev.type = &pci_epf_type;

	ret = dev_set_name(&epf->dev, "%s", name);
	if (!ret)
		ret = device_add(&epf->dev);
	if (ret) {
		put_device(&epf->dev);
		return ERR_PTR(ret);
	}

	return epf;
}
EXPORT_SYMBOL_GPL(pci_epf_create);

/*
 * Undo whatever still ties @epf to controllers and other functions, so that
 * no list keeps a pointer to it once it is freed.
 */
static void pci_epf_detach_all(struct pci_epf *epf)
{
	struct pci_epf *vf;

	if (!epf->epc && !epf->sec_epc && !epf->epf_pf &&
	    list_empty(&epf->pci_vepf))
		return;

	dev_warn(&epf->dev, "destroyed while still attached\n");

	while (epf->bind_count)
		pci_epf_unbind(epf);
	pci_epc_remove_epf(epf->epc, epf, PRIMARY_INTERFACE);
	pci_epc_remove_epf(epf->sec_epc, epf, SECONDARY_INTERFACE);
	pci_epf_remove_vepf(epf->epf_pf, epf);

	while ((vf = list_first_entry_or_null(&epf->pci_vepf, struct pci_epf,
					      list)))
		pci_epf_remove_vepf(epf, vf);
}

/**
 * pci_epf_destroy() - remove a function device
 * @epf: the function, from pci_epf_create()
 *
 * The function should be unbound and detached already; if it is not, that
 * is done here (with a warning) before the device goes.
 */
void pci_epf_destroy(struct pci_epf *epf)
{
	if (IS_ERR_OR_NULL(epf))
		return;

	pci_epf_detach_all(epf);
	device_unregister(&epf->dev);
}
EXPORT_SYMBOL_GPL(pci_epf_destroy);

static int pci_epf_bus_match(struct device *dev, struct device_driver *drv)
{
	struct pci_epf_driver *driver = to_pci_epf_driver(drv);
	struct pci_epf *epf = to_pci_epf(dev);
	const struct pci_epf_device_id *id;

	if (!driver->id_table)
		return !strcmp(epf->name, drv->name);

	for (id = driver->id_table; id->name[0]; id++)
		if (!strcmp(epf->name, id->name))
			return 1;

	return 0;
}

static int pci_epf_bus_probe(struct device *dev)
{
	struct pci_epf_driver *driver = to_pci_epf_driver(dev->driver);
	struct pci_epf *epf = to_pci_epf(dev);
	int ret;

	if (!driver->probe)
		return -ENODEV;

	/* the driver's probe() may already look at epf->driver */
	epf->driver = driver;
	ret = driver->probe(epf);
	if (ret)
		epf->driver = NULL;

	return ret;
}

static void pci_epf_bus_remove(struct device *dev)
{
	struct pci_epf_driver *driver = to_pci_epf_driver(dev->driver);
	struct pci_epf *epf = to_pci_epf(dev);

	if (driver->remove)
		driver->remove(epf);
	epf->driver = NULL;
}

static struct bus_type pci_epf_bus_type = {
	.name	= "pci-epf",
	.match	= pci_epf_bus_match,
	.probe	= pci_epf_bus_probe,
	.remove	= pci_epf_bus_remove,
};

static int __init pci_epf_core_init(void)
{
	int ret = bus_register(&pci_epf_bus_type);

	if (ret)
		pr_err("pci-epf: cannot register bus: %d\n", ret);

	return ret;
}

/* before function drivers, which register at device_initcall time */
subsys_initcall(pci_epf_core_init);
