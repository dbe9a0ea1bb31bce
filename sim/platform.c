// SPDX-License-Identifier: GPL-2.0
/*
 * platform.c - a core's P-state ladder, power model and C-states, and what
 * the cpufreq driver does with a change: vfreq's by default
 * (selftests/modules/vplatform.h, Documentation/emulated-platform.rst), or
 * a platform file (sim/platforms/, format below).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

/* vfreq's defaults (vplatform.h, vfreq.c's module parameters) */
static const uint32_t vf_khz[] = { 1000000, 1400000, 1800000, 2200000, 2600000, 3000000 };
static const double vf_mv[] = { 700, 750, 800, 870, 950, 1050 };
#define VF_CEFF_PF	1800.0
#define VF_STATIC_MW	1000.0

/* P(f) = Ceff f V^2 + Pstatic (V / Vmax)^2, the emulated platform's model */
static void model_power(struct platform *p, const double *mv, double ceff_pf, double static_mw)
{
	double vmax = mv[p->np - 1];
	int i;

	for (i = 0; i < p->np; i++) {
		double v = mv[i] / 1000, f = p->khz[i] * 1e3;

		p->volt[i] = mv[i] / vmax;
		if (p->busy_w[i] <= 0)
			p->busy_w[i] = ceff_pf * 1e-12 * f * v * v +
				       static_mw / 1000 * p->volt[i] * p->volt[i];
	}
}

/*
 * vfreq and vidle as the guest runs them: six P-states, C1/C1E/C6 of
 * Skylake-SP, 60 uJ a change, a change in effect at once (the emulation
 * has no transition time; cpuinfo.transition_latency is 10 us, which makes
 * Linux 6.1's rate limit and dbs sampling rate 10 ms), no fast switch (the
 * governors' kthreads apply changes), no APERF/MPERF.
 */
void platform_vfreq(struct platform *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	strcpy(p->name, "vfreq");
	p->np = sizeof(vf_khz) / sizeof(vf_khz[0]);
	for (i = 0; i < p->np; i++)
		p->khz[i] = vf_khz[i];
	model_power(p, vf_mv, VF_CEFF_PF, VF_STATIC_MW);
	p->nc = 3;
	p->c[0] = (struct cstate){ "C1", 2, 2, 1.0, true };
	p->c[1] = (struct cstate){ "C1E", 10, 20, 0.44, false };
	p->c[2] = (struct cstate){ "C6", 133, 600, 0.05, false };
	p->trans_us = 0;
	p->trans_stall_us = 0;
	p->trans_uj = 60;
	p->rate_limit_us = 10000;
	p->fast_switch = false;
	p->kthread_us = 0;
	p->invariant = false;
	p->uncore_w = 0;
}

/*
 * A platform file, one setting a line ('#' comments):
 *
 *	name NAME
 *	pstate KHZ MV [BUSY_W]	(ascending; without BUSY_W, the model below)
 *	ceff_pf PF		static_mw MW	(the model: Ceff f V^2 + static (V/Vmax)^2)
 *	cstate NAME EXIT_US RESIDENCY_US POWER_MW [vscaled]
 *	trans_us US		(a change takes effect this long after the request)
 *	trans_stall_us US	(the policy's CPUs stall this long at the change)
 *	trans_uj UJ		rate_limit_us US	kthread_us US
 *	fast_switch 0|1		invariant 0|1		uncore_mw MW
 */
int platform_load(struct platform *p, const char *path, char *err, size_t errsz)
{
	double mv[SIM_MAX_PSTATES], ceff = VF_CEFF_PF, stat = VF_STATIC_MW, x;
	char line[256], key[32], name[16];
	FILE *f = fopen(path, "r");
	int ln = 0;

	if (!f) {
		snprintf(err, errsz, "platform %s: %s", path, strerror(errno));
		return -errno;
	}
	memset(p, 0, sizeof(*p));
	p->rate_limit_us = 10000;
	p->trans_uj = 60;
	p->fast_switch = true;
	while (fgets(line, sizeof(line), f)) {
		char *h = strchr(line, '#');
		int n;

		ln++;
		if (h)
			*h = 0;
		if (sscanf(line, "%31s", key) != 1)
			continue;
		if (!strcmp(key, "name")) {
			sscanf(line, "%*s %31s", p->name);
		} else if (!strcmp(key, "pstate") && p->np < SIM_MAX_PSTATES) {
			unsigned int khz;
			double bw = 0;

			n = sscanf(line, "%*s %u %lf %lf", &khz, &mv[p->np], &bw);
			if (n < 2 || (p->np && khz <= p->khz[p->np - 1]))
				goto bad;
			p->khz[p->np] = khz;
			p->busy_w[p->np++] = bw;
		} else if (!strcmp(key, "cstate") && p->nc < SIM_MAX_CSTATES) {
			struct cstate *c = &p->c[p->nc];
			char vs[16] = "";

			n = sscanf(line, "%*s %15s %lf %lf %lf %15s", name, &c->exit_us,
				   &c->residency_us, &c->power_w, vs);
			if (n < 4)
				goto bad;
			snprintf(c->name, sizeof(c->name), "%s", name);
			c->power_w /= 1000;
			c->volt_scaled = !strcmp(vs, "vscaled");
			p->nc++;
		} else if (sscanf(line, "%*s %lf", &x) == 1) {
			if (!strcmp(key, "ceff_pf"))
				ceff = x;
			else if (!strcmp(key, "static_mw"))
				stat = x;
			else if (!strcmp(key, "trans_us"))
				p->trans_us = x;
			else if (!strcmp(key, "trans_stall_us"))
				p->trans_stall_us = x;
			else if (!strcmp(key, "trans_uj"))
				p->trans_uj = x;
			else if (!strcmp(key, "rate_limit_us"))
				p->rate_limit_us = x;
			else if (!strcmp(key, "kthread_us"))
				p->kthread_us = x;
			else if (!strcmp(key, "fast_switch"))
				p->fast_switch = x != 0;
			else if (!strcmp(key, "invariant"))
				p->invariant = x != 0;
			else if (!strcmp(key, "uncore_mw"))
				p->uncore_w = x / 1000;
			else
				goto bad;
		} else {
			goto bad;
		}
	}
	fclose(f);
	if (p->np < 2 || !p->nc) {
		snprintf(err, errsz, "platform %s: needs two P-states and a C-state", path);
		return -EINVAL;
	}
	if (!p->name[0])
		snprintf(p->name, sizeof(p->name), "%s", "custom");
	model_power(p, mv, ceff, stat);
	return 0;
bad:
	fclose(f);
	snprintf(err, errsz, "platform %s:%d: not understood: %s", path, ln, line);
	return -EINVAL;
}

/* idle power of C-state @k while the core's P-state is @fidx, W */
double platform_idle_w(const struct platform *p, int k, int fidx)
{
	const struct cstate *c = &p->c[k];

	return c->volt_scaled ? c->power_w * p->volt[fidx] * p->volt[fidx] : c->power_w;
}

/* the table index for @khz: REL_L lowest at or above, REL_H highest at or below, REL_C closest */
int platform_index(const struct platform *p, uint32_t khz, int relation)
{
	int i;

	if (relation == REL_C) {
		int best = 0;

		for (i = 1; i < p->np; i++)
			if (llabs((long long)p->khz[i] - khz) < llabs((long long)p->khz[best] - khz))
				best = i;
		return best;
	}
	if (relation == REL_L) {
		for (i = 0; i < p->np; i++)
			if (p->khz[i] >= khz)
				return i;
		return p->np - 1;
	}
	for (i = p->np - 1; i >= 0; i--)
		if (p->khz[i] <= khz)
			return i;
	return 0;
}
