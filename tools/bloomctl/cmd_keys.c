// SPDX-License-Identifier: GPL-2.0
/*
 * Keys in a filter: add, del, test and count. The input is parsed whole
 * first (input.c); only then are the keys sent, KEYS_PER_BATCH at a
 * time. add streams its input instead (a pass to check it, a pass to
 * send it), so that a list of any length loads in bounded memory. test
 * exits 0 when every key is present, 1 when any is absent. test and
 * count also query a snapshot file offline (snapfilter.c).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
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
	bool allow_empty;	/* test: no key is success */
	bool file;		/* test, count: NAME is a snapshot file */
	struct prefix_opts po;	/* add: net keys' prefix lengths */
	size_t listed;		/* keys given, before the expansion */
	size_t stored;		/* keys sent, after it */
	size_t sent;		/* keys sent before the batch being sent */
	u64 hits_before;	/* what the batches before it counted */
	bool streamed;		/* add: sent a chunk at a time */
	bool expanded;		/* net: some were stored as longer prefixes */
	struct plen_set stored_lens;	/* add: the lengths they went to */
	struct snap_filter sf;	/* its contents */
	struct bloom_ioc_info info;
	struct keylist kl;
};

/* Whether @in, with @nargs keys as arguments, reads keys from stdin. */
static bool stdin_keys(const struct key_input *in, int nargs)
{
	int i;

	for (i = 0; i < in->nfiles; i++)
		if (!strcmp(in->files[i], "-"))
			return true;
	return !in->nfiles && !nargs;
}

/* --netmask4 LEN, --netmask6 LEN: bare addresses stand for their network */
static void netmask_option(const char *cmd, int c, const char *arg)
{
	unsigned int max = c == OPT_NETMASK4 ? 32 : 128;
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || v > max)
		usage_error(cmd, "bad --netmask%d '%s' (0 to %u)",
			    c == OPT_NETMASK4 ? 4 : 6, arg, max);
	key_netmask(c == OPT_NETMASK4 ? 4 : 6, (unsigned int)v);
}

static void keys_options(int argc, char **argv, struct keys_cmd *k)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "file",	required_argument,	NULL, 'f' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "exist",	no_argument,		NULL, 'x' },
		{ "match",	no_argument,		NULL, 'M' },
		{ "force",	no_argument,		NULL, 'F' },
		{ "netmask4",	required_argument,	NULL, OPT_NETMASK4 },
		{ "netmask6",	required_argument,	NULL, OPT_NETMASK6 },
		PREFIX_LONGOPTS, ALLOW_EMPTY_LONGOPT, READ_LONGOPT,
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
		else if ((c == OPT_NETMASK4 || c == OPT_NETMASK6) &&
			 (is_add || is_del))
			netmask_option(argv[0], c, optarg);
		else if (c == OPT_ALLOW_EMPTY && is_test)
			k->allow_empty = true;
		else if (c == OPT_MAX_MEMORY && (is_test || !strcmp(argv[0], "count")))
			read_option(argv[0], c, optarg);
		else if ((is_add || c == OPT_PREFIX_LENGTHS) &&
			 prefix_option(&k->po, argv[0], c, optarg))
			continue;
		else if (c == 'v' || c == 'x' || c == 'M' || c == 'F' ||
			 c == OPT_PROBES || c == OPT_ALLOW_EMPTY ||
			 c == OPT_NETMASK4 || c == OPT_NETMASK6 ||
			 c == OPT_MAX_MEMORY)
			usage_error(argv[0], "unknown option '%s'",
				    argv[optind - 1]);
		else
			common_option(argv[0], c);
	}
	positional(argv[0], argc - optind, 1, -1, "NAME");
	k->po.force = k->force;
	k->name = argv[optind];
	k->file = (is_test || !strcmp(argv[0], "count")) &&
		  is_snap_path(k->name);
	if (!k->file)
		check_name(argv[0], k->name);
	if (k->file && !strcmp(k->name, "-") &&
	    stdin_keys(&k->in, argc - optind - 1))
		die("%s: the filter is read from stdin (-): give the keys as arguments or with -f FILE",
		    k->cmd);
	k->in.args = argv + optind + 1;
	k->in.nargs = argc - optind - 1;
}

static struct plen_set held_lengths(const struct keys_cmd *k)
{
	struct plen_set held;

	memcpy(held.w, k->info.plens, sizeof(held.w));
	return held;
}

/*
 * The lengths del, test and count expand a prefix to: the filter's, or
 * --prefix-lengths LIST (the lengths it was added at), or none (all).
 */
static struct plen_set lookup_lengths(const struct keys_cmd *k)
{
	struct plen_set none = { 0 };

	if (k->po.mode == PREFIX_LIST)
		return k->po.lens;
	return k->po.mode == PREFIX_ALL ? none : held_lengths(k);
}

/* Die before expanding @kl at @lens into more than EXPAND_KEYS_MAX. */
static void bound_expansion(const struct keys_cmd *k,
			    const struct plen_set *lens)
{
	u64 hist[BLOOM_PLEN_MAX + 1], keys;

	prefix_histogram(&k->kl, hist);
	keys = prefix_keys(hist, lens);
	if (keys > EXPAND_KEYS_MAX)
		die("%s %s: the %zu prefixes would be %llu keys at the filter's lengths, more than %llu: give them in parts",
		    k->cmd, k->name, k->kl.count, (unsigned long long)keys,
		    (unsigned long long)EXPAND_KEYS_MAX);
}

/*
 * Net keys are stored at a few prefix lengths (prefixes.c): add stores
 * them at the filter's lengths (or, into an empty filter, the lengths
 * chosen for the list), del and count look for what add stored.
 */
static void keys_expand(struct keys_cmd *k)
{
	struct plen_set lens = lookup_lengths(k);

	if (k->po.probes)
		usage_error(k->cmd, "--probes is for add and build");
	bound_expansion(k, &lens);
	k->expanded = keylist_expand(&k->kl, &lens);
}

/* The filter's geometry and key type: where the keys go. */
static void keys_open(struct keys_cmd *k)
{
	if (k->file)
		snap_filter_load(k->cmd, k->name, &k->sf, &k->info);
	else
		filter_key_type(k->cmd, k->name, &k->info);
	k->in.family = k->info.flags & BLOOM_F_FAMILY;
	if (k->info.layout == BLOOM_LAYOUT_FUSE &&
	    (!strcmp(k->cmd, "add") || !strcmp(k->cmd, "del")))
		die("%s %s: static filter: rebuild it (bloomctl build --kind, then restore --replace)",
		    k->cmd, k->name);
}

/* The filter, then every key of the input, validated (del, test, count). */
static void keys_load(struct keys_cmd *k)
{
	keys_open(k);
	keylist_load(&k->kl, k->info.key_type, &k->in, k->cmd);
	/*
	 * A lookup as a packet asks the /16 summary first, as the kernel;
	 * read once the keys are (stdin may take a while), just before the
	 * lookups.
	 */
	if (!k->file && k->info.key_type == BLOOM_KEY_NET &&
	    strcmp(k->cmd, "del"))
		k->sf.summary = summary_fetch(k->name, k->info.flags);
	if (!k->kl.count && !strcmp(k->cmd, "test") && !k->allow_empty)
		keys_none(k->cmd, "test", &k->in, "makes that success");
	free(k->in.files);
	k->in.files = NULL;
	k->listed = k->kl.count;
	if (k->kl.type == BLOOM_KEY_NET &&
	    (!strcmp(k->cmd, "del") || !strcmp(k->cmd, "count")))
		keys_expand(k);
	k->stored = k->kl.count;
}

static void keys_done(struct keys_cmd *k)
{
	if (k->file)
		snap_filter_free(&k->sf);
	free(k->sf.summary);	/* a live filter's */
	k->sf.summary = NULL;
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
	    dev_strerror(err, k->name), k->sent + applied, k->stored,
	    PLURAL(k->stored));
}

/* DEL stopped at key @i of @kl: it is absent. Fatal unless --exist. */
static void absent_key(const struct keys_cmd *k, const struct keylist *kl,
		       size_t i, size_t deleted)
{
	const char *text = keylist_text(kl, i);
	char where[300], shown[300];

	if (k->exist)
		return;
	keylist_where(kl, i, where, sizeof(where));
	text_shown(shown, sizeof(shown), text, strlen(text));
	die("del %s: %s: '%s' is not in the filter (%zu deleted before it)",
	    k->name, where, shown, deleted);
}

/* ADD stopped at key @i of @kl: a cuckoo table has no room for it. */
static void __noreturn no_room(const struct keys_cmd *k,
			       const struct keylist *kl, size_t i, size_t added)
{
	const char *text = keylist_text(kl, i);
	char where[300], shown[300];

	keylist_where(kl, i, where, sizeof(where));
	text_shown(shown, sizeof(shown), text, strlen(text));
	die("add %s: %s: '%s' does not fit: the cuckoo table has no room left (%zu added before it, kept); delete keys or move to a larger filter",
	    k->name, where, shown, added);
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

	/* A streamed input shows its own progress, in bytes read. */
	progress_start(&p, k->cmd, k->streamed ? 0 : kl->count, false);
	while (at < kl->count) {
		u32 n = (u32)min((size_t)KEYS_PER_BATCH, kl->count - at);
		u8 *out = NULL;

		/* TEST: a bit per key (@at is 8-aligned); COUNT: a byte */
		if (results)
			out = results + (cmd == BLOOM_IOC_TEST ? at / 8 : at);

		if (k->file) {
			memset(&b, 0, sizeof(b));
			b.hits = snap_filter_batch(&k->sf, cmd, kl, at, n, out);
			err = 0;
		} else {
			err = dev_batch(cmd, k->name, kl, at, n, out, &b);
		}
		hits += b.hits;
		if (err == -ENOENT && cmd == BLOOM_IOC_DEL &&
		    filter_exists(k->name)) {
			absent_key(k, kl, at + b.done, (size_t)hits);
			(*skipped)++;
			at += b.done + 1;
			continue;
		}
		if (err == -ENOSPC && cmd == BLOOM_IOC_ADD)
			no_room(k, kl, at + b.done,
				(size_t)(k->hits_before + hits));
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

	unsigned int l, nlens = plen_count(&k->stored_lens);

	if (opts.format == OUT_JSON) {
		json_start(&j);
		json_object(&j, NULL);
		json_str(&j, "filter", k->name);
		json_u64(&j, count_key, n);
		json_u64(&j, extra_key, extra);
		if (k->expanded) {
			json_u64(&j, "stored", k->stored);
			json_array(&j, "stored_prefix_lengths");
			for (l = 0; l <= BLOOM_PLEN_MAX; l++)
				if (k->stored_lens.w[l / 64] >> (l % 64) & 1)
					json_u64(&j, NULL, l);
			json_close(&j, ']');
		}
		json_close(&j, '}');
		json_finish(&j);
	} else if (!opts.quiet) {
		printf("%s %llu key%s %s %s (%llu %s", verb,
		       (unsigned long long)n, PLURAL(n),
		       *verb == 'a' ? "to" : "from",
		       k->name, (unsigned long long)extra, extra_key);
		if (k->expanded && nlens)
			printf("; stored as %zu prefixes of %u length%s",
			       k->stored, nlens, PLURAL(nlens));
		printf(")\n");
	}
}

static bool bit(const u8 *map, size_t i)
{
	return map[i / 8] >> (i % 8) & 1;
}

/* add, a pass at a time over its input (key_stream_pass()). */
struct add_run {
	struct keys_cmd *k;
	struct key_stream ks;
	u64 hist[BLOOM_PLEN_MAX + 1];	/* net: keys of each length */
	struct distinct fresh;		/* keys not in the filter yet */
	u64 added;			/* keys the filter did not hold */
};

/* Net keys go to the lengths chosen for the whole list. */
static void add_expand(struct add_run *a, struct keylist *kl)
{
	if (kl->type == BLOOM_KEY_NET)
		keylist_expand(kl, &a->k->stored_lens);
}

/* The first pass: every key checked, counted by prefix length. */
static void add_counted(struct keylist *kl, void *ctx)
{
	struct add_run *a = ctx;

	a->k->listed += kl->count;
	if (kl->type == BLOOM_KEY_NET)
		prefix_count(kl, a->hist);
}

/* The keys to store: net keys expanded to the lengths chosen for them. */
static void add_plan(struct add_run *a)
{
	struct keys_cmd *k = a->k;
	struct plen_set held = held_lengths(k);
	u64 room = k->info.capacity > k->info.inserted ?
		   k->info.capacity - k->info.inserted : 0;

	k->stored = k->listed;
	if (k->info.key_type != BLOOM_KEY_NET)
		return;
	k->po.lookup_max = info_probes(&k->info);
	prefix_plan(&k->po, a->hist, k->listed, &held, room,
		    &k->stored_lens, k->cmd);
	k->expanded = prefix_expands(a->hist, &k->stored_lens);
	k->stored = (size_t)prefix_keys(a->hist, &k->stored_lens);
}

/* A pass that tests the keys: those absent, counted once each. */
static void add_tested(struct keylist *kl, void *ctx)
{
	struct add_run *a = ctx;
	u8 *map;
	size_t i;

	add_expand(a, kl);
	map = xcalloc(kl->count / 8 + 1, 1);
	send_keys(a->k, kl, BLOOM_IOC_TEST, map, NULL);
	for (i = 0; i < kl->count; i++)
		if (!bit(map, i))
			distinct_add(&a->fresh, keylist_rec(kl, i));
	free(map);
}

/* What keeps @fresh new keys out of the filter, or NULL. */
static const char *capacity_why(const struct keys_cmd *k,
				const struct stage_list *sl, const char *what,
				u64 fresh)
{
	struct bloom_geom g = {
		.bits = k->info.bits, .hashes = k->info.hashes,
		.layout = k->info.layout, .key_type = k->info.key_type,
		.capacity = k->info.capacity, .flags = k->info.flags,
	};

	if (stage_count(sl)) {
		first_stage_geom(&k->info, sl, &g);
		return stages_problem(what, sl, &g, fresh);
	}
	return capacity_problem(what, &g, k->info.inserted + fresh);
}

/*
 * add refuses to take a filter past its capacity (a growing filter past
 * its last stage's): the keys that test absent now are the ones that
 * will count as inserted. When every key the list stores fits even if
 * all are new, there is nothing to test.
 */
static void check_capacity(struct add_run *a)
{
	struct keys_cmd *k = a->k;
	char what[16 + BLOOM_NAME_MAX];
	struct stage_list sl;
	const char *why;
	int err;

	if (!k->stored)
		return;
	snprintf(what, sizeof(what), "add %s", k->name);
	err = dev_stages(k->name, &sl);
	if (err)
		die_dev(what, err, k->name);
	if (!capacity_why(k, &sl, what, k->stored))
		return;
	distinct_init(&a->fresh, key_stride(k->info.key_type));
	key_stream_pass(&a->ks, "checking", add_tested, a);
	why = capacity_why(k, &sl, what, distinct_count(&a->fresh));
	if (why)
		die("%s", why);
}

/* The last pass: the keys sent, a batch at a time. */
static void add_sent(struct keylist *kl, void *ctx)
{
	struct add_run *a = ctx;

	add_expand(a, kl);
	a->added += send_keys(a->k, kl, BLOOM_IOC_ADD, NULL, NULL);
	a->k->hits_before = a->added;
	a->k->sent += kl->count;
}

static u32 value_bits(const struct keys_cmd *k);

/*
 * A filter with values takes each key's value ("KEY VALUE", or -f
 * FILE=VALUE); a snapshot file's are the kernel's to write.
 */
static void add_values(struct keys_cmd *k)
{
	u32 v = value_bits(k);

	if (!v)
		return;
	if (k->file)
		die("add %s: a snapshot of a filter with values: add to the live filter, then save it",
		    k->name);
	k->in.values = true;
	k->in.value_bits = (u8)v;
}

int cmd_add(int argc, char **argv)
{
	struct add_run a = { 0 };
	struct keys_cmd k;

	keys_options(argc, argv, &k);
	keys_open(&k);
	add_values(&k);
	a.k = &k;
	k.streamed = true;
	key_stream_init(&a.ks, k.info.key_type, &k.in, k.cmd);
	key_stream_pass(&a.ks, "reading", add_counted, &a);
	add_plan(&a);
	if (!k.force)
		check_capacity(&a);
	key_stream_pass(&a.ks, "adding", add_sent, &a);
	key_stream_free(&a.ks);
	free(k.in.files);
	print_applied(&k, "added", "keys", k.listed, "new", a.added);
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

static bool holds_plen(const struct bloom_ioc_info *in, unsigned int plen)
{
	return in->plens[plen / 64] >> (plen % 64) & 1;
}

/*
 * A key of a net filter is looked up as a packet from its address would
 * be (longest prefix first, every prefix length the filter holds) when it
 * is a bare address, or any key with --match; a prefix a.b.c.d/len, and
 * the prefixes a range covers, are looked up exactly.
 */
static bool longest_prefix(const struct keys_cmd *k, size_t i)
{
	return k->kl.type == BLOOM_KEY_NET &&
	       (k->match || !strpbrk(keylist_text(&k->kl, i), "/-"));
}

#define NO_MATCH	0xff	/* matched[]: no prefix matched */
#define VALUES_DIFFER	0xfffffffeU	/* values_of(): not one value */

/* Does the filter's /16 summary (if it has one) let @key be present? */
static bool summary_may_hold(const struct keys_cmd *k,
			     const struct bloom_key_net *key)
{
	struct bloom_geom g = { .key_type = BLOOM_KEY_NET,
				.flags = k->info.flags };

	return !k->sf.summary ||
	       bloom_summary_test(k->sf.summary, &g, key->addr);
}

/*
 * The probes of key @i: a longest-prefix key probes its address masked
 * to each prefix length the filter holds, longest first, as
 * bloom_test_net() does (a prefix with --match: up to the length add
 * stored it at); an exact key probes itself, or, at a length the filter
 * does not hold, the prefixes add stored it as (the covering prefixes at
 * the next length it holds). Returns how many probes must hit: 0 for
 * any (the first, longest), else all.
 */
static size_t push_probes(const struct keys_cmd *k, size_t i,
			  struct keylist *probes)
{
	const struct bloom_key_net *key = keylist_rec(&k->kl, i);
	struct plen_set lens = lookup_lengths(k);
	struct bloom_key_net probe = *key;
	unsigned int t = plen_target(&lens, key->plen);
	struct bloom_ioc_info family;
	size_t before = probes->count;
	int p;

	if (longest_prefix(k, i)) {
		/* As bloom_test_net(): no /16 of it held, nothing to probe */
		if (!summary_may_hold(k, key))
			return 0;
		/* ... else the lengths of the key's family. */
		memcpy(family.plens, k->info.plens, sizeof(family.plens));
		bloom_net_family_plens(family.plens, key->addr);
		for (p = (int)t; p >= 0; p--) {
			if (!holds_plen(&family, (unsigned int)p))
				continue;
			probe.plen = (u8)p;
			bloom_net_mask(probe.addr, probe.plen);
			keylist_push(probes, &probe);
		}
		return 0;
	}
	if (holds_plen(&k->info, key->plen))
		t = key->plen;	/* stored as itself */
	if (probes->count + (1ULL << (t - key->plen)) > EXPAND_KEYS_MAX)
		die("%s %s: the keys would be more than %llu lookups at the filter's lengths: give them in parts",
		    k->cmd, k->name, (unsigned long long)EXPAND_KEYS_MAX);
	prefix_covers(key, t, probes);
	return probes->count - before;
}

static void mark_present(u8 *map, u8 *matched, size_t i, u8 plen)
{
	map[i / 8] |= (u8)(1 << (i % 8));
	matched[i] = plen;
}

/*
 * Test a net filter's keys (push_probes()). matched[i] is the prefix
 * length that made key i present.
 */
static u64 test_net(struct keys_cmd *k, u8 *map, u8 *matched)
{
	struct keylist probes = { .type = BLOOM_KEY_NET,
				  .stride = sizeof(struct bloom_key_net) };
	size_t i, j, ocap = 0, *origin = NULL, *need, *got;
	u64 present = 0;
	u8 *hits;

	need = xcalloc(k->kl.count + 1, sizeof(*need));
	got = xcalloc(k->kl.count + 1, sizeof(*got));
	for (i = 0; i < k->kl.count; i++) {
		size_t from = probes.count;

		matched[i] = NO_MATCH;
		need[i] = push_probes(k, i, &probes);
		if (probes.count > ocap) {
			ocap = probes.cap;
			origin = xrealloc(origin, ocap * sizeof(*origin));
		}
		for (j = from; j < probes.count; j++)
			origin[j] = i;
	}
	hits = xcalloc(probes.count / 8 + 1, 1);
	send_keys(k, &probes, BLOOM_IOC_TEST, hits, NULL);
	/* A key's probes are in a row, longest first: the first hit wins. */
	for (j = 0; j < probes.count; j++) {
		const struct bloom_key_net *probe = keylist_rec(&probes, j);

		i = origin[j];
		if (!bit(hits, j) || bit(map, i))
			continue;
		if (!need[i] || ++got[i] == need[i]) {
			mark_present(map, matched, i, probe->plen);
			present++;
		}
	}
	free(hits);
	free(origin);
	free(need);
	free(got);
	keylist_free(&probes);
	return present;
}

/* "203.0.113.0/24" for the prefix of length @plen (on 128 bits) of @key. */
static void prefix_text(const struct bloom_key_net *key, u8 plen, char *buf,
			size_t size)
{
	static const u8 mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct bloom_key_net p = *key;
	char addr[INET6_ADDRSTRLEN];

	bloom_net_mask(p.addr, plen);
	if (!memcmp(p.addr, mapped, sizeof(mapped)) && plen >= 96) {
		inet_ntop(AF_INET, p.addr + 12, addr, sizeof(addr));
		plen -= 96;
	} else {
		inet_ntop(AF_INET6, p.addr, addr, sizeof(addr));
	}
	snprintf(buf, size, "%s/%u", addr, plen);
}

/*
 * How key @i was looked up, for people: "" unless the filter holds net
 * keys; "longest-prefix match, as a packet: 203.0.113.0/24" names the
 * prefix that matched.
 */
static const char *lookup_note(const struct keys_cmd *k, size_t i,
			       const u8 *matched, char *buf, size_t size)
{
	char prefix[INET6_ADDRSTRLEN + 8];

	if (k->kl.type != BLOOM_KEY_NET)
		return "";
	if (!longest_prefix(k, i))
		return " (exact prefix)";
	if (matched[i] == NO_MATCH)
		return " (longest-prefix match, as a packet)";
	prefix_text(keylist_rec(&k->kl, i), matched[i], prefix,
		    sizeof(prefix));
	snprintf(buf, size, " (longest-prefix match, as a packet: %s)",
		 prefix);
	return buf;
}

/* "longest-prefix", "exact", or "mixed" when the keys were both. */
static const char *lookup_kind(const struct keys_cmd *k)
{
	size_t i, lpm = 0;

	for (i = 0; i < k->kl.count; i++)
		lpm += longest_prefix(k, i);
	if (lpm == k->kl.count)
		return "longest-prefix";
	return lpm ? "mixed" : "exact";
}

/*
 * Do @k's keys have values (a static map, a cuckoo filter with values)?
 * Their width, or 0.
 */
static u32 value_bits(const struct keys_cmd *k)
{
	struct bloom_ioc_cuckoo ck = { 0 };
	struct bloom_ioc_fuse f;

	if (k->file)
		return k->sf.core[0].g.value_bits;
	if (k->info.layout == BLOOM_LAYOUT_FUSE)
		return dev_fuse(k->name, &f) ? 0 : f.value_bits;
	if (k->info.layout != BLOOM_LAYOUT_CUCKOO)
		return 0;
	name_copy(ck.name, k->name);
	return dev_ioctl(BLOOM_IOC_CUCKOO, &ck) ? 0 : ck.value_bits;
}

/*
 * The keys whose values key @i has, into @probes: itself, the prefix
 * that matched, or, for a prefix stored as the covering prefixes of a
 * longer length (matched there), every one of them.
 */
static void push_value_keys(const struct keys_cmd *k, size_t i,
			    const u8 *matched, struct keylist *probes)
{
	const struct bloom_key_net *key = keylist_rec(&k->kl, i);
	struct bloom_key_net net;

	if (k->kl.type != BLOOM_KEY_NET || matched[i] == NO_MATCH) {
		keylist_push(probes, key);
		return;
	}
	if (!longest_prefix(k, i)) {
		prefix_covers(key, matched[i], probes);
		return;
	}
	net = *key;
	net.plen = matched[i];
	bloom_net_mask(net.addr, min(net.plen, key->plen));
	keylist_push(probes, &net);
}

/* A key's value in a snapshot file: a static map's or a cuckoo table's. */
static bool file_value(const struct keys_cmd *k, u64 h, u32 *value)
{
	const struct bloom_core *c = &k->sf.core[0];
	struct bloom_cuckoo_key ck;

	if (c->g.layout == BLOOM_LAYOUT_FUSE)
		return bloom_fuse_lookup(c, k->sf.bits[0], h, value);
	bloom_cuckoo_key(c, h, &ck);
	return bloom_cuckoo_value(c, k->sf.bits[0], &ck, value);
}

/* Values of @probes into @values, from the kernel or the file. */
static void lookup_values(struct keys_cmd *k, const struct keylist *probes,
			  u32 *values)
{
	struct bloom_ioc_batch b;
	size_t i, at, len;
	u32 n;
	int err;

	for (at = 0; at < probes->count; at += n) {
		n = (u32)min((size_t)KEYS_PER_BATCH, probes->count - at);
		if (!k->file) {
			err = dev_batch(BLOOM_IOC_VALUE, k->name, probes, at,
					n, values + at, &b);
			if (err)
				batch_failed(k, err, at + b.done);
			continue;
		}
		for (i = at; i < at + n; i++) {
			const void *key = rec_key(probes->type,
						  keylist_rec(probes, i), &len);

			if (!file_value(k, bloom_hash(&k->sf.core[0], key, len),
					&values[i]))
				values[i] = BLOOM_VALUE_ABSENT;
		}
	}
}

/*
 * The values of a static map's present keys (BLOOM_VALUE_ABSENT for
 * the absent ones, VALUES_DIFFER for a prefix whose covering prefixes
 * have more than one: a longer listed prefix inside it has its own), or
 * NULL for a filter without values.
 */
static u32 *values_of(struct keys_cmd *k, const u8 *map, const u8 *matched)
{
	struct keylist probes = { .type = k->kl.type, .stride = k->kl.stride };
	size_t i, j, *first;
	u32 *values, *all;

	if (!value_bits(k))
		return NULL;
	first = xcalloc(k->kl.count + 1, sizeof(*first));
	for (i = 0; i < k->kl.count; i++) {
		first[i] = probes.count;
		push_value_keys(k, i, matched, &probes);
	}
	first[k->kl.count] = probes.count;
	all = xcalloc(probes.count + 1, sizeof(*all));
	lookup_values(k, &probes, all);
	values = xcalloc(k->kl.count + 1, sizeof(*values));
	for (i = 0; i < k->kl.count; i++) {
		values[i] = bit(map, i) ? all[first[i]] : BLOOM_VALUE_ABSENT;
		for (j = first[i] + 1; j < first[i + 1]; j++)
			if (bit(map, i) && all[j] != values[i])
				values[i] = VALUES_DIFFER;
	}
	free(all);
	free(first);
	keylist_free(&probes);
	return values;
}

/* ", value 3" for a present key of a static map, else "". */
static const char *value_note(const u32 *values, size_t i, char *buf,
			      size_t size)
{
	if (!values || values[i] == BLOOM_VALUE_ABSENT)
		return "";
	if (values[i] == VALUES_DIFFER)
		return ", values differ inside it (longer listed prefixes have their own)";
	snprintf(buf, size, ", value %u", values[i]);
	return buf;
}

/* "value": V, or "values_differ": true. */
static void json_value(struct json *j, u32 value)
{
	if (value == VALUES_DIFFER)
		json_bool(j, "values_differ", true);
	else
		json_u64(j, "value", value);
}

static void test_json(const struct keys_cmd *k, const u8 *map,
		      const u8 *matched, u64 present, const u32 *values)
{
	char prefix[INET6_ADDRSTRLEN + 8];
	bool net = k->kl.type == BLOOM_KEY_NET;
	struct json j;
	size_t i;

	json_start(&j);
	json_object(&j, NULL);
	json_str(&j, "filter", k->name);
	json_u64(&j, "keys", k->kl.count);
	json_u64(&j, "present", present);
	json_u64(&j, "absent", k->kl.count - present);
	if (net)
		json_str(&j, "lookup", lookup_kind(k));
	if (values && k->kl.count == 1 && present)
		json_value(&j, values[0]);
	if (k->verbose) {
		json_array(&j, "results");
		for (i = 0; i < k->kl.count; i++) {
			bool lpm = longest_prefix(k, i);

			json_object(&j, NULL);
			json_str(&j, "key", keylist_text(&k->kl, i));
			json_bool(&j, "present", bit(map, i));
			if (values && bit(map, i))
				json_value(&j, values[i]);
			if (net)
				json_str(&j, "lookup",
					 lpm ? "longest-prefix" : "exact");
			if (net && lpm && bit(map, i)) {
				prefix_text(keylist_rec(&k->kl, i), matched[i],
					    prefix, sizeof(prefix));
				json_str(&j, "matched", prefix);
			}
			json_close(&j, '}');
		}
		json_close(&j, ']');
	}
	json_close(&j, '}');
	json_finish(&j);
}

static void test_text(const struct keys_cmd *k, const u8 *map,
		      const u8 *matched, u64 present, const u32 *values)
{
	char note[INET6_ADDRSTRLEN + 64], value[32];
	size_t i;

	if (opts.quiet)
		return;
	if (k->verbose) {
		for (i = 0; i < k->kl.count; i++)
			printf("%s %s%s%s\n", keylist_text(&k->kl, i),
			       bit(map, i) ? "present" : "absent",
			       value_note(values, i, value, sizeof(value)),
			       lookup_note(k, i, matched, note, sizeof(note)));
	} else if (k->kl.count == 1) {
		printf("%s is %s %s%s%s\n", keylist_text(&k->kl, 0),
		       present ? "present in" : "absent from", k->name,
		       value_note(values, 0, value, sizeof(value)),
		       lookup_note(k, 0, matched, note, sizeof(note)));
	} else {
		printf("%llu of %zu key%s present in %s", (unsigned long long)present,
		       k->kl.count, PLURAL(k->kl.count), k->name);
		if (k->kl.type == BLOOM_KEY_NET)
			printf(" (lookup: %s)", lookup_kind(k));
		printf("\n");
	}
}

int cmd_test(int argc, char **argv)
{
	struct keys_cmd k;
	u8 *map, *matched;
	u32 *values;
	u64 present;
	int status;

	keys_options(argc, argv, &k);
	keys_load(&k);
	map = xcalloc(k.kl.count / 8 + 1, 1);
	matched = xcalloc(k.kl.count + 1, 1);
	if (k.kl.type == BLOOM_KEY_NET)
		present = test_net(&k, map, matched);
	else
		present = send_keys(&k, &k.kl, BLOOM_IOC_TEST, map, NULL);
	values = values_of(&k, map, matched);
	if (opts.format == OUT_JSON)
		test_json(&k, map, matched, present, values);
	else
		test_text(&k, map, matched, present, values);
	status = present == k.kl.count ? EXIT_OK : EXIT_ABSENT;
	free(values);
	free(matched);
	free(map);
	keylist_free(&k.kl);
	keys_done(&k);
	return status;
}

/*
 * count of a bare address in a net filter answers as test does, as a
 * packet: the count of the longest prefix of it the filter holds.
 */
static u8 count_as_packet(struct keys_cmd *k)
{
	struct keylist probes = { .type = BLOOM_KEY_NET,
				  .stride = sizeof(struct bloom_key_net) };
	u8 count = 0, *counts;
	size_t j;

	push_probes(k, 0, &probes);
	counts = xcalloc(probes.count + 1, 1);
	if (probes.count)
		send_keys(k, &probes, BLOOM_IOC_COUNT, counts, NULL);
	for (j = 0; j < probes.count && !count; j++)	/* longest first */
		count = counts[j];
	free(counts);
	keylist_free(&probes);
	return count;
}

int cmd_count(int argc, char **argv)
{
	struct keys_cmd k;
	struct json j;
	u8 count, *counts;
	size_t i;

	keys_options(argc, argv, &k);
	if (k.in.nfiles || k.in.nargs != 1)
		usage_error(argv[0], "want NAME KEY");
	keys_load(&k);
	if (k.kl.type == BLOOM_KEY_NET && longest_prefix(&k, 0)) {
		count = count_as_packet(&k);
	} else {
		/* A prefix stored as several: the smallest of their counts. */
		counts = xcalloc(k.kl.count + 1, 1);
		send_keys(&k, &k.kl, BLOOM_IOC_COUNT, counts, NULL);
		for (i = 0, count = counts[0]; i < k.kl.count; i++)
			count = min(count, counts[i]);
		free(counts);
	}
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
	keys_done(&k);
	return EXIT_OK;
}
