/*
 * rpcrdma_bench's report internals: what report.c (table, derived figures),
 * export.c (JSON, CSV), summary.c and svgplot.c share: cells grouped by
 * (workload, size, inflight), size labels, the counter table, UTF-8 checks.
 */
#ifndef RPCRDMA_BENCH_REPORT_INT_H
#define RPCRDMA_BENCH_REPORT_INT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"

/* ---- small helpers ------------------------------------------------------ */

static inline const char *bench_rep_status_name(enum bench_status st)
{
	switch (st) {
	case BC_OK:		return "ok";
	case BC_NEEDS_CHUNKS:	return "needs-chunks";
	case BC_FAILED:		return "failed";
	}
	return "?";
}

/* The strategies a winner is chosen among: auto is what they are judged by. */
static inline int bench_rep_is_fixed(enum bench_strategy s)
{
	return s == BS_INLINE || s == BS_PULLUP || s == BS_MAPPED;
}

static inline size_t bench_rep_note_len(const struct bench_cell *c)
{
	return strnlen(c->bc_note, sizeof(c->bc_note));
}

/* a / b, or 0 when that is no finite positive number. */
static inline double bench_rep_ratio(double a, double b)
{
	double r;

	if (!(b > 0) || !(a > 0))
		return 0;
	r = a / b;
	return isfinite(r) ? r : 0;
}

/* A size in its largest exact binary unit: 4096 is 4 "KiB". */
const char *bench_rep_size_unit(unsigned size, unsigned *v);
/* Compact, for the table: 16, 1000, 4K, 1M. */
void bench_rep_fmt_size(char *buf, size_t len, unsigned size);
/* For the summary: "64 B", "16-256 B", "512 B-4 KiB". */
void bench_rep_fmt_range(char *buf, size_t len, unsigned lo, unsigned hi);

/* Every counter of struct bench_counters, by its name in JSON and CSV. */
struct bench_rep_counter_field {
	const char *name;
	size_t off;
};
extern const struct bench_rep_counter_field bench_rep_counter_fields[];
extern const size_t bench_rep_nr_counters;

/* Counter i of k (bench_rep_counter_fields[i]). */
static inline uint64_t bench_rep_counter(const struct bench_counters *k,
					 size_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)k + bench_rep_counter_fields[i].off, sizeof(v));
	return v;
}

/*
 * Length of the well-formed UTF-8 sequence at p (at most left bytes), or
 * 0 if there is none (Unicode table 3-7: no overlongs, no surrogates).
 */
size_t bench_rep_utf8_len(const unsigned char *p, size_t left);

/* ---- cells grouped by (workload, size, inflight) ------------------------ */

/* A cell and its index in the caller's array. */
struct ref {
	const struct bench_cell *c;
	size_t i;
};

/*
 * The cells ordered by connections sweep (none first), workload, size,
 * inflight, strategy, then their
 * order in the array; NULL if out of memory.  The caller frees it.
 */
struct ref *bench_rep_sorted(const struct bench_cell *c, size_t n);

static inline int bench_rep_same_group(const struct bench_cell *a,
				       const struct bench_cell *b)
{
	return a->bc_workload == b->bc_workload && a->bc_size == b->bc_size &&
	       a->bc_inflight == b->bc_inflight && a->bc_sweep == b->bc_sweep;
}

/* One past the last cell of the group r[b] starts. */
size_t bench_rep_group_end(const struct ref *r, size_t n, size_t b);

/* The first OK cell of strategy s in r[b..e), or NULL. */
const struct ref *bench_rep_find_ok(const struct ref *r, size_t b, size_t e,
				    enum bench_strategy s);

/*
 * The OK fixed-strategy cell with most calls/s in r[b..e), the first one
 * on a tie, leaving out strategy except (-1: none); NULL if none ran.
 */
const struct ref *bench_rep_best_fixed(const struct ref *r, size_t b, size_t e,
				       int except);

#endif /* RPCRDMA_BENCH_REPORT_INT_H */
