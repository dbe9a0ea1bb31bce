# SPDX-License-Identifier: GPL-2.0
# host-hooks.sh - slackctl load's choice of syscall hooks on the host kernel
# (bpf/slackgov.bpf.c DOC "hooks"): where fentry is refused (this project's
# 6.18 hosts: EPERM), --hooks fentry fails saying so and pins nothing, and
# auto falls back to the tracepoints and says why in status (table, -j,
# the exposition); where fentry loads, auto picks it.  Bad --hooks values
# are refused and change nothing, loaded or not.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/slackctl/lib.sh"

[ -x "$S" ] || ktap_skip_all "slackctl not built"
[ -e $PIN ] && ktap_skip_all "$PIN exists: slackgov is in use on this machine"
sg_defer "$S unload"
links() { ls $PIN/links 2>/dev/null | tr '\n' ' '; }

ktap_plan 14
sc_fails 1 "load --hooks bogus" "--hooks takes auto, fentry or tracepoint, not 'bogus'" load --hooks bogus
sc_fails 1 "load --hooks with no value" "'--hooks' needs a value" load --hooks
ktap_check '[ ! -e $PIN ]' "a refused --hooks pins nothing"

if "$S" load --hooks fentry > f.out 2> f.err; then
	ktap_note "this kernel takes fentry"
	ktap_check 'grep -q "hooks: fentry$" f.out' "--hooks fentry loads and says so"
	ktap_check '"$S" status | grep -qx "hooks: fentry"' "... and status says fentry"
	"$S" unload > /dev/null
	ktap_run_ok "load (auto)" "$S" load
	ktap_check '"$S" status | grep -qx "hooks: fentry"' "auto picks fentry"
	"$S" -j status > j.out
	ktap_check 'grep -q "\"hooks\": \"fentry\"" j.out && ! grep -q fentry_error j.out' \
		"status -j says fentry, with no fentry error"
	ktap_check '[ -e $PIN/links/sg_fx_read ] && [ ! -e $PIN/links/sg_exit ]' \
		"the fentry programs are attached, not the tracepoints ($(links))"
else
	ktap_note "fentry refused: $(cat f.err)"
	ktap_check 'grep -q "^Error: cannot load the fentry hooks: .*--hooks auto or tracepoint use the syscall tracepoints" f.err' \
		"--hooks fentry fails saying why and what to use"
	ktap_check '[ ! -e $PIN ] && ! ls -d /sys/fs/bpf/slackgov-loading-* > /dev/null 2>&1' \
		"... and pins nothing"
	ktap_run_ok "load (auto)" "$S" load
	ktap_check '"$S" status | grep -qx "hooks: tracepoint (fentry refused: .*)"' \
		"auto falls back to the tracepoints and the table says why"
	"$S" -j status > j.out
	ktap_check 'grep -q "\"hooks\": \"tracepoint\"" j.out && grep -q "\"fentry_error\": \"" j.out' \
		"status -j says tracepoint and the fentry error"
	ktap_check '[ -e $PIN/links/sg_exit ] && ! ls $PIN/links | grep -q "^sg_f[ex]_"' \
		"the tracepoint programs are attached, no fentry one ($(links))"
fi
ktap_check '"$S" stats --prom | grep -qx "slackgov_hooks_info{hooks=\"$(sed -n "s/.*\"hooks\": \"\([a-z]*\)\".*/\1/p" j.out)\"} 1"' \
	"the exposition's slackgov_hooks_info agrees"
before=$(links)
sc_fails 1 "load --hooks bogus while loaded" "--hooks takes auto, fentry or tracepoint" load --hooks bogus
ktap_eq "$before" "$(links)" "... changes nothing"
"$S" unload > /dev/null
ktap_run_ok "load --hooks tracepoint" "$S" load --hooks tracepoint
ktap_check '"$S" status | grep -qx "hooks: tracepoint (--hooks tracepoint)"' \
	"status says the tracepoints were asked for"
ktap_finished
