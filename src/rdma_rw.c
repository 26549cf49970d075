/*
 * RDMA Read/Write (rdma_rw.h).  Chains hold at most the send-queue room
 * set aside for them (shared by every thread of the connection, counted
 * under rx_lock) and, for Reads, the Read depth the peer granted: more
 * outstanding Reads than that would be refused by the peer's QP.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include "rdma_rw.h"

#define RW_CHAIN_MAX 16		/* rpcrdma_post_rw's limit */

static void ahead_done(struct rpcrdma_rw_ahead *ra);

void rpcrdma_rw_complete(struct rpcrdma_cqe *e, int ok)
{
	struct rpcrdma_rw_ctx *rw;

	if (e->cq_kind == RPCRDMA_CQE_RW_AHEAD) {
		/* A failure is the connection's (cqo_fail), its Send's
		 * flush says so to the Reply. */
		ahead_done(rpcrdma_container_of(e, struct rpcrdma_rw_ahead,
						ra_rw.rw_cqe));
		return;
	}

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

/* Wait, reaping, until cond holds or the connection or the clock ends
 * (rpcrdma_rw_reserve with a deadline still to come). */
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

/* The room of a chain about to go, r->want of it: 0 taken, -EAGAIN none
 * free now, or the connection's failure (nothing goes on a failing QP). */
static int chain_room(struct room *r)
{
	int rc = __atomic_load_n(&r->x->rx_dead, __ATOMIC_ACQUIRE);

	if (rc)
		return rc;
	return take_room(r) ? 0 : -EAGAIN;
}

/* Post the chain of r->want pieces into rw, its last WR completing as
 * last: how many (> 0), or the QP's failure with the room given back. */
static int chain_post(struct room *r, struct rpcrdma_rw_ctx *rw,
		      enum rpcrdma_cqe_kind last, int write,
		      const struct rpcrdma_sge *local,
		      const struct rpcrdma_remote *remote)
{
	int rc;

	rw->rw_cqe.cq_kind = last;
	rw->rw_member.cq_kind = RPCRDMA_CQE_RW_MEMBER;
	__atomic_store_n(&rw->rw_status, 0, __ATOMIC_RELEASE);
	rc = rpcrdma_post_rw(&r->x->rx_ep, write, local, remote, r->want,
			     &rw->rw_cqe, &rw->rw_member);
	if (rc) {
		/*
		 * The QP is failing.  What was posted of the chain, if any,
		 * is flushed, but only a signaled WR completes: the last one
		 * was not posted, so nothing gives the room back but us.
		 */
		give_room(r);
		return rc < 0 ? rc : -EIO;
	}
	return (int)r->want;
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
	rc = chain_room(&r);
	if (rc)
		return rc;
	return chain_post(&r, rw, RPCRDMA_CQE_RW, write, local, remote);
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

/* ---- Writes ahead of their Send: nobody waits ------------------------- */

/* Their last WR completed (or was flushed): nothing of them is in the
 * send queue any more, so the room goes back, and the context. */
static void ahead_done(struct rpcrdma_rw_ahead *ra)
{
	struct room r = { ra->ra_x, ra->ra_room, 0 };

	give_room(&r);
	__atomic_store_n(&ra->ra_room, 0, __ATOMIC_RELEASE);
}

/* A free context, marked as holding want, or NULL (made at first use:
 * one per room slot, so one is free whenever room is). */
static struct rpcrdma_rw_ahead *ahead_get(struct rpcrdma_xprt *x,
					  uint32_t want)
{
	struct rpcrdma_rw_ahead *ra = NULL;
	uint32_t i;

	pthread_mutex_lock(&x->rx_lock);
	if (!x->rx_ahead) {
		x->rx_ahead = calloc(x->rx_ep.re_rw_slots, sizeof(*x->rx_ahead));
		x->rx_nahead = x->rx_ahead ? x->rx_ep.re_rw_slots : 0;
	}
	for (i = 0; i < x->rx_nahead; i++) {
		if (!__atomic_load_n(&x->rx_ahead[i].ra_room, __ATOMIC_ACQUIRE)) {
			ra = &x->rx_ahead[i];
			ra->ra_x = x;
			__atomic_store_n(&ra->ra_room, want, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&x->rx_lock);
	return ra;
}

int rpcrdma_rw_ahead(struct rpcrdma_xprt *x, const struct rpcrdma_sge *local,
		     const struct rpcrdma_remote *remote, unsigned int n)
{
	uint32_t chain = chain_max(x, 1);
	struct room r = { x, n < chain ? n : chain, 0 };
	struct rpcrdma_rw_ahead *ra;
	int rc;

	if (!chain || !n)
		return -EINVAL;
	rc = chain_room(&r);
	if (rc)
		return rc;
	ra = ahead_get(x, r.want);
	if (!ra) {
		give_room(&r);
		return -ENOMEM;
	}
	/* Failed, the context stays marked: a late member flush may name it. */
	rc = chain_post(&r, &ra->ra_rw, RPCRDMA_CQE_RW_AHEAD, 1, local, remote);
	if (rc > 0) {
		pthread_mutex_lock(&x->rx_lock);
		x->rx_stats.rs_writes_ahead++;
		pthread_mutex_unlock(&x->rx_lock);
	}
	return rc;
}
