# SPDX-License-Identifier: GPL-2.0
# host-slackctl.sh - every slackctl command and error path on a kernel
# without slackgov.ko (metrics only), with the state after each.
. "$SG_TOP/selftests/lib/ktap.sh"

S=$SG_BUILD/userctl/slackctl
PIN=/sys/fs/bpf/slackgov
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
sg_defer "$S unload"
json() { python3 -c 'import json,sys; json.load(sys.stdin)'; }
ours() { bpftool -j prog show | python3 -c 'import json,sys; print(sum(1 for p in json.load(sys.stdin) if p.get("name","").startswith("sg_")))'; }
before=$(ours)	# programs of ours still being freed from an earlier run

ktap_plan 27
ktap_run_fails "status before load fails" "$S" status
ktap_check '"$S" -j status | grep -q "\"error\": \"not loaded"' "-j errors are JSON objects"
ktap_run_fails "unload before load fails" "$S" unload
ktap_run_fails "load --feed on without the module fails" "$S" load --feed on
ktap_check '[ ! -e $PIN ]' "and leaves no pin"
ktap_run_fails "load --feed bogus fails" "$S" load --feed bogus
ktap_run_ok "load" "$S" load
ktap_check '[ -e $PIN/windows ] && [ -e $PIN/links/sg_exit ] && "$S" -j status | grep -q "\"feed\": false"' \
	"maps and the non-feeding programs' links are pinned"
ktap_cmp "$(bpftool prog show | grep -cE "name sg_(enter|exit|switch) ")" -ge 3 "three programs attached"
ktap_run_fails "a second load fails" "$S" load
ktap_check '"$S" status | grep -q "feed: off (module not loaded: metrics only)"' "status says metrics only"
ktap_check '"$S" -j status | json' "status -j is JSON"

sleep 30 & P=$!
sg_defer "kill $P"
ktap_run_ok "target add --pid" "$S" target add --pid $P --setpoint 25%
ktap_run_fails "the same target twice fails" "$S" target add --pid $P
ktap_run_fails "a PID that does not exist fails" "$S" target add --pid 999999
ktap_run_fails "a path that is not a cgroup v2 directory fails" "$S" target add --cgroup /tmp
ktap_run_fails "a too long process name fails" "$S" target add --comm abcdefghijklmnopq
ktap_run_ok "target add --comm" "$S" target add --comm sgserver
ktap_eq 2 "$("$S" target list | wc -l)" "two targets listed"
ktap_check '"$S" target list | grep -q "pid $P .*setpoint 250"' "the per-target setpoint is kept"
ktap_run_ok "target del" "$S" target del --pid $P
ktap_run_fails "deleting it again fails" "$S" target del --pid $P

ktap_run_ok "set window 20ms" "$S" set window 20ms
ktap_eq 20000000 "$("$S" get window)" "get window reads 20 ms back in ns"
ktap_run_fails "set window with a bad unit fails" "$S" set window 20parsecs
ktap_eq 20000000 "$("$S" get window)" "and leaves it unchanged"
"$S" unload >/dev/null
# programs are freed after an RCU grace period: give them a moment
for i in 1 2 3 4 5 6 7 8 9 10; do [ "$(ours)" -le "$before" ] && break; sleep 0.3; done
ktap_check '[ ! -e $PIN ] && [ "$(ours)" -le "$before" ]' "unload removes every pin and program"
ktap_finished
