# SPDX-License-Identifier: GPL-2.0
# common.sh - shared setup of the governor tests (sourced, busybox ash):
# load vfreq.ko and slackgov.ko, put the "slack" governor on chosen CPUs,
# restore everything at exit (through ktap.sh's sg_defer).  SG_FAST_SWITCH=1
# before sourcing runs the test on the driver's fast-switch path.

GOV=/sys/devices/system/cpu/cpufreq/slack
TR=/sys/kernel/tracing

# make check-debug's kernel runs several times slower (SG_TIMEOUT_SCALE,
# selftests/vm/run): a test stretches its waits and feeds by SG_SCALE
SG_SCALE=${SG_TIMEOUT_SCALE:-1}

pol() { echo /sys/devices/system/cpu/cpu$1/cpufreq; }
gstat() { cat "$(pol $1)/slack/$2" 2>/dev/null; }
cur() { cat "$(pol $1)/scaling_cur_freq"; }
fmin() { cat "$(pol $1)/cpuinfo_min_freq"; }
fmax() { cat "$(pol $1)/cpuinfo_max_freq"; }

# sg_setup CPU...: modules in, governor slack on each CPU's policy
sg_setup() {
	# the test shell stays on cpu0, so that it does not load the CPU under test
	taskset -p 1 $$ >/dev/null 2>&1
	[ -e "$SG_BUILD/kmod/slackgov.ko" ] || ktap_skip_all "slackgov.ko not built"
	# emulate=0: a plain table driver.  These tests check decisions, not
	# the slowdown, and vfreq's slowdown currently freezes the TCG guest.
	# SG_FAST_SWITCH=1 (the *-fast.sh variants; VFREQ_FAST_SWITCH=1 from
	# the environment does the same for every test): the driver offers
	# ->fast_switch, so the governor switches from its irq_work on the
	# policy's CPU instead of from its kthread
	SG_FAST_SWITCH=${SG_FAST_SWITCH:-${VFREQ_FAST_SWITCH:-}}
	insmod "$SG_BUILD/kmod/vfreq.ko" emulate=0 ${SG_FAST_SWITCH:+fast_switch=$SG_FAST_SWITCH} ||
		ktap_skip_all "vfreq.ko does not load${SG_FAST_SWITCH:+ with fast_switch=$SG_FAST_SWITCH}"
	sg_defer "sg_rmmod vfreq"
	insmod "$SG_BUILD/kmod/slackgov.ko" || { echo "# insmod slackgov failed"; return 1; }
	sg_defer "sg_rmmod_slackgov"
	for c in "$@"; do
		old=$(cat "$(pol $c)/scaling_governor")
		sg_defer "echo $old > $(pol $c)/scaling_governor"
		echo slack > "$(pol $c)/scaling_governor" || return 1
	done
}

# rmmod can see EAGAIN for a moment after the last BPF program went away
sg_rmmod_slackgov() {
	i=0
	while [ $i -lt 20 ]; do
		rmmod slackgov 2>/dev/null && return 0
		i=$((i + 1))
		sleep 0.1
	done
	return 1
}

# knob NAME [VALUE]: read or write a tunable; a write returns the shell's status
knob() {
	if [ $# -eq 1 ]; then cat "$GOV/$1"; else (echo "$2" > "$GOV/$1") 2>/dev/null; fi
}

# trace_on: enable the slackgov events into a cleared buffer, off at exit
trace_on() {
	[ -d $TR/events/slackgov ] || return 1
	echo 0 > $TR/tracing_on
	echo > $TR/trace
	echo 1 > $TR/events/slackgov/enable
	echo 1 > $TR/tracing_on
	sg_defer "echo 0 > $TR/events/slackgov/enable"
}

# wait_for 'condition' TENTHS: poll a shell condition up to TENTHS x 0.1 s
wait_for() {
	_i=0
	while [ $_i -lt "$2" ]; do
		eval "$1" && return 0
		_i=$((_i + 1))
		sleep 0.1
	done
	eval "$1"
}

INJ=$SG_BUILD/selftests/sginject
