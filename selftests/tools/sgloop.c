// SPDX-License-Identifier: GPL-2.0
/*
 * sgloop.c - tight syscall loops for the overhead benchmark
 * (selftests/metrics/bench-overhead.sh): the cost of one cheap syscall, of
 * one send + recv of a byte on an AF_UNIX socketpair (two calls the BPF
 * side counts when the process is a target), and of a pipe ping-pong with a
 * child on the same CPU (a round trip is two context switches, which every
 * process pays sg_switch for, and four pipe syscalls, never counted), and of
 * a request/response round trip over loopback TCP in one thread (a byte one
 * way, a byte back, TCP_NODELAY: every segment received runs the tcp_probe
 * tracepoint, every read tcp_rcv_space_adjust; for a target, each side's
 * read and the send that follows it on the same socket is one timed
 * request: two per round trip).
 *
 * With -p the TCP round trip carries a request of a real protocol instead,
 * redis's PING as a RESP array (14 bytes) and its "+PONG" (7), and the
 * server side's read and answer run in sgl_serve(), a function of its own:
 * the same bytes for every attribution (--proto thread, conn, resp;
 * --request BINARY:sgl_serve), so that their costs compare.
 *
 * Usage: sgloop [-n ITERS] [-r RUNS] [-e | -f] [-p]
 *   -e  with empty tp_btf sys_enter/sys_exit programs attached while it runs
 *       (selftests/metrics/progs/sg_empty.bpf.c: the floor of the tracepoint
 *       hooks)
 *   -f  with empty fentry/fexit programs on the watched syscalls instead
 *       (the floor of the fentry hooks; fails where the kernel refuses them)
 * Prints "getppid_ns X sendrecv_ns Y pingpong_ns Z tcp_ns T tcp_segs S": per
 * call (getppid), per send+recv pair, per ping-pong round trip and per TCP
 * round trip, each the fastest of RUNS runs; S is the TCP segments the
 * machine received per TCP round trip over the runs (/proc/net/snmp InSegs,
 * so other traffic adds to it)
 * (of ITERS iterations; ITERS / 10 round trips) (interruptions only ever
 * make a run slower: the fastest run is the CPU's own cost).  Run it pinned
 * to one CPU (taskset): the child inherits the CPU, so that every round trip
 * switches.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "sg_empty.skel.h"

/* sg_empty's programs of one hook set: @fentry, or the tracepoints */
static struct sg_empty_bpf *empty_attach(bool fentry)
{
	struct sg_empty_bpf *skel = sg_empty_bpf__open();
	struct bpf_program *p;
	const char *sec;
	bool fe;

	if (!skel)
		return NULL;
	bpf_object__for_each_program(p, skel->obj) {
		sec = bpf_program__section_name(p);
		fe = !strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6);
		bpf_program__set_autoload(p, fe == fentry);
	}
	if (sg_empty_bpf__load(skel) || sg_empty_bpf__attach(skel)) {
		sg_empty_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

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

/* TCP segments received by the machine so far (/proc/net/snmp InSegs), -1 if unknown */
static long long in_segs(void)
{
	char line[1024], names[1024] = "";
	FILE *f = fopen("/proc/net/snmp", "r");
	long long v = -1;
	int col = -1, i;
	char *t, *save;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Tcp:", 4))
			continue;
		if (!names[0]) {	/* the header line names the columns */
			strcpy(names, line);
			for (i = 0, t = strtok_r(names, " \n", &save); t; t = strtok_r(NULL, " \n", &save), i++)
				if (!strcmp(t, "InSegs"))
					col = i;
			continue;
		}
		for (i = 0, t = strtok_r(line, " \n", &save); t; t = strtok_r(NULL, " \n", &save), i++)
			if (i == col)
				v = atoll(t);
		break;
	}
	fclose(f);
	return v;
}

static const char resp_ping[] = "*1\r\n$4\r\nPING\r\n", resp_pong[] = "+PONG\r\n";

/* -p's server side: one PING read on @s and answered; a symbol of its own
 * for --request (noinline, global).  0, or -1. */
__attribute__((noinline)) int sgl_serve(int s)
{
	char b[64];

	if (recv(s, b, sizeof(b), 0) != sizeof(resp_ping) - 1)
		return -1;
	return send(s, resp_pong, sizeof(resp_pong) - 1, 0) == sizeof(resp_pong) - 1 ? 0 : -1;
}

/* -p's client side, in one thread with the server's: a PING sent on @c,
 * then (after sgl_serve()) its answer read whole */
static int sgl_ask_send(int c)
{
	return send(c, resp_ping, sizeof(resp_ping) - 1, 0) == sizeof(resp_ping) - 1 ? 0 : -1;
}

static int sgl_ask_recv(int c)
{
	char b[64];
	ssize_t n, got = 0;

	while (got < (ssize_t)sizeof(resp_pong) - 1) {
		n = recv(c, b, sizeof(b), 0);
		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

/* ns per TCP round trip of @n (fastest of @runs), a byte each way or (@resp)
 * a PING and its answer; *segs: segments per round trip */
static double tcp_rt(int n, int runs, bool resp, double *segs)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int l, c, s, one = 1, r, i;
	double best = 1e18, t;
	long long s0, s1;
	char b = 'x';

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || c < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &al) || connect(c, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	s = accept(l, NULL, NULL);
	if (s < 0)
		return -1;
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	s0 = in_segs();
	for (r = 0; r < runs; r++) {
		t = now_ns();
		for (i = 0; i < n; i++) {
			if (resp) {
				if (sgl_ask_send(c) || sgl_serve(s) || sgl_ask_recv(c)) {
					best = -1;
					goto out;
				}
				continue;
			}
			if (send(c, &b, 1, 0) != 1 || recv(s, &b, 1, 0) != 1 ||
			    send(s, &b, 1, 0) != 1 || recv(c, &b, 1, 0) != 1) {
				best = -1;
				goto out;
			}
		}
		t = (now_ns() - t) / n;
		if (t < best)
			best = t;
	}
	s1 = in_segs();
	*segs = s0 >= 0 && s1 >= s0 ? (double)(s1 - s0) / ((double)n * runs) : -1;
out:
	close(c);
	close(s);
	close(l);
	return best;
}

int main(int argc, char **argv)
{
	double best_gp = 1e18, best_sr = 1e18, pp, tcp, segs = -1, t;
	int iters = 200000, runs = 5, empty = 0, sv[2], opt, r, i;	/* empty: 'e' or 'f' */
	bool resp = false;
	struct sg_empty_bpf *skel = NULL;
	char c = 'x';

	while ((opt = getopt(argc, argv, "n:r:efp")) != -1) {
		switch (opt) {
		case 'n': iters = atoi(optarg); break;
		case 'r': runs = atoi(optarg); break;
		case 'e': case 'f': empty = opt; break;
		case 'p': resp = true; break;
		default:
			fprintf(stderr, "usage: sgloop [-n ITERS] [-r RUNS] [-e | -f] [-p]\n");
			return 2;
		}
	}
	if (iters <= 0 || runs <= 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("sgloop");
		return 1;
	}
	if (empty) {
		skel = empty_attach(empty == 'f');
		if (!skel) {
			fprintf(stderr, "sgloop: cannot attach the empty %s programs\n",
				empty == 'f' ? "fentry" : "tracepoint");
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
	tcp = tcp_rt(iters / 10, runs, resp, &segs);
	sg_empty_bpf__destroy(skel);
	if (pp < 0 || tcp < 0) {
		perror(pp < 0 ? "sgloop: ping-pong" : "sgloop: tcp");
		return 1;
	}
	printf("getppid_ns %.1f sendrecv_ns %.1f pingpong_ns %.1f tcp_ns %.1f tcp_segs %.2f\n",
	       best_gp, best_sr, pp, tcp, segs);
	return 0;
}
