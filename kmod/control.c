// SPDX-License-Identifier: GPL-2.0
/*
 * control.c - the slack governor's control law: PID on target slack, the
 * saturation boost, and the utilization rule for policies without targets.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include "sg.h"

/**
 * DOC: slack control law
 *
 * The governor holds each policy's *most constrained* target at its slack
 * setpoint with the lowest frequency that does it.  All arithmetic is
 * integer: ratios in thousandths (1000 == 1.0), gains x1000, frequencies in
 * kHz.  One step runs per policy whenever a new sample (one closed window
 * of one target, from the BPF side through slackgov_report()) names one of
 * the policy's CPUs, at most once per ``rate_limit_us`` for frequency
 * changes (saturation and the safe frequency are not rate limited).
 *
 * 1. **Inputs.**  Every sample younger than ``stale_ms`` that named one of
 *    the policy's CPUs is *fresh* (a CPU keeps the latest sample of each of
 *    its last SG_CPU_SLOTS = 4 targets).  A single window is a poor
 *    measurement: with ~1 ms requests a 10 ms window holds a handful of
 *    them, and its slack swings over the whole 0..1000 range at any load
 *    (under performance, make demo's 300 req/s step had windows from 3 to
 *    790).  So each slot also keeps s_j, the target's slack averaged over
 *    its windows, weighted by window length::
 *
 *        s_j += (slack - s_j) * len / (len + tau),   tau = 40 ms
 *
 *    (SG_SLACK_TAU_NS: four default windows, 10-30 requests at 300-700
 *    req/s.)  Each fresh target j has a setpoint sp_j: its own
 *    (``slackgov_sample.setpoint``, set per target by slackctl) or, when
 *    that is 0, the ``setpoint`` knob.  Its error is e_j = s_j - sp_j:
 *    positive means spare capacity, negative a deficit.  Several targets
 *    combine by taking the **most constrained**: the smallest e_j (the
 *    largest deficit).  Lowering the frequency is only safe when every
 *    target on the policy has room for it, so the policy follows the worst
 *    one; a target with spare slack cannot pull the frequency down under a
 *    target that is short of it.
 *
 * 2. **Saturation.**  If the latest window of any fresh target has
 *    ``cv > sat_cv`` (its inter-arrival variability shows a queue building;
 *    ``sat_cv`` = 0 disables this test) or its own slack collapsed below
 *    SG_COLLAPSE_SLACK = 50 (the workers waited less than 5 % of the window:
 *    they were busy through it), this decision asks for the policy's max at
 *    once, whatever the PID says, without the rate limit, and mode is
 *    ``boost``.  It is decided on the single window, not on the average, so
 *    that the first saturated window already boosts.  The boost does not
 *    touch the PID: it keeps running on the averaged slack (which the
 *    collapsed window pulls down).  The boost is held (reason
 *    ``saturated-drain``) until a window of that target shows slack back at
 *    its setpoint: the queue that built up is drained at max, not at the
 *    frequency that let it build.  Then the PID's output applies again.  It
 *    is held only while the average confirms a deficit, below half the
 *    setpoint (SG_DRAIN_CONFIRM_DIV): one collapsed window is most likely
 *    noise (single windows collapse now and then at any load: 30-80 boosts
 *    in 5 s cells at 10 % load in tune.sh), so that boost lasts one window.
 *    (Before, every boost was held while the average was below the
 *    setpoint; an average that hovers at the setpoint is below it about half
 *    of the time, so noise held max.  tune.sh, 3 repetitions each, the two
 *    builds run one after the other (the host's speed differed, so only
 *    ratios to performance in the same run compare): at 50 % of the nominal
 *    load -17.5 % modeled energy per request against -9.6 % before, p99
 *    2.1x against 1.5x performance's; at 70 % both within 1 % of
 *    performance's energy and p99 0.96x.)
 *    (The first cut restarted the PID from max after every boost and
 *    stepped on single windows; in make demo its frequency swung over the
 *    whole table within a second at 100-300 req/s.)
 *
 * 3. **Deadband.**  e = e_min shrunk by ``deadband`` toward zero::
 *
 *        e = 0                  if |e_min| <= deadband
 *        e = e_min - deadband   if e_min > deadband
 *        e = e_min + deadband   if e_min < -deadband
 *
 *    Inside the band the integral term adds nothing, so the output stays
 *    where it is (hysteresis); the shift keeps e continuous at the band's
 *    edges, so entering or leaving it causes no jump.
 *
 * 4. **PID, velocity form.**  With e1, e2 the errors of the previous two
 *    steps and span = cpuinfo.max_freq - cpuinfo.min_freq (kHz)::
 *
 *        P  = kp * (e - e1)
 *        I  = ki * e
 *        D  = kd * (e - 2*e1 + e2)
 *        du = -span * (P + I + D) / 1000000
 *        u  = clamp(u + du + ff, policy->min, policy->max)
 *
 *    (/1000000: gains and errors are both thousandths.)  A gain of 1000 and
 *    an error of 100 (10 % slack too much) move the output by 10 % of the
 *    range per window.  The controller keeps the output u itself, not an
 *    integral: clamping u to the policy limits is the anti-windup (nothing
 *    accumulates while the output sits at a limit).  The driver gets u with
 *    CPUFREQ_RELATION_L (the lowest table step at or above u); u keeps its
 *    sub-step remainder, so small errors still add up to a step.
 *
 *    **Asymmetry.**  The integral term is divided by SG_DOWN_DIV = 4 when it
 *    lowers u (e > 0): a deficit costs latency at once, spare slack only
 *    costs energy, so the controller rises fast and comes down slowly, and
 *    it settles where the average slack is a little above the setpoint
 *    rather than below.  P and D stay symmetric: in velocity form they sum
 *    to zero over any stretch that starts and ends at the same error, so
 *    noise cannot ratchet u.  (Dividing every down move, as first done,
 *    did ratchet it: zero-mean noise in e gave full-size P kicks up and
 *    quarter-size kicks down, and in guest-loadstep.sh on a loaded host u
 *    stayed at max through a 6 s phase whose average slack was 578.)
 *
 *    Defaults kp = 300, ki = 200, kd = 0, setpoint 350, deadband 50.
 *    Around the operating point slack moves ~1:1 with the frequency as a
 *    share of span (slack = 1 - work/f), so the loop gain per window is
 *    about ki / 1000 = 0.2 up and 0.05 down: a load step is absorbed in ~5
 *    windows upward without overshoot even with the averaging lag
 *    (the loop oscillates above ~0.5).  kp adds damping for fast changes;
 *    kd is off because slack, a ratio over short windows, is noisy and its
 *    second difference is mostly noise.  The setpoint 350 (workers busy
 *    65 %): in tune.sh against performance and ondemand (epoll server, 2
 *    repetitions of 6 s cells) it used 30 % and 16 % less modeled energy
 *    per request than performance at 30 % and 50 % of the nominal load,
 *    with p99 26 ms against performance's 10-13 ms (SLO 5x the unloaded
 *    p99: ~50 ms); 450 saved 28 % and 10 %, 250 raised the p99 to 29 ms at
 *    50 %.  At 70 % every setpoint stayed within 1 % of performance's
 *    energy: the server is near its capacity, nothing is left to save.
 *    The first cut's 200 without averaging let the p99 grow 2-5x.  Values
 *    chosen on the emulated platform, not on hardware.
 *
 * 5. **Feed-forward** (``ff_gain``, default 0 = off).  When the same target
 *    as in the previous step reports a changed request rate, the work per
 *    second changed in proportion, and so does the frequency it needs::
 *
 *        ff = ff_gain * u * (rps - rps1) / (rps1 * 1000),  |ff| <= span
 *
 *    so the frequency moves with a load change in the same window instead of
 *    waiting for slack to show it.
 *
 * 6. **Holding.**  The PID steps once per new window of the target it
 *    follows (the most constrained one); a rate-limited retry, a timer, or
 *    a window of another target holds the output.  So it never steps twice
 *    on the same data, and N targets on a policy do not multiply its gain.
 *
 * 7. **No targets: utilization rule.**  A policy whose CPUs never had a
 *    fresh sample (or lost them for good, see below) is driven by load, as
 *    ondemand does: load = max over the policy's CPUs of busy / wall time
 *    from get_cpu_idle_time() since the previous step, thousandths::
 *
 *        f = max                        if load >= 950
 *        f = cur * load * 5 / 4 / 1000  otherwise, clamped to min..max
 *
 *    1.25 (5/4) puts the tipping point at 80 % load, as schedutil's C does;
 *    the load is measured at the current frequency (the guest has no APERF/
 *    MPERF, so no frequency invariance), hence the factor ``cur``.  At 95 %
 *    load a CPU gives no information on how much more it needs, so it goes
 *    to max like ondemand above its up_threshold.  Steps come from the
 *    scheduler's update_util hook (at most once per rate_limit_us, and at
 *    least 2 ms apart so that the idle accounting's microsecond grain stays
 *    below 0.1 %), plus a recheck every 100 ms while above min, so a CPU
 *    that went idle does not keep a high frequency.
 *
 * 8. **Stale signal.**  When a policy that had samples gets none for
 *    ``stale_ms`` (the BPF side was detached, the target was killed or
 *    stopped making syscalls), it goes to ``safe_khz`` (0 = the policy max),
 *    counts a fallback, emits slackgov_stale and changes no idle constraint
 *    (relax nothing: a target may still be there).  The safe frequency is
 *    held for SG_SAFE_HOLD_MS = 5 s: long enough to cover a restart of the
 *    BPF side (slackctl reloads in ~1-2 s), short enough that a server
 *    whose feed is gone for good stops running at max within seconds.  Then
 *    the policy returns to the utilization rule (reason ``lost``) and drops
 *    its idle constraints; samples arriving again start the PID from the
 *    current frequency.  Samples arriving again within the hold resume the
 *    PID where it was before the gap: a gap says nothing about the load
 *    (under a loaded emulator the feed stalls for 50 ms now and then), and
 *    restarting from the safe max would cost a walk down at a quarter of the
 *    up gain (step 4); a real overload shows in the first window (step 2).
 */

const char * const sg_reason_names[SG_R_NR] = {
	[SG_R_NONE]	= "none",
	[SG_R_PID]	= "pid",
	[SG_R_DEADBAND]	= "deadband",
	[SG_R_HOLD]	= "hold",
	[SG_R_SAT_CV]	= "saturated-cv",
	[SG_R_SAT_SLACK] = "saturated-slack",
	[SG_R_SAT_DRAIN] = "saturated-drain",
	[SG_R_STALE]	= "stale",
	[SG_R_LOST]	= "lost",
	[SG_R_UTIL]	= "util",
	[SG_R_UTIL_MAX]	= "util-max",
};

const char * const sg_mode_names[SG_MODE_NR] = {
	[SG_MODE_UTIL]	= "util",
	[SG_MODE_SLACK]	= "slack",
	[SG_MODE_SAFE]	= "safe",
	[SG_MODE_BOOST]	= "boost",
};

/* Gains and errors are both in thousandths: their product is in millionths. */
#define SG_PID_SCALE		1000000
/* Util rule: load at or above which the CPU goes to max (ondemand's up_threshold). */
#define SG_UTIL_UP		950
/*
 * The integral term is this many times smaller when it lowers the output
 * (step 4).  A deficit costs latency at once, spare slack only costs energy:
 * so rise fast and come down slowly.  4: measured with tune.sh, see step 4.
 */
#define SG_DOWN_DIV		4
/* Util rule headroom 5/4 = 1.25: frequency equals cur at 80 % load (schedutil's C). */
#define SG_UTIL_HEADROOM_NUM	5
#define SG_UTIL_HEADROOM_DEN	4

static unsigned int sg_span_khz(const struct cpufreq_policy *policy)
{
	if (policy->cpuinfo.max_freq > policy->cpuinfo.min_freq)
		return policy->cpuinfo.max_freq - policy->cpuinfo.min_freq;
	return max(policy->cpuinfo.max_freq, 1U);
}

/**
 * sg_control_reset - restart the PID from a given output (bumpless transfer)
 * @pid:	controller state
 * @cur_khz:	the frequency the policy runs at now
 */
void sg_control_reset(struct sg_pid *pid, unsigned int cur_khz)
{
	pid->u_khz = cur_khz;
	pid->e1 = 0;
	pid->e2 = 0;
	pid->rps1 = 0;
	pid->target1 = U32_MAX;
}

/**
 * sg_control_step - one step of the control law (see the DOC block above)
 * @t:		tunables (read once each)
 * @pid:	controller state of the policy, updated
 * @in:		the policy's inputs (steps 1 and 2 are computed by the caller)
 * @policy:	the policy (limits)
 * @out:	the chosen frequency, the terms and the reason
 *
 * Context: any (atomic included); the caller serialises per policy.
 */
void sg_control_step(const struct sg_tunables *t, struct sg_pid *pid,
		     const struct sg_ctl_in *in, const struct cpufreq_policy *policy,
		     struct sg_ctl_out *out)
{
	s64 lo = policy->min, hi = policy->max, span = sg_span_khz(policy);
	s32 db = READ_ONCE(t->deadband), e;
	s64 du;
	u32 ff_gain = READ_ONCE(t->ff_gain);

	memset(out, 0, sizeof(*out));
	if (!in->fresh) {				/* step 6 */
		pid->u_khz = clamp(pid->u_khz, lo, hi);
		out->err = pid->e1;
		out->reason = SG_R_HOLD;
	} else {
		e = (s32)in->slack - (s32)in->setpoint;	/* step 3 */
		if (abs(e) <= db)
			e = 0;
		else
			e += e > 0 ? -db : db;

		/* step 4: each term already in kHz, sign: spare slack lowers u */
		out->p = -div_s64(span * READ_ONCE(t->kp) * (e - pid->e1), SG_PID_SCALE);
		out->i = -div_s64(span * READ_ONCE(t->ki) * e, SG_PID_SCALE);
		out->d = -div_s64(span * READ_ONCE(t->kd) * (e - 2 * pid->e1 + pid->e2),
				  SG_PID_SCALE);

		/* step 5 */
		if (ff_gain && pid->rps1 && in->rps && in->target == pid->target1) {
			out->ff = div_s64(pid->u_khz * ff_gain * ((s64)in->rps - pid->rps1),
					  (s64)pid->rps1 * 1000);
			out->ff = clamp(out->ff, -span, span);
		}
		/* step 4: the integral moves down at 1/SG_DOWN_DIV of its gain */
		if (out->i < 0)
			out->i = div_s64(out->i, SG_DOWN_DIV);
		du = out->p + out->i + out->d + out->ff;
		pid->u_khz = clamp(pid->u_khz + du, lo, hi);
		pid->e2 = pid->e1;
		pid->e1 = e;
		pid->rps1 = in->rps;
		pid->target1 = in->target;
		out->err = e;
		out->reason = (!e && !out->p && !out->d && !out->ff) ? SG_R_DEADBAND : SG_R_PID;
	}
	out->freq = pid->u_khz;
	out->u = pid->u_khz;
	if (in->saturated) {				/* step 2 */
		out->reason = in->saturated;
		out->freq = hi;
	}
}

/**
 * sg_util_freq - the utilization rule for a policy without targets (step 7)
 * @policy:	the policy (cur, limits)
 * @load:	busiest CPU's busy share since the previous step, thousandths
 * @reason:	SG_R_UTIL or SG_R_UTIL_MAX
 *
 * Return: the frequency to ask for, kHz, within the policy limits.
 */
unsigned int sg_util_freq(const struct cpufreq_policy *policy, u32 load, enum sg_reason *reason)
{
	u64 f;

	if (load >= SG_UTIL_UP) {
		*reason = SG_R_UTIL_MAX;
		return policy->max;
	}
	*reason = SG_R_UTIL;
	f = div_u64((u64)(policy->cur ?: policy->max) * load * SG_UTIL_HEADROOM_NUM,
		    SG_UTIL_HEADROOM_DEN * SLACKGOV_ONE);
	return clamp_t(u64, f, policy->min, policy->max);
}
