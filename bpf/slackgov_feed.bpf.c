// SPDX-License-Identifier: GPL-2.0
/*
 * slackgov_feed.bpf.c - the metrics programs of slackgov.bpf.c, built with
 * the kfunc feed: each closed window is also handed to slackgov.ko.  A
 * separate object (not weak externs) because libbpf 1.1 with the 6.1 kernel
 * did not feed the module through a weak module kfunc (windows never closed
 * in the guest), while a strong one works.
 */
#define SG_FEED
#include "slackgov.bpf.c"
