/*
 * A pure allocator over one region of registered memory: fixed units,
 * a bitmap, first-fit runs.  No verbs and no locking here (svc_mem.c
 * registers the region and serializes the calls).
 */
#ifndef RPCRDMA_POOL_H
#define RPCRDMA_POOL_H

#include <stddef.h>
#include <stdint.h>

/* Chunk buffers are handed out in units this large. */
#define RPCRDMA_POOL_UNIT	(64u << 10)

struct rpcrdma_pool {
	uint64_t *bm_map;	/* one bit per unit, set: in use */
	uint32_t bm_nunits;
	uint32_t bm_unit;	/* bytes per unit */
	uint32_t bm_used;	/* units in use */
	uint32_t bm_hint;	/* first unit that may be free */
};

/* A region of len bytes (the tail beyond a whole unit is never used). */
int rpcrdma_pool_init(struct rpcrdma_pool *p, size_t len, uint32_t unit);
void rpcrdma_pool_fini(struct rpcrdma_pool *p);
/* The first free run long enough for len bytes: 0 with its byte offset
 * at *offp, or -ENOSPC (also for len 0 or larger than the region). */
int rpcrdma_pool_take(struct rpcrdma_pool *p, size_t len, size_t *offp);
/* Give back a run taken at off for len bytes. */
void rpcrdma_pool_give(struct rpcrdma_pool *p, size_t off, size_t len);
/* Keep only the first keep bytes of a run taken for len. */
void rpcrdma_pool_trim(struct rpcrdma_pool *p, size_t off, size_t len,
		       size_t keep);

#endif /* RPCRDMA_POOL_H */
