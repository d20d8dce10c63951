// SPDX-License-Identifier: GPL-2.0
/*
 * Cuckoo tables (BLOOM_LAYOUT_CUCKOO): where a key's fingerprint goes,
 * how it is found, inserted and deleted, and how full a table is. Shared
 * by bloom.ko, whose kinds/cuckoo.c adds the locking, and bloomctl,
 * which builds and reads snapshot files with the same code.
 *
 * The table is B buckets of BLOOM_CUCKOO_SLOTS slots of w bits, packed
 * in words: slot j of bucket i is the w bits from bit (4i + j) w. A slot
 * is a fingerprint of f bits, 0 when empty, and above it, in tables with
 * values, the key's value of v bits: w = f + v. From a key's hash h:
 *
 *   fp = the top f bits of h, or 1 when they are 0;
 *   i1 = (low 32 bits of h) * B >> 32, Lemire's reduction onto [0, B);
 *   i2 = alt(i1, fp), where alt(i, fp) = (H(fp) - i) mod B and H(fp)
 *        is a multiplicative mix of fp reduced onto [0, B) the same way.
 *
 * alt(alt(i, fp), fp) = i for any B, so a fingerprint can move to its
 * other bucket knowing only where it is, without a power-of-two bucket
 * count (the XOR of the paper needs one). i1 may equal i2: that key has
 * one bucket.
 *
 * An insert finds a free slot in i1 or i2, or searches breadth first
 * (as libcuckoo does) for the shortest chain of moves that ends at a
 * free slot, at most BLOOM_CUCKOO_MOVES moves and BLOOM_CUCKOO_NODES
 * buckets looked at. A shortest chain visits no bucket twice (from a
 * repeated bucket a shorter chain would exist, and breadth first finds
 * it first), so its moves can be made from the far end back, each into
 * the slot the one before freed: a move copies the fingerprint to its
 * other bucket and only then erases it, and every key is in one of its
 * buckets at every moment. No chain: -ENOSPC, and nothing was written.
 *
 * Reading both buckets is not atomic, so a reader can still look at
 * the destination before a copy and at the source after the erase; and
 * a slot that spans two words is written in two stores. The caller
 * brackets every slot written with hooks (kinds/cuckoo.c: a sequence
 * count per stripe of buckets, which readers check), told which writes
 * are the erase of a move. Because the copy comes first, a reader that
 * misses a moving key read the source after its erase began: across
 * the bracket. Single-threaded callers pass no hooks.
 */
#include "bloom_core.h"

#define SMALL_TABLE	1024	/* buckets: below, sizing adds slack */

static u64 fp_mask(const struct bloom_core *c)
{
	return (1ULL << c->g.hashes) - 1;	/* f <= 32 */
}

static u64 slot_mask(const struct bloom_core *c)
{
	return (1ULL << bloom_cuckoo_width(&c->g)) - 1;	/* w <= 32 */
}

/*
 * A whole slot, fingerprint and value, read locklessly: a slot across
 * two words is read in two loads, and a concurrent writer may be seen
 * half done (see the callers' sequence counts).
 */
static u32 entry(const struct bloom_core *c, const struct bloom_bits *b,
		 u64 i, unsigned int j)
{
	unsigned int width = bloom_cuckoo_width(&c->g);
	u64 pos = (i * BLOOM_CUCKOO_SLOTS + j) * width;
	unsigned int sh = pos % 64;
	u64 v = bloom_word_read(&b->words[pos / 64]) >> sh;

	if (sh + width > 64)
		v |= bloom_word_read(&b->words[pos / 64 + 1]) << (64 - sh);
	return v & slot_mask(c);
}

/**
 * bloom_cuckoo_slot() - read a slot's fingerprint, locklessly
 * @c: the table's core
 * @b: the table
 * @i: bucket
 * @j: slot, below BLOOM_CUCKOO_SLOTS
 *
 * Return: the fingerprint, 0 when empty (see entry() on concurrency).
 */
u32 bloom_cuckoo_slot(const struct bloom_core *c, const struct bloom_bits *b,
		      u64 i, unsigned int j)
{
	return entry(c, b, i, j) & fp_mask(c);
}
EXPORT_SYMBOL_GPL(bloom_cuckoo_slot);

/*
 * Write a whole slot. Writers are serialised by the caller; each word
 * is stored whole, so lockless readers see every other slot unchanged.
 */
static void slot_set(const struct bloom_core *c, struct bloom_bits *b, u64 i,
		     unsigned int j, u32 e)
{
	unsigned int width = bloom_cuckoo_width(&c->g);
	u64 pos = (i * BLOOM_CUCKOO_SLOTS + j) * width;
	unsigned int sh = pos % 64;
	bloom_word_t *w = &b->words[pos / 64];
	u64 mask = slot_mask(c);

	e &= mask;	/* never into the next slot, whatever the caller gave */
	bloom_word_set(w, (bloom_word_read(w) & ~(mask << sh)) |
			  (u64)e << sh);
	if (sh + width > 64) {
		unsigned int lo = 64 - sh;

		w++;
		bloom_word_set(w, (bloom_word_read(w) & ~(mask >> lo)) |
				  (u64)e >> lo);
	}
}

/**
 * bloom_cuckoo_find() - where a fingerprint is in a bucket
 * @c: the table's core
 * @b: the table
 * @i: the bucket
 * @fp: the fingerprint, or 0 for a free slot
 *
 * Return: the first slot holding @fp, or -1.
 */
int bloom_cuckoo_find(const struct bloom_core *c, const struct bloom_bits *b,
		      u64 i, u32 fp)
{
	unsigned int j;

	for (j = 0; j < BLOOM_CUCKOO_SLOTS; j++)
		if (bloom_cuckoo_slot(c, b, i, j) == fp)
			return j;
	return -1;
}
EXPORT_SYMBOL_GPL(bloom_cuckoo_find);

/**
 * bloom_cuckoo_matches() - copies of a key's fingerprint in its buckets
 * @c: the table's core
 * @b: the table
 * @k: the key
 *
 * Unsynchronised: the caller makes the two buckets' reads consistent.
 *
 * Return: 0 when absent.
 */
u32 bloom_cuckoo_matches(const struct bloom_core *c,
			 const struct bloom_bits *b,
			 const struct bloom_cuckoo_key *k)
{
	u32 n = 0;
	unsigned int j;

	for (j = 0; j < BLOOM_CUCKOO_SLOTS; j++) {
		n += bloom_cuckoo_slot(c, b, k->i1, j) == k->fp;
		if (k->i2 != k->i1)
			n += bloom_cuckoo_slot(c, b, k->i2, j) == k->fp;
	}
	return n;
}
EXPORT_SYMBOL_GPL(bloom_cuckoo_matches);

/**
 * bloom_cuckoo_value() - is a key present, and with what value?
 * @c: the table's core
 * @b: the table
 * @k: the key
 * @value: set to the value beside the first copy of its fingerprint
 *	(its first bucket first), 0 in a table without values
 *
 * Unsynchronised, as bloom_cuckoo_matches(). Another key that shares
 * the fingerprint and a bucket gives its own value: a false positive
 * answers with some stored key's value.
 *
 * Return: true if present.
 */
bool bloom_cuckoo_value(const struct bloom_core *c, const struct bloom_bits *b,
			const struct bloom_cuckoo_key *k, u32 *value)
{
	u64 i[2] = { k->i1, k->i2 };
	unsigned int n, j;
	u32 e;

	for (n = 0; n < 2; n++) {
		for (j = 0; j < BLOOM_CUCKOO_SLOTS; j++) {
			e = entry(c, b, i[n], j);
			if ((e & fp_mask(c)) == k->fp) {
				/* f may be 32 when there are no values */
				*value = (u64)e >> c->g.hashes;
				return true;
			}
		}
	}
	return false;
}
EXPORT_SYMBOL_GPL(bloom_cuckoo_value);

/**
 * bloom_cuckoo_test() - is a key present? Single-threaded callers only
 * @c: the table's core
 * @b: the table, not being written
 * @h: bloom_hash() of the key
 *
 * Return: true if its fingerprint is in one of its buckets.
 */
bool bloom_cuckoo_test(const struct bloom_core *c, const struct bloom_bits *b,
		       u64 h)
{
	struct bloom_cuckoo_key k;

	bloom_cuckoo_key(c, h, &k);
	return bloom_cuckoo_present(c, b, &k);
}
EXPORT_SYMBOL_GPL(bloom_cuckoo_test);

/*
 * Node @n's parent chain is the path; a root's parent is itself. At most
 * @nodes buckets are queued.
 */
static int search(const struct bloom_core *c, const struct bloom_bits *b,
		  const struct bloom_cuckoo_key *k,
		  struct bloom_cuckoo_node *q, unsigned int nodes,
		  int *free_slot)
{
	unsigned int head, tail = 0, j;

	q[tail++] = (struct bloom_cuckoo_node){ k->i1, 0, 0, 0 };
	if (k->i2 != k->i1)
		q[tail++] = (struct bloom_cuckoo_node){ k->i2, 1, 0, 0 };
	for (head = 0; head < tail; head++) {
		const struct bloom_cuckoo_node *n = &q[head];

		if (n->depth == BLOOM_CUCKOO_MOVES)
			break;		/* breadth first: all after are too */
		for (j = 0; j < BLOOM_CUCKOO_SLOTS; j++) {
			u32 fp = bloom_cuckoo_slot(c, b, n->bucket, j);
			u64 to = bloom_cuckoo_alt(c, n->bucket, fp);
			int slot = bloom_cuckoo_find(c, b, to, 0);

			if (tail >= nodes)
				return -ENOSPC;
			q[tail++] = (struct bloom_cuckoo_node){
				to, head, j, n->depth + 1 };
			if (slot >= 0) {
				*free_slot = slot;
				return tail - 1;
			}
		}
	}
	return -ENOSPC;
}

/* Write a slot inside the caller's hooks (@move: the erase of a move). */
static void write_slot(const struct bloom_core *c, struct bloom_bits *b,
		       u64 i, unsigned int j, u32 e,
		       const struct bloom_cuckoo_mover *mv, bool move)
{
	if (mv)
		mv->begin(mv->arg, i, move);
	slot_set(c, b, i, j, e);
	if (mv)
		mv->end(mv->arg, i);
}

/*
 * Make the moves of the chain ending at node @n, from the far end back:
 * each fingerprint is copied into its other bucket, then erased where it
 * was. Return: the root's slot they freed.
 */
static unsigned int shift_chain(const struct bloom_core *c,
				struct bloom_bits *b,
				const struct bloom_cuckoo_node *q,
				unsigned int n, unsigned int to_slot,
				const struct bloom_cuckoo_mover *mv)
{
	while (q[n].depth) {
		const struct bloom_cuckoo_node *to = &q[n], *from = &q[to->parent];
		u32 e = entry(c, b, from->bucket, to->slot);	/* and its value */

		write_slot(c, b, to->bucket, to_slot, e, mv, false);
		write_slot(c, b, from->bucket, to->slot, 0, mv, true);
		to_slot = to->slot;
		n = to->parent;
	}
	return to_slot;
}

/**
 * bloom_cuckoo_insert_within() - add a key, searching at most @nodes buckets
 * @c: the table's core
 * @b: the table; writers serialised by the caller
 * @h: bloom_hash() of the key
 * @value: its value, below 2^v (0 in a table without values)
 * @q: scratch of BLOOM_CUCKOO_NODES nodes
 * @nodes: buckets the search may queue (at most BLOOM_CUCKOO_NODES): fewer
 *	bound the time an insert into a nearly full table takes, and fail
 *	a little earlier
 * @mv: hooks around each slot written, or NULL
 * @moves: incremented by the moves made, or NULL
 * @copy: store a copy even when the fingerprint is there already
 *
 * Without @copy, a key whose fingerprint is in one of its buckets is
 * not stored again (test-and-add, for dedup and the packet path). With
 * it, every add stores a copy (as a counting filter counts every add):
 * a key that happens to share another's fingerprint and buckets gets
 * its own copy, and deleting one leaves the other. Counts each copy
 * stored in @b->inserted.
 *
 * Return: 1 if the fingerprint was there already (and, with @copy, a
 * copy was stored), 0 if stored, -ENOSPC if it fits nowhere (the table
 * is unchanged).
 */
int bloom_cuckoo_insert_within(const struct bloom_core *c,
			       struct bloom_bits *b, u64 h, u32 value,
			       struct bloom_cuckoo_node *q, unsigned int nodes,
			       const struct bloom_cuckoo_mover *mv, u64 *moves,
			       bool copy)
{
	struct bloom_cuckoo_key k;
	int slot, n, present;
	u64 i;

	bloom_cuckoo_key(c, h, &k);
	present = bloom_cuckoo_present(c, b, &k);
	if (present && !copy)
		return 1;
	i = k.i1;
	slot = bloom_cuckoo_find(c, b, i, 0);
	if (slot < 0) {
		i = k.i2;
		slot = bloom_cuckoo_find(c, b, i, 0);
	}
	if (slot < 0) {
		n = search(c, b, &k, q, min(nodes, BLOOM_CUCKOO_NODES), &slot);
		if (n < 0)
			return n;
		if (moves)
			*moves += q[n].depth;
		slot = shift_chain(c, b, q, n, slot, mv);
		while (q[n].depth)
			n = q[n].parent;
		i = q[n].bucket;
	}
	write_slot(c, b, i, slot, (u32)((u64)value << c->g.hashes) | k.fp, mv,
		   false);
	bloom_word_add(&b->inserted, 1);
	return present;
}
EXPORT_SYMBOL_GPL(bloom_cuckoo_insert_within);

/**
 * bloom_cuckoo_insert() - add a key, searching up to BLOOM_CUCKOO_NODES
 * @c: the table's core
 * @b: the table; writers serialised by the caller
 * @h: bloom_hash() of the key
 * @q: scratch of BLOOM_CUCKOO_NODES nodes
 * @mv: hooks around each slot written, or NULL
 * @moves: incremented by the moves made, or NULL
 * @copy: store a copy even when the fingerprint is there already
 *
 * Stores the value 0: see bloom_cuckoo_insert_within() for others.
 *
 * Return: as bloom_cuckoo_insert_within().
 */
int bloom_cuckoo_insert(const struct bloom_core *c, struct bloom_bits *b,
			u64 h, struct bloom_cuckoo_node *q,
			const struct bloom_cuckoo_mover *mv, u64 *moves,
			bool copy)
{
	return bloom_cuckoo_insert_within(c, b, h, 0, q, BLOOM_CUCKOO_NODES,
					  mv, moves, copy);
}
EXPORT_SYMBOL_GPL(bloom_cuckoo_insert);

/**
 * bloom_cuckoo_delete() - remove one copy of a key's fingerprint
 * @c: the table's core
 * @b: the table; writers serialised by the caller
 * @h: bloom_hash() of the key
 * @mv: hooks around the slot written, or NULL
 *
 * Return: 0, or -ENOENT when the key is absent.
 */
int bloom_cuckoo_delete(const struct bloom_core *c, struct bloom_bits *b,
			u64 h, const struct bloom_cuckoo_mover *mv)
{
	struct bloom_cuckoo_key k;
	u64 i = 0;
	int slot;

	bloom_cuckoo_key(c, h, &k);
	slot = bloom_cuckoo_find(c, b, k.i1, k.fp);
	if (slot >= 0) {
		i = k.i1;
	} else {
		slot = bloom_cuckoo_find(c, b, k.i2, k.fp);
		i = k.i2;
	}
	if (slot < 0)
		return -ENOENT;
	write_slot(c, b, i, slot, 0, mv, false);
	bloom_word_add(&b->inserted, (u64)-1);
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_cuckoo_delete);

/**
 * bloom_cuckoo_used() - count the slots in use
 * @c: the table's core
 * @b: the table
 *
 * Walks the table with reschedule points: process context.
 *
 * Return: the number of non-empty slots.
 */
u64 bloom_cuckoo_used(const struct bloom_core *c, const struct bloom_bits *b)
{
	u64 i, used = 0;
	unsigned int j;

	for (i = 0; i < c->range; i++) {
		for (j = 0; j < BLOOM_CUCKOO_SLOTS; j++)
			used += bloom_cuckoo_slot(c, b, i, j) != 0;
		if (!(i % 65536))
			bloom_resched();
	}
	return used;
}
EXPORT_SYMBOL_GPL(bloom_cuckoo_used);

/**
 * bloom_cuckoo_stats() - how full a table is
 * @c: the table's core
 * @b: the table
 * @st: filled in: @bits_set is slots in use, @fill_ppb the load factor,
 *	@est_card the slots in use (each is a key), @est_fpr_ppb the rate
 *	at that load
 */
void bloom_cuckoo_stats(const struct bloom_core *c, const struct bloom_bits *b,
			struct bloom_stats *st)
{
	u64 used = bloom_cuckoo_used(c, b);

	st->bits_set = used;
	st->fill_ppb = bloom_mul_div(used, BLOOM_PPB,
				     c->range * BLOOM_CUCKOO_SLOTS);
	st->est_card = used;
	st->est_fpr_ppb = bloom_theory_fpr_ppb(&c->g, used);
	st->inserted = bloom_word_read(&b->inserted);
	st->mem_bytes = bloom_array_bytes(c);
}
EXPORT_SYMBOL_GPL(bloom_cuckoo_stats);

/**
 * bloom_cuckoo_fpr_q32() - the expected false-positive rate
 * @g: a cuckoo geometry
 * @n: keys stored
 *
 * A key never added is compared with the 2 * SLOTS * load fingerprints
 * of its two buckets, each equal to its own with probability
 * 1 / (2^f - 1): the rate is 1 - (1 - 1 / (2^f - 1))^(2n / B).
 *
 * Return: the rate, Q32.32.
 */
u64 bloom_cuckoo_fpr_q32(const struct bloom_geom *g, u64 n)
{
	u64 buckets = g->bits / (BLOOM_CUCKOO_SLOTS * bloom_cuckoo_width(g));
	u64 values = (1ULL << g->hashes) - 1, per_bucket;
	s64 ln_miss;

	if (!n || !buckets)
		return 0;
	n = min(n, buckets * BLOOM_CUCKOO_SLOTS);
	/* 2n / B <= 8, in Q16: the product below stays within 64 bits. */
	per_bucket = bloom_mul_div(2 * n, 1ULL << 16, buckets);
	ln_miss = bloom_fx_ln(bloom_mul_div(values - 1, 1ULL << 32, values));
	return (1ULL << 32) - bloom_fx_exp(ln_miss * (s64)per_bucket >> 16);
}
EXPORT_SYMBOL_GPL(bloom_cuckoo_fpr_q32);

/**
 * bloom_cuckoo_size() - the smallest table for a capacity and a rate
 * @capacity: keys it must hold
 * @fpr_ppb: the rate at @capacity
 * @g: filled with bits, hashes (f), layout and capacity; its value_bits
 *	(v) are the caller's, and widen every slot
 *
 * Buckets for @capacity at BLOOM_CUCKOO_LOAD_PCT (more for small
 * tables, whose buckets fill less evenly), then the narrowest
 * fingerprint that meets the rate there.
 *
 * Return: 0, -EINVAL when even slots of BLOOM_CUCKOO_FP_MAX bits miss the rate,
 * -E2BIG over the size cap.
 */
int bloom_cuckoo_size(u64 capacity, u64 fpr_ppb, struct bloom_geom *g)
{
	u64 slots, buckets;
	u32 f, w;

	if (capacity > BLOOM_MAX_BITS)
		return -E2BIG;
	slots = DIV_ROUND_UP(capacity * 100, BLOOM_CUCKOO_LOAD_PCT);
	buckets = DIV_ROUND_UP(slots, BLOOM_CUCKOO_SLOTS);
	/* Small tables fill less evenly: a quarter more, and 2 more. */
	if (buckets < SMALL_TABLE)
		buckets += buckets / 4 + 2;
	if (buckets > U32_MAX)
		return -E2BIG;
	g->layout = BLOOM_LAYOUT_CUCKOO;
	g->capacity = capacity;
	for (f = BLOOM_CUCKOO_FP_MIN;
	     f + g->value_bits <= BLOOM_CUCKOO_FP_MAX; f++) {
		g->hashes = f;
		w = bloom_cuckoo_width(g);
		g->bits = max(buckets, DIV_ROUND_UP(BLOOM_MIN_BITS,
						    BLOOM_CUCKOO_SLOTS * w)) *
			  BLOOM_CUCKOO_SLOTS * w;
		if (bloom_theory_fpr_ppb(g, capacity) <= fpr_ppb)
			return g->bits > BLOOM_MAX_BITS ? -E2BIG : 0;
	}
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(bloom_cuckoo_size);
