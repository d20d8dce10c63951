// SPDX-License-Identifier: GPL-2.0
/*
 * Packet digest keys from an skb, for xt_bloom and any other module: the
 * IP headers are found here, the key is built by core/digest.c.
 */
#include <linux/export.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include "bloom.h"
#include "core/bloom_core.h"

static void map_v4(u8 *out, __be32 v4)
{
	memset(out, 0, 10);
	out[10] = 0xff;
	out[11] = 0xff;
	memcpy(out + 12, &v4, 4);
}

/*
 * An IPv4 packet's length. An aggregate over 64 KiB (BIG TCP, GRO or GSO)
 * has a zero tot_len and ends with the skb: iph_totlen() of 6.3 and
 * later, spelled out for older kernels.
 */
static unsigned int v4_len(const struct sk_buff *skb,
			   const struct iphdr *iph, unsigned int noff)
{
	unsigned int len = ntohs(iph->tot_len);

	if (len || !skb_is_gso(skb) || !skb_is_gso_tcp(skb))
		return len;
	return skb->len - noff;
}

/*
 * The IPv4 header: addresses, protocol, whether a later fragment. Sets
 * *@end to the packet's end as the header says; returns the transport
 * header's offset or -EBADMSG.
 */
static int parse_v4(const struct sk_buff *skb, struct bloom_digest_pkt *p,
		    u8 *saddr, u8 *daddr, unsigned int *end)
{
	unsigned int noff = skb_network_offset(skb);
	const struct iphdr *iph;
	struct iphdr _iph;

	iph = skb_header_pointer(skb, noff, sizeof(_iph), &_iph);
	if (!iph || iph->ihl < 5 || v4_len(skb, iph, noff) < iph->ihl * 4)
		return -EBADMSG;
	map_v4(saddr, iph->saddr);
	map_v4(daddr, iph->daddr);
	p->proto = iph->protocol;
	p->fragment = (iph->frag_off & htons(IP_OFFSET)) != 0;
	p->frag_id = ntohs(iph->id);
	p->frag_off = (ntohs(iph->frag_off) & IP_OFFSET) << 3;
	*end = noff + v4_len(skb, iph, noff);
	return noff + iph->ihl * 4;
}

/*
 * Skips IPv6 extension headers from @off, as ipv6_skip_exthdr() does, but
 * stops at "no next header" (59) as at a protocol: such a packet is keyed
 * on what follows its last header. A later fragment stops the walk at its
 * fragment header (*@nexthdr is NEXTHDR_FRAGMENT, *@frag_off not zero).
 */
static int skip_exthdr(const struct sk_buff *skb, int off, u8 *nexthdr,
		       __be16 *frag_off)
{
	while (ipv6_ext_hdr(*nexthdr) && *nexthdr != NEXTHDR_NONE) {
		const struct ipv6_opt_hdr *hp;
		struct ipv6_opt_hdr _hp;
		unsigned int hdrlen;

		hp = skb_header_pointer(skb, off, sizeof(_hp), &_hp);
		if (!hp)
			return -EBADMSG;
		if (*nexthdr == NEXTHDR_FRAGMENT) {
			const __be16 *fp;
			__be16 _fp;

			fp = skb_header_pointer(skb, off +
						offsetof(struct frag_hdr,
							 frag_off),
						sizeof(_fp), &_fp);
			if (!fp)
				return -EBADMSG;
			*frag_off = *fp;
			if (*fp & htons(IP6_OFFSET))
				return off;
			hdrlen = 8;
		} else if (*nexthdr == NEXTHDR_AUTH) {
			hdrlen = ipv6_authlen(hp);
		} else {
			hdrlen = ipv6_optlen(hp);
		}
		*nexthdr = hp->nexthdr;
		off += hdrlen;
	}
	return off;
}

/*
 * The IPv6 header and its extension headers. A later fragment stops the
 * walk at its fragment header: the protocol is that header's next
 * header, and the fragment's data follows it.
 */
static int parse_v6(const struct sk_buff *skb, struct bloom_digest_pkt *p,
		    u8 *saddr, u8 *daddr, unsigned int *end)
{
	unsigned int noff = skb_network_offset(skb);
	const struct ipv6hdr *ip6h;
	struct ipv6hdr _ip6h;
	const struct frag_hdr *fh;
	struct frag_hdr _fh;
	__be16 frag_off = 0;
	u8 nexthdr;
	int off;

	ip6h = skb_header_pointer(skb, noff, sizeof(_ip6h), &_ip6h);
	if (!ip6h)
		return -EBADMSG;
	memcpy(saddr, &ip6h->saddr, 16);
	memcpy(daddr, &ip6h->daddr, 16);
	p->ipv6 = true;
	/* A zero payload length is a jumbogram's: it ends with the skb. */
	*end = ip6h->payload_len ?
	       noff + sizeof(*ip6h) + ntohs(ip6h->payload_len) : skb->len;
	nexthdr = ip6h->nexthdr;
	off = skip_exthdr(skb, noff + sizeof(*ip6h), &nexthdr, &frag_off);
	if (off < 0)
		return -EBADMSG;
	p->fragment = (frag_off & htons(IP6_OFFSET)) != 0;
	if (!p->fragment) {
		p->proto = nexthdr;
		return off;
	}
	fh = skb_header_pointer(skb, off, sizeof(_fh), &_fh);
	if (!fh)
		return -EBADMSG;
	p->proto = fh->nexthdr;
	p->frag_id = ntohl(fh->identification);
	p->frag_off = ntohs(fh->frag_off) & IP6_OFFSET;
	return off + sizeof(struct frag_hdr);
}

/**
 * bloom_digest_skb() - the digest key of an IPv4 or IPv6 packet
 * @skb: the packet, its network header set (any netfilter hook)
 * @nbytes: payload bytes to take, 0 to BLOOM_DIGEST_BYTES_MAX
 * @key: filled here, every byte (see struct bloom_key_digest)
 *
 * Reads the packet with skb_header_pointer(): a nonlinear skb is fine,
 * nothing is written, nothing allocated, no lock taken, so it is
 * callable from any context, softirq included.
 *
 * An IPv4 aggregate over 64 KiB (tot_len 0) is read to the skb's end, an
 * IPv6 packet with no next header (59) is keyed on its addresses, length
 * and the bytes after its last header, with @key->proto 59. The digest
 * of an aggregate (GRO or GSO) describes the aggregate: the first
 * segment's headers and the length of all of them.
 *
 * Return: 0; -EINVAL if @nbytes is over the maximum or the packet is not
 * IP; -EBADMSG if it is cut short inside its headers or its length field
 * is impossible. With an error there is no key: xt_bloom neither matches
 * nor inverts on the packet; the IP stack drops a malformed one itself.
 */
int bloom_digest_skb(const struct sk_buff *skb, unsigned int nbytes,
		     struct bloom_key_digest *key)
{
	u8 saddr[16], daddr[16], buf[BLOOM_DIGEST_READ_MAX], _v;
	struct bloom_digest_pkt p = { .saddr = saddr, .daddr = daddr };
	unsigned int end;
	const u8 *v;
	int off;

	v = skb_header_pointer(skb, skb_network_offset(skb), 1, &_v);
	if (!v)
		return -EBADMSG;
	if (*v >> 4 == 4)
		off = parse_v4(skb, &p, saddr, daddr, &end);
	else if (*v >> 4 == 6)
		off = parse_v6(skb, &p, saddr, daddr, &end);
	else
		return -EINVAL;
	if (off < 0 || end > skb->len || off > end)
		return -EBADMSG;
	p.l4_len = end - off;
	p.l4 = skb_header_pointer(skb, off,
				  min_t(u32, p.l4_len, BLOOM_DIGEST_READ_MAX),
				  buf);
	if (!p.l4)
		return -EBADMSG;
	return bloom_digest_build(key, &p, nbytes);
}
EXPORT_SYMBOL_GPL(bloom_digest_skb);
