# SPDX-License-Identifier: GPL-2.0
# debug-storm.sh - make check-debug's storm: every path of slackgov that
# takes a lock, allocates, frees or defers work, over and over, at once, on
# the debug kernel whose checkers watch them (debug-reports.sh counts what
# they said).  Round after round until DEBUG_STORM_S seconds (default 300) have
# passed, at least two rounds (one per fast-switch setting):
#   vfreq.ko in with fast_switch alternating 0/1, slackgov.ko in, slack on
#   both policies, load on both CPUs; the BPF side loaded (slackctl load)
#   and targets added and deleted; feeds (sginject) on random targets and
#   CPU sets that stop and go stale under a short stale_ms; a struct_ops
#   policy loaded and unloaded (or run and its loader killed); governor
#   switches through all six stock governors and slack; rmmod while in use
#   (refused); cpu1 offline and online; knob writes; then everything out in
#   one of two orders: slackgov first, or vfreq while slack governs.
# Busybox ash in the guest.  Rejected samples are fine (the feeds pick
# random CPUs); what is asserted is that each operation that must succeed
# did, each that must be refused was, and that nothing is left behind.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/governor/common.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

STORM_S=${DEBUG_STORM_S:-300}
UTIL=$SG_BUILD/bpf/util_policy.bpf.o
GARBAGE=$SG_BUILD/selftests/progs/garbage_policy.bpf.o
PPIN=/sys/fs/bpf/slackgov_policy
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -x "$INJ" ] || ktap_skip_all "sginject not built"
[ -e "$SG_BUILD/kmod/slackgov.ko" ] || ktap_skip_all "slackgov.ko not built"
grep -q "^slackgov " /proc/modules && ktap_skip_all "slackgov.ko is loaded already"
kv=$(uname -r | awk -F. '{ print $1 * 100 + $2 }')
ops=0
[ "$kv" -ge 609 ] && [ -e "$GARBAGE" ] && ops=1

ktap_plan 11
taskset -p 1 $$ >/dev/null 2>&1
for c in 0 1; do
	old=$(cat "$(pol $c)/scaling_governor" 2>/dev/null)
	[ -n "$old" ] && sg_defer "echo $old > $(pol $c)/scaling_governor"
done
sg_defer "echo 1 > /sys/devices/system/cpu/cpu1/online"
sg_defer "sg_rmmod vfreq"
sg_defer "sg_rmmod slackgov"
sg_defer "$S unload"
sg_defer "rm -f $PPIN"
sg_defer 'kill $bg $feeds 2>/dev/null'

# the counts: attempts and failures of each kind
nsw=0 fsw=0 nload=0 fload=0 npol=0 fpol=0 nrm=0 frm=0 nhp=0 fhp=0
ntg=0 ftg=0 nout=0 fout=0 nfeed=0 ffeed=0 nknob=0
bg=""
GOVS="slack performance schedutil ondemand conservative powersave userspace slack"
rnd() { echo $((RANDOM % $1)); }

# spin CPU SECONDS: a busy loop on one CPU
spin() { taskset -c $1 sh -c "end=\$((\$(date +%s) + $2)); while [ \$(date +%s) -lt \$end ]; do :; done" & bg="$bg $!"; }

# feed: one sginject in the background with random fields (often invalid:
# a CPU set or target the governor does not accept), 0.5-2.5 s, then silent
feed() {
	_c=$(rnd 4)
	case $_c in 0) _cpus=0 ;; 1) _cpus=1 ;; 2) _cpus=0,1 ;; 3) _cpus=$((2 + $(rnd 250))) ;; esac
	_slo=""
	[ $(rnd 2) = 1 ] && _slo="-S $((500 + $(rnd 20000))) -n $(rnd 50) -l $(rnd 30000) -o $(rnd 5) -b $(rnd 9000)"
	"$INJ" -C $_cpus -t $(rnd 8) -s $(rnd 1100) -c $(rnd 3000) -i $((1 + $(rnd 20))) \
		-d $((500 + $(rnd 2000))) $_slo > feed.$1.out 2>&1 &
	feeds="$feeds $!"
	nfeed=$((nfeed + 1))
}

t0=$(date +%s) round=0
while [ $round -lt 2 ] || [ $(($(date +%s) - t0)) -lt "$STORM_S" ]; do
	fs=$((round % 2)) bg="" feeds=""
	insmod "$SG_BUILD/kmod/vfreq.ko" emulate=0 fast_switch=$fs ||
		ktap_bail "vfreq.ko fast_switch=$fs does not load"
	insmod "$SG_BUILD/kmod/slackgov.ko" || ktap_bail "slackgov.ko does not load"
	for c in 0 1; do echo slack > "$(pol $c)/scaling_governor" || ktap_bail "no slack on cpu$c"; done
	knob stale_ms $((10 + $(rnd 90)))
	spin 0 1000; spin 1 1000
	nload=$((nload + 1))
	"$S" load --hooks "$SG_LOOP_HOOKS" > load.out 2>&1 || { fload=$((fload + 1)); cat load.out; }
	feed a; feed b
	# targets in and out while the BPF side runs
	i=0
	while [ $i -lt 6 ]; do
		ntg=$((ntg + 2))
		"$S" target add --comm "sgstorm$i" --setpoint $((100 + $(rnd 800))) >/dev/null 2>&1 ||
			ftg=$((ftg + 1))
		"$S" target del --comm "sgstorm$i" >/dev/null 2>&1 || ftg=$((ftg + 1))
		i=$((i + 1))
	done
	ntg=$((ntg + 2))
	"$S" target add --pid $$ --slo p99:$((1 + $(rnd 50)))ms >/dev/null 2>&1 || ftg=$((ftg + 1))
	feed c
	# the struct_ops policy: loaded and unloaded, or run and its loader killed
	if [ $ops = 1 ]; then
		npol=$((npol + 1))
		case $(rnd 3) in
		0) "$S" policy load "$UTIL" >/dev/null 2>&1 && sleep 1 &&
			"$S" policy unload >/dev/null 2>&1 || fpol=$((fpol + 1)) ;;
		1) "$S" policy load "$GARBAGE" >/dev/null 2>&1 && sleep 1 &&
			"$S" policy unload >/dev/null 2>&1 || fpol=$((fpol + 1)) ;;
		2) "$S" policy run "$GARBAGE" >/dev/null 2>&1 &
			_p=$!
			sleep 2
			kill -9 $_p 2>/dev/null && wait $_p 2>/dev/null
			# a killed loader's ops are gone once its link's last fd closed
			wait_for '! grep -q "^bpf:" $(pol 1)/slack/law' 50 || fpol=$((fpol + 1)) ;;
		esac
	fi
	# governor switches on both policies, while the feeds run
	i=0
	for g in $GOVS $GOVS; do
		nsw=$((nsw + 1))
		echo $g > "$(pol $((i % 2)))/scaling_governor" 2>/dev/null || fsw=$((fsw + 1))
		i=$((i + 1))
		[ $g = slack ] && knob rate_limit_us $((500 + $(rnd 5000)))
		nknob=$((nknob + 1))
	done
	for c in 0 1; do echo slack > "$(pol $c)/scaling_governor"; done
	feed d
	# rmmod while in use: refused
	nrm=$((nrm + 1))
	rmmod slackgov 2>/dev/null && frm=$((frm + 1))
	# cpu1 out and in under the governor and the feeds
	j=0
	while [ $j -lt 2 ]; do
		nhp=$((nhp + 1))
		{ echo 0 > /sys/devices/system/cpu/cpu1/online && sleep 0.3 &&
			echo 1 > /sys/devices/system/cpu/cpu1/online; } 2>/dev/null || fhp=$((fhp + 1))
		j=$((j + 1))
	done
	echo slack > "$(pol 1)/scaling_governor" 2>/dev/null
	"$S" target del --pid $$ >/dev/null 2>&1
	ntg=$((ntg + 1))
	"$S" unload > unload.out 2>&1 || { ftg=$((ftg + 1)); cat unload.out; }
	# the end of the round: the feeds at their end, the load stopped,
	# everything out
	wait $feeds
	kill $bg 2>/dev/null
	wait 2>/dev/null
	for f in feed.*.out; do
		grep -q '^ok=' "$f" || { ffeed=$((ffeed + 1)); sed "s/^/# $f: /" "$f"; }
	done
	rm -f feed.*.out
	nout=$((nout + 1))
	# the two orders alternate too, out of step with fast_switch: two
	# rounds see each order once, four every pairing
	if [ $(((round / 2 + round) % 2)) -eq 0 ]; then
		# slackgov first: its governor stopped by the switch away
		for c in 0 1; do echo performance > "$(pol $c)/scaling_governor"; done
		sg_rmmod slackgov && sg_rmmod vfreq || fout=$((fout + 1))
	else
		# the driver first, while slack governs both policies
		sg_rmmod vfreq && sg_rmmod slackgov || fout=$((fout + 1))
	fi
	round=$((round + 1))
	ktap_note "round $round (fast_switch=$fs) done at $(($(date +%s) - t0)) s"
done
el=$(($(date +%s) - t0))
ktap_note "$round rounds in $el s: $nsw governor switches, $nload BPF loads, $npol policies," \
	"$ntg target operations, $nfeed feeds, $nhp hotplugs, $nknob knob writes"

ktap_cmp $round -ge 2 "at least two rounds, fast switch off and on ($round)"
ktap_eq "0/$nsw" "$fsw/$nsw" "every governor switch succeeded"
ktap_eq "0/$nload" "$fload/$nload" "every slackctl load succeeded"
if [ $ops = 1 ]; then
	ktap_eq "0/$npol" "$fpol/$npol" "every struct_ops policy loaded and went away"
else
	ktap_skip "every struct_ops policy loaded and went away" "no module struct_ops or test policy"
fi
ktap_eq "0/$ntg" "$ftg/$ntg" "every target add, del and unload succeeded"
ktap_eq "0/$nfeed" "$ffeed/$nfeed" "every feed loaded and ran to its end"
ktap_eq "0/$nrm" "$frm/$nrm" "rmmod refused each time while slack governed"
ktap_eq "0/$nhp" "$fhp/$nhp" "cpu1 offline and online each time"
ktap_eq "0/$nout" "$fout/$nout" "both modules unloaded at each round's end, in either order"
ktap_check '[ ! -d /sys/module/slackgov ] && [ ! -d /sys/module/vfreq ]' "no module left"
ktap_check '[ ! -e $PIN ] && [ ! -e $PPIN ]' "no pin left ($PIN, $PPIN)"
ktap_finished
