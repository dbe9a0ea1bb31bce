// SPDX-License-Identifier: GPL-2.0
/*
 * sgclient.c - open-loop load generator for sgserver (its own wire format,
 * or the same message in RESP: --proto resp), or for an unmodified memcached
 * (--proto memcache): Poisson arrivals at a fixed rate (or a ramp of rates),
 * one request each or K pipelined (--pipeline K), latency from the scheduled
 * send time.
 *
 * Usage: sgclient [-H 127.0.0.1] -p PORT -r RATE -d SECONDS [-c CONNS] [-S SEED] [-j]
 *                 [-s SERVICE_US] [-g GRACE_S] [--ramp R1,R2,...:STEP_S [--by-rate]]
 *                 [--warmup SECONDS [--mark-lead SECONDS]] [--pipeline K]
 *                 [--frag N] [--proto sgw|resp|memcache [--mget N] [--keyspace N]
 *                 [--fill BYTES]]
 *
 * Loopback only.  See Documentation/workload.rst.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include "sgwire.h"

#define SGC_MAX_CONNS		1024
#define SGC_MAX_RATE		1e7	/* req/s: far above what one sender thread can pace */
#define SGC_MAX_DURATION	86400.0	/* s: one step at most a day */
#define SGC_MAX_STEPS		1000
#define SGC_DEFAULT_GRACE	2.0	/* s: wait for late responses after a step */
#define SGC_CONNECT_MS		3000	/* loopback connects take microseconds */
#define SGC_START_DELAY_NS	10000000ull	/* 10 ms between connecting and the first send */
#define SGC_POLL_MS		50	/* receiver re-checks step completion this often */
#define SGC_OUTQ		(64 * 1024)	/* per-connection send backlog (2048 requests) */
#define SGC_INBUF		(16 * 1024)
#define SGC_WATCHDOG_S		30	/* beyond the planned end: something is stuck */
#define SGC_MC_INFLIGHT		16384	/* memcache: requests in flight per connection
					 * (a power of 2); an overload of 2 s at twice
					 * the capacity leaves ~1000 */
#define SGC_MC_MAX_KEYS		1000	/* --mget: keys per request */
#define SGC_MC_MAX_VALUE	(512 * 1024)	/* --fill: under memcached's 1 MiB item */
#define SGC_MC_FILL_BATCH	64	/* --fill: sets in flight (64 "STORED" fit any buffer) */
#define SGC_MC_KEY_FMT		"sg%06lu"	/* key i of the key space */
#define SGC_MC_KEY_LEN		8
#define SGC_MAX_PIPELINE	256	/* --pipeline: requests per arrival (sgserver
					 * reads up to 16 KiB: 309 RESP requests) */

/*
 * Latency histogram, log-linear (HDR-style), in nanoseconds: values below
 * 2 * SGC_SUB are exact; above, each power of two is cut into SGC_SUB equal
 * buckets, so a bucket is at most 1/256 of its value wide.  Percentiles report
 * the bucket's midpoint: relative error at most 1/512 (0.2%), enough for
 * p99.9.  Mean, min and max are exact.  Values past 2^41 ns (36 min) are
 * clamped.  Memory is fixed (~70 KiB a step) whatever the run length.
 */
#define SGC_SUB_BITS		8
#define SGC_SUB			(1u << SGC_SUB_BITS)
#define SGC_MAX_MSB		41
#define SGC_BUCKETS		((SGC_MAX_MSB - SGC_SUB_BITS + 2) * SGC_SUB)

static const char *sgc_prog = "sgclient";

struct sgc_conn {
	int fd;
	int dead;			/* __atomic: set by sender or receiver */
	/* sender side */
	size_t ooff, olen;
	char out[SGC_OUTQ];
	/* receiver side */
	size_t ilen;
	char in[SGC_INBUF];
	/*
	 * memcache: memcached answers a connection's requests in order and
	 * echoes nothing, so the scheduled send times wait in a ring: the
	 * sender appends one per request queued (head), the receiver takes the
	 * oldest per complete answer (tail).  Single producer, single consumer.
	 */
	uint64_t *sched;
	uint32_t head, tail;		/* __atomic */
	size_t skip;			/* receiver: bytes of a value still to pass */
	unsigned long values;		/* receiver: VALUE lines of the answer so far */
};

struct sgc_step {
	double rate;
	uint64_t start_ns, end_ns;
	/* sender side, __atomic */
	uint64_t sent;
	uint64_t unsent;		/* scheduled but no live connection to take it */
	uint64_t lag_max_ns;		/* latest actual send after its scheduled time */
	int sender_done;
	/* receiver side */
	uint64_t received, bad, sum_ns, min_ns, max_ns;
	uint64_t *hist;
};

static struct sgc_opts {
	const char *host;
	int port;
	double rate, duration_s, grace_s, warmup_s, lead_s;
	int conns;
	uint64_t seed;
	bool json, ramp, by_rate;
	uint32_t service_us;
	unsigned long frag;
	bool mc;			/* --proto memcache */
	bool resp;			/* --proto resp: sgserver's message in RESP */
	unsigned long pipeline;		/* requests per arrival, written at once */
	unsigned long mget, keyspace, fill;
} opt = { .host = "127.0.0.1", .port = -1, .conns = 4, .seed = 1,
	  .grace_s = SGC_DEFAULT_GRACE, .service_us = SGW_SVC_DEFAULT,
	  .pipeline = 1, .mget = 1, .keyspace = 1000 };

static size_t req_size = SGW_MSG_SIZE;	/* sgw and resp: a request on the wire */
static size_t ans_size = SGW_MSG_SIZE;	/* ... and its answer */

static struct sgc_conn *conns;
static struct sgc_step *steps;
static int nsteps;
static uint64_t t0, step_ns, late;
static uint64_t tw;			/* --warmup: its start (t0 without one) */
static uint64_t lead_sent;		/* --mark-lead: sent from the mark to t0; __atomic */
static int conns_lost;			/* __atomic */

/* ---- errors --------------------------------------------------------------------- */

static void __attribute__((format(printf, 1, 2))) sgc_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", sgc_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void sgc_watchdog(int sig)
{
	static const char msg[] = "sgclient: error: watchdog: run did not end, giving up\n";
	ssize_t r = write(2, msg, sizeof(msg) - 1);

	(void)r;
	_exit(1);
}

/* ---- schedule: seeded Poisson arrivals ------------------------------------------ */

/* splitmix64 (Steele, Lea, Flood 2014): tiny, seedable with any value */
static uint64_t sgc_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Exponential inter-arrival time, in seconds, for @rate arrivals per second. */
static double sgc_interval(uint64_t *s, double rate)
{
	double u = ((sgc_rand(s) >> 11) + 1) * 0x1.0p-53;	/* (0, 1] */

	return -log(u) / rate;
}

/* ---- histogram ------------------------------------------------------------------- */

static unsigned int sgc_hist_index(uint64_t v)
{
	unsigned int msb, shift;

	if (v < 2 * SGC_SUB)
		return v;
	if (v >> (SGC_MAX_MSB + 1))
		v = (2ull << SGC_MAX_MSB) - 1;
	msb = 63 - __builtin_clzll(v);
	shift = msb - SGC_SUB_BITS;
	return (shift + 1) * SGC_SUB + (unsigned int)((v >> shift) - SGC_SUB);
}

/* midpoint of a bucket */
static double sgc_hist_value(unsigned int idx)
{
	unsigned int shift;

	if (idx < 2 * SGC_SUB)
		return idx;
	shift = idx / SGC_SUB - 1;
	return (double)(((uint64_t)(idx % SGC_SUB + SGC_SUB)) << shift) +
	       ((1ull << shift) - 1) / 2.0;
}

/* nearest-rank percentile, in ns, clamped to the exact extremes */
static double sgc_percentile(const struct sgc_step *st, double p)
{
	uint64_t rank, seen = 0;
	double v;

	if (!st->received)
		return 0;
	rank = (uint64_t)ceil(p / 100.0 * st->received);
	if (rank < 1)
		rank = 1;
	for (unsigned int i = 0; i < SGC_BUCKETS; i++) {
		seen += st->hist[i];
		if (seen >= rank) {
			v = sgc_hist_value(i);
			if (v < st->min_ns)
				v = st->min_ns;
			if (v > st->max_ns)
				v = st->max_ns;
			return v;
		}
	}
	return st->max_ns;
}

/* ---- report ---------------------------------------------------------------------- */

static void sgc_report(int k)
{
	struct sgc_step *st = &steps[k];
	uint64_t sent = __atomic_load_n(&st->sent, __ATOMIC_ACQUIRE);
	uint64_t unsent = __atomic_load_n(&st->unsent, __ATOMIC_ACQUIRE);
	uint64_t unanswered = sent > st->received ? sent - st->received : 0;
	uint64_t errors = unanswered + unsent + st->bad;
	double dur = step_ns / 1e9;
	double mean = st->received ? st->sum_ns / 1e3 / st->received : 0;
	double p50 = sgc_percentile(st, 50) / 1e3, p90 = sgc_percentile(st, 90) / 1e3;
	double p99 = sgc_percentile(st, 99) / 1e3, p999 = sgc_percentile(st, 99.9) / 1e3;
	double max = st->max_ns / 1e3, rps = st->received / dur;
	double lag = __atomic_load_n(&st->lag_max_ns, __ATOMIC_ACQUIRE) / 1e3;

	if (opt.json) {
		printf("{");
		if (opt.ramp)
			printf("\"step\": %d, ", k);
		if (k == 0 && opt.lead_s > 0)
			printf("\"lead_sent\": %llu, ",
			       (unsigned long long)__atomic_load_n(&lead_sent, __ATOMIC_ACQUIRE));
		printf("\"rate\": %.6g, \"duration_s\": %.6g, \"conns\": %d, \"seed\": %llu, "
		       "\"sent\": %llu, \"received\": %llu, \"errors\": %llu, "
		       "\"unanswered\": %llu, \"rps\": %.3f, \"mean_us\": %.1f, "
		       "\"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, "
		       "\"p999_us\": %.1f, \"max_us\": %.1f, \"send_lag_max_us\": %.1f}\n",
		       st->rate, dur, opt.conns, (unsigned long long)opt.seed,
		       (unsigned long long)sent, (unsigned long long)st->received,
		       (unsigned long long)errors, (unsigned long long)unanswered, rps, mean,
		       p50, p90, p99, p999, max, lag);
	} else {
		if (opt.ramp)
			printf("step %d: ", k);
		printf("rate %.6g req/s for %.6g s over %d connections (seed %llu)\n"
		       "  sent %llu  received %llu  errors %llu (unanswered %llu)  "
		       "achieved %.1f req/s\n"
		       "  latency us: mean %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  "
		       "max %.1f\n"
		       "  sender lag max %.1f us\n",
		       st->rate, dur, opt.conns, (unsigned long long)opt.seed,
		       (unsigned long long)sent, (unsigned long long)st->received,
		       (unsigned long long)errors, (unsigned long long)unanswered, rps,
		       mean, p50, p90, p99, p999, max, lag);
	}
	fflush(stdout);
}

/*
 * --by-rate: after the per-step lines, one line per distinct rate of the ramp
 * (in order of first appearance) over all its steps together, their
 * histograms merged: a bursty pattern's phases ("20 % -> 80 % -> 20 %, several
 * cycles") get one p99 each over every cycle, which the per-step lines cannot
 * give (percentiles do not average).
 */
static void sgc_report_by_rate(void)
{
	struct sgc_step m;

	m.hist = malloc(SGC_BUCKETS * sizeof(uint64_t));
	if (!m.hist) {
		sgc_err("out of memory");
		return;
	}
	for (int k = 0; k < nsteps; k++) {
		int same = 0, seen = 0;

		for (int j = 0; j < k && !seen; j++)
			seen = steps[j].rate == steps[k].rate;
		if (seen)
			continue;
		memset(m.hist, 0, SGC_BUCKETS * sizeof(uint64_t));
		m.received = m.sum_ns = m.max_ns = m.min_ns = 0;
		for (int j = k; j < nsteps; j++) {
			const struct sgc_step *st = &steps[j];

			if (st->rate != steps[k].rate)
				continue;
			same++;
			for (unsigned int i = 0; i < SGC_BUCKETS; i++)
				m.hist[i] += st->hist[i];
			m.received += st->received;
			m.sum_ns += st->sum_ns;
			if (st->max_ns > m.max_ns)
				m.max_ns = st->max_ns;
			if (st->min_ns && (!m.min_ns || st->min_ns < m.min_ns))
				m.min_ns = st->min_ns;
		}
		if (opt.json)
			printf("{\"by_rate\": %.6g, \"steps\": %d, \"received\": %llu, "
			       "\"mean_us\": %.1f, \"p50_us\": %.1f, \"p99_us\": %.1f, "
			       "\"p999_us\": %.1f, \"max_us\": %.1f}\n",
			       steps[k].rate, same, (unsigned long long)m.received,
			       m.received ? m.sum_ns / 1e3 / m.received : 0,
			       sgc_percentile(&m, 50) / 1e3, sgc_percentile(&m, 99) / 1e3,
			       sgc_percentile(&m, 99.9) / 1e3, m.max_ns / 1e3);
		else
			printf("rate %.6g over %d steps: received %llu  latency us: p50 %.1f  "
			       "p99 %.1f  p99.9 %.1f  max %.1f\n", steps[k].rate, same,
			       (unsigned long long)m.received, sgc_percentile(&m, 50) / 1e3,
			       sgc_percentile(&m, 99) / 1e3, sgc_percentile(&m, 99.9) / 1e3,
			       m.max_ns / 1e3);
	}
	free(m.hist);
	fflush(stdout);
}

/* ---- sender ---------------------------------------------------------------------- */

static bool sgc_dead(struct sgc_conn *c)
{
	return __atomic_load_n(&c->dead, __ATOMIC_ACQUIRE);
}

static void sgc_kill(struct sgc_conn *c)
{
	if (!__atomic_exchange_n(&c->dead, 1, __ATOMIC_ACQ_REL)) {
		__atomic_fetch_add(&conns_lost, 1, __ATOMIC_RELAXED);
		shutdown(c->fd, SHUT_RDWR);	/* the receiver sees EOF */
	}
}

/* Push queued requests to the socket; false if the connection failed. */
static bool sgc_flush(struct sgc_conn *c)
{
	while (c->ooff < c->olen) {
		ssize_t n = send(c->fd, c->out + c->ooff, c->olen - c->ooff, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			sgc_kill(c);
			return false;
		}
		c->ooff += n;
	}
	if (c->ooff == c->olen)
		c->ooff = c->olen = 0;
	return true;
}

/* Sleep until @when, pushing backlogged requests out meanwhile. */
static void sgc_wait_until(uint64_t when)
{
	struct pollfd pfd[SGC_MAX_CONNS];

	for (;;) {
		int n = 0;
		uint64_t now;

		for (int i = 0; i < opt.conns; i++) {
			struct sgc_conn *c = &conns[i];

			if (c->olen && !sgc_dead(c) && sgc_flush(c) && c->olen) {
				pfd[n].fd = c->fd;
				pfd[n].events = POLLOUT;
				n++;
			}
		}
		now = sgw_now_ns();
		if (now >= when)
			return;
		if (!n) {
			struct timespec ts = sgw_ts(when);

			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
			return;
		}
		struct timespec rel = sgw_ts(when - now);

		ppoll(pfd, n, &rel, NULL);
	}
}

/* Requests queued but not yet handed to a live socket? */
static bool sgc_backlog(void)
{
	for (int i = 0; i < opt.conns; i++)
		if (conns[i].olen && !sgc_dead(&conns[i]))
			return true;
	return false;
}

/* Pick the next live connection, round-robin; NULL when none is left. */
static struct sgc_conn *sgc_pick(int *rr)
{
	for (int i = 0; i < opt.conns; i++) {
		struct sgc_conn *c = &conns[*rr];

		*rr = (*rr + 1) % opt.conns;
		if (!sgc_dead(c))
			return c;
	}
	return NULL;
}

/*
 * Queue @n requests, @len bytes in all, scheduled at @sched; false if they
 * could not be (connection lost, or stuck until @limit).  memcache: their
 * scheduled times join the connection's ring once the bytes are queued,
 * before any of them can reach the server.
 */
static bool sgc_enqueue(struct sgc_conn *c, const void *req, size_t len, unsigned long n,
			uint64_t sched, uint64_t limit)
{
	while (SGC_OUTQ - c->olen < len) {
		struct pollfd pfd = { c->fd, POLLOUT, 0 };
		uint64_t now = sgw_now_ns();
		struct timespec rel;

		if (c->ooff) {	/* compact */
			memmove(c->out, c->out + c->ooff, c->olen - c->ooff);
			c->olen -= c->ooff;
			c->ooff = 0;
			continue;
		}
		if (now >= limit)
			return false;
		rel = sgw_ts(limit - now);
		ppoll(&pfd, 1, &rel, NULL);
		if (!sgc_flush(c))
			return false;
	}
	memcpy(c->out + c->olen, req, len);
	c->olen += len;
	if (opt.mc) {
		uint32_t h = __atomic_load_n(&c->head, __ATOMIC_RELAXED);

		for (unsigned long i = 0; i < n; i++)
			c->sched[(h + i) % SGC_MC_INFLIGHT] = sched;
		__atomic_store_n(&c->head, h + n, __ATOMIC_RELEASE);
	}
	return sgc_flush(c);
}

/* memcache: no room in @c's ring for another arrival's requests in flight */
static bool sgc_mc_full(struct sgc_conn *c)
{
	return __atomic_load_n(&c->head, __ATOMIC_RELAXED) -
	       __atomic_load_n(&c->tail, __ATOMIC_ACQUIRE) > SGC_MC_INFLIGHT - opt.pipeline;
}

/*
 * memcache: "get K1 K2 ... KN\r\n", opt.mget keys drawn uniformly (with
 * replacement) from the key space by their own generator, so that the
 * arrival schedule of a seed is the same as against sgserver.  Returns the
 * length written to @buf (room for SGC_MC_MAX_KEYS keys).
 */
static size_t sgc_mc_get(char *buf, uint64_t *krng)
{
	size_t len = 3;

	memcpy(buf, "get", 3);
	for (unsigned long i = 0; i < opt.mget; i++)
		len += sprintf(buf + len, " " SGC_MC_KEY_FMT,
			       (unsigned long)(sgc_rand(krng) % opt.keyspace));
	memcpy(buf + len, "\r\n", 2);
	return len + 2;
}

/* sgserver's request @m on the wire at @out (--proto sgw or resp); its length */
static size_t sgc_wrap(void *out, const struct sgw_msg *m)
{
	if (opt.resp)
		return sgw_resp_wrap(out, SGW_RESP_REQ_HEAD, sizeof(SGW_RESP_REQ_HEAD) - 1, m);
	memcpy(out, m, sizeof(*m));
	return sizeof(*m);
}

/*
 * Queue one arrival's opt.pipeline requests scheduled at @sched on @c, sent
 * at @now, back to back in one write: sgserver's messages (ids from *@id
 * on) or memcache multi-gets drawn from *@krng.  Returns what sgc_enqueue()
 * returns.  main() checked that they fit SGC_OUTQ.
 */
static bool sgc_send(struct sgc_conn *c, uint64_t sched, uint64_t now, uint64_t *id,
		     uint64_t *krng, uint64_t limit)
{
	static char buf[SGC_OUTQ];
	size_t len = 0;

	for (unsigned long k = 0; k < opt.pipeline; k++) {
		struct sgw_msg m = { .magic = SGW_REQ_MAGIC, .service_us = opt.service_us,
				     .id = (*id)++, .sched_ns = sched, .sent_ns = now };

		len += opt.mc ? sgc_mc_get(buf + len, krng) : sgc_wrap(buf + len, &m);
	}
	return sgc_enqueue(c, buf, len, opt.pipeline, sched, limit);
}

/* --warmup's mark: the counters' start, with the warm-up's sends so far */
static void sgc_mark(uint64_t warm_sent)
{
	if (opt.json)
		printf("{\"warmup_s\": %.6g, \"lead_s\": %.6g, \"sent\": %llu}\n", opt.warmup_s,
		       opt.lead_s, (unsigned long long)warm_sent);
	else
		printf("warm-up: %.6g s, mark %.6g s before the run, sent %llu\n", opt.warmup_s,
		       opt.lead_s, (unsigned long long)warm_sent);
	fflush(stdout);
}

static void *sgc_sender(void *arg)
{
	uint64_t rng = opt.seed, krng = opt.seed ^ 0x6b657973ull /* "keys" */, id = 0;
	uint64_t limit = t0 + nsteps * step_ns;	/* never block past the run */
	uint64_t giveup = (uint64_t)(opt.grace_s * 1e9 / 2);
	uint64_t warm_sent = 0;
	int rr = 0;

	/*
	 * --warmup: the first step's rate from tw to t0, unmeasured, then a line
	 * on stdout at tm = t0 - --mark-lead (t0 without one), so that a caller
	 * reading counters around the measured run starts them there, with the
	 * load already running.  The lead leaves the caller's own reads (forks,
	 * a BPF map) outside the measured run: on one CPU's worth of emulator
	 * they stall client and server alike, and the run's tail with them.
	 * The sends from tm to t0 are counted (lead_sent in step 0's report),
	 * for a caller whose counters span them.
	 */
	if (t0 > tw) {
		uint64_t tm = t0 - (uint64_t)(opt.lead_s * 1e9), at_mark = 0;
		bool marked = false;
		double off = 0;

		for (;;) {
			struct sgc_conn *c;
			uint64_t sched;

			off += sgc_interval(&rng, steps[0].rate / opt.pipeline);
			sched = tw + (uint64_t)(off * 1e9);
			if (!marked && sched >= tm) {
				sgc_wait_until(tm);
				sgc_mark(warm_sent);
				at_mark = warm_sent;
				marked = true;
			}
			if (sched >= t0)
				break;
			sgc_wait_until(sched);
			if (!(c = sgc_pick(&rr)) || (opt.mc && sgc_mc_full(c)))
				continue;
			warm_sent += sgc_send(c, sched, sgw_now_ns(), &id, &krng, limit) *
				     opt.pipeline;
		}
		__atomic_store_n(&lead_sent, warm_sent - at_mark, __ATOMIC_RELEASE);
		sgc_wait_until(t0);
	}
	for (int k = 0; k < nsteps; k++) {
		struct sgc_step *st = &steps[k];
		uint64_t lag_max = 0;
		double off = 0;

		/* arrivals restart at each step: memoryless, so still Poisson;
		 * --pipeline K: arrivals at RATE / K, of K requests each */
		for (;;) {
			struct sgc_conn *c;
			uint64_t sched, now;

			off += sgc_interval(&rng, st->rate / opt.pipeline);
			if (off * 1e9 >= (double)step_ns)
				break;
			sched = st->start_ns + (uint64_t)(off * 1e9);
			/*
			 * Give up on arrivals that are hopelessly late (the sender could
			 * not keep up) or that have no connection left to go on: count
			 * them as errors without sending, so the run ends on time.
			 */
			if (sgw_now_ns() > st->end_ns + giveup || !(c = sgc_pick(&rr))) {
				__atomic_fetch_add(&st->unsent, opt.pipeline, __ATOMIC_RELEASE);
				continue;
			}
			sgc_wait_until(sched);
			if ((sgc_dead(c) && !(c = sgc_pick(&rr))) || (opt.mc && sgc_mc_full(c))) {
				__atomic_fetch_add(&st->unsent, opt.pipeline, __ATOMIC_RELEASE);
				continue;
			}
			now = sgw_now_ns();
			if (now > sched && now - sched > lag_max)
				lag_max = now - sched;
			if (sgc_send(c, sched, now, &id, &krng, limit))
				__atomic_fetch_add(&st->sent, opt.pipeline, __ATOMIC_RELEASE);
			else if (!sgc_dead(c))	/* stuck past the run's end */
				__atomic_fetch_add(&st->unsent, opt.pipeline, __ATOMIC_RELEASE);
			else	/* queued, then lost with its connection */
				__atomic_fetch_add(&st->sent, opt.pipeline, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&st->lag_max_ns, lag_max, __ATOMIC_RELEASE);
		__atomic_store_n(&st->sender_done, 1, __ATOMIC_RELEASE);
	}
	/* push the backlog out, for at most half the grace */
	limit = sgw_now_ns() + (uint64_t)(opt.grace_s * 1e9 / 2);
	while (sgc_backlog() && sgw_now_ns() < limit)
		sgc_wait_until(sgw_now_ns() + SGC_POLL_MS * 1000000ull);
	return NULL;
}

/* ---- receiver -------------------------------------------------------------------- */

/* One answer, at @now, to the request scheduled at @sched; @bad: a wrong one. */
static void sgc_account(uint64_t sched, uint64_t now, bool bad, int *next_final)
{
	struct sgc_step *st;
	uint64_t k, lat;

	if (sched < t0) {
		if (sched < tw)		/* else --warmup's, not measured */
			late++;
		return;
	}
	k = (sched - t0) / step_ns;
	if (k >= (uint64_t)nsteps)
		k = nsteps - 1;
	if ((int)k < *next_final) {	/* its step was already reported */
		late++;
		return;
	}
	st = &steps[k];
	lat = now > sched ? now - sched : 0;
	st->bad += bad;
	st->received++;
	st->sum_ns += lat;
	if (lat > st->max_ns)
		st->max_ns = lat;
	if (!st->min_ns || lat < st->min_ns)
		st->min_ns = lat;
	st->hist[sgc_hist_index(lat)]++;
}

/* Read responses; false when the connection is finished. */
/*
 * Append what the socket has to c->in; its arrival time in @now (one for
 * what arrived together).  1: read some, 0: nothing yet, -1: finished.
 */
static int sgc_read_in(struct sgc_conn *c, uint64_t *now)
{
	ssize_t n = read(c->fd, c->in + c->ilen, sizeof(c->in) - c->ilen);

	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
	if (n == 0)
		return -1;
	*now = sgw_now_ns();
	c->ilen += n;
	return 1;
}

/*
 * sgserver's answer at @in (ans_size bytes, maybe unaligned) into @m; false
 * if it is not one.  resp: redis's own ECHO answers with the request's
 * magic, which is taken too.
 */
static bool sgc_unwrap(const void *in, struct sgw_msg *m)
{
	if (!opt.resp) {
		memcpy(m, in, sizeof(*m));
		return m->magic == SGW_RESP_MAGIC;
	}
	return sgw_resp_unwrap(in, SGW_RESP_ANS_HEAD, sizeof(SGW_RESP_ANS_HEAD) - 1, m) &&
	       (m->magic == SGW_RESP_MAGIC || m->magic == SGW_REQ_MAGIC);
}

static bool sgc_readable(struct sgc_conn *c, int *next_final)
{
	size_t pos = 0;
	uint64_t now;
	int r = sgc_read_in(c, &now);

	if (r <= 0)
		return r == 0;
	for (; c->ilen - pos >= ans_size; pos += ans_size) {
		struct sgw_msg m;

		if (!sgc_unwrap(c->in + pos, &m)) {
			sgc_err("malformed response (%s): dropping the connection",
				opt.resp ? "not '$32' and 32 bytes" : "magic");
			steps[*next_final < nsteps ? *next_final : nsteps - 1].bad++;
			return false;
		}
		sgc_account(m.sched_ns, now, false, next_final);
	}
	c->ilen -= pos;
	memmove(c->in, c->in + pos, c->ilen);
	return true;
}

/*
 * memcache: the <bytes> of a "VALUE <key> <flags> <bytes>" line ending at
 * @eol into *@bytes; false for any other line.  By hand, not sscanf(): an
 * answer of --mget 200 is 200 such lines, and at sscanf()'s cost the
 * client's parsing was as long as memcached's work under the emulator, a
 * share of every latency it measured that no server-side figure can see.
 */
static bool sgc_mc_value_bytes(const char *line, const char *eol, unsigned long *bytes)
{
	const char *p = eol;
	unsigned long v = 0, scale = 1;

	if (strncmp(line, "VALUE ", 6))
		return false;
	while (p > line + 6 && p[-1] >= '0' && p[-1] <= '9') {
		if (scale > ULONG_MAX / 10)
			return false;
		v += (unsigned long)(*--p - '0') * scale;
		scale *= 10;
	}
	/* digits after a space, and a key and flags before it */
	if (p == eol || p[-1] != ' ' || !memchr(line + 6, ' ', p - 1 - (line + 6)))
		return false;
	*bytes = v;
	return true;
}

/*
 * memcache: read memcached's answers to "get" as they arrive, "VALUE <key>
 * <flags> <bytes>\r\n<data>\r\n" per key found, then "END\r\n".  An answer
 * ends at END and is timed against the oldest request in flight on the
 * connection (all that arrived with one read at that read's time, as for
 * sgserver); one with fewer values than keys asked (a miss: the key space
 * was not filled with --fill) counts as an error.  Any other line (ERROR,
 * CLIENT_ERROR, SERVER_ERROR) would break the pairing of answers with
 * requests: the connection is dropped.  False when it is finished.
 */
static bool sgc_mc_readable(struct sgc_conn *c, int *next_final)
{
	size_t pos = 0, take;
	uint64_t now;
	int r = sgc_read_in(c, &now);

	if (r <= 0)
		return r == 0;
	while (pos < c->ilen) {
		char *line = c->in + pos, *eol;
		unsigned long bytes;
		uint32_t tail;

		if (c->skip) {	/* a value and its \r\n: not looked at */
			take = c->skip < c->ilen - pos ? c->skip : c->ilen - pos;
			pos += take;
			c->skip -= take;
			continue;
		}
		eol = memmem(line, c->ilen - pos, "\r\n", 2);
		if (!eol) {
			if (pos == 0 && c->ilen == sizeof(c->in)) {
				sgc_err("memcached sent a line over %zu bytes: dropping the connection",
					sizeof(c->in));
				goto bad;
			}
			break;
		}
		*eol = '\0';
		pos = eol + 2 - c->in;
		if (sgc_mc_value_bytes(line, eol, &bytes)) {
			c->skip = bytes + 2;
			c->values++;
			continue;
		}
		tail = __atomic_load_n(&c->tail, __ATOMIC_RELAXED);
		if (strcmp(line, "END") || tail == __atomic_load_n(&c->head, __ATOMIC_ACQUIRE)) {
			sgc_err("memcached answered '%.60s'%s: dropping the connection", line,
				strcmp(line, "END") ? "" : " to no request");
			goto bad;
		}
		sgc_account(c->sched[tail % SGC_MC_INFLIGHT], now, c->values != opt.mget,
			    next_final);
		__atomic_store_n(&c->tail, tail + 1, __ATOMIC_RELEASE);
		c->values = 0;
	}
	c->ilen -= pos;
	memmove(c->in, c->in + pos, c->ilen);
	return true;
bad:
	steps[*next_final < nsteps ? *next_final : nsteps - 1].bad++;
	return false;
}

static void *sgc_receiver(void *arg)
{
	struct epoll_event ev[64];
	uint64_t grace = (uint64_t)(opt.grace_s * 1e9);
	int epfd = *(int *)arg, live = opt.conns, next_final = 0;

	while (next_final < nsteps) {
		struct sgc_step *st = &steps[next_final];
		uint64_t now = sgw_now_ns(), deadline = st->end_ns + grace;
		int n, timeout;

		if (__atomic_load_n(&st->sender_done, __ATOMIC_ACQUIRE) &&
		    (st->received >= __atomic_load_n(&st->sent, __ATOMIC_ACQUIRE) || !live ||
		     now >= deadline)) {
			sgc_report(next_final++);
			continue;
		}
		timeout = SGC_POLL_MS;
		if (now >= deadline)
			timeout = 0;
		else if (deadline - now < SGC_POLL_MS * 1000000ull)
			timeout = (deadline - now) / 1000000 + 1;
		n = epoll_wait(epfd, ev, 64, timeout);
		for (int i = 0; i < n; i++) {
			struct sgc_conn *c = &conns[ev[i].data.u32];

			if (!(opt.mc ? sgc_mc_readable(c, &next_final) : sgc_readable(c, &next_final))) {
				epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
				sgc_kill(c);
				live--;
			}
		}
	}
	return NULL;
}

/* ---- connections ----------------------------------------------------------------- */

/* The address to load, which must be loopback: this tool never loads another machine. */
static int sgc_resolve(struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	const char *h = strcmp(opt.host, "localhost") ? opt.host : "127.0.0.1";

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, h, &sin->sin_addr) == 1) {
		if ((ntohl(sin->sin_addr.s_addr) >> 24) != 127)
			goto not_loopback;
		sin->sin_family = AF_INET;
		sin->sin_port = htons(opt.port);
		*len = sizeof(*sin);
		return 0;
	}
	if (inet_pton(AF_INET6, h, &sin6->sin6_addr) == 1) {
		if (!IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr) &&
		    !(IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr) && sin6->sin6_addr.s6_addr[12] == 127))
			goto not_loopback;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(opt.port);
		*len = sizeof(*sin6);
		return 0;
	}
	sgc_err("host '%s' is not an IP address (no name lookups; use 127.0.0.1 or ::1)",
		opt.host);
	return -1;
not_loopback:
	sgc_err("host '%s' is not a loopback address: only 127.0.0.0/8 and ::1 are allowed",
		opt.host);
	return -1;
}

static int sgc_connect(const struct sockaddr_storage *ss, socklen_t len)
{
	struct pollfd pfd;
	int fd, one = 1, err = 0;
	socklen_t elen = sizeof(err);

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)ss, len) && errno != EINPROGRESS)
		goto err;
	pfd.fd = fd;
	pfd.events = POLLOUT;
	if (poll(&pfd, 1, SGC_CONNECT_MS) != 1) {
		errno = ETIMEDOUT;
		goto err;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) || err) {
		errno = err ? err : errno;
		goto err;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
err:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

/* ---- --frag: protocol check of the server's partial reads and pipelining ----------- */

/*
 * Writes N pipelined requests on one connection in fragments of 1-31 bytes
 * (a short pause now and then, so the server sees requests split across
 * reads), then expects N responses in order with their ids and times echoed.
 */
static int sgc_frag(int fd)
{
	size_t total = opt.frag * req_size, atotal = opt.frag * ans_size, off = 0, got = 0;
	char *out = malloc(total), *in = malloc(atotal);
	uint64_t rng = opt.seed, end = sgw_now_ns() + 10000000000ull;	/* 10 s */
	int i = 0, ret = 1;

	if (!out || !in) {
		sgc_err("out of memory");
		goto out;
	}
	for (unsigned long k = 0; k < opt.frag; k++) {
		struct sgw_msg m = { SGW_REQ_MAGIC, opt.service_us, k, 1000 + k, 2000 + k };

		sgc_wrap(out + k * req_size, &m);
	}
	while (got < atotal) {
		struct pollfd pfd = { fd, POLLIN | (off < total ? POLLOUT : 0), 0 };
		uint64_t now = sgw_now_ns();

		if (now >= end) {
			sgc_err("--frag: timed out with %zu of %lu responses", got / ans_size,
				opt.frag);
			goto out;
		}
		poll(&pfd, 1, (end - now) / 1000000 + 1);
		if (pfd.revents & POLLOUT) {
			size_t len = 1 + sgc_rand(&rng) % (SGW_MSG_SIZE - 1);
			ssize_t n;

			if (len > total - off)
				len = total - off;
			n = send(fd, out + off, len, MSG_NOSIGNAL);
			if (n < 0 && errno != EAGAIN && errno != EINTR) {
				sgc_err("--frag: send: %s", strerror(errno));
				goto out;
			}
			off += n > 0 ? n : 0;
			if (++i % 8 == 0)
				usleep(200);	/* let the server read a torn request */
		}
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = read(fd, in + got, atotal - got);

			if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR))) {
				sgc_err("--frag: connection closed after %zu responses",
					got / ans_size);
				goto out;
			}
			got += n > 0 ? n : 0;
		}
	}
	for (unsigned long k = 0; k < opt.frag; k++) {
		struct sgw_msg m = { 0 };

		if (!sgc_unwrap(in + k * ans_size, &m) || m.magic != SGW_RESP_MAGIC || m.id != k ||
		    m.sched_ns != 1000 + k || m.sent_ns != 2000 + k) {
			sgc_err("--frag: response %lu is wrong (magic %#x id %llu)", k, m.magic,
				(unsigned long long)m.id);
			goto out;
		}
	}
	printf("frag ok %lu\n", opt.frag);
	ret = 0;
out:
	free(out);
	free(in);
	return ret;
}

/* ---- --fill: memcached's key space --------------------------------------------------- */

/*
 * Stores every key of the key space with a value of opt.fill bytes ("set
 * KEY 0 0 BYTES"), SGC_MC_FILL_BATCH sets pipelined at a time, each answered
 * "STORED", so that every key a run asks for is there.  Blocking I/O with a
 * 10 s timeout per call.  Prints "fill ok N".
 */
static int sgc_mc_fill(int fd)
{
	struct timeval tmo = { .tv_sec = 10 };
	size_t per = 4 + SGC_MC_KEY_LEN + 32 + opt.fill + 2, len, got;
	char *buf = malloc(per * SGC_MC_FILL_BATCH), in[8 * SGC_MC_FILL_BATCH + 1];
	unsigned long k = 0, batch, i;
	int ret = 1;

	if (!buf) {
		sgc_err("out of memory");
		return 1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tmo, sizeof(tmo));
	while (k < opt.keyspace) {
		batch = opt.keyspace - k < SGC_MC_FILL_BATCH ? opt.keyspace - k : SGC_MC_FILL_BATCH;
		len = 0;
		for (i = 0; i < batch; i++) {
			len += sprintf(buf + len, "set " SGC_MC_KEY_FMT " 0 0 %lu\r\n", k + i, opt.fill);
			memset(buf + len, 'a' + (k + i) % 26, opt.fill);
			memcpy(buf + len + opt.fill, "\r\n", 2);
			len += opt.fill + 2;
		}
		for (size_t off = 0; off < len; ) {
			ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);

			if (n <= 0) {
				sgc_err("--fill: send: %s", n ? strerror(errno) : "nothing sent");
				goto out;
			}
			off += n;
		}
		/* "STORED\r\n" per set, nothing else: checked as it arrives */
		for (got = 0; got < batch * 8; ) {
			ssize_t n = recv(fd, in + got, batch * 8 - got, 0);

			if (n <= 0) {
				sgc_err("--fill: %s after %lu keys", n ? strerror(errno) : "connection closed",
					k + got / 8);
				goto out;
			}
			in[got + n] = '\0';
			for (; n > 0; n--, got++)
				if (in[got] != "STORED\r\n"[got % 8]) {
					sgc_err("--fill: memcached answered '%.*s' to set " SGC_MC_KEY_FMT,
						(int)strcspn(in + got / 8 * 8, "\r\n"), in + got / 8 * 8,
						k + got / 8);
					goto out;
				}
		}
		k += batch;
	}
	printf("fill ok %lu\n", k);
	ret = 0;
out:
	free(buf);
	return ret;
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-H HOST] -p PORT -r RATE -d SECONDS [-c CONNS] [-S SEED] [-j]\n"
		"       %s [-H HOST] -p PORT --ramp R1,R2,...:STEP_S [-c CONNS] [-S SEED] [-j]\n"
		"       %s [-H HOST] -p PORT --frag N [--proto sgw|resp]\n"
		"       %s [-H HOST] -p PORT --proto memcache --fill BYTES [--keyspace N]\n"
		"  -H HOST        server address, loopback only (default 127.0.0.1; ::1 works)\n"
		"  -p PORT        server port\n"
		"  -r RATE        requests per second, Poisson arrivals\n"
		"  -d SECONDS     how long to send (fractions allowed)\n"
		"  -c CONNS       connections, requests spread round-robin (default 4)\n"
		"  -S SEED        seed of the arrival schedule (default 1): same seed, same schedule\n"
		"  -j             JSON: one object per line (per step with --ramp)\n"
		"  -s SERVICE_US  ask for this service time in every request (default: server's)\n"
		"  -g GRACE_S     wait this long for late responses after a step (default %g)\n"
		"  --ramp R1,R2,...:STEP_S  rates in sequence, STEP_S seconds each\n"
		"  --by-rate      with --ramp: then one line per distinct rate, its steps merged\n"
		"  --warmup S     first send S seconds at the (first) rate, unmeasured; a line\n"
		"                 on stdout says when the measured run starts\n"
		"  --mark-lead S  with --warmup: that line comes S seconds before the measured\n"
		"                 run (at most the warm-up), whose first report then counts\n"
		"                 lead_sent, the requests sent in between (default 0)\n"
		"  --pipeline K   each arrival is K requests written at once on one connection\n"
		"                 (arrivals at RATE / K: RATE stays requests per second)\n"
		"  --frag N       protocol check: N pipelined requests in torn fragments\n"
		"  --proto P      sgw (sgserver, default), resp (sgserver --proto resp, or\n"
		"                 redis: sgserver's message as 'ECHO <msg>') or memcache\n"
		"                 (memcached's text protocol: each request a get of --mget\n"
		"                 keys, timed to its END)\n"
		"  --mget N       memcache: keys per get, drawn uniformly from the key space (default 1)\n"
		"  --keyspace N   memcache: the keys are sg000000 ... N-1 (default 1000)\n"
		"  --fill BYTES   memcache: set every key to a value of BYTES bytes, then exit\n",
		sgc_prog, sgc_prog, sgc_prog, sgc_prog, SGC_DEFAULT_GRACE);
}

static int bad_arg(const char *what, const char *val)
{
	sgc_err("invalid %s '%s' (see %s -h)", what, val, sgc_prog);
	return 2;
}

/* "R1,R2,...:STEP_S" */
static int sgc_parse_ramp(const char *arg)
{
	char *s = strdup(arg), *colon, *tok, *save = NULL;
	int ret = -1;

	if (!s)
		return -1;
	colon = strrchr(s, ':');
	if (!colon || sgw_parse_double(colon + 1, 0.001, SGC_MAX_DURATION, &opt.duration_s))
		goto out;
	*colon = '\0';
	nsteps = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double r;

		if (nsteps == SGC_MAX_STEPS || sgw_parse_double(tok, 1e-9, SGC_MAX_RATE, &r) ||
		    r <= 0)
			goto out;
		steps[nsteps++].rate = r;
	}
	ret = nsteps ? 0 : -1;
out:
	free(s);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "ramp", required_argument, NULL, 'R' },
		{ "frag", required_argument, NULL, 'F' },
		{ "by-rate", no_argument, NULL, 'B' },
		{ "proto", required_argument, NULL, 'P' },
		{ "mget", required_argument, NULL, 'M' },
		{ "keyspace", required_argument, NULL, 'K' },
		{ "fill", required_argument, NULL, 'L' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "mark-lead", required_argument, NULL, 'A' },
		{ "pipeline", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct sockaddr_storage ss;
	socklen_t sslen;
	pthread_t snd, rcv;
	bool have_r = false, have_d = false, have_s = false, have_mc = false, have_pipe = false;
	unsigned long v;
	double total_s;
	int c, epfd, ret = 0;

	steps = calloc(SGC_MAX_STEPS, sizeof(*steps));
	if (!steps) {
		sgc_err("out of memory");
		return 1;
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":H:p:r:d:c:S:js:g:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'H':
			opt.host = optarg;
			break;
		case 'p':
			if (sgw_parse_ulong(optarg, 1, 65535, &v))
				return bad_arg("port", optarg);
			opt.port = v;
			break;
		case 'r':
			if (sgw_parse_double(optarg, -INFINITY, SGC_MAX_RATE, &opt.rate) ||
			    opt.rate <= 0)
				return bad_arg("rate (must be > 0 req/s)", optarg);
			have_r = true;
			break;
		case 'd':
			if (sgw_parse_double(optarg, -INFINITY, SGC_MAX_DURATION, &opt.duration_s) ||
			    opt.duration_s <= 0)
				return bad_arg("duration (must be > 0 s)", optarg);
			have_d = true;
			break;
		case 'c':
			if (sgw_parse_ulong(optarg, 1, SGC_MAX_CONNS, &v))
				return bad_arg("connection count", optarg);
			opt.conns = v;
			break;
		case 'S':
			if (sgw_parse_ulong(optarg, 0, ULONG_MAX, &v))
				return bad_arg("seed", optarg);
			opt.seed = v;
			break;
		case 'j':
			opt.json = true;
			break;
		case 's':
			if (sgw_parse_ulong(optarg, 0, 10000000, &v))
				return bad_arg("service time", optarg);
			opt.service_us = v;
			have_s = true;
			break;
		case 'g':
			if (sgw_parse_double(optarg, 0, 3600, &opt.grace_s))
				return bad_arg("grace time", optarg);
			break;
		case 'R':
			if (sgc_parse_ramp(optarg))
				return bad_arg("ramp (want R1,R2,...:STEP_S, rates > 0)", optarg);
			opt.ramp = true;
			break;
		case 'B':
			opt.by_rate = true;
			break;
		case 'W':
			if (sgw_parse_double(optarg, 0, SGC_MAX_DURATION, &opt.warmup_s))
				return bad_arg("--warmup seconds", optarg);
			break;
		case 'A':
			if (sgw_parse_double(optarg, 0, SGC_MAX_DURATION, &opt.lead_s))
				return bad_arg("--mark-lead seconds", optarg);
			break;
		case 'F':
			if (sgw_parse_ulong(optarg, 1, 1000000, &opt.frag))
				return bad_arg("--frag count", optarg);
			break;
		case 'P':
			if (strcmp(optarg, "memcache") && strcmp(optarg, "sgw") &&
			    strcmp(optarg, "resp"))
				return bad_arg("--proto (sgw, resp or memcache)", optarg);
			opt.mc = !strcmp(optarg, "memcache");
			opt.resp = !strcmp(optarg, "resp");
			break;
		case 'N':
			if (sgw_parse_ulong(optarg, 1, SGC_MAX_PIPELINE, &opt.pipeline))
				return bad_arg("--pipeline depth (1-256)", optarg);
			have_pipe = true;
			break;
		case 'M':
			if (sgw_parse_ulong(optarg, 1, SGC_MC_MAX_KEYS, &opt.mget))
				return bad_arg("--mget key count (1-1000)", optarg);
			have_mc = true;
			break;
		case 'K':
			if (sgw_parse_ulong(optarg, 1, 1000000, &opt.keyspace))
				return bad_arg("--keyspace (1-1000000 keys)", optarg);
			have_mc = true;
			break;
		case 'L':
			if (sgw_parse_ulong(optarg, 1, SGC_MC_MAX_VALUE, &opt.fill))
				return bad_arg("--fill value size (1-524288 bytes)", optarg);
			have_mc = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			sgc_err("option '%s' needs a value (see %s -h)", argv[optind - 1], sgc_prog);
			return 2;
		default:
			if (optopt)
				sgc_err("unknown option '-%c' (see %s -h)", optopt, sgc_prog);
			else
				sgc_err("unknown option '%s' (see %s -h)", argv[optind - 1],
					sgc_prog);
			return 2;
		}
	}
	if (optind < argc)
		return bad_arg("argument", argv[optind]);
	if (opt.port < 0) {
		sgc_err("missing -p PORT (see %s -h)", sgc_prog);
		return 2;
	}
	if (!opt.mc && have_mc) {
		sgc_err("--mget, --keyspace and --fill need --proto memcache");
		return 2;
	}
	if (opt.mc && (opt.frag || have_s)) {
		sgc_err("%s is sgserver's: not with --proto memcache", opt.frag ? "--frag" : "-s");
		return 2;
	}
	if (have_pipe && (opt.frag || opt.fill)) {
		sgc_err("--pipeline is a load's: not with %s", opt.frag ? "--frag" : "--fill");
		return 2;
	}
	/* one arrival's requests are queued at once: they must fit the queue */
	if (opt.pipeline * (opt.mc ? 6 + opt.mget * (SGC_MC_KEY_LEN + 1) : SGW_MAX_SIZE) >
	    SGC_OUTQ) {
		sgc_err("--pipeline %lu of %lu-key gets: over %d KiB per arrival", opt.pipeline,
			opt.mget, SGC_OUTQ / 1024);
		return 2;
	}
	if (opt.resp) {
		req_size = SGW_RESP_REQ_SIZE;
		ans_size = SGW_RESP_ANS_SIZE;
	}
	if (!opt.frag && !opt.fill) {
		if (opt.ramp && (have_r || have_d)) {
			sgc_err("--ramp sets the rates and durations: drop -r and -d");
			return 2;
		}
		if (opt.by_rate && !opt.ramp) {
			sgc_err("--by-rate needs --ramp");
			return 2;
		}
		if (opt.lead_s > opt.warmup_s) {
			sgc_err("--mark-lead %g: at most the --warmup (%g s)", opt.lead_s,
				opt.warmup_s);
			return 2;
		}
		if (!opt.ramp && (!have_r || !have_d)) {
			sgc_err("missing %s (see %s -h)", have_r ? "-d SECONDS" : "-r RATE",
				sgc_prog);
			return 2;
		}
		if (!opt.ramp) {
			nsteps = 1;
			steps[0].rate = opt.rate;
		}
	}
	if (sgc_resolve(&ss, &sslen))
		return 2;
	signal(SIGPIPE, SIG_IGN);

	if (opt.frag || opt.fill) {
		int fd = sgc_connect(&ss, sslen);

		if (fd < 0) {
			sgc_err("cannot connect to %s port %d: %s", opt.host, opt.port,
				strerror(errno));
			return 1;
		}
		ret = opt.frag ? sgc_frag(fd) : sgc_mc_fill(fd);
		close(fd);
		return ret;
	}

	/* bounded: the planned end, the last grace, and a margin; then give up */
	total_s = opt.warmup_s + nsteps * opt.duration_s + opt.grace_s;
	signal(SIGALRM, sgc_watchdog);
	alarm((unsigned int)ceil(total_s) + SGC_WATCHDOG_S);
	prctl(PR_SET_TIMERSLACK, 1);	/* wake at the scheduled send, not 50 us later */

	sgw_raise_nofile();
	conns = calloc(opt.conns, sizeof(*conns));
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!conns || epfd < 0) {
		sgc_err("setup: %s", strerror(errno));
		return 1;
	}
	for (int i = 0; i < opt.conns; i++) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.u32 = i };

		if (opt.mc && !(conns[i].sched = calloc(SGC_MC_INFLIGHT, sizeof(uint64_t)))) {
			sgc_err("out of memory");
			return 1;
		}
		conns[i].fd = sgc_connect(&ss, sslen);
		if (conns[i].fd < 0) {
			sgc_err("cannot connect to %s port %d: %s", opt.host, opt.port,
				strerror(errno));
			return 1;
		}
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, conns[i].fd, &ev)) {
			sgc_err("epoll_ctl: %s", strerror(errno));
			return 1;
		}
	}
	step_ns = (uint64_t)(opt.duration_s * 1e9);
	tw = sgw_now_ns() + SGC_START_DELAY_NS;
	t0 = tw + (uint64_t)(opt.warmup_s * 1e9);
	for (int k = 0; k < nsteps; k++) {
		steps[k].start_ns = t0 + k * step_ns;
		steps[k].end_ns = steps[k].start_ns + step_ns;
		steps[k].hist = calloc(SGC_BUCKETS, sizeof(uint64_t));
		if (!steps[k].hist) {
			sgc_err("out of memory");
			return 1;
		}
	}
	if (pthread_create(&rcv, NULL, sgc_receiver, &epfd) ||
	    pthread_create(&snd, NULL, sgc_sender, NULL)) {
		sgc_err("cannot start threads");
		return 1;
	}
	pthread_join(snd, NULL);
	pthread_join(rcv, NULL);
	alarm(0);
	if (opt.by_rate)
		sgc_report_by_rate();

	if (late)
		fprintf(stderr, "%s: %llu responses arrived after their step was reported\n",
			sgc_prog, (unsigned long long)late);
	if (__atomic_load_n(&conns_lost, __ATOMIC_RELAXED)) {
		sgc_err("%d of %d connections were lost during the run", conns_lost, opt.conns);
		ret = 1;
	}
	for (int i = 0; i < opt.conns; i++)
		close(conns[i].fd);
	close(epfd);
	return ret;
}
