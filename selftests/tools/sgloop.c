// SPDX-License-Identifier: GPL-2.0
/*
 * sgloop.c - tight syscall loops for the overhead benchmark
 * (selftests/metrics/bench-overhead.sh): the cost of one cheap syscall and
 * of one send + recv of a byte on an AF_UNIX socketpair (two calls the BPF
 * side counts when the process is a target).
 *
 * Usage: sgloop [-n ITERS] [-r RUNS] [-e]
 *   -e  with empty tp_btf sys_enter/sys_exit programs attached while it runs
 *       (selftests/metrics/progs/sg_empty.bpf.c: the floor of the design)
 * Prints "getppid_ns X sendrecv_ns Y": per call (getppid) and per send+recv
 * pair, each the fastest of RUNS runs of ITERS iterations (interruptions
 * only ever make a run slower: the fastest run is the CPU's own cost).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
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

int main(int argc, char **argv)
{
	double best_gp = 1e18, best_sr = 1e18, t;
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
	sg_empty_bpf__destroy(skel);
	printf("getppid_ns %.1f sendrecv_ns %.1f\n", best_gp, best_sr);
	return 0;
}
