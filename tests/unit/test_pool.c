/*
 * Unit test: the chunk pool's allocator hands out disjoint first-fit runs
 * of whole units, refuses what does not fit without partial effects, and
 * takes back whole or trimmed runs for reuse.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "pool.h"

#define U 4096u

START_TEST(takes_whole_units_first_fit)
{
	struct rpcrdma_pool p;
	size_t a, b, c;

	ck_assert_int_eq(rpcrdma_pool_init(&p, 10 * U + 100, U), 0);
	ck_assert_uint_eq(p.bm_nunits, 10);	/* the tail is never used */
	ck_assert_int_eq(rpcrdma_pool_take(&p, 1, &a), 0);
	ck_assert_uint_eq(a, 0);
	ck_assert_int_eq(rpcrdma_pool_take(&p, U + 1, &b), 0);
	ck_assert_uint_eq(b, U);		/* two units, after a */
	ck_assert_int_eq(rpcrdma_pool_take(&p, 3 * U, &c), 0);
	ck_assert_uint_eq(c, 3 * U);
	ck_assert_uint_eq(p.bm_used, 6);
	rpcrdma_pool_give(&p, b, U + 1);
	/* One unit fits the hole b left; four do not, they go after c. */
	ck_assert_int_eq(rpcrdma_pool_take(&p, 4 * U, &b), 0);
	ck_assert_uint_eq(b, 6 * U);
	ck_assert_int_eq(rpcrdma_pool_take(&p, U, &a), 0);
	ck_assert_uint_eq(a, U);
	rpcrdma_pool_fini(&p);
}
END_TEST

START_TEST(refuses_what_does_not_fit)
{
	struct rpcrdma_pool p;
	size_t a, b;

	ck_assert_int_eq(rpcrdma_pool_init(&p, 4 * U, U), 0);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 0, &a), -ENOSPC);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 4 * U + 1, &a), -ENOSPC);
	ck_assert_int_eq(rpcrdma_pool_take(&p, U, &a), 0);
	ck_assert_int_eq(rpcrdma_pool_take(&p, U, &b), 0);
	rpcrdma_pool_give(&p, a, U);
	/* Two units free, but not together: no run of two. */
	ck_assert_int_eq(rpcrdma_pool_take(&p, U, &a), 0);
	ck_assert_uint_eq(a, 0);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 3 * U, &a), -ENOSPC);
	ck_assert_uint_eq(p.bm_used, 2);	/* nothing taken by the refusal */
	ck_assert_int_eq(rpcrdma_pool_take(&p, 2 * U, &a), 0);
	ck_assert_uint_eq(a, 2 * U);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 1, &a), -ENOSPC);
	rpcrdma_pool_fini(&p);
}
END_TEST

START_TEST(fragmented_then_whole_again)
{
	struct rpcrdma_pool p;
	size_t off[8], big;
	int i;

	ck_assert_int_eq(rpcrdma_pool_init(&p, 8 * U, U), 0);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(rpcrdma_pool_take(&p, U, &off[i]), 0);
		ck_assert_uint_eq(off[i], (size_t)i * U);
	}
	for (i = 0; i < 8; i += 2)
		rpcrdma_pool_give(&p, off[i], U);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 2 * U, &big), -ENOSPC);
	for (i = 1; i < 8; i += 2)
		rpcrdma_pool_give(&p, off[i], U);
	ck_assert_uint_eq(p.bm_used, 0);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 8 * U, &big), 0);
	ck_assert_uint_eq(big, 0);
	rpcrdma_pool_fini(&p);
}
END_TEST

START_TEST(trim_gives_back_the_tail)
{
	struct rpcrdma_pool p;
	size_t a, b;

	ck_assert_int_eq(rpcrdma_pool_init(&p, 8 * U, U), 0);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 6 * U, &a), 0);
	rpcrdma_pool_trim(&p, a, 6 * U, U + 1);	/* keeps two units */
	ck_assert_uint_eq(p.bm_used, 2);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 6 * U, &b), 0);
	ck_assert_uint_eq(b, 2 * U);
	/* The trimmed run gives back exactly what it kept. */
	rpcrdma_pool_give(&p, a, U + 1);
	ck_assert_uint_eq(p.bm_used, 6);
	rpcrdma_pool_trim(&p, b, 6 * U, 6 * U);	/* keeps everything */
	ck_assert_uint_eq(p.bm_used, 6);
	rpcrdma_pool_give(&p, b, 6 * U);
	ck_assert_uint_eq(p.bm_used, 0);
	rpcrdma_pool_fini(&p);
}
END_TEST

START_TEST(empty_and_bad_regions)
{
	struct rpcrdma_pool p;
	size_t a;

	ck_assert_int_eq(rpcrdma_pool_init(&p, U - 1, U), 0);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 1, &a), -ENOSPC);
	rpcrdma_pool_fini(&p);
	ck_assert_int_eq(rpcrdma_pool_init(&p, 0, U), 0);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 1, &a), -ENOSPC);
	rpcrdma_pool_fini(&p);
	ck_assert_int_eq(rpcrdma_pool_init(&p, 8 * U, 0), -EINVAL);
}
END_TEST

/* Many units: the bitmap spans several words, runs cross them. */
START_TEST(runs_cross_words)
{
	struct rpcrdma_pool p;
	size_t a, b, c;

	ck_assert_int_eq(rpcrdma_pool_init(&p, 200 * U, U), 0);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 60 * U, &a), 0);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 10 * U, &b), 0);
	ck_assert_uint_eq(b, 60 * U);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 130 * U, &c), 0);
	ck_assert_uint_eq(c, 70 * U);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 1, &c), -ENOSPC);
	rpcrdma_pool_give(&p, b, 10 * U);
	ck_assert_int_eq(rpcrdma_pool_take(&p, 10 * U, &c), 0);
	ck_assert_uint_eq(c, 60 * U);
	rpcrdma_pool_fini(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pool");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, takes_whole_units_first_fit);
	tcase_add_test(tc, refuses_what_does_not_fit);
	tcase_add_test(tc, fragmented_then_whole_again);
	tcase_add_test(tc, trim_gives_back_the_tail);
	tcase_add_test(tc, empty_and_bad_regions);
	tcase_add_test(tc, runs_cross_words);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
