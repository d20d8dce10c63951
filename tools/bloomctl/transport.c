// SPDX-License-Identifier: GPL-2.0
/*
 * Filters sized for shipping (docs/transport.md): the m and k that make
 * the smallest compressed snapshot at a target false-positive rate, as
 * Mitzenmacher showed ("Compressed Bloom Filters", 2002): a larger,
 * sparser array with fewer hashes, whose coded size approaches
 * log2(1/E) + log2(e) bits per key as k goes to 1, where an array sized
 * for memory (half its bits set) does not compress at all. calc
 * --transport prints the choice beside the usual one; build --transport
 * builds it. The sizes are the model of what build --compress writes
 * (compress.c): expected set bits, then the expected rice code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"

#define K_MAX		8	/* hashes tried */
#define K_SHOWN		4	/* rows shown per layout */
#define HDRS		(SNAPZ_HDR_BYTES + sizeof(struct bloom_snap_hdr))
#define TABLE_HEADS	"FILTER LAYOUT >M >K >MEMORY >MEM-BITS/KEY >WIRE " \
			">WIRE-BITS/KEY >FPR@N CHOSEN"

struct transport_row {
	struct bloom_geom g;
	int err;		/* the rate needs more than the size cap */
	u64 mem;		/* bytes of the array */
	double fpr;		/* at capacity */
	double set_bits;	/* expected, at capacity */
	double wire;		/* expected bytes of build --compress */
	double entropy;		/* bits: m H(fill), what no code beats */
};

static const u8 layouts[] = { BLOOM_LAYOUT_STANDARD, BLOOM_LAYOUT_BLOCKED };

/* Handle --transport and --max-memory; false if @c is not one. */
bool transport_option(struct geom_opts *o, const char *cmd, int c,
		      const char *arg)
{
	switch (c) {
	case OPT_TRANSPORT:
		o->transport = true;
		break;
	case OPT_MAX_MEMORY:
		if (parse_count(arg, &o->max_mem) || !o->max_mem)
			usage_error(cmd, "bad memory size '%s' (e.g. 64MiB, 1GiB)",
				    arg);
		break;
	default:
		return false;
	}
	return true;
}

/* Expected set bits of @g holding @n keys. */
static double expected_set(const struct bloom_geom *g, u64 n)
{
	double m = (double)g->bits, k = g->hashes, blocks, lambda;

	switch (g->layout) {
	case BLOOM_LAYOUT_BLOCKED:
		/* Poisson keys per block, k probes each */
		blocks = m / BLOOM_BLOCK_BITS;
		lambda = (double)n / blocks;
		return m * -expm1(lambda * expm1(k * log1p(-1.0 /
						 BLOOM_BLOCK_BITS)));
	case BLOOM_LAYOUT_PARTITIONED:
		return m * -expm1((double)n * log1p(-k / m));
	default:
		return m * -expm1((double)n * k * log1p(-1 / m));
	}
}

static double binary_entropy(double q)
{
	if (q <= 0 || q >= 1)
		return 0;
	return -(q * log2(q) + (1 - q) * log2(1 - q));
}

/* Memory, rate and expected sizes of a geometry holding @n keys. */
static void row_sizes(struct transport_row *r, u64 n)
{
	struct bloom_core core;
	double rice;

	bloom_core_init(&core, &r->g);
	r->mem = bloom_array_bytes(&core);
	r->fpr = geom_theory_fpr(&r->g, n);
	r->set_bits = expected_set(&r->g, n);
	rice = snapz_rice_model_bytes(r->set_bits, r->mem);
	/* build --compress stores the array when rice is no smaller */
	r->wire = min(rice, (double)(HDRS + r->mem));
	r->entropy = (double)r->g.bits *
		     binary_entropy(r->set_bits / (double)r->g.bits);
}

/* The smallest array of @layout with @k hashes for @n keys at @ppb. */
static void fit(u64 n, u64 ppb, u8 layout, u32 k, struct transport_row *r)
{
	u64 unit = layout == BLOOM_LAYOUT_BLOCKED ? BLOOM_BLOCK_BITS : 1;
	u64 lo = DIV_ROUND_UP(BLOOM_MIN_BITS, unit), hi = lo, mid;
	double target = (double)ppb / BLOOM_PPB;

	memset(r, 0, sizeof(*r));
	r->g.layout = layout;
	r->g.hashes = k;
	r->g.capacity = n;
	/* double up to the size cap, then halve the interval */
	for (;;) {
		r->g.bits = hi * unit;
		if (bloom_geom_check(&r->g)) {
			r->err = -E2BIG;
			if (hi == lo)
				return;
			hi /= 2;
			break;
		}
		if (geom_theory_fpr(&r->g, n) <= target)
			break;
		lo = hi + 1;
		hi *= 2;
	}
	r->g.bits = hi * unit;
	if (bloom_geom_check(&r->g) || geom_theory_fpr(&r->g, n) > target)
		return;		/* r->err set: even the cap is not enough */
	r->err = 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r->g.bits = mid * unit;
		if (geom_theory_fpr(&r->g, n) <= target)
			hi = mid;
		else
			lo = mid + 1;
	}
	r->g.bits = hi * unit;
	row_sizes(r, n);
}

/* The sized row calc prints for @layout, with its expected wire size. */
static void sized(u64 n, u64 ppb, u8 layout, struct transport_row *r)
{
	memset(r, 0, sizeof(*r));
	r->err = bloom_geom_size(n, ppb, layout, &r->g);
	if (!r->err)
		row_sizes(r, n);
}

struct transport_plan {
	struct transport_row sized[ARRAY_SIZE(layouts)];
	struct transport_row rows[ARRAY_SIZE(layouts)][K_MAX];
	const struct transport_row *best;
};

static void plan(u64 n, u64 ppb, u64 max_mem, struct transport_plan *p)
{
	size_t l;
	u32 k;

	memset(p, 0, sizeof(*p));
	for (l = 0; l < ARRAY_SIZE(layouts); l++) {
		sized(n, ppb, layouts[l], &p->sized[l]);
		for (k = 1; k <= K_MAX; k++) {
			struct transport_row *r = &p->rows[l][k - 1];

			fit(n, ppb, layouts[l], k, r);
			if (!r->err && r->mem <= max_mem &&
			    (!p->best || r->wire < p->best->wire))
				p->best = r;
		}
	}
}

static u64 max_mem_of(const struct geom_opts *o)
{
	return o->max_mem ? o->max_mem : TRANSPORT_MEM_DEFAULT;
}

static void __noreturn no_fit(const char *cmd, const struct geom_opts *o)
{
	char mem[32];

	human_bytes(max_mem_of(o), mem, sizeof(mem));
	die("%s: no Bloom filter of at most %u hashes holds %llu keys at this rate in %s or less (--max-memory)",
	    cmd, K_MAX, (unsigned long long)o->capacity, mem);
}

/**
 * transport_geom() - build --transport: the geometry calc --transport picks
 * @o: the options (capacity, rate, --max-memory)
 * @g: a geometry from geom_resolve(): its m, k and layout are replaced
 */
void transport_geom(const struct geom_opts *o, struct bloom_geom *g)
{
	struct transport_plan *p = xmalloc(sizeof(*p));

	/* A net lookup's rate over its P probes (g's flags hold P). */
	plan(o->capacity, bloom_probe_fpr_ppb(g, o->fpr_ppb), max_mem_of(o), p);
	if (!p->best)
		no_fit("build", o);
	g->bits = p->best->g.bits;
	g->hashes = p->best->g.hashes;
	g->layout = p->best->g.layout;
	g->capacity = o->capacity;
	free(p);
	if (bloom_geom_check(g))
		die("build: %s", geom_problem(g));
}

static double per_key(double bytes, u64 n)
{
	return bytes * 8 / (double)n;
}

static void row_json(struct json *j, const char *key,
		     const struct transport_row *r, u64 n)
{
	json_object(j, key);
	json_str(j, "layout", bloom_layout_name(r->g.layout));
	if (r->err) {
		json_null(j, "bits");
		json_str(j, "error", "over the size cap");
	} else {
		json_u64(j, "bits", r->g.bits);
		json_u64(j, "hashes", r->g.hashes);
		json_u64(j, "memory_bytes", r->mem);
		json_double(j, "memory_bits_per_key", per_key((double)r->mem, n));
		json_double(j, "fp_rate_at_capacity", r->fpr);
		json_double(j, "set_bits", r->set_bits);
		json_double(j, "wire_bytes", r->wire);
		json_double(j, "wire_bits_per_key", per_key(r->wire, n));
		json_double(j, "entropy_bits_per_key", r->entropy / (double)n);
	}
	json_close(j, '}');
}

static void plan_json(const struct geom_opts *o, const struct transport_plan *p,
		      double bound)
{
	struct json j;
	size_t l;
	u32 k;

	json_start(&j);
	json_object(&j, NULL);
	json_u64(&j, "capacity", o->capacity);
	json_double(&j, "fp_rate", (double)o->fpr_ppb / BLOOM_PPB);
	json_double(&j, "lower_bound_bits_per_key", bound);
	json_u64(&j, "max_memory_bytes", max_mem_of(o));
	json_array(&j, "sized");
	for (l = 0; l < ARRAY_SIZE(layouts); l++)
		row_json(&j, NULL, &p->sized[l], o->capacity);
	json_close(&j, ']');
	json_array(&j, "candidates");
	for (l = 0; l < ARRAY_SIZE(layouts); l++)
		for (k = 0; k < K_MAX; k++)
			row_json(&j, NULL, &p->rows[l][k], o->capacity);
	json_close(&j, ']');
	row_json(&j, "transport", p->best, o->capacity);
	json_close(&j, '}');
	json_finish(&j);
}

static void row_cells(struct table *t, const char *what,
		      const struct transport_row *r, u64 n, bool best)
{
	char mem[32], wire[32], fpr[32];
	int i;

	table_cell(t, "%s", what);
	table_cell(t, "%s", bloom_layout_name(r->g.layout));
	if (r->err) {
		for (i = 0; i < 7; i++)
			table_cell(t, "-");
		table_cell(t, "%s", "");
		return;
	}
	human_bytes(r->mem, mem, sizeof(mem));
	human_bytes((u64)r->wire, wire, sizeof(wire));
	snprintf(fpr, sizeof(fpr), "%.4g%%", r->fpr * 100);
	table_cell(t, "%llu", (unsigned long long)r->g.bits);
	table_cell(t, "%u", r->g.hashes);
	table_cell(t, "%s", mem);
	table_cell(t, "%.2f", per_key((double)r->mem, n));
	table_cell(t, "%s", wire);
	table_cell(t, "%.2f", per_key(r->wire, n));
	table_cell(t, "%s", fpr);
	table_cell(t, "%s", best ? "*" : "");
}

static void plan_table(const struct geom_opts *o,
		       const struct transport_plan *p, double bound)
{
	char rate[32], mem[32];
	struct table t;
	size_t l;
	u32 k;

	snprintf(rate, sizeof(rate), "%.4g%%",
		 (double)o->fpr_ppb / BLOOM_PPB * 100);
	human_bytes(max_mem_of(o), mem, sizeof(mem));
	printf("capacity %llu, target false-positive rate %s, memory at most %s\n",
	       (unsigned long long)o->capacity, rate, mem);
	table_init(&t, TABLE_HEADS);
	for (l = 0; l < ARRAY_SIZE(layouts); l++)
		row_cells(&t, "sized", &p->sized[l], o->capacity, false);
	for (l = 0; l < ARRAY_SIZE(layouts); l++)
		for (k = 0; k < K_MAX; k++) {
			const struct transport_row *r = &p->rows[l][k];

			if (k < K_SHOWN || r == p->best)
				row_cells(&t, "transport", r, o->capacity,
					  r == p->best);
		}
	table_print(&t);
	table_free(&t);
	printf("lower bound: %.2f bits/key (log2(1/E)); the chosen filter's array holds %.2f bits/key of entropy\n",
	       bound, p->best->entropy / (double)o->capacity);
	printf("WIRE: the expected size of 'build --compress' (golomb-rice coded set bits, or stored)\n");
	printf("CHOSEN: the smallest WIRE whose MEMORY is within --max-memory; 'build --transport' builds it\n");
}

/* log2(1 / E) for E in parts per 10^9. */
static double log2_inverse(u64 ppb)
{
	return log2((double)BLOOM_PPB / (double)ppb);
}

/**
 * calc_transport() - calc --transport
 * @o: the options, finished (capacity, rate, --max-memory)
 */
void calc_transport(const struct geom_opts *o)
{
	struct transport_plan *p = xmalloc(sizeof(*p));
	double bound = log2_inverse(o->fpr_ppb);

	plan(o->capacity, o->fpr_ppb, max_mem_of(o), p);
	if (!p->best)
		no_fit("calc", o);
	if (opts.format == OUT_JSON)
		plan_json(o, p, bound);
	else if (!opts.quiet)
		plan_table(o, p, bound);
	free(p);
}
