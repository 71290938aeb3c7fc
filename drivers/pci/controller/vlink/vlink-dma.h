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

/**
 * struct vlink_dma - the engine and its single channel
 * @dd: the dmaengine device
 * @chan: its channel
 * @ob: the outbound window, for host addresses
 * @lock: protects the lists and @completed
 * @submitted: descriptors submitted, not yet issued
 * @issued: descriptors issued, waiting for the worker
 * @completed: cookie of the last completed descriptor
 * @wq: ordered queue the worker runs on
 * @work: the worker: the engine's "hardware"
 * @bounce: a page for window-to-window copies
 */
struct vlink_dma {
	struct dma_device dd;
	struct dma_chan chan;
	struct vlink_ob *ob;
	spinlock_t lock;		/* lists, @completed */
	struct list_head submitted;
	struct list_head issued;
	dma_cookie_t completed;
	struct workqueue_struct *wq;
	struct work_struct work;
	void *bounce;
};

int vlink_dma_init(struct vlink_dma *dma, struct device *dev,
		   struct vlink_ob *ob);

#endif /* _VLINK_DMA_H */
