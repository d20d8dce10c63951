// SPDX-License-Identifier: GPL-2.0
/*
 * Key encodings (uapi/bloom.h): sizes and validation, shared by the
 * kernel (ioctl, match, in-kernel API) and bloomctl, so a key is the same
 * bytes wherever it is made.
 */
#include "bloom_core.h"

/**
 * bloom_key_size() - the size of a key type's keys
 * @key_type: enum bloom_key_type
 *
 * Return: bytes, or 0 for BLOOM_KEY_BYTES (variable), unknown and
 * retired types.
 */
size_t bloom_key_size(u8 key_type)
{
	switch (key_type) {
	case BLOOM_KEY_ADDR:
		return sizeof(struct bloom_key_addr);
	case BLOOM_KEY_NET:
		return sizeof(struct bloom_key_net);
	case BLOOM_KEY_ADDR_PORT:
		return sizeof(struct bloom_key_addr_port);
	case BLOOM_KEY_FLOW:
		return sizeof(struct bloom_key_flow);
	case BLOOM_KEY_DIGEST:
		return sizeof(struct bloom_key_digest);
	default:
		return 0;
	}
}
EXPORT_SYMBOL_GPL(bloom_key_size);

/**
 * bloom_key_type_retired() - is this a key type no filter may have?
 * @key_type: enum bloom_key_type
 *
 * BLOOM_KEY_DIGEST_V1 keyed every pure ACK of a TCP connection alike; it
 * was replaced by BLOOM_KEY_DIGEST. Creating, restoring or matching a
 * filter of a retired type fails with -EINVAL.
 *
 * Return: true for a retired type.
 */
bool bloom_key_type_retired(unsigned int key_type)
{
	return key_type == BLOOM_KEY_DIGEST_V1;
}
EXPORT_SYMBOL_GPL(bloom_key_type_retired);

static bool zero(const u8 *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

/**
 * bloom_net_mask() - clear the bits of @addr past @plen
 * @addr: 16-byte address
 * @plen: prefix length, 0..128
 */
void bloom_net_mask(u8 *addr, unsigned int plen)
{
	unsigned int i;

	for (i = 0; i < 16; i++, plen = plen > 8 ? plen - 8 : 0)
		if (plen < 8)
			addr[i] &= (u8)(0xff00 >> plen);
}
EXPORT_SYMBOL_GPL(bloom_net_mask);

static bool is_v4_mapped(const u8 *addr)
{
	static const u8 prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(addr, prefix, sizeof(prefix));
}

/**
 * bloom_net_family_plens() - the prefix lengths an address is probed at
 * @plens: the lengths a net filter holds (BLOOM_PLEN_WORDS words); cut
 *	down in place to those of @addr's family
 * @addr: the address, 16 bytes (IPv4 v4-mapped)
 *
 * An IPv4 address is probed at /96 to /128 on the 128-bit form only: a
 * shorter prefix is an IPv6 one, even one that covers ::ffff:0:0/96
 * (uapi/bloom.h). An IPv6 address is probed at every length held.
 */
void bloom_net_family_plens(__u64 *plens, const u8 *addr)
{
	if (!is_v4_mapped(addr))
		return;
	plens[0] = 0;
	plens[1] &= ~0ULL << 32;
}
EXPORT_SYMBOL_GPL(bloom_net_family_plens);

/**
 * bloom_net_lookup_lengths() - how many probes a net lookup takes at most
 * @plens: the lengths a net filter holds (BLOOM_PLEN_WORDS words)
 *
 * The most of either family's (bloom_net_family_plens()): an IPv6
 * address is probed at every length held, an IPv4 one at a subset.
 *
 * Return: 0 to 129.
 */
unsigned int bloom_net_lookup_lengths(const __u64 *plens)
{
	unsigned int i, n = 0;

	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		n += bloom_popcount64(plens[i]);
	return n;
}
EXPORT_SYMBOL_GPL(bloom_net_lookup_lengths);

static bool net_key_valid(const struct bloom_key_net *k)
{
	u8 masked[16];

	if (k->plen > 128 || !zero(k->pad, sizeof(k->pad)))
		return false;
	memcpy(masked, k->addr, 16);
	bloom_net_mask(masked, k->plen);
	return !memcmp(masked, k->addr, 16);
}

/* Only these show ports in a digest; only TCP a sequence number. */
bool bloom_digest_has_ports(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP;
}
EXPORT_SYMBOL_GPL(bloom_digest_has_ports);

/* TCP: the header from byte 8, its checksum zero (uapi/bloom.h). */
static bool digest_tcp_valid(const struct bloom_key_digest *k, bool tcp)
{
	if (!tcp)
		return !k->tcp_len && zero(k->tcp, sizeof(k->tcp));
	return k->tcp_len >= 12 && k->tcp_len <= BLOOM_DIGEST_TCP_MAX &&
	       k->tcp_len == (k->tcp[4] >> 4) * 4 - 8 &&
	       !k->tcp[8] && !k->tcp[9] &&
	       zero(k->tcp + k->tcp_len, sizeof(k->tcp) - k->tcp_len);
}

static bool digest_key_valid(const struct bloom_key_digest *k)
{
	bool frag = k->flags & BLOOM_DIGEST_F_FRAGMENT;
	bool frag6 = k->flags & BLOOM_DIGEST_F_FRAG6;

	if (!zero(k->pad, sizeof(k->pad)) || (k->flags & ~BLOOM_DIGEST_F_ALL) ||
	    k->nbytes > BLOOM_DIGEST_BYTES_MAX ||
	    k->nbytes > bloom_be32_to_cpu(k->len) ||
	    !zero(k->payload + k->nbytes, BLOOM_DIGEST_BYTES_MAX - k->nbytes))
		return false;
	/*
	 * A later fragment's ports and seq are its identification and
	 * offset: offsets are multiples of 8 below 64 KiB, and IPv4's
	 * identification has 16 bits. The family is the flag's: an IPv6
	 * datagram may come from a v4-mapped address, and an IPv4 one
	 * always does (to both addresses). It shows no TCP header.
	 */
	if (frag)
		return !(bloom_be32_to_cpu(k->seq) & ~0xfff8U) &&
		       digest_tcp_valid(k, false) &&
		       (frag6 || (!k->sport && is_v4_mapped(k->saddr) &&
				  is_v4_mapped(k->daddr)));
	if (frag6)
		return false;
	if (!bloom_digest_has_ports(k->proto) && (k->sport || k->dport))
		return false;
	if (!digest_tcp_valid(k, k->proto == IPPROTO_TCP))
		return false;
	return !k->seq || k->proto == IPPROTO_TCP;
}

/* A net key is IPv4 when it is a prefix inside ::ffff:0:0/96. */
static bool net_is_v4(const struct bloom_key_net *k)
{
	return k->plen >= 96 && is_v4_mapped(k->addr);
}

/**
 * bloom_key_family() - the family of a well-formed key
 * @key_type: enum bloom_key_type
 * @key: the key, checked by bloom_key_check()
 *
 * IPv4 when each of the key's addresses is v4-mapped (uapi/bloom.h).
 *
 * Return: BLOOM_F_INET, BLOOM_F_INET6, or 0 for a key type without
 * addresses.
 */
u16 bloom_key_family(u8 key_type, const void *key)
{
	const struct bloom_key_flow *fl = key;
	const struct bloom_key_digest *d = key;
	bool v4;

	switch (key_type) {
	case BLOOM_KEY_ADDR:
	case BLOOM_KEY_ADDR_PORT:
		v4 = is_v4_mapped(key);	/* the address comes first */
		break;
	case BLOOM_KEY_NET:
		v4 = net_is_v4(key);
		break;
	case BLOOM_KEY_FLOW:
		v4 = is_v4_mapped(fl->saddr) && is_v4_mapped(fl->daddr);
		break;
	case BLOOM_KEY_DIGEST:
		v4 = is_v4_mapped(d->saddr) && is_v4_mapped(d->daddr) &&
		     !(d->flags & BLOOM_DIGEST_F_FRAG6);
		break;
	default:
		return 0;
	}
	return v4 ? BLOOM_F_INET : BLOOM_F_INET6;
}
EXPORT_SYMBOL_GPL(bloom_key_family);

/**
 * bloom_key_type_has_family() - do keys of this type carry addresses?
 * @key_type: enum bloom_key_type
 *
 * Return: true for the types a family (BLOOM_F_INET, _INET6) applies to.
 */
bool bloom_key_type_has_family(unsigned int key_type)
{
	switch (key_type) {
	case BLOOM_KEY_ADDR:
	case BLOOM_KEY_NET:
	case BLOOM_KEY_ADDR_PORT:
	case BLOOM_KEY_FLOW:
	case BLOOM_KEY_DIGEST:
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_GPL(bloom_key_type_has_family);

/**
 * bloom_key_family_ok() - may a filter of these flags hold this key?
 * @flags: the filter's geometry flags
 * @key_type: its key type
 * @key: a well-formed key of that type
 *
 * Return: true for a dual-stack filter or a key of its family.
 */
bool bloom_key_family_ok(u16 flags, u8 key_type, const void *key)
{
	u16 family = flags & BLOOM_F_FAMILY;

	return !family || bloom_key_family(key_type, key) == family;
}
EXPORT_SYMBOL_GPL(bloom_key_family_ok);

/**
 * bloom_key_check() - is this a well-formed key of this type?
 * @key_type: enum bloom_key_type
 * @key: the key
 * @len: its length
 *
 * Padding must be zero and a prefix's host bits clear, so that one key
 * has exactly one encoding.
 *
 * Return: 0 or -EINVAL.
 */
int bloom_key_check(u8 key_type, const void *key, size_t len)
{
	const struct bloom_key_addr_port *ap = key;
	const struct bloom_key_flow *fl = key;

	if (key_type == BLOOM_KEY_BYTES)
		return len >= 1 && len <= BLOOM_KEY_BYTES_MAX ? 0 : -EINVAL;
	if (!len || len != bloom_key_size(key_type))
		return -EINVAL;
	switch (key_type) {
	case BLOOM_KEY_NET:
		return net_key_valid(key) ? 0 : -EINVAL;
	case BLOOM_KEY_ADDR_PORT:
		return ap->pad ? -EINVAL : 0;
	case BLOOM_KEY_FLOW:
		return zero(fl->pad, sizeof(fl->pad)) ? 0 : -EINVAL;
	case BLOOM_KEY_DIGEST:
		return digest_key_valid(key) ? 0 : -EINVAL;
	default:
		return 0;
	}
}
EXPORT_SYMBOL_GPL(bloom_key_check);
