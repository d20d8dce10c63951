// SPDX-License-Identifier: GPL-2.0
/* KUnit: stats, estimates and set algebra against exact set sizes. */
#include "bloom_test.h"

BT_LAYOUT_PARAMS();

/* Power-of-two probe ranges so that halving applies to every layout. */
static struct bt_filter *pow2_filter(struct kunit *test, u8 layout)
{
	struct bloom_geom g = { .bits = 1 << 18, .hashes = 4, .seed = 11,
				.layout = layout };

	return bt_filter_new(test, &g);
}

/* The same, holding net keys. */
static struct bt_filter *net_filter(struct kunit *test, u8 layout)
{
	struct bloom_geom g = { .bits = 1 << 18, .hashes = 4, .seed = 11,
				.layout = layout, .key_type = BLOOM_KEY_NET };

	return bt_filter_new(test, &g);
}

/* The net key of the IPv4 prefix @v4/@plen (v4-mapped: 96 + @plen). */
static struct bloom_key_net net_key(u32 v4, unsigned int plen)
{
	struct bloom_key_net k = { .addr = { [10] = 0xff, [11] = 0xff },
				   .plen = plen };

	k.addr[12] = v4 >> 24;
	k.addr[13] = v4 >> 16;
	k.addr[14] = v4 >> 8;
	k.addr[15] = v4;
	bloom_net_mask(k.addr, plen);
	return k;
}

/* Adds the IPv4 prefix @v4/@plen as ADD does: the key and its length. */
static void net_add(struct bt_filter *f, u32 v4, unsigned int plen)
{
	struct bloom_key_net k = net_key(v4, 96 + plen);

	bloom_add_hash(&f->c, f->b, bloom_hash(&f->c, &k, sizeof(k)));
	bloom_note_plen(f->b, k.plen);
}

/* As bloom_test_net(): @v4 probed at each prefix length @f records. */
static bool net_test(const struct bt_filter *f, u32 v4)
{
	int plen;

	for (plen = 128; plen >= 0; plen--) {
		struct bloom_key_net k = net_key(v4, plen);

		if (!(bloom_word_read(&f->b->plens[plen / 64]) &
		      (1ULL << (plen % 64))))
			continue;
		if (bloom_test_hash(&f->c, f->b,
				    bloom_hash(&f->c, &k, sizeof(k))))
			return true;
	}
	return false;
}

/* Adds keys [from, to). */
static void add_keys(struct bt_filter *f, u64 from, u64 to)
{
	for (; from < to; from++)
		bt_add(f, from);
}

static u64 *hist_new(struct kunit *test)
{
	u64 *hist = bt_alloc(test, BLOOM_HIST_WORDS * sizeof(u64));

	KUNIT_ASSERT_NOT_NULL(test, hist);
	return hist;
}

/* |est - exact| <= exact * pct / 100 */
#define EXPECT_NEAR_PCT(test, est, exact, pct) do {			\
		KUNIT_EXPECT_LE(test, (est), (exact) + (exact) * (pct) / 100); \
		KUNIT_EXPECT_GE(test, (est), (exact) - (exact) * (pct) / 100); \
	} while (0)

static void stats_estimate_cardinality(struct kunit *test)
{
	struct bt_filter *f = pow2_filter(test, *(u8 *)test->param_value);
	struct bloom_stats st;
	u64 theory;

	add_keys(f, 0, 20000);
	bloom_stats(&f->c, f->b, hist_new(test), &st);
	EXPECT_NEAR_PCT(test, st.est_card, 20000ULL, 3);
	/* Keys that were false positives when added set no bit. */
	KUNIT_EXPECT_LE(test, st.inserted, 20000ULL);
	KUNIT_EXPECT_GE(test, st.inserted, 20000ULL * 99 / 100);
	KUNIT_EXPECT_EQ(test, st.mem_bytes, bloom_array_bytes(&f->c));
	KUNIT_EXPECT_EQ(test, st.fill_ppb, st.bits_set * BLOOM_PPB / f->c.g.bits);
	theory = bloom_theory_fpr_ppb(&f->c.g, 20000);
	EXPECT_NEAR_PCT(test, st.est_fpr_ppb, theory, 10);
}

static void union_holds_both_sets(struct kunit *test)
{
	u8 layout = *(u8 *)test->param_value;
	struct bt_filter *a = pow2_filter(test, layout);
	struct bt_filter *b = pow2_filter(test, layout);
	u64 i, missing = 0, est;

	add_keys(a, 0, 15000);
	add_keys(b, 10000, 25000);
	est = bloom_est_union(&a->c, a->b, b->b, hist_new(test));
	EXPECT_NEAR_PCT(test, est, 25000ULL, 4);
	bloom_union(&a->c, a->b, b->b);
	for (i = 0; i < 25000; i++)
		missing += !bt_test(a, i);
	KUNIT_EXPECT_EQ(test, missing, 0ULL);
}

/*
 * A net filter probes only the prefix lengths it records: a union that
 * took the bits of 10.0.0.0/8 but not its length would answer 10.1.2.3
 * absent.
 */
static void union_merges_prefix_lengths(struct kunit *test)
{
	u8 layout = *(u8 *)test->param_value;
	struct bt_filter *a = net_filter(test, layout);
	struct bt_filter *b = net_filter(test, layout);
	u64 want[BLOOM_PLEN_WORDS] = {};
	int i;

	net_add(a, 0xc0000200, 24);		/* 192.0.2.0/24 */
	net_add(b, 0x0a000000, 8);		/* 10.0.0.0/8 */
	KUNIT_EXPECT_FALSE(test, net_test(a, 0x0a010203));
	bloom_union(&a->c, a->b, b->b);
	KUNIT_EXPECT_TRUE(test, net_test(a, 0x0a010203));	/* 10.1.2.3 */
	KUNIT_EXPECT_TRUE(test, net_test(a, 0xc0000209));	/* 192.0.2.9 */
	KUNIT_EXPECT_FALSE(test, net_test(a, 0xcb007101));	/* 203.0.113.1 */
	want[(96 + 8) / 64] |= 1ULL << ((96 + 8) % 64);
	want[(96 + 24) / 64] |= 1ULL << ((96 + 24) % 64);
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		KUNIT_EXPECT_EQ(test, bloom_word_read(&a->b->plens[i]), want[i]);
}

static void intersection_keeps_common_keys(struct kunit *test)
{
	u8 layout = *(u8 *)test->param_value;
	struct bt_filter *a = pow2_filter(test, layout);
	struct bt_filter *b = pow2_filter(test, layout);
	u64 i, missing = 0, stray = 0, est;

	add_keys(a, 0, 15000);
	add_keys(b, 10000, 25000);
	est = bloom_est_intersection(&a->c, a->b, b->b, hist_new(test));
	EXPECT_NEAR_PCT(test, est, 5000ULL, 10);
	bloom_intersect(&a->c, a->b, b->b);
	for (i = 10000; i < 15000; i++)
		missing += !bt_test(a, i);
	for (i = 0; i < 10000; i++)
		stray += bt_test(a, i);
	KUNIT_EXPECT_EQ(test, missing, 0ULL);
	/* Keys of A alone survive only where B's bits cover them. */
	KUNIT_EXPECT_LT(test, stray, 1000ULL);
}

static void halve_keeps_every_key(struct kunit *test)
{
	struct bt_filter *f = pow2_filter(test, *(u8 *)test->param_value);
	struct bloom_geom half;
	struct bt_filter *h;
	u64 i, missing = 0;

	add_keys(f, 0, 10000);
	KUNIT_ASSERT_EQ(test, bloom_halve_geom(&f->c.g, &half), 0);
	KUNIT_EXPECT_EQ(test, half.bits, f->c.g.bits / 2);
	h = bt_filter_new(test, &half);
	bloom_halve(&f->c, f->b, &h->c, h->b);
	for (i = 0; i < 10000; i++)
		missing += !bt_test(h, i);
	KUNIT_EXPECT_EQ(test, missing, 0ULL);
	KUNIT_EXPECT_EQ(test, bloom_word_read(&h->b->inserted),
			bloom_word_read(&f->b->inserted));
}

/* The half-size filter probes the prefix lengths the full one held. */
static void halve_keeps_prefix_lengths(struct kunit *test)
{
	struct bt_filter *f = net_filter(test, *(u8 *)test->param_value);
	struct bloom_geom half;
	struct bt_filter *h;
	int i;

	net_add(f, 0x0a000000, 8);		/* 10.0.0.0/8 */
	net_add(f, 0xc0000200, 24);		/* 192.0.2.0/24 */
	KUNIT_ASSERT_EQ(test, bloom_halve_geom(&f->c.g, &half), 0);
	h = bt_filter_new(test, &half);
	bloom_halve(&f->c, f->b, &h->c, h->b);
	KUNIT_EXPECT_TRUE(test, net_test(h, 0x0a010203));	/* 10.1.2.3 */
	KUNIT_EXPECT_TRUE(test, net_test(h, 0xc0000209));	/* 192.0.2.9 */
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		KUNIT_EXPECT_EQ(test, bloom_word_read(&h->b->plens[i]),
				bloom_word_read(&f->b->plens[i]));
}

/*
 * Probes are multiply-shift: a probe of the half-size filter is the full
 * one's divided by two, so halving gives exactly the filter that adding
 * the same keys at half the size gives, no bit more (a halve that set
 * every bit would still keep every key).
 */
static void halve_equals_half_size_filter(struct kunit *test)
{
	struct bt_filter *f = pow2_filter(test, *(u8 *)test->param_value);
	struct bt_filter *h, *direct;
	struct bloom_geom half;
	u64 i, differ = 0;

	add_keys(f, 0, 10000);
	KUNIT_ASSERT_EQ(test, bloom_halve_geom(&f->c.g, &half), 0);
	h = bt_filter_new(test, &half);
	direct = bt_filter_new(test, &half);
	bloom_halve(&f->c, f->b, &h->c, h->b);
	add_keys(direct, 0, 10000);
	for (i = 0; i < h->c.nwords; i++)
		differ += bloom_word_read(&h->b->words[i]) !=
			  bloom_word_read(&direct->b->words[i]);
	KUNIT_EXPECT_EQ(test, differ, 0ULL);
}

static void halve_rejects_odd_range(struct kunit *test)
{
	struct bloom_geom g = { .bits = 3 * 512, .hashes = 4 }, out;

	KUNIT_EXPECT_EQ(test, bloom_halve_geom(&g, &out), -EINVAL);
	g.bits = 512;
	KUNIT_EXPECT_EQ(test, bloom_halve_geom(&g, &out), -EINVAL);
	g.layout = BLOOM_LAYOUT_STANDARD;
	g.bits = 1000;
	KUNIT_EXPECT_EQ(test, bloom_halve_geom(&g, &out), -EINVAL);
}

static void combine_refuses_other_geometry(struct kunit *test)
{
	struct bt_filter *a = pow2_filter(test, BLOOM_LAYOUT_BLOCKED);
	struct bloom_core c = a->c;

	KUNIT_EXPECT_EQ(test, bloom_geom_same(&a->c, &c), 0);
	c.g.seed++;
	KUNIT_EXPECT_EQ(test, bloom_geom_same(&a->c, &c), -EINVAL);
	c = a->c;
	c.g.hashes++;
	KUNIT_EXPECT_EQ(test, bloom_geom_same(&a->c, &c), -EINVAL);
	c = a->c;
	c.g.key_type = BLOOM_KEY_ADDR;
	KUNIT_EXPECT_EQ(test, bloom_geom_same(&a->c, &c), -EINVAL);
}

static struct kunit_case algebra_cases[] = {
	KUNIT_CASE_PARAM(stats_estimate_cardinality, layout_gen_params),
	KUNIT_CASE_PARAM(union_holds_both_sets, layout_gen_params),
	KUNIT_CASE_PARAM(union_merges_prefix_lengths, layout_gen_params),
	KUNIT_CASE_PARAM(intersection_keeps_common_keys, layout_gen_params),
	KUNIT_CASE_PARAM(halve_keeps_every_key, layout_gen_params),
	KUNIT_CASE_PARAM(halve_keeps_prefix_lengths, layout_gen_params),
	KUNIT_CASE_PARAM(halve_equals_half_size_filter, layout_gen_params),
	KUNIT_CASE(halve_rejects_odd_range),
	KUNIT_CASE(combine_refuses_other_geometry),
	{}
};

static struct kunit_suite bloom_algebra_suite = {
	.name = "bloom_algebra",
	.test_cases = algebra_cases,
};

kunit_test_suites(&bloom_algebra_suite);
