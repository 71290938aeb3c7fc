// SPDX-License-Identifier: GPL-2.0
/*
 * vlink-server: ivshmem server and link manager for the virtual PCIe link.
 *
 * One listening socket per role (EP, RC, optional monitor), one shared
 * memory, one poll() loop, and with the guests' RAM files a DMA engine
 * with a thread per ring (dma.c).  See include/uapi/linux/vlink.h for the
 * wire format and docs/ for how the guests use it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "dma.h"
#include "peers.h"
#include "log.h"
#include "sock.h"

#define EXIT_USAGE	2

static_assert(VLINK_DMA_REGIONS <= 10, "--dma-region takes one digit");

/* Long options without a short one. */
enum {
	OPT_EP_RAM = 0x100,
	OPT_RC_RAM,
	OPT_RAM_MB,
	OPT_DMA_REGION,
};

struct options {
	const char *path[VLINK_NR_ROLES];
	const char *pidfile;
	const char *control;
	const char *ram[VLINK_DMA_NR_RAMS];	/* NULL: no DMA engine */
	const char *ram_mb_arg;
	unsigned int ram_mb;
	const char *dma_region_arg;
	unsigned int dma_region;
};

struct server {
	struct options opt;
	struct vlink_link link;
	struct vlink_dma dma;
	int listen_sock[VLINK_NR_ROLES];
	int sigfd;
	bool pidfile_written;
};

static void print_usage(FILE *out)
{
	fprintf(out,
		"usage: vlink-server --ep SOCKET --rc SOCKET [--monitor SOCKET]\n"
		"                    [--control SOCKET] [--pidfile FILE]\n"
		"                    [--ep-ram FILE --rc-ram FILE --ram-mb N\n"
		"                     [--dma-region K]]\n"
		"\n"
		"ivshmem server (protocol 0) and link manager of the vlink\n"
		"virtual PCIe link.  Each role gets its own unix socket and a\n"
		"fixed peer id (ep %d, rc %d, monitor %d).\n"
		"\n"
		"  -e, --ep SOCKET       socket of the endpoint guest's QEMU\n"
		"  -r, --rc SOCKET       socket of the root-complex guest's QEMU\n"
		"  -m, --monitor SOCKET  socket of an optional observer peer\n"
		"  -c, --control SOCKET  fault injection: every doorbell passes\n"
		"                        through the server, which takes one\n"
		"                        command per line on SOCKET and answers\n"
		"                        each with one line, 'ok ...' or\n"
		"                        'error: ...'\n"
		"  -p, --pidfile FILE    written once all sockets listen\n"
		"      --ep-ram FILE     the endpoint guest's RAM file\n"
		"      --rc-ram FILE     the root-complex guest's RAM file\n"
		"      --ram-mb N        their size in MiB, which they must have\n"
		"                        (more than %d); with all three the\n"
		"                        server runs the link's DMA engine, which\n"
		"                        copies between the two RAMs as the\n"
		"                        endpoint asks in rings in its RAM, and\n"
		"                        announces a doorbell per ring to the\n"
		"                        endpoint (peer ids %d and up); without,\n"
		"                        the guests copy on their own CPUs\n"
		"      --dma-region K    the rings are in the endpoint's K-th\n"
		"                        DMA region (its K-th link, 0 to %d;\n"
		"                        default 0)\n"
		"  -h, --help            show this help\n"
		"\n"
		"Control commands (ROLE ep|rc|monitor,\n"
		"VECTOR link|irq|ping|pong|dma|any):\n"
		"  drop ROLE VECTOR [N]  drop the next N (default 1, 0 disarms)\n"
		"                        doorbells to ROLE on VECTOR\n"
		"  delay ROLE MS         hold every doorbell to ROLE back MS ms\n"
		"                        (0: no more delay)\n"
		"  down ep|rc MS         take the role off the link for MS ms:\n"
		"                        present[role] reads 0, LINK rung on\n"
		"                        all, doorbells between ep and rc dropped,\n"
		"                        DMA to or from its RAM refused; then\n"
		"                        present again and LINK rung\n"
		"  up ep|rc              end a forced down now\n"
		"  dma-stall MS          the DMA engine holds the next\n"
		"                        descriptor MS ms before its copy\n"
		"                        (an abort or a departure ends it)\n"
		"  clear                 disarm every drop and delay\n"
		"  status                what is armed, and per role counters\n"
		"                        rung, forwarded, dropped, delayed;\n"
		"                        held: delayed, not forwarded yet\n"
		"  help                  the command list\n"
		"\n"
		"Logs to stderr.  SIGTERM or SIGINT: clean exit, status 0.\n"
		"SIGUSR1: log what the DMA engine has copied, ring by ring.\n"
		"Exit status 2 on a usage error or a RAM file that is missing,\n"
		"not a regular file, or not of N MiB.\n",
		VLINK_PEER_ID(VLINK_ROLE_EP), VLINK_PEER_ID(VLINK_ROLE_RC),
		VLINK_PEER_ID(VLINK_ROLE_MONITOR),
		VLINK_DMA_REGIONS_END >> 20, VLINK_DMA_PEER_ID_BASE,
		VLINK_DMA_REGIONS - 1);
}

/* Returns 0 to run, 1 after --help, -1 on a usage error (already told). */
static int parse_args(int argc, char **argv, struct options *opt)
{
	static const struct option longopts[] = {
		{ "ep", required_argument, NULL, 'e' },
		{ "rc", required_argument, NULL, 'r' },
		{ "monitor", required_argument, NULL, 'm' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "control", required_argument, NULL, 'c' },
		{ "ep-ram", required_argument, NULL, OPT_EP_RAM },
		{ "rc-ram", required_argument, NULL, OPT_RC_RAM },
		{ "ram-mb", required_argument, NULL, OPT_RAM_MB },
		{ "dma-region", required_argument, NULL, OPT_DMA_REGION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long mb;
	char *end;
	int c, a, b;

	while ((c = getopt_long(argc, argv, "e:r:m:p:c:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'e':
			opt->path[VLINK_ROLE_EP] = optarg;
			break;
		case 'r':
			opt->path[VLINK_ROLE_RC] = optarg;
			break;
		case 'm':
			opt->path[VLINK_ROLE_MONITOR] = optarg;
			break;
		case 'p':
			opt->pidfile = optarg;
			break;
		case 'c':
			opt->control = optarg;
			break;
		case OPT_EP_RAM:
			opt->ram[VLINK_DMA_RAM_EP] = optarg;
			break;
		case OPT_RC_RAM:
			opt->ram[VLINK_DMA_RAM_RC] = optarg;
			break;
		case OPT_RAM_MB:
			opt->ram_mb_arg = optarg;
			errno = 0;
			mb = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || errno ||
			    !mb || mb > DMA_RAM_MB_MAX) {
				fprintf(stderr,
					"vlink-server: --ram-mb takes a number of MiB from 1 to %u, not '%s'\n",
					DMA_RAM_MB_MAX, optarg);
				goto bad;
			}
			opt->ram_mb = mb;
			break;
		case OPT_DMA_REGION:
			opt->dma_region_arg = optarg;
			if (optarg[0] < '0' ||
			    optarg[0] >= '0' + VLINK_DMA_REGIONS || optarg[1]) {
				fprintf(stderr,
					"vlink-server: --dma-region takes a region from 0 to %d, not '%s'\n",
					VLINK_DMA_REGIONS - 1, optarg);
				goto bad;
			}
			opt->dma_region = optarg[0] - '0';
			break;
		case 'h':
			print_usage(stdout);
			return 1;
		default:
			goto bad;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vlink-server: unexpected argument '%s'\n",
			argv[optind]);
		goto bad;
	}
	if (!opt->path[VLINK_ROLE_EP] || !opt->path[VLINK_ROLE_RC]) {
		fprintf(stderr, "vlink-server: --ep and --rc are required\n");
		goto bad;
	}
	for (a = 0; a < VLINK_NR_ROLES; a++)
		for (b = a + 1; b < VLINK_NR_ROLES; b++)
			if (opt->path[a] && opt->path[b] &&
			    !strcmp(opt->path[a], opt->path[b])) {
				fprintf(stderr,
					"vlink-server: --%s and --%s name the same socket\n",
					link_role_name(a), link_role_name(b));
				goto bad;
			}
	/* The engine needs both RAMs and their size, or nothing. */
	if ((opt->ram[VLINK_DMA_RAM_EP] || opt->ram[VLINK_DMA_RAM_RC] ||
	     opt->ram_mb_arg) &&
	    !(opt->ram[VLINK_DMA_RAM_EP] && opt->ram[VLINK_DMA_RAM_RC] &&
	      opt->ram_mb_arg)) {
		fprintf(stderr,
			"vlink-server: --ep-ram, --rc-ram and --ram-mb go together\n");
		goto bad;
	}
	if (opt->dma_region_arg && !opt->ram[VLINK_DMA_RAM_EP]) {
		fprintf(stderr,
			"vlink-server: --dma-region is for the DMA engine: give the RAM files too\n");
		goto bad;
	}
	for (a = 0; a < VLINK_NR_ROLES && opt->control; a++)
		if (opt->path[a] && !strcmp(opt->path[a], opt->control)) {
			fprintf(stderr,
				"vlink-server: --%s and --control name the same socket\n",
				link_role_name(a));
			goto bad;
		}
	return 0;

bad:
	print_usage(stderr);
	return -1;
}

/* Written under a temporary name and renamed: a reader never sees it half. */
static int write_pidfile(const char *path)
{
	char tmp[PATH_MAX];
	FILE *f;
	int n;

	n = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		vlog("%s: pidfile path too long", path);
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f) {
		vlog("%s: cannot create: %s", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "%d\n", (int)getpid());
	if (fclose(f) != 0) {
		vlog("%s: cannot write: %s", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path) < 0) {
		vlog("%s: cannot rename to %s: %s", tmp, path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * SIGTERM, SIGINT and SIGUSR1 are blocked and read from a signalfd in the
 * poll loop, so that no work at all happens in signal context.  SIGPIPE is
 * ignored: a vanished client shows up as an error on its socket instead.
 */
static int setup_signals(struct server *srv)
{
	sigset_t mask;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
		vlog("sigprocmask: %s", strerror(errno));
		return -1;
	}
	srv->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (srv->sigfd < 0) {
		vlog("signalfd: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Returns true when a signal asks us to exit; SIGUSR1 asks for stats. */
static bool read_signal(struct server *srv)
{
	struct signalfd_siginfo si;

	if (read(srv->sigfd, &si, sizeof(si)) != sizeof(si))
		return false;
	if (si.ssi_signo == SIGUSR1) {
		if (srv->link.dma)
			dma_log_stats(srv->link.dma);
		else
			vlog("dma stats: no DMA engine");
		return false;
	}
	vlog("got %s from pid %u, exiting",
	     si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT", si.ssi_pid);
	return true;
}

static int start_listening(struct server *srv)
{
	int role;

	for (role = 0; role < VLINK_NR_ROLES; role++) {
		if (!srv->opt.path[role])
			continue;
		srv->listen_sock[role] = sock_listen(srv->opt.path[role]);
		if (srv->listen_sock[role] < 0) {
			srv->listen_sock[role] = -1;
			return -1;
		}
		vlog("%s: listening on %s, peer id %d", link_role_name(role),
		     srv->opt.path[role], VLINK_PEER_ID(role));
	}
	if (srv->opt.control) {
		if (faults_listen(&srv->link.faults, srv->opt.control))
			return -1;
		srv->link.interpose = true;
		vlog("control: listening on %s; doorbells pass through the server",
		     srv->opt.control);
	}
	return 0;
}

/*
 * With both RAM files, the engine; a RAM file we cannot use is as much a
 * mistake in the command line as a missing option, hence EXIT_USAGE.
 */
static int map_rams(struct server *srv)
{
	struct options *opt = &srv->opt;

	if (!opt->ram[VLINK_DMA_RAM_EP]) {
		vlog("no DMA engine: no --ep-ram/--rc-ram; guests copy on their own CPUs");
		return 0;
	}
	if (dma_map(&srv->dma, opt->ram[VLINK_DMA_RAM_EP],
		    opt->ram[VLINK_DMA_RAM_RC], opt->ram_mb, opt->dma_region))
		return -1;
	srv->link.dma = &srv->dma;
	return 0;
}

/* Only what this server created is removed: never someone else's socket. */
static void cleanup(struct server *srv)
{
	int role;

	/* First: the threads read the link's state. */
	dma_stop(&srv->dma);
	link_close_all(&srv->link);
	faults_close(&srv->link.faults);
	for (role = 0; role < VLINK_NR_ROLES; role++) {
		if (srv->listen_sock[role] < 0)
			continue;
		close(srv->listen_sock[role]);
		unlink(srv->opt.path[role]);
	}
	if (srv->pidfile_written)
		unlink(srv->opt.pidfile);
	shm_destroy(&srv->link.shm);
	dma_close(&srv->dma);
	if (srv->sigfd >= 0)
		close(srv->sigfd);
}

enum slot_kind {
	SLOT_SIGNAL, SLOT_LISTEN, SLOT_CLIENT, SLOT_MAILBOX,
	SLOT_CONTROL_LISTEN, SLOT_CONTROL,
};

struct slot {
	enum slot_kind kind;
	int role;
	int index;		/* vector of a mailbox, or control client */
};

#define MAX_SLOTS	(1 + 2 * VLINK_NR_ROLES + \
			 VLINK_NR_ROLES * VLINK_NR_VECTORS + \
			 1 + FAULT_MAX_CLIENTS)

/* Mailboxes and control clients, when there is a control socket. */
static int add_fault_slots(struct server *srv, struct pollfd *pfd,
			   struct slot *slot, int n)
{
	struct vlink_faults *f = &srv->link.faults;
	int role, v, i;

	if (f->listen_sock < 0)
		return n;
	for (role = 0; role < VLINK_NR_ROLES; role++) {
		if (srv->link.peer[role].sock < 0)
			continue;
		for (v = 0; v < VLINK_NR_VECTORS; v++) {
			pfd[n] = (struct pollfd){
				.fd = srv->link.peer[role].mbox[v],
				.events = POLLIN,
			};
			slot[n++] = (struct slot){ SLOT_MAILBOX, role, v };
		}
	}
	for (i = 0; i < FAULT_MAX_CLIENTS; i++) {
		if (f->client[i].sock < 0)
			continue;
		pfd[n] = (struct pollfd){ .fd = f->client[i].sock,
					  .events = POLLIN };
		slot[n++] = (struct slot){ SLOT_CONTROL, -1, i };
	}
	pfd[n] = (struct pollfd){ .fd = f->listen_sock, .events = POLLIN };
	slot[n++] = (struct slot){ SLOT_CONTROL_LISTEN, -1, -1 };
	return n;
}

static void handle_fault_slot(struct server *srv, struct slot *s,
			      struct pollfd *p)
{
	struct vlink_link *link = &srv->link;

	switch (s->kind) {
	case SLOT_MAILBOX:
		/* Its peer may have been dropped (and the fd closed). */
		if (link->peer[s->role].sock >= 0 &&
		    link->peer[s->role].mbox[s->index] == p->fd)
			faults_mailbox(link, s->role, s->index);
		break;
	case SLOT_CONTROL:
		if (link->faults.client[s->index].sock == p->fd)
			faults_client_input(link, s->index);
		break;
	case SLOT_CONTROL_LISTEN:
		faults_accept(link);
		break;
	default:
		break;
	}
}

static int serve(struct server *srv)
{
	struct pollfd pfd[MAX_SLOTS];
	struct slot slot[MAX_SLOTS];
	bool stop = false;
	int i, n, role;

	while (!stop) {
		n = 0;
		pfd[n] = (struct pollfd){ .fd = srv->sigfd, .events = POLLIN };
		slot[n++] = (struct slot){ SLOT_SIGNAL, -1, -1 };
		for (role = 0; role < VLINK_NR_ROLES; role++) {
			if (srv->link.peer[role].sock < 0)
				continue;
			pfd[n] = (struct pollfd){
				.fd = srv->link.peer[role].sock,
				.events = POLLIN,
			};
			slot[n++] = (struct slot){ SLOT_CLIENT, role, -1 };
		}
		/* After the clients: a departure is handled before a return. */
		for (role = 0; role < VLINK_NR_ROLES; role++) {
			if (srv->listen_sock[role] < 0)
				continue;
			pfd[n] = (struct pollfd){
				.fd = srv->listen_sock[role],
				.events = POLLIN,
			};
			slot[n++] = (struct slot){ SLOT_LISTEN, role, -1 };
		}
		n = add_fault_slots(srv, pfd, slot, n);

		if (poll(pfd, n, faults_timeout_ms(&srv->link)) < 0) {
			if (errno == EINTR)
				continue;
			vlog("poll: %s", strerror(errno));
			return -1;
		}
		faults_run_timers(&srv->link);

		for (i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			switch (slot[i].kind) {
			case SLOT_SIGNAL:
				stop = read_signal(srv);
				break;
			case SLOT_CLIENT:
				/* It may have been dropped meanwhile. */
				if (srv->link.peer[slot[i].role].sock ==
				    pfd[i].fd)
					link_input(&srv->link, slot[i].role);
				break;
			case SLOT_LISTEN:
				link_accept(&srv->link, slot[i].role,
					    pfd[i].fd);
				break;
			default:
				handle_fault_slot(srv, &slot[i], &pfd[i]);
				break;
			}
			link_reap(&srv->link);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct server srv;
	int role, ret;

	memset(&srv, 0, sizeof(srv));
	srv.sigfd = -1;
	for (role = 0; role < VLINK_NR_ROLES; role++)
		srv.listen_sock[role] = -1;
	link_init(&srv.link);
	dma_init(&srv.dma);

	ret = parse_args(argc, argv, &srv.opt);
	if (ret)
		return ret > 0 ? EXIT_SUCCESS : EXIT_USAGE;

	vlog_init();
	if (map_rams(&srv)) {
		cleanup(&srv);
		vlog("failed to start, exit status %d", EXIT_USAGE);
		return EXIT_USAGE;
	}
	/* Signals blocked first: the engine's threads inherit the mask. */
	if (setup_signals(&srv) || shm_create(&srv.link.shm) ||
	    (srv.link.dma && dma_start(&srv.dma, &srv.link.shm)) ||
	    start_listening(&srv))
		goto fail;

	/*
	 * The pidfile comes last, once every socket listens: a launcher waits
	 * for it to appear and may then connect its QEMUs at once.
	 */
	if (srv.opt.pidfile) {
		if (write_pidfile(srv.opt.pidfile))
			goto fail;
		srv.pidfile_written = true;
	}
	vlog("ready: pid %d, shm %u bytes, %d vectors per peer", (int)getpid(),
	     VLINK_SHM_SIZE, VLINK_NR_VECTORS);

	ret = serve(&srv);
	cleanup(&srv);
	vlog("exit, status %d", ret ? EXIT_FAILURE : EXIT_SUCCESS);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;

fail:
	cleanup(&srv);
	vlog("failed to start, exit status %d", EXIT_FAILURE);
	return EXIT_FAILURE;
}
