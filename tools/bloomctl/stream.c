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

/*
 * A full chunk of checked keys as the first pass of a key_stream keeps
 * it, followed by its records, their key_where, values (with values)
 * and text.
 */
struct chunk_head {
	u64 count;
	u64 arena_len;
};

static void __noreturn spool_failed(const struct key_stream *ks)
{
	die("%s: a temporary file in %s for the checked keys (TMPDIR sets where): %s",
	    ks->cmd, temp_dir(),
	    ks->spool && !ferror(ks->spool) && !errno ? "cut short" :
	    strerror(errno));
}

static void spool_write(const struct key_stream *ks, const void *p,
			size_t size)
{
	if (fwrite(p, 1, size, ks->spool) != size)
		spool_failed(ks);
}

/*
 * Keep a full chunk of the first pass for the later ones; the temporary
 * file is made for the first (a short list needs none).
 */
static void spool_chunk(struct key_stream *ks, const struct keylist *kl)
{
	struct chunk_head h = { .count = kl->count,
				.arena_len = kl->arena_len };

	if (!ks->spool) {
		ks->spool = temp_file();
		if (!ks->spool)
			spool_failed(ks);
	}
	spool_write(ks, &h, sizeof(h));
	spool_write(ks, kl->recs, kl->count * kl->stride);
	spool_write(ks, kl->where, kl->count * sizeof(*kl->where));
	if (kl->with_values)
		spool_write(ks, kl->values, kl->count * sizeof(*kl->values));
	spool_write(ks, kl->arena, kl->arena_len);
}

/* After each line of the first pass: a full chunk is kept, then used. */
void key_stream_line(struct key_stream *ks, struct keylist *kl)
{
	if (!ks || kl->count < KEYS_PER_BATCH)
		return;
	spool_chunk(ks, kl);
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

/* Read exactly @size bytes of the spool. */
static void spool_read(const struct key_stream *ks, void *p, size_t size)
{
	errno = 0;
	if (fread(p, 1, size, ks->spool) != size)
		spool_failed(ks);
}

/* @to: the keys of @from, which the stream keeps as they were. */
static void copy_chunk(struct keylist *to, const struct keylist *from)
{
	keylist_reserve(to, from->count, from->arena_len);
	to->count = from->count;
	to->arena_len = from->arena_len;
	memcpy(to->recs, from->recs, from->count * from->stride);
	memcpy(to->where, from->where, from->count * sizeof(*from->where));
	if (from->with_values)
		memcpy(to->values, from->values,
		       from->count * sizeof(*from->values));
	memcpy(to->arena, from->arena, from->arena_len);
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
	u64 size = ks->spool ? (u64)ftello(ks->spool) : 0;
	struct chunk_head h;
	struct progress p;

	progress_start(&p, ks->label, size, true);
	if (ks->spool)
		rewind(ks->spool);
	while (ks->spool && ftello(ks->spool) < (off_t)size) {
		spool_read(ks, &h, sizeof(h));
		keylist_reserve(&kl, h.count, h.arena_len);
		kl.count = h.count;
		kl.arena_len = h.arena_len;
		spool_read(ks, kl.recs, kl.count * kl.stride);
		spool_read(ks, kl.where, kl.count * sizeof(*kl.where));
		if (kl.with_values)
			spool_read(ks, kl.values, kl.count * sizeof(*kl.values));
		spool_read(ks, kl.arena, kl.arena_len);
		ks->chunk(&kl, ks->ctx);
		progress_update(&p, (u64)ftello(ks->spool));
	}
	progress_end(&p);
	copy_chunk(&kl, &ks->last);
	ks->chunk(&kl, ks->ctx);
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
	if (ks->read) {
		replay(ks);
		return;
	}
	keys_read(&kl, ks->type, ks->in, ks->cmd, ks);
	ks->read = true;
	if (ks->spool && fflush(ks->spool))
		spool_failed(ks);
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
