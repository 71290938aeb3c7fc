// SPDX-License-Identifier: GPL-2.0
/*
 * vlink endpoint fault injection.
 *
 * /sys/kernel/debug/vlink-ep/<device>/fault takes one word:
 *   bar-size, bar-outside, bar-overlap, cap-loop, cap-outside, cap-msi-end,
 *   msix-outside, header-type, vendor-retry
 *		break what the next pci_epc_start() publishes; the start
 *		after that publishes the real thing again
 *   msi-bogus	set a pending bit no MSI vector owns, and ring
 *   vendor-flip
 *		rewrite function 0's IDs and capability pointer now, under a
 *		root complex that has enumerated it
 *   bar-move	move function 0's BAR0 by 1 MiB now, marked movable, and
 *		count the move: a root complex must not follow a BAR it
 *		enumerated as fixed
 *   bad-magic, max-functions, good-magic
 *		spoil the shm header's magic (a root complex that probes
 *		meanwhile must refuse the link) or its function count (one
 *		that runs must not use it); good-magic restores both
 * Reading it tells what is armed.  Only for testing the root complex.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/pci.h>
#include <linux/string.h>

#include "vlink.h"
#include "vlink-ep-faults.h"

#define VLINK_EP_FAULT_CFG_CAP	0x50	/* where the EP puts its first cap */

static const char *const vlink_fault_names[] = {
	[VLINK_FAULT_NONE] = "none",
	[VLINK_FAULT_BAR_SIZE] = "bar-size",
	[VLINK_FAULT_BAR_OUTSIDE] = "bar-outside",
	[VLINK_FAULT_CAP_LOOP] = "cap-loop",
	[VLINK_FAULT_CAP_OUTSIDE] = "cap-outside",
	[VLINK_FAULT_VENDOR_RETRY] = "vendor-retry",
	[VLINK_FAULT_BAR_OVERLAP] = "bar-overlap",
	[VLINK_FAULT_CAP_MSI_END] = "cap-msi-end",
	[VLINK_FAULT_MSIX_OUTSIDE] = "msix-outside",
	[VLINK_FAULT_HEADER_TYPE] = "header-type",
};

#define VLINK_EP_FAULT_UNDO	(4 * VLINK_MAX_FUNCTIONS)

/**
 * struct vlink_ep_fault_undo - one field a fault spoiled
 * @at: where, in the link shm
 * @len: its size in bytes
 * @old: what it held before
 * @bad: what the fault wrote
 */
struct vlink_ep_fault_undo {
	void *at;
	unsigned int len;
	u8 old[8];
	u8 bad[8];
};

/*
 * One armed fault per link; links are few and tests run one at a time.
 * Each field a fault spoils is remembered, and put back at the next start
 * unless the controller has written it since.
 */
struct vlink_ep_faults {
	struct vlink *vl;
	enum vlink_ep_fault armed;
	unsigned int nr_undo;
	struct vlink_ep_fault_undo undo[VLINK_EP_FAULT_UNDO];
};

static void vlink_fault_poke(struct vlink_ep_faults *f, void *at,
			     const void *bad, unsigned int len)
{
	struct vlink_ep_fault_undo *u = &f->undo[f->nr_undo];

	if (f->nr_undo == VLINK_EP_FAULT_UNDO || len > sizeof(u->old))
		return;
	u->at = at;
	u->len = len;
	memcpy(u->old, at, len);
	memcpy(u->bad, bad, len);
	memcpy(at, bad, len);
	f->nr_undo++;
}

#define vlink_fault_set(f, field, val)					\
	do {								\
		typeof(field) __v = (val);				\
		vlink_fault_poke(f, &(field), &__v, sizeof(__v));	\
	} while (0)

static void vlink_ep_faults_restore(struct vlink_ep_faults *f)
{
	struct vlink_ep_fault_undo *u;

	while (f->nr_undo) {
		u = &f->undo[--f->nr_undo];
		if (!memcmp(u->at, u->bad, u->len))
			memcpy(u->at, u->old, u->len);
	}
}

/* Make the capability list of cfg start at pos. */
static void vlink_fault_caps_at(struct vlink_ep_faults *f, u8 *cfg, u8 pos)
{
	vlink_fault_set(f, cfg[PCI_STATUS],
			(u8)(cfg[PCI_STATUS] | PCI_STATUS_CAP_LIST));
	vlink_fault_set(f, cfg[PCI_CAPABILITY_LIST], pos);
}

static struct dentry *vlink_ep_faults_dir;

static void vlink_ep_fault_one(struct vlink_ep_faults *f, unsigned int fn)
{
	struct vlink_func_desc *d = vlink_desc(f->vl, fn);
	u8 *cfg = vlink_cfg(f->vl, fn);
	u8 cap = VLINK_EP_FAULT_CFG_CAP;

	switch (f->armed) {
	case VLINK_FAULT_BAR_SIZE:
		vlink_fault_set(f, d->bar[0].size, cpu_to_le64(3000));
		break;
	case VLINK_FAULT_BAR_OUTSIDE:
		vlink_fault_set(f, d->bar[0].phys,
				cpu_to_le64(le64_to_cpu(d->bar[0].phys) + SZ_1G));
		break;
	case VLINK_FAULT_BAR_OVERLAP:
		/* BAR1 on BAR0's memory */
		vlink_fault_set(f, d->bar[1].phys, d->bar[0].phys);
		vlink_fault_set(f, d->bar[1].size, d->bar[0].size);
		vlink_fault_set(f, d->bar[1].flags, d->bar[0].flags);
		break;
	case VLINK_FAULT_CAP_LOOP:
		vlink_fault_caps_at(f, cfg, cap);
		vlink_fault_set(f, cfg[cap + PCI_CAP_LIST_NEXT], cap);
		break;
	case VLINK_FAULT_CAP_OUTSIDE:
		vlink_fault_caps_at(f, cfg, 0xfe);
		break;
	case VLINK_FAULT_CAP_MSI_END:
		/* A 64-bit MSI capability with masking needs 24 bytes. */
		vlink_fault_caps_at(f, cfg, 0xf0);
		vlink_fault_set(f, cfg[0xf0 + PCI_CAP_LIST_ID],
				(u8)PCI_CAP_ID_MSI);
		vlink_fault_set(f, cfg[0xf0 + PCI_CAP_LIST_NEXT], (u8)0);
		vlink_fault_set(f, *(__le16 *)&cfg[0xf0 + PCI_MSI_FLAGS],
				cpu_to_le16(PCI_MSI_FLAGS_64BIT |
					    PCI_MSI_FLAGS_MASKBIT));
		break;
	case VLINK_FAULT_MSIX_OUTSIDE:
		/* The MSI-X table starts beyond the end of BAR0. */
		vlink_fault_caps_at(f, cfg, cap);
		vlink_fault_set(f, cfg[cap + PCI_CAP_LIST_ID],
				(u8)PCI_CAP_ID_MSIX);
		vlink_fault_set(f, cfg[cap + PCI_CAP_LIST_NEXT], (u8)0);
		vlink_fault_set(f, *(__le16 *)&cfg[cap + PCI_MSIX_FLAGS],
				cpu_to_le16(PCI_MSIX_FLAGS_QSIZE));
		vlink_fault_set(f, *(__le32 *)&cfg[cap + PCI_MSIX_TABLE],
				cpu_to_le32(lower_32_bits(le64_to_cpu(d->bar[0].size))));
		vlink_fault_set(f, *(__le32 *)&cfg[cap + PCI_MSIX_PBA],
				cpu_to_le32(0));
		break;
	case VLINK_FAULT_HEADER_TYPE:
		vlink_fault_set(f, cfg[PCI_HEADER_TYPE],
				(u8)PCI_HEADER_TYPE_BRIDGE);
		break;
	case VLINK_FAULT_VENDOR_RETRY:
		vlink_fault_set(f, *(__le16 *)&cfg[PCI_VENDOR_ID],
				cpu_to_le16(VLINK_VENDOR_ID_RETRY));
		break;
	default:
		break;
	}
}

/**
 * vlink_ep_faults_apply() - spoil what a start publishes, if armed
 * @vl: the endpoint link
 * @func_mask: the functions being published
 */
void vlink_ep_faults_apply(struct vlink *vl, u32 func_mask)
{
	struct vlink_ep_faults *f = vl->faults;
	unsigned int fn;

	if (!f)
		return;
	vlink_ep_faults_restore(f);
	if (f->armed == VLINK_FAULT_NONE)
		return;
	for (fn = 0; fn < VLINK_MAX_FUNCTIONS; fn++)
		if (func_mask & BIT(fn))
			vlink_ep_fault_one(f, fn);
	pci_warn(vl->pdev, "fault injection: published %s\n",
		 vlink_fault_names[f->armed]);
	f->armed = VLINK_FAULT_NONE;
}

static ssize_t vlink_fault_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct vlink_ep_faults *f = file->private_data;
	struct vlink *vl = f->vl;
	char buf[16];
	int i;

	i = vlink_debugfs_line(buf, sizeof(buf), ubuf, count);
	if (i)
		return i;
	strim(buf);

	if (!strcmp(buf, "msi-bogus")) {
		/* The last bit of the bitmap: no MSI block ever reaches it. */
		set_bit_le(VLINK_IRQ_BITS - 1, vlink_irq_bits(vl));
		vlink_ring(vl, VLINK_VEC_IRQ);
	} else if (!strcmp(buf, "bad-magic")) {
		vlink_wr32(&vl->hdr->magic, ~VLINK_MAGIC);
	} else if (!strcmp(buf, "good-magic")) {
		vlink_wr32(&vl->hdr->magic, VLINK_MAGIC);
		vlink_wr32(&vl->hdr->max_functions, VLINK_MAX_FUNCTIONS);
	} else if (!strcmp(buf, "max-functions")) {
		/* The server's field: a root complex must not loop on it. */
		vlink_wr32(&vl->hdr->max_functions, U32_MAX);
	} else if (!strcmp(buf, "vendor-flip")) {
		/* Rewrite function 0's IDs and capability pointer under the host. */
		u8 *cfg = vlink_cfg(vl, 0);

		WRITE_ONCE(*(__le32 *)&cfg[PCI_VENDOR_ID], cpu_to_le32(0xdeadbeef));
		WRITE_ONCE(cfg[PCI_CAPABILITY_LIST], 0xfc);
	} else if (!strcmp(buf, "bar-move")) {
		struct vlink_bar_desc *d = &vlink_desc(vl, 0)->bar[0];

		vlink_wr64(&d->phys, vlink_rd64(&d->phys) + SZ_1M);
		vlink_wr32(&d->attr, VLINK_BAR_MOVABLE);
		vlink_bar_moved(vl);
	} else {
		i = match_string(vlink_fault_names,
				 ARRAY_SIZE(vlink_fault_names), buf);
		if (i < 0)
			return -EINVAL;
		f->armed = i;
	}
	pci_warn(vl->pdev, "fault injection: %s\n", buf);
	return count;
}

static ssize_t vlink_fault_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct vlink_ep_faults *f = file->private_data;
	char buf[16];
	int n = scnprintf(buf, sizeof(buf), "%s\n", vlink_fault_names[f->armed]);

	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations vlink_fault_fops = {
	.open = simple_open,
	.read = vlink_fault_read,
	.write = vlink_fault_write,
	.llseek = default_llseek,
};

static void vlink_ep_faults_remove(void *data)
{
	debugfs_remove_recursive(data);
}

/**
 * vlink_ep_faults_init() - offer fault injection for an endpoint link
 * @vl: the endpoint link
 */
void vlink_ep_faults_init(struct vlink *vl)
{
	struct device *dev = &vl->pdev->dev;
	struct vlink_ep_faults *f;
	struct dentry *dir;

	f = devm_kzalloc(dev, sizeof(*f), GFP_KERNEL);
	if (!f)
		return;
	f->vl = vl;
	if (!vlink_ep_faults_dir)
		vlink_ep_faults_dir = debugfs_create_dir("vlink-ep", NULL);
	dir = debugfs_create_dir(dev_name(dev), vlink_ep_faults_dir);
	debugfs_create_file("fault", 0600, dir, f, &vlink_fault_fops);
	vlink_ep_fuzz_init(vl, dir);
	if (devm_add_action_or_reset(dev, vlink_ep_faults_remove, dir))
		return;
	vl->faults = f;
}
