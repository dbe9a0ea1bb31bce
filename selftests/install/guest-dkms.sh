# SPDX-License-Identifier: GPL-2.0
# guest-dkms.sh - the module DKMS built (host-dkms.sh) loads in the guest and
# registers its kfunc and governor.
. "$SG_TOP/selftests/lib/ktap.sh"

KO=$SG_BUILD/dkms/slackgov.ko
[ -f "$KO" ] || ktap_skip_all "no DKMS-built module (host-dkms.sh did not run)"
ktap_plan 5
ktap_run_ok "the test cpufreq driver loads" insmod "$SG_BUILD/kmod/vfreq.ko"
sg_defer "sg_rmmod vfreq"
ktap_run_ok "the DKMS-built slackgov.ko loads" insmod "$KO"
sg_defer "sg_rmmod slackgov"
ktap_check '[ -s /sys/kernel/btf/slackgov ]' "its BTF is registered"
ktap_check 'grep -q slackgov_report /proc/kallsyms' "the kfunc is there"
ktap_check 'grep -qw slack /sys/devices/system/cpu/cpufreq/policy0/scaling_available_governors' \
	"the slack governor is offered"
ktap_finished
