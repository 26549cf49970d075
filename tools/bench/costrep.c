/*
 * rpcrdma_bench's cost table (--cost): per cell and side, system calls,
 * context switches, completion-channel sleeps, busy-poll hits, heap
 * allocations and user-space instructions per call, and the tool that
 * gave each column.  Counts, not times: they carry over to real hardware.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "bench.h"
#include "report_int.h"

/* Columns of one side, in order; which BENCH_COST_* each needs (0: the
 * library's counters). */

static const unsigned need[K_NR] = {
	BENCH_COST_SYSCALLS, BENCH_COST_CSW, BENCH_COST_CSW, 0, 0,
	BENCH_COST_ALLOCS, BENCH_COST_INSTR,
};

/* Per-call value of column k on one side; NAN when not counted. */
double bench_cost_per_call(const struct bench_cell *c, int server, int k)
{
	const struct bench_cost *x = server ? &c->bc_cost_server : &c->bc_cost_client;
	const struct bench_counters *q = server ? &c->bc_server : &c->bc_client;
	double calls = (double)c->bc_calls, v;

	if (c->bc_status != BC_OK || !c->bc_has_cost || !(calls > 0))
		return NAN;
	if (need[k] && !(x->ck_have & need[k]))
		return NAN;
	if (!need[k] && !c->bc_has_counters)
		return NAN;	/* baselines: not librpcrdma's counters */
	switch (k) {
	case K_SYS:	v = (double)x->ck_syscalls; break;
	case K_VCSW:	v = (double)x->ck_vcsw; break;
	case K_IVCSW:	v = (double)x->ck_ivcsw; break;
	case K_SLEEP:	v = (double)q->bk_wakeups; break;
	case K_HIT:	v = (double)q->bk_busy_poll_hits; break;
	case K_ALLOC:	v = (double)x->ck_allocs; break;
	default:	v = (double)x->ck_instructions; break;
	}
	return v / calls;
}

static void put(FILE *f, double v, int wide)
{
	if (isnan(v))
		fprintf(f, " %*s", wide, "-");
	else if (v >= 1000)
		fprintf(f, " %*.0f", wide, v);
	else
		fprintf(f, " %*.2f", wide, v);
}

void bench_report_cost(FILE *f, const struct bench_cell *c, size_t n)
{
	static const char *const hdr[K_NR] = {
		"sys", "vcsw", "ivcsw", "sleep", "hit", "alloc", "instr",
	};
	struct ref *r = bench_rep_sorted(c, n);
	unsigned have_c = ~0u, have_s = ~0u;
	size_t i;
	int k, side;

	fprintf(f, "Cost per call (client | server)\n%-8s %6s %4s %-9s", "workload",
		"size", "infl", "strategy");
	for (side = 0; side < 2; side++) {
		fputs(side ? " |" : "", f);
		for (k = 0; k < K_NR; k++)
			fprintf(f, " %*s", k == K_INSTR ? 8 : 6, hdr[k]);
	}
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		const struct bench_cell *x = r ? r[i].c : &c[i];
		char size[16];

		bench_rep_fmt_size(size, sizeof(size), x->bc_size);
		fprintf(f, "%-8s %6s %4u %-9s", bench_workload_name(x->bc_workload),
			size, x->bc_inflight, bench_strategy_name(x->bc_strategy));
		if (x->bc_status != BC_OK) {
			fprintf(f, " %s\n", x->bc_status == BC_NEEDS_CHUNKS ?
				"n/a (needs chunks)" : "FAILED");
			continue;
		}
		for (side = 0; side < 2; side++) {
			fputs(side ? " |" : "", f);
			for (k = 0; k < K_NR; k++)
				put(f, bench_cost_per_call(x, side, k),
				    k == K_INSTR ? 8 : 6);
		}
		fputc('\n', f);
		if (x->bc_has_cost) {
			have_c &= x->bc_cost_client.ck_have;
			have_s &= x->bc_cost_server.ck_have;
		}
	}
	fputs("sys: system calls, perf_event_open on the raw_syscalls:sys_enter "
	      "tracepoint, every thread of the process;\n"
	      "vcsw/ivcsw: voluntary/involuntary context switches, getrusage"
	      "(RUSAGE_SELF);\n"
	      "sleep/hit: completion-channel sleeps (rs_wakeups) and busy-poll "
	      "hits (rs_busy_poll_hits), librpcrdma's counters (- for the "
	      "baselines);\n"
	      "alloc: heap allocations (malloc, calloc, realloc, memalign) of the "
	      "whole process, counted by the bench's interposed malloc;\n"
	      "instr: user-space instructions, perf_event_open "
	      "(PERF_COUNT_HW_INSTRUCTIONS, exclude_kernel), every thread.\n"
	      "Whole processes: the server's figures include its control "
	      "connection (a few calls a cell), the client's its timing; "
	      "- where the figure was not counted:\n", f);
	for (side = 0; side < 2; side++) {
		unsigned h = side ? have_s : have_c, b;

		for (b = BENCH_COST_SYSCALLS; b <= BENCH_COST_ALLOCS; b <<= 1)
			if (h != ~0u && !(h & b))
				fprintf(f, "  %s: %s not counted\n",
					side ? "server" : "client",
					b == BENCH_COST_SYSCALLS ? "system calls" :
					b == BENCH_COST_INSTR ? "instructions" :
					b == BENCH_COST_CSW ? "context switches" :
					"allocations");
	if (have_c != ~0u && !(have_c & BENCH_COST_INSTR))
		fputs("  (no hardware counter: run the client under valgrind "
		      "--tool=callgrind and read its dumps with "
		      "tools/bench/callgrind-cost, see rpcrdma_bench(1))\n", f);
	}
	free(r);
}
