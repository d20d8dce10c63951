/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Bloom filters in the kernel: the ABI shared by bloom.ko, xt_bloom.ko,
 * bloomctl and libxt_bloom. Everything here is frozen once released:
 * new features get new values, new commands and new structs.
 */
#ifndef _UAPI_BLOOM_H
#define _UAPI_BLOOM_H

#include <linux/types.h>

#define BLOOM_NAME_MAX		32	/* including the NUL */
#define BLOOM_KEY_BYTES_MAX	128	/* longest opaque key */

/* How bits are laid out and probed. */
enum bloom_layout {
	BLOOM_LAYOUT_BLOCKED	 = 0,	/* k bits in one 512-bit block */
	BLOOM_LAYOUT_STANDARD	 = 1,	/* k probes over the whole array */
	BLOOM_LAYOUT_PARTITIONED = 2,	/* one probe in each of k slices */
	BLOOM_LAYOUT_COUNTING	 = 3,	/* 4-bit saturating counters */
	BLOOM_LAYOUT_CUCKOO	 = 4,	/* fingerprints in buckets: deletes */
	BLOOM_LAYOUT_FUSE	 = 5,	/* static: built once, values */
	BLOOM_LAYOUT_MAX
};

/* What a key is; fixes its encoding (see the structs below). */
enum bloom_key_type {
	BLOOM_KEY_BYTES		= 0,	/* opaque, 1..BLOOM_KEY_BYTES_MAX bytes */
	BLOOM_KEY_ADDR		= 1,	/* struct bloom_key_addr */
	BLOOM_KEY_NET		= 2,	/* struct bloom_key_net */
	BLOOM_KEY_ADDR_PORT	= 3,	/* struct bloom_key_addr_port */
	BLOOM_KEY_FLOW		= 4,	/* struct bloom_key_flow */
	BLOOM_KEY_DIGEST_V1	= 5,	/* retired: refused (see below) */
	BLOOM_KEY_DIGEST	= 6,	/* struct bloom_key_digest */
	BLOOM_KEY_MAX
};

/*
 * Addresses are 16 bytes in network order; IPv4 is stored v4-mapped
 * (::ffff:a.b.c.d) so that one filter holds both families.
 */
struct bloom_key_addr {
	__u8	addr[16];
};

/*
 * A prefix: the address with every bit past @plen cleared, and @plen
 * counted on the 128-bit form (an IPv4 /24 is 96 + 24 = 120).
 *
 * The families are kept apart: an IPv4 address (v4-mapped) is answered
 * by IPv4 prefixes only, that is by ::ffff:0:0/96 and the prefixes inside
 * it (::ffff:192.0.2.0/120 is 192.0.2.0/24, and ::ffff:0:0/96 itself is
 * 0.0.0.0/0). An IPv6 prefix shorter than /96 that covers ::ffff:0:0/96,
 * such as ::/8 or ::/0, is IPv6 only: it never matches an IPv4 address.
 */
struct bloom_key_net {
	__u8	addr[16];
	__u8	plen;
	__u8	pad[3];		/* zero */
};

struct bloom_key_addr_port {
	__u8	addr[16];
	__be16	port;
	__u8	proto;		/* IPPROTO_TCP, IPPROTO_UDP, ... */
	__u8	pad;		/* zero */
};

struct bloom_key_flow {
	__u8	saddr[16];
	__u8	daddr[16];
	__be16	sport;
	__be16	dport;
	__u8	proto;
	__u8	pad[3];		/* zero */
};

/*
 * A packet digest: the invariant content of one IP packet, so that exact
 * duplicates (the same datagram over two links, a replay, a storm of
 * resends) have equal keys and any other packet a different one, as in
 * hash-based IP traceback. The filter hashes it with its own seed like
 * any key, so a sender cannot aim at collisions. Every field is in
 * network order and is filled from the packet as it is, byte for byte,
 * so userspace can build the same key:
 *
 *   @saddr, @daddr  the addresses, IPv4 v4-mapped
 *   @len            the length of the payload: from its first byte to the
 *                   packet's end (the IP length, not the frame; an IPv4
 *                   aggregate over 64 KiB has a zero total length and
 *                   ends with the skb, as does an IPv6 jumbogram)
 *   @seq            the TCP sequence number; zero otherwise
 *   @sport, @dport  TCP, UDP, UDP-Lite and SCTP; zero otherwise
 *   @proto          the transport protocol: IPv4's protocol field, or
 *                   IPv6's last next-header after the extension headers
 *                   (hop-by-hop, routing, fragment, destination, auth);
 *                   59 (no next header) is a protocol like any other
 *   @nbytes         how many payload bytes follow in @payload: the rule's
 *                   N (at most BLOOM_DIGEST_BYTES_MAX), or fewer when the
 *                   packet is shorter; bytes past @nbytes are zero
 *   @tcp_len        TCP: how many bytes of its header follow in @tcp, its
 *                   data offset * 4 - 8 (12 to BLOOM_DIGEST_TCP_MAX);
 *                   zero otherwise
 *   @tcp            TCP: its header from byte 8 to its end (acknowledgment
 *                   number, data offset, flags, window, checksum, urgent
 *                   pointer, options) with the checksum, @tcp[8] and
 *                   @tcp[9], zero; bytes past @tcp_len are zero
 *
 * The payload starts after the transport header for TCP (its data
 * offset), UDP and UDP-Lite (8 bytes) and SCTP (the 12-byte common
 * header); for every other protocol at the transport header itself (an
 * ICMP echo's type, code, checksum, identifier and sequence are part of
 * it). A later fragment (fragment offset not zero) sets
 * BLOOM_DIGEST_F_FRAGMENT; its @seq is the fragment's offset in bytes,
 * @sport and @dport the high and low halves of its datagram's
 * identification (IPv4: 16 bits, so @sport is zero; IPv6: the fragment
 * header's 32, and BLOOM_DIGEST_F_FRAG6 set, so that an IPv6 fragment
 * from a v4-mapped address is not an IPv4 one), so that the fragments
 * of one datagram, or of two with the same bytes, never collide; its
 * payload is the fragment's data from its first byte, and @tcp_len is
 * zero. A first fragment is read like a whole packet, with @len its own
 * length.
 *
 * All of a TCP header but its checksum is in: two segments that differ
 * in any of it (a pure ACK and the next one, a window update, duplicate
 * ACKs with other SACK blocks or timestamps, a FIN after an ACK) are not
 * copies of one another, and dedup must pass both.
 *
 * Left out because they change on the way or between resends of the same
 * content: TTL and hop limit, the IPv4 header checksum, TOS/traffic class
 * (ECN), the IPv4 identification and fragment bits (but for a later
 * fragment, as above), the IPv6 flow label, IP options and IPv6
 * extension headers, and the transport checksums (also unfinished on a
 * locally sent packet whose checksum is offloaded).
 *
 * BLOOM_KEY_DIGEST_V1 (5) was the first digest, without @tcp_len and
 * @tcp: it gave every pure ACK of a connection one key, so dedup dropped
 * them. It is retired: filters, snapshots and rules of that type are
 * refused (EINVAL) and must be made again with BLOOM_KEY_DIGEST.
 */
#define BLOOM_DIGEST_BYTES_MAX	64
#define BLOOM_DIGEST_TCP_MAX	52	/* a 60-byte TCP header from byte 8 */
#define BLOOM_DIGEST_F_FRAGMENT	(1 << 0)	/* a later fragment */
#define BLOOM_DIGEST_F_FRAG6	(1 << 1)	/* ... of an IPv6 datagram */
#define BLOOM_DIGEST_F_ALL	(BLOOM_DIGEST_F_FRAGMENT | BLOOM_DIGEST_F_FRAG6)

struct bloom_key_digest {
	__u8	saddr[16];
	__u8	daddr[16];
	__be32	len;
	__be32	seq;
	__be16	sport;
	__be16	dport;
	__u8	proto;
	__u8	flags;		/* BLOOM_DIGEST_F_* */
	__u8	nbytes;
	__u8	tcp_len;
	__u8	tcp[BLOOM_DIGEST_TCP_MAX];
	__u8	payload[BLOOM_DIGEST_BYTES_MAX];
	__u8	pad[4];		/* zero */
};

/* Number of 64-bit words in the bitmap of prefix lengths a net filter holds. */
#define BLOOM_PLEN_WORDS	3	/* prefix lengths 0..128 */

/*
 * Filter flags. BLOOM_F_PROBES(P), net filters only: a lookup probes the
 * address at each prefix length the filter holds and matches when any
 * probe does, so its false-positive rate is about P times a probe's.
 * CREATE sizes each probe at fpr_ppb / P, so that a lookup over at most P
 * lengths keeps the rate asked, and the filter is over its design (as
 * past its capacity) once it holds more than P lengths. P is at most
 * BLOOM_PROBES_MAX. Without one (0: sized by m and k alone, or made
 * before lookups were sized) a probe is sized at fpr_ppb and the filter
 * is never over on lengths. A kernel older than P refuses these flags
 * (EINVAL), and its snapshots with them.
 */
#define BLOOM_F_FIXED_SEED	(1U << 0)	/* seed given by the user */
/*
 * A family (ipset's word): BLOOM_F_INET or BLOOM_F_INET6, at most one,
 * for key types with addresses only (addr, net, addr-port, flow,
 * digest); without either a filter is dual-stack. Like the key type it
 * is fixed for the filter's life: a swap or a replacing restore with
 * another family fails (EINVAL). A key is IPv4 when each of its
 * addresses is v4-mapped (a net key: a prefix inside ::ffff:0:0/96, so
 * ::ffff:0:0/96 itself is 0.0.0.0/0 and ::/8 is IPv6) and for a digest
 * BLOOM_DIGEST_F_FRAG6 is clear; IPv6 otherwise. /dev/bloom refuses a
 * key of the other family for every command (EAFNOSUPPORT), so do
 * bloom_add() and bloom_del(); bloom_test() and the packet path find it
 * absent without a probe.
 */
#define BLOOM_F_INET		(1U << 1)	/* IPv4 keys only */
#define BLOOM_F_INET6		(1U << 2)	/* IPv6 keys only */
#define BLOOM_F_FAMILY		(BLOOM_F_INET | BLOOM_F_INET6)
/*
 * BLOOM_F_SUMMARY, net filters only: the contents carry a summary, one
 * bit per /16 of each family the filter takes (8 KiB a family), set
 * where a prefix held overlaps that /16. A lookup of an address whose
 * /16 no prefix reaches is answered absent from that bit alone: one
 * cache line, no hash, no false positive; the others probe the lengths
 * held as without it. Bits are never cleared (a delete or an aging
 * filter's rotation leaves them), so the summary only ever saves work.
 * A snapshot of such a filter ends its payload with the summary (after
 * what the payloads below describe, and counted in payload_len), the
 * IPv4 table first, as little-endian words; bloomctl sets the flag on
 * every net filter it creates or builds. A kernel older than the flag
 * refuses it (EINVAL), and its snapshots.
 */
#define BLOOM_F_SUMMARY		(1U << 3)
#define BLOOM_SUMMARY_FAMILY_BITS	65536	/* a /16 of one family */
#define BLOOM_F_PROBES_SHIFT	8
#define BLOOM_F_PROBES_MASK	(0xffU << BLOOM_F_PROBES_SHIFT)
#define BLOOM_F_PROBES(p)	((__u16)((p) << BLOOM_F_PROBES_SHIFT))
#define BLOOM_F_ALL		(BLOOM_F_FIXED_SEED | BLOOM_F_FAMILY | \
				 BLOOM_F_SUMMARY | BLOOM_F_PROBES_MASK)
#define BLOOM_PROBES_MAX	129	/* lengths 0..128 */

/*
 * Aging (time-decaying) filters: G generations of the same geometry
 * behind one name. Add goes to the newest, test looks in all of them;
 * a rotation (every period, when the newest holds its capacity with
 * BLOOM_AGE_F_FULL, or on request) empties the oldest and makes it the
 * newest. The capacity is per generation, that is per window.
 */
#define BLOOM_GENERATIONS_MIN	2
#define BLOOM_GENERATIONS_MAX	8
#define BLOOM_AGE_F_FULL	(1U << 0)	/* rotate when the newest is full */
/*
 * The shortest period, and the shortest time between two rotations that
 * BLOOM_AGE_F_FULL asks for: a filter's rotation work is at most ten
 * rotations a second, so a namespace's is bounded by its filter limit.
 */
#define BLOOM_AGE_PERIOD_MIN_MS	100
#define BLOOM_AGE_F_ALL		(BLOOM_AGE_F_FULL)

/*
 * Scalable filters (Almeida et al., "Scalable Bloom Filters", 2007): up
 * to @stages_max stages of one layout behind one name. The first holds
 * the capacity it was created with at error e0; when the newest is
 * full, a stage of @growth times its capacity at @tighten_pct percent of
 * its error becomes the newest. Adds go to the newest, tests probe every
 * stage; the rate stays below e0 / (1 - r) for r = @tighten_pct / 100.
 * Created from a target rate e, the first stage gets e0 = e (1 - r).
 */
#define BLOOM_STAGES_MAX	24
#define BLOOM_GROWTH_MIN	2
#define BLOOM_GROWTH_MAX	8
#define BLOOM_GROWTH_DEFAULT	2
#define BLOOM_TIGHTEN_MIN_PCT	10
#define BLOOM_TIGHTEN_MAX_PCT	90
#define BLOOM_TIGHTEN_DEFAULT_PCT	50

/*
 * Cuckoo filters (Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo
 * Filter: Practically Better Than Bloom", CoNEXT 2014): a key is an
 * f-bit fingerprint in one of two buckets of BLOOM_CUCKOO_SLOTS slots,
 * and a delete removes it. For BLOOM_LAYOUT_CUCKOO, @hashes is f and
 * @bits the table, buckets * BLOOM_CUCKOO_SLOTS * f: any bucket count
 * from 2 to 2^32 - 1, no power-of-two rounding. The rate is about
 * 2 * BLOOM_CUCKOO_SLOTS / 2^f at full load; sizing from a rate picks the
 * smallest f and fills buckets to BLOOM_CUCKOO_LOAD_PCT (tables of
 * fewer than 1024 buckets get a quarter more and 2, as they fill less
 * evenly). BLOOM_IOC_ADD
 * stores a copy of the key on every add, as a counting filter counts
 * every add (a key added twice takes two deletes); the packet path's
 * test-and-add stores a key found present no more. An add that cannot
 * be placed fails with ENOSPC and changes nothing. Deleting a key never
 * added can delete another key that shares its fingerprint and a bucket
 * (as with counting filters).
 * Not aging, not scalable; no union, intersect or halve.
 *
 * A cuckoo filter created with @value_bits v (1 to
 * BLOOM_CUCKOO_VALUE_BITS_MAX) keeps a v-bit value beside each
 * fingerprint, in slots of f + v bits (at most BLOOM_CUCKOO_FP_MAX): an
 * add gives it (BLOOM_IOC_ADD's @values), a lookup answers with it, and
 * a delete removes the first copy of the fingerprint whatever its value.
 * A false positive answers with the value of the stored key whose
 * fingerprint it matched. Such a filter counts the packets each value
 * matched (BLOOM_IOC_VALUE_HITS), e.g. per origin of a blocklist.
 */
#define BLOOM_CUCKOO_SLOTS	4
#define BLOOM_CUCKOO_FP_MIN	4
#define BLOOM_CUCKOO_FP_MAX	32	/* and most bits of a slot */
#define BLOOM_CUCKOO_VALUE_BITS_MAX	8
#define BLOOM_CUCKOO_LOAD_PCT	95
#define BLOOM_STAGES_DEFAULT	16

/*
 * Static filters (Graf and Lemire, "Binary Fuse Filters: Fast and
 * Smaller Than Xor Filters", 2022): built once from a set of n keys,
 * never edited; a lookup XORs three entries of one small window. With
 * values (1 to BLOOM_FUSE_VALUE_BITS_MAX bits per key) they are Bloomier
 * maps (Chazelle, Kilian, Rubinfeld and Tal, 2004): a member's lookup
 * gives its value, another key is absent but with probability 2^-f.
 *
 * For BLOOM_LAYOUT_FUSE, @hashes is the fingerprint width f
 * (BLOOM_FUSE_FP_MIN to BLOOM_FUSE_FP_MAX), the value width v is stored
 * beside it (snapshots: version 6), @capacity is n (distinct keys) and
 * @bits is entries * (f + v), where the number of entries follows from
 * n alone (bloom_fuse_entries() in the core). An entry is f + v bits,
 * packed from bit 0 of the little-endian words; the XOR of a member's
 * three entries is its fingerprint shifted left by v, ORed with its
 * value. Built by userspace (bloomctl build) and loaded with
 * BLOOM_IOC_RESTORE; CREATE, ADD and DEL fail with EOPNOTSUPP.
 */
#define BLOOM_FUSE_FP_MIN	8
#define BLOOM_FUSE_FP_MAX	32
#define BLOOM_FUSE_VALUE_BITS_MAX	16
#define BLOOM_FUSE_ENTRY_BITS_MAX	32	/* f + v */
#define BLOOM_FUSE_KEYS_MAX	((1U << 30) - 1)
#define BLOOM_VALUE_ABSENT	0xffffffffU	/* BLOOM_IOC_VALUE: not a member */

/*
 * A snapshot file: this header, little-endian, then @payload_len bytes
 * of the array as little-endian 64-bit words. @checksum is xxh64 (seed 0)
 * over the header with @checksum zeroed, followed by the payload. Bits
 * (or counters) past @bits in the last word are zero.
 */
#define BLOOM_SNAP_MAGIC	0x464d4c42	/* "BLMF" */
#define BLOOM_SNAP_VERSION	2
/*
 * Version 3: an aging filter. @reserved[0] holds the generations G in
 * bits 0-7, BLOOM_AGE_F_* in bits 8-15 and the period in ms in bits
 * 32-63; @inserted is the sum and @plens the union over generations.
 * The payload is G struct bloom_snap_gen, then the G arrays, both
 * newest first: @payload_len = G * (40 + the array's bytes). Plain
 * filters are still written as version 2.
 */
#define BLOOM_SNAP_VERSION_AGING	3
/*
 * Version 4: a scalable filter. The header describes the first stage;
 * @reserved[0] holds @stages_max in bits 0-7, @growth in bits 8-15,
 * @tighten_pct in bits 16-23 and the number of stages S in bits 24-31;
 * @inserted is the sum and @plens the union over stages. The payload is
 * S struct bloom_snap_stage, then the S arrays, oldest first: each
 * stage's geometry follows from the first's (bloom_stage_geom()).
 */
#define BLOOM_SNAP_VERSION_SCALABLE	4
/*
 * Version 5: a cuckoo filter (BLOOM_LAYOUT_CUCKOO, and only that).
 * @reserved[0] holds the value width v in bits 0-7 (0: no values), the
 * other bits zero. The payload is the table as little-endian words:
 * slot j of bucket i is the w = f + v bits from bit
 * (i * BLOOM_CUCKOO_SLOTS + j) * w, its fingerprint in the low f bits
 * (zero when empty) and its value above; @inserted is the number of
 * slots in use (a restore counts them).
 */
#define BLOOM_SNAP_VERSION_CUCKOO	5
/*
 * Version 6: a static filter (BLOOM_LAYOUT_FUSE, and only that).
 * @reserved[0] holds the value width v in bits 0-7 (0: no values), the
 * other bits zero; @inserted and @capacity are n. The payload is the
 * entries as little-endian words, bits past the last entry zero.
 */
#define BLOOM_SNAP_VERSION_FUSE		6

struct bloom_snap_stage {
	__le64	bits;		/* m of the stage, as a check */
	__le64	inserted;
	__le64	plens[BLOOM_PLEN_WORDS];
};

struct bloom_snap_gen {
	__le64	age_ms;		/* since it became the newest */
	__le64	inserted;
	__le64	plens[BLOOM_PLEN_WORDS];
};

struct bloom_snap_hdr {
	__le32	magic;
	__le16	version;
	__le16	hdr_len;	/* sizeof(struct bloom_snap_hdr) */
	__u8	layout;
	__u8	key_type;
	__le16	flags;
	__le32	hashes;		/* k */
	__le64	bits;		/* m: bits, or counters for counting */
	__le64	seed;
	__le64	inserted;
	__le64	payload_len;
	__le64	plens[BLOOM_PLEN_WORDS];
	__le64	capacity;	/* distinct keys the filter was sized for */
	__le64	reserved[3];	/* zero */
	__le64	checksum;
};

#endif /* _UAPI_BLOOM_H */
