// SPDX-License-Identifier: GPL-2.0
/*
 * gov_peers.c - the governors slack is compared with, on the same event
 * stream: performance, powersave, a fixed P-state (userspace: the static
 * oracle's cells), schedutil (Linux 6.1's sugov: its formula, rate limit,
 * the busy CPU's held frequency, PELT utilization, invariant or not as the
 * platform is) and ondemand (6.1's od_update(): max above up_threshold,
 * else proportional to the load, at its sampling rate).
 */
#include <math.h>
#include <string.h>
#include "sim.h"

/* ---- fixed frequencies ----------------------------------------------------------- */

static void all_at(struct sim *s, int fidx)
{
	int i;

	for (i = 0; i < s->npol; i++)
		policy_request(s, &s->pol[i], fidx, true);
}

static void perf_init(struct sim *s)
{
	all_at(s, s->plat->np - 1);
}

static void psave_init(struct sim *s)
{
	all_at(s, 0);
}

static void fixed_init(struct sim *s)
{
	all_at(s, s->fixed_fidx);
}

const struct gov_ops gov_performance = { .name = "performance", .init = perf_init };
const struct gov_ops gov_powersave = { .name = "powersave", .init = psave_init };
const struct gov_ops gov_fixed = { .name = "fixed", .init = fixed_init };

/* ---- schedutil --------------------------------------------------------------------- */

/* map_util_freq()'s 1.25: the tipping point at util / max = 0.8 */
#define SU_C		1.25

struct su_pol {
	double last_update;	/* last_freq_update_time (0: never) */
	int next_fidx;
	uint64_t saved_idle_calls[SIM_MAX_CPUS];
};

static struct su_pol su_pols[SIM_MAX_CPUS];

static void su_init(struct sim *s)
{
	int i;

	memset(su_pols, 0, sizeof(su_pols));
	for (i = 0; i < s->npol; i++) {
		su_pols[i].next_fidx = s->pol[i].fidx;
		su_pols[i].last_update = -1;
	}
}

/* the CPU's utilization as sugov_get_util() reads it, 0..1 */
static double su_util(struct sim *s, struct cpu *c)
{
	pelt_update(s, c);
	return s->plat->invariant ? c->pelt_inv : c->pelt;
}

static void su_hook(struct sim *s, struct cpu *c)
{
	struct policy *p = &s->pol[c->policy];
	struct su_pol *sp = &su_pols[p->id];
	double util = 0, base, f;
	int j, fidx;

	/* sugov_should_update_freq(): the rate limit */
	if (sp->last_update >= 0 && s->now - sp->last_update < s->plat->rate_limit_us * 1e-6)
		return;
	for (j = p->cpu_lo; j <= p->cpu_hi; j++)
		util = fmax2(util, su_util(s, &s->cpu[j]));
	/* get_next_freq(): cpuinfo max if invariant, else the current frequency */
	base = s->plat->invariant ? s->plat->khz[s->plat->np - 1] : policy_cur_khz(s, p);
	f = SU_C * base * util;
	fidx = platform_index(s->plat, (uint32_t)fmin2(f, 4e9), REL_L);
	if (p->cpu_lo == p->cpu_hi) {
		/* sugov_update_single_freq(): a CPU not idle since the last look keeps its frequency */
		bool busy = c->idle_calls == sp->saved_idle_calls[c->id];

		sp->saved_idle_calls[c->id] = c->idle_calls;
		if (busy && fidx < sp->next_fidx)
			fidx = sp->next_fidx;
	}
	/* sugov_update_next_freq(): only a change counts as an update */
	if (fidx == sp->next_fidx)
		return;
	sp->next_fidx = fidx;
	sp->last_update = s->now;
	policy_request(s, p, fidx, false);
}

const struct gov_ops gov_schedutil = {
	.name = "schedutil", .init = su_init, .sched_hook = su_hook,
};

/* ---- ondemand ---------------------------------------------------------------------- */

/* with NOHZ idle accounting od_init() picks MICRO_FREQUENCY_UP_THRESHOLD */
#define OD_UP_THRESHOLD	95

struct od_pol {
	double last_sample;
	double prev_busy[SIM_MAX_CPUS], prev_wall[SIM_MAX_CPUS];
};

static struct od_pol od_pols[SIM_MAX_CPUS];

static void od_init(struct sim *s)
{
	memset(od_pols, 0, sizeof(od_pols));
}

/* dbs_update() at the sampling rate, from the scheduler's hooks (an idle CPU is not sampled) */
static void od_hook(struct sim *s, struct cpu *c)
{
	struct policy *p = &s->pol[c->policy];
	struct od_pol *op = &od_pols[p->id];
	double load = 0;
	int j, fidx;

	if (s->now - op->last_sample < s->plat->rate_limit_us * 1e-6)
		return;
	op->last_sample = s->now;
	for (j = p->cpu_lo; j <= p->cpu_hi; j++) {
		double busy = cpu_busy_s(s, &s->cpu[j]), dw = s->now - op->prev_wall[j];

		if (dw > 0)
			load = fmax2(load, 100 * (busy - op->prev_busy[j]) / dw);
		op->prev_busy[j] = busy;
		op->prev_wall[j] = s->now;
	}
	if (load > OD_UP_THRESHOLD) {
		fidx = s->plat->np - 1;
	} else {
		double lo = s->plat->khz[0], hi = s->plat->khz[s->plat->np - 1];

		fidx = platform_index(s->plat, (uint32_t)(lo + load * (hi - lo) / 100), REL_C);
	}
	policy_request(s, p, fidx, false);
}

const struct gov_ops gov_ondemand = {
	.name = "ondemand", .init = od_init, .sched_hook = od_hook,
};
