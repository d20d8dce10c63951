/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A filter's contents and the kinds they come in (design.md section 11).
 *
 * The registry publishes contents under a name and knows nothing else of
 * them. Every contents starts with struct bloom_contents; what follows
 * belongs to its kind (plain bit arrays in kinds/plain.c, aging
 * generations in kinds/aging.c, stages in kinds/scalable.c, fingerprint
 * tables in kinds/cuckoo.c, static filters and maps in kinds/fuse.c),
 * which implements struct bloom_kind_ops.
 * Callers go through the bloom_contents_*() wrappers below: an operation
 * a kind leaves NULL fails there, and only there, with -EOPNOTSUPP.
 *
 * Lifetime: contents are freed after an RCU grace period once their last
 * reference is gone. A filter's pointer holds one; readers that sleep
 * (INFO, SAVE, /proc/net/bloom) hold one with bloom_contents_get(); the
 * packet path holds none and runs under rcu_read_lock(). Contents a
 * filter points at are "published": their background work (if the kind
 * has any) runs from bloom_contents_start() until bloom_contents_retire()
 * and a grace period later bloom_contents_stop(); after that nothing of
 * them runs but what their holders call.
 */
#ifndef _BLOOM_KIND_H
#define _BLOOM_KIND_H

#include <linux/indirect_call_wrapper.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include "core/bloom_core.h"

struct bloom_contents;

struct bloom_gen_report {
	u64 age_ms;
	struct bloom_stats st;
};

/* What INFO and /proc/net/bloom show of contents (and of their filter). */
struct bloom_report {
	struct bloom_stats st;
	bool over;			/* past capacity where adds go */
	u64 hits, misses;		/* the filter's */
	u32 users;			/* the filter's */
	u64 rotations;			/* aging */
	u64 moves, failed;		/* cuckoo: relocations, adds refused */
	struct bloom_gen_report gen[BLOOM_GENERATIONS_MAX];	/* newest first */
};

/* One stage of contents that grow, and how they grow. */
struct bloom_stage_report {
	struct bloom_geom g;		/* the stage's */
	struct bloom_stats st;
	u32 stages;			/* how many there are */
	bool full;			/* at a limit: none to come */
	u64 bound_ppb;			/* the rate they stay below */
};

/*
 * A snapshot payload being read in (transfer.c provides it): @words
 * copies @n little-endian words into an array, @bytes a small record;
 * both feed the checksum and fail with -EFAULT or -EINTR. @verify, once
 * all is read, checks the checksum (-EBADMSG): a kind checks what it
 * can of each array as it reads it (-ERANGE), then verifies, then acts
 * on the records it read.
 */
struct bloom_payload_in {
	int (*words)(struct bloom_payload_in *in, bloom_word_t *w, u64 n);
	int (*bytes)(struct bloom_payload_in *in, void *buf, size_t n);
	int (*verify)(struct bloom_payload_in *in);
};

/**
 * struct bloom_kind_ops - what a kind of contents does
 * @bytes: bytes to allocate (and to count against the namespace's limit)
 *	for a valid geometry of the kind; SIZE_MAX when that overflows
 * @size: the bytes contents that grow hold now, under their budget's
 *	lock (NULL: @bytes of their geometry)
 * @snap_bytes: the bytes contents restored from a snapshot would hold
 *	(NULL: @bytes of its geometry)
 * @init: set up new, zeroed contents (core filled in); 0 or -ENOMEM
 * @destroy: free what the kind allocated beside the contents; runs once
 *	no reader can see them (never published, or after a grace period)
 *	and must not sleep
 * @start: published: start background work (process context)
 * @stop: cancel background work, a grace period after the contents
 *	were retired (process context)
 * @test: is hash @h present? Under rcu_read_lock(), any context
 * @add: test-and-add @h, noting prefix length @plen (negative: none);
 *	1 if it was present, 0 if added, -ENOSPC when new and full. As
 *	@test. NULL: contents built once (static), never added to
 * @value: is @h present, and its value (0 for contents without values)?
 *	1 and *@value, or 0 and *@value 0. As @test, but a hit in contents
 *	with values is read as consistently as @add's. NULL: @test, and
 *	the value 0
 * @add_copy: add @h with value @value (below 2^value_bits), storing a
 *	copy even if present (cuckoo, for BLOOM_IOC_ADD and bloom_add():
 *	each add then takes a delete); returns as @add. NULL: @add, and
 *	no values
 * @plens: the prefix lengths held, under rcu_read_lock()
 * @test_batch: test @n hashes, set their bits in @present; the hits
 * @make_room: before a batch of @n adds, in process context: contents
 *	that grow do so now rather than overfill (0 or -EINTR)
 * @add_batch: add @n hashes (prefix lengths in @plen, or NULL); the
 *	keys that were new. NULL: adds go one by one through @add, and
 *	stop at the first that fails
 * @del: delete @h (counting); as bloom_del_hash()
 * @count: the smallest counter of @h
 * @report: fill @r->st, @r->over and the kind's fields; may sleep
 * @stage: stats of stage @i of contents that grow, and their growth
 *	parameters in @s; -ENOENT past the last (may sleep)
 * @snap_hdr: the snapshot header, checksum zero
 * @snap_words: words @first..@first + @n - 1 of the payload, into @out
 * @snap_changes: a count that moves when the payload changes other than
 *	by adds (aging: rotations), or 0
 * @load: read a verified header's payload into new contents
 * @rotate: drop the oldest generation now (process context)
 * @combine: union or intersect @src (of the same ops) into @dst, under
 *	the registry lock
 * @estimate: estimated union and intersection sizes of two contents
 * @halve: new contents holding the same keys in half the size; every
 *	add to @c meanwhile reaches them too (under the registry lock)
 */
struct bloom_kind_ops {
	size_t (*bytes)(const struct bloom_core *core);
	size_t (*size)(const struct bloom_contents *c);
	size_t (*snap_bytes)(const struct bloom_snap_info *info);
	int (*init)(struct bloom_contents *c);
	void (*destroy)(struct bloom_contents *c);
	void (*start)(struct bloom_contents *c);
	void (*stop)(struct bloom_contents *c);

	bool (*test)(struct bloom_contents *c, u64 h);
	int (*add)(struct bloom_contents *c, u64 h, int plen);
	int (*add_copy)(struct bloom_contents *c, u64 h, int plen,
			u32 value);
	int (*value)(struct bloom_contents *c, u64 h, u32 *value);
	void (*plens)(struct bloom_contents *c, u64 *plens);
	u32 (*test_batch)(struct bloom_contents *c, const u64 *h, u32 n,
			  u64 *present);
	int (*make_room)(struct bloom_contents *c, u32 n);
	u32 (*add_batch)(struct bloom_contents *c, const u64 *h,
			 const u8 *plen, u32 n);
	int (*del)(struct bloom_contents *c, u64 h);
	u32 (*count)(struct bloom_contents *c, u64 h);

	int (*report)(struct bloom_contents *c, struct bloom_report *r,
		      u64 *hist);
	int (*stage)(struct bloom_contents *c, u32 i,
		     struct bloom_stage_report *s, u64 *hist);
	void (*snap_hdr)(struct bloom_contents *c, struct bloom_snap_hdr *h);
	void (*snap_words)(struct bloom_contents *c, u64 first, u64 n,
			   __le64 *out);
	u64 (*snap_changes)(struct bloom_contents *c);
	int (*load)(struct bloom_contents *c, struct bloom_payload_in *in,
		    const struct bloom_snap_info *info);

	int (*rotate)(struct bloom_contents *c);
	int (*combine)(struct bloom_contents *dst, struct bloom_contents *src,
		       bool intersect);
	int (*estimate)(struct bloom_contents *a, struct bloom_contents *b,
			u64 *intersection, u64 *union_);
	struct bloom_contents *(*halve)(struct bloom_contents *c);
};

/*
 * A namespace's byte budget, the registry's limit. Contents count
 * against it while published; contents that grow charge it for each
 * growth (bloom_budget_grow()). @lock orders every change of @bytes and
 * every retirement of contents, so that no growth is charged after the
 * registry has let go of the contents' bytes. A spinlock: it guards a
 * few additions, never an allocation or a wait.
 */
struct bloom_budget {
	spinlock_t lock;		/* @bytes, @max_bytes, retiring */
	u64 bytes;			/* of published contents */
	u64 max_bytes;
};

/*
 * A net filter's /16 summary (core/summary.c), shared by contents and
 * the half-size contents folded from them, which hold the same keys.
 */
struct bloom_summary {
	refcount_t ref;
	bloom_word_t *words;		/* bloom_summary_words(), 8 or 16 KiB */
};

struct bloom_contents {
	struct rcu_head rcu;
	refcount_t ref;			/* the filter's pointer and holders */
	const struct bloom_kind_ops *ops;
	unsigned long flags;		/* BLOOM_C_* bits */
	u64 generation;			/* WRITE_ONCE under the registry lock */
	/* Set before publication; valid until stopped. */
	struct bloom_budget *budget;
	/*
	 * Contents that are one array of their geometry (plain kinds) set
	 * it in init: the packet path probes it inline, without an
	 * indirect call. NULL for kinds with more than one.
	 */
	struct bloom_bits *array;
	/* BLOOM_F_SUMMARY: set before publication, as long as the contents. */
	struct bloom_summary *summary;
	struct bloom_core core;		/* the geometry; key type and seed */
};

#define BLOOM_C_FULL_WARNED	0	/* over-capacity warning given */
#define BLOOM_C_RETIRED		1	/* no longer published: no new work */
#define BLOOM_C_LENGTHS_WARNED	2	/* more prefix lengths than sized for */
#define BLOOM_C_KIND		8	/* first bit a kind may use */

/* Set up freshly allocated (zeroed) contents: one reference. */
static inline void bloom_contents_init(struct bloom_contents *c,
				       const struct bloom_kind_ops *ops,
				       const struct bloom_core *core)
{
	c->core = *core;
	c->ops = ops;
	refcount_set(&c->ref, 1);
}

/* memory.c */
void *bloom_array_alloc(size_t size);
int bloom_budget_room(const struct bloom_budget *b, size_t more);
int bloom_budget_check(struct bloom_contents *c, size_t more);
int bloom_budget_grow(struct bloom_contents *c, size_t more,
		      void (*publish)(struct bloom_contents *c, void *arg),
		      void *arg);

/* contents.c */
struct bloom_contents *bloom_contents_new(const struct bloom_geom *g);
void bloom_contents_free(struct bloom_contents *c);
void bloom_contents_put(struct bloom_contents *c);
size_t bloom_contents_bytes(const struct bloom_geom *g);
size_t bloom_contents_size(const struct bloom_contents *c);
size_t bloom_contents_snap_bytes(const struct bloom_snap_info *info);
void bloom_contents_start(struct bloom_contents *c);
void bloom_contents_retire(struct bloom_contents *c);
void bloom_contents_stop(struct bloom_contents *c);
void bloom_contents_unpublish(struct bloom_contents *c);
int bloom_contents_report(struct bloom_contents *c, struct bloom_report *r);
int bloom_contents_combine(struct bloom_contents *dst,
			   struct bloom_contents *src, bool intersect);
int bloom_contents_estimate(struct bloom_contents *a, struct bloom_contents *b,
			    u64 *intersection, u64 *union_);
struct bloom_contents *bloom_contents_halve(struct bloom_contents *c);
int bloom_contents_rotate(struct bloom_contents *c);
int bloom_contents_del(struct bloom_contents *c, u64 h);
int bloom_contents_make_room(struct bloom_contents *c, u32 n);
int bloom_contents_stage(struct bloom_contents *c, u32 i,
			 struct bloom_stage_report *s);

/* 0 if contents @c have operation @op, else the one errno for lacking it. */
#define bloom_contents_has(c, op)	((c)->ops->op ? 0 : -EOPNOTSUPP)

/* kinds/plain.c: the common case, called without an indirect branch. */
INDIRECT_CALLABLE_DECLARE(int bloom_plain_add(struct bloom_contents *c, u64 h,
					      int plen));
extern const struct bloom_kind_ops bloom_plain_ops, bloom_counting_ops;
/* kinds/aging.c */
extern const struct bloom_kind_ops bloom_aging_ops;
/* kinds/scalable.c */
extern const struct bloom_kind_ops bloom_scalable_ops;
/* kinds/cuckoo.c */
extern const struct bloom_kind_ops bloom_cuckoo_ops;
/* kinds/fuse.c */
extern const struct bloom_kind_ops bloom_fuse_ops;

/*
 * A net key is being added: its /16s may hold it from now on. Before
 * any bit of the key: a reader that copies the array, then (smp_rmb())
 * the summary, as SAVE does, finds the /16 of every key it copied.
 */
static inline void bloom_contents_note_net(struct bloom_contents *c,
					   const struct bloom_key_net *k)
{
	if (c->summary) {
		bloom_summary_note(c->summary->words, &c->core.g, k);
		smp_wmb();	/* the /16, then the key's bits */
	}
}

/*
 * May some prefix of @c hold @addr? False answers a net lookup in one
 * word, lockless (core/summary.c); true says walk the lengths.
 */
static inline bool bloom_contents_net_may_hold(struct bloom_contents *c,
					       const u8 *addr)
{
	return !c->summary ||
	       bloom_summary_test(c->summary->words, &c->core.g, addr);
}

/**
 * bloom_contents_test() - is a hash present? Under rcu_read_lock()
 * @c: contents
 * @h: bloom_hash() of the key
 *
 * Return: true if the key may be present.
 */
static inline bool bloom_contents_test(struct bloom_contents *c, u64 h)
{
	/* One array: as cheap as a filter was before it had kinds. */
	if (likely(c->array))
		return bloom_test_hash(&c->core, c->array, h);
	return c->ops->test(c, h);
}

/**
 * bloom_contents_add() - add a hash, under rcu_read_lock()
 * @c: contents
 * @h: bloom_hash() of the key
 * @plen: a net key's prefix length, or -1
 *
 * Return: 1 if it was present, 0 if added, -ENOSPC if new and the
 * contents are full (not added), -EOPNOTSUPP for static contents.
 */
static inline int bloom_contents_add(struct bloom_contents *c, u64 h,
				     int plen)
{
	if (unlikely(!c->ops->add))
		return -EOPNOTSUPP;
	return INDIRECT_CALL_1(c->ops->add, bloom_plain_add, c, h, plen);
}

/*
 * An add that stores, with a value for contents that keep them (the
 * caller checked it fits their value_bits); else as above.
 */
static inline int bloom_contents_add_value(struct bloom_contents *c, u64 h,
					   int plen, u32 value)
{
	if (c->ops->add_copy)
		return c->ops->add_copy(c, h, plen, value);
	return bloom_contents_add(c, h, plen);
}

/* An add that stores, for kinds that keep copies; else as above. */
static inline int bloom_contents_add_copy(struct bloom_contents *c, u64 h,
					  int plen)
{
	return bloom_contents_add_value(c, h, plen, 0);
}

/**
 * bloom_contents_value() - is a hash present, and with what value?
 * @c: contents, under rcu_read_lock()
 * @h: bloom_hash() of the key
 * @value: set to the key's value: a static map's or a cuckoo table's
 *	with values; 0 for others, and when absent
 *
 * Return: true if the key may be present.
 */
static inline bool bloom_contents_value(struct bloom_contents *c, u64 h,
					u32 *value)
{
	if (c->ops->value)
		return c->ops->value(c, h, value);
	*value = 0;
	return bloom_contents_test(c, h);
}

static inline void bloom_contents_plens(struct bloom_contents *c,
					u64 plens[BLOOM_PLEN_WORDS])
{
	c->ops->plens(c, plens);
}

#endif /* _BLOOM_KIND_H */
