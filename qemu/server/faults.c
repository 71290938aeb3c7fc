// SPDX-License-Identifier: GPL-2.0
/*
 * vlink-server: doorbell interposition and fault injection on request.
 *
 * With --control, every doorbell a guest rings reaches one of our mailbox
 * eventfds (see peers.c) instead of the target's own eventfd.  We forward
 * it at once, later, or never, as the armed faults say.  The control
 * socket takes one command per line and answers each with one line,
 * "ok ..." or "error: ...".  Nothing here blocks: a control client that
 * does not read its answers is dropped.
 *
 * Faults act on the doorbells the guests ring, never on the ones the
 * server rings itself (LINK on arrivals, departures and forced downs).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dma.h"
#include "faults.h"
#include "log.h"
#include "peers.h"
#include "sock.h"

#define FAULT_REPLY_MAX		1024
#define FAULT_MAX_WORDS		8

/* A vector without a name here would crash the command parser. */
static_assert(VLINK_NR_VECTORS == 5, "vector_names[] names every vector");
static const char *const vector_names[VLINK_NR_VECTORS + 1] = {
	[VLINK_VEC_LINK] = "link",
	[VLINK_VEC_IRQ] = "irq",
	[VLINK_VEC_PING] = "ping",
	[VLINK_VEC_PONG] = "pong",
	[VLINK_VEC_DMA] = "dma",
	[FAULT_ANY_VECTOR] = "any",
};

long long fault_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void faults_init(struct vlink_faults *f)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->listen_sock = -1;
	for (i = 0; i < FAULT_MAX_CLIENTS; i++)
		f->client[i].sock = -1;
}

int faults_listen(struct vlink_faults *f, const char *path)
{
	int sock = sock_listen(path);

	if (sock < 0)
		return sock;
	f->path = path;
	f->listen_sock = sock;
	return 0;
}

static void client_close(struct fault_client *c)
{
	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
	c->len = 0;
	c->overlong = false;
}

/* Only what we created goes: never someone else's socket. */
void faults_close(struct vlink_faults *f)
{
	int i;

	for (i = 0; i < FAULT_MAX_CLIENTS; i++)
		client_close(&f->client[i]);
	if (f->listen_sock >= 0) {
		close(f->listen_sock);
		unlink(f->path);
	}
	f->listen_sock = -1;
}

/* Delayed doorbells and forced downs */

static void queue_remove(struct vlink_faults *f, unsigned int i)
{
	f->queue[i] = f->queue[--f->queued];
}

/*
 * A full queue folds the doorbell into one already waiting for the same
 * vector: the target sees a single interrupt for both either way, and that
 * one comes after both state changes, so nothing is lost but some delay.
 */
static void queue_add(struct vlink_faults *f, int role, int vector,
		      __u64 count, long long due)
{
	unsigned int i;

	if (f->queued < FAULT_QUEUE_LEN) {
		f->queue[f->queued++] = (struct fault_delayed){
			.due = due, .role = role, .vector = vector,
			.count = count,
		};
		return;
	}
	for (i = 0; i < f->queued; i++) {
		if (f->queue[i].role == role && f->queue[i].vector == vector) {
			f->queue[i].count += count;
			break;
		}
	}
	if (!f->queue_full_logged)
		vlog("fault: delay queue full (%d doorbells); merging doorbells to the same vector",
		     FAULT_QUEUE_LEN);
	f->queue_full_logged = true;
}

static void queue_purge(struct vlink_faults *f, int role)
{
	unsigned int i = 0;

	while (i < f->queued) {
		if (f->queue[i].role == role)
			queue_remove(f, i);
		else
			i++;
	}
}

static void down_end(struct vlink_link *link, int role, const char *why)
{
	struct fault_role *fr = &link->faults.role[role];

	fr->down_until = 0;
	shm_force_present(&link->shm, role, true);
	vlog("fault: %s is back on the link (%s)", link_role_name(role), why);
	link_ring_all(link);
}

/*
 * A role's QEMU came or went: a forced down of it ends without restoring
 * the flag (the arrival or departure sets it), and the doorbells held for
 * its old eventfds are discarded.
 */
void faults_peer_changed(struct vlink_link *link, int role, bool arrived)
{
	struct fault_role *fr = &link->faults.role[role];

	if (fr->down_until) {
		vlog("fault: forced down of %s ends: its QEMU %s",
		     link_role_name(role), arrived ? "arrived" : "left");
		fr->down_until = 0;
	}
	queue_purge(&link->faults, role);
}

/* For poll(): -1 when nothing is due, else ms until the first thing is. */
int faults_timeout_ms(struct vlink_link *link)
{
	struct vlink_faults *f = &link->faults;
	long long now = fault_now_ms(), first = LLONG_MAX, wait;
	unsigned int i;
	int role;

	for (i = 0; i < f->queued; i++)
		if (f->queue[i].due < first)
			first = f->queue[i].due;
	for (role = 0; role < VLINK_NR_ROLES; role++)
		if (f->role[role].down_until &&
		    f->role[role].down_until < first)
			first = f->role[role].down_until;
	if (first == LLONG_MAX)
		return -1;
	wait = first - now;
	if (wait < 0)
		return 0;
	return wait > INT_MAX ? INT_MAX : (int)wait;
}

void faults_run_timers(struct vlink_link *link)
{
	struct vlink_faults *f = &link->faults;
	long long now = fault_now_ms();
	struct fault_delayed d;
	unsigned int i = 0;
	int role;

	while (i < f->queued) {
		if (f->queue[i].due > now) {
			i++;
			continue;
		}
		d = f->queue[i];
		queue_remove(f, i);
		f->role[d.role].cnt.forwarded += d.count;
		link_ring(link, d.role, d.vector, d.count);
	}
	for (role = 0; role < VLINK_NR_ROLES; role++)
		if (f->role[role].down_until && f->role[role].down_until <= now)
			down_end(link, role, "forced down expired");
}

/* The mailboxes */

/* EP and RC are each other's link partner; the monitor has none. */
static bool link_is_down_for(struct vlink_faults *f, int role)
{
	if (f->role[role].down_until)
		return true;
	if (role == VLINK_ROLE_EP)
		return f->role[VLINK_ROLE_RC].down_until;
	if (role == VLINK_ROLE_RC)
		return f->role[VLINK_ROLE_EP].down_until;
	return false;
}

static __u64 take_drops(unsigned int *left, __u64 count)
{
	__u64 n = count < *left ? count : *left;

	*left -= n;
	return n;
}

/**
 * faults_mailbox() - a guest rang @role's @vector: forward it, or not
 * @link: the link
 * @role: the target role, whose mailbox is readable
 * @vector: which of its vectors
 */
void faults_mailbox(struct vlink_link *link, int role, int vector)
{
	struct vlink_faults *f = &link->faults;
	struct fault_role *fr = &f->role[role];
	__u64 count, dropped;

	if (read(link->peer[role].mbox[vector], &count, sizeof(count)) !=
	    sizeof(count))
		return;		/* EAGAIN: someone else's wakeup */
	fr->cnt.rung += count;

	if (link_is_down_for(f, role)) {
		fr->cnt.dropped += count;
		return;
	}
	dropped = take_drops(&fr->drop[vector], count);
	dropped += take_drops(&fr->drop[FAULT_ANY_VECTOR], count - dropped);
	if (dropped) {
		fr->cnt.dropped += dropped;
		vlog("fault: dropped %llu %s doorbell(s) to %s; %u + %u any still to drop",
		     (unsigned long long)dropped, vector_names[vector],
		     link_role_name(role), fr->drop[vector],
		     fr->drop[FAULT_ANY_VECTOR]);
		count -= dropped;
		if (!count)
			return;
	}
	if (fr->delay_ms) {
		fr->cnt.delayed += count;
		queue_add(f, role, vector, count,
			  fault_now_ms() + fr->delay_ms);
		return;
	}
	fr->cnt.forwarded += count;
	link_ring(link, role, vector, count);
}

/* The control socket */

static int parse_role(const char *word)
{
	int role;

	if (!word)
		return -1;
	for (role = 0; role < VLINK_NR_ROLES; role++)
		if (!strcmp(word, link_role_name(role)))
			return role;
	return -1;
}

static int parse_vector(const char *word)
{
	int v;

	if (!word)
		return -1;
	for (v = 0; v <= FAULT_ANY_VECTOR; v++)
		if (!strcmp(word, vector_names[v]))
			return v;
	return -1;
}

/* A decimal number in [min, max], nothing else; false otherwise. */
static bool parse_uint(const char *word, unsigned long min, unsigned long max,
		       unsigned int *val)
{
	unsigned long n;
	char *end;

	if (!word || *word < '0' || *word > '9')
		return false;
	errno = 0;
	n = strtoul(word, &end, 10);
	if (errno || *end || n < min || n > max)
		return false;
	*val = (unsigned int)n;
	return true;
}

__printf(3, 4) static void reply_err(char *reply, size_t size,
				     const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(reply, size, "error: ");
	va_start(ap, fmt);
	vsnprintf(reply + n, size - n, fmt, ap);
	va_end(ap);
}

static void cmd_drop(struct vlink_faults *f, char **arg, int nr,
		     char *reply, size_t size)
{
	int role = nr > 1 ? parse_role(arg[1]) : -1;
	int v = nr > 2 ? parse_vector(arg[2]) : -1;
	unsigned int n = 1;

	if (nr < 3 || nr > 4) {
		reply_err(reply, size, "usage: drop ROLE VECTOR [N]");
		return;
	}
	if (role < 0 || v < 0) {
		reply_err(reply, size, "drop: unknown %s '%s'",
			  role < 0 ? "role" : "vector",
			  role < 0 ? arg[1] : arg[2]);
		return;
	}
	if (nr == 4 && !parse_uint(arg[3], 0, FAULT_DROP_MAX, &n)) {
		reply_err(reply, size,
			  "drop: N must be a number from 0 to %d, not '%s'",
			  FAULT_DROP_MAX, arg[3]);
		return;
	}
	f->role[role].drop[v] = n;
	snprintf(reply, size, "ok dropping the next %u %s doorbell(s) to %s",
		 n, vector_names[v], link_role_name(role));
}

static void cmd_delay(struct vlink_faults *f, char **arg, int nr,
		      char *reply, size_t size)
{
	int role = nr > 1 ? parse_role(arg[1]) : -1;
	unsigned int ms;

	if (nr != 3) {
		reply_err(reply, size, "usage: delay ROLE MS");
		return;
	}
	if (role < 0) {
		reply_err(reply, size, "delay: unknown role '%s'", arg[1]);
		return;
	}
	if (!parse_uint(arg[2], 0, FAULT_DELAY_MAX_MS, &ms)) {
		reply_err(reply, size,
			  "delay: MS must be a number from 0 to %d, not '%s'",
			  FAULT_DELAY_MAX_MS, arg[2]);
		return;
	}
	f->role[role].delay_ms = ms;
	snprintf(reply, size, "ok doorbells to %s delayed by %u ms",
		 link_role_name(role), ms);
}

static void cmd_down(struct vlink_link *link, char **arg, int nr,
		     char *reply, size_t size)
{
	int role = nr > 1 ? parse_role(arg[1]) : -1;
	struct fault_role *fr;
	unsigned int ms;

	if (nr != 3) {
		reply_err(reply, size, "usage: down ep|rc MS");
		return;
	}
	if (role != VLINK_ROLE_EP && role != VLINK_ROLE_RC) {
		reply_err(reply, size, "down: '%s' is not ep or rc", arg[1]);
		return;
	}
	if (!parse_uint(arg[2], 1, FAULT_DOWN_MAX_MS, &ms)) {
		reply_err(reply, size,
			  "down: MS must be a number from 1 to %d, not '%s'",
			  FAULT_DOWN_MAX_MS, arg[2]);
		return;
	}
	if (!link_peer_connected(link, role)) {
		reply_err(reply, size, "down: %s is not connected", link_role_name(role));
		return;
	}
	fr = &link->faults.role[role];
	if (!fr->down_until) {
		shm_force_present(&link->shm, role, false);
		vlog("fault: %s forced off the link for %u ms",
		     link_role_name(role), ms);
		link_ring_all(link);
	}
	fr->down_until = fault_now_ms() + ms;
	snprintf(reply, size, "ok %s down for %u ms", link_role_name(role), ms);
}

static void cmd_up(struct vlink_link *link, char **arg, int nr,
		   char *reply, size_t size)
{
	int role = nr > 1 ? parse_role(arg[1]) : -1;

	if (nr != 2 || role < 0) {
		reply_err(reply, size, "usage: up ep|rc");
		return;
	}
	if (!link->faults.role[role].down_until) {
		reply_err(reply, size, "up: %s is not forced down", link_role_name(role));
		return;
	}
	down_end(link, role, "on request");
	snprintf(reply, size, "ok %s back on the link", link_role_name(role));
}

static void cmd_dma_stall(struct vlink_link *link, char **arg, int nr,
			  char *reply, size_t size)
{
	unsigned int ms;

	if (nr != 2) {
		reply_err(reply, size, "usage: dma-stall MS");
		return;
	}
	if (!link->dma) {
		reply_err(reply, size, "dma-stall: this server has no DMA engine");
		return;
	}
	if (!parse_uint(arg[1], 0, FAULT_DELAY_MAX_MS, &ms)) {
		reply_err(reply, size,
			  "dma-stall: MS must be a number from 0 to %d, not '%s'",
			  FAULT_DELAY_MAX_MS, arg[1]);
		return;
	}
	dma_stall_next(link->dma, ms);
	snprintf(reply, size, "ok the next DMA descriptor waits %u ms", ms);
}

static void cmd_clear(struct vlink_faults *f, char *reply, size_t size)
{
	int role;

	for (role = 0; role < VLINK_NR_ROLES; role++) {
		memset(f->role[role].drop, 0, sizeof(f->role[role].drop));
		f->role[role].delay_ms = 0;
	}
	snprintf(reply, size, "ok drops and delays cleared");
}

/* Doorbells to @role held back by a delay right now. */
static unsigned long long held(struct vlink_faults *f, int role)
{
	unsigned long long n = 0;
	unsigned int i;

	for (i = 0; i < f->queued; i++)
		if (f->queue[i].role == role)
			n += f->queue[i].count;
	return n;
}

/* One line: per role what is armed and the counters. */
static void cmd_status(struct vlink_link *link, char *reply, size_t size)
{
	long long now = fault_now_ms();
	size_t len;
	int role;

	len = snprintf(reply, size, "ok");
	for (role = 0; role < VLINK_NR_ROLES && len < size; role++) {
		struct fault_role *fr = &link->faults.role[role];

		len += snprintf(reply + len, size - len,
				"%s %s: %s drop link=%u irq=%u ping=%u pong=%u dma=%u any=%u delay=%ums down=%lldms rung=%llu forwarded=%llu dropped=%llu delayed=%llu held=%llu",
				role ? ";" : "", link_role_name(role),
				link_peer_connected(link, role) ?
				"connected" : "absent",
				fr->drop[VLINK_VEC_LINK],
				fr->drop[VLINK_VEC_IRQ],
				fr->drop[VLINK_VEC_PING],
				fr->drop[VLINK_VEC_PONG],
				fr->drop[VLINK_VEC_DMA],
				fr->drop[FAULT_ANY_VECTOR], fr->delay_ms,
				fr->down_until ? fr->down_until - now : 0,
				fr->cnt.rung, fr->cnt.forwarded,
				fr->cnt.dropped, fr->cnt.delayed,
				held(&link->faults, role));
	}
}

static void cmd_help(char *reply, size_t size)
{
	snprintf(reply, size,
		 "ok commands: drop ROLE VECTOR [N] | delay ROLE MS | down ep|rc MS | up ep|rc | dma-stall MS | clear | status | help; ROLE ep|rc|monitor, VECTOR link|irq|ping|pong|dma|any");
}

static void run_command(struct vlink_link *link, char *line, char *reply,
			size_t size)
{
	char *arg[FAULT_MAX_WORDS], *save = NULL, *word;
	int nr = 0;

	for (word = strtok_r(line, " \t\r", &save); word;
	     word = strtok_r(NULL, " \t\r", &save)) {
		if (nr == FAULT_MAX_WORDS) {
			reply_err(reply, size, "too many words");
			return;
		}
		arg[nr++] = word;
	}
	if (!nr)
		reply_err(reply, size, "empty command (try 'help')");
	else if (!strcmp(arg[0], "drop"))
		cmd_drop(&link->faults, arg, nr, reply, size);
	else if (!strcmp(arg[0], "delay"))
		cmd_delay(&link->faults, arg, nr, reply, size);
	else if (!strcmp(arg[0], "down"))
		cmd_down(link, arg, nr, reply, size);
	else if (!strcmp(arg[0], "up"))
		cmd_up(link, arg, nr, reply, size);
	else if (!strcmp(arg[0], "dma-stall"))
		cmd_dma_stall(link, arg, nr, reply, size);
	else if (!strcmp(arg[0], "clear") && nr == 1)
		cmd_clear(&link->faults, reply, size);
	else if (!strcmp(arg[0], "status") && nr == 1)
		cmd_status(link, reply, size);
	else if (!strcmp(arg[0], "help") && nr == 1)
		cmd_help(reply, size);
	else
		reply_err(reply, size, "unknown command '%s' (try 'help')", arg[0]);
}

/* Returns false when the client must go: it does not take our answers. */
static bool client_reply(struct fault_client *c, const char *reply)
{
	char line[FAULT_REPLY_MAX + 1];
	size_t len = strlen(reply);
	ssize_t n;

	if (len > FAULT_REPLY_MAX - 1)
		len = FAULT_REPLY_MAX - 1;
	memcpy(line, reply, len);
	line[len++] = '\n';
	n = send(c->sock, line, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	return n == (ssize_t)len;
}

/* Returns false when the client must go. */
static bool client_line(struct vlink_link *link, struct fault_client *c,
			char *line)
{
	char reply[FAULT_REPLY_MAX], shown[FAULT_LINE_MAX];

	snprintf(shown, sizeof(shown), "%s", line);
	reply[0] = '\0';
	run_command(link, line, reply, sizeof(reply));
	if (!strncmp(reply, "error:", 6))
		vlog("control: '%s' refused: %s", shown, reply + 7);
	else
		vlog("control: '%s': %s", shown, reply);
	return client_reply(c, reply);
}

void faults_accept(struct vlink_link *link)
{
	struct vlink_faults *f = &link->faults;
	int sock, i;

	sock = accept4(f->listen_sock, NULL, NULL,
		       SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (sock < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			vlog("control: accept: %s", strerror(errno));
		return;
	}
	for (i = 0; i < FAULT_MAX_CLIENTS; i++) {
		if (f->client[i].sock < 0) {
			f->client[i].sock = sock;
			return;
		}
	}
	vlog("control: refused a client: already %d connected",
	     FAULT_MAX_CLIENTS);
	send(sock, "error: too many control clients\n", 32,
	     MSG_DONTWAIT | MSG_NOSIGNAL);
	close(sock);
}

void faults_client_input(struct vlink_link *link, int idx)
{
	struct fault_client *c = &link->faults.client[idx];
	char buf[FAULT_LINE_MAX];
	ssize_t n;
	size_t i;

	n = recv(c->sock, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		client_close(c);
		return;
	}
	for (i = 0; i < (size_t)n; i++) {
		if (buf[i] != '\n') {
			if (c->len < FAULT_LINE_MAX - 1)
				c->buf[c->len++] = buf[i];
			else
				c->overlong = true;
			continue;
		}
		c->buf[c->len] = '\0';
		c->len = 0;
		if (c->overlong) {
			c->overlong = false;
			vlog("control: refused a line longer than %d bytes",
			     FAULT_LINE_MAX - 1);
			if (!client_reply(c, "error: line too long"))
				goto drop;
			continue;
		}
		if (!client_line(link, c, c->buf))
			goto drop;
	}
	return;

drop:
	vlog("control: client does not read its answers; dropping it");
	client_close(c);
}
