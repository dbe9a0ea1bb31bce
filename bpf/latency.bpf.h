/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latency.bpf.h - each request's server-side latency, for TCP targets: from
 * the arrival of its first byte at the socket to the end of the send that
 * answers it, in two parts (queueing, service); per window a histogram and
 * its percentiles, and a decayed histogram of the recent requests.
 * Included by slackgov.bpf.c after its maps: one object.
 */
#ifndef __SG_LATENCY_BPF_H
#define __SG_LATENCY_BPF_H

/**
 * DOC: request latency
 *
 * For TCP targets, each request's server-side latency: from the arrival of
 * its first byte at the server's socket to the end of the send that answers
 * it, kept in two parts: *queueing* (arrival to the read that took it) and
 * *service* (that read to the end of the answering send).  All of it in the
 * kernel, from three events:
 *
 * 1. **Arrival** (``tp_btf/tcp_probe``, at the top of
 *    ``tcp_rcv_established()``, for every segment received by an
 *    established socket of the machine).  A socket that a target thread has
 *    read from has socket-local storage (``socks``); any other socket has
 *    none and costs one lookup.  A segment with payload
 *    (``end_seq - seq``, less a FIN) stamps the socket: ``first_ns`` (the
 *    oldest unread data) if it had no unread stamp, and always ``last_ns``;
 *    if it brings new data in order (it starts at or before ``rcv_nxt`` and
 *    ends past it), its end sequence number and arrival are appended to the
 *    socket's byte map, the arrival of each unread segment (SG_LAT_STAMPS =
 *    8 of them; when they are full, the last one takes the newer segments
 *    and dates them all from the newest).  When the reader owns the socket
 *    at that moment (it is inside its read), the segment waits in the
 *    socket's backlog and the tracepoint fires when the reader releases the
 *    socket: that stamp is late by the rest of the read.
 *
 * 2. **Read** (``tp_btf/tcp_rcv_space_adjust``, in the reader's context
 *    after each skb ``tcp_recvmsg()`` copies; ``copied_seq`` has advanced).
 *    If the current thread is a target's and in a recv-family call, the
 *    socket gets its storage if it had none, and on the first such event of
 *    the call the request's arrival is the socket's ``first_ns`` (none: the
 *    read's own time, queueing 0), and the read time is noted.  The stamps
 *    of the segments the read reached move to the thread (a segment read in
 *    part stays in the socket too), and the socket's ``first_ns`` becomes
 *    the arrival of its oldest unread stamped segment; without stamps, it
 *    is cleared when everything received was read (``rcv_nxt ==
 *    copied_seq``), else set to ``last_ns``, a lower bound of the unread
 *    data's first arrival.  The recv's
 *    fd (its first argument) was noted at its entry (``sys_enter``, or
 *    its fentry: DOC "hooks"); the request is *pending* on the thread
 *    from the recv's exit (``sys_exit`` or fexit) if it returned data.
 *
 * 3. **Answer**: the exit (``sys_exit`` or fexit) of a send-family call
 *    of the same thread on the same fd that sent at least one byte.  ``latency = now -
 *    arrival``, ``queueing = read - arrival``, ``service = now - read``,
 *    added to the open window (atomic adds: count, sums, and the bucket
 *    ``slackgov_lat_bucket(latency in us)`` of the window's histogram).
 *    Every answer of the read is timed, as the send family counts answers
 *    (``rps``): the first from the read's oldest byte; answer j (j >= 1)
 *    from the arrival of the byte j request sizes past it, the request it
 *    answers when the read's requests are of one size (a protocol's gets,
 *    a pipelined client's calls), with the size the thread's bytes read per
 *    answer over its recent reads (``lat_req_bytes``: each read whose
 *    answers are over adds a quarter of its own figure); without a size
 *    yet, or past the read's stamps, from the newest byte the read took
 *    (``rd_last_ns``, ``last_ns`` when it read), a lower bound of the
 *    request's arrival.  The read's answers end at its thread's next wait
 *    (``lat_wait()``) or read.
 *
 * Attribution:
 *
 * - Several requests in one read (pipelining, or a backlog read at once),
 *   answered one send each: each from its own arrival, found in the byte
 *   map one request size per answer past the oldest byte, so that the
 *   requests that waited behind the first one's service, the tail of a
 *   busy server, are timed with their wait in the socket.  Timed from the
 *   newest byte read instead, memcached's multi-gets in the emulated guest
 *   showed half their client's p99 under a slow policy (evaluation.rst),
 *   and the SLO law held a tail shorter than the clients'.  Requests of
 *   unequal sizes are placed by the mean size, so a later answer can be
 *   dated a little early or late; the first is always exact.  One send
 *   for all of them: one request, the oldest's latency, their most.
 * - One answer in several sends (a header then a body, a large answer in
 *   pieces): one request counts once per send, as in ``rps``, and the
 *   bytes per answer are a fraction of a request, so each send is dated
 *   within the request it belongs to, up to the end of the last.
 * - A thread's first read of a connection gives no size (the socket had no
 *   stamps yet), and a server whose requests are read in pieces by one
 *   thread and answered by another gives none at all: later answers are
 *   then timed from the newest byte read.
 * - A second read on the same socket before the first answer (a request in
 *   several segments, or read in pieces) keeps the first arrival; a read on
 *   another socket before it replaces the pending request, which is not
 *   timed.  The socket is told by its fd and its cookie: a request left
 *   unanswered (its send failed: the client had gone) must not date the
 *   next connection that gets the same fd number.
 * - Keep-alive connections: each request is timed from its own first byte,
 *   since a read that empties the socket clears its stamp.
 * - The first request of a connection: the socket has no storage until a
 *   target thread first reads it, so its arrival is that read (queueing
 *   0); data that arrives before the connection is established (with the
 *   handshake's last ACK) is not seen by ``tcp_probe`` either.
 * - Blind: a request answered by another thread than the one that read it
 *   (not timed; a later send on the same fd by the reader would time it
 *   against the old arrival, even on a new connection that got the fd
 *   and was not read yet), a send that answers nothing before the
 *   thread's next wait or read (a push: timed as one more answer), UDP
 *   and other non-TCP sockets (no arrival, no read event: not timed),
 *   io_uring and ``splice``/``sendfile`` paths that are not send-family
 *   syscalls, and TLS offload or other in-kernel consumers of the socket.  The time before the first byte reaches the
 *   socket (NIC, softirq backlog) and after the send returns (the answer
 *   in the send buffer, the network) is the client's, not the server's.
 *
 * Per window: ``nr_lat``, the means of the two parts (``queue_us``,
 * ``svc_us``), and from the window's histogram p50/p90/p99 and
 * ``lat_win_us``, the percentile at the target's SLO's ``slo_q`` (p99
 * without an SLO).  Inside a bucket, a percentile is interpolated linearly
 * between its bounds (``slackgov_lat_lo(b)`` and ``slackgov_lat_lo(b + 1)``),
 * so that it is not biased up by up to a bucket's width (12.5 %).  At the
 * window's close its buckets are added to the target's cumulative
 * histogram (``lat_hist``, ``total_lat``, ``total_lat_ns``,
 * ``total_queue_ns``) and to a *recent* histogram of two halves: the
 * current half takes the windows until it is SLACKGOV_LAT_RECENT_MS / 2 =
 * 1 s old or holds SLACKGOV_LAT_RECENT_REQS / 2 = 1000 requests; then it
 * becomes the previous half and the old previous one is dropped.  A half
 * that started 2 s ago or more is dropped too.  So the horizon is a hard
 * one: between 1000 and 2000 requests or 1 and 2 s, whichever is shorter,
 * and no request older than 2 s counts.  A decayed histogram has no such
 * bound: after an overload of a few thousand slow requests, an exponential
 * forgetting with a 2 s constant keeps them above 1 % of the ~160 requests
 * of a light load for ~12 s, and the governor holds a high frequency for a
 * tail that is long gone.  ``lat_q_us`` is read from the two halves at
 * ``slo_q``: the tail of the recent requests, steady where a 10 ms window
 * holds a few requests only.  1000 to 2000 requests, so that at high rates
 * p99 rests on 10-20 requests above it (one outlier moves it by one rank
 * in ten, not to the maximum) while a tail that rises shows at once: p99
 * moves as soon as the slow new requests are 1 % of the horizon (10-20 ms
 * of them at any rate).  1 to 2 s, so that at low rates the tail still
 * follows the frequency the governor chose within seconds (at 80 req/s,
 * 80-160 requests: p99 is then about the largest or second largest), and
 * a tail from before an idle spell is gone when the requests come back.
 * With no request the recent histogram does not change.  Windows with requests timed against an SLO count in
 * ``total_slo_windows``, those whose ``lat_win_us`` exceeded ``slo_us`` in
 * ``total_slo_over``.
 *
 * Requests over the budget: the module answers each sample of an SLO
 * target with T, the SLO less its margin (slackgov_report()'s return;
 * the margin may be the module's knob, which only the module knows); each
 * request timed in the windows that follow and longer than T counts in
 * ``nr_over``, and the window carries the T it was counted against
 * (``budget_us``; 0 until the module answered, or without a module: then
 * nothing is counted).  The governor's outer loop holds the share of
 * requests over T at the SLO's 1 - q (kmod/control.c, step 2): a count,
 * not a percentile, because the pooled percentile of a period is what the
 * SLO names, and a count adds up over windows exactly where percentiles
 * do not.  A request counted over T while the window's close walks its
 * buckets may fall in the next window's count: a window never counts more
 * over T than it timed.
 */

/* A half of the recent histogram (see the DOC block): requests, ns. */
#define SG_LAT_HALF_REQS	((__u64)SLACKGOV_LAT_RECENT_REQS / 2)
#define SG_LAT_HALF_NS		(SLACKGOV_LAT_RECENT_MS * 1000000ULL / 2)
/* Fixed point of the percentile ranks: 1/256 of a request, so that a
 * percentile is interpolated inside a bucket of a few requests. */
#define SG_LAT_FP		256ULL

/* Index @i of a stamp array, bounded for the verifier. */
#define SG_ST(i)	((i) & (SG_LAT_STAMPS - 1))

/* Append the stamp (@end, @ns) to the @n stamps of @ends/@nss; when they are
 * full, the last one takes it (its bytes then date from the later arrival,
 * a lower bound of their latency).  Returns the new count. */
static __always_inline __u32 lat_stamp_add(__u32 *ends, __u64 *nss, __u32 n, __u32 end, __u64 ns)
{
	__u32 i = n < SG_LAT_STAMPS ? n : SG_LAT_STAMPS - 1;

	ends[SG_ST(i)] = end;
	nss[SG_ST(i)] = ns;
	return i + 1;
}

/* A segment with payload arrived at a socket with storage (tcp_probe). */
static __always_inline void lat_arrival(struct sock *sk, struct sk_buff *skb)
{
	struct tcp_skb_cb *cb = (struct tcp_skb_cb *)skb->cb;
	struct tcp_sock *tp;
	struct sg_sock *ss;
	__u32 len, seq, nxt;
	__u64 now;

	ss = bpf_sk_storage_get(&socks, sk, 0, 0);
	if (!ss)
		return;
	seq = BPF_CORE_READ(cb, seq);
	len = BPF_CORE_READ(cb, end_seq) - seq;
	if (BPF_CORE_READ(cb, tcp_flags) & 0x01 /* TCPHDR_FIN: one sequence number */)
		len--;
	if (!len || len > 0x7fffffff)
		return;
	now = bpf_ktime_get_ns();
	if (!ss->first_ns)
		ss->first_ns = now;
	ss->last_ns = now;
	/* the byte map: in-order new data only (not a retransmission of
	 * data received, nor a segment past a hole: its bytes, once the hole
	 * is filled, are dated by the newest stamp read) */
	tp = bpf_skc_to_tcp_sock(sk);
	if (!tp)
		return;
	nxt = tp->rcv_nxt;
	if ((__s32)(seq - nxt) > 0 || (__s32)(seq + len - nxt) <= 0)
		return;
	if (!ss->st_n)
		ss->st_start = nxt;
	ss->st_n = lat_stamp_add(ss->st_end, ss->st_ns, ss->st_n, seq + len, now);
}

/* An arrival stamp read at @now: itself, or @now if there is none (0) or it
 * is later (a segment stamped on another CPU after @now was read). */
static __always_inline __u64 lat_stamp(__u64 t, __u64 now)
{
	return t && t <= now ? t : now;
}

/* A read on the thread's fd now starts a new pending request: none is
 * pending, it was on another fd or another socket (its fd closed and
 * reused), or it was answered. */
static __always_inline bool lat_new_pending(const struct sg_thread *th)
{
	return !th->lat_read_ns || th->lat_fd != th->fd || th->lat_ck != th->rd_ck ||
	       th->lat_answered;
}

/* The pending read's answers are over: fold its bytes per answer into the
 * thread's request size. */
static __always_inline void lat_read_end(struct sg_thread *th)
{
	__u32 bytes = th->lat_seq1 - th->lat_seq0, per;

	if (!th->lat_read_ns || !th->lat_answered || !bytes || bytes > 0x7fffffff)
		return;
	per = bytes / th->lat_answered;
	th->lat_req_bytes = th->lat_req_bytes ? (3 * th->lat_req_bytes + per) / 4 : per;
}

/* A TCP socket's data was copied to the current thread (tcp_rcv_space_adjust). */
static __always_inline void lat_read(struct sock *sk)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 i, k, n, copied, start;
	struct tcp_sock *tp;
	struct sg_thread *th;
	struct sg_sock *ss;
	__u64 now;

	th = bpf_task_storage_get(&threads, task, 0, 0);
	if (!th || th->slot == SG_NO_SLOT || th->kind != SG_RECV)
		return;
	ss = bpf_sk_storage_get(&socks, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	tp = bpf_skc_to_tcp_sock(sk);
	if (!ss || !tp)
		return;
	now = bpf_ktime_get_ns();
	copied = tp->copied_seq;
	if (!th->rd_ns) {		/* the first read of this call */
		th->rd_ck = bpf_get_socket_cookie(sk);
		th->rd_arr_ns = lat_stamp(ss->first_ns, now);
		th->rd_ns = now;
		/* a new pending read (as lat_recv_done() will decide; every
		 * read of a per-connection target): its bytes start at the
		 * oldest unread stamped one */
		if (th->conn) {
			__u32 tgid = bpf_get_current_pid_tgid() >> 32;

			if (ss->conn_tgid != tgid || ss->conn_fd != th->fd) {
				ss->conn_tgid = tgid;
				ss->conn_fd = th->fd;
			}
		}
		if (th->conn || lat_new_pending(th)) {
			if (!th->conn)
				lat_read_end(th);
			th->lat_nst = 0;
			th->lat_st_rd = now;
			th->lat_seq0 = ss->st_n ? ss->st_start : copied;
		}
	}
	th->rd_last_ns = lat_stamp(ss->last_ns, now);
	th->lat_seq1 = copied;
	/* the stamps of the bytes read go to the thread: those read whole
	 * leave the socket, one read in part stays there too */
	n = ss->st_n < SG_LAT_STAMPS ? ss->st_n : SG_LAT_STAMPS;
	start = ss->st_start;
	for (k = 0; k < n; k++) {
		if ((__s32)(start - copied) >= 0)
			break;		/* unread */
		th->lat_nst = lat_stamp_add(th->lat_st_end, th->lat_st_ns, th->lat_nst,
					    ss->st_end[SG_ST(k)], ss->st_ns[SG_ST(k)]);
		if ((__s32)(ss->st_end[SG_ST(k)] - copied) > 0)
			break;		/* read in part */
		start = ss->st_end[SG_ST(k)];
	}
	for (i = 0; i < SG_LAT_STAMPS; i++) {
		if (i + k >= n)
			break;
		ss->st_end[SG_ST(i)] = ss->st_end[SG_ST(i + k)];
		ss->st_ns[SG_ST(i)] = ss->st_ns[SG_ST(i + k)];
	}
	ss->st_n = n - k;
	if (ss->st_n) {
		ss->st_start = copied;
		ss->first_ns = ss->st_ns[0];
	} else {
		ss->first_ns = tp->rcv_nxt == copied ? 0 : ss->last_ns;
	}
}

/* sys_enter of a send or recv of a target thread: its fd, no TCP read yet. */
static __always_inline void lat_enter(struct sg_thread *th, int fd)
{
	th->fd = fd;
	th->rd_ns = 0;
}

/* A recv returned data: the request(s) it read are pending on the thread. */
static __always_inline void lat_recv_done(struct sg_thread *th)
{
	if (!th->rd_ns)
		return;			/* not a TCP read */
	if (lat_new_pending(th)) {
		th->lat_arr_ns = th->rd_arr_ns;
		th->lat_read_ns = th->rd_ns;
		th->lat_fd = th->fd;
		th->lat_ck = th->rd_ck;
		th->lat_answered = 0;
	}
	th->lat_last_ns = th->rd_last_ns;	/* the newest byte read so far */
	th->rd_ns = 0;
}

/* The thread waits for events: a read it answered has had all its answers. */
static __always_inline void lat_wait(struct sg_thread *th)
{
	if (th->lat_answered) {
		lat_read_end(th);
		th->lat_read_ns = 0;
	}
}

/* The arrival stamp of the byte at sequence number @seq of the thread's
 * read: the stamp of the segment that holds it, 0 past its stamps (also
 * conn.bpf.h's, per request start). */
static __always_inline __u64 lat_stamp_at(const struct sg_thread *th, __u32 seq)
{
	__u32 i;

	for (i = 0; i < SG_LAT_STAMPS; i++) {
		if (i >= th->lat_nst)
			break;
		if ((__s32)(th->lat_st_end[SG_ST(i)] - seq) > 0)
			return th->lat_st_ns[SG_ST(i)];
	}
	return 0;
}

/*
 * The arrival of the request that answer @j (j >= 1) of the pending read
 * answers: the stamp of the byte @j request sizes past the read's oldest,
 * if the read's stamps reach it; else 0.
 */
static __always_inline __u64 lat_nth_arrival(struct sg_thread *th, __u32 j)
{
	__u64 off = (__u64)j * th->lat_req_bytes;

	if (!th->lat_req_bytes || th->lat_st_rd != th->lat_read_ns ||
	    off >= (__u32)(th->lat_seq1 - th->lat_seq0))
		return 0;
	return lat_stamp_at(th, th->lat_seq0 + (__u32)off);
}

/* @n requests of the target in @slot that arrived at @arr, were read at
 * @rd and answered at @now: into the open window (count, sums, histogram,
 * over the budget).  A global function: its bucket's five branches are
 * walked once, not in every iteration of a caller's loop over requests. */
__noinline int sg_lat_add(__u32 slot, __u64 arr, __u64 rd, __u64 now, __u64 n)
{
	struct sg_acc *a = bpf_map_lookup_elem(&acc, &slot);
	__u64 lat;
	__u32 b;

	if (!a || arr > rd || rd > now)
		return 0;
	lat = now - arr;
	b = slackgov_lat_bucket(lat / 1000);
	if (b >= SLACKGOV_LAT_BUCKETS)
		b = SLACKGOV_LAT_BUCKETS - 1;
	if (a->lat_budget_ns && lat > a->lat_budget_ns)
		__sync_fetch_and_add(&a->lat_over, n);
	__sync_fetch_and_add(&a->lat_win[b], n);
	__sync_fetch_and_add(&a->lat_n, n);
	__sync_fetch_and_add(&a->lat_ns, lat * n);
	__sync_fetch_and_add(&a->lat_queue_ns, (rd - arr) * n);
	__sync_fetch_and_add(&a->lat_svc_ns, (now - rd) * n);
	return 0;
}

/*
 * A send returned at @now: if it answers the pending read, time it, the
 * first answer from the read's oldest byte, the next ones from the byte as
 * many request sizes past it (else its newest byte).
 */
static __always_inline void lat_answer(struct sg_thread *th, struct sg_acc *a, __u64 now)
{
	__u64 rd = th->lat_read_ns, arr, nth;

	if (!rd || th->lat_fd != th->fd)
		return;
	arr = th->lat_arr_ns;
	if (th->lat_answered) {		/* a later answer */
		nth = lat_nth_arrival(th, th->lat_answered);
		arr = th->lat_last_ns < rd ? th->lat_last_ns : rd;
		if (nth && nth < arr)
			arr = nth > th->lat_arr_ns ? nth : th->lat_arr_ns;
	}
	th->lat_answered++;
	sg_lat_add(th->slot, arr, rd, now, 1);
}

/* State of lat_close()'s walks over the buckets. */
struct sg_lat_walk {
	__u32 slot, sidx;
	__u64 wtotal;			/* the window's requests (sg_lat_take) */
	__u64 wrank[SG_LAT_NQ];		/* ranks of its percentiles, SG_LAT_FP units */
	__u64 wout[SG_LAT_NQ];		/* percentile + 1, us; 0 = not reached */
	__u64 rrank, rout;		/* the same for the recent histogram */
	__u32 cur;			/* its half that takes the window */
};

/*
 * Mark bucket @b (@cum below it, @c in it) in @at if it is the one where
 * @rank is reached: cum < rank <= cum + c, which holds at one bucket at most
 * and never for rank 0 or an empty bucket.  Without a branch (sg_lt()): the
 * verifier walks the loop bucket by bucket, and five branches per bucket
 * made it walk ~190000 instructions per program, most of the load's time.
 */
static __always_inline void lat_mark(__u64 rank, __u64 cum, __u64 c, __u32 b,
				     struct sg_lat_at *at)
{
	__u64 hit = sg_lt(cum, rank) * (sg_lt(cum + c, rank) ^ 1);

	at->hit += hit;
	at->b += b * hit;
	at->cum += cum * hit;
	at->c += c * hit;
}

/* The percentile @at found, + 1, us; 0 if its rank was not reached. */
static __always_inline __u64 lat_pctl(__u64 rank, const struct sg_lat_at *at)
{
	if (!at->hit)
		return 0;
	return 1 + slackgov_lat_interp(at->b, rank, at->cum, at->c);
}

/*
 * The walks are global functions: the verifier checks each once, with its
 * loop, and not again at each of maybe_close()'s call sites (nor, as 6.8 and
 * later do with bpf_loop() callbacks, once per iteration per call site).
 */

/* Take the window's buckets into the closer's scratch copy; count them. */
__noinline int sg_lat_take(struct sg_lat_walk *x)
{
	struct sg_lat_hist *h;
	struct sg_acc *a;
	__u32 slot, sidx, i;
	__u64 n = 0;

	if (!x)
		return 0;
	slot = x->slot;
	sidx = x->sidx;
	a = bpf_map_lookup_elem(&acc, &slot);
	h = bpf_map_lookup_elem(&lat_scratch, &sidx);
	if (!a || !h)
		return 0;
	for (i = 0; i < SLACKGOV_LAT_BUCKETS; i++) {
		h->b[i] = __sync_lock_test_and_set(&a->lat_win[i], 0);
		n += h->b[i];
	}
	x->wtotal = n;
	return 0;
}

/* The window's percentiles; its buckets into the cumulative histogram and
 * the recent one's current half; the recent one's percentile. */
__noinline int sg_lat_fold(struct sg_lat_walk *x)
{
	struct slackgov_target_state *st;
	__u64 c, r, wcum = 0, rcum = 0;
	struct sg_lat_at *at;
	struct sg_lat_hist *h;
	struct sg_acc *a;
	__u32 slot, sidx, i, k;

	if (!x)
		return 0;
	slot = x->slot;
	sidx = x->sidx;
	k = x->cur & 1;
	a = bpf_map_lookup_elem(&acc, &slot);
	st = bpf_map_lookup_elem(&windows, &slot);
	h = bpf_map_lookup_elem(&lat_scratch, &sidx);
	if (!a || !st || !h)
		return 0;
	at = h->at;		/* the window's percentiles, then the recent one's */
	__builtin_memset(at, 0, sizeof(h->at));
	for (i = 0; i < SLACKGOV_LAT_BUCKETS; i++) {
		c = h->b[i];
		st->lat_hist[i] += c;
		a->lat_recent[k][i] += c;
		c *= SG_LAT_FP;
		lat_mark(x->wrank[0], wcum, c, i, &at[0]);
		lat_mark(x->wrank[1], wcum, c, i, &at[1]);
		lat_mark(x->wrank[2], wcum, c, i, &at[2]);
		lat_mark(x->wrank[3], wcum, c, i, &at[3]);
		wcum += c;
		r = (a->lat_recent[0][i] + a->lat_recent[1][i]) * SG_LAT_FP;
		lat_mark(x->rrank, rcum, r, i, &at[SG_LAT_NQ]);
		rcum += r;
	}
	x->wout[0] = lat_pctl(x->wrank[0], &at[0]);
	x->wout[1] = lat_pctl(x->wrank[1], &at[1]);
	x->wout[2] = lat_pctl(x->wrank[2], &at[2]);
	x->wout[3] = lat_pctl(x->wrank[3], &at[3]);
	x->rout = lat_pctl(x->rrank, &at[SG_LAT_NQ]);
	return 0;
}

/* Empty half @half of @slot's recent histogram (under the closing flag): a
 * walk of its own, so that the fold's walk has no branch per bucket (the
 * verifier walks every bucket of it). */
__noinline int sg_lat_clear(__u32 slot, __u32 half)
{
	struct sg_acc *a = bpf_map_lookup_elem(&acc, &slot);
	__u32 i;

	if (!a)
		return 0;
	half &= 1;
	for (i = 0; i < SLACKGOV_LAT_BUCKETS; i++)	/* volatile: no memset call */
		*(volatile __u64 *)&a->lat_recent[half][i] = 0;
	return 0;
}

/* A slot changes owner: no request, no history (under the closing flag). */
__noinline int sg_lat_reset(__u32 slot)
{
	struct sg_acc *a = bpf_map_lookup_elem(&acc, &slot);
	__u32 i;

	if (!a)
		return 0;
	a->lat_n = a->lat_ns = a->lat_queue_ns = a->lat_svc_ns = a->lat_q_us = 0;
	a->lat_rn[0] = a->lat_rn[1] = a->lat_rstart_ns[0] = a->lat_rstart_ns[1] = 0;
	for (i = 0; i < SLACKGOV_LAT_BUCKETS; i++) {	/* volatile: no memset call */
		*(volatile __u64 *)&a->lat_win[i] = 0;
		*(volatile __u64 *)&a->lat_recent[0][i] = 0;
		*(volatile __u64 *)&a->lat_recent[1][i] = 0;
	}
	return 0;
}

/* Time from @t to @now, 0 if @t is later (stamped on another CPU). */
static __always_inline __u64 lat_age(__u64 t, __u64 now)
{
	return now > t ? now - t : 0;
}

static __always_inline __u32 lat_u32(__u64 v)
{
	return v > 0xffffffffULL ? 0xffffffffU : (__u32)v;
}

/*
 * The window of @slot closes (under the closing flag): its latency figures
 * into @w, its buckets into the cumulative and recent histograms of @st and
 * @a, and the SLO counts: two walks over the buckets (sg_lat_take(),
 * sg_lat_fold()).
 */
static __always_inline void lat_close(__u32 slot, __u32 sidx, struct sg_acc *a,
				      struct slackgov_target_state *st,
				      struct slackgov_window *w, __u64 now)
{
	struct sg_lat_walk x = { .slot = slot, .sidx = sidx };
	__u64 n, q, qs, ss, over;
	__u32 k;

	w->slo_us = a->slo_us;
	w->slo_q = a->slo_q;
	w->budget_us = a->lat_budget_ns / 1000;
	q = a->slo_us && a->slo_q && a->slo_q <= SLACKGOV_Q_ONE ? a->slo_q : SLACKGOV_Q_DEFAULT;
	sg_lat_take(&x);
	n = xchg0(&a->lat_n);
	over = xchg0(&a->lat_over);
	qs = xchg0(&a->lat_queue_ns);
	ss = xchg0(&a->lat_svc_ns);
	w->queue_us = n ? qs / n / 1000 : 0;
	w->svc_us = n ? ss / n / 1000 : 0;
	st->total_lat_ns += xchg0(&a->lat_ns);
	st->total_queue_ns += qs;
	if (!x.wtotal) {		/* no request: the recent ones did not change */
		w->lat_q_us = a->lat_q_us;
		return;
	}
	x.wrank[0] = 5000 * x.wtotal * SG_LAT_FP / SLACKGOV_Q_ONE;
	x.wrank[1] = 9000 * x.wtotal * SG_LAT_FP / SLACKGOV_Q_ONE;
	x.wrank[2] = 9900 * x.wtotal * SG_LAT_FP / SLACKGOV_Q_ONE;
	x.wrank[3] = q * x.wtotal * SG_LAT_FP / SLACKGOV_Q_ONE;
	/* the current half of the recent histogram, and its other half */
	k = a->lat_rcur & 1;
	if (!a->lat_rstart_ns[k] || lat_age(a->lat_rstart_ns[k], now) >= SG_LAT_HALF_NS ||
	    a->lat_rn[k] >= SG_LAT_HALF_REQS) {
		k ^= 1;
		sg_lat_clear(slot, k);
		a->lat_rcur = k;
		a->lat_rn[k] = 0;
		a->lat_rstart_ns[k] = now;
	}
	a->lat_rn[k] += x.wtotal;
	if (a->lat_rn[k ^ 1] && lat_age(a->lat_rstart_ns[k ^ 1], now) >= 2 * SG_LAT_HALF_NS) {
		sg_lat_clear(slot, k ^ 1);
		a->lat_rn[k ^ 1] = 0;
	}
	x.cur = k;
	x.rrank = q * (a->lat_rn[0] + a->lat_rn[1]) * SG_LAT_FP / SLACKGOV_Q_ONE;
	sg_lat_fold(&x);
	w->nr_lat = lat_u32(x.wtotal);
	/* a request counted over T while the walk ran may fall in the next
	 * window: never more over T than timed (the module checks) */
	w->nr_over = lat_u32(over < x.wtotal ? over : x.wtotal);
	w->lat_p50_us = x.wout[0] ? lat_u32(x.wout[0] - 1) : 0;
	w->lat_p90_us = x.wout[1] ? lat_u32(x.wout[1] - 1) : 0;
	w->lat_p99_us = x.wout[2] ? lat_u32(x.wout[2] - 1) : 0;
	w->lat_win_us = x.wout[3] ? lat_u32(x.wout[3] - 1) : 0;
	w->lat_q_us = x.rout ? lat_u32(x.rout - 1) : 0;
	a->lat_q_us = w->lat_q_us;
	st->total_lat += x.wtotal;
	if (w->slo_us && x.wtotal) {
		st->total_slo_windows++;
		if (w->lat_win_us > w->slo_us)
			st->total_slo_over++;
	}
}

#endif /* __SG_LATENCY_BPF_H */
