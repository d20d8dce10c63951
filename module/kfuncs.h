/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BLOOM_KFUNCS_H
#define _BLOOM_KFUNCS_H

#include <linux/types.h>

#ifdef CONFIG_BPF_SYSCALL
void bloom_kfuncs_init(void);

/* The kfuncs (kfuncs.c): called by BPF programs only. */
struct xdp_md;
struct __sk_buff;
int bpf_bloom_xdp_test(struct xdp_md *ctx, u32 id, const void *key,
		       u32 key__sz);
int bpf_bloom_xdp_test_and_add(struct xdp_md *ctx, u32 id, const void *key,
			       u32 key__sz);
int bpf_bloom_skb_test(struct __sk_buff *ctx, u32 id, const void *key,
		       u32 key__sz);
int bpf_bloom_skb_test_and_add(struct __sk_buff *ctx, u32 id,
			       const void *key, u32 key__sz);
struct bpf_nf_ctx;
int bpf_bloom_nf_test(struct bpf_nf_ctx *ctx, u32 id, const void *key,
		      u32 key__sz);
int bpf_bloom_nf_test_and_add(struct bpf_nf_ctx *ctx, u32 id,
			      const void *key, u32 key__sz);
#else
static inline void bloom_kfuncs_init(void) { }
#endif

#endif /* _BLOOM_KFUNCS_H */
