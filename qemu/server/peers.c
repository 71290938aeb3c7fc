// SPDX-License-Identifier: GPL-2.0
/*
 * vlink-server: the peers of the link and what happens when they come and go.
 *
 * Each role (EP, RC, monitor) has its own socket and a fixed peer id, so a
 * guest's drivers know who is who without asking.  On top of the plain
 * ivshmem server protocol, every arrival or departure of EP or RC resets
 * that role's side area in the shm and rings the LINK vector of the others,
 * which is how a driver learns that its partner appeared or died.
 *
 * Normally each peer gets the other peers' own eventfds, and doorbells go
 * from QEMU to QEMU without us.  When the server interposes (fault
 * injection), each peer gets, for every other role's vector, a mailbox
 * eventfd of ours instead; faults.c forwards what rings there.
 *
 * A role's eventfds are made at its first arrival and kept for the
 * server's life; a departure is never announced.  Because the ids are
 * fixed, a returning role comes back under the same id, and QEMU's
 * ivshmem (7.2) cannot take an id back once told it left: the disconnect
 * message frees that peer's eventfd array without forgetting the pointer,
 * and the next connect messages for the id write into the freed memory
 * (glibc then aborts in malloc_consolidate()).  With kept eventfds the
 * others never need to hear of a departure or a return, and liveness is
 * in the shm header anyway.
 *
 * With a DMA engine (dma.c), the EP also hears of peers that are no
 * guests: the engine's rings, whose doorbells are eventfds of ours.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dma.h"
#include "peers.h"
#include "log.h"
#include "sock.h"

static const char *const role_names[VLINK_NR_ROLES] = {
	[VLINK_ROLE_EP] = "ep",
	[VLINK_ROLE_RC] = "rc",
	[VLINK_ROLE_MONITOR] = "monitor",
};

const char *link_role_name(int role)
{
	return role_names[role];
}

static bool peer_connected(struct vlink_link *link, int role)
{
	return link->peer[role].sock >= 0;
}

bool link_peer_connected(struct vlink_link *link, int role)
{
	return peer_connected(link, role);
}

static bool peer_has_vectors(struct vlink_peer *p)
{
	return p->efd[0] >= 0;
}

/* Doorbells rung for a role while it was away are not for its new QEMU. */
static void peer_drain(const int *fds)
{
	__u64 count;
	int v;

	for (v = 0; v < VLINK_NR_VECTORS; v++)
		if (fds[v] >= 0 &&
		    read(fds[v], &count, sizeof(count)) < 0 && errno != EAGAIN)
			vlog("cannot drain an eventfd: %s", strerror(errno));
}

/*
 * Non-blocking like QEMU's own ivshmem-server: ringing never stalls.
 * Returns 1 when the eventfds were made now, 0 when they already existed.
 */
static int peer_open_vectors(struct vlink_link *link, int role)
{
	struct vlink_peer *p = &link->peer[role];
	int v;

	if (peer_has_vectors(p))
		return 0;
	for (v = 0; v < VLINK_NR_VECTORS; v++) {
		p->efd[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (p->efd[v] < 0)
			goto fail;
		if (!link->interpose)
			continue;
		p->mbox[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (p->mbox[v] < 0)
			goto fail;
	}
	return 1;
fail:
	vlog("%s: eventfd: %s", role_names[role], strerror(errno));
	for (v = 0; v < VLINK_NR_VECTORS; v++) {
		if (p->efd[v] >= 0)
			close(p->efd[v]);
		if (p->mbox[v] >= 0)
			close(p->mbox[v]);
		p->efd[v] = -1;
		p->mbox[v] = -1;
	}
	return -1;
}

void link_init(struct vlink_link *link)
{
	int role;

	memset(link, 0, sizeof(*link));
	link->shm.fd = -1;
	for (role = 0; role < VLINK_NR_ROLES; role++) {
		link->peer[role].sock = -1;
		memset(link->peer[role].efd, 0xff, sizeof(link->peer[role].efd));
		memset(link->peer[role].mbox, 0xff,
		       sizeof(link->peer[role].mbox));
	}
	faults_init(&link->faults);
}

/*
 * A failed send is only recorded here: dropping the peer on the spot would
 * send more messages from the middle of another peer's arrival or departure.
 */
static void peer_send(struct vlink_link *link, int to, __s64 val, int fd)
{
	struct vlink_peer *p = &link->peer[to];
	int ret;

	if (p->failed)
		return;
	ret = sock_send_msg(p->sock, val, fd);
	if (ret) {
		vlog("%s: send failed: %s; dropping it", role_names[to],
		     strerror(-ret));
		p->failed = true;
	}
}

/*
 * Tells @to about @of: @of's id once per vector, with the eventfds that
 * ring @of: its own ones, or our mailboxes in front of them.
 */
static void peer_send_vectors(struct vlink_link *link, int to, int of)
{
	const int *fds = link->peer[of].efd;
	int v;

	if (link->interpose && to != of)
		fds = link->peer[of].mbox;
	for (v = 0; v < VLINK_NR_VECTORS; v++)
		peer_send(link, to, VLINK_PEER_ID(of), fds[v]);
}

/**
 * link_ring() - ring a connected role's vector, on its own eventfd
 * @link: the link
 * @role: whose vector
 * @vector: which one
 * @count: how many doorbells (an eventfd adds them up)
 */
void link_ring(struct vlink_link *link, int role, int vector, __u64 count)
{
	if (!peer_connected(link, role) || !count)
		return;
	if (write(link->peer[role].efd[vector], &count, sizeof(count)) !=
	    sizeof(count))
		vlog("%s: cannot ring its vector %d: %s", role_names[role],
		     vector, strerror(errno));
}

/* Every connected role re-reads the shm: our own change of the header. */
void link_ring_all(struct vlink_link *link)
{
	int role;

	for (role = 0; role < VLINK_NR_ROLES; role++)
		link_ring(link, role, VLINK_VEC_LINK, 1);
}

/*
 * The monitor only watches: EP and RC need not hear about its comings and
 * goings, but it does hear about theirs.
 */
static void link_ring_others(struct vlink_link *link, int changed)
{
	int role;

	if (changed == VLINK_ROLE_MONITOR)
		return;
	for (role = 0; role < VLINK_NR_ROLES; role++)
		if (role != changed)
			link_ring(link, role, VLINK_VEC_LINK, 1);
}

/*
 * The engine's rings, to the EP alone: ring r is peer VLINK_DMA_PEER_ID(r)
 * vector VLINK_DMA_VECTOR(r), so going through the rings in order sends
 * each id's eventfds in vector order, as the protocol wants them.  QEMU
 * takes at most its vector count per id, hence several ids.  The engine
 * itself waits on these: no mailbox, no fault ever comes between.
 */
static void link_send_engine(struct vlink_link *link, int to)
{
	int r;

	for (r = 0; r < VLINK_DMA_RINGS; r++)
		peer_send(link, to, VLINK_DMA_PEER_ID(r),
			  dma_doorbell(link->dma, r));
}

/*
 * A newcomer hears of every role that has eventfds, present or not, and
 * of itself last: QEMU's ivshmem sets its own vectors up from the fds for
 * its own id and takes the handshake to be over with them.
 */
static void link_handshake(struct vlink_link *link, int role)
{
	int other;

	peer_send(link, role, 0, -1);		/* protocol version */
	peer_send(link, role, VLINK_PEER_ID(role), -1);
	peer_send(link, role, -1, link->shm.fd);
	for (other = 0; other < VLINK_NR_ROLES; other++)
		if (other != role && peer_has_vectors(&link->peer[other]))
			peer_send_vectors(link, role, other);
	if (role == VLINK_ROLE_EP && link->dma)
		link_send_engine(link, role);
	peer_send_vectors(link, role, role);
}

void link_accept(struct vlink_link *link, int role, int listen_sock)
{
	struct vlink_peer *p = &link->peer[role];
	int sock, other, created;

	sock = accept4(listen_sock, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (sock < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			vlog("%s: accept: %s", role_names[role],
			     strerror(errno));
		return;
	}
	if (peer_connected(link, role)) {
		vlog("%s: refused a second client: peer id %d is still connected",
		     role_names[role], VLINK_PEER_ID(role));
		close(sock);
		return;
	}
	created = peer_open_vectors(link, role);
	if (created < 0) {
		vlog("%s: refusing the client", role_names[role]);
		close(sock);
		return;
	}
	peer_drain(p->efd);
	peer_drain(p->mbox);
	if (role == VLINK_ROLE_EP && link->dma)
		dma_set_done_fd(link->dma, p->efd[VLINK_VEC_DMA]);
	p->sock = sock;
	p->failed = false;
	p->chatty = false;

	/* The state is reset before the client can see the shm at all. */
	faults_peer_changed(link, role, true);
	shm_set_present(&link->shm, role, true);
	vlog("%s connected: peer id %d, connection %u", role_names[role],
	     VLINK_PEER_ID(role), le32toh(link->shm.hdr->connects[role]));

	link_handshake(link, role);
	/* Those present learn of its eventfds once, when they are made. */
	for (other = 0; created && other < VLINK_NR_ROLES; other++)
		if (other != role && peer_connected(link, other))
			peer_send_vectors(link, other, role);
	link_ring_others(link, role);
}

static void link_drop(struct vlink_link *link, int role, const char *why)
{
	struct vlink_peer *p = &link->peer[role];

	vlog("%s disconnected: peer id %d, %s", role_names[role],
	     VLINK_PEER_ID(role), why);
	close(p->sock);
	p->sock = -1;
	p->failed = false;

	faults_peer_changed(link, role, false);
	shm_set_present(&link->shm, role, false);
	link_ring_others(link, role);
}

/*
 * ivshmem clients never send anything, so any input is either the end of
 * the connection or noise; noise is read and dropped so it cannot pile up.
 * Descriptors a client passes are discarded by the kernel, since we
 * receive without a control buffer.
 */
void link_input(struct vlink_link *link, int role)
{
	struct vlink_peer *p = &link->peer[role];
	char buf[4096];
	ssize_t n;

	n = recv(p->sock, buf, sizeof(buf), MSG_DONTWAIT);
	if (n > 0) {
		if (!p->chatty)
			vlog("%s: client sent data, ignoring it (and any more)",
			     role_names[role]);
		p->chatty = true;
	} else if (n == 0) {
		link_drop(link, role, "connection closed");
	} else if (errno != EAGAIN && errno != EINTR) {
		link_drop(link, role, strerror(errno));
	}
}

/* Drops the peers a send failed to (a departure sends nothing more). */
void link_reap(struct vlink_link *link)
{
	int role;

	for (role = 0; role < VLINK_NR_ROLES; role++)
		if (peer_connected(link, role) && link->peer[role].failed)
			link_drop(link, role, "send failed");
}

void link_close_all(struct vlink_link *link)
{
	int role;

	for (role = 0; role < VLINK_NR_ROLES; role++)
		if (peer_connected(link, role))
			link_drop(link, role, "server exiting");
}
