// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe.c - slackctl target add --request BINARY:ENTRY[:EXIT] or
 * --request usdt:BINARY:PROVIDER:START:END: the function's file offset from
 * the binary's ELF symbols, or the USDT probes' from its .note.stapsdt
 * notes, the uprobe perf events, and the links of the loaded sg_req_enter /
 * sg_req_exit programs to them, pinned under SC_LINK_DIR as
 * uprobe-SLOT-{enter,exit} so that they live as long as the target
 * (bpf/func.bpf.h, DOC "requests by function").
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
 * The file offset of virtual address @addr of ELF @e: mapped through the
 * PT_LOAD segment that holds it, one with @flags (PF_X: code) set.  0 and
 * *@off, or -1.
 */
static int addr_offset(Elf *e, __u64 addr, __u32 flags, __u64 *off)
{
	GElf_Phdr ph;
	size_t i, np;

	if (elf_getphdrnum(e, &np))
		return -1;
	for (i = 0; i < np; i++) {
		if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & flags) == flags &&
		    addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_memsz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

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
	__u64 addr = 0;
	size_t i, n;
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
	if (!addr_offset(e, addr, PF_X, off))
		ret = 0;
	else
		fo_err("%s: '%s' in '%s' is in no executable segment", opt, sym, path);
out:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

/*
 * USDT probe @provider:@name of ELF file @path (systemtap's sys/sdt.h
 * notes, as libbpf's usdt.c reads them): the file offset of its
 * instruction in *@off and of its semaphore, 0 if it has none, in *@sema
 * (the kernel counts the probe's users there while it is attached, so that
 * code guarded by it runs).  Each note of .note.stapsdt (type 3, owner
 * "stapsdt") holds the probe's address, the link-time address of
 * .stapsdt.base and the semaphore's address, then provider, name and
 * arguments; a prelinked or relocated file moved .stapsdt.base, and the
 * probe's address moves with it.  0, or -1 after a message.
 */
static int usdt_offset(const char *path, const char *provider, const char *name,
		       __u64 *off, __u64 *sema)
{
	__u64 base = 0, pc = 0, nbase = 0, saddr = 0;
	bool found = false, notes = false;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *e;
	int fd, ret = -1;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return sc_err("libelf: %s", elf_errmsg(-1));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sc_err("--request: cannot open '%s': %s", path, strerror(errno));
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || gelf_getclass(e) != ELFCLASS64 ||
	    elf_getshdrstrndx(e, &shstrndx)) {
		sc_err("--request: '%s' is not a 64-bit ELF binary", path);
		goto out;
	}
	while ((scn = elf_nextscn(e, scn))) {
		const char *sname;

		if (!gelf_getshdr(scn, &sh))
			continue;
		sname = elf_strptr(e, shstrndx, sh.sh_name);
		if (sname && !strcmp(sname, ".stapsdt.base"))
			base = sh.sh_addr;
	}
	while (!found && (scn = elf_nextscn(e, scn))) {
		size_t o = 0, no, dsc;
		GElf_Nhdr nh;
		Elf_Data *d;
		const char *sname;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		sname = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".note.stapsdt"))
			continue;
		notes = true;
		d = elf_getdata(scn, NULL);
		while (d && !found && (o = gelf_getnote(d, o, &nh, &no, &dsc)) > 0) {
			const char *desc = (const char *)d->d_buf + dsc, *prov, *pname;

			if (nh.n_type != 3 || nh.n_namesz != 8 ||
			    memcmp((const char *)d->d_buf + no, "stapsdt", 8) || nh.n_descsz < 3 * 8 + 2)
				continue;
			prov = desc + 3 * 8;
			pname = memchr(prov, 0, nh.n_descsz - 3 * 8);
			if (!pname++ || pname >= desc + nh.n_descsz ||
			    !memchr(pname, 0, desc + nh.n_descsz - pname))
				continue;
			if (strcmp(prov, provider) || strcmp(pname, name))
				continue;
			memcpy(&pc, desc, 8);
			memcpy(&nbase, desc + 8, 8);
			memcpy(&saddr, desc + 16, 8);
			found = true;
		}
	}
	if (!found) {
		sc_err(notes ? "--request: no USDT probe '%s:%s' in '%s'" :
		       "--request: '%s:%s': '%s' has no USDT probes (no .note.stapsdt section)",
		       provider, name, path);
		goto out;
	}
	if (base && nbase)
		pc += base - nbase;
	if (addr_offset(e, pc, PF_X, off)) {
		sc_err("--request: USDT probe '%s:%s' of '%s' is in no executable segment",
		       provider, name, path);
		goto out;
	}
	*sema = 0;
	if (saddr && addr_offset(e, saddr, PF_W, sema)) {
		sc_err("--request: the semaphore of USDT probe '%s:%s' in '%s' is in no writable segment",
		       provider, name, path);
		goto out;
	}
	ret = 0;
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

/*
 * The first bit of perf_event_attr.config that the uprobe PMU's format
 * field @name names ("config:N" or "config:N-M"), or @def where the kernel
 * has no such field: "retprobe" (the bit that makes a uprobe a uretprobe)
 * and "ref_ctr_offset" (where a USDT semaphore's offset goes).
 */
static int format_bit(const char *name, int def)
{
	char path[PATH_MAX];
	FILE *f;
	int bit;

	snprintf(path, sizeof(path), "%s/format/%s", SC_UPROBE_PMU, name);
	f = fopen(path, "re");
	if (!f)
		return def;
	if (fscanf(f, "config:%d", &bit) != 1)
		bit = def;
	fclose(f);
	return bit;
}

/*
 * Attach the pinned program @prog as a uprobe (@ret: uretprobe) at @off of
 * @path for @pid (-1: every process), its link pinned at @pin; @sema, the
 * file offset of a semaphore the kernel counts the probe's users in (a
 * USDT probe's), 0 for none.  0, or -1 after a message.
 */
static int attach_one(const char *prog, const char *path, __u64 off, bool ret, int pid,
		      const char *pin, __u64 sema)
{
	struct perf_event_attr attr = {};
	char ppath[PATH_MAX];
	int type, pfd, progfd, lfd, err = -1;

	type = read_long(SC_UPROBE_PMU "/type");
	if (type < 0)
		return sc_err("this kernel has no uprobe events (%s)", SC_UPROBE_PMU);
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = ret ? 1ULL << format_bit("retprobe", 0) : 0;
	if (sema) {
		int shift = format_bit("ref_ctr_offset", -1);

		if (shift < 0)
			return sc_err("this kernel takes no USDT semaphore (%s/format/ref_ctr_offset)",
				      SC_UPROBE_PMU);
		attr.config |= sema << shift;
	}
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
 * --request usdt:BINARY:PROVIDER:START:END: the offsets and semaphores of
 * the two probes into @off and @sema, @bin the binary's real path.  0, or
 * -1 after a message.
 */
static int usdt_spec(const char *spec, char *bin, __u64 off[2], __u64 sema[2])
{
	char buf[PATH_MAX], *f[4], *p;
	int i;

	if (strlen(spec) >= sizeof(buf))
		return sc_err("--request: '%.40s...' is too long", spec);
	strcpy(buf, spec + strlen("usdt:"));
	/* from the right: BINARY may hold a ':', PROVIDER and the names do not */
	for (i = 3; i > 0; i--) {
		p = strrchr(buf, ':');
		if (!p || !p[1])
			break;
		f[i] = p + 1;
		*p = 0;
	}
	f[0] = buf;
	if (i || !*buf)
		return sc_err("--request '%s': write usdt:BINARY:PROVIDER:START:END (two probes: a request from START to END)",
			      spec);
	if (!realpath(f[0], bin))
		return sc_err("--request: '%s': %s", f[0], strerror(errno));
	for (i = 0; i < 2; i++)
		if (usdt_offset(bin, f[1], f[2 + i], &off[i], &sema[i]))
			return -1;
	return 0;
}

/*
 * --request BINARY:ENTRY[:EXIT] or usdt:BINARY:PROVIDER:START:END for the
 * target in @slot (@pid: its process, -1 for a name or cgroup target): both
 * probes attached, or none and -1 after a message.
 */
int sc_uprobe_attach(__u32 slot, int pid, const char *spec)
{
	char bin[PATH_MAX], entry[256], exit_fn[256] = "", pin[PATH_MAX], *c1, *c2;
	__u64 off[2], sema[2] = { 0, 0 };
	bool ret_probe;

	if (!strncmp(spec, "usdt:", 5)) {
		if (usdt_spec(spec, bin, off, sema))
			return -1;
		ret_probe = false;	/* END is a probe of its own */
		goto attach;
	}
	if (strlen(spec) >= sizeof(bin))
		return sc_err("--request: '%.40s...' is too long", spec);
	strcpy(bin, spec);
	c1 = strchr(bin, ':');
	if (!c1 || c1 == bin || !c1[1])
		return sc_err("--request '%s': write BINARY:ENTRY[:EXIT], e.g. /usr/sbin/nginx:ngx_http_process_request, or usdt:BINARY:PROVIDER:START:END",
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
	if (func_offset("--request", bin, entry, &off[0]) ||
	    (*exit_fn && func_offset("--request", bin, exit_fn, &off[1])))
		return -1;
	if (!*exit_fn)
		off[1] = off[0];
	ret_probe = !*exit_fn;
attach:
	sc_uprobe_detach(slot);		/* a slot's leftovers, if any */
	pin_name(pin, sizeof(pin), slot, "enter");
	if (attach_one("prog_sg_req_enter", bin, off[0], false, pid, pin, sema[0]))
		return -1;
	pin_name(pin, sizeof(pin), slot, "exit");
	if (attach_one("prog_sg_req_exit", bin, off[1], ret_probe, pid, pin, sema[1])) {
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
		if (attach_one(probes[i].prog, path, off, probes[i].ret, pid, pin, 0))
			goto fail;
	}
	return 0;
fail:
	sc_uprobe_detach(slot);
	return -1;
}
