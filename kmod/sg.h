/* SPDX-License-Identifier: GPL-2.0 */
/* slackgov.h - what the module's files share (internal to kmod/). */
#ifndef _SLACKGOV_INTERNAL_H
#define _SLACKGOV_INTERNAL_H

#include <linux/cpufreq.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <slackgov.h>

/**
 * struct sg_cpu - the latest sample that named this CPU.
 * @lock:	raw spinlock: written from tracing context (the kfunc), read
 *		from the governor's work; never held across anything else
 * @sample:	copy of the sample (valid when @stamp_ns != 0)
 * @stamp_ns:	ktime_get_ns() when it was stored
 */
struct sg_cpu {
	raw_spinlock_t lock;
	struct slackgov_sample sample;
	u64 stamp_ns;
};

DECLARE_PER_CPU(struct sg_cpu, sg_cpu);

int sg_kfunc_init(void);
int sg_governor_init(void);
void sg_governor_exit(void);
void sg_governor_kick(void);
bool sg_cpu_sample(int cpu, struct slackgov_sample *out, u64 *stamp_ns);

#endif
