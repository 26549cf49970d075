/*
 * rpcrdma_bench --calibrate: from echo cells with trials, where inline,
 * pull-up and mapped cross over on this device by message size, as the
 * auto thresholds (inline_cutoff, mapped_min, page_threshold) of a
 * [device NAME] section.  Only significant differences move a default.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "report_int.h"

/*
 * An echo Call's Send, header and message, is this much over its
 * payload: RPC-over-RDMA header (28: xid, vers, credits, proc, three
 * empty lists), RPC call header with AUTH_NONE (40), the opaque's length
 * (4).  The Reply is smaller (28 + 24 + 4), so a cutoff that takes the
 * Call inline takes the Reply too.
 */
#define ECHO_SEND_OVERHEAD 72

/* The OK cell of strategy s at this size (echo, inflight q), or NULL. */
static const struct bench_cell *find(const struct bench_cell *c, size_t n,
				     unsigned size, unsigned q,
				     enum bench_strategy s)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].bc_workload == BW_ECHO && c[i].bc_size == size &&
		    c[i].bc_inflight == q && c[i].bc_strategy == s &&
		    c[i].bc_status == BC_OK)
			return &c[i];
	return NULL;
}

static const double *trials_of(const struct bench_cell *x, size_t *n)
{
	if (x->bc_ntrials) {
		*n = x->bc_ntrials;
		return x->bc_trial_cps;
	}
	*n = 1;
	return &x->bc_calls_per_s;
}

/* a over b in calls/s: 1 significantly faster, -1 slower, 0 within
 * noise; 2 when either did not run or could not carry it as forced. */
static int compare(const struct bench_cell *a, const struct bench_cell *b)
{
	const double *x, *y;
	double r, lo, hi;
	size_t nx, ny;

	if (!a || !b || a->bc_client.bk_fallbacks || a->bc_server.bk_fallbacks ||
	    b->bc_client.bk_fallbacks || b->bc_server.bk_fallbacks)
		return 2;
	x = trials_of(a, &nx);
	y = trials_of(b, &ny);
	if (bench_boot_ratio_ci(x, nx, y, ny, &r, &lo, &hi))
		return 2;
	return bench_ratio_verdict(lo, hi, 0);
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* The echo sizes at inflight q, ascending, without duplicates. */
static size_t echo_sizes(const struct bench_cell *c, size_t n, unsigned q,
			 unsigned *sizes)
{
	size_t k = 0, i, j;

	for (i = 0; i < n; i++) {
		if (c[i].bc_workload != BW_ECHO || c[i].bc_inflight != q)
			continue;
		for (j = 0; j < k && sizes[j] != c[i].bc_size; j++)
			;
		if (j == k)
			sizes[k++] = c[i].bc_size;
	}
	qsort(sizes, k, sizeof(*sizes), cmp_unsigned);
	return k;
}

/* The smallest inflight of the echo cells; 0 if none. */
static unsigned smallest_inflight(const struct bench_cell *c, size_t n)
{
	unsigned q = 0;

	for (size_t i = 0; i < n; i++)
		if (c[i].bc_workload == BW_ECHO && (!q || c[i].bc_inflight < q))
			q = c[i].bc_inflight;
	return q;
}

/*
 * inline against pull-up, ascending: inline is kept up to the last size
 * before it is first significantly slower (or can no longer carry the
 * message); found only if it was significantly faster somewhere there.
 */
static void find_inline(const struct bench_cell *c, size_t n, unsigned q,
			const unsigned *sizes, size_t k, struct bench_calib *cal)
{
	int better = 0;
	size_t i;

	cal->bk_inline_last = 0;
	cal->bk_inline_stop = 0;
	for (i = 0; i < k; i++) {
		int v = compare(find(c, n, sizes[i], q, BS_INLINE),
				find(c, n, sizes[i], q, BS_PULLUP));

		if (v == 2 || v < 0) {
			cal->bk_inline_stop = sizes[i];
			break;
		}
		better |= v > 0;
		cal->bk_inline_last = sizes[i];
	}
	cal->bk_inline_found = better && cal->bk_inline_last;
	if (cal->bk_inline_found)
		cal->bk_inline_cutoff = ECHO_SEND_OVERHEAD +
					((cal->bk_inline_last + 3) & ~3u);
}

/*
 * mapped against pull-up, descending: mapped is kept down to the last
 * size where it is not significantly slower; found only if it was
 * significantly faster somewhere in that range.
 */
static void find_mapped(const struct bench_cell *c, size_t n, unsigned q,
			const unsigned *sizes, size_t k, struct bench_calib *cal)
{
	int better = 0;
	size_t i;

	cal->bk_mapped_first = 0;
	for (i = k; i-- > 0;) {
		int v = compare(find(c, n, sizes[i], q, BS_MAPPED),
				find(c, n, sizes[i], q, BS_PULLUP));

		if (v == 2) {
			if (cal->bk_mapped_first)
				break;
			continue;	/* too large for both: keep looking down */
		}
		if (v < 0)
			break;
		better |= v > 0;
		cal->bk_mapped_first = sizes[i];
	}
	cal->bk_mapped_found = better && cal->bk_mapped_first;
	if (cal->bk_mapped_found)
		cal->bk_mapped_min = cal->bk_mapped_first;
}

int bench_calibrate(const struct bench_cell *c, size_t n,
		    struct bench_calib *cal)
{
	unsigned *sizes = malloc((n ? n : 1) * sizeof(*sizes));
	unsigned q = smallest_inflight(c, n);
	size_t k;

	if (!sizes)
		return -1;
	k = echo_sizes(c, n, q, sizes);
	cal->bk_inflight = q;
	find_inline(c, n, q, sizes, k, cal);
	find_mapped(c, n, q, sizes, k, cal);
	/* A payload must be referenced, not copied, to be mapped at all. */
	cal->bk_page_moved = cal->bk_mapped_found &&
			     cal->bk_mapped_min < cal->bk_page_threshold;
	if (cal->bk_page_moved)
		cal->bk_page_threshold = cal->bk_mapped_min;
	free(sizes);
	return k ? 0 : -1;
}

void bench_calib_write(FILE *f, const struct bench_calib *cal,
		       const char *device, const char *testbed)
{
	char a[32], b[32];

	fprintf(f, "# rpcrdma_bench --calibrate%s%s: echo at %u in flight, "
		"%u trials a cell;\n# a threshold moves only where the 95%% "
		"intervals differ.\n[device %s]\n", testbed ? " on " : "",
		testbed ? testbed : "", cal->bk_inflight, cal->bk_trials,
		device);
	if (cal->bk_inline_found) {
		bench_rep_fmt_range(a, sizeof(a), cal->bk_inline_last,
				    cal->bk_inline_last);
		fprintf(f, "# inline at least as fast as pull-up up to %s, "
			"faster somewhere", a);
		if (cal->bk_inline_stop) {
			bench_rep_fmt_range(b, sizeof(b), cal->bk_inline_stop,
					    cal->bk_inline_stop);
			fprintf(f, "; slower or unable at %s", b);
		}
		fprintf(f, "\ninline_cutoff = %u\n", cal->bk_inline_cutoff);
	} else {
		fprintf(f, "# inline against pull-up: no significant difference "
			"below the first loss; default kept\n# inline_cutoff = %u\n",
			cal->bk_inline_cutoff);
	}
	if (cal->bk_mapped_found) {
		bench_rep_fmt_range(a, sizeof(a), cal->bk_mapped_first,
				    cal->bk_mapped_first);
		fprintf(f, "# mapped at least as fast as pull-up from %s up, "
			"faster somewhere\nmapped_min = %u\n", a,
			cal->bk_mapped_min);
	} else {
		fprintf(f, "# mapped against pull-up: never significantly "
			"faster; default kept\n# mapped_min = %u\n",
			cal->bk_mapped_min);
	}
	if (cal->bk_page_moved)
		fprintf(f, "# referenced from mapped_min on, so that auto can "
			"map them\npage_threshold = %u\n", cal->bk_page_threshold);
	else
		fprintf(f, "# page_threshold = %u (default kept)\n",
			cal->bk_page_threshold);
	fputs("# not measured: crossovers by segment count (the bench sends one "
	      "segment a message)\n", f);
}
