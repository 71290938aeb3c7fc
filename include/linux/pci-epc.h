/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PCI endpoint controller (EPC) interface.
 *
 * An endpoint controller is the hardware (or, for a virtual link, the
 * driver) that presents one or more endpoint functions to a remote root
 * complex. Controller drivers register a struct pci_epc with the callbacks
 * below; function drivers reach the controller only through the pci_epc_*()
 * helpers, which check their arguments and serialise the callbacks.
 */

#ifndef __LINUX_PCI_EPC_H
#define __LINUX_PCI_EPC_H

#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pci-epf.h>
#include <linux/workqueue.h>

struct pci_epc;

enum pci_epc_interface_type {
	UNKNOWN_INTERFACE = -1,
	PRIMARY_INTERFACE,
	SECONDARY_INTERFACE,
};

enum pci_epc_irq_type {
	PCI_EPC_IRQ_UNKNOWN,
	PCI_EPC_IRQ_LEGACY,
	PCI_EPC_IRQ_MSI,
	PCI_EPC_IRQ_MSIX,
};

static inline const char *
pci_epc_interface_string(enum pci_epc_interface_type type)
{
	if (type == PRIMARY_INTERFACE)
		return "primary";
	if (type == SECONDARY_INTERFACE)
		return "secondary";
	return "UNKNOWN interface";
}

/**
 * struct pci_epc_ops - callbacks of an endpoint controller driver
 * @write_header: program the configuration header of a function
 * @set_bar: make a BAR of a function point at local memory
 * @clear_bar: undo @set_bar
 * @map_addr: make the local physical range starting at the given address
 *	      (inside an outbound window) reach a PCI address of the host
 * @unmap_addr: undo @map_addr
 * @set_msi: advertise MSI; the vector count arrives as a log2 encoding, as
 *	     in the Multiple Message Capable field
 * @get_msi: return the log2 encoding of the vectors the host enabled, or a
 *	     negative errno when MSI is disabled
 * @set_msix: advertise MSI-X; the table size arrives minus one, as in the
 *	      Table Size field, with the BAR and offset of the table
 * @get_msix: return the enabled table size minus one, or a negative errno
 *	      when MSI-X is disabled
 * @raise_irq: signal a legacy, MSI or MSI-X interrupt to the host
 * @map_msi_irq: map an outbound address onto the MSI address of a vector and
 *		 return the data to write there
 * @start: bring the link up
 * @stop: take the link down
 * @get_features: describe what the controller supports for a function
 * @owner: module implementing the callbacks
 *
 * Every callback but @raise_irq is called with &struct pci_epc.lock held,
 * so those never run concurrently on one controller. @raise_irq is called
 * under &struct pci_epc.irq_lock instead, a spinlock taken with interrupts
 * off, because function drivers raise interrupts from atomic context (an
 * NTB doorbell from a network transmit, say): it must not sleep, and it may
 * run while another callback does. A callback must not call the
 * pci_epc_*() helpers or the event functions (pci_epc_linkup() and its
 * siblings), nor wait for work that does: event handlers of functions call
 * the helpers, which take the same lock. Report events from a work item or
 * a threaded interrupt handler instead.
 */
struct pci_epc_ops {
	int	(*start)(struct pci_epc *epc);
	void	(*stop)(struct pci_epc *epc);
	const struct pci_epc_features *(*get_features)(struct pci_epc *epc,
						       u8 func_no, u8 vfunc_no);

	int	(*write_header)(struct pci_epc *epc, u8 func_no,
				u8 vfunc_no, struct pci_epf_header *hdr);
	int	(*set_bar)(struct pci_epc *epc, u8 func_no,
			   u8 vfunc_no, struct pci_epf_bar *epf_bar);
	void	(*clear_bar)(struct pci_epc *epc, u8 func_no,
			     u8 vfunc_no, struct pci_epf_bar *epf_bar);

	int	(*set_msi)(struct pci_epc *epc,
			   u8 func_no, u8 vfunc_no, u8 interrupts);
	int	(*get_msi)(struct pci_epc *epc,
			   u8 func_no, u8 vfunc_no);
	int	(*set_msix)(struct pci_epc *epc,
			    u8 func_no, u8 vfunc_no, u16 interrupts,
			    enum pci_barno, u32 offset);
	int	(*get_msix)(struct pci_epc *epc,
			    u8 func_no, u8 vfunc_no);
	int	(*raise_irq)(struct pci_epc *epc, u8 func_no,
			     u8 vfunc_no, enum pci_epc_irq_type type,
			     u16 interrupt_num);
	int	(*map_msi_irq)(struct pci_epc *epc,
			       u8 func_no, u8 vfunc_no, phys_addr_t phys_addr,
			       u8 interrupt_num, u32 entry_size, u32 *msi_data,
			       u32 *msi_addr_offset);

	int	(*map_addr)(struct pci_epc *epc,
			    u8 func_no, u8 vfunc_no, phys_addr_t addr,
			    u64 pci_addr, size_t size);
	void	(*unmap_addr)(struct pci_epc *epc,
			      u8 func_no, u8 vfunc_no, phys_addr_t addr);

	struct module *owner;
};

/**
 * struct pci_epc_mem_window - an outbound address window of a controller
 * @phys_base: CPU physical address of the start of the window
 * @size: size of the window in bytes
 * @page_size: allocation granule; smaller values are raised to PAGE_SIZE
 * @virt_base: kernel virtual address at which the controller has already
 *	       mapped the whole window, or NULL
 *
 * When @virt_base is NULL, pci_epc_mem_alloc_addr() ioremap()s each
 * allocation and pci_epc_mem_free_addr() unmaps it again. A controller whose
 * outbound translation works by retargeting an existing CPU mapping (instead
 * of an address translation unit in front of a fixed physical range) maps
 * the window once, stores the mapping in @virt_base and passes the window
 * to pci_epc_multi_mem_init(); allocations then return @virt_base plus the
 * offset of the allocation, and nothing is mapped or unmapped per
 * allocation. The controller keeps the mapping alive until after
 * pci_epc_mem_exit(). Callers that build windows on the stack must clear
 * this field when they do not use it.
 */
struct pci_epc_mem_window {
	phys_addr_t	phys_base;
	size_t		size;
	size_t		page_size;
	void __iomem	*virt_base;
};

/**
 * struct pci_epc_mem - allocator state of one outbound window
 * @window: the window, with @window.page_size already normalised
 * @bitmap: one bit per page, set while the page is allocated
 * @starts: one bit per page, set on the first page of each allocation
 * @pages: number of pages (bits) in the window
 * @lock: protects @bitmap and @starts
 */
struct pci_epc_mem {
	struct pci_epc_mem_window window;
	unsigned long	*bitmap;
	unsigned long	*starts;
	int		pages;
	/* see @lock in the kernel-doc above */
	struct mutex	lock;
};

/**
 * struct pci_epc - an endpoint controller
 * @dev: the controller's device in class pci_epc, named after its parent
 * @pci_epf: functions attached through their primary interface, linked by
 *	     &struct pci_epf.list
 * @sec_pci_epf: functions attached through their secondary interface,
 *		 linked by &struct pci_epf.sec_epc_list
 * @list_lock: protects @pci_epf, @sec_pci_epf, @function_num_map and the
 *	       controller fields of the functions on the lists
 * @ops: controller callbacks; NULL once pci_epc_destroy() has run
 * @owner: module pinned while a function is attached
 * @windows: outbound windows set up by pci_epc_multi_mem_init()
 * @mem: the first of @windows
 * @num_windows: number of entries in @windows
 * @max_functions: physical functions the controller supports; 0 is taken
 *		   as 1 (a controller that does not say supports function 0)
 * @max_vfs: for each physical function, how many virtual functions it
 *	     supports, or NULL when the controller has none
 * @group: configfs directory of the controller
 * @lock: serialises the callbacks in @ops and protects @ops itself
 * @irq_lock: protects @ops for pci_epc_raise_irq(), which may be called in
 *	      atomic context
 * @function_num_map: physical function numbers in use
 * @notifier: chain for pci_epc_register_notifier(); process context only
 * @event_work: delivers the events a controller reported in atomic context
 * @deferred: bits of the events waiting for @event_work
 */
struct pci_epc {
	struct device			dev;
	const struct pci_epc_ops	*ops;
	struct module			*owner;
	/* see @lock in the kernel-doc above */
	struct mutex			lock;
	spinlock_t			irq_lock;	/* @ops, for raise_irq */

	/* see @list_lock in the kernel-doc above */
	struct mutex			list_lock;
	struct list_head		pci_epf;
	struct list_head		sec_pci_epf;
	unsigned long			function_num_map;
	u8				max_functions;
	u8				*max_vfs;

	struct pci_epc_mem		**windows;
	struct pci_epc_mem		*mem;
	unsigned int			num_windows;

	struct config_group		*group;
	struct blocking_notifier_head	notifier;
	struct work_struct		event_work;
	unsigned long			deferred;
};

/**
 * struct pci_epc_features - what a controller supports for one function
 * @linkup_notifier: the controller calls pci_epc_linkup() when the link
 *		     comes up; without it functions assume the link is up
 * @core_init_notifier: the controller calls pci_epc_init_notify() once its
 *			core can be programmed; until then functions must
 *			not touch it
 * @msi_capable: the function can raise MSI
 * @msix_capable: the function can raise MSI-X
 * @reserved_bar: BARs the function must leave alone, one bit per BAR
 * @bar_fixed_64bit: BARs that are always 64-bit, one bit per BAR
 * @bar_fixed_size: size of BARs whose size the hardware fixes, else 0
 * @align: alignment the inbound translation needs for BAR memory
 */
struct pci_epc_features {
	unsigned int	msi_capable : 1;
	unsigned int	msix_capable : 1;
	unsigned int	linkup_notifier : 1;
	unsigned int	core_init_notifier : 1;
	size_t	align;
	u8	reserved_bar;
	u8	bar_fixed_64bit;
	u64	bar_fixed_size[PCI_STD_NUM_BARS];
};

#define to_pci_epc(device) container_of((device), struct pci_epc, dev)

#define pci_epc_create(dev, ops)	\
	__pci_epc_create((dev), (ops), THIS_MODULE)
#define devm_pci_epc_create(dev, ops)	\
	__devm_pci_epc_create((dev), (ops), THIS_MODULE)

static inline void epc_set_drvdata(struct pci_epc *epc, void *data)
{
	dev_set_drvdata(&epc->dev, data);
}

static inline void *epc_get_drvdata(struct pci_epc *epc)
{
	return dev_get_drvdata(&epc->dev);
}

/*
 * The chain is a blocking one: callbacks may sleep and may call the
 * pci_epc_*() helpers. A function's @nb is taken off the chain by
 * pci_epf_unbind(), so a driver registers it again on every bind.
 */
static inline int
pci_epc_register_notifier(struct pci_epc *epc, struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&epc->notifier, nb);
}

struct pci_epc *__pci_epc_create(struct device *dev,
				 const struct pci_epc_ops *ops,
				 struct module *owner);
struct pci_epc *__devm_pci_epc_create(struct device *dev,
				      const struct pci_epc_ops *ops,
				      struct module *owner);
void pci_epc_destroy(struct pci_epc *epc);
void devm_pci_epc_destroy(struct device *dev, struct pci_epc *epc);

struct pci_epc *pci_epc_get(const char *epc_name);
void pci_epc_put(struct pci_epc *epc);

int pci_epc_add_epf(struct pci_epc *epc, struct pci_epf *epf,
		    enum pci_epc_interface_type type);
void pci_epc_remove_epf(struct pci_epc *epc, struct pci_epf *epf,
			enum pci_epc_interface_type type);

void pci_epc_init_notify(struct pci_epc *epc);
void pci_epc_linkup(struct pci_epc *epc);
void pci_epc_linkdown(struct pci_epc *epc);
void pci_epc_bme_notify(struct pci_epc *epc);

int pci_epc_start(struct pci_epc *epc);
void pci_epc_stop(struct pci_epc *epc);

const struct pci_epc_features *pci_epc_get_features(struct pci_epc *epc,
						    u8 func_no, u8 vfunc_no);
enum pci_barno
pci_epc_get_first_free_bar(const struct pci_epc_features *epc_features);
enum pci_barno
pci_epc_get_next_free_bar(const struct pci_epc_features *epc_features,
			  enum pci_barno bar);

int pci_epc_write_header(struct pci_epc *epc,
			 u8 func_no, u8 vfunc_no, struct pci_epf_header *hdr);
int pci_epc_set_bar(struct pci_epc *epc,
		    u8 func_no, u8 vfunc_no, struct pci_epf_bar *epf_bar);
void pci_epc_clear_bar(struct pci_epc *epc,
		       u8 func_no, u8 vfunc_no, struct pci_epf_bar *epf_bar);
int pci_epc_set_msi(struct pci_epc *epc,
		    u8 func_no, u8 vfunc_no, u8 interrupts);
int pci_epc_get_msi(struct pci_epc *epc, u8 func_no, u8 vfunc_no);
int pci_epc_set_msix(struct pci_epc *epc,
		     u8 func_no, u8 vfunc_no, u16 interrupts,
		     enum pci_barno, u32 offset);
int pci_epc_get_msix(struct pci_epc *epc, u8 func_no, u8 vfunc_no);
int pci_epc_raise_irq(struct pci_epc *epc,
		      u8 func_no, u8 vfunc_no, enum pci_epc_irq_type type,
		      u16 interrupt_num);
int pci_epc_map_msi_irq(struct pci_epc *epc,
			u8 func_no, u8 vfunc_no, phys_addr_t phys_addr,
			u8 interrupt_num, u32 entry_size, u32 *msi_data,
			u32 *msi_addr_offset);
int pci_epc_map_addr(struct pci_epc *epc,
		     u8 func_no, u8 vfunc_no, phys_addr_t phys_addr,
		     u64 pci_addr, size_t size);
void pci_epc_unmap_addr(struct pci_epc *epc,
			u8 func_no, u8 vfunc_no, phys_addr_t phys_addr);

int pci_epc_mem_init(struct pci_epc *epc, phys_addr_t base,
		     size_t size, size_t page_size);
int pci_epc_multi_mem_init(struct pci_epc *epc,
			   struct pci_epc_mem_window *window,
			   unsigned int num_windows);
void pci_epc_mem_exit(struct pci_epc *epc);
void __iomem *pci_epc_mem_alloc_addr(struct pci_epc *epc,
				     phys_addr_t *phys_addr, size_t size);
void pci_epc_mem_free_addr(struct pci_epc *epc, phys_addr_t phys_addr,
			   void __iomem *virt_addr, size_t size);

#endif /* __LINUX_PCI_EPC_H */
