/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test cases of test-server, and what the case files share.
 */
#ifndef VLINK_TEST_CASES_H
#define VLINK_TEST_CASES_H

#include <stddef.h>
#include <sys/types.h>

#include "fakepeer.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct test_case {
	const char *name;
	void (*run)(void);
};

/* test-dma.c: the DMA engine (servers started with the RAM files) */
extern const struct test_case dma_cases[];
extern const size_t nr_dma_cases;

/* test-server.c */
void connect_ep_rc(struct fake_peer *ep, struct fake_peer *rc);
int control_connect(void);
void control_ok(int sock, const char *cmd);
pid_t read_server_pid(void);

#endif /* VLINK_TEST_CASES_H */
