// SPDX-License-Identifier: GPL-2.0
/*
 * governor.c - the "slack" cpufreq governor (first cut: proportional rule).
 *
 * The kfunc stores samples per CPU and kicks an irq_work; the irq_work
 * queues each active policy's work, which picks the lowest slack among the
 * fresh samples on the policy's CPUs and sets the frequency under the
 * policy's work_lock (the schedutil slow path, without the kthread).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpufreq.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "sg.h"

/* A sample older than this is ignored (first cut: fixed, later a knob). */
#define SG_STALE_NS	(50 * NSEC_PER_MSEC)

struct sg_policy {
	struct cpufreq_policy	*policy;
	struct list_head	node;		/* in sg_policies, RCU */
	struct work_struct	work;
	struct mutex		work_lock;	/* serialises frequency changes */
};

static LIST_HEAD(sg_policies);
static DEFINE_SPINLOCK(sg_policies_lock);	/* writers of sg_policies */

static void sg_kick_fn(struct irq_work *irq_work)
{
	struct sg_policy *sp;

	rcu_read_lock();
	list_for_each_entry_rcu(sp, &sg_policies, node)
		queue_work(system_highpri_wq, &sp->work);
	rcu_read_unlock();
}

static DEFINE_IRQ_WORK(sg_kick, sg_kick_fn);

/* Called by the kfunc, in tracing context. */
void sg_governor_kick(void)
{
	irq_work_queue(&sg_kick);
}

static void sg_work_fn(struct work_struct *work)
{
	struct sg_policy *sp = container_of(work, struct sg_policy, work);
	struct cpufreq_policy *policy = sp->policy;
	struct slackgov_sample s;
	u32 slack = SLACKGOV_ONE + 1;
	u64 now = ktime_get_ns(), stamp;
	unsigned int freq;
	int cpu;

	for_each_cpu(cpu, policy->cpus) {
		if (!sg_cpu_sample(cpu, &s, &stamp) || now - stamp > SG_STALE_NS)
			continue;
		slack = min(slack, s.slack);
	}
	if (slack > SLACKGOV_ONE)
		return;

	freq = policy->min + (u64)(policy->max - policy->min) *
	       (SLACKGOV_ONE - slack) / SLACKGOV_ONE;
	mutex_lock(&sp->work_lock);
	__cpufreq_driver_target(policy, freq, CPUFREQ_RELATION_L);
	mutex_unlock(&sp->work_lock);
}

/* ---- governor interface ------------------------------------------------- */

static int sg_init(struct cpufreq_policy *policy)
{
	struct sg_policy *sp = kzalloc(sizeof(*sp), GFP_KERNEL);

	if (!sp)
		return -ENOMEM;
	sp->policy = policy;
	INIT_WORK(&sp->work, sg_work_fn);
	mutex_init(&sp->work_lock);
	policy->governor_data = sp;
	return 0;
}

static void sg_exit(struct cpufreq_policy *policy)
{
	struct sg_policy *sp = policy->governor_data;

	policy->governor_data = NULL;
	mutex_destroy(&sp->work_lock);
	kfree(sp);
}

static int sg_start(struct cpufreq_policy *policy)
{
	struct sg_policy *sp = policy->governor_data;

	spin_lock(&sg_policies_lock);
	list_add_rcu(&sp->node, &sg_policies);
	spin_unlock(&sg_policies_lock);
	return 0;
}

static void sg_stop(struct cpufreq_policy *policy)
{
	struct sg_policy *sp = policy->governor_data;

	spin_lock(&sg_policies_lock);
	list_del_rcu(&sp->node);
	spin_unlock(&sg_policies_lock);
	synchronize_rcu();
	irq_work_sync(&sg_kick);
	cancel_work_sync(&sp->work);
}

static void sg_limits(struct cpufreq_policy *policy)
{
	struct sg_policy *sp = policy->governor_data;

	mutex_lock(&sp->work_lock);
	cpufreq_policy_apply_limits(policy);
	mutex_unlock(&sp->work_lock);
}

static struct cpufreq_governor sg_gov = {
	.name	= "slack",
	.owner	= THIS_MODULE,
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

void sg_governor_exit(void)
{
	cpufreq_unregister_governor(&sg_gov);
	irq_work_sync(&sg_kick);
}
