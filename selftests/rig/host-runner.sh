# SPDX-License-Identifier: GPL-2.0
# host-runner.sh - the guest runner reports what happened in the guest:
# a pass, a failed check, a dmesg WARNING, a hung test, a guest that died.
. "$SG_TOP/selftests/lib/ktap.sh"

VMRUN=$SG_TOP/selftests/vm/run
FIX=selftests/rig/fixtures

# vmrun NAME TEST...: run in a guest, keep the stream in $PWD/NAME.out
vmrun() {
	_n=$1; shift
	O=$SG_BUILD "$VMRUN" -o "$PWD/vm-$_n" "$@" > "$_n.out" 2>&1
	echo $? > "$_n.rc"
}
has() { tr -d '\r' < "$1.out" | grep -q -- "$2"; }

ktap_plan 9
vmrun pass $FIX/guest-pass.sh
ktap_eq 0 "$(cat pass.rc)" "a passing test: guest result 0"
ktap_check 'has pass "SG-END $FIX/guest-pass.sh 0"' "its exit status reaches the host"
ktap_check 'has pass "ok 1 passes"' "its KTAP is streamed"

vmrun bad $FIX/guest-fail.sh $FIX/guest-warn.sh $FIX/guest-hang.sh
ktap_cmp "$(cat bad.rc)" -ne 0 "failed, warning and hung tests: guest result non-zero"
ktap_check 'has bad "SG-END $FIX/guest-fail.sh 1"' "a failed check fails its test"
ktap_check 'has bad "SG-DMESG $FIX/guest-warn.sh 1"' "a dmesg WARNING is caught"
ktap_check 'has bad "SG-END $FIX/guest-hang.sh 124"' "a hung test is killed at its timeout"

vmrun die $FIX/guest-die.sh
ktap_cmp "$(cat die.rc)" -ne 0 "a guest that dies mid-test fails the run (seeded failure)"
ktap_check 'has die "SG-DIED"' "and says so"
ktap_finished
