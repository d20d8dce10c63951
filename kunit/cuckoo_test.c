// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: cuckoo tables (core/cuckoo.c), single-threaded. The alternate
 * bucket is its own inverse for bucket counts that are not powers of
 * two; tables sized for a capacity hold it, answer every key added,
 * stay inside the theory's rate, and empty again by deletes; an add
 * that does not fit changes nothing; sizing picks the narrowest
 * fingerprint, checked against 2 * 4 * load / (2^f - 1) computed here;
 * values beside fingerprints move with them.
 * kunit/cuckoo_race_test.c races the kernel's readers with moves.
 */
#include "bloom_test.h"

#define KEYS	20000

static struct bt_filter *table(struct kunit *test, u64 capacity, u64 ppb)
{
	struct bloom_geom g = { .key_type = BLOOM_KEY_BYTES, .seed = 7 };

	KUNIT_ASSERT_EQ(test, bloom_geom_size(capacity, ppb,
					      BLOOM_LAYOUT_CUCKOO, &g), 0);
	return bt_filter_new(test, &g);
}

static int insert(struct bt_filter *f, struct bloom_cuckoo_node *q, u64 i,
		  u64 *moves)
{
	return bloom_cuckoo_insert(&f->c, f->b, bt_hash(f, i), q, NULL, moves,
				   true);
}

static void alt_is_its_own_inverse(struct kunit *test)
{
	static const u64 counts[] = { 2, 3, 5, 7, 1000, 65537, 999983,
				      (1ULL << 32) - 1 };
	struct bloom_core c = {};
	u64 state = 1, i, n;
	unsigned int t;

	for (t = 0; t < ARRAY_SIZE(counts); t++) {
		c.range = counts[t];
		c.g.hashes = 12;
		for (n = 0; n < 2000; n++) {
			u64 r = bt_rand(&state);
			u32 fp = (r >> 40 & 0xfff) | 1;
			u64 j;

			i = (r & 0xffffffff) % c.range;
			j = bloom_cuckoo_alt(&c, i, fp);
			KUNIT_ASSERT_TRUE(test, j < c.range);
			KUNIT_ASSERT_EQ(test, bloom_cuckoo_alt(&c, j, fp), i);
		}
	}
}

/* Expected f: the smallest with 8 * 0.95 / (2^f - 1) <= the rate. */
static void sizing_picks_the_narrowest_fingerprint(struct kunit *test)
{
	static const struct { u64 ppb; u32 f; } t[] = {
		{ 10000000, 10 }, { 1000000, 13 }, { 100000, 17 },
		{ 31000000, 8 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct bloom_geom g = {};
		u64 buckets;

		KUNIT_ASSERT_EQ(test, bloom_geom_size(1000000, t[i].ppb,
						      BLOOM_LAYOUT_CUCKOO, &g),
				0);
		KUNIT_EXPECT_EQ(test, g.hashes, t[i].f);
		buckets = g.bits / (4 * g.hashes);
		/* 10^6 / 0.95 / 4 = 263157.9 buckets. */
		KUNIT_EXPECT_EQ(test, buckets, 263158ULL);
		KUNIT_EXPECT_EQ(test, bloom_geom_check(&g), 0);
	}
}

static void geometry_refuses_bad_tables(struct kunit *test)
{
	struct bloom_geom ok = { .layout = BLOOM_LAYOUT_CUCKOO, .hashes = 12,
				 .bits = 48 * 100, .capacity = 10 };
	struct bloom_geom g;

	KUNIT_EXPECT_EQ(test, bloom_geom_check(&ok), 0);
	g = ok;
	g.bits += 12;			/* not whole buckets */
	KUNIT_EXPECT_EQ(test, bloom_geom_check(&g), -EINVAL);
	g = ok;
	g.hashes = 3;
	g.bits = 12 * 100;
	KUNIT_EXPECT_EQ(test, bloom_geom_check(&g), -EINVAL);
	g = ok;
	g.gens = 2;
	KUNIT_EXPECT_EQ(test, bloom_geom_check(&g), -EINVAL);
	g = ok;
	g.stages_max = 4;
	g.growth = 2;
	g.tighten_pct = 50;
	KUNIT_EXPECT_EQ(test, bloom_geom_check(&g), -EINVAL);
	g = ok;
	g.bits = 48;			/* one bucket */
	KUNIT_EXPECT_EQ(test, bloom_geom_check(&g), -EINVAL);
}

/*
 * Every width from 4 to 32 bits (slots across words included): a table
 * filled to its capacity answers all its keys, and deleting them all
 * empties it.
 */
static void holds_capacity_and_deletes_back_to_empty(struct kunit *test)
{
	struct bloom_cuckoo_node *q;
	u64 moves = 0, i;
	u32 f;

	q = bt_alloc(test, sizeof(*q) * BLOOM_CUCKOO_NODES);
	KUNIT_ASSERT_NOT_NULL(test, q);
	for (f = BLOOM_CUCKOO_FP_MIN; f <= BLOOM_CUCKOO_FP_MAX; f += 4) {
		struct bloom_geom g = { .layout = BLOOM_LAYOUT_CUCKOO,
					.hashes = f, .seed = f };
		struct bt_filter *ft;

		/*
		 * 1900 keys, 90 % of 527 buckets (not a power of two):
		 * 4-bit fingerprints give many copies, which fill less
		 * evenly.
		 */
		g.bits = 527 * 4 * f;
		g.capacity = 1900;
		ft = bt_filter_new(test, &g);
		for (i = 0; i < 1900; i++)
			KUNIT_ASSERT_EQ(test, insert(ft, q, i, &moves) < 0, 0);
		for (i = 0; i < 1900; i++)
			KUNIT_ASSERT_TRUE(test, bloom_test_hash(&ft->c, ft->b,
								bt_hash(ft, i)));
		KUNIT_EXPECT_EQ(test, bloom_cuckoo_used(&ft->c, ft->b),
				bloom_word_read(&ft->b->inserted));
		for (i = 0; i < 1900; i++)
			KUNIT_ASSERT_EQ(test, bloom_cuckoo_delete(&ft->c, ft->b,
								  bt_hash(ft, i),
								  NULL), 0);
		KUNIT_EXPECT_EQ(test, bloom_cuckoo_used(&ft->c, ft->b), 0ULL);
		KUNIT_EXPECT_EQ(test, bloom_word_read(&ft->b->inserted), 0ULL);
	}
	KUNIT_EXPECT_GT(test, moves, 0ULL);	/* the search was exercised */
}

/*
 * Sized for KEYS at 1 %: all fit, each added key is found, a deleted
 * key is gone unless another key shares its fingerprint and bucket,
 * and the rate on keys never added is within 3 sigma of 1 - (1 -
 * 1/(2^f - 1))^(2n/B), computed here in floating point terms of
 * integers: expected = trials * 8 * load / (2^f - 1).
 */
static void answers_and_rate_match_theory(struct kunit *test)
{
	struct bt_filter *f = table(test, KEYS, 10000000);
	struct bloom_cuckoo_node *q;
	u64 moves = 0, fp = 0, i, trials = 200000, expect, sigma, buckets;
	u64 values = (1ULL << f->c.g.hashes) - 1;

	q = bt_alloc(test, sizeof(*q) * BLOOM_CUCKOO_NODES);
	KUNIT_ASSERT_NOT_NULL(test, q);
	/* Some keys find another's fingerprint in a bucket: a copy. */
	for (i = 0; i < KEYS; i++)
		KUNIT_ASSERT_EQ(test, insert(f, q, i, &moves) < 0, 0);
	KUNIT_EXPECT_EQ(test, insert(f, q, 5, &moves), 1);	/* twice */
	for (i = 0; i < KEYS; i++)
		KUNIT_ASSERT_TRUE(test, bloom_test_hash(&f->c, f->b,
							bt_hash(f, i)));
	for (i = 0; i < trials; i++)
		fp += bloom_test_hash(&f->c, f->b, bt_hash(f, KEYS + i));
	buckets = f->c.range;
	expect = trials * 2 * KEYS / buckets / values;
	sigma = int_sqrt(expect) + 1;
	KUNIT_EXPECT_LE(test, fp, expect + 3 * sigma);
	KUNIT_EXPECT_GE(test, fp + 3 * sigma, expect);
	for (i = 0; i < 2; i++)		/* added twice: two deletes */
		KUNIT_EXPECT_EQ(test, bloom_cuckoo_delete(&f->c, f->b,
							  bt_hash(f, 5), NULL),
				0);
	KUNIT_EXPECT_EQ(test, bloom_cuckoo_delete(&f->c, f->b, bt_hash(f, 5),
						  NULL), -ENOENT);
}

/*
 * Fill a small table until an add fails: the failed add leaves every
 * word and the count as they were, and every key added before it is
 * still found.
 */
static void failed_insert_changes_nothing(struct kunit *test)
{
	struct bloom_geom g = { .layout = BLOOM_LAYOUT_CUCKOO, .hashes = 8,
				.bits = 101 * 4 * 8, .capacity = 404,
				.seed = 3 };
	struct bt_filter *f = bt_filter_new(test, &g);
	size_t bytes = bloom_array_bytes(&f->c);
	struct bloom_cuckoo_node *q;
	u64 moves = 0, i, stored = 0, *before;
	int ret = 0;

	q = bt_alloc(test, sizeof(*q) * BLOOM_CUCKOO_NODES);
	before = bt_alloc(test, bytes);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_NOT_NULL(test, before);
	for (i = 0; i < 2000 && ret >= 0; i++) {
		memcpy(before, f->b->words, bytes);
		ret = insert(f, q, i, &moves);
		stored += ret >= 0;	/* each add stores a copy */
	}
	KUNIT_ASSERT_EQ(test, ret, -ENOSPC);
	KUNIT_EXPECT_EQ(test, memcmp(before, f->b->words, bytes), 0);
	KUNIT_EXPECT_EQ(test, bloom_word_read(&f->b->inserted), stored);
	/* It failed past 90 % of the slots: the search does its job. */
	KUNIT_EXPECT_GE(test, stored * 100, 404ULL * 90);
	for (i = i - 1; i--;)
		KUNIT_EXPECT_TRUE(test, bloom_test_hash(&f->c, f->b,
							bt_hash(f, i)));
}

struct watch {
	struct kunit *test;
	struct bt_filter *f;
	u64 stored;		/* keys 0 .. stored - 1 are in the table */
	u64 checks;
	bool lost;
};

/* Every key already in the table is findable at this moment. */
static void all_findable(void *arg, u64 bucket)
{
	struct watch *w = arg;
	u64 i;

	for (i = 0; i < w->stored && !w->lost; i++)
		w->lost = !bloom_test_hash(&w->f->c, w->f->b, bt_hash(w->f, i));
	w->checks++;
}

static void before_write(void *arg, u64 bucket, bool move)
{
	all_findable(arg, bucket);
}

/*
 * What a lockless reader may see between the writes of a move: just
 * before the erase, and just after it, every stored key is still in one
 * of its buckets (the copy came first). Only the erase is bracketed by
 * the kernel's sequence counts, so this order is what makes it safe.
 */
static void moves_copy_before_they_erase(struct kunit *test)
{
	struct bloom_geom g = { .layout = BLOOM_LAYOUT_CUCKOO, .hashes = 8,
				.bits = 61 * 4 * 8, .capacity = 244,
				.seed = 5 };
	struct watch w = { .test = test };
	struct bloom_cuckoo_mover mv = { before_write, all_findable, &w };
	struct bloom_cuckoo_node *q;
	u64 moves = 0;

	w.f = bt_filter_new(test, &g);
	q = bt_alloc(test, sizeof(*q) * BLOOM_CUCKOO_NODES);
	KUNIT_ASSERT_NOT_NULL(test, q);
	while (w.stored < 1000 &&
	       bloom_cuckoo_insert(&w.f->c, w.f->b, bt_hash(w.f, w.stored), q,
				   &mv, &moves, true) >= 0)
		w.stored++;
	KUNIT_EXPECT_FALSE(test, w.lost);
	KUNIT_EXPECT_GT(test, moves, 10ULL);
	/* Before and after each write: a copy and an erase per move. */
	KUNIT_EXPECT_EQ(test, w.checks, 2 * (2 * moves + w.stored));
}

/*
 * With 4-bit fingerprints many keys share one with another key in the
 * same buckets. Each add stores a copy, so deleting half of the keys
 * added leaves every other one present: a delete takes only its own.
 */
static void deletes_take_only_their_own_copy(struct kunit *test)
{
	struct bloom_geom g = { .layout = BLOOM_LAYOUT_CUCKOO, .hashes = 4,
				.bits = 500 * 4 * 4, .capacity = 1500,
				.seed = 9 };
	struct bt_filter *f = bt_filter_new(test, &g);
	struct bloom_cuckoo_node *q;
	u64 moves = 0, i, shared = 0;

	q = bt_alloc(test, sizeof(*q) * BLOOM_CUCKOO_NODES);
	KUNIT_ASSERT_NOT_NULL(test, q);
	for (i = 0; i < 1500; i++) {
		int ret = insert(f, q, i, &moves);

		KUNIT_ASSERT_TRUE(test, ret >= 0);
		shared += ret;
	}
	KUNIT_EXPECT_GT(test, shared, 10ULL);	/* the case arose */
	for (i = 0; i < 1500; i += 2)
		KUNIT_ASSERT_EQ(test, bloom_cuckoo_delete(&f->c, f->b,
							  bt_hash(f, i), NULL),
				0);
	for (i = 1; i < 1500; i += 2)
		KUNIT_EXPECT_TRUE(test, bloom_test_hash(&f->c, f->b,
							bt_hash(f, i)));
}

/*
 * Values beside fingerprints, for every value width and a few
 * fingerprint widths (f = 32 without values too): filled to its
 * capacity (moves happen), each key no other shares a fingerprint with
 * in its buckets answers with its own value; and the word-at-a-time
 * bucket test agrees with the slot-by-slot search for every key probed,
 * values or not.
 */
static void values_survive_moves(struct kunit *test)
{
	static const struct { u32 f, v; } t[] = {
		{ 4, 8 }, { 8, 8 }, { 10, 3 }, { 12, 4 }, { 13, 1 },
		{ 16, 8 }, { 24, 8 }, { 31, 1 }, { 32, 0 },
	};
	struct bloom_cuckoo_node *q = bt_alloc(test, sizeof(*q) *
					       BLOOM_CUCKOO_NODES);
	unsigned int n;

	KUNIT_ASSERT_NOT_NULL(test, q);
	for (n = 0; n < ARRAY_SIZE(t); n++) {
		u32 w = t[n].f + t[n].v, mask = (1U << t[n].v) - 1;
		struct bloom_geom g = {
			.key_type = BLOOM_KEY_BYTES, .seed = 11 + n,
			.layout = BLOOM_LAYOUT_CUCKOO, .hashes = t[n].f,
			.value_bits = t[n].v, .bits = 997ULL * 4 * w,
		};
		struct bt_filter *f = bt_filter_new(test, &g);
		u64 i, moves = 0, added = 0, keys = 997 * 4 * 9 / 10;

		for (i = 0; i < keys; i++)
			added += bloom_cuckoo_insert_within(&f->c, f->b,
					bt_hash(f, i), (u32)(i * 7) & mask, q,
					BLOOM_CUCKOO_NODES, NULL, &moves,
					true) >= 0;
		KUNIT_EXPECT_TRUE_MSG(test, moves > 0, "f %u v %u", t[n].f,
				      t[n].v);
		for (i = 0; i < keys + 2000; i++) {
			struct bloom_cuckoo_key k;
			u32 value = ~0U;
			bool slow;

			bloom_cuckoo_key(&f->c, bt_hash(f, i), &k);
			slow = bloom_cuckoo_find(&f->c, f->b, k.i1, k.fp) >= 0 ||
			       bloom_cuckoo_find(&f->c, f->b, k.i2, k.fp) >= 0;
			KUNIT_ASSERT_EQ_MSG(test,
					    bloom_cuckoo_present(&f->c, f->b, &k),
					    slow, "f %u v %u key %llu",
					    t[n].f, t[n].v,
					    (unsigned long long)i);
			if (i >= added ||
			    bloom_cuckoo_matches(&f->c, f->b, &k) != 1)
				continue;
			KUNIT_ASSERT_TRUE(test, bloom_cuckoo_value(&f->c, f->b,
								   &k, &value));
			KUNIT_ASSERT_EQ_MSG(test, value, (u32)(i * 7) & mask,
					    "f %u v %u key %llu", t[n].f,
					    t[n].v, (unsigned long long)i);
		}
	}
}

static struct kunit_case cuckoo_cases[] = {
	KUNIT_CASE(alt_is_its_own_inverse),
	KUNIT_CASE(sizing_picks_the_narrowest_fingerprint),
	KUNIT_CASE(geometry_refuses_bad_tables),
	KUNIT_CASE(holds_capacity_and_deletes_back_to_empty),
	KUNIT_CASE(answers_and_rate_match_theory),
	KUNIT_CASE(failed_insert_changes_nothing),
	KUNIT_CASE(moves_copy_before_they_erase),
	KUNIT_CASE(deletes_take_only_their_own_copy),
	KUNIT_CASE(values_survive_moves),
	{}
};

static struct kunit_suite bloom_cuckoo_suite = {
	.name = "bloom_cuckoo",
	.test_cases = cuckoo_cases,
};

kunit_test_suites(&bloom_cuckoo_suite);
