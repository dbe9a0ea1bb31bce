/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idle.bpf.h - the idle timer: one bpf_timer per target slot closes the
 * windows of a target that neither makes syscalls nor runs, and the owed
 * last window of one that exited (point 1 of the DOC block "request
 * metrics" in slackgov.bpf.c).  Included by slackgov.bpf.c after
 * window.bpf.h: one object.
 */
#ifndef __SG_IDLE_BPF_H
#define __SG_IDLE_BPF_H

/* The idle timer's retry when the owed EXITED window could not be closed
 * (another closer held the window): 1 ms, a close takes microseconds. */
#define SG_EXIT_RETRY_NS	1000000ULL
#define SG_CLOCK_MONOTONIC	1	/* uapi/linux/time.h; not in vmlinux.h */

/* Does @slot still belong to a live target: its key still names it in its
 * target map, and (unless some process could not be tracked) one of its
 * processes lives? */
static __always_inline bool slot_live(__u32 slot, struct sg_acc *a)
{
	struct slackgov_target *t = NULL;
	__u64 key[2] = { a->key[0], a->key[1] };
	struct slackgov_cgname *k;
	__u32 tgid = key[0];

	if (!a->nr_procs && !a->uncounted)
		return false;
	if (a->kind == SLACKGOV_TARGET_PID)
		t = bpf_map_lookup_elem(&target_pid, &tgid);
	else if (a->kind == SLACKGOV_TARGET_COMM)
		t = bpf_map_lookup_elem(&target_comm, key);
	else if (a->kind == SLACKGOV_TARGET_CGROUP)
		t = bpf_map_lookup_elem(&target_cgroup, &key[0]);
	else if ((k = bpf_map_lookup_elem(&cg_keys, &slot))) {	/* by name: the key it matched */
		if (a->kind == SLACKGOV_TARGET_UNIT)
			t = bpf_map_lookup_elem(&target_unit, k);
		else if (a->kind == SLACKGOV_TARGET_GLOB)
			t = bpf_map_lookup_elem(&target_glob, k);
		if (t && t->start_ns != key[1])
			t = NULL;		/* deleted and added again: another owner */
	}
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

#endif /* __SG_IDLE_BPF_H */
