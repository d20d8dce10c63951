// SPDX-License-Identifier: GPL-2.0
/*
 * Scalable filters: stages of one layout that grow (uapi/bloom.h;
 * Almeida, Baquero, Preguica and Hutchison, "Scalable Bloom Filters",
 * 2007). Stage i holds growth^i times the first capacity at
 * tighten^i times its error (bloom_stage_geom()); adds go to the newest
 * stage, tests probe every stage, newest first. The rate stays below the
 * sum of the stages' rates at capacity, e0 / (1 - r).
 *
 * Stages are only ever appended while the contents live (a clear
 * publishes new contents with one stage). @stage[i] is written before
 * @nstages is raised with a release store, and readers load @nstages
 * with an acquire: a reader sees only whole stages, and each stage
 * stays allocated until the contents are freed, after a grace period.
 * So tests and adds take no lock, and no completed add is ever missed:
 * it set its bits in a stage that every later test probes.
 *
 * Growth never allocates in the packet path. When the newest passes
 * three quarters of its capacity, an add queues the contents' work,
 * which allocates the next stage in process context, charges the
 * namespace's budget and publishes it (serialised by @lock). Until
 * then the newest keeps taking keys, up to an eighth over its capacity
 * (plus one per CPU racing past the check): that stage then answers
 * somewhat above its share of the bound (about 1.3 times it for k = 7).
 * Beyond that, or at the stage maximum or the size cap (for good), or
 * at the namespace's limit or out of memory (asked again a second
 * later), new keys are refused as by a full plain filter. Batches from
 * /dev/bloom grow before they add instead (make_room) and fill every
 * stage's room; at a limit they are not held to capacity, as batches of
 * plain filters are not (bloomctl checks the room first).
 *
 * Every stage is charged to the namespace's budget and to a memory
 * cgroup: a batch's growth to the caller's, as any allocation; the
 * work's to the cgroup of whoever made these contents (created,
 * restored or cleared the filter: @memcg, held while the contents live,
 * which keeps a removed cgroup's structure until then), since a kworker
 * has none of its own and the packet that asked for the stage may be
 * anybody's. A growth that memory refused is asked again after
 * RETRY_DELAY, doubled for each refusal in a row up to RETRY_MAX: each
 * try reclaims in that cgroup.
 */
#include <linux/memcontrol.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "kinds.h"

struct bloom_stage {
	struct bloom_core core;
	struct bloom_bits bits;		/* flexible: last */
};

struct bloom_scalable {
	struct bloom_contents c;
	struct mutex lock;		/* serialises growth */
	struct work_struct work;
	struct mem_cgroup *memcg;	/* charged for the work's growth */
	size_t bytes;			/* held now: under the budget's lock */
	u32 nstages;			/* raised with release, read acquire */
	unsigned long retry;		/* jiffies: no growth asked before */
	unsigned int refusals;		/* under @lock: by memory, in a row */
	struct bloom_geom next;		/* under @lock: stage @next_i's */
	u32 next_i;			/* 0: @next not computed yet */
	size_t next_bytes;		/* its size: written under @lock */
	struct bloom_stage *stage[BLOOM_STAGES_MAX];
	struct bloom_stage first;	/* stage 0, flexible: last */
};

#define GROW_DUE	BLOOM_C_KIND		/* the work is queued */
#define GROW_STUCK	(BLOOM_C_KIND + 1)	/* no stage will ever come */
#define GROW_FAILED	(BLOOM_C_KIND + 2)	/* the last growth failed */
#define GROW_LIMITED	(BLOOM_C_KIND + 3)	/* by the namespace's limit */
#define RETRY_DELAY	HZ			/* after a failed growth */
#define RETRY_MAX	6			/* doublings of it, at most */

static struct bloom_scalable *scalable(struct bloom_contents *c)
{
	return container_of(c, struct bloom_scalable, c);
}

/* The stages a reader may probe: the newest is the last. */
static u32 stages(struct bloom_scalable *s)
{
	/* Pairs with publish_stage(): the stages counted are whole. */
	return smp_load_acquire(&s->nstages);
}

static size_t stage_bytes(const struct bloom_core *core)
{
	struct bloom_stage *st;

	return struct_size(st, bits.words, core->nwords);
}

/* The contents with their first stage; saturating. */
static size_t scalable_bytes(const struct bloom_core *core)
{
	return size_add(offsetof(struct bloom_scalable, first),
			stage_bytes(core));
}

/*
 * The contents and all the stages a snapshot holds, from the words its
 * header's check counted (no stage's geometry is computed again).
 */
static size_t scalable_snap_bytes(const struct bloom_snap_info *info)
{
	struct bloom_stage *st;

	return size_add(offsetof(struct bloom_scalable, first),
			size_add(size_mul(info->stages,
					  struct_size(st, bits.words, 0)),
				 size_mul(info->stage_words,
					  sizeof(st->bits.words[0]))));
}

static size_t scalable_size(const struct bloom_contents *c)
{
	return container_of(c, struct bloom_scalable, c)->bytes;
}

static struct bloom_stage *stage_new(const struct bloom_geom *g)
{
	struct bloom_stage *st;
	struct bloom_core core;

	bloom_core_init(&core, g);
	st = bloom_array_alloc(stage_bytes(&core));
	if (st)
		st->core = core;
	return st;
}

static void grow_work(struct work_struct *w);

static int scalable_init(struct bloom_contents *c)
{
	struct bloom_scalable *s = scalable(c);

	s->first.core = c->core;
	s->stage[0] = &s->first;
	mutex_init(&s->lock);
	INIT_WORK(&s->work, grow_work);
	/*
	 * Process context: the active memcg, else that of current's mm
	 * owner (the task's own but for CLONE_VM children elsewhere).
	 */
	s->memcg = get_mem_cgroup_from_mm(NULL);
	s->bytes = scalable_bytes(&c->core);
	s->nstages = 1;
	return 0;
}

static void scalable_destroy(struct bloom_contents *c)
{
	struct bloom_scalable *s = scalable(c);
	u32 i;

	for (i = 1; i < s->nstages; i++)
		kvfree(s->stage[i]);
	mem_cgroup_put(s->memcg);
}

struct grown {
	struct bloom_core st_core;
	struct bloom_stage *st;
	size_t bytes;
};

/* Under the budget's lock: the stage is charged, make it the newest. */
static void publish_stage(struct bloom_contents *c, void *arg)
{
	struct bloom_scalable *s = scalable(c);
	struct grown *g = arg;

	s->stage[s->nstages] = g->st;
	s->bytes += g->bytes;
	/* Pairs with stages(): the stage is whole before it is seen. */
	smp_store_release(&s->nstages, s->nstages + 1);
}

/*
 * Under s->lock: the next stage's geometry, computed once (it takes
 * milliseconds, and a filter at a limit is asked again and again).
 */
static int next_geom(struct bloom_scalable *s)
{
	int err;

	if (s->next_i == s->nstages)
		return 0;
	if (s->nstages >= s->c.core.g.stages_max)
		return -E2BIG;
	err = bloom_stage_geom(&s->c.core.g, s->nstages, &s->next);
	if (!err)
		s->next_i = s->nstages;
	return err;
}

/*
 * Is there room in the namespace's budget for @bytes (a hint: its lock
 * is taken and dropped)?
 * None is never for good: its limit may be raised (so not -E2BIG,
 * which grew() takes for the size cap).
 */
static int budget_room(struct bloom_scalable *s, size_t bytes)
{
	int err = s->c.budget ? bloom_budget_check(&s->c, bytes) : 0;

	return err == -E2BIG ? -ENOSPC : err;
}

/*
 * Under s->lock: add a stage. Published contents charge their
 * namespace's budget; contents being restored (no budget yet) are
 * charged whole when published.
 */
static int grow_locked(struct bloom_scalable *s)
{
	struct grown gr;
	int err;

	err = next_geom(s);
	if (err)
		return err;
	bloom_core_init(&gr.st_core, &s->next);
	gr.bytes = stage_bytes(&gr.st_core);
	WRITE_ONCE(s->next_bytes, gr.bytes);
	/* A hint first: no allocation the budget would refuse. */
	err = budget_room(s, gr.bytes);
	if (err)
		return err;
	gr.st = stage_new(&s->next);
	if (!gr.st)
		return -ENOMEM;
	if (s->c.budget)
		err = bloom_budget_grow(&s->c, gr.bytes, publish_stage, &gr);
	else
		publish_stage(&s->c, &gr);
	if (err)
		kvfree(gr.st);
	return err == -E2BIG ? -ENOSPC : err;
}

/* Is the newest over its capacity with @more keys? */
static bool over(const struct bloom_stage *st, u64 more)
{
	return bloom_over_capacity(&st->core.g,
				   bloom_word_read(&st->bits.inserted) + more);
}

/*
 * Under s->lock: note how a growth went. The stage maximum and the size
 * cap are for good (E2BIG); the namespace's limit and memory may allow
 * it later, asked for again after RETRY_DELAY. Retired contents grow no
 * more, and need not say so.
 */
static void grew(struct bloom_scalable *s, int err)
{
	unsigned long delay = RETRY_DELAY;

	if (!err) {
		s->refusals = 0;
		clear_bit(GROW_FAILED, &s->c.flags);
		clear_bit(GROW_LIMITED, &s->c.flags);
	} else if (err == -E2BIG) {
		set_bit(GROW_STUCK, &s->c.flags);
	} else if (err == -ENOSPC) {
		WRITE_ONCE(s->retry, jiffies + delay);
		set_bit(GROW_LIMITED, &s->c.flags);
		set_bit(GROW_FAILED, &s->c.flags);
	} else if (err != -ESTALE) {
		delay <<= min(s->refusals, RETRY_MAX);
		s->refusals++;
		WRITE_ONCE(s->retry, jiffies + delay);
		clear_bit(GROW_LIMITED, &s->c.flags);
		set_bit(GROW_FAILED, &s->c.flags);
	}
}

/*
 * The contents outlive it: the registry stops it (scalable_stop())
 * before it lets go of them. Queued at three quarters of the newest's
 * capacity: it grows if the newest is still that full.
 */
static void grow_work(struct work_struct *w)
{
	struct bloom_scalable *s = container_of(w, struct bloom_scalable,
						work);
	struct mem_cgroup *old;
	struct bloom_stage *st;

	mutex_lock(&s->lock);
	st = s->stage[s->nstages - 1];
	if (!test_bit(GROW_STUCK, &s->c.flags) &&
	    over(st, st->core.g.capacity / 4 + 1)) {
		old = set_active_memcg(s->memcg);
		grew(s, grow_locked(s));
		set_active_memcg(old);
	}
	mutex_unlock(&s->lock);
	clear_bit(GROW_DUE, &s->c.flags);
}

static void scalable_stop(struct bloom_contents *c)
{
	cancel_work_sync(&scalable(c)->work);
}

/*
 * Under rcu_read_lock(), any context: ask for the next stage. Only the
 * first request queues the work; bloom_contents_unpublish() waits a
 * grace period after retiring before it cancels it.
 */
static void kick(struct bloom_scalable *s)
{
	if (test_bit(BLOOM_C_RETIRED, &s->c.flags) ||
	    test_bit(GROW_STUCK, &s->c.flags) ||
	    (test_bit(GROW_FAILED, &s->c.flags) &&
	     time_before(jiffies, READ_ONCE(s->retry))))
		return;
	if (!test_bit(GROW_DUE, &s->c.flags) &&
	    !test_and_set_bit(GROW_DUE, &s->c.flags))
		queue_work(system_unbound_wq, &s->work);
}

/*
 * No room in the newest, @st, for a new key? Racy reads, as in plain.c.
 * Past three quarters of its capacity the next stage is asked for;
 * while it is on its way the newest takes up to OVERFILL more.
 */
#define OVERFILL(cap)	((cap) / 8)

static bool full(struct bloom_scalable *s, const struct bloom_stage *st,
		 u32 n)
{
	u64 cap = st->core.g.capacity;
	bool last = n >= s->c.core.g.stages_max;

	if (!over(st, cap / 4 + 1))
		return false;
	if (!last)
		kick(s);
	if (!over(st, 1))
		return false;
	if (last || test_bit(GROW_STUCK, &s->c.flags) ||
	    test_bit(GROW_FAILED, &s->c.flags))
		return true;
	return bloom_word_read(&st->bits.inserted) + 1 > cap + OVERFILL(cap);
}

static bool test_stages(struct bloom_scalable *s, u32 n, u64 h)
{
	while (n--) {
		const struct bloom_stage *st = s->stage[n];

		if (bloom_test_hash(&st->core, &st->bits, h))
			return true;
	}
	return false;
}

static bool scalable_test(struct bloom_contents *c, u64 h)
{
	struct bloom_scalable *s = scalable(c);

	return test_stages(s, stages(s), h);
}

/* A key any stage holds is present; a new one goes to the newest. */
static int scalable_add(struct bloom_contents *c, u64 h, int plen)
{
	struct bloom_scalable *s = scalable(c);
	u32 n = stages(s);
	struct bloom_stage *st = s->stage[n - 1];
	bool present = test_stages(s, n, h);

	if (!present && full(s, st, n))
		return -ENOSPC;
	if (plen >= 0)
		bloom_note_plen(&st->bits, plen);
	if (present)
		return 1;
	return !bloom_add_hash(&st->core, &st->bits, h);
}

static void scalable_plens(struct bloom_contents *c, u64 *plens)
{
	struct bloom_scalable *s = scalable(c);
	u32 n = stages(s), i, j;

	for (j = 0; j < BLOOM_PLEN_WORDS; j++) {
		plens[j] = 0;
		for (i = 0; i < n; i++)
			plens[j] |= bloom_word_read(&s->stage[i]->bits.plens[j]);
	}
}

static u32 scalable_test_batch(struct bloom_contents *c, const u64 *h, u32 n,
			       u64 *present)
{
	struct bloom_scalable *s = scalable(c);
	u32 i, hits = 0, ns = stages(s);

	memset(present, 0, DIV_ROUND_UP(n, 64) * sizeof(u64));
	for (i = 0; i < n; i++) {
		if (!test_stages(s, ns, h[i]))
			continue;
		present[i / 64] |= 1ULL << (i % 64);
		hits++;
	}
	return hits;
}

/* Keys stage @st can still take. */
static u64 room(const struct bloom_stage *st)
{
	u64 in = bloom_word_read(&st->bits.inserted);

	return in < st->core.g.capacity ? st->core.g.capacity - in : 0;
}

/* Keys the stages can take; stages left by the packet path have some. */
static u64 total_room(struct bloom_scalable *s)
{
	u32 n = stages(s), i;
	u64 sum = 0;

	for (i = 0; i < n; i++)
		sum += room(s->stage[i]);
	return sum;
}

/*
 * Process context: grow until the stages have room for @n more keys (a
 * batch's chunk), or no stage is to come. A stage is added only when
 * the room left is too small, so no stage is left empty.
 */
static int scalable_make_room(struct bloom_contents *c, u32 n)
{
	struct bloom_scalable *s = scalable(c);
	int err = 0;

	mutex_lock(&s->lock);
	while (!err && total_room(s) < n &&
	       !test_bit(GROW_STUCK, &c->flags)) {
		err = grow_locked(s);
		grew(s, err);
		if (!err && fatal_signal_pending(current))
			err = -EINTR;
	}
	mutex_unlock(&s->lock);
	return err == -EINTR ? err : 0;
}

/* The newest stage with room for a key (the newest when none has). */
static struct bloom_stage *stage_for_key(struct bloom_scalable *s, u32 n)
{
	u32 i = n;

	while (i--)
		if (room(s->stage[i]))
			return s->stage[i];
	return s->stage[n - 1];
}

/*
 * After make_room(): a new key goes to the newest stage that has room.
 * Tests probe every stage, so which one holds it does not matter; what
 * keeps the bound is that none holds more than its capacity.
 */
static u32 scalable_add_batch(struct bloom_contents *c, const u64 *h,
			      const u8 *plen, u32 n)
{
	struct bloom_scalable *s = scalable(c);
	u32 ns = stages(s), i, fresh = 0;

	for (i = 0; i < n; i++) {
		struct bloom_stage *st = stage_for_key(s, ns);

		if (plen)
			bloom_note_plen(&st->bits, plen[i]);
		if (test_stages(s, ns, h[i]))
			continue;
		fresh += bloom_add_hash(&st->core, &st->bits, h[i]);
	}
	return fresh;
}

/* Without counters, as for plain arrays: 1 if any stage holds it. */
static u32 scalable_count(struct bloom_contents *c, u64 h)
{
	return scalable_test(c, h);
}

/*
 * Can no stage come after the @n there are? At the stage maximum or the
 * size cap, never; after a growth that memory (or its cgroup) refused,
 * not until one succeeds. After one the namespace's limit refused, asked
 * again: the limit may have been raised since, and bloomctl checks a
 * batch's room by this before it adds. Racy reads of the flags and of
 * the size the refused stage had: a growth racing with it may change
 * the answer, as one just after it would.
 */
static bool no_stage_to_come(struct bloom_scalable *s, u32 n)
{
	if (n >= s->c.core.g.stages_max || test_bit(GROW_STUCK, &s->c.flags))
		return true;
	if (!test_bit(GROW_FAILED, &s->c.flags))
		return false;
	if (!test_bit(GROW_LIMITED, &s->c.flags))
		return true;
	return budget_room(s, READ_ONCE(s->next_bytes)) != 0;
}

static int scalable_report(struct bloom_contents *c, struct bloom_report *r,
			   u64 *hist)
{
	struct bloom_scalable *s = scalable(c);
	u32 n = stages(s), i;
	struct bloom_stats st;

	for (i = 0; i < n; i++) {
		bloom_stats(&s->stage[i]->core, &s->stage[i]->bits, hist, &st);
		bloom_stats_fold(&r->st, &st);
		cond_resched();
	}
	r->st.fill_ppb = st.fill_ppb;	/* the newest's: where adds go */
	/* Over: no room for a new key, and no stage to come. */
	r->over = over(s->stage[n - 1], 1) && no_stage_to_come(s, n);
	return 0;
}

static int scalable_stage(struct bloom_contents *c, u32 i,
			  struct bloom_stage_report *r, u64 *hist)
{
	struct bloom_scalable *s = scalable(c);
	u32 n = stages(s);

	r->stages = n;
	r->full = no_stage_to_come(s, n);
	r->bound_ppb = bloom_stage_bound_ppb(&c->core.g);
	if (i >= n)
		return -ENOENT;
	r->g = s->stage[i]->core.g;
	bloom_stats(&s->stage[i]->core, &s->stage[i]->bits, hist, &r->st);
	return 0;
}

/*
 * The header, for the stages there are now: a growth since changes the
 * payload as a replacement does (scalable_snap_changes()).
 */
static void scalable_snap_hdr(struct bloom_contents *c,
			      struct bloom_snap_hdr *h)
{
	struct bloom_scalable *s = scalable(c);
	u64 plens[BLOOM_PLEN_WORDS], inserted = 0, bytes;
	const struct bloom_geom *g = &c->core.g;
	u32 n = stages(s), i;

	bloom_snap_make_hdr(&c->core, &s->stage[0]->bits, h);
	h->version = cpu_to_le16(BLOOM_SNAP_VERSION_SCALABLE);
	h->reserved[0] = cpu_to_le64(g->stages_max | g->growth << 8 |
				     g->tighten_pct << 16 | (u64)n << 24);
	bytes = 8 * bloom_summary_words(g) + n * sizeof(struct bloom_snap_stage);
	for (i = 0; i < n; i++) {
		inserted += bloom_word_read(&s->stage[i]->bits.inserted);
		bytes += bloom_array_bytes(&s->stage[i]->core);
	}
	h->inserted = cpu_to_le64(inserted);
	h->payload_len = cpu_to_le64(bytes);
	rcu_read_lock();
	scalable_plens(c, plens);
	rcu_read_unlock();
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		h->plens[i] = cpu_to_le64(plens[i]);
}

#define STAGE_WORDS	(sizeof(struct bloom_snap_stage) / sizeof(u64))

/* Word @f of stage @st's record. */
static u64 stage_word(const struct bloom_stage *st, unsigned int f)
{
	switch (f) {
	case 0:
		return st->core.g.bits;
	case 1:
		return bloom_word_read(&st->bits.inserted);
	default:
		return bloom_word_read(&st->bits.plens[f - 2]);
	}
}

/*
 * The records, then the arrays, oldest first, of the stages there are
 * now (stages are only appended, so a range inside an earlier header's
 * payload is inside this one).
 */
static void scalable_snap_words(struct bloom_contents *c, u64 first, u64 n,
				__le64 *out)
{
	struct bloom_scalable *s = scalable(c);
	u32 ns = stages(s), i = 0;
	u64 w = first, rec = ns * STAGE_WORDS, base = rec;

	for (; w < first + n && w < rec; w++)
		*out++ = cpu_to_le64(stage_word(s->stage[w / STAGE_WORDS],
						w % STAGE_WORDS));
	while (w < first + n && i < ns) {
		u64 nw = s->stage[i]->core.nwords, run;

		if (w >= base + nw) {
			base += nw;
			i++;
			continue;
		}
		run = min(first + n - w, base + nw - w);
		bloom_words_to_le(&s->stage[i]->bits.words[w - base], out, run);
		out += run;
		w += run;
	}
}

static u64 scalable_snap_changes(struct bloom_contents *c)
{
	return stages(scalable(c));
}

/*
 * Stage @i's record: its size must be the one its geometry gives, and
 * it holds no more keys than it has bits (each key stored set one).
 */
static int apply_record(struct bloom_stage *st,
			const struct bloom_snap_stage *rec)
{
	unsigned int j;

	if (le64_to_cpu(rec->bits) != st->core.g.bits ||
	    le64_to_cpu(rec->inserted) > st->core.g.bits ||
	    le64_to_cpu(rec->plens[BLOOM_PLEN_WORDS - 1]) >> 1)
		return -EINVAL;
	bloom_word_set(&st->bits.inserted, le64_to_cpu(rec->inserted));
	for (j = 0; j < BLOOM_PLEN_WORDS; j++)
		bloom_word_set(&st->bits.plens[j], le64_to_cpu(rec->plens[j]));
	return 0;
}

/* New contents, not published: grow to the snapshot's stages, then load. */
static int scalable_load(struct bloom_contents *c, struct bloom_payload_in *in,
			 const struct bloom_snap_info *info)
{
	struct bloom_scalable *s = scalable(c);
	struct bloom_snap_stage *recs;
	u32 i;
	int err = 0;

	mutex_lock(&s->lock);
	while (!err && s->nstages < info->stages) {
		err = grow_locked(s);
		if (!err && fatal_signal_pending(current))
			err = -EINTR;
		cond_resched();
	}
	mutex_unlock(&s->lock);
	if (err)
		return err;
	recs = kcalloc(info->stages, sizeof(*recs), GFP_KERNEL);
	if (!recs)
		return -ENOMEM;
	err = in->bytes(in, recs, info->stages * sizeof(*recs));
	for (i = 0; i < info->stages && !err; i++)
		err = in->words(in, s->stage[i]->bits.words,
				s->stage[i]->core.nwords) ?:
		      bloom_bits_check_tail(&s->stage[i]->core,
					    &s->stage[i]->bits);
	if (!err)
		err = in->verify(in);
	for (i = 0; i < info->stages && !err; i++)
		err = apply_record(s->stage[i], &recs[i]);
	kfree(recs);
	return err;
}

/*
 * No set algebra or halving: two series grown at different times have
 * stages of different sizes. No deletes: a plain layout has no counters.
 */
const struct bloom_kind_ops bloom_scalable_ops = {
	.bytes = scalable_bytes,
	.size = scalable_size,
	.snap_bytes = scalable_snap_bytes,
	.init = scalable_init,
	.destroy = scalable_destroy,
	.stop = scalable_stop,
	.test = scalable_test,
	.add = scalable_add,
	.plens = scalable_plens,
	.test_batch = scalable_test_batch,
	.make_room = scalable_make_room,
	.add_batch = scalable_add_batch,
	.count = scalable_count,
	.report = scalable_report,
	.stage = scalable_stage,
	.snap_hdr = scalable_snap_hdr,
	.snap_words = scalable_snap_words,
	.snap_changes = scalable_snap_changes,
	.load = scalable_load,
};
