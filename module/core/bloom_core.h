/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filter core: geometry and sizing, hashing, the four layouts, stats,
 * set algebra and snapshots. Plain C shared by bloom.ko and userspace;
 * every environment-specific call goes through bloom_port.h.
 */
#ifndef _BLOOM_CORE_H
#define _BLOOM_CORE_H

#include "bloom_port.h"
#include "../../uapi/bloom.h"

#define BLOOM_BLOCK_BITS	512
#define BLOOM_MIN_BITS		64
#define BLOOM_MAX_BITS		(1ULL << 37)	/* 16 GiB of array */
#define BLOOM_MAX_HASHES	32
#define BLOOM_PPB		1000000000ULL	/* rates are parts per 10^9 */

/* What a user asks for; fixed at creation. */
struct bloom_geom {
	u64	bits;		/* m: bits, or counters for counting */
	u64	seed;
	u64	capacity;	/* distinct keys it was sized for */
	u32	hashes;		/* k */
	u8	layout;		/* enum bloom_layout */
	u8	key_type;	/* enum bloom_key_type */
	u16	flags;		/* BLOOM_F_* */
	u8	gens;		/* aging: G generations; 0 when plain */
	u8	age_flags;	/* BLOOM_AGE_F_* */
	u32	period_ms;	/* aging: rotation period; 0 = none */
	u8	stages_max;	/* scalable: most stages; 0 when not */
	u8	growth;		/* scalable: capacity factor per stage */
	u8	tighten_pct;	/* scalable: error factor per stage, % */
	u8	value_bits;	/* static, cuckoo: v bits of value per key */
};

/* The geometry plus what probing derives from it; immutable. */
struct bloom_core {
	struct bloom_geom g;
	u64	nwords;		/* 64-bit words in the array */
	u64	range;		/* m, blocks (blocked), slice length
				 * (partitioned), buckets (cuckoo) or
				 * entries a key's first lies in (static)
				 */
	u32	seg_len;	/* static: entries per segment, 2^i */
};

/*
 * The contents of a filter: cleared, swapped and restored as one unit.
 * All fields are updated atomically and read locklessly. The words start
 * on a cache line so that a 512-bit block is one line, not two (given a
 * 64-byte aligned allocation).
 */
struct bloom_bits {
	bloom_word_t	inserted;		/* adds that set a new bit */
	bloom_word_t	plens[BLOOM_PLEN_WORDS];	/* net: lengths held */
	bloom_word_t	words[] __aligned(BLOOM_BLOCK_BITS / 8);
};

struct bloom_stats {
	u64	bits_set;	/* set bits, or non-zero counters */
	u64	fill_ppb;	/* bits_set / m */
	u64	est_card;	/* estimated distinct keys; U64_MAX when full */
	u64	est_fpr_ppb;	/* false-positive rate for the current fill */
	u64	inserted;
	u64	mem_bytes;	/* array bytes */
};

/* geometry.c */
int bloom_geom_check(const struct bloom_geom *g);
u64 bloom_geom_default_capacity(const struct bloom_geom *g);
int bloom_geom_size(u64 capacity, u64 fpr_ppb, u8 layout,
		    struct bloom_geom *g);
void bloom_core_init(struct bloom_core *c, const struct bloom_geom *g);
u64 bloom_array_bytes(const struct bloom_core *c);
int bloom_geom_same(const struct bloom_core *a, const struct bloom_core *b);
u64 bloom_theory_fpr_ppb(const struct bloom_geom *g, u64 n);
unsigned int bloom_geom_probes(const struct bloom_geom *g);
bool bloom_geom_over_lengths(const struct bloom_geom *g, unsigned int lengths);
u64 bloom_probe_fpr_ppb(const struct bloom_geom *g, u64 lookup_ppb);
u64 bloom_lookup_fpr_ppb(u64 probe_ppb, unsigned int probes);
u64 bloom_theory_fpr_q32(const struct bloom_geom *g, u64 n);
int bloom_stage_geom(const struct bloom_geom *g, unsigned int i,
		     struct bloom_geom *out);
u64 bloom_stage_bound_ppb(const struct bloom_geom *g);

/*
 * xxh64() for inputs shorter than 32 bytes, inline: the same value as the
 * library's, from its short-input path (lanes of 8 bytes, then 4, then
 * single bytes, then the avalanche). Address, prefix and address-port
 * keys are that short (flow and digest keys take the library's path),
 * and the packet path hashes one key per packet: the library's
 * out-of-line generic code cost about what an ipset lookup costs.
 */
#define BLOOM_XXH_P1	0x9e3779b185ebca87ULL
#define BLOOM_XXH_P2	0xc2b2ae3d27d4eb4fULL
#define BLOOM_XXH_P3	0x165667b19e3779f9ULL
#define BLOOM_XXH_P4	0x85ebca77c2b2ae63ULL
#define BLOOM_XXH_P5	0x27d4eb2f165667c5ULL

static inline u64 bloom_rotl64(u64 x, unsigned int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline u64 bloom_xxh64_short(const u8 *p, size_t len, u64 seed)
{
	u64 h = seed + BLOOM_XXH_P5 + len, lane;
	__le64 lane_le;
	__le32 half;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&lane_le, p, 8);
		lane = bloom_le64_to_cpu(lane_le) * BLOOM_XXH_P2;
		h ^= bloom_rotl64(lane, 31) * BLOOM_XXH_P1;
		h = bloom_rotl64(h, 27) * BLOOM_XXH_P1 + BLOOM_XXH_P4;
	}
	if (len >= 4) {
		memcpy(&half, p, 4);
		h ^= (u64)bloom_le32_to_cpu(half) * BLOOM_XXH_P1;
		h = bloom_rotl64(h, 23) * BLOOM_XXH_P2 + BLOOM_XXH_P3;
		p += 4;
		len -= 4;
	}
	for (; len; p++, len--) {
		h ^= *p * BLOOM_XXH_P5;
		h = bloom_rotl64(h, 11) * BLOOM_XXH_P1;
	}
	h ^= h >> 33;
	h *= BLOOM_XXH_P2;
	h ^= h >> 29;
	h *= BLOOM_XXH_P3;
	return h ^ (h >> 32);
}

/* filter.c: single keys by hash; hash with bloom_hash() */
static inline u64 bloom_hash(const struct bloom_core *c, const void *key,
			     size_t len)
{
	/* An address, the common key: a constant length unrolls the loop. */
	if (len == 16)
		return bloom_xxh64_short(key, 16, c->g.seed);
	if (len < 32)
		return bloom_xxh64_short(key, len, c->g.seed);
	return bloom_xxh64(key, len, c->g.seed);
}

bool bloom_add_hash(const struct bloom_core *c, struct bloom_bits *b, u64 h);
bool bloom_test_hash(const struct bloom_core *c, const struct bloom_bits *b,
		     u64 h);
int bloom_del_hash(const struct bloom_core *c, struct bloom_bits *b, u64 h);
int bloom_bits_check_tail(const struct bloom_core *c,
			  const struct bloom_bits *b);
u32 bloom_count_hash(const struct bloom_core *c, const struct bloom_bits *b,
		     u64 h);
u32 bloom_add_batch(const struct bloom_core *c, struct bloom_bits *b,
		    const u64 *h, u32 n);
u32 bloom_test_batch(const struct bloom_core *c, const struct bloom_bits *b,
		     const u64 *h, u32 n, u64 *present);
u32 bloom_load_batch(const struct bloom_core *c, struct bloom_bits *b,
		     const u64 *h, u32 n);
void bloom_bits_clear(const struct bloom_core *c, struct bloom_bits *b);
void bloom_note_plen(struct bloom_bits *b, unsigned int plen);

/* cuckoo.c: tables of fingerprints (BLOOM_LAYOUT_CUCKOO) */
#define BLOOM_CUCKOO_MOVES	5	/* longest chain of moves an insert makes */
#define BLOOM_CUCKOO_NODES	1024	/* buckets its search may look at */
#define BLOOM_CUCKOO_MIX	0x9e3779b97f4a7c15ULL	/* 2^64 / golden ratio */

struct bloom_cuckoo_key {
	u64	i1, i2;		/* its buckets */
	u32	fp;		/* its fingerprint, never 0 */
};

/* A bucket the insert's search reached, and how. */
struct bloom_cuckoo_node {
	u32	bucket;		/* there are fewer than 2^32 */
	u16	parent;		/* node it was reached from (a root: itself) */
	u8	slot;		/* the parent's slot whose fingerprint moves here */
	u8	depth;		/* moves from the root */
};

/*
 * Called around every slot written in bucket @bucket; @move is true for
 * the erase that ends a move (the fingerprint was copied to its other
 * bucket just before).
 */
struct bloom_cuckoo_mover {
	void	(*begin)(void *arg, u64 bucket, bool move);
	void	(*end)(void *arg, u64 bucket);
	void	*arg;
};

/* Bits a slot takes: the fingerprint, then the value (0 bits without). */
static inline unsigned int bloom_cuckoo_width(const struct bloom_geom *g)
{
	return g->hashes + g->value_bits;
}

u32 bloom_cuckoo_slot(const struct bloom_core *c, const struct bloom_bits *b,
		      u64 i, unsigned int j);
bool bloom_cuckoo_value(const struct bloom_core *c, const struct bloom_bits *b,
			const struct bloom_cuckoo_key *k, u32 *value);
int bloom_cuckoo_find(const struct bloom_core *c, const struct bloom_bits *b,
		      u64 i, u32 fp);
u32 bloom_cuckoo_matches(const struct bloom_core *c,
			 const struct bloom_bits *b,
			 const struct bloom_cuckoo_key *k);
bool bloom_cuckoo_test(const struct bloom_core *c, const struct bloom_bits *b,
		       u64 h);
int bloom_cuckoo_insert(const struct bloom_core *c, struct bloom_bits *b,
			u64 h, struct bloom_cuckoo_node *q,
			const struct bloom_cuckoo_mover *mv, u64 *moves,
			bool copy);
int bloom_cuckoo_insert_within(const struct bloom_core *c,
			       struct bloom_bits *b, u64 h, u32 value,
			       struct bloom_cuckoo_node *q, unsigned int nodes,
			       const struct bloom_cuckoo_mover *mv, u64 *moves,
			       bool copy);
int bloom_cuckoo_delete(const struct bloom_core *c, struct bloom_bits *b,
			u64 h, const struct bloom_cuckoo_mover *mv);
u64 bloom_cuckoo_used(const struct bloom_core *c, const struct bloom_bits *b);
void bloom_cuckoo_stats(const struct bloom_core *c, const struct bloom_bits *b,
			struct bloom_stats *st);
u64 bloom_cuckoo_fpr_q32(const struct bloom_geom *g, u64 n);
int bloom_cuckoo_size(u64 capacity, u64 fpr_ppb, struct bloom_geom *g);

/*
 * The lookup, inline: it is on the packet path (see cuckoo.c for the
 * layout). A 32-bit value onto a bucket, [0, B): Lemire's reduction.
 */
static inline u64 bloom_cuckoo_reduce(const struct bloom_core *c, u32 x)
{
	return ((u64)x * c->range) >> 32;
}

/**
 * bloom_cuckoo_alt() - the other bucket of a fingerprint
 * @c: the table's core
 * @i: one of its buckets
 * @fp: the fingerprint
 *
 * Return: (H(fp) - @i) mod B, H a multiplicative mix: its own inverse.
 */
static inline u64 bloom_cuckoo_alt(const struct bloom_core *c, u64 i, u32 fp)
{
	u64 t = bloom_cuckoo_reduce(c, (u32)(((u64)fp * BLOOM_CUCKOO_MIX) >> 32));

	return t >= i ? t - i : t + c->range - i;
}

/* A key's fingerprint (top f bits of its hash, never 0) and buckets. */
static inline void bloom_cuckoo_key(const struct bloom_core *c, u64 h,
				    struct bloom_cuckoo_key *k)
{
	k->fp = h >> (64 - c->g.hashes);
	if (!k->fp)
		k->fp = 1;
	k->i1 = bloom_cuckoo_reduce(c, (u32)h);
	k->i2 = bloom_cuckoo_alt(c, k->i1, k->fp);
}

/*
 * Does bucket @i hold @fp? For slots of w <= 16 bits a bucket is at most
 * a word wide: keep each lane's f fingerprint bits (values dropped), XOR
 * them with fp in every lane and look for a zero lane, the classic SWAR
 * test, in at most two loads. It is exact as a yes or no: a lane borrows
 * from the next only when it is zero itself, and the bits between a
 * lane's fingerprint and the next lane are zero.
 */
static inline bool bloom_cuckoo_bucket_has(const struct bloom_core *c,
					   const struct bloom_bits *b, u64 i,
					   u32 fp)
{
	unsigned int f = c->g.hashes, w = bloom_cuckoo_width(&c->g);
	unsigned int width = BLOOM_CUCKOO_SLOTS * w, sh;
	u64 ones, pos, x;

	if (w > 64 / BLOOM_CUCKOO_SLOTS)
		return bloom_cuckoo_find(c, b, i, fp) >= 0;
	ones = 1 | 1ULL << w | 1ULL << 2 * w | 1ULL << 3 * w;
	pos = i * width;
	sh = pos % 64;
	x = bloom_word_read(&b->words[pos / 64]) >> sh;
	if (sh + width > 64)
		x |= bloom_word_read(&b->words[pos / 64 + 1]) << (64 - sh);
	x &= ((1ULL << f) - 1) * ones;
	x ^= fp * ones;
	return (x - ones) & ~x & ones << (f - 1);
}

/* Unsynchronised: is @k's fingerprint in one of its buckets? */
static inline bool bloom_cuckoo_present(const struct bloom_core *c,
					const struct bloom_bits *b,
					const struct bloom_cuckoo_key *k)
{
	return bloom_cuckoo_bucket_has(c, b, k->i1, k->fp) ||
	       bloom_cuckoo_bucket_has(c, b, k->i2, k->fp);
}

/* fuse.c: static filters and maps (BLOOM_LAYOUT_FUSE) */
#define BLOOM_FUSE_SEED_STEP	0x9e3779b97f4a7c15ULL	/* next seed to try */
#define BLOOM_FUSE_TRIES	64	/* seeds a build tries */

/* A key to build from: its hash, its value, where the caller had it. */
struct bloom_fuse_item {
	u64	h;		/* bloom_hash() of the key */
	u32	value;		/* below 2^v */
	u32	idx;		/* the caller's, for naming duplicates */
};

struct bloom_fuse_key {
	u64	p[3];		/* its three entries */
	u32	fp;		/* its fingerprint */
};

u64 bloom_fuse_entries(u64 n, u32 *seg_len);
int bloom_fuse_geom(u64 n, u32 fp_bits, u32 value_bits,
		    struct bloom_geom *g);
int bloom_fuse_check(const struct bloom_geom *g);
size_t bloom_fuse_scratch_bytes(const struct bloom_core *c);
int bloom_fuse_sort(struct bloom_fuse_item *it, struct bloom_fuse_item *tmp,
		    u64 n, void *scratch, u64 *distinct, u32 dup[2]);
int bloom_fuse_build(const struct bloom_core *c, struct bloom_bits *b,
		     const struct bloom_fuse_item *it, u64 n, void *scratch);
void bloom_fuse_stats(const struct bloom_core *c, struct bloom_stats *st);
u64 bloom_fuse_fpr_q32(const struct bloom_geom *g);

/*
 * The lookup, inline: it is on the packet path. A key's first entry is
 * in segment s < S, its second in s + 1 and its third in s + 2, at
 * offsets taken from two other parts of its hash (Graf and Lemire).
 */
static inline void bloom_fuse_key(const struct bloom_core *c, u64 h,
				  struct bloom_fuse_key *k)
{
	u64 mask = c->seg_len - 1, p0 = bloom_mulhi(h, c->range);

	k->p[0] = p0;
	k->p[1] = (p0 + c->seg_len) ^ ((h >> 18) & mask);
	k->p[2] = (p0 + 2 * (u64)c->seg_len) ^ (h & mask);
	k->fp = (h ^ (h >> 32)) & ((1ULL << c->g.hashes) - 1);
}

/* Entry @i: f + v <= 32 bits from bit i (f + v), in at most two loads. */
static inline u32 bloom_fuse_entry(const struct bloom_core *c,
				   const struct bloom_bits *b, u64 i)
{
	unsigned int w = c->g.hashes + c->g.value_bits;
	u64 pos = i * w, x;
	unsigned int sh = pos % 64;

	x = bloom_word_read(&b->words[pos / 64]) >> sh;
	if (sh + w > 64)
		x |= bloom_word_read(&b->words[pos / 64 + 1]) << (64 - sh);
	return x & ((1ULL << w) - 1);
}

/**
 * bloom_fuse_lookup() - a key's value in a static filter
 * @c: the filter's core
 * @b: its entries
 * @h: bloom_hash() of the key
 * @value: set to its value (0 without values) when present
 *
 * Return: true if the key may be a member (false positives: 2^-f).
 */
static inline bool bloom_fuse_lookup(const struct bloom_core *c,
				     const struct bloom_bits *b, u64 h,
				     u32 *value)
{
	unsigned int v = c->g.value_bits;
	struct bloom_fuse_key k;
	u32 e;

	bloom_fuse_key(c, h, &k);
	e = bloom_fuse_entry(c, b, k.p[0]) ^ bloom_fuse_entry(c, b, k.p[1]) ^
	    bloom_fuse_entry(c, b, k.p[2]);
	if (e >> v != k.fp)
		return false;
	*value = e & ((1U << v) - 1);
	return true;
}

/* stats.c: stats, estimates and set algebra */
#define BLOOM_HIST_WORDS	(BLOOM_BLOCK_BITS + 1)	/* scratch for these */
void bloom_stats(const struct bloom_core *c, const struct bloom_bits *b,
		 u64 *hist, struct bloom_stats *st);
void bloom_stats_fold(struct bloom_stats *sum, const struct bloom_stats *part);
u64 bloom_est_union(const struct bloom_core *c, const struct bloom_bits *a,
		    const struct bloom_bits *b, u64 *hist);
u64 bloom_est_intersection(const struct bloom_core *c,
			   const struct bloom_bits *a,
			   const struct bloom_bits *b, u64 *hist);
void bloom_union(const struct bloom_core *c, struct bloom_bits *dst,
		 const struct bloom_bits *src);
void bloom_intersect(const struct bloom_core *c, struct bloom_bits *dst,
		     const struct bloom_bits *src);
int bloom_halve_geom(const struct bloom_geom *in, struct bloom_geom *out);
void bloom_halve(const struct bloom_core *from, const struct bloom_bits *src,
		 const struct bloom_core *to, struct bloom_bits *dst);
u64 bloom_card_est(u64 x, u64 units, u32 k);
u64 bloom_fill_fpr_q32(u64 x, u64 units, u32 k);

/* snapshot.c */
struct bloom_snap_info {
	struct bloom_geom geom;
	u32	stages;		/* scalable: how many the payload holds */
	u64	stage_words;	/* scalable: their arrays' words, together */
	u64	inserted;
	u64	plens[BLOOM_PLEN_WORDS];
	u64	payload_len;
	u64	checksum;
};

/* Is a filter holding @inserted keys past what it was sized for? */
static inline bool bloom_over_capacity(const struct bloom_geom *g,
				       u64 inserted)
{
	return inserted > g->capacity;
}

u64 bloom_snap_payload_bytes(const struct bloom_core *c);
int bloom_stages_payload(const struct bloom_geom *g, u32 stages, u64 *bytes,
			 u64 *words);
int bloom_snap_check_hdr(const struct bloom_snap_hdr *h, u64 file_len,
			 struct bloom_snap_info *info);
void bloom_snap_make_hdr(const struct bloom_core *c,
			 const struct bloom_bits *b, struct bloom_snap_hdr *h);
void bloom_snap_csum_begin(bloom_hash_state *st,
			   const struct bloom_snap_hdr *h);
void bloom_words_to_le(const bloom_word_t *w, __le64 *out, u64 n);
void bloom_words_from_le(bloom_word_t *w, const __le64 *in, u64 n);
const char *bloom_snap_strerror(int err);

/* summary.c: which /16s a net filter's prefixes reach */
u64 bloom_summary_words(const struct bloom_geom *g);
void bloom_summary_note(bloom_word_t *s, const struct bloom_geom *g,
			const struct bloom_key_net *k);
bool bloom_summary_test(const bloom_word_t *s, const struct bloom_geom *g,
			const u8 *addr);
void bloom_summary_fill(bloom_word_t *s, const struct bloom_geom *g);
void bloom_summary_union(bloom_word_t *dst, const bloom_word_t *src,
			 const struct bloom_geom *g);

/* names.c */
const char *bloom_layout_name(unsigned int layout);
const char *bloom_key_type_name(unsigned int key_type);

/* keys.c */
size_t bloom_key_size(u8 key_type);
bool bloom_key_type_retired(unsigned int key_type);
int bloom_key_check(u8 key_type, const void *key, size_t len);
u16 bloom_key_family(u8 key_type, const void *key);
bool bloom_key_type_has_family(unsigned int key_type);
bool bloom_key_family_ok(u16 flags, u8 key_type, const void *key);
void bloom_net_mask(u8 *addr, unsigned int plen);
void bloom_net_family_plens(__u64 *plens, const u8 *addr);
unsigned int bloom_net_lookup_lengths(const __u64 *plens);
bool bloom_digest_has_ports(u8 proto);

/*
 * digest.c: a packet digest key (uapi/bloom.h) from the parts of a packet
 * its reader found. @l4 holds the first min(@l4_len, BLOOM_DIGEST_READ_MAX)
 * bytes from the transport header (a later fragment: from its data):
 * enough for the longest TCP header and the most payload a key takes.
 */
#define BLOOM_DIGEST_READ_MAX	(60 + BLOOM_DIGEST_BYTES_MAX)

struct bloom_digest_pkt {
	const u8 *saddr;	/* 16 bytes, IPv4 v4-mapped */
	const u8 *daddr;
	const u8 *l4;
	u32 l4_len;		/* bytes from @l4 to the packet's end */
	u8 proto;
	bool fragment;		/* a later fragment: no transport header */
	bool ipv6;		/* an IPv6 packet: 32-bit fragment ids */
	u32 frag_id;		/* its datagram's identification */
	u32 frag_off;		/* its offset in the datagram, in bytes */
};

int bloom_digest_build(struct bloom_key_digest *k,
		       const struct bloom_digest_pkt *p, unsigned int nbytes);

/* fixmath.c: Q32.32 fixed point, enough for sizing and estimates */
#define BLOOM_FX_ONE	(1LL << 32)
s64 bloom_fx_ln(u64 x);
u64 bloom_fx_exp(s64 x);
s64 bloom_fx_ln_ratio(u64 num, u64 den);

#endif /* _BLOOM_CORE_H */
