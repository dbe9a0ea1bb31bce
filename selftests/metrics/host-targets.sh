# SPDX-License-Identifier: GPL-2.0
# host-targets.sh - the BPF side without the module (metrics only): targets
# by process name and by cgroup v2 directory are counted; an idle target
# publishes zero-load windows and stops after its exit; a new process that
# reuses the exited target's PID is not counted; a window with one event and
# a huge gap before it give bounded, exact moments (no overflow garbage).
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/lib/server.sh"

S=$SG_BUILD/userctl/slackctl
B=$SG_BUILD/selftests
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e /sys/fs/bpf/slackgov ] && ktap_skip_all "slackgov is in use on this machine"
# cgroup v2: /sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CGROOT" ] || ktap_skip_all "no cgroup v2 mounted"
sg_defer "$S unload"

# field NAME LINE: the value of NAME= in an sgwin line
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
last() { "$B/sgwin" -s "$1" | sed -n 's/^last //p'; }
total_send() { "$B/sgwin" -s "$1" | sed -n 's/.*total_send=\([0-9]*\).*/\1/p'; }
slot_of() { "$S" -j target add "$@" | sed -n 's/.*"slot": *\([0-9]*\).*/\1/p'; }

answered() { "$B/sgclient" -p "$1" -r "$2" -d "$3" -c 2 -j | sed -n 's/.*"received": \([0-9]*\).*/\1/p'; }

# one request on a fresh connection (sgwire.h: 32-byte message)
one_request() {
	python3 - "$1" <<'EOF'
import socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(struct.pack("=IIQQQ", 0x51574753, 0xffffffff, 1, 0, 0))
n = 0
while n < 32:
    b = s.recv(32 - n)
    if not b: break
    n += len(b)
sys.exit(0 if n == 32 else 1)
EOF
}

ktap_plan 15
"$S" load > /dev/null
ktap_check '"$S" -j status | grep -q "\"feed\": false"' "loads without the module (metrics only)"

# ---- by process name: a copy of sgserver under a name of its own ----
NAME=sgc$$
NAME=${NAME:0:15}
cp "$B/sgserver" "./$NAME"
start_server "./$NAME" -t 2 -s 50
slot=$(slot_of --comm "$NAME")
sleep 0.3
n0=$(total_send $slot)
got=$(answered $PORT 1000 1)
sleep 0.1
n1=$(total_send $slot)
ktap_note "comm $NAME (slot $slot): $got answers, $((n1 - n0)) sends counted"
# the open window is published within one window (10 ms) after the load
ktap_check '[ "$got" -gt 0 ] && [ $((n1 - n0)) -eq "$got" ]' "a target by process name: every answer counted"
kill $SPID; wait $SPID 2>/dev/null
"$S" target del --comm "$NAME" > /dev/null

# ---- by cgroup v2 directory ----
CG=$CGROOT/sgtest.$$
mkdir "$CG"
sg_defer "rmdir $CG"
start_server "$B/sgserver" -t 2 -s 50
echo $SPID > "$CG/cgroup.procs"
sg_defer "echo $SPID > $CGROOT/cgroup.procs"
slot=$(slot_of --cgroup "$CG")
sleep 0.3
n0=$(total_send $slot)
got=$(answered $PORT 1000 1)
sleep 0.1
n1=$(total_send $slot)
ktap_note "cgroup $CG (slot $slot): $got answers, $((n1 - n0)) sends counted"
ktap_check '[ "$got" -gt 0 ] && [ $((n1 - n0)) -eq "$got" ]' "a target by cgroup: every answer counted"
kill $SPID; wait $SPID 2>/dev/null
"$S" target del --cgroup "$CG" > /dev/null

# ---- by PID: idle windows, one-event window, huge gap, exit, PID reuse ----
start_server "$B/sgserver" -t 1 -s 50
P=$SPID
slot=$(slot_of --pid $P)
answered $PORT 200 0.5 > /dev/null
sleep 0.3
w0=$(last $slot)
sleep 1
w1=$(last $slot)
n=$(( $(field seq "$w1") - $(field seq "$w0") ))
ktap_note "idle: $n windows in 1 s; last: $(echo "$w1" | cut -d' ' -f1-9)"
ktap_cmp "$n" -ge 20 "an idle target closes windows (at least one per 50 ms)"
ktap_check '[ $(( $(field flags "$w1") & 1 )) = 1 ] && [ "$(field rps "$w1")" = 0 ] && [ "$(field slack "$w1")" = 1000 ]' \
	"idle windows: IDLE, rps 0, slack 1000"
ktap_eq 1 "$(field report_ret "$w1")" "not fed (no module): report_ret 1"

# one request after 1.3 s of idleness: a window with one send and one recv;
# the inter-send/recv intervals before it (> 1 s) are clamped to 1 s.  The
# read and its answer are ~100 us apart in 10 ms windows, so about one try in
# a hundred has a window close between them (two windows, each right in
# itself): then the request is sent again after another idle second.
for try in 1 2 3; do
	[ $try = 1 ] || sleep 1.1
	one_request $PORT
	sleep 0.1
	one=$("$B/sgwin" -a -s $slot | awk '/^hist/ && / nr_send=1 /' | tail -n 1)
	[ "$(field nr_recv "$one")" != 1 ] || break
	ktap_note "try $try: the read and the answer fell in two windows"
done
ktap_note "one-event window: $(echo "$one" | cut -d' ' -f2-22)"
ktap_check '[ -n "$one" ] && [ "$(field nr_recv "$one")" = 1 ]' "a window with one send and its one recv (EOF is no recv)"
ktap_eq 1000000000 "$(field send_mean_ns "$one")" "a gap over 1 s is clamped to 1 s (send mean, ns)"
ktap_eq 0 "$(field send_var_us2 "$one")" "one interval: variance 0"
ktap_check '[ "$(field recv_mean_ns "$one")" = 1000000000 ] && [ "$(field recv_var_us2 "$one")" = 0 ] && [ "$(field cv "$one")" = 0 ]' \
	"recv: the same (mean 1 s, variance 0, cv 0)"
ktap_eq $(( 1000000000 / $(field len_ns "$one") )) "$(field rps "$one")" "rps of one send = 10^9 / window length"

# exit: a last EXITED window, then nothing
kill $P; wait $P 2>/dev/null
sleep 0.2
w2=$(last $slot)
ktap_eq 4 "$(( $(field flags "$w2") & 4 ))" "the exited target's last window is flagged EXITED"
sleep 0.3
ktap_eq "$(field seq "$w2")" "$(field seq "$(last $slot)")" "no window after the exit"

# PID reuse: a new sgserver forced onto the same PID is not the target
reused=0
for i in $(seq 1 50); do
	echo $((P - 1)) > /proc/sys/kernel/ns_last_pid
	"$B/sgserver" -p 0 -t 1 -s 50 > reuse.out 2>/dev/null &
	if [ $! = "$P" ]; then reused=1; break; fi
	kill $!; wait $! 2>/dev/null
done
if [ $reused = 1 ]; then
	sg_defer "kill $P"
	for i in $(seq 1 20); do grep -q ready reuse.out && break; sleep 0.2; done
	PORT=$(awk '/ready/ {print $2}' reuse.out)
	n0=$(total_send $slot); s0=$(field seq "$(last $slot)")
	got=$(answered $PORT 500 0.5)
	sleep 0.2
	ktap_note "PID $P reused: $got answers, total_send $n0 -> $(total_send $slot)"
	ktap_check '[ "$got" -gt 0 ] && [ "$(total_send $slot)" = "$n0" ]' "a process that reuses the PID is not counted"
	ktap_eq "$s0" "$(field seq "$(last $slot)")" "and closes no window"
else
	ktap_skip "a process that reuses the PID is not counted" "PID $P not obtained"
	ktap_skip "and closes no window" "PID $P not obtained"
fi
ktap_finished
