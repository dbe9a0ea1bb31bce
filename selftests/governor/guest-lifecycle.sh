# SPDX-License-Identifier: GPL-2.0
# guest-lifecycle.sh - the slack governor's life cycle under load: rmmod
# refused while a policy runs it or a BPF program holds its kfunc, 200
# governor switches, CPU hotplug of cpu1 while it runs, clean unload after.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/governor/common.sh"

ktap_plan 9
sg_setup 0 1 || { ktap_fail "setup"; ktap_finished; }

out=$(rmmod slackgov 2>&1)
ktap_check '[ -d /sys/module/slackgov ]' "rmmod refused while the governor is in use"
ktap_note "rmmod said: $out"

# The feed attaches a tp_btf program to sys_enter, which patches the
# tracepoint's static key in every syscall entry (text_poke_bp: int3, then
# IPIs).  Once, done while both vCPUs were hammering syscalls, the TCG guest
# froze with both vCPUs at that very site in syscall_trace_enter() (RCU
# stall, one of them inside the int3 handler, no slackgov frame on either;
# Documentation/governor.rst, "Soft lockup seen in the life-cycle test").
# So the feed is attached before the load starts and detached after it
# stopped: this test is about the governor under load, not about patching
# live kernel text under the emulator.
feed=""
[ -x "$INJ" ] && { "$INJ" -C 0,1 -s 300 -d 60000 >/dev/null & feed=$!; sg_defer "kill $feed 2>/dev/null"; }
sleep 1
# load on both CPUs for the switches and the hotplug
loads=""
for c in 0 1; do
	taskset -c $c sh -c 'end=$(($(date +%s) + 50)); while [ $(date +%s) -lt $end ]; do :; done' &
	loads="$loads $!"
	sg_defer "kill $! 2>/dev/null"
done

# 200 switches between slack, performance and schedutil under load
fail=0 i=0
while [ $i -lt 200 ]; do
	case $((i % 3)) in 0) g=performance ;; 1) g=schedutil ;; 2) g=slack ;; esac
	echo $g > $(pol $((i % 2)))/scaling_governor || fail=$((fail + 1))
	i=$((i + 1))
done
ktap_eq 0 "$fail" "200 governor switches under load and feed"
for c in 0 1; do echo slack > $(pol $c)/scaling_governor; done
ktap_eq "slack slack" "$(cat $(pol 0)/scaling_governor) $(cat $(pol 1)/scaling_governor)" \
	"both policies back on slack"

# CPU hotplug of cpu1 while the governor runs
ok=0 i=0
while [ $i -lt 5 ]; do
	echo 0 > /sys/devices/system/cpu/cpu1/online && sleep 0.2 &&
		echo 1 > /sys/devices/system/cpu/cpu1/online && sleep 0.2 && ok=$((ok + 1))
	i=$((i + 1))
done
ktap_eq 5 "$ok" "cpu1 offline and online 5 times under the governor"
ktap_eq slack "$(cat $(pol 1)/scaling_governor)" "cpu1's policy runs slack after hotplug"
ktap_check '[ -r $(pol 1)/slack/mode ]' "cpu1's stats are back"

# a BPF program holding the kfunc keeps the module too (load stopped
# first, then the feed detached: see above)
kill $loads 2>/dev/null
wait $loads 2>/dev/null
[ -n "$feed" ] && { kill $feed; wait $feed 2>/dev/null; }
for c in 0 1; do echo performance > $(pol $c)/scaling_governor; done
if [ -x "$INJ" ]; then
	"$INJ" -C 0 -d 3000 >/dev/null 2>&1 &
	inj=$!
	sleep 1.5
	rmmod slackgov 2>/dev/null
	ktap_check '[ -d /sys/module/slackgov ]' "rmmod refused while a BPF program uses the kfunc"
	wait $inj
else
	ktap_skip "rmmod refused while a BPF program uses the kfunc" "sginject not built"
fi
ktap_run_ok "rmmod succeeds once nothing uses the module" sg_rmmod_slackgov
ktap_check '[ ! -d /sys/module/slackgov ] && [ ! -d $GOV ]' "module and tunables are gone"
ktap_finished
