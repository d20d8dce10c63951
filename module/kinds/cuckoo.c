// SPDX-License-Identifier: GPL-2.0
/*
 * Cuckoo contents: a table of fingerprints (core/cuckoo.c) that deletes
 * without counters, with lockless tests.
 *
 * Writers (add, delete, and the moves an add makes) are serialised by
 * @lock, taken with bottom halves off: the packet path adds from softirq
 * (--bloom-update). A writer holds it for one insert: a search over at
 * most BLOOM_CUCKOO_NODES buckets (PACKET_NODES on the packet path) and
 * at most BLOOM_CUCKOO_MOVES moves.
 *
 * A nearly full table makes that search long, and a full one makes it
 * fail after looking at every bucket it may. So the packet path's adds
 * (every test-and-add: --bloom-update, the kfuncs, bloom_test_and_add();
 * and a bloom_add() with bottom halves or interrupts off) refuse a new
 * key without taking the lock when the table holds its capacity, or
 * when a whole search (BLOOM_CUCKOO_NODES) has failed since the last
 * delete (TABLE_FULL); and they search PACKET_NODES buckets, which
 * fails first at about 96 % of the slots, past the capacity (95 %). A
 * full table costs a packet one read, not a search under the lock.
 * Adds from /dev/bloom, and bloom_add() in process context, are the
 * operator's: they search BLOOM_CUCKOO_NODES and may fill the table
 * past its capacity (to about 97 % of its slots).
 *
 * Tests take no lock. Why they never miss a key whose add completed
 * and which was not deleted:
 *
 *  - Every slot is written (by an add, a delete, or either half of a
 *    move) inside a write section of the sequence count of its bucket's
 *    stripe; a slot across two words is stored in two halves, and a
 *    reader may see one. Other slots of those words are stored as they
 *    were.
 *  - A move copies a fingerprint to its other bucket, then erases it
 *    where it was: it is in one of its key's two buckets at every
 *    moment. A reader that reads bucket A, then B, can still miss it if
 *    it moves from B to A in between: it read A before the copy and B
 *    after the erase began. So a test that found nothing checks that
 *    neither of its two stripes' counts moved (or was odd: a write in
 *    progress) while it read; if one did, it reads again.
 *  - A test that found the fingerprint answers at once: at worst it saw
 *    half of a slot being written that happened to match, a false
 *    positive, which a filter may give. A test-and-add must not: it
 *    would not store the key. It checks its hit the same way.
 *  - A reader that keeps colliding with writes gives up after
 *    READ_TRIES and reads under @lock, which no writer holds for long.
 *
 * Sequence counts are per stripe of buckets, not per table, so a move
 * sends only readers of its source's stripe round again. Writers increment
 * them under @lock (lockdep knows: seqcount_spinlock_t).
 *
 * A SAVE copies the table in chunks, live: a move between two chunks
 * could carry a fingerprint from a chunk not yet copied into one
 * already copied. The moves count is this kind's snap_changes, so such
 * a save starts over.
 */
#include <linux/kcsan-checks.h>
#include <linux/overflow.h>
#include <linux/prefetch.h>
#include <linux/spinlock.h>
#include <kunit/visibility.h>
#include "kinds.h"

#define STRIPES		64	/* power of two */
#define READ_TRIES	4
#define PACKET_NODES	512	/* a search on the packet path */
#define TABLE_FULL	BLOOM_C_KIND	/* a whole search failed: until a delete */

struct bloom_cuckoo {
	struct bloom_contents c;
	spinlock_t lock;		/* writers; see above */
	seqcount_spinlock_t seq[STRIPES];	/* moves, per stripe */
	u64 moves;			/* under @lock; read racily */
	/* Adds refused for want of room; per CPU, off the stripes' line. */
	u64 __percpu *refused;
	/* The insert's search, under @lock. */
	struct bloom_cuckoo_node queue[BLOOM_CUCKOO_NODES];
	struct bloom_bits bits;		/* flexible: last */
};

static struct bloom_cuckoo *cuckoo(struct bloom_contents *c)
{
	return container_of(c, struct bloom_cuckoo, c);
}

/**
 * bloom_cuckoo_bits() - the table of cuckoo contents
 * @c: cuckoo contents
 *
 * Return: the table, for tests that look at it directly.
 */
struct bloom_bits *bloom_cuckoo_bits(struct bloom_contents *c)
{
	return &cuckoo(c)->bits;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_cuckoo_bits);

static seqcount_spinlock_t *stripe(struct bloom_cuckoo *t, u64 bucket)
{
	return &t->seq[bucket % STRIPES];
}

static size_t cuckoo_bytes(const struct bloom_core *core)
{
	struct bloom_cuckoo *t;

	return struct_size(t, bits.words, core->nwords);
}

static int cuckoo_init(struct bloom_contents *c)
{
	struct bloom_cuckoo *t = cuckoo(c);
	unsigned int i;

	t->refused = alloc_percpu(u64);
	if (!t->refused)
		return -ENOMEM;
	spin_lock_init(&t->lock);
	for (i = 0; i < STRIPES; i++)
		seqcount_spinlock_init(&t->seq[i], &t->lock);
	return 0;
}

static void cuckoo_destroy(struct bloom_contents *c)
{
	free_percpu(cuckoo(c)->refused);
}

/**
 * bloom_cuckoo_read_begin() - start a lockless read of a key's buckets
 * @c: cuckoo contents
 * @k: the key
 * @r: filled in: the sequence counts of its buckets' stripes
 */
void bloom_cuckoo_read_begin(struct bloom_contents *c,
			     const struct bloom_cuckoo_key *k,
			     struct bloom_cuckoo_read *r)
{
	struct bloom_cuckoo *t = cuckoo(c);

	r->s1 = stripe(t, k->i1);
	r->s2 = stripe(t, k->i2);
	r->v1 = raw_read_seqcount(r->s1);
	r->v2 = raw_read_seqcount(r->s2);
}
EXPORT_SYMBOL_IF_KUNIT(bloom_cuckoo_read_begin);

/**
 * bloom_cuckoo_read_retry() - did an erase overlap the read?
 * @r: from bloom_cuckoo_read_begin()
 *
 * Return: true if a miss read since then may be false: read again.
 */
bool bloom_cuckoo_read_retry(const struct bloom_cuckoo_read *r)
{
	return ((r->v1 | r->v2) & 1) || read_seqcount_retry(r->s1, r->v1) ||
	       read_seqcount_retry(r->s2, r->v2);
}
EXPORT_SYMBOL_IF_KUNIT(bloom_cuckoo_read_retry);

enum read_mode {
	READ_TEST,	/* a hit is an answer at once: at worst a false positive */
	READ_SURE,	/* a hit too must be read clean (test-and-add) */
	READ_COUNT,	/* how many copies, read clean */
	READ_VALUE,	/* as READ_SURE, and the value of the copy found */
};

/* One read of @k's buckets, without a lock, or with @lock held. */
static u32 read_once(struct bloom_cuckoo *t, const struct bloom_cuckoo_key *k,
		     enum read_mode mode, u32 *value)
{
	const struct bloom_core *core = &t->c.core;

	if (mode == READ_COUNT)
		return bloom_cuckoo_matches(core, &t->bits, k);
	if (mode == READ_VALUE)
		return bloom_cuckoo_value(core, &t->bits, k, value);
	return bloom_cuckoo_present(core, &t->bits, k);
}

/*
 * Is @k present (READ_COUNT: how many copies; READ_VALUE: and with what
 * value, in *@value), read consistently; see above. After READ_TRIES
 * reads that overlapped writes, under the lock; but where that lock
 * cannot be taken (hard interrupts, interrupts off) a test answers
 * "present", which a filter may always answer, with the value 0.
 */
static u32 read_key(struct bloom_cuckoo *t, const struct bloom_cuckoo_key *k,
		    enum read_mode mode, u32 *value)
{
	struct bloom_cuckoo_read r;
	unsigned int tries;
	u32 n;

	for (tries = 0; tries < READ_TRIES; tries++) {
		bloom_cuckoo_read_begin(&t->c, k, &r);
		n = read_once(t, k, mode, value);
		if (n && mode == READ_TEST) {
			kcsan_atomic_next(0);	/* the read section ends here */
			return n;
		}
		if (!bloom_cuckoo_read_retry(&r))
			return n;
	}
	if (in_hardirq() || irqs_disabled()) {
		if (value)
			*value = 0;
		return mode != READ_COUNT;
	}
	spin_lock_bh(&t->lock);
	n = read_once(t, k, mode, value);
	spin_unlock_bh(&t->lock);
	return n;
}

static bool cuckoo_test(struct bloom_contents *c, u64 h)
{
	struct bloom_cuckoo_key k;

	bloom_cuckoo_key(&c->core, h, &k);
	return read_key(cuckoo(c), &k, READ_TEST, NULL);
}

/*
 * A test that also gives the value stored beside the fingerprint. A
 * table without values answers as a test, with 0. With values, a hit is
 * read clean too (as READ_SURE): a slot across two words is written low
 * word first, so a reader between the two stores of a move's copy finds
 * the key's fingerprint with the high bits of its value not yet there,
 * a member with a wrong value.
 */
static int cuckoo_value(struct bloom_contents *c, u64 h, u32 *value)
{
	struct bloom_cuckoo_key k;
	u32 n;

	bloom_cuckoo_key(&c->core, h, &k);
	*value = 0;
	if (!c->core.g.value_bits)
		return read_key(cuckoo(c), &k, READ_TEST, NULL);
	n = read_key(cuckoo(c), &k, READ_VALUE, value);
	if (!n)
		*value = 0;	/* a hit read dirty, then a clean miss */
	return n;
}

/*
 * Around every slot written in @bucket, under @lock. The erase of a
 * move counts it first: a SAVE that copied the table while it happened
 * sees the count move after its copy (the write section's barrier
 * orders the count before the erase) and starts over.
 */
static void write_begin(void *arg, u64 bucket, bool move)
{
	struct bloom_cuckoo *t = arg;

	if (move)
		WRITE_ONCE(t->moves, t->moves + 1);
	write_seqcount_begin(stripe(t, bucket));
}

static void write_end(void *arg, u64 bucket)
{
	write_seqcount_end(stripe(arg, bucket));
}

/*
 * No room for a new key on the packet path? Racy reads: an add racing
 * with a delete may be refused, as one just before it would have been.
 */
static bool no_room(struct bloom_cuckoo *t)
{
	u64 in = bloom_word_read(&t->bits.inserted);

	return test_bit(TABLE_FULL, &t->c.flags) ||
	       bloom_over_capacity(&t->c.core.g, in + 1);
}

static int refuse(struct bloom_cuckoo *t)
{
	this_cpu_inc(*t->refused);
	return -ENOSPC;
}

/*
 * Store @h (a copy too, with @copy), under @lock, searching at most
 * @nodes buckets; a whole search that fails marks the table full until
 * a delete.
 */
static int insert(struct bloom_cuckoo *t, u64 h, u32 value, bool copy,
		  unsigned int nodes)
{
	const struct bloom_cuckoo_mover mv = { write_begin, write_end, t };
	int ret;

	spin_lock_bh(&t->lock);
	ret = bloom_cuckoo_insert_within(&t->c.core, &t->bits, h, value,
					 t->queue, nodes, &mv, NULL, copy);
	if (ret == -ENOSPC && nodes == BLOOM_CUCKOO_NODES)
		set_bit(TABLE_FULL, &t->c.flags);
	spin_unlock_bh(&t->lock);
	return ret == -ENOSPC ? refuse(t) : ret;
}

/* An add on the packet path: at once when full, and a short search. */
static int packet_insert(struct bloom_cuckoo *t, u64 h, u32 value, bool copy)
{
	return no_room(t) ? refuse(t) : insert(t, h, value, copy, PACKET_NODES);
}

/* A net key's length is noted when the key is held, so lookups probe it. */
static int noted(struct bloom_cuckoo *t, int ret, int plen)
{
	if (ret >= 0 && plen >= 0)
		bloom_note_plen(&t->bits, plen);
	return ret;
}

/*
 * Test-and-add (the packet path's --bloom-update, bloom_test_and_add()):
 * a key found present, by a read no write overlapped, takes no lock and
 * is not stored again. Found present may be a false positive: another
 * key's fingerprint in one of its buckets. Then nothing of this key is
 * stored (the answer was "present", and a filter may say so), and once
 * that other key is deleted this one tests absent until a test-and-add
 * of it stores it. Storing a copy on every hit instead would let one
 * key's repeated packets fill its buckets. "Deleting one never deletes
 * another" holds for keys stored by an add (cuckoo_add_copy()).
 */
static int cuckoo_add(struct bloom_contents *c, u64 h, int plen)
{
	struct bloom_cuckoo *t = cuckoo(c);
	struct bloom_cuckoo_key k;

	bloom_cuckoo_key(&c->core, h, &k);
	if (read_key(t, &k, READ_SURE, NULL))
		return noted(t, 1, plen);
	return noted(t, packet_insert(t, h, 0, false), plen);
}

/*
 * An add that stores (BLOOM_IOC_ADD, bloom_add()): every add stores a
 * copy, as a counting filter counts every add, so that a key sharing
 * another's fingerprint and buckets is not lost when the other is
 * deleted. Adding a key twice takes two deletes. With bottom halves or
 * interrupts off (a bloom_add() from the packet path) it is the packet
 * path's add. @value goes beside the copy (below 2^v: the caller checked).
 */
static int cuckoo_add_copy(struct bloom_contents *c, u64 h, int plen,
			   u32 value)
{
	struct bloom_cuckoo *t = cuckoo(c);

	if (in_interrupt() || irqs_disabled())
		return noted(t, packet_insert(t, h, value, true), plen);
	return noted(t, insert(t, h, value, true, BLOOM_CUCKOO_NODES), plen);
}

static void cuckoo_plens(struct bloom_contents *c, u64 *plens)
{
	unsigned int i;

	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		plens[i] = bloom_word_read(&cuckoo(c)->bits.plens[i]);
}

/*
 * Keys' buckets are far apart: fetch a group's buckets first, then test
 * them, so their cache misses overlap (as bloom_test_batch() does).
 */
#define GROUP	16

static u64 word_of(const struct bloom_contents *c, u64 bucket)
{
	return bucket * BLOOM_CUCKOO_SLOTS * bloom_cuckoo_width(&c->core.g) / 64;
}

static u32 cuckoo_test_batch(struct bloom_contents *c, const u64 *h, u32 n,
			     u64 *present)
{
	struct bloom_cuckoo *t = cuckoo(c);
	struct bloom_cuckoo_key k[GROUP];
	u32 i, j, g, hits = 0;

	memset(present, 0, DIV_ROUND_UP(n, 64) * sizeof(u64));
	for (i = 0; i < n; i += g) {
		g = min_t(u32, GROUP, n - i);
		for (j = 0; j < g; j++) {
			bloom_cuckoo_key(&c->core, h[i + j], &k[j]);
			prefetch(&t->bits.words[word_of(c, k[j].i1)]);
			prefetch(&t->bits.words[word_of(c, k[j].i2)]);
		}
		for (j = 0; j < g; j++) {
			if (!read_key(t, &k[j], READ_TEST, NULL))
				continue;
			present[(i + j) / 64] |= 1ULL << ((i + j) % 64);
			hits++;
		}
	}
	return hits;
}

static int cuckoo_del(struct bloom_contents *c, u64 h)
{
	struct bloom_cuckoo *t = cuckoo(c);
	const struct bloom_cuckoo_mover mv = { write_begin, write_end, t };
	int err;

	spin_lock_bh(&t->lock);
	err = bloom_cuckoo_delete(&c->core, &t->bits, h, &mv);
	/* Tested first: the flags share a line every test reads. */
	if (!err && test_bit(TABLE_FULL, &c->flags))
		clear_bit(TABLE_FULL, &c->flags);
	spin_unlock_bh(&t->lock);
	return err;
}

static u32 cuckoo_count(struct bloom_contents *c, u64 h)
{
	struct bloom_cuckoo_key k;

	bloom_cuckoo_key(&c->core, h, &k);
	return read_key(cuckoo(c), &k, READ_COUNT, NULL);
}

static int cuckoo_report(struct bloom_contents *c, struct bloom_report *r,
			 u64 *hist)
{
	struct bloom_cuckoo *t = cuckoo(c);
	int cpu;

	bloom_stats(&c->core, &t->bits, hist, &r->st);
	/* The table and what writers need beside it (the search's queue). */
	r->st.mem_bytes = cuckoo_bytes(&c->core);
	r->over = bloom_over_capacity(&c->core.g, r->st.inserted);
	r->moves = READ_ONCE(t->moves);
	r->failed = 0;
	/* Per-CPU counters: a sum racing with refusals is approximate. */
	for_each_possible_cpu(cpu)
		r->failed += READ_ONCE(*per_cpu_ptr(t->refused, cpu));
	return 0;
}

static void cuckoo_snap_hdr(struct bloom_contents *c, struct bloom_snap_hdr *h)
{
	bloom_snap_make_hdr(&c->core, &cuckoo(c)->bits, h);
}

static void cuckoo_snap_words(struct bloom_contents *c, u64 first, u64 n,
			      __le64 *out)
{
	bloom_words_to_le(&cuckoo(c)->bits.words[first], out, n);
}

static u64 cuckoo_snap_changes(struct bloom_contents *c)
{
	return READ_ONCE(cuckoo(c)->moves);
}

/* The slots in use are counted from the table, not taken on trust. */
static int cuckoo_load(struct bloom_contents *c, struct bloom_payload_in *in,
		       const struct bloom_snap_info *info)
{
	struct bloom_cuckoo *t = cuckoo(c);
	unsigned int i;
	int err;

	err = in->words(in, t->bits.words, c->core.nwords) ?:
	      bloom_bits_check_tail(&c->core, &t->bits) ?: in->verify(in);
	if (err)
		return err;
	bloom_word_set(&t->bits.inserted, bloom_cuckoo_used(&c->core,
							    &t->bits));
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_set(&t->bits.plens[i], info->plens[i]);
	return 0;
}

/*
 * No set algebra: the union of two tables is not a table, and halving
 * would have to re-place every fingerprint. They are -EOPNOTSUPP.
 */
const struct bloom_kind_ops bloom_cuckoo_ops = {
	.bytes = cuckoo_bytes,
	.init = cuckoo_init,
	.destroy = cuckoo_destroy,
	.test = cuckoo_test,
	.value = cuckoo_value,
	.add = cuckoo_add,
	.add_copy = cuckoo_add_copy,
	.plens = cuckoo_plens,
	.test_batch = cuckoo_test_batch,
	.del = cuckoo_del,
	.count = cuckoo_count,
	.report = cuckoo_report,
	.snap_hdr = cuckoo_snap_hdr,
	.snap_words = cuckoo_snap_words,
	.snap_changes = cuckoo_snap_changes,
	.load = cuckoo_load,
};
