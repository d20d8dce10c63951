// SPDX-License-Identifier: GPL-2.0
/*
 * bloom.ko: Bloom filters in the kernel. This file ties the parts
 * together at load and unload.
 */
#include <linux/module.h>

static int __init bloom_init(void)
{
	return 0;
}

static void __exit bloom_exit(void)
{
}

module_init(bloom_init);
module_exit(bloom_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Bloom filters: lock-free sets for netfilter and in-kernel users");
