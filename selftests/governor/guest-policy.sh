# SPDX-License-Identifier: GPL-2.0
# guest-policy.sh - struct slackgov_ops (kernels with module struct_ops,
# 6.9+): slackctl policy load/run/unload, the ops' decisions applied (cpufreq
# follows a policy the built-in law would not choose), garbage clamped or
# refused and counted, the built-in law back at the next decision after an
# unload or a killed loader, one set of ops at a time, the boost rule's
# priority without SLACKGOV_OPS_F_RAW and the ops' with it, rmmod refused
# while ops are registered, nothing in dmesg.  On older kernels (Debian's 6.1)
# the ops are compiled out: policy load fails with one line, nothing
# changes, and the rest is skipped.  The view's content is checked through
# a policy that echoes it into its value (selftests/governor/progs/), and a
# policy built against another layout of it is refused.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/governor/common.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

P=$SG_BUILD/selftests/progs
UTIL=$SG_BUILD/bpf/util_policy.bpf.o
PPIN=/sys/fs/bpf/slackgov_policy
LAW=$(pol 1)/slack/law
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e "$P/mid_policy.bpf.o" ] || ktap_skip_all "test policies not built"
[ -e $PPIN ] && ktap_skip_all "$PPIN exists: a policy is in use"
# kernel version as MAJOR*100+MINOR: module struct_ops arrived in 6.9
kv=$(uname -r | awk -F. '{ print $1 * 100 + $2 }')

# the runner's pattern (selftests/vm/init), less what check-debug DEBUG=kcsan
# leaves to debug-reports.sh (the core kernel's data races)
dmesg_bad() { dmesg | grep -E "${BADPAT:-WARNING|Oops|BUG}" | grep -cvE "${DEBUG_DMESG_IGNORE:-^\$}"; }
bad0=$(dmesg_bad)
sg_setup 1 || { ktap_plan 1; ktap_fail "setup"; ktap_finished; }

if [ "$kv" -lt 609 ]; then
	ktap_plan 3
	sc_fails 1 "policy load without struct_ops: one line" "no struct slackgov_ops" \
		policy load "$UTIL"
	ktap_eq builtin "$(cat $LAW)" "law stays builtin"
	ktap_check '[ ! -e $PPIN ]' "nothing pinned"
	ktap_finished
fi

ktap_plan 34
sg_defer "rm -f $PPIN"
trace_on || ktap_note "no slackgov trace events"
ktap_eq builtin "$(cat $LAW)" "law: builtin before any policy"

# -- bad input changes nothing
sc_fails 1 "policy load of a missing file" "No such file" policy load /nonexistent.o
sc_fails 1 "policy load of a non-BPF file" "cannot open as a BPF object" policy load /proc/version
sc_fails 1 "policy load of a BPF object that is no policy" "not a policy" \
	policy load "$P/sg_empty.bpf.o"
sc_fails 1 "policy unload with none loaded" "no policy is loaded" policy unload
ktap_check '[ "$(cat $LAW)" = builtin ] && [ ! -e $PPIN ]' "still builtin, nothing pinned"

# -- the sample policy: loads, pinned, named, decides (trace shows its name)
ktap_check '"$S" policy load "$UTIL" | grep -q "law bpf:util80 loaded"' "policy load util_policy.bpf.o"
# without ops loaded nothing below means anything: stop (rmmod would succeed)
[ -e $PPIN ] || { ktap_note "no policy loaded: stopping"; dmesg | tail -20 | sed 's/^/# dmesg: /'; KTAP_PLAN=""; ktap_finished; }
ktap_eq bpf:util80 "$(cat $LAW)" "law: bpf:util80"
ktap_check '"$S" policy show | grep -q "^policy1: bpf:util80"' "policy show names it"
ktap_check '"$S" -j policy show | grep -q "\"law\": \"bpf:util80\""' "policy show -j names it"
# status (it needs the BPF side) shows each policy's law, as text and -j;
# not again in the -fast variant: loading the BPF side takes ~20 s under TCG
if [ -n "${SG_FAST_SWITCH:-}" ]; then
	ktap_skip "status shows law bpf:util80" "checked by guest-policy.sh"
else
	sg_defer "$S unload > /dev/null 2>&1"
	"$S" load --hooks "$SG_LOOP_HOOKS" > /dev/null
	ktap_check '"$S" status | grep -q "^policy1 .* bpf:util80\$" &&
		"$S" -j status | grep -q "\"law\": \"bpf:util80\""' "status shows law bpf:util80"
	"$S" unload > /dev/null
fi
# drive decisions: CPU 1 busy for a moment (the util rule's hook paces them)
taskset 2 sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i + 1)); done'
ktap_check 'wait_for "grep -q \"policy=1 law=bpf:util80 .* result=ok\" $TR/trace" 50' \
	"trace: util80's decisions applied (result=ok)"
sc_fails 1 "a second policy load" "loaded already" policy load "$P/mid_policy.bpf.o"
ktap_run_ok "policy unload" "$S" policy unload
ktap_check '[ "$(cat $LAW)" = builtin ] && [ ! -e $PPIN ]' "law: builtin, pin gone"

# -- the view: a policy that echoes it (CPUs, the newest target's slot and
# slack, the number of targets) into its value; target 7 fed by sginject
"$S" policy load "$P/echo_policy.bpf.o" > /dev/null
"$INJ" -C 1 -t 7 -s 500 -d 1500 > /dev/null &
echo_want=$(( $(fmin 1) + 2 * 100000 + 7 * 10000 + 500 + 1 ))
ktap_check 'wait_for "grep -q \"law=bpf:echo .* ret=$echo_want \" $TR/trace" 50' \
	"the view carries policy1's CPUs and target 7's window (ret=$echo_want)"
wait
"$S" policy unload > /dev/null

# -- the view's SLO: the quantile and the budget the built-in law holds,
# with the target's own margin (10 %) and with the slo_margin knob's
"$S" policy load "$P/budget_policy.bpf.o" > /dev/null
"$INJ" -C 1 -t 7 -s 500 -S 5000:9000 -m $((0x80000000 | 100)) -n 10 -l 3000 -d 1500 > /dev/null &
budget_want=$(( $(fmin 1) + 4500 * 10 + 9 ))
ktap_check 'wait_for "grep -q \"law=bpf:budget .* ret=$budget_want \" $TR/trace" 50' \
	"the view carries the SLO's quantile and budget, the target's margin (ret=$budget_want)"
wait
"$INJ" -C 1 -t 7 -s 500 -S 5000:9000 -n 10 -l 3000 -d 1500 > /dev/null &
budget_want=$(( $(fmin 1) + 5000 * (1000 - $(cat $GOV/slo_margin)) / 1000 * 10 + 9 ))
ktap_check 'wait_for "grep -q \"law=bpf:budget .* ret=$budget_want \" $TR/trace" 50' \
	"... and the knob's margin for a target without its own (ret=$budget_want)"
wait
"$S" policy unload > /dev/null

# -- the window's counts for the outer loop: 10 timed, 3 over the 4.5 ms
# budget they were counted against (the target's own margin, as above)
"$S" policy load "$P/count_policy.bpf.o" > /dev/null
"$INJ" -C 1 -t 7 -s 500 -S 5000:9000 -m $((0x80000000 | 100)) -n 10 -o 3 -b 4500 -l 3000 \
	-d 1500 > /dev/null &
count_want=$(( $(fmin 1) + 10 * 10000 + 3 * 100 + 1 ))
ktap_check 'wait_for "grep -q \"law=bpf:count .* ret=$count_want \" $TR/trace" 50' \
	"the view carries the window's requests, those over T and the T they were counted against (ret=$count_want)"
wait
"$S" policy unload > /dev/null
sc_fails 1 "a policy built against another view layout is refused" \
	"built against another slackgov_ops.h" policy load "$P/old_view_policy.bpf.o"
ktap_check '[ "$(cat $LAW)" = builtin ] && [ ! -e $PPIN ]' "still builtin, nothing pinned"

# -- a policy the built-in law would not follow: idle CPU at mid range
fmid=$(( ($(fmin 1) + $(fmax 1)) / 2 ))
ktap_run_ok "policy load mid_policy.bpf.o" "$S" policy load "$P/mid_policy.bpf.o"
ktap_check 'wait_for "[ \$(cur 1) -ge $fmid ]" 50' \
	"cpufreq follows the ops: idle CPU at mid range (>= $fmid kHz)"
# rmmod: the governor's own reference gone, the struct_ops map still holds one
echo performance > $(pol 1)/scaling_governor
ktap_check '! rmmod slackgov 2>/dev/null && grep -q "^slackgov " /proc/modules' \
	"rmmod refused while the ops are registered"
echo slack > $(pol 1)/scaling_governor
"$S" policy unload > /dev/null
ktap_check 'wait_for "[ \$(cur 1) -eq $(fmin 1) ]" 30' \
	"after unload the built-in law decides: idle CPU back at min"

# -- policy run: not pinned; killing slackctl hands back to the built-in law
"$S" policy run "$P/mid_policy.bpf.o" > run.out 2>&1 &
runpid=$!
sg_defer "kill -9 $runpid 2>/dev/null"
wait_for '[ "$(cat $LAW)" = bpf:mid ]' 50
ktap_check '[ "$(cat $LAW)" = bpf:mid ] && [ ! -e $PPIN ]' "policy run: law bpf:mid, nothing pinned"
sc_fails 1 "a second registration (another policy runs)" "another policy is registered" \
	policy load "$UTIL"
kill -9 $runpid
ktap_check 'wait_for "[ \"\$(cat $LAW)\" = builtin ] && [ \$(cur 1) -eq $(fmin 1) ]" 30' \
	"loader killed: law builtin, idle CPU back at min"

# -- garbage: errors and out-of-range values refused and counted, the rest clamped
lim=$(( $(fmax 1) - ($(fmax 1) - $(fmin 1)) / 4 ))
oldmax=$(cat $(pol 1)/scaling_max_freq)
sg_defer "echo $oldmax > $(pol 1)/scaling_max_freq"
echo "$lim" > $(pol 1)/scaling_max_freq
lim=$(cat $(pol 1)/scaling_max_freq)
echo > $TR/trace
ktap_run_ok "policy load garbage_policy.bpf.o" "$S" policy load "$P/garbage_policy.bpf.o"
taskset 2 sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i + 1)); done'
ktap_check 'wait_for "grep -q \"law=bpf:garbage .* result=error\" $TR/trace &&
	grep -q \"law=bpf:garbage .* result=range\" $TR/trace &&
	grep -q \"law=bpf:garbage .* freq=$lim result=clamped\" $TR/trace" 100' \
	"trace: error and range refused, hardware max clamped to scaling_max ($lim)"
fb=$(gstat 1 ops_fallbacks)
ktap_check '[ "$fb" -gt 0 ]' "ops_fallbacks counts the refused values ($fb)"
"$S" policy unload > /dev/null
echo "$oldmax" > $(pol 1)/scaling_max_freq
# a saturated target: the boost rule keeps priority (no SLACKGOV_OPS_F_RAW);
# last, as the stale rule then holds the safe frequency for 5 s
"$S" policy load "$P/mid_policy.bpf.o" > /dev/null
echo > $TR/trace
"$INJ" -C 1 -s 10 -d 600 > /dev/null
ktap_check 'grep -q "policy=1 law=bpf:mid .* freq=$(fmax 1) result=rule" $TR/trace' \
	"boost without the RAW flag: the built-in max stands (result=rule)"
"$S" policy unload > /dev/null
# ... and with it the ops decide in the boost and the stale hold that follows
"$S" policy load "$P/raw_policy.bpf.o" > /dev/null
echo > $TR/trace
"$INJ" -C 1 -s 10 -d 600 > /dev/null
ktap_check 'grep -q "policy=1 law=bpf:raw builtin=$(fmax 1) .* freq=$fmid result=ok" $TR/trace &&
	! grep -q "law=bpf:raw .* result=rule" $TR/trace' \
	"boost with SLACKGOV_OPS_F_RAW: the ops' mid range applied over the built-in max (result=ok)"
"$S" policy unload > /dev/null
ktap_eq "$bad0" "$(dmesg_bad)" "no WARNING, Oops or BUG in dmesg"
[ "$KTAP_FAIL" -eq 0 ] || dmesg | tail -40 | sed 's/^/# dmesg: /'
ktap_finished
