// SPDX-License-Identifier: GPL-2.0
/*
 * sgloop.c - tight syscall loops for the overhead benchmark
 * (selftests/metrics/bench-overhead.sh): the cost of one cheap syscall, of
 * one send + recv of a byte on an AF_UNIX socketpair (two calls the BPF
 * side counts when the process is a target), and of a pipe ping-pong with a
 * child on the same CPU (a round trip is two context switches, which every
 * process pays sg_switch for, and four pipe syscalls, never counted).
 *
 * Usage: sgloop [-n ITERS] [-r RUNS] [-e]
 *   -e  with empty tp_btf sys_enter/sys_exit programs attached while it runs
 *       (selftests/metrics/progs/sg_empty.bpf.c: the floor of the design)
 * Prints "getppid_ns X sendrecv_ns Y pingpong_ns Z": per call (getppid), per
 * send+recv pair and per ping-pong round trip, each the fastest of RUNS runs
 * (of ITERS iterations; ITERS / 10 round trips) (interruptions only ever
 * make a run slower: the fastest run is the CPU's own cost).  Run it pinned
 * to one CPU (taskset): the child inherits the CPU, so that every round trip
 * switches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "sg_empty.skel.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The child's side of the ping-pong: answer every byte until EOF. */
static void pong(int in, int out)
{
	char c;

	while (read(in, &c, 1) == 1)
		if (write(out, &c, 1) != 1)
			break;
	_exit(0);
}

/* ns per round trip of @n bytes through the child (fastest of @runs) */
static double pingpong(int n, int runs)
{
	int to[2], from[2], r, i;
	double best = 1e18, t;
	char c = 'x';
	pid_t pid;

	if (pipe(to) || pipe(from))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(to[1]);
		close(from[0]);
		pong(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	for (r = 0; r < runs; r++) {
		t = now_ns();
		for (i = 0; i < n; i++) {
			if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1) {
				best = -1;
				goto out;
			}
		}
		t = (now_ns() - t) / n;
		if (t < best)
			best = t;
	}
out:
	close(to[1]);
	close(from[0]);
	waitpid(pid, NULL, 0);
	return best;
}

int main(int argc, char **argv)
{
	double best_gp = 1e18, best_sr = 1e18, pp, t;
	int iters = 200000, runs = 5, empty = 0, sv[2], opt, r, i;
	struct sg_empty_bpf *skel = NULL;
	char c = 'x';

	while ((opt = getopt(argc, argv, "n:r:e")) != -1) {
		switch (opt) {
		case 'n': iters = atoi(optarg); break;
		case 'r': runs = atoi(optarg); break;
		case 'e': empty = 1; break;
		default:
			fprintf(stderr, "usage: sgloop [-n ITERS] [-r RUNS] [-e]\n");
			return 2;
		}
	}
	if (iters <= 0 || runs <= 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("sgloop");
		return 1;
	}
	if (empty) {
		skel = sg_empty_bpf__open_and_load();
		if (!skel || sg_empty_bpf__attach(skel)) {
			fprintf(stderr, "sgloop: cannot attach the empty programs\n");
			sg_empty_bpf__destroy(skel);
			return 1;
		}
	}
	for (r = 0; r < runs; r++) {
		t = now_ns();
		for (i = 0; i < iters; i++)
			syscall(SYS_getppid);	/* not the libc wrapper: never cached */
		t = (now_ns() - t) / iters;
		if (t < best_gp)
			best_gp = t;
		t = now_ns();
		for (i = 0; i < iters / 2; i++) {
			if (send(sv[0], &c, 1, 0) != 1 || recv(sv[1], &c, 1, 0) != 1) {
				perror("sgloop: send/recv");
				return 1;
			}
		}
		t = (now_ns() - t) / (iters / 2);
		if (t < best_sr)
			best_sr = t;
	}
	pp = pingpong(iters / 10, runs);
	sg_empty_bpf__destroy(skel);
	if (pp < 0) {
		perror("sgloop: ping-pong");
		return 1;
	}
	printf("getppid_ns %.1f sendrecv_ns %.1f pingpong_ns %.1f\n", best_gp, best_sr, pp);
	return 0;
}
