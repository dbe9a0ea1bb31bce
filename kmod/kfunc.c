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
#include "sg.h"

DEFINE_PER_CPU(struct sg_cpu, sg_cpu) = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(sg_cpu.lock),
	.qos_want = SG_QOS_NONE,
	.qos_cur = SG_QOS_NONE,
};

/*
 * rps and a window's timed requests above 10^8 (a 100 Gb/s link carries
 * under 1.5 * 10^8 minimum-size packets per second, and a request is more
 * than a packet) are a broken reporter too; the bound also keeps the
 * feed-forward product in 64 bits (control.c step 5).
 */
#define SG_RPS_MAX		100000000U
/* Flags this module knows; others mean a reporter built for a newer ABI. */
#define SG_KNOWN_FLAGS		(SLACKGOV_SAMPLE_IDLE | SLACKGOV_SAMPLE_BY_COUNT | \
				 SLACKGOV_SAMPLE_EXITED)

/*
 * Each target's K as last learnt (control.c step 2), kept across governor
 * restarts, which clear the slots; the lock nests inside a CPU's slot lock.
 */
static struct sg_k_mem sg_k_mem[SLACKGOV_MAX_TARGETS];
static DEFINE_RAW_SPINLOCK(sg_k_lock);

/*
 * Store @s as the latest sample of its target on @cpu: that target's slot,
 * else an empty one, else the least recently reported.  The control law
 * updates the slot's filters (control.c step 1).  Returns the target's
 * budget T under @sp's knobs, us (0: no SLO).
 */
static u32 sg_store(struct sg_policy *sp, int cpu, const struct slackgov_sample *s, u64 now)
{
	struct sg_cpu *c = per_cpu_ptr(&sg_cpu, cpu);
	struct sg_obs *o, *victim = NULL;
	struct sg_law_params p;
	struct sg_limits lim;
	unsigned long flags;
	bool restarted;
	int i;

	sg_params(sp->tunables, &p);
	sg_limits_of(sp->policy, &lim);
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
	restarted = sg_obs_update(victim, s, now, &lim, &p);
	raw_spin_lock(&sg_k_lock);
	sg_obs_k_keep(victim, s, now, restarted, &sg_k_mem[s->target]);
	raw_spin_unlock(&sg_k_lock);
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return sg_obs_budget_us(victim, p.slo_margin);
}

/* Is the sample's layout the one this module knows?  Says once why not. */
static bool sg_sample_abi_ok(const struct slackgov_sample *s, u32 sz)
{
	bool hdr = sz >= offsetofend(struct slackgov_sample, version);

	if (sz == sizeof(*s) && s->size == sizeof(*s) && s->version == SLACKGOV_ABI_VERSION)
		return true;
	pr_warn_once("sample rejected: ABI version %u, %u bytes; this module takes version %u, %zu bytes (reload the BPF side built with this module's slackgov.h)\n",
		     hdr ? s->version : 0, sz, SLACKGOV_ABI_VERSION, sizeof(*s));
	return false;
}

/* Is the sample well formed?  CPU ids are checked by the caller. */
static bool sg_sample_valid(const struct slackgov_sample *s, u32 sz)
{
	if (!sg_sample_abi_ok(s, sz))
		return false;
	return s->target < SLACKGOV_MAX_TARGETS &&
	       s->slack <= SLACKGOV_ONE && s->setpoint <= SLACKGOV_ONE &&
	       s->cv <= SLACKGOV_CV_MAX && s->rps <= SG_RPS_MAX &&
	       !(s->flags & ~SG_KNOWN_FLAGS) &&
	       s->slo_us <= SLACKGOV_LAT_MAX_US && s->slo_q <= SLACKGOV_Q_ONE &&
	       (!s->slo_us || s->slo_q) &&	/* an SLO has a percentile */
	       slackgov_margin_valid(s->slo_margin) &&
	       s->nr_lat <= SG_RPS_MAX &&
	       s->lat_q_us <= SLACKGOV_LAT_MAX_US && s->lat_win_us <= SLACKGOV_LAT_MAX_US &&
	       s->queue_us <= SLACKGOV_LAT_MAX_US && s->svc_us <= SLACKGOV_LAT_MAX_US &&
	       s->nr_over <= s->nr_lat && s->budget_us <= SLACKGOV_LAT_MAX_US;
}

/*
 * The kfunc as the kernel marks its own: __bpf_kfunc (Linux 6.3+: kept in
 * LTO builds, never inlined or cloned) inside __bpf_kfunc_start_defs()
 * (6.7+).  Tested by name rather than by version, so a backport counts;
 * on older kernels it is a noinline global.  Its prototype is in
 * slackgov.h.
 */
#ifndef __bpf_kfunc
#define __bpf_kfunc noinline
#endif
/* Read by every policy's stale rule (control.c step 8), written once a report. */
u64 sg_feed_ns;

#ifdef __bpf_kfunc_start_defs
__bpf_kfunc_start_defs();
#endif

/**
 * slackgov_report - hand one closed window of one target to the governor
 * @s:		the sample
 * @s__sz:	its size as the BPF program sees it (checked by the verifier)
 *
 * Validates everything (sizes, ABI version, target slot, ranges, CPU ids;
 * a sample of another ABI version is rejected with a one-time warning),
 * stores the sample for each named CPU whose policy runs the governor and
 * kicks those policies (irq_work).  Context: tracing (atomic); never sleeps.
 *
 * Return: when stored, the latency budget T of the target's SLO in us
 * (>= 1), under the ``slo_margin`` of the first policy it was stored for
 * (a target on policies with different knobs is counted against that
 * one's), or 0 for a target without an SLO: the BPF side counts its
 * requests over T in the next windows (``nr_over``, step 2 of the control
 * law).  -EINVAL when the sample is rejected, -ENODEV when none of its
 * CPUs runs the slack governor (nothing stored).
 */
__bpf_kfunc int slackgov_report(const struct slackgov_sample *s, u32 s__sz)
{
	struct sg_policy *sp, *kicked = NULL;
	int cpu, w, ncpus = min_t(int, nr_cpu_ids, SLACKGOV_MAX_CPUS);
	u32 budget = 0, b;
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
			b = sg_store(sp, cpu, s, now);
			if (!any)
				budget = b;
			WRITE_ONCE(sp->last_sample_ns, now);
			if (s->flags & SLACKGOV_SAMPLE_EXITED)
				WRITE_ONCE(sp->last_exit_ns, now);
			any = true;
			/* CPUs of one policy are usually adjacent: kick each once */
			if (sp != kicked) {
				sg_policy_kick(sp);
				kicked = sp;
			}
		}
	}
	rcu_read_unlock();
	if (any)
		WRITE_ONCE(sg_feed_ns, now);
	return any ? (int)budget : -ENODEV;	/* <= slo_us <= SLACKGOV_LAT_MAX_US */
}

#ifdef __bpf_kfunc_end_defs
__bpf_kfunc_end_defs();
#endif

/* 6.9+ marks a kfunc set as such (BTF_KFUNCS_START), which registration requires */
#ifdef BTF_KFUNCS_START
BTF_KFUNCS_START(slackgov_kfunc_ids)
BTF_ID_FLAGS(func, slackgov_report)
BTF_KFUNCS_END(slackgov_kfunc_ids)
#else
BTF_SET8_START(slackgov_kfunc_ids)
BTF_ID_FLAGS(func, slackgov_report)
BTF_SET8_END(slackgov_kfunc_ids)
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
