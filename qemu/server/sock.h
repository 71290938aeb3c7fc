/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink-server: unix sockets and the ivshmem message format.
 */
#ifndef VLINK_SERVER_SOCK_H
#define VLINK_SERVER_SOCK_H

#include <linux/types.h>

int sock_listen(const char *path);
int sock_send_msg(int sock, __s64 val, int fd);

#endif /* VLINK_SERVER_SOCK_H */
