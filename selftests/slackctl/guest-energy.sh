# SPDX-License-Identifier: GPL-2.0
# guest-energy.sh - energy through the standard powercap interface (issue
# 17): with vfreq.ko loaded, /sys/class/powercap/vplatform:0 ("package-0")
# and its subzones vplatform:0:N ("cpuN") exist; CPU 1's counter and the
# package's grow faster at fmax than at fmin for the same busy loop on CPU 1;
# the package is the sum of its subzones; slackctl status shows joules per
# request of its targets and stats --prom the energy counter; rmmod removes
# the zones.  A bad energy_range_uj is refused; with a small one the counters
# wrap and the tests' reader (selftests/lib/energy.sh) adds the wraps back.
# The energy is modeled.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"
. "$SG_TOP/selftests/lib/server.sh"
. "$SG_TOP/selftests/lib/energy.sh"

B=$SG_BUILD/selftests
Z=/sys/class/powercap/vplatform:0
D=/sys/kernel/debug/vplatform
POL1=/sys/devices/system/cpu/cpufreq/policy1
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use"
[ -e "$SG_BUILD/kmod/vfreq.ko" ] || ktap_skip_all "vfreq.ko not built"
# the test shell stays on cpu0, the busy loop and the server on cpu1
taskset -p 1 $$ > /dev/null 2>&1

# "PACKAGE CPU1": the energy of the package and of CPU 1's subzone over @1
# seconds of a busy loop on cpu1 at @2 kHz
burn() {
	echo "$2" > $POL1/scaling_setspeed
	p0=$(sg_energy_uj $Z) c0=$(sg_energy_uj $Z1)
	# ": " last: ash would exec the loop in the subshell and print "Terminated"
	(taskset -c 1 timeout "$1" sh -c 'while :; do :; done'; :) 2> /dev/null
	p1=$(sg_energy_uj $Z) c1=$(sg_energy_uj $Z1)
	echo "$(sg_energy_delta $Z $p0 $p1) $(sg_energy_delta $Z1 $c0 $c1)"
}

ktap_plan 19
# emulate=0: the meter charges the P-state either way; no slowdown needed
insmod "$SG_BUILD/kmod/vfreq.ko" emulate=0 || ktap_skip_all "vfreq.ko does not load"
sg_defer "sg_rmmod vfreq 2> /dev/null"
ktap_check '[ "$(cat $Z/name)" = package-0 ] && [ -r $Z/energy_uj ] && [ -r $Z/max_energy_range_uj ]' \
	"the emulated platform's zone: $Z, package-0, energy_uj, max_energy_range_uj"

# one subzone per possible CPU, vplatform:0:N named cpuN, with the package's range
ncpu=$(( $(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1 ))
subs=$(ls -d $Z:* 2> /dev/null | wc -l)
bad=
for n in $(seq 0 $((ncpu - 1))); do
	[ "$(cat $Z:$n/name 2> /dev/null)" = cpu$n ] && [ -r $Z:$n/energy_uj ] &&
		[ "$(cat $Z:$n/max_energy_range_uj)" = "$(cat $Z/max_energy_range_uj)" ] || bad="$bad $Z:$n"
done
ktap_check '[ "$subs" -eq "$ncpu" ] && [ -z "$bad" ]' \
	"one subzone per CPU ($subs of $ncpu): $Z:N named cpuN, energy_uj, the package's max_energy_range_uj"
Z1=$(sg_pc_zone cpu1)
ktap_eq "$Z:1" "$Z1" "the reader finds cpu1's zone by its name"

# the package is the sum of its subzones: read between two readings of the
# package, their sum lies between them (less 1 uJ per subzone of rounding)
p0=$(sg_energy_uj $Z) sum=0
for n in $(seq 0 $((ncpu - 1))); do sum=$((sum + $(sg_energy_uj $Z:$n))); done
p1=$(sg_energy_uj $Z)
ktap_note "package $p0 .. $p1 uJ, sum of the subzones $sum uJ"
ktap_check '[ $((sum + ncpu - 1)) -ge "$p0" ] && [ "$sum" -le "$p1" ]' \
	"the package's energy is the sum of its subzones' (between two readings of the package)"

old=$(cat $POL1/scaling_governor)
echo userspace > $POL1/scaling_governor || ktap_skip_all "no userspace governor"
sg_defer "echo $old > $POL1/scaling_governor"
fmin=$(cat $POL1/cpuinfo_min_freq) fmax=$(cat $POL1/cpuinfo_max_freq)
# cpu0 (this shell, mostly idle) adds about the same to both readings
burn 0.1 "$fmin" > /dev/null
read -r lo lo1 <<EOT
$(burn 2 "$fmin")
EOT
read -r hi hi1 <<EOT
$(burn 2 "$fmax")
EOT
ktap_note "2 s busy on cpu1, package/cpu1: $lo/$lo1 uJ at $fmin kHz, $hi/$hi1 uJ at $fmax kHz (modeled)"
# the model's busy power at fmax is ~5x fmin's; cpu0's share is the same in both
ktap_check '[ "$lo" -gt 0 ] && [ "$hi" -gt $((lo * 3 / 2)) ]' \
	"the package's counter grows faster at fmax than at fmin for the same busy loop"
ktap_check '[ "$lo1" -gt 0 ] && [ "$hi1" -gt $((lo1 * 3 / 2)) ] && [ "$lo1" -lt "$lo" ] && [ "$hi1" -lt "$hi" ]' \
	"cpu1's counter grows faster at fmax than at fmin, and is a part of the package's"

# -- slackctl: joules per request of the targets
ktap_run_ok "slackctl load" "$S" load --hooks "$SG_LOOP_HOOKS"
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
ktap_check '[ -z "$(ls -d /sys/class/powercap/vplatform* 2> /dev/null)" ]' \
	"rmmod removes the zone, its subzones and the control type"

# bad input: a range below 1 J is refused with one line, and nothing registers
ktap_run_fails "insmod vfreq energy_range_uj=999999 fails" insmod "$SG_BUILD/kmod/vfreq.ko" energy_range_uj=999999
ktap_check 'dmesg | tail -n 3 | grep -q "vfreq: energy_range_uj must be 1000000\.\." &&
	[ -z "$(ls -d /sys/class/powercap/vplatform* 2> /dev/null)" ] && ! grep -q "^vfreq " /proc/modules' \
	"the bad range is named in one line and leaves no zone and no module"

# the wrap: with a 1 J range cpu1's counter (CPU 1 idle at fmax, C1 at
# V(fmax): ~1 W modeled) wraps about once a second.  Read every 0.1 s for
# 2.5 s, the deltas of the reader (wraps added back) sum to what the meter
# in debugfs, which never wraps, counted over the same span (its readings
# bracket the reader's; 2 uJ of rounding): a missed or unhandled wrap would
# be 1 J off, twice the tolerance.
R=1000000
ktap_run_ok "insmod vfreq energy_range_uj=$R" insmod "$SG_BUILD/kmod/vfreq.ko" emulate=0 energy_range_uj=$R
echo userspace > $POL1/scaling_governor && echo "$fmax" > $POL1/scaling_setspeed
Z1=$(sg_pc_zone cpu1)
m0=$(sed -n 's/^cpu1\.energy_uj //p' $D/meter)
a=$(sg_energy_uj $Z1) acc=0 wraps=0 over=0
for i in $(seq 1 25); do
	sleep 0.1
	b=$(sg_energy_uj $Z1)
	[ "$b" -lt "$a" ] && wraps=$((wraps + 1))
	[ "$b" -ge $R ] && over=$((over + 1))
	acc=$((acc + $(sg_energy_delta $Z1 $a $b)))
	a=$b
done
m1=$(sed -n 's/^cpu1\.energy_uj //p' $D/meter)
echo $old > $POL1/scaling_governor
ktap_note "range $R uJ: $wraps wraps in 25 readings; reader $acc uJ, meter $((m1 - m0)) uJ (modeled)"
ktap_check '[ "$wraps" -ge 1 ] && [ "$over" -eq 0 ] && [ $((m1 - m0 - acc)) -ge -2 ] && [ $((m1 - m0 - acc)) -lt $((R / 2)) ]' \
	"energy_range_uj: the counter stays below max_energy_range_uj, wraps, and the reader adds the wraps back"
ktap_run_ok "rmmod vfreq (range $R)" rmmod vfreq
ktap_finished
