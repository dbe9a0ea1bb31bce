// SPDX-License-Identifier: GPL-2.0
/*
 * echo_policy.bpf.c - test policy (guest-policy.sh) that writes parts of
 * its view into the value it returns, so that the slackgov_ops trace's ret
 * shows what the module handed over: hw_min_khz + cpus * 100000 + the
 * newest target's slot * 10000 + its slack + nr_targets (the test keeps
 * each part within its digits: one CPU of 0-9, slot 0-9, slack 0-999).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "slackgov_ops.h"

SEC("struct_ops/next_freq")
__s64 BPF_PROG(echo_next_freq, const struct slackgov_policy_view *v)
{
	__s64 f = (__s64)v->hw_min_khz + (__s64)v->cpus * 100000 + v->nr_targets;

	if (v->nr_targets)
		f += (__s64)v->targets[0].target * 10000 + v->targets[0].slack;
	return f;
}

SEC(".struct_ops")
struct slackgov_ops echo_policy = {
	.next_freq	= (void *)echo_next_freq,
	.name		= "echo",
};

char LICENSE[] SEC("license") = "GPL";
