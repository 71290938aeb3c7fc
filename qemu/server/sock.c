// SPDX-License-Identifier: GPL-2.0
/*
 * vlink-server: unix sockets and the ivshmem message format.
 *
 * ivshmem protocol version 0 (QEMU docs/specs/ivshmem-spec.rst): the server
 * only ever talks, in messages of one little-endian int64, each carrying at
 * most one file descriptor.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "sock.h"

static int sock_addr(const char *path, struct sockaddr_un *addr)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(addr->sun_path)) {
		vlog("%s: socket path too long (max %zu bytes)", path,
		     sizeof(addr->sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(addr->sun_path, path);
	return 0;
}

/*
 * A socket file left behind by a server that crashed must not stop a new
 * one, but a live server (or some unrelated file) must not be clobbered.
 */
static int sock_clear_stale(const char *path, const struct sockaddr_un *addr)
{
	struct stat st;
	int probe, ret, err;

	if (lstat(path, &st) < 0) {
		err = errno;
		if (err == ENOENT)
			return 0;
		vlog("%s: %s", path, strerror(err));
		return -err;
	}
	if (!S_ISSOCK(st.st_mode)) {
		vlog("%s: exists and is not a socket; refusing to replace it",
		     path);
		return -EEXIST;
	}

	probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe < 0)
		return -errno;
	ret = connect(probe, (const struct sockaddr *)addr, sizeof(*addr));
	err = errno;
	close(probe);
	if (ret == 0) {
		vlog("%s: something is already listening there; refusing to start",
		     path);
		return -EADDRINUSE;
	}
	if (err != ECONNREFUSED) {
		vlog("%s: cannot tell whether the socket is in use: %s", path,
		     strerror(err));
		return -err;
	}
	vlog("%s: removing stale socket", path);
	if (unlink(path) < 0 && errno != ENOENT) {
		err = errno;
		vlog("%s: cannot remove stale socket: %s", path, strerror(err));
		return -err;
	}
	return 0;
}

/* Returns the listening socket, or a negative errno after logging why. */
int sock_listen(const char *path)
{
	struct sockaddr_un addr;
	int sock, ret, err;

	ret = sock_addr(path, &addr);
	if (ret)
		return ret;
	ret = sock_clear_stale(path, &addr);
	if (ret)
		return ret;

	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (sock < 0) {
		err = errno;
		vlog("socket: %s", strerror(err));
		return -err;
	}
	if (bind(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		err = errno;
		vlog("%s: cannot bind: %s%s", path, strerror(err),
		     err == ENOENT ? " (does its directory exist?)" : "");
		goto err_close;
	}
	if (listen(sock, 4) < 0) {
		err = errno;
		vlog("%s: cannot listen: %s", path, strerror(err));
		unlink(path);
		goto err_close;
	}
	return sock;

err_close:
	close(sock);
	return -err;
}

/*
 * Never blocks: a client that stops reading must not stall the link for the
 * others.  The caller drops a client whose send fails.  MSG_NOSIGNAL keeps a
 * vanished client from killing us with SIGPIPE.
 */
int sock_send_msg(int sock, __s64 val, int fd)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	__s64 le = (__s64)htole64((__u64)val);
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;
	ssize_t n;

	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}

	do {
		n = sendmsg(sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* 8 bytes on a stream socket go out whole or not at all in practice */
	if (n != sizeof(le))
		return -EIO;
	return 0;
}
