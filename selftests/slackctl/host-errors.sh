# SPDX-License-Identifier: GPL-2.0
# host-errors.sh - slackctl's error paths on the host kernel (no module):
# usage and knob errors, not loaded, already loaded, module absent, not root
# or without the capabilities, bpffs not mounted, an incomplete pin folder, a
# load killed while pinning.  Each: the message as text
# and as {"error": ...} with -j, the exit status, and the state afterwards.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
[ -e /sys/module/slackgov ] && ktap_skip_all "slackgov.ko is loaded: this test is for a kernel without it"
command -v setpriv > /dev/null && command -v unshare > /dev/null || ktap_skip_all "setpriv/unshare missing"
sg_defer "$S unload"
ours() { bpftool prog show | grep -cE "name sg_[a-z_]+ " ; }

ktap_plan 79

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

# -- numbers (issue 14): one strict parser, no wrap-around, no sign, units once
sc_fails 1 "a percent that overflows when scaled" "setpoint: 1844674407370955162% is out of range 0..1000" \
	set --check setpoint 1844674407370955162%
sc_fails 1 "a minus sign after a space" "window: bad value ' -18446744073709551615'" \
	set --check window ' -18446744073709551615'
sc_fails 1 "--pid with a minus sign after a space" "--pid: bad value ' -18446744073709551615'" \
	target add --pid ' -18446744073709551615'
sc_fails 1 "--setpoint that overflows" "setpoint: 1844674407370955200% is out of range" \
	target add --comm x --setpoint 1844674407370955200%
sc_fails 1 "a number above 2^64 - 1" "window: 18446744073709551616 is out of range" \
	set --check window 18446744073709551616
sc_fails 1 "trailing whitespace" "stale_ms: bad value '5 ': trailing whitespace" set --check stale_ms '5 '
sc_fails 1 "a decimal that is not a whole number of the unit" "stale_ms: bad value '0.5ms': not a whole number of ms" \
	set --check stale_ms 0.5ms
ktap_eq '{"window": 1500000, "written": false}' "$("$S" -j set --check window 1.5ms)" "1.5ms is 1500000 ns"
ktap_eq '{"setpoint": 205, "written": false}' "$("$S" -j set --check setpoint 20.5%)" "20.5% is 205 thousandths"

# -- messages that misled (issue 14)
sc_fails 2 "'stat' is ambiguous and the candidates are named" "ambiguous command 'stat' (status, stats)" stat
sc_fails 2 "--json=1: the option is named as given" "unknown option '--json=1'" --json=1 status
sc_fails 1 "an extra word after a target is unexpected, not a missing value" \
	"target add: unexpected 'extra'" target add --comm y extra
sc_fails 1 "an option without its value" "target add: '--pid' needs a value" target add --pid
sc_fails 1 "help with an unknown topic fails, as version with one does" "help: no help for 'extra'" help extra
ktap_check '"$S" help target 2>&1 | grep -q "^Usage: slackctl target add" &&
	"$S" target help 2>&1 | grep -q "TARGET_REF := "' "help target and target help print the target grammar"
sc_fails 2 "target with an unknown command" "target: unknown command 'frob': try 'slackctl target help'" target frob
# one line, the escape and the newline as \xNN (sc_fails wants exactly one stderr line)
sc_fails 1 "an escape sequence and a newline in an argument are not echoed raw" \
	"x1b[2J" set --check setpoint "$(printf '\033[2J\n.')"
ktap_check 'grep -qF "setpoint: bad value '"'"'\\x1b[2J\\x0a.'"'"': not a number" f.err && ! grep -q "$(printf "\033")" f.err' \
	"they are written as \\xNN"

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

# CAP_BPF and CAP_PERFMON but not root: root's 0700 pins are out of reach, and
# that is what is said (it was "not loaded")
CAPUSER="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon"
SC_AS=$CAPUSER sc_fails 1 "target list with CAP_BPF, not root: a permission error" \
	"cannot see /sys/fs/bpf/slackgov: Permission denied" target list
SC_AS=$CAPUSER sc_fails 1 "target del likewise" "cannot see /sys/fs/bpf/slackgov: Permission denied" \
	target del --comm sgserver
SC_AS=$CAPUSER sc_fails 1 "status likewise" "cannot see /sys/fs/bpf/slackgov: Permission denied" status
SC_AS=$CAPUSER sc_fails 1 "stats likewise" "cannot see /sys/fs/bpf/slackgov: Permission denied" stats
SC_AS=$CAPUSER sc_fails 1 "get of a BPF knob likewise" "cannot see /sys/fs/bpf/slackgov: Permission denied" get window
SC_AS=$CAPUSER sc_fails 1 "set of a BPF knob likewise" "cannot see /sys/fs/bpf/slackgov: Permission denied" set window 30ms
ktap_check '[ "$list" = "$("$S" target list)" ] && [ "$pins" = "$(sc_pins)" ]' "targets and pins unchanged"

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

nmaps=$(ls $PIN | grep -vc '^links$')
"$S" unload > /dev/null
ktap_check '[ ! -e $PIN ]' "unload removes every pin"

# -- an empty pin folder (an unload cut between its last unlink and rmdir):
# status and load agree on what to do
mkdir $PIN
sc_fails 1 "target list with an empty pin folder: incomplete" \
	"/sys/fs/bpf/slackgov is incomplete (a load or unload was interrupted): run 'slackctl unload', then 'slackctl load'" \
	target list
sc_fails 1 "status says the same" "/sys/fs/bpf/slackgov is incomplete" status
ktap_run_ok "load takes the place of an empty folder" "$S" load
"$S" unload > /dev/null

# -- a load killed (SIGKILL) in its pinning phase: no half-made pin folder;
# the next load or unload removes what it left
stages() { ls /sys/fs/bpf | grep -c '^slackgov-loading-' ; }
killed_load() {	# killed_load N: a load stopped after N pins, then killed
	SLACKCTL_TEST_STOP_AFTER_PINS=$1 "$S" load > /dev/null 2>&1 &
	_lp=$!
	for _i in $(seq 1 100); do
		[ "$(awk '{print $3}' /proc/$_lp/stat 2> /dev/null)" = T ] && break
		sleep 0.1
	done
	kill -9 $_lp
	wait $_lp 2> /dev/null
}
killed_load 3
ktap_check '[ ! -e $PIN ] && [ "$(stages)" -eq 1 ]' "a load killed after 3 pins leaves no pin folder, only its staging folder"
sc_fails 1 "slackctl says not loaded" "not loaded: run 'slackctl load' first" target list
ktap_run_ok "the next load works" "$S" load
ktap_eq 0 "$(stages)" "and removed the killed load's staging folder"
"$S" unload > /dev/null
killed_load $((nmaps + 2))
ktap_cmp "$(ours)" -ge 2 "a load killed after attaching 2 programs: they run, pinned in its staging folder"
"$S" unload > /dev/null 2>&1
for i in 1 2 3 4 5 6 7 8 9 10; do [ "$(ours)" -eq 0 ] && break; sleep 0.3; done
ktap_check '[ "$(stages)" -eq 0 ] && [ "$(ours)" -eq 0 ] && [ ! -e $PIN ]' \
	"unload removes them: no staging folder, no program attached"
ktap_finished
