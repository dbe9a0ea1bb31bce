# SPDX-License-Identifier: GPL-2.0
# host-badinput.sh - bad input changes nothing: more than 1000 generated bad
# command lines (badinput.py: every command that takes an argument, every
# knob, --setpoint, --slo, --pid, --slot, --cgroup, --watch, --interval,
# --feed), each as text and -j, all fail with one error; slackctl -j status,
# slackctl get and the pinned target and settings maps are byte for byte
# what they were before.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
command -v python3 > /dev/null || ktap_skip_all "python3 missing"
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG2" ] || ktap_skip_all "no cgroup2 mount"
sg_defer "$S unload"

# the state bad input must not change; the targets have no process that makes
# system calls (a sleeping one, a name nothing runs, an empty cgroup), so that
# nothing in it moves by itself
snap() {
	"$S" -j status
	"$S" -j get
	"$S" target list
	for m in target_pid target_comm target_cgroup sg_config; do
		bpftool -j map dump pinned $PIN/$m
	done
}

ktap_plan 4
"$S" load > /dev/null
"$S" set window 20ms
sleep 1000 &
SP=$!
sg_defer "kill $SP"
# asleep before it is a target: its start's system calls, if the target saw
# them, would open its windows, which then move through the test (once read
# as a changed state)
for i in $(seq 50); do
	[ "$(cat /proc/$SP/comm)" = sleep ] && [ "$(awk '{ print $3 }' /proc/$SP/stat)" = S ] && break
	sleep 0.1
done
cg=$CG2/sgbad.$$
mkdir "$cg"
sg_defer "rmdir $cg"
"$S" target add --pid $SP --setpoint 25% --slo p95:2ms > /dev/null
"$S" target add --comm sgbad-watched > /dev/null
"$S" target add --cgroup "$cg" --slo 1s > /dev/null
snap > before.txt
python3 "$SG_TOP/selftests/slackctl/badinput.py" "$S" sgbad-watched 4294967295 > bad.txt 2>&1
rc=$?
runs=$(sed -n 's/^runs //p' bad.txt)
snap > after.txt
ktap_note "$(grep -m 20 '^bad: ' bad.txt)"
ktap_eq 0 "$rc" "every bad command line failed with one error ($(grep -c '^bad: ' bad.txt) did not)"
ktap_cmp "${runs:-0}" -ge 1000 "at least 1000 of them ($runs)"
ktap_check 'cmp -s before.txt after.txt' \
	"status -j, get, target list and the pinned maps are unchanged $(diff before.txt after.txt | head -n 6 | tr '\n' ' ')"
ktap_eq 3 "$("$S" target list | wc -l)" "the three targets are still there"
ktap_finished
