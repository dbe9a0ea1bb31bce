// SPDX-License-Identifier: GPL-2.0
/*
 * sgverify.c - what the verifier walks for each program of a BPF object:
 * each program is loaded alone (a fresh open of the object, that program's
 * autoload only) with the verifier's statistics (log level 4), and its
 * "processed N insns" must be at most MAX_INSNS.  What the verifier walks is
 * most of a load's cost (Documentation/metrics.rst), and a branch per
 * iteration of a bounded loop multiplies it; the bound catches that before
 * the verifier's own limit (1000000) does.  Prints KTAP; a program the
 * kernel does not let this machine load at all (EPERM before verifying,
 * e.g. fentry on a host that refuses it) is skipped with the reason.
 *
 * Usage: sgverify OBJECT MAX_INSNS
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#define LOG_SIZE	(1 << 20)	/* the statistics are a few lines */

static char log_buf[LOG_SIZE];

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* Load program @idx of @path alone; its processed count, or -errno. */
static long verify_one(const char *path, int idx, char *name, size_t name_len)
{
	struct bpf_object *obj = bpf_object__open(path);
	struct bpf_program *p;
	long ret = -ENOENT;
	const char *s;
	int i = 0, err;

	if (!obj)
		return -errno;
	bpf_object__for_each_program(p, obj) {
		bpf_program__set_autoload(p, i == idx);
		if (i++ != idx)
			continue;
		snprintf(name, name_len, "%s", bpf_program__name(p));
		log_buf[0] = '\0';
		bpf_program__set_log_buf(p, log_buf, sizeof(log_buf));
		bpf_program__set_log_level(p, 4);
	}
	if (idx < i) {
		err = bpf_object__load(obj);
		s = strstr(log_buf, "processed ");
		if (err)
			ret = err;
		else if (!s || sscanf(s, "processed %ld insns", &ret) != 1)
			ret = -EBADMSG;
	}
	bpf_object__close(obj);
	return ret;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	int n = 0, i, failed = 0;
	long max, got;
	char name[64];

	if (argc != 3 || (max = strtol(argv[2], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: %s OBJECT MAX_INSNS\n", argv[0]);
		return 2;
	}
	libbpf_set_print(silent);
	obj = bpf_object__open(argv[1]);
	if (!obj) {
		fprintf(stderr, "%s: cannot open %s: %s\n", argv[0], argv[1], strerror(errno));
		return 2;
	}
	bpf_object__for_each_program(p, obj)
		n++;
	bpf_object__close(obj);

	printf("TAP version 13\n1..%d\n", n);
	for (i = 0; i < n; i++) {
		got = verify_one(argv[1], i, name, sizeof(name));
		if (got == -EPERM) {
			printf("ok %d %s # SKIP this kernel refuses to load it (EPERM)\n", i + 1, name);
		} else if (got < 0) {
			printf("not ok %d %s: load failed: %s\n", i + 1, name, strerror((int)-got));
			failed++;
		} else {
			printf("%sok %d %s: the verifier processed %ld instructions (at most %ld)\n",
			       got <= max ? "" : "not ", i + 1, name, got, max);
			failed += got > max;
		}
	}
	return failed ? 1 : 0;
}
