// SPDX-License-Identifier: GPL-2.0
/*
 * sgsample.c - periodic sampler for the demo and the bench: one CSV row per
 * period with the target's last window (from the pinned windows map), the
 * CPUs' frequencies and governor mode (sysfs) and the modeled power of the
 * emulated platform (energy meter delta / time).
 *
 * Usage: sgsample [-i MS] [-d SECONDS] [-s SLOT] [-e ENERGY_FILE] [-H]
 *   -i  period in ms (default 500)
 *   -d  stop after SECONDS (default: run until killed)
 *   -s  target slot in SLACKGOV_PIN_DIR/windows (default 0)
 *   -e  FILE[:KEY] holding the modeled energy in microjoules: a bare number,
 *       or "key value" lines of which the KEY line is used (default "total"),
 *       e.g. /sys/kernel/debug/vplatform/energy_uj:cpu1
 *   -H  print the CSV header first
 * Columns: t_s,obs_rps,slack,cv,util,win_seq,khz_cpu0,khz_cpu1,mode_cpu1,power_w
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

/* modeled energy in uJ: a bare number, or the want line of "key value" lines */
static double energy_uj(const char *path, const char *want)
{
	char key[64], line[256];
	double v, total = -1;
	FILE *f;

	if (!path)
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lf", key, &v) == 2) {
			if (!strcmp(key, want))
				total = v;
		} else if (sscanf(line, "%lf", &v) == 1) {
			total = v;
		}
	}
	fclose(f);
	return total;
}

int main(int argc, char **argv)
{
	struct slackgov_target_state *st;
	const char *efile = NULL, *ekey = "total";
	char *colon;
	double t0, end = 0, e_prev, t_prev;
	int period_ms = 500, slot = 0, header = 0, fd, opt;
	char mode[32];

	while ((opt = getopt(argc, argv, "i:d:s:e:H")) != -1) {
		switch (opt) {
		case 'i': period_ms = atoi(optarg); break;
		case 'd': end = atof(optarg); break;
		case 's': slot = atoi(optarg); break;
		case 'e': efile = optarg; break;
		case 'H': header = 1; break;
		default:
			fprintf(stderr, "usage: sgsample [-i MS] [-d S] [-s SLOT] [-e FILE] [-H]\n");
			return 2;
		}
	}
	if (period_ms <= 0 || slot < 0 || slot >= SLACKGOV_MAX_TARGETS) {
		fprintf(stderr, "sgsample: error: bad period or slot\n");
		return 2;
	}
	if (efile && (colon = strchr(efile, ':'))) {
		*colon = 0;
		ekey = colon + 1;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return 1;
	fd = bpf_obj_get(SLACKGOV_PIN_DIR "/windows");	/* may be absent: columns empty */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (header)
		printf("t_s,obs_rps,slack,cv,util,win_seq,khz_cpu0,khz_cpu1,mode_cpu1,power_w\n");
	t0 = t_prev = now_s();
	e_prev = energy_uj(efile, ekey);
	while (!exiting && (!end || now_s() - t0 < end)) {
		double t, e, power = -1;
		__u32 key = slot;

		usleep(period_ms * 1000);
		t = now_s();
		e = energy_uj(efile, ekey);
		if (e >= 0 && e_prev >= 0 && t > t_prev)
			power = (e - e_prev) / 1e6 / (t - t_prev);
		e_prev = e;
		t_prev = t;
		if (fd < 0 || bpf_map_lookup_elem(fd, &key, st))
			memset(st, 0, sizeof(*st));
		if (read_line("/sys/devices/system/cpu/cpufreq/policy1/slack/mode", mode, sizeof(mode)))
			strcpy(mode, "-");
		printf("%.2f,%u,%u,%u,%u,%llu,%ld,%ld,%s,%.3f\n", t - t0,
		       st->last.rps, st->last.slack, st->last.cv, st->last.util,
		       (unsigned long long)st->last.seq, cpu_khz(0), cpu_khz(1), mode, power);
		fflush(stdout);
	}
	free(st);
	return 0;
}
