// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - slackctl target add | del | set | list: the target_pid,
 * target_comm, target_cgroup, target_unit and target_glob maps, slot
 * allocation, and the generation bump that makes the BPF side reclassify
 * threads.  The names of units and patterns: cgroup.c.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include "slackctl.h"

static const char *const kind_map[] = {
	[SLACKGOV_TARGET_PID] = "target_pid",
	[SLACKGOV_TARGET_COMM] = "target_comm",
	[SLACKGOV_TARGET_CGROUP] = "target_cgroup",
	[SLACKGOV_TARGET_UNIT] = "target_unit",
	[SLACKGOV_TARGET_GLOB] = "target_glob",
};
static const char *const kind_name[] = {
	[SLACKGOV_TARGET_PID] = "pid",
	[SLACKGOV_TARGET_COMM] = "comm",
	[SLACKGOV_TARGET_CGROUP] = "cgroup",
	[SLACKGOV_TARGET_UNIT] = "unit",
	[SLACKGOV_TARGET_GLOB] = "pattern",
};
static const size_t kind_key_size[] = {
	[SLACKGOV_TARGET_PID] = sizeof(__u32),
	[SLACKGOV_TARGET_COMM] = SLACKGOV_COMM_LEN,
	[SLACKGOV_TARGET_CGROUP] = sizeof(__u64),
	[SLACKGOV_TARGET_UNIT] = sizeof(struct slackgov_cgname),
	[SLACKGOV_TARGET_GLOB] = sizeof(struct slackgov_cgname),
};

/* a key of any target map, for the walks over them */
union sc_key {
	__u32 pid;
	char comm[SLACKGOV_COMM_LEN];
	__u64 cgid;
	struct slackgov_cgname cgn;
};

struct sc_tkey {
	int kind;
	union {
		__u32 pid;
		char comm[SLACKGOV_COMM_LEN];
		__u64 cgid;
		struct slackgov_cgname cgn;
	};
	char text[SC_TARGET_TEXT_LEN];
};

/*
 * The target maps in kind order.  target_unit and target_glob came with
 * --unit and --cgroup DIR/GLOB: an instance loaded before has none, and
 * the walks skip them (-ENOENT) rather than fail.
 */
static int kind_fd(int kind)
{
	int fd = sc_map_fd(kind_map[kind]);

	if (fd < 0 && errno == ENOENT && kind >= SLACKGOV_TARGET_UNIT)
		return -2;
	return fd;
}

/*
 * Fields of /proc/PID/stat: 3 (state), 9 (flags), 22 (starttime, USER_HZ
 * ticks since boot, returned in ns).  -1 if there is no such process.
 */
static int pid_stat(__u32 pid, char *state, unsigned long long *flags, __u64 *start_ns)
{
	char path[64], buf[1024], *p;
	unsigned long long ticks;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')) || sscanf(p, ") %c", state) != 1)
		return -1;
	for (i = 2; i < 22 && p; i++) {		/* field 2 ends at ')' */
		p = strchr(p + 1, ' ');
		if (i == 8 && p && sscanf(p + 1, "%llu", flags) != 1)
			return -1;
	}
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
		return -1;
	*start_ns = ticks * SLACKGOV_TICK_NS;
	return 0;
}

/* the thread group of @pid, from /proc/PID/status (0 if it has none) */
static __u32 pid_tgid(__u32 pid)
{
	char path[64], line[128];
	unsigned int tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* PF_KTHREAD of include/linux/sched.h: /proc/PID/stat's flags show it */
#define SC_PF_KTHREAD	0x00200000ULL
/* PID_MAX_LIMIT on 64-bit kernels (4M): no PID is larger */
#define SC_PID_MAX	4194304

/* what a target command was given */
struct sc_targs {
	struct sc_tkey t;
	bool by_slot, by_id;	/* --slot N, or --cgroup ID (del, set) */
	__u32 slot;
	bool has_setpoint, has_slo, has_margin, has_proto;
	__u32 setpoint, slo_us, slo_q, slo_margin, proto;
	const char *request;	/* --request BINARY:ENTRY[:EXIT] or usdt:... */
	const char *tls;	/* --tls LIBSSL */
	char cgpath[PATH_MAX];	/* add --unit: the unit's directory */
};

/* --proto's names, by enum slackgov_proto ("none" is thread's alias) */
static const char *const proto_names[SLACKGOV_PROTO_NR] = {
	[SLACKGOV_PROTO_THREAD]		= "thread",
	[SLACKGOV_PROTO_CONN]		= "conn",
	[SLACKGOV_PROTO_RESP]		= "resp",
	[SLACKGOV_PROTO_MEMCACHE]	= "memcache",
	[SLACKGOV_PROTO_HTTP1]		= "http1",
	[SLACKGOV_PROTO_HTTP2]		= "http2",
	[SLACKGOV_PROTO_AUTO]		= "auto",
	[SLACKGOV_PROTO_FUNC]		= "func",
};

const char *sc_proto_name(__u32 proto)
{
	return proto < SLACKGOV_PROTO_NR ? proto_names[proto] : "unknown";
}

/* what a target's requests are bracketed by (bpf/conn.bpf.h) */
const char *sc_attribution(const struct slackgov_target *v)
{
	__u32 proto = v->proto;

	if (v->flags & SLACKGOV_TARGET_F_TLS)
		return "tls+parser";
	if (proto == SLACKGOV_PROTO_THREAD)
		return "thread";
	if (proto == SLACKGOV_PROTO_FUNC)
		return "function";
	return proto == SLACKGOV_PROTO_CONN ? "connection" : "connection+parser";
}

static int parse_proto(const char *cmd, const char *arg, __u32 *proto)
{
	__u32 i;

	if (!strcmp(arg, "none")) {
		*proto = SLACKGOV_PROTO_THREAD;
		return 0;
	}
	for (i = 0; i < SLACKGOV_PROTO_NR; i++) {
		if (i != SLACKGOV_PROTO_FUNC && !strcmp(arg, proto_names[i])) {
			*proto = i;
			return 0;
		}
	}
	return sc_err("%s: --proto '%s': not one of thread (none), conn, resp, memcache, http1, http2, auto",
		      cmd, arg);
}

enum { SC_T_ADD, SC_T_DEL, SC_T_SET };
static const char *const t_cmd[] = { "target add", "target del", "target set" };

/* SLO := [pQUANTILE:]DURATION, or "none" (set: remove it) */
static int parse_slo(const char *cmd, const char *arg, bool none_ok, __u32 *us, __u32 *q)
{
	const char *colon = strchr(arg, ':'), *dur = arg;
	unsigned long long v, qq = SLACKGOV_Q_DEFAULT;
	char qtext[32];

	if (none_ok && !strcmp(arg, "none")) {
		*us = *q = 0;
		return 0;
	}
	if (arg[0] == 'p' && colon) {
		if ((size_t)(colon - arg - 1) >= sizeof(qtext))
			return sc_err("%s: --slo '%s': bad percentile (p50, p95, p99.9)", cmd, arg);
		memcpy(qtext, arg + 1, colon - arg - 1);
		qtext[colon - arg - 1] = 0;
		if (sc_parse_num("--slo percentile", SC_QUANTILE, 0, ~0ULL, qtext, &qq))
			return -1;
		if (qq == 0 || qq >= SLACKGOV_Q_ONE)
			return sc_err("%s: --slo '%s': the percentile must be above p0 and below p100 (p50, p99, p99.9)",
				      cmd, arg);
		dur = colon + 1;
		if (!*dur)
			return sc_err("%s: --slo '%s' has no duration (e.g. p99:2ms)", cmd, arg);
	} else if (colon || arg[0] == 'p') {
		return sc_err("%s: --slo '%s': write [pQUANTILE:]DURATION, e.g. 2ms, p95:2ms, p99.9:500us",
			      cmd, arg);
	}
	if (sc_parse_num("--slo", SC_US, 1, SLACKGOV_LAT_MAX_US, dur, &v))
		return -1;
	*us = v;
	*q = qq;
	return 0;
}

/*
 * add:  TARGET [--setpoint VALUE] [--slo SLO [--slo-margin MARGIN]]
 * del:  TARGET_REF
 * set:  TARGET_REF [--setpoint VALUE] [--slo { SLO | none }] [--slo-margin MARGIN]
 * MARGIN := { PERCENT | default } (default: the slo_margin knob)
 * TARGET := { --pid PID | --comm NAME | --cgroup PATH }
 * TARGET_REF := { TARGET | --cgroup CGROUP_ID | --slot SLOT }
 * Everything is parsed and checked before anything is changed.
 */
static int parse_target(int argc, char **argv, int cmd, struct sc_targs *a)
{
	static const char *const opts[] = { "--pid", "--comm", "--cgroup", "--unit", "--slot", "--setpoint",
					    "--slo", "--slo-margin", "--proto", "--request", "--tls" };
	enum { O_PID, O_COMM, O_CGROUP, O_UNIT, O_SLOT, O_SETPOINT, O_SLO, O_MARGIN, O_PROTO, O_REQUEST,
	       O_TLS, O_NR };
	const struct sc_knob *sp = sc_knob_find("setpoint"), *mk = sc_knob_find("slo_margin");
	const char *c = t_cmd[cmd];
	unsigned long long v;
	struct statfs sfs;
	struct stat st;
	int o, n, i;

	memset(a, 0, sizeof(*a));
	for (; argc > 0; argc -= 2, argv += 2) {
		for (o = -1, n = 0, i = 0; i < O_NR; i++) {
			if (!strcmp(argv[0], opts[i])) {
				o = i, n = 1;
				break;
			}
			if (strlen(argv[0]) > 2 && is_prefix(argv[0], opts[i]))
				o = i, n++;
		}
		if (n > 1)
			return sc_err("%s: ambiguous option '%s'", c, argv[0]);
		if (o < 0 || (o == O_SLOT && cmd == SC_T_ADD) ||
		    ((o == O_REQUEST || o == O_TLS) && cmd != SC_T_ADD) ||
		    ((o == O_SETPOINT || o == O_SLO || o == O_MARGIN || o == O_PROTO) && cmd == SC_T_DEL))
			return sc_err("%s: unexpected '%s' (slackctl target help)", c, argv[0]);
		if (argc < 2)
			return sc_err("%s: '%s' needs a value", c, opts[o]);
		if (o <= O_SLOT && (a->t.kind || a->by_slot))
			return sc_err("%s: give one target", c);
		switch (o) {
		case O_PID:
			if (sc_parse_num("--pid", SC_COUNT, 1, SC_PID_MAX, argv[1], &v))
				return -1;
			a->t.kind = SLACKGOV_TARGET_PID;
			a->t.pid = v;
			snprintf(a->t.text, sizeof(a->t.text), "%u", a->t.pid);
			break;
		case O_COMM:
			if (!*argv[1] || strlen(argv[1]) >= SLACKGOV_COMM_LEN)
				return sc_err("%s: process name '%s' must be 1 to 15 characters", c, argv[1]);
			a->t.kind = SLACKGOV_TARGET_COMM;
			strncpy(a->t.comm, argv[1], SLACKGOV_COMM_LEN - 1);
			sc_sanitize(argv[1], a->t.text, sizeof(a->t.text));
			break;
		case O_CGROUP:
			if (sc_is_glob(argv[1])) {
				a->t.kind = SLACKGOV_TARGET_GLOB;
				if (sc_glob_key(c, argv[1], cmd != SC_T_ADD, &a->t.cgn))
					return -1;
				snprintf(a->t.text, sizeof(a->t.text), "%llu/%s",
					 (unsigned long long)a->t.cgn.parent, a->t.cgn.name);
				break;
			}
			a->t.kind = SLACKGOV_TARGET_CGROUP;
			/* del/set: digits are an id (what list shows), so a removed cgroup is named */
			if (cmd != SC_T_ADD && argv[1][0] >= '0' && argv[1][0] <= '9' &&
			    strspn(argv[1], "0123456789") == strlen(argv[1])) {
				if (sc_parse_num("--cgroup", SC_COUNT, 1, ~0ULL, argv[1], &v))
					return -1;
				a->t.cgid = v;
				a->by_id = true;
				snprintf(a->t.text, sizeof(a->t.text), "%llu", v);
				break;
			}
			if (statfs(argv[1], &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC ||
			    stat(argv[1], &st) || !S_ISDIR(st.st_mode)) {
				if (cmd != SC_T_ADD && errno == ENOENT)
					return sc_err("%s: '%s' does not exist: name a removed cgroup by its id "
						      "(--cgroup ID or --slot SLOT, as 'slackctl target list' shows)",
						      c, argv[1]);
				return sc_err("%s: '%s' is not a cgroup v2 directory", c, argv[1]);
			}
			a->t.cgid = st.st_ino;	/* a cgroup v2 directory's inode is its id */
			snprintf(a->t.text, sizeof(a->t.text), "%llu", (unsigned long long)a->t.cgid);
			break;
		case O_UNIT:
			a->t.kind = SLACKGOV_TARGET_UNIT;
			/* del/set find it by name: a unit that is not running now is named too */
			if (cmd == SC_T_ADD ? sc_unit_key(c, argv[1], &a->t.cgn, a->cgpath, sizeof(a->cgpath)) :
			    sc_unit_check(c, argv[1]))
				return -1;
			if (cmd != SC_T_ADD)
				strncpy(a->t.cgn.name, argv[1], sizeof(a->t.cgn.name) - 1);
			snprintf(a->t.text, sizeof(a->t.text), "%s", a->t.cgn.name);
			break;
		case O_SLOT:
			if (sc_parse_num("--slot", SC_COUNT, 0, SLACKGOV_MAX_TARGETS - 1, argv[1], &v))
				return -1;
			a->by_slot = true;
			a->slot = v;
			break;
		case O_SETPOINT:
			if (sc_parse_value(sp, argv[1], &v))
				return -1;
			a->has_setpoint = true;
			a->setpoint = v;
			break;
		case O_SLO:
			if (parse_slo(c, argv[1], cmd == SC_T_SET, &a->slo_us, &a->slo_q))
				return -1;
			a->has_slo = true;
			break;
		case O_MARGIN:
			if (!strcmp(argv[1], "default")) {
				a->slo_margin = 0;
			} else {
				if (sc_parse_value(mk, argv[1], &v))
					return -1;
				a->slo_margin = SLACKGOV_MARGIN_OWN | v;
			}
			a->has_margin = true;
			break;
		case O_PROTO:
			if (parse_proto(c, argv[1], &a->proto))
				return -1;
			a->has_proto = true;
			break;
		case O_REQUEST:
			a->request = argv[1];
			break;
		case O_TLS:
			a->tls = argv[1];
			break;
		}
	}
	if (a->tls && (!a->has_proto || a->proto == SLACKGOV_PROTO_THREAD || a->request))
		return sc_err("%s: --tls reads the requests at SSL_read: give the protocol too (--proto http2, http1, resp, auto, ...; not thread, not with --request)",
			      c);
	if (a->request && a->has_proto)
		return sc_err("%s: --request brackets requests by a function: not with --proto", c);
	if (a->request)
		a->proto = SLACKGOV_PROTO_FUNC;
	if (!a->t.kind && !a->by_slot)
		return sc_err(cmd == SC_T_ADD ? "%s: give --pid PID, --comm NAME, --cgroup PATH or --unit NAME" :
			      "%s: give --pid PID, --comm NAME, --cgroup { PATH | ID }, --unit NAME or --slot SLOT",
			      c);
	if (cmd == SC_T_SET && !a->has_setpoint && !a->has_slo && !a->has_margin && !a->has_proto)
		return sc_err("%s: nothing to set: give --setpoint VALUE, --slo SLO, --slo-margin MARGIN and/or --proto PROTO",
			      c);
	if (a->has_margin && a->has_slo && !a->slo_us)
		return sc_err("%s: --slo-margin with --slo none: a target without an SLO has no margin", c);
	if (cmd == SC_T_ADD && a->has_margin && !a->has_slo)
		return sc_err("%s: --slo-margin needs --slo: the margin is kept free of the SLO", c);
	return 0;
}

static int bump_generation(void)
{
	struct slackgov_bpf_config c;
	__u32 zero = 0;
	int fd = sc_map_fd("sg_config"), ret;

	if (fd < 0)
		return -1;
	ret = bpf_map_lookup_elem(fd, &zero, &c);
	if (!ret) {
		c.generation++;
		ret = bpf_map_update_elem(fd, &zero, &c, BPF_ANY);
	}
	close(fd);
	return ret;
}

/* mark the slots in use: walk the target maps */
static void used_slots(bool *used)
{
	union sc_key key, next;
	struct slackgov_target v;
	int k, fd;

	for (k = SLACKGOV_TARGET_PID; k < SLACKGOV_TARGET_NR; k++) {
		fd = kind_fd(k);
		if (fd < 0)
			continue;
		void *cur = NULL;

		while (!bpf_map_get_next_key(fd, cur, &next)) {
			key = next;
			cur = &key;
			if (!bpf_map_lookup_elem(fd, &key, &v) && v.slot < SLACKGOV_MAX_TARGETS)
				used[v.slot] = true;
		}
		close(fd);
	}
}

static int clear_window(__u32 slot)
{
	struct slackgov_target_state *st = calloc(1, sizeof(*st));
	int fd = sc_map_fd("windows"), ret;

	if (!st || fd < 0) {
		free(st);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	ret = bpf_map_update_elem(fd, &slot, st, BPF_ANY);
	free(st);
	close(fd);
	return ret;
}

/* "p99:2ms": an SLO as the user writes it ("-" for none) */
static void slo_text(__u32 us, __u32 q, char *buf, size_t len)
{
	char qs[16], *e;

	if (!us) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(qs, sizeof(qs), "%u.%02u", q / 100, q % 100);
	e = qs + strlen(qs) - 1;		/* 99.90 -> 99.9, 99.00 -> 99 */
	while (*e == '0')
		*e-- = 0;
	if (*e == '.')
		*e = 0;
	if (us % 1000000 == 0)
		snprintf(buf, len, "p%s:%us", qs, us / 1000000);
	else if (us % 1000 == 0)
		snprintf(buf, len, "p%s:%ums", qs, us / 1000);
	else
		snprintf(buf, len, "p%s:%uus", qs, us);
}

/* a target's SLO margin as the user writes it: "20%", or "default" (the knob) */
void sc_margin_text(__u32 m, char *buf, size_t len)
{
	if (m & SLACKGOV_MARGIN_OWN)
		snprintf(buf, len, "%g%%", slackgov_margin(m, 0) / 10.0);
	else
		snprintf(buf, len, "default");
}

/* JSON: the target's own margin in thousandths, null for the knob's */
void sc_json_margin(__u32 m)
{
	if (m & SLACKGOV_MARGIN_OWN)
		jsonw_uint_field(json_wtr, "slo_margin", slackgov_margin(m, 0));
	else
		jsonw_null_field(json_wtr, "slo_margin");
}

/* the map key of the target with @slot; 0, or -1 if no target has it */
static int find_slot(__u32 slot, struct sc_tkey *t)
{
	union sc_key key, next;
	struct slackgov_target v;
	int k, fd;

	for (k = SLACKGOV_TARGET_PID; k < SLACKGOV_TARGET_NR; k++) {
		void *cur = NULL;

		fd = kind_fd(k);
		if (fd < 0)
			continue;
		while (!bpf_map_get_next_key(fd, cur, &next)) {
			key = next;
			cur = &key;
			if (!bpf_map_lookup_elem(fd, &key, &v) && v.slot == slot) {
				close(fd);
				t->kind = k;
				memcpy(&t->pid, &key, kind_key_size[k]);
				sc_target_text(k, &key, t->text, sizeof(t->text));
				/* the text after the kind, as --pid/--comm/--cgroup give it */
				memmove(t->text, strchr(t->text, ' ') + 1, strlen(strchr(t->text, ' ')));
				return 0;
			}
		}
		close(fd);
	}
	return -1;
}

/*
 * del/set --unit NAME: the target_unit entry of that name, whatever its
 * slice (the unit may not run now, so systemd is not asked).  0, or -1.
 */
static int find_unit(const char *c, struct sc_tkey *t)
{
	union sc_key key, next;
	struct slackgov_target v;
	void *cur = NULL;
	int fd, n = 0;

	fd = kind_fd(SLACKGOV_TARGET_UNIT);
	if (fd < 0)
		return sc_err("target unit %s is not watched", t->text);
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		key = next;
		cur = &key;
		if (!strncmp(key.cgn.name, t->cgn.name, sizeof(key.cgn.name)) &&
		    !bpf_map_lookup_elem(fd, &key, &v)) {
			t->cgn = key.cgn;
			n++;
		}
	}
	close(fd);
	if (!n)
		return sc_err("target unit %s is not watched", t->text);
	if (n > 1)
		return sc_err("%s: %d unit targets are named %s (in different slices): give --slot SLOT", c, n,
			      t->text);
	return 0;
}

/* the process behind a --pid target: one the BPF side can watch, or an error */
static int check_pid(const char *c, __u32 pid, __u64 *start_ns)
{
	unsigned long long flags = 0;
	char state = 0;

	if (pid_stat(pid, &state, &flags, start_ns))
		return sc_err("%s: no process with PID %u", c, pid);
	/* the BPF side matches thread groups: a thread's id would never match */
	if (pid_tgid(pid) != pid)
		return sc_err("%s: %u is a thread of process %u: give the process's PID", c, pid,
			      pid_tgid(pid));
	if (flags & SC_PF_KTHREAD)
		return sc_err("%s: PID %u is a kernel thread: it makes no system calls to measure", c, pid);
	if (state == 'Z' || state == 'X')
		return sc_err("%s: PID %u has exited (a zombie): give a running process", c, pid);
	if (pid == 1)
		sc_warn("%s: PID 1 is the init process: its own requests are measured, not those of the services it starts",
			c);
	return 0;
}

static void print_target(const char *verb, int kind, const struct sc_tkey *t,
			 const struct slackgov_target *v)
{
	char slo[48], margin[16];

	slo_text(v->slo_us, v->slo_q, slo, sizeof(slo));
	sc_margin_text(v->slo_margin, margin, sizeof(margin));
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "kind", kind_name[kind]);
		jsonw_string_field(json_wtr, "id", t->text);
		jsonw_uint_field(json_wtr, "slot", v->slot);
		jsonw_uint_field(json_wtr, "setpoint", v->setpoint);
		jsonw_uint_field(json_wtr, "slo_us", v->slo_us);
		jsonw_uint_field(json_wtr, "slo_q", v->slo_q);
		sc_json_margin(v->slo_margin);
		jsonw_string_field(json_wtr, "proto", sc_proto_name(v->proto));
		jsonw_bool_field(json_wtr, "tls", v->flags & SLACKGOV_TARGET_F_TLS);
		jsonw_end_object(json_wtr);
	} else {
		printf("target %s %s: %s slot %u, setpoint %u, slo %s%s%s, proto %s\n", kind_name[kind],
		       t->text, verb, v->slot, v->setpoint, slo, v->slo_us ? ", margin " : "",
		       v->slo_us ? margin : "", sc_proto_name(v->proto));
	}
}

static int target_add(int argc, char **argv)
{
	static bool used[SLACKGOV_MAX_TARGETS];
	struct slackgov_target v = {}, old;
	struct sc_targs a;
	__u32 slot;
	int fd;

	if (parse_target(argc, argv, SC_T_ADD, &a) || sc_check_env(SC_NEED_PINS) || sc_need_loaded())
		return -1;
	if (a.t.kind == SLACKGOV_TARGET_PID && check_pid("target add", a.t.pid, &v.start_ns))
		return -1;
	fd = sc_map_fd(kind_map[a.t.kind]);
	if (fd < 0 && errno == ENOENT && a.t.kind >= SLACKGOV_TARGET_UNIT)
		return sc_err("the loaded slackgov has no %s map (loaded by an older slackctl): "
			      "slackctl unload, then load", kind_map[a.t.kind]);
	if (fd < 0)
		return sc_err("cannot open the %s map: %s", kind_map[a.t.kind], strerror(errno));
	if (!bpf_map_lookup_elem(fd, &a.t.pid, &old)) {
		close(fd);
		if (a.t.kind == SLACKGOV_TARGET_PID && old.start_ns / SLACKGOV_TICK_NS !=
		    v.start_ns / SLACKGOV_TICK_NS)
			return sc_err("target pid %s is watched, but for a process that has exited "
				      "(the PID was reused): 'slackctl target del --pid %s' first",
				      a.t.text, a.t.text);
		return sc_err("target %s %s is already watched", kind_name[a.t.kind], a.t.text);
	}
	used_slots(used);
	for (slot = 0; slot < SLACKGOV_MAX_TARGETS && used[slot]; slot++)
		;
	if (slot == SLACKGOV_MAX_TARGETS) {
		close(fd);
		return sc_err("the target table is full (%d targets): delete one first", SLACKGOV_MAX_TARGETS);
	}
	v.slot = slot;
	v.kind = a.t.kind;
	v.setpoint = a.setpoint;
	v.slo_us = a.slo_us;
	v.slo_q = a.slo_q;
	v.slo_margin = a.slo_margin;
	v.proto = a.proto;
	v.flags = a.tls ? SLACKGOV_TARGET_F_TLS : 0;
	if (a.t.kind == SLACKGOV_TARGET_UNIT || a.t.kind == SLACKGOV_TARGET_GLOB) {
		struct timespec ts;

		/* tells this add of the name from an earlier one in the slot (classify.bpf.h) */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		v.start_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	}
	/* the probes first: a binary or symbol that is not there changes nothing */
	if ((a.request && sc_uprobe_attach(slot, a.t.kind == SLACKGOV_TARGET_PID ? (int)a.t.pid : -1,
					   a.request)) ||
	    (a.tls && sc_tls_attach(slot, a.t.kind == SLACKGOV_TARGET_PID ? (int)a.t.pid : -1, a.tls))) {
		close(fd);
		return -1;
	}
	clear_window(slot);
	if (bpf_map_update_elem(fd, &a.t.pid, &v, BPF_NOEXIST)) {
		close(fd);
		sc_uprobe_detach(slot);
		return sc_err("cannot add the target: %s", strerror(errno));
	}
	close(fd);
	if (bump_generation()) {
		fd = sc_map_fd(kind_map[a.t.kind]);
		bpf_map_delete_elem(fd, &a.t.pid);
		close(fd);
		sc_uprobe_detach(slot);
		return sc_err("cannot publish the target change: %s", strerror(errno));
	}
	print_target("added in", a.t.kind, &a.t, &v);
	return 0;
}

/* the target that --pid/--comm/--cgroup/--slot names: its map fd, or -1 after an error */
static int resolve(const char *c, struct sc_targs *a, struct slackgov_target *v)
{
	int fd;

	if (a->by_slot && find_slot(a->slot, &a->t))
		return sc_err("%s: no target in slot %u", c, a->slot);
	if (!a->by_slot && a->t.kind == SLACKGOV_TARGET_UNIT && find_unit(c, &a->t))
		return -1;
	fd = sc_map_fd(kind_map[a->t.kind]);
	if (fd < 0)
		return sc_err("cannot open the %s map: %s", kind_map[a->t.kind], strerror(errno));
	if (bpf_map_lookup_elem(fd, &a->t.pid, v)) {
		close(fd);
		return sc_err("target %s %s is not watched", kind_name[a->t.kind], a->t.text);
	}
	return fd;
}

static int target_del(int argc, char **argv)
{
	struct slackgov_target v;
	struct sc_targs a;
	int fd, ret;

	if (parse_target(argc, argv, SC_T_DEL, &a) || sc_check_env(SC_NEED_PINS) || sc_need_loaded())
		return -1;
	fd = resolve("target del", &a, &v);
	if (fd < 0)
		return -1;
	ret = bpf_map_delete_elem(fd, &a.t.pid);
	close(fd);
	if (ret)
		return sc_err("cannot delete the target: %s", strerror(errno));
	bump_generation();
	clear_window(v.slot);
	sc_uprobe_detach(v.slot);	/* --request's probes, if any */
	if (json_wtr) {
		char text[SC_TARGET_TEXT_LEN + 16];

		snprintf(text, sizeof(text), "%s %s", kind_name[a.t.kind], a.t.text);
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "deleted", text);
		jsonw_uint_field(json_wtr, "slot", v.slot);
		jsonw_end_object(json_wtr);
	} else {
		printf("target %s %s: deleted (slot %u)\n", kind_name[a.t.kind], a.t.text, v.slot);
	}
	return 0;
}

/* a target's setpoint or SLO, in place: same slot, its windows kept */
static int target_set(int argc, char **argv)
{
	struct slackgov_target v;
	struct sc_targs a;
	int fd, ret;

	if (parse_target(argc, argv, SC_T_SET, &a) || sc_check_env(SC_NEED_PINS) || sc_need_loaded())
		return -1;
	fd = resolve("target set", &a, &v);
	if (fd < 0)
		return -1;
	if (a.has_setpoint)
		v.setpoint = a.setpoint;
	if (a.has_slo) {
		v.slo_us = a.slo_us;
		v.slo_q = a.slo_q;
	}
	if (a.has_margin && !v.slo_us) {
		close(fd);
		return sc_err("target set: --slo-margin: target %s %s has no SLO (give --slo too)",
			      kind_name[a.t.kind], a.t.text);
	}
	if (a.has_proto)
		v.proto = a.proto;
	if (a.has_margin)
		v.slo_margin = a.slo_margin;
	else if (!v.slo_us)
		v.slo_margin = 0;	/* --slo none: no SLO, no margin */
	ret = bpf_map_update_elem(fd, &a.t.pid, &v, BPF_EXIST);
	close(fd);
	if (ret)
		return sc_err("cannot change the target: %s", strerror(errno));
	/* the BPF side caches a target's setpoint and SLO per thread until the next generation */
	if (bump_generation())
		return sc_err("cannot publish the target change: %s", strerror(errno));
	print_target("set in", a.t.kind, &a.t, &v);
	return 0;
}

/* call fn(kind, key, value) for every target */
int sc_for_each_target(void (*fn)(int kind, const void *key, const struct slackgov_target *v, void *ctx),
		       void *ctx)
{
	union sc_key key, next;
	struct slackgov_target v;
	int k, fd, n = 0;

	for (k = SLACKGOV_TARGET_PID; k < SLACKGOV_TARGET_NR; k++) {
		void *cur = NULL;

		fd = kind_fd(k);
		if (fd == -2)
			continue;
		if (fd < 0)
			return -1;
		while (!bpf_map_get_next_key(fd, cur, &next)) {
			key = next;
			cur = &key;
			if (!bpf_map_lookup_elem(fd, &key, &v)) {
				fn(k, &key, &v, ctx);
				n++;
			}
		}
		close(fd);
	}
	return n;
}

void sc_target_text(int kind, const void *key, char *buf, size_t len)
{
	char comm[4 * SLACKGOV_COMM_LEN + 1];

	if (kind == SLACKGOV_TARGET_PID) {
		snprintf(buf, len, "pid %u", *(const __u32 *)key);
	} else if (kind == SLACKGOV_TARGET_COMM) {
		char raw[SLACKGOV_COMM_LEN];

		memcpy(raw, key, SLACKGOV_COMM_LEN);
		raw[SLACKGOV_COMM_LEN - 1] = 0;
		sc_sanitize(raw, comm, sizeof(comm));
		snprintf(buf, len, "comm %s", comm);
	} else if (kind == SLACKGOV_TARGET_CGROUP) {
		snprintf(buf, len, "cgroup %llu", (unsigned long long)*(const __u64 *)key);
	} else {
		const struct slackgov_cgname *k = key;
		char raw[SLACKGOV_CGNAME_LEN], name[4 * SLACKGOV_CGNAME_LEN];

		memcpy(raw, k->name, sizeof(raw));
		raw[sizeof(raw) - 1] = 0;
		sc_sanitize(raw, name, sizeof(name));
		if (kind == SLACKGOV_TARGET_UNIT)
			snprintf(buf, len, "unit %s", name);
		else
			snprintf(buf, len, "pattern %llu/%s", (unsigned long long)k->parent, name);
	}
}

/*
 * Paths of the cgroup targets, found by a walk of the cgroup2 mount (a
 * cgroup v2 directory's inode number is its id): a cgroup target's
 * directory, a unit's or pattern's parent; one not found was removed.
 */
struct sc_cgpath {
	__u64 id;
	char path[PATH_MAX];
	bool found;
};
static struct sc_cgpath *cgpaths;
static int nr_cgpaths;

static int cg_visit(const char *path, const struct stat *st, int type,
		    struct FTW *ftw __maybe_unused)
{
	for (int i = 0; i < nr_cgpaths; i++)
		if (type == FTW_D && !cgpaths[i].found && st->st_ino == cgpaths[i].id) {
			snprintf(cgpaths[i].path, sizeof(cgpaths[i].path), "%s", path);
			cgpaths[i].found = true;
		}
	return 0;
}

static void cg_collect(int kind, const void *key, const struct slackgov_target *v __maybe_unused,
		       void *ctx __maybe_unused)
{
	struct sc_cgpath *p;

	if (kind != SLACKGOV_TARGET_CGROUP && kind != SLACKGOV_TARGET_UNIT && kind != SLACKGOV_TARGET_GLOB)
		return;
	p = realloc(cgpaths, (nr_cgpaths + 1) * sizeof(*p));
	if (!p)
		return;
	cgpaths = p;
	memset(&p[nr_cgpaths], 0, sizeof(*p));
	/* struct slackgov_cgname starts with the parent's id */
	p[nr_cgpaths++].id = *(const __u64 *)key;
}

static void cg_find_paths(void)
{
	char mnt[512];

	sc_for_each_target(cg_collect, NULL);
	if (nr_cgpaths && !sc_cg2_mount(mnt, sizeof(mnt)))
		nftw(mnt, cg_visit, 16, FTW_PHYS | FTW_MOUNT);
}

/* the state of the thing a target names: "" (there), or why it is not */
static const char *target_gone(int kind, const void *key, const struct slackgov_target *v,
			       const char **path)
{
	unsigned long long flags;
	__u64 start;
	char state;

	*path = NULL;
	if (kind == SLACKGOV_TARGET_PID) {
		if (pid_stat(*(const __u32 *)key, &state, &flags, &start) || state == 'Z' || state == 'X')
			return "exited";
		if (v->start_ns && start / SLACKGOV_TICK_NS != v->start_ns / SLACKGOV_TICK_NS)
			return "exited, PID reused";
	} else if (kind == SLACKGOV_TARGET_CGROUP) {
		for (int i = 0; i < nr_cgpaths; i++)
			if (cgpaths[i].id == *(const __u64 *)key) {
				if (!cgpaths[i].found)
					return "directory removed";
				*path = cgpaths[i].path;
			}
	} else if (kind == SLACKGOV_TARGET_UNIT || kind == SLACKGOV_TARGET_GLOB) {
		static char full[PATH_MAX + SLACKGOV_CGNAME_LEN + 1];
		const struct slackgov_cgname *k = key;
		struct stat st;

		for (int i = 0; i < nr_cgpaths; i++)
			if (cgpaths[i].id == k->parent) {
				if (!cgpaths[i].found)
					return kind == SLACKGOV_TARGET_UNIT ? "slice removed" :
					       "parent directory removed";
				snprintf(full, sizeof(full), "%s/%.*s", cgpaths[i].path,
					 (int)sizeof(k->name) - 1, k->name);
				*path = full;
				/* a stopped unit is still watched: its next start matches */
				if (kind == SLACKGOV_TARGET_UNIT && stat(full, &st))
					return "not running";
			}
	}
	return "";
}

static void list_one(int kind, const void *key, const struct slackgov_target *v,
		     void *ctx __maybe_unused)
{
	char text[SC_TARGET_TEXT_LEN], slo[48], margin[16], where[PATH_MAX + SLACKGOV_CGNAME_LEN + 8];
	const char *path, *gone = target_gone(kind, key, v, &path);

	sc_target_text(kind, key, text, sizeof(text));
	slo_text(v->slo_us, v->slo_q, slo, sizeof(slo));
	sc_margin_text(v->slo_margin, margin, sizeof(margin));
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "target", text);
		jsonw_uint_field(json_wtr, "slot", v->slot);
		jsonw_uint_field(json_wtr, "setpoint", v->setpoint);
		jsonw_uint_field(json_wtr, "slo_us", v->slo_us);
		jsonw_uint_field(json_wtr, "slo_q", v->slo_q);
		jsonw_string_field(json_wtr, "slo", slo);
		sc_json_margin(v->slo_margin);
		jsonw_string_field(json_wtr, "proto", sc_proto_name(v->proto));
		jsonw_bool_field(json_wtr, "tls", v->flags & SLACKGOV_TARGET_F_TLS);
		if (kind == SLACKGOV_TARGET_CGROUP || kind == SLACKGOV_TARGET_UNIT ||
		    kind == SLACKGOV_TARGET_GLOB) {
			if (path) {
				sc_sanitize(path, where, sizeof(where));
				jsonw_string_field(json_wtr, "path", where);
			} else {
				jsonw_null_field(json_wtr, "path");
			}
		}
		if (*gone)
			jsonw_string_field(json_wtr, "gone", gone);
		else
			jsonw_null_field(json_wtr, "gone");
		jsonw_end_object(json_wtr);
	} else {
		where[0] = 0;
		if (path) {
			char p[PATH_MAX + SLACKGOV_CGNAME_LEN];

			sc_sanitize(path, p, sizeof(p));
			snprintf(where, sizeof(where), " %s", p);
		}
		printf("%-24s slot %-4u setpoint %-4u slo %-12s margin %-7s proto %-8s%s%s%s%s\n", text,
		       v->slot, v->setpoint, slo, v->slo_us ? margin : "-", sc_proto_name(v->proto),
		       *gone ? " (" : "", gone, *gone ? ")" : "", where);
	}
}

static int target_list(int argc, char **argv)
{
	if (argc > 0)
		return sc_err("target list: unexpected '%s'", argv[0]);
	if (sc_check_env(SC_NEED_PINS) || sc_need_loaded())
		return -1;
	cg_find_paths();
	if (json_wtr)
		jsonw_start_array(json_wtr);
	sc_for_each_target(list_one, NULL);
	if (json_wtr)
		jsonw_end_array(json_wtr);
	free(cgpaths);
	return 0;
}

int do_target_help(int argc, char **argv)
{
	if (argc)
		return sc_err("target help: unexpected '%s'", argv[0]);
	if (json_wtr) {
		jsonw_null(json_wtr);
		return 0;
	}
	fprintf(stderr,
		"Usage: slackctl target add TARGET [--setpoint VALUE] [--slo SLO [--slo-margin MARGIN]]\n"
		"                           [--proto PROTO [--tls LIBSSL] | --request REQUEST]\n"
		"       slackctl target del TARGET_REF\n"
		"       slackctl target set TARGET_REF [--setpoint VALUE] [--slo { SLO | none }]\n"
		"                           [--slo-margin MARGIN] [--proto PROTO]\n"
		"       slackctl target list\n"
		"       slackctl target help\n"
		"       TARGET := { --pid PID | --comm NAME | --cgroup { PATH | DIR/GLOB } | --unit UNIT }\n"
		"       TARGET_REF := { TARGET | --cgroup { CGROUP_ID | DIR_ID/GLOB } | --slot SLOT }\n"
		"       --cgroup: the directory and every cgroup below it; DIR/GLOB: the directories under DIR\n"
		"                  named like GLOB (one '*', in the last component), made before or after\n"
		"       --unit: a systemd unit's cgroup (NAME.service, .scope, .slice, ...), by its slice and\n"
		"                  name: it matches again after the unit restarts\n"
		"       VALUE := { THOUSANDTHS | PERCENT%% }   (0: the governor's setpoint)\n"
		"       SLO := [pPERCENTILE:]DURATION   (DURATION := NUMBER{ us | ms | s }; default p99)\n"
		"       MARGIN := { THOUSANDTHS | PERCENT%% | default }   (default: the slo_margin knob)\n"
		"       PROTO := { thread | conn | resp | memcache | http1 | http2 | auto }   (default: thread;\n"
		"                  none = thread: requests by the thread that reads; the others: by connection,\n"
		"                  conn one per read, the rest parsed, auto by each connection's first bytes)\n"
		"       REQUEST := { BINARY:ENTRY[:EXIT] | usdt:BINARY:PROVIDER:START:END }\n"
		"       --request: each call of function ENTRY of BINARY (to its return, or to EXIT's\n"
		"                  entry), or each pass from USDT probe START to END, is a request:\n"
		"                  uprobes, attached until the target is deleted\n"
		"       --tls: PROTO's requests read where libssl LIBSSL's SSL_read returns them\n"
		"Examples: slackctl target add --comm memcached --slo p99:2ms --proto memcache\n"
		"          slackctl target add --unit memcached.service --proto memcache\n"
		"          slackctl target add --cgroup '/sys/fs/cgroup/kubepods.slice/kubepods-pod*.slice'\n"
		"          slackctl target set --comm memcached --slo-margin 40%%\n"
		"          slackctl target set --slot 3 --slo none\n"
		"See slackctl(8).\n");
	return 0;
}

/*
 * One change at a time (slots are allocated by a scan of the maps), and no
 * signal between the map update and the generation bump that publishes it.
 */
static int locked(int (*fn)(int, char **), int argc, char **argv)
{
	sigset_t oldmask;
	int lock, ret;

	sc_block_signals(&oldmask);
	lock = sc_lock();
	ret = fn(argc, argv);
	if (lock >= 0)
		close(lock);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return ret;
}

static int do_target_add(int argc, char **argv) { return locked(target_add, argc, argv); }
static int do_target_del(int argc, char **argv) { return locked(target_del, argc, argv); }
static int do_target_set(int argc, char **argv) { return locked(target_set, argc, argv); }

static const struct sc_cmd target_cmds[] = {
	{ "add",	do_target_add },
	{ "del",	do_target_del },
	{ "set",	do_target_set },
	{ "list",	target_list },
	{ "help",	do_target_help },
	{ 0 }
};

int do_target(int argc, char **argv)
{
	if (argc < 1) {
		sc_err("target: missing command: try 'slackctl target help'");
		return -2;
	}
	return sc_cmd_select(target_cmds, "target", argc, argv);
}
