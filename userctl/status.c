// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - slackctl status and stats --prom: per target its last window
 * (pinned windows map), per policy the governor's state (sysfs).
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "slackctl.h"

struct sc_walk {
	int fd;			/* windows map */
	int n;
	bool prom;
	int metric;		/* prom: which metric this pass prints */
	struct slackgov_target_state *st;
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static const struct {
	const char *name, *help, *type;
} prom_target[] = {
	{ "slackgov_target_rps", "Observed requests per second in the last window.", "gauge" },
	{ "slackgov_target_slack_ratio", "Share of worker time blocked in wait calls, last window.", "gauge" },
	{ "slackgov_target_recv_cv_ratio", "Coefficient of variation of inter-recv intervals, last window.", "gauge" },
	{ "slackgov_target_util_ratio", "Target on-CPU time per window length, last window.", "gauge" },
	{ "slackgov_target_windows_total", "Windows closed since the target was added.", "counter" },
};

static double prom_value(int m, const struct slackgov_window *w, __u64 head)
{
	switch (m) {
	case 0: return w->rps;
	case 1: return w->slack / 1000.0;
	case 2: return w->cv / 1000.0;
	case 3: return w->util / 1000.0;
	default: return head;
	}
}

static void walk_one(int kind, const void *key, const struct slackgov_target *v, void *ctx)
{
	struct sc_walk *wk = ctx;
	struct slackgov_window *w = &wk->st->last;
	__u32 slot = v->slot;
	char text[64];
	double age;

	sc_target_text(kind, key, text, sizeof(text));
	if (bpf_map_lookup_elem(wk->fd, &slot, wk->st))
		memset(wk->st, 0, sizeof(*wk->st));
	age = w->seq ? (now_ns() - w->end_ns) / 1e9 : -1;
	if (wk->prom) {
		printf("%s{target=\"%s\"} %g\n", prom_target[wk->metric].name, text,
		       prom_value(wk->metric, w, wk->st->head));
		return;
	}
	if (json_output) {
		printf("%s{\"target\": ", wk->n++ ? ", " : "");
		sc_json_str(text);
		printf(", \"slot\": %u, \"setpoint\": %u, \"window\": {\"seq\": %llu, \"age_s\": %.3f, "
		       "\"rps\": %u, \"slack\": %u, \"cv\": %u, \"util\": %u, \"nr_send\": %u, "
		       "\"nr_recv\": %u, \"nr_wait\": %u, \"workers\": %u, \"flags\": %u, \"report_ret\": %d}, "
		       "\"windows\": %llu, \"total_send\": %llu, \"total_s\": %.3f}",
		       slot, v->setpoint, (unsigned long long)w->seq, age, w->rps, w->slack, w->cv,
		       w->util, w->nr_send, w->nr_recv, w->nr_wait, w->nr_threads, w->flags, w->report_ret,
		       (unsigned long long)wk->st->head, (unsigned long long)wk->st->total_send,
		       wk->st->total_ns / 1e9);
		return;
	}
	if (!wk->n++)
		printf("%-22s %5s %8s %7s %7s %7s %8s %7s\n", "TARGET", "SLOT", "RPS", "SLACK", "CV",
		       "UTIL", "WINDOWS", "AGE");
	printf("%-22s %5u %8u %6.1f%% %7.3f %6.1f%% %8llu %6.2fs\n", text, slot, w->rps,
	       w->slack / 10.0, w->cv / 1000.0, w->util / 10.0, (unsigned long long)wk->st->head, age);
}

static void read_stat(const char *pol, const char *name, char *buf, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", pol, name);
	if (sc_read_file(path, buf, len))
		snprintf(buf, len, "-");
}

/* per policy: governor, frequency and, under slack, its stats */
static void policies(bool prom)
{
	char gov[32], cur[32], mode[32], reason[32], dec[32], boosts[32], fb[32], stats[256];
	glob_t g;
	int n = 0;

	if (glob(SC_CPUFREQ "/policy*", 0, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *pol = g.gl_pathv[i], *name = strrchr(pol, '/') + 1;

		read_stat(pol, "scaling_governor", gov, sizeof(gov));
		read_stat(pol, "scaling_cur_freq", cur, sizeof(cur));
		snprintf(stats, sizeof(stats), "%s/slack", pol);
		read_stat(stats, "mode", mode, sizeof(mode));
		read_stat(stats, "last_reason", reason, sizeof(reason));
		read_stat(stats, "decisions", dec, sizeof(dec));
		read_stat(stats, "boosts", boosts, sizeof(boosts));
		read_stat(stats, "fallbacks", fb, sizeof(fb));
		if (prom) {
			printf("slackgov_policy_frequency_hertz{policy=\"%s\",governor=\"%s\"} %s000\n",
			       name, gov, cur);
			if (strcmp(dec, "-"))
				printf("slackgov_policy_decisions_total{policy=\"%s\"} %s\n"
				       "slackgov_policy_boosts_total{policy=\"%s\"} %s\n"
				       "slackgov_policy_fallbacks_total{policy=\"%s\"} %s\n",
				       name, dec, name, boosts, name, fb);
			continue;
		}
		if (json_output) {
			printf("%s{\"policy\": \"%s\", \"governor\": \"%s\", \"cur_khz\": %s, "
			       "\"mode\": \"%s\", \"last_reason\": \"%s\", \"decisions\": %s, \"boosts\": %s, "
			       "\"fallbacks\": %s}", n++ ? ", " : "", name, gov,
			       strcmp(cur, "-") ? cur : "null", mode, reason,
			       strcmp(dec, "-") ? dec : "null", strcmp(boosts, "-") ? boosts : "null",
			       strcmp(fb, "-") ? fb : "null");
			continue;
		}
		if (!n++)
			printf("\n%-10s %-12s %10s %-8s %-12s %10s %8s %9s\n", "POLICY", "GOVERNOR", "KHZ",
			       "MODE", "REASON", "DECISIONS", "BOOSTS", "FALLBACKS");
		printf("%-10s %-12s %10s %-8s %-12s %10s %8s %9s\n", name, gov, cur, mode, reason,
		       dec, boosts, fb);
	}
	globfree(&g);
}

static int status_once(void)
{
	struct sc_walk wk = {};
	bool feed = sc_feed_on(), mod = sc_module_loaded();

	wk.st = calloc(1, sizeof(*wk.st));
	wk.fd = sc_map_fd("windows");
	if (!wk.st || wk.fd < 0) {
		free(wk.st);
		return sc_err("not loaded: run 'slackctl load' first");
	}
	if (json_output) {
		printf("{\"loaded\": true, \"feed\": %s, \"module\": %s, \"targets\": [",
		       feed ? "true" : "false", mod ? "true" : "false");
	} else {
		printf("feed: %s\n\n", feed ? "on (slackgov.ko)" :
		       mod ? "off (slackgov.ko is loaded: slackctl unload; slackctl load)" :
			     "off (module not loaded: metrics only)");
	}
	sc_for_each_target(walk_one, &wk);
	if (!json_output && !wk.n)
		printf("no targets: slackctl target add --pid PID | --comm NAME | --cgroup PATH\n");
	if (json_output)
		printf("], \"policies\": [");
	policies(false);
	if (json_output)
		printf("]}\n");
	close(wk.fd);
	free(wk.st);
	return 0;
}

int do_status(int argc, char **argv)
{
	long watch = 0;
	char *end;

	if (argc == 2 && is_prefix(argv[0], "--watch")) {
		watch = strtol(argv[1], &end, 10);
		if (*end || watch <= 0 || watch > 3600)
			return sc_err("status: --watch takes seconds, 1 to 3600");
	} else if (argc) {
		return sc_err("usage: slackctl status [--watch SECONDS]");
	}
	if (sc_check_env(true))
		return -1;
	for (;;) {
		if (watch && !json_output)
			printf("\033[H\033[2J");
		if (status_once())
			return -1;
		if (!watch)
			return 0;
		fflush(stdout);
		sleep(watch);
	}
}

int do_stats(int argc, char **argv)
{
	struct sc_walk wk = {};
	size_t m;

	if (argc != 1 || !is_prefix(argv[0], "--prom"))
		return sc_err("usage: slackctl stats --prom");
	if (sc_check_env(true))
		return -1;
	wk.st = calloc(1, sizeof(*wk.st));
	wk.fd = sc_map_fd("windows");
	if (!wk.st || wk.fd < 0) {
		free(wk.st);
		return sc_err("not loaded: run 'slackctl load' first");
	}
	wk.prom = true;
	printf("# HELP slackgov_feed_enabled 1 when windows are handed to slackgov.ko.\n"
	       "# TYPE slackgov_feed_enabled gauge\nslackgov_feed_enabled %d\n", sc_feed_on());
	for (m = 0; m < sizeof(prom_target) / sizeof(prom_target[0]); m++) {
		printf("# HELP %s %s\n# TYPE %s %s\n", prom_target[m].name, prom_target[m].help,
		       prom_target[m].name, prom_target[m].type);
		wk.metric = m;
		sc_for_each_target(walk_one, &wk);
	}
	printf("# HELP slackgov_policy_frequency_hertz Current frequency of the policy.\n"
	       "# TYPE slackgov_policy_frequency_hertz gauge\n"
	       "# HELP slackgov_policy_decisions_total Decisions of the slack governor.\n"
	       "# TYPE slackgov_policy_decisions_total counter\n"
	       "# HELP slackgov_policy_boosts_total Saturation boosts of the slack governor.\n"
	       "# TYPE slackgov_policy_boosts_total counter\n"
	       "# HELP slackgov_policy_fallbacks_total Stale-signal fallbacks of the slack governor.\n"
	       "# TYPE slackgov_policy_fallbacks_total counter\n");
	policies(true);
	close(wk.fd);
	free(wk.st);
	return 0;
}
