// SPDX-License-Identifier: GPL-2.0
/*
 * Prints kunit/vectors.h: for fixed seeds and keys, the xxh64 of each key
 * and the exact bits one add sets in each layout. Regenerate only when
 * the bit layout changes on purpose; it is ABI for snapshots.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../module/core/bloom_core.h"

static const struct {
	const char *key;
	unsigned int len;
} keys[] = {
	{ "", 0 },
	{ "a", 1 },
	{ "\0\0\0\0\0\0\0\0\0\0\xff\xff\xc0\0\x02\x01", 16 },	/* 192.0.2.1 */
};

static const struct bloom_geom geoms[] = {
	{ .bits = 4096, .hashes = 7, .seed = 0,
	  .layout = BLOOM_LAYOUT_BLOCKED },
	{ .bits = 1000, .hashes = 5, .seed = 0x0123456789abcdefULL,
	  .layout = BLOOM_LAYOUT_STANDARD },
	{ .bits = 1001, .hashes = 7, .seed = 42,
	  .layout = BLOOM_LAYOUT_PARTITIONED },
	{ .bits = 500, .hashes = 4, .seed = 7,
	  .layout = BLOOM_LAYOUT_COUNTING },
	{ .bits = 1024, .hashes = 16, .seed = 1,
	  .layout = BLOOM_LAYOUT_BLOCKED },
};

/*
 * A version 3 snapshot (aging, 3 generations of a net filter, newest
 * first), as bloom_age_snap_hdr() and bloom_age_snap_words() write it.
 */
static int write_aging_seed(const char *dir)
{
	struct bloom_geom g = { .bits = 1024, .hashes = 4, .seed = 5,
				.layout = BLOOM_LAYOUT_STANDARD,
				.key_type = BLOOM_KEY_NET, .capacity = 50,
				.gens = 3, .period_ms = 60000 };
	struct bloom_snap_gen rec[3] = {};
	struct bloom_snap_hdr h;
	u64 inserted = 0, plens[BLOOM_PLEN_WORDS] = {};
	struct bloom_core c;
	struct bloom_bits *b;
	bloom_hash_state st;
	char path[4096];
	__le64 *arrays;
	unsigned int i, j;
	size_t bytes;
	FILE *f;

	bloom_core_init(&c, &g);
	bytes = bloom_array_bytes(&c);
	b = calloc(1, sizeof(*b) + bytes);
	arrays = calloc(3, bytes);
	if (!b || !arrays)
		return 1;
	for (i = 0; i < 3; i++) {
		bloom_bits_clear(&c, b);
		/* Generation i holds i + 1 IPv4 prefixes of length 8i + 8. */
		for (j = 0; j <= i; j++) {
			char key[20] = { [10] = 0xff, [11] = 0xff,
					 [12] = 10 + j, [16] = 104 + 8 * i };

			if (bloom_add_hash(&c, b, bloom_hash(&c, key, sizeof(key))))
				bloom_word_set(&b->inserted,
					       bloom_word_read(&b->inserted) + 1);
		}
		bloom_note_plen(b, 104 + 8 * i);
		rec[i].age_ms = bloom_cpu_to_le64(10 + 60000 * i);
		rec[i].inserted = bloom_cpu_to_le64(bloom_word_read(&b->inserted));
		inserted += bloom_word_read(&b->inserted);
		for (j = 0; j < BLOOM_PLEN_WORDS; j++) {
			rec[i].plens[j] = bloom_cpu_to_le64(bloom_word_read(&b->plens[j]));
			plens[j] |= bloom_word_read(&b->plens[j]);
		}
		bloom_words_to_le(b->words, arrays + i * c.nwords, c.nwords);
	}
	bloom_snap_make_hdr(&c, b, &h);
	h.inserted = bloom_cpu_to_le64(inserted);
	for (j = 0; j < BLOOM_PLEN_WORDS; j++)
		h.plens[j] = bloom_cpu_to_le64(plens[j]);
	bloom_snap_csum_begin(&st, &h);
	bloom_hash_update(&st, rec, sizeof(rec));
	bloom_hash_update(&st, arrays, 3 * bytes);
	h.checksum = bloom_cpu_to_le64(bloom_hash_final(&st));
	snprintf(path, sizeof(path), "%s/seed-aging", dir);
	f = fopen(path, "wb");
	if (!f || fwrite(&h, sizeof(h), 1, f) != 1 ||
	    fwrite(rec, sizeof(rec), 1, f) != 1 ||
	    fwrite(arrays, 3 * bytes, 1, f) != 1 || fclose(f))
		return 1;
	free(arrays);
	free(b);
	return 0;
}

/* Writes one small valid snapshot per geometry into @dir (fuzz seeds). */
/* Write the @n words of @b's array, or a record, to @f. */
static bool put(FILE *f, const void *p, size_t len)
{
	return fwrite(p, len, 1, f) == 1;
}

/*
 * A version 4 seed: a filter that grew to two stages, one key in each,
 * laid out as the kernel's scalable_snap_hdr() and _words() write it.
 */
static int write_scalable_seed(const char *dir)
{
	struct bloom_geom g = { .seed = 9, .key_type = BLOOM_KEY_BYTES,
				.stages_max = 4, .growth = 2,
				.tighten_pct = 50 }, sg[2];
	struct bloom_snap_stage rec[2] = {};
	struct bloom_bits *b[2];
	struct bloom_core c[2];
	struct bloom_snap_hdr h;
	bloom_hash_state st;
	u64 inserted = 0, bytes = sizeof(rec);
	char path[4096];
	__le64 *w[2];
	unsigned int i;
	FILE *f;

	if (bloom_geom_size(16, 5000000, BLOOM_LAYOUT_STANDARD, &g))
		return 1;
	for (i = 0; i < 2; i++) {
		if (bloom_stage_geom(&g, i, &sg[i]))
			return 1;
		bloom_core_init(&c[i], &sg[i]);
		b[i] = calloc(1, sizeof(*b[i]) + bloom_array_bytes(&c[i]));
		w[i] = calloc(1, bloom_array_bytes(&c[i]));
		if (!b[i] || !w[i])
			return 1;
		if (bloom_add_hash(&c[i], b[i], bloom_hash(&c[0], keys[i].key,
							   keys[i].len)))
			bloom_word_set(&b[i]->inserted, 1);
		inserted += bloom_word_read(&b[i]->inserted);
		rec[i].bits = bloom_cpu_to_le64(sg[i].bits);
		rec[i].inserted = bloom_cpu_to_le64(bloom_word_read(&b[i]->inserted));
		bloom_words_to_le(b[i]->words, w[i], c[i].nwords);
		bytes += bloom_array_bytes(&c[i]);
	}
	bloom_snap_make_hdr(&c[0], b[0], &h);
	h.version = bloom_cpu_to_le16(BLOOM_SNAP_VERSION_SCALABLE);
	h.reserved[0] = bloom_cpu_to_le64(4 | 2 << 8 | 50 << 16 | 2 << 24);
	h.inserted = bloom_cpu_to_le64(inserted);
	h.payload_len = bloom_cpu_to_le64(bytes);
	bloom_snap_csum_begin(&st, &h);
	bloom_hash_update(&st, rec, sizeof(rec));
	for (i = 0; i < 2; i++)
		bloom_hash_update(&st, w[i], bloom_array_bytes(&c[i]));
	h.checksum = bloom_cpu_to_le64(bloom_hash_final(&st));
	snprintf(path, sizeof(path), "%s/seed-scalable", dir);
	f = fopen(path, "wb");
	if (!f || !put(f, &h, sizeof(h)) || !put(f, rec, sizeof(rec)) ||
	    !put(f, w[0], bloom_array_bytes(&c[0])) ||
	    !put(f, w[1], bloom_array_bytes(&c[1])) || fclose(f))
		return 1;
	for (i = 0; i < 2; i++) {
		free(b[i]);
		free(w[i]);
	}
	return 0;
}

/*
 * A cuckoo table (version 5): 20 keys in 8 buckets of four 12-bit
 * slots, some slots across two words.
 */
static int write_cuckoo_seed(const char *dir)
{
	struct bloom_geom g = { .layout = BLOOM_LAYOUT_CUCKOO, .hashes = 12,
				.bits = 8 * 4 * 12, .seed = 3, .capacity = 30,
				.key_type = BLOOM_KEY_ADDR };
	struct bloom_cuckoo_node q[BLOOM_CUCKOO_NODES];
	struct bloom_snap_hdr h;
	struct bloom_core c;
	struct bloom_bits *b;
	bloom_hash_state st;
	__le64 payload[8];
	char path[4096];
	u64 i, moves = 0;
	FILE *f;

	bloom_core_init(&c, &g);
	b = calloc(1, sizeof(*b) + bloom_array_bytes(&c));
	if (!b || bloom_array_bytes(&c) > sizeof(payload))
		return 1;
	for (i = 0; i < 20; i++)
		bloom_cuckoo_insert(&c, b, bloom_hash(&c, &i, sizeof(i)), q,
				    NULL, &moves, true);
	bloom_snap_make_hdr(&c, b, &h);
	bloom_words_to_le(b->words, payload, c.nwords);
	bloom_snap_csum_begin(&st, &h);
	bloom_hash_update(&st, payload, bloom_array_bytes(&c));
	h.checksum = bloom_cpu_to_le64(bloom_hash_final(&st));
	snprintf(path, sizeof(path), "%s/seed-cuckoo", dir);
	f = fopen(path, "wb");
	if (!f || fwrite(&h, sizeof(h), 1, f) != 1 ||
	    fwrite(payload, bloom_array_bytes(&c), 1, f) != 1 || fclose(f))
		return 1;
	free(b);
	return 0;
}

static int write_seeds(const char *dir)
{
	unsigned int gi;

	for (gi = 0; gi < ARRAY_SIZE(geoms); gi++) {
		struct bloom_snap_hdr h;
		struct bloom_geom g;
		struct bloom_core c;
		struct bloom_bits *b;
		bloom_hash_state st;
		char path[4096];
		__le64 *payload;
		FILE *f;

		/* A snapshot records the capacity its filter was sized for. */
		g = geoms[gi];
		g.capacity = 100;
		bloom_core_init(&c, &g);
		b = calloc(1, sizeof(*b) + bloom_array_bytes(&c));
		payload = calloc(1, bloom_array_bytes(&c));
		if (!b || !payload)
			return 1;
		bloom_add_hash(&c, b, bloom_hash(&c, keys[1].key, keys[1].len));
		bloom_snap_make_hdr(&c, b, &h);
		bloom_words_to_le(b->words, payload, c.nwords);
		bloom_snap_csum_begin(&st, &h);
		bloom_hash_update(&st, payload, bloom_array_bytes(&c));
		h.checksum = bloom_cpu_to_le64(bloom_hash_final(&st));
		snprintf(path, sizeof(path), "%s/seed-%u", dir, gi);
		f = fopen(path, "wb");
		if (!f || fwrite(&h, sizeof(h), 1, f) != 1 ||
		    fwrite(payload, bloom_array_bytes(&c), 1, f) != 1 ||
		    fclose(f))
			return 1;
		free(payload);
		free(b);
	}
	return write_aging_seed(dir) ?: write_scalable_seed(dir) ?:
	       write_cuckoo_seed(dir);
}

int main(int argc, char **argv)
{
	unsigned int gi, ki, i;

	if (argc == 3 && !strcmp(argv[1], "--seed-corpus"))
		return write_seeds(argv[2]);

	printf("/* SPDX-License-Identifier: GPL-2.0 */\n"
	       "/* Generated by tools/tests/gen_vectors.c: do not edit. */\n"
	       "#ifndef _BLOOM_VECTORS_H\n#define _BLOOM_VECTORS_H\n\n"
	       "struct bloom_vector {\n\tu8 layout;\n\tu32 hashes;\n"
	       "\tu64 bits;\n\tu64 seed;\n\tconst char *key;\n"
	       "\tu32 key_len;\n\tu64 hash;\n\tint npos;\n"
	       "\tu64 pos[BLOOM_MAX_HASHES];\n};\n\n"
	       "static const struct bloom_vector bloom_vectors[] = {\n");
	for (gi = 0; gi < ARRAY_SIZE(geoms); gi++) {
		for (ki = 0; ki < ARRAY_SIZE(keys); ki++) {
			struct bloom_core c;
			struct bloom_bits *b;
			u64 h, w;
			int n = 0;

			bloom_core_init(&c, &geoms[gi]);
			b = calloc(1, sizeof(*b) + bloom_array_bytes(&c));
			h = bloom_hash(&c, keys[ki].key, keys[ki].len);
			bloom_add_hash(&c, b, h);
			printf("\t{ %u, %u, %llu, 0x%llxULL, \"", c.g.layout,
			       c.g.hashes, (unsigned long long)c.g.bits,
			       (unsigned long long)c.g.seed);
			for (i = 0; i < keys[ki].len; i++)
				printf("\\x%02x", (u8)keys[ki].key[i]);
			printf("\", %u, 0x%016llxULL,\n\t  ", keys[ki].len,
			       (unsigned long long)h);
			for (w = 0; w < c.nwords; w++)
				for (u64 x = b->words[w]; x; x &= x - 1)
					n++;
			printf("%d, {", n);
			n = 0;
			for (w = 0; w < c.nwords; w++)
				for (u64 x = b->words[w]; x; x &= x - 1)
					printf("%s%llu,", n++ % 8 ? " " : "\n\t\t",
					       (unsigned long long)
					       (w * 64 + __builtin_ctzll(x)));
			printf("\n\t  } },\n");
			free(b);
		}
	}
	printf("};\n\n#endif /* _BLOOM_VECTORS_H */\n");
	return 0;
}
