// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the /16 summary of net filters (core/summary.c). After random
 * prefixes of both families are noted, every /16 of each family is asked
 * (at an address inside it other than its first): the summary must say
 * "may hold" exactly where some prefix overlaps it, judged here by
 * comparing the two under the shorter of their masks, not by the
 * summary's range arithmetic. Filters of one family keep one table and
 * never answer for the other; ::/8 reaches no IPv4 /16 and
 * ::ffff:0:0/96 every one of them.
 */
#include "bloom_test.h"

#define SLASH16S	65536
#define PREFIXES	200

struct bt_prefix {
	struct bloom_key_net k;
	bool v4;
};

static const u8 v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

/* A random prefix: IPv4 one time in two, lengths 0 to 32 (128). */
static void random_prefix(u64 *state, struct bt_prefix *p)
{
	u64 r = bt_rand(state);
	int i;

	memset(p, 0, sizeof(*p));
	p->v4 = r & 1;
	for (i = 0; i < 16; i++)
		p->k.addr[i] = (u8)(bt_rand(state) >> 24);
	if (p->v4) {
		memcpy(p->k.addr, v4_mapped, sizeof(v4_mapped));
		p->k.plen = 96 + (r >> 8) % 33;
	} else {
		p->k.plen = (r >> 8) % 129;
	}
	/* IPv6 prefixes are not v4-mapped (a short one may cover them). */
	if (!p->v4 && p->k.plen >= 96)
		p->k.addr[0] |= 0x20;
	bloom_net_mask(p->k.addr, p->k.plen);
}

/* The address of /16 @s of a family, host part @host. */
static void slash16_addr(u8 *addr, bool v4, u32 s, u8 host)
{
	u8 *a = v4 ? addr + 12 : addr;

	memset(addr, host, 16);
	if (v4)
		memcpy(addr, v4_mapped, sizeof(v4_mapped));
	a[0] = s >> 8;
	a[1] = s & 0xff;
}

/* Does prefix @p overlap the /16 of @addr? Both masked to the shorter. */
static bool overlaps(const struct bt_prefix *p, const u8 *addr, bool v4)
{
	unsigned int len = v4 ? 96 + 16 : 16;
	u8 a[16], b[16];

	if (p->v4 != v4)
		return false;
	if (p->k.plen < len)
		len = p->k.plen;
	memcpy(a, addr, 16);
	memcpy(b, p->k.addr, 16);
	bloom_net_mask(a, len);
	bloom_net_mask(b, len);
	return !memcmp(a, b, 16);
}

static void reaches_exactly_the_overlapped_slash16s(struct kunit *test)
{
	struct bloom_geom g = { .key_type = BLOOM_KEY_NET,
				.flags = BLOOM_F_SUMMARY };
	struct bt_prefix *p = bt_alloc(test, PREFIXES * sizeof(*p));
	bloom_word_t *s = bt_alloc(test, 8 * bloom_summary_words(&g));
	u64 state = 0x5eed, wrong = 0, reached = 0;
	u8 addr[16];
	u32 i, j;
	int fam;

	KUNIT_ASSERT_EQ(test, bloom_summary_words(&g), 2048ULL);
	for (i = 0; i < PREFIXES; i++) {
		random_prefix(&state, &p[i]);
		/* Mostly long prefixes, as lists are: few reach many /16s. */
		if (p[i].k.plen < (p[i].v4 ? 96 + 8 : 8) && i % 16) {
			i--;
			continue;
		}
		bloom_summary_note(s, &g, &p[i].k);
	}
	for (fam = 0; fam < 2; fam++) {
		for (i = 0; i < SLASH16S; i++) {
			bool want = false;

			slash16_addr(addr, fam, i, 0xa5);
			for (j = 0; j < PREFIXES && !want; j++)
				want = overlaps(&p[j], addr, fam);
			reached += want;
			wrong += want != bloom_summary_test(s, &g, addr);
		}
	}
	KUNIT_EXPECT_EQ(test, wrong, 0ULL);
	/* Neither none nor all: the check above could tell them apart. */
	KUNIT_EXPECT_GT(test, reached, 0ULL);
	KUNIT_EXPECT_LT(test, reached, 2ULL * SLASH16S);
}

static void families_keep_their_tables(struct kunit *test)
{
	struct bloom_geom dual = { .key_type = BLOOM_KEY_NET,
				   .flags = BLOOM_F_SUMMARY };
	struct bloom_geom v4 = { .key_type = BLOOM_KEY_NET,
				 .flags = BLOOM_F_SUMMARY | BLOOM_F_INET };
	struct bloom_geom v6 = { .key_type = BLOOM_KEY_NET,
				 .flags = BLOOM_F_SUMMARY | BLOOM_F_INET6 };
	bloom_word_t *s = bt_alloc(test, 8 * bloom_summary_words(&dual));
	bloom_word_t *s4 = bt_alloc(test, 8 * bloom_summary_words(&v4));
	bloom_word_t *s6 = bt_alloc(test, 8 * bloom_summary_words(&v6));
	struct bloom_key_net bogon = { .plen = 8 };	/* ::/8 */
	struct bloom_key_net all4 = { .plen = 96 };	/* ::ffff:0:0/96 */
	struct bloom_key_net doc6 = { .addr = { 0x20, 0x01, 0x0d, 0xb8 },
				      .plen = 32 };
	u8 a4[16], a6[16];

	KUNIT_EXPECT_EQ(test, bloom_summary_words(&v4), 1024ULL);
	KUNIT_EXPECT_EQ(test, bloom_summary_words(&v6), 1024ULL);
	dual.flags &= ~BLOOM_F_SUMMARY;
	KUNIT_EXPECT_EQ(test, bloom_summary_words(&dual), 0ULL);
	dual.flags |= BLOOM_F_SUMMARY;
	memcpy(all4.addr, v4_mapped, sizeof(v4_mapped));
	slash16_addr(a4, true, 0xc633, 7);	/* 198.51.0.0/16 */
	slash16_addr(a6, false, 0x0012, 7);	/* inside ::/8 */

	bloom_summary_note(s, &dual, &bogon);
	KUNIT_EXPECT_FALSE(test, bloom_summary_test(s, &dual, a4));
	KUNIT_EXPECT_TRUE(test, bloom_summary_test(s, &dual, a6));
	bloom_summary_note(s, &dual, &all4);
	KUNIT_EXPECT_TRUE(test, bloom_summary_test(s, &dual, a4));

	/* One family, one table: the other family's are never marked. */
	bloom_summary_note(s4, &v4, &doc6);
	bloom_summary_note(s4, &v4, &all4);
	KUNIT_EXPECT_TRUE(test, bloom_summary_test(s4, &v4, a4));
	KUNIT_EXPECT_FALSE(test, bloom_summary_test(s4, &v4, doc6.addr));
	bloom_summary_note(s6, &v6, &all4);
	bloom_summary_note(s6, &v6, &doc6);
	KUNIT_EXPECT_FALSE(test, bloom_summary_test(s6, &v6, a4));
	KUNIT_EXPECT_TRUE(test, bloom_summary_test(s6, &v6, doc6.addr));
	KUNIT_EXPECT_FALSE(test, bloom_summary_test(s6, &v6, a6));
}

static void only_net_filters_have_one(struct kunit *test)
{
	struct bloom_geom g = { .layout = BLOOM_LAYOUT_BLOCKED,
				.key_type = BLOOM_KEY_ADDR,
				.flags = BLOOM_F_SUMMARY, .hashes = 4,
				.bits = 4096, .capacity = 100 };

	KUNIT_EXPECT_EQ(test, bloom_geom_check(&g), -EINVAL);
	g.key_type = BLOOM_KEY_NET;
	KUNIT_EXPECT_EQ(test, bloom_geom_check(&g), 0);
}

static struct kunit_case summary_cases[] = {
	KUNIT_CASE(reaches_exactly_the_overlapped_slash16s),
	KUNIT_CASE(families_keep_their_tables),
	KUNIT_CASE(only_net_filters_have_one),
	{}
};

static struct kunit_suite bloom_summary_suite = {
	.name = "bloom_summary",
	.test_cases = summary_cases,
};

kunit_test_suites(&bloom_summary_suite);
