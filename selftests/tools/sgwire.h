/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sgwire.h - wire format, clock, number parsing and the service spin loop
 * shared by the project's workload: sgserver (server) and sgclient (client).
 *
 * Documented in Documentation/workload.rst.
 */
#ifndef SGWIRE_H
#define SGWIRE_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/*
 * One message in each direction, fixed size, host byte order (both ends are on
 * one machine: the workload only ever talks over loopback).  A request and its
 * response have the same layout and size, so a server that read N bytes of
 * requests owes at most N bytes of responses (sgserver sizes its buffers on it).
 */
#define SGW_REQ_MAGIC	0x51574753u	/* "SGWQ" in memory: a request */
#define SGW_RESP_MAGIC	0x52574753u	/* "SGWR": a response */
#define SGW_SVC_DEFAULT	0xffffffffu	/* service_us: use the server's -s */

struct sgw_msg {
	uint32_t magic;		/* SGW_REQ_MAGIC or SGW_RESP_MAGIC */
	uint32_t service_us;	/* request: override of the service time, or
				 * SGW_SVC_DEFAULT; response: the time applied */
	uint64_t id;		/* request id, echoed */
	uint64_t sched_ns;	/* client's scheduled send time (CLOCK_MONOTONIC), echoed */
	uint64_t sent_ns;	/* when the client handed it to the socket, echoed */
};

#define SGW_MSG_SIZE	32
_Static_assert(sizeof(struct sgw_msg) == SGW_MSG_SIZE, "wire message must be 32 bytes");

/*
 * The same message in RESP, redis's protocol (--proto resp on both ends), so
 * that slackgov's RESP parser can count pipelined requests one by one: a
 * request is the command ECHO with the 32-byte message as its argument, an
 * answer the bulk string it echoes.  Fixed sizes, as for the plain format,
 * and an answer is shorter than its request (the server's buffer sizing
 * holds).  Redis itself answers ECHO the same way, with the request's magic.
 */
#define SGW_RESP_REQ_HEAD	"*2\r\n$4\r\nECHO\r\n$32\r\n"
#define SGW_RESP_ANS_HEAD	"$32\r\n"
#define SGW_RESP_REQ_SIZE	(sizeof(SGW_RESP_REQ_HEAD) - 1 + SGW_MSG_SIZE + 2)	/* 53 */
#define SGW_RESP_ANS_SIZE	(sizeof(SGW_RESP_ANS_HEAD) - 1 + SGW_MSG_SIZE + 2)	/* 39 */
#define SGW_MAX_SIZE		SGW_RESP_REQ_SIZE	/* the longest request or answer */

/* Frame @m after @head ("...\r\n" + 32 bytes + "\r\n") at @out; its length. */
static inline size_t sgw_resp_wrap(void *out, const char *head, size_t hlen,
				   const struct sgw_msg *m)
{
	char *p = out;

	memcpy(p, head, hlen);
	memcpy(p + hlen, m, SGW_MSG_SIZE);
	memcpy(p + hlen + SGW_MSG_SIZE, "\r\n", 2);
	return hlen + SGW_MSG_SIZE + 2;
}

/* The message framed after @head at @in (maybe unaligned); false if the frame is not that. */
static inline int sgw_resp_unwrap(const void *in, const char *head, size_t hlen,
				  struct sgw_msg *m)
{
	const char *p = in;

	if (memcmp(p, head, hlen) || memcmp(p + hlen + SGW_MSG_SIZE, "\r\n", 2))
		return 0;
	memcpy(m, p + hlen, SGW_MSG_SIZE);
	return 1;
}

static inline uint64_t sgw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline struct timespec sgw_ts(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ull, .tv_nsec = ns % 1000000000ull };

	return ts;
}

/*
 * sgw_spin - the service work: @n iterations of a register-only loop.
 *
 * Work, not wall time: under the emulated DVFS of the guest, a CPU at a lower
 * frequency has cycles stolen from it, so a fixed amount of work takes longer
 * (fmax/f), as on real hardware.  A loop that spins until a clock deadline
 * would finish on time at any frequency and hide exactly what the governor is
 * judged on.  The empty asm keeps the counter in a register and stops the
 * compiler from folding the loop away; no memory is touched.
 */
static inline void sgw_spin(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		__asm__ __volatile__("" : "+r"(i));
}

/*
 * Calibration runs: interruptions (preemption by other tasks, vCPU stalls of
 * 1-5 ms on these machines) only ever make a run slower, never faster, so the
 * fastest run is the estimate of the CPU's own speed; a median would take in
 * the neighbours' load of the moment (measured on a busy 2-core host: the
 * median calibrated 1000 us to 970-1000 us of spin, the fastest to 1000 us).
 * Runs are short (1 ms, under a scheduler slice) and many, so that some of
 * them fall between interruptions; the whole calibration takes ~40 ms.
 */
#define SGW_CAL_RUNS	31
#define SGW_CAL_RUN_NS	1000000ull

/*
 * sgw_calibrate - iterations of sgw_spin() per microsecond on this CPU now.
 *
 * Doubles the count until one run takes at least a millisecond, scales it to
 * SGW_CAL_RUN_NS, then returns the rate of the fastest of SGW_CAL_RUNS runs.
 * Calibrate at the highest frequency (before an emulated platform slows the
 * CPU down), then pass the figure to every later server with -w so that
 * "1000 us of service" means the same work in every run.
 */
static inline double sgw_calibrate(void)
{
	double best = 0;
	uint64_t n = 1000, t;

	for (;;) {
		t = sgw_now_ns();
		sgw_spin(n);
		t = sgw_now_ns() - t;
		if (t >= 1000000 || n >= (1ull << 40))
			break;
		n *= 2;
	}
	n = (uint64_t)((double)n * SGW_CAL_RUN_NS / (t ? t : 1));
	if (n < 1000)
		n = 1000;
	for (int i = 0; i < SGW_CAL_RUNS; i++) {
		double rate;

		t = sgw_now_ns();
		sgw_spin(n);
		t = sgw_now_ns() - t;
		rate = (double)n * 1000.0 / (t ? t : 1);
		if (rate > best)
			best = rate;
	}
	return best;
}

/* Strict number parsing: the whole string, finite, within [min, max]. */
static inline int sgw_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static inline int sgw_parse_ulong(const char *s, unsigned long min, unsigned long max,
				  unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Up to 1024 connections plus a few files: lift the soft fd limit to the hard one. */
static inline void sgw_raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

#endif /* SGWIRE_H */
