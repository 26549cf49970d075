/*
 * bench_fixture DIR: a realistic synthetic bench run (every workload, sizes
 * 16 B to 1 MiB with some past the inline threshold, one failed cell, every
 * strategy, 1 and 32 in flight) written as DIR/out.{json,csv,svg,txt} for
 * bench-formats.test to parse back.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define INLINE_THRESHOLD 4096	/* RFC 8797 default; larger needs chunks */
#define RDMA_HDR 28		/* transport header of a message */
#define MAX_INLINE 256		/* what the QP granted IBV_SEND_INLINE */
#define MAPPED_MIN 1024		/* auto maps payloads this large */
#define NSAMPLES 1000
#define NTRIALS 5		/* the default --trials */

static const unsigned sizes[] = {
	16, 64, 256, 1000, 1024, 2048, 4096, 16384, 65536, 1048576,
};
static const unsigned inflights[] = { 1, 32 };

#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define NINFLIGHT (sizeof(inflights) / sizeof(inflights[0]))

enum send_type { ST_INLINE, ST_PULLUP, ST_MAPPED };

/* A deterministic generator, so every run writes the same files. */
struct rng {
	uint64_t s;
};

static double uniform(struct rng *r)
{
	r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(r->s >> 11) * 0x1p-53;
}

/* RPC message bytes of the Call and the Reply. */
static void msg_sizes(enum bench_workload w, unsigned size, unsigned *call,
		      unsigned *reply)
{
	static const unsigned arg_fixed[BW_NR] = { 0, 4, 8, 4 };
	static const unsigned res_fixed[BW_NR] = { 0, 4, 4, 4 };

	*call = 40 + arg_fixed[w] + (w == BW_WRITE || w == BW_ECHO ? size : 0);
	*reply = 24 + res_fixed[w] + (w == BW_READ || w == BW_ECHO ? size : 0);
}

/* How strategy s sends a message of len bytes; *fb: it fell back. */
static enum send_type send_type(enum bench_strategy s, unsigned len, int *fb)
{
	*fb = 0;
	switch (s) {
	case BS_INLINE:
		if (len + RDMA_HDR <= MAX_INLINE)
			return ST_INLINE;
		*fb = 1;
		return ST_PULLUP;
	case BS_PULLUP:
		return ST_PULLUP;
	case BS_MAPPED:
		return ST_MAPPED;
	default:
		if (len + RDMA_HDR <= MAX_INLINE)
			return ST_INLINE;
		return len >= MAPPED_MIN ? ST_MAPPED : ST_PULLUP;
	}
}

/* Model cost of one Send, in µs. */
static double send_us(enum send_type t, unsigned len, int fb)
{
	static const double base[] = { 4, 6, 9 };
	static const double per_byte[] = { 0.01, 0.0025, 0.0008 };

	return base[t] + per_byte[t] * len + (fb ? 2 : 0);
}

/* Model p50 of one call at one in flight, in µs. */
static double model_us(enum bench_strategy s, enum bench_workload w, unsigned size)
{
	unsigned call, reply;
	int fb1, fb2;
	enum send_type t1, t2;

	msg_sizes(w, size, &call, &reply);
	switch (s) {
	case BS_RAW_POLL:	return 6 + 0.0008 * (call + reply);
	case BS_RAW_EVENT:	return 18 + 0.0008 * (call + reply);
	case BS_RAW_WRITE:	return 5 + 0.0007 * size;
	case BS_RAW_READ:	return 6 + 0.0007 * size;
	case BS_TCP:		return 50 + 0.003 * (call + reply);
	default:
		break;
	}
	t1 = send_type(s, call, &fb1);
	t2 = send_type(s, reply, &fb2);
	return 30 + (s == BS_AUTO) + send_us(t1, call, fb1) +
	       send_us(t2, reply, fb2);
}

static int needs_chunks(enum bench_strategy s, enum bench_workload w, unsigned size)
{
	unsigned call, reply;

	msg_sizes(w, size, &call, &reply);
	return s < BS_NR_RPC && (call + RDMA_HDR > INLINE_THRESHOLD ||
				 reply + RDMA_HDR > INLINE_THRESHOLD);
}

/* One side's counters: every call sends one message of len bytes. */
static void count_sends(struct bench_counters *k, enum bench_strategy s,
			unsigned len, unsigned inflight, uint64_t calls)
{
	int fb;
	enum send_type t = send_type(s, len, &fb);

	memset(k, 0, sizeof(*k));
	k->bk_calls = calls;
	if (t == ST_INLINE)
		k->bk_inline_sends = calls;
	else if (t == ST_PULLUP)
		k->bk_pullup_sends = calls;
	else
		k->bk_mapped_sends = calls;
	if (t == ST_PULLUP)
		k->bk_pullup_bytes = calls * (len + RDMA_HDR);
	if (t == ST_MAPPED && len >= MAPPED_MIN)
		k->bk_registrations = calls / 1000 + 1;
	if (fb)
		k->bk_fallbacks = calls;
	if (inflight > 8) {
		k->bk_sendctx_waits = calls / 50;
		k->bk_credit_waits = calls / 20;
	}
}

/* Samples around the model, a 0.2% tail, then the statistics of the cell. */
static void measure(struct bench_cell *c, double p50, struct rng *r,
		    struct bench_samples *sm)
{
	double lat = p50 * (c->bc_inflight > 1 ? 3.5 : 1);
	size_t i;

	sm->bs_n = NSAMPLES;
	for (i = 0; i < NSAMPLES; i++) {
		double v = lat * (0.96 + 0.08 * uniform(r));

		if (uniform(r) < 0.002)
			v *= 2 + 2 * uniform(r);
		sm->bs_us[i] = (float)v;
	}
	bench_lat_compute(sm, &c->bc_lat);
	/* NTRIALS trials within +-4 % of the model (the run's medians) */
	c->bc_ntrials = NTRIALS;
	for (i = 0; i < NTRIALS; i++) {
		double k = 0.96 + 0.08 * uniform(r);

		c->bc_trial_cps[i] = c->bc_inflight * 1e6 / c->bc_lat.bl_mean * k;
		c->bc_trial_p50[i] = c->bc_lat.bl_p50 / k;
	}
	c->bc_lat.bl_p50 = bench_median(c->bc_trial_p50, NTRIALS);
	c->bc_secs = 1.0 * NTRIALS;
	c->bc_calls_per_s = bench_median(c->bc_trial_cps, NTRIALS);
	c->bc_calls = (uint64_t)(c->bc_calls_per_s * c->bc_secs + 0.5);
	c->bc_mb_per_s = c->bc_calls_per_s *
			 bench_payload_bytes(c->bc_workload, c->bc_size) / 1e6;
}

static void fill_cpu(struct bench_cell *c, double p50)
{
	switch (c->bc_strategy) {
	case BS_RAW_POLL:
		c->bc_cpu_client = c->bc_cpu_server = p50;	/* busy polls */
		break;
	case BS_RAW_EVENT:
		c->bc_cpu_client = 4;
		c->bc_cpu_server = -1;				/* unknown */
		break;
	case BS_RAW_WRITE:
	case BS_RAW_READ:
		c->bc_cpu_client = p50;
		c->bc_cpu_server = 0;
		break;
	default:
		c->bc_cpu_client = 8 + 0.2 * p50;
		c->bc_cpu_server = 6 + 0.15 * p50;
		break;
	}
}

static void make_cell(struct bench_cell *c, enum bench_workload w,
		      unsigned size, enum bench_strategy s, unsigned inflight,
		      struct rng *r, struct bench_samples *sm)
{
	unsigned call, reply;
	double p50 = model_us(s, w, size);

	memset(c, 0, sizeof(*c));
	c->bc_workload = w;
	c->bc_size = size;
	c->bc_strategy = s;
	c->bc_inflight = inflight;
	c->bc_threads = s >= BS_RAW_POLL && s != BS_TCP ? 1 : inflight;
	c->bc_conns = 1;
	c->bc_cpu_client = c->bc_cpu_server = -1;
	c->bc_has_counters = bench_counted(s);
	msg_sizes(w, size, &call, &reply);
	if (needs_chunks(s, w, size)) {
		c->bc_status = BC_NEEDS_CHUNKS;
		snprintf(c->bc_note, sizeof(c->bc_note), "a %u-byte message is "
			 "over the %u-byte inline threshold",
			 call > reply ? call : reply, INLINE_THRESHOLD);
		return;
	}
	if (w == BW_ECHO && size == 1024 && s == BS_MAPPED && inflight == 32) {
		c->bc_status = BC_FAILED;
		snprintf(c->bc_note, sizeof(c->bc_note), "payload mismatch at "
			 "byte 17, want \"a5\", got \"00\"");
		return;
	}
	measure(c, p50, r, sm);
	fill_cpu(c, p50);
	if (c->bc_has_counters) {
		count_sends(&c->bc_client, s, call, inflight, c->bc_calls);
		count_sends(&c->bc_server, s, reply, inflight, c->bc_calls);
	}
}

/* Every strategy that applies, at one workload, size and inflight. */
static size_t make_strategies(struct bench_cell *c, enum bench_workload w,
			      unsigned size, unsigned inflight, struct rng *r,
			      struct bench_samples *sm)
{
	size_t n = 0;
	unsigned s;

	for (s = 0; s < BS_NR; s++)
		if (bench_applies(s, w))
			make_cell(&c[n++], w, size, s, inflight, r, sm);
	return n;
}

/*
 * The connections sweep, after the rest as a run makes it: NULL calls of
 * auto and TCP over 1, 16 and 128 connections, with holdings that grow
 * with the count (TCP pins nothing).
 */
static const unsigned sweep_conns[] = { 1, 16, 128 };
#define NSWEEP (sizeof(sweep_conns) / sizeof(sweep_conns[0]))

static size_t make_sweep(struct bench_cell *cells, struct rng *r,
			 struct bench_samples *sm)
{
	static const enum bench_strategy swept[] = { BS_AUTO, BS_TCP };
	size_t n = 0;

	for (size_t ci = 0; ci < NSWEEP; ci++)
		for (size_t k = 0; k < 2; k++)
			for (size_t q = 0; q < NINFLIGHT; q++) {
				struct bench_cell *c = &cells[n++];
				unsigned conns = sweep_conns[ci];
				int rdma = swept[k] == BS_AUTO;

				make_cell(c, BW_NULL, 0, swept[k], inflights[q], r, sm);
				c->bc_sweep = c->bc_conns = conns;
				c->bc_served = conns;
				c->bc_connect_s = conns * (rdma ? 0.004 : 0.001);
				c->bc_has_scale = 1;
				c->bc_scale_server = (struct bench_scale) {
					.sc_pin0_kb = rdma ? 1200 : 0,
					.sc_pin_kb = rdma ? 1200 + conns * 128 : 0,
					.sc_threads0 = 2, .sc_threads = 2,
					.sc_fds0 = 12, .sc_fds = 12 + conns,
					.sc_recv_bytes = rdma ? 131072u * (1 + conns / 32) : 0,
					.sc_ring_bytes = rdma ? 131072u * conns : 0,
				};
				c->bc_scale_client = (struct bench_scale) {
					.sc_pin0_kb = 0,
					.sc_pin_kb = rdma ? conns * 1244 : 0,
					.sc_threads0 = 1,
					.sc_threads = 1 + inflights[q] + (rdma ? conns : 0),
					.sc_fds0 = 4, .sc_fds = 4 + conns * (rdma ? 3 : 1),
				};
			}
	return n;
}

/* Cells in the order a run makes them: per workload, inflight, size. */
static size_t make_cells(struct bench_cell *cells, struct bench_samples *sm)
{
	struct rng r = { 20261130 };
	size_t n = 0, i, q;
	unsigned w;

	for (w = 0; w < BW_NR; w++)
		for (q = 0; q < NINFLIGHT; q++)
			for (i = 0; i < (w == BW_NULL ? 1 : NSIZES); i++)
				n += make_strategies(&cells[n], w,
						     w == BW_NULL ? 0 : sizes[i],
						     inflights[q], &r, sm);
	return n + make_sweep(&cells[n], &r, sm);
}

/* DIR/name opened for writing, or exit. */
static FILE *open_out(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

static void close_out(FILE *f, const char *name)
{
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "bench_fixture: writing %s failed\n", name);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct bench_cell *cells = calloc(BW_NR * NSIZES * NINFLIGHT * BS_NR +
					  NSWEEP * 2 * NINFLIGHT, sizeof(*cells));
	struct bench_samples sm = { calloc(NSAMPLES, sizeof(float)), 0, NSAMPLES };
	size_t n;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_fixture DIR\n");
		return 2;
	}
	if (!cells || !sm.bs_us) {
		perror("bench_fixture");
		return 1;
	}
	n = make_cells(cells, &sm);
	bench_report_derive(cells, n);

	f = open_out(argv[1], "out.json");
	bench_report_json(f, cells, n, "synthetic \"fixture\"");
	close_out(f, "out.json");
	f = open_out(argv[1], "out.csv");
	bench_report_csv(f, cells, n);
	close_out(f, "out.csv");
	f = open_out(argv[1], "out.svg");
	if (bench_plot_svg(f, cells, n,
			   "rpcrdma_bench <fixture> & synthetic cells")) {
		fprintf(stderr, "bench_fixture: bench_plot_svg failed\n");
		return 1;
	}
	close_out(f, "out.svg");
	f = open_out(argv[1], "out.txt");
	bench_report_table(f, cells, n);
	fputc('\n', f);
	bench_report_scale(f, cells, n);
	bench_report_summary(f, cells, n);
	close_out(f, "out.txt");
	free(sm.bs_us);
	free(cells);
	return 0;
}
