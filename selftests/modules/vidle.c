// SPDX-License-Identifier: GPL-2.0
/*
 * vidle.c - test-only emulated C-states for the guest: a cpuidle driver whose exits cost time.
 *
 * Three states with Skylake-SP's exit latencies and target residencies
 * (vplatform.h: C1 2/2 us, C1E 10/20 us, C6 133/600 us).  Every state idles
 * by "sti; hlt" (default_idle is not exported to modules), then, once the
 * wake-up interrupt has been handled, spins for the state's exit latency with
 * interrupts off, so the woken task really starts that much later.  The stock
 * menu governor chooses among the states; per-CPU PM QoS resume-latency
 * limits (/sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us) remove
 * the deep ones.
 *
 * cpuidle_register() takes a module reference for each CPU's device, so
 * "rmmod vidle" fails with EBUSY while the driver is registered.  Unregister
 * first:  echo 0 > /sys/kernel/debug/vidle/registered  (1 registers again).
 *
 * The modeled energy of the C-states is counted by vfreq.ko's meter (from the
 * cpu_idle tracepoint), so this module works with or without vfreq.ko.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuidle.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <asm/irqflags.h>

#include "vplatform.h"

static bool spin = true;
module_param(spin, bool, 0444);
MODULE_PARM_DESC(spin, "spin the exit latency on every wake-up (default 1); 0: plain sti;hlt");

/* statistics, per CPU, written only by that CPU in its idle loop */
struct vidle_stats {
	u64 wakeups[VP_NR_CSTATES];
	u64 spun_ns[VP_NR_CSTATES];
};
static DEFINE_PER_CPU(struct vidle_stats, vidle_stats);

static DEFINE_MUTEX(vidle_lock);	/* serializes (un)registration */
static bool vidle_registered;
static struct dentry *vidle_dir;

/*
 * Called with interrupts off; RCU is not watching (ct_idle_enter() done by the
 * cpuidle core), so only non-instrumented, RCU-free code here: the halt, the
 * clock read, the per-CPU counters.  Returns with interrupts off.
 */
static __cpuidle int vidle_enter(struct cpuidle_device *dev, struct cpuidle_driver *drv,
				 int index)
{
	struct vidle_stats *s = this_cpu_ptr(&vidle_stats);
	u64 start, now;

	native_safe_halt();		/* sti; hlt: returns after the interrupt ran */
	raw_local_irq_disable();
	s->wakeups[index]++;
	if (!spin)
		return index;
	start = now = local_clock();
	while (now - start < drv->states[index].exit_latency_ns) {
		cpu_relax();
		now = local_clock();
	}
	s->spun_ns[index] += now - start;
	return index;
}

static struct cpuidle_driver vidle_driver = {
	.name	= VP_IDLE_DRIVER,
	.owner	= THIS_MODULE,
};

static void vidle_fill_states(void)
{
	int i;

	for (i = 0; i < VP_NR_CSTATES; i++) {
		struct cpuidle_state *s = &vidle_driver.states[i];

		strscpy(s->name, vp_cstates[i].name, CPUIDLE_NAME_LEN);
		strscpy(s->desc, vp_cstates[i].desc, CPUIDLE_DESC_LEN);
		s->exit_latency = vp_cstates[i].exit_us;
		s->target_residency = vp_cstates[i].residency_us;
		/* advisory only (no stock governor uses it): the meter's default */
		s->power_usage = vp_cstates[i].power_mw;
		s->enter = vidle_enter;
	}
	vidle_driver.state_count = VP_NR_CSTATES;
}

static int vidle_set_registered(bool on)
{
	int ret = 0;

	mutex_lock(&vidle_lock);
	if (on && !vidle_registered) {
		ret = cpuidle_register(&vidle_driver, NULL);
		if (ret)
			pr_err("cpuidle_register: %d\n", ret);
		vidle_registered = !ret;
	} else if (!on && vidle_registered) {
		cpuidle_unregister(&vidle_driver);
		vidle_registered = false;
	}
	mutex_unlock(&vidle_lock);
	return ret;
}

/* ---- debugfs: /sys/kernel/debug/vidle/{registered,states,stats} ---------------------- */

static ssize_t vidle_registered_read(struct file *file, char __user *buf, size_t len,
				     loff_t *ppos)
{
	char s[3] = { READ_ONCE(vidle_registered) ? '1' : '0', '\n', 0 };

	return simple_read_from_buffer(buf, len, ppos, s, 2);
}

static ssize_t vidle_registered_write(struct file *file, const char __user *buf, size_t len,
				      loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(buf, len, &on);
	if (ret)
		return ret;
	ret = vidle_set_registered(on);
	return ret ? ret : len;
}

static const struct file_operations vidle_registered_fops = {
	.owner	= THIS_MODULE,
	.read	= vidle_registered_read,
	.write	= vidle_registered_write,
	.llseek	= default_llseek,
};

static int vidle_states_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < VP_NR_CSTATES; i++) {
		seq_printf(m, "%s.exit_us %u\n", vp_cstates[i].name, vp_cstates[i].exit_us);
		seq_printf(m, "%s.residency_us %u\n", vp_cstates[i].name,
			   vp_cstates[i].residency_us);
	}
	seq_printf(m, "spin %d\n", spin);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vidle_states);

static int vidle_stats_show(struct seq_file *m, void *v)
{
	unsigned int cpu;
	int i;

	for_each_possible_cpu(cpu) {
		struct vidle_stats *s = per_cpu_ptr(&vidle_stats, cpu);

		for (i = 0; i < VP_NR_CSTATES; i++) {
			seq_printf(m, "cpu%u.%s.wakeups %llu\n", cpu, vp_cstates[i].name,
				   READ_ONCE(s->wakeups[i]));
			seq_printf(m, "cpu%u.%s.spun_ns %llu\n", cpu, vp_cstates[i].name,
				   READ_ONCE(s->spun_ns[i]));
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vidle_stats);

static int __init vidle_init(void)
{
	int ret;

	vidle_fill_states();
	ret = vidle_set_registered(true);
	if (ret)
		return ret;
	vidle_dir = debugfs_create_dir("vidle", NULL);
	debugfs_create_file("registered", 0644, vidle_dir, NULL, &vidle_registered_fops);
	debugfs_create_file("states", 0444, vidle_dir, NULL, &vidle_states_fops);
	debugfs_create_file("stats", 0444, vidle_dir, NULL, &vidle_stats_fops);
	pr_info("%d C-states registered (exit latency spin %s); unregister before rmmod: echo 0 > /sys/kernel/debug/vidle/registered\n",
		VP_NR_CSTATES, spin ? "on" : "off");
	return 0;
}

static void __exit vidle_exit(void)
{
	debugfs_remove_recursive(vidle_dir);
	/* only reachable unregistered (the devices hold module references) */
	vidle_set_registered(false);
}

module_init(vidle_init);
module_exit(vidle_exit);
MODULE_DESCRIPTION("slackgov test: emulated C-states with real exit latency");
MODULE_LICENSE("GPL");
