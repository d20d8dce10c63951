// SPDX-License-Identifier: GPL-2.0
/*
 * Set algebra on filters of the same geometry and seed: union and
 * intersect (SRC into DST), and cardinality estimates. halve lives with
 * the other one-name commands in cmd_filter.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include "bloomctl.h"

static const struct option common_only[] = {
	COMMON_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

/* Common options, then between @min and @max filter names. */
static int names_args(int argc, char **argv, int min, int max,
		      const char *what)
{
	int c, i;

	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS,
				  common_only)) != -1)
		common_option(argv[0], c);
	positional(argv[0], argc - optind, min, max, what);
	for (i = optind; i < argc; i++)
		check_name(argv[0], argv[i]);
	return optind;
}

static int combine(int argc, char **argv, unsigned long cmd,
		   const char *done)
{
	int first = names_args(argc, argv, 2, 2, "DST SRC"), err;
	const char *dst = argv[first], *src = argv[first + 1];

	err = dev_pair(cmd, dst, src, NULL);
	if (err == -EINVAL)
		die("%s %s %s: the filters differ in layout, size, hashes, seed or key type",
		    argv[0], dst, src);
	if (err)
		die_pair(argv[0], err, dst, src);
	if (!opts.quiet)
		printf("%s %s into %s\n", done, src, dst);
	return EXIT_OK;
}

int cmd_union(int argc, char **argv)
{
	return combine(argc, argv, BLOOM_IOC_UNION, "united");
}

int cmd_intersect(int argc, char **argv)
{
	return combine(argc, argv, BLOOM_IOC_INTERSECT, "intersected");
}

static void estimate_one(const char *name)
{
	struct bloom_ioc_info in;
	bool saturated;
	struct json j;

	filter_key_type("estimate", name, &in);
	saturated = in.est_card == U64_MAX;
	if (opts.format == OUT_JSON) {
		json_start(&j);
		json_object(&j, NULL);
		json_str(&j, "filter", name);
		if (saturated)
			json_null(&j, "estimated_keys");
		else
			json_u64(&j, "estimated_keys", in.est_card);
		json_bool(&j, "saturated", saturated);
		json_u64(&j, "inserted", in.inserted);
		json_close(&j, '}');
		json_finish(&j);
	} else if (!opts.quiet && saturated) {
		printf("%s: saturated (every bit set): no estimate\n", name);
	} else if (!opts.quiet) {
		printf("%s: about %llu distinct keys (%llu adds)\n", name,
		       (unsigned long long)in.est_card,
		       (unsigned long long)in.inserted);
	}
}

static void estimate_two(const char *a, const char *b)
{
	struct bloom_ioc_pair p;
	struct json j;
	int err = dev_pair(BLOOM_IOC_ESTIMATE, a, b, &p);

	if (err == -EINVAL)
		die("estimate %s %s: the filters differ in layout, size, hashes, seed or key type",
		    a, b);
	if (err)
		die_pair("estimate", err, a, b);
	if (opts.format == OUT_JSON) {
		json_start(&j);
		json_object(&j, NULL);
		json_array(&j, "filters");
		json_str(&j, NULL, a);
		json_str(&j, NULL, b);
		json_close(&j, ']');
		json_u64(&j, "intersection", p.intersection);
		json_u64(&j, "union", p.union_);
		json_close(&j, '}');
		json_finish(&j);
	} else if (!opts.quiet) {
		printf("%s and %s: intersection about %llu, union about %llu\n",
		       a, b, (unsigned long long)p.intersection,
		       (unsigned long long)p.union_);
	}
}

int cmd_estimate(int argc, char **argv)
{
	int first = names_args(argc, argv, 1, 2, "NAME [OTHER]");

	if (argc - first == 1)
		estimate_one(argv[first]);
	else
		estimate_two(argv[first], argv[first + 1]);
	return EXIT_OK;
}
