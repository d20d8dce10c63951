// SPDX-License-Identifier: GPL-2.0
/*
 * Address ranges in key input, "a-b" as ipset and firewall lists write
 * them: both ends of one family, the first not after the last. A net
 * filter gets the fewest prefixes that cover the range exactly (at most
 * 2 * 128); an addr filter gets every address, at most RANGE_ADDRS_MAX,
 * so that a typo cannot add four billion keys.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <string.h>
#include "bloomctl.h"

typedef unsigned __int128 u128;

static u128 addr_value(const u8 addr[16])
{
	u128 v = 0;
	int i;

	for (i = 0; i < 16; i++)
		v = v << 8 | addr[i];
	return v;
}

static void value_addr(u128 v, u8 addr[16])
{
	int i;

	for (i = 15; i >= 0; i--, v >>= 8)
		addr[i] = (u8)v;
}

static bool is_v4_mapped(const u8 addr[16])
{
	static const u8 prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(addr, prefix, sizeof(prefix));
}

static int __printf(3, 4) refuse(char *why, size_t whylen, const char *fmt,
				 ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The trailing zero bits of @v: the largest aligned block at @v. */
static unsigned int align_bits(u128 v)
{
	unsigned int n = 0;

	if (!v)
		return 128;
	while (!(v & 1)) {
		v >>= 1;
		n++;
	}
	return n;
}

/* The size of the block of 2^@s addresses, less one: its last offset. */
static u128 block_span(unsigned int s)
{
	return s == 128 ? ~(u128)0 : ((u128)1 << s) - 1;
}

/* Emit the prefixes that cover [lo, hi] exactly, in address order. */
static void cover(u128 lo, u128 hi, range_emit_fn emit, void *ctx)
{
	struct bloom_key_net key;

	for (;;) {
		unsigned int s = align_bits(lo);

		while (hi - lo < block_span(s))	/* the block ends past hi */
			s--;
		memset(&key, 0, sizeof(key));
		value_addr(lo, key.addr);
		key.plen = (u8)(128 - s);
		emit(ctx, &key);
		if (hi - lo == block_span(s))
			return;
		lo += block_span(s) + 1;
	}
}

static void every_addr(u128 lo, u128 hi, range_emit_fn emit, void *ctx)
{
	u8 addr[16];

	for (;; lo++) {
		value_addr(lo, addr);
		emit(ctx, addr);
		if (lo == hi)
			return;
	}
}

/**
 * range_expand() - expand a range "a-b" into the keys of a filter
 * @type: the filter's key type; only addr and net take ranges
 * @text: the key's text, not necessarily NUL-terminated
 * @len: its length
 * @emit: called with each key's record, in address order
 * @ctx: passed to @emit
 * @why: on failure, what is wrong
 * @whylen: size of @why
 *
 * Return: 1 if @text was a range and is expanded, 0 if it is no range
 * (parse it as one key), -1 with @why filled if it is a bad range.
 */
int range_expand(u8 type, const char *text, size_t len, range_emit_fn emit,
		 void *ctx, char *why, size_t whylen)
{
	const char *dash = memchr(text, '-', len);
	char shown[80];
	u8 a[16], b[16];
	u128 lo, hi;

	if (!dash || (type != BLOOM_KEY_ADDR && type != BLOOM_KEY_NET))
		return 0;
	if (memchr(text, '/', (size_t)(dash - text)))
		return 0;	/* 192.0.2.0/-1: a prefix's bad length */
	text_shown(shown, sizeof(shown), text, len);
	if (!addr_parse(text, (size_t)(dash - text), a) ||
	    !addr_parse(dash + 1, len - (size_t)(dash + 1 - text), b))
		return refuse(why, whylen, "bad range '%s' (want ADDRESS-ADDRESS)",
			      shown);
	if (is_v4_mapped(a) != is_v4_mapped(b))
		return refuse(why, whylen, "a range mixes IPv4 and IPv6 in '%s'",
			      shown);
	lo = addr_value(a);
	hi = addr_value(b);
	if (lo > hi)
		return refuse(why, whylen, "range '%s' ends before it starts",
			      shown);
	if (type == BLOOM_KEY_NET) {
		cover(lo, hi, emit, ctx);
		return 1;
	}
	if (hi - lo >= RANGE_ADDRS_MAX)
		return refuse(why, whylen,
			      "range '%s' holds over %u addresses: too many for an addr filter (use a net filter, or split it)",
			      shown, RANGE_ADDRS_MAX);
	every_addr(lo, hi, emit, ctx);
	return 1;
}
