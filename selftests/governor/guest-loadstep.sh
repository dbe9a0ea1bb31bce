# SPDX-License-Identifier: GPL-2.0
# guest-loadstep.sh - the slack governor closing the loop on the real BPF
# side and the project's server and client (selftests/lib/loadrun.sh): a
# load step from 20 % to 80 % of capacity raises the frequency within 2
# windows, the step back down lowers it within SG_DOWN_WINDOWS windows, the
# frequency settles at steady load (no swing over more than 2 table steps in
# any 10 windows), and a burst that saturates the server boosts to max in the
# first saturated window.  Capacity is measured first, under performance.
# Windows are counted with the target's window
# sequence number (seq=) in the slackgov_decision trace event, never in
# seconds; the phases are delimited by trace_marker lines.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/governor/common.sh"
. "$SG_TOP/selftests/lib/loadrun.sh"

NOMINAL=1000		# nominal req/s of the 1 ms server at fmax (selftests/bench)
BURST=$((NOMINAL * 3))	# three times capacity: the server saturates
# Windows the step down may take to lower the frequency (governor.rst,
# "Response"): the high phase overloads the server, whose backlog drains
# first; the slack average then needs ~3 tau = 12 windows to show the room,
# and down moves, at a quarter of the up gain, need ~20 windows to cross a
# 400 MHz table step for an error of 200, ~130 at the edge of the deadband.
SG_DOWN_WINDOWS=150
SETTLE_WINDOWS=10	# the issue: no swing over more than 2 table steps in 10 windows
SETTLE_STEPS=2

ktap_plan 7
[ -x "$LR_T/sgserver" ] && [ -x "$LR_T/sgclient" ] && [ -x "$LR_CTL" ] ||
	ktap_skip_all "sgserver, sgclient or slackctl not built"
[ -d $TR/events/slackgov ] || [ -e "$SG_BUILD/kmod/slackgov.ko" ] || ktap_skip_all "slackgov.ko not built"
taskset -p 1 $$ >/dev/null 2>&1
# lr_down's single rmmod can meet EAGAIN while the BPF side's module
# references drop: retry (common.sh), then vfreq, so that the next test
# finds no module of this one
sg_defer "sg_rmmod vfreq 2>/dev/null"
sg_defer sg_rmmod_slackgov
sg_defer lr_down
LR_HOOKS=$SG_LOOP_HOOKS
lr_up || { ktap_fail "platform, slackgov and slackctl up"; ktap_finished; }
lr_server_start 2 epoll 1000 || { ktap_fail "sgserver started"; ktap_finished; }
# Capacity: what the server completes at fmax when overloaded, measured now
# (TCG's speed swings by several times when other VMs share the host, and
# "20 %" of a nominal figure can already saturate it); at most the nominal.
lr_gov performance
cap=$(taskset -c 0 "$LR_T/sgclient" -p "$LR_PORT" -r $BURST -d 1.5 -c 4 -S 3 -g 1 -j | jget rps)
cap=${cap%.*}
[ -n "$cap" ] && [ "$cap" -gt 0 ] && [ "$cap" -lt $NOMINAL ] || cap=$NOMINAL
LOW=$((cap * 20 / 100))
HIGH=$((cap * 80 / 100))
ktap_note "capacity at fmax: $cap req/s: low $LOW, high $HIGH, burst $BURST req/s"
lr_gov slack
sleep 1
ktap_eq slack "$(cat $LR_POL1/scaling_governor)" "cpu1's policy runs slack, server on cpu1"

# trace: every decision, every frequency change, phase markers
echo 0 > $TR/tracing_on
# the size to restore: before the ring buffer is first used it reads
# "7 (expanded: 1408)", the size it takes when it is
old_kb=$(sed 's/.*expanded: *\([0-9]*\).*/\1/' $TR/buffer_size_kb)
echo 4096 > $TR/buffer_size_kb
sg_defer "echo $old_kb > $TR/buffer_size_kb"
echo > $TR/trace
echo 1 > $TR/events/slackgov/slackgov_decision/enable
sg_defer "echo 0 > $TR/events/slackgov/slackgov_decision/enable"
echo 1 > $TR/events/power/cpu_frequency/enable
sg_defer "echo 0 > $TR/events/power/cpu_frequency/enable"
cur0=$(cat $LR_POL1/scaling_cur_freq)
echo 1 > $TR/tracing_on

# phase NAME RATE SECS: mark the trace, then load the server at RATE req/s
phase() {
	echo "loadstep phase=$1" > $TR/trace_marker
	taskset -c 0 "$LR_T/sgclient" -p "$LR_PORT" -r "$2" -d "$3" -c 4 -S 7 -g 0.2 -j > "/tmp/ls.$1.json"
}
phase low $LOW 6
phase high $HIGH 4
phase down $LOW 6
phase burst $BURST 1
phase after $LOW 2
echo 0 > $TR/tracing_on
cp $TR/trace /tmp/ls.trace
fmax=$(cat $LR_POL1/cpuinfo_max_freq)

# One line per event of policy 1: "D phase seq freq reason raw rps avg u" for a
# decision with a window (seq > 0), "F phase khz" for a frequency change.
awk -v fmax="$fmax" '
	/tracing_mark_write: loadstep phase=/ { sub(/.*phase=/, ""); ph = $1; next }
	/slackgov_decision:/ && / policy=1 / {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["seq"] > 0 && ph != "") print "D", ph, v["seq"], v["freq"], v["reason"], v["raw"], v["rps"], v["slack"], v["u"]
		next }
	/cpu_frequency:/ && /cpu_id=1/ {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (ph != "") print "F", ph, v["state"] }' /tmp/ls.trace > /tmp/ls.ev
ktap_note "decisions per phase: $(awk '$1 == "D" { n[$2]++ } END { for (p in n) printf "%s=%d ", p, n[p] }' /tmp/ls.ev)"
ktap_note "per phase: mean raw/average slack, mean asked kHz, boost decisions: $(awk '$1 == "D" {
	n[$2]++; r[$2] += $6; a[$2] += $8; f[$2] += $4; b[$2] += ($5 ~ /^saturated/) }
	END { for (p in n) printf "%s %d/%d %d %d; ", p, r[p] / n[p], a[p] / n[p], f[p] / n[p], b[p] }' /tmp/ls.ev)"
ktap_note "client: $(for p in low high down burst after; do printf '%s %s ' $p "$(jget p99_us < /tmp/ls.$p.json)"; done)(p99 us)"

# The table step CPUFREQ_RELATION_L picks for a frequency (awk function).
table=$(cat $LR_POL1/scaling_available_frequencies)
STEPFN='function step(f,   i, best) { best = 0
	for (i = 1; i <= nt; i++) if (t[i] >= f && (!best || t[i] < best)) best = t[i]
	return best ? best : f }'
# The law holds a frequency while the average slack is within setpoint +-
# deadband: "room" is an average above setpoint + deadband.
room=$(($(knob setpoint) + $(knob deadband)))

# 1. step up: the first window that carries the new load (rps above the
# midpoint of the two rates) is W0; the PID or the boost must ask for a
# higher table step than the low phase's last PID output at a window <=
# W0 + 2.  If the low phase already ran at max, there is nothing to raise:
# that is only right when its average slack had no room (host contention
# slowing the server), then the check is skipped, else it fails.
awk -v mid=$(((LOW + HIGH) / 2)) -v table="$table" "$STEPFN"'
	BEGIN { nt = split(table, t, " ") }
	$1 == "D" && $2 == "low" { f0 = step($9); a0 = $8 }
	$1 == "D" && $2 == "high" && !w0 && $7 > mid { w0 = $3 }
	$1 == "D" && $2 == "high" && w0 && !up && step($4) > f0 { up = $3 }
	END { printf "%d %d %d %d\n", f0, w0, up, a0 }' /tmp/ls.ev > /tmp/ls.up
read -r f0 w0 up a0 < /tmp/ls.up
ktap_note "step up: low phase ends at $f0 kHz (average slack $a0), load seen at window $w0, raised at window $up"
if [ "$f0" -ge "$fmax" ] && [ "$a0" -le "$room" ]; then
	ktap_skip "20 % -> 80 %: frequency raised within 2 windows of the step" \
		"the server had no room at 20 % even at max (average slack $a0 <= $room): host too slow now"
else
	ktap_check "[ $f0 -gt 0 ] && [ $f0 -lt $fmax ] && [ $w0 -gt 0 ] && [ $up -gt 0 ] && [ $up -le $((w0 + 2)) ]" \
		"20 % -> 80 %: frequency raised within 2 windows of the step"
fi

# 2. step down: W1 is the first window of the down phase whose rps is below
# the midpoint; the PID's output u (boosts aside: they override single
# saturated windows) must fall to a lower table step than it held at the end
# of the high phase within SG_DOWN_WINDOWS windows of W1.  If the average
# slack never showed room in those windows, the law must hold: skipped.
awk -v mid=$(((LOW + HIGH) / 2)) -v table="$table" -v room=$room -v W=$SG_DOWN_WINDOWS "$STEPFN"'
	BEGIN { nt = split(table, t, " ") }
	$1 == "D" && $2 == "high" { f1 = $9 }
	$1 == "D" && $2 == "down" && !w1 && $7 < mid { w1 = $3 }
	$1 == "D" && $2 == "down" && w1 && $3 <= w1 + W && $8 > room { roomy++ }
	$1 == "D" && $2 == "down" && w1 && !dn && step($9) < step(f1) { dn = $3; fd = $9 }
	END { printf "%d %d %d %d %d\n", step(f1), w1, dn, step(fd), roomy }' /tmp/ls.ev > /tmp/ls.dn
read -r f1 w1 dn fd roomy < /tmp/ls.dn
ktap_note "step down: PID output at $f1 kHz when the high phase ends, load drop seen at window $w1, down to $fd kHz at window $dn ($roomy decisions with room in the first $SG_DOWN_WINDOWS windows)"
if [ "$roomy" -eq 0 ] && { [ "$dn" -eq 0 ] || [ "$dn" -gt $((w1 + SG_DOWN_WINDOWS)) ]; }; then
	ktap_skip "80 % -> 20 %: frequency lowered within $SG_DOWN_WINDOWS windows of the step" \
		"the average slack never rose above $room at 20 %: host too slow now"
else
	ktap_check "[ $w1 -gt 0 ] && [ $dn -gt 0 ] && [ $dn -le $((w1 + SG_DOWN_WINDOWS)) ]" \
		"80 % -> 20 %: frequency lowered within $SG_DOWN_WINDOWS windows of the step"
fi

# 3. settling: over the last 40 windows of the down phase (steady 20 %), the
# controller's output (decisions that are not saturation boosts, which
# override one window each and are counted apart) stays within 2 table
# steps in every run of 10 consecutive windows.
steps=$(cat $LR_POL1/scaling_available_frequencies 2>/dev/null | wc -w)
fmin=$(cat $LR_POL1/cpuinfo_min_freq)
tstep=$(( (fmax - fmin) / (steps > 1 ? steps - 1 : 1) ))
awk '$1 == "D" && $2 == "down"' /tmp/ls.ev | tail -n 40 > /tmp/ls.steady
awk -v W=$SETTLE_WINDOWS -v lim=$((SETTLE_STEPS * tstep)) '
	$5 ~ /^saturated/ { boosts++; next }
	{ s[n] = $3; f[n] = $4; n++ }
	END {
		worst = 0
		for (i = 0; i < n; i++) {
			lo = hi = f[i]
			for (j = i; j < n && s[j] < s[i] + W; j++) {
				if (f[j] < lo) lo = f[j]
				if (f[j] > hi) hi = f[j]
			}
			if (hi - lo > worst) worst = hi - lo
		}
		printf "%d %d %d\n", n, worst, boosts + 0 }' /tmp/ls.steady > /tmp/ls.settle
read -r nset worst sboosts < /tmp/ls.settle
ktap_note "steady 20 %: $nset PID decisions, widest swing in $SETTLE_WINDOWS windows $worst kHz (table step $tstep kHz), $sboosts one-window boosts"
ktap_check "[ $nset -ge $SETTLE_WINDOWS ] && [ $worst -le $((SETTLE_STEPS * tstep)) ]" \
	"steady load: no swing over more than $SETTLE_STEPS table steps in $SETTLE_WINDOWS windows"

# 4. burst: the first window of the burst phase whose slack collapsed (raw
# below 50) or whose decision says saturated is the first saturated window;
# its decision must ask for max, and the CPU must run at max after it (the
# next cpu_frequency change is to max, or it was at max already).
awk -v cur="$cur0" -v fmax="$fmax" '
	$1 == "F" && !want { cur = $3; next }
	$1 == "F" && want { got = $3; want = 0; next }
	$1 == "D" && $2 == "burst" && !s && ($6 < 50 || $5 ~ /^saturated/) {
		s = $3; f = $4; r = $5; got = cur; want = (cur != fmax) }
	END { printf "%d %d %s %d\n", s, f, r ? r : "-", got }' /tmp/ls.ev > /tmp/ls.burst
read -r bs bf br bgot < /tmp/ls.burst
ktap_note "burst: first saturated window $bs asked $bf kHz ($br); the CPU then ran at $bgot kHz"
ktap_check "[ $bs -gt 0 ] && [ $bf -eq $fmax ] && [ $bgot -eq $fmax ]" \
	"saturating burst: max in the first saturated window"


# 5. the target goes: killed, its last window (flagged EXITED) returns the
# policy to the utilization rule at once (reason exited, no fallback: the
# target is gone, not silent).  Then (with a new target) the BPF side is
# unloaded: the signal stops, the policy must go to the safe frequency
# (safe_khz 0: max), count a fallback and emit slackgov_stale.
# stale_gone WHAT: traced, wait for mode safe, check stats and trace
stale_check() {
	wait_for '[ "$(gstat 1 mode)" = safe ]' 30
	age=$(sed -n 's/.*slackgov_stale: policy=1 age_us=\([0-9]*\).*/\1/p' $TR/trace | tail -n1)
	ktap_note "$1: stale after ${age:-?} us (stale_ms $(knob stale_ms)), fallbacks $fb -> $(gstat 1 fallbacks)"
	ktap_check "[ \"$(gstat 1 mode) $(cur 1)\" = \"safe $fmax\" ] && [ $(gstat 1 fallbacks) -gt $fb ] && [ -n \"$age\" ]" \
		"$1: safe frequency, fallback counted, slackgov_stale traced"
}
echo > $TR/trace
echo 1 > $TR/events/slackgov/slackgov_stale/enable
sg_defer "echo 0 > $TR/events/slackgov/slackgov_stale/enable"
echo 1 > $TR/tracing_on
taskset -c 0 "$LR_T/sgclient" -p "$LR_PORT" -r $LOW -d 3 -c 4 -S 8 -g 0 -j >/dev/null 2>&1 &
cl=$!
wait_for '[ "$(gstat 1 mode)" = slack ]' 20
fb=$(gstat 1 fallbacks)
kill -9 "$LR_SERVER_PID"
wait_for '[ "$(gstat 1 mode)" = util ]' 30
ktap_note "target killed: mode $(gstat 1 mode), last reason $(gstat 1 last_reason), fallbacks $fb -> $(gstat 1 fallbacks)"
ktap_check "[ \"$(gstat 1 mode) $(gstat 1 fallbacks)\" = \"util $fb\" ] && grep -q 'slackgov_decision: policy=1 mode=util .*reason=exited' $TR/trace" \
	"target killed: its exit returns the policy to the util rule at once (reason exited, no fallback)"
wait $cl 2>/dev/null
wait "$LR_SERVER_PID" 2>/dev/null
LR_SERVER_PID=
lr_server_start 2 epoll 1000 || ktap_note "server did not restart"
lr_gov slack
echo > $TR/trace
taskset -c 0 "$LR_T/sgclient" -p "$LR_PORT" -r $LOW -d 3 -c 4 -S 9 -g 0 -j >/dev/null 2>&1 &
cl=$!
wait_for '[ "$(gstat 1 mode)" = slack ]' 20
fb=$(gstat 1 fallbacks)
"$LR_CTL" unload >/dev/null 2>&1
stale_check "BPF side unloaded (slackctl unload)"
wait $cl 2>/dev/null
echo 0 > $TR/tracing_on
ktap_finished
