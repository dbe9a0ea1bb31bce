// SPDX-License-Identifier: GPL-2.0
/*
 * load.c - slackctl load / unload: the BPF side, attached and pinned under
 * SLACKGOV_PIN_DIR so that it runs on after slackctl exits.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "slackctl.h"
#include "slackgov.skel.h"

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

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

int do_load(int argc, char **argv)
{
	struct slackgov_bpf *skel = NULL;
	struct bpf_program *prog;
	struct bpf_map *map;
	const char *mode = "auto";
	char path[512];
	bool feed;
	int err;

	while (argc > 0) {
		if (is_prefix(argv[0], "--feed") && argc > 1) {
			mode = argv[1];
			NEXT_ARG();
			NEXT_ARG();
		} else {
			return sc_err("load: unexpected '%s' (usage: slackctl load [--feed auto|on|off])", argv[0]);
		}
	}
	if (strcmp(mode, "auto") && strcmp(mode, "on") && strcmp(mode, "off"))
		return sc_err("load: --feed takes auto, on or off, not '%s'", mode);
	if (sc_check_env(true))
		return -1;
	if (sc_loaded() || access(SLACKGOV_PIN_DIR, F_OK) == 0)
		return sc_err("already loaded (%s exists): run 'slackctl unload' first", SLACKGOV_PIN_DIR);
	feed = sc_module_loaded();
	if (!strcmp(mode, "on") && !feed)
		return sc_err("--feed on: slackgov.ko is not loaded (modprobe slackgov)");
	if (!strcmp(mode, "off"))
		feed = false;

	skel = slackgov_bpf__open();
	if (!skel)
		return sc_err("cannot open the BPF object: %s", strerror(errno));
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, ends_with(bpf_program__name(prog), "_feed") == feed);
	err = slackgov_bpf__load(skel);
	if (err) {
		sc_err("cannot load the BPF programs: %s (slackctl -v load shows the verifier log)",
		       strerror(-err));
		goto out;
	}
	if (mkdir(SLACKGOV_PIN_DIR, 0700) || mkdir(SC_LINK_DIR, 0700)) {
		err = -errno;
		sc_err("cannot create %s: %s", SC_LINK_DIR, strerror(errno));
		goto fail;
	}
	bpf_object__for_each_map(map, skel->obj) {
		if (ends_with(bpf_map__name(map), ".bss") || ends_with(bpf_map__name(map), ".rodata"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", SLACKGOV_PIN_DIR, bpf_map__name(map));
		err = bpf_map__pin(map, path);
		if (err) {
			sc_err("cannot pin %s: %s", path, strerror(-err));
			goto fail;
		}
	}
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;
		link = bpf_program__attach(prog);
		if (!link) {
			err = -errno;
			sc_err("cannot attach %s: %s", bpf_program__name(prog), strerror(errno));
			goto fail;
		}
		snprintf(path, sizeof(path), "%s/%s", SC_LINK_DIR, bpf_program__name(prog));
		err = bpf_link__pin(link, path);
		bpf_link__destroy(link);	/* the pin holds it */
		if (err) {
			sc_err("cannot pin %s: %s", path, strerror(-err));
			goto fail;
		}
	}
	if (json_output)
		printf("{\"loaded\": true, \"feed\": %s}\n", feed ? "true" : "false");
	else
		printf("loaded, feed: %s\n", feed ? "on (slackgov.ko)" : "off (module not loaded: metrics only)");
	err = 0;
	goto out;
fail:
	unpin_all();	/* no partial state */
out:
	slackgov_bpf__destroy(skel);
	return err ? -1 : 0;
}

int do_unload(int argc, char **argv)
{
	if (argc > 0)
		return sc_err("unload: unexpected '%s'", argv[0]);
	if (sc_check_env(true))
		return -1;
	if (access(SLACKGOV_PIN_DIR, F_OK))
		return sc_err("not loaded (no %s)", SLACKGOV_PIN_DIR);
	unpin_all();
	if (access(SLACKGOV_PIN_DIR, F_OK) == 0)
		return sc_err("cannot remove %s: files that slackctl did not make are in it",
			      SLACKGOV_PIN_DIR);
	if (json_output)
		printf("{\"loaded\": false}\n");
	else
		printf("unloaded\n");
	return 0;
}
