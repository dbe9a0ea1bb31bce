# SPDX-License-Identifier: GPL-2.0
# host-build.sh - the build produced what the guests need: modules for each
# guest kernel with kfunc BTF, BPF objects with BTF, static user binaries,
# and nothing written beside the sources.
. "$SG_TOP/selftests/lib/ktap.sh"

KVERS=${SG_KVERS:-6.1.0-56}
FL=${SG_KFLAVOUR:-amd64}
set -- $KVERS
K0=$1-$FL	# the default kernel

ktap_plan $((5 * $# + 3))
for kv in "$@"; do
	KCACHE=$SG_TOP/.cache/$kv-$FL
	[ -n "${CACHE:-}" ] && KCACHE=$CACHE/$kv-$FL
	KO=$SG_BUILD/$kv-$FL/kmod/slackgov.ko
	ktap_check '[ -s "$KO" ] && [ -s "$SG_BUILD/$kv-$FL/kmod/vfreq.ko" ]' \
		"$kv: modules built into the kernel's build folder"
	vermagic=$(strings "$KO" 2>/dev/null | sed -n 's/^vermagic=//p')
	ktap_check 'echo "$vermagic" | grep -q "^$kv-$FL "' \
		"$kv: slackgov.ko is built for that kernel (vermagic $vermagic)"
	ktap_check 'bpftool -B "$KCACHE/vmlinux" btf dump file "$KO" | grep -q "FUNC .slackgov_report."' \
		"$kv: slackgov.ko carries BTF for the kfunc slackgov_report"
	ktap_check '[ -x "$KCACHE/kdir/tools/bpf/resolve_btfids/resolve_btfids" ]' \
		"$kv: the private build tree has resolve_btfids"
	# a kfunc without a resolved BTF id is silently not registered: the
	# .BTF_ids set of the module must have been patched (non-zero ids)
	ktap_check 'objdump -s -j .BTF_ids "$KO" | awk "NR>4{print \$2\$3\$4\$5}" | grep -qv "^0*$"' \
		"$kv: the kfunc id set was resolved by resolve_btfids"
done
ktap_check '[ "$(readlink "$SG_BUILD/kmod")" = "$K0/kmod" ]' \
	"build/kmod is the default kernel's ($K0)"
ktap_check 'for f in "$SG_BUILD"/selftests/sge2e "$SG_BUILD"/userctl/slackctl; do
	[ ! -e "$f" ] || file "$f" | grep -q "statically linked" || exit 1; done' \
	"user binaries are static (they run in the busybox guest)"
ktap_eq "" "$(cd "$SG_TOP" && git status --porcelain --ignored=matching 2>/dev/null |
	grep -E '\.(o|ko|mod|cmd|skel\.h)$|Module\.symvers|modules\.order' | head -3)" \
	"no build output beside the sources"
ktap_finished
