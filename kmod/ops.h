/* SPDX-License-Identifier: GPL-2.0 */
/* ops.h - struct slackgov_ops, the BPF control law: what governor.c and sysfs.c call. */
#ifndef _SLACKGOV_OPS_H
#define _SLACKGOV_OPS_H

#include <linux/kconfig.h>
#include <linux/types.h>

/*
 * SG_OPS: the module registers struct slackgov_ops.  It needs module
 * struct_ops (Linux 6.9+, __register_bpf_struct_ops(); kmod/Kbuild tests the
 * kernel's bpf.h for register_bpf_struct_ops and defines
 * SG_HAVE_STRUCT_OPS), the BPF JIT (struct_ops calls go through trampolines)
 * and module BTF (the type is found in it).  Debian's 6.1 has none of the
 * first: there the ops are compiled out and the built-in law always decides.
 */
#if defined(SG_HAVE_STRUCT_OPS) && IS_ENABLED(CONFIG_BPF_JIT) && \
	IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES)
#define SG_OPS	1
#else
#define SG_OPS	0
#endif

struct sg_policy;
struct sg_ctl_out;

/* What became of one ops decision: X(name, string), for the trace event. */
#define SG_OPS_RESULTS(X)						\
	X(OK,		"ok")		/* the ops' value, applied */	\
	X(CLAMPED,	"clamped")	/* clamped to the policy's limits */ \
	X(ERROR,	"error")	/* negative: built-in law, counted */ \
	X(RANGE,	"range")	/* outside the hardware range: same */ \
	X(RULE,		"rule")		/* safe or boost mode: built-in law */

#define SG_OPS_RESULT_ENUM(r, s)	SG_OPS_##r,
enum sg_ops_result {
	SG_OPS_RESULTS(SG_OPS_RESULT_ENUM)
};

#undef SG_OPS_RESULT_ENUM

#if SG_OPS
int sg_ops_register(void);
void sg_ops_step(struct sg_policy *sp, u64 now, u32 load, u64 stale_ns, struct sg_ctl_out *out);
ssize_t sg_ops_law_show(struct sg_policy *sp, char *buf);
#else
static inline int sg_ops_register(void) { return 0; }
static inline void sg_ops_step(struct sg_policy *sp, u64 now, u32 load, u64 stale_ns,
			       struct sg_ctl_out *out) { }
ssize_t sg_ops_law_show(struct sg_policy *sp, char *buf);
#endif

#endif
