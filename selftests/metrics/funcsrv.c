// SPDX-License-Identifier: GPL-2.0
/*
 * funcsrv.c - a server whose requests a function brackets, for
 * host-request.sh: one connection at a time, each read is a request that
 * handle_request() serves by sleeping SLEEP_US (clock_nanosleep: off the
 * CPU, not waiting for work), spinning SPIN_US and writing the answer.
 * Prints its port; exits when its client closes, after writing to stderr
 * how many requests passed its semaphore-gated USDT probes.
 *
 * USDT probes around each request, for --request usdt:...: funcsrv:req_start
 * and funcsrv:req_done always, and funcsrv:gated_start and gated_done only
 * while the semaphore funcsrv_gated_start_semaphore is set (the kernel sets
 * it while a uprobe with that reference counter is attached), as code built
 * with systemtap's <sys/sdt.h> carries them.  The macro below writes out
 * what sdt.h's STAP_PROBE emits for a probe without arguments (a nop, a
 * note in .note.stapsdt with its address, .stapsdt.base's and the
 * semaphore's), so that the test needs no systemtap-sdt-dev.
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

#define SG_USDT(prov, name, sema)						\
	__asm__ __volatile__(							\
		"990:	nop\n"							\
		"	.pushsection .note.stapsdt,\"?\",\"note\"\n"		\
		"	.balign 4\n"						\
		"	.4byte 992f-991f, 994f-993f, 3\n"			\
		"991:	.asciz \"stapsdt\"\n"					\
		"992:	.balign 4\n"						\
		"993:	.8byte 990b\n"						\
		"	.8byte _.stapsdt.base\n"				\
		"	.8byte " sema "\n"					\
		"	.asciz \"" prov "\"\n"					\
		"	.asciz \"" name "\"\n"					\
		"	.asciz \"\"\n"						\
		"994:	.balign 4\n"						\
		"	.popsection\n"						\
		"	.ifndef _.stapsdt.base\n"				\
		"	.pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
		"	.weak _.stapsdt.base\n"					\
		"	.hidden _.stapsdt.base\n"				\
		"_.stapsdt.base: .space 1\n"					\
		"	.size _.stapsdt.base, 1\n"				\
		"	.popsection\n"						\
		"	.endif\n")

/* sdt.h's semaphore: in .probes, counted up by the kernel per attached probe */
__attribute__((section(".probes"), used)) volatile unsigned short funcsrv_gated_start_semaphore;

static long sleep_us, spin_us, gated;
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
	while ((n = read(c, buf, sizeof(buf))) > 0) {
		if (funcsrv_gated_start_semaphore) {
			gated++;
			SG_USDT("funcsrv", "gated_start", "funcsrv_gated_start_semaphore");
		}
		SG_USDT("funcsrv", "req_start", "0");
		handle_request(c, buf, n);
		SG_USDT("funcsrv", "req_done", "0");
		if (gated)
			SG_USDT("funcsrv", "gated_done", "0");
	}
	fprintf(stderr, "gated %ld\n", gated);
	return 0;
}
