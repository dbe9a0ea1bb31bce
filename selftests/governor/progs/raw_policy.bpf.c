// SPDX-License-Identifier: GPL-2.0
/*
 * raw_policy.bpf.c - test policy (guest-policy.sh): mid_policy's middle of
 * the hardware range with SLACKGOV_OPS_F_RAW, so that it decides in the
 * boost and safe modes too, where the built-in law would ask for max.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "slackgov_ops.h"

SEC("struct_ops/next_freq")
__s64 BPF_PROG(raw_next_freq, const struct slackgov_policy_view *v)
{
	return ((__u64)v->hw_min_khz + v->hw_max_khz) / 2;
}

SEC(".struct_ops")
struct slackgov_ops raw_policy = {
	.next_freq	= (void *)raw_next_freq,
	.flags		= SLACKGOV_OPS_F_RAW,
	.name		= "raw",
};

char LICENSE[] SEC("license") = "GPL";
