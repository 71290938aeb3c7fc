/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink DMA engine: the endpoint controller's memcpy engine.
 */
#ifndef _VLINK_DMA_H
#define _VLINK_DMA_H

#include <linux/dmaengine.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

struct vlink_ob;
struct vlink_dma;

/* One channel per function, so that no function waits for another's. */
#define VLINK_DMA_CHANNELS	8

/**
 * struct vlink_dma_chan - one memcpy channel
 * @chan: the dmaengine channel
 * @dma: the engine it belongs to
 * @lock: protects the lists, @completed and @failed
 * @submitted: descriptors submitted, not yet issued
 * @issued: descriptors issued, waiting for the worker
 * @completed: cookie of the last descriptor done, well or not
 * @failed: cookie of the last descriptor the engine could not carry out
 * @work: the worker: the channel's "hardware"
 * @bounce: a page for window-to-window copies
 */
struct vlink_dma_chan {
	struct dma_chan chan;
	struct vlink_dma *dma;
	spinlock_t lock;		/* lists, @completed, @failed */
	struct list_head submitted;
	struct list_head issued;
	dma_cookie_t completed;
	dma_cookie_t failed;
	struct work_struct work;
	void *bounce;
};

/**
 * struct vlink_dma - the engine
 * @dd: the dmaengine device
 * @ob: the outbound window, for host addresses
 * @wq: the queue the channels' workers run on
 * @chan: the channels
 */
struct vlink_dma {
	struct dma_device dd;
	struct vlink_ob *ob;
	struct workqueue_struct *wq;
	struct vlink_dma_chan chan[VLINK_DMA_CHANNELS];
};

int vlink_dma_init(struct vlink_dma *dma, struct device *dev,
		   struct vlink_ob *ob);

#endif /* _VLINK_DMA_H */
