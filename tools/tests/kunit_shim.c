// SPDX-License-Identifier: GPL-2.0
/* Runs every registered suite; prints "ok - unit SUITE.CASE" lines. */
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

/* One run of a case (one parameter); returns 1 if it failed. */
static int run_one(struct kunit_case *tc, const void *param)
{
	struct kunit test = { .name = tc->name, .param_value = param };

	if (!setjmp(test.abort))
		tc->run_case(&test);
	release(&test);
	return test.failed;
}

static int run_case(const char *suite, struct kunit_case *tc,
		    const char *filter)
{
	char desc[KUNIT_PARAM_DESC_SIZE];
	const void *param = NULL;
	int failed = 0;

	if (filter && !strstr(tc->name, filter))
		return 0;
	if (!tc->generate_params) {
		failed = run_one(tc, NULL);
	} else {
		while ((param = tc->generate_params(param, desc))) {
			int f = run_one(tc, param);

			if (f)
				printf("    # param failed: %s\n", desc);
			failed |= f;
		}
	}
	printf("%sok - unit %s.%s\n", failed ? "not " : "", suite, tc->name);
	fflush(stdout);
	return failed;
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	struct kunit_suite *s;
	int failed = 0;

	for (s = suites; s; s = s->next) {
		struct kunit_case *tc;

		for (tc = s->test_cases; tc->run_case; tc++)
			failed |= run_case(s->name, tc, filter);
	}
	return failed;
}
