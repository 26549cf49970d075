/*
 * The RDMA Read/Write engine: moves a list of (local, remote) pieces in
 * chains the send queue and the negotiated Read depth allow, and waits
 * for each chain by reaping the connection's CQ.  Above verbs_post.c,
 * beside the Send path in transport_send.c.
 */
#ifndef RPCRDMA_RDMA_RW_H
#define RPCRDMA_RDMA_RW_H

#include "transport.h"

/*
 * One posted chain.  Its last WR's completion lands in rw_cqe; any other
 * WR of it completes only if it failed or was flushed, into rw_member,
 * and fails the chain.  A context must outlive its connection's QP (a
 * server connection's are its own, never a thread's: a late flush of
 * one connection's chain cannot reach a chain of another).
 */
struct rpcrdma_rw_ctx {
	struct rpcrdma_cqe rw_cqe;	/* RPCRDMA_CQE_RW */
	struct rpcrdma_cqe rw_member;	/* RPCRDMA_CQE_RW_MEMBER */
	int rw_status;			/* atomic: 0 posted, 1 done, -EIO failed */
};

/* A reaper found an RPCRDMA_CQE_RW or RPCRDMA_CQE_RW_MEMBER completion. */
void rpcrdma_rw_complete(struct rpcrdma_cqe *e, int ok);

/*
 * RDMA Read (write 0) remote[i] into local[i], or Write local[i] into
 * remote[i], for i < n; lkeys in local.  Reads never exceed the peer's
 * grant (re_rd_depth) on the whole connection, whatever the threads;
 * with none granted (0) they are refused (-EACCES), never waited for.  Returns once every piece has
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

/*
 * The same moves without waiting, one chain at a time (a server's Call
 * whose Reads progress while its thread serves others): post the next
 * chain of local/remote[0..n), as long as the room and Read depth free
 * now allow.  Returns how many pieces it holds (> 0), -EAGAIN when no room
 * is free now (nothing posted: try again after a completion), -EACCES or
 * the connection's failure.  Its room is held until rpcrdma_rw_end (with
 * the count returned), once rpcrdma_rw_state says it completed or failed,
 * or once the QP is gone.
 */
int rpcrdma_rw_start(struct rpcrdma_xprt *x, struct rpcrdma_rw_ctx *rw,
		     int write, const struct rpcrdma_sge *local,
		     const struct rpcrdma_remote *remote, unsigned int n);
/* 0 still posted, 1 done, -EIO failed. */
int rpcrdma_rw_state(const struct rpcrdma_rw_ctx *rw);
void rpcrdma_rw_end(struct rpcrdma_xprt *x, int write, unsigned int posted);

/*
 * Send-queue room for n RDMA Writes a Send carries in front of it
 * (rpcrdma_xprt_send_chain), waiting, reaping, as rpcrdma_rw_move does:
 * 0, -EINVAL (more than a chain may hold: move them apart), -ETIMEDOUT,
 * or the connection's failure.  Given back by rpcrdma_rw_unreserve once
 * the Send has completed (or its QP is gone).
 */
int rpcrdma_rw_reserve(struct rpcrdma_xprt *x, uint32_t n,
		       const struct timespec *deadline);
void rpcrdma_rw_unreserve(struct rpcrdma_xprt *x, uint32_t n);

#endif /* RPCRDMA_RDMA_RW_H */
