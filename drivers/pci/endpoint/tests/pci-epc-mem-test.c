// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the outbound address-space allocator, pci_epc_mem_*().
 *
 * Windows without a premapped virt_base are ioremap()ed per allocation.
 * They lie in QEMU virt's platform-bus region, which holds no device in
 * our guests; nothing is ever read or written through these mappings.
 */

#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/sizes.h>

#include "pci-ep-kunit.h"

#define EPK_WIN_A	((phys_addr_t)0x0c000000)
#define EPK_WIN_B	((phys_addr_t)0x0c100000)
#define EPK_OUTSIDE	((phys_addr_t)0x0c800000)
#define EPK_PG		PAGE_SIZE

struct epk_alloc {
	phys_addr_t	phys;
	void __iomem	*virt;
	size_t		size;
};

static int epk_mem_case_init(struct kunit *test)
{
	test->priv = pci_ep_kunit_epc_new(test, "pci-ep-kunit-mem", 1)->epc;
	return 0;
}

static void epk_mem_exit(void *epc)
{
	pci_epc_mem_exit(epc);
}

/* Set up @n windows, torn down again when the case ends. */
static struct pci_epc *epk_mem_setup(struct kunit *test,
				     struct pci_epc_mem_window *win,
				     unsigned int n)
{
	struct pci_epc *epc = test->priv;

	KUNIT_ASSERT_EQ(test, pci_epc_multi_mem_init(epc, win, n), 0);
	KUNIT_ASSERT_EQ(test, pci_ep_kunit_defer(test, epk_mem_exit, epc), 0);
	return epc;
}

static struct pci_epc *epk_mem_one(struct kunit *test, size_t size)
{
	struct pci_epc_mem_window win = {
		.phys_base = EPK_WIN_A,
		.size = size,
	};

	return epk_mem_setup(test, &win, 1);
}

/* pages of window @i in use */
static unsigned int epk_used(struct pci_epc *epc, unsigned int i)
{
	return bitmap_weight(epc->windows[i]->bitmap, epc->windows[i]->pages);
}

static bool epk_page_used(struct pci_epc *epc, unsigned int i,
			  unsigned int page)
{
	return test_bit(page, epc->windows[i]->bitmap);
}

/* Allocate @size into @a; fails the case when nothing comes back. */
static void epk_get(struct kunit *test, struct pci_epc *epc,
		    struct epk_alloc *a, size_t size)
{
	a->size = size;
	a->virt = pci_epc_mem_alloc_addr(epc, &a->phys, size);
	KUNIT_ASSERT_NOT_NULL_MSG(test, a->virt, "allocation of %zu bytes",
				  size);
}

static void epk_put(struct pci_epc *epc, struct epk_alloc *a)
{
	pci_epc_mem_free_addr(epc, a->phys, a->virt, a->size);
}

static void epk_mem_init_rejects_bad_windows(struct kunit *test)
{
	struct pci_epc *epc = test->priv;
	struct pci_epc_mem_window win[2] = {
		{ .phys_base = EPK_WIN_A, .size = 4 * EPK_PG },
		{ .phys_base = EPK_WIN_B, .size = 8 * EPK_PG,
		  .page_size = 3 * EPK_PG },
	};

	KUNIT_EXPECT_EQ(test, pci_epc_mem_init(epc, EPK_WIN_A, 0, EPK_PG),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_mem_init(epc, EPK_WIN_A, EPK_PG - 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_mem_init(epc, EPK_WIN_A, 2 * EPK_PG,
					       4 * EPK_PG),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_mem_init(epc, EPK_WIN_A, 9 * EPK_PG,
					       3 * EPK_PG),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_mem_init(NULL, EPK_WIN_A, 4 * EPK_PG, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_multi_mem_init(epc, win, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, pci_epc_multi_mem_init(epc, NULL, 1), -EINVAL);

	/* a bad second window leaves nothing of the good first one */
	KUNIT_EXPECT_EQ(test, pci_epc_multi_mem_init(epc, win, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, epc->num_windows, 0U);
	KUNIT_EXPECT_NULL(test, epc->windows);
	KUNIT_EXPECT_NULL(test, epc->mem);

	/* exit without windows is harmless, and setup still works after */
	pci_epc_mem_exit(epc);
	pci_epc_mem_exit(NULL);
	epk_mem_setup(test, win, 1);
	KUNIT_EXPECT_EQ(test, epc->num_windows, 1U);
	KUNIT_EXPECT_PTR_EQ(test, epc->mem, epc->windows[0]);
}

static void epk_mem_init_twice_is_busy(struct kunit *test)
{
	struct pci_epc *epc = epk_mem_one(test, 4 * EPK_PG);
	struct epk_alloc a;

	epk_get(test, epc, &a, EPK_PG);
	KUNIT_EXPECT_EQ(test, pci_epc_mem_init(epc, EPK_WIN_B, 8 * EPK_PG, 0),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, epc->num_windows, 1U);
	KUNIT_EXPECT_EQ(test, epc->mem->window.phys_base, EPK_WIN_A);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 1U);
	epk_put(epc, &a);

	/* after an exit the controller can be set up again */
	pci_epc_mem_exit(epc);
	KUNIT_EXPECT_EQ(test, epc->num_windows, 0U);
	KUNIT_EXPECT_EQ(test, pci_epc_mem_init(epc, EPK_WIN_B, 8 * EPK_PG, 0),
			0);
	KUNIT_EXPECT_EQ(test, epc->mem->pages, 8);
}

static void epk_mem_page_size(struct kunit *test)
{
	struct pci_epc_mem_window win = {
		.phys_base = EPK_WIN_A,
		.size = SZ_64K,
		.page_size = SZ_16K,
	};
	struct pci_epc *epc = test->priv;
	struct epk_alloc a, b;

	/* 0 and sizes below PAGE_SIZE mean PAGE_SIZE; a partial page is lost */
	KUNIT_ASSERT_EQ(test, pci_epc_mem_init(epc, EPK_WIN_A,
					       8 * EPK_PG + 100, 0),
			0);
	KUNIT_EXPECT_EQ(test, epc->mem->window.page_size, EPK_PG);
	KUNIT_EXPECT_EQ(test, epc->mem->pages, 8);
	pci_epc_mem_exit(epc);

	KUNIT_ASSERT_EQ(test, pci_epc_mem_init(epc, EPK_WIN_A, 2 * EPK_PG, 512),
			0);
	KUNIT_EXPECT_EQ(test, epc->mem->window.page_size, EPK_PG);
	KUNIT_EXPECT_EQ(test, epc->mem->pages, 2);
	pci_epc_mem_exit(epc);

	/* a larger page size is the granule of every allocation */
	epk_mem_setup(test, &win, 1);
	KUNIT_EXPECT_EQ(test, epc->mem->pages, 4);
	epk_get(test, epc, &a, 100);
	epk_get(test, epc, &b, 100);
	KUNIT_EXPECT_EQ(test, a.phys, EPK_WIN_A);
	KUNIT_EXPECT_EQ(test, b.phys, EPK_WIN_A + SZ_16K);
	epk_put(epc, &a);
	epk_put(epc, &b);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 0U);
}

static void epk_mem_alloc_rejects(struct kunit *test)
{
	struct pci_epc *epc = test->priv;
	phys_addr_t phys = 0;

	/* no window yet */
	KUNIT_EXPECT_NULL(test, pci_epc_mem_alloc_addr(epc, &phys, EPK_PG));

	epk_mem_one(test, 4 * EPK_PG);
	KUNIT_EXPECT_NULL(test, pci_epc_mem_alloc_addr(epc, &phys, 0));
	KUNIT_EXPECT_NULL(test, pci_epc_mem_alloc_addr(epc, NULL, EPK_PG));
	KUNIT_EXPECT_NULL(test, pci_epc_mem_alloc_addr(NULL, &phys, EPK_PG));
	KUNIT_EXPECT_NULL(test, pci_epc_mem_alloc_addr(epc, &phys,
						       4 * EPK_PG + 1));
	KUNIT_EXPECT_NULL(test, pci_epc_mem_alloc_addr(epc, &phys, SIZE_MAX));
	KUNIT_EXPECT_EQ(test, phys, 0);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 0U);
}

static void epk_mem_alloc_alignment(struct kunit *test)
{
	struct pci_epc *epc = epk_mem_one(test, 16 * EPK_PG);
	/* request, then the offset a power-of-two-aligned allocator picks */
	static const struct {
		size_t size, offset, pages;
	} want[] = {
		{ EPK_PG,		0,	1 },
		{ EPK_PG + 1,	2 * EPK_PG,	2 },
		{ 3 * EPK_PG,	4 * EPK_PG,	4 },
		{ 1,		EPK_PG,	1 },
		{ 5 * EPK_PG,	8 * EPK_PG,	8 },
	};
	struct epk_alloc a[ARRAY_SIZE(want)];
	phys_addr_t phys;
	unsigned int i, used = 0;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		epk_get(test, epc, &a[i], want[i].size);
		used += want[i].pages;
		KUNIT_EXPECT_EQ_MSG(test, a[i].phys - EPK_WIN_A, want[i].offset,
				    "allocation %u of %zu bytes", i,
				    want[i].size);
		KUNIT_EXPECT_TRUE(test, IS_ALIGNED(a[i].phys - EPK_WIN_A,
						   want[i].pages * EPK_PG));
		/* an ioremap() of its own, not a premapped address */
		KUNIT_EXPECT_TRUE(test,
				  is_vmalloc_addr((void __force *)a[i].virt));
		KUNIT_EXPECT_EQ(test, epk_used(epc, 0), used);
	}
	KUNIT_EXPECT_PTR_NE(test, a[0].virt, a[3].virt);
	KUNIT_EXPECT_NULL(test, pci_epc_mem_alloc_addr(epc, &phys, 1));

	for (i = 0; i < ARRAY_SIZE(want); i++)
		epk_put(epc, &a[i]);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 0U);
}

static void epk_mem_exhaustion(struct kunit *test)
{
	struct pci_epc *epc = epk_mem_one(test, 8 * EPK_PG);
	struct epk_alloc a[8];
	phys_addr_t phys;
	unsigned int i;

	for (i = 0; i < 8; i++) {
		epk_get(test, epc, &a[i], EPK_PG);
		KUNIT_EXPECT_EQ(test, a[i].phys, EPK_WIN_A + i * EPK_PG);
	}
	KUNIT_EXPECT_NULL(test, pci_epc_mem_alloc_addr(epc, &phys, EPK_PG));
	KUNIT_EXPECT_NULL(test, pci_epc_mem_alloc_addr(epc, &phys, 1));

	/* one page back, one page out again: the same one */
	epk_put(epc, &a[5]);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 7U);
	epk_get(test, epc, &a[5], EPK_PG);
	KUNIT_EXPECT_EQ(test, a[5].phys, EPK_WIN_A + 5 * EPK_PG);
	KUNIT_EXPECT_NULL(test, pci_epc_mem_alloc_addr(epc, &phys, EPK_PG));

	for (i = 0; i < 8; i++)
		epk_put(epc, &a[i]);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 0U);
}

static void epk_mem_fragmentation(struct kunit *test)
{
	struct pci_epc *epc = epk_mem_one(test, 8 * EPK_PG);
	struct epk_alloc a[8], pair, one;
	phys_addr_t phys;
	unsigned int i;

	for (i = 0; i < 8; i++)
		epk_get(test, epc, &a[i], EPK_PG);

	/* pages 1 and 2 are free, but no naturally aligned pair is */
	epk_put(epc, &a[1]);
	epk_put(epc, &a[2]);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 6U);
	KUNIT_EXPECT_NULL(test, pci_epc_mem_alloc_addr(epc, &phys, 2 * EPK_PG));

	/* with page 3 free too, pages 2-3 are */
	epk_put(epc, &a[3]);
	epk_get(test, epc, &pair, 2 * EPK_PG);
	KUNIT_EXPECT_EQ(test, pair.phys, EPK_WIN_A + 2 * EPK_PG);
	epk_get(test, epc, &one, EPK_PG);
	KUNIT_EXPECT_EQ(test, one.phys, EPK_WIN_A + EPK_PG);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 8U);

	epk_put(epc, &pair);
	epk_put(epc, &one);
	for (i = 0; i < 8; i++)
		if (i < 1 || i > 3)
			epk_put(epc, &a[i]);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 0U);
}

static void epk_mem_free_and_reuse(struct kunit *test)
{
	struct pci_epc *epc = epk_mem_one(test, 8 * EPK_PG);
	struct epk_alloc all, half1, half2;

	epk_get(test, epc, &all, 8 * EPK_PG);
	KUNIT_EXPECT_EQ(test, all.phys, EPK_WIN_A);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 8U);
	epk_put(epc, &all);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 0U);

	epk_get(test, epc, &all, 8 * EPK_PG);
	KUNIT_EXPECT_EQ(test, all.phys, EPK_WIN_A);
	epk_put(epc, &all);

	epk_get(test, epc, &half1, 4 * EPK_PG);
	epk_get(test, epc, &half2, 4 * EPK_PG);
	KUNIT_EXPECT_EQ(test, half1.phys, EPK_WIN_A);
	KUNIT_EXPECT_EQ(test, half2.phys, EPK_WIN_A + 4 * EPK_PG);
	epk_put(epc, &half1);
	epk_put(epc, &half2);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 0U);
}

static void epk_mem_several_windows(struct kunit *test)
{
	struct pci_epc_mem_window win[2] = {
		{ .phys_base = EPK_WIN_A, .size = 4 * EPK_PG },
		{ .phys_base = EPK_WIN_B, .size = 16 * EPK_PG,
		  .page_size = 2 * EPK_PG },
	};
	struct pci_epc *epc = epk_mem_setup(test, win, 2);
	struct epk_alloc big, one, four, two;

	KUNIT_EXPECT_EQ(test, epc->num_windows, 2U);
	KUNIT_EXPECT_PTR_EQ(test, epc->mem, epc->windows[0]);
	KUNIT_EXPECT_EQ(test, epc->windows[1]->pages, 8);

	/* too big for the first window: served by the second */
	epk_get(test, epc, &big, 8 * EPK_PG);
	KUNIT_EXPECT_EQ(test, big.phys, EPK_WIN_B);
	/* the first window with room wins */
	epk_get(test, epc, &one, EPK_PG);
	KUNIT_EXPECT_EQ(test, one.phys, EPK_WIN_A);
	/* three pages left in the first, but no aligned four */
	epk_get(test, epc, &four, 4 * EPK_PG);
	KUNIT_EXPECT_EQ(test, four.phys, EPK_WIN_B + 8 * EPK_PG);
	epk_get(test, epc, &two, 2 * EPK_PG);
	KUNIT_EXPECT_EQ(test, two.phys, EPK_WIN_A + 2 * EPK_PG);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 3U);
	/* 32 KiB and 16 KiB in pages of 8 KiB */
	KUNIT_EXPECT_EQ(test, epk_used(epc, 1), 6U);

	/* a free finds its window by address */
	epk_put(epc, &big);
	epk_put(epc, &four);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 1), 0U);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 3U);
	epk_put(epc, &one);
	epk_put(epc, &two);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 0U);
}

static void epk_mem_premapped(struct kunit *test)
{
	void *buf = kunit_kzalloc(test, 8 * EPK_PG, GFP_KERNEL);
	void __iomem *base = (void __force __iomem *)buf;
	struct pci_epc_mem_window win = {
		.phys_base = EPK_WIN_A,
		.size = 8 * EPK_PG,
		.virt_base = base,
	};
	struct pci_epc *epc;
	struct epk_alloc a, b;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	epc = epk_mem_setup(test, &win, 1);
	KUNIT_EXPECT_PTR_EQ(test, epc->mem->window.virt_base, base);

	/* addresses inside the controller's mapping, no ioremap() */
	epk_get(test, epc, &a, EPK_PG);
	epk_get(test, epc, &b, 2 * EPK_PG);
	KUNIT_EXPECT_EQ(test, a.phys, EPK_WIN_A);
	KUNIT_EXPECT_PTR_EQ(test, a.virt, base);
	KUNIT_EXPECT_EQ(test, b.phys, EPK_WIN_A + 2 * EPK_PG);
	KUNIT_EXPECT_PTR_EQ(test, b.virt, base + 2 * EPK_PG);

	/* a virtual address that does not go with the physical one */
	pci_epc_mem_free_addr(epc, b.phys, base, b.size);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 3U);

	epk_put(epc, &b);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 1U);
	epk_put(epc, &a);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 0U);
	/* the controller's mapping is left alone */
	KUNIT_EXPECT_PTR_EQ(test, epc->mem->window.virt_base, base);
}

static void epk_mem_premapped_and_ioremapped(struct kunit *test)
{
	void *buf = kunit_kzalloc(test, 2 * EPK_PG, GFP_KERNEL);
	void __iomem *base = (void __force __iomem *)buf;
	struct pci_epc_mem_window win[2] = {
		{ .phys_base = EPK_WIN_A, .size = 2 * EPK_PG,
		  .virt_base = base },
		{ .phys_base = EPK_WIN_B, .size = 4 * EPK_PG },
	};
	struct pci_epc *epc;
	struct epk_alloc a, b;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	epc = epk_mem_setup(test, win, 2);

	epk_get(test, epc, &a, EPK_PG);
	KUNIT_EXPECT_PTR_EQ(test, a.virt, base);
	/* no aligned pair left in the premapped window: mapped afresh */
	epk_get(test, epc, &b, 2 * EPK_PG);
	KUNIT_EXPECT_EQ(test, b.phys, EPK_WIN_B);
	KUNIT_EXPECT_TRUE(test, is_vmalloc_addr((void __force *)b.virt));
	KUNIT_EXPECT_TRUE(test, b.virt < base || b.virt >= base + 2 * EPK_PG);

	epk_put(epc, &b);
	epk_put(epc, &a);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 0U);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 1), 0U);
}

static void epk_mem_bad_frees(struct kunit *test)
{
	struct pci_epc *epc = epk_mem_one(test, 8 * EPK_PG);
	struct epk_alloc a, b, c;

	epk_get(test, epc, &a, EPK_PG);
	epk_get(test, epc, &b, EPK_PG);
	epk_get(test, epc, &c, 2 * EPK_PG);
	KUNIT_ASSERT_EQ(test, c.phys, EPK_WIN_A + 2 * EPK_PG);

	/* not in any window */
	pci_epc_mem_free_addr(epc, EPK_OUTSIDE, a.virt, EPK_PG);
	pci_epc_mem_free_addr(epc, EPK_WIN_A - EPK_PG, a.virt, EPK_PG);
	/* not where an allocation of that size can start */
	pci_epc_mem_free_addr(epc, c.phys + EPK_PG, c.virt + EPK_PG,
			      2 * EPK_PG);
	pci_epc_mem_free_addr(epc, a.phys + 1, a.virt + 1, EPK_PG);
	/* no address or no size */
	pci_epc_mem_free_addr(epc, a.phys, NULL, EPK_PG);
	pci_epc_mem_free_addr(epc, a.phys, a.virt, 0);
	pci_epc_mem_free_addr(NULL, a.phys, a.virt, EPK_PG);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 4U);

	/* a double free is refused and touches no neighbour */
	epk_put(epc, &a);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 3U);
	epk_put(epc, &a);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 3U);
	KUNIT_EXPECT_TRUE(test, epk_page_used(epc, 0, 1));

	epk_put(epc, &b);
	epk_put(epc, &c);
	KUNIT_EXPECT_EQ(test, epk_used(epc, 0), 0U);
}

/*
 * pci_epc_mem_free_addr() promises to ignore a call whose arguments do not
 * describe an allocation. A premapped window is used so that a wrong free
 * cannot reach iounmap().
 */
static void epk_mem_free_must_match_allocation(struct kunit *test)
{
	void *buf = kunit_kzalloc(test, 4 * EPK_PG, GFP_KERNEL);
	void __iomem *base = (void __force __iomem *)buf;
	struct pci_epc_mem_window win = {
		.phys_base = EPK_WIN_A,
		.size = 4 * EPK_PG,
		.virt_base = base,
	};
	struct pci_epc *epc;
	struct epk_alloc a, b, c;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	epc = epk_mem_setup(test, &win, 1);
	epk_get(test, epc, &a, 2 * EPK_PG);
	epk_get(test, epc, &b, EPK_PG);
	epk_get(test, epc, &c, EPK_PG);
	KUNIT_ASSERT_EQ(test, c.phys, EPK_WIN_A + 3 * EPK_PG);

	/* the second page of a two-page allocation, as if it were one */
	pci_epc_mem_free_addr(epc, a.phys + EPK_PG, a.virt + EPK_PG, EPK_PG);
	KUNIT_EXPECT_TRUE_MSG(test, epk_page_used(epc, 0, 1),
			      "freeing part of an allocation released it");

	/* a one-page allocation freed with a size that covers the next */
	pci_epc_mem_free_addr(epc, b.phys, b.virt, 2 * EPK_PG);
	KUNIT_EXPECT_TRUE_MSG(test, epk_page_used(epc, 0, 3),
			      "an oversized free released a neighbour");
}

static struct kunit_case epk_mem_cases[] = {
	KUNIT_CASE(epk_mem_init_rejects_bad_windows),
	KUNIT_CASE(epk_mem_init_twice_is_busy),
	KUNIT_CASE(epk_mem_page_size),
	KUNIT_CASE(epk_mem_alloc_rejects),
	KUNIT_CASE(epk_mem_alloc_alignment),
	KUNIT_CASE(epk_mem_exhaustion),
	KUNIT_CASE(epk_mem_fragmentation),
	KUNIT_CASE(epk_mem_free_and_reuse),
	KUNIT_CASE(epk_mem_several_windows),
	KUNIT_CASE(epk_mem_premapped),
	KUNIT_CASE(epk_mem_premapped_and_ioremapped),
	KUNIT_CASE(epk_mem_bad_frees),
	KUNIT_CASE(epk_mem_free_must_match_allocation),
	{ }
};

static struct kunit_suite epk_mem_suite = {
	.name = "pci_epc_mem",
	.init = epk_mem_case_init,
	.test_cases = epk_mem_cases,
};

kunit_test_suite(epk_mem_suite);
