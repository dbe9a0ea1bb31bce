// SPDX-License-Identifier: GPL-2.0
/*
 * ops.c - struct slackgov_ops: a BPF program supplies the control law of
 * the policies it names; the module keeps the safety rules (struct_ops
 * registration, the read-only view, clamping, fallback, counting).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "sg.h"
#include "ops.h"

#if SG_OPS

#include <linux/bpf.h>
#include <linux/bpf_verifier.h>
#include <linux/btf.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <slackgov_ops.h>
#include "trace.h"

/**
 * DOC: policy ops
 *
 * A BPF program that implements ``struct slackgov_ops`` (slackgov_ops.h)
 * supplies the frequency of the policies it names; the built-in law still
 * runs at every decision and its output is the program's input and the
 * fallback.  One decision of a named policy:
 *
 * 1. The built-in law steps (control.c) and proposes a frequency, with its
 *    mode and reason.
 * 2. In the safe mode (samples stopped: the stale rule) and the boost mode
 *    (a target saturated) the built-in proposal stands and next_freq() is
 *    not called, unless the ops set SLACKGOV_OPS_F_RAW.
 * 3. Otherwise next_freq() gets a read-only view of the policy (its CPUs,
 *    limits, the latest window of each of its targets, the built-in
 *    proposal) and returns kHz.
 * 4. A negative return (an error) or a value outside the hardware range
 *    [cpuinfo.min_freq, cpuinfo.max_freq] (garbage) is refused: the built-in
 *    proposal is applied for this decision, policyN/slack/ops_fallbacks
 *    counts it and the slackgov_ops trace event says error or range.
 *    0 is outside the range (it is also what the BPF core returns for a call
 *    its recursion guard skipped): a program that has nothing to say returns
 *    the view's builtin_khz instead.
 * 5. A value in the hardware range is clamped to the policy's limits
 *    [min, max] (result "clamped" in the trace) and counted in
 *    ops_decisions.  It is then applied as the built-in law's output is:
 *    rate limited by the rate_limit_us knob (an ops decision is never
 *    urgent; a change of limits still is).
 *
 * Context: next_freq() runs in the decision path, in an irq_work or the
 * policy's deadline hrtimer (hard interrupt), with the policy's raw
 * spinlock held and interrupts off.  So it may not sleep (sleepable
 * programs are refused at load), has the helpers every
 * program has (bpf_base_func_proto()) and sees the view read-only (the
 * verifier refuses writes).  It should be short: it delays the decision of
 * every policy that shares the CPU.  init() and exit() run in process
 * context, once per registration, when the BPF link is created and after it
 * is gone.
 *
 * Lifecycle: one set of ops at a time (a second registration fails with
 * -EBUSY).  When the ops unregister (their link is destroyed: the loader
 * exits or crashes without pinning it, slackctl policy unload, or
 * BPF_LINK_DETACH), no decision calls them after unreg() returns
 * (synchronize_rcu()), and every policy is kicked, so the built-in law,
 * which kept its state all along, decides at the next decision: neither the
 * performance governor nor the ops' last value.  A struct_ops map holds a
 * reference on this module, so rmmod fails with "in use" while ops are
 * loaded.
 */

/* the registered ops (struct_ops kdata), RCU: decisions read, reg/unreg write */
static struct slackgov_ops __rcu *sg_ops;
static DEFINE_MUTEX(sg_ops_lock);		/* serialises reg and unreg */

/*
 * The view handed to next_freq(): per CPU, as decisions run with
 * interrupts off and one at a time per CPU; ~550 bytes that the irq_work
 * path's stack need not carry.
 */
static DEFINE_PER_CPU(struct slackgov_policy_view, sg_view);

static bool sg_ops_names(const struct slackgov_ops *ops, unsigned int policy)
{
	return !ops->policies || (policy < 64 && (ops->policies & BIT_ULL(policy)));
}

static u32 sg_view_mode(enum sg_mode m)
{
	switch (m) {
	case SG_MODE_UTIL:	return SLACKGOV_VIEW_UTIL;
	case SG_MODE_SLACK:	return SLACKGOV_VIEW_SLACK;
	case SG_MODE_SLO:	return SLACKGOV_VIEW_SLO;
	case SG_MODE_SAFE:	return SLACKGOV_VIEW_SAFE;
	case SG_MODE_BOOST:	return SLACKGOV_VIEW_BOOST;
	default:		return SLACKGOV_VIEW_OTHER;
	}
}

/* Add one CPU slot to the view: the newest window per target, newest first. */
static void sg_view_add(struct slackgov_policy_view *v, const struct sg_obs *o, u64 now,
			u64 stale_ns, u32 slo_margin)
{
	struct slackgov_view_target *t = NULL;
	u32 age_us = o->stamp_ns < now ? min_t(u64, div_u64(now - o->stamp_ns, NSEC_PER_USEC),
					       U32_MAX) : 0;
	u32 i;

	if (!o->stamp_ns)
		return;
	for (i = 0; i < v->nr_targets; i++) {
		if (v->targets[i].target == o->target) {
			if (v->targets[i].age_us <= age_us)
				return;		/* a newer window of it is there */
			t = &v->targets[i];
			break;
		}
	}
	if (!t && v->nr_targets < SLACKGOV_VIEW_TARGETS)
		t = &v->targets[v->nr_targets++];
	if (!t) {
		t = &v->targets[SLACKGOV_VIEW_TARGETS - 1];	/* the oldest */
		if (t->age_us <= age_us)
			return;
	}
	t->target = o->target;
	t->flags = o->flags;
	t->age_us = age_us;
	t->fresh = sg_obs_fresh(o, now, stale_ns);
	t->slack = o->slack;
	t->slack_f = o->slack_f;
	t->cv = o->cv;
	t->rps = o->rps;
	t->slo_us = o->slo_us;
	t->lat_q_us = o->lat_q_us;
	t->svc_us = o->svc_us;
	t->queue_us = o->queue_us;
	t->f_khz = o->f_khz;
	t->load_khz = o->load_f;
	t->slo_q = o->slo_us ? o->slo_q : 0;
	t->budget_us = sg_obs_budget_us(o, slo_margin);
	t->nr_lat = o->nr_lat;
	t->nr_over = o->nr_over;
	t->over_us = o->slo_us ? o->over_us : 0;
	/* keep newest first: move it up past older entries */
	for (i = t - v->targets; i > 0 && v->targets[i - 1].age_us > v->targets[i].age_us; i--)
		swap(v->targets[i - 1], v->targets[i]);
}

static void sg_view_fill(struct slackgov_policy_view *v, struct sg_policy *sp, u64 now,
			 u32 load, u64 stale_ns, const struct sg_ctl_out *out)
{
	struct cpufreq_policy *policy = sp->policy;
	u32 margin = READ_ONCE(sp->tunables->slo_margin);
	int cpu, i;

	memset(v, 0, sizeof(*v));
	v->policy = policy->cpu;
	v->nr_cpus = cpumask_weight(policy->cpus);
	v->min_khz = policy->min;
	v->max_khz = policy->max;
	v->cur_khz = policy->cur;
	v->hw_min_khz = policy->cpuinfo.min_freq;
	v->hw_max_khz = policy->cpuinfo.max_freq;
	v->builtin_khz = out->freq;
	v->mode = sg_view_mode(out->mode);
	v->load = out->mode == SG_MODE_UTIL && load != U32_MAX ? load : 0;
	if (out->reason < SG_R_NR)
		strscpy(v->reason, sg_reason_names[out->reason], sizeof(v->reason));
	v->now_ns = now;
	for_each_cpu(cpu, policy->cpus) {
		struct sg_cpu *c = per_cpu_ptr(&sg_cpu, cpu);
		struct sg_obs obs[SG_CPU_SLOTS];
		unsigned long flags;

		if (cpu < 64)
			v->cpus |= BIT_ULL(cpu);
		raw_spin_lock_irqsave(&c->lock, flags);
		memcpy(obs, c->obs, sizeof(obs));
		raw_spin_unlock_irqrestore(&c->lock, flags);
		for (i = 0; i < SG_CPU_SLOTS; i++)
			sg_view_add(v, &obs[i], now, stale_ns, margin);
	}
}

/**
 * sg_ops_step - let the registered ops decide one decision of @sp
 * @sp:		the policy (sp->lock held, interrupts off)
 * @now:	the decision's ktime_get_ns()
 * @load:	the util rule's load (U32_MAX: none measured)
 * @stale_ns:	the stale_ms knob, ns
 * @out:	the built-in law's output; freq and urgent are replaced when
 *		the ops decide (DOC "policy ops", steps 2-5)
 */
void sg_ops_step(struct sg_policy *sp, u64 now, u32 load, u64 stale_ns, struct sg_ctl_out *out)
{
	struct cpufreq_policy *policy = sp->policy;
	const struct slackgov_ops *ops;
	struct slackgov_policy_view *v;
	unsigned int builtin = out->freq;
	enum sg_ops_result res;
	s64 ret = 0;

	rcu_read_lock();
	ops = rcu_dereference(sg_ops);
	if (!ops || !sg_ops_names(ops, policy->cpu))
		goto unlock;
	if (!(ops->flags & SLACKGOV_OPS_F_RAW) &&
	    (out->mode == SG_MODE_SAFE || out->mode == SG_MODE_BOOST)) {
		res = SG_OPS_RULE;
		goto trace;
	}
	v = this_cpu_ptr(&sg_view);
	sg_view_fill(v, sp, now, load, stale_ns, out);
	ret = ops->next_freq(v);
	if (ret < 0) {
		res = SG_OPS_ERROR;
	} else if (ret < policy->cpuinfo.min_freq || ret > policy->cpuinfo.max_freq) {
		res = SG_OPS_RANGE;
	} else {
		out->freq = clamp_t(u32, ret, policy->min, policy->max);
		out->urgent = false;
		res = out->freq == ret ? SG_OPS_OK : SG_OPS_CLAMPED;
	}
	if (res == SG_OPS_ERROR || res == SG_OPS_RANGE)
		sp->ops_fallbacks++;
	else
		sp->ops_decisions++;
trace:
	trace_slackgov_ops(policy->cpu, ops->name, builtin, ret, out->freq, res,
			   sp->ops_fallbacks);
unlock:
	rcu_read_unlock();
}

/* policyN/slack/law: "builtin" or "bpf:<name>" (the ops name this policy) */
ssize_t sg_ops_law_show(struct sg_policy *sp, char *buf)
{
	const struct slackgov_ops *ops;
	ssize_t len;

	rcu_read_lock();
	ops = rcu_dereference(sg_ops);
	if (ops && sg_ops_names(ops, sp->policy->cpu))
		len = sysfs_emit(buf, "bpf:%s\n", ops->name);
	else
		len = sysfs_emit(buf, "builtin\n");
	rcu_read_unlock();
	return len;
}

/* Every running policy decides again soon (after the ops came or went). */
static void sg_ops_kick_all(void)
{
	struct sg_policy *sp;
	int cpu;

	rcu_read_lock();
	for_each_online_cpu(cpu) {
		sp = rcu_dereference(per_cpu(sg_cpu, cpu).sp);
		if (sp && !READ_ONCE(sp->stopping))
			sg_policy_kick(sp);
	}
	rcu_read_unlock();
}

/* ---- struct_ops callbacks -------------------------------------------------------- */

static int sg_ops_reg(void *kdata, struct bpf_link *link)
{
	struct slackgov_ops *ops = kdata;
	int ret = 0;

	mutex_lock(&sg_ops_lock);
	if (rcu_access_pointer(sg_ops)) {
		ret = -EBUSY;
		goto unlock;
	}
	if (ops->init) {
		ret = ops->init();
		if (ret > 0)
			ret = -EINVAL;
		if (ret)
			goto unlock;
	}
	rcu_assign_pointer(sg_ops, ops);
	pr_info("law: bpf:%s\n", ops->name);
unlock:
	mutex_unlock(&sg_ops_lock);
	if (!ret)
		sg_ops_kick_all();
	return ret;
}

static void sg_ops_unreg(void *kdata, struct bpf_link *link)
{
	struct slackgov_ops *ops = kdata;

	mutex_lock(&sg_ops_lock);
	if (rcu_access_pointer(sg_ops) != ops) {
		mutex_unlock(&sg_ops_lock);
		return;
	}
	RCU_INIT_POINTER(sg_ops, NULL);
	/* no decision runs next_freq() after this */
	synchronize_rcu();
	if (ops->exit)
		ops->exit();
	pr_info("law: builtin (bpf:%s unregistered)\n", ops->name);
	mutex_unlock(&sg_ops_lock);
	sg_ops_kick_all();
}

/* A set of ops must decide: next_freq is the one callback required. */
static int sg_ops_validate(void *kdata)
{
	return ((struct slackgov_ops *)kdata)->next_freq ? 0 : -EINVAL;
}

/* The data members: checked and copied here (the BPF core copies only programs). */
static int sg_ops_init_member(const struct btf_type *t, const struct btf_member *member,
			      void *kdata, const void *udata)
{
	const struct slackgov_ops *u = udata;
	struct slackgov_ops *k = kdata;
	u32 moff = __btf_member_bit_offset(t, member) / 8;
	size_t i, len;

	switch (moff) {
	case offsetof(struct slackgov_ops, flags):
		if (u->flags & ~SLACKGOV_OPS_F_ALL)
			return -EINVAL;
		k->flags = u->flags;
		return 1;
	case offsetof(struct slackgov_ops, policies):
		k->policies = u->policies;
		return 1;
	case offsetof(struct slackgov_ops, name):
		/* a printable word: it is shown in sysfs and the trace */
		len = strnlen(u->name, sizeof(u->name));
		if (!len || len == sizeof(u->name))
			return -EINVAL;
		for (i = 0; i < len; i++)
			if (!isalnum(u->name[i]) && !strchr("_-.", u->name[i]))
				return -EINVAL;
		memcpy(k->name, u->name, sizeof(k->name));
		return 1;
	}
	return 0;	/* programs, and pad (which the core requires to be 0) */
}

/* next_freq runs with interrupts off: no sleepable program */
static int sg_ops_check_member(const struct btf_type *t, const struct btf_member *member,
			       const struct bpf_prog *prog)
{
	return prog->sleepable ? -EINVAL : 0;
}

static int sg_ops_btf_init(struct btf *btf)
{
	return 0;
}

static bool sg_ops_is_valid_access(int off, int size, enum bpf_access_type type,
				   const struct bpf_prog *prog, struct bpf_insn_access_aux *info)
{
	return bpf_tracing_btf_ctx_access(off, size, type, prog, info);
}

/* no btf_struct_access: the verifier then refuses every write to the view */
static const struct bpf_verifier_ops sg_ops_verifier_ops = {
	.is_valid_access	= sg_ops_is_valid_access,
	.get_func_proto		= bpf_base_func_proto,
};

/*
 * CFI stubs: the core takes each callback's prototype (and argument
 * annotations) from these functions' BTF; they are never called.
 */
static s64 slackgov_ops__next_freq(const struct slackgov_policy_view *v)
{
	return -EOPNOTSUPP;
}

static s32 slackgov_ops__init(void)
{
	return 0;
}

static void slackgov_ops__exit(void)
{
}

static struct slackgov_ops sg_ops_stubs = {
	.next_freq	= slackgov_ops__next_freq,
	.init		= slackgov_ops__init,
	.exit		= slackgov_ops__exit,
};

static struct bpf_struct_ops sg_bpf_ops = {
	.verifier_ops	= &sg_ops_verifier_ops,
	.init		= sg_ops_btf_init,
	.check_member	= sg_ops_check_member,
	.init_member	= sg_ops_init_member,
	.reg		= sg_ops_reg,
	.unreg		= sg_ops_unreg,
	.validate	= sg_ops_validate,
	.cfi_stubs	= &sg_ops_stubs,
	.name		= "slackgov_ops",
	.owner		= THIS_MODULE,
};

/*
 * Register the type at module init (there is no unregistering: it goes
 * with the module's BTF).  A failure (e.g. a module built without BTF) is
 * not fatal: the governor runs the built-in law only.
 */
int sg_ops_register(void)
{
	int ret = register_bpf_struct_ops(&sg_bpf_ops, slackgov_ops);

	if (ret)
		pr_notice("struct slackgov_ops not registered (error %d): built-in law only\n",
			  ret);
	return 0;
}

#else /* !SG_OPS */

ssize_t sg_ops_law_show(struct sg_policy *sp, char *buf)
{
	return sysfs_emit(buf, "builtin\n");
}

#endif
