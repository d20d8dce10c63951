// SPDX-License-Identifier: GPL-2.0
/*
 * bloom.ko: Bloom filters in the kernel. This file ties the parts
 * together at load and unload.
 */
#include <linux/module.h>
#include "registry.h"
#include "procfs.h"
#include "chardev.h"
#include "kfuncs.h"

static int __init bloom_init(void)
{
	int err = bloom_registry_init();

	if (err)
		return err;
	err = bloom_proc_init();
	if (err)
		goto registry;
	err = bloom_chardev_init();
	if (err)
		goto proc;
	/* Last: a registered kfunc can be called at once. No undo exists. */
	bloom_kfuncs_init();
	return 0;
proc:
	bloom_proc_exit();
registry:
	bloom_registry_exit();
	return err;
}

static void __exit bloom_exit(void)
{
	bloom_chardev_exit();
	bloom_proc_exit();
	bloom_registry_exit();
}

module_init(bloom_init);
module_exit(bloom_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Bloom filters: lock-free sets for netfilter and in-kernel users");
