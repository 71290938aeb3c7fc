// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the attributes of a function's configfs directory.
 *
 * The suite makes a driver directory of its own,
 * functions/pci_epf_kunit.cfs/, and a function in it through the
 * directory's own make_group(), as mkdir would: the function device is
 * "pci_epf_kunit.cfs.<n>" and, as the part of its name before the first dot
 * says, the fake function driver probes it. The attributes are then read
 * and written through the show() and store() methods configfs would call.
 */

#include <linux/configfs.h>
#include <linux/gfp.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/pci-ep-cfs.h>
#include <linux/string.h>

#include "pci-ep-kunit.h"

#define EPK_CFS_DIR	PCI_EP_KUNIT_DRIVER ".cfs"

struct epk_cfs {
	struct config_group	*dir;
	struct config_group	*fn;
	struct pci_epf		*epf;
	char			*page;
};

static void epk_cfs_remove_dir(void *group)
{
	pci_ep_cfs_remove_epf_group(group);
}

static void epk_cfs_drop_fn(void *data)
{
	struct epk_cfs *c = data;

	c->dir->cg_item.ci_type->ct_group_ops->drop_item(c->dir,
							 &c->fn->cg_item);
}

static void epk_cfs_free_page(void *page)
{
	free_page((unsigned long)page);
}

static int epk_cfs_case_init(struct kunit *test)
{
	struct epk_cfs *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct configfs_group_operations *ops;

	KUNIT_ASSERT_NOT_NULL(test, c);
	test->priv = c;

	/* show() writes a whole page, which must be page aligned */
	c->page = (char *)get_zeroed_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->page);
	KUNIT_ASSERT_EQ(test, pci_ep_kunit_defer(test, epk_cfs_free_page,
						 c->page), 0);

	c->dir = pci_ep_cfs_add_epf_group(EPK_CFS_DIR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->dir);
	KUNIT_ASSERT_EQ(test, pci_ep_kunit_defer(test, epk_cfs_remove_dir,
						 c->dir), 0);

	ops = c->dir->cg_item.ci_type->ct_group_ops;
	KUNIT_ASSERT_TRUE(test, ops && ops->make_group && ops->drop_item);
	pci_ep_kunit_last_epf = NULL;
	c->fn = ops->make_group(c->dir, "f0");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->fn);
	KUNIT_ASSERT_EQ(test, pci_ep_kunit_defer(test, epk_cfs_drop_fn, c), 0);

	c->epf = pci_ep_kunit_last_epf;
	KUNIT_ASSERT_NOT_NULL(test, c->epf);
	KUNIT_ASSERT_PTR_EQ(test, c->epf->group, c->fn);
	KUNIT_ASSERT_NOT_NULL(test, c->epf->header);
	return 0;
}

static struct configfs_attribute *epk_cfs_attr(struct kunit *test,
					       const char *name)
{
	struct epk_cfs *c = test->priv;
	struct configfs_attribute **attr;

	for (attr = c->fn->cg_item.ci_type->ct_attrs; attr && *attr; attr++)
		if (!strcmp((*attr)->ca_name, name))
			return *attr;

	KUNIT_FAIL(test, "no attribute %s", name);
	return NULL;
}

static ssize_t epk_store(struct kunit *test, struct configfs_attribute *attr,
			 const char *val)
{
	struct epk_cfs *c = test->priv;

	return attr->store(&c->fn->cg_item, val, strlen(val));
}

static const char *epk_show(struct kunit *test,
			    struct configfs_attribute *attr)
{
	struct epk_cfs *c = test->priv;
	ssize_t len;

	memset(c->page, 0, PAGE_SIZE);
	len = attr->show(&c->fn->cg_item, c->page);
	KUNIT_EXPECT_GT_MSG(test, len, 0, "show of %s", attr->ca_name);
	return c->page;
}

/* How one attribute must behave. */
struct epk_attr {
	const char	*name;
	unsigned int	min;
	unsigned int	max;
	/* header fields show in hex, vector counts in decimal */
	bool		hex;
	unsigned int	(*get)(struct pci_epf *epf);
};

static unsigned int epk_get_vendorid(struct pci_epf *epf)
{
	return epf->header->vendorid;
}

static unsigned int epk_get_deviceid(struct pci_epf *epf)
{
	return epf->header->deviceid;
}

static unsigned int epk_get_revid(struct pci_epf *epf)
{
	return epf->header->revid;
}

static unsigned int epk_get_progif_code(struct pci_epf *epf)
{
	return epf->header->progif_code;
}

static unsigned int epk_get_subclass_code(struct pci_epf *epf)
{
	return epf->header->subclass_code;
}

static unsigned int epk_get_baseclass_code(struct pci_epf *epf)
{
	return epf->header->baseclass_code;
}

static unsigned int epk_get_cache_line_size(struct pci_epf *epf)
{
	return epf->header->cache_line_size;
}

static unsigned int epk_get_subsys_vendor_id(struct pci_epf *epf)
{
	return epf->header->subsys_vendor_id;
}

static unsigned int epk_get_subsys_id(struct pci_epf *epf)
{
	return epf->header->subsys_id;
}

static unsigned int epk_get_interrupt_pin(struct pci_epf *epf)
{
	return epf->header->interrupt_pin;
}

static unsigned int epk_get_msi_interrupts(struct pci_epf *epf)
{
	return epf->msi_interrupts;
}

static unsigned int epk_get_msix_interrupts(struct pci_epf *epf)
{
	return epf->msix_interrupts;
}

#define EPK_ATTR(_name, _min, _max, _hex)				\
	{ .name = #_name, .min = (_min), .max = (_max), .hex = (_hex),	\
	  .get = epk_get_##_name }

static const struct epk_attr epk_attrs[] = {
	EPK_ATTR(vendorid, 0, U16_MAX, true),
	EPK_ATTR(deviceid, 0, U16_MAX, true),
	EPK_ATTR(revid, 0, U8_MAX, true),
	EPK_ATTR(progif_code, 0, U8_MAX, true),
	EPK_ATTR(subclass_code, 0, U8_MAX, true),
	EPK_ATTR(baseclass_code, 0, U8_MAX, true),
	EPK_ATTR(cache_line_size, 0, U8_MAX, true),
	EPK_ATTR(subsys_vendor_id, 0, U16_MAX, true),
	EPK_ATTR(subsys_id, 0, U16_MAX, true),
	EPK_ATTR(interrupt_pin, 0, PCI_INTERRUPT_INTD, true),
	EPK_ATTR(msi_interrupts, 1, 32, false),
	EPK_ATTR(msix_interrupts, 1, 2048, false),
};

/* Store @val, which must be taken as @want: stored, and shown back. */
static void epk_good(struct kunit *test, const struct epk_attr *a,
		     struct configfs_attribute *attr, const char *val,
		     unsigned int want)
{
	struct epk_cfs *c = test->priv;
	char shown[16];

	KUNIT_EXPECT_EQ_MSG(test, epk_store(test, attr, val),
			    (ssize_t)strlen(val), "%s <- \"%s\"", a->name,
			    val);
	KUNIT_EXPECT_EQ_MSG(test, a->get(c->epf), want, "%s <- \"%s\"",
			    a->name, val);
	snprintf(shown, sizeof(shown), a->hex ? "0x%04x\n" : "%u\n", want);
	KUNIT_EXPECT_STREQ_MSG(test, epk_show(test, attr), shown,
			       "%s after \"%s\"", a->name, val);
}

/* Store @val, which must be refused, leaving the value @keep alone. */
static void epk_bad(struct kunit *test, const struct epk_attr *a,
		    struct configfs_attribute *attr, const char *val,
		    unsigned int keep)
{
	struct epk_cfs *c = test->priv;

	KUNIT_EXPECT_EQ_MSG(test, epk_store(test, attr, val), (ssize_t)-EINVAL,
			    "%s <- \"%s\"", a->name, val);
	KUNIT_EXPECT_EQ_MSG(test, a->get(c->epf), keep, "%s after \"%s\"",
			    a->name, val);
}

static void epk_cfs_check(struct kunit *test, const char *name)
{
	static const char * const garbage[] = {
		"", "\n", "abc", "12abc", "0x", "1.5", "0x1g",	/* no number */
		"-1", "-0", "-0x10",				/* negative */
		"4294967296", "0x100000000",			/* overflow */
		"99999999999999999999999",
	};
	const struct epk_attr *a = NULL;
	struct configfs_attribute *attr;
	unsigned int i, mid;
	char val[24];

	for (i = 0; i < ARRAY_SIZE(epk_attrs); i++)
		if (!strcmp(epk_attrs[i].name, name))
			a = &epk_attrs[i];
	KUNIT_ASSERT_NOT_NULL(test, a);
	attr = epk_cfs_attr(test, name);
	KUNIT_ASSERT_NOT_NULL(test, attr);

	/* the limits and a value between, in every base, as echo writes */
	snprintf(val, sizeof(val), "%u", a->min);
	epk_good(test, a, attr, val, a->min);
	snprintf(val, sizeof(val), "0x%x\n", a->max);
	epk_good(test, a, attr, val, a->max);
	mid = a->min + (a->max - a->min) / 2;
	snprintf(val, sizeof(val), "0%o", mid);
	epk_good(test, a, attr, val, mid);
	snprintf(val, sizeof(val), "%u\n", mid + 1);
	epk_good(test, a, attr, val, mid + 1);
	snprintf(val, sizeof(val), "0X%X", mid);
	epk_good(test, a, attr, val, mid);

	/* the value stays what it was after each refusal */
	for (i = 0; i < ARRAY_SIZE(garbage); i++)
		epk_bad(test, a, attr, garbage[i], mid);
	snprintf(val, sizeof(val), "%u", a->max + 1);
	epk_bad(test, a, attr, val, mid);
	snprintf(val, sizeof(val), "0x%x\n", a->max + 1);
	epk_bad(test, a, attr, val, mid);
	if (a->min) {
		snprintf(val, sizeof(val), "%u", a->min - 1);
		epk_bad(test, a, attr, val, mid);
	}
}

#define EPK_CFS_CASE(_name)						\
static void epk_cfs_##_name(struct kunit *test)				\
{									\
	epk_cfs_check(test, #_name);					\
}

EPK_CFS_CASE(vendorid)
EPK_CFS_CASE(deviceid)
EPK_CFS_CASE(revid)
EPK_CFS_CASE(progif_code)
EPK_CFS_CASE(subclass_code)
EPK_CFS_CASE(baseclass_code)
EPK_CFS_CASE(cache_line_size)
EPK_CFS_CASE(subsys_vendor_id)
EPK_CFS_CASE(subsys_id)
EPK_CFS_CASE(interrupt_pin)
EPK_CFS_CASE(msi_interrupts)
EPK_CFS_CASE(msix_interrupts)

static void epk_cfs_every_attribute(struct kunit *test)
{
	struct epk_cfs *c = test->priv;
	struct configfs_attribute **attr = c->fn->cg_item.ci_type->ct_attrs;
	unsigned int i, n = 0;

	KUNIT_ASSERT_NOT_NULL(test, attr);
	for (; *attr; attr++, n++) {
		KUNIT_EXPECT_NOT_NULL(test, (*attr)->show);
		KUNIT_EXPECT_NOT_NULL(test, (*attr)->store);
		KUNIT_EXPECT_EQ_MSG(test, (*attr)->ca_mode, (umode_t)0644,
				    "%s", (*attr)->ca_name);
	}
	KUNIT_EXPECT_EQ(test, n, (unsigned int)ARRAY_SIZE(epk_attrs));
	for (i = 0; i < ARRAY_SIZE(epk_attrs); i++)
		KUNIT_EXPECT_NOT_NULL(test, epk_cfs_attr(test,
							 epk_attrs[i].name));
}

static void epk_cfs_function_device(struct kunit *test)
{
	struct epk_cfs *c = test->priv;
	unsigned int removes = pci_ep_kunit_removes;
	struct config_group *sub;
	unsigned int groups = 0;

	KUNIT_EXPECT_STREQ(test, config_item_name(&c->fn->cg_item), "f0");
	KUNIT_EXPECT_EQ(test, strncmp(dev_name(&c->epf->dev),
				      EPK_CFS_DIR ".", strlen(EPK_CFS_DIR) + 1),
			0);
	KUNIT_EXPECT_STREQ(test, c->epf->name, PCI_EP_KUNIT_DRIVER);
	KUNIT_EXPECT_PTR_EQ(test, c->epf->driver, &pci_ep_kunit_driver);

	list_for_each_entry(sub, &c->fn->default_groups, group_entry) {
		const char *name = config_item_name(&sub->cg_item);

		KUNIT_EXPECT_TRUE_MSG(test, !strcmp(name, "primary") ||
				      !strcmp(name, "secondary"), "%s", name);
		groups++;
	}
	KUNIT_EXPECT_EQ(test, groups, 2U);

	/* rmdir destroys the function device */
	KUNIT_EXPECT_TRUE(test, pci_ep_kunit_run_now(test, epk_cfs_drop_fn, c));
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_removes, removes + 1);
}

static void epk_cfs_header_missing(struct kunit *test)
{
	struct epk_cfs *c = test->priv;
	struct pci_epf_header *hdr = c->epf->header;
	struct configfs_attribute *vendorid = epk_cfs_attr(test, "vendorid");
	struct configfs_attribute *msi = epk_cfs_attr(test, "msi_interrupts");

	KUNIT_ASSERT_NOT_NULL(test, vendorid);
	KUNIT_ASSERT_NOT_NULL(test, msi);

	/* a driver that provides no header: nothing to show or store */
	c->epf->header = NULL;
	KUNIT_EXPECT_EQ(test, epk_store(test, vendorid, "0x104c"),
			(ssize_t)-EINVAL);
	KUNIT_EXPECT_EQ(test, vendorid->show(&c->fn->cg_item, c->page),
			(ssize_t)-EINVAL);
	/* the vector counts are not in the header */
	KUNIT_EXPECT_EQ(test, epk_store(test, msi, "4"), 1);
	c->epf->header = hdr;
	KUNIT_EXPECT_EQ(test, c->epf->msi_interrupts, 4);
	KUNIT_EXPECT_EQ(test, hdr->vendorid, 0);
}

static void epk_cfs_unknown_driver(struct kunit *test)
{
	struct config_group *dir, *fn;
	unsigned int probes = pci_ep_kunit_probes;

	/* no driver matches the directory's name: mkdir fails */
	dir = pci_ep_cfs_add_epf_group(PCI_EP_KUNIT_DRIVER "_none");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dir);
	KUNIT_ASSERT_EQ(test, pci_ep_kunit_defer(test, epk_cfs_remove_dir, dir),
			0);
	fn = dir->cg_item.ci_type->ct_group_ops->make_group(dir, "f0");
	KUNIT_EXPECT_EQ(test, PTR_ERR(fn), -ENODEV);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_probes, probes);

	/* and a name taken by another driver is refused */
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(pci_ep_cfs_add_epf_group(PCI_EP_KUNIT_DRIVER)),
			-EEXIST);
}

static struct kunit_case epk_cfs_cases[] = {
	KUNIT_CASE(epk_cfs_vendorid),
	KUNIT_CASE(epk_cfs_deviceid),
	KUNIT_CASE(epk_cfs_revid),
	KUNIT_CASE(epk_cfs_progif_code),
	KUNIT_CASE(epk_cfs_subclass_code),
	KUNIT_CASE(epk_cfs_baseclass_code),
	KUNIT_CASE(epk_cfs_cache_line_size),
	KUNIT_CASE(epk_cfs_subsys_vendor_id),
	KUNIT_CASE(epk_cfs_subsys_id),
	KUNIT_CASE(epk_cfs_interrupt_pin),
	KUNIT_CASE(epk_cfs_msi_interrupts),
	KUNIT_CASE(epk_cfs_msix_interrupts),
	KUNIT_CASE(epk_cfs_every_attribute),
	KUNIT_CASE(epk_cfs_function_device),
	KUNIT_CASE(epk_cfs_header_missing),
	KUNIT_CASE(epk_cfs_unknown_driver),
	{ }
};

static struct kunit_suite epk_cfs_suite = {
	.name = "pci_ep_cfs_attrs",
	.suite_init = pci_ep_kunit_driver_init,
	.suite_exit = pci_ep_kunit_driver_exit,
	.init = epk_cfs_case_init,
	.test_cases = epk_cfs_cases,
};

kunit_test_suite(epk_cfs_suite);
