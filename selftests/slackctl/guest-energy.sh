# SPDX-License-Identifier: GPL-2.0
# guest-energy.sh - energy through the standard powercap interface (issue
# 17): with vfreq.ko loaded, /sys/class/powercap/vplatform:0 ("package-0")
# exists, its energy_uj grows faster at fmax than at fmin for the same busy
# loop, slackctl status shows joules per request of its targets and stats
# --prom the energy counter; rmmod removes the zone.  The energy is modeled.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"
. "$SG_TOP/selftests/lib/server.sh"

B=$SG_BUILD/selftests
Z=/sys/class/powercap/vplatform:0
POL1=/sys/devices/system/cpu/cpufreq/policy1
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use"
[ -e "$SG_BUILD/kmod/vfreq.ko" ] || ktap_skip_all "vfreq.ko not built"
# the test shell stays on cpu0, the busy loop and the server on cpu1
taskset -p 1 $$ > /dev/null 2>&1

# energy_uj after @1 seconds of a busy loop on cpu1 at @2 kHz, minus before
burn() {
	echo "$2" > $POL1/scaling_setspeed
	e0=$(cat $Z/energy_uj)
	# ": " last: ash would exec the loop in the subshell and print "Terminated"
	(taskset -c 1 timeout "$1" sh -c 'while :; do :; done'; :) 2> /dev/null
	e1=$(cat $Z/energy_uj)
	echo $((e1 - e0))
}

ktap_plan 10
# emulate=0: the meter charges the P-state either way; no slowdown needed
insmod "$SG_BUILD/kmod/vfreq.ko" emulate=0 || ktap_skip_all "vfreq.ko does not load"
sg_defer "sg_rmmod vfreq 2> /dev/null"
ktap_check '[ "$(cat $Z/name)" = package-0 ] && [ -r $Z/energy_uj ] && [ -r $Z/max_energy_range_uj ]' \
	"the emulated platform's zone: $Z, package-0, energy_uj, max_energy_range_uj"

old=$(cat $POL1/scaling_governor)
echo userspace > $POL1/scaling_governor || ktap_skip_all "no userspace governor"
sg_defer "echo $old > $POL1/scaling_governor"
fmin=$(cat $POL1/cpuinfo_min_freq) fmax=$(cat $POL1/cpuinfo_max_freq)
# cpu0 (this shell, mostly idle) adds about the same to both readings
burn 0.1 "$fmin" > /dev/null
lo=$(burn 2 "$fmin")
hi=$(burn 2 "$fmax")
ktap_note "2 s busy on cpu1: $lo uJ at $fmin kHz, $hi uJ at $fmax kHz (modeled)"
# the model's busy power at fmax is ~6x fmin's; cpu0's share is the same in both
ktap_check '[ "$lo" -gt 0 ] && [ "$hi" -gt $((lo * 3 / 2)) ]' \
	"the counter grows faster at fmax than at fmin for the same busy loop"

# -- slackctl: joules per request of the targets
ktap_run_ok "slackctl load" "$S" load
sg_defer "$S unload"
start_server taskset -c 1 "$B/sgserver" -t 1 -s 50
ktap_run_ok "target add --pid on the server" "$S" target add --pid $SPID
"$B/sgclient" -p "$PORT" -r 200 -d 3 -c 2 -j > client.json &
C=$!
sleep 2
"$S" status > st.txt
"$S" -j status > st.json
"$S" stats --prom > prom.txt
wait $C
ktap_note "$(grep '^energy' st.txt)"
ktap_check 'grep -q "^energy: .* J per request of the targets" st.txt' \
	"status shows joules per request"
ktap_check 'grep -q "\"vplatform:0 package-0\"" st.json &&
	grep -q "\"joules_per_request\": [0-9]" st.json' "status -j: the zone and joules_per_request"
ktap_check 'grep -q "^slackgov_energy_joules_total{zone=\"vplatform:0 package-0\"} [0-9]" prom.txt' \
	"stats --prom: slackgov_energy_joules_total of the zone"
ktap_run_ok "slackctl unload" "$S" unload
kill $SPID 2> /dev/null
echo $old > $POL1/scaling_governor
ktap_run_ok "rmmod vfreq" rmmod vfreq
ktap_check '[ ! -e $Z ] && [ ! -e /sys/class/powercap/vplatform ]' "rmmod removes the zone"
ktap_finished
