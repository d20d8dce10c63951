// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for bloomctl's key-file parser (tools/bloomctl/input.c:
 * lines, blanks, comments, ranges, prefixes): the first byte picks the key
 * type, the rest is the file, read line by line with getline() as
 * bloomctl reads it. Whatever the bytes, nothing reads out of bounds or
 * leaks, every key loaded passes the kernel's own bloom_key_check() and
 * keeps the text it came from, and a refused line comes with a message.
 * Each line is also loaded after a blank, which the fast path for bare
 * IPv4 addresses leaves to the general one: both must load the same
 * records with the same texts, or refuse the line alike.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../bloomctl/bloomctl.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t len);

static void check(const struct keylist *kl)
{
	size_t i, klen;

	for (i = 0; i < kl->count; i++) {
		const void *key = rec_key(kl->type, keylist_rec(kl, i), &klen);

		if (bloom_key_check(kl->type, key, klen) ||
		    !keylist_text(kl, i)[0])
			abort();
	}
}

/* The line after a blank loads as the line itself did. */
static void check_blanked(struct keylist *kb, const struct keylist *kl,
			  const char *line, size_t n, u32 lineno, int err)
{
	char *blanked = malloc(n + 1), why[WHY_MAX];
	size_t i, before = kb->count;

	if (!blanked)
		abort();
	blanked[0] = ' ';
	memcpy(blanked + 1, line, n);
	if (!keylist_add_line(kb, blanked, n + 1, lineno, why,
			      sizeof(why)) != !err)
		abort();
	free(blanked);
	if (err) {
		kb->count = before;
		return;
	}
	if (kb->count != kl->count)
		abort();
	for (i = before; i < kl->count; i++)
		if (memcmp(keylist_rec(kb, i), keylist_rec(kl, i), kl->stride) ||
		    strcmp(keylist_text(kb, i), keylist_text(kl, i)))
			abort();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t len)
{
	struct keylist kl, kb;
	int err;
	char why[WHY_MAX], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	u32 lineno = 0;
	FILE *f;

	if (!len)
		return 0;
	memset(&kl, 0, sizeof(kl));
	kl.type = data[0] % BLOOM_KEY_MAX;
	kl.stride = key_stride(kl.type);
	kb = kl;
	f = fmemopen((void *)(data + 1), len - 1, "r");
	if (!f)
		return 0;	/* empty file */
	while ((n = getline(&line, &cap, f)) != -1) {
		why[0] = 0;
		err = keylist_add_line(&kl, line, (size_t)n, ++lineno, why,
				       sizeof(why));
		check_blanked(&kb, &kl, line, (size_t)n, lineno, err);
		if (err) {
			if (!why[0])
				abort();
			break;
		}
	}
	check(&kl);
	keylist_free(&kb);
	free(line);
	fclose(f);
	keylist_free(&kl);
	return 0;
}
