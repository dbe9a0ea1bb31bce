/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * slackgov_ops.h - struct slackgov_ops: a BPF program that supplies the
 * governor's control law (kernels with module struct_ops, Linux 6.9+).
 *
 * Shared by the module (kmod/ops.c: it registers the type and calls it),
 * BPF policies (bpf/util_policy.bpf.c and the tests' policies: they
 * implement it) and slackctl.  The layouts are plain: a policy reads the
 * view at the offsets compiled here, no CO-RE, so that slackctl can load it
 * without relocating it (userctl/policy.c says why).  The callback
 * contract: DOC "policy ops" in kmod/ops.c (Documentation/governor.rst).
 */
#ifndef _UAPI_SLACKGOV_OPS_H
#define _UAPI_SLACKGOV_OPS_H

#if defined(__KERNEL__)
#include <linux/types.h>
#elif !defined(__VMLINUX_H__)
#include <linux/types.h>
#endif

/* Length of slackgov_ops.name with its NUL (the sysfs "law" file shows it). */
#define SLACKGOV_OPS_NAME_LEN		16

/*
 * Targets a view carries: the most recent per target among the policy's
 * CPU slots (4 per CPU in the module), newest first.  Eight covers a server
 * process, its sidecars and a few batch jobs on one policy.
 */
#define SLACKGOV_VIEW_TARGETS		8

/*
 * slackgov_ops.flags: SLACKGOV_OPS_F_RAW - the ops also decide while the
 * built-in law is in its safe (stale samples) or boost (a target saturated)
 * mode.  Without it those two rules keep priority and next_freq is not
 * called then.
 */
#define SLACKGOV_OPS_F_RAW		(1U << 0)
#define SLACKGOV_OPS_F_ALL		SLACKGOV_OPS_F_RAW

/* slackgov_policy_view.mode: the built-in law's mode for this decision */
enum slackgov_view_mode {
	SLACKGOV_VIEW_UTIL	= 0,	/* no target: utilization rule */
	SLACKGOV_VIEW_SLACK	= 1,	/* slack PID on targets without an SLO */
	SLACKGOV_VIEW_SLO	= 2,	/* an SLO target decides */
	SLACKGOV_VIEW_SAFE	= 3,	/* samples stopped: safe frequency */
	SLACKGOV_VIEW_BOOST	= 4,	/* a target saturated: max */
	SLACKGOV_VIEW_OTHER	= 15,	/* a mode this header does not know */
};

/**
 * struct slackgov_view_target - the latest window of one target
 * @target:	target slot (slackctl target list)
 * @flags:	SLACKGOV_SAMPLE_* of the window
 * @age_us:	time since the window was reported
 * @fresh:	1 if younger than the stale_ms knob
 * @slack:	the window's slack, thousandths (1000: idle window)
 * @slack_f:	slack filtered over windows, thousandths
 * @cv:		the window's coefficient of variation, thousandths
 * @rps:	requests per second
 * @slo_us:	the target's SLO (0: none)
 * @lat_q_us:	the latency at the SLO's quantile over the target's recent
 *		requests (the BPF side's horizon, up to 2000 requests or 2 s;
 *		0: none timed yet)
 * @svc_us:	mean service time of the window's requests
 * @queue_us:	mean queueing time of the window's requests
 * @f_khz:	the policy's frequency when the window was reported
 * @load_khz:	filtered work rate (1 - slack) * f, kHz: the target keeps a
 *		CPU busy load_khz / f of the time at frequency f
 * @slo_q:	the SLO's quantile, SLACKGOV_Q_ONE (10000) units (0: no SLO)
 * @budget_us:	T, where the built-in law holds the percentile of the
 *		target's requests: @slo_us less the target's margin, or the
 *		slo_margin knob's (0: no SLO)
 * @nr_lat:	requests the window timed
 * @nr_over:	of them, those longer than @over_us: the count the built-in
 *		law's outer loop steps K on (kmod/control.c,
 *		DOC "slack control law", step 2)
 * @over_us:	the budget the BPF side counted @nr_over against: @budget_us,
 *		unless the SLO or a margin changed since (0: no SLO)
 */
struct slackgov_view_target {
	__u32 target;
	__u32 flags;
	__u32 age_us;
	__u32 fresh;
	__u32 slack;
	__u32 slack_f;
	__u32 cv;
	__u32 rps;
	__u32 slo_us;
	__u32 lat_q_us;
	__u32 svc_us;
	__u32 queue_us;
	__u32 f_khz;
	__u32 load_khz;
	__u32 slo_q;
	__u32 budget_us;
	__u32 nr_lat;
	__u32 nr_over;
	__u32 over_us;
};

/**
 * struct slackgov_policy_view - what next_freq() sees of one policy (read-only)
 * @policy:	the policy's number (cpufreq/policyN: its first CPU)
 * @nr_cpus:	CPUs in the policy
 * @cpus:	bit N set: CPU N is in the policy (CPUs 0-63 only)
 * @min_khz, @max_khz: the policy's limits now (the result is clamped to them)
 * @cur_khz:	the frequency it runs at
 * @hw_min_khz, @hw_max_khz: cpuinfo limits (a result outside them is refused)
 * @builtin_khz: the built-in law's proposal for this decision
 * @mode:	the built-in law's mode (enum slackgov_view_mode)
 * @load:	busiest CPU's busy share since the last util step, thousandths
 *		(util mode only, else 0)
 * @reason:	why the built-in law proposed builtin_khz ("slo", "util"...)
 * @now_ns:	ktime_get_ns() of the decision
 * @nr_targets:	valid entries of @targets
 * @targets:	latest window of each target on the policy's CPUs, newest first
 */
struct slackgov_policy_view {
	__u32 policy;
	__u32 nr_cpus;
	__u64 cpus;
	__u32 min_khz;
	__u32 max_khz;
	__u32 cur_khz;
	__u32 hw_min_khz;
	__u32 hw_max_khz;
	__u32 builtin_khz;
	__u32 mode;
	__u32 load;
	char reason[16];
	__u64 now_ns;
	__u32 nr_targets;
	__u32 pad;
	struct slackgov_view_target targets[SLACKGOV_VIEW_TARGETS];
};

/**
 * struct slackgov_ops - a BPF control law (struct_ops)
 * @next_freq:	the frequency to ask for, kHz, or a negative errno; called
 *		at every decision of the policies named (DOC "policy ops")
 * @init:	called once when the ops register; an error refuses them
 * @exit:	called once after they unregister (no next_freq runs any more)
 * @flags:	SLACKGOV_OPS_F_*
 * @policies:	bit N: policyN; 0 = every policy (policies 64 and up: only 0)
 * @name:	shown as "bpf:<name>" in policyN/slack/law and the trace
 */
struct slackgov_ops {
	__s64 (*next_freq)(const struct slackgov_policy_view *v);
	__s32 (*init)(void);
	void (*exit)(void);
	__u32 flags;
	__u32 pad;
	__u64 policies;
	char name[SLACKGOV_OPS_NAME_LEN];
};

#endif /* _UAPI_SLACKGOV_OPS_H */
