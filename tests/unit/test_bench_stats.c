/*
 * Unit test: the bench's statistics over trials.  Medians, bootstrap
 * intervals of known samples (fixed seed: the same trials give the same
 * interval), the interval of a ratio, the tie rule and the verdicts.
 */
#include "config.h"
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "bench.h"

START_TEST(median_odd_even_empty)
{
	double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	ck_assert(bench_median(odd, 3) == 2);
	ck_assert(bench_median(even, 4) == 2.5);
	ck_assert(bench_median(one, 1) == 7);
	ck_assert(isnan(bench_median(odd, 0)));
	/* the caller's order is left alone */
	ck_assert(odd[0] == 3 && odd[1] == 1 && odd[2] == 2);
}
END_TEST

START_TEST(boot_constant_and_single)
{
	double same[] = { 5, 5, 5, 5, 5 }, one[] = { 42 }, lo = 0, hi = 0;

	ck_assert_int_eq(bench_boot_ci(same, 5, &lo, &hi), 0);
	ck_assert(lo == 5 && hi == 5);
	ck_assert_int_eq(bench_boot_ci(one, 1, &lo, &hi), 0);
	ck_assert(lo == 42 && hi == 42);
	ck_assert_int_eq(bench_boot_ci(one, 0, &lo, &hi), -1);
}
END_TEST

/*
 * Five trials: the median of a resample is the smallest trial with
 * probability 0.058 (three draws of five or more), above 2.5 %, so the
 * 95 % interval is the whole range, as the exact order-statistic
 * interval for n = 5 is.  Eleven trials narrow it.
 */
START_TEST(boot_known_samples)
{
	double five[] = { 3, 5, 1, 4, 2 }, lo, hi, lo2, hi2;
	double eleven[] = { 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	double bad[] = { 1, NAN, 3 };

	ck_assert_int_eq(bench_boot_ci(five, 5, &lo, &hi), 0);
	ck_assert_msg(lo == 1 && hi == 5, "[%g, %g]", lo, hi);
	/* the fixed seed: the same trials always give the same interval */
	ck_assert_int_eq(bench_boot_ci(five, 5, &lo2, &hi2), 0);
	ck_assert(lo == lo2 && hi == hi2);
	ck_assert_int_eq(bench_boot_ci(eleven, 11, &lo, &hi), 0);
	ck_assert_msg(lo > 10 && lo <= 14 && hi >= 16 && hi < 20 && lo < 15 &&
		      hi > 15, "[%g, %g]", lo, hi);
	ck_assert_int_eq(bench_boot_ci(bad, 3, &lo, &hi), -1);
}
END_TEST

START_TEST(ratio_interval)
{
	double a[] = { 200, 200, 200 }, b[] = { 100, 100, 100 };
	double near_a[] = { 98, 99, 100, 101, 102 };
	double near_b[] = { 99, 100, 101, 100, 99 };
	double slow[] = { 60, 62, 61, 63, 59 }, zero[] = { 0 };
	double r, lo, hi;

	ck_assert_int_eq(bench_boot_ratio_ci(a, 3, b, 3, &r, &lo, &hi), 0);
	ck_assert(r == 2 && lo == 2 && hi == 2);
	/* 100 / 100 with both spread around it: the interval holds 1 */
	ck_assert_int_eq(bench_boot_ratio_ci(near_a, 5, near_b, 5, &r, &lo, &hi), 0);
	ck_assert(r == 1);
	ck_assert_msg(lo < 1 && hi > 1, "[%g, %g]", lo, hi);
	ck_assert_int_eq(bench_ratio_verdict(lo, hi, 0), 0);
	/* 61 / 100: clearly below */
	ck_assert_int_eq(bench_boot_ratio_ci(slow, 5, near_b, 5, &r, &lo, &hi), 0);
	ck_assert_msg(fabs(r - 0.61) < 1e-12 && hi < 1 && lo <= r && r <= hi,
		      "%g [%g, %g]", r, lo, hi);
	ck_assert_int_eq(bench_ratio_verdict(lo, hi, 0), -1);
	ck_assert_int_eq(bench_boot_ratio_ci(a, 3, zero, 1, &r, &lo, &hi), -1);
}
END_TEST

START_TEST(verdict_margin)
{
	ck_assert_int_eq(bench_ratio_verdict(1.01, 1.05, 0), 1);
	ck_assert_int_eq(bench_ratio_verdict(0.90, 0.99, 0), -1);
	ck_assert_int_eq(bench_ratio_verdict(0.98, 1.02, 0), 0);
	/* within 3 %: 0.975 is not below 0.97 */
	ck_assert_int_eq(bench_ratio_verdict(0.975, 0.99, 0.03), 0);
	ck_assert_int_eq(bench_ratio_verdict(0.90, 0.96, 0.03), -1);
}
END_TEST

START_TEST(tie_rule)
{
	double med[] = { 100, 90, 50 }, lo[] = { 95, 80, 45 }, hi[] = { 105, 94, 55 };
	unsigned tied = 99;

	/* 95 clears 94 and 55: a winner, no tie */
	ck_assert_int_eq(bench_pick_winner(med, lo, hi, 3, &tied), 0);
	ck_assert_uint_eq(tied, 0);
	/* the runner-up reaches the leader's interval: tie of the two */
	hi[1] = 96;
	ck_assert_int_eq(bench_pick_winner(med, lo, hi, 3, &tied), -1);
	ck_assert_uint_eq(tied, 3);
	/* all three overlap */
	hi[2] = 95;
	ck_assert_int_eq(bench_pick_winner(med, lo, hi, 3, &tied), -1);
	ck_assert_uint_eq(tied, 7);
	/* the third one overlaps but not the second: still a tie, 0 and 2 */
	hi[1] = 94;
	ck_assert_int_eq(bench_pick_winner(med, lo, hi, 3, &tied), -1);
	ck_assert_uint_eq(tied, 5);
}
END_TEST

START_TEST(tie_points_and_missing)
{
	double med[] = { 100, 100, NAN }, lo[] = { 100, 100, NAN },
	       hi[] = { 100, 100, NAN };
	unsigned tied;

	/* one trial each: equal points tie, a higher point wins */
	ck_assert_int_eq(bench_pick_winner(med, lo, hi, 3, &tied), -1);
	ck_assert_uint_eq(tied, 3);
	med[1] = lo[1] = hi[1] = 99;
	ck_assert_int_eq(bench_pick_winner(med, lo, hi, 3, &tied), 0);
	ck_assert_uint_eq(tied, 0);
	/* nobody ran */
	med[0] = med[1] = NAN;
	ck_assert_int_eq(bench_pick_winner(med, lo, hi, 3, &tied), -1);
	ck_assert_uint_eq(tied, 0);
	/* only one ran: it wins */
	med[2] = lo[2] = hi[2] = 5;
	ck_assert_int_eq(bench_pick_winner(med, lo, hi, 3, &tied), 2);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("bench_stats");
	TCase *tc = tcase_create("stats");

	tcase_add_test(tc, median_odd_even_empty);
	tcase_add_test(tc, boot_constant_and_single);
	tcase_add_test(tc, boot_known_samples);
	tcase_add_test(tc, ratio_interval);
	tcase_add_test(tc, verdict_margin);
	tcase_add_test(tc, tie_rule);
	tcase_add_test(tc, tie_points_and_missing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
