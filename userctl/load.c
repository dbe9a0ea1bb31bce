// SPDX-License-Identifier: GPL-2.0
/*
 * load.c - slackctl load / unload: the BPF side, attached and pinned under
 * SLACKGOV_PIN_DIR so that it runs on after slackctl exits.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "slackctl.h"
#include "slackgov.skel.h"
#include "slackgov_feed.skel.h"

/* remove every file in dir, then dir; missing is fine */
static void unpin_dir(const char *dir)
{
	char path[512];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static void unpin_all(void)
{
	unpin_dir(SC_LINK_DIR);
	unpin_dir(SLACKGOV_PIN_DIR);
}

/*
 * A load pins into a folder of its own, SC_STAGE_PREFIX<pid>, and renames it
 * to SLACKGOV_PIN_DIR when every map and link is pinned: a load killed on
 * the way (SIGKILL cannot be blocked) leaves no half-made SLACKGOV_PIN_DIR,
 * only its staging folder, which the next load removes.  The rename is also
 * the claim: it fails when another load renamed first (bpffs renames a
 * folder only onto a missing or empty one).
 */
#define SC_STAGE_PREFIX	SLACKGOV_PIN_DIR "-loading-"	/* bpffs refuses dots */

/* remove the staging folders of loads that died (their PID is gone) */
static void remove_dead_stages(void)
{
	const char *base = strrchr(SC_STAGE_PREFIX, '/') + 1;
	char dir[512], links[600];
	struct dirent *e;
	DIR *d = opendir("/sys/fs/bpf");
	char *end;
	long pid;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, base, strlen(base)))
			continue;
		pid = strtol(e->d_name + strlen(base), &end, 10);
		snprintf(dir, sizeof(dir), "/sys/fs/bpf/%s", e->d_name);
		if (*end || pid <= 0 || (kill(pid, 0) && errno == ESRCH)) {
			snprintf(links, sizeof(links), "%s/links", dir);
			unpin_dir(links);
			unpin_dir(dir);
		}
	}
	closedir(d);
}

/* for the tests: stop (SIGSTOP) after pinning this many objects, so that a
 * test can kill the load in its pinning phase */
static long stop_after_pins(void)
{
	const char *s = getenv("SLACKCTL_TEST_STOP_AFTER_PINS");

	return s ? strtol(s, NULL, 10) : -1;
}

/*
 * --hooks: which programs see the syscalls (bpf/slackgov.bpf.c, DOC
 * "hooks").  auto tries fentry/fexit on the watched syscalls, then the
 * raw syscall tracepoints, which every kernel with BTF takes.
 */
enum sc_hooks { SC_HOOKS_AUTO, SC_HOOKS_FENTRY, SC_HOOKS_TRACEPOINT };

const char *sc_hooks_name(__u32 hooks)
{
	switch (hooks) {
	case SLACKGOV_HOOKS_FENTRY:
		return "fentry";
	case SLACKGOV_HOOKS_TRACEPOINT:
		return "tracepoint";
	}
	return "unknown";
}

int sc_bpf_config(struct slackgov_bpf_config *c)
{
	int fd = sc_map_fd("sg_config"), err;
	__u32 zero = 0;

	memset(c, 0, sizeof(*c));
	if (fd < 0)
		return -1;
	err = bpf_map_lookup_elem(fd, &zero, c);
	close(fd);
	return err ? -1 : 0;
}

/* "fentry", "tracepoint (fentry refused: ...)", "tracepoint (--hooks tracepoint)" */
const char *sc_hooks_text(__u32 hooks, __u32 fentry_errno, char *buf, size_t len)
{
	if (hooks == SLACKGOV_HOOKS_TRACEPOINT && fentry_errno)
		snprintf(buf, len, "tracepoint (fentry refused: %s)", strerror(fentry_errno));
	else if (hooks == SLACKGOV_HOOKS_TRACEPOINT)
		snprintf(buf, len, "tracepoint (--hooks tracepoint)");
	else
		snprintf(buf, len, "%s", sc_hooks_name(hooks));
	return buf;
}

/* Is @prog one of the set of syscall hooks @hooks (SLACKGOV_HOOKS_*)?  By
 * section: the programs on other events are in every set. */
static bool in_hook_set(struct bpf_program *prog, __u32 hooks)
{
	const char *sec = bpf_program__section_name(prog);

	if (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6))
		return hooks == SLACKGOV_HOOKS_FENTRY;
	if (!strcmp(sec, "tp_btf/sys_enter") || !strcmp(sec, "tp_btf/sys_exit"))
		return hooks == SLACKGOV_HOOKS_TRACEPOINT;
	return true;
}

/* the BPF settings as loaded: the feed and the hooks, where status reads them */
static int set_config(struct bpf_object *obj, bool feed, __u32 hooks, int fentry_err)
{
	struct slackgov_bpf_config c = {};
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "sg_config");
	__u32 zero = 0;

	if (!m)
		return -ENOENT;
	c.feed = feed ? SLACKGOV_FEED_ON : SLACKGOV_FEED_OFF;
	c.hooks = hooks;
	c.fentry_errno = fentry_err < 0 ? -fentry_err : 0;
	return bpf_map_update_elem(bpf_map__fd(m), &zero, &c, BPF_ANY) ? -errno : 0;
}

/* Is @prog one that target add attaches (a uprobe of --request), so that
 * the load pins it unattached? */
static bool is_uprobe(struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);

	return !strcmp(sec, "uprobe") || !strcmp(sec, "uretprobe");
}

/* what load_attach() made: the object, its links (attached, not pinned) */
struct sc_loaded {
	struct bpf_object *obj;
	struct bpf_link **links;
	struct bpf_program **progs;	/* links[i]'s program */
	int nr_links;
};

static void sc_loaded_close(struct sc_loaded *l)
{
	int i;

	for (i = 0; i < l->nr_links; i++)
		bpf_link__destroy(l->links[i]);
	free(l->links);
	free(l->progs);
	bpf_object__close(l->obj);
	memset(l, 0, sizeof(*l));
}

/*
 * Open the object (@feed: the one that calls the kfunc) with the syscall
 * hooks @hooks, load it and attach every program.  0, or a negative errno
 * with nothing left behind; *@stage names the step that failed.
 */
static int load_attach(bool feed, __u32 hooks, int fentry_err, struct sc_loaded *l,
		       const char **stage)
{
	struct bpf_program *prog;
	const void *elf;
	size_t elf_sz;
	int err, n = 0;

	memset(l, 0, sizeof(*l));
	*stage = "open";
	/* both objects are embedded; the feeding one needs the module's kfunc */
	elf = feed ? slackgov_feed_bpf__elf_bytes(&elf_sz) : slackgov_bpf__elf_bytes(&elf_sz);
	l->obj = bpf_object__open_mem(elf, elf_sz, NULL);
	if (!l->obj)
		return -errno;
	bpf_object__for_each_program(prog, l->obj) {
		bpf_program__set_autoload(prog, in_hook_set(prog, hooks));
		n++;
	}
	if (!n) {	/* not one of the embedded objects, which all have programs */
		err = -ENOENT;
		goto fail;
	}
	l->links = calloc(n, sizeof(*l->links));
	l->progs = calloc(n, sizeof(*l->progs));
	if (!l->links || !l->progs) {
		err = -ENOMEM;
		goto fail;
	}
	/* for the tests: stop (SIGSTOP) between the feed check and the load,
	 * so that a test can remove the module there (a load losing a race
	 * with rmmod) */
	if (getenv("SLACKCTL_TEST_STOP_BEFORE_LOAD"))
		raise(SIGSTOP);
	*stage = "load";
	err = bpf_object__load(l->obj);
	if (!err)
		err = set_config(l->obj, feed, hooks, fentry_err);
	if (err)
		goto fail;
	*stage = "attach";
	bpf_object__for_each_program(prog, l->obj) {
		if (!bpf_program__autoload(prog) || is_uprobe(prog))
			continue;
		l->links[l->nr_links] = bpf_program__attach(prog);
		if (!l->links[l->nr_links]) {
			err = -errno;
			if (verbose)
				fprintf(stderr, "cannot attach %s: %s\n", bpf_program__name(prog),
					strerror(errno));
			goto fail;
		}
		l->progs[l->nr_links++] = prog;
	}
	return 0;
fail:
	sc_loaded_close(l);
	return err;
}

int do_load(int argc, char **argv)
{
	struct sc_loaded l = {};
	struct bpf_program *prog;
	struct bpf_map *map;
	const char *mode = "auto", *hooks_arg = "auto", *stage;
	char path[600], stage_dir[512] = "", stage_links[520] = "";
	long stop_at = stop_after_pins(), pins = 0;
	enum sc_hooks want;
	__u32 hooks;
	int fentry_err = 0;
	sigset_t oldmask;
	bool blocked = false;
	bool feed;
	int err, i;

	while (argc > 0) {
		if (is_prefix(argv[0], "--feed") && strlen(argv[0]) > 2) {
			if (argc < 2)
				return sc_err("load: '--feed' needs a value (auto, on or off)");
			mode = argv[1];
			NEXT_ARG();
			NEXT_ARG();
		} else if (is_prefix(argv[0], "--hooks") && strlen(argv[0]) > 2) {
			if (argc < 2)
				return sc_err("load: '--hooks' needs a value (auto, fentry or tracepoint)");
			hooks_arg = argv[1];
			NEXT_ARG();
			NEXT_ARG();
		} else {
			return sc_err("load: unexpected '%s' (usage: slackctl load [--feed { auto | on | off }] [--hooks { auto | fentry | tracepoint }])",
				      argv[0]);
		}
	}
	if (strcmp(mode, "auto") && strcmp(mode, "on") && strcmp(mode, "off"))
		return sc_err("load: --feed takes auto, on or off, not '%s'", mode);
	if (!strcmp(hooks_arg, "auto")) {
		want = SC_HOOKS_AUTO;
	} else if (!strcmp(hooks_arg, "fentry")) {
		want = SC_HOOKS_FENTRY;
	} else if (!strcmp(hooks_arg, "tracepoint")) {
		want = SC_HOOKS_TRACEPOINT;
	} else {
		sc_sanitize(hooks_arg, path, sizeof(path));
		return sc_err("load: --hooks takes auto, fentry or tracepoint, not '%s'", path);
	}
	if (sc_check_env(SC_NEED_PINS))
		return -1;
	remove_dead_stages();
	if (sc_loaded())
		return sc_err("already loaded (%s exists): run 'slackctl unload' first", SLACKGOV_PIN_DIR);
	/* an empty folder is replaced by the rename below; anything else is not ours to remove */
	if (rmdir(SLACKGOV_PIN_DIR) && errno != ENOENT && sc_loaded())
		return sc_err("already loaded (%s exists): run 'slackctl unload' first", SLACKGOV_PIN_DIR);
	if (access(SLACKGOV_PIN_DIR, F_OK) == 0)
		return sc_err("%s is incomplete (a load or unload was interrupted): run 'slackctl unload', then 'slackctl load'",
			      SLACKGOV_PIN_DIR);
	feed = sc_module_loaded();
	if (!strcmp(mode, "on") && !feed)
		return sc_err("--feed on: slackgov.ko is not loaded (modprobe slackgov)");
	if (!strcmp(mode, "off"))
		feed = false;

	hooks = want == SC_HOOKS_TRACEPOINT ? SLACKGOV_HOOKS_TRACEPOINT : SLACKGOV_HOOKS_FENTRY;
	err = load_attach(feed, hooks, 0, &l, &stage);
	if (err && want == SC_HOOKS_AUTO && !(feed && !sc_module_loaded())) {
		fentry_err = err;
		if (verbose)
			fprintf(stderr, "fentry hooks: %s failed (%s): the syscall tracepoints instead\n",
				stage, strerror(-err));
		hooks = SLACKGOV_HOOKS_TRACEPOINT;
		err = load_attach(feed, hooks, fentry_err, &l, &stage);
	}
	if (err) {
		if (feed && !sc_module_loaded())
			sc_err("cannot load the BPF programs: slackgov.ko was removed meanwhile "
			       "(modprobe slackgov and load again, or load --feed off)");
		else if (want == SC_HOOKS_FENTRY)
			sc_err("cannot %s the fentry hooks: %s (--hooks auto or tracepoint use the "
			       "syscall tracepoints; slackctl -v load shows the verifier log)",
			       stage, strerror(-err));
		else
			sc_err("cannot %s the BPF programs: %s (slackctl -v load shows the verifier log)",
			       stage, strerror(-err));
		goto out;
	}
	/* from here on a signal would leave a half-made stage: hold them until done */
	sc_block_signals(&oldmask);
	blocked = true;
	snprintf(stage_dir, sizeof(stage_dir), "%s%d", SC_STAGE_PREFIX, getpid());
	snprintf(stage_links, sizeof(stage_links), "%s/links", stage_dir);
	if (mkdir(stage_dir, 0700) || mkdir(stage_links, 0700)) {
		err = -errno;
		sc_err("cannot create %s: %s", stage_dir, strerror(errno));
		goto fail;
	}
	bpf_object__for_each_map(map, l.obj) {
		if (bpf_map__is_internal(map))	/* .bss, .rodata, .rodata.cst16, ...: not pinned */
			continue;
		snprintf(path, sizeof(path), "%s/%s", stage_dir, bpf_map__name(map));
		err = bpf_map__pin(map, path);
		if (err) {
			sc_err("cannot pin %s: %s", path, strerror(-err));
			goto fail;
		}
		if (++pins == stop_at)
			raise(SIGSTOP);
	}
	/* the uprobe programs, unattached, for target add --request (uprobe.c) */
	bpf_object__for_each_program(prog, l.obj) {
		if (!is_uprobe(prog))
			continue;
		snprintf(path, sizeof(path), "%s/prog_%s", stage_links, bpf_program__name(prog));
		err = bpf_program__pin(prog, path);
		if (err) {
			sc_err("cannot pin %s: %s", path, strerror(-err));
			goto fail;
		}
	}
	for (i = 0; i < l.nr_links; i++) {
		const char *name = bpf_program__name(l.progs[i]);

		snprintf(path, sizeof(path), "%s/%s", stage_links, name);
		err = bpf_link__pin(l.links[i], path);
		if (err) {
			sc_err("cannot pin %s: %s", path, strerror(-err));
			goto fail;
		}
		if (++pins == stop_at)
			raise(SIGSTOP);
	}
	if (rename(stage_dir, SLACKGOV_PIN_DIR)) {
		err = -errno;
		if (errno == ENOTEMPTY || errno == EEXIST)
			sc_err("already loaded (%s exists): run 'slackctl unload' first", SLACKGOV_PIN_DIR);
		else
			sc_err("cannot rename %s to %s: %s", stage_dir, SLACKGOV_PIN_DIR, strerror(errno));
		goto fail;
	}
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "loaded", true);
		jsonw_bool_field(json_wtr, "feed", feed);
		jsonw_string_field(json_wtr, "hooks", sc_hooks_name(hooks));
		jsonw_end_object(json_wtr);
	} else {
		printf("loaded, feed: %s, hooks: %s\n", feed ? "on (slackgov.ko)" :
		       sc_module_loaded() ? "off (--feed off)" : "off (module not loaded: metrics only)",
		       sc_hooks_text(hooks, fentry_err < 0 ? -fentry_err : 0, path, sizeof(path)));
	}
	err = 0;
	goto out;
fail:
	unpin_dir(stage_links);	/* no partial state */
	unpin_dir(stage_dir);
out:
	sc_loaded_close(&l);	/* the pins hold what was pinned */
	if (blocked)
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return err ? -1 : 0;
}

int do_unload(int argc, char **argv)
{
	sigset_t oldmask;
	int lock;

	if (argc > 0)
		return sc_err("unload: unexpected '%s'", argv[0]);
	if (sc_check_env(SC_NEED_PINS))
		return -1;
	remove_dead_stages();
	if (access(SLACKGOV_PIN_DIR, F_OK) && errno == ENOENT)
		return sc_err("not loaded (no %s)", SLACKGOV_PIN_DIR);
	if (access(SLACKGOV_PIN_DIR, F_OK))
		return sc_err("cannot see %s: %s (the pins are root's: run slackctl as root)",
			      SLACKGOV_PIN_DIR, strerror(errno));
	sc_block_signals(&oldmask);
	lock = sc_lock();	/* not while a target change is half done */
	unpin_all();
	if (lock >= 0)
		close(lock);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (access(SLACKGOV_PIN_DIR, F_OK) == 0)
		return sc_err("cannot remove %s: files that slackctl did not make are in it",
			      SLACKGOV_PIN_DIR);
	if (json_wtr) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "loaded", false);
		jsonw_end_object(json_wtr);
	} else {
		printf("unloaded\n");
	}
	return 0;
}
