# SPDX-License-Identifier: GPL-2.0
# host-units.sh - targets as operators name their services (issue 49 item 2):
# a cgroup target covers its subtree; --unit NAME (a systemd unit's cgroup,
# matched by its slice and its name) counts a process in the unit's
# directory and in a sub-cgroup, and again after a restart (the directory
# removed and made again: a new id); --cgroup DIR/GLOB counts a process in a
# directory made after the add, and below it, not one beside it.  Bad unit
# names, a unit systemd does not know, one without a cgroup, bad patterns:
# a clear error each, the target list unchanged; a unit that appears later
# can be added then.  The names show in target list, status -j and the
# Prometheus labels; set and del take them; slackgov-service check reads
# them from a configuration file.
#
# The cgroups are made by the test under the cgroup2 mount, and the unit's
# under system.slice (made, and removed after, when there is none: this
# host has no systemd).  Every process starts in its cgroup the way a unit's
# or a container's first process does: it moves itself in after its first
# syscalls, then execs the server.  systemd is played by a stand-in
# systemctl on PATH (it knows the test's units only); PATH without one is
# the fallback to system.slice/NAME.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

B=$SG_BUILD/selftests
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
command -v python3 > /dev/null || ktap_skip_all "python3 missing"
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG" ] || ktap_skip_all "no cgroup2 mount"
sg_defer "$S unload"

U=sgunit$$.service		# the unit: running, with a cgroup
UD=sgdown$$.service		# known to systemd, not running
UDIR=$CG/system.slice/$U
if [ ! -d "$CG/system.slice" ]; then
	mkdir "$CG/system.slice" || ktap_skip_all "cannot make $CG/system.slice"
	sg_defer "rmdir $CG/system.slice"
fi
TREE=$CG/sgtree$$ PODS=$CG/sgpods$$
# removed last: processes first (killed, their cgroups emptied), then leaves
sg_defer "rmdir $UDIR/sub $UDIR $TREE/child $TREE $PODS/pod-a.slice/ctr $PODS/pod-a.slice $PODS/other.slice $PODS/pod-b.scope $PODS"

# the stand-in systemctl: "show -p LoadState -p ControlGroup -- UNIT" as systemd answers it
mkdir -p fakebin
cat > fakebin/systemctl <<EOF
#!/bin/sh
for u; do :; done
case \$u in
$U) printf 'LoadState=loaded\nControlGroup=/system.slice/$U\n' ;;
$UD) printf 'LoadState=loaded\nControlGroup=\n' ;;
*) printf 'LoadState=not-found\nControlGroup=\n' ;;
esac
EOF
chmod +x fakebin/systemctl
SYSD="env PATH=$PWD/fakebin:$PATH"	# slackctl with systemd
NOSYSD="env PATH=/nonexistent"		# and without

# a one-thread server of the test's wire format (32-byte request, 32-byte
# answer: sgwire.h), so that the thread that answers is the one that moved
cat > srv.py <<'EOF'
import socket, sys
l = socket.socket()
l.bind(("127.0.0.1", 0))
l.listen(8)
print("ready", l.getsockname()[1], flush=True)
while True:
    c, _ = l.accept()
    while True:
        b = c.recv(32, socket.MSG_WAITALL)
        if len(b) < 32:
            break
        c.sendall(b)
    c.close()
EOF
cat > cli.py <<'EOF'
import socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
n = 0
for i in range(int(sys.argv[2])):
    s.sendall(struct.pack("=IIQQQ", 0x51574753, 0xffffffff, i, 0, 0))
    if len(s.recv(32, socket.MSG_WAITALL)) == 32:
        n += 1
print(n)
EOF

# in_cgroup DIR: start srv.py in DIR (it moves itself in, then execs), set SPID and PORT
NSRV=0
in_cgroup() {
	NSRV=$((NSRV + 1))
	sh -c 'echo $$ > "$1/cgroup.procs" && exec python3 srv.py' sh "$1" > srv$NSRV.out 2> srv$NSRV.err &
	SPID=$!
	sg_defer "kill $SPID"
	for i in $(seq 1 20); do grep -q ready srv$NSRV.out && break; sleep 0.2; done
	PORT=$(awk '/ready/ {print $2}' srv$NSRV.out)
	[ -n "$PORT" ] || ktap_note "server in $1 did not start: $(cat srv$NSRV.err)"
}
stop() { kill "$1"; wait "$1" 2> /dev/null; }
total_send() { "$B/sgwin" -s "$1" | sed -n 's/.*total_send=\([0-9]*\).*/\1/p'; }
slot_of() { "$S" -j target add "$@" | sed -n 's/.*"slot": *\([0-9]*\).*/\1/p'; }
cgid() { stat -c %i "$1"; }

# counted "desc" SLOT [WANT]: 200 requests to $PORT; slot SLOT's sends grow by
# the answers (WANT "none": not at all)
counted() {
	_n0=$(total_send "$2")
	_got=$(python3 cli.py "$PORT" 200)
	sleep 0.1
	_n1=$(total_send "$2")
	ktap_note "$1: $_got answers, slot $2's sends $_n0 -> $_n1"
	if [ "${3:-}" = none ]; then
		ktap_check '[ "$_got" = 200 ] && [ "$_n1" = "$_n0" ]' "$1"
	else
		ktap_check '[ "$_got" = 200 ] && [ $((_n1 - _n0)) -eq 200 ]' "$1"
	fi
}

# unchanged "desc" SLACKCTL-ARGS...: the command fails with one clear error
# (text and -j, lib.sh's sc_fails) and target list is what it was
unchanged() {
	_d=$1 _m=$2
	shift 2
	"$S" -j target list > before.json
	sc_fails 1 "$_d" "$_m" "$@"
	"$S" -j target list > after.json
	cmp -s before.json after.json || ktap_note "target list changed: $(cat after.json)"
	ktap_check 'cmp -s before.json after.json' "$_d: target list unchanged"
}

ktap_plan 48
"$S" load > /dev/null || ktap_bail "slackctl load failed"

# ---- a cgroup target covers its subtree ----
mkdir -p "$TREE/child"
slot=$(slot_of --cgroup "$TREE")
in_cgroup "$TREE/child"
counted "cgroup target: a process in a sub-cgroup is counted" "$slot"
stop $SPID
"$S" target del --cgroup "$TREE" > /dev/null

# ---- units: the errors, each leaving the list as it was ----
"$S" target add --comm sgkeep$$ > /dev/null	# something in the list to keep
SC_AS=$SYSD
unchanged "a name that is not a unit name" "is not a unit name" target add --unit 'my unit'
unchanged "a unit name without its type" "give its type" target add --unit memcached
unchanged "a template without its instance" "is a template" target add --unit 'sgunit@.service'
unchanged "a unit systemd does not know" "systemd knows no unit 'sgnone$$.service'" \
	target add --unit sgnone$$.service
unchanged "a unit that is not running (no cgroup)" "has no cgroup: it is not running" \
	target add --unit $UD
SC_AS=$NOSYSD
unchanged "no systemd: a unit whose directory does not exist" "does not exist" target add --unit $U
SC_AS=
unchanged "del of a unit that is not a target" "target unit $U is not watched" target del --unit $U

# ---- the unit appears: added then, counted in it and in a sub-cgroup ----
mkdir -p "$UDIR/sub"
$NOSYSD "$S" -j target add --unit $U > j.out 2> j.err
ktap_check 'grep -qF "{\"kind\": \"unit\", \"id\": \"$U\", \"slot\": " j.out' \
	"no systemd: the unit that appeared is added (system.slice/NAME); -j: kind unit, id the name"
"$S" target del --unit $U > /dev/null
slot=$($SYSD "$S" -j target add --unit $U | sed -n 's/.*"slot": *\([0-9]*\).*/\1/p')
ktap_check '[ -n "$slot" ]' "with systemd: added from its ControlGroup"
"$S" -j target list > list.json
ktap_check 'grep -qF "{\"target\": \"unit $U\", \"slot\": $slot," list.json && grep -qF "\"path\": \"$UDIR\", \"gone\": null" list.json' \
	"target list: unit NAME, its directory"
in_cgroup "$UDIR"
P1=$SPID
counted "a process in the unit's cgroup is counted" "$slot"
in_cgroup "$UDIR/sub"
P2=$SPID
counted "a process in a sub-cgroup of the unit is counted" "$slot"
"$S" -j status > status.json
ktap_check 'grep -qF "\"target\": \"unit $U\"" status.json' "status -j: unit NAME"
"$S" stats --prom > prom.txt
ktap_check 'grep -qF "target=\"unit $U\"" prom.txt' "Prometheus label: target=\"unit NAME\""

# ---- a restart: the directory removed and made again, a new id ----
id0=$(cgid "$UDIR")
stop $P1
stop $P2
rmdir "$UDIR/sub" "$UDIR"
"$S" -j target list > list.json
ktap_check 'grep -qF "\"gone\": \"not running\"" list.json' "a stopped unit: still a target, gone: not running"
mkdir "$UDIR"
ktap_check '[ "$(cgid "$UDIR")" != "$id0" ]' "the restarted unit's directory has a new id"
in_cgroup "$UDIR"
counted "after the restart, the unit's new process is counted" "$slot"
stop $SPID
ktap_run_ok "target set --unit" "$S" target set --unit $U --setpoint 30%
ktap_check '"$S" -j target list | grep -qF "{\"target\": \"unit $U\", \"slot\": $slot, \"setpoint\": 300,"' \
	"set changed the unit's setpoint in place"
ktap_run_ok "target del --unit" "$S" target del --unit $U
ktap_check '! "$S" target list | grep -q "unit $U"' "the unit is no target any more"

# ---- patterns: a directory made after the add, and below it ----
SC_AS=
mkdir "$PODS"
unchanged "a pattern with two '*'" "a pattern has one '*'" target add --cgroup "$PODS/pod*-*.slice"
unchanged "a '*' before the last component" "in the last component only" target add --cgroup "$CG/sgpod*/x.slice"
unchanged "'?' in a pattern" "only '*' is supported" target add --cgroup "$PODS/pod?.slice"
unchanged "a pattern under a directory that does not exist" "is not a cgroup v2 directory" \
	target add --cgroup "$PODS/nosuch/pod*.slice"
SC_UNDO="$S target del --cgroup '$PODS/pod*.slice'" sc_json "target add --cgroup DIR/GLOB -j / -p" \
	target add --cgroup "$PODS/pod*.slice"
ktap_check 'grep -qF "\"kind\": \"pattern\", \"id\": \"$(cgid "$PODS")/pod*.slice\"" j.out' \
	"target add -j: kind pattern, id DIR_ID/GLOB"
"$S" target del --cgroup "$PODS/pod*.slice" > /dev/null
slot=$(slot_of --cgroup "$PODS/pod*.slice")
mkdir -p "$PODS/pod-a.slice/ctr" "$PODS/other.slice" "$PODS/pod-b.scope"
in_cgroup "$PODS/pod-a.slice"
counted "a pattern: a process in a directory made after the add is counted" "$slot"
stop $SPID
in_cgroup "$PODS/pod-a.slice/ctr"
counted "a pattern: and one below it" "$slot"
stop $SPID
in_cgroup "$PODS/other.slice"
counted "a pattern: a directory it does not match is not counted" "$slot" none
stop $SPID
in_cgroup "$PODS/pod-b.scope"
counted "a pattern: nor one of its prefix with another suffix" "$slot" none
stop $SPID
"$S" -j status > status.json
ktap_check 'grep -qF "\"target\": \"pattern $(cgid "$PODS")/pod*.slice\"" status.json' "status -j: pattern DIR_ID/GLOB"
ktap_run_ok "target del --cgroup DIR_ID/GLOB" "$S" target del --cgroup "$(cgid "$PODS")/pod*.slice"
ktap_eq "comm sgkeep$$" "$("$S" -j target list | sed -n 's/.*"target": "\([^"]*\)".*/\1/p')" \
	"only the kept target is left"

# ---- the configuration file ----
cat > ok.conf <<EOF
target unit memcached.service setpoint=25%
target cgroup /sys/fs/cgroup/kubepods.slice/kubepods-pod*.slice proto=http1
EOF
ktap_check 'SLACKCTL=$S sh $SG_TOP/scripts/slackgov-service check ok.conf' \
	"slackgov-service check: a unit and a pattern"
printf 'target unit memcached\ntarget unit x.service bogus=1\n' > bad.conf
SLACKCTL=$S sh "$SG_TOP/scripts/slackgov-service" check bad.conf 2> bad.err
ktap_check 'grep -q "line 1: .memcached. is not a unit name" bad.err && grep -q "line 2: unknown target option" bad.err' \
	"slackgov-service check: a bad unit name, line by line"
ktap_finished
