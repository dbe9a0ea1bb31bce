// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - slackgov module init and exit: the kfunc set, the "slack"
 * cpufreq governor, and the trace events' definitions.
 *
 * Unloading: cpufreq holds a reference on this module for every policy that
 * runs "slack", and the BPF core holds one for every loaded program that
 * calls slackgov_report(); while either is held, rmmod fails with
 * "ERROR: Module slackgov is in use" (EBUSY/EAGAIN from delete_module).
 * Switch every policy to another governor and unload or unpin the programs
 * first.  Kfuncs cannot be unregistered: they go with the module's BTF.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "sg.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

static int __init slackgov_init(void)
{
	int ret;

	ret = sg_kfunc_init();
	if (ret)
		return ret;
	return sg_governor_init();
}

static void __exit slackgov_exit(void)
{
	sg_governor_exit();
}

module_init(slackgov_init);
module_exit(slackgov_exit);
MODULE_DESCRIPTION("slackgov: cpufreq governor driven by BPF-measured saturation slack");
MODULE_LICENSE("GPL");
