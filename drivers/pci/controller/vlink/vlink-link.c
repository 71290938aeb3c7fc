// SPDX-License-Identifier: GPL-2.0
/*
 * vlink: the link device both roles share.
 *
 * Bringing a link device up means: map the server's shared memory and refuse
 * it unless its header is one we understand, find the window onto the peer's
 * RAM that the device tree names, take the doorbell vectors, and then announce
 * ourselves in our side area.  From then on every VLINK_VEC_LINK doorbell
 * makes us re-read the peer's side area; a peer seen for the first time (or
 * with a new boot id) gets a self test that proves both RAM windows and
 * measures the doorbell round trip.
 */

#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/of.h>
#include <linux/random.h>

#include "vlink.h"

/* ivshmem BAR0 registers */
#define IVSHMEM_IVPOSITION	0x08
#define IVSHMEM_DOORBELL	0x0c

#define VLINK_PINGS		16

/**
 * vlink_role_name() - human-readable name of a role, for log lines
 * @role: the role
 *
 * Return: "endpoint", "root complex" or "monitor".
 */
const char *vlink_role_name(enum vlink_role role)
{
	switch (role) {
	case VLINK_ROLE_EP:
		return "endpoint";
	case VLINK_ROLE_RC:
		return "root complex";
	default:
		return "monitor";
	}
}

/**
 * vlink_ring() - ring one of the peer's doorbell vectors
 * @vl: the link
 * @vec: the vector
 *
 * Rings even when the peer is absent: QEMU then drops the write, which is
 * what an absent peer deserves.
 */
void vlink_ring(struct vlink *vl, enum vlink_vector vec)
{
	vlink_ring_id(vl, VLINK_PEER_ID(vl->peer), vec);
}

/**
 * vlink_ring_id() - ring any ivshmem peer's vector
 * @vl: the link
 * @peer_id: the peer id, e.g. one of the server's DMA rings
 * @vec: its vector
 */
void vlink_ring_id(struct vlink *vl, u32 peer_id, unsigned int vec)
{
	/* Our writes to shared memory must be visible before the ring. */
	wmb();
	writel((peer_id << 16) | vec, vl->regs + IVSHMEM_DOORBELL);
}

/**
 * vlink_kick() - re-read the link state as if the peer had rung
 * @vl: the link
 *
 * For state changes of our own: link events are delivered from the link
 * worker only, never from the caller's context.
 */
void vlink_kick(struct vlink *vl)
{
	unsigned long flags;

	spin_lock_irqsave(&vl->kick_lock, flags);
	if (!vl->stopped)
		schedule_work(&vl->link_work);
	spin_unlock_irqrestore(&vl->kick_lock, flags);
}

/**
 * vlink_peer_alive() - is the peer's QEMU connected and its driver bound?
 * @vl: the link
 *
 * The server may also take a live role off the link for a while (fault
 * injection) by clearing its present flag alone: then neither side has a
 * peer, so our own flag counts as much as the peer's.
 *
 * Return: true when we and the peer have both announced ourselves and the
 * server sees both roles connected.
 */
bool vlink_peer_alive(struct vlink *vl)
{
	/* Pairs with vlink_announce(): our fields are out before the flag. */
	return smp_load_acquire(&vl->announced) &&
	       vlink_rd32(&vl->hdr->present[vl->role]) &&
	       vlink_rd32(&vl->hdr->present[vl->peer]) &&
	       vlink_rd32(&vl->other->state) == VLINK_STATE_ALIVE;
}

/**
 * vlink_map_peer() - map part of the peer's RAM through the window
 * @vl: the link
 * @peer_addr: physical address in the peer's own view of its RAM
 * @size: bytes to map
 *
 * The peer hands us addresses of its own RAM; anything outside the window
 * is refused rather than mapped, since the peer is not to be trusted with
 * our address space.
 *
 * Return: the mapping (to be iounmap()ed), or NULL when the range is not
 * inside the peer's RAM or cannot be mapped.
 */
void __iomem *vlink_map_peer(struct vlink *vl, u64 peer_addr, size_t size)
{
	phys_addr_t phys = vlink_window_phys(&vl->win, peer_addr, size);

	if (!phys) {
		pci_err(vl->pdev, "peer address %#llx+%#zx is outside the peer's RAM\n",
			peer_addr, size);
		return NULL;
	}
	return ioremap(phys, size);
}

/*
 * The writer's boot id is part of the pattern, so what an earlier
 * incarnation of the peer left in the page never passes for a new write.
 */
static u32 vlink_pattern_word(u32 seed, u32 writer, unsigned int i)
{
	return seed ^ writer ^ (i * 0x9e3779b9);
}

/* Fill the peer's scratch page through the window: proves our window. */
static void vlink_write_peer_pattern(struct vlink *vl, u32 peer_boot_id)
{
	u64 addr = vlink_rd64(&vl->other->scratch_phys);
	u32 seed = vlink_rd32(&vl->other->scratch_seed);
	u32 writer = vlink_rd32(&vl->self->boot_id);
	void __iomem *page;
	unsigned int i;

	page = vlink_map_peer(vl, addr, PAGE_SIZE);
	if (!page)
		return;
	for (i = 0; i < PAGE_SIZE / 4; i++)
		writel_relaxed(vlink_pattern_word(seed, writer, i),
			       page + 4 * i);
	iounmap(page);
	pci_info(vl->pdev, "wrote test pattern into the peer's RAM at %#llx\n",
		 addr);
	vlink_wr32(&vl->self->pattern_for, peer_boot_id);
	vlink_ring(vl, VLINK_VEC_LINK);
}

/* Check what the peer wrote into our scratch page: proves its window. */
static void vlink_check_own_pattern(struct vlink *vl)
{
	/* The peer wrote it with writel(): little-endian words. */
	const __le32 *words = page_address(vl->scratch);
	u32 seed = vlink_rd32(&vl->self->scratch_seed);
	unsigned int i;
	u32 w;

	vl->pattern_checked = true;
	for (i = 0; i < PAGE_SIZE / 4; i++) {
		w = vlink_rd32(&words[i]);
		if (w != vlink_pattern_word(seed, vl->peer_boot_id, i)) {
			pci_err(vl->pdev, "test pattern from the peer: MISMATCH at byte %u (%#x)\n",
				4 * i, w);
			return;
		}
	}
	pci_info(vl->pdev, "test pattern from the peer: OK (%lu bytes)\n",
		 PAGE_SIZE);
}

static void vlink_report_rtt(struct vlink *vl)
{
	struct vlink_rtt r;

	if (vlink_rtt_measure(vl, false, VLINK_PINGS, &r)) {
		pci_warn(vl->pdev, "doorbell round trip: no answer within 1 s\n");
		return;
	}
	pci_info(vl->pdev, "doorbell round trip: median %u us, min %u us, max %u us (%u pings)\n",
		 r.median / 1000, r.min / 1000, r.max / 1000, r.n);
}

static void vlink_test_work(struct work_struct *work)
{
	struct vlink *vl = container_of(work, struct vlink, test_work);
	u32 boot_id;

	mutex_lock(&vl->lock);
	boot_id = vl->peer_boot_id;
	if (boot_id)
		vlink_write_peer_pattern(vl, boot_id);
	mutex_unlock(&vl->lock);
	if (boot_id)
		vlink_report_rtt(vl);
}

static void vlink_link_work(struct work_struct *work)
{
	struct vlink *vl = container_of(work, struct vlink, link_work);
	bool alive;
	u32 boot_id;

	mutex_lock(&vl->lock);
	alive = vlink_peer_alive(vl);
	boot_id = alive ? vlink_rd32(&vl->other->boot_id) : 0;

	if (vl->peer_boot_id && vl->peer_boot_id != boot_id) {
		pci_info(vl->pdev, "peer %s down\n", vlink_role_name(vl->peer));
		vl->peer_boot_id = 0;
	}
	if (boot_id && !vl->peer_boot_id) {
		pci_info(vl->pdev, "peer %s up (boot id %08x)\n",
			 vlink_role_name(vl->peer), boot_id);
		vl->peer_boot_id = boot_id;
		vl->peer_ups++;
		vl->pattern_checked = false;
		/* The peer may have come up before us and missed our ring. */
		vlink_ring(vl, VLINK_VEC_LINK);
		schedule_work(&vl->test_work);
	}
	if (!vl->pattern_checked && alive &&
	    vlink_rd32(&vl->other->pattern_for) ==
	    vlink_rd32(&vl->self->boot_id))
		vlink_check_own_pattern(vl);
	mutex_unlock(&vl->lock);

	if (vl->ops->link_event)
		vl->ops->link_event(vl, alive);
}

static irqreturn_t vlink_link_irq(int irq, void *data)
{
	vlink_kick(data);
	return IRQ_HANDLED;
}

static irqreturn_t vlink_irq_irq(int irq, void *data)
{
	struct vlink *vl = data;

	if (vl->ops->irq)
		vl->ops->irq(vl);
	return IRQ_HANDLED;
}

static irqreturn_t vlink_ping_irq(int irq, void *data)
{
	vlink_ring(data, VLINK_VEC_PONG);
	return IRQ_HANDLED;
}

static irqreturn_t vlink_pong_irq(int irq, void *data)
{
	struct vlink *vl = data;

	complete(&vl->pong);
	return IRQ_HANDLED;
}

static irqreturn_t vlink_dma_irq(int irq, void *data)
{
	struct vlink *vl = data;

	if (vl->ops->dma)
		vl->ops->dma(vl);
	return IRQ_HANDLED;
}

static const irq_handler_t vlink_handlers[VLINK_NR_VECTORS] = {
	[VLINK_VEC_LINK] = vlink_link_irq,
	[VLINK_VEC_IRQ] = vlink_irq_irq,
	[VLINK_VEC_PING] = vlink_ping_irq,
	[VLINK_VEC_PONG] = vlink_pong_irq,
	[VLINK_VEC_DMA] = vlink_dma_irq,
};

/* Refuse any shared memory whose layout is not exactly the one we know. */
static int vlink_check_header(struct vlink *vl, resource_size_t shm_len)
{
	const struct vlink_header *h = vl->hdr;
	const __le32 *id = h->peer_id;
	struct device *dev = &vl->pdev->dev;
	u32 magic = vlink_rd32(&h->magic);
	u32 version = vlink_rd32(&h->version);
	u32 size = vlink_rd32(&h->shm_size);

	if (magic != VLINK_MAGIC) {
		dev_err(dev, "link shm has magic %#x, not %#x: is the vlink server attached?\n",
			magic, VLINK_MAGIC);
		return -EINVAL;
	}
	if (version != VLINK_VERSION) {
		dev_err(dev, "link shm layout version %u, this driver speaks %u\n",
			version, VLINK_VERSION);
		return -EINVAL;
	}
	if (size != VLINK_SHM_SIZE || shm_len < size) {
		dev_err(dev, "link shm size %u, BAR2 %pa, expected %u\n",
			size, &shm_len, VLINK_SHM_SIZE);
		return -EINVAL;
	}
	if (vlink_rd32(&h->nr_vectors) != VLINK_NR_VECTORS ||
	    vlink_rd32(&h->max_functions) != VLINK_MAX_FUNCTIONS ||
	    vlink_rd32(&id[VLINK_ROLE_EP]) != VLINK_PEER_ID(VLINK_ROLE_EP) ||
	    vlink_rd32(&id[VLINK_ROLE_RC]) != VLINK_PEER_ID(VLINK_ROLE_RC) ||
	    vlink_rd32(&h->side_offset) != VLINK_SIDE_OFFSET ||
	    vlink_rd32(&h->func_offset) != VLINK_FUNC_OFFSET ||
	    vlink_rd32(&h->irq_offset) != VLINK_IRQ_OFFSET ||
	    vlink_rd32(&h->irq_bits) != VLINK_IRQ_BITS ||
	    vlink_rd32(&h->cfg_offset) != VLINK_CFG_OFFSET ||
	    vlink_rd32(&h->cfg_size) != VLINK_CFG_SIZE ||
	    vlink_rd64(&h->msi_address) != VLINK_MSI_ADDRESS ||
	    vlink_rd32(&h->xlat_offset) != VLINK_XLAT_OFFSET ||
	    vlink_rd32(&h->xlat_extents) != VLINK_XLAT_EXTENTS) {
		dev_err(dev, "link shm header describes a layout this driver does not know\n");
		return -EINVAL;
	}
	return 0;
}

static int vlink_map_shm(struct vlink *vl)
{
	struct pci_dev *pdev = vl->pdev;
	resource_size_t len = pci_resource_len(pdev, 2);
	u32 pos;
	int ret;

	ret = pcim_iomap_regions(pdev, BIT(0) | BIT(2), "vlink");
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "cannot claim BAR0/BAR2\n");
	vl->regs = pcim_iomap_table(pdev)[0];

	/*
	 * The shared memory is RAM on every side: map it cacheable so that
	 * the MSI pending bitmap can use exclusive (atomic) accesses.
	 */
	vl->shm = devm_memremap(&pdev->dev, pci_resource_start(pdev, 2), len,
				MEMREMAP_WB);
	if (IS_ERR(vl->shm))
		return dev_err_probe(&pdev->dev, PTR_ERR(vl->shm),
				     "cannot map the link shm\n");
	vl->hdr = vl->shm + VLINK_HDR_OFFSET;
	ret = vlink_check_header(vl, len);
	if (ret)
		return ret;

	pos = readl(vl->regs + IVSHMEM_IVPOSITION);
	if (pos != VLINK_PEER_ID(vl->role)) {
		dev_err(&pdev->dev, "this link device is peer %u, but the %s is peer %u: wrong server socket?\n",
			pos, vlink_role_name(vl->role),
			VLINK_PEER_ID(vl->role));
		return -EINVAL;
	}
	vl->self = vl->shm + VLINK_SIDE_OFFSET + vl->role * VLINK_SIDE_STRIDE;
	vl->other = vl->shm + VLINK_SIDE_OFFSET + vl->peer * VLINK_SIDE_STRIDE;
	return 0;
}

static struct pci_dev *vlink_find_window(struct device_node *np)
{
	struct pci_dev *pdev = NULL;

	for_each_pci_dev(pdev)
		if (pdev->dev.of_node == np)
			return pdev;
	return NULL;
}

static void vlink_put_window(void *data)
{
	struct vlink_window *w = data;

	release_resource(&w->res);
	pci_disable_device(w->pdev);
	pci_dev_put(w->pdev);
}

/**
 * vlink_post_msi() - deliver a posted write to the root complex's MSI address
 * @vl: an endpoint link
 * @addr: where the write goes: only the link's MSI address exists
 * @data: the message data, a bit of the pending bitmap
 *
 * Return: 0, or -EINVAL (and a log line) for a write that is no vlink
 * interrupt.
 */
int vlink_post_msi(struct vlink *vl, u64 addr, u32 data)
{
	if (addr != VLINK_MSI_ADDRESS || data < VLINK_INTX_BITS ||
	    data >= VLINK_IRQ_BITS) {
		dev_err_ratelimited(&vl->pdev->dev, "MSI write to %#llx data %#x is not a vlink interrupt\n",
				    addr, data);
		return -EINVAL;
	}
	set_bit_le(data, vlink_irq_bits(vl));
	vlink_ring(vl, VLINK_VEC_IRQ);
	return 0;
}

/**
 * vlink_get_window() - claim a window onto another guest's RAM
 * @dev: the link device whose node names the window
 * @prop: the property with the window device's phandle; "<prop>-base"
 *        holds where that RAM starts in its guest's own view
 * @name: what the window's claimed range is called
 * @w: filled in; released with @dev
 *
 * Return: 0, -ENOENT if @dev's node has no @prop, -EPROBE_DEFER while the
 * window device is not there yet, or another negative errno.
 */
int vlink_get_window(struct device *dev, const char *prop, const char *name,
		     struct vlink_window *w)
{
	struct device_node *np;
	char base[48];
	int ret;

	np = of_parse_phandle(dev->of_node, prop, 0);
	if (!np)
		return -ENOENT;
	w->pdev = vlink_find_window(np);
	of_node_put(np);
	if (!w->pdev)
		return dev_err_probe(dev, -EPROBE_DEFER,
				     "%s window device not found yet\n", prop);
	snprintf(base, sizeof(base), "%s-base", prop);
	ret = of_property_read_u64(dev->of_node, base, &w->base);
	if (ret) {
		dev_err(dev, "no %s in DT\n", base);
		goto err_put;
	}

	ret = pci_enable_device_mem(w->pdev);
	if (ret)
		goto err_put;
	/*
	 * Not a busy region: the root complex nests the BARs it presents
	 * inside it, the endpoint maps pieces of it.
	 */
	w->res.name = name;
	w->res.start = pci_resource_start(w->pdev, 2);
	w->res.end = pci_resource_end(w->pdev, 2);
	w->res.flags = IORESOURCE_MEM;
	ret = request_resource(&w->pdev->resource[2], &w->res);
	if (ret)
		goto err_disable;
	w->phys = w->res.start;
	w->size = resource_size(&w->res);
	return devm_add_action_or_reset(dev, vlink_put_window, w);

err_disable:
	pci_disable_device(w->pdev);
err_put:
	pci_dev_put(w->pdev);
	return dev_err_probe(dev, ret, "cannot use the %s window\n", prop);
}

static int vlink_request_doorbells(struct vlink *vl)
{
	struct pci_dev *pdev = vl->pdev;
	int i, ret;

	ret = pci_alloc_irq_vectors(pdev, VLINK_NR_VECTORS, VLINK_NR_VECTORS,
				    PCI_IRQ_MSIX);
	if (ret < 0)
		return dev_err_probe(&pdev->dev, ret,
				     "cannot get %d MSI-X doorbell vectors\n",
				     VLINK_NR_VECTORS);
	/* ivshmem delivers MSI-X only while bus mastering is on. */
	pci_set_master(pdev);
	for (i = 0; i < VLINK_NR_VECTORS; i++) {
		ret = devm_request_irq(&pdev->dev, pci_irq_vector(pdev, i),
				       vlink_handlers[i], 0, dev_name(&pdev->dev),
				       vl);
		if (ret)
			return ret;
		vl->doorbells++;
	}
	return 0;
}

/**
 * vlink_stop() - quiesce a link before its role driver tears down
 * @vl: the link
 *
 * Tells the peer we are gone, frees the doorbell handlers and waits for
 * the link and self-test workers: afterwards nothing of the link runs on
 * its own, and the role driver may free what its callbacks use.  Process
 * context; calling it again does nothing.
 */
void vlink_stop(struct vlink *vl)
{
	struct device *dev = &vl->pdev->dev;

	unsigned long flags;
	bool stopped;

	spin_lock_irqsave(&vl->kick_lock, flags);
	stopped = vl->stopped;
	vl->stopped = true;
	spin_unlock_irqrestore(&vl->kick_lock, flags);
	if (stopped)
		return;

	WRITE_ONCE(vl->announced, false);
	vlink_wr32(&vl->self->state, VLINK_STATE_OFF);
	vlink_ring(vl, VLINK_VEC_LINK);
	while (vl->doorbells) {
		vl->doorbells--;
		devm_free_irq(dev, pci_irq_vector(vl->pdev, vl->doorbells), vl);
	}
	cancel_work_sync(&vl->link_work);
	cancel_work_sync(&vl->test_work);
}

static void vlink_going_away(void *data)
{
	struct vlink *vl = data;

	vlink_stop(vl);
	__free_page(vl->scratch);
}

static void vlink_announce(struct vlink *vl)
{
	struct vlink_side *self = vl->self;

	vlink_wr32(&self->state, VLINK_STATE_OFF);
	/* The peer must not see a new boot id while we still look alive. */
	wmb();
	vlink_wr32(&self->boot_id, get_random_u32() | 1);
	vlink_wr64(&self->scratch_phys, page_to_phys(vl->scratch));
	vlink_wr32(&self->scratch_seed, get_random_u32());
	vlink_wr32(&self->pattern_for, 0);
	/* Everything above is in place before we say we are alive. */
	wmb();
	vlink_wr32(&self->state, VLINK_STATE_ALIVE);
	/* Pairs with vlink_peer_alive(). */
	smp_store_release(&vl->announced, true);
	vlink_ring(vl, VLINK_VEC_LINK);
}

/**
 * vlink_probe() - bring up a link device for one role
 * @pdev: the ivshmem-doorbell device the device tree marks as a link
 * @role: VLINK_ROLE_EP or VLINK_ROLE_RC
 * @ops: the role's callbacks
 * @priv: the role driver's data, left in vlink->priv
 *
 * Maps and checks everything; the peer hears of us only at vlink_start().
 * Everything is device-managed: the link goes away with @pdev's driver.
 *
 * Return: the link, or an ERR_PTR() after logging why the device was refused.
 */
struct vlink *vlink_probe(struct pci_dev *pdev, enum vlink_role role,
			  const struct vlink_ops *ops, void *priv)
{
	struct device *dev = &pdev->dev;
	struct vlink *vl;
	int ret;

	vl = devm_kzalloc(dev, sizeof(*vl), GFP_KERNEL);
	if (!vl)
		return ERR_PTR(-ENOMEM);
	vl->pdev = pdev;
	vl->role = role;
	vl->peer = role == VLINK_ROLE_EP ? VLINK_ROLE_RC : VLINK_ROLE_EP;
	vl->ops = ops;
	vl->priv = priv;
	mutex_init(&vl->lock);
	spin_lock_init(&vl->kick_lock);
	mutex_init(&vl->rtt_lock);
	INIT_WORK(&vl->link_work, vlink_link_work);
	INIT_WORK(&vl->test_work, vlink_test_work);
	init_completion(&vl->pong);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ERR_PTR(ret);
	ret = vlink_map_shm(vl);
	if (ret)
		return ERR_PTR(ret);
	ret = vlink_get_window(dev, "vlink,peer-ram", "vlink peer RAM",
			       &vl->win);
	if (ret == -ENOENT)
		dev_err(dev, "no vlink,peer-ram in DT\n");
	if (ret)
		return ERR_PTR(ret);

	vl->scratch = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!vl->scratch)
		return ERR_PTR(-ENOMEM);
	ret = devm_add_action_or_reset(dev, vlink_going_away, vl);
	if (ret)
		return ERR_PTR(ret);
	vlink_rtt_debugfs_init(vl);
	return vl;
}

/**
 * vlink_start() - take the doorbells and announce ourselves to the peer
 * @vl: a link from vlink_probe(), whose role driver is ready for link events
 *
 * Return: 0, or a negative errno when the doorbell vectors cannot be had.
 */
int vlink_start(struct vlink *vl)
{
	int ret;

	ret = vlink_request_doorbells(vl);
	if (ret)
		return ret;

	pci_info(vl->pdev, "%s link: shm %u KiB v%u, peer id %u; peer-RAM window %pR, peer RAM at %#llx\n",
		 vlink_role_name(vl->role), VLINK_SHM_SIZE / 1024,
		 VLINK_VERSION, VLINK_PEER_ID(vl->role), &vl->win.res,
		 vl->win.base);

	vlink_announce(vl);
	vlink_kick(vl);
	return 0;
}
