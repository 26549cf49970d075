/*
 * What rpc.c shares with rpc_async.c: the RPC program's procedures, its
 * XDR, the payload pattern and checksum.
 */
#ifndef BENCH_RPC_INT_H
#define BENCH_RPC_INT_H

#include <stdint.h>
#include <rpc/rpc.h>
#include "bench.h"

enum {
	BP_NULL = 0,		/* void -> void */
	BP_WRITE = 1,		/* opaque<> -> checksum (unsigned hyper) */
	BP_READ = 2,		/* { len, seed } -> opaque<len> */
	BP_ECHO = 3,		/* opaque<> -> the same opaque<> */
	BP_STATS = 4,		/* strategy -> bench_wire_stats */
	BP_SHUTDOWN = 5,	/* void -> void; the server stops */
	BP_SCALE = 6,		/* strategy -> bench_wire_scale */
};

/* xdr_void takes no arguments: cast through a plain function pointer. */
#define XDR_VOID ((xdrproc_t)(void (*)(void))xdr_void)

#define PAT_SPAN 251		/* a seed picks one of this many offsets */
#define CALL_TIMEOUT_S 30
#define PROBE_TIMEOUT_S 10

/* ---- XDR ------------------------------------------------------------- */

/* An opaque decoded into memory the caller provides (no allocation). */
struct bench_bytes {
	u_int bb_len;
	char *bb_val;
	u_int bb_max;
};

bool_t xdr_bench_bytes(XDR *x, struct bench_bytes *b);

struct bench_read_args {
	u_int ra_len;
	u_int ra_seed;
};

bool_t xdr_bench_read_args(XDR *x, struct bench_read_args *a);

/* Both sides' payload pattern (a seed is an offset into it), its checksum. */
extern uint8_t *pattern;
uint64_t checksum(const void *p, size_t len);

/* rpc_async.c: one cell from one thread, the asynchronous API at depth. */
int bench_async_run(CLIENT *cl, const struct bench_run *run,
		    struct bench_samples *lat, uint64_t *calls, double *secs,
		    char *note, size_t notelen);

#endif
