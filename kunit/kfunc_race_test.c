// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the path of the XDP and tc kfuncs (a filter found by id under
 * RCU, a key checked and probed, no reference held) raced against swap,
 * clear, rotate and destroy. Under KASAN a use after free fails the run;
 * under KCSAN a data race is reported.
 *
 * A key in both versions of a swapped filter must never test absent; a
 * destroyed filter's id must answer -ENOENT, never a freed filter.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <net/net_namespace.h>
#include "../module/registry.h"

struct race {
	u32 id;
	bool add;			/* test and add, as a dedup program */
	struct bloom_key_addr key;
	unsigned long probes, absent, gone, errors;
};

/* What a program's kfunc call does (kfuncs.c: probe()). */
static int reader_fn(void *arg)
{
	struct race *r = arg;
	struct bloom_filter *f;
	int ret;

	while (!kthread_should_stop()) {
		rcu_read_lock();
		f = bloom_lookup_id_rcu(&init_net, r->id);
		ret = f ? bloom_probe_rcu(f, &r->key, sizeof(r->key), r->add) :
			  -ENOENT;
		rcu_read_unlock();
		/* Only this thread writes it; let_it_probe() reads it. */
		WRITE_ONCE(r->probes, r->probes + 1);
		if (ret == 0)
			r->absent++;
		else if (ret == -ENOENT)
			r->gone++;
		else if (ret < 0)
			r->errors++;
		cond_resched();
	}
	return 0;
}

static int make(const char *name, u8 gens, struct race *r)
{
	struct bloom_geom g = { .bits = 1 << 16, .hashes = 5,
				.key_type = BLOOM_KEY_ADDR, .gens = gens,
				.period_ms = gens ? 3600 * 1000 : 0 };
	struct bloom_filter *f;
	int err = bloom_registry_create(&init_net, name, &g);

	if (err)
		return err;
	f = bloom_get(&init_net, name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = bloom_add(f, &r->key, sizeof(r->key));
	r->id = f->id;
	bloom_put(f);
	return err;
}

static struct task_struct *start(struct kunit *test, struct race *r)
{
	struct task_struct *t = kthread_run(reader_fn, r, "bloom_kf_reader");

	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	return t;
}

/* Wait, up to a second, for the reader to have probed @n more times. */
static void let_it_probe(struct race *r, unsigned long n)
{
	unsigned long until = READ_ONCE(r->probes) + n;
	int i;

	for (i = 0; i < 1000 && READ_ONCE(r->probes) < until; i++)
		usleep_range(1000, 2000);
}

static void swaps_never_hide_common_keys(struct kunit *test)
{
	struct race r = { .key.addr = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 } };
	struct race other = r;
	struct task_struct *t;
	int i;

	KUNIT_ASSERT_EQ(test, make("kunit_kf_a", 0, &r), 0);
	KUNIT_ASSERT_EQ(test, make("kunit_kf_b", 0, &other), 0);
	KUNIT_EXPECT_NE(test, r.id, other.id);
	t = start(test, &r);
	for (i = 0; i < 200; i++) {
		KUNIT_EXPECT_EQ(test, bloom_registry_swap(&init_net, "kunit_kf_a",
							  "kunit_kf_b"), 0);
		let_it_probe(&r, 1);
	}
	kthread_stop(t);
	KUNIT_EXPECT_GT(test, r.probes, 0UL);
	KUNIT_EXPECT_EQ(test, r.absent, 0UL);
	KUNIT_EXPECT_EQ(test, r.gone + r.errors, 0UL);
	bloom_registry_destroy(&init_net, "kunit_kf_a");
	bloom_registry_destroy(&init_net, "kunit_kf_b");
}

/* Clears and rotations change what is present: only safety is checked. */
static void clears_and_rotations_race_safely(struct kunit *test)
{
	struct race r = { .add = true,
			  .key.addr = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 2 } };
	struct bloom_filter *f;
	struct task_struct *t;
	int i;

	KUNIT_ASSERT_EQ(test, make("kunit_kf_age", 2, &r), 0);
	f = bloom_get(&init_net, "kunit_kf_age");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	t = start(test, &r);
	for (i = 0; i < 50; i++) {
		KUNIT_EXPECT_EQ(test, bloom_rotate(f), 0);
		KUNIT_EXPECT_EQ(test, bloom_registry_clear(&init_net,
							   "kunit_kf_age"), 0);
		let_it_probe(&r, 1);
	}
	kthread_stop(t);
	bloom_put(f);
	KUNIT_EXPECT_GT(test, r.probes, 0UL);
	KUNIT_EXPECT_EQ(test, r.gone + r.errors, 0UL);
	bloom_registry_destroy(&init_net, "kunit_kf_age");
}

/* Destroyed under the reader: then its id finds nothing. */
static void destroy_under_readers_leaves_enoent(struct kunit *test)
{
	struct race r = { .key.addr = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 3 } };
	struct task_struct *t;

	KUNIT_ASSERT_EQ(test, make("kunit_kf_gone", 0, &r), 0);
	t = start(test, &r);
	let_it_probe(&r, 100);
	KUNIT_EXPECT_EQ(test, bloom_registry_destroy(&init_net,
						     "kunit_kf_gone"), 0);
	let_it_probe(&r, 100);
	kthread_stop(t);
	KUNIT_EXPECT_GT(test, r.gone, 0UL);
	KUNIT_EXPECT_EQ(test, r.absent + r.errors, 0UL);
	rcu_read_lock();
	KUNIT_EXPECT_NULL(test, bloom_lookup_id_rcu(&init_net, r.id));
	rcu_read_unlock();
}

static struct kunit_case kfunc_race_cases[] = {
	KUNIT_CASE(swaps_never_hide_common_keys),
	KUNIT_CASE(clears_and_rotations_race_safely),
	KUNIT_CASE(destroy_under_readers_leaves_enoent),
	{}
};

static struct kunit_suite bloom_kfunc_race_suite = {
	.name = "bloom_kfunc_race",
	.test_cases = kfunc_race_cases,
};

kunit_test_suites(&bloom_kfunc_race_suite);
