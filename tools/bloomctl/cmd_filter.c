// SPDX-License-Identifier: GPL-2.0
/*
 * Filters as named objects: create, destroy, rename, clear, swap, list,
 * info and the namespace's limits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bloomctl.h"

static const struct option common_only[] = {
	COMMON_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

/* Parse only the common options; returns the index of the first operand. */
static int common_args(int argc, char **argv)
{
	int c;

	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS,
				  common_only)) != -1)
		common_option(argv[0], c);
	return optind;
}

static char *what_of(const char *cmd, const char *name)
{
	static char buf[64 + BLOOM_NAME_MAX];

	snprintf(buf, sizeof(buf), "%s %s", cmd, name);
	return buf;
}

/* @core: what create made, its first stage if it grows */
static void create_json(const char *name, const struct bloom_ioc_create *cr,
			const struct bloom_core *core, bool existed)
{
	struct json j;

	json_start(&j);
	json_object(&j, NULL);
	json_str(&j, "name", name);
	json_str(&j, "layout", bloom_layout_name(cr->layout));
	json_str(&j, "key", bloom_key_type_name(cr->key_type));
	json_family(&j, cr->key_type, cr->flags);
	json_u64(&j, "bits", cr->bits);
	json_u64(&j, "hashes", cr->hashes);
	json_u64(&j, "capacity", cr->capacity);
	json_seed(&j, cr->seed);
	json_u64(&j, "memory_bytes", bloom_array_bytes(core) *
		 (cr->generations ? cr->generations + 1 : 1));
	json_u64(&j, "generations", cr->generations);
	json_u64(&j, "rotate_ms", cr->period_ms);
	json_bool(&j, "rotate_full", cr->age_flags & BLOOM_AGE_F_FULL);
	json_u64(&j, "max_stages", cr->stages_max);
	if (cr->value_bits)
		json_u64(&j, "value_bits", cr->value_bits);
	if (cr->stages_max) {
		json_u64(&j, "growth", cr->growth);
		json_double(&j, "tightening", cr->tighten_pct / 100.0);
		json_double(&j, "fp_rate_bound",
			    (double)bloom_stage_bound_ppb(&core->g) / BLOOM_PPB);
	}
	json_bool(&j, "existed", existed);
	json_close(&j, '}');
	json_finish(&j);
}

static void create_text(const char *name, const struct bloom_ioc_create *cr,
			const struct bloom_core *core, bool existed,
			bool own_lengths)
{
	char size[32], bound[32];

	human_bytes(bloom_array_bytes(core), size, sizeof(size));
	printf("%s %s: %s, key %s, m=%llu, k=%u, capacity %llu, %s, seed 0x%llx\n",
	       existed ? "exists, identical:" : "created",
	       name, bloom_layout_name(cr->layout),
	       key_label(cr->key_type, cr->flags),
	       (unsigned long long)cr->bits, cr->hashes,
	       (unsigned long long)cr->capacity, size,
	       (unsigned long long)cr->seed);
	if (cr->key_type == BLOOM_KEY_NET && cr->fpr_ppb && own_lengths)
		printf("  net: capacity in keys, a prefix a key (add --prefix-lengths all); the rate is a lookup's over up to %u prefix lengths\n",
		       bloom_geom_probes(&core->g));
	else if (cr->key_type == BLOOM_KEY_NET && cr->fpr_ppb)
		printf("  net: capacity in keys, for %llu prefixes as listed (add stores them as at most twice as many); the rate is a lookup's over up to %u prefix lengths\n",
		       (unsigned long long)(cr->capacity / EXPAND_BUDGET),
		       bloom_geom_probes(&core->g));
	if (cr->value_bits)
		printf("  values: %u bits beside each key (add KEY VALUE), packets counted per value (info)\n",
		       cr->value_bits);
	if (cr->generations)
		printf("  aging: %u generations, rotated every %u ms%s; capacity and memory are per generation\n",
		       cr->generations, cr->period_ms,
		       cr->age_flags & BLOOM_AGE_F_FULL ?
		       " and when the newest is full" : "");
	if (!cr->stages_max)
		return;
	human_rate(bloom_stage_bound_ppb(&core->g), bound, sizeof(bound));
	printf("  grows: up to %u stages, each with %u times the keys of the last",
	       cr->stages_max, cr->growth);
	printf(" at %.2g of its rate;\n", cr->tighten_pct / 100.0);
	printf("  the rate stays below %s however far it grows (m, k, capacity:",
	       bound);
	printf(" of the first stage)\n");
}

/*
 * --prefix-lengths all: the keys will be added at their own lengths (add
 * --prefix-lengths all, as a ban manager adds decisions), so a net
 * filter's --capacity counts keys, not prefixes to be expanded.
 */
static void own_lengths_option(struct geom_opts *o, const char *cmd,
			       const char *arg)
{
	if (strcmp(arg, "all"))
		usage_error(cmd, "bad --prefix-lengths '%s': create takes 'all' (each prefix a key: --capacity counts keys); add chooses other lengths",
			    arg);
	o->own_lengths = true;
}

/* --value-bits V: a cuckoo filter's values, 1 to 8 bits. */
static u32 value_bits_option(const char *cmd, const char *arg)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (end == arg || *end || !v || v > BLOOM_CUCKOO_VALUE_BITS_MAX)
		usage_error(cmd, "bad --value-bits '%s' (1 to %d)", arg,
			    BLOOM_CUCKOO_VALUE_BITS_MAX);
	return (u32)v;
}

/*
 * What create made (the kernel chose m and k, and the seed if random),
 * or with --exist the identical filter that was already there; @o, what
 * was asked.
 */
static void create_print(const char *name, const struct bloom_ioc_create *cr,
			 const struct geom_opts *o, bool existed)
{
	struct bloom_geom g = {
		.bits = cr->bits, .hashes = cr->hashes, .layout = cr->layout,
		.capacity = cr->capacity, .growth = cr->growth,
		.tighten_pct = cr->tighten_pct, .value_bits = cr->value_bits,
	};
	struct bloom_core core;

	bloom_core_init(&core, &g);
	if (opts.format == OUT_JSON)
		create_json(name, cr, &core, existed);
	else if (!opts.quiet)
		create_text(name, cr, &core, existed, o->own_lengths);
}

/* How a growing filter's settings differ from create's options, or NULL. */
static const char *grow_differs(const struct geom_opts *o,
				const struct stage_list *sl)
{
	if (sl->s.stages_max != o->stages_max || sl->s.growth != o->growth ||
	    sl->s.tighten_pct != o->tighten_pct)
		return "its growth (--grow, --growth, --tightening, --max-stages)";
	return NULL;
}

/* How filter @in differs from what create was asked for, or NULL. */
static const char *create_differs(const struct geom_opts *o,
				  const struct bloom_ioc_info *in,
				  const struct stage_list *sl)
{
	struct bloom_geom g = {
		.bits = o->bits, .hashes = o->hashes, .capacity = o->capacity,
		.key_type = (u8)o->key_type, .flags = geom_flags(o),
		.value_bits = o->value_bits,
	};
	struct bloom_ioc_cuckoo ck = { 0 };

	if (o->by_rate &&
	    bloom_geom_size(o->capacity,
			    bloom_probe_fpr_ppb(&g, first_fpr_ppb(o)),
			    (u8)o->layout, &g))
		return "its size";
	if (!g.capacity)
		g.capacity = bloom_geom_default_capacity(&g);
	if (in->layout != o->layout)
		return "its layout";
	if (in->key_type != o->key_type)
		return "its key type";
	if ((in->flags & BLOOM_F_FAMILY) != o->family)
		return "its family (--family)";
	if (in->bits != g.bits || in->hashes != g.hashes)
		return "its size (m and k)";
	name_copy(ck.name, in->name);
	if (in->layout == BLOOM_LAYOUT_CUCKOO &&
	    (dev_ioctl(BLOOM_IOC_CUCKOO, &ck) || ck.value_bits != o->value_bits))
		return "its values (--value-bits)";
	if (in->capacity != g.capacity)
		return "its capacity";
	if (o->seeded && (in->seed != o->seed ||
			  !(in->flags & BLOOM_F_FIXED_SEED)))
		return "its seed";
	if (info_probes(in) != bloom_geom_probes(&g))
		return "the prefix lengths its lookups are sized for (--probes)";
	if (in->generations != o->generations ||
	    in->period_ms != o->period_ms || in->age_flags != o->age_flags)
		return "its aging (generations, --rotate, --rotate-full)";
	return grow_differs(o, sl);
}

/* create --exist found @name taken: fine if it is what was asked for. */
static void create_exists(const char *name, const struct geom_opts *o)
{
	struct bloom_ioc_create cr;
	struct bloom_ioc_info in;
	struct stage_list sl;
	const char *why;
	int err = dev_info(name, &in);

	if (!err)
		err = dev_stages(name, &sl);
	if (err)	/* destroyed meanwhile: say so rather than retry */
		die_dev(what_of("create", name), err, name);
	why = create_differs(o, &in, &sl);
	if (why)
		die("create %s: a filter named %s exists and differs in %s",
		    name, name, why);
	memset(&cr, 0, sizeof(cr));
	cr.bits = in.bits;
	cr.hashes = in.hashes;
	cr.layout = in.layout;
	cr.key_type = in.key_type;
	cr.flags = in.flags;
	cr.seed = in.seed;
	cr.capacity = in.capacity;
	cr.generations = in.generations;
	cr.period_ms = in.period_ms;
	cr.age_flags = in.age_flags;
	cr.stages_max = sl.s.stages_max;
	cr.growth = sl.s.growth;
	cr.tighten_pct = sl.s.tighten_pct;
	cr.value_bits = o->value_bits;
	create_print(name, &cr, o, true);
}

int cmd_create(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS, GEOM_LONGOPTS,
		{ "exist",	no_argument,		NULL, 'x' },
		{ "probes",	required_argument,	NULL, OPT_PROBES },
		{ "prefix-lengths", required_argument,	NULL, OPT_PREFIX_LENGTHS },
		{ "value-bits",	required_argument,	NULL, OPT_VALUE_BITS },
		AGE_LONGOPTS, GROW_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct bloom_ioc_create cr;
	struct geom_opts o;
	const char *name;
	bool exist = false;
	int c, err;

	geom_opts_init(&o);
	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS GEOM_SHORTOPTS,
				  longopts)) != -1) {
		if (c == 'x')
			exist = true;
		else if (c == OPT_PROBES)
			o.probes = probes_option(argv[0], optarg);
		else if (c == OPT_PREFIX_LENGTHS)
			own_lengths_option(&o, argv[0], optarg);
		else if (c == OPT_VALUE_BITS)
			o.value_bits = (u8)value_bits_option(argv[0], optarg);
		else if (!age_option(&o, argv[0], c, optarg) &&
			 !grow_option(&o, argv[0], c, optarg) &&
			 !geom_option(&o, argv[0], c, optarg))
			common_option(argv[0], c);
	}
	positional(argv[0], argc - optind, 1, 1, "NAME");
	name = argv[optind];
	check_name(argv[0], name);
	if (o.layout == BLOOM_LAYOUT_FUSE)
		usage_error(argv[0], "a static filter is built from its keys, not created: bloomctl build --kind fuse8 ... --out FILE, then bloomctl restore FILE");
	if (o.own_lengths && o.key_type != BLOOM_KEY_NET)
		usage_error(argv[0], "--prefix-lengths is for net filters (--key net)");
	if (o.value_bits && o.layout != BLOOM_LAYOUT_CUCKOO)
		usage_error(argv[0], "--value-bits keeps a value beside each key of a cuckoo filter: give --layout cuckoo (a static map: bloomctl build --kind fuse8 --values)");
	geom_opts_finish(&o, argv[0]);
	age_opts_finish(&o, argv[0]);
	grow_opts_finish(&o, argv[0]);

	memset(&cr, 0, sizeof(cr));
	cr.value_bits = o.value_bits;
	name_copy(cr.name, name);
	cr.capacity = o.capacity;
	cr.fpr_ppb = o.by_rate ? o.fpr_ppb : 0;
	cr.bits = o.bits;
	cr.hashes = o.hashes;
	cr.layout = (u8)o.layout;
	cr.key_type = (u8)o.key_type;
	cr.seed = o.seed;
	cr.flags = geom_flags(&o);
	cr.generations = o.generations;
	cr.period_ms = o.period_ms;
	cr.age_flags = o.age_flags;
	cr.stages_max = o.stages_max;
	cr.growth = o.growth;
	cr.tighten_pct = o.tighten_pct;
	err = dev_ioctl(BLOOM_IOC_CREATE, &cr);
	if (err == -EEXIST && exist) {
		create_exists(name, &o);
		return EXIT_OK;
	}
	/* The rest was checked here; a bloom.ko from before them refuses. */
	if (err == -EINVAL && cr.value_bits)
		die("create %s: the kernel refused the filter (Invalid argument): a slot of fingerprint and %u value bits must fit %u bits (ask for a higher --fp-rate or fewer --value-bits), or bloom.ko is older than bloomctl",
		    name, cr.value_bits, BLOOM_CUCKOO_FP_MAX);
	if (err == -EINVAL && (cr.flags & (BLOOM_F_PROBES_MASK | BLOOM_F_SUMMARY)))
		die("create %s: %s", name,
		    "the kernel refused the filter (Invalid argument); a bloom.ko older than bloomctl refuses a net filter's --probes and /16 summary: load the module that came with it");
	if (err == -EINVAL && (cr.flags & BLOOM_F_FAMILY))
		die("create %s: the kernel refused the filter (Invalid argument); a bloom.ko older than bloomctl refuses --family: load the module that came with it",
		    name);
	if (err)
		die_dev(what_of("create", name), err, name);

	create_print(name, &cr, &o, false);
	return EXIT_OK;
}

/*
 * Destroy and rename refuse a filter in use (EBUSY). Right after its last
 * rule is deleted with iptables-nft, the rule may still hold it for a
 * moment: nft_compat lets go of a deleted rule's match from deferred
 * work, after a grace period. So a refusal is tried again for up to
 * BUSY_WAIT_MS before it counts; a filter still held then is in use.
 */
#define BUSY_WAIT_MS	3000
#define BUSY_STEP_MS	20

static int unless_busy(unsigned long cmd, const char *a, const char *b)
{
	const struct timespec step = { 0, BUSY_STEP_MS * 1000000L };
	int err, waited;

	for (waited = 0;; waited += BUSY_STEP_MS) {
		err = b ? dev_pair(cmd, a, b, NULL) : dev_name_op(cmd, a);
		if (err != -EBUSY || waited >= BUSY_WAIT_MS)
			return err;
		nanosleep(&step, NULL);
	}
}

/* destroy, clear, halve: one BLOOM_IOC_NAME command per name. */
static int name_command(int argc, char **argv, unsigned long cmd,
			const char *done)
{
	int i, first = common_args(argc, argv), err;

	positional(argv[0], argc - first, 1, -1, "NAME");
	for (i = first; i < argc; i++)
		check_name(argv[0], argv[i]);
	for (i = first; i < argc; i++) {
		err = cmd == BLOOM_IOC_DESTROY ? unless_busy(cmd, argv[i], NULL) :
		      dev_name_op(cmd, argv[i]);
		if (err == -EINVAL && cmd == BLOOM_IOC_HALVE)
			die("%s: its probe range is not a power of two (or is too small)",
			    what_of(argv[0], argv[i]));
		if (err == -EOPNOTSUPP && cmd == BLOOM_IOC_ROTATE)
			die("%s: %s is not an aging filter (create it with --generations)",
			    what_of(argv[0], argv[i]), argv[i]);
		if (err)
			die_dev(what_of(argv[0], argv[i]), err, argv[i]);
		if (!opts.quiet)
			printf("%s %s\n", done, argv[i]);
	}
	return EXIT_OK;
}

int cmd_destroy(int argc, char **argv)
{
	return name_command(argc, argv, BLOOM_IOC_DESTROY, "destroyed");
}

int cmd_clear(int argc, char **argv)
{
	return name_command(argc, argv, BLOOM_IOC_CLEAR, "cleared");
}

int cmd_halve(int argc, char **argv)
{
	return name_command(argc, argv, BLOOM_IOC_HALVE, "halved");
}

int cmd_rotate(int argc, char **argv)
{
	return name_command(argc, argv, BLOOM_IOC_ROTATE, "rotated");
}

int cmd_rename(int argc, char **argv)
{
	int first = common_args(argc, argv), err;
	const char *from, *to;

	positional(argv[0], argc - first, 2, 2, "OLD NEW");
	from = argv[first];
	to = argv[first + 1];
	check_name(argv[0], from);
	check_name(argv[0], to);
	err = unless_busy(BLOOM_IOC_RENAME, from, to);
	if (err)
		die_dev(what_of("rename", from), err,
			err == -EEXIST ? to : from);
	if (!opts.quiet)
		printf("renamed %s to %s\n", from, to);
	return EXIT_OK;
}

/* A swap keeps each filter's keys: say how the two differ. */
static void __noreturn swap_refused(const char *a, const char *b)
{
	struct bloom_ioc_info ia, ib;
	char keys_a[32];

	if (dev_info(a, &ia) || dev_info(b, &ib))
		die("swap %s %s: the filters hold different keys", a, b);
	snprintf(keys_a, sizeof(keys_a), "%s", key_label(ia.key_type, ia.flags));
	die("swap %s %s: %s holds %s keys and %s %s keys (key type and family are a filter's for life)",
	    a, b, a, keys_a, b, key_label(ib.key_type, ib.flags));
}

int cmd_swap(int argc, char **argv)
{
	int first = common_args(argc, argv), err;
	const char *a, *b;

	positional(argv[0], argc - first, 2, 2, "A B");
	a = argv[first];
	b = argv[first + 1];
	check_name(argv[0], a);
	check_name(argv[0], b);
	if (!strcmp(a, b))
		die("swap %s: cannot swap a filter with itself", a);
	err = dev_pair(BLOOM_IOC_SWAP, a, b, NULL);
	if (err == -EINVAL)
		swap_refused(a, b);
	if (err)
		die_pair(what_of("swap", a), err, a, b);
	if (!opts.quiet)
		printf("swapped %s and %s\n", a, b);
	return EXIT_OK;
}

/* How many lengths an IPv4 address is probed at (bloom_test_net()). */
static unsigned int ipv4_lengths(const struct bloom_ioc_info *in)
{
	static const u8 v4[16] = { [10] = 0xff, [11] = 0xff };
	__u64 plens[BLOOM_PLEN_WORDS];

	memcpy(plens, in->plens, sizeof(plens));
	bloom_net_family_plens(plens, v4);
	return bloom_net_lookup_lengths(plens);
}

/*
 * An IPv4 lookup's rate: the kernel reports the rate over every length
 * held (an IPv6 address's), 1 - (1 - p)^L; an IPv4 address probes L4 of
 * them, at 1 - (1 - p)^L4.
 */
static double ipv4_rate(const struct bloom_ioc_info *in)
{
	unsigned int n = bloom_net_lookup_lengths(in->plens);
	double miss = 1 - (double)in->est_fpr_ppb / BLOOM_PPB;

	if (!n)
		return 0;
	return 1 - pow(miss, (double)ipv4_lengths(in) / n);
}

/* The bytes of a net filter's /16 summary (BLOOM_F_SUMMARY), or 0. */
static u64 summary_bytes(const struct bloom_ioc_info *in)
{
	struct bloom_geom g = { .key_type = in->key_type, .flags = in->flags };

	return 8 * bloom_summary_words(&g);
}

/*
 * A net lookup probes every length held of its family: the most (an
 * IPv6 address's), the IPv4 ones, and the P it was sized for.
 */
static void plens_json(struct json *j, const struct bloom_ioc_info *in)
{
	unsigned int p, n = bloom_net_lookup_lengths(in->plens);

	json_array(j, "prefix_lengths");
	for (p = 0; p <= 128; p++)
		if (in->plens[p / 64] >> (p % 64) & 1)
			json_u64(j, NULL, p);
	json_close(j, ']');
	json_u64(j, "lookup_lengths", n);
	json_u64(j, "lookup_lengths_ipv4", ipv4_lengths(in));
	json_double(j, "estimated_fp_rate_ipv4", ipv4_rate(in));
	if (info_probes(in))
		json_u64(j, "lookup_lengths_sized_for", info_probes(in));
	else
		json_null(j, "lookup_lengths_sized_for");
	json_bool(j, "over_lengths", n > info_probes(in) && info_probes(in));
	json_u64(j, "summary_bytes", summary_bytes(in));
}

/* The newest stage of a growing filter. */
static const struct bloom_ioc_stage *newest_stage(const struct stage_list *sl)
{
	return &sl->st[stage_count(sl) - 1];
}

/*
 * Over what it was sized for: the capacity is per generation for an
 * aging filter, so the newest is compared (without the generations, the
 * total over G generations can only say "at most"); a growing filter is
 * over only when its newest stage is and no stage is to come.
 */
static bool over_capacity(const struct bloom_ioc_info *in,
			  const struct bloom_ioc_gen *gens,
			  const struct stage_list *sl)
{
	if (stage_count(sl))
		return sl->s.full && newest_stage(sl)->inserted >
				     newest_stage(sl)->capacity;
	if (!in->generations)
		return in->inserted > in->capacity;
	if (gens)
		return gens[0].inserted > in->capacity;
	return in->inserted > in->capacity * in->generations;
}

/* Keys the stages a growing filter has were sized for. */
static u64 stages_capacity(const struct stage_list *sl)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < stage_count(sl); i++)
		sum += sl->st[i].capacity;
	return sum;
}

/* Aging: G, the period, and each generation, newest first. */
static void aging_json(struct json *j, const struct bloom_ioc_info *in,
		       const struct bloom_ioc_gen *gens)
{
	u32 i;

	json_u64(j, "generations", in->generations);
	json_u64(j, "rotate_ms", in->period_ms);
	json_bool(j, "rotate_full", in->age_flags & BLOOM_AGE_F_FULL);
	json_u64(j, "rotations", in->rotations);
	if (!gens)
		return;
	json_array(j, "generation");
	for (i = 0; i < in->generations; i++) {
		json_object(j, NULL);
		json_u64(j, "age_ms", gens[i].age_ms);
		json_u64(j, "inserted", gens[i].inserted);
		json_u64(j, "bits_set", gens[i].bits_set);
		json_double(j, "fill", (double)gens[i].fill_ppb / BLOOM_PPB);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void aging_text(const struct bloom_ioc_info *in,
		       const struct bloom_ioc_gen *gens)
{
	u32 i;

	printf("%-16s %u, rotated every %u ms%s (%llu rotations)\n",
	       "generations:", in->generations, in->period_ms,
	       in->age_flags & BLOOM_AGE_F_FULL ? " and when the newest is full" :
	       "", (unsigned long long)in->rotations);
	for (i = 0; i < in->generations; i++)
		printf("  %-14s age %llu ms, inserted %llu, set %llu (%.2f%%)\n",
		       i ? "older:" : "newest:",
		       (unsigned long long)gens[i].age_ms,
		       (unsigned long long)gens[i].inserted,
		       (unsigned long long)gens[i].bits_set,
		       (double)gens[i].fill_ppb / 1e7);
}

/* Growing: the settings, the bound, and each stage, oldest first. */
static void stages_json(struct json *j, const struct stage_list *sl)
{
	const struct bloom_ioc_stage *st;
	u32 i;

	json_u64(j, "stages", sl->s.stages);
	json_u64(j, "max_stages", sl->s.stages_max);
	json_u64(j, "growth", sl->s.growth);
	json_double(j, "tightening", sl->s.tighten_pct / 100.0);
	json_double(j, "fp_rate_bound", (double)sl->s.bound_ppb / BLOOM_PPB);
	json_bool(j, "full", sl->s.full);
	json_u64(j, "stages_capacity", stages_capacity(sl));
	json_array(j, "stage");
	for (i = 0; i < stage_count(sl); i++) {
		st = &sl->st[i];
		json_object(j, NULL);
		json_u64(j, "bits", st->bits);
		json_u64(j, "hashes", st->hashes);
		json_u64(j, "capacity", st->capacity);
		json_u64(j, "inserted", st->inserted);
		json_u64(j, "bits_set", st->bits_set);
		json_double(j, "fill", (double)st->fill_ppb / BLOOM_PPB);
		json_double(j, "estimated_fp_rate",
			    (double)st->est_fpr_ppb / BLOOM_PPB);
		json_u64(j, "memory_bytes", st->mem_bytes);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void stage_text(u32 i, const struct bloom_ioc_stage *st)
{
	char label[24], mem[32], fpr[32];

	snprintf(label, sizeof(label), "stage %u:", i);
	human_bytes(st->mem_bytes, mem, sizeof(mem));
	human_rate(st->est_fpr_ppb, fpr, sizeof(fpr));
	printf("  %-14s m=%llu, k=%u, capacity %llu, inserted %llu, fill %.2f%%, fp rate %s, %s\n",
	       label, (unsigned long long)st->bits, st->hashes,
	       (unsigned long long)st->capacity,
	       (unsigned long long)st->inserted, (double)st->fill_ppb / 1e7,
	       fpr, mem);
}

static void stages_text(const struct stage_list *sl)
{
	char bound[32];
	u32 i;

	human_rate(sl->s.bound_ppb, bound, sizeof(bound));
	printf("%-16s %u of at most %u, each with %u times the keys of the last",
	       "stages:", sl->s.stages, sl->s.stages_max, sl->s.growth);
	printf(" at %.2g of its rate\n", sl->s.tighten_pct / 100.0);
	printf("%-16s below %s, however many stages it grows\n",
	       "fp rate bound:", bound);
	printf("%-16s %s\n", "at its limit:", sl->s.full ?
	       "YES: no stage to come, it fills up as a plain filter does" :
	       "no: a stage comes when the newest is full");
	for (i = 0; i < stage_count(sl); i++)
		stage_text(i, &sl->st[i]);
}

/* What info shows of a static filter, beyond INFO (set by cmd_info()). */
static struct bloom_ioc_fuse info_fuse;

/*
 * A filter's values: their width (a cuckoo filter's or a static map's)
 * and, for a live filter that counts them, the packets each matched.
 */
static struct {
	u32 bits;
	u32 counted;		/* values counted, 0 for none */
	u64 hits[1U << BLOOM_VALUE_HITS_BITS];
} info_values;

static u64 cuckoo_buckets(const struct bloom_ioc_info *in)
{
	return in->bits /
	       ((u64)BLOOM_CUCKOO_SLOTS * (in->hashes + info_values.bits));
}

/* Fill info_values for a live filter @name, or one read from @file. */
static void values_shape(const char *name, const struct bloom_ioc_info *in,
			 const struct bloom_core *file)
{
	struct bloom_ioc_value_hits vh = { 0 };
	struct bloom_ioc_cuckoo ck = { 0 };

	memset(&info_values, 0, sizeof(info_values));
	if (file) {
		info_values.bits = file->g.value_bits;
		return;
	}
	if (in->layout == BLOOM_LAYOUT_FUSE) {
		info_values.bits = info_fuse.value_bits;
	} else if (in->layout == BLOOM_LAYOUT_CUCKOO) {
		name_copy(ck.name, name);
		if (!dev_ioctl(BLOOM_IOC_CUCKOO, &ck))
			info_values.bits = ck.value_bits;
	}
	if (!info_values.bits)
		return;
	name_copy(vh.name, name);
	vh.buf = (uintptr_t)info_values.hits;
	vh.count = ARRAY_SIZE(info_values.hits);
	if (!dev_ioctl(BLOOM_IOC_VALUE_HITS, &vh))
		info_values.counted = min(vh.values, vh.count);
}

/* "value_hits": { "3": 17, ... }, the values that matched packets. */
static void value_hits_json(struct json *j)
{
	char key[16];
	u32 v;

	if (!info_values.counted)
		return;
	json_object(j, "value_hits");
	for (v = 0; v < info_values.counted; v++) {
		if (!info_values.hits[v])
			continue;
		snprintf(key, sizeof(key), "%u", v);
		json_u64(j, key, info_values.hits[v]);
	}
	json_close(j, '}');
}

/* "values: 4-bit; matched 3: 17, 5: 2" */
static void value_hits_text(void)
{
	u32 v, shown = 0;

	if (!info_values.bits)
		return;
	printf("%-16s %u-bit values", "values:", info_values.bits);
	for (v = 0; v < info_values.counted; v++) {
		if (!info_values.hits[v])
			continue;
		printf("%s%u: %llu", shown++ ? ", " : "; packets matched by value ",
		       v, (unsigned long long)info_values.hits[v]);
	}
	if (info_values.counted && !shown)
		printf("; no packet matched yet");
	printf("\n");
}

/* A live filter's id (BLOOM_IOC_ID), 0 for a file. */
static u32 info_id;

static u32 id_of(const char *name)
{
	struct bloom_ioc_id q = { 0 };

	name_copy(q.name, name);
	return dev_ioctl(BLOOM_IOC_ID, &q) ? 0 : q.id;
}

static void info_json(struct json *j, const struct bloom_ioc_info *in,
		      const struct bloom_ioc_gen *gens,
		      const struct stage_list *sl)
{
	bool saturated = in->est_card == U64_MAX;

	json_object(j, NULL);
	json_str(j, "name", in->name);
	if (info_id)
		json_u64(j, "id", info_id);
	json_str(j, "layout", bloom_layout_name(in->layout));
	json_str(j, "key", bloom_key_type_name(in->key_type));
	json_family(j, in->key_type, in->flags);
	json_u64(j, "bits", in->bits);
	json_u64(j, "hashes", in->hashes);
	json_seed(j, in->seed);
	json_bool(j, "fixed_seed", in->flags & BLOOM_F_FIXED_SEED);
	json_u64(j, "memory_bytes", in->mem_bytes);
	json_u64(j, "bits_set", in->bits_set);
	json_double(j, "fill", (double)in->fill_ppb / BLOOM_PPB);
	json_u64(j, "inserted", in->inserted);
	json_u64(j, "capacity", in->capacity);
	json_bool(j, "over_capacity", over_capacity(in, gens, sl));
	if (saturated)
		json_null(j, "estimated_keys");
	else
		json_u64(j, "estimated_keys", in->est_card);
	json_bool(j, "saturated", saturated);
	json_double(j, "estimated_fp_rate",
		    (double)in->est_fpr_ppb / BLOOM_PPB);
	json_u64(j, "hits", in->hits);
	json_u64(j, "misses", in->misses);
	json_u64(j, "users", in->users);
	if (in->key_type == BLOOM_KEY_NET)
		plens_json(j, in);
	if (in->layout == BLOOM_LAYOUT_CUCKOO) {
		json_u64(j, "fingerprint_bits", in->hashes);
		json_u64(j, "buckets", cuckoo_buckets(in));
		json_u64(j, "slots_per_bucket", BLOOM_CUCKOO_SLOTS);
	}
	if (in->layout == BLOOM_LAYOUT_FUSE) {
		json_u64(j, "fingerprint_bits", info_fuse.fp_bits);
		json_u64(j, "entries", info_fuse.entries);
		json_u64(j, "segment_length", info_fuse.segment_len);
	}
	if (in->layout == BLOOM_LAYOUT_FUSE || info_values.bits)
		json_u64(j, "value_bits", info_values.bits);
	value_hits_json(j);
	if (in->generations)
		aging_json(j, in, gens);
	if (stage_count(sl))
		stages_json(j, sl);
	json_close(j, '}');
}

static void plens_text(const struct bloom_ioc_info *in)
{
	unsigned int p, n;

	printf("%-16s", "prefix lengths:");
	for (p = 0; p <= 128; p++)
		if (in->plens[p / 64] >> (p % 64) & 1)
			printf(" %u", p);
	printf("   (on 128 bits: IPv4 /24 is 120)\n");
	n = bloom_net_lookup_lengths(in->plens);
	printf("%-16s %u prefix lengths probed (an IPv4 address: %u)",
	       "lookup:", n, ipv4_lengths(in));
	if (!info_probes(in))
		printf(", sized per probe (no --probes)\n");
	else
		printf(", sized for %u%s\n", info_probes(in),
		       n > info_probes(in) ?
		       " (OVER: false positives above what it was sized for)" : "");
	if (summary_bytes(in))
		printf("%-16s /16 summary, %llu KiB: %s\n", "",
		       (unsigned long long)summary_bytes(in) / 1024,
		       "an address of a /16 no prefix reaches is absent without a probe");
}

/* What a figure covers: @aging for an aging filter, @stages a growing one. */
static const char *scope(const struct bloom_ioc_info *in,
			 const struct stage_list *sl, const char *aging,
			 const char *stages)
{
	if (in->generations)
		return aging;
	return stage_count(sl) ? stages : "";
}

/* A static filter: its entries, fingerprints and values. */
static void fuse_text(void)
{
	const struct bloom_ioc_fuse *f = &info_fuse;

	printf("%-16s %llu keys in %llu entries (segments of %u), %u-bit fingerprints",
	       "static:", (unsigned long long)f->keys,
	       (unsigned long long)f->entries, f->segment_len, f->fp_bits);
	if (f->value_bits)
		printf(", %u-bit values (a map)", f->value_bits);
	printf("; rebuild to change\n");
}

/*
 * A cuckoo table: m and k are its bits and fingerprint width, its "set"
 * figures are slots: say so.
 */
static void cuckoo_text(const struct bloom_ioc_info *in)
{
	printf("%-16s %llu buckets of %u slots, %u-bit fingerprints\n",
	       "table:", (unsigned long long)cuckoo_buckets(in),
	       BLOOM_CUCKOO_SLOTS, in->hashes);
	printf("%-16s %llu slots (load %.2f%%)\n", "used:",
	       (unsigned long long)in->bits_set, (double)in->fill_ppb / 1e7);
}

static void info_text(const struct bloom_ioc_info *in,
		      const struct bloom_ioc_gen *gens,
		      const struct stage_list *sl)
{
	const char *first = scope(in, sl, "", " (first stage)");
	char mem[32], fpr[32];

	human_bytes(in->mem_bytes, mem, sizeof(mem));
	human_rate(in->est_fpr_ppb, fpr, sizeof(fpr));
	printf("%-16s %s\n", "name:", in->name);
	if (info_id)
		printf("%-16s %u   (for XDP and tc programs)\n", "id:", info_id);
	printf("%-16s %s\n", "layout:", bloom_layout_name(in->layout));
	printf("%-16s %s\n", "key:", bloom_key_type_name(in->key_type));
	if (family_name(in->flags))
		printf("%-16s %s (IPv%c only)\n", "family:",
		       family_name(in->flags),
		       in->flags & BLOOM_F_INET ? '4' : '6');
	printf("%-16s %llu %s%s\n", "size (m):", (unsigned long long)in->bits,
	       in->layout == BLOOM_LAYOUT_COUNTING ? "counters" : "bits", first);
	printf("%-16s %u%s\n", "hashes (k):", in->hashes, first);
	printf("%-16s 0x%016llx%s\n", "seed:", (unsigned long long)in->seed,
	       in->flags & BLOOM_F_FIXED_SEED ? " (fixed)" : "");
	printf("%-16s %s\n", "memory:", mem);
	printf("%-16s %llu (%.2f%%)\n", "set:",
	       (unsigned long long)in->bits_set, (double)in->fill_ppb / 1e7);
	printf("%-16s %llu%s\n", "inserted:", (unsigned long long)in->inserted,
	       scope(in, sl, " (all generations)", " (all stages)"));
	printf("%-16s %llu%s%s\n", "capacity:", (unsigned long long)in->capacity,
	       scope(in, sl, " per generation", " in the first stage"),
	       over_capacity(in, gens, sl) ?
	       " (OVER CAPACITY: false positives above what it was sized for)" : "");
	if (in->est_card == U64_MAX)
		printf("%-16s saturated\n", "estimated keys:");
	else
		printf("%-16s %llu\n", "estimated keys:",
		       (unsigned long long)in->est_card);
	printf("%-16s %s", "fp rate now:", fpr);
	if (in->key_type == BLOOM_KEY_NET) {
		human_rate((u64)(ipv4_rate(in) * BLOOM_PPB), fpr, sizeof(fpr));
		printf(" per lookup (an IPv4 address: %s)", fpr);
	}
	printf("\n");
	printf("%-16s %llu / %llu\n", "hits / misses:",
	       (unsigned long long)in->hits, (unsigned long long)in->misses);
	printf("%-16s %u\n", "users:", in->users);
	if (in->key_type == BLOOM_KEY_NET)
		plens_text(in);
	if (in->layout == BLOOM_LAYOUT_CUCKOO)
		cuckoo_text(in);
	if (in->layout == BLOOM_LAYOUT_FUSE)
		fuse_text();
	if (in->layout == BLOOM_LAYOUT_CUCKOO || info_values.counted)
		value_hits_text();
	if (in->generations)
		aging_text(in, gens);
	if (stage_count(sl))
		stages_text(sl);
}

/* INFO with each generation or stage; dies if the filter is gone. */
static void info_gens(const char *cmd, const char *name,
		      struct bloom_ioc_info *in, struct bloom_ioc_gen *gens,
		      struct stage_list *sl)
{
	int err;

	memset(in, 0, sizeof(*in));
	name_copy(in->name, name);
	in->gens = (uintptr_t)gens;
	err = dev_ioctl(BLOOM_IOC_INFO, in);
	if (!err)
		err = dev_stages(name, sl);
	if (err)
		die_dev(what_of(cmd, name), err, name);
}

void info_print(const struct bloom_ioc_info *in,
		const struct bloom_ioc_gen *gens, const struct stage_list *sl)
{
	struct json j;

	if (opts.format == OUT_JSON) {
		json_start(&j);
		info_json(&j, in, gens, sl);
		json_finish(&j);
	} else if (!opts.quiet) {
		info_text(in, gens, sl);
	}
}

/* A live cuckoo filter's moves and refused adds (text output only). */
static void cuckoo_moves(const char *name)
{
	struct bloom_ioc_cuckoo ck = { 0 };

	name_copy(ck.name, name);
	if (opts.format == OUT_JSON || opts.quiet ||
	    dev_ioctl(BLOOM_IOC_CUCKOO, &ck))
		return;
	printf("%-16s %llu fingerprints moved, %llu adds refused (no room)\n",
	       "moves:", (unsigned long long)ck.moves,
	       (unsigned long long)ck.failed);
}

/* A static filter's shape, from the kernel or from its file's geometry. */
static void fuse_shape(const char *name, const struct bloom_core *file)
{
	u32 seg_len;

	if (!file) {
		if (dev_fuse(name, &info_fuse))
			memset(&info_fuse, 0, sizeof(info_fuse));
		return;
	}
	info_fuse.keys = file->g.capacity;
	info_fuse.entries = bloom_fuse_entries(file->g.capacity, &seg_len);
	info_fuse.segment_len = seg_len;
	info_fuse.fp_bits = file->g.hashes;
	info_fuse.value_bits = file->g.value_bits;
}

/* info's options: the common ones, and a file's --max-memory. */
static int info_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS, READ_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS,
				  longopts)) != -1)
		if (!read_option(argv[0], c, optarg))
			common_option(argv[0], c);
	return optind;
}

/* NAME, or a snapshot FILE (target.c), see snapfilter.c */
int cmd_info(int argc, char **argv)
{
	struct bloom_ioc_gen gens[BLOOM_GENERATIONS_MAX] = {};
	struct bloom_ioc_info in;
	struct snap_filter sf;	/* sf.sl: the stages, of a file or not */
	int first = info_args(argc, argv);
	bool file;

	positional(argv[0], argc - first, 1, 1, "NAME");
	file = is_snap_path(argv[first]);
	if (file) {
		snap_filter_load("info", argv[first], &sf, &in);
		snap_filter_free(&sf);
	} else {
		check_name(argv[0], argv[first]);
		info_gens("info", argv[first], &in, gens, &sf.sl);
		info_id = id_of(argv[first]);
	}
	if (in.layout == BLOOM_LAYOUT_FUSE)
		fuse_shape(argv[first], file ? &sf.core[0] : NULL);
	values_shape(argv[first], &in, file ? &sf.core[0] : NULL);
	info_print(&in, gens, &sf.sl);
	if (in.layout == BLOOM_LAYOUT_CUCKOO && !file)
		cuckoo_moves(argv[first]);
	return EXIT_OK;
}

static void list_row(struct table *t, const struct bloom_ioc_info *in,
		     const struct stage_list *sl)
{
	char mem[32];

	human_bytes(in->mem_bytes, mem, sizeof(mem));
	table_cell(t, "%s", in->name);
	table_cell(t, "%s", bloom_layout_name(in->layout));
	table_cell(t, "%s", key_label(in->key_type, in->flags));
	table_cell(t, "%llu", (unsigned long long)in->bits);
	table_cell(t, "%u", in->hashes);
	table_cell(t, "%s", mem);
	table_cell(t, "%.2f%%", (double)in->fill_ppb / 1e7);
	table_cell(t, "%llu%s", (unsigned long long)in->inserted,
		   over_capacity(in, NULL, sl) ? " OVER" : "");
	if (stage_count(sl))	/* so far, and + while it may grow */
		table_cell(t, "%llu%s", (unsigned long long)stages_capacity(sl),
			   sl->s.full ? "" : "+");
	else
		table_cell(t, "%llu", (unsigned long long)in->capacity);
	table_cell(t, "%u", in->users);
	table_cell(t, "%u", info_id);
}

/* One filter's line or JSON object; false if it vanished meanwhile. */
static bool list_one(const char *name, bool names_only, struct table *t,
		     struct json *j)
{
	struct bloom_ioc_info in;
	struct stage_list sl;
	int err;

	if (names_only) {
		if (opts.format == OUT_JSON)
			json_str(j, NULL, name);
		else if (!opts.quiet)
			printf("%s\n", name);
		return true;
	}
	err = dev_info(name, &in);
	if (!err)
		err = dev_stages(name, &sl);
	if (err == -ENOENT)
		return false;	/* destroyed since LIST: just gone */
	if (err)
		die_dev(what_of("list", name), err, name);
	info_id = id_of(name);
	if (in.layout == BLOOM_LAYOUT_FUSE)
		fuse_shape(name, NULL);
	values_shape(name, &in, NULL);
	if (opts.format == OUT_JSON)
		info_json(j, &in, NULL, &sl);
	else
		list_row(t, &in, &sl);
	return true;
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS, { "names", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 }
	};
	char (*names)[BLOOM_NAME_MAX];
	bool names_only = false;
	struct table t;
	struct json j;
	u32 n, i;
	int c, err;

	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS "n",
				  longopts)) != -1) {
		if (c == 'n')
			names_only = true;
		else
			common_option(argv[0], c);
	}
	positional(argv[0], argc - optind, 0, 0, "no arguments");
	err = dev_names(&names, &n);
	if (err)
		die_dev("list", err, "");
	json_start(&j);
	table_init(&t, "NAME LAYOUT KEY >M >K >MEMORY >FILL >INSERTED >CAPACITY >USERS >ID");
	if (opts.format == OUT_JSON) {
		json_object(&j, NULL);
		json_array(&j, "filters");
	}
	for (i = 0; i < n; i++)
		list_one(names[i], names_only, &t, &j);
	if (opts.format == OUT_JSON) {
		json_close(&j, ']');
		json_close(&j, '}');
		json_finish(&j);
	} else if (!opts.quiet && !names_only) {
		table_print(&t);
	}
	table_free(&t);
	free(names);
	return EXIT_OK;
}

static void limits_set(const char *cmd, u64 max_filters, u64 max_bytes,
		       int which)
{
	struct bloom_ioc_limits l;
	int err;

	memset(&l, 0, sizeof(l));
	err = dev_ioctl(BLOOM_IOC_LIMITS, &l);
	if (err)
		die_dev(cmd, err, "");
	if (which & 1)
		l.max_filters = max_filters;
	if (which & 2)
		l.max_bytes = max_bytes;
	l.filters = l.bytes = 0;
	l.flags = BLOOM_LIMITS_SET;
	err = dev_ioctl(BLOOM_IOC_LIMITS, &l);
	if (err == -EPERM)
		die("%s: needs CAP_NET_ADMIN, and over the host to raise a limit above what the host allows",
		    cmd);
	if (err)
		die_dev(cmd, err, "");
}

static void limits_show(void)
{
	struct bloom_ioc_limits l;
	char used[32], max[32];
	struct json j;
	int err;

	memset(&l, 0, sizeof(l));
	err = dev_ioctl(BLOOM_IOC_LIMITS, &l);
	if (err)
		die_dev("limits", err, "");
	if (opts.format == OUT_JSON) {
		json_start(&j);
		json_object(&j, NULL);
		json_u64(&j, "filters", l.filters);
		json_u64(&j, "max_filters", l.max_filters);
		json_u64(&j, "bytes", l.bytes);
		json_u64(&j, "max_bytes", l.max_bytes);
		json_close(&j, '}');
		json_finish(&j);
		return;
	}
	if (opts.quiet)
		return;
	human_bytes(l.bytes, used, sizeof(used));
	human_bytes(l.max_bytes, max, sizeof(max));
	printf("%-9s %llu of %llu\n", "filters:", (unsigned long long)l.filters,
	       (unsigned long long)l.max_filters);
	printf("%-9s %s of %s (%llu of %llu bytes)\n", "memory:", used, max,
	       (unsigned long long)l.bytes, (unsigned long long)l.max_bytes);
}

int cmd_limits(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "max-filters", required_argument, NULL, 'F' },
		{ "max-bytes", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 }
	};
	u64 max_filters = 0, max_bytes = 0;
	int c, which = 0;

	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS,
				  longopts)) != -1) {
		if (c == 'F' && !parse_count(optarg, &max_filters))
			which |= 1;
		else if (c == 'B' && !parse_count(optarg, &max_bytes))
			which |= 2;
		else if (c == 'F' || c == 'B')
			usage_error(argv[0], "bad number '%s'", optarg);
		else
			common_option(argv[0], c);
	}
	positional(argv[0], argc - optind, 0, 0, "only options");
	if (which)
		limits_set("limits", max_filters, max_bytes, which);
	limits_show();
	return EXIT_OK;
}
