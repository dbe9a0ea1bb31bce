// SPDX-License-Identifier: GPL-2.0
/*
 * sge2e.c - the rig's end-to-end driver: a target with an idle phase and a
 * busy phase, fed to slackgov.ko by selftests/rig/progs/e2e.bpf.c.
 *
 * Usage: sge2e CPU SECONDS
 * Forks a target pinned to CPU that first waits in poll() (high slack), then
 * spins making getppid() calls (no waiting: slack 0), SECONDS each.  Loads
 * the probe for the target before it starts and prints, at the end of each
 * phase, the CPU's scaling_cur_freq and how many samples the module took:
 *   idle_khz=N busy_khz=N reports_ok=N reports_err=N last_ret=N
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "e2e.skel.h"

struct e2e_state {	/* mirrors struct sg_state in e2e.bpf.c */
	__u64 win_start, wait_start, blocked_ns, seq;
	__u32 nr_wait;
	__s32 last_ret;
	__u64 nr_ok, nr_err;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void target(int cpu, int secs, int go_fd)
{
	cpu_set_t set;
	double end;
	char c;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (read(go_fd, &c, 1) != 1)
		_exit(1);
	for (end = now_s() + secs; now_s() < end;)
		poll(NULL, 0, 2);		/* blocked: slack */
	for (end = now_s() + secs + 1; now_s() < end;)
		getppid();			/* busy: no slack */
	_exit(0);
}

static long cur_khz(int cpu)
{
	char path[96];
	long khz = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &khz) != 1)
		khz = -1;
	fclose(f);
	return khz;
}

int main(int argc, char **argv)
{
	struct e2e_bpf *skel;
	struct e2e_state st = {};
	int go[2], cpu, secs, err, zero = 0;
	long idle_khz, busy_khz;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: sge2e CPU SECONDS\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	secs = atoi(argv[2]);
	if (pipe(go))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		target(cpu, secs, go[0]);

	skel = e2e_bpf__open();
	if (!skel) {
		fprintf(stderr, "sge2e: open failed\n");
		goto kill;
	}
	skel->rodata->target_tgid = pid;
	err = e2e_bpf__load(skel);
	if (!err)
		err = e2e_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "sge2e: load/attach failed: %s\n", strerror(-err));
		goto destroy;
	}
	if (write(go[1], "g", 1) != 1)
		goto destroy;
	usleep(secs * 1000000 - 300000);
	idle_khz = cur_khz(cpu);
	usleep(secs * 1000000);
	busy_khz = cur_khz(cpu);
	waitpid(pid, NULL, 0);
	bpf_map_lookup_elem(bpf_map__fd(skel->maps.state), &zero, &st);
	printf("idle_khz=%ld busy_khz=%ld reports_ok=%llu reports_err=%llu last_ret=%d\n",
	       idle_khz, busy_khz, (unsigned long long)st.nr_ok,
	       (unsigned long long)st.nr_err, st.last_ret);
	e2e_bpf__destroy(skel);
	return 0;
destroy:
	e2e_bpf__destroy(skel);
kill:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 1;
}
