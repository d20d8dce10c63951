/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * What first_seen.bpf.c and its loader share: the program's settings,
 * written into .rodata before it is loaded, and its per-CPU counters.
 */
#ifndef _FIRST_SEEN_H
#define _FIRST_SEEN_H

#include <linux/types.h>

struct first_seen_cfg {
	__u32	filter_id;	/* BLOOM_IOC_ID of an addr filter */
};

enum first_seen_counter {
	FS_PACKETS,		/* IPv4 and IPv6 packets looked at */
	FS_NEW,			/* from a source the filter did not hold */
	FS_REPEATS,		/* from a source it held already */
	FS_ERRORS,		/* the kfunc failed: no filter, or full */
	FS_NCOUNTERS
};

#endif /* _FIRST_SEEN_H */
