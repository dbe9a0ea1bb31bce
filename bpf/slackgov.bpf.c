// SPDX-License-Identifier: GPL-2.0
/*
 * slackgov.bpf.c - request metrics of target servers, per target per window,
 * from their syscalls; each closed window is pinned (windows map) and, when
 * slackgov.ko is loaded, handed to it through the kfunc slackgov_report().
 *
 * Programs (x86_64 syscall numbers; CO-RE for 6.1 and later):
 *   sg_enter   tp_btf/sys_enter     classify the thread, start a wait
 *   sg_exit    tp_btf/sys_exit      count sends/recvs/waits, close windows
 *   sg_switch  tp_btf/sched_switch  on-CPU time, CPUs, close overdue windows
 *   sg_pexit   tp_btf/sched_process_exit  a target's last process exits
 *   sg_idle_cb bpf_timer callback (one timer per target): idle windows
 * Built twice: slackgov.bpf.o (metrics only: loads on any kernel with BTF)
 * and slackgov_feed.bpf.o (SG_FEED: also calls the kfunc, so it loads only
 * when slackgov.ko is loaded).  slackctl load picks one.
 * The metrics and their integer bounds: the DOC block below, pulled into
 * Documentation/metrics.rst.
 */

/**
 * DOC: request metrics
 *
 * Per target (a process by PID, every process of a name, or a cgroup v2
 * directory) and per *window*, from the target's syscalls only.  All
 * integer; ratios in thousandths (1000 == 1.0); ``len`` is the window's
 * length in ns.
 *
 * 1. **Window.**  A window closes ``window`` ns after it opened (default
 *    10 ms; ``sg_config.window_ns``), or after ``window_sends`` sends when
 *    that is non-zero (by count; with ``window`` 0, by count only).  The
 *    check runs at each syscall exit of a target thread, when a target
 *    thread leaves a CPU, and from a per-target ``bpf_timer`` (the *idle
 *    timer*, armed when a thread of the target is first classified, re-armed
 *    for the next due time): an idle target, blocked with no syscall and not
 *    running, still closes its windows on time.  They carry no request:
 *    ``rps`` 0, ``slack`` 1000, ``cv`` 0, flag ``SLACKGOV_SAMPLE_IDLE``.  In
 *    count-only mode the timer closes a window that had no send for 10 ms.
 *    The timer stops when the target is deleted or its last process exits;
 *    that exit closes a last window flagged ``SLACKGOV_SAMPLE_EXITED`` (the
 *    timer closes it if another closer held the window then), and then
 *    windows stop, also those a dying thread's last context switch would
 *    close: the governor's stale rule takes over (safe
 *    frequency), as documented for a lost signal.  A target is known from
 *    its first syscall after it was added: one that never makes one (blocked
 *    since before) publishes nothing until it wakes.
 *
 * 2. **Counted calls.**  Successful calls of the send family (``sendto``,
 *    ``sendmsg``, ``sendmmsg``, ``write``/``writev`` on a socket) and of the
 *    recv family (``recvfrom``, ``recvmsg``, ``recvmmsg``, ``read``/``readv``
 *    on a socket) that moved at least one byte (a read of 0 is the peer's
 *    close); *waits*: calls of the wait family (``poll``, ``select``,
 *    ``epoll_wait``, ``pselect6``, ``ppoll``, ``epoll_pwait``,
 *    ``epoll_pwait2``) that returned events, and counted recvs during which
 *    the thread slept (``sched_switch`` saw it leave the CPU not runnable):
 *    the blocking read with which a thread-per-connection worker waits for
 *    its next request.  A non-blocking recv (an event loop's) never sleeps.
 *
 * 3. **Observed RPS.**  ``rps = nr_send * 10^9 / len``: one send per answer.
 *    Over a run, the windows' rps weighted by their length is
 *    sum(nr_send) / sum(len).
 *
 * 4. **Interval moments.**  For sends and for recvs of the target (any
 *    thread), the interval since the previous one, in us, clamped to 1 s
 *    (SG_IV_MAX_US): the window sums ``n``, ``sum(iv)`` and ``sum(iv^2)``
 *    with atomic adds; ``mean = sum / n``, ``var = sum(iv^2) / n - mean^2``
 *    (in us^2).  Bounds: iv <= 10^6, so iv^2 <= 10^12 and a window of up to
 *    2^24 intervals keeps sum(iv^2) <= 1.7 * 10^19 < 2^64; a window holds
 *    fewer (2^24 in 10 ms would be 1.6 * 10^9 calls/s).  A gap longer than
 *    1 s (a target idle for hours, then one request) counts as 1 s, so no
 *    sum can overflow whatever the idle time; a clock that does not advance
 *    between two calls adds no interval.  A window with one interval has
 *    variance 0.
 *
 * 5. **cv, the saturation signal.**  The coefficient of variation of the
 *    intervals between request *arrivals* as the application takes them:
 *    a recv that returns k requests at once (k counted by answers:
 *    ``requests = max(nr_send, nr_recv)``) is its gap followed by k - 1 zero
 *    intervals::
 *
 *        mean = sum(iv) / requests,  var = sum(iv^2) / requests - mean^2
 *        cv   = 1000 * sqrt(var) / mean
 *
 *    in integer math (mean in ns, ``sum(iv) * 1000`` < 2^64 for
 *    sum(iv) < 2^44 us; a bit-by-bit square root of var < 2^48).  A window
 *    with fewer than 2 recvs carries its sums into the next one (for up to
 *    1 s) and repeats the last value (forgotten after 1 s without requests;
 *    a window without requests publishes 0); ``cv`` is capped at 10^6 (CV
 *    1000, the largest the module accepts).  Open-loop Poisson arrivals give about
 *    1000 below saturation.  Why not the plain CV of inter-recv intervals:
 *    at saturation the requests of an open-loop client pile up in the
 *    socket buffers and each read returns the backlog, so recvs become
 *    *rarer and more regular* (measured on the host: 10 ms windows with 0
 *    or 1 recv, CV of the recvs 0.3 against 0.6-0.9 at 50% load): that
 *    signal falls at saturation.  Counting the requests of a batch read as
 *    simultaneous arrivals makes the backlog visible: cv = sqrt(k - 1)
 *    for batches of k, 9-20 (9000-20000) at saturation on the host against
 *    0.6-0.7 at 50% load.  The per-recv ``recv_mean_ns`` and
 *    ``recv_var_us2`` are published unchanged.
 *
 * 6. **Slack.**  The share of the workers' time spent waiting for work::
 *
 *        slack = 1000 * blocked / (blocked + busy)
 *
 *    where, over the threads of the target, ``blocked`` sums the durations
 *    of waits (point 2: wait calls that returned events, recvs that slept)
 *    and ``busy`` the time from each wait's return to the same thread's next
 *    wait, both clipped to the window; only
 *    completed segments count, so N workers each 40% busy give slack 600
 *    whatever N: the share is normalized per busy worker (threads that
 *    completed a wait in the window, ``nr_threads``).  A window with
 *    requests but no completed segment is saturated (0); one with nothing
 *    is idle (1000).  Waits that returned no event (timer wakes) count in
 *    neither.
 *
 * 7. **Utilization.**  On-CPU time of the target's threads (the
 *    scheduler's ``se.sum_exec_runtime``, read at ``sched_switch``),
 *    ``util = 1000 * oncpu_ns / len`` (2000 = two CPUs busy), and the CPUs they ran on (``cpus``; a window in which the target
 *    did not run names those of its last running window, so the module
 *    knows which policies an idle window concerns).  A run is counted when
 *    the thread leaves the CPU, clipped to the open window: one that ran
 *    through several windows without a switch counts only its part in the
 *    last (util then underestimates; it never exceeds 1000 per CPU).
 *
 * 8. **Blind spots.**  io_uring submissions and completions are not
 *    syscalls of the send/recv families, nor is ``io_uring_enter`` a wait:
 *    an io_uring server is invisible (idle windows only).  Pipelined
 *    requests in one read count as one recv (cv accounts for them through
 *    the sends; ``nr_recv`` and the recv moments do not).  Multi-stage
 *    servers (a front thread receives, a pool answers; or one request
 *    causes several sends, or a backend connection's traffic) inflate
 *    ``rps`` by the sends per request, and slack mixes the stages' threads.
 *    Timer-only waits (a wait that returns 0) are ignored, so a server that
 *    polls with short timeouts and handles events on another path looks
 *    busy.  Sends of answers by another process (a proxy) are not the
 *    target's.  A target that was blocked since before it was added is seen
 *    at its first syscall only.
 */

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "slackgov.h"

char LICENSE[] SEC("license") = "GPL";

#ifdef SG_FEED
#define FEED	true
#else
#define FEED	false	/* the kfunc call is dead code: no extern to resolve */
#endif

/* x86_64 syscall numbers */
#define NR_read		0
#define NR_write	1
#define NR_poll		7
#define NR_readv	19
#define NR_writev	20
#define NR_select	23
#define NR_sendto	44
#define NR_recvfrom	45
#define NR_sendmsg	46
#define NR_recvmsg	47
#define NR_epoll_wait	232
#define NR_pselect6	270
#define NR_ppoll	271
#define NR_epoll_pwait	281
#define NR_recvmmsg	299
#define NR_sendmmsg	307
#define NR_epoll_pwait2	441

enum { SG_NONE, SG_SEND, SG_RECV, SG_WAIT };

#define SG_NO_SLOT		0xffffffffU
/* Defaults when the config entry is zero: 10 ms windows by time. */
#define SG_DEF_WINDOW_NS	(10 * 1000 * 1000ULL)
/* Intervals are clamped to 1 s (in us) so that a sum of squares over a
 * window of up to 2^24 intervals stays below 2^64: 1e12 * 1.6e7 < 1.8e19. */
#define SG_IV_MAX_US		1000000ULL
#define SG_NS_PER_TICK		10000000ULL	/* USER_HZ 100: /proc starttime unit */
/* Idle detection in count-only mode (window_ns 0): a window with no send
 * closes after this long, so that an idle target still publishes windows;
 * 10 ms is the default time window, a fifth of the governor's stale_ms. */
#define SG_IDLE_NS		SG_DEF_WINDOW_NS
/* Internal maybe_close() flag (not published): the idle timer is closing. */
#define SG_F_TIMER		(1U << 31)
/* scratch entries: the syscall/switch programs build their sample in 0, the
 * idle timer (softirq, may interrupt them on the same CPU) in 1 */
#define SG_SCRATCH_PROG		0
#define SG_SCRATCH_TIMER	1
/* batch_cv(): recvs needed for a value (one interval is no variation), and
 * the longest span carried to get them: 1 s, the interval clamp */
#define SG_CV_MIN_RECVS		2
#define SG_CV_SPAN_NS		1000000000ULL
/* ... and its bounds: requests counted (2^24, as for the intervals), sums
 * beyond which the integer math would overflow (never reached: a span of
 * 1 s holds at most 2^24 intervals of at most 1 s), and the largest value,
 * the largest the module accepts (SG_CV_MAX in kmod/kfunc.c: CV 1000) */
#define SG_CV_MAX_REQS		(1ULL << 24)
#define SG_CV_MAX_SUM		(1ULL << 44)
#define SG_CV_MAX_SQ		(1ULL << 63)
#define SG_CV_CLAMP		1000000ULL
/* The idle timer's retry when the owed EXITED window could not be closed
 * (another closer held the window): 1 ms, a close takes microseconds. */
#define SG_EXIT_RETRY_NS	1000000ULL
/* Processes of targets tracked for exit detection (all targets together). */
#define SG_MAX_PROCS		8192
#define SG_CLOCK_MONOTONIC	1	/* uapi/linux/time.h; not in vmlinux.h */
#define S_IFMT			00170000
#define S_IFSOCK		0140000

struct sg_acc {			/* a target's open window; fields added atomically */
	__u64 start_ns;
	__u64 closing;		/* 1 while one thread closes the window */
	__u64 setpoint;		/* the target's own setpoint, 0 = governor default */
	__u64 seq;
	__u64 last_send_ns, last_recv_ns;
	__u64 nr_send, nr_recv, nr_wait, nr_workers;
	__u64 send_sum_us, send_sq_us2, recv_sum_us, recv_sq_us2;
	__u64 wait_sum_ns;	/* duration of waits that returned events */
	__u64 blocked_ns;	/* the same, clamped to the window */
	__u64 busy_ns;		/* workers' time from a wait's return to the next wait */
	__u64 oncpu_ns;
	__u64 cpus[SLACKGOV_CPU_WORDS];
	__u64 last_cpus[SLACKGOV_CPU_WORDS];
	/* who owns the slot, for the idle timer (see "Idle windows") */
	__u64 kind;		/* enum slackgov_target_kind of the matched map */
	__u64 key[2];		/* its key: tgid, comm or cgroup id */
	__u64 incarn;		/* bumped when the slot changes owner */
	__u64 nr_procs;		/* live processes classified into the slot */
	__u64 uncounted;	/* a process could not be tracked: never "exited" */
	__u64 armed;		/* the idle timer runs */
	__u64 exit_pending;	/* the last process exited, its EXITED window is owed */
	/* batch_cv(): inter-arrival moments carried over windows with few recvs */
	__u64 cv_reqs, cv_recvs, cv_sum_us, cv_sq_us2, cv_start_ns, last_cv, cv_idle_ns;
};

struct sg_proc {		/* procs map: a target process, for exit detection */
	__u32 slot;
	__u32 pad;
	__u64 incarn;		/* acc.incarn of the slot when it was counted */
	__u64 start;		/* group leader's start_time: the PID's owner */
};

struct sg_idle {		/* idle_timers map value */
	struct bpf_timer timer;
};

struct sg_thread {		/* per thread: cached verdict and wait state */
	__u32 slot;		/* SG_NO_SLOT: not a target */
	__u32 kind;		/* SG_* of the syscall in progress */
	__u64 generation;	/* config.generation + 1 the verdict was made at
				 * (0: not classified yet) */
	__u64 enter_ns;
	__u64 worker_seq;	/* window seq this thread was counted a worker in */
	__u64 rt_ns;		/* its se.sum_exec_runtime when last accounted */
	__u64 wait_exit_ns;	/* when its last wait returned (0: none yet) */
	__u64 slept;		/* sched_switch: it slept in the recv in progress */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SLACKGOV_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct slackgov_target);
} target_pid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SLACKGOV_MAX_TARGETS);
	__type(key, char[SLACKGOV_COMM_LEN]);
	__type(value, struct slackgov_target);
} target_comm SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SLACKGOV_MAX_TARGETS);
	__type(key, __u64);
	__type(value, struct slackgov_target);
} target_cgroup SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLACKGOV_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct slackgov_target_state);
} windows SEC(".maps");

/* snapshots of the windows map's totals, for slackctl's interval figures */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLACKGOV_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct slackgov_snaps);
} snaps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slackgov_bpf_config);
} sg_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLACKGOV_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct sg_acc);
} acc SEC(".maps");

/* Per thread, in task local storage: every thread that made a syscall has
 * one (targets or not: the cached negative verdict is what keeps the
 * untraced path to one lookup).  Task storage rather than a hash keyed by
 * tid: its lookup is a few loads (no hashing: the untraced cost per syscall
 * fell from ~245 to ~177 ns, see bench-overhead.sh), it dies with the task (a
 * recycled tid is a new task), and it cannot be evicted. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sg_thread);
} threads SEC(".maps");

/* one timer per slot: publishes the windows of a target that is idle */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLACKGOV_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct sg_idle);
} idle_timers SEC(".maps");

/* target processes (key: tgid), so that the last one's exit ends the slot */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SG_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct sg_proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct slackgov_sample);
} scratch SEC(".maps");

static __always_inline struct slackgov_bpf_config *cfg(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sg_config, &zero);
}

struct sg_match {		/* what classify() found */
	__u32 slot;		/* SG_NO_SLOT: not a target */
	__u32 setpoint;
	__u64 kind;		/* SLACKGOV_TARGET_* */
	__u64 key[2];		/* the key it matched in that map */
};

/* Which target slot, if any, does @task (the current task) belong to? */
static __always_inline void classify(struct task_struct *task, struct sg_match *m)
{
	struct task_struct *leader = task->group_leader;
	struct slackgov_target *t;
	char comm[SLACKGOV_COMM_LEN] = {};
	__u32 tgid = task->tgid;
	__u64 cgid;

	m->slot = SG_NO_SLOT;
	t = bpf_map_lookup_elem(&target_pid, &tgid);
	if (t) {
		if (t->start_ns &&
		    leader->start_boottime / SG_NS_PER_TICK != t->start_ns / SG_NS_PER_TICK)
			return;		/* a reused PID */
		m->kind = SLACKGOV_TARGET_PID;
		m->key[0] = tgid;
		goto found;
	}
	bpf_probe_read_kernel_str(comm, sizeof(comm), leader->comm);
	t = bpf_map_lookup_elem(&target_comm, comm);
	if (t) {
		m->kind = SLACKGOV_TARGET_COMM;
		__builtin_memcpy(m->key, comm, sizeof(comm));
		goto found;
	}
	cgid = bpf_get_current_cgroup_id();
	t = bpf_map_lookup_elem(&target_cgroup, &cgid);
	if (!t)
		return;
	m->kind = SLACKGOV_TARGET_CGROUP;
	m->key[0] = cgid;
found:
	m->setpoint = t->setpoint;
	m->slot = t->slot < SLACKGOV_MAX_TARGETS ? t->slot : SG_NO_SLOT;
}

/*
 * A slot that changed owner (another key, or the same key re-added: slackctl
 * cleared its windows) starts afresh: counters, sequence, process count.
 * Runs on classification only (once per thread and target change).
 */
static __always_inline void own_slot(__u32 slot, struct sg_acc *a, const struct sg_match *m)
{
	struct slackgov_target_state *st;
	__u32 i;

	if (a->kind == m->kind && a->key[0] == m->key[0] && a->key[1] == m->key[1]) {
		st = bpf_map_lookup_elem(&windows, &slot);
		if (!st || st->head || !a->seq)
			return;
	}
	if (__sync_val_compare_and_swap(&a->closing, 0, 1) != 0)
		return;		/* a close or another reset runs: next classification */
	a->start_ns = 0;
	a->seq = 0;
	a->last_send_ns = a->last_recv_ns = 0;
	a->nr_send = a->nr_recv = a->nr_wait = a->nr_workers = 0;
	a->send_sum_us = a->send_sq_us2 = a->recv_sum_us = a->recv_sq_us2 = 0;
	a->wait_sum_ns = a->blocked_ns = a->busy_ns = a->oncpu_ns = 0;
	for (i = 0; i < SLACKGOV_CPU_WORDS; i++)
		a->cpus[i] = a->last_cpus[i] = 0;
	a->nr_procs = 0;
	a->uncounted = 0;
	a->exit_pending = 0;
	a->cv_reqs = a->cv_recvs = a->cv_sum_us = a->cv_sq_us2 = a->cv_start_ns = a->last_cv = 0;
	a->cv_idle_ns = 0;
	a->incarn++;
	a->kind = m->kind;
	a->key[0] = m->key[0];
	a->key[1] = m->key[1];
	a->closing = 0;
}

/* Count @task's process in @slot once (procs map), so that its exit is seen. */
static __always_inline void note_proc(__u32 slot, struct sg_acc *a, struct task_struct *task)
{
	struct sg_proc *p, np = { .slot = slot, .incarn = a->incarn };
	__u32 tgid = task->tgid, oslot;
	__u64 oinc, ostart;
	struct sg_acc *o;
	long err;

	np.start = task->group_leader->start_time;
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (p) {
		if (p->slot == slot && p->incarn == np.incarn && p->start == np.start)
			return;
		oslot = p->slot;
		oinc = p->incarn;
		ostart = p->start;
		if (bpf_map_delete_elem(&procs, &tgid))
			return;		/* another thread of it moves it */
		o = bpf_map_lookup_elem(&acc, &oslot);
		if (ostart == np.start && o && o->incarn == oinc)
			__sync_fetch_and_sub(&o->nr_procs, 1);
	}
	err = bpf_map_update_elem(&procs, &tgid, &np, BPF_NOEXIST);
	if (!err)
		__sync_fetch_and_add(&a->nr_procs, 1);
	else if (err != -17 /* EEXIST: another thread counted it */)
		a->uncounted = 1;	/* procs full: this slot never ends by exit */
}

static int sg_idle_cb(void *map, __u32 *key, struct sg_idle *v);

/* Start the slot's idle timer unless it runs (first thread seen, or after a stop). */
static __always_inline void arm_idle(__u32 slot, struct sg_acc *a)
{
	struct sg_idle *v;

	if (a->armed || __sync_val_compare_and_swap(&a->armed, 0, 1) != 0)
		return;
	v = bpf_map_lookup_elem(&idle_timers, &slot);
	if (!v) {
		a->armed = 0;
		return;
	}
	bpf_timer_init(&v->timer, &idle_timers, SG_CLOCK_MONOTONIC);	/* -EBUSY after the first */
	bpf_timer_set_callback(&v->timer, sg_idle_cb);
	if (bpf_timer_start(&v->timer, SG_IDLE_NS, 0))
		a->armed = 0;
}

/* The current thread's state, classified at the current generation. */
static __always_inline struct sg_thread *thread_state(bool create)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct slackgov_bpf_config *c = cfg();
	__u64 gen = (c ? c->generation : 0) + 1;
	struct sg_match m = {};
	struct sg_thread *th;
	struct sg_acc *a;

	th = bpf_task_storage_get(&threads, task, 0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (!th || th->generation == gen)
		return th;
	classify(task, &m);
	__builtin_memset(th, 0, sizeof(*th));	/* a new verdict starts a new state */
	th->slot = m.slot;
	th->generation = gen;
	th->rt_ns = task->se.sum_exec_runtime;	/* on-CPU time counts from now */
	a = bpf_map_lookup_elem(&acc, &m.slot);
	if (a) {
		own_slot(m.slot, a, &m);
		a->setpoint = m.setpoint;
		note_proc(m.slot, a, task);
		arm_idle(m.slot, a);
	}
	return th;
}

static __always_inline int family(long id)
{
	switch (id) {
	case NR_sendto: case NR_sendmsg: case NR_sendmmsg:
		return SG_SEND;
	case NR_recvfrom: case NR_recvmsg: case NR_recvmmsg:
		return SG_RECV;
	case NR_poll: case NR_select: case NR_epoll_wait: case NR_pselect6:
	case NR_ppoll: case NR_epoll_pwait: case NR_epoll_pwait2:
		return SG_WAIT;
	}
	return SG_NONE;
}

/* Is fd of the current task a socket?  (read/write count only on sockets) */
static __always_inline bool fd_is_socket(unsigned int fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	struct file **fdarr;
	struct file *f = NULL;
	unsigned int max;
	umode_t mode;

	fdarr = BPF_CORE_READ(task, files, fdt, fd);
	max = BPF_CORE_READ(task, files, fdt, max_fds);
	if (fd >= max)
		return false;
	bpf_probe_read_kernel(&f, sizeof(f), &fdarr[fd]);
	if (!f)
		return false;
	mode = BPF_CORE_READ(f, f_inode, i_mode);
	return (mode & S_IFMT) == S_IFSOCK;
}

static __always_inline void set_cpu(__u64 *cpus)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (cpu < SLACKGOV_MAX_CPUS)
		__sync_fetch_and_or(&cpus[(cpu / 64) & (SLACKGOV_CPU_WORDS - 1)], 1ULL << (cpu % 64));
}

/* one interval sample: us, clamped; sum and sum of squares */
static __always_inline void add_interval(__u64 *last, __u64 now, __u64 *sum, __u64 *sq)
{
	__u64 prev = __sync_lock_test_and_set(last, now), iv;

	if (!prev || now <= prev)
		return;
	iv = (now - prev) / 1000;
	if (iv > SG_IV_MAX_US)
		iv = SG_IV_MAX_US;
	__sync_fetch_and_add(sum, iv);
	__sync_fetch_and_add(sq, iv * iv);
}

/*
 * floor(sqrt(x)) for x < 2^48 (variances in us^2 are below 2^40, see
 * SG_IV_MAX_US), bit by bit and branch-free.  A global function: the
 * verifier checks it once, with x unknown, not once per caller's path.
 */
__noinline __u64 sg_isqrt(__u64 x)
{
	__u64 r = 0, bit = 1ULL << 46, t, ge;
	int i;

	if (x >> 48)
		x = (1ULL << 48) - 1;
#pragma unroll
	for (i = 0; i < 24; i++) {
		t = r + bit;
		/*
		 * ge = x >= t ? 1 : 0, as 1 - ((x - t) >> 63), applied by
		 * multiplication.  In asm, because clang turns it into a branch,
		 * and not as an all-ones mask: 6.18's verifier forks on "AND with
		 * a value in [-1, 0]"; either way it would walk 2^24 paths.
		 */
		asm volatile("%0 = %1; %0 -= %2; %0 >>= 63; %0 ^= 1"
			     : "=&r"(ge) : "r"(x), "r"(t));
		x -= t * ge;
		r = (r >> 1) + bit * ge;
		bit >>= 2;
	}
	return r;
}

static __always_inline void moments(__u64 n, __u64 sum, __u64 sq, __u64 *mean_ns, __u64 *var_us2)
{
	__u64 m;

	*mean_ns = *var_us2 = 0;
	if (!n)
		return;
	m = sum / n;
	*mean_ns = sum * 1000 / n;
	*var_us2 = sq / n > m * m ? sq / n - m * m : 0;
}

/*
 * The saturation signal (see the DOC block "cv"): the coefficient of
 * variation of the intervals between request arrivals as the application
 * receives them.  A recv that delivers k requests at once (counted by the
 * answers: requests = max(sends, recvs)) is its gap and k - 1 zero
 * intervals.  The moments span at least SG_CV_MIN_RECVS recvs: a window with
 * fewer carries them into the next, for up to SG_CV_SPAN_NS.  Runs under the
 * closing flag (plain updates of the cv_* carry).
 */
static __always_inline __u32 batch_cv(struct sg_acc *a, const struct slackgov_window *w,
				      __u64 nsend, __u64 nrecv, __u64 rsum, __u64 rsq, __u64 now)
{
	__u64 n, m_ns, var, cv;

	if (!nsend && !nrecv) {
		/* no request: publish 0 and drop the carry; forget the last value
		 * only after SG_CV_SPAN_NS of this (a saturated worker that was
		 * preempted for a window is not idle) */
		a->cv_reqs = a->cv_recvs = a->cv_sum_us = a->cv_sq_us2 = a->cv_start_ns = 0;
		if (!a->cv_idle_ns)
			a->cv_idle_ns = w->start_ns;
		else if (now - a->cv_idle_ns >= SG_CV_SPAN_NS)
			a->last_cv = 0;
		return 0;
	}
	a->cv_idle_ns = 0;
	if (!a->cv_start_ns)
		a->cv_start_ns = w->start_ns;
	a->cv_reqs += nsend > nrecv ? nsend : nrecv;
	a->cv_recvs += nrecv;
	a->cv_sum_us += rsum;
	a->cv_sq_us2 += rsq;
	if (a->cv_recvs < SG_CV_MIN_RECVS && now - a->cv_start_ns < SG_CV_SPAN_NS)
		return a->last_cv;	/* too few recvs yet: carry, repeat the last value */
	n = a->cv_reqs;
	if (n > SG_CV_MAX_REQS)
		n = SG_CV_MAX_REQS;
	cv = 0;
	if (a->cv_sum_us && a->cv_sq_us2 <= SG_CV_MAX_SQ && a->cv_sum_us <= SG_CV_MAX_SUM) {
		/* sum <= 2^44 us: * 1000 fits; mean <= 1 s: m_ns^2 <= 10^18 fits */
		m_ns = a->cv_sum_us * 1000 / n;
		var = a->cv_sq_us2 / n;
		var = var > m_ns * m_ns / 1000000 ? var - m_ns * m_ns / 1000000 : 0;
		if (m_ns)
			cv = sg_isqrt(var) * 1000000 / m_ns;	/* sqrt(var) < 2^24 */
	}
	if (cv > SG_CV_CLAMP)
		cv = SG_CV_CLAMP;
	a->cv_reqs = a->cv_recvs = a->cv_sum_us = a->cv_sq_us2 = a->cv_start_ns = 0;
	a->last_cv = cv;
	return cv;
}

static __always_inline __u64 xchg0(__u64 *p)
{
	return __sync_lock_test_and_set(p, 0);
}

/* Is the open window due to close?  0 if not, else SG_DUE | the reason's
 * sample flag.  A window that started at or after @now never is. */
#define SG_DUE			(1U << 30)
static __always_inline __u32 window_due(struct sg_acc *a, __u64 now, __u64 window_ns,
					__u32 window_sends, __u32 flags_in)
{
	__u64 start = a->start_ns, len = now > start ? now - start : 0;

	if (!len)
		return 0;
	if (flags_in & SLACKGOV_SAMPLE_EXITED)
		return SG_DUE;		/* the target's last window */
	if (!a->nr_procs && !a->uncounted)
		return 0;		/* no live process: after the last window */
	if (window_sends && a->nr_send >= window_sends)
		return SG_DUE | SLACKGOV_SAMPLE_BY_COUNT;
	if (window_ns && len >= window_ns)
		return SG_DUE;		/* by time */
	if (!window_ns && (flags_in & SG_F_TIMER) && !a->nr_send && len >= SG_IDLE_NS)
		return SG_DUE;		/* count-only mode, no send for SG_IDLE_NS: idle */
	return 0;
}

/*
 * Snapshot @slot's cumulative counters into the snaps ring (see struct
 * slackgov_snaps in slackgov.h) when SLACKGOV_SNAP_NS passed since the last
 * one.  Called by the closer after the totals moved (one closer at a time,
 * so the ring has one writer).  A global function: its bucket loop is
 * verified once, not at each of maybe_close()'s call sites.
 */
__noinline int sg_snap(__u32 slot)
{
	struct slackgov_target_state *st = bpf_map_lookup_elem(&windows, &slot);
	struct slackgov_snaps *r = bpf_map_lookup_elem(&snaps, &slot);
	struct slackgov_snap *sn;
	__u64 head;
	__u32 i;

	if (!st || !r)
		return 0;
	head = r->head;
	if (head) {
		sn = &r->snap[(head - 1) % SLACKGOV_SNAPS];
		if (sn->windows > st->head || sn->ns > st->total_ns)
			head = 0;	/* the slot was re-initialised: start again */
		else if (st->last.end_ns - sn->end_ns < SLACKGOV_SNAP_NS)
			return 0;
	}
	sn = &r->snap[head % SLACKGOV_SNAPS];
	sn->end_ns = st->last.end_ns;
	sn->windows = st->head;
	sn->send = st->total_send;
	sn->recv = st->total_recv;
	sn->ns = st->total_ns;
	sn->blocked_ns = st->total_blocked_ns;
	sn->busy_ns = st->total_busy_ns;
	sn->oncpu_ns = st->total_oncpu_ns;
	sn->cv_ns = st->total_cv_ns;
	sn->lat = st->total_lat;
	sn->lat_ns = st->total_lat_ns;
	sn->queue_ns = st->total_queue_ns;
	sn->slo_windows = st->total_slo_windows;
	sn->slo_over = st->total_slo_over;
	for (i = 0; i < SLACKGOV_LAT_BUCKETS; i++)
		sn->lat_hist[i] = (__u32)st->lat_hist[i];
	asm volatile("" ::: "memory");	/* the snapshot before the head that names it */
	r->head = head + 1;
	return 0;
}

/*
 * Close the window of @slot if it is due.  One closer at a time (the closing
 * flag); counters are taken with atomic exchanges, so increments that race
 * with the close land in the next window instead of being lost.
 */
static __always_inline void maybe_close(__u32 slot, __u64 now, __u32 flags_in, const bool feed,
					__u32 sidx)
{
	struct slackgov_bpf_config *c = cfg();
	struct slackgov_target_state *st;
	struct slackgov_sample *s;
	struct slackgov_window *w;
	struct sg_acc *a;
	__u64 window_ns, len, nsend, nrecv, workers, blocked, denom, m, rsum, rsq;
	__u32 i, window_sends, due, flags = flags_in & ~SG_F_TIMER;
	bool any = false;

	a = bpf_map_lookup_elem(&acc, &slot);
	if (!a)
		return;
	if (!a->start_ns) {
		__sync_val_compare_and_swap(&a->start_ns, 0, now);
		return;
	}
	window_ns = c && (c->window_ns || c->window_sends) ? c->window_ns : SG_DEF_WINDOW_NS;
	window_sends = c ? c->window_sends : 0;
	if (!window_due(a, now, window_ns, window_sends, flags_in))
		return;
	if (__sync_val_compare_and_swap(&a->closing, 0, 1) != 0)
		return;
	/* again under the flag: another closer may have closed it meanwhile
	 * (then a->start_ns is newer, and may even be later than @now) */
	due = window_due(a, now, window_ns, window_sends, flags_in);
	if (!due) {
		a->closing = 0;
		return;
	}
	flags |= due & SLACKGOV_SAMPLE_BY_COUNT;
	len = now - a->start_ns;
	st = bpf_map_lookup_elem(&windows, &slot);
	s = bpf_map_lookup_elem(&scratch, &sidx);
	if (!st || !s) {
		a->closing = 0;
		return;
	}
	w = &st->last;
	__builtin_memset(w, 0, sizeof(*w));
	w->seq = ++a->seq;
	w->start_ns = a->start_ns;
	w->end_ns = now;
	a->start_ns = now;
	nsend = xchg0(&a->nr_send);
	nrecv = xchg0(&a->nr_recv);
	w->nr_send = nsend;
	w->nr_recv = nrecv;
	w->nr_wait = xchg0(&a->nr_wait);
	workers = xchg0(&a->nr_workers);
	w->nr_threads = workers;
	moments(nsend, xchg0(&a->send_sum_us), xchg0(&a->send_sq_us2), &w->send_mean_ns, &w->send_var_us2);
	rsum = xchg0(&a->recv_sum_us);
	rsq = xchg0(&a->recv_sq_us2);
	moments(nrecv, rsum, rsq, &w->recv_mean_ns, &w->recv_var_us2);
	m = xchg0(&a->wait_sum_ns);
	w->wait_mean_ns = w->nr_wait ? m / w->nr_wait : 0;
	blocked = xchg0(&a->blocked_ns);
	w->busy_ns = xchg0(&a->busy_ns);
	w->oncpu_ns = xchg0(&a->oncpu_ns);
	/* slack: the waiting share of the workers' completed wait/busy segments.
	 * No segment completed: requests but no wait means the workers never got
	 * back to waiting (saturated, 0); nothing at all means idle (1000). */
	denom = blocked + w->busy_ns;
	if (denom)
		w->slack = blocked >= denom ? SLACKGOV_ONE : blocked * SLACKGOV_ONE / denom;
	else
		w->slack = nsend || nrecv ? 0 : SLACKGOV_ONE;
	w->blocked_ns = blocked;
	w->rps = nsend * 1000000000ULL / len;
	w->util = w->oncpu_ns * SLACKGOV_ONE / len;
	w->cv = batch_cv(a, w, nsend, nrecv, rsum, rsq, now);
	if (!nsend && !nrecv)
		flags |= SLACKGOV_SAMPLE_IDLE;
	w->flags = flags;
	for (i = 0; i < SLACKGOV_CPU_WORDS; i++) {
		w->cpus[i] = xchg0(&a->cpus[i]);
		any |= w->cpus[i] != 0;
	}
	/* a window the target did not run in names the CPUs it last ran on */
	for (i = 0; i < SLACKGOV_CPU_WORDS; i++) {
		if (any)
			a->last_cpus[i] = w->cpus[i];
		s->cpus[i] = a->last_cpus[i];
	}
	if (flags & SLACKGOV_SAMPLE_EXITED)
		a->exit_pending = 0;
	w->report_ret = 1;
	if (feed && (s->cpus[0] | s->cpus[1] | s->cpus[2] | s->cpus[3])) {
		s->size = sizeof(*s);
		s->version = SLACKGOV_ABI_VERSION;
		s->target = slot;
		s->flags = flags;
		s->seq = w->seq;
		s->end_ns = now;
		s->len_ns = len;
		s->slack = w->slack;
		s->cv = w->cv;
		s->util = w->util;
		s->rps = w->rps;
		s->nr_send = w->nr_send;
		s->nr_recv = w->nr_recv;
		s->nr_wait = w->nr_wait;
		s->setpoint = a->setpoint;
		w->report_ret = slackgov_report(s, sizeof(*s));
	}
	st->hist[st->head % SLACKGOV_HISTORY] = *w;
	st->head++;
	st->total_send += nsend;
	st->total_ns += len;
	st->total_recv += nrecv;
	st->total_blocked_ns += blocked;
	st->total_busy_ns += w->busy_ns;
	st->total_oncpu_ns += w->oncpu_ns;
	st->total_cv_ns += (__u64)w->cv * len / SLACKGOV_ONE;
	sg_snap(slot);
	a->closing = 0;
}

/* A worker's busy segment ends at @at: from its last wait's return to the
 * start of this wait, the part inside the open window. */
static __always_inline void end_busy(struct sg_thread *th, struct sg_acc *a, __u64 at)
{
	__u64 from = th->wait_exit_ns;

	if (!from)
		return;
	th->wait_exit_ns = 0;
	if (!a)
		return;
	if (a->start_ns > from)
		from = a->start_ns;
	if (at > from)
		__sync_fetch_and_add(&a->busy_ns, at - from);
}

/* A wait (see the DOC block "Slack") returned events at @now: its blocked
 * time, the part inside the open window, and the thread counts as a worker. */
static __always_inline void count_wait(struct sg_thread *th, struct sg_acc *a, __u64 now)
{
	__u64 d = now - th->enter_ns, ws;

	__sync_fetch_and_add(&a->nr_wait, 1);
	__sync_fetch_and_add(&a->wait_sum_ns, d);
	ws = a->start_ns;
	if (ws && now - d < ws)	/* the part inside this window; none if a
				 * closer on another CPU opened it after @now */
		d = now > ws ? now - ws : 0;
	__sync_fetch_and_add(&a->blocked_ns, d);
	if (th->worker_seq != a->seq + 1) {
		th->worker_seq = a->seq + 1;
		__sync_fetch_and_add(&a->nr_workers, 1);
	}
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sg_enter, struct pt_regs *regs, long id)
{
	struct sg_thread *th = thread_state(true);
	int fam;

	if (!th || th->slot == SG_NO_SLOT)
		return 0;
	fam = family(id);
	if (id == NR_read || id == NR_readv || id == NR_write || id == NR_writev) {
		if (fd_is_socket((unsigned int)PT_REGS_PARM1_CORE_SYSCALL(regs)))
			fam = (id == NR_read || id == NR_readv) ? SG_RECV : SG_SEND;
	}
	th->kind = fam;
	th->slept = 0;
	th->enter_ns = bpf_ktime_get_ns();
	if (fam == SG_WAIT) {
		__u32 slot = th->slot;

		end_busy(th, bpf_map_lookup_elem(&acc, &slot), th->enter_ns);
	}
	return 0;
}

static __always_inline int on_exit(long ret, const bool feed)
{
	struct sg_thread *th = thread_state(false);
	struct sg_acc *a;
	__u64 now;
	__u32 slot;

	if (!th || th->slot == SG_NO_SLOT)
		return 0;
	slot = th->slot;
	a = bpf_map_lookup_elem(&acc, &slot);
	if (!a)
		return 0;
	now = bpf_ktime_get_ns();
	set_cpu(a->cpus);
	if (th->kind != SG_NONE && ret >= 0) {
		switch (th->kind) {
		case SG_SEND:
			if (!ret)
				break;	/* nothing sent */
			__sync_fetch_and_add(&a->nr_send, 1);
			add_interval(&a->last_send_ns, now, &a->send_sum_us, &a->send_sq_us2);
			break;
		case SG_RECV:
			if (!ret)
				break;	/* end of file: the peer closed, no request */
			__sync_fetch_and_add(&a->nr_recv, 1);
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
	}
	th->kind = SG_NONE;
	th->enter_ns = 0;
	maybe_close(slot, now, 0, feed, SG_SCRATCH_PROG);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sg_exit, struct pt_regs *regs, long ret)
{
	return on_exit(ret, FEED);
}

/*
 * On-CPU time of target threads, and overdue windows of busy targets.  The
 * time comes from the scheduler's own sum_exec_runtime of the thread that
 * leaves (current at this point), so only @prev is looked up: one
 * task-storage lookup per context switch for every process on the machine,
 * not one per side (sg_switch 67 -> 55 ns per run by bpf_stats in
 * bench-overhead.sh; the switch cost it derives did not move beyond noise).
 */
static __always_inline int on_switch(struct task_struct *prev, const bool feed)
{
	struct slackgov_bpf_config *c = cfg();
	__u64 now, rt, d, gen = (c ? c->generation : 0) + 1;
	struct sg_thread *th;
	struct sg_acc *a;
	__u32 slot;

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
	slot = th->slot;
	a = bpf_map_lookup_elem(&acc, &slot);
	if (a) {
		/* at most the open window's length: a thread that ran since
		 * before it opened does not add the earlier part (util could
		 * exceed 1000 per CPU) */
		if (a->start_ns && now > a->start_ns && d > now - a->start_ns)
			d = now - a->start_ns;
		__sync_fetch_and_add(&a->oncpu_ns, d);
		set_cpu(a->cpus);
	}
	/* the thread leaves the CPU: a good moment to close an overdue window */
	maybe_close(slot, now, 0, feed, SG_SCRATCH_PROG);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sg_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(prev, FEED);
}

/* Does @slot still belong to a live target: its key still names it in its
 * target map, and (unless some process could not be tracked) one of its
 * processes lives? */
static __always_inline bool slot_live(__u32 slot, struct sg_acc *a)
{
	struct slackgov_target *t = NULL;
	__u64 key[2] = { a->key[0], a->key[1] };
	__u32 tgid = key[0];

	if (!a->nr_procs && !a->uncounted)
		return false;
	if (a->kind == SLACKGOV_TARGET_PID)
		t = bpf_map_lookup_elem(&target_pid, &tgid);
	else if (a->kind == SLACKGOV_TARGET_COMM)
		t = bpf_map_lookup_elem(&target_comm, key);
	else if (a->kind == SLACKGOV_TARGET_CGROUP)
		t = bpf_map_lookup_elem(&target_cgroup, &key[0]);
	return t && t->slot == slot;
}

/*
 * The idle timer of one slot (softirq): close the window if it is due (an
 * idle target's threads make no syscall and do not run, so nothing else
 * would), then run again when the next one is due.  Stops when the target
 * was deleted or its last process exited; arm_idle() starts it again.
 */
static int sg_idle_cb(void *map, __u32 *key, struct sg_idle *v)
{
	struct slackgov_bpf_config *c = cfg();
	__u64 now, window_ns, due, delay;
	__u32 slot = *key;
	struct sg_acc *a;

	a = bpf_map_lookup_elem(&acc, &slot);
	if (!a)
		return 0;
	if (a->exit_pending) {
		maybe_close(slot, bpf_ktime_get_ns(), SLACKGOV_SAMPLE_EXITED, FEED, SG_SCRATCH_TIMER);
		if (a->exit_pending) {	/* still held by another closer: soon again */
			bpf_timer_start(&v->timer, SG_EXIT_RETRY_NS, 0);
			return 0;
		}
	}
	if (!slot_live(slot, a)) {
		a->armed = 0;
		/* a classification may have seen armed == 1 just before: recheck */
		if (!slot_live(slot, a) || __sync_val_compare_and_swap(&a->armed, 0, 1) != 0)
			return 0;
	}
	now = bpf_ktime_get_ns();
	maybe_close(slot, now, SG_F_TIMER, FEED, SG_SCRATCH_TIMER);
	window_ns = c && (c->window_ns || c->window_sends) ? c->window_ns : SG_DEF_WINDOW_NS;
	if (!window_ns)
		window_ns = SG_IDLE_NS;
	due = a->start_ns + window_ns;
	delay = due > now ? due - now : window_ns;
	bpf_timer_start(&v->timer, delay, 0);
	return 0;
}

/* The last thread of a target process exits: when it was the target's last
 * process, close its final window (SLACKGOV_SAMPLE_EXITED); the idle timer
 * then stops, the windows stop, and the governor's stale rule takes over. */
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
