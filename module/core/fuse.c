// SPDX-License-Identifier: GPL-2.0
/*
 * Static filters and maps (BLOOM_LAYOUT_FUSE): binary fuse filters
 * (Graf and Lemire, 2022) of f-bit fingerprints, each entry followed by
 * an optional v-bit value (a Bloomier map). Shared by bloom.ko, which
 * only looks keys up (the entries never change once loaded), and
 * bloomctl, which builds them: the same code, so the same bits from the
 * same keys and seed.
 *
 * Shape. n keys get E = (S + 2) L entries of f + v bits: S segments of
 * L = 2^i entries, and two more. A key's hash h picks its first entry
 * p0 by a multiply-shift onto [0, S L), its second in the next segment
 * and its third in the one after (bloom_fuse_key()). L and S follow from
 * n alone (bloom_fuse_entries()), by the reference implementation's
 * rules: L = 2^floor(log_3.33(n) + 2.25), at most 2^18, and E about
 * 1.125 n for large n (more for small n, where peeling needs more room).
 *
 * Build. Every key's three entries are counted; an entry with one key
 * left is "peeled": the key is set aside, taken out of its other two
 * entries, and those may become peelable in turn. When all keys were
 * peeled, they are assigned in reverse order, each one's peeled entry
 * set so that the XOR of its three is (fp << v) | value; later keys
 * never touch entries already fixed for earlier ones. A build that
 * cannot peel every key fails for this seed (-EAGAIN) and the caller
 * hashes the keys with the next one (BLOOM_FUSE_SEED_STEP). Keys are
 * radix-sorted by hash first: duplicates become neighbours (the same
 * key twice is one key; with two values, an error), and the peeling
 * walks the entries nearly in order, which keeps it in cache.
 */
#include "bloom_core.h"

#define SEG_LEN_MAX_SHIFT	18
#define SMALL_SEG_SHIFT		2		/* n <= 2: L = 4 */
#define BIG_N			1000000		/* from here E = 1.125 n */
#define LN_BIG_N_Q32		0xdd0c54cc8ULL	/* ln 10^6, Q32 */
#define RADIX_BITS		16
#define RADIX			(1U << RADIX_BITS)
#define COUNT_MAX		63		/* keys an entry's count holds */

/*
 * The smallest n whose segments are 2^i entries, for i = 3 to 18: the
 * least integer at or above 3.33^(i - 2.25), so that L = 2^i exactly
 * when floor(ln n / ln 3.33 + 2.25) = i, with no floating point.
 */
static const u32 seg_threshold[] = {
	3, 9, 28, 92, 304, 1010, 3362, 11193, 37273, 124118, 413310,
	1376322, 4583150, 15261887, 50822082, 169237530,
};

static unsigned int seg_shift(u64 n)
{
	unsigned int i, shift = SMALL_SEG_SHIFT;

	for (i = 0; i < ARRAY_SIZE(seg_threshold); i++)
		if (n >= seg_threshold[i])
			shift++;
	return shift;
}

/* Entries to aim at: 1.125 n, or 0.875 n + n ln(10^6) / (4 ln n) below. */
static u64 room(u64 n)
{
	s64 ln_n;

	if (n <= 1)
		return 0;
	if (n > BIG_N)
		return n + DIV_ROUND_UP(n, 8);
	ln_n = bloom_fx_ln(n << 32);
	return DIV_ROUND_UP(7 * n, 8) +
	       bloom_mul_div(n, LN_BIG_N_Q32, 4 * (u64)ln_n);
}

/**
 * bloom_fuse_entries() - how many entries a static filter of n keys has
 * @n: distinct keys, at most BLOOM_FUSE_KEYS_MAX
 * @seg_len: set to the entries per segment
 *
 * Return: the entries, (S + 2) * @seg_len.
 */
u64 bloom_fuse_entries(u64 n, u32 *seg_len)
{
	u32 len = 1U << seg_shift(n);
	u64 segs = DIV_ROUND_UP(room(n), len);

	*seg_len = len;
	segs = segs > 2 ? segs - 2 : 1;
	return (segs + 2) * len;
}
EXPORT_SYMBOL_GPL(bloom_fuse_entries);

/**
 * bloom_fuse_geom() - the geometry of a static filter
 * @n: distinct keys
 * @fp_bits: fingerprint width f
 * @value_bits: value width v, 0 for none
 * @g: filled in but for the seed and key type, which the caller sets
 *
 * Return: 0, -EINVAL for widths out of range, -E2BIG for too many keys.
 */
int bloom_fuse_geom(u64 n, u32 fp_bits, u32 value_bits, struct bloom_geom *g)
{
	u32 seg_len;

	if (fp_bits < BLOOM_FUSE_FP_MIN || fp_bits > BLOOM_FUSE_FP_MAX ||
	    value_bits > BLOOM_FUSE_VALUE_BITS_MAX ||
	    fp_bits + value_bits > BLOOM_FUSE_ENTRY_BITS_MAX)
		return -EINVAL;
	if (n > BLOOM_FUSE_KEYS_MAX)
		return -E2BIG;
	memset(g, 0, sizeof(*g));
	g->layout = BLOOM_LAYOUT_FUSE;
	g->hashes = fp_bits;
	g->value_bits = value_bits;
	g->capacity = n;
	g->bits = bloom_fuse_entries(n, &seg_len) * (fp_bits + value_bits);
	return g->bits > BLOOM_MAX_BITS ? -E2BIG : 0;
}
EXPORT_SYMBOL_GPL(bloom_fuse_geom);

/**
 * bloom_fuse_check() - is a static filter's geometry its keys' shape?
 * @g: a geometry of layout BLOOM_LAYOUT_FUSE
 *
 * Return: 0, -EINVAL, or -E2BIG over the size cap.
 */
int bloom_fuse_check(const struct bloom_geom *g)
{
	struct bloom_geom want;
	int err;

	if (g->gens || g->period_ms || g->age_flags || g->stages_max ||
	    g->growth || g->tighten_pct)
		return -EINVAL;
	err = bloom_fuse_geom(g->capacity, g->hashes, g->value_bits, &want);
	if (err)
		return err;
	return g->bits == want.bits ? 0 : -EINVAL;
}
EXPORT_SYMBOL_GPL(bloom_fuse_check);

/* The build's scratch: counts, XORed key indices, queue, peel order. */
struct scratch {
	u8 *count;	/* per entry: keys there << 2 | XOR of their slots */
	u32 *xor_idx;	/* per entry: XOR of the indices of its keys */
	u32 *queue;	/* entries with one key left */
	u32 *order;	/* peeled keys: index << 2 | the slot peeled */
};

static size_t peel_bytes(u64 entries, u64 n)
{
	return entries * (sizeof(u8) + 2 * sizeof(u32)) + n * sizeof(u32);
}

/**
 * bloom_fuse_scratch_bytes() - scratch a sort and a build need
 * @c: the core of the filter to build (its capacity is n)
 *
 * Return: bytes, for bloom_fuse_sort() and bloom_fuse_build().
 */
size_t bloom_fuse_scratch_bytes(const struct bloom_core *c)
{
	u64 entries = c->range + 2 * (u64)c->seg_len;
	u64 peel = peel_bytes(entries, c->g.capacity);

	return max(peel, (u64)RADIX * sizeof(u64));
}
EXPORT_SYMBOL_GPL(bloom_fuse_scratch_bytes);

/* One pass of the radix sort: @from into @to by 16 bits from @shift. */
static void radix_pass(const struct bloom_fuse_item *from,
		       struct bloom_fuse_item *to, u64 n, unsigned int shift,
		       u64 *pos)
{
	u64 i, sum = 0, c;

	memset(pos, 0, RADIX * sizeof(*pos));
	for (i = 0; i < n; i++)
		pos[from[i].h >> shift & (RADIX - 1)]++;
	for (i = 0; i < RADIX; i++) {
		c = pos[i];
		pos[i] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		to[pos[from[i].h >> shift & (RADIX - 1)]++] = from[i];
	bloom_resched();
}

/**
 * bloom_fuse_sort() - sort keys by hash and drop repeated ones
 * @it: @n keys; sorted, the distinct ones first, on return
 * @tmp: room for @n keys
 * @n: keys
 * @scratch: bloom_fuse_scratch_bytes() (at least RADIX words)
 * @distinct: set to the keys left
 * @dup: on -EEXIST, the @idx of two keys with one hash and two values
 *
 * Return: 0, or -EEXIST.
 */
int bloom_fuse_sort(struct bloom_fuse_item *it, struct bloom_fuse_item *tmp,
		    u64 n, void *scratch, u64 *distinct, u32 dup[2])
{
	unsigned int shift;
	u64 i, out = 0;

	for (shift = 0; shift < 64; shift += 2 * RADIX_BITS) {
		radix_pass(it, tmp, n, shift, scratch);
		radix_pass(tmp, it, n, shift + RADIX_BITS, scratch);
	}
	for (i = 0; i < n; i++) {
		if (out && it[out - 1].h == it[i].h) {
			if (it[out - 1].value == it[i].value)
				continue;
			dup[0] = min(it[out - 1].idx, it[i].idx);
			dup[1] = max(it[out - 1].idx, it[i].idx);
			return -EEXIST;
		}
		it[out++] = it[i];
	}
	*distinct = out;
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_fuse_sort);

static void entry_set(const struct bloom_core *c, struct bloom_bits *b, u64 i,
		      u32 e)
{
	unsigned int w = c->g.hashes + c->g.value_bits;
	u64 pos = i * w, mask = (1ULL << w) - 1, x;
	unsigned int sh = pos % 64;
	bloom_word_t *p = &b->words[pos / 64];

	x = bloom_word_read(p) & ~(mask << sh);
	bloom_word_set(p, x | (u64)e << sh);
	if (sh + w > 64) {
		p++;
		x = bloom_word_read(p) & ~(mask >> (64 - sh));
		bloom_word_set(p, x | (u64)e >> (64 - sh));
	}
}

/* Count key @i in its three entries; false when an entry overflows. */
static bool count_key(struct scratch *s, const struct bloom_fuse_key *k,
		      u32 i)
{
	unsigned int j;

	for (j = 0; j < 3; j++) {
		if (s->count[k->p[j]] >> 2 == COUNT_MAX)
			return false;
		s->count[k->p[j]] += 4;
		s->count[k->p[j]] ^= j;
		s->xor_idx[k->p[j]] ^= i;
	}
	return true;
}

/* Peel every entry with one key left; the number of keys peeled. */
static u64 peel(const struct bloom_core *c, const struct bloom_fuse_item *it,
		struct scratch *s, u64 entries)
{
	struct bloom_fuse_key k;
	u64 e, head = 0, tail = 0, peeled = 0;
	unsigned int j, slot;
	u32 i;

	for (e = 0; e < entries; e++)
		if (s->count[e] >> 2 == 1)
			s->queue[tail++] = e;
	while (head < tail) {
		e = s->queue[head++];
		if (s->count[e] >> 2 != 1)
			continue;	/* emptied by another peel since */
		i = s->xor_idx[e];
		slot = s->count[e] & 3;
		s->order[peeled++] = i << 2 | slot;
		bloom_fuse_key(c, it[i].h, &k);
		for (j = 0; j < 3; j++) {
			s->count[k.p[j]] -= 4;
			s->count[k.p[j]] ^= j;
			s->xor_idx[k.p[j]] ^= i;
			if (j != slot && s->count[k.p[j]] >> 2 == 1)
				s->queue[tail++] = k.p[j];
		}
	}
	return peeled;
}

/* Fix each key's peeled entry, last peeled first. */
static void assign(const struct bloom_core *c, struct bloom_bits *b,
		   const struct bloom_fuse_item *it, const u32 *order, u64 n)
{
	unsigned int v = c->g.value_bits, slot;
	struct bloom_fuse_key k;
	u32 i, e;

	while (n--) {
		i = order[n] >> 2;
		slot = order[n] & 3;
		bloom_fuse_key(c, it[i].h, &k);
		e = (k.fp << v | it[i].value) ^
		    bloom_fuse_entry(c, b, k.p[(slot + 1) % 3]) ^
		    bloom_fuse_entry(c, b, k.p[(slot + 2) % 3]);
		entry_set(c, b, k.p[slot], e);
	}
}

/**
 * bloom_fuse_build() - build a static filter's entries
 * @c: its core (bloom_fuse_geom() for @n keys, and the seed they were
 *	hashed with)
 * @b: zeroed entries, not yet visible to readers
 * @it: @n distinct keys hashed with that seed (bloom_fuse_sort()), values
 *	below 2^v
 * @n: keys
 * @scratch: bloom_fuse_scratch_bytes(@c), any contents
 *
 * Return: 0; -ERANGE for a value of more than v bits; -EAGAIN when this
 * seed does not work: rehash the keys with seed + BLOOM_FUSE_SEED_STEP,
 * sort and build again (@b is untouched).
 */
int bloom_fuse_build(const struct bloom_core *c, struct bloom_bits *b,
		     const struct bloom_fuse_item *it, u64 n, void *scratch)
{
	u64 entries = c->range + 2 * (u64)c->seg_len, i;
	struct bloom_fuse_key k;
	struct scratch s;

	s.count = scratch;
	s.xor_idx = (u32 *)(s.count + entries);
	s.queue = s.xor_idx + entries;
	s.order = s.queue + entries;
	memset(scratch, 0, entries * (sizeof(u8) + sizeof(u32)));
	for (i = 0; i < n; i++) {
		if (it[i].value >> c->g.value_bits)
			return -ERANGE;
		bloom_fuse_key(c, it[i].h, &k);
		if (!count_key(&s, &k, i))
			return -EAGAIN;
	}
	bloom_resched();
	if (peel(c, it, &s, entries) != n)
		return -EAGAIN;
	bloom_resched();
	assign(c, b, it, s.order, n);
	bloom_word_set(&b->inserted, n);
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_fuse_build);

/**
 * bloom_fuse_stats() - what INFO shows of a static filter
 * @c: its core
 * @st: filled in: entries for bits set, keys per entry for the fill,
 *	n keys, the rate 2^-f
 */
void bloom_fuse_stats(const struct bloom_core *c, struct bloom_stats *st)
{
	u64 entries = c->range + 2 * (u64)c->seg_len;

	memset(st, 0, sizeof(*st));
	st->bits_set = entries;
	st->inserted = c->g.capacity;
	st->est_card = c->g.capacity;
	st->fill_ppb = bloom_mul_div(c->g.capacity, BLOOM_PPB, entries);
	st->est_fpr_ppb = bloom_mul_shr(bloom_fuse_fpr_q32(&c->g), BLOOM_PPB,
					32);
	st->mem_bytes = bloom_array_bytes(c);
}
EXPORT_SYMBOL_GPL(bloom_fuse_stats);

/**
 * bloom_fuse_fpr_q32() - a static filter's false-positive rate
 * @g: its geometry
 *
 * Return: 2^-f in Q32, whatever the number of keys.
 */
u64 bloom_fuse_fpr_q32(const struct bloom_geom *g)
{
	return 1ULL << (32 - g->hashes);
}
EXPORT_SYMBOL_GPL(bloom_fuse_fpr_q32);
