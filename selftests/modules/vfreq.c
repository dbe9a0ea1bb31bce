// SPDX-License-Identifier: GPL-2.0
/*
 * vfreq.c - test-only cpufreq driver for the guest (which has none).
 *
 * First cut: a frequency table, one policy per CPU, target_index records the
 * frequency.  Stock governors and "slack" drive it like real hardware.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpufreq.h>
#include <linux/module.h>

/* 1.0 - 3.0 GHz in 400 MHz steps, a typical server P-state range */
static struct cpufreq_frequency_table vfreq_table[] = {
	{ .frequency = 1000000 },
	{ .frequency = 1400000 },
	{ .frequency = 1800000 },
	{ .frequency = 2200000 },
	{ .frequency = 2600000 },
	{ .frequency = 3000000 },
	{ .frequency = CPUFREQ_TABLE_END },
};

static DEFINE_PER_CPU(unsigned int, vfreq_cur);

static int vfreq_cpu_init(struct cpufreq_policy *policy)
{
	policy->freq_table = vfreq_table;
	policy->cpuinfo.transition_latency = 10 * NSEC_PER_USEC;
	policy->cur = vfreq_table[ARRAY_SIZE(vfreq_table) - 2].frequency;
	per_cpu(vfreq_cur, policy->cpu) = policy->cur;
	return 0;
}

static int vfreq_target_index(struct cpufreq_policy *policy, unsigned int index)
{
	per_cpu(vfreq_cur, policy->cpu) = vfreq_table[index].frequency;
	return 0;
}

static unsigned int vfreq_get(unsigned int cpu)
{
	return per_cpu(vfreq_cur, cpu);
}

static struct cpufreq_driver vfreq_driver = {
	.name		= "vfreq",
	.flags		= CPUFREQ_NEED_INITIAL_FREQ_CHECK,
	.verify		= cpufreq_generic_frequency_table_verify,
	.target_index	= vfreq_target_index,
	.get		= vfreq_get,
	.init		= vfreq_cpu_init,
	.attr		= cpufreq_generic_attr,
};

static int __init vfreq_init(void)
{
	return cpufreq_register_driver(&vfreq_driver);
}

static void __exit vfreq_exit(void)
{
	cpufreq_unregister_driver(&vfreq_driver);
}

module_init(vfreq_init);
module_exit(vfreq_exit);
MODULE_DESCRIPTION("slackgov test: emulated cpufreq driver");
MODULE_LICENSE("GPL");
