/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink DMA engine: the endpoint controller's dmaengine provider.
 */
#ifndef _VLINK_DMA_H
#define _VLINK_DMA_H

#include <linux/dmaengine.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <uapi/linux/vlink.h>

#include "vlink.h"

struct vlink_ob;
struct vlink_dma;

/* One channel per ring of the server's engine; two per function. */
#define VLINK_DMA_CHANNELS	VLINK_DMA_RINGS

/**
 * struct vlink_dma_seg - one ring slot's worth of a descriptor
 * @src: byte offset in RAM @src_ram
 * @dst: byte offset in RAM @dst_ram
 * @len: bytes
 * @src_ram: enum vlink_dma_ram
 * @dst_ram: enum vlink_dma_ram
 */
struct vlink_dma_seg {
	u64 src;
	u64 dst;
	u32 len;
	u8 src_ram;
	u8 dst_ram;
};

/**
 * struct vlink_dma_desc - one transfer
 * @tx: the dmaengine descriptor
 * @node: in one of the channel's lists
 * @dst: destination bus address (worker)
 * @src: source bus address (worker)
 * @len: bytes (worker)
 * @nr_segs: ring slots it takes (server engine)
 * @posted: slots posted so far
 * @done: slots the engine has passed
 * @status: the first status other than VLINK_DMA_DONE, or VLINK_DMA_DONE
 * @terminated: dropped by terminate_all while posted: no callback
 * @seg: the slots' contents
 */
struct vlink_dma_desc {
	struct dma_async_tx_descriptor tx;
	struct list_head node;
	dma_addr_t dst;
	dma_addr_t src;
	size_t len;
	unsigned int nr_segs;
	unsigned int posted;
	unsigned int done;
	u32 status;
	bool terminated;
	struct vlink_dma_seg seg[];
};

/**
 * struct vlink_dma_chan - one channel
 * @chan: the dmaengine channel
 * @dma: the engine it belongs to
 * @index: its number, and its ring's
 * @lock: protects the lists, the cookies and the ring indices
 * @submitted: descriptors submitted, not yet issued
 * @issued: descriptors issued, not yet wholly posted (or, for the worker,
 *          not yet run)
 * @posted: descriptors wholly posted, waiting for the engine
 * @retired: descriptors done that the client has not acked yet
 * @completed: cookie of the last descriptor done, well or not
 * @failed: cookie of the last descriptor that failed
 * @work: the worker (in-guest engine)
 * @bounce: a page for window-to-window copies (in-guest engine)
 * @ring: the ring's head in the DMA region (server engine)
 * @slots: the ring's slots
 * @inflight: the descriptor each posted slot belongs to
 * @gen: the ring generation we started
 * @head: descriptors posted since @gen
 * @tail: slots the engine has passed, as far as we have taken them in
 * @abort: the last abort request we made
 * @cfg: the slave configuration: the host addresses
 */
struct vlink_dma_chan {
	struct dma_chan chan;
	struct vlink_dma *dma;
	unsigned int index;
	spinlock_t lock;		/* lists, cookies, ring indices */
	struct list_head submitted;
	struct list_head issued;
	struct list_head posted;
	struct list_head retired;
	dma_cookie_t completed;
	dma_cookie_t failed;
	struct work_struct work;
	void *bounce;
	struct vlink_dma_ring *ring;
	struct vlink_dma_xfer *slots;
	struct vlink_dma_desc *inflight[VLINK_DMA_SLOTS];
	u32 gen;
	u32 head;
	u32 tail;
	u32 abort;
	struct dma_slave_config cfg;
};

/**
 * struct vlink_dma - the engine
 * @dd: the dmaengine device
 * @vl: the link
 * @ob: the outbound window, for host addresses
 * @wq: the queue the channels' workers run on (in-guest engine)
 * @done: takes the completions of every ring (server engine)
 * @server: the link server runs the transfers (else a worker per channel)
 * @region: the rings, in our reserved RAM (server engine)
 * @ram_base: where our RAM starts on our bus
 * @rtt_file: debugfs "dma_rtt", back-to-back transfers timed
 * @rtt_lock: one such measurement at a time
 * @rtt_last: the last one
 * @rtt_len: the size of its transfers, 0 before the first
 * @polled: completions taken by a polling client's tx_status before their
 *	    interrupt (server engine): debugfs "dma_polled"
 * @chan: the channels
 */
struct vlink_dma {
	struct dma_device dd;
	struct vlink *vl;
	struct vlink_ob *ob;
	struct workqueue_struct *wq;
	struct tasklet_struct done;
	bool server;
	void *region;
	u64 ram_base;
	struct dentry *rtt_file;
	struct mutex rtt_lock;		/* @rtt_last, @rtt_len */
	struct vlink_rtt rtt_last;
	u32 rtt_len;
	atomic_t polled;
	struct vlink_dma_chan chan[VLINK_DMA_CHANNELS];
};

int vlink_dma_init(struct vlink_dma *dma, struct vlink *vl,
		   struct vlink_ob *ob);
void vlink_dma_irq(struct vlink_dma *dma);

/* Back-to-back timing in debugfs (vlink-dma-rtt.c) */
void vlink_dma_rtt_init(struct vlink_dma *dma);
void vlink_dma_rtt_exit(struct vlink_dma *dma);

/* Shared by the two engines (vlink-dma.c) */
struct vlink_dma_chan *to_vlink_chan(struct dma_chan *chan);
bool vlink_dma_in_ram(dma_addr_t addr, size_t len, bool lowmem);
struct vlink_dma_desc *vlink_dma_alloc_desc(struct vlink_dma_chan *ch,
					    unsigned int nr_segs,
					    unsigned long flags);
void vlink_dma_finish(struct vlink_dma_chan *ch, struct vlink_dma_desc *d,
		      bool ok);
void vlink_dma_free_list(struct list_head *list);
enum dma_status vlink_dma_tx_status(struct dma_chan *chan, dma_cookie_t cookie,
				    struct dma_tx_state *state);

/* The server's engine (vlink-dma-ring.c) */
int vlink_dma_ring_start(struct vlink_dma *dma, struct device *dev);
void vlink_dma_ring_setup(struct vlink_dma *dma);

#endif /* _VLINK_DMA_H */
