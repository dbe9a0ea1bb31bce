# SPDX-License-Identifier: GPL-2.0
# guest-plant.sh - the control loop closed over a synthetic server: sginject
# -L plays a target whose slack follows the frequency the governor sets
# (slack = 1 - load * fmax / f), so the load-step criteria of issue 5 can be
# checked on the governor alone: 20% -> 80% reaches max within 2 windows (the
# saturation boost), 80% -> 20% leaves max within 3 windows and reaches min
# within 25, and at a steady 50% the frequency settles on at most two
# adjacent table steps over the last 10 windows.  The same criteria with the
# real BPF side and workload belong to guest-loadstep.sh.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/governor/common.sh"

C=1
ktap_plan 5
[ -x "$INJ" ] || ktap_skip_all "sginject not built"
sg_setup $C || { ktap_fail "setup"; ktap_finished; }
MIN=$(fmin $C) MAX=$(fmax $C)
b0=$(gstat $C boosts)

"$INJ" -C $C -i 10 -L 200:1500,800:1500,200:1500,500:2500 > plant.log
ktap_note "$(grep -c '^sample' plant.log) windows; $(tail -n1 plant.log)"

# phase P: the khz column, one per window
col() { awk -v p=$1 '$1 == "sample" { split($3, a, "="); if (a[2] == p) { split($5, k, "="); print k[2] } }' plant.log; }
# first window index within phase P whose frequency satisfies "khz OP V"
first() { col $1 | awk -v op="$2" -v v=$3 '
	(op == "eq" && $1 == v) || (op == "lt" && $1 < v) { print NR - 1; found = 1; exit }
	END { if (!found) print 9999 }'; }

ktap_eq "$MIN" "$(col 0 | tail -n1)" "20% load: settles at the lowest frequency"
up=$(first 1 eq $MAX)
ktap_cmp "$up" -le 2 "20% -> 80%: max within 2 windows (took $up)"
ktap_cmp "$(gstat $C boosts)" -gt "$b0" "the step up was a saturation boost"
down=$(first 2 lt $MAX) low=$(first 2 eq $MIN)
ktap_note "80% -> 20%: below max after $down windows, at min after $low"
ktap_check '[ $down -le 3 ] && [ $low -le 25 ]' "80% -> 20%: below max within 3 windows, min within 25"
last=$(col 3 | tail -n 10 | sort -n | sed -n '1p;$p' | xargs)
ktap_note "50% load, last 10 windows: from ${last% *} to ${last#* } kHz"
ktap_cmp $((${last#* } - ${last% *})) -le 400000 "50% load settles on at most 2 adjacent steps"
ktap_finished
