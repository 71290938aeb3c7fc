// SPDX-License-Identifier: GPL-2.0
/*
 * Fake ivshmem clients for testing vlink-server without QEMU.
 *
 * Each helper checks what it receives and ends the test with fail() and a
 * one-line reason at the first surprise, so the test cases read as plain
 * sequences of expectations.  Every wait is bounded, and a timeout says what
 * was awaited.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fakepeer.h"

static const char *test_dir = ".";

static const char *const role_names[VLINK_NR_ROLES] = {
	[VLINK_ROLE_EP] = "ep",
	[VLINK_ROLE_RC] = "rc",
	[VLINK_ROLE_MONITOR] = "monitor",
};

void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(1);
}

void test_set_dir(const char *dir)
{
	test_dir = dir;
}

/* A few results live at once (e.g. two paths in one message). */
const char *test_path(const char *file)
{
	static char buf[4][PATH_MAX];
	static int next;
	char *path = buf[next++ % 4];

	snprintf(path, PATH_MAX, "%s/%s", test_dir, file);
	return path;
}

const char *role_name(int role)
{
	return role_names[role];
}

static const char *role_socket(int role)
{
	char file[32];

	snprintf(file, sizeof(file), "%s.sock", role_names[role]);
	return test_path(file);
}

int sock_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int sock;

	if (strlen(path) >= sizeof(addr.sun_path))
		fail("socket path too long: %s", path);
	strcpy(addr.sun_path, path);
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		fail("socket: %s", strerror(errno));
	if (connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		fail("cannot connect to %s: %s", path, strerror(errno));
	return sock;
}

void fake_init(struct fake_peer *p, int role)
{
	int r, v;

	memset(p, 0, sizeof(*p));
	p->name = role_names[role];
	p->role = role;
	p->sock = -1;
	for (v = 0; v < VLINK_NR_VECTORS; v++) {
		p->own[v] = -1;
		for (r = 0; r < VLINK_NR_ROLES; r++)
			p->peer[r][v] = -1;
	}
	for (r = 0; r < VLINK_DMA_RINGS; r++)
		p->engine[r] = -1;
}

/* Returns false at EOF; *fd is -1 when the message carries none. */
static bool fake_recv(struct fake_peer *p, __s64 *val, int *fd,
		      int timeout_ms, const char *what)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} ctl;
	struct pollfd pfd = { .fd = p->sock, .events = POLLIN };
	__s64 le;
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *cmsg;
	int ret, nfds;
	ssize_t n;

	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		fail("%s: poll: %s", p->name, strerror(errno));
	if (ret == 0)
		fail("%s: timed out after %d ms waiting for %s", p->name,
		     timeout_ms, what);
	n = recvmsg(p->sock, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
	if (n < 0)
		fail("%s: recvmsg while waiting for %s: %s", p->name, what,
		     strerror(errno));
	if (n == 0)
		return false;
	if (n != sizeof(le))
		fail("%s: short message (%zd bytes) while waiting for %s",
		     p->name, n, what);
	if (msg.msg_flags & MSG_CTRUNC)
		fail("%s: control data truncated while waiting for %s",
		     p->name, what);

	*fd = -1;
	nfds = 0;
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
		if (cmsg->cmsg_level != SOL_SOCKET ||
		    cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		nfds += (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
	}
	if (nfds > 1)
		fail("%s: message with %d fds while waiting for %s", p->name,
		     nfds, what);
	*val = (__s64)le64toh((__u64)le);
	return true;
}

/* Returns the message's fd, or -1 when @want_fd is false. */
static int fake_expect(struct fake_peer *p, __s64 want, bool want_fd,
		       const char *what)
{
	__s64 val;
	int fd;

	if (!fake_recv(p, &val, &fd, TIMEOUT_MS, what))
		fail("%s: EOF while waiting for %s", p->name, what);
	if (val != want)
		fail("%s: waiting for %s, got %lld %s", p->name, what,
		     (long long)val, fd >= 0 ? "with an fd" : "without fd");
	if (want_fd && fd < 0)
		fail("%s: %s came without an fd", p->name, what);
	if (!want_fd && fd >= 0)
		fail("%s: %s came with an unexpected fd", p->name, what);
	return fd;
}

static void check_eventfd(struct fake_peer *p, int fd, const char *what)
{
	char proc[64], target[128];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, target, sizeof(target) - 1);
	if (n < 0)
		fail("%s: readlink %s: %s", p->name, proc, strerror(errno));
	target[n] = '\0';
	if (!strstr(target, "eventfd"))
		fail("%s: the fd of %s is %s, not an eventfd", p->name, what,
		     target);
}

/* @first: vector 0's message when already received, else -1. */
static void expect_vectors_from(struct fake_peer *p, int role,
				const char *why, int first)
{
	char what[160];
	int v, fd;

	for (v = 0; v < VLINK_NR_VECTORS; v++) {
		snprintf(what, sizeof(what), "%s id %d for vector %d (%s)",
			 role_names[role], VLINK_PEER_ID(role), v, why);
		if (v == 0 && first >= 0)
			fd = first;
		else
			fd = fake_expect(p, VLINK_PEER_ID(role), true, what);
		check_eventfd(p, fd, what);
		if (role == p->role)
			p->own[v] = fd;
		else
			p->peer[role][v] = fd;
	}
}

static void expect_vectors(struct fake_peer *p, int role, const char *why)
{
	expect_vectors_from(p, role, why, -1);
}

/*
 * After the other peers and before our own vectors: the DMA engine's
 * rings, for an EP of a server that has the guests' RAM files.  Ring n is
 * id VLINK_DMA_PEER_ID(n) vector VLINK_DMA_VECTOR(n), so the rings must
 * come in order.  Returns the fd of our own vector 0's message.
 */
static int expect_engine(struct fake_peer *p)
{
	char what[160];
	__s64 val;
	int fd;

	for (;;) {
		snprintf(what, sizeof(what),
			 "engine ring %d (id %d) or own id %d for vector 0",
			 p->nr_engine, VLINK_DMA_PEER_ID(p->nr_engine),
			 VLINK_PEER_ID(p->role));
		if (!fake_recv(p, &val, &fd, TIMEOUT_MS, what))
			fail("%s: EOF while waiting for %s", p->name, what);
		if (fd < 0)
			fail("%s: waiting for %s, got %lld without fd",
			     p->name, what, (long long)val);
		if (val == VLINK_PEER_ID(p->role))
			return fd;
		if (p->role != VLINK_ROLE_EP)
			fail("%s: got engine peer id %lld: only for the ep",
			     p->name, (long long)val);
		if (p->nr_engine == VLINK_DMA_RINGS)
			fail("%s: more than %d engine rings: got id %lld",
			     p->name, VLINK_DMA_RINGS, (long long)val);
		if (val != VLINK_DMA_PEER_ID(p->nr_engine))
			fail("%s: waiting for %s, got id %lld", p->name, what,
			     (long long)val);
		check_eventfd(p, fd, what);
		p->engine[p->nr_engine++] = fd;
	}
}

static void map_shm(struct fake_peer *p, int fd)
{
	struct stat st;
	void *shm;

	if (fstat(fd, &st) < 0)
		fail("%s: fstat of the shm fd: %s", p->name, strerror(errno));
	if (st.st_size != VLINK_SHM_SIZE)
		fail("%s: shm is %lld bytes, expected %d", p->name,
		     (long long)st.st_size, VLINK_SHM_SIZE);
	shm = mmap(NULL, VLINK_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	if (shm == MAP_FAILED)
		fail("%s: cannot map the shm: %s", p->name, strerror(errno));
	close(fd);
	p->shm = shm;
	p->hdr = (struct vlink_header *)(p->shm + VLINK_HDR_OFFSET);
}

/* @others: roles expected to be connected already, in the server's order. */
void fake_handshake(struct fake_peer *p, const int *others, int nr_others)
{
	char what[64];
	int i, fd;

	p->sock = sock_connect(role_socket(p->role));
	fake_expect(p, 0, false, "protocol version 0");
	snprintf(what, sizeof(what), "own peer id %d",
		 VLINK_PEER_ID(p->role));
	fake_expect(p, VLINK_PEER_ID(p->role), false, what);
	fd = fake_expect(p, -1, true, "-1 with the shm fd");
	map_shm(p, fd);
	for (i = 0; i < nr_others; i++)
		expect_vectors(p, others[i], "already connected peer");
	fd = expect_engine(p);
	expect_vectors_from(p, p->role, "own vectors", fd);
}

void fake_expect_join(struct fake_peer *p, int role)
{
	expect_vectors(p, role, "new peer");
}

/*
 * @role left: @p's LINK vector rings, and no message comes, since the
 * server never announces a departure (QEMU 7.2 cannot take an id back).
 */
void fake_expect_left(struct fake_peer *p, int role)
{
	char what[96];

	snprintf(what, sizeof(what), "%s's LINK vector after %s left",
		 p->name, role_names[role]);
	efd_expect_rung(p->own[VLINK_VEC_LINK], what);
	fake_expect_quiet(p);
}

void fake_expect_eof(struct fake_peer *p, const char *what)
{
	__s64 val;
	int fd;

	if (fake_recv(p, &val, &fd, TIMEOUT_MS, what))
		fail("%s: got message %lld %s while waiting for %s", p->name,
		     (long long)val, fd >= 0 ? "with an fd" : "without fd",
		     what);
}

void fake_expect_quiet(struct fake_peer *p)
{
	struct pollfd pfd = { .fd = p->sock, .events = POLLIN };
	__s64 val;
	int fd;

	if (poll(&pfd, 1, QUIET_MS) == 0)
		return;
	if (!fake_recv(p, &val, &fd, 0, "anything"))
		fail("%s: unexpected EOF from the server", p->name);
	fail("%s: unexpected message %lld %s", p->name, (long long)val,
	     fd >= 0 ? "with an fd" : "without fd");
}

void fake_close(struct fake_peer *p)
{
	int r, v;

	if (p->sock >= 0)
		close(p->sock);
	if (p->shm)
		munmap(p->shm, VLINK_SHM_SIZE);
	for (v = 0; v < VLINK_NR_VECTORS; v++) {
		if (p->own[v] >= 0)
			close(p->own[v]);
		for (r = 0; r < VLINK_NR_ROLES; r++)
			if (p->peer[r][v] >= 0)
				close(p->peer[r][v]);
	}
	for (r = 0; r < p->nr_engine; r++)
		close(p->engine[r]);
	fake_init(p, p->role);
}

char *side_area(struct fake_peer *p, int role)
{
	return p->shm + VLINK_SIDE_OFFSET + role * VLINK_SIDE_STRIDE;
}

void check_side_filled(struct fake_peer *p, int role, int byte)
{
	unsigned char *side = (unsigned char *)side_area(p, role);
	int i;

	for (i = 0; i < VLINK_SIDE_STRIDE; i++)
		if (side[i] != byte)
			fail("side area of %s: byte %d is 0x%02x, expected 0x%02x",
			     role_names[role], i, side[i], byte);
}

bool efd_wait(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret;

	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		fail("poll on an eventfd: %s", strerror(errno));
	return ret > 0;
}

void efd_ring(int fd)
{
	const __u64 one = 1;

	if (write(fd, &one, sizeof(one)) != sizeof(one))
		fail("cannot write to an eventfd: %s", strerror(errno));
}

/* Consumes the event, so that the next check starts from quiet. */
void efd_expect_rung(int fd, const char *what)
{
	__u64 val;

	if (!efd_wait(fd, TIMEOUT_MS))
		fail("timed out after %d ms waiting for %s", TIMEOUT_MS, what);
	if (read(fd, &val, sizeof(val)) != sizeof(val))
		fail("cannot read %s: %s", what, strerror(errno));
}

void efd_expect_quiet(int fd, const char *what)
{
	if (efd_wait(fd, 0))
		fail("%s is rung, but nothing should have rung it", what);
}

void check_quiet(struct fake_peer *p)
{
	char what[64];
	int v;

	for (v = 0; v < VLINK_NR_VECTORS; v++) {
		snprintf(what, sizeof(what), "%s's own vector %d", p->name, v);
		efd_expect_quiet(p->own[v], what);
	}
}

/*
 * The eventfd @from got for @to's vector v must be the very one @to
 * receives vector v on, and no other.
 */
void check_linked(struct fake_peer *from, struct fake_peer *to)
{
	char what[96];
	int v, w;

	for (v = 0; v < VLINK_NR_VECTORS; v++) {
		check_quiet(to);
		if (from->peer[to->role][v] < 0)
			fail("%s has no eventfd for %s vector %d", from->name,
			     to->name, v);
		efd_ring(from->peer[to->role][v]);
		snprintf(what, sizeof(what), "%s's vector %d, rung by %s",
			 to->name, v, from->name);
		efd_expect_rung(to->own[v], what);
		for (w = 0; w < VLINK_NR_VECTORS; w++) {
			if (w == v)
				continue;
			snprintf(what, sizeof(what),
				 "%s's vector %d (%s rang vector %d)",
				 to->name, w, from->name, v);
			efd_expect_quiet(to->own[w], what);
		}
	}
}
