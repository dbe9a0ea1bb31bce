# SPDX-License-Identifier: GPL-2.0
# results.awk - aggregate the bench's cells into results.json (mode=json),
# the rst tables of Documentation/evaluation-results.rst (mode=rst) or the
# Pareto plot's data (mode=pareto, -v shape=W).
# Input: cells.csv (rep,shape,gov,load,rate,rps,p50,p99,p999,energy_j,
# j_per_req,khz,idle,slo_windows,slo_over,srv_p99,speed0,speed1,pstates)
# with idle "state=permille;state=permille" and pstates
# "mhz=permille;mhz=permille"; gov "fixMHZ" is the userspace governor
# at that frequency (the static oracle's cells, rep 0).
# -v: fid=fidelity.csv (shape,load,client_rps,observed_rps,client_p99_us,
# server_p99_us,queue_us: the last three may be empty); burst=burst.csv
# (rep,shape,pattern,gov,requests,energy_j,j_per_req,steps,steps_over,sub_s,
# slo_windows,slo_over,phases "load:p99:requests;..."); slos ("shape=us
# ..."); slo_rule (how the SLO was chosen, text); caps ("shape=c0/c1/...":
# each shape's capacity at fmax at the start, after each repetition and at
# the end); capfix ("shape=rps ...": the rate BENCH_CAP fixed as the
# loads' 100 %, for the shapes it named); capdevs ("shape=d0/d1/...": CPU 0's speed at each of those
# points, per mille off the shape's reference); cap_tol, spread_tol,
# speed_tol (per cent: the disturbed marks); kernel, clock (the guest's),
# date, command, runs ("shape=DATE,COMMIT ...": when each workload's own
# guest ended and the commit it ran; empty when not recorded),
# overhead (a JSON object or null).  cells.csv's columns 17 and 18
# (optional): CPU 0's speed before and after the cell, per mille off the
# reference; column 19 (optional): CPU 1's time at each frequency, per
# mille of its measured run.
#
# Per workload shape, governor and load: means over the repetitions.  A cell
# whose p99 exceeds the workload's SLO is a violation.  The static oracle of
# a load is the fixed frequency of least energy per request whose p99 meets
# the SLO.  A workload is *disturbed*, and its verdict withheld, when its
# capacity moved by more than cap_tol % of the start's, or when the
# repetitions of a performance cell (one frequency throughout, so only the
# host moves them) differ in energy per request by more than spread_tol %
# of their mean ((max - min) / mean); such a spread of slack or schedutil,
# which choose their frequencies, is reported as their own (own_spread).
# Where the speeds were taken, a cell that started or ended more than
# speed_tol % off its workload's reference speed is *off
# speed*: left out of every mean and check (its load was not its level's),
# and counted; the capacity is compared only between points at the
# reference speed (what moves with the host's speed is accounted for cell
# by cell); and a cell the verdict reads with no repetition at the
# reference speed withholds it.  The first shape seen is the primary workload.  A
# workload's tables have a column per load it was measured at (the real
# server's matrix may be smaller than the sgserver shapes').
{
	w = $2; g = $3; l = $4 + 0; r = $1 + 0
	if (r > 0) reps[r] = 1
	if (!(w in shapes)) { shapes[w] = 1; sv[++ns] = w }
	if (g ~ /^fix[0-9]+$/) {
		if (!((w, g) in hasfix)) { hasfix[w, g] = 1; fv[w, ++nf[w]] = g }
	} else if (!(g in govs)) { govs[g] = 1; gv[++ng] = g }
	loads[l] = 1; wl[w, l] = 1
	k = w SUBSEP g SUBSEP l
	if (NF >= 18 && $17 != "") {
		hasspeed[w] = 1; ncells[w]++
		if (offspeed($17) || offspeed($18)) { noff[w]++; offk[k]++; next }
	}
	n[k]++
	rps[k] += $6; p50[k] += $7; p99[k] += $8; p999[k] += $9
	epr[k] += $11; khz[k] += $12
	rp99[k, r] = $8; hasrep[k, r] = 1
	if (!(k in emin) || $11 < emin[k]) emin[k] = $11
	if (!(k in emax) || $11 > emax[k]) emax[k] = $11
	if ($14 != "") { sw[k] += $14; so[k] += $15; hassw[k] = 1 }
	if ($16 != "" && $16 > 0) { sp99[k] += $16; nsp[k]++; rsp99[k, r] = $16 + 0 }
	tally($13, w, k, hasst, stv, nst, idle)
	if (NF >= 19 && $19 != "") {
		npst[k]++
		tally($19, w, k, haspf, pfv, npf, pst)
	}
}
# tally LIST W K SEEN KEYS NKEYS SUM: a cell's "key=value;key=value" LIST
# (C-states, P-states) added into SUM[K, key]; a key new to workload W is
# appended to KEYS[W, 1..NKEYS[W]], so that its tables keep the cells' order
function tally(list, w, k, seen, keys, nkeys, sum,   m, i, part, kv) {
	m = split(list, part, ";")
	for (i = 1; i <= m; i++) {
		split(part[i], kv, "=")
		if (kv[1] == "") continue
		if (!((w, kv[1]) in seen)) { seen[w, kv[1]] = 1; keys[w, ++nkeys[w]] = kv[1] }
		sum[k, kv[1]] += kv[2]
	}
}
function offspeed(d) { return speed_tol > 0 && (d < 0 ? -d : d) > speed_tol * 10 }
function fmt(x) { return sprintf("%.6g", x) }
function mean(a, k) { return n[k] ? a[k] / n[k] : 0 }
function spread(k) { return n[k] > 1 && epr[k] > 0 ? 100 * (emax[k] - emin[k]) / (epr[k] / n[k]) : 0 }
function add(s, t) { return s (s == "" ? "" : ", ") t }
function mhz(g) { return substr(g, 4) + 0 }
END {
	for (r in reps) nreps++
	nc = split(slos, cl, " ")
	for (i = 1; i <= nc; i++) { split(cl[i], kv, "="); slo[kv[1]] = kv[2] + 0 }
	nfix = split(capfix, fl, " ")
	for (i = 1; i <= nfix; i++) { split(fl[i], kv, "="); fixcap[kv[1]] = kv[2] + 0 }
	nc = split(caps, cl, " ")
	for (i = 1; i <= nc; i++) {
		split(cl[i], kv, "="); ncap[kv[1]] = split(kv[2], cv, "/")
		for (j = 1; j <= ncap[kv[1]]; j++) capv[kv[1], j] = cv[j] + 0
	}
	nc = split(capdevs, cl, " ")
	for (i = 1; i <= nc; i++) {
		split(cl[i], kv, "="); m = split(kv[2], cv, "/")
		for (j = 1; j <= m; j++) capd[kv[1], j] = cv[j] + 0
	}
	nc = split(runs, cl, " ")
	for (i = 1; i <= nc; i++) {
		split(cl[i], kv, "="); split(kv[2], cv, ",")
		rdate[kv[1]] = cv[1]; rcommit[kv[1]] = cv[2]
	}
	nl = 0; for (l in loads) lv[++nl] = l + 0
	for (i = 1; i <= nl; i++) for (j = i + 1; j <= nl; j++) if (lv[j] < lv[i]) { t = lv[i]; lv[i] = lv[j]; lv[j] = t }
	for (s = 1; s <= ns; s++) workload(sv[s])
	read_fidelity()
	read_burst()
	if (mode == "rst") { rst(); exit }
	if (mode == "pareto") { pareto(shape); exit }
	json()
}

# workload W: violations, the oracle, the disturbed mark and the verdict
function workload(w,   g, i, j, l, k, v, r, c0, d, ko, best, f, why, gi) {
	for (gi = 1; gi <= ng; gi++) violations(w, gv[gi])
	for (j = 1; j <= nf[w]; j++) violations(w, fv[w, j])
	for (i = 1; i <= nl; i++) {
		l = lv[i]; best = ""
		for (j = 1; j <= nf[w]; j++) {
			k = w SUBSEP fv[w, j] SUBSEP l
			# the cheapest fixed frequency whatever its p99 (lepr)
			if (n[k] && (!((w, l) in lepr) || mean(epr, k) < lepr[w, l])) { lepr[w, l] = mean(epr, k); lfix[w, l] = fv[w, j] }
			if (!n[k] || !slo[w] || mean(p99, k) > slo[w]) continue
			if (best == "" || mean(epr, k) < mean(epr, best)) { best = k; f = fv[w, j] }
		}
		if (best != "") { ofix[w, l] = f; oepr[w, l] = mean(epr, best); op99[w, l] = mean(p99, best) }
	}
	# the yardstick
	why = ""; capmove[w] = 0; capoff[w] = 0
	if (ncap[w] > 1 && capv[w, 1] > 0) {
		c0 = capv[w, 1]
		for (j = 2; j <= ncap[w]; j++) {
			if (offspeed(capd[w, j])) { capoff[w]++; continue }
			d = 100 * (capv[w, j] - c0) / c0
			if ((d < 0 ? -d : d) > (capmove[w] < 0 ? -capmove[w] : capmove[w])) capmove[w] = d
		}
		if (capmove[w] > cap_tol || capmove[w] < -cap_tol)
			why = add(why, sprintf("capacity moved %+.1f%% (%s req/s)", capmove[w], capsjoin(w, " -> ")))
	}
	own[w] = ""
	for (i = 1; i <= nl; i++) for (gi = 1; gi <= 3; gi++) {
		g = gi == 1 ? "slack" : gi == 2 ? "performance" : "schedutil"
		k = w SUBSEP g SUBSEP lv[i]
		# one frequency throughout: only the host moves performance's
		# cells; slack and schedutil choose theirs, and may spread so
		if (spread(k) > spread_tol) {
			d = sprintf("%s at %d%%: energy per request of its repetitions %.2f-%.2f mJ (spread %.0f%%)",
				g, lv[i], emin[k] * 1000, emax[k] * 1000, spread(k))
			if (g == "performance") why = add(why, d)
			else own[w] = add(own[w], d)
		}
		if (!n[k] && offk[k])
			why = add(why, sprintf("%s at %d%%: no repetition at the reference speed", g, lv[i]))
	}
	dist[w] = why
	verdict_of(w)
}
function violations(w, g,   i, k, r, v) {
	for (i = 1; i <= nl; i++) {
		k = w SUBSEP g SUBSEP lv[i]; v = 0
		for (r = 0; r <= 1000 && r <= nreps; r++) if (hasrep[k, r] && slo[w] > 0 && rp99[k, r] > slo[w]) v++
		viol[k] = v
	}
}
# capsjoin W SEP [A F]: W's capacity points (capv, or A) joined by SEP, each
# printed with F (default %s)
function capsjoin(w, sep, a, f,   j, s) {
	s = ""
	for (j = 1; j <= ncap[w]; j++) s = s (j > 1 ? sep : "") sprintf(f == "" ? "%s" : f, f == "" ? capv[w, j] : a[w, j])
	return s
}

# verdict_of W: issue 15's goal, criterion by criterion (crit[w, 1..4]: "" met,
# else where it is missed and what bounds it there; cn[w, c]: how many loads
# it was checked at).  A miss names what a reader needs to tell the law's
# fault from the rig's or the goal's: for the SLO, slackgov's server-side
# p99 of that repetition (within the SLO: the excess lies between the
# server's answer and the client); against schedutil, whether schedutil held
# the SLO and where the oracle itself stands (a fixed frequency that meets
# the SLO and is not 15 % below schedutil puts criterion 3 out of reach of
# any governor that holds it, and the cheapest fixed frequency of all, if
# it is not 15 % below, of any governor whatever the SLO: on the matrix's
# steady loads a mix of P-states costs about the mean of theirs, weighted
# by the time at each); against the oracle, how close the oracle's
# p99 came to the SLO, and slack's.
function verdict_of(w,   i, l, ks, kp, ku, r, c, d, why, m) {
	for (c = 1; c <= 4; c++) { crit[w, c] = ""; cn[w, c] = 0 }
	for (i = 1; i <= nl; i++) {
		l = lv[i]
		ks = w SUBSEP "slack" SUBSEP l; kp = w SUBSEP "performance" SUBSEP l; ku = w SUBSEP "schedutil" SUBSEP l
		if (!n[ks]) continue
		if (l >= 10 && l <= 90 && n[kp] && slo[w] > 0) {
			cn[w, 1]++
			for (r = 1; r <= nreps; r++)
				if (hasrep[ks, r] && hasrep[kp, r] && rp99[kp, r] <= slo[w] && rp99[ks, r] > slo[w])
					crit[w, 1] = add(crit[w, 1], sprintf("%d%% rep %d (p99 %.0f us, performance %.0f us%s)", l, r,
						rp99[ks, r], rp99[kp, r], ((ks, r) in rsp99) ? sprintf("; server-side %.0f us, %s", rsp99[ks, r],
						rsp99[ks, r] <= slo[w] ? "within the SLO" : "over it") : ""))
		}
		if (n[ku] && mean(epr, ku) > 0) {
			d = 100 * (mean(epr, ks) / mean(epr, ku) - 1)
			why = sprintf("; schedutil over the SLO in %d/%d", viol[ku], n[ku])
			if ((w, l) in oepr)
				why = why sprintf(", the oracle %+.1f%% against it", 100 * (oepr[w, l] / mean(epr, ku) - 1))
			m = sprintf("%d%% (%+.1f%%%s)", l, d, why)	# the load, as a miss of 2 or 3
			cn[w, 2]++
			if (d > 0) crit[w, 2] = add(crit[w, 2], m)
			if (l >= 30 && l <= 70) {
				cn[w, 3]++
				# no fixed frequency at all 15 % below schedutil: out
				# of reach at this load whatever the SLO
				if ((w, l) in lepr && lepr[w, l] / mean(epr, ku) > 0.85)
					m = sprintf("%d%% (%+.1f%%%s; no fixed frequency is 15%% below schedutil here, whatever its p99: the cheapest, %s, %+.1f%%)",
						l, d, why, lfix[w, l], 100 * (lepr[w, l] / mean(epr, ku) - 1))
				if (d > -15) crit[w, 3] = add(crit[w, 3], m)
			}
		}
		if ((w, l) in oepr) {
			cn[w, 4]++
			d = 100 * (mean(epr, ks) / oepr[w, l] - 1)
			if (d > 10) crit[w, 4] = add(crit[w, 4], sprintf("%d%% (%+.1f%% against %s, whose p99 is %.0f%% of the SLO; slack's %.0f%%)",
				l, d, ofix[w, l], 100 * op99[w, l] / slo[w], 100 * mean(p99, ks) / slo[w]))
		} else if (nf[w]) {
			cn[w, 4]++
			crit[w, 4] = add(crit[w, 4], sprintf("%d%% (no fixed frequency meets the SLO)", l))
		}
	}
}
function critname(c) {
	return c == 1 ? "at 10-90% load slack meets the SLO in every repetition in which performance meets it" : \
		c == 2 ? "slack uses no more modeled energy per request than schedutil at any load" : \
		c == 3 ? "slack uses at least 15% less than schedutil at 30-70% load" : \
		"slack is within 10% of the static oracle's energy per request"
}

function read_fidelity(   line, f, s, x, y, cxx, cyy, cxy, i) {
	if (fid != "") while ((getline line < fid) > 0) {
		split(line, f, ","); s = f[1]; x = f[3] + 0; y = f[4] + 0
		fshapes[s] = 1; fn[s]++; sx[s] += x; sy[s] += y; sxx[s] += x * x; syy[s] += y * y; sxy[s] += x * y
		i = fn[s]; fload[s, i] = f[2] + 0; fcp[s, i] = f[5] + 0; fsp[s, i] = f[6] + 0; fq[s, i] = f[7] + 0
		if (f[6] != "" && f[6] + 0 > 0) flat[s]++
	}
	for (s in fshapes) if (flat[s] > 1) spear[s] = spearman(s)
	for (s in fshapes) {
		cxx = sxx[s] - sx[s] * sx[s] / fn[s]; cyy = syy[s] - sy[s] * sy[s] / fn[s]
		cxy = sxy[s] - sx[s] * sy[s] / fn[s]
		slope[s] = cxx > 0 ? cxy / cxx : 0
		r2[s] = (cxx > 0 && cyy > 0) ? cxy * cxy / (cxx * cyy) : 0
	}
}

# spearman S: rank correlation of the client's p99 and the server-side p99
# over shape S's fidelity levels (ties get their mean rank)
function spearman(s,   i, j, m, rx, ry, mx, my, sxy2, sxx2, syy2) {
	m = fn[s]
	for (i = 1; i <= m; i++) { rx[i] = 1; ry[i] = 1
		for (j = 1; j <= m; j++) if (j != i) {
			rx[i] += (fcp[s, j] < fcp[s, i]) + 0.5 * (fcp[s, j] == fcp[s, i])
			ry[i] += (fsp[s, j] < fsp[s, i]) + 0.5 * (fsp[s, j] == fsp[s, i])
		}
		mx += rx[i] / m; my += ry[i] / m
	}
	for (i = 1; i <= m; i++) { sxy2 += (rx[i] - mx) * (ry[i] - my); sxx2 += (rx[i] - mx) * (rx[i] - mx); syy2 += (ry[i] - my) * (ry[i] - my) }
	return sxx2 > 0 && syy2 > 0 ? sxy2 / sqrt(sxx2 * syy2) : 0
}

# bursty rows, summed per shape, pattern and governor (means over the reps)
function read_burst(   line, f, k, m, ph, i, pv, w, p) {
	if (burst == "") return
	while ((getline line < burst) > 0) {
		split(line, f, ","); w = f[2]; p = f[3]
		if (!((w, p) in hasbp)) { hasbp[w, p] = 1; bpv[w, ++nbp[w]] = p }
		if (!((w, p, f[4]) in hasbg)) { hasbg[w, p, f[4]] = 1; bgv[w, p, ++nbg[w, p]] = f[4] }
		k = w SUBSEP p SUBSEP f[4]
		bn[k]++; bepr[k] += f[7]; bsteps[k] += f[8]; bover[k] += f[9]; bsub[k] = f[10] + 0
		if (f[11] != "") { bsw[k] += f[11]; bso[k] += f[12]; bhassw[k] = 1 }
		m = split(f[13], ph, ";")
		for (i = 1; i <= m; i++) {
			split(ph[i], pv, ":")
			if (!((w, p, pv[1]) in hasbl)) { hasbl[w, p, pv[1]] = 1; blv[w, p, ++nbl[w, p]] = pv[1] + 0 }
			bp99[k, pv[1] + 0] += pv[2]; bpn[k, pv[1] + 0]++
			if (slo[w] > 0 && pv[2] > slo[w]) bpover[k, pv[1] + 0]++
		}
	}
	for (w in shapes) for (i = 1; i <= nbp[w]; i++) burst_verdict(w, bpv[w, i])
}
function bk(w, p, g) { return w SUBSEP p SUBSEP g }
function bmean(a, k) { return bn[k] ? a[k] / bn[k] : 0 }
# burst_verdict W P: slack against schedutil's energy, and slack's phases
# over the SLO where performance's are within it
function burst_verdict(w, p,   ks, kp, ku, j, l, d) {
	bcrit1[w, p] = ""; bcrit2[w, p] = ""
	ks = bk(w, p, "slack"); kp = bk(w, p, "performance"); ku = bk(w, p, "schedutil")
	if (!bn[ks]) return
	if (bn[ku] && bmean(bepr, ku) > 0) {
		d = 100 * (bmean(bepr, ks) / bmean(bepr, ku) - 1)
		if (d > 0) bcrit1[w, p] = sprintf("%+.1f%%", d)
		bd[w, p] = d
	}
	if (bn[kp]) for (j = 1; j <= nbl[w, p]; j++) {
		l = blv[w, p, j]
		if (bpover[ks, l] > bpover[kp, l])
			bcrit2[w, p] = add(bcrit2[w, p], sprintf("%d%% phases (p99 %.0f us, performance %.0f us)", l,
				bp99[ks, l] / bpn[ks, l], bp99[kp, l] / bpn[kp, l]))
	}
}

# ---- json ---------------------------------------------------------------------------
function jstr(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
function json(   s, w, i, l, sep, c, p, g, j, k) {
	printf "{\"kernel\": %s, \"guest_clock\": %s, \"date\": %s, \"repetitions\": %d,\n", jstr(kernel), jstr(clock), jstr(date), nreps
	printf " \"command\": %s,\n", jstr(command)
	printf " \"slo_rule\": %s,\n", jstr(slo_rule)
	printf " \"disturbed_rule\": %s,\n", jstr(sprintf("capacity moved by more than %s%% of the start's, or a cell of performance whose repetitions' energy per request spans more than %s%% of their mean%s (slack's and schedutil's spreads are their own: own_spread)", cap_tol, spread_tol,
		speed_tol > 0 ? sprintf(", or has no repetition within %s%% of the workload's reference speed (cells and capacities off it are left out)", speed_tol) : ""))
	printf " \"energy\": \"modeled (emulated platform), governed CPU only\",\n"
	printf " \"overhead\": %s,\n \"fidelity\": {", overhead
	sep = ""
	for (s in fshapes) {
		printf "%s\"%s\": {\"r2\": %s, \"slope\": %s, \"levels\": %d, \"latency\": ", sep, s, fmt(r2[s]), fmt(slope[s]), fn[s]; sep = ", "
		if (!flat[s]) { printf "null}"; continue }
		printf "{\"spearman\": %s, \"levels\": [", (s in spear) ? fmt(spear[s]) : "null"
		for (i = 1; i <= fn[s]; i++) printf "%s{\"load\": %d, \"client_p99_us\": %s, \"server_p99_us\": %s, \"ratio\": %s, \"queue_mean_us\": %s}",
			(i > 1 ? ", " : ""), fload[s, i], fmt(fcp[s, i]), fmt(fsp[s, i]), (fcp[s, i] > 0 ? fmt(fsp[s, i] / fcp[s, i]) : "null"), fmt(fq[s, i])
		printf "]}}"
	}
	printf "},\n \"primary_workload\": \"%s\",\n \"control\": ", sv[1]
	matrix(sv[1], "  ")
	printf ",\n \"workloads\": {"
	for (s = 1; s <= ns; s++) {
		w = sv[s]
		printf "%s\n  \"%s\": {\"slo_us\": %s, \"capacity_rps\": %s, \"capacities_rps\": [%s], \"capacity_moved_pct\": %s,\n", (s > 1 ? "," : ""), w,
			fmt(slo[w]), ncap[w] ? capv[w, 1] : "null", capsjoin(w, ", "), fmt(capmove[w])
		if (w in rdate) printf "   \"measured\": %s, \"commit\": %s,\n", jstr(rdate[w]), jstr(rcommit[w])
		printf "   \"disturbed\": %s, \"disturbed_why\": %s, \"own_spread\": %s,\n", dist[w] == "" ? "false" : "true", jstr(dist[w]), jstr(own[w])
		if (hasspeed[w]) printf "   \"cells_off_speed\": %d, \"cells\": %d, \"capacities_off_speed\": %d,\n", noff[w], ncells[w], capoff[w]
		printf "   \"verdict\": "
		if (dist[w] != "") printf "null"
		else {
			printf "{"
			for (c = 1; c <= 4; c++) printf "%s\"%d\": {\"criterion\": %s, \"checked\": %d, \"met\": %s, \"missed_at\": %s}",
				(c > 1 ? ", " : ""), c, jstr(critname(c)), cn[w, c], (cn[w, c] && crit[w, c] == "" ? "true" : "false"), jstr(crit[w, c])
			printf "}"
		}
		printf ",\n   \"oracle\": {"
		sep = ""
		for (i = 1; i <= nl; i++) {
			l = lv[i]
			if (!nf[w] || !((w, l) in wl)) continue
			printf "%s\"%d\": ", sep, l; sep = ", "
			if ((w, l) in oepr) printf "{\"freq_mhz\": %d, \"energy_j_per_req\": %s, \"p99_us\": %s}", mhz(ofix[w, l]), fmt(oepr[w, l]), fmt(op99[w, l])
			else printf "null"
		}
		printf "},\n   \"fixed\": {"
		for (j = 1; j <= nf[w]; j++) { printf "%s\n    \"%d\": ", (j > 1 ? "," : ""), mhz(fv[w, j]); row(w, fv[w, j]) }
		printf "},\n   \"bursty\": {"
		for (i = 1; i <= nbp[w]; i++) {
			p = bpv[w, i]
			printf "%s\n    \"%s\": {\"verdict\": ", (i > 1 ? "," : ""), p
			if (dist[w] != "") printf "null"
			else printf "{\"no_more_energy_than_schedutil\": %s, \"slo_held_where_performance_held\": %s, \"missed_at\": %s}",
				bcrit1[w, p] == "" ? "true" : "false", bcrit2[w, p] == "" ? "true" : "false", jstr(add(bcrit1[w, p] == "" ? "" : "energy " bcrit1[w, p], bcrit2[w, p]))
			for (j = 1; j <= nbg[w, p]; j++) {
				g = bgv[w, p, j]; k = bk(w, p, g)
				printf ", \"%s\": {\"energy_j_per_req\": %s, \"time_over_slo_s\": %s, \"time_s\": %s, \"windows_over_slo_share\": %s, \"runs\": %d, \"phase_p99_us\": {",
					g, fmt(bmean(bepr, k)), fmt(bmean(bover, k) * bsub[k]), fmt(bmean(bsteps, k) * bsub[k]),
					(bhassw[k] && bsw[k] > 0 ? fmt(bso[k] / bsw[k]) : "null"), bn[k]
				for (c = 1; c <= nbl[w, p]; c++) { l = blv[w, p, c]; printf "%s\"%d\": %s", (c > 1 ? ", " : ""), l, (bpn[k, l] ? fmt(bp99[k, l] / bpn[k, l]) : "null") }
				printf "}}"
			}
			printf "}"
		}
		printf "},\n   \"control\": "
		matrix(w, "    ")
		printf "}"
	}
	printf "\n }\n}\n"
}
function matrix(w, ind,   gi) {
	printf "{"
	for (gi = 1; gi <= ng; gi++) { printf "%s\n%s\"%s\": ", (gi > 1 ? "," : ""), ind, gv[gi]; row(w, gv[gi]) }
	printf "}"
}
function row(w, g,   i, l, k, c, lsep, j, st, isep) {
	printf "{"; lsep = ""
	for (i = 1; i <= nl; i++) {
		l = lv[i]; k = w SUBSEP g SUBSEP l; c = n[k]
		if (!c) continue
		printf "%s\"%d\": {\"rps\": %s, \"p50_us\": %s, \"p99_us\": %s, \"p999_us\": %s, \"slo_violations\": %d, \"energy_j_per_req\": %s, \"energy_spread_pct\": %s, \"energy_to_oracle\": %s, \"windows_over_slo_share\": %s, \"server_p99_us\": %s, \"mean_khz\": %s, \"cells\": %d, \"idle_permille\": {",
			lsep, l, fmt(rps[k] / c), fmt(p50[k] / c), fmt(p99[k] / c), fmt(p999[k] / c),
			viol[k], fmt(epr[k] / c), fmt(spread(k)), (((w, l) in oepr) ? fmt(epr[k] / c / oepr[w, l]) : "null"),
			(hassw[k] && sw[k] > 0 ? fmt(so[k] / sw[k]) : "null"), (nsp[k] ? fmt(sp99[k] / nsp[k]) : "null"), fmt(khz[k] / c), c
		isep = ""
		for (j = 1; j <= nst[w]; j++) { st = stv[w, j]; printf "%s\"%s\": %s", isep, st, fmt(idle[k, st] / c); isep = ", " }
		printf "}, \"pstate_permille\": "
		if (!npst[k]) printf "null"
		else {
			printf "{"; isep = ""
			for (j = 1; j <= npf[w]; j++) { st = pfv[w, j]; printf "%s\"%s\": %s", isep, st, fmt(pst[k, st] / npst[k]); isep = ", " }
			printf "}"
		}
		printf "}"
		lsep = ", "
	}
	printf "}"
}

# ---- pareto: "gov load mJ_per_req p99_us" per cell mean, the fixed
# frequencies' cells as gov "fixed", then per load the fixed frequencies'
# Pareto frontier (those not dominated by another of the same load, by
# ascending p99) as gov "frontier", a blank line between loads; W the workload
function pareto(w,   gi, i, j, k, m, a, b, t) {
	for (gi = 1; gi <= ng; gi++) for (i = 1; i <= nl; i++) {
		k = w SUBSEP gv[gi] SUBSEP lv[i]
		if (n[k]) printf "%s %d %.6f %.0f\n", gv[gi], lv[i], mean(epr, k) * 1000, mean(p99, k)
	}
	for (j = 1; j <= nf[w]; j++) for (i = 1; i <= nl; i++) {
		k = w SUBSEP fv[w, j] SUBSEP lv[i]
		if (n[k]) printf "fixed %d %.6f %.0f\n", lv[i], mean(epr, k) * 1000, mean(p99, k)
	}
	for (i = 1; i <= nl; i++) {
		m = 0
		for (j = 1; j <= nf[w]; j++) {
			k = w SUBSEP fv[w, j] SUBSEP lv[i]
			if (n[k]) { m++; pe[m] = mean(epr, k) * 1000; pp[m] = mean(p99, k) }
		}
		for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (pp[b] < pp[a]) {
			t = pp[a]; pp[a] = pp[b]; pp[b] = t; t = pe[a]; pe[a] = pe[b]; pe[b] = t }
		t = -1
		printf "\n"
		for (a = 1; a <= m; a++) if (t < 0 || pe[a] < t) { printf "frontier %d %.6f %.0f\n", lv[i], pe[a], pp[a]; t = pe[a] }
	}
}

# ---- rst ----------------------------------------------------------------------------
function rst(   title, s, w, line, p, i) {
	print ".. SPDX-License-Identifier: GPL-2.0"
	print ""
	print ".. Generated by ``make bench`` (selftests/bench/run) with build/bench/results.json;"
	print "   do not edit.  All energy is modeled by the emulated platform."
	print ""
	printf "Run: guest kernel %s, guest clock %s, %s, up to %d repetitions per cell (a workload's tables count its own).  To\nreproduce every table\n", kernel, clock == "" ? "not recorded" : clock, date, nreps
	printf "below::\n\n   %s\n\n", command
	for (w in rcommit) if (!(rcommit[w] in seen_commit)) { seen_commit[rcommit[w]] = 1; ncommit++ }
	if (ncommit > 1)
		print "The workloads were measured by separate runs of that command's guests, at the commits and dates each names below.\n"
	print "SLO: " slo_rule "."
	print "Disturbed: a workload whose capacity at fmax moved by more than " cap_tol "% of the"
	print "start's during the run, or whose repetitions of a cell of performance (one"
	print "frequency throughout: only the host moves them) differ in energy per request by"
	print "more than " spread_tol "% of their mean, is marked **disturbed** and its verdict is"
	print "withheld.  slack and schedutil choose their frequencies, and a spread of theirs"
	print "over " spread_tol "% is shown as their own."
	if (speed_tol > 0) {
		print "Speed: CPU 0's speed was taken with each capacity (the start's is the"
		print "workload's reference) and before and after every cell.  A cell that started or"
		print "ended more than " speed_tol "% off the reference ran again (up to three times);"
		print "one still off speed is left out of every figure below, and a capacity taken"
		print "off speed is not compared.  A workload with a cell of slack, performance or"
		print "schedutil left with no repetition at the reference speed is disturbed."
	}
	print ""
	for (s = 1; s <= ns; s++) {
		w = sv[s]
		title = sprintf("Workload ``%s`` (SLO p99 <= %.0f us%s%s)", w, slo[w],
			ncap[w] ? sprintf(", capacity %d req/s", capv[w, 1]) : "",
			fixcap[w] ? sprintf(", loads of %d req/s fixed by BENCH_CAP", fixcap[w]) : "")
		line = sprintf("%" length(title) "s", ""); gsub(/ /, "~", line)
		print title; print line
		print ""
		printf "Reproduce this workload's tables::\n\n   BENCH_SHAPES=%s %s\n\n", w, cmdbase
		if (w in rdate)
			printf "Measured by its own guest, which ended %s, at commit %s.\n\n", rdate[w], rcommit[w]
		if (ncap[w]) printf "Capacity at fmax at the start, after each repetition and at the end: %s req/s (moved %+.1f%%%s).\n\n", capsjoin(w, ", "), capmove[w],
			capoff[w] ? sprintf(" between the %d taken at the reference speed; CPU 0's speed at each, per mille off the reference: %s", ncap[w] - capoff[w], capsjoin(w, ", ", capd, "%+d")) : ""
		if (hasspeed[w]) printf "Off speed: %d of %d cells, left out.\n\n", noff[w], ncells[w]
		if (dist[w] != "") {
			printf "**Disturbed**: %s.  Verdict withheld; the figures are shown as measured.\n\n", dist[w]
		}
		if (own[w] != "")
			printf "**Spread of its own** (a governor's choices, not the host: performance's cells did not spread): %s.  The verdict reads the means.\n\n", own[w]
		print "Modeled energy per request (mJ) with the spread of its repetitions, mean client"
		print "p99 (us), SLO violations (cells over the SLO, out of the repetitions) and the"
		print "share of slackgov's 10 ms windows over the SLO, per governor and load (% of"
		if (fixcap[w]) printf "the %d req/s that BENCH_CAP fixed):\n", fixcap[w]
		else print "the capacity at fmax measured at the start):"
		print ""
		table(w, "governor", "cost", "", 0)
		if (nf[w]) {
			print "Static oracle: the userspace governor at each fixed frequency, one repetition"
			print "per cell (its spread is of the order of the matrix's above); the oracle of a"
			print "load is the cheapest frequency whose p99 meets the SLO.  Energy per request"
			print "(mJ) and p99 (us):"
			print ""
			table(w, "frequency", "cost", "", 1)
			print "Every governor's energy per request as a ratio to the oracle's (below 1:"
			print "cheaper than any fixed frequency that meets the SLO; - : no frequency meets it):"
			print ""
			table(w, "governor", "oracle", "", 0)
			printf ".. image:: evaluation-pareto-%s.png\n   :alt: energy per request against p99, %s\n\n", w, w
			print "(Energy per request against client p99, one point per governor and load;"
			print "the line is the fixed frequencies' Pareto frontier.)"
			print ""
		}
		if (("slack" in govs) && ("performance" in govs)) {
			print "slack against the others: modeled energy per request relative to each"
			print "governor (negative: slack uses less), and SLO violations (slack - other):"
			print ""
			table(w, "versus", "vs", "slack", 0)
		}
		for (i = 1; i <= nbp[w]; i++) burst_table(w, bpv[w, i])
		if (("slack" in govs)) verdict(w)
		if (nst[w]) {
			print "Mean frequency (MHz) and C-state residency of the governed CPU (per mille of"
			print "the cell's time, " stlist(w) "):"
			print ""
			table(w, "governor", "freq", "", 0)
		}
		if (npf[w]) {
			print "P-state residency of the governed CPU (MHz: per cent of its measured"
			print "time at that frequency, the mean over the repetitions; under 1 % not shown):"
			print ""
			table(w, "governor", "pstate", "", 0)
		}
	}
	for (s in fshapes) nfs++
	if (nfs) {
		print "Metric fidelity (observed RPS from the BPF side against the client's):"
		print ""
		print ".. list-table::"
		print "   :header-rows: 1"
		print ""
		print "   * - server shape\n     - R^2\n     - slope\n     - levels"
		for (s in fshapes) printf "   * - %s\n     - %.5f\n     - %.4f\n     - %d\n", s, r2[s], slope[s], fn[s]
		print ""
	}
	for (s in fshapes) {
		if (!flat[s]) continue
		printf "Latency fidelity, ``%s``: the server-side p99 slackgov measured (``sgwin -f``)\n", s
		printf "against the client's, per level (Spearman's rank correlation %s):\n\n", (s in spear) ? sprintf("%.3f", spear[s]) : "-"
		print ".. list-table::"
		print "   :header-rows: 1"
		print ""
		print "   * - load\n     - client p99 (us)\n     - server-side p99 (us)\n     - server / client\n     - mean queueing (us)"
		for (i = 1; i <= fn[s]; i++) printf "   * - %d%%\n     - %.0f\n     - %.0f\n     - %s\n     - %.0f\n", fload[s, i], fcp[s, i], fsp[s, i],
			(fcp[s, i] > 0 ? sprintf("%.2f", fsp[s, i] / fcp[s, i]) : "-"), fq[s, i]
		print ""
	}
	if (overhead != "null" && overhead != "") {
		print "BPF overhead on the host kernel (``selftests/metrics/bench-overhead.sh``, medians of " \
			ov("reps") " interleaved repetitions; issue 18's goal: syscalls outside the watched families within x1.05 of nothing attached, " \
			"watched syscalls of untraced processes <= x1.3, counted events of targets <= x1.5; fentry rows where the kernel allows it):"
		print ""
		print ".. list-table::"
		print "   :header-rows: 1"
		print ""
		print "   * - cost\n     - ns\n     - ratio to nothing attached"
		ovrow("getppid with nothing attached (the baseline)", ov("baseline_ns"), "")
		ovrow("empty tp_btf sys_enter + sys_exit (the floor), per syscall", "+" ov("empty_ns"), "")
		ovrow("untraced process, per syscall", "+" ov("untraced_ns"), "x" ov("untraced_ratio"))
		ovrow("untraced process, per send or recv", "+" ov("untraced_sendrecv_ns"),
		      ov("untraced_sendrecv_ratio") != "" ? "x" ov("untraced_sendrecv_ratio") " (send + recv pair)" : "")
		ovrow("target, per counted event (send or recv)", "+" ov("traced_ns"), "x" ov("traced_ratio") " (send + recv pair)")
		ovrow("target, per uncounted syscall", "+" ov("target_other_ns"), "")
		if (ov("fe_untraced_ratio") != "") {
			ovrow("fentry hooks: empty fentry/fexit on the watched syscalls, per getppid", "+" ov("fe_empty_ns"), "")
			ovrow("fentry hooks: untraced process, per getppid (unwatched)", "+" ov("fe_untraced_ns"),
			      "x" ov("fe_untraced_ratio"))
			ovrow("fentry hooks: untraced process, per send or recv (watched)", "+" ov("fe_untraced_sendrecv_ns"),
			      "x" ov("fe_untraced_sendrecv_ratio") " (send + recv pair)")
			ovrow("fentry hooks: target, per counted event (send or recv)", "+" ov("fe_traced_ns"),
			      "x" ov("fe_traced_ratio") " (send + recv pair)")
		}
		if (ov("switch_ns") != "") {
			ovrow("context switch of an untraced process", "+" ov("switch_ns"), "")
			ovrow("context switch of a target", "+" ov("target_switch_ns"), "")
		}
		if (ov("tcp_probe_seg_ns") != "") {
			ovrow("received TCP segment of any process (tcp_probe, with its read)",
			      "+" ov("tcp_probe_seg_ns"), "x" ov("tcp_probe_seg_ratio") " (per segment of a loopback round trip)")
			ovrow("timed request of a target (latency programs)", "+" ov("lat_req_ns"),
			      "x" ov("lat_req_ratio") " (round trip)")
			ovrow("share of a CPU at 10^6 received segments/s", ov("cpu_share_1m_segs"), "")
		}
		print ""
		print "The same, as ``results.json`` holds it::"
		print ""
		print "   " overhead
		print ""
	}
}
# burst_table W P: one bursty pattern's table, a row per governor
function burst_table(w, p,   j, g, k, c, l, ku) {
	printf "Bursty load ``%s``: phases of %s%% of capacity (as below); time over the SLO\n", p, bloads(w, p)
	print "(client p99 of each sub-step against the SLO), share of slackgov's windows over"
	print "it, energy per request and its ratio to schedutil's, client p99 per phase load:"
	print ""
	print ".. list-table::"
	print "   :header-rows: 1"
	print ""
	printf "   * - governor\n     - mJ/request\n     - vs schedutil\n     - time over SLO\n     - windows over SLO\n"
	for (c = 1; c <= nbl[w, p]; c++) printf "     - p99 at %d%%\n", blv[w, p, c]
	ku = bk(w, p, "schedutil")
	for (j = 1; j <= nbg[w, p]; j++) {
		g = bgv[w, p, j]; k = bk(w, p, g)
		printf "   * - %s\n     - %.3f\n     - %s\n     - %.1f of %.0f s\n     - %s\n", g, bmean(bepr, k) * 1000,
			(bn[ku] && bmean(bepr, ku) > 0) ? sprintf("%+.1f%%", 100 * (bmean(bepr, k) / bmean(bepr, ku) - 1)) : "",
			bmean(bover, k) * bsub[k], bmean(bsteps, k) * bsub[k],
			(bhassw[k] && bsw[k] > 0 ? sprintf("%.1f%%", 100 * bso[k] / bsw[k]) : "n/a")
		for (c = 1; c <= nbl[w, p]; c++) { l = blv[w, p, c]; printf "     - %s\n", bpn[k, l] ? sprintf("%.0f us", bp99[k, l] / bpn[k, l]) : "" }
	}
	print ""
}
function bloads(w, p,   c, s) { s = ""; for (c = 1; c <= nbl[w, p]; c++) s = s (c > 1 ? "/" : "") blv[w, p, c]; return s }
# verdict W: issue 15's goal, generated from the means and repetitions above
function verdict(w,   c, i, p) {
	print "Against issue 15's goal (generated from the figures above):"
	print ""
	if (dist[w] != "") {
		print "* verdict withheld: the run is disturbed (above)."
		print ""
		return
	}
	for (c = 1; c <= 4; c++) {
		if (!cn[w, c]) printf "* %s: not checked (cells missing).\n", critname(c)
		else if (crit[w, c] == "") printf "* %s: **met** (%d load%s).\n", critname(c), cn[w, c], (cn[w, c] > 1 ? "s" : "")
		else printf "* %s: **missed** at %s.\n", critname(c), crit[w, c]
	}
	for (i = 1; i <= nbp[w]; i++) {
		p = bpv[w, i]
		if (!bn[bk(w, p, "slack")]) continue
		printf "* bursty ``%s``: slack's energy per request against schedutil's %s; %s.\n", p,
			bcrit1[w, p] == "" ? "**met**" : "**missed** (" bcrit1[w, p] ")",
			bcrit2[w, p] == "" ? "the SLO held in every phase load where performance held it" : \
				"the SLO was **missed** where performance held it at " bcrit2[w, p]
	}
	print ""
}
# ov KEY: a number of the overhead JSON object ("" if absent)
function ov(key,   m) {
	if (!match(overhead, "\"" key "\": *[-0-9.]+"))
		return ""
	m = substr(overhead, RSTART, RLENGTH)
	sub(/.*: */, "", m)
	return m
}
function ovrow(what, ns, ratio) { printf "   * - %s\n     - %s\n     -%s\n", what, ns, ratio == "" ? "" : " " ratio }
function stlist(w,   j, s) { s = ""; for (j = 1; j <= nst[w]; j++) s = s (j > 1 ? ", " : "") stv[w, j]; return s }

# table W HEAD KIND SKIP FIXED: one list-table of workload W, a row per
# governor (but SKIP), or per fixed frequency with FIXED, and a column per
# load, each cell rendered by cell(KIND)
function table(w, head, kind, skip, fixed,   gi, g, i, cnt) {
	print ".. list-table::"
	print "   :header-rows: 1"
	print ""
	printf "   * - %s\n", head
	for (i = 1; i <= nl; i++) if ((w, lv[i]) in wl) printf "     - %d%%\n", lv[i]
	cnt = fixed ? nf[w] : ng
	for (gi = 1; gi <= cnt; gi++) {
		g = fixed ? fv[w, gi] : gv[gi]
		if (g == skip) continue
		printf "   * - %s\n", fixed ? mhz(g) " MHz" : g
		for (i = 1; i <= nl; i++) if ((w, lv[i]) in wl) printf "     - %s\n", cell(kind, w, g, lv[i])
	}
	if (kind == "oracle") {
		printf "   * - (oracle)\n"
		for (i = 1; i <= nl; i++) if ((w, lv[i]) in wl) printf "     - %s\n", (w, lv[i]) in oepr ? sprintf("%d MHz, %.3f mJ", mhz(ofix[w, lv[i]]), oepr[w, lv[i]] * 1000) : "-"
	}
	print ""
}
# cell KIND W G L: one cell's text, empty when the cell was not measured
function cell(kind, w, g, l,   k, c, pk, j, t) {
	k = w SUBSEP g SUBSEP l; c = n[k]
	if (kind == "vs") {
		pk = w SUBSEP "slack" SUBSEP l
		if (!c || !n[pk] || epr[k] <= 0) return ""
		return sprintf("%+.1f%%, %+d", (epr[pk] / n[pk]) / (epr[k] / c) * 100 - 100, viol[pk] - viol[k])
	}
	if (!c) return ""
	if (kind == "oracle") return (w, l) in oepr ? sprintf("x%.2f", epr[k] / c / oepr[w, l]) : "-"
	if (kind == "cost") {
		t = sprintf("%.3f mJ", epr[k] / c * 1000)
		if (c > 1) t = t sprintf(" (±%.0f%%)", spread(k) / 2)
		t = t sprintf(", %.0f us, %d/%d", p99[k] / c, viol[k], c)
		if (hassw[k] && sw[k] > 0) t = t sprintf(", %.1f%% of windows over", 100 * so[k] / sw[k])
		return t
	}
	if (kind == "pstate") {
		if (!npst[k]) return "-"
		for (j = 1; j <= npf[w]; j++)
			if (pst[k, pfv[w, j]] / npst[k] >= 10)
				t = add(t, sprintf("%s: %.0f%%", pfv[w, j], pst[k, pfv[w, j]] / npst[k] / 10))
		return t
	}
	t = sprintf("%.0f MHz;", khz[k] / c / 1000)
	for (j = 1; j <= nst[w]; j++) t = t sprintf(" %.0f", idle[k, stv[w, j]] / c)
	return t
}
