/*
 * Unit test: a bad configuration, variable or option field makes
 * clnt_rdma_create() and svc_rdma_create() fail with rpc_createerr
 * (RPC_SYSTEMERROR, EINVAL) and a file:line message, before any RDMA
 * resource is touched, so no device is needed.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rpcrdma/rpcrdma.h>

static char conf[64], errfile[64];
static int saved_stderr = -1;

static void write_conf(const char *text)
{
	FILE *f = fopen(conf, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	setenv("RPCRDMA_CONF", conf, 1);
}

/* Standard error into a file, to read what the library said. */
static void capture(void)
{
	int fd;

	fflush(stderr);
	saved_stderr = dup(2);
	fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	dup2(fd, 2);
	close(fd);
}

static char *captured(void)
{
	static char buf[4096];
	size_t n;
	FILE *f;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	f = fopen(errfile, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void setup(void)
{
	int fd;

	strcpy(conf, "/tmp/test_create_conf.XXXXXX");
	fd = mkstemp(conf);
	ck_assert_int_ge(fd, 0);
	close(fd);
	strcpy(errfile, "/tmp/test_create_err.XXXXXX");
	fd = mkstemp(errfile);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unsetenv("RPCRDMA_MAX_REQUESTS");
	unsetenv("RPCRDMA_LOG_LEVEL");
}

static void teardown(void)
{
	unlink(conf);
	unlink(errfile);
	unsetenv("RPCRDMA_CONF");
}

static void assert_einval(void)
{
	ck_assert_int_eq(rpc_createerr.cf_stat, RPC_SYSTEMERROR);
	ck_assert_int_eq(rpc_createerr.cf_error.re_errno, EINVAL);
}

START_TEST(client_bad_file)
{
	char *out;

	write_conf("[client]\n\nmax_requests = 5000\n");
	capture();
	ck_assert_ptr_null(clnt_rdma_create("127.0.0.1", "20049", 100003, 3, NULL));
	out = captured();
	assert_einval();
	ck_assert_msg(strstr(out, ":3: max_requests = 5000: out of range (accepted: 1 to 1024)"),
		      "stderr: %s", out);
	ck_assert_msg(strstr(out, "client handle not created"), "stderr: %s", out);
}
END_TEST

START_TEST(server_bad_variable)
{
	char *out;

	write_conf("# nothing\n");
	setenv("RPCRDMA_MAX_REQUESTS", "lots", 1);
	capture();
	ck_assert_ptr_null(svc_rdma_create(NULL, "20049", NULL));
	out = captured();
	unsetenv("RPCRDMA_MAX_REQUESTS");
	assert_einval();
	ck_assert_msg(strstr(out, "RPCRDMA_MAX_REQUESTS: max_requests = lots: not a number"),
		      "stderr: %s", out);
}
END_TEST

START_TEST(bad_field)
{
	struct rpcrdma_options o;
	char *out;

	write_conf("");
	rpcrdma_options_init(&o);
	o.ro_inline_recv = 3000;
	capture();
	ck_assert_ptr_null(svc_rdma_create(NULL, "20049", &o));
	out = captured();
	assert_einval();
	ck_assert_msg(strstr(out, "ro_inline_recv = 3000 (set by the program): out of range "
			      "(accepted: 1024 to 262144, a multiple of 1024)"), "stderr: %s", out);
}
END_TEST

/* Options not made by rpcrdma_options_init() (ro_size 0, below 0.1's):
 * refused by both creations, not read past. */
START_TEST(bad_size)
{
	struct rpcrdma_options o;
	char *out;

	write_conf("");
	memset(&o, 0, sizeof(o));
	capture();
	ck_assert_ptr_null(svc_rdma_create(NULL, "20049", &o));
	out = captured();
	assert_einval();
	ck_assert_msg(strstr(out, "ro_size = 0, below"), "stderr: %s", out);
	capture();
	ck_assert_ptr_null(clnt_rdma_create("127.0.0.1", "20049", 100003, 3, &o));
	out = captured();
	assert_einval();
	ck_assert_msg(strstr(out, "ro_size = 0, below"), "stderr: %s", out);
}
END_TEST

/* A named file that does not exist is an error, not an empty configuration. */
START_TEST(missing_named_file)
{
	char *out;

	setenv("RPCRDMA_CONF", "/nonexistent/rpcrdma.conf", 1);
	capture();
	ck_assert_ptr_null(clnt_rdma_create("127.0.0.1", "20049", 100003, 3, NULL));
	out = captured();
	assert_einval();
	ck_assert_msg(strstr(out, "/nonexistent/rpcrdma.conf: cannot read"), "stderr: %s", out);
}
END_TEST

/* Warnings do not fail a handle; log_level off silences them. */
START_TEST(warnings_and_log_level)
{
	char *out;

	write_conf("[client]\nmax_request = 8\n");
	capture();
	(void)clnt_rdma_create("127.0.0.1", "20049", 100003, 3, NULL);
	out = captured();
	ck_assert(!(rpc_createerr.cf_stat == RPC_SYSTEMERROR &&
		    rpc_createerr.cf_error.re_errno == EINVAL));
	ck_assert_msg(strstr(out, "warning: ") &&
		      strstr(out, ":2: unknown key 'max_request' (did you mean 'max_requests'?)"),
		      "stderr: %s", out);

	write_conf("[client]\nmax_request = 8\nlog_level = off\nmr_cache = -1\n");
	capture();
	ck_assert_ptr_null(clnt_rdma_create("127.0.0.1", "20049", 100003, 3, NULL));
	out = captured();
	assert_einval();
	ck_assert_msg(!strstr(out, "rpcrdma"), "log_level off, yet: %s", out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("create_conf");
	TCase *tc = tcase_create("create");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, client_bad_file);
	tcase_add_test(tc, server_bad_variable);
	tcase_add_test(tc, bad_field);
	tcase_add_test(tc, bad_size);
	tcase_add_test(tc, missing_named_file);
	tcase_add_test(tc, warnings_and_log_level);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
