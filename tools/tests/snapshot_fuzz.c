// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the snapshot parser: whatever the bytes, parsing
 * never reads out of bounds, and whatever parses re-serialises to the
 * very same bytes.
 */
#include <stdlib.h>
#include "../../module/core/bloom_core.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t len);

/* Geometries stay small so that every accepted input is cheap. */
#define MAX_FUZZ_PAYLOAD	(1 << 20)

int LLVMFuzzerTestOneInput(const u8 *data, size_t len)
{
	struct bloom_snap_hdr hdr, again;
	struct bloom_snap_info info;
	struct bloom_core c;
	struct bloom_bits *b;
	bloom_hash_state st;
	__le64 *out;

	if (len < sizeof(hdr))
		return 0;
	memcpy(&hdr, data, sizeof(hdr));
	if (bloom_snap_check_hdr(&hdr, len, &info))
		return 0;
	if (info.payload_len > MAX_FUZZ_PAYLOAD)
		return 0;
	bloom_snap_csum_begin(&st, &hdr);
	bloom_hash_update(&st, data + sizeof(hdr), info.payload_len);
	if (bloom_hash_final(&st) != info.checksum)
		return 0;

	bloom_core_init(&c, &info.geom);
	b = calloc(1, sizeof(*b) + bloom_array_bytes(&c));
	out = malloc(info.payload_len);
	if (!b || !out)
		abort();
	bloom_words_from_le(b->words, (const __le64 *)(data + sizeof(hdr)),
			    c.nwords);
	bloom_word_set(&b->inserted, info.inserted);
	for (int i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_set(&b->plens[i], info.plens[i]);
	bloom_snap_make_hdr(&c, b, &again);
	again.checksum = hdr.checksum;
	bloom_words_to_le(b->words, out, c.nwords);
	if (memcmp(&again, &hdr, sizeof(hdr)) ||
	    memcmp(out, data + sizeof(hdr), info.payload_len))
		abort();
	free(out);
	free(b);
	return 0;
}
