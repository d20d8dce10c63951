/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/bloom: the ioctl ABI. Every command acts on the caller's network
 * namespace. Structs are fixed-size multiples of 8 bytes, naturally
 * aligned (identical for 32- and 64-bit userspace); reserved fields and
 * unused flags must be zero (else EINVAL); unknown commands are ENOTTY.
 * Names are NUL-terminated within BLOOM_NAME_MAX bytes, non-empty, of
 * printable ASCII other than space and '/'.
 *
 * Changing state needs CAP_NET_ADMIN in the user namespace that owns the
 * network namespace; reading (VERSION, INFO, LIST, TEST, COUNT, SAVE,
 * ESTIMATE, LIMITS without BLOOM_LIMITS_SET) needs only the open file.
 * The device is mode 0600, so by default only root opens it.
 *
 * EFAULT: a struct or buffer could not be read or written. ADD, DEL and
 * LIMITS with BLOOM_LIMITS_SET copy their struct back out last: when
 * only that copy fails, the command has taken effect (a batch cannot
 * report @done). CREATE reports the geometry before the filter appears:
 * its EFAULT means nothing was created.
 */
#ifndef _UAPI_BLOOM_IOCTL_H
#define _UAPI_BLOOM_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>
#include "bloom.h"

#define BLOOM_ABI_VERSION	2
#define BLOOM_IOC_MAGIC		0xb1

/* Most keys one batch may carry; more is E2BIG. */
#define BLOOM_BATCH_MAX		(1U << 20)

/* BLOOM_IOC_VERSION: the handshake. */
struct bloom_ioc_version {
	__u32	abi_version;		/* out: BLOOM_ABI_VERSION */
	__u32	max_cmd;		/* out: highest command number */
	__u64	cmds;			/* out: bit n set: command n supported */
	__u64	layouts;		/* out: bit per enum bloom_layout */
	__u64	key_types;		/* out: bit per enum bloom_key_type */
	__u64	reserved[4];		/* out: zero */
};

/*
 * BLOOM_IOC_CREATE: give @bits and @hashes, or @capacity and @fpr_ppb
 * (parts per 10^9, in (0, 5*10^8]) and leave the others zero. With
 * @bits and @hashes, @capacity may be given too (else it is derived:
 * floor(m ln 2 / k), the load at which k is optimal). The seed is
 * random unless BLOOM_F_FIXED_SEED. On success @bits, @hashes, @seed
 * and @capacity say what was created.
 *
 * An aging filter (see uapi/bloom.h) has @generations in
 * [BLOOM_GENERATIONS_MIN, BLOOM_GENERATIONS_MAX]; it rotates every
 * @period_ms (0: no timer) and, with BLOOM_AGE_F_FULL in @age_flags, when
 * its newest generation holds @capacity keys. Sizing is per generation.
 * A plain filter has all three zero. Memory is accounted for G + 1
 * arrays (one is kept empty for the next rotation).
 *
 * A scalable filter (see uapi/bloom.h) has @stages_max in [1,
 * BLOOM_STAGES_MAX]; @growth (0: BLOOM_GROWTH_DEFAULT) and @tighten_pct
 * (0: BLOOM_TIGHTEN_DEFAULT_PCT) are filled in when zero. Sized from
 * @fpr_ppb, its first stage gets fpr_ppb (1 - tighten_pct / 100), so
 * that all stages together stay below @fpr_ppb. Counting filters and
 * aging ones cannot grow. Memory is accounted for the stages it has.
 *
 * A static filter (BLOOM_LAYOUT_FUSE) is built from its keys and
 * arrives by BLOOM_IOC_RESTORE: CREATE of that layout is EOPNOTSUPP.
 *
 * A cuckoo filter may keep a value of @value_bits (1 to
 * BLOOM_CUCKOO_VALUE_BITS_MAX) beside each key (uapi/bloom.h); sized
 * from a rate, its slots widen by that much. Other layouts take 0.
 *
 * @fpr_ppb is a lookup's rate: a net filter with BLOOM_F_PROBES(P) in
 * @flags sizes each probe at @fpr_ppb / P (uapi/bloom.h).
 */
struct bloom_ioc_create {
	char	name[BLOOM_NAME_MAX];
	__u64	bits;			/* in/out */
	__u64	capacity;		/* in/out */
	__u64	fpr_ppb;		/* in */
	__u64	seed;			/* in with BLOOM_F_FIXED_SEED; out */
	__u32	hashes;			/* in/out */
	__u8	layout;			/* enum bloom_layout */
	__u8	key_type;		/* enum bloom_key_type */
	__u16	flags;			/* BLOOM_F_* */
	__u32	period_ms;		/* in: aging period, 0 = none */
	__u8	generations;		/* in: 0 = plain filter */
	__u8	age_flags;		/* in: BLOOM_AGE_F_* */
	__u8	stages_max;		/* in: scalable; 0 = fixed size */
	__u8	growth;			/* in/out: scalable */
	__u8	tighten_pct;		/* in/out: scalable */
	__u8	value_bits;		/* in: cuckoo; 0 = no values */
	__u8	reserved0[2];
	__u32	reserved;
};

/*
 * BLOOM_IOC_DESTROY, BLOOM_IOC_CLEAR, BLOOM_IOC_HALVE, BLOOM_IOC_ROTATE
 * (an aging filter now drops its oldest generation; EOPNOTSUPP for a
 * plain one).
 */
struct bloom_ioc_name {
	char	name[BLOOM_NAME_MAX];
	__u64	reserved;
};

/*
 * BLOOM_IOC_RENAME (@name becomes @other), BLOOM_IOC_SWAP (the two
 * exchange contents: same key type and family), BLOOM_IOC_UNION and
 * BLOOM_IOC_INTERSECT (@other into @name: same geometry, seed and family),
 * BLOOM_IOC_ESTIMATE (out: estimated |name n other| and |name u other|).
 */
struct bloom_ioc_pair {
	char	name[BLOOM_NAME_MAX];
	char	other[BLOOM_NAME_MAX];
	__u64	intersection;		/* out, ESTIMATE */
	__u64	union_;			/* out, ESTIMATE */
	__u64	reserved[2];
};

/*
 * BLOOM_IOC_ADD, BLOOM_IOC_TEST, BLOOM_IOC_DEL, BLOOM_IOC_COUNT: @count
 * records of @stride bytes at @keys. For fixed-size key types the stride
 * is the key's size; for BLOOM_KEY_BYTES a record is a __u16 length then
 * the key, and the stride at most 2 + BLOOM_KEY_BYTES_MAX.
 *
 * TEST writes a bitmap of @count bits to @results (bit i of byte i/8 set
 * when key i is present); COUNT writes one __u8 per key. @hits counts
 * the keys present (TEST), new (ADD), deleted (DEL).
 *
 * ADD to a filter with values (a cuckoo filter created with
 * @value_bits) may give @values, a user pointer to @count __u32: key i
 * is stored with value i (0 without @values). @values is EINVAL for
 * every other command and filter.
 *
 * Not all-or-nothing: keys are applied in order. On an error @done is
 * the number of keys applied, the key at index @done is the bad one
 * (EINVAL for a malformed key, EAFNOSUPPORT for a key of the other
 * family, ERANGE for a value wider than the filter's, ENOENT for DEL of
 * an absent key, ENOSPC for ADD of a key a cuckoo filter has no room
 * for), and no key after it was looked at. On success @done == @count.
 */
struct bloom_ioc_batch {
	char	name[BLOOM_NAME_MAX];
	__u64	keys;			/* user pointer */
	__u64	results;		/* user pointer; TEST and COUNT */
	__u32	count;
	__u32	stride;
	__u32	done;			/* out */
	__u32	hits;			/* out */
	__u64	values;			/* user pointer; ADD, or 0 */
};

/* One generation of an aging filter, for BLOOM_IOC_INFO. */
struct bloom_ioc_gen {
	__u64	age_ms;			/* since it became the newest */
	__u64	inserted;
	__u64	bits_set;
	__u64	fill_ppb;
};

/* One stage of a scalable filter, for BLOOM_IOC_STAGES. */
struct bloom_ioc_stage {
	__u64	bits;
	__u64	capacity;
	__u64	inserted;
	__u64	bits_set;
	__u64	fill_ppb;
	__u64	est_fpr_ppb;		/* at its current fill */
	__u64	mem_bytes;
	__u32	hashes;
	__u32	reserved;
};

/*
 * BLOOM_IOC_STAGES: the stages of a scalable filter (EOPNOTSUPP for
 * other kinds), oldest first: @stages of them, of which the first
 * min(@stages, @count) are copied to @buf (an array of @count structs).
 * @bound_ppb is the rate the filter stays below (uapi/bloom.h).
 */
struct bloom_ioc_stages {
	char	name[BLOOM_NAME_MAX];	/* in */
	__u64	buf;			/* in: user pointer */
	__u32	count;			/* in */
	__u32	stages;			/* out */
	__u8	stages_max;		/* out */
	__u8	growth;			/* out */
	__u8	tighten_pct;		/* out */
	__u8	full;			/* out: at a limit, no stage to come */
	__u32	reserved;
	__u64	bound_ppb;		/* out */
	__u64	reserved2;
};

/*
 * BLOOM_IOC_CUCKOO: the table of a cuckoo filter (EOPNOTSUPP for other
 * kinds). INFO tells the rest: @hashes is the fingerprint width,
 * @bits_set the slots in use and @fill_ppb the load factor.
 */
struct bloom_ioc_cuckoo {
	char	name[BLOOM_NAME_MAX];	/* in */
	__u64	buckets;		/* out */
	__u64	used;			/* out: slots in use */
	__u64	moves;			/* out: fingerprints moved by adds */
	__u64	failed;			/* out: adds refused, no room (ENOSPC) */
	__u32	fp_bits;		/* out */
	__u32	slots;			/* out: per bucket */
	__u32	value_bits;		/* out: 0 without values */
	__u32	reserved;
	__u64	reserved2;
};

/*
 * BLOOM_IOC_VALUE_HITS: packets matched per value, by a filter created
 * with values of at most BLOOM_VALUE_HITS_BITS bits (a cuckoo filter
 * with values, a static map): every packet-path lookup that matched
 * (the match, the kfuncs, bloom_test(), bloom_value() and their _net
 * forms; not the test-and-add of update mode, which has no value)
 * counts under the value it found, a false positive under the value of
 * the key it matched (a lookup that kept meeting writers, from hard
 * interrupt context, under 0). @values is how many values the filter counts
 * (2^v; 0: none), of which the first min(@values, @count) counts,
 * value 0 first, are copied to @buf (an array of @count __u64). The
 * counts belong to the filter: CLEAR, SWAP and RESTORE with
 * BLOOM_RESTORE_REPLACE keep them (contents swapped in with wider
 * values count under their value's low v bits), DESTROY ends them.
 * They take (2^v) * 8 bytes per possible CPU of the namespace's budget
 * (BLOOM_IOC_LIMITS).
 */
#define BLOOM_VALUE_HITS_BITS	8

struct bloom_ioc_value_hits {
	char	name[BLOOM_NAME_MAX];	/* in */
	__u64	buf;			/* in: user pointer */
	__u32	count;			/* in */
	__u32	values;			/* out */
	__u64	reserved[2];
};

/*
 * BLOOM_IOC_FUSE: the shape of a static filter (EOPNOTSUPP for other
 * kinds). INFO tells the rest: @hashes is the fingerprint width and
 * @capacity the keys it was built from.
 */
struct bloom_ioc_fuse {
	char	name[BLOOM_NAME_MAX];	/* in */
	__u64	keys;			/* out: n */
	__u64	entries;		/* out: of @fp_bits + @value_bits */
	__u32	segment_len;		/* out: entries per segment */
	__u32	fp_bits;		/* out */
	__u32	value_bits;		/* out: 0 without values */
	__u32	reserved;
	__u64	reserved2[2];
};

/*
 * BLOOM_IOC_VALUE: a batch as for TEST (struct bloom_ioc_batch), whose
 * @results receives @count __u32: the value of each key, or
 * BLOOM_VALUE_ABSENT; @hits counts the keys present. A member of a
 * filter without values (any kind) has value 0.
 */

/*
 * BLOOM_IOC_INFO: everything about one filter. For an aging filter the
 * stats are over all live generations (inserted and bits_set summed,
 * fill_ppb the fullest, est_fpr_ppb that of the union of the answers),
 * and when @gens is a user pointer to BLOOM_GENERATIONS_MAX structs,
 * the first @generations are filled, newest first. For a filter that
 * grows, @bits, @hashes and @capacity are its first stage's, @fill_ppb
 * the newest stage's, and the other stats sums over its stages
 * (est_fpr_ppb that of the union of their answers); BLOOM_IOC_STAGES
 * tells each stage. For a net filter est_fpr_ppb is a lookup's: that of
 * a probe at each of the lengths in @plens an address is probed at
 * (every one, for an IPv6 address).
 */
struct bloom_ioc_info {
	char	name[BLOOM_NAME_MAX];	/* in */
	__u64	bits;
	__u64	seed;
	__u32	hashes;
	__u8	layout;
	__u8	key_type;
	__u16	flags;
	__u64	bits_set;
	__u64	fill_ppb;
	__u64	est_card;		/* ~0 when saturated */
	__u64	est_fpr_ppb;
	__u64	inserted;		/* adds that set a new bit */
	__u64	mem_bytes;
	__u64	hits;			/* packet-path tests that matched */
	__u64	misses;
	__u64	plens[BLOOM_PLEN_WORDS];	/* net: prefix lengths held */
	__u32	users;			/* rules and in-kernel holders */
	__u32	generations;		/* out: aging: G; 0 when plain */
	__u64	capacity;		/* distinct keys it was sized for */
	__u32	period_ms;		/* out: aging period */
	__u32	age_flags;		/* out: BLOOM_AGE_F_* */
	__u64	gens;			/* in: user pointer, or 0 */
	__u64	rotations;		/* out: rotations so far */
};

/*
 * BLOOM_IOC_LIST: names from index @offset, at most @count of them, into
 * @names (an array of char[BLOOM_NAME_MAX]), in creation order.
 */
struct bloom_ioc_list {
	__u64	names;			/* user pointer */
	__u32	offset;
	__u32	count;
	__u32	returned;		/* out */
	__u32	total;			/* out: filters in the namespace */
	__u64	reserved;
};

/*
 * BLOOM_IOC_SAVE: @len bytes of the payload from @offset, into @buf, and
 * the snapshot header (checksum zero: the writer computes it). Bits are
 * read live; @generation changes whenever the contents are replaced
 * (clear, swap, restore, halve), so a reader can detect a replacement
 * between chunks and start again.
 */
struct bloom_ioc_save {
	char	name[BLOOM_NAME_MAX];
	__u64	buf;			/* user pointer */
	__u64	offset;
	__u64	len;
	__u64	generation;		/* out */
	struct bloom_snap_hdr hdr;	/* out */
	__u64	reserved;
};

/*
 * BLOOM_IOC_RESTORE: a whole snapshot file at @buf. Creates @name, or
 * with BLOOM_RESTORE_REPLACE replaces the contents of the existing @name
 * (same key type and family). Verified entirely before it is published: a bad
 * snapshot changes nothing.
 */
#define BLOOM_RESTORE_REPLACE	(1U << 0)

struct bloom_ioc_restore {
	char	name[BLOOM_NAME_MAX];
	__u64	buf;			/* user pointer */
	__u64	len;
	__u32	flags;
	__u32	reserved0;
	__u64	reserved;
};

/*
 * BLOOM_IOC_LIMITS: read, or with BLOOM_LIMITS_SET change, the limits.
 * Without CAP_NET_ADMIN in the initial user namespace a limit moves at
 * most up to the namespace's ceiling, else EPERM: the module's defaults
 * (parameters max_filters and max_bytes), or what the host's
 * administrator last set there. A namespace's own root stays within what
 * the host allows.
 */
#define BLOOM_LIMITS_SET	(1U << 0)

/*
 * BLOOM_IOC_ID: the id of filter @name, by which XDP and tc programs name
 * it (the kfuncs of bloom.ko look it up in the namespace of the packet's
 * device). The id belongs to the filter for its whole life: a rename
 * takes it along, a swap, clear or restore leaves it where it was (the
 * contents move, as rules see them). Ids are unique across namespaces,
 * are looked up only in the packet's namespace, and come back only after
 * 2^31 more filters were created, so a program left holding the id of a
 * destroyed filter (or on a device moved to another namespace) finds
 * nothing rather than another filter. Reserved fields must be zero.
 */
struct bloom_ioc_id {
	char	name[BLOOM_NAME_MAX];	/* in */
	__u32	id;			/* out */
	__u32	reserved0;
	__u64	reserved;
};

struct bloom_ioc_limits {
	__u64	max_filters;
	__u64	max_bytes;
	__u64	filters;		/* out */
	__u64	bytes;			/* out */
	__u32	flags;
	__u32	reserved0;
	__u64	reserved;
};

#define BLOOM_IOC_VERSION	_IOR(BLOOM_IOC_MAGIC, 0, struct bloom_ioc_version)
#define BLOOM_IOC_CREATE	_IOWR(BLOOM_IOC_MAGIC, 1, struct bloom_ioc_create)
#define BLOOM_IOC_DESTROY	_IOW(BLOOM_IOC_MAGIC, 2, struct bloom_ioc_name)
#define BLOOM_IOC_RENAME	_IOW(BLOOM_IOC_MAGIC, 3, struct bloom_ioc_pair)
#define BLOOM_IOC_CLEAR		_IOW(BLOOM_IOC_MAGIC, 4, struct bloom_ioc_name)
#define BLOOM_IOC_ADD		_IOWR(BLOOM_IOC_MAGIC, 5, struct bloom_ioc_batch)
#define BLOOM_IOC_TEST		_IOWR(BLOOM_IOC_MAGIC, 6, struct bloom_ioc_batch)
#define BLOOM_IOC_DEL		_IOWR(BLOOM_IOC_MAGIC, 7, struct bloom_ioc_batch)
#define BLOOM_IOC_COUNT		_IOWR(BLOOM_IOC_MAGIC, 8, struct bloom_ioc_batch)
#define BLOOM_IOC_INFO		_IOWR(BLOOM_IOC_MAGIC, 9, struct bloom_ioc_info)
#define BLOOM_IOC_LIST		_IOWR(BLOOM_IOC_MAGIC, 10, struct bloom_ioc_list)
#define BLOOM_IOC_SWAP		_IOW(BLOOM_IOC_MAGIC, 11, struct bloom_ioc_pair)
#define BLOOM_IOC_UNION		_IOW(BLOOM_IOC_MAGIC, 12, struct bloom_ioc_pair)
#define BLOOM_IOC_INTERSECT	_IOW(BLOOM_IOC_MAGIC, 13, struct bloom_ioc_pair)
#define BLOOM_IOC_HALVE		_IOW(BLOOM_IOC_MAGIC, 14, struct bloom_ioc_name)
#define BLOOM_IOC_ESTIMATE	_IOWR(BLOOM_IOC_MAGIC, 15, struct bloom_ioc_pair)
#define BLOOM_IOC_SAVE		_IOWR(BLOOM_IOC_MAGIC, 16, struct bloom_ioc_save)
#define BLOOM_IOC_RESTORE	_IOW(BLOOM_IOC_MAGIC, 17, struct bloom_ioc_restore)
#define BLOOM_IOC_LIMITS	_IOWR(BLOOM_IOC_MAGIC, 18, struct bloom_ioc_limits)
#define BLOOM_IOC_ROTATE	_IOW(BLOOM_IOC_MAGIC, 19, struct bloom_ioc_name)
#define BLOOM_IOC_STAGES	_IOWR(BLOOM_IOC_MAGIC, 20, struct bloom_ioc_stages)
#define BLOOM_IOC_CUCKOO	_IOWR(BLOOM_IOC_MAGIC, 21, struct bloom_ioc_cuckoo)
#define BLOOM_IOC_FUSE		_IOWR(BLOOM_IOC_MAGIC, 22, struct bloom_ioc_fuse)
#define BLOOM_IOC_VALUE		_IOWR(BLOOM_IOC_MAGIC, 23, struct bloom_ioc_batch)
#define BLOOM_IOC_ID		_IOWR(BLOOM_IOC_MAGIC, 24, struct bloom_ioc_id)
#define BLOOM_IOC_VALUE_HITS	_IOWR(BLOOM_IOC_MAGIC, 25, \
				      struct bloom_ioc_value_hits)
#define BLOOM_IOC_MAX_NR	25

#endif /* _UAPI_BLOOM_IOCTL_H */
