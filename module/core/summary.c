// SPDX-License-Identifier: GPL-2.0
/*
 * The /16 summary of a net filter (BLOOM_F_SUMMARY, uapi/bloom.h): one
 * bit per /16 of each family, set where a prefix the filter holds
 * overlaps that /16. A lookup whose /16 bit is clear is answered absent
 * from that one word, without a hash and without a false positive; only
 * the others walk the prefix lengths.
 *
 * The summary is exact in one direction only: a set bit may be stale
 * (deletes, aging and intersections never clear one), a clear bit never
 * hides a prefix. Bits are only ever set (an atomic OR, or a store of
 * all ones to a word), so lockless readers need nothing more than a word
 * read: a lookup racing with the add that sets its bit answers as it
 * would just before that add.
 */
#include "bloom_core.h"

#define FAMILY_WORDS	(BLOOM_SUMMARY_FAMILY_BITS / 64)

/**
 * bloom_summary_words() - the words of a geometry's summary
 * @g: the geometry
 *
 * Return: 0 without BLOOM_F_SUMMARY; else a table of each family the
 * filter takes (BLOOM_F_INET, BLOOM_F_INET6: one).
 */
u64 bloom_summary_words(const struct bloom_geom *g)
{
	if (!(g->flags & BLOOM_F_SUMMARY))
		return 0;
	return g->flags & BLOOM_F_FAMILY ? FAMILY_WORDS : 2 * FAMILY_WORDS;
}
EXPORT_SYMBOL_GPL(bloom_summary_words);

/* The table of a family: IPv4 first, but in an IPv6-only filter. */
static u64 table_word(const struct bloom_geom *g, bool v4, u32 slash16)
{
	u64 base = v4 || (g->flags & BLOOM_F_INET6) ? 0 : FAMILY_WORDS;

	return base + slash16 / 64;
}

/* A filter of one family has no table for the other. */
static bool family_has_table(const struct bloom_geom *g, u16 family)
{
	return !(g->flags & BLOOM_F_FAMILY) || (g->flags & family);
}

/*
 * Where the family's /16 index starts in @addr: bytes 12-13 of an IPv4
 * (v4-mapped) address, bytes 0-1 of an IPv6 one.
 */
static u32 slash16_of(const u8 *addr, bool v4)
{
	const u8 *a = v4 ? addr + 12 : addr;

	return (u32)a[0] << 8 | a[1];
}

/**
 * bloom_summary_note() - mark the /16s a net key overlaps
 * @s: the summary, bloom_summary_words() words
 * @g: the filter's geometry
 * @k: a well-formed net key (host bits clear); one of the other family
 *	than the filter's marks nothing
 *
 * A prefix of /16 or longer marks its own /16; a shorter one all the
 * /16s it covers (a whole aligned run, at most the whole table). Words
 * already marked are read, not written: adds of one /16 do not bounce
 * its cache line between CPUs.
 */
void bloom_summary_note(bloom_word_t *s, const struct bloom_geom *g,
			const struct bloom_key_net *k)
{
	u16 family = bloom_key_family(BLOOM_KEY_NET, k);
	bool v4 = family == BLOOM_F_INET;
	unsigned int plen = v4 ? k->plen - 96 : k->plen;
	u32 first = slash16_of(k->addr, v4);
	u64 w, last, mask;

	if (!family_has_table(g, family) || plen > (v4 ? 32U : 128U))
		return;
	/* Aligned to its run, whatever host bits a key may carry. */
	if (plen < 16)
		first &= 0xffffU << (16 - plen) & 0xffff;
	w = table_word(g, v4, first);
	if (plen < 16) {
		/* 2^(16 - plen) /16s: whole words from 64 of them up. */
		if (plen <= 10) {
			last = w + (1ULL << (10 - plen));
			for (; w < last; w++)
				if (bloom_word_read(&s[w]) != ~0ULL)
					bloom_word_set(&s[w], ~0ULL);
			return;
		}
		mask = ((1ULL << (1U << (16 - plen))) - 1) << (first % 64);
	} else {
		mask = 1ULL << (first % 64);
	}
	if ((bloom_word_read(&s[w]) & mask) != mask)
		bloom_word_or(&s[w], mask);
}
EXPORT_SYMBOL_GPL(bloom_summary_note);

/**
 * bloom_summary_test() - may a prefix the filter holds contain @addr?
 * @s: the summary
 * @g: the filter's geometry
 * @addr: an address, 16 bytes (IPv4 v4-mapped)
 *
 * One word read, lockless (see the top of this file).
 *
 * Return: false if no prefix held overlaps the address's /16 (as for
 * every address of the family a filter does not take).
 */
bool bloom_summary_test(const bloom_word_t *s, const struct bloom_geom *g,
			const u8 *addr)
{
	u16 family = bloom_key_family(BLOOM_KEY_ADDR, addr);
	bool v4 = family == BLOOM_F_INET;
	u32 i = slash16_of(addr, v4);

	if (!family_has_table(g, family))
		return false;
	return bloom_word_read(&s[table_word(g, v4, i)]) >> (i % 64) & 1;
}
EXPORT_SYMBOL_GPL(bloom_summary_test);

/**
 * bloom_summary_fill() - a summary that gates nothing
 * @s: the summary
 * @g: its geometry
 *
 * For contents that gain keys nobody noted: a union with contents
 * without a summary.
 */
void bloom_summary_fill(bloom_word_t *s, const struct bloom_geom *g)
{
	u64 i, n = bloom_summary_words(g);

	for (i = 0; i < n; i++)
		bloom_word_set(&s[i], ~0ULL);
}
EXPORT_SYMBOL_GPL(bloom_summary_fill);

/**
 * bloom_summary_union() - add the /16s of another summary
 * @dst: the summary that grows
 * @src: the other, of the same geometry
 * @g: the geometry
 */
void bloom_summary_union(bloom_word_t *dst, const bloom_word_t *src,
			 const struct bloom_geom *g)
{
	u64 i, n = bloom_summary_words(g);

	for (i = 0; i < n; i++)
		if (bloom_word_read(&src[i]) & ~bloom_word_read(&dst[i]))
			bloom_word_or(&dst[i], bloom_word_read(&src[i]));
}
EXPORT_SYMBOL_GPL(bloom_summary_union);
