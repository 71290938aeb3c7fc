// SPDX-License-Identifier: GPL-2.0
/*
 * Outbound address space of PCI endpoint controllers.
 *
 * A controller reaches host memory through one or more outbound windows:
 * ranges of its own physical address space that its translation hardware
 * forwards to PCI addresses chosen at run time (pci_epc_map_addr()). This
 * file hands out pieces of those windows to function drivers.
 *
 * Each window is cut into pages of the window's page size and tracked by a
 * bitmap. A request is rounded up to a power-of-two number of pages and
 * placed at an offset that is a multiple of its own size, so an allocation
 * of 2^n pages is aligned to 2^n pages relative to the window base. Some
 * translation units need that: they can only map naturally aligned blocks.
 */

#include <linux/bitmap.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include <linux/pci-epc.h>

/* log2 of the number of window pages that @size bytes occupy */
static int pci_epc_mem_order(const struct pci_epc_mem *mem, size_t size)
{
	unsigned long pages = DIV_ROUND_UP(size, mem->window.page_size);

	return order_base_2(pages);
}

static void pci_epc_mem_free_windows(struct pci_epc_mem **windows,
				     unsigned int count)
{
	while (count--) {
		bitmap_free(windows[count]->bitmap);
		bitmap_free(windows[count]->starts);
		kfree(windows[count]);
	}
	kfree(windows);
}

static struct pci_epc_mem *
pci_epc_mem_new_window(const struct pci_epc_mem_window *desc)
{
	size_t page_size = max_t(size_t, desc->page_size, PAGE_SIZE);
	struct pci_epc_mem *mem;
	size_t pages;

	if (!is_power_of_2(page_size))
		return ERR_PTR(-EINVAL);

	/* A partial page at the end of the window is never handed out. */
	pages = desc->size >> ilog2(page_size);
	if (!pages || pages > INT_MAX)
		return ERR_PTR(-EINVAL);

	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return ERR_PTR(-ENOMEM);

	mem->bitmap = bitmap_zalloc(pages, GFP_KERNEL);
	mem->starts = bitmap_zalloc(pages, GFP_KERNEL);
	if (!mem->bitmap || !mem->starts) {
		bitmap_free(mem->bitmap);
		bitmap_free(mem->starts);
		kfree(mem);
		return ERR_PTR(-ENOMEM);
	}

	mem->window = *desc;
	mem->window.page_size = page_size;
	mem->pages = pages;
	mutex_init(&mem->lock);

	return mem;
}

/**
 * pci_epc_multi_mem_init() - set up the outbound windows of a controller
 * @epc: the controller
 * @windows: description of each window; copied, so it may live on the stack
 * @num_windows: number of entries in @windows
 *
 * Allocations are served from the windows in the order given here. A window
 * whose &struct pci_epc_mem_window.virt_base is set is treated as already
 * mapped by the controller: allocations from it return addresses inside
 * that mapping instead of fresh ioremap() mappings, and the controller must
 * keep the mapping until after pci_epc_mem_exit().
 *
 * Return: 0 on success, -EINVAL for a bad window (empty, smaller than one
 * page, or a page size that is not a power of two), -EBUSY if the windows
 * were already set up, -ENOMEM when out of memory.
 */
int pci_epc_multi_mem_init(struct pci_epc *epc,
			   struct pci_epc_mem_window *windows,
			   unsigned int num_windows)
{
	struct pci_epc_mem **table;
	unsigned int i;

	if (IS_ERR_OR_NULL(epc) || !windows || !num_windows)
		return -EINVAL;
	if (epc->num_windows)
		return -EBUSY;

	table = kcalloc(num_windows, sizeof(*table), GFP_KERNEL);
	if (!table)
		return -ENOMEM;

	for (i = 0; i < num_windows; i++) {
		struct pci_epc_mem *mem = pci_epc_mem_new_window(&windows[i]);

		if (IS_ERR(mem)) {
			dev_err(&epc->dev, "outbound window %u unusable\n", i);
			pci_epc_mem_free_windows(table, i);
			return PTR_ERR(mem);
		}
		table[i] = mem;
	}

	epc->windows = table;
	epc->mem = table[0];
	epc->num_windows = num_windows;

	return 0;
}
EXPORT_SYMBOL_GPL(pci_epc_multi_mem_init);

/**
 * pci_epc_mem_init() - set up a single outbound window
 * @epc: the controller
 * @base: CPU physical address of the window
 * @size: size of the window in bytes
 * @page_size: allocation granule (raised to PAGE_SIZE if smaller)
 *
 * Shorthand for pci_epc_multi_mem_init() with one window that is not
 * premapped: every allocation gets its own ioremap() mapping.
 *
 * Return: as for pci_epc_multi_mem_init().
 */
int pci_epc_mem_init(struct pci_epc *epc, phys_addr_t base,
		     size_t size, size_t page_size)
{
	struct pci_epc_mem_window window = {
		.phys_base = base,
		.size = size,
		.page_size = page_size,
	};

	return pci_epc_multi_mem_init(epc, &window, 1);
}
EXPORT_SYMBOL_GPL(pci_epc_mem_init);

/**
 * pci_epc_mem_exit() - tear down the outbound windows of a controller
 * @epc: the controller
 *
 * Safe to call when no window was set up. Allocations still outstanding are
 * reported and forgotten; their ioremap() mappings stay with their owners.
 */
void pci_epc_mem_exit(struct pci_epc *epc)
{
	unsigned int i;

	if (IS_ERR_OR_NULL(epc) || !epc->num_windows)
		return;

	for (i = 0; i < epc->num_windows; i++) {
		struct pci_epc_mem *mem = epc->windows[i];

		if (!bitmap_empty(mem->bitmap, mem->pages))
			dev_warn(&epc->dev,
				 "outbound window %u still has allocations\n",
				 i);
	}

	pci_epc_mem_free_windows(epc->windows, epc->num_windows);
	epc->windows = NULL;
	epc->mem = NULL;
	epc->num_windows = 0;
}
EXPORT_SYMBOL_GPL(pci_epc_mem_exit);

/*
 * Carve 2^order pages out of @mem. Called with mem->lock held; returns the
 * first page number or a negative errno.
 */
static int pci_epc_mem_take(struct pci_epc_mem *mem, int order)
{
	int page;

	if (order >= BITS_PER_LONG || (1UL << order) > mem->pages)
		return -ENOSPC;

	page = bitmap_find_free_region(mem->bitmap, mem->pages, order);
	if (page >= 0)
		__set_bit(page, mem->starts);
	return page;
}

static void pci_epc_mem_give(struct pci_epc_mem *mem, int page, int order)
{
	__clear_bit(page, mem->starts);
	bitmap_release_region(mem->bitmap, page, order);
}

/*
 * Is there an allocation of exactly 2^order pages at @page?  It starts
 * there, no other allocation starts inside it, all its pages are taken,
 * and it does not go on beyond: the page after it is free or starts
 * another allocation.  Called with mem->lock held.
 */
static bool pci_epc_mem_is_allocation(struct pci_epc_mem *mem,
				      unsigned long page, int order)
{
	unsigned long end = page + (1UL << order);

	if (end > mem->pages || !test_bit(page, mem->starts))
		return false;
	if (find_next_bit(mem->starts, end, page + 1) < end ||
	    find_next_zero_bit(mem->bitmap, end, page) < end)
		return false;
	return end == mem->pages || !test_bit(end, mem->bitmap) ||
	       test_bit(end, mem->starts);
}

/**
 * pci_epc_mem_alloc_addr() - allocate part of an outbound window
 * @epc: the controller
 * @phys_addr: set to the CPU physical address of the allocation
 * @size: bytes needed
 *
 * The returned range is what pci_epc_map_addr() then points at host memory.
 * Its size is @size rounded up to a power-of-two number of window pages and
 * its offset in the window is a multiple of that size. The first window
 * with room wins.
 *
 * Return: the kernel virtual address of the allocation, or NULL when @size
 * is 0 or no window has room. For a window set up with a
 * &struct pci_epc_mem_window.virt_base, the address lies inside that
 * mapping; otherwise it is a new ioremap() of the range.
 */
void __iomem *pci_epc_mem_alloc_addr(struct pci_epc *epc,
				     phys_addr_t *phys_addr, size_t size)
{
	unsigned int i;

	if (IS_ERR_OR_NULL(epc) || !phys_addr || !size)
		return NULL;

	for (i = 0; i < epc->num_windows; i++) {
		struct pci_epc_mem *mem = epc->windows[i];
		int order = pci_epc_mem_order(mem, size);
		void __iomem *virt;
		phys_addr_t offset;
		int page;

		mutex_lock(&mem->lock);
		page = pci_epc_mem_take(mem, order);
		if (page < 0) {
			mutex_unlock(&mem->lock);
			continue;
		}

		offset = (phys_addr_t)page * mem->window.page_size;
		if (mem->window.virt_base)
			virt = mem->window.virt_base + offset;
		else
			virt = ioremap(mem->window.phys_base + offset,
				       ALIGN(size, mem->window.page_size));
		if (!virt) {
			pci_epc_mem_give(mem, page, order);
			mutex_unlock(&mem->lock);
			continue;
		}
		mutex_unlock(&mem->lock);

		*phys_addr = mem->window.phys_base + offset;
		return virt;
	}

	return NULL;
}
EXPORT_SYMBOL_GPL(pci_epc_mem_alloc_addr);

static struct pci_epc_mem *pci_epc_mem_find(struct pci_epc *epc,
					    phys_addr_t addr)
{
	unsigned int i;

	for (i = 0; i < epc->num_windows; i++) {
		struct pci_epc_mem *mem = epc->windows[i];

		if (addr >= mem->window.phys_base &&
		    addr - mem->window.phys_base < mem->window.size)
			return mem;
	}

	return NULL;
}

/**
 * pci_epc_mem_free_addr() - give back an allocation of pci_epc_mem_alloc_addr()
 * @epc: the controller
 * @phys_addr: physical address returned by the allocation
 * @virt_addr: virtual address returned by the allocation
 * @size: the size passed to the allocation
 *
 * The mapping is removed with iounmap() unless the window is premapped
 * (&struct pci_epc_mem_window.virt_base), in which case the controller's
 * mapping is left as it is. A call whose arguments do not describe an
 * allocation is reported and ignored.
 */
void pci_epc_mem_free_addr(struct pci_epc *epc, phys_addr_t phys_addr,
			   void __iomem *virt_addr, size_t size)
{
	struct pci_epc_mem *mem;
	phys_addr_t offset;
	unsigned long page;
	int order;

	if (IS_ERR_OR_NULL(epc) || !virt_addr || !size)
		return;

	mem = pci_epc_mem_find(epc, phys_addr);
	if (!mem) {
		dev_err(&epc->dev, "free of %pa: not in an outbound window\n",
			&phys_addr);
		return;
	}

	offset = phys_addr - mem->window.phys_base;
	order = pci_epc_mem_order(mem, size);
	page = offset >> ilog2(mem->window.page_size);

	/* Allocations start on a multiple of their own size, see above. */
	if (!IS_ALIGNED(offset, mem->window.page_size) ||
	    !IS_ALIGNED(page, 1UL << order)) {
		dev_err(&epc->dev, "free of %pa: not an allocation start\n",
			&phys_addr);
		return;
	}

	if (mem->window.virt_base &&
	    virt_addr != mem->window.virt_base + offset) {
		dev_err(&epc->dev, "free of %pa: wrong virtual address\n",
			&phys_addr);
		return;
	}

	mutex_lock(&mem->lock);
	if (!pci_epc_mem_is_allocation(mem, page, order)) {
		mutex_unlock(&mem->lock);
		dev_err(&epc->dev, "free of %pa+%zu: not an allocation of that size\n",
			&phys_addr, size);
		return;
	}
	pci_epc_mem_give(mem, page, order);
	mutex_unlock(&mem->lock);

	if (!mem->window.virt_base)
		iounmap(virt_addr);
}
EXPORT_SYMBOL_GPL(pci_epc_mem_free_addr);
