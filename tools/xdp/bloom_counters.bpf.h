/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU counters of bloomctl's programs (XDP, tc, netfilter
 * hook), in the map bloomctl's status reads back: enum
 * bloom_xdp_counter in bloom_xdp.h. For BPF programs only.
 */
#ifndef _BLOOM_COUNTERS_BPF_H
#define _BLOOM_COUNTERS_BPF_H

#include "bloom_xdp.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BLOOM_XDP_NCOUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} bloom_counters SEC(".maps");

static __always_inline void bump(__u32 counter)
{
	__u64 *n = bpf_map_lookup_elem(&bloom_counters, &counter);

	if (n)
		*n += 1;
}

#endif /* _BLOOM_COUNTERS_BPF_H */
