// SPDX-License-Identifier: GPL-2.0
/*
 * vlink DMA engine: the endpoint controller's dmaengine provider.
 *
 * Real endpoint controllers carry a DMA engine (the DesignWare eDMA, say)
 * that moves data between local memory and the host without the CPU.  Ours
 * runs in the link server, beside the guests (vlink-dma-ring.c): channels
 * post descriptors into rings in our reserved RAM and the server copies
 * between the two guests' RAM files.  When the server has no engine (it
 * was not given the RAM files), each channel's "hardware" is a worker on
 * our own CPU instead, with memcpy channels only.  Either way descriptors
 * are queued at submit, started once issued and completed with their
 * callbacks, so function drivers use the same asynchronous path they would
 * on silicon.  A transfer the engine cannot carry out completes too, with
 * DMA_TRANS_ABORTED for callback_result and DMA_ERROR from tx_status.
 *
 * Addresses are bus addresses of the controller's device: our own RAM
 * (dma_map_*() on the link device, which has no IOMMU), or parts of the
 * outbound window, which are translated through its current mappings;
 * slave channels take the host's own (PCI) addresses.
 */

#include <linux/dmaengine.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "vlink.h"
#include "vlink-dma.h"
#include "vlink-outbound.h"

/**
 * to_vlink_chan() - our channel of a dmaengine channel
 * @chan: one of the engine's channels
 *
 * Return: the channel.
 */
struct vlink_dma_chan *to_vlink_chan(struct dma_chan *chan)
{
	return container_of(chan, struct vlink_dma_chan, chan);
}

static struct vlink_dma_desc *to_desc(struct dma_async_tx_descriptor *tx)
{
	return container_of(tx, struct vlink_dma_desc, tx);
}

/*
 * Where a bus address is for the CPU: in the outbound window, or in our
 * RAM.  Anything else is refused: this engine reaches nothing else.
 */
static bool vlink_dma_in_window(struct vlink_dma *dma, dma_addr_t addr,
				size_t len)
{
	struct vlink_ob *ob = dma->ob;

	return addr >= ob->phys && addr - ob->phys < ob->size &&
	       len <= ob->size - (addr - ob->phys);
}

/**
 * vlink_dma_in_ram() - whether a bus address range is RAM of ours
 * @addr: start
 * @len: bytes
 * @lowmem: and the linear map covers it whole (the CPU copies it)
 *
 * One look at the resource tree, not one per page: under emulation a
 * page-by-page check cost 30 us per MiB of every transfer.
 *
 * Return: true if the whole range is.
 */
bool vlink_dma_in_ram(dma_addr_t addr, size_t len, bool lowmem)
{
	if (!len || addr + len - 1 < addr)
		return false;
	if (region_intersects(addr, len, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_INTERSECTS)
		return false;
	/* Highmem lies above all of lowmem: the last page speaks for all. */
	return !lowmem || !PageHighMem(pfn_to_page(PHYS_PFN(addr + len - 1)));
}

static void *vlink_dma_cpu_addr(struct vlink_dma *dma, dma_addr_t addr,
				size_t len)
{
	if (vlink_dma_in_window(dma, addr, len))
		return (void __force *)dma->ob->virt + (addr - dma->ob->phys);
	if (vlink_dma_in_ram(addr, len, true))
		return phys_to_virt(addr);
	return NULL;
}

/* Window to window goes through a bounce page, as a DMA FIFO would. */
static void vlink_dma_copy_io(void *bounce, void *dst, void *src, size_t len)
{
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = min_t(size_t, len - off, PAGE_SIZE);
		memcpy_fromio(bounce, (void __iomem *)src + off, n);
		memcpy_toio((void __iomem *)dst + off, bounce, n);
	}
}

static int vlink_dma_copy(struct vlink_dma_chan *ch, struct vlink_dma_desc *d)
{
	struct vlink_dma *dma = ch->dma;
	void *dst = vlink_dma_cpu_addr(dma, d->dst, d->len);
	void *src = vlink_dma_cpu_addr(dma, d->src, d->len);
	bool dst_io = vlink_dma_in_window(dma, d->dst, d->len);
	bool src_io = vlink_dma_in_window(dma, d->src, d->len);

	if (!dst || !src) {
		dev_err(dma->dd.dev, "memcpy %pad -> %pad (%zu bytes): address not reachable\n",
			&d->src, &d->dst, d->len);
		return -EFAULT;
	}
	/* Window pages are device memory: no unaligned or merged accesses. */
	if (dst_io && src_io)
		vlink_dma_copy_io(ch->bounce, dst, src, d->len);
	else if (dst_io)
		memcpy_toio((void __iomem *)dst, src, d->len);
	else if (src_io)
		memcpy_fromio(dst, (void __iomem *)src, d->len);
	else
		memcpy(dst, src, d->len);
	return 0;
}

/**
 * vlink_dma_finish() - complete a descriptor and call its client back
 * @ch: its channel
 * @d: the descriptor, off every list
 * @ok: it was carried out
 *
 * The descriptor is freed, or kept until its client acks it when it was
 * prepared without DMA_CTRL_ACK.
 */
void vlink_dma_finish(struct vlink_dma_chan *ch, struct vlink_dma_desc *d,
		      bool ok)
{
	struct dmaengine_result res = {
		.result = ok ? DMA_TRANS_NOERROR : DMA_TRANS_ABORTED,
	};
	unsigned long flags;

	if (!ok)
		res.residue = d->len;
	/* Complete before the callback: it may ask for the status. */
	spin_lock_irqsave(&ch->lock, flags);
	ch->completed = d->tx.cookie;
	if (!ok)
		ch->failed = d->tx.cookie;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (d->tx.callback_result)
		d->tx.callback_result(d->tx.callback_param, &res);
	else if (d->tx.callback)
		d->tx.callback(d->tx.callback_param);

	spin_lock_irqsave(&ch->lock, flags);
	if (async_tx_test_ack(&d->tx))
		kfree(d);
	else
		list_add_tail(&d->node, &ch->retired);
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * vlink_dma_free_list() - free descriptors nobody will complete
 * @list: descriptors, taken off their channel
 */
void vlink_dma_free_list(struct list_head *list)
{
	struct vlink_dma_desc *d, *tmp;

	list_for_each_entry_safe(d, tmp, list, node) {
		list_del(&d->node);
		kfree(d);
	}
}

/* Retired descriptors the client has acked are ours to free now. */
static void vlink_dma_free_acked(struct vlink_dma_chan *ch)
{
	struct vlink_dma_desc *d, *tmp;
	unsigned long flags;
	LIST_HEAD(acked);

	spin_lock_irqsave(&ch->lock, flags);
	list_for_each_entry_safe(d, tmp, &ch->retired, node)
		if (async_tx_test_ack(&d->tx))
			list_move_tail(&d->node, &acked);
	spin_unlock_irqrestore(&ch->lock, flags);
	vlink_dma_free_list(&acked);
}

static void vlink_dma_work(struct work_struct *work)
{
	struct vlink_dma_chan *ch = container_of(work, struct vlink_dma_chan,
						 work);
	struct vlink_dma_desc *d;

	for (;;) {
		spin_lock_irq(&ch->lock);
		d = list_first_entry_or_null(&ch->issued,
					     struct vlink_dma_desc, node);
		if (d)
			list_del(&d->node);
		spin_unlock_irq(&ch->lock);
		if (!d)
			return;
		vlink_dma_finish(ch, d, !vlink_dma_copy(ch, d));
	}
}

static dma_cookie_t vlink_dma_submit(struct dma_async_tx_descriptor *tx)
{
	struct vlink_dma_chan *ch = to_vlink_chan(tx->chan);
	unsigned long flags;
	dma_cookie_t cookie;

	spin_lock_irqsave(&ch->lock, flags);
	cookie = tx->chan->cookie + 1;
	if (cookie < DMA_MIN_COOKIE)
		cookie = DMA_MIN_COOKIE;
	tx->chan->cookie = cookie;
	tx->cookie = cookie;
	list_add_tail(&to_desc(tx)->node, &ch->submitted);
	spin_unlock_irqrestore(&ch->lock, flags);
	return cookie;
}

/**
 * vlink_dma_alloc_desc() - a descriptor for a channel
 * @ch: the channel
 * @nr_segs: ring slots it will take (0 for the worker)
 * @flags: the client's DMA_PREP_* and DMA_CTRL_* flags
 *
 * Return: the descriptor, or NULL without memory.
 */
struct vlink_dma_desc *vlink_dma_alloc_desc(struct vlink_dma_chan *ch,
					    unsigned int nr_segs,
					    unsigned long flags)
{
	struct vlink_dma_desc *d;

	vlink_dma_free_acked(ch);
	d = kzalloc(struct_size(d, seg, nr_segs), GFP_NOWAIT);
	if (!d)
		return NULL;
	dma_async_tx_descriptor_init(&d->tx, &ch->chan);
	d->tx.tx_submit = vlink_dma_submit;
	d->tx.flags = flags;
	d->nr_segs = nr_segs;
	return d;
}

static struct dma_async_tx_descriptor *
vlink_dma_prep_memcpy(struct dma_chan *chan, dma_addr_t dst, dma_addr_t src,
		      size_t len, unsigned long flags)
{
	struct vlink_dma_desc *d;

	if (!len)
		return NULL;
	d = vlink_dma_alloc_desc(to_vlink_chan(chan), 0, flags);
	if (!d)
		return NULL;
	d->dst = dst;
	d->src = src;
	d->len = len;
	return &d->tx;
}

static void vlink_dma_issue_pending(struct dma_chan *chan)
{
	struct vlink_dma_chan *ch = to_vlink_chan(chan);
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	list_splice_tail_init(&ch->submitted, &ch->issued);
	spin_unlock_irqrestore(&ch->lock, flags);
	queue_work(ch->dma->wq, &ch->work);
}

/**
 * vlink_dma_tx_status() - how far a transfer is, from what has completed
 * @chan: its channel
 * @cookie: its cookie
 * @state: where to say which cookies are used and completed, or NULL
 *
 * Return: DMA_COMPLETE, DMA_IN_PROGRESS, or DMA_ERROR for the channel's
 * last failed transfer.
 */
enum dma_status vlink_dma_tx_status(struct dma_chan *chan, dma_cookie_t cookie,
				    struct dma_tx_state *state)
{
	struct vlink_dma_chan *ch = to_vlink_chan(chan);
	dma_cookie_t used, done, failed;
	enum dma_status status;
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	used = chan->cookie;
	done = ch->completed;
	failed = ch->failed;
	spin_unlock_irqrestore(&ch->lock, flags);
	dma_set_tx_state(state, done, used, 0);
	status = dma_async_is_complete(cookie, done, used);
	/*
	 * Only the last failure is remembered: a client asks about its
	 * transfer when its callback has run, before it submits another.
	 */
	if (status == DMA_COMPLETE && cookie == failed)
		return DMA_ERROR;
	return status;
}

static int vlink_dma_terminate_all(struct dma_chan *chan)
{
	struct vlink_dma_chan *ch = to_vlink_chan(chan);
	unsigned long flags;
	LIST_HEAD(dropped);

	spin_lock_irqsave(&ch->lock, flags);
	list_splice_tail_init(&ch->submitted, &dropped);
	list_splice_tail_init(&ch->issued, &dropped);
	spin_unlock_irqrestore(&ch->lock, flags);
	vlink_dma_free_list(&dropped);
	return 0;
}

static void vlink_dma_synchronize(struct dma_chan *chan)
{
	flush_work(&to_vlink_chan(chan)->work);
}

static int vlink_dma_alloc_chan(struct dma_chan *chan)
{
	struct vlink_dma_chan *ch = to_vlink_chan(chan);

	ch->completed = DMA_MIN_COOKIE;
	ch->failed = 0;
	chan->cookie = DMA_MIN_COOKIE;
	return 0;
}

static void vlink_dma_free_chan(struct dma_chan *chan)
{
	struct vlink_dma_chan *ch = to_vlink_chan(chan);
	unsigned long flags;
	LIST_HEAD(retired);

	dmaengine_terminate_sync(chan);
	spin_lock_irqsave(&ch->lock, flags);
	list_splice_tail_init(&ch->retired, &retired);
	spin_unlock_irqrestore(&ch->lock, flags);
	vlink_dma_free_list(&retired);
}

/**
 * vlink_dma_irq() - the server rang our DMA doorbell
 * @dma: the engine
 *
 * Hard-irq context: the rings' completions are taken in a tasklet.
 */
void vlink_dma_irq(struct vlink_dma *dma)
{
	if (dma->server)
		tasklet_schedule(&dma->done);
}

/*
 * The doorbell handlers are gone by now (vlink_stop()), and the clients
 * with them: nothing schedules the tasklet or queues a worker again.
 */
static void vlink_dma_release(void *data)
{
	struct vlink_dma *dma = data;

	vlink_dma_rtt_exit(dma);
	dma_async_device_unregister(&dma->dd);
	if (dma->server)
		tasklet_kill(&dma->done);
	else
		destroy_workqueue(dma->wq);
}

/* The in-guest engine: memcpy only, a worker per channel. */
static int vlink_dma_worker_setup(struct vlink_dma *dma, struct device *dev)
{
	struct dma_device *dd = &dma->dd;
	unsigned int i;

	for (i = 0; i < VLINK_DMA_CHANNELS; i++) {
		INIT_WORK(&dma->chan[i].work, vlink_dma_work);
		dma->chan[i].bounce = devm_kmalloc(dev, PAGE_SIZE, GFP_KERNEL);
		if (!dma->chan[i].bounce)
			return -ENOMEM;
	}
	/* Unbound: the channels of different functions run in parallel. */
	dma->wq = alloc_workqueue("vlink-dma", WQ_UNBOUND, 0);
	if (!dma->wq)
		return -ENOMEM;
	dd->src_addr_widths = BIT(DMA_SLAVE_BUSWIDTH_4_BYTES);
	dd->dst_addr_widths = BIT(DMA_SLAVE_BUSWIDTH_4_BYTES);
	dd->directions = BIT(DMA_MEM_TO_MEM);
	dd->device_prep_dma_memcpy = vlink_dma_prep_memcpy;
	dd->device_issue_pending = vlink_dma_issue_pending;
	dd->device_terminate_all = vlink_dma_terminate_all;
	dd->device_synchronize = vlink_dma_synchronize;
	return 0;
}

/**
 * vlink_dma_init() - register the endpoint controller's DMA channels
 * @dma: the engine to set up
 * @vl: the link, whose device's bus addresses the engine takes
 * @ob: the outbound window it reaches the host through
 *
 * Uses the link server's engine when the server answers on the rings,
 * else copies with workers on this CPU.
 *
 * Return: 0 or a negative errno.
 */
int vlink_dma_init(struct vlink_dma *dma, struct vlink *vl,
		   struct vlink_ob *ob)
{
	struct device *dev = &vl->pdev->dev;
	struct dma_device *dd = &dma->dd;
	struct vlink_dma_chan *ch;
	unsigned int i;
	int ret;

	dma->vl = vl;
	dma->ob = ob;
	INIT_LIST_HEAD(&dd->channels);
	for (i = 0; i < VLINK_DMA_CHANNELS; i++) {
		ch = &dma->chan[i];
		ch->dma = dma;
		ch->index = i;
		spin_lock_init(&ch->lock);
		INIT_LIST_HEAD(&ch->submitted);
		INIT_LIST_HEAD(&ch->issued);
		INIT_LIST_HEAD(&ch->posted);
		INIT_LIST_HEAD(&ch->retired);
		ch->chan.device = dd;
		list_add_tail(&ch->chan.device_node, &dd->channels);
	}

	ret = vlink_dma_ring_start(dma, dev);
	if (ret < 0)
		return ret;
	dma->server = ret;
	/* Before the backend's setup, which may wrap it. */
	dd->device_tx_status = vlink_dma_tx_status;
	if (dma->server) {
		vlink_dma_ring_setup(dma);
	} else {
		ret = vlink_dma_worker_setup(dma, dev);
		if (ret)
			return ret;
	}

	dma_cap_set(DMA_PRIVATE, dd->cap_mask);
	dma_cap_set(DMA_MEMCPY, dd->cap_mask);
	dd->dev = dev;
	dd->residue_granularity = DMA_RESIDUE_GRANULARITY_DESCRIPTOR;
	dd->device_alloc_chan_resources = vlink_dma_alloc_chan;
	dd->device_free_chan_resources = vlink_dma_free_chan;

	ret = dma_async_device_register(dd);
	if (ret) {
		if (dma->wq)
			destroy_workqueue(dma->wq);
		return ret;
	}
	dev_info(dev, "DMA engine: %u channels, %s\n", VLINK_DMA_CHANNELS,
		 dma->server ? "run by the link server (memcpy, slave)" :
		 "run by workers on this CPU (memcpy): the link server has no engine");
	vlink_dma_rtt_init(dma);
	return devm_add_action_or_reset(dev, vlink_dma_release, dma);
}
