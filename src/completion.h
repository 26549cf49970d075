/*
 * The one completion dispatcher of both sides: it polls a connection's CQ
 * and hands each completion to the handler of its typed context (verbs.h's
 * enum rpcrdma_cqe_kind).  A completion without a context, or of a kind the
 * side never posts, is refused as unknown: never taken for a Receive.
 */
#ifndef RPCRDMA_COMPLETION_H
#define RPCRDMA_COMPLETION_H

#include "transport.h"

#define RPCRDMA_CQE_BIT(kind)	(1u << (kind))

/* What one side does with its completions; a static const table per side. */
struct rpcrdma_cq_ops {
	const char *cqo_name;		/* "client", "conn": debug lines */
	unsigned int cqo_kinds;		/* RPCRDMA_CQE_BIT()s of what it posts */
	/* A Receive completed; rep->rr_len holds its length. */
	void (*cqo_recv)(void *owner, struct rpcrdma_rep *rep);
	/*
	 * The connection failed: a completion of a posted kind failed
	 * (unknown 0), or one came that no handler takes (unknown 1).  Called
	 * once per such completion; the side keeps the first cause.
	 */
	void (*cqo_fail)(void *owner, const struct rpcrdma_wc *wc, int unknown);
};

/*
 * Poll x's CQ dry and dispatch: how many completions (0: it was empty),
 * or the negative errno of the poll.  Send completions return their
 * context to the ring (rpcrdma_xprt_send_done), RDMA Read/Write ones reach
 * their chain's waiter (rpcrdma_rw_complete) after cqo_fail has marked the
 * connection failed; memory-window binds and invalidations matter only
 * when they fail.
 */
int rpcrdma_cq_reap(struct rpcrdma_xprt *x, const struct rpcrdma_cq_ops *ops,
		    void *owner);

#endif /* RPCRDMA_COMPLETION_H */
