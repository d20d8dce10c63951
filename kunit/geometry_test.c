// SPDX-License-Identifier: GPL-2.0
/* KUnit: geometry validation, sizing and the theoretical rate. */
#include "bloom_test.h"

struct bad_geom_case {
	const char *desc;
	struct bloom_geom g;
	int err;
};

static const struct bad_geom_case bad_geom_cases[] = {
	{ "k zero", { .bits = 1024, .hashes = 0 }, -EINVAL },
	{ "k over max", { .bits = 1024, .hashes = BLOOM_MAX_HASHES + 1 },
	  -EINVAL },
	{ "m below min", { .bits = 32, .hashes = 3,
	  .layout = BLOOM_LAYOUT_STANDARD }, -EINVAL },
	{ "m over cap", { .bits = BLOOM_MAX_BITS + 512, .hashes = 3 }, -E2BIG },
	{ "counting m over cap", { .bits = BLOOM_MAX_BITS / 2, .hashes = 3,
	  .layout = BLOOM_LAYOUT_COUNTING }, -E2BIG },
	{ "blocked m not whole blocks", { .bits = 1000, .hashes = 3 },
	  -EINVAL },
	{ "partitioned m not k slices", { .bits = 1000, .hashes = 3,
	  .layout = BLOOM_LAYOUT_PARTITIONED }, -EINVAL },
	{ "unknown layout", { .bits = 1024, .hashes = 3,
	  .layout = BLOOM_LAYOUT_MAX }, -EINVAL },
	{ "unknown key type", { .bits = 1024, .hashes = 3,
	  .key_type = BLOOM_KEY_MAX }, -EINVAL },
	{ "retired key type digest-v1", { .bits = 1024, .hashes = 3,
	  .key_type = BLOOM_KEY_DIGEST_V1 }, -EINVAL },
	{ "unknown flag", { .bits = 1024, .hashes = 3, .flags = 0x8000 },
	  -EINVAL },
	{ "both families", { .bits = 1024, .hashes = 3,
	  .key_type = BLOOM_KEY_NET, .flags = BLOOM_F_FAMILY }, -EINVAL },
	{ "a family for bytes keys", { .bits = 1024, .hashes = 3,
	  .key_type = BLOOM_KEY_BYTES, .flags = BLOOM_F_INET }, -EINVAL },
	/* Its next stages, sized from that capacity, would be huge. */
	{ "growing, first stage of 512 bits for 5e7 keys",
	  { .bits = 512, .hashes = 7, .capacity = 50000000, .stages_max = 16,
	    .growth = 2, .tighten_pct = 50 }, -EINVAL },
};

static void bad_geom_desc(const struct bad_geom_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad_geom, bad_geom_cases, bad_geom_desc);

static void geom_check_rejects_bad_geometry(struct kunit *test)
{
	const struct bad_geom_case *t = test->param_value;

	KUNIT_EXPECT_EQ(test, bloom_geom_check(&t->g), t->err);
}

static void geom_check_accepts_largest(struct kunit *test)
{
	struct bloom_geom g = { .bits = 1ULL << 34, .hashes = 8 };
	u8 layout;

	for (layout = 0; layout < BLOOM_LAYOUT_MAX; layout++) {
		if (layout == BLOOM_LAYOUT_FUSE)
			continue;	/* shaped by its keys: fuse_test.c */
		g.layout = layout;
		KUNIT_EXPECT_EQ(test, bloom_geom_check(&g), 0);
	}
}

struct size_case {
	u64 n;
	u64 ppb;
	u8 layout;
};

/* Per layout: typical, large, tight, loose, huge and degenerate requests. */
static const struct size_case size_cases[] = {
	{ 1000, 10000000, BLOOM_LAYOUT_BLOCKED },
	{ 1000000, 10000000, BLOOM_LAYOUT_BLOCKED },
	{ 100000, 1000000, BLOOM_LAYOUT_BLOCKED },
	{ 50000, 100000000, BLOOM_LAYOUT_BLOCKED },
	{ 10000000, 100000, BLOOM_LAYOUT_BLOCKED },
	{ 1, 500000000, BLOOM_LAYOUT_BLOCKED },
	{ 1000, 10000000, BLOOM_LAYOUT_STANDARD },
	{ 1000000, 10000000, BLOOM_LAYOUT_STANDARD },
	{ 100000, 1000000, BLOOM_LAYOUT_STANDARD },
	{ 50000, 100000000, BLOOM_LAYOUT_STANDARD },
	{ 10000000, 100000, BLOOM_LAYOUT_STANDARD },
	{ 1, 500000000, BLOOM_LAYOUT_STANDARD },
	{ 1000, 10000000, BLOOM_LAYOUT_PARTITIONED },
	{ 1000000, 10000000, BLOOM_LAYOUT_PARTITIONED },
	{ 100000, 1000000, BLOOM_LAYOUT_PARTITIONED },
	{ 50000, 100000000, BLOOM_LAYOUT_PARTITIONED },
	{ 10000000, 100000, BLOOM_LAYOUT_PARTITIONED },
	{ 1, 500000000, BLOOM_LAYOUT_PARTITIONED },
	{ 1000, 10000000, BLOOM_LAYOUT_COUNTING },
	{ 1000000, 10000000, BLOOM_LAYOUT_COUNTING },
	{ 100000, 1000000, BLOOM_LAYOUT_COUNTING },
	{ 50000, 100000000, BLOOM_LAYOUT_COUNTING },
	{ 10000000, 100000, BLOOM_LAYOUT_COUNTING },
	{ 1, 500000000, BLOOM_LAYOUT_COUNTING },
};

static void size_desc(const struct size_case *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s n=%llu fpr=%llu ppb",
		 bt_layout_names[t->layout], (unsigned long long)t->n,
		 (unsigned long long)t->ppb);
}

KUNIT_ARRAY_PARAM(size, size_cases, size_desc);

/* Bits per key can never beat log2(1/e) / ln 2 ~ 1.44 log2(1/e). */
static u64 info_bound_milli(u64 ppb)
{
	s64 ln_inv = bloom_fx_ln(BLOOM_PPB << 32) - bloom_fx_ln(ppb << 32);

	/* ln(1/e) / ln(2)^2, in thousandths of a bit */
	return bloom_mul_div((u64)ln_inv, 1000 * 1000000ULL, 480453ULL << 32);
}

static void geom_size_is_smallest_meeting_target(struct kunit *test)
{
	const struct size_case *t = test->param_value;
	struct bloom_geom g = {}, smaller;
	u64 unit, milli;

	KUNIT_ASSERT_EQ(test, bloom_geom_size(t->n, t->ppb, t->layout, &g), 0);
	KUNIT_EXPECT_EQ(test, bloom_geom_check(&g), 0);
	KUNIT_EXPECT_LE(test, bloom_theory_fpr_ppb(&g, t->n), t->ppb);

	/* One unit less with the same k misses the target (or the minimum). */
	unit = t->layout == BLOOM_LAYOUT_BLOCKED ? BLOOM_BLOCK_BITS :
	       t->layout == BLOOM_LAYOUT_PARTITIONED ? g.hashes : 1;
	smaller = g;
	smaller.bits -= unit;
	if (smaller.bits >= BLOOM_MIN_BITS)
		KUNIT_EXPECT_GT(test, bloom_theory_fpr_ppb(&smaller, t->n),
				t->ppb - t->ppb / 10000);

	milli = bloom_mul_div(g.bits, 1000, t->n);
	if (t->n >= 1000)
		KUNIT_EXPECT_GE(test, milli, info_bound_milli(t->ppb));
}

static void geom_size_meets_acceptance_bounds(struct kunit *test)
{
	struct bloom_geom g = {};

	KUNIT_ASSERT_EQ(test, bloom_geom_size(1000000, 10000000,
					      BLOOM_LAYOUT_STANDARD, &g), 0);
	KUNIT_EXPECT_LE(test, g.bits, 9600000ULL);
	KUNIT_EXPECT_EQ(test, g.hashes, 7U);
	KUNIT_ASSERT_EQ(test, bloom_geom_size(1000000, 10000000,
					      BLOOM_LAYOUT_BLOCKED, &g), 0);
	KUNIT_EXPECT_LE(test, g.bits, 10000000ULL);
	KUNIT_EXPECT_GT(test, g.bits, 9600000ULL);
}

struct bad_size_case {
	const char *desc;
	u64 n, ppb;
	u8 layout;
	int err;
};

static const struct bad_size_case bad_size_cases[] = {
	{ "n zero", 0, 10000000, 0, -EINVAL },
	{ "rate zero", 1000, 0, 0, -EINVAL },
	{ "rate over half", 1000, 500000001, 0, -EINVAL },
	{ "unknown layout", 1000, 10000000, BLOOM_LAYOUT_MAX, -EINVAL },
	{ "beyond the cap", 1ULL << 40, 10000000, 0, -E2BIG },
	{ "too many for the rate", 1ULL << 36, 1, 0, -E2BIG },
};

static void bad_size_desc(const struct bad_size_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad_size, bad_size_cases, bad_size_desc);

static void geom_size_rejects_absurd_requests(struct kunit *test)
{
	const struct bad_size_case *t = test->param_value;
	struct bloom_geom g = {};

	KUNIT_EXPECT_EQ(test, bloom_geom_size(t->n, t->ppb, t->layout, &g),
			t->err);
}

static void theory_fpr_matches_closed_form(struct kunit *test)
{
	/* m = 9585059, k = 7, n = 10^6: (1 - e^(-kn/m))^k = 1.0039 % */
	struct bloom_geom g = { .bits = 9585059, .hashes = 7,
				.layout = BLOOM_LAYOUT_STANDARD };
	u64 ppb = bloom_theory_fpr_ppb(&g, 1000000);

	KUNIT_EXPECT_GE(test, ppb, 10030000ULL);
	KUNIT_EXPECT_LE(test, ppb, 10050000ULL);
	KUNIT_EXPECT_EQ(test, bloom_theory_fpr_ppb(&g, 0), 0ULL);
}

#define V4(a, b, c, d)	{ [10] = 0xff, [11] = 0xff, a, b, c, d }
#define V6_DOC		{ 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }	/* 2001:db8::1 */

/*
 * A key is IPv4 when each of its addresses is v4-mapped; a prefix only
 * inside ::ffff:0:0/96 (uapi/bloom.h). Written out by hand, not derived.
 */
static void key_family_follows_addresses(struct kunit *test)
{
	struct bloom_key_addr a4 = { .addr = V4(192, 0, 2, 1) };
	struct bloom_key_addr a6 = { .addr = V6_DOC };
	struct bloom_key_net all4 = { .addr = V4(0, 0, 0, 0), .plen = 96 };
	struct bloom_key_net net4 = { .addr = V4(10, 0, 0, 0), .plen = 104 };
	struct bloom_key_net bogon6 = { .plen = 8 };	/* ::/8 covers all4 */
	/* ::fffe:0:0/95 holds ::ffff:0:0/96 */
	struct bloom_key_net short4 = { .addr = { [10] = 0xff, [11] = 0xfe },
				       .plen = 95 };
	struct bloom_key_flow f44 = { .saddr = V4(192, 0, 2, 1),
				      .daddr = V4(192, 0, 2, 2) };
	struct bloom_key_flow f46 = { .saddr = V4(192, 0, 2, 1),
				      .daddr = V6_DOC };
	struct bloom_key_digest d = { .saddr = V4(192, 0, 2, 1),
				      .daddr = V4(192, 0, 2, 2) };

	KUNIT_EXPECT_EQ(test, bloom_key_family(BLOOM_KEY_ADDR, &a4),
			BLOOM_F_INET);
	KUNIT_EXPECT_EQ(test, bloom_key_family(BLOOM_KEY_ADDR, &a6),
			BLOOM_F_INET6);
	KUNIT_EXPECT_EQ(test, bloom_key_family(BLOOM_KEY_NET, &all4),
			BLOOM_F_INET);
	KUNIT_EXPECT_EQ(test, bloom_key_family(BLOOM_KEY_NET, &net4),
			BLOOM_F_INET);
	KUNIT_EXPECT_EQ(test, bloom_key_family(BLOOM_KEY_NET, &bogon6),
			BLOOM_F_INET6);
	KUNIT_EXPECT_EQ(test, bloom_key_family(BLOOM_KEY_NET, &short4),
			BLOOM_F_INET6);
	KUNIT_EXPECT_EQ(test, bloom_key_family(BLOOM_KEY_FLOW, &f44),
			BLOOM_F_INET);
	KUNIT_EXPECT_EQ(test, bloom_key_family(BLOOM_KEY_FLOW, &f46),
			BLOOM_F_INET6);
	KUNIT_EXPECT_EQ(test, bloom_key_family(BLOOM_KEY_DIGEST, &d),
			BLOOM_F_INET);
	d.flags = BLOOM_DIGEST_F_FRAG6;	/* an IPv6 datagram's fragment */
	KUNIT_EXPECT_EQ(test, bloom_key_family(BLOOM_KEY_DIGEST, &d),
			BLOOM_F_INET6);
	KUNIT_EXPECT_EQ(test, bloom_key_family(BLOOM_KEY_BYTES, "x"), 0);

	KUNIT_EXPECT_TRUE(test, bloom_key_family_ok(0, BLOOM_KEY_NET, &bogon6));
	KUNIT_EXPECT_TRUE(test, bloom_key_family_ok(BLOOM_F_INET6,
						    BLOOM_KEY_NET, &bogon6));
	KUNIT_EXPECT_FALSE(test, bloom_key_family_ok(BLOOM_F_INET,
						     BLOOM_KEY_NET, &bogon6));
	KUNIT_EXPECT_FALSE(test, bloom_key_family_ok(BLOOM_F_INET6,
						     BLOOM_KEY_NET, &all4));
}

static struct kunit_case geometry_cases[] = {
	KUNIT_CASE_PARAM(geom_check_rejects_bad_geometry, bad_geom_gen_params),
	KUNIT_CASE(geom_check_accepts_largest),
	KUNIT_CASE_PARAM(geom_size_is_smallest_meeting_target,
			 size_gen_params),
	KUNIT_CASE(geom_size_meets_acceptance_bounds),
	KUNIT_CASE_PARAM(geom_size_rejects_absurd_requests,
			 bad_size_gen_params),
	KUNIT_CASE(theory_fpr_matches_closed_form),
	KUNIT_CASE(key_family_follows_addresses),
	{}
};

static struct kunit_suite bloom_geometry_suite = {
	.name = "bloom_geometry",
	.test_cases = geometry_cases,
};

kunit_test_suites(&bloom_geometry_suite);
