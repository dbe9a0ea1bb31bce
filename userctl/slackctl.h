/* SPDX-License-Identifier: GPL-2.0 */
/* slackctl.h - what slackctl's command files share. */
#ifndef SLACKCTL_H
#define SLACKCTL_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "slackgov.h"
#include "json_writer.h"

#ifndef SLACKCTL_VERSION
#define SLACKCTL_VERSION "0.1"	/* as main.c's */
#endif
#define SC_LINK_DIR	SLACKGOV_PIN_DIR "/links"
#define SC_GOV_DIR	"/sys/devices/system/cpu/cpufreq/slack"
#define SC_CPUFREQ	"/sys/devices/system/cpu/cpufreq"

/* a parameter that a callback's fixed signature has and this one does not read */
#define __maybe_unused	__attribute__((unused))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

extern bool json_output;
extern bool pretty_output;
extern bool verbose;
/* the -j / -p writer on stdout (NULL without -j) */
extern json_writer_t *json_wtr;

/*
 * Report an error: "Error: ..." on stderr, or {"error": "..."} with -j
 * (sc_error(), main.c).  sc_err() is -1, written here so that each caller's
 * compiler and the static analyzer see it ("return sc_err(...)" returns
 * an error, with nothing written to the caller's outputs): a function's
 * return value is not seen across files, and the analyzer does not follow
 * variadic calls.
 */
void sc_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define sc_err(...)	({ sc_error(__VA_ARGS__); -1; })

/* argument helpers: is_prefix(arg, word), NEXT_ARG */
bool is_prefix(const char *arg, const char *word);
#define NEXT_ARG() ({ argc--; argv++; })

/* what a command needs (sc_check_env flags) */
#define SC_NEED_BPF	(1 << 0)	/* the bpf() capabilities */
#define SC_NEED_BPFFS	(1 << 1)	/* bpffs mounted at /sys/fs/bpf */
#define SC_NEED_ROOT	(1 << 2)	/* writes to the governor's sysfs files */
#define SC_NEED_PINS	(SC_NEED_BPF | SC_NEED_BPFFS)
int sc_check_env(unsigned int need);
void sc_block_signals(sigset_t *old);
int sc_lock(void);
bool sc_module_loaded(void);
bool sc_loaded(void);
bool sc_feed_on(void);
int sc_map_fd(const char *name);
int sc_read_file(const char *path, char *buf, size_t len);

int sc_for_each_target(void (*fn)(int kind, const void *key, const struct slackgov_target *v, void *ctx),
		       void *ctx);
void sc_margin_text(__u32 slo_margin, char *buf, size_t len);
void sc_json_margin(__u32 slo_margin);
void sc_target_text(int kind, const void *key, char *buf, size_t len);
/* room for sc_target_text(): "pattern ID/GLOB" at its longest, sanitized */
#define SC_TARGET_TEXT_LEN	(32 + 4 * SLACKGOV_CGNAME_LEN)

/* cgroup.c: --unit NAME and --cgroup DIR/GLOB */
int sc_cg2_mount(char *buf, size_t len);
int sc_unit_check(const char *cmd, const char *unit);
int sc_unit_key(const char *cmd, const char *unit, struct slackgov_cgname *k, char *path, size_t len);
bool sc_is_glob(const char *path);
int sc_glob_key(const char *cmd, const char *path, bool by_id, struct slackgov_cgname *k);

int do_load(int argc, char **argv);
/* load.c: SLACKGOV_HOOKS_* as a word, and with why (fentry_errno) */
const char *sc_hooks_name(__u32 hooks);
const char *sc_proto_name(__u32 proto);
/* uprobe.c: target add --request */
int sc_uprobe_attach(__u32 slot, int pid, const char *spec);
void sc_uprobe_detach(__u32 slot);
int sc_tls_attach(__u32 slot, int pid, const char *lib);
const char *sc_attribution(const struct slackgov_target *v);
const char *sc_hooks_text(__u32 hooks, __u32 fentry_errno, char *buf, size_t len);
/* load.c: the pinned sg_config as loaded (0, or -1 when it cannot be read) */
int sc_bpf_config(struct slackgov_bpf_config *c);
int do_unload(int argc, char **argv);
int do_target(int argc, char **argv);
int do_set(int argc, char **argv);
int do_get(int argc, char **argv);
int do_status(int argc, char **argv);
int do_stats(int argc, char **argv);
int do_policy(int argc, char **argv);	/* policy.c: BPF control laws */

/* status.c: a target's figures over an interval, from the snaps ring */
struct sc_interval {
	bool ok;		/* a snapshot to difference against exists */
	double span_s;		/* what the figures cover (>= the asked interval
				 * once the ring is that deep) */
	double rps, slack, cv, util;	/* util in CPUs, slack 0..1 */
	__u64 requests, recvs, windows, lat_n, slo_windows, slo_over;
	double lat_mean_s, queue_mean_s;
	/* the service split per request answered (bpf/ DOC item 8), s; -1: none */
	double oncpu_per_req_s, runq_per_req_s, block_per_req_s;
	double p50_us, p90_us, p99_us, slo_q_us;	/* -1: nothing timed */
};
int sc_interval(__u32 slot, const struct slackgov_target_state *st, __u64 interval_ns,
		struct sc_interval *iv);
void sc_read_state(int fd, __u32 slot, struct slackgov_target_state *st);
double sc_lat_quantile(const __u64 *count, __u64 n, __u32 q);

/* energy.c: top-level powercap zones */
#define SC_MAX_ZONES	64
struct sc_energy_zone {
	char zone[96];		/* "intel-rapl:0 package-0" */
	__u64 uj, max_uj;
};
int sc_energy_read(struct sc_energy_zone *z, int max);
double sc_energy_delta(const struct sc_energy_zone *a, int na, const struct sc_energy_zone *b, int nb);

/* status.c: one cpufreq policy as sysfs shows it; "-" where a file is missing */
struct sc_policy {
	char name[32], gov[32], cur[32], mode[32], reason[32], dec[32], boosts[32], fb[32];
	char last_freq[32], last_slack[32];
	char lat_q[32], slo_k[32];	/* the SLO law's last tail (us) and K x 1000 */
	char law[32];		/* "builtin", "bpf:<name>" (policy.c) */
};
/* at most this many policies are shown (one per CPU on the largest machines we know) */
#define SC_MAX_POLICIES	1024
int sc_read_policies(struct sc_policy **out);
bool sc_is_number(const char *s);

/* prom.c: the exposition, on @out; exporter.c serves it */
int sc_prom_write(FILE *out);
char *sc_prom_scrape(size_t *len);
int do_exporter(int argc, char **argv);
/* number.c: a duration argument (10ms, 1s, 500us; bare: ns) */
int sc_parse_duration(const char *what, const char *arg, __u64 min_ns, __u64 max_ns, __u64 *ns);

/* knobs */
enum sc_unit { SC_PERMILLE, SC_GAIN, SC_MS, SC_US, SC_KHZ, SC_NS, SC_COUNT, SC_SEC, SC_QUANTILE };

struct sc_knob {
	const char *name;
	bool bpf;		/* BPF-side (sg_config) or governor sysfs */
	enum sc_unit unit;
	unsigned long long min, max, def;
};

extern const struct sc_knob sc_knobs[];
const struct sc_knob *sc_knob_find(const char *name);
/* a knob's value, 0; -1 without a message when it is not there */
int sc_knob_read_raw(const struct sc_knob *k, unsigned long long *v);
const char *sc_unit_name(enum sc_unit u);

/*
 * number.c: the one number parser (rules in its DOC block).  Each prints
 * "WHAT: bad value 'ARG': why" or "WHAT: ARG is out of range MIN..MAX UNIT"
 * and returns -1 on a bad argument, 0 and *out in @unit otherwise.
 */
int sc_parse_num(const char *what, enum sc_unit unit, unsigned long long min,
		 unsigned long long max, const char *arg, unsigned long long *out);
int sc_parse_value(const struct sc_knob *k, const char *arg, unsigned long long *out);
/* printable ASCII copy of @in: other bytes as \xNN (for echoed arguments) */
void sc_sanitize(const char *in, char *out, size_t len);
/* "Warning: ..." on stderr (also with -j: the JSON document stays clean) */
void sc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Command tables, bpftool's way: { name, handler } per object, NULL-ended.
 * sc_cmd_select() runs the one that @argv[0] names or is a unique prefix of
 * (an exact name wins); none, or several, is an error naming the candidates.
 */
struct sc_cmd {
	const char *name;
	int (*func)(int argc, char **argv);
};
int sc_cmd_select(const struct sc_cmd *cmds, const char *object, int argc, char **argv);
int do_target_help(int argc, char **argv);

/*
 * Is slackgov loaded (the pin folder complete)?  0, or -1 after an error
 * that says why not: not loaded, an incomplete folder (a load or unload
 * that was killed: unload clears it), or no permission to see the pins.
 */
int sc_need_loaded(void);

#endif
