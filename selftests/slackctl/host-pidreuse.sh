# SPDX-License-Identifier: GPL-2.0
# host-pidreuse.sh - a --pid target whose process exits and whose PID is
# given to another process: the new process is not taken for the target (the
# BPF side compares the start time slackctl stored), target list says the PID
# was reused, a second add of the PID says so, and del + add watches the new
# process.  The PID is reused on purpose through /proc/sys/kernel/ns_last_pid.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/lib/server.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

B=$SG_BUILD/selftests
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
[ -w /proc/sys/kernel/ns_last_pid ] || ktap_skip_all "no writable /proc/sys/kernel/ns_last_pid"
sg_defer "$S unload"
py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# sends counted for the target "pid $1"
sends() { "$S" -j status | py "[t['total_send'] for t in d['targets'] if t['target'] == 'pid $1'][0]"; }
load() { "$B/sgclient" -p "$1" -r 500 -d 1 -c 2 -j | py 'd["received"]'; }

ktap_plan 7
"$S" load > /dev/null
start_server "$B/sgserver" -t 1 -s 10
P=$SPID
ktap_run_ok "target add --pid" "$S" target add --pid $P
n=$(load $PORT)
sleep 0.3
s1=$(sends $P)
ktap_note "first server: $n answers, $s1 sends counted"
ktap_cmp "$s1" -gt 0 "the first server's sends are counted"
kill $P
wait $P 2> /dev/null

# the next fork gets ns_last_pid + 1 when it is free: retry while other
# processes on the machine take it first
R=""
for i in $(seq 1 200); do
	echo $((P - 1)) > /proc/sys/kernel/ns_last_pid
	"$B/sgserver" -p 0 -t 1 -s 10 > reuse.out 2> reuse.err &
	R=$!
	[ "$R" = "$P" ] && break
	kill $R 2> /dev/null
	wait $R 2> /dev/null
	R=""
done
[ -n "$R" ] || { ktap_note "PID $P was not reused in 200 tries"; ktap_skip_all "could not reuse the PID"; }
sg_defer "kill $R"
for i in $(seq 1 20); do grep -q ready reuse.out && break; sleep 0.2; done
RPORT=$(awk '/ready/ {print $2}' reuse.out)
ktap_note "PID $P reused after $i tries, port $RPORT"
n=$(load $RPORT)
sleep 0.3
ktap_eq "$s1" "$(sends $P)" "the new process's $n answers are not counted for the old target"
ktap_check '"$S" target list | grep -qE "^pid $P .*\\(exited, PID reused\\)"' "target list says the PID was reused"
sc_fails 1 "adding the PID again says why" \
	"target pid $P is watched, but for a process that has exited (the PID was reused)" target add --pid $P
"$S" target del --pid $P > /dev/null
ktap_run_ok "del + add watches the new process" "$S" target add --pid $P
n=$(load $RPORT)
sleep 0.3
s2=$(sends $P)
ktap_note "new process: $n answers, $s2 sends counted"
ktap_check '[ "$s2" -gt 0 ] && [ "$s2" -le "$n" ]' "its sends are counted now"
ktap_finished
