# SPDX-License-Identifier: GPL-2.0
# guest-feed.sh - the whole loop in the guest: with slackgov.ko loaded,
# slackctl loads the feeding programs, the module accepts every window of a
# served load (report_ret 0), and the governor on the target's CPU acts on it.
. "$SG_TOP/selftests/lib/ktap.sh"

S=$SG_BUILD/userctl/slackctl
B=$SG_BUILD/selftests
POL=/sys/devices/system/cpu/cpu1/cpufreq
ktap_plan 9
insmod "$SG_BUILD/kmod/vfreq.ko"
sg_defer "sg_rmmod vfreq"
ktap_run_ok "slackgov.ko loads" insmod "$SG_BUILD/kmod/slackgov.ko"
sg_defer "sg_rmmod slackgov"
old=$(cat $POL/scaling_governor)
echo slack > $POL/scaling_governor
sg_defer "echo $old > $POL/scaling_governor"
ktap_run_ok "slackctl load with the module" "$S" load
sg_defer "$S unload"
ktap_check '[ -e /sys/fs/bpf/slackgov/links/sg_switch ] && "$S" -j status | grep -q "\"feed\": true"' \
	"the feeding object is the one attached"

taskset -c 1 "$B/sgserver" -p 0 -t 1 -s 500 > srv.out 2>/dev/null &
SPID=$!
sg_defer "kill $SPID"
for i in $(seq 1 60); do [ -s srv.out ] && break; sleep 0.5; done
PORT=$(awk '{print $2}' srv.out)
"$S" target add --pid $SPID > /dev/null
taskset -c 0 "$B/sgclient" -p "$PORT" -r 200 -d 3 -c 2 > /dev/null &
C=$!
sleep 2
st=$("$S" -j status)
wait $C
ktap_note "$(echo "$st" | tr ',' '\n' | grep -E '"(rps|slack|report_ret|windows|mode|last_reason)"' | tr '\n' ' ')"
ktap_check 'echo "$st" | grep -q "\"feed\": true"' "status reports the feed on"
ktap_check 'echo "$st" | grep -qE "\"windows\": [1-9]"' "the target's windows close"
ktap_check 'echo "$st" | grep -q "\"report_ret\": 0"' "the module accepted the last window (report_ret 0)"
dec=$(cat /sys/devices/system/cpu/cpufreq/policy1/slack/decisions)
ktap_cmp "$dec" -gt 0 "the governor made decisions on the target's CPU"
ktap_check 'grep -qE "^(slack|boost|util|safe)$" /sys/devices/system/cpu/cpufreq/policy1/slack/mode' \
	"its mode is reported ($(cat /sys/devices/system/cpu/cpufreq/policy1/slack/mode))"
kill $SPID; "$S" unload > /dev/null
ktap_check '[ ! -e /sys/fs/bpf/slackgov ]' "unload removes the pins"
ktap_finished
