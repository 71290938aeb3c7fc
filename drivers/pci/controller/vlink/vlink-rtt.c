// SPDX-License-Identifier: GPL-2.0
/*
 * vlink round trips: how long the link takes to answer.
 *
 * A doorbell round trip rings the peer's PING vector, whose handler rings
 * our PONG at once.  An interrupt round trip (endpoint only) sets the
 * pending bit VLINK_IRQ_ECHO_BIT and rings IRQ, as raising an MSI does;
 * the root complex's dispatcher answers that bit with a PONG.  Both are
 * measured at every handshake (a few) and on demand through
 * /sys/kernel/debug/vlink/<device>/rtt: write "doorbell N" or "irq N",
 * read the result.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include "vlink.h"

#define VLINK_RTT_MAX		100000
#define VLINK_PONG_TIMEOUT	msecs_to_jiffies(1000)

static int vlink_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/**
 * vlink_rtt_stats() - sum up measured times
 * @ns: @n times in nanoseconds, sorted in place
 * @n: how many, at least one
 * @res: the summary
 */
void vlink_rtt_stats(u32 *ns, unsigned int n, struct vlink_rtt *res)
{
	sort(ns, n, sizeof(*ns), vlink_cmp_u32, NULL);
	res->n = n;
	res->min = ns[0];
	res->median = ns[n / 2];
	res->p99 = ns[(n * 99) / 100];
	res->max = ns[n - 1];
}

/**
 * vlink_rtt_read() - give a summary to a debugfs reader, as one line
 * @ubuf: the reader's buffer
 * @count: its size
 * @ppos: the file position
 * @kind: what was measured, "none" when nothing yet
 * @r: the summary
 *
 * Return: what simple_read_from_buffer() returns.
 */
ssize_t vlink_rtt_read(char __user *ubuf, size_t count, loff_t *ppos,
		       const char *kind, const struct vlink_rtt *r)
{
	char buf[128];
	int len;

	len = scnprintf(buf, sizeof(buf),
			"%s n=%u min_ns=%u median_ns=%u p99_ns=%u max_ns=%u\n",
			kind, r->n, r->min, r->median, r->p99, r->max);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static void vlink_rtt_send(struct vlink *vl, bool via_irq)
{
	if (via_irq) {
		set_bit_le(VLINK_IRQ_ECHO_BIT, vlink_irq_bits(vl));
		vlink_ring(vl, VLINK_VEC_IRQ);
	} else {
		vlink_ring(vl, VLINK_VEC_PING);
	}
}

/**
 * vlink_rtt_measure() - measure n round trips over the link
 * @vl: the link
 * @via_irq: through the interrupt path (endpoint only), not a bare doorbell
 * @n: how many, 1..100000
 * @res: the result, in nanoseconds
 *
 * Return: 0, -EINVAL for a bad @n, -ENOMEM, or -ETIMEDOUT when an answer
 * did not come within a second.
 */
int vlink_rtt_measure(struct vlink *vl, bool via_irq, unsigned int n,
		      struct vlink_rtt *res)
{
	unsigned int i;
	ktime_t t0;
	u32 *ns;
	int ret = 0;

	if (!n || n > VLINK_RTT_MAX || (via_irq && vl->role != VLINK_ROLE_EP))
		return -EINVAL;
	ns = kvmalloc_array(n, sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return -ENOMEM;

	mutex_lock(&vl->rtt_lock);
	for (i = 0; i < n; i++) {
		reinit_completion(&vl->pong);
		t0 = ktime_get();
		vlink_rtt_send(vl, via_irq);
		if (!wait_for_completion_timeout(&vl->pong,
						 VLINK_PONG_TIMEOUT)) {
			ret = -ETIMEDOUT;
			break;
		}
		ns[i] = ktime_to_ns(ktime_sub(ktime_get(), t0));
	}
	mutex_unlock(&vl->rtt_lock);

	if (!ret)
		vlink_rtt_stats(ns, n, res);
	kvfree(ns);
	return ret;
}

/**
 * vlink_debugfs_line() - take a short line written to a debugfs file
 * @buf: where to put it, NUL-terminated
 * @size: size of @buf
 * @ubuf: what userspace wrote
 * @count: how many bytes it wrote
 *
 * Return: 0, -EINVAL when it does not fit in @buf, -EFAULT.
 */
int vlink_debugfs_line(char *buf, size_t size, const char __user *ubuf,
		       size_t count)
{
	if (count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	return 0;
}

static ssize_t vlink_rtt_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct vlink *vl = file->private_data;
	char buf[32], kind[16];
	unsigned int n;
	int ret;

	ret = vlink_debugfs_line(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(buf, "%15s %u", kind, &n) != 2)
		return -EINVAL;
	if (strcmp(kind, "doorbell") && strcmp(kind, "irq"))
		return -EINVAL;
	ret = vlink_rtt_measure(vl, !strcmp(kind, "irq"), n, &vl->rtt_last);
	if (ret)
		return ret;
	strscpy(vl->rtt_kind, kind, sizeof(vl->rtt_kind));
	return count;
}

static ssize_t vlink_rtt_file_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct vlink *vl = file->private_data;

	return vlink_rtt_read(ubuf, count, ppos,
			      vl->rtt_kind[0] ? vl->rtt_kind : "none",
			      &vl->rtt_last);
}

static const struct file_operations vlink_rtt_fops = {
	.open = simple_open,
	.read = vlink_rtt_file_read,
	.write = vlink_rtt_write,
	.llseek = default_llseek,
};

static struct dentry *vlink_debugfs_root;

static void vlink_rtt_remove(void *dir)
{
	debugfs_remove_recursive(dir);
}

/**
 * vlink_rtt_debugfs_init() - offer round-trip measurements in debugfs
 * @vl: the link
 */
void vlink_rtt_debugfs_init(struct vlink *vl)
{
	struct device *dev = &vl->pdev->dev;
	struct dentry *dir;

	if (!vlink_debugfs_root)
		vlink_debugfs_root = debugfs_create_dir("vlink", NULL);
	dir = debugfs_create_dir(dev_name(dev), vlink_debugfs_root);
	debugfs_create_file("rtt", 0600, dir, vl, &vlink_rtt_fops);
	if (!devm_add_action_or_reset(dev, vlink_rtt_remove, dir))
		vl->debugfs = dir;
}
