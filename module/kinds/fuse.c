// SPDX-License-Identifier: GPL-2.0
/*
 * Static contents: a binary fuse filter, or a Bloomier map when its
 * entries carry values (core/fuse.c). They are built in userspace and
 * arrive whole through RESTORE: nothing ever writes them once they are
 * published, so tests read them without a lock, a barrier or a retry,
 * and the packet path probes them inline (c->array) as it does a plain
 * array. A filter gets other keys by being replaced (restore --replace,
 * swap), never by ADD or DEL: those are -EOPNOTSUPP, as is any
 * operation a static filter has no meaning for (count, algebra, halve,
 * rotate).
 */
#include <linux/overflow.h>
#include "kinds.h"

struct bloom_fuse {
	struct bloom_contents c;
	struct bloom_bits bits;		/* flexible: last */
};

static struct bloom_fuse *fuse(struct bloom_contents *c)
{
	return container_of(c, struct bloom_fuse, c);
}

static size_t fuse_bytes(const struct bloom_core *core)
{
	struct bloom_fuse *f;

	return struct_size(f, bits.words, core->nwords);
}

static int fuse_init(struct bloom_contents *c)
{
	c->array = &fuse(c)->bits;	/* bloom_contents_test() probes it */
	return 0;
}

static bool fuse_test(struct bloom_contents *c, u64 h)
{
	return bloom_test_hash(&c->core, &fuse(c)->bits, h);
}

static int fuse_value(struct bloom_contents *c, u64 h, u32 *value)
{
	return bloom_fuse_lookup(&c->core, &fuse(c)->bits, h, value);
}

static void fuse_plens(struct bloom_contents *c, u64 *plens)
{
	unsigned int i;

	/* Set before publication and never again: a plain read. */
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		plens[i] = bloom_word_read(&fuse(c)->bits.plens[i]);
}

static u32 fuse_test_batch(struct bloom_contents *c, const u64 *h, u32 n,
			   u64 *present)
{
	const struct bloom_core *core = &c->core;
	const struct bloom_bits *b = &fuse(c)->bits;
	u32 i, hits = 0, value;

	memset(present, 0, DIV_ROUND_UP(n, 64) * sizeof(u64));
	for (i = 0; i < n; i++) {
		if (!bloom_fuse_lookup(core, b, h[i], &value))
			continue;
		present[i / 64] |= 1ULL << (i % 64);
		hits++;
	}
	return hits;
}

static int fuse_report(struct bloom_contents *c, struct bloom_report *r,
		       u64 *hist)
{
	bloom_fuse_stats(&c->core, &r->st);
	return 0;
}

static void fuse_snap_hdr(struct bloom_contents *c, struct bloom_snap_hdr *h)
{
	bloom_snap_make_hdr(&c->core, &fuse(c)->bits, h);
}

static void fuse_snap_words(struct bloom_contents *c, u64 first, u64 n,
			    __le64 *out)
{
	bloom_words_to_le(&fuse(c)->bits.words[first], out, n);
}

/*
 * Any entries are a valid filter (a corrupted one only answers
 * wrongly, which the checksum rules out); bits past the last entry
 * must be clear, as every snapshot's.
 */
static int fuse_load(struct bloom_contents *c, struct bloom_payload_in *in,
		     const struct bloom_snap_info *info)
{
	struct bloom_fuse *f = fuse(c);
	unsigned int i;
	int err;

	err = in->words(in, f->bits.words, c->core.nwords) ?:
	      bloom_bits_check_tail(&c->core, &f->bits) ?: in->verify(in);
	if (err)
		return err;
	bloom_word_set(&f->bits.inserted, info->inserted);
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_set(&f->bits.plens[i], info->plens[i]);
	return 0;
}

const struct bloom_kind_ops bloom_fuse_ops = {
	.bytes = fuse_bytes,
	.init = fuse_init,
	.test = fuse_test,
	.value = fuse_value,
	.plens = fuse_plens,
	.test_batch = fuse_test_batch,
	.report = fuse_report,
	.snap_hdr = fuse_snap_hdr,
	.snap_words = fuse_snap_words,
	.load = fuse_load,
};
