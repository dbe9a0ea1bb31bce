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

/* one cpufreq policy as sysfs shows it; "-" where a file is missing */
struct sc_policy {
	char name[32], gov[32], cur[32], mode[32], reason[32], dec[32], boosts[32], fb[32];
	char last_freq[32], last_slack[32];
};

/* at most this many policies are shown (one per CPU on the largest machines we know) */
#define SC_MAX_POLICIES	1024

struct sc_walk {
	int fd;			/* windows map */
	int n;
	int metric;		/* stats: which target metric this pass prints */
	struct slackgov_target_state *st;
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- metric families: Prometheus text, or the same as JSON with -j ---- */

struct sc_family {
	const char *name, *help, *type;
};

static const struct sc_family fam_feed = {
	"slackgov_feed_enabled", "1 when windows are handed to slackgov.ko.", "gauge" };
static const struct sc_family fam_target[] = {
	{ "slackgov_target_rps", "Observed requests per second in the last window.", "gauge" },
	{ "slackgov_target_slack_ratio", "Share of worker time blocked in wait calls, last window.", "gauge" },
	{ "slackgov_target_recv_cv_ratio", "Coefficient of variation of inter-recv intervals, last window.", "gauge" },
	{ "slackgov_target_util_ratio", "Target on-CPU time per window length, last window.", "gauge" },
	{ "slackgov_target_windows_total", "Windows closed since the target was added.", "counter" },
};
static const struct sc_family fam_policy[] = {
	{ "slackgov_policy_frequency_hertz", "Current frequency of the policy.", "gauge" },
	{ "slackgov_policy_decisions_total", "Decisions of the slack governor.", "counter" },
	{ "slackgov_policy_boosts_total", "Saturation boosts of the slack governor.", "counter" },
	{ "slackgov_policy_fallbacks_total", "Stale-signal fallbacks of the slack governor.", "counter" },
};
#define SC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct sc_family *cur_family;

static void family_begin(const struct sc_family *f)
{
	cur_family = f;
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "name", f->name);
		jsonw_string_field(json_wtr, "type", f->type);
		jsonw_string_field(json_wtr, "help", f->help);
		jsonw_name(json_wtr, "samples");
		jsonw_start_array(json_wtr);
	} else {
		printf("# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name, f->type);
	}
}

static void family_end(void)
{
	if (json_wtr) {
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
}

/* a label value in the exposition format: backslash, quote and newline escaped */
static void prom_label_value(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			printf("\\%c", *s);
		else if (*s == '\n')
			printf("\\n");
		else
			putchar(*s);
	}
	putchar('"');
}

/* one sample of the current family; labels as name, value pairs */
static void sample(double value, int nlabels, const char *const *labels)
{
	int i;

	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_name(json_wtr, "labels");
		jsonw_start_object(json_wtr);
		for (i = 0; i < nlabels; i++)
			jsonw_string_field(json_wtr, labels[2 * i], labels[2 * i + 1]);
		jsonw_end_object(json_wtr);
		jsonw_float_field_fmt(json_wtr, "value", "%.15g", value);
		jsonw_end_object(json_wtr);
		return;
	}
	printf("%s", cur_family->name);
	for (i = 0; i < nlabels; i++) {
		printf("%s%s=", i ? "," : "{", labels[2 * i]);
		prom_label_value(labels[2 * i + 1]);
	}
	printf("%s %.15g\n", nlabels ? "}" : "", value);
}

static double target_value(int m, const struct slackgov_target_state *st)
{
	const struct slackgov_window *w = &st->last;

	switch (m) {
	case 0: return w->rps;
	case 1: return w->slack / 1000.0;
	case 2: return w->cv / 1000.0;
	case 3: return w->util / 1000.0;
	default: return st->head;
	}
}

static void read_state(struct sc_walk *wk, __u32 slot)
{
	if (bpf_map_lookup_elem(wk->fd, &slot, wk->st))
		memset(wk->st, 0, sizeof(*wk->st));
}

static void stats_one(int kind, const void *key, const struct slackgov_target *v, void *ctx)
{
	struct sc_walk *wk = ctx;
	char text[64];
	const char *labels[2] = { "target", text };

	sc_target_text(kind, key, text, sizeof(text));
	read_state(wk, v->slot);
	sample(target_value(wk->metric, wk->st), 1, labels);
}

static void status_one(int kind, const void *key, const struct slackgov_target *v, void *ctx)
{
	struct sc_walk *wk = ctx;
	struct slackgov_window *w = &wk->st->last;
	char text[64];
	double age;

	sc_target_text(kind, key, text, sizeof(text));
	read_state(wk, v->slot);
	age = w->seq ? (now_ns() - w->end_ns) / 1e9 : -1;
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "target", text);
		jsonw_uint_field(json_wtr, "slot", v->slot);
		jsonw_uint_field(json_wtr, "setpoint", v->setpoint);
		jsonw_name(json_wtr, "window");
		jsonw_start_object(json_wtr);
		jsonw_uint_field(json_wtr, "seq", w->seq);
		jsonw_float_field_fmt(json_wtr, "age_s", "%.3f", age);
		jsonw_float_field_fmt(json_wtr, "len_s", "%.6f", (w->end_ns - w->start_ns) / 1e9);
		jsonw_uint_field(json_wtr, "rps", w->rps);
		jsonw_uint_field(json_wtr, "slack", w->slack);
		jsonw_uint_field(json_wtr, "cv", w->cv);
		jsonw_uint_field(json_wtr, "util", w->util);
		jsonw_uint_field(json_wtr, "nr_send", w->nr_send);
		jsonw_uint_field(json_wtr, "nr_recv", w->nr_recv);
		jsonw_uint_field(json_wtr, "nr_wait", w->nr_wait);
		jsonw_uint_field(json_wtr, "workers", w->nr_threads);
		jsonw_uint_field(json_wtr, "flags", w->flags);
		jsonw_int_field(json_wtr, "report_ret", w->report_ret);
		jsonw_end_object(json_wtr);
		jsonw_uint_field(json_wtr, "windows", wk->st->head);
		jsonw_uint_field(json_wtr, "total_send", wk->st->total_send);
		jsonw_float_field_fmt(json_wtr, "total_s", "%.3f", wk->st->total_ns / 1e9);
		jsonw_end_object(json_wtr);
		return;
	}
	if (!wk->n++)
		printf("%-22s %5s %8s %7s %7s %7s %8s %7s\n", "TARGET", "SLOT", "RPS", "SLACK", "CV",
		       "UTIL", "WINDOWS", "AGE");
	printf("%-22s %5u %8u %6.1f%% %7.3f %6.1f%% %8llu %6.2fs\n", text, v->slot, w->rps,
	       w->slack / 10.0, w->cv / 1000.0, w->util / 10.0, (unsigned long long)wk->st->head, age);
}

static void read_stat(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (sc_read_file(path, buf, len) || !buf[0])
		snprintf(buf, len, "-");
}

/* every cpufreq policy: governor, frequency and, under slack, its stats */
static int read_policies(struct sc_policy **out)
{
	struct sc_policy *p;
	char dir[512];
	glob_t g;
	size_t i, n;

	*out = NULL;
	if (glob(SC_CPUFREQ "/policy*", 0, NULL, &g))
		return 0;
	n = g.gl_pathc < SC_MAX_POLICIES ? g.gl_pathc : SC_MAX_POLICIES;
	p = calloc(n, sizeof(*p));
	if (!p) {
		globfree(&g);
		return 0;
	}
	for (i = 0; i < n; i++) {
		const char *pol = g.gl_pathv[i];

		snprintf(p[i].name, sizeof(p[i].name), "%s", strrchr(pol, '/') + 1);
		read_stat(pol, "scaling_governor", p[i].gov, sizeof(p[i].gov));
		read_stat(pol, "scaling_cur_freq", p[i].cur, sizeof(p[i].cur));
		snprintf(dir, sizeof(dir), "%s/slack", pol);
		read_stat(dir, "mode", p[i].mode, sizeof(p[i].mode));
		read_stat(dir, "last_reason", p[i].reason, sizeof(p[i].reason));
		read_stat(dir, "last_freq", p[i].last_freq, sizeof(p[i].last_freq));
		read_stat(dir, "last_slack", p[i].last_slack, sizeof(p[i].last_slack));
		read_stat(dir, "decisions", p[i].dec, sizeof(p[i].dec));
		read_stat(dir, "boosts", p[i].boosts, sizeof(p[i].boosts));
		read_stat(dir, "fallbacks", p[i].fb, sizeof(p[i].fb));
	}
	globfree(&g);
	*out = p;
	return n;
}

static bool is_number(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

static void status_policies(void)
{
	struct sc_policy *p;
	int i, n = read_policies(&p);

	if (json_wtr) {
		jsonw_name(json_wtr, "policies");
		jsonw_start_array(json_wtr);
	}
	for (i = 0; i < n; i++) {
		if (json_wtr) {
			jsonw_start_object(json_wtr);
			jsonw_string_field(json_wtr, "policy", p[i].name);
			jsonw_string_field(json_wtr, "governor", p[i].gov);
			jsonw_number_text_field(json_wtr, "cur_khz", p[i].cur);
			jsonw_string_field(json_wtr, "mode", p[i].mode);
			jsonw_string_field(json_wtr, "last_reason", p[i].reason);
			jsonw_number_text_field(json_wtr, "last_freq_khz", p[i].last_freq);
			jsonw_number_text_field(json_wtr, "last_slack", p[i].last_slack);
			jsonw_number_text_field(json_wtr, "decisions", p[i].dec);
			jsonw_number_text_field(json_wtr, "boosts", p[i].boosts);
			jsonw_number_text_field(json_wtr, "fallbacks", p[i].fb);
			jsonw_end_object(json_wtr);
			continue;
		}
		if (!i)
			printf("\n%-10s %-12s %10s %-8s %-12s %10s %10s %8s %9s\n", "POLICY", "GOVERNOR",
			       "KHZ", "MODE", "REASON", "LAST_KHZ", "DECISIONS", "BOOSTS", "FALLBACKS");
		printf("%-10s %-12s %10s %-8s %-12s %10s %10s %8s %9s\n", p[i].name, p[i].gov,
		       p[i].cur, p[i].mode, p[i].reason, p[i].last_freq, p[i].dec, p[i].boosts, p[i].fb);
	}
	if (json_wtr)
		jsonw_end_array(json_wtr);
	free(p);
}

static int status_once(void)
{
	struct sc_walk wk = {};
	bool feed = sc_feed_on(), mod = sc_module_loaded();

	wk.st = calloc(1, sizeof(*wk.st));
	wk.fd = sc_map_fd("windows");
	if (!wk.st || wk.fd < 0) {
		free(wk.st);
		if (wk.fd >= 0)
			close(wk.fd);
		return sc_err("not loaded: run 'slackctl load' first");
	}
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "loaded", true);
		jsonw_bool_field(json_wtr, "feed", feed);
		jsonw_bool_field(json_wtr, "module", mod);
		jsonw_name(json_wtr, "targets");
		jsonw_start_array(json_wtr);
	} else {
		printf("feed: %s\n\n", feed ? "on (slackgov.ko)" :
		       mod ? "off (slackgov.ko is loaded: slackctl unload; slackctl load)" :
			     "off (module not loaded: metrics only)");
	}
	sc_for_each_target(status_one, &wk);
	if (json_wtr)
		jsonw_end_array(json_wtr);
	else if (!wk.n)
		printf("no targets: slackctl target add --pid PID | --comm NAME | --cgroup PATH\n");
	status_policies();
	if (json_wtr)
		jsonw_end_object(json_wtr);
	close(wk.fd);
	free(wk.st);
	return 0;
}

int do_status(int argc, char **argv)
{
	unsigned long long watch = 0;

	if (argc == 2 && is_prefix(argv[0], "--watch")) {
		if (sc_parse_num("--watch", SC_SEC, 1, 3600, argv[1], &watch))
			return -1;
	} else if (argc) {
		return sc_err("usage: slackctl status [--watch SECONDS]");
	}
	if (sc_check_env(SC_NEED_PINS))
		return -1;
	/* with -j, --watch writes one document per refresh (JSON lines unless -p) */
	for (;;) {
		if (watch && !json_wtr)
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
	struct sc_policy *p;
	size_t m;
	int i, n;

	if (argc > 1 || (argc == 1 && !is_prefix(argv[0], "--prom")))
		return sc_err("usage: slackctl stats [--prom]");
	if (sc_check_env(SC_NEED_PINS))
		return -1;
	wk.st = calloc(1, sizeof(*wk.st));
	wk.fd = sc_map_fd("windows");
	if (!wk.st || wk.fd < 0) {
		free(wk.st);
		if (wk.fd >= 0)
			close(wk.fd);
		return sc_err("not loaded: run 'slackctl load' first");
	}
	n = read_policies(&p);
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_name(json_wtr, "metrics");
		jsonw_start_array(json_wtr);
	}
	family_begin(&fam_feed);
	sample(sc_feed_on(), 0, NULL);
	family_end();
	for (m = 0; m < SC_ARRAY_SIZE(fam_target); m++) {
		family_begin(&fam_target[m]);
		wk.metric = m;
		sc_for_each_target(stats_one, &wk);
		family_end();
	}
	/* one family at a time: the format wants each family's samples together */
	family_begin(&fam_policy[0]);
	for (i = 0; i < n; i++) {
		const char *labels[4] = { "policy", p[i].name, "governor", p[i].gov };

		if (is_number(p[i].cur))
			sample(strtod(p[i].cur, NULL) * 1000, 2, labels);
	}
	family_end();
	for (m = 1; m < SC_ARRAY_SIZE(fam_policy); m++) {
		family_begin(&fam_policy[m]);
		for (i = 0; i < n; i++) {
			const char *labels[2] = { "policy", p[i].name };
			const char *v = m == 1 ? p[i].dec : m == 2 ? p[i].boosts : p[i].fb;

			if (is_number(v))
				sample(strtod(v, NULL), 1, labels);
		}
		family_end();
	}
	if (json_wtr) {
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
	free(p);
	close(wk.fd);
	free(wk.st);
	return 0;
}
