// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup.c - targets by a cgroup directory's name: --unit NAME (a systemd
 * unit's directory, asked of systemd or found in system.slice) and
 * --cgroup DIR/GLOB (directories named like GLOB under DIR, made before or
 * after the add).  Both become a struct slackgov_cgname: the parent
 * directory's id and the name or glob (bpf/classify.bpf.h, DOC "cgroup
 * targets").
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/magic.h>
#include "slackctl.h"

/* unit types that own a cgroup (systemd.unit(5)): the others never run processes */
static const char *const unit_suffixes[] = { ".service", ".scope", ".slice", ".socket", ".mount",
					     ".swap" };

/* the cgroup2 mount point (/sys/fs/cgroup, or .../unified on a hybrid host): 0, or -1 */
int sc_cg2_mount(char *buf, size_t len)
{
	char line[1024], mnt[512], type[64];
	int ret = -1;
	FILE *f;

	f = fopen("/proc/self/mounts", "r");
	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %511s %63s", mnt, type) == 2 && !strcmp(type, "cgroup2")) {
			snprintf(buf, len, "%s", mnt);
			ret = 0;
		}
	fclose(f);
	return ret;
}

/* @path is a cgroup v2 directory: its id (inode number), or 0 */
static __u64 cg2_dir_id(const char *path)
{
	struct statfs sfs;
	struct stat st;

	if (statfs(path, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC || stat(path, &st) ||
	    !S_ISDIR(st.st_mode))
		return 0;
	return st.st_ino;
}

/*
 * A unit name as systemd spells one (unit_name_is_valid()): letters, digits
 * and ":-_.\@", a type that has a cgroup, not a template without its
 * instance; at most SLACKGOV_CGNAME_LEN - 2 characters (the BPF side's cut).
 */
int sc_unit_check(const char *cmd, const char *unit)
{
	size_t n = strlen(unit), i, s;

	if (!n)
		return sc_err("%s: --unit needs a unit name (e.g. memcached.service)", cmd);
	if (strspn(unit, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@") != n)
		return sc_err("%s: --unit '%s' is not a unit name (letters, digits and ':-_.\\@'; "
			      "for directories by a pattern, --cgroup DIR/GLOB)", cmd, unit);
	for (s = 0; s < ARRAY_SIZE(unit_suffixes); s++) {
		i = strlen(unit_suffixes[s]);
		if (n > i && !strcmp(unit + n - i, unit_suffixes[s]))
			break;
	}
	if (s == ARRAY_SIZE(unit_suffixes))
		return sc_err("%s: --unit '%s' is not a unit name with a cgroup: give its type "
			      "(.service, .scope, .slice, .socket, .mount or .swap; e.g. %s.service)",
			      cmd, unit, unit);
	if (strstr(unit, "@."))
		return sc_err("%s: --unit '%s' is a template: give an instance (e.g. NAME@1.service)", cmd,
			      unit);
	if (n > SLACKGOV_CGNAME_LEN - 2)
		return sc_err("%s: --unit '%s': a unit name of at most %d characters", cmd, unit,
			      SLACKGOV_CGNAME_LEN - 2);
	return 0;
}

/* @src into @dst of @len bytes, cut if longer */
static void copy_cut(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

/*
 * Ask systemd for @unit's LoadState and ControlGroup (systemctl show, its
 * stderr dropped).  1: systemd answered (@load, @cg filled; @cg "" when the
 * unit has no cgroup), 0: no systemd to ask (no systemctl, or systemd is not
 * this machine's init), -1: could not run it.
 */
static int systemd_show(const char *unit, char *load, size_t llen, char *cg, size_t clen)
{
	char *const argv[] = { "systemctl", "show", "-p", "LoadState", "-p", "ControlGroup", "--",
			       (char *)unit, NULL };
	char line[4096];
	int p[2], st, devnull;
	bool got = false;
	pid_t pid;
	FILE *f;

	*load = *cg = 0;
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		devnull = open("/dev/null", O_RDWR);
		dup2(p[1], 1);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 2);
		}
		close(p[0]);
		close(p[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "LoadState=", 10)) {
			copy_cut(load, llen, line + 10);
			got = true;
		} else if (!strncmp(line, "ControlGroup=", 13)) {
			copy_cut(cg, clen, line + 13);
		}
	}
	if (f)
		fclose(f);
	else
		close(p[0]);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 && got;
}

/* the parent directory's id and the leaf's name of cgroup directory @path */
static int name_key(const char *cmd, const char *path, struct slackgov_cgname *k)
{
	char parent[PATH_MAX];
	const char *leaf = strrchr(path, '/');

	if (!leaf || !leaf[1] || (size_t)(leaf - path) >= sizeof(parent))
		return sc_err("%s: '%s' is not a cgroup directory's path", cmd, path);
	memcpy(parent, path, leaf - path);
	parent[leaf - path] = 0;
	memset(k, 0, sizeof(*k));
	k->parent = cg2_dir_id(parent);
	if (!k->parent)
		return sc_err("%s: '%s' is not a cgroup v2 directory", cmd, parent);
	if (strlen(leaf + 1) > SLACKGOV_CGNAME_LEN - 2)
		return sc_err("%s: '%s': a directory name of at most %d characters", cmd, leaf + 1,
			      SLACKGOV_CGNAME_LEN - 2);
	strncpy(k->name, leaf + 1, sizeof(k->name) - 1);
	return 0;
}

/*
 * --unit @unit for target add: the unit's cgroup directory, which must
 * exist now (a unit that is not running is an error, not a wait), as the
 * key of its slice's id and its name.  systemd says where it is (its
 * ControlGroup property); without systemd, <cgroup2 mount>/system.slice/NAME.
 */
int sc_unit_key(const char *cmd, const char *unit, struct slackgov_cgname *k, char *path, size_t len)
{
	char mnt[512], load[64], cg[PATH_MAX];
	int asked;

	if (sc_unit_check(cmd, unit))
		return -1;
	if (sc_cg2_mount(mnt, sizeof(mnt)))
		return sc_err("%s: --unit: no cgroup v2 hierarchy is mounted", cmd);
	asked = systemd_show(unit, load, sizeof(load), cg, sizeof(cg));
	if (asked < 0)
		return sc_err("%s: --unit: cannot run systemctl: %s", cmd, strerror(errno));
	if (asked) {
		if (!strcmp(load, "not-found"))
			return sc_err("%s: systemd knows no unit '%s' (systemctl list-units --all)", cmd, unit);
		if (!*cg)
			return sc_err("%s: unit '%s' has no cgroup: it is not running (start it, then add it)",
				      cmd, unit);
		if (cg[0] != '/' || strstr(cg, "/../"))
			return sc_err("%s: unit '%s': systemd's ControlGroup '%s' is not a path", cmd, unit,
				      cg);
		snprintf(path, len, "%s%s", mnt, cg);
	} else {
		snprintf(path, len, "%s/system.slice/%s", mnt, unit);
	}
	if (!cg2_dir_id(path)) {
		if (asked)
			return sc_err("%s: unit '%s': its cgroup '%s' is not a cgroup v2 directory", cmd, unit,
				      path);
		return sc_err("%s: unit '%s' has no cgroup: %s does not exist (no systemd to ask here: "
			      "a unit is looked for in system.slice; is it running?)", cmd, unit, path);
	}
	return name_key(cmd, path, k);
}

/* Is @path a pattern (a '*', '?' or '[' anywhere): --cgroup DIR/GLOB? */
bool sc_is_glob(const char *path)
{
	return strpbrk(path, "*?[") != NULL;
}

/*
 * --cgroup DIR/GLOB: one '*' in the last component only (any run of
 * characters, none included), DIR an existing cgroup v2 directory.  del and
 * set take ID/GLOB too (ID: DIR's id, as target list shows it), so that a
 * target whose DIR was removed can be named.
 */
int sc_glob_key(const char *cmd, const char *path, bool by_id, struct slackgov_cgname *k)
{
	const char *leaf = strrchr(path, '/'), *star;
	unsigned long long id;
	char *end;

	if (!leaf)
		return sc_err("%s: --cgroup '%s': a pattern is DIR/GLOB, a '*' in the last component", cmd,
			      path);
	leaf++;
	if (strpbrk(path, "*?[") < leaf)
		return sc_err("%s: --cgroup '%s': a '*' in the last component only (DIR/GLOB, DIR a directory)",
			      cmd, path);
	if (strpbrk(leaf, "?[]\\"))
		return sc_err("%s: --cgroup '%s': only '*' is supported in a pattern (not '?', '[...]' or '\\')",
			      cmd, path);
	star = strchr(leaf, '*');
	if (!star || strchr(star + 1, '*'))
		return sc_err("%s: --cgroup '%s': a pattern has one '*' (e.g. kubepods-pod*.slice)", cmd, path);
	if (by_id && path[0] >= '0' && path[0] <= '9') {
		errno = 0;
		id = strtoull(path, &end, 10);
		if (errno || end != leaf - 1 || !id)
			return sc_err("%s: --cgroup '%s': write DIR/GLOB or ID/GLOB (ID as target list shows it)",
				      cmd, path);
		memset(k, 0, sizeof(*k));
		k->parent = id;
		if (strlen(leaf) > SLACKGOV_CGNAME_LEN - 2)
			return sc_err("%s: '%s': a pattern of at most %d characters", cmd, leaf,
				      SLACKGOV_CGNAME_LEN - 2);
		strncpy(k->name, leaf, sizeof(k->name) - 1);
		return 0;
	}
	return name_key(cmd, path, k);
}
