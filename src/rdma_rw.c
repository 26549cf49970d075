/*
 * RDMA Read/Write (rdma_rw.h).  Chains hold at most the send-queue room
 * set aside for them (shared by every thread of the connection, counted
 * under rx_lock) and, for Reads, the Read depth the peer granted: more
 * outstanding Reads than that would be refused by the peer's QP.
 */
#include "config.h"
#include <errno.h>
#include "rdma_rw.h"

#define RW_CHAIN_MAX 16		/* rpcrdma_post_rw's limit */

void rpcrdma_rw_complete(struct rpcrdma_cqe *e, int ok)
{
	struct rpcrdma_rw_ctx *rw =
		rpcrdma_container_of(e, struct rpcrdma_rw_ctx, rw_cqe);

	__atomic_store_n(&rw->rw_status, ok ? 1 : -EIO, __ATOMIC_RELEASE);
}

/* Wait, reaping, until cond holds or the connection or the clock ends. */
static int reap_until(struct rpcrdma_xprt *x, int (*cond)(void *), void *arg,
		      const struct timespec *deadline)
{
	for (;;) {
		int dead = __atomic_load_n(&x->rx_dead, __ATOMIC_ACQUIRE);

		if (cond(arg))
			return 0;
		if (dead)
			return dead;
		if (rpcrdma_deadline_passed(deadline))
			return -ETIMEDOUT;
		x->rx_reap(x->rx_reap_arg);
	}
}

struct room {
	struct rpcrdma_xprt *x;
	uint32_t want;
};

/* Take send-queue room for a chain, if there is enough. */
static int take_room(void *arg)
{
	struct room *r = arg;
	int ok;

	pthread_mutex_lock(&r->x->rx_lock);
	ok = r->x->rx_rw_used + r->want <= r->x->rx_ep.re_rw_slots;
	if (ok)
		r->x->rx_rw_used += r->want;
	pthread_mutex_unlock(&r->x->rx_lock);
	return ok;
}

static void give_room(struct rpcrdma_xprt *x, uint32_t n)
{
	pthread_mutex_lock(&x->rx_lock);
	x->rx_rw_used -= n;
	pthread_mutex_unlock(&x->rx_lock);
}

static int chain_done(void *arg)
{
	return __atomic_load_n(&((struct rpcrdma_rw_ctx *)arg)->rw_status,
			       __ATOMIC_ACQUIRE) != 0;
}

int rpcrdma_rw_move(struct rpcrdma_xprt *x, struct rpcrdma_rw_ctx *rw,
		    int write,
		    const struct rpcrdma_sge *local,
		    const struct rpcrdma_remote *remote, unsigned int n,
		    const struct timespec *deadline)
{
	uint32_t chain = x->rx_ep.re_rw_slots < RW_CHAIN_MAX ?
			 x->rx_ep.re_rw_slots : RW_CHAIN_MAX;
	unsigned int done = 0;
	int rc = 0;

	if (!write && x->rx_ep.re_rd_depth && x->rx_ep.re_rd_depth < chain)
		chain = x->rx_ep.re_rd_depth;
	if (!chain)
		return -EINVAL;
	while (done < n && !rc) {
		struct room r = { x, n - done < chain ? n - done : chain };

		rc = reap_until(x, take_room, &r, deadline);
		if (rc)
			break;
		rw->rw_cqe.cq_kind = RPCRDMA_CQE_RW;
		__atomic_store_n(&rw->rw_status, 0, __ATOMIC_RELEASE);
		rc = rpcrdma_post_rw(&x->rx_ep, write, local + done,
				     remote + done, r.want, &rw->rw_cqe);
		if (!rc) {
			rc = reap_until(x, chain_done, rw, deadline);
			/* A failed chain also kills the connection (flushed). */
			if (!rc && rw->rw_status < 0)
				rc = rw->rw_status;
		}
		/* The room comes back only once nothing of the chain can
		 * still be in the send queue: after its completion, or once
		 * the QP is gone (it is then destroyed, not reused). */
		if (!rc || rc != -ETIMEDOUT)
			give_room(x, r.want);
		done += r.want;
	}
	return rc;
}
