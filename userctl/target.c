// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - slackctl target add | del | list: the target_pid, target_comm
 * and target_cgroup maps, slot allocation, and the generation bump that
 * makes the BPF side reclassify threads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include "slackctl.h"

static const char *const kind_map[] = {
	[SLACKGOV_TARGET_PID] = "target_pid",
	[SLACKGOV_TARGET_COMM] = "target_comm",
	[SLACKGOV_TARGET_CGROUP] = "target_cgroup",
};
static const char *const kind_name[] = {
	[SLACKGOV_TARGET_PID] = "pid",
	[SLACKGOV_TARGET_COMM] = "comm",
	[SLACKGOV_TARGET_CGROUP] = "cgroup",
};

struct sc_tkey {
	int kind;
	union {
		__u32 pid;
		char comm[SLACKGOV_COMM_LEN];
		__u64 cgid;
	};
	char text[256];
};

/* starttime (field 22 of /proc/PID/stat) in ns at USER_HZ granularity */
static int pid_start_ns(__u32 pid, __u64 *ns)
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
	if (!p || !(p = strrchr(buf, ')')))
		return -1;
	for (i = 2; i < 22 && p; i++)	/* field 2 ends at ')' */
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
		return -1;
	*ns = ticks * 10000000ULL;	/* USER_HZ = 100 */
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

/* parse --pid N | --comm NAME | --cgroup PATH [--setpoint V] */
static int parse_target(int argc, char **argv, struct sc_tkey *t, __u32 *setpoint, bool add)
{
	const struct sc_knob *sp = sc_knob_find("setpoint");
	unsigned long long v;
	struct statfs sfs;
	struct stat st;
	char *end;

	memset(t, 0, sizeof(*t));
	*setpoint = 0;
	while (argc > 0) {
		if (argc < 2)
			return sc_err("target: '%s' needs a value", argv[0]);
		if (t->kind == 0 && is_prefix(argv[0], "--pid")) {
			errno = 0;
			v = strtoull(argv[1], &end, 10);
			if (errno || *end || !*argv[1] || v == 0 || v > 0x3fffffff)
				return sc_err("target: bad PID '%s'", argv[1]);
			t->kind = SLACKGOV_TARGET_PID;
			t->pid = v;
			snprintf(t->text, sizeof(t->text), "%u", t->pid);
		} else if (t->kind == 0 && is_prefix(argv[0], "--comm")) {
			if (!*argv[1] || strlen(argv[1]) >= SLACKGOV_COMM_LEN)
				return sc_err("target: process name '%s' must be 1 to 15 characters", argv[1]);
			t->kind = SLACKGOV_TARGET_COMM;
			strncpy(t->comm, argv[1], SLACKGOV_COMM_LEN - 1);
			snprintf(t->text, sizeof(t->text), "%s", argv[1]);
		} else if (t->kind == 0 && is_prefix(argv[0], "--cgroup")) {
			if (statfs(argv[1], &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC ||
			    stat(argv[1], &st) || !S_ISDIR(st.st_mode))
				return sc_err("target: '%s' is not a cgroup v2 directory", argv[1]);
			t->kind = SLACKGOV_TARGET_CGROUP;
			t->cgid = st.st_ino;	/* a cgroup v2 directory's inode is its id */
			snprintf(t->text, sizeof(t->text), "%s", argv[1]);
		} else if (add && is_prefix(argv[0], "--setpoint")) {
			if (sc_parse_value(sp, argv[1], &v))
				return -1;
			*setpoint = v;
		} else {
			return sc_err("target: unexpected '%s'", argv[0]);
		}
		argc -= 2;
		argv += 2;
	}
	if (!t->kind)
		return sc_err("target: give --pid PID, --comm NAME or --cgroup PATH");
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

/* mark the slots in use: walk the three maps */
static void used_slots(bool *used)
{
	char key[SLACKGOV_COMM_LEN + 8], next[SLACKGOV_COMM_LEN + 8];
	struct slackgov_target v;
	int k, fd;

	for (k = SLACKGOV_TARGET_PID; k <= SLACKGOV_TARGET_CGROUP; k++) {
		fd = sc_map_fd(kind_map[k]);
		if (fd < 0)
			continue;
		void *cur = NULL;

		while (!bpf_map_get_next_key(fd, cur, next)) {
			memcpy(key, next, sizeof(key));
			cur = key;
			if (!bpf_map_lookup_elem(fd, key, &v) && v.slot < SLACKGOV_MAX_TARGETS)
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

static int target_add(int argc, char **argv)
{
	static bool used[SLACKGOV_MAX_TARGETS];
	struct slackgov_target v = {};
	struct sc_tkey t;
	__u32 setpoint, slot;
	int fd;

	if (parse_target(argc, argv, &t, &setpoint, true) || sc_check_env(SC_NEED_PINS))
		return -1;
	if (!sc_loaded())
		return sc_err("not loaded: run 'slackctl load' first");
	if (t.kind == SLACKGOV_TARGET_PID && pid_start_ns(t.pid, &v.start_ns))
		return sc_err("target: no process with PID %u", t.pid);
	/* the BPF side matches thread groups: a thread's id would never match */
	if (t.kind == SLACKGOV_TARGET_PID && pid_tgid(t.pid) != t.pid)
		return sc_err("target: %u is a thread of process %u: give the process's PID", t.pid,
			      pid_tgid(t.pid));
	fd = sc_map_fd(kind_map[t.kind]);
	if (fd < 0)
		return sc_err("cannot open the %s map: %s", kind_map[t.kind], strerror(errno));
	if (!bpf_map_lookup_elem(fd, &t.pid, &v)) {
		close(fd);
		return sc_err("target %s %s is already watched", kind_name[t.kind], t.text);
	}
	used_slots(used);
	for (slot = 0; slot < SLACKGOV_MAX_TARGETS && used[slot]; slot++)
		;
	if (slot == SLACKGOV_MAX_TARGETS) {
		close(fd);
		return sc_err("the target table is full (%d targets): delete one first", SLACKGOV_MAX_TARGETS);
	}
	v.slot = slot;
	v.kind = t.kind;
	v.setpoint = setpoint;
	clear_window(slot);
	if (bpf_map_update_elem(fd, &t.pid, &v, BPF_NOEXIST)) {
		close(fd);
		return sc_err("cannot add the target: %s", strerror(errno));
	}
	close(fd);
	if (bump_generation()) {
		fd = sc_map_fd(kind_map[t.kind]);
		bpf_map_delete_elem(fd, &t.pid);
		close(fd);
		return sc_err("cannot publish the target change: %s", strerror(errno));
	}
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "kind", kind_name[t.kind]);
		jsonw_string_field(json_wtr, "id", t.text);
		jsonw_uint_field(json_wtr, "slot", slot);
		jsonw_end_object(json_wtr);
	} else {
		printf("target %s %s: slot %u\n", kind_name[t.kind], t.text, slot);
	}
	return 0;
}

static int target_del(int argc, char **argv)
{
	struct slackgov_target v;
	struct sc_tkey t;
	__u32 setpoint;
	int fd, ret;

	if (parse_target(argc, argv, &t, &setpoint, false) || sc_check_env(SC_NEED_PINS))
		return -1;
	if (!sc_loaded())
		return sc_err("not loaded: run 'slackctl load' first");
	fd = sc_map_fd(kind_map[t.kind]);
	if (fd < 0)
		return sc_err("cannot open the %s map: %s", kind_map[t.kind], strerror(errno));
	if (bpf_map_lookup_elem(fd, &t.pid, &v)) {
		close(fd);
		return sc_err("target %s %s is not watched", kind_name[t.kind], t.text);
	}
	ret = bpf_map_delete_elem(fd, &t.pid);
	close(fd);
	if (ret)
		return sc_err("cannot delete the target: %s", strerror(errno));
	bump_generation();
	clear_window(v.slot);
	if (json_wtr) {
		char text[300];

		snprintf(text, sizeof(text), "%s %s", kind_name[t.kind], t.text);
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "deleted", text);
		jsonw_end_object(json_wtr);
	} else {
		printf("target %s %s: deleted\n", kind_name[t.kind], t.text);
	}
	return 0;
}

/* call fn(kind, key, value) for every target */
int sc_for_each_target(void (*fn)(int kind, const void *key, const struct slackgov_target *v, void *ctx),
		       void *ctx)
{
	char key[SLACKGOV_COMM_LEN + 8], next[SLACKGOV_COMM_LEN + 8];
	struct slackgov_target v;
	int k, fd, n = 0;

	for (k = SLACKGOV_TARGET_PID; k <= SLACKGOV_TARGET_CGROUP; k++) {
		void *cur = NULL;

		fd = sc_map_fd(kind_map[k]);
		if (fd < 0)
			return -1;
		while (!bpf_map_get_next_key(fd, cur, next)) {
			memcpy(key, next, sizeof(key));
			cur = key;
			if (!bpf_map_lookup_elem(fd, key, &v)) {
				fn(k, key, &v, ctx);
				n++;
			}
		}
		close(fd);
	}
	return n;
}

void sc_target_text(int kind, const void *key, char *buf, size_t len)
{
	if (kind == SLACKGOV_TARGET_PID)
		snprintf(buf, len, "pid %u", *(const __u32 *)key);
	else if (kind == SLACKGOV_TARGET_COMM)
		snprintf(buf, len, "comm %.15s", (const char *)key);
	else
		snprintf(buf, len, "cgroup %llu", (unsigned long long)*(const __u64 *)key);
}

static void list_one(int kind, const void *key, const struct slackgov_target *v, void *ctx)
{
	char text[64];

	sc_target_text(kind, key, text, sizeof(text));
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "target", text);
		jsonw_uint_field(json_wtr, "slot", v->slot);
		jsonw_uint_field(json_wtr, "setpoint", v->setpoint);
		jsonw_end_object(json_wtr);
	} else {
		printf("%-24s slot %-4u setpoint %u\n", text, v->slot, v->setpoint);
	}
}

int do_target(int argc, char **argv)
{
	sigset_t oldmask;
	int lock, ret;

	if (argc < 1)
		return sc_err("usage: slackctl target { add | del } TARGET | target list");
	if (is_prefix(argv[0], "add") || is_prefix(argv[0], "del")) {
		/*
		 * One change at a time (slots are allocated by a scan of the
		 * maps), and no signal between the map update and the
		 * generation bump that publishes it.
		 */
		sc_block_signals(&oldmask);
		lock = sc_lock();
		if (is_prefix(argv[0], "add"))
			ret = target_add(argc - 1, argv + 1);
		else
			ret = target_del(argc - 1, argv + 1);
		if (lock >= 0)
			close(lock);
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		return ret;
	}
	if (is_prefix(argv[0], "list")) {
		if (argc > 1)
			return sc_err("target list: unexpected '%s'", argv[1]);
		if (sc_check_env(SC_NEED_PINS))
			return -1;
		if (!sc_loaded())
			return sc_err("not loaded: run 'slackctl load' first");
		if (json_wtr)
			jsonw_start_array(json_wtr);
		sc_for_each_target(list_one, NULL);
		if (json_wtr)
			jsonw_end_array(json_wtr);
		return 0;
	}
	return sc_err("target: unknown command '%s' (add, del, list)", argv[0]);
}
