// SPDX-License-Identifier: GPL-2.0
/*
 * vlink DMA engine: the endpoint controller's memcpy engine.
 *
 * Real endpoint controllers carry a DMA engine (the DesignWare eDMA, say)
 * that moves data between local memory and the host without the CPU.  Ours
 * is a dmaengine provider with memcpy channels whose "hardware" is a
 * worker each: descriptors are queued at submit, run in order by the
 * channel's work item once issued, and completed with their callbacks, so
 * function drivers use the same asynchronous path they would on silicon.
 * A transfer the engine cannot carry out completes too, with
 * DMA_TRANS_ABORTED for callback_result and DMA_ERROR from tx_status.
 *
 * Addresses are bus addresses of the controller's device: our own RAM
 * (dma_map_*() on the link device, which has no IOMMU), or parts of the
 * outbound window, which are translated through its current mappings.
 */

#include <linux/dmaengine.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "vlink.h"
#include "vlink-dma.h"
#include "vlink-outbound.h"

/**
 * struct vlink_dma_desc - one memcpy
 * @tx: the dmaengine descriptor
 * @node: in the channel's submitted or issued list
 * @dst: destination bus address
 * @src: source bus address
 * @len: bytes
 */
struct vlink_dma_desc {
	struct dma_async_tx_descriptor tx;
	struct list_head node;
	dma_addr_t dst;
	dma_addr_t src;
	size_t len;
};

static struct vlink_dma_chan *to_vlink_chan(struct dma_chan *chan)
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

/* Every page of the range is lowmem RAM: the linear map covers it whole. */
static bool vlink_dma_in_ram(dma_addr_t addr, size_t len)
{
	unsigned long pfn, last;

	if (!len || addr + len - 1 < addr)
		return false;
	last = PHYS_PFN(addr + len - 1);
	for (pfn = PHYS_PFN(addr); pfn <= last; pfn++)
		if (!pfn_valid(pfn) || PageHighMem(pfn_to_page(pfn)))
			return false;
	return true;
}

static void *vlink_dma_cpu_addr(struct vlink_dma *dma, dma_addr_t addr,
				size_t len)
{
	if (vlink_dma_in_window(dma, addr, len))
		return (void __force *)dma->ob->virt + (addr - dma->ob->phys);
	if (vlink_dma_in_ram(addr, len))
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

static void vlink_dma_work(struct work_struct *work)
{
	struct vlink_dma_chan *ch = container_of(work, struct vlink_dma_chan,
						 work);
	struct dmaengine_result res;
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

		res.result = vlink_dma_copy(ch, d) ? DMA_TRANS_ABORTED :
						     DMA_TRANS_NOERROR;
		res.residue = res.result == DMA_TRANS_NOERROR ? 0 : d->len;

		/* Complete before the callback: it may ask for the status. */
		spin_lock_irq(&ch->lock);
		ch->completed = d->tx.cookie;
		if (res.result != DMA_TRANS_NOERROR)
			ch->failed = d->tx.cookie;
		spin_unlock_irq(&ch->lock);
		if (d->tx.callback_result)
			d->tx.callback_result(d->tx.callback_param, &res);
		else if (d->tx.callback)
			d->tx.callback(d->tx.callback_param);
		kfree(d);
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

static struct dma_async_tx_descriptor *
vlink_dma_prep_memcpy(struct dma_chan *chan, dma_addr_t dst, dma_addr_t src,
		      size_t len, unsigned long flags)
{
	struct vlink_dma_desc *d;

	if (!len)
		return NULL;
	d = kzalloc(sizeof(*d), GFP_NOWAIT);
	if (!d)
		return NULL;
	dma_async_tx_descriptor_init(&d->tx, chan);
	d->tx.tx_submit = vlink_dma_submit;
	d->tx.flags = flags;
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

static enum dma_status vlink_dma_tx_status(struct dma_chan *chan,
					   dma_cookie_t cookie,
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
	struct vlink_dma_desc *d, *tmp;
	unsigned long flags;
	LIST_HEAD(dropped);

	spin_lock_irqsave(&ch->lock, flags);
	list_splice_tail_init(&ch->submitted, &dropped);
	list_splice_tail_init(&ch->issued, &dropped);
	spin_unlock_irqrestore(&ch->lock, flags);
	list_for_each_entry_safe(d, tmp, &dropped, node)
		kfree(d);
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
	vlink_dma_terminate_all(chan);
	vlink_dma_synchronize(chan);
}

static void vlink_dma_release(void *data)
{
	struct vlink_dma *dma = data;

	dma_async_device_unregister(&dma->dd);
	destroy_workqueue(dma->wq);
}

/**
 * vlink_dma_init() - register the endpoint controller's memcpy channels
 * @dma: the engine to set up
 * @dev: the controller's device, whose bus addresses the engine takes
 * @ob: the outbound window it reaches the host through
 *
 * Return: 0 or a negative errno.
 */
int vlink_dma_init(struct vlink_dma *dma, struct device *dev,
		   struct vlink_ob *ob)
{
	struct dma_device *dd = &dma->dd;
	struct vlink_dma_chan *ch;
	unsigned int i;
	int ret;

	dma->ob = ob;
	INIT_LIST_HEAD(&dd->channels);
	for (i = 0; i < VLINK_DMA_CHANNELS; i++) {
		ch = &dma->chan[i];
		ch->dma = dma;
		spin_lock_init(&ch->lock);
		INIT_LIST_HEAD(&ch->submitted);
		INIT_LIST_HEAD(&ch->issued);
		INIT_WORK(&ch->work, vlink_dma_work);
		ch->bounce = devm_kmalloc(dev, PAGE_SIZE, GFP_KERNEL);
		if (!ch->bounce)
			return -ENOMEM;
		ch->chan.device = dd;
		list_add_tail(&ch->chan.device_node, &dd->channels);
	}
	/* Unbound: the channels of different functions copy in parallel. */
	dma->wq = alloc_workqueue("vlink-dma", WQ_UNBOUND, 0);
	if (!dma->wq)
		return -ENOMEM;

	dma_cap_set(DMA_MEMCPY, dd->cap_mask);
	dd->dev = dev;
	dd->src_addr_widths = BIT(DMA_SLAVE_BUSWIDTH_4_BYTES);
	dd->dst_addr_widths = BIT(DMA_SLAVE_BUSWIDTH_4_BYTES);
	dd->directions = BIT(DMA_MEM_TO_MEM);
	dd->residue_granularity = DMA_RESIDUE_GRANULARITY_DESCRIPTOR;
	dd->device_alloc_chan_resources = vlink_dma_alloc_chan;
	dd->device_free_chan_resources = vlink_dma_free_chan;
	dd->device_prep_dma_memcpy = vlink_dma_prep_memcpy;
	dd->device_issue_pending = vlink_dma_issue_pending;
	dd->device_tx_status = vlink_dma_tx_status;
	dd->device_terminate_all = vlink_dma_terminate_all;
	dd->device_synchronize = vlink_dma_synchronize;

	ret = dma_async_device_register(dd);
	if (ret) {
		destroy_workqueue(dma->wq);
		return ret;
	}
	return devm_add_action_or_reset(dev, vlink_dma_release, dma);
}
