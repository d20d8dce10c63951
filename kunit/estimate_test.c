// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: estimates and rates at their edges. Empty, one unit set, all but
 * one, all set; units from 64 to 2^37; every layout. Arrays too big to
 * allocate (2^37 bits) are tested through the per-unit estimate
 * functions; the arrays past 2^32 bits only in the native build. There,
 * every case runs under a time limit, so an estimate that never ends
 * fails instead of hanging, and values are checked against libm.
 */
#include "bloom_test.h"

#define BIG_LO		((1ULL << 32) - 64)
#define BIG_HI		((1ULL << 32) + 64)
#define HUGE_UNITS	BLOOM_MAX_BITS	/* 2^37 */
#define Q32_ONE		((u64)BLOOM_FX_ONE)
#define SMALL_BITS	1048576ULL
#define TIME_LIMIT	60	/* CPU seconds per case, native build */

#ifdef __KERNEL__
static inline void time_limit(struct kunit *test)
{
}

static inline void time_limit_end(void)
{
}
#else
#include <math.h>
#include <signal.h>
#include <sys/time.h>

static struct kunit *timed;

/* CPU time, not wall time: a loaded machine is not a spinning loop. */
static void time_up(int sig)
{
	struct kunit *test = timed;

	if (!test)
		return;
	timed = NULL;
	kunit_shim_fail(test, __FILE__, __LINE__,
			"over the %d s time limit: the estimate does not terminate",
			TIME_LIMIT);
	longjmp(test->abort, 1);
}

/* Arm after the last KUNIT_ASSERT of the case: asserts leave by longjmp. */
static void time_limit(struct kunit *test)
{
	struct sigaction sa = { .sa_handler = time_up, .sa_flags = SA_NODEFER };
	struct itimerval it = { .it_value.tv_sec = TIME_LIMIT };

	timed = test;
	sigaction(SIGVTALRM, &sa, NULL);
	setitimer(ITIMER_VIRTUAL, &it, NULL);
}

static void time_limit_end(void)
{
	struct itimerval it = {};

	setitimer(ITIMER_VIRTUAL, &it, NULL);
	timed = NULL;
}

/* -(units / k) ln(1 - x / units), or infinity when x == units. */
static double card_exact(u64 x, u64 units, u32 k)
{
	return x >= units ? INFINITY :
	       -((double)units / k) * log1p(-(double)x / (double)units);
}

static void expect_card(struct kunit *test, u64 est, double exact,
			const char *what)
{
	if (isinf(exact)) {
		KUNIT_EXPECT_EQ_MSG(test, est, U64_MAX, "%s: saturated", what);
		return;
	}
	/* Rounded to the nearest count, from a Q48.16 sum. */
	KUNIT_EXPECT_LE_MSG(test, fabs((double)est - exact),
			    0.5 + exact / 1e9, "%s: %llu against %.3f", what,
			    (unsigned long long)est, exact);
}

/* Fixed point is good to a few units of 2^-32. */
static void expect_rate_q32(struct kunit *test, u64 q32, double exact,
			    const char *what)
{
	KUNIT_EXPECT_LE_MSG(test, fabs((double)q32 - exact * 0x1p32), 4.0,
			    "%s: %llu against %.3f (Q32)", what,
			    (unsigned long long)q32, exact * 0x1p32);
}
#endif

/* Units of the per-unit sweeps, and set positions tried in each. */
static const u64 unit_counts[] = {
	64, BLOOM_BLOCK_BITS, BIG_LO, BIG_HI, HUGE_UNITS,
};

static void units_desc(const u64 *u, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "units=%llu",
		 (unsigned long long)*u);
}

KUNIT_ARRAY_PARAM(units, unit_counts, units_desc);

static const u32 sweep_hashes[] = { 1, 7, BLOOM_MAX_HASHES };

/* 0, 1, 2, half, all but two, all but one, all: increasing. */
static u64 sweep_x(u64 units, unsigned int i)
{
	static const unsigned int n = 7;

	if (i >= n)
		return U64_MAX;
	switch (i) {
	case 0: case 1: case 2:
		return i;
	case 3:
		return units / 2;
	default:
		return units - (n - 1 - i);
	}
}

static void card_est_sweeps_edges(struct kunit *test)
{
	u64 units = *(const u64 *)test->param_value;
	unsigned int h, i;

	time_limit(test);
	for (h = 0; h < ARRAY_SIZE(sweep_hashes); h++) {
		u32 k = sweep_hashes[h];
		u64 x, est, prev = 0;

		for (i = 0; (x = sweep_x(units, i)) != U64_MAX; i++) {
			est = bloom_card_est(x, units, k);
			KUNIT_EXPECT_GE_MSG(test, est, prev,
					    "k=%u x=%llu: not monotonic", k,
					    (unsigned long long)x);
			prev = est;
#ifndef __KERNEL__
			{
				char what[64];

				snprintf(what, sizeof(what), "k=%u x=%llu", k,
					 (unsigned long long)x);
				expect_card(test, est, card_exact(x, units, k),
					    what);
			}
#endif
		}
		KUNIT_EXPECT_EQ(test, bloom_card_est(0, units, k), 0ULL);
		KUNIT_EXPECT_EQ(test, bloom_card_est(units, units, k), U64_MAX);
		KUNIT_EXPECT_LT(test, bloom_card_est(units - 1, units, k),
				U64_MAX);
	}
	/* One bit is one key at every size: -m ln(1 - 1/m) -> 1. */
	KUNIT_EXPECT_EQ(test, bloom_card_est(1, units, 1), 1ULL);
	time_limit_end();
}

static void card_est_matches_known_values(struct kunit *test)
{
	time_limit(test);
	/* 2^37 ln(2^37), 2^37 ln 2 and (2^32 + 64) ln(2^32 + 64), rounded */
	KUNIT_EXPECT_EQ(test, bloom_card_est(HUGE_UNITS - 1, HUGE_UNITS, 1),
			3524820654634ULL);
	KUNIT_EXPECT_EQ(test, bloom_card_est(HUGE_UNITS / 2, HUGE_UNITS, 1),
			95265423098ULL);
	KUNIT_EXPECT_EQ(test, bloom_card_est(BIG_HI - 1, BIG_HI, 1),
			95265424582ULL);
	KUNIT_EXPECT_EQ(test, bloom_card_est(1, HUGE_UNITS, 1), 1ULL);
	KUNIT_EXPECT_EQ(test, bloom_card_est(3, HUGE_UNITS, 3), 1ULL);
	time_limit_end();
}

static void fill_fpr_sweeps_edges(struct kunit *test)
{
	u64 units = *(const u64 *)test->param_value;
	unsigned int h, i;

	time_limit(test);
	for (h = 0; h < ARRAY_SIZE(sweep_hashes); h++) {
		u32 k = sweep_hashes[h];
		u64 x, q32, prev = 0;

		for (i = 0; (x = sweep_x(units, i)) != U64_MAX; i++) {
			q32 = bloom_fill_fpr_q32(x, units, k);
			KUNIT_EXPECT_GE_MSG(test, q32, prev,
					    "k=%u x=%llu: not monotonic", k,
					    (unsigned long long)x);
			KUNIT_EXPECT_LE(test, q32, Q32_ONE);
			prev = q32;
#ifndef __KERNEL__
			{
				char what[64];

				snprintf(what, sizeof(what), "k=%u x=%llu", k,
					 (unsigned long long)x);
				expect_rate_q32(test, q32,
						pow((double)x / (double)units, k),
						what);
			}
#endif
		}
		KUNIT_EXPECT_EQ(test, bloom_fill_fpr_q32(0, units, k), 0ULL);
		KUNIT_EXPECT_EQ(test, bloom_fill_fpr_q32(units, units, k),
				Q32_ONE);
	}
	KUNIT_EXPECT_EQ(test, bloom_fill_fpr_q32(units / 2, units, 1),
			Q32_ONE / 2);
	time_limit_end();
}

static void fx_ln_of_zero_terminates(struct kunit *test)
{
	time_limit(test);
	/* Below ln of the smallest positive argument, 2^-32. */
	KUNIT_EXPECT_LT(test, bloom_fx_ln(0), bloom_fx_ln(1));
	KUNIT_EXPECT_EQ(test, bloom_fx_ln(Q32_ONE), 0LL);
	KUNIT_EXPECT_EQ(test, bloom_fx_ln_ratio(1, 1), 0LL);
	KUNIT_EXPECT_EQ(test, bloom_fx_ln_ratio(0, 1), S64_MIN);
	KUNIT_EXPECT_EQ(test, bloom_fx_ln_ratio(1, 0), S64_MAX);
	KUNIT_EXPECT_EQ(test, bloom_fx_ln_ratio(U64_MAX, U64_MAX), 0LL);
	KUNIT_EXPECT_EQ(test, bloom_fx_ln_ratio(3, 7),
			-bloom_fx_ln_ratio(7, 3));
#ifndef __KERNEL__
	{
		static const u64 pairs[][2] = {
			{ 2, 1 }, { 3, 2 }, { 1ULL << 37, 1 },
			{ (1ULL << 37) + 1, 1ULL << 37 }, { U64_MAX, 1 },
			{ U64_MAX, U64_MAX - 1 }, { 1000000007, 999999999 },
		};
		unsigned int i;

		for (i = 0; i < ARRAY_SIZE(pairs); i++) {
			double exact = log((double)pairs[i][0]) -
				       log((double)pairs[i][1]);
			s64 l = bloom_fx_ln_ratio(pairs[i][0], pairs[i][1]);

			if (pairs[i][0] - pairs[i][1] < pairs[i][1])
				exact = log1p((double)(pairs[i][0] -
						       pairs[i][1]) /
					      (double)pairs[i][1]);
			KUNIT_EXPECT_LE_MSG(test,
					    fabs(ldexp((double)l, -56) - exact),
					    1 / 1e15 + exact / 1e12,
					    "ln(%llu / %llu)",
					    (unsigned long long)pairs[i][0],
					    (unsigned long long)pairs[i][1]);
		}
	}
#endif
	time_limit_end();
}

/* A geometry, and an array filled with its first x units. */
struct edge_case {
	u8 layout;
	u32 hashes;
	u64 bits;
};

static const struct edge_case edge_cases[] = {
	{ BLOOM_LAYOUT_BLOCKED, 7, BLOOM_BLOCK_BITS },
	{ BLOOM_LAYOUT_STANDARD, 1, 64 },
	{ BLOOM_LAYOUT_PARTITIONED, 2, 64 },
	{ BLOOM_LAYOUT_COUNTING, 1, 64 },
	{ BLOOM_LAYOUT_BLOCKED, 1, 4 * BLOOM_BLOCK_BITS },
	{ BLOOM_LAYOUT_STANDARD, 7, 4096 },
#ifndef __KERNEL__
	/* 512 MiB each, 2 GiB for counting: native only. */
	{ BLOOM_LAYOUT_BLOCKED, 7, (1ULL << 32) + BLOOM_BLOCK_BITS },
	{ BLOOM_LAYOUT_STANDARD, 1, BIG_LO },
	{ BLOOM_LAYOUT_STANDARD, 1, BIG_HI },
	{ BLOOM_LAYOUT_PARTITIONED, 2, BIG_HI },
	{ BLOOM_LAYOUT_COUNTING, 1, BIG_HI },
#endif
};

static void edge_desc(const struct edge_case *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s k=%u m=%llu",
		 bt_layout_names[t->layout], t->hashes,
		 (unsigned long long)t->bits);
}

KUNIT_ARRAY_PARAM(edge, edge_cases, edge_desc);

/*
 * A filter whose words start on a cache line, as struct bloom_bits asks,
 * however small its array: calloc() aligns only large allocations.
 */
static struct bt_filter *edge_filter_new(struct kunit *test,
					 const struct bloom_geom *g)
{
	struct bt_filter *f;
	size_t align = __alignof__(struct bloom_bits);
	void *raw;

	KUNIT_ASSERT_EQ(test, bloom_geom_check(g), 0);
	f = bt_alloc(test, sizeof(*f));
	KUNIT_ASSERT_NOT_NULL(test, f);
	bloom_core_init(&f->c, g);
	raw = bt_alloc(test, sizeof(*f->b) + bloom_array_bytes(&f->c) + align);
	KUNIT_ASSERT_NOT_NULL(test, raw);
	f->b = (void *)(((unsigned long)raw + align - 1) & ~(align - 1));
	return f;
}

/* Sets units [from, to): bits, or counters to 1 for counting. */
static void set_units(struct bt_filter *f, u64 from, u64 to)
{
	bool counting = f->c.g.layout == BLOOM_LAYOUT_COUNTING;
	unsigned int per = counting ? 16 : 64, width = 64 / per;
	u64 full = counting ? 0x1111111111111111ULL : ~0ULL, w;

	for (; from < to && from % per; from++)
		bloom_word_fetch_or(&f->b->words[from / per],
				    1ULL << (from % per * width));
	for (w = from / per; from + per <= to; from += per, w++)
		bloom_word_set(&f->b->words[w], full);
	for (; from < to; from++)
		bloom_word_fetch_or(&f->b->words[from / per],
				    1ULL << (from % per * width));
}

/* The units the estimate works on: a block, a slice or the array. */
static u64 unit_of(const struct bloom_geom *g)
{
	if (g->layout == BLOOM_LAYOUT_BLOCKED)
		return BLOOM_BLOCK_BITS;
	if (g->layout == BLOOM_LAYOUT_PARTITIONED)
		return g->bits / g->hashes;
	return g->bits;
}

#ifndef __KERNEL__
/*
 * The first x units set: every unit before the one x ends in is full,
 * the rest empty. The estimate is infinite past one unit, the rate an
 * average over blocks or a product over slices.
 */
static double prefix_fpr(const struct bloom_geom *g, u64 x)
{
	u64 s = unit_of(g), full = x / s, part = x % s;
	double p = pow((double)part / (double)s, g->hashes);

	if (g->layout == BLOOM_LAYOUT_BLOCKED)
		return ((double)full + p) / (double)(g->bits / s);
	if (g->layout == BLOOM_LAYOUT_PARTITIONED)
		return full == g->hashes ? 1.0 :
		       full + 1 == g->hashes ? (double)part / (double)s : 0.0;
	return pow((double)x / (double)g->bits, g->hashes);
}
#endif

static void stats_sweep_edges(struct kunit *test)
{
	const struct edge_case *t = test->param_value;
	struct bloom_geom g = { .bits = t->bits, .hashes = t->hashes,
				.layout = t->layout };
	struct bt_filter *f = edge_filter_new(test, &g);
	u64 *hist = bt_alloc(test, BLOOM_HIST_WORDS * sizeof(u64));
	u64 m = g.bits, s = unit_of(&g);
	u64 xs[] = { 0, 1, m - 1, m }, prev_card = 0, prev_fpr = 0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, hist);
	time_limit(test);
	for (i = 0; i < ARRAY_SIZE(xs); i++) {
		u64 x = xs[i], one = x < s ? bloom_card_est(x, s, g.hashes) :
					       U64_MAX;
		struct bloom_stats st;

		set_units(f, i ? xs[i - 1] : 0, x);
		bloom_stats(&f->c, f->b, hist, &st);
		KUNIT_EXPECT_EQ(test, st.bits_set, x);
		KUNIT_EXPECT_EQ(test, st.fill_ppb, x * BLOOM_PPB / m);
		KUNIT_EXPECT_GE(test, st.est_card, prev_card);
		KUNIT_EXPECT_GE(test, st.est_fpr_ppb, prev_fpr);
		KUNIT_EXPECT_LE(test, st.est_fpr_ppb, BLOOM_PPB);
		prev_card = st.est_card;
		prev_fpr = st.est_fpr_ppb;
		/* Only the unit x ends in is partly set: its estimate. */
		KUNIT_EXPECT_EQ_MSG(test, st.est_card, one, "x=%llu",
				    (unsigned long long)x);
		/* A u A = A n A = A; each walks the array: the partial fills. */
		if (m <= SMALL_BITS || (x && x != m)) {
			KUNIT_EXPECT_EQ(test, bloom_est_union(&f->c, f->b, f->b,
							      hist),
					st.est_card);
			KUNIT_EXPECT_EQ(test,
					bloom_est_intersection(&f->c, f->b,
							       f->b, hist),
					st.est_card);
		}
		if (!x) {
			KUNIT_EXPECT_EQ(test, st.est_card, 0ULL);
			KUNIT_EXPECT_EQ(test, st.est_fpr_ppb, 0ULL);
		}
		if (x == m) {
			KUNIT_EXPECT_EQ(test, st.est_card, U64_MAX);
			KUNIT_EXPECT_EQ(test, st.est_fpr_ppb, BLOOM_PPB);
		}
#ifndef __KERNEL__
		{
			char what[64];

			snprintf(what, sizeof(what), "x=%llu",
				 (unsigned long long)x);
			expect_card(test, st.est_card,
				    card_exact(x, s, g.hashes), what);
			KUNIT_EXPECT_LE_MSG(test,
					    fabs((double)st.est_fpr_ppb -
						 prefix_fpr(&g, x) * 1e9),
					    2.0, "%s: rate %llu ppb against %.3f",
					    what,
					    (unsigned long long)st.est_fpr_ppb,
					    prefix_fpr(&g, x) * 1e9);
		}
#endif
	}
	time_limit_end();
}

/* Past any filling the rate is 1, whatever n, without a divide error. */
static void theory_fpr_saturates_for_huge_n(struct kunit *test)
{
	static const struct bloom_geom geoms[] = {
		{ .bits = BLOOM_BLOCK_BITS, .hashes = 7,
		  .layout = BLOOM_LAYOUT_BLOCKED },
		{ .bits = 1ULL << 20, .hashes = 1,
		  .layout = BLOOM_LAYOUT_BLOCKED },
		{ .bits = 1024, .hashes = 8, .layout = BLOOM_LAYOUT_STANDARD },
		{ .bits = 1024, .hashes = 8,
		  .layout = BLOOM_LAYOUT_PARTITIONED },
		{ .bits = 1024, .hashes = 8, .layout = BLOOM_LAYOUT_COUNTING },
	};
	static const u64 ns[] = {
		1ULL << 32, 1ULL << 33, 1ULL << 61, U64_MAX,
	};
	unsigned int i, j;

	time_limit(test);
	for (i = 0; i < ARRAY_SIZE(geoms); i++)
		for (j = 0; j < ARRAY_SIZE(ns); j++)
			KUNIT_EXPECT_EQ_MSG(test,
					    bloom_theory_fpr_ppb(&geoms[i],
								 ns[j]),
					    BLOOM_PPB, "%s m=%llu n=%llu",
					    bt_layout_names[geoms[i].layout],
					    (unsigned long long)geoms[i].bits,
					    (unsigned long long)ns[j]);
	time_limit_end();
}

struct sized {
	u64 n, ppb;
	u8 layout;
	u64 bits;
	u32 hashes;
};

/* What sizing gave before the estimates were reworked: it must not move. */
static const struct sized sized_before[] = {
	{ 1, 500000000, BLOOM_LAYOUT_BLOCKED, 512, 1 },
	{ 1000, 10000000, BLOOM_LAYOUT_BLOCKED, 10240, 5 },
	{ 1000000, 1000000, BLOOM_LAYOUT_BLOCKED, 15488512, 9 },
	{ 100000000, 100000, BLOOM_LAYOUT_BLOCKED, 2191404544ULL, 12 },
	{ 1, 500000000, BLOOM_LAYOUT_STANDARD, 64, 1 },
	{ 1000, 10000000, BLOOM_LAYOUT_STANDARD, 9594, 7 },
	{ 1000000, 1000000, BLOOM_LAYOUT_STANDARD, 14377640, 10 },
	{ 100000000, 100000, BLOOM_LAYOUT_STANDARD, 1917295479ULL, 13 },
	{ 1000, 10000000, BLOOM_LAYOUT_PARTITIONED, 9597, 7 },
	{ 1000000, 1000000, BLOOM_LAYOUT_PARTITIONED, 14377650, 10 },
	{ 100000000, 100000, BLOOM_LAYOUT_PARTITIONED, 1917295497ULL, 13 },
	{ 1000, 10000000, BLOOM_LAYOUT_COUNTING, 9594, 7 },
	{ 1000000, 1000000, BLOOM_LAYOUT_COUNTING, 14377640, 10 },
};

static void sized_desc(const struct sized *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s n=%llu fpr=%llu ppb",
		 bt_layout_names[t->layout], (unsigned long long)t->n,
		 (unsigned long long)t->ppb);
}

KUNIT_ARRAY_PARAM(sized, sized_before, sized_desc);

static void geom_size_keeps_its_results(struct kunit *test)
{
	const struct sized *t = test->param_value;
	struct bloom_geom g = {};

	KUNIT_ASSERT_EQ(test, bloom_geom_size(t->n, t->ppb, t->layout, &g), 0);
	KUNIT_EXPECT_EQ(test, g.bits, t->bits);
	KUNIT_EXPECT_EQ(test, g.hashes, t->hashes);
}

static struct kunit_case estimate_cases[] = {
	KUNIT_CASE_PARAM(card_est_sweeps_edges, units_gen_params),
	KUNIT_CASE(card_est_matches_known_values),
	KUNIT_CASE_PARAM(fill_fpr_sweeps_edges, units_gen_params),
	KUNIT_CASE(fx_ln_of_zero_terminates),
	KUNIT_CASE_PARAM(stats_sweep_edges, edge_gen_params),
	KUNIT_CASE(theory_fpr_saturates_for_huge_n),
	KUNIT_CASE_PARAM(geom_size_keeps_its_results, sized_gen_params),
	{}
};

static struct kunit_suite bloom_estimate_suite = {
	.name = "bloom_estimate",
	.test_cases = estimate_cases,
};

kunit_test_suites(&bloom_estimate_suite);
