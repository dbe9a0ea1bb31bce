// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - the slack governor's tunables (cpufreq/slack/) and per-policy
 * read-only stats (cpufreq/policyN/slack/).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpufreq.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include "sg.h"

/*
 * Knob limits and defaults.  Ratios are thousandths (1000 == 1.0), gains
 * x1000.  A write outside [MIN, MAX], or not a plain decimal unsigned
 * integer, fails with -EINVAL and changes nothing.
 */
/* slack setpoint: any ratio.  350: workers busy 65 % of the time; in
 * tune.sh (2026-11-23, epoll server, 2 repetitions) it used 30 % / 16 % less
 * modeled energy per request than performance at 30 % / 50 % load with the
 * p99 within 5x the unloaded p99, where 450 saved 28 % / 10 % and 250 ran
 * the p99 up further (control.c step 4)
 */
#define SG_SETPOINT_MIN		0
#define SG_SETPOINT_MAX		SLACKGOV_ONE
#define SG_SETPOINT_DEF		350
/* gains up to 10.0: beyond, one window's noise swings the whole range */
#define SG_GAIN_MIN		0
#define SG_GAIN_MAX		10000
#define SG_KP_DEF		300	/* reasons: control.c, step 4 */
#define SG_KI_DEF		200
#define SG_KD_DEF		0
/* deadband: up to half the ratio range; wider would leave the loop blind */
#define SG_DEADBAND_MIN		0
#define SG_DEADBAND_MAX		500
/* +-5 %: about the window-to-window noise of slack with ~1 ms requests in
 * ~10 ms windows, so noise alone does not move the frequency
 */
#define SG_DEADBAND_DEF		50
/* cv threshold, thousandths; 0 disables the cv test.  The max matches the
 * largest cv the kfunc accepts.
 */
#define SG_SAT_CV_MIN		0
#define SG_SAT_CV_MAX		1000000
/* 3.0: below saturation the batch cv (bpf/slackgov.bpf.c) of open-loop
 * Poisson arrivals measured 0.7-0.9 on the host and up to 1.56 at 90% load
 * in the TCG guest; a saturated server reads its backlog in batches of k,
 * cv ~ sqrt(k - 1), measured 9-20.  Twice the highest unsaturated figure,
 * a third of the lowest saturated one (1.5 boosted on noise at 90% load).
 */
#define SG_SAT_CV_DEF		3000
/* stale timeout: 5 ms is about a scheduling delay of the BPF side under load,
 * below that healthy feeds would trip it; 60 s is "effectively never"
 */
#define SG_STALE_MS_MIN		5
#define SG_STALE_MS_MAX		60000
/* 50 ms: five 10 ms windows missed in a row, and within the bound */
#define SG_STALE_MS_DEF		50
/* safe frequency, kHz; 0 = the policy's max.  Clamped to the policy limits
 * when used; 100 GHz is above any CPU
 */
#define SG_SAFE_KHZ_MIN		0
#define SG_SAFE_KHZ_MAX		100000000
#define SG_SAFE_KHZ_DEF		0
/* rate limit of frequency changes: up to 1 s; default from the driver
 * (cpufreq_policy_transition_delay_us(), as schedutil)
 */
#define SG_RATE_LIMIT_US_MIN	0
#define SG_RATE_LIMIT_US_MAX	USEC_PER_SEC
/* idle thresholds (average slack, thousandths), tight <= relax (the band
 * between is the hysteresis).  Both below the setpoint's band (400..500 with
 * the defaults), so that a target held at its setpoint keeps deep C-states:
 * tight at 150 (workers busy 85 %, near saturation), relaxed again at 350.
 * The first defaults (225/550, relax above the band) kept C6 forbidden at
 * steady state once one window had tightened it: in tune.sh at 10 % load
 * slack then used more modeled energy per request than performance (23.4
 * vs 21.1 mJ), its idle time in C1E (600 mW) instead of C6 (50 mW).
 */
#define SG_IDLE_SLACK_MIN	0
#define SG_IDLE_SLACK_MAX	SLACKGOV_ONE
#define SG_IDLE_TIGHT_DEF	150
#define SG_IDLE_RELAX_DEF	350
/* resume latency of a tight CPU, us.  20 keeps C1/C1E (exit 1-10 us) and
 * removes C6-class states (exit ~100 us and more); 0 = polling only;
 * 100 ms is longer than any C-state exit
 */
#define SG_IDLE_LATENCY_MIN	0
#define SG_IDLE_LATENCY_MAX	100000
#define SG_IDLE_LATENCY_DEF	20
/* feed-forward gain from rps, x1000; 0 = off (the default: the PID alone) */
#define SG_FF_GAIN_MIN		0
#define SG_FF_GAIN_MAX		10000
#define SG_FF_GAIN_DEF		0

static inline struct sg_tunables *to_sg_tunables(struct gov_attr_set *attr_set)
{
	return container_of(attr_set, struct sg_tunables, attr_set);
}

/* Parse a plain decimal unsigned int within [lo, hi]. */
static int sg_parse(const char *buf, unsigned int lo, unsigned int hi, unsigned int *v)
{
	if (kstrtouint(buf, 10, v) || *v < lo || *v > hi)
		return -EINVAL;
	return 0;
}

/*
 * One tunable: show prints it; store parses, range-checks, runs the knob's
 * extra check (NULL: none) and only then writes.  Called by
 * governor_sysfs_ops under attr_set->update_lock, which serialises stores.
 */
#define SG_TUNABLE(name, lo, hi, check)						\
static ssize_t name##_show(struct gov_attr_set *attr_set, char *buf)		\
{										\
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_sg_tunables(attr_set)->name)); \
}										\
static ssize_t name##_store(struct gov_attr_set *attr_set, const char *buf,	\
			    size_t count)					\
{										\
	struct sg_tunables *t = to_sg_tunables(attr_set);			\
	bool (*chk)(struct sg_tunables *, unsigned int) = check;		\
	unsigned int v;								\
										\
	if (sg_parse(buf, lo, hi, &v) || (chk && !chk(t, v)))			\
		return -EINVAL;							\
	WRITE_ONCE(t->name, v);							\
	return count;								\
}										\
static struct governor_attr sg_attr_##name = __ATTR(name, 0644, name##_show, name##_store)

static bool sg_tight_ok(struct sg_tunables *t, unsigned int v)
{
	return v <= t->idle_relax_slack;
}

static bool sg_relax_ok(struct sg_tunables *t, unsigned int v)
{
	return v >= t->idle_tight_slack;
}

SG_TUNABLE(setpoint, SG_SETPOINT_MIN, SG_SETPOINT_MAX, NULL);
SG_TUNABLE(kp, SG_GAIN_MIN, SG_GAIN_MAX, NULL);
SG_TUNABLE(ki, SG_GAIN_MIN, SG_GAIN_MAX, NULL);
SG_TUNABLE(kd, SG_GAIN_MIN, SG_GAIN_MAX, NULL);
SG_TUNABLE(deadband, SG_DEADBAND_MIN, SG_DEADBAND_MAX, NULL);
SG_TUNABLE(sat_cv, SG_SAT_CV_MIN, SG_SAT_CV_MAX, NULL);
SG_TUNABLE(stale_ms, SG_STALE_MS_MIN, SG_STALE_MS_MAX, NULL);
SG_TUNABLE(safe_khz, SG_SAFE_KHZ_MIN, SG_SAFE_KHZ_MAX, NULL);
SG_TUNABLE(rate_limit_us, SG_RATE_LIMIT_US_MIN, SG_RATE_LIMIT_US_MAX, NULL);
SG_TUNABLE(idle_tight_slack, SG_IDLE_SLACK_MIN, SG_IDLE_SLACK_MAX, sg_tight_ok);
SG_TUNABLE(idle_relax_slack, SG_IDLE_SLACK_MIN, SG_IDLE_SLACK_MAX, sg_relax_ok);
SG_TUNABLE(idle_latency_us, SG_IDLE_LATENCY_MIN, SG_IDLE_LATENCY_MAX, NULL);
SG_TUNABLE(ff_gain, SG_FF_GAIN_MIN, SG_FF_GAIN_MAX, NULL);

static struct attribute *sg_tunables_attrs[] = {
	&sg_attr_setpoint.attr,
	&sg_attr_kp.attr,
	&sg_attr_ki.attr,
	&sg_attr_kd.attr,
	&sg_attr_deadband.attr,
	&sg_attr_sat_cv.attr,
	&sg_attr_stale_ms.attr,
	&sg_attr_safe_khz.attr,
	&sg_attr_rate_limit_us.attr,
	&sg_attr_idle_tight_slack.attr,
	&sg_attr_idle_relax_slack.attr,
	&sg_attr_idle_latency_us.attr,
	&sg_attr_ff_gain.attr,
	NULL
};
ATTRIBUTE_GROUPS(sg_tunables);

static void sg_tunables_release(struct kobject *kobj)
{
	kfree(to_sg_tunables(to_gov_attr_set(kobj)));
}

static const struct kobj_type sg_tunables_ktype = {
	.default_groups	= sg_tunables_groups,
	.sysfs_ops	= &governor_sysfs_ops,
	.release	= sg_tunables_release,
};

/**
 * sg_tunables_alloc - a tunables set with the defaults for @policy
 * @policy:	the first policy that uses it (gives the default rate limit)
 */
struct sg_tunables *sg_tunables_alloc(struct cpufreq_policy *policy)
{
	struct sg_tunables *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	t->setpoint = SG_SETPOINT_DEF;
	t->kp = SG_KP_DEF;
	t->ki = SG_KI_DEF;
	t->kd = SG_KD_DEF;
	t->deadband = SG_DEADBAND_DEF;
	t->sat_cv = SG_SAT_CV_DEF;
	t->stale_ms = SG_STALE_MS_DEF;
	t->safe_khz = SG_SAFE_KHZ_DEF;
	t->rate_limit_us = min_t(unsigned int, cpufreq_policy_transition_delay_us(policy),
				 SG_RATE_LIMIT_US_MAX);
	t->idle_tight_slack = SG_IDLE_TIGHT_DEF;
	t->idle_relax_slack = SG_IDLE_RELAX_DEF;
	t->idle_latency_us = SG_IDLE_LATENCY_DEF;
	t->ff_gain = SG_FF_GAIN_DEF;
	return t;
}

/**
 * sg_tunables_add - the tunables directory: cpufreq/slack/, or policyN/slack/
 * on platforms with governors per policy (get_governor_parent_kobj())
 * @t:		tunables, gov_attr_set_init() done
 * @policy:	the policy
 *
 * On error the caller drops the kobject (kobject_put(), which frees @t).
 */
int sg_tunables_add(struct sg_tunables *t, struct cpufreq_policy *policy)
{
	return kobject_init_and_add(&t->attr_set.kobj, &sg_tunables_ktype,
				    get_governor_parent_kobj(policy), "%s", "slack");
}

/* ---- per-policy stats -------------------------------------------------------- */

struct sg_stat_attr {
	struct attribute attr;
	ssize_t (*show)(struct sg_policy *sp, char *buf);
};

#define SG_STAT(n, fmt, expr)							\
static ssize_t stat_##n##_show(struct sg_policy *sp, char *buf)			\
{										\
	return sysfs_emit(buf, fmt "\n", expr);					\
}										\
static struct sg_stat_attr sg_stat_##n = {					\
	.attr = { .name = #n, .mode = 0444 },					\
	.show = stat_##n##_show,						\
}

SG_STAT(mode, "%s", sg_mode_names[READ_ONCE(sp->mode)]);
SG_STAT(decisions, "%llu", READ_ONCE(sp->decisions));
SG_STAT(boosts, "%llu", READ_ONCE(sp->boosts));
SG_STAT(fallbacks, "%llu", READ_ONCE(sp->fallbacks));
SG_STAT(last_slack, "%d", READ_ONCE(sp->last_slack));
SG_STAT(last_freq, "%u", READ_ONCE(sp->last_freq));
SG_STAT(last_reason, "%s", sg_reason_names[READ_ONCE(sp->last_reason)]);

/* idle_qos: "CPU:US" per CPU of the policy, US = our resume-latency request or "none" */
static ssize_t stat_idle_qos_show(struct sg_policy *sp, char *buf)
{
	int cpu, len = 0;

	for_each_cpu(cpu, sp->policy->related_cpus) {
		s32 v = READ_ONCE(per_cpu(sg_cpu, cpu).qos_cur);

		if (v == SG_QOS_NONE)
			len += sysfs_emit_at(buf, len, "%s%d:none", len ? " " : "", cpu);
		else
			len += sysfs_emit_at(buf, len, "%s%d:%d", len ? " " : "", cpu, v);
	}
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static struct sg_stat_attr sg_stat_idle_qos = {
	.attr = { .name = "idle_qos", .mode = 0444 },
	.show = stat_idle_qos_show,
};

static struct attribute *sg_stats_attrs[] = {
	&sg_stat_mode.attr,
	&sg_stat_decisions.attr,
	&sg_stat_boosts.attr,
	&sg_stat_fallbacks.attr,
	&sg_stat_last_slack.attr,
	&sg_stat_last_freq.attr,
	&sg_stat_last_reason.attr,
	&sg_stat_idle_qos.attr,
	NULL
};
ATTRIBUTE_GROUPS(sg_stats);

static ssize_t sg_stats_show(struct kobject *kobj, struct attribute *attr, char *buf)
{
	struct sg_policy *sp = container_of(kobj, struct sg_policy, stats_kobj);

	return container_of(attr, struct sg_stat_attr, attr)->show(sp, buf);
}

static const struct sysfs_ops sg_stats_sysfs_ops = {
	.show	= sg_stats_show,
};

/* The policy is freed by sg_exit() once this has run. */
static void sg_stats_release(struct kobject *kobj)
{
	complete(&container_of(kobj, struct sg_policy, stats_kobj)->stats_released);
}

const struct kobj_type sg_stats_ktype = {
	.default_groups	= sg_stats_groups,
	.sysfs_ops	= &sg_stats_sysfs_ops,
	.release	= sg_stats_release,
};
