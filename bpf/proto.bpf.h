/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proto.bpf.h - the request parsers of the per-connection attribution:
 * where each request starts in the bytes a read returned, for RESP (redis),
 * memcached's text protocol, HTTP/1.x and cleartext HTTP/2, with the
 * parser's state carried from read to read of a connection; and the choice
 * of one of them from a connection's first bytes (--proto auto).
 * Included by slackgov.bpf.c through conn.bpf.h: one object.
 */
#ifndef __SG_PROTO_BPF_H
#define __SG_PROTO_BPF_H

/**
 * DOC: request parsers
 *
 * A parser reads the bytes a recv returned (its buffer, after the call:
 * ``bpf_probe_read_user()`` in chunks of SG_PARSE_BUF bytes) one step at a
 * time in a ``bpf_loop()``, and notes the offset of each request's first
 * byte.  Its state (struct sg_pstate) is the connection's, so a request cut
 * by a read's end is continued by the next read, whichever thread makes it.
 * Payloads whose length the protocol gives are skipped whole, without a
 * step per byte.
 *
 * - **resp** (redis): a request is an array ``*N\r\n`` of N bulk strings
 *   ``$L\r\n`` + L bytes + ``\r\n``, or an inline command (a line).
 * - **memcache** (text): a request is a command line; storage commands
 *   (``set``, ``add``, ``replace``, ``append``, ``prepend``, ``cas``: the
 *   5th token; ``ms``: the 3rd) are followed by that many data bytes and
 *   ``\r\n``.  A multi-get is one request, as its client counts it.
 * - **http1**: a request is its header lines up to an empty line, then the
 *   body ``Content-Length`` gives (pipelined requests are each counted).
 *   A chunked request body is not followed: the parser waits for the next
 *   read to start a request.
 * - **http2** (h2c, or TLS's plaintext when it is read in the clear): the
 *   24-byte preface, then frames of 9-byte headers; a request is a HEADERS
 *   frame that opens a stream (its id above every one seen on the
 *   connection: trailers and CONTINUATION frames are no new request).
 *
 * Bytes a parser does not expect (another protocol, a lost place) make it
 * *lost*: the rest of the read is not parsed, and the next read is taken to
 * start at a request (as a client that writes whole requests makes it).
 * A read is parsed for at most SG_PARSE_STEPS steps (one per header byte
 * that matters, one per 8 bytes of a line's rest, one per payload), so a
 * read of a thousand pipelined requests is parsed whole; past that it is
 * lost too.
 */

/* Bytes read from user memory at a time, a power of 2. */
#define SG_PARSE_BUF		2048
/* Steps per read: ~15 per redis GET, ~8 per memcached get line (its
 * tail skipped a word at a time): a 16 KiB read of pipelined gets (memcached's
 * read size) is about 5000.  bpf_loop()'s callback is verified once, so the
 * bound costs nothing to the verifier. */
#define SG_PARSE_STEPS		32768
/* Request starts noted per read; the ones past it are counted, dated by
 * the newest byte read (conn.bpf.h). */
#define SG_PARSE_STARTS		16

/* struct sg_pstate.st: where the parser is */
enum {
	SG_P_START,		/* before a request's first byte */
	SG_P_LOST,		/* unexpected bytes: until the next read */
	/* resp */
	SG_P_R_ARRN,		/* in "*N\r\n" */
	SG_P_R_BULK,		/* expecting "$" */
	SG_P_R_BULKN,		/* in "$L\r\n" */
	SG_P_R_INLINE,		/* in an inline command's line */
	/* memcache */
	SG_P_M_LINE,		/* in a command line */
	/* http1 */
	SG_P_H_LINE,		/* in a header line */
	SG_P_H_LS,		/* at a header line's start */
	SG_P_H_CL,		/* in a Content-Length value */
	SG_P_H_END,		/* the empty line's "\n" */
	/* http2 */
	SG_P_H2_FRAME,		/* in a frame header */
};

/* A parser's state, carried by the connection between reads. */
struct sg_pstate {
	__u32 st;		/* SG_P_* */
	__u32 need;		/* resp: bulk strings left; memcache: the length token */
	__u32 tok;		/* memcache: token index; http2: header bytes seen */
	__u32 flags;		/* memcache: first token's length; http2: preface done */
	__u64 num;		/* the number being read (lengths) */
	__u64 skip;		/* payload bytes to pass over */
	__u64 hdr;		/* memcache: first token's bytes; http2: header's */
	__u32 max_sid;		/* http2: highest stream opened */
	__u32 pad;
};

/* The parse of one read, per CPU (scratch: the parse runs to its end in the
 * syscall's exit, with preemption disabled). */
struct sg_parse {
	struct sg_pstate ps;
	__u32 proto;		/* SLACKGOV_PROTO_* */
	__u32 off;		/* next byte of the read to parse */
	__u32 len;		/* bytes the read returned (that can be parsed) */
	__u32 base;		/* offset in the read of buf[0] */
	__u32 blen;		/* valid bytes in buf */
	__u32 nstart;		/* starts noted */
	__u32 total;		/* requests started in the read */
	__u32 pad;
	__u64 ubuf;		/* the read's user buffer */
	__u32 start[SG_PARSE_STARTS];
	__u8 buf[SG_PARSE_BUF];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sg_parse);
} parse_scratch SEC(".maps");

#define SG_PB(i)	((i) & (SG_PARSE_BUF - 1))

/* A request starts at the current byte. */
static __always_inline void parse_start(struct sg_parse *p)
{
	if (p->nstart < SG_PARSE_STARTS)
		p->start[p->nstart & (SG_PARSE_STARTS - 1)] = p->off;
	p->nstart++;
	p->total++;
}

/* Byte @i past the current one, which must be in buf (parse_fill()). */
static __always_inline __u8 parse_at(struct sg_parse *p, __u32 i)
{
	return p->buf[SG_PB(p->off - p->base + i)];
}

/* Are the current byte and the @want - 1 after it in buf?  Else read
 * buf again from the current byte; false if the read has fewer left or
 * user memory cannot be read. */
static __always_inline bool parse_fill(struct sg_parse *p, __u32 want)
{
	__u32 n;

	if (p->off >= p->base && p->off - p->base + want <= p->blen)
		return true;
	n = p->len - p->off;
	if (n > SG_PARSE_BUF)
		n = SG_PARSE_BUF;
	if (n < want || n > SG_PARSE_BUF)
		return false;
	if (bpf_probe_read_user(p->buf, n, (void *)(p->ubuf + p->off)))
		return false;
	p->base = p->off;
	p->blen = n;
	return true;
}

/* Accumulate a decimal digit into num; false for a byte that is none. */
static __always_inline bool parse_digit(struct sg_pstate *s, __u8 c)
{
	if (c < '0' || c > '9')
		return false;
	if (s->num < 100000000000ULL)	/* past 10^11: a lost place anyway */
		s->num = s->num * 10 + (c - '0');
	return true;
}

static __always_inline void resp_step(struct sg_parse *p, struct sg_pstate *s, __u8 c)
{
	switch (s->st) {
	case SG_P_START:
		if (c == '\r' || c == '\n')
			break;
		parse_start(p);
		if (c == '*') {
			s->num = 0;
			s->st = SG_P_R_ARRN;
		} else {
			s->st = SG_P_R_INLINE;
		}
		break;
	case SG_P_R_ARRN:
	case SG_P_R_BULKN:
		if (parse_digit(s, c) || c == '\r')
			break;
		if (c != '\n') {
			s->st = SG_P_LOST;
			break;
		}
		if (s->st == SG_P_R_ARRN) {
			s->need = s->num;
		} else {
			s->skip = s->num + 2;
			s->need--;
		}
		s->st = s->need ? SG_P_R_BULK : SG_P_START;
		break;
	case SG_P_R_BULK:
		if (c != '$') {
			s->st = SG_P_LOST;
			break;
		}
		s->num = 0;
		s->st = SG_P_R_BULKN;
		break;
	case SG_P_R_INLINE:
		if (c == '\n')
			s->st = SG_P_START;
		break;
	}
}

/* The first token of a memcached command (its first 4 bytes, little
 * endian in hdr): the index of its data length token, 0 for none. */
static __always_inline __u32 mc_len_token(__u64 hdr, __u32 n)
{
	__u32 w3 = hdr & 0xffffff;

	if (n == 2 && (hdr & 0xffff) == ('m' | 's' << 8))
		return 2;
	if (n == 3 && (w3 == ('s' | 'e' << 8 | 't' << 16) || w3 == ('a' | 'd' << 8 | 'd' << 16) ||
		       w3 == ('c' | 'a' << 8 | 's' << 16)))
		return 4;
	/* replace, append, prepend: by their first 4 bytes */
	if (n > 4 && ((__u32)hdr == ('r' | 'e' << 8 | 'p' << 16 | 'l' << 24) ||
		      (__u32)hdr == ('a' | 'p' << 8 | 'p' << 16 | 'e' << 24) ||
		      (__u32)hdr == ('p' | 'r' << 8 | 'e' << 16 | 'p' << 24)))
		return 4;
	return 0;
}

static __always_inline void mc_step(struct sg_parse *p, struct sg_pstate *s, __u8 c)
{
	if (s->st == SG_P_START) {
		if (c == '\r' || c == '\n')
			return;
		parse_start(p);
		s->st = SG_P_M_LINE;
		s->tok = 0;
		s->need = 0;
		s->hdr = 0;
		s->num = 0;
		s->flags = 0;
	}
	if (c == '\n') {
		if (s->need && s->tok >= s->need)
			s->skip = s->num + 2;
		s->st = SG_P_START;
		return;
	}
	if (c == ' ') {
		if (!s->tok)
			s->need = mc_len_token(s->hdr, s->flags);
		s->tok++;
		return;
	}
	if (!s->tok) {
		if (s->flags < 4)
			s->hdr |= (__u64)c << (8 * (s->flags & 3));
		s->flags++;
	} else if (s->need && s->tok == s->need) {
		parse_digit(s, c);
	}
}

/* "content-length:" at the current byte, case-insensitively (its bytes as
 * two little-endian words: no string in .rodata). */
#define SG_CL_LO	0x2d746e65746e6f63ULL	/* "content-" */
#define SG_CL_HI	0x003a6874676e656cULL	/* "length:" */
static __always_inline bool http_is_cl(struct sg_parse *p)
{
	__u64 want;
	__u32 i;

	if ((parse_at(p, 0) | 0x20) != 'c' || !parse_fill(p, 15))
		return false;
	for (i = 0; i < 15; i++) {
		want = i < 8 ? SG_CL_LO >> (8 * i) : SG_CL_HI >> (8 * (i - 8));
		if ((parse_at(p, i) | 0x20) != (__u8)want)
			return false;
	}
	return true;
}

static __always_inline void http1_step(struct sg_parse *p, struct sg_pstate *s, __u8 c)
{
	switch (s->st) {
	case SG_P_START:
		if (c == '\r' || c == '\n')
			break;
		parse_start(p);
		s->num = 0;
		s->st = SG_P_H_LINE;	/* the request line */
		break;
	case SG_P_H_LINE:
		if (c == '\n')
			s->st = SG_P_H_LS;
		break;
	case SG_P_H_LS:
		if (c == '\r') {
			s->st = SG_P_H_END;
		} else if (c == '\n') {
			s->skip = s->num;
			s->st = SG_P_START;
		} else if (http_is_cl(p)) {
			p->off += 14;	/* and this step's one */
			s->num = 0;
			s->st = SG_P_H_CL;
		} else {
			s->st = SG_P_H_LINE;
		}
		break;
	case SG_P_H_CL:
		if (c == '\n')
			s->st = SG_P_H_LS;
		else if (c != ' ' && c != '\t' && c != '\r' && !parse_digit(s, c))
			s->st = SG_P_H_LINE;
		break;
	case SG_P_H_END:
		s->skip = s->num;
		s->st = c == '\n' ? SG_P_START : SG_P_LOST;
		break;
	}
}

#define SG_H2_PREFACE_LEN	24	/* "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" */
#define SG_H2_HEADERS		1	/* frame type */

static __always_inline void http2_step(struct sg_parse *p, struct sg_pstate *s, __u8 c)
{
	/* the connection's first bytes, or a frame that would be 5 MB long:
	 * the preface of a new connection (a TLS connection's key, its SSL
	 * object's address, may be reused): this byte and 23 more */
	if (!s->flags || (!s->tok && c == 'P')) {
		s->flags = 1;
		if (c == 'P') {
			s->skip = SG_H2_PREFACE_LEN - 1;
			s->max_sid = 0;
			return;
		}
	}
	switch (s->tok) {		/* length (24 bits), type, flags, stream id */
	case 0:
		s->num = c;
		s->need = 0;
		break;
	case 1: case 2:
		s->num = s->num << 8 | c;
		break;
	case 3:
		s->hdr = c;
		break;
	case 4:
		break;
	default:
		s->need = s->need << 8 | c;
		break;
	}
	if (++s->tok < 9)
		return;
	s->need &= 0x7fffffff;
	if (s->hdr == SG_H2_HEADERS && s->need > s->max_sid) {
		/* the request starts at its frame's first byte (0: in an
		 * earlier read, which the connection dates) */
		__u32 off = p->off;

		p->off = off >= 8 ? off - 8 : 0;
		parse_start(p);
		p->off = off;
		s->max_sid = s->need;
	}
	s->skip = s->num;
	s->num = 0;
	s->tok = 0;
}

/* Is the parser in a line whose bytes, up to its "\n", change nothing
 * (an inline command, a memcached line past the tokens it reads, an HTTP
 * header that is not Content-Length)?  Then it skips a word at a time. */
static __always_inline bool parse_to_lf(const struct sg_parse *p, const struct sg_pstate *s)
{
	switch (p->proto) {
	case SLACKGOV_PROTO_RESP:
		return s->st == SG_P_R_INLINE;
	case SLACKGOV_PROTO_MEMCACHE:
		return s->st == SG_P_M_LINE && s->tok && (!s->need || s->tok > s->need);
	case SLACKGOV_PROTO_HTTP1:
		return s->st == SG_P_H_LINE;
	}
	return false;
}

/* Do the 8 bytes from the current one hold no "\n"? */
static __always_inline bool parse_word_no_lf(struct sg_parse *p)
{
	__u32 i = p->off - p->base;
	__u64 w, x;

	if (i > SG_PARSE_BUF - 8)
		return false;
	__builtin_memcpy(&w, &p->buf[i & (SG_PARSE_BUF - 1)], 8);
	x = w ^ 0x0a0a0a0a0a0a0a0aULL;
	return !((x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL);
}

/* One step of the parse: returns 1 when it is over. */
static long parse_step(__u32 i, void *ctx)
{
	__u32 zero = 0;
	struct sg_parse *p = bpf_map_lookup_elem(&parse_scratch, &zero);
	struct sg_pstate *s;
	__u64 n;
	__u8 c;

	if (!p || p->off >= p->len)
		return 1;
	s = &p->ps;
	if (s->skip) {
		n = p->len - p->off;
		if (n > s->skip)
			n = s->skip;
		p->off += n;
		s->skip -= n;
		return 0;
	}
	if (s->st == SG_P_LOST || !parse_fill(p, 1)) {
		s->st = SG_P_LOST;
		return 1;
	}
	if (parse_to_lf(p, s) && p->len - p->off >= 8 && parse_fill(p, 8) && parse_word_no_lf(p)) {
		p->off += 8;
		return 0;
	}
	c = parse_at(p, 0);
	switch (p->proto) {
	case SLACKGOV_PROTO_RESP:
		resp_step(p, s, c);
		break;
	case SLACKGOV_PROTO_MEMCACHE:
		mc_step(p, s, c);
		break;
	case SLACKGOV_PROTO_HTTP1:
		http1_step(p, s, c);
		break;
	case SLACKGOV_PROTO_HTTP2:
		http2_step(p, s, c);
		break;
	default:
		return 1;
	}
	p->off++;
	return 0;
}

/*
 * The protocol of a connection whose first read starts with the 4 bytes
 * @w (little endian): redis's "*", HTTP/2's preface, an HTTP/1.x method
 * (upper case), a memcached command (lower case); else CONN.
 */
static __always_inline __u32 proto_guess(__u32 w)
{
#define SG_W4(a, b, c, d)	((a) | (b) << 8 | (c) << 16 | (d) << 24)
	switch (w) {
	case SG_W4('P', 'R', 'I', ' '):
		return SLACKGOV_PROTO_HTTP2;
	case SG_W4('G', 'E', 'T', ' '): case SG_W4('P', 'O', 'S', 'T'):
	case SG_W4('P', 'U', 'T', ' '): case SG_W4('H', 'E', 'A', 'D'):
	case SG_W4('D', 'E', 'L', 'E'): case SG_W4('O', 'P', 'T', 'I'):
	case SG_W4('P', 'A', 'T', 'C'):
		return SLACKGOV_PROTO_HTTP1;
	case SG_W4('g', 'e', 't', ' '): case SG_W4('g', 'e', 't', 's'):
	case SG_W4('s', 'e', 't', ' '): case SG_W4('a', 'd', 'd', ' '):
	case SG_W4('c', 'a', 's', ' '): case SG_W4('i', 'n', 'c', 'r'):
	case SG_W4('d', 'e', 'c', 'r'): case SG_W4('d', 'e', 'l', 'e'):
	case SG_W4('t', 'o', 'u', 'c'): case SG_W4('g', 'a', 't', ' '):
	case SG_W4('g', 'a', 't', 's'): case SG_W4('a', 'p', 'p', 'e'):
	case SG_W4('p', 'r', 'e', 'p'): case SG_W4('r', 'e', 'p', 'l'):
	case SG_W4('s', 't', 'a', 't'): case SG_W4('v', 'e', 'r', 's'):
		return SLACKGOV_PROTO_MEMCACHE;
	}
	if ((w & 0xff) == '*')
		return SLACKGOV_PROTO_RESP;
	if ((w & 0xff) == 'm' && ((w >> 16) & 0xff) == ' ')	/* meta: mg, ms, md, ma, mn */
		return SLACKGOV_PROTO_MEMCACHE;
	return SLACKGOV_PROTO_CONN;
#undef SG_W4
}

#endif /* __SG_PROTO_BPF_H */
