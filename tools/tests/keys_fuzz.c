// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for bloomctl's key parser (tools/bloomctl/keys.c and
 * range.c): the first byte picks the key type, the rest is the key's
 * text. Whatever the bytes, parsing never reads out of bounds, a key it
 * accepts passes the kernel's own bloom_key_check(), a key it refuses
 * comes with a message, and a range expands to at least one key, each
 * of which the kernel would accept, and no more than an addr filter's
 * range limit (a net range covers at most 2 * 128 prefixes). An address
 * is read as the C library's inet_pton() reads it: bloomctl parses IPv4
 * itself, for speed, and must take exactly the same texts.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include "../bloomctl/bloomctl.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t len);

struct ranged {
	u8 type;
	u64 n;
};

static void check_rec(u8 type, const void *rec)
{
	size_t klen;
	const void *key = rec_key(type, rec, &klen);

	if (bloom_key_check(type, key, klen))
		abort();	/* bloomctl would send what the kernel refuses */
}

static void emitted(void *ctx, const void *rec)
{
	struct ranged *r = ctx;

	check_rec(r->type, rec);
	r->n++;
}

/* An addr key's record against inet_pton()'s reading of its text. */
static void check_addr(const char *text, size_t len, int err, const u8 *rec)
{
	u8 want[16] = { [10] = 0xff, [11] = 0xff };
	char buf[64];
	bool ok;

	if (len >= 2 && text[0] == '[' && text[len - 1] == ']') {
		text++;
		len -= 2;
	}
	if (len >= sizeof(buf) || memchr(text, 0, len))
		return;
	memcpy(buf, text, len);
	buf[len] = 0;
	ok = inet_pton(AF_INET, buf, want + 12) == 1 ||
	     inet_pton(AF_INET6, buf, want) == 1;
	if (ok != !err || (ok && memcmp(rec, want, sizeof(want))))
		abort();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t len)
{
	int err;
	struct ranged r = { 0 };
	u8 rec[KEY_REC_MAX];
	char why[WHY_MAX];
	const char *text;
	int ranged;

	if (!len)
		return 0;
	r.type = data[0] % BLOOM_KEY_MAX;
	text = (const char *)data + 1;
	len--;
	why[0] = 0;
	err = key_parse(r.type, text, len, rec, why, sizeof(why));
	if (!err)
		check_rec(r.type, rec);
	else if (!why[0] || !memchr(why, 0, sizeof(why)))
		abort();	/* refused without saying why */
	if (r.type == BLOOM_KEY_ADDR)
		check_addr(text, len, err, rec);
	why[0] = 0;
	ranged = range_expand(r.type, text, len, emitted, &r, why, sizeof(why));
	if (ranged > 0 && (!r.n || r.n > (r.type == BLOOM_KEY_NET ? 256 :
					   RANGE_ADDRS_MAX)))
		abort();
	if (ranged <= 0 && r.n)
		abort();	/* no range, yet keys came out */
	if (ranged < 0 && !why[0])
		abort();
	return 0;
}
