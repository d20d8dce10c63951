// SPDX-License-Identifier: GPL-2.0
/*
 * The subcommands that need no kernel: build, which makes a snapshot from
 * a list of keys with the filter core alone, and calc, which sizes a
 * filter for each layout. Both use module/core/, the code bloom.ko runs,
 * so build's bits are the bits "create --seed" and "add" would make.
 * build streams its input (input.c): a pass checks it, another adds it
 * (with one more to count the distinct keys when it sizes the filter by
 * them), so that its memory is the filter's and a bounded buffer. A
 * static filter is built from all its keys at once (fuse.c) and keeps
 * them in memory.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"

#define LN2		0.69314718055994530942
#define OVER_CAP	"over the size cap (2^37 bits, 2^35 counters: 16 GiB)"

/*
 * Into a cuckoo table, as the kernel's add does, with no one reading:
 * no hooks around the moves. A key that does not fit ends the build.
 */
static void cuckoo_add(const struct bloom_core *core, struct bloom_bits *bits,
		       u64 h, size_t i)
{
	static struct bloom_cuckoo_node queue[BLOOM_CUCKOO_NODES];
	u64 moves = 0;

	if (bloom_cuckoo_insert(core, bits, h, queue, NULL, &moves, true) < 0)
		die("build: the cuckoo table is full at key %zu of the input: give a larger --capacity",
		    i + 1);
}

/*
 * Add every key of @kl as the kernel's BLOOM_IOC_ADD does, in order
 * (net keys to the /16 @summary too, if the filter has one); @first
 * keys came before them.
 */
static void add_all(const struct bloom_core *core, struct bloom_bits *bits,
		    bloom_word_t *summary, const struct keylist *kl,
		    size_t first)
{
	size_t i, len;

	summary_note_keys(summary, &core->g, kl);
	for (i = 0; i < kl->count; i++) {
		const void *key = rec_key(kl->type, keylist_rec(kl, i), &len);
		const struct bloom_key_net *net = key;
		u64 h = bloom_hash(core, key, len);

		if (kl->type == BLOOM_KEY_NET)
			bloom_note_plen(bits, net->plen);
		if (core->g.layout == BLOOM_LAYOUT_CUCKOO)
			cuckoo_add(core, bits, h, first + i);
		else
			bloom_add_hash(core, bits, h);
	}
}

/* The sealed snapshot of a filter held in memory: array, then summary. */
static void image_of(const struct bloom_core *core,
		     const struct bloom_bits *bits,
		     const bloom_word_t *summary, struct snap_image *img)
{
	u64 sw = bloom_summary_words(&core->g);
	struct bloom_snap_hdr *h;
	__le64 *out;

	img->len = sizeof(*h) + 8 * sw + bloom_array_bytes(core);
	img->buf = xmalloc(img->len);
	h = (struct bloom_snap_hdr *)img->buf;
	bloom_snap_make_hdr(core, bits, h);
	out = (__le64 *)(img->buf + sizeof(*h));
	bloom_words_to_le(bits->words, out, core->nwords);
	bloom_words_to_le(summary, out + core->nwords, sw);
	snap_seal(img);
}

static void built_json(const char *path, const struct bloom_geom *g,
		       size_t keys, size_t len, const struct snap_image *orig,
		       int method)
{
	struct json j;

	json_start(&j);
	json_object(&j, NULL);
	json_str(&j, "file", path);
	json_str(&j, "layout", bloom_layout_name(g->layout));
	json_str(&j, "key", bloom_key_type_name(g->key_type));
	json_family(&j, g->key_type, g->flags);
	json_u64(&j, "bits", g->bits);
	json_u64(&j, "hashes", g->hashes);
	json_seed(&j, g->seed);
	json_u64(&j, "keys", keys);
	json_u64(&j, "bytes", len);
	if (method >= 0) {
		json_str(&j, "compression", snapz_method_name(method));
		json_u64(&j, "snapshot_bytes", orig->len);
	}
	json_close(&j, '}');
	json_finish(&j);
}

static void built_msg(const char *path, const struct bloom_geom *g,
		      size_t keys, size_t len, const struct snap_image *orig,
		      int method)
{
	char size[32], osize[32], from[64] = "";

	if (!strcmp(path, "-"))
		return;		/* stdout holds the snapshot */
	if (opts.format == OUT_JSON) {
		built_json(path, g, keys, len, orig, method);
		return;
	}
	if (opts.quiet)
		return;
	human_bytes(len, size, sizeof(size));
	if (method >= 0) {
		human_bytes(orig->len, osize, sizeof(osize));
		snprintf(from, sizeof(from), ", %s, from %s",
			 snapz_method_name(method), osize);
	}
	printf("built %s: %s, key %s, m=%llu, k=%u, seed 0x%llx, %zu key%s (%s%s)\n",
	       path, bloom_layout_name(g->layout), key_label(g->key_type, g->flags),
	       (unsigned long long)g->bits, g->hashes,
	       (unsigned long long)g->seed, keys, PLURAL(keys), size, from);
}

/*
 * The filter @bits of geometry @g (and its /16 @summary), built from
 * @keys keys, to @path.
 */
static void write_built(const char *path, const struct bloom_geom *g,
			struct bloom_bits *bits, bloom_word_t *summary,
			size_t keys, bool compress)
{
	struct snap_image img, z = { NULL, 0 };
	const struct snap_image *out = compress ? &z : &img;
	struct bloom_core core;
	int method = -1;
	int err;

	bloom_core_init(&core, g);
	image_of(&core, bits, summary, &img);
	free(bits);
	free(summary);
	if (compress)
		method = (int)snapz_pack(&img, &z);
	err = write_file_atomic(path, out->buf, out->len);
	if (err)
		die("build: %s: %s", path, strerror(-err));
	built_msg(path, g, keys, out->len, &img, method);
	snap_free(&img);
	snap_free(&z);
}

#define EMPTY_BUILD	"writes an empty filter"

/* build of a filter that is not static, a pass at a time. */
struct build_run {
	struct key_stream ks;
	const char *cmd;
	u64 hist[BLOOM_PLEN_MAX + 1];	/* net: keys of each length */
	u64 listed, stored;		/* keys read; keys to store */
	struct plen_set lens;		/* net: the lengths they go to */
	struct distinct distinct;
	bool counting;			/* feeding @distinct */
	u64 keys;			/* distinct keys, once counted */
	struct bloom_core core;
	struct bloom_bits *bits;
	bloom_word_t *summary;		/* net: its /16s, or NULL */
	size_t added;
};

/*
 * The first pass: every key checked, counted by prefix length; counted
 * once each when they size the filter and are stored as they are.
 */
static void build_counted(struct keylist *kl, void *ctx)
{
	struct build_run *b = ctx;
	size_t i;

	b->listed += kl->count;
	if (kl->type == BLOOM_KEY_NET)
		prefix_count(kl, b->hist);
	for (i = 0; b->counting && i < kl->count; i++)
		distinct_add(&b->distinct, keylist_rec(kl, i));
}

/* The keys of a chunk as stored: net keys at the lengths chosen. */
static void build_expand(struct build_run *b, struct keylist *kl)
{
	size_t i;

	if (kl->type == BLOOM_KEY_NET)
		keylist_expand(kl, &b->lens);
	for (i = 0; b->counting && i < kl->count; i++)
		distinct_add(&b->distinct, keylist_rec(kl, i));
}

static void build_distinct(struct keylist *kl, void *ctx)
{
	build_expand(ctx, kl);
}

static void build_added(struct keylist *kl, void *ctx)
{
	struct build_run *b = ctx;

	build_expand(b, kl);
	add_all(&b->core, b->bits, b->summary, kl, b->added);
	b->added += kl->count;
}

/*
 * Count the distinct keys stored: net keys, once their lengths are
 * chosen, in a pass of their own; others were counted as they were read.
 */
static void count_distinct(struct build_run *b)
{
	if (b->ks.type == BLOOM_KEY_NET) {
		distinct_init(&b->distinct, key_stride(b->ks.type));
		b->counting = true;
		key_stream_pass(&b->ks, "counting", build_distinct, b);
	}
	b->counting = false;
	b->keys = distinct_count(&b->distinct);
}

/*
 * A filter of geometry @g holding the keys, written to @path. Past its
 * capacity only without --force: when even the keys stored, repeats
 * and all, fit, there is nothing to count.
 */
static void build_file(struct build_run *b, const char *path,
		       const struct bloom_geom *g, bool force, bool compress)
{
	struct bloom_geom geom = *g;
	const char *why = NULL;
	bool count = false;

	if (!geom.capacity)
		geom.capacity = bloom_geom_default_capacity(&geom);
	if (!force && !b->keys)
		count = capacity_problem("build", &geom, b->stored);
	bloom_core_init(&b->core, &geom);
	b->bits = xcalloc(1, sizeof(*b->bits) + bloom_array_bytes(&b->core));
	b->summary = summary_new(&geom);
	if (count) {
		distinct_init(&b->distinct, key_stride(b->ks.type));
		b->counting = true;
	}
	key_stream_pass(&b->ks, "building", build_added, b);
	if (count)
		b->keys = distinct_count(&b->distinct);
	if (!force && b->keys)
		why = capacity_problem("build", &geom, b->keys);
	if (why)
		die("%s", why);
	write_built(path, &geom, b->bits, b->summary, b->stored, compress);
}

static u32 kind_option(const char *cmd, const char *arg)
{
	u32 fp_bits = fuse_kind_bits(arg);

	if (!fp_bits)
		usage_error(cmd, "unknown kind '%s' (fuse8 or fuse16)", arg);
	return fp_bits;
}

/*
 * --kind's width gives the rate 2^-f whatever the target: refused when
 * that is above --fp-rate (a net lookup's, over its probes, as below),
 * rather than building a filter worse than asked for.
 */
static void kind_meets_rate(const struct bloom_geom *g, u32 fp_bits,
			    u64 fpr_ppb)
{
	double rate = ldexp(1.0, -(int)fp_bits);

	if (rate * BLOOM_PPB <= bloom_probe_fpr_ppb(g, fpr_ppb) * (1 + 1e-9))
		return;
	usage_error("build", "--kind fuse%u gives %.2g%% (2^-%u), above --fp-rate %g: give --kind fuse16, or --layout fuse --fp-rate alone (the width the rate needs)",
		    fp_bits, rate * 100, fp_bits, (double)fpr_ppb / BLOOM_PPB);
}

/*
 * Options that mean nothing to a static filter, refused rather than
 * ignored: it is built once from exactly the keys given (a net list's
 * --capacity still bounds its prefixes' expansion), and is of layout
 * fuse.
 */
static void static_conflicts(const struct geom_opts *o, u32 fp_bits,
			     bool layout)
{
	if (fp_bits && layout && o->layout != BLOOM_LAYOUT_FUSE)
		usage_error("build", "--kind builds a static filter (layout fuse): not --layout %s",
			    bloom_layout_name(o->layout));
	if (o->capacity && o->key_type != BLOOM_KEY_NET)
		usage_error("build", "a static filter holds exactly the keys given: --capacity does not apply");
}

/*
 * A static filter (--kind, or --layout fuse) of every key of @kl: its
 * fingerprint from --kind, or the narrowest for --fp-rate; values when
 * the keys have them.
 */
static void build_static(const char *path, const struct geom_opts *o,
			 u32 fp_bits, const struct keylist *kl, bool compress)
{
	struct bloom_geom g = { .layout = BLOOM_LAYOUT_FUSE };
	bloom_word_t *summary;
	struct bloom_bits *bits;

	if (o->bits || o->hashes || o->grow || o->generations || o->transport)
		usage_error("build", "a static filter is sized by its keys: give --kind (or --fp-rate), not --bits, --hashes, --grow, --generations or --transport");
	g.key_type = (u8)o->key_type;
	g.flags = geom_flags(o);
	if (fp_bits && o->fpr_ppb)
		kind_meets_rate(&g, fp_bits, o->fpr_ppb);
	/* A net lookup's rate is over its P probes, as for the others. */
	if (!fp_bits && o->fpr_ppb)
		bloom_geom_size(1, bloom_probe_fpr_ppb(&g, o->fpr_ppb),
				BLOOM_LAYOUT_FUSE, &g);
	g.hashes = fp_bits ?: g.hashes ?: 8;
	g.value_bits = kl->with_values ? fuse_value_bits(kl) : 0;
	geom_seed(o, "build", &g);
	bits = fuse_build(&g, kl, "build");
	summary = summary_new(&g);
	summary_note_keys(summary, &g, kl);
	write_built(path, &g, bits, summary, kl->count, compress);
}

/* A static filter: every key in memory, as its construction needs. */
static void build_static_keys(const char *path, struct geom_opts *o,
			      const struct prefix_opts *po, u32 fp_bits,
			      const struct key_input *in, bool compress,
			      bool allow_empty)
{
	u64 hist[BLOOM_PLEN_MAX + 1];
	struct plen_set lens;
	struct keylist kl;

	keylist_load(&kl, (u8)o->key_type, in, "build");
	if (!kl.count && !allow_empty)
		keys_none("build", "build from", in, EMPTY_BUILD);
	if (kl.type == BLOOM_KEY_NET) {
		/* -n: prefixes, as for the others */
		o->own_lengths = po->mode == PREFIX_ALL;
		geom_net_capacity(o);
		prefix_histogram(&kl, hist);
		prefix_plan(po, hist, kl.count, NULL, o->capacity, &lens,
			    "build");
		keylist_expand(&kl, &lens);
		o->probes = max(plen_count(&lens), 1U);
	}
	build_static(path, o, fp_bits, &kl, compress);
	keylist_free(&kl);
}

/*
 * A net list's lengths and the P it is sized for. Given a size and
 * letting bloomctl choose the lengths, build is create and add: P is
 * --probes, or create's default, and the lengths add's choice within
 * it. Otherwise P is exactly the lengths stored.
 */
static void build_net_plan(struct build_run *b, struct geom_opts *o,
			   struct prefix_opts *po)
{
	bool as_create = (o->capacity || o->bits || o->hashes) &&
			 po->mode == PREFIX_AUTO;

	/* -n counts prefixes (geom.c); the keys counted are keys. */
	o->own_lengths = po->mode == PREFIX_ALL;
	geom_net_capacity(o);
	o->net_doubled = true;
	if (as_create)
		po->lookup_max = po->probes ?: NET_PROBES_DEFAULT;
	prefix_plan(po, b->hist, b->listed, NULL, o->capacity, &b->lens,
		    b->cmd);
	b->stored = prefix_keys(b->hist, &b->lens);
	o->probes = as_create ? po->lookup_max :
		    max(prefix_stored_lengths(b->hist, &b->lens), 1U);
}

/* Any other filter, from its input read in passes. */
static void build_streamed(const char *path, struct geom_opts *o,
			   struct prefix_opts *po,
			   const struct key_input *in, bool force,
			   bool compress, bool allow_empty)
{
	struct build_run b = { .cmd = "build" };
	struct bloom_geom g;

	key_stream_init(&b.ks, (u8)o->key_type, in, b.cmd);
	/* Without a size, sized for the distinct keys read. */
	if (!o->capacity && !o->bits && !o->hashes &&
	    b.ks.type != BLOOM_KEY_NET) {
		distinct_init(&b.distinct, key_stride(b.ks.type));
		b.counting = true;
	}
	key_stream_pass(&b.ks, "reading", build_counted, &b);
	if (!b.listed && !allow_empty)
		keys_none(b.cmd, "build from", in, EMPTY_BUILD);
	b.stored = b.listed;
	if (b.ks.type == BLOOM_KEY_NET)
		build_net_plan(&b, o, po);
	if (!o->capacity && !o->bits && !o->hashes) {
		count_distinct(&b);
		o->capacity = max(b.keys, (u64)1);
	}
	geom_opts_finish(o, b.cmd);
	geom_resolve(o, b.cmd, &g);
	if (o->transport)
		transport_geom(o, &g);	/* and compressed: what it is for */
	build_file(&b, path, &g, force, compress || o->transport);
	key_stream_free(&b.ks);
}

int cmd_build(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS, OUT_LONGOPT,
		{ "file",	required_argument,	NULL, 'f' },
		{ "force",	no_argument,		NULL, 'F' },
		{ "kind",	required_argument,	NULL, OPT_KIND },
		{ "values",	no_argument,		NULL, OPT_VALUES },
		ALLOW_EMPTY_LONGOPT,
		GEOM_LONGOPTS, COMPRESS_LONGOPT, TRANSPORT_LONGOPTS,
		PREFIX_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	bool force = false, compress = false, layout = false;
	bool allow_empty = false;
	struct prefix_opts po = { 0 };
	u32 fp_bits = 0;
	struct key_input in = { 0 };
	struct geom_opts o;
	const char *out = NULL;
	int c;

	geom_opts_init(&o);
	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS "f:"
				  GEOM_SHORTOPTS, longopts)) != -1) {
		if (c == OPT_OUT)
			out = optarg;
		else if (c == 'f')
			key_input_file(&in, optarg);
		else if (c == 'F')
			force = true;
		else if (c == OPT_COMPRESS)
			compress = true;
		else if (c == OPT_KIND)
			fp_bits = kind_option(argv[0], optarg);
		else if (c == OPT_VALUES)
			in.values = true;
		else if (c == OPT_ALLOW_EMPTY)
			allow_empty = true;
		else if (prefix_option(&po, argv[0], c, optarg))
			continue;
		else if (!geom_option(&o, argv[0], c, optarg) &&
			 !transport_option(&o, argv[0], c, optarg))
			common_option(argv[0], c);
		layout |= c == 'l';
	}
	if (!out)
		usage_error(argv[0], "missing --out FILE");
	out_check(argv[0], out, &in);
	if (o.transport && (layout || o.bits || o.hashes))
		usage_error(argv[0], "--transport picks m, k and the layout: give --capacity and --fp-rate only");
	if (o.max_mem && !o.transport)
		usage_error(argv[0], "--max-memory goes with --transport");
	if (in.values && !fp_bits && o.layout != BLOOM_LAYOUT_FUSE)
		usage_error(argv[0], "--values builds a static map: give --kind fuse8 or fuse16");
	in.args = argv + optind;
	in.nargs = argc - optind;
	geom_family_check(&o, argv[0]);
	in.family = o.family;
	po.force = force;
	if (po.probes && o.key_type != BLOOM_KEY_NET)
		usage_error(argv[0], "--probes is for net filters (--key net)");
	if (fp_bits || o.layout == BLOOM_LAYOUT_FUSE) {
		static_conflicts(&o, fp_bits, layout);
		build_static_keys(out, &o, &po, fp_bits, &in, compress,
				  allow_empty);
	} else {
		build_streamed(out, &o, &po, &in, force, compress,
			       allow_empty);
	}
	free(in.files);
	return EXIT_OK;
}

struct calc_row {
	struct bloom_geom g;
	const char *name;	/* the layout, or fuse8 and fuse16 */
	int err;
	u64 mem;		/* bytes */
	double bits_per_key;	/* of memory */
	double fpr;		/* theoretical, at capacity */
};

static void calc_layout(u64 n, u64 ppb, u8 layout, struct calc_row *r)
{
	struct bloom_core core;

	memset(r, 0, sizeof(*r));
	r->name = bloom_layout_name(layout);
	r->err = bloom_geom_size(n, ppb, layout, &r->g);
	if (r->err)
		return;
	bloom_core_init(&core, &r->g);
	r->mem = bloom_array_bytes(&core);
	r->bits_per_key = (double)r->mem * 8 / (double)n;
	r->fpr = geom_theory_fpr(&r->g, n);
}

/*
 * A static filter of @n keys with f-bit fingerprints and no values, as
 * build --kind fuse8 or fuse16 makes it: whatever the target, its rate
 * is 2^-f.
 */
static void calc_fuse(u64 n, u32 f, const char *name, struct calc_row *r)
{
	struct bloom_core core;

	memset(r, 0, sizeof(*r));
	r->name = name;
	r->err = bloom_fuse_geom(n, f, 0, &r->g);
	if (r->err)
		return;
	bloom_core_init(&core, &r->g);
	r->mem = bloom_array_bytes(&core);
	r->bits_per_key = (double)r->mem * 8 / (double)n;
	r->fpr = ldexp(1, -(int)f);
}

/* The Bloom layouts and the cuckoo table, then fuse8 and fuse16. */
#define CALC_ROWS	(BLOOM_LAYOUT_FUSE + 2)

static void calc_rows(u64 n, u64 ppb, struct calc_row *r)
{
	u8 l;

	for (l = 0; l < BLOOM_LAYOUT_FUSE; l++)
		calc_layout(n, ppb, l, &r[l]);
	calc_fuse(n, 8, "fuse8", &r[l++]);
	calc_fuse(n, 16, "fuse16", &r[l]);
}

/* A rate as a percentage, down to 10^-9: 1%, 0.1%, 1e-07%. */
static void percent(double rate, char *buf, size_t size)
{
	snprintf(buf, size, "%.4g%%", rate * 100);
}

/* A static row's bound is its own rate's, f bits. */
static double row_bound(const struct calc_row *r, double bound)
{
	return r->g.layout == BLOOM_LAYOUT_FUSE ? r->g.hashes : bound;
}

static void calc_json(u64 n, u64 ppb, double bound, const struct calc_row *r)
{
	struct json j;
	u8 l;

	json_start(&j);
	json_object(&j, NULL);
	json_u64(&j, "capacity", n);
	json_double(&j, "fp_rate", (double)ppb / BLOOM_PPB);
	json_double(&j, "lower_bound_bits_per_key", bound);
	json_array(&j, "layouts");
	for (l = 0; l < CALC_ROWS; l++, r++) {
		json_object(&j, NULL);
		json_str(&j, "layout", r->name);
		json_bool(&j, "static", r->g.layout == BLOOM_LAYOUT_FUSE);
		if (r->err) {
			json_null(&j, "bits");
			json_str(&j, "error", OVER_CAP);
		} else {
			json_u64(&j, "bits", r->g.bits);
			json_u64(&j, "hashes", r->g.hashes);
			json_double(&j, "bits_per_key", r->bits_per_key);
			json_u64(&j, "memory_bytes", r->mem);
			json_double(&j, "fp_rate_at_capacity", r->fpr);
			json_double(&j, "overhead",
				    r->bits_per_key / row_bound(r, bound));
		}
		json_close(&j, '}');
	}
	json_close(&j, ']');
	json_close(&j, '}');
	json_finish(&j);
}

static void calc_table(u64 n, u64 ppb, double bound, const struct calc_row *r)
{
	char mem[32], fpr[32];
	bool over = false;
	struct table t;
	u8 l;

	table_init(&t, "LAYOUT >M >K >BITS/KEY >MEMORY >FPR@N >VS-BOUND");
	for (l = 0; l < CALC_ROWS; l++, r++) {
		table_cell(&t, "%s", r->name);
		if (r->err) {
			for (int i = 0; i < 6; i++)
				table_cell(&t, "-");
			over = true;
			continue;
		}
		human_bytes(r->mem, mem, sizeof(mem));
		percent(r->fpr, fpr, sizeof(fpr));
		table_cell(&t, "%llu", (unsigned long long)r->g.bits);
		table_cell(&t, "%u", r->g.hashes);
		table_cell(&t, "%.2f", r->bits_per_key);
		table_cell(&t, "%s", mem);
		table_cell(&t, "%s", fpr);
		table_cell(&t, "x%.2f", r->bits_per_key / row_bound(r, bound));
	}
	percent((double)ppb / BLOOM_PPB, fpr, sizeof(fpr));
	printf("capacity %llu, target false-positive rate %s\n",
	       (unsigned long long)n, fpr);
	table_print(&t);
	printf("lower bound: %.2f bits/key (log2(1/E)); counting memory is 4 bits per counter\n",
	       bound);
	printf("fuse8, fuse16: static, built once from every key (build --kind); K is f, the rate 2^-f whatever the target, the bound f\n");
	if (over)
		printf("-: %s\n", OVER_CAP);
}

/* Dies when no layout can hold @n keys at the rate: nothing to show. */
static void calc_any(u64 n, u64 ppb, const struct calc_row *r)
{
	char rate[32];
	u8 l;

	for (l = 0; l < CALC_ROWS; l++)
		if (!r[l].err)
			return;
	percent((double)ppb / BLOOM_PPB, rate, sizeof(rate));
	die("calc: %llu keys at %s need a filter %s in every layout",
	    (unsigned long long)n, rate, OVER_CAP);
}

/* log2(1 / E) for E in parts per 10^9, by the core's fixed point. */
static double log2_inverse(u64 ppb)
{
	s64 ln = bloom_fx_ln(BLOOM_PPB << 32) - bloom_fx_ln(ppb << 32);

	return (double)ln / (double)BLOOM_FX_ONE / LN2;
}

/* calc --grow: a growing filter at 10, 100 and 1000 times its capacity. */
#define GROW_ROWS	3
#define NO_STAGES	"more stages than --max-stages, or a stage over the size cap"
#define GROW_HEADS	"GROWN >KEYS >STAGES >MEMORY >BITS/KEY >FPR@KEYS " \
			">SIZED-MEMORY >SIZED-BITS/KEY >COST"

struct grow_row {
	u64 keys;
	u32 stages;		/* that hold @keys; 0: cannot */
	u64 mem;		/* bytes of their arrays */
	double fpr;		/* of a test probing them all, at @keys */
	struct calc_row sized;	/* a filter sized for @keys from the start */
};

struct grow_plan {
	struct bloom_geom stage[BLOOM_STAGES_MAX];	/* stage[0]: the first */
	u32 nstages;		/* as many as the last row needs, or can have */
	struct grow_row rows[GROW_ROWS];
};

/* The stages from the first until they hold @keys, or can grow no more. */
static void grow_stages(struct grow_plan *p, u64 keys)
{
	const struct bloom_geom *g0 = &p->stage[0];
	u64 held = g0->capacity;

	for (p->nstages = 1; p->nstages < g0->stages_max && held < keys;
	     p->nstages++) {
		if (bloom_stage_geom(g0, p->nstages, &p->stage[p->nstages]))
			break;
		held += p->stage[p->nstages].capacity;
	}
}

/* The stages that hold @r->keys: how many, their memory and rate. */
static void grow_to(const struct grow_plan *p, struct grow_row *r)
{
	struct bloom_core core;
	double miss = 1;
	u64 held = 0;
	u32 i;

	for (i = 0; i < p->nstages && held < r->keys; i++) {
		const struct bloom_geom *g = &p->stage[i];

		bloom_core_init(&core, g);
		r->mem += bloom_array_bytes(&core);
		/* every stage but the newest holds its capacity */
		miss *= 1 - geom_theory_fpr(g, min(g->capacity, r->keys - held));
		held += g->capacity;
	}
	if (held < r->keys)
		return;
	r->stages = i;
	r->fpr = 1 - miss;
}

static double grow_bits_per_key(const struct grow_row *r)
{
	return (double)r->mem * 8 / (double)r->keys;
}

static void grow_row_json(struct json *j, const struct grow_row *r, u64 n,
			  double bound)
{
	json_object(j, NULL);
	json_u64(j, "times", r->keys / n);
	json_u64(j, "keys", r->keys);
	if (r->stages) {
		json_u64(j, "stages", r->stages);
		json_u64(j, "memory_bytes", r->mem);
		json_double(j, "bits_per_key", grow_bits_per_key(r));
		json_double(j, "fp_rate_at_keys", r->fpr);
		json_double(j, "fp_rate_bound", bound);
	} else {
		json_null(j, "stages");
		json_str(j, "error", NO_STAGES);
	}
	json_object(j, "sized");
	if (r->sized.err) {
		json_null(j, "bits");
		json_str(j, "error", OVER_CAP);
	} else {
		json_u64(j, "bits", r->sized.g.bits);
		json_u64(j, "hashes", r->sized.g.hashes);
		json_u64(j, "memory_bytes", r->sized.mem);
		json_double(j, "bits_per_key", r->sized.bits_per_key);
	}
	json_close(j, '}');
	if (r->stages && !r->sized.err)
		json_double(j, "cost", (double)r->mem / (double)r->sized.mem);
	json_close(j, '}');
}

/* Every stage calc looked at: its geometry and rate at capacity. */
static void stages_json(struct json *j, const struct grow_plan *p)
{
	struct bloom_core core;
	u32 i;

	json_array(j, "stage");
	for (i = 0; i < p->nstages; i++) {
		bloom_core_init(&core, &p->stage[i]);
		json_object(j, NULL);
		json_u64(j, "bits", p->stage[i].bits);
		json_u64(j, "hashes", p->stage[i].hashes);
		json_u64(j, "capacity", p->stage[i].capacity);
		json_u64(j, "memory_bytes", bloom_array_bytes(&core));
		json_double(j, "fp_rate_at_capacity",
			    geom_theory_fpr(&p->stage[i], p->stage[i].capacity));
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void grow_json(const struct geom_opts *o, const struct grow_plan *p)
{
	double bound = (double)bloom_stage_bound_ppb(&p->stage[0]) / BLOOM_PPB;
	struct json j;
	int i;

	json_start(&j);
	json_object(&j, NULL);
	json_u64(&j, "capacity", o->capacity);
	json_double(&j, "fp_rate", (double)o->fpr_ppb / BLOOM_PPB);
	json_str(&j, "layout", bloom_layout_name(o->layout));
	json_u64(&j, "growth", o->growth);
	json_double(&j, "tightening", o->tighten_pct / 100.0);
	json_u64(&j, "max_stages", o->stages_max);
	json_double(&j, "first_stage_fp_rate",
		    (double)first_fpr_ppb(o) / BLOOM_PPB);
	json_double(&j, "fp_rate_bound", bound);
	stages_json(&j, p);
	json_array(&j, "grown");
	for (i = 0; i < GROW_ROWS; i++)
		grow_row_json(&j, &p->rows[i], o->capacity, bound);
	json_close(&j, ']');
	json_close(&j, '}');
	json_finish(&j);
}

/* One row: the grown filter's cells, then the right-sized one's. */
static void grow_row_cells(struct table *t, const struct grow_row *r, u64 n)
{
	char mem[32], fpr[32];
	int i;

	table_cell(t, "x%llu", (unsigned long long)(r->keys / n));
	table_cell(t, "%llu", (unsigned long long)r->keys);
	if (r->stages) {
		human_bytes(r->mem, mem, sizeof(mem));
		percent(r->fpr, fpr, sizeof(fpr));
		table_cell(t, "%u", r->stages);
		table_cell(t, "%s", mem);
		table_cell(t, "%.2f", grow_bits_per_key(r));
		table_cell(t, "%s", fpr);
	} else {
		for (i = 0; i < 4; i++)
			table_cell(t, "-");
	}
	if (r->sized.err) {
		table_cell(t, "-");
		table_cell(t, "-");
	} else {
		human_bytes(r->sized.mem, mem, sizeof(mem));
		table_cell(t, "%s", mem);
		table_cell(t, "%.2f", r->sized.bits_per_key);
	}
	if (r->stages && !r->sized.err)
		table_cell(t, "x%.2f", (double)r->mem / (double)r->sized.mem);
	else
		table_cell(t, "-");
}

/* The settings and the first stage, above the table. */
static void grow_head(const struct geom_opts *o, const struct grow_plan *p)
{
	const struct bloom_geom *g0 = &p->stage[0];
	char rate[32], first[32], bound[32], mem[32];
	struct bloom_core core;

	bloom_core_init(&core, g0);
	human_bytes(bloom_array_bytes(&core), mem, sizeof(mem));
	percent((double)o->fpr_ppb / BLOOM_PPB, rate, sizeof(rate));
	percent((double)first_fpr_ppb(o) / BLOOM_PPB, first, sizeof(first));
	percent((double)bloom_stage_bound_ppb(g0) / BLOOM_PPB, bound,
		sizeof(bound));
	printf("growing from capacity %llu at false-positive rate %s, %s, up to %u stages\n",
	       (unsigned long long)o->capacity, rate,
	       bloom_layout_name(g0->layout), o->stages_max);
	printf("each stage with %u times the keys of the last at %.2g of its rate\n",
	       o->growth, o->tighten_pct / 100.0);
	printf("first stage: m=%llu, k=%u, %s, sized for %s\n",
	       (unsigned long long)g0->bits, g0->hashes, mem, first);
	printf("the rate stays below %s, however far it grows\n", bound);
}

static void grow_table(const struct geom_opts *o, const struct grow_plan *p)
{
	bool unreached = false, over = false;
	char rate[32];
	struct table t;
	int i;

	grow_head(o, p);
	table_init(&t, GROW_HEADS);
	for (i = 0; i < GROW_ROWS; i++) {
		grow_row_cells(&t, &p->rows[i], o->capacity);
		unreached |= !p->rows[i].stages;
		over |= !!p->rows[i].sized.err;
	}
	table_print(&t);
	percent((double)o->fpr_ppb / BLOOM_PPB, rate, sizeof(rate));
	printf("SIZED: a filter sized for KEYS at %s from the start\n", rate);
	printf("COST: the grown filter's memory over the sized one's\n");
	if (unreached)
		printf("- (grown): %s\n", NO_STAGES);
	if (over)
		printf("- (sized): %s\n", OVER_CAP);
}

/* calc --grow: what growing costs, beside right-sized filters. */
static void calc_grow(const struct geom_opts *o)
{
	struct grow_plan *p = xcalloc(1, sizeof(*p));
	struct bloom_geom *g0 = &p->stage[0];
	u64 times = 1;
	int i;

	if (bloom_geom_size(o->capacity, first_fpr_ppb(o), (u8)o->layout, g0))
		die("calc: a first stage of %llu keys is %s",
		    (unsigned long long)o->capacity, OVER_CAP);
	g0->stages_max = o->stages_max;
	g0->growth = o->growth;
	g0->tighten_pct = o->tighten_pct;
	for (i = 0; i < GROW_ROWS; i++) {
		times *= 10;
		p->rows[i].keys = o->capacity * times;
	}
	grow_stages(p, p->rows[GROW_ROWS - 1].keys);
	for (i = 0; i < GROW_ROWS; i++) {
		grow_to(p, &p->rows[i]);
		calc_layout(p->rows[i].keys, o->fpr_ppb, (u8)o->layout,
			    &p->rows[i].sized);
	}
	if (opts.format == OUT_JSON)
		grow_json(o, p);
	else if (!opts.quiet)
		grow_table(o, p);
	free(p);
}

/* calc's options: --layout only with --grow, which shows one layout. */
static void calc_options(int argc, char **argv, struct geom_opts *o,
			 struct key_input *in)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS, GROW_LONGOPTS, TRANSPORT_LONGOPTS,
		{ "file",	required_argument,	NULL, 'f' },
		{ "capacity",	required_argument,	NULL, 'n' },
		{ "fp-rate",	required_argument,	NULL, 'e' },
		{ "layout",	required_argument,	NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	bool layout = false;
	int c;

	geom_opts_init(o);
	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS "f:n:e:l:",
				  longopts)) != -1) {
		layout |= c == 'l';
		if (c == 'f')
			key_input_file(in, optarg);
		else if (!grow_option(o, argv[0], c, optarg) &&
			 !transport_option(o, argv[0], c, optarg) &&
			 !geom_option(o, argv[0], c, optarg))
			common_option(argv[0], c);
	}
	positional(argv[0], argc - optind, 0, 0, "only options");
	if (in->nfiles) {
		if (o->capacity || layout || o->grow || o->transport)
			usage_error(argv[0], "-f LIST (a net list: its prefix lengths) goes with --fp-rate only");
		o->capacity = 1;
	}
	if (!o->capacity)
		usage_error(argv[0], "missing --capacity");
	if (layout && !o->grow)
		usage_error(argv[0], "--layout goes with --grow (else calc shows every layout)");
	if (o->transport && (o->grow || layout))
		usage_error(argv[0], "--transport goes with neither --grow nor --layout (it tries standard and blocked)");
	if (o->max_mem && !o->transport)
		usage_error(argv[0], "--max-memory goes with --transport");
	geom_opts_finish(o, argv[0]);
	grow_opts_finish(o, argv[0]);
	if (o->grow && o->capacity > U64_MAX / 1000)
		usage_error(argv[0], "bad capacity for --grow (at most %llu)",
			    (unsigned long long)(U64_MAX / 1000));
}

int cmd_calc(int argc, char **argv)
{
	struct calc_row rows[CALC_ROWS];
	struct key_input in = { 0 };
	struct geom_opts o;
	struct keylist kl;
	double bound;

	calc_options(argc, argv, &o, &in);
	if (in.nfiles) {
		keylist_load(&kl, BLOOM_KEY_NET, &in, argv[0]);
		calc_prefixes(&kl, o.fpr_ppb);
		keylist_free(&kl);
		free(in.files);
		return EXIT_OK;
	}
	if (o.transport) {
		calc_transport(&o);
		return EXIT_OK;
	}
	if (o.grow) {
		calc_grow(&o);
		return EXIT_OK;
	}
	bound = log2_inverse(o.fpr_ppb);
	calc_rows(o.capacity, o.fpr_ppb, rows);
	calc_any(o.capacity, o.fpr_ppb, rows);
	if (opts.format == OUT_JSON)
		calc_json(o.capacity, o.fpr_ppb, bound, rows);
	else if (!opts.quiet)
		calc_table(o.capacity, o.fpr_ppb, bound, rows);
	return EXIT_OK;
}
