/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * What bloom_xdp.bpf.c and its loader (bloomctl xdp) share: the
 * program's configuration, set before it is loaded, and its per-CPU
 * counters. "bloomctl xdp status" reads both back from the kernel.
 */
#ifndef _BLOOM_XDP_H
#define _BLOOM_XDP_H

#include <linux/types.h>

#define BLOOM_XDP_PROG		"bloom_xdp"	/* the XDP program's name */
#define BLOOM_TC_PROG		"bloom_tc"	/* its tc twin */
#define BLOOM_XDP_COUNTERS	"bloom_counters"

/* Which address of a packet is the key. */
enum bloom_xdp_dir {
	BLOOM_XDP_SRC = 0,
	BLOOM_XDP_DST = 1,
};

struct bloom_xdp_cfg {
	__u32	filter_id;		/* BLOOM_IOC_ID in the device's netns */
	__u8	dir;			/* enum bloom_xdp_dir */
	__u8	pad[3];
	char	name[32];		/* the filter's name when attached */
};

enum bloom_xdp_counter {
	BLOOM_XDP_SEEN,			/* IPv4 and IPv6 packets looked at */
	BLOOM_XDP_MATCHED,		/* whose address is in the filter */
	BLOOM_XDP_DROPPED,		/* dropped: those matched */
	BLOOM_XDP_ERRORS,		/* the filter said no (gone: passed) */
	BLOOM_XDP_NCOUNTERS
};

#endif /* _BLOOM_XDP_H */
