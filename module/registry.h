/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-namespace registry of named filters, inside bloom.ko.
 *
 * Lifetime: a filter is freed after an RCU grace period once its last
 * reference is gone. The registry holds one reference while the filter
 * is listed; each operation in flight holds one; "users" (rules and
 * in-kernel holders from bloom_get()) hold one each and also count in
 * @users, which makes destroy and rename fail with EBUSY. Destroy and
 * rename set @users to -1 while they act, so that no new user can appear
 * after the check.
 *
 * Contents (geometry and bits) hang off an RCU pointer: clear, swap,
 * restore and halve publish new contents and drop the old ones, which
 * are freed after a grace period once their last reference is gone.
 * Lockless readers (the packet path) see one or the other, never a mix;
 * readers that sleep (INFO, SAVE, /proc/net/bloom) hold a reference to
 * the contents instead of the registry lock.
 *
 * Aging contents (core.g.gens = G > 0, see aging.c) hold G + 1 arrays of
 * the same geometry back to back from @bits, @age.stride bytes apart:
 * G live generations and one spare kept empty. Which array is the newest,
 * the order of the others and their birth times are in @age.view, a small
 * RCU-published struct replaced whole by each rotation; an array dropped
 * by a rotation is only emptied a grace period later, once no reader can
 * still be using the view that listed it. Rotations of a contents are
 * serialised by @age.lock. A filter's @age_work drives the rotations of
 * whatever contents it has; it is armed when aging contents are
 * published and cancelled, for good, when the filter is unlisted
 * (destroy, namespace exit), before the registry's reference is dropped.
 */
#ifndef _BLOOM_REGISTRY_H
#define _BLOOM_REGISTRY_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "core/bloom_core.h"
#include "bloom.h"

/* Which array is which generation; replaced whole, under RCU. */
struct bloom_age_view {
	struct rcu_head rcu;
	u8 live[BLOOM_GENERATIONS_MAX];	/* array indexes, newest first */
	u8 spare;			/* empty, not probed */
	u64 birth[BLOOM_GENERATIONS_MAX + 1];	/* ns, boot time, by array */
};

struct bloom_aging {
	struct mutex lock;		/* serialises rotations */
	struct bloom_age_view __rcu *view;	/* NULL when plain */
	size_t stride;			/* bytes from one array to the next */
	u64 rotations;			/* WRITE_ONCE under @lock */
};

struct bloom_contents {
	struct rcu_head rcu;
	refcount_t ref;			/* the filter's pointer and holders */
	spinlock_t del_lock;		/* bloom_contents_del() */
	unsigned long flags;		/* BLOOM_C_* bits */
	u64 generation;			/* WRITE_ONCE under bn->lock */
	/* While halve folds these contents: adds go there too (RCU). */
	struct bloom_contents __rcu *halved;
	struct bloom_aging age;
	struct bloom_core core;
	struct bloom_bits bits;		/* flexible: last */
};

#define BLOOM_C_FULL_WARNED	0	/* over-capacity warning given */
#define BLOOM_C_ROTATE_DUE	1	/* newest full: rotation requested */

struct bloom_name {
	struct rcu_head rcu;
	char s[BLOOM_NAME_MAX];
};

struct bloom_pcpu_stats {
	u64 hits;
	u64 misses;
};

struct bloom_filter {
	struct list_head list;		/* bloom_net.filters; RCU readers */
	refcount_t ref;
	atomic_t users;			/* -1 while destroyed or renamed */
	struct bloom_name __rcu *name;
	struct bloom_contents __rcu *contents;
	struct bloom_pcpu_stats __percpu *stats;
	struct delayed_work age_work;	/* aging.c */
	bool unlisted;			/* no more age_work: WRITE_ONCE */
	bool armed;			/* age_work was queued: bn->lock */
	unsigned long full_warned;	/* jiffies of the last "full" line */
	struct rcu_head rcu;
};

struct bloom_net {
	/*
	 * Serialises every change to the registry: the list, names,
	 * contents pointers and the accounting below. Lookups by name
	 * traverse the list under RCU instead, and nothing that waits on
	 * userspace or walks a whole array for a reader holds it.
	 */
	struct mutex lock;
	struct list_head filters;
	u64 nfilters;
	u64 bytes;			/* contents of listed filters */
	u64 max_filters;
	u64 max_bytes;
	/* What the maxima may be raised to without the host's say-so. */
	u64 ceil_filters;
	u64 ceil_bytes;
	u64 generation;
};

struct bloom_limits {
	u64 max_filters, max_bytes, filters, bytes;
};

struct bloom_net *bloom_net(struct net *net);
int bloom_registry_init(void);
void bloom_registry_exit(void);

int bloom_name_check(const char *name);
struct bloom_filter *bloom_lookup(struct net *net, const char *name);
void bloom_filter_put(struct bloom_filter *f);

int bloom_registry_prepare(struct net *net, const char *name,
			   struct bloom_geom *g, struct bloom_contents **c);
int bloom_registry_create(struct net *net, const char *name,
			  struct bloom_geom *g);
int bloom_registry_destroy(struct net *net, const char *name);
int bloom_registry_rename(struct net *net, const char *name,
			  const char *new_name);
int bloom_registry_swap(struct net *net, const char *a, const char *b);
int bloom_registry_clear(struct net *net, const char *name);
int bloom_registry_halve(struct net *net, const char *name);
int bloom_registry_combine(struct net *net, const char *dst,
			   const char *src, bool intersect);
int bloom_registry_room(struct net *net, const struct bloom_geom *g,
			const char *replacing);
int bloom_registry_publish(struct net *net, const char *name,
			   struct bloom_contents *c, bool replace);
int bloom_registry_limits(struct net *net, struct bloom_limits *l, bool set,
			  bool host);
int bloom_registry_rotate(struct net *net, const char *name);

/*
 * Called with both filters' contents held, without the registry lock:
 * the contents stay allocated (they may meanwhile be replaced under the
 * name); it may sleep.
 */
typedef int (*bloom_read_fn)(struct bloom_filter *f, struct bloom_contents *c,
			     struct bloom_contents *other, void *arg);
int bloom_registry_read(struct net *net, const char *name, const char *other,
			bloom_read_fn fn, void *arg);

/* Called under rcu_read_lock(): must not sleep. Non-zero stops. */
typedef int (*bloom_name_fn)(const char *name, void *arg);
int bloom_registry_names(struct net *net, bloom_name_fn fn, void *arg);
struct bloom_filter *bloom_registry_nth(struct net *net, loff_t n);

/* contents.c */
size_t bloom_contents_bytes(const struct bloom_core *core);
struct bloom_contents *bloom_contents_new(const struct bloom_geom *g);
void bloom_contents_free(struct bloom_contents *c);
struct bloom_contents *bloom_contents_get(struct bloom_filter *f);
void bloom_contents_put(struct bloom_contents *c);
size_t bloom_contents_size(const struct bloom_contents *c);
int bloom_contents_del(struct bloom_contents *c, u64 h);
void bloom_contents_mirror(struct bloom_contents *c, struct bloom_contents *half,
			   const u64 *h, u32 n);

/**
 * bloom_contents_add() - add a hash to contents, under rcu_read_lock()
 * @c: the contents
 * @b: the array to add to: @c->bits, or the newest generation's
 * @h: bloom_hash() of the key
 *
 * While a halve folds @c, the key also goes to the half-size contents
 * (see bloom_registry_halve()): a pointer load and a branch otherwise.
 *
 * Return: as bloom_add_hash().
 */
static inline bool bloom_contents_add(struct bloom_contents *c,
				      struct bloom_bits *b, u64 h)
{
	struct bloom_contents *half = rcu_dereference(c->halved);

	/* First there: whatever a test finds in @c is in @half too. */
	if (unlikely(half))
		bloom_contents_mirror(c, half, &h, 1);
	return bloom_add_hash(&c->core, b, h);
}

struct bloom_gen_report {
	u64 age_ms;
	struct bloom_stats st;
};

struct bloom_report {
	struct bloom_stats st;
	u64 hits, misses;
	u32 users;
	u64 rotations;			/* aging */
	struct bloom_gen_report gen[BLOOM_GENERATIONS_MAX];	/* newest first */
};

/* aging.c */
static inline bool bloom_aged(const struct bloom_contents *c)
{
	return c->core.g.gens;
}

/* Array @i (0..G) of aging contents; plain contents have only 0. */
static inline struct bloom_bits *bloom_age_array(struct bloom_contents *c,
						 unsigned int i)
{
	return (struct bloom_bits *)((u8 *)&c->bits + i * c->age.stride);
}

int bloom_age_init(struct bloom_contents *c);
void bloom_age_free(struct bloom_contents *c);
int bloom_age_find(struct bloom_contents *c, u64 h, struct bloom_bits **newest);
u64 bloom_age_rotations(struct bloom_contents *c);
void bloom_plens_rcu(struct bloom_contents *c, u64 plens[BLOOM_PLEN_WORDS]);
void bloom_age_kick(struct bloom_filter *f, struct bloom_contents *c);
int bloom_age_rotate(struct bloom_contents *c);
void bloom_age_work_init(struct bloom_filter *f);
void bloom_age_arm(struct bloom_filter *f, struct bloom_contents *c);
void bloom_age_stop(struct bloom_filter *f);
void bloom_age_cancel(struct bloom_filter *f);
void bloom_age_report(struct bloom_contents *c, struct bloom_report *r,
		      u64 *hist);

void bloom_age_snap_hdr(struct bloom_contents *c, struct bloom_snap_hdr *h);
void bloom_age_snap_words(struct bloom_contents *c, u64 first, u64 n,
			  __le64 *out);
int bloom_age_restore(struct bloom_contents *c,
		      const struct bloom_snap_gen *gens);

int bloom_filter_report(struct bloom_filter *f, struct bloom_contents *c,
			struct bloom_report *r);

int bloom_proc_net_init(struct net *net);
void bloom_proc_net_exit(struct net *net);

#endif /* _BLOOM_REGISTRY_H */
