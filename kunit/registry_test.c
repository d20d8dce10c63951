// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the registry and the in-kernel API, used exactly as another
 * module would use them (through bloom.ko's exported symbols).
 */
#include <kunit/test.h>
#include <net/net_namespace.h>
#include "../module/registry.h"

static int make(const char *name, u8 key_type, u8 layout)
{
	struct bloom_geom g = { .bits = 1 << 16, .hashes = 5,
				.key_type = key_type, .layout = layout };

	return bloom_registry_create(&init_net, name, &g);
}

static void get_missing_is_enoent(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, PTR_ERR(bloom_get(&init_net, "kunit_none")),
			-ENOENT);
}

static void destroy_in_use_is_ebusy(struct kunit *test)
{
	struct bloom_filter *f;

	KUNIT_ASSERT_EQ(test, make("kunit_busy", BLOOM_KEY_BYTES, 0), 0);
	KUNIT_EXPECT_EQ(test, make("kunit_busy", BLOOM_KEY_BYTES, 0), -EEXIST);
	f = bloom_get(&init_net, "kunit_busy");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_registry_destroy(&init_net, "kunit_busy"),
			-EBUSY);
	bloom_put(f);
	KUNIT_EXPECT_EQ(test, bloom_registry_destroy(&init_net, "kunit_busy"),
			0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(bloom_get(&init_net, "kunit_busy")),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, bloom_registry_destroy(&init_net, "kunit_busy"),
			-ENOENT);
}

static void test_and_add_reports_seen(struct kunit *test)
{
	struct bloom_filter *f;

	KUNIT_ASSERT_EQ(test, make("kunit_dedup", BLOOM_KEY_BYTES, 0), 0);
	f = bloom_get(&init_net, "kunit_dedup");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_FALSE(test, bloom_test(f, "event-1", 7));
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, "event-1", 7), 0);
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, "event-1", 7), 1);
	KUNIT_EXPECT_TRUE(test, bloom_test(f, "event-1", 7));
	KUNIT_EXPECT_EQ(test, bloom_add(f, "", 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, bloom_key_type(f), (u8)BLOOM_KEY_BYTES);
	bloom_put(f);
	KUNIT_EXPECT_EQ(test, bloom_registry_destroy(&init_net, "kunit_dedup"),
			0);
}

static void clear_publishes_new_contents(struct kunit *test)
{
	struct bloom_contents *before;
	struct bloom_filter *f;

	KUNIT_ASSERT_EQ(test, make("kunit_clear", BLOOM_KEY_BYTES, 0), 0);
	f = bloom_get(&init_net, "kunit_clear");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	bloom_add(f, "k", 1);
	before = rcu_access_pointer(f->contents);
	KUNIT_EXPECT_EQ(test, bloom_registry_clear(&init_net, "kunit_clear"), 0);
	KUNIT_EXPECT_TRUE(test, rcu_access_pointer(f->contents) != before);
	KUNIT_EXPECT_FALSE(test, bloom_test(f, "k", 1));
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_clear");
}

static void swap_exchanges_contents(struct kunit *test)
{
	struct bloom_filter *a, *b;

	KUNIT_ASSERT_EQ(test, make("kunit_swap_a", BLOOM_KEY_BYTES, 0), 0);
	KUNIT_ASSERT_EQ(test, make("kunit_swap_b", BLOOM_KEY_BYTES, 1), 0);
	KUNIT_ASSERT_EQ(test, make("kunit_swap_c", BLOOM_KEY_ADDR, 0), 0);
	a = bloom_get(&init_net, "kunit_swap_a");
	b = bloom_get(&init_net, "kunit_swap_b");
	KUNIT_ASSERT_FALSE(test, IS_ERR(a) || IS_ERR(b));
	bloom_add(b, "new list", 8);
	KUNIT_EXPECT_FALSE(test, bloom_test(a, "new list", 8));
	KUNIT_EXPECT_EQ(test, bloom_registry_swap(&init_net, "kunit_swap_a",
						  "kunit_swap_b"), 0);
	KUNIT_EXPECT_TRUE(test, bloom_test(a, "new list", 8));
	KUNIT_EXPECT_FALSE(test, bloom_test(b, "new list", 8));
	KUNIT_EXPECT_EQ(test, bloom_registry_swap(&init_net, "kunit_swap_a",
						  "kunit_swap_c"), -EINVAL);
	KUNIT_EXPECT_EQ(test, bloom_registry_swap(&init_net, "kunit_swap_a",
						  "kunit_swap_a"), -EINVAL);
	bloom_put(a);
	bloom_put(b);
	bloom_registry_destroy(&init_net, "kunit_swap_a");
	bloom_registry_destroy(&init_net, "kunit_swap_b");
	bloom_registry_destroy(&init_net, "kunit_swap_c");
}

static void rename_keeps_holders(struct kunit *test)
{
	struct bloom_filter *f;

	KUNIT_ASSERT_EQ(test, make("kunit_old", BLOOM_KEY_BYTES, 0), 0);
	KUNIT_ASSERT_EQ(test, make("kunit_taken", BLOOM_KEY_BYTES, 0), 0);
	f = bloom_get(&init_net, "kunit_old");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_registry_rename(&init_net, "kunit_old",
						    "kunit_taken"), -EEXIST);
	KUNIT_EXPECT_EQ(test, bloom_registry_rename(&init_net, "kunit_old",
						    "kunit_new"), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(bloom_get(&init_net, "kunit_old")),
			-ENOENT);
	bloom_put(f);
	KUNIT_EXPECT_EQ(test, bloom_registry_destroy(&init_net, "kunit_new"), 0);
	bloom_registry_destroy(&init_net, "kunit_taken");
}

static void limits_refuse_creation(struct kunit *test)
{
	struct bloom_limits saved, l;

	bloom_registry_limits(&init_net, &saved, false);
	l = saved;
	l.max_filters = saved.filters + 1;
	bloom_registry_limits(&init_net, &l, true);
	KUNIT_EXPECT_EQ(test, make("kunit_lim1", BLOOM_KEY_BYTES, 0), 0);
	KUNIT_EXPECT_EQ(test, make("kunit_lim2", BLOOM_KEY_BYTES, 0), -ENOSPC);
	l.max_filters = saved.max_filters;
	l.max_bytes = 4096;
	bloom_registry_limits(&init_net, &l, true);
	KUNIT_EXPECT_EQ(test, make("kunit_lim2", BLOOM_KEY_BYTES, 0), -E2BIG);
	bloom_registry_limits(&init_net, &saved, true);
	KUNIT_EXPECT_EQ(test, make("kunit_lim2", BLOOM_KEY_BYTES, 0), 0);
	bloom_registry_destroy(&init_net, "kunit_lim1");
	bloom_registry_destroy(&init_net, "kunit_lim2");
}

static void net_filter_matches_inside_prefix(struct kunit *test)
{
	struct bloom_key_net key = {
		.addr = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 0 },
		.plen = 96 + 24,
	};
	u8 inside[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 77 };
	u8 outside[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 3, 1 };
	struct bloom_filter *f;

	KUNIT_ASSERT_EQ(test, make("kunit_net", BLOOM_KEY_NET, 0), 0);
	f = bloom_get(&init_net, "kunit_net");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_add(f, &key, sizeof(key)), 0);
	KUNIT_EXPECT_TRUE(test, bloom_test_net(f, inside));
	KUNIT_EXPECT_FALSE(test, bloom_test_net(f, outside));
	key.addr[15] = 1;	/* host bits set: not a valid prefix key */
	KUNIT_EXPECT_EQ(test, bloom_add(f, &key, sizeof(key)), -EINVAL);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_net");
}

static struct kunit_case registry_cases[] = {
	KUNIT_CASE(get_missing_is_enoent),
	KUNIT_CASE(destroy_in_use_is_ebusy),
	KUNIT_CASE(test_and_add_reports_seen),
	KUNIT_CASE(clear_publishes_new_contents),
	KUNIT_CASE(swap_exchanges_contents),
	KUNIT_CASE(rename_keeps_holders),
	KUNIT_CASE(limits_refuse_creation),
	KUNIT_CASE(net_filter_matches_inside_prefix),
	{}
};

static struct kunit_suite bloom_registry_suite = {
	.name = "bloom_registry",
	.test_cases = registry_cases,
};

kunit_test_suites(&bloom_registry_suite);
