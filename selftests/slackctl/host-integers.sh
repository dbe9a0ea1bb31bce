# SPDX-License-Identifier: GPL-2.0
# host-integers.sh - a PID, a slot, a cgroup id and a count are integers
# (issue 49 item 4): --pid 1.0 was taken as PID 1.  Each of 1.0, 1.,
# 1e3, 0x10, +1 and trailing junk, for --pid (add, del, set), --slot and
# the count, gain and kHz knobs (and --cgroup 1.0, which is a path), fails with one "Error: ..." line
# (and {"error": ...} with -j), exit 1, and the targets, the pinned maps and
# status are byte for byte what they were; plain digits still work.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
sg_defer "$S unload"

snap() {
	"$S" -j status | sed 's/"age_s": [-0-9.]*//g'
	"$S" -j get
	"$S" target list
	for m in target_pid target_comm target_cgroup sg_config; do
		bpftool -j map dump pinned $PIN/$m
	done
}

ktap_plan 29
ktap_run_ok "slackctl load" "$S" load
# a sleeping target (no system calls: its windows stay still) in slot 0
sleep 1000 &
SP=$!
sg_defer "kill $SP"
for i in $(seq 50); do
	[ "$(awk '{ print $3 }' /proc/$SP/stat 2>/dev/null)" = S ] && break
	sleep 0.1
done
ktap_run_ok "target add --pid PID (digits)" "$S" target add --pid $SP --slo p99:2ms
snap > before.txt

m="not an integer (--pid takes digits only, no decimal point)"
sc_fails 1 "target add --pid 1.0 (was PID 1)" "--pid: bad value '1.0': $m" target add --pid 1.0
sc_fails 1 "target add --pid PID.0" "--pid: bad value '$SP.0': $m" target add --pid $SP.0
sc_fails 1 "target add --pid 1." "--pid: bad value '1.': $m" target add --pid 1.
sc_fails 1 "target add --pid 1e3" "--pid: bad value '1e3': 'e3' after the number" target add --pid 1e3
sc_fails 1 "target add --pid 0x10" "--pid: bad value '0x10': 'x10' after the number" target add --pid 0x10
sc_fails 1 "target add --pid +1" "--pid: bad value '+1': no sign" target add --pid +1
sc_fails 1 "target add --pid 1abc" "--pid: bad value '1abc': 'abc' after the number" target add --pid 1abc
sc_fails 1 "target add --pid '1 '" "--pid: bad value '1 ': trailing whitespace" target add --pid '1 '
sc_fails 1 "target del --pid PID.0 (the target stays)" "--pid: bad value '$SP.0': $m" target del --pid $SP.0
sc_fails 1 "target set --pid PID.0" "--pid: bad value '$SP.0': $m" target set --pid $SP.0 --slo 5ms
m="not an integer (--slot takes digits only, no decimal point)"
sc_fails 1 "target del --slot 0.0" "--slot: bad value '0.0': $m" target del --slot 0.0
sc_fails 1 "target set --slot 0.0" "--slot: bad value '0.0': $m" target set --slot 0.0 --slo 5ms
sc_fails 1 "target del --slot 0e0" "--slot: bad value '0e0': 'e0' after the number" target del --slot 0e0
sc_fails 1 "target del --slot +0" "--slot: bad value '+0': no sign" target del --slot +0
# --cgroup takes an id only as digits: 1.0 is a path, here one that is not there
sc_fails 1 "target del --cgroup 1.0 (not an id: a path)" "target del: '1.0' does not exist" \
	target del --cgroup 1.0
sc_fails 1 "set window_sends 10.0 (a count)" \
	"window_sends: bad value '10.0': not an integer (window_sends takes digits only" set window_sends 10.0
sc_fails 1 "set --check window_sends 1e3" "window_sends: bad value '1e3': 'e3' after the number" \
	set --check window_sends 1e3
sc_fails 1 "set --check kp 1.0 (a x1000 gain: was 0.001)" \
	"kp: bad value '1.0': not an integer (kp takes digits only" set --check kp 1.0
sc_fails 1 "set --check safe_khz 1000000.0" \
	"safe_khz: bad value '1000000.0': not an integer (safe_khz takes digits only" \
	set --check safe_khz 1000000.0
snap > after.txt
ktap_check 'cmp -s before.txt after.txt' \
	"status -j, get, target list and the pinned maps are unchanged $(diff before.txt after.txt | head -n 6 | tr '\n' ' ')"
ktap_eq "pid $SP" "$("$S" target list | awk 'NR == 1 { print $1, $2 }')" "the one target is still pid $SP"
ktap_eq 1 "$("$S" target list | wc -l)" "and nothing was added"

# the units of the fields that have them are as before
ktap_run_ok "set --check window 1.5ms (a time takes a decimal)" "$S" set --check window 1.5ms
ktap_run_ok "set --check setpoint 35.5% (a ratio takes a decimal)" "$S" set --check setpoint 35.5%
ktap_run_ok "set window_sends 10 (digits)" "$S" set window_sends 10
ktap_eq '{"window_sends": 10}' "$("$S" -j get window_sends)" "window_sends is 10"
ktap_run_ok "target del --slot 0 (digits)" "$S" target del --slot 0
ktap_finished
