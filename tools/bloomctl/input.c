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
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bloomctl.h"

#define PROGRESS_EVERY	4096	/* lines between progress updates */
#define READ_BLOCK	(1024 * 1024)	/* bytes read at a time */

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

/* Where the next record of @kl goes; commit_rec() keeps it. */
static u8 *next_rec(struct keylist *kl)
{
	grow_to(kl, kl->count + 1);
	return kl->recs + kl->count * kl->stride;
}

/* Keep the record written at next_rec(), from @line, its text at @text. */
static void commit_rec(struct keylist *kl, u32 line, u64 text)
{
	struct key_where *w = &kl->where[kl->count];

	w->line = line;
	w->text = text;
	w->source = kl->nsources ? kl->nsources - 1 : 0;
	if (kl->with_values)
		kl->values[kl->count] = kl->value;
	kl->count++;
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

	memcpy(next_rec(o->kl), rec, o->kl->stride);
	commit_rec(o->kl, o->line, o->text);
}

static void __noreturn bad_key(const struct keylist *kl, u32 line,
			       const char *cmd, const char *why)
{
	if (line)
		die("%s:%u: %s", kl->sources[kl->nsources - 1], line, why);
	die("%s: %s", cmd, why);
}

/*
 * Are the records of @kl from @first of its family? Otherwise drop them
 * and say why: the kernel would refuse them (EAFNOSUPPORT).
 */
static int family_check(struct keylist *kl, size_t first, const char *text,
			size_t len, char *why, size_t whylen)
{
	char shown[WHY_MAX];
	size_t i, klen;

	for (i = first; i < kl->count; i++)
		if (!bloom_key_family_ok(kl->family, kl->type,
					 rec_key(kl->type,
						 kl->recs + i * kl->stride,
						 &klen)))
			break;
	if (i == kl->count)
		return 0;
	kl->count = first;
	text_shown(shown, sizeof(shown), text, len);
	snprintf(why, whylen, "'%s' is an IPv%c key, and the filter's family is %s (IPv%c only)",
		 shown, kl->family == BLOOM_F_INET ? '6' : '4',
		 family_name(kl->family), kl->family == BLOOM_F_INET ? '4' : '6');
	return -1;
}

/* Parse one key (or range) into @kl; -1 with @why filled when it is bad. */
static int parse_key(struct keylist *kl, const char *text, size_t len,
		     u32 line, char *why, size_t whylen)
{
	struct key_origin o = { .kl = kl, .line = line };
	size_t first = kl->count;
	u8 rec[KEY_REC_MAX];
	int ranged;

	o.text = keep_text(kl, text, len);
	ranged = range_expand(kl->type, text, len, push_rec, &o, why, whylen);
	if (!ranged && !key_parse(kl->type, text, len, rec, why, whylen))
		push_rec(&o, rec);
	else if (ranged <= 0)
		return -1;
	return kl->family ? family_check(kl, first, text, len, why, whylen) : 0;
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

/* A value: decimal digits, up to @kl's largest. */
static bool parse_value(const struct keylist *kl, const char *s, size_t len,
			u32 *value)
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
	return v <= kl->value_max;
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
		if (!parse_value(kl, s + at, *len - at, &kl->value)) {
			snprintf(why, whylen, "bad value '%.*s' (0 to %u)",
				 (int)min(*len - at, (size_t)32), s + at,
				 kl->value_max);
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
 * v4_parse() writes the whole record, and bloom_key_check() of an addr
 * key checks only its length, so there is nothing more to check.
 */
static_assert(sizeof(struct bloom_key_addr) == 16,
	      "v4_parse() writes an addr record of 16 bytes");

static bool plain_v4(struct keylist *kl, const char *line, size_t len,
		     u32 lineno)
{
	/* An inet6 filter refuses it: the general path says why. */
	if (kl->type != BLOOM_KEY_ADDR || kl->with_values ||
	    kl->family == BLOOM_F_INET6)
		return false;
	while (len && blank(line[len - 1]))
		len--;
	/* Parsed in place: a line that is not one commits nothing. */
	if (!v4_parse(line, len, next_rec(kl)))
		return false;
	commit_rec(kl, lineno, keep_text(kl, line, len));
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

/*
 * With values, "FILE=VALUE" gives every key of FILE that value. A file
 * whose own name holds the '=' is read as it is; otherwise a bad VALUE,
 * or one without --values, is named, as a bad value on a line is.
 */
static const char *file_value(struct keylist *kl, const char *arg,
			      const char *cmd)
{
	const char *eq = strrchr(arg, '=');

	kl->file_has_value = kl->with_values && eq &&
			     parse_value(kl, eq + 1, strlen(eq + 1),
					 &kl->file_value);
	if (kl->file_has_value)
		return strndup(arg, (size_t)(eq - arg));
	if (!eq || !access(arg, F_OK))
		return arg;
	if (!kl->with_values)
		die("%s: -f %s: =VALUE gives the file's keys a value: it needs --values (build --kind fuse8 or fuse16 --values), or a filter with values (create --layout cuckoo --value-bits)",
		    cmd, arg);
	die("%s: -f %s: bad value '%.32s' (0 to %u)", cmd, arg, eq + 1,
	    kl->value_max);
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

/* A UTF-8 byte order mark, as Windows tools begin a text file with. */
static void skip_bom(const char **line, size_t *len)
{
	if (*len >= 3 && !memcmp(*line, "\xef\xbb\xbf", 3)) {
		*line += 3;
		*len -= 3;
	}
}

static void load_file(struct keylist *kl, const char *arg, const char *cmd,
		      struct key_stream *ks)
{
	const char *path = file_value(kl, arg, cmd), *shown, *line;
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
		if (lineno == 1)
			skip_bom(&line, &n);
		if (keylist_add_line(kl, line, n, lineno, why, sizeof(why)))
			bad_key(kl, lineno, cmd, why);
		if (!(lineno % PROGRESS_EVERY))
			progress_update(&p, (u64)ftello(f));
		if (kl->count >= KEYS_PER_BATCH)	/* not a call a line */
			key_stream_line(ks, kl);
	}
	progress_end(&p);
	free(r.buf);
	if (f != stdin)
		fclose(f);
}

/**
 * keys_read() - parse every key of a command's input
 * @kl: filled; free with keylist_free()
 * @type: the filter's key type
 * @in: command-line keys and -f FILE
 * @cmd: the subcommand, for messages
 * @ks: NULL to keep every key in @kl; else a stream in its first pass,
 *	which takes the keys a chunk at a time (key_stream_line())
 *
 * Dies on the first malformed key, naming where it is.
 */
void keys_read(struct keylist *kl, u8 type, const struct key_input *in,
	       const char *cmd, struct key_stream *ks)
{
	int i;

	memset(kl, 0, sizeof(*kl));
	kl->type = type;
	kl->stride = key_stride(type);
	kl->with_values = in->values;
	kl->value_max = (1U << (in->value_bits ?: BLOOM_FUSE_VALUE_BITS_MAX)) - 1;
	kl->family = in->family;
	for (i = 0; i < in->nargs; i++) {
		add_key(kl, in->args[i], strlen(in->args[i]), cmd);
		key_stream_line(ks, kl);
	}
	for (i = 0; i < in->nfiles; i++)
		load_file(kl, in->files[i], cmd, ks);
	if (!in->nfiles && !in->nargs && !isatty(STDIN_FILENO))
		load_file(kl, "-", cmd, ks);
	else if (!in->nfiles && !in->nargs)
		usage_error(cmd, "no keys (give them as arguments, with -f FILE or on stdin)");
}

/*
 * An input that held no key: an empty variable, a failed download, a
 * list of comments. It is refused, not taken as an empty list: "test"
 * would say every key is listed, "build" would ship an empty filter.
 * @what is what the keys were for, @allowed what --allow-empty does.
 */
void keys_none(const char *cmd, const char *what, const struct key_input *in,
	       const char *allowed)
{
	const char *from = in->nfiles ? in->files[0] : "-";

	die("%s: no key to %s in %s%s (nothing, or only blank lines and comments): --allow-empty %s",
	    cmd, what, strcmp(from, "-") ? from : "stdin",
	    in->nfiles > 1 ? " and the other files" : "", allowed);
}

/* Every key of a command's input, in @kl (del, test, count). */
void keylist_load(struct keylist *kl, u8 type, const struct key_input *in,
		  const char *cmd)
{
	keys_read(kl, type, in, cmd, NULL);
}

/* Room in @kl for @count records and @arena_len bytes of text. */
void keylist_reserve(struct keylist *kl, size_t count, size_t arena_len)
{
	grow_to(kl, count);
	if (kl->arena_cap < arena_len) {
		kl->arena_cap = arena_len;
		kl->arena = xrealloc(kl->arena, arena_len);
	}
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
	memcpy(next_rec(kl), rec, kl->stride);
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
