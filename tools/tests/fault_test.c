// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection over every /dev/bloom command: for each command, set
 * up a known state, then fail the 1st, 2nd, 3rd ... fault-injectable
 * call of the command (allocation or user copy, whichever comes: the
 * per-task fail-nth counter covers failslab, fail_page_alloc and
 * fail_usercopy alike) until the command runs to the end without
 * reaching the armed fault. After every step the command must have
 * returned success or a documented errno, and the namespace must be
 * consistent: on failure the filters, their contents and the LIMITS
 * accounting are as before (batches: the keys reported done are in);
 * on success they are what the command promises.
 *
 *   fault-test [--max N] [CMD...]
 *
 * Run in the test guest as root with bloom.ko loaded and failslab,
 * fail_page_alloc and fail_usercopy armed for fail-nth (see
 * scripts/tests/fault). Prints "ok - fault CMD: ..." lines and a
 * "# fault-points CMD N" figure per command; a command that reaches no
 * fault point at all fails (then nothing was injected, nothing tested).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <xxhash.h>
#include "../../uapi/bloom_ioctl.h"

#define NKEYS		600	/* three chunks of the kernel's 256 */
#define MAX_FILTERS	8
#define SNAP_MAX	(1U << 24)	/* the 8 MiB filter of CREATE-vmalloc fits */

static int fd, nth_fd, failed, max_steps = 400;
static char why[256];

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok - fault ", ok ? "" : "not ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok && why[0])
		printf("    # %s\n", why);
	fflush(stdout);
	failed |= !ok;
}

static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return -1;
}

static int io(unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/* fail-nth: arm, then disarm and say whether the fault was injected. */
static int arm(int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%d", n);

	return pwrite(nth_fd, s, len, 0) == len ? 0 : -errno;
}

/*
 * The read itself copies to user: with one call left before the fault
 * it fails with EFAULT (the fault was not reached by the command);
 * otherwise it shows the count before the read, 0 once injected.
 */
static int disarm(void)
{
	char s[16] = "";
	ssize_t r = pread(nth_fd, s, sizeof(s) - 1, 0);
	int injected = r > 0 && atoi(s) == 0;

	while (arm(0))
		;
	return injected;
}

static void name_of(char *dst, const char *name)
{
	memset(dst, 0, BLOOM_NAME_MAX);
	snprintf(dst, BLOOM_NAME_MAX, "%s", name);
}

/* ---- State: every filter's name, geometry, stats and bits. ---- */

struct fstate {
	char name[BLOOM_NAME_MAX];
	struct bloom_ioc_info in;
	uint64_t digest;		/* xxh64 of the payload */
};

struct state {
	struct bloom_ioc_limits lim;
	int n;
	struct fstate f[MAX_FILTERS];
};

static unsigned char snapbuf[sizeof(struct bloom_snap_hdr) + SNAP_MAX];

/*
 * An aging filter's snapshot gives each generation's age, which moves
 * with the clock, not with the commands under test.
 */
static void forget_ages(unsigned int gens)
{
	struct bloom_snap_gen *g = (void *)(snapbuf + sizeof(struct bloom_snap_hdr));
	unsigned int i;

	for (i = 0; i < gens; i++)
		g[i].age_ms = 0;
}

static int info(const char *name, struct bloom_ioc_info *in)
{
	memset(in, 0, sizeof(*in));
	name_of(in->name, name);
	return io(BLOOM_IOC_INFO, in);
}

/* A whole snapshot of @name into snapbuf; returns its length. */
static long snapshot(const char *name)
{
	size_t hdr = sizeof(struct bloom_snap_hdr);
	struct bloom_ioc_save s = {};
	struct bloom_snap_hdr *h = (void *)snapbuf;

	name_of(s.name, name);
	if (io(BLOOM_IOC_SAVE, &s) || s.hdr.payload_len > SNAP_MAX)
		return -1;
	s.len = s.hdr.payload_len;
	s.buf = (uintptr_t)(snapbuf + hdr);
	memset(&s.hdr, 0, sizeof(s.hdr));
	s.generation = 0;
	if (io(BLOOM_IOC_SAVE, &s))
		return -1;
	*h = s.hdr;
	h->checksum = 0;
	h->checksum = XXH64(snapbuf, hdr + s.len, 0);
	return hdr + s.len;
}

static int state_read(struct state *st)
{
	char names[MAX_FILTERS][BLOOM_NAME_MAX];
	struct bloom_ioc_list l = { .names = (uintptr_t)names,
				    .count = MAX_FILTERS };
	size_t hdr = sizeof(struct bloom_snap_hdr);
	int i;
	long len;

	memset(st, 0, sizeof(*st));
	if (io(BLOOM_IOC_LIMITS, &st->lim) || io(BLOOM_IOC_LIST, &l) ||
	    l.total > MAX_FILTERS)
		return fail("LIMITS or LIST failed: %s", strerror(errno));
	st->n = l.returned;
	for (i = 0; i < st->n; i++) {
		struct fstate *f = &st->f[i];

		memcpy(f->name, names[i], BLOOM_NAME_MAX);
		len = snapshot(f->name);
		if (info(f->name, &f->in) || len < 0)
			return fail("INFO or SAVE of %s failed", f->name);
		forget_ages(f->in.generations);
		f->digest = XXH64(snapbuf + hdr, len - hdr, 0);
	}
	return 0;
}

static const struct fstate *state_find(const struct state *st,
				       const char *name)
{
	int i;

	for (i = 0; i < st->n; i++)
		if (!strcmp(st->f[i].name, name))
			return &st->f[i];
	return NULL;
}

/* Same geometry, same bits, same key count. Stats may differ. */
static int same_filter(const struct fstate *a, const struct fstate *b)
{
	return a->in.bits == b->in.bits && a->in.seed == b->in.seed &&
	       a->in.hashes == b->in.hashes && a->in.layout == b->in.layout &&
	       a->in.key_type == b->in.key_type &&
	       a->in.inserted == b->in.inserted &&
	       a->in.users == b->in.users && a->digest == b->digest;
}

/* @b holds what @a held, except for the filters named in @skip. */
static int same_bytes_ok;	/* the bytes charged may differ */

static int state_same(const struct state *a, const struct state *b,
		      const char *skip1, const char *skip2)
{
	int i;

	if (a->lim.filters != b->lim.filters ||
	    (a->lim.bytes != b->lim.bytes && !same_bytes_ok) ||
	    a->lim.max_filters != b->lim.max_filters ||
	    a->lim.max_bytes != b->lim.max_bytes)
		return fail("LIMITS changed: %llu filters %llu bytes, now %llu %llu",
			    (unsigned long long)a->lim.filters,
			    (unsigned long long)a->lim.bytes,
			    (unsigned long long)b->lim.filters,
			    (unsigned long long)b->lim.bytes);
	if (a->n != b->n)
		return fail("%d filters listed, now %d", a->n, b->n);
	for (i = 0; i < a->n; i++) {
		const struct fstate *f = &a->f[i], *g = state_find(b, f->name);

		if (!g)
			return fail("filter %s is gone", f->name);
		if ((skip1 && !strcmp(f->name, skip1)) ||
		    (skip2 && !strcmp(f->name, skip2)))
			continue;
		if (!same_filter(f, g))
			return fail("filter %s changed", f->name);
	}
	return 0;
}

/* The accounting matches the filters listed. */
static int state_accounted(const struct state *st)
{
	if (st->lim.filters != (uint64_t)st->n)
		return fail("LIMITS counts %llu filters, %d listed",
			    (unsigned long long)st->lim.filters, st->n);
	return 0;
}

/*
 * Did the bytes charged go from @lo to @hi for a filter of @array bytes?
 * The charge is the array and a header of less than a page.
 */
static int charge_of(uint64_t lo, uint64_t hi, uint64_t array)
{
	return hi >= lo + array && hi < lo + array + 4096;
}

/* ---- Set-up helpers. ---- */

static int create(const char *name, uint64_t bits, uint32_t k, uint8_t layout)
{
	struct bloom_ioc_create c = { .bits = bits, .hashes = k,
				      .layout = layout,
				      .key_type = BLOOM_KEY_BYTES,
				      .flags = BLOOM_F_FIXED_SEED, .seed = 42 };

	name_of(c.name, name);
	return io(BLOOM_IOC_CREATE, &c);
}

static void destroy_all(void)
{
	char names[MAX_FILTERS][BLOOM_NAME_MAX];
	struct bloom_ioc_list l = { .names = (uintptr_t)names,
				    .count = MAX_FILTERS };
	struct bloom_ioc_name n = {};
	struct bloom_ioc_limits lim = { .max_filters = 1024,
					.max_bytes = 1ULL << 30,
					.flags = BLOOM_LIMITS_SET };
	unsigned int i;

	io(BLOOM_IOC_LIMITS, &lim);
	if (io(BLOOM_IOC_LIST, &l))
		return;
	for (i = 0; i < l.returned; i++) {
		memcpy(n.name, names[i], BLOOM_NAME_MAX);
		io(BLOOM_IOC_DESTROY, &n);
	}
}

/* Records of BLOOM_KEY_BYTES: a __u16 length then the key. */
#define STRIDE	18
static unsigned char keys[NKEYS][STRIDE];
static unsigned char results[NKEYS];

static void make_keys(int base)
{
	int i;

	for (i = 0; i < NKEYS; i++) {
		uint16_t len = 16;

		memcpy(keys[i], &len, 2);
		snprintf((char *)keys[i] + 2, 17, "key-%011d", base + i);
	}
}

static struct bloom_ioc_batch last_batch;

static int batch(unsigned long cmd, const char *name, int count)
{
	struct bloom_ioc_batch b = { .keys = (uintptr_t)keys,
				     .results = (uintptr_t)results,
				     .count = count, .stride = STRIDE };
	int err;

	name_of(b.name, name);
	memset(results, 0, sizeof(results));
	err = io(cmd, &b);
	last_batch = b;
	return err;
}

/* How many of the keys test present. */
static int present(const char *name, int count)
{
	int i, n = 0;

	if (batch(BLOOM_IOC_TEST, name, count))
		return -1;
	for (i = 0; i < count; i++)
		n += results[i / 8] >> (i % 8) & 1;
	return n;
}

/* "a" and "b": same geometry, different keys; "c": counting. */
static int setup_three(void)
{
	int err = create("a", 1 << 16, 4, BLOOM_LAYOUT_STANDARD) ?:
		  create("b", 1 << 16, 4, BLOOM_LAYOUT_STANDARD) ?:
		  create("c", 1 << 14, 3, BLOOM_LAYOUT_COUNTING);

	make_keys(0);
	err = err ?: batch(BLOOM_IOC_ADD, "a", NKEYS) ?:
		      batch(BLOOM_IOC_ADD, "c", NKEYS);
	make_keys(100000);
	err = err ?: batch(BLOOM_IOC_ADD, "b", NKEYS);
	make_keys(0);
	return err;
}

/* ---- The commands: run (armed) and check (after). ---- */

struct op {
	const char *name;
	int (*setup)(void);
	int (*run)(void);
	/* @before and @after the step; @err what the command returned. */
	int (*check)(const struct state *before, const struct state *after,
		     int err);
};

static uint8_t savebuf[(1 << 16) / 8];
static struct bloom_ioc_version ver;
static struct bloom_ioc_pair pair;
static struct bloom_ioc_save sv;
static struct bloom_ioc_limits lim;
static struct bloom_ioc_info inf;
static char listed[MAX_FILTERS][BLOOM_NAME_MAX];
static struct bloom_ioc_list lst;
static long snaplen;
static unsigned char *restore_img;

static int run_version(void)
{
	memset(&ver, 0, sizeof(ver));
	return io(BLOOM_IOC_VERSION, &ver);
}

static int check_version(const struct state *b, const struct state *a,
			 int err)
{
	if (!err && (ver.abi_version != BLOOM_ABI_VERSION ||
		     ver.max_cmd != BLOOM_IOC_MAX_NR))
		return fail("VERSION answered %u/%u", ver.abi_version,
			    ver.max_cmd);
	return state_same(b, a, NULL, NULL);
}

static int run_create(void)
{
	return create("new", 1 << 16, 4, BLOOM_LAYOUT_BLOCKED);
}

/*
 * An 8 MiB array: more than kmalloc() serves (4 MiB), so kvmalloc() must
 * take it from vmalloc, whose allocations become fault points too.
 * check_created_big() makes sure it is in vmalloc space.
 */
#define BIG_BITS	(1ULL << 26)

static int run_create_big(void)
{
	return create("new", BIG_BITS, 4, BLOOM_LAYOUT_BLOCKED);
}

static int check_created(const struct state *b, const struct state *a,
			 int err)
{
	const struct fstate *f = state_find(a, "new");

	if (err)
		return f ? fail("failed CREATE left the filter") :
			   state_same(b, a, NULL, NULL);
	if (!f || a->n != b->n + 1 || f->in.bits_set || f->in.inserted)
		return fail("CREATE succeeded, the filter is not there empty");
	if (!charge_of(b->lim.bytes, a->lim.bytes, f->in.mem_bytes))
		return fail("CREATE charged %llu bytes for %llu",
			    (unsigned long long)(a->lim.bytes - b->lim.bytes),
			    (unsigned long long)f->in.mem_bytes);
	return state_accounted(a);
}

/* Does /proc/vmallocinfo show a bloom.ko area of at least @bytes? */
static int bloom_vmalloc_area(uint64_t bytes)
{
	FILE *f = fopen("/proc/vmallocinfo", "r");
	unsigned long long len;
	char line[512];
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, "[bloom]") &&
			sscanf(line, "%*s %llu", &len) == 1 && len >= bytes;
	if (f)
		fclose(f);
	return found;
}

static int check_created_big(const struct state *b, const struct state *a,
			     int err)
{
	if (check_created(b, a, err))
		return -1;
	if (!err && !bloom_vmalloc_area(BIG_BITS / 8))
		return fail("the big filter's array is not in vmalloc space");
	return 0;
}

static int name_cmd(unsigned long cmd, const char *name)
{
	struct bloom_ioc_name n = {};

	name_of(n.name, name);
	return io(cmd, &n);
}

static int run_destroy(void)
{
	return name_cmd(BLOOM_IOC_DESTROY, "b");
}

static int check_destroy(const struct state *b, const struct state *a,
			 int err)
{
	const struct fstate *f = state_find(b, "b");

	if (err)
		return state_same(b, a, NULL, NULL);
	if (state_find(a, "b") || a->n != b->n - 1 ||
	    !charge_of(a->lim.bytes, b->lim.bytes, f->in.mem_bytes))
		return fail("DESTROY succeeded, the filter or its bytes remain");
	return state_accounted(a);
}

static int pair_cmd(unsigned long cmd, const char *x, const char *y)
{
	memset(&pair, 0, sizeof(pair));
	name_of(pair.name, x);
	name_of(pair.other, y);
	return io(cmd, &pair);
}

static int run_rename(void)
{
	return pair_cmd(BLOOM_IOC_RENAME, "b", "renamed");
}

static int check_rename(const struct state *b, const struct state *a,
			int err)
{
	const struct fstate *was = state_find(b, "b"), *now;

	if (err)
		return state_same(b, a, NULL, NULL);
	now = state_find(a, "renamed");
	if (state_find(a, "b") || !now || a->n != b->n ||
	    now->digest != was->digest || now->in.seed != was->in.seed)
		return fail("RENAME succeeded, the filter is not under its new name whole");
	return state_accounted(a);
}

static int run_clear(void)
{
	return name_cmd(BLOOM_IOC_CLEAR, "a");
}

static int check_clear(const struct state *b, const struct state *a,
		       int err)
{
	const struct fstate *f = state_find(a, "a");

	if (err)
		return state_same(b, a, NULL, NULL);
	if (!f || f->in.bits_set || f->in.seed != state_find(b, "a")->in.seed)
		return fail("CLEAR succeeded, the filter is not empty");
	return state_same(b, a, "a", NULL);
}

static int run_add(void)
{
	make_keys(500000);
	return batch(BLOOM_IOC_ADD, "b", NKEYS);
}

/*
 * EFAULT with nothing reported: the command failed before it changed
 * anything, or the struct could not be copied back out after it took
 * effect (uapi/bloom_ioctl.h): then @name alone changed.
 */
static int unreported(const struct state *b, const struct state *a,
		      const char *name)
{
	return state_same(b, a, NULL, NULL) && state_same(b, a, name, NULL);
}

/* Batches are not all-or-nothing: the keys reported done must be in. */
static int check_add(const struct state *b, const struct state *a, int err)
{
	uint32_t done = err ? last_batch.done : NKEYS;
	int n;

	if (done > NKEYS || (!err && last_batch.done != NKEYS))
		return fail("ADD reports %u of %d done", last_batch.done,
			    NKEYS);
	n = present("b", NKEYS);
	if (err == -EFAULT && !done && n == NKEYS)
		return unreported(b, a, "b");
	if (n < (int)done)
		return fail("ADD reported %u keys done, %d present", done, n);
	if (!done)
		return state_same(b, a, NULL, NULL);
	return state_same(b, a, "b", NULL);
}

static int run_test(void)
{
	make_keys(0);
	return batch(BLOOM_IOC_TEST, "a", NKEYS);
}

static int check_test(const struct state *b, const struct state *a, int err)
{
	int i;

	if (!err) {
		if (last_batch.hits != NKEYS || last_batch.done != NKEYS)
			return fail("TEST found %u of %d added keys",
				    last_batch.hits, NKEYS);
		for (i = 0; i < NKEYS; i++)
			if (!(results[i / 8] >> (i % 8) & 1))
				return fail("TEST result bit %d clear", i);
	}
	return state_same(b, a, NULL, NULL);
}

static int run_del(void)
{
	make_keys(0);
	return batch(BLOOM_IOC_DEL, "c", NKEYS);
}

/* DEL of NKEYS from @name: the keys not reported done are all there. */
static int deleted(const struct state *b, const struct state *a, int err,
		   const char *name)
{
	uint32_t done = err ? last_batch.done : NKEYS;
	int n;

	if (done > NKEYS)
		return fail("DEL reports %u done", done);
	/* The keys not deleted must still be there. */
	memmove(keys, keys[done], (NKEYS - done) * STRIDE);
	n = present(name, NKEYS - done);
	make_keys(0);
	if (err == -EFAULT && !done)
		return unreported(b, a, name);
	if (n != (int)(NKEYS - done))
		return fail("DEL of %u keys lost %d others", done,
			    (int)(NKEYS - done) - n);
	return done ? state_same(b, a, name, NULL) : state_same(b, a, NULL, NULL);
}

static int check_del(const struct state *b, const struct state *a, int err)
{
	return deleted(b, a, err, "c");
}

static int run_count(void)
{
	make_keys(0);
	return batch(BLOOM_IOC_COUNT, "c", NKEYS);
}

static int check_count(const struct state *b, const struct state *a,
		       int err)
{
	int i;

	for (i = 0; !err && i < NKEYS; i++)
		if (!results[i])
			return fail("COUNT of added key %d is 0", i);
	return state_same(b, a, NULL, NULL);
}

static int run_info(void)
{
	return info("a", &inf);
}

static int check_info(const struct state *b, const struct state *a,
		      int err)
{
	const struct fstate *f = state_find(b, "a");

	if (!err && (inf.bits != f->in.bits || inf.bits_set != f->in.bits_set))
		return fail("INFO answered wrong");
	return state_same(b, a, NULL, NULL);
}

static int run_list(void)
{
	memset(&lst, 0, sizeof(lst));
	memset(listed, 0, sizeof(listed));
	lst.names = (uintptr_t)listed;
	lst.count = MAX_FILTERS;
	return io(BLOOM_IOC_LIST, &lst);
}

static int check_list(const struct state *b, const struct state *a,
		      int err)
{
	if (!err && (lst.returned != 3 || strcmp(listed[0], "a") ||
		     strcmp(listed[2], "c")))
		return fail("LIST answered %u names", lst.returned);
	return state_same(b, a, NULL, NULL);
}

static int run_swap(void)
{
	return pair_cmd(BLOOM_IOC_SWAP, "a", "b");
}

static int check_swap(const struct state *b, const struct state *a, int err)
{
	if (err)
		return state_same(b, a, NULL, NULL);
	if (state_find(a, "a")->digest != state_find(b, "b")->digest ||
	    state_find(a, "b")->digest != state_find(b, "a")->digest)
		return fail("SWAP succeeded, contents not exchanged");
	return state_same(b, a, "a", "b");
}

static int run_union(void)
{
	return pair_cmd(BLOOM_IOC_UNION, "a", "b");
}

static int run_intersect(void)
{
	return pair_cmd(BLOOM_IOC_INTERSECT, "a", "b");
}

static int check_combine(const struct state *b, const struct state *a,
			 int err)
{
	if (err)
		return state_same(b, a, NULL, NULL);
	if (state_find(a, "a")->digest == state_find(b, "a")->digest)
		return fail("UNION/INTERSECT succeeded, nothing changed");
	return state_same(b, a, "a", NULL);
}

static int run_halve(void)
{
	return name_cmd(BLOOM_IOC_HALVE, "a");
}

static int check_halve(const struct state *b, const struct state *a,
		       int err)
{
	const struct fstate *f = state_find(a, "a");

	if (err)
		return state_same(b, a, NULL, NULL);
	if (f->in.bits * 2 != state_find(b, "a")->in.bits ||
	    present("a", NKEYS) != NKEYS)
		return fail("HALVE succeeded, not half the size with every key");
	if (!charge_of(a->lim.bytes, b->lim.bytes, f->in.mem_bytes))
		return fail("HALVE succeeded, the charge went from %llu to %llu",
			    (unsigned long long)b->lim.bytes,
			    (unsigned long long)a->lim.bytes);
	same_bytes_ok = 1;
	err = state_same(b, a, "a", NULL);
	same_bytes_ok = 0;
	return err;
}

static int run_estimate(void)
{
	return pair_cmd(BLOOM_IOC_ESTIMATE, "a", "b");
}

static int check_estimate(const struct state *b, const struct state *a,
			  int err)
{
	if (!err && (pair.union_ < NKEYS || pair.union_ > 3 * NKEYS))
		return fail("ESTIMATE union %llu for 1200 keys",
			    (unsigned long long)pair.union_);
	return state_same(b, a, NULL, NULL);
}

static int run_save(void)
{
	memset(&sv, 0, sizeof(sv));
	name_of(sv.name, "a");
	sv.buf = (uintptr_t)savebuf;
	sv.len = sizeof(savebuf);
	return io(BLOOM_IOC_SAVE, &sv);
}

static int check_save(const struct state *b, const struct state *a,
		      int err)
{
	if (!err && XXH64(savebuf, sv.len, 0) != state_find(b, "a")->digest)
		return fail("SAVE returned other bits");
	return state_same(b, a, NULL, NULL);
}

/* A snapshot of "a" to restore as a new filter, or over "b". */
/* After set-up @err, keep a snapshot of @name as the image to restore. */
static int keep_snapshot(int err, const char *name)
{
	snaplen = err ? -1 : snapshot(name);
	if (snaplen < 0)
		return -1;
	free(restore_img);
	restore_img = malloc(snaplen);
	memcpy(restore_img, snapbuf, snaplen);
	return 0;
}

static int setup_restore(void)
{
	return keep_snapshot(setup_three(), "a");
}

static int restore(const char *name, unsigned int flags)
{
	struct bloom_ioc_restore r = { .buf = (uintptr_t)restore_img,
				       .len = snaplen, .flags = flags };

	name_of(r.name, name);
	return io(BLOOM_IOC_RESTORE, &r);
}

static int run_restore(void)
{
	return restore("new", 0);
}

static int check_restore(const struct state *b, const struct state *a,
			 int err)
{
	const struct fstate *f = state_find(a, "new");

	if (err)
		return f ? fail("failed RESTORE left a filter") :
			   state_same(b, a, NULL, NULL);
	if (!f || f->digest != state_find(b, "a")->digest)
		return fail("RESTORE succeeded, the copy differs");
	return state_accounted(a);
}

static int run_restore_replace(void)
{
	return restore("b", BLOOM_RESTORE_REPLACE);
}

static int check_restore_replace(const struct state *b,
				 const struct state *a, int err)
{
	if (err)
		return state_same(b, a, NULL, NULL);
	if (state_find(a, "b")->digest != state_find(b, "a")->digest)
		return fail("RESTORE over b succeeded, b is not a's copy");
	return state_same(b, a, "b", NULL);
}

static int run_limits(void)
{
	memset(&lim, 0, sizeof(lim));
	return io(BLOOM_IOC_LIMITS, &lim);
}

static int run_limits_set(void)
{
	memset(&lim, 0, sizeof(lim));
	lim.max_filters = 100;
	lim.max_bytes = 1 << 24;
	lim.flags = BLOOM_LIMITS_SET;
	return io(BLOOM_IOC_LIMITS, &lim);
}

static int check_limits(const struct state *b, const struct state *a,
			int err)
{
	if (!err && lim.filters != 3)
		return fail("LIMITS counts %llu filters of 3",
			    (unsigned long long)lim.filters);
	return state_same(b, a, NULL, NULL);
}

static int check_limits_set(const struct state *b, const struct state *a,
			    int err)
{
	if (err && !state_same(b, a, NULL, NULL))
		return 0;
	/* Failed after the change, copying the struct back out. */
	if (err && err != -EFAULT)
		return fail("LIMITS set failed with %s, and changed limits",
			    strerror(-err));
	if (a->lim.max_filters != 100 || a->lim.max_bytes != 1 << 24)
		return fail("LIMITS set succeeded, limits unchanged");
	return 0;
}

/* The three filters and "g", an aging filter (G = 2, no timer) with keys. */
static int setup_aged(void)
{
	struct bloom_ioc_create c = { .bits = 1 << 16, .hashes = 4,
				      .layout = BLOOM_LAYOUT_BLOCKED,
				      .key_type = BLOOM_KEY_BYTES,
				      .flags = BLOOM_F_FIXED_SEED, .seed = 42,
				      .generations = 2 };
	int err = setup_three();

	name_of(c.name, "g");
	return err ?: io(BLOOM_IOC_CREATE, &c) ?:
		      batch(BLOOM_IOC_ADD, "g", NKEYS);
}

static int run_rotate(void)
{
	return name_cmd(BLOOM_IOC_ROTATE, "g");
}

/* One rotation: counted once, and with G = 2 every key is still in. */
static int check_rotate(const struct state *b, const struct state *a,
			int err)
{
	const struct fstate *f = state_find(a, "g");

	if (err)
		return state_same(b, a, NULL, NULL);
	if (!f || f->in.rotations != state_find(b, "g")->in.rotations + 1)
		return fail("ROTATE succeeded, the rotation count is not one up");
	if (present("g", NKEYS) != NKEYS)
		return fail("ROTATE succeeded, a key of the previous generation is gone");
	return state_same(b, a, "g", NULL);
}

/*
 * The namespace's bytes grew by what the stages "s" added hold: their
 * arrays (INFO's mem_bytes) and at most a cache line of header each.
 */
static int grown_accounted(const struct state *b, const struct state *a)
{
	const struct fstate *fb = state_find(b, "s"), *fa = state_find(a, "s");
	uint64_t arrays, bytes = a->lim.bytes - b->lim.bytes;

	if (!fb || !fa || a->lim.bytes < b->lim.bytes ||
	    fa->in.mem_bytes < fb->in.mem_bytes)
		return fail("the growing filter or its bytes went down");
	arrays = fa->in.mem_bytes - fb->in.mem_bytes;
	if (bytes < arrays || bytes > arrays + 8 * 256)
		return fail("namespace bytes grew by %llu for %llu bytes of stages",
			    (unsigned long long)bytes,
			    (unsigned long long)arrays);
	return 0;
}

/* state_same(), the namespace's byte count aside (checked apart). */
static int state_same_but_bytes(const struct state *b, const struct state *a,
				const char *skip)
{
	int was = same_bytes_ok, err;

	same_bytes_ok = 1;
	err = state_same(b, a, skip, NULL);
	same_bytes_ok = was;
	return err;
}

/* A filter that grows: 600 keys take it from 64 through four stages. */
static int setup_grow(void)
{
	struct bloom_ioc_create c = { .capacity = 64, .fpr_ppb = 10000000,
				      .layout = BLOOM_LAYOUT_BLOCKED,
				      .key_type = BLOOM_KEY_BYTES,
				      .flags = BLOOM_F_FIXED_SEED, .seed = 42,
				      .stages_max = 8 };
	int err = setup_three();

	name_of(c.name, "s");
	return err ?: io(BLOOM_IOC_CREATE, &c);
}

static int run_add_grow(void)
{
	make_keys(700000);
	return batch(BLOOM_IOC_ADD, "s", NKEYS);
}

/*
 * A growth that could not allocate leaves the filter as it was, at its
 * stages so far: the keys reported done are in all the same, and no
 * other filter changed.
 */
static int check_add_grow(const struct state *b, const struct state *a,
			  int err)
{
	uint32_t done = err ? last_batch.done : NKEYS;
	int n = present("s", NKEYS);

	if (done > NKEYS || (!err && last_batch.done != NKEYS))
		return fail("ADD reports %u of %d done", last_batch.done,
			    NKEYS);
	if (n < (int)done)
		return fail("ADD to a growing filter reported %u keys done, %d present",
			    done, n);
	return grown_accounted(b, a) ?: state_same_but_bytes(b, a, "s");
}

/*
 * Cuckoo filters: "k" holds NKEYS keys in 1024 buckets of four 12-bit
 * fingerprints, beside the three of setup_three().
 */
static int setup_cuckoo(void)
{
	int err = setup_three() ?:
		  create("k", 1024 * 4 * 12, 12, BLOOM_LAYOUT_CUCKOO);

	return err ?: batch(BLOOM_IOC_ADD, "k", NKEYS);
}

static int run_create_cuckoo(void)
{
	return create("new", 2048 * 4 * 12, 12, BLOOM_LAYOUT_CUCKOO);
}

static int run_del_cuckoo(void)
{
	make_keys(0);
	return batch(BLOOM_IOC_DEL, "k", NKEYS);
}

static int check_del_cuckoo(const struct state *b, const struct state *a,
			    int err)
{
	return deleted(b, a, err, "k");
}

static int setup_restore_cuckoo(void)
{
	return keep_snapshot(setup_cuckoo(), "k");
}

static int check_restore_cuckoo(const struct state *b, const struct state *a,
				int err)
{
	const struct fstate *f = state_find(a, "new");

	if (err)
		return f ? fail("failed RESTORE left a filter") :
			   state_same(b, a, NULL, NULL);
	if (!f || f->digest != state_find(b, "k")->digest)
		return fail("RESTORE of a cuckoo filter succeeded, the copy differs");
	return state_accounted(a);
}

/*
 * Static maps: the image is a snapshot bloomctl built (a fuse filter
 * cannot be created, only restored), named by FAULT_FUSE_SNAPSHOT.
 */
static int setup_restore_fuse(void)
{
	const char *path = getenv("FAULT_FUSE_SNAPSHOT");
	FILE *f = path ? fopen(path, "rb") : NULL;
	int err = setup_three();

	free(restore_img);
	restore_img = malloc(SNAP_MAX);
	snaplen = f && restore_img ? (long)fread(restore_img, 1, SNAP_MAX, f) : -1;
	if (f)
		fclose(f);
	if (snaplen <= (long)sizeof(struct bloom_snap_hdr))
		return fail("no static snapshot in FAULT_FUSE_SNAPSHOT");
	return err;
}

static int check_restore_fuse(const struct state *b, const struct state *a,
			      int err)
{
	size_t hdr = sizeof(struct bloom_snap_hdr);
	const struct fstate *f = state_find(a, "new");

	if (err)
		return f ? fail("failed RESTORE left a filter") :
			   state_same(b, a, NULL, NULL);
	if (!f || f->in.layout != BLOOM_LAYOUT_FUSE ||
	    f->digest != XXH64(restore_img + hdr, snaplen - hdr, 0))
		return fail("RESTORE of a static map succeeded, the copy differs");
	return state_accounted(a);
}

static struct op ops[] = {
	{ "VERSION", setup_three, run_version, check_version },
	{ "CREATE", setup_three, run_create, check_created },
	{ "CREATE-vmalloc", setup_three, run_create_big, check_created_big },
	{ "DESTROY", setup_three, run_destroy, check_destroy },
	{ "RENAME", setup_three, run_rename, check_rename },
	{ "CLEAR", setup_three, run_clear, check_clear },
	{ "ADD", setup_three, run_add, check_add },
	{ "TEST", setup_three, run_test, check_test },
	{ "DEL", setup_three, run_del, check_del },
	{ "COUNT", setup_three, run_count, check_count },
	{ "INFO", setup_three, run_info, check_info },
	{ "LIST", setup_three, run_list, check_list },
	{ "SWAP", setup_three, run_swap, check_swap },
	{ "UNION", setup_three, run_union, check_combine },
	{ "INTERSECT", setup_three, run_intersect, check_combine },
	{ "HALVE", setup_three, run_halve, check_halve },
	{ "ESTIMATE", setup_three, run_estimate, check_estimate },
	{ "SAVE", setup_three, run_save, check_save },
	{ "RESTORE", setup_restore, run_restore, check_restore },
	{ "RESTORE-replace", setup_restore, run_restore_replace,
	  check_restore_replace },
	{ "LIMITS", setup_three, run_limits, check_limits },
	{ "LIMITS-set", setup_three, run_limits_set, check_limits_set },
	{ "ROTATE", setup_aged, run_rotate, check_rotate },
	{ "ADD-grow", setup_grow, run_add_grow, check_add_grow },
	{ "CREATE-cuckoo", setup_three, run_create_cuckoo, check_created },
	{ "DEL-cuckoo", setup_cuckoo, run_del_cuckoo, check_del_cuckoo },
	{ "RESTORE-cuckoo", setup_restore_cuckoo, run_restore,
	  check_restore_cuckoo },
	{ "RESTORE-fuse", setup_restore_fuse, run_restore, check_restore_fuse },
};

/* What an injected allocation or copy failure may turn into. */
static int allowed(int err)
{
	return !err || err == -ENOMEM || err == -EFAULT;
}

/* One step: fail the @n-th call. 1: done (no fault reached), 0: go on. */
static int try_nth(struct op *op, int n, int *errs)
{
	struct state before, after;
	int err, injected;

	destroy_all();
	why[0] = 0;
	if (op->setup() || state_read(&before)) {
		result(0, "%s: set-up before step %d", op->name, n);
		return -1;
	}
	arm(n);
	err = op->run();
	injected = disarm();
	if (!allowed(err)) {
		result(0, "%s: step %d returns a documented errno, not %s",
		       op->name, n, strerror(-err));
		return -1;
	}
	if (state_read(&after) || op->check(&before, &after, err)) {
		result(0, "%s: state consistent after failing call %d (%s)",
		       op->name, n, err ? strerror(-err) : "succeeded");
		return -1;
	}
	if (err && !injected) {
		result(0, "%s: fails only when a fault is injected (step %d: %s)",
		       op->name, n, strerror(-err));
		return -1;
	}
	*errs += err != 0;
	return !injected;
}

static void run_op(struct op *op)
{
	int n, r = 0, errs = 0;

	for (n = 1; n <= max_steps && !r; n++)
		r = try_nth(op, n, &errs);
	if (r < 0)
		return;
	if (!r) {
		result(0, "%s: completes within %d fault points", op->name,
		       max_steps);
		return;
	}
	/*
	 * Every command copies its argument from user space at least: a
	 * command that ran clean with its very first call armed means that
	 * fail-nth injects nothing here, and nothing was tested.
	 */
	if (n - 2 == 0) {
		result(0, "%s: reaches at least one fault point (none reached: fail-nth injects nothing?)",
		       op->name);
		return;
	}
	result(1, "%s: %d fault points, %d failed cleanly, the rest succeeded",
	       op->name, n - 2, errs);
	printf("# fault-points ioctl-%s %d\n", op->name, n - 2);
}

int main(int argc, char **argv)
{
	unsigned int i;
	int a = 1, j;

	if (argc > 2 && !strcmp(argv[1], "--max")) {
		max_steps = atoi(argv[2]);
		a = 3;
	}
	for (j = a; j < argc; j++) {
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
			if (!strcmp(argv[j], ops[i].name))
				break;
		if (i == sizeof(ops) / sizeof(ops[0])) {
			printf("not ok - fault: no command called \"%s\"\n",
			       argv[j]);
			return 1;
		}
	}
	fd = open("/dev/bloom", O_RDWR);
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fd < 0 || nth_fd < 0) {
		printf("not ok - fault: open /dev/bloom and fail-nth (%s)\n",
		       strerror(errno));
		return 1;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		int want = a == argc;

		for (j = a; j < argc; j++)
			want |= !strcmp(argv[j], ops[i].name);
		if (want)
			run_op(&ops[i]);
	}
	destroy_all();
	return failed;
}
