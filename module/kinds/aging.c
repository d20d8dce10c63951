// SPDX-License-Identifier: GPL-2.0
/*
 * Aging filters: G generations of one geometry that rotate (design.md
 * section 9; struct bloom_aging below describes the layout of the contents).
 *
 * The guarantee. Number the views a contents publishes 0, 1, 2, ... An
 * add loads view v under RCU and sets its bits in the newest array of v.
 * That array stays live in views v .. v + G - 1; view v + G drops it, and
 * it is emptied only a grace period after that view is published, when
 * no reader can still hold an earlier view. So every test that loads a
 * view before v + G finds the key: no false negative while fewer than G
 * rotations have been published since the add loaded its view, which is
 * at least G - 1 rotations after the add returned. With rotations every
 * T only, the array an add lands in is younger than T, so the key is
 * present for at least (G - 1) T and at most G T after its last add.
 * Rotations because the newest is full, or on request, come on top of
 * the timer's: each takes up to one period off the window.
 *
 * The work a filter makes is bounded: the period is at least
 * BLOOM_AGE_PERIOD_MIN_MS, and a rotation the full newest asks for waits
 * until the newest is that old, so the work runs at most ten rotations a
 * second per filter, each emptying one array, and a namespace's at most
 * that times its filter limit (its byte limit bounds what is emptied).
 * Only ROTATE (and bloom_rotate()) rotates at once: its caller waits
 * for it and pays for it.
 *
 * Rotations run in process context (the contents' delayed work, the
 * ROTATE ioctl, bloom_rotate()), serialised per contents by their lock.
 * The packet path only reads the view; when the newest is full it sets
 * ROTATE_DUE and kicks the work, never waits.
 */
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>
#include "kinds.h"

#define CLEAR_STEP	65536	/* words between reschedule points */

/* Which array is which generation; replaced whole, under RCU. */
struct bloom_age_view {
	struct rcu_head rcu;
	u8 live[BLOOM_GENERATIONS_MAX];	/* array indexes, newest first */
	u8 spare;			/* empty, not probed */
	u64 birth[BLOOM_GENERATIONS_MAX + 1];	/* ns, boot time, by array */
};

/*
 * Aging contents hold G + 1 arrays of the same geometry back to back
 * from @bits, @stride bytes apart: G live generations and one spare kept
 * empty. Which array is the newest, the order of the others and their
 * birth times are in @view, replaced whole by each rotation; an array
 * dropped by a rotation is only emptied a grace period later, once no
 * reader can still be using the view that listed it. Rotations are
 * serialised by @lock and driven by @work while the contents are
 * published (whichever filter they are under: a swap moves them whole).
 */
struct bloom_aging {
	struct bloom_contents c;
	struct mutex lock;		/* serialises rotations */
	struct bloom_age_view __rcu *view;
	size_t stride;			/* bytes from one array to the next */
	u64 rotations;			/* WRITE_ONCE under @lock */
	struct delayed_work work;
	struct bloom_bits bits;		/* flexible: last */
};

/* Set when the newest is full and a rotation was requested. */
#define ROTATE_DUE	BLOOM_C_KIND

static struct bloom_aging *aging(struct bloom_contents *c)
{
	return container_of(c, struct bloom_aging, c);
}

/* Array @i (0..G). */
static struct bloom_bits *array(struct bloom_aging *a, unsigned int i)
{
	return (struct bloom_bits *)((u8 *)&a->bits + i * a->stride);
}

/*
 * One array with its counters, padded so that the next starts aligned;
 * SIZE_MAX when that does not fit in a size_t (ALIGN() would wrap it to
 * a small number).
 */
static size_t array_stride(const struct bloom_core *core)
{
	struct bloom_aging *a;
	size_t bytes = struct_size(&a->bits, words, core->nwords);

	if (bytes > SIZE_MAX - BLOOM_BLOCK_BITS / 8)
		return SIZE_MAX;
	return ALIGN(bytes, BLOOM_BLOCK_BITS / 8);
}

/* The G generations and the spare; saturating. */
static size_t aging_bytes(const struct bloom_core *core)
{
	return size_add(offsetof(struct bloom_aging, bits),
			size_mul(array_stride(core), core->g.gens + 1));
}

static u64 now_ns(void)
{
	return ktime_get_boottime_ns();
}

static void age_work(struct work_struct *w);

/* New aging contents: the arrays are zeroed, all born now. */
static int aging_init(struct bloom_contents *c)
{
	struct bloom_age_view *v = kzalloc(sizeof(*v), GFP_KERNEL_ACCOUNT);
	unsigned int i, gens = c->core.g.gens;
	struct bloom_aging *a = aging(c);
	u64 now = now_ns();

	if (!v)
		return -ENOMEM;
	for (i = 0; i < gens; i++)
		v->live[i] = i;
	v->spare = gens;
	for (i = 0; i <= gens; i++)
		v->birth[i] = now;
	mutex_init(&a->lock);
	a->stride = array_stride(&c->core);
	INIT_DELAYED_WORK(&a->work, age_work);
	RCU_INIT_POINTER(a->view, v);
	return 0;
}

/* Past the contents' last grace period, or never published. */
static void aging_destroy(struct bloom_contents *c)
{
	kfree(rcu_dereference_protected(aging(c)->view, 1));
}

/**
 * bloom_age_find() - which generation holds a key?
 * @c: aging contents, under rcu_read_lock()
 * @h: the key's hash
 * @newest: set to the newest array, where adds go
 *
 * Loads the view once: the arrays it lists stay unchanged but for adds
 * until the caller's read-side section ends.
 *
 * Return: the position of the newest generation holding @h (0 for the
 * newest), or -1.
 */
int bloom_age_find(struct bloom_contents *c, u64 h, struct bloom_bits **newest)
{
	struct bloom_aging *a = aging(c);
	const struct bloom_age_view *v = rcu_dereference(a->view);
	unsigned int i;

	*newest = array(a, v->live[0]);
	for (i = 0; i < c->core.g.gens; i++)
		if (bloom_test_hash(&c->core, array(a, v->live[i]), h))
			return i;
	return -1;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_age_find);

static bool aging_test(struct bloom_contents *c, u64 h)
{
	struct bloom_bits *newest;

	return bloom_age_find(c, h, &newest) >= 0;
}

/* The prefix lengths of all live generations, under rcu_read_lock(). */
static void aging_plens(struct bloom_contents *c, u64 *plens)
{
	struct bloom_aging *a = aging(c);
	const struct bloom_age_view *v = rcu_dereference(a->view);
	unsigned int i, j;

	for (j = 0; j < BLOOM_PLEN_WORDS; j++) {
		plens[j] = 0;
		for (i = 0; i < c->core.g.gens; i++)
			plens[j] |= bloom_word_read(&array(a, v->live[i])->plens[j]);
	}
}

/**
 * bloom_age_rotations() - rotations published so far
 * @c: aging contents
 *
 * Return: a count that, once read, is matched or passed by the view any
 * later rcu_dereference() of the view sees.
 */
u64 bloom_age_rotations(struct bloom_contents *c)
{
	/* Pairs with the release in rotate_locked(). */
	return smp_load_acquire(&aging(c)->rotations);
}
EXPORT_SYMBOL_IF_KUNIT(bloom_age_rotations);

/* Empty an array no reader can reach, with reschedule points. */
static void clear_array(struct bloom_contents *c, struct bloom_bits *b)
{
	u64 i;

	bloom_word_set(&b->inserted, 0);
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_set(&b->plens[i], 0);
	for (i = 0; i < c->core.nwords; i++) {
		bloom_word_set(&b->words[i], 0);
		if (!(i % CLEAR_STEP))
			cond_resched();
	}
}

/* Under a->lock. */
static struct bloom_age_view *view_locked(struct bloom_aging *a)
{
	return rcu_dereference_protected(a->view, lockdep_is_held(&a->lock));
}

/* For KUnit: hold the rotation lock of aging contents. */
void bloom_age_lock(struct bloom_contents *c)
{
	mutex_lock(&aging(c)->lock);
}
EXPORT_SYMBOL_IF_KUNIT(bloom_age_lock);

void bloom_age_unlock(struct bloom_contents *c)
{
	mutex_unlock(&aging(c)->lock);
}
EXPORT_SYMBOL_IF_KUNIT(bloom_age_unlock);

/* Under a->lock: make the spare the newest, drop and empty the oldest. */
static int rotate_locked(struct bloom_aging *a)
{
	unsigned int gens = a->c.core.g.gens, dropped;
	struct bloom_age_view *old = view_locked(a), *v;

	v = kmemdup(old, sizeof(*old), GFP_KERNEL_ACCOUNT);
	if (!v)
		return -ENOMEM;
	dropped = old->live[gens - 1];
	memcpy(&v->live[1], &old->live[0], gens - 1);
	v->live[0] = old->spare;
	v->spare = dropped;
	v->birth[v->live[0]] = now_ns();
	rcu_assign_pointer(a->view, v);
	/* Pairs with bloom_age_rotations(): the count never runs ahead. */
	smp_store_release(&a->rotations, a->rotations + 1);
	/*
	 * Readers of @old may still probe the dropped array, and adders
	 * may still write the previous newest, which @v keeps live. After
	 * a grace period nobody can reach the dropped array: empty it.
	 */
	synchronize_rcu();
	kfree(old);
	clear_array(&a->c, array(a, dropped));
	/* Adders seeing the full newest of @old are gone: a new request is new. */
	clear_bit(ROTATE_DUE, &a->c.flags);
	return 0;
}

/**
 * bloom_age_rotate() - rotate aging contents now
 * @c: aging contents, held
 *
 * Process context; waits for a grace period and for a rotation already
 * running.
 *
 * Return: 0, -EINTR (killed while waiting) or -ENOMEM.
 */
int bloom_age_rotate(struct bloom_contents *c)
{
	struct bloom_aging *a = aging(c);
	int err = mutex_lock_killable(&a->lock);

	if (err)
		return err;
	err = rotate_locked(a);
	mutex_unlock(&a->lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_age_rotate);

/* Under a->lock or RCU: how long the newest has been the newest. */
static u64 newest_age_ns(const struct bloom_age_view *v)
{
	u64 now = now_ns(), birth = v->birth[v->live[0]];

	return now > birth ? now - birth : 0;
}

/*
 * Rotate if due; the delay until the next check, or 0 for none. A full
 * newest is rotated once it is BLOOM_AGE_PERIOD_MIN_MS old, not before.
 */
static unsigned long tick(struct bloom_aging *a)
{
	u64 period = (u64)a->c.core.g.period_ms * NSEC_PER_MSEC, age;
	u64 soonest = (u64)BLOOM_AGE_PERIOD_MIN_MS * NSEC_PER_MSEC, due = 0;
	bool full = test_bit(ROTATE_DUE, &a->c.flags);

	mutex_lock(&a->lock);
	age = newest_age_ns(view_locked(a));
	if ((full && age >= soonest) || (period && age >= period)) {
		if (rotate_locked(a)) {
			mutex_unlock(&a->lock);
			return HZ;	/* no memory: try again later */
		}
		age = 0;
		full = test_bit(ROTATE_DUE, &a->c.flags);
	}
	mutex_unlock(&a->lock);
	if (full)
		due = soonest;
	if (period && (!due || period < due))
		due = period;
	return due ? nsecs_to_jiffies(due - min(age, due)) + 1 : 0;
}

/*
 * The contents' rotation work. The contents outlive it: the registry
 * stops it (aging_stop()) before it lets go of them.
 */
static void age_work(struct work_struct *w)
{
	struct bloom_aging *a = container_of(to_delayed_work(w),
					     struct bloom_aging, work);
	unsigned long next = tick(a);

	/*
	 * A stale read only queues once more: retiring sets the bit a
	 * grace period before aging_stop(), whose
	 * cancel_delayed_work_sync() also stops a work that requeues
	 * itself.
	 */
	if (next && !test_bit(BLOOM_C_RETIRED, &a->c.flags))
		queue_delayed_work(system_power_efficient_wq, &a->work, next);
}

/*
 * Published: the work looks at the contents it finds. A rotation is due
 * at once when the newest is older than the period (restored ages),
 * else the work sleeps until it is.
 */
static void aging_start(struct bloom_contents *c)
{
	mod_delayed_work(system_power_efficient_wq, &aging(c)->work, 0);
}

static void aging_stop(struct bloom_contents *c)
{
	cancel_delayed_work_sync(&aging(c)->work);
}

/*
 * Ask for a rotation, from any context, under rcu_read_lock(); never
 * waits. Only the first request per rotation queues the work: while it
 * is held back (the newest younger than BLOOM_AGE_PERIOD_MIN_MS) the
 * work requeues itself with the delay left, and a request queued at 0
 * would run it again and again meanwhile.
 */
static void kick(struct bloom_aging *a)
{
	/*
	 * Under RCU: bloom_contents_unpublish() waits a grace period after
	 * retiring before it stops the work, so this queueing is cancelled
	 * too.
	 */
	if (test_bit(BLOOM_C_RETIRED, &a->c.flags))
		return;
	if (!test_bit(ROTATE_DUE, &a->c.flags) &&
	    !test_and_set_bit(ROTATE_DUE, &a->c.flags))
		mod_delayed_work(system_power_efficient_wq, &a->work, 0);
}

/*
 * Is the newest, @b, too full for a new key? A filter that rotates when
 * full asks for a rotation and keeps adding to the newest until it has
 * run (at most BLOOM_AGE_PERIOD_MIN_MS after the last), but to twice its
 * capacity at most: a flood of new keys must not fill it until every
 * test answers "seen". A racy read, as for plain contents.
 */
static bool full(struct bloom_aging *a, struct bloom_bits *b)
{
	const struct bloom_geom *g = &a->c.core.g;

	if (!bloom_over_capacity(g, bloom_word_read(&b->inserted) + 1))
		return false;
	if (!(g->age_flags & BLOOM_AGE_F_FULL))
		return true;
	kick(a);
	return bloom_over_capacity(g, (bloom_word_read(&b->inserted) + 2) / 2);
}

/*
 * A test looks in every generation, an add goes to the newest. Only a
 * key no generation holds is new, so only it meets the capacity: a
 * renewal (a key an older generation holds, copied into the newest)
 * adds nothing to the set the filter answers for, and skipping it would
 * let the key expire while the caller was told it was added. Renewals
 * can take the newest past its capacity by at most the keys the older
 * generations hold.
 */
static int aging_add(struct bloom_contents *c, u64 h, int plen)
{
	struct bloom_bits *newest;
	int at = bloom_age_find(c, h, &newest);

	if (at < 0 && full(aging(c), newest))
		return -ENOSPC;
	/* Even a key the newest holds (perhaps a false positive). */
	if (plen >= 0)
		bloom_note_plen(newest, plen);
	/* Counting arrays count every add, as plain ones do. */
	if (at == 0 && c->core.g.layout != BLOOM_LAYOUT_COUNTING)
		return 1;
	return !bloom_add_hash(&c->core, newest, h) || at >= 0;
}

static u32 aging_test_batch(struct bloom_contents *c, const u64 *h, u32 n,
			    u64 *present)
{
	u32 i, hits = 0;

	memset(present, 0, DIV_ROUND_UP(n, 64) * sizeof(u64));
	for (i = 0; i < n; i++) {
		if (!aging_test(c, h[i]))
			continue;
		present[i / 64] |= 1ULL << (i % 64);
		hits++;
	}
	return hits;
}

/*
 * Key by key: a key only in an older generation is renewed, and the
 * count is of keys no generation held. Like the packet path, a full
 * newest asks for a rotation; unlike it, batches are not refused.
 */
static u32 aging_add_batch(struct bloom_contents *c, const u64 *h,
			   const u8 *plen, u32 n)
{
	struct bloom_bits *newest = NULL;
	u32 i, fresh = 0;

	for (i = 0; i < n; i++) {
		int at = bloom_age_find(c, h[i], &newest);

		fresh += at < 0;
		if (plen)
			bloom_note_plen(newest, plen[i]);
		if (at)
			bloom_add_hash(&c->core, newest, h[i]);
	}
	if (newest && (c->core.g.age_flags & BLOOM_AGE_F_FULL) &&
	    bloom_over_capacity(&c->core.g, bloom_word_read(&newest->inserted)))
		kick(aging(c));
	return fresh;
}

/* One pass over the generations of @v. */
static void report_view(struct bloom_aging *a, const struct bloom_age_view *v,
			struct bloom_report *r, u64 *hist)
{
	u64 now = now_ns();
	unsigned int i;

	memset(&r->st, 0, sizeof(r->st));
	for (i = 0; i < a->c.core.g.gens; i++) {
		struct bloom_gen_report *g = &r->gen[i];
		u64 birth = v->birth[v->live[i]];

		bloom_stats(&a->c.core, array(a, v->live[i]), hist, &g->st);
		g->age_ms = now > birth ? div_u64(now - birth, NSEC_PER_MSEC) : 0;
		bloom_stats_fold(&r->st, &g->st);
	}
}

/*
 * Per-generation stats, newest first in @r->gen, @r->st over all
 * generations. Takes no lock: a reader that is slow (or throttled) never
 * holds up a rotation. It copies the view under RCU and walks the arrays
 * it names without it; they stay allocated while @c is held. A rotation
 * during the walk may empty the oldest array under it; then the walk is
 * done once more on the new view. If a rotation runs during that one
 * too, the figures of the generation it dropped are of a partly emptied
 * array (between its count before and zero), and @r->rotations says
 * which view the report is of.
 */
static int aging_report(struct bloom_contents *c, struct bloom_report *r,
			u64 *hist)
{
	struct bloom_aging *a = aging(c);
	struct bloom_age_view v;
	unsigned int tries;
	u64 seen;

	for (tries = 0; tries < 2; tries++) {
		rcu_read_lock();
		seen = bloom_age_rotations(c);
		v = *rcu_dereference(a->view);
		rcu_read_unlock();
		report_view(a, &v, r, hist);
		r->rotations = seen;
		if (bloom_age_rotations(c) == seen)
			break;
	}
	r->st.mem_bytes = bloom_array_bytes(&c->core) * (c->core.g.gens + 1);
	r->over = bloom_over_capacity(&c->core.g, r->gen[0].st.inserted);
	return 0;
}

#define GEN_WORDS	(sizeof(struct bloom_snap_gen) / sizeof(u64))

/* The snapshot header: counts summed, prefix lengths united. */
static void aging_snap_hdr(struct bloom_contents *c, struct bloom_snap_hdr *h)
{
	struct bloom_aging *a = aging(c);
	const struct bloom_age_view *v;
	u64 inserted = 0, plens[BLOOM_PLEN_WORDS];
	unsigned int i;

	bloom_snap_make_hdr(&c->core, &a->bits, h);
	mutex_lock(&a->lock);
	v = view_locked(a);
	rcu_read_lock();	/* for aging_plens(); the lock would do */
	aging_plens(c, plens);
	rcu_read_unlock();
	for (i = 0; i < c->core.g.gens; i++)
		inserted += bloom_word_read(&array(a, v->live[i])->inserted);
	mutex_unlock(&a->lock);
	h->inserted = cpu_to_le64(inserted);
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		h->plens[i] = cpu_to_le64(plens[i]);
}

/* Word @f of the record of the generation at @pos, in view @v. */
static u64 gen_word(struct bloom_aging *a, const struct bloom_age_view *v,
		    unsigned int pos, unsigned int f, u64 now)
{
	const struct bloom_bits *b = array(a, v->live[pos]);
	u64 birth = v->birth[v->live[pos]];

	switch (f) {
	case 0:
		return now > birth ? div_u64(now - birth, NSEC_PER_MSEC) : 0;
	case 1:
		return bloom_word_read(&b->inserted);
	default:
		return bloom_word_read(&b->plens[f - 2]);
	}
}

/*
 * Words of the payload: G records, then G arrays, newest first. Holds
 * the lock, so that no array is emptied while it is copied: the caller
 * keeps @n small (a bounce buffer) and copies to userspace without it.
 */
static void aging_snap_words(struct bloom_contents *c, u64 first, u64 n,
			     __le64 *out)
{
	u64 rec = c->core.g.gens * GEN_WORDS, nw = c->core.nwords, w = first;
	struct bloom_aging *a = aging(c);
	const struct bloom_age_view *v;
	u64 now = now_ns();

	mutex_lock(&a->lock);
	v = view_locked(a);
	for (; w < first + n && w < rec; w++)
		*out++ = cpu_to_le64(gen_word(a, v, w / GEN_WORDS,
					      w % GEN_WORDS, now));
	while (w < first + n) {
		u64 pos = (w - rec) / nw, i = (w - rec) % nw;
		u64 run = min(first + n - w, nw - i);

		bloom_words_to_le(&array(a, v->live[pos])->words[i], out, run);
		out += run;
		w += run;
	}
	mutex_unlock(&a->lock);
}

/* A rotation changes the payload as a replacement does. */
static u64 aging_snap_changes(struct bloom_contents *c)
{
	return bloom_age_rotations(c);
}

/*
 * Give new contents a snapshot's generations (records verified with the
 * rest of the payload); the ages resume: a generation saved at age a
 * was born a ago. -EINVAL for prefix lengths past 128.
 */
static int apply_records(struct bloom_aging *a,
			 const struct bloom_snap_gen *gens)
{
	struct bloom_age_view *v = rcu_dereference_protected(a->view, 1);
	u64 now = now_ns();
	unsigned int i, j;

	for (i = 0; i < a->c.core.g.gens; i++)
		if (le64_to_cpu(gens[i].plens[BLOOM_PLEN_WORDS - 1]) >> 1)
			return -EINVAL;
	for (i = 0; i < a->c.core.g.gens; i++) {
		struct bloom_bits *b = array(a, v->live[i]);
		u64 age = le64_to_cpu(gens[i].age_ms);

		bloom_word_set(&b->inserted, le64_to_cpu(gens[i].inserted));
		for (j = 0; j < BLOOM_PLEN_WORDS; j++)
			bloom_word_set(&b->plens[j],
				       le64_to_cpu(gens[i].plens[j]));
		age = age > div_u64(now, NSEC_PER_MSEC) ? now :
		      age * NSEC_PER_MSEC;
		v->birth[v->live[i]] = now - age;
	}
	return 0;
}

/* The records, then the arrays, newest first, into arrays 0..G-1. */
static int aging_load(struct bloom_contents *c, struct bloom_payload_in *in,
		      const struct bloom_snap_info *info)
{
	struct bloom_snap_gen *gens;
	struct bloom_aging *a = aging(c);
	unsigned int i;
	int err;

	gens = kcalloc(c->core.g.gens, sizeof(*gens), GFP_KERNEL);
	if (!gens)
		return -ENOMEM;
	err = in->bytes(in, gens, c->core.g.gens * sizeof(*gens));
	for (i = 0; i < c->core.g.gens && !err; i++)
		err = in->words(in, array(a, i)->words, c->core.nwords) ?:
		      bloom_bits_check_tail(&c->core, array(a, i));
	if (!err)
		err = in->verify(in) ?: apply_records(a, gens);
	kfree(gens);
	return err;
}

/*
 * Set algebra and halving are left out: generations of two filters have
 * unrelated ages, and folding G arrays while they rotate is not worth
 * its complexity. Deletes and counts make no sense across generations.
 */
const struct bloom_kind_ops bloom_aging_ops = {
	.bytes = aging_bytes,
	.init = aging_init,
	.destroy = aging_destroy,
	.start = aging_start,
	.stop = aging_stop,
	.test = aging_test,
	.add = aging_add,
	.plens = aging_plens,
	.test_batch = aging_test_batch,
	.add_batch = aging_add_batch,
	.report = aging_report,
	.snap_hdr = aging_snap_hdr,
	.snap_words = aging_snap_words,
	.snap_changes = aging_snap_changes,
	.load = aging_load,
	.rotate = bloom_age_rotate,
};
EXPORT_SYMBOL_IF_KUNIT(bloom_aging_ops);
