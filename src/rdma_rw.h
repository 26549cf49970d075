/*
 * The RDMA Read/Write engine: posts a list of (local, remote) pieces in
 * chains the send queue and the negotiated Read depth allow, never
 * waiting for them: their owner looks at a chain's state, or (Writes
 * ahead of a Send) nobody does.  Above verbs_post.c, beside the Send
 * path in transport_send.c.
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

/*
 * Writes posted ahead of a Send that follows them on the same QP (a
 * Reply with more Writes than one chain in front of its Send holds): no
 * one waits for them.  Their chain's last completion gives its room back
 * itself (ra_room, then 0: free again); the Send completes only after
 * them (RC order), so whatever holds the Send's memory holds theirs.  One
 * per room slot (a chain holds at least one), the connection's until its
 * CQ is gone (rpcrdma_xprt_fini).
 */
struct rpcrdma_rw_ahead {
	struct rpcrdma_rw_ctx ra_rw;	/* ra_rw.rw_cqe: RPCRDMA_CQE_RW_AHEAD */
	struct rpcrdma_xprt *ra_x;
	uint32_t ra_room;		/* atomic: room held, 0 free */
};

/* A reaper found an RPCRDMA_CQE_RW, _RW_MEMBER or _RW_AHEAD completion. */
void rpcrdma_rw_complete(struct rpcrdma_cqe *e, int ok);

/*
 * RDMA Read (write 0) remote[i] into local[i], or Write local[i] into
 * remote[i], for i < n (lkeys in local), one chain at a time, without
 * waiting (a server's Call whose Reads progress while its thread serves
 * others): post the next chain of local/remote[0..n), as long as the
 * room and the Read depth the peer granted (re_rd_depth, whatever the
 * threads; none: -EACCES) free now allow.  Returns how many pieces it holds (> 0), -EAGAIN when no room
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
 * (rpcrdma_xprt_send_chain), waiting, reaping the connection's CQ:
 * 0, -EINVAL (more than a chain may hold: move them apart), -ETIMEDOUT,
 * or the connection's failure.  Given back by rpcrdma_rw_unreserve once
 * the Send has completed (or its QP is gone).
 */
int rpcrdma_rw_reserve(struct rpcrdma_xprt *x, uint32_t n,
		       const struct timespec *deadline);
void rpcrdma_rw_unreserve(struct rpcrdma_xprt *x, uint32_t n);

/*
 * Post the next chain of RDMA Writes local/remote[0..n) ahead of a Send
 * the caller posts once all are (struct rpcrdma_rw_ahead), as long as the
 * room free now allows, never waiting: how many pieces it posted (> 0),
 * -EAGAIN (no room free now: try again after a completion), or the
 * connection's failure (perhaps posted in part: what they read must stay
 * until the QP is gone).
 */
int rpcrdma_rw_ahead(struct rpcrdma_xprt *x, const struct rpcrdma_sge *local,
		     const struct rpcrdma_remote *remote, unsigned int n);

#endif /* RPCRDMA_RDMA_RW_H */
