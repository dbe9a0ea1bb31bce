# SPDX-License-Identifier: GPL-2.0
# tune.sh - not a test: the guest side of a tuning run of the slack
# governor's defaults against performance, on the project's server and
# client (selftests/lib/loadrun.sh), interleaved so that drift in the
# emulator's speed hits every configuration alike.  One TUNE row per cell:
# TUNE rep,shape,load,config,<lr_step CSV row>,boosts
# Run from the host:
#   selftests/vm/run -o build/tune selftests/governor/tune.sh | grep TUNE
# Configurations: a governor name, or "slack:KNOB=V:KNOB=V..." (knobs under
# /sys/devices/system/cpu/cpufreq/slack/); set CONFIGS etc. below.
. "$SG_TOP/selftests/lib/loadrun.sh"

CONFIGS=${TUNE_CONFIGS:-"performance slack schedutil ondemand"}
LOADS=${TUNE_LOADS:-"10 30 50 70"}
REPS=${TUNE_REPS:-1}
STEP_S=${TUNE_STEP_S:-5}
SHAPE=${TUNE_SHAPE:-epoll}
GOV=/sys/devices/system/cpu/cpufreq/slack

trap 'lr_down' EXIT
lr_up || { echo "TUNE-INFO cannot bring the platform up"; exit 1; }
lr_server_start 2 "$SHAPE" 1000 || { echo "TUNE-INFO server did not start"; exit 1; }
# the knobs exist once a policy runs slack: remember their defaults
lr_gov slack
defaults=""
for k in setpoint kp ki deadband idle_tight_slack idle_relax_slack; do
	defaults="$defaults:$k=$(cat $GOV/$k)"
done
echo "TUNE-INFO defaults$defaults"

set_knobs() {
	for kv in $(echo "$defaults:$1" | tr ':' ' '); do
		echo "${kv#*=}" > "$GOV/${kv%%=*}" || echo "TUNE-INFO cannot set $kv"
	done
}

rep=1
while [ $rep -le "$REPS" ]; do
	for load in $LOADS; do
		for cfg in $CONFIGS; do
			case $cfg in
			slack*) lr_gov slack; set_knobs "${cfg#slack}" ;;
			*) lr_gov "$cfg" ;;	# performance, schedutil, ondemand, ...
			esac
			b0=$(cat $LR_POL1/slack/boosts 2>/dev/null || echo 0)
			sleep 1
			row=$(lr_step "$cfg" "$load" $((load * 10)) "$STEP_S" $((rep * 100 + load)))
			b1=$(cat $LR_POL1/slack/boosts 2>/dev/null || echo 0)
			echo "TUNE $rep,$SHAPE,$load,$row,$((b1 - b0))"
		done
	done
	rep=$((rep + 1))
done
exit 0
