# SPDX-License-Identifier: GPL-2.0
# guest-service.sh - the steps slackgov.service runs (scripts/slackgov-service)
# on a config file: a good config brings the governor up with its targets
# and knobs and stop restores the governors; a bad line is reported with its
# number and nothing is applied.
. "$SG_TOP/selftests/lib/ktap.sh"

SVC=$SG_TOP/scripts/slackgov-service
export SLACKCTL=$SG_BUILD/userctl/slackctl
[ -x "$SLACKCTL" ] || ktap_skip_all "slackctl not built"
POL1=/sys/devices/system/cpu/cpu1/cpufreq

# the module where modprobe finds it, as a package or DKMS would put it
mkdir -p "/lib/modules/$(uname -r)/extra"
cp "$SG_BUILD/kmod/slackgov.ko" "/lib/modules/$(uname -r)/extra/"
depmod
insmod "$SG_BUILD/kmod/vfreq.ko" emulate=0
sg_defer "sg_rmmod vfreq"
sleep 100 &
TGT=$!
sg_defer "kill $TGT"
gov_before=$(cat $POL1/scaling_governor)

ktap_plan 11
cat > bad.conf <<EOT
cpus 1
set setpoint 30%
set nosuchknob 5
target pid $TGT
target pod 12
EOT
out=$("$SVC" start bad.conf 2>&1); rc=$?
ktap_cmp $rc -ne 0 "a bad config is refused"
ktap_check 'echo "$out" | grep -q "line 3:"' "the unknown knob is reported with its line number"
ktap_check 'echo "$out" | grep -q "line 5:"' "so is the unknown target kind"
ktap_check '[ ! -d /sys/module/slackgov ] && [ "$(cat $POL1/scaling_governor)" = "$gov_before" ]' \
	"nothing was applied (module not loaded, governor unchanged)"

cat > good.conf <<EOT
# a working config
cpus 1
set setpoint 30%
target pid $TGT setpoint=25%
EOT
ktap_run_ok "a good config starts" "$SVC" start good.conf
sg_defer "$SVC stop"
ktap_eq slack "$(cat $POL1/scaling_governor)" "cpu1 runs the slack governor"
ktap_check '"$SLACKCTL" target list | grep -q "$TGT"' "the target is set"
ktap_eq 300 "$(cat /sys/devices/system/cpu/cpufreq/slack/setpoint)" "the knob is applied"
ktap_run_ok "stop" "$SVC" stop
ktap_eq "$gov_before" "$(cat $POL1/scaling_governor)" "stop restores the previous governor"
ktap_check '[ ! -d /sys/module/slackgov ] && [ ! -e /sys/fs/bpf/slackgov ]' \
	"stop unloads the module and removes the pins"
ktap_finished
