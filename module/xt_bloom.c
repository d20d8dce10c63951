// SPDX-License-Identifier: GPL-2.0
/*
 * xt_bloom: match packets whose address, port, flow or digest is in a
 * Bloom filter of bloom.ko. The rule holds the filter (bloom_get() at
 * checkentry, bloom_put() at destroy), so the packet path only builds a
 * key on the stack and probes: no lock, no allocation.
 *
 * Revision 1 adds the packet digest key; its match info is revision 0's
 * with a padding byte given a meaning, so one match function serves
 * revisions 0 to 2 (revision 0's checkentry keeps that byte zero).
 * Revision 3 matches on a static map's values: a layout of its own, the
 * same key and lookup code.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/netfilter/x_tables.h>
#include <linux/skbuff.h>
#include <net/ipv6.h>
#include "../uapi/xt_bloom.h"
#include "bloom.h"

union bloom_mt_key {
	struct bloom_key_addr addr;
	struct bloom_key_addr_port ap;
	struct bloom_key_flow flow;
	struct bloom_key_digest digest;
};

/* put_addr() and pkt_addr() store struct in6_addr into key fields. */
static_assert(__alignof__(union bloom_mt_key) >= __alignof__(struct in6_addr));
static_assert(sizeof(struct xt_bloom_mtinfo0) ==
	      sizeof(struct xt_bloom_mtinfo1));
static_assert(offsetof(struct xt_bloom_mtinfo0, pad) ==
	      offsetof(struct xt_bloom_mtinfo1, digest_bytes));
static_assert(offsetof(struct xt_bloom_mtinfo0, filter) ==
	      offsetof(struct xt_bloom_mtinfo1, filter));
static_assert(sizeof(struct xt_bloom_mtinfo1) ==
	      sizeof(struct xt_bloom_mtinfo2));
static_assert(offsetof(struct xt_bloom_mtinfo1, filter) ==
	      offsetof(struct xt_bloom_mtinfo2, filter));
static_assert(offsetof(struct xt_bloom_mtinfo3, ranges) % 4 == 0);
static_assert((XT_BLOOM_FLAGS_ALL & (XT_BLOOM_VALUE | XT_BLOOM_VALUE_INVERT)) == 0);

/* What forms a rule's key: every revision has these fields. */
struct bloom_mt_rule {
	u8 key_type;
	u8 flags;
	u8 digest_bytes;
};

/*
 * IPv4 addresses are keyed v4-mapped, so one filter holds both families.
 * Addresses move as struct in6_addr, by word stores: no memcpy() or
 * memset() call per packet where the compiler may not inline them.
 */
struct pkt {
	struct in6_addr saddr, daddr;
	u8 proto;
	int thoff;		/* transport header, or -1 if unknown */
	bool fragment;		/* not the first fragment: no ports */
};

/* Ports are needed only by the addr,port and flow keys. */
static bool wants_ports(u8 key_type)
{
	return key_type == BLOOM_KEY_ADDR_PORT || key_type == BLOOM_KEY_FLOW;
}

/*
 * The match is registered for IPv4 and IPv6 only, so the network header
 * is one of the two, already pulled and checked by the IP stack.
 */
static void parse(const struct sk_buff *skb, struct xt_action_param *par,
		  u8 key_type, struct pkt *p)
{
	p->proto = 0;
	p->thoff = -1;
	p->fragment = false;
	if (xt_family(par) == NFPROTO_IPV4) {
		const struct iphdr *iph = ip_hdr(skb);

		ipv6_addr_set_v4mapped(iph->saddr, &p->saddr);
		ipv6_addr_set_v4mapped(iph->daddr, &p->daddr);
		p->proto = iph->protocol;
		p->thoff = par->thoff;
		p->fragment = par->fragoff != 0;
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);
		unsigned int thoff = 0;
		unsigned short frag = 0;
		int proto;

		p->saddr = ip6h->saddr;
		p->daddr = ip6h->daddr;
		if (!wants_ports(key_type))
			return;
		proto = ipv6_find_hdr(skb, &thoff, -1, &frag, NULL);
		p->proto = proto < 0 ? 0 : proto;
		p->thoff = proto < 0 ? -1 : thoff;
		p->fragment = frag != 0;
	}
}

/* Source and destination port; false if the packet does not show them. */
static bool ports(const struct sk_buff *skb, struct xt_action_param *par,
		  const struct pkt *p, __be16 *sport, __be16 *dport)
{
	__be16 _ports[2];
	const __be16 *pp;

	switch (p->proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		break;
	default:
		return false;
	}
	if (p->fragment || p->thoff < 0)
		return false;
	pp = skb_header_pointer(skb, p->thoff, sizeof(_ports), _ports);
	if (!pp) {
		/* Claims a transport header it does not carry: drop it. */
		par->hotdrop = true;
		return false;
	}
	*sport = pp[0];
	*dport = pp[1];
	return true;
}

/*
 * A key's 16-byte address field. Every one starts at offset 0 or 16 of
 * the union, which the digest key's 32-bit fields align to 4 bytes, as
 * struct in6_addr needs.
 */
static void put_addr(u8 *field, const struct in6_addr *a)
{
	*(struct in6_addr *)field = *a;
}

/*
 * The addr and net keys' one address, v4-mapped for IPv4, into @a: the
 * common case, without parse()'s other fields.
 */
static void pkt_addr(const struct sk_buff *skb,
		     const struct xt_action_param *par, bool dst,
		     struct in6_addr *a)
{
	if (xt_family(par) == NFPROTO_IPV4) {
		const struct iphdr *iph = ip_hdr(skb);

		ipv6_addr_set_v4mapped(dst ? iph->daddr : iph->saddr, a);
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		*a = dst ? ip6h->daddr : ip6h->saddr;
	}
}

/* Builds an addr,port or flow key; returns its length or 0. */
static size_t make_key(const struct sk_buff *skb, struct xt_action_param *par,
		       const struct bloom_mt_rule *r, const struct pkt *p,
		       union bloom_mt_key *k)
{
	bool dst = r->flags & XT_BLOOM_DST;
	__be16 sport, dport;

	switch (r->key_type) {
	case BLOOM_KEY_ADDR_PORT:
		if (!ports(skb, par, p, &sport, &dport))
			return 0;
		memset(&k->ap, 0, sizeof(k->ap));	/* padding is hashed */
		put_addr(k->ap.addr, dst ? &p->daddr : &p->saddr);
		k->ap.port = dst ? dport : sport;
		k->ap.proto = p->proto;
		return sizeof(k->ap);
	case BLOOM_KEY_FLOW:
		if (!ports(skb, par, p, &sport, &dport))
			return 0;
		memset(&k->flow, 0, sizeof(k->flow));
		put_addr(k->flow.saddr, &p->saddr);
		put_addr(k->flow.daddr, &p->daddr);
		k->flow.sport = sport;
		k->flow.dport = dport;
		k->flow.proto = p->proto;
		return sizeof(k->flow);
	default:
		return 0;
	}
}

/*
 * The packet's digest key; 0 if it has none (cut short inside its
 * headers, or an impossible length): then the rule neither matches nor
 * inverts, and the IP stack drops what is malformed. A drop here would
 * be one the rule did not ask for, even under "!".
 */
static size_t make_digest(const struct sk_buff *skb,
			  const struct bloom_mt_rule *r, union bloom_mt_key *k)
{
	if (bloom_digest_skb(skb, r->digest_bytes, &k->digest))
		return 0;
	return sizeof(k->digest);
}

/*
 * Looks the packet's key up in @f; false if the packet has no key. With
 * @value, the member's value too (update mode has none: refused).
 */
static bool probe(const struct sk_buff *skb, struct xt_action_param *par,
		  const struct bloom_mt_rule *r, struct bloom_filter *f,
		  bool *hit, u32 *value)
{
	/*
	 * Not zeroed on entry (CONFIG_INIT_STACK_ALL_ZERO would clear these
	 * 208 bytes for every packet): parse() sets every field of p, and
	 * every byte of the key that is hashed is written first, padding
	 * included: by pkt_addr() (addr), make_key()'s memset() (addr,port
	 * and flow) or bloom_digest_build()'s (digest).
	 */
	union bloom_mt_key key __uninitialized;
	struct pkt p __uninitialized;
	struct in6_addr *addr = (struct in6_addr *)key.addr.addr;
	size_t len;

	switch (r->key_type) {
	case BLOOM_KEY_DIGEST:
		len = make_digest(skb, r, &key);
		break;
	case BLOOM_KEY_NET:
		pkt_addr(skb, par, r->flags & XT_BLOOM_DST, addr);
		*hit = value ? bloom_value_net(f, addr->s6_addr, value) :
			       bloom_test_net(f, addr->s6_addr);
		return true;
	case BLOOM_KEY_ADDR:	/* every byte written: no padding to clear */
		pkt_addr(skb, par, r->flags & XT_BLOOM_DST, addr);
		len = sizeof(key.addr);
		break;
	default:
		parse(skb, par, r->key_type, &p);
		len = make_key(skb, par, r, &p, &key);
	}
	if (!len)
		return false;	/* no key: neither in nor out of the filter */
	if (value)
		*hit = bloom_value(f, &key, len, value);
	else if (r->flags & XT_BLOOM_UPDATE)
		*hit = bloom_test_and_add(f, &key, len) == 1;
	else
		*hit = bloom_test(f, &key, len);
	return true;
}

/* Revisions 0 to 2: their match infos share a layout. */
static bool bloom_mt(const struct sk_buff *skb, struct xt_action_param *par)
{
	const struct xt_bloom_mtinfo1 *info = par->matchinfo;
	const struct bloom_mt_rule r = {
		.key_type = info->key_type,
		.flags = info->flags,
		.digest_bytes = info->digest_bytes,
	};
	bool hit;

	if (!probe(skb, par, &r, info->filter, &hit, NULL))
		return false;
	return hit ^ !!(info->flags & XT_BLOOM_INVERT);
}

static bool value_in(const struct xt_bloom_mtinfo3 *info, u32 value)
{
	unsigned int i;

	for (i = 0; i < info->nranges; i++)
		if (value >= info->ranges[i].min &&
		    value <= info->ranges[i].max)
			return true;
	return false;
}

/*
 * Revision 3: with XT_BLOOM_VALUE a member matches when its value is in
 * a range (XT_BLOOM_VALUE_INVERT: in none); a non-member never does.
 * XT_BLOOM_INVERT then inverts that whole answer.
 */
static bool bloom_mt3(const struct sk_buff *skb, struct xt_action_param *par)
{
	const struct xt_bloom_mtinfo3 *info = par->matchinfo;
	const struct bloom_mt_rule r = {
		.key_type = info->key_type,
		.flags = info->flags,
		.digest_bytes = info->digest_bytes,
	};
	bool want = info->flags & XT_BLOOM_VALUE;
	u32 value = 0;
	bool hit;

	if (!probe(skb, par, &r, info->filter, &hit, want ? &value : NULL))
		return false;
	if (hit && want)
		hit = value_in(info, value) ^
		      !!(info->flags & XT_BLOOM_VALUE_INVERT);
	return hit ^ !!(info->flags & XT_BLOOM_INVERT);
}

/* What revision 1 adds: the digest key and its payload length. */
static int check_digest(const struct bloom_mt_rule *r)
{
	if (r->key_type != BLOOM_KEY_DIGEST) {
		if (!r->digest_bytes)
			return 0;
		pr_info_ratelimited("bloom: a payload length is for digest keys only\n");
		return -EINVAL;
	}
	if (r->digest_bytes > BLOOM_DIGEST_BYTES_MAX) {
		pr_info_ratelimited("bloom: a digest takes at most %d payload bytes, not %u\n",
				    BLOOM_DIGEST_BYTES_MAX, r->digest_bytes);
		return -ERANGE;
	}
	if (r->flags & XT_BLOOM_DST) {
		pr_info_ratelimited("bloom: a digest has no direction\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * The name and key fields, flags already checked against the revision's:
 * @key_max ends the key types the revision knows.
 */
static int check_rule(const char *name, const struct bloom_mt_rule *r,
		      u8 key_max)
{
	/* Checked before anything prints it: no newline or escape in the log. */
	if (bloom_name_check(name)) {
		pr_info_ratelimited("bloom: a rule names a filter by an invalid name\n");
		return -EINVAL;
	}
	if (r->key_type == BLOOM_KEY_DIGEST_V1) {
		pr_info_ratelimited("bloom: digest keys changed: a %s rule is refused; update libxt_bloom (iptables) and recreate the filter with bloomctl create --key digest\n",
				    bloom_key_type_name(r->key_type));
		return -EINVAL;
	}
	if (r->key_type == BLOOM_KEY_BYTES || r->key_type >= key_max) {
		pr_info_ratelimited("bloom: a rule of this revision cannot form %s keys\n",
				    bloom_key_type_name(r->key_type));
		return -EINVAL;
	}
	if (r->key_type == BLOOM_KEY_NET && (r->flags & XT_BLOOM_UPDATE)) {
		pr_info_ratelimited("bloom: update mode cannot add prefixes\n");
		return -EINVAL;
	}
	return check_digest(r);
}

/* Revisions 0 to 2: every field but the filter's. */
static int check_info(const struct xt_bloom_mtinfo1 *info, u8 key_max)
{
	const struct bloom_mt_rule r = {
		.key_type = info->key_type,
		.flags = info->flags,
		.digest_bytes = info->digest_bytes,
	};

	if ((info->flags & ~XT_BLOOM_FLAGS_ALL) ||
	    memchr_inv(info->pad, 0, sizeof(info->pad)))
		return -EINVAL;
	return check_rule(info->name, &r, key_max);
}

/*
 * A dual-stack filter, or one of the rule's family (fixed for life).
 * The match is registered for IPv4 and IPv6 only.
 */
static bool family_matches(const struct xt_mtchk_param *par,
			   const struct bloom_filter *f)
{
	u16 family = bloom_family(f);

	switch (par->family) {
	case NFPROTO_IPV4:
		return family != BLOOM_F_INET6;
	case NFPROTO_IPV6:
		return family != BLOOM_F_INET;
	default:
		return false;
	}
}

/* Takes the filter the rule names, if its key type and family fit. */
static int hold_filter(const struct xt_mtchk_param *par, const char *name,
		       u8 key_type, struct bloom_filter **filter)
{
	struct bloom_filter *f;
	u8 type;

	f = bloom_get(par->net, name);
	if (IS_ERR(f)) {
		pr_info_ratelimited("bloom: no filter named \"%s\"\n", name);
		return -ENOENT;
	}
	type = bloom_key_type(f);
	if (type != key_type) {
		pr_info_ratelimited("bloom: filter \"%s\" holds %s keys, the rule forms %s keys\n",
				    name, bloom_key_type_name(type),
				    bloom_key_type_name(key_type));
		bloom_put(f);
		return -EINVAL;
	}
	if (!family_matches(par, f)) {
		pr_info_ratelimited("bloom: filter \"%s\" holds keys of one family (bloomctl create --family): a rule of the other cannot use it\n",
				    name);
		bloom_put(f);
		return -EINVAL;
	}
	*filter = f;
	return 0;
}

/*
 * Revision 0 knows no digest: its digest_bytes is padding, kept zero,
 * and its key types end before the first digest's.
 */
static int bloom_mt_check0(const struct xt_mtchk_param *par)
{
	struct xt_bloom_mtinfo1 *info = par->matchinfo;
	int err;

	if (info->digest_bytes)
		return -EINVAL;
	err = check_info(info, BLOOM_KEY_DIGEST_V1);
	return err ?: hold_filter(par, info->name, info->key_type,
				  &info->filter);
}

/* Revision 1's digest is the retired one: refused in check_rule(). */
static int bloom_mt_check1(const struct xt_mtchk_param *par)
{
	struct xt_bloom_mtinfo1 *info = par->matchinfo;
	int err = check_info(info, BLOOM_KEY_DIGEST_V1 + 1);

	return err ?: hold_filter(par, info->name, info->key_type,
				  &info->filter);
}

static int bloom_mt_check2(const struct xt_mtchk_param *par)
{
	struct xt_bloom_mtinfo1 *info = par->matchinfo;
	int err = info->key_type == BLOOM_KEY_DIGEST_V1 ? -EINVAL :
		  check_info(info, BLOOM_KEY_MAX);

	return err ?: hold_filter(par, info->name, info->key_type,
				  &info->filter);
}

/* Revision 3's value ranges, and that they go with its flags. */
static int check_values(const struct xt_bloom_mtinfo3 *info)
{
	unsigned int i, n = info->nranges;

	if (!(info->flags & XT_BLOOM_VALUE)) {
		if (info->flags & XT_BLOOM_VALUE_INVERT) {
			pr_info_ratelimited("bloom: a value inversion without a value match\n");
			return -EINVAL;
		}
		if (n || memchr_inv(info->ranges, 0, sizeof(info->ranges))) {
			pr_info_ratelimited("bloom: value ranges without a value match\n");
			return -EINVAL;
		}
		return 0;
	}
	if (info->flags & XT_BLOOM_UPDATE) {
		pr_info_ratelimited("bloom: a value match cannot go with update mode (packets add no values)\n");
		return -EINVAL;
	}
	if (!n || n > XT_BLOOM_VALUE_RANGES) {
		pr_info_ratelimited("bloom: a value match takes 1 to %d ranges, not %u\n",
				    XT_BLOOM_VALUE_RANGES, n);
		return -ERANGE;
	}
	for (i = 0; i < n; i++) {
		if (info->ranges[i].min > info->ranges[i].max) {
			pr_info_ratelimited("bloom: value range %u is %u:%u, its start above its end\n",
					    i + 1, info->ranges[i].min,
					    info->ranges[i].max);
			return -EINVAL;
		}
	}
	if (memchr_inv(info->ranges + n, 0,
		       sizeof(info->ranges[0]) * (XT_BLOOM_VALUE_RANGES - n))) {
		pr_info_ratelimited("bloom: value ranges past the %u used are not zero\n",
				    n);
		return -EINVAL;
	}
	return 0;
}

static int bloom_mt_check3(const struct xt_mtchk_param *par)
{
	struct xt_bloom_mtinfo3 *info = par->matchinfo;
	const struct bloom_mt_rule r = {
		.key_type = info->key_type,
		.flags = info->flags,
		.digest_bytes = info->digest_bytes,
	};
	int err;

	if ((info->flags & ~XT_BLOOM_FLAGS_ALL3) ||
	    memchr_inv(info->pad, 0, sizeof(info->pad))) {
		pr_info_ratelimited("bloom: unknown flags or padding in a rule\n");
		return -EINVAL;
	}
	err = info->key_type == BLOOM_KEY_DIGEST_V1 ? -EINVAL :
	      check_rule(info->name, &r, BLOOM_KEY_MAX);
	err = err ?: check_values(info);
	return err ?: hold_filter(par, info->name, info->key_type,
				  &info->filter);
}

/* Revisions 0 to 2: the layouts match. */
static void bloom_mt_destroy(const struct xt_mtdtor_param *par)
{
	const struct xt_bloom_mtinfo1 *info = par->matchinfo;

	bloom_put(info->filter);
}

static void bloom_mt_destroy3(const struct xt_mtdtor_param *par)
{
	const struct xt_bloom_mtinfo3 *info = par->matchinfo;

	bloom_put(info->filter);
}

/*
 * IPv4 and IPv6 only: ebtables and the bridge and ARP families of
 * nft_compat fall back to NFPROTO_UNSPEC matches, and their frames have
 * no IP header for parse() to read.
 */
#define BLOOM_MT_REG(rev, fam, fn, dtor) {				\
	.name = "bloom",						\
	.revision = (rev),						\
	.family = (fam),						\
	.match = (fn),							\
	.checkentry = bloom_mt_check##rev,				\
	.destroy = (dtor),						\
	.matchsize = sizeof(struct xt_bloom_mtinfo##rev),		\
	.usersize = offsetof(struct xt_bloom_mtinfo##rev, filter),	\
	.me = THIS_MODULE,						\
}

static struct xt_match bloom_mt_reg[] __read_mostly = {
	BLOOM_MT_REG(0, NFPROTO_IPV4, bloom_mt, bloom_mt_destroy),
	BLOOM_MT_REG(0, NFPROTO_IPV6, bloom_mt, bloom_mt_destroy),
	BLOOM_MT_REG(1, NFPROTO_IPV4, bloom_mt, bloom_mt_destroy),
	BLOOM_MT_REG(1, NFPROTO_IPV6, bloom_mt, bloom_mt_destroy),
	BLOOM_MT_REG(2, NFPROTO_IPV4, bloom_mt, bloom_mt_destroy),
	BLOOM_MT_REG(2, NFPROTO_IPV6, bloom_mt, bloom_mt_destroy),
	BLOOM_MT_REG(3, NFPROTO_IPV4, bloom_mt3, bloom_mt_destroy3),
	BLOOM_MT_REG(3, NFPROTO_IPV6, bloom_mt3, bloom_mt_destroy3),
};

static int __init bloom_mt_init(void)
{
	return xt_register_matches(bloom_mt_reg, ARRAY_SIZE(bloom_mt_reg));
}

static void __exit bloom_mt_exit(void)
{
	xt_unregister_matches(bloom_mt_reg, ARRAY_SIZE(bloom_mt_reg));
}

module_init(bloom_mt_init);
module_exit(bloom_mt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Xtables: match addresses, ports, flows and packet digests in a Bloom filter, or by a static map's values");
MODULE_ALIAS("ipt_bloom");
MODULE_ALIAS("ip6t_bloom");
