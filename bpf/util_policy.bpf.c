// SPDX-License-Identifier: GPL-2.0
/*
 * util_policy.bpf.c - a sample slackgov policy (struct slackgov_ops): the
 * lowest frequency at which every target's predicted utilization stays
 * under UP_UTIL.  Load: slackctl policy load util_policy.bpf.o.
 *
 * A target's window says how busy it kept a CPU (1 - slack) at the
 * frequency it ran at (f_w): the view's load_khz = (1 - slack) * f_w.  If
 * its work per request does not depend on the frequency, its utilization at
 * f is load_khz / f, so the lowest f that keeps it under UP_UTIL is
 * load_khz / UP_UTIL.  The policy takes the largest over the fresh targets;
 * without one, the same rule on the busiest CPU's load (util mode).  The
 * module clamps the result to the policy's limits and keeps the stale and
 * boost rules (no SLACKGOV_OPS_F_RAW).
 *
 * No maps, globals or subprograms: slackctl loads policies without
 * relocating them (userctl/policy.c says why).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "slackgov_ops.h"

/*
 * Target utilization, thousandths: 800 leaves 20 % for bursts between two
 * windows, as the 80 % tipping point of schedutil (util * 1.25).
 */
#define UP_UTIL		800

static __always_inline __u64 need_khz(__u64 load_khz)
{
	return load_khz * 1000 / UP_UTIL;
}

SEC("struct_ops/next_freq")
__s64 BPF_PROG(util_next_freq, const struct slackgov_policy_view *v)
{
	__u64 f = 0;
	int i;

	if (v->mode == SLACKGOV_VIEW_UTIL) {
		f = need_khz((__u64)v->load * v->cur_khz / 1000);
	} else {
#pragma unroll
		for (i = 0; i < SLACKGOV_VIEW_TARGETS; i++) {
			if (i < v->nr_targets && v->targets[i].fresh &&
			    need_khz(v->targets[i].load_khz) > f)
				f = need_khz(v->targets[i].load_khz);
		}
		/* targets, none fresh yet: what the built-in law says */
		if (!f)
			f = v->builtin_khz;
	}
	/* within the limits: the module would clamp, but 0 is refused */
	if (f < v->min_khz)
		f = v->min_khz;
	if (f > v->max_khz)
		f = v->max_khz;
	return f;
}

SEC(".struct_ops")
struct slackgov_ops util_policy = {
	.next_freq	= (void *)util_next_freq,
	.name		= "util80",
};

char LICENSE[] SEC("license") = "GPL";
