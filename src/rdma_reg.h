/*
 * Per-RPC remote access for chunks: every Read, Write or Reply chunk a
 * Call advertises gets its own registration with exactly the access it
 * needs, torn down when the RPC ends, so no rkey outlives its RPC.
 */
#ifndef RPCRDMA_RDMA_REG_H
#define RPCRDMA_RDMA_REG_H

#include <stdint.h>
#include "rpc_rdma.h"
#include "verbs.h"

/* Read segments plus one Write chunk plus the Reply chunk. */
#define RPCRDMA_REQ_MAX_REGS (RPCRDMA_MAX_READ_SEGS + 2)

struct rpcrdma_regset {
	unsigned int rg_n;
	struct ibv_mr *rg_mr[RPCRDMA_REQ_MAX_REGS];
	int rg_caller[RPCRDMA_REQ_MAX_REGS];	/* maps the caller's memory */
};

static inline void rpcrdma_regset_init(struct rpcrdma_regset *rg)
{
	rg->rg_n = 0;
}

/*
 * Register [addr, addr+len) for remote read (@remote_write 0) or write
 * and describe it as a wire segment.  @caller: the memory is the
 * caller's (it must be released as soon as the call returns), not the
 * library's.  0, -EINVAL (empty or too many), or -ENOMEM.
 */
int rpcrdma_regset_add(struct rpcrdma_regset *rg, struct rpcrdma_ep *ep,
		       const void *addr, uint32_t len, int remote_write,
		       int caller, struct rpcrdma_segment *seg);

/*
 * Revoke remote access.  @caller_only: only registrations of caller
 * memory (a call that timed out returns, but its Reply buffer stays
 * the library's until the Reply arrives).  Returns how many went.
 */
unsigned int rpcrdma_regset_release(struct rpcrdma_regset *rg, int caller_only);

#endif /* RPCRDMA_RDMA_REG_H */
