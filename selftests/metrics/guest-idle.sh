# SPDX-License-Identifier: GPL-2.0
# guest-idle.sh - an idle target keeps publishing windows: with the module
# loaded, a target server that served a load and then sits blocked in
# epoll_wait publishes zero-load windows (rps 0, slack 1000, IDLE) from the
# BPF idle timer, the module accepts them, and the governor stays on the
# signal (no fallback to safe); when the server exits, the windows stop
# after a last EXITED window and the governor falls back, as documented.
. "$SG_TOP/selftests/lib/ktap.sh"

S=$SG_BUILD/userctl/slackctl
B=$SG_BUILD/selftests
SL=/sys/devices/system/cpu/cpufreq/policy1/slack
POL=/sys/devices/system/cpu/cpu1/cpufreq
# field NAME LINE: the value of NAME= in an sgwin line
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
last() { "$B/sgwin" -s "$SLOT" | sed -n 's/^last //p'; }

ktap_plan 12
insmod "$SG_BUILD/kmod/vfreq.ko"
sg_defer "sg_rmmod vfreq"
insmod "$SG_BUILD/kmod/slackgov.ko"
sg_defer "sg_rmmod slackgov"
old=$(cat $POL/scaling_governor)
echo slack > $POL/scaling_governor
sg_defer "echo $old > $POL/scaling_governor"
# stale_ms 500 (default 50): what is tested is that idle windows keep coming,
# not their latency, and a timer in a TCG guest on a busy host can fire tens
# of ms late
STALE=/sys/devices/system/cpu/cpufreq/slack/stale_ms
ostale=$(cat $STALE)
echo 500 > $STALE
sg_defer "echo $ostale > $STALE"
"$S" load --hooks "$SG_LOOP_HOOKS" > /dev/null
sg_defer "$S unload"

taskset -c 1 "$B/sgserver" -p 0 -t 1 -s 500 > srv.out 2>/dev/null &
SPID=$!
sg_defer "kill $SPID"
for i in $(seq 1 60); do [ -s srv.out ] && break; sleep 0.5; done
PORT=$(awk '/ready/ {print $2}' srv.out)
SLOT=$("$S" -j target add --pid $SPID | sed -n 's/.*"slot": *\([0-9]*\).*/\1/p')
taskset -c 0 "$B/sgclient" -p "$PORT" -r 100 -d 1 -c 1 > /dev/null
sleep 0.5

# idle: the server waits in epoll_wait, makes no syscall, does not run
f0=$(cat $SL/fallbacks)
w0=$(last); t0=$(date +%s)
sleep 2
w1=$(last); t1=$(date +%s)
f1=$(cat $SL/fallbacks); mode=$(cat $SL/mode)
n=$(( $(field seq "$w1") - $(field seq "$w0") ))
ktap_note "idle: $n windows in about $((t1 - t0)) s; last: $(echo "$w1" | cut -d' ' -f1-12)"
# 2 s at the 10 ms default is 200; the bound that matters to the governor is
# one per default stale_ms (50 ms): 40
ktap_cmp "$n" -ge 40 "an idle target closes windows (at least one per 50 ms)"
ktap_eq 1 "$(( $(field flags "$w1") & 1 ))" "the last window is flagged IDLE"
ktap_eq 0 "$(field rps "$w1")" "idle window: rps 0"
ktap_eq 1000 "$(field slack "$w1")" "idle window: slack 1000"
ktap_eq 0 "$(field report_ret "$w1")" "the module accepted the idle window (fed from the timer)"
ktap_eq "$f0" "$f1" "no fallback to safe while the target is idle but alive"
ktap_check '[ "$mode" != safe ]' "the governor's mode stays on the signal ($mode)"

# exit: a last window, then nothing; the governor leaves the signal
kill $SPID; wait $SPID 2>/dev/null
sleep 1
w2=$(last)
ktap_note "after the exit: $(echo "$w2" | cut -d" " -f1-13)"
ktap_eq 4 "$(( $(field flags "$w2") & 4 ))" "the target's last window is flagged EXITED"
sleep 0.5
w3=$(last)
ktap_eq "$(field seq "$w2")" "$(field seq "$w3")" "no window after the target exited"
# the EXITED window returns the policy to the util rule at once (governor.rst,
# "Stale and exited"): within 2 s, where the stale path would hold the safe
# frequency for stale_ms + 5 s first, and without counting a fallback
for i in $(seq 1 20); do [ "$(cat $SL/mode)" = util ] && break; sleep 0.1; done
ktap_eq util "$(cat $SL/mode)" "the governor returned to the util rule once the target exited"
ktap_eq "$f1" "$(cat $SL/fallbacks)" "an exited target is not a lost signal: no fallback"
"$S" target del --pid $SPID > /dev/null
ktap_check '"$S" unload > /dev/null' "unload with the idle timer stopped"
ktap_finished
