// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - slackgov module init and exit: the kfunc set and the "slack"
 * cpufreq governor.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "sg.h"

static int __init slackgov_init(void)
{
	int ret;

	/* kfuncs cannot be unregistered: they go with the module's BTF */
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
