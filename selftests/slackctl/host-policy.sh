# SPDX-License-Identifier: GPL-2.0
# host-policy.sh - slackctl policy's error paths on the host kernel (no
# slackgov.ko, so no struct slackgov_ops): a missing file, a file that is no
# BPF object, a BPF object that is no policy, a policy without the module,
# an unload with none loaded, bad arguments.  Each: one "Error:" line (and
# {"error": ...} with -j), the exit status, nothing pinned.  show works
# without anything loaded.  Loading policies: governor/guest-policy.sh.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

PPIN=/sys/fs/bpf/slackgov_policy
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e /sys/module/slackgov ] && ktap_skip_all "slackgov.ko is loaded: this test is for a kernel without it"
[ -e $PPIN ] && ktap_skip_all "$PPIN exists: a policy is in use on this machine"

ktap_plan 10
sc_fails 1 "policy load of a missing file" "/nonexistent.o: No such file or directory" \
	policy load /nonexistent.o
sc_fails 1 "policy load of a file that is no BPF object" "cannot open as a BPF object" \
	policy load /proc/version
sc_fails 1 "policy load of a BPF object that is no policy" "not a policy" \
	policy load "$SG_BUILD/bpf/slackgov.bpf.o"
sc_fails 1 "policy load without slackgov.ko" "slackgov.ko is not loaded" \
	policy load "$SG_BUILD/bpf/util_policy.bpf.o"
sc_fails 1 "policy unload with none loaded" "no policy is loaded" policy unload
sc_fails 1 "policy load without FILE" "expected one FILE" policy load
sc_fails 1 "policy show with an argument" "unexpected 'x'" policy show x
sc_fails 2 "an unknown policy command" "unknown command 'frob'" policy frob
ktap_check '[ ! -e $PPIN ]' "nothing pinned"
sc_json "policy show -j / -p" policy show
ktap_finished
