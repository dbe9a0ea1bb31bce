// SPDX-License-Identifier: GPL-2.0
/*
 * funcsrv.c - a server whose requests a function brackets, for
 * host-request.sh: one connection at a time, each read is a request that
 * handle_request() serves by sleeping SLEEP_US (clock_nanosleep: off the
 * CPU, not waiting for work), spinning SPIN_US and writing the answer.
 * Prints its port; exits when its client closes.
 *
 * Usage: funcsrv SLEEP_US SPIN_US
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long sleep_us, spin_us;
static volatile unsigned long sink;

static long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

/* noinline, and global: a symbol of its own for the uprobe */
__attribute__((noinline)) void handle_request(int c, const char *buf, int n)
{
	struct timespec d = { sleep_us / 1000000, sleep_us % 1000000 * 1000 };
	long t0;

	(void)buf;
	(void)n;
	clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
	for (t0 = now_us(); now_us() - t0 < spin_us;)
		sink++;
	if (write(c, "ok\n", 3) != 3)
		exit(1);
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	char buf[256];
	int ls, c, n;

	if (argc != 3)
		return 2;
	sleep_us = atol(argv[1]);
	spin_us = atol(argv[2]);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (void *)&a, sizeof(a)) || listen(ls, 1) ||
	    getsockname(ls, (void *)&a, &l))
		return 1;
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	c = accept(ls, NULL, NULL);
	while ((n = read(c, buf, sizeof(buf))) > 0)
		handle_request(c, buf, n);
	return 0;
}
