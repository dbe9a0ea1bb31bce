// SPDX-License-Identifier: GPL-2.0
/*
 * mid_policy.bpf.c - test policy (guest-policy.sh): always the middle of the
 * hardware range, which the built-in law never picks on an idle CPU, so a
 * policy frequency at mid shows that the ops' decisions are the ones applied.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "slackgov_ops.h"

SEC("struct_ops/next_freq")
__s64 BPF_PROG(mid_next_freq, const struct slackgov_policy_view *v)
{
	return ((__u64)v->hw_min_khz + v->hw_max_khz) / 2;
}

SEC(".struct_ops")
struct slackgov_ops mid_policy = {
	.next_freq	= (void *)mid_next_freq,
	.name		= "mid",
};

char LICENSE[] SEC("license") = "GPL";
