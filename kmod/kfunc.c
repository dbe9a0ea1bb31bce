// SPDX-License-Identifier: GPL-2.0
/*
 * kfunc.c - slackgov_report(), the kfunc through which the BPF side hands
 * each closed window to the governor.
 *
 * Called from tracing context (a tp_btf program on a syscall tracepoint):
 * it validates, stores per CPU and returns.  It never sleeps, never takes a
 * lock that can sleep and never changes a frequency itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/rcupdate.h>
#include <linux/math64.h>
#include <linux/timekeeping.h>
#include <linux/version.h>
#include "sg.h"

DEFINE_PER_CPU(struct sg_cpu, sg_cpu) = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(sg_cpu.lock),
	.qos_want = SG_QOS_NONE,
	.qos_cur = SG_QOS_NONE,
};

/* cv above this (CV 1000.0) is not a measurement but a broken reporter. */
#define SG_CV_MAX		1000000U
/* Flags this module knows; others mean a reporter built for a newer ABI. */
#define SG_KNOWN_FLAGS		(SLACKGOV_SAMPLE_IDLE | SLACKGOV_SAMPLE_BY_COUNT | \
				 SLACKGOV_SAMPLE_EXITED)

/*
 * The slot's filtered slack after window @s (control.c step 1): an
 * exponential average weighted by window length,
 * f += (slack - f) * len / (len + SG_SLACK_TAU_NS).  A slot of another
 * target, or one not updated for SG_SLACK_RESET_NS, starts from @s alone.
 */
static u32 sg_filter(const struct sg_obs *o, const struct slackgov_sample *s, u64 now)
{
	u64 len = clamp_t(u64, s->len_ns, 1, SG_SLACK_LEN_MAX_NS);
	s64 d, step;

	if (!o->stamp_ns || o->target != s->target || now - o->stamp_ns > SG_SLACK_RESET_NS)
		return s->slack;
	d = (s64)s->slack - (s64)o->slack_f;
	step = div64_s64(d * (s64)len, (s64)(len + SG_SLACK_TAU_NS));
	/* at least one unit toward the sample, so that a steady input is reached exactly */
	if (!step && d)
		step = d > 0 ? 1 : -1;
	return o->slack_f + (s32)step;
}

/* Store @s as the latest sample of its target on @cpu (replaces that target's slot,
 * else an empty one, else the least recently reported).
 */
static void sg_store(int cpu, const struct slackgov_sample *s, u64 now)
{
	struct sg_cpu *c = per_cpu_ptr(&sg_cpu, cpu);
	struct sg_obs *o, *victim = NULL;
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&c->lock, flags);
	for (i = 0; i < SG_CPU_SLOTS; i++) {
		o = &c->obs[i];
		if (o->stamp_ns && o->target == s->target) {
			victim = o;
			break;
		}
		if (!victim || o->stamp_ns < victim->stamp_ns)
			victim = o;
	}
	victim->slack_f = sg_filter(victim, s, now);
	victim->target = s->target;
	victim->seq = s->seq;
	victim->slack = s->slack;
	victim->cv = s->cv;
	victim->setpoint = s->setpoint;
	victim->rps = s->rps;
	victim->flags = s->flags;
	victim->stamp_ns = now;
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

/* Is the sample well formed?  CPU ids are checked by the caller. */
static bool sg_sample_valid(const struct slackgov_sample *s, u32 sz)
{
	return sz == sizeof(*s) && s->size == sizeof(*s) &&
	       s->version == SLACKGOV_ABI_VERSION &&
	       s->target < SLACKGOV_MAX_TARGETS &&
	       s->slack <= SLACKGOV_ONE && s->setpoint <= SLACKGOV_ONE &&
	       s->cv <= SG_CV_MAX && !(s->flags & ~SG_KNOWN_FLAGS);
}

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
__diag_push();
__diag_ignore_all("-Wmissing-prototypes",
		  "kfuncs are called from BPF only, no prototype in the kernel");
#else
__bpf_kfunc_start_defs();
#endif

/**
 * slackgov_report - hand one closed window of one target to the governor
 * @s:		the sample
 * @s__sz:	its size as the BPF program sees it (checked by the verifier)
 *
 * Validates everything (sizes, ABI version, target slot, ranges, CPU ids),
 * stores the sample for each named CPU whose policy runs the governor and
 * kicks those policies (irq_work).  Context: tracing (atomic); never sleeps.
 *
 * Return: 0 when stored, -EINVAL when the sample is rejected, -ENODEV when
 * none of its CPUs runs the slack governor (nothing stored).
 */
noinline int slackgov_report(const struct slackgov_sample *s, u32 s__sz)
{
	struct sg_policy *sp, *kicked = NULL;
	int cpu, w, ncpus = min_t(int, nr_cpu_ids, SLACKGOV_MAX_CPUS);
	u64 now;
	bool any = false;

	if (!s || !sg_sample_valid(s, s__sz))
		return -EINVAL;
	/* every named CPU must exist; at least one must be named */
	for (w = 0; w < SLACKGOV_CPU_WORDS; w++) {
		u64 bits = s->cpus[w];

		any |= bits != 0;
		while (bits) {
			cpu = w * 64 + __ffs64(bits);
			bits &= bits - 1;
			if (cpu >= ncpus || !cpu_possible(cpu))
				return -EINVAL;
		}
	}
	if (!any)
		return -EINVAL;

	now = ktime_get_ns();
	any = false;
	rcu_read_lock();
	for (w = 0; w < SLACKGOV_CPU_WORDS; w++) {
		u64 bits = s->cpus[w];

		while (bits) {
			cpu = w * 64 + __ffs64(bits);
			bits &= bits - 1;
			sp = rcu_dereference(per_cpu(sg_cpu, cpu).sp);
			if (!sp)
				continue;	/* not governed by slack: nothing to store */
			sg_store(cpu, s, now);
			WRITE_ONCE(sp->last_sample_ns, now);
			any = true;
			/* CPUs of one policy are usually adjacent: kick each once */
			if (sp != kicked) {
				sg_policy_kick(sp);
				kicked = sp;
			}
		}
	}
	rcu_read_unlock();
	return any ? 0 : -ENODEV;
}

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
__diag_pop();
#else
__bpf_kfunc_end_defs();
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
BTF_SET8_START(slackgov_kfunc_ids)
BTF_ID_FLAGS(func, slackgov_report)
BTF_SET8_END(slackgov_kfunc_ids)
#else
BTF_KFUNCS_START(slackgov_kfunc_ids)
BTF_ID_FLAGS(func, slackgov_report)
BTF_KFUNCS_END(slackgov_kfunc_ids)
#endif

static const struct btf_kfunc_id_set slackgov_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &slackgov_kfunc_ids,
};

int sg_kfunc_init(void)
{
	int ret = register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING, &slackgov_kfunc_set);

	if (ret)
		pr_err("cannot register kfuncs: %d\n", ret);
	return ret;
}
