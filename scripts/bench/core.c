// SPDX-License-Identifier: GPL-2.0
/*
 * Native benchmark of the filter core (the userspace build of
 * module/core/, -O2): ns per operation for every layout and filter size,
 * beside one dependent random memory access over the same memory and
 * beside libbloom, all in one run so that the numbers compare.
 *
 *   bench-core [-o FILE] [-r REPS] [-e PPB] [-A | -C | -S] [N...]
 *			(default N: 1e6 1e7 1e8; -C: 1e6 1e7; -S: 1e5 1e6 1e7)
 *
 * Per Bloom layout and N (8-byte keys, filter sized for N at PPB parts per
 * 10^9, default 1 %; cuckoo tables have a pass of their own, -C):
 *   load        bloom_load_batch() of the first half (contents private)
 *   add/bat     bloom_add_batch() of the next quarter
 *   add         bloom_add_hash() of the last quarter, one key at a time
 *   test        bloom_test_hash() of present / absent keys, independent
 *   dep         the same, each key chosen by the previous answer (latency)
 *   bat         bloom_test_batch() of 4096 keys at a time
 *   memlat      one dependent random load over the filter's memory
 *   memmlp      one independent random 64-byte read over it, 4096 in a
 *               row (the bound a batch touching one line per key meets)
 * Every lookup includes hashing its key. Lookups are repeated REPS times
 * (default 11) and the median is printed; FILE gets every figure as
 * tab-separated "core LAYOUT N PPB METRIC MEDIAN MIN MAX" lines. Absent keys
 * also give the measured false-positive rate ("fpr", with the theory and
 * its standard deviation).
 *
 * -A: aging filters instead (blocked layout). Plain test of present and
 * absent keys on a plain filter holding N keys, beside test-and-add on an
 * aging filter of two generations of that geometry, the older holding
 * N keys and the newest N/2, as module/api.c does it: probe the
 * generations newest first through a view, add to the newest unless it
 * holds the key. Keys are fresh ("absent", every generation probed, then
 * added) or in the older generation only ("renewed", both probed, then
 * added); "age_tadd_*" lines in FILE.
 *
 * -C: cuckoo filters (BLOOM_LAYOUT_CUCKOO), beside the layouts they would
 * replace; "ck_*" lines in FILE, so that they never overwrite the main
 * pass's figures. Printed, each also in FILE:
 *   memory      bits per key from the sizing of each layout for 10^6 keys
 *               at 1 %, 0.1 % and 0.01 %, beside log2(1/eps) and the
 *               cuckoo's own f / load (f bits a slot, slots 95 % full)
 *   lookups     per N: blocked and counting filters (bulk-loaded, timed
 *               with the helpers of the main pass) and a cuckoo table
 *               filled to its capacity N, single lookups and batches of
 *               4096; the cuckoo's batch is what kinds/cuckoo.c
 *               cuckoo_test_batch() does (groups of 8 keys: their buckets,
 *               then a prefetch of both, then the tests), and its tests
 *               are the kind's test, without the sequence counts
 *   inserts     ns per insert (median chunk of 1024 keys, hashing
 *               included) and moves per insert, per 10 % band of load
 *               factor as the table fills to N
 *   fpr         after N inserts, against bloom_theory_fpr_ppb(g, N)
 *   delete      ns per delete of present keys from the full table
 *   goals       each met or not, with its figure
 *
 * -S: static filters (BLOOM_LAYOUT_FUSE) of f = 8 and 16 bits, beside the
 * blocked filter of the same rate 2^-f (sized with PPB = 10^9 >> f);
 * "st_*" lines in FILE under that PPB. Per N (10^5 fits in cache):
 *   memory      bits per key, against f = log2(1/eps) and the goal of
 *               1.15 f for fuse8 at 10^6; the blocked filter's
 *   build       ns per key of the core's build, hashing, sorting and
 *               seeds that fail included (bloomctl's loop)
 *   fpr         over 10^7 keys never added, against 2^-f
 *   lookups     bloom_fuse_lookup() (what bloom_test_hash() calls) and
 *               a batch that prefetches each key's three entries, 16
 *               keys at a time, beside the blocked filter's single
 *               lookups and bloom_test_batch()
 *   goals       each met or not, with its figure
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "../../module/core/bloom_core.h"
#include "libbloom.h"

#define OPS	250000ULL	/* timed lookups per measurement */
#define FPR_KEYS	4000000ULL	/* keys never added, for the FPR */
#define GROUP	4096		/* keys hashed, then probed, per batch */
#define MAXREPS	31

static FILE *tsv;
static int reps = 11;
static u64 fpr_ppb = 10000000;	/* 1 % */

/*
 * The thread's CPU time, not the wall clock: on a machine shared with
 * other work, time spent waiting for a CPU does not count.
 */
static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * Large arrays on transparent huge pages, as a long-lived filter would
 * want: with 4 KiB pages every random probe is also a TLB miss. The
 * filters and the memory-latency yardstick both use this.
 */
static void *alloc_big(u64 bytes)
{
	u64 len = (bytes + (2ULL << 20) - 1) & ~((2ULL << 20) - 1);
	void *p = aligned_alloc(2ULL << 20, len);

	if (!p)
		exit(1);
	madvise(p, len, MADV_HUGEPAGE);
	memset(p, 0, len);
	return p;
}

/* Bytes of this process on transparent huge pages right now. */
static u64 thp_bytes(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	unsigned long long kb = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

static u64 hash_of(const struct bloom_core *c, u64 i)
{
	return bloom_hash(c, &i, sizeof(i));
}

/* The i-th key to look up: scattered in [0, n), all present. */
static u64 pick(u64 i, u64 n)
{
	return bloom_mulhi(i * 0x9e3779b97f4a7c15ULL, n);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of @n samples, recorded with their spread under @metric. */
static double record(const char *what, u64 n, const char *metric,
		     double *v, int cnt)
{
	qsort(v, cnt, sizeof(*v), cmp_double);
	if (tsv)
		fprintf(tsv, "core\t%s\t%llu\t%llu\t%s\t%.10g\t%.10g\t%.10g\n",
			what, (unsigned long long)n,
			(unsigned long long)fpr_ppb, metric, v[cnt / 2], v[0],
			v[cnt - 1]);
	return v[cnt / 2];
}

static double record1(const char *what, u64 n, const char *metric, double v)
{
	return record(what, n, metric, &v, 1);
}

/* ns per dependent load over @bytes of memory (a random cycle). */
static double memory_latency(u64 bytes)
{
	u64 n = bytes / 64, i, *next, *perm, p = 0, state = 1;
	double t, v[5];
	int r;

	next = alloc_big(n * 64);
	perm = malloc(n * sizeof(u64));
	if (!perm)
		exit(1);
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		u64 j, tmp;

		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		j = (state >> 11) % (i + 1);
		tmp = perm[i];
		perm[i] = perm[j];
		perm[j] = tmp;
	}
	for (i = 0; i < n; i++)
		next[perm[i] * 8] = perm[(i + 1) % n] * 8;
	for (r = 0; r < 5; r++) {
		t = now_ns();
		for (i = 0; i < OPS; i++)
			p = next[p];
		v[r] = (now_ns() - t) / OPS;
	}
	qsort(v, 5, sizeof(*v), cmp_double);
	t = v[2];
	free(perm);
	free(next);
	return p == ~0ULL ? 0 : t;
}

/*
 * ns per independent random 64-byte read over @bytes of memory: GROUP
 * line indices drawn first, then read with nothing depending on a load,
 * so that the core keeps as many misses in flight as it can. This is
 * the machine's memory-level-parallelism bound for a batch of lookups
 * touching one line each, measured in the same run over the same size.
 */
static double memory_parallel(u64 bytes)
{
	u64 n = bytes / 64, i, j, state = 7, sum = 0, *mem, *idx;
	double t, v[5];
	int r;

	mem = alloc_big(n * 64);
	idx = malloc(GROUP * sizeof(*idx));
	if (!idx)
		exit(1);
	for (i = 0; i < n * 8; i += 8)
		mem[i] = i;	/* every line touched: no zero page */
	for (r = 0; r < 5; r++) {
		t = now_ns();
		for (i = 0; i < OPS / GROUP * GROUP; i += GROUP) {
			for (j = 0; j < GROUP; j++) {
				state ^= state << 13;
				state ^= state >> 7;
				state ^= state << 17;
				idx[j] = (state % n) * 8;
			}
			for (j = 0; j < GROUP; j++)
				sum += mem[idx[j]];
		}
		v[r] = (now_ns() - t) / i;
	}
	qsort(v, 5, sizeof(*v), cmp_double);
	free(idx);
	free(mem);
	return sum == 42 ? 0 : v[2];
}

struct ctx {
	struct bloom_core c;
	struct bloom_bits *b;
	u64 n, *h, present[GROUP / 64], sink;
};

/* Lookups of keys base + pick(i, n): base 0 present, base n absent. */
static double t_single(struct ctx *x, u64 base)
{
	double t = now_ns();
	u64 i, hits = 0;

	for (i = 0; i < OPS; i++)
		hits += bloom_test_hash(&x->c, x->b,
					hash_of(&x->c, base + pick(i, x->n)));
	x->sink += hits;
	return (now_ns() - t) / OPS;
}

static double t_dep(struct ctx *x, u64 base)
{
	double t = now_ns();
	u64 i, key = 0;

	for (i = 0; i < OPS; i++)
		key = pick(key + bloom_test_hash(&x->c, x->b,
						 hash_of(&x->c, base + key)) + i,
			   x->n);
	x->sink += key;
	return (now_ns() - t) / OPS;
}

static double t_batch(struct ctx *x, u64 base)
{
	double t = now_ns();
	u64 i, j;

	for (i = 0; i < OPS / GROUP * GROUP; i += GROUP) {
		for (j = 0; j < GROUP; j++)
			x->h[j] = hash_of(&x->c, base + pick(i + j, x->n));
		x->sink += bloom_test_batch(&x->c, x->b, x->h, GROUP,
					    x->present);
	}
	return (now_ns() - t) / i;
}

static void timed(struct ctx *x, const char *layout, const char *metric,
		  double (*fn)(struct ctx *, u64), u64 base, double *out)
{
	double v[MAXREPS];
	int r;

	for (r = 0; r < reps; r++)
		v[r] = fn(x, base);
	*out = record(layout, x->n, metric, v, reps);
}

struct result {
	double mib, load, add, add_batch, test[2], dep[2], bat[2], fpr, lat;
	double mlp;
};

/*
 * Adds change the filter, so they cannot be repeated: they are timed in
 * chunks of GROUP keys and the median chunk counts, which a preemption on
 * a busy machine does not move.
 */
static double fill(struct ctx *x, const char *metric, u64 from, u64 to,
		   u32 (*fn)(const struct bloom_core *, struct bloom_bits *,
			     const u64 *, u32))
{
	u64 i, j, chunks = DIV_ROUND_UP(to - from, GROUP), c = 0;
	double *v = malloc(chunks * sizeof(*v)), t;

	if (!v)
		exit(1);
	for (i = from; i < to; i += GROUP) {
		u32 cnt = min(GROUP, to - i);

		t = now_ns();
		for (j = 0; j < cnt; j++)
			x->h[j] = hash_of(&x->c, i + j);
		if (fn) {
			fn(&x->c, x->b, x->h, cnt);
		} else {
			for (j = 0; j < cnt; j++)
				bloom_add_hash(&x->c, x->b, x->h[j]);
		}
		v[c++] = (now_ns() - t) / cnt;
	}
	t = record(bloom_layout_name(x->c.g.layout), x->n, metric, v, c);
	free(v);
	return t;
}

static void run(u8 layout, u64 n, struct result *r)
{
	struct bloom_geom g = { .seed = 1, .flags = BLOOM_F_FIXED_SEED };
	const char *name = bloom_layout_name(layout);
	struct ctx x = { .n = n };
	u64 bytes, i, fp, theory;
	double p, sd;

	if (bloom_geom_size(n, fpr_ppb, layout, &g))
		exit(1);
	bloom_core_init(&x.c, &g);
	bytes = bloom_array_bytes(&x.c);
	x.b = alloc_big(sizeof(*x.b) + bytes);
	/* Without huge pages each probe is also a TLB miss: say how many. */
	record1(name, n, "thp", min(1.0, (double)thp_bytes() / bytes));
	x.h = malloc(GROUP * sizeof(u64));
	if (!x.h)
		exit(1);
	r->mib = bytes / 1048576.0;
	record1(name, n, "bytes", bytes);
	record1(name, n, "k", g.hashes);

	r->load = fill(&x, "load", 0, n / 2, bloom_load_batch);
	r->add_batch = fill(&x, "add_batch", n / 2, n / 4 * 3, bloom_add_batch);
	r->add = fill(&x, "add", n / 4 * 3, n, NULL);

	timed(&x, name, "test_present", t_single, 0, &r->test[0]);
	timed(&x, name, "test_absent", t_single, n, &r->test[1]);
	timed(&x, name, "dep_present", t_dep, 0, &r->dep[0]);
	timed(&x, name, "dep_absent", t_dep, n, &r->dep[1]);
	timed(&x, name, "batch_present", t_batch, 0, &r->bat[0]);
	timed(&x, name, "batch_absent", t_batch, n, &r->bat[1]);

	/* FPR_KEYS keys never added: the false-positive rate. */
	for (i = fp = 0; i < FPR_KEYS; i++)
		fp += bloom_test_hash(&x.c, x.b, hash_of(&x.c, 2 * n + i));
	theory = bloom_theory_fpr_ppb(&g, n);
	p = theory / 1e9;
	sd = sqrt(p * (1 - p) / FPR_KEYS +
		  p * p * g.hashes * (double)g.hashes / g.bits);
	r->fpr = fp / (double)FPR_KEYS;
	record1(name, n, "fpr", r->fpr);
	record1(name, n, "fpr_theory", p);
	record1(name, n, "fpr_sd", sd);
	if (x.sink == 42)
		printf("\n");
	free(x.b);
	free(x.h);
	r->lat = memory_latency(bytes);
	record1(name, n, "memlat", r->lat);
	r->mlp = memory_parallel(bytes);
	record1(name, n, "memmlp", r->mlp);
}

#define AGE_GENS	2

/* An aging filter as aging.c lays it out: arrays and a view of them. */
struct age_view {
	u8 live[AGE_GENS];
};

struct age {
	struct bloom_core c;
	struct bloom_bits *b[AGE_GENS + 1];
	const struct age_view *view;
	u64 n, sink;
};

/* bloom_age_find() then the add of add_rcu(): 1 if seen in any generation. */
static int age_test_and_add(struct age *a, u64 h)
{
	const struct age_view *v = *(const struct age_view *volatile *)&a->view;
	struct bloom_bits *newest = a->b[v->live[0]];
	int i, at = -1;

	for (i = 0; i < AGE_GENS; i++) {
		if (bloom_test_hash(&a->c, a->b[v->live[i]], h)) {
			at = i;
			break;
		}
	}
	if (at)
		bloom_add_hash(&a->c, newest, h);
	return at >= 0;
}

/* Test-and-add of OPS keys from @base on, each a new one. */
static double t_age(struct age *a, u64 base)
{
	double t = now_ns();
	u64 i, hits = 0;

	for (i = 0; i < OPS; i++)
		hits += age_test_and_add(a, hash_of(&a->c, base + i));
	a->sink += hits;
	return (now_ns() - t) / OPS;
}

static void run_aging(u64 n)
{
	struct bloom_geom g = { .seed = 1, .flags = BLOOM_F_FIXED_SEED };
	static const struct age_view view = { .live = { 0, 1 } };
	double v[2][MAXREPS], plain[2];
	struct age a = { .n = n, .view = &view };
	struct ctx x = { .n = n };
	u64 bytes, i;
	int r;

	if (bloom_geom_size(n, fpr_ppb, BLOOM_LAYOUT_BLOCKED, &g))
		exit(1);
	bloom_core_init(&a.c, &g);
	x.c = a.c;
	bytes = bloom_array_bytes(&a.c);
	for (i = 0; i <= AGE_GENS; i++)
		a.b[i] = alloc_big(sizeof(*a.b[i]) + bytes);
	x.b = alloc_big(sizeof(*x.b) + bytes);
	for (i = 0; i < n; i++) {
		bloom_add_hash(&x.c, x.b, hash_of(&x.c, i));
		bloom_add_hash(&a.c, a.b[1], hash_of(&a.c, i));	/* older */
	}
	for (i = 0; i < n / 2; i++)	/* newest, other keys */
		bloom_add_hash(&a.c, a.b[0], hash_of(&a.c, 16 * n + i));
	timed(&x, "plain", "test_present", t_single, 0, &plain[0]);
	timed(&x, "plain", "test_absent", t_single, n, &plain[1]);
	/*
	 * Every rep adds OPS keys to the newest: fresh keys from a range of
	 * their own, renewed keys from the older generation's (each once when
	 * N >= REPS * OPS).
	 */
	for (r = 0; r < reps; r++) {
		v[0][r] = t_age(&a, 32 * n + (u64)r * OPS);
		v[1][r] = t_age(&a, (u64)r * OPS % n);
	}
	printf("%-12s %10llu %7.1f | plain test p/a %5.1f %5.1f | aging G=2 test-and-add fresh/renewed %5.1f %5.1f\n",
	       "blocked", (unsigned long long)n, bytes / 1048576.0, plain[0],
	       plain[1], record("aging", n, "age_tadd_fresh", v[0], reps),
	       record("aging", n, "age_tadd_renewed", v[1], reps));
	if (a.sink + x.sink == 42)
		printf("\n");
	for (i = 0; i <= AGE_GENS; i++)
		free(a.b[i]);
	free(x.b);
}

/* libbloom: filled to n, then the same lookups one key at a time. */
static void run_libbloom(u64 n, struct result *r)
{
	struct lb *f = lb_new(n, fpr_ppb / 1e9);
	double v[2][MAXREPS], t, *add = malloc(DIV_ROUND_UP(n, GROUP) * 8);
	u64 i, key, hits = 0;
	int rep, absent;

	r->mib = lb_bytes(f) / 1048576.0;
	record1("libbloom", n, "bytes", lb_bytes(f));
	record1("libbloom", n, "k", lb_hashes(f));
	for (i = 0; i < n; i += GROUP) {
		t = now_ns();
		for (key = i; key < min(n, i + GROUP); key++)
			lb_add(f, &key, sizeof(key));
		add[i / GROUP] = (now_ns() - t) / (key - i);
	}
	r->add = record("libbloom", n, "add", add, DIV_ROUND_UP(n, GROUP));
	free(add);
	for (rep = 0; rep < reps; rep++) {
		for (absent = 0; absent < 2; absent++) {
			t = now_ns();
			for (i = 0; i < OPS; i++) {
				key = absent * n + pick(i, n);
				hits += lb_check(f, &key, sizeof(key));
			}
			v[absent][rep] = (now_ns() - t) / OPS;
		}
	}
	r->test[0] = record("libbloom", n, "test_present", v[0], reps);
	r->test[1] = record("libbloom", n, "test_absent", v[1], reps);
	for (i = 0; i < FPR_KEYS; i++) {
		key = 2 * n + i;
		hits += lb_check(f, &key, sizeof(key)) * 0x10000000000ULL;
	}
	r->fpr = (hits >> 40) / (double)FPR_KEYS;
	record1("libbloom", n, "fpr", r->fpr);
	lb_free(f);
}

/*
 * -C: cuckoo tables. Inserts go through bloom_cuckoo_insert(), which
 * bloom_add_hash() and the batches do not reach: the main pass skips them.
 */
#define CK_MEM_KEYS	1000000ULL	/* keys the memory table sizes for */
#define CK_CHUNK	1024		/* inserts or deletes timed together */
#define CK_BANDS	10		/* of load factor, 10 % each */
#define CK_GROUP	16		/* keys a batch prefetches, as the kind */
#define CK_SLOWER	1.5		/* goal: lookups within this of blocked */

static struct bloom_cuckoo_node ck_queue[BLOOM_CUCKOO_NODES];

/* Array bits per key of @layout sized for @n keys at @ppb; f or k in @k. */
static double bits_per_key(u8 layout, u64 n, u64 ppb, u32 *k)
{
	struct bloom_geom g = { .seed = 1, .flags = BLOOM_F_FIXED_SEED };
	struct bloom_core c;

	if (bloom_geom_size(n, ppb, layout, &g))
		exit(1);
	bloom_core_init(&c, &g);
	*k = g.hashes;
	return bloom_array_bytes(&c) * 8.0 / n;
}

/* The memory table; returns cuckoo / counting bits per key at 1 %. */
static double ck_memory(double *ck1, double *cnt1)
{
	static const u64 rates[] = { 10000000, 1000000, 100000 };
	static const u8 cmp[] = { BLOOM_LAYOUT_COUNTING, BLOOM_LAYOUT_BLOCKED,
				  BLOOM_LAYOUT_STANDARD };
	const u64 n = CK_MEM_KEYS, saved = fpr_ppb;
	double ck, v[3];
	unsigned int r, i;
	u32 f, k;

	printf("Bits per key, each layout sized for %llu keys:\n",
	       (unsigned long long)n);
	printf("%-7s %3s %7s %7s | %8s %8s %8s | %11s\n", "rate", "f",
	       "cuckoo", "f/load", "counting", "blocked", "standard",
	       "log2(1/eps)");
	for (r = 0; r < ARRAY_SIZE(rates); r++) {
		fpr_ppb = rates[r];
		ck = bits_per_key(BLOOM_LAYOUT_CUCKOO, n, fpr_ppb, &f);
		record1("cuckoo", n, "ck_bits_per_key", ck);
		record1("cuckoo", n, "ck_k", f);
		for (i = 0; i < ARRAY_SIZE(cmp); i++) {
			v[i] = bits_per_key(cmp[i], n, fpr_ppb, &k);
			record1(bloom_layout_name(cmp[i]), n,
				"ck_bits_per_key", v[i]);
			record1(bloom_layout_name(cmp[i]), n, "ck_k", k);
		}
		record1("theory", n, "ck_log2", log2(1e9 / fpr_ppb));
		record1("theory", n, "ck_f_load",
			f * 100.0 / BLOOM_CUCKOO_LOAD_PCT);
		printf("%6g %% %3u %7.2f %7.2f | %8.2f %8.2f %8.2f | %11.2f\n",
		       fpr_ppb / 1e7, f, ck, f * 100.0 / BLOOM_CUCKOO_LOAD_PCT,
		       v[0], v[1], v[2], log2(1e9 / fpr_ppb));
		if (!r) {
			*ck1 = ck;
			*cnt1 = v[0];
		}
	}
	fpr_ppb = saved;
	return *ck1 / *cnt1;
}

struct ck_result {
	double mib, test[2], bat[2];
};

/* Blocked or counting beside the cuckoo: bulk-loaded, then timed. */
static void ck_side(u8 layout, u64 n, struct ck_result *r)
{
	struct bloom_geom g = { .seed = 1, .flags = BLOOM_F_FIXED_SEED };
	const char *name = bloom_layout_name(layout);
	struct ctx x = { .n = n };
	u64 bytes, i, j;

	if (bloom_geom_size(n, fpr_ppb, layout, &g))
		exit(1);
	bloom_core_init(&x.c, &g);
	bytes = bloom_array_bytes(&x.c);
	x.b = alloc_big(sizeof(*x.b) + bytes);
	x.h = malloc(GROUP * sizeof(u64));
	if (!x.h)
		exit(1);
	for (i = 0; i < n; i += GROUP) {
		for (j = 0; j < min(GROUP, n - i); j++)
			x.h[j] = hash_of(&x.c, i + j);
		bloom_load_batch(&x.c, x.b, x.h, j);
	}
	r->mib = bytes / 1048576.0;
	record1(name, n, "ck_bytes", bytes);
	timed(&x, name, "ck_test_present", t_single, 0, &r->test[0]);
	timed(&x, name, "ck_test_absent", t_single, n, &r->test[1]);
	timed(&x, name, "ck_batch_present", t_batch, 0, &r->bat[0]);
	timed(&x, name, "ck_batch_absent", t_batch, n, &r->bat[1]);
	if (x.sink == 42)
		printf("\n");
	free(x.b);
	free(x.h);
}

/* The kind's test (kinds/cuckoo.c cuckoo_test()) without the seqcount. */
static bool ck_test(const struct bloom_core *c, const struct bloom_bits *b,
		    u64 h)
{
	struct bloom_cuckoo_key k;

	bloom_cuckoo_key(c, h, &k);
	return bloom_cuckoo_present(c, b, &k);
}

/* The word a bucket starts in, as kinds/cuckoo.c prefetches it. */
static u64 ck_word(const struct bloom_core *c, u64 bucket)
{
	return bucket * BLOOM_CUCKOO_SLOTS * c->g.hashes / 64;
}

/* kinds/cuckoo.c cuckoo_test_batch() without the seqcount. */
static u32 ck_test_batch(const struct bloom_core *c,
			 const struct bloom_bits *b, const u64 *h, u32 n,
			 u64 *present)
{
	struct bloom_cuckoo_key k[CK_GROUP];
	u32 i, j, g, hits = 0;

	memset(present, 0, DIV_ROUND_UP(n, 64) * sizeof(u64));
	for (i = 0; i < n; i += g) {
		g = min(CK_GROUP, n - i);
		for (j = 0; j < g; j++) {
			bloom_cuckoo_key(c, h[i + j], &k[j]);
			bloom_prefetch(&b->words[ck_word(c, k[j].i1)]);
			bloom_prefetch(&b->words[ck_word(c, k[j].i2)]);
		}
		for (j = 0; j < g; j++) {
			if (!bloom_cuckoo_present(c, b, &k[j]))
				continue;
			present[(i + j) / 64] |= 1ULL << ((i + j) % 64);
			hits++;
		}
	}
	return hits;
}

static double t_ck_single(struct ctx *x, u64 base)
{
	double t = now_ns();
	u64 i, hits = 0;

	for (i = 0; i < OPS; i++)
		hits += ck_test(&x->c, x->b,
				hash_of(&x->c, base + pick(i, x->n)));
	x->sink += hits;
	return (now_ns() - t) / OPS;
}

static double t_ck_batch(struct ctx *x, u64 base)
{
	double t = now_ns();
	u64 i, j;

	for (i = 0; i < OPS / GROUP * GROUP; i += GROUP) {
		for (j = 0; j < GROUP; j++)
			x->h[j] = hash_of(&x->c, base + pick(i + j, x->n));
		x->sink += ck_test_batch(&x->c, x->b, x->h, GROUP, x->present);
	}
	return (now_ns() - t) / i;
}

/*
 * A cuckoo table sized for @n keys, filled with them while the inserts
 * are timed per band of load factor, then looked up, its false-positive
 * rate measured, and a tenth of its keys deleted. Returns the FPR's
 * distance from theory in sigmas.
 */
static double ck_run(u64 n, struct ck_result *r)
{
	struct bloom_geom g = { .seed = 1, .flags = BLOOM_F_FIXED_SEED };
	u64 keys[CK_BANDS] = { 0 }, moves[CK_BANDS] = { 0 };
	u64 failed = 0, slots, bytes, i, j, fp, lost, stored, missing = 0;
	double *v[CK_BANDS], p, sd, dev, fill_ns = 0, t;
	u32 nv[CK_BANDS] = { 0 }, chunks = DIV_ROUND_UP(n, CK_CHUNK), band;
	struct ctx x = { .n = n };
	char metric[32];

	if (bloom_geom_size(n, fpr_ppb, BLOOM_LAYOUT_CUCKOO, &g))
		exit(1);
	bloom_core_init(&x.c, &g);
	bytes = bloom_array_bytes(&x.c);
	slots = x.c.range * BLOOM_CUCKOO_SLOTS;
	x.b = alloc_big(sizeof(*x.b) + bytes);
	x.h = malloc(GROUP * sizeof(u64));
	for (band = 0; band < CK_BANDS; band++)
		v[band] = malloc(chunks * sizeof(double));
	if (!x.h || !v[CK_BANDS - 1])
		exit(1);
	r->mib = bytes / 1048576.0;
	record1("cuckoo", n, "ck_thp", min(1.0, (double)thp_bytes() / bytes));
	record1("cuckoo", n, "ck_bytes", bytes);
	record1("cuckoo", n, "ck_k", g.hashes);
	record1("cuckoo", n, "ck_slots", slots);

	/* Fill to n keys: the load factor ends near BLOOM_CUCKOO_LOAD_PCT. */
	for (i = 0; i < n; i += CK_CHUNK) {
		u32 cnt = min(CK_CHUNK, n - i);
		u64 mv = 0;
		int ret;

		band = min(bloom_word_read(&x.b->inserted) * CK_BANDS / slots,
			   CK_BANDS - 1);
		t = now_ns();
		for (j = 0; j < cnt; j++) {
			ret = bloom_cuckoo_insert(&x.c, x.b,
						  hash_of(&x.c, i + j),
						  ck_queue, NULL, &mv, false);
			failed += ret == -ENOSPC;
		}
		t = now_ns() - t;
		fill_ns += t;
		v[band][nv[band]++] = t / cnt;
		keys[band] += cnt;
		moves[band] += mv;
	}
	stored = bloom_word_read(&x.b->inserted);
	record1("cuckoo", n, "ck_stored", stored);
	record1("cuckoo", n, "ck_insert_failed", failed);
	record1("cuckoo", n, "ck_insert_mean", fill_ns / n);
	printf("cuckoo %llu keys, f = %u, %llu buckets, %.1f MiB; inserts as the load factor rises:\n",
	       (unsigned long long)n, g.hashes,
	       (unsigned long long)x.c.range, r->mib);
	printf("  %-9s %10s %10s %8s\n", "load", "ns/insert", "moves/key",
	       "keys");
	for (band = 0; band < CK_BANDS; band++) {
		double ns, mpk;

		if (!nv[band])
			continue;
		snprintf(metric, sizeof(metric), "ck_insert_%u",
			 band * 100 / CK_BANDS);
		ns = record("cuckoo", n, metric, v[band], nv[band]);
		mpk = (double)moves[band] / keys[band];
		snprintf(metric, sizeof(metric), "ck_moves_%u",
			 band * 100 / CK_BANDS);
		record1("cuckoo", n, metric, mpk);
		printf("  %2u-%-3u %% %10.1f %10.3f %8llu\n",
		       band * 100 / CK_BANDS,
		       band == CK_BANDS - 1 ? BLOOM_CUCKOO_LOAD_PCT :
		       (band + 1) * 100 / CK_BANDS, ns, mpk,
		       (unsigned long long)keys[band]);
	}
	printf("  all %.1f ns/insert; %llu stored (load %.1f %%), %llu found present already, %llu did not fit\n",
	       fill_ns / n, (unsigned long long)stored, 100.0 * stored / slots,
	       (unsigned long long)(n - stored - failed),
	       (unsigned long long)failed);

	/* Every key added must be found, bar those that did not fit. */
	for (i = lost = 0; i < n; i++)
		lost += !ck_test(&x.c, x.b, hash_of(&x.c, i));
	record1("cuckoo", n, "ck_lost", lost);
	if (lost > failed)
		printf("  %llu keys lost!\n", (unsigned long long)lost);

	timed(&x, "cuckoo", "ck_test_present", t_ck_single, 0, &r->test[0]);
	timed(&x, "cuckoo", "ck_test_absent", t_ck_single, n, &r->test[1]);
	timed(&x, "cuckoo", "ck_batch_present", t_ck_batch, 0, &r->bat[0]);
	timed(&x, "cuckoo", "ck_batch_absent", t_ck_batch, n, &r->bat[1]);

	/*
	 * FPR_KEYS keys never added. Given the stored fingerprints the rate
	 * hardly varies between tables: only the binomial spread counts.
	 */
	for (i = fp = 0; i < FPR_KEYS; i++)
		fp += ck_test(&x.c, x.b, hash_of(&x.c, 2 * n + i));
	p = bloom_theory_fpr_ppb(&g, n) / 1e9;
	sd = sqrt(p * (1 - p) / FPR_KEYS);
	dev = (fp / (double)FPR_KEYS - p) / sd;
	record1("cuckoo", n, "ck_fpr", fp / (double)FPR_KEYS);
	record1("cuckoo", n, "ck_fpr_theory", p);
	record1("cuckoo", n, "ck_fpr_sd", sd);
	record1("cuckoo", n, "ck_fpr_theory_stored",
		bloom_theory_fpr_ppb(&g, stored) / 1e9);
	printf("  FPR at capacity %.5f, theory %.5f (%.5f for the %llu stored): %+.1f sigma\n",
	       fp / (double)FPR_KEYS, p, bloom_theory_fpr_ppb(&g, stored) / 1e9,
	       (unsigned long long)stored, dev);

	/* Deletes of a tenth of the keys, from the full table down. */
	for (i = band = 0; i < n / 10; i += CK_CHUNK, band++) {
		u32 cnt = min(CK_CHUNK, n / 10 - i);

		t = now_ns();
		for (j = 0; j < cnt; j++)
			missing += bloom_cuckoo_delete(&x.c, x.b,
						       hash_of(&x.c, i + j),
						       NULL) ==
				   -ENOENT;
		v[0][band] = (now_ns() - t) / cnt;
	}
	t = band ? record("cuckoo", n, "ck_delete", v[0], band) : 0;
	record1("cuckoo", n, "ck_delete_missing", missing);
	printf("  delete %.1f ns (%llu keys from the full table, %llu not found)\n",
	       t, (unsigned long long)(n / 10), (unsigned long long)missing);
	if (x.sink == 42)
		printf("\n");
	for (band = 0; band < CK_BANDS; band++)
		free(v[band]);
	free(x.b);
	free(x.h);
	return dev;
}

static void ck_goal(bool met, const char *text)
{
	printf("goal %-7s %s\n", met ? "met" : "NOT met", text);
}

static void ck_row(const char *name, u64 n, const struct ck_result *r)
{
	printf("%-10s %10llu %7.1f | %5.1f %5.1f | %5.1f %5.1f\n", name,
	       (unsigned long long)n, r->mib, r->test[0], r->test[1],
	       r->bat[0], r->bat[1]);
}

static void run_cuckoo(const u64 *sizes, int nsizes)
{
	struct ck_result b[8], c[8], k[8];
	double ck1 = 0, cnt1 = 1, ratio, dev[8], wp, wa;
	char text[160];
	int si;

	ratio = ck_memory(&ck1, &cnt1);
	for (si = 0; si < nsizes; si++) {
		ck_side(BLOOM_LAYOUT_BLOCKED, sizes[si], &b[si]);
		ck_side(BLOOM_LAYOUT_COUNTING, sizes[si], &c[si]);
		dev[si] = ck_run(sizes[si], &k[si]);
		fflush(stdout);
	}
	printf("Lookups (ns per key, hashing included, median of %d runs):\n",
	       reps);
	printf("%-10s %10s %7s | %11s | %11s\n", "layout", "keys", "MiB",
	       "test p/a", "batch p/a");
	for (si = 0; si < nsizes; si++) {
		ck_row("blocked", sizes[si], &b[si]);
		ck_row("counting", sizes[si], &c[si]);
		ck_row("cuckoo", sizes[si], &k[si]);
	}
	snprintf(text, sizeof(text),
		 "cuckoo memory at 1 %% at most a third of counting: %.2f against %.2f bits per key (%.2f)",
		 ck1, cnt1, ratio);
	ck_goal(ratio <= 1 / 3.0, text);
	for (si = 0; si < nsizes; si++) {
		snprintf(text, sizeof(text),
			 "cuckoo FPR at capacity within 3 sigma of theory, n = %llu: %+.1f sigma",
			 (unsigned long long)sizes[si], dev[si]);
		ck_goal(fabs(dev[si]) <= 3, text);
	}
	for (si = 0; si < nsizes; si++) {
		wp = k[si].test[0] / b[si].test[0];
		wa = k[si].test[1] / b[si].test[1];
		snprintf(text, sizeof(text),
			 "cuckoo lookups within %.1fx blocked, n = %llu: present %.2fx, absent %.2fx",
			 CK_SLOWER, (unsigned long long)sizes[si], wp, wa);
		ck_goal(wp <= CK_SLOWER && wa <= CK_SLOWER, text);
		wp = k[si].bat[0] / b[si].bat[0];
		wa = k[si].bat[1] / b[si].bat[1];
		snprintf(text, sizeof(text),
			 "cuckoo batched lookups within %.1fx blocked, n = %llu: present %.2fx, absent %.2fx",
			 CK_SLOWER, (unsigned long long)sizes[si], wp, wa);
		ck_goal(wp <= CK_SLOWER && wa <= CK_SLOWER, text);
	}
}

/*
 * -S: static filters (BLOOM_LAYOUT_FUSE) beside blocked filters of the
 * same rate, 2^-f; "st_*" lines in FILE, under that rate's parts per
 * 10^9. Keys 0 .. n - 1 are built (hashed, sorted, built: seeds that do
 * not build give way to the next, as bloomctl's loop does), keys from 2n
 * on are never members.
 */
#define ST_FPR_KEYS	10000000ULL	/* non-members for the FPR */
#define ST_GROUP	16		/* keys a batch prefetches */
#define ST_GOAL_BITS	1.15		/* x log2(1/eps), f = 8, n = 10^6 */
#define ST_SLOWER	1.5		/* lookups within this of blocked */
#define ST_IN_CACHE	100000ULL	/* n whose filters fit in L2 */

struct st_result {
	double bpk, blocked_bpk, build, fpr, sd, test[2], bat[2];
	double btest[2], bbat[2], mib, bmib;
	u32 seeds, k;
};

/* A static filter: its keys' entries built from @seed on. */
static int st_build(struct ctx *x, u64 n, u32 f, u32 *seeds)
{
	struct bloom_fuse_item *it = malloc(n * sizeof(*it));
	struct bloom_fuse_item *tmp = malloc(n * sizeof(*tmp));
	struct bloom_geom g;
	u64 i, distinct = n, seed;
	void *scratch;
	u32 dup[2], t;
	int err = -EAGAIN;

	if (!it || !tmp || bloom_fuse_geom(n, f, 0, &g))
		exit(1);
	g.seed = 1;
	g.flags = BLOOM_F_FIXED_SEED;
	bloom_core_init(&x->c, &g);
	scratch = malloc(bloom_fuse_scratch_bytes(&x->c));
	if (!scratch)
		exit(1);
	for (t = 0; err == -EAGAIN && t < BLOOM_FUSE_TRIES; t++) {
		seed = 1 + t * BLOOM_FUSE_SEED_STEP;
		x->c.g.seed = seed;
		for (i = 0; i < n; i++) {
			it[i].h = hash_of(&x->c, i);
			it[i].value = 0;
			it[i].idx = i;
		}
		err = bloom_fuse_sort(it, tmp, n, scratch, &distinct, dup);
		if (err == -EEXIST) {
			err = -EAGAIN;	/* two keys, one hash */
			continue;
		}
		bloom_fuse_geom(distinct, f, 0, &g);
		g.seed = seed;
		g.flags = BLOOM_F_FIXED_SEED;
		bloom_core_init(&x->c, &g);
		memset(x->b, 0, bloom_array_bytes(&x->c));
		err = bloom_fuse_build(&x->c, x->b, it, distinct, scratch);
	}
	*seeds = t;
	free(scratch);
	free(it);
	free(tmp);
	return err;
}

/* The kernel's lookup: bloom_test_hash(), which is bloom_fuse_lookup(). */
static double t_st_single(struct ctx *x, u64 base)
{
	double t = now_ns();
	u64 i, hits = 0;
	u32 v;

	for (i = 0; i < OPS; i++)
		hits += bloom_fuse_lookup(&x->c, x->b,
					  hash_of(&x->c, base + pick(i, x->n)),
					  &v);
	x->sink += hits;
	return (now_ns() - t) / OPS;
}

/*
 * A batch: groups of ST_GROUP keys, their three entries computed and
 * prefetched, then looked up, as cuckoo_test_batch() does with buckets.
 */
static u32 st_test_batch(const struct bloom_core *c,
			 const struct bloom_bits *b, const u64 *h, u32 n,
			 u64 *present)
{
	unsigned int w = c->g.hashes + c->g.value_bits, v = c->g.value_bits;
	struct bloom_fuse_key k[ST_GROUP];
	u32 i, j, g, e, hits = 0;

	memset(present, 0, DIV_ROUND_UP(n, 64) * sizeof(u64));
	for (i = 0; i < n; i += g) {
		g = min(ST_GROUP, n - i);
		for (j = 0; j < g; j++) {
			bloom_fuse_key(c, h[i + j], &k[j]);
			bloom_prefetch(&b->words[k[j].p[0] * w / 64]);
			bloom_prefetch(&b->words[k[j].p[1] * w / 64]);
			bloom_prefetch(&b->words[k[j].p[2] * w / 64]);
		}
		for (j = 0; j < g; j++) {
			e = bloom_fuse_entry(c, b, k[j].p[0]) ^
			    bloom_fuse_entry(c, b, k[j].p[1]) ^
			    bloom_fuse_entry(c, b, k[j].p[2]);
			if (e >> v != k[j].fp)
				continue;
			present[(i + j) / 64] |= 1ULL << ((i + j) % 64);
			hits++;
		}
	}
	return hits;
}

static double t_st_batch(struct ctx *x, u64 base)
{
	double t = now_ns();
	u64 i, j;

	for (i = 0; i < OPS / GROUP * GROUP; i += GROUP) {
		for (j = 0; j < GROUP; j++)
			x->h[j] = hash_of(&x->c, base + pick(i + j, x->n));
		x->sink += st_test_batch(&x->c, x->b, x->h, GROUP, x->present);
	}
	return (now_ns() - t) / i;
}

/* The blocked filter of the same rate: bits per key and lookups. */
static void st_blocked(u64 n, struct st_result *r)
{
	struct bloom_geom g = { .seed = 1, .flags = BLOOM_F_FIXED_SEED };
	struct ctx x = { .n = n };
	u64 bytes, i, j;

	if (bloom_geom_size(n, fpr_ppb, BLOOM_LAYOUT_BLOCKED, &g))
		exit(1);
	bloom_core_init(&x.c, &g);
	bytes = bloom_array_bytes(&x.c);
	x.b = alloc_big(sizeof(*x.b) + bytes);
	x.h = malloc(GROUP * sizeof(u64));
	if (!x.h)
		exit(1);
	for (i = 0; i < n; i += GROUP) {
		for (j = 0; j < min(GROUP, n - i); j++)
			x.h[j] = hash_of(&x.c, i + j);
		bloom_load_batch(&x.c, x.b, x.h, j);
	}
	r->k = g.hashes;
	r->bmib = bytes / 1048576.0;
	r->blocked_bpk = bytes * 8.0 / n;
	record1("blocked", n, "st_bits_per_key", r->blocked_bpk);
	record1("blocked", n, "st_k", g.hashes);
	record1("blocked", n, "st_bytes", bytes);
	timed(&x, "blocked", "st_test_present", t_single, 0, &r->btest[0]);
	timed(&x, "blocked", "st_test_absent", t_single, n, &r->btest[1]);
	timed(&x, "blocked", "st_batch_present", t_batch, 0, &r->bbat[0]);
	timed(&x, "blocked", "st_batch_absent", t_batch, n, &r->bbat[1]);
	if (x.sink == 42)
		printf("\n");
	free(x.b);
	free(x.h);
}

static void st_run(u64 n, u32 f, struct st_result *r)
{
	const char *name = f == 8 ? "fuse8" : "fuse16";
	struct ctx x = { .n = n };
	struct bloom_geom g;
	double v[MAXREPS], t;
	u64 i, fp, bytes;
	int rep, nb = n > 1000000 ? 1 : min(reps, 3);
	u32 val;

	if (bloom_fuse_geom(n, f, 0, &g))
		exit(1);
	bloom_core_init(&x.c, &g);
	bytes = bloom_array_bytes(&x.c);
	x.b = alloc_big(sizeof(*x.b) + bytes);
	x.h = malloc(GROUP * sizeof(u64));
	if (!x.h)
		exit(1);
	for (rep = 0; rep < nb; rep++) {
		t = now_ns();
		if (st_build(&x, n, f, &r->seeds))
			exit(1);
		v[rep] = (now_ns() - t) / n;
	}
	r->build = record(name, n, "st_build", v, nb);
	record1(name, n, "st_seeds", r->seeds);
	bytes = bloom_array_bytes(&x.c);
	r->mib = bytes / 1048576.0;
	r->bpk = bytes * 8.0 / n;
	record1(name, n, "st_bytes", bytes);
	record1(name, n, "st_bits_per_key", r->bpk);
	record1(name, n, "st_k", f);
	record1("theory", n, "st_log2", f);

	/* Every member is found: a build that lost one is no filter. */
	for (i = 0; i < n; i++)
		if (!bloom_fuse_lookup(&x.c, x.b, hash_of(&x.c, i), &val)) {
			printf("%s n = %llu: key %llu lost\n", name,
			       (unsigned long long)n, (unsigned long long)i);
			exit(1);
		}
	timed(&x, name, "st_test_present", t_st_single, 0, &r->test[0]);
	timed(&x, name, "st_test_absent", t_st_single, 2 * n, &r->test[1]);
	timed(&x, name, "st_batch_present", t_st_batch, 0, &r->bat[0]);
	timed(&x, name, "st_batch_absent", t_st_batch, 2 * n, &r->bat[1]);

	for (i = fp = 0; i < ST_FPR_KEYS; i++)
		fp += bloom_fuse_lookup(&x.c, x.b, hash_of(&x.c, 2 * n + i),
					&val);
	r->fpr = fp / (double)ST_FPR_KEYS;
	r->sd = sqrt(ldexp(1, -f) * (1 - ldexp(1, -f)) / ST_FPR_KEYS);
	record1(name, n, "st_fpr", r->fpr);
	record1(name, n, "st_fpr_theory", ldexp(1, -f));
	record1(name, n, "st_fpr_sd", r->sd);
	if (x.sink == 42)
		printf("\n");
	free(x.b);
	free(x.h);
	st_blocked(n, r);
}

static void run_static(const u64 *sizes, int nsizes)
{
	static const u32 fs[] = { 8, 16 };
	struct st_result res[8][2], *r;
	const u64 saved = fpr_ppb;
	char text[200];
	double q[4];
	int si, fi;

	for (si = 0; si < nsizes; si++) {
		for (fi = 0; fi < 2; fi++) {
			fpr_ppb = BLOOM_PPB >> fs[fi];
			st_run(sizes[si], fs[fi], &res[si][fi]);
			fflush(stdout);
		}
	}
	fpr_ppb = saved;
	printf("Static filters (fuse, f bits, rate 2^-f) beside blocked filters of that rate:\n");
	printf("%-6s %10s | %6s %6s %6s %7s | %9s %9s %6s | %6s %5s\n",
	       "kind", "keys", "b/key", "f", "1.15f", "blocked", "FPR",
	       "2^-f", "sigma", "build", "seeds");
	for (si = 0; si < nsizes; si++) {
		for (fi = 0; fi < 2; fi++) {
			r = &res[si][fi];
			printf("fuse%-2u %10llu | %6.2f %6u %6.2f %7.2f | %9.6f %9.6f %+6.1f | %6.1f %5u\n",
			       fs[fi], (unsigned long long)sizes[si], r->bpk,
			       fs[fi], ST_GOAL_BITS * fs[fi], r->blocked_bpk,
			       r->fpr, ldexp(1, -fs[fi]),
			       (r->fpr - ldexp(1, -fs[fi])) / r->sd, r->build,
			       r->seeds);
		}
	}
	printf("(b/key: bits per key of memory; f = log2(1/eps); blocked: its bits per key at eps; build: ns per key, hashing, sorting and building)\n");
	printf("Lookups (ns per key, hashing included, median of %d runs):\n",
	       reps);
	printf("%-8s %10s %7s | %11s | %11s\n", "layout", "keys", "MiB",
	       "test p/a", "batch p/a");
	for (si = 0; si < nsizes; si++) {
		for (fi = 0; fi < 2; fi++) {
			r = &res[si][fi];
			printf("fuse%-4u %10llu %7.2f | %5.1f %5.1f | %5.1f %5.1f\n",
			       fs[fi], (unsigned long long)sizes[si], r->mib,
			       r->test[0], r->test[1], r->bat[0], r->bat[1]);
			printf("blocked  %10llu %7.2f | %5.1f %5.1f | %5.1f %5.1f   (k = %u)\n",
			       (unsigned long long)sizes[si], r->bmib,
			       r->btest[0], r->btest[1], r->bbat[0], r->bbat[1],
			       r->k);
		}
	}
	for (si = 0; si < nsizes; si++) {
		for (fi = 0; fi < 2; fi++) {
			r = &res[si][fi];
			if (fs[fi] == 8 && sizes[si] == 1000000) {
				snprintf(text, sizeof(text),
					 "fuse8 at most %.2f x log2(1/eps) bits per key, n = 10^6: %.2f against %.2f",
					 ST_GOAL_BITS, r->bpk,
					 ST_GOAL_BITS * fs[fi]);
				ck_goal(r->bpk <= ST_GOAL_BITS * fs[fi], text);
			}
			snprintf(text, sizeof(text),
				 "fuse%u FPR within 3 sigma of 2^-%u, n = %llu: %+.1f sigma",
				 fs[fi], fs[fi], (unsigned long long)sizes[si],
				 (r->fpr - ldexp(1, -fs[fi])) / r->sd);
			ck_goal(fabs(r->fpr - ldexp(1, -fs[fi])) <= 3 * r->sd,
				text);
			if (sizes[si] > ST_IN_CACHE)
				continue;
			q[0] = r->test[0] / r->btest[0];
			q[1] = r->test[1] / r->btest[1];
			q[2] = r->bat[0] / r->bbat[0];
			q[3] = r->bat[1] / r->bbat[1];
			snprintf(text, sizeof(text),
				 "fuse%u lookups within %.1fx blocked in cache, n = %llu: present %.2fx, absent %.2fx; batched %.2fx, %.2fx",
				 fs[fi], ST_SLOWER,
				 (unsigned long long)sizes[si], q[0], q[1],
				 q[2], q[3]);
			ck_goal(max(q[0], q[1]) <= ST_SLOWER &&
				max(q[2], q[3]) <= ST_SLOWER, text);
		}
	}
}

int main(int argc, char **argv)
{
	u64 sizes[8] = { 1000000, 10000000, 100000000 };
	int nsizes = 3, si, opt;
	bool aging = false, cuckoo = false, fuse = false;
	u8 layout;

	while ((opt = getopt(argc, argv, "o:r:e:ACS")) != -1) {
		if (opt == 'A')
			aging = true;
		else if (opt == 'S')
			fuse = true;
		else if (opt == 'C')
			cuckoo = true;
		else if (opt == 'e')
			fpr_ppb = strtoull(optarg, NULL, 10);
		else if (opt == 'o')
			tsv = fopen(optarg, "a");
		else if (opt == 'r')
			reps = min(MAXREPS, max(1, atoi(optarg)));
		else
			return 2;
		if (opt == 'o' && !tsv)
			return perror(optarg), 1;
	}
	if (cuckoo)
		nsizes = 2;	/* 10^6 and 10^7 */
	if (fuse) {
		sizes[0] = ST_IN_CACHE;	/* then 10^6 and 10^7 */
		sizes[1] = 1000000;
		sizes[2] = 10000000;
	}
	if (optind < argc)
		nsizes = 0;
	for (; optind < argc && nsizes < 8; optind++)
		sizes[nsizes++] = strtoull(argv[optind], NULL, 10);

	if (cuckoo) {
		run_cuckoo(sizes, nsizes);
		return 0;
	}
	if (fuse) {
		run_static(sizes, nsizes);
		return 0;
	}
	if (aging) {
		for (si = 0; si < nsizes; si++)
			run_aging(sizes[si]);
		printf("(ns per key, median of %d runs; renewed: the key is in the older generation only)\n",
		       reps);
		return 0;
	}
	printf("%-12s %10s %7s %5s %5s %5s | %11s %11s %11s %7s %7s\n", "layout",
	       "keys", "MiB", "load", "add/b", "add", "test p/a",
	       "dep p/a", "batch p/a", "memlat", "indep");
	for (si = 0; si < nsizes; si++) {
		struct result r;

		for (layout = 0; layout < BLOOM_LAYOUT_MAX; layout++) {
			if (layout == BLOOM_LAYOUT_CUCKOO ||
			    layout == BLOOM_LAYOUT_FUSE)
				continue;	/* passes of their own: -C, -S */
			run(layout, sizes[si], &r);
			printf("%-12s %10llu %7.1f %5.1f %5.1f %5.1f | %5.1f %5.1f %5.1f %5.1f %5.1f %5.1f %7.1f %7.1f\n",
			       bloom_layout_name(layout),
			       (unsigned long long)sizes[si],
			       r.mib, r.load, r.add_batch, r.add, r.test[0],
			       r.test[1], r.dep[0], r.dep[1], r.bat[0],
			       r.bat[1], r.lat, r.mlp);
			fflush(stdout);
		}
		run_libbloom(sizes[si], &r);
		printf("%-12s %10llu %7.1f %5s %5s %5.1f | %5.1f %5.1f\n",
		       "libbloom", (unsigned long long)sizes[si], r.mib, "", "",
		       r.add, r.test[0], r.test[1]);
		fflush(stdout);
	}
	printf("(ns per key; p/a: present/absent keys; memlat: one dependent "
	       "random load over the filter's memory; indep: one independent "
	       "random 64-byte read over it, 4096 in a row)\n");
	return 0;
}
