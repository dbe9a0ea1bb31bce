// SPDX-License-Identifier: GPL-2.0
/*
 * vwake.c - wake-up latency from user space, deep C-states allowed vs forbidden by PM QoS.
 *
 * Usage:
 *   vwake [-w CPU] [-s CPU] [-n SAMPLES] [-g GAP_US] [-q QOS_US] [-W WARMUP]
 *
 * A sleeper task pinned to CPU -s (default 1) blocks in read() on a pipe; a
 * waker pinned to CPU -w (default 0) sleeps GAP_US (default 2000), takes t0,
 * writes t0 into the pipe; the sleeper takes t1 as soon as read() returns and
 * sends t1 - t0 back (the ping-pong keeps one wake-up in flight).  The gap
 * leaves the sleeper's CPU idle long enough for the menu governor to choose a
 * deep state (C6's target residency is 600 us on the emulated platform).
 *
 * The wake-ups alternate between two modes, deep, qos, qos, deep, deep, qos,
 * ..., so that the host's and the emulator's speed swings hit both alike:
 *   deep: the sleeper CPU's pm_qos_resume_latency_us is 0 (no constraint);
 *   qos:  it is QOS_US (default 5: only states with an exit latency <= 5 us).
 * The sleeper itself sets the mode of its next wait after each wake-up, so
 * the new limit applies to the very next idle period, and reads its CPU's
 * cpuidle usage counters (cpuN/cpuidle/stateK/usage) just before it blocks
 * and just after it wakes: the states exited during each recorded wait are
 * added to that wait's mode.  The first WARMUP (default 10) wake-ups are not
 * recorded; SAMPLES (default 400) are recorded per mode.  The original QoS
 * value is restored at the end.
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

/* the sleeper CPU's cpuidle states: names and open usage files; returns the count */
static int vw_open_states(int cpu, char names[][32], int *fds)
{
	char path[128];
	int k;

	for (k = 0; k < VW_MAX_STATES; k++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/usage",
			 cpu, k);
		fds[k] = open(path, O_RDONLY);
		if (fds[k] < 0)
			break;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name",
			 cpu, k);
		if (vw_read_str(path, names[k], 32))
			snprintf(names[k], 32, "state%d", k);
	}
	return k;
}

static void vw_read_usage(const int *fds, int nst, unsigned long long *usage)
{
	char buf[32];
	ssize_t n;
	int k;

	for (k = 0; k < nst; k++) {
		n = pread(fds[k], buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = 0;
		usage[k] = strtoull(buf, NULL, 10);
	}
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

static int vw_cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* deep, qos, qos, deep, deep, qos, ...: the mode of wake-up number i */
static int vw_mode(int i)
{
	return ((i + 1) / 2) % 2 ? VW_QOS : VW_DEEP;
}

/* what the sleeper sends back after each wake-up */
struct vw_reply {
	unsigned long long lat_ns;
	int mode;
	unsigned long long exits[VW_MAX_STATES];	/* usage deltas during the wait */
};

static int vw_set_mode(int mode, int qos)
{
	char qbuf[32];

	snprintf(qbuf, sizeof(qbuf), "%d", mode == VW_QOS ? qos : 0);
	if (vw_write_str(vw_qos_path, qbuf)) {
		fprintf(stderr, "vwake: write %s to %s: %s\n", qbuf, vw_qos_path, strerror(errno));
		return -1;
	}
	return 0;
}

/* the sleeper: set the next wait's mode, wait for t0, answer, until the pipe closes */
static void vw_sleeper(int in, int out, const int *fds, int nst, int qos)
{
	unsigned long long t0, t1, u0[VW_MAX_STATES], u1[VW_MAX_STATES];
	struct vw_reply r;
	int i = 0, k;

	memset(&r, 0, sizeof(r));
	r.mode = vw_mode(0);
	if (vw_set_mode(r.mode, qos))
		_exit(1);
	vw_read_usage(fds, nst, u0);
	while (read(in, &t0, sizeof(t0)) == sizeof(t0)) {
		t1 = vw_now_ns();
		vw_read_usage(fds, nst, u1);
		r.lat_ns = t1 - t0;
		for (k = 0; k < nst; k++)
			r.exits[k] = u1[k] - u0[k];
		/* the next wait's mode, set before this reply lets the waker go on */
		i++;
		if (vw_set_mode(vw_mode(i), qos))
			_exit(1);
		vw_read_usage(fds, nst, u0);
		if (write(out, &r, sizeof(r)) != sizeof(r))
			_exit(1);
		r.mode = vw_mode(i);
	}
	_exit(0);
}

/* one wake-up of the sleeper after an idle gap */
static int vw_round(int out, int in, const struct timespec *gap, struct vw_reply *r)
{
	unsigned long long t0;

	nanosleep(gap, NULL);
	t0 = vw_now_ns();
	if (write(out, &t0, sizeof(t0)) != sizeof(t0) || read(in, r, sizeof(*r)) != sizeof(*r))
		return -1;
	return 0;
}

static int vw_usage(void)
{
	fprintf(stderr, "Usage: vwake [-w CPU] [-s CPU] [-n SAMPLES] [-g GAP_US] [-q QOS_US] "
		"[-W WARMUP]\n");
	return 2;
}

int main(int argc, char **argv)
{
	int waker = 0, sleeper = 1, n = 400, warmup = 10, qos = 5, opt;
	int p2c[2], c2p[2], i, k, nst, fds[VW_MAX_STATES];
	unsigned long long *lat[VW_NR_MODES];
	long long *diff;
	unsigned long long *by_state[VW_MAX_STATES] = { NULL }, nexit;
	int nby[VW_MAX_STATES] = { 0 }, last = 0;
	unsigned long long used[VW_NR_MODES][VW_MAX_STATES] = { { 0 } };
	char names[VW_MAX_STATES][32];
	int cnt[VW_NR_MODES] = { 0 };
	struct vw_reply r;
	long gap_us = 2000;
	struct timespec gap;
	pid_t pid;

	while ((opt = getopt(argc, argv, "w:s:n:g:q:W:")) != -1) {
		switch (opt) {
		case 'w': waker = atoi(optarg); break;
		case 's': sleeper = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 'g': gap_us = atol(optarg); break;
		case 'q': qos = atoi(optarg); break;
		case 'W': warmup = atoi(optarg); break;
		default: return vw_usage();
		}
	}
	if (n < 1 || gap_us < 0 || qos < 1 || warmup < 0 || waker == sleeper)
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
	nst = vw_open_states(sleeper, names, fds);
	if (!nst) {
		fprintf(stderr, "vwake: cpu%d has no cpuidle states\n", sleeper);
		return 1;
	}

	for (i = 0; i < VW_NR_MODES; i++) {
		lat[i] = calloc(n, sizeof(**lat));
		if (!lat[i])
			return 1;
	}
	diff = calloc(n, sizeof(*diff));
	for (k = 0; k < nst; k++)
		by_state[k] = calloc(2 * n, sizeof(**by_state));
	if (!diff || (nst && !by_state[nst - 1]))
		return 1;
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
		vw_sleeper(p2c[0], c2p[1], fds, nst, qos);
	}
	vw_pin(waker);
	close(p2c[0]);
	close(c2p[1]);

	for (i = 0; cnt[VW_DEEP] < n || cnt[VW_QOS] < n; i++) {
		if (vw_round(p2c[1], c2p[0], &gap, &r)) {
			perror("vwake: ping-pong");
			vw_restore_qos();
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return 1;
		}
		if (i < warmup || cnt[r.mode] >= n)
			continue;
		lat[r.mode][cnt[r.mode]++] = r.lat_ns;
		for (k = 0, nexit = 0; k < nst; k++) {
			used[r.mode][k] += r.exits[k];
			nexit += r.exits[k];
			if (r.exits[k])
				last = k;
		}
		/* a wait that ended in one idle period: the wake-up was from that state */
		if (nexit == 1)
			by_state[last][nby[last]++] = r.lat_ns;
	}
	close(p2c[1]);
	waitpid(pid, NULL, 0);
	vw_restore_qos();

	/* the j-th deep and j-th qos wake-ups are neighbours in time: their differences */
	for (i = 0; i < n; i++)
		diff[i] = (long long)lat[VW_DEEP][i] - (long long)lat[VW_QOS][i];
	qsort(diff, n, sizeof(*diff), vw_cmp_ll);

	printf("gap_us %ld\nqos_us %d\n", gap_us, qos);
	printf("pair.p25_diff_ns %lld\npair.median_diff_ns %lld\n", diff[n / 4], diff[n / 2]);
	for (i = 0; i < VW_NR_MODES; i++) {
		qsort(lat[i], n, sizeof(**lat), vw_cmp_ull);
		printf("%s.samples %d\n%s.p10_ns %llu\n%s.p25_ns %llu\n%s.median_ns %llu\n"
		       "%s.p90_ns %llu\n", vw_mode_name[i], n, vw_mode_name[i], lat[i][n / 10],
		       vw_mode_name[i], lat[i][n / 4], vw_mode_name[i], lat[i][n / 2],
		       vw_mode_name[i], lat[i][n * 9 / 10]);
		for (k = 0; k < nst; k++)
			printf("%s.usage.%s %llu\n", vw_mode_name[i], names[k], used[i][k]);
	}
	for (k = 0; k < nst; k++) {
		int c = nby[k];

		printf("from.%s.samples %d\n", names[k], c);
		if (!c)
			continue;
		qsort(by_state[k], c, sizeof(**by_state), vw_cmp_ull);
		printf("from.%s.p25_ns %llu\nfrom.%s.median_ns %llu\n", names[k],
		       by_state[k][c / 4], names[k], by_state[k][c / 2]);
	}
	return 0;
}
