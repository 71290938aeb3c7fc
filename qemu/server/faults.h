/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlink-server: doorbell interposition and fault injection on request.
 */
#ifndef VLINK_SERVER_FAULTS_H
#define VLINK_SERVER_FAULTS_H

#include <stdbool.h>
#include <linux/vlink.h>

#define FAULT_MAX_CLIENTS	4	/* control connections at once */
#define FAULT_LINE_MAX		256	/* longest command line, newline included */
#define FAULT_QUEUE_LEN		256	/* delayed doorbells in flight */
#define FAULT_DELAY_MAX_MS	60000
#define FAULT_DOWN_MAX_MS	600000
#define FAULT_DROP_MAX		1000000

/* A vector index meaning "any vector" in the drop counters. */
#define FAULT_ANY_VECTOR	VLINK_NR_VECTORS

struct fault_client {
	int sock;			/* -1 when the slot is free */
	unsigned int len;		/* bytes of an unfinished line in buf */
	bool overlong;			/* discarding the rest of a long line */
	char buf[FAULT_LINE_MAX];
};

/* A doorbell held back by a delay, forwarded at @due (monotonic ms). */
struct fault_delayed {
	long long due;
	int role;
	int vector;
	__u64 count;
};

struct fault_counters {
	unsigned long long rung;	/* doorbells that reached a mailbox */
	unsigned long long forwarded;	/* passed on (at once or later) */
	unsigned long long dropped;	/* by a drop rule or a forced down */
	unsigned long long delayed;	/* held back by a delay */
};

/* What is armed against the doorbells to one role. */
struct fault_role {
	unsigned int drop[VLINK_NR_VECTORS + 1];	/* + FAULT_ANY_VECTOR */
	unsigned int delay_ms;
	long long down_until;		/* 0: not forced down */
	struct fault_counters cnt;
};

struct vlink_faults {
	const char *path;		/* NULL: no control socket, no faults */
	int listen_sock;
	struct fault_client client[FAULT_MAX_CLIENTS];
	struct fault_role role[VLINK_NR_ROLES];
	struct fault_delayed queue[FAULT_QUEUE_LEN];
	unsigned int queued;
	bool queue_full_logged;
};

struct vlink_link;

long long fault_now_ms(void);
void faults_init(struct vlink_faults *f);
int faults_listen(struct vlink_faults *f, const char *path);
void faults_close(struct vlink_faults *f);
int faults_timeout_ms(struct vlink_link *link);
void faults_run_timers(struct vlink_link *link);
void faults_accept(struct vlink_link *link);
void faults_client_input(struct vlink_link *link, int idx);
void faults_mailbox(struct vlink_link *link, int role, int vector);
void faults_peer_changed(struct vlink_link *link, int role, bool arrived);

#endif /* VLINK_SERVER_FAULTS_H */
