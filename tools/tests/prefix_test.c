// SPDX-License-Identifier: GPL-2.0
/*
 * Controlled prefix expansion (tools/bloomctl/prefixes.c) against a
 * brute-force walk, with exact sets and no filter in the way:
 *
 *   prefix-test LIST...
 *
 * For each list (one IPv4 or IPv6 prefix or address per line, '#' and
 * ';' comments), and made-up lists of nested IPv4 and nested IPv6
 * prefixes (the real lists are aggregated: none nests; and they are
 * IPv4), each prefix gets a value from its own bits (so nested prefixes
 * mostly differ). For every way of choosing lengths (the default,
 * --probes 1 to 8, for IPv4 lists 16,24,32 and 24 alone, every length)
 * the expanded keys go into an exact table. Then the first, last,
 * one-before and one-after address of every prefix, and 200,000 random
 * IPv4 addresses (for IPv6 lists, 200,000 random addresses inside
 * random prefixes of the list and as many anywhere), are looked up as a
 * packet is (each stored length, longest first, the first hit) and
 * compared with a brute-force walk of every listed length over the
 * list's own prefixes. Any difference, in presence or value, fails.
 * Prints TAP lines and "# probes LIST MODE LENGTHS KEYS" figures.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../bloomctl/bloomctl.h"

#define RANDOM_ADDRS	200000
#define NO_VALUE	0xffffffffu

struct prefix {
	struct bloom_key_net k;
	u32 value;
};

static struct prefix *list;
static size_t nlist;
static int failures;

/* Tables of keys: open addressing on (addr, plen). */
struct slot {
	struct bloom_key_net k;		/* pad[0]: used */
	u32 value;
};

struct keytab {
	struct slot *slot;
	size_t mask;
	struct plen_set lens;	/* the lengths it holds */
};

static struct keytab expanded, listed;
static size_t stored;
static bool clash;

static void keytab_init(struct keytab *t, size_t keys)
{
	for (t->mask = 1; t->mask < 4 * keys + 64; t->mask <<= 1)
		;
	t->slot = calloc(t->mask, sizeof(*t->slot));
	t->mask--;
	memset(&t->lens, 0, sizeof(t->lens));
}

static struct slot *slot_of(const struct keytab *t,
			    const struct bloom_key_net *k)
{
	size_t i = bloom_xxh64(k, 17, 1) & t->mask;

	while (t->slot[i].k.pad[0] && memcmp(&t->slot[i].k, k, 17))
		i = (i + 1) & t->mask;
	return &t->slot[i];
}

/* Put @k in @t; false if it was there with another value. */
static bool keytab_put(struct keytab *t, const struct bloom_key_net *k,
		       u32 value)
{
	struct slot *s = slot_of(t, k);
	bool same = !s->k.pad[0] || s->value == value;

	s->k = *k;
	s->k.pad[0] = 1;
	s->value = value;
	t->lens.w[k->plen / 64] |= 1ULL << (k->plen % 64);
	return same;
}

/* With values, the longest listed prefix's; for membership, 1. */
static bool member_only;

static void store(void *ctx, const struct bloom_key_net *k, size_t origin)
{
	clash |= !keytab_put(&expanded, k, member_only ? 1 : list[origin].value);
	stored++;
}

static void count_only(void *ctx, const struct bloom_key_net *k,
		       size_t origin)
{
}

/* Each length @t holds, longest first; the first hit's value. */
static u32 lookup(const struct keytab *t, const u8 *addr)
{
	struct bloom_key_net k = { 0 };
	struct slot *s;
	int l;

	for (l = BLOOM_PLEN_MAX; l >= 0; l--) {
		if (!(t->lens.w[l / 64] >> (l % 64) & 1))
			continue;
		memcpy(k.addr, addr, 16);
		k.plen = (u8)l;
		bloom_net_mask(k.addr, k.plen);
		s = slot_of(t, &k);
		if (s->k.pad[0])
			return s->value;
	}
	return NO_VALUE;
}

static void load(const char *path)
{
	char line[256], *p;
	FILE *f = fopen(path, "r");
	struct prefix x;
	unsigned int plen;
	char *v6;

	if (!f) {
		perror(path);
		exit(2);
	}
	nlist = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "#;\r\n \t")] = 0;
		if (!*line)
			continue;
		memset(&x, 0, sizeof(x));
		v6 = strchr(line, ':');
		plen = v6 ? 128 : 32;
		p = strchr(line, '/');
		if (p) {
			*p = 0;
			plen = (unsigned int)atoi(p + 1);
		}
		if (!v6)
			memset(x.k.addr + 10, 0xff, 2);
		if ((v6 ? inet_pton(AF_INET6, line, x.k.addr) :
			  inet_pton(AF_INET, line, x.k.addr + 12)) != 1 ||
		    plen > (v6 ? 128u : 32u)) {
			fprintf(stderr, "%s: bad line '%s'\n", path, line);
			exit(2);
		}
		x.k.plen = (u8)(v6 ? plen : plen + 96);
		bloom_net_mask(x.k.addr, x.k.plen);
		x.value = (u32)(bloom_xxh64(&x.k, 17, 7) % 7) + 1;
		list = realloc(list, (nlist + 1) * sizeof(*list));
		list[nlist++] = x;
	}
	fclose(f);
}

static u32 v4_of(const struct bloom_key_net *k)
{
	return (u32)k->addr[12] << 24 | (u32)k->addr[13] << 16 |
	       (u32)k->addr[14] << 8 | k->addr[15];
}

static u64 rnd_state = 88172645463325252ULL;

static u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void add_prefix(u32 addr, unsigned int plen)
{
	struct prefix x = { 0 };

	memset(x.k.addr + 10, 0xff, 2);
	x.k.addr[12] = (u8)(addr >> 24);
	x.k.addr[13] = (u8)(addr >> 16);
	x.k.addr[14] = (u8)(addr >> 8);
	x.k.addr[15] = (u8)addr;
	x.k.plen = (u8)(plen + 96);
	bloom_net_mask(x.k.addr, x.k.plen);
	x.value = (u32)(bloom_xxh64(&x.k, 17, 7) % 7) + 1;
	list = realloc(list, (nlist + 1) * sizeof(*list));
	list[nlist++] = x;
}

/*
 * A list the real ones are not: aggregated lists never nest, so here
 * every prefix after the first 50 lies inside an earlier one (a /8 with
 * /12s, /20s and /32s in it, ...), with its own value.
 */
static void nested(void)
{
	size_t i, outer;
	unsigned int plen;
	u32 a;

	nlist = 0;
	for (i = 0; i < 3000; i++) {
		plen = 4 + (unsigned int)(rnd() % 29);
		a = (u32)rnd();
		if (i >= 50) {
			outer = (size_t)(rnd() % nlist);
			if (list[outer].k.plen - 96 < 32) {
				unsigned int o = list[outer].k.plen - 96U;

				plen = o + 1 + (unsigned int)(rnd() % (32 - o));
				a = (u32)(v4_of(&list[outer].k) |
					  ((u32)rnd() & (0xffffffffu >> o)));
			}
		}
		add_prefix(a, plen);
	}
}

/* The IPv6 prefix @a/@plen, @a's host bits cleared, with its value. */
static void add_prefix6(const u8 *a, unsigned int plen)
{
	struct prefix x = { 0 };

	memcpy(x.k.addr, a, 16);
	x.k.plen = (u8)plen;
	bloom_net_mask(x.k.addr, x.k.plen);
	x.value = (u32)(bloom_xxh64(&x.k, 17, 7) % 7) + 1;
	list = realloc(list, (nlist + 1) * sizeof(*list));
	list[nlist++] = x;
}

/* @a: random bits from bit @from on (bit 0 the first address bit). */
static void random_host(u8 *a, unsigned int from)
{
	unsigned int i;

	for (i = from; i < 128; i++) {
		if (rnd() & 1)
			a[i / 8] |= (u8)(0x80 >> (i % 8));
		else
			a[i / 8] &= (u8)~(0x80 >> (i % 8));
	}
}

/*
 * As nested(), in IPv6: lengths 8 to 128, every prefix after the first
 * 50 inside an earlier one, the outermost in 2000::/3 (never a
 * v4-mapped address, whose lengths IPv4 keys hold).
 */
static void nested6(void)
{
	unsigned int plen, o;
	size_t i, outer;
	u8 a[16];

	nlist = 0;
	for (i = 0; i < 3000; i++) {
		memset(a, 0, sizeof(a));
		a[0] = 0x20;
		random_host(a, 3);
		plen = 8 + (unsigned int)(rnd() % 121);
		if (i >= 50) {
			outer = (size_t)(rnd() % nlist);
			o = list[outer].k.plen;
			if (o < 128) {
				plen = o + 1 + (unsigned int)(rnd() % (128 - o));
				memcpy(a, list[outer].k.addr, 16);
				random_host(a, o);
			}
		}
		add_prefix6(a, plen);
	}
}

/* @a plus @d (1 or -1), wrapping. */
static void step(u8 *a, int d)
{
	int i;

	for (i = 15; i >= 0; i--) {
		a[i] = (u8)(a[i] + d);
		if (a[i] != (d > 0 ? 0 : 0xff))
			break;
	}
}

static void ipv4(u8 *a, u32 v)
{
	memset(a, 0, 16);
	memset(a + 10, 0xff, 2);
	a[12] = (u8)(v >> 24);
	a[13] = (u8)(v >> 16);
	a[14] = (u8)(v >> 8);
	a[15] = (u8)v;
}

/* Compare the lookup with the brute force at @v; 1 on a difference. */
static int differs_at(const u8 *a, char *why, size_t len)
{
	char text[INET6_ADDRSTRLEN];
	u32 want, got;

	want = lookup(&listed, a);	/* every listed length */
	got = lookup(&expanded, a);	/* the lengths chosen */
	if (member_only && want != NO_VALUE)
		want = 1;
	if (want == got)
		return 0;
	inet_ntop(AF_INET6, a, text, sizeof(text));
	snprintf(why, len, "%s: expanded lookup %d, brute force %d", text,
		 got == NO_VALUE ? -1 : (int)got,
		 want == NO_VALUE ? -1 : (int)want);
	return 1;
}

static int differs(u32 v, char *why, size_t len)
{
	u8 a[16];

	ipv4(a, v);
	return differs_at(a, why, len);
}

/* An IPv6 prefix's first, last, one-before and one-after addresses. */
static int differs6(const struct prefix *x, char *why, size_t len)
{
	u8 first[16], last[16];
	int bad;

	memcpy(first, x->k.addr, 16);
	memcpy(last, x->k.addr, 16);
	memset(last + (x->k.plen + 7) / 8, 0xff, 16 - (x->k.plen + 7) / 8);
	if (x->k.plen % 8)
		last[x->k.plen / 8] |= (u8)(0xff >> (x->k.plen % 8));
	bad = differs_at(first, why, len) + differs_at(last, why, len);
	step(first, -1);
	step(last, 1);
	return bad + differs_at(first, why, len) + differs_at(last, why, len);
}

static bool is_v4(const struct prefix *x)
{
	static const u8 mapped[12] = { [10] = 0xff, [11] = 0xff };

	return x->k.plen >= 96 && !memcmp(x->k.addr, mapped, 12);
}

static void check_one(const char *name, const char *mode,
		      const struct plen_set *lens, u64 limit, size_t maxp);
static u64 hist[BLOOM_PLEN_MAX + 1];

/* Every covering prefix of every key: prefix_keys() of the list. */
static u64 prefix_keys_of(const struct plen_set *lens)
{
	return prefix_keys(hist, lens);
}

/*
 * Expand the list at @lens, with values (the longest listed prefix keeps
 * a covering prefix) and then for membership (every covering prefix of
 * every key, as counting and cuckoo filters store them), and compare
 * both with the brute force; at most @limit keys and @maxp lengths.
 */
static void check(const char *name, const char *mode,
		  const struct plen_set *lens, u64 limit, size_t maxp)
{
	for (member_only = false; ; member_only = true) {
		check_one(name, mode, lens, limit, maxp);
		if (member_only)
			break;
	}
}

static void check_one(const char *name, const char *mode,
		      const struct plen_set *lens, u64 limit, size_t maxp)
{
	char why[160] = "";
	size_t i, bad = 0, probes;
	u32 first, last, span;
	bool v6 = false;

	stored = 0;
	clash = false;
	keytab_init(&expanded, prefix_expand(list, nlist, sizeof(*list), lens,
					     !member_only, count_only, NULL));
	prefix_expand(list, nlist, sizeof(*list), lens, !member_only, store,
		      NULL);
	probes = plen_count(&expanded.lens);
	if (!member_only && prefix_keys_of(lens) < stored) {
		snprintf(why, sizeof(why), "prefix_keys() says %llu, %zu stored",
			 (unsigned long long)prefix_keys_of(lens), stored);
		bad++;
	}
	for (i = 0; i < nlist; i++) {
		if (!is_v4(&list[i])) {
			v6 = true;
			bad += differs6(&list[i], why, sizeof(why));
			continue;
		}
		first = v4_of(&list[i].k);
		span = list[i].k.plen == 96 ? 0xffffffffu :
		       (u32)((1ULL << (128 - list[i].k.plen)) - 1);
		last = first + span;
		bad += differs(first, why, sizeof(why)) +
		       differs(last, why, sizeof(why)) +
		       differs(first - 1, why, sizeof(why)) +
		       differs(last + 1, why, sizeof(why));
	}
	for (i = 0; i < RANDOM_ADDRS; i++)
		bad += differs((u32)rnd(), why, sizeof(why));
	for (i = 0; v6 && i < RANDOM_ADDRS; i++) {
		const struct prefix *x = &list[rnd() % nlist];
		u8 a[16];

		memcpy(a, x->k.addr, 16);
		random_host(a, x->k.plen);
		bad += differs_at(a, why, sizeof(why));
		random_host(a, 0);
		bad += differs_at(a, why, sizeof(why));
	}
	/* Keys of one prefix may meet: the membership table dedups them. */
	if (member_only)
		limit = prefix_keys_of(lens);
	printf("%sok - prefixes %s %s%s: %zu lengths, %zu keys for %zu prefixes; every address answers as the brute force (%zu differ)\n",
	       bad || clash || stored > limit || probes > maxp ? "not " : "",
	       name, mode, member_only ? " membership" : " values", probes,
	       stored, nlist, bad);
	if (bad)
		printf("    # e.g. %s\n", why);
	if (clash)
		printf("    # one stored key was given two values\n");
	if (stored > limit)
		printf("    # %zu keys, more than the limit %llu\n", stored,
		       (unsigned long long)limit);
	if (probes > maxp)
		printf("    # %zu lengths, more than %zu\n", probes, maxp);
	if (!member_only)
		printf("# probes %s %s %zu %zu\n", name, mode, probes, stored);
	failures += bad || clash || stored > limit || probes > maxp;
	free(expanded.slot);
}

int main(int argc, char **argv)
{
	struct plen_set lens;
	unsigned int p, distinct;
	const char *name;
	char mode[32];
	size_t i;
	int a;

	for (a = 1; a <= argc + 1; a++) {
		if (a == argc) {
			nested();
			name = "nested";
		} else if (a == argc + 1) {
			nested6();
			name = "nested6";
		} else {
			load(argv[a]);
			name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
		}
		memset(hist, 0, sizeof(hist));
		for (i = 0; i < nlist; i++)
			hist[list[i].k.plen]++;
		for (i = 0, distinct = 0; i <= BLOOM_PLEN_MAX; i++)
			distinct += hist[i] != 0;
		keytab_init(&listed, nlist);
		for (i = 0; i < nlist; i++)
			if (!keytab_put(&listed, &list[i].k, list[i].value))
				failures++;

		prefix_choose(hist, 0, EXPAND_BUDGET * nlist, &lens);
		check(name, "default", &lens, EXPAND_BUDGET * nlist, distinct);
		for (p = 1; p <= 8; p++) {
			u64 keys = prefix_choose(hist, p, 0, &lens);

			snprintf(mode, sizeof(mode), "--probes=%u", p);
			if (!keys) {	/* a prefix would be over 2^16 keys */
				printf("ok - prefixes %s %s: refused, a prefix would be more than 2^%d keys\n",
				       name, mode, EXPAND_MAX_BITS);
				continue;
			}
			check(name, mode, &lens, keys, p);
		}
		/* IPv4's lengths: IPv6 prefixes would mostly keep their own. */
		if (a != argc + 1) {
			memset(&lens, 0, sizeof(lens));
			lens.w[112 / 64] |= 1ULL << (112 % 64);	/* /16 /24 /32 */
			lens.w[120 / 64] |= 1ULL << (120 % 64);
			lens.w[128 / 64] |= 1ULL << (128 % 64);
			check(name, "16,24,32", &lens,
			      (u64)nlist << EXPAND_MAX_BITS, 3);
			memset(&lens, 0, sizeof(lens));	/* /0-/7, /25-/32 stay */
			lens.w[120 / 64] |= 1ULL << (120 % 64);
			check(name, "24", &lens, (u64)nlist << EXPAND_MAX_BITS,
			      distinct);
		}
		memset(&lens, 0, sizeof(lens));
		for (i = 0; i <= BLOOM_PLEN_MAX; i++)
			if (hist[i])
				lens.w[i / 64] |= 1ULL << (i % 64);
		check(name, "all", &lens, nlist, distinct);
		if (distinct != plen_count(&lens))
			failures++;
		free(listed.slot);
	}
	free(list);
	return failures ? 1 : 0;
}
