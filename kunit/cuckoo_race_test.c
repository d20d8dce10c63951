// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: lockless tests of a cuckoo filter never miss a key while other
 * keys are moved. A table is half filled with the keys that must stay
 * ("kept"); a writer thread then adds other keys until the table is
 * nearly full, which moves fingerprints (kept ones too) between their
 * buckets, deletes them again, and goes round; meanwhile readers test
 * every kept key, singly and in batches (one writer, one reader: the
 * test machine has two CPUs). A single miss fails. The case
 * also checks that moves did happen while the readers ran. A second
 * case does the same with values: every key has the value 0xff beside
 * a 13-bit fingerprint, in 21-bit slots that straddle words, and a
 * reader that gets any other value (a slot read half written) fails.
 *
 * The writer deletes only keys whose add stored them: a key whose add
 * found another's fingerprint (present) would, deleted, take that
 * one away, which is the documented cost of deletes, not a race.
 */
#include <kunit/test.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include "../module/kinds/kinds.h"

/*
 * A small table, so that every reader test has a good chance of
 * overlapping a move of the very key it tests: a large one hides races.
 */
#define BUCKETS		13	/* prime: no power-of-two shortcut */
#define KEPT		24	/* about half of 52 slots */
#define CHURN		20	/* to about 85 %: moves, few failures */
#define RUN_TIME	(4 * HZ)
#define BATCH		8

struct race {
	struct bloom_contents *c;
	u64 kept[KEPT];
	u64 churn[CHURN];
	bool stored[CHURN];
	u32 value;			/* every key's, or 0: no values */
	atomic64_t misses, tests;	/* the reader's */
	int writer_err;
};

static u64 hash_of(const struct bloom_contents *c, u64 i)
{
	__le64 key = cpu_to_le64(i);

	return bloom_hash(&c->core, &key, sizeof(key));
}

static int writer_fn(void *arg)
{
	struct race *r = arg;
	u32 i;
	int ret;

	while (!kthread_should_stop()) {
		for (i = 0; i < CHURN; i++) {
			rcu_read_lock();
			if (r->value) {	/* an add that stores, with a value */
				ret = bloom_contents_add_value(r->c, r->churn[i],
							       -1, r->value);
				r->stored[i] = ret >= 0;
			} else {
				ret = bloom_contents_add(r->c, r->churn[i], -1);
				r->stored[i] = !ret;
			}
			rcu_read_unlock();
		}
		for (i = 0; i < CHURN; i++) {
			if (r->stored[i] &&
			    bloom_contents_del(r->c, r->churn[i])) {
				r->writer_err = -EIO;	/* a stored key lost */
				return 0;
			}
		}
		cond_resched();
	}
	return 0;
}

/* Kept key @i tests present, and with its value. Under RCU. */
static bool kept_found(struct race *r, u32 i)
{
	u32 value;

	if (!r->value)
		return bloom_contents_test(r->c, r->kept[i]);
	return bloom_contents_value(r->c, r->kept[i], &value) &&
	       value == r->value;
}

static int reader_fn(void *arg)
{
	struct race *r = arg;
	u64 present[1];
	u32 i, hits;

	while (!kthread_should_stop()) {
		rcu_read_lock();
		for (i = 0; i < KEPT; i++)
			if (!kept_found(r, i))
				atomic64_inc(&r->misses);
		for (i = 0; i + BATCH <= KEPT; i += BATCH) {
			hits = r->c->ops->test_batch(r->c, &r->kept[i], BATCH,
						     present);
			atomic64_add(BATCH - hits, &r->misses);
		}
		rcu_read_unlock();
		atomic64_add(2 * KEPT, &r->tests);
		cond_resched();
	}
	return 0;
}

static void race(struct kunit *test, u32 value)
{
	struct bloom_geom g = { .layout = BLOOM_LAYOUT_CUCKOO, .hashes = 12,
				.bits = BUCKETS * 4 * 12, .capacity = 48,
				.seed = 11 };
	struct task_struct *w, *rd;
	struct bloom_report *rep;
	struct race *r;
	u64 moves;
	u32 i;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	rep = kunit_kzalloc(test, sizeof(*rep), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, rep);
	if (value) {	/* 13 + 8 bits: slots across words */
		g.hashes = 13;
		g.value_bits = 8;
		g.bits = BUCKETS * 4 * 21;
	}
	r->value = value;
	r->c = bloom_contents_new(&g);
	KUNIT_ASSERT_NOT_NULL(test, r->c);
	for (i = 0; i < KEPT; i++) {
		r->kept[i] = hash_of(r->c, i);
		rcu_read_lock();
		KUNIT_ASSERT_GE(test, bloom_contents_add_value(r->c, r->kept[i],
							       -1, value), 0);
		rcu_read_unlock();
	}
	for (i = 0; i < CHURN; i++)
		r->churn[i] = hash_of(r->c, KEPT + i);
	KUNIT_ASSERT_EQ(test, bloom_contents_report(r->c, rep), 0);
	moves = rep->moves;

	w = kthread_run(writer_fn, r, "bloom_ck_writer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(w));
	rd = kthread_run(reader_fn, r, "bloom_ck_reader");
	schedule_timeout_interruptible(RUN_TIME);
	if (!IS_ERR(rd))
		kthread_stop(rd);
	kthread_stop(w);

	KUNIT_ASSERT_EQ(test, bloom_contents_report(r->c, rep), 0);
	kunit_info(test, "%lld tests, %llu moves during them",
		   atomic64_read(&r->tests), rep->moves - moves);
	KUNIT_EXPECT_FALSE(test, IS_ERR(rd));
	KUNIT_EXPECT_EQ(test, r->writer_err, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&r->misses), 0LL);
	KUNIT_EXPECT_GT(test, atomic64_read(&r->tests), 0LL);
	KUNIT_EXPECT_GT(test, rep->moves - moves, 1000ULL);
	bloom_contents_put(r->c);
	rcu_barrier();		/* the free is queued: let it run */
}

static void readers_never_miss_moved_keys(struct kunit *test)
{
	race(test, 0);
}

static void readers_see_moved_values_whole(struct kunit *test)
{
	race(test, 0xff);
}

/* Which of its buckets holds key @k's fingerprint: 1, 2, or 0. */
static int where(struct bloom_contents *c, const struct bloom_cuckoo_key *k)
{
	struct bloom_bits *b = bloom_cuckoo_bits(c);
	unsigned int j;

	for (j = 0; j < BLOOM_CUCKOO_SLOTS; j++)
		if (bloom_cuckoo_slot(&c->core, b, k->i1, j) == k->fp)
			return 1;
	for (j = 0; j < BLOOM_CUCKOO_SLOTS; j++)
		if (bloom_cuckoo_slot(&c->core, b, k->i2, j) == k->fp)
			return 2;
	return 0;
}

/*
 * The timing the test above can only hope for, made certain: a read of
 * every stored key is begun, one add is made, and every key the add
 * moved must find its read invalid (a miss read across a move is then
 * read again); keys it did not move, in other stripes, keep theirs.
 */
static void a_move_invalidates_reads_of_its_key(struct kunit *test)
{
	struct bloom_geom g = { .layout = BLOOM_LAYOUT_CUCKOO, .hashes = 12,
				.bits = 127 * 4 * 12, .capacity = 500,
				.seed = 13 };
	struct bloom_cuckoo_key *k;
	struct bloom_cuckoo_read *r;
	struct bloom_contents *c;
	u32 i, n = 0, moved = 0, kept = 0, now;
	int *at;

	k = kunit_kcalloc(test, 508, sizeof(*k), GFP_KERNEL);
	r = kunit_kcalloc(test, 508, sizeof(*r), GFP_KERNEL);
	at = kunit_kcalloc(test, 508, sizeof(*at), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, at);
	c = bloom_contents_new(&g);
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (n = 0; n < 508; n++) {
		u64 h = hash_of(c, n);
		int ret;

		for (i = 0; i < n; i++) {
			bloom_cuckoo_read_begin(c, &k[i], &r[i]);
			at[i] = where(c, &k[i]);
		}
		rcu_read_lock();
		ret = bloom_contents_add(c, h, -1);
		rcu_read_unlock();
		if (ret < 0)
			break;
		for (i = 0, now = 0; i < n; i++) {
			if (!at[i] || where(c, &k[i]) == at[i])
				continue;
			now++;
			KUNIT_EXPECT_TRUE(test, bloom_cuckoo_read_retry(&r[i]));
		}
		for (i = 0; i < n && !now; i++)	/* nothing moved */
			kept += !bloom_cuckoo_read_retry(&r[i]);
		moved += now;
		bloom_cuckoo_key(&c->core, h, &k[n]);
	}
	kunit_info(test, "%u keys, %u moved, %u reads kept", n, moved, kept);
	KUNIT_EXPECT_GT(test, moved, 20U);
	KUNIT_EXPECT_GT(test, kept, 0U);
	bloom_contents_free(c);
}

/* A reader run inside a writer's section of one of its key's stripes. */
struct window {
	struct bloom_contents *c;
	u64 h, other;		/* the key being moved; one never added */
	bool armed;		/* read at the next write's start */
	bool ran, seen, other_seen;
};

/* The sequence count of @bucket's stripe, as the kind's readers use it. */
static seqcount_spinlock_t *stripe_of(struct bloom_contents *c, u64 bucket)
{
	struct bloom_cuckoo_key k = { .i1 = bucket, .i2 = bucket, .fp = 1 };
	struct bloom_cuckoo_read r;

	bloom_cuckoo_read_begin(c, &k, &r);
	return r.s1;
}

/*
 * The kind's own write bracket, made here (its writers' lock is not
 * taken: nothing else writes this table). Armed, a test of each key runs
 * inside it, with interrupts off: a reader that cannot take the
 * writers' lock and keeps finding its stripe written answers
 * "present", which a filter may always answer.
 */
static void window_begin(void *arg, u64 bucket, bool move)
{
	struct window *w = arg;
	unsigned long flags;

	raw_write_seqcount_begin(stripe_of(w->c, bucket));
	if (!w->armed)
		return;
	w->armed = false;
	w->ran = true;
	local_irq_save(flags);
	rcu_read_lock();
	w->seen = bloom_contents_test(w->c, w->h);
	w->other_seen = bloom_contents_test(w->c, w->other);
	rcu_read_unlock();
	local_irq_restore(flags);
}

static void window_end(void *arg, u64 bucket)
{
	struct window *w = arg;

	raw_write_seqcount_end(stripe_of(w->c, bucket));
}

/*
 * A reader whose window holds a move of its key, forced: read across
 * the move (bucket A before the copy, B after the erase), the key is in
 * neither of its buckets while one of their stripes is written. That
 * view is laid out with the core's own delete and insert, bracketed as
 * the kind brackets them, and the key is tested inside the insert's
 * write: finding nothing there is no answer (the stripe's count is odd)
 * and the test must read again, never answer "absent". A key whose
 * stripes no one writes is answered at once: absent.
 */
static void a_miss_across_a_move_is_read_again(struct kunit *test)
{
	struct bloom_geom g = { .layout = BLOOM_LAYOUT_CUCKOO, .hashes = 12,
				.bits = 127 * 4 * 12, .capacity = 400,
				.seed = 17 };
	struct window w = { };
	struct bloom_cuckoo_mover mv = { window_begin, window_end, &w };
	struct bloom_cuckoo_key k, o;
	struct bloom_cuckoo_node *q;
	u64 i;

	q = kunit_kcalloc(test, BLOOM_CUCKOO_NODES, sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	w.c = bloom_contents_new(&g);
	KUNIT_ASSERT_NOT_NULL(test, w.c);
	w.h = hash_of(w.c, 1);
	bloom_cuckoo_key(&w.c->core, w.h, &k);
	/* A key none of whose buckets shares a stripe with the first's. */
	for (i = 2; i < 1000; i++) {
		w.other = hash_of(w.c, i);
		bloom_cuckoo_key(&w.c->core, w.other, &o);
		if (stripe_of(w.c, o.i1) != stripe_of(w.c, k.i1) &&
		    stripe_of(w.c, o.i1) != stripe_of(w.c, k.i2) &&
		    stripe_of(w.c, o.i2) != stripe_of(w.c, k.i1) &&
		    stripe_of(w.c, o.i2) != stripe_of(w.c, k.i2))
			break;
	}
	KUNIT_ASSERT_LT(test, i, 1000ULL);

	rcu_read_lock();
	KUNIT_ASSERT_EQ(test, bloom_contents_add(w.c, w.h, -1), 0);
	KUNIT_EXPECT_TRUE(test, bloom_contents_test(w.c, w.h));
	rcu_read_unlock();
	KUNIT_ASSERT_EQ(test, bloom_cuckoo_delete(&w.c->core,
						  bloom_cuckoo_bits(w.c),
						  w.h, &mv), 0);
	w.armed = true;
	KUNIT_ASSERT_EQ(test, bloom_cuckoo_insert(&w.c->core,
						  bloom_cuckoo_bits(w.c),
						  w.h, q, &mv, NULL, true), 0);
	KUNIT_ASSERT_TRUE(test, w.ran);
	KUNIT_EXPECT_TRUE_MSG(test, w.seen,
			      "a miss read while its stripe was written was answered \"absent\"");
	KUNIT_EXPECT_FALSE(test, w.other_seen);
	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, bloom_contents_test(w.c, w.h));
	rcu_read_unlock();
	bloom_contents_free(w.c);
}

static struct kunit_case cuckoo_race_cases[] = {
	KUNIT_CASE(a_move_invalidates_reads_of_its_key),
	KUNIT_CASE(a_miss_across_a_move_is_read_again),
	KUNIT_CASE_SLOW(readers_never_miss_moved_keys),
	KUNIT_CASE_SLOW(readers_see_moved_values_whole),
	{}
};

static struct kunit_suite bloom_cuckoo_race_suite = {
	.name = "bloom_cuckoo_race",
	.test_cases = cuckoo_race_cases,
};

kunit_test_suites(&bloom_cuckoo_race_suite);
