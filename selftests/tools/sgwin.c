// SPDX-License-Identifier: GPL-2.0
/*
 * sgwin.c - print one target slot of the pinned windows map as name=value
 * lines, for shell tests that have no JSON parser (the busybox guest).
 *
 * Usage: sgwin [-s SLOT] [-a] [-f SECONDS [-i MS] [-b] [-l SECONDS]]
 *        sgwin [-s SLOT] -w
 *        sgwin -d
 *   -s  target slot (default 0)
 *   -a  also every window of the history ring, oldest first
 *   -f  follow: collect every window that closes in the next SECONDS (the
 *       ring is read every -i MS, default 40: it holds 16 windows), then
 *       print one "follow" line of aggregates instead (see follow())
 *   -b  with -f: only the span from the first to the last window with a send
 *       (the latency figures of the follow line are over the whole SECONDS:
 *       windows without requests add nothing to them)
 *   -l  with -f: the latency figures over the first SECONDS only (a client
 *       that stopped counting then does not see the answers after it)
 *   -w  serve: for each line read on stdin, print the "lat" line (an empty
 *       line when the map cannot be read) and flush; exit at end of input.
 *       A caller that must not fork at some moment (a bench's mark, while
 *       the guest's other CPU serves requests) reads the counters through
 *       a running sgwin in microseconds instead of starting one.  A line
 *       that holds a number S of seconds (0 < S <= 60) reads the counters
 *       S seconds later: a caller can ask at a mark for the counters at a
 *       later moment and take the answer when it likes.
 *   -d  difference: read two "lat" lines (with or without the "lat " tag)
 *       on stdin, before then after, and print "SLO_WINDOWS SLO_OVER P99_US"
 *       between them: the windows judged against the SLO, those over it,
 *       and the server-side p99 of the requests timed (hist_pctl(); 0 when
 *       none).  Does not open the map.
 * Output:
 *   now_ns=N head=N total_send=N total_ns=N      (now: CLOCK_MONOTONIC, the
 *                                                 clock of the windows' times)
 *   lat total_lat=N total_lat_ns=N total_queue_ns=N total_slo_windows=N
 *       total_slo_over=N hist=B:N,B:N,...         (cumulative; hist: the
 *                                                 non-empty lat_hist buckets)
 *   last seq=N start_ns=N end_ns=N len_ns=N flags=N rps=N slack=N cv=N ...
 *   last_lat seq=N nr_lat=N lat_p50_us=N ...     (the window's latency fields)
 *   hist seq=N ...                               (with -a)
 * With -f: a "follow windows=N ... rps=N slack=N cv_median=N ..." line, then
 *   follow_lat nr_lat=N lat_mean_us=N queue_us=N p50_us=N p90_us=N p99_us=N
 *   (the requests timed while following: the difference of the cumulative
 *   histograms at the start and the end, percentiles interpolated as the BPF
 *   side does)
 * Exit: 0, 1 when the map cannot be read.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "slackgov.h"

static void print_window(const char *tag, const struct slackgov_window *w)
{
	printf("%s seq=%llu start_ns=%llu end_ns=%llu len_ns=%llu flags=%u rps=%u slack=%u cv=%u "
	       "util=%u nr_send=%u nr_recv=%u nr_wait=%u nr_threads=%u report_ret=%d "
	       "send_mean_ns=%llu send_var_us2=%llu recv_mean_ns=%llu recv_var_us2=%llu "
	       "wait_mean_ns=%llu blocked_ns=%llu busy_ns=%llu oncpu_ns=%llu cpus0=%llu\n",
	       tag, (unsigned long long)w->seq, (unsigned long long)w->start_ns,
	       (unsigned long long)w->end_ns,
	       (unsigned long long)(w->end_ns > w->start_ns ? w->end_ns - w->start_ns : 0),
	       w->flags, w->rps, w->slack, w->cv, w->util, w->nr_send, w->nr_recv, w->nr_wait,
	       w->nr_threads, w->report_ret, (unsigned long long)w->send_mean_ns,
	       (unsigned long long)w->send_var_us2, (unsigned long long)w->recv_mean_ns,
	       (unsigned long long)w->recv_var_us2, (unsigned long long)w->wait_mean_ns,
	       (unsigned long long)w->blocked_ns, (unsigned long long)w->busy_ns,
	       (unsigned long long)w->oncpu_ns, (unsigned long long)w->cpus[0]);
	printf("%s_lat seq=%llu nr_lat=%u lat_p50_us=%u lat_p90_us=%u lat_p99_us=%u lat_q_us=%u "
	       "lat_win_us=%u queue_us=%u svc_us=%u slo_us=%u slo_q=%u\n",
	       tag, (unsigned long long)w->seq, w->nr_lat, w->lat_p50_us, w->lat_p90_us,
	       w->lat_p99_us, w->lat_q_us, w->lat_win_us, w->queue_us, w->svc_us, w->slo_us,
	       w->slo_q);
}

/*
 * Percentile @q (SLACKGOV_Q_ONE units) of the difference @b - @a of two
 * cumulative latency histograms, us, interpolated linearly inside its
 * bucket by slackgov_lat_interp() as the BPF side; -1 when it is empty.
 */
static double hist_pctl(const __u64 *b, const __u64 *a, unsigned int q)
{
	__u64 n = 0, cum = 0, rank, c;
	__u32 i;

	for (i = 0; i < SLACKGOV_LAT_BUCKETS; i++)
		n += b[i] - (a ? a[i] : 0);
	if (!n)
		return -1;
	/* in 1/SLACKGOV_Q_ONE requests, so that the rank is exact */
	rank = n * q;
	for (i = 0; i < SLACKGOV_LAT_BUCKETS; i++) {
		c = (b[i] - (a ? a[i] : 0)) * SLACKGOV_Q_ONE;
		if (c && cum + c >= rank)
			return slackgov_lat_interp(i, rank, cum, c);
		cum += c;
	}
	return slackgov_lat_lo(SLACKGOV_LAT_BUCKETS);
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

#define SGWIN_MAX_FOLLOW	100000	/* windows kept by -f: 1000 s of 10 ms */

struct sgwin_agg {
	double n, sends, recvs, len, slack, s1, s2, busy, blocked;
	__u64 ncv;
};

/*
 * Aggregates of the windows closed while following: sends and recvs summed,
 * rps = sends * 1e9 / summed window length (the windows' own rps weighted by
 * their length), slack weighted by length, the median of the cv of the
 * windows that saw requests, and the inter-recv moments pooled over all
 * windows (cv_pool, recv_var_us2).  With @busy_span, only the windows from
 * the first to the last one with a send count (a load run between idle
 * periods).  "missed" counts windows that fell out of the ring between reads.
 */
static int follow(int fd, __u32 slot, double secs, int period_ms, bool busy_span,
		  double lat_secs, struct slackgov_target_state *st)
{
	static __u32 cvs[SGWIN_MAX_FOLLOW];
	static struct slackgov_target_state st0, st1;
	bool lat_taken = false;
	struct sgwin_agg cur = {}, out = {};
	__u64 seen, i, head, missed = 0;
	bool started = !busy_span;
	struct timespec ts;
	double t0, t;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec + ts.tv_nsec / 1e9;
	if (bpf_map_lookup_elem(fd, &slot, st))
		return 1;
	st0 = *st;
	seen = st->head;
	do {
		usleep(period_ms * 1000);
		if (bpf_map_lookup_elem(fd, &slot, st))
			return 1;
		head = st->head;
		if (head < seen)
			seen = head;	/* the slot was cleared */
		if (head - seen > SLACKGOV_HISTORY) {
			missed += head - seen - SLACKGOV_HISTORY;
			seen = head - SLACKGOV_HISTORY;
		}
		for (i = seen; i < head; i++) {
			const struct slackgov_window *w = &st->hist[i % SLACKGOV_HISTORY];
			double l = (double)(w->end_ns - w->start_ns), m = w->recv_mean_ns / 1e3;

			if (!started && !w->nr_send)
				continue;
			started = true;
			cur.n++;
			cur.sends += w->nr_send;
			cur.recvs += w->nr_recv;
			cur.len += l;
			cur.slack += w->slack * l;
			cur.busy += w->busy_ns;
			cur.blocked += w->blocked_ns;
			cur.s1 += (double)w->nr_recv * m;
			cur.s2 += (double)w->nr_recv * (w->recv_var_us2 + m * m);
			if ((w->nr_send || w->nr_recv) && cur.ncv < SGWIN_MAX_FOLLOW)
				cvs[cur.ncv++] = w->cv;	/* windows with requests */
			if (!busy_span || w->nr_send)
				out = cur;
		}
		seen = head;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t = ts.tv_sec + ts.tv_nsec / 1e9;
		if (lat_secs > 0 && !lat_taken && t - t0 >= lat_secs) {
			st1 = *st;	/* the latency totals at -l */
			lat_taken = true;
		}
	} while (t - t0 < secs);
	if (!lat_taken)
		st1 = *st;
	qsort(cvs, out.ncv, sizeof(cvs[0]), cmp_u32);
	{
		double mean = out.recvs ? out.s1 / out.recvs : 0;
		double var = out.recvs ? out.s2 / out.recvs - mean * mean : 0;

		if (var < 0)
			var = 0;
		printf("follow windows=%.0f missed=%llu sends=%.0f recvs=%.0f len_ns=%.0f rps=%.3f "
		       "slack=%.1f slack_pool=%.1f cv_median=%u cv_windows=%llu recv_mean_us=%.1f "
		       "recv_var_us2=%.0f cv_pool=%.1f\n",
		       out.n, (unsigned long long)missed, out.sends, out.recvs, out.len,
		       out.len ? out.sends * 1e9 / out.len : 0, out.len ? out.slack / out.len : 0,
		       out.busy + out.blocked ? 1000 * out.blocked / (out.busy + out.blocked) : 0,
		       out.ncv ? cvs[out.ncv / 2] : 0, (unsigned long long)out.ncv, mean, var,
		       mean ? 1000 * sqrt(var) / mean : 0);
	}
	/* latency over the run: the difference of the cumulative histograms */
	{
		__u64 n;

		st = &st1;
		n = st->total_lat - st0.total_lat;
		if (st->head < st0.head)
			n = 0;		/* the slot was cleared: nothing comparable */
		printf("follow_lat nr_lat=%llu lat_mean_us=%.1f queue_us=%.1f p50_us=%.1f "
		       "p90_us=%.1f p99_us=%.1f\n", (unsigned long long)n,
		       n ? (st->total_lat_ns - st0.total_lat_ns) / 1e3 / n : 0,
		       n ? (st->total_queue_ns - st0.total_queue_ns) / 1e3 / n : 0,
		       n ? hist_pctl(st->lat_hist, st0.lat_hist, 5000) : 0,
		       n ? hist_pctl(st->lat_hist, st0.lat_hist, 9000) : 0,
		       n ? hist_pctl(st->lat_hist, st0.lat_hist, 9900) : 0);
	}
	return 0;
}

/* one whole copy of @key's state; a window closing during the copy: again */
static int read_state(int fd, __u32 key, struct slackgov_target_state *st)
{
	int i;

	for (i = 0; i < SLACKGOV_STATE_TRIES; i++) {
		if (bpf_map_lookup_elem(fd, &key, st))
			return -1;
		if (slackgov_state_whole(st))
			break;
	}
	return 0;
}

/* the latency counters: the bench and the demo difference two of these lines */
static void print_lat(const struct slackgov_target_state *st)
{
	__u64 i, n;

	printf("lat total_lat=%llu total_lat_ns=%llu total_queue_ns=%llu total_slo_windows=%llu "
	       "total_slo_over=%llu hist=", (unsigned long long)st->total_lat,
	       (unsigned long long)st->total_lat_ns, (unsigned long long)st->total_queue_ns,
	       (unsigned long long)st->total_slo_windows, (unsigned long long)st->total_slo_over);
	for (i = 0, n = 0; i < SLACKGOV_LAT_BUCKETS; i++)
		if (st->lat_hist[i])
			printf("%s%llu:%llu", n++ ? "," : "", (unsigned long long)i,
			       (unsigned long long)st->lat_hist[i]);
	printf("\n");
}

/*
 * One "lat" line (print_lat(), the tag optional) into @st's latency
 * counters; false when it is not one.
 */
static bool parse_lat(char *line, struct slackgov_target_state *st)
{
	unsigned long long b, v;
	char *tok, *save, *h, *hsave;
	int fields = 0;

	memset(st, 0, sizeof(*st));
	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (!strcmp(tok, "lat"))
			continue;
		if (sscanf(tok, "total_lat=%llu", &v) == 1)
			st->total_lat = v, fields++;
		else if (sscanf(tok, "total_slo_windows=%llu", &v) == 1)
			st->total_slo_windows = v, fields++;
		else if (sscanf(tok, "total_slo_over=%llu", &v) == 1)
			st->total_slo_over = v, fields++;
		else if (!strncmp(tok, "hist=", 5)) {
			for (h = strtok_r(tok + 5, ",", &hsave); h; h = strtok_r(NULL, ",", &hsave)) {
				if (sscanf(h, "%llu:%llu", &b, &v) != 2 || b >= SLACKGOV_LAT_BUCKETS)
					return false;
				st->lat_hist[b] = v;
			}
			fields++;
		}
	}
	return fields == 4;
}

/* -d: the SLO windows, those over it and the p99 between two "lat" lines */
static int lat_diff(struct slackgov_target_state *st)
{
	static struct slackgov_target_state st0;
	char *line = NULL;
	size_t cap = 0;
	bool ok;

	ok = getline(&line, &cap, stdin) > 0 && parse_lat(line, &st0) &&
	     getline(&line, &cap, stdin) > 0 && parse_lat(line, st) &&
	     st->total_lat >= st0.total_lat;
	free(line);
	if (!ok) {
		fprintf(stderr, "sgwin: error: -d takes two \"lat\" lines, before then after\n");
		return 2;
	}
	printf("%llu %llu %.0f\n",
	       (unsigned long long)(st->total_slo_windows - st0.total_slo_windows),
	       (unsigned long long)(st->total_slo_over - st0.total_slo_over),
	       st->total_lat > st0.total_lat ? floor(hist_pctl(st->lat_hist, st0.lat_hist, 9900)) : 0);
	return 0;
}

/* -w: one "lat" line per line of input, the map opened once; a line that
 * holds a number of seconds (at most SGWIN_MAX_DEFER_S) reads that much later */
#define SGWIN_MAX_DEFER_S	60
static int serve(int fd, __u32 key, struct slackgov_target_state *st)
{
	char line[64], *end;
	double defer;

	while (fgets(line, sizeof(line), stdin)) {
		defer = strtod(line, &end);
		end += strspn(end, " \t\n");
		if (!*end && defer > 0 && defer <= SGWIN_MAX_DEFER_S) {
			struct timespec ts = { (time_t)defer, (long)((defer - (time_t)defer) * 1e9) };

			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
		}
		if (fd < 0 || read_state(fd, key, st))
			printf("\n");
		else
			print_lat(st);
		fflush(stdout);
	}
	return fd < 0;
}

int main(int argc, char **argv)
{
	struct slackgov_target_state *st;
	struct timespec ts;
	int slot = 0, all = 0, fd, opt, period_ms = 40;
	bool busy_span = false, serving = false, diff = false;
	double secs = 0, lat_secs = 0;
	__u32 key;
	__u64 i, n;

	while ((opt = getopt(argc, argv, "s:af:i:bl:wd")) != -1) {
		switch (opt) {
		case 's': slot = atoi(optarg); break;
		case 'a': all = 1; break;
		case 'f': secs = atof(optarg); break;
		case 'i': period_ms = atoi(optarg); break;
		case 'b': busy_span = true; break;
		case 'l': lat_secs = atof(optarg); break;
		case 'w': serving = true; break;
		case 'd': diff = true; break;
		default:
			fprintf(stderr, "usage: sgwin [-s SLOT] [-a] [-f SECONDS [-i MS] [-b] [-l SECONDS]]\n"
				"       sgwin [-s SLOT] -w\n"
				"       sgwin -d < BEFORE_AND_AFTER_LAT_LINES\n");
			return 2;
		}
	}
	if (slot < 0 || slot >= SLACKGOV_MAX_TARGETS || period_ms <= 0 || secs < 0) {
		fprintf(stderr, "sgwin: error: slot out of range\n");
		return 2;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		perror("sgwin");
		return 1;
	}
	if (diff)
		return lat_diff(st);
	fd = bpf_obj_get(SLACKGOV_PIN_DIR "/windows");
	key = slot;
	if (fd < 0)
		perror("sgwin: windows map");
	if (serving)
		return serve(fd, key, st);
	if (fd < 0)
		return 1;
	if (read_state(fd, key, st)) {
		perror("sgwin: windows map");
		return 1;
	}
	if (secs > 0)
		return follow(fd, key, secs, period_ms, busy_span, lat_secs, st);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("now_ns=%llu head=%llu total_send=%llu total_ns=%llu\n",
	       (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec,
	       (unsigned long long)st->head, (unsigned long long)st->total_send,
	       (unsigned long long)st->total_ns);
	print_lat(st);
	print_window("last", &st->last);
	if (all) {
		n = st->head < SLACKGOV_HISTORY ? st->head : SLACKGOV_HISTORY;
		for (i = st->head - n; i < st->head; i++)
			print_window("hist", &st->hist[i % SLACKGOV_HISTORY]);
	}
	free(st);
	return 0;
}
