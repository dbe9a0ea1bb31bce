// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - slackctl: load, target, tune and watch slackgov.
 * Command table, global options, errors and JSON output (bpftool style).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "slackctl.h"

#define SLACKCTL_VERSION "0.1"

/* capability numbers newer than some installed headers (linux/capability.h, 5.8) */
#define SC_CAP_PERFMON	38
#define SC_CAP_BPF	39

bool json_output;
bool pretty_output;
bool verbose;
json_writer_t *json_wtr;

int sc_err(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "error", msg);
		jsonw_end_object(json_wtr);
	} else {
		fprintf(stderr, "Error: %s\n", msg);
	}
	return -1;
}

bool is_prefix(const char *arg, const char *word)
{
	return arg && *arg && !strncmp(arg, word, strlen(arg));
}

int sc_read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* effective capability set of this process, from /proc/self/status */
static __u64 cap_effective(void)
{
	unsigned long long caps = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps;
}

/*
 * bpf() for slackgov's programs: loading BTF and maps needs CAP_BPF, loading
 * and attaching tracing programs CAP_PERFMON; CAP_SYS_ADMIN covers both (and
 * is all a kernel before 5.8 knows).
 */
static bool bpf_capable(void)
{
	__u64 caps = cap_effective();

	if (caps & (1ULL << CAP_SYS_ADMIN))
		return true;
	return (caps & (1ULL << SC_CAP_BPF)) && (caps & (1ULL << SC_CAP_PERFMON));
}

int sc_check_env(unsigned int need)
{
	struct statfs st;

	if ((need & SC_NEED_ROOT) && geteuid() != 0)
		return sc_err("permission denied: run slackctl as root (it writes the governor's sysfs files)");
	if ((need & SC_NEED_BPF) && !bpf_capable() && geteuid() != 0)
		return sc_err("permission denied: run slackctl as root (it needs CAP_BPF and CAP_SYS_ADMIN)");
	if ((need & SC_NEED_BPF) && !bpf_capable())
		return sc_err("permission denied: root without CAP_SYS_ADMIN (or CAP_BPF and CAP_PERFMON): give slackctl those capabilities");
	if ((need & SC_NEED_BPFFS) && (statfs("/sys/fs/bpf", &st) || st.f_type != BPF_FS_MAGIC))
		return sc_err("bpffs is not mounted at /sys/fs/bpf: mount -t bpf bpf /sys/fs/bpf");
	return 0;
}

void sc_block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigprocmask(SIG_BLOCK, &set, old);
}

/*
 * Serialize changes to the pinned tree (target add/del, unload): an
 * exclusive flock on the pin folder, held until the returned fd is closed.
 * -1 if the folder is not there.
 */
int sc_lock(void)
{
	int fd = open(SLACKGOV_PIN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		return -1;
	}
	return fd;
}

bool sc_module_loaded(void)
{
	return access("/sys/module/slackgov", F_OK) == 0;
}

bool sc_loaded(void)
{
	return access(SLACKGOV_PIN_DIR "/windows", F_OK) == 0;
}

bool sc_feed_on(void)
{
	struct slackgov_bpf_config c = {};
	__u32 zero = 0;
	int fd = sc_map_fd("sg_config");

	if (fd < 0)
		return false;
	bpf_map_lookup_elem(fd, &zero, &c);
	close(fd);
	return c.feed == SLACKGOV_FEED_ON;
}

int sc_map_fd(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", SLACKGOV_PIN_DIR, name);
	return bpf_obj_get(path);
}

static int do_help(int argc, char **argv);
static int do_version(int argc, char **argv)
{
	if (argc)
		return sc_err("version: unexpected '%s'", argv[0]);
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "version", SLACKCTL_VERSION);
		jsonw_int_field(json_wtr, "abi", SLACKGOV_ABI_VERSION);
		jsonw_end_object(json_wtr);
	} else {
		printf("slackctl %s (sample ABI %d)\n", SLACKCTL_VERSION, SLACKGOV_ABI_VERSION);
	}
	return 0;
}

static const struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
} cmds[] = {
	{ "load",	do_load },
	{ "unload",	do_unload },
	{ "target",	do_target },
	{ "set",	do_set },
	{ "get",	do_get },
	{ "status",	do_status },
	{ "stats",	do_stats },
	{ "help",	do_help },
	{ "version",	do_version },
	{ 0 }
};

static int do_help(int argc, char **argv)
{
	/* as bpftool: with -j, help is a null document (the text is for people) */
	if (json_wtr) {
		jsonw_null(json_wtr);
		return 0;
	}
	fprintf(stderr,
		"Usage: slackctl [OPTIONS] COMMAND\n"
		"       COMMAND := { load [--feed { auto | on | off }] | unload |\n"
		"                    target { add | del } TARGET [--setpoint VALUE] | target list |\n"
		"                    set [--check] KNOB VALUE | get [KNOB] |\n"
		"                    status [--watch SECONDS] | stats [--prom] | help | version }\n"
		"       TARGET := { --pid PID | --comm NAME | --cgroup PATH }\n"
		"       OPTIONS := { -j|--json | -p|--pretty | -v|--verbose | -h|--help }\n"
		"Knobs (slackctl get lists values, ranges and units):");
	for (int i = 0; sc_knobs[i].name; i++)
		fprintf(stderr, "%s%s", i % 7 ? " " : "\n    ", sc_knobs[i].name);
	fprintf(stderr, "\nSee slackctl(8).\n");
	return 0;
}

/* libbpf's log only with -v: without it, slackctl's own one-line error says what failed */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	return verbose ? vfprintf(stderr, fmt, args) : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const struct cmd *c, *match = NULL;
	char bad_opt[64] = "";
	bool help = false;
	int opt, n = 0, ret;

	opterr = 0;	/* reported below, as JSON with -j */
	while ((opt = getopt_long(argc, argv, "+jpvh", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':	/* as bpftool: -p is -j, indented */
			pretty_output = true;
			/* fallthrough */
		case 'j':
			json_output = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			help = true;
			break;
		default:
			if (optopt)
				snprintf(bad_opt, sizeof(bad_opt), "-%c", optopt);
			else
				snprintf(bad_opt, sizeof(bad_opt), "%s", argv[optind - 1]);
			break;
		}
	}
	argc -= optind;
	argv += optind;
	if (json_output) {
		json_wtr = jsonw_new(stdout);
		if (!json_wtr) {
			fprintf(stderr, "Error: out of memory\n");
			return 1;
		}
		jsonw_pretty(json_wtr, pretty_output);
	}
	libbpf_set_print(libbpf_print);
	if (bad_opt[0]) {
		sc_err("unknown option '%s': try 'slackctl help'", bad_opt);
		ret = 2;
		goto out;
	}
	if (help) {
		ret = do_help(0, NULL);
		goto out;
	}
	if (argc < 1) {
		if (json_wtr)
			sc_err("missing command: try 'slackctl help'");
		else
			do_help(0, NULL);
		ret = 2;
		goto out;
	}
	for (c = cmds; c->name; c++) {
		if (!strcmp(argv[0], c->name)) {
			match = c;
			n = 1;
			break;
		}
		if (is_prefix(argv[0], c->name)) {
			match = c;
			n++;
		}
	}
	if (n != 1) {
		sc_err("%s command '%s': try 'slackctl help'", n ? "ambiguous" : "unknown", argv[0]);
		ret = 2;
		goto out;
	}
	ret = match->func(argc - 1, argv + 1) ? 1 : 0;
out:
	jsonw_destroy(&json_wtr);
	return ret;
}
