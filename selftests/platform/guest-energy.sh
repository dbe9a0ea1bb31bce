# SPDX-License-Identifier: GPL-2.0
# guest-energy.sh - modeled-energy ordering of the emulated platform: the
# performance governor uses more modeled energy than powersave on CPU 1 for
# the same idle interval (deep C-states allowed, and C1 only under a PM QoS
# limit, where the clock-gated core's leakage follows V(f)) and for the same
# fixed CPU-bound job (measured from its start to its end), read from CPU 1's
# powercap zone (selftests/lib/energy.sh).  Also checks that the model file
# follows its documented formulas.  Modeled energy: vfreq's power model, not a
# measurement of hardware.
. "$SG_TOP/selftests/lib/ktap.sh"

V=$SG_BUILD/selftests/vspin
D=/sys/kernel/debug/vplatform
P=/sys/devices/system/cpu/cpu1/cpufreq
QOS=/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us
insmod "$SG_BUILD/kmod/vfreq.ko" || ktap_skip_all "vfreq.ko does not load"
sg_defer "sg_rmmod vfreq"
insmod "$SG_BUILD/kmod/vidle.ko" || ktap_skip_all "vidle.ko does not load"
sg_defer "sg_rmmod vidle"
sg_defer "echo 0 > /sys/kernel/debug/vidle/registered"
qos_old=$(cat $QOS)
sg_defer "echo $qos_old > $QOS"
# CPU 1's energy from its powercap zone, as the bench and the demo read it
. "$SG_TOP/selftests/lib/energy.sh"
Z1=$(sg_pc_zone cpu1) || ktap_skip_all "no powercap zone cpu1"

# this shell and its helpers stay on CPU 0: CPU 1 is the one measured
taskset -p -c 0 $$ > /dev/null
ktap_plan 4

# the model file against its formulas: P(f) = ceff f V^2 + static (V/Vmax)^2,
# C1 = idle_mw.C1 (V/Vmax)^2, C1E and C6 constant (1 uW of integer rounding)
cat $D/model > model.txt
check=$(awk '{ m[$1] = $2; if ($1 ~ /^volt_mv\.f/) { f = substr($1, 10); fs[f] = 1
		if (f + 0 > fmax + 0) fmax = f } }
	END { bad = 0; vm = m["volt_mv.f" fmax]
		for (f in fs) { v = m["volt_mv.f" f]; r = (v / vm) * (v / vm)
			busy = m["ceff_pf"] * f * v * v / 1e9 + m["static_mw"] * 1000 * r
			c1 = m["idle_mw.C1"] * 1000 * r
			if (m["busy_uw.f" f] - busy > 1 || busy - m["busy_uw.f" f] > 1) bad = 1
			if (m["idle_uw.C1.f" f] - c1 > 1 || c1 - m["idle_uw.C1.f" f] > 1) bad = 1
			if (m["idle_uw.C1E.f" f] != m["idle_mw.C1E"] * 1000) bad = 1
			if (m["idle_uw.C6.f" f] != m["idle_mw.C6"] * 1000) bad = 1 }
		print bad ? "MISMATCH" : "OK" }' model.txt)
ktap_eq OK "$check" "model: busy and idle power per P-state follow the documented formulas"

e1() { sg_energy_uj "$Z1"; }
de() { sg_energy_delta "$Z1" "$1" "$2"; }
gov() { echo $1 > $P/scaling_governor; sleep 0.2; }

# idle: CPU 1 runs nothing for 1 s; pairs interleaved (perf, save, save, perf)
idle_pair() {
	ep=0 es=0
	for g in performance powersave powersave performance; do
		gov $g
		a=$(e1); sleep 1; b=$(e1)
		if [ $g = performance ]; then ep=$((ep + $(de $a $b))); else es=$((es + $(de $a $b))); fi
	done
	echo "$ep $es"
}
echo 0 > $QOS
set -- $(idle_pair)
ktap_note "idle 2x1 s, deep C-states allowed: performance $1 uJ, powersave $2 uJ"
ktap_cmp "$1" -gt "$2" "idle, deep C-states allowed: performance uses more modeled energy than powersave"
echo 5 > $QOS
set -- $(idle_pair)
echo 0 > $QOS
ktap_note "idle 2x1 s, C1 only (PM QoS 5 us): performance $1 uJ, powersave $2 uJ"
ktap_cmp "$1" -gt "$2" "idle, C1 only: performance uses more modeled energy than powersave"

# the same fixed job (about 150 ms at fmax) on CPU 1, energy from start to end
gov performance
N=$("$V" calib -c 1 -t 150 | sed 's/iters //')
ep=0 es=0 tp=0 ts=0
for g in performance powersave powersave performance; do
	gov $g
	a=$(e1); t=$("$V" loop -c 1 -n "$N" | sed 's/ns //'); b=$(e1)
	if [ $g = performance ]; then ep=$((ep + $(de $a $b))) tp=$((tp + t / 1000000))
	else es=$((es + $(de $a $b))) ts=$((ts + t / 1000000)); fi
done
ktap_note "fixed job x2: performance $ep uJ in $tp ms, powersave $es uJ in $ts ms"
ktap_cmp "$ep" -gt "$es" "fixed job: performance uses more modeled energy than powersave"
ktap_finished
