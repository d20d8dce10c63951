/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * What bloom_nf.bpf.c and its loader (bloomctl nf) share: the program's
 * configuration, set before it is loaded, and its per-CPU counters
 * (those of the XDP program: bloom_xdp.h).
 */
#ifndef _BLOOM_NF_H
#define _BLOOM_NF_H

#include "bloom_xdp.h"

#define BLOOM_NF_PROG		"bloom_nf"	/* the program's name */

struct bloom_nf_cfg {
	__u32	filter_id;		/* BLOOM_IOC_ID in the hook's netns */
	__u8	dir;			/* enum bloom_xdp_dir */
	__u8	pad[3];
	char	name[32];		/* the filter's name when attached */
};

#endif /* _BLOOM_NF_H */
