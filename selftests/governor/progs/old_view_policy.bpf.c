// SPDX-License-Identifier: GPL-2.0
/*
 * old_view_policy.bpf.c - test policy (guest-policy.sh) built as against an
 * older slackgov_ops.h, whose view target ended at load_khz: slackctl must
 * refuse it, since the module hands it a view whose targets are laid out
 * otherwise.  The types are declared here, not included, for that reason.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct slackgov_view_target {
	__u32 target, flags, age_us, fresh, slack, slack_f, cv, rps;
	__u32 slo_us, lat_q_us, svc_us, queue_us, f_khz, load_khz;
};

struct slackgov_policy_view {
	__u32 policy, nr_cpus;
	__u64 cpus;
	__u32 min_khz, max_khz, cur_khz, hw_min_khz, hw_max_khz, builtin_khz, mode, load;
	char reason[16];
	__u64 now_ns;
	__u32 nr_targets, pad;
	struct slackgov_view_target targets[8];
};

struct slackgov_ops {
	__s64 (*next_freq)(const struct slackgov_policy_view *v);
	__s32 (*init)(void);
	void (*exit)(void);
	__u32 flags, pad;
	__u64 policies;
	char name[16];
};

SEC("struct_ops/next_freq")
__s64 BPF_PROG(old_next_freq, const struct slackgov_policy_view *v)
{
	return v->nr_targets ? v->targets[0].load_khz : v->hw_min_khz;
}

SEC(".struct_ops")
struct slackgov_ops old_view_policy = {
	.next_freq	= (void *)old_next_freq,
	.name		= "old",
};

char LICENSE[] SEC("license") = "GPL";
