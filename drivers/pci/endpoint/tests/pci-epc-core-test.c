// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the EPC core: controller lifetime and references,
 * attaching functions and their function numbers, and the checks the
 * pci_epc_*() helpers make before a controller callback runs.
 */

#include <linux/err.h>
#include <linux/list.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "pci-ep-kunit.h"

#define EPK_EPC_NAME	"pci-ep-kunit-core"

static struct pci_ep_kunit_epc *epk_core_new(struct kunit *test, u8 max)
{
	return pci_ep_kunit_epc_new(test, EPK_EPC_NAME, max);
}

/* a function of the fake driver, "pci_epf_kunit.<n>" */
static struct pci_epf *epk_fn(struct kunit *test, unsigned int n)
{
	char name[32];

	snprintf(name, sizeof(name), PCI_EP_KUNIT_DRIVER ".%u", n);
	return pci_ep_kunit_epf_new(test, name);
}

/* Lifetime */

static void epk_epc_create_rejects(struct kunit *test)
{
	struct pci_ep_kunit_epc *k = epk_core_new(test, 1);
	static const struct pci_epc_ops no_ops;

	KUNIT_EXPECT_EQ(test, PTR_ERR(pci_epc_create(NULL, &no_ops)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pci_epc_create(k->parent, NULL)),
			-EINVAL);
}

static void epk_epc_create_registers(struct kunit *test)
{
	struct pci_ep_kunit_epc *k = epk_core_new(test, 1);
	struct pci_epc *epc = k->epc, *found;

	/* named after its parent, in class pci_epc, with a configfs dir */
	KUNIT_EXPECT_STREQ(test, dev_name(&epc->dev), EPK_EPC_NAME);
	KUNIT_EXPECT_PTR_EQ(test, epc->dev.parent, k->parent);
	KUNIT_ASSERT_NOT_NULL(test, epc->dev.class);
	KUNIT_EXPECT_STREQ(test, epc->dev.class->name, "pci_epc");
	if (IS_ENABLED(CONFIG_PCI_ENDPOINT_CONFIGFS))
		KUNIT_EXPECT_NOT_ERR_OR_NULL(test, epc->group);
	KUNIT_EXPECT_TRUE(test, list_empty(&epc->pci_epf));
	KUNIT_EXPECT_EQ(test, epc->function_num_map, 0UL);

	found = pci_epc_get(EPK_EPC_NAME);
	KUNIT_EXPECT_PTR_EQ(test, found, epc);
	pci_epc_put(found);
}

static void epk_epc_get_unknown(struct kunit *test)
{
	epk_core_new(test, 1);

	KUNIT_EXPECT_EQ(test, PTR_ERR(pci_epc_get("pci-ep-kunit-none")),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pci_epc_get(EPK_EPC_NAME "x")),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pci_epc_get("")), -ENODEV);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pci_epc_get(NULL)), -EINVAL);
	/* nothing to drop for these */
	pci_epc_put(NULL);
	pci_epc_put(ERR_PTR(-ENODEV));
}

static void epk_epc_get_put_counts(struct kunit *test)
{
	struct pci_epc *epc = epk_core_new(test, 1)->epc;
	unsigned int refs = pci_ep_kunit_refs(epc);
	struct pci_epc *a, *b;

	a = pci_epc_get(EPK_EPC_NAME);
	KUNIT_ASSERT_PTR_EQ(test, a, epc);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_refs(epc), refs + 1);
	b = pci_epc_get(EPK_EPC_NAME);
	KUNIT_ASSERT_PTR_EQ(test, b, epc);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_refs(epc), refs + 2);
	pci_epc_put(a);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_refs(epc), refs + 1);
	pci_epc_put(b);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_refs(epc), refs);
}

static bool epk_released;

static void epk_mark_released(void *data)
{
	epk_released = true;
}

static void epk_put_epc(void *epc)
{
	pci_epc_put(epc);
}

static void epk_epc_destroy_while_referenced(struct kunit *test)
{
	struct pci_ep_kunit_epc *k = epk_core_new(test, 2);
	struct pci_epf *epf = epk_fn(test, 0);
	struct pci_epf_header hdr = { };
	struct pci_epc *held;

	held = pci_epc_get(EPK_EPC_NAME);
	KUNIT_ASSERT_PTR_EQ(test, held, k->epc);
	KUNIT_ASSERT_EQ(test, pci_ep_kunit_defer(test, epk_put_epc, held), 0);

	pci_ep_kunit_epc_destroy(test, k);
	/* runs when the memory goes, at the last reference */
	epk_released = false;
	KUNIT_ASSERT_EQ(test, devm_add_action(&held->dev, epk_mark_released,
					      NULL), 0);

	/* gone for lookups and helpers, still there for the holder */
	KUNIT_EXPECT_EQ(test, PTR_ERR(pci_epc_get(EPK_EPC_NAME)), -ENODEV);
	KUNIT_EXPECT_EQ(test, pci_epc_start(held), -ENODEV);
	KUNIT_EXPECT_EQ(test, pci_epc_write_header(held, 0, 0, &hdr), -ENODEV);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(held, epf, PRIMARY_INTERFACE),
			-ENODEV);
	KUNIT_EXPECT_NULL(test, epf->epc);
	KUNIT_EXPECT_NULL(test, pci_epc_get_features(held, 0, 0));
	pci_epc_stop(held);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_START], 0U);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_STOP], 0U);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_WRITE_HEADER], 0U);
	KUNIT_EXPECT_FALSE(test, epk_released);

	KUNIT_EXPECT_TRUE(test, pci_ep_kunit_run_now(test, epk_put_epc, held));
	KUNIT_EXPECT_TRUE(test, epk_released);
}

static void epk_epc_destroy_detaches(struct kunit *test)
{
	struct pci_ep_kunit_epc *k = epk_core_new(test, 2);
	struct pci_epf *bound = epk_fn(test, 0);
	struct pci_epf *idle = epk_fn(test, 1);

	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(k->epc, bound,
					      PRIMARY_INTERFACE), 0);
	KUNIT_ASSERT_EQ(test, pci_epf_bind(bound), 0);
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(k->epc, idle,
					      SECONDARY_INTERFACE), 0);

	pci_ep_kunit_epc_destroy(test, k);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_fn(bound)->unbind_calls, 1U);
	KUNIT_EXPECT_FALSE(test, bound->is_bound);
	KUNIT_EXPECT_EQ(test, bound->bind_count, 0U);
	KUNIT_EXPECT_NULL(test, bound->epc);
	KUNIT_EXPECT_NULL(test, idle->sec_epc);
	KUNIT_EXPECT_TRUE(test, list_empty(&bound->list));
	KUNIT_EXPECT_TRUE(test, list_empty(&idle->sec_epc_list));
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_fn(idle)->unbind_calls, 0U);
}

/* Attaching functions */

/* functions on the primary list, in list order, as their numbers */
static unsigned int epk_list(struct pci_epc *epc, struct pci_epf **order,
			     unsigned int max)
{
	struct pci_epf *epf;
	unsigned int n = 0;

	list_for_each_entry(epf, &epc->pci_epf, list)
		if (n < max)
			order[n++] = epf;
	return n;
}

static void epk_add_epf_order(struct kunit *test)
{
	struct pci_epc *epc = epk_core_new(test, 4)->epc;
	struct pci_epf *f[4], *order[4];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		f[i] = epk_fn(test, i);
		KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, f[i],
						      PRIMARY_INTERFACE), 0);
		KUNIT_EXPECT_PTR_EQ(test, f[i]->epc, epc);
		KUNIT_EXPECT_EQ(test, f[i]->func_no, i);
	}
	KUNIT_ASSERT_EQ(test, epk_list(epc, order, 4), 3U);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_PTR_EQ(test, order[i], f[i]);

	/* the middle one leaves; a newcomer takes its number, at the tail */
	pci_epc_remove_epf(epc, f[1], PRIMARY_INTERFACE);
	KUNIT_EXPECT_NULL(test, f[1]->epc);
	KUNIT_ASSERT_EQ(test, epk_list(epc, order, 4), 2U);
	KUNIT_EXPECT_PTR_EQ(test, order[0], f[0]);
	KUNIT_EXPECT_PTR_EQ(test, order[1], f[2]);

	f[3] = epk_fn(test, 3);
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, f[3], PRIMARY_INTERFACE),
			0);
	KUNIT_EXPECT_EQ(test, f[3]->func_no, 1);
	KUNIT_ASSERT_EQ(test, epk_list(epc, order, 4), 3U);
	KUNIT_EXPECT_PTR_EQ(test, order[2], f[3]);
	KUNIT_EXPECT_EQ(test, epc->function_num_map, 0x7UL);
}

static void epk_add_epf_rejects(struct kunit *test)
{
	struct pci_epc *epc = epk_core_new(test, 4)->epc;
	struct pci_epf *pf = epk_fn(test, 0);
	struct pci_epf *vf = epk_fn(test, 1);
	struct pci_epf *epf = epk_fn(test, 2);

	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(NULL, epf, PRIMARY_INTERFACE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(ERR_PTR(-ENODEV), epf,
					      PRIMARY_INTERFACE), -EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(epc, NULL, PRIMARY_INTERFACE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(epc, epf, UNKNOWN_INTERFACE),
			-EINVAL);
	/* a virtual function comes with its physical function */
	KUNIT_ASSERT_EQ(test, pci_epf_add_vepf(pf, vf), 0);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(epc, vf, PRIMARY_INTERFACE),
			-EINVAL);

	/* once per interface */
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, epf, PRIMARY_INTERFACE), 0);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(epc, epf, PRIMARY_INTERFACE),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, epc->function_num_map, 0x1UL);
	KUNIT_EXPECT_EQ(test, epf->func_no, 0);
}

static void epk_add_epf_holds_epc(struct kunit *test)
{
	struct pci_epc *epc = epk_core_new(test, 2)->epc;
	struct pci_epf *epf = epk_fn(test, 0);
	unsigned int refs = pci_ep_kunit_refs(epc);

	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, epf, PRIMARY_INTERFACE), 0);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_refs(epc), refs + 1);
	pci_epc_remove_epf(epc, epf, PRIMARY_INTERFACE);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_refs(epc), refs);
	/* a second remove finds nothing to drop */
	pci_epc_remove_epf(epc, epf, PRIMARY_INTERFACE);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_refs(epc), refs);
}

static void epk_remove_epf_not_attached(struct kunit *test)
{
	struct pci_epc *epc = epk_core_new(test, 2)->epc;
	struct pci_epc *other;
	struct pci_epf *epf = epk_fn(test, 0);
	unsigned int refs;

	other = pci_ep_kunit_epc_new(test, "pci-ep-kunit-other", 2)->epc;
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(other, epf, PRIMARY_INTERFACE),
			0);
	refs = pci_ep_kunit_refs(other);

	/* not this controller's, not this interface, nothing at all */
	pci_epc_remove_epf(epc, epf, PRIMARY_INTERFACE);
	pci_epc_remove_epf(other, epf, SECONDARY_INTERFACE);
	pci_epc_remove_epf(other, NULL, PRIMARY_INTERFACE);
	pci_epc_remove_epf(NULL, epf, PRIMARY_INTERFACE);
	KUNIT_EXPECT_PTR_EQ(test, epf->epc, other);
	KUNIT_EXPECT_EQ(test, other->function_num_map, 0x1UL);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_refs(other), refs);
	KUNIT_EXPECT_FALSE(test, list_empty(&other->pci_epf));
	pci_epc_remove_epf(other, epf, PRIMARY_INTERFACE);
}

static void epk_primary_and_secondary(struct kunit *test)
{
	struct pci_epc *epc = epk_core_new(test, 4)->epc;
	struct pci_epf *epf = epk_fn(test, 0);

	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, epf, PRIMARY_INTERFACE), 0);
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, epf, SECONDARY_INTERFACE),
			0);
	KUNIT_EXPECT_EQ(test, epf->func_no, 0);
	KUNIT_EXPECT_EQ(test, epf->sec_epc_func_no, 1);
	KUNIT_EXPECT_PTR_EQ(test, epf->sec_epc, epc);
	KUNIT_EXPECT_FALSE(test, list_empty(&epc->sec_pci_epf));

	pci_epc_remove_epf(epc, epf, SECONDARY_INTERFACE);
	KUNIT_EXPECT_NULL(test, epf->sec_epc);
	KUNIT_EXPECT_PTR_EQ(test, epf->epc, epc);
	KUNIT_EXPECT_TRUE(test, list_empty(&epc->sec_pci_epf));
	KUNIT_EXPECT_EQ(test, epc->function_num_map, 0x1UL);
}

static struct kunit_case epk_lifetime_cases[] = {
	KUNIT_CASE(epk_epc_create_rejects),
	KUNIT_CASE(epk_epc_create_registers),
	KUNIT_CASE(epk_epc_get_unknown),
	KUNIT_CASE(epk_epc_get_put_counts),
	KUNIT_CASE(epk_epc_destroy_while_referenced),
	KUNIT_CASE(epk_epc_destroy_detaches),
	KUNIT_CASE(epk_add_epf_order),
	KUNIT_CASE(epk_add_epf_rejects),
	KUNIT_CASE(epk_add_epf_holds_epc),
	KUNIT_CASE(epk_remove_epf_not_attached),
	KUNIT_CASE(epk_primary_and_secondary),
	{ }
};

static struct kunit_suite epk_lifetime_suite = {
	.name = "pci_epc_lifetime",
	.suite_init = pci_ep_kunit_driver_init,
	.suite_exit = pci_ep_kunit_driver_exit,
	.test_cases = epk_lifetime_cases,
};

/* Function numbers */

/* Attach @n new functions; their numbers must be 0 to @n - 1. */
static void epk_fill(struct kunit *test, struct pci_epc *epc,
		     struct pci_epf **f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		f[i] = epk_fn(test, i);
		KUNIT_ASSERT_EQ_MSG(test, pci_epc_add_epf(epc, f[i],
							  PRIMARY_INTERFACE),
				    0, "function %u", i);
		KUNIT_EXPECT_EQ(test, f[i]->func_no, i);
	}
}

static void epk_func_no_default_one(struct kunit *test)
{
	/* a controller that does not say has function 0 only */
	struct pci_epc *epc = epk_core_new(test, 0)->epc;
	struct pci_epf *f[1], *extra = epk_fn(test, 9);

	epk_fill(test, epc, f, 1);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(epc, extra, PRIMARY_INTERFACE),
			-ENOSPC);
	KUNIT_EXPECT_NULL(test, extra->epc);
}

static void epk_func_no_exhaustion(struct kunit *test)
{
	struct pci_epc *epc = epk_core_new(test, 4)->epc;
	struct pci_epf *f[4], *extra = epk_fn(test, 9);
	unsigned int refs;

	epk_fill(test, epc, f, 4);
	KUNIT_EXPECT_EQ(test, epc->function_num_map, 0xfUL);

	refs = pci_ep_kunit_refs(epc);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(epc, extra, PRIMARY_INTERFACE),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(epc, extra, SECONDARY_INTERFACE),
			-ENOSPC);
	/* a refused attach leaves nothing behind */
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_refs(epc), refs);
	KUNIT_EXPECT_NULL(test, extra->epc);
	KUNIT_EXPECT_NULL(test, extra->sec_epc);
	KUNIT_EXPECT_TRUE(test, list_empty(&extra->list));
	KUNIT_EXPECT_EQ(test, epc->function_num_map, 0xfUL);
}

static void epk_func_no_reuse(struct kunit *test)
{
	struct pci_epc *epc = epk_core_new(test, 4)->epc;
	struct pci_epf *f[4], *g[3];
	unsigned int i;

	epk_fill(test, epc, f, 4);
	for (i = 0; i < 3; i++)
		g[i] = epk_fn(test, 10 + i);

	/* a freed number is given out again, the lowest first */
	pci_epc_remove_epf(epc, f[3], PRIMARY_INTERFACE);
	pci_epc_remove_epf(epc, f[1], PRIMARY_INTERFACE);
	KUNIT_EXPECT_EQ(test, epc->function_num_map, 0x5UL);
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, g[0], PRIMARY_INTERFACE),
			0);
	KUNIT_EXPECT_EQ(test, g[0]->func_no, 1);
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, g[1], PRIMARY_INTERFACE),
			0);
	KUNIT_EXPECT_EQ(test, g[1]->func_no, 3);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(epc, g[2], PRIMARY_INTERFACE),
			-ENOSPC);

	/* and all of them come back */
	pci_epc_remove_epf(epc, f[0], PRIMARY_INTERFACE);
	pci_epc_remove_epf(epc, f[2], PRIMARY_INTERFACE);
	pci_epc_remove_epf(epc, g[0], PRIMARY_INTERFACE);
	pci_epc_remove_epf(epc, g[1], PRIMARY_INTERFACE);
	KUNIT_EXPECT_EQ(test, epc->function_num_map, 0UL);
	KUNIT_EXPECT_TRUE(test, list_empty(&epc->pci_epf));
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, g[2], PRIMARY_INTERFACE),
			0);
	KUNIT_EXPECT_EQ(test, g[2]->func_no, 0);
}

static void epk_func_no_shared_by_interfaces(struct kunit *test)
{
	struct pci_epc *epc = epk_core_new(test, 2)->epc;
	struct pci_epf *a = epk_fn(test, 0), *b = epk_fn(test, 1);

	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, a, SECONDARY_INTERFACE), 0);
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, b, PRIMARY_INTERFACE), 0);
	KUNIT_EXPECT_EQ(test, a->sec_epc_func_no, 0);
	KUNIT_EXPECT_EQ(test, b->func_no, 1);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(epc, a, PRIMARY_INTERFACE),
			-ENOSPC);
	pci_epc_remove_epf(epc, a, SECONDARY_INTERFACE);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(epc, a, PRIMARY_INTERFACE), 0);
	KUNIT_EXPECT_EQ(test, a->func_no, 0);
}

static void epk_func_no_capped(struct kunit *test)
{
	/* more functions than the number bitmap holds are not offered */
	struct pci_epc *epc = epk_core_new(test, 255)->epc;
	struct pci_epf *f[BITS_PER_LONG], *extra = epk_fn(test, 999);

	epk_fill(test, epc, f, BITS_PER_LONG);
	KUNIT_EXPECT_EQ(test, epc->function_num_map, ~0UL);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(epc, extra, PRIMARY_INTERFACE),
			-ENOSPC);
}

static void epk_func_no_checked_by_helpers(struct kunit *test)
{
	struct pci_ep_kunit_epc *k = epk_core_new(test, 2);
	struct pci_epf_header hdr = { .vendorid = 0x1234 };

	KUNIT_EXPECT_EQ(test, pci_epc_write_header(k->epc, 1, 0, &hdr), 0);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_WRITE_HEADER], 1U);
	KUNIT_EXPECT_EQ(test, k->func_no, 1);
	KUNIT_EXPECT_PTR_EQ(test, k->hdr, &hdr);

	/* beyond max_functions, or a virtual function it has none of */
	KUNIT_EXPECT_EQ(test, pci_epc_write_header(k->epc, 2, 0, &hdr),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_write_header(k->epc, 0, 1, &hdr),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_set_msi(k->epc, 2, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_raise_irq(k->epc, 2, 0,
						PCI_EPC_IRQ_LEGACY, 0),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, pci_epc_get_features(k->epc, 2, 0));
	KUNIT_EXPECT_EQ(test, k->calls[EPK_WRITE_HEADER], 1U);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_SET_MSI], 0U);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_RAISE_IRQ], 0U);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_GET_FEATURES], 0U);
}

static struct kunit_case epk_func_no_cases[] = {
	KUNIT_CASE(epk_func_no_default_one),
	KUNIT_CASE(epk_func_no_exhaustion),
	KUNIT_CASE(epk_func_no_reuse),
	KUNIT_CASE(epk_func_no_shared_by_interfaces),
	KUNIT_CASE(epk_func_no_capped),
	KUNIT_CASE(epk_func_no_checked_by_helpers),
	{ }
};

static struct kunit_suite epk_func_no_suite = {
	.name = "pci_epc_func_no",
	.suite_init = pci_ep_kunit_driver_init,
	.suite_exit = pci_ep_kunit_driver_exit,
	.test_cases = epk_func_no_cases,
};

/* What the helpers pass on to the controller */

static void epk_ops_msi_encoding(struct kunit *test)
{
	struct pci_ep_kunit_epc *k = epk_core_new(test, 1);
	static const u8 want[][2] = {
		{ 1, 0 }, { 2, 1 }, { 3, 2 }, { 5, 3 }, { 16, 4 }, { 32, 5 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		KUNIT_EXPECT_EQ(test, pci_epc_set_msi(k->epc, 0, 0, want[i][0]),
				0);
		KUNIT_EXPECT_EQ_MSG(test, k->msi, want[i][1], "%u vectors",
				    want[i][0]);
	}
	KUNIT_EXPECT_EQ(test, pci_epc_set_msi(k->epc, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_set_msi(k->epc, 0, 0, 33), -EINVAL);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_SET_MSI], ARRAY_SIZE(want));

	/* and back: the log2 the host enabled, as a count */
	k->get_msi_ret = 3;
	KUNIT_EXPECT_EQ(test, pci_epc_get_msi(k->epc, 0, 0), 8);
	k->get_msi_ret = 0;
	KUNIT_EXPECT_EQ(test, pci_epc_get_msi(k->epc, 0, 0), 1);
	k->get_msi_ret = -EINVAL;
	KUNIT_EXPECT_EQ(test, pci_epc_get_msi(k->epc, 0, 0), 0);
	k->get_msi_ret = 6;
	KUNIT_EXPECT_EQ(test, pci_epc_get_msi(k->epc, 0, 0), 0);
}

static void epk_ops_msix_encoding(struct kunit *test)
{
	struct pci_ep_kunit_epc *k = epk_core_new(test, 1);

	KUNIT_EXPECT_EQ(test, pci_epc_set_msix(k->epc, 0, 0, 2048, BAR_2,
					       0x1000), 0);
	KUNIT_EXPECT_EQ(test, k->msix, 2047);
	KUNIT_EXPECT_EQ(test, k->msix_bir, BAR_2);
	KUNIT_EXPECT_EQ(test, k->msix_offset, 0x1000U);
	KUNIT_EXPECT_EQ(test, pci_epc_set_msix(k->epc, 0, 0, 1, BAR_0, 0), 0);
	KUNIT_EXPECT_EQ(test, k->msix, 0);
	KUNIT_EXPECT_EQ(test, pci_epc_set_msix(k->epc, 0, 0, 0, BAR_0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_set_msix(k->epc, 0, 0, 2049, BAR_0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_set_msix(k->epc, 0, 0, 8, NO_BAR, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_set_msix(k->epc, 0, 0, 8, BAR_5 + 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_SET_MSIX], 2U);

	k->get_msix_ret = 2047;
	KUNIT_EXPECT_EQ(test, pci_epc_get_msix(k->epc, 0, 0), 2048);
	k->get_msix_ret = -ENOENT;
	KUNIT_EXPECT_EQ(test, pci_epc_get_msix(k->epc, 0, 0), 0);
}

static void epk_ops_raise_irq(struct kunit *test)
{
	struct pci_ep_kunit_epc *k = epk_core_new(test, 1);
	struct pci_epc *epc = k->epc;

	KUNIT_EXPECT_EQ(test, pci_epc_raise_irq(epc, 0, 0, PCI_EPC_IRQ_MSI, 32),
			0);
	KUNIT_EXPECT_EQ(test, k->irq_type, PCI_EPC_IRQ_MSI);
	KUNIT_EXPECT_EQ(test, k->irq_num, 32);
	KUNIT_EXPECT_EQ(test, pci_epc_raise_irq(epc, 0, 0, PCI_EPC_IRQ_MSIX,
						2048), 0);
	KUNIT_EXPECT_EQ(test, pci_epc_raise_irq(epc, 0, 0, PCI_EPC_IRQ_LEGACY,
						0), 0);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_RAISE_IRQ], 3U);

	/* vectors count from 1, up to what the capability allows */
	KUNIT_EXPECT_EQ(test, pci_epc_raise_irq(epc, 0, 0, PCI_EPC_IRQ_MSI, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_raise_irq(epc, 0, 0, PCI_EPC_IRQ_MSI, 33),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_raise_irq(epc, 0, 0, PCI_EPC_IRQ_MSIX,
						2049), -EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_raise_irq(epc, 0, 0, PCI_EPC_IRQ_UNKNOWN,
						1), -EINVAL);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_RAISE_IRQ], 3U);
}

static void epk_ops_bar_checks(struct kunit *test)
{
	struct pci_ep_kunit_epc *k = epk_core_new(test, 1);
	struct pci_epf_bar bar = { .barno = BAR_4, .size = SZ_4K };

	KUNIT_EXPECT_EQ(test, pci_epc_set_bar(k->epc, 0, 0, &bar), 0);
	KUNIT_EXPECT_PTR_EQ(test, k->bar, &bar);
	pci_epc_clear_bar(k->epc, 0, 0, &bar);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_CLEAR_BAR], 1U);

	/* a 64-bit BAR 5 has no upper half */
	bar.barno = BAR_5;
	bar.flags = PCI_BASE_ADDRESS_MEM_TYPE_64;
	KUNIT_EXPECT_EQ(test, pci_epc_set_bar(k->epc, 0, 0, &bar), -EINVAL);
	/* I/O BARs have no memory type bits */
	bar.barno = BAR_1;
	bar.flags = PCI_BASE_ADDRESS_SPACE_IO | PCI_BASE_ADDRESS_MEM_PREFETCH;
	KUNIT_EXPECT_EQ(test, pci_epc_set_bar(k->epc, 0, 0, &bar), -EINVAL);
	bar.barno = NO_BAR;
	bar.flags = 0;
	KUNIT_EXPECT_EQ(test, pci_epc_set_bar(k->epc, 0, 0, &bar), -EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_set_bar(k->epc, 0, 0, NULL), -EINVAL);
	pci_epc_clear_bar(k->epc, 0, 0, &bar);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_SET_BAR], 1U);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_CLEAR_BAR], 1U);
}

static void epk_ops_start_stop_map(struct kunit *test)
{
	struct pci_ep_kunit_epc *k = epk_core_new(test, 1);

	KUNIT_EXPECT_EQ(test, pci_epc_start(k->epc), 0);
	k->start_ret = -EIO;
	KUNIT_EXPECT_EQ(test, pci_epc_start(k->epc), -EIO);
	pci_epc_stop(k->epc);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_START], 2U);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_STOP], 1U);
	KUNIT_EXPECT_EQ(test, pci_epc_start(NULL), -EINVAL);

	KUNIT_EXPECT_EQ(test, pci_epc_map_addr(k->epc, 0, 0, 0x1000, 0x2000,
					       SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, pci_epc_map_addr(k->epc, 0, 0, 0x1000, 0x2000,
					       0), -EINVAL);
	pci_epc_unmap_addr(k->epc, 0, 0, 0x1000);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_MAP_ADDR], 1U);
	KUNIT_EXPECT_EQ(test, k->calls[EPK_UNMAP_ADDR], 1U);
}

static struct kunit_case epk_ops_cases[] = {
	KUNIT_CASE(epk_ops_msi_encoding),
	KUNIT_CASE(epk_ops_msix_encoding),
	KUNIT_CASE(epk_ops_raise_irq),
	KUNIT_CASE(epk_ops_bar_checks),
	KUNIT_CASE(epk_ops_start_stop_map),
	{ }
};

static struct kunit_suite epk_ops_suite = {
	.name = "pci_epc_helpers",
	.test_cases = epk_ops_cases,
};

kunit_test_suites(&epk_lifetime_suite, &epk_func_no_suite, &epk_ops_suite);
