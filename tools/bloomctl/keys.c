// SPDX-License-Identifier: GPL-2.0
/*
 * Keys as text, and their encodings (uapi/bloom.h). Every key is checked
 * with bloom_key_check(), the kernel's own test, before it goes anywhere
 * (input.c's bare IPv4 lines need not be: an addr key is always whole).
 *
 *   addr       192.0.2.1, 2001:db8::1 (IPv4 is stored v4-mapped)
 *   net        192.0.2.0/24, 2001:db8::/32, or a bare address (/32, /128)
 *   addr,port  192.0.2.1,80  192.0.2.1,udp:53  [2001:db8::1],443  ::1,80
 *   flow       PROTO,SADDR,SPORT,DADDR,DPORT   tcp,10.0.0.1,1234,10.0.0.2,80
 *   digest     0x followed by the 168 bytes of struct bloom_key_digest in hex
 *   bytes      any text, or 0x followed by hex digits
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "bloomctl.h"

#define SHOWN_CHARS	60	/* of a bad key, in messages */
#define ADDR_TEXT_MAX	64

static const struct {
	const char *name;
	u8 proto;
} protos[] = {
	{ "tcp", IPPROTO_TCP }, { "udp", IPPROTO_UDP },
	{ "sctp", IPPROTO_SCTP }, { "udplite", IPPROTO_UDPLITE },
	{ "dccp", IPPROTO_DCCP },
};

/* A key's text for a message: at most SHOWN_CHARS, unprintables escaped. */
void text_shown(char *dst, size_t size, const char *s, size_t len)
{
	size_t i, at = 0;

	for (i = 0; i < len && i < SHOWN_CHARS && at + 5 < size; i++) {
		unsigned char c = s[i];

		if (c >= ' ' && c <= '~')
			dst[at++] = c;
		else
			at += snprintf(dst + at, size - at, "\\x%02x", c);
	}
	if (i < len && at + 4 < size) {
		memcpy(dst + at, "...", 3);
		at += 3;
	}
	dst[at] = 0;
}

size_t key_stride(u8 type)
{
	return type == BLOOM_KEY_BYTES ? KEY_BYTES_REC : bloom_key_size(type);
}

/* Copy [s, s + len) into @buf as a C string; false if it does not fit. */
static bool substr(char *buf, size_t size, const char *s, size_t len)
{
	if (len >= size)
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	return true;
}

static inline bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * A dotted-quad IPv4 address, in place, as inet_pton(AF_INET) reads one:
 * four decimal octets of at most 255, none with a leading zero. Lists of
 * millions of addresses are mostly IPv4: copying each into a C string
 * for inet_pton() cost more than the rest of its parsing together.
 */
static bool parse_v4(const char *s, size_t len, u8 out[4])
{
	const char *end = s + len;
	unsigned int v;
	int n;

	for (n = 0; n < 4; n++) {
		if (n && (s == end || *s++ != '.'))
			return false;
		if (s == end || !digit(*s))
			return false;
		v = (unsigned int)(*s++ - '0');
		/* A second and third digit; not after a leading zero. */
		if (v && s != end && digit(*s)) {
			v = v * 10 + (unsigned int)(*s++ - '0');
			if (s != end && digit(*s))
				v = v * 10 + (unsigned int)(*s++ - '0');
		}
		if (v > 255)
			return false;
		out[n] = (u8)v;
	}
	return s == end;
}

/* An IPv4 address, as parse_v4() reads it, stored v4-mapped. */
bool v4_parse(const char *s, size_t len, u8 addr[16])
{
	if (!parse_v4(s, len, addr + 12))
		return false;
	memset(addr, 0, 10);
	addr[10] = 0xff;
	addr[11] = 0xff;
	return true;
}

/*
 * An IPv4 or IPv6 address, optionally in brackets, into 16 bytes.
 * Returns how it was written, 4 or 6, or 0 if it is not an address.
 */
int addr_parse(const char *s, size_t len, u8 addr[16])
{
	char buf[ADDR_TEXT_MAX];

	if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
		s++;
		len -= 2;
	}
	if (v4_parse(s, len, addr))
		return 4;
	if (!substr(buf, sizeof(buf), s, len) || memchr(s, 0, len))
		return 0;
	return inet_pton(AF_INET6, buf, addr) == 1 ? 6 : 0;
}

static bool is_v4(const u8 addr[16])
{
	return IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)addr);
}

/* Decimal digits only, at most @max. */
static bool parse_small(const char *s, size_t len, unsigned long max,
			unsigned long *out)
{
	unsigned long v = 0;
	size_t i;

	if (!len || len > 6)
		return false;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	*out = v;
	return v <= max;
}

static bool parse_proto(const char *s, size_t len, u8 *proto)
{
	unsigned long v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(protos); i++) {
		if (strlen(protos[i].name) == len &&
		    !strncasecmp(s, protos[i].name, len)) {
			*proto = protos[i].proto;
			return true;
		}
	}
	if (!parse_small(s, len, 255, &v))
		return false;
	*proto = (u8)v;
	return true;
}

static bool parse_port(const char *s, size_t len, __be16 *port)
{
	unsigned long v;

	if (!parse_small(s, len, 65535, &v))
		return false;
	*port = htons((u16)v);
	return true;
}

/*
 * A key being parsed: its text, shown shortened (made by shown() for a
 * message: most keys are good and never need it), and where to say why.
 */
struct parse {
	const char *s;
	size_t len;
	char *why;
	size_t whylen;
	bool shown_made;
	char shown[SHOWN_CHARS * 4 + 8];
};

static const char *shown(struct parse *p)
{
	if (!p->shown_made)
		text_shown(p->shown, sizeof(p->shown), p->s, p->len);
	p->shown_made = true;
	return p->shown;
}

/* Say why the key is bad; returns -1. */
static int __printf(2, 3) bad(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, p->whylen, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * add and del --netmask4/--netmask6: a bare address (no /LEN) of a net
 * filter stands for its network of that length, host bits cleared, so
 * that fail2ban can ban the /64 of an IPv6 address it found. 0: unset.
 */
static unsigned int netmask4, netmask6;

/**
 * key_netmask() - take bare addresses of @family (4 or 6) as /@len
 * @family: 4 or 6
 * @len: 0 to 32 (IPv4) or 128 (IPv6)
 *
 * An addr filter has no prefixes: a full length is accepted (and
 * changes nothing), a shorter one fails its keys.
 */
void key_netmask(int family, unsigned int len)
{
	if (family == 4)
		netmask4 = len + 1;
	else
		netmask6 = len + 1;
}

static int parse_net(struct parse *p, struct bloom_key_net *k)
{
	const char *slash = memchr(p->s, '/', p->len);
	size_t alen = slash ? (size_t)(slash - p->s) : p->len;
	int family = addr_parse(p->s, alen, k->addr);
	unsigned long plen = 128;
	u8 masked[16];

	if (!family)
		return bad(p, "bad address '%s'", shown(p));
	/* ::ffff:192.0.2.0/120 is written as IPv6: so is its length. */
	if (slash && !parse_small(slash + 1, p->len - alen - 1, 999, &plen))
		return bad(p, "bad prefix length '%s'", shown(p));
	if (slash && family == 4 && plen > 32)
		return bad(p, "prefix length over /32 in '%s'", shown(p));
	if (slash && plen > 128)
		return bad(p, "prefix length over /128 in '%s'", shown(p));
	if (slash && family == 4)
		plen += 96;
	if (!slash && family == 4 && netmask4)
		plen = 96 + netmask4 - 1;
	if (!slash && family == 6 && netmask6)
		plen = netmask6 - 1;
	k->plen = (u8)plen;
	memcpy(masked, k->addr, 16);
	bloom_net_mask(masked, k->plen);
	if (!slash)		/* --netmask: the address's network */
		memcpy(k->addr, masked, 16);
	if (memcmp(masked, k->addr, 16))
		return bad(p, "host bits set in %s", shown(p));
	return 0;
}

static int parse_addr_port(struct parse *p, struct bloom_key_addr_port *k)
{
	const char *comma = memrchr(p->s, ',', p->len), *rest, *colon;
	size_t rlen;

	if (!comma)
		return bad(p, "bad address,port '%s' (want ADDR,[PROTO:]PORT)", shown(p));
	if (!addr_parse(p->s, (size_t)(comma - p->s), k->addr))
		return bad(p, "bad address '%s'", shown(p));
	rest = comma + 1;
	rlen = p->len - (size_t)(rest - p->s);
	colon = memchr(rest, ':', rlen);
	k->proto = IPPROTO_TCP;
	if (colon) {
		if (!parse_proto(rest, (size_t)(colon - rest), &k->proto))
			return bad(p, "bad protocol '%s'", shown(p));
		rlen -= (size_t)(colon + 1 - rest);
		rest = colon + 1;
	}
	if (!parse_port(rest, rlen, &k->port))
		return bad(p, "bad port '%s'", shown(p));
	return 0;
}

/* Splits @s at commas into exactly @n fields. */
static bool fields(const char *s, size_t len, const char **f, size_t *flen,
		   int n)
{
	const char *end = s + len;
	int i;

	for (i = 0; i < n; i++) {
		const char *comma = memchr(s, ',', (size_t)(end - s));

		if (!comma != (i == n - 1))
			return false;
		f[i] = s;
		flen[i] = (size_t)((comma ? comma : end) - s);
		if (comma)		/* the last field has none */
			s = comma + 1;
	}
	return true;
}

static int parse_flow(struct parse *p, struct bloom_key_flow *k)
{
	const char *f[5];
	size_t fl[5];

	if (!fields(p->s, p->len, f, fl, 5))
		return bad(p, "bad flow '%s' (want PROTO,SADDR,SPORT,DADDR,DPORT)", shown(p));
	if (!parse_proto(f[0], fl[0], &k->proto))
		return bad(p, "bad protocol '%s'", shown(p));
	if (!addr_parse(f[1], fl[1], k->saddr) ||
	    !addr_parse(f[3], fl[3], k->daddr))
		return bad(p, "bad address '%s'", shown(p));
	if (is_v4(k->saddr) != is_v4(k->daddr))
		return bad(p, "addresses of different families in '%s'", shown(p));
	if (!parse_port(f[2], fl[2], &k->sport) ||
	    !parse_port(f[4], fl[4], &k->dport))
		return bad(p, "bad port '%s'", shown(p));
	return 0;
}

static int hexval(char c)
{
	if (isdigit((unsigned char)c))
		return c - '0';
	if (isxdigit((unsigned char)c))
		return tolower((unsigned char)c) - 'a' + 10;
	return -1;
}

static int parse_hex(struct parse *p, u8 *key, size_t max, u16 *n)
{
	size_t i;

	if (p->len % 2)
		return bad(p, "bad hex key '%s' (odd number of digits)", shown(p));
	if ((p->len - 2) / 2 > max)
		return bad(p, "key longer than %zu bytes '%s'", max, shown(p));
	for (i = 2; i < p->len; i += 2) {
		int hi = hexval(p->s[i]), lo = hexval(p->s[i + 1]);

		if (hi < 0 || lo < 0)
			return bad(p, "bad hex key '%s'", shown(p));
		key[(i - 2) / 2] = (u8)(hi << 4 | lo);
	}
	*n = (u16)((p->len - 2) / 2);
	return 0;
}

/*
 * A packet digest is binary: its bytes in hex (struct bloom_key_digest
 * in uapi/bloom.h gives the layout), as a program that computed it would
 * write them.
 */
static int parse_digest(struct parse *p, struct bloom_key_digest *k)
{
	u8 buf[sizeof(*k)];
	u16 n;

	if (p->len < 2 || p->s[0] != '0' || tolower(p->s[1]) != 'x')
		return bad(p, "bad digest '%s' (want 0x and %zu bytes in hex)",
			   shown(p), sizeof(*k));
	if (parse_hex(p, buf, sizeof(buf), &n))
		return -1;
	if (n != sizeof(*k))
		return bad(p, "digest of %u bytes, not %zu '%s'", n, sizeof(*k),
			   shown(p));
	memcpy(k, buf, sizeof(*k));
	return 0;
}

/* A bytes record: __u16 length (host order, as the kernel reads it). */
static int parse_bytes(struct parse *p, u8 *rec)
{
	u8 *key = rec + sizeof(u16);
	u16 n = (u16)p->len;

	if (p->len > 2 && p->s[0] == '0' && tolower(p->s[1]) == 'x') {
		if (parse_hex(p, key, BLOOM_KEY_BYTES_MAX, &n))
			return -1;
		memcpy(rec, &n, sizeof(n));
		return 0;
	}
	if (!p->len)
		return bad(p, "empty key");
	if (p->len > BLOOM_KEY_BYTES_MAX)
		return bad(p, "key longer than 128 bytes '%s'", shown(p));
	if (memchr(p->s, 0, p->len))
		return bad(p, "NUL byte in key '%s' (write it as 0x...)",
			   shown(p));
	memcpy(key, p->s, p->len);
	memcpy(rec, &n, sizeof(n));
	return 0;
}

/* The key inside a record, and its length. */
const void *rec_key(u8 type, const void *rec, size_t *len)
{
	u16 n;

	if (type != BLOOM_KEY_BYTES) {
		*len = bloom_key_size(type);
		return rec;
	}
	memcpy(&n, rec, sizeof(n));
	*len = n;
	return (const u8 *)rec + sizeof(n);
}

/**
 * key_parse() - encode the text of a key of type @type
 * @type: enum bloom_key_type
 * @text: the key, not necessarily NUL-terminated; may hold any byte
 * @len: its length
 * @rec: key_stride(@type) bytes, zeroed here, for the record
 * @why: on failure, what is wrong, quoting the (shortened) text
 * @whylen: size of @why
 *
 * Return: 0, or -1 with @why filled.
 */
int key_parse(u8 type, const char *text, size_t len, void *rec, char *why,
	      size_t whylen)
{
	struct parse p;
	const void *key;
	size_t klen;
	int err;

	p.s = text;
	p.len = len;
	p.why = why;
	p.whylen = whylen;
	p.shown_made = false;
	memset(rec, 0, key_stride(type));
	if (type != BLOOM_KEY_BYTES && (memchr(text, 0, len) || !len))
		return bad(&p, "bad %s '%s'",
			   type == BLOOM_KEY_FLOW ? "flow" :
			   type == BLOOM_KEY_DIGEST ? "digest" : "address",
			   shown(&p));
	switch (type) {
	case BLOOM_KEY_ADDR:
		err = addr_parse(text, len, rec);
		if (!err)
			err = bad(&p, "bad address '%s'%s", shown(&p),
				  memchr(text, '/', len) ?
				  " (a prefix: addr filters hold addresses, --key net prefixes)" : "");
		else if ((err == 4 && netmask4 && netmask4 != 33) ||
			 (err == 6 && netmask6 && netmask6 != 129))
			err = bad(&p, "--netmask%d %u for '%s': an addr filter holds addresses, a net filter (--key net) networks",
				  err, (err == 4 ? netmask4 : netmask6) - 1, shown(&p));
		else
			err = 0;
		break;
	case BLOOM_KEY_NET:
		err = parse_net(&p, rec);
		break;
	case BLOOM_KEY_ADDR_PORT:
		err = parse_addr_port(&p, rec);
		break;
	case BLOOM_KEY_FLOW:
		err = parse_flow(&p, rec);
		break;
	case BLOOM_KEY_DIGEST:
		err = parse_digest(&p, rec);
		break;
	default:
		err = parse_bytes(&p, rec);
	}
	if (err)
		return err;
	key = rec_key(type, rec, &klen);
	if (bloom_key_check(type, key, klen))
		return bad(&p, "malformed key '%s'", shown(&p));
	return 0;
}
