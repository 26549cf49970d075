/*
 * Unit test: deferred releases come out in posting order, only once their
 * Send has completed, every one exactly once (teardown takes the rest),
 * and a full queue refuses instead of growing; the newest entry's Send is
 * known (what a reclaim waits for).
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "release.h"

static int ran[16];

static void fn(void *arg, int status)
{
	ran[(intptr_t)arg] += status ? 100 : 1;
}

START_TEST(due_in_order)
{
	struct rpcrdma_relq q;
	struct rpcrdma_release r;
	intptr_t i;

	ck_assert_int_eq(rpcrdma_relq_init(&q, 4), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(rpcrdma_relq_push(&q, (uint64_t)(10 + i), fn,
						   (void *)i), 0);
	/* Nothing has completed up to seq 10 yet. */
	ck_assert(!rpcrdma_relq_pop_due(&q, 9, &r));
	ck_assert(rpcrdma_relq_pop_due(&q, 11, &r));
	ck_assert_uint_eq(r.rl_seq, 10);
	ck_assert_ptr_eq(r.rl_arg, (void *)0);
	ck_assert(rpcrdma_relq_pop_due(&q, 11, &r));
	ck_assert_uint_eq(r.rl_seq, 11);
	ck_assert(!rpcrdma_relq_pop_due(&q, 11, &r));
	ck_assert(rpcrdma_relq_pop_due(&q, 1000, &r));
	ck_assert_uint_eq(r.rl_seq, 12);
	ck_assert(!rpcrdma_relq_pop_due(&q, 1000, &r));
	rpcrdma_relq_fini(&q);
}
END_TEST

START_TEST(full_refuses)
{
	struct rpcrdma_relq q;
	struct rpcrdma_release r;

	ck_assert_int_eq(rpcrdma_relq_init(&q, 2), 0);
	ck_assert_int_eq(rpcrdma_relq_push(&q, 1, fn, NULL), 0);
	ck_assert_int_eq(rpcrdma_relq_push(&q, 2, fn, NULL), 0);
	ck_assert_int_eq(rpcrdma_relq_push(&q, 3, fn, NULL), -ENOSPC);
	ck_assert(rpcrdma_relq_pop_due(&q, 1, &r));
	ck_assert_int_eq(rpcrdma_relq_push(&q, 3, fn, NULL), 0);
	rpcrdma_relq_fini(&q);
}
END_TEST

/* Many laps around a small ring: every entry once, seqs in order. */
START_TEST(wraps)
{
	struct rpcrdma_relq q;
	struct rpcrdma_release r;
	uint64_t seq = 0, next = 1;
	int lap;

	ck_assert_int_eq(rpcrdma_relq_init(&q, 3), 0);
	ck_assert_uint_eq(rpcrdma_relq_last_seq(&q), 0);
	for (lap = 0; lap < 100; lap++) {
		while (rpcrdma_relq_push(&q, ++seq, fn, NULL) == 0)
			;
		seq--;			/* the refused one was not queued */
		/* The newest entry, wherever the ring has wrapped to. */
		ck_assert_uint_eq(rpcrdma_relq_last_seq(&q), seq);
		while (rpcrdma_relq_pop_due(&q, seq - 1, &r))
			ck_assert_uint_eq(r.rl_seq, next++);
		ck_assert_uint_eq(q.rlq_len, 1);
	}
	ck_assert(rpcrdma_relq_pop(&q, &r));
	ck_assert_uint_eq(r.rl_seq, next);
	ck_assert(!rpcrdma_relq_pop(&q, &r));
	rpcrdma_relq_fini(&q);
}
END_TEST

/* Teardown: pop takes entries whose Send never completed. */
START_TEST(teardown_takes_all)
{
	struct rpcrdma_relq q;
	struct rpcrdma_release r;
	intptr_t i;
	int n = 0;

	for (i = 0; i < 16; i++)
		ran[i] = 0;
	ck_assert_int_eq(rpcrdma_relq_init(&q, 8), 0);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(rpcrdma_relq_push(&q, (uint64_t)(i + 1), fn,
						   (void *)i), 0);
	while (rpcrdma_relq_pop_due(&q, 2, &r)) {
		r.rl_fn(r.rl_arg, 0);
		n++;
	}
	ck_assert_int_eq(n, 2);
	while (rpcrdma_relq_pop(&q, &r))
		r.rl_fn(r.rl_arg, ECONNRESET);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(ran[i], i < 2 ? 1 : 100);
	ck_assert_uint_eq(q.rlq_len, 0);
	rpcrdma_relq_fini(&q);
}
END_TEST

START_TEST(zero_capacity)
{
	struct rpcrdma_relq q;

	ck_assert_int_eq(rpcrdma_relq_init(&q, 0), 0);
	ck_assert_int_eq(rpcrdma_relq_push(&q, 1, fn, NULL), -ENOSPC);
	rpcrdma_relq_fini(&q);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("release");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, due_in_order);
	tcase_add_test(tc, full_refuses);
	tcase_add_test(tc, wraps);
	tcase_add_test(tc, teardown_takes_all);
	tcase_add_test(tc, zero_capacity);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
