// SPDX-License-Identifier: GPL-2.0
/*
 * Every single-bit flip of a small snapshot is refused by the kernel's
 * RESTORE: for a 512-bit filter of each layout, with a few keys, saved
 * and sealed here (xxh64, as bloomctl seals), each bit of the file in
 * turn is flipped and the file restored both as a new filter and over
 * the saved one (BLOOM_RESTORE_REPLACE). Each must fail with a snapshot
 * error (EPROTO, EPROTONOSUPPORT, EINVAL, E2BIG, EMSGSIZE, EBADMSG,
 * ERANGE), no filter may appear, and the saved filter must keep its
 * contents. The unflipped file restores (so the refusals are the flips'
 * doing). A static filter (version 6) cannot be created: its snapshot,
 * five addresses with values (bloomctl build --kind fuse8 --values), is
 * restored instead, and the kernel's save of it must be the same bytes.
 * Runs in a network namespace of its own; root, bloom.ko loaded.
 * Prints "ok - snapflip: ..." lines and the errors seen.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "../../uapi/bloom_ioctl.h"

#define BITS		512
#define HDR		sizeof(struct bloom_snap_hdr)
#define CSUM_AT		offsetof(struct bloom_snap_hdr, checksum)
#define MAX_ERRNO	256

static int fd, failed;

/*
 * 192.0.2.1 to 192.0.2.5 with values 1 to 5, fuse8, seed 0x5eed:
 *   bloomctl build --kind fuse8 --values --key addr --seed 0x5eed
 * 24 entries of 8 + 3 bits.
 */
static const uint8_t static_snap[] = {
	0x42, 0x4c, 0x4d, 0x46, 0x06, 0x00, 0x70, 0x00, 0x05, 0x01, 0x01, 0x00,
	0x08, 0x00, 0x00, 0x00, 0x08, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xed, 0x5e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x77, 0xfd, 0x0b, 0xaf,
	0xea, 0x52, 0x8b, 0xb5, 0x00, 0x00, 0x80, 0x37, 0xd4, 0x0e, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0xd3, 0x00, 0x40, 0x46, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xfa, 0x03, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok - snapflip: ", ok ? "" : "not ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failed |= !ok;
}

static int io(unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static void name_of(char *dst, const char *name)
{
	memset(dst, 0, BLOOM_NAME_MAX);
	snprintf(dst, BLOOM_NAME_MAX, "%s", name);
}

static bool snapshot_error(int err)
{
	switch (-err) {
	case EPROTO: case EPROTONOSUPPORT: case EINVAL: case E2BIG:
	case EMSGSIZE: case EBADMSG: case ERANGE:
		return true;
	}
	return false;
}

static int restore(const char *name, const uint8_t *buf, size_t len,
		   uint32_t flags)
{
	struct bloom_ioc_restore r = { .buf = (uintptr_t)buf, .len = len,
				       .flags = flags };

	name_of(r.name, name);
	return io(BLOOM_IOC_RESTORE, &r);
}

static int destroy(const char *name)
{
	struct bloom_ioc_name n = {};

	name_of(n.name, name);
	return io(BLOOM_IOC_DESTROY, &n);
}

static uint32_t filters(void)
{
	struct bloom_ioc_list l = {};

	return io(BLOOM_IOC_LIST, &l) ? ~0U : l.total;
}

/* The whole snapshot of @name, sealed; NULL on error. */
static uint8_t *save(const char *name, size_t *len)
{
	struct bloom_ioc_save s = {};
	XXH64_state_t st;
	uint8_t *buf;
	uint64_t plen;

	name_of(s.name, name);
	if (io(BLOOM_IOC_SAVE, &s))
		return NULL;
	plen = le64toh(s.hdr.payload_len);
	*len = HDR + plen;
	buf = malloc(*len);
	if (!buf)
		return NULL;
	memset(&s, 0, sizeof(s));
	name_of(s.name, name);
	s.buf = (uintptr_t)buf + HDR;
	s.len = plen;
	if (io(BLOOM_IOC_SAVE, &s)) {
		free(buf);
		return NULL;
	}
	memcpy(buf, &s.hdr, HDR);
	XXH64_reset(&st, 0);
	XXH64_update(&st, buf, *len);
	((struct bloom_snap_hdr *)buf)->checksum = htole64(XXH64_digest(&st));
	return buf;
}

static int create(const char *name, uint8_t layout, uint32_t hashes)
{
	struct bloom_ioc_create c = {
		.bits = BITS, .hashes = hashes, .seed = 0x5eed,
		.layout = layout, .key_type = BLOOM_KEY_ADDR,
		.flags = BLOOM_F_FIXED_SEED,
	};
	struct bloom_key_addr k[5] = {};
	struct bloom_ioc_batch b = { .keys = (uintptr_t)k, .count = 5,
				     .stride = sizeof(k[0]) };
	int i, err;

	for (i = 0; i < 5; i++) {
		k[i].addr[10] = k[i].addr[11] = 0xff;
		k[i].addr[12] = 192;
		k[i].addr[15] = i + 1;
	}
	name_of(c.name, name);
	err = io(BLOOM_IOC_CREATE, &c);
	name_of(b.name, name);
	return err ?: io(BLOOM_IOC_ADD, &b);
}

struct tally {
	unsigned long tried, rejected, csum_tried, csum_rejected;
	unsigned long errs[MAX_ERRNO];
	char bad[512];
};

static void note_bad(struct tally *t, size_t bit, const char *what, int err)
{
	size_t at = strlen(t->bad);

	if (at < sizeof(t->bad) - 64)
		snprintf(t->bad + at, sizeof(t->bad) - at,
			 " [bit %zu %s: %s]", bit, what,
			 err ? strerrorname_np(-err) ?: "?" : "accepted");
}

/* Flip every bit of @snap in turn; each file must be refused twice. */
static void flip_all(uint8_t *snap, size_t len, struct tally *t)
{
	size_t bit;
	int err;

	for (bit = 0; bit < len * 8; bit++) {
		bool csum = bit / 8 >= CSUM_AT && bit / 8 < CSUM_AT + 8;
		bool ok = true;

		snap[bit / 8] ^= 1 << (bit % 8);
		err = restore("flipped", snap, len, 0);
		if (!err)
			destroy("flipped");
		if (!snapshot_error(err)) {
			note_bad(t, bit, "as new", err);
			ok = false;
		}
		if (err < 0 && -err < MAX_ERRNO)
			t->errs[-err]++;
		err = restore("orig", snap, len, BLOOM_RESTORE_REPLACE);
		if (!snapshot_error(err)) {
			note_bad(t, bit, "replacing", err);
			ok = false;
		}
		if (filters() != 1) {
			note_bad(t, bit, "left a filter", 0);
			ok = false;
		}
		snap[bit / 8] ^= 1 << (bit % 8);
		t->tried++;
		t->rejected += ok;
		t->csum_tried += csum;
		t->csum_rejected += csum && ok;
	}
}

static void one_layout(uint8_t layout, const char *lname, struct tally *all)
{
	struct tally t = {};
	uint8_t *snap, *after;
	size_t len, len2;
	int err, i;

	destroy("orig");
	if (layout == BLOOM_LAYOUT_FUSE) {
		err = restore("orig", static_snap, sizeof(static_snap), 0);
		snap = err ? NULL : save("orig", &len);
		result(snap && len == sizeof(static_snap) &&
		       !memcmp(snap, static_snap, len),
		       "%s: a static snapshot restores, and saves as the same %zu bytes (%s)",
		       lname, sizeof(static_snap),
		       err ? strerrorname_np(-err) : "ok");
	} else {
		/* 512 bits: 4 slices, or 8 buckets of four 16-bit slots. */
		err = create("orig", layout,
			     layout == BLOOM_LAYOUT_PARTITIONED ? 4 :
			     layout == BLOOM_LAYOUT_CUCKOO ? 16 : 3);
		snap = err ? NULL : save("orig", &len);
	}
	if (!snap) {
		result(0, "%s: a %d-bit filter is created, filled and saved",
		       lname, BITS);
		return;
	}
	err = restore("control", snap, len, 0);
	result(!err && !destroy("control"),
	       "%s: the unflipped %zu-byte snapshot restores (%s)", lname, len,
	       err ? strerrorname_np(-err) : "ok");
	flip_all(snap, len, &t);
	result(t.rejected == t.tried,
	       "%s: %lu of %lu single-bit flips refused, as new and replacing, no filter left%s",
	       lname, t.rejected, t.tried, t.bad);
	result(t.csum_tried == 64 && t.csum_rejected == 64,
	       "%s: %lu of %lu flips of the checksum field refused", lname,
	       t.csum_rejected, t.csum_tried);
	after = save("orig", &len2);
	result(after && len2 == len && !memcmp(after, snap, len),
	       "%s: the filter the flips tried to replace is unchanged", lname);
	destroy("orig");
	free(after);
	free(snap);
	all->tried += t.tried;
	all->rejected += t.rejected;
	for (i = 0; i < MAX_ERRNO; i++)
		all->errs[i] += t.errs[i];
}

int main(void)
{
	static const char *const lnames[BLOOM_LAYOUT_MAX] = {
		"blocked", "standard", "partitioned", "counting", "cuckoo",
		"fuse",
	};
	struct tally all = {};
	int layout, i;

	if (unshare(CLONE_NEWNET)) {
		perror("snapflip: unshare(CLONE_NEWNET)");
		return 2;
	}
	fd = open("/dev/bloom", O_RDWR);
	if (fd < 0) {
		perror("snapflip: /dev/bloom");
		return 2;
	}
	for (layout = 0; layout < BLOOM_LAYOUT_MAX; layout++)
		one_layout(layout, lnames[layout], &all);
	printf("# snapflip: %lu flips tried, %lu refused; errors:", all.tried,
	       all.rejected);
	for (i = 0; i < MAX_ERRNO; i++)
		if (all.errs[i])
			printf(" %s %lu", strerrorname_np(i), all.errs[i]);
	printf("\n");
	return failed;
}
