// SPDX-License-Identifier: GPL-2.0
/*
 * number.c - slackctl's one number parser, and the quoting of what it echoes.
 */
#include <stdio.h>
#include <string.h>
#include "slackctl.h"

/**
 * DOC: numbers
 *
 * Every numeric argument of slackctl (a knob's VALUE, ``--setpoint``,
 * ``--slo``, ``--pid``, ``--slot``, a cgroup id, ``--watch``, ``--interval``)
 * is read by sc_parse_num(), with one set of rules:
 *
 * 1. The argument is the number and nothing else: no whitespace before or
 *    after it and no sign.  ``-5`` and ``' -18446744073709551615'`` are
 *    errors, not a wrap-around to a large value (strtoull() skips spaces
 *    and negates, so it is not used).
 * 2. ``NUMBER := DIGITS [. DIGITS] [UNIT]``.  A bare number is in the
 *    field's own unit (thousandths for a ratio, us for a us knob).  A
 *    decimal part is accepted when the value is a whole number of the
 *    field's unit: ``1.5ms`` is 1500 for a us field, ``0.5ms`` is an error
 *    for a ms field.  A field without units (a PID, a slot, a cgroup id, a
 *    count, a gain, a frequency) is ``DIGITS`` alone: ``--pid 1.0`` is an
 *    error, not PID 1 (and ``set kp 1.0`` not a gain of 0.001), as are
 *    ``1e3``, ``0x10`` and ``+1``.
 * 3. The units a field takes follow from what it measures, parsed here and
 *    nowhere else: a ratio takes ``%`` (times 10: thousandths), a time takes
 *    ``ns``, ``us``, ``ms`` and ``s``, a percentile (the p in ``p99.9``)
 *    is in percent to 0.01; gains, frequencies, counts and ids take none.
 * 4. Overflow at any step is an error: the digits and the scaling are
 *    computed in 128 bits and a value above 2^64 - 1 is out of range.
 * 5. The field's range is checked and named in the message with its unit.
 *
 * A command parses all its arguments before it changes anything, so that a
 * bad one leaves every map, pin and sysfs file as it was.
 */

typedef unsigned __int128 u128;

struct sc_suffix {
	const char *name;
	unsigned long long mul;		/* field units * base per suffix unit */
};

static const struct sc_suffix sfx_ratio[] = { { "", 1 }, { "%", 10 }, { 0 } };
static const struct sc_suffix sfx_bare[] = { { "", 1 }, { 0 } };
static const struct sc_suffix sfx_quantile[] = { { "", 100 }, { 0 } };
static const struct sc_suffix sfx_time[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000ULL }, { 0 }
};

/* ns per field unit of the time fields */
static unsigned long long time_base(enum sc_unit u)
{
	switch (u) {
	case SC_NS:	return 1;
	case SC_US:	return 1000;
	case SC_MS:	return 1000000;
	case SC_SEC:	return 1000000000ULL;
	default:	return 0;
	}
}

const char *sc_unit_name(enum sc_unit u)
{
	static const char *const names[] = {
		[SC_PERMILLE] = "thousandths (or %)", [SC_GAIN] = "x1000",
		[SC_MS] = "ms", [SC_US] = "us", [SC_KHZ] = "kHz", [SC_NS] = "ns (or 10ms, 500us, 1s)",
		[SC_COUNT] = "count", [SC_SEC] = "s", [SC_QUANTILE] = "percentile",
	};
	return names[u];
}

/* the unit after a range, "" for plain counts and ids */
static const char *range_unit(enum sc_unit u)
{
	return u == SC_COUNT ? "" : sc_unit_name(u);
}

/* the units a field takes; sfx_bare: none, and an integer */
static const struct sc_suffix *sfx_of(enum sc_unit u)
{
	switch (u) {
	case SC_PERMILLE:	return sfx_ratio;
	case SC_QUANTILE:	return sfx_quantile;
	case SC_NS: case SC_US: case SC_MS: case SC_SEC: return sfx_time;
	default:		return sfx_bare;
	}
}

static int bad(const char *what, const char *arg, const char *why)
{
	return sc_err("%s: bad value '%s': %s", what, arg, why);
}

int sc_parse_num(const char *what, enum sc_unit unit, unsigned long long min,
		 unsigned long long max, const char *arg, unsigned long long *out)
{
	const struct sc_suffix *sfx, *s;
	unsigned long long base = time_base(unit) ?: 1, mul = 0;
	u128 m = 0, div = 1, v;
	const char *p = arg, *unit_txt;
	bool big = false;
	int frac = 0;
	char why[128];

	if (!arg || !*arg)
		return bad(what, "", "empty");
	if (*arg == '-' || *arg == '+')
		return bad(what, arg, "no sign: numbers here are not negative");
	if (*arg == ' ' || *arg == '\t' || *arg == '\n')
		return bad(what, arg, "leading whitespace");
	if (*p < '0' || *p > '9')
		return bad(what, arg, "not a number");
	for (; *p >= '0' && *p <= '9'; p++) {
		if (big)
			continue;	/* out of range: reported below, after the unit */
		m = m * 10 + (*p - '0');
		big = m > ~0ULL;
	}
	if (*p == '.' && sfx_of(unit) == sfx_bare) {
		snprintf(why, sizeof(why), "not an integer (%s takes digits only, no decimal point)",
			 what);
		return bad(what, arg, why);
	}
	if (*p == '.') {
		const char *f = ++p, *last = p;

		if (*p < '0' || *p > '9')
			return bad(what, arg, "digits must follow the decimal point");
		for (; *p >= '0' && *p <= '9'; p++)
			if (*p != '0')
				last = p + 1;
		/* trailing zeros of the decimal part do not change the value */
		for (; f < last; f++, frac++) {
			if (frac == 18)
				return bad(what, arg, "too many decimals");
			if (!big)
				m = m * 10 + (*f - '0');
			div *= 10;
		}
	}
	unit_txt = p;
	sfx = sfx_of(unit);
	if (sfx == sfx_time && !*unit_txt)
		mul = base;		/* a bare time is in the field's unit */
	for (s = sfx; !mul && s->name; s++)
		if (!strcmp(unit_txt, s->name))
			mul = s->mul;
	if (!mul) {
		if (*unit_txt == ' ' || *unit_txt == '\t' || *unit_txt == '\n')
			return bad(what, arg, "trailing whitespace");
		if (sfx == sfx_time)
			snprintf(why, sizeof(why), "unknown unit '%s' (%s takes ns, us, ms or s)",
				 unit_txt, what);
		else if (sfx == sfx_ratio)
			snprintf(why, sizeof(why), "unknown unit '%s' (%s takes thousandths or %%)",
				 unit_txt, what);
		else
			snprintf(why, sizeof(why), "'%s' after the number (%s takes %s, no unit)",
				 unit_txt, what, sc_unit_name(unit));
		return bad(what, arg, why);
	}
	/* field units = m / div * mul / base: exact, or an error */
	if (!big) {
		v = m * mul;		/* m < 2^64 * 10^18 < 2^124: only this can wrap */
		if (m && v / m != mul)
			big = true;
	}
	if (!big) {
		if (v % (div * base)) {
			snprintf(why, sizeof(why), "not a whole number of %s", unit == SC_QUANTILE ?
				 "hundredths of a percent" : unit == SC_PERMILLE ? "thousandths" :
				 unit == SC_NS ? "ns" : unit == SC_US ? "us" : unit == SC_MS ? "ms" :
				 unit == SC_SEC ? "seconds" : "units");
			return bad(what, arg, why);
		}
		v /= div * base;
		if (v > ~0ULL)
			big = true;
	}
	if (big || v < min || v > max)
		return sc_err("%s: %s is out of range %llu..%llu%s%s", what, arg, min, max,
			      *range_unit(unit) ? " " : "", range_unit(unit));
	*out = (unsigned long long)v;
	return 0;
}

int sc_parse_value(const struct sc_knob *k, const char *arg, unsigned long long *out)
{
	return sc_parse_num(k->name, k->unit, k->min, k->max, arg, out);
}

/*
 * Arguments are echoed in messages: a newline or a terminal escape sequence
 * in one must not reach the terminal or break the one-line error.  Control
 * bytes, DEL and every byte above 0x7f (which covers the C1 controls and
 * invalid UTF-8) are written as \xNN; the result is printable ASCII.
 */
void sc_sanitize(const char *in, char *out, size_t len)
{
	size_t o = 0;

	if (!len)
		return;
	for (; *in && o + 1 < len; in++) {
		unsigned char c = *in;

		if (c >= 0x20 && c < 0x7f) {
			out[o++] = c;
		} else {
			if (o + 5 > len)
				break;
			snprintf(out + o, 5, "\\x%02x", c);
			o += 4;
		}
	}
	out[o] = 0;
}

/* a duration (10ms, 1s, 500us; a bare number is ns) within [min_ns, max_ns] */
int sc_parse_duration(const char *what, const char *arg, __u64 min_ns, __u64 max_ns, __u64 *ns)
{
	unsigned long long v;

	if (sc_parse_num(what, SC_NS, min_ns, max_ns, arg, &v))
		return -1;
	*ns = v;
	return 0;
}
