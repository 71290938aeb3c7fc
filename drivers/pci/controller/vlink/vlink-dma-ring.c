// SPDX-License-Identifier: GPL-2.0
/*
 * vlink DMA engine, the server's side: channels that post their transfers
 * into the link server's rings.
 *
 * The server maps both guests' RAM files and runs each ring in a thread of
 * its own, like an eDMA channel beside the CPU.  A ring lives in a region
 * of our RAM that the device tree reserves at an offset the server knows
 * (VLINK_DMA_REGION(k) for our k-th link): the root complex cannot reach
 * it, so only we and the server write there.  A transfer is described by
 * (RAM, offset) pairs, so every bus address is turned into one at prep
 * time: our RAM
 * directly, a part of the outbound window through its current mapping, a
 * slave channel's host address as an offset in the host's RAM.
 *
 * Channel n uses ring n.  We fill slots and move the head; the server
 * moves the tail and rings VLINK_VEC_DMA; the completion work takes the
 * slots the tail has passed.  Starting a ring with a new generation makes
 * the server start over, which is how a rebooted endpoint, or one that
 * gave up on a stuck ring, leaves the old slots behind.
 */

#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/random.h>
#include <linux/scatterlist.h>

#include "vlink.h"
#include "vlink-dma.h"
#include "vlink-outbound.h"

/* How long the server may take to answer a ring start, or to stop. */
#define VLINK_DMA_START_MS	1000
#define VLINK_DMA_STOP_MS	2000

static_assert(sizeof(struct vlink_dma_ring) == 128);
static_assert(sizeof(struct vlink_dma_xfer) == 32);
static_assert(offsetof(struct vlink_dma_ring, ack_gen) == 64);
static_assert(offsetof(struct vlink_dma_xfer, len) == 16);
static_assert(offsetof(struct vlink_dma_xfer, status) == 24);
static_assert(VLINK_DMA_SLOTS_OFFSET + VLINK_DMA_SLOTS *
	      sizeof(struct vlink_dma_xfer) <= VLINK_DMA_RING_STRIDE);
static_assert(VLINK_DMA_RINGS * VLINK_DMA_RING_STRIDE <=
	      VLINK_DMA_REGION_SIZE);

static const char *const vlink_dma_status_names[] = {
	[VLINK_DMA_DONE] = "done",
	[VLINK_DMA_BAD_RANGE] = "range outside the RAM it names",
	[VLINK_DMA_BAD_DESC] = "malformed descriptor",
	[VLINK_DMA_NO_PEER] = "that guest left the link",
	[VLINK_DMA_ABORTED] = "aborted",
};

static const char *vlink_dma_status_name(u32 status)
{
	if (status < ARRAY_SIZE(vlink_dma_status_names))
		return vlink_dma_status_names[status];
	return "unknown status";
}

static struct device *vlink_dma_dev(struct vlink_dma_chan *ch)
{
	return ch->dma->dd.dev;
}

/* A host (PCI) address range as an offset in the host's RAM. */
static int vlink_dma_host(struct vlink_dma *dma, u64 pci, size_t len,
			  struct vlink_dma_seg *s, bool src)
{
	struct vlink *vl = dma->vl;
	u64 off = pci - vl->win.base;

	if (pci < vl->win.base || off >= vl->win.size ||
	    len > vl->win.size - off)
		return -EFAULT;
	if (!READ_ONCE(dma->ob->up))
		return -ENOLINK;
	if (src) {
		s->src = off;
		s->src_ram = VLINK_DMA_RAM_RC;
	} else {
		s->dst = off;
		s->dst_ram = VLINK_DMA_RAM_RC;
	}
	return 0;
}

/* One of our bus addresses as (RAM, offset): @src picks the side. */
static int vlink_dma_locate(struct vlink_dma *dma, dma_addr_t addr,
			    size_t len, struct vlink_dma_seg *s, bool src)
{
	struct vlink_ob *ob = dma->ob;
	u64 pci;
	int ret;

	if (addr >= ob->phys && addr - ob->phys < ob->size) {
		ret = vlink_ob_resolve(ob, addr, len, &pci);
		return ret ?: vlink_dma_host(dma, pci, len, s, src);
	}
	if (!vlink_dma_in_ram(addr, len, false) || addr < dma->ram_base)
		return -EFAULT;
	if (src) {
		s->src = addr - dma->ram_base;
		s->src_ram = VLINK_DMA_RAM_EP;
	} else {
		s->dst = addr - dma->ram_base;
		s->dst_ram = VLINK_DMA_RAM_EP;
	}
	return 0;
}

static struct dma_async_tx_descriptor *
vlink_dma_ring_prep_memcpy(struct dma_chan *chan, dma_addr_t dst,
			   dma_addr_t src, size_t len, unsigned long flags)
{
	struct vlink_dma_chan *ch = to_vlink_chan(chan);
	unsigned int i, nr = DIV_ROUND_UP(len, VLINK_DMA_MAX_LEN);
	struct vlink_dma_desc *d;
	size_t off, n;
	int ret = 0;

	if (!len)
		return NULL;
	d = vlink_dma_alloc_desc(ch, nr, flags);
	if (!d)
		return NULL;
	d->len = len;
	for (i = 0, off = 0; i < nr && !ret; i++, off += n) {
		n = min_t(size_t, len - off, VLINK_DMA_MAX_LEN);
		d->seg[i].len = n;
		ret = vlink_dma_locate(ch->dma, src + off, n, &d->seg[i], true) ?:
		      vlink_dma_locate(ch->dma, dst + off, n, &d->seg[i], false);
	}
	if (ret) {
		dev_err_ratelimited(vlink_dma_dev(ch), "DMA channel %u: memcpy %pad -> %pad (%zu bytes): %s\n",
				    ch->index, &src, &dst, len,
				    ret == -ENOLINK ? "the link is down" :
				    "address not reachable");
		kfree(d);
		return NULL;
	}
	return &d->tx;
}

static int vlink_dma_ring_config(struct dma_chan *chan,
				 struct dma_slave_config *cfg)
{
	struct vlink_dma_chan *ch = to_vlink_chan(chan);
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	ch->cfg = *cfg;
	spin_unlock_irqrestore(&ch->lock, flags);
	return 0;
}

/*
 * DEV_TO_MEM reads the host's RAM from the configured source address on,
 * MEM_TO_DEV writes it from the destination address on, one slot per
 * scatterlist entry.
 */
static struct dma_async_tx_descriptor *
vlink_dma_ring_prep_slave_sg(struct dma_chan *chan, struct scatterlist *sgl,
			     unsigned int sg_len,
			     enum dma_transfer_direction dir,
			     unsigned long flags, void *context)
{
	struct vlink_dma_chan *ch = to_vlink_chan(chan);
	bool read = dir == DMA_DEV_TO_MEM;
	struct vlink_dma_desc *d;
	struct scatterlist *sg;
	unsigned long irqflags;
	u64 host, off = 0;
	unsigned int i;
	int ret = 0;

	if (!sg_len || (dir != DMA_DEV_TO_MEM && dir != DMA_MEM_TO_DEV))
		return NULL;
	spin_lock_irqsave(&ch->lock, irqflags);
	host = read ? ch->cfg.src_addr : ch->cfg.dst_addr;
	spin_unlock_irqrestore(&ch->lock, irqflags);

	d = vlink_dma_alloc_desc(ch, sg_len, flags);
	if (!d)
		return NULL;
	for_each_sg(sgl, sg, sg_len, i) {
		struct vlink_dma_seg *s = &d->seg[i];
		size_t n = sg_dma_len(sg);

		s->len = n;
		ret = n > VLINK_DMA_MAX_LEN ? -E2BIG :
		      vlink_dma_locate(ch->dma, sg_dma_address(sg), n, s,
				       !read) ?:
		      vlink_dma_host(ch->dma, host + off, n, s, read);
		if (ret)
			break;
		off += n;
	}
	if (ret) {
		dev_err_ratelimited(vlink_dma_dev(ch), "DMA channel %u: %s host %#llx: %s\n",
				    ch->index, read ? "read from" : "write to",
				    host + off,
				    ret == -ENOLINK ? "the link is down" :
				    ret == -E2BIG ? "segment too long" :
				    "address not reachable");
		kfree(d);
		return NULL;
	}
	d->len = off;
	return &d->tx;
}

static void vlink_dma_ring_doorbell(struct vlink_dma_chan *ch)
{
	vlink_ring_id(ch->dma->vl, VLINK_DMA_PEER_ID(ch->index),
		      VLINK_DMA_VECTOR(ch->index));
}

/* Fill free slots from the issued descriptors, in order.  Lock held. */
static void vlink_dma_ring_post(struct vlink_dma_chan *ch)
{
	struct vlink_dma_desc *d, *tmp;
	u32 head = ch->head;

	list_for_each_entry_safe(d, tmp, &ch->issued, node) {
		while (d->posted < d->nr_segs &&
		       ch->head - ch->tail < VLINK_DMA_SLOTS) {
			unsigned int slot = ch->head % VLINK_DMA_SLOTS;
			struct vlink_dma_xfer *x = &ch->slots[slot];
			struct vlink_dma_seg *s = &d->seg[d->posted++];

			vlink_wr64(&x->src, s->src);
			vlink_wr64(&x->dst, s->dst);
			vlink_wr32(&x->len, s->len);
			WRITE_ONCE(x->src_ram, s->src_ram);
			WRITE_ONCE(x->dst_ram, s->dst_ram);
			vlink_wr32(&x->status, VLINK_DMA_DONE);
			ch->inflight[slot] = d;
			ch->head++;
		}
		if (d->posted < d->nr_segs)
			break;
		list_move_tail(&d->node, &ch->posted);
	}
	if (ch->head == head)
		return;
	/* The slots before the head, the head before the doorbell. */
	wmb();
	vlink_wr32(&ch->ring->head, ch->head);
	vlink_dma_ring_doorbell(ch);
}

/* A descriptor whose posted slots are all done, and that is whole. */
static bool vlink_dma_desc_over(struct vlink_dma_desc *d)
{
	return d->done == d->posted &&
	       (d->posted == d->nr_segs || d->terminated);
}

/*
 * Take the slots the server's tail has passed; descriptors that are over
 * go to @over.  The tail is the server's word: one that claims slots we
 * never posted is refused.  Lock held.
 */
static void vlink_dma_ring_reap(struct vlink_dma_chan *ch,
				struct list_head *over)
{
	struct vlink_dma_desc *d;
	unsigned int slot;
	u32 tail, status;

	if (vlink_rd32(&ch->ring->ack_gen) != ch->gen)
		return;
	tail = vlink_rd32(&ch->ring->tail);
	/* The tail before the statuses it covers. */
	rmb();
	if (tail - ch->tail > ch->head - ch->tail) {
		dev_err_ratelimited(vlink_dma_dev(ch), "DMA channel %u: the engine's tail %u is past our head %u: ignored\n",
				    ch->index, tail, ch->head);
		return;
	}
	while (ch->tail != tail) {
		slot = ch->tail++ % VLINK_DMA_SLOTS;
		d = ch->inflight[slot];
		ch->inflight[slot] = NULL;
		status = vlink_rd32(&ch->slots[slot].status);
		if (status != VLINK_DMA_DONE && d->status == VLINK_DMA_DONE)
			d->status = status;
		d->done++;
		if (vlink_dma_desc_over(d))
			list_move_tail(&d->node, over);
	}
}

static void vlink_dma_ring_finish(struct vlink_dma_chan *ch,
				  struct list_head *over)
{
	struct vlink_dma_desc *d, *tmp;

	list_for_each_entry_safe(d, tmp, over, node) {
		list_del(&d->node);
		if (d->terminated) {
			kfree(d);
			continue;
		}
		if (d->status != VLINK_DMA_DONE)
			dev_err_ratelimited(vlink_dma_dev(ch), "DMA channel %u: transfer of %zu bytes failed: %s\n",
					    ch->index, d->len,
					    vlink_dma_status_name(d->status));
		vlink_dma_finish(ch, d, d->status == VLINK_DMA_DONE);
	}
}

/*
 * Whether a channel has anything for the tasklet: slots in flight, or
 * issued descriptors that wait for free slots.  A look without the lock:
 * what is issued after it posts itself (issue_pending).
 */
static bool vlink_dma_ring_busy(struct vlink_dma_chan *ch)
{
	return READ_ONCE(ch->head) != READ_ONCE(ch->tail) ||
	       !list_empty_careful(&ch->issued);
}

/*
 * Completions run in a tasklet, as most engines' do: on the way out of
 * the doorbell's interrupt, not after a worker's wakeup.
 */
static void vlink_dma_ring_done(struct tasklet_struct *t)
{
	struct vlink_dma *dma = from_tasklet(dma, t, done);
	struct vlink_dma_chan *ch;
	unsigned long flags;
	unsigned int i;
	LIST_HEAD(over);

	for (i = 0; i < VLINK_DMA_CHANNELS; i++) {
		ch = &dma->chan[i];
		if (!vlink_dma_ring_busy(ch))
			continue;
		spin_lock_irqsave(&ch->lock, flags);
		vlink_dma_ring_reap(ch, &over);
		vlink_dma_ring_post(ch);
		spin_unlock_irqrestore(&ch->lock, flags);
		vlink_dma_ring_finish(ch, &over);
	}
}

/*
 * A client polling for its transfer (dma_sync_wait(), or a spin before it
 * sleeps) need not wait for the doorbell's interrupt, which under
 * emulation wakes two host threads on its way: once the server's tail has
 * moved into what we posted, the completion tasklet runs here, as on the
 * way out of that interrupt, and tasklets never run two at once.  The
 * unlocked look is only a hint: the tasklet reaps under the lock.
 */
static enum dma_status vlink_dma_ring_tx_status(struct dma_chan *chan,
						dma_cookie_t cookie,
						struct dma_tx_state *state)
{
	struct vlink_dma_chan *ch = to_vlink_chan(chan);
	enum dma_status status = vlink_dma_tx_status(chan, cookie, state);
	u32 reaped = READ_ONCE(ch->tail);
	u32 moved = vlink_rd32(&ch->ring->tail) - reaped;

	if (status != DMA_IN_PROGRESS || !moved ||
	    moved > READ_ONCE(ch->head) - reaped)
		return status;
	atomic_inc(&ch->dma->polled);
	if (in_task() && !irqs_disabled()) {
		local_bh_disable();
		tasklet_schedule(&ch->dma->done);
		local_bh_enable();
	} else {
		tasklet_schedule(&ch->dma->done);
	}
	return vlink_dma_tx_status(chan, cookie, state);
}

static void vlink_dma_ring_issue_pending(struct dma_chan *chan)
{
	struct vlink_dma_chan *ch = to_vlink_chan(chan);
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	list_splice_tail_init(&ch->submitted, &ch->issued);
	vlink_dma_ring_post(ch);
	spin_unlock_irqrestore(&ch->lock, flags);
}

/*
 * What is not posted yet is dropped; what is posted cannot be taken back
 * from the server, which is told to abort it and still passes its slots:
 * those descriptors complete without a callback.
 */
static int vlink_dma_ring_terminate_all(struct dma_chan *chan)
{
	struct vlink_dma_chan *ch = to_vlink_chan(chan);
	struct vlink_dma_desc *d, *tmp;
	unsigned long flags;
	LIST_HEAD(dropped);

	spin_lock_irqsave(&ch->lock, flags);
	list_splice_tail_init(&ch->submitted, &dropped);
	list_for_each_entry_safe(d, tmp, &ch->issued, node) {
		d->terminated = true;
		list_move_tail(&d->node, vlink_dma_desc_over(d) ? &dropped :
					 &ch->posted);
	}
	list_for_each_entry(d, &ch->posted, node)
		d->terminated = true;
	if (ch->head != ch->tail) {
		vlink_wr32(&ch->ring->abort, ++ch->abort);
		vlink_dma_ring_doorbell(ch);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	vlink_dma_free_list(&dropped);
	return 0;
}

/* A new generation: the server forgets the slots of the old one. */
static void vlink_dma_ring_restart(struct vlink_dma_chan *ch)
{
	u32 gen;

	do {
		gen = get_random_u32();
	} while (!gen || gen == ch->gen);
	ch->gen = gen;
	ch->head = 0;
	ch->tail = 0;
	memset(ch->inflight, 0, sizeof(ch->inflight));
	vlink_wr32(&ch->ring->head, 0);
	vlink_wr32(&ch->ring->abort, ch->abort);
	/* The server reads the new generation's head and abort after it. */
	wmb();
	vlink_wr32(&ch->ring->gen, gen);
	vlink_dma_ring_doorbell(ch);
}

/*
 * Polls rather than waits for the doorbell: a controller going away has
 * freed its doorbell handlers before its functions let their channels go.
 */
static void vlink_dma_ring_synchronize(struct dma_chan *chan)
{
	struct vlink_dma_chan *ch = to_vlink_chan(chan);
	unsigned long end = jiffies + msecs_to_jiffies(VLINK_DMA_STOP_MS);
	struct vlink_dma_desc *d;
	bool idle;
	LIST_HEAD(over);

	for (;;) {
		spin_lock_irq(&ch->lock);
		vlink_dma_ring_reap(ch, &over);
		idle = ch->head == ch->tail;
		if (!idle && time_after(jiffies, end)) {
			/*
			 * The server is gone or stuck.  A new generation
			 * makes it drop the old slots should it come back.
			 */
			list_splice_tail_init(&ch->posted, &over);
			list_splice_tail_init(&ch->issued, &over);
			list_for_each_entry(d, &over, node)
				if (d->status == VLINK_DMA_DONE)
					d->status = VLINK_DMA_NO_PEER;
			vlink_dma_ring_restart(ch);
			idle = true;
			dev_err(vlink_dma_dev(ch), "DMA channel %u: the link server did not stop the ring within %u ms: restarted it\n",
				ch->index, VLINK_DMA_STOP_MS);
		}
		spin_unlock_irq(&ch->lock);
		vlink_dma_ring_finish(ch, &over);
		if (idle)
			break;
		usleep_range(100, 200);
	}
	/* It may still be calling back what it reaped before us. */
	tasklet_unlock_wait(&ch->dma->done);
}

static bool vlink_dma_rings_acked(struct vlink_dma *dma)
{
	unsigned int i;

	for (i = 0; i < VLINK_DMA_CHANNELS; i++)
		if (vlink_rd32(&dma->chan[i].ring->ack_gen) != dma->chan[i].gen)
			return false;
	return true;
}

/*
 * The device tree reserves the region in our RAM, in one of the places a
 * server may be told.  Returns 0 when it is not described as a server
 * needs.
 */
static int vlink_dma_map_region(struct vlink_dma *dma, struct device *dev)
{
	struct device_node *np;
	struct resource res;
	unsigned int k = VLINK_DMA_REGIONS;
	int ret;

	np = of_parse_phandle(dev->of_node, "vlink,dma-region", 0);
	if (!np)
		return 0;
	ret = of_address_to_resource(np, 0, &res);
	of_node_put(np);
	if (!ret && resource_size(&res) >= VLINK_DMA_REGION_SIZE &&
	    !of_property_read_u64(dev->of_node, "vlink,ram-base",
				  &dma->ram_base))
		for (k = 0; k < VLINK_DMA_REGIONS; k++)
			if (res.start - dma->ram_base == VLINK_DMA_REGION(k))
				break;
	if (k == VLINK_DMA_REGIONS) {
		dev_err(dev, "vlink,dma-region must be %#x bytes at %#x + k * %#x into our RAM (vlink,ram-base), k < %u: no server DMA\n",
			VLINK_DMA_REGION_SIZE, VLINK_DMA_REGION_OFFSET,
			VLINK_DMA_REGION_SIZE, VLINK_DMA_REGIONS);
		return 0;
	}
	dev_info(dev, "DMA rings in region %u of our RAM\n", k);
	dma->region = devm_memremap(dev, res.start, VLINK_DMA_REGION_SIZE,
				    MEMREMAP_WB);
	if (IS_ERR(dma->region))
		return PTR_ERR(dma->region);
	return 1;
}

/**
 * vlink_dma_ring_start() - start the rings, if the server runs them
 * @dma: the engine
 * @dev: the controller's device
 *
 * Starts every ring with a new generation and waits for the server to
 * take them up.  The doorbell handlers are not there yet: polls.
 *
 * Return: 1 when the server runs the rings, 0 when it does not (the
 * caller falls back to copying on this CPU), or a negative errno.
 */
int vlink_dma_ring_start(struct vlink_dma *dma, struct device *dev)
{
	unsigned long end = jiffies + msecs_to_jiffies(VLINK_DMA_START_MS);
	struct vlink_dma_chan *ch;
	unsigned int i;
	int ret;

	ret = vlink_dma_map_region(dma, dev);
	if (ret <= 0)
		return ret;
	for (i = 0; i < VLINK_DMA_CHANNELS; i++) {
		ch = &dma->chan[i];
		ch->ring = dma->region + i * VLINK_DMA_RING_STRIDE;
		ch->slots = (void *)ch->ring + VLINK_DMA_SLOTS_OFFSET;
		vlink_dma_ring_restart(ch);
	}
	while (!vlink_dma_rings_acked(dma)) {
		if (time_after(jiffies, end)) {
			dev_info(dev, "the link server did not take up the DMA rings within %u ms\n",
				 VLINK_DMA_START_MS);
			devm_memunmap(dev, dma->region);
			dma->region = NULL;
			return 0;
		}
		usleep_range(1000, 2000);
	}
	return 1;
}

/**
 * vlink_dma_ring_setup() - the dmaengine operations of the server's engine
 * @dma: the engine, whose rings the server took up
 */
void vlink_dma_ring_setup(struct vlink_dma *dma)
{
	struct dma_device *dd = &dma->dd;
	u32 widths = BIT(DMA_SLAVE_BUSWIDTH_1_BYTE) |
		     BIT(DMA_SLAVE_BUSWIDTH_2_BYTES) |
		     BIT(DMA_SLAVE_BUSWIDTH_4_BYTES) |
		     BIT(DMA_SLAVE_BUSWIDTH_8_BYTES);

	tasklet_setup(&dma->done, vlink_dma_ring_done);
	dma_cap_set(DMA_SLAVE, dd->cap_mask);
	dd->src_addr_widths = widths;
	dd->dst_addr_widths = widths;
	dd->directions = BIT(DMA_DEV_TO_MEM) | BIT(DMA_MEM_TO_DEV) |
			 BIT(DMA_MEM_TO_MEM);
	dd->device_prep_dma_memcpy = vlink_dma_ring_prep_memcpy;
	dd->device_prep_slave_sg = vlink_dma_ring_prep_slave_sg;
	dd->device_config = vlink_dma_ring_config;
	dd->device_issue_pending = vlink_dma_ring_issue_pending;
	dd->device_tx_status = vlink_dma_ring_tx_status;
	dd->device_terminate_all = vlink_dma_ring_terminate_all;
	dd->device_synchronize = vlink_dma_ring_synchronize;
}
