// SPDX-License-Identifier: GPL-2.0
/*
 * PCI endpoint controller (EPC) core.
 *
 * Controller drivers register here; function drivers call the pci_epc_*()
 * helpers, which validate what they are given before a controller callback
 * sees it, so that a buggy or hostile function driver gets an errno instead
 * of programming a function or BAR that does not exist.
 *
 * Locking
 * -------
 * epc->lock        Serialises every call into epc->ops and protects the
 *                  ops pointer itself, which pci_epc_destroy() clears so
 *                  that late callers get -ENODEV instead of calling into a
 *                  driver that is gone.
 * epc->list_lock   Protects the lists of attached functions, the function
 *                  number bitmap and, for attached functions, epf->epc,
 *                  epf->func_no, epf->sec_epc and epf->sec_epc_func_no.
 * epf->lock        (pci-epf-core.c) Serialises a function driver's
 *                  callbacks and its binding state.
 * epc->notifier    A blocking notifier chain; its own rwsem protects it.
 *
 * Nesting order: the configfs layer's mutex, epc->list_lock, epf->lock,
 * the notifier's rwsem, epc->lock. Events walk the function list
 * (list_lock) and call each function's handlers (epf->lock), which may
 * call the helpers (epc->lock); binding registers and unregisters notifier
 * blocks under epf->lock. The core takes nothing while epc->lock is held,
 * which is why controller callbacks must neither call the helpers nor
 * report events synchronously: a controller that learns about the link
 * inside a callback reports it from a work item.
 *
 * Lifetime
 * --------
 * struct pci_epc is reference counted through its struct device. Every
 * attached function and every pci_epc_get() holds a reference on the
 * device and on the controller's module, so neither disappears while a
 * function may still call in. pci_epc_destroy() detaches what is left and
 * unregisters the device; the memory goes with the last reference.
 */

#include <linux/device.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <linux/pci-epc.h>
#include <linux/pci-epf.h>
#include <linux/pci-ep-cfs.h>

static struct class *pci_epc_class;

/*
 * Function numbers come from an unsigned long bitmap, and a controller that
 * does not say how many functions it has is assumed to have one: offering
 * numbers it cannot decode would only produce functions the host never sees.
 */
static unsigned int pci_epc_nr_functions(const struct pci_epc *epc)
{
	unsigned int nr = epc->max_functions ? epc->max_functions : 1;

	return min_t(unsigned int, nr, BITS_PER_LONG);
}

/* Is (func_no, vfunc_no) a function this controller can have? */
static bool pci_epc_function_ok(const struct pci_epc *epc, u8 func_no,
				u8 vfunc_no)
{
	if (IS_ERR_OR_NULL(epc))
		return false;
	if (func_no >= pci_epc_nr_functions(epc))
		return false;
	/* vfunc_no 0 addresses the physical function itself */
	if (vfunc_no && (!epc->max_vfs || vfunc_no > epc->max_vfs[func_no]))
		return false;
	return true;
}

/*
 * Take epc->lock and return the controller's callbacks, or return NULL
 * without the lock when the controller has been destroyed.
 */
static const struct pci_epc_ops *pci_epc_lock_ops(struct pci_epc *epc)
{
	mutex_lock(&epc->lock);
	if (epc->ops)
		return epc->ops;
	mutex_unlock(&epc->lock);
	return NULL;
}

/**
 * pci_epc_get() - look up a controller by name and hold it
 * @epc_name: name of the controller device (that of its parent device)
 *
 * Holds a reference on the controller and on its module until
 * pci_epc_put().
 *
 * Return: the controller, ERR_PTR(-EINVAL) for a NULL name, or
 * ERR_PTR(-ENODEV) when there is no such controller or it is going away.
 */
struct pci_epc *pci_epc_get(const char *epc_name)
{
	struct pci_epc *epc;
	struct device *dev;

	if (!epc_name)
		return ERR_PTR(-EINVAL);

	dev = class_find_device_by_name(pci_epc_class, epc_name);
	if (!dev)
		return ERR_PTR(-ENODEV);

	epc = to_pci_epc(dev);
	if (!try_module_get(epc->owner)) {
		put_device(dev);
		return ERR_PTR(-ENODEV);
	}

	return epc;
}
EXPORT_SYMBOL_GPL(pci_epc_get);

/**
 * pci_epc_put() - drop what pci_epc_get() took
 * @epc: the controller; NULL and error pointers are ignored
 */
void pci_epc_put(struct pci_epc *epc)
{
	if (IS_ERR_OR_NULL(epc))
		return;

	module_put(epc->owner);
	put_device(&epc->dev);
}
EXPORT_SYMBOL_GPL(pci_epc_put);

/**
 * pci_epc_get_next_free_bar() - find a BAR a function may use
 * @epc_features: the controller's features; NULL means every BAR is free
 * @bar: first BAR to consider
 *
 * A BAR is not free when the controller reserves it, or when it is the
 * upper half of a 64-bit BAR: of a reserved one anywhere, and of a fixed
 * 64-bit one just below @bar (the caller's previous pick).
 *
 * Return: the lowest free BAR at or above @bar, or NO_BAR.
 */
enum pci_barno
pci_epc_get_next_free_bar(const struct pci_epc_features *epc_features,
			  enum pci_barno bar)
{
	unsigned int reserved_lower_halves;
	int i;

	if (bar < BAR_0 || bar > BAR_5)
		return NO_BAR;
	if (!epc_features)
		return bar;

	if (bar > BAR_0 && (epc_features->bar_fixed_64bit & BIT(bar - 1)))
		bar++;

	reserved_lower_halves = epc_features->reserved_bar &
				epc_features->bar_fixed_64bit;

	for (i = bar; i <= BAR_5; i++) {
		if (epc_features->reserved_bar & BIT(i))
			continue;
		if (i > BAR_0 && (reserved_lower_halves & BIT(i - 1)))
			continue;
		return i;
	}

	return NO_BAR;
}
EXPORT_SYMBOL_GPL(pci_epc_get_next_free_bar);

/**
 * pci_epc_get_first_free_bar() - find the first BAR a function may use
 * @epc_features: the controller's features; NULL means every BAR is free
 *
 * Return: the lowest free BAR, or NO_BAR; see pci_epc_get_next_free_bar().
 */
enum pci_barno
pci_epc_get_first_free_bar(const struct pci_epc_features *epc_features)
{
	return pci_epc_get_next_free_bar(epc_features, BAR_0);
}
EXPORT_SYMBOL_GPL(pci_epc_get_first_free_bar);

/**
 * pci_epc_get_features() - ask what the controller supports for a function
 * @epc: the controller
 * @func_no: physical function number
 * @vfunc_no: virtual function number, 0 for the physical function
 *
 * Return: the controller's feature description, or NULL when the arguments
 * are invalid, the controller does not describe its features or is gone.
 */
const struct pci_epc_features *pci_epc_get_features(struct pci_epc *epc,
						    u8 func_no, u8 vfunc_no)
{
	const struct pci_epc_features *features = NULL;
	const struct pci_epc_ops *ops;

	if (!pci_epc_function_ok(epc, func_no, vfunc_no))
		return NULL;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return NULL;
	if (ops->get_features)
		features = ops->get_features(epc, func_no, vfunc_no);
	mutex_unlock(&epc->lock);

	return features;
}
EXPORT_SYMBOL_GPL(pci_epc_get_features);

/**
 * pci_epc_start() - bring the link of a controller up
 * @epc: the controller
 *
 * Return: 0 on success (also when the controller has nothing to start),
 * -EINVAL for a bad @epc, -ENODEV when the controller is gone, or the
 * controller's error.
 */
int pci_epc_start(struct pci_epc *epc)
{
	const struct pci_epc_ops *ops;
	int ret = 0;

	if (IS_ERR_OR_NULL(epc))
		return -EINVAL;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return -ENODEV;
	if (ops->start)
		ret = ops->start(epc);
	mutex_unlock(&epc->lock);

	return ret;
}
EXPORT_SYMBOL_GPL(pci_epc_start);

/**
 * pci_epc_stop() - take the link of a controller down
 * @epc: the controller; NULL and error pointers are ignored
 */
void pci_epc_stop(struct pci_epc *epc)
{
	const struct pci_epc_ops *ops;

	if (IS_ERR_OR_NULL(epc))
		return;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return;
	if (ops->stop)
		ops->stop(epc);
	mutex_unlock(&epc->lock);
}
EXPORT_SYMBOL_GPL(pci_epc_stop);

/**
 * pci_epc_write_header() - program the configuration header of a function
 * @epc: the controller
 * @func_no: physical function number
 * @vfunc_no: virtual function number, 0 for the physical function
 * @hdr: the header
 *
 * Virtual functions share their physical function's header; only the first
 * one has a device ID of its own, so @vfunc_no may be 0 or 1.
 *
 * Return: 0 on success, -EINVAL for invalid arguments, -ENODEV when the
 * controller is gone, or the controller's error.
 */
int pci_epc_write_header(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			 struct pci_epf_header *hdr)
{
	const struct pci_epc_ops *ops;
	int ret = 0;

	if (!pci_epc_function_ok(epc, func_no, vfunc_no) || !hdr ||
	    vfunc_no > 1)
		return -EINVAL;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return -ENODEV;
	if (ops->write_header)
		ret = ops->write_header(epc, func_no, vfunc_no, hdr);
	mutex_unlock(&epc->lock);

	return ret;
}
EXPORT_SYMBOL_GPL(pci_epc_write_header);

/*
 * A BAR description the controller can act on: a real BAR number, no
 * 64-bit BAR in the last slot (it has no upper half), no I/O BAR with
 * memory-only flag bits, and no size beyond 4 GiB unless 64-bit.
 */
static bool pci_epc_bar_ok(const struct pci_epf_bar *epf_bar)
{
	int flags;

	if (!epf_bar || epf_bar->barno < BAR_0 || epf_bar->barno > BAR_5)
		return false;

	flags = epf_bar->flags;
	if ((flags & PCI_BASE_ADDRESS_MEM_TYPE_64) && epf_bar->barno == BAR_5)
		return false;
	if ((flags & PCI_BASE_ADDRESS_SPACE_IO) &&
	    (flags & PCI_BASE_ADDRESS_IO_MASK))
		return false;
	if (upper_32_bits(epf_bar->size) &&
	    !(flags & PCI_BASE_ADDRESS_MEM_TYPE_64))
		return false;

	return true;
}

/**
 * pci_epc_set_bar() - make a BAR of a function point at local memory
 * @epc: the controller
 * @func_no: physical function number
 * @vfunc_no: virtual function number, 0 for the physical function
 * @epf_bar: the BAR, usually filled in by pci_epf_alloc_space()
 *
 * Return: 0 on success, -EINVAL for invalid arguments or an impossible BAR
 * (64-bit BAR 5, over 4 GiB without the 64-bit flag, bad I/O flags),
 * -ENODEV when the controller is gone, or the controller's error.
 */
int pci_epc_set_bar(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
		    struct pci_epf_bar *epf_bar)
{
	const struct pci_epc_ops *ops;
	int ret = 0;

	if (!pci_epc_function_ok(epc, func_no, vfunc_no) ||
	    !pci_epc_bar_ok(epf_bar))
		return -EINVAL;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return -ENODEV;
	if (ops->set_bar)
		ret = ops->set_bar(epc, func_no, vfunc_no, epf_bar);
	mutex_unlock(&epc->lock);

	return ret;
}
EXPORT_SYMBOL_GPL(pci_epc_set_bar);

/**
 * pci_epc_clear_bar() - undo pci_epc_set_bar()
 * @epc: the controller
 * @func_no: physical function number
 * @vfunc_no: virtual function number, 0 for the physical function
 * @epf_bar: the BAR passed to pci_epc_set_bar()
 *
 * Invalid arguments are ignored, as there is nothing to undo for them.
 */
void pci_epc_clear_bar(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
		       struct pci_epf_bar *epf_bar)
{
	const struct pci_epc_ops *ops;

	if (!pci_epc_function_ok(epc, func_no, vfunc_no) ||
	    !pci_epc_bar_ok(epf_bar))
		return;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return;
	if (ops->clear_bar)
		ops->clear_bar(epc, func_no, vfunc_no, epf_bar);
	mutex_unlock(&epc->lock);
}
EXPORT_SYMBOL_GPL(pci_epc_clear_bar);

/**
 * pci_epc_map_addr() - point part of an outbound window at host memory
 * @epc: the controller
 * @func_no: physical function number
 * @vfunc_no: virtual function number, 0 for the physical function
 * @phys_addr: start of a range from pci_epc_mem_alloc_addr()
 * @pci_addr: PCI address of the host memory
 * @size: bytes to map
 *
 * Return: 0 on success, -EINVAL for invalid arguments, -EOPNOTSUPP when the
 * controller cannot map (accesses through the window would go nowhere),
 * -ENODEV when the controller is gone, or the controller's error.
 */
int pci_epc_map_addr(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
		     phys_addr_t phys_addr, u64 pci_addr, size_t size)
{
	const struct pci_epc_ops *ops;
	int ret = -EOPNOTSUPP;

	if (!pci_epc_function_ok(epc, func_no, vfunc_no) || !size)
		return -EINVAL;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return -ENODEV;
	if (ops->map_addr)
		ret = ops->map_addr(epc, func_no, vfunc_no, phys_addr,
				    pci_addr, size);
	mutex_unlock(&epc->lock);

	return ret;
}
EXPORT_SYMBOL_GPL(pci_epc_map_addr);

/**
 * pci_epc_unmap_addr() - undo pci_epc_map_addr()
 * @epc: the controller
 * @func_no: physical function number
 * @vfunc_no: virtual function number, 0 for the physical function
 * @phys_addr: the address passed to pci_epc_map_addr()
 */
void pci_epc_unmap_addr(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			phys_addr_t phys_addr)
{
	const struct pci_epc_ops *ops;

	if (!pci_epc_function_ok(epc, func_no, vfunc_no))
		return;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return;
	if (ops->unmap_addr)
		ops->unmap_addr(epc, func_no, vfunc_no, phys_addr);
	mutex_unlock(&epc->lock);
}
EXPORT_SYMBOL_GPL(pci_epc_unmap_addr);

/**
 * pci_epc_set_msi() - advertise MSI for a function
 * @epc: the controller
 * @func_no: physical function number
 * @vfunc_no: virtual function number, 0 for the physical function
 * @interrupts: vectors wanted, 1 to 32; rounded up to a power of two
 *
 * Return: 0 on success, -EINVAL for invalid arguments, -ENODEV when the
 * controller is gone, or the controller's error.
 */
int pci_epc_set_msi(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
		    u8 interrupts)
{
	const struct pci_epc_ops *ops;
	int ret = 0;

	if (!pci_epc_function_ok(epc, func_no, vfunc_no) ||
	    interrupts < 1 || interrupts > 32)
		return -EINVAL;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return -ENODEV;
	/* the capability encodes the count as its log2 */
	if (ops->set_msi)
		ret = ops->set_msi(epc, func_no, vfunc_no,
				   order_base_2(interrupts));
	mutex_unlock(&epc->lock);

	return ret;
}
EXPORT_SYMBOL_GPL(pci_epc_set_msi);

/**
 * pci_epc_get_msi() - how many MSI vectors the host enabled
 * @epc: the controller
 * @func_no: physical function number
 * @vfunc_no: virtual function number, 0 for the physical function
 *
 * Return: the number of vectors, or 0 when MSI is disabled, unsupported or
 * the arguments are invalid.
 */
int pci_epc_get_msi(struct pci_epc *epc, u8 func_no, u8 vfunc_no)
{
	const struct pci_epc_ops *ops;
	int encoded = -EINVAL;

	if (!pci_epc_function_ok(epc, func_no, vfunc_no))
		return 0;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return 0;
	if (ops->get_msi)
		encoded = ops->get_msi(epc, func_no, vfunc_no);
	mutex_unlock(&epc->lock);

	/* Multiple Message Enable is a 3-bit field; 32 vectors at most */
	if (encoded < 0 || encoded > 5)
		return 0;
	return 1 << encoded;
}
EXPORT_SYMBOL_GPL(pci_epc_get_msi);

/**
 * pci_epc_set_msix() - advertise MSI-X for a function
 * @epc: the controller
 * @func_no: physical function number
 * @vfunc_no: virtual function number, 0 for the physical function
 * @interrupts: table size, 1 to 2048
 * @bir: BAR that holds the table and the pending bit array
 * @offset: offset of the table in that BAR
 *
 * Return: 0 on success, -EINVAL for invalid arguments, -ENODEV when the
 * controller is gone, or the controller's error.
 */
int pci_epc_set_msix(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
		     u16 interrupts, enum pci_barno bir, u32 offset)
{
	const struct pci_epc_ops *ops;
	int ret = 0;

	if (!pci_epc_function_ok(epc, func_no, vfunc_no) ||
	    interrupts < 1 || interrupts > 2048 ||
	    bir < BAR_0 || bir > BAR_5)
		return -EINVAL;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return -ENODEV;
	/* the capability stores the table size minus one */
	if (ops->set_msix)
		ret = ops->set_msix(epc, func_no, vfunc_no, interrupts - 1,
				    bir, offset);
	mutex_unlock(&epc->lock);

	return ret;
}
EXPORT_SYMBOL_GPL(pci_epc_set_msix);

/**
 * pci_epc_get_msix() - how many MSI-X vectors the function has
 * @epc: the controller
 * @func_no: physical function number
 * @vfunc_no: virtual function number, 0 for the physical function
 *
 * Return: the table size, or 0 when MSI-X is disabled, unsupported or the
 * arguments are invalid.
 */
int pci_epc_get_msix(struct pci_epc *epc, u8 func_no, u8 vfunc_no)
{
	const struct pci_epc_ops *ops;
	int size_minus_one = -EINVAL;

	if (!pci_epc_function_ok(epc, func_no, vfunc_no))
		return 0;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return 0;
	if (ops->get_msix)
		size_minus_one = ops->get_msix(epc, func_no, vfunc_no);
	mutex_unlock(&epc->lock);

	return size_minus_one < 0 ? 0 : size_minus_one + 1;
}
EXPORT_SYMBOL_GPL(pci_epc_get_msix);

/**
 * pci_epc_raise_irq() - interrupt the host
 * @epc: the controller
 * @func_no: physical function number
 * @vfunc_no: virtual function number, 0 for the physical function
 * @type: legacy, MSI or MSI-X
 * @interrupt_num: vector number, counting from 1; ignored for legacy
 *
 * Context: any; does not sleep.
 *
 * Return: 0 on success, -EINVAL for invalid arguments (including an MSI
 * vector outside 1-32 or an MSI-X vector outside 1-2048), -EOPNOTSUPP when
 * the controller cannot interrupt the host, -ENODEV when it is gone, or
 * the controller's error.
 */
int pci_epc_raise_irq(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
		      enum pci_epc_irq_type type, u16 interrupt_num)
{
	const struct pci_epc_ops *ops;
	int ret = -EOPNOTSUPP;
	unsigned long flags;

	if (!pci_epc_function_ok(epc, func_no, vfunc_no))
		return -EINVAL;
	/* vector numbers count from 1, up to what the capabilities allow */
	if (type == PCI_EPC_IRQ_MSI && (!interrupt_num || interrupt_num > 32))
		return -EINVAL;
	if (type == PCI_EPC_IRQ_MSIX &&
	    (!interrupt_num || interrupt_num > 2048))
		return -EINVAL;
	if (type != PCI_EPC_IRQ_LEGACY && type != PCI_EPC_IRQ_MSI &&
	    type != PCI_EPC_IRQ_MSIX)
		return -EINVAL;

	spin_lock_irqsave(&epc->irq_lock, flags);
	ops = epc->ops;
	if (!ops)
		ret = -ENODEV;
	else if (ops->raise_irq)
		ret = ops->raise_irq(epc, func_no, vfunc_no, type,
				     interrupt_num);
	spin_unlock_irqrestore(&epc->irq_lock, flags);

	return ret;
}
EXPORT_SYMBOL_GPL(pci_epc_raise_irq);

/**
 * pci_epc_map_msi_irq() - map an outbound address onto an MSI vector
 * @epc: the controller
 * @func_no: physical function number
 * @vfunc_no: virtual function number, 0 for the physical function
 * @phys_addr: outbound address (from pci_epc_mem_alloc_addr()) to map
 * @interrupt_num: MSI vector, counting from 1
 * @entry_size: bytes of outbound space reserved per vector
 * @msi_data: set to the data that signals the vector
 * @msi_addr_offset: set to the offset of the MSI address from @phys_addr
 *
 * Lets a peer (such as the other side of an NTB) raise the host's MSI by
 * writing @msi_data at @phys_addr + @msi_addr_offset.
 *
 * Return: 0 on success, -EINVAL for invalid arguments or when the
 * controller cannot do this, -ENODEV when it is gone, or its error.
 */
int pci_epc_map_msi_irq(struct pci_epc *epc, u8 func_no, u8 vfunc_no,
			phys_addr_t phys_addr, u8 interrupt_num,
			u32 entry_size, u32 *msi_data, u32 *msi_addr_offset)
{
	const struct pci_epc_ops *ops;
	int ret = -EINVAL;

	if (!pci_epc_function_ok(epc, func_no, vfunc_no) || !msi_data ||
	    !msi_addr_offset)
		return -EINVAL;

	ops = pci_epc_lock_ops(epc);
	if (!ops)
		return -ENODEV;
	if (ops->map_msi_irq)
		ret = ops->map_msi_irq(epc, func_no, vfunc_no, phys_addr,
				       interrupt_num, entry_size, msi_data,
				       msi_addr_offset);
	mutex_unlock(&epc->lock);

	return ret;
}
EXPORT_SYMBOL_GPL(pci_epc_map_msi_irq);

/**
 * pci_epc_add_epf() - attach a function to a controller
 * @epc: the controller
 * @epf: the function; must be a physical function
 * @type: whether @epc becomes the function's primary or secondary
 *	  controller
 *
 * Gives the function the lowest free function number of the controller and
 * holds the controller (device and module) until pci_epc_remove_epf().
 *
 * Return: 0 on success, -EINVAL for invalid arguments or a virtual function,
 * -EBUSY when the function already has a controller for @type, -ENOSPC when
 * all function numbers are taken, -ENODEV when the controller is going away.
 */
int pci_epc_add_epf(struct pci_epc *epc, struct pci_epf *epf,
		    enum pci_epc_interface_type type)
{
	unsigned int nr, func_no;
	int ret = 0;

	if (IS_ERR_OR_NULL(epc) || IS_ERR_OR_NULL(epf) || epf->is_vf)
		return -EINVAL;
	if (type != PRIMARY_INTERFACE && type != SECONDARY_INTERFACE)
		return -EINVAL;

	if (!try_module_get(epc->owner))
		return -ENODEV;

	mutex_lock(&epc->list_lock);
	nr = pci_epc_nr_functions(epc);
	func_no = find_first_zero_bit(&epc->function_num_map, nr);

	if (!epc->ops) {
		ret = -ENODEV;
	} else if (type == PRIMARY_INTERFACE ? epf->epc : epf->sec_epc) {
		ret = -EBUSY;
	} else if (func_no >= nr) {
		dev_err(&epc->dev, "all %u function numbers are in use\n", nr);
		ret = -ENOSPC;
	} else {
		__set_bit(func_no, &epc->function_num_map);
		get_device(&epc->dev);
		if (type == PRIMARY_INTERFACE) {
			epf->epc = epc;
			epf->func_no = func_no;
			list_add_tail(&epf->list, &epc->pci_epf);
		} else {
			epf->sec_epc = epc;
			epf->sec_epc_func_no = func_no;
			list_add_tail(&epf->sec_epc_list, &epc->sec_pci_epf);
		}
	}
	mutex_unlock(&epc->list_lock);

	if (ret)
		module_put(epc->owner);
	return ret;
}
EXPORT_SYMBOL_GPL(pci_epc_add_epf);

/**
 * pci_epc_remove_epf() - detach a function from a controller
 * @epc: the controller
 * @epf: the function
 * @type: the interface given to pci_epc_add_epf()
 *
 * Frees the function number and drops what pci_epc_add_epf() held. The
 * function driver should be unbound first (pci_epf_unbind()). Calling this
 * for a function that is not attached to @epc through @type does nothing.
 */
void pci_epc_remove_epf(struct pci_epc *epc, struct pci_epf *epf,
			enum pci_epc_interface_type type)
{
	struct module *owner;
	bool found = true;

	if (IS_ERR_OR_NULL(epc) || IS_ERR_OR_NULL(epf))
		return;

	mutex_lock(&epc->list_lock);
	if (type == PRIMARY_INTERFACE && epf->epc == epc) {
		__clear_bit(epf->func_no, &epc->function_num_map);
		list_del_init(&epf->list);
		epf->epc = NULL;
	} else if (type == SECONDARY_INTERFACE && epf->sec_epc == epc) {
		__clear_bit(epf->sec_epc_func_no, &epc->function_num_map);
		list_del_init(&epf->sec_epc_list);
		epf->sec_epc = NULL;
	} else {
		found = false;
	}
	mutex_unlock(&epc->list_lock);

	if (!found)
		return;

	/* in case the driver registered a notifier and was never unbound */
	blocking_notifier_chain_unregister(&epc->notifier, &epf->nb);

	owner = epc->owner;
	put_device(&epc->dev);
	module_put(owner);
}
EXPORT_SYMBOL_GPL(pci_epc_remove_epf);

enum pci_epc_event {
	PCI_EPC_EVENT_CORE_INIT,
	PCI_EPC_EVENT_LINK_UP,
	PCI_EPC_EVENT_LINK_DOWN,
	PCI_EPC_EVENT_BME,
};

/* Run the handler @epf has for @event, if it is bound and has one. */
static int pci_epc_call_handler(struct pci_epf *epf, enum pci_epc_event event)
{
	const struct pci_epc_event_ops *ops = epf->event_ops;

	if (!epf->is_bound || !ops)
		return 0;

	switch (event) {
	case PCI_EPC_EVENT_CORE_INIT:
		return ops->core_init ? ops->core_init(epf) : 0;
	case PCI_EPC_EVENT_LINK_UP:
		return ops->link_up ? ops->link_up(epf) : 0;
	case PCI_EPC_EVENT_LINK_DOWN:
		return ops->link_down ? ops->link_down(epf) : 0;
	case PCI_EPC_EVENT_BME:
		return ops->bme ? ops->bme(epf) : 0;
	}
	return 0;
}

/*
 * Tell the functions attached through their primary interface about an
 * event. Functions on the secondary list are skipped: the event concerns
 * their other controller's link, and a handler could not tell which.
 */
static void pci_epc_send_event(struct pci_epc *epc, enum pci_epc_event event)
{
	struct pci_epf *epf;

	lockdep_assert_not_held(&epc->lock);

	mutex_lock(&epc->list_lock);
	list_for_each_entry(epf, &epc->pci_epf, list) {
		int ret;

		mutex_lock(&epf->lock);
		ret = pci_epc_call_handler(epf, event);
		mutex_unlock(&epf->lock);

		if (ret)
			dev_err(&epf->dev, "event %d handler failed: %d\n",
				event, ret);
	}
	mutex_unlock(&epc->list_lock);
}

/*
 * Controllers report init and link up from their interrupt handlers (DRA7
 * and Layerscape do), as 6.1's atomic notifier let them: there the event is
 * handed to a worker, since the handlers and the notifier chain may sleep.
 */
static bool pci_epc_defer_event(struct pci_epc *epc, enum pci_epc_event event)
{
	if (in_task() && !irqs_disabled())
		return false;
	set_bit(event, &epc->deferred);
	schedule_work(&epc->event_work);
	return true;
}

static void pci_epc_notify(struct pci_epc *epc, enum pci_epc_event event)
{
	unsigned long action = event == PCI_EPC_EVENT_CORE_INIT ? CORE_INIT :
			       LINK_UP;

	blocking_notifier_call_chain(&epc->notifier, action, NULL);
	pci_epc_send_event(epc, event);
}

static void pci_epc_event_work(struct work_struct *work)
{
	struct pci_epc *epc = container_of(work, struct pci_epc, event_work);

	/* Init before link up, as a controller reports them. */
	if (test_and_clear_bit(PCI_EPC_EVENT_CORE_INIT, &epc->deferred))
		pci_epc_notify(epc, PCI_EPC_EVENT_CORE_INIT);
	if (test_and_clear_bit(PCI_EPC_EVENT_LINK_UP, &epc->deferred))
		pci_epc_notify(epc, PCI_EPC_EVENT_LINK_UP);
}

/**
 * pci_epc_init_notify() - report that the controller core can be programmed
 * @epc: the controller
 *
 * For controllers with &struct pci_epc_features.core_init_notifier: calls
 * the notifier chain with CORE_INIT, then each bound function's
 * &struct pci_epc_event_ops.core_init. Not from inside a controller
 * callback. From interrupt context (or with interrupts off) the event is
 * delivered by a worker soon after.
 */
void pci_epc_init_notify(struct pci_epc *epc)
{
	if (IS_ERR_OR_NULL(epc) ||
	    pci_epc_defer_event(epc, PCI_EPC_EVENT_CORE_INIT))
		return;
	pci_epc_notify(epc, PCI_EPC_EVENT_CORE_INIT);
}
EXPORT_SYMBOL_GPL(pci_epc_init_notify);

/**
 * pci_epc_linkup() - report that the link to the host is up
 * @epc: the controller
 *
 * Calls the notifier chain with LINK_UP, then each bound function's
 * &struct pci_epc_event_ops.link_up. Not from inside a controller
 * callback. From interrupt context (or with interrupts off) the event is
 * delivered by a worker soon after.
 */
void pci_epc_linkup(struct pci_epc *epc)
{
	if (IS_ERR_OR_NULL(epc) ||
	    pci_epc_defer_event(epc, PCI_EPC_EVENT_LINK_UP))
		return;
	pci_epc_notify(epc, PCI_EPC_EVENT_LINK_UP);
}
EXPORT_SYMBOL_GPL(pci_epc_linkup);

/**
 * pci_epc_linkdown() - report that the link to the host went down
 * @epc: the controller
 *
 * Calls each bound function's &struct pci_epc_event_ops.link_down. The
 * notifier chain is not called: its 6.1 users do not know this event.
 * Process context only, and not from inside a controller callback.
 */
void pci_epc_linkdown(struct pci_epc *epc)
{
	if (IS_ERR_OR_NULL(epc))
		return;

	might_sleep();
	pci_epc_send_event(epc, PCI_EPC_EVENT_LINK_DOWN);
}
EXPORT_SYMBOL_GPL(pci_epc_linkdown);

/**
 * pci_epc_bme_notify() - report that the host enabled bus mastering
 * @epc: the controller
 *
 * Calls each bound function's &struct pci_epc_event_ops.bme; the notifier
 * chain is not called. Process context only, and not from inside a
 * controller callback.
 */
void pci_epc_bme_notify(struct pci_epc *epc)
{
	if (IS_ERR_OR_NULL(epc))
		return;

	might_sleep();
	pci_epc_send_event(epc, PCI_EPC_EVENT_BME);
}
EXPORT_SYMBOL_GPL(pci_epc_bme_notify);

/* First function still attached through @type, or NULL. */
static struct pci_epf *pci_epc_first_epf(struct pci_epc *epc,
					 enum pci_epc_interface_type type)
{
	struct pci_epf *epf;

	mutex_lock(&epc->list_lock);
	if (type == PRIMARY_INTERFACE)
		epf = list_first_entry_or_null(&epc->pci_epf, struct pci_epf,
					       list);
	else
		epf = list_first_entry_or_null(&epc->sec_pci_epf,
					       struct pci_epf, sec_epc_list);
	mutex_unlock(&epc->list_lock);

	return epf;
}

static void pci_epc_detach_all(struct pci_epc *epc,
			       enum pci_epc_interface_type type)
{
	struct pci_epf *epf;

	while ((epf = pci_epc_first_epf(epc, type))) {
		dev_warn(&epc->dev, "detaching %s, still attached as %s\n",
			 dev_name(&epf->dev), pci_epc_interface_string(type));
		pci_epf_unbind(epf);
		pci_epc_remove_epf(epc, epf, type);
	}
}

/**
 * pci_epc_destroy() - unregister a controller
 * @epc: the controller, from pci_epc_create()
 *
 * Removes the controller's configfs directory, unbinds and detaches any
 * function still attached, and unregisters the device. From then on the
 * helpers return -ENODEV (or do nothing) for this controller; the memory
 * stays until the last reference is dropped.
 */
void pci_epc_destroy(struct pci_epc *epc)
{
	if (IS_ERR_OR_NULL(epc))
		return;

	pci_ep_cfs_remove_epc_group(epc->group);
	epc->group = NULL;
	/* The controller reports no more events: deliver none late. */
	cancel_work_sync(&epc->event_work);

	pci_epc_detach_all(epc, PRIMARY_INTERFACE);
	pci_epc_detach_all(epc, SECONDARY_INTERFACE);

	/* list_lock too, so that pci_epc_add_epf() sees the controller gone */
	mutex_lock(&epc->list_lock);
	mutex_lock(&epc->lock);
	spin_lock_irq(&epc->irq_lock);
	epc->ops = NULL;
	spin_unlock_irq(&epc->irq_lock);
	mutex_unlock(&epc->lock);
	mutex_unlock(&epc->list_lock);

	device_unregister(&epc->dev);
}
EXPORT_SYMBOL_GPL(pci_epc_destroy);

static void pci_epc_release(struct device *dev)
{
	struct pci_epc *epc = to_pci_epc(dev);

	/* a controller that forgot pci_epc_mem_exit() must not leak */
	pci_epc_mem_exit(epc);
	kfree(epc);
}

/**
 * __pci_epc_create() - register an endpoint controller
 * @dev: the controller's device; the new controller takes its name
 * @ops: controller callbacks
 * @owner: module of the caller, pinned while functions are attached unless
 *	   @ops names its own owner
 *
 * Use the pci_epc_create() wrapper. After this returns the caller sets
 * &struct pci_epc.max_functions (and .max_vfs) and calls pci_epc_mem_init()
 * or pci_epc_multi_mem_init().
 *
 * Return: the controller, or an ERR_PTR() on failure.
 */
struct pci_epc *__pci_epc_create(struct device *dev,
				 const struct pci_epc_ops *ops,
				 struct module *owner)
{
	struct config_group *group;
	struct pci_epc *epc;
	int ret;

	if (!dev || !ops)
		return ERR_PTR(-EINVAL);

	epc = kzalloc(sizeof(*epc), GFP_KERNEL);
	if (!epc)
		return ERR_PTR(-ENOMEM);

	mutex_init(&epc->lock);
	spin_lock_init(&epc->irq_lock);
	mutex_init(&epc->list_lock);
	INIT_LIST_HEAD(&epc->pci_epf);
	INIT_LIST_HEAD(&epc->sec_pci_epf);
	BLOCKING_INIT_NOTIFIER_HEAD(&epc->notifier);
	INIT_WORK(&epc->event_work, pci_epc_event_work);
	epc->ops = ops;
	epc->owner = ops->owner ? ops->owner : owner;

	device_initialize(&epc->dev);
	epc->dev.class = pci_epc_class;
	epc->dev.parent = dev;
	epc->dev.release = pci_epc_release;

	ret = dev_set_name(&epc->dev, "%s", dev_name(dev));
	if (!ret)
		ret = device_add(&epc->dev);
	if (ret) {
		put_device(&epc->dev);
		return ERR_PTR(ret);
	}

	group = pci_ep_cfs_add_epc_group(dev_name(&epc->dev));
	if (IS_ERR(group)) {
		/* usable without configfs, so only report it */
		dev_warn(&epc->dev, "no configfs directory: %ld\n",
			 PTR_ERR(group));
		group = NULL;
	}
	epc->group = group;

	return epc;
}
EXPORT_SYMBOL_GPL(__pci_epc_create);

static void pci_epc_devm_destroy(void *epc)
{
	pci_epc_destroy(epc);
}

/**
 * __devm_pci_epc_create() - register a controller for the life of a device
 * @dev: the controller's device
 * @ops: controller callbacks
 * @owner: as for __pci_epc_create()
 *
 * Use the devm_pci_epc_create() wrapper. The controller is destroyed when
 * @dev is unbound from its driver.
 *
 * Return: the controller, or an ERR_PTR() on failure.
 */
struct pci_epc *__devm_pci_epc_create(struct device *dev,
				      const struct pci_epc_ops *ops,
				      struct module *owner)
{
	struct pci_epc *epc;
	int ret;

	epc = __pci_epc_create(dev, ops, owner);
	if (IS_ERR(epc))
		return epc;

	ret = devm_add_action_or_reset(dev, pci_epc_devm_destroy, epc);
	if (ret)
		return ERR_PTR(ret);

	return epc;
}
EXPORT_SYMBOL_GPL(__devm_pci_epc_create);

/**
 * devm_pci_epc_destroy() - destroy a controller from devm_pci_epc_create() now
 * @dev: the device passed to devm_pci_epc_create()
 * @epc: the controller
 */
void devm_pci_epc_destroy(struct device *dev, struct pci_epc *epc)
{
	devm_release_action(dev, pci_epc_devm_destroy, epc);
}
EXPORT_SYMBOL_GPL(devm_pci_epc_destroy);

static int __init pci_epc_core_init(void)
{
	pci_epc_class = class_create(THIS_MODULE, "pci_epc");
	if (IS_ERR(pci_epc_class)) {
		pr_err("pci_epc: cannot register class: %ld\n",
		       PTR_ERR(pci_epc_class));
		return PTR_ERR(pci_epc_class);
	}

	return 0;
}

/* before controller drivers, which probe at device_initcall time */
subsys_initcall(pci_epc_core_init);
