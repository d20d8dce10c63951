// SPDX-License-Identifier: GPL-2.0
/*
 * Stats, cardinality estimates and set algebra. These walk the whole
 * array: process context only, with a reschedule point every chunk.
 *
 * Estimates follow the survey's formulas: n = -(m/k) ln(1 - X/m) for X
 * set bits; for blocked filters the same per block, summed, and
 * |A n B| = n(A) + n(B) - n(A u B).
 */
#include "bloom_core.h"

#define Q32		32
#define CHUNK_WORDS	(1U << 16)
#define NIBBLES		0x1111111111111111ULL

/* Mask with the low bit of each non-zero counter set. */
static inline u64 nonzero_nibbles(u64 w)
{
	return (w | w >> 1 | w >> 2 | w >> 3) & NIBBLES;
}

/* Word @i of A, or of A u B when @b is given, as set/non-zero bits. */
static inline u64 fill_word(const struct bloom_core *c,
			    const struct bloom_bits *a,
			    const struct bloom_bits *b, u64 i)
{
	u64 w = bloom_word_read(&a->words[i]);

	if (c->g.layout == BLOOM_LAYOUT_COUNTING) {
		w = nonzero_nibbles(w);
		if (b)
			w |= nonzero_nibbles(bloom_word_read(&b->words[i]));
	} else if (b) {
		w |= bloom_word_read(&b->words[i]);
	}
	return w;
}

static inline void maybe_resched(u64 i)
{
	if (!(i % CHUNK_WORDS))
		bloom_resched();
}

#define CARD_SHIFT	16	/* estimates are summed in Q48.16 */
#define LN_SHIFT	56	/* bloom_fx_ln_ratio() */

/*
 * a * b / c, U64_MAX when the quotient does not fit 64 bits (where the
 * kernel's mul_u64_u64_div_u64() would raise a divide error on x86).
 */
static u64 mul_div_sat(u64 a, u64 b, u64 c)
{
	return bloom_mulhi(a, b) >= c ? U64_MAX : bloom_mul_div(a, b, c);
}

/*
 * -(units / k) ln(1 - x / units) in Q48.16, or U64_MAX when x == units.
 * ln(units / (units - x)) comes from the integers: for x = 1 in 2^37 it
 * is 2^-37, far below what a Q32 ratio could hold. It is at most
 * ln units, so the result fits while units ln units < 2^48, far past
 * BLOOM_MAX_BITS (2^37 ln 2^37 < 2^42); beyond, it saturates.
 */
static u64 card_of(u64 x, u64 units, u32 k)
{
	u64 l, q;

	if (!x)
		return 0;
	if (x >= units || !k)
		return U64_MAX;
	l = (u64)bloom_fx_ln_ratio(units, units - x);
	q = mul_div_sat(l, units, 1ULL << (LN_SHIFT - CARD_SHIFT));
	return q == U64_MAX ? U64_MAX : q / k;
}

/* A Q48.16 sum rounded to a count; U64_MAX stays. */
static u64 card_round(u64 q16)
{
	return q16 >= U64_MAX - (1ULL << CARD_SHIFT) ? U64_MAX :
	       (q16 + (1ULL << (CARD_SHIFT - 1))) >> CARD_SHIFT;
}

/*
 * (x / units)^k, Q32: e^(-k ln(units / x)), the logarithm again from the
 * integers. Past k ln(units / x) = 64 the rate is 0 (below 2^-92), which
 * also keeps k times the Q56 logarithm inside 2^62.
 */
static u64 all_set_q32(u64 x, u64 units, u32 k)
{
	u64 l;

	if (!k || x >= units)
		return 1ULL << Q32;
	if (!x)
		return 0;
	l = (u64)bloom_fx_ln_ratio(units, x);
	if (l >= (64ULL << LN_SHIFT) / k)
		return 0;
	l *= k;
	return bloom_fx_exp(-(s64)((l + (1ULL << (LN_SHIFT - Q32 - 1))) >>
				   (LN_SHIFT - Q32)));
}

/**
 * bloom_card_est() - estimated keys in one unit of a filter
 * @x: bits set (or counters non-zero) in the unit
 * @units: bits in the unit: the array, a slice of a partitioned filter or
 *	a block of a blocked one
 * @k: probes per key into the unit (1 for a slice)
 *
 * The estimate -(units / k) ln(1 - x / units) that bloom_stats() sums
 * over a filter's units; exact to the rounding for every @x and @units,
 * including one bit set in 2^37.
 *
 * Return: the estimate rounded to a count; 0 when @x is 0, U64_MAX when
 * the unit is full (@x >= @units) or @k is 0.
 */
u64 bloom_card_est(u64 x, u64 units, u32 k)
{
	return card_round(card_of(x, units, k));
}
EXPORT_SYMBOL_GPL(bloom_card_est);

/**
 * bloom_fill_fpr_q32() - false-positive rate of one unit of a filter
 * @x: bits set (or counters non-zero) in the unit
 * @units: bits in the unit (see bloom_card_est())
 * @k: probes per key into the unit
 *
 * Return: (@x / @units)^@k in Q32.32: 0 when @x is 0, 1.0 when the unit
 * is full or @k is 0.
 */
u64 bloom_fill_fpr_q32(u64 x, u64 units, u32 k)
{
	return all_set_q32(x, units, k);
}
EXPORT_SYMBOL_GPL(bloom_fill_fpr_q32);

struct fill {
	u64 bits_set;
	u64 card;
	u64 fpr_q32;
};

static u64 sat_add(u64 a, u64 b)
{
	return a + b < a ? U64_MAX : a + b;
}

/* Blocked: per-block estimates, from a histogram of block fills. */
static void fill_blocked(const struct bloom_core *c,
			 const struct bloom_bits *a,
			 const struct bloom_bits *b, u64 *hist,
			 struct fill *f)
{
	u64 blk, x, fpr_sum = 0;
	u32 k = c->g.hashes;
	int i;

	memset(hist, 0, (BLOOM_BLOCK_BITS + 1) * sizeof(u64));
	for (blk = 0; blk < c->range; blk++) {
		for (x = 0, i = 0; i < 8; i++)
			x += bloom_popcount64(fill_word(c, a, b, blk * 8 + i));
		hist[x]++;
		maybe_resched(blk * 8);
	}
	for (x = 0; x <= BLOOM_BLOCK_BITS; x++) {
		if (!hist[x])
			continue;
		f->bits_set += x * hist[x];
		f->card = sat_add(f->card, x == BLOOM_BLOCK_BITS ? U64_MAX :
				  card_of(x, BLOOM_BLOCK_BITS, k) * hist[x]);
		fpr_sum += bloom_mul_div(all_set_q32(x, BLOOM_BLOCK_BITS, k),
					 hist[x], c->range);
	}
	f->card = card_round(f->card);
	f->fpr_q32 = fpr_sum;
}

/* Bits set in [from, to) of a bit array. */
static u64 popcount_range(const struct bloom_core *c,
			  const struct bloom_bits *a,
			  const struct bloom_bits *b, u64 from, u64 to)
{
	u64 n = 0, i;

	for (i = from / 64; i * 64 < to; i++) {
		u64 w = fill_word(c, a, b, i);

		if (i * 64 < from)
			w &= ~0ULL << (from % 64);
		if ((i + 1) * 64 > to)
			w &= ~0ULL >> (64 - to % 64);
		n += bloom_popcount64(w);
		maybe_resched(i);
	}
	return n;
}

/* Partitioned: one probe per slice, so the rate is a product. */
static void fill_partitioned(const struct bloom_core *c,
			     const struct bloom_bits *a,
			     const struct bloom_bits *b, struct fill *f)
{
	u64 s = c->range, card = 0, fpr = 1ULL << Q32;
	u32 i, k = c->g.hashes;

	for (i = 0; i < k; i++) {
		u64 x = popcount_range(c, a, b, i * s, (i + 1) * s);

		f->bits_set += x;
		card = sat_add(card, card_of(x, s, 1));
		fpr = bloom_mul_shr(fpr, all_set_q32(x, s, 1), Q32);
	}
	f->card = card_round(card == U64_MAX ? U64_MAX : card / k);
	f->fpr_q32 = fpr;
}

static void fill_of(const struct bloom_core *c, const struct bloom_bits *a,
		    const struct bloom_bits *b, u64 *hist, struct fill *f)
{
	u64 i, units = c->g.bits;

	memset(f, 0, sizeof(*f));
	if (c->g.layout == BLOOM_LAYOUT_BLOCKED)
		return fill_blocked(c, a, b, hist, f);
	if (c->g.layout == BLOOM_LAYOUT_PARTITIONED)
		return fill_partitioned(c, a, b, f);
	for (i = 0; i < c->nwords; i++) {
		f->bits_set += bloom_popcount64(fill_word(c, a, b, i));
		maybe_resched(i);
	}
	f->card = card_round(card_of(f->bits_set, units, c->g.hashes));
	f->fpr_q32 = all_set_q32(f->bits_set, units, c->g.hashes);
}

/**
 * bloom_stats_fold() - add one array's stats to those of several
 * @sum: the stats so far (start zeroed)
 * @part: one more array's (a generation, a stage)
 *
 * Counts, bits and memory add up (the estimate saturates), the fill is
 * the fullest, and the rate is that of a test that answers yes when any
 * array does.
 */
void bloom_stats_fold(struct bloom_stats *sum, const struct bloom_stats *part)
{
	sum->bits_set += part->bits_set;
	sum->fill_ppb = max(sum->fill_ppb, part->fill_ppb);
	sum->est_card = part->est_card == U64_MAX || sum->est_card == U64_MAX ?
			U64_MAX : sum->est_card + part->est_card;
	sum->inserted += part->inserted;
	sum->mem_bytes += part->mem_bytes;
	sum->est_fpr_ppb = BLOOM_PPB - (BLOOM_PPB - sum->est_fpr_ppb) *
			   (BLOOM_PPB - min(part->est_fpr_ppb, BLOOM_PPB)) /
			   BLOOM_PPB;
}
EXPORT_SYMBOL_GPL(bloom_stats_fold);

/**
 * bloom_stats() - measure a filter
 * @c: the filter's core
 * @b: its contents
 * @hist: scratch of BLOOM_BLOCK_BITS + 1 words
 * @st: filled in
 */
void bloom_stats(const struct bloom_core *c, const struct bloom_bits *b,
		 u64 *hist, struct bloom_stats *st)
{
	struct fill f;

	if (c->g.layout == BLOOM_LAYOUT_CUCKOO) {
		bloom_cuckoo_stats(c, b, st);
		return;
	}
	if (c->g.layout == BLOOM_LAYOUT_FUSE) {
		bloom_fuse_stats(c, st);
		return;
	}
	fill_of(c, b, NULL, hist, &f);
	st->bits_set = f.bits_set;
	st->fill_ppb = bloom_mul_div(f.bits_set, BLOOM_PPB, c->g.bits);
	st->est_card = f.card;
	st->est_fpr_ppb = bloom_mul_shr(f.fpr_q32, BLOOM_PPB, Q32);
	st->inserted = bloom_word_read(&b->inserted);
	st->mem_bytes = bloom_array_bytes(c);
}
EXPORT_SYMBOL_GPL(bloom_stats);

/**
 * bloom_est_union() - estimate |A u B| of two same-geometry filters
 * @c: the core both share (see bloom_geom_same())
 * @a: one filter's contents
 * @b: the other's
 * @hist: scratch of BLOOM_BLOCK_BITS + 1 words
 *
 * Return: the estimate, U64_MAX when the union is saturated.
 */
u64 bloom_est_union(const struct bloom_core *c, const struct bloom_bits *a,
		    const struct bloom_bits *b, u64 *hist)
{
	struct fill f;

	fill_of(c, a, b, hist, &f);
	return f.card;
}
EXPORT_SYMBOL_GPL(bloom_est_union);

/**
 * bloom_est_intersection() - estimate |A n B| of two same-geometry filters
 * @c: the core both share (see bloom_geom_same())
 * @a: one filter's contents
 * @b: the other's
 * @hist: scratch of BLOOM_BLOCK_BITS + 1 words
 *
 * Return: n(A) + n(B) - n(A u B), at least 0; U64_MAX when saturated.
 */
u64 bloom_est_intersection(const struct bloom_core *c,
			   const struct bloom_bits *a,
			   const struct bloom_bits *b, u64 *hist)
{
	struct fill fa, fb, fu;

	fill_of(c, a, NULL, hist, &fa);
	fill_of(c, b, NULL, hist, &fb);
	fill_of(c, a, b, hist, &fu);
	if (fa.card == U64_MAX || fb.card == U64_MAX || fu.card == U64_MAX)
		return U64_MAX;
	return fa.card + fb.card > fu.card ? fa.card + fb.card - fu.card : 0;
}
EXPORT_SYMBOL_GPL(bloom_est_intersection);

/* Counters of @x and @y combined nibble by nibble: the larger. */
static u64 nibble_max(u64 x, u64 y)
{
	u64 out = 0;
	int s;

	for (s = 0; s < 64; s += 4)
		out |= max((x >> s) & 15, (y >> s) & 15) << s;
	return out;
}

/* Counters of @x and @y combined nibble by nibble: sum or minimum. */
static u64 nibble_merge(u64 x, u64 y, bool sum)
{
	u64 out = 0;
	int s;

	for (s = 0; s < 64; s += 4) {
		u64 p = (x >> s) & 15, q = (y >> s) & 15;

		out |= (sum ? min(p + q, 15ULL) : min(p, q)) << s;
	}
	return out;
}

static void counters_merge(bloom_word_t *w, u64 src, bool sum)
{
	u64 old = bloom_word_read(w);

	while (!bloom_word_cmpxchg(w, &old, nibble_merge(old, src, sum)))
		;
}

/**
 * bloom_union() - add every key of @src to @dst (same geometry)
 * @c: the core both share (see bloom_geom_same())
 * @dst: contents updated in place, concurrently with readers and adds
 * @src: contents read
 *
 * Counting filters add their counters (saturating at 15).
 */
void bloom_union(const struct bloom_core *c, struct bloom_bits *dst,
		 const struct bloom_bits *src)
{
	u64 i;

	for (i = 0; i < c->nwords; i++) {
		u64 s = bloom_word_read(&src->words[i]);

		if (c->g.layout == BLOOM_LAYOUT_COUNTING)
			counters_merge(&dst->words[i], s, true);
		else if (s)
			bloom_word_fetch_or(&dst->words[i], s);
		maybe_resched(i);
	}
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_fetch_or(&dst->plens[i],
				    bloom_word_read(&src->plens[i]));
	bloom_word_add(&dst->inserted, bloom_word_read(&src->inserted));
}
EXPORT_SYMBOL_GPL(bloom_union);

/**
 * bloom_intersect() - keep in @dst only what @src also holds
 * @c: the core both share (see bloom_geom_same())
 * @dst: contents updated in place
 * @src: contents read
 *
 * Counting filters keep the smaller counter. The inserted count becomes
 * the estimated size of the intersection.
 */
void bloom_intersect(const struct bloom_core *c, struct bloom_bits *dst,
		     const struct bloom_bits *src)
{
	u64 i;

	for (i = 0; i < c->nwords; i++) {
		u64 s = bloom_word_read(&src->words[i]);

		if (c->g.layout == BLOOM_LAYOUT_COUNTING)
			counters_merge(&dst->words[i], s, false);
		else
			bloom_word_and(&dst->words[i], s);
		maybe_resched(i);
	}
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_and(&dst->plens[i], bloom_word_read(&src->plens[i]));
}
EXPORT_SYMBOL_GPL(bloom_intersect);

static bool is_pow2(u64 x)
{
	return x && !(x & (x - 1));
}

/**
 * bloom_halve_geom() - the geometry of a filter folded to half its size
 * @in: the geometry
 * @out: @in with half the bits
 *
 * Multiply-shift probing makes every position of the half-size filter
 * the old position divided by two, so folding is exact when the probe
 * range is a power of two: m for standard and counting, the slice for
 * partitioned, the number of blocks for blocked.
 *
 * Return: 0, or -EINVAL when the filter cannot be halved.
 */
int bloom_halve_geom(const struct bloom_geom *in, struct bloom_geom *out)
{
	u64 range = in->bits;

	if (in->layout == BLOOM_LAYOUT_BLOCKED)
		range /= BLOOM_BLOCK_BITS;
	else if (in->layout == BLOOM_LAYOUT_PARTITIONED)
		range /= in->hashes;
	if (!is_pow2(range) || range < 2)
		return -EINVAL;
	*out = *in;
	out->bits = in->bits / 2;
	out->capacity = max(in->capacity / 2, 1ULL);
	return bloom_geom_check(out);
}
EXPORT_SYMBOL_GPL(bloom_halve_geom);

/* Bits 2j and 2j+1 of @x ORed into bit j of the low half. */
static u64 fold_pairs(u64 x)
{
	x = (x | x >> 1) & 0x5555555555555555ULL;
	x = (x | x >> 1) & 0x3333333333333333ULL;
	x = (x | x >> 2) & 0x0f0f0f0f0f0f0f0fULL;
	x = (x | x >> 4) & 0x00ff00ff00ff00ffULL;
	x = (x | x >> 8) & 0x0000ffff0000ffffULL;
	return (x | x >> 16) & 0xffffffffULL;
}

/* Counters 2j and 2j+1 of @x summed into counter j of the low half. */
static u64 fold_counters(u64 x)
{
	u64 out = 0;
	int j;

	for (j = 0; j < 8; j++) {
		u64 sum = ((x >> (8 * j)) & 15) + ((x >> (8 * j + 4)) & 15);

		out |= min(sum, 15ULL) << (4 * j);
	}
	return out;
}

/* Counter-wise maximum of @w and @v, so that a repeated fold is a no-op. */
static void counters_max(bloom_word_t *w, u64 v)
{
	u64 old = bloom_word_read(w);

	while (!bloom_word_cmpxchg(w, &old, nibble_max(old, v)))
		;
}

/**
 * bloom_halve() - fold @src into the half-size filter @dst
 * @from: the core of @src
 * @src: contents read
 * @to: the core of @dst, from bloom_halve_geom()
 * @dst: new contents, empty or folded from @src before
 *
 * Merges into @dst rather than overwriting it, so folding again after
 * adds to @src (or to a published @dst) loses nothing and counts
 * nothing twice.
 */
void bloom_halve(const struct bloom_core *from, const struct bloom_bits *src,
		 const struct bloom_core *to, struct bloom_bits *dst)
{
	u64 i, n, want;

	for (i = 0; i < to->nwords; i++) {
		u64 lo = bloom_word_read(&src->words[2 * i]);
		u64 hi = 2 * i + 1 < from->nwords ?
			 bloom_word_read(&src->words[2 * i + 1]) : 0;
		u64 w;

		if (from->g.layout == BLOOM_LAYOUT_BLOCKED)
			w = bloom_word_read(&src->words[i % 8 + (i / 8) * 16]) |
			    bloom_word_read(&src->words[i % 8 + (i / 8) * 16 + 8]);
		else if (from->g.layout == BLOOM_LAYOUT_COUNTING)
			w = fold_counters(lo) | fold_counters(hi) << 32;
		else
			w = fold_pairs(lo) | fold_pairs(hi) << 32;
		if (from->g.layout == BLOOM_LAYOUT_COUNTING)
			counters_max(&dst->words[i], w);
		else if (w)
			bloom_word_fetch_or(&dst->words[i], w);
		maybe_resched(i);
	}
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_fetch_or(&dst->plens[i],
				    bloom_word_read(&src->plens[i]));
	want = bloom_word_read(&src->inserted);
	n = bloom_word_read(&dst->inserted);
	while (n < want && !bloom_word_cmpxchg(&dst->inserted, &n, want))
		;
}
EXPORT_SYMBOL_GPL(bloom_halve);
