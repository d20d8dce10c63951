// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: scalable filters (kinds/scalable.c), through the registry and
 * the in-kernel API. Expected values come from the paper's series, not
 * from the kind: stage i holds growth^i times the first capacity at
 * tighten^i times the first rate, and the rates sum below e0 / (1 - r).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <net/net_namespace.h>
#include "../module/registry.h"
#include "bloom_test.h"

#define CAP		256
#define WAIT_MS		10000	/* for the growth work: liveness only */

static struct bloom_geom grow_geom(u64 capacity, u8 stages_max)
{
	struct bloom_geom g = {
		.key_type = BLOOM_KEY_BYTES, .layout = BLOOM_LAYOUT_BLOCKED,
		.stages_max = stages_max, .growth = 2, .tighten_pct = 50,
	};

	/* As CREATE sizes it for 1 %: the first stage at 1 % (1 - 1/2). */
	bloom_geom_size(capacity, 5000000, g.layout, &g);
	return g;
}

/* Stage i: 2^i times the capacity, its rate at most half the last's. */
static void stages_follow_the_series(struct kunit *test)
{
	struct bloom_geom g = grow_geom(1000, 12), s;
	u64 e0 = bloom_theory_fpr_ppb(&g, g.capacity), sum = 0, want = e0;
	unsigned int i;

	for (i = 0; i < g.stages_max; i++) {
		u64 rate;

		KUNIT_ASSERT_EQ(test, bloom_stage_geom(&g, i, &s), 0);
		KUNIT_EXPECT_EQ(test, s.capacity, 1000ULL << i);
		KUNIT_EXPECT_EQ(test, s.layout, g.layout);
		KUNIT_EXPECT_EQ(test, s.seed, g.seed);
		rate = bloom_theory_fpr_ppb(&s, s.capacity);
		KUNIT_EXPECT_LE_MSG(test, rate, want + 1, "stage %u", i);
		sum += rate;
		want /= 2;
	}
	/* The bound: e0 / (1 - 1/2), and every stage together under it. */
	KUNIT_EXPECT_EQ(test, bloom_stage_bound_ppb(&g), e0 * 2);
	KUNIT_EXPECT_LE(test, sum, e0 * 2);
	/* Sized at 0.5 %, the series stays under the 1 % asked for. */
	KUNIT_EXPECT_LE(test, e0 * 2, 10000000ULL);
}

/* Add @key, waiting for the growth work while the filter is full. */
static int add_waiting(struct bloom_filter *f, u64 key)
{
	unsigned long end = jiffies + msecs_to_jiffies(WAIT_MS);
	int ret;

	while ((ret = bloom_add(f, &key, sizeof(key))) == -ENOSPC &&
	       time_before(jiffies, end))
		usleep_range(100, 200);
	return ret;
}

static struct bloom_filter *make(struct kunit *test, const char *name,
				 u64 capacity, u8 stages_max)
{
	struct bloom_geom g = grow_geom(capacity, stages_max);
	struct bloom_filter *f;

	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, name, &g), 0);
	f = bloom_get(&init_net, name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	return f;
}

static u32 stages_of(struct bloom_filter *f)
{
	struct bloom_contents *c = bloom_contents_get(f);
	struct bloom_stage_report s;
	u32 n = 0;

	if (!bloom_contents_stage(c, 0, &s))
		n = s.stages;
	bloom_contents_put(c);
	return n;
}

/*
 * Twenty times the first capacity goes in: the filter grows, keeps
 * every key, and answers absent keys under its bound.
 */
static void grows_and_keeps_every_key(struct kunit *test)
{
	struct bloom_filter *f = make(test, "kunit_grow", CAP, 8);
	u64 i, n = 20 * CAP, fp = 0, absent = 20000, bound;
	struct bloom_geom g = grow_geom(CAP, 8);

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, add_waiting(f, i), 0);
	for (i = 0; i < n; i++)
		if (!bloom_test(f, &i, sizeof(i)))
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, n, "a key added is missing");
	/* 256 + 512 + ... : 20 x 256 needs five stages. */
	KUNIT_EXPECT_GE(test, stages_of(f), 5U);
	for (i = n; i < n + absent; i++)
		fp += bloom_test(f, &i, sizeof(i));
	bound = bloom_stage_bound_ppb(&g);
	/* Three times the bound: a loose margin for 20000 samples. */
	KUNIT_EXPECT_LE(test, fp * BLOOM_PPB / absent, 3 * bound);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_grow");
}

/* The IPv4 prefix @v4/@plen as a net key (v4-mapped: 96 + @plen). */
static struct bloom_key_net net_key(u32 v4, unsigned int plen)
{
	struct bloom_key_net k = { .addr = { [10] = 0xff, [11] = 0xff },
				   .plen = 96 + plen };

	k.addr[12] = v4 >> 24;
	k.addr[13] = v4 >> 16;
	k.addr[14] = v4 >> 8;
	k.addr[15] = v4;
	bloom_net_mask(k.addr, k.plen);
	return k;
}

/* Add a net key, waiting for the growth work while the filter is full. */
static int add_net_waiting(struct bloom_filter *f, u32 v4, unsigned int plen)
{
	unsigned long end = jiffies + msecs_to_jiffies(WAIT_MS);
	struct bloom_key_net k = net_key(v4, plen);
	int ret;

	while ((ret = bloom_add(f, &k, sizeof(k))) == -ENOSPC &&
	       time_before(jiffies, end))
		usleep_range(100, 200);
	return ret;
}

/*
 * A net filter grown past its first stage: lengths only later stages
 * hold are probed too. The first stage gets /32s only; once there are
 * more stages, a /24 and a /16 go to a later one, and addresses inside
 * them are found; one outside every prefix is not.
 */
static void net_lengths_of_every_stage(struct kunit *test)
{
	struct bloom_geom g = grow_geom(CAP, 8);
	u8 in24[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 77 };
	u8 in16[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 200, 1 };
	u8 out[16] = { [10] = 0xff, [11] = 0xff, 203, 0, 113, 1 };
	struct bloom_filter *f;
	u32 i;

	g.key_type = BLOOM_KEY_NET;
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_grow_net",
						    &g), 0);
	f = bloom_get(&init_net, "kunit_grow_net");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	/* 10.0.0.0 upwards, /32 each, until a second stage is there. */
	for (i = 0; i < 20 * CAP && stages_of(f) < 2; i++)
		KUNIT_ASSERT_EQ(test, add_net_waiting(f, 0x0a000000 + i, 32),
				0);
	KUNIT_ASSERT_GE(test, stages_of(f), 2U);
	KUNIT_EXPECT_EQ(test, add_net_waiting(f, 0xc0000200, 24), 0);
	KUNIT_EXPECT_EQ(test, add_net_waiting(f, 0xc6120000, 16), 0);
	KUNIT_EXPECT_TRUE_MSG(test, bloom_test_net(f, in24),
			      "192.0.2.77 inside 192.0.2.0/24, added to stage 2 or later");
	KUNIT_EXPECT_TRUE_MSG(test, bloom_test_net(f, in16),
			      "198.18.200.1 inside 198.18.0.0/16, added to stage 2 or later");
	KUNIT_EXPECT_FALSE(test, bloom_test_net(f, out));
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_grow_net");
}

/* Keys [@first, @first + @n) hashed for @c, as a batch ADD does. */
static void hash_keys(struct bloom_contents *c, u64 first, u32 n, u64 *h)
{
	u32 i;

	for (i = 0; i < n; i++) {
		u64 key = first + i;

		h[i] = bloom_hash(&c->core, &key, sizeof(key));
	}
}

/*
 * The ADD ioctl's path, a chunk at a time: room first (process
 * context), then the kind's batch add under RCU.
 */
static void add_batches(struct kunit *test, struct bloom_filter *f, u64 n)
{
	struct bloom_contents *c;
	u64 first, *h;
	u32 chunk;

	h = kunit_kcalloc(test, CAP, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	for (first = 0; first < n; first += chunk) {
		chunk = min_t(u64, CAP, n - first);
		c = bloom_contents_get(f);
		KUNIT_ASSERT_NOT_NULL(test, c->ops->add_batch);
		c->ops->make_room(c, chunk);
		bloom_contents_put(c);
		rcu_read_lock();
		c = rcu_dereference(f->contents);
		hash_keys(c, first, chunk, h);
		c->ops->add_batch(c, h, NULL, chunk);
		rcu_read_unlock();
	}
	kunit_kfree(test, h);
}

static u64 inserted_of(struct bloom_filter *f)
{
	struct bloom_contents *c = bloom_contents_get(f);
	struct bloom_report r;
	u64 n = U64_MAX;

	if (!bloom_contents_report(c, &r))
		n = r.st.inserted;
	bloom_contents_put(c);
	return n;
}

/*
 * Keys added in batches are each stored once, in whichever stage: the
 * same keys added again, to the grown filter, are all present already
 * and add nothing, neither keys nor stages.
 */
static void batch_readd_adds_nothing(struct kunit *test)
{
	struct bloom_filter *f = make(test, "kunit_grow_batch", CAP, 12);
	u64 n = 10 * CAP, in, i;
	u32 stages;

	add_batches(test, f, n);
	in = inserted_of(f);
	stages = stages_of(f);
	/* n distinct keys: a few were false positives, not stored. */
	KUNIT_EXPECT_LE(test, in, n);
	KUNIT_EXPECT_GE(test, in, n - n / 50);
	/* 256 + 512 + 1024 < 2560 keys: four stages at least. */
	KUNIT_EXPECT_GE(test, stages, 4U);
	add_batches(test, f, n);
	KUNIT_EXPECT_EQ_MSG(test, inserted_of(f), in,
			    "the same %llu keys added again were stored again",
			    n);
	KUNIT_EXPECT_EQ(test, stages_of(f), stages);
	for (i = 0; i < n; i++)
		if (!bloom_test(f, &i, sizeof(i)))
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, n, "a key added is missing");
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_grow_batch");
}

struct adder {
	struct bloom_filter *f;
	u64 first, n;
	u64 missed;		/* keys added, then not found */
	int err;
	struct completion done;
};

/* Add keys, each checked right after its add and again at the end. */
static int adder_fn(void *arg)
{
	struct adder *a = arg;
	u64 k;

	for (k = a->first; k < a->first + a->n && !a->err; k++) {
		a->err = add_waiting(a->f, k);
		if (!a->err && !bloom_test(a->f, &k, sizeof(k)))
			a->missed++;
		if (!(k % 64))
			cond_resched();
	}
	for (k = a->first; k < a->first + a->n && !a->err; k++)
		a->missed += !bloom_test(a->f, &k, sizeof(k));
	complete(&a->done);
	return 0;
}

/*
 * Add keys to a filter whose contents are cleared and swapped under
 * them: no presence to check, only that adds succeed or find it full.
 */
static int race_adder_fn(void *arg)
{
	struct adder *a = arg;
	u64 k;

	for (k = a->first; k < a->first + a->n; k++) {
		int ret = bloom_add(a->f, &k, sizeof(k));

		if (ret && ret != -ENOSPC)
			a->err = ret;
		if (!(k % 64))
			cond_resched();
	}
	complete(&a->done);
	return 0;
}

/*
 * Adders on every CPU grow the filter through several stages: no
 * completed add is ever missed, across the publication of new stages.
 */
static void concurrent_growth_loses_nothing(struct kunit *test)
{
	unsigned int i, cpus = clamp(num_online_cpus(), 2U, 8U);
	struct bloom_filter *f = make(test, "kunit_grow_mt", CAP, 12);
	struct adder *a = kunit_kcalloc(test, cpus, sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	for (i = 0; i < cpus; i++) {
		a[i] = (struct adder){ .f = f, .first = i * 4096ULL,
				       .n = 4096 };
		init_completion(&a[i].done);
		if (IS_ERR(kthread_run(adder_fn, &a[i], "bloom_adder%u", i)))
			complete(&a[i].done);
	}
	for (i = 0; i < cpus; i++) {
		wait_for_completion(&a[i].done);
		KUNIT_EXPECT_EQ(test, a[i].err, 0);
		KUNIT_EXPECT_EQ_MSG(test, a[i].missed, 0ULL, "adder %u", i);
	}
	KUNIT_EXPECT_GT(test, stages_of(f), 4U);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_grow_mt");
}

/* At the stage maximum it is a full plain filter: ENOSPC, "over". */
static void growth_stops_at_the_stage_limit(struct kunit *test)
{
	struct bloom_filter *f = make(test, "kunit_grow_max", 100, 2);
	struct bloom_contents *c;
	struct bloom_report r;
	u64 i;
	int ret = 0;

	for (i = 0; i < 10000 && ret != -ENOSPC; i++)
		ret = add_waiting(f, i);
	KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
	KUNIT_EXPECT_EQ(test, stages_of(f), 2U);
	/*
	 * 100 + 200, at most a quarter over while the second grew, and a
	 * few keys that were false positives (present: not added).
	 */
	KUNIT_EXPECT_LE(test, i, 100ULL + 25 + 200 + 1 + 20);
	c = bloom_contents_get(f);
	KUNIT_EXPECT_EQ(test, bloom_contents_report(c, &r), 0);
	KUNIT_EXPECT_TRUE(test, r.over);
	bloom_contents_put(c);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_grow_max");
}

/* The namespace's byte limit stops growth too, and counts every stage. */
static void growth_respects_the_byte_limit(struct kunit *test)
{
	struct bloom_limits was, l;
	struct bloom_filter *f;
	u64 i;
	int ret = 0;

	KUNIT_ASSERT_EQ(test, bloom_registry_limits(&init_net, &was, false,
						    true), 0);
	f = make(test, "kunit_grow_mem", CAP, 12);
	KUNIT_ASSERT_EQ(test, bloom_registry_limits(&init_net, &l, false, true),
			0);
	/* Room for the first stage and a little: not for the second. */
	l.max_bytes = l.bytes + 64;
	KUNIT_ASSERT_EQ(test, bloom_registry_limits(&init_net, &l, true, true),
			0);
	for (i = 0; i < 100 * CAP && ret != -ENOSPC; i++)
		ret = add_waiting(f, i);
	KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
	KUNIT_EXPECT_EQ(test, stages_of(f), 1U);
	l.max_filters = was.max_filters;
	l.max_bytes = was.max_bytes;
	bloom_registry_limits(&init_net, &l, true, true);
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_grow_mem");
	bloom_registry_limits(&init_net, &l, false, true);
	KUNIT_EXPECT_EQ(test, l.bytes, was.bytes);
}

/*
 * Clear goes back to one empty stage, and the namespace's byte count
 * follows the stages: after destroy it is back where it was.
 */
static void clear_goes_back_to_one_stage(struct kunit *test)
{
	struct bloom_geom g = grow_geom(CAP, 8);
	size_t first = bloom_contents_bytes(&g);
	struct bloom_limits was, l;
	struct bloom_filter *f;
	u64 i;

	KUNIT_ASSERT_EQ(test, bloom_registry_limits(&init_net, &was, false,
						    true), 0);
	f = make(test, "kunit_grow_clr", CAP, 8);

	for (i = 0; i < 4 * CAP; i++)
		KUNIT_ASSERT_EQ(test, add_waiting(f, i), 0);
	KUNIT_EXPECT_GT(test, stages_of(f), 1U);
	/* Stages of 256 and 512 keys at least: over 1.5 first stages. */
	bloom_registry_limits(&init_net, &l, false, true);
	KUNIT_EXPECT_GT(test, l.bytes, was.bytes + 3 * first / 2);
	KUNIT_EXPECT_EQ(test, bloom_registry_clear(&init_net, "kunit_grow_clr"),
			0);
	KUNIT_EXPECT_EQ(test, stages_of(f), 1U);
	i = 1;
	KUNIT_EXPECT_FALSE(test, bloom_test(f, &i, sizeof(i)));
	bloom_put(f);
	bloom_registry_destroy(&init_net, "kunit_grow_clr");
	bloom_registry_limits(&init_net, &l, false, true);
	KUNIT_EXPECT_EQ(test, l.bytes, was.bytes);
}

struct churner {
	struct completion done;
	int rounds;
	int err;
};

/* Clear one filter and swap it with another, again and again. */
static int churn_fn(void *arg)
{
	struct churner *ch = arg;
	int i;

	for (i = 0; i < ch->rounds && !ch->err; i++) {
		ch->err = bloom_registry_clear(&init_net, "kunit_race_a") ?:
			  bloom_registry_swap(&init_net, "kunit_race_a",
					      "kunit_race_b");
		usleep_range(200, 400);
	}
	complete(&ch->done);
	return 0;
}

/*
 * Growth racing clears and swaps: contents retired while their growth
 * work runs must not be charged after the registry let go of their
 * bytes. Afterwards the namespace's byte count is back where it was
 * (and under KCSAN, no data race is reported).
 */
static void growth_races_clear_and_swap(struct kunit *test)
{
	struct bloom_geom g = grow_geom(64, 12);
	struct bloom_limits was, l;
	struct churner ch = { .rounds = 200 };
	struct adder a[2];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, bloom_registry_limits(&init_net, &was, false,
						    true), 0);
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_race_a",
						    &g), 0);
	KUNIT_ASSERT_EQ(test, bloom_registry_create(&init_net, "kunit_race_b",
						    &g), 0);
	init_completion(&ch.done);
	for (i = 0; i < ARRAY_SIZE(a); i++) {
		a[i] = (struct adder){ .first = i << 20, .n = 20000 };
		a[i].f = bloom_get(&init_net, i ? "kunit_race_b" :
						  "kunit_race_a");
		KUNIT_ASSERT_FALSE(test, IS_ERR(a[i].f));
		init_completion(&a[i].done);
	}
	for (i = 0; i < ARRAY_SIZE(a); i++)
		if (IS_ERR(kthread_run(race_adder_fn, &a[i], "bloom_racer%u", i)))
			complete(&a[i].done);
	if (IS_ERR(kthread_run(churn_fn, &ch, "bloom_churn")))
		complete(&ch.done);
	wait_for_completion(&ch.done);
	for (i = 0; i < ARRAY_SIZE(a); i++) {
		wait_for_completion(&a[i].done);
		KUNIT_EXPECT_EQ(test, a[i].err, 0);
		bloom_put(a[i].f);
	}
	KUNIT_EXPECT_EQ(test, ch.err, 0);
	bloom_registry_destroy(&init_net, "kunit_race_a");
	bloom_registry_destroy(&init_net, "kunit_race_b");
	bloom_registry_limits(&init_net, &l, false, true);
	KUNIT_EXPECT_EQ(test, l.bytes, was.bytes);
}

static struct kunit_case scalable_cases[] = {
	KUNIT_CASE(stages_follow_the_series),
	KUNIT_CASE(grows_and_keeps_every_key),
	KUNIT_CASE(net_lengths_of_every_stage),
	KUNIT_CASE(batch_readd_adds_nothing),
	KUNIT_CASE(concurrent_growth_loses_nothing),
	KUNIT_CASE(growth_stops_at_the_stage_limit),
	KUNIT_CASE(growth_respects_the_byte_limit),
	KUNIT_CASE(clear_goes_back_to_one_stage),
	KUNIT_CASE(growth_races_clear_and_swap),
	{}
};

static struct kunit_suite bloom_scalable_suite = {
	.name = "bloom_scalable",
	.test_cases = scalable_cases,
};

kunit_test_suites(&bloom_scalable_suite);
