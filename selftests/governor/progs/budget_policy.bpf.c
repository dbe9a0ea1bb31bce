// SPDX-License-Identifier: GPL-2.0
/*
 * budget_policy.bpf.c - test policy (guest-policy.sh) that writes the SLO
 * part of its view into the value it returns, so that the slackgov_ops
 * trace's ret shows it: hw_min_khz + the newest target's budget_us * 10 +
 * its slo_q / 1000 (the test keeps the quantile's thousands within a digit).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "slackgov_ops.h"

SEC("struct_ops/next_freq")
__s64 BPF_PROG(budget_next_freq, const struct slackgov_policy_view *v)
{
	__s64 f = v->hw_min_khz;

	if (v->nr_targets)
		f += (__s64)v->targets[0].budget_us * 10 + v->targets[0].slo_q / 1000;
	return f;
}

SEC(".struct_ops")
struct slackgov_ops budget_policy = {
	.next_freq	= (void *)budget_next_freq,
	.name		= "budget",
};

char LICENSE[] SEC("license") = "GPL";
