// SPDX-License-Identifier: GPL-2.0
/*
 * Runs every registered suite; prints "ok - unit SUITE.CASE" lines, "not
 * ok - ..." for a failed case and "ok - unit SUITE.CASE # SKIP why" for a
 * skipped one (a parameterised case: when every parameter skipped).
 */
#include <stdarg.h>
#include "../../module/core/bloom_port.h"
#include "kunit_shim.h"

static struct kunit_suite *suites;

void kunit_shim_register(struct kunit_suite *s)
{
	struct kunit_suite **p = &suites;

	while (*p)
		p = &(*p)->next;
	*p = s;
}

void kunit_shim_fail(struct kunit *test, const char *file, int line,
		     const char *fmt, ...)
{
	va_list ap;

	test->failed = 1;
	printf("    # %s: EXPECTATION FAILED at %s:%d\n    # ", test->name,
	       file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void release(struct kunit *test)
{
	while (test->nallocs)
		free(test->allocs[--test->nallocs]);
}

enum { PASSED, FAILED, SKIPPED };

/* One run of a case (one parameter); a skip's reason goes to @why. */
static int run_one(struct kunit_case *tc, const void *param, char *why,
		   size_t len)
{
	struct kunit test = { .name = tc->name, .param_value = param };

	if (!setjmp(test.abort))
		tc->run_case(&test);
	release(&test);
	if (test.failed)
		return FAILED;
	if (!test.skipped)
		return PASSED;
	snprintf(why, len, "%s", test.skip_why);
	return SKIPPED;
}

/* Is SUITE.CASE (as the TAP line names it) selected by @filter? */
static bool selected(const char *suite, const struct kunit_case *tc,
		     const char *filter)
{
	char name[256];

	if (!filter)
		return true;
	snprintf(name, sizeof(name), "%s.%s", suite, tc->name);
	return strstr(name, filter);
}

static int run_case(const char *suite, struct kunit_case *tc)
{
	char desc[KUNIT_PARAM_DESC_SIZE], why[128] = "";
	const void *param = NULL;
	int failed = 0, passed = 0, skipped = 0;

	if (!tc->generate_params) {
		int r = run_one(tc, NULL, why, sizeof(why));

		failed = r == FAILED;
		skipped = r == SKIPPED;
	} else {
		while ((param = tc->generate_params(param, desc))) {
			int r = run_one(tc, param, why, sizeof(why));

			if (r == FAILED)
				printf("    # param failed: %s\n", desc);
			else if (r == SKIPPED)
				printf("    # param skipped: %s: %s\n", desc, why);
			failed |= r == FAILED;
			passed |= r == PASSED;
			skipped |= r == SKIPPED;
		}
	}
	if (failed)
		printf("not ok - unit %s.%s\n", suite, tc->name);
	else if (skipped && !passed)
		printf("ok - unit %s.%s # SKIP %s\n", suite, tc->name, why);
	else
		printf("ok - unit %s.%s\n", suite, tc->name);
	fflush(stdout);
	return failed;
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	struct kunit_suite *s;
	int failed = 0, ran = 0;

	for (s = suites; s; s = s->next) {
		struct kunit_case *tc;

		for (tc = s->test_cases; tc->run_case; tc++) {
			if (!selected(s->name, tc, filter))
				continue;
			failed |= run_case(s->name, tc);
			ran++;
		}
	}
	/* A filter that names nothing (a typo, a renamed case) is no pass. */
	if (!ran) {
		fprintf(stderr, "unit-tests: no test case matches '%s' (SUITE.CASE, any part)\n",
			filter ? filter : "");
		return 2;
	}
	return failed;
}
