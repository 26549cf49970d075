/*
 * rpcrdma_bench's summary: per workload and inflight, the size ranges each
 * fixed strategy wins by calls/s, what auto chose there (from the Sends that
 * carried the payload), and auto's worst ratio to the best fixed strategy.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "bench.h"
#include "report_int.h"

/* A size's outcome besides the winning fixed strategy (0..2). */
enum { ROW_NA = -1, ROW_NONE = -2, ROW_TIE = -3 };
/* What auto chose besides BS_INLINE, BS_PULLUP, BS_MAPPED. */
enum { AC_MIXED = BS_NR_RPC, AC_UNKNOWN, AC_NONE };

/* One size of one (workload, inflight). */
struct srow {
	unsigned size;
	int cls;		/* winning fixed strategy, ROW_TIE, ROW_NA, ROW_NONE */
	unsigned tied;		/* ROW_TIE: the tied strategies' bits */
	int next;		/* the runner-up, -1: none */
	double margin;		/* best calls/s over the runner-up's, - 1 */
	int autoc;		/* what auto chose */
	int best;		/* the fixed strategy of most calls/s, -1: none */
	double best_cps;
	double auto_cps;	/* < 0: auto did not run OK */
	double ratio, r_lo, r_hi;	/* auto over best, its interval */
	int has_ratio;
};

/*
 * The Send type auto used for the messages that carry the payload (the
 * client's Calls for write, the server's Replies for read, both sides
 * otherwise): the type of 90% of those Sends or more, else mixed.
 */
static int auto_choice(const struct bench_cell *a)
{
	const struct bench_counters *k[2] = { &a->bc_client, &a->bc_server };
	uint64_t s[3] = { 0, 0, 0 }, tot;
	int i, top = 0;

	if (!a->bc_has_counters)
		return AC_UNKNOWN;
	for (i = 0; i < 2; i++) {
		if ((a->bc_workload == BW_WRITE && i == 1) ||
		    (a->bc_workload == BW_READ && i == 0))
			continue;
		s[0] += k[i]->bk_inline_sends;
		s[1] += k[i]->bk_pullup_sends;
		s[2] += k[i]->bk_mapped_sends;
	}
	tot = s[0] + s[1] + s[2];
	if (!tot)
		return AC_UNKNOWN;
	for (i = 1; i < 3; i++)
		if (s[i] > s[top])
			top = i;
	if (s[top] < tot - tot / 10)
		return AC_MIXED;
	return top == 0 ? BS_INLINE : top == 1 ? BS_PULLUP : BS_MAPPED;
}

static const char *auto_name(int ac)
{
	switch (ac) {
	case AC_MIXED:		return "mixed";
	case AC_UNKNOWN:	return "unknown (no counters)";
	case AC_NONE:		return "no result";
	}
	return bench_strategy_name((enum bench_strategy)ac);
}

/* A cell's calls/s trials, or its one figure when it has none. */
static const double *trials_of(const struct bench_cell *x, size_t *n)
{
	if (x->bc_ntrials) {
		*n = x->bc_ntrials;
		return x->bc_trial_cps;
	}
	*n = 1;
	return &x->bc_calls_per_s;
}

/* auto's calls/s over the best fixed strategy's, with its interval. */
static void auto_ratio(struct srow *row, const struct bench_cell *au,
		       const struct bench_cell *best)
{
	const double *a, *b;
	size_t na, nb;

	row->has_ratio = 0;
	if (!au || !best)
		return;
	a = trials_of(au, &na);
	b = trials_of(best, &nb);
	row->has_ratio = !bench_boot_ratio_ci(a, na, b, nb, &row->ratio,
					      &row->r_lo, &row->r_hi);
}

/* The tie marks of the group's fixed strategies, as bits. */
static unsigned tied_bits(const struct ref *r, size_t b, size_t e)
{
	unsigned t = 0;

	for (; b < e; b++)
		if (r[b].c->bc_tied && bench_rep_is_fixed(r[b].c->bc_strategy))
			t |= 1u << r[b].c->bc_strategy;
	return t;
}

/* The summary row of group r[b..e); 0 if the group has no RPC cell. */
static int group_row(const struct ref *r, size_t b, size_t e, struct srow *row)
{
	const struct ref *best, *next, *au;
	unsigned rpc = 0, na = 0;
	size_t i;

	for (i = b; i < e; i++) {
		if (r[i].c->bc_strategy >= BS_NR_RPC)
			continue;
		rpc++;
		na += r[i].c->bc_status == BC_NEEDS_CHUNKS;
	}
	if (!rpc)
		return 0;
	best = bench_rep_best_fixed(r, b, e, -1);
	next = best ? bench_rep_best_fixed(r, b, e, (int)best->c->bc_strategy)
		    : NULL;
	au = bench_rep_find_ok(r, b, e, BS_AUTO);
	row->size = r[b].c->bc_size;
	row->tied = tied_bits(r, b, e);
	row->best = best ? (int)best->c->bc_strategy : -1;
	row->cls = row->tied ? ROW_TIE : best ? (int)best->c->bc_strategy :
		   na == rpc ? ROW_NA : ROW_NONE;
	row->next = next ? (int)next->c->bc_strategy : -1;
	row->margin = next ? bench_rep_ratio(best->c->bc_calls_per_s,
					     next->c->bc_calls_per_s) - 1 : 0;
	row->best_cps = best ? best->c->bc_calls_per_s : 0;
	row->auto_cps = au ? au->c->bc_calls_per_s : -1;
	row->autoc = au ? auto_choice(au->c) : AC_NONE;
	auto_ratio(row, au ? au->c : NULL, best ? best->c : NULL);
	return 1;
}

/* The rows of workload w at inflight q, by size; how many. */
static size_t collect_rows(const struct ref *r, size_t n, enum bench_workload w,
			   unsigned q, struct srow *rows)
{
	size_t b, e, k = 0;

	for (b = 0; b < n; b = e) {
		e = bench_rep_group_end(r, n, b);
		if (r[b].c->bc_workload == w && r[b].c->bc_inflight == q &&
		    !r[b].c->bc_sweep)	/* the sweep has its own table */
			k += group_row(r, b, e, &rows[k]);
	}
	return k;
}

/* The smallest inflight of w's RPC cells above prev (0: any); 0 if none. */
static unsigned next_inflight(const struct bench_cell *c, size_t n,
			      enum bench_workload w, unsigned prev)
{
	unsigned q = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i].bc_workload == w && c[i].bc_strategy < BS_NR_RPC &&
		    c[i].bc_inflight > prev && (!q || c[i].bc_inflight < q))
			q = c[i].bc_inflight;
	return q;
}

/* "; auto: inline" or "; auto: inline 16-64 B, pullup 256 B". */
static void print_auto(FILE *f, const struct srow *row, size_t b, size_t e)
{
	char range[64];
	size_t i, j;

	for (i = b + 1; i < e && row[i].autoc == row[b].autoc; i++)
		;
	if (i == e) {
		fprintf(f, "; auto: %s", auto_name(row[b].autoc));
		return;
	}
	fputs("; auto:", f);
	for (i = b; i < e; i = j) {
		for (j = i + 1; j < e && row[j].autoc == row[i].autoc; j++)
			;
		bench_rep_fmt_range(range, sizeof(range), row[i].size,
				    row[j - 1].size);
		fprintf(f, "%s %s %s", i > b ? "," : "", auto_name(row[i].autoc),
			range);
	}
}

/* "(next best pullup by 3-8%)" over the sizes that had a runner-up. */
static void print_margin(FILE *f, const struct srow *row, size_t b, size_t e)
{
	double lo = INFINITY, hi = -INFINITY;
	unsigned nexts = 0, s;
	const char *sep = "";
	size_t i;

	for (i = b; i < e; i++) {
		if (row[i].next < 0)
			continue;
		nexts |= 1u << row[i].next;
		lo = fmin(lo, row[i].margin);
		hi = fmax(hi, row[i].margin);
	}
	if (!nexts) {
		fputs(" (the only fixed strategy that ran)", f);
		return;
	}
	fputs(" (next best ", f);
	for (s = 0; s < BS_NR_RPC; s++)
		if (nexts & 1u << s) {
			fprintf(f, "%s%s", sep,
				bench_strategy_name((enum bench_strategy)s));
			sep = "/";
		}
	if (hi < 0.005)
		fputs(" by <1%)", f);
	else if ((int)(lo * 100 + 0.5) == (int)(hi * 100 + 0.5))
		fprintf(f, " by %.0f%%)", lo * 100);
	else
		fprintf(f, " by %.0f-%.0f%%)", lo * 100, hi * 100);
}

/* "tie inline/pullup (intervals overlap)". */
static void print_tie(FILE *f, unsigned tied)
{
	const char *sep = "";
	unsigned s;

	fputs("tie ", f);
	for (s = 0; s < BS_NR_RPC; s++)
		if (tied & 1u << s) {
			fprintf(f, "%s%s", sep,
				bench_strategy_name((enum bench_strategy)s));
			sep = "/";
		}
	fputs(" (95% intervals overlap)", f);
}

/* Consecutive sizes with the same outcome, one line each. */
static void print_ranges(FILE *f, const struct srow *row, size_t k)
{
	char range[64];
	size_t b, e;

	for (b = 0; b < k; b = e) {
		for (e = b + 1; e < k && row[e].cls == row[b].cls &&
		     row[e].tied == row[b].tied; e++)
			;
		bench_rep_fmt_range(range, sizeof(range), row[b].size,
				    row[e - 1].size);
		fprintf(f, "  %s: ", range);
		if (row[b].cls == ROW_NA) {
			fputs("needs chunks\n", f);
			continue;
		}
		if (row[b].cls == ROW_NONE) {
			fputs("no fixed strategy ran", f);
		} else if (row[b].cls == ROW_TIE) {
			print_tie(f, row[b].tied);
		} else {
			fputs(bench_strategy_name((enum bench_strategy)row[b].cls), f);
			print_margin(f, row, b, e);
		}
		print_auto(f, row, b, e);
		fputc('\n', f);
	}
}

static const char *verdict_name(int v)
{
	return v > 0 ? "above it" : v < 0 ? "below it" : "within noise";
}

/*
 * auto's calls/s over the best fixed strategy's (the highest median,
 * tied or not): the lowest ratio, where, and whether its interval holds
 * 1.0 (within noise, not a loss); then how many sizes fall each way.
 */
static void print_worst(FILE *f, const struct srow *row, size_t k)
{
	const struct srow *worst = NULL;
	unsigned missed = 0, count[3] = { 0, 0, 0 };
	char size[32];
	size_t i;

	for (i = 0; i < k; i++) {
		if (row[i].best < 0)
			continue;
		if (row[i].auto_cps < 0 || !row[i].has_ratio) {
			missed++;
			continue;
		}
		count[bench_ratio_verdict(row[i].r_lo, row[i].r_hi, 0) + 1]++;
		if (!worst || row[i].ratio < worst->ratio)
			worst = &row[i];
	}
	fputs("  auto's worst ratio to the best fixed strategy: ", f);
	if (!worst) {
		fputs("none (auto and a fixed strategy never both ran)\n", f);
	} else {
		bench_rep_fmt_range(size, sizeof(size), worst->size,
				    worst->size);
		fprintf(f, "%.2f [%.2f-%.2f] at %s (auto %.0f calls/s, %s %.0f), "
			"%s\n", worst->ratio, worst->r_lo, worst->r_hi, size,
			worst->auto_cps,
			bench_strategy_name((enum bench_strategy)worst->best),
			worst->best_cps, verdict_name(bench_ratio_verdict(
				worst->r_lo, worst->r_hi, 0)));
		fprintf(f, "  auto against the best fixed strategy: below at %u "
			"size%s, within noise at %u, above at %u\n", count[0],
			count[0] == 1 ? "" : "s", count[1], count[2]);
	}
	if (missed)
		fprintf(f, "  auto had no result at %u size%s where a fixed "
			"strategy ran\n", missed, missed > 1 ? "s" : "");
}

/*
 * Per workload with librpcrdma cells, per inflight: the size ranges each
 * fixed strategy wins by calls/s (sizes that are n/a for every strategy:
 * "needs chunks"), what auto chose there, and auto's worst ratio.
 */
void bench_report_summary(FILE *f, const struct bench_cell *c, size_t n)
{
	struct ref *r = bench_rep_sorted(c, n);
	struct srow *rows = malloc((n ? n : 1) * sizeof(*rows));
	unsigned w, q;
	size_t k;

	fputs("Summary: where each fixed strategy wins by calls/s (its 95% "
	      "interval clear of the others'; else a tie); auto's choice from "
	      "the Sends that carried the payload\n", f);
	if (!r || !rows) {
		fputs("  (out of memory)\n", f);
		goto out;
	}
	for (w = 0; w < BW_NR; w++) {
		for (q = next_inflight(c, n, w, 0); q;
		     q = next_inflight(c, n, w, q)) {
			k = collect_rows(r, n, w, q, rows);
			if (!k)
				continue;
			fprintf(f, "\n%s, %u in flight:\n",
				bench_workload_name((enum bench_workload)w), q);
			print_ranges(f, rows, k);
			print_worst(f, rows, k);
		}
	}
out:
	free(rows);
	free(r);
}
