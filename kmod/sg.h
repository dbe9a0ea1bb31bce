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
#include "control.h"

/* ---- tunables (sysfs.c) -------------------------------------------------- */

/**
 * struct sg_tunables - the knobs in /sys/devices/system/cpu/cpufreq/slack/,
 * one unsigned int per line of SLACKGOV_GOV_KNOBS (slackgov.h: units,
 * defaults, ranges), plus
 * @attr_set:		sysfs directory and the policies sharing the set
 *
 * One set shared by every policy unless the platform has governors per
 * policy (then one set per policy, in policyN/slack/).  Written under
 * attr_set.update_lock by sysfs, read with READ_ONCE() by the decision
 * path (atomic context) into a struct sg_law_params snapshot.
 */
struct sg_tunables {
	struct gov_attr_set	attr_set;
#define SG_TUNABLE_FIELD(name, def, lo, hi, unit)	unsigned int name;
	SLACKGOV_GOV_KNOBS(SG_TUNABLE_FIELD)
#undef SG_TUNABLE_FIELD
};

/* ---- per CPU ------------------------------------------------------------------ */

/*
 * Targets remembered per CPU.  Several targets can share a CPU; the policy
 * needs the most constrained one, so the latest sample of each of the last
 * few targets is kept (a fifth target replaces the least recently reported).
 * Four covers a server process, its sidecar and a couple of batch jobs.
 */
#define SG_CPU_SLOTS		4

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
 * Locking: @lock (raw) serialises the decision (law state, mode, stats,
 * @work_freq) between the irq_work, the timer and the worker; @work_lock
 * (mutex) serialises __cpufreq_driver_target() with ->limits(); the stats
 * are read lockless.
 */
struct sg_policy {
	struct cpufreq_policy	*policy;
	struct sg_tunables	*tunables;
	struct list_head	tunables_hook;

	raw_spinlock_t		lock;
	struct sg_law		law;
	u64			last_sample_ns;	/* newest sample stamp, set by the kfunc */
	u64			last_exit_ns;	/* newest EXITED sample stamp, set by the kfunc */
	u64			last_change_ns;
	u64			hook_ns;	/* rq clock of the last hook-triggered step */
	unsigned int		work_freq;	/* a change for the worker to apply, 0: none */
	bool			limits_changed;	/* next change skips the rate limit */
	bool			stopping;	/* set by ->stop: runs return at once */

	/* deferral: kfunc/hook -> irq_work, deadlines -> timer: decide; worker: apply */
	struct irq_work		irq_work;
	struct kthread_worker	*worker;
	struct kthread_work	work;
	struct hrtimer		timer;
	struct mutex		work_lock;	/* __cpufreq_driver_target() vs ->limits() */
	struct work_struct	qos_work;

	/* stats (policyN/slack/), written under @lock */
	u64			decisions;
	u64			boosts;
	u64			fallbacks;
	s32			last_slack;	/* -1: none yet */
	unsigned int		last_freq;
	enum sg_reason		last_reason;
	u32			last_slo_us;	/* the deciding SLO target's SLO, lat_q, K */
	u32			last_lat_us;
	u32			last_slo_k;	/* thousandths */
	u64			ops_decisions;	/* decided by the BPF ops (ops.c) */
	u64			ops_fallbacks;	/* the ops' value refused: built-in law */

	struct kobject		stats_kobj;
	struct completion	stats_released;
};

/* main.c / kfunc.c / governor.c */
int sg_kfunc_init(void);
int sg_governor_init(void);
void sg_governor_exit(void);
void sg_policy_kick(struct sg_policy *sp);
void sg_params(const struct sg_tunables *t, struct sg_law_params *p);
void sg_limits_of(const struct cpufreq_policy *policy, struct sg_limits *lim);

/* sysfs.c */
struct sg_tunables *sg_tunables_alloc(struct cpufreq_policy *policy);
int sg_tunables_add(struct sg_tunables *t, struct cpufreq_policy *policy);
extern const struct kobj_type sg_stats_ktype;
/* Stamp of the newest sample stored for any policy (kfunc.c). */
extern u64 sg_feed_ns;

/* idle.c */
void sg_qos_work_fn(struct work_struct *work);
void sg_qos_want(struct sg_policy *sp, int cpu, s32 us);
void sg_qos_remove_policy(struct sg_policy *sp);
void sg_qos_remove_all(void);

#endif
