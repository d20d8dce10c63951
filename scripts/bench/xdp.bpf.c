// SPDX-License-Identifier: GPL-2.0
/*
 * XDP lookups for make bench (scripts/bench/xdp-guest): the same IPv4
 * addresses in a bloom.ko filter (through its kfunc), a
 * BPF_MAP_TYPE_BLOOM_FILTER, a BPF_MAP_TYPE_HASH and an LPM_TRIE of /32s.
 * Address i is key_of(i) (below; bench-xdp fills every structure with
 * i < n), each structure keyed as a program would key it: the kfunc takes
 * 16 bytes (IPv4 v4-mapped, its ABI), the maps the 4 bytes of saddr.
 *
 * pkt_*: a whole XDP program on the test packet, dropping a listed
 * source (one key, so every line is in the cache: the warm case).
 * loop_*: LOOKUPS lookups of random addresses per run, listed (i < n)
 * or not (n <= i < 2n) as state.absent says: over 10^6 keys and more the
 * lookups go to memory. loop_none does all but the lookup: what it
 * costs is taken off the others.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include "xdp_bench.h"

extern int bpf_bloom_xdp_test(struct xdp_md *ctx, __u32 id, const void *key,
			      __u32 key__sz) __ksym;

const volatile struct xdp_bench_cfg cfg;

struct lpm_key {
	__u32 prefixlen;
	__u32 addr;
};

/* Sizes and the bloom map's hash count are set by bench-xdp. */
struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__type(value, __u32);
} bloom_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} hash_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct lpm_key);
	__type(value, __u8);
} lpm_map SEC(".maps");

/* The four lookups; each returns non-zero for a listed address. */
static __always_inline int by_kfunc(struct xdp_md *ctx, __be32 saddr)
{
	__u8 key[16] = {};

	key[10] = 0xff;
	key[11] = 0xff;
	__builtin_memcpy(key + 12, &saddr, 4);
	return bpf_bloom_xdp_test(ctx, cfg.filter_id, key, sizeof(key)) == 1;
}

static __always_inline int by_bloom_map(__be32 saddr)
{
	return bpf_map_peek_elem(&bloom_map, &saddr) == 0;
}

static __always_inline int by_hash(__be32 saddr)
{
	return bpf_map_lookup_elem(&hash_map, &saddr) != NULL;
}

static __always_inline int by_lpm(__be32 saddr)
{
	struct lpm_key k = { .prefixlen = 32, .addr = saddr };

	return bpf_map_lookup_elem(&lpm_map, &k) != NULL;
}

/* The packet's IPv4 source, or 0 for anything else. */
static __always_inline __be32 source(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return 0;
	return ip->saddr;
}

#define PKT_PROG(name, lookup)					\
SEC("xdp")							\
int pkt_##name(struct xdp_md *ctx)				\
{								\
	__be32 saddr = source(ctx);				\
								\
	return saddr && (lookup) ? XDP_DROP : XDP_PASS;		\
}

PKT_PROG(none, 0)
PKT_PROG(kfunc, by_kfunc(ctx, saddr))
PKT_PROG(bloom_map, by_bloom_map(saddr))
PKT_PROG(hash, by_hash(saddr))
PKT_PROG(lpm, by_lpm(saddr))

/*
 * Set by bench-xdp between runs: which addresses the loop_ programs look
 * up, and the hits they found (so that no lookup is optimised away, and
 * bench-xdp can check that every listed address was found).
 */
struct xdp_bench_state state;

/* A random address of the listed (or, with state.absent, unlisted) ones. */
static __always_inline __be32 random_addr(void)
{
	__u32 i = bpf_get_prandom_u32() % cfg.n;

	return bpf_htonl(key_of(state.absent ? cfg.n + i : i));
}

#define LOOP_PROG(name, lookup)					\
SEC("xdp")							\
int loop_##name(struct xdp_md *ctx)				\
{								\
	__u32 i, n = 0;						\
	__be32 saddr;						\
								\
	for (i = 0; i < XDP_BENCH_LOOKUPS; i++) {		\
		saddr = random_addr();				\
		n += (lookup);					\
	}							\
	state.hits += n;						\
	return XDP_PASS;					\
}

LOOP_PROG(none, saddr == 0)
LOOP_PROG(kfunc, by_kfunc(ctx, saddr))
LOOP_PROG(bloom_map, by_bloom_map(saddr))
LOOP_PROG(hash, by_hash(saddr))
LOOP_PROG(lpm, by_lpm(saddr))

char LICENSE[] SEC("license") = "GPL";
