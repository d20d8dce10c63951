// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel API (bloom.h): what xt_bloom and other modules use.
 * Tests and adds run under rcu_read_lock() against the filter's current
 * contents, take no lock and never sleep.
 *
 * Each kind of contents answers for itself (kind.h); none is named here.
 *
 * On an aging filter of G generations rotated every T (kinds/aging.c), a test
 * looks in every generation and an add goes to the newest (a key found
 * only in an older one is added again, which renews it). A key is then
 * present for at least (G - 1) T and at most G T after its last add:
 * false positives are possible, false negatives inside that window are
 * not. Rotations on top of the timer's (the newest full, with
 * BLOOM_AGE_F_FULL, or bloom_rotate()) each shorten the window by up to
 * T; in rotations, a key is present until G - 1 rotations have
 * completed after its add returned, and gone (unless a false positive)
 * after G that began after it.
 */
#include <linux/export.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <kunit/visibility.h>
#include "registry.h"

/**
 * bloom_get() - hold a filter of a namespace by name
 * @net: the namespace
 * @name: the filter's name
 *
 * While held, the filter cannot be destroyed (destroy fails with EBUSY);
 * its contents may still be cleared, swapped or restored. Callable from
 * any context.
 *
 * Return: the filter, or ERR_PTR(-ENOENT).
 */
struct bloom_filter *bloom_get(struct net *net, const char *name)
{
	struct bloom_filter *f = bloom_lookup(net, name);

	if (IS_ERR(f))
		return f;
	/* users is -1 once destroy has begun: then it is gone already. */
	if (!atomic_inc_unless_negative(&f->users)) {
		bloom_filter_put(f);
		return ERR_PTR(-ENOENT);
	}
	return f;
}
EXPORT_SYMBOL_GPL(bloom_get);

/**
 * bloom_put() - release a filter from bloom_get()
 * @f: the filter
 */
void bloom_put(struct bloom_filter *f)
{
	atomic_dec(&f->users);
	bloom_filter_put(f);
}
EXPORT_SYMBOL_GPL(bloom_put);

/**
 * bloom_key_type() - the key type of a held filter
 * @f: the filter
 *
 * Return: enum bloom_key_type; fixed for the filter's life (swap and
 * restore keep it).
 */
u8 bloom_key_type(const struct bloom_filter *f)
{
	u8 type;

	rcu_read_lock();
	type = rcu_dereference(f->contents)->core.g.key_type;
	rcu_read_unlock();
	return type;
}
EXPORT_SYMBOL_GPL(bloom_key_type);

/**
 * bloom_family() - the family of a held filter
 * @f: the filter
 *
 * Return: BLOOM_F_INET, BLOOM_F_INET6, or 0 for a dual-stack filter;
 * fixed for the filter's life, as its key type.
 */
u16 bloom_family(const struct bloom_filter *f)
{
	u16 flags;

	rcu_read_lock();
	flags = rcu_dereference(f->contents)->core.g.flags;
	rcu_read_unlock();
	return flags & BLOOM_F_FAMILY;
}
EXPORT_SYMBOL_GPL(bloom_family);

static void count(struct bloom_filter *f, bool hit)
{
	if (hit)
		this_cpu_inc(f->stats->hits);
	else
		this_cpu_inc(f->stats->misses);
}

/*
 * A lookup that gave a value: counted per value too, in a filter that
 * counts them (value_hits and value_mask never change: read bare). The
 * mask keeps contents restored with wider values inside the counters.
 */
static void count_value(struct bloom_filter *f, bool hit, u32 value)
{
	count(f, hit);
	if (hit && f->value_hits)
		this_cpu_inc(f->value_hits[value & f->value_mask]);
}

/*
 * A key of the filter's family (uapi/bloom.h): any key of a dual-stack
 * filter, and the flags test is all the packet path pays for it.
 */
static bool family_ok(const struct bloom_contents *c, const void *key)
{
	const struct bloom_geom *g = &c->core.g;

	return likely(!(g->flags & BLOOM_F_FAMILY)) ||
	       bloom_key_family_ok(g->flags, g->key_type, key);
}

/* Under rcu_read_lock(): is @key in @c, and with what @value (or NULL)? */
static bool member_lookup(struct bloom_contents *c, const void *key,
			  size_t len, u32 *value)
{
	u64 h;

	if (!family_ok(c, key))
		return false;
	h = bloom_hash(&c->core, key, len);
	return value ? bloom_contents_value(c, h, value) :
		       bloom_contents_test(c, h);
}

/**
 * bloom_test() - is a key in a held filter?
 * @f: the filter
 * @key: a key of the filter's type (uapi/bloom.h)
 * @len: its length
 *
 * Counts a hit or a miss in the filter's stats, and a hit under its value
 * in a filter that counts values.
 *
 * Return: true if the key may be present, false if surely absent (as a
 * key of the other family is, BLOOM_F_INET and _INET6).
 */
bool bloom_test(struct bloom_filter *f, const void *key, size_t len)
{
	u32 value;
	bool hit;

	if (unlikely(f->value_hits))
		return bloom_value(f, key, len, &value);

	rcu_read_lock();
	hit = member_lookup(rcu_dereference(f->contents), key, len, NULL);
	rcu_read_unlock();
	count(f, hit);
	return hit;
}
EXPORT_SYMBOL_GPL(bloom_test);

/**
 * bloom_value() - is a key in a held filter, and with what value?
 * @f: the filter
 * @key: a key of the filter's type
 * @len: its length
 * @value: set to the key's value when present: a static map's or a
 *	cuckoo filter's with values, 0 for every other filter
 *
 * Counts a hit or a miss, as bloom_test().
 *
 * Return: true if the key may be present, false if surely absent.
 */
bool bloom_value(struct bloom_filter *f, const void *key, size_t len,
		 u32 *value)
{
	bool hit;

	*value = 0;
	rcu_read_lock();
	hit = member_lookup(rcu_dereference(f->contents), key, len, value);
	rcu_read_unlock();
	count_value(f, hit, *value);
	return hit;
}
EXPORT_SYMBOL_GPL(bloom_value);

/*
 * The "full" warning, at most once per BLOOM_FULL_WARN_SECS per filter:
 * a filter cleared (or swapped) in a loop gets new contents each time,
 * and each would otherwise say it again. The per-contents bit is tested
 * first, so a full filter under a flood writes no shared line; the
 * cmpxchg() lets one CPU print.
 */
#define BLOOM_FULL_WARN_SECS	60

static void warn_full(struct bloom_filter *f, struct bloom_contents *c)
{
	unsigned long last, now = jiffies;

	if (test_bit(BLOOM_C_FULL_WARNED, &c->flags))
		return;
	/* A plain read: under a flood only the line's owner writes it. */
	last = READ_ONCE(f->full_warned);
	if (last && time_before(now, last + BLOOM_FULL_WARN_SECS * HZ))
		return;
	if (test_and_set_bit(BLOOM_C_FULL_WARNED, &c->flags) ||
	    cmpxchg(&f->full_warned, last, now ?: 1) != last)
		return;
	/* And a bound over all filters: namespaces may have many. */
	pr_warn_ratelimited("bloom: filter \"%s\" is full (capacity %llu keys): new keys are no longer added; clear it or swap in a larger filter\n",
			    rcu_dereference(f->name)->s, c->core.g.capacity);
}

/**
 * bloom_warn_lengths() - say once that a net filter is past its design
 * @f: the filter
 * @c: its contents, under rcu_read_lock()
 *
 * A lookup probes every prefix length held: more lengths than the filter
 * was sized for (BLOOM_F_PROBES) answer at a higher rate than asked.
 * Once for these contents, and rate-limited over all filters.
 */
void bloom_warn_lengths(struct bloom_filter *f, struct bloom_contents *c)
{
	unsigned int n, p = bloom_geom_probes(&c->core.g);
	u64 plens[BLOOM_PLEN_WORDS];

	if (!p || test_bit(BLOOM_C_LENGTHS_WARNED, &c->flags))
		return;
	bloom_contents_plens(c, plens);
	n = bloom_net_lookup_lengths(plens);
	if (n <= p || test_and_set_bit(BLOOM_C_LENGTHS_WARNED, &c->flags))
		return;
	pr_warn_ratelimited("bloom: filter \"%s\" holds %u prefix lengths, more than the %u its lookups were sized for: its false-positive rate is above the one asked; recreate it with bloomctl create --probes %u or more\n",
			    rcu_dereference(f->name)->s, n, p, n);
}

/*
 * Under rcu_read_lock(): add, and return 1 if it was already present,
 * -ENOSPC if it was not and the filter is full (the kind decides what
 * full means and says so in the kernel log through warn_full()). With
 * @copy, the key is stored (cuckoo) with @value; else @value is 0.
 */
static int add_rcu(struct bloom_filter *f, const void *key, size_t len,
		   bool copy, u32 value)
{
	struct bloom_contents *c = rcu_dereference(f->contents);
	struct bloom_key_net net;
	int plen = -1, ret;
	u64 h;

	/*
	 * A net key is checked, noted and hashed as one copy: a BPF
	 * program's key may sit in map memory that changes meanwhile, and
	 * the summary's range must be the one checked.
	 */
	if (c->core.g.key_type == BLOOM_KEY_NET && len == sizeof(net)) {
		memcpy(&net, key, sizeof(net));
		key = &net;
	}
	ret = bloom_key_check(c->core.g.key_type, key, len);
	if (ret)
		return ret;
	if (!family_ok(c, key))
		return -EAFNOSUPPORT;
	/* value_bits is at most BLOOM_FUSE_VALUE_BITS_MAX: the shift is defined. */
	if (value >> c->core.g.value_bits)
		return -ERANGE;
	if (c->core.g.key_type == BLOOM_KEY_NET) {
		plen = ((const struct bloom_key_net *)key)->plen;
		bloom_contents_note_net(c, key);
	}
	h = bloom_hash(&c->core, key, len);
	ret = copy ? bloom_contents_add_value(c, h, plen, value) :
		     bloom_contents_add(c, h, plen);
	if (unlikely(ret == -ENOSPC))
		warn_full(f, c);
	if (plen >= 0)
		bloom_warn_lengths(f, c);
	return ret;
}

/**
 * bloom_add() - add a key to a held filter
 * @f: the filter
 * @key: a well-formed key of the filter's type
 * @len: its length
 *
 * A cuckoo filter stores a copy of the key even when it tests present,
 * as a counting filter counts every add: each bloom_add() then takes a
 * bloom_del().
 *
 * Return: 0; -EINVAL for a malformed key; -ENOSPC when the key is new
 * and the filter holds as many keys as it was sized for, or a cuckoo
 * filter has no room for it (it is not added, see bloom_geom.capacity);
 * -EAFNOSUPPORT for a key of the other family (BLOOM_F_INET, _INET6).
 */
int bloom_add(struct bloom_filter *f, const void *key, size_t len)
{
	return bloom_add_value(f, key, len, 0);
}
EXPORT_SYMBOL_GPL(bloom_add);

/**
 * bloom_add_value() - add a key with a value to a held filter
 * @f: the filter
 * @key: a well-formed key of the filter's type
 * @len: its length
 * @value: what bloom_value() gives for the key, and the counter of the
 *	filter's per-value counts its matches go to: below 2^value_bits of
 *	a cuckoo filter with values (bloomctl create --values)
 *
 * As bloom_add(), which is bloom_add_value() with @value 0. A key added
 * twice with two values is stored twice: a lookup gives either, and
 * each copy takes its own bloom_del().
 *
 * Return: as bloom_add(); -ERANGE for a @value that does not fit (any
 * but 0 in a filter without values); -EOPNOTSUPP for a filter that takes
 * no adds (a static map is built whole).
 */
int bloom_add_value(struct bloom_filter *f, const void *key, size_t len,
		    u32 value)
{
	int ret;

	rcu_read_lock();
	ret = add_rcu(f, key, len, true, value);
	rcu_read_unlock();
	return ret < 0 ? ret : 0;
}
EXPORT_SYMBOL_GPL(bloom_add_value);

/**
 * bloom_test_and_add() - add a key and say whether it was seen before
 * @f: the filter
 * @key: a well-formed key of the filter's type
 * @len: its length
 *
 * For dedup: of two racing calls with the same new key, at least one
 * returns 0. Counts a hit or a miss in the filter's stats. On an aging
 * filter it answers "seen within the window" (see the top of this file)
 * and renews the key: a key seen again and again stays present.
 *
 * Return: 1 if the key was (probably) present already, 0 if it is new,
 * -EINVAL for a malformed key, -ENOSPC if it is new and the filter is
 * full (not added), -EAFNOSUPPORT for a key of the other family.
 */
int bloom_test_and_add(struct bloom_filter *f, const void *key, size_t len)
{
	int ret;

	rcu_read_lock();
	ret = add_rcu(f, key, len, false, 0);
	rcu_read_unlock();
	if (ret >= 0 || ret == -ENOSPC)
		count(f, ret == 1);
	return ret;
}
EXPORT_SYMBOL_GPL(bloom_test_and_add);

/**
 * bloom_del() - delete a key from a held counting or cuckoo filter
 * @f: the filter
 * @key: a well-formed key of the filter's type
 * @len: its length
 *
 * Delete only keys that were added: deleting another can delete a key
 * that shares its counters (counting) or its fingerprint and bucket
 * (cuckoo). Process context or softirq.
 *
 * Return: 0; -ENOENT if the key tests absent; -EINVAL for a malformed
 * key; -EOPNOTSUPP for a filter that cannot delete; -EAFNOSUPPORT for
 * a key of the other family.
 */
int bloom_del(struct bloom_filter *f, const void *key, size_t len)
{
	struct bloom_contents *c;
	int err;

	rcu_read_lock();
	c = rcu_dereference(f->contents);
	err = bloom_key_check(c->core.g.key_type, key, len) ?:
	      (family_ok(c, key) ? 0 : -EAFNOSUPPORT) ?:
	      bloom_contents_del(c, bloom_hash(&c->core, key, len));
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_GPL(bloom_del);

/**
 * bloom_rotate() - rotate a held aging filter now
 * @f: the filter
 *
 * Drops the oldest generation: keys added before the last G - 1
 * rotations are forgotten. Process context only: it waits for a grace
 * period and for a rotation in progress.
 *
 * Return: 0, -EOPNOTSUPP for a filter that does not age, -EINTR, -ENOMEM.
 */
int bloom_rotate(struct bloom_filter *f)
{
	struct bloom_contents *c = bloom_contents_get(f);
	int err = bloom_contents_rotate(c);

	bloom_contents_put(c);
	return err;
}
EXPORT_SYMBOL_GPL(bloom_rotate);

/*
 * Under rcu_read_lock(): probe each prefix length @c holds of @addr's
 * family (an IPv4 address only the IPv4 ones), longest first, up to the
 * first present; with @value, ask for its value. An address whose /16
 * no prefix reaches is absent without a probe (the summary).
 */
static bool net_walk(struct bloom_contents *c, const u8 addr[16], u32 *value)
{
	u64 plens[BLOOM_PLEN_WORDS];
	struct bloom_key_net key = {};
	bool hit = false;
	int w, bit;
	u64 h;

	if (unlikely(c->core.g.flags & BLOOM_F_FAMILY) &&
	    !bloom_key_family_ok(c->core.g.flags, BLOOM_KEY_ADDR, addr))
		return false;
	if (!bloom_contents_net_may_hold(c, addr))
		return false;
	bloom_contents_plens(c, plens);
	bloom_net_family_plens(plens, addr);
	for (w = BLOOM_PLEN_WORDS - 1; w >= 0 && !hit; w--) {
		while (plens[w] && !hit) {
			bit = fls64(plens[w]) - 1;
			plens[w] &= ~BIT_ULL(bit);
			memcpy(key.addr, addr, 16);
			key.plen = w * 64 + bit;
			bloom_net_mask(key.addr, key.plen);
			h = bloom_hash(&c->core, &key, sizeof(key));
			hit = value ? bloom_contents_value(c, h, value) :
				      bloom_contents_test(c, h);
		}
	}
	return hit;
}

/**
 * bloom_test_net() - is an address inside any prefix of a net filter?
 * @f: a held filter of type BLOOM_KEY_NET
 * @addr: the address, 16 bytes (IPv4 v4-mapped)
 *
 * Probes each prefix length the filter holds of the address's family,
 * longest first: the walk visits only the lengths set in the filter's
 * bitmap, and an IPv4 address only /96 to /128 (uapi/bloom.h).
 *
 * Counts as bloom_test() does.
 *
 * Return: true if some prefix of @addr may be present.
 */
bool bloom_test_net(struct bloom_filter *f, const u8 addr[16])
{
	u32 value;
	bool hit;

	if (unlikely(f->value_hits))
		return bloom_value_net(f, addr, &value);

	rcu_read_lock();
	hit = net_walk(rcu_dereference(f->contents), addr, NULL);
	rcu_read_unlock();
	count(f, hit);
	return hit;
}
EXPORT_SYMBOL_GPL(bloom_test_net);

/**
 * bloom_value_net() - the value of the longest prefix of an address
 * @f: a held filter of type BLOOM_KEY_NET
 * @addr: the address, 16 bytes (IPv4 v4-mapped)
 * @value: set to the value of the longest prefix present (0 but for
 *	filters with values)
 *
 * Return: true if some prefix of @addr may be present.
 */
bool bloom_value_net(struct bloom_filter *f, const u8 addr[16], u32 *value)
{
	bool hit;

	*value = 0;
	rcu_read_lock();
	hit = net_walk(rcu_dereference(f->contents), addr, value);
	rcu_read_unlock();
	count_value(f, hit, *value);
	return hit;
}
EXPORT_SYMBOL_GPL(bloom_value_net);

/**
 * bloom_probe_rcu() - test, or test and add, a key nobody has checked
 * @f: a filter found under the caller's rcu_read_lock()
 * @key: a key of the filter's type; for a net filter also a bare
 *	address (struct bloom_key_addr), which is tested as
 *	bloom_test_net() does
 * @len: its length; a zero length never reads @key
 * @add: add it too, as bloom_test_and_add() (dedup)
 *
 * For callers that hand over keys unchecked: BPF programs (kfuncs.c).
 * Counts a hit or a miss, as bloom_test() (per value too) and
 * bloom_test_and_add().
 *
 * Return: 1 present (seen before), 0 absent (new), or -EINVAL for a key
 * of the wrong length or type, and what bloom_test_and_add() returns.
 */
int bloom_probe_rcu(struct bloom_filter *f, const void *key, size_t len,
		    bool add)
{
	struct bloom_contents *c = rcu_dereference(f->contents);
	u8 type = c->core.g.key_type;
	u32 value = 0, *want = f->value_hits ? &value : NULL;
	int ret;

	if (add)
		ret = add_rcu(f, key, len, false, 0);
	else if (type == BLOOM_KEY_NET && len == sizeof(struct bloom_key_addr))
		ret = net_walk(c, key, want);
	else
		ret = bloom_key_check(type, key, len) ?:
		      member_lookup(c, key, len, want);
	if (add && (ret >= 0 || ret == -ENOSPC))
		count(f, ret == 1);
	else if (!add && ret >= 0)
		count_value(f, ret == 1, value);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_probe_rcu);
