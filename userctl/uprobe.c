// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe.c - slackctl target add --request BINARY:ENTRY[:EXIT]: the
 * function's file offset from the binary's ELF symbols, the uprobe perf
 * events, and the links of the loaded sg_req_enter / sg_req_exit programs
 * to them, pinned under SC_LINK_DIR as uprobe-SLOT-{enter,exit} so that
 * they live as long as the target (bpf/func.bpf.h, DOC "requests by
 * function").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "slackctl.h"

#define SC_UPROBE_PMU	"/sys/bus/event_source/devices/uprobe"

/* func_offset()'s errors, unless it only answers whether a function is there */
static bool fo_quiet;
#define fo_err(...)	(fo_quiet ? -1 : sc_err(__VA_ARGS__))

/*
 * The file offset of function @sym in ELF file @path (its .symtab, else
 * .dynsym): the symbol's address mapped through the PT_LOAD segment that
 * holds it.  0 and *@off, or -1 after a message.
 */
static int func_offset(const char *opt, const char *path, const char *sym, __u64 *off)
{
	bool found = false, symtab = false;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	GElf_Phdr ph;
	__u64 addr = 0;
	size_t i, n, np;
	Elf *e;
	int fd, ret = -1;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return fo_err("libelf: %s", elf_errmsg(-1));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fo_err("%s: cannot open '%s': %s", opt, path, strerror(errno));
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		fo_err("%s: '%s' is not an ELF binary", opt, path);
		goto out;
	}
	/* .symtab first (a static or unstripped binary), then .dynsym */
	for (int pass = 0; pass < 2 && !found; pass++) {
		scn = NULL;
		while ((scn = elf_nextscn(e, scn)) && !found) {
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB))
				continue;
			d = elf_getdata(scn, NULL);
			if (!d || !sh.sh_entsize)
				continue;
			symtab |= !pass;
			n = sh.sh_size / sh.sh_entsize;
			for (i = 0; i < n; i++) {
				const char *name;

				if (!gelf_getsym(d, i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
				    !s.st_value)
					continue;
				name = elf_strptr(e, sh.sh_link, s.st_name);
				if (name && !strcmp(name, sym)) {
					addr = s.st_value;
					found = true;
					break;
				}
			}
		}
	}
	if (!found) {
		fo_err(symtab ? "%s: no function '%s' in '%s'" :
		       "%s: no function '%s' in '%s' (stripped: no .symtab, and .dynsym exports no such function)",
		       opt, sym, path);
		goto out;
	}
	if (elf_getphdrnum(e, &np)) {
		fo_err("%s: '%s': %s", opt, path, elf_errmsg(-1));
		goto out;
	}
	for (i = 0; i < np; i++) {
		if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_memsz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			ret = 0;
			goto out;
		}
	}
	fo_err("%s: '%s' in '%s' is in no executable segment", opt, sym, path);
out:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

/* An integer of a sysfs file (the PMU's type), or -1. */
static long read_long(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The bit of perf_event_attr.config that makes a uprobe a uretprobe. */
static int retprobe_bit(void)
{
	FILE *f = fopen(SC_UPROBE_PMU "/format/retprobe", "re");
	int bit = 0;

	if (!f)
		return 0;
	if (fscanf(f, "config:%d", &bit) != 1)
		bit = 0;
	fclose(f);
	return bit;
}

/*
 * Attach the pinned program @prog as a uprobe (@ret: uretprobe) at @off of
 * @path for @pid (-1: every process), its link pinned at @pin.  0, or -1
 * after a message.
 */
static int attach_one(const char *prog, const char *path, __u64 off, bool ret, int pid,
		      const char *pin)
{
	struct perf_event_attr attr = {};
	char ppath[PATH_MAX];
	int type, pfd, progfd, lfd, err = -1;

	type = read_long(SC_UPROBE_PMU "/type");
	if (type < 0)
		return sc_err("this kernel has no uprobe events (%s)", SC_UPROBE_PMU);
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = ret ? 1ULL << retprobe_bit() : 0;
	attr.config1 = (__u64)(unsigned long)path;	/* uprobe_path */
	attr.config2 = off;				/* probe_offset */
	pfd = syscall(__NR_perf_event_open, &attr, pid, pid == -1 ? 0 : -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return sc_err("cannot create the uprobe at %s+0x%llx: %s", path,
			      (unsigned long long)off, strerror(errno));
	snprintf(ppath, sizeof(ppath), "%s/%s", SC_LINK_DIR, prog);
	progfd = bpf_obj_get(ppath);
	if (progfd < 0) {
		sc_err("cannot open %s: %s (a slackctl load of this version first)", ppath,
		       strerror(errno));
		goto out_pfd;
	}
	lfd = bpf_link_create(progfd, pfd, BPF_PERF_EVENT, NULL);
	if (lfd < 0) {
		sc_err("cannot attach %s: %s", prog, strerror(errno));
		goto out_prog;
	}
	if (bpf_obj_pin(lfd, pin))
		sc_err("cannot pin %s: %s", pin, strerror(errno));
	else
		err = 0;
	close(lfd);
out_prog:
	close(progfd);
out_pfd:
	close(pfd);
	return err;
}

static void pin_name(char *buf, size_t len, __u32 slot, const char *end)
{
	snprintf(buf, len, "%s/uprobe-%u-%s", SC_LINK_DIR, slot, end);
}

/* Remove the uprobes of @slot, if it has any: its uprobe-SLOT-* pins. */
void sc_uprobe_detach(__u32 slot)
{
	char prefix[32], pin[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(SC_LINK_DIR);

	if (!d)
		return;
	snprintf(prefix, sizeof(prefix), "uprobe-%u-", slot);
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(pin, sizeof(pin), "%s/%s", SC_LINK_DIR, e->d_name);
		unlink(pin);
	}
	closedir(d);
}

/*
 * --request BINARY:ENTRY[:EXIT] for the target in @slot (@pid: its process,
 * -1 for a name or cgroup target): both probes attached, or none and -1
 * after a message.
 */
int sc_uprobe_attach(__u32 slot, int pid, const char *spec)
{
	char bin[PATH_MAX], entry[256], exit_fn[256] = "", pin[PATH_MAX], *c1, *c2;
	__u64 off_in, off_out;

	if (strlen(spec) >= sizeof(bin))
		return sc_err("--request: '%.40s...' is too long", spec);
	strcpy(bin, spec);
	c1 = strchr(bin, ':');
	if (!c1 || c1 == bin || !c1[1])
		return sc_err("--request '%s': write BINARY:ENTRY[:EXIT], e.g. /usr/sbin/nginx:ngx_http_process_request",
			      spec);
	*c1++ = 0;
	c2 = strchr(c1, ':');
	if (c2) {
		*c2++ = 0;
		if (!*c2 || strchr(c2, ':'))
			return sc_err("--request '%s': write BINARY:ENTRY[:EXIT]", spec);
		snprintf(exit_fn, sizeof(exit_fn), "%s", c2);
	}
	snprintf(entry, sizeof(entry), "%s", c1);
	if (!realpath(bin, pin))
		return sc_err("--request: '%s': %s", bin, strerror(errno));
	strcpy(bin, pin);
	if (func_offset("--request", bin, entry, &off_in) ||
	    (*exit_fn && func_offset("--request", bin, exit_fn, &off_out)))
		return -1;
	if (!*exit_fn)
		off_out = off_in;
	sc_uprobe_detach(slot);		/* a slot's leftovers, if any */
	pin_name(pin, sizeof(pin), slot, "enter");
	if (attach_one("prog_sg_req_enter", bin, off_in, false, pid, pin))
		return -1;
	pin_name(pin, sizeof(pin), slot, "exit");
	if (attach_one("prog_sg_req_exit", bin, off_out, !*exit_fn, pid, pin)) {
		sc_uprobe_detach(slot);
		return -1;
	}
	return 0;
}

/*
 * --tls LIBSSL for the target in @slot: uprobes at SSL_read's and
 * SSL_write's entries and returns and at SSL_free (bpf/tls.bpf.h), all
 * five or none.
 */
int sc_tls_attach(__u32 slot, int pid, const char *lib)
{
	static const struct {
		const char *sym, *prog, *pin;
		bool ret, optional;	/* uretprobe; a libssl may lack it */
	} probes[] = {
		{ "SSL_read", "prog_sg_ssl_read_enter", "sslr", false, false },
		{ "SSL_read", "prog_sg_ssl_read_exit", "sslr-ret", true, false },
		{ "SSL_write", "prog_sg_ssl_write_enter", "sslw", false, false },
		{ "SSL_write", "prog_sg_ssl_write_exit", "sslw-ret", true, false },
		{ "SSL_free", "prog_sg_ssl_free", "sslf", false, false },
		{ "SSL_read_ex", "prog_sg_ssl_read_enter", "sslrx", false, true },
		{ "SSL_read_ex", "prog_sg_ssl_read_ex_exit", "sslrx-ret", true, true },
		{ "SSL_write_ex", "prog_sg_ssl_write_enter", "sslwx", false, true },
		{ "SSL_write_ex", "prog_sg_ssl_write_ex_exit", "sslwx-ret", true, true },
	};
	char path[PATH_MAX], pin[PATH_MAX];
	bool have = false;
	__u64 off = 0;
	size_t i;

	if (!realpath(lib, path))
		return sc_err("--tls: '%s': %s", lib, strerror(errno));
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		/* each function's offset once (its entry and return probes are
		 * neighbours); an optional one that is missing is no error */
		if (!i || strcmp(probes[i].sym, probes[i - 1].sym)) {
			fo_quiet = probes[i].optional;
			have = !func_offset("--tls", path, probes[i].sym, &off);
			fo_quiet = false;
			if (!have && !probes[i].optional)
				goto fail;
		}
		if (!have)
			continue;
		pin_name(pin, sizeof(pin), slot, probes[i].pin);
		if (attach_one(probes[i].prog, path, off, probes[i].ret, pid, pin))
			goto fail;
	}
	return 0;
fail:
	sc_uprobe_detach(slot);
	return -1;
}
