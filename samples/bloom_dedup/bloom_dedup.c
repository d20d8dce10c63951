// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_dedup: drop duplicate UDP datagrams, a sample user of bloom.ko's
 * in-kernel API (module/bloom.h). Copy it as a model: it uses nothing of
 * bloom.ko but the exported functions.
 *
 *   bloomctl create dups --capacity 1M --fp-rate 1e-6 --key digest
 *   insmod bloom_dedup.ko filter=dups [digest_bytes=64]
 *
 * Every IPv4 and IPv6 UDP datagram (or fragment of one) entering a
 * namespace that had a digest filter named @filter when the module was
 * loaded has its digest key (struct bloom_key_digest: addresses, ports,
 * length and the first @digest_bytes payload bytes) tested and added in
 * one step; if it was there already the datagram is a duplicate and is
 * dropped. The counters are read-only parameters:
 * /sys/module/bloom_dedup/parameters/{dropped,passed}.
 *
 * Finding the filter. bloom_get() looks a filter up by name in one
 * namespace and holds it: while held it cannot be destroyed (bloomctl
 * destroy fails with EBUSY), though it may be cleared or swapped, which
 * this module sees at once. The lookup is done once per namespace, in
 * process context, when the module is loaded (and, for namespaces made
 * later, when they are made - when they cannot have the filter yet).
 * A namespace without the filter then gets no hook at all and passes
 * everything at no cost; a filter of another key type refuses the load.
 * So: create the filter first, then load the module. The hold is
 * released with bloom_put() when the namespace or the module goes,
 * after the hooks are gone.
 *
 * Softirq safety. The hook runs in softirq (or with bottom halves
 * disabled): it must not sleep or take a lock a process could hold.
 * bloom_digest_skb() only reads the packet into a stack buffer, and
 * bloom_test_and_add() is lockless (atomic bit operations under RCU), so
 * both are safe here and on many CPUs at once. Of two copies racing on
 * two CPUs, at least one is told "new" and passes: dedup never drops
 * both. The filter pointer is set before the hooks are registered and
 * released only after nf_unregister_net_hooks(), which waits for hooks
 * still running, so no packet sees a released filter.
 *
 * The window. A plain filter remembers every datagram until it is
 * cleared (bloomctl clear); it also fills up: past its capacity bloom.ko
 * stops adding new keys (bloom_test_and_add() returns -ENOSPC, the
 * datagram passes), so dedup fails open, never closed. An aging filter
 * (G generations rotated every T) forgets what is older than its window,
 * which is what "drop a duplicate seen in the last T" needs: a copy
 * within the window is dropped, a later one passes as new; size it for
 * the datagrams of one window.
 *
 * False positives. A Bloom filter sometimes says "seen" for a key never
 * added: here that drops a unique datagram. The rate is the filter's
 * false-positive rate at its fill, about (1 - e^(-kn/m))^k for n
 * datagrams remembered in m bits with k hashes, which bloomctl create
 * --capacity N --fp-rate P keeps under P for up to N datagrams (per
 * window, for an aging filter). UDP is lossy anyway, so applications
 * cope, but the dedup adds up to P to the path's loss: choose P well
 * below the loss the traffic already sees (1e-6 costs about 29 bits per
 * datagram remembered). Fewer @digest_bytes make distinct datagrams of
 * equal length and equal first bytes look alike: that is not a false
 * positive of the filter but of the key; take as many as distinguish
 * your traffic (at most BLOOM_DIGEST_BYTES_MAX).
 */
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include "../../module/bloom.h"

static char *filter;
module_param(filter, charp, 0444);
MODULE_PARM_DESC(filter, "name of the digest filter in each namespace");

static unsigned int digest_bytes = BLOOM_DIGEST_BYTES_MAX;
module_param(digest_bytes, uint, 0444);
MODULE_PARM_DESC(digest_bytes, "payload bytes in a digest key (0 to 64)");

struct dedup_stats {
	unsigned long dropped;
	unsigned long passed;
};

/* Per CPU: the hook counts without sharing a cache line between CPUs. */
static DEFINE_PER_CPU(struct dedup_stats, dedup_stats);

static int stat_get(char *buf, const struct kernel_param *kp)
{
	size_t off = (size_t)kp->arg;
	unsigned long sum = 0;
	int cpu;

	/* A racy sum is fine: each per-CPU word is read whole. */
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*(unsigned long *)
				 ((char *)per_cpu_ptr(&dedup_stats, cpu) + off));
	return sysfs_emit(buf, "%lu\n", sum);
}

static const struct kernel_param_ops stat_ops = { .get = stat_get };
module_param_cb(dropped, &stat_ops,
		(void *)offsetof(struct dedup_stats, dropped), 0444);
MODULE_PARM_DESC(dropped, "duplicate datagrams dropped (all namespaces)");
module_param_cb(passed, &stat_ops,
		(void *)offsetof(struct dedup_stats, passed), 0444);
MODULE_PARM_DESC(passed, "UDP datagrams passed (all namespaces)");

/* What one namespace holds; the hooks' priv is the filter itself. */
struct dedup_net {
	struct bloom_filter *filter;	/* NULL: no filter, no hooks */
	struct nf_hook_ops ops[2];
};

static unsigned int dedup_net_id __read_mostly;

static unsigned int dedup_hook(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	struct bloom_key_digest key;	/* 168 bytes on the stack */

	/*
	 * A packet cut short inside its headers has no key: leave it to
	 * the IP stack, which drops it. Not UDP: not ours.
	 */
	if (bloom_digest_skb(skb, digest_bytes, &key) ||
	    key.proto != IPPROTO_UDP)
		return NF_ACCEPT;
	/* 1: seen before. 0: new, now added. -ENOSPC: new, filter full. */
	if (bloom_test_and_add(priv, &key, sizeof(key)) == 1) {
		this_cpu_inc(dedup_stats.dropped);
		return NF_DROP;
	}
	this_cpu_inc(dedup_stats.passed);
	return NF_ACCEPT;
}

/*
 * Before connection tracking, so a duplicate costs no conntrack lookup;
 * after defragmentation when conntrack has loaded it (then a datagram is
 * keyed whole, else each fragment on its own).
 */
static const struct nf_hook_ops dedup_ops[] = {
	{ .hook = dedup_hook, .pf = NFPROTO_IPV4,
	  .hooknum = NF_INET_PRE_ROUTING, .priority = NF_IP_PRI_RAW + 1 },
	{ .hook = dedup_hook, .pf = NFPROTO_IPV6,
	  .hooknum = NF_INET_PRE_ROUTING, .priority = NF_IP6_PRI_RAW + 1 },
};

/* Process context: when the module loads, or a namespace is made. */
static int __net_init dedup_net_init(struct net *net)
{
	struct dedup_net *dn = net_generic(net, dedup_net_id);
	struct bloom_filter *f = bloom_get(net, filter);
	int err;

	if (IS_ERR(f))
		return 0;	/* no filter here: no hooks, all passes */
	/*
	 * A wrong filter in the initial namespace is the administrator's
	 * mistake: refuse to load. Elsewhere a namespace's own root chose
	 * the name, and must not keep the module from loading for all.
	 */
	if (bloom_key_type(f) != BLOOM_KEY_DIGEST) {
		pr_warn("bloom_dedup: filter \"%s\" does not hold digest keys%s\n",
			filter, net_eq(net, &init_net) ? "" :
			" in a namespace: no dedup there");
		bloom_put(f);
		return net_eq(net, &init_net) ? -EINVAL : 0;
	}
	memcpy(dn->ops, dedup_ops, sizeof(dn->ops));
	dn->ops[0].priv = f;
	dn->ops[1].priv = f;
	err = nf_register_net_hooks(net, dn->ops, ARRAY_SIZE(dn->ops));
	if (err) {
		bloom_put(f);
		return err;
	}
	dn->filter = f;
	return 0;
}

static void __net_exit dedup_net_exit(struct net *net)
{
	struct dedup_net *dn = net_generic(net, dedup_net_id);

	if (!dn->filter)
		return;
	/* Waits for hooks in flight: none uses the filter after this. */
	nf_unregister_net_hooks(net, dn->ops, ARRAY_SIZE(dn->ops));
	bloom_put(dn->filter);
	dn->filter = NULL;
}

static struct pernet_operations dedup_net_ops = {
	.init = dedup_net_init,
	.exit = dedup_net_exit,
	.id = &dedup_net_id,
	.size = sizeof(struct dedup_net),
};

static int __init dedup_init(void)
{
	if (!filter || !*filter || strlen(filter) >= BLOOM_NAME_MAX) {
		pr_err("bloom_dedup: filter=NAME (1 to %d characters) is required\n",
		       BLOOM_NAME_MAX - 1);
		return -EINVAL;
	}
	if (digest_bytes > BLOOM_DIGEST_BYTES_MAX) {
		pr_err("bloom_dedup: digest_bytes is at most %d\n",
		       BLOOM_DIGEST_BYTES_MAX);
		return -ERANGE;
	}
	return register_pernet_subsys(&dedup_net_ops);
}

static void __exit dedup_exit(void)
{
	unregister_pernet_subsys(&dedup_net_ops);
}

module_init(dedup_init);
module_exit(dedup_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Sample: drop duplicate UDP datagrams with a bloom.ko filter");
