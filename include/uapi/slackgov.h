/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * slackgov.h - what crosses the kernel / BPF / user-space boundary.
 *
 * One header, used by all three sides (like bpf_testmod's kfunc header):
 *   - kmod/ (the module, __KERNEL__ defined): the sample it accepts through
 *     the kfunc, and the kfunc prototypes it implements;
 *   - bpf/ (BPF programs, vmlinux.h included first): the same sample, the
 *     pinned map values, and the kfuncs declared __ksym;
 *   - userctl/ and selftests/ (user space): the pinned map layouts.
 *
 * Only fixed-width types.  Every struct that crosses a boundary either is a
 * map value (its BTF describes it to bpftool) or carries its own size and
 * ABI version so that the receiver can reject a layout it does not know.
 */
#ifndef _UAPI_SLACKGOV_H
#define _UAPI_SLACKGOV_H

#if defined(__KERNEL__)
#include <linux/types.h>
#elif !defined(__VMLINUX_H__)
#include <linux/types.h>
#endif

/*
 * Bumped whenever struct slackgov_sample changes layout or meaning.
 * 2: per-request latency and the target's SLO.
 * 3: the target's own SLO margin (slo_margin, in place of a pad).
 * 4: the requests over the budget (nr_over, budget_us), the budget
 *    returned by slackgov_report().
 * 5: nr_req (requests as the target's attribution counts them) in place
 *    of nr_send, and rps from it.
 */
#define SLACKGOV_ABI_VERSION		5

/* bpffs folder that slackctl pins everything under. */
#define SLACKGOV_PIN_DIR		"/sys/fs/bpf/slackgov"

/* Most targets watched at once (size of the per-target maps). */
#define SLACKGOV_MAX_TARGETS		1024

/*
 * CPUs a sample can name.  A fixed bitmap keeps the sample a plain scalar
 * struct that the 6.1 verifier accepts as kfunc memory; larger machines
 * report the first SLACKGOV_MAX_CPUS CPUs only (the module clamps too).
 */
#define SLACKGOV_MAX_CPUS		256
#define SLACKGOV_CPU_WORDS		(SLACKGOV_MAX_CPUS / 64)

/* Ratios are fixed point in thousandths: 1000 == 1.0 */
#define SLACKGOV_ONE			1000

/*
 * Largest saturation signal (slackgov_sample.cv) the module accepts and the
 * BPF side publishes, thousandths: CV 1000.  A backlog of k requests per recv
 * gives sqrt(k - 1), so this is far above any real batch (10^6 requests).
 */
#define SLACKGOV_CV_MAX			1000000

/*
 * A USER_HZ clock tick in ns (USER_HZ is 100 on every architecture Linux
 * exports to user space): the unit of /proc/PID/stat's starttime, so the
 * unit in which a PID target's start time is compared (slackgov_target).
 */
#define SLACKGOV_TICK_NS		10000000ULL

/* Windows of history kept per target in the pinned history map. */
#define SLACKGOV_HISTORY		16

/*
 * Latency percentiles are fractions in ten-thousandths, so that p99.9 can be
 * said: 9900 == p99, 9990 == p99.9.  An SLO without a percentile is a p99.
 */
#define SLACKGOV_Q_ONE			10000
#define SLACKGOV_Q_DEFAULT		9900

/*
 * An SLO's margin: the share of the SLO the law keeps free, thousandths
 * (the module's slo_margin knob, or a target's own).  A target's own is
 * SLACKGOV_MARGIN_OWN | margin, so that 0 still means "the knob" and a
 * margin of 0 can be said.  At most 900: a budget of a tenth of the SLO.
 */
#define SLACKGOV_MARGIN_OWN		(1U << 31)
#define SLACKGOV_MARGIN_MAX		900

/* The margin a slo_margin field @m holds, thousandths: its own, or @knob. */
static inline __u32 slackgov_margin(__u32 m, __u32 knob)
{
	return m & SLACKGOV_MARGIN_OWN ? m & ~SLACKGOV_MARGIN_OWN : knob;
}

/* Whether @m is a slo_margin field: 0, or SLACKGOV_MARGIN_OWN | 0 .. MAX. */
static inline int slackgov_margin_valid(__u32 m)
{
	return !m || (m & SLACKGOV_MARGIN_OWN && slackgov_margin(m, 0) <= SLACKGOV_MARGIN_MAX);
}

/*
 * Request latency histogram, log-linear over microseconds (HdrHistogram's
 * layout): values below 2^SUB_BITS us have a bucket each; above, every power
 * of two [2^k, 2^(k+1)) is cut into 2^SUB_BITS equal buckets, so a bucket is
 * at most 1/8 = 12.5 % of its lower bound wide.  The last power is
 * [2^(MAX_LOG - 1), 2^MAX_LOG) us = [8.4, 16.8) s; longer latencies count in
 * the last bucket.  Bucket b covers [slackgov_lat_lo(b), slackgov_lat_lo(b + 1)).
 */
#define SLACKGOV_LAT_SUB_BITS		3
#define SLACKGOV_LAT_SUB		(1U << SLACKGOV_LAT_SUB_BITS)
#define SLACKGOV_LAT_MAX_LOG		24
#define SLACKGOV_LAT_BUCKETS		((SLACKGOV_LAT_MAX_LOG - SLACKGOV_LAT_SUB_BITS + 1) * \
					 SLACKGOV_LAT_SUB)
#define SLACKGOV_LAT_MAX_US		((1ULL << SLACKGOV_LAT_MAX_LOG) - 1)

/*
 * Horizon of a target's recent tail (lat_q_us): the BPF side's recent
 * histogram holds at most the last SLACKGOV_LAT_RECENT_REQS requests and
 * none older than SLACKGOV_LAT_RECENT_MS (two halves of each); the
 * governor's outer loop on that tail steps by each window's share of the
 * same horizon (bpf/latency.bpf.h and kmod/control.c say why these values).
 */
#define SLACKGOV_LAT_RECENT_REQS	2000
#define SLACKGOV_LAT_RECENT_MS		2000

/*
 * A CPU a target ran on stays in its samples' cpus for one to two of these
 * after (bpf/window.bpf.h, name_cpus(), says why); the governor takes a
 * policy no longer named while other policies are as one its targets left.
 */
#define SLACKGOV_CPU_KEEP_MS		1000

/* Bucket of a latency of @us microseconds (shifts and compares: BPF has no clz). */
static inline __u32 slackgov_lat_bucket(__u64 us)
{
	__u64 v;
	__u32 k = 0;

	if (us > SLACKGOV_LAT_MAX_US)
		us = SLACKGOV_LAT_MAX_US;
	if (us < SLACKGOV_LAT_SUB)
		return (__u32)us;
	v = us;				/* k = floor(log2(us)), SUB_BITS <= k < MAX_LOG */
	if (v >> 16) {
		v >>= 16;
		k += 16;
	}
	if (v >> 8) {
		v >>= 8;
		k += 8;
	}
	if (v >> 4) {
		v >>= 4;
		k += 4;
	}
	if (v >> 2) {
		v >>= 2;
		k += 2;
	}
	if (v >> 1)
		k += 1;
	return (k - SLACKGOV_LAT_SUB_BITS + 1) * SLACKGOV_LAT_SUB +
	       (__u32)((us >> (k - SLACKGOV_LAT_SUB_BITS)) & (SLACKGOV_LAT_SUB - 1));
}

/* Lower bound of bucket @b, us (b == SLACKGOV_LAT_BUCKETS gives the top's end). */
static inline __u64 slackgov_lat_lo(__u32 b)
{
	__u32 k;

	if (b < SLACKGOV_LAT_SUB)
		return b;
	k = b / SLACKGOV_LAT_SUB + SLACKGOV_LAT_SUB_BITS - 1;
	return (__u64)(SLACKGOV_LAT_SUB + b % SLACKGOV_LAT_SUB) << (k - SLACKGOV_LAT_SUB_BITS);
}

/*
 * The governor's tunables (/sys/devices/system/cpu/cpufreq/slack/NAME), one
 * line each: X(name, default, min, max, unit).  The module builds its sysfs
 * attributes and defaults from this list and slackctl its knob table, so a
 * knob is added or changed in one place.  unit is a bare token: PERMILLE
 * (thousandths, 1000 == 1.0), GAIN (x1000), MS, US or KHZ.  Writes outside
 * [min, max] fail with EINVAL.  rate_limit_us's default 0 here stands for
 * the driver's transition delay, which the module reads at init.  Why each
 * value: Documentation/governor.rst and the DOC block of kmod/control.c.
 */
#define SLACKGOV_GOV_KNOBS(X)							\
	X(setpoint,		350,	0,	1000,		PERMILLE)	\
	X(kp,			300,	0,	10000,		GAIN)		\
	X(ki,			200,	0,	10000,		GAIN)		\
	X(kd,			0,	0,	10000,		GAIN)		\
	X(deadband,		50,	0,	500,		PERMILLE)	\
	X(sat_cv,		3000,	0,	SLACKGOV_CV_MAX, PERMILLE)	\
	X(stale_ms,		50,	5,	60000,		MS)		\
	X(safe_khz,		0,	0,	100000000,	KHZ)		\
	X(rate_limit_us,	0,	0,	1000000,	US)		\
	X(idle_tight_slack,	150,	0,	1000,		PERMILLE)	\
	X(idle_relax_slack,	350,	0,	1000,		PERMILLE)	\
	X(idle_latency_us,	20,	0,	100000,		US)		\
	X(ff_gain,		0,	0,	10000,		GAIN)		\
	X(slo_margin,		200,	0,	SLACKGOV_MARGIN_MAX, PERMILLE)	\
	X(slo_gain,		500,	0,	4000,		GAIN)

/*
 * A percentile read from a histogram, linear inside its bucket, so that it is
 * not biased up by up to a bucket's width: the value at rank @rank when the
 * buckets below @b hold @cum and bucket @b holds @c, cum < rank <= cum + c
 * (counts in any fixed-point unit, the same for all three), us.
 */
static inline __u64 slackgov_lat_interp(__u32 b, __u64 rank, __u64 cum, __u64 c)
{
	__u64 lo = slackgov_lat_lo(b), hi = slackgov_lat_lo(b + 1);

	if (!c || rank <= cum)
		return lo;
	if (rank - cum >= c)
		return hi;
	return lo + (hi - lo) * (rank - cum) / c;
}

/* slackgov_sample.flags */
#define SLACKGOV_SAMPLE_IDLE		(1U << 0) /* closed by time with no request */
#define SLACKGOV_SAMPLE_BY_COUNT	(1U << 1) /* closed by send count, not time */
#define SLACKGOV_SAMPLE_EXITED		(1U << 2) /* target exited: last window */

/**
 * struct slackgov_sample - one closed window of one target, as handed to
 * the module by slackgov_report().
 *
 * @size:	sizeof(struct slackgov_sample) as the reporter built it
 * @version:	SLACKGOV_ABI_VERSION the reporter was built with
 * @target:	target slot, 0 .. SLACKGOV_MAX_TARGETS - 1
 * @flags:	SLACKGOV_SAMPLE_*
 * @seq:	window sequence number of this target, starts at 1
 * @end_ns:	bpf_ktime_get_ns() (CLOCK_MONOTONIC) when the window closed
 * @len_ns:	window length
 * @slack:	saturation slack, 0..SLACKGOV_ONE: share of busy-worker time
 *		spent blocked in wait calls (see Documentation/metrics.rst)
 * @cv:		the saturation signal, thousandths (1000 == CV of 1.0): CV of
 *		the request inter-arrival intervals, the requests of one recv
 *		counted as simultaneous (see the DOC block of bpf/state.bpf.h);
 *		about 1000 for Poisson arrivals, sqrt(k - 1) * 1000 when each
 *		recv returns a backlog of k; at most 10^6
 * @util:	target on-CPU time / window length, thousandths per CPU summed
 *		(2000 == two CPUs fully busy); a run is counted whole in the
 *		window its thread leaves the CPU in, so one window can exceed
 *		1000 per CPU after a long run; the average over windows is exact
 * @setpoint:	target's own slack setpoint in thousandths, 0 = governor default
 * @rps:	observed requests per second: the window's requests per second
 *		of its length (nr_req * 10^9 / len_ns); at most 10^8
 * @nr_req:	requests answered in the window, as the target's attribution
 *		(enum slackgov_proto) counts them: send-family calls under
 *		the thread rules, answered reads or parsed requests per
 *		connection otherwise (bpf/conn.bpf.h)
 * @nr_recv:	successful recv-family calls in the window
 * @nr_wait:	wait-family calls that returned events in the window
 * @slo_us:	the target's latency SLO, us; 0 = none (the slack law applies)
 * @slo_q:	its percentile, SLACKGOV_Q_ONE units (9900 = p99); 0 with no SLO
 * @nr_lat:	requests of the window whose latency was measured
 * @lat_q_us:	latency at @slo_q (p99 without an SLO) over the target's recent
 *		requests (the BPF side's decayed histogram, see metrics.rst), us
 * @lat_win_us:	latency at @slo_q among this window's requests alone, us
 *		(with few requests, about the window's largest); 0 = none
 * @queue_us:	mean queueing time of the window's requests: first byte at the
 *		socket to the read that took it, us
 * @svc_us:	mean service time of the window's requests: that read to the
 *		end of the send that answered, us
 * @slo_margin:	the target's own SLO margin, as in struct slackgov_target
 * @nr_over:	requests of the window (of @nr_lat) whose latency exceeded
 *		@budget_us
 * @budget_us:	the latency budget T the module last returned for this
 *		target (slackgov_report()), us; 0 = none yet (@nr_over is 0)
 * @cpus:	bitmap of the CPUs the target's threads ran on in the window,
 *		and of those they ran on in the last one to two
 *		SLACKGOV_CPU_KEEP_MS
 *
 * The BPF side sends one sample per CPU of a window's @cpus: @cpus names
 * that CPU alone, and @util, @nr_req and @rps are the target's on that
 * CPU (zero where it ran nothing in the window), so that each policy plans
 * the work of its own CPUs; the other fields are the target's.  A reporter
 * may also name several CPUs in one sample, whose @util is then their sum
 * (the module plans each at the average).
 */
struct slackgov_sample {
	__u32 size;
	__u32 version;
	__u32 target;
	__u32 flags;
	__u64 seq;
	__u64 end_ns;
	__u64 len_ns;
	__u32 slack;
	__u32 cv;
	__u32 util;
	__u32 setpoint;
	__u32 rps;
	__u32 nr_req;
	__u32 nr_recv;
	__u32 nr_wait;
	__u32 slo_us;
	__u32 slo_q;
	__u32 nr_lat;
	__u32 lat_q_us;
	__u32 lat_win_us;
	__u32 queue_us;
	__u32 svc_us;
	__u32 slo_margin;
	__u32 nr_over;
	__u32 budget_us;
	__u64 cpus[SLACKGOV_CPU_WORDS];
};

/*
 * Pinned maps (SLACKGOV_PIN_DIR/<name>), written by bpf/ and slackctl,
 * read by slackctl, the tests and bpftool.
 *
 *   target_pid     HASH   __u32 tgid          -> struct slackgov_target
 *   target_comm    HASH   char[16] comm       -> struct slackgov_target
 *   target_cgroup  HASH   __u64 cgroup v2 id  -> struct slackgov_target
 *   target_unit    HASH   struct slackgov_cgname (a name) -> struct slackgov_target
 *   target_glob    HASH   struct slackgov_cgname (a glob) -> struct slackgov_target
 *   windows        ARRAY  __u32 slot          -> struct slackgov_target_state
 *   snaps          ARRAY  __u32 slot          -> struct slackgov_snaps
 *   sg_config      ARRAY  __u32 0             -> struct slackgov_bpf_config
 *                  ("config" clashes with a kernel symbol in vmlinux.h)
 */
#define SLACKGOV_COMM_LEN		16

enum slackgov_target_kind {
	SLACKGOV_TARGET_NONE	= 0,
	SLACKGOV_TARGET_PID	= 1,
	SLACKGOV_TARGET_COMM	= 2,
	SLACKGOV_TARGET_CGROUP	= 3,
	SLACKGOV_TARGET_UNIT	= 4,
	SLACKGOV_TARGET_GLOB	= 5,
	SLACKGOV_TARGET_NR
};

/*
 * The longest cgroup directory name a UNIT or GLOB target can name, with its
 * NUL: a systemd unit (at most 255 characters, but services and scopes are
 * rarely past 80: docker-<64 hex>.scope is 77) or a Kubernetes pod slice
 * (kubepods-burstable-pod<uid>.slice, 64).  slackctl refuses longer names:
 * the BPF side reads each directory's name into this many bytes, so a
 * longer one, cut, must not match a target.
 */
#define SLACKGOV_CGNAME_LEN		128

/**
 * struct slackgov_cgname - the key of a target by directory name: a cgroup
 * v2 directory named @name (UNIT) or matching the glob @name (GLOB, one '*')
 * whose parent directory has the id @parent.  A cgroup that such a target
 * matches and every cgroup below it are the target's, so the target
 * outlives the directory: a restarted unit's new directory (a new id, the
 * same name in the same slice) and a pod created after the add match.
 * @parent:	cgroup id (the directory's inode number) of the parent
 * @name:	the name, NUL-padded to the end
 */
struct slackgov_cgname {
	__u64 parent;
	char name[SLACKGOV_CGNAME_LEN];
};

/**
 * struct slackgov_target - one entry of the target_* maps.
 * @slot:	index into the windows map, unique across all target maps
 * @kind:	enum slackgov_target_kind (redundant with the map; for display)
 * @setpoint:	this target's slack setpoint, thousandths; 0 = governor default
 * @slo_q:	percentile of the SLO, SLACKGOV_Q_ONE units; 0 when @slo_us is 0
 * @start_ns:	for PID targets: the thread group leader's start time
 *		(task->start_boottime, boot-based ns; compared in USER_HZ ticks,
 *		the unit of /proc/PID/stat's starttime that slackctl reads) when
 *		the target was added, so that a reused PID is not mistaken for
 *		it; 0 = not checked.  For UNIT and GLOB targets: when it was
 *		added (CLOCK_MONOTONIC ns), which tells the BPF side one add
 *		of a name from another
 * @slo_us:	latency SLO, us (1 .. SLACKGOV_LAT_MAX_US); 0 = none
 * @slo_margin:	SLACKGOV_MARGIN_OWN | this target's SLO margin, thousandths
 *		(0 .. SLACKGOV_MARGIN_MAX); 0 = the module's slo_margin knob
 * @proto:	how its requests are told apart: enum slackgov_proto
 * @flags:	SLACKGOV_TARGET_F_*
 */
struct slackgov_target {
	__u32 slot;
	__u32 kind;
	__u32 setpoint;
	__u32 slo_q;
	__u64 start_ns;
	__u32 slo_us;
	__u32 slo_margin;
	__u32 proto;
	__u32 flags;
};

/* slackgov_target.flags */
#define SLACKGOV_TARGET_F_TLS	(1U << 0) /* requests read at SSL_read (bpf/tls.bpf.h) */

/*
 * How a target's requests are told apart (slackctl target add --proto).
 * THREAD: a read and the same thread's sends on that fd bracket a request
 * (bpf/latency.bpf.h).  The others track requests per connection, whichever
 * thread of the process reads or answers (bpf/conn.bpf.h): CONN counts a
 * read that finds no request pending on its connection as one request;
 * RESP, MEMCACHE, HTTP1 and HTTP2 parse the bytes read and count each
 * request in them; AUTO picks one of those per connection from its first
 * bytes (else CONN).  FUNC: a user function's entry and return bracket
 * each request (uprobes that slackctl attaches: bpf/func.bpf.h).
 */
enum slackgov_proto {
	SLACKGOV_PROTO_THREAD	= 0,
	SLACKGOV_PROTO_CONN	= 1,
	SLACKGOV_PROTO_RESP	= 2,
	SLACKGOV_PROTO_MEMCACHE	= 3,
	SLACKGOV_PROTO_HTTP1	= 4,
	SLACKGOV_PROTO_HTTP2	= 5,
	SLACKGOV_PROTO_AUTO	= 6,
	SLACKGOV_PROTO_FUNC	= 7,
	SLACKGOV_PROTO_NR
};

/**
 * struct slackgov_window - metrics of one closed window of one target.
 * Times in ns, ratios in thousandths, variances in us^2 (a variance in ns^2
 * of intervals up to a second would not fit in 64 bits).
 */
struct slackgov_window {
	__u64 seq;
	__u64 start_ns;
	__u64 end_ns;
	__u32 flags;		/* SLACKGOV_SAMPLE_* */
	__u32 slack;		/* 0..1000 */
	__u32 cv;		/* saturation signal: inter-arrival CV, thousandths */
	__u32 util;		/* on-CPU time / window, thousandths */
	__u32 rps;		/* observed requests per second */
	__u32 nr_send;
	__u32 nr_recv;
	__u32 nr_wait;
	__u32 nr_threads;	/* worker threads seen in the window */
	__s32 report_ret;	/* slackgov_report(): 0 accepted, < 0 refused, 1 not fed */
	__u64 send_mean_ns;
	__u64 send_var_us2;
	__u64 recv_mean_ns;
	__u64 recv_var_us2;
	__u64 wait_mean_ns;
	__u64 blocked_ns;	/* worker time blocked in wait calls */
	__u64 busy_ns;		/* worker time not blocked in wait calls */
	__u64 oncpu_ns;		/* on-CPU time from sched_switch */
	__u64 cpus[SLACKGOV_CPU_WORDS];
	/* latency of the window's requests (see struct slackgov_sample), us */
	__u32 nr_lat;		/* requests timed */
	__u32 lat_p50_us;	/* this window's percentiles (0: none timed) */
	__u32 lat_p90_us;
	__u32 lat_p99_us;
	__u32 lat_q_us;		/* recent requests at the SLO's percentile */
	__u32 lat_win_us;	/* this window at the SLO's percentile */
	__u32 queue_us;		/* mean queueing */
	__u32 svc_us;		/* mean service */
	__u32 slo_us;		/* the target's SLO when the window closed */
	__u32 slo_q;
	__u32 nr_over;		/* requests timed over budget_us */
	__u32 budget_us;	/* the module's budget T they were timed against */
	__u32 nr_req;		/* requests answered (struct slackgov_sample) */
	__u32 proto;		/* the attribution they were counted by */
	__u64 runq_ns;		/* target threads' run-queue wait */
	__u64 block_ns;		/* ... and sleep inside busy segments (bpf/ DOC item 8) */
};

/**
 * struct slackgov_target_state - value of the windows map.
 * @last:	the last closed window (seq == 0: none yet)
 * @head:	number of windows closed so far; hist[(head - 1) %
 *		SLACKGOV_HISTORY] is the newest
 * @hist:	ring of the last SLACKGOV_HISTORY windows
 * @total_send:	sends counted since the slot was (re)initialised
 * @total_ns:	length of the windows closed since then
 * @total_lat:	requests timed since then (the histogram's count)
 * @total_lat_ns: the sum of their latencies, ns
 * @total_queue_ns: the sum of their queueing parts, ns
 * @total_slo_windows: windows with requests timed against an SLO
 * @total_slo_over: those whose lat_win_us exceeded slo_us
 * @lat_hist:	latency histogram of the requests timed since then
 *		(cumulative, SLACKGOV_LAT_BUCKETS buckets: slackgov_lat_bucket())
 * @total_recv:	recvs counted since then
 * @total_blocked_ns: worker time blocked in wait calls since then
 * @total_busy_ns: worker time not blocked since then
 * @total_oncpu_ns: on-CPU time of the target's threads since then
 * @total_cv_ns: sum over the windows of cv * len_ns / SLACKGOV_ONE (the
 *		length-weighted mean cv of an interval is its difference over
 *		the difference of total_ns)
 * @total_req:	requests answered since then (slackgov_window.nr_req)
 * @total_runq_ns: run-queue wait of the target's threads since then
 * @total_block_ns: their sleep inside busy segments since then
 *
 * A window closes in place while user space may be copying the value: a
 * close writes @last and the totals first, then its copy in @hist, then
 * @head.  A copy in which @last equals hist[(head - 1) % SLACKGOV_HISTORY]
 * holds @last whole (@head 0: no window yet); its totals may already count
 * part of the next close, each of them at most one window ahead.
 */
struct slackgov_target_state {
	struct slackgov_window last;
	__u64 head;
	struct slackgov_window hist[SLACKGOV_HISTORY];
	__u64 total_send;
	__u64 total_ns;
	__u64 total_lat;
	__u64 total_lat_ns;
	__u64 total_queue_ns;
	__u64 total_slo_windows;
	__u64 total_slo_over;
	__u64 lat_hist[SLACKGOV_LAT_BUCKETS];
	__u64 total_recv;
	__u64 total_blocked_ns;
	__u64 total_busy_ns;
	__u64 total_oncpu_ns;
	__u64 total_cv_ns;
	__u64 total_req;
	__u64 total_runq_ns;
	__u64 total_block_ns;
};

/*
 * Does a copy of a windows map value hold @last whole (the write order
 * above)?  A reader that gets 0 copies the value again, up to
 * SLACKGOV_STATE_TRIES copies in all (a close takes microseconds, a window
 * milliseconds: a few are plenty), then uses the last one as it is.
 */
#define SLACKGOV_STATE_TRIES	8
static inline int slackgov_state_whole(const struct slackgov_target_state *st)
{
	const unsigned char *a = (const unsigned char *)&st->last, *b;
	__u64 i;

	if (!st->head)
		return 1;
	b = (const unsigned char *)&st->hist[(st->head - 1) % SLACKGOV_HISTORY];
	for (i = 0; i < sizeof(st->last); i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/*
 * Snapshots of the cumulative counters (pinned map "snaps", ARRAY, __u32 slot
 * -> struct slackgov_snaps), so that slackctl can show figures over the last
 * second or so without sleeping: the interval figure is the difference
 * between the windows map's live totals and the newest snapshot at least
 * that old.  A snapshot is taken when a window closes and SLACKGOV_SNAP_NS
 * have passed since the previous one.  SLACKGOV_SNAP_NS = 500 ms and
 * SLACKGOV_SNAPS = 16 were chosen so that status's default 1 s interval spans
 * 1 to 1.5 s and intervals up to 7.5 s can be asked for, at 13 KiB per slot
 * (13 MiB for SLACKGOV_MAX_TARGETS): longer views are Prometheus' job, on
 * the counters themselves.
 */
#define SLACKGOV_SNAPS			16
#define SLACKGOV_SNAP_NS		500000000ULL

/**
 * struct slackgov_snap - the cumulative counters of one target at @end_ns.
 * @end_ns:	end of the window whose close took the snapshot
 * @windows:	slackgov_target_state.head then
 * @send .. @block_ns: the slackgov_target_state total_* fields then
 * @lat_hist:	its lat_hist, the low 32 bits (differences of two snapshots
 *		are exact while fewer than 2^32 requests fall in one bucket
 *		between them)
 */
struct slackgov_snap {
	__u64 end_ns;
	__u64 windows;
	__u64 send;
	__u64 recv;
	__u64 ns;
	__u64 blocked_ns;
	__u64 busy_ns;
	__u64 oncpu_ns;
	__u64 cv_ns;
	__u64 lat;
	__u64 lat_ns;
	__u64 queue_ns;
	__u64 slo_windows;
	__u64 slo_over;
	__u64 req;
	__u64 runq_ns;
	__u64 block_ns;
	__u32 lat_hist[SLACKGOV_LAT_BUCKETS];
};

/**
 * struct slackgov_snaps - value of the snaps map.
 * @head:	snapshots taken; snap[(head - 1) % SLACKGOV_SNAPS] is the newest.
 *		A reader skips snap[head % SLACKGOV_SNAPS] (the next one to be
 *		overwritten) and any snapshot whose @windows is above the live
 *		head (the slot was re-initialised since).
 * @snap:	ring of snapshots
 */
struct slackgov_snaps {
	__u64 head;
	struct slackgov_snap snap[SLACKGOV_SNAPS];
};

/* slackgov_bpf_config.feed */
#define SLACKGOV_FEED_OFF	0	/* metrics only */
#define SLACKGOV_FEED_ON	1	/* hand windows to slackgov.ko */

/* slackgov_bpf_config.hooks: which programs see the syscalls (bpf/ DOC "hooks") */
#define SLACKGOV_HOOKS_UNKNOWN		0	/* not recorded */
#define SLACKGOV_HOOKS_TRACEPOINT	1	/* tp_btf/sys_enter and sys_exit */
#define SLACKGOV_HOOKS_FENTRY		2	/* fentry/fexit on the watched syscalls */

/**
 * struct slackgov_bpf_config - the BPF side's run-time settings.
 * @window_ns:		close a window after this long (0 = by count only)
 * @window_sends:	or after this many sends (0 = by time only)
 * @generation:		bumped by slackctl on every target change, so that
 *			cached per-thread classifications are redone
 * @feed:		SLACKGOV_FEED_*
 * @hooks:		SLACKGOV_HOOKS_*, written by slackctl load
 * @fentry_errno:	why fentry was not used (positive errno of its
 *			load or attach under --hooks auto), 0 when not tried
 */
struct slackgov_bpf_config {
	__u64 window_ns;
	__u32 window_sends;
	__u32 feed;
	__u64 generation;
	__u32 hooks;
	__u32 fentry_errno;
};

/*
 * slackgov_report - hand one closed window to the governor.
 * Callable from BPF_PROG_TYPE_TRACING programs (tp_btf, fentry) only.
 * Returns the latency budget T (us) the module holds the target's SLO
 * to, 0 for a target without one, or -EINVAL for a sample the module
 * rejects (size, version, target or CPU out of range), -ENODEV when no
 * policy runs the governor.  The caller counts the requests over T in its
 * next windows (slackgov_sample.nr_over).
 */
#if defined(__KERNEL__)		/* the module: kmod/kfunc.c */
int slackgov_report(const struct slackgov_sample *s, __u32 s__sz);
#elif defined(__VMLINUX_H__)	/* BPF programs */
extern int slackgov_report(const struct slackgov_sample *s, __u32 s__sz) __ksym;
#endif

#endif /* _UAPI_SLACKGOV_H */
