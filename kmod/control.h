/* SPDX-License-Identifier: GPL-2.0 */
/*
 * control.h - the control law's inputs, state and outputs (control.c).
 *
 * Plain data only (no kernel objects), so that control.c also builds in user
 * space against selftests/unit/shim/ for its unit test.
 */
#ifndef _SLACKGOV_CONTROL_H
#define _SLACKGOV_CONTROL_H

#include <linux/types.h>
#include <slackgov.h>

/*
 * Why a decision came out as it did: X(name, string), one list for the
 * enum, the per-policy stat last_reason and the trace events.
 */
#define SG_REASONS(X)							\
	X(NONE,		"none")		/* no decision yet */		\
	X(PID,		"pid")		/* slack PID step on a fresh window */	\
	X(DEADBAND,	"deadband")	/* error inside the deadband: held */	\
	X(HOLD,		"hold")		/* no new window: output held */	\
	X(SLO,		"slo")		/* SLO law: f_need (step 2) */	\
	X(SAT_CV,	"saturated-cv")	/* cv above sat_cv: max */	\
	X(SAT_SLACK,	"saturated-slack") /* slack collapsed: max */	\
	X(SLO_QUEUE,	"slo-queue")	/* queueing eats the SLO: max */ \
	X(SAT_DRAIN,	"saturated-drain") /* queue not drained yet: max */ \
	X(STALE,	"stale")	/* samples stopped: safe frequency */ \
	X(LOST,		"lost")		/* stale too long: util rule */	\
	X(EXITED,	"exited")	/* the last target exited: util rule */ \
	X(LEFT,		"left")		/* the targets left its CPUs: util rule */ \
	X(UTIL,		"util")		/* no targets: utilization rule */ \
	X(UTIL_MAX,	"util-max")	/* no targets, CPU fully busy: max */

#define SG_REASON_ENUM(r, s)	SG_R_##r,
enum sg_reason {
	SG_REASONS(SG_REASON_ENUM)
	SG_R_NR,
};

#undef SG_REASON_ENUM

extern const char * const sg_reason_names[SG_R_NR];

#define SG_MODES(X)							\
	X(UTIL,		"util")		/* no target: utilization rule */ \
	X(SLACK,	"slack")	/* slack PID on targets without an SLO */ \
	X(SLO,		"slo")		/* an SLO target decides (step 2) */ \
	X(SAFE,		"safe")		/* target samples stopped */	\
	X(BOOST,	"boost")	/* a target saturated: max */

#define SG_MODE_ENUM(m, s)	SG_MODE_##m,
enum sg_mode {
	SG_MODES(SG_MODE_ENUM)
	SG_MODE_NR,
};

#undef SG_MODE_ENUM

extern const char * const sg_mode_names[SG_MODE_NR];

/**
 * struct sg_law_params - the tunables the law reads, one snapshot per step
 * (names, units and ranges: SLACKGOV_GOV_KNOBS in slackgov.h)
 */
struct sg_law_params {
	u32	setpoint, kp, ki, kd, deadband, sat_cv, ff_gain;
	u32	slo_margin, slo_gain, safe_khz;
	u64	stale_ns;
};

/**
 * struct sg_limits - what the law needs of the cpufreq policy, kHz
 * @min, @max:	the policy's current limits
 * @span:	cpuinfo.max_freq - cpuinfo.min_freq (at least 1)
 * @hw_max:	cpuinfo.max_freq (step 2: the scale of K's load knots)
 * @cur:	the frequency the policy runs at
 */
struct sg_limits {
	u32	min, max, span, hw_max, cur;
};

/*
 * Step 2: K is learnt as a function of the load u = L / cpuinfo max, at
 * SG_K_KNOTS knots 0, 1/4, .. 1 and linear (in log2 K) between them; the
 * position between two knots is in 1/SG_K_POS_ONE units.
 */
#define SG_K_KNOTS		5
#define SG_K_POS_ONE		1024

/**
 * struct sg_obs - the latest window of one target on one CPU, and the
 * target's filtered state (step 1).  Every CPU slot of a target sees the
 * same samples, so each keeps the same filtered state.
 * @stamp_ns:	ktime_get_ns() when stored; 0 = empty
 * @seq:	the window's sequence number
 * @target:	target slot
 * @flags:	SLACKGOV_SAMPLE_*
 * @slack:	the window's slack (1000 for an idle window)
 * @slack_f:	slack filtered over windows
 * @cv:		the window's cv
 * @setpoint:	the target's own setpoint, 0 = the knob
 * @rps:	requests per second
 * @slo_us, @slo_q: the target's SLO (0: none: the slack PID applies)
 * @slo_margin:	the target's own margin, as the sample's (0: the knob)
 * @nr_lat, @lat_q_us, @lat_win_us, @queue_us, @svc_us: the window's latency
 * @f_khz:	the policy's frequency when the window was reported (f_w)
 * @load:	the window's own work rate util * f_w per CPU, kHz
 * @load_f:	filtered work rate util * f_w per CPU, kHz
 * @load_s:	the work rate's average over SG_WORK_TAU_US, kHz (step 2's
 *		busy floor)
 * @work_f:	work per request, on-CPU us * f_w, us*kHz (0: none yet)
 * @work_cyc, @work_req, @work_len: decayed sums of on-CPU cycles (us*kHz),
 *		requests (1/256) and window time (us) that @work_f comes from
 * @k_log:	log2 of the SLO law's gain K at each knot of the load (step 2),
 *		1/65536 units
 * @k_pos:	the slot's load on the knots' scale: load_f / cpuinfo max
 *		times SG_K_KNOTS - 1, 1/SG_K_POS_ONE units
 * @k_hold_ns:	K recalled from before a restart, or the load resumed after an
 *		idle spell, at this time: it holds for one tail horizon (0: not
 *		held)
 * @busy_ns:	stamp of the slot's latest window with timed requests (0: none
 *		since it started)
 * @nr_over, @over_us: the window's requests longer than T, and the T they
 *		were counted against (the sample's budget_us; the policy view
 *		and the decision trace show them)
 * @k_rise:	the rise of log2(K) the outer loop may still take (step 2),
 *		1/65536 units
 */
struct sg_obs {
	u64	stamp_ns;
	u64	seq;
	u32	target;
	u32	flags;
	u32	slack;
	u32	slack_f;
	u32	cv;
	u32	setpoint;
	u32	rps;
	u32	slo_us, slo_q, slo_margin;
	u32	nr_lat, lat_q_us, lat_win_us, queue_us, svc_us;
	u32	nr_over, over_us;
	u32	f_khz;
	u32	load, load_f, load_s;
	u64	work_f;
	u64	work_cyc, work_req, work_len;
	s32	k_log[SG_K_KNOTS];
	u32	k_pos;
	u64	k_hold_ns;
	u64	busy_ns;
	s32	k_rise;
};

/**
 * struct sg_k_mem - a target's K as last learnt, kept across the restarts of
 * its slots (step 2): the SLO it was learnt for and log2(K) at each knot
 * @slo_us, @slo_q: the SLO (0: nothing kept)
 * @k_log:	log2(K), 1/65536 units
 */
struct sg_k_mem {
	u32	slo_us, slo_q;
	s32	k_log[SG_K_KNOTS];
};

/**
 * struct sg_ctl_in - the policy's fresh targets, combined (steps 1-3)
 * @targets:	distinct fresh targets; @slo_targets: those with an SLO
 * @seen:	bitmap of the targets counted
 * @newest_ns:	newest stamp of any fresh slot
 * @pid_stamp:	stamp of the slot the PID follows; @slo_stamp: newest SLO slot;
 * @slo_lead_ns: stamp of the SLO slot with the largest need (the SLO output
 *		moves down once per new window of that target)
 * @slack, @raw, @seq, @setpoint, @rps, @target: the most constrained target
 *		without an SLO (largest setpoint deficit), for the PID
 * @pid_e:	its error slack_f - setpoint
 * @cv:		largest cv among the fresh targets
 * @saturated:	SG_R_SAT_* / SG_R_SLO_QUEUE if a target saturated, else 0
 * @drain:	a target's latest window still shows a queue (step 3)
 * @behind:	an SLO target's latest window ran busy and queued over T / 4:
 *		a boost, or the drain of one already running (step 3)
 * @over_need:	an SLO target's latest window did more work than its f_need:
 *		its L lags a rise (step 3's landing)
 * @f_need:	largest SLO frequency need, kHz
 * @lead:	a copy of the slot of the SLO target with the largest need: its
 *		SLO, latest window and K (trace, stats; zero without one)
 * @fresh:	the PID's target has a window it has not stepped on
 * @slo_fresh:	an SLO target has a window the SLO output has not used
 */
struct sg_ctl_in {
	u32	targets, slo_targets;
	u64	seen[SLACKGOV_MAX_TARGETS / 64];
	u64	newest_ns, pid_stamp, slo_stamp, slo_lead_ns;
	s32	pid_e;
	u32	slack, raw, setpoint, rps, target;
	u64	seq;
	u32	cv;
	u32	saturated;
	bool	drain, behind, over_need;
	u64	f_need;
	struct sg_obs lead;
	bool	fresh, slo_fresh;
};

/**
 * struct sg_pid - slack PID state of one policy (velocity form)
 * @u_khz:	the continuous output, kHz
 * @e1, @e2:	errors of the previous two steps (after the deadband)
 * @rps1:	rps of the previous step, for feed-forward (0 = none)
 * @target1:	target of the previous step (feed-forward only within one)
 */
struct sg_pid {
	s64	u_khz;
	s32	e1, e2;
	u32	rps1;
	u32	target1;
};

/**
 * struct sg_law - the law's state for one policy
 * @pid:	the slack PID
 * @slo_khz:	the SLO output after the down-rate limit, kHz
 * @need_f:	f_need's average over SG_SLO_NEED_TAU_NS, each window's
 *		capped at 5/4 of the policy's max, kHz (step 2: max held)
 * @need_ns:	when @need_f last took a window (0: not since the reset)
 * @landing:	the SLO output is coming down from a boost (step 3)
 * @mode:	current mode
 * @consumed_ns: newest slot stamp the PID stepped on
 * @slo_consumed_ns: newest SLO slot stamp the SLO output used
 */
struct sg_law {
	struct sg_pid	pid;
	s64		slo_khz;
	u64		need_f;
	u64		need_ns;
	bool		landing;
	enum sg_mode	mode;
	u64		consumed_ns;
	u64		slo_consumed_ns;
};

/* The terms of one decision, for the trace event and the stats (kHz). */
struct sg_ctl_out {
	s32	err;
	s64	p, i, d, ff;
	s64	u;		/* the PID's output (or the SLO output alone) */
	u64	f_need;		/* the SLO law's need before the down limit */
	unsigned int freq;
	enum sg_reason reason;
	enum sg_mode mode;
	bool	urgent;		/* apply without waiting for the rate limit */
	bool	entered_boost, entered_safe, left_targets;
};

/**
 * struct sg_signal - the feed's timeline as the stale rule sees it
 * @now:	ktime_get_ns()
 * @last_ns:	newest sample of the policy (0: never)
 * @exit_ns:	newest sample flagged SLACKGOV_SAMPLE_EXITED (0: never)
 * @feed_ns:	newest sample of any policy (0: never)
 */
struct sg_signal {
	u64	now, last_ns, exit_ns, feed_ns;
};

/* After the stale timeout, the safe frequency is held this long (step 5). */
#define SG_SAFE_HOLD_MS		5000

bool sg_obs_update(struct sg_obs *o, const struct slackgov_sample *s, u64 now,
		   const struct sg_limits *lim, const struct sg_law_params *p);
s32 sg_obs_k_log(const struct sg_obs *o);
u32 sg_obs_k_milli(const struct sg_obs *o);
void sg_obs_k_keep(struct sg_obs *o, const struct slackgov_sample *s, u64 now,
		   bool restarted, struct sg_k_mem *m);
void sg_ctl_begin(struct sg_ctl_in *in);
void sg_ctl_add(struct sg_ctl_in *in, const struct sg_obs *o, const struct sg_law_params *p,
		const struct sg_limits *lim, u64 now);
void sg_law_reset(struct sg_law *law, u32 cur_khz);
enum sg_mode sg_law_mode(const struct sg_law *law, const struct sg_ctl_in *in,
			 const struct sg_signal *sig, const struct sg_law_params *p);
void sg_law_step(struct sg_law *law, struct sg_ctl_in *in, const struct sg_signal *sig,
		 const struct sg_law_params *p, const struct sg_limits *lim, u32 load,
		 struct sg_ctl_out *out);
bool sg_obs_fresh(const struct sg_obs *o, u64 now, u64 stale_ns);
s32 sg_slo_k_log0(u32 slo_q);
u32 sg_slo_budget_us(u32 slo_us, u32 margin);
u32 sg_obs_budget_us(const struct sg_obs *o, u32 knob);

#endif
