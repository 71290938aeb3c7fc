// SPDX-License-Identifier: GPL-2.0
/*
 * Endpoint test function: the device side of the host's pci_endpoint_test
 * driver (drivers/misc/pci_endpoint_test.c) and of tools/pci/pcitest.
 *
 * The host drives this function through a small register block at the start
 * of the register BAR.  It writes the parameters, then a command word; the
 * function polls for that word, executes the command (raise an interrupt, or
 * move data between host memory and the endpoint), reports the outcome in the
 * status word and interrupts the host.  The other BARs are plain memory that
 * the host fills with patterns and reads back.
 */

#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/pci-epc.h>
#include <linux/pci-epf.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

/* Register block, as laid out by the host driver; all fields are LE32. */
#define EPF_TEST_REG_COMMAND		0x04
#define EPF_TEST_REG_STATUS		0x08
#define EPF_TEST_REG_SRC_LO		0x0c
#define EPF_TEST_REG_SRC_HI		0x10
#define EPF_TEST_REG_DST_LO		0x14
#define EPF_TEST_REG_DST_HI		0x18
#define EPF_TEST_REG_SIZE		0x1c
#define EPF_TEST_REG_CHECKSUM		0x20
#define EPF_TEST_REG_IRQ_TYPE		0x24
#define EPF_TEST_REG_IRQ_NUMBER		0x28
#define EPF_TEST_REG_FLAGS		0x2c

/* Room kept for the registers; the MSI-X table starts right after it. */
#define EPF_TEST_REG_SPAN		0x100

#define EPF_TEST_CMD_LEGACY_IRQ		BIT(0)
#define EPF_TEST_CMD_MSI_IRQ		BIT(1)
#define EPF_TEST_CMD_MSIX_IRQ		BIT(2)
#define EPF_TEST_CMD_READ		BIT(3)
#define EPF_TEST_CMD_WRITE		BIT(4)
#define EPF_TEST_CMD_COPY		BIT(5)

#define EPF_TEST_ST_READ_OK		BIT(0)
#define EPF_TEST_ST_READ_FAIL		BIT(1)
#define EPF_TEST_ST_WRITE_OK		BIT(2)
#define EPF_TEST_ST_WRITE_FAIL		BIT(3)
#define EPF_TEST_ST_COPY_OK		BIT(4)
#define EPF_TEST_ST_COPY_FAIL		BIT(5)
#define EPF_TEST_ST_IRQ_RAISED		BIT(6)
#define EPF_TEST_ST_SRC_INVALID		BIT(7)
#define EPF_TEST_ST_DST_INVALID		BIT(8)

#define EPF_TEST_FLAG_DMA		BIT(0)

/* Values of the irq_type register. */
#define EPF_TEST_IRQ_LEGACY		0
#define EPF_TEST_IRQ_MSI		1
#define EPF_TEST_IRQ_MSIX		2

/*
 * Polling: while idle, look at the command word once a jiffy.  Hosts issue
 * commands in bursts (pcitest.sh raises 2048 MSI-X vectors one after the
 * other), so after a command keep polling every few tens of microseconds for
 * a short while instead of paying a whole jiffy per command.  A single run of
 * the worker is bounded so that cancelling it never waits on a busy host.
 */
#define EPF_TEST_IDLE_POLL_JIFFIES	1
#define EPF_TEST_HOT_WINDOW_MS		10
#define EPF_TEST_HOT_POLL_US		50
#define EPF_TEST_MAX_RUN_MS		100

#define EPF_TEST_DMA_TIMEOUT_MS		5000

static unsigned int dma_poll_us = 500;
module_param(dma_poll_us, uint, 0644);
MODULE_PARM_DESC(dma_poll_us,
		 "Poll a DMA transfer this long before sleeping until its interrupt (0: sleep at once)");

static unsigned int corrupt_next;
module_param(corrupt_next, uint, 0644);
MODULE_PARM_DESC(corrupt_next,
		 "Flip one byte in each of the next N transfers (test hook)");

static unsigned int stall_next_ms;
module_param(stall_next_ms, uint, 0644);
MODULE_PARM_DESC(stall_next_ms,
		 "Hold the window of the next WRITE that maps one open this long before filling it (test hook)");

/* BAR sizes the host has always seen from this function. */
static const size_t epf_test_bar_size[PCI_STD_NUM_BARS] = {
	SZ_512, SZ_512, SZ_1K, SZ_16K, SZ_128K, SZ_1M,
};

/**
 * struct epf_test - state of one bound test function
 * @epf: the endpoint function
 * @features: what the controller supports, read at bind time
 * @header: configuration header; configfs writes into it through epf->header
 * @reg_bar: BAR that carries the register block and the MSI-X table
 * @mem: memory behind each BAR, NULL when the BAR is unused
 * @live: BARs programmed into the controller
 * @wq: queue of its own for @poll, which may wait seconds on a DMA transfer
 * @poll: polls the command word and runs the commands
 * @dma: memcpy channel of the controller, requested on first use
 * @rx: private channel that reads host memory, if the controller has one
 * @tx: private channel that writes host memory; may be @dma too
 */
struct epf_test {
	struct pci_epf *epf;
	const struct pci_epc_features *features;
	struct pci_epf_header header;
	enum pci_barno reg_bar;
	void *mem[PCI_STD_NUM_BARS];
	unsigned long live;
	struct workqueue_struct *wq;
	struct delayed_work poll;
	struct dma_chan *dma;
	struct dma_chan *rx;
	struct dma_chan *tx;
};

/*
 * A host buffer reached through an outbound window.  The window starts at
 * the host address rounded down to the controller's granule; @offset is
 * where the buffer begins inside it.
 */
struct epf_test_window {
	void __iomem *virt;
	phys_addr_t phys;
	size_t span;
	size_t offset;
};

/* Parameters of a READ, WRITE or COPY command, fetched from the registers. */
struct epf_test_xfer {
	u64 src;
	u64 dst;
	size_t len;
	bool dma;
	u32 status;
	u64 ns;
	u64 map_ns;
};

struct epf_test_op {
	u32 command;
	const char *name;
	u32 ok;
	u32 fail;
	int (*run)(struct epf_test *t, struct epf_test_xfer *x);
};

static u32 epf_test_reg_get(struct epf_test *t, unsigned int off)
{
	__le32 *reg = t->mem[t->reg_bar] + off;

	return le32_to_cpu(READ_ONCE(*reg));
}

static void epf_test_reg_set(struct epf_test *t, unsigned int off, u32 val)
{
	__le32 *reg = t->mem[t->reg_bar] + off;

	WRITE_ONCE(*reg, cpu_to_le32(val));
}

static u64 epf_test_reg_get64(struct epf_test *t, unsigned int lo,
			      unsigned int hi)
{
	return (u64)epf_test_reg_get(t, hi) << 32 | epf_test_reg_get(t, lo);
}

/*
 * Test hook: consume one unit of the corrupt_next budget, if any is left,
 * and say so on the console so that a test can match the two sides up.
 */
static bool epf_test_should_corrupt(struct epf_test *t, size_t at)
{
	unsigned int left = READ_ONCE(corrupt_next);

	do {
		if (!left)
			return false;
	} while (!try_cmpxchg(&corrupt_next, &left, left - 1));

	dev_info(&t->epf->dev, "corrupt_next: flipping byte %zu\n", at);
	return true;
}

/*
 * The smallest unit an outbound mapping can start on.  The controller's
 * address-space pages are its translation granule; features->align is
 * honoured too, so host buffers that are not aligned to either still work.
 */
static size_t epf_test_map_granule(struct epf_test *t)
{
	struct pci_epc *epc = t->epf->epc;
	size_t granule = t->features->align;

	if (epc->mem)
		granule = max(granule, epc->mem->window.page_size);

	return granule ? roundup_pow_of_two(granule) : 1;
}

/*
 * Show @x->len bytes of host memory at @pci_addr through the window.  The
 * time this takes, and the unmap's, add up in @x->map_ns, logged apart
 * from the copy's: they are the controller's per-transfer cost, a few
 * register writes for an address translation unit, page tables for vlink.
 */
static int epf_test_window_open(struct epf_test *t, struct epf_test_xfer *x,
				u64 pci_addr, struct epf_test_window *w)
{
	struct pci_epf *epf = t->epf;
	struct pci_epc *epc = epf->epc;
	u64 base = pci_addr & ~((u64)epf_test_map_granule(t) - 1);
	ktime_t start = ktime_get();
	int ret;

	w->offset = pci_addr - base;
	if (check_add_overflow(w->offset, x->len, &w->span))
		return -EINVAL;
	w->virt = pci_epc_mem_alloc_addr(epc, &w->phys, w->span);
	if (!w->virt)
		return -ENOMEM;

	ret = pci_epc_map_addr(epc, epf->func_no, epf->vfunc_no, w->phys, base,
			       w->span);
	if (ret) {
		pci_epc_mem_free_addr(epc, w->phys, w->virt, w->span);
		return ret;
	}

	x->map_ns += ktime_to_ns(ktime_sub(ktime_get(), start));
	return 0;
}

static void epf_test_window_close(struct epf_test *t, struct epf_test_xfer *x,
				  struct epf_test_window *w)
{
	struct pci_epf *epf = t->epf;
	struct pci_epc *epc = epf->epc;
	ktime_t start = ktime_get();

	pci_epc_unmap_addr(epc, epf->func_no, epf->vfunc_no, w->phys);
	pci_epc_mem_free_addr(epc, w->phys, w->virt, w->span);
	x->map_ns += ktime_to_ns(ktime_sub(ktime_get(), start));
}

static void __iomem *epf_test_window_ptr(struct epf_test_window *w)
{
	return w->virt + w->offset;
}

/*
 * Get ready to reach @x->len bytes of host memory at @pci_addr: through
 * window @w, or, when the private channel @slave takes host addresses
 * itself, with no window at all (its engine checks the address when the
 * transfer is prepared).  Either way a range that wraps is refused.
 */
static int epf_test_reach(struct epf_test *t, struct epf_test_xfer *x,
			  struct dma_chan *slave, u64 pci_addr,
			  struct epf_test_window *w)
{
	u64 end;

	if (!slave)
		return epf_test_window_open(t, x, pci_addr, w);
	if (check_add_overflow(pci_addr, (u64)x->len, &end))
		return -EINVAL;
	return 0;
}

/* Undo epf_test_reach(). */
static void epf_test_leave(struct epf_test *t, struct epf_test_xfer *x,
			   struct dma_chan *slave, struct epf_test_window *w)
{
	if (!slave)
		epf_test_window_close(t, x, w);
}

/* The DMA engine reaches host memory through the window's CPU address. */
static dma_addr_t epf_test_window_bus(struct epf_test_window *w)
{
	return w->phys + w->offset;
}

/* What a function asks of a channel: its controller's, able to go @dir. */
struct epf_test_dma_want {
	struct device *dev;
	enum dma_transfer_direction dir;
};

static bool epf_test_dma_filter(struct dma_chan *chan, void *param)
{
	struct epf_test_dma_want *want = param;
	struct dma_slave_caps caps;

	if (chan->device->dev != want->dev)
		return false;
	if (want->dir == DMA_MEM_TO_MEM)
		return true;
	return !dma_get_slave_caps(chan, &caps) &&
	       (caps.directions & BIT(want->dir));
}

/*
 * Only an engine that belongs to the controller itself is used: it is the
 * one that knows how to reach the host.
 */
static struct dma_chan *epf_test_dma_request(struct epf_test *t,
					     enum dma_transaction_type cap,
					     enum dma_transfer_direction dir)
{
	struct epf_test_dma_want want = {
		.dev = t->epf->epc->dev.parent,
		.dir = dir,
	};
	dma_cap_mask_t mask;

	dma_cap_zero(mask);
	dma_cap_set(cap, mask);
	return dma_request_channel(mask, epf_test_dma_filter, &want);
}

static void epf_test_dma_release(struct epf_test *t)
{
	if (t->dma && t->dma != t->tx)
		dma_release_channel(t->dma);
	if (t->tx)
		dma_release_channel(t->tx);
	if (t->rx)
		dma_release_channel(t->rx);
	t->dma = NULL;
	t->tx = NULL;
	t->rx = NULL;
}

/*
 * Like an eDMA, the controller's engine may offer a private channel per
 * direction that takes the host's own addresses; reads and writes then
 * need no outbound window.  COPY, from host to host, always goes through
 * the windows with a memcpy channel: the write channel when it has that
 * capability.
 */
static bool epf_test_dma_chans(struct epf_test *t)
{
	struct device *dev = &t->epf->dev;

	if (t->dma)
		return true;

	t->rx = epf_test_dma_request(t, DMA_SLAVE, DMA_DEV_TO_MEM);
	if (t->rx)
		t->tx = epf_test_dma_request(t, DMA_SLAVE, DMA_MEM_TO_DEV);
	if (t->tx && dma_has_cap(DMA_MEMCPY, t->tx->device->cap_mask))
		t->dma = t->tx;
	else
		t->dma = epf_test_dma_request(t, DMA_MEMCPY, DMA_MEM_TO_MEM);
	if (!t->dma) {
		epf_test_dma_release(t);
		return false;
	}
	if (!t->tx && t->rx) {
		dma_release_channel(t->rx);
		t->rx = NULL;
	}

	if (t->tx)
		dev_info(dev, "using DMA channels %s (read), %s (write), %s (copy)\n",
			 dma_chan_name(t->rx), dma_chan_name(t->tx),
			 dma_chan_name(t->dma));
	else
		dev_info(dev, "using DMA channel %s through the outbound windows: the controller has no private read and write channels\n",
			 dma_chan_name(t->dma));
	return true;
}

static void epf_test_dma_done(void *arg)
{
	complete(arg);
}

/*
 * An engine beside the CPU ends a short transfer long before its interrupt
 * reaches us when that interrupt is emulated (two host threads to wake on
 * its way; make bench: about 300 us of a lone 1 KiB transfer's 470): ask
 * the engine for a while first, as dma_sync_wait() does, then sleep.
 * cond_resched() lets an engine that runs on this CPU get on with it.
 */
static void epf_test_dma_poll(struct dma_chan *chan, dma_cookie_t cookie,
			      struct completion *done)
{
	ktime_t end = ktime_add_us(ktime_get(), READ_ONCE(dma_poll_us));

	while (!completion_done(done) && ktime_before(ktime_get(), end)) {
		dmaengine_tx_status(chan, cookie, NULL);
		cond_resched();
		cpu_relax();
	}
}

/* Submit a prepared transfer and wait for it. */
static int epf_test_dma_run(struct dma_chan *chan,
			    struct dma_async_tx_descriptor *tx)
{
	DECLARE_COMPLETION_ONSTACK(done);
	dma_cookie_t cookie;

	if (!tx)
		return -EIO;

	tx->callback = epf_test_dma_done;
	tx->callback_param = &done;
	cookie = dmaengine_submit(tx);
	if (dma_submit_error(cookie))
		return -EIO;

	dma_async_issue_pending(chan);
	epf_test_dma_poll(chan, cookie, &done);
	if (!wait_for_completion_timeout(&done,
					 msecs_to_jiffies(EPF_TEST_DMA_TIMEOUT_MS))) {
		/* The callback must not fire on a dead stack frame later. */
		dmaengine_terminate_sync(chan);
		return -ETIMEDOUT;
	}

	if (dmaengine_tx_status(chan, cookie, NULL) != DMA_COMPLETE)
		return -EIO;

	return 0;
}

static int epf_test_dma_copy(struct dma_chan *chan, dma_addr_t dst,
			     dma_addr_t src, size_t len)
{
	return epf_test_dma_run(chan,
				dmaengine_prep_dma_memcpy(chan, dst, src, len,
							  DMA_PREP_INTERRUPT |
							  DMA_CTRL_ACK));
}

/* Move data between a local buffer and host address @host, privately. */
static int epf_test_dma_slave(struct dma_chan *chan, void *buf, size_t len,
			      u64 host, enum dma_transfer_direction dir)
{
	struct dma_slave_config cfg = { .direction = dir };
	struct device *dev = chan->device->dev;
	enum dma_data_direction map = dir == DMA_DEV_TO_MEM ?
				      DMA_FROM_DEVICE : DMA_TO_DEVICE;
	dma_addr_t local;
	int ret;

	if (dir == DMA_DEV_TO_MEM)
		cfg.src_addr = host;
	else
		cfg.dst_addr = host;

	local = dma_map_single(dev, buf, len, map);
	if (dma_mapping_error(dev, local))
		return -ENOMEM;

	ret = dmaengine_slave_config(chan, &cfg);
	if (!ret)
		ret = epf_test_dma_run(chan,
				       dmaengine_prep_slave_single(chan, local,
								   len, dir,
								   DMA_PREP_INTERRUPT |
								   DMA_CTRL_ACK));

	dma_unmap_single(dev, local, len, map);

	return ret;
}

/* Move data between a local buffer and the host, through the DMA engine. */
static int epf_test_dma_local(struct dma_chan *chan, void *buf, size_t len,
			      dma_addr_t remote, enum dma_data_direction dir)
{
	struct device *dev = chan->device->dev;
	dma_addr_t local;
	int ret;

	local = dma_map_single(dev, buf, len, dir);
	if (dma_mapping_error(dev, local))
		return -ENOMEM;

	if (dir == DMA_FROM_DEVICE)
		ret = epf_test_dma_copy(chan, local, remote, len);
	else
		ret = epf_test_dma_copy(chan, remote, local, len);

	dma_unmap_single(dev, local, len, dir);

	return ret;
}

/*
 * The private channel that moves @x's data in direction @dir, if the
 * controller has one: the host's address then goes to the engine as it is,
 * and the transfer needs no outbound window.
 */
static struct dma_chan *epf_test_slave(struct epf_test *t,
				       struct epf_test_xfer *x,
				       enum dma_transfer_direction dir)
{
	if (!x->dma)
		return NULL;
	return dir == DMA_DEV_TO_MEM ? t->rx : t->tx;
}

/* Host memory -> @buf, through @w unless @slave reads the host itself. */
static int epf_test_pull(struct epf_test *t, struct epf_test_xfer *x,
			 struct dma_chan *slave, struct epf_test_window *w,
			 void *buf)
{
	ktime_t start = ktime_get();
	int ret = 0;

	if (slave)
		ret = epf_test_dma_slave(slave, buf, x->len, x->src,
					 DMA_DEV_TO_MEM);
	else if (x->dma)
		ret = epf_test_dma_local(t->dma, buf, x->len,
					 epf_test_window_bus(w),
					 DMA_FROM_DEVICE);
	else
		memcpy_fromio(buf, epf_test_window_ptr(w), x->len);

	x->ns += ktime_to_ns(ktime_sub(ktime_get(), start));
	return ret;
}

/* @buf -> host memory, through @w unless @slave writes the host itself. */
static int epf_test_push(struct epf_test *t, struct epf_test_xfer *x,
			 struct dma_chan *slave, struct epf_test_window *w,
			 void *buf)
{
	ktime_t start = ktime_get();
	int ret = 0;

	if (slave)
		ret = epf_test_dma_slave(slave, buf, x->len, x->dst,
					 DMA_MEM_TO_DEV);
	else if (x->dma)
		ret = epf_test_dma_local(t->dma, buf, x->len,
					 epf_test_window_bus(w), DMA_TO_DEVICE);
	else
		memcpy_toio(epf_test_window_ptr(w), buf, x->len);

	x->ns += ktime_to_ns(ktime_sub(ktime_get(), start));
	return ret;
}

/*
 * Test hook: damage the data between the checksum and its other end: the
 * buffer a READ fetched, or the one a WRITE is about to send.
 */
static void epf_test_corrupt_buf(struct epf_test *t, struct epf_test_xfer *x,
				 u8 *buf)
{
	if (epf_test_should_corrupt(t, x->len / 2))
		buf[x->len / 2] ^= 0xff;
}

/* Test hook: damage what a COPY has put in host memory. */
static void epf_test_corrupt_window(struct epf_test *t, struct epf_test_xfer *x,
				    struct epf_test_window *w)
{
	u8 __iomem *p = epf_test_window_ptr(w) + x->len / 2;

	if (epf_test_should_corrupt(t, x->len / 2))
		writeb(~readb(p), p);
}

/*
 * READ: the host asks the endpoint to fetch its buffer and check it against
 * the CRC32 the host computed, crc32_le(~0, data, len).
 */
static int epf_test_cmd_read(struct epf_test *t, struct epf_test_xfer *x)
{
	struct dma_chan *slave = epf_test_slave(t, x, DMA_DEV_TO_MEM);
	struct epf_test_window src;
	u8 *buf;
	int ret;

	ret = epf_test_reach(t, x, slave, x->src, &src);
	if (ret) {
		x->status |= EPF_TEST_ST_SRC_INVALID;
		return ret;
	}

	buf = kmalloc(x->len, GFP_KERNEL | __GFP_NOWARN);
	if (!buf) {
		ret = -ENOMEM;
		goto close;
	}

	ret = epf_test_pull(t, x, slave, &src, buf);
	if (ret)
		goto free;

	epf_test_corrupt_buf(t, x, buf);
	if (crc32_le(~0, buf, x->len) !=
	    epf_test_reg_get(t, EPF_TEST_REG_CHECKSUM))
		ret = -EILSEQ;
free:
	kfree(buf);
close:
	epf_test_leave(t, x, slave, &src);
	return ret;
}

/*
 * Test hook: keep a mapped window open, so that a test can take the link
 * down under it and see that the late write does not reach the host.  The
 * window is read first, a byte a page, so that its translations are in the
 * TLB as a transfer under way would have them: parking must invalidate
 * them, not only rewrite the page tables.
 */
static void epf_test_stall(struct epf_test *t, struct epf_test_xfer *x,
			   struct epf_test_window *w)
{
	unsigned int ms = xchg(&stall_next_ms, 0);
	size_t off;

	if (!ms)
		return;
	for (off = 0; off < w->span; off += PAGE_SIZE)
		readb(w->virt + off);
	dev_info(&t->epf->dev, "stall_next_ms: window to %#llx held open for %u ms\n",
		 x->dst, ms);
	msleep(ms);
	dev_info(&t->epf->dev, "stall_next_ms: stall over\n");
}

/*
 * WRITE: the endpoint fills the host's buffer with random data and publishes
 * its CRC32 in the checksum register for the host to verify.
 */
static int epf_test_cmd_write(struct epf_test *t, struct epf_test_xfer *x)
{
	struct dma_chan *slave = epf_test_slave(t, x, DMA_MEM_TO_DEV);
	struct epf_test_window dst;
	void *buf;
	int ret;

	ret = epf_test_reach(t, x, slave, x->dst, &dst);
	if (ret) {
		x->status |= EPF_TEST_ST_DST_INVALID;
		return ret;
	}

	buf = kmalloc(x->len, GFP_KERNEL | __GFP_NOWARN);
	if (!buf) {
		ret = -ENOMEM;
		goto close;
	}

	get_random_bytes(buf, x->len);
	epf_test_reg_set(t, EPF_TEST_REG_CHECKSUM, crc32_le(~0, buf, x->len));
	epf_test_corrupt_buf(t, x, buf);
	if (!slave)
		epf_test_stall(t, x, &dst);

	ret = epf_test_push(t, x, slave, &dst, buf);

	kfree(buf);
close:
	epf_test_leave(t, x, slave, &dst);
	return ret;
}

/*
 * COPY without DMA, window to window in one pass: what is read from the
 * source goes straight out to the destination, without landing in local
 * memory between the two.
 *
 * On little-endian 32-bit ARM, memcpy_toio() is the MMIO-safe memcpy
 * (mmiocpy): it makes aligned accesses only, eight registers at a time, so
 * it may read an I/O source as well.  Under emulation it moves a byte for
 * half the cost of the word loop below (make bench, COPY of 1 MiB: 0.49 of
 * memcpy with the loop).
 */
#if defined(CONFIG_ARM) && !defined(CONFIG_CPU_BIG_ENDIAN)
static void epf_test_copy_io(void __iomem *dst, const void __iomem *src,
			     size_t len)
{
	memcpy_toio(dst, (const void __force *)src, len);
}
#else
/* Words when both ends share their alignment, bytes for the rest. */
#ifdef CONFIG_64BIT
#define epf_test_raw_read(p)		__raw_readq(p)
#define epf_test_raw_write(v, p)	__raw_writeq(v, p)
#else
#define epf_test_raw_read(p)		__raw_readl(p)
#define epf_test_raw_write(v, p)	__raw_writel(v, p)
#endif

static void epf_test_copy_io(void __iomem *dst, const void __iomem *src,
			     size_t len)
{
	const size_t word = sizeof(long);
	size_t off = 0;

	if (((unsigned long)dst ^ (unsigned long)src) % word == 0) {
		for (; off < len && !IS_ALIGNED((unsigned long)src + off, word);
		     off++)
			__raw_writeb(__raw_readb(src + off), dst + off);
		for (; len - off >= word; off += word)
			epf_test_raw_write(epf_test_raw_read(src + off),
					   dst + off);
	}
	for (; off < len; off++)
		__raw_writeb(__raw_readb(src + off), dst + off);
}
#endif

static int epf_test_copy_cpu(struct epf_test_xfer *x,
			     struct epf_test_window *src,
			     struct epf_test_window *dst)
{
	ktime_t start = ktime_get();

	epf_test_copy_io(epf_test_window_ptr(dst), epf_test_window_ptr(src),
			 x->len);
	x->ns += ktime_to_ns(ktime_sub(ktime_get(), start));
	return 0;
}

/* COPY: host buffer to host buffer; the host compares the two itself. */
static int epf_test_cmd_copy(struct epf_test *t, struct epf_test_xfer *x)
{
	struct epf_test_window src, dst;
	ktime_t start;
	int ret;

	ret = epf_test_window_open(t, x, x->src, &src);
	if (ret) {
		x->status |= EPF_TEST_ST_SRC_INVALID;
		return ret;
	}

	ret = epf_test_window_open(t, x, x->dst, &dst);
	if (ret) {
		x->status |= EPF_TEST_ST_DST_INVALID;
		goto close_src;
	}

	if (x->dma) {
		start = ktime_get();
		ret = epf_test_dma_copy(t->dma, epf_test_window_bus(&dst),
					epf_test_window_bus(&src), x->len);
		x->ns = ktime_to_ns(ktime_sub(ktime_get(), start));
	} else {
		ret = epf_test_copy_cpu(x, &src, &dst);
	}

	if (!ret)
		epf_test_corrupt_window(t, x, &dst);

	epf_test_window_close(t, x, &dst);
close_src:
	epf_test_window_close(t, x, &src);
	return ret;
}

static const struct epf_test_op epf_test_ops[] = {
	{ EPF_TEST_CMD_READ, "READ", EPF_TEST_ST_READ_OK,
	  EPF_TEST_ST_READ_FAIL, epf_test_cmd_read },
	{ EPF_TEST_CMD_WRITE, "WRITE", EPF_TEST_ST_WRITE_OK,
	  EPF_TEST_ST_WRITE_FAIL, epf_test_cmd_write },
	{ EPF_TEST_CMD_COPY, "COPY", EPF_TEST_ST_COPY_OK,
	  EPF_TEST_ST_COPY_FAIL, epf_test_cmd_copy },
};

/* One console line per transfer; MB/s counts 10^6 bytes per second. */
static void epf_test_log(struct epf_test *t, const struct epf_test_op *op,
			 struct epf_test_xfer *x, int ret)
{
	const char *how = x->dma ? "DMA" : "CPU";
	u64 tenths;
	u32 frac;

	if (ret) {
		dev_info(&t->epf->dev, "%s %zu bytes FAILED (%d), %s\n",
			 op->name, x->len, ret, how);
		return;
	}

	tenths = div64_u64((u64)x->len * 10000, max_t(u64, x->ns, 1));
	tenths = div_u64_rem(tenths, 10, &frac);
	dev_info(&t->epf->dev, "%s %zu bytes ok, %llu.%u MB/s, %s, map/unmap %llu us\n",
		 op->name, x->len, tenths, frac, how,
		 div_u64(x->map_ns, NSEC_PER_USEC));
}

/*
 * Interrupt the host the way it asked in irq_type/irq_number.  INTx has no
 * vector number: the pin comes from the configuration header.
 */
static void epf_test_notify_host(struct epf_test *t)
{
	struct pci_epf *epf = t->epf;
	u32 type = epf_test_reg_get(t, EPF_TEST_REG_IRQ_TYPE);
	u16 num = epf_test_reg_get(t, EPF_TEST_REG_IRQ_NUMBER);
	enum pci_epc_irq_type epc_type;

	switch (type) {
	case EPF_TEST_IRQ_LEGACY:
		epc_type = PCI_EPC_IRQ_LEGACY;
		num = 0;
		break;
	case EPF_TEST_IRQ_MSI:
		epc_type = PCI_EPC_IRQ_MSI;
		break;
	case EPF_TEST_IRQ_MSIX:
		epc_type = PCI_EPC_IRQ_MSIX;
		break;
	default:
		dev_err(&epf->dev, "host asked for unknown irq type %u\n",
			type);
		return;
	}

	/* The host must see the status before the interrupt arrives. */
	wmb();
	pci_epc_raise_irq(epf->epc, epf->func_no, epf->vfunc_no, epc_type,
			  num);
}

static void epf_test_transfer(struct epf_test *t,
			      const struct epf_test_op *op)
{
	struct epf_test_xfer x = {
		.src = epf_test_reg_get64(t, EPF_TEST_REG_SRC_LO,
					  EPF_TEST_REG_SRC_HI),
		.dst = epf_test_reg_get64(t, EPF_TEST_REG_DST_LO,
					  EPF_TEST_REG_DST_HI),
		.len = epf_test_reg_get(t, EPF_TEST_REG_SIZE),
		.dma = epf_test_reg_get(t, EPF_TEST_REG_FLAGS) &
		       EPF_TEST_FLAG_DMA,
	};
	int ret;

	/*
	 * Refusing a command still reports failure and interrupts: the host
	 * waits for that interrupt without a timeout.
	 */
	if (!x.len)
		ret = -EINVAL;
	else if (x.dma && !epf_test_dma_chans(t))
		ret = -ENODEV;
	else
		ret = op->run(t, &x);

	epf_test_log(t, op, &x, ret);
	x.status |= (ret ? op->fail : op->ok) | EPF_TEST_ST_IRQ_RAISED;
	epf_test_reg_set(t, EPF_TEST_REG_STATUS, x.status);
	epf_test_notify_host(t);
}

/*
 * IRQ test commands: raise vector irq_number, but only one the host has
 * actually enabled; otherwise stay silent so that the host's test fails.
 */
static void epf_test_raise(struct epf_test *t, enum pci_epc_irq_type type)
{
	struct pci_epf *epf = t->epf;
	struct pci_epc *epc = epf->epc;
	u32 num = epf_test_reg_get(t, EPF_TEST_REG_IRQ_NUMBER);
	int count;

	if (type == PCI_EPC_IRQ_LEGACY) {
		num = 0;
	} else {
		if (type == PCI_EPC_IRQ_MSI)
			count = pci_epc_get_msi(epc, epf->func_no,
						epf->vfunc_no);
		else
			count = pci_epc_get_msix(epc, epf->func_no,
						 epf->vfunc_no);
		if (num < 1 || (int)num > count) {
			dev_dbg(&epf->dev, "vector %u of %d not raised\n",
				num, count);
			return;
		}
	}

	epf_test_reg_set(t, EPF_TEST_REG_STATUS, EPF_TEST_ST_IRQ_RAISED);
	/* As for transfers: status first, then the interrupt. */
	wmb();
	pci_epc_raise_irq(epc, epf->func_no, epf->vfunc_no, type, num);
}

static void epf_test_run_command(struct epf_test *t, u32 command)
{
	unsigned int i;

	switch (command) {
	case EPF_TEST_CMD_LEGACY_IRQ:
		epf_test_raise(t, PCI_EPC_IRQ_LEGACY);
		return;
	case EPF_TEST_CMD_MSI_IRQ:
		epf_test_raise(t, PCI_EPC_IRQ_MSI);
		return;
	case EPF_TEST_CMD_MSIX_IRQ:
		epf_test_raise(t, PCI_EPC_IRQ_MSIX);
		return;
	}

	for (i = 0; i < ARRAY_SIZE(epf_test_ops); i++) {
		if (command == epf_test_ops[i].command) {
			epf_test_transfer(t, &epf_test_ops[i]);
			return;
		}
	}

	dev_warn(&t->epf->dev, "ignoring unknown command %#x\n", command);
}

/* Fetch and acknowledge a pending command; 0 when there is none. */
static u32 epf_test_take_command(struct epf_test *t)
{
	u32 command = epf_test_reg_get(t, EPF_TEST_REG_COMMAND);

	if (!command)
		return 0;

	epf_test_reg_set(t, EPF_TEST_REG_COMMAND, 0);
	epf_test_reg_set(t, EPF_TEST_REG_STATUS, 0);
	/* The host wrote the parameters before the command word. */
	rmb();

	return command;
}

static void epf_test_poll(struct work_struct *work)
{
	struct epf_test *t = container_of(to_delayed_work(work),
					  struct epf_test, poll);
	ktime_t stop = ktime_add_ms(ktime_get(), EPF_TEST_MAX_RUN_MS);
	ktime_t hot_until = 0;
	u32 command;

	do {
		command = epf_test_take_command(t);
		if (command) {
			epf_test_run_command(t, command);
			hot_until = ktime_add_ms(ktime_get(),
						 EPF_TEST_HOT_WINDOW_MS);
			continue;
		}

		if (ktime_after(ktime_get(), hot_until)) {
			queue_delayed_work(t->wq, &t->poll,
					   EPF_TEST_IDLE_POLL_JIFFIES);
			return;
		}

		usleep_range(EPF_TEST_HOT_POLL_US, 2 * EPF_TEST_HOT_POLL_US);
	} while (ktime_before(ktime_get(), stop));

	/* Still busy: come straight back, but let a cancel in first. */
	queue_delayed_work(t->wq, &t->poll, 0);
}

/* Size needed for the registers, the MSI-X table and its pending bits. */
static size_t epf_test_reg_bar_size(struct epf_test *t)
{
	u16 vectors = t->epf->msix_interrupts;

	if (!t->features->msix_capable || !vectors)
		return EPF_TEST_REG_SPAN;

	return EPF_TEST_REG_SPAN + vectors * PCI_MSIX_ENTRY_SIZE +
	       DIV_ROUND_UP(vectors, 64) * sizeof(u64);
}

static void epf_test_free_bar(struct epf_test *t, enum pci_barno bar)
{
	struct pci_epf *epf = t->epf;

	if (test_and_clear_bit(bar, &t->live))
		pci_epc_clear_bar(epf->epc, epf->func_no, epf->vfunc_no,
				  &epf->bar[bar]);
	pci_epf_free_space(epf, t->mem[bar], bar, PRIMARY_INTERFACE);
	t->mem[bar] = NULL;
}

static void epf_test_free_bars(struct epf_test *t)
{
	enum pci_barno bar;

	for (bar = BAR_0; bar < PCI_STD_NUM_BARS; bar++)
		epf_test_free_bar(t, bar);
}

static int epf_test_alloc_bar(struct epf_test *t, enum pci_barno bar)
{
	const struct pci_epc_features *f = t->features;
	struct pci_epf *epf = t->epf;
	size_t size = f->bar_fixed_size[bar] ?: epf_test_bar_size[bar];

	if (bar == t->reg_bar) {
		size = epf_test_reg_bar_size(t);
		/* A fixed-size BAR is used whole, if the registers fit. */
		if (f->bar_fixed_size[bar] && size > f->bar_fixed_size[bar])
			return -ENOSPC;
		size = max_t(size_t, size, f->bar_fixed_size[bar]);
	}

	t->mem[bar] = pci_epf_alloc_space(epf, size, bar, f->align,
					  PRIMARY_INTERFACE);
	if (!t->mem[bar])
		return -ENOMEM;

	if (f->bar_fixed_64bit & BIT(bar))
		epf->bar[bar].flags |= PCI_BASE_ADDRESS_MEM_TYPE_64;

	return 0;
}

/*
 * Back every usable BAR with memory.  Reserved BARs are left alone, and the
 * BAR after a 64-bit one is its upper half.  Only the register BAR is vital.
 */
static int epf_test_alloc_bars(struct epf_test *t)
{
	const struct pci_epc_features *f = t->features;
	enum pci_barno bar;
	int ret;

	for (bar = BAR_0; bar < PCI_STD_NUM_BARS; bar++) {
		bool wide = f->bar_fixed_64bit & BIT(bar);

		if (!(f->reserved_bar & BIT(bar))) {
			ret = epf_test_alloc_bar(t, bar);
			if (ret && bar == t->reg_bar)
				return ret;
			if (ret)
				dev_warn(&t->epf->dev, "BAR%d left unused\n",
					 bar);
		}

		if (wide)
			bar++;
	}

	return 0;
}

static int epf_test_set_bars(struct epf_test *t)
{
	struct pci_epf *epf = t->epf;
	enum pci_barno bar;
	int ret;

	for (bar = BAR_0; bar < PCI_STD_NUM_BARS; bar++) {
		if (!t->mem[bar])
			continue;

		ret = pci_epc_set_bar(epf->epc, epf->func_no, epf->vfunc_no,
				      &epf->bar[bar]);
		if (!ret) {
			set_bit(bar, &t->live);
			continue;
		}

		dev_err(&epf->dev, "controller refused BAR%d: %d\n", bar, ret);
		if (bar == t->reg_bar)
			return ret;
		epf_test_free_bar(t, bar);
	}

	return 0;
}

static int epf_test_set_irqs(struct epf_test *t)
{
	struct pci_epf *epf = t->epf;
	struct pci_epc *epc = epf->epc;
	int ret;

	if (t->features->msi_capable && epf->msi_interrupts) {
		ret = pci_epc_set_msi(epc, epf->func_no, epf->vfunc_no,
				      epf->msi_interrupts);
		if (ret) {
			dev_err(&epf->dev, "cannot offer MSI: %d\n", ret);
			return ret;
		}
	}

	if (t->features->msix_capable && epf->msix_interrupts) {
		ret = pci_epc_set_msix(epc, epf->func_no, epf->vfunc_no,
				       epf->msix_interrupts, t->reg_bar,
				       EPF_TEST_REG_SPAN);
		if (ret) {
			dev_err(&epf->dev, "cannot offer MSI-X: %d\n", ret);
			return ret;
		}
	}

	return 0;
}

/* Program what the host will see: header, BARs, MSI and MSI-X. */
static int epf_test_program(struct epf_test *t)
{
	struct pci_epf *epf = t->epf;
	int ret;

	/* Virtual functions share one header, the one of VF 1. */
	if (epf->vfunc_no <= 1) {
		ret = pci_epc_write_header(epf->epc, epf->func_no,
					   epf->vfunc_no, epf->header);
		if (ret) {
			dev_err(&epf->dev, "cannot write header: %d\n", ret);
			return ret;
		}
	}

	ret = epf_test_set_bars(t);
	if (ret)
		return ret;

	return epf_test_set_irqs(t);
}

/*
 * Controller events.  They run in process context under the function's
 * lock, serialised with bind and unbind.
 */
static int epf_test_core_init(struct pci_epf *epf)
{
	return epf_test_program(epf_get_drvdata(epf));
}

static int epf_test_link_up(struct pci_epf *epf)
{
	struct epf_test *t = epf_get_drvdata(epf);

	mod_delayed_work(t->wq, &t->poll, 0);
	return 0;
}

/*
 * Stop polling and forget the last command.  A command word the host left
 * behind must not run after the next link up: by then the addresses in the
 * registers may belong to something else in a rebooted host.
 */
static int epf_test_link_down(struct pci_epf *epf)
{
	struct epf_test *t = epf_get_drvdata(epf);

	cancel_delayed_work_sync(&t->poll);
	memset(t->mem[t->reg_bar], 0, EPF_TEST_REG_SPAN);
	return 0;
}

/* Transfers need bus mastering; say when the host grants it. */
static int epf_test_bme(struct pci_epf *epf)
{
	dev_info(&epf->dev, "host enabled bus mastering\n");
	return 0;
}

static const struct pci_epc_event_ops epf_test_event_ops = {
	.core_init = epf_test_core_init,
	.link_up = epf_test_link_up,
	.link_down = epf_test_link_down,
	.bme = epf_test_bme,
};

static int epf_test_bind(struct pci_epf *epf)
{
	struct epf_test *t = epf_get_drvdata(epf);
	struct pci_epc *epc = epf->epc;
	int ret;

	if (!epc)
		return -EINVAL;
	/*
	 * One interface only: the bind for a secondary link must fail
	 * without touching what the primary one set up.
	 */
	if (epf->sec_epc) {
		dev_err(&epf->dev, "pci_epf_test has a single interface\n");
		return -EBUSY;
	}

	t->features = pci_epc_get_features(epc, epf->func_no, epf->vfunc_no);
	if (!t->features)
		return -EOPNOTSUPP;

	t->reg_bar = pci_epc_get_first_free_bar(t->features);
	if (t->reg_bar == NO_BAR)
		return -ENOSPC;

	ret = epf_test_alloc_bars(t);
	if (ret)
		goto fail;

	/* Without a core_init event the controller is ready right now. */
	if (!t->features->core_init_notifier) {
		ret = epf_test_program(t);
		if (ret)
			goto fail;
	}

	epf->event_ops = &epf_test_event_ops;

	/* Without a link_up event there is no better moment to start. */
	if (!t->features->linkup_notifier)
		queue_delayed_work(t->wq, &t->poll, 0);

	return 0;

fail:
	dev_err(&epf->dev, "bind failed: %d\n", ret);
	epf_test_free_bars(t);
	return ret;
}

static void epf_test_unbind(struct pci_epf *epf)
{
	struct epf_test *t = epf_get_drvdata(epf);

	/*
	 * Events are held off by the function's lock, and the poll work
	 * re-arms only itself: once cancelled, nothing touches the BARs.
	 * This waits for a command in progress, including its DMA.
	 */
	cancel_delayed_work_sync(&t->poll);

	epf_test_dma_release(t);
	epf_test_free_bars(t);
}

static int epf_test_probe(struct pci_epf *epf)
{
	struct epf_test *t;

	t = devm_kzalloc(&epf->dev, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;

	t->wq = alloc_ordered_workqueue("%s", 0, dev_name(&epf->dev));
	if (!t->wq)
		return -ENOMEM;

	/* Until configfs says otherwise: any vendor, class "other", INTA. */
	t->header.vendorid = PCI_ANY_ID;
	t->header.deviceid = PCI_ANY_ID;
	t->header.baseclass_code = PCI_CLASS_OTHERS;
	t->header.interrupt_pin = PCI_INTERRUPT_INTA;

	t->epf = epf;
	INIT_DELAYED_WORK(&t->poll, epf_test_poll);
	epf->header = &t->header;
	epf_set_drvdata(epf, t);

	return 0;
}

static void epf_test_remove(struct pci_epf *epf)
{
	struct epf_test *t = epf_get_drvdata(epf);

	/* The header goes away with @t; configfs must not reach it after. */
	epf->header = NULL;
	destroy_workqueue(t->wq);
}

static struct pci_epf_ops epf_test_epf_ops = {
	.bind = epf_test_bind,
	.unbind = epf_test_unbind,
};

static const struct pci_epf_device_id epf_test_ids[] = {
	{ .name = "pci_epf_test" },
	{ }
};

static struct pci_epf_driver epf_test_driver = {
	.driver.name = "pci_epf_test",
	.probe = epf_test_probe,
	.remove = epf_test_remove,
	.id_table = epf_test_ids,
	.ops = &epf_test_epf_ops,
	.owner = THIS_MODULE,
};

static int __init epf_test_init(void)
{
	return pci_epf_register_driver(&epf_test_driver);
}
module_init(epf_test_init);

static void __exit epf_test_exit(void)
{
	pci_epf_unregister_driver(&epf_test_driver);
}
module_exit(epf_test_exit);

MODULE_DESCRIPTION("PCI endpoint test function");
MODULE_LICENSE("GPL");
