// SPDX-License-Identifier: GPL-2.0
/*
 * bloomctl: global options, then one subcommand.
 *
 *   bloomctl [-o json|table] [-q] SUBCOMMAND [ARGS...]
 *
 * Exit status: 0 success, 1 "test" found an absent key, 2 any error.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"

static void version(void)
{
	printf("bloomctl %s (ABI %d, snapshot formats %d to %d)\n",
	       BLOOMCTL_VERSION, BLOOM_ABI_VERSION, BLOOM_SNAP_VERSION,
	       BLOOM_SNAP_VERSION_FUSE);
}

/* Options before the subcommand; returns the subcommand's index. */
static int global_options(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cmd_help(1, argv);
			exit(EXIT_OK);
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			version();
			exit(EXIT_OK);
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			opts.quiet = true;
		} else if (!strcmp(a, "--json")) {
			opts.format = OUT_JSON;	/* nft's spelling */
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (++i == argc)
				usage_error(NULL, "option '%s' needs a value", a);
			set_format(NULL, argv[i]);
		} else if (!strncmp(a, "--output=", 9)) {
			set_format(NULL, a + 9);
		} else if (!strncmp(a, "-o", 2)) {
			set_format(NULL, a + 2);
		} else {
			usage_error(NULL, "unknown option '%s'", a);
		}
	}
	return i;
}

int main(int argc, char **argv)
{
	const struct command *c;
	int i = global_options(argc, argv);

	if (i == argc)
		usage_error(NULL, "missing subcommand");
	c = command_find(argv[i]);
	if (!c)
		usage_error(NULL, "unknown subcommand '%s'", argv[i]);
	return c->run(argc - i, argv + i);
}
