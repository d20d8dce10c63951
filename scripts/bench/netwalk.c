// SPDX-License-Identifier: GPL-2.0
/*
 * Native benchmark of a net lookup (the userspace build of module/core/,
 * -O2): the walk bloom_test_net() does, on a snapshot file bloomctl
 * built, with the /16 summary asked first and without it, for address
 * files of both families.
 *
 *   bench-netwalk [-r REPS] SNAPSHOT LABEL=ADDRFILE...
 *
 * Per file (one address a line), the median over REPS (default 11) runs
 * of ns per lookup, hashing included, and the cache lines a lookup reads
 * (one for the summary's word, one a probe of a blocked filter: every
 * probe of a length reads one block), and the share present. Printed as
 * tab-separated lines
 *   LABEL  N  present%  ns_summary  lines_summary  ns_walk  lines_walk
 * The walk is module/api.c's net_walk(), repeated here: lengths of the
 * address's family, longest first, up to the first present.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../../module/core/bloom_core.h"

struct net_filter {
	struct bloom_core core;
	struct bloom_bits *bits;
	bloom_word_t *summary;		/* NULL: made without one */
	__u64 plens[BLOOM_PLEN_WORDS];
};

static void __attribute__((noreturn)) fail(const char *what)
{
	fprintf(stderr, "bench-netwalk: %s\n", what);
	exit(1);
}

static void load(const char *path, struct net_filter *f)
{
	struct bloom_snap_info info;
	const u8 *payload;
	u64 sw;
	long len;
	u8 *buf;
	FILE *in = fopen(path, "rb");

	if (!in || fseek(in, 0, SEEK_END) || (len = ftell(in)) < 0)
		fail("cannot read the snapshot");
	rewind(in);
	buf = malloc(len);
	if (!buf || fread(buf, 1, len, in) != (size_t)len)
		fail("cannot read the snapshot");
	fclose(in);
	if (bloom_snap_check_hdr((void *)buf, len, &info) ||
	    info.geom.key_type != BLOOM_KEY_NET || info.geom.gens ||
	    info.stages || info.geom.layout != BLOOM_LAYOUT_BLOCKED)
		fail("not a blocked net filter's snapshot");
	bloom_core_init(&f->core, &info.geom);
	payload = buf + sizeof(struct bloom_snap_hdr);
	sw = bloom_summary_words(&info.geom);
	f->summary = NULL;
	if (sw) {	/* the last words of the payload */
		f->summary = calloc(sw, sizeof(bloom_word_t));
		bloom_words_from_le(f->summary, (const void *)(payload +
				    info.payload_len - 8 * sw), sw);
	}
	if (posix_memalign((void **)&f->bits, 64,
			   sizeof(*f->bits) + bloom_array_bytes(&f->core)))
		fail("out of memory");
	bloom_words_from_le(f->bits->words, (const void *)payload,
			    f->core.nwords);
	memcpy(f->plens, info.plens, sizeof(f->plens));
	free(buf);
}

/* As net_walk(): *@lines gets the cache lines read. */
static bool walk(const struct net_filter *f, const u8 *addr, bool summary,
		 u32 *lines)
{
	struct bloom_key_net key = { .plen = 0 };
	__u64 plens[BLOOM_PLEN_WORDS];
	int w, bit;

	if (summary && f->summary) {
		++*lines;
		if (!bloom_summary_test(f->summary, &f->core.g, addr))
			return false;
	}
	memcpy(plens, f->plens, sizeof(plens));
	bloom_net_family_plens(plens, addr);
	for (w = BLOOM_PLEN_WORDS - 1; w >= 0; w--) {
		while (plens[w]) {
			bit = 63 - __builtin_clzll(plens[w]);
			plens[w] &= ~(1ULL << bit);
			memcpy(key.addr, addr, 16);
			key.plen = w * 64 + bit;
			bloom_net_mask(key.addr, key.plen);
			++*lines;
			if (bloom_test_hash(&f->core, f->bits,
					    bloom_hash(&f->core, &key,
						       sizeof(key))))
				return true;
		}
	}
	return false;
}

static u8 *read_addrs(const char *path, size_t *n)
{
	char line[128];
	size_t cap = 1024;
	u8 *a = malloc(cap * 16);
	FILE *in = fopen(path, "r");

	if (!in || !a)
		fail("cannot read an address file");
	*n = 0;
	while (fgets(line, sizeof(line), in)) {
		u8 *p;

		line[strcspn(line, "\r\n")] = 0;
		if (!*line)
			continue;
		if (*n == cap) {
			cap *= 2;
			a = realloc(a, cap * 16);
			if (!a)
				fail("out of memory");
		}
		p = a + *n * 16;
		memset(p, 0, 16);
		if (inet_pton(AF_INET, line, p + 12) == 1)
			p[10] = p[11] = 0xff;
		else if (inet_pton(AF_INET6, line, p) != 1)
			fail("a line is not an address");
		++*n;
	}
	fclose(in);
	return a;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median ns per lookup over @reps runs; *@lines and *@present of one run. */
static double run(const struct net_filter *f, const u8 *a, size_t n,
		  bool summary, int reps, double *lines, double *present)
{
	double *t = calloc(reps, sizeof(double)), med;
	u64 total = 0, hits = 0;
	volatile u64 sink = 0;
	size_t i;
	int r;

	for (r = 0; r < reps; r++) {
		double t0 = now_ns();
		u32 l = 0;

		hits = 0;
		for (i = 0; i < n; i++)
			hits += walk(f, a + i * 16, summary, &l);
		t[r] = (now_ns() - t0) / n;
		sink += hits;
		total = l;
	}
	qsort(t, reps, sizeof(double), cmp_double);
	med = t[reps / 2];
	free(t);
	*lines = (double)total / n;
	*present = 100.0 * hits / n;
	return med + 0 * sink;
}

int main(int argc, char **argv)
{
	struct net_filter f;
	int reps = 11, i = 1;

	if (argc > 2 && !strcmp(argv[1], "-r")) {
		reps = atoi(argv[2]);
		i = 3;
	}
	if (argc - i < 2 || reps < 1)
		fail("usage: bench-netwalk [-r REPS] SNAPSHOT LABEL=ADDRFILE...");
	load(argv[i++], &f);
	for (; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		double ls, lw, ps, pw, ns, nw;
		size_t n;
		u8 *a;

		if (!eq)
			fail("an address file is LABEL=FILE");
		*eq = 0;
		a = read_addrs(eq + 1, &n);
		if (!n)
			fail("an address file is empty");
		run(&f, a, n, true, 1, &ls, &ps);	/* warm */
		ns = run(&f, a, n, true, reps, &ls, &ps);
		nw = run(&f, a, n, false, reps, &lw, &pw);
		printf("%s\t%zu\t%.2f\t%.1f\t%.2f\t%.2f\t%.1f\t%.2f\n", argv[i],
		       n, ps, ns, ls, pw, nw, lw);
		free(a);
	}
	return 0;
}
