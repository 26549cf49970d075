/*
 * Unit test: one-sleeper wake-ups (wake.c): a wake posted before the
 * wait is not lost, a wait ends at its deadline with the lock dropped, a
 * sleeping thread is woken, repeated wakes stay one, and a reset forgets
 * them.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "wake.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void in_ms(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_nsec += ms * 1000000L;
	ts->tv_sec += ts->tv_nsec / 1000000000L;
	ts->tv_nsec %= 1000000000L;
}

/* The lock was dropped and not taken back: trylock succeeds (and holds). */
static void assert_dropped(void)
{
	ck_assert_int_eq(pthread_mutex_trylock(&lock), 0);
}

/* One sleep of at most @ms ends with @want, the lock left dropped. */
static void sleep_ends(struct rpcrdma_wake *wk, long ms, int want)
{
	struct timespec dl;

	pthread_mutex_lock(&lock);
	in_ms(&dl, ms);
	ck_assert_int_eq(rpcrdma_wake_sleep(wk, &lock, &dl), want);
	assert_dropped();
	pthread_mutex_unlock(&lock);
}

START_TEST(posted_first)
{
	struct rpcrdma_wake wk;

	ck_assert_int_eq(rpcrdma_wake_init(&wk), 0);
	rpcrdma_wake_post(&wk);
	sleep_ends(&wk, 5000, 0);
	/* Consumed: the next wait times out. */
	sleep_ends(&wk, 20, -ETIMEDOUT);
	rpcrdma_wake_fini(&wk);
}
END_TEST

START_TEST(deadline)
{
	struct rpcrdma_wake wk;
	struct timespec dl, now;

	ck_assert_int_eq(rpcrdma_wake_init(&wk), 0);
	pthread_mutex_lock(&lock);
	in_ms(&dl, 50);
	ck_assert_int_eq(rpcrdma_wake_sleep(&wk, &lock, &dl), -ETIMEDOUT);
	assert_dropped();
	clock_gettime(CLOCK_MONOTONIC, &now);
	ck_assert(now.tv_sec > dl.tv_sec ||
		  (now.tv_sec == dl.tv_sec && now.tv_nsec >= dl.tv_nsec));
	pthread_mutex_unlock(&lock);
	rpcrdma_wake_fini(&wk);
}
END_TEST

struct sleeper {
	struct rpcrdma_wake wk;
	int asleep;		/* under lock: about to wait */
	int done;		/* under lock: what it waits for */
	int rc;
};

static void *sleep_main(void *arg)
{
	struct sleeper *s = arg;
	struct timespec dl;

	in_ms(&dl, 10000);
	pthread_mutex_lock(&lock);
	s->asleep = 1;
	while (!s->done && !s->rc) {
		s->rc = rpcrdma_wake_sleep(&s->wk, &lock, &dl);
		pthread_mutex_lock(&lock);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* A thread asleep (or about to be: the lock is dropped first) wakes. */
START_TEST(wakes_sleeper)
{
	struct sleeper s = { .asleep = 0 };
	pthread_t t;
	int asleep = 0;

	ck_assert_int_eq(rpcrdma_wake_init(&s.wk), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, sleep_main, &s), 0);
	while (!asleep) {
		pthread_mutex_lock(&lock);
		asleep = s.asleep;
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	s.done = 1;
	pthread_mutex_unlock(&lock);
	rpcrdma_wake_post(&s.wk);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(s.rc, 0);
	rpcrdma_wake_fini(&s.wk);
}
END_TEST

/* Wakes beyond one pending are dropped; a reset drops that one too. */
START_TEST(repeats_and_reset)
{
	struct rpcrdma_wake wk;
	int n;

	ck_assert_int_eq(rpcrdma_wake_init(&wk), 0);
	rpcrdma_wake_post(&wk);
	rpcrdma_wake_post(&wk);
	rpcrdma_wake_post(&wk);
	ck_assert_int_eq(sem_getvalue(&wk.wk_sem, &n), 0);
	ck_assert_int_eq(n, 1);
	rpcrdma_wake_reset(&wk);
	sleep_ends(&wk, 20, -ETIMEDOUT);
	rpcrdma_wake_fini(&wk);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wake");
	TCase *tc = tcase_create("wake");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, posted_first);
	tcase_add_test(tc, deadline);
	tcase_add_test(tc, wakes_sleeper);
	tcase_add_test(tc, repeats_and_reset);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
