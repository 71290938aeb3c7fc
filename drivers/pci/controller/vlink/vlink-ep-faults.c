// SPDX-License-Identifier: GPL-2.0
/*
 * vlink endpoint fault injection.
 *
 * /sys/kernel/debug/vlink-ep/<device>/fault takes one word:
 *   bar-size, bar-outside, cap-loop, cap-outside, vendor-retry
 *		break what the next pci_epc_start() publishes; the start
 *		after that publishes the real thing again
 *   msi-bogus	set a pending bit no MSI vector owns, and ring
 *   bad-magic, good-magic
 *		spoil or restore the shm header's magic (a root complex that
 *		probes meanwhile must refuse the link)
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
};

#define VLINK_EP_FAULT_CFG_SAVED	0x100

/*
 * One armed fault per link; links are few and tests run one at a time.
 * What a fault spoils is saved first and put back at the next start.
 */
struct vlink_ep_faults {
	struct vlink *vl;
	enum vlink_ep_fault armed;
	bool spoiled;
	struct vlink_func_desc desc[VLINK_MAX_FUNCTIONS];
	u8 cfg[VLINK_MAX_FUNCTIONS][VLINK_EP_FAULT_CFG_SAVED];
};

static struct vlink_func_desc *vlink_fault_desc(struct vlink *vl,
						unsigned int fn)
{
	return vl->shm + VLINK_FUNC_OFFSET + fn * VLINK_FUNC_STRIDE;
}

static u8 *vlink_fault_cfg(struct vlink *vl, unsigned int fn)
{
	return vl->shm + VLINK_CFG_OFFSET + fn * VLINK_CFG_SIZE;
}

static void vlink_ep_faults_save(struct vlink_ep_faults *f, bool restore)
{
	unsigned int fn;

	for (fn = 0; fn < VLINK_MAX_FUNCTIONS; fn++) {
		struct vlink_func_desc *d = vlink_fault_desc(f->vl, fn);
		u8 *cfg = vlink_fault_cfg(f->vl, fn);

		if (restore) {
			*d = f->desc[fn];
			memcpy(cfg, f->cfg[fn], VLINK_EP_FAULT_CFG_SAVED);
		} else {
			f->desc[fn] = *d;
			memcpy(f->cfg[fn], cfg, VLINK_EP_FAULT_CFG_SAVED);
		}
	}
	f->spoiled = !restore;
}

static struct dentry *vlink_ep_faults_dir;

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
	if (f->spoiled)
		vlink_ep_faults_save(f, true);
	if (f->armed == VLINK_FAULT_NONE)
		return;
	vlink_ep_faults_save(f, false);
	for (fn = 0; fn < VLINK_MAX_FUNCTIONS; fn++) {
		struct vlink_func_desc *d = vlink_fault_desc(vl, fn);
		u8 *cfg = vlink_fault_cfg(vl, fn);

		if (!(func_mask & BIT(fn)))
			continue;
		switch (f->armed) {
		case VLINK_FAULT_BAR_SIZE:
			d->bar[0].size = 3000;
			break;
		case VLINK_FAULT_BAR_OUTSIDE:
			d->bar[0].phys += SZ_1G;
			break;
		case VLINK_FAULT_CAP_LOOP:
			cfg[PCI_STATUS] |= PCI_STATUS_CAP_LIST;
			cfg[PCI_CAPABILITY_LIST] = VLINK_EP_FAULT_CFG_CAP;
			cfg[VLINK_EP_FAULT_CFG_CAP + PCI_CAP_LIST_NEXT] =
				VLINK_EP_FAULT_CFG_CAP;
			break;
		case VLINK_FAULT_CAP_OUTSIDE:
			cfg[PCI_STATUS] |= PCI_STATUS_CAP_LIST;
			cfg[PCI_CAPABILITY_LIST] = 0xfe;
			break;
		case VLINK_FAULT_VENDOR_RETRY:
			cfg[PCI_VENDOR_ID] = VLINK_VENDOR_ID_RETRY;
			cfg[PCI_VENDOR_ID + 1] = 0;
			break;
		default:
			break;
		}
	}
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

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);

	if (!strcmp(buf, "msi-bogus")) {
		/* The last bit of the bitmap: no MSI block ever reaches it. */
		set_bit(VLINK_IRQ_BITS - 1, vl->shm + VLINK_IRQ_OFFSET);
		vlink_ring(vl, VLINK_VEC_IRQ);
	} else if (!strcmp(buf, "bad-magic")) {
		WRITE_ONCE(vl->hdr->magic, ~VLINK_MAGIC);
	} else if (!strcmp(buf, "good-magic")) {
		WRITE_ONCE(vl->hdr->magic, VLINK_MAGIC);
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
	if (devm_add_action_or_reset(dev, vlink_ep_faults_remove, dir))
		return;
	vl->faults = f;
}
