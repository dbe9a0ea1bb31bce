/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json_writer.h - a small streaming JSON writer for slackctl's -j and -p
 * output, after bpftool's json_writer: the caller opens and closes objects and
 * arrays, names fields and writes values; the writer places separators,
 * escapes strings and, when pretty, indents.  A document ends with a newline
 * when its outermost object or array is closed, so that --watch writes one
 * document per refresh.
 */
#ifndef SLACKCTL_JSON_WRITER_H
#define SLACKCTL_JSON_WRITER_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

typedef struct json_writer json_writer_t;

json_writer_t *jsonw_new(FILE *f);
void jsonw_destroy(json_writer_t **self_p);
void jsonw_pretty(json_writer_t *self, bool on);
/* nesting depth: 0 between documents */
int jsonw_depth(const json_writer_t *self);

void jsonw_start_object(json_writer_t *self);
void jsonw_end_object(json_writer_t *self);
void jsonw_start_array(json_writer_t *self);
void jsonw_end_array(json_writer_t *self);

/* the length of the valid UTF-8 sequence at s, 0 if it is not one */
int jsonw_utf8_len(const unsigned char *s);

/* a field name inside an object; the value follows */
void jsonw_name(json_writer_t *self, const char *name);

/* values */
void jsonw_string(json_writer_t *self, const char *value);
void jsonw_uint(json_writer_t *self, __u64 value);
void jsonw_int(json_writer_t *self, __s64 value);
void jsonw_float_fmt(json_writer_t *self, const char *fmt, double value);
void jsonw_bool(json_writer_t *self, bool value);
void jsonw_null(json_writer_t *self);
/* a number given as decimal text (a sysfs read), or null if it is not one */
void jsonw_number_text(json_writer_t *self, const char *text);

/* name + value */
void jsonw_string_field(json_writer_t *self, const char *name, const char *value);
void jsonw_uint_field(json_writer_t *self, const char *name, __u64 value);
void jsonw_int_field(json_writer_t *self, const char *name, __s64 value);
void jsonw_float_field_fmt(json_writer_t *self, const char *name, const char *fmt, double value);
void jsonw_bool_field(json_writer_t *self, const char *name, bool value);
void jsonw_null_field(json_writer_t *self, const char *name);
void jsonw_number_text_field(json_writer_t *self, const char *name, const char *text);

#endif
