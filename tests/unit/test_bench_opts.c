/*
 * Unit test: rpcrdma_bench's option parsing — roles, size lists and
 * ranges, strategy and workload lists with their aliases, --quick and the
 * flags it must not override, and a clear error for every bad value.
 */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int parse(struct bench_opts *o, char *err, const char *const *args)
{
	char *argv[32];
	int argc = 0;

	argv[argc++] = (char *)"rpcrdma_bench";
	while (*args && argc < 31)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	bench_opts_init(o);
	return bench_opts_parse(o, argc, argv, err, 256);
}

START_TEST(defaults)
{
	const char *args[] = { "-c", "10.0.0.1", NULL };
	struct bench_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, args), 0);
	ck_assert_int_eq(o.bo_role, BR_CLIENT);
	ck_assert_str_eq(o.bo_addr, "10.0.0.1");
	ck_assert_uint_eq(o.bo_port, BENCH_DEFAULT_PORT);
	/* The default sweep runs from 16 B to 1 MiB, odd sizes included. */
	ck_assert_uint_eq(o.bo_sizes[0], 16);
	ck_assert_uint_eq(o.bo_sizes[o.bo_nsizes - 1], 1u << 20);
	ck_assert_uint_eq(o.bo_max_size, 1u << 20);
	ck_assert_uint_gt(o.bo_nsizes, 17);
	ck_assert_uint_eq(o.bo_ninflight, 2);
	ck_assert_uint_eq(o.bo_inflight[0], 1);
	ck_assert_uint_eq(o.bo_inflight[1], 32);
	ck_assert_uint_eq(o.bo_strategies, (1u << BS_NR) - 1);
	ck_assert_uint_eq(o.bo_workloads, (1u << BW_NR) - 1);
	ck_assert_int_eq(o.bo_format, BF_TABLE);
}
END_TEST

START_TEST(roles)
{
	const char *srv[] = { "-s", "-a", "10.0.0.1", NULL };
	const char *pair[] = { "--pair", "10.0.0.1", "--server-exec",
			       "ip netns exec rpcsrv", "-b", "10.0.0.2", NULL };
	const char *none[] = { "-S", "16", NULL };
	struct bench_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, srv), 0);
	ck_assert_int_eq(o.bo_role, BR_SERVER);
	ck_assert_int_eq(parse(&o, err, pair), 0);
	ck_assert_int_eq(o.bo_role, BR_PAIR);
	ck_assert_str_eq(o.bo_server_exec, "ip netns exec rpcsrv");
	ck_assert_str_eq(o.bo_source, "10.0.0.2");
	ck_assert_int_eq(parse(&o, err, none), -1);
	ck_assert_ptr_nonnull(strstr(err, "-c HOST"));
}
END_TEST

START_TEST(sizes)
{
	unsigned v[BENCH_MAX_SIZES];

	ck_assert_int_eq(bench_parse_size("4K"), 4096);
	ck_assert_int_eq(bench_parse_size("1m"), 1 << 20);
	ck_assert_int_eq(bench_parse_size("100"), 100);
	ck_assert_int_eq(bench_parse_size("0"), 0);
	ck_assert_int_eq(bench_parse_size("4G"), -1);
	ck_assert_int_eq(bench_parse_size("65M"), -1);
	ck_assert_int_eq(bench_parse_size("-1"), -1);
	ck_assert_int_eq(bench_parse_size("12x"), -1);
	ck_assert_int_eq(bench_parse_size(""), -1);

	ck_assert_int_eq(bench_parse_sizes("16,64,1K", v, BENCH_MAX_SIZES), 3);
	ck_assert_uint_eq(v[2], 1024);
	/* A range doubles and ends on its upper bound even off the series. */
	ck_assert_int_eq(bench_parse_sizes("4K-64K", v, BENCH_MAX_SIZES), 5);
	ck_assert_uint_eq(v[0], 4096);
	ck_assert_uint_eq(v[4], 65536);
	ck_assert_int_eq(bench_parse_sizes("100-1000", v, BENCH_MAX_SIZES), 5);
	ck_assert_uint_eq(v[3], 800);
	ck_assert_uint_eq(v[4], 1000);
	/* Duplicates are dropped, order kept. */
	ck_assert_int_eq(bench_parse_sizes("64,16,64,16-32", v, BENCH_MAX_SIZES), 3);
	ck_assert_uint_eq(v[0], 64);
	ck_assert_uint_eq(v[1], 16);
	ck_assert_uint_eq(v[2], 32);
	ck_assert_int_eq(bench_parse_sizes("64-16", v, BENCH_MAX_SIZES), -1);
	ck_assert_int_eq(bench_parse_sizes("0-16", v, BENCH_MAX_SIZES), -1);
	ck_assert_int_eq(bench_parse_sizes("", v, BENCH_MAX_SIZES), -1);
	ck_assert_int_eq(bench_parse_sizes("16,,", v, BENCH_MAX_SIZES), 1);
	ck_assert_int_eq(bench_parse_sizes("1-1M", v, 4), -1);
}
END_TEST

START_TEST(lists)
{
	const char *a[] = { "-c", "h", "-x", "inline,tcp", "-W", "echo,null",
			    "-q", "1,4,32", NULL };
	const char *b[] = { "-c", "h", "-x", "rpc,raw", NULL };
	struct bench_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, a), 0);
	ck_assert_uint_eq(o.bo_strategies, 1u << BS_INLINE | 1u << BS_TCP);
	ck_assert_uint_eq(o.bo_workloads, 1u << BW_ECHO | 1u << BW_NULL);
	ck_assert_uint_eq(o.bo_ninflight, 3);
	ck_assert_uint_eq(o.bo_inflight[2], 32);
	ck_assert_int_eq(parse(&o, err, b), 0);
	ck_assert_uint_eq(o.bo_strategies, (1u << BS_NR) - 1 - (1u << BS_TCP) -
			  (1u << BS_ASYNC));
}
END_TEST

START_TEST(conns_sweep)
{
	const char *a[] = { "-c", "h", "--conns", "1,16,128,1000", NULL };
	const char *b[] = { "-c", "h", "--conns", "0", NULL };
	const char *d[] = { "-c", "h", "--conns", "4097", NULL };
	const char *e[] = { "-c", "h", "--conns", "16", "--calibrate", "x", NULL };
	struct bench_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, a), 0);
	ck_assert_uint_eq(o.bo_nsweep, 4);
	ck_assert_uint_eq(o.bo_sweep[0], 1);
	ck_assert_uint_eq(o.bo_sweep[3], 1000);
	ck_assert_int_eq(parse(&o, err, b), -1);
	ck_assert_msg(strstr(err, "--conns"), "%s", err);
	ck_assert_int_eq(parse(&o, err, d), -1);
	/* calibration measures echo cells only: no sweep */
	ck_assert_int_eq(parse(&o, err, e), 0);
	ck_assert_uint_eq(o.bo_nsweep, 0);
	/* without --conns there is none */
	ck_assert_int_eq(parse(&o, err, (const char *[]){ "-c", "h", NULL }), 0);
	ck_assert_uint_eq(o.bo_nsweep, 0);
}
END_TEST

START_TEST(quick)
{
	const char *q[] = { "-c", "h", "--quick", NULL };
	const char *qs[] = { "-c", "h", "-S", "64", "-D", "2", "--quick", NULL };
	struct bench_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, q), 0);
	ck_assert_uint_eq(o.bo_nsizes, 8);
	ck_assert(o.bo_duration > 0.29 && o.bo_duration < 0.31);
	ck_assert(o.bo_warmup > 0.09 && o.bo_warmup < 0.11);
	/* Explicit flags win over --quick, wherever they stand. */
	ck_assert_int_eq(parse(&o, err, qs), 0);
	ck_assert_uint_eq(o.bo_nsizes, 1);
	ck_assert_uint_eq(o.bo_max_size, 64);
	ck_assert(o.bo_duration > 1.99 && o.bo_duration < 2.01);
}
END_TEST

START_TEST(trials)
{
	const char *d[] = { "-c", "h", NULL };
	const char *t[] = { "-c", "h", "--trials", "9", NULL };
	const char *q[] = { "-c", "h", "--quick", NULL };
	const char *qt[] = { "-c", "h", "--trials", "7", "--quick", NULL };
	const char *bad0[] = { "-c", "h", "--trials", "0", NULL };
	const char *big[] = { "-c", "h", "--trials", "33", NULL };
	struct bench_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, d), 0);
	ck_assert_uint_eq(o.bo_trials, 5);
	ck_assert_int_eq(parse(&o, err, t), 0);
	ck_assert_uint_eq(o.bo_trials, 9);
	/* --quick: fewer trials, still an interval; an explicit count wins */
	ck_assert_int_eq(parse(&o, err, q), 0);
	ck_assert_uint_eq(o.bo_trials, 3);
	ck_assert_int_eq(parse(&o, err, qt), 0);
	ck_assert_uint_eq(o.bo_trials, 7);
	ck_assert_int_eq(parse(&o, err, bad0), -1);
	ck_assert_msg(strstr(err, "--trials"), "%s", err);
	ck_assert_int_eq(parse(&o, err, big), -1);
}
END_TEST

START_TEST(durations)
{
	const char *ms[] = { "-c", "h", "-D", "300ms", "-w", "0", NULL };
	const char *n[] = { "-c", "h", "-n", "1000", NULL };
	struct bench_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, ms), 0);
	ck_assert(o.bo_duration > 0.299 && o.bo_duration < 0.301);
	ck_assert(o.bo_warmup == 0);
	ck_assert_int_eq(parse(&o, err, n), 0);
	ck_assert_uint_eq(o.bo_count, 1000);
	ck_assert(o.bo_duration == 0);
}
END_TEST

/* A cell's time and count are split across its trials, not multiplied:
 * N trials take what one cell took before trials existed. */
START_TEST(trial_split)
{
	const char *d[] = { "-c", "h", NULL };
	const char *q[] = { "-c", "h", "--quick", NULL };
	const char *n[] = { "-c", "h", "-n", "1001", "--trials", "4", NULL };
	const char *one[] = { "-c", "h", "-D", "2", "--trials", "1", NULL };
	struct bench_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, d), 0);
	ck_assert(bench_trial_duration(&o) > 0.199 && bench_trial_duration(&o) < 0.201);
	ck_assert_uint_eq(bench_trial_count(&o), 0);
	ck_assert(bench_trial_warmup(&o, 0) > 0.199 && bench_trial_warmup(&o, 0) < 0.201);
	ck_assert(bench_trial_warmup(&o, 1) > 0.039 && bench_trial_warmup(&o, 1) < 0.041);
	ck_assert(bench_trial_warmup(&o, 4) > 0.039 && bench_trial_warmup(&o, 4) < 0.041);
	ck_assert_int_eq(parse(&o, err, q), 0);
	ck_assert(bench_trial_duration(&o) > 0.0999 && bench_trial_duration(&o) < 0.1001);
	ck_assert(bench_trial_warmup(&o, 0) > 0.0999 && bench_trial_warmup(&o, 0) < 0.1001);
	ck_assert(bench_trial_warmup(&o, 2) > 0.0333 && bench_trial_warmup(&o, 2) < 0.0334);
	/* a count rounds up: 4 trials of 251 calls cover the 1001 asked */
	ck_assert_int_eq(parse(&o, err, n), 0);
	ck_assert_uint_eq(bench_trial_count(&o), 251);
	ck_assert(bench_trial_duration(&o) == 0);
	/* one trial: the whole cell, the whole warm-up */
	ck_assert_int_eq(parse(&o, err, one), 0);
	ck_assert(bench_trial_duration(&o) == 2);
	ck_assert(bench_trial_warmup(&o, 0) > 0.199 && bench_trial_warmup(&o, 0) < 0.201);
}
END_TEST

START_TEST(svc_threads)
{
	const char *none[] = { "-s", NULL };
	const char *j4[] = { "-s", "-j", "4", NULL };
	const char *lng[] = { "--pair", "h", "--svc-threads", "64", NULL };
	struct bench_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, none), 0);
	ck_assert_uint_eq(o.bo_svc_threads, 0);
	ck_assert_int_eq(parse(&o, err, j4), 0);
	ck_assert_uint_eq(o.bo_svc_threads, 4);
	ck_assert_int_eq(parse(&o, err, lng), 0);
	ck_assert_uint_eq(o.bo_svc_threads, 64);
}
END_TEST

/* Each bad value is refused, and the message names the option. */
static const struct {
	const char *opt, *val, *says;
} bad[] = {
	{ "-S", "16,huge", "--sizes" },
	{ "-x", "inline,fast", "--strategies" },
	{ "-W", "write,list", "--workloads" },
	{ "-q", "0", "--inflight" },
	{ "-q", "1,999", "--inflight" },
	{ "-q", "4,", "--inflight" },
	{ "-t", "0", "--threads" },
	{ "-D", "0", "--duration" },
	{ "-D", "1h", "--duration" },
	{ "-n", "0", "--count" },
	{ "-f", "xml", "--format" },
	{ "-p", "70000", "--port" },
	{ "--corrupt", "x", "--corrupt" },
	{ "-j", "65", "--svc-threads" },
	{ "--svc-threads", "two", "--svc-threads" },
};

START_TEST(bad_values)
{
	const char *args[] = { "-c", "h", bad[_i].opt, bad[_i].val, NULL };
	struct bench_opts o;
	char err[256] = "";

	ck_assert_int_eq(parse(&o, err, args), -1);
	ck_assert_msg(strstr(err, bad[_i].says), "%s %s: \"%s\"", bad[_i].opt,
		      bad[_i].val, err);
}
END_TEST

START_TEST(bad_usage)
{
	const char *unknown[] = { "-c", "h", "--frobnicate", NULL };
	const char *missing[] = { "-c", "h", "-S", NULL };
	const char *extra[] = { "-c", "h", "stray", NULL };
	const char *help[] = { "--help", NULL };
	struct bench_opts o;
	char err[256];

	ck_assert_int_eq(parse(&o, err, unknown), -1);
	ck_assert_ptr_nonnull(strstr(err, "--frobnicate"));
	ck_assert_int_eq(parse(&o, err, missing), -1);
	ck_assert_ptr_nonnull(strstr(err, "needs a value"));
	ck_assert_int_eq(parse(&o, err, extra), -1);
	ck_assert_ptr_nonnull(strstr(err, "stray"));
	ck_assert_int_eq(parse(&o, err, help), 1);
}
END_TEST

START_TEST(names)
{
	for (int s = 0; s < BS_NR; s++)
		ck_assert_int_eq(bench_strategy_from_name(
			bench_strategy_name((enum bench_strategy)s)), s);
	for (int w = 0; w < BW_NR; w++)
		ck_assert_int_eq(bench_workload_from_name(
			bench_workload_name((enum bench_workload)w)), w);
	ck_assert_int_eq(bench_strategy_from_name("rdma"), -1);
	ck_assert_str_eq(bench_strategy_name(BS_RAW_POLL), "raw-poll");
	ck_assert(bench_applies(BS_RAW_WRITE, BW_WRITE));
	ck_assert(!bench_applies(BS_RAW_WRITE, BW_ECHO));
	ck_assert(bench_applies(BS_RAW_READ, BW_READ));
	ck_assert(!bench_applies(BS_RAW_READ, BW_NULL));
	ck_assert(bench_applies(BS_TCP, BW_NULL));
	ck_assert(bench_payload_bytes(BW_ECHO, 100) == 200);
	ck_assert(bench_payload_bytes(BW_READ, 100) == 100);
	ck_assert(bench_payload_bytes(BW_NULL, 100) == 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench_opts");
	TCase *tc = tcase_create("parse");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, roles);
	tcase_add_test(tc, sizes);
	tcase_add_test(tc, lists);
	tcase_add_test(tc, conns_sweep);
	tcase_add_test(tc, quick);
	tcase_add_test(tc, trials);
	tcase_add_test(tc, trial_split);
	tcase_add_test(tc, durations);
	tcase_add_test(tc, svc_threads);
	tcase_add_loop_test(tc, bad_values, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, bad_usage);
	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
