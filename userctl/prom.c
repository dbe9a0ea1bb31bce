// SPDX-License-Identifier: GPL-2.0
/*
 * prom.c - slackctl stats: the metrics in Prometheus' text exposition format
 * (stats --prom, stats --prom --output FILE, and the exporter's /metrics),
 * or the same families as JSON with -j.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "slackctl.h"

/**
 * DOC: prometheus
 *
 * The export follows Prometheus' naming conventions: what accumulates is a
 * counter named ``_total`` (requests, windows, seconds blocked, busy and on
 * a CPU, decisions, boosts, fallbacks, joules), so that ``rate()`` over any
 * scrape interval gives the exact average; gauges are states (the current
 * frequency, the slack over the last second, the SLO); units are the base
 * ones (seconds, hertz, joules, ratios 0..1).  The request latency is a
 * histogram whose ``le`` edges are the powers of two of microseconds from
 * 1 us to 2^24 us (16.8 s): each is an edge of the BPF side's log-linear
 * buckets, so every cumulative count is exact (the requests below the
 * edge); finer figures are in ``slackctl status``.
 *
 * Label sets are fixed per family.  A target's label is what ``target
 * list`` shows ("pid 123", "comm nginx", "cgroup 4242"), where a process
 * name's bytes outside printable ASCII (a name is any 15 bytes, not always
 * UTF-8) are already the text ``\xHH``; the format then escapes backslash,
 * quote and newline.  A byte that is still not valid UTF-8 (a label from
 * elsewhere) is written as ``\xHH`` too: the format wants UTF-8.
 */

/* the slack gauge's interval: the time scale of status's default */
#define SC_PROM_INTERVAL_NS	1000000000ULL

enum sc_fam {
	F_BUILD, F_FEED, F_HOOKS,
	F_REQ, F_RECV, F_WIN, F_WIN_S, F_BLOCKED, F_BUSY, F_CPU, F_RUNQ, F_SLEEP, F_SLACK, F_CV,
	F_LAT, F_QUEUE, F_SLO, F_MARGIN, F_SLO_WIN, F_SLO_OVER,
	F_FREQ, F_DEC, F_BOOST, F_FB, F_ENERGY,
	F_NR
};

static const struct sc_family {
	const char *name, *type, *help;
} fams[F_NR] = {
	[F_BUILD] = { "slackgov_build_info", "gauge",
		"Always 1; labels: slackctl version and the sample ABI version." },
	[F_FEED] = { "slackgov_feed_enabled", "gauge",
		"1 when closed windows are handed to slackgov.ko, 0 for metrics only." },
	[F_HOOKS] = { "slackgov_hooks_info", "gauge",
		"Always 1; label hooks: the programs that see the syscalls (fentry, or tracepoint: sys_enter/sys_exit)." },
	[F_REQ] = { "slackgov_target_requests_total", "counter",
		"Requests answered, as the target's --proto counts them (send-family calls under the thread rules)." },
	[F_RECV] = { "slackgov_target_recvs_total", "counter",
		"Successful recv-family calls of the target's workers." },
	[F_WIN] = { "slackgov_target_windows_total", "counter",
		"Measurement windows closed since the target was added." },
	[F_WIN_S] = { "slackgov_target_window_seconds_total", "counter",
		"Time covered by the closed windows, seconds." },
	[F_BLOCKED] = { "slackgov_target_blocked_seconds_total", "counter",
		"Worker time blocked in wait calls (epoll, poll, select, a recv that slept), seconds, summed over workers." },
	[F_BUSY] = { "slackgov_target_busy_seconds_total", "counter",
		"Worker time from a wait's return to the next wait, seconds, summed over workers." },
	[F_CPU] = { "slackgov_target_cpu_seconds_total", "counter",
		"On-CPU time of the target's threads, seconds." },
	[F_RUNQ] = { "slackgov_target_runqueue_seconds_total", "counter",
		"Time the target's threads waited on a run queue (the scheduler's run_delay), seconds." },
	[F_SLEEP] = { "slackgov_target_service_blocked_seconds_total", "counter",
		"Time the target's threads slept inside a busy segment (not waiting for work: a request's own blocking), seconds." },
	[F_SLACK] = { "slackgov_target_slack_ratio", "gauge",
		"Blocked share of worker time, blocked / (blocked + busy), over the last second of windows." },
	[F_CV] = { "slackgov_target_interarrival_cv", "gauge",
		"Coefficient of variation of request inter-arrival times (one recv's requests simultaneous), window-length weighted over the last second." },
	[F_LAT] = { "slackgov_target_request_latency_seconds", "histogram",
		"Server-side request latency, first byte at the socket to the end of the answering send, seconds." },
	[F_QUEUE] = { "slackgov_target_request_queueing_seconds_total", "counter",
		"Sum over timed requests of the time from the first byte at the socket to the read that took it, seconds." },
	[F_SLO] = { "slackgov_target_slo_seconds", "gauge",
		"The target's latency objective at the labelled quantile, seconds." },
	[F_MARGIN] = { "slackgov_target_slo_margin_ratio", "gauge",
		"The share of the SLO the governor keeps free for the target: its own margin, or the slo_margin knob's." },
	[F_SLO_WIN] = { "slackgov_target_slo_windows_total", "counter",
		"Windows that timed requests against the target's SLO." },
	[F_SLO_OVER] = { "slackgov_target_slo_missed_windows_total", "counter",
		"Of those, windows whose latency at the SLO's quantile exceeded the SLO." },
	[F_FREQ] = { "slackgov_policy_frequency_hertz", "gauge",
		"Current frequency of the cpufreq policy (scaling_cur_freq), hertz." },
	[F_DEC] = { "slackgov_policy_decisions_total", "counter",
		"Frequency decisions of the slack governor on the policy." },
	[F_BOOST] = { "slackgov_policy_boosts_total", "counter",
		"Saturation boosts to the maximum frequency by the slack governor." },
	[F_FB] = { "slackgov_policy_fallbacks_total", "counter",
		"Decisions that fell back to safe_khz because the signal was stale." },
	[F_ENERGY] = { "slackgov_energy_joules_total", "counter",
		"Energy counter of a top-level powercap zone (modeled on the emulated platform), joules; wraps at max_energy_range_uj." },
};

/* the walk's state: output stream and the family being written */
struct sc_prom {
	FILE *out;
	int fam;
	int fd;
	struct slackgov_target_state *st;
	double margin_knob;	/* slo_margin, 0..1; -1: the governor is not there */
};

/* the margin an SLO target is held with, 0..1: its own, else the knob's; -1: unknown */
static double slo_margin(const struct sc_prom *p, __u32 own)
{
	return own & SLACKGOV_MARGIN_OWN ? slackgov_margin(own, 0) / 1000.0 : p->margin_knob;
}

static void family_begin(struct sc_prom *p, int f)
{
	p->fam = f;
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "name", fams[f].name);
		jsonw_string_field(json_wtr, "type", fams[f].type);
		jsonw_string_field(json_wtr, "help", fams[f].help);
		jsonw_name(json_wtr, "samples");
		jsonw_start_array(json_wtr);
	} else {
		fprintf(p->out, "# HELP %s %s\n# TYPE %s %s\n", fams[f].name, fams[f].help,
			fams[f].name, fams[f].type);
	}
}

static void family_end(void)
{
	if (json_wtr) {
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
}

/*
 * A label value: the format's escapes (backslash, quote, newline), and
 * \xHH for a byte that is not valid UTF-8 (see the DOC block).
 */
static void label_value(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	int n;

	fputc('"', out);
	while (*u) {
		n = jsonw_utf8_len(u);
		if (*u == '\\')
			fputs("\\\\", out);
		else if (*u == '"')
			fputs("\\\"", out);
		else if (*u == '\n')
			fputs("\\n", out);
		else if (n)
			fwrite(u, 1, n, out);
		else
			fprintf(out, "\\\\x%02x", *u);	/* \xHH in the value */
		u += n ?: 1;
	}
	fputc('"', out);
}

/* one sample of the current family: @suffix (_bucket, _sum, ...), label pairs */
static void sample(struct sc_prom *p, const char *suffix, double value, int nlabels,
		   const char *const *labels)
{
	int i;

	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "name", fams[p->fam].name);
		if (*suffix)
			jsonw_string_field(json_wtr, "suffix", suffix);
		jsonw_name(json_wtr, "labels");
		jsonw_start_object(json_wtr);
		for (i = 0; i < nlabels; i++)
			jsonw_string_field(json_wtr, labels[2 * i], labels[2 * i + 1]);
		jsonw_end_object(json_wtr);
		jsonw_float_field_fmt(json_wtr, "value", "%.17g", value);
		jsonw_end_object(json_wtr);
		return;
	}
	fprintf(p->out, "%s%s", fams[p->fam].name, suffix);
	for (i = 0; i < nlabels; i++) {
		fprintf(p->out, "%s%s=", i ? "," : "{", labels[2 * i]);
		label_value(p->out, labels[2 * i + 1]);
	}
	/* %.17g: a counter's integer value stays exact up to 2^53 */
	fprintf(p->out, "%s %.17g\n", nlabels ? "}" : "", value);
}

/* the latency histogram of one target: le = 2^k us, k = 0 .. SLACKGOV_LAT_MAX_LOG */
static void latency_hist(struct sc_prom *p, const char *target)
{
	const struct slackgov_target_state *st = p->st;
	char le[32];
	const char *labels[4] = { "target", target, "le", le };
	__u64 cum = 0;
	__u32 b = 0, k;

	for (k = 0; k <= SLACKGOV_LAT_MAX_LOG; k++) {
		/* the buckets below 2^k us: their upper edges are <= 2^k */
		for (; b < SLACKGOV_LAT_BUCKETS && slackgov_lat_lo(b + 1) <= (1ULL << k); b++)
			cum += st->lat_hist[b];
		snprintf(le, sizeof(le), "%.17g", (1ULL << k) / 1e6);
		sample(p, "_bucket", cum, 2, labels);
	}
	for (; b < SLACKGOV_LAT_BUCKETS; b++)
		cum += st->lat_hist[b];
	snprintf(le, sizeof(le), "+Inf");
	sample(p, "_bucket", cum, 2, labels);
	sample(p, "_sum", st->total_lat_ns / 1e9, 1, labels);
	sample(p, "_count", cum, 1, labels);
}

static void target_one(int kind, const void *key, const struct slackgov_target *v, void *ctx)
{
	struct sc_prom *p = ctx;
	const struct slackgov_target_state *st = p->st;
	struct sc_interval iv;
	char text[SC_TARGET_TEXT_LEN], q[16];
	const char *labels[4] = { "target", text, "quantile", q };
	double m;

	sc_target_text(kind, key, text, sizeof(text));
	sc_read_state(p->fd, v->slot, p->st);
	switch (p->fam) {
	case F_REQ:	sample(p, "", st->total_req, 1, labels); break;
	case F_RECV:	sample(p, "", st->total_recv, 1, labels); break;
	case F_WIN:	sample(p, "", st->head, 1, labels); break;
	case F_WIN_S:	sample(p, "", st->total_ns / 1e9, 1, labels); break;
	case F_BLOCKED:	sample(p, "", st->total_blocked_ns / 1e9, 1, labels); break;
	case F_BUSY:	sample(p, "", st->total_busy_ns / 1e9, 1, labels); break;
	case F_CPU:	sample(p, "", st->total_oncpu_ns / 1e9, 1, labels); break;
	case F_RUNQ:	sample(p, "", st->total_runq_ns / 1e9, 1, labels); break;
	case F_SLEEP:	sample(p, "", st->total_block_ns / 1e9, 1, labels); break;
	case F_QUEUE:	sample(p, "", st->total_queue_ns / 1e9, 1, labels); break;
	case F_SLO_WIN:	sample(p, "", st->total_slo_windows, 1, labels); break;
	case F_SLO_OVER: sample(p, "", st->total_slo_over, 1, labels); break;
	case F_LAT:	latency_hist(p, text); break;
	case F_SLACK:
	case F_CV:
		/* no interval yet (a target just added): no sample, not a made-up one */
		if (!sc_interval(v->slot, st, SC_PROM_INTERVAL_NS, &iv))
			sample(p, "", p->fam == F_SLACK ? iv.slack : iv.cv, 1, labels);
		break;
	case F_MARGIN:
		if (v->slo_us && (m = slo_margin(p, v->slo_margin)) >= 0)
			sample(p, "", m, 1, labels);
		break;
	case F_SLO:
		if (v->slo_us) {
			snprintf(q, sizeof(q), "%g", (double)v->slo_q / SLACKGOV_Q_ONE);
			sample(p, "", v->slo_us / 1e6, 2, labels);
		}
		break;
	}
}

/* the families, in order, on p->out (or as JSON) */
static int prom_families(struct sc_prom *p)
{
	struct sc_energy_zone z[SC_MAX_ZONES];
	struct sc_policy *pol;
	char abi[16];
	const char *build[4] = { "version", SLACKCTL_VERSION, "abi", abi };
	const char *hooks[2] = { "hooks", NULL };
	struct slackgov_bpf_config cfg;
	unsigned long long knob;
	int f, i, n, nz;

	p->st = calloc(1, sizeof(*p->st));
	p->fd = sc_map_fd("windows");
	if (!p->st || p->fd < 0) {
		free(p->st);
		if (p->fd >= 0)
			close(p->fd);
		return sc_err("not loaded: run 'slackctl load' first");
	}
	n = sc_read_policies(&pol);
	nz = sc_energy_read(z, SC_MAX_ZONES);
	p->margin_knob = sc_knob_read_raw(sc_knob_find("slo_margin"), &knob) ? -1 : knob / 1000.0;
	snprintf(abi, sizeof(abi), "%d", SLACKGOV_ABI_VERSION);
	family_begin(p, F_BUILD);
	sample(p, "", 1, 2, build);
	family_end();
	family_begin(p, F_FEED);
	sample(p, "", sc_feed_on(), 0, NULL);
	family_end();
	family_begin(p, F_HOOKS);
	sc_bpf_config(&cfg);
	hooks[1] = sc_hooks_name(cfg.hooks);
	sample(p, "", 1, 1, hooks);
	family_end();
	/* one family at a time: the format wants each family's samples together */
	for (f = F_REQ; f <= F_SLO_OVER; f++) {
		family_begin(p, f);
		sc_for_each_target(target_one, p);
		family_end();
	}
	for (f = F_FREQ; f <= F_FB; f++) {
		family_begin(p, f);
		for (i = 0; i < n; i++) {
			const char *labels[4] = { "policy", pol[i].name, "governor", pol[i].gov };
			const char *v = f == F_FREQ ? pol[i].cur : f == F_DEC ? pol[i].dec :
					f == F_BOOST ? pol[i].boosts : pol[i].fb;

			/* kHz in sysfs; the governor label only on the state */
			if (sc_is_number(v))
				sample(p, "", strtod(v, NULL) * (f == F_FREQ ? 1000 : 1),
				       f == F_FREQ ? 2 : 1, labels);
		}
		family_end();
	}
	family_begin(p, F_ENERGY);
	for (i = 0; i < nz; i++) {
		const char *labels[2] = { "zone", z[i].zone };

		sample(p, "", z[i].uj / 1e6, 1, labels);
	}
	family_end();
	free(pol);
	close(p->fd);
	free(p->st);
	return 0;
}

/* the exposition in a malloc'd buffer (*buf, *len); -1 with the error said */
static int prom_text(char **buf, size_t *len)
{
	struct sc_prom p = {};
	int ret;

	p.out = open_memstream(buf, len);
	if (!p.out)
		return sc_err("out of memory");
	ret = prom_families(&p);
	if (fclose(p.out) || ret) {
		free(*buf);
		*buf = NULL;
		return ret ?: sc_err("out of memory");
	}
	return 0;
}

int sc_prom_write(FILE *out)
{
	char *buf;
	size_t len;

	if (prom_text(&buf, &len))
		return -1;
	fwrite(buf, 1, len, out);
	free(buf);
	return 0;
}

/* what a scrape gets: the exposition, or NULL (the error is on stderr) */
char *sc_prom_scrape(size_t *len)
{
	json_writer_t *saved = json_wtr;
	char *buf;

	json_wtr = NULL;	/* the exporter always serves the text format */
	if (prom_text(&buf, len))
		buf = NULL;
	json_wtr = saved;
	return buf;
}

/*
 * stats --prom --output FILE: for node_exporter's textfile collector, which
 * must never read a half-written file: written to a temporary file in the
 * same folder, then renamed over FILE (atomic on one file system).
 */
static int write_atomic(const char *path, const char *buf, size_t len)
{
	char tmp[4200], dir[4096];
	int fd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return sc_err("--output: path too long");
	snprintf(dir, sizeof(dir), "%s", dirname(tmp));
	/* a dot file without the .prom suffix: the collector skips it */
	snprintf(tmp, sizeof(tmp), "%s/.slackgov.prom.XXXXXX", dir);
	fd = mkstemp(tmp);
	if (fd < 0)
		return sc_err("cannot write %s: %s", path, strerror(errno));
	if (write(fd, buf, len) != (ssize_t)len || fchmod(fd, 0644) || fsync(fd))
		err = errno ?: EIO;
	if (close(fd) && !err)
		err = errno;
	if (!err && rename(tmp, path))
		err = errno;
	if (err) {
		unlink(tmp);
		return sc_err("cannot write %s: %s", path, strerror(err));
	}
	return 0;
}

int do_stats(int argc, char **argv)
{
	const char *output = NULL;
	bool prom = false;
	char *buf;
	size_t len;
	int ret;

	while (argc) {
		if (is_prefix(argv[0], "--prom") && strlen(argv[0]) > 2) {
			prom = true;
		} else if (is_prefix(argv[0], "--output") && strlen(argv[0]) > 2) {
			if (argc < 2 || !*argv[1])
				return sc_err("stats: --output needs a file name");
			output = argv[1];
			NEXT_ARG();
		} else {
			return sc_err("usage: slackctl stats [--prom [--output FILE]]");
		}
		NEXT_ARG();
	}
	if (output && !prom)
		return sc_err("stats: --output writes the exposition: use it with --prom");
	if (sc_check_env(SC_NEED_PINS))
		return -1;
	if (sc_need_loaded())	/* not loaded, incomplete, or root's */
		return -1;
	if (output) {
		/* the file is the text format; -j only reports where it went */
		buf = sc_prom_scrape(&len);
		if (!buf)
			return -1;
		ret = write_atomic(output, buf, len);
		free(buf);
		if (!ret && json_wtr) {
			jsonw_start_object(json_wtr);
			jsonw_string_field(json_wtr, "output", output);
			jsonw_end_object(json_wtr);
		}
		return ret;
	}
	if (json_wtr) {
		struct sc_prom p = { .out = stdout };

		jsonw_start_object(json_wtr);
		jsonw_name(json_wtr, "metrics");
		jsonw_start_array(json_wtr);
		ret = prom_families(&p);
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
		return ret;
	}
	if (prom_text(&buf, &len))
		return -1;
	fwrite(buf, 1, len, stdout);
	free(buf);
	return 0;
}
