// SPDX-License-Identifier: GPL-2.0
/*
 * A filter's contents: allocation, references, serialised deletes and
 * the stats report. See registry.h for who holds what.
 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include "registry.h"

/*
 * One array with its counters, padded so that the next starts aligned;
 * SIZE_MAX when that does not fit in a size_t (ALIGN() would wrap it to
 * a small number).
 */
static size_t array_stride(const struct bloom_core *core)
{
	struct bloom_contents *c;
	size_t bytes = struct_size(&c->bits, words, core->nwords);

	if (bytes > SIZE_MAX - BLOOM_BLOCK_BITS / 8)
		return SIZE_MAX;
	return ALIGN(bytes, BLOOM_BLOCK_BITS / 8);
}

/**
 * bloom_contents_bytes() - the size of contents of a valid geometry
 * @core: the geometry's core
 *
 * An aging filter has G + 1 arrays: its G generations and the spare.
 * The arithmetic saturates: a size that does not fit is SIZE_MAX, which
 * no allocation and no namespace limit grants.
 *
 * Return: the bytes bloom_contents_new() allocates and the namespace
 * limit counts.
 */
size_t bloom_contents_bytes(const struct bloom_core *core)
{
	struct bloom_contents *c;

	if (!core->g.gens)
		return struct_size(c, bits.words, core->nwords);
	return size_add(offsetof(struct bloom_contents, bits),
			size_mul(array_stride(core), core->g.gens + 1));
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_bytes);

size_t bloom_contents_size(const struct bloom_contents *c)
{
	return bloom_contents_bytes(&c->core);
}

/*
 * kvmalloc() refuses more than INT_MAX bytes, and the largest filters
 * are bigger: those go to vmalloc directly. Either way a request the
 * machine cannot serve fails instead of invoking the OOM killer, and
 * the memory is charged to the caller's memory cgroup.
 */
static void *array_alloc(size_t size)
{
	gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_RETRY_MAYFAIL |
		    __GFP_NOWARN;

	if (size <= INT_MAX)
		return kvmalloc(size, gfp);
	return __vmalloc(size, gfp);
}

/**
 * bloom_contents_new() - new, empty contents for a valid geometry
 * @g: the geometry
 *
 * Return: contents holding one reference, or NULL without memory.
 */
struct bloom_contents *bloom_contents_new(const struct bloom_geom *g)
{
	struct bloom_contents *c;
	struct bloom_core core;

	bloom_core_init(&core, g);
	c = array_alloc(bloom_contents_bytes(&core));
	if (!c)
		return NULL;
	c->core = core;
	refcount_set(&c->ref, 1);
	spin_lock_init(&c->del_lock);
	c->age.stride = array_stride(&core);
	if (g->gens && bloom_age_init(c)) {
		kvfree(c);
		return NULL;
	}
	return c;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_new);

/* Contents never published: no reader can have seen them. */
void bloom_contents_free(struct bloom_contents *c)
{
	bloom_age_free(c);
	kvfree(c);
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_free);

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

/*
 * Drop a reference. The last one frees the contents after a grace
 * period: lockless readers may still be probing them.
 */
void bloom_contents_put(struct bloom_contents *c)
{
	if (!refcount_dec_and_test(&c->ref))
		return;
	/* The view is read under the same RCU sections as the contents. */
	if (bloom_aged(c))
		kfree_rcu(rcu_dereference_protected(c->age.view, 1), rcu);
	kvfree_rcu(c, rcu);
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_put);

/**
 * bloom_contents_del() - delete a key from counting contents
 * @c: the contents, held or under RCU
 * @h: bloom_hash() of the key
 *
 * bloom_del_hash() tests the key, then decrements its counters: two
 * deletes of a key added once could both pass the test and take a
 * counter shared with another key to zero, a false negative for a key
 * nobody deleted. Deletes of the same contents are serialised here; adds
 * and tests stay lockless, since an add racing with a delete of the same
 * key only increments.
 *
 * Return: as bloom_del_hash().
 */
int bloom_contents_del(struct bloom_contents *c, u64 h)
{
	int err;

	spin_lock(&c->del_lock);
	err = bloom_del_hash(&c->core, &c->bits, h);
	spin_unlock(&c->del_lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_del);

/**
 * bloom_contents_mirror() - add hashes to contents being folded into
 * @c: plain contents a halve folds, under rcu_read_lock()
 * @half: @c->halved, the half-size contents
 * @h: bloom_hash() of the keys, already added to @c
 * @n: how many
 *
 * The prefix lengths @c holds go too, for a net key just noted there.
 */
void bloom_contents_mirror(struct bloom_contents *c, struct bloom_contents *half,
			   const u64 *h, u32 n)
{
	unsigned int i;

	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_or(&half->bits.plens[i],
			      bloom_word_read(&c->bits.plens[i]));
	bloom_add_batch(&half->core, &half->bits, h, n);
}

/**
 * bloom_filter_report() - stats of a filter, for INFO and /proc/net/bloom
 * @f: the filter
 * @c: its contents, held
 * @r: filled in
 *
 * Walks the whole array, with reschedule points: process context, and no
 * lock held.
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
	if (bloom_aged(c))
		bloom_age_report(c, r, hist);
	else
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
EXPORT_SYMBOL_IF_KUNIT(bloom_filter_report);
