// SPDX-License-Identifier: GPL-2.0
/*
 * Native benchmark of the filter core: ns per add and per test, single
 * and batched, per layout and filter size, beside the latency of one
 * dependent random memory access over the same amount of memory, all in
 * one run so the numbers compare.
 *
 *   bench-core [N...]     (default: 1000000 10000000 100000000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include "../../module/core/bloom_core.h"

#define OPS	2000000ULL	/* timed operations per measurement */
#define GROUP	4096		/* keys hashed, then probed, per batch */
#define FPR_PPB	10000000ULL	/* 1 % */

static const char *const names[] = {
	"blocked", "standard", "partitioned", "counting",
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * Large arrays on transparent huge pages, as a long-lived filter would
 * want: with 4 KiB pages every random probe is also a TLB miss, which
 * under virtualisation costs a two-level page walk. Both the filters and
 * the memory-latency yardstick use this.
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

static u64 hash_of(const struct bloom_core *c, u64 i)
{
	return bloom_hash(c, &i, sizeof(i));
}

/* The i-th key to look up: a scattered key in [0, n), all present. */
static u64 pick(u64 i, u64 n)
{
	return bloom_mulhi(i * 0x9e3779b97f4a7c15ULL, n);
}

/* ns per dependent load over @bytes of memory (a random cycle). */
static double memory_latency(u64 bytes)
{
	u64 n = bytes / 64, i, *next, *perm, p = 0, state = 1;
	double t;

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
	t = now_ns();
	for (i = 0; i < OPS; i++)
		p = next[p];
	t = (now_ns() - t) / OPS;
	free(perm);
	free(next);
	return p == ~0ULL ? 0 : t;
}

struct result {
	double add, add_batch, test, test_dep, test_batch;
};

static void run(u8 layout, u64 n, struct result *r, u64 *bytes)
{
	struct bloom_geom g = { .seed = 1, .flags = BLOOM_F_FIXED_SEED };
	u64 *h = malloc(GROUP * sizeof(u64)), present[GROUP / 64];
	struct bloom_core c;
	struct bloom_bits *b;
	u64 i, j, hits = 0, key;
	double t;

	if (bloom_geom_size(n, FPR_PPB, layout, &g))
		exit(1);
	bloom_core_init(&c, &g);
	*bytes = bloom_array_bytes(&c);
	b = alloc_big(sizeof(*b) + *bytes);
	if (!h)
		exit(1);

	/* Fill to capacity, timing the last OPS adds as batches. */
	t = 0;
	for (i = 0; i < n; i += GROUP) {
		u32 cnt = min(GROUP, n - i);
		double t0 = now_ns();

		for (j = 0; j < cnt; j++)
			h[j] = hash_of(&c, i + j);
		bloom_add_batch(&c, b, h, cnt);
		if (i + GROUP > n - min(n, OPS))
			t += now_ns() - t0;
	}
	r->add_batch = t / min(n, OPS);

	t = now_ns();
	for (i = 0; i < OPS; i++)
		bloom_add_hash(&c, b, hash_of(&c, n + i));
	r->add = (now_ns() - t) / OPS;

	t = now_ns();
	for (i = 0; i < OPS; i++)
		hits += bloom_test_hash(&c, b, hash_of(&c, pick(i, n)));
	r->test = (now_ns() - t) / OPS;

	/* Each key depends on the previous answer: pure latency. */
	key = 0;
	t = now_ns();
	for (i = 0; i < OPS; i++)
		key = pick(key + bloom_test_hash(&c, b, hash_of(&c, key)) + i, n);
	r->test_dep = (now_ns() - t) / OPS;
	hits += key & 1;

	t = now_ns();
	for (i = 0; i < OPS; i += GROUP) {
		for (j = 0; j < GROUP; j++)
			h[j] = hash_of(&c, pick(i + j, n));
		hits += bloom_test_batch(&c, b, h, GROUP, present);
	}
	r->test_batch = (now_ns() - t) / OPS;
	if (hits == 42)
		printf("\n");
	free(b);
	free(h);
}

int main(int argc, char **argv)
{
	u64 sizes[8] = { 1000000, 10000000, 100000000 };
	int nsizes = argc > 1 ? argc - 1 : 3, si;
	u8 layout;

	for (si = 0; si < nsizes && argc > 1 && si < 8; si++)
		sizes[si] = strtoull(argv[si + 1], NULL, 10);
	printf("%-12s %10s %9s %8s %8s %8s %8s %8s %8s\n", "layout", "keys",
	       "MiB", "add", "add/bat", "test", "test/dep", "test/bat",
	       "mem lat");
	for (si = 0; si < nsizes; si++) {
		for (layout = 0; layout < BLOOM_LAYOUT_MAX; layout++) {
			struct result r;
			u64 bytes;

			run(layout, sizes[si], &r, &bytes);
			printf("%-12s %10llu %9.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f\n",
			       names[layout], (unsigned long long)sizes[si],
			       bytes / 1048576.0, r.add, r.add_batch, r.test,
			       r.test_dep, r.test_batch, memory_latency(bytes));
			fflush(stdout);
		}
	}
	printf("(ns per operation; 'mem lat' is one dependent random load "
	       "over the same memory)\n");
	return 0;
}
