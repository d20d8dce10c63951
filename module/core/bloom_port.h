/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only place module/core/ meets its environment: the kernel or a
 * userspace program. Everything else in core/ is plain C on these names.
 */
#ifndef _BLOOM_PORT_H
#define _BLOOM_PORT_H

#ifdef __KERNEL__

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/in.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/prefetch.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/xxhash.h>
#include <asm/byteorder.h>

/*
 * One word of a filter. Every access goes through the helpers below:
 * updates are atomic RMW (fully ordered), reads are single READ_ONCE
 * loads, so a lockless reader sees each word either before or after
 * any concurrent update, never torn.
 */
typedef atomic64_t bloom_word_t;

static inline u64 bloom_word_read(const bloom_word_t *w)
{
	return (u64)atomic64_read(w);
}

static inline void bloom_word_set(bloom_word_t *w, u64 v)
{
	atomic64_set(w, (s64)v);
}

static inline u64 bloom_word_fetch_or(bloom_word_t *w, u64 mask)
{
	return (u64)atomic64_fetch_or((s64)mask, w);
}

/* OR without fetching the old value: one locked instruction on x86. */
static inline void bloom_word_or(bloom_word_t *w, u64 mask)
{
	atomic64_or((s64)mask, w);
}

static inline void bloom_word_and(bloom_word_t *w, u64 mask)
{
	atomic64_and((s64)mask, w);
}

static inline void bloom_word_add(bloom_word_t *w, u64 v)
{
	atomic64_add((s64)v, w);
}

/* On failure *old is refreshed with the current value. */
static inline bool bloom_word_cmpxchg(bloom_word_t *w, u64 *old, u64 new)
{
	return atomic64_try_cmpxchg(w, (s64 *)old, (s64)new);
}

typedef struct xxh64_state bloom_hash_state;

static inline u64 bloom_xxh64(const void *p, size_t len, u64 seed)
{
	return xxh64(p, len, seed);
}

static inline void bloom_hash_init(bloom_hash_state *st, u64 seed)
{
	xxh64_reset(st, seed);
}

static inline void bloom_hash_update(bloom_hash_state *st, const void *p,
				     size_t len)
{
	xxh64_update(st, p, len);
}

static inline u64 bloom_hash_final(bloom_hash_state *st)
{
	return xxh64_digest(st);
}

static inline u64 bloom_mulhi(u64 a, u64 b)
{
	return mul_u64_u64_shr(a, b, 64);
}

static inline u64 bloom_mul_shr(u64 a, u64 b, unsigned int shift)
{
	return mul_u64_u64_shr(a, b, shift);
}

/* a * b / c with a 128-bit intermediate; the quotient must fit 64 bits. */
static inline u64 bloom_mul_div(u64 a, u64 b, u64 c)
{
	return mul_u64_u64_div_u64(a, b, c);
}

#define bloom_popcount64(x)	hweight64(x)
#define bloom_fls64(x)		fls64(x)
#define bloom_prefetch(p)	prefetch(p)
#define bloom_cpu_to_le64(x)	cpu_to_le64(x)
#define bloom_le64_to_cpu(x)	le64_to_cpu(x)
#define bloom_cpu_to_le32(x)	cpu_to_le32(x)
#define bloom_le32_to_cpu(x)	le32_to_cpu(x)
#define bloom_cpu_to_le16(x)	cpu_to_le16(x)
#define bloom_le16_to_cpu(x)	le16_to_cpu(x)
#define bloom_cpu_to_be32(x)	cpu_to_be32(x)
#define bloom_cpu_to_be16(x)	cpu_to_be16(x)
#define bloom_be16_to_cpu(x)	be16_to_cpu(x)
#define bloom_be32_to_cpu(x)	be32_to_cpu(x)

/* Long loops over a filter run in process context only. */
static inline void bloom_resched(void)
{
	cond_resched();
}

#else /* userspace */

#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <linux/types.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#define U64_MAX		UINT64_MAX
#define U32_MAX		UINT32_MAX
#define S64_MIN		INT64_MIN
#define S64_MAX		INT64_MAX
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define fallthrough	__attribute__((__fallthrough__))
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)

typedef u64 bloom_word_t;

#define EXPORT_SYMBOL_GPL(sym)	/* nothing to export in userspace */
#ifndef __aligned
#define __aligned(x)		__attribute__((aligned(x)))
#endif

static inline u64 bloom_word_read(const bloom_word_t *w)
{
	return __atomic_load_n(w, __ATOMIC_RELAXED);
}

static inline void bloom_word_set(bloom_word_t *w, u64 v)
{
	__atomic_store_n(w, v, __ATOMIC_RELAXED);
}

static inline u64 bloom_word_fetch_or(bloom_word_t *w, u64 mask)
{
	return __atomic_fetch_or(w, mask, __ATOMIC_SEQ_CST);
}

static inline void bloom_word_or(bloom_word_t *w, u64 mask)
{
	__atomic_fetch_or(w, mask, __ATOMIC_SEQ_CST);
}

static inline void bloom_word_and(bloom_word_t *w, u64 mask)
{
	__atomic_fetch_and(w, mask, __ATOMIC_SEQ_CST);
}

static inline void bloom_word_add(bloom_word_t *w, u64 v)
{
	__atomic_fetch_add(w, v, __ATOMIC_SEQ_CST);
}

static inline bool bloom_word_cmpxchg(bloom_word_t *w, u64 *old, u64 new)
{
	return __atomic_compare_exchange_n(w, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

typedef XXH64_state_t bloom_hash_state;

static inline u64 bloom_xxh64(const void *p, size_t len, u64 seed)
{
	return XXH64(p, len, seed);
}

static inline void bloom_hash_init(bloom_hash_state *st, u64 seed)
{
	XXH64_reset(st, seed);
}

static inline void bloom_hash_update(bloom_hash_state *st, const void *p,
				     size_t len)
{
	XXH64_update(st, p, len);
}

static inline u64 bloom_hash_final(bloom_hash_state *st)
{
	return XXH64_digest(st);
}

static inline u64 bloom_mulhi(u64 a, u64 b)
{
	return (u64)(((__uint128_t)a * b) >> 64);
}

static inline u64 bloom_mul_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((__uint128_t)a * b) >> shift);
}

static inline u64 bloom_mul_div(u64 a, u64 b, u64 c)
{
	return (u64)(((__uint128_t)a * b) / c);
}

#define bloom_popcount64(x)	((unsigned int)__builtin_popcountll(x))
#define bloom_fls64(x)		((x) ? 64 - __builtin_clzll(x) : 0)
#define bloom_prefetch(p)	__builtin_prefetch(p)
#define bloom_cpu_to_le64(x)	htole64(x)
#define bloom_le64_to_cpu(x)	le64toh(x)
#define bloom_cpu_to_le32(x)	htole32(x)
#define bloom_le32_to_cpu(x)	le32toh(x)
#define bloom_cpu_to_le16(x)	htole16(x)
#define bloom_le16_to_cpu(x)	le16toh(x)
#define bloom_cpu_to_be32(x)	htobe32(x)
#define bloom_cpu_to_be16(x)	htobe16(x)
#define bloom_be16_to_cpu(x)	be16toh(x)
#define bloom_be32_to_cpu(x)	be32toh(x)

static inline void bloom_resched(void)
{
}

#endif /* __KERNEL__ */
#endif /* _BLOOM_PORT_H */
