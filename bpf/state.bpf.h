/* SPDX-License-Identifier: GPL-2.0 */
/*
 * state.bpf.h - what the request metrics are (their DOC block) and the
 * state that accumulates them: the per-target, per-thread and per-socket
 * structs, the maps, the syscall numbers and the small helpers every
 * concern shares.  Included first by slackgov.bpf.c: one object.
 */
#ifndef __SG_STATE_BPF_H
#define __SG_STATE_BPF_H

/**
 * DOC: request metrics
 *
 * Per target (a process by PID, every process of a name, or a cgroup v2
 * subtree: classify.bpf.h) and per *window*, from the target's syscalls only.  All
 * integer; ratios in thousandths (1000 == 1.0); ``len`` is the window's
 * length in ns.
 *
 * 1. **Window.**  A window closes ``window`` ns after it opened (default
 *    10 ms; ``sg_config.window_ns``), or after ``window_sends`` sends when
 *    that is non-zero (by count; with ``window`` 0, by count only).  The
 *    check runs at each syscall exit of a target thread (of a watched
 *    syscall only with the fentry hooks: DOC "hooks"), when a target
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
 *    close.  The governor drops an exited target at once (its EXITED rule:
 *    with no other target the policy returns to the utilization rule);
 *    windows that stop without an EXITED one are a lost signal (its stale
 *    rule: the safe frequency).  A target is known from its first syscall
 *    (with the fentry hooks: its first watched one) after it was added: one
 *    that never makes one (blocked since before) publishes nothing until it
 *    wakes.
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
 * 3. **Observed RPS.**  ``rps = nr_req * 10^9 / len``, where ``nr_req``
 *    counts the requests answered as the target's ``proto`` says: under
 *    the thread rules (``thread``, the default) one per send; per
 *    connection, the requests a send answered (DOC "requests per
 *    connection", bpf/conn.bpf.h).  Over a run, the windows' rps weighted
 *    by their length is sum(nr_req) / sum(len).
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
 *    ``requests = max(nr_req, nr_recv)``) is its gap followed by k - 1 zero
 *    intervals::
 *
 *        mean = sum(iv) / requests,  var = sum(iv^2) / requests - mean^2
 *        cv   = 1000 * sqrt(var) / mean
 *
 *    in integer math (mean in ns, ``sum(iv) * 1000`` < 2^64 for
 *    sum(iv) < 2^44 us; a bit-by-bit square root of var < 2^48).  A window
 *    with fewer than 2 recvs carries its sums into the next one (for up to
 *    1 s) and repeats the last value (forgotten after 1 s without requests;
 *    a window without requests publishes 0); ``cv`` is capped at
 *    ``SLACKGOV_CV_MAX`` (10^6: CV 1000, the largest the module accepts).  Open-loop Poisson arrivals give about
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
 *    ``util = 1000 * oncpu_ns / len`` (2000 = two CPUs busy), and the
 *    CPUs they ran on (``cpus``; a window in which the target
 *    did not run names those of its last running window, so the module
 *    knows which policies an idle window concerns).  A run is counted when
 *    the thread leaves the CPU, whole, in the window open then: one that ran
 *    through several windows without a switch (a busy period of a loaded
 *    server) counts in the last, whose util can then exceed 1000 per CPU
 *    while the ones before it show less.  Nothing is lost, so util averaged
 *    over windows, ``total_oncpu_ns`` and the governor's work per request
 *    (on-CPU time over requests answered) are exact.  A run is not clipped
 *    to the window it ends in: that would drop the start of every busy
 *    period, and with it the CPU time of the loads near saturation, where
 *    it matters most.  The feed hands the module one sample per CPU of
 *    ``cpus``, carrying that CPU's share: its on-CPU time (``util``) and
 *    the requests answered on it (``nr_req``, ``rps``), the target's own
 *    figures otherwise (window.bpf.h, ``sg_feed()``); the windows map
 *    keeps the target's.
 *
 * 8. **Where the time goes.**  At each ``sched_switch`` of a target thread,
 *    the time since it last left the CPU splits into its run (the
 *    ``sum_exec_runtime`` step, point 7), its wait on a run queue (the step
 *    of the scheduler's ``sched_info.run_delay``: ``runq_ns``) and the rest,
 *    asleep.  That sleep counts in ``block_ns`` when the thread went to
 *    sleep inside a busy segment (point 6: after a wait returned, and not in
 *    a wait call nor a socket recv, which wait for work): a request's own
 *    blocking (a timer, a pipe, a lock, a disk read), the part of its
 *    service that a higher frequency does not shorten.  Per request
 *    answered, ``oncpu_ns``, ``runq_ns`` and ``block_ns`` over ``nr_req``
 *    split the service (read to answer) of an event loop or a thread per
 *    connection, for which a busy segment is one request's; sleeps are
 *    counted when the thread next leaves the CPU, so a window may carry the
 *    end of the one before.  Threads that never make a wait call (a pool
 *    fed through a queue) have no busy segment: their sleeps, idle or not,
 *    are not counted (a pool worker's idle futex wait cannot be told from a
 *    request's lock wait without the pool's code).  A kernel without
 *    ``CONFIG_SCHED_INFO`` gives no ``runq_ns`` (CO-RE: the field is
 *    missing), and its waits count as sleep.
 *
 * 9. **Blind spots.**  io_uring submissions and completions are not
 *    syscalls of the send/recv families, nor is ``io_uring_enter`` a wait:
 *    an io_uring server is invisible (idle windows only).  Under the thread
 *    rules, pipelined requests in one read count as one recv and are
 *    answered by one send (redis: one request counted for eight), and
 *    multi-stage servers (a front thread receives, a pool answers; or one
 *    request causes several sends, or a backend connection's traffic)
 *    inflate ``rps`` by the sends per request: the per-connection rules
 *    and their parsers count those (``--proto``).  ``nr_recv`` and the recv
 *    moments count calls whatever the rules, and slack mixes the stages'
 *    threads.
 *    Timer-only waits (a wait that returns 0) are ignored, so a server that
 *    polls with short timeouts and handles events on another path looks
 *    busy.  Sends of answers by another process (a proxy) are not the
 *    target's.  A target that was blocked since before it was added is seen
 *    at its first syscall only.  What per-request latency sees and does not:
 *    the DOC block "request latency" (bpf/latency.bpf.h).
 */



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
/* scratch entries: the syscall/switch programs build their sample in 0, the
 * idle timer (softirq, may interrupt them on the same CPU) in 1 */
#define SG_SCRATCH_PROG		0
#define SG_SCRATCH_TIMER	1
/* Processes of targets tracked for exit detection (all targets together). */
#define SG_MAX_PROCS		8192
/* Arrival stamps kept per socket (unread segments) and per thread (the
 * pending read's segments), a power of 2: a read of more segments merges the
 * newest ones into the last stamp (latency.bpf.h, DOC "request latency"). */
#define SG_LAT_STAMPS		8
/* Percentiles per window: p50, p90, p99 and the SLO's */
#define SG_LAT_NQ		4

struct sg_acc {			/* a target's open window; fields added atomically */
	__u64 start_ns;
	__u64 closing;		/* 1 while one thread closes the window */
	__u64 setpoint;		/* the target's own setpoint, 0 = governor default */
	__u64 seq;
	__u64 last_send_ns, last_recv_ns;
	__u64 nr_send, nr_recv, nr_wait, nr_workers;
	__u64 nr_req;		/* requests answered (per the target's proto) */
	__u64 proto;		/* the target's SLACKGOV_PROTO_*, copied at classification */
	__u64 send_sum_us, send_sq_us2, recv_sum_us, recv_sq_us2;
	__u64 wait_sum_ns;	/* duration of waits that returned events */
	__u64 blocked_ns;	/* the same, clamped to the window */
	__u64 busy_ns;		/* workers' time from a wait's return to the next wait */
	__u64 oncpu_ns;
	__u64 runq_ns;		/* run-queue wait of the target's threads */
	__u64 block_ns;		/* their sleep inside busy segments */
	__u64 cpus[SLACKGOV_CPU_WORDS];
	__u64 last_cpus[SLACKGOV_CPU_WORDS];
	/* the CPUs it ran on in this keep period and in the one before, and
	 * when this one began (window.bpf.h, name_cpus()) */
	__u64 seen_cpus[SLACKGOV_CPU_WORDS];
	__u64 kept_cpus[SLACKGOV_CPU_WORDS];
	__u64 keep_ns;
	/* who owns the slot, for the idle timer (see "Idle windows") */
	__u64 kind;		/* enum slackgov_target_kind of the matched map */
	__u64 key[2];		/* its key: tgid, comm, cgroup id, or for a name
				 * (UNIT, GLOB) its parent's id and start_ns */
	__u64 incarn;		/* bumped when the slot changes owner */
	__u64 nr_procs;		/* live processes classified into the slot */
	__u64 uncounted;	/* a process could not be tracked: never "exited" */
	__u64 armed;		/* the idle timer runs */
	__u64 exit_pending;	/* the last process exited, its EXITED window is owed */
	/* batch_cv(): inter-arrival moments carried over windows with few recvs */
	__u64 cv_reqs, cv_recvs, cv_sum_us, cv_sq_us2, cv_start_ns, last_cv, cv_idle_ns;
	/* the target's SLO (slackgov_target), copied at classification */
	__u64 slo_us, slo_q, slo_margin;
	/* latency.bpf.h: the open window's timed requests (sums in ns, and
	 * their histogram), and the two halves of the recent ones' histogram */
	__u64 lat_n, lat_ns, lat_queue_ns, lat_svc_ns;
	__u64 lat_over;		/* ... those over lat_budget_ns */
	__u64 lat_budget_ns;	/* the module's budget T (slackgov_report()); 0: none */
	__u64 lat_q_us;		/* the last lat_q_us read from lat_recent */
	__u64 lat_rn[2];	/* requests in each half of lat_recent */
	__u64 lat_rstart_ns[2];	/* ... when it took its first window */
	__u64 lat_rcur;		/* ... the half that takes the windows */
	__u64 lat_win[SLACKGOV_LAT_BUCKETS];
	__u64 lat_recent[2][SLACKGOV_LAT_BUCKETS];
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
	__u64 rq_ns;		/* ... its sched_info.run_delay then */
	__u64 out_ns;		/* when it last left the CPU (0: not yet) */
	__u32 out_svc;		/* ... asleep inside a busy segment */
	__u32 func;		/* func.bpf.h: requests bracketed by a user function */
	__u64 off_cum_ns;	/* ... its off-CPU gaps so far (completed) */
	__u64 fn_start_ns;	/* ... the request in progress: its start (0: none) */
	__u64 fn_off_ns;	/* ... and the thread's off-CPU time and */
	__u64 fn_rq_ns;		/* ... run-queue wait then */
	__u32 fn_depth;		/* ... nested calls of the function */
	__u32 tls;		/* tls.bpf.h: requests read at SSL_read */
	__u64 tls_ssl, tls_buf;	/* ... the SSL_read in progress: its SSL and buffer */
	__u64 tls_nread;	/* ... SSL_read_ex's count's address */
	__u64 tls_t0;		/* ... its entry (0: none) */
	__u64 tls_arr;		/* ... the first byte's arrival of its socket read */
	__u64 tls_wssl;		/* ... the SSL_write in progress: its SSL */
	__u64 wait_exit_ns;	/* when its last wait returned (0: none yet) */
	__u64 slept;		/* sched_switch: it slept in the recv in progress */
	/* latency.bpf.h: the request this thread read and has not answered */
	__s32 fd;		/* fd of the send or recv in progress */
	__s32 lat_fd;		/* the pending request's fd */
	__u64 lat_ck;		/* ... and its socket's cookie (fds are reused) */
	__u64 rd_ck;		/* this recv's first TCP read: its socket's cookie */
	__u64 rd_arr_ns;	/* ... its data's arrival */
	__u64 rd_last_ns;	/* ... the newest arrival it read */
	__u64 rd_ns;		/* ... and when it was read (0: no TCP read yet) */
	__u64 lat_arr_ns;	/* the pending read: arrival of its first byte */
	__u64 lat_last_ns;	/* ... arrival of the newest byte it took */
	__u64 lat_read_ns;	/* ... and the read that took it (0: none pending) */
	__u32 lat_answered;	/* ... its answers so far */
	__u32 lat_seq0;		/* ... sequence number of its oldest byte */
	__u32 lat_seq1;		/* ... and of the byte after its newest */
	__u32 lat_nst;		/* ... segments stamped in lat_st_* */
	__u64 lat_st_rd;	/* ... rd_ns of the read that began them */
	__u32 lat_st_end[SG_LAT_STAMPS];	/* ... each one's end sequence */
	__u64 lat_st_ns[SG_LAT_STAMPS];		/* ... and arrival */
	__u32 lat_req_bytes;	/* bytes read per answer, recent reads (0: none yet) */
	/* conn.bpf.h: a per-connection target's recv in progress */
	__u32 conn;		/* the target tracks requests per connection */
	__u32 ubuf_len;		/* ... the recv's buffer (its first iovec) */
	__u64 ubuf;
};

struct sg_sock {		/* socks map: a TCP socket a target thread read */
	__u64 first_ns;		/* arrival of the oldest unread stamped data (0: none) */
	__u64 last_ns;		/* arrival of the newest segment with payload */
	__u32 st_start;		/* sequence number of the oldest unread stamped byte */
	__u32 st_n;		/* unread segments stamped in st_* */
	__u32 st_end[SG_LAT_STAMPS];	/* each one's end sequence */
	__u64 st_ns[SG_LAT_STAMPS];	/* and arrival */
	__u32 conn_tgid;	/* its connection entry (conn.bpf.h), 0: none */
	__s32 conn_fd;
};

/* Where a walk over the buckets reached a percentile's rank: the bucket,
 * the count below it and in it; hit is 1 once reached (one bucket only). */
struct sg_lat_at {
	__u64 hit, b, cum, c;
};

struct sg_lat_hist {		/* lat_scratch map: a window's latency buckets */
	__u64 b[SLACKGOV_LAT_BUCKETS];
	struct sg_lat_at at[SG_LAT_NQ + 1];	/* the fold's percentiles (latency.bpf.h) */
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

/* targets by a cgroup directory's name (--unit) or a glob of it (--cgroup
 * with a '*'), under a parent directory's id: classify.bpf.h */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SLACKGOV_MAX_TARGETS);
	__type(key, struct slackgov_cgname);
	__type(value, struct slackgov_target);
} target_unit SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SLACKGOV_MAX_TARGETS);
	__type(key, struct slackgov_cgname);
	__type(value, struct slackgov_target);
} target_glob SEC(".maps");

/* the key of the UNIT or GLOB target a slot's threads last matched, for the
 * idle timer's "is the slot's target still there" (sg_acc.key has no room) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLACKGOV_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct slackgov_cgname);
} cg_keys SEC(".maps");

struct sg_glob_scan {		/* sg_glob_match()'s walk over the glob and the name */
	__u64 ag, an;		/* still before the glob's NUL, the name's */
	__u64 pre;		/* still before the glob's '*' */
	__u64 glen, nlen;	/* their lengths */
	__u64 star, nstar;	/* the '*''s offset, and how many */
	__u64 slen;		/* the suffix's length, after the '*' */
	__u64 bad;		/* a character differs */
};

struct sg_cgwalk {		/* cg_scratch: the cgroup walk's names (classify.bpf.h) */
	struct slackgov_cgname name;	/* the directory looked at, under its parent */
	struct slackgov_cgname hit;	/* the glob target it matched */
	struct sg_glob_scan scan;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sg_cgwalk);
} cg_scratch SEC(".maps");

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

/*
 * A target's open window on each CPU (point 7): its threads' on-CPU time
 * there and the requests answered there, for the feed's per-CPU samples
 * (window.bpf.h).  Each CPU adds to its own value; the closer, on any CPU,
 * takes them with exchanges.  @incarn is the slot's acc.incarn the value
 * counts for: a value of a slot's earlier owner is ignored by the closer
 * and restarted by the next add.
 */
struct sg_cpu_acc {
	__u64 oncpu_ns;
	__u64 nr_req;
	__u64 incarn;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SLACKGOV_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct sg_cpu_acc);
} cpu_acc SEC(".maps");

/* Per thread, in task local storage: every thread that made a syscall has
 * one (targets or not: the cached negative verdict is what keeps the
 * untraced path to one lookup).  Task storage rather than a hash keyed by
 * tid: its lookup is a few loads with no hashing (the untraced path is the
 * cost every other process pays, see bench-overhead.sh), it dies with the
 * task (a recycled tid is a new task), and it cannot be evicted. */
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

/* the closer's copy of the window's latency buckets (entries as scratch) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct sg_lat_hist);
} lat_scratch SEC(".maps");

/* Per TCP socket that a target thread read from: the arrival of its unread
 * data (latency.bpf.h).  Created by the read, so the segments of other
 * processes' sockets find none and pay one lookup. */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sg_sock);
} socks SEC(".maps");

static __always_inline struct slackgov_bpf_config *cfg(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sg_config, &zero);
}

static __always_inline __u64 xchg0(__u64 *p)
{
	return __sync_lock_test_and_set(p, 0);
}

/*
 * 1 if @a < @b, else 0, for values below 2^63, without a branch: the sign of
 * a - b.  In asm, because clang turns the C form into a compare and jump,
 * and the result is applied by multiplication, never as an all-ones mask:
 * 6.18's verifier forks on "AND with a value in [-1, 0]".  In a loop over
 * the buckets a branch per bucket is a path per bucket the verifier walks.
 */
static __always_inline __u64 sg_lt(__u64 a, __u64 b)
{
	__u64 r;

	asm volatile("%0 = %1; %0 -= %2; %0 >>= 63" : "=&r"(r) : "r"(a), "r"(b));
	return r;
}

static __always_inline void set_cpu(__u64 *cpus)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (cpu < SLACKGOV_MAX_CPUS)
		__sync_fetch_and_or(&cpus[(cpu / 64) & (SLACKGOV_CPU_WORDS - 1)], 1ULL << (cpu % 64));
}

/* Count @oncpu_ns of on-CPU time and @nreq requests of the target in @slot
 * (@a) on this CPU: in its window and in this CPU's share of it. */
static __always_inline void count_cpu(struct sg_acc *a, __u32 slot, __u64 oncpu_ns, __u64 nreq)
{
	struct sg_cpu_acc *ca = bpf_map_lookup_elem(&cpu_acc, &slot);
	__u64 inc = a->incarn;

	if (oncpu_ns)
		__sync_fetch_and_add(&a->oncpu_ns, oncpu_ns);
	if (nreq)
		__sync_fetch_and_add(&a->nr_req, nreq);
	set_cpu(a->cpus);
	if (!ca)
		return;
	if (ca->incarn != inc) {
		ca->oncpu_ns = 0;
		ca->nr_req = 0;
		ca->incarn = inc;
	}
	if (oncpu_ns)
		__sync_fetch_and_add(&ca->oncpu_ns, oncpu_ns);
	if (nreq)
		__sync_fetch_and_add(&ca->nr_req, nreq);
}

/* @p's time waiting on a run queue so far (schedstats' sched_info), 0 on a
 * kernel built without CONFIG_SCHED_INFO: task_struct keeps an empty struct
 * sched_info there, so the guard is on the member (the debug kernel of
 * check-debug, before it had SCHEDSTATS, refused the object: "invalid CO-RE
 * relocation" in sg_req_enter). */
static __always_inline __u64 run_delay(struct task_struct *p)
{
	if (!bpf_core_field_exists(p->sched_info.run_delay))
		return 0;
	return BPF_CORE_READ(p, sched_info.run_delay);
}

/* Set once a function-bracketed target's thread is classified (func.bpf.h):
 * from then on sched_switch looks up the incoming thread too. */
__u32 sg_func_seen;	/* a global: clang may not shrink it to a byte, which BTF refuses */

#endif /* __SG_STATE_BPF_H */
