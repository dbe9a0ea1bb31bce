// SPDX-License-Identifier: GPL-2.0
/*
 * json_writer.c - a small streaming JSON writer (after bpftool's).
 *
 * Compact output is one line per document with ", " and ": " separators
 * (what slackctl -j has always printed, and what scripts grep for); pretty
 * output (-p) puts every member on its own line, indented by four spaces.
 * Strings are escaped; bytes that are not valid UTF-8 (a process name can
 * hold any byte) become U+FFFD, so that the document always parses.
 */
#include <stdlib.h>
#include <string.h>
#include "json_writer.h"

/* spaces per nesting level with -p, as bpftool */
#define JSONW_INDENT	4

struct json_writer {
	FILE *out;
	unsigned int depth;
	bool pretty;
	bool sep;		/* the current container already holds a member */
	bool after_name;	/* a name was written: the value follows it directly */
};

json_writer_t *jsonw_new(FILE *f)
{
	json_writer_t *self = calloc(1, sizeof(*self));

	if (self)
		self->out = f;
	return self;
}

void jsonw_destroy(json_writer_t **self_p)
{
	json_writer_t *self = *self_p;

	if (!self)
		return;
	fflush(self->out);
	free(self);
	*self_p = NULL;
}

void jsonw_pretty(json_writer_t *self, bool on)
{
	self->pretty = on;
}

int jsonw_depth(const json_writer_t *self)
{
	return self->depth;
}

static void jsonw_indent(json_writer_t *self)
{
	fputc('\n', self->out);
	for (unsigned int i = 0; i < self->depth * JSONW_INDENT; i++)
		fputc(' ', self->out);
}

/* separator before a member (a value, or a name with its value) */
static void jsonw_member(json_writer_t *self)
{
	if (self->sep)
		fputc(',', self->out);
	if (self->pretty && self->depth)
		jsonw_indent(self);
	else if (self->sep)
		fputc(' ', self->out);
	self->sep = true;
}

static void jsonw_begin_value(json_writer_t *self)
{
	if (self->after_name)
		self->after_name = false;
	else
		jsonw_member(self);
}

/*
 * The length of the valid UTF-8 sequence at @s, 0 if it is not one: no
 * overlong forms, no surrogates, nothing above U+10FFFF.  Both of
 * slackctl's text formats that must be UTF-8 (JSON here, the Prometheus
 * exposition in prom.c) escape a byte for which this is 0.
 */
int jsonw_utf8_len(const unsigned char *s)
{
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

static void jsonw_quote(json_writer_t *self, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	fputc('"', self->out);
	while (*s) {
		switch (*s) {
		case '"':	fputs("\\\"", self->out); break;
		case '\\':	fputs("\\\\", self->out); break;
		case '\n':	fputs("\\n", self->out); break;
		case '\t':	fputs("\\t", self->out); break;
		case '\r':	fputs("\\r", self->out); break;
		default:
			if (*s < 0x20) {
				fprintf(self->out, "\\u%04x", *s);
				break;
			}
			n = jsonw_utf8_len(s);
			if (!n) {
				fputs("\\ufffd", self->out);
				break;
			}
			fwrite(s, 1, n, self->out);
			s += n - 1;
		}
		s++;
	}
	fputc('"', self->out);
}

static void jsonw_open(json_writer_t *self, char c)
{
	jsonw_begin_value(self);
	fputc(c, self->out);
	self->depth++;
	self->sep = false;
}

static void jsonw_close(json_writer_t *self, char c)
{
	bool empty = !self->sep;

	self->after_name = false;
	self->depth--;
	if (self->pretty && !empty)
		jsonw_indent(self);
	fputc(c, self->out);
	self->sep = true;
	if (!self->depth) {
		fputc('\n', self->out);
		self->sep = false;
	}
}

void jsonw_start_object(json_writer_t *self)	{ jsonw_open(self, '{'); }
void jsonw_end_object(json_writer_t *self)	{ jsonw_close(self, '}'); }
void jsonw_start_array(json_writer_t *self)	{ jsonw_open(self, '['); }
void jsonw_end_array(json_writer_t *self)	{ jsonw_close(self, ']'); }

void jsonw_name(json_writer_t *self, const char *name)
{
	jsonw_member(self);
	jsonw_quote(self, name);
	fputs(": ", self->out);
	self->after_name = true;
}

/* a scalar as a whole document ends its line too */
static void jsonw_end_scalar(json_writer_t *self)
{
	if (!self->depth) {
		fputc('\n', self->out);
		self->sep = false;
	}
}

void jsonw_string(json_writer_t *self, const char *value)
{
	jsonw_begin_value(self);
	jsonw_quote(self, value);
	jsonw_end_scalar(self);
}

void jsonw_uint(json_writer_t *self, __u64 value)
{
	jsonw_begin_value(self);
	fprintf(self->out, "%llu", (unsigned long long)value);
	jsonw_end_scalar(self);
}

void jsonw_int(json_writer_t *self, __s64 value)
{
	jsonw_begin_value(self);
	fprintf(self->out, "%lld", (long long)value);
	jsonw_end_scalar(self);
}

void jsonw_float_fmt(json_writer_t *self, const char *fmt, double value)
{
	jsonw_begin_value(self);
	fprintf(self->out, fmt, value);
	jsonw_end_scalar(self);
}

void jsonw_bool(json_writer_t *self, bool value)
{
	jsonw_begin_value(self);
	fputs(value ? "true" : "false", self->out);
	jsonw_end_scalar(self);
}

void jsonw_null(json_writer_t *self)
{
	jsonw_begin_value(self);
	fputs("null", self->out);
	jsonw_end_scalar(self);
}

void jsonw_number_text(json_writer_t *self, const char *text)
{
	const char *p = text + (*text == '-');

	if (!*p || strspn(p, "0123456789") != strlen(p) || (p[0] == '0' && p[1])) {
		jsonw_null(self);
		return;
	}
	jsonw_begin_value(self);
	fputs(text, self->out);
	jsonw_end_scalar(self);
}

void jsonw_string_field(json_writer_t *self, const char *name, const char *value)
{
	jsonw_name(self, name);
	jsonw_string(self, value);
}

void jsonw_uint_field(json_writer_t *self, const char *name, __u64 value)
{
	jsonw_name(self, name);
	jsonw_uint(self, value);
}

void jsonw_int_field(json_writer_t *self, const char *name, __s64 value)
{
	jsonw_name(self, name);
	jsonw_int(self, value);
}

void jsonw_float_field_fmt(json_writer_t *self, const char *name, const char *fmt, double value)
{
	jsonw_name(self, name);
	jsonw_float_fmt(self, fmt, value);
}

void jsonw_bool_field(json_writer_t *self, const char *name, bool value)
{
	jsonw_name(self, name);
	jsonw_bool(self, value);
}

void jsonw_null_field(json_writer_t *self, const char *name)
{
	jsonw_name(self, name);
	jsonw_null(self);
}

void jsonw_number_text_field(json_writer_t *self, const char *name, const char *text)
{
	jsonw_name(self, name);
	jsonw_number_text(self, text);
}
