/*
 * Unit test: --calibrate's decision from echo cells with trials.  Where
 * inline stops keeping up with pull-up and mapped starts to, only where
 * the intervals differ; defaults kept (and said so) where nothing does.
 */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const double fast[] = { 1200, 1210, 1220, 1230, 1240 };
static const double mid[] = { 1000, 1010, 1020, 1030, 1040 };
static const double mid2[] = { 1005, 1015, 995, 1025, 1035 };
static const double slow[] = { 800, 810, 820, 830, 840 };

static struct bench_cell cell(unsigned size, enum bench_strategy s,
			      const double *v)
{
	struct bench_cell c;

	memset(&c, 0, sizeof(c));
	c.bc_workload = BW_ECHO;
	c.bc_size = size;
	c.bc_strategy = s;
	c.bc_inflight = 1;
	c.bc_status = BC_OK;
	c.bc_has_counters = 1;
	c.bc_ntrials = 5;
	memcpy(c.bc_trial_cps, v, 5 * sizeof(*v));
	c.bc_calls_per_s = bench_median(v, 5);
	return c;
}

static struct bench_calib defaults(void)
{
	struct bench_calib cal = {
		.bk_inline_cutoff = BENCH_DEF_INLINE_CUTOFF,
		.bk_mapped_min = BENCH_DEF_MAPPED_MIN,
		.bk_page_threshold = BENCH_DEF_PAGE_THRESHOLD,
		.bk_trials = 5,
	};
	return cal;
}

/* inline, pullup, mapped at one size. */
static size_t three(struct bench_cell *c, unsigned size, const double *i,
		    const double *p, const double *m)
{
	c[0] = cell(size, BS_INLINE, i);
	c[1] = cell(size, BS_PULLUP, p);
	c[2] = cell(size, BS_MAPPED, m);
	return 3;
}

START_TEST(crossovers_found)
{
	struct bench_cell c[32];
	struct bench_calib cal = defaults();
	size_t n = 0;
	char *out = NULL;
	size_t len;
	FILE *f;

	n += three(&c[n], 16, fast, mid, slow);		/* inline faster */
	n += three(&c[n], 64, fast, mid, slow);
	n += three(&c[n], 256, mid2, mid, slow);	/* inline ties */
	n += three(&c[n], 1024, fast, mid, slow);
	c[n - 3].bc_client.bk_fallbacks = 10;		/* inline could not */
	n += three(&c[n], 4096, slow, mid, mid2);	/* mapped ties */
	n += three(&c[n], 16384, slow, mid, fast);	/* mapped faster */
	n += three(&c[n], 65536, slow, mid, fast);
	ck_assert_int_eq(bench_calibrate(c, n, &cal), 0);
	ck_assert(cal.bk_inline_found && cal.bk_mapped_found);
	ck_assert_uint_eq(cal.bk_inline_last, 256);
	ck_assert_uint_eq(cal.bk_inline_stop, 1024);
	ck_assert_uint_eq(cal.bk_inline_cutoff, 256 + 72);
	/* 1024: mapped slower, so it starts at 4096 (tied) */
	ck_assert_uint_eq(cal.bk_mapped_min, 4096);
	ck_assert_uint_eq(cal.bk_page_threshold, 1024);
	ck_assert(!cal.bk_page_moved);

	f = open_memstream(&out, &len);
	bench_calib_write(f, &cal, "rxe0", "rxe");
	fclose(f);
	ck_assert_msg(strstr(out, "\n[device rxe0]\n"), "%s", out);
	ck_assert_msg(strstr(out, "\ninline_cutoff = 328\n"), "%s", out);
	ck_assert_msg(strstr(out, "\nmapped_min = 4096\n"), "%s", out);
	ck_assert_msg(strstr(out, "# page_threshold = 1024 (default kept)"), "%s", out);
	ck_assert_msg(strstr(out, "slower or unable at 1 KiB"), "%s", out);
	free(out);
}
END_TEST

START_TEST(no_difference_keeps_defaults)
{
	struct bench_cell c[16];
	struct bench_calib cal = defaults();
	size_t n = 0;
	char *out = NULL;
	size_t len;
	FILE *f;

	n += three(&c[n], 64, mid, mid2, mid);
	n += three(&c[n], 4096, mid2, mid, mid2);
	n += three(&c[n], 65536, mid, mid2, mid2);
	ck_assert_int_eq(bench_calibrate(c, n, &cal), 0);
	ck_assert(!cal.bk_inline_found && !cal.bk_mapped_found);
	ck_assert_uint_eq(cal.bk_inline_cutoff, BENCH_DEF_INLINE_CUTOFF);
	ck_assert_uint_eq(cal.bk_mapped_min, BENCH_DEF_MAPPED_MIN);
	f = open_memstream(&out, &len);
	bench_calib_write(f, &cal, "siw0", NULL);
	fclose(f);
	/* every key commented out: the section changes nothing */
	ck_assert_msg(strstr(out, "no significant difference"), "%s", out);
	ck_assert_msg(strstr(out, "never significantly faster"), "%s", out);
	ck_assert_msg(!strstr(out, "\ninline_cutoff") && !strstr(out, "\nmapped_min")
		      && !strstr(out, "\npage_threshold"), "%s", out);
	free(out);
}
END_TEST

START_TEST(mapped_low_moves_page_threshold)
{
	struct bench_cell c[16];
	struct bench_calib cal = defaults();
	size_t n = 0;

	n += three(&c[n], 64, mid, mid, slow);
	n += three(&c[n], 256, mid, mid, fast);
	n += three(&c[n], 4096, mid, mid, fast);
	ck_assert_int_eq(bench_calibrate(c, n, &cal), 0);
	ck_assert(cal.bk_mapped_found && cal.bk_page_moved);
	ck_assert_uint_eq(cal.bk_mapped_min, 256);
	ck_assert_uint_eq(cal.bk_page_threshold, 256);
	/* no echo cells at all */
	cal = defaults();
	c[0].bc_workload = BW_READ;
	ck_assert_int_eq(bench_calibrate(c, 1, &cal), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench_calib");
	TCase *tc = tcase_create("calib");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, crossovers_found);
	tcase_add_test(tc, no_difference_keeps_defaults);
	tcase_add_test(tc, mapped_low_moves_page_threshold);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
