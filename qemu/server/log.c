// SPDX-License-Identifier: GPL-2.0
/*
 * vlink-server: timestamped event log on stderr.
 *
 * The timestamps count from server start, like the kernel's printk times,
 * so that a server log can be read side by side with the guests' consoles.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "log.h"

static struct timespec log_start;

void vlog_init(void)
{
	/* A launcher usually merges our stderr with other logs: whole lines. */
	setvbuf(stderr, NULL, _IOLBF, 0);
	clock_gettime(CLOCK_MONOTONIC, &log_start);
}

void vlog(const char *fmt, ...)
{
	struct timespec now;
	char line[512];
	long sec, nsec;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &now);
	sec = now.tv_sec - log_start.tv_sec;
	nsec = now.tv_nsec - log_start.tv_nsec;
	if (nsec < 0) {
		sec--;
		nsec += 1000000000L;
	}

	/* Format first, so that the line goes out in a single write. */
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "[%5ld.%06ld] vlink-server: %s\n", sec, nsec / 1000,
		line);
}
