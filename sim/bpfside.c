// SPDX-License-Identifier: GPL-2.0
/*
 * bpfside.c - the BPF side's windows, as Documentation/metrics.rst defines
 * them and bpf/ computes them: slack from the workers' completed wait and
 * busy segments, cv from the recvs' intervals (a batch read is its gap and
 * k - 1 zeros), util from on-CPU time counted whole at switch-out, the CPUs
 * run on, per-request latency (queueing, service) into the window's and
 * the recent two-half histogram, nr_over against the budget the module
 * returned.  Each closed window is one struct slackgov_sample, handed to the
 * governor's report() as slackgov_report() is.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <slackgov.h>
#include "sim.h"

/* bpf/intervals.bpf.h */
#define IV_MAX_US	1000000ULL
#define CV_MIN_RECVS	2
#define CV_SPAN_NS	1000000000ULL
/* bpf/latency.bpf.h */
#define LAT_HALF_REQS	((uint64_t)SLACKGOV_LAT_RECENT_REQS / 2)
#define LAT_HALF_NS	(SLACKGOV_LAT_RECENT_MS * 1000000ULL / 2)
#define LAT_FP		256ULL

struct bpf_tgt {
	uint64_t start_ns, seq;
	uint64_t nr_send, nr_recv, nr_req, nr_wait, nr_workers;
	uint64_t blocked_ns, busy_ns, oncpu_ns;
	uint64_t cpus[SLACKGOV_CPU_WORDS], last_cpus[SLACKGOV_CPU_WORDS];
	uint64_t seen_cpus[SLACKGOV_CPU_WORDS], kept_cpus[SLACKGOV_CPU_WORDS], keep_ns;
	uint64_t last_recv_ns, recv_sum_us, recv_sq_us2;
	uint64_t cv_reqs, cv_recvs, cv_sum_us, cv_sq_us2, cv_start_ns, cv_idle_ns, last_cv;
	uint64_t lat_win[SLACKGOV_LAT_BUCKETS];
	uint64_t lat_n, lat_over, lat_queue_ns, lat_svc_ns;
	uint64_t lat_recent[2][SLACKGOV_LAT_BUCKETS];
	uint64_t lat_rn[2], lat_rstart_ns[2];
	unsigned int lat_rcur;
	uint64_t lat_q_us, budget_ns;
	uint64_t *worker_seq;	/* per thread: the window it last counted as a worker in */
	int cpu;		/* split=cpu: the CPU whose share this is (-1: the target's) */
	uint64_t oncpu_at[SIM_MAX_CPUS], req_at[SIM_MAX_CPUS];	/* per CPU (cpu_acc) */
};

/*
 * A target's BPF state: one, or with split=cpu one per CPU (a BPF side that
 * would report every figure of each CPU's share of a target, its latencies
 * and slack too, as its own sample; bpf/ splits only the on-CPU time and
 * the requests, feed() below).
 */
struct bpf_set {
	int n;
	struct bpf_tgt *per[SIM_MAX_CPUS];
};

static struct bpf_tgt *inst(struct sim *s, struct target *t, int cpu)
{
	struct bpf_set *set = t->bpf;

	return set->n == 1 ? set->per[0] : set->per[cpu];
}

static uint64_t ns(double t)
{
	return (uint64_t)llround(t * 1e9);
}

void bpf_init(struct sim *s, struct target *t)
{
	struct bpf_set *set = calloc(1, sizeof(*set));
	int i;

	set->n = s->cfg->split_cpu ? s->ncpus : 1;
	for (i = 0; i < set->n; i++) {
		struct bpf_tgt *b = calloc(1, sizeof(*b));

		b->worker_seq = calloc(s->nthreads ? s->nthreads : 4096, sizeof(uint64_t));
		b->cpu = set->n == 1 ? -1 : i;
		set->per[i] = b;
	}
	t->bpf = set;
}

void bpf_free(struct target *t)
{
	struct bpf_set *set = t->bpf;
	int i;

	if (!set)
		return;
	for (i = 0; i < set->n; i++) {
		free(set->per[i]->worker_seq);
		free(set->per[i]);
	}
	free(set);
	t->bpf = NULL;
}

static void add_interval(uint64_t *last, uint64_t now, uint64_t *sum, uint64_t *sq)
{
	uint64_t prev = *last, iv;

	*last = now;
	if (!prev || now <= prev)
		return;
	iv = (now - prev) / 1000;
	if (iv > IV_MAX_US)
		iv = IV_MAX_US;
	*sum += iv;
	*sq += iv * iv;
}

/* a recv that returned @nreq requests (one call) */
void bpf_recv(struct sim *s, struct target *t, struct thread *th, int nreq)
{
	struct bpf_tgt *b = inst(s, t, th->cpu);

	b->nr_recv++;
	add_interval(&b->last_recv_ns, ns(s->now), &b->recv_sum_us, &b->recv_sq_us2);
}

/* a wait that @th entered at @from returned with events (count_wait()) */
void bpf_wait_return(struct sim *s, struct target *t, struct thread *th, double from)
{
	struct bpf_tgt *b = inst(s, t, th->cpu);
	uint64_t now = ns(s->now), d = now - ns(from), ws = b->start_ns;

	b->nr_wait++;
	if (ws && now - d < ws)
		d = now > ws ? now - ws : 0;
	b->blocked_ns += d;
	if (b->worker_seq[th->id] != b->seq + 1) {
		b->worker_seq[th->id] = b->seq + 1;
		b->nr_workers++;
	}
}

/* @th enters a wait: its busy segment ends (end_busy()) */
void bpf_wait_enter(struct sim *s, struct target *t, struct thread *th)
{
	struct bpf_tgt *b = inst(s, t, th->cpu);
	uint64_t at = ns(s->now), from;

	if (!th->busy_from)
		return;
	from = ns(th->busy_from);
	th->busy_from = 0;
	if (b->start_ns > from)
		from = b->start_ns;
	if (at > from)
		b->busy_ns += at - from;
}

/* the send that answers @r: counted, timed (lat_add()) */
void bpf_answer(struct sim *s, struct target *t, struct thread *th, struct req *r)
{
	struct bpf_tgt *b = inst(s, t, th->cpu);
	uint64_t now = ns(s->now), arr = ns(r->arr), rd = ns(r->read), lat;
	unsigned int k;

	b->nr_send++;
	b->nr_req++;
	b->req_at[th->cpu]++;
	if (arr > rd || rd > now)
		return;
	lat = now - arr;
	k = slackgov_lat_bucket(lat / 1000);
	if (k >= SLACKGOV_LAT_BUCKETS)
		k = SLACKGOV_LAT_BUCKETS - 1;
	if (b->budget_ns && lat > b->budget_ns)
		b->lat_over++;
	b->lat_win[k]++;
	b->lat_n++;
	b->lat_queue_ns += rd - arr;
	b->lat_svc_ns += now - rd;
}

/* @th left the CPU after running @ran seconds: the run counts whole in this window */
void bpf_switch_out(struct sim *s, struct target *t, struct thread *th, double ran)
{
	struct bpf_tgt *b = inst(s, t, th->cpu);

	b->oncpu_ns += ns(ran);
	b->oncpu_at[th->cpu] += ns(ran);
	bpf_ran_on(s, t, th->cpu);
}

void bpf_ran_on(struct sim *s, struct target *t, int cpu)
{
	struct bpf_tgt *b = inst(s, t, cpu);

	b->cpus[cpu / 64] |= 1ULL << (cpu % 64);
}

/* batch_cv() of bpf/intervals.bpf.h */
static uint64_t batch_cv(struct bpf_tgt *b, uint64_t wstart, uint64_t nreq, uint64_t nrecv,
			 uint64_t rsum, uint64_t rsq, uint64_t now)
{
	uint64_t n, m_ns, var, cv;

	if (!nreq && !nrecv) {
		b->cv_reqs = b->cv_recvs = b->cv_sum_us = b->cv_sq_us2 = b->cv_start_ns = 0;
		if (!b->cv_idle_ns)
			b->cv_idle_ns = wstart;
		else if (now - b->cv_idle_ns >= CV_SPAN_NS)
			b->last_cv = 0;
		return 0;
	}
	b->cv_idle_ns = 0;
	if (!b->cv_start_ns)
		b->cv_start_ns = wstart;
	b->cv_reqs += nreq > nrecv ? nreq : nrecv;
	b->cv_recvs += nrecv;
	b->cv_sum_us += rsum;
	b->cv_sq_us2 += rsq;
	if (b->cv_recvs < CV_MIN_RECVS && now - b->cv_start_ns < CV_SPAN_NS)
		return b->last_cv;
	n = b->cv_reqs;
	cv = 0;
	if (b->cv_sum_us && n) {
		m_ns = b->cv_sum_us * 1000 / n;
		var = b->cv_sq_us2 / n;
		var = var > m_ns * m_ns / 1000000 ? var - m_ns * m_ns / 1000000 : 0;
		if (m_ns)
			cv = (uint64_t)sqrtl((long double)var) * 1000000 / m_ns;
	}
	if (cv > SLACKGOV_CV_MAX)
		cv = SLACKGOV_CV_MAX;
	b->cv_reqs = b->cv_recvs = b->cv_sum_us = b->cv_sq_us2 = b->cv_start_ns = 0;
	b->last_cv = cv;
	return cv;
}

/* the percentile at @rank (LAT_FP units) of histogram @h, + 1 us; 0 if not reached */
static uint64_t pctl(const uint64_t *h, const uint64_t *h2, uint64_t rank)
{
	uint64_t cum = 0;
	unsigned int i;

	for (i = 0; i < SLACKGOV_LAT_BUCKETS; i++) {
		uint64_t c = (h[i] + (h2 ? h2[i] : 0)) * LAT_FP;

		if (cum < rank && rank <= cum + c)
			return 1 + slackgov_lat_interp(i, rank, cum, c);
		cum += c;
	}
	return 0;
}

/* lat_close(): the window's latency figures into @smp, the histograms folded */
static void lat_close(struct bpf_tgt *b, struct target *t, struct slackgov_sample *smp,
		      uint64_t now)
{
	uint64_t n = b->lat_n, over = b->lat_over, q, out;
	unsigned int k, i;

	q = t->slo_us && t->slo_q ? t->slo_q : SLACKGOV_Q_DEFAULT;
	smp->budget_us = b->budget_ns / 1000;
	smp->queue_us = n ? b->lat_queue_ns / n / 1000 : 0;
	smp->svc_us = n ? b->lat_svc_ns / n / 1000 : 0;
	b->lat_n = b->lat_over = b->lat_queue_ns = b->lat_svc_ns = 0;
	if (!n) {
		smp->lat_q_us = b->lat_q_us;
		return;
	}
	k = b->lat_rcur & 1;
	if (!b->lat_rstart_ns[k] || now - b->lat_rstart_ns[k] >= LAT_HALF_NS ||
	    b->lat_rn[k] >= LAT_HALF_REQS) {
		k ^= 1;
		memset(b->lat_recent[k], 0, sizeof(b->lat_recent[k]));
		b->lat_rcur = k;
		b->lat_rn[k] = 0;
		b->lat_rstart_ns[k] = now;
	}
	b->lat_rn[k] += n;
	if (b->lat_rn[k ^ 1] && now - b->lat_rstart_ns[k ^ 1] >= 2 * LAT_HALF_NS) {
		memset(b->lat_recent[k ^ 1], 0, sizeof(b->lat_recent[k ^ 1]));
		b->lat_rn[k ^ 1] = 0;
	}
	for (i = 0; i < SLACKGOV_LAT_BUCKETS; i++)
		b->lat_recent[k][i] += b->lat_win[i];
	out = pctl(b->lat_win, NULL, q * n * LAT_FP / SLACKGOV_Q_ONE);
	smp->lat_win_us = out ? out - 1 : 0;
	out = pctl(b->lat_recent[0], b->lat_recent[1],
		   q * (b->lat_rn[0] + b->lat_rn[1]) * LAT_FP / SLACKGOV_Q_ONE);
	smp->lat_q_us = out ? out - 1 : 0;
	b->lat_q_us = smp->lat_q_us;
	smp->nr_lat = n;
	smp->nr_over = over < n ? over : n;
	memset(b->lat_win, 0, sizeof(b->lat_win));
}

/*
 * sg_feed() of bpf/window.bpf.h: one sample per CPU of @smp, with that CPU's
 * on-CPU time and requests; the first budget returned (> 0), else 0.  A
 * split=cpu share already names its one CPU, and carries its own.
 */
static uint32_t feed(struct sim *s, struct bpf_tgt *b, const struct slackgov_sample *smp,
		     uint64_t len)
{
	uint32_t ret = 0, r;
	int c;

	if (b->cpu >= 0)
		return s->gov->report(s, smp);
	for (c = 0; c < s->ncpus; c++) {
		struct slackgov_sample one = *smp;

		if (!(smp->cpus[c / 64] & (1ULL << (c % 64))))
			continue;
		memset(one.cpus, 0, sizeof(one.cpus));
		one.cpus[c / 64] = 1ULL << (c % 64);
		one.util = b->oncpu_at[c] * SLACKGOV_ONE / len;
		one.nr_req = b->req_at[c];
		one.rps = b->req_at[c] * 1000000000ULL / len;
		r = s->gov->report(s, &one);
		if (!ret)
			ret = r;
	}
	return ret;
}

/*
 * name_cpus() of bpf/window.bpf.h: the window's CPUs and those of the last
 * keep periods (else the last ones it ran on); returns them OR'd (0: none)
 */
static uint64_t name_cpus(struct bpf_tgt *b, struct slackgov_sample *smp, uint64_t now)
{
	bool turn = now - b->keep_ns >= SLACKGOV_CPU_KEEP_MS * 1000000ULL;
	uint64_t ran = 0, named = 0;
	unsigned int i;

	for (i = 0; i < SLACKGOV_CPU_WORDS; i++)
		ran |= b->cpus[i];
	if (turn)
		b->keep_ns = now;
	for (i = 0; i < SLACKGOV_CPU_WORDS; i++) {
		b->seen_cpus[i] |= b->cpus[i];
		smp->cpus[i] = b->seen_cpus[i] | b->kept_cpus[i];
		named |= smp->cpus[i];
		if (turn) {
			b->kept_cpus[i] = b->seen_cpus[i];
			b->seen_cpus[i] = 0;
		}
		if (ran)
			b->last_cpus[i] = b->cpus[i];
		b->cpus[i] = 0;
	}
	if (!named)
		for (i = 0; i < SLACKGOV_CPU_WORDS; i++) {
			smp->cpus[i] = b->last_cpus[i];
			named |= smp->cpus[i];
		}
	return named;
}

/* the window of one share of @t closes (maybe_close()): the sample, to the governor's report() */
static void bpf_close(struct sim *s, struct target *t, struct bpf_tgt *b)
{
	struct slackgov_sample smp;
	uint64_t now = ns(s->now), len, denom, cpus_any;
	unsigned int i;

	if (!b->start_ns) {
		b->start_ns = now;
		return;
	}
	len = now - b->start_ns;
	memset(&smp, 0, sizeof(smp));
	smp.size = sizeof(smp);
	smp.version = SLACKGOV_ABI_VERSION;
	smp.target = t->id;
	smp.seq = ++b->seq;
	smp.end_ns = now;
	smp.len_ns = len;
	denom = b->blocked_ns + b->busy_ns;
	if (denom)
		smp.slack = b->blocked_ns >= denom ? SLACKGOV_ONE : b->blocked_ns * SLACKGOV_ONE / denom;
	else
		smp.slack = b->nr_send || b->nr_recv ? 0 : SLACKGOV_ONE;
	smp.rps = b->nr_req * 1000000000ULL / len;
	smp.util = b->oncpu_ns * SLACKGOV_ONE / len;
	smp.cv = batch_cv(b, b->start_ns, b->nr_req, b->nr_recv, b->recv_sum_us, b->recv_sq_us2,
			  now);
	smp.nr_req = b->nr_req;
	smp.nr_recv = b->nr_recv;
	smp.nr_wait = b->nr_wait;
	if (!b->nr_send && !b->nr_recv)
		smp.flags |= SLACKGOV_SAMPLE_IDLE;
	cpus_any = name_cpus(b, &smp, now);
	smp.slo_us = t->slo_us;
	smp.slo_q = t->slo_us ? t->slo_q : 0;
	smp.slo_margin = t->margin;
	lat_close(b, t, &smp, now);
	b->start_ns = now;
	b->nr_send = b->nr_recv = b->nr_req = b->nr_wait = b->nr_workers = 0;
	b->blocked_ns = b->busy_ns = b->oncpu_ns = 0;
	b->recv_sum_us = b->recv_sq_us2 = 0;
	/*
	 * The close runs on a CPU the target ran on: in a syscall or switch of
	 * a busy thread, else in the target's idle timer, which wakes that CPU
	 * (a bpf_timer fires where it was armed).  The decision follows there.
	 */
	s->closer_cpu = -1;
	for (i = 0; i < SLACKGOV_CPU_WORDS && s->closer_cpu < 0; i++)
		if (b->last_cpus[i])
			s->closer_cpu = i * 64 + __builtin_ctzll(b->last_cpus[i]);
	if (s->closer_cpu >= 0 && s->closer_cpu < s->ncpus)
		cpu_kernel_work(s, &s->cpu[s->closer_cpu], s->cfg->close_us * 1e-6);
	if (cpus_any && s->gov->report)
		b->budget_ns = (uint64_t)feed(s, b, &smp, len) * 1000;
	memset(b->oncpu_at, 0, sizeof(b->oncpu_at));
	memset(b->req_at, 0, sizeof(b->req_at));
}

void bpf_window(struct sim *s, struct target *t)
{
	struct bpf_set *set = t->bpf;
	int i;

	for (i = 0; i < set->n; i++)
		bpf_close(s, t, set->per[i]);
}
