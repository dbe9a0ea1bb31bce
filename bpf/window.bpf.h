/* SPDX-License-Identifier: GPL-2.0 */
/*
 * window.bpf.h - the open window of a target: its slack accounting (busy and
 * blocked segments of the workers), its close, and the feed to slackgov.ko
 * (points 1, 3, 6 and 7 of the DOC block "request metrics" in
 * slackgov.bpf.c).  Included by slackgov.bpf.c after its maps: one object.
 */
#ifndef __SG_WINDOW_BPF_H
#define __SG_WINDOW_BPF_H

/* Idle detection in count-only mode (window_ns 0): a window with no send
 * closes after this long, so that an idle target still publishes windows;
 * 10 ms is the default time window, a fifth of the governor's stale_ms. */
#define SG_IDLE_NS		SG_DEF_WINDOW_NS
/* errno values as the kfunc returns them (vmlinux.h has no errno.h) */
#define SG_ENODEV		19
#define SG_EINVAL		22
/* Internal maybe_close() flag (not published): the idle timer is closing. */
#define SG_F_TIMER		(1U << 31)

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
	sn->req = st->total_req;
	sn->recv = st->total_recv;
	sn->ns = st->total_ns;
	sn->blocked_ns = st->total_blocked_ns;
	sn->busy_ns = st->total_busy_ns;
	sn->oncpu_ns = st->total_oncpu_ns;
	sn->runq_ns = st->total_runq_ns;
	sn->block_ns = st->total_block_ns;
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
 * Hand the closed window in scratch[@sidx] of the target in @slot (@incarn:
 * its owner) to slackgov.ko, one sample per CPU it names: each with that CPU
 * alone in ``cpus`` and that CPU's share of the window (cpu_acc: ``util``,
 * ``nr_req``, ``rps``), the rest the target's.  A policy so plans the work
 * of its own CPUs, and a shared one the busiest of them (control.c step 4),
 * rather than every CPU the target-wide average: per-core policies of a
 * target over several CPUs otherwise diverge, the slower CPU planning a
 * smaller work rate (Documentation/simulation.rst, finding 1).  Returns
 * the first budget the module returned (> 0), else its last answer.
 * Global: its loop is verified once.  Only in the feed object, which has
 * the kfunc.
 */
#ifdef SG_FEED
__noinline int sg_feed(__u32 slot, __u32 sidx, __u64 incarn, __u64 len)
{
	struct slackgov_sample *s = bpf_map_lookup_elem(&scratch, &sidx);
	__u64 cpus[SLACKGOV_CPU_WORDS], oncpu, nreq;
	struct sg_cpu_acc *ca;
	int ret = -SG_ENODEV, r;
	__u32 i, w;

	if (!s || !len)
		return -SG_EINVAL;
	for (w = 0; w < SLACKGOV_CPU_WORDS; w++) {
		cpus[w] = s->cpus[w];
		s->cpus[w] = 0;
	}
	for (i = 0; i < SLACKGOV_MAX_CPUS; i++) {
		w = i / 64;
		if (!(cpus[w] & (1ULL << (i % 64))))
			continue;
		oncpu = nreq = 0;
		ca = bpf_map_lookup_percpu_elem(&cpu_acc, &slot, i);
		if (ca && ca->incarn == incarn) {
			oncpu = xchg0(&ca->oncpu_ns);
			nreq = xchg0(&ca->nr_req);
		}
		s->cpus[w] = 1ULL << (i % 64);
		s->util = oncpu * SLACKGOV_ONE / len;
		s->nr_req = nreq;
		s->rps = nreq * 1000000000ULL / len;
		r = slackgov_report(s, sizeof(*s));
		s->cpus[w] = 0;
		if (ret <= 0)
			ret = r;
	}
	for (w = 0; w < SLACKGOV_CPU_WORDS; w++)
		s->cpus[w] = cpus[w];
	return ret;
}
#else
static __always_inline int sg_feed(__u32 slot, __u32 sidx, __u64 incarn, __u64 len)
{
	return -SG_ENODEV;
}
#endif

/*
 * The CPUs the sample of a closed window names, so the policies it is stored
 * in: those the target ran on in the window, and those it ran on in this
 * keep period of SLACKGOV_CPU_KEEP_MS or the one before, each with its own
 * share of the window (sg_feed(): zero where it ran nothing).  Naming only
 * the window's CPUs starved a CPU the target visits less often than
 * stale_ms (a server of 20 req/s there): its policy went stale between
 * requests and ran at the safe frequency for seconds.  A second: the gaps
 * of a CPU serving 5 req/s exceed it once in 150 (e^-5), and a CPU the
 * target left keeps its small headroom for at most two; then it is no
 * longer named and its policy, whose feed goes on elsewhere, returns to the
 * utilization rule (control.c step 8).  A target that ran nowhere for two
 * periods names the CPUs it last ran on (its idle windows).  Returns the
 * CPUs named, OR'd over the words (0: none).
 */
static __always_inline __u64 name_cpus(struct sg_acc *a, const struct slackgov_window *w,
				       struct slackgov_sample *s, __u64 ran, __u64 now)
{
	bool turn = now - a->keep_ns >= SLACKGOV_CPU_KEEP_MS * 1000000ULL;
	__u64 named = 0;
	__u32 i;

	if (turn)
		a->keep_ns = now;
	for (i = 0; i < SLACKGOV_CPU_WORDS; i++) {
		a->seen_cpus[i] |= w->cpus[i];
		s->cpus[i] = a->seen_cpus[i] | a->kept_cpus[i];
		named |= s->cpus[i];
		if (turn) {
			a->kept_cpus[i] = a->seen_cpus[i];
			a->seen_cpus[i] = 0;
		}
		if (ran)
			a->last_cpus[i] = w->cpus[i];
	}
	if (!named)
		for (i = 0; i < SLACKGOV_CPU_WORDS; i++) {
			s->cpus[i] = a->last_cpus[i];
			named |= s->cpus[i];
		}
	return named;
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
	__u64 window_ns, len, nsend, nrecv, nreq, workers, blocked, denom, m, rsum, rsq;
	__u32 i, window_sends, due, flags = flags_in & ~SG_F_TIMER;
	__u64 cpus_any = 0;
	int ret;

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
	nreq = xchg0(&a->nr_req);
	w->nr_send = nsend;
	w->nr_req = nreq;
	w->proto = a->proto;
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
	w->runq_ns = xchg0(&a->runq_ns);
	w->block_ns = xchg0(&a->block_ns);
	/* slack: the waiting share of the workers' completed wait/busy segments.
	 * No segment completed: requests but no wait means the workers never got
	 * back to waiting (saturated, 0); nothing at all means idle (1000). */
	denom = blocked + w->busy_ns;
	if (denom)
		w->slack = blocked >= denom ? SLACKGOV_ONE : blocked * SLACKGOV_ONE / denom;
	else
		w->slack = nsend || nrecv ? 0 : SLACKGOV_ONE;
	w->blocked_ns = blocked;
	w->rps = nreq * 1000000000ULL / len;
	w->util = w->oncpu_ns * SLACKGOV_ONE / len;
	w->cv = batch_cv(a, w, nreq, nrecv, rsum, rsq, now);
	if (!nsend && !nrecv)
		flags |= SLACKGOV_SAMPLE_IDLE;
	w->flags = flags;
	for (i = 0; i < SLACKGOV_CPU_WORDS; i++) {
		w->cpus[i] = xchg0(&a->cpus[i]);
		cpus_any |= w->cpus[i];
	}
	cpus_any = name_cpus(a, w, s, cpus_any, now);
	lat_close(slot, sidx, a, st, w, now);
	if (flags & SLACKGOV_SAMPLE_EXITED)
		a->exit_pending = 0;
	w->report_ret = 1;
	if (feed && cpus_any) {
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
		s->nr_req = w->nr_req;
		s->nr_recv = w->nr_recv;
		s->nr_wait = w->nr_wait;
		s->setpoint = a->setpoint;
		s->slo_us = w->slo_us;
		s->slo_q = w->slo_q;
		s->nr_lat = w->nr_lat;
		s->lat_q_us = w->lat_q_us;
		s->lat_win_us = w->lat_win_us;
		s->queue_us = w->queue_us;
		s->svc_us = w->svc_us;
		s->slo_margin = a->slo_margin;
		s->nr_over = w->nr_over;
		s->budget_us = w->budget_us;
		ret = sg_feed(slot, sidx, a->incarn, len);
		/* the budget the next windows' requests are counted against */
		a->lat_budget_ns = ret > 0 ? (__u64)ret * 1000 : 0;
		w->report_ret = ret > 0 ? 0 : ret;
	}
	st->total_send += nsend;
	st->total_req += nreq;
	st->total_ns += len;
	st->total_recv += nrecv;
	st->total_blocked_ns += blocked;
	st->total_busy_ns += w->busy_ns;
	st->total_oncpu_ns += w->oncpu_ns;
	st->total_runq_ns += w->runq_ns;
	st->total_block_ns += w->block_ns;
	st->total_cv_ns += (__u64)w->cv * len / SLACKGOV_ONE;
	/*
	 * User space copies the value while a close runs, and takes @last as
	 * whole when hist[head - 1] equals it (struct slackgov_target_state):
	 * the ring's copy is written after every other field, head after it.
	 */
	barrier();
	st->hist[st->head % SLACKGOV_HISTORY] = *w;
	barrier();
	st->head++;
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

#endif /* __SG_WINDOW_BPF_H */
