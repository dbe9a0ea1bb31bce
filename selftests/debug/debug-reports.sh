# SPDX-License-Identifier: GPL-2.0
# debug-reports.sh - make check-debug's last test: what the debug kernel's
# checkers reported over the whole boot, by checker, each count asserted 0:
# lockdep (lock order, recursion, irq-safety, RCU usage, unbalanced
# unlocks), sleeping in atomic context (and preemptible smp_processor_id()),
# KASAN, KFENCE, UBSAN, debug objects, KCSAN data races in slackgov's or its
# test drivers' paths (a race elsewhere in the kernel is counted apart and
# only noted), kmemleak after a scan (slackgov's modules are out by now, so
# everything they allocated is either freed or leaked), and lockdep still
# on at the end (a report turns it off, and it would then see no more).
# The per-test dmesg count of selftests/vm/init fails the test that was
# running when a report appeared; this names the checker and counts.
. "$SG_TOP/selftests/lib/ktap.sh"

KML=/sys/kernel/debug/kmemleak
case $(uname -r) in
*-sgdebug|*-sgkcsan) ;;
*) ktap_skip_all "not a debug kernel ($(uname -r))" ;;
esac

ktap_plan 9
dmesg > dmesg.txt
cnt() { grep -cE "$1" dmesg.txt; }
# the first lines of lockdep's reports (kernel/locking/lockdep.c, rcu's
# lockdep_rcu_suspicious())
LOCKDEP='possible circular locking dependency|possible recursive locking|inconsistent lock state|possible irq lock inversion|HARDIRQ-safe -> HARDIRQ-unsafe|SOFTIRQ-safe -> SOFTIRQ-unsafe|suspicious RCU usage|bad unlock balance|lock held when returning to user space|held lock freed|lock held at task exit|BUG: MAX_LOCKDEP|BUG: looking up invalid subclass|DEBUG_LOCKS_WARN_ON'
SLEEP='BUG: sleeping function called from invalid context|BUG: scheduling while atomic|BUG: using smp_processor_id\(\) in preemptible|BUG: using __this_cpu_[a-z]*\(\) in preemptible|BUG: workqueue leaked'
ktap_eq 0 "$(cnt "$LOCKDEP")" "lockdep reports"
ktap_eq 0 "$(cnt "$SLEEP")" "sleeping-in-atomic and preemptible per-CPU reports"
ktap_eq 0 "$(cnt 'BUG: KASAN:')" "KASAN reports"
ktap_eq 0 "$(cnt 'BUG: KFENCE:')" "KFENCE reports"
ktap_eq 0 "$(cnt 'UBSAN:')" "UBSAN reports"
ktap_eq 0 "$(cnt 'ODEBUG:')" "debug objects reports"
# a KCSAN report is a block from "BUG: KCSAN:" to its closing "=====" line:
# ours when a frame in it is in one of our modules or BPF programs.  Except
# the timekeeping latch: 6.12's __ktime_get_fast_ns() reads it with
# raw_read_seqcount_latch(), which lacks the kcsan_atomic_next() of
# read_seqcount_latch() beside it in include/linux/seqlock.h, so every
# bpf_ktime_get_ns() of our programs that overlaps timekeeping_update()'s
# write of the other copy is reported: the latch's designed overlap,
# counted apart
awk '/BUG: KCSAN:/ { inr = 1; ours = 0; all++
		latch = /ktime_get_mono_fast_ns \/ timekeeping_update|timekeeping_update \/ ktime_get_mono_fast_ns/
		next }
	inr && /\[(slackgov|vfreq|vidle)\]|sg_[a-z_]+\+0x|slackgov_[a-z_]+\+0x/ { ours = 1 }
	inr && /=====/ { if (ours && latch) nl++; else if (ours) n++; inr = 0 }
	END { printf "%d %d %d\n", n, nl, all }' dmesg.txt > kcsan.txt
read ours latch all < kcsan.txt
ktap_note "KCSAN: $ours report(s) in slackgov's paths, $latch of the timekeeping latch read from them, $all in all"
ktap_eq 0 "$ours" "KCSAN reports in slackgov's or its test drivers' paths"
# kmemleak: objects must be unreferenced for two scans and 5 s old
if [ -w $KML ]; then
	echo scan > $KML; sleep 6; echo scan > $KML
	cat $KML > kmemleak.txt
	n=$(grep -c '^unreferenced object' kmemleak.txt)
	ours=$(grep -cE '\[(slackgov|vfreq|vidle)\]|slackgov|sg_[a-z_]+\+0x' kmemleak.txt)
	[ "$n" -gt 0 ] && head -n 60 kmemleak.txt | sed 's/^/# kmemleak: /'
	ktap_note "kmemleak: $n suspect(s) since the boot's were cleared, $ours line(s) naming slackgov"
	ktap_eq 0 "$n" "kmemleak suspects after a scan"
else
	ktap_fail "kmemleak suspects after a scan (no $KML)"
fi
ktap_check 'grep -qE "^ *debug_locks: *1$" /proc/lockdep_stats' "lockdep still on at the end (debug_locks 1)"
for f in LOCKDEP SLEEP; do
	eval "p=\$$f"
	grep -E -A25 "$p" dmesg.txt | head -n 80 | sed "s/^/# $f: /"
done
grep -E -A25 'BUG: (KASAN|KFENCE|KCSAN)|UBSAN:|ODEBUG:' dmesg.txt | head -n 120 | sed 's/^/# report: /'
ktap_finished
