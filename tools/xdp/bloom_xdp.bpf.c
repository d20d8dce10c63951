// SPDX-License-Identifier: GPL-2.0
/*
 * Drop packets whose source (or destination) address is in a filter of
 * bloom.ko, at XDP or at tc ingress. The filter is named by its id in the
 * namespace of the receiving device (bloomctl xdp attach sets it); an
 * address filter answers for the address, a net filter for every prefix
 * length it holds. Packets that are not IP, and every packet while the
 * filter is gone, pass.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include "bloom_xdp.h"
#include "bloom_counters.bpf.h"

extern int bpf_bloom_xdp_test(struct xdp_md *ctx, __u32 id, const void *key,
			      __u32 key__sz) __ksym;
extern int bpf_bloom_skb_test(struct __sk_buff *ctx, __u32 id,
			      const void *key, __u32 key__sz) __ksym;

/* Filled in by the loader before the program is loaded. */
const volatile struct bloom_xdp_cfg cfg;

/*
 * The key: the packet's address, IPv4 v4-mapped (struct bloom_key_addr).
 * Return: 0, or -1 for a packet that is not IP or is too short.
 */
static __always_inline int packet_addr(void *data, void *end, __u8 addr[16])
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
		__builtin_memcpy(addr + 12, cfg.dir == BLOOM_XDP_DST ?
				 &ip->daddr : &ip->saddr, 4);
		return 0;
	}
	if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		ip6 = (void *)(eth + 1);
		if ((void *)(ip6 + 1) > end)
			return -1;
		__builtin_memcpy(addr, cfg.dir == BLOOM_XDP_DST ?
				 &ip6->daddr : &ip6->saddr, 16);
		return 0;
	}
	return -1;
}

/* Count the answer; non-zero to drop. */
static __always_inline int verdict(int ret)
{
	if (ret < 0)
		bump(BLOOM_XDP_ERRORS);
	if (ret != 1)
		return 0;
	bump(BLOOM_XDP_MATCHED);
	bump(BLOOM_XDP_DROPPED);
	return 1;
}

SEC("xdp")
int bloom_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u8 addr[16] = {};

	if (packet_addr(data, end, addr))
		return XDP_PASS;
	bump(BLOOM_XDP_SEEN);
	if (verdict(bpf_bloom_xdp_test(ctx, cfg.filter_id, addr, sizeof(addr))))
		return XDP_DROP;
	return XDP_PASS;
}

SEC("tc")
int bloom_tc(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	__u8 addr[16] = {};

	if (packet_addr(data, end, addr))
		return TC_ACT_OK;
	bump(BLOOM_XDP_SEEN);
	if (verdict(bpf_bloom_skb_test(skb, cfg.filter_id, addr, sizeof(addr))))
		return TC_ACT_SHOT;
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
