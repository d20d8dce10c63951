// SPDX-License-Identifier: GPL-2.0
/*
 * Aging filters: G generations of one geometry that rotate (design.md
 * section 9; registry.h describes the layout of the contents).
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
 * Rotations run in process context (the filter's delayed work, the
 * ROTATE ioctl, bloom_rotate()), serialised per contents by age.lock.
 * The packet path only reads the view; when the newest is full it sets
 * BLOOM_C_ROTATE_DUE and kicks the work, never waits.
 */
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>
#include "registry.h"

#define CLEAR_STEP	65536	/* words between reschedule points */

static u64 now_ns(void)
{
	return ktime_get_boottime_ns();
}

/* New aging contents: the arrays are zeroed, all born now. */
int bloom_age_init(struct bloom_contents *c)
{
	struct bloom_age_view *v = kzalloc(sizeof(*v), GFP_KERNEL_ACCOUNT);
	unsigned int i, gens = c->core.g.gens;
	u64 now = now_ns();

	if (!v)
		return -ENOMEM;
	for (i = 0; i < gens; i++)
		v->live[i] = i;
	v->spare = gens;
	for (i = 0; i <= gens; i++)
		v->birth[i] = now;
	mutex_init(&c->age.lock);
	RCU_INIT_POINTER(c->age.view, v);
	return 0;
}

/* Contents never published, or past their last grace period. */
void bloom_age_free(struct bloom_contents *c)
{
	kfree(rcu_dereference_protected(c->age.view, 1));
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
	const struct bloom_age_view *v = rcu_dereference(c->age.view);
	unsigned int i;

	*newest = bloom_age_array(c, v->live[0]);
	for (i = 0; i < c->core.g.gens; i++)
		if (bloom_test_hash(&c->core, bloom_age_array(c, v->live[i]), h))
			return i;
	return -1;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_age_find);

/**
 * bloom_plens_rcu() - the prefix lengths contents hold
 * @c: contents, under rcu_read_lock()
 * @plens: filled in; for aging contents those of all live generations
 */
void bloom_plens_rcu(struct bloom_contents *c, u64 plens[BLOOM_PLEN_WORDS])
{
	const struct bloom_age_view *v;
	unsigned int i, j;

	for (j = 0; j < BLOOM_PLEN_WORDS; j++)
		plens[j] = bloom_word_read(&c->bits.plens[j]);
	if (!bloom_aged(c))
		return;
	v = rcu_dereference(c->age.view);
	for (j = 0; j < BLOOM_PLEN_WORDS; j++) {
		plens[j] = 0;
		for (i = 0; i < c->core.g.gens; i++)
			plens[j] |= bloom_word_read(&bloom_age_array(c, v->live[i])->plens[j]);
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
	return smp_load_acquire(&c->age.rotations);
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

/* Under c->age.lock: make the spare the newest, drop and empty the oldest. */
static int rotate_locked(struct bloom_contents *c)
{
	unsigned int gens = c->core.g.gens, dropped;
	struct bloom_age_view *old, *v;

	old = rcu_dereference_protected(c->age.view,
					lockdep_is_held(&c->age.lock));
	v = kmemdup(old, sizeof(*old), GFP_KERNEL_ACCOUNT);
	if (!v)
		return -ENOMEM;
	dropped = old->live[gens - 1];
	memcpy(&v->live[1], &old->live[0], gens - 1);
	v->live[0] = old->spare;
	v->spare = dropped;
	v->birth[v->live[0]] = now_ns();
	rcu_assign_pointer(c->age.view, v);
	/* Pairs with bloom_age_rotations(): the count never runs ahead. */
	smp_store_release(&c->age.rotations, c->age.rotations + 1);
	/*
	 * Readers of @old may still probe the dropped array, and adders
	 * may still write the previous newest, which @v keeps live. After
	 * a grace period nobody can reach the dropped array: empty it.
	 */
	synchronize_rcu();
	kfree(old);
	clear_array(c, bloom_age_array(c, dropped));
	/* Adders seeing the full newest of @old are gone: a new request is new. */
	clear_bit(BLOOM_C_ROTATE_DUE, &c->flags);
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
	int err = mutex_lock_killable(&c->age.lock);

	if (err)
		return err;
	err = rotate_locked(c);
	mutex_unlock(&c->age.lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(bloom_age_rotate);

/* Under c->age.lock. */
static const struct bloom_age_view *view_locked(struct bloom_contents *c)
{
	return rcu_dereference_protected(c->age.view,
					 lockdep_is_held(&c->age.lock));
}

/* Under c->age.lock or RCU: how long the newest has been the newest. */
static u64 newest_age_ns(struct bloom_contents *c,
			 const struct bloom_age_view *v)
{
	u64 now = now_ns(), birth = v->birth[v->live[0]];

	return now > birth ? now - birth : 0;
}

/*
 * Rotate if due; the delay until the next check, or 0 for none. A full
 * newest is rotated once it is BLOOM_AGE_PERIOD_MIN_MS old, not before.
 */
static unsigned long tick(struct bloom_contents *c)
{
	u64 period = (u64)c->core.g.period_ms * NSEC_PER_MSEC, age;
	u64 soonest = (u64)BLOOM_AGE_PERIOD_MIN_MS * NSEC_PER_MSEC, due = 0;
	bool full = test_bit(BLOOM_C_ROTATE_DUE, &c->flags);

	mutex_lock(&c->age.lock);
	age = newest_age_ns(c, view_locked(c));
	if ((full && age >= soonest) || (period && age >= period)) {
		if (rotate_locked(c)) {
			mutex_unlock(&c->age.lock);
			return HZ;	/* no memory: try again later */
		}
		age = 0;
		full = test_bit(BLOOM_C_ROTATE_DUE, &c->flags);
	}
	mutex_unlock(&c->age.lock);
	if (full)
		due = soonest;
	if (period && (!due || period < due))
		due = period;
	return due ? nsecs_to_jiffies(due - min(age, due)) + 1 : 0;
}

/*
 * The filter's rotation work. The filter outlives it: bloom_age_stop()
 * cancels it before the registry lets go of the filter.
 */
static void age_work(struct work_struct *w)
{
	struct bloom_filter *f = container_of(to_delayed_work(w),
					      struct bloom_filter, age_work);
	struct bloom_contents *c = bloom_contents_get(f);
	unsigned long next = bloom_aged(c) ? tick(c) : 0;

	/*
	 * A stale read only queues once more: bloom_age_stop() sets the
	 * flag first, and its cancel_delayed_work_sync() also stops a
	 * work that requeues itself.
	 */
	if (next && !READ_ONCE(f->unlisted))
		queue_delayed_work(system_power_efficient_wq, &f->age_work,
				   next);
	bloom_contents_put(c);
}

void bloom_age_work_init(struct bloom_filter *f)
{
	INIT_DELAYED_WORK(&f->age_work, age_work);
}

/**
 * bloom_age_arm() - start rotating newly published contents
 * @f: a listed filter, under bn->lock
 * @c: its new contents
 *
 * The work looks at the contents it finds: a rotation is due at once
 * when the newest is older than the period (restored ages), else the
 * work sleeps until it is.
 */
void bloom_age_arm(struct bloom_filter *f, struct bloom_contents *c)
{
	if (!bloom_aged(c) || READ_ONCE(f->unlisted))
		return;
	f->armed = true;
	mod_delayed_work(system_power_efficient_wq, &f->age_work, 0);
}

/**
 * bloom_age_kick() - ask for a rotation, from any context
 * @f: the filter
 * @c: its aging contents, under rcu_read_lock()
 *
 * Never waits. Only the first request per rotation queues the work; the
 * newest generation takes more keys until the rotation runs.
 */
void bloom_age_kick(struct bloom_filter *f, struct bloom_contents *c)
{
	/*
	 * Under RCU: bloom_age_stop() waits a grace period after setting
	 * @unlisted before it cancels, so this queueing is cancelled too.
	 */
	if (READ_ONCE(f->unlisted))
		return;
	/*
	 * Only the first request per rotation queues the work: while it is
	 * held back (the newest younger than BLOOM_AGE_PERIOD_MIN_MS) the
	 * work requeues itself with the delay left, and a request queued
	 * at 0 would run it again and again meanwhile. A swap that moves
	 * @c to another filter re-arms that filter's work (bloom_age_arm()).
	 */
	if (!test_bit(BLOOM_C_ROTATE_DUE, &c->flags) &&
	    !test_and_set_bit(BLOOM_C_ROTATE_DUE, &c->flags))
		mod_delayed_work(system_power_efficient_wq, &f->age_work, 0);
}

/**
 * bloom_age_stop() - stop a filter's rotations for good
 * @f: a filter whose @unlisted was set under bn->lock
 *
 * Process context. After it, nothing queues the work again, and the
 * filter may be freed.
 */
void bloom_age_stop(struct bloom_filter *f)
{
	if (!f->armed)
		return;
	synchronize_rcu();	/* kickers that saw it listed have queued */
	bloom_age_cancel(f);
}

/**
 * bloom_age_cancel() - bloom_age_stop() for a caller that already waited
 * @f: a filter whose @unlisted was set, then a grace period passed
 *
 * Lets namespace exit wait one grace period for all its filters.
 */
void bloom_age_cancel(struct bloom_filter *f)
{
	if (f->armed)
		cancel_delayed_work_sync(&f->age_work);
}

/* Fold one generation's stats into the filter's. */
static void add_gen(struct bloom_stats *sum, const struct bloom_stats *g)
{
	sum->bits_set += g->bits_set;
	sum->fill_ppb = max(sum->fill_ppb, g->fill_ppb);
	sum->est_card = g->est_card == U64_MAX || sum->est_card == U64_MAX ?
			U64_MAX : sum->est_card + g->est_card;
	sum->inserted += g->inserted;
	/* A test answers yes when any generation does. */
	sum->est_fpr_ppb = BLOOM_PPB -
		div64_u64((BLOOM_PPB - sum->est_fpr_ppb) *
			  (BLOOM_PPB - min(g->est_fpr_ppb, BLOOM_PPB)),
			  BLOOM_PPB);
}

/* One pass over the generations of @v. */
static void report_view(struct bloom_contents *c,
			const struct bloom_age_view *v,
			struct bloom_report *r, u64 *hist)
{
	u64 now = now_ns();
	unsigned int i;

	memset(&r->st, 0, sizeof(r->st));
	for (i = 0; i < c->core.g.gens; i++) {
		struct bloom_gen_report *g = &r->gen[i];
		u64 birth = v->birth[v->live[i]];

		bloom_stats(&c->core, bloom_age_array(c, v->live[i]), hist,
			    &g->st);
		g->age_ms = now > birth ? div_u64(now - birth, NSEC_PER_MSEC) : 0;
		add_gen(&r->st, &g->st);
	}
}

/**
 * bloom_age_report() - per-generation stats of aging contents
 * @c: held aging contents
 * @r: filled in: @r->gen newest first, @r->st over all generations
 * @hist: scratch of BLOOM_HIST_WORDS
 *
 * Takes no lock: a reader that is slow (or throttled) never holds up a
 * rotation. It copies the view under RCU and walks the arrays it names
 * without it; they stay allocated while @c is held. A rotation during
 * the walk may empty the oldest array under it; then the walk is done
 * once more on the new view. If a rotation runs during that one too, the
 * figures of the generation it dropped are of a partly emptied array
 * (between its count before and zero), and @r->rotations says which
 * view the report is of.
 */
void bloom_age_report(struct bloom_contents *c, struct bloom_report *r,
		      u64 *hist)
{
	struct bloom_age_view v;
	unsigned int tries;
	u64 seen;

	for (tries = 0; tries < 2; tries++) {
		rcu_read_lock();
		seen = bloom_age_rotations(c);
		v = *rcu_dereference(c->age.view);
		rcu_read_unlock();
		report_view(c, &v, r, hist);
		r->rotations = seen;
		if (bloom_age_rotations(c) == seen)
			break;
	}
	r->st.mem_bytes = bloom_array_bytes(&c->core) * (c->core.g.gens + 1);
}

/**
 * bloom_registry_rotate() - rotate an aging filter now
 * @net: the namespace
 * @name: the filter
 *
 * Return: 0, -ENOENT, -EOPNOTSUPP (a plain filter), -EINTR, -ENOMEM.
 */
int bloom_registry_rotate(struct net *net, const char *name)
{
	struct bloom_filter *f = bloom_lookup(net, name);
	struct bloom_contents *c;
	int err;

	if (IS_ERR(f))
		return PTR_ERR(f);
	c = bloom_contents_get(f);
	err = bloom_aged(c) ? bloom_age_rotate(c) : -EOPNOTSUPP;
	bloom_contents_put(c);
	bloom_filter_put(f);
	return err;
}
EXPORT_SYMBOL_GPL(bloom_registry_rotate);

#define GEN_WORDS	(sizeof(struct bloom_snap_gen) / sizeof(u64))

/**
 * bloom_age_snap_hdr() - the snapshot header of aging contents
 * @c: held aging contents
 * @h: filled in, checksum zero
 */
void bloom_age_snap_hdr(struct bloom_contents *c, struct bloom_snap_hdr *h)
{
	const struct bloom_age_view *v;
	u64 inserted = 0, plens[BLOOM_PLEN_WORDS];
	unsigned int i;

	bloom_snap_make_hdr(&c->core, &c->bits, h);
	mutex_lock(&c->age.lock);
	v = view_locked(c);
	rcu_read_lock();	/* for bloom_plens_rcu(); the lock would do */
	bloom_plens_rcu(c, plens);
	rcu_read_unlock();
	for (i = 0; i < c->core.g.gens; i++)
		inserted += bloom_word_read(&bloom_age_array(c, v->live[i])->inserted);
	mutex_unlock(&c->age.lock);
	h->inserted = cpu_to_le64(inserted);
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		h->plens[i] = cpu_to_le64(plens[i]);
}

/* Word @f of the record of the generation at @pos, in view @v. */
static u64 gen_word(struct bloom_contents *c, const struct bloom_age_view *v,
		    unsigned int pos, unsigned int f, u64 now)
{
	const struct bloom_bits *b = bloom_age_array(c, v->live[pos]);
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

/**
 * bloom_age_snap_words() - words of the snapshot payload of aging contents
 * @c: held aging contents
 * @first: the first word, from the start of the payload
 * @n: how many; the range is inside the payload
 * @out: filled in, little-endian
 *
 * Holds age.lock, so that no array is emptied while it is copied: keep
 * @n small (a bounce buffer), and copy to userspace without the lock.
 */
void bloom_age_snap_words(struct bloom_contents *c, u64 first, u64 n,
			  __le64 *out)
{
	u64 rec = c->core.g.gens * GEN_WORDS, nw = c->core.nwords, w = first;
	const struct bloom_age_view *v;
	u64 now = now_ns();

	mutex_lock(&c->age.lock);
	v = view_locked(c);
	for (; w < first + n && w < rec; w++)
		*out++ = cpu_to_le64(gen_word(c, v, w / GEN_WORDS,
					      w % GEN_WORDS, now));
	while (w < first + n) {
		u64 pos = (w - rec) / nw, i = (w - rec) % nw;
		u64 run = min(first + n - w, nw - i);

		bloom_words_to_le(&bloom_age_array(c, v->live[pos])->words[i],
				  out, run);
		out += run;
		w += run;
	}
	mutex_unlock(&c->age.lock);
}

/**
 * bloom_age_restore() - give new aging contents a snapshot's generations
 * @c: aging contents not yet published, arrays loaded newest first
 * @gens: the snapshot's records, newest first, checksum verified
 *
 * The ages resume: a generation saved at age a was born a ago.
 *
 * Return: 0, or -EINVAL for prefix lengths past 128 (nothing is used).
 */
int bloom_age_restore(struct bloom_contents *c,
		      const struct bloom_snap_gen *gens)
{
	struct bloom_age_view *v = rcu_dereference_protected(c->age.view, 1);
	u64 now = now_ns();
	unsigned int i, j;

	for (i = 0; i < c->core.g.gens; i++)
		if (le64_to_cpu(gens[i].plens[BLOOM_PLEN_WORDS - 1]) >> 1)
			return -EINVAL;
	for (i = 0; i < c->core.g.gens; i++) {
		struct bloom_bits *b = bloom_age_array(c, v->live[i]);
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
