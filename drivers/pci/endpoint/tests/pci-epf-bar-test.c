// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of BAR selection and BAR memory: pci_epc_get_first_free_bar(),
 * pci_epc_get_next_free_bar(), pci_epf_alloc_space() and
 * pci_epf_free_space().
 */

#include <linux/sizes.h>

#include "pci-ep-kunit.h"

static void epk_bar_no_features(struct kunit *test)
{
	/* without a description every BAR is free */
	KUNIT_EXPECT_EQ(test, pci_epc_get_first_free_bar(NULL), BAR_0);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(NULL, BAR_0), BAR_0);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(NULL, BAR_3), BAR_3);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(NULL, BAR_5), BAR_5);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(NULL, BAR_5 + 1),
			NO_BAR);
}

static void epk_bar_all_free(struct kunit *test)
{
	const struct pci_epc_features f = { };
	enum pci_barno bar;

	KUNIT_EXPECT_EQ(test, pci_epc_get_first_free_bar(&f), BAR_0);
	for (bar = BAR_0; bar <= BAR_5; bar++)
		KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, bar), bar);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_5 + 1), NO_BAR);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, NO_BAR), NO_BAR);
}

static void epk_bar_reserved_skipped(struct kunit *test)
{
	struct pci_epc_features f = { .reserved_bar = BIT(BAR_0) | BIT(BAR_1) };

	KUNIT_EXPECT_EQ(test, pci_epc_get_first_free_bar(&f), BAR_2);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_1), BAR_2);

	f.reserved_bar = BIT(BAR_3);
	KUNIT_EXPECT_EQ(test, pci_epc_get_first_free_bar(&f), BAR_0);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_3), BAR_4);

	f.reserved_bar = BIT(BAR_5);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_5), NO_BAR);

	f.reserved_bar = 0x3f;
	KUNIT_EXPECT_EQ(test, pci_epc_get_first_free_bar(&f), NO_BAR);
}

static void epk_bar_fixed_64bit(struct kunit *test)
{
	struct pci_epc_features f = { .bar_fixed_64bit = BIT(BAR_0) };

	/* BAR 1 is the upper half of the 64-bit BAR 0 picked before */
	KUNIT_EXPECT_EQ(test, pci_epc_get_first_free_bar(&f), BAR_0);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_1), BAR_2);

	f.bar_fixed_64bit = BIT(BAR_2);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_1), BAR_1);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_2), BAR_2);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_3), BAR_4);

	f.bar_fixed_64bit = BIT(BAR_4);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_5), NO_BAR);
}

static void epk_bar_reserved_64bit(struct kunit *test)
{
	/* a reserved 64-bit BAR takes its upper half with it */
	struct pci_epc_features f = {
		.reserved_bar = BIT(BAR_0),
		.bar_fixed_64bit = BIT(BAR_0),
	};

	KUNIT_EXPECT_EQ(test, pci_epc_get_first_free_bar(&f), BAR_2);

	f.reserved_bar = BIT(BAR_4);
	f.bar_fixed_64bit = BIT(BAR_4);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_3), BAR_3);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_4), NO_BAR);
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_5), NO_BAR);

	/* a reserved 32-bit BAR does not */
	f.bar_fixed_64bit = 0;
	KUNIT_EXPECT_EQ(test, pci_epc_get_next_free_bar(&f, BAR_4), BAR_5);
}

/* The walk a function driver makes: each pick, then the BAR after it. */
static void epk_bar_walk(struct kunit *test)
{
	const struct pci_epc_features f = {
		.reserved_bar = BIT(BAR_4),
		.bar_fixed_64bit = BIT(BAR_0) | BIT(BAR_2),
	};
	static const enum pci_barno want[] = { BAR_0, BAR_2, BAR_5 };
	enum pci_barno bar = pci_epc_get_first_free_bar(&f);
	unsigned int n = 0;

	while (bar != NO_BAR && n < ARRAY_SIZE(want)) {
		KUNIT_EXPECT_EQ(test, bar, want[n]);
		n++;
		bar = pci_epc_get_next_free_bar(&f, bar + 1);
	}
	KUNIT_EXPECT_EQ(test, n, (unsigned int)ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, bar, NO_BAR);
}

static struct kunit_case epk_bar_cases[] = {
	KUNIT_CASE(epk_bar_no_features),
	KUNIT_CASE(epk_bar_all_free),
	KUNIT_CASE(epk_bar_reserved_skipped),
	KUNIT_CASE(epk_bar_fixed_64bit),
	KUNIT_CASE(epk_bar_reserved_64bit),
	KUNIT_CASE(epk_bar_walk),
	{ }
};

static struct kunit_suite epk_bar_suite = {
	.name = "pci_epc_free_bar",
	.test_cases = epk_bar_cases,
};

/* pci_epf_alloc_space(): a function attached to a fake controller */

struct epk_space {
	struct pci_ep_kunit_epc *k;
	struct pci_epf *epf;
};

static int epk_space_case_init(struct kunit *test)
{
	struct epk_space *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->k = pci_ep_kunit_epc_new(test, "pci-ep-kunit-space", 1);
	s->epf = pci_ep_kunit_epf_new(test, PCI_EP_KUNIT_DRIVER ".space");
	KUNIT_ASSERT_EQ(test, pci_epc_add_epf(s->k->epc, s->epf,
					      PRIMARY_INTERFACE), 0);
	test->priv = s;
	return 0;
}

static struct pci_epf *epk_space_epf(struct kunit *test)
{
	return ((struct epk_space *)test->priv)->epf;
}

/* Allocate, check the BAR description, then free and check it is gone. */
static void epk_space_expect(struct kunit *test, size_t size,
			     enum pci_barno bar, size_t align, size_t want)
{
	struct pci_epf *epf = epk_space_epf(test);
	struct pci_epf_bar *b = &epf->bar[bar];
	void *addr;

	addr = pci_epf_alloc_space(epf, size, bar, align, PRIMARY_INTERFACE);
	KUNIT_ASSERT_NOT_NULL_MSG(test, addr, "%zu bytes, align %zu", size,
				  align);
	KUNIT_EXPECT_PTR_EQ(test, b->addr, addr);
	KUNIT_EXPECT_EQ_MSG(test, b->size, want, "%zu bytes, align %zu",
			    size, align);
	KUNIT_EXPECT_EQ(test, b->barno, bar);
	KUNIT_EXPECT_NE(test, b->phys_addr, 0);
	KUNIT_EXPECT_FALSE(test, b->flags & PCI_BASE_ADDRESS_MEM_TYPE_64);

	pci_epf_free_space(epf, addr, bar, PRIMARY_INTERFACE);
	KUNIT_EXPECT_NULL(test, b->addr);
	KUNIT_EXPECT_EQ(test, b->size, 0U);
}

static void epk_space_power_of_two(struct kunit *test)
{
	epk_space_expect(test, 1000, BAR_0, 0, 1024);
	epk_space_expect(test, 4096, BAR_1, 0, 4096);
	epk_space_expect(test, 4097, BAR_2, 0, 8192);
	epk_space_expect(test, SZ_64K - 1, BAR_3, 0, SZ_64K);
}

static void epk_space_minimum(struct kunit *test)
{
	epk_space_expect(test, 1, BAR_0, 0, 128);
	epk_space_expect(test, 128, BAR_0, 0, 128);
	epk_space_expect(test, 129, BAR_0, 0, 256);
}

static void epk_space_align(struct kunit *test)
{
	struct pci_epf *epf = epk_space_epf(test);

	epk_space_expect(test, 256, BAR_0, SZ_4K, SZ_4K);
	epk_space_expect(test, SZ_8K, BAR_0, SZ_4K, SZ_8K);
	epk_space_expect(test, 100, BAR_0, SZ_64K, SZ_64K);
	/* an alignment that is no power of two is refused */
	KUNIT_EXPECT_NULL(test, pci_epf_alloc_space(epf, 256, BAR_0, 3000,
						    PRIMARY_INTERFACE));
	KUNIT_EXPECT_NULL(test, epf->bar[BAR_0].addr);
}

static void epk_space_naturally_aligned(struct kunit *test)
{
	struct pci_epf *epf = epk_space_epf(test);
	void *addr;

	addr = pci_epf_alloc_space(epf, SZ_16K, BAR_4, 0, PRIMARY_INTERFACE);
	KUNIT_ASSERT_NOT_NULL(test, addr);
	/* the host aligns a BAR to its size; the memory behind it too */
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(epf->bar[BAR_4].phys_addr, SZ_16K));
	/* and it is there to be written */
	memset(addr, 0x5a, SZ_16K);
	KUNIT_EXPECT_EQ(test, ((u8 *)addr)[SZ_16K - 1], 0x5a);
	pci_epf_free_space(epf, addr, BAR_4, PRIMARY_INTERFACE);
}

static void epk_space_fixed_size(struct kunit *test)
{
	struct epk_space *s = test->priv;
	struct pci_epf *epf = s->epf;

	s->k->features.bar_fixed_size[BAR_2] = SZ_8K;
	s->k->features.bar_fixed_size[BAR_3] = SZ_64K;

	/* a fixed size wins over the request, the minimum and the alignment */
	epk_space_expect(test, 100, BAR_2, 0, SZ_8K);
	epk_space_expect(test, SZ_8K, BAR_2, 0, SZ_8K);
	epk_space_expect(test, 300, BAR_3, SZ_4K, SZ_64K);
	/* and a request that does not fit in it is refused */
	KUNIT_EXPECT_NULL(test, pci_epf_alloc_space(epf, SZ_8K + 1, BAR_2, 0,
						    PRIMARY_INTERFACE));
	KUNIT_EXPECT_NULL(test, epf->bar[BAR_2].addr);
	/* other BARs are not affected */
	epk_space_expect(test, 100, BAR_1, 0, 128);
}

static void epk_space_busy_bar(struct kunit *test)
{
	struct pci_epf *epf = epk_space_epf(test);
	void *first, *second;

	first = pci_epf_alloc_space(epf, 256, BAR_0, 0, PRIMARY_INTERFACE);
	KUNIT_ASSERT_NOT_NULL(test, first);
	second = pci_epf_alloc_space(epf, 512, BAR_0, 0, PRIMARY_INTERFACE);
	KUNIT_EXPECT_NULL(test, second);
	KUNIT_EXPECT_PTR_EQ(test, epf->bar[BAR_0].addr, first);
	KUNIT_EXPECT_EQ(test, epf->bar[BAR_0].size, 256U);

	/* freed, the BAR can be allocated again */
	pci_epf_free_space(epf, first, BAR_0, PRIMARY_INTERFACE);
	second = pci_epf_alloc_space(epf, 512, BAR_0, 0, PRIMARY_INTERFACE);
	KUNIT_EXPECT_NOT_NULL(test, second);
	KUNIT_EXPECT_EQ(test, epf->bar[BAR_0].size, 512U);
	pci_epf_free_space(epf, second, BAR_0, PRIMARY_INTERFACE);
}

static void epk_space_bad_free(struct kunit *test)
{
	struct pci_epf *epf = epk_space_epf(test);
	void *a, *b;

	a = pci_epf_alloc_space(epf, 256, BAR_0, 0, PRIMARY_INTERFACE);
	b = pci_epf_alloc_space(epf, 256, BAR_1, 0, PRIMARY_INTERFACE);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);

	/* the memory of another BAR, a NULL address, a wrong interface */
	pci_epf_free_space(epf, b, BAR_0, PRIMARY_INTERFACE);
	pci_epf_free_space(epf, NULL, BAR_0, PRIMARY_INTERFACE);
	pci_epf_free_space(epf, a, BAR_0, SECONDARY_INTERFACE);
	pci_epf_free_space(epf, a, BAR_5 + 1, PRIMARY_INTERFACE);
	KUNIT_EXPECT_PTR_EQ(test, epf->bar[BAR_0].addr, a);
	KUNIT_EXPECT_PTR_EQ(test, epf->bar[BAR_1].addr, b);

	pci_epf_free_space(epf, a, BAR_0, PRIMARY_INTERFACE);
	/* a second free of the same memory is ignored */
	pci_epf_free_space(epf, a, BAR_0, PRIMARY_INTERFACE);
	KUNIT_EXPECT_NULL(test, epf->bar[BAR_0].addr);
	KUNIT_EXPECT_PTR_EQ(test, epf->bar[BAR_1].addr, b);
	pci_epf_free_space(epf, b, BAR_1, PRIMARY_INTERFACE);
}

static void epk_space_rejects(struct kunit *test)
{
	struct pci_epf *epf = epk_space_epf(test);
	struct pci_epf *lone;

	KUNIT_EXPECT_NULL(test, pci_epf_alloc_space(epf, 0, BAR_0, 0,
						    PRIMARY_INTERFACE));
	KUNIT_EXPECT_NULL(test, pci_epf_alloc_space(epf, 256, NO_BAR, 0,
						    PRIMARY_INTERFACE));
	KUNIT_EXPECT_NULL(test, pci_epf_alloc_space(epf, 256, BAR_5 + 1, 0,
						    PRIMARY_INTERFACE));
	KUNIT_EXPECT_NULL(test, pci_epf_alloc_space(NULL, 256, BAR_0, 0,
						    PRIMARY_INTERFACE));
	KUNIT_EXPECT_NULL(test, pci_epf_alloc_space(epf, SIZE_MAX, BAR_0, 0,
						    PRIMARY_INTERFACE));
	/* not attached through that interface */
	KUNIT_EXPECT_NULL(test, pci_epf_alloc_space(epf, 256, BAR_0, 0,
						    SECONDARY_INTERFACE));
	lone = pci_ep_kunit_epf_new(test, PCI_EP_KUNIT_DRIVER ".lone");
	KUNIT_EXPECT_NULL(test, pci_epf_alloc_space(lone, 256, BAR_0, 0,
						    PRIMARY_INTERFACE));
	KUNIT_EXPECT_NULL(test, epf->bar[BAR_0].addr);
}

static void epk_space_keeps_flags(struct kunit *test)
{
	struct pci_epf *epf = epk_space_epf(test);
	void *addr;

	epf->bar[BAR_0].flags = PCI_BASE_ADDRESS_MEM_PREFETCH;
	addr = pci_epf_alloc_space(epf, 256, BAR_0, 0, PRIMARY_INTERFACE);
	KUNIT_ASSERT_NOT_NULL(test, addr);
	KUNIT_EXPECT_EQ(test, epf->bar[BAR_0].flags,
			PCI_BASE_ADDRESS_MEM_PREFETCH);
	pci_epf_free_space(epf, addr, BAR_0, PRIMARY_INTERFACE);
}

static void epk_space_without_features(struct kunit *test)
{
	struct epk_space *s = test->priv;

	/* a controller that describes nothing fixes no size */
	s->k->features.bar_fixed_size[BAR_0] = SZ_8K;
	s->k->no_features = true;
	epk_space_expect(test, 100, BAR_0, 0, 128);
	KUNIT_EXPECT_GT(test, s->k->calls[EPK_GET_FEATURES], 0U);
}

static struct kunit_case epk_space_cases[] = {
	KUNIT_CASE(epk_space_power_of_two),
	KUNIT_CASE(epk_space_minimum),
	KUNIT_CASE(epk_space_align),
	KUNIT_CASE(epk_space_naturally_aligned),
	KUNIT_CASE(epk_space_fixed_size),
	KUNIT_CASE(epk_space_busy_bar),
	KUNIT_CASE(epk_space_bad_free),
	KUNIT_CASE(epk_space_rejects),
	KUNIT_CASE(epk_space_keeps_flags),
	KUNIT_CASE(epk_space_without_features),
	{ }
};

static struct kunit_suite epk_space_suite = {
	.name = "pci_epf_alloc_space",
	.suite_init = pci_ep_kunit_driver_init,
	.suite_exit = pci_ep_kunit_driver_exit,
	.init = epk_space_case_init,
	.test_cases = epk_space_cases,
};

kunit_test_suites(&epk_bar_suite, &epk_space_suite);
