/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim.h - what the simulator's files share: the platform, the machine (CPUs,
 * policies, threads, connections, requests), the event queue and the
 * governors' interface.  Documentation/simulation.rst describes the model.
 */
#ifndef _SGSIM_H
#define _SGSIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SIM_MAX_CPUS	64
#define SIM_MAX_PSTATES	32
#define SIM_MAX_CSTATES	8
#define SIM_MAX_TARGETS	4
#define SIM_MAX_STAGES	3
#define SIM_MAX_SPECS	512

/* ---- random numbers (rng.c) ------------------------------------------------------ */

struct rng {
	uint64_t s;
};

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_u64(struct rng *r);
double rng_unit(struct rng *r);		/* (0, 1] */
double rng_exp(struct rng *r, double mean);
double rng_normal(struct rng *r);

/* ---- distributions and arrival processes (workload.c) ------------------------------ */

enum dist_kind { D_DET, D_EXP, D_BIMODAL, D_LOGNORMAL, D_PARETO, D_TRACE };

/* per-request CPU work or blocking, us at fmax */
struct dist {
	enum dist_kind kind;
	double mean, a, b, p;	/* kind's parameters (see workload.c) */
	double *trace;		/* D_TRACE: values, cycled */
	int ntrace;
};

int dist_parse(struct dist *d, const char *spec, char *err, size_t errsz);
double dist_draw(const struct dist *d, struct rng *r, uint64_t *pos);

enum arr_kind { A_POISSON, A_MMPP, A_RAMP, A_DIURNAL, A_REPLAY };

/* the arrival process of one target; rates in requests/s */
struct arrivals {
	enum arr_kind kind;
	double rate;			/* mean rate (the cell's load) */
	/* MMPP: on/off rate multipliers and mean sojourns (s) */
	double on_mult, off_mult, on_s, off_s;
	/* ramp: rate multipliers per step, step length (s), cycled */
	double steps[32];
	int nsteps;
	double step_s;
	/* diurnal: period (s) and amplitude (share of the mean) */
	double period_s, amp;
	/* replay: inter-arrival times (s), cycled and scaled to the rate */
	double *gaps, gap_mean;
	int ngaps;
};

struct arr_state {
	struct rng rng;
	double t;			/* last arrival */
	int on;				/* MMPP: state */
	double switch_t;		/* MMPP: next state change */
	uint64_t pos;			/* replay position */
};

int arrivals_parse(struct arrivals *a, const char *spec, char *err, size_t errsz);
void arrivals_scale(struct arrivals *a, double rate);
double arrivals_next(const struct arrivals *a, struct arr_state *st);
double arrivals_mult_at(const struct arrivals *a, double t);

/* ---- the platform (platform.c) ------------------------------------------------------- */

struct cstate {
	char name[16];
	double exit_us, residency_us;
	double power_w;			/* idle power, W */
	bool volt_scaled;		/* power_w at Vmax, times (V(f)/Vmax)^2 */
};

/**
 * struct platform - one core's P-states, power model and C-states, and the
 * cpufreq driver's behaviour (a file, platform.c, or vfreq's by default)
 */
struct platform {
	char name[32];
	int np;
	uint32_t khz[SIM_MAX_PSTATES];	/* ascending */
	double busy_w[SIM_MAX_PSTATES];	/* P(f), W */
	double volt[SIM_MAX_PSTATES];	/* V(f) / Vmax */
	int nc;
	struct cstate c[SIM_MAX_CSTATES];
	double trans_us;		/* transition latency: the change takes effect after it */
	double trans_stall_us;		/* the policy's CPUs make no progress this long */
	double trans_uj;		/* energy of one change, per CPU */
	double rate_limit_us;		/* the governors' rate limit / sampling rate */
	bool fast_switch;		/* false: a kthread on the policy's CPU applies changes */
	double kthread_us;		/* its CPU time per change (at fmax) */
	bool invariant;			/* frequency-invariant utilization (APERF/MPERF) */
	double uncore_w;		/* per-CPU constant power while the package is up */
};

int platform_load(struct platform *p, const char *path, char *err, size_t errsz);
void platform_vfreq(struct platform *p);
double platform_idle_w(const struct platform *p, int cstate, int fidx);
int platform_index(const struct platform *p, uint32_t khz, int relation);
#define REL_L	0	/* lowest at or above */
#define REL_H	1	/* highest at or below */
#define REL_C	2	/* closest */

/* ---- the machine (engine.c) ------------------------------------------------------------ */

struct sim;
struct thread;

/**
 * struct req - one request, from its arrival (at the first stage) to its
 * last stage's answer
 */
struct req {
	double sched;		/* arrival at the first stage (the client's scheduled send) */
	double arr;		/* arrival at the current stage's socket */
	double read;		/* the read that took it (current stage) */
	double srv_arr, srv_done; /* the server stage's arrival and answer */
	double work;		/* the current stage's CPU work left, fmax-seconds */
	double stall;		/* frequency-insensitive on-CPU time left, s */
	double block;		/* off-CPU time before the answer, s */
	double srv_work;	/* the server stage's work drawn, fmax-seconds (bound) */
	int target, stage, conn;
	bool measured;		/* scheduled inside the measured interval */
	struct req *next;
};

struct conn {
	struct req *head, *tail;
	int n;
	int thread;		/* the thread that serves it */
	bool ready;		/* on its thread's ready list */
	int next_ready;
};

enum th_state { TH_WAIT, TH_RUNQ, TH_RUN, TH_BLOCK };

struct thread {
	int id, target, stage;
	enum th_state state;
	int cpu;		/* current or last CPU */
	int pin;		/* -1: any CPU of [cpu_lo, cpu_hi] */
	int cpu_lo, cpu_hi;
	int *conns, nconns;
	int ready_head, ready_tail;	/* its connections with pending requests */
	struct req *batch, *batch_tail;	/* read, not answered */
	struct req *cur;
	double post;		/* work left after the last answer, fmax-seconds */
	bool in_wait_return;	/* dispatched out of a wait: count it */
	double wait_enter;	/* the wait call's entry */
	double busy_from;	/* the busy segment's start (0: none) */
	double run_start;	/* dispatched at */
	double enq_t;		/* made runnable at */
	uint64_t gen;		/* invalidates its pending events */
	struct thread *rq_next;
};

enum cpu_state { CPU_IDLE, CPU_WAKING, CPU_RUN };

struct cpu {
	int id, policy;
	enum cpu_state state;
	int cstate;		/* while idle */
	double idle_since;
	struct thread *cur;
	struct thread *rq_head, *rq_tail;
	int rq_len;
	int fidx;		/* P-state in effect */
	double rate;		/* work progress per second (f / fmax, times the coupling) */
	double seg_t;		/* progress settled up to */
	uint64_t gen;		/* invalidates its pending completion */
	double kwork;		/* kernel work queued while idle, s */
	bool kernel_run;	/* running kernel work (no thread) */
	uint64_t pgen;		/* invalidates its pending time-slice end */
	/* energy */
	double e_t, e_j, e_meas_j, power_w;
	int transitions;
	/* utilization */
	double busy_s;		/* time running (thread or kernel work) */
	double busy_t0;		/* current busy stretch's start */
	double pelt, pelt_inv, pelt_t;
	uint64_t idle_calls;
	/* idle governor */
	double idle_hist[8];
	int idle_hist_n;
	double idle_avg;
	double qos_us;		/* resume latency limit (PM QoS), <0: none */
	double next_timer;	/* the CPU's next known timer (background) */
	int sender_of;		/* the target whose client sends from this CPU (-1: none) */
	/* statistics */
	double res_c[SIM_MAX_CSTATES];
	double res_cexit[SIM_MAX_CSTATES];	/* C0 time of the exits from each state */
	double res_f[SIM_MAX_PSTATES];
	double stat_t;
	int coupled;		/* in the coupling group (the guest's one TCG thread) */
};

struct policy {
	int id, cpu_lo, cpu_hi;	/* its CPUs */
	int fidx;		/* requested P-state (in effect after the transition) */
	double pending_t;	/* a transition takes effect then (0: none) */
	int pending_fidx;
	uint64_t tgen, timer_gen;
	void *gov;		/* the governor's per-policy state */
	double last_change;
	bool locked;		/* held at fmax whatever the governor (the guest's CPU 0) */
};

/* one stage of a target's pipeline: client send, server, client receive */
struct stage {
	int nthreads, nconns;
	int first_thread, first_conn;
	struct dist work, stall, block, post;
	bool has_stall, has_block, has_post;
	int cpu_lo, cpu_hi;
	bool pinned;
	double *weights;	/* routing weights of its connections (NULL: round robin) */
	int rr;
};

/**
 * struct target - one server process and its load: its stages, its SLO and
 * the BPF side's per-target state (bpfside.c)
 */
struct target {
	int id;
	int nstages, server;	/* stages; the index of the server stage */
	struct stage st[SIM_MAX_STAGES];
	struct arrivals arr;
	struct arr_state as;
	struct rng wrng;	/* work draws */
	uint64_t wpos;
	/* the client's own delay added to each latency it measures (no CPU time), us */
	struct dist cdelay;
	bool has_cdelay;
	struct rng crng;
	uint64_t cpos;
	uint32_t slo_us, slo_q, margin;
	double load;		/* share of its capacity */
	double capacity;	/* requests/s at fmax */
	void *bpf;		/* the BPF side's state (bpfside.c) */
	/* results over the measured interval */
	uint64_t n_meas, n_done;
	uint64_t n_served;	/* answered inside the measured interval */
	struct hdr *lat;	/* the latency the SLO is about (client's when there is one) */
	struct hdr *srv_lat;	/* server-side */
	double work_sum;	/* server work of measured requests, fmax-seconds */
	/* requests of the measured interval, for the lower bound */
	double *b_arr, *b_work;
	int *b_cpu;
	uint64_t b_n, b_cap;
};

/* ---- latency histogram (hdr.c) ----------------------------------------------------------- */

struct hdr;
struct hdr *hdr_new(void);
void hdr_free(struct hdr *h);
void hdr_add(struct hdr *h, double us);
double hdr_pct(const struct hdr *h, double q);
uint64_t hdr_count(const struct hdr *h);
double hdr_mean(const struct hdr *h);

/* ---- events (engine.c) -------------------------------------------------------------------- */

enum ev_type {
	EV_ARRIVAL,	/* a target's next arrival */
	EV_CPU_DONE,	/* a CPU's running segment ends */
	EV_WAKE_DONE,	/* a CPU's exit latency ends */
	EV_BLOCK_DONE,	/* a thread's blocking ends */
	EV_PREEMPT,	/* a CPU's time slice ends */
	EV_WINDOW,	/* a target's window closes (bpfside.c) */
	EV_GOV_TIMER,	/* a policy's governor timer */
	EV_FREQ,	/* a policy's transition takes effect */
	EV_TICK,	/* a busy CPU's scheduler tick */
	EV_BG,		/* background kernel work on a CPU */
	EV_STOP,
};

struct event {
	double t;
	uint64_t seq;
	enum ev_type type;
	int idx;
	uint64_t gen;
};

/* ---- governors -------------------------------------------------------------------------- */

struct gov_ops {
	const char *name;
	void (*init)(struct sim *s);
	void (*sched_hook)(struct sim *s, struct cpu *c);	/* enqueue, dequeue, tick */
	void (*timer)(struct sim *s, struct policy *p);
	/* a target's closed window (the kfunc): returns the budget T, us */
	uint32_t (*report)(struct sim *s, const void *sample);
	void (*fini)(struct sim *s);
};

extern const struct gov_ops gov_performance, gov_powersave, gov_fixed, gov_schedutil,
	gov_ondemand, gov_slack;

/* knobs of the slack law (SLACKGOV_GOV_KNOBS), settable per run (ablation) */
struct slack_knobs {
	uint32_t setpoint, kp, ki, kd, deadband, sat_cv, stale_ms, safe_khz, rate_limit_us,
		 idle_tight_slack, idle_relax_slack, idle_latency_us, ff_gain, slo_margin,
		 slo_gain;
	bool qos;		/* the idle constraint (sg_collect) */
};

/* The law this sgsim was built with (sim/law.h, in control.o). */
extern const char sim_law[];

/* ---- the simulation ------------------------------------------------------------------------ */

/**
 * struct simcfg - one cell: the machine, its targets, the measured interval
 */
struct simcfg {
	char name[64];
	char law[32];		/* the law the cell needs: "law" or a sim/variants NAME */
	struct platform plat;
	int ncpus;
	int policy_cpus;	/* CPUs per policy (1: per core; ncpus: shared) */
	int ntargets;
	struct target tgt[SIM_MAX_TARGETS];
	double warm_s, dur_s;
	uint64_t seed;
	/* background kernel work per CPU: rate (1/s) and CPU time (us at fmax) */
	double bg_rate, bg_us;
	double wake_us;		/* scheduler wake-up latency of a thread, s */
	double slice_s;		/* CFS-like time slice */
	double decide_us;	/* CPU cost of one slack decision */
	double close_us;	/* CPU cost of the BPF side's window close */
	int coupled_lo, coupled_hi;	/* CPUs sharing one emulator thread (-1: none) */
	int governed_lo, governed_hi;	/* CPUs whose energy counts */
	int perf_lo, perf_hi;		/* CPUs held at fmax (-1: none) */
	double window_s;	/* the BPF side's window */
	bool collect_bound;	/* keep the requests for the lower bound */
	bool split_cpu;		/* the BPF side reports each CPU's share of a target */
	struct slack_knobs knobs;
	bool client_lat;	/* the SLO is on the client's latency */
};

struct sim {
	const struct simcfg *cfg;
	const struct platform *plat;
	const struct gov_ops *gov;
	int fixed_fidx;		/* gov_fixed's P-state */
	double now;
	/* event heap */
	struct event *heap;
	int nheap, capheap;
	uint64_t seq;
	int ncpus, npol;
	struct cpu cpu[SIM_MAX_CPUS];
	struct policy pol[SIM_MAX_CPUS];
	int nthreads;
	struct thread *th;
	int nconns;
	struct conn *conn;
	int ntargets;
	struct target tgt[SIM_MAX_TARGETS];
	struct req *free_reqs;
	double t_meas0, t_meas1;
	int nbusy_coupled;
	int stealable;		/* free threads waiting on a run queue */
	int closer_cpu;		/* the CPU closing the current window (bpfside.c) */
	uint64_t nevents;
	void *govstate;
	struct rng bgrng;
	/* results */
	double e_gov_j;		/* governed CPUs' energy over the measured interval */
	uint64_t decisions, freq_changes, boosts;
};

/* engine.c */
int sim_run(struct sim *s, const struct simcfg *cfg, const struct gov_ops *gov, int fixed);
void sim_free(struct sim *s);
void ev_push(struct sim *s, double t, enum ev_type type, int idx, uint64_t gen);
void policy_request(struct sim *s, struct policy *p, int fidx, bool urgent);
void policy_timer(struct sim *s, struct policy *p, double t);
double cpu_busy_s(struct sim *s, struct cpu *c);
void cpu_set_qos(struct sim *s, struct cpu *c, double us);
void cpu_kernel_work(struct sim *s, struct cpu *c, double secs);
uint32_t policy_cur_khz(const struct sim *s, const struct policy *p);
void pelt_update(struct sim *s, struct cpu *c);

/* bpfside.c: the BPF side's windows */
void bpf_init(struct sim *s, struct target *t);
void bpf_free(struct target *t);
void bpf_window(struct sim *s, struct target *t);
void bpf_recv(struct sim *s, struct target *t, struct thread *th, int nreq);
void bpf_wait_return(struct sim *s, struct target *t, struct thread *th, double blocked_from);
void bpf_wait_enter(struct sim *s, struct target *t, struct thread *th);
void bpf_answer(struct sim *s, struct target *t, struct thread *th, struct req *r);
void bpf_switch_out(struct sim *s, struct target *t, struct thread *th, double ran);
void bpf_ran_on(struct sim *s, struct target *t, int cpu);

/* bound.c: the clairvoyant lower bound over the measured interval, J */
double bound_energy_j(const struct sim *s, bool *feasible);

/* cell.c: cell specs */
int cell_parse(struct simcfg *cfg, const char *line, const char *platdir, char *err,
	       size_t errsz);
void knobs_default(struct slack_knobs *k);

static inline double fmin2(double a, double b) { return a < b ? a : b; }
static inline double fmax2(double a, double b) { return a > b ? a : b; }

#endif
