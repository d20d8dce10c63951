// SPDX-License-Identifier: GPL-2.0
/*
 * A structured fuzzer for the /dev/bloom ioctl ABI. Every call picks a
 * command (now and then an unknown number, a wrong size or direction, or
 * a wrong magic), fills its struct with random but plausible fields:
 * names from a pool of four so that calls collide (now and then an
 * invalid name), sizes, counts and offsets near their limits, random
 * flags and reserved fields, and pointers that are valid buffers, NULL,
 * an unmapped page, a read-only page, the end of a page followed by an
 * unmapped guard page, or kernel-looking and huge values; now and then
 * the struct is fully random bytes. RESTORE mostly gets real snapshots,
 * saved from the pool and sealed here, sometimes damaged, sometimes
 * resealed after the damage; now and then a static filter's snapshot
 * (built by bloomctl, below), the only way one is made, so that ADD, DEL
 * and the rest meet static filters too. Several processes run at once.
 *
 * Every return must be 0 or an errno the command documents (below); any
 * other is a failure and the call is printed. At the end, with every
 * filter destroyed, the namespace must account zero filters and zero
 * bytes. Runs in a network namespace of its own, with small limits, so
 * it neither sees other tests' filters nor eats the guest's memory.
 *
 *   ioctl-fuzz [-s SEED] [-n CALLS] [-t SECONDS] [-j PROCS]
 *
 * Prints the seed; the same seed replays the same calls in each process
 * (their interleaving differs). Prints TAP ("ok - ioctl-fuzz: ...") and
 * calls per command. Run as root with bloom.ko loaded.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "../../uapi/bloom_ioctl.h"

#define NCMDS		(BLOOM_IOC_MAX_NR + 1)
#define POOL		4
#define PAGE		4096UL
#define VALID_BYTES	(BLOOM_BATCH_MAX + PAGE)	/* a COUNT's results */
#define MAX_PROCS	16
#define LIMIT_FILTERS	12
#define LIMIT_BYTES	(1UL << 20)
#define SNAP_MAX	(LIMIT_BYTES + sizeof(struct bloom_snap_hdr))
#define BAD_CMD		NCMDS	/* counters for unknown commands */

typedef unsigned __int128 errmask;	/* bit n: errno n is documented */
#define E(x)		((errmask)1 << (x))
/* Every command may fail to read or write its struct or buffers. */
#define ANY		(E(EFAULT) | E(ENOMEM))
/* EAFNOSUPPORT: a key of the other family (BLOOM_F_INET, _INET6). */
#define BATCH_ERRS	(ANY | E(EINVAL) | E(E2BIG) | E(ENOENT) | E(EAFNOSUPPORT))

/* The errnos each command documents (uapi/bloom_ioctl.h, module/). */
static const errmask allowed[NCMDS + 1] = {
	[0] = E(EFAULT),					/* VERSION */
	/* CREATE: EOPNOTSUPP for the static layout (restored, not created). */
	[1] = ANY | E(EINVAL) | E(EEXIST) | E(ENOSPC) | E(E2BIG) | E(EOPNOTSUPP),
	[2] = ANY | E(EINVAL) | E(ENOENT) | E(EBUSY),		/* DESTROY */
	[3] = ANY | E(EINVAL) | E(ENOENT) | E(EEXIST) | E(EBUSY), /* RENAME */
	[4] = ANY | E(EINVAL) | E(ENOENT) | E(EOPNOTSUPP),	/* CLEAR */
	/*
	 * ADD: ENOSPC a full cuckoo filter, EOPNOTSUPP a static one,
	 * ERANGE a value wider than the filter's.
	 */
	[5] = BATCH_ERRS | E(ENOSPC) | E(EOPNOTSUPP) | E(ERANGE),
	[6] = BATCH_ERRS,					/* TEST */
	[7] = BATCH_ERRS | E(EOPNOTSUPP),			/* DEL */
	[8] = BATCH_ERRS | E(EOPNOTSUPP),			/* COUNT */
	[9] = ANY | E(EINVAL) | E(ENOENT),			/* INFO */
	[10] = ANY | E(EINVAL),					/* LIST */
	[11] = ANY | E(EINVAL) | E(ENOENT),			/* SWAP */
	/* EOPNOTSUPP: aging filters have no halve, algebra or DEL. */
	[12] = ANY | E(EINVAL) | E(ENOENT) | E(EOPNOTSUPP),	/* UNION */
	[13] = ANY | E(EINVAL) | E(ENOENT) | E(EOPNOTSUPP),	/* INTERSECT */
	[14] = ANY | E(EINVAL) | E(ENOENT) | E(EOPNOTSUPP),	/* HALVE */
	[15] = ANY | E(EINVAL) | E(ENOENT) | E(EOPNOTSUPP),	/* ESTIMATE */
	[16] = ANY | E(EINVAL) | E(ENOENT),			/* SAVE */
	[17] = ANY | E(EINVAL) | E(ENOENT) | E(EEXIST) | E(ENOSPC) |
	       E(E2BIG) | E(ENODATA) | E(EPROTO) | E(EPROTONOSUPPORT) |
	       E(EMSGSIZE) | E(EBADMSG) | E(ERANGE),		/* RESTORE */
	[18] = ANY | E(EINVAL),					/* LIMITS */
	[19] = ANY | E(EINVAL) | E(ENOENT) | E(EOPNOTSUPP) | E(EINTR), /* ROTATE */
	/* EOPNOTSUPP: a filter that does not grow. */
	[20] = ANY | E(EINVAL) | E(ENOENT) | E(EOPNOTSUPP),	/* STAGES */
	/* EOPNOTSUPP: not a cuckoo filter. */
	[21] = ANY | E(EINVAL) | E(ENOENT) | E(EOPNOTSUPP),	/* CUCKOO */
	/* EOPNOTSUPP: not a static filter. */
	[22] = ANY | E(EINVAL) | E(ENOENT) | E(EOPNOTSUPP),	/* FUSE */
	[23] = BATCH_ERRS,					/* VALUE */
	[24] = ANY | E(EINVAL) | E(ENOENT),			/* ID */
	[25] = ANY | E(EINVAL) | E(ENOENT),			/* VALUE_HITS */
	[BAD_CMD] = E(ENOTTY),
};

static const char *const cmd_names[] = {
	"VERSION", "CREATE", "DESTROY", "RENAME", "CLEAR", "ADD", "TEST",
	"DEL", "COUNT", "INFO", "LIST", "SWAP", "UNION", "INTERSECT",
	"HALVE", "ESTIMATE", "SAVE", "RESTORE", "LIMITS", "ROTATE", "STAGES",
	"CUCKOO", "FUSE", "VALUE", "ID", "VALUE_HITS", "(unknown)",
};
static_assert(sizeof(cmd_names) / sizeof(cmd_names[0]) == NCMDS + 1,
	      "a command the fuzzer does not name");

static const unsigned long cmd_of[] = {
	BLOOM_IOC_VERSION, BLOOM_IOC_CREATE, BLOOM_IOC_DESTROY,
	BLOOM_IOC_RENAME, BLOOM_IOC_CLEAR, BLOOM_IOC_ADD, BLOOM_IOC_TEST,
	BLOOM_IOC_DEL, BLOOM_IOC_COUNT, BLOOM_IOC_INFO, BLOOM_IOC_LIST,
	BLOOM_IOC_SWAP, BLOOM_IOC_UNION, BLOOM_IOC_INTERSECT, BLOOM_IOC_HALVE,
	BLOOM_IOC_ESTIMATE, BLOOM_IOC_SAVE, BLOOM_IOC_RESTORE,
	BLOOM_IOC_LIMITS, BLOOM_IOC_ROTATE, BLOOM_IOC_STAGES,
	BLOOM_IOC_CUCKOO, BLOOM_IOC_FUSE, BLOOM_IOC_VALUE, BLOOM_IOC_ID,
	BLOOM_IOC_VALUE_HITS,
};
static_assert(sizeof(cmd_of) / sizeof(cmd_of[0]) == NCMDS,
	      "a command the fuzzer does not send");

/*
 * A static map: 192.0.2.1 to 192.0.2.5 with values 1 to 5, fuse8, seed
 * 0x5eed (bloomctl build --kind fuse8 --values --key addr --seed 0x5eed).
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

/* Per process, in shared memory: calls and successes per command. */
struct counts {
	uint64_t calls[NCMDS + 1], ok[NCMDS + 1], bad;
};

static struct counts *shared;
static int fd, me;
static uint64_t rng;
static uint8_t *valid, *ro_page, *unmapped, *guarded;
static uint8_t *snap;		/* a sealed snapshot from the pool */
static size_t snap_len;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static bool one_in(unsigned int n)
{
	return !below(n);
}

static uint64_t min3(uint64_t a, uint64_t b, uint64_t c)
{
	return a < b ? (a < c ? a : c) : (b < c ? b : c);
}

static uint64_t pick(const uint64_t *v, size_t n)
{
	return v[below(n)];
}

#define PICK(...) ({ static const uint64_t v_[] = { __VA_ARGS__ }; \
		     pick(v_, sizeof(v_) / sizeof(v_[0])); })

static void fill(void *p, size_t len)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = rnd();
}

/* The key type a sane CREATE gives each pool name, so batches match. */
static const uint8_t type_of[POOL] = {
	BLOOM_KEY_ADDR, BLOOM_KEY_NET, BLOOM_KEY_FLOW, BLOOM_KEY_BYTES,
};
static const uint32_t stride_of[BLOOM_KEY_MAX] = {
	[BLOOM_KEY_BYTES] = 2 + BLOOM_KEY_BYTES_MAX,
	[BLOOM_KEY_ADDR] = sizeof(struct bloom_key_addr),
	[BLOOM_KEY_NET] = sizeof(struct bloom_key_net),
	[BLOOM_KEY_ADDR_PORT] = sizeof(struct bloom_key_addr_port),
	[BLOOM_KEY_FLOW] = sizeof(struct bloom_key_flow),
};

/*
 * A name: mostly from the pool (returns its index), else invalid in one
 * of several ways (returns -1).
 */
static int name(char *dst)
{
	unsigned int i = below(POOL);

	memset(dst, 0, BLOOM_NAME_MAX);
	if (!one_in(12)) {
		snprintf(dst, BLOOM_NAME_MAX, "fz%u", i);
		return i;
	}
	switch (below(5)) {
	case 0:
		break;				/* empty */
	case 1:
		memset(dst, 'n', BLOOM_NAME_MAX);	/* unterminated */
		break;
	case 2:
		strcpy(dst, "fz 0");
		break;
	case 3:
		strcpy(dst, "fz/0");
		break;
	default:
		strcpy(dst, "fz\x7f");
	}
	return -1;
}

/*
 * A user pointer for @len bytes: a valid buffer (filled by the caller),
 * NULL, an unmapped page, a read-only page, the tail of a page before an
 * unmapped one (so @len runs off its end), or a huge value.
 */
static uint64_t ptr(size_t len)
{
	switch (below(16)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)unmapped + below(PAGE);
	case 2:
		return (uintptr_t)ro_page;
	case 3:
		return (uintptr_t)guarded + PAGE - below((len < PAGE ? len : PAGE) + 1);
	case 4:
		return PICK(~0ULL, 1ULL << 63, 0xffff888000000000ULL,
			    0xffffffff81000000ULL, PAGE, ~0ULL - 7);
	default:
		return (uintptr_t)valid +
		       (len < VALID_BYTES ? below(VALID_BYTES - len + 1) : 0);
	}
}

/*
 * @count keys of type @type (guessed from the stride when unknown) into
 * @buf: from a small set, so that adds, tests and deletes meet; now and
 * then malformed.
 */
static void keys(uint8_t *buf, uint32_t count, uint32_t stride, int type)
{
	uint32_t i;

	if (type < 0)
		type = stride == 16 ? BLOOM_KEY_ADDR : stride == 20 ?
		       BLOOM_KEY_NET : stride == 40 ? BLOOM_KEY_FLOW :
		       BLOOM_KEY_BYTES;
	if (count > VALID_BYTES / stride)
		count = VALID_BYTES / stride;
	for (i = 0; i < count; i++) {
		uint8_t *k = buf + (size_t)i * stride;

		memset(k, 0, stride);
		if (type == BLOOM_KEY_BYTES && stride > 2) {
			uint16_t n = 1 + below(stride - 2 < 4 ? stride - 2 : 4);

			memcpy(k, &n, sizeof(n));
			memset(k + 2, 'a' + below(4), n);
		} else if (stride >= 16) {
			k[10] = k[11] = 0xff;	/* v4-mapped */
			k[12] = 10;
			k[14] = below(4);
			k[15] = below(64);
		}
		if (type == BLOOM_KEY_NET && stride > 16)
			k[16] = 128;		/* plen: the whole address */
		if (type == BLOOM_KEY_FLOW && stride >= 40)
			k[36] = 6;		/* proto */
		if (one_in(50))
			fill(k, stride);
	}
}

static uint32_t stride(void)
{
	return PICK(16, 16, 20, 20, 40, 40, 130, 3, 66, 0, 1, 2, 15, 17, 39,
		    41, 131, 132, 0xffffffff);
}

static void fill_create(struct bloom_ioc_create *c)
{
	int i = name(c->name);

	if (i >= 0 && one_in(2)) {	/* a sane one */
		c->bits = PICK(512, 4096, 65536);
		c->hashes = 1 + below(8);
		c->layout = below(BLOOM_LAYOUT_MAX);
		c->key_type = type_of[i];
		c->flags = BLOOM_F_FIXED_SEED;
		c->seed = below(2);	/* two seeds: some pairs combine */
		if (c->layout != BLOOM_LAYOUT_COUNTING && one_in(4))
			c->stages_max = 1 + below(BLOOM_STAGES_MAX);	/* grows */
		return;
	}
	if (one_in(4)) {
		c->capacity = PICK(0, 1, 100, 1000, 100000, ~0ULL);
		c->fpr_ppb = PICK(0, 1, 1000, 10000000, 500000000, 500000001);
	} else {
		c->bits = PICK(0, 1, 63, 64, 65, 511, 512, 513, 4096, 65536,
			       1 << 20, 1 << 23, 1ULL << 40, ~0ULL);
		c->hashes = PICK(0, 1, 3, 7, 16, 17, 32, 33, 255, ~0U);
		c->capacity = PICK(0, 0, 1, 1000, ~0ULL);
	}
	c->layout = below(BLOOM_LAYOUT_MAX + 1);
	c->key_type = below(BLOOM_KEY_MAX + 1);
	c->flags = one_in(2) ? BLOOM_F_FIXED_SEED : below(16);
	if (c->flags & BLOOM_F_FIXED_SEED || one_in(20))
		c->seed = rnd();
	if (one_in(4)) {	/* an aging filter */
		c->generations = PICK(0, 1, 2, 3, 8, 9, 255);
		c->period_ms = PICK(0, 1, 10, 1000, ~0U);
		c->age_flags = one_in(2) ? BLOOM_AGE_F_FULL : below(256);
	}
	if (one_in(6)) {	/* a filter that grows */
		c->stages_max = PICK(0, 1, 2, 16, BLOOM_STAGES_MAX,
				     BLOOM_STAGES_MAX + 1, 255);
		c->growth = PICK(0, 1, 2, 8, 9, 255);
		c->tighten_pct = PICK(0, 9, 10, 50, 90, 91, 255);
	}
	if (one_in(20))
		c->reserved0[below(2)] = rnd();
	if (one_in(8))
		c->value_bits = PICK(0, 1, 8, 9, 255);
	if (one_in(20))
		c->reserved = rnd();
}

static void fill_stages(struct bloom_ioc_stages *s)
{
	name(s->name);
	s->count = PICK(0, 1, 2, BLOOM_STAGES_MAX, BLOOM_STAGES_MAX + 1, ~0U);
	/* The kernel writes at most the stages there are: 24. */
	s->buf = ptr((s->count > BLOOM_STAGES_MAX ? BLOOM_STAGES_MAX + 1 :
		      s->count) * sizeof(struct bloom_ioc_stage));
	if (one_in(20))
		s->stages = rnd();
	if (one_in(20))
		s->full = rnd();
	if (one_in(20))
		s->bound_ppb = rnd();
	if (one_in(20))
		s->reserved = rnd();
	if (one_in(20))
		s->reserved2 = rnd();
}

static void fill_batch(struct bloom_ioc_batch *b)
{
	int i = name(b->name);

	if (i >= 0 && !one_in(4)) {	/* the stride a sane CREATE gave */
		b->stride = stride_of[type_of[i]];
		b->count = PICK(1, 7, 64, 256, 257, 1000);
		b->keys = (uintptr_t)valid +
			  below(VALID_BYTES - (size_t)b->count * b->stride);
		b->results = (uintptr_t)valid + below(VALID_BYTES - b->count);
	} else {
		b->stride = stride();
		b->count = PICK(0, 1, 2, 7, 64, 255, 256, 257, 1000,
				BLOOM_BATCH_MAX, BLOOM_BATCH_MAX + 1, ~0U);
		b->keys = ptr((size_t)b->count * b->stride);
		b->results = ptr(b->count);
	}
	if (b->keys >= (uintptr_t)valid &&
	    b->keys < (uintptr_t)valid + VALID_BYTES && b->stride &&
	    b->stride < 1000)
		/* At most 1024: past them are older keys, or the guard. */
		keys((uint8_t *)(uintptr_t)b->keys,
		     min3(b->count, 1024,
			  (VALID_BYTES - (b->keys - (uintptr_t)valid)) /
			  b->stride),
		     b->stride, i >= 0 ? type_of[i] : -1);
	if (one_in(20))
		b->done = rnd();
	if (one_in(20))
		b->hits = rnd();
	if (one_in(20))	/* values for an add, or anything else */
		b->values = one_in(2) ? b->results : rnd();
}

static void fill_pair(struct bloom_ioc_pair *p)
{
	name(p->name);
	name(p->other);
	if (one_in(20))
		p->intersection = rnd();
	if (one_in(20))
		p->reserved[below(2)] = rnd();
}

static void fill_save(struct bloom_ioc_save *s)
{
	name(s->name);
	s->offset = PICK(0, 0, 0, 8, 7, 64, 4096, 65536, ~0ULL - 7);
	s->len = PICK(0, 8, 64, 512, 4096, 65536, 1 << 20, 9, ~0ULL - 7);
	s->buf = ptr(s->len);
	if (one_in(20))
		s->generation = rnd();
	if (one_in(20))
		((uint8_t *)&s->hdr)[below(sizeof(s->hdr))] = rnd();
}

/* Seal a snapshot: xxh64 over the header, checksum zero, and payload. */
static void seal(uint8_t *buf, size_t len)
{
	struct bloom_snap_hdr *h = (struct bloom_snap_hdr *)buf;
	XXH64_state_t st;

	h->checksum = 0;
	XXH64_reset(&st, 0);
	XXH64_update(&st, buf, len);
	h->checksum = htole64(XXH64_digest(&st));
}

/* Save a pool filter whole into @snap, sealed; false if it vanished. */
static bool fetch(void)
{
	struct bloom_ioc_save s = {};
	char which[BLOOM_NAME_MAX];
	uint64_t len;

	name(which);
	memcpy(s.name, which, sizeof(which));
	if (ioctl(fd, BLOOM_IOC_SAVE, &s))
		return false;
	len = le64toh(s.hdr.payload_len);
	if (len + sizeof(s.hdr) > SNAP_MAX)
		return false;
	memset(&s, 0, sizeof(s));
	memcpy(s.name, which, sizeof(which));
	s.buf = (uintptr_t)snap + sizeof(s.hdr);
	s.len = len;
	if (ioctl(fd, BLOOM_IOC_SAVE, &s))
		return false;
	/* Replaced in between (another process): still one whole file. */
	memcpy(snap, &s.hdr, sizeof(s.hdr));
	snap_len = sizeof(s.hdr) + len;
	if (le64toh(s.hdr.payload_len) != len)
		return false;
	seal(snap, snap_len);
	return true;
}

static void fill_restore(struct bloom_ioc_restore *r)
{
	name(r->name);
	r->flags = one_in(2) ? BLOOM_RESTORE_REPLACE : below(4);
	if (one_in(20))
		r->reserved = rnd();
	if (one_in(4) || !snap_len) {
		r->len = PICK(0, 8, sizeof(struct bloom_snap_hdr), 4096, ~0ULL);
		r->buf = ptr(r->len);
		return;
	}
	if (one_in(4)) {
		memcpy(snap, static_snap, sizeof(static_snap));
		snap_len = sizeof(static_snap);
	}
	r->buf = (uintptr_t)snap;
	r->len = snap_len;
	switch (below(6)) {
	case 0:		/* one bit flipped */
		snap[below(snap_len)] ^= 1 << below(8);
		break;
	case 1:		/* a header byte changed, checksum recomputed */
		snap[below(sizeof(struct bloom_snap_hdr) - 8)] = rnd();
		seal(snap, snap_len);
		break;
	case 2:		/* truncated or extended */
		r->len = below(snap_len + 64);
		break;
	default:	/* as saved */
		break;
	}
}

static void fill_limits(struct bloom_ioc_limits *l)
{
	/* Never above the namespace's small limits: the guest's memory. */
	if (one_in(3)) {
		l->flags = BLOOM_LIMITS_SET;
		l->max_filters = below(LIMIT_FILTERS + 1);
		l->max_bytes = below(LIMIT_BYTES + 1);
	}
	if (one_in(20))
		l->reserved = rnd();
	if (one_in(20))
		l->flags |= 1U << below(32);
	if (one_in(20))
		l->filters = rnd();
}

static void fill_list(struct bloom_ioc_list *l)
{
	l->offset = PICK(0, 0, 1, 3, 5, 1024, ~0U);
	l->count = PICK(0, 1, 4, 1024, 1025, ~0U);
	l->names = ptr((size_t)(l->count < 1024 ? l->count : 1024) *
		       BLOOM_NAME_MAX);
	if (one_in(20))
		l->returned = rnd();
}

/* Fill the struct of command @nr; @size bytes of it are copied in. */
static void fill_arg(unsigned int nr, void *arg, size_t size)
{
	memset(arg, 0, size);
	if (one_in(25)) {
		fill(arg, size);
		return;
	}
	switch (nr) {
	case 1:
		fill_create(arg);
		break;
	case 2: case 4: case 14: case 19:
		name(((struct bloom_ioc_name *)arg)->name);
		if (one_in(20))
			((struct bloom_ioc_name *)arg)->reserved = rnd();
		break;
	case 3: case 11: case 12: case 13: case 15:
		fill_pair(arg);
		break;
	case 5: case 6: case 7: case 8: case 23:
		fill_batch(arg);
		break;
	case 9:
		name(((struct bloom_ioc_info *)arg)->name);
		if (one_in(4))
			((struct bloom_ioc_info *)arg)->gens =
				ptr(PICK(0, 1, 8, 9) *
				    sizeof(struct bloom_ioc_gen));
		break;
	case 10:
		fill_list(arg);
		break;
	case 16:
		fill_save(arg);
		break;
	case 17:
		if (one_in(8))
			fetch();
		fill_restore(arg);
		break;
	case 18:
		fill_limits(arg);
		break;
	case 20:
		fill_stages(arg);
		break;
	case 21:
		name(((struct bloom_ioc_cuckoo *)arg)->name);
		if (one_in(20))
			((struct bloom_ioc_cuckoo *)arg)->moves = rnd();
		break;
	case 22:
		name(((struct bloom_ioc_fuse *)arg)->name);
		if (one_in(20))
			((struct bloom_ioc_fuse *)arg)->reserved = rnd();
		if (one_in(20))
			((struct bloom_ioc_fuse *)arg)->reserved2[below(2)] = rnd();
		break;
	case 25: {
		struct bloom_ioc_value_hits *v = arg;

		name(v->name);
		v->count = PICK(0, 1, 256, 257, ~0U);
		v->buf = ptr((v->count > 256 ? 257 : v->count) * 8);
		if (one_in(20))
			v->values = rnd();
		if (one_in(20))
			v->reserved[below(2)] = rnd();
		break;
	}
	case 24:
		name(((struct bloom_ioc_id *)arg)->name);
		if (one_in(20))
			((struct bloom_ioc_id *)arg)->id = rnd();
		if (one_in(20))
			((struct bloom_ioc_id *)arg)->reserved = rnd();
		break;
	}
}

/* A command number: mostly real, else unknown, resized, or redirected. */
static unsigned long command(unsigned int *nr)
{
	unsigned long cmd;

	*nr = below(NCMDS);
	cmd = cmd_of[*nr];
	switch (below(40)) {
	case 0:
		cmd = _IOC(_IOC_DIR(cmd), BLOOM_IOC_MAGIC, *nr,
			   _IOC_SIZE(cmd) + PICK(-8, 8, 1, -1, 256));
		break;
	case 1:
		cmd = _IOC(_IOC_DIR(cmd) ^ PICK(1, 2, 3), BLOOM_IOC_MAGIC, *nr,
			   _IOC_SIZE(cmd));
		break;
	case 2:
		cmd = _IOC(_IOC_DIR(cmd), BLOOM_IOC_MAGIC,
			   NCMDS + below(256 - NCMDS), _IOC_SIZE(cmd));
		break;
	case 3:
		cmd = _IOC(_IOC_DIR(cmd), BLOOM_IOC_MAGIC ^ 1, *nr,
			   _IOC_SIZE(cmd));
		break;
	default:
		return cmd;
	}
	*nr = BAD_CMD;
	return cmd;
}

/* The struct as it was filled (not as the kernel left it), in hex. */
static void dump(const void *arg, size_t size)
{
	const uint8_t *b = arg;
	size_t i;

	for (i = 0; i < size; i++)
		printf("%s%02x%s", i % 32 ? "" : "    # ", b[i],
		       i % 32 == 31 || i + 1 == size ? "\n" : "");
}

static void one_call(void)
{
	uint64_t arg[64];	/* larger than any command's struct */
	unsigned int nr;
	unsigned long cmd = command(&nr);
	size_t size = _IOC_SIZE(cmd) < sizeof(arg) ? _IOC_SIZE(cmd) : sizeof(arg);
	uint64_t copy[64];
	void *where = arg;
	int err;

	fill_arg(nr < NCMDS ? nr : _IOC_NR(cmd_of[below(NCMDS)]), arg, size);
	switch (below(30)) {
	case 0:
		where = NULL;
		break;
	case 1:
		where = unmapped;
		break;
	case 2:
		where = guarded + PAGE - below(size + 1);
		break;
	case 3:
		where = ro_page;
		break;
	}
	if (where != arg && where != NULL && where != unmapped &&
	    where != ro_page)
		memcpy(where, arg, guarded + PAGE - (uint8_t *)where);
	memcpy(copy, arg, size);
	err = ioctl(fd, cmd, where) ? errno : 0;
	shared[me].calls[nr]++;
	if (!err) {
		shared[me].ok[nr]++;
		return;
	}
	if (err < 128 && (allowed[nr] & E(err)))
		return;
	shared[me].bad++;
	printf("not ok - ioctl-fuzz: %s (cmd %#lx, nr %u, size %u) at %p returned %s, not a documented error\n",
	       cmd_names[nr], cmd, (unsigned int)_IOC_NR(cmd),
	       (unsigned int)_IOC_SIZE(cmd), where,
	       strerrorname_np(err) ?: "?");
	dump(copy, size);
	fflush(stdout);
}

static void *map(int prot)
{
	void *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("ioctl-fuzz: mmap");
		exit(2);
	}
	fill(p, 2 * PAGE);
	munmap((uint8_t *)p + PAGE, PAGE);	/* the guard page */
	if (mprotect(p, PAGE, prot)) {
		perror("ioctl-fuzz: mprotect");
		exit(2);
	}
	return p;
}

static int child(uint64_t seed, uint64_t calls, time_t end)
{
	uint64_t i;

	rng = seed ? seed : 1;
	fd = open("/dev/bloom", O_RDWR);
	if (fd < 0) {
		perror("ioctl-fuzz: /dev/bloom");
		return 2;
	}
	/* Followed by an inaccessible page: overruns are EFAULT, not ours. */
	valid = mmap(NULL, VALID_BYTES + PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	snap = malloc(SNAP_MAX);
	if (valid == MAP_FAILED || !snap ||
	    mprotect(valid + VALID_BYTES, PAGE, PROT_NONE))
		return 2;
	fill(valid, VALID_BYTES);
	ro_page = map(PROT_READ);
	unmapped = map(PROT_NONE);
	munmap(unmapped, PAGE);
	guarded = map(PROT_READ | PROT_WRITE);
	for (i = 0; i < calls; i++) {
		if (!(i % 64) && time(NULL) >= end)
			break;
		one_call();
	}
	return 0;
}

static int limits(uint64_t max_filters, uint64_t max_bytes,
		  struct bloom_ioc_limits *out)
{
	struct bloom_ioc_limits l = {
		.max_filters = max_filters, .max_bytes = max_bytes,
		.flags = out ? 0 : BLOOM_LIMITS_SET,
	};
	int err = ioctl(fd, BLOOM_IOC_LIMITS, &l) ? -errno : 0;

	if (out)
		*out = l;
	return err;
}

/* With every filter destroyed, nothing is accounted any more. */
static void check_empty(void)
{
	struct bloom_ioc_name n = {};
	struct bloom_ioc_limits l;
	struct bloom_ioc_list list = {};
	char names[64][BLOOM_NAME_MAX];
	unsigned int i;

	list.names = (uintptr_t)names;
	list.count = 64;
	if (ioctl(fd, BLOOM_IOC_LIST, &list) == 0)
		for (i = 0; i < list.returned; i++) {
			memcpy(n.name, names[i], BLOOM_NAME_MAX);
			ioctl(fd, BLOOM_IOC_DESTROY, &n);
		}
	if (limits(0, 0, &l) || l.filters || l.bytes) {
		shared[0].bad++;
		printf("not ok - ioctl-fuzz: with its %u filters destroyed the namespace accounts none (%llu filters, %llu bytes left)\n",
		       list.returned, (unsigned long long)l.filters,
		       (unsigned long long)l.bytes);
	} else {
		printf("ok - ioctl-fuzz: with its %u filters destroyed the namespace accounts none\n",
		       list.returned);
	}
}

/*
 * A fuzzer that never gets past the argument checks proves little: in a
 * run of some size, filters were created, filled, saved and restored.
 */
static void reached(unsigned int procs, uint64_t calls)
{
	static const unsigned int must[] = { 1, 5, 6, 9, 16, 17 };
	char missing[128] = "";
	unsigned int i, j;

	if (calls < 2000)
		return;
	for (j = 0; j < sizeof(must) / sizeof(must[0]); j++) {
		uint64_t ok = 0;

		for (i = 0; i < procs; i++)
			ok += shared[i].ok[must[j]];
		if (!ok)
			snprintf(missing + strlen(missing),
				 sizeof(missing) - strlen(missing), " %s",
				 cmd_names[must[j]]);
	}
	printf("%sok - ioctl-fuzz: calls of CREATE, ADD, TEST, INFO, SAVE and RESTORE succeeded%s%s\n",
	       missing[0] ? "not " : "", missing[0] ? "; never:" : "", missing);
	if (missing[0])
		shared[0].bad++;
}

static void usage(void)
{
	fprintf(stderr, "usage: ioctl-fuzz [-s SEED] [-n CALLS] [-t SECONDS] [-j PROCS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 0, calls = 20000, total[2] = { 0, 0 }, bad = 0;
	unsigned int procs = 2, i, nr, died = 0;
	long secs = 20;
	time_t end;
	int opt, status;

	while ((opt = getopt(argc, argv, "s:n:t:j:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			calls = strtoull(optarg, NULL, 0);
			break;
		case 't':
			secs = strtol(optarg, NULL, 0);
			break;
		case 'j':
			procs = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (!procs || procs > MAX_PROCS)
		usage();
	if (!seed)
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	printf("# ioctl-fuzz: seed %llu (replay: -s %llu), %llu calls, %ld s, %u processes\n",
	       (unsigned long long)seed, (unsigned long long)seed,
	       (unsigned long long)calls, secs, procs);
	fflush(stdout);
	if (unshare(CLONE_NEWNET)) {
		perror("ioctl-fuzz: unshare(CLONE_NEWNET)");
		return 2;
	}
	fd = open("/dev/bloom", O_RDWR);
	if (fd < 0 || limits(LIMIT_FILTERS, LIMIT_BYTES, NULL)) {
		perror("ioctl-fuzz: /dev/bloom limits");
		return 2;
	}
	shared = mmap(NULL, sizeof(*shared) * procs, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return 2;
	end = time(NULL) + secs;
	for (i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			me = i;
			_exit(child(seed + i * 0x9e3779b97f4a7c15ULL,
				    calls / procs, end));
		}
		if (pid < 0)
			return 2;
	}
	while (wait(&status) > 0)
		died += !WIFEXITED(status) || WEXITSTATUS(status);
	printf("# %-10s %10s %10s\n", "command", "calls", "succeeded");
	for (nr = 0; nr <= NCMDS; nr++) {
		uint64_t c = 0, ok = 0;

		for (i = 0; i < procs; i++) {
			c += shared[i].calls[nr];
			ok += shared[i].ok[nr];
		}
		total[0] += c;
		total[1] += ok;
		printf("# %-10s %10llu %10llu\n", cmd_names[nr],
		       (unsigned long long)c, (unsigned long long)ok);
	}
	for (i = 0; i < procs; i++)
		bad += shared[i].bad;
	reached(procs, total[0]);
	printf("%sok - ioctl-fuzz: %llu calls (%llu succeeded) by %u processes, seed %llu: %llu undocumented returns, %u processes died\n",
	       bad || died ? "not " : "", (unsigned long long)total[0],
	       (unsigned long long)total[1], procs, (unsigned long long)seed,
	       (unsigned long long)bad, died);
	check_empty();
	return bad || died || shared[0].bad;
}
