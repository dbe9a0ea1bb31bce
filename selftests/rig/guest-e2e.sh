# SPDX-License-Identifier: GPL-2.0
# guest-e2e.sh - each link of the chain: test cpufreq driver, module BTF and
# kfunc, the "slack" governor, a tp_btf program calling the kfunc, and the
# frequency following the target's slack (idle phase low, busy phase high).
. "$SG_TOP/selftests/lib/ktap.sh"

KMOD=$SG_BUILD/kmod
CPU=1
POL=/sys/devices/system/cpu/cpu$CPU/cpufreq

ktap_plan 10
ktap_run_ok "vfreq.ko loads" insmod "$KMOD/vfreq.ko"
sg_defer "sg_rmmod vfreq"
ktap_eq vfreq "$(cat $POL/scaling_driver 2>/dev/null)" "cpu$CPU is driven by vfreq"

ktap_run_ok "slackgov.ko loads" insmod "$KMOD/slackgov.ko"
sg_defer "sg_rmmod slackgov"
ktap_check '[ -s /sys/kernel/btf/slackgov ]' "module BTF is registered"
ktap_check 'grep -qw slack $POL/scaling_available_governors' "governor 'slack' is available"

old_gov=$(cat $POL/scaling_governor)
sg_defer "echo $old_gov > $POL/scaling_governor"
echo slack > $POL/scaling_governor
ktap_eq slack "$(cat $POL/scaling_governor)" "cpu$CPU runs the slack governor"

out=$("$SG_BUILD/selftests/sge2e" $CPU 3)
ktap_note "$out"
get() { echo "$out" | sed -n "s/.*$1=\([-0-9]*\).*/\1/p"; }
ktap_cmp "$(get reports_ok)" -gt 0 "the kfunc accepted samples from the tp_btf program"
ktap_eq 0 "$(get reports_err)" "the kfunc rejected none"
ktap_cmp "$(get busy_khz)" -gt "$(get idle_khz)" "frequency is higher when the target has no slack"
ktap_cmp "$(get idle_khz)" -lt "$(cat $POL/scaling_max_freq)" "an idle target runs below the highest frequency"
ktap_finished
