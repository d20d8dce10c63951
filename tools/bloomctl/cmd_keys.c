// SPDX-License-Identifier: GPL-2.0
/*
 * Keys in a filter: add, del, test and count. The input is parsed whole
 * first (input.c); only then are the keys sent, KEYS_PER_BATCH at a
 * time. test exits 0 when every key is present, 1 when any is absent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"

struct keys_cmd {
	const char *cmd;
	const char *name;
	struct key_input in;
	bool verbose;		/* test: a line per key */
	bool exist;		/* del: absent keys are not an error */
	bool match;		/* test: net keys match as packets do */
	bool force;		/* add: even past the filter's capacity */
	struct bloom_ioc_info info;
	struct keylist kl;
};

static void keys_options(int argc, char **argv, struct keys_cmd *k)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "file",	required_argument,	NULL, 'f' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "exist",	no_argument,		NULL, 'x' },
		{ "match",	no_argument,		NULL, 'M' },
		{ "force",	no_argument,		NULL, 'F' },
		{ NULL, 0, NULL, 0 }
	};
	bool is_add = !strcmp(argv[0], "add");
	bool is_test = !strcmp(argv[0], "test");
	bool is_del = !strcmp(argv[0], "del");
	int c;

	memset(k, 0, sizeof(*k));
	k->cmd = argv[0];
	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS "f:v",
				  longopts)) != -1) {
		if (c == 'f')
			key_input_file(&k->in, optarg);
		else if (c == 'v' && is_test)
			k->verbose = true;
		else if (c == 'x' && is_del)
			k->exist = true;
		else if (c == 'M' && is_test)
			k->match = true;
		else if (c == 'F' && is_add)
			k->force = true;
		else if (c == 'v' || c == 'x' || c == 'M' || c == 'F')
			usage_error(argv[0], "unknown option '%s'",
				    argv[optind - 1]);
		else
			common_option(argv[0], c);
	}
	positional(argv[0], argc - optind, 1, -1, "NAME");
	k->name = argv[optind];
	check_name(argv[0], k->name);
	k->in.args = argv + optind + 1;
	k->in.nargs = argc - optind - 1;
}

/* The filter's key type, then every key of the input, validated. */
static void keys_load(struct keys_cmd *k)
{
	u8 type = filter_key_type(k->cmd, k->name, &k->info);

	keylist_load(&k->kl, type, &k->in, k->cmd);
	free(k->in.files);
	k->in.files = NULL;
}

static bool filter_exists(const char *name)
{
	struct bloom_ioc_info in;

	return !dev_info(name, &in);
}

static void __noreturn batch_failed(const struct keys_cmd *k, int err,
				    size_t applied)
{
	die("%s %s: %s (%zu of %zu key%s applied)", k->cmd, k->name,
	    dev_strerror(err, k->name), applied, k->kl.count,
	    PLURAL(k->kl.count));
}

/* DEL stopped at @i: that key is absent. Fatal unless --exist. */
static void absent_key(const struct keys_cmd *k, size_t i, size_t deleted)
{
	const char *text = keylist_text(&k->kl, i);
	char where[300], shown[300];

	if (k->exist)
		return;
	keylist_where(&k->kl, i, where, sizeof(where));
	text_shown(shown, sizeof(shown), text, strlen(text));
	die("del %s: %s: '%s' is not in the filter (%zu deleted before it)",
	    k->name, where, shown, deleted);
}

/*
 * Send every key with @cmd; TEST and COUNT results go to @results.
 * Returns the sum of the batches' hits; *skipped counts absent keys
 * that DEL --exist stepped over.
 */
static u64 send_keys(struct keys_cmd *k, const struct keylist *kl,
		     unsigned long cmd, u8 *results, size_t *skipped)
{
	struct bloom_ioc_batch b;
	struct progress p;
	size_t at = 0;
	u64 hits = 0;
	int err;

	progress_start(&p, k->cmd, kl->count, false);
	while (at < kl->count) {
		u32 n = (u32)min((size_t)KEYS_PER_BATCH, kl->count - at);
		u8 *out = NULL;

		/* TEST: a bit per key (@at is 8-aligned); COUNT: a byte */
		if (results)
			out = results + (cmd == BLOOM_IOC_TEST ? at / 8 : at);

		err = dev_batch(cmd, k->name, kl, at, n, out, &b);
		hits += b.hits;
		if (err == -ENOENT && cmd == BLOOM_IOC_DEL &&
		    filter_exists(k->name)) {
			absent_key(k, at + b.done, (size_t)hits);
			(*skipped)++;
			at += b.done + 1;
			continue;
		}
		if (err)
			batch_failed(k, err, at + b.done);
		at += n;
		progress_update(&p, at);
	}
	progress_end(&p);
	return hits;
}

static void print_applied(const struct keys_cmd *k, const char *verb,
			  const char *count_key, u64 n, const char *extra_key,
			  u64 extra)
{
	struct json j;

	if (opts.format == OUT_JSON) {
		json_start(&j);
		json_object(&j, NULL);
		json_str(&j, "filter", k->name);
		json_u64(&j, count_key, n);
		json_u64(&j, extra_key, extra);
		json_close(&j, '}');
		json_finish(&j);
	} else if (!opts.quiet) {
		printf("%s %llu key%s %s %s (%llu %s)\n", verb,
		       (unsigned long long)n, PLURAL(n),
		       *verb == 'a' ? "to" : "from",
		       k->name, (unsigned long long)extra, extra_key);
	}
}

/*
 * add refuses to take a filter past its capacity: the keys that test
 * absent now are the ones that will count as inserted.
 */
static void check_capacity(struct keys_cmd *k)
{
	struct bloom_geom g = {
		.bits = k->info.bits, .hashes = k->info.hashes,
		.layout = k->info.layout, .key_type = k->info.key_type,
		.capacity = k->info.capacity,
	};
	char what[16 + BLOOM_NAME_MAX];
	const char *why;
	u8 *map;
	u64 fresh;

	if (!k->kl.count)
		return;
	map = xcalloc(k->kl.count / 8 + 1, 1);
	send_keys(k, &k->kl, BLOOM_IOC_TEST, map, NULL);
	fresh = keylist_distinct(&k->kl, map);
	free(map);
	snprintf(what, sizeof(what), "add %s", k->name);
	why = capacity_problem(what, &g, k->info.inserted + fresh);
	if (why)
		die("%s", why);
}

int cmd_add(int argc, char **argv)
{
	struct keys_cmd k;
	u64 fresh;

	keys_options(argc, argv, &k);
	keys_load(&k);
	if (!k.force)
		check_capacity(&k);
	fresh = send_keys(&k, &k.kl, BLOOM_IOC_ADD, NULL, NULL);
	print_applied(&k, "added", "keys", k.kl.count, "new", fresh);
	keylist_free(&k.kl);
	return EXIT_OK;
}

int cmd_del(int argc, char **argv)
{
	struct keys_cmd k;
	size_t skipped = 0;
	u64 deleted;

	keys_options(argc, argv, &k);
	keys_load(&k);
	deleted = send_keys(&k, &k.kl, BLOOM_IOC_DEL, NULL, &skipped);
	print_applied(&k, "deleted", "deleted", deleted, "absent", skipped);
	keylist_free(&k.kl);
	return EXIT_OK;
}

static bool bit(const u8 *map, size_t i)
{
	return map[i / 8] >> (i % 8) & 1;
}

static bool holds_plen(const struct bloom_ioc_info *in, unsigned int plen)
{
	return in->plens[plen / 64] >> (plen % 64) & 1;
}

/*
 * test --match on a net filter: a key matches as a packet from its
 * address would, when the address masked to any prefix length the filter
 * holds (up to the key's own) is present.
 */
static u64 test_match(struct keys_cmd *k, u8 *map)
{
	struct keylist probes = { .type = BLOOM_KEY_NET,
				  .stride = sizeof(struct bloom_key_net) };
	size_t i, j, ocap = 0, *origin = NULL;
	u64 present = 0;
	u8 *hits;
	int p;

	for (i = 0; i < k->kl.count; i++) {
		const struct bloom_key_net *key = keylist_rec(&k->kl, i);

		for (p = key->plen; p >= 0; p--) {
			struct bloom_key_net probe = *key;

			if (!holds_plen(&k->info, (unsigned int)p))
				continue;
			probe.plen = (u8)p;
			bloom_net_mask(probe.addr, probe.plen);
			keylist_push(&probes, &probe);
			if (probes.count > ocap) {
				ocap = probes.cap;
				origin = xrealloc(origin,
						  ocap * sizeof(*origin));
			}
			origin[probes.count - 1] = i;
		}
	}
	hits = xcalloc(probes.count / 8 + 1, 1);
	send_keys(k, &probes, BLOOM_IOC_TEST, hits, NULL);
	for (j = 0; j < probes.count; j++) {
		if (bit(hits, j) && !bit(map, origin[j])) {
			map[origin[j] / 8] |= (u8)(1 << (origin[j] % 8));
			present++;
		}
	}
	free(hits);
	free(origin);
	keylist_free(&probes);
	return present;
}

static void test_json(const struct keys_cmd *k, const u8 *map, u64 present)
{
	struct json j;
	size_t i;

	json_start(&j);
	json_object(&j, NULL);
	json_str(&j, "filter", k->name);
	json_u64(&j, "keys", k->kl.count);
	json_u64(&j, "present", present);
	json_u64(&j, "absent", k->kl.count - present);
	if (k->verbose) {
		json_array(&j, "results");
		for (i = 0; i < k->kl.count; i++) {
			json_object(&j, NULL);
			json_str(&j, "key", keylist_text(&k->kl, i));
			json_bool(&j, "present", bit(map, i));
			json_close(&j, '}');
		}
		json_close(&j, ']');
	}
	json_close(&j, '}');
	json_finish(&j);
}

static void test_text(const struct keys_cmd *k, const u8 *map, u64 present)
{
	size_t i;

	if (opts.quiet)
		return;
	if (k->verbose) {
		for (i = 0; i < k->kl.count; i++)
			printf("%s %s\n", keylist_text(&k->kl, i),
			       bit(map, i) ? "present" : "absent");
	} else if (k->kl.count == 1) {
		printf("%s is %s %s\n", keylist_text(&k->kl, 0),
		       present ? "present in" : "absent from", k->name);
	} else {
		printf("%llu of %zu key%s present in %s\n",
		       (unsigned long long)present, k->kl.count,
		       PLURAL(k->kl.count), k->name);
	}
}

int cmd_test(int argc, char **argv)
{
	struct keys_cmd k;
	u64 present;
	int status;
	u8 *map;

	keys_options(argc, argv, &k);
	keys_load(&k);
	map = xcalloc(k.kl.count / 8 + 1, 1);
	if (k.match && k.kl.type == BLOOM_KEY_NET)
		present = test_match(&k, map);
	else
		present = send_keys(&k, &k.kl, BLOOM_IOC_TEST, map, NULL);
	if (opts.format == OUT_JSON)
		test_json(&k, map, present);
	else
		test_text(&k, map, present);
	status = present == k.kl.count ? EXIT_OK : EXIT_ABSENT;
	free(map);
	keylist_free(&k.kl);
	return status;
}

int cmd_count(int argc, char **argv)
{
	struct keys_cmd k;
	struct json j;
	u8 count = 0;

	keys_options(argc, argv, &k);
	if (k.in.nfiles || k.in.nargs != 1)
		usage_error(argv[0], "want NAME KEY");
	keys_load(&k);
	send_keys(&k, &k.kl, BLOOM_IOC_COUNT, &count, NULL);
	if (opts.format == OUT_JSON) {
		json_start(&j);
		json_object(&j, NULL);
		json_str(&j, "filter", k.name);
		json_str(&j, "key", keylist_text(&k.kl, 0));
		json_u64(&j, "count", count);
		json_close(&j, '}');
		json_finish(&j);
	} else if (!opts.quiet) {
		printf("%u\n", count);
	}
	keylist_free(&k.kl);
	return EXIT_OK;
}
