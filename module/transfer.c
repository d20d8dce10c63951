// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/bloom commands that move bulk data: key batches, snapshot
 * save and restore. Work is bounded per step: keys go CHUNK at a time
 * (copied in, validated, then probed under RCU), payloads a page at a
 * time, with a reschedule point and a fatal-signal check between steps.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>
#include "../uapi/bloom_ioctl.h"
#include "registry.h"
#include "chardev.h"

#define CHUNK		256
#define BOUNCE_BYTES	4096

struct batch {
	struct bloom_ioc_batch *b;
	unsigned int cmd;
	u8 key_type;
	u8 *keys;		/* CHUNK records */
	u64 h[CHUNK];
	u64 present[CHUNK / 64];
	u8 counts[CHUNK];
};

/* Key @i of the chunk, and its length. */
static const void *record(const struct batch *x, u32 i, size_t *len)
{
	const u8 *r = x->keys + (size_t)i * x->b->stride;
	u16 n;

	if (x->key_type != BLOOM_KEY_BYTES) {
		*len = x->b->stride;
		return r;
	}
	memcpy(&n, r, sizeof(n));	/* records need not be aligned */
	*len = n;
	return n <= x->b->stride - sizeof(n) ? r + sizeof(n) : NULL;
}

/* How many leading keys of the chunk are well formed. */
static u32 valid_prefix(struct batch *x, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		size_t len;
		const void *key = record(x, i, &len);

		if (!key || bloom_key_check(x->key_type, key, len))
			break;
	}
	return i;
}

/*
 * Under RCU: ADD and TEST on aging contents, key by key: a test looks in
 * every generation, an add goes to the newest (renewing a key an older
 * one holds) and counts the keys no generation held.
 */
static void apply_aged(struct batch *x, struct bloom_filter *f,
		       struct bloom_contents *c, u32 n)
{
	struct bloom_bits *newest = NULL;
	u32 i;

	memset(x->present, 0, sizeof(x->present));
	for (i = 0; i < n; i++) {
		int at = bloom_age_find(c, x->h[i], &newest);

		if (at >= 0)
			x->present[i / 64] |= 1ULL << (i % 64);
		x->b->hits += x->cmd == BLOOM_IOC_TEST ? at >= 0 : at < 0;
		if (x->cmd != BLOOM_IOC_ADD)
			continue;
		/*
		 * Even a key the newest already holds (perhaps a false
		 * positive) must have its length noted, or the packet
		 * path never probes that length.
		 */
		if (x->key_type == BLOOM_KEY_NET) {
			size_t len;
			const struct bloom_key_net *key = record(x, i, &len);

			bloom_note_plen(newest, key->plen);
		}
		if (at)
			bloom_add_hash(&c->core, newest, x->h[i]);
	}
	/* Like the packet path: over capacity asks for a rotation. */
	if (newest && x->cmd == BLOOM_IOC_ADD &&
	    (c->core.g.age_flags & BLOOM_AGE_F_FULL) &&
	    bloom_over_capacity(&c->core.g, bloom_word_read(&newest->inserted)))
		bloom_age_kick(f, c);
}

/* Apply the command to @n valid keys; returns how many it applied. */
static u32 apply(struct batch *x, struct bloom_filter *f,
		 struct bloom_contents *c, u32 n, int *err)
{
	struct bloom_contents *half;
	u32 i, done = n;

	if (bloom_aged(c)) {
		if (x->cmd != BLOOM_IOC_ADD && x->cmd != BLOOM_IOC_TEST) {
			*err = -EOPNOTSUPP;
			return 0;
		}
		for (i = 0; i < n; i++) {
			size_t len;
			const void *key = record(x, i, &len);

			x->h[i] = bloom_hash(&c->core, key, len);
		}
		apply_aged(x, f, c, n);
		return n;
	}

	for (i = 0; i < n; i++) {
		size_t len;
		const void *key = record(x, i, &len);

		x->h[i] = bloom_hash(&c->core, key, len);
		if (x->key_type == BLOOM_KEY_NET && x->cmd == BLOOM_IOC_ADD)
			bloom_note_plen(&c->bits,
					((const struct bloom_key_net *)key)->plen);
	}
	switch (x->cmd) {
	case BLOOM_IOC_ADD:
		/* While a halve folds @c, first there: see bloom_contents_add(). */
		half = rcu_dereference(c->halved);
		if (unlikely(half))
			bloom_contents_mirror(c, half, x->h, n);
		x->b->hits += bloom_add_batch(&c->core, &c->bits, x->h, n);
		break;
	case BLOOM_IOC_TEST:
		x->b->hits += bloom_test_batch(&c->core, &c->bits, x->h, n,
					       x->present);
		break;
	case BLOOM_IOC_COUNT:
		for (i = 0; i < n; i++)
			x->counts[i] = bloom_count_hash(&c->core, &c->bits,
							x->h[i]);
		break;
	default:
		for (i = 0; i < n && !*err; i++) {
			*err = bloom_contents_del(c, x->h[i]);
			done = *err ? i : n;
		}
		x->b->hits += done;
	}
	return done;
}

/* TEST: bits as bytes, bit i of byte i / 8; COUNT: a byte per key. */
static int put_results(struct batch *x, u32 first, u32 n)
{
	void __user *out = u64_to_user_ptr(x->b->results);
	u8 bytes[CHUNK / 8];
	u32 i;

	if (x->cmd == BLOOM_IOC_COUNT)
		return copy_to_user(out + first, x->counts, n) ? -EFAULT : 0;
	if (x->cmd != BLOOM_IOC_TEST)
		return 0;
	for (i = 0; i < DIV_ROUND_UP(n, 8); i++)
		bytes[i] = x->present[i / 8] >> (i % 8 * 8);
	return copy_to_user(out + first / 8, bytes, DIV_ROUND_UP(n, 8)) ?
	       -EFAULT : 0;
}

static int run_batch(struct bloom_filter *f, struct batch *x)
{
	const u8 __user *keys = u64_to_user_ptr(x->b->keys);
	u32 first, n, ok, done;
	int err = 0;

	for (first = 0; first < x->b->count && !err; first += n) {
		n = min_t(u32, CHUNK, x->b->count - first);
		if (copy_from_user(x->keys, keys + (size_t)first * x->b->stride,
				   (size_t)n * x->b->stride))
			return -EFAULT;
		ok = valid_prefix(x, n);
		rcu_read_lock();
		done = apply(x, f, rcu_dereference(f->contents), ok, &err);
		rcu_read_unlock();
		x->b->done += done;
		if (!err && ok < n)
			err = -EINVAL;
		err = put_results(x, first, done) ?: err;
		if (!err && fatal_signal_pending(current))
			err = -EINTR;
		cond_resched();
	}
	return err;
}

static int stride_check(u8 key_type, u32 stride)
{
	if (key_type == BLOOM_KEY_BYTES)
		return stride > sizeof(u16) &&
		       stride <= sizeof(u16) + BLOOM_KEY_BYTES_MAX ? 0 : -EINVAL;
	return stride == bloom_key_size(key_type) ? 0 : -EINVAL;
}

/**
 * bloom_ioc_batch() - BLOOM_IOC_ADD, _TEST, _DEL and _COUNT
 * @net: the caller's namespace
 * @arg: struct bloom_ioc_batch, copied in
 * @cmd: the command
 *
 * Return: 0 or a negative errno; see uapi/bloom_ioctl.h for @done.
 */
long bloom_ioc_batch(struct net *net, void *arg, unsigned int cmd)
{
	struct bloom_ioc_batch *b = arg;
	struct bloom_filter *f;
	struct batch *x;
	long err;

	if (bloom_name_check(b->name) || b->done || b->hits || b->reserved)
		return -EINVAL;
	if (b->count > BLOOM_BATCH_MAX)
		return -E2BIG;
	f = bloom_lookup(net, b->name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x) {
		err = -ENOMEM;
		goto put;
	}
	x->b = b;
	x->cmd = cmd;
	x->key_type = bloom_key_type(f);
	err = stride_check(x->key_type, b->stride);
	if (!err && (cmd == BLOOM_IOC_DEL || cmd == BLOOM_IOC_COUNT)) {
		const struct bloom_contents *c;

		/*
		 * DEL needs counting contents; neither DEL nor COUNT makes
		 * sense across generations. Contents swapped in meanwhile
		 * are caught again in apply().
		 */
		rcu_read_lock();
		c = rcu_dereference(f->contents);
		if (bloom_aged(c) || (cmd == BLOOM_IOC_DEL &&
				      c->core.g.layout != BLOOM_LAYOUT_COUNTING))
			err = -EOPNOTSUPP;
		rcu_read_unlock();
	}
	if (!err) {
		x->keys = kmalloc_array(CHUNK, b->stride, GFP_KERNEL);
		err = x->keys ? run_batch(f, x) : -ENOMEM;
		kfree(x->keys);
	}
	kfree(x);
put:
	bloom_filter_put(f);
	return err;
}

static int save(struct bloom_filter *f, struct bloom_contents *c,
		struct bloom_contents *unused, void *arg)
{
	struct bloom_ioc_save *s = arg;
	u8 __user *out = u64_to_user_ptr(s->buf);
	u64 total = bloom_snap_payload_bytes(&c->core), at;
	__le64 *bounce;
	int err = 0;

	if (bloom_aged(c))
		bloom_age_snap_hdr(c, &s->hdr);
	else
		bloom_snap_make_hdr(&c->core, &c->bits, &s->hdr);
	/* Changed under bn->lock; a chunked reader compares it per call. */
	s->generation = READ_ONCE(c->generation);
	if (s->offset > total || s->len > total - s->offset ||
	    (s->offset | s->len) % sizeof(u64))
		return -EINVAL;
	bounce = kmalloc(BOUNCE_BYTES, GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	for (at = 0; at < s->len && !err; at += BOUNCE_BYTES) {
		u64 n = min_t(u64, BOUNCE_BYTES, s->len - at);

		if (bloom_aged(c))
			bloom_age_snap_words(c, (s->offset + at) / 8, n / 8,
					     bounce);
		else
			bloom_words_to_le(&c->bits.words[(s->offset + at) / 8],
					  bounce, n / 8);
		if (copy_to_user(out + at, bounce, n))
			err = -EFAULT;
		else if (fatal_signal_pending(current))
			err = -EINTR;
		cond_resched();
	}
	kfree(bounce);
	/*
	 * Aging: a rotation changes the payload as a replacement does. The
	 * count is read after the copy, so that a rotation since an earlier
	 * chunk or during this one changes @generation: the reader starts
	 * over. (Replacements stay far below 2^32.)
	 */
	if (bloom_aged(c))
		s->generation += bloom_age_rotations(c) << 32;
	return err;
}

/**
 * bloom_ioc_save() - BLOOM_IOC_SAVE
 * @net: the caller's namespace
 * @arg: struct bloom_ioc_save, copied in
 * @cmd: unused
 *
 * Return: 0, -ENOENT, -EINVAL (range not whole words inside the payload),
 * -EFAULT.
 */
long bloom_ioc_save(struct net *net, void *arg, unsigned int cmd)
{
	struct bloom_ioc_save *s = arg;

	if (bloom_name_check(s->name) || s->reserved || s->generation ||
	    memchr_inv(&s->hdr, 0, sizeof(s->hdr)))
		return -EINVAL;
	return bloom_registry_read(net, s->name, NULL, save, s);
}

/* Copy one array in, feeding the checksum. */
static int load_array(bloom_hash_state *st, struct bloom_bits *b,
		      const u8 __user *in, u64 total, __le64 *bounce)
{
	u64 at;

	for (at = 0; at < total; at += BOUNCE_BYTES) {
		u64 n = min_t(u64, BOUNCE_BYTES, total - at);

		if (copy_from_user(bounce, in + at, n))
			return -EFAULT;
		bloom_hash_update(st, bounce, n);
		bloom_words_from_le(&b->words[at / 8], bounce, n / 8);
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * Copy the payload in, checking it against the header's checksum: for
 * an aging filter the generations' records into @gens, then its arrays,
 * newest first, into arrays 0..G-1 (the view of new contents).
 */
static int load_payload(struct bloom_contents *c, const u8 __user *in,
			const struct bloom_snap_hdr *hdr, u64 checksum,
			struct bloom_snap_gen *gens)
{
	u64 bytes = bloom_array_bytes(&c->core);
	size_t rec = c->core.g.gens * sizeof(*gens);
	bloom_hash_state *st;
	unsigned int i;
	__le64 *bounce;
	int err = 0;

	st = kmalloc(sizeof(*st), GFP_KERNEL);
	bounce = kmalloc(BOUNCE_BYTES, GFP_KERNEL);
	if (!st || !bounce) {
		err = -ENOMEM;
		goto out;
	}
	bloom_snap_csum_begin(st, hdr);
	if (rec && copy_from_user(gens, in, rec))
		err = -EFAULT;
	bloom_hash_update(st, gens, rec);
	for (i = 0; i < max_t(unsigned int, c->core.g.gens, 1) && !err; i++)
		err = load_array(st, bloom_age_array(c, i), in + rec + i * bytes,
				 bytes, bounce) ?:
		      bloom_bits_check_tail(&c->core, bloom_age_array(c, i));
	if (!err && bloom_hash_final(st) != checksum)
		err = -EBADMSG;
out:
	kfree(bounce);
	kfree(st);
	return err;
}

/**
 * bloom_ioc_restore() - BLOOM_IOC_RESTORE
 * @net: the caller's namespace
 * @arg: struct bloom_ioc_restore, copied in
 * @cmd: unused
 *
 * The snapshot is loaded into new contents and verified whole before
 * they are published; on any error nothing changes.
 *
 * Return: 0, a snapshot error of bloom_snap_check_hdr(), -EBADMSG (bad
 * checksum), -ERANGE (bits set past m), -EEXIST, -EINVAL, -ENOSPC,
 * -E2BIG, -ENOMEM, -EFAULT, -EINTR.
 */
long bloom_ioc_restore(struct net *net, void *arg, unsigned int cmd)
{
	struct bloom_ioc_restore *r = arg;
	const u8 __user *in = u64_to_user_ptr(r->buf);
	struct bloom_snap_gen gens[BLOOM_GENERATIONS_MAX];
	struct bloom_snap_info info;
	struct bloom_snap_hdr hdr;
	struct bloom_contents *c;
	int err, i;

	if (bloom_name_check(r->name) || (r->flags & ~BLOOM_RESTORE_REPLACE) ||
	    r->reserved0 || r->reserved)
		return -EINVAL;
	if (r->len < sizeof(hdr))
		return -ENODATA;
	if (copy_from_user(&hdr, in, sizeof(hdr)))
		return -EFAULT;
	err = bloom_snap_check_hdr(&hdr, r->len, &info);
	if (err)
		return err;
	err = bloom_registry_room(net, &info.geom,
				  r->flags & BLOOM_RESTORE_REPLACE ?
				  r->name : NULL);
	if (err)
		return err;
	c = bloom_contents_new(&info.geom);
	if (!c)
		return -ENOMEM;
	err = load_payload(c, in + sizeof(hdr), &hdr, info.checksum, gens);
	if (!err && bloom_aged(c))
		err = bloom_age_restore(c, gens);
	if (err) {
		bloom_contents_free(c);
		return err;
	}
	/* An aging filter's counts are per generation: set from @gens. */
	if (!bloom_aged(c)) {
		bloom_word_set(&c->bits.inserted, info.inserted);
		for (i = 0; i < BLOOM_PLEN_WORDS; i++)
			bloom_word_set(&c->bits.plens[i], info.plens[i]);
	}
	return bloom_registry_publish(net, r->name, c,
				      r->flags & BLOOM_RESTORE_REPLACE);
}
