// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - sgsim: one cell of the simulator (its spec on the command line,
 * or line N of a cell file) under each governor asked for, the static
 * oracle (every fixed P-state, or a bisection on long ladders) and the
 * dynamic lower bound, all on the same seeded event stream; one JSON object
 * on stdout with the figures and the cell's verdict against issue 48's goal.
 *
 *	sgsim [-P PLATDIR] [-g GOV,GOV,...] [-f CELLFILE -n LINE | CELLSPEC]
 *
 * A cell file's "#govs LIST" line names its governors when -g does not.
 * GOV: performance powersave schedutil ondemand slack slack-cpu oracle bound
 * (default all; slack-cpu is the law fed each CPU's share of a target as its
 * own sample, bpfside.c's split=cpu).  A cell that says law=NAME runs in
 * sgsim-NAME only, the law with one mechanism off (sim/variants).  Exit 0;
 * 2 on a bad spec.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sim.h"

/* the governors of a cell, in the order they run and print */
#define NGOVS		6
#define GOV_SLACK	4
#define GOV_SLACK_CPU	5

/* ladders longer than this are bisected for the oracle instead of walked */
#define ORACLE_WALK_MAX	8
/* the goal's tolerance against the static oracle (issue 48) */
#define GOAL_ORACLE	1.05

struct result {
	bool ran;
	double p99[SIM_MAX_TARGETS], srv_p99[SIM_MAX_TARGETS], p50[SIM_MAX_TARGETS];
	double e_req, mhz, rps;
	double cstate[SIM_MAX_CSTATES], pstate[SIM_MAX_PSTATES];
	uint64_t n, served, boosts, decisions, changes;
	bool slo_ok;
};

static void run_one(const struct simcfg *cfg, const struct gov_ops *g, int fixed,
		    struct result *r, bool *feasible, double *bound_j)
{
	static struct sim s;
	double t_c0 = 0, f_sum = 0, total = 0;
	int i, k;

	sim_run(&s, cfg, g, fixed);
	memset(r, 0, sizeof(*r));
	r->ran = true;
	r->slo_ok = true;
	for (i = 0; i < s.ntargets; i++) {
		struct target *t = &s.tgt[i];

		r->p99[i] = hdr_pct(t->lat, t->slo_q / 10000.0);
		r->p50[i] = hdr_pct(t->lat, 0.5);
		r->srv_p99[i] = hdr_pct(t->srv_lat, t->slo_q / 10000.0);
		r->n += t->n_meas;
		r->served += t->n_served;
		if (t->slo_us && r->p99[i] > t->slo_us)
			r->slo_ok = false;
		if (t->n_done < t->n_meas)	/* requests never answered: overload */
			r->slo_ok = false, r->p99[i] = fmax2(r->p99[i], 1e9);
	}
	r->e_req = r->n ? s.e_gov_j / r->n : 0;
	r->rps = r->served / cfg->dur_s;
	for (i = cfg->governed_lo; i <= cfg->governed_hi; i++) {
		for (k = 0; k < s.plat->np; k++) {
			t_c0 += s.cpu[i].res_f[k];
			f_sum += s.cpu[i].res_f[k] * s.plat->khz[k];
			r->pstate[k] += s.cpu[i].res_f[k];
		}
		for (k = 0; k < s.plat->nc; k++)
			r->cstate[k] += s.cpu[i].res_c[k] + s.cpu[i].res_cexit[k];
	}
	total = cfg->dur_s * (cfg->governed_hi - cfg->governed_lo + 1);
	for (k = 0; k < s.plat->np; k++)
		r->pstate[k] = t_c0 > 0 ? r->pstate[k] / t_c0 : 0;
	for (k = 0; k < s.plat->nc; k++)
		r->cstate[k] /= total;
	r->mhz = t_c0 > 0 ? f_sum / t_c0 / 1000 : 0;
	r->boosts = s.boosts;
	r->decisions = s.decisions;
	r->changes = s.freq_changes;
	if (bound_j)
		*bound_j = bound_energy_j(&s, feasible);
	sim_free(&s);
}

static void json_result(const struct simcfg *cfg, const char *name, const struct result *r)
{
	int i;

	printf("\"%s\":{\"p99_us\":[", name);
	for (i = 0; i < cfg->ntargets; i++)
		printf("%s%.1f", i ? "," : "", r->p99[i]);
	printf("],\"p50_us\":[");
	for (i = 0; i < cfg->ntargets; i++)
		printf("%s%.1f", i ? "," : "", r->p50[i]);
	printf("],\"server_p99_us\":[");
	for (i = 0; i < cfg->ntargets; i++)
		printf("%s%.1f", i ? "," : "", r->srv_p99[i]);
	printf("],\"energy_j_per_req\":%.9g,\"mean_mhz\":%.0f,\"rps\":%.0f,\"slo_ok\":%s,"
	       "\"boosts\":%llu,\"decisions\":%llu,\"changes\":%llu,\"cstates\":{",
	       r->e_req, r->mhz, r->rps, r->slo_ok ? "true" : "false",
	       (unsigned long long)r->boosts, (unsigned long long)r->decisions,
	       (unsigned long long)r->changes);
	for (i = 0; i < cfg->plat.nc; i++)
		printf("%s\"%s\":%.4f", i ? "," : "", cfg->plat.c[i].name, r->cstate[i]);
	printf("},\"pstates\":{");
	for (i = 0; i < cfg->plat.np; i++)
		printf("%s\"%u\":%.4f", i ? "," : "", cfg->plat.khz[i] / 1000, r->pstate[i]);
	printf("}}");
}

static const struct gov_ops *gov_by_name(const char *n)
{
	static const struct gov_ops *all[] = { &gov_performance, &gov_powersave,
		&gov_schedutil, &gov_ondemand, &gov_slack };
	unsigned int i;

	if (!strcmp(n, "slack-cpu"))
		return &gov_slack;
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, n))
			return all[i];
	return NULL;
}

static bool want(const char *govs, const char *name)
{
	char buf[256], *t, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", govs);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (!strcmp(t, name))
			return true;
	return false;
}

static const char *layout(const struct simcfg *cfg)
{
	static char b[32];

	if (cfg->policy_cpus == 1)
		return "core";
	if (cfg->policy_cpus >= cfg->ncpus)
		return "shared";
	snprintf(b, sizeof(b), "%d", cfg->policy_cpus);
	return b;
}

static int run_cell(const struct simcfg *cfg, const char *spec, const char *govs)
{
	static const char *order[NGOVS] = { "performance", "powersave", "schedutil", "ondemand",
					    "slack", "slack-cpu" };
	struct result res[NGOVS], fixed[SIM_MAX_PSTATES];
	static struct simcfg split;
	double bound_j = 0, maxload = 0;
	bool feasible = true, have_bound = false;
	int i, np = cfg->plat.np, oracle = -1, workers = 0;
	const struct result *sl = NULL, *su = NULL, *pf = NULL;

	memset(res, 0, sizeof(res));
	memset(fixed, 0, sizeof(fixed));
	for (i = 0; i < cfg->ntargets; i++) {
		maxload = fmax2(maxload, cfg->tgt[i].load);
		workers += cfg->tgt[i].st[cfg->tgt[i].server].nthreads;
	}
	split = *cfg;
	split.split_cpu = true;
	for (i = 0; i < NGOVS; i++) {
		const struct gov_ops *g = gov_by_name(order[i]);
		bool b = !have_bound && want(govs, "bound") && !strcmp(order[i], "performance");

		if (!want(govs, order[i]))
			continue;
		/* slack-cpu: the law fed each CPU's share of a target (bpfside.c, split=cpu) */
		run_one(i == GOV_SLACK_CPU ? &split : cfg, g, 0, &res[i], &feasible,
			b ? &bound_j : NULL);
		have_bound |= b;
	}
	if (want(govs, "bound") && !have_bound) {
		struct result tmp;

		run_one(cfg, &gov_performance, 0, &tmp, &feasible, &bound_j);
		have_bound = true;
	}
	if (want(govs, "oracle")) {
		int lo = 0, hi = np - 1, k;

		/* a P-state whose share of fmax is under the load is an overload: skipped */
		while (lo < hi && (double)cfg->plat.khz[lo] / cfg->plat.khz[np - 1] < maxload)
			lo++;
		if (np <= ORACLE_WALK_MAX) {
			for (k = lo; k < np; k++)
				run_one(cfg, &gov_fixed, k, &fixed[k], NULL, NULL);
		} else {
			/* p99 falls as f rises: the lowest P-state that holds the SLO */
			int a = lo, b = np - 1;

			run_one(cfg, &gov_fixed, b, &fixed[b], NULL, NULL);
			while (a < b && fixed[b].slo_ok) {
				int m = (a + b) / 2;

				run_one(cfg, &gov_fixed, m, &fixed[m], NULL, NULL);
				if (fixed[m].slo_ok)
					b = m;
				else
					a = m + 1;
			}
			/* and the two above it, in case racing to idle pays */
			for (k = b + 1; k <= b + 2 && k < np; k++)
				if (!fixed[k].ran)
					run_one(cfg, &gov_fixed, k, &fixed[k], NULL, NULL);
		}
		for (k = 0; k < np; k++)
			if (fixed[k].ran && fixed[k].slo_ok &&
			    (oracle < 0 || fixed[k].e_req < fixed[oracle].e_req))
				oracle = k;
	}

	printf("{\"cell\":\"%s\",\"law\":\"%s\",\"spec\":\"%s\",\"platform\":\"%s\",\"cpus\":%d,\"workers\":%d,"
	       "\"policy\":\"%s\",\"targets\":%d,\"load\":%.3f,\"slo_us\":[",
	       cfg->name, cfg->law, spec, cfg->plat.name, cfg->ncpus, workers, layout(cfg), cfg->ntargets,
	       maxload);
	for (i = 0; i < cfg->ntargets; i++)
		printf("%s%u", i ? "," : "", cfg->tgt[i].slo_us);
	printf("],\"mean_work_us\":[");
	for (i = 0; i < cfg->ntargets; i++)
		printf("%s%.2f", i ? "," : "", cfg->tgt[i].st[cfg->tgt[i].server].work.mean);
	{
		double rate = 0;

		for (i = 0; i < cfg->ntargets; i++)
			rate += cfg->tgt[i].arr.rate;
		printf("],\"rate_per_cpu\":%.0f,\"governors\":{", rate / cfg->ncpus);
	}
	{
		bool first = true;

		for (i = 0; i < NGOVS; i++) {
			if (!res[i].ran)
				continue;
			if (!first)
				printf(",");
			first = false;
			json_result(cfg, order[i], &res[i]);
		}
	}
	printf("},\"fixed\":{");
	{
		bool first = true;

		for (i = 0; i < np; i++) {
			char n[16];

			if (!fixed[i].ran)
				continue;
			snprintf(n, sizeof(n), "%u", cfg->plat.khz[i] / 1000);
			if (!first)
				printf(",");
			first = false;
			json_result(cfg, n, &fixed[i]);
		}
	}
	printf("}");
	if (oracle >= 0)
		printf(",\"oracle\":{\"mhz\":%u,\"energy_j_per_req\":%.9g,\"p99_us\":%.1f}",
		       cfg->plat.khz[oracle] / 1000, fixed[oracle].e_req, fixed[oracle].p99[0]);
	else
		printf(",\"oracle\":null");
	if (have_bound) {
		uint64_t n = res[0].ran ? res[0].n : 0;

		if (!n)
			for (i = 0; i < NGOVS; i++)
				n = res[i].ran ? res[i].n : n;
		printf(",\"bound\":{\"energy_j_per_req\":%.9g,\"feasible\":%s}",
		       n ? bound_j / n : 0, feasible ? "true" : "false");
	}
	/* the verdict against issue 48's goal, for slack and for slack-cpu */
	pf = res[0].ran ? &res[0] : NULL;
	su = res[2].ran ? &res[2] : NULL;
	for (i = GOV_SLACK; i <= GOV_SLACK_CPU; i++) {
		sl = res[i].ran ? &res[i] : NULL;
		if (!sl)
			continue;
		printf(",\"%s\":{\"slo\":\"%s\"", i == GOV_SLACK ? "verdict" : "verdict_cpu",
		       !pf ? "n/a" : !pf->slo_ok ? "n/a" : sl->slo_ok ? "met" : "missed");
		if (oracle >= 0)
			printf(",\"oracle\":\"%s\",\"vs_oracle\":%.4f",
			       sl->e_req <= GOAL_ORACLE * fixed[oracle].e_req ? "met" : "missed",
			       sl->e_req / fixed[oracle].e_req);
		else
			printf(",\"oracle\":\"n/a\"");
		if (su)
			printf(",\"schedutil\":\"%s\",\"vs_schedutil\":%.4f",
			       !su->slo_ok ? "n/a" : sl->e_req <= su->e_req ? "met" : "missed",
			       sl->e_req / su->e_req);
		if (have_bound && bound_j > 0)
			printf(",\"vs_bound\":%.4f", sl->e_req / (bound_j / fmax2(sl->n, 1)));
		printf("}");
	}
	printf(",\"cpu_s\":%.2f}\n", (double)clock() / CLOCKS_PER_SEC);
	fflush(stdout);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: sgsim [-P PLATDIR] [-g GOV,...] [-f CELLFILE -n LINE | CELLSPEC]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *platdir = "sim/platforms", *govs =
		"performance,powersave,schedutil,ondemand,slack,slack-cpu,oracle,bound", *file = NULL;
	char line[4096], err[512], filegovs[256];
	static struct simcfg cfg;
	int opt, lineno = 0, n = 0;
	bool govs_set = false;

	while ((opt = getopt(argc, argv, "P:g:f:n:")) != -1) {
		switch (opt) {
		case 'P':
			platdir = optarg;
			break;
		case 'g':
			govs = optarg;
			govs_set = true;
			break;
		case 'f':
			file = optarg;
			break;
		case 'n':
			lineno = atoi(optarg);
			break;
		default:
			return usage();
		}
	}
	if (file) {
		FILE *f = fopen(file, "r");

		if (!f) {
			fprintf(stderr, "sgsim: %s: %s\n", file, strerror(errno));
			return 2;
		}
		line[0] = 0;
		while (fgets(line, sizeof(line), f)) {
			char *p = line + strspn(line, " \t");

			/* "#govs LIST": the file's governors, unless -g names them */
			if (!strncmp(p, "#govs ", 6) && !govs_set) {
				snprintf(filegovs, sizeof(filegovs), "%s", p + 6);
				filegovs[strcspn(filegovs, " \t\n")] = 0;
				govs = filegovs;
			}
			if (*p == '#' || *p == '\n' || !*p)
				continue;
			if (++n == lineno)
				break;
		}
		fclose(f);
		if (n != lineno) {
			fprintf(stderr, "sgsim: %s has %d cells\n", file, n);
			return 2;
		}
		line[strcspn(line, "\n")] = 0;
	} else if (optind < argc) {
		snprintf(line, sizeof(line), "%s", argv[optind]);
	} else {
		return usage();
	}
	if (cell_parse(&cfg, line, platdir, err, sizeof(err))) {
		fprintf(stderr, "sgsim: %s\n", err);
		return 2;
	}
	if (strcmp(cfg.law, sim_law)) {
		fprintf(stderr, "sgsim: cell %s needs the law %s, this sgsim has %s (sim/variants)\n",
			cfg.name, cfg.law, sim_law);
		return 2;
	}
	return run_cell(&cfg, line, govs);
}
