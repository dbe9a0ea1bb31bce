// SPDX-License-Identifier: GPL-2.0
/*
 * engine.c - the discrete-event machine: the event queue, the CPUs (P-state,
 * C-states and their idle governor, energy), the scheduler (run queues,
 * wake-ups, time slices), the servers' threads and connections, and the
 * requests that go through them.  The governors (gov_*.c) and the BPF side
 * (bpfside.c) are called from here at the points the kernel calls them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

/* Linux's PELT: a 32 ms half-life */
#define PELT_TAU_S	(0.032 / M_LN2)
/* the scheduler tick (Debian: HZ=250), run on busy CPUs only (NOHZ) */
#define TICK_S		0.004
/* work left below this counts as done (fmax-seconds: a picosecond) */
#define DONE_EPS	1e-12
/* after the measured interval, the requests it scheduled may finish this long */
#define DRAIN_MAX_S	10.0

/* ---- the event heap ---------------------------------------------------------------- */

static bool ev_before(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void ev_push(struct sim *s, double t, enum ev_type type, int idx, uint64_t gen)
{
	struct event e = { .t = t < s->now ? s->now : t, .seq = s->seq++, .type = type,
			   .idx = idx, .gen = gen };
	int i;

	if (s->nheap == s->capheap) {
		s->capheap = s->capheap ? 2 * s->capheap : 1024;
		s->heap = realloc(s->heap, s->capheap * sizeof(*s->heap));
	}
	i = s->nheap++;
	while (i > 0) {
		int p = (i - 1) / 2;

		if (!ev_before(&e, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = e;
}

static struct event ev_pop(struct sim *s)
{
	struct event top = s->heap[0], last = s->heap[--s->nheap];
	int i = 0;

	for (;;) {
		int l = 2 * i + 1, m = l;

		if (l >= s->nheap)
			break;
		if (l + 1 < s->nheap && ev_before(&s->heap[l + 1], &s->heap[l]))
			m = l + 1;
		if (!ev_before(&s->heap[m], &last))
			break;
		s->heap[i] = s->heap[m];
		i = m;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

/* ---- requests ------------------------------------------------------------------------ */

struct req_draw {
	double work[SIM_MAX_STAGES], stall[SIM_MAX_STAGES], block[SIM_MAX_STAGES];
	double post[SIM_MAX_STAGES];
	int conn[SIM_MAX_STAGES];
};

/* a request and the draws of all its stages, made at its arrival */
struct req_ext {
	struct req r;
	struct req_draw d;
};

static struct req *req_new(struct sim *s)
{
	struct req *r = s->free_reqs;

	if (r)
		s->free_reqs = r->next;
	else
		r = malloc(sizeof(struct req_ext));
	memset(r, 0, sizeof(*r));
	return r;
}

static void req_free(struct sim *s, struct req *r)
{
	r->next = s->free_reqs;
	s->free_reqs = r;
}

/* ---- energy, residency, utilization ------------------------------------------------------ */

static bool cpu_governed(const struct sim *s, const struct cpu *c)
{
	return c->id >= s->cfg->governed_lo && c->id <= s->cfg->governed_hi;
}

/* the overlap of [a, b] with the measured interval */
static double meas_overlap(const struct sim *s, double a, double b)
{
	double lo = fmax2(a, s->t_meas0), hi = fmin2(b, s->t_meas1);

	return hi > lo ? hi - lo : 0;
}

static double cpu_power(const struct sim *s, const struct cpu *c)
{
	double w = s->plat->uncore_w;

	if (c->state == CPU_IDLE)
		return w + platform_idle_w(s->plat, c->cstate, c->fidx);
	return w + s->plat->busy_w[c->fidx];
}

/* integrate energy and residency up to now; call before any change of state or P-state */
static void cpu_account(struct sim *s, struct cpu *c)
{
	double dt = s->now - c->e_t, m = meas_overlap(s, c->e_t, s->now);

	if (dt <= 0)
		return;
	c->e_j += dt * c->power_w;
	c->e_meas_j += m * c->power_w;
	if (m > 0) {
		if (c->state == CPU_IDLE)
			c->res_c[c->cstate] += m;
		else
			c->res_f[c->fidx] += m;
		/* cpuidle's view: the exit latency is spent in the state it leaves */
		if (c->state == CPU_WAKING)
			c->res_cexit[c->cstate] += m;
	}
	c->e_t = s->now;
}

static void cpu_repower(struct sim *s, struct cpu *c)
{
	c->power_w = cpu_power(s, c);
}

/* PELT of the CPU's CFS time: non-invariant (running time) and invariant (times f / fmax) */
void pelt_update(struct sim *s, struct cpu *c)
{
	double dt = s->now - c->pelt_t, d, run;

	if (dt <= 0)
		return;
	d = exp(-dt / PELT_TAU_S);
	run = c->state == CPU_RUN && c->cur ? 1 : 0;
	c->pelt = c->pelt * d + run * (1 - d);
	c->pelt_inv = c->pelt_inv * d + run * (1 - d) * s->plat->khz[c->fidx] /
		      s->plat->khz[s->plat->np - 1];
	c->pelt_t = s->now;
}

/* busy time so far (get_cpu_idle_time()'s complement: exit latency is idle) */
double cpu_busy_s(struct sim *s, struct cpu *c)
{
	return c->busy_s + (c->state == CPU_RUN ? s->now - c->busy_t0 : 0);
}

/* ---- progress ------------------------------------------------------------------------------ */

static double cpu_rate(const struct sim *s, const struct cpu *c)
{
	double r = (double)s->plat->khz[c->fidx] / s->plat->khz[s->plat->np - 1];

	if (c->coupled && s->nbusy_coupled > 1)
		r /= s->nbusy_coupled;
	return r;
}

/* the running segment's progress up to now: kernel work, then the request's stall, then its work */
static void cpu_settle(struct sim *s, struct cpu *c)
{
	double dt = s->now - c->seg_t, x;
	struct req *r;

	c->seg_t = s->now;
	if (c->state != CPU_RUN || dt <= 0)
		return;
	if (c->kwork > 0) {
		x = c->kwork / c->rate;
		if (dt < x) {
			c->kwork -= dt * c->rate;
			if (c->kwork < DONE_EPS)
				c->kwork = 0;
			return;
		}
		dt -= x;
		c->kwork = 0;
	}
	if (c->cur && c->cur->post > 0) {
		x = c->cur->post / c->rate;
		if (dt < x) {
			c->cur->post -= dt * c->rate;
			return;
		}
		dt -= x;
		c->cur->post = 0;
	}
	r = c->cur ? c->cur->cur : NULL;
	if (!r)
		return;
	if (r->stall > 0) {
		x = fmin2(dt, r->stall);
		r->stall -= x;
		dt -= x;
	}
	r->work = fmax2(r->work - dt * c->rate, 0);
}

/* (re)schedule the running segment's end */
static void cpu_resched(struct sim *s, struct cpu *c)
{
	struct req *r = c->cur ? c->cur->cur : NULL;
	double left;

	if (c->state != CPU_RUN)
		return;		/* a waking CPU's event is its exit's, kept */
	c->gen++;
	left = c->kwork / c->rate;
	if (c->cur)
		left += c->cur->post / c->rate;
	if (r)
		left += r->stall + r->work / c->rate;
	else if (!c->kernel_run && !(c->cur && c->cur->post > 0))
		return;		/* a thread between requests runs no segment */
	ev_push(s, s->now + left, EV_CPU_DONE, c->id, c->gen);
}

static void coupled_changed(struct sim *s)
{
	int i;

	for (i = 0; i < s->ncpus; i++) {
		struct cpu *c = &s->cpu[i];

		if (!c->coupled)
			continue;
		cpu_settle(s, c);
		c->rate = cpu_rate(s, c);
		cpu_resched(s, c);
	}
}

/* every change of a CPU's state goes through here */
static void cpu_set_state(struct sim *s, struct cpu *c, enum cpu_state st)
{
	bool was_busy = c->state != CPU_IDLE, busy = st != CPU_IDLE;

	cpu_settle(s, c);
	cpu_account(s, c);
	pelt_update(s, c);
	if (c->state == CPU_RUN && st != CPU_RUN)
		c->busy_s += s->now - c->busy_t0;
	if (st == CPU_RUN && c->state != CPU_RUN)
		c->busy_t0 = s->now;
	c->state = st;
	cpu_repower(s, c);
	if (c->coupled && was_busy != busy) {
		s->nbusy_coupled += busy ? 1 : -1;
		coupled_changed(s);
	}
	c->rate = cpu_rate(s, c);
}

/* ---- the idle governor: menu's prediction, C-states ----------------------------------------- */

/* menu's get_typical_interval(): the recent idle lengths' mean if they agree, else -1 */
static double typical_interval(const struct cpu *c)
{
	double thresh = INFINITY;
	int i;

	if (c->idle_hist_n < 8)
		return -1;
	for (;;) {
		double sum = 0, max = 0, avg, var = 0;
		int n = 0;

		for (i = 0; i < 8; i++) {
			double v = c->idle_hist[i];

			if (v <= thresh) {
				sum += v;
				n++;
				max = fmax2(max, v);
			}
		}
		avg = sum / n;
		for (i = 0; i < 8; i++) {
			double v = c->idle_hist[i];

			if (v <= thresh)
				var += (v - avg) * (v - avg);
		}
		var /= n;
		if ((avg * avg > var * 36 && n * 4 >= 8 * 3) || var <= 400)
			return avg;
		if (n * 4 <= 8 * 3)
			return -1;
		thresh = max - 1e-9;
	}
}

static int cpu_idle_select(struct sim *s, struct cpu *c)
{
	double pred = typical_interval(c), lat = c->qos_us >= 0 ? c->qos_us : INFINITY;
	double next = c->next_timer, timer;
	int k, best = 0;

	/* a client's sender sleeps until its next scheduled send: a timer menu knows */
	if (c->sender_of >= 0 && (next <= s->now || s->tgt[c->sender_of].as.t < next))
		next = s->tgt[c->sender_of].as.t;
	timer = next > s->now ? (next - s->now) * 1e6 : INFINITY;

	if (pred < 0)
		pred = c->idle_avg;	/* menu's correction factor on the next timer */
	pred = fmin2(pred, timer);
	lat = fmin2(lat, pred);		/* the interactivity limit */
	for (k = 0; k < s->plat->nc; k++)
		if (s->plat->c[k].residency_us <= pred && s->plat->c[k].exit_us <= lat)
			best = k;
	if (c->qos_us >= 0 && s->plat->c[best].exit_us > c->qos_us)
		best = 0;
	return best;
}

static void cpu_go_idle(struct sim *s, struct cpu *c)
{
	int k = cpu_idle_select(s, c);

	c->cstate = k;
	c->idle_since = s->now;
	c->idle_calls++;
	cpu_set_state(s, c, CPU_IDLE);
}

/* an idle CPU gets work: its idle period ends, the exit latency starts */
static void cpu_wake(struct sim *s, struct cpu *c)
{
	double us = (s->now - c->idle_since) * 1e6;

	c->idle_hist[c->idle_hist_n++ % 8] = us;
	if (c->idle_hist_n > 8)
		c->idle_hist_n = 8 + c->idle_hist_n % 8;
	c->idle_avg += (us - c->idle_avg) / 8;
	cpu_set_state(s, c, CPU_WAKING);
	c->gen++;
	ev_push(s, s->now + s->plat->c[c->cstate].exit_us * 1e-6 + s->cfg->wake_us * 1e-6,
		EV_WAKE_DONE, c->id, c->gen);
}

void cpu_set_qos(struct sim *s, struct cpu *c, double us)
{
	c->qos_us = us;
}

/* ---- the scheduler -------------------------------------------------------------------------- */

static struct target *th_target(struct sim *s, struct thread *th)
{
	return &s->tgt[th->target];
}

static bool th_is_server(struct sim *s, struct thread *th)
{
	return th->stage == th_target(s, th)->server;
}

static void rq_push(struct sim *s, struct cpu *c, struct thread *th)
{
	th->rq_next = NULL;
	if (c->rq_tail)
		c->rq_tail->rq_next = th;
	else
		c->rq_head = th;
	c->rq_tail = th;
	c->rq_len++;
	if (th->pin < 0)
		s->stealable++;
}

static struct thread *rq_pop(struct sim *s, struct cpu *c)
{
	struct thread *th = c->rq_head;

	if (!th)
		return NULL;
	c->rq_head = th->rq_next;
	if (!c->rq_head)
		c->rq_tail = NULL;
	c->rq_len--;
	if (th->pin < 0)
		s->stealable--;
	return th;
}

/* an idle CPU pulls a free thread queued on another CPU (newidle balance) */
static struct thread *rq_steal(struct sim *s, struct cpu *c)
{
	int i;

	if (!s->stealable)
		return NULL;
	for (i = 1; i < s->ncpus; i++) {
		struct cpu *o = &s->cpu[(c->id + i) % s->ncpus];
		struct thread *th, *prev = NULL;

		for (th = o->rq_head; th; prev = th, th = th->rq_next) {
			if (th->pin >= 0 || c->id < th->cpu_lo || c->id > th->cpu_hi)
				continue;
			if (prev)
				prev->rq_next = th->rq_next;
			else
				o->rq_head = th->rq_next;
			if (o->rq_tail == th)
				o->rq_tail = prev;
			o->rq_len--;
			s->stealable--;
			return th;
		}
	}
	return NULL;
}

static void thread_step(struct sim *s, struct thread *th);
static void cpu_arm_preempt(struct sim *s, struct cpu *c);

static void sched_hook(struct sim *s, struct cpu *c)
{
	if (s->gov->sched_hook)
		s->gov->sched_hook(s, c);
}

/* the CPU picks its next thread, kernel work, or idles */
static void cpu_dispatch(struct sim *s, struct cpu *c)
{
	struct thread *th;

	c->cur = NULL;
	c->kernel_run = false;
	if (c->kwork > 0) {
		c->kernel_run = true;
		cpu_set_state(s, c, CPU_RUN);
		c->seg_t = s->now;
		cpu_resched(s, c);
		return;
	}
	th = rq_pop(s, c);
	if (!th)
		th = rq_steal(s, c);
	if (!th) {
		c->gen++;
		cpu_go_idle(s, c);
		return;
	}
	cpu_set_state(s, c, CPU_RUN);
	c->cur = th;
	c->seg_t = s->now;
	th->state = TH_RUN;
	th->cpu = c->id;
	th->run_start = s->now;
	if (th_is_server(s, th))
		bpf_ran_on(s, th_target(s, th), c->id);
	if (c->rq_len > 0)
		cpu_arm_preempt(s, c);
	if (th->cur || th->post > 0)
		cpu_resched(s, c);
	else
		thread_step(s, th);
}

/* the running thread leaves the CPU (it blocks, waits, or is preempted) */
static void cpu_switch_out(struct sim *s, struct cpu *c, bool preempted)
{
	struct thread *th = c->cur;

	cpu_settle(s, c);
	pelt_update(s, c);
	if (th_is_server(s, th))
		bpf_switch_out(s, th_target(s, th), th, s->now - th->run_start);
	c->cur = NULL;
	if (preempted) {
		th->state = TH_RUNQ;
		rq_push(s, c, th);
	} else {
		sched_hook(s, c);	/* dequeue */
	}
	cpu_dispatch(s, c);
}

static void cpu_arm_preempt(struct sim *s, struct cpu *c)
{
	if (c->state != CPU_RUN || !c->cur || s->cfg->slice_s <= 0)
		return;
	c->pgen++;
	ev_push(s, fmax2(s->now, c->cur->run_start + s->cfg->slice_s), EV_PREEMPT, c->id, c->pgen);
}

/* the CPU a waking free thread goes to: its last one if idle, else an idle one, else its last */
static int select_cpu(struct sim *s, struct thread *th)
{
	int n = th->cpu_hi - th->cpu_lo + 1, i;

	if (th->pin >= 0)
		return th->pin;
	if (s->cpu[th->cpu].state == CPU_IDLE)
		return th->cpu;
	for (i = 1; i < n; i++) {
		int j = th->cpu_lo + (th->cpu - th->cpu_lo + i) % n;

		if (s->cpu[j].state == CPU_IDLE)
			return j;
	}
	return th->cpu;
}

/* make @th runnable (out of a wait or a block) */
static void thread_wake(struct sim *s, struct thread *th)
{
	struct cpu *c = &s->cpu[select_cpu(s, th)];

	th->state = TH_RUNQ;
	th->enq_t = s->now;
	th->cpu = c->id;
	rq_push(s, c, th);
	pelt_update(s, c);
	sched_hook(s, c);	/* enqueue */
	if (c->state == CPU_IDLE)
		cpu_wake(s, c);
	else if (c->rq_len == 1)
		cpu_arm_preempt(s, c);
}

/* kernel work on @c (a timer, a governor's kthread, a decision), fmax-seconds */
void cpu_kernel_work(struct sim *s, struct cpu *c, double secs)
{
	if (secs <= 0)
		return;
	cpu_settle(s, c);
	c->kwork += secs;
	if (c->state == CPU_IDLE)
		cpu_wake(s, c);
	else if (c->state == CPU_RUN)
		cpu_resched(s, c);
}

/* ---- P-states ----------------------------------------------------------------------------------- */

uint32_t policy_cur_khz(const struct sim *s, const struct policy *p)
{
	return s->plat->khz[p->fidx];
}

static void policy_set_fidx(struct sim *s, struct policy *p, int fidx)
{
	int i;

	if (fidx == s->cpu[p->cpu_lo].fidx)
		return;
	for (i = p->cpu_lo; i <= p->cpu_hi; i++) {
		struct cpu *c = &s->cpu[i];

		cpu_settle(s, c);
		cpu_account(s, c);
		pelt_update(s, c);
		c->fidx = fidx;
		c->transitions++;
		c->e_j += s->plat->trans_uj * 1e-6;
		if (s->now >= s->t_meas0 && s->now < s->t_meas1)
			c->e_meas_j += s->plat->trans_uj * 1e-6;
		cpu_repower(s, c);
		c->rate = cpu_rate(s, c);
		if (s->plat->trans_stall_us > 0 && c->state == CPU_RUN)
			c->kwork += s->plat->trans_stall_us * 1e-6 * c->rate;
		cpu_resched(s, c);
	}
	if (s->now >= s->t_meas0 && s->now < s->t_meas1)
		s->freq_changes++;
}

/*
 * A governor asks policy @p for P-state @fidx (rate limits are the
 * governor's): applied by the driver at once (fast switch) or by a kthread
 * on the policy's first CPU, in effect after the transition latency.
 */
void policy_request(struct sim *s, struct policy *p, int fidx, bool urgent)
{
	double delay = s->plat->trans_us * 1e-6;

	if (p->locked)
		fidx = s->plat->np - 1;
	if (fidx == p->fidx)
		return;
	p->fidx = fidx;
	p->last_change = s->now;
	if (!s->plat->fast_switch) {
		double k = s->plat->kthread_us * 1e-6;

		cpu_kernel_work(s, &s->cpu[p->cpu_lo], k);
		delay += k;
	}
	if (delay <= 0) {
		policy_set_fidx(s, p, fidx);
		return;
	}
	p->pending_fidx = fidx;
	p->tgen++;
	ev_push(s, s->now + delay, EV_FREQ, p->id, p->tgen);
}

/* a governor's timer on @p at @t (the previous one is cancelled) */
void policy_timer(struct sim *s, struct policy *p, double t)
{
	p->timer_gen++;
	ev_push(s, t, EV_GOV_TIMER, p->id, p->timer_gen);
}

/* ---- the servers: connections, workers, requests -------------------------------------------------- */

static void conn_ready(struct sim *s, struct thread *th, int ci)
{
	struct conn *cn = &s->conn[ci];

	if (cn->ready)
		return;
	cn->ready = true;
	cn->next_ready = -1;
	if (th->ready_tail >= 0)
		s->conn[th->ready_tail].next_ready = ci;
	else
		th->ready_head = ci;
	th->ready_tail = ci;
}

static int conn_pop_ready(struct sim *s, struct thread *th)
{
	int ci = th->ready_head;

	if (ci < 0)
		return -1;
	th->ready_head = s->conn[ci].next_ready;
	if (th->ready_head < 0)
		th->ready_tail = -1;
	s->conn[ci].ready = false;
	return ci;
}

/* request @r reaches its current stage's connection */
static void deliver(struct sim *s, struct req *r)
{
	struct conn *cn = &s->conn[r->conn];
	struct thread *th = &s->th[cn->thread];

	r->arr = s->now;
	r->next = NULL;
	if (cn->tail)
		cn->tail->next = r;
	else
		cn->head = r;
	cn->tail = r;
	cn->n++;
	conn_ready(s, th, r->conn);
	if (th->state == TH_WAIT)
		thread_wake(s, th);
}

/* the connection of stage @st a request goes to: weighted or round robin */
static int route(struct stage *st, struct rng *r)
{
	if (st->weights) {
		double u = rng_unit(r);
		int i;

		for (i = 0; i < st->nconns - 1 && u > st->weights[i]; i++)
			;
		return st->first_conn + i;
	}
	return st->first_conn + st->rr++ % st->nconns;
}

static void draw_req(struct target *t, struct req_draw *d)
{
	int k;

	for (k = 0; k < t->nstages; k++) {
		struct stage *st = &t->st[k];

		d->work[k] = dist_draw(&st->work, &t->wrng, &t->wpos) * 1e-6;
		d->stall[k] = st->has_stall ? dist_draw(&st->stall, &t->wrng, &t->wpos) * 1e-6 : 0;
		d->block[k] = st->has_block ? dist_draw(&st->block, &t->wrng, &t->wpos) * 1e-6 : 0;
		d->post[k] = st->has_post ? dist_draw(&st->post, &t->wrng, &t->wpos) * 1e-6 : 0;
		d->conn[k] = route(st, &t->wrng);
	}
}

static void stage_enter(struct sim *s, struct req *r)
{
	struct req_draw *d = &((struct req_ext *)r)->d;

	r->work = d->work[r->stage];
	r->stall = d->stall[r->stage];
	r->block = d->block[r->stage];
	r->conn = d->conn[r->stage];
	deliver(s, r);
}

static void arrival(struct sim *s, struct target *t)
{
	struct req *r = req_new(s);
	struct req_ext *x = (struct req_ext *)r;

	draw_req(t, &x->d);
	r->target = t->id;
	r->sched = s->now;
	r->stage = 0;
	r->measured = s->now >= s->t_meas0 && s->now < s->t_meas1;
	if (r->measured) {
		t->n_meas++;
		t->work_sum += x->d.work[t->server];
		if (s->cfg->collect_bound) {
			struct stage *st = &t->st[t->server];

			if (t->b_n == t->b_cap) {
				t->b_cap = t->b_cap ? 2 * t->b_cap : 65536;
				t->b_arr = realloc(t->b_arr, t->b_cap * sizeof(double));
				t->b_work = realloc(t->b_work, t->b_cap * sizeof(double));
				t->b_cpu = realloc(t->b_cpu, t->b_cap * sizeof(int));
			}
			t->b_arr[t->b_n] = s->now;
			t->b_work[t->b_n] = x->d.work[t->server];
			t->b_cpu[t->b_n] = st->pinned ?
				s->th[s->conn[x->d.conn[t->server]].thread].pin : -1;
			t->b_n++;
		}
	}
	stage_enter(s, r);
	ev_push(s, arrivals_next(&t->arr, &t->as), EV_ARRIVAL, t->id, 0);
}

/* the answer of the request @th just finished: to the next stage, or done */
static void answer(struct sim *s, struct thread *th, struct req *r)
{
	struct target *t = th_target(s, th);

	if (r->stage == t->server) {
		r->srv_arr = r->arr;
		r->srv_done = s->now;
		bpf_answer(s, t, th, r);
	}
	if (r->stage + 1 < t->nstages) {
		r->stage++;
		stage_enter(s, r);
		return;
	}
	if (s->now >= s->t_meas0 && s->now < s->t_meas1)
		t->n_served++;
	if (r->measured) {
		t->n_done++;
		double extra = t->has_cdelay ? dist_draw(&t->cdelay, &t->crng, &t->cpos) : 0;

		hdr_add(t->lat, (s->now - (s->cfg->client_lat ? r->sched : r->srv_arr)) * 1e6 + extra);
		hdr_add(t->srv_lat, (r->srv_done - r->srv_arr) * 1e6);
	}
	req_free(s, r);
}

/*
 * A worker on its CPU, between requests: the requests it read, then the
 * connections ready when its wait returned, then the wait call again (which
 * returns at once if more are ready).  Starts a request's segment, or
 * leaves the CPU.
 */
static void thread_step(struct sim *s, struct thread *th)
{
	struct target *t = th_target(s, th);
	struct cpu *c = &s->cpu[th->cpu];
	bool srv = th_is_server(s, th);

	if (th->in_wait_return) {
		th->in_wait_return = false;
		if (srv)
			bpf_wait_return(s, t, th, th->wait_enter);
		th->busy_from = s->now;
	}
	for (;;) {
		int ci, n = 0;

		if (th->batch) {
			struct req *r = th->batch;

			th->batch = r->next;
			if (!th->batch)
				th->batch_tail = NULL;
			th->cur = r;
			c->seg_t = s->now;
			cpu_resched(s, c);
			return;
		}
		ci = conn_pop_ready(s, th);
		if (ci >= 0) {
			struct conn *cn = &s->conn[ci];
			struct req *r;

			/* one read takes what the connection holds */
			for (r = cn->head; r; r = r->next) {
				r->read = s->now;
				n++;
			}
			if (th->batch_tail)
				th->batch_tail->next = cn->head;
			else
				th->batch = cn->head;
			th->batch_tail = cn->tail;
			cn->head = cn->tail = NULL;
			cn->n = 0;
			if (srv && n)
				bpf_recv(s, t, th, n);
			continue;
		}
		/* the wait call */
		if (srv)
			bpf_wait_enter(s, t, th);
		th->wait_enter = s->now;
		th->state = TH_WAIT;
		th->in_wait_return = true;
		cpu_switch_out(s, c, false);
		return;
	}
}

/* the running segment of @c ended */
static void cpu_done(struct sim *s, struct cpu *c)
{
	struct thread *th = c->cur;
	struct req *r;

	cpu_settle(s, c);
	if (c->kernel_run) {
		c->kernel_run = false;
		cpu_dispatch(s, c);
		return;
	}
	if (!th)
		return;
	if (!th->cur) {		/* its work after an answer is done */
		th->post = 0;
		thread_step(s, th);
		return;
	}
	r = th->cur;
	if (r->block > 0) {
		double b = r->block;

		r->block = 0;
		th->state = TH_BLOCK;
		th->gen++;
		ev_push(s, s->now + b, EV_BLOCK_DONE, th->id, th->gen);
		cpu_switch_out(s, c, false);
		return;
	}
	th->cur = NULL;
	th->post = ((struct req_ext *)r)->d.post[r->stage];
	answer(s, th, r);
	if (th->post > 0) {
		c->seg_t = s->now;
		cpu_resched(s, c);
		return;
	}
	thread_step(s, th);
}

/* ---- background work, ticks --------------------------------------------------------------------- */

static void bg_next(struct sim *s, struct cpu *c)
{
	if (s->cfg->bg_rate <= 0)
		return;
	c->next_timer = s->now + rng_exp(&s->bgrng, 1 / s->cfg->bg_rate);
	ev_push(s, c->next_timer, EV_BG, c->id, 0);
}

static void tick(struct sim *s)
{
	int i;

	for (i = 0; i < s->ncpus; i++)
		if (s->cpu[i].state == CPU_RUN && s->cpu[i].cur)
			sched_hook(s, &s->cpu[i]);
	ev_push(s, s->now + TICK_S, EV_TICK, 0, 0);
}

/* ---- setting up a run -------------------------------------------------------------------------- */

static void build(struct sim *s, const struct simcfg *cfg)
{
	int i, k, nth = 0, ncn = 0, ti;

	s->ncpus = cfg->ncpus;
	for (i = 0; i < s->ncpus; i++) {
		struct cpu *c = &s->cpu[i];

		c->id = i;
		c->policy = i / cfg->policy_cpus;
		c->state = CPU_IDLE;
		c->cstate = 0;
		c->fidx = s->plat->np - 1;
		c->qos_us = -1;
		c->idle_avg = 1e6;
		c->sender_of = -1;
		c->coupled = cfg->coupled_lo >= 0 && i >= cfg->coupled_lo && i <= cfg->coupled_hi;
		c->rate = cpu_rate(s, c);
		cpu_repower(s, c);
	}
	s->npol = (s->ncpus + cfg->policy_cpus - 1) / cfg->policy_cpus;
	for (i = 0; i < s->npol; i++) {
		struct policy *p = &s->pol[i];

		p->id = i;
		p->cpu_lo = i * cfg->policy_cpus;
		p->cpu_hi = fmin2(p->cpu_lo + cfg->policy_cpus, s->ncpus) - 1;
		p->fidx = s->plat->np - 1;
		p->locked = cfg->perf_lo >= 0 && p->cpu_lo >= cfg->perf_lo && p->cpu_hi <= cfg->perf_hi;
	}
	s->ntargets = cfg->ntargets;
	for (ti = 0; ti < cfg->ntargets; ti++) {
		s->tgt[ti] = cfg->tgt[ti];
		for (k = 0; k < s->tgt[ti].nstages; k++) {
			nth += s->tgt[ti].st[k].nthreads;
			ncn += s->tgt[ti].st[k].nconns;
		}
	}
	s->th = calloc(nth, sizeof(*s->th));
	s->conn = calloc(ncn, sizeof(*s->conn));
	s->nthreads = nth;
	s->nconns = ncn;
	nth = ncn = 0;
	for (ti = 0; ti < s->ntargets; ti++) {
		struct target *t = &s->tgt[ti];

		t->id = ti;
		rng_seed(&t->wrng, cfg->seed, 100 + ti);
		rng_seed(&t->as.rng, cfg->seed, 200 + ti);
		rng_seed(&t->crng, cfg->seed, 300 + ti);
		t->as.t = 0;
		t->lat = hdr_new();
		t->srv_lat = hdr_new();
		t->b_arr = t->b_work = NULL;
		t->b_cpu = NULL;
		t->b_n = t->b_cap = 0;
		for (k = 0; k < t->nstages; k++) {
			struct stage *st = &t->st[k];

			st->first_thread = nth;
			st->first_conn = ncn;
			st->rr = 0;
			for (i = 0; i < st->nthreads; i++) {
				struct thread *th = &s->th[nth + i];
				int span = st->cpu_hi - st->cpu_lo + 1;

				th->id = nth + i;
				th->target = ti;
				th->stage = k;
				th->state = TH_WAIT;
				th->in_wait_return = true;
				th->cpu_lo = st->cpu_lo;
				th->cpu_hi = st->cpu_hi;
				th->cpu = st->cpu_lo + i % span;
				th->pin = st->pinned ? th->cpu : -1;
				th->ready_head = th->ready_tail = -1;
				th->conns = calloc(st->nconns, sizeof(int));
			}
			for (i = 0; i < st->nconns; i++) {
				struct thread *th = &s->th[nth + i % st->nthreads];

				s->conn[ncn + i].thread = th->id;
				th->conns[th->nconns++] = ncn + i;
			}
			nth += st->nthreads;
			ncn += st->nconns;
		}
		if (t->server > 0)
			s->cpu[t->st[0].cpu_lo].sender_of = ti;
		bpf_init(s, t);
	}
}

int sim_run(struct sim *s, const struct simcfg *cfg, const struct gov_ops *gov, int fixed)
{
	double t_end;
	int i;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->plat = &cfg->plat;
	s->gov = gov;
	s->fixed_fidx = fixed;
	s->t_meas0 = cfg->warm_s;
	s->t_meas1 = cfg->warm_s + cfg->dur_s;
	rng_seed(&s->bgrng, cfg->seed, 7);
	build(s, cfg);
	for (i = 0; i < s->ntargets; i++) {
		s->tgt[i].as.t = 0;
		ev_push(s, arrivals_next(&s->tgt[i].arr, &s->tgt[i].as), EV_ARRIVAL, i, 0);
		ev_push(s, cfg->window_s * (1 + 0.13 * i), EV_WINDOW, i, 0);
	}
	for (i = 0; i < s->ncpus; i++)
		bg_next(s, &s->cpu[i]);
	if (gov->sched_hook)
		ev_push(s, TICK_S, EV_TICK, 0, 0);
	gov->init(s);
	t_end = s->t_meas1 + DRAIN_MAX_S;
	ev_push(s, t_end, EV_STOP, 0, 0);

	while (s->nheap) {
		struct event e = ev_pop(s);
		struct cpu *c = &s->cpu[e.idx];
		bool drained = true;

		s->now = e.t;
		s->nevents++;
		switch (e.type) {
		case EV_ARRIVAL:
			arrival(s, &s->tgt[e.idx]);
			break;
		case EV_CPU_DONE:
			if (e.gen == c->gen)
				cpu_done(s, c);
			break;
		case EV_WAKE_DONE:
			if (e.gen == c->gen && c->state == CPU_WAKING)
				cpu_dispatch(s, c);
			break;
		case EV_BLOCK_DONE:
			if (e.gen == s->th[e.idx].gen && s->th[e.idx].state == TH_BLOCK)
				thread_wake(s, &s->th[e.idx]);
			break;
		case EV_PREEMPT:
			if (e.gen == c->pgen && c->state == CPU_RUN && c->cur && c->rq_len > 0) {
				if (s->now - c->cur->run_start >= s->cfg->slice_s - 1e-12)
					cpu_switch_out(s, c, true);
				cpu_arm_preempt(s, c);
			}
			break;
		case EV_WINDOW:
			bpf_window(s, &s->tgt[e.idx]);
			ev_push(s, s->now + cfg->window_s, EV_WINDOW, e.idx, 0);
			break;
		case EV_GOV_TIMER:
			if (e.gen == s->pol[e.idx].timer_gen && gov->timer)
				gov->timer(s, &s->pol[e.idx]);
			break;
		case EV_FREQ:
			if (e.gen == s->pol[e.idx].tgen)
				policy_set_fidx(s, &s->pol[e.idx], s->pol[e.idx].pending_fidx);
			break;
		case EV_TICK:
			tick(s);
			break;
		case EV_BG:
			cpu_kernel_work(s, c, cfg->bg_us * 1e-6);
			bg_next(s, c);
			break;
		case EV_STOP:
			s->nheap = 0;
			break;
		}
		if (s->now < s->t_meas1 || !s->nheap)
			continue;
		for (i = 0; i < s->ntargets; i++)
			drained &= s->tgt[i].n_done >= s->tgt[i].n_meas;
		if (drained)
			break;
	}
	if (getenv("SGSIM_DEBUG")) {
		for (i = 0; i < s->ncpus; i++)
			fprintf(stderr, "cpu%d state %d cstate %d cur %d rq %d kwork %g gen %llu\n", i,
				s->cpu[i].state, s->cpu[i].cstate, s->cpu[i].cur ? s->cpu[i].cur->id : -1,
				s->cpu[i].rq_len, s->cpu[i].kwork, (unsigned long long)s->cpu[i].gen);
		for (i = 0; i < s->nthreads; i++)
			fprintf(stderr, "th%d state %d cpu %d cur %p batch %p ready %d\n", i,
				s->th[i].state, s->th[i].cpu, (void *)s->th[i].cur,
				(void *)s->th[i].batch, s->th[i].ready_head);
	}
	/* energy up to the end of the measured interval */
	s->now = fmax2(s->now, s->t_meas1);
	for (i = 0; i < s->ncpus; i++) {
		cpu_account(s, &s->cpu[i]);
		if (cpu_governed(s, &s->cpu[i]))
			s->e_gov_j += s->cpu[i].e_meas_j;
	}
	if (gov->fini)
		gov->fini(s);
	return 0;
}

void sim_free(struct sim *s)
{
	struct req *r;
	int i;

	for (i = 0; i < s->ntargets; i++) {
		hdr_free(s->tgt[i].lat);
		hdr_free(s->tgt[i].srv_lat);
		bpf_free(&s->tgt[i]);
		free(s->tgt[i].b_arr);
		free(s->tgt[i].b_work);
		free(s->tgt[i].b_cpu);
	}
	for (i = 0; i < s->nthreads; i++)
		free(s->th[i].conns);
	free(s->th);
	free(s->conn);
	free(s->heap);
	while ((r = s->free_reqs)) {
		s->free_reqs = r->next;
		free(r);
	}
	/* requests still queued at the stop are not freed one by one: the process ends */
}
