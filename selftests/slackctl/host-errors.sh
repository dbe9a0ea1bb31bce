# SPDX-License-Identifier: GPL-2.0
# host-errors.sh - argument and knob errors: clear message, non-zero exit,
# nothing written; stats --prom passes the exposition-format checker.
. "$SG_TOP/selftests/lib/ktap.sh"

S=$SG_BUILD/userctl/slackctl
[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e /sys/fs/bpf/slackgov ] && ktap_skip_all "slackgov is in use on this machine"

ktap_plan 12
ktap_run_fails "an unknown command fails" "$S" frobnicate
ktap_check '"$S" frobnicate 2>&1 | grep -q "^Error: unknown command"' "with an Error: line"
ktap_run_fails "an ambiguous prefix fails" "$S" s
ktap_run_ok "a unique prefix works" "$S" vers
ktap_run_fails "set of an unknown knob fails" "$S" set nosuchknob 1
ktap_run_fails "set --check: out of range" "$S" set --check setpoint 1001
ktap_run_fails "set --check: negative" "$S" set --check setpoint -5
ktap_run_fails "set --check: a time unit on a ratio" "$S" set --check setpoint 10ms
ktap_run_ok "set --check: a valid percentage" "$S" set --check setpoint 30%
ktap_check '"$S" set --check setpoint 1001 2>&1 | grep -q "range 0..1000\|0..1000"' "the error gives the range"
"$S" load >/dev/null
sg_defer "$S unload"
"$S" stats --prom > prom.txt
ktap_check 'python3 "$SG_TOP/selftests/slackctl/promcheck.py" prom.txt' "stats --prom is valid exposition format"
ktap_check 'grep -q "^slackgov_feed_enabled 0$" prom.txt' "it reports the feed off"
ktap_finished
