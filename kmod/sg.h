/* SPDX-License-Identifier: GPL-2.0 */
/* sg.h - what the module's files share (internal to kmod/): tunables, per-policy, per-CPU. */
#ifndef _SLACKGOV_INTERNAL_H
#define _SLACKGOV_INTERNAL_H

#include <linux/cpufreq.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kobject.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pm_qos.h>
#include <linux/sched/cpufreq.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <slackgov.h>

/* ---- tunables (sysfs.c) -------------------------------------------------- */

/**
 * struct sg_tunables - the knobs in /sys/devices/system/cpu/cpufreq/slack/.
 * @attr_set:		sysfs directory and the policies sharing the set
 * @setpoint:		slack setpoint, thousandths
 * @kp:			PID gains, x1000
 * @ki:			integral gain
 * @kd:			derivative gain
 * @deadband:		error band without action, thousandths
 * @sat_cv:		cv above which a target is saturated, thousandths (0 = off)
 * @stale_ms:		no sample for this long: safe frequency
 * @safe_khz:		the safe frequency (0 = policy max)
 * @rate_limit_us:	shortest interval between frequency changes
 * @idle_tight_slack:	slack below which a CPU's idle depth is limited
 * @idle_relax_slack:	slack above which the limit is removed
 * @idle_latency_us:	the limit, us
 * @ff_gain:		feed-forward gain from rps, x1000
 *
 * One set shared by every policy unless the platform has governors per
 * policy (then one set per policy, in policyN/slack/).  Written under
 * attr_set.update_lock by sysfs, read with READ_ONCE() by the decision
 * path (atomic context).  Units and ranges: sysfs.c and governor.rst.
 */
struct sg_tunables {
	struct gov_attr_set	attr_set;
	unsigned int		setpoint;
	unsigned int		kp;
	unsigned int		ki;
	unsigned int		kd;
	unsigned int		deadband;
	unsigned int		sat_cv;
	unsigned int		stale_ms;
	unsigned int		safe_khz;
	unsigned int		rate_limit_us;
	unsigned int		idle_tight_slack;
	unsigned int		idle_relax_slack;
	unsigned int		idle_latency_us;
	unsigned int		ff_gain;
};

/* ---- control law (control.c) ----------------------------------------------- */

/* Why a decision came out as it did: per-policy stat last_reason, trace events. */
enum sg_reason {
	SG_R_NONE,
	SG_R_PID,		/* PID step on fresh target samples */
	SG_R_DEADBAND,		/* error inside the deadband: output held */
	SG_R_HOLD,		/* targets fresh but no new window: output held */
	SG_R_SAT_CV,		/* saturation: cv above sat_cv: max */
	SG_R_SAT_SLACK,		/* saturation: slack collapsed: max */
	SG_R_SAT_DRAIN,		/* after saturation, queue not drained yet: max */
	SG_R_STALE,		/* samples stopped: safe frequency */
	SG_R_LOST,		/* stale for SG_SAFE_HOLD_MS: back to the util rule */
	SG_R_UTIL,		/* no targets: utilization rule */
	SG_R_UTIL_MAX,		/* no targets, CPU (nearly) fully busy: max */
	SG_R_NR,
};

extern const char * const sg_reason_names[SG_R_NR];

enum sg_mode {
	SG_MODE_UTIL,		/* no target on the policy: utilization rule */
	SG_MODE_SLACK,		/* PID on target slack */
	SG_MODE_SAFE,		/* target samples stopped: safe frequency */
	SG_MODE_BOOST,		/* a target saturated: max */
	SG_MODE_NR,
};

extern const char * const sg_mode_names[SG_MODE_NR];

/**
 * struct sg_ctl_in - what the control law sees of one policy at one step.
 * @slack:	filtered slack of the most constrained target (largest setpoint
 *		deficit), see control.c step 1
 * @raw:	that target's slack in its latest window alone
 * @seq:	that target's window sequence number (trace: counts windows)
 * @setpoint:	that target's effective setpoint (its own, or the knob)
 * @cv:		largest cv among the fresh targets
 * @rps:	requests per second of the most constrained target
 * @target:	its slot
 * @targets:	distinct fresh targets on the policy's CPUs
 * @saturated:	enum sg_reason SG_R_SAT_* if any fresh target is saturated, else 0
 * @fresh:	a sample arrived since the last step (else the output is held)
 */
struct sg_ctl_in {
	u32	slack;
	u32	raw;
	u64	seq;
	u32	setpoint;
	u32	cv;
	u32	rps;
	u32	target;
	u32	targets;
	u32	saturated;
	bool	fresh;
};

/**
 * struct sg_pid - controller state of one policy (velocity form).
 * @u_khz:	the continuous output, kHz (the driver rounds it up to a table step)
 * @e1:		error of the previous step (after the deadband), thousandths
 * @e2:		error of the step before
 * @rps1:	rps of the previous step, for feed-forward (0 = none)
 * @target1:	target of the previous step (feed-forward only within a target)
 */
struct sg_pid {
	s64	u_khz;
	s32	e1, e2;
	u32	rps1;
	u32	target1;
};

/* The terms of one step, for the trace event (kHz). */
struct sg_ctl_out {
	s32	err;
	s64	p, i, d, ff;
	s64	u;		/* the PID's output (freq differs while boosting) */
	unsigned int freq;
	enum sg_reason reason;
};

void sg_control_reset(struct sg_pid *pid, unsigned int cur_khz);
void sg_control_step(const struct sg_tunables *t, struct sg_pid *pid,
		     const struct sg_ctl_in *in, const struct cpufreq_policy *policy,
		     struct sg_ctl_out *out);
unsigned int sg_util_freq(const struct cpufreq_policy *policy, u32 load, enum sg_reason *reason);

/* ---- per CPU ------------------------------------------------------------------ */

/*
 * Targets remembered per CPU.  Several targets can share a CPU; the policy
 * needs the most constrained one, so the latest sample of each of the last
 * few targets is kept (a fifth target replaces the least recently reported).
 * Four covers a server process, its sidecar and a couple of batch jobs.
 */
#define SG_CPU_SLOTS		4

/* Latest sample of one target on one CPU (only what the governor reads). */
struct sg_obs {
	u64	stamp_ns;	/* ktime_get_ns() when stored; 0 = empty */
	u64	seq;		/* the window's sequence number */
	u32	target;
	u32	slack;		/* the latest window's slack */
	u32	slack_f;	/* slack filtered over windows (control.c step 1) */
	u32	cv;
	u32	setpoint;
	u32	rps;
	u32	flags;
};

/*
 * Slack filter (control.c step 1): time constant of the exponential average
 * of a target's window slack, weighted by window length.  40 ms = four
 * default 10 ms windows: with ~1 ms requests a single window holds a handful
 * of requests and its slack swings over the whole 0..1000 range at any load
 * (measured under performance in make demo), while 40 ms holds 10-30
 * requests at 300-700 req/s and still follows a load step within a few
 * windows.  A window longer than SG_SLACK_LEN_MAX_NS counts as that long (an
 * idle window covering seconds replaces the average, no more); a previous
 * value older than SG_SLACK_RESET_NS says nothing about now and is dropped.
 */
#define SG_SLACK_TAU_NS		(40 * NSEC_PER_MSEC)
#define SG_SLACK_LEN_MAX_NS	NSEC_PER_SEC
#define SG_SLACK_RESET_NS	(10 * SG_SLACK_TAU_NS)

/* Value of sg_cpu.qos_want/qos_cur: no request on this CPU. */
#define SG_QOS_NONE		(-1)

struct sg_policy;

/**
 * struct sg_cpu - per-CPU state.
 * @lock:	raw spinlock for @obs: the kfunc writes (tracing context), the
 *		decision path reads; nothing else is done under it
 * @obs:	latest samples of up to SG_CPU_SLOTS targets that ran here
 * @sp:		the policy running the governor on this CPU (RCU), NULL when none
 * @update_util: scheduler hook (util rule cadence)
 * @hook_sp:	the policy, for the hook (set before the hook is added)
 * @prev_idle_us: get_cpu_idle_time() at the last util step
 * @prev_wall_us: wall time at the last util step
 * @qos_want:	resume latency the decision path wants (us, or SG_QOS_NONE)
 * @qos_cur:	what the request holds now (owned by the policy's qos work)
 * @qos_req:	the PM QoS request on get_cpu_device(cpu)
 */
struct sg_cpu {
	raw_spinlock_t		lock;
	struct sg_obs		obs[SG_CPU_SLOTS];
	struct sg_policy __rcu	*sp;
	struct update_util_data	update_util;
	struct sg_policy	*hook_sp;
	u64			prev_idle_us;
	u64			prev_wall_us;
	s32			qos_want;
	s32			qos_cur;
	struct dev_pm_qos_request qos_req;
};

DECLARE_PER_CPU(struct sg_cpu, sg_cpu);

/* ---- per policy (governor.c) ------------------------------------------------- */

/*
 * struct sg_policy - governor state of one cpufreq policy.
 *
 * Locking: @lock (raw) serialises the decision (PID state, mode, stats) between
 * the worker and the fast-switch hook path; @work_lock (mutex) serialises
 * __cpufreq_driver_target() with ->limits(); the stats are read lockless.
 */
struct sg_policy {
	struct cpufreq_policy	*policy;
	struct sg_tunables	*tunables;
	struct list_head	tunables_hook;

	raw_spinlock_t		lock;
	struct sg_pid		pid;
	enum sg_mode		mode;
	u64			consumed_ns;	/* newest sample stamp the PID has used */
	u64			last_sample_ns;	/* newest sample stamp, set by the kfunc */
	u64			last_eval_ns;
	u64			last_change_ns;
	u64			hook_ns;	/* rq clock of the last hook-triggered step */
	bool			limits_changed;
	bool			stopping;	/* set by ->stop: runs return at once */

	/* deferral: kfunc/hook -> irq_work -> worker; deadlines: timer -> worker */
	struct irq_work		irq_work;
	struct kthread_worker	*worker;
	struct kthread_work	work;
	struct hrtimer		timer;
	struct mutex		work_lock;
	struct work_struct	qos_work;

	/* stats (policyN/slack/), written under @lock */
	u64			decisions;
	u64			boosts;
	u64			fallbacks;
	s32			last_slack;	/* -1: none yet */
	unsigned int		last_freq;
	enum sg_reason		last_reason;

	struct kobject		stats_kobj;
	struct completion	stats_released;
};

/* After the stale timeout, the safe frequency is held this long before the
 * policy goes back to the utilization rule (BPF side gone for good).
 */
#define SG_SAFE_HOLD_MS		5000

/* main.c / kfunc.c / governor.c */
int sg_kfunc_init(void);
int sg_governor_init(void);
void sg_governor_exit(void);
void sg_policy_kick(struct sg_policy *sp);

/* sysfs.c */
struct sg_tunables *sg_tunables_alloc(struct cpufreq_policy *policy);
int sg_tunables_add(struct sg_tunables *t, struct cpufreq_policy *policy);
extern const struct kobj_type sg_stats_ktype;

/* idle.c */
void sg_qos_work_fn(struct work_struct *work);
void sg_qos_want(struct sg_policy *sp, int cpu, s32 us);
void sg_qos_remove_policy(struct sg_policy *sp);
void sg_qos_remove_all(void);

#endif
