// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - slackctl status: per target its figures over an interval (the
 * snaps ring against the live totals of the windows map) and its last
 * window, per policy the governor's state (sysfs), and the package energy.
 */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "slackctl.h"

/**
 * DOC: interval figures
 *
 * One 10 ms window holds a few dozen requests at low load, so its RPS, slack
 * and percentiles jump from one reading to the next.  What status shows by
 * default is an interval of about a second, computed without sleeping:
 *
 * 1. The BPF side keeps cumulative counters per target (the total_* fields
 *    and the latency histogram of struct slackgov_target_state), moved at
 *    every window close, and copies them into a ring of SLACKGOV_SNAPS
 *    snapshots (the snaps map) when SLACKGOV_SNAP_NS have passed since the
 *    previous copy.
 * 2. status takes the newest snapshot at least ``--interval`` older than
 *    the last closed window, and differences the live counters against it.
 *    The figures cover exactly the windows in between (``span_s``): the
 *    asked interval plus up to SLACKGOV_SNAP_NS.  Right after a target is
 *    added the ring is shorter than the interval: the oldest snapshot is
 *    used and ``span_s`` says how much there is.
 * 3. Over the span: RPS = sends / window time; slack = blocked / (blocked +
 *    busy) worker time; util = on-CPU time / window time (CPUs); cv = the
 *    windows' cv weighted by their length; the latency percentiles come
 *    from the difference of the two histograms, linear inside a bucket as
 *    everywhere in slackgov (slackgov_lat_interp()); the share of windows
 *    over the SLO is over the windows that timed requests against one.
 */

/* --interval default: a second, the time scale an operator reads at */
#define SC_INTERVAL_DEF_NS	1000000000ULL
/* the deepest interval the ring can serve: its SLACKGOV_SNAPS - 1 usable snapshots */
#define SC_INTERVAL_MAX_NS	((SLACKGOV_SNAPS - 1) * SLACKGOV_SNAP_NS)
/* --interval below a window says nothing a window does not */
#define SC_INTERVAL_MIN_NS	1000000ULL
/* --watch SECONDS: refresh at least every hour; without it, every interval (>= 100 ms) */
#define SC_WATCH_MAX_S		3600
#define SC_WATCH_MIN_NS		100000000ULL
/*
 * Energy needs two readings of the counter: a one-shot status takes them
 * this far apart (long enough for a few hundred requests at 1000 req/s and
 * for RAPL's ~1 ms update, short enough not to be felt); --watch uses its
 * previous refresh instead.
 */
#define SC_ENERGY_SAMPLE_NS	250000000ULL

struct sc_walk {
	int fd;			/* windows map */
	int n;
	__u64 interval_ns;
	__u64 sends;		/* sum of the targets' total_req */
	struct slackgov_target_state *st;
};

/* the energy reading a --watch refresh differences against */
struct sc_energy_mark {
	int n;
	__u64 t_ns, sends;
	struct sc_energy_zone z[SC_MAX_ZONES];
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Latency at quantile @q (SLACKGOV_Q_ONE units) of the @n requests counted
 * in @count[SLACKGOV_LAT_BUCKETS], us: the request of rank ceil(q * n),
 * linear inside its bucket (slackgov_lat_interp()); -1 when @n is 0.
 */
double sc_lat_quantile(const __u64 *count, __u64 n, __u32 q)
{
	__u64 rank = ((unsigned __int128)n * q + SLACKGOV_Q_ONE - 1) / SLACKGOV_Q_ONE, cum = 0;
	__u32 b;

	if (!n)
		return -1;
	if (!rank)
		rank = 1;
	for (b = 0; b < SLACKGOV_LAT_BUCKETS - 1 && cum + count[b] < rank; b++)
		cum += count[b];
	return slackgov_lat_interp(b, rank, cum, count[b]);
}

static bool snap_valid(const struct slackgov_snap *sn, const struct slackgov_target_state *st)
{
	return sn->windows && sn->windows <= st->head && sn->ns <= st->total_ns &&
	       sn->send <= st->total_send && sn->req <= st->total_req && sn->end_ns <= st->last.end_ns;
}

int sc_interval(__u32 slot, const struct slackgov_target_state *st, __u64 interval_ns,
		struct sc_interval *iv)
{
	static struct slackgov_snaps r;
	static __u64 d[SLACKGOV_LAT_BUCKETS];
	const struct slackgov_snap *sn = NULL, *c;
	double len, denom;
	__u64 j, lo, blocked, busy;
	__u32 b;
	int fd;

	memset(iv, 0, sizeof(*iv));
	iv->p50_us = iv->p90_us = iv->p99_us = iv->slo_q_us = -1;
	fd = sc_map_fd("snaps");
	if (fd < 0)
		return -1;
	if (bpf_map_lookup_elem(fd, &slot, &r)) {
		close(fd);
		return -1;
	}
	close(fd);
	/* newest first; r.head - SLACKGOV_SNAPS is the one written next: skipped */
	lo = r.head > SLACKGOV_SNAPS - 1 ? r.head - (SLACKGOV_SNAPS - 1) : 0;
	for (j = r.head; j-- > lo;) {
		c = &r.snap[j % SLACKGOV_SNAPS];
		if (!snap_valid(c, st))
			break;
		sn = c;
		if (st->last.end_ns - c->end_ns >= interval_ns)
			break;
	}
	if (!sn || st->total_ns <= sn->ns)
		return -1;
	len = (st->total_ns - sn->ns) / 1e9;
	iv->ok = true;
	iv->span_s = len;
	iv->windows = st->head - sn->windows;
	iv->requests = st->total_req - sn->req;
	iv->recvs = st->total_recv - sn->recv;
	iv->rps = iv->requests / len;
	blocked = st->total_blocked_ns - sn->blocked_ns;
	busy = st->total_busy_ns - sn->busy_ns;
	denom = (double)blocked + busy;
	/* as a window's slack: no completed segment is saturated with requests, idle without */
	iv->slack = denom > 0 ? blocked / denom : iv->requests || iv->recvs ? 0 : 1;
	iv->util = (st->total_oncpu_ns - sn->oncpu_ns) / 1e9 / len;
	iv->cv = (st->total_cv_ns - sn->cv_ns) / 1e9 / len;
	iv->oncpu_per_req_s = iv->runq_per_req_s = iv->block_per_req_s = -1;
	if (iv->requests) {
		iv->oncpu_per_req_s = (st->total_oncpu_ns - sn->oncpu_ns) / 1e9 / iv->requests;
		iv->runq_per_req_s = (st->total_runq_ns - sn->runq_ns) / 1e9 / iv->requests;
		iv->block_per_req_s = (st->total_block_ns - sn->block_ns) / 1e9 / iv->requests;
	}
	for (b = 0; b < SLACKGOV_LAT_BUCKETS; b++) {
		d[b] = (__u32)((__u32)st->lat_hist[b] - sn->lat_hist[b]);
		iv->lat_n += d[b];
	}
	if (iv->lat_n) {
		iv->lat_mean_s = (st->total_lat_ns - sn->lat_ns) / 1e9 / iv->lat_n;
		iv->queue_mean_s = (st->total_queue_ns - sn->queue_ns) / 1e9 / iv->lat_n;
		iv->p50_us = sc_lat_quantile(d, iv->lat_n, 5000);
		iv->p90_us = sc_lat_quantile(d, iv->lat_n, 9000);
		iv->p99_us = sc_lat_quantile(d, iv->lat_n, 9900);
		iv->slo_q_us = sc_lat_quantile(d, iv->lat_n, st->last.slo_q ?: SLACKGOV_Q_DEFAULT);
	}
	iv->slo_windows = st->total_slo_windows - sn->slo_windows;
	iv->slo_over = st->total_slo_over - sn->slo_over;
	return 0;
}

/*
 * Copy slot @slot of the windows map (@fd) into @st, a zeroed state when it
 * cannot be read.  A window may be closing during the copy: copied again
 * while slackgov_state_whole() says the last window is not whole.
 */
void sc_read_state(int fd, __u32 slot, struct slackgov_target_state *st)
{
	int tries;

	for (tries = 0; tries < SLACKGOV_STATE_TRIES; tries++) {
		if (bpf_map_lookup_elem(fd, &slot, st)) {
			memset(st, 0, sizeof(*st));
			return;
		}
		if (slackgov_state_whole(st))
			return;
	}
}

static void json_us(const char *name, double us)
{
	if (us < 0)
		jsonw_null_field(json_wtr, name);
	else
		jsonw_float_field_fmt(json_wtr, name, "%.0f", us);
}

static void json_interval(const struct sc_interval *iv)
{
	jsonw_name(json_wtr, "interval");
	if (!iv->ok) {
		jsonw_null(json_wtr);
		return;
	}
	jsonw_start_object(json_wtr);
	jsonw_float_field_fmt(json_wtr, "span_s", "%.6f", iv->span_s);
	jsonw_float_field_fmt(json_wtr, "rps", "%.3f", iv->rps);
	jsonw_float_field_fmt(json_wtr, "slack", "%.1f", iv->slack * SLACKGOV_ONE);
	jsonw_float_field_fmt(json_wtr, "cv", "%.1f", iv->cv * SLACKGOV_ONE);
	jsonw_float_field_fmt(json_wtr, "util", "%.1f", iv->util * SLACKGOV_ONE);
	jsonw_uint_field(json_wtr, "requests", iv->requests);
	jsonw_uint_field(json_wtr, "recvs", iv->recvs);
	jsonw_uint_field(json_wtr, "windows", iv->windows);
	jsonw_uint_field(json_wtr, "nr_lat", iv->lat_n);
	json_us("lat_mean_us", iv->lat_n ? iv->lat_mean_s * 1e6 : -1);
	json_us("queue_mean_us", iv->lat_n ? iv->queue_mean_s * 1e6 : -1);
	json_us("svc_mean_us", iv->lat_n ? (iv->lat_mean_s - iv->queue_mean_s) * 1e6 : -1);
	json_us("oncpu_per_req_us", iv->oncpu_per_req_s < 0 ? -1 : iv->oncpu_per_req_s * 1e6);
	json_us("runq_per_req_us", iv->runq_per_req_s < 0 ? -1 : iv->runq_per_req_s * 1e6);
	json_us("blocked_per_req_us", iv->block_per_req_s < 0 ? -1 : iv->block_per_req_s * 1e6);
	json_us("lat_p50_us", iv->p50_us);
	json_us("lat_p90_us", iv->p90_us);
	json_us("lat_p99_us", iv->p99_us);
	json_us("lat_slo_q_us", iv->slo_q_us);
	jsonw_uint_field(json_wtr, "slo_windows", iv->slo_windows);
	jsonw_uint_field(json_wtr, "slo_over", iv->slo_over);
	jsonw_end_object(json_wtr);
}

static void json_window(const struct slackgov_window *w, double age)
{
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
	jsonw_uint_field(json_wtr, "nr_req", w->nr_req);
	jsonw_uint_field(json_wtr, "nr_recv", w->nr_recv);
	jsonw_uint_field(json_wtr, "nr_wait", w->nr_wait);
	jsonw_uint_field(json_wtr, "workers", w->nr_threads);
	jsonw_uint_field(json_wtr, "flags", w->flags);
	jsonw_int_field(json_wtr, "report_ret", w->report_ret);
	jsonw_uint_field(json_wtr, "nr_lat", w->nr_lat);
	jsonw_uint_field(json_wtr, "lat_p50_us", w->lat_p50_us);
	jsonw_uint_field(json_wtr, "lat_p99_us", w->lat_p99_us);
	jsonw_uint_field(json_wtr, "queue_us", w->queue_us);
	jsonw_uint_field(json_wtr, "svc_us", w->svc_us);
	jsonw_uint_field(json_wtr, "runq_ns", w->runq_ns);
	jsonw_uint_field(json_wtr, "blocked_ns", w->block_ns);
	jsonw_uint_field(json_wtr, "nr_over", w->nr_over);
	jsonw_uint_field(json_wtr, "budget_us", w->budget_us);
	jsonw_end_object(json_wtr);
}

/* a latency for the table: "850us", "12.5ms", "-" */
static const char *lat_text(double us, char *buf, size_t len)
{
	if (us < 0)
		snprintf(buf, len, "-");
	else if (us < 10000)
		snprintf(buf, len, "%.0fus", us);
	else if (us < 10000000)
		snprintf(buf, len, "%.1fms", us / 1000);
	else
		snprintf(buf, len, "%.1fs", us / 1e6);
	return buf;
}

static void status_one(int kind, const void *key, const struct slackgov_target *v, void *ctx)
{
	struct sc_walk *wk = ctx;
	struct slackgov_window *w = &wk->st->last;
	struct sc_interval iv;
	char text[SC_TARGET_TEXT_LEN], p50[16], p99[16], slo[24], margin[16], over[16], agetxt[16];
	double age;

	sc_target_text(kind, key, text, sizeof(text));
	sc_read_state(wk->fd, v->slot, wk->st);
	sc_interval(v->slot, wk->st, wk->interval_ns, &iv);
	age = w->seq ? (now_ns() - w->end_ns) / 1e9 : -1;
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "target", text);
		jsonw_uint_field(json_wtr, "slot", v->slot);
		jsonw_uint_field(json_wtr, "setpoint", v->setpoint);
		jsonw_uint_field(json_wtr, "slo_us", v->slo_us);
		jsonw_uint_field(json_wtr, "slo_q", v->slo_q);
		sc_json_margin(v->slo_margin);
		jsonw_string_field(json_wtr, "proto", sc_proto_name(v->proto));
		jsonw_bool_field(json_wtr, "tls", v->flags & SLACKGOV_TARGET_F_TLS);
		jsonw_string_field(json_wtr, "attribution", sc_attribution(v));
		json_interval(&iv);
		json_window(w, age);
		jsonw_uint_field(json_wtr, "windows", wk->st->head);
		jsonw_uint_field(json_wtr, "total_send", wk->st->total_send);
		jsonw_uint_field(json_wtr, "total_req", wk->st->total_req);
		jsonw_uint_field(json_wtr, "total_runq_ns", wk->st->total_runq_ns);
		jsonw_uint_field(json_wtr, "total_blocked_ns", wk->st->total_block_ns);
		jsonw_float_field_fmt(json_wtr, "total_s", "%.3f", wk->st->total_ns / 1e9);
		jsonw_end_object(json_wtr);
		return;
	}
	if (!wk->n++)
		printf("%-22s %9s %6s %6s %6s %8s %8s %-12s %-7s %5s %6s %7s\n", "TARGET", "RPS",
		       "SLACK", "CV", "UTIL", "P50", "P99", "SLO", "MARGIN", "OVER", "SPAN", "AGE");
	if (v->slo_us) {
		snprintf(slo, sizeof(slo), "p%g:%s", v->slo_q / 100.0, lat_text(v->slo_us, p50, sizeof(p50)));
		sc_margin_text(v->slo_margin, margin, sizeof(margin));
	} else {
		snprintf(slo, sizeof(slo), "-");
		snprintf(margin, sizeof(margin), "-");
	}
	if (iv.ok && iv.slo_windows)
		snprintf(over, sizeof(over), "%.0f%%", 100.0 * iv.slo_over / iv.slo_windows);
	else
		snprintf(over, sizeof(over), "-");
	if (age < 0)
		snprintf(agetxt, sizeof(agetxt), "-");	/* no window closed yet */
	else
		snprintf(agetxt, sizeof(agetxt), "%.2fs", age);
	if (!iv.ok) {
		printf("%-22s %9s %6s %6s %6s %8s %8s %-12s %-7s %5s %6s %7s\n", text, "-", "-", "-",
		       "-", "-", "-", slo, margin, over, "-", agetxt);
		return;
	}
	printf("%-22s %9.1f %5.1f%% %6.3f %5.1f%% %8s %8s %-12s %-7s %5s %5.2fs %7s\n", text,
	       iv.rps, iv.slack * 100, iv.cv, iv.util * 100, lat_text(iv.p50_us, p50, sizeof(p50)),
	       lat_text(iv.p99_us, p99, sizeof(p99)), slo, margin, over, iv.span_s, agetxt);
}

/* the targets' sends so far, for energy per request */
static void sends_one(int kind __maybe_unused, const void *key __maybe_unused,
		      const struct slackgov_target *v, void *ctx)
{
	struct sc_walk *wk = ctx;

	sc_read_state(wk->fd, v->slot, wk->st);
	wk->sends += wk->st->total_req;
}

static void energy_mark(struct sc_walk *wk, struct sc_energy_mark *m)
{
	wk->sends = 0;
	sc_for_each_target(sends_one, wk);
	m->sends = wk->sends;
	m->t_ns = now_ns();
	m->n = sc_energy_read(m->z, SC_MAX_ZONES);
}

/* package energy since @prev (taken now and SC_ENERGY_SAMPLE_NS later without one) */
static void status_energy(struct sc_walk *wk, struct sc_energy_mark *prev)
{
	static struct sc_energy_mark a, b;
	double j, span;
	__u64 req;
	int i;

	if (!prev || !prev->n) {
		energy_mark(wk, &a);
		if (a.n) {
			struct timespec ts = { 0, SC_ENERGY_SAMPLE_NS };

			nanosleep(&ts, NULL);
		}
		prev = &a;
	}
	energy_mark(wk, &b);
	j = sc_energy_delta(prev->z, prev->n, b.z, b.n);
	span = (b.t_ns - prev->t_ns) / 1e9;
	req = b.sends - prev->sends;
	if (json_wtr) {
		jsonw_name(json_wtr, "energy");
		if (j < 0) {
			jsonw_null(json_wtr);
		} else {
			jsonw_start_object(json_wtr);
			jsonw_name(json_wtr, "zones");
			jsonw_start_array(json_wtr);
			for (i = 0; i < b.n; i++)
				jsonw_string(json_wtr, b.z[i].zone);
			jsonw_end_array(json_wtr);
			jsonw_float_field_fmt(json_wtr, "span_s", "%.6f", span);
			jsonw_float_field_fmt(json_wtr, "joules", "%.6f", j);
			jsonw_float_field_fmt(json_wtr, "watts", "%.3f", j / span);
			jsonw_uint_field(json_wtr, "requests", req);
			if (req)
				jsonw_float_field_fmt(json_wtr, "joules_per_request", "%.9g", j / req);
			else
				jsonw_null_field(json_wtr, "joules_per_request");
			jsonw_end_object(json_wtr);
		}
	} else if (j < 0) {
		printf("\nenergy: no energy counter (/sys/class/powercap/*/energy_uj)\n");
	} else {
		printf("\nenergy: %.3f J in %.2f s (%.2f W, %s", j, span, j / span, b.z[0].zone);
		if (b.n > 1)
			printf(" + %d zones", b.n - 1);
		if (req)
			printf("), %.6f J per request of the targets (%llu requests)\n", j / req,
			       (unsigned long long)req);
		else
			printf("), no request of the targets\n");
	}
	if (prev != &a)
		*prev = b;
}

static void read_stat(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (sc_read_file(path, buf, len) || !buf[0])
		snprintf(buf, len, "-");
}

/* every cpufreq policy: governor, frequency and, under slack, its stats */
int sc_read_policies(struct sc_policy **out)
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
		read_stat(dir, "last_lat_us", p[i].lat_q, sizeof(p[i].lat_q));
		read_stat(dir, "last_slo_k", p[i].slo_k, sizeof(p[i].slo_k));
		read_stat(dir, "law", p[i].law, sizeof(p[i].law));
	}
	globfree(&g);
	*out = p;
	return n;
}

bool sc_is_number(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* the SLO law's last tail; "-" without an SLO target */
static const char *policy_lat(const struct sc_policy *p, char *buf, size_t len)
{
	unsigned long us = strtoul(p->lat_q, NULL, 10);

	return lat_text(sc_is_number(p->lat_q) && us ? (double)us : -1.0, buf, len);
}

/* the SLO law's K (x 1000 in sysfs); "-" without an SLO target */
static const char *policy_k(const struct sc_policy *p, char *buf, size_t len)
{
	unsigned long k = strtoul(p->slo_k, NULL, 10);

	if (!sc_is_number(p->slo_k) || !k)
		return "-";
	snprintf(buf, len, "%.2f", k / 1e3);
	return buf;
}

static void status_policies(void)
{
	struct sc_policy *p;
	int i, n = sc_read_policies(&p);
	char lat[32], k[32];

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
			jsonw_number_text_field(json_wtr, "lat_q_us", p[i].lat_q);
			jsonw_number_text_field(json_wtr, "slo_k_milli", p[i].slo_k);
			jsonw_string_field(json_wtr, "law", p[i].law);
			jsonw_end_object(json_wtr);
			continue;
		}
		if (!i)
			printf("\n%-10s %-12s %10s %-8s %-12s %10s %10s %8s %9s %8s %6s %s\n", "POLICY",
			       "GOVERNOR", "KHZ", "MODE", "REASON", "LAST_KHZ", "DECISIONS", "BOOSTS",
			       "FALLBACKS", "LAT_Q", "K", "LAW");
		printf("%-10s %-12s %10s %-8s %-12s %10s %10s %8s %9s %8s %6s %s\n", p[i].name, p[i].gov,
		       p[i].cur, p[i].mode, p[i].reason, p[i].last_freq, p[i].dec, p[i].boosts, p[i].fb,
		       policy_lat(&p[i], lat, sizeof(lat)), policy_k(&p[i], k, sizeof(k)), p[i].law);
	}
	if (json_wtr)
		jsonw_end_array(json_wtr);
	free(p);
}


static int status_once(__u64 interval_ns, bool clear, struct sc_energy_mark *mark)
{
	struct sc_walk wk = { .interval_ns = interval_ns };
	bool feed = sc_feed_on(), mod = sc_module_loaded();
	struct slackgov_bpf_config c;
	char hooks[96];

	sc_bpf_config(&c);
	wk.st = calloc(1, sizeof(*wk.st));
	wk.fd = sc_map_fd("windows");
	if (!wk.st || wk.fd < 0) {
		free(wk.st);
		if (wk.fd >= 0)
			close(wk.fd);
		return sc_err("not loaded: run 'slackctl load' first");
	}
	if (clear)
		printf("\033[H\033[2J");
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "loaded", true);
		jsonw_bool_field(json_wtr, "feed", feed);
		jsonw_bool_field(json_wtr, "module", mod);
		jsonw_string_field(json_wtr, "hooks", sc_hooks_name(c.hooks));
		if (c.fentry_errno)
			jsonw_string_field(json_wtr, "fentry_error", strerror(c.fentry_errno));
		jsonw_float_field_fmt(json_wtr, "interval_s", "%.3f", interval_ns / 1e9);
		jsonw_name(json_wtr, "targets");
		jsonw_start_array(json_wtr);
	} else {
		printf("feed: %s\n", feed ? "on (slackgov.ko)" :
		       mod ? "off (slackgov.ko is loaded: slackctl unload; slackctl load)" :
			     "off (module not loaded: metrics only)");
		printf("hooks: %s\n", sc_hooks_text(c.hooks, c.fentry_errno, hooks, sizeof(hooks)));
		printf("interval: %.3g s (SPAN: what the figures cover; AGE: since the last window)\n\n",
		       interval_ns / 1e9);
	}
	sc_for_each_target(status_one, &wk);
	if (json_wtr)
		jsonw_end_array(json_wtr);
	else if (!wk.n)
		printf("no targets: slackctl target add --pid PID | --comm NAME | --cgroup PATH\n");
	status_energy(&wk, mark);
	status_policies();
	if (json_wtr)
		jsonw_end_object(json_wtr);
	close(wk.fd);
	free(wk.st);
	return 0;
}

int do_status(int argc, char **argv)
{
	static struct sc_energy_mark mark;
	unsigned long long watch_s;
	__u64 interval_ns = SC_INTERVAL_DEF_NS, watch_ns = 0;
	bool watch = false, tty = isatty(STDOUT_FILENO);
	struct timespec ts;

	while (argc) {
		if (is_prefix(argv[0], "--interval") && strlen(argv[0]) > 2) {
			if (argc < 2)
				return sc_err("status: --interval needs a duration (1s, 500ms)");
			if (sc_parse_duration("--interval", argv[1], SC_INTERVAL_MIN_NS, SC_INTERVAL_MAX_NS,
					      &interval_ns))
				return -1;
			NEXT_ARG();
		} else if (is_prefix(argv[0], "--watch") && strlen(argv[0]) > 2) {
			watch = true;
			/* an optional refresh period: the next word if it is not an option */
			if (argc > 1 && argv[1][0] != '-') {
				if (sc_parse_num("--watch", SC_SEC, 1, SC_WATCH_MAX_S, argv[1], &watch_s))
					return -1;
				watch_ns = watch_s * 1000000000ULL;
				NEXT_ARG();
			}
		} else {
			return sc_err("usage: slackctl status [--interval DURATION] [--watch [DURATION]]");
		}
		NEXT_ARG();
	}
	if (!watch_ns)
		watch_ns = interval_ns > SC_WATCH_MIN_NS ? interval_ns : SC_WATCH_MIN_NS;
	if (sc_check_env(SC_NEED_PINS) || sc_need_loaded())	/* not loaded, incomplete, or root's */
		return -1;
	/*
	 * On a terminal, --watch redraws in place (as top); piped, it writes
	 * one table after another (with -j, one document per refresh: JSON
	 * lines unless -p).
	 */
	for (;;) {
		if (status_once(interval_ns, watch && tty && !json_wtr, watch ? &mark : NULL))
			return -1;
		if (!watch)
			return 0;
		if (!json_wtr && !tty)
			printf("\n");
		fflush(stdout);
		ts.tv_sec = watch_ns / 1000000000ULL;
		ts.tv_nsec = watch_ns % 1000000000ULL;
		nanosleep(&ts, NULL);
	}
}
