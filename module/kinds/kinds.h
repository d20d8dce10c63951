/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kinds show of themselves beyond their ops table: for the KUnit
 * suites, which look inside contents of a known kind.
 */
#ifndef _BLOOM_KINDS_H
#define _BLOOM_KINDS_H

#include <linux/seqlock.h>
#include "../kind.h"

/* plain.c */
struct bloom_bits *bloom_plain_bits(struct bloom_contents *c);

/* aging.c */
int bloom_age_find(struct bloom_contents *c, u64 h, struct bloom_bits **newest);
u64 bloom_age_rotations(struct bloom_contents *c);
int bloom_age_rotate(struct bloom_contents *c);
void bloom_age_lock(struct bloom_contents *c);
void bloom_age_unlock(struct bloom_contents *c);

/* cuckoo.c: a lockless read, in its two halves */
struct bloom_cuckoo_read {
	seqcount_spinlock_t *s1, *s2;	/* the stripes of its buckets */
	unsigned int v1, v2;		/* their counts when it began */
};

struct bloom_bits *bloom_cuckoo_bits(struct bloom_contents *c);
void bloom_cuckoo_read_begin(struct bloom_contents *c,
			     const struct bloom_cuckoo_key *k,
			     struct bloom_cuckoo_read *r);
bool bloom_cuckoo_read_retry(const struct bloom_cuckoo_read *r);

#endif /* _BLOOM_KINDS_H */
