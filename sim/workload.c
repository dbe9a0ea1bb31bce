// SPDX-License-Identifier: GPL-2.0
/*
 * workload.c - the random numbers, the per-request work distributions and
 * the arrival processes: everything a cell draws, from streams of its own
 * seed, so that every governor of a cell meets the same requests.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

/* ---- random numbers: splitmix64, one stream per purpose --------------------------- */

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	r->s = seed * 0x9e3779b97f4a7c15ULL ^ (stream + 1) * 0xbf58476d1ce4e5b9ULL;
	rng_u64(r);
}

uint64_t rng_u64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in (0, 1]: never 0, so that -log(u) is finite */
double rng_unit(struct rng *r)
{
	return ((rng_u64(r) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

double rng_exp(struct rng *r, double mean)
{
	return -log(rng_unit(r)) * mean;
}

/* Box-Muller, one of the pair */
double rng_normal(struct rng *r)
{
	double u = rng_unit(r), v = rng_unit(r);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* ---- files of numbers ------------------------------------------------------------- */

/* one number a line ('#' comments); returns the count, -1 on error */
static int read_numbers(const char *path, double **out)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int n = 0, cap = 0;
	double *v = NULL;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *end;
		double x = strtod(line, &end);

		if (end == line)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			v = realloc(v, cap * sizeof(*v));
			if (!v) {
				fclose(f);
				return -1;
			}
		}
		v[n++] = x;
	}
	fclose(f);
	*out = v;
	return n;
}

/* ---- work distributions ------------------------------------------------------------- */

/*
 * det:M, exp:M, bimodal:M1,M2,P2 (M2 with probability P2), lognormal:M,S
 * (mean M, sigma S of the log), pareto:M,A (mean M, shape A > 1; drawn
 * values capped at 1000 M), trace:FILE (one value a line, cycled).  us.
 */
int dist_parse(struct dist *d, const char *spec, char *err, size_t errsz)
{
	const char *arg = strchr(spec, ':');
	double v[3] = { 0, 0, 0 };
	int n = 0;

	memset(d, 0, sizeof(*d));
	if (!arg) {
		snprintf(err, errsz, "distribution '%s': KIND:ARGS", spec);
		return -EINVAL;
	}
	arg++;
	if (!strncmp(spec, "trace:", 6)) {
		d->kind = D_TRACE;
		d->ntrace = read_numbers(arg, &d->trace);
		if (d->ntrace <= 0) {
			snprintf(err, errsz, "trace '%s': cannot read numbers", arg);
			return -EINVAL;
		}
		for (n = 0; n < d->ntrace; n++)
			d->mean += d->trace[n] / d->ntrace;
		return 0;
	}
	n = sscanf(arg, "%lf,%lf,%lf", &v[0], &v[1], &v[2]);
	if (!strncmp(spec, "det:", 4) && n == 1) {
		d->kind = D_DET;
		d->mean = v[0];
	} else if (!strncmp(spec, "exp:", 4) && n == 1) {
		d->kind = D_EXP;
		d->mean = v[0];
	} else if (!strncmp(spec, "bimodal:", 8) && n == 3 && v[2] >= 0 && v[2] <= 1) {
		d->kind = D_BIMODAL;
		d->a = v[0];
		d->b = v[1];
		d->p = v[2];
		d->mean = (1 - v[2]) * v[0] + v[2] * v[1];
	} else if (!strncmp(spec, "lognormal:", 10) && n == 2 && v[1] >= 0) {
		d->kind = D_LOGNORMAL;
		d->mean = v[0];
		d->b = v[1];
		d->a = log(v[0]) - v[1] * v[1] / 2;
	} else if (!strncmp(spec, "pareto:", 7) && n == 2 && v[1] > 1) {
		d->kind = D_PARETO;
		d->mean = v[0];
		d->b = v[1];
		d->a = v[0] * (v[1] - 1) / v[1];	/* x_m */
	} else {
		snprintf(err, errsz, "distribution '%s' not understood", spec);
		return -EINVAL;
	}
	if (d->mean < 0) {
		snprintf(err, errsz, "distribution '%s': negative mean", spec);
		return -EINVAL;
	}
	return 0;
}

double dist_draw(const struct dist *d, struct rng *r, uint64_t *pos)
{
	double x;

	switch (d->kind) {
	case D_DET:
		return d->mean;
	case D_EXP:
		return rng_exp(r, d->mean);
	case D_BIMODAL:
		return rng_unit(r) <= d->p ? d->b : d->a;
	case D_LOGNORMAL:
		return exp(d->a + d->b * rng_normal(r));
	case D_PARETO:
		x = d->a / pow(rng_unit(r), 1 / d->b);
		return fmin2(x, 1000 * d->mean);
	case D_TRACE:
		return d->trace[(*pos)++ % d->ntrace];
	}
	return d->mean;
}

/* ---- arrival processes ----------------------------------------------------------------- */

/*
 * poisson; mmpp:ON,OFF,ON_MS,OFF_MS (rate multipliers in the two states and
 * their mean sojourns, normalised so that the mean rate is the cell's);
 * ramp:L1,L2,...:STEP_S (loads, shares of the capacity, STEP_S each,
 * cycled: the cell's load is then 1); diurnal:PERIOD_S,AMP (the rate times
 * 1 + AMP sin(2 pi t / PERIOD)); replay:FILE (arrival times, s, one a line:
 * their gaps, scaled to the cell's mean rate, cycled).
 */
int arrivals_parse(struct arrivals *a, const char *spec, char *err, size_t errsz)
{
	memset(a, 0, sizeof(*a));
	if (!strcmp(spec, "poisson")) {
		a->kind = A_POISSON;
	} else if (!strncmp(spec, "mmpp:", 5)) {
		double on_ms, off_ms, norm;

		a->kind = A_MMPP;
		if (sscanf(spec + 5, "%lf,%lf,%lf,%lf", &a->on_mult, &a->off_mult, &on_ms,
			   &off_ms) != 4 || on_ms <= 0 || off_ms <= 0) {
			snprintf(err, errsz, "'%s': mmpp:ON,OFF,ON_MS,OFF_MS", spec);
			return -EINVAL;
		}
		a->on_s = on_ms / 1000;
		a->off_s = off_ms / 1000;
		norm = (a->on_s * a->on_mult + a->off_s * a->off_mult) / (a->on_s + a->off_s);
		a->on_mult /= norm;
		a->off_mult /= norm;
	} else if (!strncmp(spec, "ramp:", 5)) {
		const char *p = spec + 5, *colon = strrchr(spec, ':');

		a->kind = A_RAMP;
		while (p < colon && a->nsteps < 32) {
			a->steps[a->nsteps++] = strtod(p, (char **)&p);
			if (*p == ',')
				p++;
			else
				break;
		}
		a->step_s = strtod(colon + 1, NULL);
		if (!a->nsteps || a->step_s <= 0) {
			snprintf(err, errsz, "'%s': ramp:L1,L2,...:STEP_S", spec);
			return -EINVAL;
		}
	} else if (!strncmp(spec, "diurnal:", 8)) {
		a->kind = A_DIURNAL;
		if (sscanf(spec + 8, "%lf,%lf", &a->period_s, &a->amp) != 2 || a->period_s <= 0 ||
		    a->amp < 0 || a->amp > 1) {
			snprintf(err, errsz, "'%s': diurnal:PERIOD_S,AMP (0..1)", spec);
			return -EINVAL;
		}
	} else if (!strncmp(spec, "replay:", 7)) {
		double *t;
		int n = read_numbers(spec + 7, &t), i;

		a->kind = A_REPLAY;
		if (n < 2) {
			snprintf(err, errsz, "'%s': cannot read two arrival times", spec + 7);
			return -EINVAL;
		}
		a->gaps = malloc((n - 1) * sizeof(double));
		for (i = 1; i < n; i++)
			a->gaps[i - 1] = fmax2(t[i] - t[i - 1], 0);
		a->ngaps = n - 1;
		a->gap_mean = fmax2((t[n - 1] - t[0]) / (n - 1), 1e-12);
		free(t);
	} else {
		snprintf(err, errsz, "arrivals '%s' not understood", spec);
		return -EINVAL;
	}
	return 0;
}

/* the mean rate: the cell's load times its capacity (ramp: the capacity) */
void arrivals_scale(struct arrivals *a, double rate)
{
	a->rate = rate;
}

/* the rate's multiplier at time @t (ramp and diurnal; 1 for the others) */
double arrivals_mult_at(const struct arrivals *a, double t)
{
	switch (a->kind) {
	case A_RAMP:
		return a->steps[(uint64_t)(t / a->step_s) % a->nsteps];
	case A_DIURNAL:
		return 1 + a->amp * sin(2 * M_PI * t / a->period_s);
	default:
		return 1;
	}
}

/* the next arrival after st->t */
double arrivals_next(const struct arrivals *a, struct arr_state *st)
{
	double t = st->t, r, next;

	switch (a->kind) {
	case A_POISSON:
		st->t = t + rng_exp(&st->rng, 1 / a->rate);
		return st->t;
	case A_MMPP:
		for (;;) {
			if (!st->switch_t)
				st->switch_t = rng_exp(&st->rng, st->on ? a->on_s : a->off_s);
			r = a->rate * (st->on ? a->on_mult : a->off_mult);
			next = r > 0 ? t + rng_exp(&st->rng, 1 / r) : st->switch_t + 1;
			if (next < st->switch_t)
				return st->t = next;
			/* memoryless: start again from the state change */
			t = st->switch_t;
			st->on = !st->on;
			st->switch_t = t + rng_exp(&st->rng, st->on ? a->on_s : a->off_s);
		}
	case A_RAMP:
		for (;;) {
			double end = (floor(t / a->step_s + 1e-12) + 1) * a->step_s;

			r = a->rate * arrivals_mult_at(a, t + 1e-12);
			next = r > 0 ? t + rng_exp(&st->rng, 1 / r) : end + 1;
			if (next < end)
				return st->t = next;
			t = end;
		}
	case A_DIURNAL:
		/* thinning under the peak rate */
		r = a->rate * (1 + a->amp);
		for (;;) {
			t += rng_exp(&st->rng, 1 / r);
			if (rng_unit(&st->rng) * r <= a->rate * arrivals_mult_at(a, t))
				return st->t = t;
		}
	case A_REPLAY:
		next = a->gaps[st->pos++ % a->ngaps] / (a->gap_mean * a->rate);
		return st->t = t + next;
	}
	return st->t = t + 1;
}
