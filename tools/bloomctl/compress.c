// SPDX-License-Identifier: GPL-2.0
/*
 * Compressed snapshots, for shipping filters (docs/transport.md): a
 * container around a whole snapshot file of any version, which bloomctl
 * alone decodes; the kernel only ever sees the snapshot inside.
 *
 * The container is struct snapz_hdr, then the inner snapshot's header
 * as it is, then its payload coded by one method:
 *
 *   stored  as it is (when no method makes it smaller);
 *   rice    the payload as a string of bits (bit i of byte j is bit
 *           8j + i, which is bit order of the little-endian words), coded
 *           as the gaps between its set bits: each gap g (zero bits
 *           before the next set bit) is g >> r in unary (that many ones,
 *           then a zero) and the r low bits of g, least significant bit
 *           first; @count set bits, @param is r. Bit arrays (blocked,
 *           standard, partitioned; plain, aging and growing);
 *   zstd    one zstd frame (libzstd, level 19), with its content size:
 *           counters, cuckoo and static fingerprints.
 *
 * A reader checks the container (sizes, checksum) and the inner header
 * before it allocates anything, and the inner snapshot's own checksum
 * is verified after decoding, as that of any snapshot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "bloomctl.h"

#define SNAPZ_MAGIC	0x5a4d4c42	/* "BLMZ" */
#define SNAPZ_VERSION	1
#define SNAPZ_ZSTD_LEVEL	19
#define RICE_MAX	48	/* no payload has gaps of 2^48 bits */
#define INNER_HDR	sizeof(struct bloom_snap_hdr)

struct snapz_hdr {
	__le32	magic;
	__le16	version;
	__le16	hdr_len;	/* sizeof(struct snapz_hdr) */
	__u8	method;		/* SNAPZ_* */
	__u8	param;		/* rice: r */
	__le16	flags;		/* zero */
	__le32	reserved;	/* zero */
	__le64	orig_len;	/* the snapshot's, header included */
	__le64	data_len;	/* bytes after this header */
	__le64	count;		/* rice: set bits in the payload */
	__le64	checksum;	/* xxh64 of all, this field zero */
};

static_assert(sizeof(struct snapz_hdr) == SNAPZ_HDR_BYTES,
	      "the container header is 48 bytes");

static const char *const method_names[] = {
	[SNAPZ_STORED] = "stored",
	[SNAPZ_RICE] = "golomb-rice",
	[SNAPZ_ZSTD] = "zstd",
};

const char *snapz_method_name(unsigned int method)
{
	return method < ARRAY_SIZE(method_names) ? method_names[method] : "?";
}

bool snapz_is(const u8 *buf, size_t len)
{
	u32 magic;

	if (len < sizeof(magic))
		return false;
	memcpy(&magic, buf, sizeof(magic));
	return bloom_le32_to_cpu(magic) == SNAPZ_MAGIC;
}

/* Expected bits of the rice code of @s set bits among @bits, with @r. */
double rice_model_bits(double s, double bits, unsigned int r)
{
	double p, theta;

	if (s <= 0 || bits <= 0)
		return 0;
	p = min(s / bits, 1.0);
	/* gaps are geometric: P(g >= t 2^r) = theta^t */
	theta = p >= 1 ? 0 : exp(ldexp(1.0, (int)r) * log1p(-p));
	return s * (1 + r + theta / (1 - theta));
}

/* The r that rice_model_bits() finds best: what the encoder uses. */
unsigned int rice_pick(double s, double bits)
{
	unsigned int r, best = 0;

	for (r = 1; r <= RICE_MAX; r++) {
		if (rice_model_bits(s, bits, r) >=
		    rice_model_bits(s, bits, best))
			break;
		best = r;
	}
	return best;
}

/* Expected bytes of a rice-coded container of a payload of @bytes. */
double snapz_rice_model_bytes(double s, u64 bytes)
{
	double bits = (double)bytes * 8;

	return SNAPZ_HDR_BYTES + INNER_HDR +
	       ceil(rice_model_bits(s, bits, rice_pick(s, bits)) / 8);
}

/* Word @i of @p (@len bytes), little-endian; a short last one zero-filled. */
static u64 le_word(const u8 *p, size_t len, size_t i)
{
	u64 w = 0;

	memcpy(&w, p + i * 8, min((size_t)8, len - i * 8));
	return bloom_le64_to_cpu(w);
}

struct rice_enc {
	u8 *buf;	/* NULL: count only */
	u64 pos;	/* bits written */
	unsigned int r;
};

/* @n (at most 57) bits of @v at the current position, into zeros. */
static void put_bits(struct rice_enc *e, u64 v, unsigned int n)
{
	u64 w;

	if (e->buf && n) {
		memcpy(&w, e->buf + e->pos / 8, 8);
		w = bloom_le64_to_cpu(w) | v << (e->pos % 8);
		w = bloom_cpu_to_le64(w);
		memcpy(e->buf + e->pos / 8, &w, 8);
	}
	e->pos += n;
}

static void put_gap(struct rice_enc *e, u64 g)
{
	u64 q = g >> e->r;

	for (; q >= 57; q -= 57)
		put_bits(e, (1ULL << 57) - 1, 57);
	put_bits(e, (1ULL << q) - 1, (unsigned int)q + 1);	/* then a 0 */
	put_bits(e, g & ((1ULL << e->r) - 1), e->r);
}

/* Code every gap of @p (or count the bits it takes, e->buf NULL). */
static void rice_pass(struct rice_enc *e, const u8 *p, size_t len)
{
	size_t i, words = DIV_ROUND_UP(len, 8);
	u64 next = 0;		/* the bit after the last set one */

	for (i = 0; i < words; i++) {
		u64 w = le_word(p, len, i);

		while (w) {
			u64 bit = i * 64 + (u64)__builtin_ctzll(w);

			put_gap(e, bit - next);
			next = bit + 1;
			w &= w - 1;
		}
	}
}

static u64 popcount_bytes(const u8 *p, size_t len)
{
	size_t i, words = DIV_ROUND_UP(len, 8);
	u64 n = 0;

	for (i = 0; i < words; i++)
		n += bloom_popcount64(le_word(p, len, i));
	return n;
}

/* Bit arrays, whatever their version: the layouts rice suits. */
static bool is_bit_array(const struct bloom_snap_hdr *h)
{
	u16 v = bloom_le16_to_cpu(h->version);

	if (v < BLOOM_SNAP_VERSION || v > BLOOM_SNAP_VERSION_SCALABLE)
		return false;
	return h->layout == BLOOM_LAYOUT_BLOCKED ||
	       h->layout == BLOOM_LAYOUT_STANDARD ||
	       h->layout == BLOOM_LAYOUT_PARTITIONED;
}

/* The rice code of @p into a new buffer; its length in @out_len. */
static u8 *rice_encode(const u8 *p, size_t len, u64 *count, u8 *r,
		       size_t *out_len)
{
	struct rice_enc e = { 0 };
	u64 bytes;

	*count = popcount_bytes(p, len);
	e.r = rice_pick((double)*count, (double)len * 8);
	rice_pass(&e, p, len);
	bytes = DIV_ROUND_UP(e.pos, 8);
	*r = (u8)e.r;
	*out_len = (size_t)bytes;
	if (bytes >= len)
		return NULL;	/* stored is smaller */
	e.buf = xcalloc(1, (size_t)bytes + 8);	/* put_bits() reads 8 */
	e.pos = 0;
	rice_pass(&e, p, len);
	return e.buf;
}

static u8 *zstd_encode(const u8 *p, size_t len, size_t *out_len)
{
	size_t cap = ZSTD_compressBound(len), n;
	u8 *buf = xmalloc(cap);

	n = ZSTD_compress(buf, cap, p, len, SNAPZ_ZSTD_LEVEL);
	if (ZSTD_isError(n))
		die("zstd: %s", ZSTD_getErrorName(n));
	if (n >= len) {
		free(buf);
		return NULL;
	}
	*out_len = n;
	return buf;
}

static u64 container_checksum(const u8 *buf, size_t len)
{
	struct snapz_hdr h;
	bloom_hash_state st;

	memcpy(&h, buf, sizeof(h));
	h.checksum = 0;
	bloom_hash_init(&st, 0);
	bloom_hash_update(&st, &h, sizeof(h));
	bloom_hash_update(&st, buf + sizeof(h), len - sizeof(h));
	return bloom_hash_final(&st);
}

/**
 * snapz_pack() - a compressed snapshot of a sealed snapshot
 * @in: the snapshot, as snap_fetch() or build make it
 * @out: filled with the container; free with snap_free()
 *
 * Rice for bit arrays, zstd for the rest, stored when the method chosen
 * does not make the payload smaller.
 *
 * Return: the method used.
 */
unsigned int snapz_pack(const struct snap_image *in, struct snap_image *out)
{
	const struct bloom_snap_hdr *ih = (const void *)in->buf;
	const u8 *payload = in->buf + INNER_HDR;
	size_t plen = in->len - INNER_HDR, clen = plen;
	unsigned int method = SNAPZ_STORED;
	struct snapz_hdr h;
	u8 *coded = NULL, r = 0;
	u64 count = 0;

	if (is_bit_array(ih))
		coded = rice_encode(payload, plen, &count, &r, &clen);
	else
		coded = zstd_encode(payload, plen, &clen);
	if (coded) {
		method = is_bit_array(ih) ? SNAPZ_RICE : SNAPZ_ZSTD;
	} else {
		clen = plen;
		count = 0;
		r = 0;
	}
	memset(&h, 0, sizeof(h));
	h.magic = bloom_cpu_to_le32(SNAPZ_MAGIC);
	h.version = bloom_cpu_to_le16(SNAPZ_VERSION);
	h.hdr_len = bloom_cpu_to_le16(sizeof(h));
	h.method = (u8)method;
	h.param = r;
	h.orig_len = bloom_cpu_to_le64(in->len);
	h.data_len = bloom_cpu_to_le64(INNER_HDR + clen);
	h.count = bloom_cpu_to_le64(count);
	out->len = sizeof(h) + INNER_HDR + clen;
	out->buf = xmalloc(out->len);
	memcpy(out->buf, &h, sizeof(h));
	memcpy(out->buf + sizeof(h), in->buf, INNER_HDR);
	memcpy(out->buf + sizeof(h) + INNER_HDR, coded ? coded : payload, clen);
	free(coded);
	h.checksum = bloom_cpu_to_le64(container_checksum(out->buf, out->len));
	memcpy(out->buf, &h, sizeof(h));
	return method;
}

struct rice_dec {
	const u8 *p;
	u64 nbits, pos;
};

/* Up to 57 bits from the current position (zeros past the end). */
static u64 peek_bits(const struct rice_dec *d)
{
	u64 byte = d->pos / 8, w = 0, nbytes = DIV_ROUND_UP(d->nbits, 8);

	if (byte < nbytes)
		memcpy(&w, d->p + byte, min((u64)8, nbytes - byte));
	return bloom_le64_to_cpu(w) >> (d->pos % 8);
}

/* A unary count: ones up to a zero. False if the data ends first. */
static bool get_unary(struct rice_dec *d, u64 *q)
{
	*q = 0;
	while (d->pos < d->nbits) {
		u64 avail = min((u64)57, d->nbits - d->pos);
		u64 zeros = ~peek_bits(d) & ((1ULL << avail) - 1);

		if (zeros) {
			u64 n = (u64)__builtin_ctzll(zeros);

			*q += n;
			d->pos += n + 1;
			return true;
		}
		*q += avail;
		d->pos += avail;
	}
	return false;
}

static bool get_bits(struct rice_dec *d, unsigned int n, u64 *v)
{
	if (d->nbits - d->pos < n)
		return false;
	*v = n ? peek_bits(d) & ((1ULL << n) - 1) : 0;
	d->pos += n;
	return true;
}

/* Sets @count bits of @out (@len bytes, zeroed) from the code in @d. */
static const char *rice_decode(struct rice_dec *d, unsigned int r, u64 count,
			       u8 *out, u64 len)
{
	u64 i, next = 0, q, low, bit;

	for (i = 0; i < count; i++) {
		if (!get_unary(d, &q) || !get_bits(d, r, &low))
			return "its data ends before its last set bit";
		if (q > (len * 8) >> r)
			return "a set bit past the end of the payload";
		bit = next + (q << r | low);
		if (bit >= len * 8 || bit < next)
			return "a set bit past the end of the payload";
		out[bit / 8] |= (u8)(1 << (bit % 8));
		next = bit + 1;
	}
	if (d->nbits - d->pos >= 8 || (d->pos < d->nbits && peek_bits(d)))
		return "data after its last set bit";
	return NULL;
}

static const char *zstd_decode(const u8 *p, size_t len, u8 *out, u64 olen)
{
	unsigned long long size = ZSTD_getFrameContentSize(p, len);
	size_t n;

	if (size == ZSTD_CONTENTSIZE_ERROR)
		return "its data is not a zstd frame";
	if (size != olen)
		return "its zstd frame does not hold the snapshot's payload size";
	if (ZSTD_findFrameCompressedSize(p, len) != len)
		return "its zstd frame does not end where its data does";
	n = ZSTD_decompress(out, olen, p, len);
	if (ZSTD_isError(n) || n != olen)
		return "its zstd data is damaged";
	return NULL;
}

/* What the container's header says, or why it is refused. */
static const char *check_container(const u8 *buf, size_t len,
				   struct snapz_hdr *h)
{
	static char why[160];

	if (len < sizeof(*h)) {
		snprintf(why, sizeof(why),
			 "truncated: %zu bytes, less than its %zu-byte header",
			 len, sizeof(*h));
		return why;
	}
	memcpy(h, buf, sizeof(*h));
	if (bloom_le16_to_cpu(h->version) != SNAPZ_VERSION) {
		snprintf(why, sizeof(why),
			 "container version %u is not supported (this bloomctl reads %u)",
			 bloom_le16_to_cpu(h->version), SNAPZ_VERSION);
		return why;
	}
	if (bloom_le16_to_cpu(h->hdr_len) != sizeof(*h) || h->flags ||
	    h->reserved)
		return "its header is damaged";
	if (bloom_le64_to_cpu(h->data_len) != len - sizeof(*h)) {
		snprintf(why, sizeof(why), "%s: %zu bytes of data, its header says %llu",
			 bloom_le64_to_cpu(h->data_len) > len - sizeof(*h) ?
			 "truncated" : "trailing bytes", len - sizeof(*h),
			 (unsigned long long)bloom_le64_to_cpu(h->data_len));
		return why;
	}
	if (bloom_le64_to_cpu(h->checksum) != container_checksum(buf, len))
		return "checksum mismatch (damaged in transit?)";
	if (h->method >= ARRAY_SIZE(method_names)) {
		snprintf(why, sizeof(why), "unknown method %u", h->method);
		return why;
	}
	if (len - sizeof(*h) < INNER_HDR ||
	    bloom_le64_to_cpu(h->orig_len) < INNER_HDR)
		return "too short to hold a snapshot header";
	return NULL;
}

/* --max-memory B where a snapshot is read: false if @c is another. */
bool read_option(const char *cmd, int c, const char *arg)
{
	if (c != OPT_MAX_MEMORY)
		return false;
	if (parse_count(arg, &opts.read_max) || !opts.read_max)
		usage_error(cmd, "bad --max-memory '%s'", arg);
	return true;
}

/*
 * A few hundred bytes may declare gigabytes (a large, nearly empty
 * filter): past --max-memory, refused before anything is allocated.
 * The default is the kernel's default limit of a namespace, which a
 * restore of anything larger would meet anyway.
 */
static void check_read_max(const char *path, u64 olen)
{
	u64 max = opts.read_max ?: TRANSPORT_MEM_DEFAULT;
	char size[32], limit[32];

	if (olen <= max)
		return;
	human_bytes(olen, size, sizeof(size));
	human_bytes(max, limit, sizeof(limit));
	die("%s: compressed snapshot: it decodes to %s, more than --max-memory %s: --max-memory %lluGiB reads it",
	    path, size, limit,
	    (unsigned long long)((olen + (1ULL << 30) - 1) >> 30));
}

/* Refuses a size this machine could not hold: before allocating it. */
static bool too_big(u64 bytes)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 && bytes / (u64)size >= (u64)pages;
}

static const char *decode(const struct snapz_hdr *h, const u8 *data,
			  u64 dlen, u8 *out, u64 olen)
{
	struct rice_dec d = { data, dlen * 8, 0 };
	u64 count = bloom_le64_to_cpu(h->count);

	switch (h->method) {
	case SNAPZ_STORED:
		if (dlen != olen)
			return "its stored payload is not the snapshot's size";
		memcpy(out, data, olen);
		return NULL;
	case SNAPZ_RICE:
		if (h->param > RICE_MAX)
			return "its rice parameter is out of range";
		if (count > olen * 8 || count > dlen * 8 / (h->param + 1U))
			return "more set bits than its data can hold";
		return rice_decode(&d, h->param, count, out, olen);
	default:
		return zstd_decode(data, dlen, out, olen);
	}
}

/**
 * snapz_unpack() - the snapshot inside a compressed one, or die
 * @path: the file, for messages
 * @img: the container, replaced by the snapshot it holds
 *
 * Everything is checked before the snapshot is allocated: the
 * container's sizes and checksum, and the inner header against its
 * declared length (what a restore accepts), which bounds the allocation;
 * the caller then verifies the snapshot's own checksum, as always.
 */
void snapz_unpack(const char *path, struct snap_image *img)
{
	const struct bloom_snap_hdr *ih;
	struct bloom_snap_info info;
	struct snap_image out;
	struct snapz_hdr h;
	const char *why;
	char size[32];
	u64 olen;
	int err;

	why = check_container(img->buf, img->len, &h);
	if (why)
		die("%s: compressed snapshot: %s", path, why);
	ih = (const void *)(img->buf + sizeof(h));
	olen = bloom_le64_to_cpu(h.orig_len);
	err = bloom_snap_check_hdr(ih, olen, &info);
	if (err == -EINVAL && bloom_key_type_retired(ih->key_type))
		err = SNAP_E_RETIRED_KEY;
	if (err)
		die("%s: compressed snapshot: the snapshot inside: %s", path,
		    snap_strerror(err));
	check_read_max(path, olen);
	if (too_big(olen)) {
		human_bytes(olen, size, sizeof(size));
		die("%s: compressed snapshot: it holds %s, more than this machine's memory",
		    path, size);
	}
	out.len = (size_t)olen;
	out.buf = xcalloc(1, out.len);
	memcpy(out.buf, ih, INNER_HDR);
	why = decode(&h, img->buf + sizeof(h) + INNER_HDR,
		     img->len - sizeof(h) - INNER_HDR, out.buf + INNER_HDR,
		     olen - INNER_HDR);
	if (why)
		die("%s: compressed snapshot (%s): %s", path,
		    snapz_method_name(h.method), why);
	snap_free(img);
	*img = out;
}
