// SPDX-License-Identifier: GPL-2.0
/*
 * bound.c - the dynamic lower bound: the least energy in which a
 * clairvoyant speed schedule finishes every request of the measured
 * interval within the SLO of its arrival.
 *
 * Per CPU (a pinned worker's requests) or per pool of CPUs (free workers,
 * their work spread evenly: a relaxation), with A(t) the work arrived by t
 * and D(t) the work due by t (deadline = arrival + SLO), the work done W(t)
 * must stay in A(t) >= W(t) >= D(t).  All deadlines are the arrivals
 * shifted by one SLO, so they are agreeable, and the schedule of least
 * energy under any convex power function is the taut string through that
 * tube (Yao, Demers, Shenker, FOCS 1995; the string for FIFO deadlines),
 * found here by a funnel walk in O(n).  Its power at speed s is the convex
 * hull of the ladder's busy power and the deepest C-state's (a CPU that
 * time-shares the P-states and idle), times the pool's CPUs.  No exit
 * latency, no transition cost, no stall: nothing an online governor could
 * do costs less while holding every request within the SLO.  One that
 * lets the SLO's 1 % through late can; the bound is for all of them.
 * Several targets on the same CPUs take the loosest SLO (a looser bound).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

struct pt {
	double t, w;
};

struct hull {
	int n;
	double x[SIM_MAX_PSTATES + 1], y[SIM_MAX_PSTATES + 1];
};

/* the lower convex hull of (0, idle) and the P-states' (f / fmax, P(f)) */
static void hull_build(const struct platform *p, struct hull *h)
{
	double px[SIM_MAX_PSTATES + 1], py[SIM_MAX_PSTATES + 1], idle = INFINITY;
	int i, k, n = 0;

	for (k = 0; k < p->nc; k++)
		idle = fmin2(idle, platform_idle_w(p, k, 0));
	px[n] = 0;
	py[n++] = idle + p->uncore_w;
	for (i = 0; i < p->np; i++) {
		px[n] = (double)p->khz[i] / p->khz[p->np - 1];
		py[n++] = p->busy_w[i] + p->uncore_w;
	}
	h->n = 0;
	for (i = 0; i < n; i++) {
		while (h->n >= 2) {
			double x1 = h->x[h->n - 2], y1 = h->y[h->n - 2];
			double x2 = h->x[h->n - 1], y2 = h->y[h->n - 1];

			/* drop the last point if it lies on or above the chord to the new one */
			if ((y2 - y1) * (px[i] - x1) >= (py[i] - y1) * (x2 - x1))
				h->n--;
			else
				break;
		}
		h->x[h->n] = px[i];
		h->y[h->n++] = py[i];
	}
}

/* power at speed @v (one CPU, fmax = 1); beyond fmax the last segment's slope */
static double hull_w(const struct hull *h, double v, bool *feasible)
{
	int i;

	if (v <= 0)
		return h->y[0];
	if (v > 1 + 1e-9)
		*feasible = false;
	for (i = 1; i < h->n - 1 && v > h->x[i]; i++)
		;
	return h->y[i - 1] + (v - h->x[i - 1]) * (h->y[i] - h->y[i - 1]) / (h->x[i] - h->x[i - 1]);
}

struct walk {
	const struct hull *h;
	int ncpu;
	double e;
	bool *feasible;
	struct pt apex;
	struct pt *uc, *lc;
	int uh, un, lh, ln;
};

static double slope(struct pt a, struct pt b)
{
	double dt = b.t - a.t;

	if (dt <= 1e-15)
		return b.w >= a.w ? INFINITY : -INFINITY;
	return (b.w - a.w) / dt;
}

static void emit(struct walk *w, struct pt q)
{
	double dt = q.t - w->apex.t;

	if (dt > 0)
		w->e += dt * w->ncpu * hull_w(w->h, (q.w - w->apex.w) / dt / w->ncpu, w->feasible);
	else if (q.w > w->apex.w + 1e-12)
		*w->feasible = false;
	w->apex = q;
}

/* the string must pass at or below @p */
static void upper(struct walk *w, struct pt p)
{
	bool moved = false;

	while (w->lh < w->ln && slope(w->apex, p) <= slope(w->apex, w->lc[w->lh])) {
		emit(w, w->lc[w->lh++]);
		moved = true;
	}
	if (moved) {
		w->uh = w->un = 0;
	} else {
		while (w->un > w->uh) {
			struct pt prev = w->un - w->uh >= 2 ? w->uc[w->un - 2] : w->apex;

			if (slope(prev, w->uc[w->un - 1]) >= slope(prev, p))
				w->un--;
			else
				break;
		}
	}
	w->uc[w->un++] = p;
}

/* the string must pass at or above @q */
static void lower(struct walk *w, struct pt q)
{
	bool moved = false;

	while (w->uh < w->un && slope(w->apex, q) >= slope(w->apex, w->uc[w->uh])) {
		emit(w, w->uc[w->uh++]);
		moved = true;
	}
	if (moved) {
		w->lh = w->ln = 0;
	} else {
		while (w->ln > w->lh) {
			struct pt prev = w->ln - w->lh >= 2 ? w->lc[w->ln - 2] : w->apex;

			if (slope(prev, w->lc[w->ln - 1]) <= slope(prev, q))
				w->ln--;
			else
				break;
		}
	}
	w->lc[w->ln++] = q;
}

/* the taut string's energy for requests @arr / @work (sorted by arrival) on @ncpu CPUs */
static double string_energy(const struct hull *h, int ncpu, const double *arr,
			    const double *work, size_t n, double slo, bool *feasible)
{
	struct walk w = { .h = h, .ncpu = ncpu, .feasible = feasible };
	double a = 0, d = 0;
	size_t i = 0, j = 0;
	struct pt end;

	if (!n)
		return 0;
	w.uc = malloc((2 * n + 2) * sizeof(struct pt));
	w.lc = malloc((2 * n + 2) * sizeof(struct pt));
	w.apex = (struct pt){ arr[0], 0 };
	/* in time order: upper corners (a_i, work arrived before i), lower ones (a_j + slo, due by then) */
	while (j < n) {
		if (i < n && arr[i] <= arr[j] + slo) {
			upper(&w, (struct pt){ arr[i], a });
			a += work[i++];
		} else {
			d += work[j];
			lower(&w, (struct pt){ arr[j] + slo, d });
			j++;
		}
	}
	end = (struct pt){ arr[n - 1] + slo, d };
	upper(&w, end);
	if (w.apex.t < end.t)
		emit(&w, end);
	free(w.uc);
	free(w.lc);
	return w.e;
}

struct job {
	double arr, work;
	int group;
};

static int job_cmp(const void *a, const void *b)
{
	const struct job *x = a, *y = b;

	if (x->group != y->group)
		return x->group - y->group;
	return x->arr < y->arr ? -1 : x->arr > y->arr;
}

/*
 * The bound over the measured interval, J: every target's measured
 * requests, grouped by the CPU of their pinned worker (or one pool of the
 * free workers' CPUs), each group's string from its first arrival to its
 * last deadline, less the idle power of the part past the measured
 * interval's length.
 */
double bound_energy_j(const struct sim *s, bool *feasible)
{
	const struct simcfg *cfg = s->cfg;
	struct hull h;
	struct job *jobs;
	size_t n = 0, i, k;
	double slo = 0, e = 0, *arr, *work;
	int ti, pool = 0, lo = SIM_MAX_CPUS, hi = -1;

	*feasible = true;
	hull_build(s->plat, &h);
	for (ti = 0; ti < s->ntargets; ti++) {
		const struct target *t = &s->tgt[ti];
		const struct stage *st = &t->st[t->server];

		n += t->b_n;
		slo = fmax2(slo, t->slo_us * 1e-6);
		if (!st->pinned)
			pool = 1;
		lo = st->cpu_lo < lo ? st->cpu_lo : lo;
		hi = st->cpu_hi > hi ? st->cpu_hi : hi;
	}
	if (!n || slo <= 0)
		return 0;
	jobs = malloc(n * sizeof(*jobs));
	for (ti = 0, k = 0; ti < s->ntargets; ti++) {
		const struct target *t = &s->tgt[ti];

		for (i = 0; i < t->b_n; i++, k++) {
			jobs[k].arr = t->b_arr[i];
			jobs[k].work = t->b_work[i];
			jobs[k].group = pool ? -1 : t->b_cpu[i];
		}
	}
	qsort(jobs, n, sizeof(*jobs), job_cmp);
	arr = malloc(n * sizeof(double));
	work = malloc(n * sizeof(double));
	for (i = 0; i < n; ) {
		size_t j = i, m;
		int ncpu = pool ? hi - lo + 1 : 1;
		double span;

		while (j < n && jobs[j].group == jobs[i].group)
			j++;
		m = j - i;
		for (k = 0; k < m; k++) {
			arr[k] = jobs[i + k].arr;
			work[k] = jobs[i + k].work;
		}
		e += string_energy(&h, ncpu, arr, work, m, slo, feasible);
		span = arr[m - 1] + slo - arr[0];
		if (span > cfg->dur_s)
			e -= (span - cfg->dur_s) * ncpu * h.y[0];
		i = j;
	}
	/* CPUs of the range with no request idle throughout */
	if (!pool) {
		int groups = 0;

		for (i = 0; i < n; i++)
			groups += !i || jobs[i].group != jobs[i - 1].group;
		e += (hi - lo + 1 - groups) * cfg->dur_s * h.y[0];
	}
	free(arr);
	free(work);
	free(jobs);
	return e;
}
