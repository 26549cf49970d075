/*
 * rpcrdma_bench's reports: the latency statistics of one cell, the ratios
 * and winner marks derived over all cells, the aligned table, and the
 * helpers report_int.h declares for export.c, summary.c and svgplot.c.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "report_int.h"

/* ---- shared helpers (report_int.h) -------------------------------------- */

const char *bench_rep_size_unit(unsigned size, unsigned *v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB" };
	unsigned k = 0;

	*v = size;
	while (k < 3 && *v && !(*v % 1024)) {
		*v /= 1024;
		k++;
	}
	return unit[k];
}

void bench_rep_fmt_size(char *buf, size_t len, unsigned size)
{
	unsigned v;
	const char *u = bench_rep_size_unit(size, &v);

	snprintf(buf, len, "%u%.1s", v, strcmp(u, "B") ? u : "");
}

void bench_rep_fmt_range(char *buf, size_t len, unsigned lo, unsigned hi)
{
	unsigned a, b;
	const char *ua = bench_rep_size_unit(lo, &a);
	const char *ub = bench_rep_size_unit(hi, &b);

	if (lo == hi)
		snprintf(buf, len, "%u %s", a, ua);
	else if (!strcmp(ua, ub))
		snprintf(buf, len, "%u-%u %s", a, b, ua);
	else
		snprintf(buf, len, "%u %s-%u %s", a, ua, b, ub);
}

/* Every counter of struct bench_counters, by its name in JSON and CSV. */
#define COUNTER(x) { #x, offsetof(struct bench_counters, bk_##x) }
const struct bench_rep_counter_field bench_rep_counter_fields[] = {
	COUNTER(calls), COUNTER(inline_sends), COUNTER(pullup_sends),
	COUNTER(pullup_bytes), COUNTER(mapped_sends), COUNTER(registrations),
	COUNTER(sendctx_waits), COUNTER(credit_waits), COUNTER(too_large),
	COUNTER(fallbacks), COUNTER(wakeups), COUNTER(busy_poll_hits),
};
#undef COUNTER
const size_t bench_rep_nr_counters =
	sizeof(bench_rep_counter_fields) / sizeof(bench_rep_counter_fields[0]);

/* Unicode table 3-7: no overlongs, no surrogates. */
size_t bench_rep_utf8_len(const unsigned char *p, size_t left)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, k;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (left < n || p[1] < lo || p[1] > hi)
		return 0;
	for (k = 2; k < n; k++)
		if (p[k] < 0x80 || p[k] > 0xbf)
			return 0;
	return n;
}

/* ---- latency ------------------------------------------------------------ */

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest sample with permille/1000 of all at or below. */
static double nearest_rank(const float *v, size_t n, unsigned permille)
{
	size_t r = (n * permille + 999) / 1000;

	return v[(r ? r : 1) - 1];
}

void bench_lat_compute(struct bench_samples *s, struct bench_lat *out)
{
	double sum = 0;
	size_t i, n = s && s->bs_us ? s->bs_n : 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	qsort(s->bs_us, n, sizeof(*s->bs_us), cmp_float);
	for (i = 0; i < n; i++)
		sum += s->bs_us[i];
	out->bl_mean = sum / (double)n;
	out->bl_p50 = nearest_rank(s->bs_us, n, 500);
	out->bl_p99 = nearest_rank(s->bs_us, n, 990);
	out->bl_p999 = nearest_rank(s->bs_us, n, 999);
	out->bl_min = s->bs_us[0];
	out->bl_max = s->bs_us[n - 1];
}

/* ---- cells grouped by (workload, size, inflight) ------------------------ */

static int cmp_unsigned(unsigned a, unsigned b)
{
	return (a > b) - (a < b);
}

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	const struct bench_cell *p = x->c, *q = y->c;
	int d;

	if ((d = cmp_unsigned(p->bc_sweep, q->bc_sweep)) ||
	    (d = cmp_unsigned(p->bc_workload, q->bc_workload)) ||
	    (d = cmp_unsigned(p->bc_size, q->bc_size)) ||
	    (d = cmp_unsigned(p->bc_inflight, q->bc_inflight)) ||
	    (d = cmp_unsigned(p->bc_strategy, q->bc_strategy)))
		return d;
	return (x->i > y->i) - (x->i < y->i);
}

struct ref *bench_rep_sorted(const struct bench_cell *c, size_t n)
{
	struct ref *r = malloc((n ? n : 1) * sizeof(*r));
	size_t i;

	if (!r)
		return NULL;
	for (i = 0; i < n; i++) {
		r[i].c = &c[i];
		r[i].i = i;
	}
	qsort(r, n, sizeof(*r), cmp_ref);
	return r;
}

size_t bench_rep_group_end(const struct ref *r, size_t n, size_t b)
{
	size_t e = b + 1;

	while (e < n && bench_rep_same_group(r[b].c, r[e].c))
		e++;
	return e;
}

const struct ref *bench_rep_find_ok(const struct ref *r, size_t b, size_t e,
				    enum bench_strategy s)
{
	for (; b < e; b++)
		if (r[b].c->bc_strategy == s && r[b].c->bc_status == BC_OK)
			return &r[b];
	return NULL;
}

const struct ref *bench_rep_best_fixed(const struct ref *r, size_t b, size_t e,
				       int except)
{
	const struct ref *best = NULL;

	for (; b < e; b++) {
		const struct bench_cell *x = r[b].c;

		if (!bench_rep_is_fixed(x->bc_strategy) ||
		    x->bc_status != BC_OK || (int)x->bc_strategy == except ||
		    !(x->bc_calls_per_s > 0) || !isfinite(x->bc_calls_per_s))
			continue;
		if (!best || x->bc_calls_per_s > best->c->bc_calls_per_s)
			best = &r[b];
	}
	return best;
}

/* ---- derived figures ---------------------------------------------------- */

/* A cell's intervals from its trials, or a point when it has none. */
static void cell_intervals(struct bench_cell *x)
{
	x->bc_cps_lo = x->bc_cps_hi = x->bc_calls_per_s;
	x->bc_p50_lo = x->bc_p50_hi = x->bc_lat.bl_p50;
	if (x->bc_status != BC_OK || !x->bc_ntrials)
		return;
	if (bench_boot_ci(x->bc_trial_cps, x->bc_ntrials, &x->bc_cps_lo,
			  &x->bc_cps_hi))
		x->bc_cps_lo = x->bc_cps_hi = x->bc_calls_per_s;
	if (bench_boot_ci(x->bc_trial_p50, x->bc_ntrials, &x->bc_p50_lo,
			  &x->bc_p50_hi))
		x->bc_p50_lo = x->bc_p50_hi = x->bc_lat.bl_p50;
}

/* The winner or the tie among the group's OK fixed strategies. */
static void mark_winner(struct bench_cell *c, const struct ref *r, size_t b,
			size_t e)
{
	double med[3], lo[3], hi[3];
	size_t who[3], i;
	unsigned tied;
	int k;

	for (k = 0; k < 3; k++)
		med[k] = lo[k] = hi[k] = NAN;
	for (i = b; i < e; i++) {
		const struct bench_cell *x = r[i].c;

		if (!bench_rep_is_fixed(x->bc_strategy) || x->bc_status != BC_OK ||
		    !(x->bc_calls_per_s > 0) || !isfinite(x->bc_calls_per_s) ||
		    !isnan(med[x->bc_strategy]))
			continue;
		k = (int)x->bc_strategy;
		med[k] = x->bc_calls_per_s;
		lo[k] = x->bc_cps_lo;
		hi[k] = x->bc_cps_hi;
		who[k] = r[i].i;
	}
	k = bench_pick_winner(med, lo, hi, 3, &tied);
	if (k >= 0)
		c[who[k]].bc_winner = 1;
	for (k = 0; k < 3; k++)
		if (tied & 1u << k)
			c[who[k]].bc_tied = 1;
}

/*
 * Per (workload, size, inflight): every OK cell's p50 over the OK
 * raw-poll and tcp cells' p50, every cell's intervals, and the winner
 * mark on the fixed strategy (inline, pullup, mapped) with most calls/s
 * when its interval clears the others' (else the tie marks).  auto is
 * never the winner: it is what the winner is compared with.  Out of
 * memory leaves the ratios and marks zero.
 */
void bench_report_derive(struct bench_cell *c, size_t n)
{
	struct ref *r;
	size_t b, e, i;

	for (i = 0; i < n; i++) {
		c[i].bc_vs_raw = c[i].bc_vs_tcp = 0;
		c[i].bc_winner = c[i].bc_tied = 0;
		cell_intervals(&c[i]);
	}
	r = bench_rep_sorted(c, n);
	if (!r)
		return;
	for (b = 0; b < n; b = e) {
		const struct ref *raw, *tcp;

		e = bench_rep_group_end(r, n, b);
		raw = bench_rep_find_ok(r, b, e, BS_RAW_POLL);
		tcp = bench_rep_find_ok(r, b, e, BS_TCP);
		for (i = b; i < e; i++) {
			struct bench_cell *x = &c[r[i].i];

			if (x->bc_status != BC_OK)
				continue;
			if (raw)
				x->bc_vs_raw = bench_rep_ratio(x->bc_lat.bl_p50,
							raw->c->bc_lat.bl_p50);
			if (tcp)
				x->bc_vs_tcp = bench_rep_ratio(x->bc_lat.bl_p50,
							tcp->c->bc_lat.bl_p50);
		}
		mark_winner(c, r, b, e);
	}
	free(r);
}

/* ---- table -------------------------------------------------------------- */

#define ROW_FMT "%-8s %6s %5s %-9s %1s "

static void table_header(FILE *f)
{
	fprintf(f, ROW_FMT "%2s %10s %-19s %9s %8s %8s %-17s %8s %8s %7s %7s "
		"%6s %6s  %s\n",
		"workload", "size", "infl", "strategy", "", "n", "calls/s",
		"[95% CI]", "MB/s", "mean", "p50", "[95% CI]", "p99", "p99.9",
		"cpu-cl", "cpu-sv", "x raw", "x tcp", "sends i/p/m client / server");
}

/* "%7.1f" or a dash when unknown (< 0). */
static void put_cpu(FILE *f, double v)
{
	if (v >= 0 && isfinite(v))
		fprintf(f, " %7.1f", v);
	else
		fprintf(f, " %7s", "-");
}

static void put_ratio(FILE *f, double v)
{
	if (v > 0 && isfinite(v))
		fprintf(f, " %6.2f", v);
	else
		fprintf(f, " %6s", "-");
}

/* "i12 p0 m0", and " fb3" when sends fell back to another strategy. */
static void put_sends(FILE *f, const struct bench_counters *k)
{
	fprintf(f, "i%" PRIu64 " p%" PRIu64 " m%" PRIu64, k->bk_inline_sends,
		k->bk_pullup_sends, k->bk_mapped_sends);
	if (k->bk_fallbacks)
		fprintf(f, " fb%" PRIu64, k->bk_fallbacks);
}

static void table_row(FILE *f, const struct bench_cell *c)
{
	const struct bench_lat *l = &c->bc_lat;
	char size[16], infl[16], cps_ci[48], p50_ci[48];

	bench_rep_fmt_size(size, sizeof(size), c->bc_size);
	snprintf(infl, sizeof(infl), "%u", c->bc_inflight);
	fprintf(f, ROW_FMT, bench_workload_name(c->bc_workload), size, infl,
		bench_strategy_name(c->bc_strategy),
		c->bc_winner ? "*" : c->bc_tied ? "=" : "");
	if (c->bc_status == BC_NEEDS_CHUNKS) {
		fputs("n/a (needs chunks)\n", f);
		return;
	}
	if (c->bc_status != BC_OK) {
		fprintf(f, "FAILED: %.*s\n", (int)bench_rep_note_len(c),
			c->bc_note);
		return;
	}
	snprintf(cps_ci, sizeof(cps_ci), "[%.0f-%.0f]", c->bc_cps_lo,
		 c->bc_cps_hi);
	snprintf(p50_ci, sizeof(p50_ci), "[%.1f-%.1f]", c->bc_p50_lo,
		 c->bc_p50_hi);
	fprintf(f, "%2u %10.0f %-19s %9.2f %8.1f %8.1f %-17s %8.1f %8.1f",
		c->bc_ntrials ? c->bc_ntrials : 1, c->bc_calls_per_s, cps_ci,
		c->bc_mb_per_s, l->bl_mean, l->bl_p50, p50_ci, l->bl_p99,
		l->bl_p999);
	put_cpu(f, c->bc_cpu_client);
	put_cpu(f, c->bc_cpu_server);
	put_ratio(f, c->bc_vs_raw);
	put_ratio(f, c->bc_vs_tcp);
	if (c->bc_has_counters) {
		fputs("  ", f);
		put_sends(f, &c->bc_client);
		fputs(" / ", f);
		put_sends(f, &c->bc_server);
	}
	fputc('\n', f);
}

/*
 * Ordered by workload, size, inflight, strategy, with a blank line
 * between (workload, size) groups; the array's order if out of memory.
 */
void bench_report_table(FILE *f, const struct bench_cell *c, size_t n)
{
	struct ref *r = bench_rep_sorted(c, n);
	const struct bench_cell *prev = NULL;
	size_t i;

	table_header(f);
	for (i = 0; i < n; i++) {
		const struct bench_cell *x = r ? r[i].c : &c[i];

		if (x->bc_sweep)	/* bench_report_scale()'s */
			continue;
		if (prev && (prev->bc_workload != x->bc_workload ||
			     prev->bc_size != x->bc_size))
			fputc('\n', f);
		table_row(f, x);
		prev = x;
	}
	fputs("n trials; calls/s and latencies are medians over them, [95% CI] "
	      "their bootstrap intervals; latency and CPU per call in us; "
	      "x raw, x tcp: p50 over the raw-poll, tcp p50; * most calls/s of "
	      "inline, pullup, mapped with its interval clear of the others'; "
	      "= tied (intervals overlap the leader's); sends: "
	      "inline/pullup/mapped, fb: fallbacks\n", f);
	free(r);
}

