// SPDX-License-Identifier: GPL-2.0
/*
 * vfreq.c - test-only emulated DVFS driver and modeled-energy meter for the guest.
 *
 * The guest (QEMU TCG) has no cpufreq hardware.  This module is the emulated
 * server platform's frequency side:
 *
 * 1. A cpufreq driver "vfreq": six P-states (vplatform.h), one policy per CPU.
 *    The stock governors drive it like hardware.
 * 2. Slowdown: while a CPU runs a non-idle task at frequency f, work takes
 *    about fmax/f longer.  The missing cycles are stolen in short bursts:
 *    a per-CPU pinned hrtimer (period_us) runs only while a non-idle task is
 *    current (started/stopped from sched_switch, so idle CPUs are never woken)
 *    and queues an irq_work that spins the owed time,
 *
 *	owed += busy time since the last charge * (fmax / f - 1)
 *
 *    at most max_spin_us per spin, the rest carried.  Syscall entry charges
 *    and pays too, so that short requests are stretched, not just the ones
 *    that span a timer period.  sched_switch only charges (it runs under the
 *    runqueue lock): the debt is paid at the next tick or syscall.
 * 3. The modeled-energy meter: per CPU, the time in C0 at each P-state and in
 *    each C-state (from the cpu_idle tracepoint), and the modeled energy
 *
 *	E = sum_f t(f) * (ceff * f * V(f)^2 + static * (V(f) / Vmax)^2)
 *	    + sum_k,f t(Ck, f) * Pidle(Ck, f) + transitions * trans_uj
 *
 *    Leakage scales with the core voltage, in C0 and in C1 alike: a running
 *    core and a clock-gated (C1) one at P-state f sit at V(f), so
 *    Pidle(C1, f) = idle_mw[C1] * (V(f) / Vmax)^2.  C1E drops to the lowest
 *    voltage and C6 power-gates the core: their power does not depend on f.
 *    t(Ck, f) is the time in Ck while the CPU's P-state was f.
 *    The last exit latency of every idle period counts as C0 (the core is
 *    waking up).  Everything here is a model: nothing is measured.
 *
 * Files, all "key value" per line, in /sys/kernel/debug/vplatform/:
 * freq_khz, emulation, model, meter, residency_ns, reset (write).
 * The modeled energy is read as on hardware, from the powercap zones
 * /sys/class/powercap/vplatform:0 (the package) and vplatform:0:N (cpuN),
 * energy_uj since load, wrapping at max_energy_range_uj (see the DOC below).
 * See Documentation/emulated-platform.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpufreq.h>
#include <linux/cpuidle.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/powercap.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "vplatform.h"

/* include/trace/events/power.h: the cpu_idle state of an idle exit */
#define VFREQ_PWR_EVENT_EXIT	((unsigned int)-1)

/* ---- parameters ---------------------------------------------------------------- */

static bool emulate = true;
module_param(emulate, bool, 0444);
MODULE_PARM_DESC(emulate, "slow work down to fmax/f (default 1); 0: a plain table driver");

static bool charge_syscalls = true;
module_param(charge_syscalls, bool, 0444);
MODULE_PARM_DESC(charge_syscalls, "also charge and pay the slowdown at every syscall entry (default 1)");

/* 1 ms: +1..4% error; 200 us overshot 10-23% under TCG (emulated-platform.rst, DVFS) */
static unsigned int period_us = 1000;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "slowdown timer period, us (default 1000, 100..10000)");

/* 5 ms: long enough to pay a 1 ms period at 1/3 speed (2 ms) with room, short
 * enough to keep interrupts latencies far from any watchdog */
static unsigned int max_spin_us = 5000;
module_param(max_spin_us, uint, 0444);
MODULE_PARM_DESC(max_spin_us, "longest single spin, us; the rest is carried (default 5000)");

/* Effective switched capacitance, pF: sets P(3.0 GHz) ~ 7 W per core with the
 * default static power, a Xeon Gold 6148 core's share of its 150 W TDP
 * (20 cores) once uncore and I/O are set aside.  A calibration, not a datum. */
static unsigned int ceff_pf = 1800;
module_param(ceff_pf, uint, 0444);
MODULE_PARM_DESC(ceff_pf, "modeled effective switched capacitance per core, pF (default 1800)");

/* Leakage of a powered core at V(fmax): assumed 1 W; scaled by (V(f)/Vmax)^2 */
static unsigned int static_mw = 1000;
module_param(static_mw, uint, 0444);
MODULE_PARM_DESC(static_mw,
		 "modeled leakage of a core at V(fmax), mW, times (V(f)/Vmax)^2 (default 1000)");

static unsigned int volt_mv[VP_NR_FREQS] = VP_VOLT_MV_DEFAULT;
module_param_array(volt_mv, uint, NULL, 0444);
MODULE_PARM_DESC(volt_mv, "modeled core voltage per P-state, mV (default 700,750,800,870,950,1050)");

static unsigned int idle_mw[VP_NR_CSTATES] = {
	vp_cstates[0].power_mw, vp_cstates[1].power_mw, vp_cstates[2].power_mw,
};
module_param_array(idle_mw, uint, NULL, 0444);
MODULE_PARM_DESC(idle_mw,
		 "modeled idle power C1 (at V(fmax), times (V(f)/Vmax)^2),C1E,C6, mW (default 1000,440,50)");

/* A P-state change stalls the core ~10 us (the driver's transition latency)
 * at about full power: 10 us * ~6 W = 60 uJ.  Assumed. */
static unsigned int trans_uj = 60;
module_param(trans_uj, uint, 0444);
MODULE_PARM_DESC(trans_uj, "modeled energy of one P-state transition, uJ (default 60)");

/*
 * Off by default: a table driver switched from the governor's kthread, as
 * the stock governors' tests expect.  On: the driver also has ->fast_switch
 * and says fast_switch_possible, so that a governor that enables fast
 * switching (slack, schedutil) sets the frequency from the scheduler's
 * update hook, as acpi-cpufreq and intel_cpufreq (passive) do on servers.
 */
static bool fast_switch;
module_param(fast_switch, bool, 0444);
MODULE_PARM_DESC(fast_switch, "offer ->fast_switch to the governor (default 0)");

/*
 * CPUs (a bitmask of the first 32) that share one policy, as a cluster's
 * cores share a clock: 0 (the default) gives every CPU its own.  Set at
 * load; the CPUs outside it keep their own.
 */
static unsigned int shared_cpus;
module_param(shared_cpus, uint, 0444);
MODULE_PARM_DESC(shared_cpus, "bitmask of the CPUs that share one policy (default 0: one per CPU)");

static bool vfreq_shared(unsigned int cpu)
{
	return cpu < 32 && (shared_cpus & BIT(cpu));
}

/* ---- state ----------------------------------------------------------------------- */

/**
 * struct vfreq_cpu - one CPU's emulation and meter state.
 * @timer:		the slowdown's period (period_us), armed while @running
 * @work:		queued by @timer: charges and pays on the CPU
 * @running:		a non-idle task is current
 * @last_ns:		local_clock() of the last charge
 * @debt_ns:		spin owed and not yet paid
 * @fidx:		current P-state index (any CPU writes, READ_ONCE)
 * @busy_ns:		busy time charged (statistics, to @switch_charges)
 * @spun_ns:		time spun paying the debt
 * @spins:		spins done
 * @timer_charges:	charges by @work
 * @syscall_charges:	charges at syscall entry
 * @switch_charges:	charges at sched_switch
 * @lock:		the meter's lock, for @mstate to @transitions
 * @mstate:		VP_C0 or a C-state index
 * @mfidx:		P-state the meter charges C0 at
 * @since_ns:		ktime_get_ns() of the last meter update
 * @reset_ns:		ktime_get_ns() of the last reset
 * @res_f:		time in C0 per P-state, ns
 * @res_c:		time per C-state and P-state, ns
 * @energy_pj:		modeled energy since the last reset, pJ
 * @reset_pj:		energy_pj taken away by resets (the powercap zone's part)
 * @transitions:	P-state changes since the last reset
 *
 * The slowdown fields are touched only on their own CPU with interrupts off
 * (sched_switch, the irq_work, the syscall probe), so they need no lock;
 * other CPUs only read the statistics, racily.  The meter fields are written
 * from any CPU (a frequency change) and are under @lock.
 */
struct vfreq_cpu {
	struct hrtimer timer;
	struct irq_work work;
	bool running;
	u64 last_ns;
	u64 debt_ns;
	unsigned int fidx;
	u64 busy_ns, spun_ns, spins, timer_charges, syscall_charges, switch_charges;

	/* the meter */
	raw_spinlock_t lock;
	int mstate;
	unsigned int mfidx;
	u64 since_ns;
	u64 reset_ns;
	u64 res_f[VP_NR_FREQS];
	u64 res_c[VP_NR_CSTATES][VP_NR_FREQS];
	u64 energy_pj;
	u64 reset_pj;
	u64 transitions;
};

static DEFINE_PER_CPU(struct vfreq_cpu, vfreq_cpus);
static bool vfreq_active;		/* the slowdown runs: timers may be re-armed */
static u64 vfreq_busy_uw[VP_NR_FREQS];	/* P(f) per P-state, uW */
static u64 vfreq_idle_uw[VP_NR_CSTATES][VP_NR_FREQS];	/* Pidle(Ck, f), uW */
static struct dentry *vfreq_dir;

static struct cpufreq_frequency_table vfreq_table[VP_NR_FREQS + 1];

/* ---- the modeled-energy meter --------------------------------------------------- */

/* uW * ns = fJ; / 1000 = pJ */
static void vfreq_meter_advance(struct vfreq_cpu *st, u64 now)
{
	u64 dt;

	if (now <= st->since_ns)
		return;
	dt = now - st->since_ns;
	st->since_ns = now;
	if (st->mstate == VP_C0) {
		st->res_f[st->mfidx] += dt;
		st->energy_pj += div_u64(dt * vfreq_busy_uw[st->mfidx], 1000);
	} else {
		st->res_c[st->mstate][st->mfidx] += dt;
		st->energy_pj += div_u64(dt * vfreq_idle_uw[st->mstate][st->mfidx], 1000);
	}
}

static void vfreq_meter_set_freq(unsigned int cpu, unsigned int fidx)
{
	struct vfreq_cpu *st = per_cpu_ptr(&vfreq_cpus, cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&st->lock, flags);
	vfreq_meter_advance(st, ktime_get_ns());
	if (fidx != st->mfidx) {
		st->mfidx = fidx;
		st->transitions++;
		st->energy_pj += (u64)trans_uj * 1000000;
	}
	raw_spin_unlock_irqrestore(&st->lock, flags);
}

/*
 * cpu_idle tracepoint: @state is the entered state's index, PWR_EVENT_EXIT on
 * the way out.  The indexes are vidle's C-states only when vidle is the
 * cpuidle driver; the default idle (no driver: sti;hlt) is C1.
 */
static void vfreq_probe_cpu_idle(void *data, unsigned int state, unsigned int cpu)
{
	struct vfreq_cpu *st;
	struct cpuidle_driver *drv;
	unsigned long flags;
	u64 now = ktime_get_ns();

	if (cpu >= nr_cpu_ids)
		return;
	st = per_cpu_ptr(&vfreq_cpus, cpu);
	raw_spin_lock_irqsave(&st->lock, flags);
	if (state == VFREQ_PWR_EVENT_EXIT) {
		if (st->mstate != VP_C0) {
			/* the wake-up itself (the exit latency) is spent in C0 */
			u64 lat = (u64)vp_cstates[st->mstate].exit_us * NSEC_PER_USEC;

			if (now > st->since_ns + lat)
				vfreq_meter_advance(st, now - lat);
			st->mstate = VP_C0;
		}
		vfreq_meter_advance(st, now);
	} else {
		int k = 0;

		drv = cpuidle_get_driver();
		if (drv && !strcmp(drv->name, VP_IDLE_DRIVER) && state < VP_NR_CSTATES)
			k = state;
		vfreq_meter_advance(st, now);
		st->mstate = k;
	}
	raw_spin_unlock_irqrestore(&st->lock, flags);
}

static void vfreq_meter_reset(void)
{
	unsigned long flags;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct vfreq_cpu *st = per_cpu_ptr(&vfreq_cpus, cpu);

		raw_spin_lock_irqsave(&st->lock, flags);
		st->since_ns = st->reset_ns = ktime_get_ns();
		memset(st->res_f, 0, sizeof(st->res_f));
		memset(st->res_c, 0, sizeof(st->res_c));
		st->reset_pj += st->energy_pj;
		st->energy_pj = 0;
		st->transitions = 0;
		/* emulation statistics: racy against their CPU, good enough for stats */
		st->busy_ns = st->spun_ns = st->spins = 0;
		st->timer_charges = st->syscall_charges = st->switch_charges = 0;
		raw_spin_unlock_irqrestore(&st->lock, flags);
	}
}

/* ---- the slowdown ------------------------------------------------------------------ */

/* Add what the busy time since the last charge owes.  Own CPU, irqs off. */
static void vfreq_charge(struct vfreq_cpu *st, u64 now)
{
	unsigned int f = vp_freq_khz[READ_ONCE(st->fidx)];
	u64 busy;

	if (!st->running || now <= st->last_ns)
		return;
	busy = now - st->last_ns;
	st->last_ns = now;
	st->busy_ns += busy;
	if (f < VP_FMAX_KHZ)
		st->debt_ns += div_u64(busy * (VP_FMAX_KHZ - f), f);
}

/* Spin what is owed, at most max_spin_us.  Own CPU, irqs off. */
static void vfreq_pay(struct vfreq_cpu *st)
{
	u64 amount, start, end, now;

	if (!st->debt_ns)
		return;
	amount = min_t(u64, st->debt_ns, (u64)max_spin_us * NSEC_PER_USEC);
	start = local_clock();
	end = start + amount;
	do {
		cpu_relax();
		now = local_clock();
	} while (now < end);
	/* a vCPU stall during the spin paid for the work too: credit it */
	st->debt_ns -= min(st->debt_ns, now - start);
	st->spun_ns += now - start;
	st->spins++;
	st->last_ns = now;	/* the spin is not work */
}

static enum hrtimer_restart vfreq_timer_fn(struct hrtimer *timer)
{
	struct vfreq_cpu *st = container_of(timer, struct vfreq_cpu, timer);

	if (READ_ONCE(vfreq_active) && st->running)
		irq_work_queue(&st->work);
	return HRTIMER_NORESTART;
}

static void vfreq_work_fn(struct irq_work *work)
{
	struct vfreq_cpu *st = container_of(work, struct vfreq_cpu, work);

	/* pending across a switch to idle: keep the debt, leave the timer off */
	if (!READ_ONCE(vfreq_active) || !st->running)
		return;
	vfreq_charge(st, local_clock());
	st->timer_charges++;
	vfreq_pay(st);
	/* next expiry from now, after the spin: forwarding could land in the past */
	hrtimer_start(&st->timer, ns_to_ktime((u64)period_us * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED_HARD);
}

/* sched_switch: runqueue lock held, irqs off.  Charge, never spin here. */
static void vfreq_probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
				     struct task_struct *next, unsigned int prev_state)
{
	struct vfreq_cpu *st = this_cpu_ptr(&vfreq_cpus);
	bool run = !is_idle_task(next);
	u64 now = local_clock();

	if (st->running) {
		vfreq_charge(st, now);
		st->switch_charges++;
	}
	if (run && !st->running) {
		st->last_ns = now;
		st->running = true;
		hrtimer_start(&st->timer, ns_to_ktime((u64)period_us * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED_HARD);
	} else if (!run && st->running) {
		st->running = false;
		hrtimer_try_to_cancel(&st->timer);
	}
}

/* syscall entry: a task is current, irqs on, preemption off */
static void vfreq_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct vfreq_cpu *st;
	unsigned long flags;

	local_irq_save(flags);
	st = this_cpu_ptr(&vfreq_cpus);
	if (st->running) {
		vfreq_charge(st, local_clock());
		st->syscall_charges++;
		vfreq_pay(st);
	}
	local_irq_restore(flags);
}

/* on each CPU at load: learn whether a task is current, start its timer */
static void vfreq_start_cpu(void *unused)
{
	struct vfreq_cpu *st = this_cpu_ptr(&vfreq_cpus);

	st->last_ns = local_clock();
	st->running = !is_idle_task(current);
	if (st->running)
		hrtimer_start(&st->timer, ns_to_ktime((u64)period_us * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED_HARD);
}

/* ---- tracepoints (sched_switch is not exported to modules in 6.1) ------------------ */

struct vfreq_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool on;
};

enum { VFREQ_TP_IDLE, VFREQ_TP_SWITCH, VFREQ_TP_SYSCALL, VFREQ_NR_TP };

static struct vfreq_tp vfreq_tps[VFREQ_NR_TP] = {
	[VFREQ_TP_IDLE]    = { "cpu_idle",     vfreq_probe_cpu_idle },
	[VFREQ_TP_SWITCH]  = { "sched_switch", vfreq_probe_sched_switch },
	[VFREQ_TP_SYSCALL] = { "sys_enter",    vfreq_probe_sys_enter },
};

static void vfreq_find_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < VFREQ_NR_TP; i++)
		if (!strcmp(tp->name, vfreq_tps[i].name))
			vfreq_tps[i].tp = tp;
}

static int vfreq_tp_on(int i)
{
	struct vfreq_tp *t = &vfreq_tps[i];
	int ret;

	if (!t->tp) {
		pr_err("tracepoint %s not found\n", t->name);
		return -ENOENT;
	}
	ret = tracepoint_probe_register(t->tp, t->probe, NULL);
	if (ret)
		pr_err("tracepoint %s: register failed (%d)\n", t->name, ret);
	t->on = !ret;
	return ret;
}

static void vfreq_tps_off(void)
{
	int i;

	for (i = VFREQ_NR_TP - 1; i >= 0; i--) {
		if (!vfreq_tps[i].on)
			continue;
		tracepoint_probe_unregister(vfreq_tps[i].tp, vfreq_tps[i].probe, NULL);
		vfreq_tps[i].on = false;
	}
	tracepoint_synchronize_unregister();
}

static void vfreq_stop_timers(void)
{
	unsigned int cpu;

	WRITE_ONCE(vfreq_active, false);
	for_each_possible_cpu(cpu) {
		struct vfreq_cpu *st = per_cpu_ptr(&vfreq_cpus, cpu);

		/* a work already past its vfreq_active check may re-arm once */
		hrtimer_cancel(&st->timer);
		irq_work_sync(&st->work);
		hrtimer_cancel(&st->timer);
		irq_work_sync(&st->work);
	}
}

/* ---- the cpufreq driver -------------------------------------------------------------- */

static int vfreq_cpu_init(struct cpufreq_policy *policy)
{
	/* start one below the top, as the first cut did: a governor must act */
	unsigned int fidx = VP_NR_FREQS - 2, cpu;

	if (vfreq_shared(policy->cpu))
		for_each_possible_cpu(cpu)
			if (vfreq_shared(cpu))
				cpumask_set_cpu(cpu, policy->cpus);
	policy->freq_table = vfreq_table;
	/* 10 us: a typical server P-state change (used by the dbs governors' rate) */
	policy->cpuinfo.transition_latency = 10 * NSEC_PER_USEC;
	policy->cur = vp_freq_khz[fidx];
	policy->fast_switch_possible = fast_switch;
	for_each_cpu(cpu, policy->cpus) {
		WRITE_ONCE(per_cpu(vfreq_cpus, cpu).fidx, fidx);
		vfreq_meter_set_freq(cpu, fidx);
	}
	return 0;
}

/* every CPU of the policy, online or not, runs at its frequency */
static int vfreq_target_index(struct cpufreq_policy *policy, unsigned int index)
{
	unsigned int cpu;

	for_each_cpu(cpu, policy->related_cpus) {
		WRITE_ONCE(per_cpu(vfreq_cpus, cpu).fidx, index);
		vfreq_meter_set_freq(cpu, index);
	}
	return 0;
}

/*
 * ->fast_switch: called with interrupts off from the scheduler's update hook
 * (the meter takes a raw spinlock with irqsave, so that is safe).  The
 * governor hands a resolved table frequency; the lowest P-state at or above
 * it is taken all the same (CPUFREQ_RELATION_L), the top one if none is.
 */
static unsigned int vfreq_fast_switch(struct cpufreq_policy *policy, unsigned int target_freq)
{
	unsigned int i;

	for (i = 0; i < VP_NR_FREQS - 1 && vp_freq_khz[i] < target_freq; i++)
		;
	vfreq_target_index(policy, i);
	return vp_freq_khz[i];
}

static unsigned int vfreq_get(unsigned int cpu)
{
	return vp_freq_khz[READ_ONCE(per_cpu(vfreq_cpus, cpu).fidx)];
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

/* ---- debugfs -------------------------------------------------------------------------- */

static int vfreq_freq_show(struct seq_file *m, void *v)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		seq_printf(m, "cpu%u %u\n", cpu, vfreq_get(cpu));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vfreq_freq);

static int vfreq_emulation_show(struct seq_file *m, void *v)
{
	unsigned int cpu;

	seq_printf(m, "emulate %d\ncharge_syscalls %d\nperiod_us %u\nmax_spin_us %u\nfmax_khz %u\n",
		   emulate, charge_syscalls, period_us, max_spin_us, VP_FMAX_KHZ);
	for_each_possible_cpu(cpu) {
		struct vfreq_cpu *st = per_cpu_ptr(&vfreq_cpus, cpu);

		seq_printf(m, "cpu%u.freq_khz %u\n", cpu, vfreq_get(cpu));
		seq_printf(m, "cpu%u.busy_ns %llu\n", cpu, READ_ONCE(st->busy_ns));
		seq_printf(m, "cpu%u.spun_ns %llu\n", cpu, READ_ONCE(st->spun_ns));
		seq_printf(m, "cpu%u.debt_ns %llu\n", cpu, READ_ONCE(st->debt_ns));
		seq_printf(m, "cpu%u.spins %llu\n", cpu, READ_ONCE(st->spins));
		seq_printf(m, "cpu%u.timer_charges %llu\n", cpu, READ_ONCE(st->timer_charges));
		seq_printf(m, "cpu%u.syscall_charges %llu\n", cpu, READ_ONCE(st->syscall_charges));
		seq_printf(m, "cpu%u.switch_charges %llu\n", cpu, READ_ONCE(st->switch_charges));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vfreq_emulation);

static int vfreq_model_show(struct seq_file *m, void *v)
{

	int i, j;

	seq_puts(m, "# modeled energy: P(f) = ceff * f * V(f)^2 + static * (V(f)/Vmax)^2;"
		 " units in the key names\n");
	seq_printf(m, "ceff_pf %u\nstatic_mw %u\ntrans_uj %u\n", ceff_pf, static_mw, trans_uj);
	for (i = 0; i < VP_NR_FREQS; i++) {
		seq_printf(m, "volt_mv.f%u %u\n", vp_freq_khz[i], volt_mv[i]);
		seq_printf(m, "busy_uw.f%u %llu\n", vp_freq_khz[i], vfreq_busy_uw[i]);
	}
	for (i = 0; i < VP_NR_CSTATES; i++) {
		seq_printf(m, "idle_mw.%s %u\n", vp_cstates[i].name, idle_mw[i]);
		seq_printf(m, "exit_us.%s %u\n", vp_cstates[i].name, vp_cstates[i].exit_us);
		for (j = 0; j < VP_NR_FREQS; j++)
			seq_printf(m, "idle_uw.%s.f%u %llu\n", vp_cstates[i].name, vp_freq_khz[j],
				   vfreq_idle_uw[i][j]);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vfreq_model);

/* what one CPU's meter says now */
struct vfreq_snap {
	u64 interval_ns, energy_pj, transitions;
	u64 res_f[VP_NR_FREQS], res_c[VP_NR_CSTATES][VP_NR_FREQS];
};

static void vfreq_snapshot(unsigned int cpu, struct vfreq_snap *s)
{
	struct vfreq_cpu *st = per_cpu_ptr(&vfreq_cpus, cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&st->lock, flags);
	vfreq_meter_advance(st, ktime_get_ns());
	s->interval_ns = st->since_ns - st->reset_ns;
	s->energy_pj = st->energy_pj;
	s->transitions = st->transitions;
	memcpy(s->res_f, st->res_f, sizeof(s->res_f));
	memcpy(s->res_c, st->res_c, sizeof(s->res_c));
	raw_spin_unlock_irqrestore(&st->lock, flags);
}

enum { VFREQ_SHOW_METER, VFREQ_SHOW_RESIDENCY };

static int vfreq_meter_show(struct seq_file *m, void *v)
{
	long what = (long)m->private;
	struct vfreq_snap s;
	u64 total = 0;
	unsigned int cpu;
	int i, j;

	if (what == VFREQ_SHOW_METER)
		seq_puts(m, "# modeled energy, not measured\n");
	for_each_possible_cpu(cpu) {
		const char *pre = what == VFREQ_SHOW_METER ? "res_ns." : "";

		vfreq_snapshot(cpu, &s);
		total += s.energy_pj;
		for (i = 0; i < VP_NR_FREQS; i++)
			seq_printf(m, "cpu%u.%sf%u %llu\n", cpu, pre, vp_freq_khz[i], s.res_f[i]);
		for (i = 0; i < VP_NR_CSTATES; i++) {
			u64 sum = 0;

			for (j = 0; j < VP_NR_FREQS; j++)
				sum += s.res_c[i][j];
			seq_printf(m, "cpu%u.%s%s %llu\n", cpu, pre, vp_cstates[i].name, sum);
		}
		if (what != VFREQ_SHOW_METER)
			continue;
		for (i = 0; i < VP_NR_CSTATES; i++)
			for (j = 0; j < VP_NR_FREQS; j++)
				seq_printf(m, "cpu%u.res_ns.%s.f%u %llu\n", cpu,
					   vp_cstates[i].name, vp_freq_khz[j], s.res_c[i][j]);
		seq_printf(m, "cpu%u.interval_ns %llu\n", cpu, s.interval_ns);
		seq_printf(m, "cpu%u.transitions %llu\n", cpu, s.transitions);
		seq_printf(m, "cpu%u.energy_uj %llu\n", cpu, div_u64(s.energy_pj, 1000000));
	}
	if (what == VFREQ_SHOW_METER)
		seq_printf(m, "total.energy_uj %llu\n", div_u64(total, 1000000));
	return 0;
}

static int vfreq_meter_open(struct inode *inode, struct file *file)
{
	return single_open(file, vfreq_meter_show, inode->i_private);
}

static const struct file_operations vfreq_meter_fops = {
	.owner		= THIS_MODULE,
	.open		= vfreq_meter_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static ssize_t vfreq_reset_write(struct file *file, const char __user *buf, size_t len,
				 loff_t *ppos)
{
	vfreq_meter_reset();
	return len;
}

static const struct file_operations vfreq_reset_fops = {
	.owner	= THIS_MODULE,
	.write	= vfreq_reset_write,
	.llseek	= noop_llseek,
};

static void vfreq_debugfs_init(void)
{
	vfreq_dir = debugfs_create_dir("vplatform", NULL);
	debugfs_create_file("freq_khz", 0444, vfreq_dir, NULL, &vfreq_freq_fops);
	debugfs_create_file("emulation", 0444, vfreq_dir, NULL, &vfreq_emulation_fops);
	debugfs_create_file("model", 0444, vfreq_dir, NULL, &vfreq_model_fops);
	debugfs_create_file("meter", 0444, vfreq_dir, (void *)VFREQ_SHOW_METER, &vfreq_meter_fops);
	debugfs_create_file("residency_ns", 0444, vfreq_dir, (void *)VFREQ_SHOW_RESIDENCY,
			    &vfreq_meter_fops);
	debugfs_create_file("reset", 0200, vfreq_dir, NULL, &vfreq_reset_fops);
}

/* ---- the powercap zones -------------------------------------------------------------- */

/*
 * DOC: powercap zones
 *
 * The meter's energy as powercap zones, read as intel-rapl's are on
 * hardware, so that slackctl, the bench and the demo have one reader:
 *
 *	/sys/class/powercap/vplatform:0	  "package-0", all CPUs
 *	/sys/class/powercap/vplatform:0:N  "cpuN", one per possible CPU N
 *
 * as intel-rapl:0 ("package-0") has its intel-rapl:0:0 ("core") and
 * intel-rapl:0:1 ("uncore") subzones.  A subzone is named after its CPU;
 * its folder's number is the framework's id under the package, equal to
 * the CPU number only while possible CPUs have no holes: readers go by
 * the name.  Each zone's energy_uj is the modeled energy since the module
 * was loaded (the debugfs reset does not move it: a powercap counter only
 * grows), in uJ modulo energy_range_uj, the zone's max_energy_range_uj: the
 * counter runs 0 .. max_energy_range_uj - 1 and wraps to 0, so the energy
 * of an interval over which it went backwards is after - before +
 * max_energy_range_uj (one wrap; a reader must read at least once a wrap).
 * The package is the sum of its subzones, rounded once.  No power limit:
 * no constraints.
 */

/*
 * 262143328850 uJ: the range intel-rapl reports for a package on Xeons
 * (a 32-bit counter of 61.035 uJ units, 2^-14 J), where it wraps after
 * about 30 min at 150 W; here, at ~7 W a busy core, after hours.  Small
 * values make the wrap show within seconds, to test the readers.
 */
#define VFREQ_RANGE_MIN_UJ	1000000ULL	/* 1 J */
/* the most uJ the meter's pJ sum holds: it wraps at 2^64 pJ (18 MJ, two weeks of a busy 2-CPU guest) */
#define VFREQ_RANGE_MAX_UJ	(U64_MAX / 1000000)
static unsigned long long energy_range_uj = 262143328850ULL;
module_param(energy_range_uj, ullong, 0444);
MODULE_PARM_DESC(energy_range_uj,
		 "powercap zones' max_energy_range_uj: energy_uj wraps to 0 there (default 262143328850, >= 1000000)");

/**
 * struct vfreq_pc_zone - a powercap zone of the meter.
 * @zone: the framework's zone, in this driver's memory (the zone's ops
 *	  then need ->release; it has nothing to free).
 * @cpu:  the CPU whose energy it reads, or -1 for the package (all CPUs);
 *	  set before registration, so a read never meets it unset.
 * @registered: powercap_register_zone() took it: the exit unregisters it.
 */
struct vfreq_pc_zone {
	struct powercap_zone zone;
	int cpu;
	bool registered;
};

static struct powercap_control_type *vfreq_pc_type;
static struct vfreq_pc_zone vfreq_pc_pkg = { .cpu = -1 };
static struct vfreq_pc_zone *vfreq_pc_cpus;	/* nr_cpu_ids entries */

/* modeled energy of @cpu since load, pJ */
static u64 vfreq_cpu_total_pj(unsigned int cpu)
{
	struct vfreq_cpu *st = per_cpu_ptr(&vfreq_cpus, cpu);
	unsigned long flags;
	u64 pj;

	raw_spin_lock_irqsave(&st->lock, flags);
	vfreq_meter_advance(st, ktime_get_ns());
	pj = st->energy_pj + st->reset_pj;
	raw_spin_unlock_irqrestore(&st->lock, flags);
	return pj;
}

static int vfreq_pc_energy_uj(struct powercap_zone *pz, u64 *uj)
{
	struct vfreq_pc_zone *z = container_of(pz, struct vfreq_pc_zone, zone);
	unsigned int cpu;
	u64 pj = 0;

	if (z->cpu >= 0)
		pj = vfreq_cpu_total_pj(z->cpu);
	else
		for_each_possible_cpu(cpu)
			pj += vfreq_cpu_total_pj(cpu);
	div64_u64_rem(div_u64(pj, 1000000), energy_range_uj, uj);
	return 0;
}

static int vfreq_pc_max_uj(struct powercap_zone *pz, u64 *uj)
{
	*uj = energy_range_uj;
	return 0;
}

/* the zones live in this driver's memory until module exit */
static int vfreq_pc_release(struct powercap_zone *pz)
{
	return 0;
}

static const struct powercap_zone_ops vfreq_pc_ops = {
	.get_energy_uj		 = vfreq_pc_energy_uj,
	.get_max_energy_range_uj = vfreq_pc_max_uj,
	.release		 = vfreq_pc_release,
};

/* powercap_register_zone() wants constraint ops even for no constraint */
static int vfreq_pc_no_limit(struct powercap_zone *pz, int id, u64 *v)
{
	return -EOPNOTSUPP;
}

static int vfreq_pc_no_set(struct powercap_zone *pz, int id, u64 v)
{
	return -EOPNOTSUPP;
}

static const struct powercap_zone_constraint_ops vfreq_pc_const_ops = {
	.get_power_limit_uw	= vfreq_pc_no_limit,
	.set_power_limit_uw	= vfreq_pc_no_set,
	.get_time_window_us	= vfreq_pc_no_limit,
	.set_time_window_us	= vfreq_pc_no_set,
};

static int vfreq_pc_register(struct vfreq_pc_zone *z, const char *name,
			     struct vfreq_pc_zone *parent)
{
	struct powercap_zone *pz;

	pz = powercap_register_zone(&z->zone, vfreq_pc_type, name, parent ? &parent->zone : NULL,
				    &vfreq_pc_ops, 0, &vfreq_pc_const_ops);
	if (IS_ERR(pz)) {
		pr_err("powercap zone %s: %ld\n", name, PTR_ERR(pz));
		return PTR_ERR(pz);
	}
	z->registered = true;
	return 0;
}

/* subzones first, in reverse order, then the package and the type */
static void vfreq_powercap_exit(void)
{
	int cpu;

	for (cpu = nr_cpu_ids - 1; cpu >= 0; cpu--)
		if (vfreq_pc_cpus[cpu].registered)
			powercap_unregister_zone(vfreq_pc_type, &vfreq_pc_cpus[cpu].zone);
	if (vfreq_pc_pkg.registered)
		powercap_unregister_zone(vfreq_pc_type, &vfreq_pc_pkg.zone);
	vfreq_pc_pkg.registered = false;
	powercap_unregister_control_type(vfreq_pc_type);
	kfree(vfreq_pc_cpus);
	vfreq_pc_cpus = NULL;
}

static int vfreq_powercap_init(void)
{
	char name[16];
	unsigned int cpu;
	int ret;

	vfreq_pc_cpus = kcalloc(nr_cpu_ids, sizeof(*vfreq_pc_cpus), GFP_KERNEL);
	if (!vfreq_pc_cpus)
		return -ENOMEM;
	vfreq_pc_type = powercap_register_control_type(NULL, "vplatform", NULL);
	if (IS_ERR(vfreq_pc_type)) {
		ret = PTR_ERR(vfreq_pc_type);
		goto err_free;
	}
	ret = vfreq_pc_register(&vfreq_pc_pkg, "package-0", NULL);
	if (ret)
		goto err_zones;
	for_each_possible_cpu(cpu) {
		vfreq_pc_cpus[cpu].cpu = cpu;
		snprintf(name, sizeof(name), "cpu%u", cpu);
		ret = vfreq_pc_register(&vfreq_pc_cpus[cpu], name, &vfreq_pc_pkg);
		if (ret)
			goto err_zones;
	}
	return 0;

err_zones:
	vfreq_powercap_exit();	/* what was registered, subzones first */
	return ret;
err_free:
	kfree(vfreq_pc_cpus);
	vfreq_pc_cpus = NULL;
	return ret;
}

/* ---- init / exit -------------------------------------------------------------------------- */

static int vfreq_model_init(void)
{
	int i, k;

	if (period_us < 100 || period_us > 10000 || !max_spin_us || max_spin_us > 20000) {
		pr_err("period_us must be 100..10000 and max_spin_us 1..20000\n");
		return -EINVAL;
	}
	if (energy_range_uj < VFREQ_RANGE_MIN_UJ || energy_range_uj > VFREQ_RANGE_MAX_UJ) {
		pr_err("energy_range_uj must be %llu..%llu\n", VFREQ_RANGE_MIN_UJ, VFREQ_RANGE_MAX_UJ);
		return -EINVAL;
	}
	u64 vmax2 = (u64)volt_mv[VP_NR_FREQS - 1] * volt_mv[VP_NR_FREQS - 1];

	for (i = 0; i < VP_NR_FREQS; i++) {
		u64 v = volt_mv[i];

		if (!v || v > 2000) {
			pr_err("volt_mv[%d] = %u out of range 1..2000\n", i, volt_mv[i]);
			return -EINVAL;
		}
	}
	for (i = 0; i < VP_NR_FREQS; i++) {
		u64 v2 = (u64)volt_mv[i] * volt_mv[i];

		vfreq_table[i].frequency = vp_freq_khz[i];
		/* pF * kHz * mV^2 = 1e-12 * 1e3 * 1e-6 W = 1e-15 W = 1e-9 uW */
		vfreq_busy_uw[i] = div_u64((u64)ceff_pf * vp_freq_khz[i] * v2, 1000000000) +
				   div_u64((u64)static_mw * 1000 * v2, vmax2);
		/* C1 is clock gated at V(f): leakage only; C1E and C6 do not depend on f */
		for (k = 0; k < VP_NR_CSTATES; k++)
			vfreq_idle_uw[k][i] = vp_cstates[k].volt_scaled ?
				div_u64((u64)idle_mw[k] * 1000 * v2, vmax2) : (u64)idle_mw[k] * 1000;
	}
	vfreq_table[VP_NR_FREQS].frequency = CPUFREQ_TABLE_END;
	return 0;
}

static int __init vfreq_init(void)
{
	unsigned int cpu;
	int ret;

	ret = vfreq_model_init();
	if (ret)
		return ret;

	for_each_possible_cpu(cpu) {
		struct vfreq_cpu *st = per_cpu_ptr(&vfreq_cpus, cpu);

		hrtimer_init(&st->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		st->timer.function = vfreq_timer_fn;
		st->work = IRQ_WORK_INIT_HARD(vfreq_work_fn);
		raw_spin_lock_init(&st->lock);
		st->mstate = VP_C0;
		st->fidx = st->mfidx = VP_NR_FREQS - 1;
		st->since_ns = st->reset_ns = ktime_get_ns();
	}

	for_each_kernel_tracepoint(vfreq_find_tp, NULL);
	ret = vfreq_tp_on(VFREQ_TP_IDLE);
	if (ret)
		return ret;

	if (fast_switch)
		vfreq_driver.fast_switch = vfreq_fast_switch;
	ret = cpufreq_register_driver(&vfreq_driver);
	if (ret) {
		pr_err("cpufreq_register_driver: %d\n", ret);
		goto err_tps;
	}

	if (emulate) {
		WRITE_ONCE(vfreq_active, true);
		ret = vfreq_tp_on(VFREQ_TP_SWITCH);
		if (ret)
			goto err_timers;
		on_each_cpu(vfreq_start_cpu, NULL, 1);
		if (charge_syscalls) {
			ret = vfreq_tp_on(VFREQ_TP_SYSCALL);
			if (ret)
				goto err_timers;
		}
	}

	vfreq_meter_reset();
	ret = vfreq_powercap_init();
	if (ret) {
		pr_err("powercap zones: %d\n", ret);
		goto err_powercap;
	}
	vfreq_debugfs_init();
	pr_info("%d P-states %u-%u MHz, slowdown %s, fast switch %s, modeled energy in powercap vplatform:0\n",
		VP_NR_FREQS, vp_freq_khz[0] / 1000, VP_FMAX_KHZ / 1000, emulate ? "on" : "off",
		fast_switch ? "on" : "off");
	return 0;

err_powercap:
err_timers:
	vfreq_tps_off();
	vfreq_stop_timers();
	cpufreq_unregister_driver(&vfreq_driver);
	return ret;
err_tps:
	vfreq_tps_off();
	return ret;
}

static void __exit vfreq_exit(void)
{
	debugfs_remove_recursive(vfreq_dir);
	vfreq_powercap_exit();
	vfreq_tps_off();
	vfreq_stop_timers();
	cpufreq_unregister_driver(&vfreq_driver);
}

module_init(vfreq_init);
module_exit(vfreq_exit);
MODULE_DESCRIPTION("slackgov test: emulated DVFS (real slowdown) and modeled-energy meter");
MODULE_LICENSE("GPL");
