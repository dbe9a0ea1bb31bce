# SPDX-License-Identifier: GPL-2.0
# guest-lifecycle.sh - the emulated platform under governor switches and
# unloads: with vfreq (slowdown on) and vidle both running, a busy loop on
# CPU 1 and wake-ups from idle on CPU 0, every stock governor (performance,
# powersave, userspace, schedutil, ondemand, conservative) is switched in on
# both policies, twice, and drives the busy CPU as it should; then both
# modules unload cleanly, in either order (vidle only once unregistered).
# The runner fails the test on any dmesg Oops/WARNING/BUG/lockup.
. "$SG_TOP/selftests/lib/ktap.sh"

V=$SG_BUILD/selftests/vspin
D=/sys/kernel/debug/vplatform
VI=/sys/kernel/debug/vidle
CPU=/sys/devices/system/cpu
GOVS="performance powersave userspace schedutil ondemand conservative"
ktap_plan 22

ktap_run_ok "vfreq.ko loads" insmod "$SG_BUILD/kmod/vfreq.ko"
sg_defer "sg_rmmod vfreq"
ktap_run_ok "vidle.ko loads" insmod "$SG_BUILD/kmod/vidle.ko"
sg_defer "sg_rmmod vidle"
sg_defer "echo 0 > $VI/registered"
min=$(cat $CPU/cpu1/cpufreq/cpuinfo_min_freq) max=$(cat $CPU/cpu1/cpufreq/cpuinfo_max_freq)
mid=$(awk '{ print $3 }' $CPU/cpu1/cpufreq/scaling_available_frequencies)

# the load: CPU 1 busy; CPU 0 idles and wakes (ping-pong from CPU 1, 1 ms gaps)
taskset -p -c 0 $$ > /dev/null
"$V" loop -c 1 -n 100000000000 > /dev/null &
busy=$!
sg_defer "kill $busy"
"$V" pingpong -c 1 -C 0 -n 100000 -g 1000 > /dev/null &
pp=$!
sg_defer "kill $pp"
spins0=$(sed -n 's/^cpu1\.spins //p' $D/emulation)
wake0=$(sed -n 's/^cpu0\.C[0-9E]*\.wakeups //p' $VI/stats | awk '{ s += $1 } END { print s }')

# switch: every governor on both policies, then what cpu1 runs at after 1 s
bad=""
for round in 1 2; do
	for g in $GOVS; do
		for c in 0 1; do
			echo powersave > $CPU/cpu$c/cpufreq/scaling_governor
			echo $g > $CPU/cpu$c/cpufreq/scaling_governor
			[ "$(cat $CPU/cpu$c/cpufreq/scaling_governor)" = $g ] || bad="$bad $g/cpu$c"
		done
		[ $g = userspace ] && echo $mid > $CPU/cpu1/cpufreq/scaling_setspeed
		sleep 1
		f=$(cat $CPU/cpu1/cpufreq/scaling_cur_freq)
		eval "f_$g=\"\${f_$g} $f\""
	done
done
ktap_eq "" "$bad" "every governor selected on both policies, twice, while both modules run"
ktap_eq "$max $max" "$(echo $f_performance)" "performance: busy cpu1 at max"
ktap_eq "$min $min" "$(echo $f_powersave)" "powersave: busy cpu1 at min"
ktap_eq "$mid $mid" "$(echo $f_userspace)" "userspace: cpu1 at the speed set ($mid kHz)"
for g in schedutil ondemand conservative; do
	eval "fs=\$f_$g"
	ktap_check '(for f in $fs; do [ $f -gt $min ] || exit 1; done)' \
		"$g: busy cpu1 raised above min within 1 s, both times (kHz:$fs)"
done
spins1=$(sed -n 's/^cpu1\.spins //p' $D/emulation)
wake1=$(sed -n 's/^cpu0\.C[0-9E]*\.wakeups //p' $VI/stats | awk '{ s += $1 } END { print s }')
ktap_cmp "$spins1" -gt "$spins0" "the slowdown kept running on cpu1 (spins $spins0 -> $spins1)"
ktap_cmp "$wake1" -gt "$wake0" "vidle kept idling cpu0 (wake-ups $wake0 -> $wake1)"
kill $busy $pp; wait $busy $pp 2>/dev/null
for c in 0 1; do echo performance > $CPU/cpu$c/cpufreq/scaling_governor; done

# unload: vidle refuses while registered, then goes; vfreq goes
ktap_run_fails "rmmod vidle refused while its driver is registered" rmmod vidle
ktap_run_ok "vidle unregisters" sh -c "echo 0 > $VI/registered"
ktap_eq none "$(cat $CPU/cpuidle/current_driver)" "no cpuidle driver once vidle unregistered"
ktap_run_ok "rmmod vidle" rmmod vidle
ktap_run_ok "rmmod vfreq (governor performance, emulation running)" rmmod vfreq
ktap_check '[ ! -e $CPU/cpu0/cpufreq/scaling_driver ] && [ ! -d $D ] && [ ! -d $VI ]' \
	"no cpufreq driver, no debugfs folders left"

# the other order: vfreq leaves while vidle is registered and a governor runs
ktap_run_ok "vidle.ko and vfreq.ko load again" sh -c \
	"insmod $SG_BUILD/kmod/vidle.ko && insmod $SG_BUILD/kmod/vfreq.ko"
echo schedutil > $CPU/cpu1/cpufreq/scaling_governor
"$V" pingpong -c 0 -C 1 -n 200 -g 1000 > /dev/null
ktap_run_ok "rmmod vfreq first (schedutil on cpu1, vidle registered)" rmmod vfreq
ktap_eq vidle "$(cat $CPU/cpuidle/current_driver)" "vidle still the cpuidle driver"
ktap_run_ok "vidle unregisters and unloads" sh -c "echo 0 > $VI/registered && rmmod vidle"
ktap_check '! grep -q "^vfreq\|^vidle" /proc/modules' "neither module left loaded"
ktap_finished
