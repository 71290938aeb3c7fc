/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink-server: timestamped event log on stderr.
 */
#ifndef VLINK_SERVER_LOG_H
#define VLINK_SERVER_LOG_H

void vlog_init(void);
__printf(1, 2) void vlog(const char *fmt, ...);

#endif /* VLINK_SERVER_LOG_H */
