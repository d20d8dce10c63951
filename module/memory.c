// SPDX-License-Identifier: GPL-2.0
/*
 * Memory for contents: allocation, and the namespace's byte budget that
 * published contents count against (kind.h). Used by the registry, the
 * contents layer and the kinds alike; it calls none of them.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "kind.h"

/**
 * bloom_array_alloc() - zeroed memory for contents or an array
 * @size: bytes
 *
 * kvmalloc() refuses more than INT_MAX bytes, and the largest filters
 * are bigger: those go to vmalloc directly. Either way a request the
 * machine cannot serve fails instead of invoking the OOM killer, and
 * the memory is charged to the caller's memory cgroup. Free with
 * kvfree().
 *
 * Return: the memory or NULL.
 */
void *bloom_array_alloc(size_t size)
{
	gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_RETRY_MAYFAIL |
		    __GFP_NOWARN;

	if (size <= INT_MAX)
		return kvmalloc(size, gfp);
	return __vmalloc(size, gfp);
}

/**
 * bloom_budget_room() - is there room for @more bytes? Under @b->lock
 * @b: the budget
 * @more: bytes
 *
 * Return: 0, -E2BIG (more than the whole limit) or -ENOSPC.
 */
int bloom_budget_room(const struct bloom_budget *b, size_t more)
{
	lockdep_assert_held(&b->lock);
	if (more > b->max_bytes)
		return -E2BIG;
	if (more > b->max_bytes - min(b->bytes, b->max_bytes))
		return -ENOSPC;
	return 0;
}

/**
 * bloom_budget_check() - would a growth of published contents fit?
 * @c: contents that grow, published
 * @more: bytes
 *
 * A hint before allocating; bloom_budget_grow() checks again.
 *
 * Return: 0, -ENOSPC or -E2BIG, -ESTALE (no longer published).
 */
int bloom_budget_check(struct bloom_contents *c, size_t more)
{
	struct bloom_budget *b = c->budget;
	int err = -ESTALE;

	spin_lock(&b->lock);
	if (!test_bit(BLOOM_C_RETIRED, &c->flags))
		err = bloom_budget_room(b, more);
	spin_unlock(&b->lock);
	return err;
}

/**
 * bloom_budget_grow() - charge published contents for a growth
 * @c: contents that grow, published (their kind's work, process context)
 * @more: the bytes they grow by
 * @publish: makes the growth visible (and counted by the kind's @bytes),
 *	called under the budget's lock when it is charged: it must not sleep
 * @arg: for @publish
 *
 * Return: 0, -ENOSPC or -E2BIG (no room), -ESTALE (no longer published).
 */
int bloom_budget_grow(struct bloom_contents *c, size_t more,
		      void (*publish)(struct bloom_contents *c, void *arg),
		      void *arg)
{
	struct bloom_budget *b = c->budget;
	int err = -ESTALE;

	spin_lock(&b->lock);
	if (!test_bit(BLOOM_C_RETIRED, &c->flags))
		err = bloom_budget_room(b, more);
	if (!err) {
		b->bytes += more;
		publish(c, arg);
	}
	spin_unlock(&b->lock);
	return err;
}
