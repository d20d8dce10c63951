// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot file as a filter, without the kernel: info, test and count
 * take a path where they take a filter name (an argument holding a '/',
 * which no filter name can), so that a filter built or saved on one
 * machine can be checked before it is shipped to others. The file is
 * verified as a restore would verify it (header, checksum, no bits past
 * m) and queried with module/core/, the code bloom.ko runs: the answers
 * are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"

bool is_snap_path(const char *arg)
{
	return strchr(arg, '/') != NULL;
}

/* The kernel's INFO for these contents; no rule uses a file. */
static void file_info(const struct snap_filter *sf, const char *path,
		      struct bloom_ioc_info *in)
{
	const struct bloom_geom *g = &sf->core.g;
	u64 *hist = xcalloc(BLOOM_HIST_WORDS, sizeof(*hist));
	char *name = snap_default_name(path);
	struct bloom_stats st;
	int i;

	bloom_stats(&sf->core, sf->bits, hist, &st);
	free(hist);
	memset(in, 0, sizeof(*in));
	/* The name a restore would give it, cut to fit. */
	strncpy(in->name, name, sizeof(in->name) - 1);
	free(name);
	in->bits = g->bits;
	in->seed = g->seed;
	in->hashes = g->hashes;
	in->layout = g->layout;
	in->key_type = g->key_type;
	in->flags = g->flags;
	in->bits_set = st.bits_set;
	in->fill_ppb = st.fill_ppb;
	in->est_card = st.est_card;
	in->est_fpr_ppb = st.est_fpr_ppb;
	in->inserted = st.inserted;
	in->mem_bytes = st.mem_bytes;
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		in->plens[i] = bloom_word_read(&sf->bits->plens[i]);
	in->capacity = g->capacity;
}

/**
 * snap_filter_load() - load a snapshot file as a filter, or die
 * @cmd: the subcommand, for messages
 * @path: the file
 * @sf: filled; free with snap_filter_free()
 * @in: what INFO would say of it once restored
 */
void snap_filter_load(const char *cmd, const char *path,
		      struct snap_filter *sf, struct bloom_ioc_info *in)
{
	struct bloom_snap_info info;
	struct snap_image img;
	u64 bytes;
	int err, i;

	snap_read_file(path, &img);
	err = snap_verify(&img, &info);
	if (err)
		die("%s %s: %s", cmd, path, snap_strerror(err));
	/* Its payload is G generations; restore it to query it. */
	if (info.geom.gens)
		die("%s %s: a snapshot of an aging filter (%u generations) can only be read by restoring it",
		    cmd, path, (unsigned int)info.geom.gens);
	memset(sf, 0, sizeof(*sf));
	bloom_core_init(&sf->core, &info.geom);
	bytes = bloom_array_bytes(&sf->core);
	/* words[] is aligned to a block, as the kernel allocates it */
	if (posix_memalign((void **)&sf->bits, BLOOM_BLOCK_BITS / 8,
			   sizeof(*sf->bits) + bytes))
		die("out of memory");
	memset(sf->bits, 0, sizeof(*sf->bits));
	bloom_words_from_le(sf->bits->words,
			    (const __le64 *)(img.buf + sizeof(struct bloom_snap_hdr)),
			    sf->core.nwords);
	snap_free(&img);
	bloom_word_set(&sf->bits->inserted, info.inserted);
	for (i = 0; i < BLOOM_PLEN_WORDS; i++)
		bloom_word_set(&sf->bits->plens[i], info.plens[i]);
	if (bloom_bits_check_tail(&sf->core, sf->bits))
		die("%s %s: bits are set past the filter's size (m=%llu)", cmd,
		    path, (unsigned long long)info.geom.bits);
	file_info(sf, path, in);
}

/**
 * snap_filter_batch() - BLOOM_IOC_TEST or BLOOM_IOC_COUNT on a file
 * @sf: the loaded file
 * @cmd: BLOOM_IOC_TEST or BLOOM_IOC_COUNT
 * @kl: the keys
 * @first: the first key of the batch
 * @n: keys in the batch
 * @out: TEST: a bit per key; COUNT: a byte per key (as dev_batch())
 *
 * Return: the keys present.
 */
u64 snap_filter_batch(const struct snap_filter *sf, unsigned long cmd,
		      const struct keylist *kl, size_t first, u32 n, u8 *out)
{
	u64 present = 0;
	size_t len;
	u32 i;

	for (i = 0; i < n; i++) {
		const void *key = rec_key(kl->type, keylist_rec(kl, first + i),
					  &len);
		u64 h = bloom_hash(&sf->core, key, len);
		u32 count = bloom_count_hash(&sf->core, sf->bits, h);

		present += count > 0;
		if (cmd == BLOOM_IOC_COUNT && out)
			out[i] = (u8)count;
		else if (count && out)
			out[i / 8] |= (u8)(1 << (i % 8));
	}
	return present;
}

void snap_filter_free(struct snap_filter *sf)
{
	free(sf->bits);
	sf->bits = NULL;
}
