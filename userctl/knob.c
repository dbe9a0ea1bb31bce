// SPDX-License-Identifier: GPL-2.0
/*
 * knob.c - slackctl set / get: one name space over the BPF side's settings
 * (the pinned sg_config map) and the governor's sysfs tunables.  The table
 * is the one place that knows names, units and ranges (the governor's
 * ranges and defaults mirror kmod/sysfs.c; the kernel checks them again,
 * and selftests/slackctl/guest-slackctl.sh compares the defaults).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "slackctl.h"

const struct sc_knob sc_knobs[] = {
	{ "setpoint", false, SC_PERMILLE, 0, 1000, 350, "slack to hold (share of worker time waiting)" },
	{ "kp", false, SC_GAIN, 0, 10000, 300, "proportional gain" },
	{ "ki", false, SC_GAIN, 0, 10000, 200, "integral gain" },
	{ "kd", false, SC_GAIN, 0, 10000, 0, "derivative gain" },
	{ "deadband", false, SC_PERMILLE, 0, 500, 50, "error band with no change" },
	{ "sat_cv", false, SC_PERMILLE, 0, 1000000, 3000, "inter-recv CV that boosts to max" },
	{ "stale_ms", false, SC_MS, 5, 60000, 50, "sample age that falls back to safe_khz" },
	{ "safe_khz", false, SC_KHZ, 0, 100000000, 0, "stale-signal frequency (0 = policy max)" },
	{ "rate_limit_us", false, SC_US, 0, 1000000, 0, "minimum time between changes" },
	{ "idle_tight_slack", false, SC_PERMILLE, 0, 1000, 150, "slack below which idle is kept shallow" },
	{ "idle_relax_slack", false, SC_PERMILLE, 0, 1000, 350, "slack above which idle is unconstrained" },
	{ "idle_latency_us", false, SC_US, 0, 100000, 20, "resume latency limit when tight" },
	{ "ff_gain", false, SC_GAIN, 0, 10000, 0, "RPS feed-forward gain" },
	{ "window", true, SC_NS, 0, 10000000000ULL, 10000000, "window length (0 = by count only)" },
	{ "window_sends", true, SC_COUNT, 0, 1000000, 0, "close a window after this many sends (0 = off)" },
	{ 0 }
};

const char *sc_unit_name(enum sc_unit u)
{
	static const char *const names[] = {
		[SC_PERMILLE] = "thousandths (or %)", [SC_GAIN] = "x1000",
		[SC_MS] = "ms", [SC_US] = "us", [SC_KHZ] = "kHz", [SC_NS] = "ns (or 10ms, 500us, 1s)",
		[SC_COUNT] = "count",
	};
	return names[u];
}

const struct sc_knob *sc_knob_find(const char *name)
{
	for (int i = 0; sc_knobs[i].name; i++)
		if (!strcmp(sc_knobs[i].name, name))
			return &sc_knobs[i];
	return NULL;
}

/* ns per unit suffix, for time knobs */
static int time_scale(const char *sfx, unsigned long long *ns)
{
	if (!strcmp(sfx, "ns")) *ns = 1;
	else if (!strcmp(sfx, "us")) *ns = 1000;
	else if (!strcmp(sfx, "ms")) *ns = 1000000;
	else if (!strcmp(sfx, "s")) *ns = 1000000000ULL;
	else return -1;
	return 0;
}

int sc_parse_value(const struct sc_knob *k, const char *arg, unsigned long long *out)
{
	unsigned long long v, ns, base;
	char *end;

	errno = 0;
	if (!arg || !*arg || *arg == '-')
		goto bad;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg)
		goto bad;
	if (*end == '%') {
		if (k->unit != SC_PERMILLE || end[1])
			goto bad;
		v *= 10;
	} else if (*end) {
		if (k->unit != SC_MS && k->unit != SC_US && k->unit != SC_NS)
			goto bad;
		if (time_scale(end, &ns))
			goto bad;
		base = k->unit == SC_MS ? 1000000 : k->unit == SC_US ? 1000 : 1;
		if (v > ~0ULL / ns || (v * ns) % base)
			goto bad;
		v = v * ns / base;
	}
	if (v < k->min || v > k->max)
		return sc_err("%s: %s is out of range %llu..%llu %s", k->name, arg, k->min, k->max,
			      sc_unit_name(k->unit));
	*out = v;
	return 0;
bad:
	return sc_err("%s: bad value '%s' (unit: %s, range %llu..%llu)", k->name, arg ? arg : "",
		      sc_unit_name(k->unit), k->min, k->max);
}

static int bpf_cfg(struct slackgov_bpf_config *c, int *fd)
{
	__u32 zero = 0;

	*fd = sc_map_fd("sg_config");
	if (*fd < 0)
		return sc_err("the BPF side is not loaded: run 'slackctl load'");
	if (bpf_map_lookup_elem(*fd, &zero, c))
		return sc_err("cannot read the BPF settings: %s", strerror(errno));
	return 0;
}

/* read a knob's value; no message (for the list, where a knob may be absent) */
static int knob_read_raw(const struct sc_knob *k, unsigned long long *v)
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
	if (!knob_read_raw(k, v))
		return 0;
	if (k->bpf && sc_loaded())
		return sc_err("cannot read the BPF settings: %s", strerror(errno));
	if (k->bpf)
		return sc_err("the BPF side is not loaded: run 'slackctl load'");
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
			ok[i] = knob_read_raw(k, &v[i]) == 0;
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
