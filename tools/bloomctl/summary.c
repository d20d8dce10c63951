// SPDX-License-Identifier: GPL-2.0
/*
 * The /16 summary of net filters (BLOOM_F_SUMMARY, module/core/summary.c)
 * on bloomctl's side: made by build with the keys it stores, read from
 * a snapshot file or a live filter (the last words of its payload), and
 * asked first by a test "as a packet", so that test answers as the
 * packet path does.
 */
#include <stdlib.h>
#include "bloomctl.h"

/* An empty summary for a geometry, or NULL when it has none. */
bloom_word_t *summary_new(const struct bloom_geom *g)
{
	u64 words = bloom_summary_words(g);

	return words ? xcalloc(words, sizeof(bloom_word_t)) : NULL;
}

/* Mark the /16s of @kl's net keys in @s (NULL: none kept). */
void summary_note_keys(bloom_word_t *s, const struct bloom_geom *g,
		       const struct keylist *kl)
{
	size_t i, len;

	if (!s || kl->type != BLOOM_KEY_NET)
		return;
	for (i = 0; i < kl->count; i++)
		bloom_summary_note(s, g, rec_key(kl->type, keylist_rec(kl, i),
						 &len));
}

/* A summary from its words in a payload (the last), little-endian. */
bloom_word_t *summary_from_le(const struct bloom_geom *g, const void *payload)
{
	bloom_word_t *s = summary_new(g);

	if (s)
		bloom_words_from_le(s, payload, bloom_summary_words(g));
	return s;
}

/*
 * The summary of live filter @name, if its contents (as SAVE finds them
 * now) have one of geometry flags @flags; NULL when they have none, or
 * were replaced by contents of other flags since INFO: a test then walks
 * every length, as before summaries.
 */
bloom_word_t *summary_fetch(const char *name, u16 flags)
{
	struct bloom_geom g = { .key_type = BLOOM_KEY_NET, .flags = flags };
	u64 words = bloom_summary_words(&g);
	__le64 *le;
	bloom_word_t *s = NULL;

	if (!words)
		return NULL;
	le = xcalloc(words, sizeof(*le));
	if (snap_fetch_tail(name, le, words * sizeof(*le), flags) == 0)
		s = summary_from_le(&g, le);
	free(le);
	return s;
}
