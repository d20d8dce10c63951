// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: two deletes of a key added once, racing, must not take another
 * key's counter to zero. Key A shares a counter with key B; B is added
 * once and never deleted. Each round adds A once, then two threads
 * delete A at the same moment: one must succeed and the other find A
 * absent, and B must still test present afterwards.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include "../module/registry.h"
#include "../module/kinds/kinds.h"

#define ROUNDS		4000
#define ROUND_TIMEOUT	(5 * HZ)

struct del_race {
	struct bloom_contents *c;
	u64 ha;				/* hash of A */
	atomic_t go;			/* round number released */
	atomic_t done;			/* rounds the helper finished */
	int theirs;			/* the helper's delete, this round */
	int helper_err;
	bool stop;
};

static u64 key_hash(const struct bloom_contents *c, u64 i)
{
	__le64 key = cpu_to_le64(i);

	return bloom_hash(&c->core, &key, sizeof(key));
}

/* The low bit of each non-zero counter. */
static u64 nonzero(u64 w)
{
	return (w | w >> 1 | w >> 2 | w >> 3) & 0x1111111111111111ULL;
}

/* Counters a key touches, as a bitmap over the (small) array's words. */
static void positions(const struct bloom_geom *g, u64 i, u64 *mask, u64 n)
{
	struct bloom_contents *c = bloom_contents_new(g);
	u64 w;

	if (!c)
		return;
	bloom_add_hash(&c->core, bloom_plain_bits(c), key_hash(c, i));
	for (w = 0; w < n; w++)
		mask[w] = bloom_word_read(&bloom_plain_bits(c)->words[w]);
	bloom_contents_free(c);
}

/* A key sharing a counter with key 0 and owning one of its own. */
static u64 pick_a(struct kunit *test, const struct bloom_geom *g, u64 n)
{
	u64 b[16], a[16], i, w;

	KUNIT_ASSERT_LE(test, n, (u64)ARRAY_SIZE(b));
	positions(g, 0, b, n);
	for (i = 1; i < 100000; i++) {
		bool shared = false, own = false;

		positions(g, i, a, n);
		for (w = 0; w < n; w++) {
			u64 x = nonzero(a[w]), y = nonzero(b[w]);

			shared |= (x & y) != 0;
			own |= (x & ~y) != 0;
		}
		if (shared && own)
			return i;
	}
	KUNIT_FAIL(test, "no key shares a counter with key 0");
	return 0;
}

static bool wait_for(atomic_t *v, int want, unsigned long deadline)
{
	unsigned int spins = 0;

	while (atomic_read_acquire(v) < want) {
		if (time_after(jiffies, deadline))
			return false;
		/* Spin to meet the other thread; yield now and then. */
		if (!(++spins % 1024))
			cond_resched();
		cpu_relax();
	}
	return true;
}

/* The second deleter: waits for each round, deletes A, reports. */
static int helper_fn(void *arg)
{
	struct del_race *r = arg;
	int round;

	for (round = 1; round <= ROUNDS && !READ_ONCE(r->stop); round++) {
		if (!wait_for(&r->go, round, jiffies + ROUND_TIMEOUT))
			break;
		WRITE_ONCE(r->theirs, bloom_contents_del(r->c, r->ha));
		atomic_set_release(&r->done, round);
	}
	while (!kthread_should_stop())
		msleep(1);
	return 0;
}

static void delete_races_keep_other_keys(struct kunit *test)
{
	const struct bloom_geom g = {
		.bits = 256, .hashes = 4, .seed = 7, .capacity = 100,
		.layout = BLOOM_LAYOUT_COUNTING, .key_type = BLOOM_KEY_BYTES,
	};
	struct del_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	int round, lost = 0, stale = 0, ran = 0, not_one = 0;
	struct task_struct *t;
	u64 hb;

	KUNIT_ASSERT_NOT_NULL(test, r);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs to race");
	r->c = bloom_contents_new(&g);
	KUNIT_ASSERT_NOT_NULL(test, r->c);
	r->ha = key_hash(r->c, pick_a(test, &g, r->c->core.nwords));
	hb = key_hash(r->c, 0);
	bloom_add_hash(&r->c->core, bloom_plain_bits(r->c), hb);
	t = kthread_run(helper_fn, r, "bloom_del_race");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	for (round = 1; round <= ROUNDS; round++) {
		int mine;

		bloom_add_hash(&r->c->core, bloom_plain_bits(r->c), r->ha);
		atomic_set_release(&r->go, round);
		mine = bloom_contents_del(r->c, r->ha);
		if (!wait_for(&r->done, round, jiffies + ROUND_TIMEOUT))
			break;
		ran++;
		/* One delete finds A, the other finds it gone. */
		if (!mine + !READ_ONCE(r->theirs) != 1)
			not_one++;
		if (mine && bloom_test_hash(&r->c->core, bloom_plain_bits(r->c), r->ha))
			stale++;
		if (!bloom_test_hash(&r->c->core, bloom_plain_bits(r->c), hb)) {
			lost++;
			bloom_bits_clear(&r->c->core, bloom_plain_bits(r->c));
			bloom_add_hash(&r->c->core, bloom_plain_bits(r->c), hb);
		}
		if (!(round % 64))
			cond_resched();
	}
	WRITE_ONCE(r->stop, true);
	atomic_set_release(&r->go, ROUNDS + 1);
	kthread_stop(t);
	bloom_contents_free(r->c);
	kunit_info(test, "%d rounds, key B lost %d times", ran, lost);
	KUNIT_EXPECT_GT(test, ran, ROUNDS / 2);
	KUNIT_EXPECT_EQ_MSG(test, lost, 0,
			    "racing deletes of A erased B, which nobody deleted");
	KUNIT_EXPECT_EQ_MSG(test, not_one, 0,
			    "rounds where not exactly one of the two deletes of A succeeded");
	kunit_info(test, "A still present after a refused delete %d times",
		   stale);
}

static struct kunit_case delete_race_cases[] = {
	KUNIT_CASE_SLOW(delete_races_keep_other_keys),
	{}
};

static struct kunit_suite bloom_delete_race_suite = {
	.name = "bloom_delete_race",
	.test_cases = delete_race_cases,
};

kunit_test_suites(&bloom_delete_race_suite);
