/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink-server: timestamped event log on stderr.
 */
#ifndef VLINK_SERVER_LOG_H
#define VLINK_SERVER_LOG_H

#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

void vlog_init(void);
__printf(1, 2) void vlog(const char *fmt, ...);

#endif /* VLINK_SERVER_LOG_H */
