// SPDX-License-Identifier: GPL-2.0
/*
 * hdr.c - the results' latency histogram, log-linear as sgclient's (values
 * in 1/16 us; below 256 units one bucket each, above every power of two cut
 * into 256): a percentile is its bucket's midpoint, within 0.2 %.
 */
#include <math.h>
#include <stdlib.h>
#include "sim.h"

#define HDR_SUB_BITS	8
#define HDR_SUB		(1U << HDR_SUB_BITS)
#define HDR_MAX_LOG	44
#define HDR_BUCKETS	((HDR_MAX_LOG - HDR_SUB_BITS + 1) * HDR_SUB)
#define HDR_UNIT	16.0	/* units per us */

struct hdr {
	uint64_t n;
	double sum;
	uint64_t b[HDR_BUCKETS];
};

struct hdr *hdr_new(void)
{
	return calloc(1, sizeof(struct hdr));
}

void hdr_free(struct hdr *h)
{
	free(h);
}

static unsigned int hdr_bucket(uint64_t v)
{
	int k;

	if (v < HDR_SUB)
		return v;
	k = 63 - __builtin_clzll(v);
	if (k >= HDR_MAX_LOG)
		return HDR_BUCKETS - 1;
	return (k - HDR_SUB_BITS + 1) * HDR_SUB + ((v >> (k - HDR_SUB_BITS)) & (HDR_SUB - 1));
}

static double hdr_lo(unsigned int b)
{
	unsigned int k;

	if (b < HDR_SUB)
		return b;
	k = b / HDR_SUB + HDR_SUB_BITS - 1;
	return (double)((uint64_t)(HDR_SUB + b % HDR_SUB) << (k - HDR_SUB_BITS));
}

void hdr_add(struct hdr *h, double us)
{
	double v = us * HDR_UNIT;

	h->n++;
	h->sum += us;
	h->b[hdr_bucket(v < 0 ? 0 : v > 1e18 ? (uint64_t)1e18 : (uint64_t)v)]++;
}

uint64_t hdr_count(const struct hdr *h)
{
	return h->n;
}

double hdr_mean(const struct hdr *h)
{
	return h->n ? h->sum / h->n : 0;
}

/* the nearest-rank percentile @q (0..1), us; 0 without values */
double hdr_pct(const struct hdr *h, double q)
{
	uint64_t rank = (uint64_t)ceil(q * h->n), cum = 0;
	unsigned int b;

	if (!h->n)
		return 0;
	if (rank < 1)
		rank = 1;
	for (b = 0; b < HDR_BUCKETS; b++) {
		cum += h->b[b];
		if (cum >= rank)
			return (hdr_lo(b) + (b + 1 < HDR_BUCKETS ? hdr_lo(b + 1) : hdr_lo(b))) / 2 /
			       HDR_UNIT;
	}
	return hdr_lo(HDR_BUCKETS - 1) / HDR_UNIT;
}
