/*
 * Unit test: the asynchronous call API's boundary, without a device:
 * a handle that is not an RDMA CLIENT, or bad arguments, are refused
 * with EINVAL and no callback ever runs.  The calls themselves run on
 * real verbs (tests/rdma/async-cases.sh).
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <rpcrdma/rpcrdma.h>

#define XDR_VOID ((xdrproc_t)(void (*)(void))xdr_void)

static int callbacks;

static void done(CLIENT *cl, enum clnt_stat st, void *arg)
{
	(void)cl;
	(void)st;
	(void)arg;
	callbacks++;
}

static void assert_einval(int rc)
{
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(errno, EINVAL);
}

START_TEST(not_rdma)
{
	struct timeval tmo = { 1, 0 };
	CLIENT *raw = clnt_raw_create(0x20049001, 1);

	ck_assert_ptr_nonnull(raw);
	errno = 0;
	assert_einval(clnt_rdma_call_async(NULL, 0, XDR_VOID, NULL, XDR_VOID,
					   NULL, tmo, done, NULL));
	errno = 0;
	assert_einval(clnt_rdma_call_async(raw, 0, XDR_VOID, NULL, XDR_VOID,
					   NULL, tmo, done, NULL));
	errno = 0;
	assert_einval(clnt_rdma_progress(NULL, 0));
	errno = 0;
	assert_einval(clnt_rdma_progress(raw, -1));
	errno = 0;
	assert_einval(clnt_rdma_progress_fd(raw));
	errno = 0;
	assert_einval(clnt_rdma_progress_thread(raw));
	ck_assert_int_eq(callbacks, 0);
	clnt_destroy(raw);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("async_api");
	TCase *tc = tcase_create("boundary");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, not_rdma);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
