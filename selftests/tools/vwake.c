// SPDX-License-Identifier: GPL-2.0
/*
 * vwake.c - wake-up latency from user space, deep C-states allowed vs forbidden by PM QoS.
 *
 * Usage:
 *   vwake [-w CPU] [-s CPU] [-n SAMPLES] [-b BLOCKS] [-g GAP_US] [-q QOS_US] [-W WARMUP]
 *
 * A sleeper task pinned to CPU -s (default 1) blocks in read() on a pipe; a
 * waker pinned to CPU -w (default 0) sleeps GAP_US (default 2000), takes t0,
 * writes t0 into the pipe; the sleeper takes t1 as soon as read() returns and
 * sends t1 - t0 back (the ping-pong keeps one wake-up in flight).  The gap
 * leaves the sleeper's CPU idle long enough for the menu governor to choose a
 * deep state (C6's target residency is 600 us on the emulated platform).
 *
 * BLOCKS (default 8) blocks of SAMPLES (default 100) wake-ups alternate
 * between two modes, in the order deep, qos, qos, deep, deep, qos, ... so
 * that drift of the emulator hits both alike:
 *   deep: the sleeper CPU's pm_qos_resume_latency_us is 0 (no constraint);
 *   qos:  it is QOS_US (default 5: only states with an exit latency <= 5 us).
 * Each block starts with WARMUP (default 10) unrecorded wake-ups, so that a
 * CPU already idle in a state chosen under the other mode is woken first;
 * then the CPU's cpuidle usage counters (cpuN/cpuidle/stateK/usage) are read
 * before and after the recorded wake-ups.  The original QoS value is restored.
 *
 * Output, "key value" per line, for MODE in deep, qos:
 *   MODE.samples, MODE.{p10,median,p90}_ns, MODE.usage.NAME (per cpuidle state)
 * Times are CLOCK_MONOTONIC; figures of an emulator, not of hardware.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* cpuidle drivers have at most CPUIDLE_STATE_MAX (10) states */
#define VW_MAX_STATES	10
enum { VW_DEEP, VW_QOS, VW_NR_MODES };
static const char *const vw_mode_name[VW_NR_MODES] = { "deep", "qos" };

static char vw_qos_path[128];
static char vw_qos_orig[32];

static unsigned long long vw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void vw_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "vwake: sched_setaffinity(%d): %s\n", cpu, strerror(errno));
		exit(1);
	}
}

static int vw_read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int vw_write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/* the sleeper CPU's cpuidle state names and usage counters; returns the count */
static int vw_states(int cpu, char names[][32], unsigned long long *usage)
{
	char path[128], buf[64];
	int k;

	for (k = 0; k < VW_MAX_STATES; k++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/usage",
			 cpu, k);
		if (vw_read_str(path, buf, sizeof(buf)))
			break;
		usage[k] = strtoull(buf, NULL, 10);
		if (names) {
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", cpu, k);
			if (vw_read_str(path, names[k], 32))
				snprintf(names[k], 32, "state%d", k);
		}
	}
	return k;
}

static void vw_restore_qos(void)
{
	if (vw_qos_orig[0])
		vw_write_str(vw_qos_path, vw_qos_orig);
}

static void vw_on_signal(int sig)
{
	vw_restore_qos();
	_exit(128 + sig);
}

static int vw_cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* the sleeper: wait for t0, answer t1 - t0, until the pipe closes */
static void vw_sleeper(int in, int out)
{
	unsigned long long t0, d;

	while (read(in, &t0, sizeof(t0)) == sizeof(t0)) {
		d = vw_now_ns() - t0;
		if (write(out, &d, sizeof(d)) != sizeof(d))
			_exit(1);
	}
	_exit(0);
}

/* one wake-up of the sleeper after an idle gap; returns its latency in ns */
static long long vw_round(int out, int in, const struct timespec *gap)
{
	unsigned long long t0, d;

	nanosleep(gap, NULL);
	t0 = vw_now_ns();
	if (write(out, &t0, sizeof(t0)) != sizeof(t0) || read(in, &d, sizeof(d)) != sizeof(d))
		return -1;
	return (long long)d;
}

static int vw_usage(void)
{
	fprintf(stderr, "Usage: vwake [-w CPU] [-s CPU] [-n SAMPLES] [-b BLOCKS] [-g GAP_US] "
		"[-q QOS_US] [-W WARMUP]\n");
	return 2;
}

int main(int argc, char **argv)
{
	int waker = 0, sleeper = 1, n = 100, blocks = 8, warmup = 10, qos = 5, opt;
	int p2c[2], c2p[2], b, i, k, nst = 0;
	unsigned long long *lat[VW_NR_MODES], u0[VW_MAX_STATES], u1[VW_MAX_STATES];
	unsigned long long used[VW_NR_MODES][VW_MAX_STATES] = { { 0 } };
	char names[VW_MAX_STATES][32], qbuf[32];
	int cnt[VW_NR_MODES] = { 0 };
	long gap_us = 2000;
	struct timespec gap;
	pid_t pid;

	while ((opt = getopt(argc, argv, "w:s:n:b:g:q:W:")) != -1) {
		switch (opt) {
		case 'w': waker = atoi(optarg); break;
		case 's': sleeper = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 'b': blocks = atoi(optarg); break;
		case 'g': gap_us = atol(optarg); break;
		case 'q': qos = atoi(optarg); break;
		case 'W': warmup = atoi(optarg); break;
		default: return vw_usage();
		}
	}
	if (n < 1 || blocks < 2 || gap_us < 0 || qos < 1 || warmup < 0 || waker == sleeper)
		return vw_usage();
	gap.tv_sec = gap_us / 1000000;
	gap.tv_nsec = (gap_us % 1000000) * 1000;

	snprintf(vw_qos_path, sizeof(vw_qos_path),
		 "/sys/devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us", sleeper);
	if (vw_read_str(vw_qos_path, vw_qos_orig, sizeof(vw_qos_orig))) {
		fprintf(stderr, "vwake: %s: %s\n", vw_qos_path, strerror(errno));
		return 1;
	}
	/* "0" reads back as no constraint; anything else is restored as read */
	signal(SIGINT, vw_on_signal);
	signal(SIGTERM, vw_on_signal);

	for (i = 0; i < VW_NR_MODES; i++) {
		lat[i] = calloc((size_t)n * blocks, sizeof(**lat));
		if (!lat[i])
			return 1;
	}
	if (pipe(p2c) || pipe(c2p)) {
		perror("vwake: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("vwake: fork");
		return 1;
	}
	if (!pid) {
		vw_pin(sleeper);
		close(p2c[1]);
		close(c2p[0]);
		vw_sleeper(p2c[0], c2p[1]);
	}
	vw_pin(waker);
	close(p2c[0]);
	close(c2p[1]);

	for (b = 0; b < blocks; b++) {
		/* deep, qos, qos, deep, deep, qos, qos, deep, ... */
		int mode = ((b + 1) / 2) % 2 ? VW_QOS : VW_DEEP;

		snprintf(qbuf, sizeof(qbuf), "%d", mode == VW_QOS ? qos : 0);
		if (vw_write_str(vw_qos_path, qbuf)) {
			fprintf(stderr, "vwake: write %s to %s: %s\n", qbuf, vw_qos_path,
				strerror(errno));
			goto fail;
		}
		for (i = 0; i < warmup; i++)
			if (vw_round(p2c[1], c2p[0], &gap) < 0)
				goto fail_io;
		nst = vw_states(sleeper, names, u0);
		for (i = 0; i < n; i++) {
			long long d = vw_round(p2c[1], c2p[0], &gap);

			if (d < 0)
				goto fail_io;
			lat[mode][cnt[mode]++] = d;
		}
		if (vw_states(sleeper, NULL, u1) != nst)
			goto fail;
		for (k = 0; k < nst; k++)
			used[mode][k] += u1[k] - u0[k];
	}
	vw_restore_qos();
	close(p2c[1]);
	waitpid(pid, NULL, 0);

	printf("gap_us %ld\nqos_us %d\n", gap_us, qos);
	for (i = 0; i < VW_NR_MODES; i++) {
		int c = cnt[i];

		qsort(lat[i], c, sizeof(**lat), vw_cmp_ull);
		printf("%s.samples %d\n%s.p10_ns %llu\n%s.median_ns %llu\n%s.p90_ns %llu\n",
		       vw_mode_name[i], c, vw_mode_name[i], lat[i][c / 10], vw_mode_name[i],
		       lat[i][c / 2], vw_mode_name[i], lat[i][c * 9 / 10]);
		for (k = 0; k < nst; k++)
			printf("%s.usage.%s %llu\n", vw_mode_name[i], names[k], used[i][k]);
	}
	return 0;

fail_io:
	perror("vwake: ping-pong");
fail:
	vw_restore_qos();
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 1;
}
