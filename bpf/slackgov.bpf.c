// SPDX-License-Identifier: GPL-2.0
/*
 * slackgov.bpf.c - request metrics of target servers, per target per window,
 * from their syscalls; each closed window is pinned (windows map) and, when
 * slackgov.ko is loaded, handed to it through the kfunc slackgov_report().
 *
 * Programs (x86_64 syscall numbers; CO-RE for 6.1 and later):
 *   sg_enter   tp_btf/sys_enter     classify the thread, start a wait
 *   sg_exit    tp_btf/sys_exit      count sends/recvs/waits, close windows
 *   sg_fe_<call>, sg_fx_<call>  fentry/fexit on __x64_sys_<call> of the
 *              watched syscalls: the same, where the kernel allows them
 *              (slackctl load loads these or the two above: DOC "hooks")
 *   sg_switch  tp_btf/sched_switch  on-CPU time, CPUs, close overdue windows
 *   sg_pexit   tp_btf/sched_process_exit  a target's last process exits
 *   sg_tcp_probe tp_btf/tcp_probe   a TCP segment arrives: request arrival
 *   sg_tcp_read  tp_btf/tcp_rcv_space_adjust  a TCP read: the request's read
 *   sg_sk_state  tp_btf/inet_sock_set_state  a TCP socket closes: its
 *              connection's requests (conn.bpf.h) go
 *   sg_idle_cb bpf_timer callback (one timer per target): idle windows
 *   sg_req_*, sg_ssl_*  uprobes that slackctl target add attaches
 *              (--request: func.bpf.h; --tls: tls.bpf.h)
 * This file keeps the programs on the kernel's events; the rest is in
 * headers compiled into the same object: state.bpf.h (what the metrics are,
 * the maps and structs that hold them), classify.bpf.h (which target a
 * thread belongs to), intervals.bpf.h (interval moments, cv), window.bpf.h
 * (slack accounting, the window's close, the feed), idle.bpf.h (the idle
 * timer), latency.bpf.h (per-request latency), conn.bpf.h (the requests of
 * a connection, whichever thread reads or answers them) over proto.bpf.h
 * (where requests start in the bytes read: RESP, memcached, HTTP/1.x,
 * HTTP/2), func.bpf.h (requests bracketed by a user function) and
 * tls.bpf.h (requests read at libssl).  Each has its DOC block, pulled
 * into Documentation/metrics.rst.
 * Built twice: slackgov.bpf.o (metrics only: loads on any kernel with BTF)
 * and slackgov_feed.bpf.o (SG_FEED: also calls the kfunc, so it loads only
 * when slackgov.ko is loaded).  slackctl load picks one.
 */

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "slackgov.h"

char LICENSE[] SEC("license") = "GPL";

#include "state.bpf.h"
#include "intervals.bpf.h"
#include "latency.bpf.h"
#include "conn.bpf.h"
#include "window.bpf.h"
#include "idle.bpf.h"
#include "classify.bpf.h"
#include "func.bpf.h"
#include "tls.bpf.h"

/*
 * A syscall @id of the current thread starts; @regs: its user registers.
 * Returns the thread's state when it is a target's, else NULL.  Shared by
 * sg_enter (every syscall) and the fentry/fexit wrappers (watched only).
 */
static __always_inline struct sg_thread *on_enter(struct pt_regs *regs, long id)
{
	struct sg_thread *th = thread_state(true);
	int fam;

	if (!th || th->slot == SG_NO_SLOT)
		return NULL;
	fam = family(id);
	if (id == NR_read || id == NR_readv || id == NR_write || id == NR_writev) {
		if (fd_is_socket((unsigned int)PT_REGS_PARM1_CORE_SYSCALL(regs)))
			fam = (id == NR_read || id == NR_readv) ? SG_RECV : SG_SEND;
	}
	th->kind = fam;
	th->slept = 0;
	if (fam == SG_SEND || fam == SG_RECV)
		lat_enter(th, (int)PT_REGS_PARM1_CORE_SYSCALL(regs));
	if (fam == SG_RECV && th->conn)
		conn_enter(th, regs, id);
	th->enter_ns = bpf_ktime_get_ns();
	if (fam == SG_WAIT) {
		__u32 slot = th->slot;

		lat_wait(th);
		end_busy(th, bpf_map_lookup_elem(&acc, &slot), th->enter_ns);
	}
	return th;
}

/* The syscall of @th (a target's thread, or NULL) returned @ret. */
/*
 * What the syscall of @th (a target's thread, @slot) that returned @ret at
 * @now counts: a send, a recv, a wait.  A global function: the verifier
 * checks its paths (thread, connection, function and TLS rules) once,
 * not again with each path of the classification before it and of the
 * window's close after it in every program that calls it.
 */
__noinline int sg_account(struct sg_thread *th, __u32 slot, long ret, __u64 now)
{
	struct sg_acc *a = bpf_map_lookup_elem(&acc, &slot);

	if (!th || !a)
		return 0;
	set_cpu(a->cpus);
	if (th->kind == SG_NONE || ret < 0)
		return 0;
	switch (th->kind) {
	case SG_SEND:
		if (!ret)
			break;	/* nothing sent */
		__sync_fetch_and_add(&a->nr_send, 1);
		if (th->conn) {
			conn_answer(th, now);
		} else if (!th->func && !th->tls) {
			count_cpu(a, slot, 0, 1);
			lat_answer(th, a, now);
		}
		add_interval(&a->last_send_ns, now, &a->send_sum_us, &a->send_sq_us2);
		break;
	case SG_RECV:
		if (!ret)
			break;	/* end of file: the peer closed, no request */
		__sync_fetch_and_add(&a->nr_recv, 1);
		if (th->conn) {
			conn_recv(th, a->proto, ret);
			th->rd_ns = 0;
		} else if (th->tls) {
			/* inside SSL_read: its request's arrival */
			if (th->tls_t0 && !th->tls_arr && th->rd_ns)
				th->tls_arr = th->rd_arr_ns;
		} else if (!th->func) {
			lat_recv_done(th);
		}
		add_interval(&a->last_recv_ns, now, &a->recv_sum_us, &a->recv_sq_us2);
		/* a recv that slept for its data is the wait of a
		 * blocking-I/O worker (thread per connection) */
		if (th->slept && th->enter_ns) {
			end_busy(th, a, th->enter_ns);
			count_wait(th, a, now);
			th->wait_exit_ns = now;
		}
		break;
	case SG_WAIT:
		th->wait_exit_ns = now;
		/* a wait that returned no event is a timer wake: not slack */
		if (ret == 0 || !th->enter_ns)
			break;
		count_wait(th, a, now);
		break;
	}
	return 0;
}

/* The syscall of @th (a target's thread, or NULL) returned @ret. */
static __always_inline int on_exit(struct sg_thread *th, long ret, const bool feed)
{
	__u64 now;
	__u32 slot;

	if (!th || th->slot == SG_NO_SLOT)
		return 0;
	slot = th->slot;
	now = bpf_ktime_get_ns();
	sg_account(th, slot, ret, now);
	th->kind = SG_NONE;
	th->enter_ns = 0;
	maybe_close(slot, now, 0, feed, SG_SCRATCH_PROG);
	return 0;
}

/**
 * DOC: hooks
 *
 * The syscalls reach the metrics' logic (on_enter() and on_exit()) through
 * one of two sets of thin programs, chosen by ``slackctl load`` (``--hooks
 * auto | fentry | tracepoint``; auto tries fentry, then the tracepoints):
 *
 * - **fentry**: ``fentry``/``fexit`` programs on the ``__x64_sys_*``
 *   function of each watched syscall (the 17 of the send, recv and wait
 *   families, DOC "request metrics" point 2):
 *   every other syscall of every process runs no program at all.  A
 *   syscall of the recv and wait families has both (its entry starts a
 *   wait or notes the recv, which ``sched_switch`` and the TCP read event
 *   look at while it runs); one of the send family (``sendto``,
 *   ``sendmsg``, ``sendmmsg``, ``write``, ``writev``) only its ``fexit``,
 *   which runs the entry's logic and then the exit's: nothing reads a
 *   send's state between the two, so the result is the same for one
 *   program less.  These functions exist under the same names, with the
 *   same ``struct pt_regs *`` argument (the user registers the tracepoint
 *   path reads too), in the BTF of Debian's 6.1 and 6.12; the return value
 *   is fexit's last argument.  Kernels that refuse fentry (the 6.18 host
 *   of the project's tests answers EPERM) get the tracepoints.
 * - **tracepoint**: ``tp_btf/sys_enter`` and ``tp_btf/sys_exit``: two
 *   programs on every syscall of every process (one task-storage lookup
 *   each for a thread that is no target's).
 *
 * Differences: with fentry, a window's close is checked at the exit of a
 * *watched* syscall (and at context switches and by the idle timer, as
 * with both), a thread is classified at its first watched syscall after a
 * target change, and only threads that make watched syscalls get task
 * storage.  Blind with both: compat (32-bit) syscalls, which enter through
 * ``__ia32_sys_*`` (fentry sees none; the tracepoints see their numbers,
 * which name other calls), and io_uring, whose requests are no syscalls
 * of the families.  ``slackctl status`` says which set runs.
 */

SEC("tp_btf/sys_enter")
int BPF_PROG(sg_enter, struct pt_regs *regs, long id)
{
	on_enter(regs, id);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sg_exit, struct pt_regs *regs, long ret)
{
	return on_exit(thread_state(false), ret, FEED);
}

/*
 * The fentry set starts with autoload off ("?"): a loader that takes the
 * whole object (bpftool, a skeleton's defaults) gets the tracepoint set
 * only, never both (each call would count twice); slackctl load chooses.
 */

/* fentry and fexit of a recv- or wait-family syscall's __x64_sys_ function */
#define SG_FENTRY_FEXIT(call)							\
SEC("?fentry/__x64_sys_" #call)							\
int BPF_PROG(sg_fe_##call, struct pt_regs *regs)				\
{										\
	on_enter(regs, NR_##call);						\
	return 0;								\
}										\
SEC("?fexit/__x64_sys_" #call)							\
int BPF_PROG(sg_fx_##call, struct pt_regs *regs, long ret)			\
{										\
	return on_exit(thread_state(false), ret, FEED);				\
}

/* fexit only, for the send family: the entry's logic, then the exit's */
#define SG_FEXIT(call)								\
SEC("?fexit/__x64_sys_" #call)							\
int BPF_PROG(sg_fx_##call, struct pt_regs *regs, long ret)			\
{										\
	return on_exit(on_enter(regs, NR_##call), ret, FEED);			\
}

SG_FENTRY_FEXIT(read)
SG_FENTRY_FEXIT(readv)
SG_FENTRY_FEXIT(recvfrom)
SG_FENTRY_FEXIT(recvmsg)
SG_FENTRY_FEXIT(recvmmsg)
SG_FENTRY_FEXIT(poll)
SG_FENTRY_FEXIT(select)
SG_FENTRY_FEXIT(epoll_wait)
SG_FENTRY_FEXIT(pselect6)
SG_FENTRY_FEXIT(ppoll)
SG_FENTRY_FEXIT(epoll_pwait)
SG_FENTRY_FEXIT(epoll_pwait2)
SG_FEXIT(write)
SG_FEXIT(writev)
SG_FEXIT(sendto)
SG_FEXIT(sendmsg)
SG_FEXIT(sendmmsg)

/*
 * On-CPU time of target threads, and overdue windows of busy targets.  The
 * time comes from the scheduler's own sum_exec_runtime of the thread that
 * leaves (current at this point), so only @prev is looked up: one
 * task-storage lookup per context switch for every process on the machine,
 * not one per side.
 */
static __always_inline int on_switch(struct task_struct *prev, struct task_struct *next,
				     const bool feed)
{
	struct slackgov_bpf_config *c = cfg();
	__u64 now, rt, d, rq, dq, gen = (c ? c->generation : 0) + 1;
	struct sg_thread *th;
	struct sg_acc *a;
	__u32 slot;

	if (sg_func_seen)	/* func.bpf.h: the incoming thread's off-CPU gap ends */
		fn_switch_in(next, bpf_ktime_get_ns());
	/* a verdict of an older generation (a deleted target) counts no more */
	th = bpf_task_storage_get(&threads, prev, 0, 0);
	if (!th || th->slot == SG_NO_SLOT || th->generation != gen)
		return 0;
	if (th->kind == SG_RECV && prev->__state != 0 /* TASK_RUNNING: preempted, not asleep */)
		th->slept = 1;
	now = bpf_ktime_get_ns();
	rt = prev->se.sum_exec_runtime;
	d = rt > th->rt_ns ? rt - th->rt_ns : 0;
	th->rt_ns = rt;
	rq = run_delay(prev);
	dq = rq > th->rq_ns ? rq - th->rq_ns : 0;
	th->rq_ns = rq;
	slot = th->slot;
	a = bpf_map_lookup_elem(&acc, &slot);
	if (a) {
		/* the whole run, in the open window (DOC item 7) */
		count_cpu(a, slot, d, 0);
		/* since it last left: off the CPU, waiting to run or asleep (item 8) */
		if (dq)
			__sync_fetch_and_add(&a->runq_ns, dq);
		if (th->out_svc && th->out_ns && now - th->out_ns > d + dq)
			__sync_fetch_and_add(&a->block_ns, now - th->out_ns - d - dq);
	}
	th->out_ns = now;
	/* asleep, in a busy segment, not in a wait nor a recv (waiting for
	 * work); a function-bracketed target counts its requests' own */
	th->out_svc = prev->__state != 0 && th->wait_exit_ns && th->kind != SG_WAIT &&
		      th->kind != SG_RECV && !th->func;
	/* the thread leaves the CPU: a good moment to close an overdue window */
	maybe_close(slot, now, 0, feed, SG_SCRATCH_PROG);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sg_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(prev, next, FEED);
}

/* A process (or a thread of a threaded cgroup) was moved to another cgroup:
 * a unit's or a container's start moves its first process in after that
 * process's first syscalls, whose verdict was "no target".  The moved task's
 * verdict is dropped, so its next syscall classifies it by its new cgroup
 * (classify.bpf.h, DOC "cgroup targets"); a moved process's other threads
 * keep theirs until the next target change. */
SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(sg_cgmove, struct cgroup *dst, const char *path, struct task_struct *task,
	     bool threadgroup)
{
	struct sg_thread *th = bpf_task_storage_get(&threads, task, 0, 0);

	if (th)
		th->generation = 0;	/* no generation is 0: classify() again */
	return 0;
}

/* The last thread of a target process exits: when it was the target's last
 * process, close its final window (SLACKGOV_SAMPLE_EXITED); the idle timer
 * then stops, the windows stop, and the governor drops the target. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(sg_pexit, struct task_struct *p)
{
	__u32 tgid = p->tgid, slot;
	struct sg_proc *e;
	struct sg_acc *a;
	__u64 inc;

	if (p->signal->live.counter)
		return 0;		/* other threads of the process live on */
	e = bpf_map_lookup_elem(&procs, &tgid);
	if (!e || e->start != p->group_leader->start_time)
		return 0;
	slot = e->slot;
	inc = e->incarn;
	if (bpf_map_delete_elem(&procs, &tgid))
		return 0;
	a = bpf_map_lookup_elem(&acc, &slot);
	if (!a || a->incarn != inc)
		return 0;
	if (__sync_fetch_and_sub(&a->nr_procs, 1) == 1 && !a->uncounted) {
		/* owed until closed: if another closer holds the window now, the
		 * idle timer closes it at its next run */
		a->exit_pending = 1;
		maybe_close(slot, bpf_ktime_get_ns(), SLACKGOV_SAMPLE_EXITED, FEED, SG_SCRATCH_PROG);
	}
	return 0;
}

/* Request latency (latency.bpf.h): a segment arrives at an established TCP
 * socket of the machine; only sockets a target read have storage. */
SEC("tp_btf/tcp_probe")
int BPF_PROG(sg_tcp_probe, struct sock *sk, struct sk_buff *skb)
{
	lat_arrival(sk, skb);
	return 0;
}

/* ... and a TCP read copied data to the current thread. */
SEC("tp_btf/tcp_rcv_space_adjust")
int BPF_PROG(sg_tcp_read, struct sock *sk)
{
	lat_read(sk);
	return 0;
}

/* A TCP socket changes state: a closed one ends its connection entry. */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(sg_sk_state, struct sock *sk, int oldstate, int newstate)
{
	conn_closed(sk, newstate);
	return 0;
}
