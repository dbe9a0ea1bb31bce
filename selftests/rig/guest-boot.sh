# SPDX-License-Identifier: GPL-2.0
# guest-boot.sh - the guest is what the other tests assume: the Debian kernel
# (6.1 or 6.12) the host meant to boot, with BTF, the mounts, no cpufreq
# driver until a test loads one.
. "$SG_TOP/selftests/lib/ktap.sh"

ktap_plan 6
ktap_eq "${SG_KREL:-unset}" "$(uname -r)" "the kernel is the one the host booted ($(uname -r))"
ktap_check '[ -s /sys/kernel/btf/vmlinux ]' "vmlinux BTF present"
ktap_check 'grep -q " /sys/fs/bpf bpf " /proc/mounts' "bpffs mounted"
ktap_check '[ -e /sys/kernel/tracing/trace ]' "tracefs mounted"
ktap_check '[ ! -e /sys/devices/system/cpu/cpu0/cpufreq ]' "no cpufreq driver at boot"
ktap_eq 2 "$(grep -c ^processor /proc/cpuinfo)" "two vCPUs"
ktap_finished
