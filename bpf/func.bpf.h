/* SPDX-License-Identifier: GPL-2.0 */
/*
 * func.bpf.h - requests bracketed by a user function of the target
 * (slackctl target add --request BINARY:ENTRY[:EXIT]): a uprobe at its
 * entry, a uretprobe at its return (or a uprobe at EXIT), each request's
 * wall time split into on-CPU, run-queue wait and sleep from the scheduler's
 * own per-task accounting.  Included by slackgov.bpf.c: one object.
 */
#ifndef __SG_FUNC_BPF_H
#define __SG_FUNC_BPF_H

/**
 * DOC: requests by function
 *
 * A server whose requests no read and send bracket (a Go server's
 * goroutines, a worker pool fed through a queue, a server whose answers go
 * out through a buffer flushed later) usually has a function that handles
 * one request: ``target add ... --request BINARY:ENTRY[:EXIT]`` attaches
 * ``sg_req_enter`` as a uprobe at ENTRY's first instruction and
 * ``sg_req_exit`` as a uretprobe at its return, or as a uprobe at EXIT's
 * entry when EXIT is given (a function that ends the request on the same
 * thread, e.g. the one that writes the answer).  ``--request
 * usdt:BINARY:PROVIDER:START:END`` attaches both as uprobes at two USDT
 * probes instead (``sys/sdt.h``'s, their semaphores counted), START
 * playing ENTRY and END EXIT.  The xprobes talk's hybrid probe: user
 * function plus the kernel's context switches.
 *
 * 1. A request starts when a target thread enters ENTRY outside another
 *    request (recursion and nested calls count once) and ends when the
 *    outermost call returns (or at EXIT).  It counts in ``nr_req``; its
 *    latency, from entry to end, goes into the histogram with no queueing
 *    part (the socket wait before the function is not seen).
 * 2. Its wall time splits from the context switches of the thread:
 *    *off-CPU* time is the sum of the gaps between leaving the CPU and
 *    running again (``sched_switch``: once such a target exists, it looks
 *    up the incoming thread's state too, one more task-storage lookup per
 *    context switch until the unload); of it, *run-queue* wait is the step
 *    of the scheduler's ``sched_info.run_delay``, the
 *    rest *blocked* (``block_ns``: I/O, locks, timers, a backend: time
 *    that a higher frequency does not shorten); on-CPU is the rest of the
 *    wall time.  The thread-level sleep rule of DOC "request metrics"
 *    point 8 is off for such a target, so its blocked time is the
 *    requests' own, not idle waits.
 * 3. Sends and reads still count as calls (``nr_send``, ``nr_recv``,
 *    slack) but not as requests.  The probes are kprobe-type programs,
 *    which may neither arm the idle timer nor call the feed's kfunc: a
 *    thread is classified at its syscalls (a request that a thread runs
 *    before its first syscall after a target change is not seen), and the
 *    window closes at the next syscall, context switch or idle timer.
 *    Not for Go functions: Go moves goroutine stacks, which a uretprobe's
 *    rewritten return address breaks (use ENTRY:EXIT there).  A request that never returns (the
 *    thread exits, a longjmp) is dropped at the thread's next ENTRY.
 */

/* The thread's off-CPU time so far, ns: its gaps between leaving the CPU
 * and running again, as sched_switch saw them. */
static __always_inline __u64 fn_off_ns(struct sg_thread *th, __u64 now)
{
	return th->off_cum_ns + (th->out_ns && now > th->out_ns ? now - th->out_ns : 0);
}

/* @next runs again at @now (sched_switch): close its gap. */
static __always_inline void fn_switch_in(struct task_struct *next, __u64 now)
{
	struct sg_thread *th = bpf_task_storage_get(&threads, next, 0, 0);

	if (!th || !th->func || !th->out_ns)
		return;
	th->off_cum_ns = fn_off_ns(th, now);
	th->out_ns = 0;
}

/* The current thread's state, if it is classified at the current
 * generation: a uprobe (a kprobe-type program) cannot classify, which arms
 * the idle timer, so the thread's syscalls must have classified it. */
static __always_inline struct sg_thread *fn_thread(struct task_struct *task)
{
	struct slackgov_bpf_config *c = cfg();
	struct sg_thread *th = bpf_task_storage_get(&threads, task, 0, 0);

	if (!th || th->generation != (c ? c->generation : 0) + 1)
		return NULL;
	return th;
}

SEC("uprobe")
int sg_req_enter(struct pt_regs *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sg_thread *th = fn_thread(task);

	if (!th || th->slot == SG_NO_SLOT || !th->func)
		return 0;
	if (th->fn_depth++ && th->fn_start_ns)
		return 0;		/* a nested call: the outer one times it */
	th->fn_depth = 1;
	th->fn_start_ns = bpf_ktime_get_ns();
	th->fn_off_ns = fn_off_ns(th, th->fn_start_ns);
	th->fn_rq_ns = run_delay(task);
	return 0;
}

/* A uretprobe at ENTRY's return, or a uprobe at EXIT: the same program. */
SEC("uretprobe")
int sg_req_exit(struct pt_regs *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sg_thread *th = fn_thread(task);
	__u64 now, wall, off, rq, blk;
	struct sg_acc *a;
	__u32 slot;

	if (!th || th->slot == SG_NO_SLOT || !th->func || !th->fn_start_ns)
		return 0;
	if (th->fn_depth > 1) {
		th->fn_depth--;
		return 0;
	}
	th->fn_depth = 0;
	slot = th->slot;
	a = bpf_map_lookup_elem(&acc, &slot);
	now = bpf_ktime_get_ns();
	if (a && now > th->fn_start_ns) {
		wall = now - th->fn_start_ns;
		off = fn_off_ns(th, now) - th->fn_off_ns;
		rq = run_delay(task) - th->fn_rq_ns;
		if (off > wall)
			off = wall;
		blk = off > rq ? off - rq : 0;
		__sync_fetch_and_add(&a->block_ns, blk);
		count_cpu(a, slot, 0, 1);
		sg_lat_add(slot, th->fn_start_ns, th->fn_start_ns, now, 1);
	}
	th->fn_start_ns = 0;
	/* no maybe_close(): the feed's kfunc is for tracing programs only; the
	 * thread's next syscall or context switch, or the idle timer, closes */
	return 0;
}

#endif /* __SG_FUNC_BPF_H */
