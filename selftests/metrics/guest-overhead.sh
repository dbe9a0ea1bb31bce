# SPDX-License-Identifier: GPL-2.0
# guest-overhead.sh - bench-overhead.sh runs in the guest (busybox sh) and
# reports both sets of syscall hooks side by side: a smoke run with tiny
# loops (BENCH_OVERHEAD_*), whose figures mean nothing and are not checked;
# what is checked is that every condition ran and every ratio is there.
. "$SG_TOP/selftests/lib/ktap.sh"

ktap_plan 6
BENCH_OVERHEAD_ITERS=1000 BENCH_OVERHEAD_RUNS=1 sh "$SG_TOP/selftests/metrics/bench-overhead.sh" 1 \
	> out 2> err
ktap_eq 0 $? "bench-overhead.sh runs to its end"
[ -s err ] && sed 's/^/# stderr: /' err | head -n 5
js=$(tail -n 1 out)
ktap_check 'echo "$js" | grep -q "^{\"kernel\": \"$(uname -r)\", .*}$"' "its last line is the JSON object"
ktap_check 'echo "$js" | grep -q "\"fentry\": true"' "this kernel's fentry hooks were measured"
for k in untraced_ratio untraced_sendrecv_ratio traced_ratio fe_untraced_ratio fe_untraced_sendrecv_ratio \
	 fe_traced_ratio fe_empty_ns; do
	echo "$js" | grep -qE "\"$k\": -?[0-9]+\.[0-9]+" || miss="${miss:-}$k "
done
ktap_eq "" "${miss:-}" "the goals' ratios of both hook sets and the fentry floor are numbers"
row=$(grep "send+recv pair, a target" out)
ktap_note "$row"
ktap_check 'echo "$row" | awk "{ exit !(NF == 16 && \$0 !~ / - /) }"' \
	"the table's counted-event row has all five conditions"
ktap_check '[ ! -e /sys/fs/bpf/slackgov ]' "it leaves nothing loaded"
ktap_finished
