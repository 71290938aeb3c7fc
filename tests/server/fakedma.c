// SPDX-License-Identifier: GPL-2.0
/*
 * The endpoint's side of the server's DMA engine, for the tests.
 *
 * The RAM files are DIR/ep.ram and DIR/rc.ram, which run.sh creates
 * (sparse) and hands to the server.  Like the rest of the fakes, every
 * helper fails the test at the first surprise, and every wait is bounded
 * and says what it waited for.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fakedma.h"

static const char *const ram_files[VLINK_DMA_NR_RAMS] = {
	[VLINK_DMA_RAM_EP] = "ep.ram",
	[VLINK_DMA_RAM_RC] = "rc.ram",
};

long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void fdma_map(struct fake_dma *f, struct fake_peer *ep)
{
	const char *path, *region;
	struct stat st;
	int i, fd;

	memset(f, 0, sizeof(*f));
	f->ep = ep;
	/* run.sh: the region the server was told (--dma-region). */
	region = getenv("VLINK_TEST_DMA_REGION");
	if (region && (region[0] < '0' ||
		       region[0] >= '0' + VLINK_DMA_REGIONS || region[1]))
		fail("VLINK_TEST_DMA_REGION=%s: not a DMA region", region);
	f->region = VLINK_DMA_REGION(region ? region[0] - '0' : 0);
	if (ep->nr_engine != VLINK_DMA_RINGS)
		fail("ep got %d engine rings, expected %d", ep->nr_engine,
		     VLINK_DMA_RINGS);
	for (i = 0; i < VLINK_DMA_NR_RAMS; i++) {
		path = test_path(ram_files[i]);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0)
			fail("cannot open %s: %s", path, strerror(errno));
		if (i && (size_t)st.st_size != f->size)
			fail("%s is %lld bytes, the ep's RAM %zu", path,
			     (long long)st.st_size, f->size);
		f->size = st.st_size;
		f->ram[i] = mmap(NULL, f->size, PROT_READ | PROT_WRITE,
				 MAP_SHARED, fd, 0);
		if (f->ram[i] == MAP_FAILED)
			fail("cannot map %s: %s", path, strerror(errno));
		close(fd);
	}
	/* Go on from what a previous ep left: a start is always new. */
	for (i = 0; i < VLINK_DMA_RINGS; i++) {
		f->gen[i] = fdma_load(&fdma_ring(f, i)->gen);
		f->abort[i] = fdma_load(&fdma_ring(f, i)->abort);
	}
}

void fdma_unmap(struct fake_dma *f)
{
	int i;

	for (i = 0; i < VLINK_DMA_NR_RAMS; i++)
		if (f->ram[i])
			munmap(f->ram[i], f->size);
	memset(f, 0, sizeof(*f));
}

struct vlink_dma_ring *fdma_ring(struct fake_dma *f, int ring)
{
	return (struct vlink_dma_ring *)(f->ram[VLINK_DMA_RAM_EP] + f->region +
					 ring * VLINK_DMA_RING_STRIDE);
}

struct vlink_dma_xfer *fdma_slot(struct fake_dma *f, int ring, __u32 n)
{
	char *slots = (char *)fdma_ring(f, ring) + VLINK_DMA_SLOTS_OFFSET;

	return (struct vlink_dma_xfer *)slots + n % VLINK_DMA_SLOTS;
}

/* The server's thread runs beside us: ordered accesses, as the driver's. */
__u32 fdma_load(const __le32 *field)
{
	return le32toh(__atomic_load_n(field, __ATOMIC_ACQUIRE));
}

void fdma_store(__le32 *field, __u32 val)
{
	__atomic_store_n(field, htole32(val), __ATOMIC_RELEASE);
}

void fdma_kick(struct fake_dma *f, int ring)
{
	efd_ring(f->ep->engine[ring]);
}

typedef bool (*fdma_cond)(struct fake_dma *f, int ring, __u32 arg);

/* Waits until @cond holds; false on timeout.  Consumes VEC_DMA doorbells. */
static bool fdma_wait_for(struct fake_dma *f, fdma_cond cond, int ring,
			  __u32 arg, int timeout_ms, bool *rung)
{
	int fd = f->ep->own[VLINK_VEC_DMA];
	long long end = mono_ms() + timeout_ms, left;
	__u64 count;

	for (;;) {
		if (cond(f, ring, arg))
			return true;
		left = end - mono_ms();
		if (left <= 0)
			return false;
		/* Short naps: the condition is the judge, not the doorbell. */
		if (efd_wait(fd, left < 20 ? left : 20) &&
		    read(fd, &count, sizeof(count)) == sizeof(count))
			*rung = true;
	}
}

/*
 * Whether the doorbell rang since the last wait, or does soon.  The server
 * rings after the store a wait waits for: when that had happened before
 * the wait began, an earlier wait may have taken the doorbell, and @rung
 * cannot be judged: pass true.
 */
static bool fdma_rung(struct fake_dma *f, bool rung)
{
	__u64 count;
	int fd = f->ep->own[VLINK_VEC_DMA];

	if (!rung && efd_wait(fd, TIMEOUT_MS) &&
	    read(fd, &count, sizeof(count)) == sizeof(count))
		rung = true;
	return rung;
}

static bool acked(struct fake_dma *f, int ring, __u32 gen)
{
	return fdma_load(&fdma_ring(f, ring)->ack_gen) == gen;
}

/* A new generation, empty, acknowledged by the server. */
void fdma_start(struct fake_dma *f, int ring)
{
	struct vlink_dma_ring *r = fdma_ring(f, ring);
	char what[96];
	bool rung = false;
	__u32 old = f->gen[ring];

	do {
		f->gen[ring] = f->gen[ring] * 7 + 0x1000 + ring;
	} while (!f->gen[ring] || f->gen[ring] == old);
	f->head[ring] = 0;
	fdma_store(&r->head, 0);
	fdma_store(&r->abort, f->abort[ring]);
	fdma_store(&r->gen, f->gen[ring]);
	fdma_kick(f, ring);
	snprintf(what, sizeof(what), "ring %d: ack_gen %#x after a start",
		 ring, f->gen[ring]);
	if (!fdma_wait_for(f, acked, ring, f->gen[ring], TIMEOUT_MS, &rung))
		fail("timed out after %d ms waiting for %s (it is %#x)",
		     TIMEOUT_MS, what, fdma_load(&r->ack_gen));
	/* The server rings when it takes a start: it is consumed here. */
	if (!fdma_rung(f, rung))
		fail("%s, but ep's DMA vector did not ring", what);
	if (fdma_load(&r->tail))
		fail("ring %d: tail %u after a start, expected 0", ring,
		     fdma_load(&r->tail));
	if (fdma_load(&r->abort_ack) != f->abort[ring])
		fail("ring %d: abort_ack %u after a start, expected %u", ring,
		     fdma_load(&r->abort_ack), f->abort[ring]);
}

/* Fills the slot at our head and moves the head; no doorbell. */
void fdma_post(struct fake_dma *f, int ring, int src_ram, __u64 src,
	       int dst_ram, __u64 dst, __u32 len)
{
	struct vlink_dma_xfer *x = fdma_slot(f, ring, f->head[ring]);

	x->src = htole64(src);
	x->dst = htole64(dst);
	x->len = htole32(len);
	x->src_ram = src_ram;
	x->dst_ram = dst_ram;
	x->reserved0 = 0;
	x->status = htole32(FDMA_POISON);
	x->reserved1 = 0;
	fdma_store(&fdma_ring(f, ring)->head, ++f->head[ring]);
}

static bool tail_is(struct fake_dma *f, int ring, __u32 tail)
{
	return fdma_load(&fdma_ring(f, ring)->tail) == tail;
}

/* The tail reaches @tail, and VLINK_VEC_DMA rings after. */
void fdma_wait(struct fake_dma *f, int ring, __u32 tail, int timeout_ms,
	       const char *what)
{
	bool rung = tail_is(f, ring, tail);

	if (!fdma_wait_for(f, tail_is, ring, tail, timeout_ms, &rung))
		fail("ring %d: timed out after %d ms waiting for tail %u (%s); it is %u",
		     ring, timeout_ms, tail, what,
		     fdma_load(&fdma_ring(f, ring)->tail));
	if (!fdma_rung(f, rung))
		fail("ring %d: tail %u (%s), but ep's DMA vector did not ring",
		     ring, tail, what);
}

static bool tail_past(struct fake_dma *f, int ring, __u32 n)
{
	return (__s32)(fdma_load(&fdma_ring(f, ring)->tail) - n) >= 0;
}

/* The tail reaches at least @n: the server is at work. */
void fdma_wait_past(struct fake_dma *f, int ring, __u32 n, int timeout_ms,
		    const char *what)
{
	bool rung = false;

	if (!fdma_wait_for(f, tail_past, ring, n, timeout_ms, &rung))
		fail("ring %d: timed out after %d ms waiting for tail %u or more (%s); it is %u",
		     ring, timeout_ms, n, what,
		     fdma_load(&fdma_ring(f, ring)->tail));
}

/* Forgets the doorbells rung so far. */
void fdma_drain(struct fake_dma *f)
{
	__u64 count;

	if (read(f->ep->own[VLINK_VEC_DMA], &count, sizeof(count)) < 0 &&
	    errno != EAGAIN)
		fail("cannot read ep's DMA vector: %s", strerror(errno));
}

static bool abort_acked(struct fake_dma *f, int ring, __u32 abort)
{
	return fdma_load(&fdma_ring(f, ring)->abort_ack) == abort;
}

/* abort_ack reaches our abort count, and VLINK_VEC_DMA rings after. */
void fdma_wait_abort_ack(struct fake_dma *f, int ring, int timeout_ms,
			 const char *what)
{
	bool rung = abort_acked(f, ring, f->abort[ring]);

	if (!fdma_wait_for(f, abort_acked, ring, f->abort[ring], timeout_ms,
			   &rung))
		fail("ring %d: timed out after %d ms waiting for abort_ack %u (%s); it is %u",
		     ring, timeout_ms, f->abort[ring], what,
		     fdma_load(&fdma_ring(f, ring)->abort_ack));
	if (!fdma_rung(f, rung))
		fail("ring %d: abort_ack %u (%s), but ep's DMA vector did not ring",
		     ring, f->abort[ring], what);
}

__u32 fdma_status(struct fake_dma *f, int ring, __u32 n)
{
	return le32toh(__atomic_load_n(&fdma_slot(f, ring, n)->status,
				       __ATOMIC_RELAXED));
}

void fdma_expect_status(struct fake_dma *f, int ring, __u32 n, __u32 want,
			const char *what)
{
	__u32 got = fdma_status(f, ring, n);

	if (got != want)
		fail("ring %d descriptor %u (%s): status %#x, expected %u", ring,
		     n, what, got, want);
}

/* A pattern that tells offsets and seeds apart. */
static char pattern(size_t i, unsigned int seed)
{
	return (char)((i >> 9) ^ (i * 31) ^ (seed * 77) ^ (i >> 17));
}

void fill(char *mem, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		mem[i] = pattern(i, seed);
}

/* @mem holds bytes @from to @from + @len of what fill() wrote. */
void check_filled(const char *mem, size_t from, size_t len,
		  unsigned int seed, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (mem[i] != pattern(from + i, seed))
			fail("%s: byte %#zx of %#zx is %#x, expected %#x", what,
			     i, len, (unsigned char)mem[i],
			     (unsigned char)pattern(from + i, seed));
}

void check_bytes(const char *mem, size_t len, int byte, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)mem[i] != byte)
			fail("%s: byte %#zx of %#zx is %#x, expected %#x", what,
			     i, len, (unsigned char)mem[i], byte);
}
