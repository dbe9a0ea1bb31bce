# SPDX-License-Identifier: GPL-2.0
# host-results.sh - the bench's aggregation (selftests/bench/results.awk) on
# fixtures of cells: a steady run gets a verdict, the static oracle is the
# cheapest fixed frequency that meets the SLO, a run whose capacity moved by
# more than 10 % or whose repetitions of one performance cell spread too far
# is marked disturbed with its verdict withheld (slack's spread is its own:
# shown, the verdict given), a repetition over the SLO where
# performance met it is reported as a miss, criterion 3's miss names the
# cheapest fixed frequency where none is 15 % below schedutil, the bursty
# table is read, the P-state residency is averaged over the cells counted
# and shown where it was measured, a
# workload measured at fewer loads (the real server's reduced matrix) gets
# tables and JSON of its own loads only, cells and capacities taken off the
# reference speed are left out (and a cell left with no repetition at it
# withholds the verdict), each workload's own guest run is named (date and
# commit), and compare tells two runs that agree from two that do not.
. "$SG_TOP/selftests/lib/ktap.sh"

D=$(mktemp -d)
sg_defer "rm -rf $D"
AWK=$SG_TOP/selftests/bench/results.awk

# cells W SLACK_50_REP3_MJ SLACK_70_REP2_P99 [LOADS [SCHEDUTIL_MJ]]: a workload
# W at 5 loads (or LOADS), 3 repetitions; energy per request (mJ) performance
# 10, schedutil 8 (or SCHEDUTIL_MJ),
# slack 6 (rep 3 at 50 % as given), p99 3000/6000/8000 us (slack's rep 2 at
# 70 % as given); fixed frequencies: 1000 MHz cheap but over the SLO
# (10000 us), 1800 MHz the cheapest within it (5.5 mJ), 3000 MHz = performance
cells() {
	awk -v w="$1" -v s50="$2" -v p70="$3" -v loads="${4:-10 30 50 70 90}" -v su="${5:-8}" 'BEGIN {
		nl = split(loads, L, " ")
		for (i = 1; i <= nl; i++) {
			l = L[i]
			printf "0,%s,fix1000,%d,100,100,900,50000,60000,0.4,0.004000,1000000,,,,\n", w, l
			printf "0,%s,fix1800,%d,100,100,900,9000,9500,0.55,0.005500,1800000,,,,\n", w, l
			printf "0,%s,fix3000,%d,100,100,900,3000,3500,1.0,0.010000,3000000,,,,\n", w, l
			for (r = 1; r <= 3; r++) {
				e = (l == 50 && r == 3) ? s50 / 1000 : 0.006
				p = (l == 70 && r == 2) ? p70 : 8000
				printf "%d,%s,slack,%d,100,100,900,%d,9000,0.6,%.6f,1800000,C1=500;C6=100,50,2,5000\n", r, w, l, p, e
				printf "%d,%s,performance,%d,100,100,900,3000,3500,1.0,0.010000,3000000,C1=500;C6=100,50,0,2800\n", r, w, l
				printf "%d,%s,schedutil,%d,100,100,900,6000,7000,0.8,%.6f,2200000,C1=500;C6=100,50,1,5500\n", r, w, l, su / 1000
			}
		}
	}'
}
cells steady 6 8000 > "$D/cells.csv"
cells moved 6 8000 >> "$D/cells.csv"
cells spread 7.5 8000 >> "$D/cells.csv"
# performance's rep 3 at 50 % at 12 mJ instead of 10: one frequency
# throughout, so the host moved it
cells perfspread 6 8000 | awk -F, -v OFS=, '$3 == "performance" && $4 == 50 && $1 == 3 { $11 = "0.012000" } 1' >> "$D/cells.csv"
cells miss 6 12000 >> "$D/cells.csv"
# with CPU 0's speed per cell (columns 17, 18, per mille off the reference):
# speedy's slack at 50 % rep 1 started 15 % fast and cost 20 mJ (left out,
# it spreads nothing); slowed's slack at 30 % ended 20 % slow in all three
# and CPU 1's P-state residency (column 19): slack's cells at 50 % 70/30 %
# at 1800/2200 MHz but the one left out, 0/100 %
cells speedy 6 8000 | awk -F, -v OFS=, '{ d = 0; if ($3 == "slack" && $4 == 50 && $1 == 1) { d = 150; $11 = "0.020000" }
	p = $3 == "performance" ? "1800=0;2200=0;3000=1000" : (d ? "1800=0;2200=1000;3000=0" : "1800=700;2200=300;3000=0")
	print $0, d, 0, p }' >> "$D/cells.csv"
cells slowed 6 8000 | awk -F, '{ print $0 ",0," ($3 == "slack" && $4 == 30 ? -200 : 3) }' >> "$D/cells.csv"
# schedutil at 4.5 mJ, 1000 MHz (4 mJ, over the SLO) the cheapest of all:
# no governor is 15 % below schedutil there, whatever the SLO
cells cheap 6 8000 "10 30 50 70 90" 4.5 >> "$D/cells.csv"
# the real server's reduced matrix, last (the rst check below reads its
# section up to the fidelity table)
cells memcached 6 8000 "10 30 50 70" >> "$D/cells.csv"
# shape,load,client_rps,observed_rps,client_p99,server_p99,queue_us: the
# server-side p99 in the client's order but one pair swapped
cat > "$D/fid.csv" <<'EOT'
steady,10,100,99,3000,2000,100
steady,30,300,298,4000,3500,300
steady,50,500,497,9000,8000,900
steady,70,700,690,8000,8500,2000
steady,90,900,880,40000,39000,9000
EOT
# rep,shape,pattern,gov,requests,energy_j,j_per_req,steps,steps_over,sub_s,slo_windows,slo_over,phases
cat > "$D/burst.csv" <<'EOT'
1,steady,burst,slack,1000,5.0,0.005000,28,2,0.5,1400,30,20:4000:300;80:11000:700
1,steady,burst,performance,1000,9.0,0.009000,28,0,0.5,1400,0,20:3000:300;80:5000:700
1,steady,burst,schedutil,1000,6.0,0.006000,28,6,0.5,1400,90,20:7000:300;80:14000:700
EOT
agg() {	# agg MODE: the fixtures aggregated
	awk -F, -v mode="$1" -v kernel=fixture -v date=now -v command="make bench" -v cmdbase="make bench" \
		-v slos="cheap=10000 steady=10000 moved=10000 spread=10000 perfspread=10000 miss=10000 memcached=10000 speedy=10000 slowed=10000" -v slo_rule=fixture \
		-v caps="cheap=1000/1000/1000/1000 steady=1000/1010/990/1005 moved=1000/1010/850/1000 spread=1000/1000/1000/1000 perfspread=1000/1000/1000/1000 miss=1000/1000/1000/1000 memcached=900/910/905 speedy=1000/700/1000/1010 slowed=1000/1000/1000/1000" \
		-v capdevs="speedy=0/-300/10/5 slowed=0/0/0/0" \
		-v runs="steady=2026-11-28T17:40:31Z,2e479f7 memcached=2026-11-28T21:00:00Z,4b7d9d1-dirty" \
		-v cap_tol=10 -v spread_tol=10 -v speed_tol=8 -v burst="$D/burst.csv" -v fid="$D/fid.csv" -v overhead=null \
		-f "$AWK" "$D/cells.csv"
}
# q EXPR: a Python expression over the results JSON (j)
q() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); w=j["workloads"]; b=w["steady"]["bursty"]["burst"]; r=eval(sys.argv[2]); print(" ".join(map(str, r)) if isinstance(r, tuple) else r)' "$D/results.json" "$1"; }

ktap_plan 28
agg json > "$D/results.json"
ktap_check 'python3 -m json.tool "$D/results.json" > /dev/null' "results.json is valid JSON"
ktap_eq "False None" "$(q 'w["steady"]["disturbed"], w["steady"]["verdict"] and None')" \
	"a steady run is not marked disturbed"
ktap_eq "True True True True" "$(q '" ".join(str(w["steady"]["verdict"][c]["met"]) for c in "1234")')" \
	"its verdict: every criterion met"
ktap_eq "3 3" "$(q 'w["cheap"]["verdict"]["3"]["missed_at"].count("whatever its p99: the cheapest, fix1000, -11.1%"), w["cheap"]["verdict"]["3"]["checked"]')" \
	"criterion 3 missed where no fixed frequency is 15 % below schedutil: the cheapest named, at each of 30-70 %"
ktap_eq "1800 1800 1800 1800 1800" "$(q '" ".join(str(w["steady"]["oracle"][l]["freq_mhz"]) for l in ("10","30","50","70","90"))')" \
	"the oracle is the cheapest fixed frequency within the SLO (not the cheaper one over it)"
ktap_eq "1.0909" "$(q 'round(w["steady"]["control"]["slack"]["50"]["energy_to_oracle"], 4)')" \
	"energy as a ratio to the oracle's"
ktap_eq "True None -15" "$(q 'w["moved"]["disturbed"], w["moved"]["verdict"], w["moved"]["capacity_moved_pct"]')" \
	"capacity moved by 15 %: disturbed, verdict withheld"
ktap_eq "False True True" "$(q 'w["spread"]["disturbed"], w["spread"]["verdict"] is not None, "slack at 50%: energy per request of its repetitions 6.00-7.50 mJ (spread 23%)" in w["spread"]["own_spread"]')" \
	"slack's repetitions of one cell 6/6/7.5 mJ apart: its own spread, named, and the verdict given"
ktap_eq "True None True" "$(q 'w["perfspread"]["disturbed"], w["perfspread"]["verdict"], "performance at 50%" in w["perfspread"]["disturbed_why"]')" \
	"performance's repetitions 10/10/12 mJ apart: disturbed, the cell named, verdict withheld"
ktap_eq "False 70% rep 2 (p99 12000 us, performance 3000 us; server-side 5000 us, within the SLO)" "$(q 'w["miss"]["verdict"]["1"]["met"], w["miss"]["verdict"]["1"]["missed_at"]')" \
	"a repetition over the SLO where performance met it is a miss, named with its server-side p99"
ktap_eq "True False 0.0643 3 11000" "$(q 'b["verdict"]["no_more_energy_than_schedutil"], b["verdict"]["slo_held_where_performance_held"], round(b["schedutil"]["windows_over_slo_share"], 4), b["schedutil"]["time_over_slo_s"], b["slack"]["phase_p99_us"]["80"]')" \
	"bursty: energy against schedutil, a phase over the SLO where performance held it, windows and time over it"
ktap_eq "0.9 0.6667" "$(q 'round(j["fidelity"]["steady"]["latency"]["spearman"], 4), round(j["fidelity"]["steady"]["latency"]["levels"][0]["ratio"], 4)')" \
	"latency fidelity: Spearman over the levels (one swapped pair of five: 0.9), server/client ratio"
ktap_eq "10 30 50 70|10 30 50 70|True True True True|900 910 905" \
	"$(q '"|".join((" ".join(w["memcached"]["control"]["slack"]), " ".join(w["memcached"]["oracle"]), " ".join(str(w["memcached"]["verdict"][c]["met"]) for c in "1234"), " ".join(map(str, w["memcached"]["capacities_rps"]))))')" \
	"a workload at 4 loads (the real server's matrix): its cells, oracle, verdict and capacities, no 90% load"
ktap_eq "False True 2 6.0 1 60 1 1" \
	"$(q 'w["speedy"]["disturbed"], w["speedy"]["verdict"]["3"]["met"], w["speedy"]["control"]["slack"]["50"]["cells"], round(w["speedy"]["control"]["slack"]["50"]["energy_j_per_req"] * 1000, 3), w["speedy"]["cells_off_speed"], w["speedy"]["cells"], w["speedy"]["capacities_off_speed"], w["speedy"]["capacity_moved_pct"]')" \
	"a cell 15 % off speed is left out (no spread, verdict kept), and so is a capacity 30 % off speed"
ktap_eq "700 300 0 None" "$(q 'w["speedy"]["control"]["slack"]["50"]["pstate_permille"]["1800"], w["speedy"]["control"]["slack"]["50"]["pstate_permille"]["2200"], w["speedy"]["control"]["slack"]["50"]["pstate_permille"]["3000"], w["steady"]["control"]["slack"]["50"]["pstate_permille"]')" \
	"P-state residency: the mean of the cells counted (the one off speed left out), null where not measured"
ktap_eq "True None True" "$(q 'w["slowed"]["disturbed"], w["slowed"]["verdict"], "slack at 30%: no repetition at the reference speed" in w["slowed"]["disturbed_why"]')" \
	"a cell of slack with every repetition off speed withholds the verdict, and is named"
# two runs in a row (selftests/bench/compare): the same run agrees with
# itself; one whose slack cell at 50 % costs 10 % more does not, and the load
# is named
CMP=$SG_TOP/selftests/bench/compare
ktap_check '"$CMP" "$D/results.json" "$D/results.json" | grep -q "^runs agree within 5 points"' \
	"compare: a run agrees with itself"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1]))
j["workloads"]["steady"]["control"]["slack"]["50"]["energy_j_per_req"] *= 1.1
json.dump(j, open(sys.argv[2], "w"))' "$D/results.json" "$D/b.json"
ktap_eq "1|    50%   -25.0%   -17.5%   +7.5  > 5.0" \
	"$("$CMP" "$D/results.json" "$D/b.json" > "$D/cmp.out"; echo "$?|$(grep "^ *50%" "$D/cmp.out")")" \
	"compare: slack 10 % dearer at one load is 7.5 points apart there: the runs do not agree (exit 1)"
agg rst > "$D/results.rst"
# the memcached section, from its title to the fidelity table: every table
# with a governor header row lists its 4 loads, none has a 90 % column
ktap_eq "4 0" "$(sed -n '/^Workload ``memcached``/,/^Metric fidelity/p' "$D/results.rst" |
	awk '/^   \* - governor$/ { h = 1; n++; next } h && /^     - [0-9]+%$/ { c++; next } { h = 0 }
	     /^     - 90%$/ { bad++ } END { print (n ? c / n : 0), bad + 0 }')" \
	"the rst renders the memcached workload with its 4 load columns in every table, none at 90%"
ktap_check 'grep -q "^\*\*Disturbed\*\*: capacity moved -15.0%" "$D/results.rst" && grep -q "verdict withheld" "$D/results.rst"' \
	"the rst marks the disturbed run and withholds its verdict"
ktap_check 'grep -q "^\*\*Spread of its own\*\* .*: slack at 50%: .*The verdict reads the means\.$" "$D/results.rst"' \
	"the rst shows slack's own spread beside a verdict"
ktap_eq "2026-11-28T17:40:31Z 2e479f7 4b7d9d1-dirty False" "$(q 'w["steady"]["measured"], w["steady"]["commit"], w["memcached"]["commit"], "measured" in w["moved"]')" \
	"each workload's own guest run: its date and commit, none where not recorded"
ktap_check 'grep -qx "Measured by its own guest, which ended 2026-11-28T21:00:00Z, at commit 4b7d9d1-dirty." "$D/results.rst" && grep -q "^The workloads were measured by separate runs" "$D/results.rst"' \
	"the rst names each workload's run, and says the workloads' runs differ"
ktap_check 'grep -qx "Off speed: 1 of 60 cells, left out." "$D/results.rst"' \
	"the rst counts the cells left out off speed"
ktap_check 'grep -q "BENCH_SHAPES=steady make bench" "$D/results.rst" && grep -q "missed\*\* at 70% rep 2" "$D/results.rst"' \
	"the rst prints the command above the tables and the misses"
ktap_eq "1|1800: 70%, 2200: 30%|3000: 100%|0" \
	"$(sed -n '/^Workload ``speedy``/,/^Workload ``slowed``/p' "$D/results.rst" > "$D/speedy.rst"
	echo "$(grep -c '^P-state residency' "$D/speedy.rst")|$(sed -n '/^P-state residency/,$p' "$D/speedy.rst" | grep -m1 -o '1800: 70%, 2200: 30%')|$(sed -n '/^P-state residency/,$p' "$D/speedy.rst" | grep -m1 -o '3000: 100%')|$(sed -n '/^Workload ``steady``/,/^Workload ``moved``/p' "$D/results.rst" | grep -c '^P-state residency')")" \
	"the rst shows a P-state table where the residency was measured (slack 70/30 %, performance 100 %), none where not"
# bad bench knobs: refused before the guest boots, naming the knob, and
# nothing made (O= a scratch folder that must stay absent; BENCH_REPLAY=1,
# so that a knob let through fails on the missing stream, not boots a guest)
badknob() {	# badknob VAR=VALUE: "EXIT KNOB", plus "made" if $D/o appeared
	env "$1" O="$D/o" BENCH_REPLAY=1 "$SG_TOP/selftests/bench/run" > /dev/null 2> "$D/knob.err"
	printf '%s %s%s ' "$?" "$(sed -n 's/^bench: \(BENCH_[A-Z_]*\)=.*/\1/p' "$D/knob.err")" \
		"$([ -e "$D/o" ] && echo ' made')"
}
ktap_eq "2 BENCH_MIN_REQS 2 BENCH_MIN_REQS 2 BENCH_RETRY_BUDGET_S 2 BENCH_SLO_X 2 BENCH_CAP 2 BENCH_CAP 2 BENCH_TRACE 2 BENCH_ORACLE" \
	"$(for k in BENCH_MIN_REQS=12x BENCH_MIN_REQS=-1 BENCH_RETRY_BUDGET_S=1000000 BENCH_SLO_X=0 \
		    BENCH_CAP=0 BENCH_CAP=memcached=165,nginx=9 BENCH_TRACE=yes BENCH_ORACLE=2; do
		badknob "$k"; done | sed 's/ $//')" \
	"bad bench knobs are refused with their name, before anything is made"
rstok() { python3 -c 'import docutils.core, sys
docutils.core.publish_string(open(sys.argv[1]).read(), writer_name="null",
	settings_overrides={"report_level": 2, "halt_level": 2})' "$1" 2>&1; }
if python3 -c 'import docutils' 2>/dev/null; then
	ktap_eq "" "$(rstok "$D/results.rst")" "the rst is valid (docutils: no warning)"
else
	ktap_skip "the rst is valid" "python3-docutils missing"
fi
ktap_finished
