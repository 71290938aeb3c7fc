// SPDX-License-Identifier: GPL-2.0
/*
 * vlink endpoint fuzzer: a hostile endpoint, many times over.
 *
 * Writing "SEED COUNT" to /sys/kernel/debug/vlink-ep/<device>/fuzz, while
 * the controller is stopped, publishes COUNT mutated images of two
 * functions (config space, capability chains, BAR descriptors and
 * translation tables, the side area's function mask and the server's
 * header) and makes the root
 * complex rescan each, sometimes mutating again while it copies.  The
 * root complex must answer every generation, refuse what it cannot
 * present and never write our RAM outside the BARs it accepted: the BARs
 * live in an arena whose other bytes hold a canary.  Last, the unspoiled
 * image must be enumerated.  Reading the file gives the figures.
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/iopoll.h>
#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <asm/unaligned.h>

#include "vlink.h"
#include "vlink-ep-faults.h"

#define FUZZ_ORDER		4		/* a 64 KiB arena */
#define FUZZ_ARENA		(PAGE_SIZE << FUZZ_ORDER)
#define FUZZ_FUNCS		2
#define FUZZ_CANARY		0x5a
#define FUZZ_MSI_CAP		0x50
#define FUZZ_MSIX_CAP		0x70
/*
 * A bound, not a speed: on a debug kernel on a loaded machine the root
 * complex took over 10 s to answer a generation whose function the stock
 * driver probed (its MSI-X setup is slow under KASAN).
 */
#define FUZZ_ACK_TIMEOUT_US	(30 * USEC_PER_SEC)

/**
 * struct vlink_fuzz_image - what one generation publishes
 * @cfg: config space of each function
 * @desc: BAR descriptors of each function
 * @xlat: translation tables of each function's BARs
 * @mask: the side area's function mask
 */
struct vlink_fuzz_image {
	u8 cfg[FUZZ_FUNCS][256];
	struct vlink_func_desc desc[FUZZ_FUNCS];
	struct vlink_bar_xlat xlat[FUZZ_FUNCS][PCI_STD_NUM_BARS];
	u32 mask;
};

/**
 * struct vlink_fuzz - one run
 * @vl: the endpoint link
 * @rnd: the seeded generator
 * @arena: BAR memory, canary elsewhere
 * @arena_phys: its physical address
 * @img: the image being published
 * @good: the unspoiled image
 * @hdr: the server's header, put back after every generation
 * @allowed: arena bytes the host may write: BARs accepted now or just before
 * @tried: generations published
 * @refused: functions the root complex refused
 * @accepted: functions it presents
 * @unanswered: generations it did not acknowledge in time
 * @canary: generations after which the canary was found overwritten
 * @good_ok: the unspoiled image was enumerated at the end
 */
struct vlink_fuzz {
	struct vlink *vl;
	struct rnd_state rnd;
	u8 *arena;
	phys_addr_t arena_phys;
	struct vlink_fuzz_image img;
	struct vlink_fuzz_image good;
	struct vlink_header hdr;
	DECLARE_BITMAP(allowed, FUZZ_ARENA / 16);
	u32 tried, refused, accepted, unanswered, canary;
	bool good_ok;
};

static u32 fuzz_rand(struct vlink_fuzz *z, u32 n)
{
	return n ? prandom_u32_state(&z->rnd) % n : 0;
}

static void fuzz_put16(u8 *p, u16 v)
{
	put_unaligned_le16(v, p);
}

static void fuzz_put32(u8 *p, u32 v)
{
	put_unaligned_le32(v, p);
}

/* Two functions as a pci-epf-test would publish them, BARs in the arena. */
static void fuzz_template(struct vlink_fuzz *z)
{
	struct vlink_fuzz_image *g = &z->good;
	unsigned int fn;

	memset(g, 0, sizeof(*g));
	for (fn = 0; fn < FUZZ_FUNCS; fn++) {
		u8 *cfg = g->cfg[fn];
		struct vlink_bar_desc *bar = g->desc[fn].bar;

		/*
		 * Renesas RZ/G2M and RZ/G2N: the stock pci_endpoint_test
		 * probes them with its irq_type parameter (MSI-X in the test:
		 * the PCI core maps and writes the table the image gives).
		 * Devices it has data for would set that parameter to MSI.
		 */
		fuzz_put16(cfg + PCI_VENDOR_ID, 0x1912);
		fuzz_put16(cfg + PCI_DEVICE_ID, fn ? 0x002b : 0x0028);
		cfg[PCI_CLASS_DEVICE + 1] = 0xff;
		fuzz_put16(cfg + PCI_STATUS, PCI_STATUS_CAP_LIST);
		cfg[PCI_INTERRUPT_PIN] = 1;
		cfg[PCI_CAPABILITY_LIST] = FUZZ_MSI_CAP;
		cfg[FUZZ_MSI_CAP] = PCI_CAP_ID_MSI;
		cfg[FUZZ_MSI_CAP + PCI_CAP_LIST_NEXT] = FUZZ_MSIX_CAP;
		fuzz_put16(cfg + FUZZ_MSI_CAP + PCI_MSI_FLAGS,
			   PCI_MSI_FLAGS_64BIT | (5 << 1));
		cfg[FUZZ_MSIX_CAP] = PCI_CAP_ID_MSIX;
		fuzz_put16(cfg + FUZZ_MSIX_CAP + PCI_MSIX_FLAGS, 31);
		/* table at BAR1 + 0, PBA after it */
		fuzz_put32(cfg + FUZZ_MSIX_CAP + PCI_MSIX_TABLE, 1);
		fuzz_put32(cfg + FUZZ_MSIX_CAP + PCI_MSIX_PBA, 0x200 | 1);

		/* BAR0 4 KiB and BAR1 4 KiB per function, 8 KiB apart */
		bar[0].phys = cpu_to_le64(z->arena_phys + fn * SZ_8K);
		bar[0].size = cpu_to_le64(SZ_4K);
		bar[1].phys = cpu_to_le64(z->arena_phys + fn * SZ_8K + SZ_4K);
		bar[1].size = cpu_to_le64(SZ_4K);
	}
	g->mask = BIT(FUZZ_FUNCS) - 1;
}

/* Values a parser's bounds are most likely to miss. */
static u64 fuzz_edge(struct vlink_fuzz *z)
{
	static const u64 edges[] = {
		0, 1, 2, 3, 4, 0xf, 0x10, 0x3f, 0x40, 0x7f, 0x80, 0xfc, 0xfe,
		0xff, 0x100, 0xfff, 0x1000, 0x7fff, 0x8000, 0xffff, 0x10000,
		0x7fffffff, 0x80000000, 0xfffffff0, 0xffffffff,
		0x100000000ULL, ~0ULL, ~0ULL - 0xfff,
	};

	return edges[fuzz_rand(z, ARRAY_SIZE(edges))];
}

static void fuzz_cfg(struct vlink_fuzz *z, u8 *cfg)
{
	static const u8 spots[] = {
		PCI_HEADER_TYPE, PCI_STATUS, PCI_CAPABILITY_LIST,
		FUZZ_MSI_CAP, FUZZ_MSI_CAP + 1, FUZZ_MSI_CAP + 2,
		FUZZ_MSI_CAP + 3, FUZZ_MSIX_CAP, FUZZ_MSIX_CAP + 1,
		FUZZ_MSIX_CAP + 2, FUZZ_MSIX_CAP + 3, FUZZ_MSIX_CAP + 4,
		FUZZ_MSIX_CAP + 5, FUZZ_MSIX_CAP + 8, FUZZ_MSIX_CAP + 9,
		PCI_VENDOR_ID, PCI_VENDOR_ID + 1,
	};
	unsigned int at;

	switch (fuzz_rand(z, 4)) {
	case 0:		/* any byte */
		cfg[fuzz_rand(z, 256)] = fuzz_rand(z, 256);
		break;
	case 1:		/* a byte the parser reads */
		cfg[spots[fuzz_rand(z, ARRAY_SIZE(spots))]] = fuzz_edge(z);
		break;
	case 2:		/* a capability somewhere, pointed at */
		at = fuzz_rand(z, 64) * 4;
		cfg[PCI_CAPABILITY_LIST] = at;
		cfg[at] = fuzz_rand(z, 2) ? PCI_CAP_ID_MSI : PCI_CAP_ID_MSIX;
		cfg[(at + 1) & 0xff] = fuzz_edge(z);
		cfg[(at + 2) & 0xff] = fuzz_edge(z);
		cfg[(at + 3) & 0xff] = fuzz_edge(z);
		break;
	default:	/* an MSI-X table or PBA anywhere */
		at = FUZZ_MSIX_CAP + (fuzz_rand(z, 2) ? PCI_MSIX_TABLE :
						       PCI_MSIX_PBA);
		fuzz_put32(cfg + at, fuzz_edge(z) | fuzz_rand(z, 8));
		break;
	}
}

/*
 * A BAR that lies in our RAM lies in the arena, or the host would write
 * memory the kernel uses: one that would not is moved below RAM.
 */
static void fuzz_keep_in_arena(struct vlink_fuzz *z, struct vlink_bar_desc *b)
{
	u64 phys = le64_to_cpu(b->phys), size = le64_to_cpu(b->size);
	u64 end = phys + size;

	if (!size)
		return;
	if (phys >= z->arena_phys && end > phys &&
	    end <= z->arena_phys + FUZZ_ARENA)
		return;
	if (end > phys && end <= PFN_PHYS(min_low_pfn))
		return;
	if (phys >= PFN_PHYS(max_pfn) && end > phys)
		return;
	b->phys = 0;
	if (size > PFN_PHYS(min_low_pfn))
		b->size = cpu_to_le64(SZ_4K);
}

static void fuzz_desc(struct vlink_fuzz *z, struct vlink_func_desc *d)
{
	struct vlink_bar_desc *b = &d->bar[fuzz_rand(z, PCI_STD_NUM_BARS)];

	switch (fuzz_rand(z, 5)) {
	case 0:
		b->size = cpu_to_le64(fuzz_edge(z));
		break;
	case 1:
		b->size = cpu_to_le64(16ULL << fuzz_rand(z, 14));
		break;
	case 2:
		b->phys = cpu_to_le64(z->arena_phys +
				      fuzz_rand(z, FUZZ_ARENA / 16) * 16);
		break;
	case 3:
		b->phys = cpu_to_le64(fuzz_rand(z, 2) ? fuzz_edge(z) :
				      PFN_PHYS(max_pfn) - fuzz_rand(z, 4) *
				      SZ_4K);
		break;
	default:
		b->flags = cpu_to_le32(fuzz_edge(z));
		break;
	}
}

/* Does [addr, addr + size) lie wholly in the arena? */
static bool fuzz_in_arena(struct vlink_fuzz *z, u64 addr, u64 size)
{
	u64 end = addr + size;

	return addr >= z->arena_phys && end > addr &&
	       end <= z->arena_phys + FUZZ_ARENA;
}

static u64 fuzz_page_or_edge(struct vlink_fuzz *z, unsigned int pages)
{
	return fuzz_rand(z, 2) ? fuzz_rand(z, pages) * (u64)PAGE_SIZE :
				 fuzz_edge(z);
}

/*
 * A bridged BAR: its table's extents anywhere, of any kind, in any order,
 * torn or whole.  Those that would show our RAM show the arena or lie
 * below RAM (the host's root complex has no window onto the far RAM here,
 * so far extents are refused whatever they say).
 */
static void fuzz_xlat(struct vlink_fuzz *z, struct vlink_fuzz_image *m,
		      unsigned int fn)
{
	unsigned int bar = fuzz_rand(z, PCI_STD_NUM_BARS), i;
	struct vlink_bar_xlat *x = &m->xlat[fn][bar];
	unsigned int n = fuzz_rand(z, VLINK_XLAT_EXTENTS + 1);

	m->desc[fn].bar[bar].attr = cpu_to_le32(fuzz_rand(z, 4) ?
		VLINK_BAR_MOVABLE | VLINK_BAR_XLAT : fuzz_edge(z));
	memset(x, 0, sizeof(*x));
	x->seq = cpu_to_le32(fuzz_rand(z, 4) ? 2 : fuzz_edge(z));
	for (i = 0; i < n; i++) {
		/* Half of them a page of the BAR after another: a real table. */
		bool plausible = fuzz_rand(z, 2);
		struct vlink_xlat_extent *e = &x->ext[i];
		u64 addr = fuzz_rand(z, 2) ? z->arena_phys +
			   fuzz_rand(z, FUZZ_ARENA / PAGE_SIZE) * PAGE_SIZE :
			   fuzz_edge(z);
		u64 size = plausible ? PAGE_SIZE : fuzz_page_or_edge(z, 4);
		u32 kind = plausible ? VLINK_XLAT_EP_RAM : fuzz_rand(z, 3);

		if (kind == VLINK_XLAT_EP_RAM && !fuzz_in_arena(z, addr, size))
			addr = 0;
		e->bar_off = cpu_to_le64(plausible ? i * PAGE_SIZE :
					 fuzz_page_or_edge(z, 16));
		e->size = cpu_to_le64(size);
		e->addr = cpu_to_le64(addr);
		e->kind = cpu_to_le32(kind);
	}
}

static void fuzz_header(struct vlink_fuzz *z)
{
	/* Any 32 bits, the halves of msi_address too. */
	__le32 *w = (__le32 *)z->vl->hdr;
	/* Every field but those the server keeps live (present, connects). */
	unsigned int n = offsetof(struct vlink_header, present) / 4;

	vlink_wr32(&w[fuzz_rand(z, n)], fuzz_edge(z));
}

static void fuzz_mutate(struct vlink_fuzz *z)
{
	struct vlink_fuzz_image *m = &z->img;
	unsigned int i, n = 1 + fuzz_rand(z, 4);

	*m = z->good;
	for (i = 0; i < n; i++) {
		unsigned int fn = fuzz_rand(z, FUZZ_FUNCS);

		switch (fuzz_rand(z, 8)) {
		case 0 ... 3:
			fuzz_cfg(z, m->cfg[fn]);
			break;
		case 4:
			fuzz_desc(z, &m->desc[fn]);
			break;
		case 5:
			fuzz_xlat(z, m, fn);
			break;
		case 6:
			m->mask = fuzz_rand(z, 2) ? fuzz_edge(z) : 2;
			break;
		default:
			fuzz_header(z);
			break;
		}
	}
	for (i = 0; i < FUZZ_FUNCS; i++) {
		unsigned int bar;

		for (bar = 0; bar < PCI_STD_NUM_BARS; bar++)
			fuzz_keep_in_arena(z, &m->desc[i].bar[bar]);
	}
}

static void fuzz_publish(struct vlink_fuzz *z, bool started)
{
	struct vlink *vl = z->vl;
	unsigned int fn;

	for (fn = 0; fn < FUZZ_FUNCS; fn++) {
		memcpy(vlink_cfg(vl, fn), z->img.cfg[fn],
		       sizeof(z->img.cfg[fn]));
		memcpy(vlink_desc(vl, fn), &z->img.desc[fn],
		       sizeof(z->img.desc[fn]));
		memcpy(vlink_xlat(vl, fn, 0), z->img.xlat[fn],
		       sizeof(z->img.xlat[fn]));
	}
	vlink_wr32(&vl->self->func_mask, z->img.mask);
	vlink_wr32(&vl->self->started, started);
	vlink_wr32(&vl->self->start_gen, vlink_rd32(&vl->self->start_gen) + 1);
	vlink_ring(vl, VLINK_VEC_LINK);
}

/* While the root complex copies: only config bytes, never where BARs are. */
static void fuzz_race(struct vlink_fuzz *z)
{
	u8 *cfg = vlink_cfg(z->vl, 0);
	unsigned int i, n = fuzz_rand(z, 4);

	for (i = 0; i < n; i++) {
		udelay(fuzz_rand(z, 200));
		WRITE_ONCE(cfg[fuzz_rand(z, FUZZ_FUNCS) * VLINK_CFG_SIZE +
			       fuzz_rand(z, 256)], fuzz_rand(z, 256));
	}
}

static int fuzz_wait_ack(struct vlink_fuzz *z)
{
	struct vlink *vl = z->vl;
	u32 gen = vlink_rd32(&vl->self->start_gen), seen;

	return read_poll_timeout(vlink_rd32, seen, seen == gen, 200,
				 FUZZ_ACK_TIMEOUT_US, false,
				 &vl->other->enum_gen);
}

static void fuzz_allow_range(struct vlink_fuzz *z, u64 phys, u64 size,
			     unsigned long *allow)
{
	if (size && fuzz_in_arena(z, phys, size))
		bitmap_set(allow, (phys - z->arena_phys) / 16,
			   DIV_ROUND_UP(size, 16));
}

/*
 * Arena bytes the host may have written: the BARs of functions it took,
 * and whatever their translation tables show of it.
 */
static void fuzz_allow(struct vlink_fuzz *z, u32 seen, unsigned long *allow)
{
	unsigned int fn, bar, i;

	for (fn = 0; fn < FUZZ_FUNCS; fn++) {
		if (!(seen & BIT(fn)))
			continue;
		for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
			struct vlink_bar_desc *b = &z->img.desc[fn].bar[bar];
			struct vlink_xlat_extent *e = z->img.xlat[fn][bar].ext;

			fuzz_allow_range(z, le64_to_cpu(b->phys),
					 le64_to_cpu(b->size), allow);
			for (i = 0; i < VLINK_XLAT_EXTENTS; i++)
				if (le32_to_cpu(e[i].kind) == VLINK_XLAT_EP_RAM)
					fuzz_allow_range(z,
							 le64_to_cpu(e[i].addr),
							 le64_to_cpu(e[i].size),
							 allow);
		}
	}
}

static bool fuzz_check_canary(struct vlink_fuzz *z, u32 seen)
{
	DECLARE_BITMAP(now, FUZZ_ARENA / 16);
	unsigned int chunk, i;
	bool ok = true;

	bitmap_zero(now, FUZZ_ARENA / 16);
	fuzz_allow(z, seen, now);
	/* Removing the previous generation's functions writes their BARs. */
	bitmap_or(z->allowed, z->allowed, now, FUZZ_ARENA / 16);
	for (chunk = 0; chunk < FUZZ_ARENA / 16; chunk++) {
		if (test_bit(chunk, z->allowed))
			continue;
		for (i = 0; i < 16; i++) {
			if (z->arena[chunk * 16 + i] == FUZZ_CANARY)
				continue;
			if (ok)
				pci_err(z->vl->pdev, "fuzz: the host wrote arena offset %#x outside the BARs it accepted\n",
					chunk * 16 + i);
			ok = false;
			break;
		}
	}
	/* What is no longer a BAR gets its canary back. */
	for (chunk = 0; chunk < FUZZ_ARENA / 16; chunk++)
		if (!test_bit(chunk, now))
			memset(z->arena + chunk * 16, FUZZ_CANARY, 16);
	bitmap_copy(z->allowed, now, FUZZ_ARENA / 16);
	return ok;
}

/*
 * One generation: publish, let the host rescan, check the canary.
 * Return: the functions the host presents; all of them, as far as the
 * canary is concerned, when it did not answer.
 */
static u32 fuzz_generation(struct vlink_fuzz *z, bool started, bool race)
{
	struct vlink *vl = z->vl;
	u32 seen;

	fuzz_publish(z, started);
	if (race)
		fuzz_race(z);
	if (fuzz_wait_ack(z)) {
		z->unanswered++;
		pci_err(vl->pdev, "fuzz: generation %u not acknowledged\n",
			vlink_rd32(&vl->self->start_gen));
		seen = U32_MAX;
	} else {
		seen = vlink_rd32(&vl->other->func_seen);
	}
	if (!fuzz_check_canary(z, seen))
		z->canary++;
	memcpy(vl->hdr, &z->hdr, offsetof(struct vlink_header, present));
	return seen;
}

static void fuzz_run(struct vlink_fuzz *z, u32 seed, u32 count)
{
	struct vlink *vl = z->vl;
	u32 mask, seen;

	prandom_seed_state(&z->rnd, seed);
	memcpy(&z->hdr, vl->hdr, sizeof(z->hdr));
	memset(z->arena, FUZZ_CANARY, FUZZ_ARENA);
	bitmap_zero(z->allowed, FUZZ_ARENA / 16);
	fuzz_template(z);

	for (; z->tried < count && z->unanswered < 3; z->tried++) {
		fuzz_mutate(z);
		mask = z->img.mask & (BIT(FUZZ_FUNCS) - 1);
		seen = fuzz_generation(z, true, fuzz_rand(z, 2));
		z->accepted += hweight32(seen & mask);
		z->refused += hweight32(mask & ~seen);
		cond_resched();
	}
	/* The unspoiled image, after all that, is enumerated whole. */
	z->img = z->good;
	z->good_ok = fuzz_generation(z, true, false) == z->good.mask;

	/*
	 * Leave the link as a stopped controller has it; the arena may be
	 * freed once the host presents none of it (the canary says so).
	 */
	memset(&z->img, 0, sizeof(z->img));
	fuzz_generation(z, false, false);
}

static DEFINE_MUTEX(vlink_fuzz_lock);
static char vlink_fuzz_result[192];

static ssize_t vlink_fuzz_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct vlink *vl = file->private_data;
	struct vlink_fuzz *z;
	u32 seed, n;
	char buf[32];
	int ret;

	ret = vlink_debugfs_line(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(buf, "%u %u", &seed, &n) != 2 || !n || n > 1000000)
		return -EINVAL;
	if (!vlink_peer_alive(vl) || vlink_rd32(&vl->self->started)) {
		pci_err(vl->pdev, "fuzz: needs a live root complex and a stopped controller\n");
		return -EBUSY;
	}

	z = kzalloc(sizeof(*z), GFP_KERNEL);
	if (!z)
		return -ENOMEM;
	z->vl = vl;
	z->arena = (u8 *)__get_free_pages(GFP_KERNEL, FUZZ_ORDER);
	if (!z->arena) {
		kfree(z);
		return -ENOMEM;
	}
	z->arena_phys = virt_to_phys(z->arena);

	mutex_lock(&vlink_fuzz_lock);
	pci_info(vl->pdev, "fuzz: seed %u, %u generations\n", seed, n);
	fuzz_run(z, seed, n);
	scnprintf(vlink_fuzz_result, sizeof(vlink_fuzz_result),
		  "seed %u: %u mutations, %u refused, %u accepted, %u unanswered, %u canary faults, good image %s\n",
		  seed, z->tried, z->refused, z->accepted, z->unanswered,
		  z->canary, z->good_ok ? "enumerated" : "NOT enumerated");
	pci_info(vl->pdev, "fuzz: %s", vlink_fuzz_result);
	ret = z->unanswered || z->canary || !z->good_ok ? -EIO : count;
	mutex_unlock(&vlink_fuzz_lock);

	/* A host that never answered may still present the arena. */
	if (z->unanswered)
		pci_err(vl->pdev, "fuzz: arena kept, the host may still use it\n");
	else
		free_pages((unsigned long)z->arena, FUZZ_ORDER);
	kfree(z);
	return ret;
}

static ssize_t vlink_fuzz_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&vlink_fuzz_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, vlink_fuzz_result,
				      strlen(vlink_fuzz_result));
	mutex_unlock(&vlink_fuzz_lock);
	return ret;
}

static const struct file_operations vlink_fuzz_fops = {
	.open = simple_open,
	.read = vlink_fuzz_read,
	.write = vlink_fuzz_write,
	.llseek = default_llseek,
};

/**
 * vlink_ep_fuzz_init() - offer the fuzzer beside the fault injection
 * @vl: the endpoint link
 * @dir: the link's debugfs directory
 */
void vlink_ep_fuzz_init(struct vlink *vl, struct dentry *dir)
{
	debugfs_create_file("fuzz", 0600, dir, vl, &vlink_fuzz_fops);
}
