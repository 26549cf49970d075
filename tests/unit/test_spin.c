/*
 * Unit test: adaptive busy polling (spin.c): the floor before anything is
 * learned, following the waits that hit, lengthening after misses (a lull
 * barely), bounded by busy_poll_us, a bound at the floor spun whole,
 * stopping while completions come later, and probing.
 */
#include "config.h"
#include <check.h>
#include <string.h>

#include "spin.h"

START_TEST(fresh_floor)
{
	struct rpcrdma_spin sp;

	memset(&sp, 0, sizeof(sp));
	ck_assert_uint_eq(rpcrdma_spin_budget(&sp, 2000), RPCRDMA_SPIN_FLOOR_US);
	/* busy_poll_us below the floor is the whole spin; 0 never spins. */
	ck_assert_uint_eq(rpcrdma_spin_budget(&sp, 100), 100);
	ck_assert_uint_eq(rpcrdma_spin_budget(&sp, 0), 0);
}
END_TEST

/* Completions that come after 400 us: the spin settles near twice that. */
START_TEST(follows_hits)
{
	struct rpcrdma_spin sp;
	uint32_t b = 0;

	memset(&sp, 0, sizeof(sp));
	for (int i = 0; i < 40; i++)
		rpcrdma_spin_hit(&sp, 400);
	b = rpcrdma_spin_budget(&sp, 2000);
	ck_assert_uint_ge(b, 800);
	ck_assert_uint_le(b, 900);
	/* Never more than busy_poll_us, even when that is lowered live. */
	ck_assert_uint_eq(rpcrdma_spin_budget(&sp, 500), 500);
	/* Faster again: back down to the floor, not below it. */
	for (int i = 0; i < 40; i++)
		rpcrdma_spin_hit(&sp, 10);
	ck_assert_uint_eq(rpcrdma_spin_budget(&sp, 2000), RPCRDMA_SPIN_FLOOR_US);
}
END_TEST

/* Spins that keep running out lengthen the next ones, up to the cap. */
START_TEST(misses_lengthen)
{
	struct rpcrdma_spin sp;
	uint32_t b = 0, last = 0;

	memset(&sp, 0, sizeof(sp));
	for (int i = 0; i < 60; i++) {
		b = rpcrdma_spin_budget(&sp, 2000);
		ck_assert_uint_ge(b, last);
		last = b;
		rpcrdma_spin_miss(&sp, b, 4000);	/* the cap is not reached */
	}
	ck_assert_uint_eq(b, 2000);
}
END_TEST

/* One lull among quick completions (depth) barely lengthens the spin. */
START_TEST(lull_barely_counts)
{
	struct rpcrdma_spin sp;

	memset(&sp, 0, sizeof(sp));
	for (int i = 0; i < 20; i++)
		rpcrdma_spin_hit(&sp, 50);
	rpcrdma_spin_miss(&sp, rpcrdma_spin_budget(&sp, 2000), 2000);
	ck_assert_uint_lt(rpcrdma_spin_budget(&sp, 2000), 400);
}
END_TEST

/* A bound at or below the floor is spun whole: nothing is learned. */
START_TEST(floor_cap_is_fixed)
{
	struct rpcrdma_spin sp;

	memset(&sp, 0, sizeof(sp));
	for (int i = 0; i < 10; i++)
		rpcrdma_spin_miss(&sp, 300, 300);
	ck_assert_uint_eq(rpcrdma_spin_budget(&sp, 300), 300);
	ck_assert_uint_eq(sp.sp_over, 0);
	for (int i = 0; i < 10; i++)
		rpcrdma_spin_hit(&sp, 5);
	ck_assert_uint_eq(rpcrdma_spin_budget(&sp, 300), 300);
	ck_assert_uint_eq(rpcrdma_spin_budget(&sp, 50), 50);
}
END_TEST

/* Misses at the cap stop spinning; one wait in RPCRDMA_SPIN_PROBE probes
 * at the cap, and a probe that hits brings spinning back. */
START_TEST(gives_up_and_probes)
{
	struct rpcrdma_spin sp;
	int spun = 0, i;

	memset(&sp, 0, sizeof(sp));
	for (i = 0; i < RPCRDMA_SPIN_GIVE_UP; i++)
		rpcrdma_spin_miss(&sp, 1000, 1000);
	for (i = 0; i < 4 * RPCRDMA_SPIN_PROBE; i++) {
		uint32_t b = rpcrdma_spin_budget(&sp, 1000);

		ck_assert(b == 0 || b == 1000);
		if (b) {
			spun++;
			rpcrdma_spin_miss(&sp, b, 1000);
		}
	}
	ck_assert_int_eq(spun, 4);
	/* The next probe comes back early: spinning resumes at once. */
	while (!rpcrdma_spin_budget(&sp, 1000))
		;
	rpcrdma_spin_hit(&sp, 200);
	ck_assert_uint_gt(rpcrdma_spin_budget(&sp, 1000), 0);
	ck_assert_uint_gt(rpcrdma_spin_budget(&sp, 1000), 0);
}
END_TEST

/* Misses below the cap never stop spinning; they lengthen it. */
START_TEST(miss_below_cap_keeps_spinning)
{
	struct rpcrdma_spin sp;
	uint32_t b;

	memset(&sp, 0, sizeof(sp));
	for (int i = 0; i < 10; i++)
		rpcrdma_spin_miss(&sp, 300, 2000);
	b = rpcrdma_spin_budget(&sp, 2000);
	ck_assert_uint_ge(b, 550);
	ck_assert_uint_le(b, 650);
	ck_assert_uint_eq(sp.sp_over, 0);
}
END_TEST

/* A lone call's bound is the larger one; at depth, busy_poll_us's. */
START_TEST(lone_call_bound)
{
	ck_assert_uint_eq(rpcrdma_spin_bound(300, 3000, 1), 3000);
	ck_assert_uint_eq(rpcrdma_spin_bound(300, 3000, 0), 3000);
	ck_assert_uint_eq(rpcrdma_spin_bound(300, 3000, 2), 300);
	ck_assert_uint_eq(rpcrdma_spin_bound(300, 3000, 32), 300);
	/* 0, or less than busy_poll_us, changes nothing. */
	ck_assert_uint_eq(rpcrdma_spin_bound(300, 0, 1), 300);
	ck_assert_uint_eq(rpcrdma_spin_bound(2000, 1000, 1), 2000);
	ck_assert_uint_eq(rpcrdma_spin_bound(0, 0, 1), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spin");
	TCase *tc = tcase_create("budget");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, fresh_floor);
	tcase_add_test(tc, follows_hits);
	tcase_add_test(tc, misses_lengthen);
	tcase_add_test(tc, lull_barely_counts);
	tcase_add_test(tc, floor_cap_is_fixed);
	tcase_add_test(tc, gives_up_and_probes);
	tcase_add_test(tc, miss_below_cap_keeps_spinning);
	tcase_add_test(tc, lone_call_bound);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
