# SPDX-License-Identifier: GPL-2.0
# host-trace.sh - the bench's per-second summary of slack's decisions
# (selftests/bench/trace.awk, BENCH_TRACE=1) on a buffer written in the
# slackgov_decision event's format: the seconds counted from the cell's
# marker, the warm-up's marked, the means and largest values per second,
# boosts counted by reason, f_need capped at 10x the output, each window's
# requests and those over T counted once, events before the marker and
# other events left out.
. "$SG_TOP/selftests/lib/ktap.sh"

AWK=$SG_TOP/selftests/bench/trace.awk
D=$(mktemp -d)
sg_defer "rm -rf $D"
ktap_plan 7

# ev TIME U_KHZ F_NEED_KHZ LAT_Q_US K QUEUE_US REASON SLO_SEQ NR_LAT NR_OVER:
# one decision
ev() {
	printf '          <idle>-0       [001] d.h2.  %s: slackgov_decision: policy=1 mode=slo seq=0 slack=600 raw=580 setpoint=0 cv=900 rps=50 targets=1 slo_targets=1 load=0 slo_us=17277 slo_seq=%s lat_q_us=%s lat_win_us=9000 queue_us=%s nr_lat=%s nr_over=%s over_us=13821 k=%s f_need=%s err=0 p=0 i=0 d=0 ff=0 u=%s freq=%s reason=%s\n' \
		"$1" "$8" "$4" "$6" "$9" "${10}" "$5" "$3" "$2" "$2" "$7"
}
{
	ev 99.500000 3000000 3000000 1 1 1 slo 1 5 5		# before the cell: left out
	printf '           <...>-812     [000] .....   100.000100: tracing_mark_write: bench cell start\n'
	ev 100.010000 1000000 1000000 10000 2000 500 slo 2 4 1
	ev 100.990000 1400000 1200000 20000 3000 1500 slo 3 6 0
	printf '           <...>-812     [001] .....   101.000000: slackgov_qos: cpu=1 old_us=-1 new_us=20 ret=0\n'
	ev 103.500000 3000000 90000000 30000 4000 9000 slo-queue 9 7 2
	ev 103.600000 3000000 2000000 10000 4000 200 saturated-drain 9 7 2
	ev 103.700000 2200000 2000000 10000 4000 200 slo 10 5 0
} > "$D/trace"
out=$(awk -v pre="2,memcached,slack,30" -v w=3 -f "$AWK" "$D/trace")
ktap_eq 2 "$(echo "$out" | grep -c '^BENCH-TRACE ')" "one row per second with decisions (seconds 0 and 3)"
ktap_eq "BENCH-TRACE 2,memcached,slack,30,0w,2,1200,1100,15000,20000,2500,1500,0,10,1" \
	"$(echo "$out" | head -n 1)" "second 0 (warm-up): means of output, f_need, lat_q and K; the largest lat_q and queueing"
ktap_eq "3,3" "$(echo "$out" | sed -n 2p | cut -d, -f5,6)" "second 3, past the warm-up: three decisions"
ktap_eq 2 "$(echo "$out" | sed -n 2p | cut -d, -f13)" "boosts: slo-queue and saturated-drain, not slo"
ktap_eq 11333 "$(echo "$out" | sed -n 2p | cut -d, -f8)" "f_need at most 10x the output (90 GHz counted as 30000 MHz; with 2000 and 2000, mean 11333)"
ktap_eq "12,2" "$(echo "$out" | sed -n 2p | cut -d, -f14,15)" "requests timed and over T: window 9's two decisions count it once"
ktap_eq "" "$(printf 'x [001] 5.0: slackgov_decision: u=1000 f_need=1\n' | awk -v pre=p -v w=1 -f "$AWK")" \
	"no cell marker: no row"
ktap_finished
