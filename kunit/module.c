// SPDX-License-Identifier: GPL-2.0
/* bloom_kunit.ko: the KUnit suites of bloom.ko. */
#include <linux/module.h>

MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit suites for the bloom filter module");
