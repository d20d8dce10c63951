// SPDX-License-Identifier: GPL-2.0
/* KUnit: add, test, delete and count on every layout. */
#include "bloom_test.h"
#include "vectors.h"

BT_LAYOUT_PARAMS();

/* A filter sized for @n keys at @ppb, seed fixed so runs repeat. */
static struct bt_filter *sized_filter(struct kunit *test, u8 layout, u64 n,
				      u64 ppb)
{
	struct bloom_geom g = { .seed = 0x5eed, .flags = BLOOM_F_FIXED_SEED };

	KUNIT_ASSERT_EQ(test, bloom_geom_size(n, ppb, layout, &g), 0);
	return bt_filter_new(test, &g);
}

static void filter_has_no_false_negatives(struct kunit *test)
{
	struct bt_filter *f = sized_filter(test, *(u8 *)test->param_value,
					   100000, 10000000);
	u64 i, missing = 0;

	for (i = 0; i < 100000; i++)
		bt_add(f, i);
	for (i = 0; i < 100000; i++)
		missing += !bt_test(f, i);
	KUNIT_EXPECT_EQ_MSG(test, missing, 0ULL, "keys lost after add");
}

/*
 * The measured rate over 10^6 keys never added must lie within three
 * standard deviations of the layout's exact expected rate. The deviation
 * counts the sampling (binomial) spread and the spread of the filter's
 * own fill, whose relative variance is at most 1/m per probe.
 */
struct fpr_case {
	u8 layout;
	u64 ppb;
};

/* 1 % needs k ~ 7, 0.1 % k ~ 10: past the first word of in-block fields. */
static const struct fpr_case fpr_cases[] = {
	{ BLOOM_LAYOUT_BLOCKED, 10000000 }, { BLOOM_LAYOUT_BLOCKED, 1000000 },
	{ BLOOM_LAYOUT_STANDARD, 10000000 }, { BLOOM_LAYOUT_STANDARD, 1000000 },
	{ BLOOM_LAYOUT_PARTITIONED, 10000000 },
	{ BLOOM_LAYOUT_PARTITIONED, 1000000 },
	{ BLOOM_LAYOUT_COUNTING, 10000000 }, { BLOOM_LAYOUT_COUNTING, 1000000 },
};

static void fpr_desc(const struct fpr_case *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s at %llu ppb",
		 bt_layout_names[t->layout], (unsigned long long)t->ppb);
}

KUNIT_ARRAY_PARAM(fpr, fpr_cases, fpr_desc);

static void filter_fpr_matches_theory(struct kunit *test)
{
	const struct fpr_case *t = test->param_value;
	const u64 n = 100000, probes = 1000000;
	struct bt_filter *f = sized_filter(test, t->layout, n, t->ppb);
	u64 i, fp = 0, p_ppb, expect, var, sd;

	for (i = 0; i < n; i++)
		bt_add(f, i);
	for (i = n; i < n + probes; i++)
		fp += bt_test(f, i);
	p_ppb = bloom_theory_fpr_ppb(&f->c.g, n);
	expect = probes * p_ppb / BLOOM_PPB;
	var = expect * (BLOOM_PPB - p_ppb) / BLOOM_PPB +
	      expect * expect * f->c.g.hashes * f->c.g.hashes / f->c.g.bits;
	sd = int_sqrt(var);
	kunit_info(test, "%s k=%u: %llu false positives, theory %llu, sd %llu\n",
		   bt_layout_names[f->c.g.layout], f->c.g.hashes,
		   (unsigned long long)fp,
		   (unsigned long long)expect, (unsigned long long)sd);
	KUNIT_EXPECT_LE(test, fp, expect + 3 * sd);
	KUNIT_EXPECT_GE(test, fp, expect - 3 * sd);
}

static void filter_add_reports_new_once(struct kunit *test)
{
	struct bt_filter *f = sized_filter(test, *(u8 *)test->param_value,
					   1000, 1000000);

	KUNIT_EXPECT_FALSE(test, bt_test(f, 42));
	KUNIT_EXPECT_TRUE(test, bt_add(f, 42));
	KUNIT_EXPECT_FALSE(test, bt_add(f, 42));
	KUNIT_EXPECT_TRUE(test, bt_test(f, 42));
	/* The duplicate set no bit: it is not counted. */
	KUNIT_EXPECT_EQ(test, bloom_word_read(&f->b->inserted), 1ULL);
}

static void filter_batch_agrees_with_single(struct kunit *test)
{
	u8 layout = *(u8 *)test->param_value;
	struct bt_filter *f = sized_filter(test, layout, 2000, 10000000);
	struct bt_filter *one = sized_filter(test, layout, 2000, 10000000);
	u64 *h = bt_alloc(test, 4000 * sizeof(u64));
	u64 present[4000 / 64 + 1], w;
	u32 i, hits, new = 0;

	KUNIT_ASSERT_NOT_NULL(test, h);
	for (i = 0; i < 4000; i++)
		h[i] = bt_hash(f, i);
	for (i = 0; i < 2000; i++)
		new += bt_add(one, i);
	KUNIT_EXPECT_EQ(test, bloom_add_batch(&f->c, f->b, h, 2000), new);
	for (w = 0; w < f->c.nwords; w++)
		KUNIT_EXPECT_EQ(test, bloom_word_read(&f->b->words[w]),
				bloom_word_read(&one->b->words[w]));
	hits = bloom_test_batch(&f->c, f->b, h, 4000, present);
	for (i = 0; i < 4000; i++) {
		bool bit = present[i / 64] >> (i % 64) & 1;

		KUNIT_EXPECT_EQ(test, bit, bt_test(f, i));
		hits -= bit;
	}
	KUNIT_EXPECT_EQ(test, hits, 0U);
}

/*
 * Batches go by chunks (64 keys of a blocked filter, 8 of the others):
 * every length around a chunk or a word, and none, answers as single
 * tests do, and the bits past the last key in the bitmap's last word
 * are cleared (userspace receives that word).
 */
static void filter_batch_lengths(struct kunit *test)
{
	static const u32 lens[] = { 0, 1, 7, 8, 9, 63, 64, 65, 127, 129, 4001 };
	u8 layout = *(u8 *)test->param_value;
	struct bt_filter *f = sized_filter(test, layout, 1000, 10000000);
	u64 *h = bt_alloc(test, 4001 * sizeof(u64)), present[4001 / 64 + 2];
	u32 i, j, n, hits, want;

	KUNIT_ASSERT_NOT_NULL(test, h);
	for (i = 0; i < 1000; i++)
		bt_add(f, 2 * i);	/* even keys present, odd mostly absent */
	for (i = 0; i < 4001; i++)
		h[i] = bt_hash(f, i);
	for (j = 0; j < ARRAY_SIZE(lens); j++) {
		n = lens[j];
		memset(present, 0xff, sizeof(present));
		hits = bloom_test_batch(&f->c, f->b, h, n, present);
		for (i = want = 0; i < n; i++) {
			bool bit = present[i / 64] >> (i % 64) & 1;

			KUNIT_EXPECT_EQ_MSG(test, bit, bt_test(f, i),
					    "key %u of %u", i, n);
			want += bt_test(f, i);
		}
		KUNIT_EXPECT_EQ_MSG(test, hits, want, "%u keys", n);
		if (n % 64)
			KUNIT_EXPECT_EQ_MSG(test, present[n / 64] >> (n % 64),
					    0ULL, "bits past %u keys", n);
	}
}

/* The bulk-load path sets the same bits and counts the same new keys. */
static void filter_load_batch_agrees_with_add(struct kunit *test)
{
	u8 layout = *(u8 *)test->param_value;
	struct bt_filter *f = sized_filter(test, layout, 2000, 10000000);
	struct bt_filter *one = sized_filter(test, layout, 2000, 10000000);
	u64 *h = bt_alloc(test, 3000 * sizeof(u64));
	u32 i, new = 0;
	u64 w;

	KUNIT_ASSERT_NOT_NULL(test, h);
	for (i = 0; i < 3000; i++)	/* the last 1000 are repeats */
		h[i] = bt_hash(f, i % 2000);
	for (i = 0; i < 3000; i++)
		new += bt_add(one, i % 2000);
	KUNIT_EXPECT_EQ(test, bloom_load_batch(&f->c, f->b, h, 3000), new);
	KUNIT_EXPECT_EQ(test, bloom_word_read(&f->b->inserted),
			bloom_word_read(&one->b->inserted));
	for (w = 0; w < f->c.nwords; w++)
		KUNIT_EXPECT_EQ_MSG(test, bloom_word_read(&f->b->words[w]),
				    bloom_word_read(&one->b->words[w]),
				    "word %llu", (unsigned long long)w);
}

/*
 * A key tests present only with every one of its bits set: clearing any
 * single one of a vector's bits makes it absent again.
 */
static void filter_test_needs_every_bit(struct kunit *test)
{
	const struct bloom_vector *v;
	int i;

	for (v = bloom_vectors; v < bloom_vectors + ARRAY_SIZE(bloom_vectors);
	     v++) {
		struct bloom_geom g = { .bits = v->bits, .hashes = v->hashes,
					.layout = v->layout, .seed = v->seed };
		struct bt_filter *f;
		u64 h;

		if (v->layout == BLOOM_LAYOUT_COUNTING)
			continue;
		f = bt_filter_new(test, &g);
		h = bloom_hash(&f->c, v->key, v->key_len);
		bloom_add_hash(&f->c, f->b, h);
		KUNIT_EXPECT_TRUE(test, bloom_test_hash(&f->c, f->b, h));
		for (i = 0; i < v->npos; i++) {
			bloom_word_t *w = &f->b->words[v->pos[i] / 64];
			u64 bit = 1ULL << (v->pos[i] % 64);

			bloom_word_and(w, ~bit);
			KUNIT_EXPECT_EQ_MSG(test,
					    bloom_test_hash(&f->c, f->b, h),
					    false, "vector %d without bit %llu",
					    (int)(v - bloom_vectors),
					    (unsigned long long)v->pos[i]);
			bloom_word_fetch_or(w, bit);
		}
	}
}

static void filter_clear_forgets_everything(struct kunit *test)
{
	struct bt_filter *f = sized_filter(test, *(u8 *)test->param_value,
					   1000, 1000000);
	struct bloom_stats st;
	u64 *hist = bt_alloc(test, BLOOM_HIST_WORDS * sizeof(u64));
	u64 i;

	KUNIT_ASSERT_NOT_NULL(test, hist);
	for (i = 0; i < 1000; i++)
		bt_add(f, i);
	bloom_bits_clear(&f->c, f->b);
	bloom_stats(&f->c, f->b, hist, &st);
	KUNIT_EXPECT_EQ(test, st.bits_set, 0ULL);
	KUNIT_EXPECT_EQ(test, st.inserted, 0ULL);
	KUNIT_EXPECT_FALSE(test, bt_test(f, 1));
}

/* The frozen vectors: exact bits for a fixed seed, same in both builds. */
static void filter_fixed_seed_sets_known_bits(struct kunit *test)
{
	const struct bloom_vector *v;

	for (v = bloom_vectors; v < bloom_vectors + ARRAY_SIZE(bloom_vectors);
	     v++) {
		struct bloom_geom g = { .bits = v->bits, .hashes = v->hashes,
					.layout = v->layout, .seed = v->seed };
		struct bt_filter *f = bt_filter_new(test, &g);
		u64 h = bloom_hash(&f->c, v->key, v->key_len);
		u64 w;
		int set = 0;

		KUNIT_EXPECT_EQ_MSG(test, h, v->hash, "xxh64 of vector %d",
				    (int)(v - bloom_vectors));
		bloom_add_hash(&f->c, f->b, h);
		for (w = 0; w < f->c.nwords; w++) {
			u64 x = bloom_word_read(&f->b->words[w]);

			for (; x; x &= x - 1, set++) {
				u64 pos = w * 64 + __builtin_ctzll(x);

				KUNIT_EXPECT_EQ_MSG(test, pos, v->pos[set],
						    "vector %d bit %d",
						    (int)(v - bloom_vectors),
						    set);
			}
		}
		KUNIT_EXPECT_EQ(test, set, v->npos);
	}
}

static void filter_seed_changes_positions(struct kunit *test)
{
	struct bloom_geom g = { .bits = 1 << 16, .hashes = 7 };
	struct bt_filter *a, *b;
	u64 w, differ = 0;

	g.seed = 1;
	a = bt_filter_new(test, &g);
	g.seed = 2;
	b = bt_filter_new(test, &g);
	bt_add(a, 7);
	bt_add(b, 7);
	for (w = 0; w < a->c.nwords; w++)
		differ += bloom_word_read(&a->b->words[w]) !=
			  bloom_word_read(&b->b->words[w]);
	KUNIT_EXPECT_GT(test, differ, 0ULL);
}

/*
 * Short keys are hashed by an inline copy of xxh64's short-input path:
 * it must give the library's value for every length under 32, at every
 * alignment, for any seed (snapshots and both builds depend on it).
 */
static void filter_short_hash_is_xxh64(struct kunit *test)
{
	struct bloom_core c = {};
	u8 buf[48];
	u32 len, off, i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i * 131 + 7;
	for (len = 0; len < 40; len++) {
		for (off = 0; off < 8; off++) {
			c.g.seed = 0x0123456789abcdefULL * (len + off + 1);
			KUNIT_EXPECT_EQ_MSG(test, bloom_hash(&c, buf + off, len),
					    bloom_xxh64(buf + off, len, c.g.seed),
					    "length %u at offset %u", len, off);
		}
	}
}

static struct bt_filter *counting_filter(struct kunit *test)
{
	struct bloom_geom g = { .bits = 1 << 16, .hashes = 5, .seed = 3,
				.layout = BLOOM_LAYOUT_COUNTING };

	return bt_filter_new(test, &g);
}

static void counting_delete_restores_membership(struct kunit *test)
{
	struct bt_filter *f = counting_filter(test);
	u64 i, lost = 0, kept = 0;

	for (i = 0; i < 2000; i++)
		bt_add(f, i);
	for (i = 1000; i < 2000; i++)
		KUNIT_EXPECT_EQ(test, bloom_del_hash(&f->c, f->b,
						     bt_hash(f, i)), 0);
	for (i = 0; i < 1000; i++)
		lost += !bt_test(f, i);
	for (i = 1000; i < 2000; i++)
		kept += bt_test(f, i);
	KUNIT_EXPECT_EQ_MSG(test, lost, 0ULL, "deleting B removed keys of A");
	/* Deleted keys now answer like keys never added: rarely present. */
	KUNIT_EXPECT_LE(test, kept, 10ULL);
	KUNIT_EXPECT_EQ(test, bloom_word_read(&f->b->inserted), 1000ULL);
}

static void counting_delete_absent_is_enoent(struct kunit *test)
{
	struct bt_filter *f = counting_filter(test);
	struct bloom_geom g = { .bits = 1024, .hashes = 3 };
	struct bt_filter *blocked = bt_filter_new(test, &g);

	KUNIT_EXPECT_EQ(test, bloom_del_hash(&f->c, f->b, bt_hash(f, 5)),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, bloom_del_hash(&blocked->c, blocked->b,
					     bt_hash(blocked, 5)),
			-EOPNOTSUPP);
}

static void counting_count_is_min_counter(struct kunit *test)
{
	struct bt_filter *f = counting_filter(test);
	int i;

	for (i = 0; i < 3; i++)
		bt_add(f, 9);
	KUNIT_EXPECT_EQ(test, bloom_count_hash(&f->c, f->b, bt_hash(f, 9)), 3U);
	KUNIT_EXPECT_EQ(test, bloom_count_hash(&f->c, f->b, bt_hash(f, 10)),
			0U);
}

static void counting_saturation_is_sticky(struct kunit *test)
{
	struct bt_filter *f = counting_filter(test);
	u64 h = bt_hash(f, 77);
	int i;

	for (i = 0; i < 20; i++)
		bt_add(f, 77);
	KUNIT_EXPECT_EQ(test, bloom_count_hash(&f->c, f->b, h), 15U);
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_EQ(test, bloom_del_hash(&f->c, f->b, h), 0);
	KUNIT_EXPECT_EQ(test, bloom_count_hash(&f->c, f->b, h), 15U);
	KUNIT_EXPECT_TRUE(test, bt_test(f, 77));
}

static struct kunit_case filter_cases[] = {
	KUNIT_CASE_PARAM(filter_has_no_false_negatives, layout_gen_params),
	KUNIT_CASE_PARAM(filter_fpr_matches_theory, fpr_gen_params),
	KUNIT_CASE_PARAM(filter_add_reports_new_once, layout_gen_params),
	KUNIT_CASE_PARAM(filter_batch_agrees_with_single, layout_gen_params),
	KUNIT_CASE_PARAM(filter_batch_lengths, layout_gen_params),
	KUNIT_CASE_PARAM(filter_load_batch_agrees_with_add, layout_gen_params),
	KUNIT_CASE(filter_test_needs_every_bit),
	KUNIT_CASE_PARAM(filter_clear_forgets_everything, layout_gen_params),
	KUNIT_CASE(filter_fixed_seed_sets_known_bits),
	KUNIT_CASE(filter_seed_changes_positions),
	KUNIT_CASE(filter_short_hash_is_xxh64),
	{}
};

static struct kunit_case counting_cases[] = {
	KUNIT_CASE(counting_delete_restores_membership),
	KUNIT_CASE(counting_delete_absent_is_enoent),
	KUNIT_CASE(counting_count_is_min_counter),
	KUNIT_CASE(counting_saturation_is_sticky),
	{}
};

static struct kunit_suite bloom_filter_suite = {
	.name = "bloom_filter",
	.test_cases = filter_cases,
};

static struct kunit_suite bloom_counting_suite = {
	.name = "bloom_counting",
	.test_cases = counting_cases,
};

kunit_test_suites(&bloom_filter_suite, &bloom_counting_suite);
