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
EXPORT_SYMBOL_GPL(bloom_name_check);

static void filter_free_rcu(struct rcu_head *rcu)
{
	struct bloom_filter *f = container_of(rcu, struct bloom_filter, rcu);

	/* A grace period has passed: no reader can still see any of these. */
	bloom_contents_put(rcu_dereference_protected(f->contents, 1));
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

/*
 * Under bn->lock: make @c the contents of @f. Readers see the old or the
 * new contents; the old are freed after a grace period once the last
 * holder lets go.
 */
static int replace_contents(struct bloom_net *bn, struct bloom_filter *f,
			    struct bloom_contents *c)
{
	struct bloom_contents *old = contents_locked(bn, f);
	size_t was = bloom_contents_size(old), now = bloom_contents_size(c);
	int err = now > was ? charge(bn, now - was) : 0;

	if (err)
		return err;
	bn->bytes = bn->bytes - was + now;
	bump_generation(bn, c);
	rcu_assign_pointer(f->contents, c);
	bloom_contents_put(old);
	bloom_age_arm(f, c);
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
	bloom_age_work_init(f);
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
	err = charge(bn, bloom_contents_size(c));
	if (err)
		return err;
	f = filter_alloc(name);
	if (!f)
		return -ENOMEM;
	/* Freeing a filter runs module code: hold the module until then. */
	__module_get(THIS_MODULE);
	bump_generation(bn, c);
	RCU_INIT_POINTER(f->contents, c);
	bn->nfilters++;
	bn->bytes += bloom_contents_size(c);
	list_add_tail_rcu(&f->list, &bn->filters);
	bloom_age_arm(f, c);
	return 0;
}

/**
 * bloom_registry_room() - would a filter of this geometry fit the limits?
 * @net: the namespace
 * @g: a valid geometry
 * @replacing: the filter whose contents it would replace, or NULL for a
 *	new filter
 *
 * A hint taken before allocating, so that a request over the budget
 * fails with its own error rather than -ENOMEM; publishing checks again.
 *
 * Return: 0, -ENOSPC, -E2BIG or -EINTR.
 */
int bloom_registry_room(struct net *net, const struct bloom_geom *g,
			const char *replacing)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f = NULL;
	struct bloom_core core;
	size_t need, was = 0;
	int err;

	bloom_core_init(&core, g);
	need = bloom_contents_bytes(&core);
	err = lock_registry(bn);
	if (err)
		return err;
	if (replacing)
		f = find(bn, replacing);
	if (f)
		was = bloom_contents_size(contents_locked(bn, f));
	if (need > bn->max_bytes)
		err = -E2BIG;
	else if (!f && bn->nfilters >= bn->max_filters)
		err = -ENOSPC;
	else if (need > was)
		err = charge(bn, need - was);
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
 * -ENOMEM, -EINTR. On error @c has been freed.
 */
int bloom_registry_publish(struct net *net, const char *name,
			   struct bloom_contents *c, bool replace)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f;
	int err;

	err = lock_registry(bn);
	if (err)
		goto out;
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
out:
	if (err)
		bloom_contents_free(c);
	return err;
}

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
	if (!g->capacity)
		g->capacity = bloom_geom_default_capacity(g);
	err = bloom_registry_room(net, g, NULL);
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
		WRITE_ONCE(f->unlisted, true);
		bn->nfilters--;
		bn->bytes -= bloom_contents_size(contents_locked(bn, f));
	}
	mutex_unlock(&bn->lock);
	if (err)
		return err;
	bloom_age_stop(f);
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
 * Return: 0, -ENOENT, -EINVAL (same filter or key types differ), -EINTR.
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
	if (fa == fb || ca->core.g.key_type != cb->core.g.key_type) {
		err = -EINVAL;
		goto unlock;
	}
	rcu_assign_pointer(fa->contents, cb);
	rcu_assign_pointer(fb->contents, ca);
	/* Each filter's work now rotates the contents it has. */
	bloom_age_arm(fa, cb);
	bloom_age_arm(fb, ca);
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
	struct bloom_contents *c = NULL;
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
		err = replace_contents(bn, f, c);
	if (err && c)
		bloom_contents_free(c);
	mutex_unlock(&bn->lock);
	return err;
}
EXPORT_SYMBOL_GPL(bloom_registry_clear);

/**
 * bloom_registry_halve() - fold a filter to half its size
 * @net: the namespace
 * @name: the filter; its probe range must be a power of two
 *
 * No add is ever invisible, before or after the new contents are
 * published: first every add to the old contents also goes to the new
 * ones (@halved, see bloom_contents_add()), and after a grace period no
 * add can still be writing the old contents without doing so; only then
 * is the old array folded in and the result published. Readers see the
 * old contents, which hold every completed add, until then, and the new
 * ones, which hold them too, after. It all runs under the registry lock,
 * so that another halve cannot fold the new contents while adds still
 * mirror into them. For counting filters the fold keeps the larger of
 * two counters (a fold is idempotent): an add mirrored into a counter
 * the fold has not reached yet may be counted once for two keys, so a
 * later delete of one can remove the other; and a delete racing with
 * the fold is not mirrored, so the key may test present again after it.
 *
 * Return: 0, -ENOENT, -EINVAL (cannot be halved), -EOPNOTSUPP (an aging
 * filter), -ENOMEM, -ENOSPC (over the namespace's limit), -EINTR.
 */
int bloom_registry_halve(struct net *net, const char *name)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_contents *old, *c;
	struct bloom_filter *f;
	struct bloom_geom g;
	int err;

	err = lock_registry(bn);
	if (err)
		return err;
	f = find_locked(bn, name);
	err = PTR_ERR_OR_ZERO(f);
	if (err)
		goto unlock;
	old = contents_locked(bn, f);
	/* Folding G arrays while they rotate is not worth its complexity. */
	err = bloom_aged(old) ? -EOPNOTSUPP : bloom_halve_geom(&old->core.g, &g);
	if (err)
		goto unlock;
	c = bloom_contents_new(&g);
	if (!c) {
		err = -ENOMEM;
		goto unlock;
	}
	rcu_assign_pointer(old->halved, c);
	synchronize_rcu();	/* every add still writing @old mirrors */
	bloom_halve(&old->core, &old->bits, &c->core, &c->bits);
	err = replace_contents(bn, f, c);
	if (err) {
		RCU_INIT_POINTER(old->halved, NULL);
		synchronize_rcu();	/* nobody mirrors into @c any more */
		bloom_contents_free(c);
	}
unlock:
	mutex_unlock(&bn->lock);
	return err;
}
EXPORT_SYMBOL_GPL(bloom_registry_halve);

/* Set the inserted count of @cd after @cs was merged into it. */
static void merge_count(struct bloom_contents *cd, u64 est, u64 sum)
{
	bloom_word_set(&cd->bits.inserted, min(est, sum));
}

/*
 * Under bn->lock: union or intersect @cs into @cd. The inserted count
 * becomes the estimated size of the result, measured before merging
 * (no more than the sum, or the smaller count, of the two).
 */
static int combine(struct bloom_net *bn, struct bloom_contents *cd,
		   struct bloom_contents *cs, bool intersect)
{
	u64 nd = bloom_word_read(&cd->bits.inserted);
	u64 ns = bloom_word_read(&cs->bits.inserted);
	u64 *hist = kmalloc_array(BLOOM_HIST_WORDS, sizeof(u64), GFP_KERNEL);

	if (!hist)
		return -ENOMEM;
	if (intersect) {
		u64 est = bloom_est_intersection(&cd->core, &cd->bits,
						 &cs->bits, hist);

		bloom_intersect(&cd->core, &cd->bits, &cs->bits);
		merge_count(cd, est, min(nd, ns));
	} else {
		u64 est = bloom_est_union(&cd->core, &cd->bits, &cs->bits,
					  hist);

		bloom_union(&cd->core, &cd->bits, &cs->bits);
		merge_count(cd, est, nd + ns < nd ? U64_MAX : nd + ns);
	}
	kfree(hist);
	bump_generation(bn, cd);
	return 0;
}

/**
 * bloom_registry_combine() - union or intersect @src into @dst
 * @net: the namespace
 * @dst: the filter changed in place
 * @src: the filter read; same geometry and seed as @dst
 * @intersect: intersect rather than unite
 *
 * Return: 0, -ENOENT, -EINVAL (geometry or seed differ), -EOPNOTSUPP
 * (an aging filter), -ENOMEM, -EINTR.
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
	/* Generations of two aging filters have unrelated ages. */
	err = bloom_aged(cd) || bloom_aged(cs) ? -EOPNOTSUPP :
	      bloom_geom_same(&cd->core, &cs->core);
	if (!err)
		err = combine(bn, cd, cs, intersect);
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
	if (set) {
		bn->max_filters = l->max_filters;
		bn->max_bytes = l->max_bytes;
	}
	if (set && host) {
		bn->ceil_filters = l->max_filters;
		bn->ceil_bytes = l->max_bytes;
	}
	l->max_filters = bn->max_filters;
	l->max_bytes = bn->max_bytes;
	l->filters = bn->nfilters;
	l->bytes = bn->bytes;
	mutex_unlock(&bn->lock);
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_registry_limits);

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
	bn->max_bytes = max_bytes;
	bn->ceil_filters = max_filters;
	bn->ceil_bytes = max_bytes;
	return bloom_proc_net_init(net);
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

	bloom_proc_net_exit(net);
	mutex_lock(&bn->lock);
	list_for_each_entry(f, &bn->filters, list)
		WRITE_ONCE(f->unlisted, true);
	/*
	 * The rotation work takes no registry lock: stopping it here is
	 * safe. One grace period covers every kicker that saw a filter
	 * listed (as bloom_age_stop() does for one), however many
	 * filters there are.
	 */
	synchronize_rcu();
	list_for_each_entry_safe(f, tmp, &bn->filters, list) {
		bloom_age_cancel(f);
		list_del_rcu(&f->list);
		bloom_filter_put(f);
	}
	bn->nfilters = 0;
	bn->bytes = 0;
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
