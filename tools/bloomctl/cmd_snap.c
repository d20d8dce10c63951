// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots: save and restore one filter, and build, which makes a
 * snapshot from a list of keys offline with the filter core alone (no
 * kernel). save-all and restore-all are in cmd_persist.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "bloomctl.h"

static void saved_json(const char *name, const char *path, size_t len,
		       const struct snap_image *orig, int method)
{
	struct json j;

	json_start(&j);
	json_object(&j, NULL);
	json_str(&j, "filter", name);
	json_str(&j, "file", path);
	json_u64(&j, "bytes", len);
	if (method >= 0) {
		json_str(&j, "compression", snapz_method_name(method));
		json_u64(&j, "snapshot_bytes", orig->len);
	}
	json_close(&j, '}');
	json_finish(&j);
}

static void saved_msg(const char *cmd, const char *name, const char *path,
		      size_t len, const struct snap_image *orig, int method)
{
	char size[32], from[32];

	if (!strcmp(path, "-"))
		return;		/* stdout holds the snapshot */
	if (opts.format == OUT_JSON && !strcmp(cmd, "save")) {
		saved_json(name, path, len, orig, method);
		return;
	}
	if (opts.quiet)
		return;
	human_bytes(len, size, sizeof(size));
	if (method < 0) {
		printf("saved %s to %s (%s)\n", name, path, size);
		return;
	}
	human_bytes(orig->len, from, sizeof(from));
	printf("saved %s to %s (%s, %s, from %s)\n", name, path, size,
	       snapz_method_name(method), from);
}

/* Fetch @name and write it to @path, compressed if @compress. */
static bool save_one(const char *cmd, const char *name, const char *path,
		     bool compress)
{
	struct snap_image img, z = { NULL, 0 };
	const struct snap_image *out = compress ? &z : &img;
	int method = -1;
	int err = snap_fetch(name, &img);

	if (err == -EAGAIN)
		die("%s %s: its contents kept being replaced; try again", cmd,
		    name);
	if (err)
		die("%s %s: %s", cmd, name, dev_strerror(err, name));
	if (compress)
		method = (int)snapz_pack(&img, &z);
	err = write_file_atomic(path, out->buf, out->len);
	if (err)
		die("%s %s: %s: %s", cmd, name, path, strerror(-err));
	saved_msg(cmd, name, path, out->len, &img, method);
	snap_free(&img);
	snap_free(&z);
	return true;
}

int cmd_save(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS, OUT_LONGOPT, COMPRESS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	const char *out = NULL;
	bool compress = false;
	int c;

	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS,
				  longopts)) != -1) {
		if (c == OPT_OUT)
			out = optarg;
		else if (c == OPT_COMPRESS)
			compress = true;
		else
			common_option(argv[0], c);
	}
	positional(argv[0], argc - optind, 1, 1, "NAME");
	if (!out)
		usage_error(argv[0], "missing --out FILE");
	out_check(argv[0], out, NULL);
	check_name(argv[0], argv[optind]);
	save_one("save", argv[optind], out, compress);
	return EXIT_OK;
}

/* A verified snapshot from @path, or death with the reason. */
static void load_snapshot(const char *cmd, const char *path,
			  struct snap_image *img)
{
	struct bloom_snap_info info;
	int err;

	snap_read_file(path, img);
	err = snap_verify(img, &info);
	if (err)
		die("%s %s: %s", cmd, path, snap_strerror(err));
}

static int restore_image(const char *name, const struct snap_image *img,
			 bool replace)
{
	struct bloom_ioc_restore r;

	memset(&r, 0, sizeof(r));
	name_copy(r.name, name);
	r.buf = (uintptr_t)img->buf;
	r.len = img->len;
	r.flags = replace ? BLOOM_RESTORE_REPLACE : 0;
	return dev_ioctl(BLOOM_IOC_RESTORE, &r);
}

static void __noreturn restore_failed(const char *cmd, const char *path,
				      const char *name, int err, bool replace)
{
	if (err == -EEXIST)
		die("%s %s: a filter named %s exists (use --replace)", cmd, path,
		    name);
	if (err == -EINVAL && replace)
		die("%s %s: the snapshot's key type or family is not %s's", cmd, path,
		    name);
	/* bloomctl checked it: only an older module refuses it now. */
	if (err == -EINVAL)
		die("%s %s: the kernel refused the snapshot (Invalid argument); a bloom.ko older than bloomctl refuses newer formats and flags (--family, --probes): load the module that came with it",
		    cmd, path);
	die("%s %s: %s", cmd, path, dev_strerror(err, name));
}

static void restored_msg(const char *name, const char *path)
{
	if (!opts.quiet)
		printf("restored %s from %s\n", name, path);
}

static void check_derived_name(const char *cmd, const char *path,
			       const char *name)
{
	const char *why = name_problem(name);

	if (why)
		die("%s %s: cannot name the filter '%s' (%s): give --name", cmd,
		    path, name, why);
}

int cmd_restore(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "name",	required_argument,	NULL, 'N' },
		{ "replace",	no_argument,		NULL, 'r' },
		READ_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	const char *path, *given = NULL;
	struct snap_image img;
	bool replace = false;
	char *name;
	int c, err;

	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS,
				  longopts)) != -1) {
		if (c == 'N')
			given = optarg;
		else if (c == 'r')
			replace = true;
		else if (!read_option(argv[0], c, optarg))
			common_option(argv[0], c);
	}
	positional(argv[0], argc - optind, 1, 1, "FILE");
	path = argv[optind];
	if (!given && !strcmp(path, "-"))
		usage_error(argv[0], "restoring from stdin needs --name");
	if (given)
		check_name(argv[0], given);
	name = given ? xstrdup(given) : snap_default_name(path);
	check_derived_name("restore", path, name);
	load_snapshot("restore", path, &img);
	err = restore_image(name, &img, replace);
	if (err)
		restore_failed("restore", path, name, err, replace);
	restored_msg(name, path);
	snap_free(&img);
	free(name);
	return EXIT_OK;
}
