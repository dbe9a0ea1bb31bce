# SPDX-License-Identifier: GPL-2.0
# guest-dmesg.sh - the guest runner's dmesg pattern (BADPAT in selftests/vm/init):
# a clean boot matches nothing, the kernel command line matches nothing, and
# each kind of complaint it is meant to catch is caught.
. "$SG_TOP/selftests/lib/ktap.sh"

[ -n "${BADPAT:-}" ] || ktap_skip_all "not run by selftests/vm/init"
m() { printf '%s\n' "$1" | grep -cE "$BADPAT"; }

ktap_plan 4
ktap_eq 0 "$(m "$(cat /proc/cmdline)")" "the kernel command line does not match ($(cat /proc/cmdline))"
ktap_eq 0 "$SG_BOOT_BAD" "a clean boot matches nothing $(dmesg | grep -E "$BADPAT" | head -n 3 | tr '\n' '|')"
n=0
for l in "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [sgserver:123]" \
	"NMI watchdog: Watchdog detected hard LOCKUP on cpu 1" \
	"INFO: task sgserver:123 blocked for more than 120 seconds." \
	"WARNING: CPU: 0 PID: 1 at kmod/governor.c:100 sg_eval+0x10/0x20" \
	"BUG: kernel NULL pointer dereference, address: 0000000000000000" \
	"Oops: 0000 [#1] PREEMPT SMP NOPTI" \
	"rcu: INFO: rcu_sched self-detected stall on CPU" \
	"general protection fault, probably for non-canonical address"; do
	n=$((n + $(m "$l")))
done
ktap_eq 8 "$n" "each kind of complaint matches (lockups, warnings, bugs, oopses, stalls)"
ktap_eq 0 "$(m "Kernel command line: console=ttyS0 panic=-1 softlockup_panic=1 nmi_watchdog=1")" \
	"the lockup panics' own parameters do not match"
ktap_finished
