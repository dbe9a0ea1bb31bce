// SPDX-License-Identifier: GPL-2.0
/*
 * vspin.c - fixed CPU-bound job and wake-up probe for the emulated-platform tests.
 *
 * Usage:
 *   vspin loop  [-c CPU] [-n ITERS]          time a register-only loop; prints "ns N"
 *   vspin calib [-c CPU] [-t MS]             iterations that take about MS ms now;
 *                                            prints "iters N"
 *   vspin pingpong [-c CPU] [-C CPU2] [-n ROUNDS] [-g GAP_US]
 *                                            pipe ping-pong with an idle gap before
 *                                            every round; prints "key value" lines
 *                                            (rounds, min_ns, median_ns, p90_ns, max_ns)
 *
 * The loop touches no memory (a dependent register chain), so its time is the
 * CPU's speed alone.  Times are CLOCK_MONOTONIC, taken inside the process, so
 * exec and page-fault costs are not part of them.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "vspin: sched_setaffinity(%d): %s\n", cpu, strerror(errno));
		exit(1);
	}
}

/* a dependent chain of register adds: no loads or stores in the loop */
static unsigned long long spin_loop(unsigned long long iters)
{
	unsigned long long x = 0, i;

	for (i = 0; i < iters; i++) {
		x += i;
		__asm__ __volatile__("" : "+r"(x), "+r"(i));
	}
	return x;
}

static unsigned long long time_loop(unsigned long long iters)
{
	unsigned long long t0 = now_ns();

	spin_loop(iters);
	return now_ns() - t0;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static int do_pingpong(int cpu, int cpu2, int rounds, long gap_us)
{
	int p2c[2], c2p[2], i;
	unsigned long long *rtt;
	struct timespec gap = { gap_us / 1000000, (gap_us % 1000000) * 1000 };
	char b = 'x';
	pid_t pid;

	rtt = calloc(rounds, sizeof(*rtt));
	if (!rtt || pipe(p2c) || pipe(c2p)) {
		perror("vspin: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("vspin: fork");
		return 1;
	}
	if (!pid) {
		pin(cpu2);
		close(p2c[1]);
		close(c2p[0]);
		while (read(p2c[0], &b, 1) == 1)
			if (write(c2p[1], &b, 1) != 1)
				_exit(1);
		_exit(0);
	}
	pin(cpu);
	close(p2c[0]);
	close(c2p[1]);
	/* one round to make sure the child is pinned and waiting */
	if (write(p2c[1], &b, 1) != 1 || read(c2p[0], &b, 1) != 1)
		return 1;
	for (i = 0; i < rounds; i++) {
		unsigned long long t0;

		nanosleep(&gap, NULL);
		t0 = now_ns();
		if (write(p2c[1], &b, 1) != 1 || read(c2p[0], &b, 1) != 1) {
			perror("vspin: ping-pong");
			return 1;
		}
		rtt[i] = now_ns() - t0;
	}
	close(p2c[1]);
	waitpid(pid, NULL, 0);
	qsort(rtt, rounds, sizeof(*rtt), cmp_ull);
	printf("rounds %d\nmin_ns %llu\nmedian_ns %llu\np90_ns %llu\nmax_ns %llu\n", rounds,
	       rtt[0], rtt[rounds / 2], rtt[rounds * 9 / 10], rtt[rounds - 1]);
	free(rtt);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"Usage: vspin loop  [-c CPU] [-n ITERS]\n"
		"       vspin calib [-c CPU] [-t MS]\n"
		"       vspin pingpong [-c CPU] [-C CPU2] [-n ROUNDS] [-g GAP_US]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long long n = 10000000ULL;
	int cpu = -1, cpu2 = -1, opt;
	long ms = 100, gap_us = 5000;
	const char *cmd;

	if (argc < 2)
		return usage();
	cmd = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "c:C:n:t:g:")) != -1) {
		switch (opt) {
		case 'c': cpu = atoi(optarg); break;
		case 'C': cpu2 = atoi(optarg); break;
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 't': ms = atol(optarg); break;
		case 'g': gap_us = atol(optarg); break;
		default: return usage();
		}
	}
	if (!strcmp(cmd, "loop")) {
		pin(cpu);
		printf("ns %llu\n", time_loop(n));
		return 0;
	}
	if (!strcmp(cmd, "calib")) {
		unsigned long long it = 1000000, t;

		pin(cpu);
		/* grow until one run takes >= 20 ms, then scale to the target */
		while ((t = time_loop(it)) < 20000000ULL)
			it *= 2;
		printf("iters %llu\n", it * (ms * 1000000ULL) / t);
		return 0;
	}
	if (!strcmp(cmd, "pingpong")) {
		if (n == 10000000ULL)
			n = 50;
		if (n < 1 || gap_us < 0)
			return usage();
		return do_pingpong(cpu, cpu2, (int)n, gap_us);
	}
	return usage();
}
