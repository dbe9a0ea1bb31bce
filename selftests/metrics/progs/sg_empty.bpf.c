// SPDX-License-Identifier: GPL-2.0
/*
 * sg_empty.bpf.c - empty tp_btf sys_enter/sys_exit programs: the floor of
 * what any raw-syscall tracepoint design costs every process, measured side
 * by side with slackgov's own programs by bench-overhead.sh (sgloop -e).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(sg_empty_enter, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sg_empty_exit, struct pt_regs *regs, long ret)
{
	return 0;
}
