/*
 * rpcrdma_bench: the types every part of the bench shares.  Options and
 * cells are plain data; the pure parts (options, statistics, reports, the
 * SVG plot) are unit-tested without a device, the rest runs on real verbs.
 */
#ifndef RPCRDMA_BENCH_H
#define RPCRDMA_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What each call carries; bytes moved per call in bench_payload_bytes(). */
enum bench_workload {
	BW_NULL,	/* NULL procedure: nothing either way */
	BW_WRITE,	/* argument of N bytes, a 4-byte checksum back */
	BW_READ,	/* an 8-byte argument, a result of N bytes */
	BW_ECHO,	/* N bytes both ways */
	BW_NR
};

/*
 * Where a cell's calls go.  The first four are librpcrdma with the Send
 * strategy forced on both sides (auto: chosen per message); the rest are
 * the baselines measured in the same run.
 */
enum bench_strategy {
	BS_INLINE,	/* RPCRDMA_SEND_INLINE */
	BS_PULLUP,	/* RPCRDMA_SEND_PULLUP */
	BS_MAPPED,	/* RPCRDMA_SEND_MAPPED */
	BS_AUTO,	/* RPCRDMA_SEND_AUTO */
	BS_RAW_POLL,	/* raw verbs Send/Receive ping-pong, busy-polled CQs */
	BS_RAW_EVENT,	/* the same, sleeping on completion channels */
	BS_RAW_WRITE,	/* raw RDMA Write of N bytes (write workload) */
	BS_RAW_READ,	/* raw RDMA Read of N bytes (read workload) */
	BS_TCP,		/* the same RPC program over libtirpc TCP */
	BS_ASYNC,	/* librpcrdma's asynchronous calls from one thread (auto) */
	BS_NR
};
#define BS_NR_RPC 4	/* strategies 0..3 are librpcrdma's */

/* Whether a strategy's cells carry librpcrdma's counters: the library's
 * own, forced, auto and asynchronous (auto's listener), not the baselines. */
static inline int bench_counted(enum bench_strategy s)
{
	return s < BS_NR_RPC || s == BS_ASYNC;
}

enum bench_role { BR_CLIENT, BR_SERVER, BR_PAIR };
enum bench_format { BF_TABLE, BF_JSON, BF_CSV };

#define BENCH_MAX_SIZES 64
#define BENCH_MAX_INFLIGHT 16
#define BENCH_MAX_CALLERS 256	/* calls in flight at most */
#define BENCH_DEFAULT_PORT 20080
#define BENCH_MAX_TRIALS 32	/* --trials at most */
#define BENCH_DEFAULT_TRIALS 5
#define BENCH_QUICK_TRIALS 3
#define BENCH_MAX_SWEEP 16	/* --conns: counts at most */
#define BENCH_MAX_CONNS 4096	/* --conns: connections at most */

/*
 * Ports: librpcrdma listeners at port + strategy (0..3, one listener per
 * forced strategy), the raw-verbs peer at port + 4, libtirpc TCP at
 * port + 5 (soft-iWARP shares the TCP port space, so none may overlap).
 */
#define BENCH_PORT_RAW 4
#define BENCH_PORT_TCP 5

struct bench_opts {
	enum bench_role bo_role;
	const char *bo_addr;		/* server: bind; client: server's */
	const char *bo_source;		/* client: local address (-b) */
	unsigned bo_port;		/* base port */
	const char *bo_device;		/* expected RDMA device, NULL: any */
	unsigned bo_sizes[BENCH_MAX_SIZES];
	unsigned bo_nsizes;
	unsigned bo_inflight[BENCH_MAX_INFLIGHT];
	unsigned bo_ninflight;
	unsigned bo_conns;		/* connections the callers share */
	unsigned bo_workloads;		/* bit mask of 1u << BW_* */
	unsigned bo_strategies;		/* bit mask of 1u << BS_* */
	double bo_duration;		/* measured seconds per cell, all its
					 * trials together; 0: bo_count calls */
	unsigned long bo_count;		/* measured calls per cell, all trials */
	double bo_warmup;		/* unmeasured seconds before a cell's
					 * first trial (later ones: / trials) */
	enum bench_format bo_format;
	const char *bo_output;		/* report file; NULL: stdout */
	const char *bo_plot;		/* SVG file, NULL: none */
	const char *bo_json;		/* also JSON here, NULL: none */
	const char *bo_csv;		/* also CSV here, NULL: none */
	const char *bo_server_exec;	/* pair: command prefix for the server */
	unsigned bo_corrupt;		/* server: corrupt the Nth data reply */
	unsigned bo_svc_threads;	/* server: ro_svc_threads (0: svc_run) */
	int bo_quiet;			/* no progress line */
	const char *bo_testbed;		/* report label (RPCRDMA_TESTBED) */
	unsigned bo_max_size;		/* largest size of the list */
	unsigned bo_trials;		/* interleaved trials per cell */
	int bo_cost;			/* --cost: the per-call cost pass */
	const char *bo_calibrate;	/* --calibrate FILE: conf.d section */
	const char *bo_calib_devices;	/* --calibrate-for: section names */
	const char *bo_totals;		/* --totals FILE: client counter sums */
	unsigned bo_sweep[BENCH_MAX_SWEEP];	/* --conns: connection counts */
	unsigned bo_nsweep;		/* 0: no connections sweep */
};

/* Fills in the defaults; then bench_opts_parse() applies argv over them. */
void bench_opts_init(struct bench_opts *o);
/* 0, or -1 with a message in err (usage errors); 1 for --help. */
int bench_opts_parse(struct bench_opts *o, int argc, char **argv,
		     char *err, size_t errlen);
/*
 * A cell's measured time (or count) is split evenly across its trials, so
 * N trials take the time one cell took before trials existed; the first
 * trial warms up for bo_warmup, later ones for bo_warmup / trials (the
 * other strategies ran in between, the connection itself is warm).
 */
double bench_trial_duration(const struct bench_opts *o);
unsigned long bench_trial_count(const struct bench_opts *o);
double bench_trial_warmup(const struct bench_opts *o, unsigned trial);
/* "16,64,1K,4K-64K" (a range doubles) into sizes[]; count or -1. */
int bench_parse_sizes(const char *s, unsigned *sizes, unsigned max);
/* "1K" "4k" "1M" "100": bytes, or -1. */
long bench_parse_size(const char *s);
void bench_usage(FILE *f);

const char *bench_workload_name(enum bench_workload w);
const char *bench_strategy_name(enum bench_strategy s);
int bench_workload_from_name(const char *name);	/* -1 if unknown */
int bench_strategy_from_name(const char *name);	/* -1 if unknown */
/* Whether strategy s is measured for workload w (raw-write: write only). */
int bench_applies(enum bench_strategy s, enum bench_workload w);
/* Payload bytes a call moves, both directions together (MB/s). */
double bench_payload_bytes(enum bench_workload w, unsigned size);

/* Latency samples of one cell, in microseconds. */
struct bench_samples {
	float *bs_us;
	size_t bs_n, bs_cap;
};

struct bench_lat {
	double bl_mean, bl_p50, bl_p99, bl_p999, bl_min, bl_max;
};

/* Sorts the samples in place; all zero when there are none. */
void bench_lat_compute(struct bench_samples *s, struct bench_lat *out);

/* Transport counters a cell changed (deltas), one side. */
struct bench_counters {
	uint64_t bk_calls;
	uint64_t bk_inline_sends;
	uint64_t bk_pullup_sends;
	uint64_t bk_pullup_bytes;
	uint64_t bk_mapped_sends;
	uint64_t bk_registrations;	/* rs_hardway_register_count */
	uint64_t bk_sendctx_waits;	/* rs_empty_sendctx_q */
	uint64_t bk_credit_waits;
	uint64_t bk_too_large;
	uint64_t bk_fallbacks;		/* all rs_fallback_* together */
	uint64_t bk_wakeups;		/* rs_wakeups: completion-channel sleeps */
	uint64_t bk_busy_poll_hits;	/* rs_busy_poll_hits */
};

/* What --cost counts of one process (cost.c); deltas in a cell. */
#define BENCH_COST_SYSCALLS	1u	/* perf: raw_syscalls:sys_enter */
#define BENCH_COST_INSTR	2u	/* perf: user-space instructions */
#define BENCH_COST_CSW		4u	/* getrusage: context switches */
#define BENCH_COST_ALLOCS	8u	/* the interposed malloc family */
struct bench_cost {
	uint64_t ck_syscalls, ck_instructions;
	uint64_t ck_vcsw, ck_ivcsw;	/* voluntary, involuntary */
	uint64_t ck_allocs;
	unsigned ck_have;		/* BENCH_COST_* that were counted */
};

/*
 * What a cell of the connections sweep held while its calls ran (sweep.c):
 * each process's registered memory (VmPin), threads and descriptors, the
 * server's receive buffers, and the same before its connections existed.
 */
struct bench_scale {
	uint64_t sc_pin_kb, sc_pin0_kb;		/* VmPin with, without */
	uint64_t sc_threads, sc_threads0;
	uint64_t sc_fds, sc_fds0;
	uint64_t sc_recv_bytes;			/* server: rs_srq_pinned */
	uint64_t sc_ring_bytes;			/* rs_ring_pinned (server: of
						 * the listener) */
};

/* Whether a strategy's cells are swept over --conns: librpcrdma as a
 * program runs it (auto) and TCP; the forced Send strategies change
 * nothing that grows with connections, raw verbs and async keep one. */
static inline int bench_sweepable(enum bench_strategy s)
{
	return s == BS_AUTO || s == BS_TCP;
}

enum bench_status {
	BC_OK,
	BC_NEEDS_CHUNKS,	/* over the inline threshold, no chunks yet */
	BC_FAILED,		/* an error or a payload mismatch */
};

/* One measured cell: a workload, a size, a strategy, a queue depth. */
struct bench_cell {
	enum bench_workload bc_workload;
	unsigned bc_size;
	enum bench_strategy bc_strategy;
	unsigned bc_inflight;
	unsigned bc_threads;		/* caller threads (raw: 1, pipelined) */
	unsigned bc_conns;
	unsigned bc_sweep;		/* --conns: this cell's count; 0: none */
	enum bench_status bc_status;
	char bc_note[96];		/* why not OK */
	uint64_t bc_calls;
	double bc_secs;
	double bc_calls_per_s, bc_mb_per_s;
	struct bench_lat bc_lat;
	double bc_cpu_client, bc_cpu_server;	/* µs per call; < 0: unknown */
	int bc_has_counters;		/* librpcrdma's cells: bench_counted() */
	struct bench_counters bc_client, bc_server;
	/* Filled by bench_report_derive(): */
	double bc_vs_raw;		/* p50 / raw-poll p50; 0: none */
	double bc_vs_tcp;		/* p50 / tcp p50; 0: none */
	/*
	 * The trials (bc_calls_per_s and bc_lat are their medians) and the
	 * 95 % bootstrap intervals of those medians; bench_report_derive()
	 * fills the intervals (a point when there are no trials).
	 */
	unsigned bc_ntrials;
	double bc_trial_cps[BENCH_MAX_TRIALS];
	double bc_trial_p50[BENCH_MAX_TRIALS];
	double bc_cps_lo, bc_cps_hi;
	double bc_p50_lo, bc_p50_hi;
	/* --cost: what each process did over the cell's calls */
	int bc_has_cost;
	struct bench_cost bc_cost_client, bc_cost_server;
	/* Most calls/s of its (workload, size, inflight) among the fixed
	 * strategies (inline, pullup, mapped) with its interval clear of
	 * every other's; auto is never the winner.  Else the fixed ones
	 * whose intervals reach the leader's are tied (bc_tied). */
	int bc_winner;
	int bc_tied;
	/* --conns: each side's holdings, connections served, setup time */
	int bc_has_scale;
	struct bench_scale bc_scale_client, bc_scale_server;
	unsigned bc_served;		/* connections that answered a NULL */
	double bc_connect_s;		/* making the bc_sweep connections */
};

/* ---- statistics over trials (stats.c, pure) ---------------------------- */

#define BENCH_BOOT_N 2000		/* bootstrap resamples */
#define BENCH_BOOT_SEED 0x72706372646d61ULL	/* fixed: reproducible */

/* Median of v[0..n) (n <= BENCH_MAX_TRIALS); NaN when n is 0. */
double bench_median(const double *v, size_t n);
/*
 * 95 % percentile-bootstrap interval of the median of v[0..n): 0, or -1
 * when n is 0, too large or a sample is not finite.  One sample: a point.
 */
int bench_boot_ci(const double *v, size_t n, double *lo, double *hi);
/*
 * median(a) / median(b) and its 95 % bootstrap interval (each side
 * resampled on its own); -1 when either median is not positive.
 */
int bench_boot_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
			double *ratio, double *lo, double *hi);
/*
 * Among n candidates (medians and intervals, higher is better; a NaN
 * median: did not run): the index of the winner, or -1 with the tied
 * ones as bits in *tied (0 when none ran).
 */
int bench_pick_winner(const double *med, const double *lo, const double *hi,
		      size_t n, unsigned *tied);
/* A ratio's interval against 1 +- margin: 1 above, -1 below, 0 within. */
int bench_ratio_verdict(double lo, double hi, double margin);

/*
 * The reports and the plot write numbers with printf and so assume the C
 * locale ('.' as the decimal point, no digit grouping).
 */

/* Ratios to the baselines and the winner marks, over all cells. */
void bench_report_derive(struct bench_cell *c, size_t n);
void bench_report_table(FILE *f, const struct bench_cell *c, size_t n);
void bench_report_json(FILE *f, const struct bench_cell *c, size_t n,
		       const char *testbed);
void bench_report_csv(FILE *f, const struct bench_cell *c, size_t n);
/*
 * Per workload: where each fixed strategy wins, what auto chose there,
 * auto's worst ratio to the best fixed strategy.  auto's choice is read
 * from the Sends of the side that carries the payload: the client's for
 * write, the server's for read, both sides' for echo and NULL.
 */
void bench_report_summary(FILE *f, const struct bench_cell *c, size_t n);
/*
 * Latency and throughput against size, one series per strategy, and for
 * NULL (no bytes to move) p50 and calls/s against calls in flight.  0/-1.
 */
int bench_plot_svg(FILE *f, const struct bench_cell *c, size_t n,
		   const char *title);

/*
 * The connections sweep's table (--conns), then a blank line; nothing
 * when no cell is of the sweep.
 */
void bench_report_scale(FILE *f, const struct bench_cell *c, size_t n);

/* The cost table (--cost): per call and side, and which tool said so. */
void bench_report_cost(FILE *f, const struct bench_cell *c, size_t n);
/* Its columns; one per call on one side (server 0/1), NAN if not counted. */
enum { K_SYS, K_VCSW, K_IVCSW, K_SLEEP, K_HIT, K_ALLOC, K_INSTR, K_NR };
double bench_cost_per_call(const struct bench_cell *c, int server, int k);

/* ---- calibration of auto (calib.c, pure) -------------------------------- */

/* The defaults of rpcrdma.conf(5), which calibration keeps unless moved. */
#define BENCH_DEF_INLINE_CUTOFF 256
#define BENCH_DEF_MAPPED_MIN 8192
#define BENCH_DEF_PAGE_THRESHOLD 1024

struct bench_calib {
	/* in: the defaults (BENCH_DEF_*) and the trials a cell had; out: */
	unsigned bk_inline_cutoff, bk_mapped_min, bk_page_threshold;
	unsigned bk_trials;
	unsigned bk_inflight;		/* the echo cells used */
	int bk_inline_found, bk_mapped_found, bk_page_moved;
	unsigned bk_inline_last;	/* largest size inline kept up with */
	unsigned bk_inline_stop;	/* first size it did not; 0: none */
	unsigned bk_mapped_first;	/* smallest size mapped kept up from */
};

/*
 * From the echo cells at their smallest inflight: inline_cutoff where
 * inline stops being at least as fast as pull-up (moved only if inline
 * was significantly faster below), mapped_min where mapped starts being
 * at least as fast as pull-up for every larger size (moved only if it was
 * significantly faster there), page_threshold down to mapped_min.  0, or
 * -1 when there are no echo cells (or no memory).
 */
int bench_calibrate(const struct bench_cell *c, size_t n,
		    struct bench_calib *cal);
/* The [device NAME] section, with comments saying what moved and why. */
void bench_calib_write(FILE *f, const struct bench_calib *cal,
		       const char *device, const char *testbed);

/* ---- cost counters of this process (cost.c) ----------------------------- */

/* Probes what can be counted and starts counting every thread. */
void bench_cost_init(void);
/* A thread that will exit within a cell counts itself from here on. */
void bench_cost_thread_start(void);
/* Totals so far; -1 before bench_cost_init(). */
int bench_cost_snapshot(struct bench_cost *k);
/* Why figure which (one BENCH_COST_*) is not counted. */
const char *bench_cost_why(unsigned which);
/* Under valgrind --tool=callgrind: zero the costs before a measured run,
 * dump them after it as "rpcrdma_bench cell W SIZE DEPTH STRATEGY calls
 * N" (the server's: "rpcrdma_bench server cell ..."; read by
 * tools/bench/callgrind-cost).  No-ops elsewhere. */
int bench_callgrind_active(void);
void bench_callgrind_begin(void);
void bench_callgrind_end(const struct bench_cell *c, uint64_t calls);
/* The label bench_callgrind_end() gives; a dump labelled as given. */
void bench_callgrind_label(char *buf, size_t len, const struct bench_cell *c,
			   uint64_t calls);
void bench_callgrind_dump(const char *label);

/* ---- the raw-verbs baseline (raw.c) ------------------------------------ */

/*
 * The raw server listens on addr:port and serves every connection in its
 * own thread, busy-polling or sleeping on a completion channel as the
 * client asked in its private data.  Returns 0 or a negative errno.
 */
int bench_raw_server_start(const char *addr, unsigned port,
			   unsigned max_size, unsigned max_depth);
void bench_raw_server_stop(void);

struct bench_raw_client;
/* NULL with a message in err on failure. */
struct bench_raw_client *bench_raw_connect(const char *addr, const char *source,
					   unsigned port, int event_mode,
					   unsigned max_size, unsigned max_depth,
					   char *err, size_t errlen);
void bench_raw_close(struct bench_raw_client *rc);

/* What one cell asks a runner for (raw or RPC). */
struct bench_run {
	enum bench_workload br_workload;
	unsigned br_size;
	unsigned br_inflight;
	double br_warmup;		/* seconds, unmeasured */
	double br_duration;		/* seconds; 0: br_count calls */
	unsigned long br_count;
};

/*
 * One cell over a raw connection: kind is BS_RAW_POLL / BS_RAW_EVENT (the
 * Send/Receive ping-pong, request and reply sized as the workload's), or
 * BS_RAW_WRITE / BS_RAW_READ (one-sided, N bytes).  Keeps br_inflight
 * operations outstanding, records one latency sample per operation (up
 * to the samples' capacity), verifies every payload.  Fills calls, secs
 * and samples; returns 0, or a negative errno with a message in note.
 */
int bench_raw_run(struct bench_raw_client *rc, enum bench_strategy kind,
		  const struct bench_run *run, struct bench_samples *lat,
		  uint64_t *calls, double *secs, char *note, size_t notelen);

/* ---- the RPC program over librpcrdma and libtirpc TCP (rpc.c) ---------- */

/*
 * The server: one librpcrdma listener per forced Send strategy and a
 * libtirpc TCP listener, all serving the bench program from svc_run().
 * Prints "rpcrdma_bench: ready" on stdout once every listener exists;
 * returns 0 after a client's SHUTDOWN call, else a negative errno.
 */
int bench_rpc_serve(const struct bench_opts *o);

/* The calls of one strategy: o->bo_conns CLIENTs, RDMA or TCP. */
struct bench_rpc_client;
struct bench_rpc_client *bench_rpc_connect(const struct bench_opts *o,
					   enum bench_strategy s,
					   char *err, size_t errlen);
/* Destroys the CLIENTs, adding their librpcrdma counters to the totals. */
void bench_rpc_close(struct bench_rpc_client *rc);
/*
 * --totals FILE: "pid N", "clients N" (librpcrdma CLIENTs closed so far)
 * and "rs_NAME N" lines, the sums of those CLIENTs' counters.  0 or a
 * negative errno.
 */
int bench_rpc_write_totals(const char *path);
/* Counters summed over the strategy's connections (zero for TCP). */
void bench_rpc_counters(struct bench_rpc_client *rc, struct bench_counters *out);
/*
 * One cell: br_inflight caller threads share the connections, each with
 * one synchronous call at a time; every result is verified.  Returns 0,
 * -EMSGSIZE when the Call is larger than the transport can send, -EPROTO
 * when the server refused it (an RDMA_ERROR), other negative errnos on
 * failure; a note says what happened.
 */
int bench_rpc_run(struct bench_rpc_client *rc, const struct bench_run *run,
		  struct bench_samples *lat, uint64_t *calls, double *secs,
		  char *note, size_t notelen);

/* The control channel (TCP): server CPU time and listener counters. */
struct bench_ctl;
struct bench_ctl *bench_ctl_connect(const struct bench_opts *o, double give_up_s,
				    char *err, size_t errlen);
/*
 * Server process CPU (user+sys) µs so far, strategy s's counters and,
 * when cost is not NULL, the server process's cost counters.
 */
int bench_ctl_snapshot(struct bench_ctl *ctl, enum bench_strategy s,
		       double *cpu_us, struct bench_counters *server,
		       struct bench_cost *cost);
/* The same, and under callgrind on the server: cg > 0 zeroes its counts
 * after the reply (a measured run starts), cg < 0 dumps them first,
 * labelled "rpcrdma_bench server " LABEL (it ended). */
int bench_ctl_snapshot_cg(struct bench_ctl *ctl, enum bench_strategy s,
			  double *cpu_us, struct bench_counters *server,
			  struct bench_cost *cost, int cg, const char *label);
int bench_ctl_shutdown(struct bench_ctl *ctl);
void bench_ctl_close(struct bench_ctl *ctl);

/*
 * --conns: exactly n CLIENTs of strategy s (a connection that fails to
 * set up is tried again, a few times); NULL with a message in err.
 */
struct bench_rpc_client *bench_rpc_connect_n(const struct bench_opts *o,
					     enum bench_strategy s, unsigned n,
					     char *err, size_t errlen);
/* One NULL call on every connection in turn: how many answered (the
 * first failure's reason in err). */
unsigned bench_rpc_touch(struct bench_rpc_client *rc, char *err, size_t errlen);
/* The server's holdings (VmPin, threads, descriptors; strategy s's
 * listener's receive and ring bytes); 0 or -EIO. */
int bench_ctl_scale(struct bench_ctl *ctl, enum bench_strategy s,
		    struct bench_scale *out);

double bench_now(void);		/* CLOCK_MONOTONIC seconds */

/* ---- the connections sweep (sweep.c) ------------------------------------ */

/* This process's VmPin, threads and descriptors (sc_pin_kb, sc_threads,
 * sc_fds; the rest left alone). */
void bench_proc_scale(struct bench_scale *out);
/* Soft RLIMIT_NOFILE up to the hard one. */
void bench_raise_nofile(void);
/* Runs one cell's trials over the connections in place (main.c). */
typedef void (*bench_cell_fn)(void *arg, struct bench_cell *c, size_t i,
			      size_t n);
/*
 * The sweep cells[b..n), ordered by connection count then strategy: per
 * such block, bench_rpc_connect_n() into slot[s], a NULL on each
 * (bc_served), run() per cell, each side's holdings after it
 * (bc_scale_*), then the connections closed and the server waited for.
 */
int bench_sweep(const struct bench_opts *o, struct bench_ctl *ctl,
		struct bench_cell *cells, size_t b, size_t n,
		struct bench_rpc_client **slot, bench_cell_fn run, void *arg);

/* ---- the client's end (main.c, output.c) -------------------------------- */

/* Which device an address maps to, through rdma_cm as a connection would. */
int bench_device_of(const char *addr, const char *source, char *name,
		    size_t len);
/* Every report, JSON, CSV and plot the options ask for; 0 or -1. */
int bench_write_reports(const struct bench_opts *o,
			const struct bench_cell *cells, size_t n);
/* --calibrate: the section into the file (and on stdout); 0 or -1. */
int bench_write_calibration(const struct bench_opts *o,
			    const struct bench_cell *cells, size_t n,
			    const char *testbed);

#endif /* RPCRDMA_BENCH_H */
