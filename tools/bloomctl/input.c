// SPDX-License-Identifier: GPL-2.0
/*
 * Loading keys: from the command line, then from every -f FILE in the
 * order given ("-" is stdin), or from stdin when neither is given and
 * stdin is not a terminal. One key per line; blank lines are skipped; a
 * comment runs from a '#' or ';' at the start of a line or after a blank
 * to the end of the line ("192.0.2.1 # why", Spamhaus's "; SBL123");
 * surrounding whitespace is trimmed. In addr and net filters a line may
 * be a range of addresses, "a-b" (range.c).
 *
 * With values (build --values), a key is followed by its value, after a
 * blank ("192.0.2.0/24 3"), or its file gives one to all its keys
 * ("-f spam.netset=1"); a line's own value comes first.
 *
 * The whole input is parsed and validated before anything is sent to
 * the kernel: a malformed line stops bloomctl with "FILE:LINE: why"
 * and exit status 2, and nothing has been applied. keylist_load() keeps
 * every key for that; a key_stream (add, build) reads its input once,
 * keeping the checked keys in a temporary file, a chunk at a time, and
 * its later passes read them from there: memory stays bounded whatever
 * the length of the list, and no line is parsed twice.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bloomctl.h"

#define PROGRESS_EVERY	4096	/* lines between progress updates */
#define READ_BLOCK	(1 << 20)	/* bytes read at a time */

/* Room for at least @count records. */
static void grow_to(struct keylist *kl, size_t count)
{
	if (count <= kl->cap)
		return;
	kl->cap = max(count, kl->cap ? kl->cap * 2 : (size_t)1024);
	kl->recs = xrealloc(kl->recs, kl->cap * kl->stride);
	kl->where = xrealloc(kl->where, kl->cap * sizeof(*kl->where));
	if (kl->with_values)
		kl->values = xrealloc(kl->values,
				      kl->cap * sizeof(*kl->values));
}

static void grow(struct keylist *kl)
{
	grow_to(kl, kl->count + 1);
}

static u64 keep_text(struct keylist *kl, const char *text, size_t len)
{
	u64 at = kl->arena_len;

	while (kl->arena_len + len + 1 > kl->arena_cap) {
		kl->arena_cap = kl->arena_cap ? kl->arena_cap * 2 : 65536;
		kl->arena = xrealloc(kl->arena, kl->arena_cap);
	}
	memcpy(kl->arena + at, text, len);
	kl->arena[at + len] = 0;
	kl->arena_len += len + 1;
	return at;
}

/* Where a key being loaded comes from. */
struct key_origin {
	struct keylist *kl;
	u64 text;		/* its text, kept in the arena */
	u32 line;
};

static void push_rec(void *ctx, const void *rec)
{
	const struct key_origin *o = ctx;
	struct keylist *kl = o->kl;

	grow(kl);
	memcpy(kl->recs + kl->count * kl->stride, rec, kl->stride);
	kl->where[kl->count].line = o->line;
	kl->where[kl->count].text = o->text;
	kl->where[kl->count].source = kl->nsources ? kl->nsources - 1 : 0;
	if (kl->with_values)
		kl->values[kl->count] = kl->value;
	kl->count++;
}

static void __noreturn bad_key(const struct keylist *kl, u32 line,
			       const char *cmd, const char *why)
{
	if (line)
		die("%s:%u: %s", kl->sources[kl->nsources - 1], line, why);
	die("%s: %s", cmd, why);
}

/* Parse one key (or range) into @kl; -1 with @why filled when it is bad. */
static int parse_key(struct keylist *kl, const char *text, size_t len,
		     u32 line, char *why, size_t whylen)
{
	struct key_origin o = { .kl = kl, .line = line };
	u8 rec[KEY_REC_MAX];
	int ranged;

	o.text = keep_text(kl, text, len);
	ranged = range_expand(kl->type, text, len, push_rec, &o, why, whylen);
	if (!ranged && !key_parse(kl->type, text, len, rec, why, whylen))
		push_rec(&o, rec);
	else if (ranged <= 0)
		return -1;
	return 0;
}

/* A command-line key; a bad one ends the program before anything is sent. */
static void add_key(struct keylist *kl, const char *text, size_t len,
		    const char *cmd)
{
	char why[WHY_MAX];

	if (kl->with_values) {
		if (keylist_add_line(kl, text, len, 0, why, sizeof(why)))
			bad_key(kl, 0, cmd, why);
		return;
	}
	if (parse_key(kl, text, len, 0, why, sizeof(why)))
		bad_key(kl, 0, cmd, why);
}

/* isspace() of the C locale, without a call per byte. */
static inline bool blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static const char *trim(const char *s, size_t *len)
{
	while (*len && blank(s[*len - 1]))
		(*len)--;
	while (*len && blank(*s)) {
		s++;
		(*len)--;
	}
	return s;
}

/* Cut a comment: '#' or ';' at the start or after a blank. */
static size_t uncommented(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((s[i] == '#' || s[i] == ';') && (!i || blank(s[i - 1])))
			return i;
	return len;
}

/* A value: decimal digits, up to BLOOM_FUSE_VALUE_BITS_MAX bits. */
static bool parse_value(const char *s, size_t len, u32 *value)
{
	u64 v = 0;
	size_t i;

	if (!len || len > 6)
		return false;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (u64)(s[i] - '0');
	}
	*value = (u32)v;
	return v < 1U << BLOOM_FUSE_VALUE_BITS_MAX;
}

/*
 * The value of the key on this line: its last field, after a blank, or
 * else its file's; cut from @len. -1 with @why when there is none.
 */
static int take_value(struct keylist *kl, const char *s, size_t *len,
		      char *why, size_t whylen)
{
	size_t at = *len;

	while (at && !blank(s[at - 1]))
		at--;
	if (at) {
		if (!parse_value(s + at, *len - at, &kl->value)) {
			snprintf(why, whylen, "bad value '%.*s' (0 to %u)",
				 (int)min(*len - at, (size_t)32), s + at,
				 (1U << BLOOM_FUSE_VALUE_BITS_MAX) - 1);
			return -1;
		}
		*len = at;
		trim(s, len);
		return 0;
	}
	if (!kl->file_has_value) {
		snprintf(why, whylen, "no value: give \"KEY VALUE\", or -f FILE=VALUE");
		return -1;
	}
	kl->value = kl->file_value;
	return 0;
}

/*
 * The line of most long lists, a bare IPv4 address in an addr filter,
 * parsed straight into its record: the general path below makes the
 * same record and keeps the same text, at several times the cost. False
 * for any other line (a blank first, a comment, a range, IPv6, ...).
 */
static bool plain_v4(struct keylist *kl, const char *line, size_t len,
		     u32 lineno)
{
	struct key_origin o = { .kl = kl, .line = lineno };
	u8 rec[sizeof(struct bloom_key_addr)];

	if (kl->type != BLOOM_KEY_ADDR || kl->with_values)
		return false;
	while (len && blank(line[len - 1]))
		len--;
	if (!v4_parse(line, len, rec))
		return false;
	o.text = keep_text(kl, line, len);
	push_rec(&o, rec);
	return true;
}

/**
 * keylist_add_line() - parse one line of a key file into @kl
 * @kl: the list, its type and stride set
 * @line: the line as read, not NUL-terminated, any bytes
 * @len: its length
 * @lineno: its number, from 1
 * @why: on failure, what is wrong
 * @whylen: size of @why
 *
 * Blank and comment-only lines add nothing.
 *
 * Return: 0, or -1 with @why filled.
 */
int keylist_add_line(struct keylist *kl, const char *line, size_t len,
		     u32 lineno, char *why, size_t whylen)
{
	const char *s;

	if (plain_v4(kl, line, len, lineno))
		return 0;
	s = trim(line, &len);
	len = uncommented(s, len);
	s = trim(s, &len);
	if (len && kl->with_values && take_value(kl, s, &len, why, whylen))
		return -1;
	return len ? parse_key(kl, s, len, lineno, why, whylen) : 0;
}

static u64 input_size(FILE *f)
{
	struct stat st;

	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode))
		return 0;
	return (u64)st.st_size;
}

/* With values, "FILE=VALUE" gives every key of FILE that value. */
static const char *file_value(struct keylist *kl, const char *arg)
{
	const char *eq = strrchr(arg, '=');

	kl->file_has_value = kl->with_values && eq &&
			     parse_value(eq + 1, strlen(eq + 1), &kl->file_value);
	return kl->file_has_value ? strndup(arg, (size_t)(eq - arg)) : arg;
}

/* The input file @path ("-" is stdin), opened. */
static FILE *open_input(const char *path, const char **shown)
{
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "r");

	*shown = std ? "stdin" : path;
	if (!f)
		die("%s: %s", path, strerror(errno));
	return f;
}

/*
 * The lines of an input, read a block at a time: for lists of short
 * keys, getline() cost as much as parsing them.
 */
struct line_reader {
	FILE *f;
	const char *shown;
	char *buf;
	size_t cap, at, end;	/* unread bytes: buf[at, end) */
	bool eof;
};

/* More bytes in the buffer: false at the end of the input. */
static bool refill(struct line_reader *r)
{
	size_t n;

	if (r->eof)
		return false;
	memmove(r->buf, r->buf + r->at, r->end - r->at);
	r->end -= r->at;
	r->at = 0;
	if (r->end == r->cap) {		/* a line longer than the buffer */
		r->cap *= 2;
		r->buf = xrealloc(r->buf, r->cap);
	}
	n = fread(r->buf + r->end, 1, r->cap - r->end, r->f);
	if (ferror(r->f))
		die("%s: %s", r->shown, strerror(errno));
	r->end += n;
	r->eof = !n;
	return n;
}

/* The next line, with its '\n' if it has one; false after the last. */
static bool next_line(struct line_reader *r, const char **line, size_t *len)
{
	size_t from = r->at;
	char *nl;

	while (!(nl = memchr(r->buf + from, '\n', r->end - from))) {
		from = r->end - r->at;	/* where refill() puts new bytes */
		if (!refill(r)) {
			if (r->at == r->end)
				return false;
			nl = r->buf + r->end - 1;	/* the last, unended */
			break;
		}
	}
	*line = r->buf + r->at;
	*len = (size_t)(nl + 1 - *line);
	r->at += *len;
	return true;
}

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
static void stream_line(struct key_stream *ks, struct keylist *kl)
{
	if (!ks || kl->count < KEYS_PER_BATCH)
		return;
	spool_chunk(ks, kl);
	ks->chunk(kl, ks->ctx);
	kl->count = 0;
	kl->arena_len = 0;
}

static void load_file(struct keylist *kl, const char *arg, const char *cmd,
		      struct key_stream *ks)
{
	const char *path = file_value(kl, arg), *shown, *line;
	FILE *f = open_input(path, &shown);
	struct line_reader r = { .f = f, .shown = shown, .cap = READ_BLOCK };
	struct progress p;
	char why[WHY_MAX];
	u32 lineno = 0;
	size_t n;

	kl->sources = xrealloc(kl->sources,
			       (kl->nsources + 1) * sizeof(*kl->sources));
	kl->sources[kl->nsources++] = shown;
	progress_start(&p, "reading", input_size(f), true);
	r.buf = xmalloc(r.cap);
	while (next_line(&r, &line, &n)) {
		if (++lineno == U32_MAX)
			die("%s: more than %u lines", path, U32_MAX - 1);
		if (keylist_add_line(kl, line, n, lineno, why, sizeof(why)))
			bad_key(kl, lineno, cmd, why);
		if (!(lineno % PROGRESS_EVERY))
			progress_update(&p, (u64)ftello(f));
		stream_line(ks, kl);
	}
	progress_end(&p);
	free(r.buf);
	if (f != stdin)
		fclose(f);
}

/**
 * keylist_load() - parse every key of a command's input
 * @kl: filled; free with keylist_free()
 * @type: the filter's key type
 * @in: command-line keys and -f FILE
 * @cmd: the subcommand, for messages
 *
 * Dies on the first malformed key, naming where it is.
 */
static void load_all(struct keylist *kl, u8 type, const struct key_input *in,
		     const char *cmd, struct key_stream *ks)
{
	int i;

	memset(kl, 0, sizeof(*kl));
	kl->type = type;
	kl->stride = key_stride(type);
	kl->with_values = in->values;
	for (i = 0; i < in->nargs; i++) {
		add_key(kl, in->args[i], strlen(in->args[i]), cmd);
		stream_line(ks, kl);
	}
	for (i = 0; i < in->nfiles; i++)
		load_file(kl, in->files[i], cmd, ks);
	if (!in->nfiles && !in->nargs && !isatty(STDIN_FILENO))
		load_file(kl, "-", cmd, ks);
	else if (!in->nfiles && !in->nargs)
		usage_error(cmd, "no keys (give them as arguments, with -f FILE or on stdin)");
}

void keylist_load(struct keylist *kl, u8 type, const struct key_input *in,
		  const char *cmd)
{
	load_all(kl, type, in, cmd, NULL);
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

/* Room in @kl for @count records and @arena_len bytes of text. */
static void reserve(struct keylist *kl, size_t count, size_t arena_len)
{
	grow_to(kl, count);
	if (kl->arena_cap < arena_len) {
		kl->arena_cap = arena_len;
		kl->arena = xrealloc(kl->arena, arena_len);
	}
}

/* @to: the keys of @from, which the stream keeps as they were. */
static void copy_chunk(struct keylist *to, const struct keylist *from)
{
	reserve(to, from->count, from->arena_len);
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
		reserve(&kl, h.count, h.arena_len);
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
	load_all(&kl, ks->type, ks->in, ks->cmd, ks);
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

static const struct keylist *sorting;	/* for by_record() */

static int by_record(const void *a, const void *b)
{
	return memcmp(keylist_rec(sorting, *(const size_t *)a),
		      keylist_rec(sorting, *(const size_t *)b), sorting->stride);
}

/**
 * keylist_distinct() - count distinct keys
 * @kl: the keys
 * @skip: NULL, or a bitmap of keys to leave out (those that test present)
 *
 * Return: how many different keys @kl holds, less those in @skip.
 */
u64 keylist_distinct(const struct keylist *kl, const u8 *skip)
{
	size_t i, n = 0, *idx = xcalloc(kl->count, sizeof(*idx));
	u64 distinct = 0;

	for (i = 0; i < kl->count; i++)
		if (!skip || !(skip[i / 8] >> (i % 8) & 1))
			idx[n++] = i;
	sorting = kl;
	qsort(idx, n, sizeof(*idx), by_record);
	for (i = 0; i < n; i++)
		distinct += !i || by_record(&idx[i - 1], &idx[i]);
	free(idx);
	return distinct;
}

/* Another -f FILE, read after those before it. */
void key_input_file(struct key_input *in, const char *path)
{
	in->files = xrealloc(in->files, (in->nfiles + 1) * sizeof(*in->files));
	in->files[in->nfiles++] = path;
}

/* Append an encoded record with no text (derived keys). */
void keylist_push(struct keylist *kl, const void *rec)
{
	grow(kl);
	memcpy(kl->recs + kl->count * kl->stride, rec, kl->stride);
	kl->where[kl->count].line = 0;
	kl->where[kl->count].text = 0;
	kl->where[kl->count].source = 0;
	if (kl->with_values)
		kl->values[kl->count] = 0;
	kl->count++;
}

void keylist_free(struct keylist *kl)
{
	free(kl->recs);
	free(kl->where);
	free(kl->arena);
	free(kl->sources);
	free(kl->values);
	memset(kl, 0, sizeof(*kl));
}

const void *keylist_rec(const struct keylist *kl, size_t i)
{
	return kl->recs + i * kl->stride;
}

const char *keylist_text(const struct keylist *kl, size_t i)
{
	return kl->arena + kl->where[i].text;
}

/* Where key @i came from: "FILE:LINE" or "argument". */
void keylist_where(const struct keylist *kl, size_t i, char *buf, size_t size)
{
	if (kl->where[i].line)
		snprintf(buf, size, "%s:%u", kl->sources[kl->where[i].source],
			 kl->where[i].line);
	else
		snprintf(buf, size, "argument");
}
