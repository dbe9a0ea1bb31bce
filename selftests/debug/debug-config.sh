# SPDX-License-Identifier: GPL-2.0
# debug-config.sh - make check-debug's first test: the booted kernel is the
# debug kernel scripts/setup --debug-kernel built, every option of its
# fragments (selftests/debug/config and config-kasan or config-kcsan, by the
# release's suffix) is as the fragment says in /proc/config.gz, its
# checkers are live (lockdep's debug_locks, KASAN or KCSAN, KFENCE and
# kmemleak initialised), and kmemleak's list is cleared of what the boot
# left, so that debug-reports.sh counts what the tests left.
. "$SG_TOP/selftests/lib/ktap.sh"

D=$SG_TOP/selftests/debug
KML=/sys/kernel/debug/kmemleak
case $(uname -r) in
*-sgdebug) variant=kasan ;;
*-sgkcsan) variant=kcsan ;;
*) ktap_skip_all "not a debug kernel ($(uname -r)): scripts/setup --debug-kernel" ;;
esac
[ -r /proc/config.gz ] || ktap_skip_all "no /proc/config.gz (IKCONFIG_PROC)"

ktap_plan 6
zcat /proc/config.gz > config.booted
n=0 bad=""
for opt in $(cat "$D/config" "$D/config-$variant" | grep -E '^CONFIG_[A-Z0-9_]+='); do
	n=$((n + 1))
	k=${opt%%=*} v=${opt#*=}
	case $v in
	n) grep -q "^$k=" config.booted && bad="$bad $k=$(sed -n "s/^$k=//p" config.booted)" ;;
	*) grep -qxF "$k=$v" config.booted || bad="$bad $opt(booted:$(sed -n "s/^$k=//p" config.booted))" ;;
	esac
done
ktap_note "$n options of config and config-$variant checked in /proc/config.gz"
ktap_eq "" "$bad" "every option the fragments set is so in the booted kernel"
ktap_check 'grep -qE "^ *debug_locks: *1$" /proc/lockdep_stats' "lockdep is on (debug_locks 1)"
if [ $variant = kasan ]; then
	ktap_check 'dmesg | grep -q "KernelAddressSanitizer initialized"' "KASAN initialised"
else
	ktap_check '[ -e /sys/kernel/debug/kcsan ]' "KCSAN on (/sys/kernel/debug/kcsan)"
fi
ktap_check 'dmesg | grep -q "kfence: initialized"' "KFENCE initialised"
ktap_check '[ -w $KML ]' "kmemleak is on ($KML)"
# the boot's own suspects (reported by a scan) are marked seen; a second
# scan with nothing new keeps the baseline honest
echo scan > $KML 2>/dev/null
boot=$(grep -c '^unreferenced object' $KML 2>/dev/null)
echo clear > $KML 2>/dev/null
ktap_note "kmemleak: $boot suspects from the boot, cleared"
ktap_eq 0 "$(grep -c '^unreferenced object' $KML 2>/dev/null)" "kmemleak's list is empty after clear"
ktap_finished
