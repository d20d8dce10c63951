// SPDX-License-Identifier: GPL-2.0
/*
 * Static filters and maps, built offline (bloomctl build --kind): the
 * keys are hashed with the seed, sorted, and built into entries with the
 * core's code (module/core/fuse.c), which the kernel reads as they are.
 * A seed that does not build gives way to the next, deterministically,
 * so the same list and seed always give the same file.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"

/* Which kind a --kind names: its fingerprint width, or 0. */
u32 fuse_kind_bits(const char *kind)
{
	if (!strcmp(kind, "fuse8"))
		return 8;
	if (!strcmp(kind, "fuse16"))
		return 16;
	return 0;
}

/* Values need this many bits: the widest value's, at least one. */
u32 fuse_value_bits(const struct keylist *kl)
{
	u32 most = 0, bits = 1;
	size_t i;

	for (i = 0; i < kl->count; i++)
		most = max(most, kl->values[i]);
	while (most >> bits)
		bits++;
	return bits;
}

static void hash_keys(const struct bloom_core *core, const struct keylist *kl,
		      struct bloom_fuse_item *it)
{
	size_t i, len;

	for (i = 0; i < kl->count; i++) {
		const void *key = rec_key(kl->type, keylist_rec(kl, i), &len);

		it[i].h = bloom_hash(core, key, len);
		it[i].value = kl->with_values ? kl->values[i] : 0;
		it[i].idx = (u32)i;
	}
}

/* Two keys with one hash and two values: the same key (an error), or not. */
static bool same_key(const struct keylist *kl, const u32 dup[2])
{
	return !memcmp(keylist_rec(kl, dup[0]), keylist_rec(kl, dup[1]),
		       kl->stride);
}

static void __noreturn two_values(const char *cmd, const struct keylist *kl,
				  const u32 dup[2])
{
	char a[512], b[512];

	keylist_where(kl, dup[0], a, sizeof(a));
	keylist_where(kl, dup[1], b, sizeof(b));
	die("%s: key %s has two values: %u (%s) and %u (%s)", cmd,
	    keylist_text(kl, dup[0]), kl->values[dup[0]], a,
	    kl->values[dup[1]], b);
}

static void note_plens(const struct keylist *kl, struct bloom_bits *bits)
{
	size_t i, len;

	if (kl->type != BLOOM_KEY_NET)
		return;
	for (i = 0; i < kl->count; i++) {
		const struct bloom_key_net *net =
			rec_key(kl->type, keylist_rec(kl, i), &len);

		bloom_note_plen(bits, net->plen);
	}
}

/**
 * fuse_build() - build a static filter of every key of @kl
 * @g: in: layout fuse, key type, f, v and the first seed to try; out:
 *	the geometry built (n distinct keys, and the seed that worked)
 * @kl: the keys (with values if @kl->with_values)
 * @cmd: for messages
 *
 * Dies naming both places of a key given two values.
 *
 * Return: the entries, to free.
 */
struct bloom_bits *fuse_build(struct bloom_geom *g, const struct keylist *kl,
			      const char *cmd)
{
	struct bloom_fuse_item *it, *tmp;
	struct bloom_bits *bits = NULL;
	struct bloom_core core;
	struct bloom_geom want;
	unsigned int tries;
	void *scratch;
	u64 n = 0;
	u32 dup[2];
	int err = -EAGAIN;

	if (bloom_fuse_geom(kl->count, g->hashes, g->value_bits, &want))
		die("%s: %zu keys are more than a static filter holds (%u)",
		    cmd, kl->count, BLOOM_FUSE_KEYS_MAX);
	bloom_core_init(&core, &want);
	scratch = xmalloc(bloom_fuse_scratch_bytes(&core));
	it = xcalloc(kl->count + 1, sizeof(*it));
	tmp = xcalloc(kl->count + 1, sizeof(*tmp));
	for (tries = 0; err == -EAGAIN && tries < BLOOM_FUSE_TRIES; tries++) {
		core.g.seed = g->seed + tries * BLOOM_FUSE_SEED_STEP;
		hash_keys(&core, kl, it);
		err = bloom_fuse_sort(it, tmp, kl->count, scratch, &n, dup);
		if (err == -EEXIST && same_key(kl, dup))
			two_values(cmd, kl, dup);
		if (err == -EEXIST) {
			err = -EAGAIN;	/* two keys, one hash: another seed */
			continue;
		}
		bloom_fuse_geom(n, g->hashes, g->value_bits, &want);
		want.seed = core.g.seed;
		want.key_type = g->key_type;
		want.flags = g->flags;
		bloom_core_init(&core, &want);
		free(bits);
		bits = xcalloc(1, sizeof(*bits) + bloom_array_bytes(&core));
		err = bloom_fuse_build(&core, bits, it, n, scratch);
	}
	free(scratch);
	free(it);
	free(tmp);
	if (err)
		die("%s: no seed of %u built the static filter (%s)", cmd,
		    BLOOM_FUSE_TRIES, strerror(-err));
	note_plens(kl, bits);
	*g = core.g;
	return bits;
}
