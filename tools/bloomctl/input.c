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
 * every key for that; a key_stream (add, build) reads its input once to
 * check it and again for each later pass, a chunk of keys at a time, so
 * that memory stays bounded whatever the length of the list. Input that
 * cannot be read twice (stdin, a pipe) is kept in a temporary file on
 * the first pass; a regular file that changes between passes is refused.
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

static void grow(struct keylist *kl)
{
	if (kl->count < kl->cap)
		return;
	kl->cap = kl->cap ? kl->cap * 2 : 1024;
	kl->recs = xrealloc(kl->recs, kl->cap * kl->stride);
	kl->where = xrealloc(kl->where, kl->cap * sizeof(*kl->where));
	if (kl->with_values)
		kl->values = xrealloc(kl->values,
				      kl->cap * sizeof(*kl->values));
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

static const char *trim(const char *s, size_t *len)
{
	while (*len && isspace((unsigned char)s[*len - 1]))
		(*len)--;
	while (*len && isspace((unsigned char)*s)) {
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
		if ((s[i] == '#' || s[i] == ';') &&
		    (!i || isspace((unsigned char)s[i - 1])))
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

	while (at && !isspace((unsigned char)s[at - 1]))
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
	const char *s = trim(line, &len);

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

/* Where one file of a key_stream is, for its later passes. */
struct stream_file {
	FILE *spool;		/* a copy of input that cannot be reread */
	struct stat st;		/* a regular file, as the first pass saw it */
	off_t start;		/* where stdin was, when it is one */
};

static bool changed(const struct stat *now, const struct stat *then)
{
	return now->st_ino != then->st_ino || now->st_size != then->st_size ||
	       now->st_mtim.tv_sec != then->st_mtim.tv_sec ||
	       now->st_mtim.tv_nsec != then->st_mtim.tv_nsec;
}

/*
 * On the first pass: input that cannot be read again is copied as it is
 * read; a regular file is remembered, to be refused should it change.
 */
static void first_open(struct stream_file *sf, FILE *f, const struct stat *st,
		       const char *shown)
{
	sf->st = *st;
	sf->start = f == stdin ? ftello(f) : 0;
	/* A /proc or /sys file is regular, of size 0, and may change. */
	if (S_ISREG(st->st_mode) && st->st_size)
		return;
	sf->spool = tmpfile();
	if (!sf->spool)
		die("%s: a temporary copy to read it twice: %s", shown,
		    strerror(errno));
}

/* The input file @path of @ks (stdin for "-"), opened for this pass. */
static FILE *open_input(struct key_stream *ks, int i, const char *path,
			const char **shown)
{
	struct stream_file *sf = ks ? &ks->files[i] : NULL;
	bool std = !strcmp(path, "-");
	struct stat st;
	FILE *f;

	*shown = std ? "stdin" : path;
	if (sf && sf->spool) {
		rewind(sf->spool);
		return sf->spool;
	}
	f = std ? stdin : fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	if (!ks)
		return f;
	if (fstat(fileno(f), &st))
		die("%s: %s", *shown, strerror(errno));
	if (ks->pass == 1) {
		first_open(sf, f, &st, *shown);
		return f;
	}
	if (std && fseeko(f, sf->start, SEEK_SET))
		die("%s: %s", *shown, strerror(errno));
	if (changed(&st, &sf->st))
		die("%s: changed while %s read it (%s)", *shown, ks->cmd,
		    ks->sent ? "some keys were applied" : "nothing applied");
	return f;
}

/*
 * Before a pass that applies keys: every input as the first pass saw
 * it, or nothing is applied.
 */
static void check_unchanged(const struct key_stream *ks)
{
	const struct key_input *in = ks->in;
	int i, n = in->nfiles ? in->nfiles : 1;
	struct stat st;
	const char *path;

	for (i = 0; i < n; i++) {
		if (ks->files[i].spool)
			continue;
		path = in->nfiles ? in->files[i] : "-";
		if (!strcmp(path, "-") ? fstat(STDIN_FILENO, &st) :
					 stat(path, &st))
			die("%s: %s", path, strerror(errno));
		if (changed(&st, &ks->files[i].st))
			die("%s: changed while %s read it (nothing applied)",
			    strcmp(path, "-") ? path : "stdin", ks->cmd);
	}
}

/* After each line: a full chunk goes to the stream's consumer. */
static void stream_line(struct key_stream *ks, struct keylist *kl)
{
	if (ks && kl->count >= KEYS_PER_BATCH) {
		ks->chunk(kl, ks->ctx);
		kl->count = 0;
		kl->arena_len = 0;
	}
}

static void load_file(struct keylist *kl, const char *arg, const char *cmd,
		      struct key_stream *ks, int i)
{
	const char *path = file_value(kl, arg), *shown;
	FILE *f = open_input(ks, i, path, &shown);
	FILE *spool = ks && ks->pass == 1 ? ks->files[i].spool : NULL;
	struct progress p;
	char why[WHY_MAX];
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	u32 lineno = 0;

	kl->sources = xrealloc(kl->sources,
			       (kl->nsources + 1) * sizeof(*kl->sources));
	kl->sources[kl->nsources++] = shown;
	progress_start(&p, ks && ks->pass > 1 ? ks->label : "reading",
		       input_size(f), true);
	while ((n = getline(&line, &cap, f)) != -1) {
		if (++lineno == U32_MAX)
			die("%s: more than %u lines", path, U32_MAX - 1);
		if (spool && fwrite(line, 1, (size_t)n, spool) != (size_t)n)
			die("%s: a temporary copy: %s", shown, strerror(errno));
		if (keylist_add_line(kl, line, (size_t)n, lineno, why,
				     sizeof(why)))
			bad_key(kl, lineno, cmd, why);
		if (!(lineno % PROGRESS_EVERY))
			progress_update(&p, (u64)ftello(f));
		stream_line(ks, kl);
	}
	progress_end(&p);
	if (ferror(f) || (spool && fflush(spool)))
		die("%s: %s", shown, strerror(errno));
	free(line);
	if (f != stdin && f != (ks ? ks->files[i].spool : NULL))
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
		load_file(kl, in->files[i], cmd, ks, i);
	if (!in->nfiles && !in->nargs && !isatty(STDIN_FILENO))
		load_file(kl, "-", cmd, ks, 0);
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
	ks->files = xcalloc((size_t)in->nfiles + 1, sizeof(*ks->files));
}

/**
 * key_stream_pass() - read the whole input once more
 * @ks: the stream
 * @label: what this pass does, for its progress line
 * @chunk: called with every chunk of keys in input order (a keylist of
 *	about KEYS_PER_BATCH keys, which it may expand); the last may be
 *	empty
 * @ctx: for @chunk
 *
 * The first pass checks every line (a bad one ends bloomctl, naming it)
 * and keeps what cannot be read again.
 */
void key_stream_pass(struct key_stream *ks, const char *label,
		     void (*chunk)(struct keylist *kl, void *ctx), void *ctx)
{
	struct keylist kl;

	ks->pass++;
	if (ks->pass > 1 && (ks->in->nfiles || !ks->in->nargs))
		check_unchanged(ks);
	ks->label = label;
	ks->chunk = chunk;
	ks->ctx = ctx;
	load_all(&kl, ks->type, ks->in, ks->cmd, ks);
	chunk(&kl, ctx);
	keylist_free(&kl);
}

void key_stream_free(struct key_stream *ks)
{
	int i;

	for (i = 0; i <= ks->in->nfiles; i++)
		if (ks->files[i].spool)
			fclose(ks->files[i].spool);
	free(ks->files);
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
