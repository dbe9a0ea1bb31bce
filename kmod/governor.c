// SPDX-License-Identifier: GPL-2.0
/*
 * governor.c - the "slack" cpufreq governor: per-policy state, deferral
 * (kfunc/hook -> irq_work: decide; kthread worker: apply a change), modes,
 * staleness, and the cpufreq governor interface.  The control law itself
 * is in control.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpufreq.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "sg.h"
#include "ops.h"
#include "trace.h"

/*
 * Shortest interval the util rule measures load over: get_cpu_idle_time()
 * counts in microseconds, so 2 ms keeps its grain below 0.1 % of the load.
 */
#define SG_UTIL_MIN_NS		(2 * NSEC_PER_MSEC)
/*
 * While above min without targets, re-check this often even if the CPU went
 * idle (an idle CPU gets no scheduler hook calls): ten default rate limits,
 * at most 10 wakeups per second, and none once at min.
 */
#define SG_UTIL_RECHECK_NS	(100 * NSEC_PER_MSEC)
/*
 * A fast-switching policy whose worker runs off the policy's CPUs (its CPU
 * went offline) cannot switch from there: retry after a millisecond, about a
 * scheduler tick, rather than at once in a loop.
 */
#define SG_RETRY_NS		NSEC_PER_MSEC
/*
 * The stale check fires this long after the deadline, so that the age it
 * sees is surely past stale_ms (sg_collect() tests age > stale): the timer is
 * an hrtimer, so a microsecond is enough (a jiffy-based timer fired up to
 * 2 jiffies, 8 ms, late).
 */
#define SG_STALE_MARGIN_NS	NSEC_PER_USEC

static DEFINE_MUTEX(sg_global_lock);		/* sg_global_tunables */
static struct sg_tunables *sg_global_tunables;

/************************ Governor internals ***********************/

static u64 sg_stale_ns(const struct sg_tunables *t)
{
	return (u64)READ_ONCE(t->stale_ms) * NSEC_PER_MSEC;
}

static u64 sg_rate_ns(const struct sg_tunables *t)
{
	return (u64)READ_ONCE(t->rate_limit_us) * NSEC_PER_USEC;
}

/* The earlier of two deadlines, 0 meaning none. */
static u64 sg_earliest(u64 a, u64 b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return min(a, b);
}

/* A snapshot of the knobs the control law reads (atomic context: READ_ONCE). */
void sg_params(const struct sg_tunables *t, struct sg_law_params *p)
{
	p->setpoint = READ_ONCE(t->setpoint);
	p->kp = READ_ONCE(t->kp);
	p->ki = READ_ONCE(t->ki);
	p->kd = READ_ONCE(t->kd);
	p->deadband = READ_ONCE(t->deadband);
	p->sat_cv = READ_ONCE(t->sat_cv);
	p->ff_gain = READ_ONCE(t->ff_gain);
	p->slo_margin = READ_ONCE(t->slo_margin);
	p->slo_gain = READ_ONCE(t->slo_gain);
	p->safe_khz = READ_ONCE(t->safe_khz);
	p->stale_ns = sg_stale_ns(t);
}

/* What the law needs of @policy, whose limits may change under it (READ_ONCE). */
void sg_limits_of(const struct cpufreq_policy *policy, struct sg_limits *lim)
{
	u32 hw_min = policy->cpuinfo.min_freq, hw_max = policy->cpuinfo.max_freq;

	lim->min = READ_ONCE(policy->min);
	lim->max = READ_ONCE(policy->max);
	lim->cur = READ_ONCE(policy->cur);
	lim->hw_max = hw_max;
	lim->span = hw_max > hw_min ? hw_max - hw_min : max(hw_max, 1U);
}

/*
 * Hand every slot of the policy's CPUs to the control law (sg_ctl_add())
 * and set each CPU's idle constraint from its own fresh targets.  Called
 * under sp->lock.
 */
static void sg_collect(struct sg_policy *sp, const struct sg_law_params *p,
		       const struct sg_limits *lim, u64 now, struct sg_ctl_in *in)
{
	const struct sg_tunables *t = sp->tunables;
	u32 tight = READ_ONCE(t->idle_tight_slack), relax = READ_ONCE(t->idle_relax_slack);
	s32 lat = READ_ONCE(t->idle_latency_us);
	int cpu, i;

	sg_ctl_begin(in);
	for_each_cpu(cpu, sp->policy->cpus) {
		struct sg_cpu *c = per_cpu_ptr(&sg_cpu, cpu);
		struct sg_obs obs[SG_CPU_SLOTS];
		u32 cpu_min = U32_MAX;
		unsigned long flags;

		raw_spin_lock_irqsave(&c->lock, flags);
		memcpy(obs, c->obs, sizeof(obs));
		raw_spin_unlock_irqrestore(&c->lock, flags);

		for (i = 0; i < SG_CPU_SLOTS; i++) {
			sg_ctl_add(in, &obs[i], p, lim, now);
			if (sg_obs_fresh(&obs[i], now, p->stale_ns))
				cpu_min = min(cpu_min, obs[i].slack_f);
		}
		/*
		 * Idle depth from the averaged slack only: tight near saturation,
		 * none with room, else as it is.  Not from single windows, which
		 * collapse now and then at any load: each would forbid deep
		 * states until the average rose above idle_relax_slack.
		 */
		if (cpu_min != U32_MAX) {
			if (cpu_min < tight)
				sg_qos_want(sp, cpu, lat);
			else if (cpu_min > relax)
				sg_qos_want(sp, cpu, SG_QOS_NONE);
		}
	}
}

/*
 * Busiest CPU's busy share since the previous util step, thousandths, or
 * U32_MAX when no CPU has been measured for SG_UTIL_MIN_NS yet (the interval
 * then keeps growing until it has).
 */
static u32 sg_util_load(struct sg_policy *sp)
{
	u32 load = U32_MAX;
	int cpu;

	for_each_cpu(cpu, sp->policy->cpus) {
		struct sg_cpu *c = per_cpu_ptr(&sg_cpu, cpu);
		u64 wall, idle = get_cpu_idle_time(cpu, &wall, 0);
		u64 dw = wall - c->prev_wall_us, di = idle - c->prev_idle_us;
		u32 l;

		if (dw < SG_UTIL_MIN_NS / NSEC_PER_USEC || dw > wall)
			continue;
		c->prev_wall_us = wall;
		c->prev_idle_us = idle;
		l = dw > di ? div64_u64((dw - di) * SLACKGOV_ONE, dw) : 0;
		load = load == U32_MAX ? l : max(load, l);
	}
	return load;
}

/*
 * One decision for a policy: gather the targets, run the control law
 * (control.c), update stats and trace.  Called under sp->lock (atomic).
 * Returns the frequency to ask for; *urgent when it must not wait for the
 * rate limit; *next_ns: when to look again without a new sample (0: never).
 */
static unsigned int sg_eval(struct sg_policy *sp, u64 now, bool *urgent, u64 *next_ns)
{
	struct cpufreq_policy *policy = sp->policy;
	struct sg_signal sig = {
		.now = now,
		.last_ns = READ_ONCE(sp->last_sample_ns),
		.exit_ns = READ_ONCE(sp->last_exit_ns),
		.feed_ns = READ_ONCE(sg_feed_ns),
	};
	u64 hold = (u64)SG_SAFE_HOLD_MS * NSEC_PER_MSEC;
	struct sg_law_params p;
	struct sg_limits lim;
	struct sg_ctl_out out;
	struct sg_ctl_in in;
	u32 load = 0;
	int cpu;

	sg_params(sp->tunables, &p);
	sg_limits_of(policy, &lim);
	sg_collect(sp, &p, &lim, now, &in);
	if (sg_law_mode(&sp->law, &in, &sig, &p) == SG_MODE_UTIL)
		load = sg_util_load(sp);
	sg_law_step(&sp->law, &in, &sig, &p, &lim, load, &out);
	/* BPF ops, if any name this policy, may replace out.freq (ops.c) */
	sg_ops_step(sp, now, load, p.stale_ns, &out);

	*urgent = out.urgent;
	*next_ns = 0;
	switch (out.mode) {
	case SG_MODE_SAFE:
		if (out.entered_safe) {
			sp->fallbacks++;
			trace_slackgov_stale(policy->cpu, div_u64(now - sig.last_ns, NSEC_PER_USEC),
					     READ_ONCE(sp->tunables->stale_ms), out.freq,
					     sp->fallbacks);
		}
		*next_ns = sig.last_ns + p.stale_ns + hold;
		break;
	case SG_MODE_UTIL:
		/* signal gone for good, or the target exited: drop the idle constraints */
		if (out.left_targets)
			for_each_cpu(cpu, policy->related_cpus)
				sg_qos_want(sp, cpu, SG_QOS_NONE);
		if (out.freq > policy->min)
			*next_ns = now + SG_UTIL_RECHECK_NS;
		if (load == U32_MAX)
			load = 0;
		break;
	default:
		if (out.entered_boost)
			sp->boosts++;
		sp->last_slack = in.pid_e != S32_MAX ? in.slack : -1;
		if (in.slo_stamp) {
			sp->last_slo_us = in.lead.slo_us;
			sp->last_lat_us = in.lead.lat_q_us;
			sp->last_slo_k = sg_obs_k_milli(&in.lead);
		}
		*next_ns = in.newest_ns + p.stale_ns + SG_STALE_MARGIN_NS;
		break;
	}
	sp->decisions++;
	sp->last_freq = out.freq;
	sp->last_reason = out.reason;
	trace_slackgov_decision(policy->cpu, out.mode, &in, load, &out);
	return out.freq;
}

static bool sg_this_cpu_can_update(struct cpufreq_policy *policy)
{
	return cpumask_test_cpu(smp_processor_id(), policy->cpus) ||
	       policy->dvfs_possible_from_any_cpu;
}

/*
 * Decide, in atomic context (the irq_work of a sample or of ->limits(), or
 * the deadline timer), on any CPU.  A change is applied here when the
 * driver fast-switches and this CPU may switch the policy; otherwise it is
 * handed to the policy's worker (sp->work_freq).  As schedutil does, the
 * worker wakes only for a change: a decision that keeps the frequency, the
 * common case once a load is steady, costs no context switch on the
 * governed CPU (evaluation.rst measures what one a window cost).
 */
static void sg_update(struct sg_policy *sp)
{
	struct cpufreq_policy *policy = sp->policy;
	u64 now = ktime_get_ns(), next = 0, rate = sg_rate_ns(sp->tunables);
	bool urgent, defer = false;
	unsigned int freq;
	unsigned long flags;

	raw_spin_lock_irqsave(&sp->lock, flags);
	if (sp->stopping) {
		raw_spin_unlock_irqrestore(&sp->lock, flags);
		return;
	}
	freq = sg_eval(sp, now, &urgent, &next);
	/* as schedutil: the first change after new limits does not wait */
	if (READ_ONCE(sp->limits_changed)) {
		WRITE_ONCE(sp->limits_changed, false);
		urgent = true;
	}
	if (freq && cpufreq_driver_resolve_freq(policy, freq) != policy->cur) {
		if (!urgent && sp->last_change_ns && now - sp->last_change_ns < rate) {
			next = sg_earliest(next, sp->last_change_ns + rate);
		} else if (policy->fast_switch_enabled && sg_this_cpu_can_update(policy)) {
			cpufreq_driver_fast_switch(policy, freq);
			sp->last_change_ns = now;
		} else {
			sp->work_freq = freq;
			sp->last_change_ns = now;
			defer = true;
		}
	}
	raw_spin_unlock_irqrestore(&sp->lock, flags);

	if (defer)
		kthread_queue_work(sp->worker, &sp->work);
	if (next)
		hrtimer_start(&sp->timer, ns_to_ktime(max(next, now + 1)), HRTIMER_MODE_ABS);
}

/*
 * Apply sp->work_freq, in process context on the policy's CPUs: through
 * __cpufreq_driver_target() under work_lock, or, for a fast-switching
 * driver whose decision ran on a CPU that could not switch it, through the
 * fast switch under sp->lock (never both for one driver, so they cannot
 * race).
 */
static void sg_work_fn(struct kthread_work *work)
{
	struct sg_policy *sp = container_of(work, struct sg_policy, work);
	struct cpufreq_policy *policy = sp->policy;
	unsigned int freq;
	unsigned long flags;
	bool retry = false;

	raw_spin_lock_irqsave(&sp->lock, flags);
	freq = sp->stopping ? 0 : sp->work_freq;
	sp->work_freq = 0;
	if (freq && policy->fast_switch_enabled) {
		if (sg_this_cpu_can_update(policy))
			cpufreq_driver_fast_switch(policy, freq);
		else	/* the worker strayed off the policy: retry, not in a tight loop */
			retry = true;
		freq = 0;
	}
	raw_spin_unlock_irqrestore(&sp->lock, flags);

	if (freq) {
		mutex_lock(&sp->work_lock);
		__cpufreq_driver_target(policy, freq, CPUFREQ_RELATION_L);
		mutex_unlock(&sp->work_lock);
	}
	if (retry)
		hrtimer_start(&sp->timer, ns_to_ktime(ktime_get_ns() + SG_RETRY_NS),
			      HRTIMER_MODE_ABS);
}

/* A deadline (stale, rate limit, util re-check, retry) passed: decide now. */
static enum hrtimer_restart sg_timer_fn(struct hrtimer *timer)
{
	sg_update(container_of(timer, struct sg_policy, timer));
	return HRTIMER_NORESTART;
}

static void sg_irq_work_fn(struct irq_work *irq_work)
{
	sg_update(container_of(irq_work, struct sg_policy, irq_work));
}

/* A sample for the policy arrived (kfunc, tracing context) or limits changed. */
void sg_policy_kick(struct sg_policy *sp)
{
	irq_work_queue(&sp->irq_work);
}

/*
 * Scheduler hook (rq lock held: no wakeups here, hence the irq_work).  It
 * only paces the utilization rule: target samples and timers drive the
 * other modes.
 */
static void sg_update_util(struct update_util_data *data, u64 time, unsigned int flags)
{
	struct sg_cpu *c = container_of(data, struct sg_cpu, update_util);
	struct sg_policy *sp = c->hook_sp;
	u64 gap = max_t(u64, sg_rate_ns(sp->tunables), SG_UTIL_MIN_NS);

	if (READ_ONCE(sp->law.mode) != SG_MODE_UTIL ||
	    (s64)(time - READ_ONCE(sp->hook_ns)) < (s64)gap)
		return;
	WRITE_ONCE(sp->hook_ns, time);
	irq_work_queue(&sp->irq_work);
}

/********************** cpufreq governor interface *********************/

static struct cpufreq_governor sg_gov;

static void sg_put_tunables(struct sg_policy *sp)
{
	mutex_lock(&sg_global_lock);
	if (!gov_attr_set_put(&sp->tunables->attr_set, &sp->tunables_hook) &&
	    sp->tunables == sg_global_tunables)
		sg_global_tunables = NULL;
	mutex_unlock(&sg_global_lock);
	sp->tunables = NULL;
}

static int sg_get_tunables(struct sg_policy *sp)
{
	struct cpufreq_policy *policy = sp->policy;
	struct sg_tunables *t;
	int ret = 0;

	mutex_lock(&sg_global_lock);
	if (sg_global_tunables && !have_governor_per_policy()) {
		sp->tunables = sg_global_tunables;
		gov_attr_set_get(&sg_global_tunables->attr_set, &sp->tunables_hook);
		goto out;
	}
	t = sg_tunables_alloc(policy);
	if (!t) {
		ret = -ENOMEM;
		goto out;
	}
	gov_attr_set_init(&t->attr_set, &sp->tunables_hook);
	ret = sg_tunables_add(t, policy);
	if (ret) {
		/* the kobject's release frees t */
		kobject_put(&t->attr_set.kobj);
		goto out;
	}
	sp->tunables = t;
	if (!have_governor_per_policy())
		sg_global_tunables = t;
out:
	mutex_unlock(&sg_global_lock);
	return ret;
}

static int sg_init(struct cpufreq_policy *policy)
{
	struct sg_policy *sp;
	int ret;

	if (policy->governor_data)
		return -EBUSY;

	cpufreq_enable_fast_switch(policy);

	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp) {
		ret = -ENOMEM;
		goto disable_fast_switch;
	}
	sp->policy = policy;
	sp->last_slack = -1;
	sp->stopping = true;		/* until ->start */
	raw_spin_lock_init(&sp->lock);
	mutex_init(&sp->work_lock);
	init_irq_work(&sp->irq_work, sg_irq_work_fn);
	kthread_init_work(&sp->work, sg_work_fn);
	hrtimer_init(&sp->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	sp->timer.function = sg_timer_fn;
	INIT_WORK(&sp->qos_work, sg_qos_work_fn);
	init_completion(&sp->stats_released);

	sp->worker = kthread_create_worker(0, "slackgov/%u", cpumask_first(policy->related_cpus));
	if (IS_ERR(sp->worker)) {
		ret = PTR_ERR(sp->worker);
		goto free_sp;
	}
	/*
	 * Real-time so a busy CPU cannot starve the governor that should speed
	 * it up (schedutil uses SCHED_DEADLINE with a flag modules cannot use).
	 * On the policy's CPUs, so that a fast-switching driver can be switched
	 * from it.
	 */
	sched_set_fifo_low(sp->worker->task);
	set_cpus_allowed_ptr(sp->worker->task, policy->related_cpus);

	ret = sg_get_tunables(sp);
	if (ret)
		goto destroy_worker;

	ret = kobject_init_and_add(&sp->stats_kobj, &sg_stats_ktype, &policy->kobj, "%s",
				   have_governor_per_policy() ? "slack_stats" : "slack");
	if (ret)
		goto put_stats;

	policy->governor_data = sp;
	return 0;

put_stats:
	kobject_put(&sp->stats_kobj);
	wait_for_completion(&sp->stats_released);
	sg_put_tunables(sp);
destroy_worker:
	kthread_destroy_worker(sp->worker);
free_sp:
	mutex_destroy(&sp->work_lock);
	kfree(sp);
disable_fast_switch:
	cpufreq_disable_fast_switch(policy);
	pr_err("initialization failed (error %d)\n", ret);
	return ret;
}

static void sg_exit(struct cpufreq_policy *policy)
{
	struct sg_policy *sp = policy->governor_data;

	kobject_put(&sp->stats_kobj);
	wait_for_completion(&sp->stats_released);
	sg_put_tunables(sp);
	policy->governor_data = NULL;
	kthread_destroy_worker(sp->worker);
	mutex_destroy(&sp->work_lock);
	kfree(sp);
	cpufreq_disable_fast_switch(policy);
}

static int sg_start(struct cpufreq_policy *policy)
{
	struct sg_policy *sp = policy->governor_data;
	int cpu;

	memset(&sp->law, 0, sizeof(sp->law));
	sp->law.mode = SG_MODE_UTIL;
	sg_law_reset(&sp->law, policy->cur);
	sp->last_sample_ns = 0;
	sp->last_exit_ns = 0;
	sp->last_change_ns = 0;
	sp->hook_ns = 0;
	sp->ops_decisions = 0;
	sp->ops_fallbacks = 0;
	sp->limits_changed = false;
	WRITE_ONCE(sp->stopping, false);

	for_each_cpu(cpu, policy->cpus) {
		struct sg_cpu *c = per_cpu_ptr(&sg_cpu, cpu);
		unsigned long flags;
		u64 wall;

		raw_spin_lock_irqsave(&c->lock, flags);
		memset(c->obs, 0, sizeof(c->obs));
		raw_spin_unlock_irqrestore(&c->lock, flags);
		c->prev_idle_us = get_cpu_idle_time(cpu, &wall, 0);
		c->prev_wall_us = wall;
		c->qos_want = SG_QOS_NONE;
		c->qos_cur = SG_QOS_NONE;
		c->hook_sp = sp;
		rcu_assign_pointer(c->sp, sp);
		cpufreq_add_update_util_hook(cpu, &c->update_util, sg_update_util);
	}
	/* a first decision now: an idle CPU may not call the hook for a while */
	sg_policy_kick(sp);
	return 0;
}

static void sg_stop(struct cpufreq_policy *policy)
{
	struct sg_policy *sp = policy->governor_data;
	unsigned long flags;
	int cpu;

	raw_spin_lock_irqsave(&sp->lock, flags);
	WRITE_ONCE(sp->stopping, true);
	raw_spin_unlock_irqrestore(&sp->lock, flags);

	for_each_cpu(cpu, policy->cpus) {
		cpufreq_remove_update_util_hook(cpu);
		RCU_INIT_POINTER(per_cpu(sg_cpu, cpu).sp, NULL);
	}
	/* no kfunc or hook still sees sp after this */
	synchronize_rcu();
	/*
	 * Twice: a run that began before ->stopping was set may have queued
	 * more; runs that begin after it return at once.
	 */
	hrtimer_cancel(&sp->timer);
	irq_work_sync(&sp->irq_work);
	kthread_cancel_work_sync(&sp->work);
	hrtimer_cancel(&sp->timer);
	irq_work_sync(&sp->irq_work);
	kthread_cancel_work_sync(&sp->work);
	cancel_work_sync(&sp->qos_work);
	sg_qos_remove_policy(sp);
}

static void sg_limits(struct cpufreq_policy *policy)
{
	struct sg_policy *sp = policy->governor_data;

	if (!policy->fast_switch_enabled) {
		mutex_lock(&sp->work_lock);
		cpufreq_policy_apply_limits(policy);
		mutex_unlock(&sp->work_lock);
	}
	WRITE_ONCE(sp->limits_changed, true);
	/* re-decide within the new limits (the PID output is clamped to them) */
	if (!READ_ONCE(sp->stopping))
		sg_policy_kick(sp);
}

static struct cpufreq_governor sg_gov = {
	.name	= "slack",
	.owner	= THIS_MODULE,
	.flags	= CPUFREQ_GOV_DYNAMIC_SWITCHING,
	.init	= sg_init,
	.exit	= sg_exit,
	.start	= sg_start,
	.stop	= sg_stop,
	.limits	= sg_limits,
};

int sg_governor_init(void)
{
	int ret = sg_ops_register();

	return ret ?: cpufreq_register_governor(&sg_gov);
}

/*
 * Only reached when no policy uses the governor: cpufreq holds a module
 * reference for every policy that runs it (try_module_get() in
 * cpufreq_init_governor()), so rmmod fails with "in use" until every policy
 * is switched to another governor.
 */
void sg_governor_exit(void)
{
	cpufreq_unregister_governor(&sg_gov);
	sg_qos_remove_all();
}
