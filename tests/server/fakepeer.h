/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fake ivshmem clients for testing vlink-server without QEMU.
 */
#ifndef VLINK_TEST_FAKEPEER_H
#define VLINK_TEST_FAKEPEER_H

#include <stdbool.h>
#include <stdnoreturn.h>
#include <linux/types.h>
#include <linux/vlink.h>

/* Every wait for the server is bounded by this. */
#define TIMEOUT_MS	3000
/* How long "nothing happens" is watched for. */
#define QUIET_MS	200

struct fake_peer {
	const char *name;
	int role;
	int sock;
	struct vlink_header *hdr;	/* the shm, mapped */
	char *shm;
	int own[VLINK_NR_VECTORS];
	int peer[VLINK_NR_ROLES][VLINK_NR_VECTORS];
	/* EP only: the DMA engine's ring doorbells, when the server has one. */
	int engine[VLINK_DMA_RINGS];
	int nr_engine;
};

__printf(1, 2) noreturn void fail(const char *fmt, ...);

void test_set_dir(const char *dir);
const char *test_path(const char *file);
const char *role_name(int role);

int sock_connect(const char *path);
void fake_init(struct fake_peer *p, int role);
void fake_handshake(struct fake_peer *p, const int *others, int nr_others);
void fake_expect_join(struct fake_peer *p, int role);
void fake_expect_left(struct fake_peer *p, int role);
void fake_expect_eof(struct fake_peer *p, const char *what);
void fake_expect_quiet(struct fake_peer *p);
void fake_close(struct fake_peer *p);

char *side_area(struct fake_peer *p, int role);
void check_side_filled(struct fake_peer *p, int role, int byte);

bool efd_wait(int fd, int timeout_ms);
void efd_ring(int fd);
void efd_expect_rung(int fd, const char *what);
void efd_expect_quiet(int fd, const char *what);
void check_linked(struct fake_peer *from, struct fake_peer *to);
void check_quiet(struct fake_peer *p);

#endif /* VLINK_TEST_FAKEPEER_H */
