// SPDX-License-Identifier: GPL-2.0
/*
 * count_policy.bpf.c - test policy (guest-policy.sh) that writes the
 * newest target's request counts into the value it returns, so that the
 * slackgov_ops trace's ret shows them: hw_min_khz + nr_lat * 10000 +
 * nr_over * 100 + 1 if over_us is the view's budget_us (the test keeps
 * nr_over under 100).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "slackgov_ops.h"

SEC("struct_ops/next_freq")
__s64 BPF_PROG(count_next_freq, const struct slackgov_policy_view *v)
{
	const struct slackgov_view_target *t = &v->targets[0];
	__s64 f = v->hw_min_khz;

	if (v->nr_targets)
		f += (__s64)t->nr_lat * 10000 + t->nr_over * 100 +
		     (t->over_us && t->over_us == t->budget_us);
	return f;
}

SEC(".struct_ops")
struct slackgov_ops count_policy = {
	.next_freq	= (void *)count_next_freq,
	.name		= "count",
};

char LICENSE[] SEC("license") = "GPL";
