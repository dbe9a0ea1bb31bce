# SPDX-License-Identifier: GPL-2.0
# host-report.sh - the demo's closing report (selftests/demo/report.awk) on
# seeded steps.csv files of three governors: its table has a row per step
# with each governor's p99 and SLO mark, a line per step comparing slack's
# energy per request with performance's and schedutil's, and a headline
# whose figures (the steps within capacity, the SLO held per governor,
# slack's energy against the other two) are those of steps.csv, recomputed
# independently by reportcheck.py; a run that lacks a governor gets no
# headline; and reportcheck.py notices a report whose headline does not
# match its steps.csv (it can fail).  make demo runs the same check on its
# own run's files.  demo.gp plots the seeded files without a word from
# gnuplot (where gnuplot is installed).
. "$SG_TOP/selftests/lib/ktap.sh"

D=$(mktemp -d)
sg_defer "rm -rf $D"
AWK=$SG_TOP/selftests/demo/report.awk
CHK=$SG_TOP/selftests/demo/reportcheck.py
command -v python3 >/dev/null || ktap_skip_all "python3 missing"

# report SEED SCENARIO: steps.csv and the report of it in $D; SLO in $slo
report() {
	slo=$(python3 "$CHK" make "$1" "$2" "$D/steps.csv") &&
		awk -F, -v slo="$slo" -v cap=900 -f "$AWK" "$D/steps.csv" > "$D/report.txt"
}

ktap_plan 7
for seed in 1 2 3; do
	report $seed hold
	ktap_run_ok "seed $seed, slack holding the SLO: the headline and every step's figures are steps.csv's" \
		python3 "$CHK" check "$D/steps.csv" "$D/report.txt" "$slo"
done
report 4 mixed
ktap_run_ok "each governor missing in some steps: the headline counts and energies are steps.csv's" \
	python3 "$CHK" check "$D/steps.csv" "$D/report.txt" "$slo"

# the checker can fail: the same report against a steps.csv whose slack
# used 10 % more energy in step 1
awk -F, -v OFS=, '$1 == "slack" && $2 == 1 { $8 *= 1.1; $9 *= 1.1 } 1' "$D/steps.csv" > "$D/tampered.csv"
ktap_run_fails "a headline that is not its steps.csv's is caught" \
	python3 "$CHK" check "$D/tampered.csv" "$D/report.txt" "$slo"

# the plot of the last seeded run, with a time series of each governor
awk -F, 'NR > 1 { for (t = 0; t < 3; t++) printf "%s,%d,%s,%s,100,2000,40.0,%d,%.3f\n", $1, $2 * 3 + t, $2, $3, 1000 + $2 * 300, 1 + $2 / 2 }' \
	"$D/steps.csv" > "$D/ts.csv"
if command -v gnuplot > /dev/null; then
	gnuplot -e "ts='$D/ts.csv'; st='$D/steps.csv'; out='$D/demo.png'; slo=$slo" \
		"$SG_TOP/selftests/demo/demo.gp" 2> "$D/gnuplot.err"
	ktap_check '[ -s "$D/demo.png" ] && [ ! -s "$D/gnuplot.err" ]' "demo.gp plots steps.csv and the time series ($(head -c 120 "$D/gnuplot.err"))"
else
	ktap_skip "demo.gp plots steps.csv and the time series" "no gnuplot (scripts/setup installs gnuplot-nox)"
fi

report 5 incomplete
ktap_check "grep -q 'Headline: none, the run is incomplete' '$D/report.txt' && ! grep -q 'slack held' '$D/report.txt'" \
	"a run without slack's steps: no headline, said so"

ktap_finished
