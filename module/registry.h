/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-namespace registry of named filters, inside bloom.ko. It keeps
 * names, lifetime, references, limits and the publication of contents;
 * what the contents are is their kind's business (kind.h).
 *
 * Lifetime: a filter is freed after an RCU grace period once its last
 * reference is gone. The registry holds one reference while the filter
 * is listed; each operation in flight holds one; "users" (rules and
 * in-kernel holders from bloom_get()) hold one each and also count in
 * @users, which makes destroy and rename fail with EBUSY. Destroy and
 * rename set @users to -1 while they act, so that no new user can appear
 * after the check.
 *
 * Contents hang off an RCU pointer: clear, swap, restore and halve
 * publish new contents and drop the old ones, which are freed after a
 * grace period once their last reference is gone. Lockless readers (the
 * packet path) see one or the other, never a mix; readers that sleep
 * (INFO, SAVE, /proc/net/bloom) hold a reference to the contents instead
 * of the registry lock. Contents are started when published and retired
 * and stopped when no filter points at them any more (kind.h).
 */
#ifndef _BLOOM_REGISTRY_H
#define _BLOOM_REGISTRY_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <net/net_namespace.h>
#include "kind.h"
#include "bloom.h"

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
	/*
	 * Packets matched per value (BLOOM_IOC_VALUE_HITS): value_mask + 1
	 * counters per CPU, for a filter created with values of at most
	 * BLOOM_VALUE_HITS_BITS; else NULL. Both are set before the filter
	 * is listed and never change: the packet path reads them bare.
	 */
	u64 __percpu *value_hits;
	u32 value_mask;
	unsigned long full_warned;	/* jiffies of the last "full" line */
	u32 id;				/* in bloom_ids; fixed for life */
	possible_net_t net;		/* where it is listed */
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
	u64 max_filters;
	struct bloom_budget budget;	/* bytes: its own lock, inside @lock */
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
struct bloom_filter *bloom_lookup_id_rcu(struct net *net, u32 id);
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
int bloom_registry_room(struct net *net, size_t need, const char *replacing);
int bloom_registry_publish(struct net *net, const char *name,
			   struct bloom_contents *c, bool replace);
int bloom_registry_limits(struct net *net, struct bloom_limits *l, bool set,
			  bool host);

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

/* api.c: for kfuncs.c, and bloom_warn_lengths() for transfer.c. */
void bloom_warn_lengths(struct bloom_filter *f, struct bloom_contents *c);
int bloom_probe_rcu(struct bloom_filter *f, const void *key, size_t len,
		    bool add);

u32 bloom_filter_value_hits(struct bloom_filter *f, u64 *hits, u32 n);
size_t bloom_value_hits_bytes(const struct bloom_geom *g);
struct bloom_contents *bloom_contents_get(struct bloom_filter *f);
int bloom_filter_report(struct bloom_filter *f, struct bloom_contents *c,
			struct bloom_report *r);

#endif /* _BLOOM_REGISTRY_H */
