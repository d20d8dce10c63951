// SPDX-License-Identifier: GPL-2.0
/*
 * libbloom (Debian's libbloom-dev), the userspace library a user would
 * pick instead, behind three calls: its names clash with the core's.
 */
#include <bloom.h>
#include <stdlib.h>
#include "libbloom.h"

struct lb {
	struct bloom b;
};

struct lb *lb_new(unsigned long n, double error)
{
	struct lb *f = calloc(1, sizeof(*f));

	if (!f || bloom_init(&f->b, n, error))
		exit(1);
	return f;
}

int lb_add(struct lb *f, const void *key, int len)
{
	return bloom_add(&f->b, key, len);
}

int lb_check(struct lb *f, const void *key, int len)
{
	return bloom_check(&f->b, key, len);
}

unsigned long lb_bytes(const struct lb *f)
{
	return f->b.bytes;
}

unsigned int lb_hashes(const struct lb *f)
{
	return f->b.hashes;
}

void lb_free(struct lb *f)
{
	bloom_free(&f->b);
	free(f);
}
