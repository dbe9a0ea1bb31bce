/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tls.bpf.h - requests of TLS connections (slackctl target add --proto P
 * --tls LIBSSL): uprobes on OpenSSL's SSL_read and SSL_write hand the
 * plaintext to the per-connection parsers of conn.bpf.h, the connection
 * known by its SSL object.  Included by slackgov.bpf.c: one object.
 */
#ifndef __SG_TLS_BPF_H
#define __SG_TLS_BPF_H

/**
 * DOC: TLS
 *
 * A TLS server's socket carries records, not requests: with ``--tls
 * LIBSSL`` (the libssl the server maps, e.g.
 * ``/usr/lib/x86_64-linux-gnu/libssl.so.3``) a target's requests are read
 * where OpenSSL hands them to the server, as Grafana Beyla and Pixie do:
 *
 * 1. ``SSL_read(ssl, buf, num)`` (and ``SSL_read_ex``, whose count is in
 *    its fourth argument): its entry notes the SSL object and the
 *    buffer; its return (a uretprobe) parses the plaintext it returned
 *    with the target's ``--proto`` (DOC "request parsers"; ``http2`` is
 *    HTTP/2 over TLS, ``http1`` HTTPS), on the connection keyed by the
 *    process and the SSL object's address.  A request's arrival is that of
 *    the first byte of the socket read made inside this ``SSL_read`` (the
 *    byte map of DOC "request latency"), or the call's entry when OpenSSL
 *    had the record buffered already.
 * 2. ``SSL_write``'s return with a positive count (``SSL_write_ex``'s 1)
 *    answers what the
 *    connection has queued (DOC "requests per connection", point 3).
 *    ``SSL_free`` ends the connection: the next one may get the same
 *    address, and starts afresh.
 * 3. The socket's own reads and writes still count as calls, not as
 *    requests.  BoringSSL, GnuTLS, Go's
 *    crypto/tls and kernel TLS offload are not probed: a server that uses
 *    them is seen at the socket only, where ``conn`` still counts one
 *    request per record read when records carry one request each.
 */

SEC("uprobe")
int sg_ssl_read_enter(struct pt_regs *ctx)
{
	struct sg_thread *th = fn_thread(bpf_get_current_task_btf());

	if (!th || th->slot == SG_NO_SLOT || !th->tls)
		return 0;
	th->tls_ssl = PT_REGS_PARM1(ctx);
	th->tls_buf = PT_REGS_PARM2(ctx);
	th->tls_nread = PT_REGS_PARM4(ctx);	/* SSL_read_ex's size_t *readbytes */
	th->tls_t0 = bpf_ktime_get_ns();
	th->tls_arr = 0;
	return 0;
}

/* The SSL_read (@ex: SSL_read_ex) in progress returned @rc. */
static __always_inline int ssl_read_done(struct sg_thread *th, int rc, bool ex)
{
	struct sg_read r = {};
	struct sg_acc *a;
	__u64 n = 0;
	long ret = rc;
	__u32 slot;

	if (!th || th->slot == SG_NO_SLOT || !th->tls || !th->tls_t0)
		return 0;
	if (ex)		/* 1 and the count in *readbytes, or 0 */
		ret = rc == 1 && !bpf_probe_read_user(&n, sizeof(n), (void *)th->tls_nread) ? (long)n : 0;
	slot = th->slot;
	a = bpf_map_lookup_elem(&acc, &slot);
	if (ret > 0 && a) {
		r.k.tgid = bpf_get_current_pid_tgid() >> 32;
		r.k.fd = -1;
		r.k.ssl = th->tls_ssl;
		r.cookie = th->tls_ssl;
		r.proto = a->proto;
		r.ubuf = th->tls_buf;
		r.ubuf_len = 0x7fffffff;
		r.ret = ret;
		r.arr = th->tls_arr ?: th->tls_t0;
		r.rd = bpf_ktime_get_ns();
		sg_conn_read(th, &r);
	}
	th->tls_t0 = 0;
	return 0;
}

SEC("uretprobe")
int sg_ssl_read_exit(struct pt_regs *ctx)
{
	/* an int: -1 is not sign-extended in the register */
	return ssl_read_done(fn_thread(bpf_get_current_task_btf()), (int)PT_REGS_RC(ctx), false);
}

SEC("uretprobe")
int sg_ssl_read_ex_exit(struct pt_regs *ctx)
{
	return ssl_read_done(fn_thread(bpf_get_current_task_btf()), (int)PT_REGS_RC(ctx), true);
}

SEC("uprobe")
int sg_ssl_write_enter(struct pt_regs *ctx)
{
	struct sg_thread *th = fn_thread(bpf_get_current_task_btf());

	if (th && th->slot != SG_NO_SLOT && th->tls)
		th->tls_wssl = PT_REGS_PARM1(ctx);
	return 0;
}

/* The SSL_write in progress answered (@ok). */
static __always_inline int ssl_write_done(struct sg_thread *th, bool ok)
{
	__u64 ssl;

	if (!th || th->slot == SG_NO_SLOT || !th->tls || !th->tls_wssl || !ok)
		return 0;
	ssl = th->tls_wssl;
	th->tls_wssl = 0;
	sg_conn_answer(bpf_get_current_pid_tgid() >> 32, -1, ssl, th->slot, bpf_ktime_get_ns());
	return 0;
}

SEC("uretprobe")
int sg_ssl_write_exit(struct pt_regs *ctx)
{
	return ssl_write_done(fn_thread(bpf_get_current_task_btf()), (int)PT_REGS_RC(ctx) > 0);
}

/* SSL_write_ex returns 1 when it wrote */
SEC("uretprobe")
int sg_ssl_write_ex_exit(struct pt_regs *ctx)
{
	return ssl_write_done(fn_thread(bpf_get_current_task_btf()), (int)PT_REGS_RC(ctx) == 1);
}

/* SSL_free(ssl): the connection is over; its SSL object's address may be
 * reused for the next one, which must not inherit its parser or queue. */
SEC("uprobe")
int sg_ssl_free(struct pt_regs *ctx)
{
	struct sg_thread *th = fn_thread(bpf_get_current_task_btf());
	struct sg_conn_key k = { .fd = -1 };

	if (!th || th->slot == SG_NO_SLOT || !th->tls)
		return 0;
	k.tgid = bpf_get_current_pid_tgid() >> 32;
	k.ssl = PT_REGS_PARM1(ctx);
	bpf_map_delete_elem(&conns, &k);
	return 0;
}

#endif /* __SG_TLS_BPF_H */
