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
 * Built twice: slackgov.bpf.o (metrics only: loads on any kernel with BTF)
 * and slackgov_feed.bpf.o (SG_FEED: also calls the kfunc, so it loads only
 * when slackgov.ko is loaded).  slackctl load picks one.
 * The metrics and their integer bounds are defined in Documentation/metrics.rst.
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
};

struct sg_thread {		/* per thread: cached verdict and wait state */
	__u32 slot;		/* SG_NO_SLOT: not a target */
	__u32 kind;		/* SG_* of the syscall in progress */
	__u64 generation;	/* config.generation the verdict was made at */
	__u64 task_start;	/* task->start_time of the thread the verdict is
				 * for: a recycled tid is a new thread */
	__u64 enter_ns;
	__u64 worker_seq;	/* window seq this thread was counted a worker in */
	__u64 on_ns;		/* sched_switch: switched in at */
	__u64 wait_exit_ns;	/* when its last wait returned (0: none yet) */
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

/* Every thread that made a syscall since the last generation change has an
 * entry (targets or not: the negative verdict is what keeps the untraced
 * path to one lookup); LRU so that exited threads age out. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct sg_thread);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slackgov_sample);
} scratch SEC(".maps");

static __always_inline struct slackgov_bpf_config *cfg(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sg_config, &zero);
}

/* Which target slot, if any, does the current task belong to? */
static __always_inline __u32 classify(__u32 *setpoint)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	struct task_struct *leader = task->group_leader;
	struct slackgov_target *t;
	char comm[SLACKGOV_COMM_LEN] = {};
	__u32 tgid = task->tgid;
	__u64 cgid;

	t = bpf_map_lookup_elem(&target_pid, &tgid);
	if (t) {
		*setpoint = t->setpoint;
		if (!t->start_ns ||
		    leader->start_boottime / SG_NS_PER_TICK == t->start_ns / SG_NS_PER_TICK)
			return t->slot;
		return SG_NO_SLOT;	/* a reused PID */
	}
	bpf_probe_read_kernel_str(comm, sizeof(comm), leader->comm);
	t = bpf_map_lookup_elem(&target_comm, comm);
	if (!t) {
		cgid = bpf_get_current_cgroup_id();
		t = bpf_map_lookup_elem(&target_cgroup, &cgid);
	}
	if (!t)
		return SG_NO_SLOT;
	*setpoint = t->setpoint;
	return t->slot;
}

/* The current thread's state, classified at the current generation. */
static __always_inline struct sg_thread *thread_state(bool create)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	struct slackgov_bpf_config *c = cfg();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 gen = c ? c->generation : 0;
	__u64 tstart = task->start_time;
	struct sg_thread *th, fresh = {};
	struct sg_acc *a;
	__u32 setpoint = 0;

	th = bpf_map_lookup_elem(&threads, &tid);
	if (th && th->generation == gen && th->task_start == tstart)
		return th;
	if (!th && !create)
		return NULL;
	fresh.slot = classify(&setpoint);
	fresh.generation = gen;
	fresh.task_start = tstart;
	if (fresh.slot >= SLACKGOV_MAX_TARGETS)
		fresh.slot = SG_NO_SLOT;
	a = bpf_map_lookup_elem(&acc, &fresh.slot);
	if (a)
		a->setpoint = setpoint;
	bpf_map_update_elem(&threads, &tid, &fresh, BPF_ANY);
	return bpf_map_lookup_elem(&threads, &tid);
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
	__u64 r = 0, bit = 1ULL << 46, t, mask;
	int i;

	if (x >> 48)
		x = (1ULL << 48) - 1;
#pragma unroll
	for (i = 0; i < 24; i++) {
		t = r + bit;
		mask = ((x - t) >> 63) - 1;	/* all ones when x >= t */
		x -= t & mask;
		r = (r >> 1) + (bit & mask);
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

static __always_inline __u64 xchg0(__u64 *p)
{
	return __sync_lock_test_and_set(p, 0);
}

/*
 * Close the window of @slot if it is due.  One closer at a time (the closing
 * flag); counters are taken with atomic exchanges, so increments that race
 * with the close land in the next window instead of being lost.
 */
static __always_inline void maybe_close(__u32 slot, __u64 now, __u32 flags_in, const bool feed)
{
	struct slackgov_bpf_config *c = cfg();
	struct slackgov_target_state *st;
	struct slackgov_sample *s;
	struct slackgov_window *w;
	struct sg_acc *a;
	__u64 window_ns, len, nsend, nrecv, workers, blocked, denom, m;
	__u32 zero = 0, i, window_sends, flags = flags_in;
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
	len = now > a->start_ns ? now - a->start_ns : 0;
	if (window_sends && a->nr_send >= window_sends)
		flags |= SLACKGOV_SAMPLE_BY_COUNT;
	else if (!(flags & SLACKGOV_SAMPLE_EXITED) && (!window_ns || len < window_ns))
		return;
	if (!len || __sync_val_compare_and_swap(&a->closing, 0, 1) != 0)
		return;
	st = bpf_map_lookup_elem(&windows, &slot);
	s = bpf_map_lookup_elem(&scratch, &zero);
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
	moments(nrecv, xchg0(&a->recv_sum_us), xchg0(&a->recv_sq_us2), &w->recv_mean_ns, &w->recv_var_us2);
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
		w->slack = blocked * SLACKGOV_ONE / denom;
	else
		w->slack = nsend || nrecv ? 0 : SLACKGOV_ONE;
	w->blocked_ns = blocked;
	w->rps = nsend * 1000000000ULL / len;
	w->util = w->oncpu_ns * SLACKGOV_ONE / len;
	if (w->recv_mean_ns >= 1000)
		w->cv = sg_isqrt(w->recv_var_us2) * SLACKGOV_ONE / (w->recv_mean_ns / 1000);
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
	a->closing = 0;
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
	th->enter_ns = bpf_ktime_get_ns();
	if (fam == SG_WAIT && th->wait_exit_ns) {
		/* a worker's busy segment: from its last wait's return to this wait */
		__u32 slot = th->slot;
		struct sg_acc *a = bpf_map_lookup_elem(&acc, &slot);
		__u64 from = th->wait_exit_ns;

		if (a) {
			if (a->start_ns > from)
				from = a->start_ns;	/* the part inside this window */
			if (th->enter_ns > from)
				__sync_fetch_and_add(&a->busy_ns, th->enter_ns - from);
		}
		th->wait_exit_ns = 0;
	}
	return 0;
}

static __always_inline int on_exit(long ret, const bool feed)
{
	struct sg_thread *th = thread_state(false);
	struct sg_acc *a;
	__u64 now, d;
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
			__sync_fetch_and_add(&a->nr_send, 1);
			add_interval(&a->last_send_ns, now, &a->send_sum_us, &a->send_sq_us2);
			break;
		case SG_RECV:
			__sync_fetch_and_add(&a->nr_recv, 1);
			add_interval(&a->last_recv_ns, now, &a->recv_sum_us, &a->recv_sq_us2);
			break;
		case SG_WAIT:
			th->wait_exit_ns = now;
			/* a wait that returned no event is a timer wake: not slack */
			if (ret == 0 || !th->enter_ns)
				break;
			d = now - th->enter_ns;
			__sync_fetch_and_add(&a->nr_wait, 1);
			__sync_fetch_and_add(&a->wait_sum_ns, d);
			if (a->start_ns && now - d < a->start_ns)
				d = now - a->start_ns;	/* the part inside this window */
			__sync_fetch_and_add(&a->blocked_ns, d);
			if (th->worker_seq != a->seq + 1) {
				th->worker_seq = a->seq + 1;
				__sync_fetch_and_add(&a->nr_workers, 1);
			}
			break;
		}
	}
	th->kind = SG_NONE;
	th->enter_ns = 0;
	maybe_close(slot, now, 0, feed);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sg_exit, struct pt_regs *regs, long ret)
{
	return on_exit(ret, FEED);
}

/* on-CPU time of target threads, and overdue windows of busy targets */
static __always_inline int on_switch(struct task_struct *prev, struct task_struct *next, const bool feed)
{
	__u32 ptid = prev->pid, ntid = next->pid, slot;
	struct sg_thread *th;
	struct sg_acc *a;
	__u64 now = bpf_ktime_get_ns();

	th = bpf_map_lookup_elem(&threads, &ptid);
	if (th && th->slot != SG_NO_SLOT && th->on_ns && th->task_start == prev->start_time) {
		slot = th->slot;
		a = bpf_map_lookup_elem(&acc, &slot);
		if (a) {
			__sync_fetch_and_add(&a->oncpu_ns, now - th->on_ns);
			set_cpu(a->cpus);
		}
		th->on_ns = 0;
		/* the thread leaves the CPU: a good moment to close an overdue window */
		maybe_close(slot, now, 0, feed);
	}
	th = bpf_map_lookup_elem(&threads, &ntid);
	if (th && th->slot != SG_NO_SLOT && th->task_start == next->start_time)
		th->on_ns = now;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sg_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(prev, next, FEED);
}
