// SPDX-License-Identifier: GPL-2.0
/*
 * Geometry: validation, optimal sizing for a capacity and false-positive
 * rate, and the exact theoretical false-positive rate of each layout.
 */
#include "bloom_core.h"

#define Q32		32
#define LN_CUTOFF	(-(30LL << Q32))	/* e^-30: a negligible term */
#define LN2_Q32		0xb17217f8ULL		/* ln 2, Q32 */

static u64 max_units(u8 layout)
{
	/* A counter takes four bits of memory. */
	return layout == BLOOM_LAYOUT_COUNTING ? BLOOM_MAX_BITS / 4 :
						 BLOOM_MAX_BITS;
}

/*
 * A scalable filter: stages of a layout that probes one way (a counting
 * filter's deletes would have to find the stage a key went to), no
 * aging, growth and tightening in range. The first stage holds no more
 * keys than it has bits: the next stages are sized from its capacity
 * and its rate there, so a small first stage that claimed a large
 * capacity would make them far larger than itself.
 */
static int scalable_check(const struct bloom_geom *g)
{
	if (g->capacity > g->bits ||
	    g->gens || g->period_ms || g->age_flags ||
	    g->layout == BLOOM_LAYOUT_COUNTING ||
	    g->stages_max > BLOOM_STAGES_MAX ||
	    g->growth < BLOOM_GROWTH_MIN || g->growth > BLOOM_GROWTH_MAX ||
	    g->tighten_pct < BLOOM_TIGHTEN_MIN_PCT ||
	    g->tighten_pct > BLOOM_TIGHTEN_MAX_PCT)
		return -EINVAL;
	return 0;
}

/*
 * A cuckoo table: f-bit fingerprints, each with a value of up to
 * BLOOM_CUCKOO_VALUE_BITS_MAX bits, in slots of at most
 * BLOOM_CUCKOO_FP_MAX bits, in whole buckets, 2 to 2^32 - 1 of them;
 * neither aging nor scalable.
 */
static int cuckoo_check(const struct bloom_geom *g)
{
	u64 bucket_bits = (u64)BLOOM_CUCKOO_SLOTS * bloom_cuckoo_width(g);

	if (g->gens || g->period_ms || g->age_flags || g->stages_max ||
	    g->growth || g->tighten_pct ||
	    g->value_bits > BLOOM_CUCKOO_VALUE_BITS_MAX ||
	    g->hashes < BLOOM_CUCKOO_FP_MIN ||
	    bloom_cuckoo_width(g) > BLOOM_CUCKOO_FP_MAX ||
	    g->bits % bucket_bits || g->bits / bucket_bits < 2)
		return -EINVAL;
	return g->bits / bucket_bits > U32_MAX ? -E2BIG : 0;
}

/**
 * bloom_geom_check() - validate a geometry
 * @g: the geometry
 *
 * Return: 0, -EINVAL for a malformed geometry, -E2BIG when over the size cap.
 */
int bloom_geom_check(const struct bloom_geom *g)
{
	if (g->layout >= BLOOM_LAYOUT_MAX || g->key_type >= BLOOM_KEY_MAX ||
	    bloom_key_type_retired(g->key_type) || (g->flags & ~BLOOM_F_ALL))
		return -EINVAL;
	if ((g->flags & BLOOM_F_FAMILY) &&
	    ((g->flags & BLOOM_F_FAMILY) == BLOOM_F_FAMILY ||
	     !bloom_key_type_has_family(g->key_type)))
		return -EINVAL;
	if ((g->flags & BLOOM_F_SUMMARY) && g->key_type != BLOOM_KEY_NET)
		return -EINVAL;
	if ((g->flags & BLOOM_F_PROBES_MASK) &&
	    (g->key_type != BLOOM_KEY_NET ||
	     bloom_geom_probes(g) > BLOOM_PROBES_MAX))
		return -EINVAL;
	if (g->hashes < 1 || g->hashes > BLOOM_MAX_HASHES)
		return -EINVAL;
	if (g->bits < BLOOM_MIN_BITS)
		return -EINVAL;
	if (g->bits > max_units(g->layout))
		return -E2BIG;
	if (g->layout == BLOOM_LAYOUT_BLOCKED && g->bits % BLOOM_BLOCK_BITS)
		return -EINVAL;
	if (g->layout == BLOOM_LAYOUT_PARTITIONED && g->bits % g->hashes)
		return -EINVAL;
	if (g->layout == BLOOM_LAYOUT_CUCKOO)
		return cuckoo_check(g);
	if (g->layout == BLOOM_LAYOUT_FUSE)
		return bloom_fuse_check(g);
	if (g->value_bits)
		return -EINVAL;
	if (g->stages_max)
		return scalable_check(g);
	if (g->growth || g->tighten_pct)
		return -EINVAL;
	/* A plain filter has no aging parameters; an aging one 2..MAX. */
	if (!g->gens)
		return g->period_ms || g->age_flags ? -EINVAL : 0;
	if (g->gens < BLOOM_GENERATIONS_MIN ||
	    g->gens > BLOOM_GENERATIONS_MAX ||
	    (g->age_flags & ~BLOOM_AGE_F_ALL) ||
	    (g->period_ms && g->period_ms < BLOOM_AGE_PERIOD_MIN_MS))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_geom_check);

/**
 * bloom_geom_default_capacity() - the capacity of a filter given by m and k
 * @g: a valid geometry
 *
 * The load at which k probes are optimal for m units: floor(m ln 2 / k);
 * for a cuckoo table, its slots at BLOOM_CUCKOO_LOAD_PCT.
 *
 * Return: at least 1.
 */
u64 bloom_geom_default_capacity(const struct bloom_geom *g)
{
	/* m < 2^38 and ln 2 < 1 in Q32: the product fits 128 bits, the
	 * quotient 64.
	 */
	u64 n = bloom_mul_div(g->bits, LN2_Q32, (u64)g->hashes << Q32);

	if (g->layout == BLOOM_LAYOUT_CUCKOO)
		n = g->bits / bloom_cuckoo_width(g) * BLOOM_CUCKOO_LOAD_PCT /
		    100;
	if (g->layout == BLOOM_LAYOUT_FUSE)
		n = g->capacity;	/* the keys it was built from */

	return n ? n : 1;
}
EXPORT_SYMBOL_GPL(bloom_geom_default_capacity);

/**
 * bloom_core_init() - derive the probing parameters of a valid geometry
 * @c: the core to fill
 * @g: a geometry that passed bloom_geom_check()
 */
void bloom_core_init(struct bloom_core *c, const struct bloom_geom *g)
{
	c->g = *g;
	switch (g->layout) {
	case BLOOM_LAYOUT_BLOCKED:
		c->range = g->bits / BLOOM_BLOCK_BITS;
		c->nwords = g->bits / 64;
		break;
	case BLOOM_LAYOUT_PARTITIONED:
		c->range = g->bits / g->hashes;
		c->nwords = DIV_ROUND_UP(g->bits, 64);
		break;
	case BLOOM_LAYOUT_COUNTING:
		c->range = g->bits;
		c->nwords = DIV_ROUND_UP(g->bits, 16);
		break;
	case BLOOM_LAYOUT_CUCKOO:
		c->range = g->bits /
			   ((u64)BLOOM_CUCKOO_SLOTS * bloom_cuckoo_width(g));
		c->nwords = DIV_ROUND_UP(g->bits, 64);
		break;
	case BLOOM_LAYOUT_FUSE:
		c->range = bloom_fuse_entries(g->capacity, &c->seg_len) -
			   2 * (u64)c->seg_len;
		c->nwords = DIV_ROUND_UP(g->bits, 64);
		break;
	default:
		c->range = g->bits;
		c->nwords = DIV_ROUND_UP(g->bits, 64);
	}
}
EXPORT_SYMBOL_GPL(bloom_core_init);

/**
 * bloom_array_bytes() - memory of the array of a filter
 * @c: the filter's core
 *
 * Return: bytes of words, excluding the struct bloom_bits header.
 */
u64 bloom_array_bytes(const struct bloom_core *c)
{
	return c->nwords * sizeof(u64);
}
EXPORT_SYMBOL_GPL(bloom_array_bytes);

/**
 * bloom_geom_same() - may two filters be combined?
 * @a: one filter's core
 * @b: the other's
 *
 * Return: 0 when layout, size, probes, seed, key type and family agree,
 * else -EINVAL.
 */
int bloom_geom_same(const struct bloom_core *a, const struct bloom_core *b)
{
	const struct bloom_geom *x = &a->g, *y = &b->g;

	if (x->bits != y->bits || x->hashes != y->hashes ||
	    x->layout != y->layout || x->seed != y->seed ||
	    x->key_type != y->key_type ||
	    (x->flags & BLOOM_F_FAMILY) != (y->flags & BLOOM_F_FAMILY))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_geom_same);

/* t * ln(1 - 1/m), Q32, clamped at -64: the log of (1 - 1/m)^t. */
static s64 ln_miss(u64 t, u64 m)
{
	u64 c1, c2, c3 = 0;

	if (t / m >= 64)
		return -(64LL << Q32);
	c1 = bloom_mul_div(t, 1ULL << Q32, m);
	c2 = c1 / (2 * m);
	if (m < (1ULL << 20))
		c3 = c1 / (3 * m * m);
	return -(s64)(c1 + c2 + c3);
}

/* k * ln(fill) where fill = 1 - (1 - 1/m)^t: log of an all-set probe. */
static s64 ln_all_set(u64 t, u64 m, u32 k)
{
	u64 miss = bloom_fx_exp(ln_miss(t, m));

	if (miss >= (1ULL << Q32))
		return S64_MIN / 2;
	return (s64)k * bloom_fx_ln((1ULL << Q32) - miss);
}

/* Past ~40 bits per slot every block is full: the rate is 1. */
#define FULL_PER_BLOCK(k)	(40 * BLOOM_BLOCK_BITS / (k))
/*
 * The Poisson sum below ends within 2 lambda + 46 terms: past j = 2 lambda
 * each term is less than half the one before, and 45 halvings take a
 * log-probability at most 0 below LN_CUTOFF (e^-30).
 */
#define POISSON_MAX_J		(2 * (FULL_PER_BLOCK(1) + 1) + 46)

/*
 * Blocked: a block holding j keys answers a probe of k bits with
 * probability (1 - (1 - 1/512)^(jk))^k; the number of keys in a block is
 * Poisson with mean n / blocks. The sum is scaled by e^-ln_scale.
 */
static u64 blocked_fpr(u64 blocks, u32 k, u64 n, s64 ln_scale)
{
	s64 lambda, ln_lambda, lp;
	u64 sum = 0, j;

	if (n / blocks > FULL_PER_BLOCK(k))
		return bloom_fx_exp(-ln_scale);
	/*
	 * n < (FULL_PER_BLOCK(1) + 1) blocks, so lambda < 20481 * 2^32 fits;
	 * it is at least 2^32 / blocks, not 0, for the 2^28 blocks or fewer
	 * of a valid geometry.
	 */
	lambda = (s64)bloom_mul_div(n, 1ULL << Q32, blocks);
	ln_lambda = bloom_fx_ln((u64)lambda);
	lp = -lambda;	/* ln Poisson(j) */
	for (j = 1; j <= POISSON_MAX_J; j++) {
		lp += ln_lambda - bloom_fx_ln(j << Q32);
		if (lp > LN_CUTOFF) {
			s64 l = lp + ln_all_set(j * k, BLOOM_BLOCK_BITS, k);
			u64 term = bloom_fx_exp(l - ln_scale);

			if (term == U64_MAX || sum + term < sum)
				return U64_MAX;
			sum += term;
		} else if ((s64)(j << Q32) > lambda) {
			break;
		}
	}
	return sum;
}

/*
 * The rate scaled by e^-ln_scale. A geometry without a whole block, slice
 * or bit is full; so is one where every unit holds 64 keys or more, as
 * ln_miss() would find, and one where k n does not fit 64 bits (an upper
 * bound, reached only far past BLOOM_MAX_BITS).
 */
static u64 fpr_scaled(const struct bloom_geom *g, u64 n, s64 ln_scale)
{
	u64 m = g->bits, t;
	u32 k = g->hashes;

	if (!n)
		return 0;
	switch (g->layout) {
	case BLOOM_LAYOUT_BLOCKED:
		if (!k || m < BLOOM_BLOCK_BITS)
			break;
		return blocked_fpr(m / BLOOM_BLOCK_BITS, k, n, ln_scale);
	case BLOOM_LAYOUT_PARTITIONED:
		if (!k || m < k || n / (m / k) >= 64)
			break;
		return bloom_fx_exp(ln_all_set(n, m / k, k) - ln_scale);
	default:
		if (!k || !m || n / m >= 64 || check_mul_overflow((u64)k, n, &t))
			break;
		return bloom_fx_exp(ln_all_set(t, m, k) - ln_scale);
	}
	return bloom_fx_exp(-ln_scale);
}

/**
 * bloom_theory_fpr_q32() - exact expected false-positive rate
 * @g: the geometry
 * @n: distinct keys added
 *
 * Return: the probability that a key never added tests present, Q32.32.
 */
u64 bloom_theory_fpr_q32(const struct bloom_geom *g, u64 n)
{
	if (g->layout == BLOOM_LAYOUT_CUCKOO)
		return bloom_cuckoo_fpr_q32(g, n);
	if (g->layout == BLOOM_LAYOUT_FUSE)
		return bloom_fuse_fpr_q32(g);
	return fpr_scaled(g, n, 0);
}
EXPORT_SYMBOL_GPL(bloom_theory_fpr_q32);

/**
 * bloom_theory_fpr_ppb() - bloom_theory_fpr_q32() in parts per 10^9
 * @g: the geometry
 * @n: distinct keys added
 *
 * Return: the rate in parts per 10^9.
 */
u64 bloom_theory_fpr_ppb(const struct bloom_geom *g, u64 n)
{
	return bloom_mul_shr(bloom_theory_fpr_q32(g, n), BLOOM_PPB, Q32);
}
EXPORT_SYMBOL_GPL(bloom_theory_fpr_ppb);

/**
 * bloom_geom_probes() - the prefix lengths a net lookup is sized for
 * @g: the geometry
 *
 * Return: P of BLOOM_F_PROBES(P); 0 when not given (a filter sized by
 * m and k alone, or made before lookups were sized), and for other key
 * types.
 */
unsigned int bloom_geom_probes(const struct bloom_geom *g)
{
	if (g->key_type != BLOOM_KEY_NET)
		return 0;
	return (g->flags & BLOOM_F_PROBES_MASK) >> BLOOM_F_PROBES_SHIFT;
}
EXPORT_SYMBOL_GPL(bloom_geom_probes);

/**
 * bloom_geom_over_lengths() - does a net filter probe more than it may?
 * @g: the geometry
 * @lengths: the lengths a lookup probes (bloom_net_lookup_lengths())
 *
 * Return: true past the P it was sized for; never without a P.
 */
bool bloom_geom_over_lengths(const struct bloom_geom *g, unsigned int lengths)
{
	unsigned int p = bloom_geom_probes(g);

	return p && lengths > p;
}
EXPORT_SYMBOL_GPL(bloom_geom_over_lengths);

/**
 * bloom_probe_fpr_ppb() - the rate each probe is sized at
 * @g: the geometry (its key type and flags)
 * @lookup_ppb: the rate asked for a lookup
 *
 * A net lookup of P probes matches falsely when any probe does: at most
 * P times a probe's rate (the union bound), so each probe gets 1/P of
 * the rate asked. Other keys, and net filters without a P, are sized
 * per probe.
 *
 * Return: the per-probe rate, at least 1 part per 10^9.
 */
u64 bloom_probe_fpr_ppb(const struct bloom_geom *g, u64 lookup_ppb)
{
	u64 ppb = lookup_ppb / (bloom_geom_probes(g) ?: 1);

	return ppb ? ppb : 1;
}
EXPORT_SYMBOL_GPL(bloom_probe_fpr_ppb);

/**
 * bloom_lookup_fpr_ppb() - the rate of a lookup of independent probes
 * @probe_ppb: each probe's rate
 * @probes: how many
 *
 * Return: 1 - (1 - p)^probes, in parts per 10^9.
 */
u64 bloom_lookup_fpr_ppb(u64 probe_ppb, unsigned int probes)
{
	u64 pass = BLOOM_PPB, q = BLOOM_PPB - min(probe_ppb, BLOOM_PPB);

	while (probes--)
		pass = pass * q / BLOOM_PPB;	/* both <= 10^9: no overflow */
	return BLOOM_PPB - pass;
}
EXPORT_SYMBOL_GPL(bloom_lookup_fpr_ppb);

/* Units (bits, counters, slice bits or blocks) per step of the search. */
static u64 unit_bits(const struct bloom_geom *g)
{
	if (g->layout == BLOOM_LAYOUT_BLOCKED)
		return BLOOM_BLOCK_BITS;
	if (g->layout == BLOOM_LAYOUT_PARTITIONED)
		return g->hashes;
	return 1;
}

/* Smallest m for this k with fpr <= e^ln_eps, or 0 if over the cap. */
static u64 smallest_bits(struct bloom_geom *g, u64 n, s64 ln_eps)
{
	u64 unit = unit_bits(g);
	u64 lo = DIV_ROUND_UP(BLOOM_MIN_BITS, unit);
	u64 hi = max_units(g->layout) / unit;

	g->bits = hi * unit;
	if (fpr_scaled(g, n, ln_eps) > (1ULL << Q32))
		return 0;
	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		g->bits = mid * unit;
		if (fpr_scaled(g, n, ln_eps) > (1ULL << Q32))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo * unit;
}

/* A static filter: the narrowest fingerprint with 2^-f <= the rate. */
static int fuse_size(u64 capacity, u64 fpr_ppb, struct bloom_geom *g)
{
	struct bloom_geom f;
	u32 bits = BLOOM_FUSE_FP_MIN;
	int err;

	while (bits < BLOOM_FUSE_FP_MAX && (BLOOM_PPB >> bits) > fpr_ppb)
		bits++;
	err = bloom_fuse_geom(capacity, bits, 0, &f);
	if (err)
		return err;
	g->layout = f.layout;
	g->hashes = f.hashes;
	g->bits = f.bits;
	g->capacity = f.capacity;
	return 0;
}

/**
 * bloom_geom_size() - the smallest geometry that meets a target rate
 * @capacity: distinct keys the filter must hold
 * @fpr_ppb: target false-positive rate at @capacity, parts per 10^9,
 *	in (0, 0.5]
 * @layout: enum bloom_layout
 * @g: filled with bits, hashes, layout and capacity; others untouched
 *
 * Tries every k and keeps the one needing the least memory, using the
 * layout's exact rate (blocked needs a few more bits per key than
 * standard). Takes milliseconds: call it from process context.
 *
 * Return: 0, -EINVAL for a bad request, -E2BIG if over the size cap.
 */
int bloom_geom_size(u64 capacity, u64 fpr_ppb, u8 layout,
		    struct bloom_geom *g)
{
	s64 ln_eps;
	u64 best = 0;
	u32 k, best_k = 0;

	if (!capacity || !fpr_ppb || fpr_ppb > BLOOM_PPB / 2 ||
	    layout >= BLOOM_LAYOUT_MAX)
		return -EINVAL;
	if (capacity > max_units(layout))
		return -E2BIG;
	if (layout == BLOOM_LAYOUT_CUCKOO)
		return bloom_cuckoo_size(capacity, fpr_ppb, g);
	if (layout == BLOOM_LAYOUT_FUSE)
		return fuse_size(capacity, fpr_ppb, g);
	ln_eps = bloom_fx_ln(fpr_ppb << Q32) - bloom_fx_ln(BLOOM_PPB << Q32);
	g->layout = layout;
	for (k = 1; k <= BLOOM_MAX_HASHES; k++) {
		u64 bits;

		g->hashes = k;
		bits = smallest_bits(g, capacity, ln_eps);
		if (bits && (!best || bits < best)) {
			best = bits;
			best_k = k;
		} else if (best && bits > best + best / 8) {
			break;	/* memory grows again past the optimum */
		}
	}
	if (!best)
		return -E2BIG;
	g->bits = best;
	g->hashes = best_k;
	g->capacity = capacity;
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_geom_size);

/* The rate of stage 0 at its capacity, the series' first term. */
static u64 first_rate_ppb(const struct bloom_geom *g)
{
	u64 rate = bloom_theory_fpr_ppb(g, g->capacity);

	return rate ? rate : 1;
}

/**
 * bloom_stage_geom() - the geometry of stage @i of a scalable filter
 * @g: the filter's geometry, which is stage 0's
 * @i: the stage, 0 .. @g->stages_max - 1
 * @out: filled in: stage 0 is @g itself; stage i holds @g->growth^i
 *	times the first capacity at (@g->tighten_pct / 100)^i times the
 *	first stage's rate at its capacity, rounded down to whole ppb
 *
 * Deterministic, so that the kernel and userspace agree on every
 * stage's size from the first's. Takes milliseconds (bloom_geom_size()).
 *
 * Return: 0, -E2BIG when the stage would be over the size cap or its
 * rate under 1 ppb.
 */
int bloom_stage_geom(const struct bloom_geom *g, unsigned int i,
		     struct bloom_geom *out)
{
	u64 cap = g->capacity, rate = first_rate_ppb(g);
	unsigned int j;
	int err;

	*out = *g;
	for (j = 0; j < i; j++) {
		if (cap > max_units(g->layout) / g->growth)
			return -E2BIG;
		cap *= g->growth;
		/* Under 1 ppb the series' bound would not hold: no stage. */
		rate = rate * g->tighten_pct / 100;
		if (!rate)
			return -E2BIG;
	}
	if (!i)
		return 0;
	err = bloom_geom_size(cap, rate, g->layout, out);
	return err == -EINVAL ? -E2BIG : err;
}
EXPORT_SYMBOL_GPL(bloom_stage_geom);

/**
 * bloom_stage_bound_ppb() - the rate a scalable filter stays below
 * @g: its geometry
 *
 * Return: e0 / (1 - r), the sum of the rates of infinitely many stages
 * at capacity (an upper bound on the union of their false positives).
 */
u64 bloom_stage_bound_ppb(const struct bloom_geom *g)
{
	return first_rate_ppb(g) * 100 / (100 - g->tighten_pct);
}
EXPORT_SYMBOL_GPL(bloom_stage_bound_ppb);
