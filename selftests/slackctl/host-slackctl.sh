# SPDX-License-Identifier: GPL-2.0
# host-slackctl.sh - every slackctl command on a kernel without slackgov.ko
# (metrics only), each with -j (one compact JSON document) and -p (the same,
# indented); targets by PID, name and cgroup with their errors, a cgroup
# target that counts a server's requests, a full target table; the state
# after each step.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/lib/server.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

B=$SG_BUILD/selftests
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
[ -e /sys/module/slackgov ] && ktap_skip_all "slackgov.ko is loaded: this test is for a kernel without it"
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG2" ] || ktap_skip_all "no cgroup2 mount"
sg_defer "$S unload"
jget() { python3 "$JC" get "$1" "$2"; }
# py 'EXPR': EXPR of the JSON document on stdin (d)
py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
gen() { bpftool -j map lookup pinned $PIN/sg_config key 0 0 0 0 | py 'd["formatted"]["value"]["generation"]'; }
ours() { bpftool prog show | grep -cE "name sg_[a-z_]+ " ; }
nlist() { "$S" target list | wc -l; }

ktap_plan 57

# -- version, help, load
sc_json "version -j / -p" version
ktap_eq "0.1 1" "$(jget j.out 'd["version"], d["abi"]' | tr -d "(),'")" "version: version and ABI"
sc_json "help -j / -p (null, as bpftool)" help
SC_UNDO="$S unload" sc_json "load -j / -p" load
ktap_eq "True False" "$(jget j.out 'd["loaded"], d["feed"]' | tr -d '(),')" "load -j: loaded, feed off"
ktap_check '[ -e $PIN/windows ] && [ -e $PIN/sg_config ] && [ -e $PIN/links/sg_exit ]' \
	"maps and the programs' links are pinned"
ktap_cmp "$(ours)" -ge 3 "the programs are attached"
ktap_check '"$S" status | grep -q "feed: off (module not loaded: metrics only)"' "status says metrics only"

# -- knobs
sc_json "get -j / -p" get
ktap_eq "10000000|ns (or 10ms, 500us, 1s)|bpf|governor" \
	"$(jget j.out '"|".join(str(d[k][m]) for k, m in (("window", "value"), ("window", "unit"), ("window", "side"), ("kp", "side")))')" \
	"get -j: value, unit and side of each knob"
sc_json "set --check -j / -p" set --check window 1s
sc_json "set -j / -p" set window 20ms
ktap_eq '{"window": 20000000}' "$(cat j.out)" "set -j echoes the value written, in the knob's unit"
sc_json "get KNOB -j / -p" get window
ktap_eq 20000000 "$("$S" get window)" "get window reads 20 ms back in ns"
sc_fails 1 "set window with a bad unit" "window: bad value '20parsecs'" set window 20parsecs
sc_fails 1 "set window out of range" "window: 11s is out of range" set window 11s
ktap_eq 20000000 "$("$S" get window)" "and the window is unchanged"
"$S" -j get > get0.json
sc_fails 1 "set of an unknown knob" "unknown knob 'windw'" set windw 30ms
"$S" -j get > get1.json
ktap_check 'python3 "$JC" same get0.json get1.json' "every knob is unchanged"

# -- targets by PID and name, with their errors
start_server "$B/sgserver" -t 2 -s 10
P=$SPID
SC_UNDO="$S target del --pid $P" sc_json "target add --pid -j / -p" target add --pid $P --setpoint 25%
ktap_eq "pid $P" "$(jget j.out 'd["kind"] + " " + d["id"]')" "target add -j names the target"
list=$("$S" target list)
sc_fails 1 "the same target twice" "target pid $P is already watched" target add --pid $P
nopid=999999
while [ -e /proc/$nopid ]; do nopid=$((nopid - 1)); done
sc_fails 1 "a PID that does not exist" "target: no process with PID $nopid" target add --pid $nopid
tid=$(ls /proc/$P/task | grep -v "^$P\$" | head -n 1)
sc_fails 1 "a thread's id" "target: $tid is a thread of process $P" target add --pid $tid
sc_fails 1 "a path that is not in a cgroup fs" "target: '/tmp' is not a cgroup v2 directory" \
	target add --cgroup /tmp
sc_fails 1 "a file of the cgroup2 fs" "is not a cgroup v2 directory" target add --cgroup $CG2/cgroup.procs
sc_fails 1 "a path that does not exist" "is not a cgroup v2 directory" target add --cgroup /nonexistent
v1=$(awk '$3 == "cgroup" { print $2; exit }' /proc/mounts)
if [ -n "$v1" ]; then
	sc_fails 1 "a cgroup v1 directory" "is not a cgroup v2 directory" target add --cgroup "$v1"
else
	ktap_skip "a cgroup v1 directory" "no cgroup v1 mount"
fi
sc_fails 1 "a too long process name" "must be 1 to 15 characters" target add --comm abcdefghijklmnopq
ktap_eq "$list" "$("$S" target list)" "the target table is unchanged after each error"
"$S" target add --comm 'a"b\c' > /dev/null
sc_json "target list -j / -p" target list
ktap_eq "pid $P:250 comm a\"b\\c:0" \
	"$(jget j.out '" ".join(t["target"] + ":" + str(t["setpoint"]) for t in d)')" \
	"both targets listed, the per-target setpoint kept"

# -- status and stats
sc_json "status -j / -p" status
ktap_eq "['feed', 'loaded', 'module', 'policies', 'targets'] 2" \
	"$(jget j.out 'sorted(d), len(d["targets"])' | tr -d '()' | sed 's/], /] /')" \
	"status -j: the documented members, one entry per target"
timeout 2.5 "$S" -j status --watch 1 > watch.out
ktap_check 'python3 "$JC" lines watch.out 2' "status -j --watch 1: one document per refresh"
"$S" stats --prom > prom.txt
ktap_check 'python3 "$SG_TOP/selftests/slackctl/promcheck.py" prom.txt' \
	"stats --prom passes the exposition-format check (label values escaped)"
ktap_check 'grep -q "^slackgov_feed_enabled 0$" prom.txt' "it reports the feed off"
sc_json "stats -j / -p" stats
ktap_eq "$(grep -c '^[a-z]' prom.txt)" "$(jget j.out 'sum(len(f["samples"]) for f in d["metrics"])')" \
	"stats -j holds the same samples as the exposition"

# -- target del
SC_UNDO="$S target add --pid $P --setpoint 25%" sc_json "target del -j / -p" target del --pid $P
sc_fails 1 "deleting it again" "target pid $P is not watched" target del --pid $P
"$S" target del --comm 'a"b\c' > /dev/null
ktap_eq 0 "$(nlist)" "no target left"

# -- a cgroup target counts what its processes serve
cg=$CG2/sgtest.$$
mkdir "$cg"
sg_defer "rmdir $cg"
start_server "$B/sgserver" -t 1 -s 10
echo $SPID > "$cg/cgroup.procs"
ktap_run_ok "target add --cgroup on a cgroup holding a server" "$S" target add --cgroup "$cg"
n=$("$B/sgclient" -p "$PORT" -r 1000 -d 1 -c 2 -j | py 'd["received"]')
sleep 0.3
"$S" -j status > st.json
sent=$(jget st.json "[t for t in d['targets'] if t['target'] == 'cgroup $(stat -c %i "$cg")'][0]['total_send']")
ktap_note "client: $n answers; cgroup target: $sent sends"
# the window open when the load stopped closes with the next event: up to
# one window (20 ms, about 20 requests here) may be missing
ktap_check '[ "$sent" -le "$n" ] && [ "$sent" -ge $((n * 97 / 100)) ] && [ "$n" -gt 0 ]' \
	"its sends are counted"
kill $SPID
"$S" target del --cgroup "$cg" > /dev/null

# -- concurrent adds: one change at a time, so every target has its own slot
i=0 pids=""
while [ $i -lt 40 ]; do "$S" target add --comm "c$i" > /dev/null & pids="$pids $!"; i=$((i + 1)); done
wait $pids
ktap_eq "40 40" "$("$S" -j target list | py 'len(d), len(set(t["slot"] for t in d))' | tr -d '(),')" \
	"40 concurrent adds: 40 targets in 40 slots"
i=0
while [ $i -lt 40 ]; do "$S" target del --comm "c$i" > /dev/null; i=$((i + 1)); done

# -- a full table: every slot taken, the next add fails and changes nothing
i=0
while [ $i -lt 1024 ]; do "$S" target add --comm "t$i" > /dev/null || break; i=$((i + 1)); done
ktap_eq 1024 "$(nlist)" "1024 targets fill the table"
list=$("$S" target list)
g0=$(gen)
sc_fails 1 "one more name" "the target table is full (1024 targets): delete one first" target add --comm t1024
sc_fails 1 "one more PID" "the target table is full" target add --pid $P
ktap_check '[ "$list" = "$("$S" target list)" ]' "the table is unchanged"
ktap_eq "$g0" "$(gen)" "and no target change was published"
slot=$("$S" -j target list | py '[t["slot"] for t in d if t["target"] == "comm t500"][0]')
"$S" target del --comm t500 > /dev/null
ktap_eq "$slot" "$("$S" -j target add --pid $P | py 'd["slot"]')" \
	"a deleted target's slot is reused"

# -- unload
SC_UNDO="$S load" sc_json "unload -j / -p" unload
ktap_eq '{"loaded": false}' "$(cat j.out)" "unload -j"

# -- concurrent loads: one wins, the others fail without touching its pins
pids=""
for i in 1 2 3 4; do ("$S" load > load$i.out 2>&1; echo $? > load$i.rc) & pids="$pids $!"; done
wait $pids
ktap_eq "0 1 1 1" "$(cat load1.rc load2.rc load3.rc load4.rc | sort | xargs)" \
	"4 concurrent loads: one succeeds, three fail"
ktap_check '[ -e $PIN/windows ] && [ -e $PIN/sg_config ] && [ "$(ls $PIN/links | wc -l)" -ge 3 ] &&
	"$S" -j status > /dev/null' "the winner's maps and links are all pinned"
"$S" unload > /dev/null
for i in 1 2 3 4 5 6 7 8 9 10; do [ "$(ours)" -eq 0 ] && break; sleep 0.3; done
ktap_check '[ ! -e $PIN ] && [ "$(ours)" -eq 0 ]' "unload removes every pin and program"
ktap_finished
