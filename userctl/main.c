// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - slackctl: load, target, tune and watch slackgov.
 * Command table, global options, errors and JSON output (bpftool style).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "slackctl.h"

#define SLACKCTL_VERSION "0.1"

bool json_output;
bool verbose;

int sc_err(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (json_output) {
		printf("{\"error\": ");
		sc_json_str(msg);
		printf("}\n");
	} else {
		fprintf(stderr, "Error: %s\n", msg);
	}
	return -1;
}

void sc_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
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

int sc_check_env(bool need_bpffs)
{
	struct statfs st;

	if (geteuid() != 0)
		return sc_err("permission denied: run slackctl as root (CAP_BPF and CAP_SYS_ADMIN)");
	if (need_bpffs && (statfs("/sys/fs/bpf", &st) || st.f_type != BPF_FS_MAGIC))
		return sc_err("bpffs is not mounted at /sys/fs/bpf: mount -t bpf bpf /sys/fs/bpf");
	return 0;
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
	if (json_output)
		printf("{\"version\": \"%s\", \"abi\": %d}\n", SLACKCTL_VERSION, SLACKGOV_ABI_VERSION);
	else
		printf("slackctl %s (sample ABI %d)\n", SLACKCTL_VERSION, SLACKGOV_ABI_VERSION);
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
	fprintf(stderr,
		"Usage: slackctl [OPTIONS] COMMAND\n"
		"       COMMAND := { load [--feed { auto | on | off }] | unload |\n"
		"                    target { add | del } TARGET [--setpoint VALUE] | target list |\n"
		"                    set [--check] KNOB VALUE | get [KNOB] |\n"
		"                    status [--watch SECONDS] | stats --prom | help | version }\n"
		"       TARGET := { --pid PID | --comm NAME | --cgroup PATH }\n"
		"       OPTIONS := { -j|--json | -p|--pretty | -v|--verbose | -h|--help }\n"
		"Knobs (slackctl get lists values, ranges and units):");
	for (int i = 0; sc_knobs[i].name; i++)
		fprintf(stderr, "%s%s", i % 7 ? " " : "\n    ", sc_knobs[i].name);
	fprintf(stderr, "\nSee slackctl(8).\n");
	return 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (!verbose && level != LIBBPF_WARN)
		return 0;
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
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
	int opt, n = 0;

	while ((opt = getopt_long(argc, argv, "+jpvh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
		case 'p':	/* output is already one JSON document per line */
			json_output = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			return do_help(0, NULL);
		default:
			do_help(0, NULL);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	libbpf_set_print(libbpf_print);
	if (argc < 1) {
		do_help(0, NULL);
		return 2;
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
		return 2;
	}
	return match->func(argc - 1, argv + 1) ? 1 : 0;
}
