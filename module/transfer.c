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
	u16 family;		/* BLOOM_F_INET, _INET6 or 0: fixed for life */
	bool wrong_family;	/* the chunk stopped at a key of another */
	u8 *keys;		/* CHUNK records */
	u64 h[CHUNK];
	u8 plen[CHUNK];		/* net keys' prefix lengths */
	u64 present[CHUNK / 64];
	u8 counts[CHUNK];
	u32 values[CHUNK];
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
		if (!bloom_key_family_ok(x->family, x->key_type, key)) {
			x->wrong_family = true;
			break;
		}
	}
	return i;
}

/*
 * Hash the chunk's keys, and note net keys' prefix lengths (and, for an
 * ADD, their /16s, before any of them can be found).
 */
static void hash_chunk(struct batch *x, struct bloom_contents *c, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		size_t len;
		const void *key = record(x, i, &len);

		x->h[i] = bloom_hash(&c->core, key, len);
		if (x->key_type != BLOOM_KEY_NET)
			continue;
		x->plen[i] = ((const struct bloom_key_net *)key)->plen;
		if (x->cmd == BLOOM_IOC_ADD)
			bloom_contents_note_net(c, key);
	}
}

/*
 * Kinds without a batch add, and adds with values: one by one, up to the
 * first that fails. A value is checked against the contents it goes to:
 * they may have been replaced since the batch began.
 */
static u32 add_each(struct batch *x, struct bloom_contents *c, const u8 *plen,
		    u32 n, int *err)
{
	u32 i, value;
	int ret;

	for (i = 0; i < n; i++) {
		value = x->b->values ? x->values[i] : 0;
		ret = value >> c->core.g.value_bits ? -ERANGE :
		      bloom_contents_add_value(c, x->h[i], plen ? plen[i] : -1,
					       value);
		if (ret < 0) {
			*err = ret;
			break;
		}
		x->b->hits += !ret;
	}
	return i;
}

/*
 * Under RCU: apply the command to @n valid keys; returns how many it
 * applied. The kind does the work: an ADD notes prefix lengths even of
 * keys already present, or the packet path never probes those lengths.
 */
static u32 apply(struct batch *x, struct bloom_contents *c, u32 n, int *err)
{
	const u8 *plen = x->key_type == BLOOM_KEY_NET ? x->plen : NULL;
	u32 i, done = n;

	hash_chunk(x, c, n);
	switch (x->cmd) {
	case BLOOM_IOC_ADD:
		if (!c->ops->add_batch || x->b->values)
			return add_each(x, c, plen, n, err);
		x->b->hits += c->ops->add_batch(c, x->h, plen, n);
		break;
	case BLOOM_IOC_TEST:
		x->b->hits += c->ops->test_batch(c, x->h, n, x->present);
		break;
	case BLOOM_IOC_COUNT:
		*err = bloom_contents_has(c, count);
		for (i = 0; i < n && !*err; i++)
			x->counts[i] = c->ops->count(c, x->h[i]);
		done = *err ? 0 : n;
		break;
	case BLOOM_IOC_VALUE:
		for (i = 0; i < n; i++) {
			if (bloom_contents_value(c, x->h[i], &x->values[i]))
				x->b->hits++;
			else
				x->values[i] = BLOOM_VALUE_ABSENT;
		}
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

/*
 * TEST: bits as bytes, bit i of byte i / 8; COUNT: a byte per key;
 * VALUE: a __u32 per key.
 */
static int put_results(struct batch *x, u32 first, u32 n)
{
	void __user *out = u64_to_user_ptr(x->b->results);
	u8 bytes[CHUNK / 8];
	u32 i;

	if (x->cmd == BLOOM_IOC_COUNT)
		return copy_to_user(out + first, x->counts, n) ? -EFAULT : 0;
	if (x->cmd == BLOOM_IOC_VALUE)
		return copy_to_user(out + (size_t)first * sizeof(u32),
				    x->values, n * sizeof(u32)) ? -EFAULT : 0;
	if (x->cmd != BLOOM_IOC_TEST)
		return 0;
	for (i = 0; i < DIV_ROUND_UP(n, 8); i++)
		bytes[i] = x->present[i / 8] >> (i % 8 * 8);
	return copy_to_user(out + first / 8, bytes, DIV_ROUND_UP(n, 8)) ?
	       -EFAULT : 0;
}

/* Contents that grow do so before a chunk of adds, not in the middle. */
static void make_room(struct bloom_filter *f, u32 n)
{
	struct bloom_contents *c = bloom_contents_get(f);

	bloom_contents_make_room(c, n);
	bloom_contents_put(c);
}

static int run_batch(struct bloom_filter *f, struct batch *x)
{
	const u8 __user *keys = u64_to_user_ptr(x->b->keys);
	const u32 __user *values = u64_to_user_ptr(x->b->values);
	struct bloom_contents *c;
	u32 first, n, ok, done;
	int err = 0;

	for (first = 0; first < x->b->count && !err; first += n) {
		n = min_t(u32, CHUNK, x->b->count - first);
		if (copy_from_user(x->keys, keys + (size_t)first * x->b->stride,
				   (size_t)n * x->b->stride) ||
		    (x->b->values &&
		     copy_from_user(x->values, values + first, n * sizeof(u32))))
			return -EFAULT;
		ok = valid_prefix(x, n);
		if (x->cmd == BLOOM_IOC_ADD)
			make_room(f, ok);
		rcu_read_lock();
		c = rcu_dereference(f->contents);
		done = apply(x, c, ok, &err);
		if (x->cmd == BLOOM_IOC_ADD && x->key_type == BLOOM_KEY_NET)
			bloom_warn_lengths(f, c);
		rcu_read_unlock();
		x->b->done += done;
		if (!err && ok < n)
			err = x->wrong_family ? -EAFNOSUPPORT : -EINVAL;
		err = put_results(x, first, done) ?: err;
		if (!err && fatal_signal_pending(current))
			err = -EINTR;
		cond_resched();
	}
	return err;
}

static int batch_supported(const struct bloom_contents *c,
			   const struct bloom_ioc_batch *b, unsigned int cmd)
{
	/* Values go with adds, to contents that keep them. */
	if (b->values && (cmd != BLOOM_IOC_ADD || !c->core.g.value_bits ||
			  !c->ops->add_copy))
		return -EINVAL;
	switch (cmd) {
	case BLOOM_IOC_ADD:
		return bloom_contents_has(c, add);
	case BLOOM_IOC_DEL:
		return bloom_contents_has(c, del);
	case BLOOM_IOC_COUNT:
		return bloom_contents_has(c, count);
	default:
		return 0;
	}
}

static int stride_check(u8 key_type, u32 stride)
{
	if (key_type == BLOOM_KEY_BYTES)
		return stride > sizeof(u16) &&
		       stride <= sizeof(u16) + BLOOM_KEY_BYTES_MAX ? 0 : -EINVAL;
	return stride == bloom_key_size(key_type) ? 0 : -EINVAL;
}

/**
 * bloom_ioc_batch() - BLOOM_IOC_ADD, _TEST, _DEL, _COUNT and _VALUE
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

	if (bloom_name_check(b->name) || b->done || b->hits)
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
	x->family = bloom_family(f);
	err = stride_check(x->key_type, b->stride);
	if (!err) {
		/*
		 * Before any key is read: a kind that cannot is refused
		 * whatever the keys. Contents swapped in meanwhile are
		 * caught again in apply().
		 */
		rcu_read_lock();
		err = batch_supported(rcu_dereference(f->contents), b, cmd);
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

static u64 snap_changes(struct bloom_contents *c)
{
	return c->ops->snap_changes ? c->ops->snap_changes(c) : 0;
}

/*
 * Words @first..@first + @n - 1 of a payload of @total words: the
 * kind's, then the /16 summary's. An add notes a key's /16 before it
 * sets the key's bits (bloom_contents_note_net()), and the summary is
 * copied after the array, past a read barrier: a key added during a
 * save is in the snapshot with its /16, or not at all. A chunked save
 * copies the summary in its last call, later still.
 */
static void payload_words(struct bloom_contents *c, u64 total, u64 first,
			  u64 n, __le64 *out)
{
	u64 kind = total - bloom_summary_words(&c->core.g), k;

	if (first < kind) {
		k = min(n, kind - first);
		c->ops->snap_words(c, first, k, out);
		first += k;
		out += k;
		n -= k;
	}
	if (n) {
		smp_rmb();	/* the keys' bits, then their /16s */
		bloom_words_to_le(&c->summary->words[first - kind], out, n);
	}
}

static int save(struct bloom_filter *f, struct bloom_contents *c,
		struct bloom_contents *unused, void *arg)
{
	struct bloom_ioc_save *s = arg;
	u8 __user *out = u64_to_user_ptr(s->buf);
	u64 changes = snap_changes(c), total, at;
	__le64 *bounce;
	int err = 0;

	c->ops->snap_hdr(c, &s->hdr);
	total = le64_to_cpu(s->hdr.payload_len);
	/* Changed under bn->lock; a chunked reader compares it per call. */
	s->generation = READ_ONCE(c->generation) + (changes << 32);
	if (s->offset > total || s->len > total - s->offset ||
	    (s->offset | s->len) % sizeof(u64))
		return -EINVAL;
	bounce = kmalloc(BOUNCE_BYTES, GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	for (at = 0; at < s->len && !err; at += BOUNCE_BYTES) {
		u64 n = min_t(u64, BOUNCE_BYTES, s->len - at);

		payload_words(c, total / 8, (s->offset + at) / 8, n / 8,
			      bounce);
		if (copy_to_user(out + at, bounce, n))
			err = -EFAULT;
		else if (fatal_signal_pending(current))
			err = -EINTR;
		cond_resched();
	}
	kfree(bounce);
	/*
	 * A change other than adds (an aging filter's rotation, a scalable
	 * one's growth) changes the payload as a replacement does: one
	 * since an earlier call moves @generation, and one during this
	 * call sets bit 31, which no call that saw the count it started
	 * with gives, so that the reader starts over either way (the count
	 * only grows). Replacements stay far below 2^31.
	 */
	smp_rmb();	/* the words copied, then the count (see kinds/cuckoo.c) */
	if (snap_changes(c) != changes)
		s->generation |= 1ULL << 31;
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

/*
 * A snapshot's payload, read in by the kind through struct
 * bloom_payload_in: every read feeds the checksum, which the kind has
 * verified before it acts on any record it read.
 */
struct payload {
	struct bloom_payload_in in;
	struct bloom_contents *c;	/* read into */
	const u8 __user *at;
	u64 left;			/* bytes not read yet */
	u64 checksum;			/* the header's */
	bool verified;
	bloom_hash_state st;
	__le64 bounce[BOUNCE_BYTES / 8];
};

/* Account for @n bytes just read into @buf. */
static int consumed(struct payload *p, const void *buf, size_t n)
{
	bloom_hash_update(&p->st, buf, n);
	p->at += n;
	p->left -= n;
	if (fatal_signal_pending(current))
		return -EINTR;
	cond_resched();
	return 0;
}

static int read_bytes(struct bloom_payload_in *in, void *buf, size_t n)
{
	struct payload *p = container_of(in, struct payload, in);

	if (n > p->left)
		return -EMSGSIZE;
	if (copy_from_user(buf, p->at, n))
		return -EFAULT;
	return consumed(p, buf, n);
}

static int read_words(struct bloom_payload_in *in, bloom_word_t *w, u64 n)
{
	struct payload *p = container_of(in, struct payload, in);
	u64 i, run;
	int err = 0;

	if (n > p->left / 8)
		return -EMSGSIZE;
	for (i = 0; i < n && !err; i += run) {
		run = min_t(u64, BOUNCE_BYTES / 8, n - i);
		if (copy_from_user(p->bounce, p->at, run * 8))
			return -EFAULT;
		bloom_words_from_le(&w[i], p->bounce, run);
		err = consumed(p, p->bounce, run * 8);
	}
	return err;
}

/*
 * All of the kind's payload read: the /16 summary after it (the kind
 * knows nothing of it), then the checksum.
 */
static int verify(struct bloom_payload_in *in)
{
	struct payload *p = container_of(in, struct payload, in);
	struct bloom_contents *c = p->c;
	int err;

	if (c->summary) {
		err = read_words(in, c->summary->words,
				 bloom_summary_words(&c->core.g));
		if (err)
			return err;
	}
	if (WARN_ON_ONCE(p->left))
		return -EMSGSIZE;
	p->verified = true;
	return bloom_hash_final(&p->st) != p->checksum ? -EBADMSG : 0;
}

/* The kind reads the payload into new contents, which check it whole. */
static int load_payload(struct bloom_contents *c, const u8 __user *in,
			const struct bloom_snap_hdr *hdr,
			const struct bloom_snap_info *info)
{
	struct payload *p = kmalloc(sizeof(*p), GFP_KERNEL);
	int err;

	if (!p)
		return -ENOMEM;
	p->in.bytes = read_bytes;
	p->in.words = read_words;
	p->in.verify = verify;
	p->verified = false;
	p->c = c;
	p->at = in;
	p->left = info->payload_len;
	p->checksum = info->checksum;
	bloom_snap_csum_begin(&p->st, hdr);
	err = c->ops->load(c, &p->in, info);
	/* Every kind reads and verifies its whole payload. */
	if (!err && WARN_ON_ONCE(!p->verified))
		err = -EBADMSG;
	kfree(p);
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
	struct bloom_snap_info info;
	struct bloom_snap_hdr hdr;
	struct bloom_contents *c;
	int err;

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
	/* A new filter's counters too; one replaced keeps its own. */
	err = bloom_registry_room(net, bloom_contents_snap_bytes(&info) +
				  (r->flags & BLOOM_RESTORE_REPLACE ? 0 :
				   bloom_value_hits_bytes(&info.geom)),
				  r->flags & BLOOM_RESTORE_REPLACE ?
				  r->name : NULL);
	if (err)
		return err;
	c = bloom_contents_new(&info.geom);
	if (!c)
		return -ENOMEM;
	err = load_payload(c, in + sizeof(hdr), &hdr, &info);
	if (err) {
		bloom_contents_free(c);
		return err;
	}
	return bloom_registry_publish(net, r->name, c,
				      r->flags & BLOOM_RESTORE_REPLACE);
}
