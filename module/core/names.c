// SPDX-License-Identifier: GPL-2.0
/*
 * The names of ABI enums (uapi/bloom.h), one table each, shared by the
 * kernel (/proc/net/bloom, log messages of the match) and bloomctl. Each
 * table is sized by its enum's maximum and checked at compile time, so
 * a new value without a name is a build error, not a read past the
 * table; a value out of range reads "unknown".
 */
#include "bloom_core.h"

static const char *const layout_names[] = {
	[BLOOM_LAYOUT_BLOCKED]		= "blocked",
	[BLOOM_LAYOUT_STANDARD]		= "standard",
	[BLOOM_LAYOUT_PARTITIONED]	= "partitioned",
	[BLOOM_LAYOUT_COUNTING]		= "counting",
	[BLOOM_LAYOUT_CUCKOO]		= "cuckoo",
	[BLOOM_LAYOUT_FUSE]		= "fuse",
};

static_assert(ARRAY_SIZE(layout_names) == BLOOM_LAYOUT_MAX,
	      "a layout has no name");

static const char *const key_type_names[] = {
	[BLOOM_KEY_BYTES]	= "bytes",
	[BLOOM_KEY_ADDR]	= "addr",
	[BLOOM_KEY_NET]		= "net",
	[BLOOM_KEY_ADDR_PORT]	= "addr,port",
	[BLOOM_KEY_FLOW]	= "flow",
	[BLOOM_KEY_DIGEST_V1]	= "digest-v1",
	[BLOOM_KEY_DIGEST]	= "digest",
};

static_assert(ARRAY_SIZE(key_type_names) == BLOOM_KEY_MAX,
	      "a key type has no name");

static const char *name_of(const char *const *names, size_t n, unsigned int v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

/**
 * bloom_layout_name() - the name of an enum bloom_layout value
 * @layout: any value
 *
 * Return: its name, or "unknown" for a value out of range.
 */
const char *bloom_layout_name(unsigned int layout)
{
	return name_of(layout_names, ARRAY_SIZE(layout_names), layout);
}
EXPORT_SYMBOL_GPL(bloom_layout_name);

/**
 * bloom_key_type_name() - the name of an enum bloom_key_type value
 * @key_type: any value
 *
 * Return: its name, or "unknown" for a value out of range.
 */
const char *bloom_key_type_name(unsigned int key_type)
{
	return name_of(key_type_names, ARRAY_SIZE(key_type_names), key_type);
}
EXPORT_SYMBOL_GPL(bloom_key_type_name);
