// SPDX-License-Identifier: GPL-2.0
/*
 * sgsample.c - periodic sampler for the demo: one CSV row per period with
 * the target's last window (from the pinned windows map) and the CPUs'
 * frequencies and governor mode (sysfs).  Energy is not read here: the demo
 * appends the power from the tests' one energy reader (selftests/lib/energy.sh).
 *
 * Usage: sgsample [-i MS] [-d SECONDS] [-s SLOT] [-H]
 *   -i  period in ms (default 500)
 *   -d  stop after SECONDS (default: run until killed)
 *   -s  target slot in SLACKGOV_PIN_DIR/windows (default 0)
 *   -H  print the CSV header first
 * Columns: t_s,obs_rps,slack,cv,util,win_seq,khz_cpu0,khz_cpu1,mode_cpu1
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "slackgov.h"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	exiting = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static long cpu_khz(int cpu)
{
	char path[96], buf[32];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
	return read_line(path, buf, sizeof(buf)) ? -1 : atol(buf);
}

int main(int argc, char **argv)
{
	struct slackgov_target_state *st;
	double t0, end = 0;
	int period_ms = 500, slot = 0, header = 0, fd, opt;
	char mode[32];

	while ((opt = getopt(argc, argv, "i:d:s:H")) != -1) {
		switch (opt) {
		case 'i': period_ms = atoi(optarg); break;
		case 'd': end = atof(optarg); break;
		case 's': slot = atoi(optarg); break;
		case 'H': header = 1; break;
		default:
			fprintf(stderr, "usage: sgsample [-i MS] [-d S] [-s SLOT] [-H]\n");
			return 2;
		}
	}
	if (period_ms <= 0 || slot < 0 || slot >= SLACKGOV_MAX_TARGETS) {
		fprintf(stderr, "sgsample: error: bad period or slot\n");
		return 2;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return 1;
	fd = bpf_obj_get(SLACKGOV_PIN_DIR "/windows");	/* may be absent: columns empty */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (header)
		printf("t_s,obs_rps,slack,cv,util,win_seq,khz_cpu0,khz_cpu1,mode_cpu1\n");
	t0 = now_s();
	while (!exiting && (!end || now_s() - t0 < end)) {
		__u32 key = slot;

		usleep(period_ms * 1000);
		if (fd < 0 || bpf_map_lookup_elem(fd, &key, st))
			memset(st, 0, sizeof(*st));
		if (read_line("/sys/devices/system/cpu/cpufreq/policy1/slack/mode", mode, sizeof(mode)))
			strcpy(mode, "-");
		printf("%.2f,%u,%u,%u,%u,%llu,%ld,%ld,%s\n", now_s() - t0,
		       st->last.rps, st->last.slack, st->last.cv, st->last.util,
		       (unsigned long long)st->last.seq, cpu_khz(0), cpu_khz(1), mode);
		fflush(stdout);
	}
	free(st);
	return 0;
}
