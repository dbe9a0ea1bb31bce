// SPDX-License-Identifier: GPL-2.0
/*
 * sg_empty.bpf.c - empty programs on slackgov's syscall hooks, the floor of
 * each hook set (bpf/slackgov.bpf.c DOC "hooks"), measured side by side with
 * slackgov's own programs by bench-overhead.sh: tp_btf sys_enter/sys_exit
 * (sgloop -e: what any raw-syscall tracepoint design costs every process),
 * and fentry/fexit on the watched syscalls as slackgov attaches them (sgloop
 * -f: fentry and fexit on the recv and wait families, fexit on the send
 * family).  sgloop loads one set or the other.
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

#define EMPTY_FEXIT(call)							\
SEC("fexit/__x64_sys_" #call)							\
int BPF_PROG(sg_empty_fx_##call, struct pt_regs *regs, long ret)		\
{										\
	return 0;								\
}
#define EMPTY_FENTRY_FEXIT(call)						\
SEC("fentry/__x64_sys_" #call)							\
int BPF_PROG(sg_empty_fe_##call, struct pt_regs *regs)				\
{										\
	return 0;								\
}										\
EMPTY_FEXIT(call)

EMPTY_FENTRY_FEXIT(read)
EMPTY_FENTRY_FEXIT(readv)
EMPTY_FENTRY_FEXIT(recvfrom)
EMPTY_FENTRY_FEXIT(recvmsg)
EMPTY_FENTRY_FEXIT(recvmmsg)
EMPTY_FENTRY_FEXIT(poll)
EMPTY_FENTRY_FEXIT(select)
EMPTY_FENTRY_FEXIT(epoll_wait)
EMPTY_FENTRY_FEXIT(pselect6)
EMPTY_FENTRY_FEXIT(ppoll)
EMPTY_FENTRY_FEXIT(epoll_pwait)
EMPTY_FENTRY_FEXIT(epoll_pwait2)
EMPTY_FEXIT(write)
EMPTY_FEXIT(writev)
EMPTY_FEXIT(sendto)
EMPTY_FEXIT(sendmsg)
EMPTY_FEXIT(sendmmsg)
