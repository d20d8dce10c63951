// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a cuckoo filter near full, as kinds/cuckoo.c promises it. A
 * test-and-add (the packet path's) refuses a new key at the table's
 * capacity, with free slots left, and after a whole search failed until
 * a delete, without searching: a key whose own bucket has a free slot is
 * refused then, and stored after one delete. An add from process
 * context (the operator's) still fills past capacity. And a
 * test-and-add that finds another key's fingerprint stores nothing:
 * after that key's delete it tests absent, until its next test-and-add.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include "../module/kinds/kinds.h"

static u64 hash_of(const struct bloom_contents *c, u64 i)
{
	__le64 key = cpu_to_le64(i);

	return bloom_hash(&c->core, &key, sizeof(key));
}

static int test_and_add(struct bloom_contents *c, u64 h)
{
	int ret;

	rcu_read_lock();
	ret = bloom_contents_add(c, h, -1);
	rcu_read_unlock();
	return ret;
}

static bool present(struct bloom_contents *c, u64 h)
{
	bool ret;

	rcu_read_lock();
	ret = bloom_contents_test(c, h);
	rcu_read_unlock();
	return ret;
}

static u64 slots_used(struct bloom_contents *c)
{
	return bloom_cuckoo_used(&c->core, bloom_cuckoo_bits(c));
}

static u64 slots(const struct bloom_contents *c)
{
	return c->core.g.bits / c->core.g.hashes;
}

/* Does one of @h's buckets have a free slot? */
static bool has_free_bucket(struct bloom_contents *c, u64 h)
{
	struct bloom_bits *b = bloom_cuckoo_bits(c);
	struct bloom_cuckoo_key k;

	bloom_cuckoo_key(&c->core, h, &k);
	return bloom_cuckoo_find(&c->core, b, k.i1, 0) >= 0 ||
	       bloom_cuckoo_find(&c->core, b, k.i2, 0) >= 0;
}

/* The first key from @from on, absent, with a free slot in a bucket. */
static u64 key_that_fits(struct kunit *test, struct bloom_contents *c,
			 u64 from)
{
	u64 i;

	for (i = from; i < from + 1000000; i++)
		if (!present(c, hash_of(c, i)) &&
		    has_free_bucket(c, hash_of(c, i)))
			return i;
	KUNIT_FAIL(test, "no absent key fits a free slot");
	return from;
}

static void test_and_add_stops_at_capacity(struct kunit *test)
{
	struct bloom_geom g = { .key_type = BLOOM_KEY_BYTES, .seed = 5 };
	struct bloom_contents *c;
	u64 i, fit;
	int ret = 0;

	KUNIT_ASSERT_EQ(test, bloom_geom_size(2000, 10000000,
					      BLOOM_LAYOUT_CUCKOO, &g), 0);
	c = bloom_contents_new(&g);
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < 3000 && ret >= 0; i++)
		ret = test_and_add(c, hash_of(c, i));
	KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
	/* Refused when it held its capacity, not when the slots ran out. */
	KUNIT_EXPECT_EQ(test, slots_used(c), g.capacity);
	KUNIT_EXPECT_LT(test, slots_used(c), slots(c));
	fit = key_that_fits(test, c, i);
	KUNIT_EXPECT_EQ(test, test_and_add(c, hash_of(c, fit)), -ENOSPC);
	KUNIT_EXPECT_FALSE(test, present(c, hash_of(c, fit)));
	/* The operator's add, in process context, still stores it. */
	KUNIT_EXPECT_EQ(test, bloom_contents_add_copy(c, hash_of(c, fit), -1),
			0);
	KUNIT_EXPECT_TRUE(test, present(c, hash_of(c, fit)));
	bloom_contents_free(c);
}

static void failed_search_refuses_until_a_delete(struct kunit *test)
{
	/* 13 buckets of 4 and a capacity no fill reaches: only the search. */
	struct bloom_geom g = { .layout = BLOOM_LAYOUT_CUCKOO, .hashes = 12,
				.bits = 13 * 4 * 12, .capacity = 1000,
				.seed = 3 };
	struct bloom_contents *c;
	u64 i, fit, stored = 0;
	int ret = 0;

	c = bloom_contents_new(&g);
	KUNIT_ASSERT_NOT_NULL(test, c);
	/* The operator's adds fill it: a whole search fails at the end. */
	for (i = 0; i < 1000 && ret >= 0; i++) {
		ret = bloom_contents_add_copy(c, hash_of(c, i), -1);
		if (ret >= 0)
			stored = i;
	}
	KUNIT_ASSERT_EQ(test, ret, -ENOSPC);
	KUNIT_ASSERT_LT(test, slots_used(c), slots(c));
	/* A key its own bucket has room for: refused, no search made. */
	fit = key_that_fits(test, c, i);
	KUNIT_EXPECT_EQ(test, test_and_add(c, hash_of(c, fit)), -ENOSPC);
	KUNIT_EXPECT_FALSE(test, present(c, hash_of(c, fit)));
	/* One delete lifts it. */
	KUNIT_ASSERT_EQ(test, bloom_contents_del(c, hash_of(c, stored)), 0);
	KUNIT_EXPECT_EQ(test, test_and_add(c, hash_of(c, fit)), 0);
	KUNIT_EXPECT_TRUE(test, present(c, hash_of(c, fit)));
	bloom_contents_free(c);
}

/* Two keys of one fingerprint sharing a bucket: @a's, then @b's. */
static void colliding_keys(struct kunit *test, struct bloom_contents *c,
			   u64 *a, u64 *b)
{
	struct bloom_cuckoo_key ka, kb;
	u64 i, j;

	for (i = 0; i < 64; i++) {
		bloom_cuckoo_key(&c->core, hash_of(c, i), &ka);
		for (j = i + 1; j < 200000; j++) {
			bloom_cuckoo_key(&c->core, hash_of(c, j), &kb);
			if (kb.fp == ka.fp &&
			    (kb.i1 == ka.i1 || kb.i2 == ka.i1)) {
				*a = hash_of(c, i);
				*b = hash_of(c, j);
				return;
			}
		}
	}
	KUNIT_FAIL(test, "no two keys collide");
}

static void test_and_add_on_another_keys_fingerprint(struct kunit *test)
{
	struct bloom_geom g = { .layout = BLOOM_LAYOUT_CUCKOO, .hashes = 6,
				.bits = 64 * 4 * 6, .capacity = 200,
				.seed = 9 };
	struct bloom_contents *c;
	u64 a = 0, b = 0;

	c = bloom_contents_new(&g);
	KUNIT_ASSERT_NOT_NULL(test, c);
	colliding_keys(test, c, &a, &b);
	/* Added, then test-and-added: "present", nothing of b stored. */
	KUNIT_ASSERT_EQ(test, bloom_contents_add_copy(c, a, -1), 0);
	KUNIT_EXPECT_EQ(test, test_and_add(c, b), 1);
	KUNIT_EXPECT_EQ(test, slots_used(c), 1ULL);
	KUNIT_ASSERT_EQ(test, bloom_contents_del(c, a), 0);
	KUNIT_EXPECT_FALSE(test, present(c, b));
	/* Its next test-and-add stores it. */
	KUNIT_EXPECT_EQ(test, test_and_add(c, b), 0);
	KUNIT_EXPECT_TRUE(test, present(c, b));
	KUNIT_ASSERT_EQ(test, bloom_contents_del(c, b), 0);
	/* Both added: deleting one leaves the other. */
	KUNIT_ASSERT_EQ(test, bloom_contents_add_copy(c, a, -1), 0);
	KUNIT_ASSERT_EQ(test, bloom_contents_add_copy(c, b, -1), 1);
	KUNIT_ASSERT_EQ(test, bloom_contents_del(c, a), 0);
	KUNIT_EXPECT_TRUE(test, present(c, b));
	bloom_contents_free(c);
}

static struct kunit_case bloom_cuckoo_full_cases[] = {
	KUNIT_CASE(test_and_add_stops_at_capacity),
	KUNIT_CASE(failed_search_refuses_until_a_delete),
	KUNIT_CASE(test_and_add_on_another_keys_fingerprint),
	{}
};

static struct kunit_suite bloom_cuckoo_full_suite = {
	.name = "bloom_cuckoo_full",
	.test_cases = bloom_cuckoo_full_cases,
};

kunit_test_suites(&bloom_cuckoo_full_suite);
