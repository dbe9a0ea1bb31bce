# SPDX-License-Identifier: GPL-2.0
# lib.sh - helpers of the slackctl tests (sourced after ktap.sh; POSIX sh, so
# that the guest's busybox ash runs them too).
#
#   sc_fails RC "desc" "message" ARGS...   slackctl ARGS fails twice: as text
#	(exit RC, one "Error: ...message..." line on stderr, nothing on stdout)
#	and with -j (exit RC, {"error": "...message..."} on stdout, nothing on
#	stderr; on the host also checked by jsoncheck.py).  One ktap line.
#	$SC_AS, if set, is a command prefix (another user, namespace, ...).
#   sc_json "desc" ARGS...   slackctl -j ARGS and -p ARGS succeed with one
#	compact document and the same document indented (host: jsoncheck.py).
#	Leaves the -j output in j.out.  For a command that changes state, $SC_UNDO
#	(if set) is evaluated between the -p and the -j run.

S=$SG_BUILD/userctl/slackctl
PIN=/sys/fs/bpf/slackgov
SC_AS=${SC_AS:-}
JC="$SG_TOP/selftests/slackctl/jsoncheck.py"
[ "$SG_WHERE" = host ] && command -v python3 >/dev/null 2>&1 && SC_PY=1 || SC_PY=""

sc_fails() {
	_want=$1 _d=$2 _m=$3
	shift 3
	$SC_AS "$S" "$@" > f.out 2> f.err
	_rc=$?
	$SC_AS "$S" -j "$@" > j.out 2> j.err
	_jrc=$?
	_why=""
	[ "$_rc" -eq "$_want" ] || _why="$_why exit $_rc, want $_want;"
	[ -s f.out ] && _why="$_why stdout: $(head -c 200 f.out);"
	{ [ "$(wc -l < f.err)" -eq 1 ] && grep -q '^Error: ' f.err && grep -qF -- "$_m" f.err; } ||
		_why="$_why stderr: $(head -c 300 f.err);"
	[ "$_jrc" -eq "$_want" ] || _why="$_why -j exit $_jrc;"
	[ -s j.err ] && _why="$_why -j stderr: $(head -c 200 j.err);"
	{ grep -q '^{"error": "' j.out && grep -qF -- "$_m" j.out; } ||
		_why="$_why -j stdout: $(head -c 300 j.out);"
	if [ -n "$SC_PY" ] && ! python3 "$JC" error j.out 2> jc.err; then
		_why="$_why $(cat jc.err);"
	fi
	if [ -z "$_why" ]; then ktap_ok "$_d"; else
		ktap_note "slackctl $*:$_why"
		ktap_fail "$_d"
	fi
}

sc_json() {
	_d=$1
	shift
	"$S" -p "$@" > p.out 2> p.err
	_prc=$?
	[ -n "${SC_UNDO:-}" ] && eval "$SC_UNDO" > /dev/null 2>&1
	"$S" -j "$@" > j.out 2> j.err
	_rc=$?
	_why=""
	[ "$_rc" -eq 0 ] || _why="$_why -j exit $_rc: $(head -c 300 j.err);"
	[ "$_prc" -eq 0 ] || _why="$_why -p exit $_prc: $(head -c 300 p.err);"
	if [ -n "$SC_PY" ]; then
		python3 "$JC" compact j.out 2> jc.err || _why="$_why $(cat jc.err);"
		python3 "$JC" pretty p.out 2> jc.err || _why="$_why $(cat jc.err);"
	else
		[ "$(wc -l < j.out)" -eq 1 ] || _why="$_why -j not one line;"
		grep -q '^    "' p.out || _why="$_why -p not indented;"
	fi
	if [ -z "$_why" ]; then ktap_ok "$_d"; else
		ktap_note "slackctl -j/-p $*:$_why"
		ktap_fail "$_d"
	fi
}

# sc_pins: the pinned tree, one path per line (empty when nothing is pinned)
sc_pins() { [ -e $PIN ] && find $PIN | sort; }
