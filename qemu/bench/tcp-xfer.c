// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-xfer: one TCP transfer between the guests, with its rate.
 *
 *   tcp-xfer recv PORT        take one connection, copy it to stdout
 *   tcp-xfer send ADDR PORT   connect, copy stdin to the connection
 *
 * The sender half-closes the connection after its last byte and waits for
 * the receiver to close its own half, which it does once it has written
 * everything out: when "send" returns 0, the receiver has all of it.
 * (busybox nc leaves one side or the other waiting for a close that never
 * comes.)  Both print, on stderr, one line a test can wait for:
 *
 *   tcp-xfer: listening on port PORT
 *   tcp-xfer: sent|received BYTES bytes in SECONDS s: RATE MB/s
 *
 * MB/s is 10^6 bytes per second, as the pci_epf_test function counts, from
 * the connection's start to the last byte written out.  Every failure
 * names the call that failed and exits 1.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK	65536

static char buf[CHUNK];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fail(const char *what)
{
	fprintf(stderr, "tcp-xfer: %s: %s\n", what, strerror(errno));
	return 1;
}

static int write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= w;
	}
	return 0;
}

/* Copy until end of input; the byte count, or -1 with errno set. */
static long long copy(int in, int out, const char **what)
{
	long long total = 0;
	ssize_t n;

	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*what = "read";
			return -1;
		}
		if (!n)
			return total;
		if (write_all(out, buf, n)) {
			*what = "write";
			return -1;
		}
		total += n;
	}
}

static void report(const char *verb, long long bytes, double t0)
{
	double s = now_s() - t0;

	fprintf(stderr, "tcp-xfer: %s %lld bytes in %.3f s: %.1f MB/s\n",
		verb, bytes, s, s > 0 ? bytes / s / 1e6 : 0.0);
}

static int parse_port(const char *s, struct sockaddr_in *sa)
{
	char *end;
	long port = strtol(s, &end, 10);

	if (end == s || *end || port < 1 || port > 65535) {
		fprintf(stderr, "tcp-xfer: '%s' is not a port\n", s);
		return -1;
	}
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	return 0;
}

static int do_recv(const char *port)
{
	struct sockaddr_in sa;
	const char *what;
	long long n;
	int ls, s, on = 1;
	double t0;

	if (parse_port(port, &sa))
		return 1;
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0)
		return fail("socket");
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)))
		return fail("bind");
	if (listen(ls, 1))
		return fail("listen");
	fprintf(stderr, "tcp-xfer: listening on port %s\n", port);
	s = accept(ls, NULL, NULL);
	if (s < 0)
		return fail("accept");
	t0 = now_s();
	n = copy(s, STDOUT_FILENO, &what);
	if (n < 0)
		return fail(what);
	report("received", n, t0);
	close(s);
	close(ls);
	return 0;
}

static int do_send(const char *addr, const char *port)
{
	struct sockaddr_in sa;
	const char *what;
	long long n;
	double t0;
	int s;

	if (parse_port(port, &sa))
		return 1;
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "tcp-xfer: '%s' is not an IPv4 address\n", addr);
		return 1;
	}
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return fail("socket");
	t0 = now_s();
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)))
		return fail("connect");
	n = copy(STDIN_FILENO, s, &what);
	if (n < 0)
		return fail(what);
	if (shutdown(s, SHUT_WR))
		return fail("shutdown");
	/* The receiver closes once it has written everything out. */
	for (;;) {
		ssize_t r = read(s, buf, sizeof(buf));

		if (!r)
			break;
		if (r < 0 && errno != EINTR)
			return fail("read of the receiver's close");
	}
	report("sent", n, t0);
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "recv"))
		return do_recv(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "send"))
		return do_send(argv[2], argv[3]);
	fprintf(stderr, "usage: tcp-xfer recv PORT | tcp-xfer send ADDR PORT\n");
	return 2;
}
