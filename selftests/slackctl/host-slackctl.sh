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

ktap_plan 106

# -- version, help, load
sc_json "version -j / -p" version
abi=$(awk '$2 == "SLACKGOV_ABI_VERSION" { print $3 }' "$SG_TOP/include/uapi/slackgov.h")
ktap_eq "0.1 $abi" "$(jget j.out 'd["version"], d["abi"]' | tr -d "(),'")" "version: version and ABI"
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
sc_fails 1 "a PID that does not exist" "target add: no process with PID $nopid" target add --pid $nopid
tid=$(ls /proc/$P/task | grep -v "^$P\$" | head -n 1)
sc_fails 1 "a thread's id" "target add: $tid is a thread of process $P" target add --pid $tid
sc_fails 1 "a path that is not in a cgroup fs" "target add: '/tmp' is not a cgroup v2 directory" \
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
ktap_eq "True 2" \
	"$(jget j.out 'set(["feed", "loaded", "module", "policies", "targets"]) <= set(d), len(d["targets"])' | tr -d '(),')" \
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

# -- SLOs: stored with the target, shown by list, changed in place by set
"$S" target add --comm slo1 --slo 2ms > /dev/null
"$S" target add --comm slo2 --slo p95:2ms > /dev/null
"$S" target add --comm slo3 --slo p99.9:500us --setpoint 30% > /dev/null
"$S" target add --comm slo4 > /dev/null
slos() { "$S" -j target list | py '" ".join("%s:%d:%d:%s:%d" % (t["target"][5:], t["slo_us"], t["slo_q"], t["slo"], t["setpoint"]) for t in sorted(d, key=lambda t: t["target"]))'; }
ktap_eq "slo1:2000:9900:p99:2ms:0 slo2:2000:9500:p95:2ms:0 slo3:500:9990:p99.9:500us:300 slo4:0:0:-:0" \
	"$(slos)" "target add --slo: 2ms is a p99, p95:2ms, p99.9:500us; none without"
ktap_check '"$S" target list | grep -qE "^comm slo3 +slot [0-9]+ +setpoint 300 +slo p99.9:500us"' \
	"target list shows the SLO"
list=$("$S" target list)
g0=$(gen)
sc_fails 1 "--slo 0" "--slo: 0 is out of range 1..16777215 us" target add --comm slo5 --slo 0
sc_fails 1 "--slo above the histogram's range" "--slo: 17s is out of range 1..16777215 us" \
	target add --comm slo5 --slo 17s
sc_fails 1 "--slo p0" "the percentile must be above p0 and below p100" target add --comm slo5 --slo p0:1ms
sc_fails 1 "--slo p100" "the percentile must be above p0 and below p100" target add --comm slo5 --slo p100:1ms
sc_fails 1 "--slo finer than 0.01 percent" \
	"--slo percentile: bad value '99.999': not a whole number of hundredths of a percent" \
	target add --comm slo5 --slo p99.999:1ms
sc_fails 1 "--slo without a duration" "--slo 'p99:' has no duration" target add --comm slo5 --slo p99:
sc_fails 1 "--slo junk" "--slo: bad value 'fast': not a number" target add --comm slo5 --slo fast
sc_fails 1 "--slo none on add is junk too" "--slo: bad value 'none'" target add --comm slo5 --slo none
sc_fails 1 "--slo of a target already watched" "target comm slo1 is already watched" \
	target add --comm slo1 --slo 5ms
ktap_check '[ "$list" = "$("$S" target list)" ] && [ "$g0" = "$(gen)" ]' \
	"no bad --slo changed the table or published a change"
slot=$("$S" -j target list | py '[t["slot"] for t in d if t["target"] == "comm slo1"][0]')
SC_UNDO="$S target set --comm slo1 --slo 2ms" sc_json "target set --slo -j / -p" target set --comm slo1 --slo p90:10ms
ktap_eq "$slot 10000 9000" \
	"$("$S" -j target list | py '" ".join(str(t[k]) for t in d if t["target"] == "comm slo1" for k in ("slot", "slo_us", "slo_q"))')" \
	"target set changes the SLO in place (same slot)"
ktap_cmp "$(gen)" -gt "$g0" "and publishes the change"
ktap_run_ok "target set --slot SLOT --slo none --setpoint 40%" "$S" target set --slot $slot --slo none --setpoint 40%
ktap_eq "slo1:0:0:-:400" "$(slos | tr ' ' '\n' | grep '^slo1:')" "--slo none removes the SLO, --slot names the target"
list=$("$S" target list)
sc_fails 1 "target set with nothing to set" "target set: nothing to set" target set --comm slo1
sc_fails 1 "target set of a target not watched" "target comm nosuch is not watched" target set --comm nosuch --slo 1ms
sc_fails 1 "target set --slot of an empty slot" "target set: no target in slot 1000" target set --slot 1000 --slo 1ms
sc_fails 1 "target set with a bad --slo" "the percentile must be above p0" target set --comm slo2 --slo p0:1ms
ktap_eq "$list" "$("$S" target list)" "the table is unchanged after each error"

# -- an SLO's own margin: stored with the target (0 too), default goes back to the knob
ktap_run_ok "target add --slo --slo-margin 45%" "$S" target add --comm slo5 --slo 16ms --slo-margin 45%
margins() { "$S" -j target list | py '" ".join("%s:%s" % (t["target"][5:], t["slo_margin"]) for t in sorted(d, key=lambda t: t["target"]))'; }
ktap_eq "slo1:None slo2:None slo3:None slo4:None slo5:450" "$(margins)" \
	"--slo-margin is stored; the targets without one follow the knob (null)"
ktap_check '"$S" target list | grep -qE "^comm slo5 .*slo p99:16ms +margin 45% +proto thread *$"' "target list shows the margin"
list=$("$S" target list)
g0=$(gen)
sc_fails 1 "--slo-margin above 90 %" "slo_margin: 91% is out of range 0..900" \
	target add --comm slo6 --slo 1ms --slo-margin 91%
sc_fails 1 "--slo-margin junk" "slo_margin: bad value 'wide'" target add --comm slo6 --slo 1ms --slo-margin wide
sc_fails 1 "--slo-margin without --slo" "--slo-margin needs --slo" target add --comm slo6 --slo-margin 10%
sc_fails 1 "--slo-margin with --slo none" "a target without an SLO has no margin" \
	target set --comm slo5 --slo none --slo-margin 10%
sc_fails 1 "target set --slo-margin of a target without an SLO" "has no SLO (give --slo too)" \
	target set --comm slo4 --slo-margin 10%
ktap_check '[ "$list" = "$("$S" target list)" ] && [ "$g0" = "$(gen)" ]' \
	"no bad --slo-margin changed the table or published a change"
"$S" target set --comm slo5 --slo-margin 0 > /dev/null
"$S" target set --comm slo5 --slo 20ms > /dev/null
ktap_eq "slo5:0" "$(margins | tr ' ' '\n' | grep '^slo5:')" "a margin of 0 can be said, and a new SLO keeps it"
"$S" target set --comm slo5 --slo-margin default > /dev/null
ktap_eq "slo5:None" "$(margins | tr ' ' '\n' | grep '^slo5:')" "--slo-margin default goes back to the knob"
"$S" target set --comm slo5 --slo-margin 30% > /dev/null
"$S" target set --comm slo5 --slo none > /dev/null
ktap_eq "slo5:None" "$(margins | tr ' ' '\n' | grep '^slo5:')" "--slo none removes the margin with the SLO"
for i in 1 2 3 4 5; do "$S" target del --comm slo$i > /dev/null; done

# -- processes that cannot be targets, and PID 1
sc_fails 1 "a kernel thread" "target add: PID 2 is a kernel thread" target add --pid 2
sh -c 'sleep 0 & exec sleep 30' &
zp=$!
sg_defer "kill $zp"
sleep 0.5
Z=$(pgrep -P $zp)
ktap_note "zombie: $Z ($(awk '{print $3}' /proc/$Z/stat))"
sc_fails 1 "a zombie" "target add: PID $Z has exited (a zombie)" target add --pid $Z
"$S" target add --pid 1 > p1.out 2> p1.err
ktap_check 'grep -q "^Warning: target add: PID 1 is the init process" p1.err && grep -q "^target pid 1: added" p1.out' \
	"PID 1 is added with a warning"
"$S" target del --pid 1 > /dev/null
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

# -- a cgroup target whose directory was removed: list says so, and the id or
# the slot that list shows deletes it
cg2=$CG2/sgtest2.$$
for by in id slot; do
	mkdir "$cg2"
	id2=$(stat -c %i "$cg2")
	"$S" target add --cgroup "$cg2" > /dev/null
	ktap_check '"$S" target list | grep -qE "^cgroup $id2 .* $cg2\$"' "target list shows a cgroup target's path"
	rmdir "$cg2"
	ktap_check '"$S" target list | grep -qE "^cgroup $id2 .*\(directory removed\)$"' "and says when it was removed"
	ktap_eq "directory removed None" \
		"$("$S" -j target list | py '" ".join("%s %s" % (t["gone"], t["path"]) for t in d if t["target"] == "cgroup '$id2'")')" \
		"-j: gone, no path"
	slot=$("$S" -j target list | py '[t["slot"] for t in d if t["target"] == "cgroup '$id2'"][0]')
	if [ $by = id ]; then
		sc_fails 1 "del by the removed path says how to name it" \
			"target del: '$cg2' does not exist: name a removed cgroup by its id" target del --cgroup "$cg2"
		ktap_run_ok "target del --cgroup ID" "$S" target del --cgroup $id2
	else
		ktap_run_ok "target del --slot SLOT" "$S" target del --slot $slot
	fi
	ktap_eq 0 "$(nlist)" "it is gone"
done

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
