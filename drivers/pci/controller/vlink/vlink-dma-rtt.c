// SPDX-License-Identifier: GPL-2.0
/*
 * vlink DMA engine: what one transfer costs a client, back to back.
 *
 * /sys/kernel/debug/vlink/<device>/dma_rtt: write "N" or "N SIZE" and N
 * memcpy transfers of SIZE bytes (1 KiB if not given, 4 MiB - 4 KiB at
 * most) run one after the other on a channel of our own engine, each
 * timed from its prep to its callback, the way the link's doorbell round
 * trips are (vlink-rtt.c): so the two figures compare.  Each transfer
 * carries its own number in its first and last words, which are checked
 * at the destination once the callback has run.
 *
 * With the server's engine, "dma_polled" beside it counts the completions
 * that a polling client's tx_status took before their interrupt came.
 */

#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/sizes.h>

#include "vlink-dma.h"

#define VLINK_DMA_RTT_MAX	100000
#define VLINK_DMA_RTT_TIMEOUT	msecs_to_jiffies(1000)

static bool vlink_dma_rtt_filter(struct dma_chan *chan, void *param)
{
	return chan->device == param;
}

static void vlink_dma_rtt_done(void *arg)
{
	complete(arg);
}

/*
 * One timed transfer of @len bytes from @src to @dst, its first and last
 * words tagged with @tag: a copy cut short shows.
 */
static int vlink_dma_rtt_one(struct dma_chan *chan, struct device *dev,
			     dma_addr_t dst, u32 *dst_cpu, dma_addr_t src,
			     u32 *src_cpu, size_t len, u32 tag, u32 *ns)
{
	struct dma_async_tx_descriptor *tx;
	DECLARE_COMPLETION_ONSTACK(done);
	dma_cookie_t cookie;
	ktime_t t0;

	dma_sync_single_for_cpu(dev, src, len, DMA_TO_DEVICE);
	src_cpu[0] = tag;
	src_cpu[len / sizeof(u32) - 1] = tag;
	dma_sync_single_for_device(dev, src, len, DMA_TO_DEVICE);

	t0 = ktime_get();
	tx = dmaengine_prep_dma_memcpy(chan, dst, src, len,
				       DMA_PREP_INTERRUPT | DMA_CTRL_ACK);
	if (!tx)
		return -EIO;
	tx->callback = vlink_dma_rtt_done;
	tx->callback_param = &done;
	cookie = dmaengine_submit(tx);
	if (dma_submit_error(cookie))
		return -EIO;
	dma_async_issue_pending(chan);
	if (!wait_for_completion_timeout(&done, VLINK_DMA_RTT_TIMEOUT)) {
		/* The callback must not run on a stack frame that is gone. */
		dmaengine_terminate_sync(chan);
		return -ETIMEDOUT;
	}
	*ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
	if (dmaengine_tx_status(chan, cookie, NULL) != DMA_COMPLETE)
		return -EIO;

	dma_sync_single_for_cpu(dev, dst, len, DMA_FROM_DEVICE);
	return dst_cpu[0] == tag && dst_cpu[len / sizeof(u32) - 1] == tag ?
	       0 : -EILSEQ;
}

static int vlink_dma_rtt_measure(struct vlink_dma *dma, unsigned int n,
				 size_t len, struct vlink_rtt *res)
{
	struct device *dev = dma->dd.dev;
	dma_addr_t src = DMA_MAPPING_ERROR, dst = DMA_MAPPING_ERROR;
	u32 *src_cpu, *dst_cpu, *ns;
	void *dst_buf;
	struct dma_chan *chan;
	dma_cap_mask_t mask;
	unsigned int i;
	int ret = -ENOMEM;

	dma_cap_zero(mask);
	dma_cap_set(DMA_MEMCPY, mask);
	chan = dma_request_channel(mask, vlink_dma_rtt_filter, &dma->dd);
	if (!chan)
		return -EBUSY;

	/*
	 * The destination starts a page into its buffer: two buffers of a
	 * power-of-two size are as far apart as their alignment, and under
	 * QEMU's TCG, whose TLB is direct-mapped, a CPU copy (the in-guest
	 * engine) between such twins would measure the layout, not the copy.
	 * memcpy-bench, the ceiling, avoids that too.
	 */
	ns = kvmalloc_array(n, sizeof(*ns), GFP_KERNEL);
	src_cpu = kmalloc(len, GFP_KERNEL | __GFP_NOWARN);
	dst_buf = kzalloc(len + PAGE_SIZE, GFP_KERNEL | __GFP_NOWARN);
	if (!ns || !src_cpu || !dst_buf)
		goto out;
	dst_cpu = dst_buf + PAGE_SIZE;
	src = dma_map_single(dev, src_cpu, len, DMA_TO_DEVICE);
	dst = dma_map_single(dev, dst_cpu, len, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, src) || dma_mapping_error(dev, dst))
		goto out;

	for (i = 0; i < n; i++) {
		ret = vlink_dma_rtt_one(chan, dev, dst, dst_cpu, src, src_cpu,
					len, i + 1, &ns[i]);
		if (ret)
			break;
	}
	if (ret)
		dev_err(dev, "dma_rtt: transfer %u of %u (%zu bytes) failed: %d\n",
			i + 1, n, len, ret);
	else
		vlink_rtt_stats(ns, n, res);
out:
	if (!dma_mapping_error(dev, dst))
		dma_unmap_single(dev, dst, len, DMA_FROM_DEVICE);
	if (!dma_mapping_error(dev, src))
		dma_unmap_single(dev, src, len, DMA_TO_DEVICE);
	kfree(dst_buf);
	kfree(src_cpu);
	kvfree(ns);
	dma_release_channel(chan);
	return ret;
}

static ssize_t vlink_dma_rtt_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct vlink_dma *dma = file->private_data;
	unsigned int n, len = SZ_1K;
	struct vlink_rtt res;
	char buf[32];
	int ret;

	ret = vlink_debugfs_line(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	ret = sscanf(buf, "%u %u", &n, &len);
	if (ret < 1 || !n || n > VLINK_DMA_RTT_MAX || len < sizeof(u32) ||
	    len > SZ_4M - PAGE_SIZE)
		return -EINVAL;

	mutex_lock(&dma->rtt_lock);
	ret = vlink_dma_rtt_measure(dma, n, len, &res);
	if (!ret) {
		dma->rtt_last = res;
		dma->rtt_len = len;
	}
	mutex_unlock(&dma->rtt_lock);
	return ret ?: count;
}

static ssize_t vlink_dma_rtt_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct vlink_dma *dma = file->private_data;
	struct vlink_rtt res;
	char kind[24] = "none";

	mutex_lock(&dma->rtt_lock);
	res = dma->rtt_last;
	if (dma->rtt_len)
		snprintf(kind, sizeof(kind), "dma %u", dma->rtt_len);
	mutex_unlock(&dma->rtt_lock);
	return vlink_rtt_read(ubuf, count, ppos, kind, &res);
}

static const struct file_operations vlink_dma_rtt_fops = {
	.open = simple_open,
	.read = vlink_dma_rtt_read,
	.write = vlink_dma_rtt_write,
	.llseek = default_llseek,
};

/**
 * vlink_dma_rtt_init() - offer the engine's debugfs files
 * @dma: the registered engine
 *
 * "dma_rtt" times back-to-back transfers; with the server's engine,
 * "dma_polled" counts the completions that polling clients took.
 */
void vlink_dma_rtt_init(struct vlink_dma *dma)
{
	mutex_init(&dma->rtt_lock);
	if (!dma->vl->debugfs)
		return;
	dma->rtt_file = debugfs_create_file("dma_rtt", 0600, dma->vl->debugfs,
					    dma, &vlink_dma_rtt_fops);
	if (dma->server)
		debugfs_create_atomic_t("dma_polled", 0444, dma->vl->debugfs,
					&dma->polled);
}

/**
 * vlink_dma_rtt_exit() - withdraw the files before the engine goes
 * @dma: the engine
 *
 * Waits for a measurement under way: it is a client of the channels.
 */
void vlink_dma_rtt_exit(struct vlink_dma *dma)
{
	debugfs_remove(dma->rtt_file);
	dma->rtt_file = NULL;
	if (dma->vl->debugfs)
		debugfs_lookup_and_remove("dma_polled", dma->vl->debugfs);
}
