/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * xt_bloom: the "bloom" match. Each revision's match info is ABI: frozen.
 */
#ifndef _UAPI_XT_BLOOM_H
#define _UAPI_XT_BLOOM_H

#include <linux/types.h>
#include "bloom.h"

/* @flags */
#define XT_BLOOM_DST		(1 << 0)	/* key from the destination */
#define XT_BLOOM_INVERT		(1 << 1)	/* match when absent */
#define XT_BLOOM_UPDATE		(1 << 2)	/* add the key; match if seen */
#define XT_BLOOM_FLAGS_ALL	(XT_BLOOM_DST | XT_BLOOM_INVERT | XT_BLOOM_UPDATE)

/*
 * @key_type says how the packet forms its key and must equal the
 * filter's (checked when the rule is inserted):
 *   BLOOM_KEY_ADDR       the source (or destination) address
 *   BLOOM_KEY_NET        the address, probed against each prefix length
 *                        the filter holds, longest first (no update)
 *   BLOOM_KEY_ADDR_PORT  address, protocol and port
 *   BLOOM_KEY_FLOW       protocol, both addresses, both ports
 */
struct xt_bloom_mtinfo0 {
	char	name[BLOOM_NAME_MAX];
	__u8	key_type;
	__u8	flags;
	__u8	pad[6];			/* zero */

	/* Used internally by the kernel */
	struct bloom_filter *filter __attribute__((aligned(8)));
};

/*
 * Revision 1: revision 0 and the packet digest key. Its layout is
 * revision 0's with the first padding byte given a meaning:
 *   @key_type      any of revision 0's, or BLOOM_KEY_DIGEST: the packet's
 *                  digest (struct bloom_key_digest), taken with
 *                  @digest_bytes payload bytes; needs a digest filter;
 *                  XT_BLOOM_DST does not apply to it (refused)
 *   @digest_bytes  N, 0 to BLOOM_DIGEST_BYTES_MAX for BLOOM_KEY_DIGEST;
 *                  zero for every other key type
 */
struct xt_bloom_mtinfo1 {
	char	name[BLOOM_NAME_MAX];
	__u8	key_type;
	__u8	flags;
	__u8	digest_bytes;
	__u8	pad[5];			/* zero */

	/* Used internally by the kernel */
	struct bloom_filter *filter __attribute__((aligned(8)));
};

/*
 * Revision 2: revision 1's layout, for the digest key of ABI 2
 * (BLOOM_KEY_DIGEST, the whole TCP header). Revision 1 carries the
 * retired BLOOM_KEY_DIGEST_V1 only, which the kernel refuses, so that
 * iptables that knows revision 1 alone never reads a key type it has
 * no name for: it shows a revision 2 rule as unsupported.
 */
struct xt_bloom_mtinfo2 {
	char	name[BLOOM_NAME_MAX];
	__u8	key_type;
	__u8	flags;
	__u8	digest_bytes;
	__u8	pad[5];			/* zero */

	/* Used internally by the kernel */
	struct bloom_filter *filter __attribute__((aligned(8)));
};

/*
 * Revision 3: revision 2 and a match on the member's value, for static
 * maps (BLOOM_LAYOUT_FUSE with values: each key carries a value, 0 to
 * 65535; every other filter gives its members the value 0).
 *   @flags      revision 2's, and
 *               XT_BLOOM_VALUE: match a member only if its value is in
 *               one of @ranges; never with XT_BLOOM_UPDATE
 *               XT_BLOOM_VALUE_INVERT (with XT_BLOOM_VALUE only): match
 *               a member only if its value is in none of @ranges
 *               XT_BLOOM_INVERT still inverts the whole: with
 *               XT_BLOOM_VALUE, "not a member with such a value"
 *   @nranges    with XT_BLOOM_VALUE, 1 to XT_BLOOM_VALUE_RANGES: how
 *               many of @ranges count; else 0
 *   @ranges     inclusive ranges, min <= max, in any order; unused
 *               ones zero
 * Every other field is revision 2's.
 */
#define XT_BLOOM_VALUE		(1 << 3)	/* the member's value decides */
#define XT_BLOOM_VALUE_INVERT	(1 << 4)	/* ... when in no range */
#define XT_BLOOM_FLAGS_ALL3	(XT_BLOOM_FLAGS_ALL | XT_BLOOM_VALUE | \
				 XT_BLOOM_VALUE_INVERT)
#define XT_BLOOM_VALUE_RANGES	16

struct xt_bloom_value_range {
	__u16	min;
	__u16	max;
};

struct xt_bloom_mtinfo3 {
	char	name[BLOOM_NAME_MAX];
	__u8	key_type;
	__u8	flags;
	__u8	digest_bytes;
	__u8	nranges;
	__u8	pad[4];			/* zero */
	struct xt_bloom_value_range ranges[XT_BLOOM_VALUE_RANGES];

	/* Used internally by the kernel */
	struct bloom_filter *filter __attribute__((aligned(8)));
};

#endif /* _UAPI_XT_BLOOM_H */
