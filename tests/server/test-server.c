// SPDX-License-Identifier: GPL-2.0
/*
 * Protocol tests of vlink-server, one case per run:
 *
 *   test-server CASE DIR    talk to the server listening on DIR/ep.sock,
 *                           DIR/rc.sock and DIR/monitor.sock (the dma-*
 *                           cases: with the RAM files DIR/ep.ram and
 *                           DIR/rc.ram, see test-dma.c)
 *   test-server mkstale PATH   leave a socket file nobody listens on
 *
 * Exit status 0 when the case passed; otherwise 1 with a one-line reason on
 * stdout.  run.sh starts and stops the server around each case.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cases.h"
/* Longer than any command line the server takes (255 bytes). */
#define FAULT_LONG_LINE	300

static const int ep_only[] = { VLINK_ROLE_EP };
static const int ep_rc[] = { VLINK_ROLE_EP, VLINK_ROLE_RC };
static const int ep_mon[] = { VLINK_ROLE_EP, VLINK_ROLE_MONITOR };

static void check_field(const char *name, unsigned long long got,
			unsigned long long want)
{
	if (got != want)
		fail("header %s is %#llx, expected %#llx", name, got, want);
}

static void check_header(struct vlink_header *hdr)
{
	char name[32];
	int r;

	/* The wire is little-endian whatever the host is: bytes, not words. */
	if (memcmp(&hdr->magic, "VLNK", 4))
		fail("header magic does not spell VLNK in memory");
	check_field("magic", le32toh(hdr->magic), VLINK_MAGIC);
	check_field("version", le32toh(hdr->version), VLINK_VERSION);
	check_field("shm_size", le32toh(hdr->shm_size), VLINK_SHM_SIZE);
	check_field("nr_vectors", le32toh(hdr->nr_vectors), VLINK_NR_VECTORS);
	for (r = 0; r < VLINK_NR_ROLES; r++) {
		snprintf(name, sizeof(name), "peer_id[%s]", role_name(r));
		check_field(name, le32toh(hdr->peer_id[r]), VLINK_PEER_ID(r));
	}
	check_field("max_functions", le32toh(hdr->max_functions),
		    VLINK_MAX_FUNCTIONS);
	check_field("side_offset", le32toh(hdr->side_offset),
		    VLINK_SIDE_OFFSET);
	check_field("func_offset", le32toh(hdr->func_offset),
		    VLINK_FUNC_OFFSET);
	check_field("irq_offset", le32toh(hdr->irq_offset), VLINK_IRQ_OFFSET);
	check_field("irq_bits", le32toh(hdr->irq_bits), VLINK_IRQ_BITS);
	check_field("cfg_offset", le32toh(hdr->cfg_offset), VLINK_CFG_OFFSET);
	check_field("cfg_size", le32toh(hdr->cfg_size), VLINK_CFG_SIZE);
	check_field("msi_address", le64toh(hdr->msi_address),
		    VLINK_MSI_ADDRESS);
	check_field("xlat_offset", le32toh(hdr->xlat_offset),
		    VLINK_XLAT_OFFSET);
	check_field("xlat_extents", le32toh(hdr->xlat_extents),
		    VLINK_XLAT_EXTENTS);
}

static void check_presence(struct vlink_header *hdr, int role,
			   unsigned int present, unsigned int connects)
{
	unsigned int got_present = le32toh(hdr->present[role]);
	unsigned int got_connects = le32toh(hdr->connects[role]);

	if (got_present != present)
		fail("header present[%s] is %u, expected %u", role_name(role),
		     got_present, present);
	if (got_connects != connects)
		fail("header connects[%s] is %u, expected %u",
		     role_name(role), got_connects, connects);
}

/*
 * Case 1: everything a lone EP gets, and the shm it maps; with no RAM
 * files, the server has no DMA engine to announce.
 */
static void case_handshake(void)
{
	struct fake_peer ep;
	char what[64];
	int v, w, i;

	fake_init(&ep, VLINK_ROLE_EP);
	fake_handshake(&ep, NULL, 0);
	fake_expect_quiet(&ep);
	if (ep.nr_engine)
		fail("ep got %d DMA engine rings from a server without RAM files",
		     ep.nr_engine);

	check_header(ep.hdr);
	check_presence(ep.hdr, VLINK_ROLE_EP, 1, 1);
	check_presence(ep.hdr, VLINK_ROLE_RC, 0, 0);
	check_presence(ep.hdr, VLINK_ROLE_MONITOR, 0, 0);
	for (i = sizeof(*ep.hdr); i < VLINK_SHM_SIZE; i++)
		if (ep.shm[i])
			fail("shm byte %#x is %#x, expected 0", i,
			     (unsigned char)ep.shm[i]);

	/* Distinct eventfds: each rings only itself. */
	for (v = 0; v < VLINK_NR_VECTORS; v++) {
		check_quiet(&ep);
		efd_ring(ep.own[v]);
		snprintf(what, sizeof(what), "ep's own vector %d", v);
		efd_expect_rung(ep.own[v], what);
		for (w = 0; w < VLINK_NR_VECTORS; w++) {
			snprintf(what, sizeof(what),
				 "ep's own vector %d after ringing %d", w, v);
			efd_expect_quiet(ep.own[w], what);
		}
	}
	fake_close(&ep);
}

/* EP then RC, both told about each other, LINK ring of EP consumed. */
void connect_ep_rc(struct fake_peer *ep, struct fake_peer *rc)
{
	fake_init(ep, VLINK_ROLE_EP);
	fake_init(rc, VLINK_ROLE_RC);
	fake_handshake(ep, NULL, 0);
	fake_handshake(rc, ep_only, ARRAY_SIZE(ep_only));
	fake_expect_join(ep, VLINK_ROLE_RC);
	efd_expect_rung(ep->own[VLINK_VEC_LINK],
			"ep's LINK vector after rc connected");
}

/* Case 2: the fds each side got really reach the other. */
static void case_two_peers(void)
{
	struct fake_peer ep, rc;

	connect_ep_rc(&ep, &rc);
	fake_expect_quiet(&ep);
	fake_expect_quiet(&rc);
	check_linked(&rc, &ep);
	check_linked(&ep, &rc);
	fake_close(&rc);
	fake_close(&ep);
}

/* Case 3: RC's arrival resets its side area and rings EP's LINK. */
static void case_link_up(void)
{
	struct fake_peer ep, rc;

	fake_init(&ep, VLINK_ROLE_EP);
	fake_init(&rc, VLINK_ROLE_RC);
	fake_handshake(&ep, NULL, 0);
	memset(side_area(&ep, VLINK_ROLE_RC), 0xa5, VLINK_SIDE_STRIDE);
	memset(side_area(&ep, VLINK_ROLE_EP), 0x5a, VLINK_SIDE_STRIDE);
	check_quiet(&ep);

	fake_handshake(&rc, ep_only, ARRAY_SIZE(ep_only));
	fake_expect_join(&ep, VLINK_ROLE_RC);
	efd_expect_rung(ep.own[VLINK_VEC_LINK],
			"ep's LINK vector after rc connected");
	check_quiet(&ep);

	check_presence(ep.hdr, VLINK_ROLE_RC, 1, 1);
	check_presence(ep.hdr, VLINK_ROLE_EP, 1, 1);
	check_side_filled(&ep, VLINK_ROLE_RC, 0);
	check_side_filled(&ep, VLINK_ROLE_EP, 0x5a);
	/* Both map the same memory. */
	if (memcmp(ep.shm, rc.shm, VLINK_SHM_SIZE))
		fail("ep and rc map different shared memories");
	fake_close(&rc);
	fake_close(&ep);
}

/* Case 4: RC's departure resets its side and rings EP, unannounced. */
static void case_link_down(void)
{
	struct fake_peer ep, rc;

	connect_ep_rc(&ep, &rc);
	memset(side_area(&rc, VLINK_ROLE_RC), 0xa5, VLINK_SIDE_STRIDE);
	memset(side_area(&ep, VLINK_ROLE_EP), 0x5a, VLINK_SIDE_STRIDE);
	fake_close(&rc);

	fake_expect_left(&ep, VLINK_ROLE_RC);
	check_quiet(&ep);
	check_presence(ep.hdr, VLINK_ROLE_RC, 0, 1);
	check_presence(ep.hdr, VLINK_ROLE_EP, 1, 1);
	check_side_filled(&ep, VLINK_ROLE_RC, 0);
	check_side_filled(&ep, VLINK_ROLE_EP, 0x5a);
	fake_expect_quiet(&ep);
	fake_close(&ep);
}

/*
 * Case 5: a returning RC gets the eventfds the first one had, so EP hears
 * nothing but LINK, and what EP rang while RC was away is not delivered.
 */
static void case_reconnect(void)
{
	struct fake_peer ep, rc;
	int v;

	connect_ep_rc(&ep, &rc);
	fake_close(&rc);
	fake_expect_left(&ep, VLINK_ROLE_RC);
	for (v = 0; v < VLINK_NR_VECTORS; v++)
		efd_ring(ep.peer[VLINK_ROLE_RC][v]);

	fake_init(&rc, VLINK_ROLE_RC);
	fake_handshake(&rc, ep_only, ARRAY_SIZE(ep_only));
	efd_expect_rung(ep.own[VLINK_VEC_LINK],
			"ep's LINK vector after rc reconnected");
	fake_expect_quiet(&ep);
	check_quiet(&rc);
	check_presence(ep.hdr, VLINK_ROLE_RC, 1, 2);
	check_presence(ep.hdr, VLINK_ROLE_EP, 1, 1);
	check_linked(&rc, &ep);
	check_linked(&ep, &rc);
	fake_close(&rc);
	fake_close(&ep);
}

/* A second client of a busy role is closed without a word. */
static void expect_refused(int role)
{
	struct fake_peer dup;
	char what[96];

	fake_init(&dup, role);
	dup.name = "duplicate";
	dup.sock = sock_connect(test_path(role == VLINK_ROLE_EP ?
					  "ep.sock" : "rc.sock"));
	snprintf(what, sizeof(what),
		 "EOF on a second %s connection (role busy)", role_name(role));
	fake_expect_eof(&dup, what);
	fake_close(&dup);
}

/* Case 6: one client per role; the first one is not disturbed. */
static void case_duplicate_role(void)
{
	struct fake_peer ep, rc;

	fake_init(&ep, VLINK_ROLE_EP);
	fake_init(&rc, VLINK_ROLE_RC);
	fake_handshake(&ep, NULL, 0);
	expect_refused(VLINK_ROLE_EP);
	fake_expect_quiet(&ep);
	check_presence(ep.hdr, VLINK_ROLE_EP, 1, 1);

	fake_handshake(&rc, ep_only, ARRAY_SIZE(ep_only));
	fake_expect_join(&ep, VLINK_ROLE_RC);
	efd_expect_rung(ep.own[VLINK_VEC_LINK],
			"ep's LINK vector after rc connected");
	expect_refused(VLINK_ROLE_RC);
	expect_refused(VLINK_ROLE_EP);
	fake_expect_quiet(&ep);
	fake_expect_quiet(&rc);
	check_presence(ep.hdr, VLINK_ROLE_RC, 1, 1);
	check_linked(&rc, &ep);
	check_linked(&ep, &rc);
	fake_close(&rc);
	fake_close(&ep);
}

static void send_all(int sock, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = send(sock, p, len, MSG_NOSIGNAL);
		if (n < 0)
			fail("sending garbage: %s", strerror(errno));
		p += n;
		len -= n;
	}
}

static void send_fd(int sock, int fd)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	char byte = 'x';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	memset(&ctl, 0, sizeof(ctl));
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) != 1)
		fail("sending an fd to the server: %s", strerror(errno));
}

/*
 * Case 9: clients that talk, pass fds, or vanish before reading must not
 * hurt the server or the other peers.
 */
static void case_garbage(void)
{
	struct fake_peer ep, rc, mon;
	static char junk[65536];
	size_t i;
	int sock;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 7 + 3);

	fake_init(&ep, VLINK_ROLE_EP);
	fake_handshake(&ep, NULL, 0);
	send_all(ep.sock, junk, sizeof(junk));
	send_fd(ep.sock, ep.own[VLINK_VEC_PING]);

	/* A monitor that talks and never reads. */
	fake_init(&mon, VLINK_ROLE_MONITOR);
	mon.sock = sock_connect(test_path("monitor.sock"));
	send_all(mon.sock, junk, sizeof(junk));
	fake_expect_join(&ep, VLINK_ROLE_MONITOR);

	/* An RC that connects and goes away at once. */
	sock = sock_connect(test_path("rc.sock"));
	send_all(sock, junk, 100);
	close(sock);
	fake_expect_join(&ep, VLINK_ROLE_RC);

	/* The server is alive, EP still connected, a real RC is served. */
	fake_expect_left(&ep, VLINK_ROLE_RC);
	fake_init(&rc, VLINK_ROLE_RC);
	fake_handshake(&rc, ep_mon, ARRAY_SIZE(ep_mon));
	efd_expect_rung(ep.own[VLINK_VEC_LINK],
			"ep's LINK vector after rc connected");
	check_presence(ep.hdr, VLINK_ROLE_RC, 1, 2);
	check_presence(ep.hdr, VLINK_ROLE_EP, 1, 1);
	check_linked(&rc, &ep);
	check_linked(&ep, &rc);
	fake_expect_quiet(&ep);
	fake_close(&mon);
	fake_close(&rc);
	fake_close(&ep);
}

/* Case 10: the monitor sees both sides, and both see it. */
static void case_monitor(void)
{
	struct fake_peer ep, rc, mon;

	connect_ep_rc(&ep, &rc);
	fake_init(&mon, VLINK_ROLE_MONITOR);
	fake_handshake(&mon, ep_rc, ARRAY_SIZE(ep_rc));
	fake_expect_join(&ep, VLINK_ROLE_MONITOR);
	fake_expect_join(&rc, VLINK_ROLE_MONITOR);
	check_presence(mon.hdr, VLINK_ROLE_MONITOR, 1, 1);

	/* An observer's arrival is no link event for EP and RC. */
	fake_expect_quiet(&ep);
	fake_expect_quiet(&rc);
	check_quiet(&ep);
	check_quiet(&rc);

	check_linked(&mon, &ep);
	check_linked(&mon, &rc);
	check_linked(&ep, &mon);
	check_linked(&rc, &mon);

	/* It hears about RC leaving, like EP does. */
	fake_close(&rc);
	fake_expect_left(&ep, VLINK_ROLE_RC);
	fake_expect_left(&mon, VLINK_ROLE_RC);

	fake_close(&mon);
	fake_expect_quiet(&ep);
	check_quiet(&ep);
	check_presence(ep.hdr, VLINK_ROLE_MONITOR, 0, 1);
	fake_close(&ep);
}

/* Fault injection: the control socket (servers started with --control) */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int control_connect(void)
{
	return sock_connect(test_path("control.sock"));
}

/* One line from the server (without its newline), bounded in time. */
static const char *control_read(int sock, const char *what)
{
	static char reply[2048];
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	size_t len = 0;
	ssize_t n;
	int ret;

	while (!len || reply[len - 1] != '\n') {
		ret = poll(&pfd, 1, TIMEOUT_MS);
		if (ret < 0)
			fail("poll on the control socket: %s", strerror(errno));
		if (ret == 0)
			fail("timed out after %d ms waiting for %s",
			     TIMEOUT_MS, what);
		/* One byte at a time: never read into the next answer. */
		n = recv(sock, reply + len, 1, 0);
		if (n <= 0)
			fail("control socket closed while waiting for %s",
			     what);
		if (++len == sizeof(reply))
			fail("%s: longer than %zu bytes", what, sizeof(reply));
	}
	reply[len - 1] = '\0';
	return reply;
}

/* One command, one answer line. */
static const char *control(int sock, const char *cmd)
{
	char line[512], what[600];

	snprintf(line, sizeof(line), "%s\n", cmd);
	if (send(sock, line, strlen(line), MSG_NOSIGNAL) !=
	    (ssize_t)strlen(line))
		fail("cannot send '%s' to the server: %s", cmd,
		     strerror(errno));
	snprintf(what, sizeof(what), "the answer to '%.500s'", cmd);
	return control_read(sock, what);
}

void control_ok(int sock, const char *cmd)
{
	const char *reply = control(sock, cmd);

	if (strncmp(reply, "ok", 2))
		fail("'%s' answered '%s', expected ok", cmd, reply);
}

static void control_refused(int sock, const char *cmd)
{
	const char *reply = control(sock, cmd);

	if (strncmp(reply, "error: ", 7))
		fail("'%s' answered '%s', expected an error", cmd, reply);
}

/* The value of "NAME=" in @role's part of the status answer. */
static unsigned long long status_value(int sock, int role, const char *name)
{
	const char *reply = control(sock, "status");
	char key[32], *part, *field;
	unsigned long long val;

	snprintf(key, sizeof(key), " %s: ", role_name(role));
	part = strstr(reply, key);
	if (!part)
		fail("no '%s' in the status answer '%s'", key, reply);
	snprintf(key, sizeof(key), " %s=", name);
	field = strstr(part, key);
	if (!field || sscanf(field + strlen(key), "%llu", &val) != 1)
		fail("no '%s' for %s in the status answer '%s'", key,
		     role_name(role), reply);
	return val;
}

static void check_counter(int sock, int role, const char *name,
			  unsigned long long want)
{
	unsigned long long got = status_value(sock, role, name);

	if (got != want)
		fail("status: %s %s is %llu, expected %llu", role_name(role),
		     name, got, want);
}

/*
 * Case: with --control, doorbells reach the target through the server:
 * each side's fds for the other are not the other's own, yet every vector
 * arrives where it should, and the server counts them.
 */
static void case_fault_forward(void)
{
	struct fake_peer ep, rc;
	int ctl;

	connect_ep_rc(&ep, &rc);
	ctl = control_connect();
	check_linked(&ep, &rc);
	check_linked(&rc, &ep);
	check_counter(ctl, VLINK_ROLE_RC, "rung", VLINK_NR_VECTORS);
	check_counter(ctl, VLINK_ROLE_RC, "forwarded", VLINK_NR_VECTORS);
	check_counter(ctl, VLINK_ROLE_EP, "forwarded", VLINK_NR_VECTORS);
	check_counter(ctl, VLINK_ROLE_RC, "dropped", 0);

	/* Mailboxes in front: ringing our own fd is no doorbell to rc. */
	efd_ring(rc.own[VLINK_VEC_IRQ]);
	efd_expect_rung(rc.own[VLINK_VEC_IRQ], "rc's own IRQ vector");
	check_counter(ctl, VLINK_ROLE_RC, "rung", VLINK_NR_VECTORS);
	fake_expect_quiet(&ep);
	fake_expect_quiet(&rc);
	close(ctl);
	fake_close(&rc);
	fake_close(&ep);
}

/* Case: drop N drops exactly N doorbells of that vector, then forwards. */
static void case_fault_drop(void)
{
	int irq = VLINK_VEC_IRQ, link = VLINK_VEC_LINK;
	struct fake_peer ep, rc;
	char what[96];
	int ctl, i;

	connect_ep_rc(&ep, &rc);
	ctl = control_connect();
	control_ok(ctl, "drop rc irq 2");
	for (i = 1; i <= 2; i++) {
		efd_ring(ep.peer[VLINK_ROLE_RC][irq]);
		/* Dropped by then, or the counter says otherwise below. */
		check_counter(ctl, VLINK_ROLE_RC, "dropped", i);
		snprintf(what, sizeof(what), "rc's IRQ vector (doorbell %d of 2 to drop)",
			 i);
		efd_expect_quiet(rc.own[irq], what);
		/* Other vectors pass meanwhile. */
		efd_ring(ep.peer[VLINK_ROLE_RC][link]);
		efd_expect_rung(rc.own[link], "rc's LINK vector while IRQ drops");
	}
	efd_ring(ep.peer[VLINK_ROLE_RC][irq]);
	efd_expect_rung(rc.own[irq], "rc's IRQ vector after 2 drops");
	check_counter(ctl, VLINK_ROLE_RC, "dropped", 2);
	check_counter(ctl, VLINK_ROLE_RC, "rung", 5);
	check_counter(ctl, VLINK_ROLE_RC, "forwarded", 3);

	/* "any" takes whichever vector comes; other roles are untouched. */
	control_ok(ctl, "drop rc any 1");
	efd_ring(rc.peer[VLINK_ROLE_EP][irq]);
	efd_expect_rung(ep.own[irq], "ep's IRQ vector while rc drops any");
	efd_ring(ep.peer[VLINK_ROLE_RC][VLINK_VEC_PING]);
	check_counter(ctl, VLINK_ROLE_RC, "dropped", 3);
	efd_expect_quiet(rc.own[VLINK_VEC_PING], "rc's PING vector (dropped)");
	efd_ring(ep.peer[VLINK_ROLE_RC][VLINK_VEC_PING]);
	efd_expect_rung(rc.own[VLINK_VEC_PING], "rc's PING after the drop");

	/* Disarming. */
	control_ok(ctl, "drop rc irq 5");
	control_ok(ctl, "drop rc irq 0");
	efd_ring(ep.peer[VLINK_ROLE_RC][irq]);
	efd_expect_rung(rc.own[irq], "rc's IRQ vector after 'drop rc irq 0'");
	check_counter(ctl, VLINK_ROLE_RC, "dropped", 3);

	/* The DMA vector has its name too. */
	control_ok(ctl, "drop ep dma 1");
	efd_ring(rc.peer[VLINK_ROLE_EP][VLINK_VEC_DMA]);
	check_counter(ctl, VLINK_ROLE_EP, "dropped", 1);
	efd_expect_quiet(ep.own[VLINK_VEC_DMA], "ep's DMA vector (dropped)");
	efd_ring(rc.peer[VLINK_ROLE_EP][VLINK_VEC_DMA]);
	efd_expect_rung(ep.own[VLINK_VEC_DMA], "ep's DMA vector after the drop");
	close(ctl);
	fake_close(&rc);
	fake_close(&ep);
}

/* Case: a delay holds doorbells back (lower bound only), 0 ends it. */
static void case_fault_delay(void)
{
	const int delay = 400, margin = 150;
	int irq = VLINK_VEC_IRQ;
	struct fake_peer ep, rc;
	long long t0, took;
	int ctl;

	connect_ep_rc(&ep, &rc);
	ctl = control_connect();
	control_ok(ctl, "delay rc 400");
	t0 = now_ms();
	efd_ring(ep.peer[VLINK_ROLE_RC][irq]);
	efd_expect_rung(rc.own[irq], "rc's IRQ vector, delayed by 400 ms");
	took = now_ms() - t0;
	if (took < delay - margin)
		fail("a doorbell delayed by %d ms arrived after %lld ms", delay,
		     took);
	/* The other direction is not delayed; nothing to time there. */
	efd_ring(rc.peer[VLINK_ROLE_EP][irq]);
	efd_expect_rung(ep.own[irq], "ep's IRQ vector (no delay armed)");
	check_counter(ctl, VLINK_ROLE_RC, "delayed", 1);
	check_counter(ctl, VLINK_ROLE_RC, "forwarded", 1);
	check_counter(ctl, VLINK_ROLE_RC, "held", 0);
	check_counter(ctl, VLINK_ROLE_EP, "delayed", 0);

	control_ok(ctl, "delay rc 0");
	efd_ring(ep.peer[VLINK_ROLE_RC][irq]);
	efd_expect_rung(rc.own[irq], "rc's IRQ vector after 'delay rc 0'");
	check_counter(ctl, VLINK_ROLE_RC, "delayed", 1);
	check_counter(ctl, VLINK_ROLE_RC, "forwarded", 2);

	/* Held back doorbells of a role that leaves are discarded with it. */
	control_ok(ctl, "delay ep 60000");
	efd_ring(rc.peer[VLINK_ROLE_EP][irq]);
	check_counter(ctl, VLINK_ROLE_EP, "delayed", 1);
	check_counter(ctl, VLINK_ROLE_EP, "held", 1);
	close(ctl);
	fake_close(&ep);
	fake_expect_left(&rc, VLINK_ROLE_EP);
	fake_close(&rc);
}

/*
 * Case: a forced down clears present[ep] alone (side area and connects
 * stay), rings LINK on both, stops the doorbells between them, and ends
 * on request or when its time is up.
 */
static void case_fault_down(void)
{
	struct fake_peer ep, rc;
	long long t0, took;
	int ctl;

	connect_ep_rc(&ep, &rc);
	ctl = control_connect();
	memset(side_area(&ep, VLINK_ROLE_EP), 0x5a, VLINK_SIDE_STRIDE);
	memset(side_area(&rc, VLINK_ROLE_RC), 0xa5, VLINK_SIDE_STRIDE);

	control_ok(ctl, "down ep 60000");
	efd_expect_rung(ep.own[VLINK_VEC_LINK], "ep's LINK vector at down");
	efd_expect_rung(rc.own[VLINK_VEC_LINK], "rc's LINK vector at down");
	check_presence(rc.hdr, VLINK_ROLE_EP, 0, 1);
	check_presence(rc.hdr, VLINK_ROLE_RC, 1, 1);
	check_side_filled(&rc, VLINK_ROLE_EP, 0x5a);
	check_side_filled(&rc, VLINK_ROLE_RC, 0xa5);
	control_refused(ctl, "up rc");

	efd_ring(ep.peer[VLINK_ROLE_RC][VLINK_VEC_IRQ]);
	efd_ring(rc.peer[VLINK_ROLE_EP][VLINK_VEC_LINK]);
	check_counter(ctl, VLINK_ROLE_RC, "dropped", 1);
	check_counter(ctl, VLINK_ROLE_EP, "dropped", 1);
	check_quiet(&rc);
	check_quiet(&ep);
	fake_expect_quiet(&ep);
	fake_expect_quiet(&rc);

	control_ok(ctl, "up ep");
	efd_expect_rung(ep.own[VLINK_VEC_LINK], "ep's LINK vector at up");
	efd_expect_rung(rc.own[VLINK_VEC_LINK], "rc's LINK vector at up");
	check_presence(rc.hdr, VLINK_ROLE_EP, 1, 1);
	check_side_filled(&rc, VLINK_ROLE_EP, 0x5a);
	check_side_filled(&rc, VLINK_ROLE_RC, 0xa5);
	check_linked(&ep, &rc);
	check_linked(&rc, &ep);

	/* A timed one ends by itself, not before its time. */
	t0 = now_ms();
	control_ok(ctl, "down rc 500");
	efd_expect_rung(ep.own[VLINK_VEC_LINK], "ep's LINK vector at down");
	check_presence(ep.hdr, VLINK_ROLE_RC, 0, 1);
	efd_expect_rung(ep.own[VLINK_VEC_LINK],
			"ep's LINK vector when the 500 ms down ends");
	took = now_ms() - t0;
	if (took < 350)
		fail("a 500 ms forced down ended after %lld ms", took);
	check_presence(ep.hdr, VLINK_ROLE_RC, 1, 1);
	efd_expect_rung(rc.own[VLINK_VEC_LINK],
			"rc's LINK vector (down and back)");
	check_side_filled(&ep, VLINK_ROLE_RC, 0xa5);

	/* A real departure during a forced down wins. */
	control_ok(ctl, "down rc 60000");
	efd_expect_rung(ep.own[VLINK_VEC_LINK], "ep's LINK vector at down");
	fake_close(&rc);
	fake_expect_left(&ep, VLINK_ROLE_RC);
	check_presence(ep.hdr, VLINK_ROLE_RC, 0, 1);
	check_side_filled(&ep, VLINK_ROLE_RC, 0);
	control_refused(ctl, "up rc");
	control_refused(ctl, "down rc 100");
	close(ctl);
	fake_close(&ep);
}

/* Case: bad commands get an error line; the server goes on serving. */
static void case_fault_bad_commands(void)
{
	static const char *const bad[] = {
		"", "bogus", "drop", "drop rc", "drop xx irq 1",
		"drop rc irq -1", "drop rc irq 1x", "drop rc irq 1 2",
		"drop rc vec 1", "delay", "delay rc", "delay rc -5",
		"delay rc 99999999999999999999", "delay ep 1 2", "down ep",
		"down monitor 100", "down ep 0", "down ep 100",
		"up ep", "up", "status now", "help me",
	};
	char long_line[FAULT_LONG_LINE];
	struct fake_peer ep;
	int ctl[5], i;
	size_t b;

	ctl[0] = control_connect();
	for (b = 0; b < ARRAY_SIZE(bad); b++)
		control_refused(ctl[0], bad[b]);
	memset(long_line, 'x', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	control_refused(ctl[0], long_line);

	/* Up to four clients at once; a fifth is told and closed. */
	for (i = 1; i < 4; i++) {
		ctl[i] = control_connect();
		control_ok(ctl[i], "status");
	}
	ctl[4] = control_connect();
	if (strncmp(control_read(ctl[4], "the refusal of a fifth client"),
		    "error: ", 7))
		fail("a fifth control client was not refused");
	close(ctl[4]);
	close(ctl[3]);
	ctl[3] = control_connect();
	control_ok(ctl[3], "status");
	for (i = 0; i < 4; i++)
		close(ctl[i]);

	/* Still a working server. */
	fake_init(&ep, VLINK_ROLE_EP);
	fake_handshake(&ep, NULL, 0);
	fake_expect_quiet(&ep);
	ctl[0] = control_connect();
	control_ok(ctl[0], "help");
	close(ctl[0]);
	fake_close(&ep);
}

pid_t read_server_pid(void)
{
	const char *path = test_path("server.pid");
	FILE *f = fopen(path, "r");
	int pid;

	if (!f)
		fail("cannot open %s: %s", path, strerror(errno));
	if (fscanf(f, "%d", &pid) != 1 || pid <= 1)
		fail("%s does not hold a pid", path);
	fclose(f);
	return pid;
}

/* Case 8 with clients: SIGTERM while peers are connected. */
static void case_sigterm_clients(void)
{
	struct fake_peer ep, rc, mon;

	connect_ep_rc(&ep, &rc);
	fake_init(&mon, VLINK_ROLE_MONITOR);
	fake_handshake(&mon, ep_rc, ARRAY_SIZE(ep_rc));
	fake_expect_join(&ep, VLINK_ROLE_MONITOR);
	fake_expect_join(&rc, VLINK_ROLE_MONITOR);

	if (kill(read_server_pid(), SIGTERM) < 0)
		fail("cannot signal the server: %s", strerror(errno));
	fake_expect_eof(&ep, "EOF from the exiting server");
	fake_expect_eof(&rc, "EOF from the exiting server");
	fake_expect_eof(&mon, "EOF from the exiting server");
	fake_close(&mon);
	fake_close(&rc);
	fake_close(&ep);
}

/* Binds and closes without unlinking: what a crashed server leaves. */
static int make_stale(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int sock;

	if (strlen(path) >= sizeof(addr.sun_path))
		fail("socket path too long: %s", path);
	strcpy(addr.sun_path, path);
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&addr,
			     sizeof(addr)) < 0)
		fail("cannot create %s: %s", path, strerror(errno));
	close(sock);
	return 0;
}

static const struct test_case cases[] = {
	{ "handshake", case_handshake },
	{ "two-peers", case_two_peers },
	{ "link-up", case_link_up },
	{ "link-down", case_link_down },
	{ "reconnect", case_reconnect },
	{ "duplicate-role", case_duplicate_role },
	{ "garbage", case_garbage },
	{ "monitor", case_monitor },
	{ "sigterm-clients", case_sigterm_clients },
	{ "fault-forward", case_fault_forward },
	{ "fault-drop", case_fault_drop },
	{ "fault-delay", case_fault_delay },
	{ "fault-down", case_fault_down },
	{ "fault-bad-commands", case_fault_bad_commands },
};

int main(int argc, char **argv)
{
	size_t i;

	/* The reason line must come out even if we are killed right after. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3)
		fail("usage: test-server CASE DIR | test-server mkstale PATH");
	if (!strcmp(argv[1], "mkstale"))
		return make_stale(argv[2]);

	test_set_dir(argv[2]);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (!strcmp(argv[1], cases[i].name)) {
			cases[i].run();
			return 0;
		}
	}
	for (i = 0; i < nr_dma_cases; i++) {
		if (!strcmp(argv[1], dma_cases[i].name)) {
			dma_cases[i].run();
			return 0;
		}
	}
	fail("unknown test case '%s'", argv[1]);
}
