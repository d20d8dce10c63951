/* SPDX-License-Identifier: GPL-2.0 */
/* What scripts/bench/xdp.bpf.c and its loader, xdp.c, share. */
#ifndef _XDP_BENCH_H
#define _XDP_BENCH_H

#include <linux/types.h>

#define XDP_BENCH_LOOKUPS	256	/* per run of a loop_ program */

struct xdp_bench_cfg {			/* .rodata */
	__u32	filter_id;	/* the bloom.ko filter's id */
	__u32	n;		/* addresses listed: key_of(0 .. n - 1) */
};

struct xdp_bench_state {		/* .bss */
	__u64	hits;		/* lookups of loop_ programs that found */
	__u32	absent;		/* loop_ programs: look up unlisted ones */
	__u32	pad;
};

/* Address i, in host order: a bijection of the 32-bit numbers. */
static inline __u32 key_of(__u32 i)
{
	return i * 0x9e3779b1u + 0x0a000001u;
}

#endif /* _XDP_BENCH_H */
