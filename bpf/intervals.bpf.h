/* SPDX-License-Identifier: GPL-2.0 */
/*
 * intervals.bpf.h - interval moments of sends and recvs and the saturation
 * signal cv (points 4 and 5 of the DOC block "request metrics" in
 * slackgov.bpf.c).  Included by slackgov.bpf.c after its maps: one object.
 */
#ifndef __SG_INTERVALS_BPF_H
#define __SG_INTERVALS_BPF_H

/* Intervals are clamped to 1 s (in us) so that a sum of squares over a
 * window of up to 2^24 intervals stays below 2^64: 1e12 * 1.6e7 < 1.8e19. */
#define SG_IV_MAX_US		1000000ULL
/* batch_cv(): recvs needed for a value (one interval is no variation), and
 * the longest span carried to get them: 1 s, the interval clamp */
#define SG_CV_MIN_RECVS		2
#define SG_CV_SPAN_NS		1000000000ULL
/* ... and its bounds: requests counted (2^24, as for the intervals), sums
 * beyond which the integer math would overflow (never reached: a span of
 * 1 s holds at most 2^24 intervals of at most 1 s); the largest value is
 * SLACKGOV_CV_MAX, the largest the module accepts */
#define SG_CV_MAX_REQS		(1ULL << 24)
#define SG_CV_MAX_SUM		(1ULL << 44)
#define SG_CV_MAX_SQ		(1ULL << 63)

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
	__u64 r = 0, bit = 1ULL << 46, t, ge;
	int i;

	if (x >> 48)
		x = (1ULL << 48) - 1;
#pragma unroll
	for (i = 0; i < 24; i++) {
		t = r + bit;
		ge = sg_lt(x, t) ^ 1;	/* x >= t: a branch per bit would be 2^24 paths */
		x -= t * ge;
		r = (r >> 1) + bit * ge;
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

/*
 * The saturation signal (see the DOC block "cv"): the coefficient of
 * variation of the intervals between request arrivals as the application
 * receives them.  A recv that delivers k requests at once (counted by the
 * answers: requests = max(nr_req, recvs)) is its gap and k - 1 zero
 * intervals.  The moments span at least SG_CV_MIN_RECVS recvs: a window with
 * fewer carries them into the next, for up to SG_CV_SPAN_NS.  Runs under the
 * closing flag (plain updates of the cv_* carry).
 */
static __always_inline __u32 batch_cv(struct sg_acc *a, const struct slackgov_window *w,
				      __u64 nreq, __u64 nrecv, __u64 rsum, __u64 rsq, __u64 now)
{
	__u64 n, m_ns, var, cv;

	if (!nreq && !nrecv) {
		/* no request: publish 0 and drop the carry; forget the last value
		 * only after SG_CV_SPAN_NS of this (a saturated worker that was
		 * preempted for a window is not idle) */
		a->cv_reqs = a->cv_recvs = a->cv_sum_us = a->cv_sq_us2 = a->cv_start_ns = 0;
		if (!a->cv_idle_ns)
			a->cv_idle_ns = w->start_ns;
		else if (now - a->cv_idle_ns >= SG_CV_SPAN_NS)
			a->last_cv = 0;
		return 0;
	}
	a->cv_idle_ns = 0;
	if (!a->cv_start_ns)
		a->cv_start_ns = w->start_ns;
	a->cv_reqs += nreq > nrecv ? nreq : nrecv;
	a->cv_recvs += nrecv;
	a->cv_sum_us += rsum;
	a->cv_sq_us2 += rsq;
	if (a->cv_recvs < SG_CV_MIN_RECVS && now - a->cv_start_ns < SG_CV_SPAN_NS)
		return a->last_cv;	/* too few recvs yet: carry, repeat the last value */
	n = a->cv_reqs;
	if (n > SG_CV_MAX_REQS)
		n = SG_CV_MAX_REQS;
	cv = 0;
	if (a->cv_sum_us && a->cv_sq_us2 <= SG_CV_MAX_SQ && a->cv_sum_us <= SG_CV_MAX_SUM) {
		/* sum <= 2^44 us: * 1000 fits; mean <= 1 s: m_ns^2 <= 10^18 fits */
		m_ns = a->cv_sum_us * 1000 / n;
		var = a->cv_sq_us2 / n;
		var = var > m_ns * m_ns / 1000000 ? var - m_ns * m_ns / 1000000 : 0;
		if (m_ns)
			cv = sg_isqrt(var) * 1000000 / m_ns;	/* sqrt(var) < 2^24 */
	}
	if (cv > SLACKGOV_CV_MAX)
		cv = SLACKGOV_CV_MAX;
	a->cv_reqs = a->cv_recvs = a->cv_sum_us = a->cv_sq_us2 = a->cv_start_ns = 0;
	a->last_cv = cv;
	return cv;
}

#endif /* __SG_INTERVALS_BPF_H */
