// SPDX-License-Identifier: GPL-2.0
/*
 * A filter name or a snapshot file: one rule for every subcommand. An
 * argument is a file when it is "-" (stdin), when it holds a '/' (no
 * filter name can), or when it names a snapshot file in the current
 * directory: "info good.bloom" reads good.bloom, as "restore good.bloom"
 * does, and never asks the kernel for a filter of that name. Anything
 * else is a name (a key list named "drop" beside the filter drop does
 * not hide it: only a snapshot's magic makes a bare name a file).
 *
 * info, test and count read such a file without the kernel
 * (snapfilter.c); every other subcommand needs the kernel, and refuses
 * it before the kernel is touched.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bloomctl.h"

/* A regular file @path that starts as a snapshot does, plain or packed. */
static bool snapshot_here(const char *path)
{
	struct stat st;
	u8 head[4];
	u32 magic;
	int fd;
	bool is;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	is = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	     read(fd, head, sizeof(head)) == (ssize_t)sizeof(head);
	close(fd);
	if (!is)
		return false;
	memcpy(&magic, head, sizeof(magic));
	return bloom_le32_to_cpu(magic) == BLOOM_SNAP_MAGIC ||
	       snapz_is(head, sizeof(head));
}

bool is_snap_path(const char *arg)
{
	return !strcmp(arg, "-") || strchr(arg, '/') || snapshot_here(arg);
}

/*
 * Die when @name, given to @cmd where a filter of the kernel is meant,
 * is a file by the rule above. A path to no file is left to
 * check_name(), whose message names the '/'.
 */
void refuse_file(const char *cmd, const char *name)
{
	bool std = !strcmp(name, "-");
	struct stat st;

	if (!std && !(is_snap_path(name) && !stat(name, &st)))
		return;
	die("%s: %s%s is a file, not a filter name: %s needs the kernel (a file is read by info, test, count)",
	    cmd, name, std ? " (stdin)" : "", cmd);
}
