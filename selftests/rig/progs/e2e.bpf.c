// SPDX-License-Identifier: GPL-2.0
/*
 * e2e.bpf.c - the rig's end-to-end probe: the smallest real feed.
 *
 * One target process (rodata target_tgid); slack = time it spent blocked in
 * wait calls / window length; at each window close the sample goes to
 * slackgov.ko through the kfunc.  It proves the chain tracepoint -> kfunc ->
 * governor -> driver; the product's metrics are bpf/slackgov.bpf.c.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "slackgov.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tgid;
const volatile __u64 window_ns = 10000000;	/* 10 ms */

/* x86_64 syscall numbers of the wait family */
#define NR_poll		7
#define NR_select	23
#define NR_epoll_wait	232
#define NR_pselect6	270
#define NR_ppoll	271
#define NR_epoll_pwait	281
#define NR_epoll_pwait2	441

struct sg_state {
	__u64 win_start;
	__u64 wait_start;
	__u64 blocked_ns;
	__u64 seq;
	__u32 nr_wait;
	__s32 last_ret;
	__u64 nr_ok;		/* samples the module accepted */
	__u64 nr_err;		/* samples it rejected */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sg_state);
} state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slackgov_sample);
} scratch SEC(".maps");

static __always_inline bool is_wait(long id)
{
	return id == NR_poll || id == NR_select || id == NR_epoll_wait ||
	       id == NR_pselect6 || id == NR_ppoll || id == NR_epoll_pwait ||
	       id == NR_epoll_pwait2;
}

static __always_inline struct sg_state *target_state(void)
{
	__u32 zero = 0;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return NULL;
	return bpf_map_lookup_elem(&state, &zero);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sg_sys_enter, struct pt_regs *regs, long id)
{
	struct sg_state *st = target_state();

	if (st && is_wait(id))
		st->wait_start = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sg_sys_exit, struct pt_regs *regs, long ret)
{
	struct sg_state *st = target_state();
	struct slackgov_sample *s;
	__u64 now, len;
	__u32 zero = 0, cpu;
	long id;

	if (!st)
		return 0;
	now = bpf_ktime_get_ns();
	id = BPF_CORE_READ(regs, orig_ax);
	if (is_wait(id) && st->wait_start) {
		st->blocked_ns += now - st->wait_start;
		st->wait_start = 0;
		st->nr_wait++;
	}
	if (!st->win_start) {
		st->win_start = now;
		return 0;
	}
	len = now - st->win_start;
	if (len < window_ns)
		return 0;

	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	__builtin_memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->version = SLACKGOV_ABI_VERSION;
	s->seq = ++st->seq;
	s->end_ns = now;
	s->len_ns = len;
	s->slack = st->blocked_ns >= len ? SLACKGOV_ONE : st->blocked_ns * SLACKGOV_ONE / len;
	s->nr_wait = st->nr_wait;
	cpu = bpf_get_smp_processor_id();
	if (cpu < SLACKGOV_MAX_CPUS)
		s->cpus[cpu / 64 & (SLACKGOV_CPU_WORDS - 1)] |= 1ULL << (cpu % 64);
	st->last_ret = slackgov_report(s, sizeof(*s));
	if (st->last_ret < 0)
		st->nr_err++;
	else
		st->nr_ok++;
	st->win_start = now;
	st->blocked_ns = 0;
	st->nr_wait = 0;
	return 0;
}
