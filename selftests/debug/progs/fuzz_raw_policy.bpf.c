// SPDX-License-Identifier: GPL-2.0
/* fuzz_raw_policy.bpf.c - fuzz_policy.bpf.c's random answers with SLACKGOV_OPS_F_RAW. */
#define FUZZ_FLAGS	SLACKGOV_OPS_F_RAW
#define FUZZ_NAME	"fuzzraw"
#include "fuzz_policy.bpf.c"
