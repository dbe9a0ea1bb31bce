// SPDX-License-Identifier: GPL-2.0
/*
 * sg_inject.bpf.c - test-only feed: hands a sample chosen by the loader
 * (selftests/tools/sginject.c) to slackgov_report() whenever the loader
 * process calls getppid(), so the governor tests can play any slack, cv and
 * CPU set without the real BPF side.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "slackgov.h"

char LICENSE[] SEC("license") = "GPL";

#define NR_getppid	110	/* x86_64 */

const volatile __u32 target_tgid;

struct sg_inject_stats {
	__u64 nr_ok;
	__u64 nr_err;
	__s32 last_ret;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slackgov_sample);
} sample SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sg_inject_stats);
} stats SEC(".maps");

SEC("tp_btf/sys_enter")
int BPF_PROG(sg_inject, struct pt_regs *regs, long id)
{
	struct sg_inject_stats *st;
	struct slackgov_sample *s;
	__u32 zero = 0;
	int ret;

	if (id != NR_getppid || (bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	s = bpf_map_lookup_elem(&sample, &zero);
	st = bpf_map_lookup_elem(&stats, &zero);
	if (!s || !st)
		return 0;
	s->seq++;
	s->end_ns = bpf_ktime_get_ns();
	ret = slackgov_report(s, sizeof(*s));
	st->last_ret = ret;
	if (ret < 0)		/* else stored: T for an SLO target, or 0 */
		st->nr_err++;
	else
		st->nr_ok++;
	return 0;
}
