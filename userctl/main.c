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

/* errors and warnings are one line of printable ASCII: arguments are echoed in them */
static void sc_vformat(char *out, size_t len, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	sc_sanitize(msg, out, len);
}

void sc_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	sc_vformat(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "error", msg);
		jsonw_end_object(json_wtr);
	} else {
		fprintf(stderr, "Error: %s\n", msg);
	}
}

void sc_warn(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	sc_vformat(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "Warning: %s\n", msg);
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

int sc_need_loaded(void)
{
	struct stat st;

	if (stat(SLACKGOV_PIN_DIR, &st)) {
		if (errno == ENOENT)
			return sc_err("not loaded: run 'slackctl load' first");
		return sc_err("cannot see %s: %s (the pins are root's: run slackctl as root)",
			      SLACKGOV_PIN_DIR, strerror(errno));
	}
	if (!access(SLACKGOV_PIN_DIR "/windows", F_OK))
		return 0;
	if (errno != ENOENT)
		return sc_err("cannot see %s: %s (the pins are root's: run slackctl as root)",
			      SLACKGOV_PIN_DIR, strerror(errno));
	return sc_err("%s is incomplete (a load or unload was interrupted): run 'slackctl unload', then 'slackctl load'",
		      SLACKGOV_PIN_DIR);
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

static const struct sc_cmd cmds[] = {
	{ "load",	do_load },
	{ "unload",	do_unload },
	{ "target",	do_target },
	{ "set",	do_set },
	{ "get",	do_get },
	{ "status",	do_status },
	{ "stats",	do_stats },
	{ "exporter",	do_exporter },
	{ "policy",	do_policy },
	{ "help",	do_help },
	{ "version",	do_version },
	{ 0 }
};

/*
 * The command that @argv[0] names, or is a unique prefix of (an exact name
 * wins; "stat" is a prefix of both status and stats, so it is ambiguous).
 * Returns its result, or -2 after an error for no match or several.
 */
int sc_cmd_select(const struct sc_cmd *cmds, const char *object, int argc, char **argv)
{
	const struct sc_cmd *c, *match = NULL;
	char cand[256] = "", obj[64] = "", sub[64] = "";
	int n = 0;

	if (object) {
		snprintf(obj, sizeof(obj), "%s: ", object);
		snprintf(sub, sizeof(sub), "%s ", object);
	}
	for (c = cmds; c->name; c++) {
		if (!strcmp(argv[0], c->name))
			return c->func(argc - 1, argv + 1);
		if (is_prefix(argv[0], c->name)) {
			match = c;
			n++;
			snprintf(cand + strlen(cand), sizeof(cand) - strlen(cand), "%s%s",
				 n > 1 ? ", " : "", c->name);
		}
	}
	if (n == 1)
		return match->func(argc - 1, argv + 1);
	if (n)
		sc_err("%sambiguous command '%s' (%s): try 'slackctl %shelp'", obj, argv[0], cand, sub);
	else
		sc_err("%sunknown command '%s': try 'slackctl %shelp'", obj, argv[0], sub);
	return -2;
}

static int do_help(int argc, char **argv)
{
	if (argc > 1)
		return sc_err("help: unexpected '%s' (usage: slackctl help [target])", argv[1]);
	if (argc == 1 && is_prefix(argv[0], "target"))
		return do_target_help(0, NULL);
	if (argc == 1)
		return sc_err("help: no help for '%s': 'slackctl help' covers every command, "
			      "'slackctl help target' the target commands", argv[0]);
	/* as bpftool: with -j, help is a null document (the text is for people) */
	if (json_wtr) {
		jsonw_null(json_wtr);
		return 0;
	}
	fprintf(stderr,
		"Usage: slackctl [OPTIONS] COMMAND\n"
		"       COMMAND := { load [--feed { auto | on | off }]\n"
		"                         [--hooks { auto | fentry | tracepoint }] | unload |\n"
		"                    target { add | del | set | list | help } ... |\n"
		"                    set [--check] KNOB VALUE | get [KNOB] |\n"
		"                    status [--interval DURATION] [--watch [SECONDS]] |\n"
		"                    stats [--prom [--output FILE]] | exporter --listen ADDR:PORT |\n"
		"                    policy { load FILE | run FILE | unload | show } |\n"
		"                    help [target] | version }\n"
		"       OPTIONS := { -j | --json | -p | --pretty | -v | --verbose | -h | --help }\n"
		"       VALUE := NUMBER[UNIT] as the knob's unit allows (slackctl get lists them)\n"
		"Targets: slackctl target help.  Knobs:");
	for (int i = 0; sc_knobs[i].name; i++)
		fprintf(stderr, "%s%s", i % 7 ? " " : "\n    ", sc_knobs[i].name);
	fprintf(stderr, "\nSee slackctl(8).\n");
	return 0;
}

/* libbpf's log only with -v: without it, slackctl's own one-line error says what failed */
static int libbpf_print(enum libbpf_print_level level __maybe_unused, const char *fmt,
			va_list args)
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
	char bad_opt[64] = "";
	bool help = false;
	int opt, ret;

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
			/* a long option as given ("--json=1": getopt's optopt says 'j') */
			if (!strncmp(argv[optind - 1], "--", 2) || !optopt)
				snprintf(bad_opt, sizeof(bad_opt), "%s", argv[optind - 1]);
			else
				snprintf(bad_opt, sizeof(bad_opt), "-%c", optopt);
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
	/* exit 2 for a command slackctl does not know (as for a bad option), else 1 */
	ret = sc_cmd_select(cmds, NULL, argc, argv);
	ret = ret == -2 ? 2 : ret ? 1 : 0;
out:
	jsonw_destroy(&json_wtr);
	return ret;
}
