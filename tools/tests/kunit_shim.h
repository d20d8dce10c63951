/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of KUnit for the suites in kunit/ to run as a native
 * userspace program against module/core/, under AddressSanitizer and
 * UndefinedBehaviorSanitizer. Same test source, two builds.
 */
#ifndef _KUNIT_SHIM_H
#define _KUNIT_SHIM_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KUNIT_PARAM_DESC_SIZE 128
#define strscpy(dst, src, size)	snprintf(dst, size, "%s", src)

struct kunit {
	const char *name;
	const void *param_value;
	int failed;
	int skipped;
	char skip_why[128];
	jmp_buf abort;
	void *allocs[256];
	int nallocs;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);
};

struct kunit_suite {
	const char *name;
	struct kunit_case *test_cases;
	struct kunit_suite *next;
};

void kunit_shim_register(struct kunit_suite *s);
void kunit_shim_fail(struct kunit *test, const char *file, int line,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#define KUNIT_CASE(fn)			{ .run_case = fn, .name = #fn }
#define KUNIT_CASE_PARAM(fn, gen)	{ .run_case = fn, .name = #fn, \
					  .generate_params = gen }

#define KUNIT_ARRAY_PARAM(name, array, get_desc)			\
	static const void *name##_gen_params(const void *prev, char *desc) \
	{								\
		typeof((array)[0]) *__next = prev ?			\
			((typeof(__next))prev) + 1 : (array);		\
		if ((size_t)(__next - (array)) < ARRAY_SIZE(array)) {	\
			void (*__get_desc)(typeof(__next), char *) = get_desc; \
			if (__get_desc)					\
				__get_desc(__next, desc);		\
			return __next;					\
		}							\
		return NULL;						\
	}

#define kunit_test_suites(...)						\
	static struct kunit_suite *__shim_suites[] = { __VA_ARGS__ };	\
	__attribute__((constructor)) static void __shim_reg(void)	\
	{								\
		for (size_t i = 0; i < ARRAY_SIZE(__shim_suites); i++)	\
			kunit_shim_register(__shim_suites[i]);		\
	}

#define kunit_info(test, fmt, ...)	printf("    # " fmt, ##__VA_ARGS__)
/* The case ends here, reported "ok - ... # SKIP why" unless it failed. */
#define kunit_skip(test, fmt, ...)	do {				\
		(test)->skipped = 1;					\
		snprintf((test)->skip_why, sizeof((test)->skip_why),	\
			 fmt, ##__VA_ARGS__);				\
		longjmp((test)->abort, 1);				\
	} while (0)

#define __SHIM_CMP(test, a, op, b, abort_, fmt, ...) do {		\
		typeof(a) __a = (a);					\
		typeof(b) __b = (b);					\
		if (!(__a op __b)) {					\
			kunit_shim_fail(test, __FILE__, __LINE__,	\
				"Expected %s %s %s, but %s == %" PRId64	\
				" (0x%" PRIx64 "), %s == %" PRId64 " " fmt, \
				#a, #op, #b, #a, (int64_t)__a,		\
				(uint64_t)__a, #b, (int64_t)__b,	\
				##__VA_ARGS__);				\
			if (abort_)					\
				longjmp((test)->abort, 1);		\
		}							\
	} while (0)

#define KUNIT_EXPECT_EQ(t, a, b)	__SHIM_CMP(t, a, ==, b, 0, "")
#define KUNIT_EXPECT_NE(t, a, b)	__SHIM_CMP(t, a, !=, b, 0, "")
#define KUNIT_EXPECT_LT(t, a, b)	__SHIM_CMP(t, a, <, b, 0, "")
#define KUNIT_EXPECT_LE(t, a, b)	__SHIM_CMP(t, a, <=, b, 0, "")
#define KUNIT_EXPECT_GT(t, a, b)	__SHIM_CMP(t, a, >, b, 0, "")
#define KUNIT_EXPECT_GE(t, a, b)	__SHIM_CMP(t, a, >=, b, 0, "")
#define KUNIT_EXPECT_TRUE(t, c)		__SHIM_CMP(t, !!(c), ==, 1, 0, "")
#define KUNIT_EXPECT_FALSE(t, c)	__SHIM_CMP(t, !!(c), ==, 0, 0, "")
#define KUNIT_EXPECT_EQ_MSG(t, a, b, f, ...) \
	__SHIM_CMP(t, a, ==, b, 0, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_LE_MSG(t, a, b, f, ...) \
	__SHIM_CMP(t, a, <=, b, 0, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_GE_MSG(t, a, b, f, ...) \
	__SHIM_CMP(t, a, >=, b, 0, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_TRUE_MSG(t, c, f, ...) \
	__SHIM_CMP(t, !!(c), ==, 1, 0, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_EQ(t, a, b)	__SHIM_CMP(t, a, ==, b, 1, "")
#define KUNIT_ASSERT_TRUE(t, c)		__SHIM_CMP(t, !!(c), ==, 1, 1, "")
#define KUNIT_ASSERT_NOT_NULL(t, p)	__SHIM_CMP(t, !!(p), ==, 1, 1, "")
#define KUNIT_ASSERT_EQ_MSG(t, a, b, f, ...) \
	__SHIM_CMP(t, a, ==, b, 1, f, ##__VA_ARGS__)

/* Zeroed, and aligned as a filter's words must be (a cache line). */
static inline void *kunit_shim_alloc(struct kunit *test, size_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, size ? size : 1))
		return NULL;
	memset(p, 0, size);

	if (p && test->nallocs < (int)ARRAY_SIZE(test->allocs))
		test->allocs[test->nallocs++] = p;
	return p;
}

static inline unsigned long int_sqrt(unsigned long x)
{
	unsigned long r = 0, bit = 1UL << (sizeof(long) * 8 - 2);

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

#endif /* _KUNIT_SHIM_H */
