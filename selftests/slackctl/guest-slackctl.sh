# SPDX-License-Identifier: GPL-2.0
# guest-slackctl.sh - slackctl with slackgov.ko present (Debian 6.1 guest,
# vfreq.ko as the cpufreq driver): load enables the feed, governor knobs set
# through slackctl reach /sys/devices/system/cpu/cpufreq/slack/, a rejected
# value leaves the sysfs knob as it was, status shows each policy's
# frequency, last decision and reason, unload removes every pin.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

B=$SG_BUILD/selftests
GOV=/sys/devices/system/cpu/cpufreq/slack
POL1=/sys/devices/system/cpu/cpufreq/policy1
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e "$SG_BUILD/kmod/slackgov.ko" ] || ktap_skip_all "slackgov.ko not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use"
# the test shell stays on cpu0, away from the server on cpu1
taskset -p 1 $$ > /dev/null 2>&1

# rmmod can see EAGAIN for a moment after the last BPF program went away
ktap_plan 42
# emulate=0: a plain table driver (the emulated slowdown is not under test)
insmod "$SG_BUILD/kmod/vfreq.ko" emulate=0 fast_switch=${VFREQ_FAST_SWITCH:-0} ||
	ktap_skip_all "vfreq.ko does not load"
sg_defer "sg_rmmod vfreq"
ktap_note "vfreq fast_switch=$(cat /sys/module/vfreq/parameters/fast_switch) (VFREQ_FAST_SWITCH=1 selects it)"
ktap_run_ok "slackgov.ko loads" insmod "$SG_BUILD/kmod/slackgov.ko"
sg_defer "sg_rmmod slackgov"
# both policies under slack: status and stats show two of them (policy0 without a target)
for p in 0 1; do
	old=$(cat /sys/devices/system/cpu/cpufreq/policy$p/scaling_governor)
	echo slack > /sys/devices/system/cpu/cpufreq/policy$p/scaling_governor
	sg_defer "echo $old > /sys/devices/system/cpu/cpufreq/policy$p/scaling_governor"
done
sg_defer "$S unload"

# -- slackctl's knob table against the module's (before anything is set):
# every sysfs knob is known, and each default is what the module starts with
# (rate_limit_us comes from the driver)
"$S" get > get.txt
unknown=$(for f in $(ls $GOV); do grep -q "^$f " get.txt || echo "$f"; done)
ktap_eq "" "$unknown" "slackctl knows every knob in $GOV"
bad=$(awk '$1 != "window" && $1 != "window_sends" && $1 != "rate_limit_us" && $2 != $NF {
	print $1 "=" $2 "(default " $NF ")" }' get.txt | xargs)
ktap_eq "" "$bad" "slackctl's governor defaults are the module's"

# -- load: the module is there, so the feed is on
ktap_check '"$S" load --hooks "$SG_LOOP_HOOKS" | grep -q "loaded, feed: on (slackgov.ko)"' "load says the feed is on"
ktap_check '[ -e $PIN/windows ] && [ -e $PIN/links/sg_switch ]' "maps and links are pinned"
sc_json "status -j / -p" status
ktap_check 'grep -q "\"feed\": true, \"module\": true" j.out' "status -j: feed and module on"
ktap_check '"$S" status | grep -q "^feed: on (slackgov.ko)"' "status says the feed is on"
sc_fails 1 "a second load" "already loaded" load

# -- governor knobs through slackctl, seen in sysfs
sp0=$(cat $GOV/setpoint) st0=$(cat $GOV/stale_ms) rl0=$(cat $GOV/rate_limit_us)
sg_defer "echo $sp0 > $GOV/setpoint; echo $st0 > $GOV/stale_ms; echo $rl0 > $GOV/rate_limit_us"
ktap_run_ok "set setpoint 30%" "$S" set setpoint 30%
ktap_eq 300 "$(cat $GOV/setpoint)" "sysfs setpoint reads 300"
ktap_run_ok "set stale_ms 100ms" "$S" set stale_ms 100ms
ktap_eq 100 "$(cat $GOV/stale_ms)" "sysfs stale_ms reads 100"
ktap_eq '{"rate_limit_us": 2000}' "$("$S" -j set rate_limit_us 2ms)" "set -j rate_limit_us 2ms"
ktap_eq "2000:2000" "$(cat $GOV/rate_limit_us):$("$S" get rate_limit_us)" "sysfs and get read 2000"

# -- rejected values: the sysfs knob keeps its value
sc_fails 1 "setpoint above its range" "setpoint: 1001 is out of range 0..1000" set setpoint 1001
sc_fails 1 "stale_ms below its range" "stale_ms: 1 is out of range 5..60000" set stale_ms 1
relax=$(cat $GOV/idle_relax_slack) tight=$(cat $GOV/idle_tight_slack)
sc_fails 1 "idle_tight_slack above idle_relax_slack" \
	"idle_tight_slack: the kernel refused $((relax + 1))" set idle_tight_slack $((relax + 1))
ktap_eq "300 100 $tight" "$(cat $GOV/setpoint) $(cat $GOV/stale_ms) $(cat $GOV/idle_tight_slack)" \
	"setpoint, stale_ms and idle_tight_slack unchanged"

# -- bad input to every governor knob (the number parser in front of the
# module's own check): every one fails, no sysfs file changes
govsnap() { for f in $(ls $GOV); do echo "$f $(cat $GOV/$f)"; done; "$S" -j get; }
govsnap > gov0.txt
n=0 ok=0
for k in $(ls $GOV); do
	while IFS= read -r v; do
		n=$((n + 1))
		"$S" set "$k" "$v" > /dev/null 2>&1 && { ok=$((ok + 1)); ktap_note "accepted: set $k '$v'"; }
	done <<'EOF2'

-1
+1
 5
5 
1e3
0x10
1.
.5
1..5
18446744073709551616
1844674407370955162%
 -18446744073709551615
1000001%
99999999999
abc
1 ms
1MS
0.0001%
100000001
EOF2
done
govsnap > gov1.txt
ktap_eq "0" "$ok" "$n bad values to the governor's knobs all fail"
ktap_check 'cmp -s gov0.txt gov1.txt' "and no knob changed $(diff gov0.txt gov1.txt | head -n 4 | tr '\n' ' ')"

# -- a target served on cpu1: the governor there decides, status shows it
taskset -c 1 "$B/sgserver" -p 0 -t 1 -s 500 > srv.out 2> /dev/null &
SPID=$!
sg_defer "kill $SPID"
for i in $(seq 1 60); do [ -s srv.out ] && break; sleep 0.5; done
PORT=$(awk '{print $2}' srv.out)
ktap_run_ok "target add --pid" "$S" target add --pid $SPID
taskset -c 0 "$B/sgclient" -p "$PORT" -r 200 -d 3 -c 2 > /dev/null &
C=$!
sleep 2
"$S" status > st.txt
"$S" -j status > st.json
"$S" stats --prom > prom.txt
wait $C
# policy1's entry of status -j, one member per line
tr '{}' '\n\n' < st.json | grep '"policy": "policy1"' | tr ',' '\n' > pol1.txt
ktap_note "$(tr '\n' ' ' < pol1.txt)"
ktap_check 'grep -q "\"governor\": \"slack\"" pol1.txt && grep -qE "\"cur_khz\": [1-9][0-9]*$" pol1.txt' \
	"status -j: policy1 under slack with its frequency"
ktap_check 'grep -qE "\"last_freq_khz\": [1-9][0-9]*$" pol1.txt && grep -qE "\"decisions\": [1-9][0-9]*$" pol1.txt' \
	"status -j: its last decision and a decision count"
ktap_check 'grep -qE "\"last_reason\": \"[a-z-]+\"" pol1.txt && ! grep -q "\"last_reason\": \"-\"" pol1.txt' \
	"status -j: the reason of the last decision"
ktap_check 'grep -qE "\"lat_q_us\": 0$" pol1.txt && grep -qE "\"slo_k_milli\": 0$" pol1.txt &&
	grep -qE "^policy1 .* - +- +builtin$" st.txt' \
	"status: the SLO law's tail and K, none without an SLO target (0 in -j, - in the table)"
ktap_check 'grep -qE "^policy1 +slack +[0-9]+ +[a-z]+ +[a-z-]+ +[0-9]+ +[1-9]" st.txt' \
	"status: a policy1 row with frequency, mode, reason, last decision, decisions"
ktap_check 'grep -qE "^slackgov_policy_decisions_total\{policy=\"policy1\"\} [1-9]" prom.txt &&
	grep -q "^slackgov_feed_enabled 1$" prom.txt' "stats --prom: the feed on, policy1's decisions"
ktap_check 'grep -q "^slackgov_policy_decisions_total{policy=\"policy0\"}" prom.txt &&
	grep -q "\"policy\": \"policy0\", \"governor\": \"slack\"" st.json' "both policies are shown"
# each family's samples in one group (as the format wants)
ktap_check 'awk "/^[a-z]/ { n = \$1; sub(/\\{.*/, \"\", n); if (n != p && seen[n]) exit 1; seen[n] = 1; p = n }" prom.txt' \
	"stats --prom: one group per family"

# -- the SLO's margin: the target's own, then the knob's (slo_margin, 200)
margin_of() {	# FILE: the target's slackgov_target_slo_margin_ratio sample
	awk -v t="slackgov_target_slo_margin_ratio{target=\"pid $SPID\"} " 'index($0, t) == 1 { print $NF }' "$1"
}
ktap_run_ok "target set --slo 20ms --slo-margin 37.5%" "$S" target set --pid $SPID --slo 20ms --slo-margin 37.5%
"$S" status > st2.txt
"$S" stats --prom > prom2.txt
ktap_note "$(grep "^pid $SPID" st2.txt); margin_ratio $(margin_of prom2.txt)"
ktap_check 'grep -qE "^pid $SPID .* p99:20(\.0)?ms +37.5% " st2.txt && [ "$(margin_of prom2.txt)" = 0.375 ]' \
	"status and stats --prom show the target's own margin"
ktap_run_ok "target set --slo-margin default" "$S" target set --pid $SPID --slo-margin default
"$S" status > st3.txt
"$S" stats --prom > prom3.txt
ktap_note "$(grep "^pid $SPID" st3.txt); margin_ratio $(margin_of prom3.txt)"
ktap_check 'grep -qE "^pid $SPID .* p99:20(\.0)?ms +default " st3.txt &&
	awk -v m="$(margin_of prom3.txt)" "BEGIN { exit !(m != \"\" && m == 0.2) }"' \
	"without its own, the knob's: default in status, 0.2 in stats --prom"

# -- unload removes every pin
kill $SPID
ktap_run_ok "unload" "$S" unload
ktap_check '[ ! -e $PIN ]' "no pin is left"

# -- --feed off with the module there: metrics only, and status says why
ktap_check '"$S" load --hooks "$SG_LOOP_HOOKS" --feed off | grep -q "loaded, feed: off (--feed off)"' "load --feed off"
ktap_check '"$S" status | grep -q "^feed: off (slackgov.ko is loaded: slackctl unload; slackctl load)" &&
	"$S" -j status | grep -q "\"feed\": false, \"module\": true"' "status: feed off, module loaded"
ktap_run_ok "unload" "$S" unload
ktap_check '[ ! -e $PIN ]' "no pin is left"

# -- a load that loses a race with rmmod (the module goes between the feed
# check and the load): it says the module went away and pins nothing
for p in 0 1; do echo performance > /sys/devices/system/cpu/cpufreq/policy$p/scaling_governor; done
SLACKCTL_TEST_STOP_BEFORE_LOAD=1 "$S" load --hooks "$SG_LOOP_HOOKS" > race.out 2> race.err &
lp=$!
for i in $(seq 1 100); do
	[ "$(awk '{print $3}' /proc/$lp/stat 2> /dev/null)" = T ] && break
	sleep 0.1
done
sg_rmmod slackgov
kill -CONT $lp
wait $lp
rc=$?
ktap_note "$(cat race.err)"
ktap_eq 1 "$rc" "a load that lost a race with rmmod fails"
ktap_check 'grep -q "slackgov.ko was removed meanwhile" race.err && [ ! -e $PIN ]' \
	"it says the module went away and pins nothing"
ktap_finished
