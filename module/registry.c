// SPDX-License-Identifier: GPL-2.0
/*
 * Named filters, one registry per network namespace. See registry.h for
 * the lifetime rules.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include "registry.h"

static u64 max_filters = 1024;
module_param(max_filters, ullong, 0444);
MODULE_PARM_DESC(max_filters, "Default limit of filters per network namespace");

static u64 max_bytes = 1ULL << 30;
module_param(max_bytes, ullong, 0444);
MODULE_PARM_DESC(max_bytes, "Default limit of filter memory per network namespace");

static unsigned int bloom_net_id __read_mostly;

struct bloom_net *bloom_net(struct net *net)
{
	return net_generic(net, bloom_net_id);
}

/**
 * bloom_name_check() - is @name a valid filter name?
 * @name: a buffer of BLOOM_NAME_MAX bytes
 *
 * Return: 0 when NUL-terminated, non-empty, printable ASCII without
 * spaces or '/'; else -EINVAL.
 */
int bloom_name_check(const char *name)
{
	size_t len = strnlen(name, BLOOM_NAME_MAX), i;

	if (!len || len == BLOOM_NAME_MAX)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (name[i] <= ' ' || name[i] > '~' || name[i] == '/')
			return -EINVAL;
	return 0;
}

static size_t contents_size(const struct bloom_contents *c)
{
	return struct_size(c, bits.words, c->core.nwords);
}

/* New, empty contents for a valid geometry; NULL without memory. */
struct bloom_contents *bloom_contents_new(const struct bloom_geom *g)
{
	struct bloom_contents *c;
	struct bloom_core core;

	bloom_core_init(&core, g);
	/* Charged to the caller's memory cgroup. */
	c = kvzalloc(struct_size(c, bits.words, core.nwords),
		     GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (c)
		c->core = core;
	return c;
}

void bloom_contents_free(struct bloom_contents *c)
{
	kvfree(c);
}

static void filter_free_rcu(struct rcu_head *rcu)
{
	struct bloom_filter *f = container_of(rcu, struct bloom_filter, rcu);

	/* A grace period has passed: no reader can still see any of these. */
	kvfree(rcu_dereference_protected(f->contents, 1));
	kfree(rcu_dereference_protected(f->name, 1));
	free_percpu(f->stats);
	kfree(f);
	module_put(THIS_MODULE);
}

/* Drop a reference; the last one frees the filter after a grace period. */
void bloom_filter_put(struct bloom_filter *f)
{
	if (refcount_dec_and_test(&f->ref))
		call_rcu(&f->rcu, filter_free_rcu);
}

/* Under RCU or bn->lock. */
static struct bloom_filter *find(struct bloom_net *bn, const char *name)
{
	struct bloom_filter *f;

	list_for_each_entry_rcu(f, &bn->filters, list,
				lockdep_is_held(&bn->lock)) {
		const struct bloom_name *n;

		n = rcu_dereference_check(f->name, lockdep_is_held(&bn->lock));
		if (!strcmp(n->s, name))
			return f;
	}
	return NULL;
}

/**
 * bloom_lookup() - find a filter and take a transient reference
 * @net: the namespace
 * @name: the filter's name
 *
 * Callable from any context. Release with bloom_filter_put().
 *
 * Return: the filter, or ERR_PTR(-ENOENT).
 */
struct bloom_filter *bloom_lookup(struct net *net, const char *name)
{
	struct bloom_filter *f;

	rcu_read_lock();
	f = find(bloom_net(net), name);
	if (f && !refcount_inc_not_zero(&f->ref))
		f = NULL;
	rcu_read_unlock();
	return f ?: ERR_PTR(-ENOENT);
}

/* Under bn->lock: the filter named @name, or an error pointer. */
static struct bloom_filter *find_locked(struct bloom_net *bn,
					const char *name)
{
	struct bloom_filter *f;

	lockdep_assert_held(&bn->lock);
	f = find(bn, name);
	return f ?: ERR_PTR(-ENOENT);
}

static struct bloom_contents *contents_locked(struct bloom_net *bn,
					      struct bloom_filter *f)
{
	return rcu_dereference_protected(f->contents,
					 lockdep_is_held(&bn->lock));
}

/* Is there room for @more bytes? */
static int charge(struct bloom_net *bn, size_t more)
{
	if (more > bn->max_bytes)
		return -E2BIG;
	if (more > bn->max_bytes - min(bn->bytes, bn->max_bytes))
		return -ENOSPC;
	return 0;
}

/*
 * Under bn->lock: make @c the contents of @f. Readers see the old or the
 * new contents; the old are freed after a grace period.
 */
static int replace_contents(struct bloom_net *bn, struct bloom_filter *f,
			    struct bloom_contents *c)
{
	struct bloom_contents *old = contents_locked(bn, f);
	size_t was = contents_size(old), now = contents_size(c);
	int err = now > was ? charge(bn, now - was) : 0;

	if (err)
		return err;
	bn->bytes = bn->bytes - was + now;
	c->generation = ++bn->generation;
	rcu_assign_pointer(f->contents, c);
	kvfree_rcu(old, rcu);
	return 0;
}

static struct bloom_filter *filter_alloc(const char *name)
{
	struct bloom_filter *f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	struct bloom_name *n = kzalloc(sizeof(*n), GFP_KERNEL_ACCOUNT);

	if (!f || !n)
		goto free;
	f->stats = alloc_percpu_gfp(struct bloom_pcpu_stats,
				    GFP_KERNEL_ACCOUNT);
	if (!f->stats)
		goto free;
	strscpy(n->s, name, sizeof(n->s));
	RCU_INIT_POINTER(f->name, n);
	refcount_set(&f->ref, 1);	/* the registry's */
	return f;
free:
	kfree(n);
	kfree(f);
	return NULL;
}

/* Under bn->lock: list a new filter @name holding @c. */
static int add_filter(struct bloom_net *bn, const char *name,
		      struct bloom_contents *c)
{
	struct bloom_filter *f;
	int err;

	if (bn->nfilters >= bn->max_filters)
		return -ENOSPC;
	err = charge(bn, contents_size(c));
	if (err)
		return err;
	f = filter_alloc(name);
	if (!f)
		return -ENOMEM;
	/* Freeing a filter runs module code: hold the module until then. */
	__module_get(THIS_MODULE);
	c->generation = ++bn->generation;
	RCU_INIT_POINTER(f->contents, c);
	bn->nfilters++;
	bn->bytes += contents_size(c);
	list_add_tail_rcu(&f->list, &bn->filters);
	return 0;
}

/**
 * bloom_registry_room() - would a filter of this geometry fit the limits?
 * @net: the namespace
 * @g: a valid geometry
 *
 * A hint taken before allocating, so that a request over the budget
 * fails with its own error rather than -ENOMEM; publishing checks again.
 *
 * Return: 0, -ENOSPC or -E2BIG.
 */
int bloom_registry_room(struct net *net, const struct bloom_geom *g)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_contents *c;
	struct bloom_core core;
	int err;

	bloom_core_init(&core, g);
	mutex_lock(&bn->lock);
	err = bn->nfilters >= bn->max_filters ? -ENOSPC :
	      charge(bn, struct_size(c, bits.words, core.nwords));
	mutex_unlock(&bn->lock);
	return err;
}

/**
 * bloom_registry_publish() - list @c under @name, or replace its contents
 * @net: the namespace
 * @name: a valid name
 * @c: contents, owned by the registry from now on
 * @replace: an existing filter of the same key type gets @c; without it
 *	an existing filter is -EEXIST
 *
 * Return: 0, -EEXIST, -EINVAL (key type differs), -ENOSPC, -E2BIG,
 * -ENOMEM. On error @c has been freed.
 */
int bloom_registry_publish(struct net *net, const char *name,
			   struct bloom_contents *c, bool replace)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f;
	int err;

	mutex_lock(&bn->lock);
	f = find(bn, name);
	if (!f)
		err = add_filter(bn, name, c);
	else if (!replace)
		err = -EEXIST;
	else if (contents_locked(bn, f)->core.g.key_type != c->core.g.key_type)
		err = -EINVAL;
	else
		err = replace_contents(bn, f, c);
	mutex_unlock(&bn->lock);
	if (err)
		bloom_contents_free(c);
	return err;
}

/**
 * bloom_registry_create() - create an empty filter
 * @net: the namespace
 * @name: a valid name
 * @g: a valid geometry; its seed is made random unless fixed
 *
 * Return: as bloom_registry_publish().
 */
int bloom_registry_create(struct net *net, const char *name,
			  struct bloom_geom *g)
{
	struct bloom_contents *c;
	int err = bloom_registry_room(net, g);

	if (err)
		return err;
	if (!(g->flags & BLOOM_F_FIXED_SEED))
		g->seed = get_random_u64();
	c = bloom_contents_new(g);
	if (!c)
		return -ENOMEM;
	return bloom_registry_publish(net, name, c, false);
}
EXPORT_SYMBOL_GPL(bloom_registry_create);

/**
 * bloom_registry_destroy() - remove a filter nobody uses
 * @net: the namespace
 * @name: the filter
 *
 * Return: 0, -ENOENT, or -EBUSY while a rule or in-kernel user holds it.
 */
int bloom_registry_destroy(struct net *net, const char *name)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f;
	int err = 0;

	mutex_lock(&bn->lock);
	f = find_locked(bn, name);
	if (IS_ERR(f)) {
		err = PTR_ERR(f);
	} else if (atomic_cmpxchg(&f->users, 0, -1)) {
		/* users is now -1: bloom_get() can no longer take it. */
		err = -EBUSY;
	} else {
		list_del_rcu(&f->list);
		bn->nfilters--;
		bn->bytes -= contents_size(contents_locked(bn, f));
	}
	mutex_unlock(&bn->lock);
	if (!err)
		bloom_filter_put(f);
	return err;
}
EXPORT_SYMBOL_GPL(bloom_registry_destroy);

/**
 * bloom_registry_rename() - give a filter a new name
 * @net: the namespace
 * @name: the filter
 * @new_name: a valid name not in use
 *
 * Rules keep working: they hold the filter, not the name.
 *
 * Return: 0, -ENOENT, -EEXIST, -ENOMEM.
 */
int bloom_registry_rename(struct net *net, const char *name,
			  const char *new_name)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_name *n = kzalloc(sizeof(*n), GFP_KERNEL_ACCOUNT);
	struct bloom_filter *f;
	int err = 0;

	if (!n)
		return -ENOMEM;
	strscpy(n->s, new_name, sizeof(n->s));
	mutex_lock(&bn->lock);
	f = find_locked(bn, name);
	if (IS_ERR(f)) {
		err = PTR_ERR(f);
	} else if (find(bn, new_name)) {
		err = -EEXIST;
	} else {
		struct bloom_name *old;

		old = rcu_dereference_protected(f->name,
						lockdep_is_held(&bn->lock));
		/* Readers comparing names see the old or the new one whole. */
		rcu_assign_pointer(f->name, n);
		kfree_rcu(old, rcu);
		n = NULL;
	}
	mutex_unlock(&bn->lock);
	kfree(n);
	return err;
}
EXPORT_SYMBOL_GPL(bloom_registry_rename);

/**
 * bloom_registry_swap() - exchange the contents of two filters
 * @net: the namespace
 * @a: one filter
 * @b: another, of the same key type (geometry may differ)
 *
 * Rules on either filter see the other's contents from now on; each
 * filter changes atomically for its readers.
 *
 * Return: 0, -ENOENT, -EINVAL (same filter or key types differ).
 */
int bloom_registry_swap(struct net *net, const char *a, const char *b)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_contents *ca, *cb;
	struct bloom_filter *fa, *fb;
	int err = 0;

	mutex_lock(&bn->lock);
	fa = find_locked(bn, a);
	fb = find_locked(bn, b);
	if (IS_ERR(fa) || IS_ERR(fb)) {
		err = -ENOENT;
		goto unlock;
	}
	ca = contents_locked(bn, fa);
	cb = contents_locked(bn, fb);
	if (fa == fb || ca->core.g.key_type != cb->core.g.key_type) {
		err = -EINVAL;
		goto unlock;
	}
	rcu_assign_pointer(fa->contents, cb);
	rcu_assign_pointer(fb->contents, ca);
unlock:
	mutex_unlock(&bn->lock);
	return err;
}
EXPORT_SYMBOL_GPL(bloom_registry_swap);

/**
 * bloom_registry_clear() - empty a filter, keeping its geometry and seed
 * @net: the namespace
 * @name: the filter
 *
 * Return: 0, -ENOENT, -ENOMEM.
 */
int bloom_registry_clear(struct net *net, const char *name)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_contents *c = NULL;
	struct bloom_filter *f;
	int err;

	mutex_lock(&bn->lock);
	f = find_locked(bn, name);
	err = PTR_ERR_OR_ZERO(f);
	if (!err)
		c = bloom_contents_new(&contents_locked(bn, f)->core.g);
	if (!err && !c)
		err = -ENOMEM;
	if (!err)
		err = replace_contents(bn, f, c);
	mutex_unlock(&bn->lock);
	return err;
}
EXPORT_SYMBOL_GPL(bloom_registry_clear);

/**
 * bloom_registry_halve() - fold a filter to half its size
 * @net: the namespace
 * @name: the filter; its probe range must be a power of two
 *
 * Adds racing with the fold may be lost; nothing added before it is.
 *
 * Return: 0, -ENOENT, -EINVAL (cannot be halved), -ENOMEM.
 */
int bloom_registry_halve(struct net *net, const char *name)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_contents *old, *c;
	struct bloom_filter *f;
	struct bloom_geom g;
	int err;

	mutex_lock(&bn->lock);
	f = find_locked(bn, name);
	err = PTR_ERR_OR_ZERO(f);
	if (err)
		goto unlock;
	old = contents_locked(bn, f);
	err = bloom_halve_geom(&old->core.g, &g);
	if (err)
		goto unlock;
	c = bloom_contents_new(&g);
	if (!c) {
		err = -ENOMEM;
		goto unlock;
	}
	bloom_halve(&old->core, &old->bits, &c->core, &c->bits);
	err = replace_contents(bn, f, c);
unlock:
	mutex_unlock(&bn->lock);
	return err;
}
EXPORT_SYMBOL_GPL(bloom_registry_halve);

/**
 * bloom_registry_combine() - union or intersect @src into @dst
 * @net: the namespace
 * @dst: the filter changed in place
 * @src: the filter read; same geometry and seed as @dst
 * @intersect: intersect rather than unite
 *
 * Return: 0, -ENOENT, -EINVAL (geometry or seed differ).
 */
int bloom_registry_combine(struct net *net, const char *dst,
			   const char *src, bool intersect)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_contents *cd, *cs;
	struct bloom_filter *fd, *fs;
	int err = -ENOENT;

	mutex_lock(&bn->lock);
	fd = find_locked(bn, dst);
	fs = find_locked(bn, src);
	if (IS_ERR(fd) || IS_ERR(fs))
		goto unlock;
	cd = contents_locked(bn, fd);
	cs = contents_locked(bn, fs);
	err = bloom_geom_same(&cd->core, &cs->core);
	if (err)
		goto unlock;
	if (intersect)
		bloom_intersect(&cd->core, &cd->bits, &cs->bits);
	else
		bloom_union(&cd->core, &cd->bits, &cs->bits);
unlock:
	mutex_unlock(&bn->lock);
	return err;
}
EXPORT_SYMBOL_GPL(bloom_registry_combine);

/**
 * bloom_registry_limits() - read, or set then read, a namespace's limits
 * @net: the namespace
 * @l: in: the new maxima when @set; out: maxima and usage
 * @set: change the maxima (existing filters are kept)
 */
void bloom_registry_limits(struct net *net, struct bloom_limits *l, bool set)
{
	struct bloom_net *bn = bloom_net(net);

	mutex_lock(&bn->lock);
	if (set) {
		bn->max_filters = l->max_filters;
		bn->max_bytes = l->max_bytes;
	}
	l->max_filters = bn->max_filters;
	l->max_bytes = bn->max_bytes;
	l->filters = bn->nfilters;
	l->bytes = bn->bytes;
	mutex_unlock(&bn->lock);
}
EXPORT_SYMBOL_GPL(bloom_registry_limits);

/**
 * bloom_filter_report() - stats of a filter, for INFO and /proc/net/bloom
 * @f: the filter
 * @c: its contents, held (see bloom_registry_read())
 * @r: filled in
 *
 * Walks the whole array: process context.
 *
 * Return: 0 or -ENOMEM.
 */
int bloom_filter_report(struct bloom_filter *f, struct bloom_contents *c,
			struct bloom_report *r)
{
	u64 *hist = kmalloc_array(BLOOM_HIST_WORDS, sizeof(u64), GFP_KERNEL);
	int cpu;

	if (!hist)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	bloom_stats(&c->core, &c->bits, hist, &r->st);
	kfree(hist);
	/* Per-CPU counters: a sum racing with updates is only approximate. */
	for_each_possible_cpu(cpu) {
		const struct bloom_pcpu_stats *s = per_cpu_ptr(f->stats, cpu);

		r->hits += READ_ONCE(s->hits);
		r->misses += READ_ONCE(s->misses);
	}
	r->users = max(atomic_read(&f->users), 0);
	return 0;
}

/**
 * bloom_registry_read() - look at one or two filters with the registry held
 * @net: the namespace
 * @name: the filter
 * @other: a second filter, or NULL
 * @fn: called with both filters' contents, which cannot change pointer
 *	until it returns; it may sleep (copy to user, walk a large array)
 * @arg: passed to @fn
 *
 * Return: -ENOENT if a filter is missing, else what @fn returns.
 */
int bloom_registry_read(struct net *net, const char *name, const char *other,
			bloom_read_fn fn, void *arg)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f, *g = NULL;
	int err = -ENOENT;

	mutex_lock(&bn->lock);
	f = find(bn, name);
	if (other)
		g = find(bn, other);
	if (f && (!other || g))
		err = fn(f, contents_locked(bn, f),
			 g ? contents_locked(bn, g) : NULL, arg);
	mutex_unlock(&bn->lock);
	return err;
}

/**
 * bloom_registry_for_each() - visit every filter, in creation order
 * @net: the namespace
 * @fn: as for bloom_registry_read(), with @other NULL; non-zero stops
 * @arg: passed to @fn
 *
 * Return: 0, or what @fn returned to stop.
 */
int bloom_registry_for_each(struct net *net, bloom_read_fn fn, void *arg)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f;
	int err = 0;

	mutex_lock(&bn->lock);
	list_for_each_entry(f, &bn->filters, list) {
		err = fn(f, contents_locked(bn, f), NULL, arg);
		if (err)
			break;
	}
	mutex_unlock(&bn->lock);
	return err;
}

static int __net_init bloom_net_init(struct net *net)
{
	struct bloom_net *bn = bloom_net(net);

	mutex_init(&bn->lock);
	INIT_LIST_HEAD(&bn->filters);
	bn->max_filters = max_filters;
	bn->max_bytes = max_bytes;
	return bloom_proc_net_init(net);
}

/*
 * The namespace is going away. Rules of its tables may still hold
 * filters (their pernet exit can run after ours): unlist every filter
 * and drop the registry's reference; the last holder frees it.
 */
static void __net_exit bloom_net_exit(struct net *net)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f, *tmp;
	LIST_HEAD(gone);

	bloom_proc_net_exit(net);
	mutex_lock(&bn->lock);
	list_for_each_entry_safe(f, tmp, &bn->filters, list) {
		list_del_rcu(&f->list);
		list_add(&f->list, &gone);
	}
	bn->nfilters = 0;
	bn->bytes = 0;
	mutex_unlock(&bn->lock);
	synchronize_rcu();	/* no lookup still walks the moved entries */
	list_for_each_entry_safe(f, tmp, &gone, list)
		bloom_filter_put(f);
}

static struct pernet_operations bloom_net_ops = {
	.init = bloom_net_init,
	.exit = bloom_net_exit,
	.id = &bloom_net_id,
	.size = sizeof(struct bloom_net),
};

int bloom_registry_init(void)
{
	return register_pernet_subsys(&bloom_net_ops);
}

void bloom_registry_exit(void)
{
	unregister_pernet_subsys(&bloom_net_ops);
	rcu_barrier();	/* every filter_free_rcu() has run */
}
