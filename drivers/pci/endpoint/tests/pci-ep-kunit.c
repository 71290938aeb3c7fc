// SPDX-License-Identifier: GPL-2.0
/*
 * Fakes shared by the KUnit suites of the PCI endpoint framework; see
 * pci-ep-kunit.h.
 */

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include <kunit/resource.h>

#include "pci-ep-kunit.h"

/* Cleanup KUnit runs at the end of a case, last registered first. */
struct pci_ep_kunit_action {
	pci_ep_kunit_action_t	fn;
	void			*arg;
};

static void pci_ep_kunit_action_free(struct kunit_resource *res)
{
	struct pci_ep_kunit_action *action = res->data;

	if (action->fn)
		action->fn(action->arg);
	kfree(action);
}

/**
 * pci_ep_kunit_defer() - run @fn(@arg) when the current case ends
 * @test: the case
 * @fn: what to run
 * @arg: its argument
 *
 * Runs whether the case passes or stops at a failed assertion. When the
 * cleanup cannot be registered, @fn(@arg) runs at once.
 *
 * Return: 0, or -ENOMEM when @fn already ran.
 */
int pci_ep_kunit_defer(struct kunit *test, pci_ep_kunit_action_t fn,
		       void *arg)
{
	struct pci_ep_kunit_action *action;

	action = kmalloc(sizeof(*action), GFP_KERNEL);
	if (!action) {
		fn(arg);
		return -ENOMEM;
	}
	action->fn = fn;
	action->arg = arg;

	if (!kunit_alloc_resource(test, NULL, pci_ep_kunit_action_free,
				  GFP_KERNEL, action)) {
		kfree(action);
		fn(arg);
		return -ENOMEM;
	}

	return 0;
}

static bool pci_ep_kunit_action_match(struct kunit *test,
				      struct kunit_resource *res, void *data)
{
	struct pci_ep_kunit_action *action = res->data;
	struct pci_ep_kunit_action *want = data;

	return res->free == pci_ep_kunit_action_free &&
	       action->fn == want->fn && action->arg == want->arg;
}

/**
 * pci_ep_kunit_run_now() - run a deferred cleanup now instead of later
 * @test: the case
 * @fn: the function given to pci_ep_kunit_defer()
 * @arg: the argument given to pci_ep_kunit_defer()
 *
 * Return: true when the cleanup was registered (and has now run).
 */
bool pci_ep_kunit_run_now(struct kunit *test, pci_ep_kunit_action_t fn,
			  void *arg)
{
	struct pci_ep_kunit_action want = { .fn = fn, .arg = arg };

	return !kunit_destroy_resource(test, pci_ep_kunit_action_match, &want);
}

/* The fake controller: every callback records its call and arguments. */

static struct pci_ep_kunit_epc *epk(struct pci_epc *epc,
				    enum pci_ep_kunit_op op,
				    u8 func_no, u8 vfunc_no)
{
	struct pci_ep_kunit_epc *k = epc_get_drvdata(epc);

	k->calls[op]++;
	k->func_no = func_no;
	k->vfunc_no = vfunc_no;
	return k;
}

static int epk_start(struct pci_epc *epc)
{
	return epk(epc, EPK_START, 0, 0)->start_ret;
}

static void epk_stop(struct pci_epc *epc)
{
	epk(epc, EPK_STOP, 0, 0);
}

static const struct pci_epc_features *
epk_get_features(struct pci_epc *epc, u8 func_no, u8 vfunc_no)
{
	struct pci_ep_kunit_epc *k = epk(epc, EPK_GET_FEATURES, func_no,
					 vfunc_no);

	return k->no_features ? NULL : &k->features;
}

static int epk_write_header(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			    struct pci_epf_header *hdr)
{
	epk(epc, EPK_WRITE_HEADER, func_no, vfunc_no)->hdr = hdr;
	return 0;
}

static int epk_set_bar(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
		       struct pci_epf_bar *epf_bar)
{
	epk(epc, EPK_SET_BAR, func_no, vfunc_no)->bar = epf_bar;
	return 0;
}

static void epk_clear_bar(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			  struct pci_epf_bar *epf_bar)
{
	struct pci_ep_kunit_epc *k = epk(epc, EPK_CLEAR_BAR, func_no, vfunc_no);

	k->bar = epf_bar;
	if (k->clear_bar_keeps)
		epf_bar->keep = true;
}

static int epk_set_msi(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
		       u8 interrupts)
{
	epk(epc, EPK_SET_MSI, func_no, vfunc_no)->msi = interrupts;
	return 0;
}

static int epk_get_msi(struct pci_epc *epc, u8 func_no, u8 vfunc_no)
{
	return epk(epc, EPK_GET_MSI, func_no, vfunc_no)->get_msi_ret;
}

static int epk_set_msix(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			u16 interrupts, enum pci_barno bir, u32 offset)
{
	struct pci_ep_kunit_epc *k = epk(epc, EPK_SET_MSIX, func_no, vfunc_no);

	k->msix = interrupts;
	k->msix_bir = bir;
	k->msix_offset = offset;
	return 0;
}

static int epk_get_msix(struct pci_epc *epc, u8 func_no, u8 vfunc_no)
{
	return epk(epc, EPK_GET_MSIX, func_no, vfunc_no)->get_msix_ret;
}

static int epk_raise_irq(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			 enum pci_epc_irq_type type, u16 interrupt_num)
{
	struct pci_ep_kunit_epc *k = epk(epc, EPK_RAISE_IRQ, func_no, vfunc_no);

	k->irq_type = type;
	k->irq_num = interrupt_num;
	return 0;
}

static int epk_map_addr(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			phys_addr_t addr, u64 pci_addr, size_t size)
{
	epk(epc, EPK_MAP_ADDR, func_no, vfunc_no);
	return 0;
}

static void epk_unmap_addr(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			   phys_addr_t addr)
{
	epk(epc, EPK_UNMAP_ADDR, func_no, vfunc_no);
}

static const struct pci_epc_ops pci_ep_kunit_epc_ops = {
	.start		= epk_start,
	.stop		= epk_stop,
	.get_features	= epk_get_features,
	.write_header	= epk_write_header,
	.set_bar	= epk_set_bar,
	.clear_bar	= epk_clear_bar,
	.set_msi	= epk_set_msi,
	.get_msi	= epk_get_msi,
	.set_msix	= epk_set_msix,
	.get_msix	= epk_get_msix,
	.raise_irq	= epk_raise_irq,
	.map_addr	= epk_map_addr,
	.unmap_addr	= epk_unmap_addr,
};

static void pci_ep_kunit_unregister_parent(void *dev)
{
	root_device_unregister(dev);
}

static void pci_ep_kunit_destroy_epc(void *epc)
{
	pci_epc_destroy(epc);
}

/**
 * pci_ep_kunit_epc_new() - register a fake controller for the current case
 * @test: the case
 * @name: name of its root device, and so of the controller
 * @max_functions: value for &struct pci_epc.max_functions
 *
 * The controller is destroyed, then its root device unregistered, when the
 * case ends. Its parent can do 32-bit DMA, for pci_epf_alloc_space().
 * Fails the case (and returns to KUnit) when anything goes wrong.
 *
 * Return: the fake controller.
 */
struct pci_ep_kunit_epc *pci_ep_kunit_epc_new(struct kunit *test,
					      const char *name,
					      u8 max_functions)
{
	struct pci_ep_kunit_epc *k;
	struct pci_epc *epc;
	struct device *dev;

	k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);

	dev = root_device_register(name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, pci_ep_kunit_defer(test,
						 pci_ep_kunit_unregister_parent,
						 dev), 0);
	k->parent = dev;
	KUNIT_ASSERT_EQ(test, dma_coerce_mask_and_coherent(dev,
							   DMA_BIT_MASK(32)),
			0);

	epc = pci_epc_create(dev, &pci_ep_kunit_epc_ops);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, epc);
	epc_set_drvdata(epc, k);
	epc->max_functions = max_functions;
	k->epc = epc;
	KUNIT_ASSERT_EQ(test, pci_ep_kunit_defer(test, pci_ep_kunit_destroy_epc,
						 epc), 0);

	return k;
}

/**
 * pci_ep_kunit_epc_destroy() - destroy a fake controller before the case ends
 * @test: the case
 * @k: from pci_ep_kunit_epc_new()
 */
void pci_ep_kunit_epc_destroy(struct kunit *test, struct pci_ep_kunit_epc *k)
{
	KUNIT_EXPECT_TRUE(test, pci_ep_kunit_run_now(test,
						     pci_ep_kunit_destroy_epc,
						     k->epc));
}

/* Detach quietly what the case left attached, then destroy the function. */
static void pci_ep_kunit_destroy_epf(void *data)
{
	struct pci_epf *epf = data;

	while (epf->bind_count)
		pci_epf_unbind(epf);
	if (epf->epc)
		pci_epc_remove_epf(epf->epc, epf, PRIMARY_INTERFACE);
	if (epf->sec_epc)
		pci_epc_remove_epf(epf->sec_epc, epf, SECONDARY_INTERFACE);
	if (epf->epf_pf)
		pci_epf_remove_vepf(epf->epf_pf, epf);
	pci_epf_destroy(epf);
}

/**
 * pci_ep_kunit_epf_new() - create a function for the current case
 * @test: the case
 * @name: its device name, "<driver>.<instance>"
 *
 * The function is detached and destroyed when the case ends. Fails the
 * case when it cannot be created.
 *
 * Return: the function.
 */
struct pci_epf *pci_ep_kunit_epf_new(struct kunit *test, const char *name)
{
	struct pci_epf *epf = pci_epf_create(name);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, epf);
	KUNIT_ASSERT_EQ(test, pci_ep_kunit_defer(test, pci_ep_kunit_destroy_epf,
						 epf), 0);
	return epf;
}

/**
 * pci_ep_kunit_epf_destroy() - destroy a function before the case ends
 * @test: the case
 * @epf: from pci_ep_kunit_epf_new()
 *
 * Unlike the cleanup at the end of the case, this leaves detaching to
 * pci_epf_destroy() itself.
 */
void pci_ep_kunit_epf_destroy(struct kunit *test, struct pci_epf *epf)
{
	struct pci_ep_kunit_action want = {
		.fn = pci_ep_kunit_destroy_epf,
		.arg = epf,
	};
	struct kunit_resource *res;

	res = kunit_find_resource(test, pci_ep_kunit_action_match, &want);
	KUNIT_ASSERT_NOT_NULL(test, res);
	/* forget the cleanup without running it */
	((struct pci_ep_kunit_action *)res->data)->fn = NULL;
	kunit_remove_resource(test, res);
	kunit_put_resource(res);

	pci_epf_destroy(epf);
}

/* The fake function driver. */

unsigned int pci_ep_kunit_probes;
unsigned int pci_ep_kunit_removes;
unsigned int pci_ep_kunit_unbinds;
int pci_ep_kunit_probe_ret;
struct pci_epf *pci_ep_kunit_last_epf;

static int pci_ep_kunit_fn_event(struct pci_epf *epf,
				 enum pci_ep_kunit_event event)
{
	pci_ep_kunit_fn(epf)->events[event]++;
	return 0;
}

static int pci_ep_kunit_core_init(struct pci_epf *epf)
{
	return pci_ep_kunit_fn_event(epf, EPK_CORE_INIT);
}

static int pci_ep_kunit_link_up(struct pci_epf *epf)
{
	return pci_ep_kunit_fn_event(epf, EPK_LINK_UP);
}

static int pci_ep_kunit_link_down(struct pci_epf *epf)
{
	return pci_ep_kunit_fn_event(epf, EPK_LINK_DOWN);
}

static int pci_ep_kunit_bme(struct pci_epf *epf)
{
	return pci_ep_kunit_fn_event(epf, EPK_BME);
}

static const struct pci_epc_event_ops pci_ep_kunit_event_ops = {
	.core_init	= pci_ep_kunit_core_init,
	.link_up	= pci_ep_kunit_link_up,
	.link_down	= pci_ep_kunit_link_down,
	.bme		= pci_ep_kunit_bme,
};

static int pci_ep_kunit_bind(struct pci_epf *epf)
{
	struct pci_ep_kunit_fn *fn = pci_ep_kunit_fn(epf);

	fn->bind_calls++;
	if (fn->bind_bar_size &&
	    !pci_epf_alloc_space(epf, fn->bind_bar_size, BAR_0, 0,
				 PRIMARY_INTERFACE))
		return -ENOMEM;

	return fn->bind_ret;
}

static void pci_ep_kunit_unbind(struct pci_epf *epf)
{
	struct pci_ep_kunit_fn *fn = pci_ep_kunit_fn(epf);

	fn->unbind_calls++;
	pci_ep_kunit_unbinds++;
	if (!fn->unbind_keeps_bar && epf->bar[BAR_0].addr)
		pci_epf_free_space(epf, epf->bar[BAR_0].addr, BAR_0,
				   PRIMARY_INTERFACE);
}

static int pci_ep_kunit_probe(struct pci_epf *epf)
{
	struct pci_ep_kunit_fn *fn;

	pci_ep_kunit_probes++;
	pci_ep_kunit_last_epf = epf;
	if (pci_ep_kunit_probe_ret)
		return pci_ep_kunit_probe_ret;

	fn = devm_kzalloc(&epf->dev, sizeof(*fn), GFP_KERNEL);
	if (!fn)
		return -ENOMEM;

	epf->header = &fn->header;
	epf->event_ops = &pci_ep_kunit_event_ops;
	epf_set_drvdata(epf, fn);

	return 0;
}

static void pci_ep_kunit_remove(struct pci_epf *epf)
{
	pci_ep_kunit_removes++;
	epf->header = NULL;
}

static struct pci_epf_ops pci_ep_kunit_fn_ops = {
	.bind	= pci_ep_kunit_bind,
	.unbind	= pci_ep_kunit_unbind,
};

static const struct pci_epf_device_id pci_ep_kunit_ids[] = {
	{ .name = PCI_EP_KUNIT_DRIVER },
	{ },
};

struct pci_epf_driver pci_ep_kunit_driver = {
	.driver.name	= PCI_EP_KUNIT_DRIVER,
	.probe		= pci_ep_kunit_probe,
	.remove		= pci_ep_kunit_remove,
	.ops		= &pci_ep_kunit_fn_ops,
	.id_table	= pci_ep_kunit_ids,
};

/**
 * pci_ep_kunit_driver_init() - register the fake function driver
 * @suite: the suite, as suite_init of suites that need the driver
 *
 * Return: 0 or the error of the registration.
 */
int pci_ep_kunit_driver_init(struct kunit_suite *suite)
{
	pci_ep_kunit_probe_ret = 0;
	return pci_epf_register_driver(&pci_ep_kunit_driver);
}

/**
 * pci_ep_kunit_driver_exit() - unregister the fake function driver
 * @suite: the suite, as suite_exit
 */
void pci_ep_kunit_driver_exit(struct kunit_suite *suite)
{
	pci_epf_unregister_driver(&pci_ep_kunit_driver);
}
