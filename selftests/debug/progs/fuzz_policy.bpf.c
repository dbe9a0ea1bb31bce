// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_policy.bpf.c - make check-debug's fuzz policy (selftests/debug/
 * debug-fuzz.sh): next_freq answers at random from eight kinds, each a case
 * the module must survive: a negative errno (or 0), 0, a multiple of the
 * hardware maximum up to 65535x, a frequency in the hardware range, the
 * built-in law's, any 64-bit value, one below the hardware minimum, one
 * above the maximum.  fuzz_raw_policy.bpf.c is the same with
 * SLACKGOV_OPS_F_RAW.  No maps or global data: slackctl's loader takes
 * none (userctl/policy.c); the module's ops_decisions and ops_fallbacks
 * count what it did with the answers.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "slackgov_ops.h"

#ifndef FUZZ_FLAGS
#define FUZZ_FLAGS	0
#define FUZZ_NAME	"fuzz"
#endif

SEC("struct_ops/next_freq")
__s64 BPF_PROG(fuzz_next_freq, const struct slackgov_policy_view *v)
{
	__u32 r = bpf_get_prandom_u32(), lo = v->hw_min_khz, hi = v->hw_max_khz;

	switch (r & 7) {
	case 0:
		return -(__s64)((r >> 3) & 4095);
	case 1:
		return 0;
	case 2:
		return (__s64)hi * ((r >> 3) & 0xffff);
	case 3:
		return hi > lo ? lo + (r >> 3) % (hi - lo + 1) : lo;
	case 4:
		return v->builtin_khz;
	case 5:
		return (__s64)(((__u64)bpf_get_prandom_u32() << 32) | r);
	case 6:
		return (__s64)lo - 1;
	default:
		return (__s64)hi + 1;
	}
}

SEC(".struct_ops")
struct slackgov_ops fuzz_policy = {
	.next_freq	= (void *)fuzz_next_freq,
	.flags		= FUZZ_FLAGS,
	.name		= FUZZ_NAME,
};

char LICENSE[] SEC("license") = "GPL";
