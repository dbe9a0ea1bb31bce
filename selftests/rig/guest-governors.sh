# SPDX-License-Identifier: GPL-2.0
# guest-governors.sh - the stock governors drive the test cpufreq driver:
# performance, powersave, userspace, schedutil, ondemand, conservative.
. "$SG_TOP/selftests/lib/ktap.sh"

POL=/sys/devices/system/cpu/cpufreq/policy0
ktap_plan 8
ktap_run_ok "vfreq.ko loads" insmod "$SG_BUILD/kmod/vfreq.ko"
sg_defer "sg_rmmod vfreq"
old=$(cat $POL/scaling_governor)
sg_defer "echo $old > $POL/scaling_governor"
min=$(cat $POL/cpuinfo_min_freq) max=$(cat $POL/cpuinfo_max_freq)

for g in performance powersave userspace schedutil ondemand conservative; do
	echo $g > $POL/scaling_governor 2>/dev/null
	[ "$(cat $POL/scaling_governor)" = $g ] || { ktap_fail "governor $g selectable"; continue; }
	case $g in
	performance) sleep 0.2; ktap_eq "$max" "$(cat $POL/scaling_cur_freq)" "performance runs at max" ;;
	powersave) sleep 0.2; ktap_eq "$min" "$(cat $POL/scaling_cur_freq)" "powersave runs at min" ;;
	userspace)
		mid=$(awk '{print $3}' $POL/scaling_available_frequencies)
		echo "$mid" > $POL/scaling_setspeed
		ktap_eq "$mid" "$(cat $POL/scaling_cur_freq)" "userspace sets $mid kHz" ;;
	*) ktap_ok "governor $g selectable" ;;
	esac
done
echo schedutil > $POL/scaling_governor
echo powersave > $POL/scaling_governor; echo schedutil > $POL/scaling_governor
# a busy loop on CPU 0 makes schedutil leave the lowest frequency; the
# frequency is polled (up to 10 s) since a TCG guest may start the loop late
taskset -c 0 sh -c 'while :; do :; done' &
hog=$!
sg_defer "kill $hog 2>/dev/null"
busy=$min
for i in $(seq 50); do
	sleep 0.2
	busy=$(cat $POL/scaling_cur_freq)
	[ "$busy" -gt "$min" ] && break
done
kill $hog; wait $hog 2>/dev/null
ktap_cmp "$busy" -gt "$min" "schedutil raises cpu0 under load ($busy kHz)"
ktap_finished
