// SPDX-License-Identifier: GPL-2.0
/*
 * Drop packets whose source (or destination) address is in
 * a filter of bloom.ko, at a netfilter hook (BPF_PROG_TYPE_NETFILTER,
 * Linux 6.4 on): nftables hosts get the filters with no iptables, no
 * nft_compat and no xtables module, ordered among nft's chains by the
 * hook's priority. The filter is named by its id in the hook's
 * namespace (bloomctl nf attach sets it); an address filter answers for
 * the address, a net filter for every prefix length it holds. Packets
 * that are not IP, and every packet while the filter is gone, go on.
 */
#include <linux/bpf.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include "bloom_nf.h"
#include "bloom_counters.bpf.h"

#define NF_DROP		0
#define NF_ACCEPT	1	/* on to the hook's next entry */

/* The context, as the kernel's BTF has it (relocated at load). */
struct sk_buff;
struct bpf_nf_ctx {
	const void *state;
	struct sk_buff *skb;
} __attribute__((preserve_access_index));

extern int bpf_bloom_nf_test(struct bpf_nf_ctx *ctx, __u32 id,
			     const void *key, __u32 key__sz) __ksym;
extern int bpf_dynptr_from_skb(struct __sk_buff *skb, __u64 flags,
			       struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *ptr, __u32 offset,
			      void *buffer, __u32 buffer__sz) __ksym;

/* Filled in by the loader before the program is loaded. */
const volatile struct bloom_nf_cfg cfg;

/*
 * The key: the packet's address, IPv4 v4-mapped (struct bloom_key_addr).
 * At a netfilter hook the skb starts at the network header.
 * Return: 0, or -1 for a packet that is not IP or is too short.
 */
static __always_inline int packet_addr(struct bpf_dynptr *p, __u8 addr[16])
{
	__u8 buf[sizeof(struct ipv6hdr)];
	struct ipv6hdr *ip6;
	struct iphdr *ip;
	__u8 *first;

	first = bpf_dynptr_slice(p, 0, buf, 1);
	if (!first)
		return -1;
	if (*first >> 4 == 4) {
		ip = bpf_dynptr_slice(p, 0, buf, sizeof(*ip));
		if (!ip)
			return -1;
		addr[10] = 0xff;
		addr[11] = 0xff;
		__builtin_memcpy(addr + 12, cfg.dir == BLOOM_XDP_DST ?
				 &ip->daddr : &ip->saddr, 4);
		return 0;
	}
	if (*first >> 4 == 6) {
		ip6 = bpf_dynptr_slice(p, 0, buf, sizeof(*ip6));
		if (!ip6)
			return -1;
		__builtin_memcpy(addr, cfg.dir == BLOOM_XDP_DST ?
				 &ip6->daddr : &ip6->saddr, 16);
		return 0;
	}
	return -1;
}

SEC("netfilter")
int bloom_nf(struct bpf_nf_ctx *ctx)
{
	struct bpf_dynptr p;
	__u8 addr[16] = {};
	int ret;

	if (bpf_dynptr_from_skb((struct __sk_buff *)ctx->skb, 0, &p) ||
	    packet_addr(&p, addr))
		return NF_ACCEPT;
	bump(BLOOM_XDP_SEEN);
	ret = bpf_bloom_nf_test(ctx, cfg.filter_id, addr, sizeof(addr));
	if (ret < 0)
		bump(BLOOM_XDP_ERRORS);
	if (ret != 1)
		return NF_ACCEPT;
	bump(BLOOM_XDP_MATCHED);
	bump(BLOOM_XDP_DROPPED);
	return NF_DROP;
}

char LICENSE[] SEC("license") = "GPL";
