/*
 * Unit test: the verbs thread and the verbs layer's result conversion.
 * A routed call runs on another thread, one started once, and its errno
 * comes back; rpcrdma_thread_own_creds() marks only its caller; a provider's
 * -1 keeps its errno (siw), a positive errno turns negative, and a kernel
 * refusal (EACCES) is recorded.
 */
#define _GNU_SOURCE
#include "config.h"
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <rpcrdma/rpcrdma.h>

#include "verbs_thread.h"

static pid_t ran_on;

static void where(void *arg)
{
	ran_on = (pid_t)syscall(SYS_gettid);
	errno = *(int *)arg;
}

START_TEST(routed_runs_elsewhere)
{
	pid_t first;
	int e = EACCES;

	ck_assert_int_eq(rpcrdma_vt_start(), 0);
	errno = 0;
	rpcrdma_vt_run(where, &e);
	ck_assert_int_eq(errno, EACCES);
	ck_assert_int_ne(ran_on, (pid_t)syscall(SYS_gettid));
	first = ran_on;
	e = 0;
	rpcrdma_vt_run(where, &e);
	ck_assert_int_eq(ran_on, first);	/* one thread, started once */
	ck_assert_int_eq(rpcrdma_vt_start(), 0);
}
END_TEST

static void *marked(void *arg)
{
	(void)arg;
	return (void *)(long)(rpcrdma_thread_own_creds() == 0 && rpcrdma_vt_marked);
}

START_TEST(mark_is_per_thread)
{
	pthread_t t;
	void *r;

	rpcrdma_vt_marked = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, marked, NULL), 0);
	ck_assert_int_eq(pthread_join(t, &r), 0);
	ck_assert_ptr_eq(r, (void *)1L);
	ck_assert_int_eq(rpcrdma_vt_marked, 0);
	ck_assert_int_eq(rpcrdma_thread_own_creds(), 0);
	ck_assert_int_eq(rpcrdma_vt_marked, 1);
	rpcrdma_vt_marked = 0;
}
END_TEST

START_TEST(result_conversion)
{
	ck_assert_int_eq(rpcrdma_vt_rc(0), 0);
	ck_assert_int_eq(rpcrdma_vt_rc(ENOMEM), -ENOMEM);	/* positive errno */
	ck_assert_int_eq(rpcrdma_vt_rc(-EINVAL), -EINVAL);	/* negative errno */
	errno = ENOSPC;
	ck_assert_int_eq(rpcrdma_vt_rc(-1), -ENOSPC);		/* -1, errno set */
	errno = 0;
	ck_assert_int_eq(rpcrdma_vt_rc(-1), -EIO);		/* -1, errno lost */
	ck_assert_int_eq(rpcrdma_vt_creds_refused(), 0);
	errno = EACCES;
	ck_assert_int_eq(rpcrdma_vt_rc(-1), -EACCES);
	ck_assert_int_eq(rpcrdma_vt_creds_refused(), 1);
	ck_assert_int_eq(rpcrdma_vt_rc(EACCES), -EACCES);	/* logged once */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verbs_thread");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, routed_runs_elsewhere);
	tcase_add_test(tc, mark_is_per_thread);
	tcase_add_test(tc, result_conversion);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
