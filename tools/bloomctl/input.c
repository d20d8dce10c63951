// SPDX-License-Identifier: GPL-2.0
/*
 * Loading keys: from the command line, from -f FILE ("-" is stdin), or
 * from stdin when neither is given and stdin is not a terminal. One key
 * per line; blank lines and lines starting with '#' are skipped, and
 * surrounding whitespace is trimmed.
 *
 * The whole input is parsed and validated before anything is sent to
 * the kernel: a malformed line stops bloomctl with "FILE:LINE: why"
 * and exit status 2, and nothing has been applied.
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

/* Parse one key; a bad one ends the program before anything is sent. */
static void add_key(struct keylist *kl, const char *text, size_t len,
		    u32 line, const char *cmd)
{
	char why[WHY_MAX];

	grow(kl);
	if (key_parse(kl->type, text, len, kl->recs + kl->count * kl->stride,
		      why, sizeof(why))) {
		if (line)
			die("%s:%u: %s", kl->source, line, why);
		die("%s: %s", cmd, why);
	}
	kl->where[kl->count].line = line;
	kl->where[kl->count].text = keep_text(kl, text, len);
	kl->count++;
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

static u64 input_size(FILE *f)
{
	struct stat st;

	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode))
		return 0;
	return (u64)st.st_size;
}

static void load_file(struct keylist *kl, const char *path, const char *cmd)
{
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "r");
	struct progress p;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	u32 lineno = 0;

	if (!f)
		die("%s: %s", path, strerror(errno));
	kl->source = std ? "stdin" : path;
	progress_start(&p, "reading", input_size(f), true);
	while ((n = getline(&line, &cap, f)) != -1) {
		size_t len = (size_t)n;
		const char *s = trim(line, &len);

		if (++lineno == U32_MAX)
			die("%s: more than %u lines", kl->source, U32_MAX - 1);
		if (len && s[0] != '#')
			add_key(kl, s, len, lineno, cmd);
		if (!(lineno % PROGRESS_EVERY))
			progress_update(&p, (u64)ftello(f));
	}
	progress_end(&p);
	if (ferror(f))
		die("%s: %s", kl->source, strerror(errno));
	free(line);
	if (!std)
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
void keylist_load(struct keylist *kl, u8 type, const struct key_input *in,
		  const char *cmd)
{
	int i;

	memset(kl, 0, sizeof(*kl));
	kl->type = type;
	kl->stride = key_stride(type);
	for (i = 0; i < in->nargs; i++)
		add_key(kl, in->args[i], strlen(in->args[i]), 0, cmd);
	if (in->file)
		load_file(kl, in->file, cmd);
	else if (!in->nargs && !isatty(STDIN_FILENO))
		load_file(kl, "-", cmd);
	else if (!in->nargs)
		usage_error(cmd, "no keys (give them as arguments, with -f FILE or on stdin)");
}

/* Append an encoded record with no text (derived keys). */
void keylist_push(struct keylist *kl, const void *rec)
{
	grow(kl);
	memcpy(kl->recs + kl->count * kl->stride, rec, kl->stride);
	kl->where[kl->count].line = 0;
	kl->where[kl->count].text = 0;
	kl->count++;
}

void keylist_free(struct keylist *kl)
{
	free(kl->recs);
	free(kl->where);
	free(kl->arena);
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
		snprintf(buf, size, "%s:%u", kl->source, kl->where[i].line);
	else
		snprintf(buf, size, "argument");
}
