/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites of the filter core share. The same suites build
 * into bloom_kunit.ko and, through a small KUnit shim, into a native
 * userspace test program, so both builds check the same behaviour.
 */
#ifndef _BLOOM_TEST_H
#define _BLOOM_TEST_H

#include "../module/core/bloom_core.h"

#ifdef __KERNEL__
#include <kunit/test.h>
#include <linux/math.h>
#include <linux/mm.h>
#include <linux/slab.h>

static void bt_kvfree(void *p)
{
	kvfree(p);
}

/* Zeroed memory freed when the test ends; large sizes use vmalloc. */
static inline void *bt_alloc(struct kunit *test, size_t size)
{
	void *p = kvzalloc(size, GFP_KERNEL);

	if (p && kunit_add_action_or_reset(test, bt_kvfree, p))
		return NULL;
	return p;
}
#else
#include "../tools/tests/kunit_shim.h"
#define bt_alloc kunit_shim_alloc
#endif

/* A deterministic stream of 64-bit values (splitmix64). */
static inline u64 bt_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct bt_filter {
	struct bloom_core c;
	struct bloom_bits *b;
};

/* A filter for @g, or NULL (the test has already failed) on error. */
static inline struct bt_filter *bt_filter_new(struct kunit *test,
					      const struct bloom_geom *g)
{
	struct bloom_geom geom = *g;
	struct bt_filter *f;

	KUNIT_ASSERT_EQ(test, bloom_geom_check(g), 0);
	if (!geom.capacity)
		geom.capacity = bloom_geom_default_capacity(g);
	f = bt_alloc(test, sizeof(*f));
	KUNIT_ASSERT_NOT_NULL(test, f);
	bloom_core_init(&f->c, &geom);
	f->b = bt_alloc(test, sizeof(*f->b) + bloom_array_bytes(&f->c));
	KUNIT_ASSERT_NOT_NULL(test, f->b);
	return f;
}

/* Key number @i: eight bytes, distinct for distinct @i. */
static inline u64 bt_hash(const struct bt_filter *f, u64 i)
{
	__le64 key = bloom_cpu_to_le64(i);

	return bloom_hash(&f->c, &key, sizeof(key));
}

static inline bool bt_add(struct bt_filter *f, u64 i)
{
	return bloom_add_hash(&f->c, f->b, bt_hash(f, i));
}

static inline bool bt_test(const struct bt_filter *f, u64 i)
{
	return bloom_test_hash(&f->c, f->b, bt_hash(f, i));
}

static const char *const bt_layout_names[] = {
	"blocked", "standard", "partitioned", "counting",
};

static inline void bt_layout_desc(const u8 *l, char *desc)
{
	strscpy(desc, bt_layout_names[*l], KUNIT_PARAM_DESC_SIZE);
}

/* Defines layout_gen_params: a case run once per layout. */
#define BT_LAYOUT_PARAMS()						\
	static const u8 bt_layouts[] = {				\
		BLOOM_LAYOUT_BLOCKED, BLOOM_LAYOUT_STANDARD,		\
		BLOOM_LAYOUT_PARTITIONED, BLOOM_LAYOUT_COUNTING,	\
	};								\
	KUNIT_ARRAY_PARAM(layout, bt_layouts, bt_layout_desc)

#endif /* _BLOOM_TEST_H */
