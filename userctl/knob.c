// SPDX-License-Identifier: GPL-2.0
/*
 * knob.c - slackctl set / get: one name space over the BPF side's settings
 * (the pinned sg_config map) and the governor's sysfs tunables.  The
 * governor's names, defaults, ranges and units come from
 * SLACKGOV_GOV_KNOBS in include/uapi/slackgov.h, the list the module builds
 * its sysfs files from; the BPF side's two are here.  Values are read by
 * number.c's parser, whose units follow the knob's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "slackctl.h"

#define SC_GOV_KNOB(name, def, min, max, unit) { #name, false, SC_##unit, min, max, def },

/* the BPF side's: window length (0 = by count only), sends per window (0 = off) */
const struct sc_knob sc_knobs[] = {
	SLACKGOV_GOV_KNOBS(SC_GOV_KNOB)
	{ "window", true, SC_NS, 0, 10000000000ULL, 10000000 },
	{ "window_sends", true, SC_COUNT, 0, 1000000, 0 },
	{ 0 }
};

const struct sc_knob *sc_knob_find(const char *name)
{
	for (int i = 0; sc_knobs[i].name; i++)
		if (!strcmp(sc_knobs[i].name, name))
			return &sc_knobs[i];
	return NULL;
}

/* why sg_config cannot be opened: not loaded, an incomplete folder, root's pins */
static int bpf_missing(void)
{
	struct stat st;

	if (stat(SLACKGOV_PIN_DIR, &st) && errno == ENOENT)
		return sc_err("the BPF side is not loaded: run 'slackctl load'");
	return sc_need_loaded() ?: sc_err("cannot read the BPF settings: %s", strerror(ENOENT));
}

static int bpf_cfg(struct slackgov_bpf_config *c, int *fd)
{
	__u32 zero = 0;

	*fd = sc_map_fd("sg_config");
	if (*fd < 0)
		return bpf_missing();
	if (bpf_map_lookup_elem(*fd, &zero, c))
		return sc_err("cannot read the BPF settings: %s", strerror(errno));
	return 0;
}

/* read a knob's value; no message (for the list, where a knob may be absent) */
int sc_knob_read_raw(const struct sc_knob *k, unsigned long long *v)
{
	struct slackgov_bpf_config c;
	char path[256], buf[64];
	__u32 zero = 0;
	int fd, ret;

	if (k->bpf) {
		fd = sc_map_fd("sg_config");
		if (fd < 0)
			return -1;
		ret = bpf_map_lookup_elem(fd, &zero, &c);
		close(fd);
		if (ret)
			return -1;
		if (!strcmp(k->name, "window"))
			*v = c.window_ns || c.window_sends ? c.window_ns : k->def;
		else
			*v = c.window_sends;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%s", SC_GOV_DIR, k->name);
	if (sc_read_file(path, buf, sizeof(buf)))
		return -1;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

static int knob_read(const struct sc_knob *k, unsigned long long *v)
{
	if (!sc_knob_read_raw(k, v))
		return 0;
	if (k->bpf && sc_loaded())
		return sc_err("cannot read the BPF settings: %s", strerror(errno));
	if (k->bpf)
		return bpf_missing();
	return sc_err("%s: the governor is not active (modprobe slackgov and select 'slack' on a policy)",
		      k->name);
}

static int knob_write(const struct sc_knob *k, unsigned long long v)
{
	struct slackgov_bpf_config c;
	char path[256], buf[32];
	__u32 zero = 0;
	int fd, len, ret;

	if (k->bpf) {
		if (bpf_cfg(&c, &fd))
			return -1;
		if (!strcmp(k->name, "window"))
			c.window_ns = v;
		else
			c.window_sends = v;
		ret = bpf_map_update_elem(fd, &zero, &c, BPF_ANY);
		close(fd);
		return ret ? sc_err("%s: cannot write: %s", k->name, strerror(errno)) : 0;
	}
	snprintf(path, sizeof(path), "%s/%s", SC_GOV_DIR, k->name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return sc_err("%s: the governor is not active (modprobe slackgov and select 'slack' on a policy)",
			      k->name);
	len = snprintf(buf, sizeof(buf), "%llu", v);
	ret = write(fd, buf, len) == len ? 0 : -errno;
	close(fd);
	return ret ? sc_err("%s: the kernel refused %llu: %s", k->name, v, strerror(-ret)) : 0;
}

static void print_value(const struct sc_knob *k, unsigned long long v, bool written)
{
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_uint_field(json_wtr, k->name, v);
		if (!written)
			jsonw_bool_field(json_wtr, "written", false);
		jsonw_end_object(json_wtr);
	} else if (!written) {
		printf("%s %llu: valid (not written)\n", k->name, v);
	}
}

int do_set(int argc, char **argv)
{
	const struct sc_knob *k;
	unsigned long long v;
	bool check = false;

	if (argc > 0 && !strcmp(argv[0], "--check")) {
		check = true;
		NEXT_ARG();
	}
	if (argc != 2)
		return sc_err("usage: slackctl set [--check] KNOB VALUE");
	k = sc_knob_find(argv[0]);
	if (!k)
		return sc_err("unknown knob '%s' (slackctl help lists them)", argv[0]);
	if (sc_parse_value(k, argv[1], &v))
		return -1;
	if (!check && (sc_check_env(k->bpf ? SC_NEED_PINS : SC_NEED_ROOT) || knob_write(k, v)))
		return -1;
	print_value(k, v, !check);
	return 0;
}

int do_get(int argc, char **argv)
{
	unsigned long long v[sizeof(sc_knobs) / sizeof(sc_knobs[0])];
	bool ok[sizeof(sc_knobs) / sizeof(sc_knobs[0])] = {};
	const struct sc_knob *k;
	int i;

	if (argc > 1)
		return sc_err("usage: slackctl get [KNOB]");
	if (argc == 1) {
		k = sc_knob_find(argv[0]);
		if (!k)
			return sc_err("unknown knob '%s' (slackctl help lists them)", argv[0]);
		if ((k->bpf && sc_check_env(SC_NEED_PINS)) || knob_read(k, &v[0]))
			return -1;
		if (json_wtr) {
			jsonw_start_object(json_wtr);
			jsonw_uint_field(json_wtr, k->name, v[0]);
			jsonw_end_object(json_wtr);
		} else {
			printf("%llu\n", v[0]);
		}
		return 0;
	}
	/* every knob: read them all first, so that no error lands inside the output */
	if (sc_check_env(SC_NEED_BPF))
		return -1;
	for (i = 0; sc_knobs[i].name; i++) {
		k = &sc_knobs[i];
		if (k->bpf ? sc_loaded() : access(SC_GOV_DIR, F_OK) == 0)
			ok[i] = sc_knob_read_raw(k, &v[i]) == 0;
	}
	if (json_wtr)
		jsonw_start_object(json_wtr);
	for (i = 0; sc_knobs[i].name; i++) {
		k = &sc_knobs[i];
		if (json_wtr) {
			jsonw_name(json_wtr, k->name);
			jsonw_start_object(json_wtr);
			if (ok[i])
				jsonw_uint_field(json_wtr, "value", v[i]);
			else
				jsonw_null_field(json_wtr, "value");
			jsonw_string_field(json_wtr, "side", k->bpf ? "bpf" : "governor");
			jsonw_string_field(json_wtr, "unit", sc_unit_name(k->unit));
			jsonw_uint_field(json_wtr, "min", k->min);
			jsonw_uint_field(json_wtr, "max", k->max);
			jsonw_uint_field(json_wtr, "default", k->def);
			jsonw_end_object(json_wtr);
		} else {
			char val[24] = "-";

			if (ok[i])
				snprintf(val, sizeof(val), "%llu", v[i]);
			printf("%-18s %12s  %-24s %llu..%llu, default %llu\n", k->name, val,
			       sc_unit_name(k->unit), k->min, k->max, k->def);
		}
	}
	if (json_wtr)
		jsonw_end_object(json_wtr);
	return 0;
}
