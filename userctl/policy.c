// SPDX-License-Identifier: GPL-2.0
/* policy.c - slackctl policy { load | run | unload | show }: BPF control laws (struct slackgov_ops). */

/**
 * DOC: policy loader
 *
 * A policy is a BPF object that implements struct slackgov_ops
 * (slackgov_ops.h), a struct_ops type that slackgov.ko registers on kernels
 * with module struct_ops (Linux 6.9+).
 *
 * Why not libbpf: Debian 12's libbpf (1.1) looks struct_ops types up in
 * vmlinux BTF only, and a module's type needs two things it cannot do: the
 * programs loaded with attach_btf_obj_fd = the module's BTF, and the map
 * created with BPF_F_VTYPE_BTF_OBJ_FD + value_type_btf_obj_fd (libbpf 1.5
 * does both).  So libbpf only opens the object (its programs and BTF),
 * libelf reads the struct_ops variable's data, its relocations (which
 * program fills which callback) and the license, and four bpf(2) calls do
 * the rest: BPF_PROG_LOAD per callback, BPF_MAP_CREATE, BPF_MAP_UPDATE_ELEM,
 * BPF_LINK_CREATE.  Nothing is relocated: a policy may not use maps, global
 * data, subprograms or kfuncs (refused with a message); it reads the view
 * at the offsets slackgov_ops.h compiles in.  With libbpf >= 1.5 this file
 * becomes bpf_map__attach_struct_ops().
 *
 * Lifetime: the ops stay registered while their BPF link exists.  "policy
 * load" pins the link at SC_POLICY_PIN, on purpose, so that the policy
 * outlives slackctl (as the pinned feed does); "policy unload" detaches it
 * (the built-in law decides at the next decision) and unpins it.  A loader
 * that dies before pinning leaves nothing: its link goes with its file
 * descriptor.  "policy run" never pins: the policy lasts as long as
 * slackctl runs, so a crash or a kill hands back to the built-in law.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "slackctl.h"
#include "slackgov_ops.h"

#define SC_POLICY_PIN		"/sys/fs/bpf/slackgov_policy"
#define SC_OPS_TYPE		"slackgov_ops"
#define SC_OPS_VALUE_TYPE	"bpf_struct_ops_slackgov_ops"
#define SC_OPS_SEC		".struct_ops"
#define SC_MODULE		"slackgov"

/* Linux 6.9+ UAPI that Debian 12's linux-libc-dev (6.1) lacks */
#define SC_BPF_F_LINK			(1U << 13)
#define SC_BPF_F_VTYPE_BTF_OBJ_FD	(1U << 15)
#define SC_BPF_STRUCT_OPS		44	/* enum bpf_attach_type */

/* BPF_MAP_CREATE's attributes as of Linux 6.9 (union bpf_attr's first member) */
struct sc_map_create_attr {
	__u32 map_type, key_size, value_size, max_entries, map_flags, inner_map_fd, numa_node;
	char map_name[16];
	__u32 map_ifindex, btf_fd, btf_key_type_id, btf_value_type_id, btf_vmlinux_value_type_id;
	__u64 map_extra;
	__s32 value_type_btf_obj_fd, map_token_fd;
};

/* one callback: the program that fills it */
struct sc_cb {
	struct bpf_program *prog;
	const char *name;		/* the member's */
	__u32 kidx, koff;		/* kernel member index, offset in the struct */
	int fd;
};

struct sc_policy_load {
	const char *file;
	/* the module's BTF */
	int btf_fd;
	struct btf *vmlinux, *mod;
	__s32 st_id, value_id;
	__u32 data_off, value_size;
	/* the object */
	struct bpf_object *obj;
	int elf_fd;
	Elf *elf;
	const void *sec_data;		/* .struct_ops */
	size_t sec_size;
	__u32 var_off;
	const struct btf_type *ost;	/* the object's struct slackgov_ops */
	char license[128];
	struct sc_cb cb[8];
	int ncb;
	void *value;
	int map_fd, link_fd;
};

/* The loaded module's BTF (kernel_btf, name "slackgov"): its fd, or -1 after an error. */
static int policy_module_btf(__u32 *id)
{
	__u32 next = 0;

	while (!bpf_btf_get_next_id(next, &next)) {
		struct bpf_btf_info info = {};
		char name[64] = "";
		__u32 len = sizeof(info);
		int fd = bpf_btf_get_fd_by_id(next);

		if (fd < 0)
			continue;
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    !strcmp(name, SC_MODULE)) {
			*id = next;
			return fd;
		}
		close(fd);
	}
	return sc_err("slackgov.ko is not loaded (no kernel BTF named '%s')", SC_MODULE);
}

/* A member of @t by name: its index, or -1. */
static int policy_member(const struct btf *btf, const struct btf_type *t, const char *name)
{
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name))
			return i;
	return -1;
}

static bool policy_is_func_ptr(const struct btf *btf, __u32 type_id)
{
	const struct btf_type *t = btf__type_by_id(btf, type_id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t);
}

/* The module's struct_ops type and its value type. */
static int policy_kernel_types(struct sc_policy_load *pl)
{
	const struct btf_type *vt;
	__u32 id = 0;
	int i;

	pl->btf_fd = policy_module_btf(&id);
	if (pl->btf_fd < 0)
		return -1;
	pl->vmlinux = btf__load_vmlinux_btf();
	pl->mod = pl->vmlinux ? btf__load_from_kernel_by_id_split(id, pl->vmlinux) : NULL;
	if (!pl->mod)
		return sc_err("cannot read the kernel's BTF: %s", strerror(errno));
	pl->st_id = btf__find_by_name_kind(pl->mod, SC_OPS_TYPE, BTF_KIND_STRUCT);
	pl->value_id = btf__find_by_name_kind(pl->mod, SC_OPS_VALUE_TYPE, BTF_KIND_STRUCT);
	if (pl->st_id < 0 || pl->value_id < 0)
		return sc_err("this kernel's slackgov.ko has no struct slackgov_ops: policies need "
			      "module struct_ops (Linux 6.9 or later)");
	vt = btf__type_by_id(pl->mod, pl->value_id);
	i = policy_member(pl->mod, vt, "data");
	if (i < 0)
		return sc_err("%s has no member 'data'", SC_OPS_VALUE_TYPE);
	pl->data_off = btf_member_bit_offset(vt, i) / 8;
	pl->value_size = vt->size;
	return 0;
}

static Elf_Scn *policy_section(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * The object: its one struct slackgov_ops variable, the data, the license,
 * which program fills which member (the .rel.struct_ops relocations), and
 * no other relocation.
 */
static int policy_object(struct sc_policy_load *pl)
{
	const char *f = pl->file;
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec, *var;
	struct bpf_program *prog;
	Elf_Scn *scn, *rscn, *symscn;
	GElf_Shdr sh, rsh, symsh;
	Elf_Data *d, *rd, *symd;
	size_t shstrndx, i;
	struct btf *obtf;
	__s32 sec_id;

	pl->obj = bpf_object__open_file(f, NULL);
	if (!pl->obj) {
		char msg[128];

		libbpf_strerror(errno, msg, sizeof(msg));
		return sc_err("%s: cannot open as a BPF object: %s", f, msg);
	}
	obtf = bpf_object__btf(pl->obj);
	sec_id = obtf ? btf__find_by_name_kind(obtf, SC_OPS_SEC, BTF_KIND_DATASEC) : -1;
	if (sec_id < 0)
		return sc_err("%s: no SEC(\"%s\") variable: not a policy", f, SC_OPS_SEC);
	sec = btf__type_by_id(obtf, sec_id);
	if (btf_vlen(sec) != 1)
		return sc_err("%s: %d struct_ops variables, a policy has one", f, btf_vlen(sec));
	vs = btf_var_secinfos(sec);
	var = btf__type_by_id(obtf, vs->type);
	pl->ost = btf__type_by_id(obtf, var->type);
	while (pl->ost && (btf_is_mod(pl->ost) || btf_is_typedef(pl->ost)))
		pl->ost = btf__type_by_id(obtf, pl->ost->type);
	if (!pl->ost || !btf_is_struct(pl->ost) ||
	    strcmp(btf__name_by_offset(obtf, pl->ost->name_off), SC_OPS_TYPE))
		return sc_err("%s: its struct_ops variable is not a struct %s", f, SC_OPS_TYPE);
	pl->var_off = vs->offset;

	elf_version(EV_CURRENT);
	pl->elf_fd = open(f, O_RDONLY | O_CLOEXEC);
	pl->elf = pl->elf_fd >= 0 ? elf_begin(pl->elf_fd, ELF_C_READ, NULL) : NULL;
	if (!pl->elf || elf_getshdrstrndx(pl->elf, &shstrndx))
		return sc_err("%s: cannot read its ELF sections", f);
	scn = policy_section(pl->elf, shstrndx, SC_OPS_SEC, &sh);
	d = scn ? elf_getdata(scn, NULL) : NULL;
	rscn = policy_section(pl->elf, shstrndx, ".rel" SC_OPS_SEC, &rsh);
	rd = rscn ? elf_getdata(rscn, NULL) : NULL;
	symscn = policy_section(pl->elf, shstrndx, ".symtab", &symsh);
	symd = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!d || !rd || !symd || pl->var_off + pl->ost->size > d->d_size)
		return sc_err("%s: no %s data, relocations or symbols", f, SC_OPS_SEC);
	pl->sec_data = d->d_buf;
	pl->sec_size = d->d_size;
	scn = policy_section(pl->elf, shstrndx, "license", &sh);
	d = scn ? elf_getdata(scn, NULL) : NULL;
	if (d && d->d_size)
		snprintf(pl->license, sizeof(pl->license), "%.*s", (int)d->d_size,
			 (const char *)d->d_buf);

	bpf_object__for_each_program(prog, pl->obj) {
		char rel[256];

		snprintf(rel, sizeof(rel), ".rel%s", bpf_program__section_name(prog));
		if (policy_section(pl->elf, shstrndx, rel, &sh))
			return sc_err("%s: program %s uses maps, global data, subprograms or kfuncs: "
				      "slackctl loads policies without relocating them",
				      f, bpf_program__name(prog));
	}

	for (i = 0; i < rsh.sh_size / rsh.sh_entsize; i++) {
		const struct btf_member *m = btf_members(pl->ost);
		const char *sym_name;
		GElf_Rel r;
		GElf_Sym sym;
		__u32 moff;
		int j;

		if (!gelf_getrel(rd, i, &r) || !gelf_getsym(symd, GELF_R_SYM(r.r_info), &sym))
			return sc_err("%s: bad %s relocation", f, SC_OPS_SEC);
		sym_name = elf_strptr(pl->elf, symsh.sh_link, sym.st_name);
		prog = sym_name ? bpf_object__find_program_by_name(pl->obj, sym_name) : NULL;
		moff = r.r_offset - pl->var_off;
		for (j = 0; j < btf_vlen(pl->ost) && btf_member_bit_offset(pl->ost, j) / 8 != moff; j++)
			;
		if (!prog || j == btf_vlen(pl->ost) || pl->ncb == (int)(sizeof(pl->cb) / sizeof(pl->cb[0])))
			return sc_err("%s: a %s relocation names no program or no member", f, SC_OPS_SEC);
		pl->cb[pl->ncb].prog = prog;
		pl->cb[pl->ncb].name = btf__name_by_offset(obtf, m[j].name_off);
		pl->cb[pl->ncb].fd = -1;
		pl->ncb++;
	}
	if (!pl->ncb)
		return sc_err("%s: no callback is set", f);
	return 0;
}

/*
 * A policy reads the view at the offsets its slackgov_ops.h compiled in
 * (nothing is relocated): one built against another layout would read
 * other fields.  The view's types in the object's BTF (a program that
 * reads the view has them) must have this module's sizes.
 */
static int policy_view_layout(struct sc_policy_load *pl)
{
	static const char * const types[] = { "slackgov_policy_view", "slackgov_view_target" };
	struct btf *obtf = bpf_object__btf(pl->obj);
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		__s32 oid = btf__find_by_name_kind(obtf, types[i], BTF_KIND_STRUCT);
		__s32 kid = btf__find_by_name_kind(pl->mod, types[i], BTF_KIND_STRUCT);
		__u32 osz, ksz;

		if (oid < 0 || kid < 0)
			continue;
		osz = btf__type_by_id(obtf, oid)->size;
		ksz = btf__type_by_id(pl->mod, kid)->size;
		if (osz != ksz)
			return sc_err("%s: built against another slackgov_ops.h: its struct %s has "
				      "%u bytes, this module's %u (rebuild the policy)",
				      pl->file, types[i], osz, ksz);
	}
	return 0;
}

/* The struct_ops value: each data member copied by name, each callback a program fd. */
static int policy_value(struct sc_policy_load *pl)
{
	struct btf *obtf = bpf_object__btf(pl->obj);
	const struct btf_type *kst = btf__type_by_id(pl->mod, pl->st_id);
	const struct btf_member *m = btf_members(pl->ost);
	const char *data = (const char *)pl->sec_data + pl->var_off;
	char *kdata;
	int i;

	pl->value = calloc(1, pl->value_size);
	if (!pl->value)
		return sc_err("out of memory");
	kdata = (char *)pl->value + pl->data_off;
	for (i = 0; i < btf_vlen(pl->ost); i++, m++) {
		const char *mname = btf__name_by_offset(obtf, m->name_off);
		__u32 off = btf_member_bit_offset(pl->ost, i) / 8;
		__s64 size = btf__resolve_size(obtf, m->type);
		int k = policy_member(pl->mod, kst, mname);
		bool zero = true;

		if (policy_is_func_ptr(obtf, m->type) || size <= 0)
			continue;
		for (__s64 b = 0; b < size; b++)
			zero &= !data[off + b];
		if (zero)
			continue;
		if (k < 0 || btf__resolve_size(pl->mod, btf_members(kst)[k].type) != size)
			return sc_err("%s: member '%s' is not in this kernel's %s (or has another size)",
				      pl->file, mname, SC_OPS_TYPE);
		memcpy(kdata + btf_member_bit_offset(kst, k) / 8, data + off, size);
	}
	for (i = 0; i < pl->ncb; i++)
		*(unsigned long *)(kdata + pl->cb[i].koff) = pl->cb[i].fd;
	return 0;
}

static int policy_load_progs(struct sc_policy_load *pl)
{
	static char log[16384];
	int i, err;

	for (i = 0; i < pl->ncb; i++) {
		const struct btf_type *kst = btf__type_by_id(pl->mod, pl->st_id);
		int k = policy_member(pl->mod, kst, pl->cb[i].name);

		if (k < 0)
			return sc_err("%s: this kernel's %s has no callback '%s'", pl->file,
				      SC_OPS_TYPE, pl->cb[i].name);
		pl->cb[i].kidx = k;
		pl->cb[i].koff = btf_member_bit_offset(kst, k) / 8;
	}
	for (i = 0; i < pl->ncb; i++) {
		struct bpf_program *p = pl->cb[i].prog;
		LIBBPF_OPTS(bpf_prog_load_opts, o,
			    .expected_attach_type = pl->cb[i].kidx,
			    .attach_btf_id = pl->st_id,
			    .attach_btf_obj_fd = pl->btf_fd);
		const char *last;

		pl->cb[i].fd = bpf_prog_load(BPF_PROG_TYPE_STRUCT_OPS, bpf_program__name(p),
					     pl->license, bpf_program__insns(p),
					     bpf_program__insn_cnt(p), &o);
		if (pl->cb[i].fd >= 0)
			continue;
		err = errno;
		/* again with the verifier's log, for its last line */
		log[0] = 0;
		o.log_buf = log;
		o.log_size = sizeof(log);
		o.log_level = 1;
		bpf_prog_load(BPF_PROG_TYPE_STRUCT_OPS, bpf_program__name(p), pl->license,
			      bpf_program__insns(p), bpf_program__insn_cnt(p), &o);
		if (verbose)
			fprintf(stderr, "%s", log);
		while (strlen(log) && log[strlen(log) - 1] == '\n')
			log[strlen(log) - 1] = 0;
		last = strrchr(log, '\n');
		return sc_err("%s: the kernel refused program %s: %s%s%s%s", pl->file,
			      bpf_program__name(p), strerror(err), log[0] ? " (verifier: " : "",
			      last ? last + 1 : log, log[0] ? ")" : "");
	}
	return 0;
}

/*
 * BPF_MAP_CREATE with the module's BTF for the value type (libbpf 1.1
 * cannot), and the object's own BTF, which the kernel requires of every map
 * with BTF types.
 */
static int policy_map_create(struct sc_policy_load *pl)
{
	struct btf *obtf = bpf_object__btf(pl->obj);
	struct sc_map_create_attr a = {
		.map_type = BPF_MAP_TYPE_STRUCT_OPS,
		.key_size = sizeof(__u32),
		.value_size = pl->value_size,
		.max_entries = 1,
		.map_flags = SC_BPF_F_LINK | SC_BPF_F_VTYPE_BTF_OBJ_FD,
		.map_name = "slackgov_policy",
		.btf_vmlinux_value_type_id = pl->value_id,
		.value_type_btf_obj_fd = pl->btf_fd,
	};

	if (btf__load_into_kernel(obtf))
		return sc_err("%s: the kernel refused the object's BTF: %s", pl->file,
			      strerror(errno));
	a.btf_fd = btf__fd(obtf);
	pl->map_fd = syscall(__NR_bpf, BPF_MAP_CREATE, &a, sizeof(a));
	if (pl->map_fd < 0)
		return sc_err("cannot create the struct_ops map: %s", strerror(errno));
	return 0;
}

static void policy_cleanup(struct sc_policy_load *pl)
{
	int i;

	for (i = 0; i < pl->ncb; i++)
		if (pl->cb[i].fd >= 0)
			close(pl->cb[i].fd);
	if (pl->link_fd >= 0)
		close(pl->link_fd);
	if (pl->map_fd >= 0)
		close(pl->map_fd);
	free(pl->value);
	if (pl->elf)
		elf_end(pl->elf);
	if (pl->elf_fd >= 0)
		close(pl->elf_fd);
	bpf_object__close(pl->obj);
	btf__free(pl->mod);
	btf__free(pl->vmlinux);
	if (pl->btf_fd >= 0)
		close(pl->btf_fd);
}

static volatile sig_atomic_t policy_stop;

static void policy_on_signal(int sig __maybe_unused)
{
	policy_stop = 1;
}

/* The ops' name as the object sets it (for messages). */
static const char *policy_name(struct sc_policy_load *pl, char *buf, size_t len)
{
	struct btf *obtf = bpf_object__btf(pl->obj);
	int i = policy_member(obtf, pl->ost, "name");

	snprintf(buf, len, "?");
	if (i >= 0)
		snprintf(buf, len, "%.*s", SLACKGOV_OPS_NAME_LEN - 1,
			 (const char *)pl->sec_data + pl->var_off + btf_member_bit_offset(pl->ost, i) / 8);
	return buf;
}

static int policy_load(const char *file, bool pin)
{
	struct sc_policy_load pl = { .file = file, .btf_fd = -1, .elf_fd = -1, .map_fd = -1,
				     .link_fd = -1 };
	char name[SLACKGOV_OPS_NAME_LEN];
	__u32 zero = 0;
	int ret = -1;

	if (sc_check_env(SC_NEED_PINS))
		return -1;
	if (access(file, R_OK))
		return sc_err("%s: %s", file, strerror(errno));
	if (!access(SC_POLICY_PIN, F_OK))
		return sc_err("a policy is loaded already (%s): slackctl policy unload first",
			      SC_POLICY_PIN);
	if (policy_object(&pl) || policy_kernel_types(&pl) || policy_view_layout(&pl) ||
	    policy_load_progs(&pl) ||
	    policy_value(&pl) || policy_map_create(&pl))
		goto out;
	if (bpf_map_update_elem(pl.map_fd, &zero, pl.value, 0)) {
		sc_err("%s: the module refused the ops: %s (name: 1-15 of [A-Za-z0-9_.-]; "
		       "flags: SLACKGOV_OPS_F_*; next_freq set)", file, strerror(errno));
		goto out;
	}
	pl.link_fd = bpf_link_create(pl.map_fd, 0, SC_BPF_STRUCT_OPS, NULL);
	if (pl.link_fd < 0) {
		sc_err(errno == EBUSY ? "%s: another policy is registered (policy run elsewhere?)" :
		       "%s: registration failed: %s", file, strerror(errno));
		goto out;
	}
	policy_name(&pl, name, sizeof(name));
	if (pin) {
		if (bpf_obj_pin(pl.link_fd, SC_POLICY_PIN)) {
			/* closing the link below unregisters the ops: nothing stays */
			sc_err("cannot pin the policy at %s: %s", SC_POLICY_PIN, strerror(errno));
			goto out;
		}
	}
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		char law[8 + SLACKGOV_OPS_NAME_LEN];

		snprintf(law, sizeof(law), "bpf:%s", name);
		jsonw_string_field(json_wtr, "law", law);
		jsonw_bool_field(json_wtr, "pinned", pin);
		jsonw_end_object(json_wtr);
	} else {
		printf("law bpf:%s %s\n", name, pin ? "loaded, pinned at " SC_POLICY_PIN :
		       "running until slackctl is stopped");
	}
	fflush(stdout);
	ret = 0;
	if (!pin) {
		struct sigaction sa = { .sa_handler = policy_on_signal };

		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		while (!policy_stop)
			pause();
	}
out:
	policy_cleanup(&pl);
	return ret;
}

static int policy_unload(void)
{
	int fd;

	if (sc_check_env(SC_NEED_PINS))
		return -1;
	fd = bpf_obj_get(SC_POLICY_PIN);
	if (fd < 0)
		return sc_err(errno == ENOENT ? "no policy is loaded (%s)" :
			      "cannot open %s: %s", SC_POLICY_PIN, strerror(errno));
	/* detach first: the built-in law decides next even if someone else holds the link */
	if (bpf_link_detach(fd) && errno != EOPNOTSUPP && errno != EINVAL)
		sc_warn("detaching the policy: %s (unpinning it)", strerror(errno));
	close(fd);
	if (unlink(SC_POLICY_PIN))
		return sc_err("cannot unpin %s: %s", SC_POLICY_PIN, strerror(errno));
	if (json_wtr)
		jsonw_null(json_wtr);
	else
		printf("policy unloaded: the built-in law decides\n");
	return 0;
}

/* Each slack policy's law (policyN/slack/law), and whether a policy is pinned. */
static int policy_show(void)
{
	struct sc_policy *p;
	bool pinned = !access(SC_POLICY_PIN, F_OK);
	int i, n = sc_read_policies(&p);

	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "pinned", pinned);
		jsonw_name(json_wtr, "policies");
		jsonw_start_array(json_wtr);
	} else {
		printf("pinned: %s\n", pinned ? SC_POLICY_PIN : "no");
	}
	for (i = 0; i < n; i++) {
		if (json_wtr) {
			jsonw_start_object(json_wtr);
			jsonw_string_field(json_wtr, "policy", p[i].name);
			jsonw_string_field(json_wtr, "law", p[i].law);
			jsonw_end_object(json_wtr);
		} else {
			printf("%s: %s\n", p[i].name, p[i].law);
		}
	}
	if (json_wtr) {
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
	free(p);
	return 0;
}

static int do_policy_help(int argc __maybe_unused, char **argv __maybe_unused)
{
	if (json_wtr) {
		jsonw_null(json_wtr);
		return 0;
	}
	fprintf(stderr,
		"Usage: slackctl policy { load FILE | run FILE | unload | show | help }\n"
		"       FILE := a BPF object implementing struct slackgov_ops (Linux 6.9+)\n"
		"       load pins the policy (it outlives slackctl); run holds it until\n"
		"       slackctl is stopped; unload hands back to the built-in law.\n");
	return 0;
}

static int do_policy_load(int argc, char **argv)
{
	if (argc != 1)
		return sc_err("policy load: expected one FILE (usage: slackctl policy load FILE)");
	return policy_load(argv[0], true);
}

static int do_policy_run(int argc, char **argv)
{
	if (argc != 1)
		return sc_err("policy run: expected one FILE (usage: slackctl policy run FILE)");
	return policy_load(argv[0], false);
}

static int do_policy_unload(int argc, char **argv)
{
	if (argc)
		return sc_err("policy unload: unexpected '%s'", argv[0]);
	return policy_unload();
}

static int do_policy_show(int argc, char **argv)
{
	if (argc)
		return sc_err("policy show: unexpected '%s'", argv[0]);
	return policy_show();
}

static const struct sc_cmd policy_cmds[] = {
	{ "load",	do_policy_load },
	{ "run",	do_policy_run },
	{ "unload",	do_policy_unload },
	{ "show",	do_policy_show },
	{ "help",	do_policy_help },
	{ 0 }
};

/* slackctl policy [COMMAND]: show without one */
int do_policy(int argc, char **argv)
{
	if (!argc)
		return policy_show();
	return sc_cmd_select(policy_cmds, "policy", argc, argv);
}
