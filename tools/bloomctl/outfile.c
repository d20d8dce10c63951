// SPDX-License-Identifier: GPL-2.0
/*
 * --out FILE of build and save, checked before anything is built or
 * asked of the kernel: a snapshot is binary, so "-" is refused on a
 * terminal; and a FILE that is one of the command's inputs would be
 * replaced by the filter made from it, losing the list.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bloomctl.h"

/* @arg of -f, stat()ed as read: FILE, else the FILE of FILE=VALUE. */
static int input_stat(const char *arg, struct stat *st)
{
	const char *eq = strrchr(arg, '=');
	char *path;
	int err;

	if (!stat(arg, st) || !eq)
		return stat(arg, st);
	path = strndup(arg, (size_t)(eq - arg));
	if (!path)
		die("out of memory");
	err = stat(path, st);
	free(path);
	return err;
}

/**
 * out_check() - refuse an --out that would do harm
 * @cmd: the subcommand, for messages
 * @out: its --out FILE
 * @in: its key input, or NULL (save)
 */
void out_check(const char *cmd, const char *out, const struct key_input *in)
{
	struct stat o, i;
	int n;

	if (!strcmp(out, "-")) {
		if (isatty(STDOUT_FILENO))
			die("%s: --out -: standard output is a terminal, and a snapshot is binary: redirect it (> FILE, | ...) or give --out FILE",
			    cmd);
		return;
	}
	if (!in || stat(out, &o) || !S_ISREG(o.st_mode))
		return;
	for (n = 0; n < in->nfiles; n++)
		if (strcmp(in->files[n], "-") && !input_stat(in->files[n], &i) &&
		    i.st_dev == o.st_dev && i.st_ino == o.st_ino)
			die("%s: --out %s is an input (-f %s): it would be overwritten by the filter",
			    cmd, out, in->files[n]);
}
