// SPDX-License-Identifier: GPL-2.0
/*
 * energy.c - package energy from the powercap interface, for status and
 * the Prometheus export.
 *
 * DOC: energy
 *
 * slackctl reads energy where the kernel publishes it for every platform
 * that has a meter: /sys/class/powercap/<zone>/energy_uj (intel-rapl on
 * Intel and, since Linux 5.8, AMD processors; in the test guest the emulated
 * platform's zone "vplatform", whose energy is modeled).  Only the top-level
 * zones are read (``intel-rapl:0``, not its ``intel-rapl:0:0`` subzones,
 * which the package already contains); their sum is the package energy.
 *
 * A counter wraps at its zone's max_energy_range_uj: a difference that went
 * backwards is taken as one wrap.  Energy per request is the package energy
 * of an interval divided by the requests the targets answered in it: the
 * whole package, so it also carries what other processes spent; it is a
 * figure for a machine that serves its targets and little else.  Without a
 * readable zone (a VM, no driver, no permission: energy_uj is root-only
 * since Linux 5.10) slackctl says "no energy counter".
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "slackctl.h"

#define SC_POWERCAP	"/sys/class/powercap"

/* a top-level zone: its folder name has one ':' (intel-rapl:0, vplatform:0) */
static bool top_level(const char *dir)
{
	const char *base = strrchr(dir, '/') + 1, *c = strchr(base, ':');

	return c && !strchr(c + 1, ':');
}

int sc_energy_read(struct sc_energy_zone *z, int max)
{
	char path[512], buf[64];
	glob_t g;
	size_t i;
	int n = 0;

	if (glob(SC_POWERCAP "/*/energy_uj", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc && n < max; i++) {
		char *dir = g.gl_pathv[i];

		*strrchr(dir, '/') = 0;
		if (!top_level(dir) || sc_read_file(strcat(strcpy(path, dir), "/energy_uj"), buf, sizeof(buf)))
			continue;
		z[n].uj = strtoull(buf, NULL, 10);
		snprintf(path, sizeof(path), "%s/max_energy_range_uj", dir);
		z[n].max_uj = sc_read_file(path, buf, sizeof(buf)) ? 0 : strtoull(buf, NULL, 10);
		snprintf(path, sizeof(path), "%s/name", dir);
		if (sc_read_file(path, buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "?");
		/* the zone label: folder and name, "intel-rapl:0 package-0" */
		snprintf(z[n].zone, sizeof(z[n].zone), "%s %s", strrchr(dir, '/') + 1, buf);
		n++;
	}
	globfree(&g);
	return n;
}

/* energy between two readings of the same zones, joules; -1 if they differ */
double sc_energy_delta(const struct sc_energy_zone *a, int na, const struct sc_energy_zone *b, int nb)
{
	double j = 0;
	int i;

	if (na != nb || !na)
		return -1;
	for (i = 0; i < na; i++) {
		if (strcmp(a[i].zone, b[i].zone))
			return -1;
		if (b[i].uj >= a[i].uj)
			j += (b[i].uj - a[i].uj) / 1e6;
		else if (b[i].max_uj > a[i].uj)	/* wrapped once */
			j += (b[i].max_uj - a[i].uj + b[i].uj) / 1e6;
		else
			return -1;
	}
	return j;
}
