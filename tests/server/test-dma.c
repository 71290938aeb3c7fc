// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the server's DMA engine: run.sh starts the server with
 * --ep-ram DIR/ep.ram --rc-ram DIR/rc.ram (sparse files it creates), and a
 * fake EP maps both files as the guests would, posts descriptors into the
 * rings in its RAM, rings their doorbells and checks what the server did:
 * the statuses, the tail, the data, and that nothing else changed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cases.h"
#include "fakedma.h"

#define MIB		0x100000ULL
#define BG		0x5c	/* where no copy may write */
#define GUARD		4096	/* bytes checked on each side of a copy */
/* The time slice qemu/server/dma.c's ring threads ask for, in ns. */
#define RING_SLICE_NS	100000
/* A batch of 64 MiB copies through disk-backed files on a busy machine. */
#define BIG_TIMEOUT_MS	20000
#define BIG		VLINK_DMA_MAX_LEN

#define EP		VLINK_DMA_RAM_EP
#define RC		VLINK_DMA_RAM_RC
#define REGION_END	VLINK_DMA_REGIONS_END

struct xfer {
	int src_ram;
	__u64 src;
	int dst_ram;
	__u64 dst;
	__u32 len;
	__u32 status;
	const char *what;
};

static const int rc_only[] = { VLINK_ROLE_RC };
static const int ep_only[] = { VLINK_ROLE_EP };
static const int ep_rc[] = { VLINK_ROLE_EP, VLINK_ROLE_RC };
static const int rc_mon[] = { VLINK_ROLE_RC, VLINK_ROLE_MONITOR };

static char *at(struct fake_dma *f, int ram, __u64 off)
{
	return f->ram[ram] + off;
}

/* Background over [off - GUARD, off + len + GUARD), within the RAM. */
static void clear_around(struct fake_dma *f, int ram, __u64 off, __u64 len)
{
	__u64 lo = off > GUARD ? off - GUARD : 0;
	__u64 hi = off + len + GUARD;

	if (hi > f->size)
		hi = f->size;
	memset(at(f, ram, lo), BG, hi - lo);
}

/* The guards clear_around() laid are intact. */
static void check_around(struct fake_dma *f, int ram, __u64 off, __u64 len,
			 const char *what)
{
	__u64 lo = off > GUARD ? off - GUARD : 0;
	__u64 hi = off + len + GUARD;
	char msg[160];

	if (hi > f->size)
		hi = f->size;
	snprintf(msg, sizeof(msg), "%s: bytes before the destination", what);
	check_bytes(at(f, ram, lo), off - lo, BG, msg);
	snprintf(msg, sizeof(msg), "%s: bytes after the destination", what);
	check_bytes(at(f, ram, off + len), hi - off - len, BG, msg);
}

/* The lines of the server's log that hold @needle. */
static int log_count(const char *needle)
{
	const char *path = test_path("server.log");
	char line[1024];
	FILE *log;
	int n = 0;

	log = fopen(path, "r");
	if (!log)
		fail("cannot open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), log))
		if (strstr(line, needle))
			n++;
	fclose(log);
	return n;
}

/* The server's log is a file: looked at every 10 ms until @timeout_ms. */
static void wait_log(const char *needle, int timeout_ms, const char *what)
{
	const struct timespec step = { .tv_nsec = 10000000L };
	long long end = mono_ms() + timeout_ms;

	while (!log_count(needle)) {
		if (mono_ms() > end)
			fail("timed out after %d ms waiting for %s ('%s' in the server log)",
			     timeout_ms, what, needle);
		nanosleep(&step, NULL);
	}
}

static void check_log_count(const char *needle, int want)
{
	int got = log_count(needle);

	if (got != want)
		fail("the server logged %d line(s) with '%s', expected %d", got,
		     needle, want);
}

static void post(struct fake_dma *f, int ring, const struct xfer *x)
{
	fdma_post(f, ring, x->src_ram, x->src, x->dst_ram, x->dst, x->len);
}

/* Posts, rings, waits: one descriptor, whose status must be @status. */
static void run_one(struct fake_dma *f, int ring, const struct xfer *x)
{
	__u32 n = f->head[ring];

	post(f, ring, x);
	fdma_kick(f, ring);
	fdma_wait(f, ring, n + 1, TIMEOUT_MS, x->what);
	fdma_expect_status(f, ring, n, x->status, x->what);
}

/* The engine's ring doorbells: to the EP only, in order, kept for life. */
static void case_dma_handshake(void)
{
	struct fake_peer ep, rc, mon;
	struct fake_dma f;
	int r;

	/* An RC that comes first hears of nothing but itself... */
	fake_init(&rc, VLINK_ROLE_RC);
	fake_handshake(&rc, NULL, 0);
	fake_init(&ep, VLINK_ROLE_EP);
	fake_handshake(&ep, rc_only, ARRAY_SIZE(rc_only));
	if (ep.nr_engine != VLINK_DMA_RINGS)
		fail("ep got %d engine rings, expected %d", ep.nr_engine,
		     VLINK_DMA_RINGS);
	/* ... and of the EP's vectors alone when it arrives (fake checks). */
	fake_expect_join(&rc, VLINK_ROLE_EP);
	efd_expect_rung(rc.own[VLINK_VEC_LINK],
			"rc's LINK vector after ep connected");
	fake_init(&mon, VLINK_ROLE_MONITOR);
	fake_handshake(&mon, ep_rc, ARRAY_SIZE(ep_rc));
	fake_expect_join(&ep, VLINK_ROLE_MONITOR);
	fake_expect_join(&rc, VLINK_ROLE_MONITOR);

	/* The engine's doorbells ring no guest, started ring or not. */
	for (r = 0; r < VLINK_DMA_RINGS; r++)
		efd_ring(ep.engine[r]);
	fake_expect_quiet(&ep);
	fake_expect_quiet(&rc);
	fake_expect_quiet(&mon);
	check_quiet(&ep);
	check_quiet(&rc);
	check_quiet(&mon);

	/* A returning EP gets them again, and they still work. */
	fake_close(&ep);
	fake_expect_left(&rc, VLINK_ROLE_EP);
	fake_expect_left(&mon, VLINK_ROLE_EP);
	fake_init(&ep, VLINK_ROLE_EP);
	fake_handshake(&ep, rc_mon, ARRAY_SIZE(rc_mon));
	efd_expect_rung(rc.own[VLINK_VEC_LINK],
			"rc's LINK vector after ep came back");
	efd_expect_rung(mon.own[VLINK_VEC_LINK],
			"monitor's LINK vector after ep came back");
	fdma_map(&f, &ep);
	fdma_start(&f, VLINK_DMA_RINGS - 1);
	fdma_start(&f, 0);
	fake_expect_quiet(&rc);
	fake_expect_quiet(&mon);
	fdma_unmap(&f);
	fake_close(&mon);
	fake_close(&rc);
	fake_close(&ep);
}

/* The thread of @pid that the server named vlink-dma-@ring. */
static pid_t ring_thread(pid_t pid, int ring)
{
	char want[16], dir[32], path[320], comm[32];
	struct dirent *e;
	pid_t tid = 0;
	FILE *f;
	DIR *d;

	snprintf(want, sizeof(want), "vlink-dma-%d\n", ring);
	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	if (!d)
		fail("cannot list %s: %s", dir, strerror(errno));
	while (!tid && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid,
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, want))
			tid = atoi(e->d_name);
		fclose(f);
	}
	closedir(d);
	if (!tid)
		fail("no thread of the server is named vlink-dma-%d", ring);
	return tid;
}

static bool in_poll(long nr)
{
#ifdef SYS_poll
	if (nr == SYS_poll)
		return true;
#endif
	return nr == SYS_ppoll;
}

/*
 * Waits until the thread of @ring sleeps in poll(), past its last look
 * at the head: from then on only its doorbell makes it serve.  A thread
 * that took a doorbell may rightly serve what is posted while it runs.
 */
static void wait_ring_parked(int ring)
{
	long long end = mono_ms() + TIMEOUT_MS;
	const struct timespec nap = { .tv_nsec = 1000000 };
	pid_t pid = read_server_pid(), tid = ring_thread(pid, ring);
	char path[64], now[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	for (;;) {
		f = fopen(path, "r");
		if (!f)
			fail("cannot open %s: %s", path, strerror(errno));
		if (!fgets(now, sizeof(now), f))
			now[0] = 0;
		fclose(f);
		/* "running", or the number of the call it sleeps in. */
		if (now[0] >= '0' && now[0] <= '9' && in_poll(atol(now)))
			return;
		if (mono_ms() > end)
			fail("timed out after %d ms waiting for ring %d's %s (%s: %s)",
			     TIMEOUT_MS, ring, "thread to sleep in poll", path,
			     now);
		nanosleep(&nap, NULL);
	}
}

/* Each doorbell serves its own ring, and only when rung. */
static void case_dma_rings(void)
{
	struct fake_peer ep, rc;
	struct fake_dma f;
	char what[64];
	__u64 src, dst;
	__u32 len;
	int r, s;

	connect_ep_rc(&ep, &rc);
	fdma_map(&f, &ep);
	for (r = 0; r < VLINK_DMA_RINGS; r++)
		fdma_start(&f, r);
	for (r = 0; r < VLINK_DMA_RINGS; r++)
		wait_ring_parked(r);
	for (r = 0; r < VLINK_DMA_RINGS; r++) {
		src = r * MIB + 5;
		dst = r * MIB + 17;
		len = 4096 + r;
		fill(at(&f, EP, src), len, r + 1);
		clear_around(&f, RC, dst, len);
		fdma_post(&f, r, EP, src, RC, dst, len);
	}
	fake_expect_quiet(&ep);
	for (r = 0; r < VLINK_DMA_RINGS; r++)
		if (fdma_load(&fdma_ring(&f, r)->tail))
			fail("ring %d moved its tail before its doorbell rang",
			     r);
	efd_expect_quiet(ep.own[VLINK_VEC_DMA],
			 "ep's DMA vector before any doorbell");

	for (r = 0; r < VLINK_DMA_RINGS; r++) {
		snprintf(what, sizeof(what), "ring %d's doorbell", r);
		fdma_kick(&f, r);
		fdma_wait(&f, r, 1, TIMEOUT_MS, what);
		fdma_expect_status(&f, r, 0, VLINK_DMA_DONE, what);
		for (s = r + 1; s < VLINK_DMA_RINGS; s++)
			if (fdma_load(&fdma_ring(&f, s)->tail))
				fail("ring %d moved its tail when ring %d's doorbell rang",
				     s, r);
		dst = r * MIB + 17;
		len = 4096 + r;
		check_filled(at(&f, RC, dst), 0, len, r + 1, what);
		check_around(&f, RC, dst, len, what);
	}
	fdma_unmap(&f);
	fake_close(&rc);
	fake_close(&ep);
}

/* The data of a copy between distinct areas, and its guards. */
static void check_copy(struct fake_dma *f, const struct xfer *x,
		       unsigned int seed)
{
	check_filled(at(f, x->dst_ram, x->dst), 0, x->len, seed, x->what);
	check_around(f, x->dst_ram, x->dst, x->len, x->what);
}

/* Small copies by the hundred: the slots wrap, a full ring is served. */
static void copy_many(struct fake_dma *f, int ring)
{
	static const unsigned int batch[] = { 100, VLINK_DMA_SLOTS, 72 };
	const __u64 src = 0x6800000, dst = 0x6900000, len = 64;
	unsigned int b, i, k = 0, total = 0;
	__u32 first;
	char what[96];

	for (b = 0; b < ARRAY_SIZE(batch); b++)
		total += batch[b];
	fill(at(f, EP, src), total * len, 99);
	clear_around(f, RC, dst, total * len);
	for (b = 0; b < ARRAY_SIZE(batch); b++) {
		first = f->head[ring];
		for (i = 0; i < batch[b]; i++, k++)
			fdma_post(f, ring, EP, src + k * len, RC,
				  dst + k * len, len);
		snprintf(what, sizeof(what), "a batch of %u small copies",
			 batch[b]);
		fdma_kick(f, ring);
		fdma_wait(f, ring, first + batch[b], TIMEOUT_MS, what);
		for (i = 0; i < batch[b]; i++)
			fdma_expect_status(f, ring, first + i, VLINK_DMA_DONE,
					   what);
	}
	check_filled(at(f, RC, dst), 0, total * len, 99, "the small copies");
	check_around(f, RC, dst, total * len, "the small copies");
}

/* Copies each way, chunked, overlapping, up to the ends of the RAMs. */
static void case_dma_copy(void)
{
	const int ring = VLINK_DMA_RINGS - 1;
	const __u64 fwd = 0x4000000, back = 0x5000000, gap = MIB + 3;
	const __u32 olen = 3 * MIB;
	struct fake_peer ep, rc;
	struct fake_dma f;
	unsigned int i, n;

	connect_ep_rc(&ep, &rc);
	fdma_map(&f, &ep);
	fdma_start(&f, ring);
	{
		const struct xfer x[] = {
			{ EP, 0x10001, RC, 0x200003, 1, 0, "1 byte ep->rc" },
			{ EP, 0x400005, RC, 0x800007, 3 * MIB + 5, 0,
			  "3 MiB + 5 ep->rc" },
			{ RC, 0x1000009, EP, 0x140000b, 0x10000, 0,
			  "64 KiB rc->ep" },
			{ EP, 0x2000000, EP, 0x2800001, 2 * MIB + 3, 0,
			  "2 MiB + 3 ep->ep" },
			{ RC, 0x3000000, RC, 0x3400000, MIB, 0,
			  "1 MiB rc->rc" },
			{ EP, 0x8000000, RC, f.size - BIG, BIG, 0,
			  "the longest, to the end of rc's RAM" },
			{ EP, f.size - 4096, RC, 0x6000000, 4096, 0,
			  "from the end of ep's RAM" },
		};

		n = ARRAY_SIZE(x);
		for (i = 0; i < n; i++)
			clear_around(&f, x[i].dst_ram, x[i].dst, x[i].len);
		for (i = 0; i < n; i++)
			fill(at(&f, x[i].src_ram, x[i].src), x[i].len, i + 1);
		/* Within one RAM, overlapping, the destination after... */
		clear_around(&f, EP, fwd, gap + olen);
		fill(at(&f, EP, fwd), olen, 50);
		/* ... and before the source. */
		clear_around(&f, EP, back, gap + olen);
		fill(at(&f, EP, back + gap), olen, 51);

		for (i = 0; i < n; i++)
			post(&f, ring, &x[i]);
		fdma_post(&f, ring, EP, fwd, EP, fwd + gap, olen);
		fdma_post(&f, ring, EP, back + gap, EP, back, olen);
		fdma_kick(&f, ring);
		fdma_wait(&f, ring, n + 2, BIG_TIMEOUT_MS, "a batch of copies");
		for (i = 0; i < n + 2; i++)
			fdma_expect_status(&f, ring, i, VLINK_DMA_DONE,
					   i < n ? x[i].what : "overlapping");
		for (i = 0; i < n; i++)
			check_copy(&f, &x[i], i + 1);
	}
	/* memmove(): what the source held, whatever the order of chunks. */
	check_filled(at(&f, EP, fwd + gap), 0, olen, 50,
		     "overlapping copy to a higher offset");
	check_filled(at(&f, EP, fwd), 0, gap, 50,
		     "overlapping copy to a higher offset: the source's head");
	check_around(&f, EP, fwd, gap + olen,
		     "overlapping copy to a higher offset");
	check_filled(at(&f, EP, back), 0, olen, 51,
		     "overlapping copy to a lower offset");
	check_filled(at(&f, EP, back + olen), olen - gap, gap, 51,
		     "overlapping copy to a lower offset: the source's tail");
	check_around(&f, EP, back, gap + olen,
		     "overlapping copy to a lower offset");

	copy_many(&f, ring);
	fdma_unmap(&f);
	fake_close(&rc);
	fake_close(&ep);
}

/* Where the bad descriptors' destinations are, or would be. */
static void clear_targets(struct fake_dma *f)
{
	memset(at(f, RC, 0), BG, 0x100000);
	memset(at(f, RC, 0x200000), BG, 0x100000);
	memset(at(f, RC, f->size - MIB), BG, MIB);
	memset(at(f, EP, VLINK_DMA_REGION_OFFSET - 2 * MIB), BG, 2 * MIB);
	memset(at(f, EP, REGION_END), BG, MIB);
}

/* Only the good ones among the bad wrote there: 16 bytes each. */
static void check_targets(struct fake_dma *f)
{
	check_bytes(at(f, RC, 0), 0x100000, BG, "rc's RAM at 0");
	check_bytes(at(f, RC, 0x200000), 0x100000, BG,
		    "rc's RAM at 0x200000");
	check_bytes(at(f, RC, f->size - MIB), MIB - 16, BG,
		    "rc's RAM before its last 16 bytes");
	check_filled(at(f, RC, f->size - 16), 0, 16, 1,
		     "rc's RAM: its last 16 bytes");
	check_bytes(at(f, EP, VLINK_DMA_REGION_OFFSET - 2 * MIB), 2 * MIB - 16,
		    BG, "ep's RAM before the DMA region");
	check_filled(at(f, EP, VLINK_DMA_REGION_OFFSET - 16), 0, 16, 2,
		     "ep's RAM: 16 bytes right before the DMA region");
	check_filled(at(f, EP, REGION_END), 0, 16, 2,
		     "ep's RAM: 16 bytes right after the DMA region");
	check_bytes(at(f, EP, REGION_END + 16), MIB - 16, BG,
		    "ep's RAM after the DMA region");
}

/* The whole region as it was, but for what the server may write. */
static void check_region(struct fake_dma *f, const char *before, int ring,
			 __u32 first, const struct xfer *x, unsigned int n)
{
	char *want = malloc(VLINK_DMA_REGION_SIZE);
	const char *now = at(f, EP, VLINK_DMA_REGION_OFFSET);
	struct vlink_dma_ring *r;
	struct vlink_dma_xfer *slot;
	unsigned int i;
	size_t off;

	if (!want)
		fail("out of memory");
	memcpy(want, before, VLINK_DMA_REGION_SIZE);
	r = (struct vlink_dma_ring *)(want + ring * VLINK_DMA_RING_STRIDE);
	r->tail = htole32(first + n);
	slot = (struct vlink_dma_xfer *)((char *)r + VLINK_DMA_SLOTS_OFFSET);
	for (i = 0; i < n; i++)
		slot[(first + i) % VLINK_DMA_SLOTS].status =
			htole32(x[i].status);
	for (off = 0; off < VLINK_DMA_REGION_SIZE; off++)
		if (want[off] != now[off])
			fail("DMA region byte %#zx is %#x, expected %#x", off,
			     (unsigned char)now[off], (unsigned char)want[off]);
	free(want);
}

/*
 * Refused descriptors: the right status each, nothing written anywhere,
 * the server logs a few and goes on serving.
 */
static void case_dma_bad(void)
{
	const int ring = 3;
	const __u64 end = REGION_END, region = VLINK_DMA_REGION_OFFSET;
	const __u64 s1 = 0x100000;	/* the sources: ep's seed 1, rc's 2 */
	struct fake_peer ep, rc;
	struct fake_dma f;
	char *before, needle[32];
	unsigned int i, n;
	__u32 first;

	connect_ep_rc(&ep, &rc);
	fdma_map(&f, &ep);
	fdma_start(&f, ring);
	{
		const __u64 size = f.size;
		const struct xfer x[] = {
			{ EP, size - 10, RC, 0x200000, 11, VLINK_DMA_BAD_RANGE,
			  "source past the end" },
			{ EP, s1, RC, size - 10, 11, VLINK_DMA_BAD_RANGE,
			  "destination past the end" },
			{ EP, size, RC, 0x200000, 1, VLINK_DMA_BAD_RANGE,
			  "source at the end" },
			{ EP, ~0ULL - 3, RC, 0x200000, 8, VLINK_DMA_BAD_RANGE,
			  "source offset wrapping around 2^64" },
			{ EP, s1, RC, ~0ULL - 3, 8, VLINK_DMA_BAD_RANGE,
			  "destination offset wrapping around 2^64" },
			{ EP, s1, RC, 1ULL << 63, 16, VLINK_DMA_BAD_RANGE,
			  "destination at 2^63" },
			{ 2, s1, RC, 0x200000, 16, VLINK_DMA_BAD_DESC,
			  "source RAM 2" },
			{ EP, s1, 255, 0x200000, 16, VLINK_DMA_BAD_DESC,
			  "destination RAM 255" },
			{ EP, s1, RC, 0x200000, 0, VLINK_DMA_BAD_DESC,
			  "length 0" },
			{ EP, s1, RC, 0x200000, BIG + 1, VLINK_DMA_BAD_DESC,
			  "one byte longer than VLINK_DMA_MAX_LEN" },
			{ EP, s1, RC, 0x200000, 0xffffffff, VLINK_DMA_BAD_DESC,
			  "length 2^32 - 1" },
			{ RC, s1, EP, region + ring * VLINK_DMA_RING_STRIDE, 16,
			  VLINK_DMA_BAD_RANGE, "onto its own ring" },
			{ RC, s1, EP, region - 8, 16, VLINK_DMA_BAD_RANGE,
			  "ending in the DMA region" },
			{ RC, s1, EP, end - 1, 16, VLINK_DMA_BAD_RANGE,
			  "starting in the DMA region's last byte" },
			{ RC, s1, EP, region - MIB, 2 * MIB +
			  VLINK_DMA_REGION_SIZE, VLINK_DMA_BAD_RANGE,
			  "across the DMA region" },
			{ RC, s1, EP, region - 16, 16, VLINK_DMA_DONE,
			  "right before the DMA region" },
			{ RC, s1, EP, end, 16, VLINK_DMA_DONE,
			  "right after the DMA region" },
			{ EP, s1, RC, size - 16, 16, VLINK_DMA_DONE,
			  "to the last byte of rc's RAM" },
		};

		n = ARRAY_SIZE(x);
		clear_targets(&f);
		fill(at(&f, EP, s1), 0x10000, 1);
		fill(at(&f, RC, s1), 0x10000, 2);
		first = f.head[ring];
		for (i = 0; i < n; i++)
			post(&f, ring, &x[i]);
		before = malloc(VLINK_DMA_REGION_SIZE);
		if (!before)
			fail("out of memory");
		memcpy(before, at(&f, EP, region), VLINK_DMA_REGION_SIZE);
		fdma_kick(&f, ring);
		fdma_wait(&f, ring, first + n, TIMEOUT_MS, "bad descriptors");
		for (i = 0; i < n; i++)
			fdma_expect_status(&f, ring, first + i, x[i].status,
					   x[i].what);
		check_region(&f, before, ring, first, x, n);
		free(before);
	}
	check_targets(&f);
	fill(at(&f, EP, s1), 0x10000, 1);
	fill(at(&f, RC, s1), 0x10000, 2);

	/* A few lines, then one saying the rest are not logged. */
	snprintf(needle, sizeof(needle), "dma: ring %d slot", ring);
	n = log_count(needle);
	if (n < 1 || n > 10)
		fail("the server logged %u refusals of ring %d, expected 1 to 10",
		     n, ring);
	snprintf(needle, sizeof(needle), "ring %d: further refusals", ring);
	check_log_count(needle, 1);

	/* Still serving. */
	{
		const struct xfer good = { EP, s1, RC, 0x200000, 0x1000,
					   VLINK_DMA_DONE,
					   "a good descriptor after the bad" };

		run_one(&f, ring, &good);
		check_filled(at(&f, RC, 0x200000), 0, 0x1000, 1, good.what);
	}
	fdma_unmap(&f);
	fake_close(&rc);
	fake_close(&ep);
}

/* A head more than a ring ahead: ignored until the ring restarts. */
static void case_dma_overrun(void)
{
	const int ring = 0;
	const struct xfer good = { EP, 0x100000, RC, 0x100000, 0x1000,
				   VLINK_DMA_DONE, "after a restart" };
	struct vlink_dma_ring *r;
	struct fake_peer ep, rc;
	struct fake_dma f;
	char needle[96];
	__u32 n;

	connect_ep_rc(&ep, &rc);
	fdma_map(&f, &ep);
	r = fdma_ring(&f, ring);
	fdma_start(&f, ring);
	for (n = 0; n < VLINK_DMA_SLOTS; n++)
		fdma_slot(&f, ring, n)->status = htole32(FDMA_POISON);
	fill(at(&f, EP, 0x100000), 0x1000, 7);
	memset(at(&f, RC, 0x100000), BG, 0x1000);

	fdma_store(&r->head, VLINK_DMA_SLOTS + 1);
	fdma_kick(&f, ring);
	fake_expect_quiet(&ep);
	fdma_kick(&f, ring);
	/* Not even an abort: the ring is ignored as a whole. */
	fdma_store(&r->abort, ++f.abort[ring]);
	fdma_kick(&f, ring);
	fake_expect_quiet(&ep);
	if (fdma_load(&r->tail) || fdma_load(&r->abort_ack) == f.abort[ring])
		fail("ring %d with head %u: tail %u abort_ack %u, expected both untouched",
		     ring, VLINK_DMA_SLOTS + 1, fdma_load(&r->tail),
		     fdma_load(&r->abort_ack));
	efd_expect_quiet(ep.own[VLINK_VEC_DMA],
			 "ep's DMA vector after a head too far ahead");
	for (n = 0; n < VLINK_DMA_SLOTS; n++)
		fdma_expect_status(&f, ring, n, FDMA_POISON,
				   "a head too far ahead");
	check_bytes(at(&f, RC, 0x100000), 0x1000, BG,
		    "rc's RAM after a head too far ahead");
	snprintf(needle, sizeof(needle),
		 "ring %d: head %u is %u ahead of tail 0: ignored", ring,
		 VLINK_DMA_SLOTS + 1, VLINK_DMA_SLOTS + 1);
	check_log_count(needle, 1);

	/* A restart works, and so does a head exactly a ring ahead. */
	fdma_start(&f, ring);
	run_one(&f, ring, &good);
	check_filled(at(&f, RC, 0x100000), 0, 0x1000, 7, good.what);
	for (n = 0; n < VLINK_DMA_SLOTS; n++)
		post(&f, ring, &good);
	fdma_kick(&f, ring);
	fdma_wait(&f, ring, VLINK_DMA_SLOTS + 1, TIMEOUT_MS,
		  "a head exactly a ring ahead");

	/* A head behind the tail is as far ahead as can be. */
	fdma_store(&r->head, 0);
	fdma_kick(&f, ring);
	fake_expect_quiet(&ep);
	if (fdma_load(&r->tail) != VLINK_DMA_SLOTS + 1)
		fail("ring %d: tail %u after the head went back to 0, expected %u",
		     ring, fdma_load(&r->tail), VLINK_DMA_SLOTS + 1);
	snprintf(needle, sizeof(needle), "ring %d: head 0 is %u ahead of tail %u",
		 ring, 0U - (VLINK_DMA_SLOTS + 1), VLINK_DMA_SLOTS + 1);
	check_log_count(needle, 1);
	fdma_start(&f, ring);
	run_one(&f, ring, &good);
	fdma_unmap(&f);
	fake_close(&rc);
	fake_close(&ep);
}

/* Tries at catching a copy in the middle (the engine's chunks: 1 MiB). */
#define MID_TRIES	5

/* The 16 bytes at @off of a copy from @src to @dst have arrived. */
static bool arrived(const char *src, const char *dst, __u64 off)
{
	return !memcmp(src + off, dst + off, 16);
}

/* What ends a copy under way: an abort, a link down. */
typedef void (*stop_fn)(struct fake_dma *f, int ring, int ctl);

/*
 * Catches a 64 MiB copy in the middle and ends it with @stop.  Returns
 * true when half of it was still to come after @stop: then the engine,
 * which looks between chunks, must end it early with @status and never
 * write its last chunk.  False when the copy outran us: try again.
 */
static bool stop_mid_copy(struct fake_dma *f, int ring, stop_fn stop,
			  int ctl, __u32 status, const char *what)
{
	const __u64 off = 0x4000000;
	const char *src = at(f, EP, off);
	char *dst = at(f, RC, off);
	long long end;
	bool caught;
	__u32 i;

	fdma_start(f, ring);
	memset(dst, BG, BIG);
	for (i = 0; i < 4; i++)
		fdma_post(f, ring, EP, off, RC, off, BIG);
	fdma_kick(f, ring);
	end = mono_ms() + BIG_TIMEOUT_MS;
	while (!arrived(src, dst, 0))
		if (mono_ms() > end)
			fail("timed out after %d ms waiting for a 64 MiB copy to begin (%s)",
			     BIG_TIMEOUT_MS, what);
	stop(f, ring, ctl);
	/* What we see from here on happened after @stop took effect. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	caught = !arrived(src, dst, BIG / 2);
	fdma_wait(f, ring, 4, BIG_TIMEOUT_MS, what);
	if (!caught)
		return false;
	for (i = 0; i < 4; i++)
		fdma_expect_status(f, ring, i, status, what);
	if (arrived(src, dst, BIG - 16))
		fail("%s: the copy under way went on to its last chunk", what);
	return true;
}

static void stop_abort(struct fake_dma *f, int ring, int ctl)
{
	(void)ctl;
	fdma_store(&fdma_ring(f, ring)->abort, ++f->abort[ring]);
	fdma_kick(f, ring);
}

/* The answer comes once the server has taken rc off the link. */
static void stop_down_rc(struct fake_dma *f, int ring, int ctl)
{
	(void)f;
	(void)ring;
	control_ok(ctl, "down rc 60000");
}

static void catch_mid_copy(struct fake_dma *f, int ring, stop_fn stop,
			   int ctl, __u32 status, const char *what)
{
	int i;

	fill(at(f, EP, 0x4000000), BIG, 60);
	for (i = 0; i < MID_TRIES; i++) {
		if (stop_mid_copy(f, ring, stop, ctl, status, what))
			return;
		if (stop == stop_down_rc)
			control_ok(ctl, "up rc");
	}
	fail("%s: %d times the 64 MiB copy was half done before we could stop it",
	     what, MID_TRIES);
}

/* Statuses @a for the first ones, then @b for at least one, to @n. */
static void check_cut(struct fake_dma *f, int ring, __u32 n, __u32 a,
		      __u32 b, const char *what)
{
	__u32 i = 0, st;

	while (i < n && fdma_status(f, ring, i) == a)
		i++;
	if (i == n)
		fail("%s: all %u descriptors have status %u, expected some %u",
		     what, n, a, b);
	for (; i < n; i++) {
		st = fdma_status(f, ring, i);
		if (st != b)
			fail("%s: descriptor %u has status %#x, expected %u then %u",
			     what, i, st, a, b);
	}
}

/* A guest off the link: descriptors naming its RAM are refused. */
static void case_dma_no_peer(void)
{
	const int ring = 2;
	const __u64 src = 0x100000, dst = 0x200000, len = 0x1000;
	struct fake_peer ep, rc;
	struct fake_dma f;
	unsigned int i;
	int ctl;

	fake_init(&ep, VLINK_ROLE_EP);
	fake_handshake(&ep, NULL, 0);
	fdma_map(&f, &ep);
	fdma_start(&f, ring);
	{
		const struct xfer x[] = {
			{ EP, src, RC, dst, len, VLINK_DMA_NO_PEER,
			  "ep->rc with no rc" },
			{ RC, src, EP, dst, len, VLINK_DMA_NO_PEER,
			  "rc->ep with no rc" },
			{ RC, src, RC, dst + MIB, len, VLINK_DMA_NO_PEER,
			  "rc->rc with no rc" },
			{ EP, src, EP, dst + MIB, len, VLINK_DMA_DONE,
			  "ep->ep with no rc" },
		};

		memset(at(&f, RC, dst), BG, 2 * MIB);
		memset(at(&f, EP, dst), BG, MIB);
		fill(at(&f, EP, src), len, 3);
		fill(at(&f, RC, src), len, 4);
		for (i = 0; i < ARRAY_SIZE(x); i++)
			run_one(&f, ring, &x[i]);
		check_bytes(at(&f, RC, dst), 2 * MIB, BG,
			    "rc's RAM while rc is away");
		check_bytes(at(&f, EP, dst), MIB, BG,
			    "ep's RAM after rc->ep with no rc");
		check_filled(at(&f, EP, dst + MIB), 0, len, 3,
			     "ep->ep with no rc");
	}
	if (log_count("rc not on the link") < 1)
		fail("no 'rc not on the link' in the server log");

	{
		const struct xfer to_rc = { EP, src, RC, dst, len,
					    VLINK_DMA_DONE, "ep->rc" };
		const struct xfer refused = { EP, src, RC, dst + 2 * len, len,
					      VLINK_DMA_NO_PEER,
					      "ep->rc while rc is down" };
		const struct xfer ep_down = { EP, src, EP, dst + 2 * len, len,
					      VLINK_DMA_NO_PEER,
					      "ep->ep while ep is down" };

		fake_init(&rc, VLINK_ROLE_RC);
		fake_handshake(&rc, ep_only, ARRAY_SIZE(ep_only));
		fake_expect_join(&ep, VLINK_ROLE_RC);
		run_one(&f, ring, &to_rc);
		check_filled(at(&f, RC, dst), 0, len, 3, to_rc.what);

		/* A forced link down counts as away. */
		ctl = control_connect();
		control_ok(ctl, "down rc 60000");
		run_one(&f, ring, &refused);
		check_bytes(at(&f, RC, dst + 2 * len), len, BG, refused.what);
		control_ok(ctl, "up rc");
		control_ok(ctl, "down ep 60000");
		run_one(&f, ring, &ep_down);
		check_bytes(at(&f, EP, dst + 2 * len), len, BG, ep_down.what);
		control_ok(ctl, "up ep");
		run_one(&f, ring, &to_rc);

		/* A link down in the middle of a copy ends it at a chunk. */
		catch_mid_copy(&f, ring, stop_down_rc, ctl, VLINK_DMA_NO_PEER,
			       "rc taken down during a 64 MiB copy");
		control_ok(ctl, "up rc");
		close(ctl);
	}

	/* An RC that leaves in the middle: the copies stop at a chunk. */
	fdma_start(&f, ring);
	for (i = 0; i < 16; i++)
		fdma_post(&f, ring, EP, 0x8000000, RC, 0x8000000, BIG);
	fdma_kick(&f, ring);
	fdma_wait_past(&f, ring, 1, BIG_TIMEOUT_MS, "the first 64 MiB copy");
	fake_close(&rc);
	fdma_wait(&f, ring, 16, BIG_TIMEOUT_MS,
		  "64 MiB copies after rc left");
	check_cut(&f, ring, 16, VLINK_DMA_DONE, VLINK_DMA_NO_PEER,
		  "64 MiB copies, rc leaving");
	fdma_unmap(&f);
	fake_close(&ep);
}

/*
 * dma-stall holds one descriptor back, then copies it; a departure ends
 * the stall at once with NO_PEER: the timeout of the wait is far shorter
 * than the stall.
 */
static void case_dma_stall(void)
{
	const int ring = 3;
	const struct xfer held = { EP, 0x100000, RC, 0x100000, 0x1000,
				   VLINK_DMA_DONE, "a copy held 300 ms" };
	const struct xfer cut = { EP, 0x100000, RC, 0x200000, 0x1000,
				  VLINK_DMA_NO_PEER,
				  "a copy held 60 s when rc leaves" };
	struct fake_peer ep, rc;
	struct fake_dma f;
	long long start;
	int ctl;

	connect_ep_rc(&ep, &rc);
	fdma_map(&f, &ep);
	fdma_start(&f, ring);
	ctl = control_connect();

	fill(at(&f, EP, held.src), held.len, 9);
	control_ok(ctl, "dma-stall 300");
	start = mono_ms();
	run_one(&f, ring, &held);
	if (mono_ms() - start < 300)
		fail("%s: over after %lld ms", held.what, mono_ms() - start);
	check_filled(at(&f, RC, held.dst), 0, held.len, 9, held.what);
	check_log_count("(dma-stall)", 1);

	memset(at(&f, RC, cut.dst), BG, cut.len);
	control_ok(ctl, "dma-stall 60000");
	post(&f, ring, &cut);
	fdma_kick(&f, ring);
	wait_log("stalling 60000 ms", TIMEOUT_MS, "the engine to stall");
	fake_close(&rc);
	fdma_wait(&f, ring, f.head[ring], TIMEOUT_MS, cut.what);
	fdma_expect_status(&f, ring, f.head[ring] - 1, cut.status, cut.what);
	check_bytes(at(&f, RC, cut.dst), cut.len, BG, cut.what);
	close(ctl);
	fdma_unmap(&f);
	fake_close(&ep);
}

/* An abort ends the copy under way and completes the rest, aborted. */
static void case_dma_abort(void)
{
	const int ring = 1;
	const struct xfer good = { EP, 0x100000, RC, 0x100000, 0x1000,
				   VLINK_DMA_DONE, "a copy after an abort" };
	struct vlink_dma_ring *r;
	struct fake_peer ep, rc;
	struct fake_dma f;
	unsigned int i;

	connect_ep_rc(&ep, &rc);
	fdma_map(&f, &ep);
	r = fdma_ring(&f, ring);
	catch_mid_copy(&f, ring, stop_abort, -1, VLINK_DMA_ABORTED,
		       "an abort during a 64 MiB copy");
	fdma_wait_abort_ack(&f, ring, TIMEOUT_MS,
			    "an abort during a 64 MiB copy");

	/* A full ring of them: all over, aborted, by the ack. */
	fdma_start(&f, ring);
	for (i = 0; i < VLINK_DMA_SLOTS; i++)
		fdma_post(&f, ring, EP, 0x4000000, RC, 0x4000000, BIG);
	fdma_kick(&f, ring);
	fdma_wait_past(&f, ring, 1, BIG_TIMEOUT_MS, "the first 64 MiB copy");
	fdma_store(&r->abort, ++f.abort[ring]);
	fdma_kick(&f, ring);
	fdma_wait_abort_ack(&f, ring, TIMEOUT_MS,
			    "an abort during 64 MiB copies");
	/* Everything posted before the abort is over by its ack. */
	if (fdma_load(&r->tail) != VLINK_DMA_SLOTS)
		fail("ring %d: tail %u when abort_ack came, expected %u", ring,
		     fdma_load(&r->tail), VLINK_DMA_SLOTS);
	check_cut(&f, ring, VLINK_DMA_SLOTS, VLINK_DMA_DONE, VLINK_DMA_ABORTED,
		  "64 MiB copies, aborted");
	if (log_count("descriptor(s) aborted") < 1)
		fail("no 'descriptor(s) aborted' in the server log");

	/* With nothing posted, an abort is still acknowledged. */
	fdma_drain(&f);
	fdma_store(&r->abort, ++f.abort[ring]);
	fdma_kick(&f, ring);
	fdma_wait_abort_ack(&f, ring, TIMEOUT_MS, "an abort of an idle ring");

	fill(at(&f, EP, 0x100000), 0x1000, 8);
	run_one(&f, ring, &good);
	check_filled(at(&f, RC, 0x100000), 0, 0x1000, 8, good.what);

	/* A restart in the middle of a copy: the ring starts over. */
	for (i = 0; i < 4; i++)
		fdma_post(&f, ring, EP, 0x4000000, RC, 0x4000000, BIG);
	fdma_kick(&f, ring);
	fdma_wait_past(&f, ring, VLINK_DMA_SLOTS + 2, BIG_TIMEOUT_MS,
		       "the first 64 MiB copy after the abort");
	fdma_start(&f, ring);
	run_one(&f, ring, &good);
	fdma_unmap(&f);
	fake_close(&rc);
	fake_close(&ep);
}

/* SIGTERM while every ring's thread copies: a prompt, clean exit. */
static void case_dma_sigterm(void)
{
	struct fake_peer ep, rc;
	struct fake_dma f;
	int r, i;

	connect_ep_rc(&ep, &rc);
	fdma_map(&f, &ep);
	for (r = 0; r < VLINK_DMA_RINGS; r++) {
		fdma_start(&f, r);
		for (i = 0; i < 8; i++)
			fdma_post(&f, r, EP, 0x4000000, RC, 0x4000000, BIG);
		fdma_kick(&f, r);
	}
	fdma_wait_past(&f, 0, 1, BIG_TIMEOUT_MS, "ring 0's first 64 MiB copy");
	if (kill(read_server_pid(), SIGTERM) < 0)
		fail("cannot signal the server: %s", strerror(errno));
	fake_expect_eof(&ep, "EOF from the exiting server (rings at work)");
	fake_expect_eof(&rc, "EOF from the exiting server (rings at work)");
	fdma_unmap(&f);
	fake_close(&rc);
	fake_close(&ep);
}

static void log_stats(const char *want, const char *what)
{
	if (kill(read_server_pid(), SIGUSR1) < 0)
		fail("cannot signal the server: %s", strerror(errno));
	wait_log(want, TIMEOUT_MS, what);
}

/* SIGUSR1 logs what each ring copied whole: refusals are not copies. */
static void case_dma_stats(void)
{
	static const __u32 len[] = { 1, 0x10001, MIB };
	const int ring = 2;
	struct fake_peer ep, rc;
	struct fake_dma f;
	unsigned long long sum = 0;
	char want[96];
	unsigned int i;

	connect_ep_rc(&ep, &rc);
	fdma_map(&f, &ep);
	log_stats("dma stats: all rings: 0 copies, 0 bytes, 0 us",
		  "the stats of an engine that copied nothing");
	check_log_count("dma stats: ring ", 0);

	fdma_start(&f, ring);
	for (i = 0; i < ARRAY_SIZE(len); i++) {
		fdma_post(&f, ring, EP, (i + 1) * 2 * MIB, RC, (i + 1) * 2 * MIB,
			  len[i]);
		sum += len[i];
	}
	fdma_post(&f, ring, EP, f.size - 10, RC, 0x200000, 11);
	fdma_kick(&f, ring);
	fdma_wait(&f, ring, ARRAY_SIZE(len) + 1, TIMEOUT_MS,
		  "three copies and a refusal");
	for (i = 0; i < ARRAY_SIZE(len); i++)
		fdma_expect_status(&f, ring, i, VLINK_DMA_DONE, "a copy");
	fdma_expect_status(&f, ring, i, VLINK_DMA_BAD_RANGE, "the refusal");

	snprintf(want, sizeof(want), "dma stats: ring %d: %zu copies, %llu bytes, ",
		 ring, ARRAY_SIZE(len), sum);
	log_stats(want, "the ring's stats after its copies");
	snprintf(want, sizeof(want), "dma stats: all rings: %zu copies, %llu bytes, ",
		 ARRAY_SIZE(len), sum);
	wait_log(want, TIMEOUT_MS, "the sum after the ring's line");
	check_log_count("dma stats: ring ", 1);
	fdma_unmap(&f);
	fake_close(&rc);
	fake_close(&ep);
}

/* se.slice from a thread's /proc sched file, or -1 if it has none. */
static long long thread_slice(pid_t pid, pid_t tid)
{
	char path[64], line[128];
	long long slice = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (slice < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "se.slice : %lld", &slice) != 1)
			slice = -1;
	fclose(f);
	return slice;
}

/* Whether this kernel honours a fair thread's own slice (6.12 on). */
static bool custom_slices(void)
{
	struct utsname u;
	int major, minor;

	return !uname(&u) && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 12));
}

/*
 * Every ring thread runs with the short slice it asked for, so that its
 * doorbell's wakeup preempts a vCPU thread.  Only a kernel that has
 * custom slices and shows them (/proc sched, CONFIG_SCHED_DEBUG) can
 * tell; on others the case checks that the server started its rings.
 */
static void case_dma_slice(void)
{
	pid_t pid = read_server_pid();
	bool check = custom_slices() && thread_slice(pid, pid) >= 0;
	long long slice;
	int r;

	for (r = 0; r < VLINK_DMA_RINGS; r++) {
		wait_ring_parked(r);
		slice = thread_slice(pid, ring_thread(pid, r));
		if (check && slice != RING_SLICE_NS)
			fail("ring %d's thread runs with a %lld ns slice, not %d",
			     r, slice, RING_SLICE_NS);
	}
	if (!check)
		printf("dma-slice: %s; only the threads were checked\n",
		       "this kernel does not show custom slices");
}

const struct test_case dma_cases[] = {
	{ "dma-handshake", case_dma_handshake },
	{ "dma-rings", case_dma_rings },
	{ "dma-copy", case_dma_copy },
	{ "dma-bad", case_dma_bad },
	{ "dma-overrun", case_dma_overrun },
	{ "dma-no-peer", case_dma_no_peer },
	{ "dma-abort", case_dma_abort },
	{ "dma-stall", case_dma_stall },
	{ "dma-stats", case_dma_stats },
	{ "dma-slice", case_dma_slice },
	{ "dma-sigterm", case_dma_sigterm },
};

const size_t nr_dma_cases = ARRAY_SIZE(dma_cases);
