// SPDX-License-Identifier: GPL-2.0
/*
 * Packet digest keys (struct bloom_key_digest, uapi/bloom.h) from the
 * parts of a packet its reader found. Plain C: the packet path and the
 * native unit tests build keys with this same code, and anything that
 * reads a packet (an skb, a pcap) only has to find its headers.
 */
#include "bloom_core.h"

/* Transport header bytes before the payload, or -1 if cut short. */
static int l4_hdr_len(const struct bloom_digest_pkt *p)
{
	unsigned int doff;

	switch (p->proto) {
	case IPPROTO_TCP:
		if (p->l4_len < 20)
			return -1;
		doff = (p->l4[12] >> 4) * 4u;
		return doff < 20 || doff > p->l4_len ? -1 : (int)doff;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		return p->l4_len < 8 ? -1 : 8;
	case IPPROTO_SCTP:
		return p->l4_len < 12 ? -1 : 12;
	default:
		return 0;
	}
}

/**
 * bloom_digest_build() - the digest key of a packet
 * @k: the key, filled here (every byte: padding and the unused payload
 *     are zero)
 * @p: the packet's addresses, protocol and transport bytes
 * @nbytes: payload bytes to take, 0 to BLOOM_DIGEST_BYTES_MAX; fewer are
 *          taken when the payload is shorter
 *
 * Return: 0; -EINVAL if @nbytes is over the maximum; -EBADMSG if the
 * packet claims a transport header it does not carry (no key: the match
 * neither matches nor inverts on it, the IP stack drops it).
 */
int bloom_digest_build(struct bloom_key_digest *k,
		       const struct bloom_digest_pkt *p, unsigned int nbytes)
{
	int hlen = 0;
	u32 plen;

	memset(k, 0, sizeof(*k));
	if (nbytes > BLOOM_DIGEST_BYTES_MAX)
		return -EINVAL;
	memcpy(k->saddr, p->saddr, 16);
	memcpy(k->daddr, p->daddr, 16);
	k->proto = p->proto;
	if (p->fragment) {
		/* Which datagram, and where in it (see uapi/bloom.h). */
		k->flags = BLOOM_DIGEST_F_FRAGMENT |
			   (p->ipv6 ? BLOOM_DIGEST_F_FRAG6 : 0);
		k->seq = bloom_cpu_to_be32(p->frag_off);
		k->sport = bloom_cpu_to_be16((u16)(p->frag_id >> 16));
		k->dport = bloom_cpu_to_be16((u16)p->frag_id);
	} else {
		hlen = l4_hdr_len(p);
		if (hlen < 0)
			return -EBADMSG;
		if (bloom_digest_has_ports(p->proto)) {
			memcpy(&k->sport, p->l4, 2);
			memcpy(&k->dport, p->l4 + 2, 2);
		}
		if (p->proto == IPPROTO_TCP) {
			/* All of the header but the checksum (uapi/bloom.h). */
			memcpy(&k->seq, p->l4 + 4, 4);
			k->tcp_len = (u8)(hlen - 8);
			memcpy(k->tcp, p->l4 + 8, k->tcp_len);
			k->tcp[8] = 0;
			k->tcp[9] = 0;
		}
	}
	plen = p->l4_len - (u32)hlen;
	k->len = bloom_cpu_to_be32(plen);
	/* hlen + nbytes <= BLOOM_DIGEST_READ_MAX: all of it is in @l4. */
	k->nbytes = (u8)min(plen, nbytes);
	memcpy(k->payload, p->l4 + hlen, k->nbytes);
	return 0;
}
EXPORT_SYMBOL_GPL(bloom_digest_build);
