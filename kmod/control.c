// SPDX-License-Identifier: GPL-2.0
/*
 * control.c - the slack governor's control law, all of it: the per-target
 * filters, the SLO law, the slack PID, saturation and its drain, the
 * utilization rule and the stale rule.  Inputs in, frequency and reason out:
 * no locks, no kernel objects (kfunc.c stores, governor.c applies).
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/bitops.h>
#include <linux/string.h>
#include <linux/time64.h>
#include "control.h"

/**
 * DOC: slack control law
 *
 * The governor picks, per cpufreq policy, the lowest frequency that keeps
 * every target running on the policy's CPUs within its goal: a latency SLO
 * (``slackctl target add ... --slo p99:2ms``) or, for a target without
 * one, a slack setpoint.  Integer arithmetic throughout: ratios in
 * thousandths (1000 == 1.0), gains x1000, frequencies in kHz, times in us.
 * A decision runs whenever a sample (one closed window of one target, from
 * the BPF side through slackgov_report()) names one of the policy's CPUs;
 * frequency changes are at most one per ``rate_limit_us``, except a boost,
 * the safe frequency and the first change after the policy limits changed.
 *
 * 1. **Per-target filters** (sg_obs_update(), once per window).  A single
 *    10 ms window is a poor measurement: with ~1 ms requests it holds a
 *    handful of them and its slack swings over the whole 0..1000 range at
 *    any load.  So the governor keeps, per target, exponential averages
 *    weighted by window length ``len``::
 *
 *        x_f += (x - x_f) * len / (len + tau)
 *
 *    of its slack s (tau = SG_SLACK_TAU_NS = 40 ms: four default windows,
 *    10-30 requests at 300-700 req/s, and still a load step within a few
 *    windows) and of its work rate L = util / n_cpu * f_w (kHz: the share of
 *    a CPU its threads ran on, ``util`` over the ``n_cpu`` CPUs they ran
 *    on, times f_w, the policy's frequency when the window ran), with tau
 *    the time of SG_LOAD_REQS = 64 requests at the target's rate, at least
 *    40 ms and at most 1 s: the relative noise of an average over n
 *    requests is about 1/sqrt(n) (12 % for 64), and the output rises to
 *    f_need at once (step 2), so a noisier L would hold the policy along
 *    the upper envelope of its noise.  A rise in load that builds a queue is
 *    step 3's to catch within a window, not this filter's.  The work per
 *    request W (cycles, us * kHz) is a ratio of decayed sums over the last
 *    SG_WORK_TAU_US = 1 s::
 *
 *        W = sum(on-CPU time * f_w) / sum(requests answered)
 *
 *    the target's CPU time, not the wall time from a read to its answer:
 *    with two workers on one CPU, or a thread preempted mid-request, the
 *    wall time counts the other thread's work as this request's and the
 *    model would plan for work that is not there.  W is a property of the
 *    workload, not of one window, so it is averaged over many requests (80
 *    at 80 req/s).  L and W are in cycles rather than slack alone because
 *    windows run at different frequencies: their slack does not compare,
 *    their work does.  A window longer than a second counts as a second; a
 *    target not seen for 10 x 40 ms starts again from its window.  A window
 *    flagged IDLE (no request) has slack 1000 and no latency; one flagged
 *    EXITED is the target's last: its slot is dropped from every rule below
 *    at once (step 8).
 *
 * 2. **SLO law** (targets with ``slo_us`` > 0).  With the budget
 *    T = slo_us * (1000 - margin) / 1000, margin the target's own
 *    (``slackctl target add ... --slo-margin``) or the ``slo_margin``
 *    knob, and q the SLO's percentile, model the server as M/M/1 whose service time scales as
 *    1/f (CPU-bound).  Its sojourn time at quantile q is c_q / (mu - lambda)
 *    with c_q = ln(1 / (1 - q)) (4.6 for p99), mu = f / W, lambda W = L;
 *    the tail meets T when mu - lambda >= c_q / T, i.e.::
 *
 *        f_need = L + K * W / T,   K = c_q at first
 *
 *    L is the frequency the work itself takes, K * W / T the headroom the
 *    tail needs.  Both terms are measured in cycles, so f_need does not
 *    depend on the frequency the windows ran at.  The model is only a
 *    model (arrivals are burstier than Poisson, service is not all CPU or
 *    not exponential), so K is the state of an outer loop on the measured
 *    tail, a stochastic approximation of the quantile (Robbins-Monro): the
 *    BPF side counts the requests of each window over T (``nr_over``; the
 *    module hands it T as slackgov_report()'s return), and every window
 *    with timed requests moves log2(K) by::
 *
 *        slo_gain / 1000 * (nr_over / (1 - q) - nr_lat) / H
 *
 *    H the requests of a horizon: the target's rate (step 1's decayed
 *    sums) over SLACKGOV_LAT_RECENT_MS = 2 s, at most
 *    SLACKGOV_LAT_RECENT_REQS = 2000 and at least SG_SLO_OVER_MIN / (1 - q)
 *    (200 for a p99: one request over T then steps K by half a horizon's
 *    step at most).  Each request over T raises K, each one under lowers
 *    it by (1 - q) / q as much: the loop rests where the share of requests
 *    over T is 1 - q, i.e. with the percentile of all the requests at T,
 *    whatever the model's error.  That is the SLO's own figure, the p99 of
 *    a period's requests; a loop on the percentile of the recent ones
 *    (the last 2 s) holds that at T on average, which leaves the period's
 *    over T by as much as the recent one moves (by 7.5 % in the bench's
 *    cells, evaluation.rst).  Over one horizon with twice the allowed
 *    share over T, K rises by 2^(gain/1000), at 80 req/s as at 2000
 *    req/s, and a horizon with none lowers it as much: the loop settles
 *    within a few seconds whatever the rate.  A count does not say how far
 *    over T a request was: one stalled for seconds (the bench's cells
 *    after a capacity probe saw requests of 1 to 5 s) weighs as one just
 *    over.  But a burst of them (a host stall, a queue) counts many, and
 *    K rises by at most SG_SLO_RISE_MAX = 2 horizon steps per horizon (a
 *    doubling at the default gain: a budget that each window refills by
 *    its share of a horizon, the larger of nr_lat / 2000 and len / 2 s);
 *    counts beyond it are dropped.  A model off by a factor of four still
 *    reaches its K within two horizons.  The model gives the fast,
 *    proportional response to a load change.  K stays within c_q/8 ..
 *    8 c_q (a model off by more is not a model), and it does not rise
 *    while f_need is over 5/4 of the policy's max: raising K cannot help
 *    there, and a K wound up during a host stall would hold the policy at
 *    max long after it.
 *    Nor does it fall on a window whose f_need is at or under the
 *    policy's min (its ``scaling_min_freq``): the policy runs min
 *    whatever K, and a light
 *    load that min serves within the budget would wind K down to c_q/8
 *    for as long as it lasts, while the load above it reads the same knot
 *    and starts far short of its need (seconds over the SLO).  K is
 *    learnt per load: the model's error is not the same at every load,
 *    and a single K learnt at light load is short when the load rises
 *    until the loop has climbed back, seconds of misses
 *    (evaluation.rst), so log2(K) is kept at
 *    SG_K_KNOTS knots of u = L / cpuinfo max (0, 1/4 .. 1) and read
 *    linearly between the two around the slot's u; a step moves those two
 *    knots, in proportion to their weights, so that K at u moves by the
 *    step.  A load the target never ran at keeps the model's c_q; a load
 *    change reads the K learnt there at once.  A count learns as fast as
 *    requests come, and a light load's come slowly: at 15 req/s a horizon
 *    is its floor of 200 requests, 13 s of them, and a K that a heavy
 *    load left high at the light knots (its ramp and its end pass them)
 *    took the whole of a 20 s cell to come down by 0.75 in log2 (the
 *    bench's memcached, evaluation.rst).  So a window with none over T,
 *    whose plan is at most half busy (L <= f_need / 2, SG_SLO_FAST_RHO)
 *    and whose recent tail ``lat_q`` is under T / 2 (SG_SLO_FAST_DIV),
 *    lowers log2(K) by log2(2 lat_q / T) per horizon of time (the time
 *    since the previous window that timed requests, or the window's share
 *    of the horizon's requests if more), at most SG_SLO_RISE_MAX horizon
 *    steps per horizon (the rise's bound), when that is more than its
 *    count lowers it.  In such a plan the tail is mostly service, which
 *    scales as 1 / f, and f mostly the headroom K W / T: the tail scales
 *    about as 1 / K, so this aims it at T / 2, and the count does the
 *    rest.  A busier plan's tail is a queue's, which grows faster than
 *    1 / K as K falls, and whose percentile over a horizon of a few
 *    hundred requests moves by a factor of four from one second to the
 *    next: there the count alone, which weighs every request.  A load the
 *    loop holds at T seldom has a horizon's tail under half of it.
 *    ``lat_q`` is of the last horizon, so it lags K by up to one: the
 *    fall can go one bounded step past the tail at T / 2, which puts the
 *    tail near T.  K is the workload's, not
 *    the slot's: it is kept per target and SLO (sg_obs_k_keep()) across the
 *    restarts of the target's slots (a governor switch, suspend or CPU
 *    hotplug restarts the governor, which clears them), so that a restart
 *    does not learn it again from c_q; a slot that takes a kept K holds it
 *    for one horizon, whose tail is of requests served before the restart,
 *    by another governor.  So does a load that resumes after an idle spell
 *    (timed requests SG_SLO_RESUME_NS = 500 ms or more after the last
 *    ones): its first requests meet a policy that came down to its min,
 *    and queue until step 3's boost has drained them.  For a horizon the
 *    requests over T are that queue's (its tail was twice the budget or
 *    more in the bench's cells), not the steady state's whose model error
 *    K is: a K that learnt from them would run the policy high for
 *    seconds after, and then undershoot as it unwound.  A new SLO or an exited target
 *    starts from c_q.
 *    The default gain 500 settles in about two horizons, the tail at T
 *    (selftests/governor/unit's closed loops).
 *    f_need is at least L' * 1000 / SG_SLO_RHO_MAX (900): the law never
 *    plans the server more than 90 % busy, where its queue (9 service
 *    times on average in M/M/1) grows faster than windows can show it.
 *    L' is L lifted toward the work rate's average over SG_WORK_TAU_US
 *    = 1 s, by at most L / SG_SLO_LIFT_DIV (twice L's noise): near
 *    capacity the floor is the need, and L's noise over its 64 requests
 *    (12 %) would take it under the load for a share of the windows,
 *    while a deficit of a few per cent there builds a queue that drains
 *    only at the few per cent spare.  A load that has fallen by more than
 *    a quarter is not held up by its past.
 *    The output rises to f_need at once; it comes down by at most
 *    span / SG_SLO_DOWN_DIV (1/8 of cpuinfo max - min) per new window, so
 *    noise in one window cannot pull it far, and a falling load reaches
 *    min within 8 windows.  Except from max: while f_need's average over
 *    SG_SLO_NEED_TAU_NS = 500 ms (each window's capped at 5/4 of the max,
 *    where K's anti-windup stops) is within 1/SG_SLO_HOLD_DIV (1/16) of
 *    the policy's max or above it, the output holds max: an average of
 *    some 350 requests at 700 req/s moves by about 5 %, so a need that
 *    close is at max as far as the windows can tell.  At max the output
 *    is clamped and K cannot lift it:
 *    the windows whose f_need rises above max lose their excess, the ones
 *    whose f_need dips under it (L's noise, about 12 % over its 64
 *    requests) take the output down, and nothing makes up the deficit.
 *    The mean frequency then falls short of a need the loop already asked
 *    more than max for, and near saturation the tail is steepest in the
 *    spare capacity: at 90 % of capacity, 2 % off the mean frequency takes
 *    a seventh of the spare.  Under max the average plays no part: the
 *    output follows f_need as above.
 *    The output goes to the driver as it is, which runs the P-state at or
 *    above it (CPUFREQ_RELATION_L), not a mix of the two around it: the
 *    tail is convex in the frequency, so a mix's tail is worse than its
 *    mean frequency's, and the outer loop raised K by more than the mix
 *    saved (it cost 1.8-3.4 % in simulation.rst's ablation).
 *
 * 3. **Saturation.**  The decision asks for max at once, without the rate
 *    limit (mode ``boost``), when in the latest window of a fresh target:
 *
 *    - ``cv > sat_cv`` (``saturated-cv``; 0 disables the test): the
 *      inter-arrival variability of a server reading a backlog in batches;
 *    - the slack of a target without an SLO fell below SG_COLLAPSE_SLACK
 *      = 50 (``saturated-slack``): its workers waited under 5 % of the
 *      window, they were busy through it;
 *    - for an SLO target, the mean queueing time of at least two requests
 *      exceeds T / 2, or its filtered work rate L reaches 95 % of the
 *      current frequency, or the window itself ran 95 % busy at its
 *      frequency while its mean queueing exceeded T / 2 (``slo-queue``):
 *      the queue, not a slow request, eats the budget.  Two requests
 *      for the queue test alone, because one slow request at low load
 *      queues nothing but itself; one is enough in a window busy at its
 *      frequency, which cannot answer more while a backlog waits (at a low
 *      frequency a 5 ms request leaves room for two in a window, and a
 *      growing queue then shows one answer a window).  T / 2 and not
 *      less, because the law's own operating point queues: in M/M/1 a
 *      request waits over x with probability rho e^(-(mu - lambda) x), and
 *      step 2 plans mu - lambda = K / T, so at K = c_q (4.6 for p99) and
 *      rho = 0.6 one request in 5 waits over T / 4 and one in 17 over
 *      T / 2.  A threshold the plan itself crosses sends a steady load to
 *      max and back several times a second.  The filtered L,
 *      because one busy window is noise, unless that window also queued: a
 *      CPU busy through a window does no more work than its frequency
 *      allows, so L cannot see a demand above the frequency until the
 *      filter has followed it up step by step, while the queue grows (a
 *      load that resumes after an idle spell).
 *
 *    A boost is held (``saturated-drain``) until a window shows the queue
 *    drained: for an SLO target, a window whose mean queueing is at most
 *    T / 4 (or that timed no request); for a slack target, a window whose
 *    slack is back at the setpoint, and only while the filtered slack
 *    confirms a deficit (below setpoint / 2): one collapsed window is most
 *    likely noise, so that boost lasts one window.  The queue that built up
 *    is drained at max, not at the frequency that let it build.  The SLO
 *    output leaves a boost from max and comes down at most span / 8 per
 *    window as after any fall of f_need (step 2) while the target's latest
 *    window did more work than its f_need (work rate above f_need): the L
 *    that let the queue build is still in the filter when the drain ends,
 *    and the windows at the top are where it learns the demand, so a fall
 *    straight back to its f_need would rebuild the queue.  The first window
 *    whose work fits under f_need ends the landing there: the boost was a
 *    burst that f_need already covers (common at light load, where a few
 *    requests arriving together queue over T / 2 at a low frequency), and
 *    the windows near max cost the most energy per cycle.
 *
 * 4. **Slack PID** (targets without an SLO).  The most constrained such
 *    target (the smallest e_min = s_f - sp, sp its own setpoint or the
 *    ``setpoint`` knob) is held at its setpoint.  The deadband shrinks the
 *    error toward zero: e = 0 if |e_min| <= ``deadband``, else e_min -+
 *    ``deadband`` (continuous at the band's edges).  Velocity form, with
 *    e1, e2 the previous errors and span = cpuinfo max - min::
 *
 *        P  = kp * (e - e1)
 *        I  = ki * e           (divided by SG_DOWN_DIV = 4 when it lowers u)
 *        D  = kd * (e - 2*e1 + e2)
 *        u  = clamp(u - span * (P + I + D) / 10^6 + ff, min, max)
 *
 *    Clamping u is the anti-windup.  The integral comes down 4 times slower
 *    than it rises: a deficit costs latency at once, spare slack only
 *    energy.  P and D stay symmetric: in velocity form they sum to zero
 *    over a stretch that starts and ends at one error, so noise cannot
 *    ratchet u.  Around the operating point slack moves ~1:1 with the
 *    frequency as a share of span, so the loop gain per window is ki/1000:
 *    the defaults kp = 300, ki = 200, kd = 0 absorb a step in ~5 windows
 *    up without overshoot (the loop oscillates above ~0.5); kd is off
 *    because the second difference of a noisy ratio is mostly noise.  The
 *    setpoint 350 (workers 65 % busy) and deadband 50 (about the
 *    window-to-window noise) were chosen on the emulated platform as the
 *    best energy per request whose p99 stayed within 5x the unloaded p99
 *    (Documentation/evaluation.rst).
 *
 * 5. **Feed-forward** (``ff_gain``, default 0 = off).  When the PID's
 *    target reports a changed request rate, the work per second changed in
 *    proportion::
 *
 *        ff = ff_gain / 1000 * u * (rps - rps1) / rps1,   |ff| <= span
 *
 *    with the relative change clamped to -100 %..+1000 % (rps <= 10^8 is
 *    checked by the kfunc), so that the product fits in 64 bits.
 *
 * 6. **Several targets.**  The policy runs at the largest of the SLO law's
 *    output over its SLO targets and the PID's output for its other
 *    targets: a target with room cannot pull the frequency under one that
 *    is short of it.  The PID steps once per new window of the target it
 *    follows and the SLO output moves down once per new window of the SLO
 *    target with the largest need: a retry, a timer or another target's
 *    window holds them, so N targets do not multiply the gains.  With no
 *    target of a kind, that part follows the output (bumpless when one
 *    appears).
 *
 * 7. **No targets: utilization rule.**  load = the busiest CPU's busy
 *    share since the previous step (get_cpu_idle_time()), thousandths::
 *
 *        f = max                        if load >= 950
 *        f = cur * load * 5 / 4 / 1000  otherwise, clamped to min..max
 *
 *    5/4 puts the tipping point at 80 % load, schedutil's C; the load is
 *    measured at cur (the guest has no APERF/MPERF).  At 95 % a CPU tells
 *    nothing of how much more it needs: max, as ondemand's up_threshold.
 *
 * 8. **Stale and exited.**  A slot is fresh for ``stale_ms`` after its
 *    sample.  When a policy that had samples has no fresh slot, it goes to
 *    ``safe_khz`` (0 = max) for SG_SAFE_HOLD_MS = 5 s (``stale``): long
 *    enough to cover a restart of the BPF side (~1-2 s), short enough that
 *    a server whose feed is gone stops running at max within seconds; then
 *    it returns to the utilization rule (``lost``) and drops its idle
 *    constraints.  Samples arriving within the hold resume the PID where it
 *    was (a gap says nothing about the load).  If the newest sample was a
 *    target's EXITED window, the target is gone rather than silent: the
 *    policy returns to the utilization rule at once (``exited``); so it
 *    does when its targets left its CPUs while the feed goes on elsewhere
 *    (``left``: the BPF side still names other policies, and names a CPU
 *    for a second after the target last ran there).
 */

#define SG_NAME(x, s)	[SG_R_##x] = s,
const char * const sg_reason_names[SG_R_NR] = { SG_REASONS(SG_NAME) };
#undef SG_NAME
#define SG_NAME(x, s)	[SG_MODE_##x] = s,
const char * const sg_mode_names[SG_MODE_NR] = { SG_MODES(SG_NAME) };
#undef SG_NAME

/* Step 1: filter time constant, longest window counted, reset age. */
#define SG_SLACK_TAU_NS		(40 * NSEC_PER_MSEC)
#define SG_SLACK_LEN_MAX_NS	NSEC_PER_SEC
#define SG_SLACK_RESET_NS	(10 * SG_SLACK_TAU_NS)
/* Step 1: f_w above this (100 GHz, above any CPU) is clamped: W then fits in 2^51. */
#define SG_KHZ_MAX		100000000U
/* Step 1: the work per request forgets with this time constant, us. */
#define SG_WORK_TAU_US		1000000U
/* Step 1: fixed point of the decayed request count (1/256 of a request). */
#define SG_REQ_ONE		256
/* Step 1: the work rate is filtered over about this many requests. */
#define SG_LOAD_REQS		64
/* Step 2: the outer loop's step is spread over lat_q's horizon (uapi header). */
#define SG_SLO_HORIZON		SLACKGOV_LAT_RECENT_REQS
#define SG_SLO_TAU_US		(SLACKGOV_LAT_RECENT_MS * USEC_PER_MSEC)
/* Step 2: a window's share of the horizon, 1/65536 units. */
#define SG_SLO_SHARE_ONE	65536
/*
 * Step 2: timed requests after an idle spell this long hold K for a horizon.
 * A steady load, even a light one, seldom holds it: a Poisson load of 16
 * req/s leaves a gap this long once in e^8 of its requests (minutes apart).
 */
#define SG_SLO_RESUME_NS	(500 * NSEC_PER_MSEC)
/* Step 2: K within c_q / 2^3 .. c_q * 2^3 (log2 units of 1/65536). */
#define SG_K_LOG_ONE		65536
#define SG_K_LOG_RANGE		(3 * SG_K_LOG_ONE)
/*
 * Step 2: the outer loop's horizon holds at least this many of the requests
 * the SLO lets over T (200 requests for a p99): fewer, and each count over
 * T would step K by a large part of a horizon's step.
 */
#define SG_SLO_OVER_MIN		2
/* Step 2: K rises by at most this many horizon steps per horizon. */
#define SG_SLO_RISE_MAX		2
/*
 * Step 2: a recent tail under T / SG_SLO_FAST_DIV lowers K toward the tail
 * at T / 2, where the plan is at most SG_SLO_FAST_RHO thousandths busy.
 */
#define SG_SLO_FAST_DIV		2
#define SG_SLO_FAST_RHO		500
/* Step 2: K does not rise while f_need exceeds the policy's max by more than 5/4. */
#define SG_SLO_WIND_NUM		5
#define SG_SLO_WIND_DEN		4
/* Step 2: highest busy share the SLO law plans for, thousandths. */
#define SG_SLO_RHO_MAX		900
/*
 * Step 2: that floor's load is L lifted toward its 1 s average by at most
 * L / 4, twice L's noise over its SG_LOAD_REQS requests: a dip of that
 * noise is lifted, a load that fell is not held up.
 */
#define SG_SLO_LIFT_DIV		4
/* Step 2: the SLO output falls by at most span / 8 per window. */
#define SG_SLO_DOWN_DIV		8
/*
 * Step 2: f_need's average that holds max: 50 windows, 350 requests at
 * 700 req/s, over which the mean of L moves by about 5 %.
 */
#define SG_SLO_NEED_TAU_NS	(500 * NSEC_PER_MSEC)
/* Step 2: an average within 1/16 of max (its own noise, 5 %) holds max. */
#define SG_SLO_HOLD_DIV		16
/* Step 3: queueing above T / 2 boosts, a window at or below T / 4 has drained. */
#define SG_SLO_QUEUE_DIV	2
#define SG_SLO_DRAIN_DIV	4
/* Step 3: a queueing mean needs this many requests (one queues only itself). */
#define SG_SLO_QUEUE_MIN_REQ	2
/* Step 3: filtered work rate at or above this share of cur boosts, thousandths. */
#define SG_SLO_RHO_BOOST	950
/* Step 3: a window whose slack is below this (thousandths) collapsed. */
#define SG_COLLAPSE_SLACK	50
/* Step 3: a slack boost is held only while slack_f < setpoint / 2. */
#define SG_DRAIN_CONFIRM_DIV	2
/* Step 4: gains and errors are both thousandths: their product is millionths. */
#define SG_PID_SCALE		1000000
/* Step 4: the integral term lowers the output this many times slower. */
#define SG_DOWN_DIV		4
/* Step 5: the relative rps change the feed-forward uses, thousandths. */
#define SG_FF_REL_MIN		(-1000)
#define SG_FF_REL_MAX		10000
/* Step 7: load that goes to max; headroom 5/4 (tipping point 80 %). */
#define SG_UTIL_UP		950
#define SG_UTIL_HEADROOM_NUM	5
#define SG_UTIL_HEADROOM_DEN	4

/* ---- fixed-point helpers --------------------------------------------------- */

/*
 * log2(x) in 1/1024 units, x >= 1: the exponent plus the mantissa m in
 * [0, 1) corrected by 0.34 m (1 - m), within 0.006 of the truth.
 */
static s32 sg_log2_q10(u64 x)
{
	int n = fls64(x ?: 1) - 1;
	u32 m = n >= 10 ? (u32)(x >> (n - 10)) & 1023 : (u32)(x << (10 - n)) & 1023;

	return n * 1024 + m + (s32)(((u64)m * (1024 - m) * 348) >> 20);
}

/* 2^(y / 1024) in 1/1024 units: 2^m ~ 1 + m - 0.343 m (1 - m), within 0.3 %. */
static u64 sg_exp2_q10(s32 y)
{
	s32 n = y >> 10;	/* floor */
	u32 m = (u32)y & 1023;
	u64 v = 1024 + m - (((u64)m * (1024 - m) * 351) >> 20);

	if (n >= 40)
		return U64_MAX >> 1;
	return n >= 0 ? v << n : v >> min(-n, 63);
}

/* a * b / c without overflow for b < 2^32, c < 2^32, saturating at U64_MAX. */
static u64 sg_mul_div(u64 a, u32 b, u32 c)
{
	u64 q = div_u64(a, c), r = a - q * c;

	if (b && q > U64_MAX / b - 1)
		return U64_MAX;
	return q * b + div_u64(r * b, c);
}

/* x_f moved toward x by len / (len + tau); |x - x_f| < 2^53. */
static s64 sg_ewma(s64 xf, s64 x, u64 len, u64 tau)
{
	s64 d = x - xf, step = div64_s64(d * (s64)div64_u64(len << 10, len + tau), 1024);

	/* at least one unit toward the sample, so that a steady input is reached */
	if (!step && d)
		step = d > 0 ? 1 : -1;
	return xf + step;
}

/**
 * sg_slo_k_log0 - log2(c_q), 1/65536 units, c_q = ln(1 / (1 - q))
 * @slo_q:	the percentile, SLACKGOV_Q_ONE units (clamped to 1 .. Q_ONE - 1)
 */
s32 sg_slo_k_log0(u32 slo_q)
{
	u32 q = clamp_t(u32, slo_q, 1, SLACKGOV_Q_ONE - 1);
	/* log2(Q / (Q - q)) * ln 2 = c_q, 1/1024 units; ln 2 ~ 710 / 1024 */
	u64 cq = div_u64((u64)(sg_log2_q10(SLACKGOV_Q_ONE) -
			       sg_log2_q10(SLACKGOV_Q_ONE - q)) * 710, 1024);

	return (sg_log2_q10(max_t(u64, cq, 1)) - 10 * 1024) * (SG_K_LOG_ONE / 1024);
}

/**
 * sg_slo_budget_us - T, the latency budget of an SLO (at least 1 us)
 * @slo_us:	the SLO
 * @margin:	``slo_margin``, thousandths
 */
u32 sg_slo_budget_us(u32 slo_us, u32 margin)
{
	margin = min_t(u32, margin, SLACKGOV_ONE);
	return max_t(u32, div_u64((u64)slo_us * (SLACKGOV_ONE - margin), SLACKGOV_ONE), 1);
}

/**
 * sg_obs_budget_us - T of slot @o's SLO, with its own margin or the knob's
 * @o:		the slot
 * @knob:	the ``slo_margin`` knob, thousandths
 *
 * Return: T in us; 0 when the slot's target has no SLO.
 */
u32 sg_obs_budget_us(const struct sg_obs *o, u32 knob)
{
	return o->slo_us ? sg_slo_budget_us(o->slo_us, slackgov_margin(o->slo_margin, knob)) : 0;
}

/* Step 2: the knot below the slot's load, and the weight of the one above. */
static u32 sg_k_knot(const struct sg_obs *o, u32 *w)
{
	u32 j = min_t(u32, o->k_pos / SG_K_POS_ONE, SG_K_KNOTS - 2);

	*w = min_t(u32, o->k_pos - j * SG_K_POS_ONE, SG_K_POS_ONE);
	return j;
}

/**
 * sg_obs_k_log - log2(K) at the slot's load (step 2), 1/65536 units
 * @o:		the slot
 */
s32 sg_obs_k_log(const struct sg_obs *o)
{
	u32 w, j = sg_k_knot(o, &w);

	return o->k_log[j] + (s32)div_s64((s64)(o->k_log[j + 1] - o->k_log[j]) * w,
					  SG_K_POS_ONE);
}

/**
 * sg_obs_k_milli - K at the slot's load (step 2), thousandths
 * @o:		the slot
 *
 * Return: K; 0 when the slot's target has no SLO.
 */
u32 sg_obs_k_milli(const struct sg_obs *o)
{
	if (!o->slo_us)
		return 0;
	return (u32)min_t(u64, (sg_exp2_q10(sg_obs_k_log(o) >> 6) * 1000) >> 10, U32_MAX);
}

/* Step 2: every knot of @o at @k_log. */
static void sg_k_fill(struct sg_obs *o, s32 k_log)
{
	int j;

	for (j = 0; j < SG_K_KNOTS; j++)
		o->k_log[j] = k_log;
}

/*
 * Step 2: move log2(K) at the slot's load by @step: the two knots around it
 * by step * a / (a^2 + b^2) and step * b / (a^2 + b^2), a and b their
 * weights, which moves their interpolation at that load by @step exactly;
 * each knot within @k0 -+ SG_K_LOG_RANGE.
 */
static void sg_k_step(struct sg_obs *o, s64 step, s32 k0)
{
	u32 b, j = sg_k_knot(o, &b), a = SG_K_POS_ONE - b;
	s64 den = (s64)a * a + (s64)b * b;

	o->k_log[j] = clamp_t(s64, o->k_log[j] + div64_s64(step * a * SG_K_POS_ONE, den),
			      k0 - SG_K_LOG_RANGE, k0 + SG_K_LOG_RANGE);
	o->k_log[j + 1] = clamp_t(s64, o->k_log[j + 1] + div64_s64(step * b * SG_K_POS_ONE, den),
				  k0 - SG_K_LOG_RANGE, k0 + SG_K_LOG_RANGE);
}

/* Step 2: @us of time as a share of the horizon's, 1/SG_SLO_SHARE_ONE (at most one). */
static u64 sg_slo_time_share(u64 us)
{
	return div_u64(min_t(u64, us, SG_SLO_TAU_US) * SG_SLO_SHARE_ONE, SG_SLO_TAU_US);
}

/* Step 2: the most log2(K) may rise in one horizon, 1/65536 units. */
static s32 sg_k_rise_max(const struct sg_law_params *p)
{
	return div_u64((u64)p->slo_gain * SG_SLO_RISE_MAX * SG_K_LOG_ONE, SLACKGOV_ONE);
}

/*
 * Step 2: the outer loop's step of log2(K) for window @s of slot @o (its
 * work sums updated), 1/65536 units: the requests over T against the share
 * the SLO lets over, in units of the horizon's requests, times the gain.
 */
static s64 sg_k_err_step(const struct sg_obs *o, const struct slackgov_sample *s,
			 const struct sg_law_params *p)
{
	u32 q1 = SLACKGOV_Q_ONE - min_t(u32, s->slo_q, SLACKGOV_Q_ONE - 1);
	u64 nh = o->work_len ? div64_u64(o->work_req * SG_SLO_TAU_US,
					 o->work_len * SG_REQ_ONE) : 0;
	s64 e;

	nh = max_t(u64, min_t(u64, nh, SG_SLO_HORIZON), SG_SLO_OVER_MIN * SLACKGOV_Q_ONE / q1);
	e = div_s64((s64)s->nr_over * SLACKGOV_Q_ONE, q1) - s->nr_lat;
	if (s->nr_lat > nh)	/* a window counts as a horizon at most */
		e = div64_s64(e * (s64)nh, s->nr_lat);
	e = clamp_t(s64, e, -(s64)nh, (s64)nh * SG_SLO_RISE_MAX);
	return div64_s64(e * p->slo_gain * SG_K_LOG_ONE, (s64)nh * SLACKGOV_ONE);
}

/*
 * Step 2: the fall of log2(K) for window @s, which stands for @share of a
 * horizon, when the recent tail lat_q is under T / SG_SLO_FAST_DIV: that
 * share of log2(2 lat_q / T), at most SG_SLO_RISE_MAX horizon steps per
 * horizon; 0 otherwise.  1/65536 units.
 */
static s64 sg_k_fall_fast(const struct slackgov_sample *s, u32 t, u64 share,
			  const struct sg_law_params *p)
{
	s64 fall;

	if (!s->lat_q_us || (u64)s->lat_q_us * SG_SLO_FAST_DIV >= t)
		return 0;
	fall = (s64)(sg_log2_q10((u64)s->lat_q_us * SG_SLO_FAST_DIV) - sg_log2_q10(t)) *
	       (SG_K_LOG_ONE / 1024);
	fall = max_t(s64, fall, -(s64)sg_k_rise_max(p));
	return div_s64(fall * (s64)share, SG_SLO_SHARE_ONE);
}

/*
 * Step 2: 5/4 of the policy's max, kHz: K does not rise for a need above it,
 * and f_need's average (sg_slo_need_over_max()) caps each window there.
 */
static u64 sg_slo_wind_khz(const struct sg_limits *lim)
{
	return div_u64((u64)lim->max * SG_SLO_WIND_NUM, SG_SLO_WIND_DEN);
}

/* Step 2: f_need of an SLO slot, kHz (may exceed any limit). */
static u64 sg_slo_need(const struct sg_obs *o, u32 t)
{
	u64 k = sg_exp2_q10(sg_obs_k_log(o) >> 6);	/* K, 1/1024 */
	u64 head = sg_mul_div(o->work_f, (u32)min_t(u64, k, U32_MAX), t) >> 10;
	u64 need = (u64)o->load_f + head;
	u64 busy = clamp_t(u64, o->load_s, o->load_f,
			   (u64)o->load_f + o->load_f / SG_SLO_LIFT_DIV);

	return max_t(u64, need, div_u64(busy * SLACKGOV_ONE, SG_SLO_RHO_MAX));
}

/* Step 3: work at rate @load (kHz) keeps a CPU at @khz 95 % busy or more. */
static bool sg_slo_saturates(u64 load, u64 khz)
{
	return load * SLACKGOV_ONE >= khz * SG_SLO_RHO_BOOST;
}

/* Step 3: the window timed @min_req (>= 1) requests or more, queueing over T / @div. */
static bool sg_slo_queued_over(const struct sg_obs *o, u32 t, u32 min_req, u32 div)
{
	return o->nr_lat >= min_req && (u64)o->queue_us * div > t;
}

/* Step 3: the window's mean queueing, of two requests or more, is over T / 2. */
static bool sg_slo_queue(const struct sg_obs *o, u32 t)
{
	return sg_slo_queued_over(o, t, SG_SLO_QUEUE_MIN_REQ, SG_SLO_QUEUE_DIV);
}

/* Step 3: the window's queue eats more than a quarter of T: not drained. */
static bool sg_slo_queued(const struct sg_obs *o, u32 t)
{
	return sg_slo_queued_over(o, t, 1, SG_SLO_DRAIN_DIV);
}

/*
 * Step 3: behind: a window busy at its frequency whose timed requests, one
 * or more, queued over T / 2.
 */
static bool sg_slo_behind(const struct sg_obs *o, u32 t)
{
	return sg_slo_queued_over(o, t, 1, SG_SLO_QUEUE_DIV) &&
	       sg_slo_saturates(o->load, o->f_khz);
}

/* ---- step 1: per-target filters --------------------------------------------- */

/**
 * sg_obs_update - take window @s of its target into slot @o (step 1, and
 * step 2's outer loop)
 * @o:		the slot: the target's, else one to reuse
 * @s:		the sample, validated (kfunc.c)
 * @now:	ktime_get_ns()
 * @lim:	the policy when the window was reported: @lim->cur is the
 *		frequency the window's work is counted at, K does not fall
 *		where f_need is under @lim->min, @lim->hw_max is K's load scale
 * @p:		the knobs (``slo_margin``, ``slo_gain``)
 *
 * Context: any; the caller holds the slot's lock.
 * Return: true when the slot started again from this window (a new slot,
 * another target's, or one not seen for the reset age).
 */
bool sg_obs_update(struct sg_obs *o, const struct slackgov_sample *s, u64 now,
		   const struct sg_limits *lim, const struct sg_law_params *p)
{
	u32 f_khz = min(lim->cur, SG_KHZ_MAX);
	bool idle = s->flags & SLACKGOV_SAMPLE_IDLE;
	u32 slack = idle ? SLACKGOV_ONE : s->slack;
	u64 len = clamp_t(u64, s->len_ns, 1, SG_SLACK_LEN_MAX_NS);
	u32 len_us = max_t(u32, div_u64(len, NSEC_PER_USEC), 1);
	u32 ncpu = 0, util, i;
	u64 load, cyc, req, tau, gap_us = 0;
	bool fresh;

	for (i = 0; i < SLACKGOV_CPU_WORDS; i++)
		ncpu += hweight64(s->cpus[i]);
	util = min_t(u32, s->util, SLACKGOV_ONE * SLACKGOV_MAX_CPUS);
	/* on-CPU cycles of the window, us*kHz: util * len / 1000 us at f_w */
	cyc = sg_mul_div((u64)util * len_us, f_khz, SLACKGOV_ONE);
	/* not clipped at one CPU: a run is counted whole in the window it ends in */
	load = min_t(u64, div_u64((u64)(util / max(ncpu, 1U)) * f_khz, SLACKGOV_ONE), U32_MAX);
	req = idle ? 0 : (u64)s->nr_req * SG_REQ_ONE;

	fresh = !o->stamp_ns || o->target != s->target || now - o->stamp_ns > SG_SLACK_RESET_NS;
	if (fresh) {
		o->slack_f = slack;
		o->load_f = load;
		o->load_s = load;
		o->work_cyc = cyc;
		o->work_req = req;
		o->work_len = len_us;
		o->work_f = 0;
		o->slo_us = 0;		/* K starts again below */
		o->k_hold_ns = 0;
		o->busy_ns = 0;
	} else {
		/* the work's sums forget with tau SG_WORK_TAU_US */
		u32 d = div_u64((u64)SG_WORK_TAU_US << 10, SG_WORK_TAU_US + len_us);

		o->work_cyc = ((o->work_cyc * d) >> 10) + cyc;
		o->work_req = ((o->work_req * d) >> 10) + req;
		o->work_len = ((o->work_len * d) >> 10) + len_us;
		/* L over SG_LOAD_REQS requests, within SG_SLACK_TAU_NS .. 1 s */
		tau = SG_SLACK_LEN_MAX_NS;
		if (o->work_req)
			tau = div64_u64(o->work_len * SG_LOAD_REQS * SG_REQ_ONE * NSEC_PER_USEC,
					o->work_req);
		tau = clamp_t(u64, tau, SG_SLACK_TAU_NS, SG_SLACK_LEN_MAX_NS);
		o->slack_f = sg_ewma(o->slack_f, slack, len, SG_SLACK_TAU_NS);
		o->load_f = sg_ewma(o->load_f, load, len, tau);
		o->load_s = sg_ewma(o->load_s, load, len, (u64)SG_WORK_TAU_US * NSEC_PER_USEC);
	}
	if (o->work_req >= SG_REQ_ONE)
		o->work_f = div64_u64(o->work_cyc * SG_REQ_ONE, o->work_req);
	/* step 2: K's knots around the load; a new SLO restarts K from c_q */
	o->k_pos = min_t(u64, div64_u64((u64)o->load_f * (SG_K_KNOTS - 1) * SG_K_POS_ONE,
					max(lim->hw_max, 1U)),
			 (SG_K_KNOTS - 1) * SG_K_POS_ONE);
	if (s->slo_us != o->slo_us || s->slo_q != o->slo_q) {	/* a fresh slot too */
		sg_k_fill(o, s->slo_us ? sg_slo_k_log0(s->slo_q) : 0);
		o->k_rise = sg_k_rise_max(p);
	}
	/* a load that resumes after an idle spell: its queue is step 3's */
	if (!idle && s->nr_lat) {
		if (o->busy_ns && now - o->busy_ns >= SG_SLO_RESUME_NS)
			o->k_hold_ns = now;
		gap_us = o->busy_ns ? div_u64(now - o->busy_ns, NSEC_PER_USEC) : len_us;
		o->busy_ns = now;
	}
	if (s->slo_us && !idle && s->nr_lat) {
		u32 t = sg_slo_budget_us(s->slo_us, slackgov_margin(s->slo_margin, p->slo_margin));
		u64 share = max_t(u64, div_u64((u64)min_t(u32, s->nr_lat, SG_SLO_HORIZON) *
					       SG_SLO_SHARE_ONE, SG_SLO_HORIZON),
				  sg_slo_time_share(len_us));
		s64 rise = sg_k_rise_max(p);

		/* the rise K may take refills by a horizon's worth per horizon */
		o->k_rise = min_t(s64, o->k_rise + div_u64(rise * share, SG_SLO_SHARE_ONE), rise);
		if (s->budget_us == t &&
		    !(o->k_hold_ns && now - o->k_hold_ns < (u64)SG_SLO_TAU_US * NSEC_PER_USEC)) {
			s64 step = sg_k_err_step(o, s, p);
			u64 need = sg_slo_need(o, t);
			bool wound;

			/*
			 * a light plan's tail scales as 1 / K: fall toward it, by
			 * the time since the previous timed window
			 */
			if (step <= 0 && !s->nr_over &&
			    (u64)o->load_f * SLACKGOV_ONE <= need * SG_SLO_FAST_RHO) {
				u64 gap_share = max(share, sg_slo_time_share(gap_us));

				step = min_t(s64, step, sg_k_fall_fast(s, t, gap_share, p));
			}
			/*
			 * anti-windup: a need well above the policy's max says
			 * nothing of K, nor does a short tail where the need is
			 * at its min
			 */
			wound = (step > 0 && need > sg_slo_wind_khz(lim)) ||
				(step < 0 && need <= lim->min);

			if (!wound) {
				step = min_t(s64, step, o->k_rise);
				if (step > 0)
					o->k_rise -= step;
				sg_k_step(o, step, sg_slo_k_log0(s->slo_q));
			}
		}
	}
	o->target = s->target;
	o->flags = s->flags;
	o->seq = s->seq;
	o->slack = slack;
	o->cv = s->cv;
	o->setpoint = s->setpoint;
	o->rps = s->rps;
	o->slo_us = s->slo_us;
	o->slo_q = s->slo_q;
	o->slo_margin = s->slo_margin;
	o->nr_lat = idle ? 0 : s->nr_lat;
	o->lat_q_us = s->lat_q_us;
	o->lat_win_us = s->lat_win_us;
	o->queue_us = s->queue_us;
	o->svc_us = s->svc_us;
	o->nr_over = idle ? 0 : s->nr_over;
	o->over_us = s->budget_us;
	o->f_khz = f_khz;
	o->load = load;
	o->stamp_ns = now;
	return fresh;
}

/**
 * sg_obs_k_keep - keep the target's K across a restart of slot @o (step 2)
 * @o:		the slot, just updated with @s (sg_obs_update())
 * @s:		the sample
 * @now:	the time sg_obs_update() was given
 * @restarted:	what sg_obs_update() returned
 * @m:		the target's K memory, which the caller serialises
 *
 * A slot that started again (a new slot, or one idle past the reset age:
 * a governor restart clears them all) for the SLO @m was learnt for takes
 * its K from @m and holds it for one horizon; then @m follows the slot.  An
 * exited target's memory is dropped.
 */
void sg_obs_k_keep(struct sg_obs *o, const struct slackgov_sample *s, u64 now,
		   bool restarted, struct sg_k_mem *m)
{
	if (s->flags & SLACKGOV_SAMPLE_EXITED || !s->slo_us) {
		m->slo_us = 0;
		return;
	}
	if (restarted && m->slo_us == s->slo_us && m->slo_q == s->slo_q) {
		memcpy(o->k_log, m->k_log, sizeof(o->k_log));
		o->k_hold_ns = now;
	}
	m->slo_us = s->slo_us;
	m->slo_q = s->slo_q;
	memcpy(m->k_log, o->k_log, sizeof(m->k_log));
}

/* ---- steps 2, 3, 6: combining the fresh targets ------------------------------- */

/**
 * sg_obs_fresh - does slot @o take part in the law (step 8)?
 * @o:		the slot
 * @now:	ktime_get_ns()
 * @stale_ns:	``stale_ms`` in ns
 */
bool sg_obs_fresh(const struct sg_obs *o, u64 now, u64 stale_ns)
{
	return o->stamp_ns && !(o->flags & SLACKGOV_SAMPLE_EXITED) &&
	       (s64)(now - o->stamp_ns) <= (s64)stale_ns;
}

/** sg_ctl_begin - an empty combination (no fresh target yet) */
void sg_ctl_begin(struct sg_ctl_in *in)
{
	memset(in, 0, sizeof(*in));
	in->pid_e = S32_MAX;
}

/**
 * sg_ctl_add - take one slot into the policy's combination (steps 2, 3, 6)
 * @in:		the combination, sg_ctl_begin() first
 * @o:		a copy of the slot
 * @p:		the knobs
 * @lim:	the policy's limits (cur for the busy-share test)
 * @now:	ktime_get_ns()
 */
void sg_ctl_add(struct sg_ctl_in *in, const struct sg_obs *o, const struct sg_law_params *p,
		const struct sg_limits *lim, u64 now)
{
	u32 word = o->target / 64;
	u64 bit = 1ULL << (o->target % 64);

	if (!sg_obs_fresh(o, now, p->stale_ns) || o->target >= SLACKGOV_MAX_TARGETS)
		return;
	if (!(in->seen[word] & bit)) {
		in->seen[word] |= bit;
		in->targets++;
		if (o->slo_us)
			in->slo_targets++;
	}
	in->newest_ns = max(in->newest_ns, o->stamp_ns);
	in->cv = max(in->cv, o->cv);
	if (p->sat_cv && o->cv > p->sat_cv)
		in->saturated = SG_R_SAT_CV;

	if (o->slo_us) {
		u32 t = sg_obs_budget_us(o, p->slo_margin);
		u64 need = sg_slo_need(o, t);
		bool busy = lim->cur && sg_slo_saturates(o->load_f, lim->cur);

		if ((sg_slo_queue(o, t) || busy) && !in->saturated)
			in->saturated = SG_R_SLO_QUEUE;
		in->behind |= sg_slo_behind(o, t);
		in->over_need |= (u64)o->load > need;
		if (sg_slo_queued(o, t))
			in->drain = true;
		in->slo_stamp = max(in->slo_stamp, o->stamp_ns);
		if (need >= in->f_need) {
			in->f_need = need;
			in->lead = *o;
			in->slo_lead_ns = o->stamp_ns;
		}
	} else {
		u32 spj = o->setpoint ?: p->setpoint;
		s32 e = (s32)o->slack_f - (s32)spj;

		if (o->slack < SG_COLLAPSE_SLACK && !in->saturated)
			in->saturated = SG_R_SAT_SLACK;
		if (o->slack < spj && o->slack_f < spj / SG_DRAIN_CONFIRM_DIV)
			in->drain = true;
		if (e < in->pid_e || (e == in->pid_e && o->stamp_ns > in->pid_stamp)) {
			in->pid_e = e;
			in->pid_stamp = o->stamp_ns;
			in->slack = o->slack_f;
			in->raw = o->slack;
			in->seq = o->seq;
			in->setpoint = spj;
			in->rps = o->rps;
			in->target = o->target;
		}
	}
}

/* ---- steps 4, 5: the slack PID ------------------------------------------------ */

/**
 * sg_law_reset - restart the law from the current frequency (bumpless)
 * @law:	the law's state
 * @cur_khz:	the frequency the policy runs at now
 */
void sg_law_reset(struct sg_law *law, u32 cur_khz)
{
	law->pid.u_khz = cur_khz;
	law->pid.e1 = 0;
	law->pid.e2 = 0;
	law->pid.rps1 = 0;
	law->pid.target1 = U32_MAX;
	law->slo_khz = cur_khz;
	law->need_f = 0;
	law->need_ns = 0;
	law->landing = false;
}

static void sg_pid_step(const struct sg_law_params *p, struct sg_pid *pid,
			const struct sg_ctl_in *in, const struct sg_limits *lim,
			struct sg_ctl_out *out)
{
	s64 lo = lim->min, hi = lim->max, span = lim->span;
	s32 db = p->deadband, e;

	if (!in->fresh) {
		pid->u_khz = clamp(pid->u_khz, lo, hi);
		out->err = pid->e1;
		out->reason = SG_R_HOLD;
		return;
	}
	e = in->pid_e;
	if (abs(e) <= db)
		e = 0;
	else
		e += e > 0 ? -db : db;

	/* each term in kHz; spare slack (e > 0) lowers u */
	out->p = -div_s64(span * p->kp * (e - pid->e1), SG_PID_SCALE);
	out->i = -div_s64(span * p->ki * e, SG_PID_SCALE);
	out->d = -div_s64(span * p->kd * (e - 2 * pid->e1 + pid->e2), SG_PID_SCALE);
	if (out->i < 0)
		out->i = div_s64(out->i, SG_DOWN_DIV);

	/* step 5: |u| < 2^27, ff_gain <= 10^4, |rel| <= 10^4: the product fits */
	if (p->ff_gain && pid->rps1 && in->rps && in->target == pid->target1) {
		s64 rel = div_s64(((s64)in->rps - pid->rps1) * SLACKGOV_ONE, pid->rps1);

		rel = clamp_t(s64, rel, SG_FF_REL_MIN, SG_FF_REL_MAX);
		out->ff = div_s64(clamp_t(s64, pid->u_khz, 0, hi) * p->ff_gain * rel,
				  (s64)SLACKGOV_ONE * SLACKGOV_ONE);
		out->ff = clamp(out->ff, -span, span);
	}
	pid->u_khz = clamp(pid->u_khz + out->p + out->i + out->d + out->ff, lo, hi);
	pid->e2 = pid->e1;
	pid->e1 = e;
	pid->rps1 = in->rps;
	pid->target1 = in->target;
	out->err = e;
	out->reason = (!e && !out->p && !out->d && !out->ff) ? SG_R_DEADBAND : SG_R_PID;
}

/* Step 7: the utilization rule. */
static unsigned int sg_util_freq(const struct sg_limits *lim, u32 load, enum sg_reason *reason)
{
	u64 f;

	if (load >= SG_UTIL_UP) {
		*reason = SG_R_UTIL_MAX;
		return lim->max;
	}
	*reason = SG_R_UTIL;
	f = div_u64((u64)(lim->cur ?: lim->max) * load * SG_UTIL_HEADROOM_NUM,
		    SG_UTIL_HEADROOM_DEN * SLACKGOV_ONE);
	return clamp_t(u64, f, lim->min, lim->max);
}

/* ---- the decision ----------------------------------------------------------------- */

/*
 * Step 2: take the lead's new window into f_need's average, each capped at
 * 5/4 of the policy's max (where K's anti-windup stops: a need beyond it
 * says as little of the average).  Return true when the average is within
 * 1/SG_SLO_HOLD_DIV of the max or above it: the output holds max.
 */
static bool sg_slo_need_over_max(struct sg_law *law, u64 f_need, u64 now,
				 const struct sg_limits *lim)
{
	u64 need = min(f_need, sg_slo_wind_khz(lim));

	if (!law->need_ns)
		law->need_f = need;
	else
		law->need_f = sg_ewma(law->need_f, need,
				      min_t(u64, now - law->need_ns, SG_SLACK_LEN_MAX_NS),
				      SG_SLO_NEED_TAU_NS);
	law->need_ns = now;
	return law->need_f >= lim->max - lim->max / SG_SLO_HOLD_DIV;
}

/*
 * Step 8: the policy's samples stopped but the feed goes on: samples named
 * other policies within the last stale_ms / 2 and after this one's newest.
 * A live feed closes every target's window each window_ns (10 ms, a fifth
 * of the default stale_ms) and a stopped one stops on every CPU within a
 * window, so half of stale_ms after its newest sample it is not live.
 */
static bool sg_left(const struct sg_signal *sig, const struct sg_law_params *p)
{
	return sig->last_ns && sig->feed_ns > sig->last_ns &&
	       (s64)(sig->now - sig->feed_ns) < (s64)(p->stale_ns / 2);
}

/**
 * sg_law_mode - the mode the next decision runs in (step 8)
 * @law:	the law's state (its mode is the previous one)
 * @in:		the combination of the fresh targets
 * @sig:	the feed's timeline
 * @p:		the knobs
 *
 * Return: SG_MODE_UTIL when no target drives the policy (the caller then
 * measures the load for sg_law_step()), SG_MODE_SAFE when the signal is
 * stale, else the law's mode (SLACK for now; sg_law_step() refines it).
 */
enum sg_mode sg_law_mode(const struct sg_law *law, const struct sg_ctl_in *in,
			 const struct sg_signal *sig, const struct sg_law_params *p)
{
	u64 hold = (u64)SG_SAFE_HOLD_MS * NSEC_PER_MSEC;

	if (in->targets)
		return SG_MODE_SLACK;
	if (sig->last_ns && sig->exit_ns >= sig->last_ns)
		return SG_MODE_UTIL;
	if (sg_left(sig, p))
		return SG_MODE_UTIL;
	if (sig->last_ns && (s64)(sig->now - sig->last_ns) < (s64)(p->stale_ns + hold))
		return SG_MODE_SAFE;
	return SG_MODE_UTIL;
}

/**
 * sg_law_step - one decision (the DOC block above)
 * @law:	the policy's law state, updated
 * @in:		the combination of the fresh targets (sg_ctl_add())
 * @sig:	the feed's timeline
 * @p:		the knobs
 * @lim:	the policy's limits
 * @load:	the busiest CPU's load, thousandths, for the util rule
 *		(U32_MAX: not measurable yet, hold cur)
 * @out:	the frequency, its reason, the mode and the terms
 *
 * Context: any; the caller serialises per policy.
 */
void sg_law_step(struct sg_law *law, struct sg_ctl_in *in, const struct sg_signal *sig,
		 const struct sg_law_params *p, const struct sg_limits *lim, u32 load,
		 struct sg_ctl_out *out)
{
	enum sg_mode prev = law->mode, mode = sg_law_mode(law, in, sig, p);
	bool has_pid = in->pid_e != S32_MAX, has_slo = in->slo_stamp != 0;
	s64 lo = lim->min, hi = lim->max;
	u32 sat;

	memset(out, 0, sizeof(*out));
	if (mode == SG_MODE_SAFE) {
		out->freq = clamp_t(u32, p->safe_khz ?: lim->max, lim->min, lim->max);
		out->reason = SG_R_STALE;
		out->urgent = true;
		out->entered_safe = prev != SG_MODE_SAFE;
		law->mode = mode;
		out->mode = mode;
		return;
	}
	if (mode == SG_MODE_UTIL) {
		if (load == U32_MAX) {
			out->freq = clamp_t(u32, lim->cur, lim->min, lim->max);
			out->reason = SG_R_UTIL;
		} else {
			out->freq = sg_util_freq(lim, load, &out->reason);
		}
		if (prev != SG_MODE_UTIL) {
			out->left_targets = true;
			out->reason = sig->exit_ns >= sig->last_ns ? SG_R_EXITED :
				      sg_left(sig, p) ? SG_R_LEFT : SG_R_LOST;
		}
		law->mode = mode;
		out->mode = mode;
		return;
	}

	/* from the util rule the law starts at cur; after a gap it resumes (step 8) */
	if (prev == SG_MODE_UTIL)
		sg_law_reset(law, lim->cur);

	/* step 6: each part steps once per new window of its targets */
	if (has_pid && in->pid_stamp > law->consumed_ns) {
		in->fresh = true;
		law->consumed_ns = in->pid_stamp;
	}
	if (has_slo && in->slo_lead_ns > law->slo_consumed_ns) {
		in->slo_fresh = true;
		law->slo_consumed_ns = in->slo_lead_ns;
	}

	if (has_slo) {					/* step 2 */
		s64 need = clamp_t(u64, in->f_need, lo, hi);
		s64 down = in->slo_fresh ? lim->span / SG_SLO_DOWN_DIV : 0;

		/* a need whose average is over max holds max */
		if (in->slo_fresh && sg_slo_need_over_max(law, in->f_need, sig->now, lim))
			need = hi;
		/* step 3: a landing whose window fits under f_need ends there */
		if (law->landing && in->slo_fresh && !in->over_need)
			down = hi - lo;
		out->f_need = in->f_need;
		law->slo_khz = clamp(max(need, law->slo_khz - down), lo, hi);
		if (law->slo_khz <= need)
			law->landing = false;
	}
	if (has_pid) {					/* steps 4, 5 */
		sg_pid_step(p, &law->pid, in, lim, out);
	} else {
		law->pid.u_khz = law->slo_khz;		/* bumpless for a new slack target */
	}
	if (has_slo && (!has_pid || law->slo_khz >= law->pid.u_khz)) {
		out->u = law->slo_khz;
		out->reason = in->slo_fresh ? SG_R_SLO : SG_R_HOLD;
		mode = SG_MODE_SLO;
	} else {
		out->u = law->pid.u_khz;
	}
	out->freq = out->u;

	/* step 3: saturation, and the boost held until the queue drained */
	sat = in->saturated;
	if (!sat && prev == SG_MODE_BOOST &&
	    (!(in->fresh || in->slo_fresh) || in->drain))
		sat = SG_R_SAT_DRAIN;
	if (!sat && in->behind)
		sat = SG_R_SLO_QUEUE;
	if (sat) {
		out->reason = sat;
		out->freq = hi;
		out->urgent = true;
		mode = SG_MODE_BOOST;
		law->slo_khz = hi;	/* step 3: a boost ends by coming down */
		law->landing = true;
	}
	out->entered_boost = mode == SG_MODE_BOOST && prev != SG_MODE_BOOST;
	law->mode = mode;
	out->mode = mode;
}
