# SPDX-License-Identifier: GPL-2.0
# report.awk - the demo's closing summary from build/demo/steps.csv
# (gov,step,rate,rps,p50_us,p99_us,p999_us,energy_j,energy_j_per_req,mean_khz).
# Compares every governor with "performance" step by step.
NR == 1 { next }
{
	g = $1; s = $2
	govs[g] = 1; steps[s] = 1
	rate[s] = $3; rps[g, s] = $4; p99[g, s] = $6; ej[g, s] = $8
	epr[g, s] = $9; khz[g, s] = $10
	tot_e[g] += $8; tot_req[g] += $4
	if (s > nsteps) nsteps = s
}
END {
	printf "\n  Per load step (modeled energy of the governed CPU; latency from the client):\n\n"
	printf "  %4s %6s", "step", "rate"
	for (g in govs) printf " | %-11s %7s %8s %9s %6s", g, "rps", "p99-us", "mJ/req", "MHz"
	printf "\n"
	for (s = 1; s <= nsteps; s++) {
		if (!(s in steps)) continue
		printf "  %4d %6d", s, rate[s]
		for (g in govs)
			printf " | %-11s %7.0f %8.0f %9.3f %6.0f", "", rps[g, s], p99[g, s],
				epr[g, s] * 1000, khz[g, s] / 1000
		printf "\n"
	}
	printf "\n  Whole run:\n"
	for (g in govs)
		printf "  %-11s modeled energy %8.2f J, %8.3f mJ/request\n", g, tot_e[g],
			tot_req[g] ? tot_e[g] * 1000 / tot_req[g] : 0
	if ("performance" in govs && "slack" in govs && tot_e["performance"] > 0)
		printf "\n  slack used %.1f%% less modeled energy than performance.\n",
			100 * (1 - tot_e["slack"] / tot_e["performance"])
	printf "\n"
}
