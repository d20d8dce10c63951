// SPDX-License-Identifier: GPL-2.0
/* KUnit: snapshot round trip and rejection of every kind of damage. */
#include "bloom_test.h"

struct snap {
	struct bloom_snap_hdr *hdr;
	u64 len;
};

/* Serialises @f the way bloomctl writes a file. */
static struct snap snap_of(struct kunit *test, const struct bt_filter *f)
{
	u64 payload = bloom_array_bytes(&f->c);
	bloom_hash_state st;
	struct snap s;

	s.len = sizeof(*s.hdr) + payload;
	s.hdr = bt_alloc(test, s.len);
	KUNIT_ASSERT_NOT_NULL(test, s.hdr);
	bloom_snap_make_hdr(&f->c, f->b, s.hdr);
	bloom_words_to_le(f->b->words, (__le64 *)(s.hdr + 1), f->c.nwords);
	bloom_snap_csum_begin(&st, s.hdr);
	bloom_hash_update(&st, s.hdr + 1, payload);
	s.hdr->checksum = bloom_cpu_to_le64(bloom_hash_final(&st));
	return s;
}

/* Parses @s fully, as restore does; returns 0 or the first error. */
static int snap_load(struct kunit *test, const struct snap *s,
		     struct bt_filter **out)
{
	struct bloom_snap_info info;
	bloom_hash_state st;
	int err;

	err = bloom_snap_check_hdr(s->hdr, s->len, &info);
	if (err)
		return err;
	bloom_snap_csum_begin(&st, s->hdr);
	bloom_hash_update(&st, s->hdr + 1, info.payload_len);
	if (bloom_hash_final(&st) != info.checksum)
		return -EBADMSG;
	*out = bt_filter_new(test, &info.geom);
	bloom_words_from_le((*out)->b->words, (const __le64 *)(s->hdr + 1),
			    (*out)->c.nwords);
	err = bloom_bits_check_tail(&(*out)->c, (*out)->b);
	if (err) {
		*out = NULL;
		return err;
	}
	bloom_word_set(&(*out)->b->inserted, info.inserted);
	return 0;
}

static struct bt_filter *sample(struct kunit *test)
{
	struct bloom_geom g = { .bits = 8192, .hashes = 5, .seed = 99,
				.layout = BLOOM_LAYOUT_STANDARD,
				.key_type = BLOOM_KEY_NET };
	struct bt_filter *f = bt_filter_new(test, &g);
	u64 i;

	for (i = 0; i < 300; i++)
		bt_add(f, i);
	bloom_note_plen(f->b, 120);
	return f;
}

static void snapshot_round_trip_is_exact(struct kunit *test)
{
	struct bt_filter *f = sample(test), *g = NULL;
	struct snap s = snap_of(test, f);
	struct bloom_snap_info info;
	u64 w;

	KUNIT_ASSERT_EQ(test, snap_load(test, &s, &g), 0);
	KUNIT_EXPECT_EQ(test, bloom_geom_same(&f->c, &g->c), 0);
	for (w = 0; w < f->c.nwords; w++)
		KUNIT_EXPECT_EQ(test, bloom_word_read(&g->b->words[w]),
				bloom_word_read(&f->b->words[w]));
	KUNIT_EXPECT_EQ(test, bloom_word_read(&g->b->inserted), 300ULL);
	KUNIT_ASSERT_EQ(test, bloom_snap_check_hdr(s.hdr, s.len, &info), 0);
	KUNIT_EXPECT_EQ(test, info.plens[1], 1ULL << (120 - 64));
}

enum damage { SHORT, MAGIC, VERSION, HDR_LEN, HASHES, LAYOUT, PLEN,
	      PAYLOAD_LEN, FILE_LONG, PAYLOAD_BIT, HEADER_BIT, RESERVED,
	      CAPACITY };

struct damage_case {
	const char *desc;
	enum damage what;
	int err;
};

static const struct damage_case damage_cases[] = {
	{ "truncated header", SHORT, -ENODATA },
	{ "bad magic", MAGIC, -EPROTO },
	{ "future version", VERSION, -EPROTONOSUPPORT },
	{ "header length", HDR_LEN, -EPROTONOSUPPORT },
	{ "zero hashes", HASHES, -EINVAL },
	{ "unknown layout", LAYOUT, -EINVAL },
	{ "prefix length past 128", PLEN, -EINVAL },
	{ "payload length", PAYLOAD_LEN, -EMSGSIZE },
	{ "trailing bytes", FILE_LONG, -EMSGSIZE },
	{ "flipped payload bit", PAYLOAD_BIT, -EBADMSG },
	{ "flipped seed bit", HEADER_BIT, -EBADMSG },
	{ "reserved field set", RESERVED, -EINVAL },
	{ "zero capacity", CAPACITY, -EINVAL },
};

static void damage_desc(const struct damage_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(damage, damage_cases, damage_desc);

static void snapshot_rejects_damage(struct kunit *test)
{
	const struct damage_case *t = test->param_value;
	struct bt_filter *f = sample(test), *g = NULL;
	struct snap s = snap_of(test, f);
	struct bloom_snap_hdr *h = s.hdr;

	switch (t->what) {
	case SHORT:
		s.len = sizeof(*h) - 1;
		break;
	case MAGIC:
		h->magic ^= bloom_cpu_to_le32(1);
		break;
	case VERSION:
		h->version = bloom_cpu_to_le16(BLOOM_SNAP_VERSION_FUSE + 1);
		break;
	case HDR_LEN:
		h->hdr_len = bloom_cpu_to_le16(sizeof(*h) + 8);
		break;
	case HASHES:
		h->hashes = 0;
		break;
	case LAYOUT:
		h->layout = BLOOM_LAYOUT_MAX;
		break;
	case PLEN:
		h->plens[2] = bloom_cpu_to_le64(2);
		break;
	case PAYLOAD_LEN:
		h->payload_len = bloom_cpu_to_le64(s.len - sizeof(*h) - 8);
		break;
	case FILE_LONG:
		s.len += 8;	/* eight bytes past the payload */
		break;
	case PAYLOAD_BIT:
		((u8 *)(h + 1))[17] ^= 4;
		break;
	case HEADER_BIT:
		h->seed ^= bloom_cpu_to_le64(1ULL << 40);
		break;
	case RESERVED:
		h->reserved[2] = bloom_cpu_to_le64(1);
		break;
	case CAPACITY:
		h->capacity = 0;
		break;
	}
	KUNIT_EXPECT_EQ(test, snap_load(test, &s, &g), t->err);
	KUNIT_EXPECT_TRUE(test, !g);
}

/* A bit past m, which no add sets, with a checksum that verifies. */
static void snapshot_rejects_bits_past_m(struct kunit *test)
{
	const u8 layouts[] = { BLOOM_LAYOUT_STANDARD, BLOOM_LAYOUT_COUNTING };
	struct bt_filter *f, *g = NULL;
	bloom_hash_state st;
	struct snap s;
	unsigned int i;
	__le64 *last;

	for (i = 0; i < ARRAY_SIZE(layouts); i++) {
		struct bloom_geom geom = { .bits = 8190, .hashes = 3,
					   .layout = layouts[i] };

		f = bt_filter_new(test, &geom);
		bt_add(f, 1);
		s = snap_of(test, f);
		KUNIT_EXPECT_EQ(test, snap_load(test, &s, &g), 0);
		last = (__le64 *)(s.hdr + 1) + f->c.nwords - 1;
		*last |= bloom_cpu_to_le64(1ULL << 63);
		bloom_snap_csum_begin(&st, s.hdr);
		bloom_hash_update(&st, s.hdr + 1, bloom_array_bytes(&f->c));
		s.hdr->checksum = bloom_cpu_to_le64(bloom_hash_final(&st));
		g = NULL;
		KUNIT_EXPECT_EQ(test, snap_load(test, &s, &g), -ERANGE);
		KUNIT_EXPECT_TRUE(test, !g);
	}
}

static struct kunit_case snapshot_cases[] = {
	KUNIT_CASE(snapshot_rejects_bits_past_m),
	KUNIT_CASE(snapshot_round_trip_is_exact),
	KUNIT_CASE_PARAM(snapshot_rejects_damage, damage_gen_params),
	{}
};

static struct kunit_suite bloom_snapshot_suite = {
	.name = "bloom_snapshot",
	.test_cases = snapshot_cases,
};

kunit_test_suites(&bloom_snapshot_suite);
