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
#include <kunit/visibility.h>
#include "../uapi/bloom_ioctl.h"
#include "registry.h"

static u64 max_filters = 1024;
module_param(max_filters, ullong, 0444);
MODULE_PARM_DESC(max_filters, "Default limit of filters per network namespace");

static u64 max_bytes = 1ULL << 30;
module_param(max_bytes, ullong, 0444);
MODULE_PARM_DESC(max_bytes, "Default limit of filter memory per network namespace");

static unsigned int bloom_net_id __read_mostly;

/*
 * Filter ids, for BPF programs, which hold a number and no reference.
 * One table for every namespace: a device moved to another namespace
 * keeps its XDP program, whose id must then find nothing there rather
 * than that namespace's filter of the same number. Allocated cyclically
 * (an id comes back only after 2^31 more filters) under the xarray's
 * own lock; looked up under RCU.
 */
static DEFINE_XARRAY_ALLOC1(bloom_ids);
static u32 bloom_next_id;

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
EXPORT_SYMBOL_GPL(bloom_name_check);

static void filter_free_rcu(struct rcu_head *rcu)
{
	struct bloom_filter *f = container_of(rcu, struct bloom_filter, rcu);

	/* A grace period has passed: no reader can still see any of these. */
	bloom_contents_put(rcu_dereference_protected(f->contents, 1));
	kfree(rcu_dereference_protected(f->name, 1));
	free_percpu(f->stats);
	free_percpu(f->value_hits);
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

/**
 * bloom_lookup_id_rcu() - find a listed filter by id
 * @net: the namespace
 * @id: the filter's id (INFO, /proc/net/bloom)
 *
 * Under rcu_read_lock(), and valid only inside it: the filter takes no
 * reference, and a destroyed one stays allocated until a grace period
 * after it left the id table.
 *
 * Return: the filter, or NULL.
 */
struct bloom_filter *bloom_lookup_id_rcu(struct net *net, u32 id)
{
	struct bloom_filter *f = xa_load(&bloom_ids, id);

	return f && net_eq(read_pnet(&f->net), net) ? f : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_lookup_id_rcu);

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

/*
 * A filter's keys are fixed for its life: the packet path and the
 * batch commands read the key type and family once, without the lock.
 */
static bool same_keys(const struct bloom_contents *a,
		      const struct bloom_contents *b)
{
	return a->core.g.key_type == b->core.g.key_type &&
	       (a->core.g.flags & BLOOM_F_FAMILY) ==
	       (b->core.g.flags & BLOOM_F_FAMILY);
}

/* Registry changes wait for the lock unless the caller is killed. */
static int lock_registry(struct bloom_net *bn)
{
	return mutex_lock_killable(&bn->lock);
}

/* Under bn->lock: the contents changed in place; chunked SAVEs restart. */
static void bump_generation(struct bloom_net *bn, struct bloom_contents *c)
{
	WRITE_ONCE(c->generation, ++bn->generation);
}

/**
 * bloom_value_hits_bytes() - what a new filter's per-value counters take
 * @g: the geometry of its first contents
 *
 * Return: the bytes of one counter per value per possible CPU, for
 * values of 1 to BLOOM_VALUE_HITS_BITS bits; else 0 (none are kept).
 */
size_t bloom_value_hits_bytes(const struct bloom_geom *g)
{
	if (!g->value_bits || g->value_bits > BLOOM_VALUE_HITS_BITS)
		return 0;
	return (sizeof(u64) << g->value_bits) * num_possible_cpus();
}

/*
 * The bytes a filter holds beside its contents and counts in the budget:
 * its per-value counters, one set per possible CPU.
 */
static size_t filter_bytes(const struct bloom_filter *f)
{
	return f->value_hits ? (size_t)(f->value_mask + 1) * sizeof(u64) *
			       num_possible_cpus() : 0;
}

/*
 * Under bn->lock: count @c in the budget instead of @old (NULL for a new
 * filter, which brings @extra bytes of its own), which is retired at the
 * same time: contents that grow charge the budget under its lock unless
 * retired, so @old's size is final here.
 */
static int account(struct bloom_net *bn, struct bloom_contents *c,
		   struct bloom_contents *old, size_t extra)
{
	struct bloom_budget *b = &bn->budget;
	size_t was, now = bloom_contents_size(c) + extra;
	int err;

	spin_lock(&b->lock);
	was = old ? bloom_contents_size(old) : 0;
	err = now > was ? bloom_budget_room(b, now - was) : 0;
	if (!err) {
		b->bytes = b->bytes - was + now;
		c->budget = b;
		if (old)
			bloom_contents_retire(old);
	}
	spin_unlock(&b->lock);
	return err;
}

/*
 * Under bn->lock: make @c the contents of @f. Readers see the old or the
 * new contents. The old, retired, go to @old for drop_old() once the
 * lock is released: stopping their work may wait a grace period, and a
 * rotation or growth in progress.
 */
static int replace_contents(struct bloom_net *bn, struct bloom_filter *f,
			    struct bloom_contents *c,
			    struct bloom_contents **old)
{
	int err = account(bn, c, contents_locked(bn, f), 0);

	if (err)
		return err;
	*old = contents_locked(bn, f);
	bump_generation(bn, c);
	rcu_assign_pointer(f->contents, c);
	bloom_contents_start(c);
	return 0;
}

/*
 * Without bn->lock: stop contents replace_contents() took off a filter
 * and drop the filter's reference to them; they are freed after a grace
 * period once the last holder lets go. NULL does nothing.
 */
static void drop_old(struct bloom_contents *old)
{
	if (!old)
		return;
	bloom_contents_unpublish(old);
	bloom_contents_put(old);
}

/* Under bn->lock: @f, unlisted, and its contents count no more. */
static void unaccount(struct bloom_net *bn, struct bloom_filter *f)
{
	struct bloom_contents *c = contents_locked(bn, f);

	spin_lock(&bn->budget.lock);
	bn->budget.bytes -= bloom_contents_size(c) + filter_bytes(f);
	bloom_contents_retire(c);
	spin_unlock(&bn->budget.lock);
}

/* A filter never listed. */
static void filter_free(struct bloom_filter *f)
{
	free_percpu(f->stats);
	free_percpu(f->value_hits);
	kfree(rcu_dereference_protected(f->name, 1));
	kfree(f);
}

/* Counters per value for contents created with (few enough) values. */
static int value_hits_alloc(struct bloom_filter *f,
			    const struct bloom_contents *c)
{
	unsigned int v = c->core.g.value_bits;

	if (!v || v > BLOOM_VALUE_HITS_BITS)
		return 0;
	f->value_mask = (1U << v) - 1;
	f->value_hits = __alloc_percpu_gfp((f->value_mask + 1) * sizeof(u64),
					   sizeof(u64), GFP_KERNEL_ACCOUNT);
	return f->value_hits ? 0 : -ENOMEM;
}

static struct bloom_filter *filter_alloc(const char *name,
					 const struct bloom_contents *c)
{
	struct bloom_filter *f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	struct bloom_name *n = kzalloc(sizeof(*n), GFP_KERNEL_ACCOUNT);

	if (!f || !n)
		goto free;
	f->stats = alloc_percpu_gfp(struct bloom_pcpu_stats,
				    GFP_KERNEL_ACCOUNT);
	if (!f->stats || value_hits_alloc(f, c))
		goto free;
	strscpy(n->s, name, sizeof(n->s));
	RCU_INIT_POINTER(f->name, n);
	refcount_set(&f->ref, 1);	/* the registry's */
	return f;
free:
	if (f) {
		free_percpu(f->stats);
		free_percpu(f->value_hits);
	}
	kfree(n);
	kfree(f);
	return NULL;
}

/* Under bn->lock: list a new filter @name holding @c. */
static int add_filter(struct net *net, struct bloom_net *bn,
		      const char *name, struct bloom_contents *c)
{
	struct bloom_filter *f;
	bool reserved;
	int err;

	if (bn->nfilters >= bn->max_filters)
		return -ENOSPC;
	f = filter_alloc(name, c);
	if (!f)
		return -ENOMEM;
	/* Reserve an id (NULL is stored as a reserved entry); -EBUSY: full. */
	err = xa_alloc_cyclic(&bloom_ids, &f->id, NULL, XA_LIMIT(1, INT_MAX),
			      &bloom_next_id, GFP_KERNEL_ACCOUNT);
	reserved = err >= 0;
	if (reserved)
		err = account(bn, c, NULL, filter_bytes(f));
	if (err < 0) {
		if (reserved)
			xa_erase(&bloom_ids, f->id);
		filter_free(f);
		return err == -EBUSY ? -ENOSPC : err;
	}
	write_pnet(&f->net, net);
	/* Freeing a filter runs module code: hold the module until then. */
	__module_get(THIS_MODULE);
	bump_generation(bn, c);
	RCU_INIT_POINTER(f->contents, c);
	bn->nfilters++;
	list_add_tail_rcu(&f->list, &bn->filters);
	/* Fills the reserved slot: allocates nothing, cannot fail. */
	WARN_ON(xa_err(xa_store(&bloom_ids, f->id, f, GFP_NOWAIT)));
	bloom_contents_start(c);
	return 0;
}

/**
 * bloom_registry_room() - would contents of this size fit the limits?
 * @net: the namespace
 * @need: their bytes (bloom_contents_bytes(), bloom_contents_snap_bytes())
 * @replacing: the filter whose contents it would replace, or NULL for a
 *	new filter
 *
 * A hint taken before allocating, so that a request over the budget
 * fails with its own error rather than -ENOMEM; publishing checks again.
 *
 * Return: 0, -ENOSPC, -E2BIG or -EINTR.
 */
int bloom_registry_room(struct net *net, size_t need, const char *replacing)
{
	struct bloom_net *bn = bloom_net(net);
	size_t was = 0;
	struct bloom_filter *f = NULL;
	int err;

	err = lock_registry(bn);
	if (err)
		return err;
	if (replacing)
		f = find(bn, replacing);
	spin_lock(&bn->budget.lock);
	if (f)
		was = bloom_contents_size(contents_locked(bn, f));
	if (need > bn->budget.max_bytes)
		err = -E2BIG;
	else if (!f && bn->nfilters >= bn->max_filters)
		err = -ENOSPC;
	else if (need > was)
		err = bloom_budget_room(&bn->budget, need - was);
	spin_unlock(&bn->budget.lock);
	mutex_unlock(&bn->lock);
	return err;
}

/**
 * bloom_registry_publish() - list @c under @name, or replace its contents
 * @net: the namespace
 * @name: a valid name
 * @c: contents, owned by the registry from now on
 * @replace: an existing filter of the same key type and family gets @c;
 *	without it an existing filter is -EEXIST
 *
 * Return: 0, -EEXIST, -EINVAL (key type or family differs), -ENOSPC,
 * -E2BIG, -ENOMEM, -EINTR. On error @c has been freed.
 */
int bloom_registry_publish(struct net *net, const char *name,
			   struct bloom_contents *c, bool replace)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_contents *old = NULL;
	struct bloom_filter *f;
	int err;

	err = lock_registry(bn);
	if (err)
		goto out;
	f = find(bn, name);
	if (!f)
		err = add_filter(net, bn, name, c);
	else if (!replace)
		err = -EEXIST;
	else if (!same_keys(contents_locked(bn, f), c))
		err = -EINVAL;
	else
		err = replace_contents(bn, f, c, &old);
	mutex_unlock(&bn->lock);
	drop_old(old);
out:
	if (err)
		bloom_contents_free(c);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_registry_publish);

/**
 * bloom_registry_prepare() - empty contents for a filter not yet listed
 * @net: the namespace
 * @name: the filter's name, checked with bloom_name_check()
 * @g: the geometry, checked with bloom_geom_check(); its seed is made
 *	random unless fixed, and a zero capacity becomes the default one
 *	(bloom_geom_default_capacity())
 * @c: set to the contents, for bloom_registry_publish() or
 *	bloom_contents_free()
 *
 * The first half of a create, for a caller that must say what it is
 * creating before the filter appears (the CREATE ioctl copies the
 * geometry out first).
 *
 * Return: 0, -EINVAL for a bad name or geometry, -ENOSPC, -E2BIG,
 * -ENOMEM, -EINTR.
 */
int bloom_registry_prepare(struct net *net, const char *name,
			   struct bloom_geom *g, struct bloom_contents **c)
{
	int err;

	err = bloom_name_check(name) ?: bloom_geom_check(g);
	if (err)
		return err;
	/* Static filters are built from their keys, then restored. */
	if (g->layout == BLOOM_LAYOUT_FUSE)
		return -EOPNOTSUPP;
	if (!g->capacity)
		g->capacity = bloom_geom_default_capacity(g);
	err = bloom_registry_room(net, bloom_contents_bytes(g) +
				  bloom_value_hits_bytes(g), NULL);
	if (err)
		return err;
	if (!(g->flags & BLOOM_F_FIXED_SEED))
		g->seed = get_random_u64();
	*c = bloom_contents_new(g);
	return *c ? 0 : -ENOMEM;
}

/**
 * bloom_registry_create() - create an empty filter
 * @net: the namespace
 * @name: the filter's name
 * @g: the geometry, as for bloom_registry_prepare()
 *
 * Return: as bloom_registry_prepare(), then bloom_registry_publish().
 */
int bloom_registry_create(struct net *net, const char *name,
			  struct bloom_geom *g)
{
	struct bloom_contents *c;
	int err = bloom_registry_prepare(net, name, g, &c);

	return err ?: bloom_registry_publish(net, name, c, false);
}
EXPORT_SYMBOL_GPL(bloom_registry_create);

/*
 * Under bn->lock: keep new users off @f while it is changed; false when
 * it has users. Undo with atomic_set(&f->users, 0), or not at all when
 * the filter goes away.
 */
static bool fence_users(struct bloom_filter *f)
{
	/* users is -1 from here: bloom_get() can no longer take it. */
	return atomic_cmpxchg(&f->users, 0, -1) == 0;
}

/**
 * bloom_registry_destroy() - remove a filter nobody uses
 * @net: the namespace
 * @name: the filter
 *
 * Return: 0, -ENOENT, -EINTR, or -EBUSY while a rule or in-kernel user
 * holds it.
 */
int bloom_registry_destroy(struct net *net, const char *name)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f;
	int err;

	err = lock_registry(bn);
	if (err)
		return err;
	f = find_locked(bn, name);
	if (IS_ERR(f)) {
		err = PTR_ERR(f);
	} else if (!fence_users(f)) {
		err = -EBUSY;
	} else {
		list_del_rcu(&f->list);
		xa_erase(&bloom_ids, f->id);
		bn->nfilters--;
		unaccount(bn, f);
	}
	mutex_unlock(&bn->lock);
	if (err)
		return err;
	/* Unlisted, so nothing replaces its contents any more. */
	bloom_contents_unpublish(rcu_dereference_protected(f->contents, 1));
	bloom_filter_put(f);
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_registry_destroy);

/**
 * bloom_registry_rename() - give a filter nobody uses a new name
 * @net: the namespace
 * @name: the filter
 * @new_name: a valid name not in use
 *
 * A rule records the name it was given: renaming a filter under a rule
 * would make iptables-save print a stale name that a later restore binds
 * to whatever filter then has it. So, as ipset does for referenced sets,
 * a filter with users cannot be renamed.
 *
 * Return: 0, -EINVAL, -ENOENT, -EEXIST, -EBUSY, -ENOMEM, -EINTR.
 */
int bloom_registry_rename(struct net *net, const char *name,
			  const char *new_name)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_name *n, *old;
	struct bloom_filter *f;
	int err;

	if (bloom_name_check(new_name))
		return -EINVAL;
	n = kzalloc(sizeof(*n), GFP_KERNEL_ACCOUNT);
	if (!n)
		return -ENOMEM;
	strscpy(n->s, new_name, sizeof(n->s));
	err = lock_registry(bn);
	if (err)
		goto out;
	f = find_locked(bn, name);
	if (IS_ERR(f)) {
		err = PTR_ERR(f);
	} else if (find(bn, new_name)) {
		err = -EEXIST;
	} else if (!fence_users(f)) {
		err = -EBUSY;
	} else {
		old = rcu_dereference_protected(f->name,
						lockdep_is_held(&bn->lock));
		/* Readers comparing names see the old or the new one whole. */
		rcu_assign_pointer(f->name, n);
		kfree_rcu(old, rcu);
		n = NULL;
		atomic_set(&f->users, 0);
	}
	mutex_unlock(&bn->lock);
out:
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
 * filter changes atomically for its readers. An add racing with the
 * swap lands in the contents it found, which then live under the other
 * name: it happened before the swap.
 *
 * Return: 0, -ENOENT, -EINVAL (same filter, or key types
 * or families differ), -EINTR.
 */
int bloom_registry_swap(struct net *net, const char *a, const char *b)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_contents *ca, *cb;
	struct bloom_filter *fa, *fb;
	int err;

	err = lock_registry(bn);
	if (err)
		return err;
	fa = find_locked(bn, a);
	fb = find_locked(bn, b);
	if (IS_ERR(fa) || IS_ERR(fb)) {
		err = -ENOENT;
		goto unlock;
	}
	ca = contents_locked(bn, fa);
	cb = contents_locked(bn, fb);
	if (fa == fb || !same_keys(ca, cb)) {
		err = -EINVAL;
		goto unlock;
	}
	/* Both stay published, background work and all. */
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
 * An add racing with the clear may land in the old contents and go with
 * them: it is ordered before the clear.
 *
 * Return: 0, -ENOENT, -ENOMEM, -EINTR.
 */
int bloom_registry_clear(struct net *net, const char *name)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_contents *c = NULL, *old = NULL;
	struct bloom_filter *f;
	int err;

	err = lock_registry(bn);
	if (err)
		return err;
	f = find_locked(bn, name);
	err = PTR_ERR_OR_ZERO(f);
	if (!err)
		c = bloom_contents_new(&contents_locked(bn, f)->core.g);
	if (!err && !c)
		err = -ENOMEM;
	if (!err)
		err = replace_contents(bn, f, c, &old);
	if (err && c)
		bloom_contents_free(c);
	mutex_unlock(&bn->lock);
	drop_old(old);
	return err;
}
EXPORT_SYMBOL_GPL(bloom_registry_clear);

/**
 * bloom_registry_halve() - fold a filter to half its size
 * @net: the namespace
 * @name: the filter; its probe range must be a power of two
 *
 * The kind folds under the registry lock, so that another halve cannot
 * fold the new contents while adds still reach them through the old
 * (see its halve operation); they are smaller, so publishing them
 * cannot fail.
 *
 * Return: 0, -ENOENT, -EINVAL (cannot be halved), -EOPNOTSUPP (a kind
 * that does not halve), -ENOMEM, -EINTR.
 */
int bloom_registry_halve(struct net *net, const char *name)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_contents *c, *old = NULL;
	struct bloom_filter *f;
	int err;

	err = lock_registry(bn);
	if (err)
		return err;
	f = find_locked(bn, name);
	c = IS_ERR(f) ? ERR_CAST(f) :
	    bloom_contents_halve(contents_locked(bn, f));
	err = PTR_ERR_OR_ZERO(c) ?: replace_contents(bn, f, c, &old);
	mutex_unlock(&bn->lock);
	drop_old(old);
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
 * Return: 0, -ENOENT, -EINVAL (geometry or seed differ), -EOPNOTSUPP
 * (kinds without set algebra), -ENOMEM, -EINTR.
 */
int bloom_registry_combine(struct net *net, const char *dst,
			   const char *src, bool intersect)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_contents *cd, *cs;
	struct bloom_filter *fd, *fs;
	int err;

	err = lock_registry(bn);
	if (err)
		return err;
	fd = find_locked(bn, dst);
	fs = find_locked(bn, src);
	err = -ENOENT;
	if (IS_ERR(fd) || IS_ERR(fs))
		goto unlock;
	cd = contents_locked(bn, fd);
	cs = contents_locked(bn, fs);
	err = bloom_contents_combine(cd, cs, intersect);
	if (!err)
		bump_generation(bn, cd);
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
 * @host: the caller has CAP_NET_ADMIN over the host (init_user_ns)
 *
 * The host's administrator sets any maxima, and they become the
 * namespace's ceiling; anyone else (root of a user namespace owning the
 * network namespace) may move them at most up to that ceiling, which
 * starts at the module parameters. So a namespace cannot undo a limit
 * the host put on it, yet may lower its own and raise it back.
 *
 * Return: 0, -EPERM (above the ceiling without @host) or -EINTR.
 */
int bloom_registry_limits(struct net *net, struct bloom_limits *l, bool set,
			  bool host)
{
	struct bloom_net *bn = bloom_net(net);
	int err = lock_registry(bn);

	if (err)
		return err;
	if (set && !host && (l->max_filters > bn->ceil_filters ||
			     l->max_bytes > bn->ceil_bytes)) {
		mutex_unlock(&bn->lock);
		return -EPERM;
	}
	spin_lock(&bn->budget.lock);
	if (set) {
		bn->max_filters = l->max_filters;
		bn->budget.max_bytes = l->max_bytes;
	}
	if (set && host) {
		bn->ceil_filters = l->max_filters;
		bn->ceil_bytes = l->max_bytes;
	}
	l->max_filters = bn->max_filters;
	l->max_bytes = bn->budget.max_bytes;
	l->filters = bn->nfilters;
	l->bytes = bn->budget.bytes;
	spin_unlock(&bn->budget.lock);
	mutex_unlock(&bn->lock);
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_registry_limits);

/**
 * bloom_contents_get() - hold a filter's current contents
 * @f: a filter the caller holds
 *
 * Return: the contents, to release with bloom_contents_put().
 */
struct bloom_contents *bloom_contents_get(struct bloom_filter *f)
{
	struct bloom_contents *c;

	rcu_read_lock();
	/*
	 * The pointer may be replaced and the old contents' last
	 * reference dropped between the load and the increment; then
	 * the filter already points at newer contents: load again.
	 */
	do {
		c = rcu_dereference(f->contents);
	} while (!refcount_inc_not_zero(&c->ref));
	rcu_read_unlock();
	return c;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_get);

/**
 * bloom_filter_report() - stats of a filter, for INFO and /proc/net/bloom
 * @f: the filter
 * @c: its contents, held
 * @r: filled in
 *
 * Process context, no lock held: the kind walks its arrays.
 *
 * Return: 0 or -ENOMEM.
 */
int bloom_filter_report(struct bloom_filter *f, struct bloom_contents *c,
			struct bloom_report *r)
{
	int err = bloom_contents_report(c, r);
	int cpu;

	if (err)
		return err;
	/* Per-CPU counters: a sum racing with updates is only approximate. */
	for_each_possible_cpu(cpu) {
		const struct bloom_pcpu_stats *s = per_cpu_ptr(f->stats, cpu);

		r->hits += READ_ONCE(s->hits);
		r->misses += READ_ONCE(s->misses);
	}
	r->users = max(atomic_read(&f->users), 0);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_filter_report);

/**
 * bloom_filter_value_hits() - packets matched per value
 * @f: the filter
 * @hits: set to the first @n counts, value 0 first
 * @n: room in @hits
 *
 * Per-CPU counters: a sum racing with matches is only approximate.
 *
 * Return: how many values the filter counts (0: none).
 */
u32 bloom_filter_value_hits(struct bloom_filter *f, u64 *hits, u32 n)
{
	u32 v, values = f->value_hits ? f->value_mask + 1 : 0;
	int cpu;

	for (v = 0; v < min(n, values); v++) {
		hits[v] = 0;
		for_each_possible_cpu(cpu)
			hits[v] += READ_ONCE(per_cpu_ptr(f->value_hits, cpu)[v]);
	}
	return values;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_filter_value_hits);

/**
 * bloom_registry_read() - look at one or two filters' contents
 * @net: the namespace
 * @name: the filter
 * @other: a second filter, or NULL
 * @fn: called with both filters' contents held and no lock: it may
 *	sleep (copy to user, walk a large array) for as long as it likes
 *	without holding up anyone else
 * @arg: passed to @fn
 *
 * Return: -ENOENT if a filter is missing, else what @fn returns.
 */
int bloom_registry_read(struct net *net, const char *name, const char *other,
			bloom_read_fn fn, void *arg)
{
	struct bloom_contents *c, *oc = NULL;
	struct bloom_filter *f, *g = NULL;
	int err;

	f = bloom_lookup(net, name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	if (other) {
		g = bloom_lookup(net, other);
		if (IS_ERR(g)) {
			bloom_filter_put(f);
			return PTR_ERR(g);
		}
		oc = bloom_contents_get(g);
	}
	c = bloom_contents_get(f);
	err = fn(f, c, oc, arg);
	bloom_contents_put(c);
	if (g) {
		bloom_contents_put(oc);
		bloom_filter_put(g);
	}
	bloom_filter_put(f);
	return err;
}

/**
 * bloom_registry_names() - visit every filter's name, in creation order
 * @net: the namespace
 * @fn: called under rcu_read_lock(); must not sleep; non-zero stops
 * @arg: passed to @fn
 *
 * Return: 0, or what @fn returned to stop.
 */
int bloom_registry_names(struct net *net, bloom_name_fn fn, void *arg)
{
	struct bloom_filter *f;
	int err = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(f, &bloom_net(net)->filters, list) {
		err = fn(rcu_dereference(f->name)->s, arg);
		if (err)
			break;
	}
	rcu_read_unlock();
	return err;
}

/**
 * bloom_registry_nth() - the @n-th filter in creation order, held
 * @net: the namespace
 * @n: its position, from 0
 *
 * Positions shift when filters come and go: a listing read in several
 * calls may skip or repeat a filter when others are created or
 * destroyed between them.
 *
 * Return: the filter (release with bloom_filter_put()) or NULL.
 */
struct bloom_filter *bloom_registry_nth(struct net *net, loff_t n)
{
	struct bloom_filter *f, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(f, &bloom_net(net)->filters, list) {
		/* One whose last reference is gone is no longer listed. */
		if (!refcount_read(&f->ref) || n--)
			continue;
		if (refcount_inc_not_zero(&f->ref)) {
			found = f;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static int __net_init bloom_net_init(struct net *net)
{
	struct bloom_net *bn = bloom_net(net);

	mutex_init(&bn->lock);
	INIT_LIST_HEAD(&bn->filters);
	bn->max_filters = max_filters;
	spin_lock_init(&bn->budget.lock);
	bn->budget.max_bytes = max_bytes;
	bn->ceil_filters = max_filters;
	bn->ceil_bytes = max_bytes;
	return 0;
}

/*
 * The namespace is going away. Rules of its tables may still hold
 * filters (their pernet exit can run after ours): unlist every filter
 * and drop the registry's reference; the last holder frees it, after a
 * grace period, so lookups still walking the list are safe.
 */
static void __net_exit bloom_net_exit(struct net *net)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f, *tmp;

	mutex_lock(&bn->lock);
	list_for_each_entry(f, &bn->filters, list)
		bloom_contents_retire(contents_locked(bn, f));
	/*
	 * Background work takes no registry lock: stopping it here is
	 * safe. One grace period covers everyone who saw any of these
	 * contents published (as bloom_contents_unpublish() does for
	 * one), however many filters there are.
	 */
	synchronize_rcu();
	list_for_each_entry_safe(f, tmp, &bn->filters, list) {
		bloom_contents_stop(contents_locked(bn, f));
		list_del_rcu(&f->list);
		xa_erase(&bloom_ids, f->id);
		bloom_filter_put(f);
	}
	bn->nfilters = 0;
	bn->budget.bytes = 0;
	mutex_unlock(&bn->lock);
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
