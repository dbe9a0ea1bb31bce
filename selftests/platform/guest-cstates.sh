# SPDX-License-Identifier: GPL-2.0
# guest-cstates.sh - the emulated C-states really cost their exit latency: a
# wake-up measured from user space (pipe ping-pong from CPU 0 to an idle
# CPU 1, 2 ms idle gaps) is slower with deep C-states allowed than with a
# per-CPU PM QoS resume-latency limit that forbids them, by about the deep
# state's extra exit latency (asserted: at least 3/4 of it); the menu
# governor really picks C6 when allowed and never C1E/C6 under the limit
# (cpuidle usage counters), and vidle spends at least the exit latency on
# every wake-up it counts.
. "$SG_TOP/selftests/lib/ktap.sh"

W=$SG_BUILD/selftests/vwake
CI=/sys/devices/system/cpu/cpuidle
C1=/sys/devices/system/cpu/cpu1/cpuidle
S=/sys/kernel/debug/vidle/stats
insmod "$SG_BUILD/kmod/vidle.ko" || ktap_skip_all "vidle.ko does not load"
sg_defer "sg_rmmod vidle"
sg_defer "echo 0 > /sys/kernel/debug/vidle/registered"
qos_old=$(cat /sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us)
sg_defer "echo $qos_old > /sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us"
ktap_plan 9
# this shell and its helpers stay on CPU 0: CPU 1 idles between wake-ups
taskset -p -c 0 $$ > /dev/null

ktap_eq vidle "$(cat $CI/current_driver)" "vidle is the cpuidle driver"
gov=$(cat $CI/current_governor_ro 2>/dev/null || cat $CI/current_governor)
ktap_eq menu "$gov" "the cpuidle governor is menu (the guest's default)"

# exit latency and target residency of each state, from cpuidle's sysfs
lat() { for s in $C1/state*; do [ "$(cat $s/name)" = "$1" ] && cat $s/latency; done; }
ex_c1=$(lat C1) ex_c6=$(lat C6)
# CPU 1's C6 exits as cpuidle counts them (usage) and as vidle does (its
# wake-ups and time spun), read by one process so that no other exit falls
# between the two files: prints "usage wakeups spun_ns"
for s in $C1/state*; do [ "$(cat $s/name)" = C6 ] && c6=$s; done
c6snap() { cat $S $c6/usage | awk '$1 == "cpu1.C6.wakeups" { w = $2 }
	$1 == "cpu1.C6.spun_ns" { s = $2 } NF == 1 { u = $1 } END { print u, w, s }'; }
set -- $(c6snap); u0=$1 w0=$2 s0=$3

# 2 ms gaps: well above C6's 600 us target residency; 400 wake-ups per mode,
# the modes alternating wake-up by wake-up (deep, qos, qos, deep, ...), so
# that the host's load swings hit both alike
"$W" -w 0 -s 1 -n 400 -g 2000 -q 5 > wake.txt
rc=$?
set -- $(c6snap); u1=$1 w1=$2 s1=$3
ktap_eq 0 $rc "vwake ran (pm_qos_resume_latency_us toggled on CPU 1)"
sed 's/^/# /' wake.txt
v() { sed -n "s/^$1 //p" wake.txt; }
n_deep=$(v deep.samples) n_qos=$(v qos.samples)
md=$(v deep.median_ns) mq=$(v qos.median_ns)

# the menu governor picks C6 for most idle gaps when allowed ...
ktap_check '[ "$(v deep.usage.C6)" -ge $((n_deep / 2)) ]' \
	"deep states allowed: menu chose C6 for most waits ($(v deep.usage.C6) C6 exits, $n_deep wake-ups)"
# ... and never C1E or C6 under a 5 us resume-latency limit
ktap_eq "0 0" "$(v qos.usage.C1E) $(v qos.usage.C6)" \
	"5 us PM QoS limit: C1E and C6 never entered"
ktap_check '[ "$(v qos.usage.C1)" -ge $((n_qos / 2)) ]' \
	"5 us PM QoS limit: menu chose C1 ($(v qos.usage.C1) C1 exits, $n_qos wake-ups)"

# vidle counted every C6 exit cpuidle counted (+-2%: runs differed by up to
# 6 in ~650, cause not found), and spun the exit latency each time
du=$((u1 - u0)) dw=$((w1 - w0))
tol=$((du / 50 + 3))
ktap_check '[ $du -gt 0 ] && [ $((du - dw)) -le $tol ] && [ $((dw - du)) -le $tol ]' \
	"vidle's C6 wake-ups on CPU 1 = cpuidle's C6 usage, +-2% ($dw, $du)"
spin=$(( (s1 - s0) / ( (w1 - w0) > 0 ? (w1 - w0) : 1) ))
ktap_check '[ $((w1 - w0)) -gt 0 ] && [ $spin -ge $((ex_c6 * 1000)) ]' \
	"vidle spun >= C6's exit latency per C6 wake-up (mean $spin ns, exit ${ex_c6} us)"

# user-space wake-up, deep states allowed vs limited.  The statistic is the
# median of the differences between neighbouring deep and limited wake-ups
# (the j-th of each mode): stable under the host's load swings, where the
# difference of the two modes' medians moved by +-40 us between runs even
# with vidle's spin off.  Expected value: C6's exit latency minus C1's
# (131 us).  Measured (2026-11, loaded host): 125-131 us with the spin,
# -5..-3 us with vidle's spin=0.  An expected value equal to a threshold
# would fail half the runs: the check asks for 3/4 of it, which the
# emulation meets and a wake-up without the exit spin cannot.
pd=$(v pair.median_diff_ns)
ktap_note "wake-up medians: deep states $md ns, PM QoS 5 us $mq ns ($((md - mq)) ns apart);" \
	"median of paired differences $pd ns; C6 exit $ex_c6 us, C1 exit $ex_c1 us"
ktap_note "waits ended by one idle period: from C6 $(v from.C6.samples), median" \
	"$(v from.C6.median_ns) ns; from C1 $(v from.C1.samples), median $(v from.C1.median_ns) ns"
need=$(( (ex_c6 - ex_c1) * 1000 * 3 / 4 ))
ktap_check '[ $pd -ge $need ]' \
	"wake-up slower with deep states allowed: paired median $pd ns >= 3/4 of C6's extra exit latency ($need ns)"
ktap_finished
