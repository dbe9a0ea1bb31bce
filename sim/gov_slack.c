// SPDX-License-Identifier: GPL-2.0
/*
 * gov_slack.c - the slack governor around kmod/control.c, which is linked
 * unchanged: what kmod/kfunc.c does with a sample (sg_store(): a slot per
 * CPU named, up to SG_CPU_SLOTS targets per CPU, the least recently
 * reported replaced; the target's K kept across restarts) and what
 * kmod/governor.c does with a decision (sg_collect(), the utilization rule's
 * load, sg_law_step(), the rate limit, urgent changes, the
 * stale/rate-limit timer, the idle constraint), one policy at a time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control.h"
#include "sim.h"

/* kmod/sg.h, kmod/governor.c */
#define SG_CPU_SLOTS		4
#define SG_UTIL_MIN_NS		(2 * NSEC_PER_MSEC)
#define SG_UTIL_RECHECK_NS	(100 * NSEC_PER_MSEC)
#define SG_STALE_MARGIN_NS	NSEC_PER_USEC

struct sl_cpu {
	struct sg_obs obs[SG_CPU_SLOTS];
	double prev_busy, prev_wall;
	bool measured;
};

struct sl_pol {
	struct sg_law law;
	u64 last_sample_ns, last_exit_ns, last_change_ns, hook_ns;
};

struct sl_state {
	struct sl_cpu cpu[SIM_MAX_CPUS];
	struct sl_pol pol[SIM_MAX_CPUS];
	struct sg_k_mem kmem[SLACKGOV_MAX_TARGETS];
	u64 feed_ns;		/* sg_feed_ns of kfunc.c */
	bool trace;
};

static u64 now_ns(const struct sim *s)
{
	return (u64)llround(s->now * 1e9);
}

/* sg_params(): the knobs as the law reads them */
static void sl_params(const struct sim *s, struct sg_law_params *p)
{
	const struct slack_knobs *k = &s->cfg->knobs;

	p->setpoint = k->setpoint;
	p->kp = k->kp;
	p->ki = k->ki;
	p->kd = k->kd;
	p->deadband = k->deadband;
	p->sat_cv = k->sat_cv;
	p->ff_gain = k->ff_gain;
	p->slo_margin = k->slo_margin;
	p->slo_gain = k->slo_gain;
	p->safe_khz = k->safe_khz;
	p->stale_ns = (u64)k->stale_ms * NSEC_PER_MSEC;
}

/* sg_limits_of() */
static void sl_limits(const struct sim *s, const struct policy *pol, struct sg_limits *lim)
{
	u32 lo = s->plat->khz[0], hi = s->plat->khz[s->plat->np - 1];

	lim->min = lo;
	lim->max = hi;
	lim->cur = policy_cur_khz(s, pol);
	lim->hw_max = hi;
	lim->span = hi > lo ? hi - lo : hi;
}

static u64 sl_rate_ns(const struct sim *s)
{
	u32 us = s->cfg->knobs.rate_limit_us ? s->cfg->knobs.rate_limit_us :
					       (u32)s->plat->rate_limit_us;

	return (u64)us * NSEC_PER_USEC;
}

/* sg_collect(): every slot of the policy's CPUs into the law; each CPU's idle constraint */
static void sl_collect(struct sim *s, struct sl_state *g, struct policy *pol,
		       const struct sg_law_params *p, const struct sg_limits *lim, u64 now,
		       struct sg_ctl_in *in)
{
	const struct slack_knobs *k = &s->cfg->knobs;
	int cpu, i;

	sg_ctl_begin(in);
	for (cpu = pol->cpu_lo; cpu <= pol->cpu_hi; cpu++) {
		struct sl_cpu *c = &g->cpu[cpu];
		u32 cpu_min = U32_MAX;

		for (i = 0; i < SG_CPU_SLOTS; i++) {
			sg_ctl_add(in, &c->obs[i], p, lim, now);
			if (sg_obs_fresh(&c->obs[i], now, p->stale_ns) &&
			    c->obs[i].slack_f < cpu_min)
				cpu_min = c->obs[i].slack_f;
		}
		if (cpu_min == U32_MAX || !k->qos)
			continue;
		if (cpu_min < k->idle_tight_slack)
			cpu_set_qos(s, &s->cpu[cpu], k->idle_latency_us);
		else if (cpu_min > k->idle_relax_slack)
			cpu_set_qos(s, &s->cpu[cpu], -1);
	}
}

/* sg_util_load(): the busiest CPU's busy share since the previous util step */
static u32 sl_util_load(struct sim *s, struct sl_state *g, struct policy *pol)
{
	u32 load = U32_MAX;
	int cpu;

	for (cpu = pol->cpu_lo; cpu <= pol->cpu_hi; cpu++) {
		struct sl_cpu *c = &g->cpu[cpu];
		double busy = cpu_busy_s(s, &s->cpu[cpu]), dw = s->now - c->prev_wall;
		double db = busy - c->prev_busy;
		u32 l;

		if (c->measured && dw < SG_UTIL_MIN_NS * 1e-9)
			continue;
		c->prev_wall = s->now;
		c->prev_busy = busy;
		if (!c->measured) {
			c->measured = true;
			continue;
		}
		l = dw > 0 ? (u32)fmin2(db / dw * SLACKGOV_ONE, SLACKGOV_ONE) : 0;
		load = load == U32_MAX ? l : (l > load ? l : load);
	}
	return load;
}

/* sg_update(): one decision for @pol, applied now or after the rate limit */
static void sl_update(struct sim *s, struct policy *pol)
{
	struct sl_state *g = s->govstate;
	struct sl_pol *sp = &g->pol[pol->id];
	u64 now = now_ns(s), next = 0, rate = sl_rate_ns(s);
	u64 hold = (u64)SG_SAFE_HOLD_MS * NSEC_PER_MSEC;
	struct sg_signal sig = { .now = now, .last_ns = sp->last_sample_ns,
				 .exit_ns = sp->last_exit_ns, .feed_ns = g->feed_ns };
	struct sg_law_params p;
	struct sg_limits lim;
	struct sg_ctl_out out;
	struct sg_ctl_in in;
	u32 load = 0;
	int fidx;

	sl_params(s, &p);
	sl_limits(s, pol, &lim);
	sl_collect(s, g, pol, &p, &lim, now, &in);
	if (sg_law_mode(&sp->law, &in, &sig, &p) == SG_MODE_UTIL)
		load = sl_util_load(s, g, pol);
	sg_law_step(&sp->law, &in, &sig, &p, &lim, load, &out);
	switch (out.mode) {
	case SG_MODE_SAFE:
		next = sig.last_ns + p.stale_ns + hold;
		break;
	case SG_MODE_UTIL:
		if (out.freq > lim.min)
			next = now + SG_UTIL_RECHECK_NS;
		break;
	default:
		if (out.entered_boost && s->now >= s->t_meas0 && s->now < s->t_meas1)
			s->boosts++;
		next = in.newest_ns + p.stale_ns + SG_STALE_MARGIN_NS;
		break;
	}
	if (s->now >= s->t_meas0 && s->now < s->t_meas1)
		s->decisions++;
	if (g->trace)
		fprintf(stderr, "%.3f pol %d mode %s reason %s f_need %llu u %lld freq %u cur %u "
			"L %u W %llu K %u lat_q %u nr %u over %u q %u\n", s->now, pol->id,
			sg_mode_names[out.mode], sg_reason_names[out.reason],
			(unsigned long long)out.f_need, (long long)out.u, out.freq, lim.cur,
			in.lead.load_f, (unsigned long long)in.lead.work_f, sg_obs_k_milli(&in.lead),
			in.lead.lat_q_us, in.lead.nr_lat, in.lead.nr_over, in.lead.queue_us);
	fidx = platform_index(s->plat, out.freq, REL_L);
	if (out.freq && fidx != pol->fidx) {
		if (!out.urgent && sp->last_change_ns && now - sp->last_change_ns < rate) {
			u64 at = sp->last_change_ns + rate;

			next = next ? (next < at ? next : at) : at;
		} else {
			policy_request(s, pol, fidx, out.urgent);
			sp->last_change_ns = now;
		}
	}
	if (next)
		policy_timer(s, pol, fmax2(next * 1e-9, s->now + 1e-9));
}

static void sl_init(struct sim *s)
{
	static struct sl_state st;
	int i;

	memset(&st, 0, sizeof(st));
	s->govstate = &st;
	st.trace = getenv("SGSIM_TRACE") != NULL;
	for (i = 0; i < s->npol; i++) {
		struct sl_pol *sp = &st.pol[i];

		sp->law.mode = SG_MODE_UTIL;
		sg_law_reset(&sp->law, policy_cur_khz(s, &s->pol[i]));
	}
	for (i = 0; i < s->ncpus; i++) {
		st.cpu[i].prev_wall = 0;
		st.cpu[i].prev_busy = 0;
	}
	for (i = 0; i < s->npol; i++)
		sl_update(s, &s->pol[i]);
}

/* sg_store(): the sample into CPU @cpu's slot of its target; the budget T */
static u32 sl_store(struct sim *s, struct sl_state *g, int cpu, const struct slackgov_sample *smp,
		    u64 now)
{
	struct sl_cpu *c = &g->cpu[cpu];
	struct sg_obs *o, *victim = NULL;
	struct sg_law_params p;
	struct sg_limits lim;
	bool restarted;
	int i;

	sl_params(s, &p);
	sl_limits(s, &s->pol[s->cpu[cpu].policy], &lim);
	for (i = 0; i < SG_CPU_SLOTS; i++) {
		o = &c->obs[i];
		if (o->stamp_ns && o->target == smp->target) {
			victim = o;
			break;
		}
		if (!victim || o->stamp_ns < victim->stamp_ns)
			victim = o;
	}
	restarted = sg_obs_update(victim, smp, now, &lim, &p);
	sg_obs_k_keep(victim, smp, now, restarted, &g->kmem[smp->target]);
	return sg_obs_budget_us(victim, p.slo_margin);
}

/* slackgov_report(): store for every named CPU, kick each policy once */
static uint32_t sl_report(struct sim *s, const void *sample)
{
	const struct slackgov_sample *smp = sample;
	struct sl_state *g = s->govstate;
	u64 now = now_ns(s);
	int cpu, kicked = -1, first = -1;
	u32 budget = 0, b;
	bool any = false;

	for (cpu = 0; cpu < s->ncpus; cpu++) {
		struct sl_pol *sp;
		int pi;

		if (!(smp->cpus[cpu / 64] & (1ULL << (cpu % 64))))
			continue;
		if (first < 0)
			first = cpu;
		pi = s->cpu[cpu].policy;
		sp = &g->pol[pi];
		b = sl_store(s, g, cpu, smp, now);
		if (!any)
			budget = b;
		sp->last_sample_ns = now;
		if (smp->flags & SLACKGOV_SAMPLE_EXITED)
			sp->last_exit_ns = now;
		g->feed_ns = now;	/* the kfunc writes it after its loop, before the irq_work */
		any = true;
		if (pi != kicked) {
			kicked = pi;
			/* the policy's irq_work runs on the closing CPU */
			cpu_kernel_work(s, &s->cpu[s->closer_cpu >= 0 ? s->closer_cpu : first],
					s->cfg->decide_us * 1e-6);
			sl_update(s, &s->pol[pi]);
		}
	}
	return budget;
}

static void sl_timer(struct sim *s, struct policy *pol)
{
	sl_update(s, pol);
}

/* sg_update_util(): the scheduler hook paces the utilization rule only */
static void sl_hook(struct sim *s, struct cpu *c)
{
	struct sl_state *g = s->govstate;
	struct sl_pol *sp = &g->pol[c->policy];
	u64 now = now_ns(s), gap = sl_rate_ns(s);

	if (gap < SG_UTIL_MIN_NS)
		gap = SG_UTIL_MIN_NS;
	if (sp->law.mode != SG_MODE_UTIL || (s64)(now - sp->hook_ns) < (s64)gap)
		return;
	sp->hook_ns = now;
	sl_update(s, &s->pol[c->policy]);
}

const struct gov_ops gov_slack = {
	.name = "slack",
	.init = sl_init,
	.sched_hook = sl_hook,
	.timer = sl_timer,
	.report = sl_report,
};
