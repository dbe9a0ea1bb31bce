# SPDX-License-Identifier: GPL-2.0
# ktap.sh - KTAP output and assertions for slackgov's shell tests.
#
# Sourced by every selftests/*/{host,guest}-*.sh.  POSIX sh: runs under the
# guest's busybox ash and the host's bash.  A test prints a plan, one line
# per check, and exits through ktap_finished:
#
#	. "$SG_TOP/selftests/lib/ktap.sh"
#	ktap_plan 2
#	ktap_eq 3 "$(cat f)" "f holds 3"
#	ktap_check '[ -e /sys/x ]' "x exists"
#	ktap_finished
#
# Exit codes (kselftest): 0 all passed, 1 a check failed, 4 skipped.
# Cleanup: sg_defer "command" runs the command at exit, last deferred first.

. "$SG_TOP/selftests/lib/kmod.sh"

KTAP_N=0
KTAP_FAIL=0
KTAP_SKIP=0
KTAP_DEFERRED=""

KTAP_PLAN=""

ktap_plan() {
	KTAP_PLAN=$1
	echo "TAP version 13"
	echo "1..$1"
}

ktap_note() { echo "# $*"; }

ktap_ok() {
	KTAP_N=$((KTAP_N + 1))
	echo "ok $KTAP_N $1"
}

ktap_fail() {
	KTAP_N=$((KTAP_N + 1))
	KTAP_FAIL=$((KTAP_FAIL + 1))
	echo "not ok $KTAP_N $1"
}

ktap_skip() {
	KTAP_N=$((KTAP_N + 1))
	KTAP_SKIP=$((KTAP_SKIP + 1))
	echo "ok $KTAP_N $1 # SKIP $2"
}

# ktap_check 'shell condition' "description"
ktap_check() {
	if eval "$1"; then ktap_ok "$2"; else ktap_note "failed: $1"; ktap_fail "$2"; fi
}

# ktap_eq expected actual "description"
ktap_eq() {
	if [ "$1" = "$2" ]; then
		ktap_ok "$3"
	else
		ktap_note "expected '$1', got '$2'"
		ktap_fail "$3"
	fi
}

# ktap_cmp a op b "description": integer comparison, op one of -lt -le -eq -ne -ge -gt
ktap_cmp() {
	if [ "$1" "$2" "$3" ] 2>/dev/null; then
		ktap_ok "$4"
	else
		ktap_note "expected $1 $2 $3"
		ktap_fail "$4"
	fi
}

# ktap_run_ok "description" cmd args...: the command exits 0
ktap_run_ok() {
	_d=$1; shift
	if _out=$("$@" 2>&1); then ktap_ok "$_d"; else
		ktap_note "command failed ($?): $*"
		echo "$_out" | sed 's/^/#   /' | tail -n 20
		ktap_fail "$_d"
	fi
}

# ktap_run_fails "description" cmd args...: the command exits non-zero
ktap_run_fails() {
	_d=$1; shift
	if _out=$("$@" 2>&1); then
		ktap_note "command unexpectedly succeeded: $*"
		ktap_fail "$_d"
	else ktap_ok "$_d"; fi
}

# Skip the whole test (prerequisite missing): kselftest exit code 4.
ktap_skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit 4
}

# ktap_bail "why": a prerequisite the test itself needed failed (not a skip):
# TAP's "Bail out!", the deferred cleanups, exit 1
ktap_bail() {
	echo "Bail out! $*"
	sg_run_deferred
	exit 1
}

sg_defer() { KTAP_DEFERRED="$1
$KTAP_DEFERRED"; }

sg_run_deferred() {
	_cmds=$KTAP_DEFERRED
	KTAP_DEFERRED=""
	# each in a subshell: a command that does not parse ends only itself,
	# not the clean-up after it (the shell leaves on an eval syntax error)
	printf '%s\n' "$_cmds" | while IFS= read -r _c; do
		[ -n "$_c" ] && (eval "$_c") >/dev/null 2>&1 < /dev/null
	done
	return 0
}

trap 'sg_run_deferred' EXIT
trap 'sg_run_deferred; exit 1' INT TERM

ktap_finished() {
	sg_run_deferred
	if [ -n "$KTAP_PLAN" ] && [ "$KTAP_N" -ne "$KTAP_PLAN" ]; then
		echo "# planned $KTAP_PLAN checks, ran $KTAP_N"
		KTAP_FAIL=$((KTAP_FAIL + 1))
	fi
	echo "# totals: pass $((KTAP_N - KTAP_FAIL - KTAP_SKIP)) fail $KTAP_FAIL skip $KTAP_SKIP"
	[ "$KTAP_FAIL" -eq 0 ] && exit 0
	exit 1
}
