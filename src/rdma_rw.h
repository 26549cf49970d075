/*
 * The RDMA Read/Write engine: moves a list of (local, remote) pieces in
 * chains the send queue and the negotiated Read depth allow, and waits
 * for each chain by reaping the connection's CQ.  Above verbs.c, beside
 * the Send path in transport.c.
 */
#ifndef RPCRDMA_RDMA_RW_H
#define RPCRDMA_RDMA_RW_H

#include "transport.h"

/* One posted chain; its last WR's completion lands here. */
struct rpcrdma_rw_ctx {
	struct rpcrdma_cqe rw_cqe;	/* RPCRDMA_CQE_RW */
	int rw_status;			/* atomic: 0 posted, 1 done, -EIO failed */
};

/* A reaper found an RPCRDMA_CQE_RW completion. */
void rpcrdma_rw_complete(struct rpcrdma_cqe *e, int ok);

/*
 * RDMA Read (write 0) remote[i] into local[i], or Write local[i] into
 * remote[i], for i < n; lkeys in local.  Returns once every piece has
 * arrived (Reads) or has been placed and acknowledged (Writes): 0,
 * -ETIMEDOUT at deadline, or the negative errno the connection died with.
 * rw must outlive the connection's QP: after -ETIMEDOUT a chain may still
 * complete into it (the caller then tears the connection down).
 */
int rpcrdma_rw_move(struct rpcrdma_xprt *x, struct rpcrdma_rw_ctx *rw,
		    int write,
		    const struct rpcrdma_sge *local,
		    const struct rpcrdma_remote *remote, unsigned int n,
		    const struct timespec *deadline);

#endif /* RPCRDMA_RDMA_RW_H */
