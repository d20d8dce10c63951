// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the registry and the in-kernel API, used exactly as another
 * module would use them (through bloom.ko's exported symbols).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <net/net_namespace.h>
#include "../module/registry.h"
#include "../module/kinds/kinds.h"

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

/*
 * A cuckoo filter through the API: present once added, absent once
 * deleted, held once; deleting from a plain filter is EOPNOTSUPP.
 */
static void cuckoo_through_the_api(struct kunit *test)
{
	struct bloom_geom g = { .bits = 256 * 4 * 16, .hashes = 16,
				.key_type = BLOOM_KEY_BYTES,
				.layout = BLOOM_LAYOUT_CUCKOO };
	struct bloom_filter *f;

	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_ck", &g),
			0);
	f = bloom_get(&init_net, "kunit_ck");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, "ban-1", 5), 0);
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, "ban-1", 5), 1);
	KUNIT_EXPECT_TRUE(test, bloom_test(f, "ban-1", 5));
	KUNIT_EXPECT_EQ(test, bloom_del(f, "ban-1", 5), 0);
	KUNIT_EXPECT_FALSE(test, bloom_test(f, "ban-1", 5));
	KUNIT_EXPECT_EQ(test, bloom_del(f, "ban-1", 5), -ENOENT);
	KUNIT_EXPECT_EQ(test, bloom_del(f, "", 0), -EINVAL);
	bloom_put(f);
	KUNIT_EXPECT_EQ(test, bloom_registry_destroy(&init_net, "kunit_ck"), 0);
	KUNIT_ASSERT_EQ(test, make("kunit_nodel", BLOOM_KEY_BYTES, 0), 0);
	f = bloom_get(&init_net, "kunit_nodel");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_del(f, "x", 1), -EOPNOTSUPP);
	bloom_put(f);
	KUNIT_EXPECT_EQ(test, bloom_registry_destroy(&init_net, "kunit_nodel"),
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

/* A rule records the name: a held filter keeps it. */
static void rename_refuses_held_filter(struct kunit *test)
{
	struct bloom_filter *f;

	KUNIT_ASSERT_EQ(test, make("kunit_old", BLOOM_KEY_BYTES, 0), 0);
	KUNIT_ASSERT_EQ(test, make("kunit_taken", BLOOM_KEY_BYTES, 0), 0);
	KUNIT_EXPECT_EQ(test, bloom_registry_rename(&init_net, "kunit_old",
						    "kunit_taken"), -EEXIST);
	KUNIT_EXPECT_EQ(test, bloom_registry_rename(&init_net, "kunit_old",
						    "bad name"), -EINVAL);
	f = bloom_get(&init_net, "kunit_old");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_registry_rename(&init_net, "kunit_old",
						    "kunit_new"), -EBUSY);
	KUNIT_EXPECT_EQ(test, PTR_ERR(bloom_get(&init_net, "kunit_new")),
			-ENOENT);
	bloom_put(f);
	KUNIT_EXPECT_EQ(test, bloom_registry_rename(&init_net, "kunit_old",
						    "kunit_new"), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(bloom_get(&init_net, "kunit_old")),
			-ENOENT);
	f = bloom_get(&init_net, "kunit_new");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	bloom_put(f);
	KUNIT_EXPECT_EQ(test, bloom_registry_destroy(&init_net, "kunit_new"), 0);
	bloom_registry_destroy(&init_net, "kunit_taken");
}

/* The exported create checks what it is given, as the ioctl does. */
static void create_validates_its_input(struct kunit *test)
{
	struct bloom_geom zero_bits = { .hashes = 3 };
	struct bloom_geom zero_k = { .bits = 1024 };
	struct bloom_geom ok = { .bits = 1024, .hashes = 3 };
	struct bloom_geom odd_block = { .bits = 1000, .hashes = 3 };

	KUNIT_EXPECT_EQ(test, bloom_registry_create(&init_net, "kunit_v",
						    &zero_bits), -EINVAL);
	KUNIT_EXPECT_EQ(test, bloom_registry_create(&init_net, "kunit_v",
						    &zero_k), -EINVAL);
	KUNIT_EXPECT_EQ(test, bloom_registry_create(&init_net, "kunit_v",
						    &odd_block), -EINVAL);
	KUNIT_EXPECT_EQ(test, bloom_registry_create(&init_net, "", &ok),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, bloom_registry_create(&init_net, "a b", &ok),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(bloom_get(&init_net, "kunit_v")),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, bloom_registry_create(&init_net, "kunit_v", &ok),
			0);
	/* m ln 2 / k = 1024 * 0.693 / 3 */
	KUNIT_EXPECT_EQ(test, ok.capacity, 236ULL);
	bloom_registry_destroy(&init_net, "kunit_v");
}

static u64 inserted_of(struct bloom_filter *f)
{
	u64 n;

	rcu_read_lock();
	n = bloom_word_read(&bloom_plain_bits(rcu_dereference(f->contents))->inserted);
	rcu_read_unlock();
	return n;
}

static void add_keys(struct bloom_filter *f, u64 from, u64 to)
{
	u64 i;

	for (i = from; i < to; i++) {
		__le64 key = cpu_to_le64(i);

		bloom_add(f, &key, sizeof(key));
	}
}

/* A and B hold 1000 keys each, 500 of them common. */
static void combine_counts_the_result(struct kunit *test)
{
	struct bloom_geom g = { .bits = 1 << 16, .hashes = 5, .seed = 3,
				.flags = BLOOM_F_FIXED_SEED };
	struct bloom_geom g2 = g;
	struct bloom_filter *a, *b;
	u64 n;

	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_ia",
						    &g), 0);
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_ib",
						    &g2), 0);
	a = bloom_get(&init_net, "kunit_ia");
	b = bloom_get(&init_net, "kunit_ib");
	KUNIT_ASSERT_FALSE(test, IS_ERR(a) || IS_ERR(b));
	add_keys(a, 0, 1000);
	add_keys(b, 500, 1500);
	KUNIT_EXPECT_EQ(test, bloom_registry_combine(&init_net, "kunit_ia",
						     "kunit_ib", true), 0);
	n = inserted_of(a);
	KUNIT_EXPECT_GE(test, n, 450ULL);
	KUNIT_EXPECT_LE(test, n, 550ULL);
	KUNIT_EXPECT_EQ(test, bloom_registry_combine(&init_net, "kunit_ib",
						     "kunit_ia", false), 0);
	n = inserted_of(b);
	KUNIT_EXPECT_GE(test, n, 950ULL);
	KUNIT_EXPECT_LE(test, n, 1050ULL);
	bloom_put(a);
	bloom_put(b);
	bloom_registry_destroy(&init_net, "kunit_ia");
	bloom_registry_destroy(&init_net, "kunit_ib");
}

/*
 * A cuckoo filter stores a copy on every bloom_add(), as a counting
 * filter counts every add: added twice and deleted once, the key stays;
 * deleted twice, it is gone (an empty table holds no fingerprint).
 */
static void cuckoo_add_stores_a_copy(struct kunit *test)
{
	struct bloom_geom g = { .bits = 256 * 4 * 16, .hashes = 16,
				.key_type = BLOOM_KEY_BYTES,
				.layout = BLOOM_LAYOUT_CUCKOO };
	struct bloom_filter *f;

	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_ck2",
						    &g), 0);
	f = bloom_get(&init_net, "kunit_ck2");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_add(f, "ban-2", 5), 0);
	KUNIT_EXPECT_EQ(test, bloom_add(f, "ban-2", 5), 0);
	KUNIT_EXPECT_EQ(test, bloom_del(f, "ban-2", 5), 0);
	KUNIT_EXPECT_TRUE_MSG(test, bloom_test(f, "ban-2", 5),
			      "added twice with bloom_add(), deleted once: gone");
	KUNIT_EXPECT_EQ(test, bloom_del(f, "ban-2", 5), 0);
	KUNIT_EXPECT_FALSE(test, bloom_test(f, "ban-2", 5));
	KUNIT_EXPECT_EQ(test, bloom_del(f, "ban-2", 5), -ENOENT);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_ck2");
}

#define MAP_KEYS	40

/*
 * Publish a static map @name of @n keys of @len bytes each (@keys, one
 * after the other) with @values, built here as bloomctl build does:
 * hashed with the seed, sorted, peeled; a seed that does not peel is
 * stepped. The values are 16 bits wide.
 */
static int publish_map(struct kunit *test, const char *name, u8 key_type,
		       const u8 *keys, size_t len, const u32 *values, u32 n)
{
	struct bloom_fuse_item *it, *tmp;
	struct bloom_contents *c;
	struct bloom_geom g;
	unsigned int tries;
	u64 distinct;
	u32 i, dup[2];
	void *scratch;
	int err;

	err = bloom_fuse_geom(n, 8, 16, &g);
	if (err)
		return err;
	g.key_type = key_type;
	g.seed = 7;
	g.flags |= BLOOM_F_FIXED_SEED;
	it = kunit_kcalloc(test, n, sizeof(*it), GFP_KERNEL);
	tmp = kunit_kcalloc(test, n, sizeof(*tmp), GFP_KERNEL);
	if (!it || !tmp)
		return -ENOMEM;
	for (tries = 0; tries < BLOOM_FUSE_TRIES; tries++) {
		c = bloom_contents_new(&g);
		if (!c)
			return -ENOMEM;
		scratch = kvzalloc(bloom_fuse_scratch_bytes(&c->core),
				   GFP_KERNEL);
		if (!scratch) {
			bloom_contents_free(c);
			return -ENOMEM;
		}
		for (i = 0; i < n; i++)
			it[i] = (struct bloom_fuse_item){
				.h = bloom_hash(&c->core, keys + i * len, len),
				.value = values[i], .idx = i };
		err = bloom_fuse_sort(it, tmp, n, scratch, &distinct, dup) ?:
		      bloom_fuse_build(&c->core, c->array, it, distinct,
				       scratch);
		kvfree(scratch);
		if (!err)
			return bloom_registry_publish(&init_net, name, c,
						      false);
		bloom_contents_free(c);
		if (err != -EAGAIN)
			return err;
		g.seed += BLOOM_FUSE_SEED_STEP;
	}
	return -EAGAIN;
}

/*
 * bloom_value() on static maps of addr and addr,port keys gives each
 * member the value the map was built with (none of them 0), and says
 * keys never listed are absent (a 2^-8 false positive each: at most a
 * few of 40).
 */
static void static_map_gives_each_value(struct kunit *test)
{
	struct bloom_key_addr_port *ap;
	struct bloom_key_addr *a;
	struct bloom_filter *f;
	u32 *values, i, wrong, absent, value;

	a = kunit_kcalloc(test, 2 * MAP_KEYS, sizeof(*a), GFP_KERNEL);
	ap = kunit_kcalloc(test, MAP_KEYS, sizeof(*ap), GFP_KERNEL);
	values = kunit_kcalloc(test, MAP_KEYS, sizeof(*values), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, ap);
	KUNIT_ASSERT_NOT_NULL(test, values);
	for (i = 0; i < 2 * MAP_KEYS; i++) {
		/* ::ffff:198.51.100.i; the second half are never listed */
		a[i].addr[10] = 0xff;
		a[i].addr[11] = 0xff;
		a[i].addr[12] = 198;
		a[i].addr[13] = 51;
		a[i].addr[14] = 100;
		a[i].addr[15] = i;
	}
	for (i = 0; i < MAP_KEYS; i++) {
		values[i] = 1000 + 37 * i;
		memcpy(ap[i].addr, a[i].addr, sizeof(ap[i].addr));
		ap[i].port = htons(5353);
		ap[i].proto = IPPROTO_UDP;
	}
	KUNIT_ASSERT_EQ(test, publish_map(test, "kunit_map_a", BLOOM_KEY_ADDR,
					  (const u8 *)a, sizeof(*a), values,
					  MAP_KEYS), 0);
	f = bloom_get(&init_net, "kunit_map_a");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	for (i = 0, wrong = 0; i < MAP_KEYS; i++) {
		value = 0;
		if (!bloom_value(f, &a[i], sizeof(a[i]), &value) ||
		    value != values[i]) {
			if (!wrong++)
				kunit_err(test, "addr key %u: value %u, want %u",
					  i, value, values[i]);
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, wrong, 0U, "addr members with another value");
	for (i = MAP_KEYS, absent = 0; i < 2 * MAP_KEYS; i++)
		absent += !bloom_value(f, &a[i], sizeof(a[i]), &value);
	KUNIT_EXPECT_GE(test, absent, MAP_KEYS - 4U);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_map_a");

	for (i = 0; i < MAP_KEYS; i++)
		values[i] = 65535 - i;
	KUNIT_ASSERT_EQ(test, publish_map(test, "kunit_map_ap",
					  BLOOM_KEY_ADDR_PORT, (const u8 *)ap,
					  sizeof(*ap), values, MAP_KEYS), 0);
	f = bloom_get(&init_net, "kunit_map_ap");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	for (i = 0, wrong = 0; i < MAP_KEYS; i++) {
		value = 0;
		if (!bloom_value(f, &ap[i], sizeof(ap[i]), &value) ||
		    value != values[i]) {
			if (!wrong++)
				kunit_err(test, "addr,port key %u: value %u, want %u",
					  i, value, values[i]);
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, wrong, 0U,
			    "addr,port members with another value");
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_map_ap");
}

/*
 * Set algebra between kinds is refused: a plain filter and a growing one
 * of the same geometry and seed (the growing one's first stage is that
 * geometry) do not share their arrays' layout.
 */
static void combine_refuses_other_kinds(struct kunit *test)
{
	struct bloom_geom g = { .bits = 1 << 16, .hashes = 5, .seed = 3,
				.flags = BLOOM_F_FIXED_SEED };
	struct bloom_geom grow = g;
	struct bloom_filter *a, *b;

	grow.stages_max = 4;
	grow.growth = 2;
	grow.tighten_pct = 50;
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_kp",
						    &g), 0);
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_kg",
						    &grow), 0);
	a = bloom_get(&init_net, "kunit_kp");
	b = bloom_get(&init_net, "kunit_kg");
	KUNIT_ASSERT_FALSE(test, IS_ERR(a) || IS_ERR(b));
	add_keys(a, 0, 100);
	add_keys(b, 100, 200);
	KUNIT_EXPECT_EQ(test, bloom_registry_combine(&init_net, "kunit_kp",
						     "kunit_kg", false),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, bloom_registry_combine(&init_net, "kunit_kp",
						     "kunit_kg", true),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, bloom_registry_combine(&init_net, "kunit_kg",
						     "kunit_kp", false),
			-EOPNOTSUPP);
	/* Unchanged: still its own 100 keys. */
	KUNIT_EXPECT_EQ(test, inserted_of(a), 100ULL);
	bloom_put(a);
	bloom_put(b);
	bloom_registry_destroy(&init_net, "kunit_kp");
	bloom_registry_destroy(&init_net, "kunit_kg");
}

/*
 * A filter of one family through the API and the packet path's calls:
 * the other family's keys are refused by add and delete, absent to
 * every test, never probed as addresses; union with a filter of the
 * other family is refused. Addresses written out by hand.
 */
static void one_family_through_the_api(struct kunit *test)
{
	static const u8 v4[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 };
	static const u8 v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	struct bloom_geom g = { .bits = 1 << 16, .hashes = 5, .seed = 7,
				.key_type = BLOOM_KEY_NET,
				.flags = BLOOM_F_FIXED_SEED | BLOOM_F_INET6 };
	struct bloom_geom g4 = g;
	struct bloom_key_net all = { .plen = 0 };	/* ::/0, IPv6 */
	struct bloom_key_net all4 = { .addr = { [10] = 0xff, [11] = 0xff },
				      .plen = 96 };	/* 0.0.0.0/0 */
	struct bloom_filter *f, *f4;
	u32 value = 1;

	g4.flags = BLOOM_F_FIXED_SEED | BLOOM_F_INET;
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_f6", &g),
			0);
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_f4",
						    &g4), 0);
	f = bloom_get(&init_net, "kunit_f6");
	f4 = bloom_get(&init_net, "kunit_f4");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f) || IS_ERR(f4));
	KUNIT_EXPECT_EQ(test, bloom_family(f), BLOOM_F_INET6);
	KUNIT_EXPECT_EQ(test, bloom_add(f, &all, sizeof(all)), 0);
	KUNIT_EXPECT_EQ(test, bloom_add(f, &all4, sizeof(all4)),
			-EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, &all4, sizeof(all4)),
			-EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, bloom_del(f, &all4, sizeof(all4)),
			-EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, inserted_of(f), 1ULL);
	KUNIT_EXPECT_TRUE(test, bloom_test_net(f, v6));
	KUNIT_EXPECT_FALSE(test, bloom_test_net(f, v4));
	KUNIT_EXPECT_FALSE(test, bloom_value_net(f, v4, &value));
	KUNIT_EXPECT_FALSE(test, bloom_test(f, &all4, sizeof(all4)));
	rcu_read_lock();
	KUNIT_EXPECT_EQ(test, bloom_probe_rcu(f, v4, 16, false), 0);
	KUNIT_EXPECT_EQ(test, bloom_probe_rcu(f, &all4, sizeof(all4), true),
			-EAFNOSUPPORT);
	rcu_read_unlock();
	/* The IPv4 filter, full of 0.0.0.0/0, never answers an IPv6 one. */
	KUNIT_EXPECT_EQ(test, bloom_add(f4, &all4, sizeof(all4)), 0);
	KUNIT_EXPECT_TRUE(test, bloom_test_net(f4, v4));
	KUNIT_EXPECT_FALSE(test, bloom_test_net(f4, v6));
	KUNIT_EXPECT_EQ(test, bloom_registry_combine(&init_net, "kunit_f6",
						     "kunit_f4", false),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, inserted_of(f), 1ULL);
	bloom_put(f);
	bloom_put(f4);
	bloom_registry_destroy(&init_net, "kunit_f6");
	bloom_registry_destroy(&init_net, "kunit_f4");
}

/* Past its capacity a filter stops taking new keys from the API. */
static void full_filter_stops_adding(struct kunit *test)
{
	struct bloom_geom g = { .bits = 1 << 16, .hashes = 5, .capacity = 10 };
	struct bloom_filter *f;
	__le64 key;
	u64 i;

	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_full",
						    &g), 0);
	f = bloom_get(&init_net, "kunit_full");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	for (i = 0; i < 10; i++) {
		key = cpu_to_le64(i);
		KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, &key, sizeof(key)),
				0);
	}
	key = cpu_to_le64(10);
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, &key, sizeof(key)),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, bloom_add(f, &key, sizeof(key)), -ENOSPC);
	KUNIT_EXPECT_FALSE(test, bloom_test(f, &key, sizeof(key)));
	key = cpu_to_le64(3);
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, &key, sizeof(key)), 1);
	KUNIT_EXPECT_EQ(test, inserted_of(f), 10ULL);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_full");
}

#define ADDER_KEYS	20000
#define RECHECK		32	/* keys the adder tests again after each add */

struct adder {
	struct bloom_filter *f;
	atomic64_t done;		/* keys whose add returned */
	atomic64_t unseen;		/* ... that the next test missed */
	bool stop;
	struct completion finished;
};

static int adder_fn(void *arg)
{
	struct adder *a = arg;
	u64 i;

	/* Bounded, so that the halved filter keeps a low false-positive rate. */
	for (i = 0; !READ_ONCE(a->stop) && i < ADDER_KEYS; i++) {
		u64 j;

		add_keys(a->f, i, i + 1);
		/*
		 * One's own adds are seen from then on, whatever halve is
		 * doing: the last few, so that adds that landed in the old
		 * contents during a fold are tested after the publication.
		 */
		for (j = i >= RECHECK ? i - RECHECK : 0; j <= i; j++) {
			__le64 key = cpu_to_le64(j);

			if (!bloom_test(a->f, &key, sizeof(key)))
				atomic64_inc(&a->unseen);
		}
		/* Pairs with the acquire below: the add happened before. */
		atomic64_set_release(&a->done, i + 1);
		if (!(i % 64))
			cond_resched();
	}
	complete(&a->finished);
	return 0;
}

/*
 * Every add that returned is seen by every later test, while halve runs
 * and after it returned.
 */
static void halve_keeps_completed_adds(struct kunit *test)
{
	struct bloom_geom g = { .bits = 1 << 22, .hashes = 4,
				.layout = BLOOM_LAYOUT_STANDARD };
	struct adder *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	u64 done, i, missing = 0;
	struct task_struct *t;
	int h;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_halve",
						    &g), 0);
	a->f = bloom_get(&init_net, "kunit_halve");
	KUNIT_ASSERT_FALSE(test, IS_ERR(a->f));
	init_completion(&a->finished);
	t = kthread_run(adder_fn, a, "bloom_adder");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	for (h = 0; h < 4; h++) {
		while (atomic64_read_acquire(&a->done) < (h + 1) * 500ULL)
			msleep(1);
		KUNIT_EXPECT_EQ(test, bloom_registry_halve(&init_net,
							   "kunit_halve"), 0);
	}
	done = atomic64_read_acquire(&a->done);
	WRITE_ONCE(a->stop, true);
	wait_for_completion(&a->finished);
	for (i = 0; i < done; i++) {
		__le64 key = cpu_to_le64(i);

		missing += !bloom_test(a->f, &key, sizeof(key));
	}
	KUNIT_EXPECT_EQ_MSG(test, missing, 0ULL,
			    "%llu of %llu completed adds lost by halving",
			    missing, done);
	KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&a->unseen), 0LL,
			    "%lld adds were absent from the test right after them",
			    (long long)atomic64_read(&a->unseen));
	/* Keys never added stay mostly absent: the test can see a loss. */
	for (i = ADDER_KEYS, missing = 0; i < ADDER_KEYS + 1000; i++) {
		__le64 key = cpu_to_le64(i);

		missing += bloom_test(a->f, &key, sizeof(key));
	}
	KUNIT_EXPECT_LT(test, missing, 200ULL);
	bloom_put(a->f);
	bloom_registry_destroy(&init_net, "kunit_halve");
}

static void limits_refuse_creation(struct kunit *test)
{
	struct bloom_limits saved, l;

	KUNIT_ASSERT_EQ(test, bloom_registry_limits(&init_net, &saved, false, false),
			0);
	l = saved;
	l.max_filters = saved.filters + 1;
	bloom_registry_limits(&init_net, &l, true, true);
	KUNIT_EXPECT_EQ(test, make("kunit_lim1", BLOOM_KEY_BYTES, 0), 0);
	KUNIT_EXPECT_EQ(test, make("kunit_lim2", BLOOM_KEY_BYTES, 0), -ENOSPC);
	l.max_filters = saved.max_filters;
	l.max_bytes = 4096;
	bloom_registry_limits(&init_net, &l, true, true);
	KUNIT_EXPECT_EQ(test, make("kunit_lim2", BLOOM_KEY_BYTES, 0), -E2BIG);
	bloom_registry_limits(&init_net, &saved, true, true);
	KUNIT_EXPECT_EQ(test, make("kunit_lim2", BLOOM_KEY_BYTES, 0), 0);
	bloom_registry_destroy(&init_net, "kunit_lim1");
	bloom_registry_destroy(&init_net, "kunit_lim2");
}

/*
 * A namespace's own root moves its limits up to the ceiling the host
 * set, never above: a limit the host lowered stays lowered.
 */
static void limits_ceiling_is_the_hosts(struct kunit *test)
{
	struct bloom_limits saved, l;

	KUNIT_ASSERT_EQ(test, bloom_registry_limits(&init_net, &saved, false,
						    false), 0);
	l = saved;
	l.max_bytes = saved.max_bytes / 2;
	KUNIT_EXPECT_EQ(test, bloom_registry_limits(&init_net, &l, true, true),
			0);
	l.max_bytes = saved.max_bytes;
	KUNIT_EXPECT_EQ(test, bloom_registry_limits(&init_net, &l, true, false),
			-EPERM);
	KUNIT_EXPECT_EQ(test, l.max_bytes, saved.max_bytes);
	bloom_registry_limits(&init_net, &l, false, false);
	KUNIT_EXPECT_EQ(test, l.max_bytes, saved.max_bytes / 2);
	l.max_bytes = saved.max_bytes / 4;
	KUNIT_EXPECT_EQ(test, bloom_registry_limits(&init_net, &l, true, false),
			0);
	l.max_bytes = saved.max_bytes / 2;
	KUNIT_EXPECT_EQ(test, bloom_registry_limits(&init_net, &l, true, false),
			0);
	KUNIT_EXPECT_EQ(test, bloom_registry_limits(&init_net, &saved, true,
						    true), 0);
}

/* A new net filter @name, held; the case stops if it cannot be made. */
static struct bloom_filter *held_net(struct kunit *test, const char *name)
{
	struct bloom_filter *f;

	KUNIT_ASSERT_EQ(test, make(name, BLOOM_KEY_NET, 0), 0);
	f = bloom_get(&init_net, name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	return f;
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

	f = held_net(test, "kunit_net");
	KUNIT_EXPECT_EQ(test, bloom_add(f, &key, sizeof(key)), 0);
	KUNIT_EXPECT_TRUE(test, bloom_test_net(f, inside));
	KUNIT_EXPECT_FALSE(test, bloom_test_net(f, outside));
	key.addr[15] = 1;	/* host bits set: not a valid prefix key */
	KUNIT_EXPECT_EQ(test, bloom_add(f, &key, sizeof(key)), -EINVAL);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_net");
}

/*
 * The families apart: IPv6 prefixes that cover ::ffff:0:0/96 (::/8, the
 * first IPv6 bogon, and ::/0) match IPv6 addresses inside them and no
 * IPv4 address; ::ffff:0:0/96 itself is IPv4's 0.0.0.0/0.
 */
static void net_families_are_apart(struct kunit *test)
{
	struct bloom_key_net v6_8 = { .plen = 8 }, v6_0 = { .plen = 0 };
	struct bloom_key_net v4_all = {
		.addr = { [10] = 0xff, [11] = 0xff }, .plen = 96,
	};
	u8 v4[16] = { [10] = 0xff, [11] = 0xff, 198, 51, 100, 7 };
	u8 v6[16] = { 0x00, 0x12, [15] = 1 };	/* 12::1, inside ::/8 */
	u8 v6_out[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	struct bloom_filter *f;

	f = held_net(test, "kunit_fam");
	KUNIT_EXPECT_EQ(test, bloom_add(f, &v6_8, sizeof(v6_8)), 0);
	KUNIT_EXPECT_TRUE(test, bloom_test_net(f, v6));
	KUNIT_EXPECT_FALSE(test, bloom_test_net(f, v4));
	KUNIT_EXPECT_EQ(test, bloom_add(f, &v6_0, sizeof(v6_0)), 0);
	KUNIT_EXPECT_TRUE(test, bloom_test_net(f, v6_out));
	KUNIT_EXPECT_FALSE(test, bloom_test_net(f, v4));
	KUNIT_EXPECT_EQ(test, bloom_add(f, &v4_all, sizeof(v4_all)), 0);
	KUNIT_EXPECT_TRUE(test, bloom_test_net(f, v4));
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_fam");
}

/* Delete a key from a held counting filter, as DEL does. */
static int del_key(struct bloom_filter *f, const void *key, size_t len)
{
	struct bloom_contents *c = bloom_contents_get(f);
	int err = bloom_contents_del(c, bloom_hash(&c->core, key, len));

	bloom_contents_put(c);
	return err;
}

/*
 * A counting filter counts every add through the API, even of a key that
 * tests present already: added twice and deleted once, it stays.
 */
static void counting_add_counts_a_present_key(struct kunit *test)
{
	struct bloom_filter *f;

	KUNIT_ASSERT_EQ(test, make("kunit_cnt", BLOOM_KEY_BYTES,
				   BLOOM_LAYOUT_COUNTING), 0);
	f = bloom_get(&init_net, "kunit_cnt");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_add(f, "K", 1), 0);
	KUNIT_EXPECT_EQ(test, bloom_add(f, "K", 1), 0);
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, "T", 1), 0);
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, "T", 1), 1);
	KUNIT_EXPECT_EQ(test, del_key(f, "K", 1), 0);
	KUNIT_EXPECT_EQ(test, del_key(f, "T", 1), 0);
	KUNIT_EXPECT_TRUE_MSG(test, bloom_test(f, "K", 1),
			      "added twice with bloom_add(), deleted once: gone");
	KUNIT_EXPECT_TRUE_MSG(test, bloom_test(f, "T", 1),
			      "added twice with bloom_test_and_add(), deleted once: gone");
	KUNIT_EXPECT_EQ(test, del_key(f, "K", 1), 0);
	KUNIT_EXPECT_FALSE(test, bloom_test(f, "K", 1));
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_cnt");
}

/*
 * Sizes saturate instead of wrapping: a geometry whose contents do not
 * fit in a size_t asks for SIZE_MAX, which nothing grants, never for a
 * small allocation that the arrays would then overrun.
 */
static void contents_bytes_saturate(struct kunit *test)
{
	struct bloom_core core = { .g = { .gens = 2 } };

	/* One array's size is just under SIZE_MAX: aligning it wraps. */
	core.nwords = SIZE_MAX / sizeof(u64) - 5;
	KUNIT_EXPECT_EQ(test, bloom_aging_ops.bytes(&core), SIZE_MAX);
	/* Each array fits, G + 1 of them do not. */
	core.g.gens = BLOOM_GENERATIONS_MAX;
	core.nwords = SIZE_MAX / sizeof(u64) / 4;
	KUNIT_EXPECT_EQ(test, bloom_aging_ops.bytes(&core), SIZE_MAX);
	core.nwords = 1 << 20;
	KUNIT_EXPECT_LT(test, bloom_aging_ops.bytes(&core), (size_t)(80 << 20));
}

/* 10.0.H.L, the IPv4 address @i of 10.0.0.0/16, as a /32 key. */
static void slash32_of(struct bloom_key_net *k, u8 b0, u8 b1, u32 i)
{
	memset(k, 0, sizeof(*k));
	k->addr[10] = 0xff;
	k->addr[11] = 0xff;
	k->addr[12] = b0;
	k->addr[13] = b1;
	k->addr[14] = i >> 8;
	k->addr[15] = i;
	k->plen = 128;
}

/* How many of the first @n addresses of /16 @b0.@b1 @f matches. */
static u32 net_matches(struct bloom_filter *f, u8 b0, u8 b1, u32 n)
{
	struct bloom_key_net k;
	u32 i, hits = 0;

	for (i = 0; i < n; i++) {
		slash32_of(&k, b0, b1, i);
		hits += bloom_test_net(f, k.addr);
	}
	return hits;
}

/*
 * The /16 summary through the API: bloom_add() notes each key's /16,
 * so that in a filter overfull on purpose (8000 keys in 4096 bits, one
 * hash) an address of an unreached /16 never matches, where the same
 * filter without a summary matches most; halving keeps the summary
 * (shared), clearing empties it, and a union with contents that have
 * none makes every /16 walk, so that no key of them is missed.
 */
static void net_summary_through_the_api(struct kunit *test)
{
	struct bloom_geom g = { .bits = 4096, .hashes = 1, .seed = 7,
				.key_type = BLOOM_KEY_NET,
				.flags = BLOOM_F_SUMMARY | BLOOM_F_FIXED_SEED };
	struct bloom_geom bare = g;
	struct bloom_filter *f, *p;
	struct bloom_key_net k;
	u32 i;

	bare.flags &= ~BLOOM_F_SUMMARY;
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_sum",
						    &g), 0);
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_bare",
						    &bare), 0);
	f = bloom_get(&init_net, "kunit_sum");
	p = bloom_get(&init_net, "kunit_bare");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f) || IS_ERR(p));
	for (i = 0; i < 8000; i++) {
		slash32_of(&k, 10, 0, i);
		bloom_add(f, &k, sizeof(k));
		bloom_add(p, &k, sizeof(k));
	}
	KUNIT_EXPECT_EQ(test, net_matches(f, 10, 0, 256), 256U);
	KUNIT_EXPECT_EQ(test, net_matches(f, 11, 0, 256), 0U);
	KUNIT_EXPECT_GT(test, net_matches(p, 11, 0, 256), 128U);
	KUNIT_EXPECT_EQ(test, bloom_registry_halve(&init_net, "kunit_sum"), 0);
	KUNIT_EXPECT_EQ(test, net_matches(f, 10, 0, 256), 256U);
	KUNIT_EXPECT_EQ(test, net_matches(f, 11, 0, 256), 0U);
	KUNIT_EXPECT_EQ(test, bloom_registry_halve(&init_net, "kunit_bare"), 0);
	KUNIT_EXPECT_EQ(test, bloom_registry_clear(&init_net, "kunit_sum"), 0);
	KUNIT_EXPECT_EQ(test, net_matches(f, 10, 0, 256), 0U);
	KUNIT_EXPECT_EQ(test, bloom_registry_combine(&init_net, "kunit_sum",
						     "kunit_bare", false), 0);
	KUNIT_EXPECT_EQ(test, net_matches(f, 10, 0, 256), 256U);
	bloom_put(f);
	bloom_put(p);
	bloom_registry_destroy(&init_net, "kunit_sum");
	bloom_registry_destroy(&init_net, "kunit_bare");
}

/*
 * bloom_add_value(): a cuckoo filter with values gives each key the value
 * it was added with, through bloom_value() and, for a prefix, through
 * bloom_value_net() of an address inside it; each match counts under
 * that value; a value that does not fit is refused and adds nothing.
 */
static void add_value_through_the_api(struct kunit *test)
{
	struct bloom_geom g = { .bits = 256 * 4 * (16 + 8), .hashes = 16,
				.value_bits = 8, .key_type = BLOOM_KEY_NET,
				.layout = BLOOM_LAYOUT_CUCKOO,
				.flags = BLOOM_F_SUMMARY };
	u64 *hits = kunit_kcalloc(test, 256, sizeof(*hits), GFP_KERNEL);
	struct bloom_key_net a, b, net, net16;
	u64 plens[BLOOM_PLEN_WORDS];
	struct bloom_filter *f;
	u32 value;

	KUNIT_ASSERT_NOT_NULL(test, hits);
	slash32_of(&a, 10, 0, 1);
	slash32_of(&b, 10, 0, 2);
	slash32_of(&net, 10, 1, 0);
	net.plen = 96 + 24;
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_val",
						    &g), 0);
	f = bloom_get(&init_net, "kunit_val");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_add_value(f, &a, sizeof(a), 3), 0);
	KUNIT_EXPECT_EQ(test, bloom_add_value(f, &net, sizeof(net), 255), 0);
	KUNIT_EXPECT_EQ(test, bloom_add_value(f, &b, sizeof(b), 256), -ERANGE);
	KUNIT_EXPECT_FALSE_MSG(test, bloom_test_net(f, b.addr),
			       "a refused value's key was added");
	/* Refused at a length of its own (/16): that length is not held. */
	net16 = net;
	net16.plen = 96 + 16;
	KUNIT_EXPECT_EQ(test, bloom_add_value(f, &net16, sizeof(net16), 256),
			-ERANGE);
	rcu_read_lock();	/* the contents stay while we read them */
	bloom_contents_plens(rcu_dereference(f->contents), plens);
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, plens[0], 0ULL);
	KUNIT_EXPECT_EQ(test, plens[1], BIT_ULL(120 - 64));	/* the /24 */
	KUNIT_EXPECT_EQ(test, plens[2], BIT_ULL(0));		/* the /32 */
	KUNIT_EXPECT_TRUE(test, bloom_value(f, &a, sizeof(a), &value));
	KUNIT_EXPECT_EQ(test, value, 3U);
	slash32_of(&b, 10, 1, 77);
	KUNIT_EXPECT_TRUE(test, bloom_value_net(f, b.addr, &value));
	KUNIT_EXPECT_EQ(test, value, 255U);
	KUNIT_EXPECT_EQ(test, bloom_filter_value_hits(f, hits, 256), 256U);
	KUNIT_EXPECT_EQ(test, hits[3], 1ULL);
	KUNIT_EXPECT_EQ(test, hits[255], 1ULL);
	KUNIT_EXPECT_EQ(test, hits[0], 0ULL);
	KUNIT_EXPECT_EQ(test, bloom_del(f, &a, sizeof(a)), 0);
	KUNIT_EXPECT_FALSE(test, bloom_value(f, &a, sizeof(a), &value));
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_val");
	/* A filter without values takes 0 only. */
	g.value_bits = 0;
	g.key_type = BLOOM_KEY_BYTES;
	g.flags = 0;
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_noval",
						    &g), 0);
	f = bloom_get(&init_net, "kunit_noval");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_add_value(f, "x", 1, 1), -ERANGE);
	KUNIT_EXPECT_FALSE(test, bloom_test(f, "x", 1));
	KUNIT_EXPECT_EQ(test, bloom_add_value(f, "x", 1, 0), 0);
	KUNIT_EXPECT_TRUE(test, bloom_test(f, "x", 1));
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_noval");
}

static struct kunit_case registry_cases[] = {
	KUNIT_CASE(get_missing_is_enoent),
	KUNIT_CASE(destroy_in_use_is_ebusy),
	KUNIT_CASE(test_and_add_reports_seen),
	KUNIT_CASE(cuckoo_through_the_api),
	KUNIT_CASE(clear_publishes_new_contents),
	KUNIT_CASE(swap_exchanges_contents),
	KUNIT_CASE(rename_refuses_held_filter),
	KUNIT_CASE(create_validates_its_input),
	KUNIT_CASE(combine_counts_the_result),
	KUNIT_CASE(full_filter_stops_adding),
	KUNIT_CASE(cuckoo_add_stores_a_copy),
	KUNIT_CASE(static_map_gives_each_value),
	KUNIT_CASE(combine_refuses_other_kinds),
	KUNIT_CASE(one_family_through_the_api),
	KUNIT_CASE(counting_add_counts_a_present_key),
	KUNIT_CASE(contents_bytes_saturate),
	KUNIT_CASE_SLOW(halve_keeps_completed_adds),
	KUNIT_CASE(limits_refuse_creation),
	KUNIT_CASE(limits_ceiling_is_the_hosts),
	KUNIT_CASE(net_filter_matches_inside_prefix),
	KUNIT_CASE(net_families_are_apart),
	KUNIT_CASE(net_summary_through_the_api),
	KUNIT_CASE(add_value_through_the_api),
	{}
};

static struct kunit_suite bloom_registry_suite = {
	.name = "bloom_registry",
	.test_cases = registry_cases,
};

kunit_test_suites(&bloom_registry_suite);
