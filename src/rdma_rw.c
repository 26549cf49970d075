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
	struct rpcrdma_rw_ctx *rw;

	if (e->cq_kind == RPCRDMA_CQE_RW_MEMBER) {
		/* An earlier WR of the chain (a signaled Write, or a Read
		 * that failed): only a failure matters; the chain failed. */
		rw = rpcrdma_container_of(e, struct rpcrdma_rw_ctx, rw_member);
		if (!ok)
			__atomic_store_n(&rw->rw_status, -EIO, __ATOMIC_RELEASE);
		return;
	}
	rw = rpcrdma_container_of(e, struct rpcrdma_rw_ctx, rw_cqe);
	/* A member's failure stands: the last WR's flush comes after it. */
	if (__atomic_load_n(&rw->rw_status, __ATOMIC_ACQUIRE) >= 0)
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
	int reads;
};

/*
 * Take send-queue room for a chain, and for Reads as many of the peer's
 * Read resources, if there are enough.  The Reads counted are the ones
 * posted and not known complete: rs_reads_peak reports their most.
 */
static int take_room(void *arg)
{
	struct room *r = arg;
	struct rpcrdma_xprt *x = r->x;
	int ok;

	pthread_mutex_lock(&x->rx_lock);
	ok = x->rx_rw_used + r->want <= x->rx_ep.re_rw_slots &&
	     (!r->reads || x->rx_rd_used + r->want <= x->rx_ep.re_rd_depth);
	if (ok) {
		x->rx_rw_used += r->want;
		if (r->reads) {
			x->rx_rd_used += r->want;
			if (x->rx_rd_used > x->rx_stats.rs_reads_peak)
				x->rx_stats.rs_reads_peak = x->rx_rd_used;
		}
	}
	pthread_mutex_unlock(&x->rx_lock);
	return ok;
}

static void give_room(struct room *r)
{
	pthread_mutex_lock(&r->x->rx_lock);
	r->x->rx_rw_used -= r->want;
	if (r->reads)
		r->x->rx_rd_used -= r->want;
	__atomic_store_n(&r->x->rx_rw_freed, r->x->rx_rw_freed + 1,
			 __ATOMIC_RELEASE);
	pthread_mutex_unlock(&r->x->rx_lock);
}

int rpcrdma_rw_reserve(struct rpcrdma_xprt *x, uint32_t n,
		       const struct timespec *deadline)
{
	struct room r = { x, n, 0 };
	int rc;

	if (!n || n > x->rx_ep.re_rw_slots || n > RW_CHAIN_MAX)
		return -EINVAL;
	rc = reap_until(x, take_room, &r, deadline);
	if (rc)
		return rc;
	/* Nothing more goes on a QP already failing. */
	rc = __atomic_load_n(&x->rx_dead, __ATOMIC_ACQUIRE);
	if (rc)
		give_room(&r);
	return rc;
}

void rpcrdma_rw_unreserve(struct rpcrdma_xprt *x, uint32_t n)
{
	struct room r = { x, n, 0 };

	give_room(&r);
}

/* The longest chain a connection may post: its room, and for Reads the
 * Read depth the peer granted (0: none allowed). */
static uint32_t chain_max(const struct rpcrdma_xprt *x, int write)
{
	uint32_t chain = x->rx_ep.re_rw_slots < RW_CHAIN_MAX ?
			 x->rx_ep.re_rw_slots : RW_CHAIN_MAX;

	if (!write && x->rx_ep.re_rd_depth < chain)
		chain = x->rx_ep.re_rd_depth;
	return chain;
}

int rpcrdma_rw_start(struct rpcrdma_xprt *x, struct rpcrdma_rw_ctx *rw,
		     int write, const struct rpcrdma_sge *local,
		     const struct rpcrdma_remote *remote, unsigned int n)
{
	uint32_t chain = chain_max(x, write);
	struct room r = { x, n < chain ? n : chain, !write };
	int rc;

	if (!write && !x->rx_ep.re_rd_depth)
		return -EACCES;
	if (!chain || !n)
		return -EINVAL;
	rc = __atomic_load_n(&x->rx_dead, __ATOMIC_ACQUIRE);
	if (rc)
		return rc;
	if (!take_room(&r))
		return -EAGAIN;
	rw->rw_cqe.cq_kind = RPCRDMA_CQE_RW;
	rw->rw_member.cq_kind = RPCRDMA_CQE_RW_MEMBER;
	__atomic_store_n(&rw->rw_status, 0, __ATOMIC_RELEASE);
	rc = rpcrdma_post_rw(&x->rx_ep, write, local, remote, r.want,
			     &rw->rw_cqe, &rw->rw_member);
	if (rc) {
		/* The QP is failing: as rpcrdma_rw_move, the room goes back. */
		give_room(&r);
		return rc < 0 ? rc : -EIO;
	}
	return (int)r.want;
}

int rpcrdma_rw_state(const struct rpcrdma_rw_ctx *rw)
{
	return __atomic_load_n(&rw->rw_status, __ATOMIC_ACQUIRE);
}

void rpcrdma_rw_end(struct rpcrdma_xprt *x, int write, unsigned int posted)
{
	struct room r = { x, posted, !write };

	give_room(&r);
}

static int chain_done(void *arg)
{
	return __atomic_load_n(&((struct rpcrdma_rw_ctx *)arg)->rw_status,
			       __ATOMIC_ACQUIRE) != 0;
}

/* rpcrdma_rw_start as a condition for reap_until: true once it posted
 * (rs_rc the pieces) or failed, false while there is no room. */
struct rw_start {
	struct rpcrdma_xprt *rs_x;
	struct rpcrdma_rw_ctx *rs_rw;
	int rs_write;
	const struct rpcrdma_sge *rs_local;
	const struct rpcrdma_remote *rs_remote;
	unsigned int rs_n;
	int rs_rc;
};

static int try_start(void *arg)
{
	struct rw_start *s = arg;

	s->rs_rc = rpcrdma_rw_start(s->rs_x, s->rs_rw, s->rs_write, s->rs_local,
				    s->rs_remote, s->rs_n);
	return s->rs_rc != -EAGAIN;
}

int rpcrdma_rw_move(struct rpcrdma_xprt *x, struct rpcrdma_rw_ctx *rw,
		    int write,
		    const struct rpcrdma_sge *local,
		    const struct rpcrdma_remote *remote, unsigned int n,
		    const struct timespec *deadline)
{
	unsigned int done = 0;
	int rc = 0;

	/* A peer that accepts no Reads gets none (the server answers its
	 * Read chunks ERR_CHUNK before coming here). */
	if (!write && !x->rx_ep.re_rd_depth)
		return -EACCES;
	if (!chain_max(x, write))
		return -EINVAL;
	while (done < n && !rc) {
		struct rw_start s = { x, rw, write, local + done, remote + done,
				      n - done, 0 };

		/* Posted once room comes; nothing goes on a failing QP. */
		rc = reap_until(x, try_start, &s, deadline);
		if (!rc && s.rs_rc < 0)
			rc = s.rs_rc;
		if (rc)
			break;
		rc = reap_until(x, chain_done, rw, deadline);
		/* A failed chain also kills the connection (flushed). */
		if (!rc && rw->rw_status < 0)
			rc = rw->rw_status;
		/* The room comes back only once nothing of the chain can
		 * still be in the send queue: after its completion, or once
		 * the QP is gone (it is then destroyed, not reused). */
		if (rc != -ETIMEDOUT)
			rpcrdma_rw_end(x, write, (unsigned int)s.rs_rc);
		done += (unsigned int)s.rs_rc;
	}
	return rc;
}
