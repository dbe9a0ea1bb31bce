// SPDX-License-Identifier: GPL-2.0
/*
 * cell.c - a cell from its one-line spec (a line of a file in sim/cells/): the machine's
 * settings, then '|' and each target's.  Every key is KEY=VALUE; the keys,
 * their units and defaults are in Documentation/simulation.rst.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <slackgov.h>
#include "sim.h"

/* the module's knob defaults, from the list it builds them from */
void knobs_default(struct slack_knobs *k)
{
#define KDEF(name, def, lo, hi, unit)	k->name = def;
	SLACKGOV_GOV_KNOBS(KDEF)
#undef KDEF
	k->qos = true;
}

static int knob_set(struct slack_knobs *k, const char *name, double v)
{
#define KSET(kn, def, lo, hi, unit)					\
	if (!strcmp(name, #kn)) {					\
		if (v < lo || v > hi)					\
			return -ERANGE;					\
		k->kn = (uint32_t)v;					\
		return 0;						\
	}
	SLACKGOV_GOV_KNOBS(KSET)
#undef KSET
	if (!strcmp(name, "qos")) {
		k->qos = v != 0;
		return 0;
	}
	return -EINVAL;
}

static int range(const char *v, int *lo, int *hi)
{
	if (sscanf(v, "%d-%d", lo, hi) == 2)
		return *lo <= *hi ? 0 : -EINVAL;
	if (sscanf(v, "%d", lo) == 1) {
		*hi = *lo;
		return 0;
	}
	return -EINVAL;
}

struct tspec {
	int workers, conns, lo, hi, pinned, thread_shape;
	char work[256], stall[256], block[256], post[256], arr[256], csend[64], crecv[64],
	     cdelay[64];
	double load, rate, skew, cap;
	int client_cpu;
	uint32_t slo, q, margin;
};

static int target_build(struct simcfg *cfg, struct target *t, struct tspec *ts, char *err,
			size_t errsz)
{
	struct stage *srv;
	double per, cap;
	int k = 0, ret, i;

	memset(t, 0, sizeof(*t));
	if (ts->client_cpu >= 0) {
		struct stage *st = &t->st[k++];

		st->nthreads = st->nconns = 1;
		st->cpu_lo = st->cpu_hi = ts->client_cpu;
		st->pinned = true;
		if ((ret = dist_parse(&st->work, ts->csend, err, errsz)))
			return ret;
	}
	t->server = k;
	srv = &t->st[k++];
	if (ts->thread_shape)
		ts->workers = ts->conns;
	srv->nthreads = ts->workers;
	srv->nconns = ts->conns;
	srv->cpu_lo = ts->lo;
	srv->cpu_hi = ts->hi;
	srv->pinned = ts->pinned;
	if ((ret = dist_parse(&srv->work, ts->work, err, errsz)))
		return ret;
	if (ts->stall[0]) {
		srv->has_stall = true;
		if ((ret = dist_parse(&srv->stall, ts->stall, err, errsz)))
			return ret;
	}
	if (ts->block[0]) {
		srv->has_block = true;
		if ((ret = dist_parse(&srv->block, ts->block, err, errsz)))
			return ret;
	}
	if (ts->post[0]) {
		srv->has_post = true;
		if ((ret = dist_parse(&srv->post, ts->post, err, errsz)))
			return ret;
	}
	if (ts->skew > 0) {
		double sum = 0, acc = 0;

		srv->weights = malloc(srv->nconns * sizeof(double));
		for (i = 0; i < srv->nconns; i++)
			sum += pow(i / srv->nthreads + 1, -ts->skew);
		for (i = 0; i < srv->nconns; i++) {
			acc += pow(i / srv->nthreads + 1, -ts->skew) / sum;
			srv->weights[i] = acc;
		}
	}
	if (ts->client_cpu >= 0) {
		struct stage *st = &t->st[k++];

		st->nthreads = st->nconns = 1;
		st->cpu_lo = st->cpu_hi = ts->client_cpu;
		st->pinned = true;
		if ((ret = dist_parse(&st->work, ts->crecv, err, errsz)))
			return ret;
		cfg->client_lat = true;
		if (ts->cdelay[0]) {
			t->has_cdelay = true;
			if ((ret = dist_parse(&t->cdelay, ts->cdelay, err, errsz)))
				return ret;
		}
	}
	t->nstages = k;
	/* capacity at fmax: the busy CPUs' work, or the workers' whole time with blocking */
	per = srv->work.mean + (srv->has_stall ? srv->stall.mean : 0) +
	      (srv->has_post ? srv->post.mean : 0);
	cap = fmin2(ts->workers, ts->hi - ts->lo + 1) / (per * 1e-6);
	if (srv->has_block)
		cap = fmin2(cap, ts->workers / ((per + srv->block.mean) * 1e-6));
	if (ts->cap > 0)	/* a capacity measured elsewhere (the bench's) */
		cap = ts->cap;
	t->capacity = cap;
	if ((ret = arrivals_parse(&t->arr, ts->arr, err, errsz)))
		return ret;
	t->load = ts->rate > 0 ? ts->rate / cap : ts->load;
	arrivals_scale(&t->arr, t->arr.kind == A_RAMP ? cap :
				 ts->rate > 0 ? ts->rate : ts->load * cap);
	t->slo_us = ts->slo;
	t->slo_q = ts->q;
	t->margin = ts->margin ? SLACKGOV_MARGIN_OWN | ts->margin : 0;
	return 0;
}

int cell_parse(struct simcfg *cfg, const char *line, const char *platdir, char *err,
	       size_t errsz)
{
	char buf[4096], *tok, *save = NULL, plat[256] = "vfreq";
	struct tspec ts;
	int in_target = 0, ret, policy = 1;
	bool shared = false;
	double kthread_us = -1;

	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->name, sizeof(cfg->name), "cell");
	snprintf(cfg->law, sizeof(cfg->law), "law");
	cfg->ncpus = 1;
	cfg->warm_s = 4;
	cfg->dur_s = 8;
	cfg->seed = 1;
	cfg->wake_us = 0;
	cfg->slice_s = 0.003;
	cfg->window_s = 0.010;
	cfg->coupled_lo = cfg->coupled_hi = -1;
	cfg->perf_lo = cfg->perf_hi = -1;
	cfg->governed_lo = 0;
	cfg->governed_hi = -1;
	cfg->collect_bound = true;
	knobs_default(&cfg->knobs);
	snprintf(buf, sizeof(buf), "%s", line);
	for (tok = strtok_r(buf, " \t\n", &save); ; tok = strtok_r(NULL, " \t\n", &save)) {
		char *v;

		if (!tok || !strcmp(tok, "|")) {
			if (in_target) {
				if (cfg->ntargets == SIM_MAX_TARGETS) {
					snprintf(err, errsz, "at most %d targets", SIM_MAX_TARGETS);
					return -EINVAL;
				}
				if (ts.hi < 0)
					ts.hi = cfg->ncpus - 1;
				if (ts.hi >= cfg->ncpus || ts.lo > ts.hi) {
					snprintf(err, errsz, "target %d: CPUs %d-%d of %d",
						 cfg->ntargets, ts.lo, ts.hi, cfg->ncpus);
					return -EINVAL;
				}
				if (!ts.conns)
					ts.conns = ts.workers;
				ret = target_build(cfg, &cfg->tgt[cfg->ntargets], &ts, err, errsz);
				if (ret)
					return ret;
				cfg->ntargets++;
			}
			if (!tok)
				break;
			in_target = 1;
			memset(&ts, 0, sizeof(ts));
			ts.workers = 1;
			ts.lo = 0;
			ts.hi = -1;
			ts.pinned = 1;
			ts.q = SLACKGOV_Q_DEFAULT;
			ts.client_cpu = -1;
			snprintf(ts.work, sizeof(ts.work), "exp:10");
			snprintf(ts.arr, sizeof(ts.arr), "poisson");
			continue;
		}
		v = strchr(tok, '=');
		if (!v) {
			snprintf(err, errsz, "'%s': KEY=VALUE", tok);
			return -EINVAL;
		}
		*v++ = 0;
		if (!in_target) {
			if (!strcmp(tok, "name"))
				snprintf(cfg->name, sizeof(cfg->name), "%s", v);
			else if (!strcmp(tok, "law"))
				snprintf(cfg->law, sizeof(cfg->law), "%s", v);
			else if (!strcmp(tok, "plat"))
				snprintf(plat, sizeof(plat), "%s", v);
			else if (!strcmp(tok, "cpus"))
				cfg->ncpus = atoi(v);
			else if (!strcmp(tok, "policy") && !strcmp(v, "core"))
				policy = 1;
			else if (!strcmp(tok, "policy") && !strcmp(v, "shared"))
				shared = true;
			else if (!strcmp(tok, "policy"))
				policy = atoi(v);
			else if (!strcmp(tok, "warm"))
				cfg->warm_s = atof(v);
			else if (!strcmp(tok, "dur"))
				cfg->dur_s = atof(v);
			else if (!strcmp(tok, "seed"))
				cfg->seed = strtoull(v, NULL, 0);
			else if (!strcmp(tok, "bg") && sscanf(v, "%lf,%lf", &cfg->bg_rate,
							      &cfg->bg_us) == 2)
				;
			else if (!strcmp(tok, "wake"))
				cfg->wake_us = atof(v);
			else if (!strcmp(tok, "slice"))
				cfg->slice_s = atof(v) / 1000;
			else if (!strcmp(tok, "kthread"))
				kthread_us = atof(v);
			else if (!strcmp(tok, "split"))
				cfg->split_cpu = !strcmp(v, "cpu");
			else if (!strcmp(tok, "close"))
				cfg->close_us = atof(v);
			else if (!strcmp(tok, "decide"))
				cfg->decide_us = atof(v);
			else if (!strcmp(tok, "window"))
				cfg->window_s = atof(v) / 1000;
			else if (!strcmp(tok, "coupled") && !range(v, &cfg->coupled_lo,
								   &cfg->coupled_hi))
				;
			else if (!strcmp(tok, "perf") && !range(v, &cfg->perf_lo, &cfg->perf_hi))
				;
			else if (!strcmp(tok, "governed") && !range(v, &cfg->governed_lo,
								    &cfg->governed_hi))
				;
			else if (!strncmp(tok, "knob.", 5)) {
				if (knob_set(&cfg->knobs, tok + 5, atof(v))) {
					snprintf(err, errsz, "knob %s=%s: unknown or out of range",
						 tok + 5, v);
					return -EINVAL;
				}
			} else {
				snprintf(err, errsz, "unknown cell key '%s'", tok);
				return -EINVAL;
			}
			continue;
		}
		if (!strcmp(tok, "workers"))
			ts.workers = atoi(v);
		else if (!strcmp(tok, "conns"))
			ts.conns = atoi(v);
		else if (!strcmp(tok, "shape"))
			ts.thread_shape = !strcmp(v, "thread");
		else if (!strcmp(tok, "cpus") && !range(v, &ts.lo, &ts.hi))
			;
		else if (!strcmp(tok, "pin"))
			ts.pinned = atoi(v);
		else if (!strcmp(tok, "work"))
			snprintf(ts.work, sizeof(ts.work), "%s", v);
		else if (!strcmp(tok, "stall"))
			snprintf(ts.stall, sizeof(ts.stall), "%s", v);
		else if (!strcmp(tok, "block"))
			snprintf(ts.block, sizeof(ts.block), "%s", v);
		else if (!strcmp(tok, "post"))
			snprintf(ts.post, sizeof(ts.post), "%s", v);
		else if (!strcmp(tok, "arr"))
			snprintf(ts.arr, sizeof(ts.arr), "%s", v);
		else if (!strcmp(tok, "load"))
			ts.load = atof(v);
		else if (!strcmp(tok, "rate"))
			ts.rate = atof(v);
		else if (!strcmp(tok, "cap"))
			ts.cap = atof(v);
		else if (!strcmp(tok, "skew"))
			ts.skew = atof(v);
		else if (!strcmp(tok, "slo"))
			ts.slo = atoi(v);
		else if (!strcmp(tok, "q"))
			ts.q = atoi(v);
		else if (!strcmp(tok, "margin"))
			ts.margin = atoi(v);
		else if (!strcmp(tok, "cdelay"))
			snprintf(ts.cdelay, sizeof(ts.cdelay), "%s", v);
		else if (!strcmp(tok, "client") &&
			 sscanf(v, "%63[^,],%63[^,],%d", ts.csend, ts.crecv, &ts.client_cpu) == 3)
			;
		else {
			snprintf(err, errsz, "unknown target key '%s=%s'", tok, v);
			return -EINVAL;
		}
	}
	if (cfg->ncpus < 1 || cfg->ncpus > SIM_MAX_CPUS) {
		snprintf(err, errsz, "cpus=%d: 1..%d", cfg->ncpus, SIM_MAX_CPUS);
		return -EINVAL;
	}
	if (!cfg->ntargets) {
		snprintf(err, errsz, "no target ('| KEY=VALUE ...')");
		return -EINVAL;
	}
	cfg->policy_cpus = shared ? cfg->ncpus : policy < 1 ? 1 : policy;
	if (cfg->governed_hi < 0)
		cfg->governed_hi = cfg->ncpus - 1;
	if (!strcmp(plat, "vfreq")) {
		platform_vfreq(&cfg->plat);
	} else {
		char path[512];

		if (strchr(plat, '/'))
			snprintf(path, sizeof(path), "%s", plat);
		else
			snprintf(path, sizeof(path), "%s/%s.pf", platdir, plat);
		if ((ret = platform_load(&cfg->plat, path, err, errsz)))
			return ret;
	}
	if (kthread_us >= 0)
		cfg->plat.kthread_us = kthread_us;
	return 0;
}
