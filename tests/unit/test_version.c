/*
 * Unit test: the library reports the version the build was configured with,
 * in MAJOR.MINOR.PATCH form.
 */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <rpcrdma/rpcrdma.h>

START_TEST(version_matches_package)
{
	ck_assert_str_eq(rpcrdma_version(), PACKAGE_VERSION);
}
END_TEST

START_TEST(version_has_three_numbers)
{
	unsigned a, b, c;
	char tail;

	ck_assert_int_eq(sscanf(rpcrdma_version(), "%u.%u.%u%c", &a, &b, &c,
				&tail), 3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("version");
	TCase *tc = tcase_create("reports_version");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, version_matches_package);
	tcase_add_test(tc, version_has_three_numbers);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
