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

#define SC_LINK_DIR	SLACKGOV_PIN_DIR "/links"
#define SC_GOV_DIR	"/sys/devices/system/cpu/cpufreq/slack"
#define SC_CPUFREQ	"/sys/devices/system/cpu/cpufreq"

extern bool json_output;
extern bool pretty_output;
extern bool verbose;
/* the -j / -p writer on stdout (NULL without -j) */
extern json_writer_t *json_wtr;

/* Report an error: "Error: ..." on stderr, or {"error": "..."} with -j.  Returns -1. */
int sc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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
void sc_target_text(int kind, const void *key, char *buf, size_t len);

int do_load(int argc, char **argv);
int do_unload(int argc, char **argv);
int do_target(int argc, char **argv);
int do_set(int argc, char **argv);
int do_get(int argc, char **argv);
int do_status(int argc, char **argv);
int do_stats(int argc, char **argv);

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
const char *sc_unit_name(enum sc_unit u);

/*
 * number.c: the one number parser (rules in its DOC block).  Each prints
 * "WHAT: bad value 'ARG': why" or "WHAT: ARG is out of range MIN..MAX UNIT"
 * and returns -1 on a bad argument, 0 and *out in @unit otherwise.
 */
int sc_parse_num(const char *what, enum sc_unit unit, unsigned long long min,
		 unsigned long long max, const char *arg, unsigned long long *out);
int sc_parse_value(const struct sc_knob *k, const char *arg, unsigned long long *out);
/* a duration (10ms, 1s, 500us; bare: ns) */
int sc_parse_duration(const char *what, const char *arg, __u64 min_ns, __u64 max_ns, __u64 *ns);
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
