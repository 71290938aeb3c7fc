/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fakes shared by the KUnit suites of the PCI endpoint framework.
 *
 * A fake controller driver whose callbacks only record what they were
 * asked, registered on a root device of its own; a fake function driver
 * ("pci_epf_kunit") that counts its callbacks; and cleanup that KUnit runs
 * when a case ends, whether it passed, failed an expectation or stopped at
 * an assertion.
 */

#ifndef __PCI_EP_KUNIT_H
#define __PCI_EP_KUNIT_H

#include <kunit/test.h>
#include <linux/pci-epc.h>
#include <linux/pci-epf.h>

/* name the fake function driver matches */
#define PCI_EP_KUNIT_DRIVER	"pci_epf_kunit"

/* the callbacks of the fake controller, for pci_ep_kunit_epc.calls */
enum pci_ep_kunit_op {
	EPK_START,
	EPK_STOP,
	EPK_GET_FEATURES,
	EPK_WRITE_HEADER,
	EPK_SET_BAR,
	EPK_CLEAR_BAR,
	EPK_SET_MSI,
	EPK_GET_MSI,
	EPK_SET_MSIX,
	EPK_GET_MSIX,
	EPK_RAISE_IRQ,
	EPK_MAP_ADDR,
	EPK_UNMAP_ADDR,
	EPK_NR_OPS
};

/**
 * struct pci_ep_kunit_epc - a fake controller and what its callbacks saw
 * @parent: the root device the controller is registered on
 * @epc: the controller
 * @features: returned by get_features() unless @no_features
 * @no_features: get_features() returns NULL
 * @calls: number of calls of each callback, see enum pci_ep_kunit_op
 * @start_ret: returned by start()
 * @get_msi_ret: returned by get_msi()
 * @get_msix_ret: returned by get_msix()
 * @clear_bar_keeps: clear_bar() says the host may still reach the memory
 * @func_no: func_no of the last call
 * @vfunc_no: vfunc_no of the last call
 * @hdr: header of the last write_header()
 * @bar: BAR of the last set_bar() or clear_bar()
 * @msi: encoded vector count of the last set_msi()
 * @msix: encoded table size of the last set_msix()
 * @msix_bir: BAR of the last set_msix()
 * @msix_offset: table offset of the last set_msix()
 * @irq_type: type of the last raise_irq()
 * @irq_num: vector of the last raise_irq()
 */
struct pci_ep_kunit_epc {
	struct device		*parent;
	struct pci_epc		*epc;
	struct pci_epc_features	features;
	bool			no_features;

	unsigned int		calls[EPK_NR_OPS];
	int			start_ret;
	int			get_msi_ret;
	int			get_msix_ret;
	bool			clear_bar_keeps;

	u8			func_no;
	u8			vfunc_no;
	struct pci_epf_header	*hdr;
	struct pci_epf_bar	*bar;
	u8			msi;
	u16			msix;
	enum pci_barno		msix_bir;
	u32			msix_offset;
	enum pci_epc_irq_type	irq_type;
	u16			irq_num;
};

/* the events a bound function handles, for pci_ep_kunit_fn.events */
enum pci_ep_kunit_event {
	EPK_CORE_INIT,
	EPK_LINK_UP,
	EPK_LINK_DOWN,
	EPK_BME,
	EPK_NR_EVENTS
};

/**
 * struct pci_ep_kunit_fn - state of a function bound to the fake driver
 * @header: the function's configuration header
 * @bind_calls: bind() calls
 * @unbind_calls: unbind() calls
 * @bind_ret: returned by bind()
 * @bind_bar_size: when not 0, bind() allocates that much for BAR 0 (before
 *		   returning @bind_ret)
 * @unbind_keeps_bar: unbind() leaves BAR 0 memory for the core to reclaim
 * @events: calls of each event handler, see enum pci_ep_kunit_event
 */
struct pci_ep_kunit_fn {
	struct pci_epf_header	header;
	unsigned int		bind_calls;
	unsigned int		unbind_calls;
	int			bind_ret;
	size_t			bind_bar_size;
	bool			unbind_keeps_bar;
	unsigned int		events[EPK_NR_EVENTS];
};

/* probe(), remove() and unbind() calls of the fake driver, in total */
extern unsigned int pci_ep_kunit_probes;
extern unsigned int pci_ep_kunit_removes;
extern unsigned int pci_ep_kunit_unbinds;
/* the function probe() last saw */
extern struct pci_epf *pci_ep_kunit_last_epf;
/* when not 0, probe() fails with it */
extern int pci_ep_kunit_probe_ret;
extern struct pci_epf_driver pci_ep_kunit_driver;

typedef void (*pci_ep_kunit_action_t)(void *arg);

int pci_ep_kunit_defer(struct kunit *test, pci_ep_kunit_action_t fn,
		       void *arg);
bool pci_ep_kunit_run_now(struct kunit *test, pci_ep_kunit_action_t fn,
			  void *arg);

struct pci_ep_kunit_epc *pci_ep_kunit_epc_new(struct kunit *test,
					      const char *name,
					      u8 max_functions);
void pci_ep_kunit_epc_destroy(struct kunit *test, struct pci_ep_kunit_epc *k);

struct pci_epf *pci_ep_kunit_epf_new(struct kunit *test, const char *name);
void pci_ep_kunit_epf_destroy(struct kunit *test, struct pci_epf *epf);

int pci_ep_kunit_driver_init(struct kunit_suite *suite);
void pci_ep_kunit_driver_exit(struct kunit_suite *suite);

static inline struct pci_ep_kunit_fn *pci_ep_kunit_fn(struct pci_epf *epf)
{
	return epf_get_drvdata(epf);
}

static inline unsigned int pci_ep_kunit_refs(struct pci_epc *epc)
{
	return kref_read(&epc->dev.kobj.kref);
}

#endif /* __PCI_EP_KUNIT_H */
