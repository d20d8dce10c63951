// SPDX-License-Identifier: GPL-2.0
/*
 * Kfuncs: XDP, tc (sched_cls) and netfilter-hook (6.4 on) programs test
 * keys in the filters of bloom.ko, and test and add them for dedup. A
 * program names a filter by its id (BLOOM_IOC_ID, "bloomctl info") in
 * the namespace of the device the packet is on (the receive device for
 * XDP, the skb's for tc) or of the hook (the link's, for netfilter).
 *
 * A key is in the filter's own encoding (uapi/bloom.h). A net filter
 * also takes a bare address (struct bloom_key_addr) and then answers for
 * every prefix length it holds, longest first, as the match does.
 *
 * The three program types run inside an RCU read-side section, and each call
 * here takes its own besides: the filter is found in the namespace's id
 * table and read without a reference, a lock or a write to a shared
 * line (the hit and miss counters are per CPU). A program holds no
 * filter: destroy goes ahead under running programs, whose calls then
 * return -ENOENT; a filter found just before it went stays allocated
 * until a grace period after it left the id table (registry.c).
 *
 * Each call returns 1 (present; with _test_and_add: seen before), 0
 * (absent; new, and added), or a negative errno: -ENOENT no such id,
 * -EINVAL a key of the wrong length or type (a zero length or NULL too),
 * -ENOSPC full, -EOPNOTSUPP an add to a static filter, -EAFNOSUPPORT an
 * add of the other family's key to a filter of one family (its test is
 * 0), -ENODEV a tc packet without a device (or a netfilter test run
 * without one).
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/filter.h>
#include <linux/netdevice.h>
#ifdef CONFIG_NETFILTER_BPF_LINK
#include <linux/netfilter.h>
#include <net/netfilter/nf_bpf_link.h>
#endif
#include <linux/skbuff.h>
#include <net/xdp.h>
#include "kfuncs.h"
#include "registry.h"

/*
 * Kernels before 6.4 have no __bpf_kfunc: there a global function is
 * kept as it is, which is all a kfunc needs. Before 6.9 a kfunc set is
 * a BTF_SET8.
 */
#ifndef __bpf_kfunc
#define __bpf_kfunc
#endif
#ifndef BTF_KFUNCS_START
#define BTF_KFUNCS_START BTF_SET8_START
#define BTF_KFUNCS_END BTF_SET8_END
#endif

static int probe(struct net *net, u32 id, const void *key, u32 len, bool add)
{
	struct bloom_filter *f;
	int ret = -ENOENT;

	if (!net)
		return -ENODEV;
	/* The verifier lets a maybe-NULL buffer through for a kfunc. */
	if (!key)
		return -EINVAL;
	rcu_read_lock();
	f = bloom_lookup_id_rcu(net, id);
	if (f)
		ret = bloom_probe_rcu(f, key, len, add);
	rcu_read_unlock();
	return ret;
}

static struct net *xdp_net(struct xdp_md *ctx)
{
	return dev_net(((struct xdp_buff *)ctx)->rxq->dev);
}

static struct net *skb_net(struct __sk_buff *ctx)
{
	struct sk_buff *skb = (struct sk_buff *)ctx;

	return skb->dev ? dev_net(skb->dev) : NULL;
}

/**
 * bpf_bloom_xdp_test() - is a key in a filter? (XDP)
 * @ctx: the program's context
 * @id: the filter's id in the namespace of the receive device
 * @key: the key, on the program's stack or in a map value
 * @key__sz: its length
 *
 * Return: 1 present, 0 absent, or a negative errno (see the top).
 */
__bpf_kfunc int bpf_bloom_xdp_test(struct xdp_md *ctx, u32 id,
				   const void *key, u32 key__sz)
{
	return probe(xdp_net(ctx), id, key, key__sz, false);
}

/**
 * bpf_bloom_xdp_test_and_add() - add a key, saying if it was there (XDP)
 * @ctx: the program's context
 * @id: the filter's id in the namespace of the receive device
 * @key: the key
 * @key__sz: its length
 *
 * As bloom_test_and_add(): on an aging filter a key seen again is
 * renewed.
 *
 * Return: 1 seen before, 0 new, or a negative errno (see the top).
 */
__bpf_kfunc int bpf_bloom_xdp_test_and_add(struct xdp_md *ctx, u32 id,
					   const void *key, u32 key__sz)
{
	return probe(xdp_net(ctx), id, key, key__sz, true);
}

/**
 * bpf_bloom_skb_test() - is a key in a filter? (tc)
 * @ctx: the program's context
 * @id: the filter's id in the namespace of the skb's device
 * @key: the key
 * @key__sz: its length
 *
 * Return: 1 present, 0 absent, or a negative errno (see the top).
 */
__bpf_kfunc int bpf_bloom_skb_test(struct __sk_buff *ctx, u32 id,
				   const void *key, u32 key__sz)
{
	return probe(skb_net(ctx), id, key, key__sz, false);
}

/**
 * bpf_bloom_skb_test_and_add() - add a key, saying if it was there (tc)
 * @ctx: the program's context
 * @id: the filter's id in the namespace of the skb's device
 * @key: the key
 * @key__sz: its length
 *
 * Return: 1 seen before, 0 new, or a negative errno (see the top).
 */
__bpf_kfunc int bpf_bloom_skb_test_and_add(struct __sk_buff *ctx, u32 id,
					   const void *key, u32 key__sz)
{
	return probe(skb_net(ctx), id, key, key__sz, true);
}

#ifdef CONFIG_NETFILTER_BPF_LINK
/*
 * The hook's namespace (6.4 on); BPF_PROG_TEST_RUN leaves it out, and
 * then the devices' is the one.
 */
static struct net *nf_net(struct bpf_nf_ctx *ctx)
{
	const struct nf_hook_state *s = ctx->state;

	if (!s)
		return NULL;
	if (s->net)
		return s->net;
	if (s->in)
		return dev_net(s->in);
	return s->out ? dev_net(s->out) : NULL;
}

/**
 * bpf_bloom_nf_test() - is a key in a filter? (netfilter hook)
 * @ctx: the program's context
 * @id: the filter's id in the namespace of the hook
 * @key: the key
 * @key__sz: its length
 *
 * Return: 1 present, 0 absent, or a negative errno (see the top).
 */
__bpf_kfunc int bpf_bloom_nf_test(struct bpf_nf_ctx *ctx, u32 id,
				  const void *key, u32 key__sz)
{
	return probe(nf_net(ctx), id, key, key__sz, false);
}

/**
 * bpf_bloom_nf_test_and_add() - add a key, saying if it was there
 * @ctx: the program's context
 * @id: the filter's id in the namespace of the hook
 * @key: the key
 * @key__sz: its length
 *
 * Return: 1 seen before, 0 new, or a negative errno (see the top).
 */
__bpf_kfunc int bpf_bloom_nf_test_and_add(struct bpf_nf_ctx *ctx, u32 id,
					  const void *key, u32 key__sz)
{
	return probe(nf_net(ctx), id, key, key__sz, true);
}

BTF_KFUNCS_START(bloom_nf_ids)
BTF_ID_FLAGS(func, bpf_bloom_nf_test)
BTF_ID_FLAGS(func, bpf_bloom_nf_test_and_add)
BTF_KFUNCS_END(bloom_nf_ids)

static const struct btf_kfunc_id_set bloom_nf_set = {
	.owner = THIS_MODULE,
	.set = &bloom_nf_ids,
};

static int register_nf(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_NETFILTER,
					 &bloom_nf_set);
}
#else
/* Before 6.4 no program runs at a netfilter hook. */
static int register_nf(void)
{
	return 0;
}
#endif

BTF_KFUNCS_START(bloom_xdp_ids)
BTF_ID_FLAGS(func, bpf_bloom_xdp_test)
BTF_ID_FLAGS(func, bpf_bloom_xdp_test_and_add)
BTF_KFUNCS_END(bloom_xdp_ids)

BTF_KFUNCS_START(bloom_skb_ids)
BTF_ID_FLAGS(func, bpf_bloom_skb_test)
BTF_ID_FLAGS(func, bpf_bloom_skb_test_and_add)
BTF_KFUNCS_END(bloom_skb_ids)

static const struct btf_kfunc_id_set bloom_xdp_set = {
	.owner = THIS_MODULE,
	.set = &bloom_xdp_ids,
};

static const struct btf_kfunc_id_set bloom_skb_set = {
	.owner = THIS_MODULE,
	.set = &bloom_skb_ids,
};

/*
 * Without its BTF the module still loads, and programs cannot call it:
 * the kernel logs why ("missing module BTF"; 6.12 returns 0 then, older
 * kernels an error), and bloomctl xdp looks for /sys/kernel/btf/bloom.
 */
void bloom_kfuncs_init(void)
{
	int err = register_btf_kfunc_id_set(BPF_PROG_TYPE_XDP, &bloom_xdp_set) ?:
		  register_btf_kfunc_id_set(BPF_PROG_TYPE_SCHED_CLS,
					    &bloom_skb_set) ?:
		  register_nf();

	if (err)
		pr_warn("bloom: kfuncs for XDP, tc and netfilter hooks not registered (error %d): programs cannot call this module\n",
			err);
}
