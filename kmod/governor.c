// SPDX-License-Identifier: GPL-2.0
/*
 * governor.c - the "slack" cpufreq governor: per-policy state, deferral
 * (kfunc/hook -> irq_work -> kthread worker), modes, staleness, and the
 * cpufreq governor interface.  The control law itself is in control.c.
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
 * A window whose slack is below this (thousandths) counts as collapsed:
 * saturation (control.c step 2).  50: the workers waited under 5 % of the
 * window, i.e. they were busy through it; a fixed level rather than a share
 * of the setpoint, since it tells a queue that is building, not how much
 * room a target wants.
 */
#define SG_COLLAPSE_SLACK	50
/*
 * A boost is held until the queue drained only while the averaged slack is
 * below setpoint / 2: a deficit that large is not the noise of single
 * windows (one collapses now and then at any load, and an average held at
 * the setpoint is below it about half of the time).  The measurement
 * against holding below the setpoint: control.c, step 2.
 */
#define SG_DRAIN_CONFIRM_DIV	2
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

/*
 * Steps 1 and 2 of the control law (control.c): gather the fresh targets on
 * the policy's CPUs, pick the most constrained, detect saturation, and set
 * each CPU's idle constraint from its own targets.  Returns the number of
 * distinct fresh targets.  Called under sp->lock.
 */
static u32 sg_collect(struct sg_policy *sp, u64 now, struct sg_ctl_in *in)
{
	const struct sg_tunables *t = sp->tunables;
	u32 def_sp = READ_ONCE(t->setpoint), sat_cv = READ_ONCE(t->sat_cv);
	u32 tight = READ_ONCE(t->idle_tight_slack), relax = READ_ONCE(t->idle_relax_slack);
	s32 lat = READ_ONCE(t->idle_latency_us);
	DECLARE_BITMAP(seen, SLACKGOV_MAX_TARGETS);
	u64 stale = sg_stale_ns(t), best_stamp = 0;
	s32 best_e = S32_MAX;
	int cpu, i;

	memset(in, 0, sizeof(*in));
	bitmap_zero(seen, SLACKGOV_MAX_TARGETS);
	for_each_cpu(cpu, sp->policy->cpus) {
		struct sg_cpu *c = per_cpu_ptr(&sg_cpu, cpu);
		struct sg_obs obs[SG_CPU_SLOTS];
		u32 cpu_min = U32_MAX;
		unsigned long flags;

		raw_spin_lock_irqsave(&c->lock, flags);
		memcpy(obs, c->obs, sizeof(obs));
		raw_spin_unlock_irqrestore(&c->lock, flags);

		for (i = 0; i < SG_CPU_SLOTS; i++) {
			const struct sg_obs *o = &obs[i];
			u32 spj;
			s32 e;

			if (!o->stamp_ns || (s64)(now - o->stamp_ns) > (s64)stale)
				continue;
			spj = o->setpoint ?: def_sp;
			e = (s32)o->slack_f - (s32)spj;
			if (!__test_and_set_bit(o->target, seen))
				in->targets++;
			if (e < best_e || (e == best_e && o->stamp_ns > best_stamp)) {
				best_e = e;
				best_stamp = o->stamp_ns;
				in->slack = o->slack_f;
				in->raw = o->slack;
				in->seq = o->seq;
				in->setpoint = spj;
				in->rps = o->rps;
				in->target = o->target;
			}
			in->cv = max(in->cv, o->cv);
			if (sat_cv && o->cv > sat_cv)
				in->saturated = SG_R_SAT_CV;
			else if (o->slack < SG_COLLAPSE_SLACK && !in->saturated)
				in->saturated = SG_R_SAT_SLACK;
			cpu_min = min(cpu_min, o->slack_f);
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
	/*
	 * The PID steps once per new window of the target it follows: other
	 * targets' windows do not add steps (N targets would multiply the gain).
	 */
	if (in->targets && best_stamp > sp->consumed_ns) {
		in->fresh = true;
		sp->consumed_ns = best_stamp;
	}
	return in->targets;
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
 * One decision for a policy: choose the mode, run the control law or the
 * util rule, update stats and trace.  Called under sp->lock (atomic).
 * Returns the frequency to ask for; *urgent when it must not wait for the
 * rate limit; *next_ns: when to look again without a new sample (0: never).
 */
static unsigned int sg_eval(struct sg_policy *sp, u64 now, bool *urgent, u64 *next_ns)
{
	struct cpufreq_policy *policy = sp->policy;
	const struct sg_tunables *t = sp->tunables;
	u64 stale = sg_stale_ns(t), hold = (u64)SG_SAFE_HOLD_MS * NSEC_PER_MSEC;
	u64 last = READ_ONCE(sp->last_sample_ns);
	s64 age = last ? (s64)(now - last) : 0;
	struct sg_ctl_out out = {};
	struct sg_ctl_in in;
	u32 load = 0;
	int cpu;

	*urgent = false;
	*next_ns = 0;
	WRITE_ONCE(sp->limits_changed, false);

	if (sg_collect(sp, now, &in)) {
		enum sg_mode mode;

		/*
		 * control.c step 2: hold the boost until a window drained the
		 * queue, unless the average does not confirm a deficit (a lone
		 * noisy window)
		 */
		if (!in.saturated && sp->mode == SG_MODE_BOOST &&
		    (!in.fresh || (in.raw < in.setpoint &&
				   in.slack < in.setpoint / SG_DRAIN_CONFIRM_DIV)))
			in.saturated = SG_R_SAT_DRAIN;
		mode = in.saturated ? SG_MODE_BOOST : SG_MODE_SLACK;

		/*
		 * From the util rule the PID starts at the current frequency;
		 * after a gap (safe mode) it resumes where it was: a gap says
		 * nothing about the load, and restarting from the safe max would
		 * cost a slow walk down (control.c step 8).
		 */
		if (sp->mode == SG_MODE_UTIL)
			sg_control_reset(&sp->pid, policy->cur);
		sg_control_step(t, &sp->pid, &in, policy, &out);
		if (mode == SG_MODE_BOOST && sp->mode != SG_MODE_BOOST)
			sp->boosts++;
		sp->mode = mode;
		sp->last_slack = in.slack;
		*urgent = mode == SG_MODE_BOOST;
		*next_ns = last + stale + SG_STALE_MARGIN_NS;
	} else if (last && age < (s64)(stale + hold)) {
		unsigned int safe = READ_ONCE(t->safe_khz) ?: policy->max;

		if (sp->mode != SG_MODE_SAFE) {
			sp->fallbacks++;
			trace_slackgov_stale(policy->cpu, div_u64(age, NSEC_PER_USEC),
					     READ_ONCE(t->stale_ms), safe, sp->fallbacks);
		}
		sp->mode = SG_MODE_SAFE;
		out.freq = clamp(safe, policy->min, policy->max);
		out.reason = SG_R_STALE;
		*urgent = true;
		*next_ns = last + stale + hold;
	} else {
		load = sg_util_load(sp);
		if (load == U32_MAX) {		/* too soon to measure: hold */
			out.freq = policy->cur;
			out.reason = SG_R_UTIL;
			load = 0;
		} else {
			out.freq = sg_util_freq(policy, load, &out.reason);
		}
		if (sp->mode != SG_MODE_UTIL) {
			/* signal gone for good: drop the idle constraints too */
			for_each_cpu(cpu, policy->related_cpus)
				sg_qos_want(sp, cpu, SG_QOS_NONE);
			out.reason = SG_R_LOST;
		}
		sp->mode = SG_MODE_UTIL;
		if (out.freq > policy->min)
			*next_ns = now + SG_UTIL_RECHECK_NS;
	}

	sp->last_eval_ns = now;
	sp->decisions++;
	sp->last_freq = out.freq;
	sp->last_reason = out.reason;
	trace_slackgov_decision(policy->cpu, sp->mode, &in, load, &out);
	return out.freq;
}

static bool sg_this_cpu_can_update(struct cpufreq_policy *policy)
{
	return cpumask_test_cpu(smp_processor_id(), policy->cpus) ||
	       policy->dvfs_possible_from_any_cpu;
}

/*
 * Decide and apply.  @fast: called from the irq_work on a CPU that may
 * fast-switch the policy.  Otherwise called from the policy's worker
 * (process context), which applies through __cpufreq_driver_target() under
 * work_lock, or, for a fast-switching driver, through the fast switch under
 * sp->lock (never both for one driver, so they cannot race).
 */
static void sg_run(struct sg_policy *sp, bool fast)
{
	struct cpufreq_policy *policy = sp->policy;
	u64 now = ktime_get_ns(), next = 0, rate = sg_rate_ns(sp->tunables);
	bool urgent, apply = false;
	unsigned int freq = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&sp->lock, flags);
	if (sp->stopping) {
		raw_spin_unlock_irqrestore(&sp->lock, flags);
		return;
	}
	freq = sg_eval(sp, now, &urgent, &next);
	if (freq && cpufreq_driver_resolve_freq(policy, freq) != policy->cur) {
		if (urgent || !sp->last_change_ns || now - sp->last_change_ns >= rate)
			apply = true;
		else
			next = sg_earliest(next, sp->last_change_ns + rate);
	}
	if (apply && policy->fast_switch_enabled) {
		if (fast || sg_this_cpu_can_update(policy)) {
			cpufreq_driver_fast_switch(policy, freq);
			sp->last_change_ns = now;
		} else {
			/* the worker strayed off the policy: retry, not in a tight loop */
			next = now + SG_RETRY_NS;
		}
		apply = false;
	} else if (apply) {
		sp->last_change_ns = now;
	}
	raw_spin_unlock_irqrestore(&sp->lock, flags);

	if (apply) {
		mutex_lock(&sp->work_lock);
		__cpufreq_driver_target(policy, freq, CPUFREQ_RELATION_L);
		mutex_unlock(&sp->work_lock);
	}
	if (next)
		hrtimer_start(&sp->timer, ns_to_ktime(max(next, now + 1)), HRTIMER_MODE_ABS);
}

static void sg_work_fn(struct kthread_work *work)
{
	sg_run(container_of(work, struct sg_policy, work), false);
}

/* A deadline (stale, rate limit, util re-check) passed: decide in the worker. */
static enum hrtimer_restart sg_timer_fn(struct hrtimer *timer)
{
	struct sg_policy *sp = container_of(timer, struct sg_policy, timer);

	if (!READ_ONCE(sp->stopping))
		kthread_queue_work(sp->worker, &sp->work);
	return HRTIMER_NORESTART;
}

static void sg_irq_work_fn(struct irq_work *irq_work)
{
	struct sg_policy *sp = container_of(irq_work, struct sg_policy, irq_work);

	if (READ_ONCE(sp->stopping))
		return;
	if (sp->policy->fast_switch_enabled && sg_this_cpu_can_update(sp->policy))
		sg_run(sp, true);
	else
		kthread_queue_work(sp->worker, &sp->work);
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

	if (READ_ONCE(sp->mode) != SG_MODE_UTIL || (s64)(time - READ_ONCE(sp->hook_ns)) < (s64)gap)
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

	sp->mode = SG_MODE_UTIL;
	sg_control_reset(&sp->pid, policy->cur);
	sp->consumed_ns = 0;
	sp->last_sample_ns = 0;
	sp->last_eval_ns = 0;
	sp->last_change_ns = 0;
	sp->hook_ns = 0;
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
	return cpufreq_register_governor(&sg_gov);
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
