/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conn.bpf.h - requests tracked per connection (every --proto but thread):
 * each request read is queued on its connection, keyed by the process and
 * the fd, with its own arrival, and timed by the next send on that
 * connection, whichever thread of the process makes it.
 * Included by slackgov.bpf.c after latency.bpf.h: one object.
 */
#ifndef __SG_CONN_BPF_H
#define __SG_CONN_BPF_H

#include "proto.bpf.h"

/**
 * DOC: requests per connection
 *
 * With ``--proto`` other than ``thread`` (struct slackgov_target's
 * ``proto``), a target's requests belong to its connections, not to the
 * threads that happen to read and answer them: a Go server reads a request
 * on one thread and writes its answer from another; a front thread reads
 * and a pool answers; redis reads eight pipelined requests at once and
 * answers them with one write; an HTTP/2 server answers ten streams of one
 * connection in any order and with several writes each.
 *
 * 1. **Connection.**  A TCP socket a target's process reads, known by its
 *    process and fd (``conns``, an LRU hash of SG_MAX_CONNS entries) and by
 *    its socket cookie, so that a new connection on a reused fd starts
 *    afresh at its first read.  The entry goes when the socket closes
 *    (``inet_sock_set_state`` to FIN_WAIT1, LAST_ACK or CLOSE), so that a
 *    send on the fd's next connection never answers the old one's requests.
 * 2. **Requests read.**  At the exit of a recv that read TCP data, the
 *    requests that start in it are queued on the connection, each with the
 *    arrival of its own first byte (the byte map of DOC "request latency",
 *    point 2) and the read's time.  ``conn``: a read that finds no request
 *    pending is one request (a read while one is pending continues it).
 *    ``resp``, ``memcache``, ``http1``, ``http2``: the parser (DOC "request
 *    parsers") says where each request starts.  ``auto``: the connection's
 *    first 4 bytes choose among them (redis's ``*``, HTTP/2's preface, an
 *    HTTP method in capitals, a memcached command), else ``conn``.  Up to
 *    SG_CONN_REQS requests wait with their own arrival; more are dated by
 *    the newest byte read (a lower bound of their latency).
 * 3. **Answer.**  A send of at least one byte on the connection, by any
 *    thread of the process, answers every request queued on it: each is
 *    timed from its arrival to the send's end (queueing: to its read;
 *    service: from it) and counted in ``nr_req``, so ``rps`` counts
 *    requests, not sends.  A send with nothing queued (a second write of
 *    one answer, an HTTP/2 SETTINGS or WINDOW_UPDATE frame, a push) counts
 *    nothing.
 *
 * What it gets wrong, by design: a server that answers pipelined requests
 * one send each has its later requests timed by the first send (early:
 * server-side latency is then a lower bound); an HTTP/2 server that writes
 * a control frame before its answers has them timed by it; the threads of
 * one connection race on its queue without a lock (tracing programs cannot
 * take bpf_spin_lock), which can lose a request in rare interleavings.
 * Blind as with the thread rules: UDP (no TCP read event, no byte map:
 * a datagram server needs its own key, the peer, and is not tracked),
 * io_uring, TLS (its bytes are encrypted at the socket; ``conn`` still
 * counts its requests when one TLS record carries one request).
 */

/* Requests queued per connection with their own arrival (a power of 2). */
#define SG_CONN_REQS		16
/* Connections tracked at once, all targets; the least recently used go. */
#define SG_MAX_CONNS		8192

#define SG_TCP_FIN_WAIT1	4	/* include/net/tcp_states.h */
#define SG_TCP_CLOSE		7
#define SG_TCP_LAST_ACK		9

struct sg_conn_key {
	__u32 tgid;
	__s32 fd;		/* -1 for a TLS connection (tls.bpf.h) */
	__u64 ssl;		/* ... then its SSL object's address, else 0 */
};

struct sg_conn {		/* conns map value */
	__u64 cookie;		/* the socket's cookie */
	__u32 proto;		/* SLACKGOV_PROTO_*, auto resolved at the first read */
	__u32 n;		/* requests queued in arr/rd */
	__u64 extra;		/* ... and past them, dated last_arr/last_rd */
	__u64 last_arr, last_rd;
	struct sg_pstate ps;	/* the parser's place */
	__u64 arr[SG_CONN_REQS];
	__u64 rd[SG_CONN_REQS];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SG_MAX_CONNS);
	__type(key, struct sg_conn_key);
	__type(value, struct sg_conn);
} conns SEC(".maps");

/* an all-zero value, to create entries from */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sg_conn);
} conn_zero SEC(".maps");

#define SG_CR(i)	((i) & (SG_CONN_REQS - 1))

/* The connection @k (its socket's @cookie), created or started afresh
 * (another socket on that fd) for a read. */
static __always_inline struct sg_conn *conn_get(struct sg_conn_key *k, __u64 cookie, __u32 proto,
						bool create)
{
	struct sg_conn *c = bpf_map_lookup_elem(&conns, k), *z;
	__u32 zero = 0;

	if (!create || (c && c->cookie == cookie))
		return c;
	if (!c) {
		z = bpf_map_lookup_elem(&conn_zero, &zero);
		if (!z || bpf_map_update_elem(&conns, k, z, BPF_NOEXIST))
			return NULL;
		c = bpf_map_lookup_elem(&conns, k);
		if (!c)
			return NULL;
	}
	c->cookie = cookie;
	c->proto = proto;
	c->n = 0;
	c->extra = 0;
	__builtin_memset(&c->ps, 0, sizeof(c->ps));
	return c;
}

/* Queue a request that arrived at @arr and was read at @rd. */
static __always_inline void conn_push(struct sg_conn *c, __u64 arr, __u64 rd)
{
	__u32 n = c->n;

	if (arr > rd)
		arr = rd;
	if (n < SG_CONN_REQS) {
		c->arr[SG_CR(n)] = arr;
		c->rd[SG_CR(n)] = rd;
		c->n = n + 1;
	} else {
		c->extra++;
		c->last_arr = arr;
		c->last_rd = rd;
	}
}

/* Arrival of the byte at sequence number @seq of this call's read: the
 * stamp of the segment that holds it (lat_read() moved them to the
 * thread); before the first, the read's oldest; past them, its newest. */
static __always_inline __u64 conn_arrival(const struct sg_thread *th, __u32 seq)
{
	if ((__s32)(seq - th->lat_seq0) < 0 || th->lat_st_rd != th->rd_ns)
		return th->rd_arr_ns;
	return lat_stamp_at(th, seq) ?: th->rd_last_ns;
}

/* Queue on @c a request read by @th at @rd that arrived at @arr, or (0)
 * with the byte at sequence number @seq.  Global: the walk over the
 * thread's stamps is checked once, not once per request start. */
__noinline int sg_conn_push_at(struct sg_thread *th, struct sg_conn *c, __u32 seq, __u64 arr,
			       __u64 rd)
{
	if (!th || !c)
		return 0;
	conn_push(c, arr ?: conn_arrival(th, seq), rd);
	return 0;
}

/* Parse the @ret bytes read into @ubuf (@ubuf_len: the part that is one
 * buffer) for @c's protocol; queue the requests that start in them, read at
 * @rd, each dated by the byte map (@arr 0) or all by @arr. */
static __always_inline void conn_parse(struct sg_thread *th, struct sg_conn *c, __u64 ubuf,
				       __u32 ubuf_len, __u32 ret, __u64 arr, __u64 rd)
{
	struct sg_parse *p;
	__u32 zero = 0, i, n, seq0 = th->lat_seq1 - ret;

	p = bpf_map_lookup_elem(&parse_scratch, &zero);
	if (!p)
		return;
	p->ps = c->ps;
	if (p->ps.st == SG_P_LOST) {	/* this read starts at a request */
		p->ps.st = SG_P_START;
		p->ps.skip = 0;
		p->ps.tok = 0;
		p->ps.num = 0;
	}
	p->proto = c->proto;
	p->off = p->base = p->blen = 0;
	p->len = ret < ubuf_len ? ret : ubuf_len;
	p->nstart = p->total = 0;
	p->ubuf = ubuf;
	bpf_loop(SG_PARSE_STEPS, parse_step, NULL, 0);
	/* bytes not parsed (past the first iovec, or the steps ran out):
	 * inside a payload they are passed over, else the place is lost */
	if (p->off < ret) {
		n = ret - p->off;
		if (p->ps.skip >= n)
			p->ps.skip -= n;
		else
			p->ps.st = SG_P_LOST;
	}
	c->ps = p->ps;
	n = p->nstart < SG_PARSE_STARTS ? p->nstart : SG_PARSE_STARTS;
	for (i = 0; i < SG_PARSE_STARTS; i++) {
		if (i >= n)
			break;
		sg_conn_push_at(th, c, seq0 + p->start[i & (SG_PARSE_STARTS - 1)], arr, rd);
	}
	if (p->total > n) {		/* the rest: dated by the newest byte */
		c->extra += p->total - n;
		c->last_arr = arr ?: th->rd_last_ns;
		c->last_rd = rd;
	}
}

/* A recv-family syscall @id of a per-connection target's thread starts
 * (@regs: its user registers): note its buffer, the first iovec's for
 * readv and recvmsg (recvmmsg, a datagram call, has none noted). */
static __always_inline void conn_enter(struct sg_thread *th, struct pt_regs *regs, long id)
{
	struct user_msghdr msg;
	struct iovec iov = {};

	th->ubuf = 0;
	th->ubuf_len = 0;
	if (id == NR_read || id == NR_recvfrom) {
		iov.iov_base = (void *)PT_REGS_PARM2_CORE_SYSCALL(regs);
		iov.iov_len = PT_REGS_PARM3_CORE_SYSCALL(regs);
	} else if (id == NR_readv) {
		if (bpf_probe_read_user(&iov, sizeof(iov), (void *)PT_REGS_PARM2_CORE_SYSCALL(regs)))
			return;
	} else if (id == NR_recvmsg) {
		if (bpf_probe_read_user(&msg, sizeof(msg), (void *)PT_REGS_PARM2_CORE_SYSCALL(regs)) ||
		    !msg.msg_iovlen || bpf_probe_read_user(&iov, sizeof(iov), msg.msg_iov))
			return;
	} else {
		return;
	}
	th->ubuf = (__u64)iov.iov_base;
	th->ubuf_len = iov.iov_len > 0x7fffffff ? 0x7fffffff : iov.iov_len;
}

/* A read, for sg_conn_read(): @ret > 0 bytes into @ubuf (@ubuf_len: the
 * part that is one buffer) at @rd on connection @k (its socket's @cookie),
 * the first of them arrived at @arr (0: the byte map dates each). */
struct sg_read {
	struct sg_conn_key k;
	__u64 cookie, ubuf, arr, rd;
	__u32 ubuf_len, ret, proto, pad;
};

/*
 * @r was read by @th: queue its requests on their connection, created or
 * started afresh as conn_get() says.  A global function, as the walks of
 * latency.bpf.h are: the verifier checks the connection's lookup, the
 * parse and their loops once, not in every path of each caller (inline,
 * 6.1's verifier ran out of its million instructions on sg_exit).
 */
__noinline int sg_conn_read(struct sg_thread *th, struct sg_read *r)
{
	struct sg_conn_key k;
	struct sg_conn *c;
	__u32 w = 0;

	if (!th || !r)
		return 0;
	k = r->k;		/* a key on the stack (6.1: no argument memory as a key) */
	c = conn_get(&k, r->cookie, r->proto, true);
	if (!c)
		return 0;
	if (c->proto == SLACKGOV_PROTO_AUTO) {
		if (r->ret < 4 || r->ubuf_len < 4 || bpf_probe_read_user(&w, 4, (void *)r->ubuf))
			c->proto = SLACKGOV_PROTO_CONN;
		else
			c->proto = proto_guess(w);
	}
	if (c->proto == SLACKGOV_PROTO_CONN) {
		if (!c->n && !c->extra)
			conn_push(c, r->arr ?: th->rd_arr_ns, r->rd);
		return 0;
	}
	conn_parse(th, c, r->ubuf, r->ubuf_len, r->ret, r->arr, r->rd);
	return 0;
}

/* A recv of @th (per-connection target) returned @ret > 0 bytes. */
static __always_inline void conn_recv(struct sg_thread *th, __u32 proto, long ret)
{
	struct sg_read r = {
		.k = { .tgid = bpf_get_current_pid_tgid() >> 32, .fd = th->fd },
		.cookie = th->rd_ck, .ubuf = th->ubuf, .ubuf_len = th->ubuf_len, .ret = ret,
		.rd = th->rd_ns, .proto = proto,
	};

	if (th->rd_ns)			/* a TCP read */
		sg_conn_read(th, &r);
}

/* A send on connection (@tgid, @fd, @ssl) of the target in @slot returned
 * data at @now: time and count what the connection has queued.  Global,
 * as sg_conn_read(); its arguments are scalars, since 6.1 takes no
 * pointer argument of a global function as a map key. */
__noinline int sg_conn_answer(__u32 tgid, __s32 fd, __u64 ssl, __u32 slot, __u64 now)
{
	struct sg_conn_key k = { .tgid = tgid, .fd = fd, .ssl = ssl };
	struct sg_conn *c;
	struct sg_acc *a;
	__u64 extra;
	__u32 i, n;

	a = bpf_map_lookup_elem(&acc, &slot);
	c = conn_get(&k, 0, 0, false);
	if (!a || !c || (!c->n && !c->extra))
		return 0;
	n = c->n < SG_CONN_REQS ? c->n : SG_CONN_REQS;
	extra = c->extra;
	c->n = 0;
	c->extra = 0;
	for (i = 0; i < SG_CONN_REQS; i++) {
		if (i >= n)
			break;
		sg_lat_add(slot, c->arr[SG_CR(i)], c->rd[SG_CR(i)], now, 1);
	}
	if (extra)
		sg_lat_add(slot, c->last_arr, c->last_rd, now, extra);
	count_cpu(a, slot, 0, n + extra);
	return 0;
}

/* A send of @th on its fd returned data at @now. */
static __always_inline void conn_answer(struct sg_thread *th, __u64 now)
{
	sg_conn_answer(bpf_get_current_pid_tgid() >> 32, th->fd, 0, th->slot, now);
}

/* A TCP socket that a per-connection target read leaves the established
 * states: its connection entry goes (@sk's storage names it). */
static __always_inline void conn_closed(struct sock *sk, int newstate)
{
	struct sg_conn_key k = {};
	struct sg_conn *c;
	struct sg_sock *ss;

	if (newstate != SG_TCP_FIN_WAIT1 && newstate != SG_TCP_LAST_ACK && newstate != SG_TCP_CLOSE)
		return;
	ss = bpf_sk_storage_get(&socks, sk, 0, 0);
	if (!ss || !ss->conn_tgid)
		return;
	k.tgid = ss->conn_tgid;
	k.fd = ss->conn_fd;
	ss->conn_tgid = 0;
	c = bpf_map_lookup_elem(&conns, &k);
	if (c && c->cookie == bpf_get_socket_cookie(sk))
		bpf_map_delete_elem(&conns, &k);
}

#endif /* __SG_CONN_BPF_H */
