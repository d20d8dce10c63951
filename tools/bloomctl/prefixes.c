// SPDX-License-Identifier: GPL-2.0
/*
 * Net keys in a bounded number of probes: controlled prefix expansion
 * (Srinivasan and Varghese, "Faster IP Lookups using Controlled Prefix
 * Expansion", 1999).
 *
 * A packet probes a net filter once for every prefix length the filter
 * holds (bloom_test_net()), so the kernel needs nothing new: bloomctl
 * stores every prefix at the next length of a small chosen set instead,
 * as the prefixes of that length that cover it (a /23 as two /24s). The
 * answer for every address is unchanged: the covering prefixes tile the
 * prefix exactly, and a covering prefix that a longer listed prefix also
 * produces is left to that one, so a static map's value stays the
 * longest listed prefix's.
 *
 * The set is chosen from the list's prefix lengths (prefix_choose(), a
 * dynamic programme over the 129 lengths): by default the fewest lengths
 * that at most double the keys; with --probes P the fewest keys within P
 * lengths; with --prefix-lengths LIST exactly those; "all" expands
 * nothing. A filter that already holds net keys expands new keys into the
 * lengths it holds. No prefix ever becomes more than 2^EXPAND_MAX_BITS
 * keys: one that would keeps its own length.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"

#define NO_COST		UINT64_MAX

static bool plen_has(const struct plen_set *s, unsigned int l)
{
	return s->w[l / 64] >> (l % 64) & 1;
}

static void plen_put(struct plen_set *s, unsigned int l)
{
	s->w[l / 64] |= 1ULL << (l % 64);
}

/* How many lengths @s holds. */
unsigned int plen_count(const struct plen_set *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		n += (unsigned int)__builtin_popcountll(s->w[i]);
	return n;
}

/* The keys a prefix of length @l becomes at length @t; NO_COST: too many. */
static u64 fanout(unsigned int l, unsigned int t)
{
	return t - l > EXPAND_MAX_BITS ? NO_COST : 1ULL << (t - l);
}

static u64 sat_add(u64 a, u64 b)
{
	return a > NO_COST - b ? NO_COST : a + b;
}

static u64 sat_mul(u64 a, u64 b)
{
	return b && a > NO_COST / b ? NO_COST : a * b;
}

/* The shortest length of @s at least @l that @l expands to, or @l. */
unsigned int plen_target(const struct plen_set *s, unsigned int l)
{
	unsigned int t;

	for (t = l; t <= BLOOM_PLEN_MAX && t - l <= EXPAND_MAX_BITS; t++)
		if (plen_has(s, t))
			return t;
	return l;
}

/*
 * span[i + 1][j]: the keys lengths (i, j] of the histogram become, all
 * stored at length j; best[p][j]: the fewest keys for every length up to
 * j with p lengths, the longest j; from[p][j]: the length chosen before
 * it (-1: none).
 */
struct cpe_table {
	u64 span[BLOOM_PLEN_MAX + 2][BLOOM_PLEN_MAX + 1];
	u64 best[BLOOM_PLEN_MAX + 2][BLOOM_PLEN_MAX + 1];
	short from[BLOOM_PLEN_MAX + 2][BLOOM_PLEN_MAX + 1];
};

static void cpe_spans(struct cpe_table *t, const u64 *hist, int top)
{
	u64 c;
	int i, j;

	for (j = 0; j <= top; j++) {
		c = 0;
		t->span[j + 1][j] = 0;
		for (i = j - 1; i >= -1; i--) {
			if (hist[i + 1])
				c = sat_add(c, sat_mul(hist[i + 1],
						       fanout((unsigned int)(i + 1),
							      (unsigned int)j)));
			t->span[i + 1][j] = c;
		}
	}
}

static void cpe_fill(struct cpe_table *t, const u64 *hist, int top,
		     unsigned int maxp)
{
	unsigned int p;
	int i, j;
	u64 c;

	cpe_spans(t, hist, top);
	for (j = 0; j <= top; j++) {
		t->best[1][j] = t->span[0][j];
		t->from[1][j] = -1;
	}
	for (p = 2; p <= maxp; p++) {
		for (j = 0; j <= top; j++) {
			t->best[p][j] = NO_COST;
			t->from[p][j] = -1;
			for (i = 0; i < j; i++) {
				if (t->best[p - 1][i] == NO_COST)
					continue;
				c = sat_add(t->best[p - 1][i], t->span[i + 1][j]);
				if (c < t->best[p][j]) {
					t->best[p][j] = c;
					t->from[p][j] = (short)i;
				}
			}
		}
	}
}

/**
 * prefix_choose() - the prefix lengths to store a list's prefixes at
 * @hist: how many prefixes of each length, 0..128
 * @max_probes: at most this many lengths; 0: no limit
 * @budget: at most this many keys after expansion; 0: no limit
 * @out: the lengths chosen
 *
 * The fewest lengths whose expansion holds at most @budget keys, and
 * among those the fewest keys; within @max_probes when it is given.
 *
 * Return: the keys the list becomes (an upper bound: covering prefixes
 * that coincide count once each time), or 0 when no choice fits.
 */
u64 prefix_choose(const u64 *hist, unsigned int max_probes, u64 budget,
		  struct plen_set *out)
{
	struct cpe_table *t = xmalloc(sizeof(*t));
	unsigned int p, maxp = 0, used = 0;
	u64 keys = 0;
	int top = -1, j, l;

	memset(out, 0, sizeof(*out));
	for (l = 0; l <= BLOOM_PLEN_MAX; l++) {
		if (hist[l]) {
			top = l;
			maxp++;
		}
	}
	if (top < 0)
		goto done;
	if (max_probes && max_probes < maxp)
		maxp = max_probes;
	cpe_fill(t, hist, top, maxp);
	/* Without a budget, the fewest keys: more lengths never cost more. */
	for (p = budget ? 1 : maxp; p <= maxp; p++) {
		if (t->best[p][top] == NO_COST ||
		    (t->best[p][top] > budget && budget && p < maxp))
			continue;
		used = p;
		break;
	}
	if (!used || t->best[used][top] == NO_COST)
		goto done;
	keys = t->best[used][top];
	for (j = top, p = used; j >= 0 && p; j = t->from[p--][j])
		plen_put(out, (unsigned int)j);
done:
	free(t);
	return keys;
}

/* Set bits [@from, @from + @n) of the 128-bit big-endian @addr to @v. */
static void set_bits(u8 *addr, unsigned int from, unsigned int n, u64 v)
{
	unsigned int i, b;

	for (i = 0; i < n; i++) {
		b = from + i;
		if (v >> (n - 1 - i) & 1)
			addr[b / 8] |= (u8)(0x80 >> (b % 8));
		else
			addr[b / 8] &= (u8)~(0x80 >> (b % 8));
	}
}

static const struct bloom_key_net *key_at(const void *keys, size_t stride,
					  size_t i)
{
	return (const void *)((const u8 *)keys + i * stride);
}

/* The covering prefixes: an open-addressed set of (prefix, origin length). */
struct cover {
	struct bloom_key_net key;	/* pad[0]: used; pad[1]: origin plen */
};

struct cover_set {
	struct cover *slot;
	size_t mask;
};

static size_t cover_hash(const struct bloom_key_net *k)
{
	return (size_t)bloom_xxh64(k, offsetof(struct bloom_key_net, pad), 0);
}

static struct cover *cover_find(struct cover_set *s,
				const struct bloom_key_net *k)
{
	size_t i = cover_hash(k) & s->mask;

	while (s->slot[i].key.pad[0] &&
	       memcmp(&s->slot[i].key, k, offsetof(struct bloom_key_net, pad)))
		i = (i + 1) & s->mask;
	return &s->slot[i];
}

/* Claim @k for a prefix of length @origin: the longest origin keeps it. */
static void cover_claim(struct cover_set *s, const struct bloom_key_net *k,
			u8 origin)
{
	struct cover *c = cover_find(s, k);

	if (!c->key.pad[0]) {
		c->key = *k;
		c->key.pad[0] = 1;
		c->key.pad[1] = origin;
	} else if (c->key.pad[1] < origin) {
		c->key.pad[1] = origin;
	}
}

/*
 * Every covering prefix of @k at length @t, to @emit; returns how many.
 * An IPv6 prefix stays IPv6: one shorter than /96 never matches an IPv4
 * address (uapi/bloom.h), so its covers inside ::ffff:0:0/96, which
 * would be IPv4 prefixes (::/80 at /96 would be 0.0.0.0/0), are left out.
 */
static size_t cover_all(const struct bloom_key_net *k, unsigned int t,
			size_t i,
			void (*emit)(void *ctx, const struct bloom_key_net *k,
				     size_t origin),
			void *ctx)
{
	struct bloom_key_net c = *k;
	u64 v, fan = 1ULL << (t - k->plen);
	bool v6 = bloom_key_family(BLOOM_KEY_NET, k) == BLOOM_F_INET6;
	size_t n = 0;

	c.plen = (u8)t;
	for (v = 0; v < fan; v++) {
		set_bits(c.addr, k->plen, t - k->plen, v);
		if (v6 && bloom_key_family(BLOOM_KEY_NET, &c) == BLOOM_F_INET)
			continue;
		emit(ctx, &c, i);
		n++;
	}
	return n;
}

struct claim_ctx {
	struct cover_set *s;
	u8 origin;
	size_t kept;
	void (*emit)(void *ctx, const struct bloom_key_net *k, size_t origin);
	void *ctx;
};

static void claim(void *ctx, const struct bloom_key_net *k, size_t origin)
{
	struct claim_ctx *cc = ctx;

	cover_claim(cc->s, k, cc->origin);
}

static void emit_claimed(void *ctx, const struct bloom_key_net *k,
			 size_t origin)
{
	struct claim_ctx *cc = ctx;

	if (cover_find(cc->s, k)->key.pad[1] == cc->origin) {
		cc->emit(cc->ctx, k, origin);
		cc->kept++;
	}
}

/**
 * prefix_expand() - the prefixes @keys become at lengths @lens
 * @keys: @n net keys, @stride bytes apart
 * @lens: the lengths to store them at
 * @longest_only: a covering prefix that a longer key also produces is
 *	left to that one (a static map: its value is the longest's);
 *	otherwise every key's covering prefixes are all emitted, so that
 *	a counting or cuckoo filter holds each listed key whole and a del
 *	of one takes nothing of another
 * @emit: called for each key to store, in input order, with the index
 *	of the key it covers part of
 * @ctx: for @emit
 *
 * A key is stored at the shortest length of @lens at least its own
 * (plen_target()), as the prefixes of that length that cover it. A key
 * that cannot expand keeps its length, and so does every shorter key
 * that would expand past it (it has further to go), so a longer key is
 * always probed before the covering prefixes of a shorter one. Keys of
 * the same prefix are each emitted (a static map checks their values
 * agree). Callers bound the total first (prefix_keys()).
 *
 * Return: how many keys were emitted.
 */
size_t prefix_expand(const void *keys, size_t n, size_t stride,
		     const struct plen_set *lens, bool longest_only,
		     void (*emit)(void *ctx, const struct bloom_key_net *k,
				  size_t origin),
		     void *ctx)
{
	struct cover_set s = { 0 };
	struct claim_ctx cc = { .s = &s, .emit = emit, .ctx = ctx };
	size_t i, total = 0, out = 0, size = 1;

	for (i = 0; i < n; i++) {
		const struct bloom_key_net *k = key_at(keys, stride, i);
		unsigned int t = plen_target(lens, k->plen);

		if (!longest_only)
			out += cover_all(k, t, i, emit, ctx);
		else
			total += (size_t)1 << (t - k->plen);
	}
	if (!longest_only)
		return out;
	while (size < 2 * total)
		size *= 2;
	s.slot = xcalloc(size, sizeof(*s.slot));
	s.mask = size - 1;
	/* Claim every covering prefix, then emit those each key kept. */
	for (i = 0; i < n; i++) {
		const struct bloom_key_net *k = key_at(keys, stride, i);

		cc.origin = k->plen;
		cover_all(k, plen_target(lens, k->plen), i, claim, &cc);
	}
	for (i = 0; i < n; i++) {
		const struct bloom_key_net *k = key_at(keys, stride, i);

		cc.origin = k->plen;
		cover_all(k, plen_target(lens, k->plen), i, emit_claimed, &cc);
	}
	free(s.slot);
	return cc.kept;
}

static void push_cover(void *ctx, const struct bloom_key_net *k,
		       size_t origin)
{
	keylist_push(ctx, k);
}

/**
 * prefix_covers() - push the prefixes of length @t that cover @k
 * @k: a net key, its length at most @t
 * @t: the length
 * @out: a net keylist
 */
void prefix_covers(const struct bloom_key_net *k, unsigned int t,
		   struct keylist *out)
{
	cover_all(k, t, 0, push_cover, out);
}

/**
 * prefix_keys() - how many keys a histogram of lengths becomes at @lens
 * @hist: prefixes of each length, 0..128
 * @lens: the lengths
 *
 * Return: the keys (every covering prefix), saturating at U64_MAX.
 */
u64 prefix_keys(const u64 *hist, const struct plen_set *lens)
{
	u64 keys = 0;
	unsigned int l;

	for (l = 0; l <= BLOOM_PLEN_MAX; l++)
		if (hist[l])
			keys = sat_add(keys, sat_mul(hist[l],
						     fanout(l, plen_target(lens, l))));
	return keys;
}

/* prefix_count() - add the lengths of @kl's keys (net) to @hist */
void prefix_count(const struct keylist *kl, u64 *hist)
{
	size_t i;

	for (i = 0; i < kl->count; i++)
		hist[((const struct bloom_key_net *)keylist_rec(kl, i))->plen]++;
}

/* prefix_histogram() - how many keys of @kl (net) have each length */
void prefix_histogram(const struct keylist *kl, u64 *hist)
{
	memset(hist, 0, (BLOOM_PLEN_MAX + 1) * sizeof(*hist));
	prefix_count(kl, hist);
}

/* prefix_expands() - would any key of @hist move to another length? */
bool prefix_expands(const u64 *hist, const struct plen_set *lens)
{
	unsigned int l;

	for (l = 0; l <= BLOOM_PLEN_MAX; l++)
		if (hist[l] && !plen_has(lens, l))
			return true;
	return false;
}

struct expand_ctx {
	const struct keylist *from;
	struct keylist *to;
};

static void emit_rec(void *ctx, const struct bloom_key_net *k, size_t origin)
{
	struct expand_ctx *e = ctx;
	struct keylist *to = e->to;

	keylist_push(to, k);
	to->where[to->count - 1] = e->from->where[origin];
	if (to->with_values)
		to->values[to->count - 1] = e->from->values[origin];
}

/* Does every key of @kl already have a length of @lens? */
static bool nothing_to_expand(const struct keylist *kl,
			      const struct plen_set *lens)
{
	size_t i;

	for (i = 0; i < kl->count; i++)
		if (!plen_has(lens, ((const struct bloom_key_net *)keylist_rec(kl, i))->plen))
			return false;
	return true;
}

/**
 * keylist_expand() - store a net keylist's prefixes at lengths @lens
 * @kl: net keys, as loaded; replaced by the keys to store, each naming
 *	the line of the key it covers part of
 * @lens: the lengths (prefix_plan(), which bounds the total)
 *
 * Return: true if any key was expanded.
 */
bool keylist_expand(struct keylist *kl, const struct plen_set *lens)
{
	struct keylist to;
	struct expand_ctx e = { .from = kl, .to = &to };

	if (kl->type != BLOOM_KEY_NET || nothing_to_expand(kl, lens))
		return false;
	to = *kl;
	to.recs = NULL;
	to.where = NULL;
	to.values = NULL;
	to.count = 0;
	to.cap = 0;
	prefix_expand(kl->recs, kl->count, kl->stride, lens, kl->with_values,
		      emit_rec, &e);
	free(kl->recs);
	free(kl->where);
	free(kl->values);
	*kl = to;
	return true;
}

/* "16,24,32" (IPv4 lengths) or "6:48,6:64" for IPv6 ones. */
void lengths_text(const struct plen_set *s, char *buf, size_t size)
{
	size_t at = 0;
	unsigned int l;

	buf[0] = 0;
	for (l = 0; l <= BLOOM_PLEN_MAX && at < size; l++) {
		if (!plen_has(s, l))
			continue;
		at += (size_t)snprintf(buf + at, size - at, "%s%s%u",
				       at ? "," : "", l >= 96 ? "" : "6:",
				       l >= 96 ? l - 96 : l);
	}
}

/*
 * Lengths for a filter that holds some already: those, and, while the
 * keys would be more than @budget and the lengths fewer than @most (0:
 * any), the listed length whose own probe saves the most keys.
 */
static void add_lengths_within(const u64 *hist, u64 budget,
			       unsigned int most, struct plen_set *lens)
{
	struct plen_set best, with;
	u64 keys = prefix_keys(hist, lens), least, k;
	unsigned int l;

	while (keys > budget && (!most || plen_count(lens) < most)) {
		least = keys;
		best = *lens;
		for (l = 0; l <= BLOOM_PLEN_MAX; l++) {
			if (!hist[l] || plen_has(lens, l))
				continue;
			with = *lens;
			plen_put(&with, l);
			k = prefix_keys(hist, &with);
			if (k < least) {
				least = k;
				best = with;
			}
		}
		if (least == keys)
			break;	/* every listed length is held */
		*lens = best;
		keys = least;
	}
}

/*
 * The lengths keys of @hist are stored at with @lens: their targets, a
 * prefix's own length where no length of @lens is within reach.
 */
static void stored_lengths(const u64 *hist, const struct plen_set *lens,
			   struct plen_set *out)
{
	unsigned int l;

	memset(out, 0, sizeof(*out));
	for (l = 0; l <= BLOOM_PLEN_MAX; l++)
		if (hist[l])
			plen_put(out, plen_target(lens, l));
}

/* How many lengths the keys of @hist go to with @lens. */
unsigned int prefix_stored_lengths(const u64 *hist,
				   const struct plen_set *lens)
{
	struct plen_set s;

	stored_lengths(hist, lens, &s);
	return plen_count(&s);
}

/*
 * A lookup probes every length held: refuse lengths that, with those
 * held, are more than the filter's P (--probes at create), unless forced.
 */
static void check_lookup(const struct prefix_opts *po, const u64 *hist,
			 const struct plen_set *held,
			 const struct plen_set *lens, const char *cmd)
{
	struct plen_set all;
	unsigned int i, n;

	stored_lengths(hist, lens, &all);
	for (i = 0; held && i < BLOOM_PLEN_WORDS; i++)
		all.w[i] |= held->w[i];
	n = plen_count(&all);
	/* Over already (forced): keys at the lengths held add no probe. */
	if (!po->lookup_max || n <= po->lookup_max || po->force ||
	    (held && n == plen_count(held)))
		return;
	die("%s: a lookup would probe %u prefix lengths, more than the %u the filter was sized for, and its false-positive rate would be about %u times the one asked: create it with --probes %u (bloomctl calc -f LIST tells the keys and lengths of a list), give fewer --prefix-lengths, or --force",
	    cmd, n, po->lookup_max, DIV_ROUND_UP(n, po->lookup_max), n);
}

/**
 * prefix_plan() - the lengths a list of net keys is stored at
 * @po: the options (--prefix-lengths, --probes, the filter's P)
 * @hist: how many keys the list has of each length
 * @count: how many keys it has
 * @held: the lengths the filter holds already, or NULL
 * @room: the keys the filter has room for, or 0 if not known
 * @lens: the lengths chosen
 * @cmd: for messages
 *
 * An empty filter takes the list's own choice: the fewest lengths that
 * at most double the keys (and fit in @room when the list alone does),
 * --probes, or --prefix-lengths. A filter that holds net keys keeps its
 * lengths, and takes a listed length of its own only where the keys
 * would otherwise be more than that budget. An explicit list that makes
 * more keys than @room (or, without one, than EXPAND_KEYS_MAX) is
 * refused before anything is expanded. No choice takes the lengths a
 * lookup probes past @po->lookup_max: given ones that would are refused
 * unless forced (check_lookup()).
 */
void prefix_plan(const struct prefix_opts *po, const u64 *hist, u64 count,
		 const struct plen_set *held, u64 room, struct plen_set *lens,
		 const char *cmd)
{
	u64 keys, limit, budget = EXPAND_BUDGET * count;
	bool holds = held && plen_count(held);
	char text[1024];
	unsigned int i;

	if (po->probes && po->mode != PREFIX_AUTO)
		usage_error(cmd, "--probes chooses the lengths: not with --prefix-lengths");
	if (room >= count && room < budget)
		budget = room;
	if (holds && po->mode != PREFIX_ALL) {
		if (po->mode == PREFIX_LIST || po->probes) {
			lengths_text(held, text, sizeof(text));
			die("%s: the filter holds net keys at lengths %s already: --prefix-lengths and --probes choose the lengths of an empty filter (--prefix-lengths all adds keys at their own)",
			    cmd, text);
		}
		*lens = *held;
		add_lengths_within(hist, budget, po->lookup_max, lens);
		check_lookup(po, hist, held, lens, cmd);
		return;
	}
	memset(lens, 0, sizeof(*lens));
	if (po->mode == PREFIX_ALL) {
		for (i = 0; i <= BLOOM_PLEN_MAX; i++)
			if (hist[i])
				plen_put(lens, i);
		check_lookup(po, hist, held, lens, cmd);
		return;
	}
	if (po->mode == PREFIX_LIST) {
		*lens = po->lens;
		keys = prefix_keys(hist, lens);
		limit = room ?: EXPAND_KEYS_MAX;
		if (keys > limit && !po->force) {
			lengths_text(lens, text, sizeof(text));
			die("%s: at lengths %s the %llu keys become %llu, more than %s %llu (give other lengths, or --force)",
			    cmd, text, (unsigned long long)count,
			    (unsigned long long)keys,
			    room ? "the filter has room for" : "bloomctl makes,",
			    (unsigned long long)limit);
		}
		check_lookup(po, hist, held, lens, cmd);
		return;
	}
	/* The fewest lengths within the budget, or keys within --probes. */
	if (!prefix_choose(hist, po->probes ?: po->lookup_max,
			   po->probes ? 0 : budget, lens) && count)
		die("%s: no %u prefix lengths hold these prefixes: one would become more than 2^%d keys (give more --probes)",
		    cmd, po->probes ?: po->lookup_max, EXPAND_MAX_BITS);
	check_lookup(po, hist, held, lens, cmd);
}

/* --prefix-lengths all|LIST (IPv4 lengths, or IPv6 ones after "6:") */
static void parse_lengths(struct prefix_opts *po, const char *cmd,
			  const char *arg)
{
	const char *s = arg;
	char *end;
	unsigned long l;
	bool v6;

	if (!strcmp(arg, "all")) {
		po->mode = PREFIX_ALL;
		return;
	}
	if (!strcmp(arg, "auto")) {
		po->mode = PREFIX_AUTO;
		return;
	}
	po->mode = PREFIX_LIST;
	memset(&po->lens, 0, sizeof(po->lens));
	do {
		v6 = !strncmp(s, "6:", 2);
		s += v6 ? 2 : 0;
		l = strtoul(s, &end, 10);
		if (end == s || !isdigit((unsigned char)*s) ||
		    (*end && *end != ',') || l > (v6 ? 128 : 32) ||
		    (*end == ',' && !end[1]))
			usage_error(cmd, "bad --prefix-lengths '%s' (all, auto, or lengths such as 16,24,32 and 6:48,6:64 for IPv6)",
				    arg);
		plen_put(&po->lens, (unsigned int)(v6 ? l : l + 96));
		s = *end ? end + 1 : end;
	} while (*s);
}

/**
 * prefix_option() - take --prefix-lengths or --probes
 * @po: the options
 * @cmd: for messages
 * @c: the option
 * @arg: its argument
 *
 * Return: true if @c was one of them.
 */
bool prefix_option(struct prefix_opts *po, const char *cmd, int c,
		   const char *arg)
{
	if (c == OPT_PREFIX_LENGTHS) {
		parse_lengths(po, cmd, arg);
		return true;
	}
	if (c != OPT_PROBES)
		return false;
	po->probes = probes_option(cmd, arg);
	return true;
}

/* --probes P: how many prefix lengths a lookup probes, 1 to 129. */
unsigned int probes_option(const char *cmd, const char *arg)
{
	char *end;
	unsigned long p;

	p = strtoul(arg, &end, 10);
	if (end == arg || *end || !p || p > BLOOM_PROBES_MAX)
		usage_error(cmd, "bad --probes '%s' (1 to %d)", arg,
			    BLOOM_PROBES_MAX);
	return (unsigned int)p;
}

struct calc_prefix_row {
	unsigned int probes;
	u64 keys, mem;
	struct plen_set lens;
};

/*
 * A row: the keys @lens give, and the blocked filter that holds them
 * with a lookup (one probe per length) still at @ppb.
 */
static void calc_prefix_row(const u64 *hist, const struct plen_set *lens,
			    u64 keys, u64 ppb, struct calc_prefix_row *r)
{
	struct bloom_geom g;
	struct bloom_core core;

	r->lens = *lens;
	r->probes = plen_count(lens);
	r->keys = keys;
	r->mem = 0;
	if (keys && !bloom_geom_size(keys, max(ppb / r->probes, (u64)1),
				     BLOOM_LAYOUT_BLOCKED, &g)) {
		bloom_core_init(&core, &g);
		r->mem = bloom_array_bytes(&core);
	}
}

#define CALC_PROBES_MAX	8

/**
 * calc_prefixes() - calc -f LIST for a net list: probes against memory
 * @kl: the list's keys (net)
 * @ppb: the false-positive rate a lookup should have
 *
 * A row for every number of lengths up to CALC_PROBES_MAX, one for every
 * length the list holds, and the default's choice.
 */
void calc_prefixes(const struct keylist *kl, u64 ppb)
{
	struct calc_prefix_row rows[CALC_PROBES_MAX + 3];
	u64 hist[BLOOM_PLEN_MAX + 1];
	struct plen_set lens, all = { 0 };
	unsigned int p, n = 0, i, dflt;
	char text[1024], mem[32];
	struct table t;
	struct json j;

	if (!kl->count)
		die("calc: no prefixes in the list");
	prefix_histogram(kl, hist);
	for (i = 0; i <= BLOOM_PLEN_MAX; i++)
		if (hist[i])
			plen_put(&all, i);
	for (p = 1; p <= CALC_PROBES_MAX && p < plen_count(&all); p++) {
		u64 keys = prefix_choose(hist, p, 0, &lens);

		if (keys)
			calc_prefix_row(hist, &lens, keys, ppb, &rows[n++]);
	}
	prefix_choose(hist, 0, EXPAND_BUDGET * kl->count, &lens);
	dflt = plen_count(&lens);
	if (dflt > CALC_PROBES_MAX && dflt < plen_count(&all))
		calc_prefix_row(hist, &lens, prefix_keys(hist, &lens), ppb,
				&rows[n++]);
	calc_prefix_row(hist, &all, kl->count, ppb, &rows[n++]);
	if (opts.format == OUT_JSON) {
		json_start(&j);
		json_object(&j, NULL);
		json_u64(&j, "prefixes", kl->count);
		json_u64(&j, "lengths_listed", plen_count(&all));
		json_u64(&j, "default_probes", dflt);
		json_array(&j, "rows");
		for (i = 0; i < n; i++) {
			lengths_text(&rows[i].lens, text, sizeof(text));
			json_object(&j, NULL);
			json_u64(&j, "probes", rows[i].probes);
			json_str(&j, "lengths", text);
			json_u64(&j, "keys", rows[i].keys);
			json_u64(&j, "memory_bytes", rows[i].mem);
			json_close(&j, '}');
		}
		json_close(&j, ']');
		json_close(&j, '}');
		json_finish(&j);
		return;
	}
	if (opts.quiet)
		return;
	table_init(&t, "PROBES LENGTHS >KEYS >MEMORY DEFAULT");
	for (i = 0; i < n; i++) {
		lengths_text(&rows[i].lens, text, sizeof(text));
		human_bytes(rows[i].mem, mem, sizeof(mem));
		table_cell(&t, "%u", rows[i].probes);
		table_cell(&t, "%s", text);
		table_cell(&t, "%llu", (unsigned long long)rows[i].keys);
		table_cell(&t, "%s", mem);
		table_cell(&t, "%s", rows[i].probes == dflt ? "*" :
			   i == n - 1 ? "(all)" : "");
	}
	printf("%zu prefixes of %u lengths; a lookup probes each length held\n",
	       kl->count, plen_count(&all));
	table_print(&t);
	table_free(&t);
	printf("memory: a blocked filter of the keys, each probe at E/PROBES so that a lookup stays at E\n");
}
