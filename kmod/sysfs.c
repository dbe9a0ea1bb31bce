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
#include "ops.h"

/*
 * The knobs, their defaults and ranges are SLACKGOV_GOV_KNOBS in slackgov.h
 * (why each value: Documentation/governor.rst and control.c).  A write
 * outside [min, max], or not a plain decimal unsigned integer, fails with
 * -EINVAL and changes nothing.
 */
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
 * Rules between knobs: idle_tight_slack <= idle_relax_slack (the band
 * between them is the hysteresis).  @field is the knob being written.
 */
static bool sg_knob_cross_ok(const struct sg_tunables *t, const unsigned int *field,
			     unsigned int v)
{
	if (field == &t->idle_tight_slack)
		return v <= t->idle_relax_slack;
	if (field == &t->idle_relax_slack)
		return v >= t->idle_tight_slack;
	return true;
}

/*
 * One tunable: show prints it; store parses, range-checks, checks the
 * rules between knobs and only then writes.  Called by governor_sysfs_ops
 * under attr_set->update_lock, which serialises stores.
 */
#define SG_TUNABLE(name, def, lo, hi, unit)					\
static ssize_t name##_show(struct gov_attr_set *attr_set, char *buf)		\
{										\
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_sg_tunables(attr_set)->name)); \
}										\
static ssize_t name##_store(struct gov_attr_set *attr_set, const char *buf,	\
			    size_t count)					\
{										\
	struct sg_tunables *t = to_sg_tunables(attr_set);			\
	unsigned int v;								\
										\
	if (sg_parse(buf, lo, hi, &v) || !sg_knob_cross_ok(t, &t->name, v))	\
		return -EINVAL;							\
	WRITE_ONCE(t->name, v);							\
	return count;								\
}										\
static struct governor_attr sg_attr_##name = __ATTR(name, 0644, name##_show, name##_store);

SLACKGOV_GOV_KNOBS(SG_TUNABLE)

/* SG_MAX_<name>: each knob's largest value */
#define SG_TUNABLE_MAX(name, def, lo, hi, unit)	SG_MAX_##name = hi,
enum { SLACKGOV_GOV_KNOBS(SG_TUNABLE_MAX) };

#define SG_TUNABLE_ATTR(name, def, lo, hi, unit)	&sg_attr_##name.attr,
static struct attribute *sg_tunables_attrs[] = {
	SLACKGOV_GOV_KNOBS(SG_TUNABLE_ATTR)
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
#define SG_TUNABLE_DEF(name, def, lo, hi, unit)	t->name = def;
	SLACKGOV_GOV_KNOBS(SG_TUNABLE_DEF)
	/* 0 in the list: the driver's transition delay, as schedutil */
	t->rate_limit_us = min_t(unsigned int, cpufreq_policy_transition_delay_us(policy),
				 SG_MAX_rate_limit_us);
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

SG_STAT(mode, "%s", sg_mode_names[READ_ONCE(sp->law.mode)]);
SG_STAT(decisions, "%llu", READ_ONCE(sp->decisions));
SG_STAT(boosts, "%llu", READ_ONCE(sp->boosts));
SG_STAT(fallbacks, "%llu", READ_ONCE(sp->fallbacks));
SG_STAT(last_slack, "%d", READ_ONCE(sp->last_slack));
SG_STAT(last_freq, "%u", READ_ONCE(sp->last_freq));
SG_STAT(last_reason, "%s", sg_reason_names[READ_ONCE(sp->last_reason)]);
SG_STAT(last_slo_us, "%u", READ_ONCE(sp->last_slo_us));
SG_STAT(last_lat_us, "%u", READ_ONCE(sp->last_lat_us));
SG_STAT(last_slo_k, "%u", READ_ONCE(sp->last_slo_k));
SG_STAT(ops_decisions, "%llu", READ_ONCE(sp->ops_decisions));
SG_STAT(ops_fallbacks, "%llu", READ_ONCE(sp->ops_fallbacks));

/* law: "builtin", or "bpf:<name>" while BPF ops name this policy (ops.c) */
static struct sg_stat_attr sg_stat_law = {
	.attr = { .name = "law", .mode = 0444 },
	.show = sg_ops_law_show,
};

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
	&sg_stat_last_slo_us.attr,
	&sg_stat_last_lat_us.attr,
	&sg_stat_last_slo_k.attr,
	&sg_stat_idle_qos.attr,
	&sg_stat_law.attr,
	&sg_stat_ops_decisions.attr,
	&sg_stat_ops_fallbacks.attr,
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
