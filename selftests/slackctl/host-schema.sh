# SPDX-License-Identifier: GPL-2.0
# host-schema.sh - slackctl.rst's JSON schemas are what slackctl prints
# (issue 49 item 4): the keys the page's OUTPUT section documents (read from
# the page each run by schemacheck.py, nested objects included) against
# those of a real load, target add/set/list/del, status, version and unload
# with -j.  A key printed but not documented fails, and so does one
# documented but not printed; for status and target list every documented
# object must have been printed at least once (a pid target under load, so
# that interval and window are objects; a comm and a cgroup target; a policy
# and an energy zone).  This host has no cpufreq and no powercap: status
# runs once more in a private mount namespace over a stand-in policy0/ (an
# empty folder: status prints a policy's every key whatever its files say)
# and a stand-in powercap zone (energy_uj, name).
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"
. "$SG_TOP/selftests/lib/server.sh"

B=$SG_BUILD/selftests
RST=$SG_TOP/Documentation/slackctl.rst
SCH="python3 $SG_TOP/selftests/slackctl/schemacheck.py"
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
command -v python3 > /dev/null || ktap_skip_all "python3 missing"
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG2" ] || ktap_skip_all "no cgroup2 mount"
sg_defer "$S unload"

# schema "desc" [--all-seen] COMMAND FILE...: one ktap line, the differences as notes
schema() {
	_d=$1
	shift
	if $SCH check "$RST" "$@" > sc.out 2>&1; then
		grep '^not seen' sc.out | sed 's/^/# /'
		ktap_ok "$_d ($(tail -n 1 sc.out))"
	else
		sed 's/^/# /' sc.out
		ktap_fail "$_d"
	fi
}

ktap_plan 9
"$S" -j load > load.json
schema "load -j: the keys slackctl.rst documents" load load.json

start_server "$B/sgserver" -t 2 -s 200
cg=$CG2/sgschema.$$
mkdir "$cg"
sg_defer "rmdir $cg"
"$S" -j target add --pid $SPID --slo p99:5ms --slo-margin 10% > add1.json
"$S" -j target add --comm sgschema-none > add2.json
"$S" -j target add --cgroup "$cg" --setpoint 25% > add3.json
schema "target add -j (pid with an SLO and a margin, comm, cgroup)" "target add" add1.json add2.json add3.json
"$S" -j target set --comm sgschema-none --slo 3ms > set.json
schema "target set -j" "target set" set.json

"$S" -j status > st0.json		# just added: no interval yet
"$B/sgclient" -p "$PORT" -r 300 -d 2 -c 2 -j > client.json 2> client.err
"$S" -j status --interval 1s > st1.json

# a stand-in cpufreq policy and powercap zone where the host has none
STANDIN='
set -e
if ! ls -d /sys/devices/system/cpu/cpufreq/policy* > /dev/null 2>&1; then
	[ -d /sys/devices/system/cpu/cpufreq ] || exit 3
	mount -t tmpfs sgschema /sys/devices/system/cpu/cpufreq
	mkdir /sys/devices/system/cpu/cpufreq/policy0
fi
if ! cat /sys/class/powercap/*:*/energy_uj > /dev/null 2>&1; then
	if [ -d /sys/class/powercap ]; then pc=/sys/class/powercap; else pc=/sys/class; fi
	mount -t tmpfs sgschema $pc
	mkdir -p /sys/class/powercap/sgschema:0
	echo 1000000 > /sys/class/powercap/sgschema:0/energy_uj
	echo 262143328850 > /sys/class/powercap/sgschema:0/max_energy_range_uj
	echo package-0 > /sys/class/powercap/sgschema:0/name
fi
"$S" -j status
'
S="$S" unshare -m --propagation private sh -c "$STANDIN" > st2.json 2> st2.err
rc=$?
[ $rc -eq 0 ] || ktap_note "status over the stand-in sysfs: exit $rc, $(head -c 300 st2.err)"
schema "status -j: every documented key, object by object" --all-seen status st0.json st1.json st2.json

"$S" -j target list > list.json
schema "target list -j (pid, comm, cgroup)" --all-seen "target list" list.json
"$S" -j target del --comm sgschema-none > del.json
schema "target del -j" "target del" del.json
"$S" -j version > version.json
schema "version -j" version version.json
"$S" -j unload > unload.json
schema "unload -j" unload unload.json
ktap_check '[ "$(wc -l < client.json)" -eq 1 ] && grep -q "\"received\": [1-9]" client.json' \
	"the pid target served requests ($(head -c 160 client.json) $(head -c 160 client.err))"
ktap_finished
