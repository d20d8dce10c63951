// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: writers add while readers test, on every CPU. A reader only
 * tests keys whose add has returned (the writer publishes its progress
 * with release semantics after each add), so any miss is a false
 * negative for a completed add: the contract of design section 3.
 */
#include "bloom_test.h"

#ifdef __KERNEL__
#include <linux/completion.h>
#include <linux/kthread.h>

#define WRITERS		2
#define READERS		2
#define KEYS_PER_WRITER	20000

struct race {
	struct bt_filter *f;
	atomic64_t done[WRITERS];	/* keys whose add returned */
	atomic_t misses;
	atomic_t writers_left;
	struct completion finished[WRITERS + READERS];
};

struct worker {
	struct race *r;
	int id;
};

static int writer_fn(void *arg)
{
	struct worker *w = arg;
	struct race *r = w->r;
	u64 i, base = (u64)w->id * KEYS_PER_WRITER;

	for (i = 0; i < KEYS_PER_WRITER; i++) {
		bt_add(r->f, base + i);
		/* Pairs with the acquire in reader_fn: the add happened before. */
		atomic64_set_release(&r->done[w->id], i + 1);
		if (!(i % 256))
			cond_resched();
	}
	atomic_dec(&r->writers_left);
	complete(&r->finished[w->id]);
	return 0;
}

static int reader_fn(void *arg)
{
	struct worker *w = arg;
	struct race *r = w->r;
	u64 state = w->id, rounds = 0;

	while (atomic_read(&r->writers_left) || rounds < 2) {
		int wr = bt_rand(&state) % WRITERS;
		u64 done = atomic64_read_acquire(&r->done[wr]);
		u64 i;

		if (!atomic_read(&r->writers_left))
			rounds++;
		for (i = 0; i < done; i += 1 + bt_rand(&state) % 64)
			if (!bt_test(r->f, (u64)wr * KEYS_PER_WRITER + i))
				atomic_inc(&r->misses);
		cond_resched();
	}
	complete(&r->finished[w->id]);
	return 0;
}

static void concurrent_adds_are_never_missed(struct kunit *test)
{
	u8 layout = *(u8 *)test->param_value;
	struct bloom_geom g = { .hashes = 8, .seed = 5, .layout = layout,
				.bits = 1 << 19 };
	struct worker workers[WRITERS + READERS];
	struct race *r = bt_alloc(test, sizeof(*r));
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->f = bt_filter_new(test, &g);
	atomic_set(&r->writers_left, WRITERS);
	for (i = 0; i < WRITERS + READERS; i++) {
		struct task_struct *t;

		init_completion(&r->finished[i]);
		workers[i] = (struct worker){ .r = r, .id = i };
		t = kthread_run(i < WRITERS ? writer_fn : reader_fn,
				&workers[i], "bloom_race/%d", i);
		KUNIT_ASSERT_TRUE(test, !IS_ERR(t));
	}
	for (i = 0; i < WRITERS + READERS; i++)
		wait_for_completion(&r->finished[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->misses), 0);
	for (i = 0; i < WRITERS * KEYS_PER_WRITER; i++)
		if (!bt_test(r->f, i))
			atomic_inc(&r->misses);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->misses), 0);
	/* Keys that were false positives when added set no bit. */
	KUNIT_EXPECT_LE(test, bloom_word_read(&r->f->b->inserted),
			(u64)WRITERS * KEYS_PER_WRITER);
	KUNIT_EXPECT_GE(test, bloom_word_read(&r->f->b->inserted),
			(u64)WRITERS * KEYS_PER_WRITER * 99 / 100);
}

BT_LAYOUT_PARAMS();

static struct kunit_case concurrency_cases[] = {
	KUNIT_CASE_PARAM(concurrent_adds_are_never_missed, layout_gen_params),
	{}
};

static struct kunit_suite bloom_concurrency_suite = {
	.name = "bloom_concurrency",
	.test_cases = concurrency_cases,
};

kunit_test_suites(&bloom_concurrency_suite);
#endif /* __KERNEL__ */
