// SPDX-License-Identifier: GPL-2.0
/*
 * memcpy-bench SIZE [REPEAT]: how fast this machine's memcpy() copies SIZE
 * bytes between two warm buffers, in MB/s (10^6 bytes per second, as the
 * pci_epf_test function counts).  REPEAT copies are timed; without it, as
 * many as take about 50 ms.  SIZE may end in k or m (KiB, MiB).
 *
 * Both buffers are page aligned and an odd number of pages apart.  Under
 * QEMU's TCG the guest's TLB is a direct-mapped table of a power-of-two
 * size: buffers a multiple of 4 MiB apart (two 4 MiB - 4 KiB mallocs are
 * exactly that) share every entry, and the copy crawls at a tenth of its
 * speed.  That would measure the layout, not memcpy().
 *
 * The ceiling for a link whose transfers are memory copies: tests/bench.py
 * runs it on the endpoint guest next to each transfer size.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TARGET_NS	50000000ULL	/* about 50 ms of copying */
#define CALIBRATE_NS	5000000ULL	/* calibrate on at least 5 ms */
#define MAX_REPEAT	100000000UL
#define PAGE		4096UL

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Copy n times; the barrier keeps the compiler from dropping the copies. */
static unsigned long long copy_ns(void *dst, const void *src,
				  size_t size, unsigned long n)
{
	unsigned long long t0 = now_ns();
	unsigned long i;

	for (i = 0; i < n; i++) {
		memcpy(dst, src, size);
		__asm__ __volatile__("" : : "r" (dst) : "memory");
	}
	return now_ns() - t0;
}

/* A count with an optional k or m suffix; 0 when it is not one. */
static unsigned long parse_count(const char *s)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *s == '-')
		return 0;
	if (*end == 'k' || *end == 'K') {
		if (v > ~0UL >> 10)
			return 0;
		v <<= 10;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		if (v > ~0UL >> 20)
			return 0;
		v <<= 20;
		end++;
	}
	return *end ? 0 : v;
}

/* As many copies as take about TARGET_NS, judged from a short run. */
static unsigned long calibrate(void *dst, const void *src, size_t size)
{
	unsigned long n = 1;
	unsigned long long ns;

	for (;;) {
		ns = copy_ns(dst, src, size, n);
		if (ns >= CALIBRATE_NS || n >= MAX_REPEAT)
			break;
		n *= 2;
	}
	if (!ns)
		return n;
	ns = n * TARGET_NS / ns;
	if (!ns)
		return 1;
	return ns > MAX_REPEAT ? MAX_REPEAT : ns;
}

int main(int argc, char **argv)
{
	unsigned long size, repeat = 0;
	unsigned long span, gap;
	char *buf, *src, *dst;
	unsigned long long ns;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s SIZE [REPEAT]\n", argv[0]);
		return 2;
	}
	size = parse_count(argv[1]);
	if (!size || size > (~0UL >> 1) - 2 * PAGE) {
		fprintf(stderr, "memcpy-bench: bad SIZE '%s'\n", argv[1]);
		return 2;
	}
	if (argc == 3) {
		repeat = parse_count(argv[2]);
		if (!repeat || repeat > MAX_REPEAT) {
			fprintf(stderr, "memcpy-bench: bad REPEAT '%s'\n",
				argv[2]);
			return 2;
		}
	}

	span = (size + PAGE - 1) & ~(PAGE - 1);
	gap = (span / PAGE) % 2 ? 0 : PAGE;
	buf = aligned_alloc(PAGE, 2 * span + gap);
	if (!buf) {
		fprintf(stderr, "memcpy-bench: cannot allocate 2 x %lu bytes\n",
			size);
		return 1;
	}
	src = buf;
	dst = buf + span + gap;
	/* Warm: every page present, both buffers in whatever cache holds. */
	memset(src, 0x5a, size);
	memset(dst, 0xa5, size);
	copy_ns(dst, src, size, 1);

	if (!repeat)
		repeat = calibrate(dst, src, size);
	ns = copy_ns(dst, src, size, repeat);
	if (!ns)
		ns = 1;
	printf("memcpy %lu bytes x %lu: %.1f MB/s\n", size, repeat,
	       (double)size * repeat * 1000.0 / ns);

	free(buf);
	return 0;
}
