// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot files (uapi/bloom.h): fetched from the kernel in chunks,
 * sealed with their checksum, verified before a restore, and written
 * atomically when they are regular files (a temporary file in the same
 * directory, fsync, rename), so that a crash leaves either the old file
 * or the new one; devices, FIFOs and pipes are written in place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bloomctl.h"

#define SAVE_CHUNK	(4U << 20)	/* payload bytes per ioctl */
#define SAVE_TRIES	16		/* starts over when replaced */
#define MAX_SYMLINKS	40		/* as the kernel follows */

static struct bloom_snap_hdr *hdr_of(const struct snap_image *img)
{
	return (struct bloom_snap_hdr *)img->buf;
}

static int save_call(const char *name, u8 *buf, u64 offset, u64 len,
		     struct bloom_ioc_save *s)
{
	memset(s, 0, sizeof(*s));
	name_copy(s->name, name);
	s->buf = (uintptr_t)buf;
	s->offset = offset;
	s->len = len;
	return dev_ioctl(BLOOM_IOC_SAVE, s);
}

/**
 * snap_fetch_tail() - the last bytes of a live filter's payload
 * @name: the filter
 * @buf: filled
 * @len: bytes, whole words
 * @flags: the geometry flags the caller expects the contents to have
 *
 * Return: 0; -ESTALE when the contents have other flags now, or were
 * replaced or grew between the two calls; -EMSGSIZE when their payload
 * is shorter; else as BLOOM_IOC_SAVE.
 */
int snap_fetch_tail(const char *name, void *buf, u64 len, u16 flags)
{
	struct bloom_ioc_save s;
	u64 total, gen;
	int err = save_call(name, NULL, 0, 0, &s);

	if (err)
		return err;
	total = bloom_le64_to_cpu(s.hdr.payload_len);
	gen = s.generation;
	if (bloom_le16_to_cpu(s.hdr.flags) != flags)
		return -ESTALE;
	if (total < len)
		return -EMSGSIZE;
	err = save_call(name, buf, total - len, len, &s);
	if (!err && (s.generation != gen ||
		     bloom_le64_to_cpu(s.hdr.payload_len) != total))
		err = -ESTALE;
	return err;
}

/* One pass; *replaced when the contents changed under it. */
static int fetch_once(const char *name, struct snap_image *img,
		      bool *replaced)
{
	struct bloom_ioc_save s;
	u64 gen, total, off, n;
	int err;

	err = save_call(name, NULL, 0, 0, &s);
	if (err)
		return err;
	gen = s.generation;
	total = bloom_le64_to_cpu(s.hdr.payload_len);
	img->len = sizeof(s.hdr) + total;
	img->buf = xrealloc(img->buf, img->len);
	memcpy(img->buf, &s.hdr, sizeof(s.hdr));
	for (off = 0; off < total; off += n) {
		n = min((u64)SAVE_CHUNK, total - off);
		err = save_call(name, img->buf + sizeof(s.hdr) + off, off, n,
				&s);
		/* A halved filter is smaller: that range is then EINVAL. */
		if (s.generation != gen && (!err || err == -EINVAL)) {
			*replaced = true;
			return 0;
		}
		if (err)
			return err;
		/* The latest header: its inserted count matches these bits. */
		memcpy(img->buf, &s.hdr, sizeof(s.hdr));
	}
	return 0;
}

/**
 * snap_fetch() - read filter @name into a sealed snapshot image
 * @name: the filter
 * @img: filled; free with snap_free()
 *
 * Bits are read live in chunks; if the contents are replaced (clear,
 * swap, restore, halve) between chunks, the read starts over.
 *
 * Return: 0, -EAGAIN if the contents kept being replaced, or an ioctl
 * error.
 */
int snap_fetch(const char *name, struct snap_image *img)
{
	int tries, err;

	memset(img, 0, sizeof(*img));
	for (tries = 0; tries < SAVE_TRIES; tries++) {
		bool replaced = false;

		err = fetch_once(name, img, &replaced);
		if (err)
			return err;
		if (!replaced) {
			snap_seal(img);
			return 0;
		}
	}
	return -EAGAIN;
}

static u64 checksum_of(const struct snap_image *img)
{
	bloom_hash_state st;

	bloom_snap_csum_begin(&st, hdr_of(img));
	bloom_hash_update(&st, img->buf + sizeof(struct bloom_snap_hdr),
			  img->len - sizeof(struct bloom_snap_hdr));
	return bloom_hash_final(&st);
}

/* Fill in the checksum: xxh64 over header (checksum zero) and payload. */
void snap_seal(struct snap_image *img)
{
	hdr_of(img)->checksum = bloom_cpu_to_le64(checksum_of(img));
}

/**
 * snap_verify() - check a snapshot as the kernel will
 * @img: the whole file
 * @info: on success, what it holds
 *
 * Return: 0, or a snapshot error for snap_strerror().
 */
int snap_verify(const struct snap_image *img, struct bloom_snap_info *info)
{
	struct bloom_snap_hdr h;
	int err;

	memset(&h, 0, sizeof(h));
	memcpy(&h, img->buf, min(img->len, sizeof(h)));
	err = bloom_snap_check_hdr(&h, img->len, info);
	if (err == -EINVAL && bloom_key_type_retired(h.key_type))
		return SNAP_E_RETIRED_KEY;
	if (err == -EMSGSIZE &&
	    img->len - sizeof(h) < bloom_le64_to_cpu(h.payload_len))
		return SNAP_E_TRUNCATED;
	if (err)
		return err;
	return checksum_of(img) == info->checksum ? 0 : -EBADMSG;
}

/**
 * snap_strerror() - what an error of snap_verify() means
 * @err: a negative error from snap_verify()
 *
 * Return: a sentence for users.
 */
const char *snap_strerror(int err)
{
	if (err == SNAP_E_TRUNCATED)
		return "snapshot is truncated (shorter than its header says: an interrupted copy?)";
	if (err == SNAP_E_RETIRED_KEY)
		return "the snapshot holds digest-v1 keys, a retired key type: digest keys changed, so make the filter again with 'bloomctl create --key digest' (its old contents are only dedup state)";
	return bloom_snap_strerror(err);
}

/*
 * The whole of @path ("-": stdin) into memory, decompressed when it is a
 * compressed snapshot; dies on error.
 */
void snap_read_file(const char *path, struct snap_image *img)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	size_t cap = 1 << 16;
	ssize_t n;

	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	memset(img, 0, sizeof(*img));
	img->buf = xmalloc(cap);
	while ((n = read(fd, img->buf + img->len, cap - img->len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("%s: %s", path, strerror(errno));
		img->len += (size_t)n;
		if (img->len == cap) {
			cap *= 2;
			img->buf = xrealloc(img->buf, cap);
		}
	}
	if (fd)
		close(fd);
	if (snapz_is(img->buf, img->len))
		snapz_unpack(path, img);	/* compress.c */
}

void snap_free(struct snap_image *img)
{
	free(img->buf);
	memset(img, 0, sizeof(*img));
}

static int write_all(int fd, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);	/* the rename; best effort */
		close(fd);
	}
}

/*
 * The path a dangling symlink at @path points to, followed link by link
 * (the file is created there); @path itself when it is no symlink.
 */
static char *dangling_target(const char *path)
{
	char *cur = xstrdup(path), *next, *dir, target[PATH_MAX];
	int hops;

	for (hops = 0; hops < MAX_SYMLINKS; hops++) {
		ssize_t n = readlink(cur, target, sizeof(target) - 1);

		if (n < 0)
			return cur;
		target[n] = 0;
		dir = xstrdup(cur);
		if (target[0] == '/')
			next = xstrdup(target);
		else if (asprintf(&next, "%s/%s", dirname(dir), target) < 0)
			die("out of memory");
		free(dir);
		free(cur);
		cur = next;
	}
	free(cur);
	errno = ELOOP;
	return NULL;
}

/* Write @buf to what is already at @path: a device, a FIFO, a pipe. */
static int write_in_place(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY), err;

	if (fd < 0)
		return -errno;
	err = write_all(fd, buf, len);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* Replace the regular file @path (or create it): temp file, rename. */
static int replace_file(const char *path, const void *buf, size_t len)
{
	char *d = xstrdup(path), *b = xstrdup(path), *tmp;
	const char *dir = dirname(d);
	int fd, err;

	if (asprintf(&tmp, "%s/.%s.XXXXXX", dir, basename(b)) < 0)
		die("out of memory");
	fd = out_tmp_create(tmp);	/* removed on SIGINT, SIGTERM */
	if (fd < 0) {
		err = -errno;
		out_tmp_done();
		goto out;
	}
	err = write_all(fd, buf, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	out_tmp_done();
	if (!err)
		sync_dir(dir);
out:
	free(tmp);
	free(d);
	free(b);
	return err;
}

/**
 * write_file_atomic() - write an output file without harming its path
 * @path: the file; "-" writes to stdout instead
 * @buf: the contents
 * @len: their length
 *
 * A regular file (or a new one) is replaced all or nothing: a temporary
 * file in the same directory, fsync, rename, so that a crash leaves the
 * old file or the new one. Symlinks are followed, and the file they
 * point to is replaced, never the link. Anything else that exists at
 * @path (/dev/null, /dev/stdout, a FIFO, a pipe from the shell) is
 * written in place: renaming over it would destroy it.
 *
 * A new file is created mode 0600: a snapshot holds the filter's seed.
 *
 * Return: 0 or -errno.
 */
int write_file_atomic(const char *path, const void *buf, size_t len)
{
	struct stat st;
	char *target;
	int err;

	if (!strcmp(path, "-"))
		return write_all(STDOUT_FILENO, buf, len);
	if (!stat(path, &st)) {
		if (!S_ISREG(st.st_mode))
			return write_in_place(path, buf, len);
		target = realpath(path, NULL);
	} else if (errno == ENOENT) {
		target = dangling_target(path);
	} else {
		return -errno;
	}
	if (!target)
		return -errno;
	err = replace_file(target, buf, len);
	free(target);
	return err;
}

/* The default filter name for a snapshot: its basename, less extension. */
char *snap_default_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name = xstrdup(base ? base + 1 : path);
	char *dot = strrchr(name, '.');

	if (dot && dot != name)
		*dot = 0;
	return name;
}
