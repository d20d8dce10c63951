// SPDX-License-Identifier: GPL-2.0
/*
 * The input of add and build, gone over in passes of bounded memory
 * (struct key_stream). The first pass reads and checks every line
 * (input.c); each full chunk of checked keys goes to a temporary file
 * in $TMPDIR and the last stays in memory, and the later passes take
 * them from there: no line is read or parsed twice, stdin and pipes are
 * no different from files, and what is sent is what was checked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"

/* A full chunk of checked keys, as the first pass keeps it. */
struct chunk_head {
	u64 count;
	u64 arena_len;
};

/* One of the arrays of a chunk. */
struct chunk_part {
	void *p;
	size_t size;
};

#define CHUNK_PARTS	4

/*
 * The arrays of @kl's chunk, in the order the spool keeps them after
 * their chunk_head: the records, their key_where, values (only with
 * values, which no stream has today: build --values makes a static
 * filter from keylist_load()) and the text. Returns how many.
 */
static int chunk_parts(const struct keylist *kl,
		       struct chunk_part part[CHUNK_PARTS])
{
	int n = 0;

	part[n++] = (struct chunk_part){ kl->recs, kl->count * kl->stride };
	part[n++] = (struct chunk_part){ kl->where,
					 kl->count * sizeof(*kl->where) };
	if (kl->with_values)
		part[n++] = (struct chunk_part){
			kl->values, kl->count * sizeof(*kl->values) };
	part[n++] = (struct chunk_part){ kl->arena, kl->arena_len };
	return n;
}

/* Nothing was applied yet: the first pass ends before anything is. */
static void __noreturn spool_write_failed(const struct key_stream *ks)
{
	die("%s: a temporary file in %s for the checked keys (TMPDIR sets where): %s (nothing applied)",
	    ks->cmd, temp_dir(), strerror(errno));
}

static void spool_write(const struct key_stream *ks, const void *p,
			size_t size)
{
	if (fwrite(p, 1, size, ks->spool) != size)
		spool_write_failed(ks);
}

/*
 * Keep a full chunk of the first pass for the later ones; the temporary
 * file is made for the first (a short list needs none).
 */
static void spool_chunk(struct key_stream *ks, const struct keylist *kl)
{
	struct chunk_head h = { .count = kl->count,
				.arena_len = kl->arena_len };
	struct chunk_part part[CHUNK_PARTS];
	int i, n = chunk_parts(kl, part);

	if (!ks->spool) {
		ks->spool = temp_file();
		if (!ks->spool)
			spool_write_failed(ks);
	}
	spool_write(ks, &h, sizeof(h));
	for (i = 0; i < n; i++)
		spool_write(ks, part[i].p, part[i].size);
}

/* After each line of the first pass: a full chunk is kept, then used. */
void key_stream_line(struct key_stream *ks, struct keylist *kl)
{
	if (!ks || kl->count < KEYS_PER_BATCH)
		return;
	spool_chunk(ks, kl);
	ks->spooled += kl->count;
	ks->chunk(kl, ks->ctx);
	kl->count = 0;
	kl->arena_len = 0;
}

/**
 * key_stream_init() - a command's input, to be read in passes
 * @ks: the stream
 * @type: the filter's key type
 * @in: command-line keys and -f FILE
 * @cmd: the subcommand, for messages
 */
void key_stream_init(struct key_stream *ks, u8 type,
		     const struct key_input *in, const char *cmd)
{
	memset(ks, 0, sizeof(*ks));
	ks->type = type;
	ks->in = in;
	ks->cmd = cmd;
}

/* Read exactly @size bytes of the spool, in the pass @done keys into. */
static void spool_read(const struct key_stream *ks, void *p, size_t size,
		       u64 done)
{
	errno = 0;
	if (fread(p, 1, size, ks->spool) == size)
		return;
	die("%s: reading the checked keys back from a temporary file in %s: %s (%s: %llu of %llu keys done before)",
	    ks->cmd, temp_dir(), errno ? strerror(errno) : "cut short",
	    ks->label, (unsigned long long)done,
	    (unsigned long long)(ks->spooled + ks->last.count));
}

/* @to: the keys of @from, which the stream keeps as they were. */
static void copy_chunk(struct keylist *to, const struct keylist *from)
{
	struct chunk_part src[CHUNK_PARTS], dst[CHUNK_PARTS];
	int i, n;

	keylist_reserve(to, from->count, from->arena_len);
	to->count = from->count;
	to->arena_len = from->arena_len;
	n = chunk_parts(from, src);
	chunk_parts(to, dst);
	for (i = 0; i < n; i++)
		if (src[i].size)	/* an empty chunk's arrays may be NULL */
			memcpy(dst[i].p, src[i].p, src[i].size);
}

/* No keys, of @kl's type, from @kl's sources. */
static struct keylist empty_like(const struct keylist *kl)
{
	return (struct keylist){
		.type = kl->type, .stride = kl->stride,
		.with_values = kl->with_values,
		.sources = kl->sources, .nsources = kl->nsources,
	};
}

/* A later pass: the chunks of the first, as they were. */
static void replay(struct key_stream *ks)
{
	struct keylist kl = empty_like(&ks->last);
	struct chunk_part part[CHUNK_PARTS];
	struct chunk_head h;
	struct progress p;
	u64 done = 0;
	int i, n;

	progress_start(&p, ks->label, ks->spooled + ks->last.count, false);
	if (ks->spool)
		rewind(ks->spool);
	while (done < ks->spooled) {
		spool_read(ks, &h, sizeof(h), done);
		keylist_reserve(&kl, h.count, h.arena_len);
		kl.count = h.count;
		kl.arena_len = h.arena_len;
		n = chunk_parts(&kl, part);
		for (i = 0; i < n; i++)
			spool_read(ks, part[i].p, part[i].size, done);
		ks->chunk(&kl, ks->ctx);
		done += h.count;
		progress_update(&p, done);
	}
	copy_chunk(&kl, &ks->last);
	ks->chunk(&kl, ks->ctx);
	progress_end(&p);
	kl.sources = NULL;	/* the stream's */
	keylist_free(&kl);
}

/**
 * key_stream_pass() - go over the whole input once more
 * @ks: the stream
 * @label: what this pass does, for its progress line
 * @chunk: called with every chunk of keys in input order (a keylist of
 *	about KEYS_PER_BATCH keys, which it may expand); the last may be
 *	empty
 * @ctx: for @chunk
 *
 * The first pass reads and checks every line (a bad one ends bloomctl,
 * naming it). It keeps each full chunk, as parsed, in a temporary file,
 * and the last in memory: the later passes take them from there. The
 * input is read once, so stdin and pipes need nothing more, and what is
 * sent is what was checked, even should a file change meanwhile.
 */
void key_stream_pass(struct key_stream *ks, const char *label,
		     void (*chunk)(struct keylist *kl, void *ctx), void *ctx)
{
	struct keylist kl;

	ks->label = label;
	ks->chunk = chunk;
	ks->ctx = ctx;
	if (ks->read_done) {
		replay(ks);
		return;
	}
	keys_read(&kl, ks->type, ks->in, ks->cmd, ks);
	ks->read_done = true;
	if (ks->spool && fflush(ks->spool))
		spool_write_failed(ks);
	ks->last = empty_like(&kl);
	copy_chunk(&ks->last, &kl);
	chunk(&kl, ctx);
	kl.sources = NULL;	/* now the stream's, in ks->last */
	keylist_free(&kl);
}

void key_stream_free(struct key_stream *ks)
{
	if (ks->spool)
		fclose(ks->spool);
	keylist_free(&ks->last);
	memset(ks, 0, sizeof(*ks));
}
