// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots: a little-endian header, then the array. The header is
 * checked field by field, each failure with its own error, before any
 * memory is committed; the checksum covers header and payload.
 */
#include "bloom_core.h"

/**
 * bloom_snap_payload_bytes() - the payload length of a snapshot
 * @c: the filter's core
 *
 * Return: the array's bytes, or for an aging filter of G generations G
 * records and G arrays; then the summary's (BLOOM_F_SUMMARY).
 */
u64 bloom_snap_payload_bytes(const struct bloom_core *c)
{
	u64 gens = c->g.gens, summary = 8 * bloom_summary_words(&c->g);

	if (!gens)
		return summary + bloom_array_bytes(c);
	return summary +
	       gens * (sizeof(struct bloom_snap_gen) + bloom_array_bytes(c));
}
EXPORT_SYMBOL_GPL(bloom_snap_payload_bytes);

/**
 * bloom_stages_payload() - the payload of a scalable filter's snapshot
 * @g: the filter's (first stage's) geometry
 * @stages: how many stages it holds
 * @bytes: set to @stages records and the arrays of stages 0..@stages-1
 * @words: set to the words of those arrays
 *
 * Computes each stage's geometry once, a few milliseconds a stage: in
 * the kernel it reschedules between them.
 *
 * Return: 0, or -E2BIG when a stage is over the size cap.
 */
int bloom_stages_payload(const struct bloom_geom *g, u32 stages, u64 *bytes,
			 u64 *words)
{
	struct bloom_geom sg;
	struct bloom_core c;
	u32 i;
	int err;

	*bytes = (u64)stages * sizeof(struct bloom_snap_stage);
	*words = 0;
	for (i = 0; i < stages; i++) {
		err = bloom_stage_geom(g, i, &sg);
		if (err)
			return err;
		bloom_core_init(&c, &sg);
		*bytes += bloom_array_bytes(&c);
		*words += c.nwords;
		bloom_resched();
	}
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_stages_payload);

/**
 * bloom_snap_check_hdr() - validate a snapshot header
 * @h: the header, as read
 * @file_len: length of the whole snapshot (header and payload)
 * @info: on success, what the header describes
 *
 * Does not verify the checksum, which needs the payload.
 *
 * Return: 0; -ENODATA shorter than a header; -EPROTO bad magic;
 * -EPROTONOSUPPORT unknown version or header length; -EINVAL impossible
 * geometry or aging, zero capacity or non-zero reserved fields; -E2BIG geometry
 * over the cap; -EMSGSIZE payload length not the geometry's or not the
 * file's.
 */
int bloom_snap_check_hdr(const struct bloom_snap_hdr *h, u64 file_len,
			 struct bloom_snap_info *info)
{
	struct bloom_core c;
	u64 bytes = 0;
	int i, err;
	u16 version;

	if (file_len < sizeof(*h))
		return -ENODATA;
	if (bloom_le32_to_cpu(h->magic) != BLOOM_SNAP_MAGIC)
		return -EPROTO;
	version = bloom_le16_to_cpu(h->version);
	if (version < BLOOM_SNAP_VERSION ||
	    version > BLOOM_SNAP_VERSION_FUSE ||
	    bloom_le16_to_cpu(h->hdr_len) != sizeof(*h))
		return -EPROTONOSUPPORT;
	memset(info, 0, sizeof(*info));
	if (version == BLOOM_SNAP_VERSION_SCALABLE) {
		u64 st = bloom_le64_to_cpu(h->reserved[0]);

		/* Bits 32-63 are zero; bloom_geom_check() judges the rest. */
		info->geom.stages_max = st & 0xff;
		info->geom.growth = st >> 8 & 0xff;
		info->geom.tighten_pct = st >> 16 & 0xff;
		info->stages = st >> 24 & 0xff;
		if ((st >> 32) || !info->geom.stages_max || !info->stages ||
		    info->stages > info->geom.stages_max)
			return -EINVAL;
	}
	if (version == BLOOM_SNAP_VERSION_AGING) {
		u64 age = bloom_le64_to_cpu(h->reserved[0]);

		/* Bits 16-31 are zero; bloom_geom_check() judges the rest. */
		if ((age >> 16 & 0xffff) || !(age & 0xff))
			return -EINVAL;
		info->geom.gens = age & 0xff;
		info->geom.age_flags = age >> 8 & 0xff;
		info->geom.period_ms = age >> 32;
	}
	/* Cuckoo tables, and only they, are version 5; static filters 6. */
	if ((version == BLOOM_SNAP_VERSION_CUCKOO) !=
	    (h->layout == BLOOM_LAYOUT_CUCKOO) ||
	    (version == BLOOM_SNAP_VERSION_FUSE) !=
	    (h->layout == BLOOM_LAYOUT_FUSE))
		return -EINVAL;
	if (version == BLOOM_SNAP_VERSION_FUSE ||
	    version == BLOOM_SNAP_VERSION_CUCKOO) {
		u64 v = bloom_le64_to_cpu(h->reserved[0]);

		/* Bits 8-63 are zero; bloom_geom_check() judges the width. */
		if (v >> 8)
			return -EINVAL;
		info->geom.value_bits = v;
	}
	info->geom.layout = h->layout;
	info->geom.key_type = h->key_type;
	info->geom.flags = bloom_le16_to_cpu(h->flags);
	info->geom.hashes = bloom_le32_to_cpu(h->hashes);
	info->geom.bits = bloom_le64_to_cpu(h->bits);
	info->geom.seed = bloom_le64_to_cpu(h->seed);
	info->geom.capacity = bloom_le64_to_cpu(h->capacity);
	/* Aging, growing and valued filters keep parameters in reserved[0]. */
	i = version == BLOOM_SNAP_VERSION_AGING ||
	    version == BLOOM_SNAP_VERSION_SCALABLE ||
	    version == BLOOM_SNAP_VERSION_FUSE ||
	    version == BLOOM_SNAP_VERSION_CUCKOO;
	for (; i < (int)ARRAY_SIZE(h->reserved); i++)
		if (h->reserved[i])
			return -EINVAL;
	err = bloom_geom_check(&info->geom);
	if (!err && !info->geom.capacity && h->layout != BLOOM_LAYOUT_FUSE)
		err = -EINVAL;	/* a static filter may be of no keys */
	if (err)
		return err;
	info->inserted = bloom_le64_to_cpu(h->inserted);
	if (h->layout == BLOOM_LAYOUT_FUSE &&
	    info->inserted != info->geom.capacity)
		return -EINVAL;
	info->payload_len = bloom_le64_to_cpu(h->payload_len);
	info->checksum = bloom_le64_to_cpu(h->checksum);
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		info->plens[i] = bloom_le64_to_cpu(h->plens[i]);
	if (info->plens[BLOOM_PLEN_WORDS - 1] >> 1)
		return -EINVAL;		/* prefix lengths beyond 128 */
	/* An IPv4 filter holds no length shorter than /96 (uapi/bloom.h). */
	if ((info->geom.flags & BLOOM_F_INET) &&
	    (info->plens[0] || (u32)info->plens[1]))
		return -EINVAL;
	bloom_core_init(&c, &info->geom);
	info->stage_words = 0;
	if (info->stages)
		err = bloom_stages_payload(&info->geom, info->stages, &bytes,
					   &info->stage_words);
	else
		bytes = bloom_snap_payload_bytes(&c);
	if (err)
		return err;
	if (info->stages)
		bytes += 8 * bloom_summary_words(&info->geom);
	if (info->payload_len != bytes ||
	    file_len - sizeof(*h) != info->payload_len)
		return -EMSGSIZE;
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_snap_check_hdr);

/**
 * bloom_snap_make_hdr() - fill a header for a filter, checksum zero
 * @c: the filter's core
 * @b: its contents (for an aging filter, the caller then sets the
 *	inserted count and prefix lengths of all generations)
 * @h: the header to fill
 */
void bloom_snap_make_hdr(const struct bloom_core *c,
			 const struct bloom_bits *b, struct bloom_snap_hdr *h)
{
	int i;

	memset(h, 0, sizeof(*h));
	h->magic = bloom_cpu_to_le32(BLOOM_SNAP_MAGIC);
	h->version = bloom_cpu_to_le16(BLOOM_SNAP_VERSION);
	h->hdr_len = bloom_cpu_to_le16(sizeof(*h));
	h->layout = c->g.layout;
	h->key_type = c->g.key_type;
	h->flags = bloom_cpu_to_le16(c->g.flags);
	h->hashes = bloom_cpu_to_le32(c->g.hashes);
	h->bits = bloom_cpu_to_le64(c->g.bits);
	h->seed = bloom_cpu_to_le64(c->g.seed);
	h->capacity = bloom_cpu_to_le64(c->g.capacity);
	h->inserted = bloom_cpu_to_le64(bloom_word_read(&b->inserted));
	h->payload_len = bloom_cpu_to_le64(bloom_snap_payload_bytes(c));
	if (c->g.layout == BLOOM_LAYOUT_CUCKOO)
		h->version = bloom_cpu_to_le16(BLOOM_SNAP_VERSION_CUCKOO);
	if (c->g.layout == BLOOM_LAYOUT_FUSE)
		h->version = bloom_cpu_to_le16(BLOOM_SNAP_VERSION_FUSE);
	if (c->g.layout == BLOOM_LAYOUT_CUCKOO ||
	    c->g.layout == BLOOM_LAYOUT_FUSE)
		h->reserved[0] = bloom_cpu_to_le64(c->g.value_bits);
	if (c->g.gens) {
		h->version = bloom_cpu_to_le16(BLOOM_SNAP_VERSION_AGING);
		h->reserved[0] = bloom_cpu_to_le64(c->g.gens |
						   (u64)c->g.age_flags << 8 |
						   (u64)c->g.period_ms << 32);
	}
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		h->plens[i] = bloom_cpu_to_le64(bloom_word_read(&b->plens[i]));
}
EXPORT_SYMBOL_GPL(bloom_snap_make_hdr);

/**
 * bloom_snap_csum_begin() - start the checksum of a snapshot
 * @st: hash state
 * @h: the header; its checksum field is treated as zero
 *
 * Feed the payload with bloom_hash_update(), then bloom_hash_final().
 */
void bloom_snap_csum_begin(bloom_hash_state *st,
			   const struct bloom_snap_hdr *h)
{
	struct bloom_snap_hdr copy = *h;

	copy.checksum = 0;
	bloom_hash_init(st, 0);
	bloom_hash_update(st, &copy, sizeof(copy));
}
EXPORT_SYMBOL_GPL(bloom_snap_csum_begin);

/**
 * bloom_words_to_le() - copy words out in snapshot byte order
 * @w: words
 * @out: destination
 * @n: number of words
 */
void bloom_words_to_le(const bloom_word_t *w, __le64 *out, u64 n)
{
	u64 i;

	for (i = 0; i < n; i++)
		out[i] = bloom_cpu_to_le64(bloom_word_read(&w[i]));
}
EXPORT_SYMBOL_GPL(bloom_words_to_le);

/**
 * bloom_words_from_le() - copy words in from snapshot byte order
 * @w: words, not yet visible to readers
 * @in: source
 * @n: number of words
 */
void bloom_words_from_le(bloom_word_t *w, const __le64 *in, u64 n)
{
	u64 i;

	for (i = 0; i < n; i++)
		bloom_word_set(&w[i], bloom_le64_to_cpu(in[i]));
}
EXPORT_SYMBOL_GPL(bloom_words_from_le);

/**
 * bloom_bits_check_tail() - are the bits past m clear?
 * @c: the filter's core
 * @b: contents loaded from outside (a snapshot)
 *
 * The last word may hold bits (or counters) past m; no add ever sets
 * them, and stats would count them, so loaded contents must have them
 * clear.
 *
 * Return: 0, or -ERANGE.
 */
int bloom_bits_check_tail(const struct bloom_core *c,
			  const struct bloom_bits *b)
{
	u64 per_word = c->g.layout == BLOOM_LAYOUT_COUNTING ? 16 : 64;
	u64 used = c->g.bits % per_word;
	u64 last;

	if (!used)
		return 0;
	last = bloom_word_read(&b->words[c->nwords - 1]);
	return last >> (used * (64 / per_word)) ? -ERANGE : 0;
}
EXPORT_SYMBOL_GPL(bloom_bits_check_tail);

/**
 * bloom_snap_strerror() - what a snapshot error means
 * @err: a negative error from bloom_snap_check_hdr() or -EBADMSG
 *
 * Return: a sentence for users.
 */
const char *bloom_snap_strerror(int err)
{
	switch (err) {
	case -ENODATA:
		return "snapshot is shorter than its header";
	case -EPROTO:
		return "not a bloom snapshot (bad magic)";
	case -EPROTONOSUPPORT:
		return "unsupported snapshot version";
	case -EINVAL:
		return "snapshot geometry is invalid";
	case -E2BIG:
		return "snapshot geometry is over the size limit";
	case -EMSGSIZE:
		return "snapshot payload size does not match its geometry";
	case -EBADMSG:
		return "snapshot checksum mismatch (corrupted)";
	case -ERANGE:
		return "snapshot sets bits past the filter's size";
	default:
		return "unknown snapshot error";
	}
}
EXPORT_SYMBOL_GPL(bloom_snap_strerror);
