/*
 * Unit test: the bench's pure output side.  Latency percentiles, ratios to
 * the baselines and winner marks, the summary's merged ranges and auto's
 * worst ratio, and how the table, JSON, CSV and SVG render edge cells.
 */
#include "config.h"
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ---- helpers ------------------------------------------------------------ */

/* An OK cell at one in flight... unless the test changes it. */
static struct bench_cell cell(enum bench_workload w, unsigned size,
			      enum bench_strategy s, double cps, double p50)
{
	struct bench_cell c;

	memset(&c, 0, sizeof(c));
	c.bc_workload = w;
	c.bc_size = size;
	c.bc_strategy = s;
	c.bc_inflight = 1;
	c.bc_threads = 1;
	c.bc_conns = 1;
	c.bc_status = BC_OK;
	c.bc_calls = (uint64_t)cps;
	c.bc_secs = 1;
	c.bc_calls_per_s = cps;
	c.bc_mb_per_s = cps * bench_payload_bytes(w, size) / 1e6;
	c.bc_lat.bl_mean = c.bc_lat.bl_p50 = c.bc_lat.bl_min = p50;
	c.bc_lat.bl_p99 = c.bc_lat.bl_p999 = c.bc_lat.bl_max = p50 * 2;
	c.bc_cpu_client = c.bc_cpu_server = -1;
	c.bc_has_counters = bench_counted(s);
	return c;
}

static struct bench_cell with_status(struct bench_cell c, enum bench_status st,
				     const char *note)
{
	c.bc_status = st;
	snprintf(c.bc_note, sizeof(c.bc_note), "%s", note);
	return c;
}

static struct bench_cell at_inflight(struct bench_cell c, unsigned q)
{
	c.bc_inflight = q;
	return c;
}

/* auto's Sends on each side: inline, pullup, mapped. */
static struct bench_cell sends(struct bench_cell c, uint64_t ci, uint64_t cp,
			       uint64_t cm, uint64_t si, uint64_t sp, uint64_t sm)
{
	c.bc_client.bk_inline_sends = ci;
	c.bc_client.bk_pullup_sends = cp;
	c.bc_client.bk_mapped_sends = cm;
	c.bc_server.bk_inline_sends = si;
	c.bc_server.bk_pullup_sends = sp;
	c.bc_server.bk_mapped_sends = sm;
	return c;
}

/* What fn writes, as a string to free(). */
#define CAPTURE(buf, call) do {					\
	size_t len_;						\
	FILE *f_ = open_memstream(&(buf), &len_);		\
								\
	ck_assert_ptr_nonnull(f_);				\
	call;							\
	ck_assert_int_eq(fclose(f_), 0);			\
} while (0)

/* The line of text holding needle, copied into line; 0 if none. */
static int line_with(const char *text, const char *needle, char *line,
		     size_t len)
{
	const char *p = strstr(text, needle), *b, *e;

	if (!p)
		return 0;
	for (b = p; b > text && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n');
	if (!e)
		e = p + strlen(p);
	snprintf(line, len, "%.*s", (int)(e - b), b);
	return 1;
}

/* The table row of strategy name (its fourth column) into line; 0 if none. */
static int row_of(const char *text, const char *name, char *line, size_t len)
{
	char a[32], b[32], c[32], d[32];
	const char *e;

	for (; *text; text = *e ? e + 1 : e) {
		e = strchr(text, '\n');
		if (!e)
			e = text + strlen(text);
		snprintf(line, len, "%.*s", (int)(e - text), text);
		if (sscanf(line, "%31s %31s %31s %31s", a, b, c, d) == 4 &&
		    !strcmp(d, name))
			return 1;
	}
	return 0;
}

static unsigned count(const char *text, const char *needle)
{
	unsigned k = 0;

	for (; (text = strstr(text, needle)); text += strlen(needle))
		k++;
	return k;
}

/* ---- latency ------------------------------------------------------------ */

START_TEST(lat_one_to_thousand)
{
	float v[1000];
	struct bench_samples s = { v, 1000, 1000 };
	struct bench_lat l;
	size_t i;

	for (i = 0; i < 1000; i++)		/* a permutation of 1..1000 */
		v[i] = (float)((i * 7) % 1000 + 1);
	bench_lat_compute(&s, &l);
	ck_assert_double_eq_tol(l.bl_mean, 500.5, 1e-9);
	ck_assert_double_eq(l.bl_p50, 500);	/* nearest rank: ceil(.5 n) */
	ck_assert_double_eq(l.bl_p99, 990);
	ck_assert_double_eq(l.bl_p999, 999);
	ck_assert_double_eq(l.bl_min, 1);
	ck_assert_double_eq(l.bl_max, 1000);
	for (i = 0; i < 1000; i++)		/* sorted in place */
		ck_assert_float_eq(v[i], (float)(i + 1));
}
END_TEST

/* Nearest rank, not interpolation: of 1, 2, 3 the median is 2, p99 3. */
START_TEST(lat_nearest_rank)
{
	float v[] = { 3, 1, 2 };
	struct bench_samples s = { v, 3, 3 };
	struct bench_lat l;

	bench_lat_compute(&s, &l);
	ck_assert_double_eq(l.bl_p50, 2);
	ck_assert_double_eq(l.bl_p99, 3);
	ck_assert_double_eq(l.bl_p999, 3);
	ck_assert_double_eq_tol(l.bl_mean, 2, 1e-12);
}
END_TEST

START_TEST(lat_empty)
{
	struct bench_samples s = { NULL, 0, 0 };
	struct bench_lat l;

	memset(&l, 0x5a, sizeof(l));
	bench_lat_compute(&s, &l);
	ck_assert_double_eq(l.bl_mean, 0);
	ck_assert_double_eq(l.bl_p50, 0);
	ck_assert_double_eq(l.bl_p99, 0);
	ck_assert_double_eq(l.bl_p999, 0);
	ck_assert_double_eq(l.bl_min, 0);
	ck_assert_double_eq(l.bl_max, 0);
}
END_TEST

START_TEST(lat_single)
{
	float v[] = { 42.5f };
	struct bench_samples s = { v, 1, 1 };
	struct bench_lat l;

	bench_lat_compute(&s, &l);
	ck_assert_double_eq(l.bl_mean, 42.5);
	ck_assert_double_eq(l.bl_p50, 42.5);
	ck_assert_double_eq(l.bl_p99, 42.5);
	ck_assert_double_eq(l.bl_p999, 42.5);
	ck_assert_double_eq(l.bl_min, 42.5);
	ck_assert_double_eq(l.bl_max, 42.5);
}
END_TEST

/* ---- derived ratios and winners ----------------------------------------- */

START_TEST(derive_ratios)
{
	struct bench_cell c[] = {
		cell(BW_ECHO, 64, BS_INLINE, 1000, 20),
		cell(BW_ECHO, 64, BS_RAW_POLL, 5000, 10),
		cell(BW_ECHO, 64, BS_TCP, 800, 40),
		cell(BW_ECHO, 64, BS_RAW_EVENT, 3000, 15),
		/* same workload and size, other inflight: its own baselines */
		at_inflight(cell(BW_ECHO, 64, BS_INLINE, 9000, 30), 32),
		at_inflight(cell(BW_ECHO, 64, BS_RAW_POLL, 40000, 12), 32),
		/* a failed raw-poll is no reference */
		cell(BW_ECHO, 256, BS_PULLUP, 900, 25),
		with_status(cell(BW_ECHO, 256, BS_RAW_POLL, 5000, 10),
			    BC_FAILED, "x"),
		/* a cell that did not run gets no ratio */
		with_status(cell(BW_ECHO, 1024, BS_MAPPED, 900, 25),
			    BC_NEEDS_CHUNKS, ""),
		cell(BW_ECHO, 1024, BS_RAW_POLL, 5000, 10),
		/* other workload, same size: not compared with echo's */
		cell(BW_WRITE, 64, BS_INLINE, 1000, 20),
	};
	size_t i, n = sizeof(c) / sizeof(c[0]);

	for (i = 0; i < n; i++)			/* stale values are reset */
		c[i].bc_vs_raw = c[i].bc_vs_tcp = 99;
	bench_report_derive(c, n);
	ck_assert_double_eq_tol(c[0].bc_vs_raw, 2.0, 1e-12);
	ck_assert_double_eq_tol(c[0].bc_vs_tcp, 0.5, 1e-12);
	ck_assert_double_eq_tol(c[1].bc_vs_raw, 1.0, 1e-12);
	ck_assert_double_eq_tol(c[1].bc_vs_tcp, 0.25, 1e-12);
	ck_assert_double_eq_tol(c[2].bc_vs_raw, 4.0, 1e-12);
	ck_assert_double_eq_tol(c[2].bc_vs_tcp, 1.0, 1e-12);
	ck_assert_double_eq_tol(c[3].bc_vs_raw, 1.5, 1e-12);
	ck_assert_double_eq_tol(c[4].bc_vs_raw, 2.5, 1e-12);
	ck_assert_double_eq(c[4].bc_vs_tcp, 0);	/* no tcp at 32 */
	ck_assert_double_eq(c[6].bc_vs_raw, 0);
	ck_assert_double_eq(c[6].bc_vs_tcp, 0);
	ck_assert_double_eq(c[7].bc_vs_raw, 0);
	ck_assert_double_eq(c[8].bc_vs_raw, 0);
	ck_assert_double_eq(c[8].bc_vs_tcp, 0);
	ck_assert_double_eq(c[10].bc_vs_raw, 0);
	ck_assert_double_eq(c[10].bc_vs_tcp, 0);
}
END_TEST

START_TEST(derive_winner)
{
	struct bench_cell c[] = {
		/* auto and tcp are faster, but only fixed ones can win */
		cell(BW_ECHO, 64, BS_INLINE, 1000, 20),
		cell(BW_ECHO, 64, BS_PULLUP, 1500, 20),
		cell(BW_ECHO, 64, BS_MAPPED, 1200, 20),
		cell(BW_ECHO, 64, BS_AUTO, 2000, 20),
		cell(BW_ECHO, 64, BS_TCP, 3000, 20),
		/* the fastest fixed one failed: the next OK one wins */
		cell(BW_ECHO, 256, BS_INLINE, 1000, 20),
		cell(BW_ECHO, 256, BS_PULLUP, 1100, 20),
		with_status(cell(BW_ECHO, 256, BS_MAPPED, 5000, 20),
			    BC_FAILED, "boom"),
		with_status(cell(BW_ECHO, 256, BS_INLINE, 7000, 20),
			    BC_NEEDS_CHUNKS, ""),
		/* only auto and baselines: nobody wins */
		cell(BW_ECHO, 1024, BS_AUTO, 900, 20),
		cell(BW_ECHO, 1024, BS_RAW_POLL, 9000, 20),
		/* inflight 32 is its own group */
		at_inflight(cell(BW_ECHO, 64, BS_INLINE, 9000, 20), 32),
		at_inflight(cell(BW_ECHO, 64, BS_PULLUP, 8000, 20), 32),
	};
	size_t i, n = sizeof(c) / sizeof(c[0]);
	int want[] = { 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0 };

	for (i = 0; i < n; i++)
		c[i].bc_winner = 1;
	bench_report_derive(c, n);
	for (i = 0; i < n; i++)
		ck_assert_msg(c[i].bc_winner == want[i], "cell %zu (%s %u): "
			      "winner %d, want %d", i,
			      bench_strategy_name(c[i].bc_strategy),
			      c[i].bc_size, c[i].bc_winner, want[i]);
}
END_TEST

/* ---- summary ------------------------------------------------------------ */

/* c with the given calls/s trials (its figure their median). */
static struct bench_cell trials(struct bench_cell c, const double *v, unsigned n)
{
	unsigned i;

	c.bc_ntrials = n;
	for (i = 0; i < n; i++) {
		c.bc_trial_cps[i] = v[i];
		c.bc_trial_p50[i] = 1e6 / v[i];
	}
	c.bc_calls_per_s = bench_median(v, n);
	c.bc_mb_per_s = c.bc_calls_per_s *
			bench_payload_bytes(c.bc_workload, c.bc_size) / 1e6;
	c.bc_lat.bl_p50 = bench_median(c.bc_trial_p50, n);
	return c;
}

/*
 * Overlapping trials tie (1 % apart, 5 % spread); trials that do not
 * overlap give a winner even by 3 %; the intervals are the trials' range
 * at five trials.
 */
START_TEST(derive_tie_and_clear_win)
{
	static const double close_a[] = { 1000, 1030, 980, 1010, 1050 };
	static const double close_b[] = { 1020, 990, 1040, 1000, 970 };
	static const double far_a[] = { 1030, 1031, 1032, 1033, 1034 };
	static const double far_b[] = { 1000, 1001, 1002, 1003, 1004 };
	static const double slow[] = { 500, 510, 520, 530, 540 };
	struct bench_cell c[] = {
		trials(cell(BW_ECHO, 64, BS_INLINE, 0, 0), close_a, 5),
		trials(cell(BW_ECHO, 64, BS_PULLUP, 0, 0), close_b, 5),
		trials(cell(BW_ECHO, 64, BS_MAPPED, 0, 0), slow, 5),
		trials(cell(BW_ECHO, 256, BS_INLINE, 0, 0), far_b, 5),
		trials(cell(BW_ECHO, 256, BS_PULLUP, 0, 0), far_a, 5),
		trials(cell(BW_ECHO, 256, BS_MAPPED, 0, 0), slow, 5),
	};
	int win[] = { 0, 0, 0, 0, 1, 0 }, tie[] = { 1, 1, 0, 0, 0, 0 };
	size_t i;

	bench_report_derive(c, 6);
	for (i = 0; i < 6; i++) {
		ck_assert_msg(c[i].bc_winner == win[i] && c[i].bc_tied == tie[i],
			      "cell %zu: winner %d tied %d", i, c[i].bc_winner,
			      c[i].bc_tied);
	}
	ck_assert(c[0].bc_cps_lo == 980 && c[0].bc_cps_hi == 1050);
	ck_assert(c[4].bc_cps_lo == 1030 && c[4].bc_cps_hi == 1034);
	ck_assert(c[4].bc_p50_lo <= c[4].bc_lat.bl_p50 &&
		  c[4].bc_lat.bl_p50 <= c[4].bc_p50_hi &&
		  c[4].bc_p50_lo < c[4].bc_p50_hi);
}
END_TEST

/* A tie is a range of its own; auto within noise is not a loss. */
START_TEST(summary_tie_and_noise)
{
	static const double a[] = { 1000, 1030, 980, 1010, 1050 };
	static const double b[] = { 1020, 990, 1040, 1000, 970 };
	static const double au[] = { 995, 1025, 975, 1005, 1045 };
	static const double slow[] = { 500, 510, 520, 530, 540 };
	struct bench_cell c[12];
	size_t n = 0;
	unsigned size;
	char *out = NULL, line[256];

	for (size = 16; size <= 64; size *= 4) {
		c[n++] = trials(cell(BW_ECHO, size, BS_INLINE, 0, 0), a, 5);
		c[n++] = trials(cell(BW_ECHO, size, BS_PULLUP, 0, 0), b, 5);
		c[n++] = trials(cell(BW_ECHO, size, BS_MAPPED, 0, 0), slow, 5);
		c[n] = trials(cell(BW_ECHO, size, BS_AUTO, 0, 0), au, 5);
		c[n] = sends(c[n], 10, 0, 0, 10, 0, 0);
		n++;
	}
	/* 256: pullup by far; auto at half of it, clearly below */
	c[n++] = trials(cell(BW_ECHO, 256, BS_INLINE, 0, 0), slow, 5);
	c[n++] = trials(cell(BW_ECHO, 256, BS_PULLUP, 0, 0), a, 5);
	c[n] = trials(cell(BW_ECHO, 256, BS_AUTO, 0, 0), slow, 5);
	c[n] = sends(c[n], 10, 0, 0, 10, 0, 0);
	n++;
	bench_report_derive(c, n);
	CAPTURE(out, bench_report_summary(f_, c, n));
	ck_assert_msg(line_with(out, "16-64 B: tie inline/pullup", line,
				sizeof(line)), "%s", out);
	ck_assert_msg(strstr(line, "intervals overlap"), "%s", line);
	ck_assert_msg(line_with(out, "256 B: pullup", line, sizeof(line)),
		      "%s", out);
	ck_assert_msg(line_with(out, "auto's worst ratio", line, sizeof(line)),
		      "%s", out);
	ck_assert_msg(strstr(line, "0.51 [") && strstr(line, "at 256 B") &&
		      strstr(line, "below it"), "%s", line);
	ck_assert_msg(strstr(out, "below at 1 size, within noise at 2, above "
			     "at 0"), "%s", out);
	free(out);
}
END_TEST

/* inline, pullup, mapped, auto at one size of echo. */
static size_t four(struct bench_cell *c, unsigned size, double i, double p,
		   double m, double a)
{
	c[0] = cell(BW_ECHO, size, BS_INLINE, i, 10);
	c[1] = cell(BW_ECHO, size, BS_PULLUP, p, 10);
	c[2] = cell(BW_ECHO, size, BS_MAPPED, m, 10);
	c[3] = cell(BW_ECHO, size, BS_AUTO, a, 10);
	return 4;
}

static size_t needs_chunks(struct bench_cell *c, unsigned size)
{
	size_t k = four(c, size, 1, 1, 1, 1), i;

	for (i = 0; i < k; i++)
		c[i] = with_status(c[i], BC_NEEDS_CHUNKS, "");
	c[k] = cell(BW_ECHO, size, BS_TCP, 100, 100);	/* TCP still runs */
	return k + 1;
}

START_TEST(summary_ranges)
{
	struct bench_cell c[64];
	size_t n = 0, k;
	char *out = NULL, line[256];

	/* 16-256: inline by 25% over pullup; auto inline at 0.95 */
	for (k = 16; k <= 256; k *= 4) {
		n += four(&c[n], k, 1000, 800, 700, 950);
		c[n - 1] = sends(c[n - 1], 10, 0, 0, 10, 0, 0);
	}
	/* 1K, 4K: pullup; auto mapped at 1K (0.90: the worst), pullup at 4K */
	n += four(&c[n], 1024, 500, 1000, 900, 900);
	c[n - 1] = sends(c[n - 1], 0, 0, 10, 0, 0, 10);
	n += four(&c[n], 4096, 500, 1000, 900, 980);
	c[n - 1] = sends(c[n - 1], 0, 10, 0, 0, 10, 0);
	n += needs_chunks(&c[n], 16384);
	n += needs_chunks(&c[n], 65536);
	/* 32 in flight: mapped at 16 (auto mixed); nothing fixed ran at 64 */
	k = n;
	n += four(&c[n], 16, 100, 200, 300, 330);
	c[n - 1] = sends(c[n - 1], 6, 4, 0, 6, 4, 0);
	n += four(&c[n], 64, 100, 200, 300, 330);
	c[n - 4] = with_status(c[n - 4], BC_FAILED, "x");
	c[n - 3] = with_status(c[n - 3], BC_FAILED, "x");
	c[n - 2] = with_status(c[n - 2], BC_NEEDS_CHUNKS, "");
	c[n - 1] = sends(c[n - 1], 0, 10, 0, 0, 10, 0);
	for (; k < n; k++)
		c[k].bc_inflight = 32;
	/* read ran TCP only: not summarized */
	c[n++] = cell(BW_READ, 64, BS_TCP, 100, 100);
	ck_assert_uint_le(n, sizeof(c) / sizeof(c[0]));

	bench_report_derive(c, n);
	CAPTURE(out, bench_report_summary(f_, c, n));
	ck_assert_msg(strstr(out, "echo, 1 in flight:"), "%s", out);
	ck_assert_msg(line_with(out, "16-256 B: inline", line, sizeof(line)),
		      "%s", out);
	ck_assert_msg(strstr(line, "next best pullup by 25%"), "%s", line);
	ck_assert_msg(strstr(line, "auto: inline"), "%s", line);
	ck_assert_msg(line_with(out, "1-4 KiB: pullup", line, sizeof(line)),
		      "%s", out);
	ck_assert_msg(strstr(line, "next best mapped by 11%"), "%s", line);
	ck_assert_msg(strstr(line, "auto: mapped 1 KiB, pullup 4 KiB"), "%s", line);
	ck_assert_msg(strstr(out, "16-64 KiB: needs chunks"), "%s", out);
	ck_assert_msg(line_with(out, "auto's worst ratio", line, sizeof(line)),
		      "%s", out);
	ck_assert_msg(strstr(line, "0.90 [0.90-0.90] at 1 KiB"), "%s", line);
	ck_assert_msg(strstr(line, "below it"), "%s", line);

	ck_assert_msg(strstr(out, "echo, 32 in flight:"), "%s", out);
	ck_assert_msg(line_with(out, "16 B: mapped", line, sizeof(line)),
		      "%s", out);
	ck_assert_msg(strstr(line, "next best pullup by 50%"), "%s", line);
	ck_assert_msg(strstr(line, "auto: mixed"), "%s", line);
	ck_assert_msg(line_with(out, "64 B: no fixed strategy ran", line,
				sizeof(line)), "%s", out);
	ck_assert_msg(strstr(out, "1.10 [1.10-1.10] at 16 B"), "%s", out);
	ck_assert_msg(!strstr(out, "read"), "%s", out);
	free(out);
}
END_TEST

/* For read, auto's choice is the server's: its Replies carry the payload. */
START_TEST(summary_auto_payload_side)
{
	struct bench_cell c[8];
	size_t i, n = 0;
	char *out = NULL;

	for (i = 0; i < 2; i++) {
		unsigned size = i ? 1024 : 16;

		c[n++] = cell(BW_READ, size, BS_INLINE, 1000, 10);
		c[n++] = cell(BW_READ, size, BS_PULLUP, 900, 10);
		c[n] = cell(BW_READ, size, BS_AUTO, 990, 10);
		c[n] = sends(c[n], 10, 0, 0, i ? 0 : 10, i ? 10 : 0, 0);
		n++;
	}
	bench_report_derive(c, n);
	CAPTURE(out, bench_report_summary(f_, c, n));
	ck_assert_msg(strstr(out, "auto: inline 16 B, pullup 1 KiB"), "%s", out);
	free(out);
}
END_TEST

/* ---- rendering ---------------------------------------------------------- */

START_TEST(table_na_and_failed)
{
	struct bench_cell c[] = {
		cell(BW_ECHO, 64, BS_INLINE, 1000, 20),
		with_status(cell(BW_ECHO, 16, BS_PULLUP, 12345, 20),
			    BC_NEEDS_CHUNKS, "too big"),
		with_status(cell(BW_ECHO, 16, BS_MAPPED, 54321, 20),
			    BC_FAILED, "boom, \"really\""),
		cell(BW_ECHO, 16, BS_INLINE, 1000, 20),
		cell(BW_ECHO, 16, BS_TCP, 777, 20),
	};
	size_t n = sizeof(c) / sizeof(c[0]);
	char *out = NULL, line[512];

	c[3].bc_client.bk_inline_sends = 12;
	c[3].bc_server.bk_pullup_sends = 7;
	bench_report_derive(c, n);
	CAPTURE(out, bench_report_table(f_, c, n));
	ck_assert_msg(row_of(out, "pullup", line, sizeof(line)), "%s", out);
	ck_assert_msg(strstr(line, "n/a (needs chunks)"), "%s", line);
	ck_assert_msg(!strstr(line, "12345"), "%s", line);
	ck_assert_msg(row_of(out, "mapped", line, sizeof(line)), "%s", out);
	ck_assert_msg(strstr(line, "FAILED: boom, \"really\""), "%s", line);
	ck_assert_msg(!strstr(out, "54321"), "%s", out);
	/* the winner is marked, its client and server Sends counted */
	ck_assert_msg(line_with(out, "i12 p0 m0", line, sizeof(line)), "%s", out);
	ck_assert_msg(strstr(line, " * "), "%s", line);
	ck_assert_msg(strstr(line, "i0 p7 m0"), "%s", line);
	ck_assert_msg(row_of(out, "tcp", line, sizeof(line)), "%s", out);
	ck_assert_msg(strstr(line, "777"), "%s", line);
	ck_assert_msg(!strstr(line, "*"), "%s", line);
	/* sorted by size: the 16s, a blank line, then 64 */
	ck_assert_uint_eq(count(out, "\n\n"), 1);
	ck_assert(strstr(out, "FAILED") < strstr(out, "\n\n"));
	ck_assert(strstr(out, "    64 ") > strstr(out, "\n\n"));
	free(out);
}
END_TEST

/* --conns: sweep cells leave the main table for their own, grouped
 * apart from the same (workload, size, inflight) without a sweep. */
START_TEST(scale_table)
{
	struct bench_cell c[] = {
		cell(BW_NULL, 0, BS_AUTO, 1111, 20),
		cell(BW_NULL, 0, BS_AUTO, 2222, 20),
		cell(BW_NULL, 0, BS_TCP, 3333, 40),
		with_status(cell(BW_NULL, 0, BS_AUTO, 4444, 20), BC_FAILED,
			    "999 of 1000 connections answered"),
	};
	size_t n = sizeof(c) / sizeof(c[0]);
	char *out = NULL, line[512];

	c[1].bc_sweep = c[1].bc_conns = c[2].bc_sweep = c[2].bc_conns = 128;
	c[3].bc_sweep = c[3].bc_conns = 1000;
	c[1].bc_served = c[2].bc_served = 128;
	c[1].bc_connect_s = 0.512;
	c[1].bc_has_scale = 1;
	c[1].bc_scale_server.sc_pin0_kb = 1000;
	c[1].bc_scale_server.sc_pin_kb = 1000 + 128 * 130;
	c[1].bc_scale_server.sc_recv_bytes = 3u << 20;
	c[1].bc_scale_server.sc_threads = 3;
	c[1].bc_scale_client.sc_pin_kb = 128 * 1244;
	c[1].bc_scale_client.sc_threads = 130;
	bench_report_derive(c, n);
	/* compared with TCP at its own count, not with the unswept auto */
	ck_assert(c[1].bc_vs_tcp > 0.49 && c[1].bc_vs_tcp < 0.51);
	ck_assert(c[0].bc_vs_tcp == 0);
	CAPTURE(out, bench_report_table(f_, c, n));
	ck_assert_msg(strstr(out, "1111"), "%s", out);
	ck_assert_msg(!strstr(out, "2222") && !strstr(out, "3333") &&
		      !strstr(out, "999 of"), "%s", out);
	free(out);
	out = NULL;
	CAPTURE(out, bench_report_scale(f_, c, n));
	ck_assert_msg(!strstr(out, "1111"), "%s", out);
	ck_assert_msg(line_with(out, "2222", line, sizeof(line)), "%s", out);
	/* 128 connections, 4 ms each, server 17.2 MiB and 130 kB each,
	 * 3 MiB of receives, client 1244 kB each */
	ck_assert_msg(strstr(line, "auto") && strstr(line, " 128 ") &&
		      strstr(line, " 4.0 ") && strstr(line, "17.2") &&
		      strstr(line, "130.0") && strstr(line, " 3.0 ") &&
		      strstr(line, "1244.0") && strstr(line, "0.50"), "%s", line);
	ck_assert_msg(line_with(out, "FAILED: 999 of 1000 connections answered",
				line, sizeof(line)), "%s", out);
	free(out);
	out = NULL;
	/* no sweep, no table */
	CAPTURE(out, bench_report_scale(f_, c, 1));
	ck_assert_str_eq(out, "");
	free(out);
}
END_TEST

START_TEST(json_escapes_and_nulls)
{
	struct bench_cell c[] = {
		with_status(cell(BW_ECHO, 16, BS_MAPPED, 1, 20), BC_FAILED,
			    "a \"q\" \\ \n \x01 \xff \xc2\xb5s"),
		cell(BW_ECHO, 16, BS_TCP, 1, 20),
	};
	char *out = NULL;

	c[0].bc_calls_per_s = NAN;
	c[0].bc_mb_per_s = INFINITY;
	c[0].bc_cpu_client = 3.5;
	c[0].bc_client.bk_too_large = 4;
	bench_report_derive(c, 2);
	CAPTURE(out, bench_report_json(f_, c, 2, NULL));
	ck_assert_msg(strstr(out, "\"note\": \"a \\\"q\\\" \\\\ \\n \\u0001 "
			     "\\ufffd \xc2\xb5s\""), "%s", out);
	ck_assert_msg(strstr(out, "\"calls_per_s\": null, \"mb_per_s\": null"),
		      "%s", out);
	ck_assert_msg(strstr(out, "\"cpu_us_per_call\": {\"client\": 3.5, "
			     "\"server\": null}"), "%s", out);
	ck_assert_msg(strstr(out, "\"too_large\": 4"), "%s", out);
	ck_assert_msg(strstr(out, "\"status\": \"failed\""), "%s", out);
	ck_assert_uint_eq(count(out, "\"testbed\": null"), 2);
	ck_assert_uint_eq(count(out, "\"counters\": null"), 1);
	ck_assert_uint_eq(count(out, "\"vs_tcp\": null"), 1);	/* failed */
	ck_assert_uint_eq(count(out, "\"vs_tcp\": 1,"), 1);	/* tcp itself */
	ck_assert_uint_eq(count(out, "\"winner\": false"), 2);
	ck_assert_msg(!strstr(out, ": nan") && !strstr(out, ": inf") &&
		      !strstr(out, "NaN"), "%s", out);
	ck_assert_int_eq(out[0], '[');
	ck_assert_str_eq(out + strlen(out) - 2, "]\n");
	free(out);

	CAPTURE(out, bench_report_json(f_, c, 0, "bed"));
	ck_assert_str_eq(out, "[]\n");
	free(out);
}
END_TEST

START_TEST(json_csv_carry_trials)
{
	static const double v[] = { 100, 300, 200 };
	struct bench_cell c = trials(cell(BW_ECHO, 16, BS_INLINE, 0, 0), v, 3);
	char *out = NULL;

	bench_report_derive(&c, 1);
	CAPTURE(out, bench_report_json(f_, &c, 1, NULL));
	ck_assert_msg(strstr(out, "\"trials\": {\"calls_per_s\": [100, 300, 200], "
			     "\"p50\": [10000, "), "%s", out);
	ck_assert_msg(strstr(out, "\"calls_per_s_ci\": [100, 300]"), "%s", out);
	ck_assert_msg(strstr(out, "\"winner\": true, \"tied\": false"), "%s", out);
	free(out);
	CAPTURE(out, bench_report_csv(f_, &c, 1));
	ck_assert_msg(strstr(out, ",1,0,3,100,300,"), "%s", out);
	ck_assert_msg(strstr(out, ",100;300;200,10000;"), "%s", out);
	free(out);
}
END_TEST

/* The cost table: per call, - where a figure was not counted. */
START_TEST(cost_table_per_call)
{
	struct bench_cell c[] = {
		cell(BW_ECHO, 64, BS_INLINE, 1000, 20),
		cell(BW_ECHO, 64, BS_RAW_POLL, 1000, 20),
	};
	char *out = NULL, line[512];

	c[0].bc_has_cost = c[1].bc_has_cost = 1;
	c[0].bc_calls = c[1].bc_calls = 1000;
	c[0].bc_cost_client = (struct bench_cost){ .ck_syscalls = 3000,
		.ck_vcsw = 1000, .ck_ivcsw = 10, .ck_allocs = 0,
		.ck_have = BENCH_COST_SYSCALLS | BENCH_COST_CSW | BENCH_COST_ALLOCS };
	c[0].bc_cost_server = c[0].bc_cost_client;
	c[0].bc_client.bk_wakeups = 500;
	c[0].bc_client.bk_busy_poll_hits = 1500;
	c[1].bc_cost_client = c[0].bc_cost_client;
	ck_assert(bench_cost_per_call(&c[0], 0, K_SYS) == 3);
	ck_assert(bench_cost_per_call(&c[0], 0, K_SLEEP) == 0.5);
	ck_assert(bench_cost_per_call(&c[0], 0, K_HIT) == 1.5);
	ck_assert(bench_cost_per_call(&c[0], 0, K_ALLOC) == 0);
	ck_assert(isnan(bench_cost_per_call(&c[0], 0, K_INSTR)));
	/* a baseline has no library counters */
	ck_assert(isnan(bench_cost_per_call(&c[1], 0, K_SLEEP)));
	/* the server's figures were not fetched */
	ck_assert(isnan(bench_cost_per_call(&c[1], 1, K_SYS)));
	CAPTURE(out, bench_report_cost(f_, c, 2));
	ck_assert_msg(row_of(out, "inline", line, sizeof(line)), "%s", out);
	ck_assert_msg(strstr(line, "3.00   1.00   0.01   0.50   1.50   0.00"
			     "        -"), "%s", line);
	ck_assert_msg(strstr(out, "client: instructions not counted"), "%s", out);
	ck_assert_msg(strstr(out, "tools/bench/callgrind-cost"), "%s", out);
	ck_assert_msg(strstr(out, "raw_syscalls:sys_enter"), "%s", out);
	free(out);
	CAPTURE(out, bench_report_json(f_, c, 1, NULL));
	ck_assert_msg(strstr(out, "\"cost_per_call\": {\"client\": {\"syscalls\": 3, "
			     "\"vol_csw\": 1, \"invol_csw\": 0.01, "
			     "\"channel_sleeps\": 0.5, \"busy_poll_hits\": 1.5, "
			     "\"allocs\": 0, \"instructions\": null}"), "%s", out);
	free(out);
}
END_TEST

START_TEST(svg_interval_marks)
{
	static const double v[] = { 1000, 1100, 900 };
	struct bench_cell c[] = {
		trials(cell(BW_ECHO, 16, BS_INLINE, 0, 0), v, 3),
		trials(cell(BW_ECHO, 1024, BS_INLINE, 0, 0), v, 3),
	};
	char *out = NULL;
	int rc = 1;

	bench_report_derive(c, 2);
	CAPTURE(out, rc = bench_plot_svg(f_, c, 2, "t"));
	ck_assert_int_eq(rc, 0);
	/* two panels (p50, MB/s), two points each, a mark per point (and
	 * the legend's one circle) */
	ck_assert_uint_eq(count(out, "<circle"), 5);
	ck_assert_uint_eq(count(out, "class=\"ci\""), 4);
	ck_assert_msg(strstr(out, "data-lo=\"900\" data-hi=\"1100\"") ||
		      strstr(out, "data-lo=\"909.091\""), "%s", out);
	free(out);
}
END_TEST

START_TEST(csv_quotes_the_note)
{
	struct bench_cell c[] = {
		with_status(cell(BW_ECHO, 16, BS_MAPPED, 1, 20), BC_FAILED,
			    "a \"b\", c"),
		cell(BW_ECHO, 16, BS_RAW_POLL, 1, 20),
	};
	char *out = NULL;

	CAPTURE(out, bench_report_csv(f_, c, 2));
	ck_assert_msg(!strncmp(out, "workload,size,strategy,inflight,", 32),
		      "%s", out);
	ck_assert_msg(strstr(out, ",failed,\"a \"\"b\"\", c\","), "%s", out);
	ck_assert_msg(strstr(out, "client_inline_sends"), "%s", out);
	ck_assert_msg(strstr(out, "server_fallbacks"), "%s", out);
	ck_assert_uint_eq(count(out, "\n"), 3);
	free(out);
}
END_TEST

START_TEST(svg_series_per_panel)
{
	struct bench_cell c[] = {
		cell(BW_ECHO, 16, BS_INLINE, 1000, 20),
		cell(BW_ECHO, 1024, BS_INLINE, 900, 30),
		cell(BW_ECHO, 16, BS_TCP, 500, 50),
		with_status(cell(BW_ECHO, 16, BS_MAPPED, 1, 20), BC_FAILED, ""),
		with_status(cell(BW_ECHO, 1024, BS_MAPPED, 1, 20),
			    BC_NEEDS_CHUNKS, ""),
	};
	char *out = NULL;
	int rc = 1;

	CAPTURE(out, rc = bench_plot_svg(f_, c, 5, "a <b> & \"c\""));
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(strstr(out, "xmlns=\"http://www.w3.org/2000/svg\""),
		      "%s", out);
	ck_assert_uint_eq(count(out, "class=\"panel\""), 2);
	ck_assert_uint_eq(count(out, "class=\"series\""), 4);
	ck_assert_uint_eq(count(out, "data-strategy=\"inline\""), 2);
	ck_assert_uint_eq(count(out, "data-strategy=\"tcp\""), 2);
	ck_assert_uint_eq(count(out, "data-strategy=\"mapped\""), 0);
	ck_assert_msg(strstr(out, "a &lt;b&gt; &amp; &quot;c&quot;"), "%s", out);
	ck_assert_msg(!strstr(out, "<b>"), "%s", out);
	ck_assert_str_eq(out + strlen(out) - 7, "</svg>\n");
	free(out);

	CAPTURE(out, rc = bench_plot_svg(f_, c, 0, NULL));
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(count(out, "class=\"series\""), 0);
	ck_assert_str_eq(out + strlen(out) - 7, "</svg>\n");
	free(out);
}
END_TEST

START_TEST(svg_write_error)
{
	struct bench_cell c[] = {
		cell(BW_ECHO, 16, BS_INLINE, 1000, 20),
		cell(BW_ECHO, 1024, BS_INLINE, 900, 30),
	};
	FILE *f = fopen("/dev/null", "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(bench_plot_svg(f, c, 2, "t"), -1);
	fclose(f);
}
END_TEST

static Suite *bench_suite(void)
{
	Suite *s = suite_create("bench");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, lat_one_to_thousand);
	tcase_add_test(tc, lat_nearest_rank);
	tcase_add_test(tc, lat_empty);
	tcase_add_test(tc, lat_single);
	tcase_add_test(tc, derive_ratios);
	tcase_add_test(tc, derive_winner);
	tcase_add_test(tc, derive_tie_and_clear_win);
	tcase_add_test(tc, summary_tie_and_noise);
	tcase_add_test(tc, json_csv_carry_trials);
	tcase_add_test(tc, svg_interval_marks);
	tcase_add_test(tc, cost_table_per_call);
	tcase_add_test(tc, summary_ranges);
	tcase_add_test(tc, summary_auto_payload_side);
	tcase_add_test(tc, table_na_and_failed);
	tcase_add_test(tc, scale_table);
	tcase_add_test(tc, json_escapes_and_nulls);
	tcase_add_test(tc, csv_quotes_the_note);
	tcase_add_test(tc, svg_series_per_panel);
	tcase_add_test(tc, svg_write_error);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(bench_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
