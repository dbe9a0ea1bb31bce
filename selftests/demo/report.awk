# SPDX-License-Identifier: GPL-2.0
# report.awk - the demo's closing summary from build/demo/steps.csv
# (gov,step,rate,rps,p50_us,p99_us,p999_us,energy_j,energy_j_per_req,
# mean_khz,idle,slo_windows,slo_over,srv_p99_us,pstates,load_pct);
# -v slo=US (the SLO on the client's p99), cap=REQ/S (the capacity).
#
# A step is "within capacity" when its share and the previous step's are at
# most 100 %: the step after a burst serves the queue the burst left.  Per
# step it prints each governor's client p99, energy per request and the
# SLO's verdict, then slack against performance and schedutil; the headline
# is computed over the steps within capacity: how many of them each
# governor held the SLO in, and slack's energy per request (their energy
# over their requests, requests = energy / energy per request) against
# each of the other two.  selftests/demo/host-report.sh recomputes it.
NR == 1 { next }
{
	g = $1; s = $2 + 0
	if (!(g in govs)) { govs[g] = 1; gv[++ng] = g }
	steps[s] = 1
	rate[s] = $3; share[s] = $16 + 0
	p99[g, s] = $6; ej[g, s] = $8; epr[g, s] = $9; khz[g, s] = $10; sp99[g, s] = $14
	if (s > nsteps) nsteps = s
}
function held(g, s) { return (g, s) in p99 && p99[g, s] != "" && p99[g, s] <= slo }
function reqs(g, s) { return epr[g, s] > 0 ? ej[g, s] / epr[g, s] : 0 }
function pct(a, b) { return 100 * (a / b - 1) }
function than(x, who) {
	return sprintf("%.1f %% %s %s's", x < 0 ? -x : x, x < 0 ? "below" : "above", who)
}
function kind(s) {
	if (share[s] > 100) return "past capacity"
	if (s > 1 && (s - 1) in share && share[s - 1] > 100) return "after the burst"
	return ""
}
END {
	printf "\n  Capacity %d req/s at fmax; SLO: client p99 <= %d us.  Energy: the\n", cap, slo
	printf "  governed CPU's modeled energy per request answered.  * SLO missed.\n\n"
	printf "  %4s %5s %6s", "step", "load", "req/s"
	for (i = 1; i <= ng; i++) printf " | %-11s %8s %7s %5s", gv[i], "p99-us", "mJ/req", "MHz"
	printf "\n"
	for (s = 1; s <= nsteps; s++) {
		if (!(s in steps)) continue
		printf "  %4d %4d%% %6d", s, share[s], rate[s]
		for (i = 1; i <= ng; i++) {
			g = gv[i]
			if (!((g, s) in p99)) { printf " | %-11s %8s %7s %5s", "", "-", "-", "-"; continue }
			printf " | %-11s %7.0f%s %7.3f %5.0f", "", p99[g, s], held(g, s) ? " " : "*",
				epr[g, s] * 1000, khz[g, s] / 1000
		}
		k = kind(s)
		printf "%s\n", k == "" ? "" : "  (" k ")"
	}
	if (!("slack" in govs) || !("performance" in govs) || !("schedutil" in govs)) {
		printf "\n  Headline: none, the run is incomplete (a governor has no steps).\n\n"
		exit
	}
	printf "\n  Per step, slack's energy per request against performance's and schedutil's:\n"
	for (s = 1; s <= nsteps; s++) {
		if (!(s in steps) || !(("slack", s) in p99) || epr["performance", s] <= 0 ||
		    epr["schedutil", s] <= 0)
			continue
		printf "    step %d, %3d %% (%d req/s): %+6.1f %% vs performance, %+6.1f %% vs schedutil; SLO %s by slack, %s by performance, %s by schedutil%s\n",
			s, share[s], rate[s], pct(epr["slack", s], epr["performance", s]),
			pct(epr["slack", s], epr["schedutil", s]),
			held("slack", s) ? "held" : "MISSED", held("performance", s) ? "held" : "missed",
			held("schedutil", s) ? "held" : "missed", kind(s) == "" ? "" : " (" kind(s) ")"
	}
	n = 0; list = ""
	for (s = 1; s <= nsteps; s++) {
		if (!(s in steps) || kind(s) != "") continue
		n++; list = list (list == "" ? "" : " ") s
		for (i = 1; i <= ng; i++) {
			g = gv[i]
			if (held(g, s)) nheld[g]++
			e[g] += ej[g, s]; r[g] += reqs(g, s)
		}
	}
	if (!n || r["slack"] <= 0 || r["performance"] <= 0 || r["schedutil"] <= 0) {
		printf "\n  Headline: none, no step within capacity has requests of all three.\n\n"
		exit
	}
	x = e["slack"] / r["slack"]
	printf "\n  Headline: within capacity (steps %s), slack held the SLO in %d of %d steps,\n", list, nheld["slack"], n
	printf "  performance in %d, schedutil in %d; slack's modeled energy per request was\n", nheld["performance"], nheld["schedutil"]
	printf "  %s and %s.\n", than(pct(x, e["performance"] / r["performance"]), "performance"),
		than(pct(x, e["schedutil"] / r["schedutil"]), "schedutil")
	for (s = 1; s <= nsteps; s++) {
		if (!(s in steps) || kind(s) == "") continue
		printf "  Step %d (%d %%, %s): client p99 %.0f us under performance, %.0f under schedutil, %.0f under slack.\n",
			s, share[s], kind(s), p99["performance", s], p99["schedutil", s], p99["slack", s]
	}
	printf "\n"
}
