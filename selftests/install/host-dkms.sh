# SPDX-License-Identifier: GPL-2.0
# host-dkms.sh - DKMS builds slackgov.ko from the staged sources against the
# Debian 6.1 build tree (with BTF), and refuses a tree without vmlinux rather
# than build a module whose kfunc would silently not exist.  The module it
# builds is left in $SG_BUILD/dkms/ for guest-dkms.sh to load.
. "$SG_TOP/selftests/lib/ktap.sh"

KREL=${KVER:-6.1.0-56}-amd64
KDIR=$SG_TOP/.cache/$KREL/kdir
command -v dkms >/dev/null || ktap_skip_all "dkms not installed (scripts/setup installs it)"

W=$PWD
make -s -C "$SG_TOP" dkms-install DESTDIR="$W/stage" O="$SG_BUILD" >/dev/null 2>&1
SRC=$W/stage/usr/src/slackgov-0.1
# dkms build: private trees, nothing installed on this machine
dkms_build() {	# $1: kernel source dir
	rm -rf "$W/tree" "$W/src" && mkdir -p "$W/tree" "$W/src"
	cp -a "$SRC" "$W/src/"
	dkms add --dkmstree "$W/tree" --sourcetree "$W/src" slackgov/0.1 > "$W/build.log" 2>&1 &&
	dkms build --dkmstree "$W/tree" --sourcetree "$W/src" slackgov/0.1 -k "$KREL" \
		--kernelsourcedir "$1" >> "$W/build.log" 2>&1
}

ktap_plan 7
ktap_check '[ -f "$SRC/dkms.conf" ] && [ -f "$SRC/kmod/kfunc.c" ] && [ -f "$SRC/include/uapi/slackgov.h" ]' \
	"make dkms-install stages dkms.conf and the module sources"
# One retry: in 1 of 4 fresh-clone runs the first dkms build failed and the
# next succeeded (cause not found yet); the first failure's log is printed.
ktap_check 'dkms_build "$KDIR" || { tail -n 15 "$W/build.log" | sed "s/^/#   first try: /"; dkms_build "$KDIR"; }' \
	"dkms builds against the prepared 6.1 tree"
KO=$(find "$W/tree" -path "*/$KREL/*" -name slackgov.ko | head -n 1)
ktap_check '[ -n "$KO" ]' "the built module is in the DKMS tree"
ktap_check 'bpftool -B "$KDIR/vmlinux" btf dump file "$KO" | grep -q "FUNC .slackgov_report."' \
	"it carries BTF for the kfunc"
mkdir -p "$SG_BUILD/dkms" && cp "$KO" "$SG_BUILD/dkms/slackgov.ko" 2>/dev/null

# the same tree without vmlinux: kbuild would skip module BTF
cp -a "$KDIR" "$W/kdir-novmlinux" && rm -f "$W/kdir-novmlinux/vmlinux"
ktap_run_fails "dkms refuses a tree without vmlinux" dkms_build "$W/kdir-novmlinux"
ktap_check 'grep -q "has no BTF for slackgov_report" "$W/build.log" "$W"/tree/slackgov/0.1/build/make.log 2>/dev/null' \
	"and says why (no BTF for the kfunc)"
ktap_check '[ -z "$(find "$W/tree" -path "*/$KREL/*" -name slackgov.ko)" ]' \
	"no module is left to install"
ktap_finished
