# SPDX-License-Identifier: GPL-2.0
# debug-fuzz.sh - make check-debug's fuzz of the kfunc and struct_ops
# boundary.  On a guest where cpu1 runs slack and cpu0 does not, sgfuzz
# (selftests/tools/sgfuzz.c) hands DEBUG_FUZZ_N random samples (default
# 20000: sizes, versions, CPU masks, counts, SLOs, margins) to
# slackgov_report() and checks each answer against the kfunc's contract,
# while the random-answer policies (selftests/debug/progs/fuzz_*policy.bpf.c,
# plain and RAW) are loaded and unloaded in turn with cpu1 busy, so that
# they decide: their answers counted (ops_decisions, ops_fallbacks), cpu1's
# frequency read after each cycle and within the hardware range whatever
# they answered.  The seed is printed; DEBUG_FUZZ_SEED replays a run.  The
# checkers' verdict is debug-reports.sh's.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/governor/common.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

FUZZ=$SG_BUILD/selftests/sgfuzz
P=$SG_BUILD/selftests/progs
PPIN=/sys/fs/bpf/slackgov_policy
N=${DEBUG_FUZZ_N:-20000}
SEED=${DEBUG_FUZZ_SEED:-$(date +%s)}
[ -x "$FUZZ" ] || ktap_skip_all "sgfuzz not built"
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PPIN ] && ktap_skip_all "$PPIN exists: a policy is in use"
kv=$(uname -r | awk -F. '{ print $1 * 100 + $2 }')
ops=0
[ "$kv" -ge 609 ] && [ -e "$P/fuzz_policy.bpf.o" ] && ops=1

ktap_plan 8
sg_setup 1 || { ktap_fail "setup"; ktap_finished; }
sg_defer "rm -f $PPIN"
ktap_eq "slack" "$(cat $(pol 1)/scaling_governor)" "cpu1 runs slack (cpu0: $(cat $(pol 0)/scaling_governor))"
taskset -c 1 sh -c 'end=$(($(date +%s) + 3600)); while [ $(date +%s) -lt $end ]; do :; done' &
spin=$!
sg_defer "kill $spin 2>/dev/null"
d0=$(gstat 1 ops_decisions) f0=$(gstat 1 ops_fallbacks)
t0=$(date +%s)
taskset -c 0 "$FUZZ" -n "$N" -s "$SEED" > fuzz.out 2> fuzz.err &
fz=$!
sg_defer "kill $fz 2>/dev/null"
# policies in and out while the fuzzer runs: each cycle's frequency checked
ncyc=0 fcyc=0 out=""
lo=$(fmin 1) hi=$(fmax 1)
while kill -0 $fz 2>/dev/null && [ $ops = 1 ]; do
	case $((RANDOM % 2)) in 0) o=fuzz_policy ;; 1) o=fuzz_raw_policy ;; esac
	ncyc=$((ncyc + 1))
	"$S" policy load "$P/$o.bpf.o" > pol.out 2>&1 || { fcyc=$((fcyc + 1)); cat pol.out; }
	sleep 1
	f=$(cur 1)
	[ "$f" -ge "$lo" ] && [ "$f" -le "$hi" ] || out="$out $f"
	"$S" policy unload > pol.out 2>&1 || { fcyc=$((fcyc + 1)); cat pol.out; }
done
wait $fz
rc=$?
el=$(($(date +%s) - t0))
kill $spin; wait $spin 2>/dev/null
sed 's/^/# /' fuzz.out
head -n 20 fuzz.err | sed 's/^/# /'
v() { sed -n "s/.*\<$1=\([0-9]*\).*/\1/p" fuzz.out | head -n 1; }
dd=$(($(gstat 1 ops_decisions) - d0)) df=$(($(gstat 1 ops_fallbacks) - f0))
ktap_note "$(v inputs) samples in $el s (seed $SEED); $ncyc policy cycles: $dd answers applied, $df refused"
ktap_eq 0 "$rc" "sgfuzz ran to its end"
ktap_eq "$N" "$(v inputs)" "$N samples handed to the kfunc"
ktap_eq 0 "$(v mismatch)" "every answer as the kfunc's contract says"
ktap_check '[ "$(v ok)" -gt 0 ] && [ "$(v einval)" -gt 0 ] && [ "$(v enodev)" -gt 0 ]' \
	"accepted, invalid and ungoverned samples each seen ($(v ok), $(v einval), $(v enodev))"
if [ $ops = 1 ]; then
	ktap_eq "0/$ncyc" "$fcyc/$ncyc" "every fuzz policy loaded and unloaded"
	ktap_check '[ $dd -gt 0 ] && [ $df -gt 0 ]' "the fuzz policies decided: answers applied ($dd) and refused ($df)"
	ktap_eq "" "$out" "cpu1's frequency within $lo-$hi kHz after each cycle"
else
	for d in "every fuzz policy loaded and unloaded" "the fuzz policies decided" \
		"cpu1's frequency within the hardware range"; do
		ktap_skip "$d" "no module struct_ops before 6.9"
	done
fi
ktap_finished
