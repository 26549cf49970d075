/*
 * rpcrdma_bench: plans the cells (workload x size x calls in flight x
 * strategy, strategies interleaved per size so drift hits all alike),
 * runs each with a warm-up and counter/CPU snapshots around it, then
 * hands the cells to the reports.  Also the server and the pair roles.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netdb.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <rdma/rdma_cma.h>
#include "bench.h"

#define SAMPLES_CAP (1u << 18)
#define CONNECT_GIVE_UP_S 30.0

/* Everything a client run holds for its whole length. */
struct bench_ctx {
	const struct bench_opts *cx_o;
	struct bench_ctl *cx_ctl;
	struct bench_rpc_client *cx_rpc[BS_NR];	/* rpc strategies and tcp */
	struct bench_raw_client *cx_raw_poll, *cx_raw_event;
	struct bench_samples cx_lat;
};

static double cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static int is_rpc(enum bench_strategy s)
{
	return s < BS_NR_RPC || s == BS_TCP || s == BS_ASYNC;
}

static void counters_sub(struct bench_counters *d, const struct bench_counters *a,
			 const struct bench_counters *b)
{
	d->bk_calls = b->bk_calls - a->bk_calls;
	d->bk_inline_sends = b->bk_inline_sends - a->bk_inline_sends;
	d->bk_pullup_sends = b->bk_pullup_sends - a->bk_pullup_sends;
	d->bk_pullup_bytes = b->bk_pullup_bytes - a->bk_pullup_bytes;
	d->bk_mapped_sends = b->bk_mapped_sends - a->bk_mapped_sends;
	d->bk_registrations = b->bk_registrations - a->bk_registrations;
	d->bk_sendctx_waits = b->bk_sendctx_waits - a->bk_sendctx_waits;
	d->bk_credit_waits = b->bk_credit_waits - a->bk_credit_waits;
	d->bk_too_large = b->bk_too_large - a->bk_too_large;
	d->bk_fallbacks = b->bk_fallbacks - a->bk_fallbacks;
	d->bk_wakeups = b->bk_wakeups - a->bk_wakeups;
	d->bk_busy_poll_hits = b->bk_busy_poll_hits - a->bk_busy_poll_hits;
}

/* ---- planning -------------------------------------------------------- */

/* Every cell in run order; *n gets their number.  NULL on no memory. */
static struct bench_cell *plan(const struct bench_opts *o, size_t *n)
{
	size_t cap = (size_t)BW_NR * o->bo_nsizes * o->bo_ninflight * BS_NR +
		     (size_t)o->bo_nsweep * BS_NR * o->bo_ninflight, k = 0;
	struct bench_cell *cells = calloc(cap ? cap : 1, sizeof(*cells));

	if (!cells)
		return NULL;
	for (int w = 0; w < BW_NR; w++) {
		unsigned nsizes = w == BW_NULL ? 1 : o->bo_nsizes;

		if (!(o->bo_workloads & 1u << w))
			continue;
		for (unsigned si = 0; si < nsizes; si++)
			for (unsigned q = 0; q < o->bo_ninflight; q++)
				for (int s = 0; s < BS_NR; s++) {
					struct bench_cell *c = &cells[k];

					if (!(o->bo_strategies & 1u << s) ||
					    !bench_applies((enum bench_strategy)s,
							   (enum bench_workload)w))
						continue;
					c->bc_workload = (enum bench_workload)w;
					c->bc_size = w == BW_NULL ? 0 : o->bo_sizes[si];
					c->bc_strategy = (enum bench_strategy)s;
					c->bc_inflight = o->bo_inflight[q];
					/* rpc.c: TCP has a connection per caller. */
					c->bc_conns = s == BS_TCP ?
						c->bc_inflight : s < BS_NR_RPC ?
						o->bo_conns : 1;
					c->bc_threads = is_rpc(c->bc_strategy) &&
							s != BS_ASYNC ?
							c->bc_inflight : 1;
					c->bc_cpu_client = c->bc_cpu_server = -1;
					k++;
				}
	}
	/*
	 * The connections sweep, after the rest: NULL calls at each count
	 * and depth, blocks of one count and one strategy (bench_sweep()
	 * connects once per block); every strategy gets the same count,
	 * TCP included.
	 */
	for (unsigned ci = 0; ci < o->bo_nsweep; ci++)
		for (int s = 0; s < BS_NR; s++) {
			if (!(o->bo_strategies & 1u << s) ||
			    !bench_sweepable((enum bench_strategy)s))
				continue;
			for (unsigned q = 0; q < o->bo_ninflight; q++) {
				struct bench_cell *c = &cells[k++];

				c->bc_workload = BW_NULL;
				c->bc_strategy = (enum bench_strategy)s;
				c->bc_inflight = c->bc_threads = o->bo_inflight[q];
				c->bc_conns = c->bc_sweep = o->bo_sweep[ci];
				c->bc_cpu_client = c->bc_cpu_server = -1;
			}
		}
	*n = k;
	return cells;
}

/* ---- one cell -------------------------------------------------------- */

static int run_once(struct bench_ctx *cx, const struct bench_cell *c,
		    const struct bench_run *run, uint64_t *calls, double *secs,
		    char *note, size_t notelen)
{
	struct bench_raw_client *raw;

	cx->cx_lat.bs_n = 0;
	if (is_rpc(c->bc_strategy))
		return bench_rpc_run(cx->cx_rpc[c->bc_strategy], run, &cx->cx_lat,
				     calls, secs, note, notelen);
	raw = c->bc_strategy == BS_RAW_EVENT ? cx->cx_raw_event : cx->cx_raw_poll;
	return bench_raw_run(raw, c->bc_strategy, run, &cx->cx_lat, calls, secs,
			     note, notelen);
}

/* Client-side counters of the cell's strategy, zero for baselines. */
static void client_counters(struct bench_ctx *cx, enum bench_strategy s,
			    struct bench_counters *k)
{
	memset(k, 0, sizeof(*k));
	if (bench_counted(s))
		bench_rpc_counters(cx->cx_rpc[s], k);
}

static void counters_add(struct bench_counters *d, const struct bench_counters *a,
			 const struct bench_counters *b)
{
	struct bench_counters k;

	counters_sub(&k, a, b);
	d->bk_calls += k.bk_calls;
	d->bk_inline_sends += k.bk_inline_sends;
	d->bk_pullup_sends += k.bk_pullup_sends;
	d->bk_pullup_bytes += k.bk_pullup_bytes;
	d->bk_mapped_sends += k.bk_mapped_sends;
	d->bk_registrations += k.bk_registrations;
	d->bk_sendctx_waits += k.bk_sendctx_waits;
	d->bk_credit_waits += k.bk_credit_waits;
	d->bk_too_large += k.bk_too_large;
	d->bk_fallbacks += k.bk_fallbacks;
	d->bk_wakeups += k.bk_wakeups;
	d->bk_busy_poll_hits += k.bk_busy_poll_hits;
}

static void cost_add(struct bench_cost *d, const struct bench_cost *a,
		     const struct bench_cost *b)
{
	d->ck_syscalls += b->ck_syscalls - a->ck_syscalls;
	d->ck_instructions += b->ck_instructions - a->ck_instructions;
	d->ck_vcsw += b->ck_vcsw - a->ck_vcsw;
	d->ck_ivcsw += b->ck_ivcsw - a->ck_ivcsw;
	d->ck_allocs += b->ck_allocs - a->ck_allocs;
	d->ck_have &= a->ck_have & b->ck_have;
}

/* What a cell's trials add up to, beside the trials in the cell itself. */
struct cell_acc {
	double ccpu, scpu;		/* µs over all trials */
	int have_server;		/* every trial had the server's figures */
	struct bench_lat lat[BENCH_MAX_TRIALS];
};

/*
 * One trial of a cell: a warm-up, then the measured run with counter and
 * CPU snapshots around it, added to the cell.  A cell that fails or
 * needs chunks takes no more trials.
 */
static void run_trial(struct bench_ctx *cx, struct bench_cell *c,
		      struct cell_acc *acc)
{
	const struct bench_opts *o = cx->cx_o;
	struct bench_run run = {
		.br_workload = c->bc_workload, .br_size = c->bc_size,
		.br_inflight = c->bc_inflight,
	};
	struct bench_counters cl0 = { 0 }, cl1 = { 0 }, sv0 = { 0 }, sv1 = { 0 };
	struct bench_cost kc0 = { 0 }, kc1 = { 0 }, ks0 = { 0 }, ks1 = { 0 };
	struct bench_cost *ks0p = o->bo_cost ? &ks0 : NULL;
	struct bench_cost *ks1p = o->bo_cost ? &ks1 : NULL;
	double scpu0 = 0, scpu1 = 0, ccpu0 = 0, ccpu1 = 0;
	int have_server, rc = 0;
	unsigned t = c->bc_ntrials;
	char cglabel[160] = "";
	uint64_t calls = 0;
	double secs = 0;

	if (c->bc_status != BC_OK || t >= BENCH_MAX_TRIALS)
		return;
	have_server = !bench_ctl_snapshot(cx->cx_ctl, c->bc_strategy, &scpu0, &sv0,
					  ks0p);
	if (bench_trial_warmup(o, t) > 0) {
		run.br_duration = bench_trial_warmup(o, t);
		rc = run_once(cx, c, &run, &calls, &secs, c->bc_note,
			      sizeof(c->bc_note));
	}
	if (!rc) {
		run.br_duration = bench_trial_duration(o);
		run.br_count = bench_trial_count(o);
		client_counters(cx, c->bc_strategy, &cl0);
		have_server = have_server &&
			!bench_ctl_snapshot_cg(cx->cx_ctl, c->bc_strategy, &scpu0,
					       &sv0, ks0p, o->bo_cost, NULL);
		bench_cost_snapshot(&kc0);
		ccpu0 = cpu_us();
		if (o->bo_cost)
			bench_callgrind_begin();
		rc = run_once(cx, c, &run, &calls, &secs, c->bc_note,
			      sizeof(c->bc_note));
		if (o->bo_cost)
			bench_callgrind_end(c, rc ? 0 : calls);
		ccpu1 = cpu_us();
		bench_cost_snapshot(&kc1);
		client_counters(cx, c->bc_strategy, &cl1);
	}
	if (o->bo_cost)
		bench_callgrind_label(cglabel, sizeof(cglabel), c, rc ? 0 : calls);
	have_server = have_server &&
		!bench_ctl_snapshot_cg(cx->cx_ctl, c->bc_strategy, &scpu1, &sv1,
				       ks1p, o->bo_cost ? -1 : 0, cglabel);

	/* Over the inline threshold without chunks: the Call could not be
	 * sent, or the server could not send the Reply (RDMA_ERROR). */
	if (is_rpc(c->bc_strategy) && (rc == -EMSGSIZE ||
	    (rc == -EPROTO && have_server && sv1.bk_too_large > sv0.bk_too_large))) {
		c->bc_status = BC_NEEDS_CHUNKS;
		snprintf(c->bc_note, sizeof(c->bc_note), "needs chunks");
		return;
	}
	if (rc) {
		c->bc_status = BC_FAILED;
		if (!c->bc_note[0])
			snprintf(c->bc_note, sizeof(c->bc_note), "%s", strerror(-rc));
		return;
	}
	c->bc_calls += calls;
	c->bc_secs += secs;
	c->bc_trial_cps[t] = secs > 0 ? (double)calls / secs : 0;
	bench_lat_compute(&cx->cx_lat, &acc->lat[t]);
	c->bc_trial_p50[t] = acc->lat[t].bl_p50;
	c->bc_ntrials = t + 1;
	acc->ccpu += ccpu1 - ccpu0;
	acc->scpu += scpu1 - scpu0;
	acc->have_server = acc->have_server && have_server;
	if (o->bo_cost) {
		if (!t)
			c->bc_cost_client.ck_have = c->bc_cost_server.ck_have = ~0u;
		cost_add(&c->bc_cost_client, &kc0, &kc1);
		if (have_server)
			cost_add(&c->bc_cost_server, &ks0, &ks1);
		else
			c->bc_cost_server.ck_have = 0;
		c->bc_has_cost = 1;
	}
	if (bench_counted(c->bc_strategy)) {
		c->bc_has_counters = 1;
		counters_add(&c->bc_client, &cl0, &cl1);
		if (have_server)
			counters_add(&c->bc_server, &sv0, &sv1);
	}
}

/* The medians over the cell's trials: calls/s and each latency figure. */
static void finish_cell(struct bench_cell *c, const struct cell_acc *acc)
{
	double v[BENCH_MAX_TRIALS];
	unsigned t, n = c->bc_ntrials;

	if (c->bc_status != BC_OK || !n)
		return;
	c->bc_calls_per_s = bench_median(c->bc_trial_cps, n);
	c->bc_mb_per_s = c->bc_calls_per_s *
			 bench_payload_bytes(c->bc_workload, c->bc_size) / 1e6;
#define MEDIAN_OF(field) do {						\
		for (t = 0; t < n; t++)					\
			v[t] = acc->lat[t].field;			\
		c->bc_lat.field = bench_median(v, n);			\
	} while (0)
	MEDIAN_OF(bl_mean);
	MEDIAN_OF(bl_p50);
	MEDIAN_OF(bl_p99);
	MEDIAN_OF(bl_p999);
	MEDIAN_OF(bl_min);
	MEDIAN_OF(bl_max);
#undef MEDIAN_OF
	if (c->bc_calls) {
		c->bc_cpu_client = acc->ccpu / (double)c->bc_calls;
		if (acc->have_server)
			c->bc_cpu_server = acc->scpu / (double)c->bc_calls;
	}
}

static void progress(const struct bench_opts *o, size_t i, size_t n,
		     const struct bench_cell *c, unsigned trial);

/*
 * The cells of one (workload, size, inflight), cells[b..e), trial by
 * trial: each trial runs every cell once, starting one later each time,
 * so drift and warm caches fall on every strategy alike.
 */
static void run_group(struct bench_ctx *cx, struct bench_cell *cells, size_t b,
		      size_t e, size_t n, struct cell_acc *acc)
{
	const struct bench_opts *o = cx->cx_o;
	size_t k = e - b, i, j;
	unsigned t;

	for (i = 0; i < k; i++) {
		memset(&acc[i], 0, sizeof(acc[i]));
		acc[i].have_server = 1;
	}
	for (t = 0; t < o->bo_trials; t++)
		for (j = 0; j < k; j++) {
			i = (j + t) % k;
			progress(o, b + i, n, &cells[b + i], t);
			run_trial(cx, &cells[b + i], &acc[i]);
		}
	for (i = 0; i < k; i++)
		finish_cell(&cells[b + i], &acc[i]);
}

/* ---- connections ----------------------------------------------------- */

int bench_device_of(const char *addr, const char *source, char *name, size_t len)
{
	struct addrinfo hints = { .ai_family = AF_INET }, *dst = NULL, *src = NULL;
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id = NULL;
	int rc = -EADDRNOTAVAIL;

	if (!ch)
		return -errno;
	if (getaddrinfo(addr, NULL, &hints, &dst) ||
	    (source && getaddrinfo(source, NULL, &hints, &src)))
		goto out;
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		goto out;
	if (rdma_resolve_addr(id, src ? src->ai_addr : NULL, dst->ai_addr, 2000) ||
	    rdma_get_cm_event(ch, &ev))
		goto out;
	if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED && id->verbs) {
		snprintf(name, len, "%s", ibv_get_device_name(id->verbs->device));
		rc = 0;
	}
	rdma_ack_cm_event(ev);
out:
	if (id)
		rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	if (dst)
		freeaddrinfo(dst);
	if (src)
		freeaddrinfo(src);
	return rc;
}

static int check_device(const struct bench_opts *o, const char *addr,
			const char *source)
{
	char name[64];

	if (!o->bo_device)
		return 0;
	if (bench_device_of(addr, source, name, sizeof(name))) {
		fprintf(stderr, "rpcrdma_bench: %s maps to no RDMA device\n", addr);
		return -1;
	}
	if (strcmp(name, o->bo_device)) {
		fprintf(stderr, "rpcrdma_bench: %s maps to %s, not %s\n", addr,
			name, o->bo_device);
		return -1;
	}
	return 0;
}

static int connect_all(struct bench_ctx *cx)
{
	const struct bench_opts *o = cx->cx_o;
	unsigned depth = 1;
	char err[256] = "";

	cx->cx_ctl = bench_ctl_connect(o, CONNECT_GIVE_UP_S, err, sizeof(err));
	if (!cx->cx_ctl)
		goto fail;
	for (unsigned i = 0; i < o->bo_ninflight; i++)
		if (o->bo_inflight[i] > depth)
			depth = o->bo_inflight[i];
	for (int s = 0; s < BS_NR; s++) {
		double give_up = bench_now() + CONNECT_GIVE_UP_S;

		if (!(o->bo_strategies & 1u << s) || !is_rpc((enum bench_strategy)s))
			continue;
		/* A connection attempt on an emulated bed can fail half-way. */
		while (!(cx->cx_rpc[s] = bench_rpc_connect(o, (enum bench_strategy)s,
							   err, sizeof(err))))
			if (bench_now() > give_up)
				goto fail;
			else
				usleep(200 * 1000);
	}
	if (o->bo_strategies & (1u << BS_RAW_POLL | 1u << BS_RAW_WRITE |
				1u << BS_RAW_READ)) {
		cx->cx_raw_poll = bench_raw_connect(o->bo_addr, o->bo_source,
				o->bo_port + BENCH_PORT_RAW, 0, o->bo_max_size,
				depth, err, sizeof(err));
		if (!cx->cx_raw_poll)
			goto fail;
	}
	if (o->bo_strategies & 1u << BS_RAW_EVENT) {
		cx->cx_raw_event = bench_raw_connect(o->bo_addr, o->bo_source,
				o->bo_port + BENCH_PORT_RAW, 1, o->bo_max_size,
				depth, err, sizeof(err));
		if (!cx->cx_raw_event)
			goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "rpcrdma_bench: %s\n", err[0] ? err : "cannot connect");
	return -1;
}

/*
 * Every connection closed, then (@shutdown: a pair's client) the server
 * told to leave.  Why in this order: a server that left first made the
 * CLIENTs reconnect, and an attempt that failed while its CLIENT was
 * destroyed was counted after --totals had read the counters.
 */
static void disconnect_all(struct bench_ctx *cx, bool shutdown)
{
	for (int s = 0; s < BS_NR; s++)
		bench_rpc_close(cx->cx_rpc[s]);
	bench_raw_close(cx->cx_raw_poll);
	bench_raw_close(cx->cx_raw_event);
	if (shutdown && bench_ctl_shutdown(cx->cx_ctl))
		fprintf(stderr, "rpcrdma_bench: the server did not take SHUTDOWN\n");
	bench_ctl_close(cx->cx_ctl);
}

static void progress(const struct bench_opts *o, size_t i, size_t n,
		     const struct bench_cell *c, unsigned trial)
{
	static int tty = -1;

	if (o->bo_quiet)
		return;
	if (tty < 0)
		tty = isatty(2);
	if (tty)
		fprintf(stderr, "\r[%zu/%zu] %-5s %8u B x%-3u %-9s conns %-4u trial %u/%u ",
			i + 1, n, bench_workload_name(c->bc_workload), c->bc_size,
			c->bc_inflight, bench_strategy_name(c->bc_strategy),
			c->bc_conns, trial + 1, o->bo_trials);
	else if (c->bc_sweep && trial == 0)
		fprintf(stderr, "rpcrdma_bench: [%zu/%zu] %s x%u over %u connections\n",
			i + 1, n, bench_strategy_name(c->bc_strategy),
			c->bc_inflight, c->bc_sweep);
	else if (trial == 0 && (i == 0 || c[-1].bc_size != c->bc_size ||
		 c[-1].bc_workload != c->bc_workload))
		fprintf(stderr, "rpcrdma_bench: [%zu/%zu] %s %u B\n", i + 1, n,
			bench_workload_name(c->bc_workload), c->bc_size);
}

/* bench_sweep()'s per-cell step: the cell's trials, as any group. */
struct sweep_arg {
	struct bench_ctx *sa_cx;
	struct bench_cell *sa_cells;
	struct cell_acc *sa_acc;
};

static void sweep_cell(void *arg, struct bench_cell *c, size_t i, size_t n)
{
	struct sweep_arg *sa = arg;

	(void)c;
	run_group(sa->sa_cx, sa->sa_cells, i, i + 1, n, sa->sa_acc);
}

static int client(const struct bench_opts *o)
{
	struct bench_ctx cx = { .cx_o = o };
	struct bench_cell *cells;
	struct cell_acc *acc;
	size_t n, b, e, failed = 0;
	int rc;

	if (check_device(o, o->bo_addr, o->bo_source))
		return 1;
	bench_raise_nofile();
	cells = plan(o, &n);
	cx.cx_lat.bs_us = malloc(SAMPLES_CAP * sizeof(float));
	cx.cx_lat.bs_cap = SAMPLES_CAP;
	acc = calloc(BS_NR, sizeof(*acc));
	if (!cells || !cx.cx_lat.bs_us || !acc) {
		fprintf(stderr, "rpcrdma_bench: out of memory\n");
		return 1;
	}
	if (connect_all(&cx)) {
		disconnect_all(&cx, false);
		return 1;
	}
	if (o->bo_cost)
		bench_cost_init();
	for (b = 0; b < n && !cells[b].bc_sweep; b = e) {
		for (e = b + 1; e < n && cells[e].bc_workload == cells[b].bc_workload &&
		     cells[e].bc_size == cells[b].bc_size &&
		     cells[e].bc_inflight == cells[b].bc_inflight &&
		     !cells[e].bc_sweep; e++)
			;
		run_group(&cx, cells, b, e, n, acc);
	}
	if (b < n) {
		struct sweep_arg sa = { &cx, cells, acc };

		/* The swept strategies' own connections are done with. */
		for (int s = 0; s < BS_NR; s++)
			if (bench_sweepable((enum bench_strategy)s)) {
				bench_rpc_close(cx.cx_rpc[s]);
				cx.cx_rpc[s] = NULL;
			}
		bench_sweep(o, cx.cx_ctl, cells, b, n, cx.cx_rpc, sweep_cell, &sa);
	}
	for (size_t i = 0; i < n; i++) {
		if (cells[i].bc_status == BC_FAILED) {
			failed++;
			fprintf(stderr, "\nrpcrdma_bench: %s %u B x%u %s: FAILED: %s\n",
				bench_workload_name(cells[i].bc_workload),
				cells[i].bc_size, cells[i].bc_inflight,
				bench_strategy_name(cells[i].bc_strategy),
				cells[i].bc_note);
		}
	}
	if (!o->bo_quiet && isatty(2))
		fputc('\n', stderr);
	disconnect_all(&cx, o->bo_role == BR_PAIR);
	bench_report_derive(cells, n);
	rc = bench_write_reports(o, cells, n);
	if (o->bo_totals && bench_rpc_write_totals(o->bo_totals)) {
		fprintf(stderr, "rpcrdma_bench: cannot write %s\n", o->bo_totals);
		rc = -1;
	}
	if (o->bo_calibrate && !failed &&
	    bench_write_calibration(o, cells, n, o->bo_testbed ? o->bo_testbed :
			      getenv("RPCRDMA_TESTBED")))
		rc = -1;
	free(cells);
	free(acc);
	free(cx.cx_lat.bs_us);
	if (failed)
		fprintf(stderr, "rpcrdma_bench: %zu cell(s) FAILED\n", failed);
	return failed || rc ? 1 : 0;
}

static int server(const struct bench_opts *o)
{
	unsigned max = o->bo_max_size;
	int rc;

	if (o->bo_addr && check_device(o, o->bo_addr, NULL))
		return 1;
	bench_raise_nofile();
	/* A pair's client asks for the sizes it will use; alone, serve 1 MiB. */
	if (max < (1u << 20))
		max = 1u << 20;
	rc = bench_raw_server_start(o->bo_addr, o->bo_port + BENCH_PORT_RAW, max,
				    BENCH_MAX_CALLERS);
	if (rc) {
		fprintf(stderr, "rpcrdma_bench: raw verbs listener on port %u: %s\n",
			o->bo_port + BENCH_PORT_RAW, strerror(-rc));
		return 1;
	}
	{
		struct bench_opts so = *o;

		so.bo_max_size = max;
		rc = bench_rpc_serve(&so);
	}
	bench_raw_server_stop();
	return rc ? 1 : 0;
}

/* ---- pair ------------------------------------------------------------ */

/* Appends ' quoted ' to a shell command line. */
static int sh_quote(char *buf, size_t len, size_t *off, const char *s)
{
	size_t o = *off;

	if (o + 3 >= len)
		return -1;
	buf[o++] = ' ';
	buf[o++] = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			if (o + 5 >= len)
				return -1;
			memcpy(buf + o, "'\\''", 4);
			o += 4;
		} else {
			if (o + 2 >= len)
				return -1;
			buf[o++] = *s;
		}
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	*off = o;
	return 0;
}

/*
 * Start "rpcrdma_bench -s" bound to the server address (under the exec
 * prefix, e.g. another network namespace) and wait for its ready line.
 */
static pid_t spawn_server(const struct bench_opts *o)
{
	char self[4096], cmd[8192], port[16], size[16], corrupt[16], line[128];
	char threads[16];
	const char *args[16];
	struct pollfd pfd;
	size_t off = 0, got = 0;
	int p[2], na = 0;
	double give_up;
	ssize_t k;
	pid_t pid;

	k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (k < 0)
		return -1;
	self[k] = '\0';
	snprintf(port, sizeof(port), "%u", o->bo_port);
	snprintf(size, sizeof(size), "%u", o->bo_max_size);
	snprintf(corrupt, sizeof(corrupt), "%u", o->bo_corrupt);
	args[na++] = self; args[na++] = "-s"; args[na++] = "-Q";
	args[na++] = "-a"; args[na++] = o->bo_addr;
	args[na++] = "-p"; args[na++] = port;
	args[na++] = "-S"; args[na++] = size;
	if (o->bo_corrupt) {
		args[na++] = "--corrupt";
		args[na++] = corrupt;
	}
	if (o->bo_svc_threads) {
		snprintf(threads, sizeof(threads), "%u", o->bo_svc_threads);
		args[na++] = "-j";
		args[na++] = threads;
	}
	args[na] = NULL;
	off = (size_t)snprintf(cmd, sizeof(cmd), "exec %s",
			       o->bo_server_exec ? o->bo_server_exec : "");
	for (int i = 0; i < na; i++)
		if (sh_quote(cmd, sizeof(cmd), &off, args[i]))
			return -1;
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		if (o->bo_server_exec)
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		else
			execv(self, (char *const *)args);
		_exit(127);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	give_up = bench_now() + 60;
	while (bench_now() < give_up && got < sizeof(line) - 1) {
		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		k = read(p[0], line + got, sizeof(line) - 1 - got);
		if (k <= 0)
			break;
		got += (size_t)k;
		line[got] = '\0';
		if (strstr(line, "rpcrdma_bench: ready")) {
			close(p[0]);
			return pid;
		}
	}
	close(p[0]);
	fprintf(stderr, "rpcrdma_bench: the server did not become ready\n");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static void reap_server(pid_t pid)
{
	double give_up = bench_now() + 10;
	int status;

	while (bench_now() < give_up) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return;
		usleep(50 * 1000);
	}
	fprintf(stderr, "rpcrdma_bench: the server did not exit; killing it\n");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	char err[256];
	pid_t pid;
	int rc;

	signal(SIGPIPE, SIG_IGN);
	bench_opts_init(&o);
	rc = bench_opts_parse(&o, argc, argv, err, sizeof(err));
	if (rc == 1) {
		bench_usage(stdout);
		return 0;
	}
	if (rc) {
		fprintf(stderr, "rpcrdma_bench: %s\n", err);
		bench_usage(stderr);
		return 2;
	}
	switch (o.bo_role) {
	case BR_SERVER:
		return server(&o);
	case BR_CLIENT:
		return client(&o);
	case BR_PAIR:
		pid = spawn_server(&o);
		if (pid < 0)
			return 1;
		rc = client(&o);
		reap_server(pid);
		return rc;
	}
	return 2;
}
