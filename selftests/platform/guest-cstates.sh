# SPDX-License-Identifier: GPL-2.0
# guest-cstates.sh - the emulated C-states really cost their exit latency: a
# wake-up measured from user space (pipe ping-pong from CPU 0 to an idle
# CPU 1, 2 ms idle gaps) is slower with deep C-states allowed than with a
# per-CPU PM QoS resume-latency limit that forbids them, by at least the
# deep state's extra exit latency; the menu governor really picks C6 when
# allowed and never C1E/C6 under the limit (cpuidle usage counters), and
# vidle spends at least the exit latency on every wake-up it counts.
. "$SG_TOP/selftests/lib/ktap.sh"

W=$SG_BUILD/selftests/vwake
CI=/sys/devices/system/cpu/cpuidle
C1=/sys/devices/system/cpu/cpu1/cpuidle
S=/sys/kernel/debug/vidle/stats
insmod "$SG_BUILD/kmod/vidle.ko" || ktap_skip_all "vidle.ko does not load"
sg_defer "rmmod vidle"
sg_defer "echo 0 > /sys/kernel/debug/vidle/registered"
qos_old=$(cat /sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us)
sg_defer "echo $qos_old > /sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us"
ktap_plan 9

ktap_eq vidle "$(cat $CI/current_driver)" "vidle is the cpuidle driver"
gov=$(cat $CI/current_governor_ro 2>/dev/null || cat $CI/current_governor)
ktap_eq menu "$gov" "the cpuidle governor is menu (the guest's default)"

# exit latency and target residency of each state, from cpuidle's sysfs
lat() { for s in $C1/state*; do [ "$(cat $s/name)" = "$1" ] && cat $s/latency; done; }
ex_c1=$(lat C1) ex_c6=$(lat C6)
# usage counts (cpuidle) and vidle's own count and spin of CPU 1, C6
c6_usage() { for s in $C1/state*; do [ "$(cat $s/name)" = C6 ] && cat $s/usage; done; }
vstat() { sed -n "s/^cpu1\.$1 //p" $S; }
u0=$(c6_usage) w0=$(vstat C6.wakeups) s0=$(vstat C6.spun_ns)

# 2 ms gaps: well above C6's 600 us target residency; 8 alternating blocks
# of 100 wake-ups (deep, qos, qos, deep, ...) against the emulator's drift
"$W" -w 0 -s 1 -n 100 -b 8 -g 2000 -q 5 > wake.txt
rc=$?
u1=$(c6_usage) w1=$(vstat C6.wakeups) s1=$(vstat C6.spun_ns)
ktap_eq 0 $rc "vwake ran (pm_qos_resume_latency_us toggled on CPU 1)"
sed 's/^/# /' wake.txt
v() { sed -n "s/^$1 //p" wake.txt; }
n_deep=$(v deep.samples) n_qos=$(v qos.samples)
md=$(v deep.median_ns) mq=$(v qos.median_ns)

# the menu governor picks C6 for most idle gaps when allowed ...
ktap_check '[ "$(v deep.usage.C6)" -ge $((n_deep / 2)) ]' \
	"deep states allowed: menu chose C6 for most wake-ups ($(v deep.usage.C6) of $n_deep)"
# ... and never C1E or C6 under a 5 us resume-latency limit
ktap_eq "0 0" "$(v qos.usage.C1E) $(v qos.usage.C6)" \
	"5 us PM QoS limit: C1E and C6 never entered"
ktap_check '[ "$(v qos.usage.C1)" -ge $((n_qos / 2)) ]' \
	"5 us PM QoS limit: menu chose C1 ($(v qos.usage.C1) of $n_qos)"

# vidle counted every C6 exit cpuidle counted, and spun the exit latency each time
ktap_eq $((u1 - u0)) $((w1 - w0)) "vidle's C6 wake-ups on CPU 1 = cpuidle's C6 usage"
spin=$(( (s1 - s0) / ( (w1 - w0) > 0 ? (w1 - w0) : 1) ))
ktap_check '[ $((w1 - w0)) -gt 0 ] && [ $spin -ge $((ex_c6 * 1000)) ]' \
	"vidle spun >= C6's exit latency per C6 wake-up (mean $spin ns, exit ${ex_c6} us)"

# user-space wake-up: deep vs limited, medians of the alternating blocks
diff=$((md - mq))
ktap_note "wake-up median: deep states $md ns, PM QoS 5 us $mq ns, difference $diff ns;" \
	"C6 exit $ex_c6 us, C1 exit $ex_c1 us"
ktap_check '[ $diff -ge $(( (ex_c6 - ex_c1) * 1000 )) ]' \
	"wake-up slower with deep states by >= C6's extra exit latency ($diff ns >= $((ex_c6 - ex_c1)) us)"
ktap_finished
