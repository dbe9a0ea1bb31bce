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
#include <linux/cpumask.h>
#include <linux/timekeeping.h>
#include <linux/version.h>
#include "sg.h"

DEFINE_PER_CPU(struct sg_cpu, sg_cpu) = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(sg_cpu.lock),
};

bool sg_cpu_sample(int cpu, struct slackgov_sample *out, u64 *stamp_ns)
{
	struct sg_cpu *c = per_cpu_ptr(&sg_cpu, cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&c->lock, flags);
	*stamp_ns = c->stamp_ns;
	*out = c->sample;
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return *stamp_ns != 0;
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
 * Return: 0 when stored, -EINVAL when the sample is rejected.
 */
noinline int slackgov_report(const struct slackgov_sample *s, u32 s__sz)
{
	u64 now = ktime_get_ns();
	int cpu, stored = 0;

	if (s__sz != sizeof(*s) || s->size != sizeof(*s) ||
	    s->version != SLACKGOV_ABI_VERSION ||
	    s->target >= SLACKGOV_MAX_TARGETS || s->slack > SLACKGOV_ONE)
		return -EINVAL;

	for (cpu = 0; cpu < min_t(int, nr_cpu_ids, SLACKGOV_MAX_CPUS); cpu++) {
		struct sg_cpu *c;
		unsigned long flags;

		if (!(s->cpus[cpu / 64] & (1ULL << (cpu % 64))) || !cpu_possible(cpu))
			continue;
		c = per_cpu_ptr(&sg_cpu, cpu);
		raw_spin_lock_irqsave(&c->lock, flags);
		c->sample = *s;
		c->stamp_ns = now;
		raw_spin_unlock_irqrestore(&c->lock, flags);
		stored++;
	}
	if (stored)
		sg_governor_kick();
	return 0;
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
