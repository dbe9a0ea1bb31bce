# SPDX-License-Identifier: GPL-2.0
# guest-slo.sh - the SLO law (kmod/control.c step 2) on injected samples:
# the kfunc's checks of the ABI version, the latency fields and the margin;
# then the law closed over a synthetic M/M/1 server (sginject -M: service 1 ms of
# work at fmax, served at the frequency the governor sets): a loose SLO runs
# lower than a tight one at the same load, and lower than itself with a
# margin of its own of 80 %, the tight SLO is held (the
# server's p99 under it, averaged over the last seconds), a step in load
# that builds a queue reaches max within one window (slo-queue), a tail
# twice the model's is absorbed by the outer loop (K rises, SLO held), and
# the trace and the per-policy stats show the law.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/governor/common.sh"

C=1

ktap_plan 22
[ -x "$INJ" ] || ktap_skip_all "sginject not built"
sg_setup $C || { ktap_fail "setup"; ktap_finished; }
trace_on
MIN=$(fmin $C) MAX=$(fmax $C)

# ---- the kfunc: ABI 5 only, every latency field range-checked ----------------------
inj1() { "$INJ" -d 0 "$@" | sed -n 's/.*last_ret=\(-*[0-9]*\).*/\1/p'; }
ktap_eq "-22 -22 -22" "$(inj1 -C $C -V 2) $(inj1 -C $C -V 3) $(inj1 -C $C -V 4)" \
	"an ABI 2, 3 or 4 sample (no slo_margin; no nr_over; nr_send for nr_req) is rejected (-EINVAL)"
ktap_check 'dmesg | grep -q "sample rejected: ABI version 2, .*takes version 5"' \
	"the rejection names both ABI versions in the kernel log"
# the kfunc returns T, the budget the BPF side counts requests over: the
# knob's margin of 20 % (sg_setup leaves the default) of a 2 ms SLO
ktap_eq 1600 "$(inj1 -C $C -S 2000 -n 10 -l 1500 -w 1600 -q 100 -v 300 -o 2 -b 1600)" \
	"a sample with an SLO and latency is accepted, and the kfunc returns its budget T (1600 us)"
ktap_eq 0 "$(inj1 -C $C -n 10 -l 1500)" "a target without an SLO: 0"
ktap_eq "-22 -22 -22 -22 -22 -22 -22 -22 -22 -22 -22" \
	"$(inj1 -C $C -S 2000:10001) $(inj1 -C $C -S 16777216) $(inj1 -C $C -S 2000:0) \
$(inj1 -C $C -r 100000001) $(inj1 -C $C -n 100000001) $(inj1 -C $C -l 16777216) \
$(inj1 -C $C -w 16777216) $(inj1 -C $C -q 16777216) $(inj1 -C $C -v 16777216) \
$(inj1 -C $C -S 2000 -n 10 -o 11) $(inj1 -C $C -S 2000 -b 16777216)" \
	"slo_q > 10000, slo_us, SLO without percentile, rps, nr_lat, lat_q, lat_win, queue, svc, more over T than timed, budget out of range"
ktap_eq 1677721 "$(inj1 -C $C -S 16777215:10000 -r 100000000 -n 100000000 -o 100000000 -l 16777215 -b 16777215 -m 0x80000384)" \
	"the largest values are accepted (margin 900: T 1677721 us)"
ktap_eq "-22 -22" "$(inj1 -C $C -S 2000 -m 0x80000385) $(inj1 -C $C -S 2000 -m 5)" \
	"a margin above 900, or one without SLACKGOV_MARGIN_OWN, is rejected"

# ---- the law closed over the synthetic server ----------------------------------------
# field LOG P F: field F (khz, lat, queue...) of the windows of phase P, one a line
field() { awk -v p=$2 -v f=$3 '$1 == "sample" {
	split($3, a, "="); if (a[2] != p) next
	for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) print kv[2] } }' $1; }
mean() { awk '{ s += $1; n++ } END { printf "%d\n", n ? s / n : 0 }'; }

# 300 req/s of 1 ms at fmax (30 % of fmax): a 50 ms SLO needs about L + K W / T
# = 0.9 + 4.6 * 3 / 40 GHz, the next step above 1.25 GHz; a 12 ms SLO 0.9 +
# 4.6 * 3 / 9.6 = 2.34 GHz: 2.6 GHz, or 2.2 when the outer loop has lowered K
"$INJ" -C $C -t 3 -S 50000 -v 1000 -M 300:4000 > loose.log
# the loose SLO with its own margin of 80 %: a budget of 10 ms
"$INJ" -C $C -t 7 -S 50000 -m 0x80000320 -v 1000 -M 300:4000 > margin.log
"$INJ" -C $C -t 4 -S 12000 -v 1000 -M 300:5000 > tight.log &
# the loader takes a while under TCG: wait for the tight target's first windows
wait_for 'grep -q "^sample i=20 " tight.log 2>/dev/null' 150
ktap_eq slo "$(gstat $C mode)" "an SLO target: mode slo"
ktap_eq 12000 "$(gstat $C last_slo_us)" "last_slo_us shows the SLO"
ktap_check '[ "$(gstat $C last_lat_us)" -gt 0 ] && [ "$(gstat $C last_slo_k)" -gt 0 ]' \
	"last_lat_us and last_slo_k are reported ($(gstat $C last_lat_us) us, K $(gstat $C last_slo_k))"
wait
fl=$(field loose.log 0 khz | tail -n 150 | mean) ft=$(field tight.log 0 khz | tail -n 150 | mean)
ktap_note "300 req/s, last 150 windows: 50 ms SLO at $fl kHz, 12 ms SLO at $ft kHz"
ktap_cmp "$fl" -lt "$ft" "same load: the loose SLO runs lower than the tight one"
ktap_cmp "$fl" -lt "$MAX" "the loose SLO does not run at max"
fm=$(field margin.log 0 khz | tail -n 150 | mean)
ktap_note "the 50 ms SLO with its own margin of 80 % (10 ms of budget): $fm kHz"
ktap_cmp "$fm" -gt "$fl" "a target's own margin: the same SLO with a margin of 80 % runs higher"
lt=$(field tight.log 0 lat | tail -n 150 | mean)
ktap_cmp "$lt" -lt 12000 "the tight SLO is held: the server's mean p99 over the last 150 windows is $lt us < 12000"
ktap_check 'grep -q "slackgov_decision: policy=$C mode=slo .*slo_us=12000 slo_seq=[1-9][0-9]* lat_q_us=[0-9]* lat_win_us=[0-9]* queue_us=[0-9]* nr_lat=[0-9]* nr_over=[0-9]* over_us=[0-9]* k=[0-9]* f_need=[0-9]* .*reason=slo" $TR/trace' \
	"the decision trace carries the SLO, the latency, the counts over T, K, f_need and reason slo"

# a step from 100 to 800 req/s at min builds a queue (rho 2.4 at 1 GHz): max
# within one window (the sample after the first queued one), slo-queue; the
# step's boost leaves max span / 8 a window, not straight back to the f_need
# that the filtered L still holds low (the windows at the top do more work)
b0=$(gstat $C boosts)
echo > $TR/trace
"$INJ" -C $C -t 5 -S 50000 -v 1000 -M 100:3000,800:1500 > step.log
low=$(field step.log 0 khz | tail -n 50 | sort -n | tail -n1)
ktap_eq "$MIN" "$low" "100 req/s, 50 ms SLO: at the lowest step before the step"
up=$(field step.log 1 khz | awk -v m=$MAX '$1 == m { print NR - 1; exit } END { if (!NR) print 9999 }')
up=${up:-9999}
ktap_note "800 req/s: at max after $up windows"
ktap_cmp "$up" -le 2 "the load step reaches max within one window (sample $up of the phase)"
ktap_cmp "$(gstat $C boosts)" -gt "$b0" "the step was a boost"
ktap_check 'grep -q "reason=slo-queue" $TR/trace' "reason slo-queue"
# the first SLO output (u, before the P-state pick) after the step's first
# boost is within span / 8 of max
land=$(grep slackgov_decision $TR/trace | awk '
	{ r = $0; sub(/.* reason=/, "", r); sub(/ .*/, "", r); f = $0; sub(/.* u=/, "", f); f += 0
	  if (r == "slo" && b) { print f; exit } b = r ~ /^(slo-queue|saturated-)/ }')
ktap_note "first SLO decision after the step's boost: ${land:-none} kHz"
ktap_check '[ -n "$land" ] && [ "$land" -ge $((MAX - (MAX - MIN) / 8)) ]' \
	"the step's boost ends by coming down from max, span / 8 per window"

# a server whose tail is twice the model's (-B 200): 2000 req/s of 200 us,
# SLO 5 ms; at K = c_q the law would choose 2.2 GHz (p99 5.5 ms): the outer
# loop must raise K until the SLO holds
"$INJ" -C $C -t 6 -S 5000 -v 200 -B 200 -M 2000:7000 > bias.log
lb=$(field bias.log 0 lat | tail -n 150 | mean) fb=$(field bias.log 0 khz | tail -n 150 | mean)
ktap_note "tail 2x the model's, last 150 windows: p99 $lb us at $fb kHz, K $(gstat $C last_slo_k)"
ktap_cmp "$lb" -lt 5000 "a tail twice the model's: the outer loop holds the SLO"
ktap_cmp "$(gstat $C last_slo_k)" -gt 4600 "K rose above c_q = 4.6"
ktap_finished
