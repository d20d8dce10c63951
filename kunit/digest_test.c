// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: packet digest keys. bloom_digest_build() (both builds): which
 * fields go in, how many payload bytes, short and malformed packets, and
 * that every key it makes passes bloom_key_check(). In the kernel build
 * also bloom_digest_skb() on real skbs: the fields that change on the way
 * (TTL, checksum, TOS, ID, flow label) leave the key as it was.
 */
#include "bloom_test.h"
#ifdef __KERNEL__
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include "../module/bloom.h"
#endif

static const u8 dg_saddr[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 };
static const u8 dg_daddr[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 2 };

/* A UDP datagram from port 4660 to 53: 8 bytes of header, then i & 0xff. */
static u32 dg_udp(u8 *buf, u32 payload)
{
	u32 i;

	buf[0] = 0x12;
	buf[1] = 0x34;
	buf[2] = 0;
	buf[3] = 53;
	buf[4] = (u8)((payload + 8) >> 8);
	buf[5] = (u8)(payload + 8);
	buf[6] = 0xab;	/* checksum: not part of the key */
	buf[7] = 0xcd;
	for (i = 0; i < payload; i++)
		buf[8 + i] = (u8)i;
	return payload + 8;
}

static struct bloom_digest_pkt dg_pkt(const u8 *l4, u32 len, u8 proto)
{
	struct bloom_digest_pkt p = {
		.saddr = dg_saddr, .daddr = dg_daddr, .l4 = l4,
		.l4_len = len, .proto = proto,
	};

	return p;
}

static void dg_expect_valid(struct kunit *test,
			    const struct bloom_key_digest *k)
{
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, k, sizeof(*k)),
			0);
}

static void digest_build_takes_invariant_udp_fields(struct kunit *test)
{
	u8 buf[BLOOM_DIGEST_READ_MAX];
	struct bloom_digest_pkt p = dg_pkt(buf, dg_udp(buf, 100), IPPROTO_UDP);
	struct bloom_key_digest k;
	u32 i;

	KUNIT_ASSERT_EQ(test, bloom_digest_build(&k, &p, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(k.saddr, dg_saddr, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(k.daddr, dg_daddr, 16), 0);
	KUNIT_EXPECT_EQ(test, k.proto, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, ntohs(k.sport), 0x1234);
	KUNIT_EXPECT_EQ(test, ntohs(k.dport), 53);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(k.seq), 0U);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(k.len), 100U);
	KUNIT_EXPECT_EQ(test, k.nbytes, 16);
	KUNIT_EXPECT_EQ(test, k.flags, 0);
	for (i = 0; i < BLOOM_DIGEST_BYTES_MAX; i++)
		KUNIT_EXPECT_EQ(test, k.payload[i], i < 16 ? (u8)i : 0);
	dg_expect_valid(test, &k);
}

/* The UDP checksum (and length field) are not read: only the payload. */
static void digest_build_ignores_transport_checksum(struct kunit *test)
{
	u8 a[BLOOM_DIGEST_READ_MAX], b[BLOOM_DIGEST_READ_MAX];
	struct bloom_key_digest *ka = bt_alloc(test, sizeof(*ka));
	struct bloom_key_digest *kb = bt_alloc(test, sizeof(*kb));
	struct bloom_digest_pkt pa = dg_pkt(a, dg_udp(a, 40), IPPROTO_UDP);
	struct bloom_digest_pkt pb = dg_pkt(b, dg_udp(b, 40), IPPROTO_UDP);

	KUNIT_ASSERT_TRUE(test, ka && kb);
	b[6] ^= 0xff;
	b[7] ^= 0x11;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(ka, &pa, 32), 0);
	KUNIT_ASSERT_EQ(test, bloom_digest_build(kb, &pb, 32), 0);
	KUNIT_EXPECT_EQ(test, memcmp(ka, kb, sizeof(*ka)), 0);
}

/* A byte inside the first N changes the key; one past them does not. */
static void digest_build_sees_only_first_n_bytes(struct kunit *test)
{
	u8 a[BLOOM_DIGEST_READ_MAX], b[BLOOM_DIGEST_READ_MAX];
	struct bloom_key_digest *ka = bt_alloc(test, sizeof(*ka));
	struct bloom_key_digest *kb = bt_alloc(test, sizeof(*kb));
	struct bloom_digest_pkt pa = dg_pkt(a, dg_udp(a, 100), IPPROTO_UDP);
	struct bloom_digest_pkt pb = dg_pkt(b, dg_udp(b, 100), IPPROTO_UDP);

	KUNIT_ASSERT_TRUE(test, ka && kb);
	KUNIT_ASSERT_EQ(test, bloom_digest_build(ka, &pa, 24), 0);
	b[8 + 23] ^= 1;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(kb, &pb, 24), 0);
	KUNIT_EXPECT_NE(test, memcmp(ka, kb, sizeof(*ka)), 0);
	b[8 + 23] ^= 1;
	b[8 + 24] ^= 1;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(kb, &pb, 24), 0);
	KUNIT_EXPECT_EQ(test, memcmp(ka, kb, sizeof(*ka)), 0);
}

/* N from 0 to the maximum is taken; one more is refused. */
static void digest_build_bounds_n(struct kunit *test)
{
	u8 buf[BLOOM_DIGEST_READ_MAX];
	struct bloom_digest_pkt p = dg_pkt(buf, dg_udp(buf, 100), IPPROTO_UDP);
	struct bloom_key_digest k;

	KUNIT_EXPECT_EQ(test, bloom_digest_build(&k, &p, 0), 0);
	KUNIT_EXPECT_EQ(test, k.nbytes, 0);
	dg_expect_valid(test, &k);
	KUNIT_EXPECT_EQ(test, bloom_digest_build(&k, &p,
						 BLOOM_DIGEST_BYTES_MAX), 0);
	KUNIT_EXPECT_EQ(test, k.nbytes, BLOOM_DIGEST_BYTES_MAX);
	KUNIT_EXPECT_EQ(test, k.payload[BLOOM_DIGEST_BYTES_MAX - 1],
			BLOOM_DIGEST_BYTES_MAX - 1);
	dg_expect_valid(test, &k);
	KUNIT_EXPECT_EQ(test, bloom_digest_build(&k, &p,
						 BLOOM_DIGEST_BYTES_MAX + 1),
			-EINVAL);
}

/* A short payload gives what it has, and says how much that was. */
static void digest_build_short_payload(struct kunit *test)
{
	u8 buf[BLOOM_DIGEST_READ_MAX];
	struct bloom_digest_pkt p = dg_pkt(buf, dg_udp(buf, 5), IPPROTO_UDP);
	struct bloom_key_digest k, k0;
	struct bloom_digest_pkt p0 = dg_pkt(buf, 8, IPPROTO_UDP);

	KUNIT_ASSERT_EQ(test, bloom_digest_build(&k, &p, 64), 0);
	KUNIT_EXPECT_EQ(test, k.nbytes, 5);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(k.len), 5U);
	KUNIT_EXPECT_EQ(test, k.payload[4], 4);
	KUNIT_EXPECT_EQ(test, k.payload[5], 0);
	dg_expect_valid(test, &k);
	/* No payload at all differs from a payload of zeroes. */
	KUNIT_ASSERT_EQ(test, bloom_digest_build(&k0, &p0, 64), 0);
	KUNIT_EXPECT_EQ(test, k0.nbytes, 0);
	KUNIT_EXPECT_NE(test, memcmp(&k, &k0, sizeof(k)), 0);
	dg_expect_valid(test, &k0);
}

static void digest_build_refuses_cut_transport_header(struct kunit *test)
{
	u8 buf[BLOOM_DIGEST_READ_MAX] = {};
	struct bloom_key_digest k;
	struct bloom_digest_pkt p = dg_pkt(buf, 7, IPPROTO_UDP);

	KUNIT_EXPECT_EQ(test, bloom_digest_build(&k, &p, 8), -EBADMSG);
	p = dg_pkt(buf, 11, IPPROTO_SCTP);
	KUNIT_EXPECT_EQ(test, bloom_digest_build(&k, &p, 8), -EBADMSG);
	p = dg_pkt(buf, 19, IPPROTO_TCP);
	KUNIT_EXPECT_EQ(test, bloom_digest_build(&k, &p, 8), -EBADMSG);
	/* A TCP data offset under 5 words, or past the packet's end. */
	buf[12] = 4 << 4;
	p = dg_pkt(buf, 40, IPPROTO_TCP);
	KUNIT_EXPECT_EQ(test, bloom_digest_build(&k, &p, 8), -EBADMSG);
	buf[12] = 11 << 4;
	KUNIT_EXPECT_EQ(test, bloom_digest_build(&k, &p, 8), -EBADMSG);
}

/* TCP: the sequence number is in, the payload starts after the options. */
static void digest_build_tcp_skips_options(struct kunit *test)
{
	u8 buf[BLOOM_DIGEST_READ_MAX] = { 0, 80, 0x1f, 0x90, 1, 2, 3, 4 };
	struct bloom_digest_pkt p = dg_pkt(buf, 32 + 10, IPPROTO_TCP);
	struct bloom_key_digest k;

	buf[12] = 8 << 4;	/* 32 bytes of header */
	buf[32] = 0x77;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(&k, &p, 64), 0);
	KUNIT_EXPECT_EQ(test, ntohs(k.sport), 80);
	KUNIT_EXPECT_EQ(test, ntohs(k.dport), 8080);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(k.seq), 0x01020304U);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(k.len), 10U);
	KUNIT_EXPECT_EQ(test, k.nbytes, 10);
	KUNIT_EXPECT_EQ(test, k.payload[0], 0x77);
	dg_expect_valid(test, &k);
}

/*
 * A TCP segment from port 80 to 8080: sequence 0x01020304, @ack,
 * @flags, @win, @opt (a multiple of 4 bytes) and @payload bytes of 0x5a.
 */
static u32 dg_tcp(u8 *buf, u32 ack, u8 flags, u16 win, const u8 *opt,
		  u32 optlen, u32 payload)
{
	u32 hlen = 20 + optlen;

	memset(buf, 0, BLOOM_DIGEST_READ_MAX);
	buf[1] = 80;
	buf[2] = 0x1f;
	buf[3] = 0x90;
	buf[4] = 1;
	buf[5] = 2;
	buf[6] = 3;
	buf[7] = 4;
	buf[8] = (u8)(ack >> 24);
	buf[9] = (u8)(ack >> 16);
	buf[10] = (u8)(ack >> 8);
	buf[11] = (u8)ack;
	buf[12] = (u8)(hlen / 4) << 4;
	buf[13] = flags;
	buf[14] = (u8)(win >> 8);
	buf[15] = (u8)win;
	buf[16] = 0xab;	/* checksum: not part of the key */
	buf[17] = 0xcd;
	if (optlen)
		memcpy(buf + 20, opt, optlen);
	memset(buf + hlen, 0x5a, min(payload, BLOOM_DIGEST_READ_MAX - hlen));
	return hlen + payload;
}

#define DG_TCP_ACK	0x10
#define DG_TCP_FIN	0x01
#define DG_TCP_PSH	0x08

/* NOP, NOP, timestamps 1000/2000; a SACK block of @left..@right. */
static void dg_tcp_opts(u8 *opt, u32 left, u32 right)
{
	static const u8 ts[12] = { 1, 1, 8, 10, 0, 0, 3, 0xe8, 0, 0, 7, 0xd0 };
	const u8 sack[12] = {
		1, 1, 5, 10,
		(u8)(left >> 24), (u8)(left >> 16), (u8)(left >> 8), (u8)left,
		(u8)(right >> 24), (u8)(right >> 16), (u8)(right >> 8),
		(u8)right,
	};

	memcpy(opt, ts, sizeof(ts));
	memcpy(opt + 12, sack, sizeof(sack));
}

/*
 * Segments that are not copies of one another, though they share the
 * sequence number and the payload length: a pure ACK, a data segment,
 * an ACK of more data, a window update, duplicate ACKs with other SACK
 * blocks, a FIN. Dedup drops a packet whose key it has seen, so each
 * must have its own key, or a transfer through it stalls.
 */
static void digest_build_tcp_segments_differ(struct kunit *test)
{
	enum { N = 7 };
	static const struct {
		u32 ack;
		u8 flags;
		u16 win;
		int opt;	/* -1: none; else SACK block 5000..6000 + 1000 * opt */
		u32 payload;
	} seg[N] = {
		{ 1000, DG_TCP_ACK, 500, -1, 0 },		/* pure ACK */
		{ 1000, DG_TCP_ACK | DG_TCP_PSH, 500, -1, 10 },	/* data */
		{ 2448, DG_TCP_ACK, 500, -1, 0 },		/* next ACK */
		{ 2448, DG_TCP_ACK, 501, -1, 0 },	/* window update */
		{ 2448, DG_TCP_ACK, 501, 0, 0 },	/* dup ACK, SACK */
		{ 2448, DG_TCP_ACK, 501, 1, 0 },	/* more SACKed */
		{ 2448, DG_TCP_ACK | DG_TCP_FIN, 501, -1, 0 },	/* FIN */
	};
	struct bloom_key_digest *k = bt_alloc(test, N * sizeof(*k));
	u8 buf[BLOOM_DIGEST_READ_MAX], opt[24];
	struct bloom_digest_pkt p;
	int i, j;

	KUNIT_ASSERT_NOT_NULL(test, k);
	for (i = 0; i < N; i++) {
		if (seg[i].opt >= 0)
			dg_tcp_opts(opt, 5000, 6000 + 1000 * seg[i].opt);
		p = dg_pkt(buf, dg_tcp(buf, seg[i].ack, seg[i].flags,
				       seg[i].win, opt,
				       seg[i].opt >= 0 ? 24 : 0,
				       seg[i].payload), IPPROTO_TCP);
		KUNIT_ASSERT_EQ(test, bloom_digest_build(&k[i], &p, 64), 0);
		dg_expect_valid(test, &k[i]);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_TRUE_MSG(test,
					      memcmp(&k[i], &k[j], sizeof(k[i])),
					      "segments %d and %d", j, i);
	}
}

/* A copy of a segment, even with another checksum, has the same key. */
static void digest_build_tcp_copy_same_key(struct kunit *test)
{
	u8 a[BLOOM_DIGEST_READ_MAX], b[BLOOM_DIGEST_READ_MAX], opt[24];
	struct bloom_key_digest *ka = bt_alloc(test, sizeof(*ka));
	struct bloom_key_digest *kb = bt_alloc(test, sizeof(*kb));
	struct bloom_digest_pkt pa, pb;

	KUNIT_ASSERT_TRUE(test, ka && kb);
	dg_tcp_opts(opt, 5000, 6000);
	pa = dg_pkt(a, dg_tcp(a, 2448, DG_TCP_ACK, 501, opt, 24, 30),
		    IPPROTO_TCP);
	pb = dg_pkt(b, dg_tcp(b, 2448, DG_TCP_ACK, 501, opt, 24, 30),
		    IPPROTO_TCP);
	KUNIT_ASSERT_EQ(test, bloom_digest_build(ka, &pa, 64), 0);
	KUNIT_ASSERT_EQ(test, bloom_digest_build(kb, &pb, 64), 0);
	KUNIT_EXPECT_EQ(test, memcmp(ka, kb, sizeof(*ka)), 0);
	b[16] ^= 0xff;
	b[17] ^= 0x11;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(kb, &pb, 64), 0);
	KUNIT_EXPECT_EQ(test, memcmp(ka, kb, sizeof(*ka)), 0);
	dg_expect_valid(test, ka);
}

/* The TCP header from byte 8, checksum zero, options in; then the data. */
static void digest_build_tcp_header_fields(struct kunit *test)
{
	u8 buf[BLOOM_DIGEST_READ_MAX], opt[40];
	struct bloom_digest_pkt p;
	struct bloom_key_digest k, bad;
	const size_t n = sizeof(k);
	u32 i;

	for (i = 0; i < sizeof(opt); i++)
		opt[i] = 1;	/* NOP: the longest header, 60 bytes */
	p = dg_pkt(buf, dg_tcp(buf, 0x0a0b0c0d, DG_TCP_ACK, 0x1234, opt, 40,
			       5), IPPROTO_TCP);
	KUNIT_ASSERT_EQ(test, bloom_digest_build(&k, &p, 64), 0);
	KUNIT_EXPECT_EQ(test, k.tcp_len, BLOOM_DIGEST_TCP_MAX);
	KUNIT_EXPECT_EQ(test, memcmp(k.tcp, buf + 8, 8), 0);
	KUNIT_EXPECT_EQ(test, k.tcp[8], 0);	/* the checksum */
	KUNIT_EXPECT_EQ(test, k.tcp[9], 0);
	KUNIT_EXPECT_EQ(test, memcmp(k.tcp + 10, buf + 18, 42), 0);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(k.len), 5U);
	KUNIT_EXPECT_EQ(test, k.payload[4], 0x5a);
	dg_expect_valid(test, &k);
	/* The shortest header: 12 bytes, the rest zero. */
	p = dg_pkt(buf, dg_tcp(buf, 1, DG_TCP_ACK, 1, NULL, 0, 0), IPPROTO_TCP);
	KUNIT_ASSERT_EQ(test, bloom_digest_build(&k, &p, 64), 0);
	KUNIT_EXPECT_EQ(test, k.tcp_len, 12);
	dg_expect_valid(test, &k);
	/* Each second encoding is refused. */
	bad = k;
	bad.tcp_len = 16;	/* not the data offset's */
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &bad, n),
			-EINVAL);
	bad = k;
	bad.tcp[9] = 1;		/* a checksum */
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &bad, n),
			-EINVAL);
	bad = k;
	bad.tcp[12] = 1;	/* past tcp_len */
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &bad, n),
			-EINVAL);
	bad = k;
	bad.tcp_len = 0;	/* TCP shows its header */
	memset(bad.tcp, 0, sizeof(bad.tcp));
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &bad, n),
			-EINVAL);
	/* The retired type: no size, no filter. */
	KUNIT_EXPECT_EQ(test, bloom_key_size(BLOOM_KEY_DIGEST_V1), (size_t)0);
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST_V1, &k, 112),
			-EINVAL);
	KUNIT_EXPECT_TRUE(test, bloom_key_type_retired(BLOOM_KEY_DIGEST_V1));
	KUNIT_EXPECT_FALSE(test, bloom_key_type_retired(BLOOM_KEY_DIGEST));
	KUNIT_EXPECT_EQ(test, strcmp(bloom_key_type_name(BLOOM_KEY_DIGEST_V1),
				     "digest-v1"), 0);
	KUNIT_EXPECT_EQ(test, strcmp(bloom_key_type_name(BLOOM_KEY_DIGEST),
				     "digest"), 0);
}

/* Other protocols: no ports, the payload is the transport header on. */
static void digest_build_other_protocol_from_header(struct kunit *test)
{
	u8 buf[BLOOM_DIGEST_READ_MAX] = { 8, 0, 0xf7, 0xff, 0, 1, 0, 1 };
	struct bloom_digest_pkt p = dg_pkt(buf, 8, IPPROTO_ICMP);
	struct bloom_key_digest k;

	KUNIT_ASSERT_EQ(test, bloom_digest_build(&k, &p, 64), 0);
	KUNIT_EXPECT_TRUE(test, !k.sport && !k.dport);
	KUNIT_EXPECT_EQ(test, k.nbytes, 8);
	KUNIT_EXPECT_EQ(test, memcmp(k.payload, buf, 8), 0);
	dg_expect_valid(test, &k);
}

/* A later fragment: no ports even for UDP, its data from byte 0. */
static void digest_build_later_fragment(struct kunit *test)
{
	u8 buf[BLOOM_DIGEST_READ_MAX];
	struct bloom_digest_pkt p = dg_pkt(buf, dg_udp(buf, 20), IPPROTO_UDP);
	struct bloom_key_digest k;

	p.fragment = true;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(&k, &p, 64), 0);
	KUNIT_EXPECT_EQ(test, k.flags, BLOOM_DIGEST_F_FRAGMENT);
	KUNIT_EXPECT_TRUE(test, !k.sport && !k.dport);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(k.len), 28U);
	KUNIT_EXPECT_EQ(test, k.nbytes, 28);
	KUNIT_EXPECT_EQ(test, memcmp(k.payload, buf, 28), 0);
	dg_expect_valid(test, &k);
	/* Even 3 bytes are a later fragment's whole (legal) data. */
	p.l4_len = 3;
	KUNIT_EXPECT_EQ(test, bloom_digest_build(&k, &p, 64), 0);
}

/*
 * The middle fragments of one datagram often have the same length and
 * the same first bytes: their offset and the datagram's identification
 * keep them apart.
 */
static void digest_build_fragments_differ(struct kunit *test)
{
	u8 buf[BLOOM_DIGEST_READ_MAX] = {};
	static const u8 v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	struct bloom_digest_pkt p = dg_pkt(buf, 40, IPPROTO_UDP);
	struct bloom_key_digest a, b;

	p.saddr = v6;	/* IPv6: a 32-bit identification */
	p.ipv6 = true;
	p.fragment = true;
	p.frag_id = 0x12345678;
	p.frag_off = 1480;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(&a, &p, 64), 0);
	KUNIT_EXPECT_EQ(test, a.flags,
			BLOOM_DIGEST_F_FRAGMENT | BLOOM_DIGEST_F_FRAG6);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(a.seq), 1480U);
	KUNIT_EXPECT_EQ(test, bloom_be16_to_cpu(a.sport), 0x1234);
	KUNIT_EXPECT_EQ(test, bloom_be16_to_cpu(a.dport), 0x5678);
	dg_expect_valid(test, &a);
	p.frag_off = 2960;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(&b, &p, 64), 0);
	KUNIT_EXPECT_NE(test, memcmp(&a, &b, sizeof(a)), 0);
	p.frag_off = 1480;
	p.frag_id = 0x12345679;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(&b, &p, 64), 0);
	KUNIT_EXPECT_NE(test, memcmp(&a, &b, sizeof(a)), 0);
	p.frag_id = 0x12345678;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(&b, &p, 64), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&a, &b, sizeof(a)), 0);
}

/*
 * IPv6 datagrams may come from v4-mapped addresses (the kernel accepts
 * them): their 32-bit identification still makes a valid key, or dedup
 * could never add them, and it is never an IPv4 datagram's key.
 */
static void digest_build_v4_mapped_ipv6_fragment(struct kunit *test)
{
	u8 buf[BLOOM_DIGEST_READ_MAX] = {};
	struct bloom_digest_pkt p = dg_pkt(buf, 40, IPPROTO_UDP);
	struct bloom_key_digest v4, v6;

	p.fragment = true;
	p.frag_id = 0x1234;
	p.frag_off = 1480;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(&v4, &p, 64), 0);
	dg_expect_valid(test, &v4);
	p.ipv6 = true;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(&v6, &p, 64), 0);
	dg_expect_valid(test, &v6);
	KUNIT_EXPECT_NE(test, memcmp(&v4, &v6, sizeof(v4)), 0);
	p.frag_id = 0x89abcdef;
	KUNIT_ASSERT_EQ(test, bloom_digest_build(&v6, &p, 64), 0);
	KUNIT_EXPECT_EQ(test, bloom_be16_to_cpu(v6.sport), 0x89ab);
	dg_expect_valid(test, &v6);
}

/* bloom_key_check() refuses every second encoding of a digest. */
static void digest_key_check_refuses_noncanonical(struct kunit *test)
{
	u8 buf[BLOOM_DIGEST_READ_MAX];
	struct bloom_digest_pkt p = dg_pkt(buf, dg_udp(buf, 30), IPPROTO_UDP);
	struct bloom_key_digest good, k;
	const size_t n = sizeof(k);

	KUNIT_ASSERT_EQ(test, bloom_digest_build(&good, &p, 20), 0);
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &good, n - 1),
			-EINVAL);
	k = good;
	k.pad[3] = 1;
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
	k = good;
	k.tcp_len = 12;		/* UDP shows no TCP header */
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
	k = good;
	k.tcp[0] = 1;
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
	k = good;
	k.flags = 4;
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
	k.flags = BLOOM_DIGEST_F_FRAG6;		/* only with F_FRAGMENT */
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
	k = good;
	k.payload[20] = 1;	/* past nbytes */
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
	k = good;
	k.nbytes = BLOOM_DIGEST_BYTES_MAX + 1;
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
	k = good;
	k.len = bloom_cpu_to_be32(19);	/* fewer than nbytes */
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
	k = good;
	k.flags = BLOOM_DIGEST_F_FRAGMENT;	/* IPv4: a 32-bit id */
	k.seq = bloom_cpu_to_be32(1480);
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
	k.flags |= BLOOM_DIGEST_F_FRAG6;	/* IPv6, v4-mapped: fine */
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), 0);
	k.flags = BLOOM_DIGEST_F_FRAGMENT;
	k.sport = 0;
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), 0);
	k.saddr[10] = 0;	/* IPv4 keys are v4-mapped: this is IPv6's */
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
	k.saddr[10] = 0xff;
	k.seq = bloom_cpu_to_be32(1481);	/* not a multiple of 8 */
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
	k = good;
	k.seq = bloom_cpu_to_be32(1);	/* UDP has none */
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
	k = good;
	k.proto = IPPROTO_ICMP;		/* nor do ICMP ports */
	KUNIT_EXPECT_EQ(test, bloom_key_check(BLOOM_KEY_DIGEST, &k, n), -EINVAL);
}

#ifdef __KERNEL__
/* An skb holding an IPv4 UDP datagram with @payload bytes (0, 1, 2...). */
static struct sk_buff *dg_skb4(struct kunit *test, u32 payload)
{
	struct sk_buff *skb = alloc_skb(256, GFP_KERNEL);
	struct iphdr *iph;
	u8 *l4;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reset_network_header(skb);
	iph = skb_put_zero(skb, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->tot_len = htons(sizeof(*iph) + 8 + payload);
	memcpy(&iph->saddr, dg_saddr + 12, 4);
	memcpy(&iph->daddr, dg_daddr + 12, 4);
	l4 = skb_put(skb, 8 + payload);
	dg_udp(l4, payload);
	return skb;
}

static void dg_skb_key(struct kunit *test, struct sk_buff *skb,
		       struct bloom_key_digest *k)
{
	KUNIT_EXPECT_EQ(test, bloom_digest_skb(skb, 32, k), 0);
	kfree_skb(skb);
}

/* TTL, checksum, TOS/ECN, ID and DF change; the key does not. */
static void digest_skb_ignores_mutable_ipv4_fields(struct kunit *test)
{
	struct bloom_key_digest want, k;
	struct sk_buff *skb;
	struct iphdr *iph;
	u8 udp[8 + 40];

	dg_skb_key(test, dg_skb4(test, 40), &want);
	dg_udp(udp, 40);
	KUNIT_EXPECT_EQ(test, memcmp(want.saddr, dg_saddr, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(want.payload, udp + 8, 32), 0);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(want.len), 40U);
	skb = dg_skb4(test, 40);
	iph = ip_hdr(skb);
	iph->ttl = 3;
	iph->check = (__force __sum16)htons(0x1234);
	iph->tos = 0xb9;
	iph->id = htons(777);
	iph->frag_off = htons(IP_DF);
	dg_skb_key(test, skb, &k);
	KUNIT_EXPECT_EQ(test, memcmp(&want, &k, sizeof(k)), 0);
	/* One payload byte inside N does change it. */
	skb = dg_skb4(test, 40);
	skb->data[sizeof(*iph) + 8 + 31] ^= 0x80;
	dg_skb_key(test, skb, &k);
	KUNIT_EXPECT_NE(test, memcmp(&want, &k, sizeof(k)), 0);
}

/* Bytes past the IP length (padding of a short frame) are not payload. */
static void digest_skb_reads_only_ip_length(struct kunit *test)
{
	struct sk_buff *skb = dg_skb4(test, 10);
	struct bloom_key_digest k;

	skb_put_zero(skb, 30);
	dg_skb_key(test, skb, &k);
	KUNIT_EXPECT_EQ(test, k.nbytes, 10);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(k.len), 10U);
}

static void digest_skb_refuses_truncated(struct kunit *test)
{
	struct sk_buff *skb = dg_skb4(test, 10);
	struct bloom_key_digest k;

	/* The header claims 10 more bytes than the packet holds. */
	skb_trim(skb, skb->len - 10);
	KUNIT_EXPECT_EQ(test, bloom_digest_skb(skb, 32, &k), -EBADMSG);
	kfree_skb(skb);
	skb = dg_skb4(test, 0);
	ip_hdr(skb)->tot_len = htons(sizeof(struct iphdr) + 4);
	KUNIT_EXPECT_EQ(test, bloom_digest_skb(skb, 32, &k), -EBADMSG);
	kfree_skb(skb);
}

/* An IPv4 TCP segment: dg_tcp() with a 20-byte header, 40 bytes of data. */
static struct sk_buff *dg_skb4_tcp(struct kunit *test)
{
	struct sk_buff *skb = alloc_skb(256, GFP_KERNEL);
	u8 tcp[BLOOM_DIGEST_READ_MAX];
	struct iphdr *iph;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reset_network_header(skb);
	iph = skb_put_zero(skb, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 64;
	iph->protocol = IPPROTO_TCP;
	len = dg_tcp(tcp, 1000, DG_TCP_ACK | DG_TCP_PSH, 500, NULL, 0, 40);
	iph->tot_len = htons(sizeof(*iph) + len);
	memcpy(&iph->saddr, dg_saddr + 12, 4);
	memcpy(&iph->daddr, dg_daddr + 12, 4);
	skb_put_data(skb, tcp, len);
	return skb;
}

/* A TCP copy with another TTL, ID and checksums: the same key. */
static void digest_skb_tcp_copy_same_key(struct kunit *test)
{
	struct bloom_key_digest want, k;
	struct sk_buff *skb;
	struct iphdr *iph;

	dg_skb_key(test, dg_skb4_tcp(test), &want);
	KUNIT_EXPECT_EQ(test, want.proto, IPPROTO_TCP);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(want.len), 40U);
	skb = dg_skb4_tcp(test);
	iph = ip_hdr(skb);
	iph->ttl = 9;
	iph->id = htons(4242);
	iph->check = (__force __sum16)htons(0x5678);
	skb->data[sizeof(*iph) + 16] ^= 0x5a;	/* TCP checksum */
	dg_skb_key(test, skb, &k);
	KUNIT_EXPECT_EQ(test, memcmp(&want, &k, sizeof(k)), 0);
	/* Another window is another segment. */
	skb = dg_skb4_tcp(test);
	skb->data[sizeof(*iph) + 15] ^= 1;
	dg_skb_key(test, skb, &k);
	KUNIT_EXPECT_NE(test, memcmp(&want, &k, sizeof(k)), 0);
}

/*
 * An IPv4 packet over 64 KiB (BIG TCP, a GRO or GSO aggregate) has
 * tot_len 0: its length is the skb's, as iph_totlen() reads it.
 */
static void digest_skb_ipv4_big_tcp(struct kunit *test)
{
	struct bloom_key_digest want, k;
	struct sk_buff *skb;

	dg_skb_key(test, dg_skb4_tcp(test), &want);
	skb = dg_skb4_tcp(test);
	ip_hdr(skb)->tot_len = 0;
	skb_shinfo(skb)->gso_size = 1448;
	skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4;
	KUNIT_EXPECT_EQ(test, bloom_digest_skb(skb, 32, &k), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&want, &k, sizeof(k)), 0);
	skb_shinfo(skb)->gso_size = 0;
	skb_shinfo(skb)->gso_type = 0;
	kfree_skb(skb);
	/* Not an aggregate: a zero length is a broken header. */
	skb = dg_skb4_tcp(test);
	ip_hdr(skb)->tot_len = 0;
	KUNIT_EXPECT_EQ(test, bloom_digest_skb(skb, 32, &k), -EBADMSG);
	kfree_skb(skb);
}

/*
 * IPv6 "No Next Header" (59), right after the fixed header or after an
 * extension header: a valid key of its addresses, length and the bytes
 * after the last header, with protocol 59.
 */
static void digest_skb_ipv6_no_next_header(struct kunit *test)
{
	static const u8 hbh[8] = { NEXTHDR_NONE, 0, 1, 4 };	/* PadN */
	struct bloom_key_digest k, k2;
	struct ipv6hdr *ip6h;
	struct sk_buff *skb;
	int hop;

	for (hop = 0; hop < 2; hop++) {
		skb = alloc_skb(256, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		skb_reset_network_header(skb);
		ip6h = skb_put_zero(skb, sizeof(*ip6h));
		ip6h->version = 6;
		ip6h->nexthdr = hop ? NEXTHDR_HOP : NEXTHDR_NONE;
		ip6h->hop_limit = 64;
		ip6h->payload_len = htons(hop * 8 + 12);
		ip6h->saddr.s6_addr[0] = 0x20;
		ip6h->daddr.s6_addr[15] = 2;
		if (hop)
			skb_put_data(skb, hbh, sizeof(hbh));
		memset(skb_put(skb, 12), 0x33, 12);
		dg_skb_key(test, skb, hop ? &k2 : &k);
	}
	KUNIT_EXPECT_EQ(test, k.proto, NEXTHDR_NONE);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(k.len), 12U);
	KUNIT_EXPECT_EQ(test, k.nbytes, 12);
	KUNIT_EXPECT_EQ(test, k.payload[11], 0x33);
	dg_expect_valid(test, &k);
	KUNIT_EXPECT_EQ(test, memcmp(&k, &k2, sizeof(k)), 0);
}

/* IPv6: hop limit, traffic class and flow label are not in the key. */
static struct sk_buff *dg_skb6(struct kunit *test, bool frag_later)
{
	struct sk_buff *skb = alloc_skb(256, GFP_KERNEL);
	struct ipv6hdr *ip6h;
	struct frag_hdr *fh;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reset_network_header(skb);
	ip6h = skb_put_zero(skb, sizeof(*ip6h));
	ip6h->version = 6;
	ip6h->nexthdr = NEXTHDR_FRAGMENT;
	ip6h->hop_limit = 64;
	ip6h->payload_len = htons(sizeof(*fh) + 8 + 20);
	ip6h->saddr.s6_addr[0] = 0x20;
	ip6h->daddr.s6_addr[15] = 2;
	fh = skb_put_zero(skb, sizeof(*fh));
	fh->nexthdr = IPPROTO_UDP;
	fh->frag_off = htons(frag_later ? 8 << 3 : IP6_MF);
	dg_udp(skb_put(skb, 8 + 20), 20);
	return skb;
}

static void digest_skb_ipv6_fragments(struct kunit *test)
{
	struct bloom_key_digest first, k;
	struct sk_buff *skb;

	dg_skb_key(test, dg_skb6(test, false), &first);
	KUNIT_EXPECT_EQ(test, first.proto, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, ntohs(first.dport), 53);
	KUNIT_EXPECT_EQ(test, first.flags, 0);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(first.len), 20U);
	skb = dg_skb6(test, false);
	ipv6_hdr(skb)->hop_limit = 1;
	ipv6_hdr(skb)->priority = 0xf;
	ipv6_hdr(skb)->flow_lbl[2] = 0x42;
	dg_skb_key(test, skb, &k);
	KUNIT_EXPECT_EQ(test, memcmp(&first, &k, sizeof(k)), 0);
	/* The same bytes as a later fragment: data from its first byte. */
	dg_skb_key(test, dg_skb6(test, true), &k);
	KUNIT_EXPECT_EQ(test, k.proto, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, k.flags,
			BLOOM_DIGEST_F_FRAGMENT | BLOOM_DIGEST_F_FRAG6);
	KUNIT_EXPECT_TRUE(test, !k.sport && !k.dport);
	KUNIT_EXPECT_EQ(test, bloom_be32_to_cpu(k.len), 28U);
	KUNIT_EXPECT_EQ(test, k.payload[0], 0x12);
	dg_expect_valid(test, &k);
	/* From a v4-mapped address, with a 32-bit identification. */
	skb = dg_skb6(test, true);
	memcpy(&ipv6_hdr(skb)->saddr, dg_saddr, 16);
	((struct frag_hdr *)(ipv6_hdr(skb) + 1))->identification =
		htonl(0x89abcdef);
	dg_skb_key(test, skb, &k);
	KUNIT_EXPECT_EQ(test, k.flags,
			BLOOM_DIGEST_F_FRAGMENT | BLOOM_DIGEST_F_FRAG6);
	KUNIT_EXPECT_EQ(test, ntohs(k.sport), 0x89ab);
	dg_expect_valid(test, &k);
}
#endif

static struct kunit_case digest_cases[] = {
	KUNIT_CASE(digest_build_takes_invariant_udp_fields),
	KUNIT_CASE(digest_build_ignores_transport_checksum),
	KUNIT_CASE(digest_build_sees_only_first_n_bytes),
	KUNIT_CASE(digest_build_bounds_n),
	KUNIT_CASE(digest_build_short_payload),
	KUNIT_CASE(digest_build_refuses_cut_transport_header),
	KUNIT_CASE(digest_build_tcp_skips_options),
	KUNIT_CASE(digest_build_tcp_segments_differ),
	KUNIT_CASE(digest_build_tcp_copy_same_key),
	KUNIT_CASE(digest_build_tcp_header_fields),
	KUNIT_CASE(digest_build_other_protocol_from_header),
	KUNIT_CASE(digest_build_later_fragment),
	KUNIT_CASE(digest_build_fragments_differ),
	KUNIT_CASE(digest_build_v4_mapped_ipv6_fragment),
	KUNIT_CASE(digest_key_check_refuses_noncanonical),
#ifdef __KERNEL__
	KUNIT_CASE(digest_skb_ignores_mutable_ipv4_fields),
	KUNIT_CASE(digest_skb_reads_only_ip_length),
	KUNIT_CASE(digest_skb_refuses_truncated),
	KUNIT_CASE(digest_skb_ipv6_fragments),
	KUNIT_CASE(digest_skb_tcp_copy_same_key),
	KUNIT_CASE(digest_skb_ipv4_big_tcp),
	KUNIT_CASE(digest_skb_ipv6_no_next_header),
#endif
	{}
};

static struct kunit_suite bloom_digest_suite = {
	.name = "bloom_digest",
	.test_cases = digest_cases,
};

kunit_test_suites(&bloom_digest_suite);
