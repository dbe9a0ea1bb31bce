# SPDX-License-Identifier: GPL-2.0
# report.awk - the demo's closing summary from build/demo/steps.csv
# (gov,step,rate,rps,p50_us,p99_us,p999_us,energy_j,energy_j_per_req,
# mean_khz,idle,slo_windows,slo_over,srv_p99_us); -v slo=US, ref=GOV (the
# governor every other is compared with, schedutil).  The last lines say,
# per step, each governor's energy per request against ref's and whether
# its client p99 held the SLO.
NR == 1 { next }
{
	g = $1; s = $2
	if (!(g in govs)) { govs[g] = 1; gv[++ng] = g }
	steps[s] = 1
	rate[s] = $3; rps[g, s] = $4; p99[g, s] = $6; ej[g, s] = $8
	epr[g, s] = $9; khz[g, s] = $10; sp99[g, s] = $14
	tot_e[g] += $8; if ($9 > 0) tot_req[g] += $8 / $9	# requests answered
	if (s > nsteps) nsteps = s
}
END {
	printf "\n  Per load step (modeled energy of the governed CPU; client p99, and the\n"
	printf "  server-side p99 slackgov measured; SLO p99 <= %d us):\n\n", slo
	printf "  %4s %6s", "step", "rate"
	for (i = 1; i <= ng; i++) printf " | %-11s %7s %8s %8s %9s %6s", gv[i], "rps", "p99-us", "srv-p99", "mJ/req", "MHz"
	printf "\n"
	for (s = 1; s <= nsteps; s++) {
		if (!(s in steps)) continue
		printf "  %4d %6d", s, rate[s]
		for (i = 1; i <= ng; i++) {
			g = gv[i]
			printf " | %-11s %7.0f %8.0f %8s %9.3f %6.0f", "", rps[g, s], p99[g, s],
				(sp99[g, s] == "" ? "-" : sp99[g, s]), epr[g, s] * 1000, khz[g, s] / 1000
		}
		printf "\n"
	}
	printf "\n  Whole run:\n"
	for (i = 1; i <= ng; i++) {
		g = gv[i]
		printf "  %-11s modeled energy %8.2f J, %8.3f mJ/request\n", g, tot_e[g],
			(tot_req[g] ? tot_e[g] * 1000 / tot_req[g] : 0)
	}
	for (i = 1; i <= ng; i++) {
		g = gv[i]
		if (g == ref || !(ref in govs) || tot_e[ref] <= 0) continue
		printf "\n  %s used %.1f%% %s modeled energy than %s over the run.\n", g,
			100 * (tot_e[g] < tot_e[ref] ? 1 - tot_e[g] / tot_e[ref] : tot_e[g] / tot_e[ref] - 1),
			(tot_e[g] < tot_e[ref] ? "less" : "more"), ref
		printf "  Per step, %s against %s (energy per request) and the SLO (client p99 <= %d us):\n", g, ref, slo
		for (s = 1; s <= nsteps; s++) {
			if (!(s in steps) || epr[ref, s] <= 0) continue
			printf "    step %d, %4d req/s: energy %+6.1f%%; SLO %s (p99 %.0f us; %s %s, %.0f us)\n", s, rate[s],
				100 * (epr[g, s] / epr[ref, s] - 1), (p99[g, s] <= slo ? "held  " : "MISSED"),
				p99[g, s], ref, (p99[ref, s] <= slo ? "held" : "missed"), p99[ref, s]
		}
	}
	printf "\n"
}
