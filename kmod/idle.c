// SPDX-License-Identifier: GPL-2.0
/*
 * idle.c - idle depth through per-CPU PM QoS resume-latency requests.
 *
 * Why PM QoS and not a cpuidle governor: cpuidle_register_governor() is not
 * exported, so a cpuidle governor cannot be a module, and replacing menu/teo
 * would also throw away their prediction.  A per-CPU resume-latency request
 * on get_cpu_device(cpu) is honoured by menu, teo and ladder alike: they
 * skip every state whose exit latency exceeds it.
 *
 * The decision path (atomic) only records what it wants per CPU
 * (sg_qos_want()); dev_pm_qos_*() take a mutex, so they run from the
 * policy's qos_work (process context) and from ->stop().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/device.h>
#include <linux/pm_qos.h>
#include <linux/workqueue.h>
#include "sg.h"
#include "trace.h"

/**
 * sg_qos_want - record the resume latency a CPU should have
 * @sp:		the policy that owns @cpu
 * @cpu:	the CPU
 * @us:		latency limit in us, or SG_QOS_NONE for no request
 *
 * Context: any (called under sp->lock); the request itself changes later.
 */
void sg_qos_want(struct sg_policy *sp, int cpu, s32 us)
{
	struct sg_cpu *c = per_cpu_ptr(&sg_cpu, cpu);

	if (READ_ONCE(c->qos_want) == us)
		return;
	WRITE_ONCE(c->qos_want, us);
	queue_work(system_wq, &sp->qos_work);
}

/* Make @cpu's request match @want.  Process context; one caller per CPU at a time. */
static void sg_qos_set(int cpu, s32 want)
{
	struct sg_cpu *c = per_cpu_ptr(&sg_cpu, cpu);
	struct device *dev = get_cpu_device(cpu);
	s32 old = c->qos_cur;
	int ret = 0;

	if (want == old)
		return;
	if (want == SG_QOS_NONE) {
		if (dev_pm_qos_request_active(&c->qos_req))
			ret = dev_pm_qos_remove_request(&c->qos_req);
	} else if (!dev) {
		return;
	} else if (!dev_pm_qos_request_active(&c->qos_req)) {
		ret = dev_pm_qos_add_request(dev, &c->qos_req, DEV_PM_QOS_RESUME_LATENCY, want);
	} else {
		ret = dev_pm_qos_update_request(&c->qos_req, want);
	}
	trace_slackgov_qos(cpu, old, want, ret);
	if (ret < 0) {
		pr_warn_ratelimited("cpu%d: resume latency %d -> %d failed: %d\n",
				    cpu, old, want, ret);
		return;
	}
	WRITE_ONCE(c->qos_cur, want);
}

/* The policy's qos_work: apply what the decisions asked for. */
void sg_qos_work_fn(struct work_struct *work)
{
	struct sg_policy *sp = container_of(work, struct sg_policy, qos_work);
	int cpu;

	for_each_cpu(cpu, sp->policy->related_cpus)
		sg_qos_set(cpu, READ_ONCE(per_cpu(sg_cpu, cpu).qos_want));
}

/**
 * sg_qos_remove_policy - drop every request of a policy's CPUs
 * @sp:		the policy, stopped (no decision and no qos_work runs)
 */
void sg_qos_remove_policy(struct sg_policy *sp)
{
	int cpu;

	for_each_cpu(cpu, sp->policy->related_cpus) {
		WRITE_ONCE(per_cpu(sg_cpu, cpu).qos_want, SG_QOS_NONE);
		sg_qos_set(cpu, SG_QOS_NONE);
	}
}

/* Module exit: nothing should be left (every ->stop() removed its own). */
void sg_qos_remove_all(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sg_cpu *c = per_cpu_ptr(&sg_cpu, cpu);

		if (dev_pm_qos_request_active(&c->qos_req))
			dev_pm_qos_remove_request(&c->qos_req);
	}
}
