/* SPDX-License-Identifier: GPL-2.0 */
/*
 * classify.bpf.h - which target, if any, a thread belongs to (PID, then
 * process name, then cgroup), cached per thread in task storage until the
 * next target change; a slot's change of owner; the families of the counted
 * syscalls.  Included by slackgov.bpf.c after idle.bpf.h: one object.
 */
#ifndef __SG_CLASSIFY_BPF_H
#define __SG_CLASSIFY_BPF_H

#define S_IFMT			00170000
#define S_IFSOCK		0140000

struct sg_match {		/* what classify() found */
	__u32 slot;		/* SG_NO_SLOT: not a target */
	__u32 setpoint;
	__u32 slo_us;		/* the target's SLO, as struct slackgov_target */
	__u32 slo_q;
	__u32 slo_margin;
	__u32 proto;		/* SLACKGOV_PROTO_* */
	__u32 tflags;		/* SLACKGOV_TARGET_F_* */
	__u32 pad;
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
		    leader->start_boottime / SLACKGOV_TICK_NS != t->start_ns / SLACKGOV_TICK_NS)
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
	m->slo_us = t->slo_us;
	m->slo_q = t->slo_us ? t->slo_q : 0;
	m->slo_margin = t->slo_us ? t->slo_margin : 0;
	m->proto = t->proto < SLACKGOV_PROTO_NR ? t->proto : SLACKGOV_PROTO_THREAD;
	m->tflags = t->flags;
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
	a->nr_send = a->nr_recv = a->nr_wait = a->nr_workers = a->nr_req = 0;
	a->send_sum_us = a->send_sq_us2 = a->recv_sum_us = a->recv_sq_us2 = 0;
	a->wait_sum_ns = a->blocked_ns = a->busy_ns = a->oncpu_ns = 0;
	a->runq_ns = a->block_ns = 0;
	for (i = 0; i < SLACKGOV_CPU_WORDS; i++)
		a->cpus[i] = a->last_cpus[i] = 0;
	a->nr_procs = 0;
	a->uncounted = 0;
	a->exit_pending = 0;
	a->cv_reqs = a->cv_recvs = a->cv_sum_us = a->cv_sq_us2 = a->cv_start_ns = a->last_cv = 0;
	a->cv_idle_ns = 0;
	sg_lat_reset(slot);
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
	th->tls = m.slot != SG_NO_SLOT && (m.tflags & SLACKGOV_TARGET_F_TLS) &&
		  m.proto != SLACKGOV_PROTO_THREAD && m.proto != SLACKGOV_PROTO_FUNC;
	th->conn = m.slot != SG_NO_SLOT && m.proto != SLACKGOV_PROTO_THREAD &&
		   m.proto != SLACKGOV_PROTO_FUNC && !th->tls;
	th->func = m.slot != SG_NO_SLOT && m.proto == SLACKGOV_PROTO_FUNC;
	if (th->func)
		sg_func_seen = 1;
	th->generation = gen;
	th->rt_ns = task->se.sum_exec_runtime;	/* on-CPU time counts from now */
	th->rq_ns = run_delay(task);		/* and run-queue wait */
	a = bpf_map_lookup_elem(&acc, &m.slot);
	if (a) {
		own_slot(m.slot, a, &m);
		a->setpoint = m.setpoint;
		a->slo_us = m.slo_us;
		a->slo_q = m.slo_q;
		a->slo_margin = m.slo_margin;
		a->proto = m.proto;
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

#endif /* __SG_CLASSIFY_BPF_H */
