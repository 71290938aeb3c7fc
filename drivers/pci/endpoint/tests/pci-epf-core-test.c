// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the EPF core: creating and destroying function devices,
 * matching them to a driver, binding and unbinding them, and the controller
 * events a bound function receives.
 */

#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/notifier.h>
#include <linux/sizes.h>
#include <linux/workqueue.h>

#include "pci-ep-kunit.h"

#define EPK_FN(n)	PCI_EP_KUNIT_DRIVER "." #n

static void epk_epf_create_rejects(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, PTR_ERR(pci_epf_create(NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pci_epf_create("")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pci_epf_create(".0")), -EINVAL);
}

static void epk_epf_create_probes(struct kunit *test)
{
	unsigned int probes = pci_ep_kunit_probes;
	struct pci_epf *epf = pci_ep_kunit_epf_new(test, EPK_FN(7));

	/* the part before the first dot picks the driver */
	KUNIT_EXPECT_STREQ(test, epf->name, PCI_EP_KUNIT_DRIVER);
	KUNIT_EXPECT_STREQ(test, dev_name(&epf->dev), EPK_FN(7));
	KUNIT_EXPECT_PTR_EQ(test, epf->driver, &pci_ep_kunit_driver);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_probes, probes + 1);
	KUNIT_EXPECT_NOT_NULL(test, epf->header);
	KUNIT_EXPECT_NULL(test, epf->epc);
	KUNIT_EXPECT_FALSE(test, epf->is_bound);

	epf = pci_ep_kunit_epf_new(test, PCI_EP_KUNIT_DRIVER ".8.extra");
	KUNIT_EXPECT_STREQ(test, epf->name, PCI_EP_KUNIT_DRIVER);
	KUNIT_EXPECT_PTR_EQ(test, epf->driver, &pci_ep_kunit_driver);
}

static void epk_epf_create_unmatched(struct kunit *test)
{
	unsigned int probes = pci_ep_kunit_probes;
	struct pci_epf *epf;

	epf = pci_ep_kunit_epf_new(test, PCI_EP_KUNIT_DRIVER "_none.0");
	KUNIT_EXPECT_STREQ(test, epf->name, PCI_EP_KUNIT_DRIVER "_none");
	KUNIT_EXPECT_NULL(test, epf->driver);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_probes, probes);

	/* a driver whose probe fails leaves the function without one */
	pci_ep_kunit_probe_ret = -EIO;
	epf = pci_epf_create(EPK_FN(9));
	pci_ep_kunit_probe_ret = 0;
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, epf);
	KUNIT_EXPECT_NULL(test, epf->driver);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_probes, probes + 1);
	pci_epf_destroy(epf);
}

static void epk_epf_destroy_removes(struct kunit *test)
{
	unsigned int removes = pci_ep_kunit_removes;
	struct pci_epf *epf = pci_ep_kunit_epf_new(test, EPK_FN(0));

	pci_ep_kunit_epf_destroy(test, epf);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_removes, removes + 1);

	/* the name is free again */
	epf = pci_ep_kunit_epf_new(test, EPK_FN(0));
	KUNIT_EXPECT_PTR_EQ(test, epf->driver, &pci_ep_kunit_driver);
}

static void epk_epf_destroy_while_bound(struct kunit *test)
{
	struct pci_ep_kunit_epc *k;
	struct pci_ep_kunit_fn *fn;
	unsigned int refs, removes, unbinds;
	struct pci_epf *epf;

	k = pci_ep_kunit_epc_new(test, "pci-ep-kunit-epf", 2);
	epf = pci_ep_kunit_epf_new(test, EPK_FN(0));
	refs = pci_ep_kunit_refs(k->epc);
	fn = pci_ep_kunit_fn(epf);
	fn->bind_bar_size = SZ_4K;
	fn->unbind_keeps_bar = true;
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(k->epc, epf, PRIMARY_INTERFACE),
			0);
	KUNIT_ASSERT_EQ(test, pci_epf_bind(epf), 0);
	KUNIT_ASSERT_NOT_NULL(test, epf->bar[BAR_0].addr);

	/* unbound, its BAR reclaimed and detached on the way out */
	removes = pci_ep_kunit_removes;
	unbinds = pci_ep_kunit_unbinds;
	pci_ep_kunit_epf_destroy(test, epf);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_unbinds, unbinds + 1);
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_removes, removes + 1);
	KUNIT_EXPECT_EQ(test, k->epc->function_num_map, 0UL);
	KUNIT_EXPECT_TRUE(test, list_empty(&k->epc->pci_epf));
	KUNIT_EXPECT_EQ(test, pci_ep_kunit_refs(k->epc), refs);
}

/* Binding */

struct epk_bind {
	struct pci_ep_kunit_epc *k;
	struct pci_epf *epf;
	struct pci_ep_kunit_fn *fn;
};

static int epk_bind_case_init(struct kunit *test)
{
	struct epk_bind *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->k = pci_ep_kunit_epc_new(test, "pci-ep-kunit-bind", 2);
	b->epf = pci_ep_kunit_epf_new(test, EPK_FN(0));
	b->fn = pci_ep_kunit_fn(b->epf);
	KUNIT_ASSERT_NOT_NULL(test, b->fn);
	test->priv = b;
	return 0;
}

static void epk_bind_needs_attach(struct kunit *test)
{
	struct epk_bind *b = test->priv;
	struct pci_epf *orphan;

	KUNIT_EXPECT_EQ(test, pci_epf_bind(b->epf), -EINVAL);
	KUNIT_EXPECT_EQ(test, b->fn->bind_calls, 0U);
	KUNIT_EXPECT_EQ(test, pci_epf_bind(NULL), -EINVAL);

	/* attached, but nobody drives it */
	orphan = pci_ep_kunit_epf_new(test, PCI_EP_KUNIT_DRIVER "_none.1");
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(b->k->epc, orphan,
					      PRIMARY_INTERFACE), 0);
	KUNIT_EXPECT_EQ(test, pci_epf_bind(orphan), -ENODEV);
	KUNIT_EXPECT_FALSE(test, orphan->is_bound);
}

static void epk_bind_unbind(struct kunit *test)
{
	struct epk_bind *b = test->priv;

	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(b->k->epc, b->epf,
					      PRIMARY_INTERFACE), 0);
	KUNIT_ASSERT_EQ(test, pci_epf_bind(b->epf), 0);
	KUNIT_EXPECT_EQ(test, b->fn->bind_calls, 1U);
	KUNIT_EXPECT_TRUE(test, b->epf->is_bound);
	KUNIT_EXPECT_EQ(test, b->epf->bind_count, 1U);

	pci_epf_unbind(b->epf);
	KUNIT_EXPECT_EQ(test, b->fn->unbind_calls, 1U);
	KUNIT_EXPECT_FALSE(test, b->epf->is_bound);
	KUNIT_EXPECT_EQ(test, b->epf->bind_count, 0U);

	/* an unbind without a bind is ignored */
	pci_epf_unbind(b->epf);
	pci_epf_unbind(NULL);
	KUNIT_EXPECT_EQ(test, b->fn->unbind_calls, 1U);

	/* and the cycle can be repeated */
	KUNIT_EXPECT_EQ(test, pci_epf_bind(b->epf), 0);
	pci_epf_unbind(b->epf);
	KUNIT_EXPECT_EQ(test, b->fn->bind_calls, 2U);
	KUNIT_EXPECT_EQ(test, b->fn->unbind_calls, 2U);
}

static void epk_bind_two_interfaces(struct kunit *test)
{
	struct epk_bind *b = test->priv;
	struct pci_epc *sec;

	sec = pci_ep_kunit_epc_new(test, "pci-ep-kunit-bind2", 1)->epc;
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(b->k->epc, b->epf,
					      PRIMARY_INTERFACE), 0);
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(sec, b->epf,
					      SECONDARY_INTERFACE), 0);

	/* bind() runs per interface; the first unbind undoes it */
	KUNIT_ASSERT_EQ(test, pci_epf_bind(b->epf), 0);
	KUNIT_ASSERT_EQ(test, pci_epf_bind(b->epf), 0);
	KUNIT_EXPECT_EQ(test, b->fn->bind_calls, 2U);
	KUNIT_EXPECT_EQ(test, b->epf->bind_count, 2U);
	pci_epf_unbind(b->epf);
	KUNIT_EXPECT_EQ(test, b->fn->unbind_calls, 1U);
	KUNIT_EXPECT_FALSE(test, b->epf->is_bound);
	pci_epf_unbind(b->epf);
	KUNIT_EXPECT_EQ(test, b->fn->unbind_calls, 1U);
	KUNIT_EXPECT_EQ(test, b->epf->bind_count, 0U);
	pci_epc_remove_epf(sec, b->epf, SECONDARY_INTERFACE);
}

static void epk_bind_failure(struct kunit *test)
{
	struct epk_bind *b = test->priv;

	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(b->k->epc, b->epf,
					      PRIMARY_INTERFACE), 0);

	/* a failing bind() is reported, and what it allocated reclaimed */
	b->fn->bind_ret = -EIO;
	b->fn->bind_bar_size = SZ_4K;
	KUNIT_EXPECT_EQ(test, pci_epf_bind(b->epf), -EIO);
	KUNIT_EXPECT_FALSE(test, b->epf->is_bound);
	KUNIT_EXPECT_EQ(test, b->epf->bind_count, 0U);
	KUNIT_EXPECT_NULL(test, b->epf->bar[BAR_0].addr);

	/* nothing to undo, so no unbind() */
	pci_epf_unbind(b->epf);
	KUNIT_EXPECT_EQ(test, b->fn->unbind_calls, 0U);

	/* the next bind() finds BAR 0 free again */
	b->fn->bind_ret = 0;
	KUNIT_EXPECT_EQ(test, pci_epf_bind(b->epf), 0);
	KUNIT_EXPECT_NOT_NULL(test, b->epf->bar[BAR_0].addr);
	KUNIT_EXPECT_EQ(test, b->epf->bar[BAR_0].size, (size_t)SZ_4K);
	pci_epf_unbind(b->epf);
	KUNIT_EXPECT_NULL(test, b->epf->bar[BAR_0].addr);
}

static void epk_bind_unbind_reclaims(struct kunit *test)
{
	struct epk_bind *b = test->priv;

	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(b->k->epc, b->epf,
					      PRIMARY_INTERFACE), 0);
	b->fn->bind_bar_size = SZ_8K;
	b->fn->unbind_keeps_bar = true;
	KUNIT_ASSERT_EQ(test, pci_epf_bind(b->epf), 0);
	KUNIT_ASSERT_NOT_NULL(test, b->epf->bar[BAR_0].addr);

	/* an unbind() that forgets its BAR leaves it to the core */
	pci_epf_unbind(b->epf);
	KUNIT_EXPECT_EQ(test, b->fn->unbind_calls, 1U);
	KUNIT_EXPECT_NULL(test, b->epf->bar[BAR_0].addr);
	KUNIT_EXPECT_EQ(test, b->epf->bar[BAR_0].size, 0U);
	/* which clears it in the controller before freeing it */
	KUNIT_EXPECT_EQ(test, b->k->calls[EPK_CLEAR_BAR], 1U);
}

/* Memory the host may still reach is kept, not handed to the next user. */
static void epk_bind_reclaim_keeps(struct kunit *test)
{
	struct epk_bind *b = test->priv;
	struct device *dev = b->k->epc->dev.parent;
	struct pci_epf_bar bar;

	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(b->k->epc, b->epf,
					      PRIMARY_INTERFACE), 0);
	b->fn->bind_bar_size = SZ_8K;
	b->fn->unbind_keeps_bar = true;
	b->k->clear_bar_keeps = true;
	KUNIT_ASSERT_EQ(test, pci_epf_bind(b->epf), 0);
	bar = b->epf->bar[BAR_0];
	KUNIT_ASSERT_NOT_NULL(test, bar.addr);

	pci_epf_unbind(b->epf);
	KUNIT_EXPECT_NULL(test, b->epf->bar[BAR_0].addr);
	/* still ours: the pattern written now survives, the test frees it */
	memset(bar.addr, 0xa5, bar.size);
	KUNIT_EXPECT_EQ(test, ((u8 *)bar.addr)[bar.size - 1], 0xa5);
	dma_free_coherent(dev, bar.size, bar.addr, bar.phys_addr);
}

static int epk_notified;

static int epk_notify(struct notifier_block *nb, unsigned long event,
		      void *data)
{
	if (event == LINK_UP)
		epk_notified++;
	return NOTIFY_OK;
}

static void epk_bind_events(struct kunit *test)
{
	struct epk_bind *b = test->priv;
	struct pci_epc *epc = b->k->epc;
	struct pci_epf *idle = pci_ep_kunit_epf_new(test, EPK_FN(1));
	struct pci_ep_kunit_fn *idle_fn = pci_ep_kunit_fn(idle);

	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, b->epf, PRIMARY_INTERFACE),
			0);
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, idle, PRIMARY_INTERFACE), 0);
	KUNIT_ASSERT_EQ(test, pci_epf_bind(b->epf), 0);
	b->epf->nb.notifier_call = epk_notify;
	KUNIT_ASSERT_EQ(test, pci_epc_register_notifier(epc, &b->epf->nb), 0);
	epk_notified = 0;

	pci_epc_init_notify(epc);
	pci_epc_linkup(epc);
	pci_epc_linkup(epc);
	pci_epc_linkdown(epc);
	pci_epc_bme_notify(epc);
	KUNIT_EXPECT_EQ(test, b->fn->events[EPK_CORE_INIT], 1U);
	KUNIT_EXPECT_EQ(test, b->fn->events[EPK_LINK_UP], 2U);
	KUNIT_EXPECT_EQ(test, b->fn->events[EPK_LINK_DOWN], 1U);
	KUNIT_EXPECT_EQ(test, b->fn->events[EPK_BME], 1U);
	KUNIT_EXPECT_EQ(test, epk_notified, 2);

	/* attached but not bound: no events */
	KUNIT_EXPECT_EQ(test, idle_fn->events[EPK_CORE_INIT], 0U);
	KUNIT_EXPECT_EQ(test, idle_fn->events[EPK_LINK_UP], 0U);
	KUNIT_EXPECT_EQ(test, idle_fn->events[EPK_BME], 0U);

	/* unbound: neither the handlers nor the notifier are called */
	pci_epf_unbind(b->epf);
	pci_epc_linkup(epc);
	KUNIT_EXPECT_EQ(test, b->fn->events[EPK_LINK_UP], 2U);
	KUNIT_EXPECT_EQ(test, epk_notified, 2);
}

/* 6.1's controllers report init and link up from interrupt handlers. */
static void epk_bind_events_atomic(struct kunit *test)
{
	struct epk_bind *b = test->priv;
	struct pci_epc *epc = b->k->epc;

	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(epc, b->epf, PRIMARY_INTERFACE),
			0);
	KUNIT_ASSERT_EQ(test, pci_epf_bind(b->epf), 0);
	b->epf->nb.notifier_call = epk_notify;
	KUNIT_ASSERT_EQ(test, pci_epc_register_notifier(epc, &b->epf->nb), 0);
	epk_notified = 0;

	local_irq_disable();
	pci_epc_init_notify(epc);
	pci_epc_linkup(epc);
	local_irq_enable();
	/* nothing that may sleep ran with interrupts off */
	KUNIT_EXPECT_EQ(test, b->fn->events[EPK_CORE_INIT], 0U);
	KUNIT_EXPECT_EQ(test, b->fn->events[EPK_LINK_UP], 0U);
	flush_work(&epc->event_work);
	KUNIT_EXPECT_EQ(test, b->fn->events[EPK_CORE_INIT], 1U);
	KUNIT_EXPECT_EQ(test, b->fn->events[EPK_LINK_UP], 1U);
	KUNIT_EXPECT_EQ(test, epk_notified, 1);
	pci_epf_unbind(b->epf);
}

static void epk_bind_virtual_functions(struct kunit *test)
{
	struct epk_bind *b = test->priv;
	struct pci_epf *vf1 = pci_ep_kunit_epf_new(test, EPK_FN(1));
	struct pci_epf *vf2 = pci_ep_kunit_epf_new(test, EPK_FN(2));
	struct pci_ep_kunit_fn *vf1_fn = pci_ep_kunit_fn(vf1);
	u8 *max_vfs = kunit_kcalloc(test, 2, sizeof(*max_vfs), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, max_vfs);

	/* numbered from 1, and only while everything is detached */
	KUNIT_ASSERT_EQ(test, pci_epf_add_vepf(b->epf, vf1), 0);
	KUNIT_ASSERT_EQ(test, pci_epf_add_vepf(b->epf, vf2), 0);
	KUNIT_EXPECT_EQ(test, vf1->vfunc_no, 1);
	KUNIT_EXPECT_EQ(test, vf2->vfunc_no, 2);
	KUNIT_EXPECT_TRUE(test, vf1->is_vf);
	KUNIT_EXPECT_PTR_EQ(test, vf1->epf_pf, b->epf);
	KUNIT_EXPECT_EQ(test, pci_epf_add_vepf(b->epf, vf1), -EBUSY);
	KUNIT_EXPECT_EQ(test, pci_epf_add_vepf(vf1, vf2), -EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epf_add_vepf(b->epf, b->epf), -EINVAL);

	/* function 0 of the controller has one virtual function */
	max_vfs[0] = 1;
	b->k->epc->max_vfs = max_vfs;
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(b->k->epc, b->epf,
					      PRIMARY_INTERFACE), 0);
	KUNIT_EXPECT_EQ(test, pci_epc_add_epf(b->k->epc, vf1,
					      PRIMARY_INTERFACE), -EINVAL);

	/* vf2 does not fit: the whole bind fails and vf1 is undone */
	KUNIT_EXPECT_EQ(test, pci_epf_bind(b->epf), -EINVAL);
	KUNIT_EXPECT_EQ(test, b->fn->bind_calls, 0U);
	KUNIT_EXPECT_FALSE(test, vf1->is_bound);
	KUNIT_EXPECT_NULL(test, vf1->epc);
	KUNIT_EXPECT_EQ(test, vf1_fn->bind_calls - vf1_fn->unbind_calls, 0U);

	/* without vf2 it binds, vf1 first, and unbinds with it */
	pci_epf_remove_vepf(b->epf, vf2);
	KUNIT_EXPECT_FALSE(test, vf2->is_vf);
	KUNIT_EXPECT_NULL(test, vf2->epf_pf);
	KUNIT_EXPECT_EQ(test, pci_epf_bind(b->epf), 0);
	KUNIT_EXPECT_TRUE(test, vf1->is_bound);
	KUNIT_EXPECT_PTR_EQ(test, vf1->epc, b->k->epc);
	KUNIT_EXPECT_EQ(test, vf1->func_no, b->epf->func_no);
	KUNIT_EXPECT_EQ(test, vf1_fn->bind_calls - vf1_fn->unbind_calls, 1U);

	pci_epf_unbind(b->epf);
	KUNIT_EXPECT_FALSE(test, vf1->is_bound);
	KUNIT_EXPECT_EQ(test, vf1_fn->bind_calls - vf1_fn->unbind_calls, 0U);
	pci_epc_remove_epf(b->k->epc, b->epf, PRIMARY_INTERFACE);
	b->k->epc->max_vfs = NULL;
}

static struct kunit_case epk_epf_cases[] = {
	KUNIT_CASE(epk_epf_create_rejects),
	KUNIT_CASE(epk_epf_create_probes),
	KUNIT_CASE(epk_epf_create_unmatched),
	KUNIT_CASE(epk_epf_destroy_removes),
	KUNIT_CASE(epk_epf_destroy_while_bound),
	{ }
};

static struct kunit_suite epk_epf_suite = {
	.name = "pci_epf_lifetime",
	.suite_init = pci_ep_kunit_driver_init,
	.suite_exit = pci_ep_kunit_driver_exit,
	.test_cases = epk_epf_cases,
};

static struct kunit_case epk_bind_cases[] = {
	KUNIT_CASE(epk_bind_needs_attach),
	KUNIT_CASE(epk_bind_unbind),
	KUNIT_CASE(epk_bind_two_interfaces),
	KUNIT_CASE(epk_bind_failure),
	KUNIT_CASE(epk_bind_unbind_reclaims),
	KUNIT_CASE(epk_bind_reclaim_keeps),
	KUNIT_CASE(epk_bind_events),
	KUNIT_CASE(epk_bind_events_atomic),
	KUNIT_CASE(epk_bind_virtual_functions),
	{ }
};

static struct kunit_suite epk_bind_suite = {
	.name = "pci_epf_bind",
	.suite_init = pci_ep_kunit_driver_init,
	.suite_exit = pci_ep_kunit_driver_exit,
	.init = epk_bind_case_init,
	.test_cases = epk_bind_cases,
};

kunit_test_suites(&epk_epf_suite, &epk_bind_suite);
