# SPDX-License-Identifier: GPL-2.0
# guest-util.sh - without targets the slack governor follows utilization:
# up under a busy loop, down again when the CPU goes idle.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/governor/common.sh"

C=1
ktap_plan 6
sg_setup $C || { ktap_fail "setup"; ktap_finished; }
trace_on
MIN=$(fmin $C) MAX=$(fmax $C)
# the waits stretch by SG_SCALE (common.sh): on make check-debug's kernel
# CPU 1 was not back at min 2 s after the loop

sleep 0.5
ktap_eq "util $MIN" "$(gstat $C mode) $(cur $C)" "idle, no targets: util mode at min"
taskset -c $C sh -c 'end=$(($(date +%s) + 3)); while [ $(date +%s) -lt $end ]; do :; done' &
wait_for '[ "$(cur $C)" = "$MAX" ]' $((20 * SG_SCALE))
busy=$(cur $C)
ktap_eq "$MAX" "$busy" "a busy loop raises the frequency to max"
# the traced freq is the request before rounding up to a table step
top=$(sed -n "s/.*slackgov_decision: policy=$C mode=util .*load=\([0-9]*\) .*freq=\([0-9]*\) reason=util.*/\2 \1/p" \
	$TR/trace | sort -n | tail -n1)
ktap_note "highest traced util request: ${top% *} kHz at load ${top#* }"
[ -n "$top" ] || { ktap_note "trace: $(grep -c slackgov_decision $TR/trace) decisions"; grep slackgov $TR/trace | tail -n 3 | sed 's/^/# /'; for c in 0 1; do echo "# cpu$c: $(grep -E 'entries|overrun' $TR/per_cpu/cpu$c/stats | xargs)"; done; echo "# on=$(cat $TR/tracing_on) en=$(cat $TR/events/slackgov/enable) mask=$(cat $TR/tracing_cpumask) dec=$(gstat $C decisions)"; }
ktap_cmp "${top% *}" -gt $(((MIN + MAX) / 2)) "util decisions traced with their load, asking for the upper range"
wait
wait_for '[ "$(cur $C)" = "$MIN" ]' $((20 * SG_SCALE))
ktap_eq "$MIN" "$(cur $C)" "idle again: back to min"
ktap_eq util "$(gstat $C mode)" "still util mode"
ktap_cmp "$(gstat $C fallbacks)" -eq 0 "no fallback without targets"
ktap_finished
