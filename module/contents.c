// SPDX-License-Identifier: GPL-2.0
/*
 * A filter's contents, whatever their kind: allocation, references,
 * publication of background work, and the one place that turns an
 * operation a kind lacks into -EOPNOTSUPP. See kind.h.
 */
#include <linux/slab.h>
#include <kunit/visibility.h>
#include "kind.h"

/* The kind of contents a geometry asks for. */
static const struct bloom_kind_ops *kind_of(const struct bloom_geom *g)
{
	if (g->gens)
		return &bloom_aging_ops;
	if (g->stages_max)
		return &bloom_scalable_ops;
	if (g->layout == BLOOM_LAYOUT_COUNTING)
		return &bloom_counting_ops;
	if (g->layout == BLOOM_LAYOUT_CUCKOO)
		return &bloom_cuckoo_ops;
	if (g->layout == BLOOM_LAYOUT_FUSE)
		return &bloom_fuse_ops;
	return &bloom_plain_ops;
}

/* The bytes of the /16 summary contents of @g carry, if any. */
static size_t summary_bytes(const struct bloom_geom *g)
{
	u64 words = bloom_summary_words(g);

	return words ? sizeof(struct bloom_summary) + words * 8 : 0;
}

/* An empty summary for @g: its words apart, a power of two of bytes. */
static struct bloom_summary *summary_new(const struct bloom_geom *g)
{
	struct bloom_summary *s = kmalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);

	if (!s)
		return NULL;
	s->words = bloom_array_alloc(bloom_summary_words(g) * 8);
	if (!s->words) {
		kfree(s);
		return NULL;
	}
	refcount_set(&s->ref, 1);
	return s;
}

static struct bloom_summary *summary_get(struct bloom_summary *s)
{
	refcount_inc(&s->ref);
	return s;
}

static void summary_put(struct bloom_summary *s)
{
	if (s && refcount_dec_and_test(&s->ref)) {
		kvfree(s->words);
		kfree(s);
	}
}

/**
 * bloom_contents_bytes() - the size of contents of a valid geometry
 * @g: the geometry
 *
 * The arithmetic saturates: a size that does not fit is SIZE_MAX, which
 * no allocation and no namespace limit grants.
 *
 * Return: the bytes bloom_contents_new() allocates and the namespace
 * limit counts.
 */
size_t bloom_contents_bytes(const struct bloom_geom *g)
{
	struct bloom_core core;

	bloom_core_init(&core, g);
	return size_add(kind_of(g)->bytes(&core), summary_bytes(g));
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_bytes);

/**
 * bloom_contents_snap_bytes() - what contents restored from a snapshot take
 * @info: a checked snapshot header
 *
 * Return: the bytes, saturating, for the namespace's limit before
 * anything is allocated.
 */
size_t bloom_contents_snap_bytes(const struct bloom_snap_info *info)
{
	const struct bloom_kind_ops *ops = kind_of(&info->geom);

	if (ops->snap_bytes)
		return size_add(ops->snap_bytes(info),
				summary_bytes(&info->geom));
	return bloom_contents_bytes(&info->geom);
}

/* Under the budget's lock once published: contents may grow. */
size_t bloom_contents_size(const struct bloom_contents *c)
{
	size_t kind = c->ops->size ? c->ops->size(c) : c->ops->bytes(&c->core);

	return size_add(kind, summary_bytes(&c->core.g));
}

/**
 * bloom_contents_new() - new, empty contents for a valid geometry
 * @g: the geometry
 *
 * Return: contents holding one reference, or NULL without memory.
 */
struct bloom_contents *bloom_contents_new(const struct bloom_geom *g)
{
	const struct bloom_kind_ops *ops = kind_of(g);
	struct bloom_contents *c;
	struct bloom_core core;

	bloom_core_init(&core, g);
	c = bloom_array_alloc(ops->bytes(&core));
	if (!c)
		return NULL;
	bloom_contents_init(c, ops, &core);
	if (summary_bytes(g)) {
		c->summary = summary_new(g);
		if (!c->summary) {
			kvfree(c);
			return NULL;
		}
	}
	if (ops->init && ops->init(c)) {
		summary_put(c->summary);
		kvfree(c);
		return NULL;
	}
	return c;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_new);

/* Contents never published: no reader can have seen them. */
void bloom_contents_free(struct bloom_contents *c)
{
	if (c->ops->destroy)
		c->ops->destroy(c);
	summary_put(c->summary);
	kvfree(c);
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_free);

static void contents_free_rcu(struct rcu_head *rcu)
{
	bloom_contents_free(container_of(rcu, struct bloom_contents, rcu));
}

/*
 * Drop a reference. The last one frees the contents after a grace
 * period: lockless readers may still be probing them, and what the
 * kind hangs off them. Any context.
 */
void bloom_contents_put(struct bloom_contents *c)
{
	if (refcount_dec_and_test(&c->ref))
		call_rcu(&c->rcu, contents_free_rcu);
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_put);

/* Published under a name: the kind's background work may begin. */
void bloom_contents_start(struct bloom_contents *c)
{
	if (c->ops->start)
		c->ops->start(c);
}

/*
 * No longer published: the packet path, which may still hold @c under
 * RCU, queues no new work for it (kinds test the bit under RCU), and it
 * grows no more. The registry retires contents under their budget's
 * lock, as it lets go of their bytes.
 */
void bloom_contents_retire(struct bloom_contents *c)
{
	set_bit(BLOOM_C_RETIRED, &c->flags);
}

/* A grace period after bloom_contents_retire(): end the work. */
void bloom_contents_stop(struct bloom_contents *c)
{
	if (c->ops->stop)
		c->ops->stop(c);
}

/**
 * bloom_contents_unpublish() - retire and stop contents a filter dropped
 * @c: contents no filter points at any more, still held
 *
 * Process context. Waits a grace period only for a kind with background
 * work: clearing a plain filter in a loop stays cheap.
 */
void bloom_contents_unpublish(struct bloom_contents *c)
{
	if (!c->ops->stop)
		return;
	bloom_contents_retire(c);
	synchronize_rcu();	/* whoever saw it published has queued */
	bloom_contents_stop(c);
}

/*
 * A net lookup probes each length held (bloom_test_net()): its rate is
 * that of all those probes, and more lengths than the filter was sized
 * for put it past its design, as keys past its capacity do.
 */
static void net_report(struct bloom_contents *c, struct bloom_report *r)
{
	u64 plens[BLOOM_PLEN_WORDS];
	unsigned int n;

	rcu_read_lock();	/* for bloom_contents_plens() */
	bloom_contents_plens(c, plens);
	rcu_read_unlock();
	n = bloom_net_lookup_lengths(plens);
	r->st.est_fpr_ppb = bloom_lookup_fpr_ppb(r->st.est_fpr_ppb, n);
	r->over |= bloom_geom_over_lengths(&c->core.g, n);
}

/**
 * bloom_contents_report() - stats of held contents
 * @c: the contents
 * @r: filled in, but for the filter's own fields
 *
 * Walks the whole array, with reschedule points: process context, and
 * no lock held.
 *
 * Return: 0 or -ENOMEM.
 */
int bloom_contents_report(struct bloom_contents *c, struct bloom_report *r)
{
	u64 *hist = kmalloc_array(BLOOM_HIST_WORDS, sizeof(u64), GFP_KERNEL);
	int err;

	if (!hist)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	err = c->ops->report(c, r, hist);
	kfree(hist);
	if (!err && c->core.g.key_type == BLOOM_KEY_NET)
		net_report(c, r);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_report);

/*
 * Set algebra needs two contents the same code understands (plain and
 * counting arrays share theirs, and their geometries are compared next);
 * anything else lacks the operation.
 */
int bloom_contents_combine(struct bloom_contents *dst,
			   struct bloom_contents *src, bool intersect)
{
	if (bloom_contents_has(dst, combine) ||
	    dst->ops->combine != src->ops->combine)
		return -EOPNOTSUPP;
	if (bloom_geom_same(&dst->core, &src->core))
		return -EINVAL;
	/*
	 * A union's /16s first (contents without a summary, restored from
	 * an older snapshot, say nothing of theirs: all of them), then the
	 * keys, as an add does. An intersection keeps @dst's,
	 * which cover it. A failed union leaves extra bits, which only cost
	 * a walk.
	 */
	if (!intersect && dst->summary && src->summary)
		bloom_summary_union(dst->summary->words, src->summary->words,
				    &dst->core.g);
	else if (!intersect && dst->summary)
		bloom_summary_fill(dst->summary->words, &dst->core.g);
	smp_wmb();	/* the /16s, then the keys (bloom_contents_note_net()) */
	return dst->ops->combine(dst, src, intersect);
}

int bloom_contents_estimate(struct bloom_contents *a, struct bloom_contents *b,
			    u64 *intersection, u64 *union_)
{
	if (bloom_contents_has(a, estimate) ||
	    a->ops->estimate != b->ops->estimate)
		return -EOPNOTSUPP;
	return a->ops->estimate(a, b, intersection, union_);
}

/* Return: the new contents, or ERR_PTR(-EOPNOTSUPP, -EINVAL, -ENOMEM). */
struct bloom_contents *bloom_contents_halve(struct bloom_contents *c)
{
	int err = bloom_contents_has(c, halve);
	struct bloom_contents *half;

	if (err)
		return ERR_PTR(err);
	half = c->ops->halve(c);
	/* The same keys, the same /16s: adds to either mark them. */
	if (!IS_ERR(half) && c->summary) {
		summary_put(half->summary);
		half->summary = summary_get(c->summary);
	}
	return half;
}

int bloom_contents_rotate(struct bloom_contents *c)
{
	return bloom_contents_has(c, rotate) ?: c->ops->rotate(c);
}

/* Kinds that do not grow have room for whatever comes. */
int bloom_contents_make_room(struct bloom_contents *c, u32 n)
{
	return c->ops->make_room ? c->ops->make_room(c, n) : 0;
}

/**
 * bloom_contents_stage() - one stage of held contents that grow
 * @c: the contents
 * @i: the stage, from 0 (the oldest)
 * @s: filled in
 *
 * Return: 0, -ENOENT past the last stage, -EOPNOTSUPP for kinds without
 * stages, -ENOMEM.
 */
int bloom_contents_stage(struct bloom_contents *c, u32 i,
			 struct bloom_stage_report *s)
{
	u64 *hist;
	int err = bloom_contents_has(c, stage);

	if (err)
		return err;
	hist = kmalloc_array(BLOOM_HIST_WORDS, sizeof(u64), GFP_KERNEL);
	if (!hist)
		return -ENOMEM;
	memset(s, 0, sizeof(*s));
	err = c->ops->stage(c, i, s, hist);
	kfree(hist);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_stage);

int bloom_contents_del(struct bloom_contents *c, u64 h)
{
	return bloom_contents_has(c, del) ?: c->ops->del(c, h);
}
EXPORT_SYMBOL_IF_KUNIT(bloom_contents_del);
