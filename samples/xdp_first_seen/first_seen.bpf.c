// SPDX-License-Identifier: GPL-2.0
/*
 * A sample of bloom.ko's kfuncs: count the packets that come from a
 * source address not seen before. Each IPv4 or IPv6 packet's source is
 * tested and added in one call, bpf_bloom_xdp_test_and_add(), to an addr
 * filter: 0 means it was new (and is now held), 1 that it was there.
 * With an aging filter of two generations ("bloomctl create seen --key
 * addr --capacity 100k --rotate 30s"), "new" means "not seen in the last
 * 30 to 60 seconds". Every packet passes.
 *
 * Build: clang -O2 -g -target bpf -c first_seen.bpf.c
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include "first_seen.h"

/* From bloom.ko's BTF; see module/kfuncs.c for the return values. */
extern int bpf_bloom_xdp_test_and_add(struct xdp_md *ctx, __u32 id,
				      const void *key, __u32 key__sz) __ksym;

/* Set by the loader before the program is loaded. */
const volatile struct first_seen_cfg cfg;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FS_NCOUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} first_seen_counters SEC(".maps");

static __always_inline void bump(__u32 counter)
{
	__u64 *n = bpf_map_lookup_elem(&first_seen_counters, &counter);

	if (n)
		*n += 1;
}

/*
 * An addr filter's key is 16 bytes: an IPv6 address, or an IPv4 one
 * mapped (::ffff:a.b.c.d), as struct bloom_key_addr in uapi/bloom.h.
 * Return: 0, or -1 for a packet that is not IP or is too short.
 */
static __always_inline int source(void *data, void *end, __u8 addr[16])
{
	struct ethhdr *eth = data;
	struct ipv6hdr *ip6;
	struct iphdr *ip;

	if ((void *)(eth + 1) > end)
		return -1;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		ip = (void *)(eth + 1);
		if ((void *)(ip + 1) > end)
			return -1;
		addr[10] = 0xff;
		addr[11] = 0xff;
		__builtin_memcpy(addr + 12, &ip->saddr, 4);
		return 0;
	}
	if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		ip6 = (void *)(eth + 1);
		if ((void *)(ip6 + 1) > end)
			return -1;
		__builtin_memcpy(addr, &ip6->saddr, 16);
		return 0;
	}
	return -1;
}

SEC("xdp")
int first_seen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u8 addr[16] = {};
	int seen;

	if (source(data, end, addr))
		return XDP_PASS;
	bump(FS_PACKETS);
	seen = bpf_bloom_xdp_test_and_add(ctx, cfg.filter_id, addr,
					  sizeof(addr));
	if (seen < 0)
		bump(FS_ERRORS);
	else
		bump(seen ? FS_REPEATS : FS_NEW);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
