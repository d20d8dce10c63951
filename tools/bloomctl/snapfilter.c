// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot file as a filter, without the kernel: info, test and count
 * take a file where they take a filter name (target.c), so that a filter built or saved on one
 * machine can be checked before it is shipped to others. The file is
 * verified as a restore would verify it (header, checksum, no bits past
 * m) and queried with module/core/, the code bloom.ko runs: the answers
 * are the kernel's. A growing filter's file holds its stages, and a test
 * probes every one of them, as the kernel's does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "bloomctl.h"

/* Stage @i's figures, as BLOOM_IOC_STAGES reports them. */
static void stage_report(struct snap_filter *sf, u32 i,
			 const struct bloom_stats *st)
{
	struct bloom_ioc_stage *r = &sf->sl.st[i];

	r->bits = sf->core[i].g.bits;
	r->hashes = sf->core[i].g.hashes;
	r->capacity = sf->core[i].g.capacity;
	r->inserted = st->inserted;
	r->bits_set = st->bits_set;
	r->fill_ppb = st->fill_ppb;
	r->est_fpr_ppb = st->est_fpr_ppb;
	r->mem_bytes = st->mem_bytes;
}

/*
 * The statistics of every array as the kernel reports a growing filter's
 * stages: summed (keys, bits, memory), the newest's fill, and the rate
 * of a test that probes them all.
 */
static void file_stats(struct snap_filter *sf, struct bloom_ioc_info *in)
{
	u64 *hist = xcalloc(BLOOM_HIST_WORDS, sizeof(*hist));
	struct bloom_stats st, sum = {};
	u32 i;
	int w;

	for (i = 0; i < sf->nstages; i++) {
		bloom_stats(&sf->core[i], sf->bits[i], hist, &st);
		if (sf->sl.s.stages_max)
			stage_report(sf, i, &st);
		bloom_stats_fold(&sum, &st);
		for (w = 0; w < BLOOM_PLEN_WORDS; w++)
			in->plens[w] |= bloom_word_read(&sf->bits[i]->plens[w]);
	}
	free(hist);
	in->bits_set = sum.bits_set;
	in->fill_ppb = st.fill_ppb;	/* the newest's, last */
	in->est_card = sum.est_card;
	in->est_fpr_ppb = sum.est_fpr_ppb;
	/* A net lookup's, as the kernel reports it (contents.c). */
	if (sf->core[0].g.key_type == BLOOM_KEY_NET)
		in->est_fpr_ppb =
			bloom_lookup_fpr_ppb(in->est_fpr_ppb,
					     bloom_net_lookup_lengths(in->plens));
	in->inserted = sum.inserted;
	in->mem_bytes = sum.mem_bytes;
}

/* The kernel's INFO for these contents; no rule uses a file. */
static void file_info(struct snap_filter *sf, const char *path,
		      struct bloom_ioc_info *in)
{
	const struct bloom_geom *g = &sf->core[0].g;
	char *name = snap_default_name(path);

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
	in->capacity = g->capacity;
	file_stats(sf, in);
}

#define LOAD_CHUNK	(4U << 20)	/* bytes copied between releases */

/*
 * @bytes of words from the snapshot's @src to @dst, a chunk at a time;
 * the pages of @src copied are given back as it goes (the snapshot is
 * freed unread afterwards), so that a large filter is never held twice.
 */
static void copy_release(bloom_word_t *dst, const u8 *src, size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), off, n;
	uintptr_t lo, hi;
	struct progress p;

	progress_start(&p, "loading", bytes > LOAD_CHUNK ? bytes : 0, true);
	for (off = 0; off < bytes; off += n) {
		n = min((size_t)LOAD_CHUNK, bytes - off);
		bloom_words_from_le(dst + off / 8,
				    (const __le64 *)(src + off), n / 8);
		lo = ((uintptr_t)src + off + page - 1) & ~(uintptr_t)(page - 1);
		hi = ((uintptr_t)src + off + n) & ~(uintptr_t)(page - 1);
		if (hi > lo)	/* whole pages of this chunk only */
			madvise((void *)lo, hi - lo, MADV_DONTNEED);
		progress_update(&p, off + n);
	}
	progress_end(&p);
}

/* Array @i of @sf from @words: allocated as the kernel does, checked. */
static void load_array(const char *cmd, const char *path,
		       struct snap_filter *sf, u32 i, const u8 *words)
{
	const struct bloom_core *core = &sf->core[i];
	struct bloom_bits *bits;

	/* words[] is aligned to a block, as the kernel allocates it */
	if (posix_memalign((void **)&bits, BLOOM_BLOCK_BITS / 8,
			   sizeof(*bits) + bloom_array_bytes(core)))
		die("out of memory");
	memset(bits, 0, sizeof(*bits));
	copy_release(bits->words, words, core->nwords * sizeof(u64));
	sf->bits[i] = bits;
	sf->nstages = i + 1;
	if (bloom_bits_check_tail(core, bits))
		die("%s %s: bits are set past the filter's size (m=%llu)", cmd,
		    path, (unsigned long long)core->g.bits);
}

/* The inserted count and prefix lengths of array @i. */
static void set_counts(struct snap_filter *sf, u32 i, u64 inserted,
		       const u64 *plens)
{
	int w;

	bloom_word_set(&sf->bits[i]->inserted, inserted);
	for (w = 0; w < BLOOM_PLEN_WORDS; w++)
		bloom_word_set(&sf->bits[i]->plens[w], plens[w]);
}

/*
 * What BLOOM_IOC_STAGES says of a growing filter, but for its figures:
 * at its limit when it has its most stages (a limit met in growing is
 * the kernel's to find, once restored).
 */
static void stages_of(struct snap_filter *sf, const struct bloom_geom *g)
{
	struct bloom_ioc_stages *s = &sf->sl.s;

	s->stages = sf->nstages;
	s->stages_max = g->stages_max;
	s->growth = g->growth;
	s->tighten_pct = g->tighten_pct;
	s->full = sf->nstages >= g->stages_max;
	s->bound_ppb = bloom_stage_bound_ppb(g);
}

/*
 * A growing filter's payload (version 4): S records, then the S arrays,
 * oldest first, each of the geometry bloom_stage_geom() gives it.
 */
static void load_stages(const char *cmd, const char *path,
			const struct bloom_snap_info *info, const u8 *payload,
			struct snap_filter *sf)
{
	const struct bloom_snap_stage *rec = (const void *)payload;
	const u8 *words = payload + info->stages * sizeof(*rec);
	u64 plens[BLOOM_PLEN_WORDS];
	struct bloom_geom g;
	u32 i;
	int w;

	for (i = 0; i < info->stages; i++) {
		/* As the kernel's load checks it: m, prefix lengths */
		if (bloom_stage_geom(&info->geom, i, &g) ||
		    bloom_le64_to_cpu(rec[i].bits) != g.bits ||
		    bloom_le64_to_cpu(rec[i].plens[BLOOM_PLEN_WORDS - 1]) >> 1)
			die("%s %s: stage %u's record does not match its geometry",
			    cmd, path, i);
		bloom_core_init(&sf->core[i], &g);
		load_array(cmd, path, sf, i, words);
		words += bloom_array_bytes(&sf->core[i]);
		for (w = 0; w < BLOOM_PLEN_WORDS; w++)
			plens[w] = bloom_le64_to_cpu(rec[i].plens[w]);
		set_counts(sf, i, bloom_le64_to_cpu(rec[i].inserted), plens);
	}
	stages_of(sf, &info->geom);
}

/**
 * snap_filter_load() - load a snapshot file as a filter, or die
 * @cmd: the subcommand, for messages
 * @path: the file
 * @sf: filled; free with snap_filter_free()
 * @in: what INFO would say of it once restored (@sf->sl what STAGES
 *	would, for a growing filter)
 */
void snap_filter_load(const char *cmd, const char *path,
		      struct snap_filter *sf, struct bloom_ioc_info *in)
{
	struct bloom_snap_info info;
	struct snap_image img;
	const u8 *payload;
	int err;

	snap_read_file(path, &img);
	err = snap_verify(&img, &info);
	if (err)
		die("%s %s: %s", cmd, path, snap_strerror(err));
	/* Its payload is G generations; restore it to query it. */
	if (info.geom.gens)
		die("%s %s: a snapshot of an aging filter (%u generations) can only be read by restoring it",
		    cmd, path, (unsigned int)info.geom.gens);
	memset(sf, 0, sizeof(*sf));
	bloom_core_init(&sf->core[0], &info.geom);
	payload = img.buf + sizeof(struct bloom_snap_hdr);
	sf->summary = summary_from_le(&info.geom, payload + info.payload_len -
				      8 * bloom_summary_words(&info.geom));
	if (info.stages) {
		load_stages(cmd, path, &info, payload, sf);
	} else {
		load_array(cmd, path, sf, 0, payload);
		set_counts(sf, 0, info.inserted, info.plens);
	}
	snap_free(&img);
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
	u32 i, s;

	for (i = 0; i < n; i++) {
		const void *key = rec_key(kl->type, keylist_rec(kl, first + i),
					  &len);
		/* One seed: every stage probes with the same hash. */
		u64 h = bloom_hash(&sf->core[0], key, len);
		u32 count = 0;

		for (s = 0; s < sf->nstages && !count; s++)
			count = bloom_count_hash(&sf->core[s], sf->bits[s], h);
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
	u32 i;

	for (i = 0; i < sf->nstages; i++) {
		free(sf->bits[i]);
		sf->bits[i] = NULL;
	}
	sf->nstages = 0;
	free(sf->summary);
	sf->summary = NULL;
}
