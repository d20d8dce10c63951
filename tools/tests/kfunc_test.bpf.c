// SPDX-License-Identifier: GPL-2.0
/*
 * bloom.ko's kfuncs as a program calls them, for kfunc-test: each run
 * takes its request from .bss (filter id, key, length, test or add) and
 * leaves the kfunc's answer there. Any length up to 176 bytes may be
 * asked for, so that lengths the filters refuse are tried too. kf_null
 * passes a map value it never checked, which is NULL.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

extern int bpf_bloom_xdp_test(struct xdp_md *ctx, __u32 id, const void *key,
			      __u32 key__sz) __ksym;
extern int bpf_bloom_xdp_test_and_add(struct xdp_md *ctx, __u32 id,
				      const void *key, __u32 key__sz) __ksym;
extern int bpf_bloom_skb_test(struct __sk_buff *ctx, __u32 id,
			      const void *key, __u32 key__sz) __ksym;
extern int bpf_bloom_skb_test_and_add(struct __sk_buff *ctx, __u32 id,
				      const void *key, __u32 key__sz) __ksym;

#define KEY_MAX	176	/* past the longest key, a digest's 168 */

struct bloom_key_addr_16 {
	__u8 addr[16];
};

struct kfunc_req {
	__u32 id;
	__u32 len;
	__u32 add;
	__s32 result;
	__u8 key[KEY_MAX];
} req;

SEC("xdp")
int kf_xdp(struct xdp_md *ctx)
{
	__u32 len = req.len;

	if (len > KEY_MAX)
		return XDP_ABORTED;
	req.result = req.add ?
		bpf_bloom_xdp_test_and_add(ctx, req.id, req.key, len) :
		bpf_bloom_xdp_test(ctx, req.id, req.key, len);
	return XDP_PASS;
}

/* An array map of one entry: looking up entry 1 gives NULL. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bloom_key_addr_16);
} one SEC(".maps");

SEC("xdp")
int kf_null(struct xdp_md *ctx)
{
	__u32 past = 1;
	void *key = bpf_map_lookup_elem(&one, &past);

	req.result = bpf_bloom_xdp_test(ctx, req.id, key, 16);
	return XDP_PASS;
}

SEC("tc")
int kf_tc(struct __sk_buff *skb)
{
	__u32 len = req.len;

	if (len > KEY_MAX)
		return TC_ACT_SHOT;
	req.result = req.add ?
		bpf_bloom_skb_test_and_add(skb, req.id, req.key, len) :
		bpf_bloom_skb_test(skb, req.id, req.key, len);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
