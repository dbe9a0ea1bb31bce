// SPDX-License-Identifier: GPL-2.0
/*
 * garbage_policy.bpf.c - test policy (guest-policy.sh) that misbehaves:
 * by the decision's millisecond (now_ns >> 20, modulo 3) it returns an
 * error, a frequency 1000 times the hardware maximum, or the hardware
 * maximum (clamped when scaling_max_freq is lower).  The module must apply
 * the built-in law for the first two, count them, and clamp the third.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "slackgov_ops.h"

SEC("struct_ops/next_freq")
__s64 BPF_PROG(garbage_next_freq, const struct slackgov_policy_view *v)
{
	switch ((v->now_ns >> 20) % 3) {
	case 0:
		return -22;	/* -EINVAL */
	case 1:
		return (__s64)v->hw_max_khz * 1000;
	default:
		return v->hw_max_khz;
	}
}

SEC(".struct_ops")
struct slackgov_ops garbage_policy = {
	.next_freq	= (void *)garbage_next_freq,
	.name		= "garbage",
};

char LICENSE[] SEC("license") = "GPL";
