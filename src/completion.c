/*
 * The completion dispatcher (completion.h): one loop over the CQ for both
 * sides, one switch on the context's kind, one handler call per kind.
 */
#include "config.h"
#include "completion.h"
#include "rdma_rw.h"

static int kind_posted(const struct rpcrdma_cq_ops *ops,
		       const struct rpcrdma_cqe *c)
{
	return c && (unsigned int)c->cq_kind < 32 &&
	       (ops->cqo_kinds & RPCRDMA_CQE_BIT(c->cq_kind));
}

static void dispatch(struct rpcrdma_xprt *x, const struct rpcrdma_cq_ops *ops,
		     void *owner, const struct rpcrdma_wc *wc)
{
	struct rpcrdma_cqe *c = wc->wc_ctx;
	int posted = kind_posted(ops, c);
	struct rpcrdma_rep *rep;

	if (!wc->wc_ok || !posted)
		RPCRDMA_DBG("%s: completion of kind %d: %s", ops->cqo_name,
			    c ? (int)c->cq_kind : -1, wc->wc_status);
	if (!posted) {
		ops->cqo_fail(owner, wc, 1);
		return;
	}
	switch (c->cq_kind) {
	case RPCRDMA_CQE_SEND:
		rpcrdma_xprt_send_done(x,
			rpcrdma_container_of(c, struct rpcrdma_sendctx, sc_cqe),
			wc->wc_ok);
		if (!wc->wc_ok)
			ops->cqo_fail(owner, wc, 0);
		return;
	case RPCRDMA_CQE_RECV:
		if (!wc->wc_ok) {
			ops->cqo_fail(owner, wc, 0);
			return;
		}
		rep = rpcrdma_container_of(c, struct rpcrdma_rep, rr_cqe);
		rep->rr_len = wc->wc_byte_len;
		rep->rr_with_inv = wc->wc_with_inv;
		rep->rr_inv_rkey = wc->wc_inv_rkey;
		ops->cqo_recv(owner, rep);
		return;
	case RPCRDMA_CQE_RW:
	case RPCRDMA_CQE_RW_MEMBER:
	case RPCRDMA_CQE_RW_AHEAD:
		/* The connection is marked failed before the chain's
		 * waiter can see its failure. */
		if (!wc->wc_ok)
			ops->cqo_fail(owner, wc, 0);
		rpcrdma_rw_complete(c, wc->wc_ok);
		return;
	case RPCRDMA_CQE_BIND:
	case RPCRDMA_CQE_INV:
		if (!wc->wc_ok)
			ops->cqo_fail(owner, wc, 0);
		return;
	}
	ops->cqo_fail(owner, wc, 1);	/* a kind added to verbs.h, not here */
}

int rpcrdma_cq_reap(struct rpcrdma_xprt *x, const struct rpcrdma_cq_ops *ops,
		    void *owner)
{
	struct rpcrdma_wc wcs[RPCRDMA_WC_BATCH];
	int n, i, total = 0;

	while ((n = rpcrdma_cq_poll(&x->rx_ep, wcs, RPCRDMA_WC_BATCH)) > 0) {
		total += n;
		for (i = 0; i < n; i++)
			dispatch(x, ops, owner, &wcs[i]);
	}
	return n < 0 ? n : total;
}
