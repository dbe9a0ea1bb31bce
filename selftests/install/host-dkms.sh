# SPDX-License-Identifier: GPL-2.0
# host-dkms.sh - DKMS builds slackgov.ko from the staged sources against each
# guest kernel's Debian build tree (with BTF), and refuses a tree without
# vmlinux rather than build a module whose kfunc would silently not exist.
# The modules it builds are left in $SG_BUILD/<krel>/dkms/ for guest-dkms.sh
# to load (vm/run hands the booted kernel's to the guest).
. "$SG_TOP/selftests/lib/ktap.sh"

FL=${SG_KFLAVOUR:-amd64}
set -- ${SG_KVERS:-6.1.0-56}
kdir_of() { echo "${CACHE:-$SG_TOP/.cache}/$1-$FL/kdir"; }
command -v dkms >/dev/null || ktap_skip_all "dkms not installed (scripts/setup installs it)"

W=$PWD
make -s -C "$SG_TOP" dkms-install DESTDIR="$W/stage" O="$SG_BUILD" >/dev/null 2>&1
SRC=$W/stage/usr/src/slackgov-0.1
# dkms build: private trees, nothing installed on this machine
dkms_build() {	# $1: kernel source dir, $2: kernel release
	rm -rf "$W/tree" "$W/src" && mkdir -p "$W/tree" "$W/src"
	cp -a "$SRC" "$W/src/"
	dkms add --dkmstree "$W/tree" --sourcetree "$W/src" slackgov/0.1 > "$W/build.log" 2>&1 &&
	dkms build --dkmstree "$W/tree" --sourcetree "$W/src" slackgov/0.1 -k "$2" \
		--kernelsourcedir "$1" >> "$W/build.log" 2>&1
}

ktap_plan $((3 * $# + 4))
ktap_check '[ -f "$SRC/dkms.conf" ] && [ -f "$SRC/kmod/kfunc.c" ] && [ -f "$SRC/include/uapi/slackgov.h" ]' \
	"make dkms-install stages dkms.conf and the module sources"
for kv in "$@"; do
	KREL=$kv-$FL KDIR=$(kdir_of "$kv")
	# One retry: in 1 of 4 fresh-clone runs the first dkms build failed and
	# the next succeeded (cause not found yet); the first failure's log is
	# printed.
	ktap_check 'dkms_build "$KDIR" "$KREL" || { tail -n 15 "$W/build.log" | sed "s/^/#   first try: /"; dkms_build "$KDIR" "$KREL"; }' \
		"$kv: dkms builds against the prepared tree"
	KO=$(find "$W/tree" -path "*/$KREL/*" -name slackgov.ko | head -n 1)
	ktap_check '[ -n "$KO" ]' "$kv: the built module is in the DKMS tree"
	ktap_check 'bpftool -B "$KDIR/vmlinux" btf dump file "$KO" | grep -q "FUNC .slackgov_report."' \
		"$kv: it carries BTF for the kfunc"
	rm -rf "$SG_BUILD/$KREL/dkms"
	[ -n "$KO" ] && mkdir -p "$SG_BUILD/$KREL/dkms" && cp "$KO" "$SG_BUILD/$KREL/dkms/slackgov.ko"
done

# the default kernel's tree without vmlinux: kbuild would skip module BTF
KREL=$1-$FL
cp -a "$(kdir_of "$1")" "$W/kdir-novmlinux" && rm -f "$W/kdir-novmlinux/vmlinux"
ktap_run_fails "dkms refuses a tree without vmlinux" dkms_build "$W/kdir-novmlinux" "$KREL"
ktap_check 'grep -q "has no BTF for slackgov_report" "$W/build.log" "$W"/tree/slackgov/0.1/build/make.log 2>/dev/null' \
	"and says why (no BTF for the kfunc)"
ktap_check '[ -z "$(find "$W/tree" -path "*/$KREL/*" -name slackgov.ko)" ]' \
	"no module is left to install"
ktap_finished
