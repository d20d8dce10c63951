/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kinds show of themselves beyond their ops table: for the KUnit
 * suites, which look inside contents of a known kind.
 */
#ifndef _BLOOM_KINDS_H
#define _BLOOM_KINDS_H

#include "../kind.h"

/* plain.c */
struct bloom_bits *bloom_plain_bits(struct bloom_contents *c);

/* aging.c */
int bloom_age_find(struct bloom_contents *c, u64 h, struct bloom_bits **newest);
u64 bloom_age_rotations(struct bloom_contents *c);
int bloom_age_rotate(struct bloom_contents *c);
void bloom_age_lock(struct bloom_contents *c);
void bloom_age_unlock(struct bloom_contents *c);

#endif /* _BLOOM_KINDS_H */
