// SPDX-License-Identifier: GPL-2.0
/*
 * sglatmath.c - unit test of the request latency histogram's math in
 * include/uapi/slackgov.h, the code the BPF side, slackctl and the tests
 * share: slackgov_lat_bucket(), slackgov_lat_lo(), slackgov_lat_interp().
 * Prints KTAP; exit 0 when every check passed, 1 otherwise.
 *
 * Usage: sglatmath
 */
#include <stdio.h>
#include <stdlib.h>
#include "slackgov.h"

static int n, failed;

static void check(int ok, const char *what)
{
	n++;
	printf("%sok %d %s\n", ok ? "" : "not ", n, what);
	failed += !ok;
}

int main(void)
{
	__u64 us, lo, hi, worst_num = 0, worst_den = 1, v, prev;
	__u32 b, pb = 0;
	int ok;

	printf("TAP version 13\n1..7\n");

	/* every value lands in the bucket whose bounds hold it, in order */
	ok = 1;
	for (us = 0; us <= SLACKGOV_LAT_MAX_US; us++) {
		b = slackgov_lat_bucket(us);
		if (b >= SLACKGOV_LAT_BUCKETS || b < pb || slackgov_lat_lo(b) > us ||
		    slackgov_lat_lo(b + 1) <= us) {
			printf("# %llu us -> bucket %u [%llu, %llu)\n", (unsigned long long)us, b,
			       (unsigned long long)slackgov_lat_lo(b),
			       (unsigned long long)slackgov_lat_lo(b + 1));
			ok = 0;
			break;
		}
		pb = b;
	}
	check(ok, "bucket(us) holds us for every us up to SLACKGOV_LAT_MAX_US, monotone");

	/* the bounds increase, the first buckets are 1 us wide, the last ends at 2^MAX_LOG */
	ok = slackgov_lat_lo(0) == 0 && slackgov_lat_lo(SLACKGOV_LAT_BUCKETS) == SLACKGOV_LAT_MAX_US + 1;
	for (b = 0; b < SLACKGOV_LAT_BUCKETS; b++) {
		lo = slackgov_lat_lo(b);
		hi = slackgov_lat_lo(b + 1);
		if (hi <= lo || (b < SLACKGOV_LAT_SUB && hi - lo != 1) ||
		    slackgov_lat_bucket(lo) != b || slackgov_lat_bucket(hi - 1) != b)
			ok = 0;
		if (b >= SLACKGOV_LAT_SUB && (hi - lo) * worst_den > worst_num * lo) {
			worst_num = hi - lo;
			worst_den = lo;
		}
	}
	check(ok, "bounds increase from 0 to 2^SLACKGOV_LAT_MAX_LOG; bucket(lo(b)) == bucket(lo(b+1) - 1) == b");
	printf("# widest bucket relative to its lower bound: %llu/%llu\n",
	       (unsigned long long)worst_num, (unsigned long long)worst_den);
	check(worst_num * SLACKGOV_LAT_SUB <= worst_den,
	      "every bucket from 2^SUB_BITS us on is at most 1/SLACKGOV_LAT_SUB of its lower bound wide");

	check(slackgov_lat_bucket(SLACKGOV_LAT_MAX_US + 1) == SLACKGOV_LAT_BUCKETS - 1 &&
	      slackgov_lat_bucket(~0ULL) == SLACKGOV_LAT_BUCKETS - 1,
	      "latencies beyond the top count in the last bucket");

	/* interpolation: ends of the bucket, its middle, monotone in the rank */
	b = slackgov_lat_bucket(1000);
	lo = slackgov_lat_lo(b);
	hi = slackgov_lat_lo(b + 1);
	check(slackgov_lat_interp(b, 100, 100, 10) == lo && slackgov_lat_interp(b, 110, 100, 10) == hi &&
	      slackgov_lat_interp(b, 105, 100, 10) == lo + (hi - lo) / 2,
	      "interp: rank at the bucket's start, end and middle");
	ok = 1;
	prev = 0;
	for (us = 1; us <= 256; us++) {
		v = slackgov_lat_interp(b, 1000 + us, 1000, 256);
		if (v < prev || v < lo || v > hi)
			ok = 0;
		prev = v;
	}
	check(ok, "interp: monotone in the rank and inside the bucket");

	/*
	 * A histogram of one request per us from 1 to 16383 (whole buckets, so
	 * that they are uniform inside as interpolation assumes): its p99 read by
	 * interpolation is within 2 us of the exact 16219.17, where the bucket's
	 * upper bound would be 16384.
	 */
	{
		static __u64 h[SLACKGOV_LAT_BUCKETS];
		__u64 rank = 16383ULL * 9900, cum = 0, c, p99 = 0;

		for (us = 1; us <= 16383; us++)
			h[slackgov_lat_bucket(us)]++;
		for (b = 0; b < SLACKGOV_LAT_BUCKETS; b++) {
			c = h[b] * SLACKGOV_Q_ONE;
			if (c && cum + c >= rank) {
				p99 = slackgov_lat_interp(b, rank, cum, c);
				break;
			}
			cum += c;
		}
		printf("# p99 of 1..16383 us, one each: %llu us\n", (unsigned long long)p99);
		check(p99 >= 16217 && p99 <= 16221, "interp: p99 of a uniform histogram within 2 us of the exact value");
	}
	printf("# totals: pass %d fail %d skip 0\n", n - failed, failed);
	return failed ? 1 : 0;
}
