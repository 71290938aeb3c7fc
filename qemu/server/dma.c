// SPDX-License-Identifier: GPL-2.0
/*
 * vlink-server: the link's DMA engine, copying between the guests' RAM.
 *
 * The rig gives us both guests' RAM files; we map them for our whole life
 * and copy between them as the endpoint asks in the rings of
 * include/uapi/linux/vlink.h, which live in the endpoint's own RAM.  One
 * thread per ring, so that a long copy on one ring does not hold up the
 * others, nor the main loop: the doorbells and the link's state keep
 * being served while a thread copies.
 *
 * Everything in the rings is written by a guest that may be buggy or
 * hostile: a descriptor is copied out of its slot once and only the copy
 * is judged and used, and the endpoint's head is believed only when it is
 * at most a ring ahead of our tail.  The threads share nothing with the
 * main thread but the flags they read atomically: who is on the link
 * (shm_on_link()), the eventfd to ring for completions, and the stop
 * flag.  The files must keep their size while we run: the rig creates
 * them before starting us and removes them after we are gone.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "dma.h"
#include "log.h"

/* A copy checks for an abort or a departure this often. */
#define DMA_CHUNK		0x100000
/* A stalled descriptor looks for aborts and departures this often. */
#define DMA_STALL_STEP_MS	10
/* The host memcpy figure: more than a cache holds, this many times. */
#define DMA_BENCH_SIZE		0x2000000
#define DMA_BENCH_ROUNDS	8
/* The time slice a ring thread asks for (EEVDF's custom slice), in ns. */
#define DMA_SLICE_NS		100000
/* Lines a ring may log per generation: the endpoint decides how many. */
#define DMA_LOG_LIMIT		10

/* Besides enum vlink_dma_status: the descriptor gets no status at all. */
#define DMA_RESTART		(-1)	/* the ring was restarted under us */
#define DMA_STOP		(-2)	/* the server is exiting */

/*
 * sched_setattr()'s argument as far as its first version goes (its
 * header clashes with glibc's struct sched_param).
 */
struct dma_sched_attr {
	__u32 size;
	__u32 policy;
	__u64 flags;
	__s32 nice;
	__u32 priority;
	__u64 runtime;
	__u64 deadline;
	__u64 period;
};

/* A descriptor as we copied it out of its slot, in host byte order. */
struct dma_desc {
	__u64 src;
	__u64 dst;
	__u32 len;
	unsigned int src_ram;
	unsigned int dst_ram;
};

static const char *ram_name(unsigned int ram)
{
	switch (ram) {
	case VLINK_DMA_RAM_EP:
		return "ep";
	case VLINK_DMA_RAM_RC:
		return "rc";
	default:
		return "?";
	}
}

/* The role whose QEMU must be on the link for its RAM to be touched. */
static int ram_role(unsigned int ram)
{
	return ram == VLINK_DMA_RAM_EP ? VLINK_ROLE_EP : VLINK_ROLE_RC;
}

void dma_init(struct vlink_dma *dma)
{
	int r;

	memset(dma, 0, sizeof(*dma));
	dma->stop_fd = -1;
	dma->done_fd = -1;
	for (r = 0; r < VLINK_DMA_RINGS; r++) {
		dma->ring[r].dma = dma;
		dma->ring[r].index = r;
		dma->ring[r].doorbell = -1;
	}
}

/* Opens and maps one RAM file; 0, or -1 after saying why. */
static int ram_map(struct vlink_dma *dma, int ram, const char *path,
		   struct stat *st)
{
	void *base;
	int fd;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		vlog("%s RAM %s: cannot open: %s", ram_name(ram), path,
		     strerror(errno));
		return -1;
	}
	if (fstat(fd, st) < 0) {
		vlog("%s RAM %s: cannot stat: %s", ram_name(ram), path,
		     strerror(errno));
		goto err_close;
	}
	if (!S_ISREG(st->st_mode)) {
		vlog("%s RAM %s: not a regular file", ram_name(ram), path);
		goto err_close;
	}
	/* A wrong size is a rig and a server that disagree: refuse it. */
	if ((unsigned long long)st->st_size != dma->ram_size) {
		vlog("%s RAM %s: %lld bytes, expected %u MiB (%zu bytes, --ram-mb %u)",
		     ram_name(ram), path, (long long)st->st_size, dma->ram_mb,
		     dma->ram_size, dma->ram_mb);
		goto err_close;
	}
	/*
	 * Populated now, not page by page in the middle of transfers: a lone
	 * 1 MiB pcitest DMA took 40-50 us less (256 faults fewer).
	 */
	base = mmap(NULL, dma->ram_size, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, 0);
	if (base == MAP_FAILED) {
		vlog("%s RAM %s: cannot map %u MiB: %s", ram_name(ram), path,
		     dma->ram_mb, strerror(errno));
		goto err_close;
	}
	/* The mapping keeps the file; the descriptor is no longer needed. */
	close(fd);
	dma->ram[ram].path = path;
	dma->ram[ram].base = base;
	return 0;

err_close:
	close(fd);
	return -1;
}

/**
 * dma_map() - check and map both guests' RAM files
 * @dma: the engine, after dma_init()
 * @ep_ram: the endpoint guest's RAM file
 * @rc_ram: the root complex guest's RAM file
 * @ram_mb: the size both must have, in MiB
 * @region: which of the endpoint's DMA regions holds this link's rings,
 *	    below VLINK_DMA_REGIONS
 *
 * Return: 0, or -1 after logging why (nothing stays mapped).
 */
int dma_map(struct vlink_dma *dma, const char *ep_ram, const char *rc_ram,
	    unsigned int ram_mb, unsigned int region)
{
	struct stat st[VLINK_DMA_NR_RAMS];

	dma->ram_mb = ram_mb;
	dma->ram_size = (size_t)ram_mb << 20;
	/* A 32-bit server cannot even count that much. */
	if (ram_mb > DMA_RAM_MB_MAX || dma->ram_size >> 20 != ram_mb) {
		vlog("--ram-mb %u: more than this server can map", ram_mb);
		return -1;
	}
	if (dma->ram_size <= VLINK_DMA_REGIONS_END) {
		vlog("--ram-mb %u: too small: the DMA regions end %#x bytes into ep's RAM",
		     ram_mb, VLINK_DMA_REGIONS_END);
		return -1;
	}
	dma->region = region;
	if (ram_map(dma, VLINK_DMA_RAM_EP, ep_ram, &st[VLINK_DMA_RAM_EP]) ||
	    ram_map(dma, VLINK_DMA_RAM_RC, rc_ram, &st[VLINK_DMA_RAM_RC]))
		goto err;
	if (st[0].st_dev == st[1].st_dev && st[0].st_ino == st[1].st_ino) {
		vlog("--ep-ram %s and --rc-ram %s are the same file", ep_ram,
		     rc_ram);
		goto err;
	}
	return 0;

err:
	dma_close(dma);
	return -1;
}

/* Ring accesses: the endpoint's driver runs on another CPU all along. */
static __u32 ring_load(const __le32 *field)
{
	return le32toh(__atomic_load_n(field, __ATOMIC_ACQUIRE));
}

static void ring_store(__le32 *field, __u32 val)
{
	__atomic_store_n(field, htole32(val), __ATOMIC_RELEASE);
}

static bool dma_stopping(struct vlink_dma *dma)
{
	return __atomic_load_n(&dma->stopping, __ATOMIC_ACQUIRE);
}

/* The endpoint's VLINK_VEC_DMA; an eventfd only fails when it overflows. */
static void dma_ring_done(struct vlink_dma *dma)
{
	int fd = __atomic_load_n(&dma->done_fd, __ATOMIC_ACQUIRE);
	const __u64 one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		vlog("dma: cannot ring the endpoint: %s", strerror(errno));
}

/*
 * The endpoint decides how much goes wrong, so what it causes is logged
 * at most DMA_LOG_LIMIT times per ring and generation.
 */
static bool ring_may_log(struct dma_ring *r)
{
	if (r->logged < DMA_LOG_LIMIT) {
		r->logged++;
		return true;
	}
	if (r->logged == DMA_LOG_LIMIT) {
		r->logged++;
		vlog("dma: ring %d: further refusals not logged until the ring restarts",
		     r->index);
	}
	return false;
}

/* A new generation: start over at slot 0, under the abort count of now. */
static void ring_adopt(struct dma_ring *r, __u32 gen)
{
	r->gen = gen;
	r->tail = 0;
	r->abort = ring_load(&r->hw->abort);
	r->overrun = false;
	r->logged = 0;
	ring_store(&r->hw->tail, 0);
	/* Nothing of the old generation is under way any more. */
	ring_store(&r->hw->abort_ack, r->abort);
	ring_store(&r->hw->ack_gen, gen);
	/* The endpoint may sleep until its restart is acknowledged. */
	dma_ring_done(r->dma);
}

/* Status first, then the tail that publishes it, then the doorbell. */
static void ring_complete(struct dma_ring *r, int status)
{
	struct vlink_dma_xfer *x = &r->slot[r->tail % VLINK_DMA_SLOTS];

	__atomic_store_n(&x->status, htole32(status), __ATOMIC_RELAXED);
	r->tail++;
	ring_store(&r->hw->tail, r->tail);
	dma_ring_done(r->dma);
}

/* Completes everything posted up to @head as aborted, then acks @abort. */
static void ring_abort(struct dma_ring *r, __u32 abort, __u32 head)
{
	__u32 n = head - r->tail;

	while (r->tail != head) {
		if (dma_stopping(r->dma))
			return;
		/* A restart takes over: its slots are not ours to write. */
		if (ring_load(&r->hw->gen) != r->gen)
			return;
		ring_complete(r, VLINK_DMA_ABORTED);
	}
	/* Logged before the ack: the endpoint may look right after it. */
	if (n && ring_may_log(r))
		vlog("dma: ring %d: abort %u: %u descriptor(s) aborted",
		     r->index, abort, n);
	r->abort = abort;
	ring_store(&r->hw->abort_ack, abort);
	dma_ring_done(r->dma);
}

static bool in_ram(struct vlink_dma *dma, __u64 off, __u32 len)
{
	return off <= dma->ram_size && len <= dma->ram_size - off;
}

/*
 * Why @d cannot be done, with the status to give it in *status; NULL when
 * it can.  @d is our own copy: the slot may change meanwhile.
 */
static const char *dma_judge(struct vlink_dma *dma, const struct dma_desc *d,
			     int *status)
{
	*status = VLINK_DMA_BAD_DESC;
	if (d->src_ram >= VLINK_DMA_NR_RAMS)
		return "no such source RAM";
	if (d->dst_ram >= VLINK_DMA_NR_RAMS)
		return "no such destination RAM";
	if (!d->len)
		return "zero length";
	if (d->len > VLINK_DMA_MAX_LEN)
		return "longer than VLINK_DMA_MAX_LEN";
	*status = VLINK_DMA_BAD_RANGE;
	if (!in_ram(dma, d->src, d->len))
		return "source outside its RAM";
	if (!in_ram(dma, d->dst, d->len))
		return "destination outside its RAM";
	/* The rings, ours or another link's: no descriptor may rewrite them. */
	if (d->dst_ram == VLINK_DMA_RAM_EP &&
	    d->dst < VLINK_DMA_REGIONS_END &&
	    d->dst + d->len > VLINK_DMA_REGION_OFFSET)
		return "destination in the DMA regions";
	*status = VLINK_DMA_NO_PEER;
	if (!shm_on_link(dma->shm, ram_role(d->src_ram)))
		return d->src_ram == VLINK_DMA_RAM_EP ?
		       "ep not on the link" : "rc not on the link";
	if (!shm_on_link(dma->shm, ram_role(d->dst_ram)))
		return d->dst_ram == VLINK_DMA_RAM_EP ?
		       "ep not on the link" : "rc not on the link";
	return NULL;
}

/* Before each chunk: whether to go on (VLINK_DMA_DONE) or why not. */
static int dma_may_go_on(struct dma_ring *r, const struct dma_desc *d)
{
	struct vlink_dma *dma = r->dma;

	if (dma_stopping(dma))
		return DMA_STOP;
	if (ring_load(&r->hw->gen) != r->gen)
		return DMA_RESTART;
	if (ring_load(&r->hw->abort) != r->abort)
		return VLINK_DMA_ABORTED;
	if (!shm_on_link(dma->shm, ram_role(d->src_ram)) ||
	    !shm_on_link(dma->shm, ram_role(d->dst_ram)))
		return VLINK_DMA_NO_PEER;
	return VLINK_DMA_DONE;
}

/*
 * memmove() a chunk at a time.  Within one RAM the areas may overlap:
 * when the destination starts inside the source, the chunks go from the
 * end so that none reads what an earlier one wrote.
 */
static int dma_copy(struct dma_ring *r, const struct dma_desc *d)
{
	char *src = r->dma->ram[d->src_ram].base + d->src;
	char *dst = r->dma->ram[d->dst_ram].base + d->dst;
	bool backward = d->src_ram == d->dst_ram && d->src < d->dst &&
			d->dst - d->src < d->len;
	size_t done = 0, n, off;
	int ret;

	while (done < d->len) {
		ret = dma_may_go_on(r, d);
		if (ret != VLINK_DMA_DONE)
			return ret;
		n = d->len - done < DMA_CHUNK ? d->len - done : DMA_CHUNK;
		off = backward ? d->len - done - n : done;
		memmove(dst + off, src + off, n);
		done += n;
	}
	return VLINK_DMA_DONE;
}

static unsigned long long mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* Copied and timed; the counters are for dma_log_stats(). */
static int ring_copy(struct dma_ring *r, const struct dma_desc *d)
{
	unsigned long long ns = mono_ns();
	int status = dma_copy(r, d);

	if (status != VLINK_DMA_DONE)
		return status;
	ns = mono_ns() - ns;
	__atomic_store_n(&r->copies, r->copies + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&r->bytes, r->bytes + d->len, __ATOMIC_RELAXED);
	__atomic_store_n(&r->copy_ns, r->copy_ns + ns, __ATOMIC_RELAXED);
	if (ns > r->longest_ns)
		__atomic_store_n(&r->longest_ns, ns, __ATOMIC_RELAXED);
	return status;
}

static void ring_log_refusal(struct dma_ring *r, const struct dma_desc *d,
			     const char *why, int status)
{
	if (!ring_may_log(r))
		return;
	vlog("dma: ring %d slot %u: %s: src %s(%u) %#llx dst %s(%u) %#llx len %#x: status %d",
	     r->index, r->tail % VLINK_DMA_SLOTS, why, ram_name(d->src_ram),
	     d->src_ram, (unsigned long long)d->src, ram_name(d->dst_ram),
	     d->dst_ram, (unsigned long long)d->dst, d->len, status);
}

/*
 * The test hook of the control socket's dma-stall: hold a judged
 * descriptor back, as a long transfer would, looking between steps for
 * what ends a copy.
 */
static int dma_stall(struct dma_ring *r, const struct dma_desc *d)
{
	unsigned int ms = __atomic_exchange_n(&r->dma->stall_ms, 0,
					      __ATOMIC_ACQ_REL);
	const struct timespec step = {
		.tv_nsec = DMA_STALL_STEP_MS * 1000000L,
	};
	unsigned int waited;
	int ret = VLINK_DMA_DONE;

	if (!ms)
		return ret;
	vlog("dma: ring %d: stalling %u ms before a copy of %u bytes to %s %#llx (dma-stall)",
	     r->index, ms, d->len, ram_name(d->dst_ram),
	     (unsigned long long)d->dst);
	for (waited = 0; waited < ms; waited += DMA_STALL_STEP_MS) {
		ret = dma_may_go_on(r, d);
		if (ret != VLINK_DMA_DONE)
			break;
		nanosleep(&step, NULL);
	}
	vlog("dma: ring %d: stall over after %u ms", r->index, waited);
	return ret;
}

/* The descriptor at our tail: a status, or DMA_RESTART / DMA_STOP. */
static int ring_do_one(struct dma_ring *r)
{
	struct vlink_dma_xfer x;
	struct dma_desc d;
	const char *why;
	int status;

	memcpy(&x, &r->slot[r->tail % VLINK_DMA_SLOTS], sizeof(x));
	d = (struct dma_desc){
		.src = le64toh(x.src),
		.dst = le64toh(x.dst),
		.len = le32toh(x.len),
		.src_ram = x.src_ram,
		.dst_ram = x.dst_ram,
	};
	why = dma_judge(r->dma, &d, &status);
	if (why) {
		ring_log_refusal(r, &d, why, status);
		return status;
	}
	status = dma_stall(r, &d);
	if (status == VLINK_DMA_DONE)
		status = ring_copy(r, &d);
	if (status == VLINK_DMA_NO_PEER)
		ring_log_refusal(r, &d, "peer left the link during the copy",
				 status);
	return status;
}

/* Everything the ring holds now, or until an abort, restart or stop. */
static void ring_serve(struct dma_ring *r)
{
	__u32 gen, head, pending, abort;
	int status;

	while (!dma_stopping(r->dma)) {
		gen = ring_load(&r->hw->gen);
		if (!gen) {
			/* Stopped: whatever comes next is a new start. */
			r->gen = 0;
			return;
		}
		if (gen != r->gen)
			ring_adopt(r, gen);
		if (r->overrun)
			return;
		head = ring_load(&r->hw->head);
		pending = head - r->tail;
		if (pending > VLINK_DMA_SLOTS) {
			r->overrun = true;
			vlog("dma: ring %d: head %u is %u ahead of tail %u: %s",
			     r->index, head, pending, r->tail,
			     "ignored until the endpoint restarts the ring");
			return;
		}
		abort = ring_load(&r->hw->abort);
		if (abort != r->abort) {
			ring_abort(r, abort, head);
			continue;
		}
		if (!pending)
			return;
		status = ring_do_one(r);
		/* Aborted: the next round completes it with the others. */
		if (status < 0 || status == VLINK_DMA_ABORTED)
			continue;
		/* Restarted meanwhile: the slot is the new generation's. */
		if (ring_load(&r->hw->gen) != r->gen)
			continue;
		ring_complete(r, status);
	}
}

/*
 * Hardware does not wait for a CPU: a ring woken while a vCPU thread has
 * the host CPU must not sit out the rest of that thread's slice.  With
 * EEVDF's default slice, a vCPU that polls for our completion held a
 * woken ring off its CPU for about 0.6 ms, longer than a 4 MiB copy
 * (perf sched timehist, make bench).  A short slice of our own lets the
 * wakeup preempt it.  Kernels without custom slices (before 6.12)
 * ignore the request; that costs only the speed.
 */
static void ring_thread_slice(struct dma_ring *r)
{
	struct dma_sched_attr attr;

	if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0) < 0)
		return;
	attr.size = sizeof(attr);
	attr.flags = 0;
	attr.runtime = DMA_SLICE_NS;
	if (syscall(SYS_sched_setattr, 0, &attr, 0) < 0 && r->index == 0)
		vlog("dma: cannot ask for a %d us time slice: %s",
		     DMA_SLICE_NS / 1000, strerror(errno));
}

static void *ring_thread(void *arg)
{
	struct dma_ring *r = arg;
	struct pollfd pfd[2] = {
		{ .fd = r->doorbell, .events = POLLIN },
		{ .fd = r->dma->stop_fd, .events = POLLIN },
	};
	__u64 count;

	ring_thread_slice(r);
	for (;;) {
		ring_serve(r);
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			vlog("dma: ring %d: poll: %s; the ring is dead",
			     r->index, strerror(errno));
			break;
		}
		if (pfd[1].revents)
			break;
		/* Drained before serving: a later doorbell wakes us again. */
		if (read(r->doorbell, &count, sizeof(count)) < 0 &&
		    errno != EAGAIN)
			vlog("dma: ring %d: cannot read its doorbell: %s",
			     r->index, strerror(errno));
	}
	return NULL;
}

/**
 * dma_stall_next() - hold the next descriptor back before its copy
 * @dma: the engine
 * @ms: how long; an abort, a restart or a departure ends it early
 *
 * For tests of what a guest does when the other side dies mid-transfer.
 */
void dma_stall_next(struct vlink_dma *dma, unsigned int ms)
{
	__atomic_store_n(&dma->stall_ms, ms, __ATOMIC_RELEASE);
}

/**
 * dma_log_stats() - log what each ring has copied so far, and the sum
 * @dma: the engine
 *
 * Descriptors copied whole only (a refused or aborted one has no copy to
 * time).  For make bench: the time a copy takes in the engine, beside the
 * time the endpoint sees its transfer take.
 */
void dma_log_stats(struct vlink_dma *dma)
{
	unsigned long long copies = 0, bytes = 0, ns = 0, c, b, t;
	struct dma_ring *r;
	int i;

	for (i = 0; i < VLINK_DMA_RINGS; i++) {
		r = &dma->ring[i];
		c = __atomic_load_n(&r->copies, __ATOMIC_RELAXED);
		b = __atomic_load_n(&r->bytes, __ATOMIC_RELAXED);
		t = __atomic_load_n(&r->copy_ns, __ATOMIC_RELAXED);
		if (!c)
			continue;
		vlog("dma stats: ring %d: %llu copies, %llu bytes, %llu us, longest %llu us",
		     i, c, b, t / 1000,
		     __atomic_load_n(&r->longest_ns, __ATOMIC_RELAXED) / 1000);
		copies += c;
		bytes += b;
		ns += t;
	}
	vlog("dma stats: all rings: %llu copies, %llu bytes, %llu us", copies,
	     bytes, ns / 1000);
}

/* Our own memcpy rate: the ceiling of every copy the engine makes. */
static void dma_bench(void)
{
	char *a = malloc(DMA_BENCH_SIZE), *b = malloc(DMA_BENCH_SIZE);
	unsigned long long ns, best = 0;
	int i;

	if (a && b) {
		memset(a, 0x5a, DMA_BENCH_SIZE);
		memset(b, 0xa5, DMA_BENCH_SIZE);
		for (i = 0; i < DMA_BENCH_ROUNDS; i++) {
			ns = mono_ns();
			memcpy(i & 1 ? a : b, i & 1 ? b : a, DMA_BENCH_SIZE);
			ns = mono_ns() - ns;
			if (ns && (!best || ns < best))
				best = ns;
		}
		if (best)
			vlog("dma engine: host memcpy %d bytes: %.1f MB/s",
			     DMA_BENCH_SIZE, DMA_BENCH_SIZE * 1e3 / best);
	}
	free(a);
	free(b);
}

/**
 * dma_start() - make the doorbells and start one thread per ring
 * @dma: the engine, mapped by dma_map()
 * @shm: the link's shared memory, whose shm_on_link() the threads read
 *
 * Call with the signals of main.c blocked: the threads inherit the mask,
 * and the main thread alone must take the signals.
 *
 * Return: 0, or -1 after logging why; dma_stop() ends what started.
 */
int dma_start(struct vlink_dma *dma, const struct vlink_shm *shm)
{
	char *region = dma->ram[VLINK_DMA_RAM_EP].base +
		       VLINK_DMA_REGION(dma->region);
	char name[16];
	struct dma_ring *r;
	int i, err;

	dma->shm = shm;
	dma->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (dma->stop_fd < 0) {
		vlog("dma: eventfd: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < VLINK_DMA_RINGS; i++) {
		r = &dma->ring[i];
		r->hw = (struct vlink_dma_ring *)(region +
						  i * VLINK_DMA_RING_STRIDE);
		r->slot = (struct vlink_dma_xfer *)((char *)r->hw +
						    VLINK_DMA_SLOTS_OFFSET);
		r->doorbell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (r->doorbell < 0) {
			vlog("dma: ring %d: eventfd: %s", i, strerror(errno));
			return -1;
		}
	}
	for (i = 0; i < VLINK_DMA_RINGS; i++) {
		r = &dma->ring[i];
		err = pthread_create(&r->thread, NULL, ring_thread, r);
		if (err) {
			vlog("dma: ring %d: cannot start its thread: %s", i,
			     strerror(err));
			return -1;
		}
		r->running = true;
		/* top -H, perf and the tests tell the rings apart by name. */
		snprintf(name, sizeof(name), "vlink-dma-%d", i);
		pthread_setname_np(r->thread, name);
	}
	vlog("dma engine: %d rings, ep RAM %s (%u MiB), rc RAM %s, region %u at %#x",
	     VLINK_DMA_RINGS, dma->ram[VLINK_DMA_RAM_EP].path, dma->ram_mb,
	     dma->ram[VLINK_DMA_RAM_RC].path, dma->region,
	     VLINK_DMA_REGION(dma->region));
	dma_bench();
	return 0;
}

/* Ends the threads, even in the middle of a copy; idempotent. */
void dma_stop(struct vlink_dma *dma)
{
	const __u64 one = 1;
	int i, err;

	__atomic_store_n(&dma->stopping, 1, __ATOMIC_RELEASE);
	if (dma->stop_fd >= 0 &&
	    write(dma->stop_fd, &one, sizeof(one)) != sizeof(one))
		vlog("dma: cannot stop the threads: %s", strerror(errno));
	for (i = 0; i < VLINK_DMA_RINGS; i++) {
		if (!dma->ring[i].running)
			continue;
		err = pthread_join(dma->ring[i].thread, NULL);
		if (err)
			vlog("dma: ring %d: cannot join its thread: %s", i,
			     strerror(err));
		dma->ring[i].running = false;
	}
}

/* After dma_stop(): the doorbells, the stop eventfd, the mappings. */
void dma_close(struct vlink_dma *dma)
{
	int i;

	for (i = 0; i < VLINK_DMA_RINGS; i++) {
		if (dma->ring[i].doorbell >= 0)
			close(dma->ring[i].doorbell);
		dma->ring[i].doorbell = -1;
	}
	if (dma->stop_fd >= 0)
		close(dma->stop_fd);
	dma->stop_fd = -1;
	for (i = 0; i < VLINK_DMA_NR_RAMS; i++) {
		if (dma->ram[i].base)
			munmap(dma->ram[i].base, dma->ram_size);
		dma->ram[i].base = NULL;
	}
}

/* The eventfd the endpoint rings for @ring (ivshmem id and vector). */
int dma_doorbell(const struct vlink_dma *dma, int ring)
{
	return dma->ring[ring].doorbell;
}

/* The endpoint's VLINK_VEC_DMA eventfd, once it has one (kept for life). */
void dma_set_done_fd(struct vlink_dma *dma, int fd)
{
	__atomic_store_n(&dma->done_fd, fd, __ATOMIC_RELEASE);
}
