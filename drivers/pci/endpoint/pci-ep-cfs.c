// SPDX-License-Identifier: GPL-2.0
/*
 * configfs interface of the PCI endpoint framework.
 *
 *   pci_ep/functions/<driver>/		one per name a function driver matches
 *   pci_ep/functions/<driver>/<fn>/	mkdir makes a function device
 *	vendorid ... msix_interrupts	its configuration header and vectors
 *	primary/ secondary/		link a controller here to attach the
 *					function through that interface
 *	<link to another function>	makes that one a virtual function
 *   pci_ep/controllers/<epc>/		one per registered controller
 *	start				write 1 to start the link, 0 to stop
 *	<link to a function>		attaches it as its primary interface
 *
 * A link attaches and binds a function, removing the link unbinds and
 * detaches it. configfs itself refuses to remove a function directory that
 * is the target of a link (-EBUSY) or that holds links (-ENOTEMPTY), so a
 * function is always detached before its device is destroyed.
 *
 * pci_ep_cfs_mutex serialises linking, unlinking, starting and stopping
 * across all directories: the VFS only serialises operations within one
 * directory, and a function can be linked from two.
 */

#include <linux/configfs.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <linux/pci-epc.h>
#include <linux/pci-epf.h>
#include <linux/pci-ep-cfs.h>

static DEFINE_MUTEX(pci_ep_cfs_mutex);
static DEFINE_IDA(pci_ep_cfs_ida);
static struct config_group *pci_ep_cfs_functions;
static struct config_group *pci_ep_cfs_controllers;

/* pci_ep/controllers/<epc>/ */
struct pci_ep_cfs_epc {
	struct config_group	group;
	struct pci_epc		*epc;
	bool			started;
	/* the controller is being destroyed: refuse links and start */
	bool			gone;
};

/* pci_ep/functions/<driver>/<fn>/ */
struct pci_ep_cfs_epf {
	struct config_group	group;
	struct config_group	primary;
	struct config_group	secondary;
	struct pci_epf		*epf;
	/* the function driver's module, pinned while the directory exists */
	struct module		*owner;
	int			instance;
};

static const struct config_item_type pci_ep_cfs_epc_type;
static const struct config_item_type pci_ep_cfs_epf_type;

static struct pci_ep_cfs_epc *to_cfs_epc(struct config_item *item)
{
	return container_of(to_config_group(item), struct pci_ep_cfs_epc,
			    group);
}

static struct pci_ep_cfs_epf *to_cfs_epf(struct config_item *item)
{
	return container_of(to_config_group(item), struct pci_ep_cfs_epf,
			    group);
}

/* configfs lets users link anything; only our own directories will do */
static bool pci_ep_cfs_is_epc(struct config_item *item)
{
	return item && item->ci_type == &pci_ep_cfs_epc_type;
}

static bool pci_ep_cfs_is_epf(struct config_item *item)
{
	return item && item->ci_type == &pci_ep_cfs_epf_type;
}

static int pci_ep_cfs_attach(struct pci_ep_cfs_epc *cfs_epc,
			     struct pci_ep_cfs_epf *cfs_epf,
			     enum pci_epc_interface_type type)
{
	struct pci_epf *epf = cfs_epf->epf;
	int ret;

	mutex_lock(&pci_ep_cfs_mutex);
	if (cfs_epc->gone) {
		ret = -ENODEV;
		goto out;
	}

	ret = pci_epc_add_epf(cfs_epc->epc, epf, type);
	if (ret)
		goto out;

	ret = pci_epf_bind(epf);
	if (ret) {
		dev_err(&epf->dev, "bind to %s failed: %d\n",
			dev_name(&cfs_epc->epc->dev), ret);
		pci_epc_remove_epf(cfs_epc->epc, epf, type);
	}
out:
	mutex_unlock(&pci_ep_cfs_mutex);
	return ret;
}

static bool pci_ep_cfs_epc_has_functions(struct pci_epc *epc)
{
	bool any;

	mutex_lock(&epc->list_lock);
	any = !list_empty(&epc->pci_epf) || !list_empty(&epc->sec_pci_epf);
	mutex_unlock(&epc->list_lock);

	return any;
}

static void pci_ep_cfs_detach(struct pci_ep_cfs_epc *cfs_epc,
			      struct pci_ep_cfs_epf *cfs_epf,
			      enum pci_epc_interface_type type)
{
	struct pci_epf *epf = cfs_epf->epf;
	struct pci_epc *epc = cfs_epc->epc;

	mutex_lock(&pci_ep_cfs_mutex);
	/* a controller being destroyed has detached its functions itself */
	if (cfs_epc->gone)
		goto out;

	if (cfs_epc->started)
		dev_warn(&epc->dev, "%s unlinked while the link is started\n",
			 dev_name(&epf->dev));

	pci_epf_unbind(epf);
	pci_epc_remove_epf(epc, epf, type);

	/* a started controller without functions would serve nothing */
	if (cfs_epc->started && !pci_ep_cfs_epc_has_functions(epc)) {
		pci_epc_stop(epc);
		cfs_epc->started = false;
	}
out:
	mutex_unlock(&pci_ep_cfs_mutex);
}

static int pci_ep_cfs_epc_link(struct config_item *epc_item,
			       struct config_item *target)
{
	if (!pci_ep_cfs_is_epf(target))
		return -EINVAL;

	return pci_ep_cfs_attach(to_cfs_epc(epc_item), to_cfs_epf(target),
				 PRIMARY_INTERFACE);
}

static void pci_ep_cfs_epc_unlink(struct config_item *epc_item,
				  struct config_item *target)
{
	pci_ep_cfs_detach(to_cfs_epc(epc_item), to_cfs_epf(target),
			  PRIMARY_INTERFACE);
}

static ssize_t pci_ep_cfs_epc_start_show(struct config_item *item,
					 char *page)
{
	return sysfs_emit(page, "%d\n", to_cfs_epc(item)->started);
}

static ssize_t pci_ep_cfs_epc_start_store(struct config_item *item,
					  const char *page, size_t len)
{
	struct pci_ep_cfs_epc *cfs_epc = to_cfs_epc(item);
	struct pci_epc *epc = cfs_epc->epc;
	bool start;
	int ret = 0;

	if (kstrtobool(page, &start))
		return -EINVAL;

	mutex_lock(&pci_ep_cfs_mutex);
	if (cfs_epc->gone) {
		ret = -ENODEV;
	} else if (start == cfs_epc->started) {
		/* already in the requested state */
	} else if (!start) {
		pci_epc_stop(epc);
		cfs_epc->started = false;
	} else if (!pci_ep_cfs_epc_has_functions(epc)) {
		dev_err(&epc->dev, "not started: no function is linked\n");
		ret = -ENODEV;
	} else {
		ret = pci_epc_start(epc);
		if (ret)
			dev_err(&epc->dev, "start failed: %d\n", ret);
		else
			cfs_epc->started = true;
	}
	mutex_unlock(&pci_ep_cfs_mutex);

	return ret ? ret : len;
}

CONFIGFS_ATTR(pci_ep_cfs_epc_, start);

static struct configfs_attribute *pci_ep_cfs_epc_attrs[] = {
	&pci_ep_cfs_epc_attr_start,
	NULL,
};

static void pci_ep_cfs_epc_release(struct config_item *item)
{
	struct pci_ep_cfs_epc *cfs_epc = to_cfs_epc(item);

	put_device(&cfs_epc->epc->dev);
	kfree(cfs_epc);
}

static struct configfs_item_operations pci_ep_cfs_epc_item_ops = {
	.allow_link	= pci_ep_cfs_epc_link,
	.drop_link	= pci_ep_cfs_epc_unlink,
	.release	= pci_ep_cfs_epc_release,
};

static const struct config_item_type pci_ep_cfs_epc_type = {
	.ct_item_ops	= &pci_ep_cfs_epc_item_ops,
	.ct_attrs	= pci_ep_cfs_epc_attrs,
	.ct_owner	= THIS_MODULE,
};

/**
 * pci_ep_cfs_add_epc_group() - make controllers/<name>/ for a controller
 * @name: name of a registered controller
 *
 * Called by pci_epc_create(). The directory holds a reference on the
 * controller device, not on its module: the controller module stays
 * removable while no function is linked.
 *
 * Return: the directory's group, or an ERR_PTR() on failure.
 */
struct config_group *pci_ep_cfs_add_epc_group(const char *name)
{
	struct pci_ep_cfs_epc *cfs_epc;
	struct pci_epc *epc;
	int ret;

	if (!pci_ep_cfs_controllers)
		return ERR_PTR(-ENODEV);

	/* pci_epc_get() pins the module too; keep only the device */
	epc = pci_epc_get(name);
	if (IS_ERR(epc))
		return ERR_CAST(epc);
	get_device(&epc->dev);
	pci_epc_put(epc);

	cfs_epc = kzalloc(sizeof(*cfs_epc), GFP_KERNEL);
	if (!cfs_epc) {
		put_device(&epc->dev);
		return ERR_PTR(-ENOMEM);
	}
	cfs_epc->epc = epc;

	config_group_init_type_name(&cfs_epc->group, name,
				    &pci_ep_cfs_epc_type);
	ret = configfs_register_group(pci_ep_cfs_controllers,
				      &cfs_epc->group);
	if (ret) {
		pr_err("pci_ep: cannot add controllers/%s: %d\n", name, ret);
		/* drops the initial reference: release frees cfs_epc */
		config_group_put(&cfs_epc->group);
		return ERR_PTR(ret);
	}

	return &cfs_epc->group;
}
EXPORT_SYMBOL_GPL(pci_ep_cfs_add_epc_group);

/**
 * pci_ep_cfs_remove_epc_group() - remove a controller's directory
 * @group: what pci_ep_cfs_add_epc_group() returned; NULL is ignored
 *
 * Stops the link if it was started from configfs and refuses further links
 * and starts; pci_epc_destroy() detaches the functions that remain. Links
 * to this directory from functions' primary/ or secondary/ directories
 * keep its memory until they are removed.
 */
void pci_ep_cfs_remove_epc_group(struct config_group *group)
{
	struct pci_ep_cfs_epc *cfs_epc;

	if (IS_ERR_OR_NULL(group))
		return;

	cfs_epc = container_of(group, struct pci_ep_cfs_epc, group);

	mutex_lock(&pci_ep_cfs_mutex);
	cfs_epc->gone = true;
	if (cfs_epc->started) {
		pci_epc_stop(cfs_epc->epc);
		cfs_epc->started = false;
	}
	mutex_unlock(&pci_ep_cfs_mutex);

	configfs_unregister_group(group);
	config_group_put(group);
}
EXPORT_SYMBOL_GPL(pci_ep_cfs_remove_epc_group);

/* primary/ and secondary/ inside a function's directory */
static int pci_ep_cfs_iface_link(struct config_item *iface,
				 struct config_item *target,
				 enum pci_epc_interface_type type)
{
	struct pci_ep_cfs_epf *cfs_epf = to_cfs_epf(iface->ci_parent);

	if (!pci_ep_cfs_is_epc(target))
		return -EINVAL;

	return pci_ep_cfs_attach(to_cfs_epc(target), cfs_epf, type);
}

static void pci_ep_cfs_iface_unlink(struct config_item *iface,
				    struct config_item *target,
				    enum pci_epc_interface_type type)
{
	pci_ep_cfs_detach(to_cfs_epc(target), to_cfs_epf(iface->ci_parent),
			  type);
}

static int pci_ep_cfs_primary_link(struct config_item *iface,
				   struct config_item *target)
{
	return pci_ep_cfs_iface_link(iface, target, PRIMARY_INTERFACE);
}

static void pci_ep_cfs_primary_unlink(struct config_item *iface,
				      struct config_item *target)
{
	pci_ep_cfs_iface_unlink(iface, target, PRIMARY_INTERFACE);
}

static int pci_ep_cfs_secondary_link(struct config_item *iface,
				     struct config_item *target)
{
	return pci_ep_cfs_iface_link(iface, target, SECONDARY_INTERFACE);
}

static void pci_ep_cfs_secondary_unlink(struct config_item *iface,
					struct config_item *target)
{
	pci_ep_cfs_iface_unlink(iface, target, SECONDARY_INTERFACE);
}

static struct configfs_item_operations pci_ep_cfs_primary_ops = {
	.allow_link	= pci_ep_cfs_primary_link,
	.drop_link	= pci_ep_cfs_primary_unlink,
};

static struct configfs_item_operations pci_ep_cfs_secondary_ops = {
	.allow_link	= pci_ep_cfs_secondary_link,
	.drop_link	= pci_ep_cfs_secondary_unlink,
};

static const struct config_item_type pci_ep_cfs_primary_type = {
	.ct_item_ops	= &pci_ep_cfs_primary_ops,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type pci_ep_cfs_secondary_type = {
	.ct_item_ops	= &pci_ep_cfs_secondary_ops,
	.ct_owner	= THIS_MODULE,
};

/*
 * Header attributes. Each is shown in hex, as the established how-tos
 * expect, and accepts any base kstrtouint() understands, up to a maximum.
 * Values are written under epf->lock so that a bind() running at the same
 * time sees either the old or the new value. A generated accessor moves
 * the value in or out of the field, whatever the field's type.
 */
typedef void (*pci_ep_cfs_hdr_rw_t)(struct pci_epf_header *hdr,
				    unsigned int *val, bool store);

static ssize_t pci_ep_cfs_hdr_show(struct config_item *item, char *page,
				   pci_ep_cfs_hdr_rw_t rw)
{
	struct pci_epf_header *hdr = to_cfs_epf(item)->epf->header;
	unsigned int val;

	if (!hdr)
		return -EINVAL;

	rw(hdr, &val, false);
	return sysfs_emit(page, "0x%04x\n", val);
}

static ssize_t pci_ep_cfs_hdr_store(struct config_item *item,
				    const char *page, size_t len,
				    unsigned int max, pci_ep_cfs_hdr_rw_t rw)
{
	struct pci_epf *epf = to_cfs_epf(item)->epf;
	unsigned int val;

	if (!epf->header || kstrtouint(page, 0, &val) || val > max)
		return -EINVAL;

	mutex_lock(&epf->lock);
	rw(epf->header, &val, true);
	mutex_unlock(&epf->lock);

	return len;
}

#define PCI_EP_CFS_HDR_ATTR(_field, _max)				\
static void pci_ep_cfs_##_field##_rw(struct pci_epf_header *hdr,	\
				     unsigned int *val, bool store)	\
{									\
	__auto_type field = &(*hdr)._field;				\
									\
	if (store)							\
		*field = *val;						\
	else								\
		*val = *field;						\
}									\
static ssize_t pci_ep_cfs_##_field##_show(struct config_item *item,	\
					  char *page)			\
{									\
	return pci_ep_cfs_hdr_show(item, page, pci_ep_cfs_##_field##_rw); \
}									\
static ssize_t pci_ep_cfs_##_field##_store(struct config_item *item,	\
					   const char *page, size_t len) \
{									\
	return pci_ep_cfs_hdr_store(item, page, len, _max,		\
				    pci_ep_cfs_##_field##_rw);		\
}									\
static struct configfs_attribute pci_ep_cfs_attr_##_field = {		\
	.ca_name	= __stringify(_field),				\
	.ca_mode	= 0644,						\
	.ca_owner	= THIS_MODULE,					\
	.show		= pci_ep_cfs_##_field##_show,			\
	.store		= pci_ep_cfs_##_field##_store,			\
}

PCI_EP_CFS_HDR_ATTR(vendorid, U16_MAX);
PCI_EP_CFS_HDR_ATTR(deviceid, U16_MAX);
PCI_EP_CFS_HDR_ATTR(revid, U8_MAX);
PCI_EP_CFS_HDR_ATTR(progif_code, U8_MAX);
PCI_EP_CFS_HDR_ATTR(subclass_code, U8_MAX);
PCI_EP_CFS_HDR_ATTR(baseclass_code, U8_MAX);
PCI_EP_CFS_HDR_ATTR(cache_line_size, U8_MAX);
PCI_EP_CFS_HDR_ATTR(subsys_vendor_id, U16_MAX);
PCI_EP_CFS_HDR_ATTR(subsys_id, U16_MAX);
PCI_EP_CFS_HDR_ATTR(interrupt_pin, PCI_INTERRUPT_INTD);

static int pci_ep_cfs_parse_range(const char *page, unsigned int min,
				  unsigned int max, unsigned int *val)
{
	if (kstrtouint(page, 0, val) || *val < min || *val > max)
		return -EINVAL;
	return 0;
}

static ssize_t pci_ep_cfs_msi_interrupts_show(struct config_item *item,
					      char *page)
{
	return sysfs_emit(page, "%u\n", to_cfs_epf(item)->epf->msi_interrupts);
}

/* the MSI capability can ask for 1 to 32 vectors */
static ssize_t pci_ep_cfs_msi_interrupts_store(struct config_item *item,
					       const char *page, size_t len)
{
	struct pci_epf *epf = to_cfs_epf(item)->epf;
	unsigned int val;

	if (pci_ep_cfs_parse_range(page, 1, 32, &val))
		return -EINVAL;

	mutex_lock(&epf->lock);
	epf->msi_interrupts = val;
	mutex_unlock(&epf->lock);

	return len;
}

static ssize_t pci_ep_cfs_msix_interrupts_show(struct config_item *item,
					       char *page)
{
	return sysfs_emit(page, "%u\n", to_cfs_epf(item)->epf->msix_interrupts);
}

/* an MSI-X table has 1 to 2048 entries */
static ssize_t pci_ep_cfs_msix_interrupts_store(struct config_item *item,
						const char *page, size_t len)
{
	struct pci_epf *epf = to_cfs_epf(item)->epf;
	unsigned int val;

	if (pci_ep_cfs_parse_range(page, 1, 2048, &val))
		return -EINVAL;

	mutex_lock(&epf->lock);
	epf->msix_interrupts = val;
	mutex_unlock(&epf->lock);

	return len;
}

CONFIGFS_ATTR(pci_ep_cfs_, msi_interrupts);
CONFIGFS_ATTR(pci_ep_cfs_, msix_interrupts);

static struct configfs_attribute *pci_ep_cfs_epf_attrs[] = {
	&pci_ep_cfs_attr_vendorid,
	&pci_ep_cfs_attr_deviceid,
	&pci_ep_cfs_attr_revid,
	&pci_ep_cfs_attr_progif_code,
	&pci_ep_cfs_attr_subclass_code,
	&pci_ep_cfs_attr_baseclass_code,
	&pci_ep_cfs_attr_cache_line_size,
	&pci_ep_cfs_attr_subsys_vendor_id,
	&pci_ep_cfs_attr_subsys_id,
	&pci_ep_cfs_attr_interrupt_pin,
	&pci_ep_cfs_attr_msi_interrupts,
	&pci_ep_cfs_attr_msix_interrupts,
	NULL,
};

/* A link from one function's directory to another adds a virtual function. */
static int pci_ep_cfs_vf_link(struct config_item *pf_item,
			      struct config_item *target)
{
	int ret;

	if (!pci_ep_cfs_is_epf(target))
		return -EINVAL;

	mutex_lock(&pci_ep_cfs_mutex);
	ret = pci_epf_add_vepf(to_cfs_epf(pf_item)->epf,
			       to_cfs_epf(target)->epf);
	mutex_unlock(&pci_ep_cfs_mutex);

	return ret;
}

static void pci_ep_cfs_vf_unlink(struct config_item *pf_item,
				 struct config_item *target)
{
	mutex_lock(&pci_ep_cfs_mutex);
	pci_epf_remove_vepf(to_cfs_epf(pf_item)->epf, to_cfs_epf(target)->epf);
	mutex_unlock(&pci_ep_cfs_mutex);
}

static void pci_ep_cfs_epf_release(struct config_item *item)
{
	struct pci_ep_cfs_epf *cfs_epf = to_cfs_epf(item);

	pci_epf_destroy(cfs_epf->epf);
	ida_free(&pci_ep_cfs_ida, cfs_epf->instance);
	module_put(cfs_epf->owner);
	kfree(cfs_epf);
}

static struct configfs_item_operations pci_ep_cfs_epf_item_ops = {
	.allow_link	= pci_ep_cfs_vf_link,
	.drop_link	= pci_ep_cfs_vf_unlink,
	.release	= pci_ep_cfs_epf_release,
};

static const struct config_item_type pci_ep_cfs_epf_type = {
	.ct_item_ops	= &pci_ep_cfs_epf_item_ops,
	.ct_attrs	= pci_ep_cfs_epf_attrs,
	.ct_owner	= THIS_MODULE,
};

/*
 * Create the function device "<driver>.<instance>" for a new directory and
 * pin its driver's module. Fails unless a driver took the device: a
 * function nobody drives could never be bound.
 */
static int pci_ep_cfs_new_epf(struct pci_ep_cfs_epf *cfs_epf,
			      const char *driver_name)
{
	struct pci_epf *epf;
	char *dev_name;

	dev_name = kasprintf(GFP_KERNEL, "%s.%d", driver_name,
			     cfs_epf->instance);
	if (!dev_name)
		return -ENOMEM;
	epf = pci_epf_create(dev_name);
	kfree(dev_name);
	if (IS_ERR(epf))
		return PTR_ERR(epf);

	if (!epf->driver || !try_module_get(epf->driver->owner)) {
		pci_epf_destroy(epf);
		return -ENODEV;
	}

	cfs_epf->owner = epf->driver->owner;
	cfs_epf->epf = epf;
	epf->group = &cfs_epf->group;
	return 0;
}

static struct config_group *pci_ep_cfs_make_epf(struct config_group *parent,
						const char *name)
{
	struct pci_ep_cfs_epf *cfs_epf;
	struct config_group *extra;
	int ret;

	cfs_epf = kzalloc(sizeof(*cfs_epf), GFP_KERNEL);
	if (!cfs_epf)
		return ERR_PTR(-ENOMEM);

	ret = ida_alloc(&pci_ep_cfs_ida, GFP_KERNEL);
	if (ret < 0)
		goto free;
	cfs_epf->instance = ret;

	ret = pci_ep_cfs_new_epf(cfs_epf, config_item_name(&parent->cg_item));
	if (ret)
		goto free_id;

	config_group_init_type_name(&cfs_epf->group, name,
				    &pci_ep_cfs_epf_type);
	config_group_init_type_name(&cfs_epf->primary, "primary",
				    &pci_ep_cfs_primary_type);
	configfs_add_default_group(&cfs_epf->primary, &cfs_epf->group);
	config_group_init_type_name(&cfs_epf->secondary, "secondary",
				    &pci_ep_cfs_secondary_type);
	configfs_add_default_group(&cfs_epf->secondary, &cfs_epf->group);

	extra = pci_epf_type_add_cfs(cfs_epf->epf, &cfs_epf->group);
	if (IS_ERR(extra)) {
		ret = PTR_ERR(extra);
		dev_err(&cfs_epf->epf->dev, "driver attributes failed: %d\n",
			ret);
		/* frees everything through pci_ep_cfs_epf_release() */
		config_group_put(&cfs_epf->group);
		return ERR_PTR(ret);
	}
	if (extra)
		configfs_add_default_group(extra, &cfs_epf->group);

	return &cfs_epf->group;

free_id:
	ida_free(&pci_ep_cfs_ida, cfs_epf->instance);
free:
	kfree(cfs_epf);
	return ERR_PTR(ret);
}

static void pci_ep_cfs_drop_epf(struct config_group *parent,
				struct config_item *item)
{
	config_item_put(item);
}

static struct configfs_group_operations pci_ep_cfs_driver_ops = {
	.make_group	= pci_ep_cfs_make_epf,
	.drop_item	= pci_ep_cfs_drop_epf,
};

static const struct config_item_type pci_ep_cfs_driver_type = {
	.ct_group_ops	= &pci_ep_cfs_driver_ops,
	.ct_owner	= THIS_MODULE,
};

/**
 * pci_ep_cfs_add_epf_group() - make functions/<name>/ for a function driver
 * @name: a name the driver matches
 *
 * Called by pci_epf_register_driver() for every entry of the driver's
 * id_table.
 *
 * Return: the directory's group, or an ERR_PTR() on failure (-EEXIST when
 * another driver already claimed @name).
 */
struct config_group *pci_ep_cfs_add_epf_group(const char *name)
{
	struct config_group *group;

	if (!pci_ep_cfs_functions)
		return ERR_PTR(-ENODEV);

	group = configfs_register_default_group(pci_ep_cfs_functions, name,
						&pci_ep_cfs_driver_type);
	if (IS_ERR(group))
		pr_err("pci_ep: cannot add functions/%s: %ld\n", name,
		       PTR_ERR(group));

	return group;
}
EXPORT_SYMBOL_GPL(pci_ep_cfs_add_epf_group);

/**
 * pci_ep_cfs_remove_epf_group() - remove a function driver's directory
 * @group: what pci_ep_cfs_add_epf_group() returned; NULL is ignored
 */
void pci_ep_cfs_remove_epf_group(struct config_group *group)
{
	if (IS_ERR_OR_NULL(group))
		return;

	configfs_unregister_default_group(group);
}
EXPORT_SYMBOL_GPL(pci_ep_cfs_remove_epf_group);

static const struct config_item_type pci_ep_cfs_plain_type = {
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem pci_ep_cfs_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "pci_ep",
			.ci_type	= &pci_ep_cfs_plain_type,
		},
	},
	.su_mutex = __MUTEX_INITIALIZER(pci_ep_cfs_subsys.su_mutex),
};

static int __init pci_ep_cfs_init(void)
{
	struct config_group *root = &pci_ep_cfs_subsys.su_group;
	struct config_group *group;
	int ret;

	config_group_init(root);
	ret = configfs_register_subsystem(&pci_ep_cfs_subsys);
	if (ret)
		goto err;

	group = configfs_register_default_group(root, "functions",
						&pci_ep_cfs_plain_type);
	if (IS_ERR(group)) {
		ret = PTR_ERR(group);
		goto err_subsys;
	}
	pci_ep_cfs_functions = group;

	group = configfs_register_default_group(root, "controllers",
						&pci_ep_cfs_plain_type);
	if (IS_ERR(group)) {
		ret = PTR_ERR(group);
		goto err_functions;
	}
	pci_ep_cfs_controllers = group;

	return 0;

err_functions:
	configfs_unregister_default_group(pci_ep_cfs_functions);
	pci_ep_cfs_functions = NULL;
err_subsys:
	configfs_unregister_subsystem(&pci_ep_cfs_subsys);
err:
	pr_err("pci_ep: configfs setup failed: %d\n", ret);
	return ret;
}

/* after configfs itself, before controllers and function drivers */
fs_initcall(pci_ep_cfs_init);
