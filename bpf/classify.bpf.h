/* SPDX-License-Identifier: GPL-2.0 */
/*
 * classify.bpf.h - which target, if any, a thread belongs to (PID, then
 * process name, then its cgroup and the cgroups above it), cached per thread
 * in task storage until the next target change; a slot's change of owner;
 * the families of the counted syscalls.  Included by slackgov.bpf.c after
 * idle.bpf.h: one object.
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

/* @m takes target @t's settings (its kind and key are the caller's) */
static __always_inline void match_set(struct sg_match *m, const struct slackgov_target *t)
{
	m->setpoint = t->setpoint;
	m->slo_us = t->slo_us;
	m->slo_q = t->slo_us ? t->slo_q : 0;
	m->slo_margin = t->slo_us ? t->slo_margin : 0;
	m->proto = t->proto < SLACKGOV_PROTO_NR ? t->proto : SLACKGOV_PROTO_THREAD;
	m->tflags = t->flags;
	m->slot = t->slot < SLACKGOV_MAX_TARGETS ? t->slot : SG_NO_SLOT;
}

/**
 * DOC: cgroup targets
 *
 * A cgroup target covers a cgroup v2 subtree: the thread's own cgroup and
 * its ancestors are looked at in turn, the nearest first, up to
 * ``SG_CG_LEVELS`` of them, and at each the first of these that names it
 * decides:
 *
 * 1. ``target_cgroup``: the directory's id (``--cgroup PATH``: the
 *    directory as it is now; a directory removed and made again is another).
 * 2. ``target_unit``: its parent's id and its own name (``--unit NAME``:
 *    ``struct slackgov_cgname``).  systemd makes a unit's directory again at
 *    each start, under the same slice and with the same name, so the target
 *    outlives the restart; the slice's own removal ends it.
 * 3. ``target_glob``: its parent's id and a glob its name matches
 *    (``--cgroup DIR/GLOB``, one ``*`` standing for any run of characters,
 *    e.g. ``kubepods-pod*.slice``), so directories made after the add, a
 *    pod's, match.
 *
 * So the innermost target wins: a unit's sub-cgroup added as its own
 * target is counted there, not in the unit.  A directory whose name is
 * ``SLACKGOV_CGNAME_LEN`` - 1 characters or longer (its name read cut) is
 * matched by id only.  The walk runs at classification only (a thread's
 * first syscall after a target change, or after it was moved to another
 * cgroup: ``sg_cgmove``), so its cost, 2 lookups a level and the glob
 * targets' compares, is paid once per thread.
 */

/* Cgroups looked at, the thread's own and its ancestors: a container's
 * (kubepods.slice/kubepods-burstable.slice/POD/CONTAINER) is 4 below the
 * root, a user session's scope (user.slice/user-UID.slice/user@UID.service/
 * app.slice/X.scope) 5; 16 leaves room for delegated sub-cgroups. */
#define SG_CG_LEVELS		16
#define SG_CGNAME_MASK		(SLACKGOV_CGNAME_LEN - 1)	/* a power of two */
_Static_assert((SLACKGOV_CGNAME_LEN & SG_CGNAME_MASK) == 0, "SLACKGOV_CGNAME_LEN: a power of two");

/* kernfs_node's parent, renamed __parent in 6.15 ("kernfs: Use RCU to
 * access kernfs_node::parent.", January 2025; the 6.18 host's BTF has
 * __parent, Debian's 6.1 and 6.12 parent): both flavours */
struct kernfs_node___old {
	struct kernfs_node *parent;
} __attribute__((preserve_access_index));

struct kernfs_node___new {
	struct kernfs_node *__parent;
} __attribute__((preserve_access_index));

static __always_inline struct kernfs_node *kn_parent(struct kernfs_node *kn)
{
	struct kernfs_node___new *n = (void *)kn;
	struct kernfs_node___old *o = (void *)kn;

	if (bpf_core_field_exists(n->__parent))
		return BPF_CORE_READ(n, __parent);
	return BPF_CORE_READ(o, parent);
}

/* bpf_loop(): character @i of the glob (cg_scratch's hit) and the name */
static long glob_scan(__u32 i, void *ctx)
{
	struct sg_glob_scan *x;
	struct sg_cgwalk *w;
	__u32 zero = 0;
	__u64 g, n, c;

	w = bpf_map_lookup_elem(&cg_scratch, &zero);
	if (!w)
		return 1;
	x = &w->scan;
	g = (__u8)w->hit.name[i & SG_CGNAME_MASK];
	n = (__u8)w->name.name[i & SG_CGNAME_MASK];
	x->ag &= g != 0;
	x->an &= n != 0;
	x->glen += x->ag;
	x->nlen += x->an;
	c = x->ag && g == '*';
	x->nstar += c;
	x->pre &= x->ag && !c;
	x->star += x->pre;
	x->bad |= x->pre && g != n;		/* the prefix differs */
	return !x->ag && !x->an;		/* both ended */
}

/* bpf_loop(): character @i of the suffix, the glob's and the name's last */
static long glob_suffix(__u32 i, void *ctx)
{
	struct sg_glob_scan *x;
	struct sg_cgwalk *w;
	__u32 zero = 0;

	w = bpf_map_lookup_elem(&cg_scratch, &zero);
	if (!w)
		return 1;
	x = &w->scan;
	if (i >= x->slen)
		return 1;
	if (w->hit.name[(x->star + 1 + i) & SG_CGNAME_MASK] !=
	    w->name.name[(x->nlen - x->slen + i) & SG_CGNAME_MASK]) {
		x->bad = 1;
		return 1;
	}
	return 0;
}

/*
 * Does the directory's name (cg_scratch's name) match the glob in its hit:
 * the glob's one '*' any run of characters (slackctl refuses globs with
 * more or none)?  1 or 0.  The walks are bpf_loop() callbacks over state
 * in cg_scratch: as loops, or over state on the stack, the verifier walked
 * their sums (lengths, offsets), which grow at each turn, state by state,
 * past sg_enter's 1M instructions; map memory it does not follow.  A
 * global function without pointer arguments: checked once, not at each of
 * the walk's calls of glob_step().
 */
__noinline int sg_glob_match(void)
{
	struct sg_glob_scan *x;
	struct sg_cgwalk *w;
	__u32 zero = 0;

	w = bpf_map_lookup_elem(&cg_scratch, &zero);
	if (!w)
		return 0;
	x = &w->scan;
	__builtin_memset(x, 0, sizeof(*x));
	x->ag = x->an = x->pre = 1;
	bpf_loop(SLACKGOV_CGNAME_LEN, glob_scan, NULL, 0);
	if (x->bad || x->nstar != 1 || x->glen < x->star + 1)
		return 0;
	x->slen = x->glen - x->star - 1;
	if (x->nlen < x->star + x->slen)
		return 0;
	bpf_loop(SLACKGOV_CGNAME_LEN, glob_suffix, NULL, 0);
	return !x->bad;
}

struct sg_glob_ctx {
	__u64 parent;		/* the parent id of the directory looked at */
	__u64 found;		/* a glob matched: its key is in sg_cgwalk.hit */
};

/* bpf_for_each_map_elem() over target_glob: stop at the first glob under
 * @x->parent that the directory's name (cg_scratch) matches */
static long glob_step(struct bpf_map *map, struct slackgov_cgname *key,
		      struct slackgov_target *t, struct sg_glob_ctx *x)
{
	struct sg_cgwalk *w;
	__u32 zero = 0;

	if (key->parent != x->parent)
		return 0;
	w = bpf_map_lookup_elem(&cg_scratch, &zero);
	if (!w)
		return 1;
	__builtin_memcpy(&w->hit, key, sizeof(w->hit));
	if (!sg_glob_match())
		return 0;
	x->found = 1;
	return 1;
}

/* @m matched the UNIT or GLOB target @t of key @k: note @k for the idle timer */
static __always_inline void match_name(struct sg_match *m, const struct slackgov_target *t,
				       const struct slackgov_cgname *k, __u64 kind)
{
	__u32 slot = t->slot;

	m->kind = kind;
	m->key[0] = k->parent;
	m->key[1] = t->start_ns;	/* this add of the name, not an earlier one */
	match_set(m, t);
	if (slot < SLACKGOV_MAX_TARGETS)
		bpf_map_update_elem(&cg_keys, &slot, k, BPF_ANY);
}

/*
 * The cgroup walk of DOC "cgroup targets" for the current task: fills @m
 * and returns 1 at the first target found, 0 if none.  A global function:
 * verified once, not in each program that classifies.
 */
__noinline int sg_cg_classify(struct sg_match *m)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct sg_glob_ctx x = {};
	struct kernfs_node *kn, *up;
	struct slackgov_target *t;
	struct sg_cgwalk *w;
	__u32 zero = 0, i;
	long n;
	__u64 id;

	w = bpf_map_lookup_elem(&cg_scratch, &zero);
	if (!m || !w)
		return 0;
	kn = BPF_CORE_READ(task, cgroups, dfl_cgrp, kn);
	for (i = 0; i < SG_CG_LEVELS && kn; i++) {
		id = BPF_CORE_READ(kn, id);
		t = bpf_map_lookup_elem(&target_cgroup, &id);
		if (t) {
			m->kind = SLACKGOV_TARGET_CGROUP;
			m->key[0] = id;
			m->key[1] = 0;
			match_set(m, t);
			return 1;
		}
		up = kn_parent(kn);
		if (!up)
			return 0;		/* the root has no name */
		__builtin_memset(&w->name, 0, sizeof(w->name));
		w->name.parent = BPF_CORE_READ(up, id);
		n = bpf_probe_read_kernel_str(w->name.name, sizeof(w->name.name), BPF_CORE_READ(kn, name));
		if (n > 0 && n < SLACKGOV_CGNAME_LEN) {		/* n counts the NUL: not cut */
			t = bpf_map_lookup_elem(&target_unit, &w->name);
			if (t) {
				match_name(m, t, &w->name, SLACKGOV_TARGET_UNIT);
				return 1;
			}
			x.parent = w->name.parent;
			x.found = 0;
			bpf_for_each_map_elem(&target_glob, glob_step, &x, 0);
			t = x.found ? bpf_map_lookup_elem(&target_glob, &w->hit) : NULL;
			if (t) {
				match_name(m, t, &w->hit, SLACKGOV_TARGET_GLOB);
				return 1;
			}
		}
		kn = up;
	}
	return 0;
}

/* Which target slot, if any, does @task (the current task) belong to? */
static __always_inline void classify(struct task_struct *task, struct sg_match *m)
{
	struct task_struct *leader = task->group_leader;
	struct slackgov_target *t;
	char comm[SLACKGOV_COMM_LEN] = {};
	__u32 tgid = task->tgid;

	m->slot = SG_NO_SLOT;
	t = bpf_map_lookup_elem(&target_pid, &tgid);
	if (t) {
		if (t->start_ns &&
		    leader->start_boottime / SLACKGOV_TICK_NS != t->start_ns / SLACKGOV_TICK_NS)
			return;		/* a reused PID */
		m->kind = SLACKGOV_TARGET_PID;
		m->key[0] = tgid;
		match_set(m, t);
		return;
	}
	bpf_probe_read_kernel_str(comm, sizeof(comm), leader->comm);
	t = bpf_map_lookup_elem(&target_comm, comm);
	if (t) {
		m->kind = SLACKGOV_TARGET_COMM;
		__builtin_memcpy(m->key, comm, sizeof(comm));
		match_set(m, t);
		return;
	}
	sg_cg_classify(m);
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
		a->cpus[i] = a->last_cpus[i] = a->seen_cpus[i] = a->kept_cpus[i] = 0;
	a->keep_ns = 0;
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
