# SPDX-License-Identifier: GPL-2.0
# guest-policy-fast.sh - guest-policy.sh with a fast-switching driver (vfreq
# fast_switch=1): next_freq() then also runs from the irq_work, in hard
# interrupt context on the policy's CPU, not only from the kthread.
SG_FAST_SWITCH=1
. "$SG_TOP/selftests/governor/guest-policy.sh"
