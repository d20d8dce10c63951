// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: aging filters (design.md section 9), through the registry and
 * the in-kernel API as another module uses them. Rotations are forced
 * (bloom_rotate()) where a test needs to know exactly how many happened;
 * the expected presence of a key follows from the contract alone: after
 * fewer than G rotations it is present, after G its bits are gone.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <net/net_namespace.h>
#include "../module/registry.h"
#include "../module/kinds/kinds.h"
#include "bloom_test.h"

#define GENS		3
#define WAIT_MS		10000	/* for the rotation work: liveness only */

static int make_sized(const char *name, u64 bits, u8 layout, u8 gens,
		      u32 period_ms, u8 age_flags, u64 capacity)
{
	struct bloom_geom g = { .bits = bits, .hashes = 4,
				.key_type = BLOOM_KEY_BYTES, .layout = layout,
				.gens = gens, .period_ms = period_ms,
				.age_flags = age_flags, .capacity = capacity };

	return bloom_registry_create(&init_net, name, &g);
}

static int make_aged(const char *name, u8 layout, u8 gens, u32 period_ms,
		     u8 age_flags, u64 capacity)
{
	return make_sized(name, 1 << 16, layout, gens, period_ms, age_flags,
			  capacity);
}

/* The filter's contents; no test here replaces them while it runs. */
static struct bloom_contents *contents(struct bloom_filter *f)
{
	return rcu_access_pointer(f->contents);
}

/* Bits set in the live generation at @pos (0: newest). */
static u64 gen_bits_set(struct bloom_filter *f, unsigned int pos)
{
	struct bloom_contents *c = contents(f);
	struct bloom_report r;

	if (bloom_filter_report(f, c, &r))
		return U64_MAX;
	return r.gen[pos].st.bits_set;
}

static u64 rotations(struct bloom_filter *f)
{
	return bloom_age_rotations(contents(f));
}

/* Poll (sleeping) until @f has made @n rotations; false on timeout. */
static bool wait_rotations(struct bloom_filter *f, u64 n)
{
	int ms;

	for (ms = 0; ms < WAIT_MS && rotations(f) < n; ms += 20)
		msleep(20);
	return rotations(f) >= n;
}

static void window_holds_for_g_minus_1_rotations(struct kunit *test)
{
	u8 layout = *(u8 *)test->param_value;
	struct bloom_filter *f;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, make_aged("kunit_age", layout, GENS, 0, 0, 0), 0);
	f = bloom_get(&init_net, "kunit_age");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, "key", 3), 0);
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, "key", 3), 1);
	for (i = 1; i < GENS; i++) {
		KUNIT_EXPECT_EQ(test, bloom_rotate(f), 0);
		KUNIT_EXPECT_TRUE_MSG(test, bloom_test(f, "key", 3),
				      "missing after %u rotations", i);
		/* It lives in generation i, and nowhere else. */
		KUNIT_EXPECT_EQ(test, gen_bits_set(f, 0), 0);
		KUNIT_EXPECT_GT(test, gen_bits_set(f, i), 0);
	}
	KUNIT_EXPECT_EQ(test, bloom_rotate(f), 0);
	/* Not merely absent (a false positive could fake that): empty. */
	for (i = 0; i < GENS; i++)
		KUNIT_EXPECT_EQ(test, gen_bits_set(f, i), 0);
	KUNIT_EXPECT_FALSE(test, bloom_test(f, "key", 3));
	KUNIT_EXPECT_EQ(test, rotations(f), (u64)GENS);
	/* The dropped array comes back as the newest: emptied. */
	KUNIT_EXPECT_EQ(test, bloom_rotate(f), 0);
	for (i = 0; i < GENS; i++)
		KUNIT_EXPECT_EQ(test, gen_bits_set(f, i), 0);
	bloom_put(f);
	KUNIT_EXPECT_EQ(test, bloom_registry_destroy(&init_net, "kunit_age"), 0);
}

/* A key seen again is renewed: G - 1 rotations after the last add. */
static void test_and_add_renews_a_key(struct kunit *test)
{
	struct bloom_filter *f;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, make_aged("kunit_renew", 0, GENS, 0, 0, 0), 0);
	f = bloom_get(&init_net, "kunit_renew");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, "k", 1), 0);
	KUNIT_EXPECT_EQ(test, bloom_rotate(f), 0);
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, "k", 1), 1);
	for (i = 1; i < GENS; i++)
		KUNIT_EXPECT_EQ(test, bloom_rotate(f), 0);
	KUNIT_EXPECT_TRUE(test, bloom_test(f, "k", 1));
	KUNIT_EXPECT_EQ(test, bloom_rotate(f), 0);
	KUNIT_EXPECT_FALSE(test, bloom_test(f, "k", 1));
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_renew");
}

static void rotate_refuses_plain_filter(struct kunit *test)
{
	struct bloom_geom g = { .bits = 1 << 12, .hashes = 3 };
	struct bloom_filter *f;

	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_plain",
						    &g), 0);
	f = bloom_get(&init_net, "kunit_plain");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_rotate(f), -EOPNOTSUPP);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_plain");
	KUNIT_EXPECT_EQ(test, make_aged("kunit_g1", 0, 1, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, make_aged("kunit_g9", 0,
					BLOOM_GENERATIONS_MAX + 1, 0, 0, 0),
			-EINVAL);
}

/* Capacity 8 per generation: the 9th key asks for a rotation. */
static void full_newest_rotates(struct kunit *test)
{
	struct bloom_filter *f;
	char key[8];
	int i;

	KUNIT_ASSERT_EQ(test, make_aged("kunit_full", 0, 2, 0,
					BLOOM_AGE_F_FULL, 8), 0);
	f = bloom_get(&init_net, "kunit_full");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	for (i = 0; i < 8; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		KUNIT_EXPECT_EQ(test, bloom_add(f, key, strlen(key)), 0);
	}
	msleep(20);
	KUNIT_EXPECT_EQ(test, rotations(f), 0);
	/* Never refused: the newest goes over until the rotation runs. */
	KUNIT_EXPECT_EQ(test, bloom_add(f, "k8", 2), 0);
	KUNIT_EXPECT_TRUE(test, wait_rotations(f, 1));
	KUNIT_EXPECT_EQ(test, gen_bits_set(f, 0), 0);
	KUNIT_EXPECT_TRUE(test, bloom_test(f, "k0", 2));
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_full");

	/* Without BLOOM_AGE_F_FULL a full newest refuses new keys. */
	KUNIT_ASSERT_EQ(test, make_aged("kunit_full", 0, 2, 0, 0, 1), 0);
	f = bloom_get(&init_net, "kunit_full");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_add(f, "a", 1), 0);
	KUNIT_EXPECT_EQ(test, bloom_add(f, "b", 1), -ENOSPC);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_full");
}

/* The timer: the shortest period drops a key after G periods. */
static void timer_rotates(struct kunit *test)
{
	struct bloom_filter *f;
	unsigned int i;
	int added = -1;
	bool hit = false;
	u64 before;

	KUNIT_ASSERT_EQ(test, make_aged("kunit_timer", 0, 2,
					BLOOM_AGE_PERIOD_MIN_MS, 0, 0), 0);
	f = bloom_get(&init_net, "kunit_timer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	/*
	 * The key must be added: with no rotation between its add and its
	 * test, it tests present. The timer may rotate in between; retry
	 * until it did not.
	 */
	for (i = 0; i < 100; i++) {
		before = rotations(f);
		added = bloom_add(f, "t", 1);
		hit = bloom_test(f, "t", 1);
		if (rotations(f) == before)
			break;
	}
	KUNIT_EXPECT_EQ(test, added, 0);
	KUNIT_EXPECT_LT_MSG(test, i, 100U, "a rotation each time");
	KUNIT_EXPECT_TRUE_MSG(test, hit, "the key was not added");
	KUNIT_EXPECT_TRUE(test, wait_rotations(f, rotations(f) + 2));
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, gen_bits_set(f, i), 0);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_timer");
}

#define TESTERS		2
#define ROUNDS		20000

struct race {
	struct bloom_filter *f;
	atomic_t misses, checked, running;
	struct completion done[TESTERS + 1];
};

struct tester {
	struct race *r;
	int id;
};

/*
 * Add a key, test it; if fewer than G - 1 rotations completed from
 * before the add to after the test, it must be present.
 */
static int tester_fn(void *arg)
{
	struct tester *t = arg;
	struct race *r = t->r;
	u64 i, key;

	for (i = 0; i < ROUNDS; i++) {
		u64 before, after;
		bool hit;

		key = (u64)t->id << 32 | i;
		before = rotations(r->f);
		if (i & 1)
			bloom_add(r->f, &key, sizeof(key));
		else
			bloom_test_and_add(r->f, &key, sizeof(key));
		hit = bloom_test(r->f, &key, sizeof(key));
		after = rotations(r->f);
		if (after - before < GENS - 1) {
			atomic_inc(&r->checked);
			if (!hit)
				atomic_inc(&r->misses);
		}
		if (!(i % 64))
			cond_resched();
	}
	atomic_dec(&r->running);
	complete(&r->done[t->id]);
	return 0;
}

static int rotator_fn(void *arg)
{
	struct tester *t = arg;
	struct race *r = t->r;

	while (atomic_read(&r->running)) {
		bloom_rotate(r->f);
		cond_resched();
	}
	complete(&r->done[t->id]);
	return 0;
}

static void rotation_racing_adds_misses_nothing(struct kunit *test)
{
	struct tester t[TESTERS + 1];
	struct race *r = bt_alloc(test, sizeof(*r));
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	/* Large enough that the keys stay far from saturating it. */
	KUNIT_ASSERT_EQ(test, make_sized("kunit_race", 1 << 22, 0, GENS, 0, 0,
					 1 << 20), 0);
	r->f = bloom_get(&init_net, "kunit_race");
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->f));
	atomic_set(&r->running, TESTERS);
	for (i = 0; i <= TESTERS; i++) {
		struct task_struct *task;

		init_completion(&r->done[i]);
		t[i] = (struct tester){ .r = r, .id = i };
		task = kthread_run(i < TESTERS ? tester_fn : rotator_fn, &t[i],
				   "bloom_age/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	for (i = 0; i <= TESTERS; i++)
		wait_for_completion(&r->done[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->misses), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&r->checked), 0);
	KUNIT_EXPECT_GT(test, rotations(r->f), 0);
	kunit_info(test, "%d checks, %llu rotations\n",
		   atomic_read(&r->checked), rotations(r->f));
	bloom_put(r->f);
	bloom_registry_destroy(&init_net, "kunit_race");
}

/*
 * Destroy while the work is armed (1 ms period) or just kicked (the
 * newest full): KASAN and kmemleak stay silent if it is stopped first.
 */
static void destroy_with_armed_timer(struct kunit *test)
{
	struct bloom_filter *f;
	char key[16];
	int round, i;

	for (round = 0; round < 20; round++) {
		KUNIT_ASSERT_EQ(test, make_aged("kunit_tear", round % 4, 2,
						round & 1 ?
						BLOOM_AGE_PERIOD_MIN_MS : 0,
						BLOOM_AGE_F_FULL, 2), 0);
		f = bloom_get(&init_net, "kunit_tear");
		KUNIT_ASSERT_FALSE(test, IS_ERR(f));
		for (i = 0; i < 8; i++) {
			snprintf(key, sizeof(key), "r%di%d", round, i);
			bloom_add(f, key, strlen(key));
		}
		bloom_put(f);
		if (round % 3)
			usleep_range(500, 2000);
		KUNIT_EXPECT_EQ(test, bloom_registry_destroy(&init_net,
							     "kunit_tear"), 0);
	}
	rcu_barrier();
}

/*
 * Renewing a key an older generation holds is never refused, even when
 * the newest is full: bloom_add() said it was added, so it must outlive
 * the generation it came from.
 */
static void renewal_at_capacity_keeps_the_key(struct kunit *test)
{
	struct bloom_filter *f;
	int i;

	KUNIT_ASSERT_EQ(test, make_aged("kunit_renew_full", 0, 2, 0, 0, 4), 0);
	f = bloom_get(&init_net, "kunit_renew_full");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, bloom_add(f, "K", 1), 0);
	KUNIT_EXPECT_EQ(test, bloom_rotate(f), 0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, bloom_add(f, &i, sizeof(i)), 0);
	KUNIT_EXPECT_EQ_MSG(test, bloom_add(f, &i, sizeof(i)), -ENOSPC,
			    "the newest should be full");
	KUNIT_EXPECT_EQ(test, bloom_add(f, "K", 1), 0);
	KUNIT_EXPECT_EQ(test, bloom_test_and_add(f, "K", 1), 1);
	KUNIT_EXPECT_EQ(test, bloom_rotate(f), 0);
	KUNIT_EXPECT_TRUE_MSG(test, bloom_test(f, "K", 1),
			      "a renewal at capacity was dropped");
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_renew_full");
}

/* A period under the minimum is refused: it would be a rotation storm. */
static void period_under_minimum_is_refused(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, make_aged("kunit_fast", 0, 2,
					BLOOM_AGE_PERIOD_MIN_MS - 1, 0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, make_aged("kunit_fast", 0, 2, 1, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, make_aged("kunit_fast", 0, 2,
					BLOOM_AGE_PERIOD_MIN_MS, 0, 0), 0);
	bloom_registry_destroy(&init_net, "kunit_fast");
}

/*
 * A newest that is always full (capacity 1, a new key every few
 * microseconds) rotates at most once per BLOOM_AGE_PERIOD_MIN_MS.
 */
static void full_rotations_are_rate_limited(struct kunit *test)
{
	unsigned long start = jiffies, ms;
	struct bloom_filter *f;
	u64 i = 0, n;

	KUNIT_ASSERT_EQ(test, make_aged("kunit_storm", 0, 2, 0,
					BLOOM_AGE_F_FULL, 1), 0);
	f = bloom_get(&init_net, "kunit_storm");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	while (time_before(jiffies, start + 2 * HZ)) {
		bloom_add(f, &i, sizeof(i));
		i++;
		usleep_range(50, 100);
	}
	n = rotations(f);
	ms = jiffies_to_msecs(jiffies - start);
	KUNIT_EXPECT_GE_MSG(test, n, 1ULL, "a full newest never rotated");
	KUNIT_EXPECT_LE_MSG(test, n, (u64)ms / BLOOM_AGE_PERIOD_MIN_MS + 2,
			    "%llu rotations in %lu ms", n, ms);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_storm");
}

struct reporter {
	struct bloom_filter *f;
	struct completion done;
	int err;
};

static int reporter_fn(void *arg)
{
	struct reporter *rp = arg;
	struct bloom_report r;

	rp->err = bloom_filter_report(rp->f, contents(rp->f), &r);
	complete(&rp->done);
	return 0;
}

/*
 * A report (INFO, /proc/net/bloom) never waits for the rotation lock,
 * so a reader, however slow, never holds up a rotation either.
 */
static void report_takes_no_rotation_lock(struct kunit *test)
{
	struct reporter *rp = kunit_kzalloc(test, sizeof(*rp), GFP_KERNEL);
	struct bloom_contents *c;
	struct task_struct *t;
	bool done;

	KUNIT_ASSERT_NOT_NULL(test, rp);
	KUNIT_ASSERT_EQ(test, make_aged("kunit_report", 0, GENS, 0, 0, 0), 0);
	rp->f = bloom_get(&init_net, "kunit_report");
	KUNIT_ASSERT_FALSE(test, IS_ERR(rp->f));
	c = contents(rp->f);
	init_completion(&rp->done);
	bloom_age_lock(c);
	t = kthread_run(reporter_fn, rp, "bloom_reporter");
	done = !IS_ERR(t) &&
	       wait_for_completion_timeout(&rp->done, msecs_to_jiffies(WAIT_MS));
	bloom_age_unlock(c);
	if (!IS_ERR(t) && !done)	/* it is waiting for the lock we held */
		wait_for_completion(&rp->done);
	KUNIT_EXPECT_TRUE_MSG(test, done,
			      "the report waited for the rotation lock");
	KUNIT_EXPECT_EQ(test, rp->err, 0);
	bloom_put(rp->f);
	bloom_registry_destroy(&init_net, "kunit_report");
}

BT_LAYOUT_PARAMS();

static struct kunit_case aging_cases[] = {
	KUNIT_CASE_PARAM(window_holds_for_g_minus_1_rotations,
			 layout_gen_params),
	KUNIT_CASE(test_and_add_renews_a_key),
	KUNIT_CASE(rotate_refuses_plain_filter),
	KUNIT_CASE(full_newest_rotates),
	KUNIT_CASE(timer_rotates),
	KUNIT_CASE(renewal_at_capacity_keeps_the_key),
	KUNIT_CASE(period_under_minimum_is_refused),
	KUNIT_CASE_SLOW(full_rotations_are_rate_limited),
	KUNIT_CASE(report_takes_no_rotation_lock),
	KUNIT_CASE(rotation_racing_adds_misses_nothing),
	KUNIT_CASE(destroy_with_armed_timer),
	{}
};

static struct kunit_suite bloom_aging_suite = {
	.name = "bloom_aging",
	.test_cases = aging_cases,
};

kunit_test_suites(&bloom_aging_suite);
