// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel lookup cost of the filter core, per layout, beside the
 * kernel's own BPF_MAP_TYPE_BLOOM_FILTER with the same n and k. Both are
 * called as functions from kernel code, on the same keys, with no system
 * call or BPF program around them: the core through its exported
 * functions, the map through its map_ops (what a BPF program's helper
 * call ends in).
 *
 *   insmod bloom_kbench.ko n=N bpf_fds=FD[,FD]
 *
 * bpf_fds are BPF bloom maps of the loading process (value_size 8,
 * max_entries N, map_extra k): each layout is timed beside the map of its
 * k. Every key is a u64; present keys are 0 .. N - 1 (scattered), absent
 * ones N .. 2N - 1. Figures go to the kernel log as
 *   bloom_kbench STRUCTURE N K METRIC PICOSECONDS
 * medians of REPS runs of OPS lookups each, hashing included. A structure
 * that misses a present key fails the load (-EIO): then it was not
 * filled, and its figures would mean nothing.
 *
 * A cuckoo table (K is its fingerprint bits f) is filled to its capacity
 * N by bloom_cuckoo_insert(), one key at a time; a key that does not fit
 * fails the load (-ENOSPC). Its single lookups are bloom_test_hash(), as
 * for the others (nothing writes meanwhile); it has no batch rows, since
 * bloom_test_batch() prefetches Bloom probes, not buckets: its kind's own
 * lookups, with their sequence counts, are "api-cuckoo" below.
 *
 * A static filter (layout fuse; K is its fingerprint bits f, 8 for 1 %)
 * of keys 0 .. N - 1 is built in place by the core's bloom_fuse_sort()
 * and bloom_fuse_build(), as bloomctl builds the file a RESTORE loads:
 * the same entries. Its single lookups are bloom_test_hash() (that is,
 * bloom_fuse_lookup()); its batches prefetch each key's three entries
 * in groups of 16, then look them up. It has no "api" row: a named
 * static filter is made only by a RESTORE of a snapshot, which this
 * module does not do.
 *
 * "api" is the whole in-kernel API path of a named blocked filter (the
 * registry's RCU pointer, the kind's test, the stats counter), what
 * xt_bloom calls per packet: bloom_test() on a filter in init_net.
 * "api-cuckoo" is the same path on a named cuckoo filter (filled to N by
 * bloom_add()): kinds/cuckoo.c's test, validated by sequence counts; its
 * "test_and_add_full" row is bloom_test_and_add() of absent keys on that
 * table at its capacity, what --bloom-update costs a packet when the
 * table is full (a refusal).
 * "api-grownD" is a scalable filter grown from N / D to N keys (K is
 * printed 0), for D = 1, 16, 128 and 1024: an absent key probes every
 * stage. Each stays listed, as "kbench_grownD", until the module is
 * unloaded, so that its stages can be read from /proc/net/bloom.
 */
#include <linux/bpf.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/delay.h>
#include <net/net_namespace.h>
#include "bloom_core.h"
#include "bloom.h"

/* registry.h: exported, declared here to keep the registry private. */
int bloom_registry_create(struct net *net, const char *name,
			  struct bloom_geom *g);
int bloom_registry_destroy(struct net *net, const char *name);

#define GROUP	4096	/* keys per batch */
#define OPS	(49 * GROUP)	/* lookups per run */
#define REPS	7

static ulong n = 1000000;
module_param(n, ulong, 0444);
MODULE_PARM_DESC(n, "keys in every structure");
static int bpf_fds[2] = { -1, -1 };
static int nr_fds;
module_param_array(bpf_fds, int, &nr_fds, 0444);
MODULE_PARM_DESC(bpf_fds, "BPF bloom maps of the loading process");

/*
 * Every layout is benchmarked: a new one must be named here, and filled
 * by fill() the way it is filled (bloom_load_batch() is for Bloom ones).
 * The #ifdefs let the benchmark build against older module sources.
 */
static const char *const layouts[] = {
	"blocked", "standard", "partitioned", "counting",
#ifdef BLOOM_CUCKOO_SLOTS
	"cuckoo",
#endif
#ifdef BLOOM_FUSE_SEED_STEP
	"fuse",
#endif
};
static_assert(ARRAY_SIZE(layouts) == BLOOM_LAYOUT_MAX,
	      "a layout the benchmark does not know");

#ifdef BLOOM_CUCKOO_SLOTS
#define IS_CUCKOO(layout)	((layout) == BLOOM_LAYOUT_CUCKOO)
#else
#define IS_CUCKOO(layout)	false
#endif
#ifdef BLOOM_FUSE_SEED_STEP
#define IS_FUSE(layout)		((layout) == BLOOM_LAYOUT_FUSE)
#define FUSE_GROUP		16	/* keys a batch prefetches */
#else
#define IS_FUSE(layout)		false
#endif

struct kbench {
	struct bloom_core c;
	struct bloom_bits *b;
	struct bpf_map *map;
	struct bloom_filter *f;
	u64 h[GROUP];
	u64 present[GROUP / 64];
	u64 hits;
#ifdef BLOOM_CUCKOO_SLOTS
	struct bloom_cuckoo_node queue[BLOOM_CUCKOO_NODES];	/* inserts */
#endif
};

/* The i-th key of a run: scattered over base .. base + n - 1. */
static u64 pick(u64 i, u64 base)
{
	return base + bloom_mulhi(i * 0x9e3779b97f4a7c15ULL, n);
}

static void t_single(struct kbench *x, u64 base)
{
	u64 i, key;

	for (i = 0; i < OPS; i++) {
		key = pick(i, base);
		x->hits += bloom_test_hash(&x->c, x->b,
					   bloom_hash(&x->c, &key, sizeof(key)));
	}
}

static void t_batch(struct kbench *x, u64 base)
{
	u64 i, j, key;

	for (i = 0; i < OPS; i += GROUP) {
		for (j = 0; j < GROUP; j++) {
			key = pick(i + j, base);
			x->h[j] = bloom_hash(&x->c, &key, sizeof(key));
		}
		x->hits += bloom_test_batch(&x->c, x->b, x->h, GROUP,
					    x->present);
	}
}

#ifdef BLOOM_FUSE_SEED_STEP
/*
 * A static filter's batch: groups of FUSE_GROUP keys, their three
 * entries computed and prefetched, then looked up (bloom_test_batch()
 * prefetches Bloom probes, not entries).
 */
static u32 fuse_test_batch(const struct bloom_core *c,
			   const struct bloom_bits *b, const u64 *h, u32 cnt)
{
	unsigned int w = c->g.hashes + c->g.value_bits, v = c->g.value_bits;
	struct bloom_fuse_key k[FUSE_GROUP];
	u32 i, j, g, e, hits = 0;

	for (i = 0; i < cnt; i += g) {
		g = min_t(u32, FUSE_GROUP, cnt - i);
		for (j = 0; j < g; j++) {
			bloom_fuse_key(c, h[i + j], &k[j]);
			prefetch(&b->words[k[j].p[0] * w / 64]);
			prefetch(&b->words[k[j].p[1] * w / 64]);
			prefetch(&b->words[k[j].p[2] * w / 64]);
		}
		for (j = 0; j < g; j++) {
			e = bloom_fuse_entry(c, b, k[j].p[0]) ^
			    bloom_fuse_entry(c, b, k[j].p[1]) ^
			    bloom_fuse_entry(c, b, k[j].p[2]);
			hits += e >> v == k[j].fp;
		}
	}
	return hits;
}

static void t_fuse_batch(struct kbench *x, u64 base)
{
	u64 i, j, key;

	for (i = 0; i < OPS; i += GROUP) {
		for (j = 0; j < GROUP; j++) {
			key = pick(i + j, base);
			x->h[j] = bloom_hash(&x->c, &key, sizeof(key));
		}
		x->hits += fuse_test_batch(&x->c, x->b, x->h, GROUP);
	}
}

/*
 * A static filter of keys 0 .. n - 1, built here by the core as bloomctl
 * builds one (a seed that does not build gives way to the next); the
 * entries are then what a RESTORE of bloomctl's file would hold.
 */
static int fill_fuse(struct kbench *x)
{
	struct bloom_fuse_item *it, *tmp;
	struct bloom_geom g = x->c.g;
	u64 i, key, distinct = n, seed0 = g.seed;
	void *scratch;
	unsigned int t;
	int err = -ENOMEM;
	u32 dup[2];

	it = vmalloc(array_size(n, sizeof(*it)));
	tmp = vmalloc(array_size(n, sizeof(*tmp)));
	scratch = vmalloc(bloom_fuse_scratch_bytes(&x->c));
	if (it && tmp && scratch)
		err = -EAGAIN;
	for (t = 0; err == -EAGAIN && t < BLOOM_FUSE_TRIES; t++) {
		x->c.g.seed = seed0 + t * BLOOM_FUSE_SEED_STEP;
		for (i = 0; i < n; i++) {
			key = i;
			it[i].h = bloom_hash(&x->c, &key, sizeof(key));
			it[i].value = 0;
			it[i].idx = i;
		}
		err = bloom_fuse_sort(it, tmp, n, scratch, &distinct, dup);
		if (err == -EEXIST) {
			err = -EAGAIN;	/* two keys, one hash */
			continue;
		}
		err = bloom_fuse_geom(distinct, g.hashes, 0, &g);
		if (err)
			break;
		g.seed = x->c.g.seed;
		g.flags = BLOOM_F_FIXED_SEED;
		bloom_core_init(&x->c, &g);
		memset(x->b->words, 0, bloom_array_bytes(&x->c));
		err = bloom_fuse_build(&x->c, x->b, it, distinct, scratch);
	}
	vfree(scratch);
	vfree(tmp);
	vfree(it);
	return err;
}
#else
static void t_fuse_batch(struct kbench *x, u64 base)
{
}

static int fill_fuse(struct kbench *x)
{
	return -EOPNOTSUPP;
}
#endif

static void t_bpf(struct kbench *x, u64 base)
{
	u64 i, key;

	for (i = 0; i < OPS; i++) {
		key = pick(i, base);
		x->hits += !x->map->ops->map_peek_elem(x->map, &key);
	}
}

static void t_api(struct kbench *x, u64 base)
{
	u64 i, key;

	for (i = 0; i < OPS; i++) {
		key = pick(i, base);
		x->hits += bloom_test(x->f, &key, sizeof(key));
	}
}

/* Test-and-add, as --bloom-update: of absent keys, a full table's cost. */
static void t_api_update(struct kbench *x, u64 base)
{
	u64 i, key;

	for (i = 0; i < OPS; i++) {
		key = pick(i, base);
		x->hits += bloom_test_and_add(x->f, &key, sizeof(key)) == 1;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Times @fn REPS times and prints the median in picoseconds a lookup.
 * Returns the hits of one run, to check against the keys' presence.
 */
static u64 timed(struct kbench *x, void (*fn)(struct kbench *, u64),
		 u64 base, const char *what, u32 k, const char *metric)
{
	u64 ps[REPS], t;
	int r;

	for (r = 0; r < REPS; r++) {
		x->hits = 0;
		t = ktime_get_ns();
		fn(x, base);
		ps[r] = div_u64((ktime_get_ns() - t) * 1000, OPS);
		cond_resched();
	}
	sort(ps, REPS, sizeof(*ps), cmp_u64, NULL);
	pr_info("bloom_kbench %s %lu %u %s %llu\n", what, n, k, metric,
		ps[REPS / 2]);
	return x->hits;
}

/* Present keys must all hit: otherwise the structure was not filled. */
static int check_hits(const char *what, u64 hits)
{
	if (hits == OPS)
		return 0;
	pr_err("bloom_kbench: %s found %llu of %u present keys\n", what, hits,
	       OPS);
	return -EIO;
}

static int bench_bpf(struct kbench *x, struct bpf_map *map)
{
	u32 k = map->map_extra & 0xf ?: 5;	/* the map's default */
	u64 key;

	x->map = map;
	for (key = 0; key < n; key++) {
		if (map->ops->map_push_elem(map, &key, BPF_ANY))
			return -EIO;
		if (!(key % GROUP))
			cond_resched();
	}
	if (check_hits("bpf", timed(x, t_bpf, 0, "bpf", k, "test_present")))
		return -EIO;
	timed(x, t_bpf, n, "bpf", k, "test_absent");
	return 0;
}

/* A cuckoo table, one insert at a time: not a key may be left out. */
#ifdef BLOOM_CUCKOO_SLOTS
static int fill_cuckoo(struct kbench *x, u32 cnt)
{
	u64 moves = 0;
	u32 j;
	int ret;

	for (j = 0; j < cnt; j++) {
		ret = bloom_cuckoo_insert(&x->c, x->b, x->h[j], x->queue, NULL,
					  &moves, true);
		if (ret < 0) {
			pr_err("bloom_kbench: cuckoo: a key did not fit (%d)\n",
			       ret);
			return ret;
		}
	}
	return 0;
}
#else
static int fill_cuckoo(struct kbench *x, u32 cnt)
{
	return -EOPNOTSUPP;
}
#endif

static int fill(struct kbench *x)
{
	u64 i, j, key;
	int err = 0;

	if (IS_FUSE(x->c.g.layout))
		return fill_fuse(x);
	for (i = 0; i < n && !err; i += GROUP) {
		for (j = 0; j < min_t(u64, GROUP, n - i); j++) {
			key = i + j;
			x->h[j] = bloom_hash(&x->c, &key, sizeof(key));
		}
		if (IS_CUCKOO(x->c.g.layout))
			err = fill_cuckoo(x, j);
		else
			bloom_load_batch(&x->c, x->b, x->h, j);
		cond_resched();
	}
	return err;
}

static int bench_layout(struct kbench *x, u8 layout)
{
	struct bloom_geom g = { .seed = 1, .flags = BLOOM_F_FIXED_SEED };
	const char *what = layouts[layout];
	u32 k;
	int err;

	err = bloom_geom_size(n, 10000000, layout, &g);
	if (err)
		return err;
	bloom_core_init(&x->c, &g);
	k = g.hashes;
	x->b = vzalloc(sizeof(*x->b) + bloom_array_bytes(&x->c));
	if (!x->b)
		return -ENOMEM;
	err = fill(x) ?:
	      check_hits(what, timed(x, t_single, 0, what, k, "test_present"));
	if (!err)
		timed(x, t_single, n, what, k, "test_absent");
	if (!err && IS_FUSE(layout)) {
		timed(x, t_fuse_batch, 0, what, k, "batch_present");
		timed(x, t_fuse_batch, n, what, k, "batch_absent");
	} else if (!err && !IS_CUCKOO(layout)) {
		timed(x, t_batch, 0, what, k, "batch_present");
		timed(x, t_batch, n, what, k, "batch_absent");
	}
	vfree(x->b);
	return err;
}

/*
 * Add keys 0 .. n - 1, waiting while a filter that grows (@grows) is
 * full; any other that says full failed (a cuckoo table: a key did not
 * fit).
 */
static int api_fill(struct kbench *x, bool grows)
{
	u64 key;
	int err, tries;

	for (key = 0; key < n; key++) {
		for (tries = 0; tries < 1000; tries++) {
			err = bloom_add(x->f, &key, sizeof(key));
			if (err != -ENOSPC || !grows)
				break;
			usleep_range(100, 200);
		}
		if (err)
			return err;
		if (!(key % GROUP))
			cond_resched();
	}
	return 0;
}

/* Fill filter @name, time it; destroy it unless @keep. */
static int bench_api(struct kbench *x, struct bloom_geom *g, const char *name,
		     const char *what, u32 k, bool grows, bool keep)
{
	int err = bloom_registry_create(&init_net, name, g);

	if (err)
		return err;
	x->f = bloom_get(&init_net, name);
	err = PTR_ERR_OR_ZERO(x->f);
	if (!err)
		err = api_fill(x, grows);
	if (!err)
		err = check_hits(what, timed(x, t_api, 0, what, k,
					     "test_present"));
	if (!err)
		timed(x, t_api, n, what, k, "test_absent");
#ifdef BLOOM_CUCKOO_SLOTS
	/* Filled to capacity: a new key is refused, and must be at once. */
	if (!err && g->layout == BLOOM_LAYOUT_CUCKOO)
		timed(x, t_api_update, n, what, k, "test_and_add_full");
#endif
	if (!IS_ERR_OR_NULL(x->f))
		bloom_put(x->f);
	if (err || !keep)
		bloom_registry_destroy(&init_net, name);
	return err;
}

#ifdef BLOOM_STAGES_MAX
static const unsigned int grown[] = { 1, 16, 128, 1024 };
#endif

static int bench_apis(struct kbench *x)
{
	unsigned int i __maybe_unused;
	struct bloom_geom g = { .seed = 1, .flags = BLOOM_F_FIXED_SEED,
				.key_type = BLOOM_KEY_BYTES };
	int err = bloom_geom_size(n, 10000000, BLOOM_LAYOUT_BLOCKED, &g);

	if (!err)
		err = bench_api(x, &g, "kbench", "api", g.hashes, false, false);
#ifdef BLOOM_CUCKOO_SLOTS
	if (!err) {
		g = (struct bloom_geom){ .seed = 1,
					 .flags = BLOOM_F_FIXED_SEED,
					 .key_type = BLOOM_KEY_BYTES };
		err = bloom_geom_size(n, 10000000, BLOOM_LAYOUT_CUCKOO, &g) ?:
		      bench_api(x, &g, "kbench_cuckoo", "api-cuckoo", g.hashes,
				false, false);
	}
#endif
#ifdef BLOOM_STAGES_MAX
	for (i = 0; i < ARRAY_SIZE(grown) && !err; i++) {
		char name[BLOOM_NAME_MAX], what[32];

		snprintf(name, sizeof(name), "kbench_grown%u", grown[i]);
		snprintf(what, sizeof(what), "api-grown%u", grown[i]);
		g = (struct bloom_geom){ .seed = 1,
					 .flags = BLOOM_F_FIXED_SEED,
					 .key_type = BLOOM_KEY_BYTES,
					 .stages_max = BLOOM_STAGES_MAX,
					 .growth = 2, .tighten_pct = 50 };
		err = bloom_geom_size(max(n / grown[i], 1UL), 5000000,
				      BLOOM_LAYOUT_BLOCKED, &g) ?:
		      bench_api(x, &g, name, what, 0, true, true);
	}
#endif
	return err;
}

static int __init kbench_init(void)
{
	struct bpf_map *maps[2] = {};
	struct kbench *x;
	int i, err = 0;
	u8 layout;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	for (i = 0; i < nr_fds && !err; i++) {
		maps[i] = bpf_map_get(bpf_fds[i]);
		if (IS_ERR(maps[i])) {
			err = PTR_ERR(maps[i]);
			maps[i] = NULL;
		} else if (maps[i]->map_type != BPF_MAP_TYPE_BLOOM_FILTER ||
			   maps[i]->value_size != sizeof(u64)) {
			err = -EINVAL;
		} else {
			err = bench_bpf(x, maps[i]);
		}
	}
	for (layout = 0; layout < BLOOM_LAYOUT_MAX && !err; layout++)
		err = bench_layout(x, layout);
	if (!err)
		err = bench_apis(x);
	for (i = 0; i < nr_fds; i++)
		if (maps[i])
			bpf_map_put(maps[i]);
	kfree(x);
	return err;
}

static void __exit kbench_exit(void)
{
#ifdef BLOOM_STAGES_MAX
	char name[BLOOM_NAME_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(grown); i++) {
		snprintf(name, sizeof(name), "kbench_grown%u", grown[i]);
		bloom_registry_destroy(&init_net, name);
	}
#endif
}

module_init(kbench_init);
module_exit(kbench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("In-kernel lookups of the bloom core beside the BPF bloom map");
MODULE_IMPORT_NS(BPF_INTERNAL);
