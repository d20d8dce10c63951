// SPDX-License-Identifier: GPL-2.0
/*
 * Plain contents: one bit (or counter) array of any of the four layouts
 * (design.md sections 2-4). Tests and adds are lockless; deletes from
 * counting arrays are serialised per contents (see plain_del()); a halve
 * mirrors adds into the half-size contents while it folds (plain_halve()).
 */
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <kunit/visibility.h>
#include "kinds.h"

struct bloom_plain {
	struct bloom_contents c;
	spinlock_t del_lock;		/* plain_del() */
	/* While a halve folds these contents: adds go there too (RCU). */
	struct bloom_contents __rcu *halved;
	struct bloom_bits bits;		/* flexible: last */
};

static struct bloom_plain *plain(struct bloom_contents *c)
{
	return container_of(c, struct bloom_plain, c);
}

/**
 * bloom_plain_bits() - the array of plain contents
 * @c: plain contents
 *
 * Return: the array, for tests that look at it directly.
 */
struct bloom_bits *bloom_plain_bits(struct bloom_contents *c)
{
	return &plain(c)->bits;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_plain_bits);

static size_t plain_bytes(const struct bloom_core *core)
{
	struct bloom_plain *p;

	return struct_size(p, bits.words, core->nwords);
}

static int plain_init(struct bloom_contents *c)
{
	spin_lock_init(&plain(c)->del_lock);
	c->array = &plain(c)->bits;	/* bloom_contents_test() probes it */
	return 0;
}

static bool plain_test(struct bloom_contents *c, u64 h)
{
	return bloom_test_hash(&c->core, &plain(c)->bits, h);
}

/*
 * Under rcu_read_lock(): add hashes to contents being halved into
 * @half, first there: whatever a test finds in @p is in @half too. The
 * prefix lengths @p holds go along, for a net key just noted there.
 */
static void mirror(struct bloom_plain *p, struct bloom_contents *half,
		   const u64 *h, u32 n)
{
	struct bloom_plain *q = plain(half);
	unsigned int i;

	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_or(&q->bits.plens[i],
			      bloom_word_read(&p->bits.plens[i]));
	bloom_add_batch(&half->core, &q->bits, h, n);
}

/* Under rcu_read_lock(): a pointer load and a branch when not halving. */
static bool add_one(struct bloom_plain *p, u64 h)
{
	struct bloom_contents *half = rcu_dereference(p->halved);

	if (unlikely(half))
		mirror(p, half, &h, 1);
	return bloom_add_hash(&p->c.core, &p->bits, h);
}

/*
 * A filter past its capacity answers with more false positives than it
 * was sized for. The packet path cannot ask anyone, so, like a full
 * ipset, it stops adding new keys there (tests still answer). A racy
 * read: concurrent adders may each take the last place, going past
 * capacity by at most their number.
 */
static bool full(struct bloom_plain *p)
{
	return bloom_over_capacity(&p->c.core.g,
				   bloom_word_read(&p->bits.inserted) + 1);
}

/*
 * Counting contents count every add, even of a key that tests present:
 * a later delete of another key sharing its counters must not take it
 * away. Even a key that tests present must be probed at its length.
 */
INDIRECT_CALLABLE_SCOPE int bloom_plain_add(struct bloom_contents *c, u64 h,
					    int plen)
{
	struct bloom_plain *p = plain(c);
	bool present = bloom_test_hash(&c->core, &p->bits, h);

	if (!present && full(p))
		return -ENOSPC;
	if (plen >= 0)
		bloom_note_plen(&p->bits, plen);
	if (present && c->core.g.layout != BLOOM_LAYOUT_COUNTING)
		return 1;
	return !add_one(p, h) || present;
}

static void plain_plens(struct bloom_contents *c, u64 *plens)
{
	unsigned int i;

	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		plens[i] = bloom_word_read(&plain(c)->bits.plens[i]);
}

static u32 plain_test_batch(struct bloom_contents *c, const u64 *h, u32 n,
			    u64 *present)
{
	return bloom_test_batch(&c->core, &plain(c)->bits, h, n, present);
}

/* Batches from /dev/bloom are not held to the capacity (as before). */
static u32 plain_add_batch(struct bloom_contents *c, const u64 *h,
			   const u8 *plen, u32 n)
{
	struct bloom_plain *p = plain(c);
	struct bloom_contents *half;
	u32 i;

	for (i = 0; plen && i < n; i++)
		bloom_note_plen(&p->bits, plen[i]);
	/* While a halve folds @c, first there: see add_one(). */
	half = rcu_dereference(p->halved);
	if (unlikely(half))
		mirror(p, half, h, n);
	return bloom_add_batch(&c->core, &p->bits, h, n);
}

/*
 * bloom_del_hash() tests the key, then decrements its counters: two
 * deletes of a key added once could both pass the test and take a
 * counter shared with another key to zero, a false negative for a key
 * nobody deleted. Deletes of the same contents are serialised here; adds
 * and tests stay lockless, since an add racing with a delete of the same
 * key only increments.
 */
static int plain_del(struct bloom_contents *c, u64 h)
{
	struct bloom_plain *p = plain(c);
	int err;

	spin_lock_bh(&p->del_lock);	/* bloom_del() may run in softirq */
	err = bloom_del_hash(&c->core, &p->bits, h);
	spin_unlock_bh(&p->del_lock);
	return err;
}

static u32 plain_count(struct bloom_contents *c, u64 h)
{
	return bloom_count_hash(&c->core, &plain(c)->bits, h);
}

static int plain_report(struct bloom_contents *c, struct bloom_report *r,
			u64 *hist)
{
	bloom_stats(&c->core, &plain(c)->bits, hist, &r->st);
	r->over = bloom_over_capacity(&c->core.g, r->st.inserted);
	return 0;
}

static void plain_snap_hdr(struct bloom_contents *c, struct bloom_snap_hdr *h)
{
	bloom_snap_make_hdr(&c->core, &plain(c)->bits, h);
}

static void plain_snap_words(struct bloom_contents *c, u64 first, u64 n,
			     __le64 *out)
{
	bloom_words_to_le(&plain(c)->bits.words[first], out, n);
}

static int plain_load(struct bloom_contents *c, struct bloom_payload_in *in,
		      const struct bloom_snap_info *info)
{
	struct bloom_plain *p = plain(c);
	unsigned int i;
	int err;

	err = in->words(in, p->bits.words, c->core.nwords) ?:
	      bloom_bits_check_tail(&c->core, &p->bits) ?: in->verify(in);
	if (err)
		return err;
	bloom_word_set(&p->bits.inserted, info->inserted);
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_set(&p->bits.plens[i], info->plens[i]);
	return 0;
}

/* Set the inserted count of @dst after a merge into it. */
static void merge_count(struct bloom_plain *dst, u64 est, u64 sum)
{
	bloom_word_set(&dst->bits.inserted, min(est, sum));
}

/*
 * Union or intersect @src into @dst. The inserted count becomes the
 * estimated size of the result, measured before merging (no more than
 * the sum, or the smaller count, of the two).
 */
static int plain_combine(struct bloom_contents *dst, struct bloom_contents *src,
			 bool intersect)
{
	struct bloom_plain *d = plain(dst), *s = plain(src);
	u64 nd = bloom_word_read(&d->bits.inserted);
	u64 ns = bloom_word_read(&s->bits.inserted);
	u64 *hist, est;
	int err = bloom_geom_same(&dst->core, &src->core);

	if (err)
		return err;
	hist = kmalloc_array(BLOOM_HIST_WORDS, sizeof(u64), GFP_KERNEL);
	if (!hist)
		return -ENOMEM;
	if (intersect) {
		est = bloom_est_intersection(&dst->core, &d->bits, &s->bits,
					     hist);
		bloom_intersect(&dst->core, &d->bits, &s->bits);
		merge_count(d, est, min(nd, ns));
	} else {
		est = bloom_est_union(&dst->core, &d->bits, &s->bits, hist);
		bloom_union(&dst->core, &d->bits, &s->bits);
		merge_count(d, est, nd + ns < nd ? U64_MAX : nd + ns);
	}
	kfree(hist);
	return 0;
}

static int plain_estimate(struct bloom_contents *a, struct bloom_contents *b,
			  u64 *intersection, u64 *union_)
{
	int err = bloom_geom_same(&a->core, &b->core);
	u64 *hist;

	if (err)
		return err;
	hist = kmalloc_array(BLOOM_HIST_WORDS, sizeof(u64), GFP_KERNEL);
	if (!hist)
		return -ENOMEM;
	*intersection = bloom_est_intersection(&a->core, &plain(a)->bits,
					       &plain(b)->bits, hist);
	*union_ = bloom_est_union(&a->core, &plain(a)->bits, &plain(b)->bits,
				  hist);
	kfree(hist);
	return 0;
}

/* New contents of this kind (plain or counting, as @ops says). */
static struct bloom_contents *plain_new(const struct bloom_kind_ops *ops,
					const struct bloom_geom *g)
{
	struct bloom_contents *c;
	struct bloom_core core;

	bloom_core_init(&core, g);
	c = bloom_array_alloc(plain_bytes(&core));
	if (!c)
		return NULL;
	bloom_contents_init(c, ops, &core);
	plain_init(c);
	return c;
}

/*
 * Under the registry lock, so that another halve cannot fold the new
 * contents while adds still mirror into them. No add is ever invisible:
 * first every add to @c also goes to the new contents (@halved, see
 * add_one()), and after a grace period no add can still be writing @c
 * without doing so; only then is @c folded in. Readers see @c, which
 * holds every completed add, until the registry publishes the result,
 * which holds them too. The result is smaller than @c, so publishing it
 * cannot fail; @halved stays set until @c is freed, for adds still on
 * it. For counting filters the fold keeps the larger of two counters (a
 * fold is idempotent): an add mirrored into a counter the fold has not
 * reached yet may be counted once for two keys, so a later delete of one
 * can remove the other; and a delete racing with the fold is not
 * mirrored, so the key may test present again after it.
 */
static struct bloom_contents *plain_halve(struct bloom_contents *c)
{
	struct bloom_plain *p = plain(c);
	struct bloom_contents *half;
	struct bloom_geom g;
	int err = bloom_halve_geom(&c->core.g, &g);

	if (err)
		return ERR_PTR(err);
	half = plain_new(c->ops, &g);
	if (!half)
		return ERR_PTR(-ENOMEM);
	rcu_assign_pointer(p->halved, half);
	synchronize_rcu();	/* every add still writing @c mirrors */
	bloom_halve(&c->core, &p->bits, &half->core, &plain(half)->bits);
	return half;
}

#define PLAIN_OPS							\
	.bytes = plain_bytes,						\
	.init = plain_init,						\
	.test = plain_test,					\
	.add = bloom_plain_add,						\
	.plens = plain_plens,						\
	.test_batch = plain_test_batch,					\
	.add_batch = plain_add_batch,					\
	.count = plain_count,						\
	.report = plain_report,						\
	.snap_hdr = plain_snap_hdr,					\
	.snap_words = plain_snap_words,					\
	.load = plain_load,						\
	.combine = plain_combine,					\
	.estimate = plain_estimate,					\
	.halve = plain_halve

const struct bloom_kind_ops bloom_plain_ops = {
	PLAIN_OPS,
};

/* Counters can be decremented: the one kind of these that deletes. */
const struct bloom_kind_ops bloom_counting_ops = {
	PLAIN_OPS,
	.del = plain_del,
};
