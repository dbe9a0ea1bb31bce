# SPDX-License-Identifier: GPL-2.0
# guest-lifecycle-fast.sh - guest-lifecycle.sh with a fast-switching driver (vfreq
# fast_switch=1): the governor applies its decisions from the irq_work on
# the policy's CPU (cpufreq_driver_fast_switch()), not from its kthread.
SG_FAST_SWITCH=1
. "$SG_TOP/selftests/governor/guest-lifecycle.sh"
