// SPDX-License-Identifier: GPL-2.0
/*
 * Probing: add, test, delete and count for each layout, single and
 * batched. One xxh64 per key; the probe positions derive from it.
 *
 * Lock-free: bits are set with one atomic OR per 64-bit word and
 * counters change by cmpxchg loops, so concurrent adds never lose each
 * other's bits, and an add that has returned is visible to every later
 * test (atomic RMW is fully ordered). Readers take no lock and never
 * sleep; a reader racing with an add may miss that add, which had not
 * completed.
 */
#include "bloom_core.h"

#define GOLDEN		0x9e3779b97f4a7c15ULL
#define NIBBLES		0x1111111111111111ULL

/* A 64-bit finaliser with full avalanche (MurmurHash3's fmix64). */
static inline u64 mix64(u64 z)
{
	z ^= z >> 33;
	z *= 0xff51afd7ed558ccdULL;
	z ^= z >> 33;
	z *= 0xc4ceb9fe1a85ec53ULL;
	z ^= z >> 33;
	return z;
}

/*
 * Double hashing (Kirsch-Mitzenmacher) over a large range: probe i is
 * the top bits of a + i * b scaled to the range (multiply-shift, so any
 * m works and halving m halves every position).
 */
static inline u64 probe(u64 a, u64 b, u32 i, u64 range)
{
	return bloom_mulhi(a + i * b, range);
}

/*
 * Blocked: the block is the top bits of h scaled to the number of
 * blocks; the k positions inside the 512-bit block are independent
 * 9-bit fields of a mixed copy of h. Inside so small a range double
 * hashing would correlate the probes and raise the false-positive rate.
 */
static inline u64 block_index(const struct bloom_core *c, u64 h)
{
	return bloom_mulhi(h, c->range) * (BLOOM_BLOCK_BITS / 64);
}

/*
 * The next probe inside the block: probes take the 9-bit fields of
 * mix64(h + r * GOLDEN), seven per word, for r = 1, 2, ... in turn.
 * Start with *x = h and *left = 0. Counting down instead of testing
 * i % 7 keeps a division out of the probe loop.
 */
static inline u32 block_bit(u64 *x, u64 *s, u32 *left)
{
	u32 bit;

	if (!*left) {
		*x += GOLDEN;
		*s = mix64(*x);
		*left = 7;
	}
	bit = *s & (BLOOM_BLOCK_BITS - 1);
	*s >>= 9;
	(*left)--;
	return bit;
}

/* The block's probe mask: word i of the block needs the bits mask[i]. */
static inline void block_masks(u32 k, u64 h, u64 mask[8])
{
	u64 x = h, s = 0;
	u32 i, bit, left = 0;

	memset(mask, 0, 8 * sizeof(u64));
	for (i = 0; i < k; i++) {
		bit = block_bit(&x, &s, &left);
		mask[bit / 64] |= 1ULL << (bit % 64);
	}
}

/*
 * One pass over the block: each word that lacks some of its bits gets
 * one atomic OR of all of them (a plain locked OR: the word was just
 * read, so the old value need not be fetched); a word already holding
 * them is only read, so adding a present key dirties no cache line.
 * "New" means some bit was clear when read; two racing adds of one key
 * may both see that, as they may with any multi-word key.
 */
static bool blocked_add(const struct bloom_core *c, struct bloom_bits *b,
			u64 h)
{
	bloom_word_t *w = &b->words[block_index(c, h)];
	u64 mask[8], missing, any = 0;
	int i;

	block_masks(c->g.hashes, h, mask);
	for (i = 0; i < 8; i++) {
		missing = mask[i] & ~bloom_word_read(&w[i]);
		if (missing)
			bloom_word_or(&w[i], missing);
		any |= missing;
	}
	return any;
}

/*
 * No branch on the data: the k probes are all loaded (one cache line)
 * and ANDed together, so a key that is absent costs what a present one
 * costs instead of a mispredicted early exit half the time, and the
 * loads issue in parallel. Each word is one READ_ONCE load: a racing add
 * is seen entirely or not at all in that word; an add that had returned
 * before this test began is seen in every word.
 */
static bool blocked_test(const struct bloom_core *c,
			 const struct bloom_bits *b, u64 h)
{
	const bloom_word_t *w = &b->words[block_index(c, h)];
	u32 i, bit, k = c->g.hashes, left = 0;
	u64 x = h, s = 0, all = 1;

	/*
	 * Up to seven probes: block_bit()'s first word, without its count;
	 * the two must agree (kunit/vectors.h pins both, k = 7 and 16).
	 */
	if (k <= 7) {
		for (s = mix64(h + GOLDEN), i = 0; i < k; i++, s >>= 9) {
			bit = s & (BLOOM_BLOCK_BITS - 1);
			all &= bloom_word_read(&w[bit / 64]) >> (bit % 64);
		}
		return all & 1;
	}
	for (i = 0; i < k; i++) {
		bit = block_bit(&x, &s, &left);
		all &= bloom_word_read(&w[bit / 64]) >> (bit % 64);
	}
	return all & 1;
}

/* Bit position of probe @i for the standard and partitioned layouts. */
static inline u64 bit_pos(const struct bloom_core *c, u64 h, u64 b, u32 i)
{
	if (c->g.layout == BLOOM_LAYOUT_PARTITIONED)
		return i * c->range + probe(h, b, i, c->range);
	return probe(h, b, i, c->range);
}

static bool bits_add(const struct bloom_core *c, struct bloom_bits *b, u64 h)
{
	u64 step = mix64(h) | 1;
	bool new = false;
	u32 i;

	for (i = 0; i < c->g.hashes; i++) {
		u64 pos = bit_pos(c, h, step, i);
		bloom_word_t *w = &b->words[pos / 64];
		u64 bit = 1ULL << (pos % 64);

		if (!(bloom_word_read(w) & bit))
			new |= !(bloom_word_fetch_or(w, bit) & bit);
	}
	return new;
}

/*
 * No branch on the data either: the k loads are independent, so their
 * misses overlap, and an absent key costs what a present one does
 * instead of a mispredicted exit at a varying probe. Each load is one
 * READ_ONCE word, as in blocked_test().
 */
static bool bits_test(const struct bloom_core *c, const struct bloom_bits *b,
		      u64 h)
{
	u64 step = mix64(h) | 1, all = 1;
	u32 i;

	for (i = 0; i < c->g.hashes; i++) {
		u64 pos = bit_pos(c, h, step, i);

		all &= bloom_word_read(&b->words[pos / 64]) >> (pos % 64);
	}
	return all & 1;
}

/* Counting: 16 four-bit counters per word; 15 is sticky (saturated). */
static inline u32 counter_get(const struct bloom_bits *b, u64 pos)
{
	return (bloom_word_read(&b->words[pos / 16]) >> (pos % 16 * 4)) & 15;
}

/* Add @delta (+1 or -1) unless the counter is saturated or would go below
 * zero; returns the value before.
 */
static u32 counter_step(struct bloom_bits *b, u64 pos, int delta)
{
	bloom_word_t *w = &b->words[pos / 16];
	unsigned int shift = pos % 16 * 4;
	u64 old = bloom_word_read(w), new;
	u32 v;

	do {
		v = (old >> shift) & 15;
		if (v == 15 || (delta < 0 && !v))
			return v;
		new = old + ((u64)1 << shift) * (delta > 0 ? 1 : -1);
	} while (!bloom_word_cmpxchg(w, &old, new));
	return v;
}

static bool counting_add(const struct bloom_core *c, struct bloom_bits *b,
			 u64 h)
{
	u64 step = mix64(h) | 1;
	bool new = false;
	u32 i;

	for (i = 0; i < c->g.hashes; i++)
		new |= !counter_step(b, probe(h, step, i, c->range), 1);
	return new;
}

/**
 * bloom_count_hash() - how often a key was added (counting layout)
 * @c: the filter's core
 * @b: its contents
 * @h: bloom_hash() of the key
 *
 * Return: the smallest of the key's counters: an upper bound on the
 * number of adds of the key, 15 when saturated; for a cuckoo table
 * (single-threaded) the copies of its fingerprint in its buckets; 0 for
 * other layouts when absent and 1 when present.
 */
u32 bloom_count_hash(const struct bloom_core *c, const struct bloom_bits *b,
		     u64 h)
{
	u64 step = mix64(h) | 1;
	u32 i, least = 15;
	struct bloom_cuckoo_key k;

	if (c->g.layout == BLOOM_LAYOUT_CUCKOO) {
		bloom_cuckoo_key(c, h, &k);
		return bloom_cuckoo_matches(c, b, &k);
	}

	if (c->g.layout != BLOOM_LAYOUT_COUNTING)
		return bloom_test_hash(c, b, h);
	for (i = 0; i < c->g.hashes && least; i++)
		least = min(least, counter_get(b, probe(h, step, i, c->range)));
	return least;
}
EXPORT_SYMBOL_GPL(bloom_count_hash);

/**
 * bloom_add_hash() - add a key
 * @c: the filter's core
 * @b: its contents
 * @h: bloom_hash() of the key
 *
 * Safe from any context, concurrently with every other operation.
 *
 * Counts the key in @b->inserted when it set a new bit.
 *
 * Return: true if the key was new: it did not test present before.
 */
bool bloom_add_hash(const struct bloom_core *c, struct bloom_bits *b, u64 h)
{
	bool new;

	switch (c->g.layout) {
	case BLOOM_LAYOUT_BLOCKED:
		new = blocked_add(c, b, h);
		break;
	case BLOOM_LAYOUT_COUNTING:
		new = counting_add(c, b, h);
		break;
	default:
		new = bits_add(c, b, h);
	}
	/* Only keys that set a bit count: duplicates leave the line clean. */
	if (new)
		bloom_word_add(&b->inserted, 1);
	return new;
}
EXPORT_SYMBOL_GPL(bloom_add_hash);

/**
 * bloom_test_hash() - test a key
 * @c: the filter's core
 * @b: its contents
 * @h: bloom_hash() of the key
 *
 * Lockless; safe from any context. Never false for a completed add.
 *
 * Return: true if the key may be present, false if it is surely absent.
 */
bool bloom_test_hash(const struct bloom_core *c, const struct bloom_bits *b,
		     u64 h)
{
	u32 value;

	/* The default layout first, before the switch's compares. */
	if (likely(c->g.layout == BLOOM_LAYOUT_BLOCKED))
		return blocked_test(c, b, h);
	switch (c->g.layout) {
	case BLOOM_LAYOUT_COUNTING:
		return bloom_count_hash(c, b, h) > 0;
	case BLOOM_LAYOUT_CUCKOO:
		return bloom_cuckoo_test(c, b, h);	/* not concurrently */
	case BLOOM_LAYOUT_FUSE:
		return bloom_fuse_lookup(c, b, h, &value);	/* never written */
	default:
		return bits_test(c, b, h);
	}
}
EXPORT_SYMBOL_GPL(bloom_test_hash);

/* One key fewer, never below zero (adds of duplicates were not counted). */
static void uncount(struct bloom_bits *b)
{
	u64 n = bloom_word_read(&b->inserted);

	while (n && !bloom_word_cmpxchg(&b->inserted, &n, n - 1))
		;
}

/**
 * bloom_del_hash() - delete a key (counting layout)
 * @c: the filter's core
 * @b: its contents
 * @h: bloom_hash() of the key
 *
 * Decrements the key's counters; saturated counters stay at 15. Deleting
 * a key that was never added can remove other keys: callers delete only
 * what they added. The test and the decrements are not one atomic step:
 * callers serialise deletes of a filter against each other (two deletes
 * of a key added once would otherwise both pass the test and take a
 * shared counter to zero under another key).
 *
 * Return: 0, -ENOENT if the key tests absent, -EOPNOTSUPP for layouts
 * without counters.
 */
int bloom_del_hash(const struct bloom_core *c, struct bloom_bits *b, u64 h)
{
	u64 step = mix64(h) | 1;
	u32 i;

	if (c->g.layout != BLOOM_LAYOUT_COUNTING)
		return -EOPNOTSUPP;
	if (!bloom_count_hash(c, b, h))
		return -ENOENT;
	for (i = 0; i < c->g.hashes; i++)
		counter_step(b, probe(h, step, i, c->range), -1);
	uncount(b);
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_del_hash);

/*
 * Inlined on purpose: a prefetch has no effect the compiler can see, so
 * an out-of-line call to this function was deleted as dead code.
 */
static __always_inline void prefetch_key(const struct bloom_core *c,
					 const struct bloom_bits *b, u64 h)
{
	u64 step = mix64(h) | 1;
	u32 i;

	switch (c->g.layout) {
	case BLOOM_LAYOUT_BLOCKED:
		bloom_prefetch(&b->words[block_index(c, h)]);
		return;
	case BLOOM_LAYOUT_COUNTING:
		for (i = 0; i < c->g.hashes; i++)
			bloom_prefetch(&b->words[probe(h, step, i, c->range) / 16]);
		return;
	default:
		for (i = 0; i < c->g.hashes; i++)
			bloom_prefetch(&b->words[bit_pos(c, h, step, i) / 64]);
	}
}

/* Prefetch the lines keys @from .. @to - 1 will probe. */
static __always_inline void prefetch_keys(const struct bloom_core *c,
					  const struct bloom_bits *b,
					  const u64 *h, u32 from, u32 to)
{
	for (; from < to; from++)
		prefetch_key(c, b, h[from]);
}

/*
 * Batches go a chunk at a time: the next chunk's lines are prefetched
 * before this chunk is probed, so that a chunk's worth of misses is in
 * flight while the CPU works on lines that have arrived. A chunk is
 * about 64 lines, what the miss buffers take: 64 keys of a blocked
 * filter (a line each), 8 of the others (k lines each). Issuing the
 * prefetches together measured faster than one prefetch a fixed
 * distance ahead in the probe loop (blocked, 10^8 keys: 20 against 35
 * ns a key; scripts/bench/core.c).
 */
static inline u32 chunk_keys(const struct bloom_core *c)
{
	return c->g.layout == BLOOM_LAYOUT_BLOCKED ? 64 : 8;
}

/*
 * Add, test or load keys @s .. @e - 1 of a batch, whose lines are warm;
 * bit i - @s of the result is key i's answer.
 */
typedef u64 (*batch_fn)(const struct bloom_core *c, struct bloom_bits *b,
			const u64 *h, u32 s, u32 e);

/*
 * Runs @fn over the batch; @out, if not NULL, gets bit i for key i and
 * zeros past @n in its last word. Chunks divide 64, so none straddles a
 * word of @out.
 */
static __always_inline u32 batch(const struct bloom_core *c,
				 struct bloom_bits *b, const u64 *h, u32 n,
				 batch_fn fn, u64 *out)
{
	u32 s, e, step = chunk_keys(c), sum = 0;
	u64 r;

	prefetch_keys(c, b, h, 0, min(step, n));
	for (s = 0; s < n; s = e) {
		e = s + min(step, n - s);	/* no overflow near U32_MAX */
		prefetch_keys(c, b, h, e, e + min(step, n - e));
		r = fn(c, b, h, s, e);
		sum += bloom_popcount64(r);
		if (!out)
			continue;
		if (s % 64)
			out[s / 64] |= r << (s % 64);
		else
			out[s / 64] = r;
	}
	return sum;
}

/* @add on keys @s .. @e - 1; bit i - @s of the result: key i was new. */
static __always_inline u64 add_keys(const struct bloom_core *c,
				    struct bloom_bits *b, const u64 *h,
				    u32 s, u32 e,
				    bool (*add)(const struct bloom_core *c,
						struct bloom_bits *b, u64 h))
{
	u64 new = 0;
	u32 i;

	for (i = s; i < e; i++)
		new |= (u64)add(c, b, h[i]) << (i - s);
	return new;
}

static u64 add_chunk(const struct bloom_core *c, struct bloom_bits *b,
		     const u64 *h, u32 s, u32 e)
{
	return add_keys(c, b, h, s, e, bloom_add_hash);
}

/**
 * bloom_add_batch() - add many keys, overlapping their cache misses
 * @c: the filter's core
 * @b: its contents
 * @h: bloom_hash() of each key
 * @n: number of keys
 *
 * Return: how many keys were new.
 */
u32 bloom_add_batch(const struct bloom_core *c, struct bloom_bits *b,
		    const u64 *h, u32 n)
{
	return batch(c, b, h, n, add_chunk, NULL);
}
EXPORT_SYMBOL_GPL(bloom_add_batch);

/* Bit i - @s of the result: key i tested present. */
static __always_inline u64 test_chunk(const struct bloom_core *c,
				      struct bloom_bits *b, const u64 *h,
				      u32 s, u32 e)
{
	u64 hit = 0;
	u32 i;

	/* One branch for the chunk, none per key, on the common layout. */
	if (c->g.layout == BLOOM_LAYOUT_BLOCKED) {
		for (i = s; i < e; i++)
			hit |= (u64)blocked_test(c, b, h[i]) << (i - s);
	} else {
		for (i = s; i < e; i++)
			hit |= (u64)bloom_test_hash(c, b, h[i]) << (i - s);
	}
	return hit;
}

/**
 * bloom_test_batch() - test many keys, overlapping their cache misses
 * @c: the filter's core
 * @b: its contents
 * @h: bloom_hash() of each key
 * @n: number of keys
 * @present: bitmap of @n bits, bit i set when key i tests present; the
 *	bits past @n in its last word are cleared
 *
 * Return: how many keys tested present.
 */
u32 bloom_test_batch(const struct bloom_core *c, const struct bloom_bits *b,
		     const u64 *h, u32 n, u64 *present)
{
	/*
	 * test_chunk() only reads @b: dropping const lets one batch() serve
	 * adds, loads and tests alike.
	 */
	return batch(c, (struct bloom_bits *)b, h, n, test_chunk, present);
}
EXPORT_SYMBOL_GPL(bloom_test_batch);

/*
 * Loading contents nobody else can see: plain loads and stores instead
 * of atomic RMW, which would lock the bus for each word.
 */
static u64 private_or(bloom_word_t *w, u64 mask)
{
	u64 old = bloom_word_read(w);

	bloom_word_set(w, old | mask);
	return ~old & mask;
}

static bool private_add(const struct bloom_core *c, struct bloom_bits *b,
			u64 h)
{
	u64 step = mix64(h) | 1, mask[8], missing = 0;
	bloom_word_t *w;
	u32 i, v;

	switch (c->g.layout) {
	case BLOOM_LAYOUT_BLOCKED:
		w = &b->words[block_index(c, h)];
		block_masks(c->g.hashes, h, mask);
		for (i = 0; i < 8; i++)
			missing |= private_or(&w[i], mask[i]);
		return missing;
	case BLOOM_LAYOUT_COUNTING:
		for (i = 0; i < c->g.hashes; i++) {
			u64 pos = probe(h, step, i, c->range);
			u32 shift = pos % 16 * 4;

			w = &b->words[pos / 16];
			v = (bloom_word_read(w) >> shift) & 15;
			missing |= !v;
			if (v < 15)
				bloom_word_set(w, bloom_word_read(w) +
					       ((u64)1 << shift));
		}
		return missing;
	default:
		for (i = 0; i < c->g.hashes; i++) {
			u64 pos = bit_pos(c, h, step, i);

			missing |= private_or(&b->words[pos / 64],
					      1ULL << (pos % 64));
		}
		return missing;
	}
}

static u64 load_chunk(const struct bloom_core *c, struct bloom_bits *b,
		      const u64 *h, u32 s, u32 e)
{
	return add_keys(c, b, h, s, e, private_add);
}

/**
 * bloom_load_batch() - add many keys to contents no reader can see yet
 * @c: the filter's core
 * @b: contents private to the caller: new, not yet published or swapped
 *     in, or restored into a copy
 * @h: bloom_hash() of each key
 * @n: number of keys
 *
 * The bulk-load path: create, load, then publish. The same bits as
 * bloom_add_batch() without atomic operations, so it is only correct
 * while no other CPU reads or writes @b; publishing (rcu_assign_pointer,
 * or the lock that hands the contents over) orders these stores before
 * any reader. New keys are counted in @b->inserted, as by single adds.
 *
 * Return: how many keys were new.
 */
u32 bloom_load_batch(const struct bloom_core *c, struct bloom_bits *b,
		     const u64 *h, u32 n)
{
	u32 new = batch(c, b, h, n, load_chunk, NULL);

	bloom_word_set(&b->inserted, bloom_word_read(&b->inserted) + new);
	return new;
}
EXPORT_SYMBOL_GPL(bloom_load_batch);

/**
 * bloom_note_plen() - record that a net filter holds a prefix length
 * @b: the contents
 * @plen: prefix length on the 128-bit form, 0..128
 */
void bloom_note_plen(struct bloom_bits *b, unsigned int plen)
{
	bloom_word_t *w = &b->plens[plen / 64];
	u64 bit = 1ULL << (plen % 64);

	if (!(bloom_word_read(w) & bit))
		bloom_word_fetch_or(w, bit);
}
EXPORT_SYMBOL_GPL(bloom_note_plen);

/**
 * bloom_bits_clear() - empty contents in place
 * @c: the filter's core
 * @b: contents no reader is using (new, or private to the caller)
 */
void bloom_bits_clear(const struct bloom_core *c, struct bloom_bits *b)
{
	u64 i;

	bloom_word_set(&b->inserted, 0);
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_set(&b->plens[i], 0);
	for (i = 0; i < c->nwords; i++)
		bloom_word_set(&b->words[i], 0);
}
EXPORT_SYMBOL_GPL(bloom_bits_clear);
