// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the snapshot parser: whatever the bytes, parsing
 * never reads out of bounds, and whatever parses re-serialises to the
 * very same bytes; a loaded filter survives stats and lookups.
 *
 * With SNAPSHOT_FUZZ_FIX_CHECKSUM=1 in the environment, the checksum of
 * every input is recomputed before parsing, so that mutations of header
 * fields and payload reach the checks behind the checksum instead of
 * stopping at it (a random mutation almost never keeps a valid xxh64).
 * At exit the target prints how many inputs were loaded as filters, so
 * a run can prove it got that far.
 */
#include <stdio.h>
#include <stdlib.h>
#include "../../module/core/bloom_core.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const u8 *data, size_t len);

/* Geometries stay small so that every accepted input is cheap. */
#define MAX_FUZZ_PAYLOAD	(1 << 20)

static bool fix_checksum;
static unsigned long loaded;

static void report(void)
{
	fprintf(stderr, "snapshot-fuzz: %lu inputs loaded as filters%s\n",
		loaded, fix_checksum ? " (checksums recomputed)" : "");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *fix = getenv("SNAPSHOT_FUZZ_FIX_CHECKSUM");

	fix_checksum = fix && *fix && *fix != '0';
	atexit(report);
	return 0;
}

/* The loaded filter is usable: stats and a few lookups do not crash. */
static void exercise(const struct bloom_core *c, const struct bloom_bits *b)
{
	static u64 hist[BLOOM_HIST_WORDS];
	struct bloom_stats st;
	u64 h;

	bloom_stats(c, b, hist, &st);
	if (st.bits_set > c->g.bits)
		abort();
	for (h = 0; h < 4; h++)
		bloom_test_hash(c, b, h * 0x9e3779b97f4a7c15ULL);
}

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
	if (fix_checksum) {
		bloom_snap_csum_begin(&st, &hdr);
		bloom_hash_update(&st, data + sizeof(hdr), len - sizeof(hdr));
		hdr.checksum = bloom_cpu_to_le64(bloom_hash_final(&st));
	}
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
	if (bloom_bits_check_tail(&c, b))	/* refused, as RESTORE does */
		goto out;
	bloom_word_set(&b->inserted, info.inserted);
	for (int i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_set(&b->plens[i], info.plens[i]);
	bloom_snap_make_hdr(&c, b, &again);
	again.checksum = hdr.checksum;
	bloom_words_to_le(b->words, out, c.nwords);
	if (memcmp(&again, &hdr, sizeof(hdr)) ||
	    memcmp(out, data + sizeof(hdr), info.payload_len))
		abort();
	exercise(&c, b);
	loaded++;
out:
	free(out);
	free(b);
	return 0;
}
