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
 * At exit the target prints how many inputs were loaded as filters (and
 * how many of them were aging filters, version 3), so a run can prove
 * it got that far.
 *
 * A version 3 payload is loaded as RESTORE loads it: G generation
 * records, then G arrays, each array's tail checked and each record's
 * prefix lengths too; the counts come from the records. Its header's
 * inserted count and prefix lengths are the sum and union a save
 * writes, which RESTORE does not read: they are compared only when the
 * input's are those. A version 4 payload (a filter that grew) is loaded
 * as the kernel's scalable kind loads it: S stage records, each naming
 * its stage's size, then S arrays of the geometries bloom_stage_geom()
 * gives, oldest first. A version 5 payload (a cuckoo table) is one
 * array like version 2's; its stats count slots, lookups read slots
 * that may cross words. A version 6 payload (a static filter, values
 * or not) is one array of entries of f + v bits: its lookups XOR three
 * entries that may cross words, and a value found is below 2^v.
 */
#include <stdio.h>
#include <stdlib.h>
#include "../../module/core/bloom_core.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const u8 *data, size_t len);

/* Geometries stay small so that every accepted input is cheap. */
#define MAX_FUZZ_PAYLOAD	(1 << 20)

static bool fix_checksum;
static unsigned long loaded, loaded_aging, loaded_grown, loaded_cuckoo;
static unsigned long loaded_static;

static void report(void)
{
	fprintf(stderr,
		"snapshot-fuzz: %lu inputs loaded as filters, %lu aging, %lu grown, %lu cuckoo, %lu static%s\n",
		loaded, loaded_aging, loaded_grown, loaded_cuckoo, loaded_static,
		fix_checksum ? " (checksums recomputed)" : "");
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
	if (c->g.layout != BLOOM_LAYOUT_FUSE)
		return;
	if (st.inserted != c->g.capacity)
		abort();
	for (h = 0; h < 64; h++) {
		u32 v = 0;

		if (bloom_fuse_lookup(c, b, h * 0x9e3779b97f4a7c15ULL, &v) &&
		    v >> c->g.value_bits)
			abort();
	}
}

/*
 * Loads the payload's @n arrays (after @rec bytes of records) into @b,
 * then writes records and arrays back to @out as a save would. Returns
 * false if loading refuses the payload.
 */
static bool load_arrays(const struct bloom_core *c, const u8 *payload,
			u64 rec, unsigned int n, struct bloom_bits **b,
			u8 *out)
{
	const struct bloom_snap_gen *gens = (const void *)payload;
	u64 bytes = bloom_array_bytes(c);
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		bloom_words_from_le(b[i]->words,
				    (const __le64 *)(payload + rec + i * bytes),
				    c->nwords);
		if (bloom_bits_check_tail(c, b[i]))
			return false;
		if (!rec)
			continue;
		if (bloom_le64_to_cpu(gens[i].plens[BLOOM_PLEN_WORDS - 1]) >> 1)
			return false;	/* as bloom_age_restore() */
		bloom_word_set(&b[i]->inserted,
			       bloom_le64_to_cpu(gens[i].inserted));
		for (j = 0; j < BLOOM_PLEN_WORDS; j++)
			bloom_word_set(&b[i]->plens[j],
				       bloom_le64_to_cpu(gens[i].plens[j]));
	}
	for (i = 0; i < n && rec; i++) {
		struct bloom_snap_gen g = { .age_ms = gens[i].age_ms };

		g.inserted = bloom_cpu_to_le64(bloom_word_read(&b[i]->inserted));
		for (j = 0; j < BLOOM_PLEN_WORDS; j++)
			g.plens[j] = bloom_cpu_to_le64(bloom_word_read(&b[i]->plens[j]));
		memcpy(out + i * sizeof(g), &g, sizeof(g));
	}
	for (i = 0; i < n; i++)
		bloom_words_to_le(b[i]->words, (__le64 *)(out + rec + i * bytes),
				  c->nwords);
	return true;
}

/* The header a save writes: for aging, the sum and union of the gens. */
static void make_hdr(const struct bloom_core *c, struct bloom_bits **b,
		     unsigned int n, struct bloom_snap_hdr *h)
{
	u64 inserted = 0, plens[BLOOM_PLEN_WORDS] = {};
	unsigned int i, j;

	bloom_snap_make_hdr(c, b[0], h);
	if (!c->g.gens)
		return;
	for (i = 0; i < n; i++) {
		inserted += bloom_word_read(&b[i]->inserted);
		for (j = 0; j < BLOOM_PLEN_WORDS; j++)
			plens[j] |= bloom_word_read(&b[i]->plens[j]);
	}
	h->inserted = bloom_cpu_to_le64(inserted);
	for (j = 0; j < BLOOM_PLEN_WORDS; j++)
		h->plens[j] = bloom_cpu_to_le64(plens[j]);
}

/*
 * Stage @i of a version 4 payload: its record checked as the kernel
 * does, its array loaded and written back to @out, its tail checked.
 */
static bool load_stage(const struct bloom_snap_info *info, const u8 *payload,
		       u32 i, u64 *at, u8 *out)
{
	const struct bloom_snap_stage *rec = (const void *)payload;
	struct bloom_bits *b;
	struct bloom_geom g;
	struct bloom_core c;
	bool ok;

	if (bloom_stage_geom(&info->geom, i, &g))
		abort();	/* the header check computed it */
	bloom_core_init(&c, &g);
	if (bloom_le64_to_cpu(rec[i].bits) != g.bits ||
	    bloom_le64_to_cpu(rec[i].plens[BLOOM_PLEN_WORDS - 1]) >> 1)
		return false;
	b = calloc(1, sizeof(*b) + bloom_array_bytes(&c));
	if (!b)
		abort();
	bloom_words_from_le(b->words, (const __le64 *)(payload + *at), c.nwords);
	ok = !bloom_bits_check_tail(&c, b);
	if (ok) {
		bloom_words_to_le(b->words, (__le64 *)(out + *at), c.nwords);
		exercise(&c, b);
	}
	*at += bloom_array_bytes(&c);
	free(b);
	return ok;
}

/* A filter that grew: every stage loads and writes back the same bytes. */
static void load_grown(const struct bloom_snap_info *info, const u8 *payload)
{
	u64 at = (u64)info->stages * sizeof(struct bloom_snap_stage);
	u8 *out = malloc(info->payload_len);
	u32 i;

	if (!out)
		abort();
	memcpy(out, payload, at);	/* the records: kept as they are */
	for (i = 0; i < info->stages; i++)
		if (!load_stage(info, payload, i, &at, out))
			goto out;	/* refused, as RESTORE does */
	if (at != info->payload_len ||
	    memcmp(out, payload, info->payload_len))
		abort();
	loaded++;
	loaded_grown++;
out:
	free(out);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t len)
{
	struct bloom_bits *b[BLOOM_GENERATIONS_MAX] = {};
	struct bloom_snap_hdr hdr, again;
	struct bloom_snap_info info;
	unsigned int i, n;
	struct bloom_core c;
	bloom_hash_state st;
	u64 rec;
	u8 *out;

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
	if (info.stages) {
		load_grown(&info, data + sizeof(hdr));
		return 0;
	}

	bloom_core_init(&c, &info.geom);
	n = info.geom.gens ? info.geom.gens : 1;
	rec = info.geom.gens * sizeof(struct bloom_snap_gen);
	if (bloom_snap_payload_bytes(&c) != rec + n * bloom_array_bytes(&c))
		abort();
	out = malloc(info.payload_len);
	if (!out)
		abort();
	for (i = 0; i < n; i++) {
		b[i] = calloc(1, sizeof(*b[i]) + bloom_array_bytes(&c));
		if (!b[i])
			abort();
	}
	if (!load_arrays(&c, data + sizeof(hdr), rec, n, b, out))
		goto out;	/* refused, as RESTORE does */
	if (!info.geom.gens) {
		bloom_word_set(&b[0]->inserted, info.inserted);
		for (i = 0; i < BLOOM_PLEN_WORDS; i++)
			bloom_word_set(&b[0]->plens[i], info.plens[i]);
	}
	make_hdr(&c, b, n, &again);
	again.checksum = hdr.checksum;
	if (info.geom.gens && (again.inserted != hdr.inserted ||
			       memcmp(again.plens, hdr.plens, sizeof(hdr.plens)))) {
		/* Not what a save writes, but RESTORE ignores these. */
		again.inserted = hdr.inserted;
		memcpy(again.plens, hdr.plens, sizeof(hdr.plens));
	}
	if (memcmp(&again, &hdr, sizeof(hdr)) ||
	    memcmp(out, data + sizeof(hdr), info.payload_len))
		abort();
	for (i = 0; i < n; i++)
		exercise(&c, b[i]);
	loaded++;
	loaded_aging += !!info.geom.gens;
	loaded_cuckoo += info.geom.layout == BLOOM_LAYOUT_CUCKOO;
	loaded_static += info.geom.layout == BLOOM_LAYOUT_FUSE;
out:
	for (i = 0; i < n; i++)
		free(b[i]);
	free(out);
	return 0;
}
