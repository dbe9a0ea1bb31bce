/* SPDX-License-Identifier: GPL-2.0 */
/* trace.h - slackgov trace events: one per decision, QoS changes, stale fallbacks, BPF ops. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM slackgov

#if !defined(_SLACKGOV_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SLACKGOV_TRACE_H

#include <linux/tracepoint.h>
#include "sg.h"
#include "ops.h"

/* { value, "name" } lists for __print_symbolic(), from control.h's X-macros */
#define SG_TRACE_REASON(r, name)	{ SG_R_##r, name },
#define SG_TRACE_MODE(m, name)		{ SG_MODE_##m, name },
#define SG_TRACE_REASONS	SG_REASONS(SG_TRACE_REASON) { SG_R_NR, "?" }
#define SG_TRACE_MODES		SG_MODES(SG_TRACE_MODE) { SG_MODE_NR, "?" }
#define SG_TRACE_OPS_RESULT(r, name)	{ SG_OPS_##r, name },
#define SG_TRACE_OPS_RESULTS	SG_OPS_RESULTS(SG_TRACE_OPS_RESULT) { -1, "?" }

/*
 * slackgov_decision - one decision of one policy: its inputs (the most
 * constrained slack target's window sequence number, filtered and raw slack
 * and setpoint, the largest cv, that target's rps, the number of fresh
 * targets and of SLO targets; load for the util rule), the SLO target with
 * the largest need (its SLO, its latest window's sequence number, lat_q and
 * this window's percentile, mean queueing, us; the window's timed requests
 * and those over T, with the T they were counted against, us; K x1000;
 * f_need, kHz), the PID terms in kHz, the frequency asked for and why.
 */
TRACE_EVENT(slackgov_decision,
	TP_PROTO(unsigned int cpu, int mode, const struct sg_ctl_in *in, u32 load,
		 const struct sg_ctl_out *out),
	TP_ARGS(cpu, mode, in, load, out),
	TP_STRUCT__entry(
		__field(unsigned int,	cpu)
		__field(int,		mode)
		__field(u64,		seq)
		__field(u32,		slack)
		__field(u32,		raw)
		__field(u32,		setpoint)
		__field(u32,		cv)
		__field(u32,		rps)
		__field(u32,		targets)
		__field(u32,		slo_targets)
		__field(u32,		load)
		__field(u32,		slo_us)
		__field(u64,		slo_seq)
		__field(u32,		lat_q_us)
		__field(u32,		lat_win_us)
		__field(u32,		queue_us)
		__field(u32,		nr_lat)
		__field(u32,		nr_over)
		__field(u32,		over_us)
		__field(u32,		k)
		__field(u64,		f_need)
		__field(s32,		err)
		__field(s64,		p)
		__field(s64,		i)
		__field(s64,		d)
		__field(s64,		ff)
		__field(s64,		u)
		__field(unsigned int,	freq)
		__field(int,		reason)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->mode = mode;
		__entry->seq = in->seq;
		__entry->slack = in->slack;
		__entry->raw = in->raw;
		__entry->setpoint = in->setpoint;
		__entry->cv = in->cv;
		__entry->rps = in->rps;
		__entry->targets = in->targets;
		__entry->slo_targets = in->slo_targets;
		__entry->load = load;
		__entry->slo_us = in->lead.slo_us;
		__entry->slo_seq = in->lead.seq;
		__entry->lat_q_us = in->lead.lat_q_us;
		__entry->lat_win_us = in->lead.lat_win_us;
		__entry->queue_us = in->lead.queue_us;
		__entry->nr_lat = in->lead.nr_lat;
		__entry->nr_over = in->lead.nr_over;
		__entry->over_us = in->lead.over_us;
		__entry->k = sg_obs_k_milli(&in->lead);
		__entry->f_need = out->f_need;
		__entry->err = out->err;
		__entry->p = out->p;
		__entry->i = out->i;
		__entry->d = out->d;
		__entry->ff = out->ff;
		__entry->u = out->u;
		__entry->freq = out->freq;
		__entry->reason = out->reason;
	),
	TP_printk("policy=%u mode=%s seq=%llu slack=%u raw=%u setpoint=%u cv=%u rps=%u targets=%u slo_targets=%u load=%u slo_us=%u slo_seq=%llu lat_q_us=%u lat_win_us=%u queue_us=%u nr_lat=%u nr_over=%u over_us=%u k=%u f_need=%llu err=%d p=%lld i=%lld d=%lld ff=%lld u=%lld freq=%u reason=%s",
		  __entry->cpu, __print_symbolic(__entry->mode, SG_TRACE_MODES),
		  __entry->seq, __entry->slack, __entry->raw, __entry->setpoint, __entry->cv,
		  __entry->rps, __entry->targets, __entry->slo_targets, __entry->load,
		  __entry->slo_us, __entry->slo_seq, __entry->lat_q_us, __entry->lat_win_us,
		  __entry->queue_us,
		  __entry->nr_lat, __entry->nr_over, __entry->over_us, __entry->k,
		  __entry->f_need, __entry->err, __entry->p, __entry->i,
		  __entry->d, __entry->ff, __entry->u, __entry->freq,
		  __print_symbolic(__entry->reason, SG_TRACE_REASONS))
);

/* slackgov_qos - a CPU's resume-latency request changed (-1: no request). */
TRACE_EVENT(slackgov_qos,
	TP_PROTO(unsigned int cpu, s32 old_us, s32 new_us, int ret),
	TP_ARGS(cpu, old_us, new_us, ret),
	TP_STRUCT__entry(
		__field(unsigned int,	cpu)
		__field(s32,		old_us)
		__field(s32,		new_us)
		__field(int,		ret)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->old_us = old_us;
		__entry->new_us = new_us;
		__entry->ret = ret;
	),
	TP_printk("cpu=%u old_us=%d new_us=%d ret=%d",
		  __entry->cpu, __entry->old_us, __entry->new_us, __entry->ret)
);

/* slackgov_stale - a policy's samples stopped: it goes to the safe frequency. */
TRACE_EVENT(slackgov_stale,
	TP_PROTO(unsigned int cpu, u64 age_us, unsigned int stale_ms, unsigned int safe_khz,
		 u64 fallbacks),
	TP_ARGS(cpu, age_us, stale_ms, safe_khz, fallbacks),
	TP_STRUCT__entry(
		__field(unsigned int,	cpu)
		__field(u64,		age_us)
		__field(unsigned int,	stale_ms)
		__field(unsigned int,	safe_khz)
		__field(u64,		fallbacks)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->age_us = age_us;
		__entry->stale_ms = stale_ms;
		__entry->safe_khz = safe_khz;
		__entry->fallbacks = fallbacks;
	),
	TP_printk("policy=%u age_us=%llu stale_ms=%u safe_khz=%u fallbacks=%llu",
		  __entry->cpu, __entry->age_us, __entry->stale_ms, __entry->safe_khz,
		  __entry->fallbacks)
);

/*
 * slackgov_ops - one decision of a policy that BPF ops (struct slackgov_ops)
 * name: the law's name, the built-in law's proposal, what next_freq()
 * returned (0 when not called), the frequency decided (before the rate
 * limit), what became of the value (ok, clamped, error, range, rule) and
 * the policy's ops_fallbacks count.  Fired only on kernels with module
 * struct_ops.
 */
TRACE_EVENT(slackgov_ops,
	TP_PROTO(unsigned int cpu, const char *name, unsigned int builtin, s64 ret,
		 unsigned int freq, int result, u64 fallbacks),
	TP_ARGS(cpu, name, builtin, ret, freq, result, fallbacks),
	TP_STRUCT__entry(
		__field(unsigned int,	cpu)
		__array(char,		name, 16)
		__field(unsigned int,	builtin)
		__field(s64,		ret)
		__field(unsigned int,	freq)
		__field(int,		result)
		__field(u64,		fallbacks)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		strscpy(__entry->name, name, sizeof(__entry->name));
		__entry->builtin = builtin;
		__entry->ret = ret;
		__entry->freq = freq;
		__entry->result = result;
		__entry->fallbacks = fallbacks;
	),
	TP_printk("policy=%u law=bpf:%s builtin=%u ret=%lld freq=%u result=%s ops_fallbacks=%llu",
		  __entry->cpu, __entry->name, __entry->builtin, __entry->ret, __entry->freq,
		  __print_symbolic(__entry->result, SG_TRACE_OPS_RESULTS), __entry->fallbacks)
);

#endif /* _SLACKGOV_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
