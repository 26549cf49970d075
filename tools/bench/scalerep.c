/*
 * rpcrdma_bench's connections-sweep table (--conns): per strategy, calls in
 * flight and connection count, calls/s and latency beside what each side
 * held: registered memory (VmPin) in all and per connection, the server's
 * receive buffers, threads and descriptors.  Pure: unit-tested.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "report_int.h"

/* (with - before) / conns, in kB; the sign kept (a side can shrink). */
static double per_conn(uint64_t with, uint64_t before, unsigned conns)
{
	return conns ? ((double)with - (double)before) / conns : 0;
}

/* CPU per call, or a dash when unknown (< 0). */
static void put_us(FILE *f, double v)
{
	if (v >= 0 && isfinite(v))
		fprintf(f, " %6.0f", v);
	else
		fprintf(f, " %6s", "-");
}

static void scale_row(FILE *f, const struct bench_cell *c)
{
	const struct bench_scale *sv = &c->bc_scale_server, *cl = &c->bc_scale_client;

	fprintf(f, "%-9s %5u %5u ", bench_strategy_name(c->bc_strategy),
		c->bc_sweep, c->bc_inflight);
	if (c->bc_status != BC_OK) {
		fprintf(f, "FAILED: %.*s\n", (int)bench_rep_note_len(c), c->bc_note);
		return;
	}
	fprintf(f, "%6u %7.1f %9.0f %8.1f %8.1f", c->bc_served,
		c->bc_sweep ? c->bc_connect_s * 1e3 / c->bc_sweep : 0,
		c->bc_calls_per_s, c->bc_lat.bl_p50, c->bc_lat.bl_p99);
	put_us(f, c->bc_cpu_client);
	put_us(f, c->bc_cpu_server);
	if (c->bc_vs_tcp > 0 && isfinite(c->bc_vs_tcp))
		fprintf(f, " %6.2f", c->bc_vs_tcp);
	else
		fprintf(f, " %6s", "-");
	if (!c->bc_has_scale) {
		fputs("  -\n", f);
		return;
	}
	fprintf(f, " | %8.1f %8.1f %8.1f %4" PRIu64 " %5" PRIu64,
		sv->sc_pin_kb / 1024.0,
		per_conn(sv->sc_pin_kb, sv->sc_pin0_kb, c->bc_sweep),
		sv->sc_recv_bytes / 1048576.0, sv->sc_threads, sv->sc_fds);
	fprintf(f, " | %8.1f %6" PRIu64 " %5" PRIu64 "\n",
		per_conn(cl->sc_pin_kb, cl->sc_pin0_kb, c->bc_sweep),
		cl->sc_threads, cl->sc_fds);
}

void bench_report_scale(FILE *f, const struct bench_cell *c, size_t n)
{
	struct ref *r;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += c[i].bc_sweep != 0;
	if (!k)
		return;
	r = bench_rep_sorted(c, n);
	fputs("connections sweep (NULL calls; the callers go round the "
	      "connections, a call on each in turn)\n", f);
	fprintf(f, "%-9s %5s %5s %6s %7s %9s %8s %8s %6s %6s %6s | %8s %8s %8s "
		"%4s %5s | %8s %6s %5s\n", "strategy", "conns", "infl", "served",
		"ms/conn", "calls/s", "p50", "p99", "cpu-cl", "cpu-sv", "x tcp",
		"sv MiB",
		"sv kB/c", "recv MiB", "thr", "fds", "cl kB/c", "thr", "fds");
	/* The sort puts the sweep last, by count; here by strategy first. */
	for (int s = 0; s < BS_NR; s++)
		for (i = 0; i < n; i++) {
			const struct bench_cell *x = r ? r[i].c : &c[i];

			if (x->bc_sweep && x->bc_strategy == (enum bench_strategy)s)
				scale_row(f, x);
		}
	fputs("served: connections that answered a NULL call before the cell; "
	      "ms/conn: setting them up; latency in us; x tcp: p50 over TCP's "
	      "at the same connections; cpu-cl, cpu-sv: CPU us per call of each "
	      "process; sv/cl: server/client process, MiB "
	      "registered (VmPin) and kB more per connection than before "
	      "they existed, recv: the listener's shared receive buffers, "
	      "thr: threads, fds: descriptors\n\n", f);
	free(r);
}
