/*
 * Unit test: the reconnection schedule tries at once, then backs off
 * doubling to a ceiling, and gives up after the tries or the time allowed;
 * no tries means reconnection is off.
 */
#include "config.h"
#include <check.h>

#include "backoff.h"

START_TEST(schedule)
{
	static const int want[] = { 0, 100, 200, 400, 800, 1600, 2000, 2000 };
	unsigned i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_int_eq(rpcrdma_backoff_ms(i, 0, 100, 0), want[i]);
	ck_assert_int_eq(rpcrdma_backoff_ms(4000000000u, 0, 4000000001u, 0), 2000);
}
END_TEST

START_TEST(gives_up)
{
	/* Off. */
	ck_assert_int_eq(rpcrdma_backoff_ms(0, 0, 0, 0), -1);
	/* Tries. */
	ck_assert_int_eq(rpcrdma_backoff_ms(2, 0, 3, 0), 200);
	ck_assert_int_eq(rpcrdma_backoff_ms(3, 0, 3, 0), -1);
	/* Time: the next attempt would start after the limit. */
	ck_assert_int_eq(rpcrdma_backoff_ms(1, 900, 10, 1000), 100);
	ck_assert_int_eq(rpcrdma_backoff_ms(1, 901, 10, 1000), -1);
	ck_assert_int_eq(rpcrdma_backoff_ms(0, 5000, 10, 1000), -1);
	ck_assert_int_eq(rpcrdma_backoff_ms(0, 1000, 10, 1000), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("backoff");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, schedule);
	tcase_add_test(tc, gives_up);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
