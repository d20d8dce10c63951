// SPDX-License-Identifier: GPL-2.0
/*
 * The geometry options of create and build: --capacity and --fp-rate, or
 * --bits and --hashes; --layout, --key and --seed. Both commands accept
 * exactly the same geometry, and build sizes it with the same core
 * function the kernel uses, so the two give identical filters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/random.h>
#include "bloomctl.h"

#define DEFAULT_FPR_PPB	10000000ULL	/* 1% */

void geom_opts_init(struct geom_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->layout = BLOOM_LAYOUT_BLOCKED;
	o->key_type = BLOOM_KEY_ADDR;
}

/* --family: ipset's words, and the versions' names. 0 if unknown. */
static u16 family_parse(const char *arg)
{
	if (!strcmp(arg, "inet") || !strcmp(arg, "ipv4") || !strcmp(arg, "4"))
		return BLOOM_F_INET;
	if (!strcmp(arg, "inet6") || !strcmp(arg, "ipv6") ||
	    !strcmp(arg, "6"))
		return BLOOM_F_INET6;
	return 0;
}

/* The family in @flags as --family takes it, or NULL for both. */
const char *family_name(u16 flags)
{
	switch (flags & BLOOM_F_FAMILY) {
	case BLOOM_F_INET:
		return "inet";
	case BLOOM_F_INET6:
		return "inet6";
	default:
		return NULL;
	}
}

/* "net", or "net/inet6" for a filter of one family: one word. */
const char *key_label(u8 key_type, u16 flags)
{
	static char label[32];
	const char *family = family_name(flags);

	snprintf(label, sizeof(label), "%s%s%s", bloom_key_type_name(key_type),
		 family ? "/" : "", family ?: "");
	return label;
}

/* "family": "inet", "inet6" or "both", for keys with addresses. */
void json_family(struct json *j, u8 key_type, u16 flags)
{
	if (bloom_key_type_has_family(key_type))
		json_str(j, "family", family_name(flags) ?: "both");
}

/* Handle one geometry option; false if @c is not one. */
bool geom_option(struct geom_opts *o, const char *cmd, int c,
		 const char *arg)
{
	u64 v;

	switch (c) {
	case 'n':
		if (parse_count(arg, &o->capacity) || !o->capacity)
			usage_error(cmd, "bad capacity '%s'", arg);
		break;
	case 'e':
		if (parse_rate(arg, &o->fpr_ppb))
			usage_error(cmd, "bad false-positive rate '%s' (want 1e-9 <= E <= 0.5, e.g. 0.01, 1%% or 1e-3)",
				    arg);
		break;
	case 'm':
		if (parse_count(arg, &o->bits) || !o->bits)
			usage_error(cmd, "bad number of bits '%s'", arg);
		break;
	case 'k':
		if (parse_count(arg, &v) || !v || v > BLOOM_MAX_HASHES)
			usage_error(cmd, "bad number of hashes '%s' (1 to %d)",
				    arg, BLOOM_MAX_HASHES);
		o->hashes = (u32)v;
		break;
	case 'l':
		o->layout = layout_parse(arg);
		if (o->layout < 0)
			usage_error(cmd, "unknown layout '%s' (blocked, standard, partitioned, counting, cuckoo or fuse%s%s%s)",
				    arg, fuse_kind_bits(arg) ? "; " : "",
				    fuse_kind_bits(arg) ? arg : "",
				    fuse_kind_bits(arg) ? " is a --kind of build" : "");
		break;
	case 't':
		o->key_type = key_type_parse(arg);
		if (o->key_type == KEY_TYPE_RETIRED)
			usage_error(cmd, "key type '%s' is retired: digest keys changed (TCP segments that are not copies no longer share a key); use --key digest",
				    arg);
		if (o->key_type < 0)
			usage_error(cmd, "unknown key type '%s' (addr, net, addr,port, flow, digest or bytes)",
				    arg);
		break;
	case 's':
		if (parse_u64(arg, &o->seed))
			usage_error(cmd, "bad seed '%s'", arg);
		o->seeded = true;
		break;
	case OPT_FAMILY:
		o->family = family_parse(arg);
		if (!o->family)
			usage_error(cmd, "unknown family '%s' (inet for IPv4 only, inet6 for IPv6 only; without --family a filter holds both)",
				    arg);
		break;
	default:
		return false;
	}
	return true;
}

/* Handle one aging option of create; false if @c is not one. */
bool age_option(struct geom_opts *o, const char *cmd, int c, const char *arg)
{
	u64 v;

	switch (c) {
	case OPT_GENERATIONS:
		if (parse_u64(arg, &v) || v < BLOOM_GENERATIONS_MIN ||
		    v > BLOOM_GENERATIONS_MAX)
			usage_error(cmd, "bad number of generations '%s' (%d to %d)",
				    arg, BLOOM_GENERATIONS_MIN,
				    BLOOM_GENERATIONS_MAX);
		o->generations = (u8)v;
		break;
	case OPT_ROTATE:
		if (parse_duration_ms(arg, &o->period_ms))
			usage_error(cmd, "bad rotation period '%s' (e.g. 60s, 500ms, 5m, 1h)",
				    arg);
		if (o->period_ms < BLOOM_AGE_PERIOD_MIN_MS)
			usage_error(cmd, "rotation period '%s' is under the minimum of %dms",
				    arg, BLOOM_AGE_PERIOD_MIN_MS);
		break;
	case OPT_ROTATE_FULL:
		o->age_flags |= BLOOM_AGE_F_FULL;
		break;
	default:
		return false;
	}
	return true;
}

/* --rotate or --rotate-full make an aging filter, of 2 generations by default. */
void age_opts_finish(struct geom_opts *o, const char *cmd)
{
	if ((o->period_ms || o->age_flags) && !o->generations)
		o->generations = BLOOM_GENERATIONS_MIN;
	if (o->generations && !o->period_ms && !o->age_flags)
		usage_error(cmd, "--generations needs --rotate PERIOD or --rotate-full (or both)");
}

/* Handle one growing option of create or calc; false if @c is not one. */
bool grow_option(struct geom_opts *o, const char *cmd, int c, const char *arg)
{
	u64 v;
	u32 pct;

	switch (c) {
	case OPT_GROW:
		break;
	case OPT_GROWTH:
		if (parse_u64(arg, &v) || v < BLOOM_GROWTH_MIN ||
		    v > BLOOM_GROWTH_MAX)
			usage_error(cmd, "bad growth '%s' (a whole number, %d to %d)",
				    arg, BLOOM_GROWTH_MIN, BLOOM_GROWTH_MAX);
		o->growth = (u8)v;
		break;
	case OPT_TIGHTENING:
		if (parse_percent(arg, &pct) || pct < BLOOM_TIGHTEN_MIN_PCT ||
		    pct > BLOOM_TIGHTEN_MAX_PCT)
			usage_error(cmd, "bad tightening '%s' (0.1 to 0.9, in hundredths)",
				    arg);
		o->tighten_pct = (u8)pct;
		break;
	case OPT_MAX_STAGES:
		if (parse_u64(arg, &v) || !v || v > BLOOM_STAGES_MAX)
			usage_error(cmd, "bad number of stages '%s' (1 to %d)",
				    arg, BLOOM_STAGES_MAX);
		o->stages_max = (u8)v;
		break;
	default:
		return false;
	}
	o->grow = true;	/* any of them makes a growing filter */
	return true;
}

/**
 * first_fpr_ppb() - the rate the first (or only) array is sized for
 * @o: the options, finished
 *
 * Return: --fp-rate; for a growing filter, its first stage's share of
 * it, E (1 - R), which the kernel gives it so that all stages together
 * stay below E (uapi/bloom_ioctl.h).
 */
u64 first_fpr_ppb(const struct geom_opts *o)
{
	if (!o->grow)
		return o->fpr_ppb;
	return o->fpr_ppb * (100 - o->tighten_pct) / 100;
}

/* A growing filter: the defaults; refuse the kinds that cannot grow. */
void grow_opts_finish(struct geom_opts *o, const char *cmd)
{
	if (!o->grow)
		return;
	if (o->generations)
		usage_error(cmd, "an aging filter cannot grow: drop --grow or the aging options");
	/* a counting filter's deletes would need the stage a key went to */
	if (o->layout == BLOOM_LAYOUT_COUNTING ||
	    o->layout == BLOOM_LAYOUT_CUCKOO || o->layout == BLOOM_LAYOUT_FUSE)
		usage_error(cmd, "a %s filter cannot grow (blocked, standard and partitioned do): drop --grow or --layout %s",
			    bloom_layout_name(o->layout),
			    bloom_layout_name(o->layout));
	if (!o->stages_max)
		o->stages_max = BLOOM_STAGES_DEFAULT;
	if (!o->growth)
		o->growth = BLOOM_GROWTH_DEFAULT;
	if (!o->tighten_pct)
		o->tighten_pct = BLOOM_TIGHTEN_DEFAULT_PCT;
	if (o->by_rate && !first_fpr_ppb(o))
		usage_error(cmd, "--fp-rate too small to grow: E x (1 - R) is under 1e-9");
	/* the next stages are sized from the first's capacity and rate */
	if (!o->by_rate && o->capacity > o->bits)
		die("%s: a growing filter's first stage holds at most --bits keys: --capacity %llu is more than --bits %llu",
		    cmd, (unsigned long long)o->capacity,
		    (unsigned long long)o->bits);
}

/* Why a geometry given as --bits and --hashes is refused, or NULL. */
const char *geom_problem(const struct bloom_geom *g)
{
	int err;

	if (g->bits < BLOOM_MIN_BITS)
		return "--bits must be at least 64";
	if (g->layout == BLOOM_LAYOUT_BLOCKED && g->bits % BLOOM_BLOCK_BITS)
		return "the blocked layout needs --bits to be a multiple of 512";
	if (g->layout == BLOOM_LAYOUT_PARTITIONED && g->bits % g->hashes)
		return "the partitioned layout needs --bits to be a multiple of --hashes";
	err = bloom_geom_check(g);
	if (err == -E2BIG)
		return "--bits is over the cap (2^37 bits, 2^35 counters)";
	return err ? "invalid geometry" : NULL;
}

/*
 * Check the combination; fill in the default rate. --capacity goes with
 * --fp-rate (sized by the core) or with --bits and --hashes (recorded as
 * given; without it the kernel derives floor(m ln 2 / k)).
 */
/*
 * The --capacity of a net filter sized by its rate counts prefixes as
 * listed: add (and build) store a list at the lengths that at most
 * double its keys (EXPAND_BUDGET, prefixes.c), so the filter is sized
 * for that many keys. Once; not for a filter whose keys will be added
 * at their own lengths (create or build --prefix-lengths all): it counts
 * keys.
 */
void geom_net_capacity(struct geom_opts *o)
{
	if (o->key_type != BLOOM_KEY_NET || o->bits || o->hashes ||
	    o->net_doubled || o->own_lengths || !o->capacity)
		return;
	o->net_doubled = true;
	if (o->capacity <= U64_MAX / EXPAND_BUDGET)
		o->capacity *= EXPAND_BUDGET;
}

/* --family goes with keys that hold addresses. */
void geom_family_check(const struct geom_opts *o, const char *cmd)
{
	if (o->family && !bloom_key_type_has_family((unsigned int)o->key_type))
		usage_error(cmd, "--family is for keys with addresses (--key addr, net, addr,port, flow or digest)");
}

void geom_opts_finish(struct geom_opts *o, const char *cmd)
{
	bool by_size = o->bits || o->hashes;
	struct bloom_geom g = {
		.bits = o->bits, .hashes = o->hashes, .layout = (u8)o->layout,
		.key_type = (u8)o->key_type,
	};
	const char *why;

	if (by_size && o->fpr_ppb)
		usage_error(cmd, "give --capacity and --fp-rate, or --bits and --hashes (and --capacity), not both");
	if (!by_size && !o->capacity)
		usage_error(cmd, "give --capacity (and --fp-rate), or --bits and --hashes");
	o->by_rate = !by_size;
	geom_net_capacity(o);
	if (o->by_rate && !o->fpr_ppb)
		o->fpr_ppb = DEFAULT_FPR_PPB;
	geom_family_check(o, cmd);
	if (o->probes && o->key_type != BLOOM_KEY_NET)
		usage_error(cmd, "--probes is for net filters (--key net)");
	if (!o->probes && o->key_type == BLOOM_KEY_NET)
		o->probes = NET_PROBES_DEFAULT;
	if (by_size && !(o->bits && o->hashes))
		usage_error(cmd, "--bits and --hashes go together");
	if (by_size) {
		why = geom_problem(&g);
		if (why)
			die("%s: %s", cmd, why);
	}
}

/*
 * The flags of a filter made from @o: a fixed seed, family; for net
 * keys the /16 summary and a lookup's P.
 */
u16 geom_flags(const struct geom_opts *o)
{
	u16 f = (o->seeded ? BLOOM_F_FIXED_SEED : 0) | o->family;

	if (o->key_type == BLOOM_KEY_NET)
		f |= BLOOM_F_SUMMARY;
	if (o->key_type == BLOOM_KEY_NET && o->probes)
		f |= BLOOM_F_PROBES(o->probes);
	return f;
}

/* The prefix lengths a net filter's lookups were sized for, or 0. */
unsigned int info_probes(const struct bloom_ioc_info *in)
{
	struct bloom_geom g = { .key_type = in->key_type, .flags = in->flags };

	return bloom_geom_probes(&g);
}

/* The seed asked for (and flagged fixed), or a random one. */
void geom_seed(const struct geom_opts *o, const char *cmd,
	       struct bloom_geom *g)
{
	if (o->seeded) {
		g->seed = o->seed;
		g->flags |= BLOOM_F_FIXED_SEED;
	} else if (getrandom(&g->seed, sizeof(g->seed), 0) !=
		   sizeof(g->seed)) {
		die("%s: getrandom: %s", cmd, strerror(errno));
	}
}

/* The full geometry, as the kernel would make it (for build). */
void geom_resolve(const struct geom_opts *o, const char *cmd,
		  struct bloom_geom *g)
{
	int err;

	memset(g, 0, sizeof(*g));
	g->bits = o->bits;
	g->hashes = o->hashes;
	g->layout = (u8)o->layout;
	g->key_type = (u8)o->key_type;
	g->capacity = o->capacity;
	g->flags = geom_flags(o);
	if (o->by_rate) {
		/* As the kernel's CREATE: a net lookup's rate over P probes. */
		err = bloom_geom_size(o->capacity,
				      bloom_probe_fpr_ppb(g, o->fpr_ppb),
				      g->layout, g);
		if (err == -E2BIG)
			die("%s: capacity %llu at this rate is over the size cap (2^37 bits)",
			    cmd, (unsigned long long)o->capacity);
		if (err)
			die("%s: cannot size a filter for capacity %llu",
			    cmd, (unsigned long long)o->capacity);
	} else if (!g->capacity) {
		g->capacity = bloom_geom_default_capacity(g);
	}
	geom_seed(o, cmd, g);
	if (bloom_geom_check(g))
		die("%s: %s", cmd, geom_problem(g));
}

/**
 * capacity_problem() - refuse to take a filter past its capacity
 * @what: "add NAME" or "build FILE", for the message
 * @g: the filter's geometry, with its capacity
 * @keys: the distinct keys it would hold
 *
 * Return: NULL when @keys fit, else why not: the capacity and the
 * false-positive rate the filter would reach, by the core's theory.
 * Valid until the next call.
 */
const char *capacity_problem(const char *what, const struct bloom_geom *g,
			     u64 keys)
{
	unsigned int p = bloom_geom_probes(g) ?: 1;
	static char buf[512];
	char now[32], sized[32];
	u64 at_keys, at_capacity;

	if (!bloom_over_capacity(g, keys))
		return NULL;
	/* A net lookup's, over the P probes it was sized for. */
	at_keys = bloom_lookup_fpr_ppb(bloom_theory_fpr_ppb(g, keys), p);
	at_capacity = bloom_lookup_fpr_ppb(bloom_theory_fpr_ppb(g, g->capacity),
					   p);
	snprintf(now, sizeof(now), "%.4g%%", (double)at_keys / 1e7);
	snprintf(sized, sizeof(sized), "%.4g%%", (double)at_capacity / 1e7);
	snprintf(buf, sizeof(buf),
		 "%s: %llu keys would be past the filter's capacity of %llu: its false-positive rate would be about %s (sized for %s); use --force to go on anyway, or make a larger filter",
		 what, (unsigned long long)keys, (unsigned long long)g->capacity,
		 now, sized);
	return buf;
}

/**
 * first_stage_geom() - a growing filter's geometry, from its first stage
 * @in: its INFO (layout, key type, seed)
 * @sl: its stages
 * @g: filled in: every stage follows from it (bloom_stage_geom())
 */
void first_stage_geom(const struct bloom_ioc_info *in,
		      const struct stage_list *sl, struct bloom_geom *g)
{
	memset(g, 0, sizeof(*g));
	g->bits = sl->st[0].bits;
	g->hashes = sl->st[0].hashes;
	g->capacity = sl->st[0].capacity;
	g->layout = in->layout;
	g->key_type = in->key_type;
	g->seed = in->seed;
	g->flags = in->flags;
	g->stages_max = sl->s.stages_max;
	g->growth = sl->s.growth;
	g->tighten_pct = sl->s.tighten_pct;
}

/*
 * Keys a growing filter still takes: its newest stage's room, then the
 * capacity of each stage to come, until that is @need.
 */
static u64 stages_room(const struct stage_list *sl, const struct bloom_geom *g,
		       u64 need)
{
	const struct bloom_ioc_stage *last = &sl->st[stage_count(sl) - 1];
	u64 room = last->capacity - min(last->capacity, last->inserted);
	struct bloom_geom next;
	u32 i;

	for (i = stage_count(sl); !sl->s.full && i < sl->s.stages_max &&
	     room < need; i++) {
		if (bloom_stage_geom(g, i, &next))
			break;		/* over the size cap: it stops there */
		room += next.capacity;
	}
	return room;
}

/**
 * stages_problem() - refuse to take a growing filter past its last stage
 * @what: "add NAME", for the message
 * @sl: its stages
 * @g: its geometry (first_stage_geom())
 * @fresh: the keys new to it
 *
 * A growing filter takes keys until its last stage is full: the stage
 * limit, the size cap or, once the kernel found it there, the
 * namespace's memory limit (@sl->s.full). Past that it is a full plain
 * filter, and capacity_problem() applies.
 *
 * Return: NULL when @fresh fit, else why not; valid until the next call.
 */
const char *stages_problem(const char *what, const struct stage_list *sl,
			   const struct bloom_geom *g, u64 fresh)
{
	static char buf[512];
	u64 room;

	if (!stage_count(sl))
		return NULL;
	room = stages_room(sl, g, fresh);
	if (fresh <= room)
		return NULL;
	snprintf(buf, sizeof(buf),
		 "%s: %llu new keys would take the growing filter past the capacity of its last stage: it has room for %llu more (%u of at most %u stages%s); use --force to go on anyway, or make a larger filter",
		 what, (unsigned long long)fresh, (unsigned long long)room,
		 stage_count(sl), sl->s.stages_max,
		 sl->s.full ? ", and no stage to come" : "");
	return buf;
}

/* P(all k probes set) when the probed range of @m units holds @t probes. */
static double all_set(double t, double m, u32 k)
{
	return pow(-expm1(t * log1p(-1 / m)), k);
}

/* Blocked: Poisson keys per block, each block a small standard filter. */
static double blocked_fpr(u64 blocks, u32 k, u64 n)
{
	double lambda = (double)n / (double)blocks, sum = 0, j, end;

	if (lambda > 40.0 * BLOOM_BLOCK_BITS / k)
		return 1;	/* every block is full */
	end = lambda + 40 * sqrt(lambda) + 40;
	for (j = 1; j <= end; j++)
		sum += exp(j * log(lambda) - lambda - lgamma(j + 1)) *
		       all_set(j * k, BLOOM_BLOCK_BITS, k);
	return sum;
}

/*
 * A cuckoo table: 2n/B fingerprints in a key's two buckets, each equal
 * to its own with probability 1 / (2^f - 1) (bloom_cuckoo_fpr_q32()).
 */
static double cuckoo_fpr(const struct bloom_geom *g, u64 n)
{
	double buckets = (double)(g->bits / (BLOOM_CUCKOO_SLOTS * g->hashes));
	double slots = buckets * BLOOM_CUCKOO_SLOTS;
	double values = ldexp(1.0, g->hashes) - 1;

	if ((double)n > slots)
		n = (u64)slots;
	return -expm1(2.0 * n / buckets * log1p(-1.0 / values));
}

/**
 * geom_theory_fpr() - expected false-positive rate, in double precision
 * @g: the geometry
 * @n: distinct keys added
 *
 * The model of bloom_theory_fpr_q32(), whose fixed point cannot show
 * rates near 10^-9; calc prints this one.
 *
 * Return: the probability that a key never added tests present.
 */
double geom_theory_fpr(const struct bloom_geom *g, u64 n)
{
	double m = (double)g->bits;

	if (!n)
		return 0;
	switch (g->layout) {
	case BLOOM_LAYOUT_BLOCKED:
		return blocked_fpr(g->bits / BLOOM_BLOCK_BITS, g->hashes, n);
	case BLOOM_LAYOUT_PARTITIONED:
		return all_set((double)n, m / g->hashes, g->hashes);
	case BLOOM_LAYOUT_CUCKOO:
		return cuckoo_fpr(g, n);
	default:
		return all_set((double)n * g->hashes, m, g->hashes);
	}
}
