# SPDX-License-Identifier: GPL-2.0
# host-errors.sh - slackctl's error paths on the host kernel (no module):
# usage and knob errors, not loaded, already loaded, module absent, not root
# or without the capabilities, bpffs not mounted.  Each: the message as text
# and as {"error": ...} with -j, the exit status, and the state afterwards.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
[ -e /sys/module/slackgov ] && ktap_skip_all "slackgov.ko is loaded: this test is for a kernel without it"
command -v setpriv > /dev/null && command -v unshare > /dev/null || ktap_skip_all "setpriv/unshare missing"
sg_defer "$S unload"
ours() { bpftool prog show | grep -cE "name sg_[a-z_]+ " ; }

ktap_plan 45

# -- usage (exit 2) and knob errors: nothing to load for them
sc_fails 2 "an unknown command" "unknown command 'frobnicate'" frobnicate
sc_fails 2 "an ambiguous prefix" "ambiguous command 's'" s
ktap_run_ok "a unique prefix works" "$S" vers
sc_fails 2 "an unknown option" "unknown option '-x'" -x status
"$S" > f.out 2> f.err; rc=$?; "$S" -j > j.out 2> j.err; jrc=$?
ktap_check '[ $rc -eq 2 ] && [ $jrc -eq 2 ] && grep -q "^Usage: slackctl" f.err && [ ! -s f.out ] &&
	python3 "$JC" error j.out && grep -q "missing command" j.out' "no command: usage (text), an error (-j)"
sc_fails 1 "set of an unknown knob" "unknown knob 'nosuchknob'" set nosuchknob 1
sc_fails 1 "get of an unknown knob" "unknown knob 'nosuchknob'" get nosuchknob
sc_fails 1 "set --check: out of range, with the range" "setpoint: 1001 is out of range 0..1000" \
	set --check setpoint 1001
sc_fails 1 "set --check: negative" "setpoint: bad value '-5'" set --check setpoint -5
sc_fails 1 "set --check: a time unit on a ratio" "setpoint: bad value '10ms'" set --check setpoint 10ms
sc_fails 1 "set --check: a fraction of the unit" "stale_ms: bad value '1500us'" set --check stale_ms 1500us
ktap_eq '{"setpoint": 300, "written": false}' "$("$S" -j set --check setpoint 30%)" \
	"set --check: 30% is 300 thousandths, not written"
sc_fails 1 "a governor knob without the governor" "setpoint: the governor is not active" set setpoint 30%

# -- not loaded: every command that needs the pins says so and pins nothing
sc_fails 1 "status before load" "not loaded: run 'slackctl load' first" status
sc_fails 1 "stats before load" "not loaded: run 'slackctl load' first" stats --prom
sc_fails 1 "unload before load" "not loaded (no /sys/fs/bpf/slackgov)" unload
sc_fails 1 "target list before load" "not loaded: run 'slackctl load' first" target list
sc_fails 1 "target add before load" "not loaded: run 'slackctl load' first" target add --comm sgserver
sc_fails 1 "target del before load" "not loaded: run 'slackctl load' first" target del --comm sgserver
sc_fails 1 "set of a BPF knob before load" "the BPF side is not loaded: run 'slackctl load'" set window 20ms
sc_fails 1 "get of a BPF knob before load" "the BPF side is not loaded: run 'slackctl load'" get window
ktap_check '[ ! -e $PIN ]' "none of them pinned anything"

# -- module absent: --feed on refuses, auto loads metrics only
sc_fails 1 "load --feed on without the module" "--feed on: slackgov.ko is not loaded (modprobe slackgov)" \
	load --feed on
sc_fails 1 "load --feed with a bad mode" "load: --feed takes auto, on or off, not 'bogus'" load --feed bogus
ktap_check '[ ! -e $PIN ] && [ "$(ours)" -eq 0 ]' "neither pinned nor attached anything"

# -- not root, or root without the capabilities: nothing pinned
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
SC_AS=$NOBODY sc_fails 1 "load as an unprivileged user" \
	"permission denied: run slackctl as root (it needs CAP_BPF and CAP_SYS_ADMIN)" load
SC_AS="setpriv --bounding-set=-sys_admin,-bpf,-perfmon" sc_fails 1 \
	"load as root without CAP_SYS_ADMIN, CAP_BPF, CAP_PERFMON" \
	"permission denied: root without CAP_SYS_ADMIN (or CAP_BPF and CAP_PERFMON)" load
ktap_check '[ ! -e $PIN ] && [ "$(ours)" -eq 0 ]' "neither pinned nor attached anything"
# CAP_BPF + CAP_PERFMON are enough: the check is not stricter than the kernel
setpriv --bounding-set=-sys_admin "$S" -v load > /dev/null 2> err.txt
ktap_check '[ -e $PIN/links/sg_exit ] && "$S" unload > /dev/null' \
	"load works with CAP_BPF and CAP_PERFMON but no CAP_SYS_ADMIN $(grep -iv libbpf err.txt | head -n 3)"
ktap_check 'grep -q "^libbpf: " err.txt' "-v shows libbpf's log"

# -- loaded: an unprivileged user changes nothing
"$S" load > /dev/null
"$S" target add --comm sgserver > /dev/null
"$S" set window 20ms
pins=$(sc_pins) list=$("$S" target list)
SC_AS=$NOBODY sc_fails 1 "target add as an unprivileged user" "permission denied" target add --comm other
SC_AS=$NOBODY sc_fails 1 "set window as an unprivileged user" "permission denied" set window 30ms
SC_AS=$NOBODY sc_fails 1 "unload as an unprivileged user" "permission denied" unload
SC_AS=$NOBODY sc_fails 1 "status as an unprivileged user" "permission denied" status
SC_AS=$NOBODY sc_fails 1 "set of a governor knob as an unprivileged user" \
	"permission denied: run slackctl as root (it writes the governor's sysfs files)" set setpoint 30%
ktap_check '[ "$list" = "$("$S" target list)" ] && [ "$("$S" get window)" = 20000000 ] &&
	[ "$pins" = "$(sc_pins)" ]' "targets, window and pins unchanged"

# -- already loaded: the second load fails and leaves the first one as it was
n=$(ours)
sc_fails 1 "a second load" "already loaded (/sys/fs/bpf/slackgov exists): run 'slackctl unload' first" load
ktap_check '[ "$pins" = "$(sc_pins)" ] && [ "$(ours)" -eq "$n" ] && [ "$list" = "$("$S" target list)" ]' \
	"pins, programs and targets unchanged"

# -- bpffs not mounted (a private mount namespace without it): the mount
# command is offered, nothing is created there, the real pins are untouched
cat > nobpffs <<'EOF'
#!/bin/sh
# run "$@" in a private mount namespace where /sys/fs/bpf is not mounted
exec unshare -m --propagation private sh -c \
	'while mountpoint -q /sys/fs/bpf; do umount /sys/fs/bpf || exit 99; done; "$@"; rc=$?
	 ls -A /sys/fs/bpf > nobpffs.ls; exit $rc' sh "$@"
EOF
chmod +x nobpffs
SC_AS=./nobpffs sc_fails 1 "load without bpffs" \
	"bpffs is not mounted at /sys/fs/bpf: mount -t bpf bpf /sys/fs/bpf" load
ktap_check '[ -e nobpffs.ls ] && [ ! -s nobpffs.ls ]' "nothing was created under /sys/fs/bpf there"
SC_AS=./nobpffs sc_fails 1 "status without bpffs" "bpffs is not mounted" status
SC_AS=./nobpffs sc_fails 1 "target add without bpffs" "bpffs is not mounted" target add --comm other
SC_AS=./nobpffs sc_fails 1 "unload without bpffs" "bpffs is not mounted" unload
ktap_check '[ "$pins" = "$(sc_pins)" ] && [ "$list" = "$("$S" target list)" ]' \
	"the real pins and targets are untouched"

"$S" unload > /dev/null
ktap_check '[ ! -e $PIN ]' "unload removes every pin"
ktap_finished
