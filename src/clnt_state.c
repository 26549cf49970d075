/*
 * The client's state, below everything else: call slots and the one
 * function that moves them (cr_slot_move), failing every call when the
 * connection goes, the connection's state as the calls see it, and the
 * last call's outcome for clnt_geterr().
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "clnt_rdma.h"
#include "probes.h"

static void cr_conn_lost(struct clnt_rdma *cr);

/* ---- asynchronous calls' wake-ups (the rest: clnt_async*.c) ------------- */

/*
 * Something for the asynchronous calls' progress to do, lock held: a
 * slot of theirs left RQ_SENT, a credit came free, the connection came
 * back.  The thread running the progress (ac_busy) only notes it, and
 * is woken if it sleeps; else the eventfd is written once until the
 * progress reads it: one write per batch, never per Reply.
 */
void cr_async_kick(struct clnt_rdma *cr)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	uint64_t one = 1;

	if (ac->ac_evfd < 0)
		return;
	if (__atomic_load_n(&ac->ac_busy, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&ac->ac_rekick, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&ac->ac_sleeping, __ATOMIC_SEQ_CST))
			return;
	}
	if (ac->ac_kicked)
		return;
	ac->ac_kicked = 1;
	if (write(ac->ac_evfd, &one, sizeof(one)) != sizeof(one))
		RPCRDMA_DBG("client: async kick: %s", strerror(errno));
}

/* An asynchronous call's slot left RQ_SENT: onto the ready list, FIFO. */
static void async_ready(struct clnt_rdma *cr, struct rpcrdma_req *rq)
{
	struct cr_async_ctl *ac = &cr->cr_async;

	if (rq->rq_on_ready) {
		cr_async_kick(cr);
		return;
	}
	rq->rq_on_ready = true;
	rq->rq_ready_next = NULL;
	*ac->ac_ready_tail = rq;
	ac->ac_ready_tail = &rq->rq_ready_next;
	cr_async_kick(cr);
}

/* ---- call slots ---------------------------------------------------------- */

/* Whether a slot in @s holds one of the credits the server granted. */
static int holds_credit(enum rpcrdma_req_state s)
{
	return s == RQ_SENT || s == RQ_REPLIED || s == RQ_FAILED ||
	       s == RQ_ABANDONED;
}

/*
 * Every change of a slot's rq_state goes through here, so the counters
 * are the slots' states summed, never adjusted by hand:
 *
 *   cr_inflight   slots holding a credit: SENT, REPLIED, FAILED, ABANDONED
 *   cr_resending  slots in RESEND (a slot, no credit)
 *   cr_abandoned  slots in ABANDONED
 *
 * The transitions, and who makes them:
 *
 *   FREE      -> SENT       the caller taking the slot (take_slot)
 *   SENT      -> REPLIED    whoever reaps the Reply (handle_reply)
 *   SENT      -> FAILED     handle_reply (RDMA_ERROR, bad chunks), or
 *                           cr_fail_all where the client does not reconnect
 *   SENT      -> RESEND     cr_fail_all where the client reconnects
 *   SENT      -> ABANDONED  the caller, timed out (it keeps the credit
 *                           until the Reply or the connection ends)
 *   ABANDONED -> FREE       handle_reply or cr_fail_all (cr_free_abandoned)
 *   RESEND    -> SENT       the caller going again (wait_resend)
 *   RESEND    -> FREE       the caller whose resend gave up
 *   REPLIED, FAILED -> SENT    the caller retrying with a Reply chunk
 *   REPLIED, FAILED -> RESEND  the same, the connection lost meanwhile
 *   SENT, REPLIED, FAILED -> FREE  the caller, its call over (release_slot)
 *
 * Memory ordering, one discipline: every change is made with rx_lock
 * held, here only.  The counters are stored relaxed and rq_state last,
 * with release; a reader without the lock (the poller's done() tests:
 * reply_done, the credit predicates) loads rq_state with acquire and the
 * counters relaxed, then decides again under the lock.  Readers holding
 * the lock need no atomics.
 */
void cr_slot_move(struct clnt_rdma *cr, struct rpcrdma_req *rq,
		  enum rpcrdma_req_state to)
{
	enum rpcrdma_req_state from = rq->rq_state;

	__atomic_store_n(&cr->cr_inflight, cr->cr_inflight -
			 holds_credit(from) + holds_credit(to),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&cr->cr_resending, cr->cr_resending -
			 (from == RQ_RESEND) + (to == RQ_RESEND),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&cr->cr_abandoned, cr->cr_abandoned -
			 (from == RQ_ABANDONED) + (to == RQ_ABANDONED),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&rq->rq_state, to, __ATOMIC_RELEASE);
	/* Its caller sleeps for this: unlinked here, after the state, so
	 * that it may return without taking the lock (cr_wait_for). */
	if (rq->rq_sleeper && from == RQ_SENT && to != RQ_SENT)
		cr_waiter_unlink(cr, rq->rq_sleeper);
	if (rq->rq_async && from == RQ_SENT &&
	    (to == RQ_REPLIED || to == RQ_FAILED || to == RQ_RESEND))
		async_ready(cr, rq);
	else if ((to == RQ_FREE || to == RQ_ABANDONED) &&
		 __atomic_load_n(&cr->cr_async.ac_waiting, __ATOMIC_RELAXED))
		cr_async_kick(cr);	/* a credit for a waiting call, or every
					 * credit abandoned: it recovers them */
}

/* A waiter into cr_waiters, first, lock held (cr_wait_for). */
void cr_waiter_link(struct clnt_rdma *cr, struct cr_waiter *w)
{
	w->w_next = cr->cr_waiters;
	if (w->w_next)
		w->w_next->w_pprev = &w->w_next;
	w->w_pprev = &cr->cr_waiters;
	cr->cr_waiters = w;
	if (w->w_rq)
		w->w_rq->rq_sleeper = w;
	__atomic_store_n(&w->w_linked, 1, __ATOMIC_RELAXED);
}

/*
 * A waiter out of cr_waiters, lock held.  w_linked is its last store,
 * with release: a waiter that reads it 0 without the lock may return,
 * and its record (on its stack) is not touched again.
 */
void cr_waiter_unlink(struct clnt_rdma *cr, struct cr_waiter *w)
{
	(void)cr;
	*w->w_pprev = w->w_next;
	if (w->w_next)
		w->w_next->w_pprev = w->w_pprev;
	if (w->w_rq)
		w->w_rq->rq_sleeper = NULL;
	__atomic_store_n(&w->w_linked, 0, __ATOMIC_RELEASE);
}

/*
 * ---- credit waiters, in arrival order (struct cr_credit_wait) ----------
 * The queue's links are stored atomically: the poller reads its head
 * unlocked (credit_turn, clnt_call.c).  Lock held for all of these.
 */
void cr_credit_enqueue(struct clnt_rdma *cr, struct cr_credit_wait *cw)
{
	cw->cw_next = NULL;
	__atomic_store_n(cr->cr_credit_qtail, cw, __ATOMIC_RELAXED);
	cr->cr_credit_qtail = &cw->cw_next;
}

/* Out of the queue, wherever it is (a waiter that timed out: a walk). */
void cr_credit_dequeue(struct clnt_rdma *cr, struct cr_credit_wait *cw)
{
	struct cr_credit_wait **pp;

	for (pp = &cr->cr_credit_q; *pp; pp = &(*pp)->cw_next) {
		if (*pp != cw)
			continue;
		__atomic_store_n(pp, cw->cw_next, __ATOMIC_RELAXED);
		if (cr->cr_credit_qtail == &cw->cw_next)
			cr->cr_credit_qtail = pp;
		return;
	}
}

/*
 * A credit waiter polling and asleep on the channel learns of a freed
 * credit from cr_creditfd: the state changed before this (lock held),
 * and it announced its sleep before it last looked (cr_po_sleep), so
 * one of the two sees the other.  Only if its turn may have come: it is
 * first in the queue, or a call going again (or @all).
 */
static void cr_credit_kick(struct clnt_rdma *cr, bool all)
{
	const void *s;
	uint64_t one = 1;

	/* Nobody waits for a credit: no fence on the call's release. */
	if (!cr->cr_credit_q && !cr->cr_resending)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	s = __atomic_load_n(&cr->cr_credit_sleeper, __ATOMIC_RELAXED);
	if (!s || (!all && s != CR_RESEND_SLEEPER && s != cr->cr_credit_q))
		return;
	if (write(cr->cr_creditfd, &one, sizeof(one)) != sizeof(one))
		RPCRDMA_DBG("client: credit kick: %s", strerror(errno));
}

/* One waiting call looks (asleep on its condition, or polling). */
void cr_credit_signal(struct clnt_rdma *cr, struct cr_credit_wait *cw)
{
	pthread_cond_signal(&cw->cw_cond);
	cr_credit_kick(cr, false);
}

/* A credit or a slot may be free: a call going again, and the first
 * waiting call, look. */
void cr_credit_freed(struct clnt_rdma *cr)
{
	pthread_cond_signal(&cr->cr_credit_cond);
	if (cr->cr_credit_q)
		pthread_cond_signal(&cr->cr_credit_q->cw_cond);
	cr_credit_kick(cr, false);
}

/* The connection failed or came back, or the grant grew: all look. */
void cr_credit_wake_all(struct clnt_rdma *cr)
{
	struct cr_credit_wait *cw;

	pthread_cond_broadcast(&cr->cr_credit_cond);
	for (cw = cr->cr_credit_q; cw; cw = cw->cw_next)
		pthread_cond_signal(&cw->cw_cond);
	cr_credit_kick(cr, true);
}

/* An xid's low bits are its slot (take_slot): O(1), no scan. */
struct rpcrdma_req *cr_slot_find(struct clnt_rdma *cr, uint32_t xid)
{
	struct rpcrdma_req *rq = &cr->cr_reqs[xid & (cr->cr_nslots - 1)];

	return rq->rq_state != RQ_FREE && rq->rq_xid == xid ? rq : NULL;
}

/*
 * An abandoned call is over (its Reply came, or the connection went):
 * what stayed registered for it, its Reply buffer, is revoked before
 * the slot can be reused.  Lock held.
 */
void cr_free_abandoned(struct clnt_rdma *cr, struct rpcrdma_req *rq)
{
	unsigned int n = rpcrdma_clnt_release(&cr->cr_x, &rq->rq_ch, 0,
					      cr->cr_conn == CR_CONNECTED);

	cr_count_deregs(cr, n);
	cr_slot_move(cr, rq, RQ_FREE);
}

/*
 * The connection is gone, lock held.  Calls in flight fail, or, where
 * the client reconnects, wait to go again (RQ_RESEND, their credit
 * given back: the new connection grants its own); abandoned ones end.
 */
void cr_fail_all(struct clnt_rdma *cr, int err)
{
	bool again = cr_can_reconnect(cr);
	uint32_t i;

	__atomic_store_n(&cr->cr_gone, 0, __ATOMIC_RELAXED);
	if (!cr->cr_x.rx_dead) {
		cr->cr_x.rx_dead = err;
		RPCRDMA_PROBE2(disconnect, &cr->cr_x, err);
	}
	if (again)
		cr_conn_lost(cr);
	for (i = 0; i < cr->cr_nslots; i++) {
		struct rpcrdma_req *rq = &cr->cr_reqs[i];

		if (rq->rq_state == RQ_SENT) {
			rq->rq_err = err;
			cr_slot_move(cr, rq, again ? RQ_RESEND : RQ_FAILED);
			rpcrdma_wake_post(&rq->rq_wake);
		} else if (rq->rq_state == RQ_ABANDONED) {
			cr_free_abandoned(cr, rq);
		}
	}
	cr_credit_wake_all(cr);
	pthread_cond_broadcast(&cr->cr_x.rx_sendctx_cond);
}

/* ---- the connection, as the calls see it (enum cr_conn_state) ------------ */

bool cr_can_reconnect(const struct clnt_rdma *cr)
{
	return cr->cr_x.rx_opts.ro_reconnect_tries > 0;
}

/* A loss noticed, lock held (cr_fail_all): kick the reconnector once. */
static void cr_conn_lost(struct clnt_rdma *cr)
{
	uint64_t one = 1;

	if (cr->cr_conn != CR_CONNECTED)
		return;
	cr->cr_conn = CR_LOST;
	/* An eventfd write fails only when its counter would overflow. */
	if (write(cr->cr_kickfd, &one, sizeof(one)) != sizeof(one))
		RPCRDMA_DBG("client: reconnector kick: %s", strerror(errno));
	pthread_cond_broadcast(&cr->cr_conn_cond);
}

/*
 * Wait, lock held, until the connection is up: 0; the round gave up: its
 * error; the deadline passed: -ETIMEDOUT.  @new_round: a round that gave
 * up before we came starts again (new calls); the calls a round left
 * pending fail with it instead.
 */
int cr_wait_connected(struct clnt_rdma *cr, bool new_round,
		      const struct timespec *deadline)
{
	for (;;) {
		if (cr->cr_conn == CR_CONNECTED)
			return 0;
		if (cr->cr_conn == CR_GAVE_UP) {
			if (!new_round)
				return cr->cr_conn_err;
			new_round = false;
			cr->cr_conn = CR_CONNECTED;	/* so that it can be lost */
			cr_conn_lost(cr);
		}
		if (pthread_cond_timedwait(&cr->cr_conn_cond, &cr->cr_x.rx_lock,
					   deadline) == ETIMEDOUT &&
		    cr->cr_conn != CR_CONNECTED)
			return -ETIMEDOUT;
	}
}

/*
 * cr_wait_connected() for a caller that may not wait (clnt_async.c),
 * lock held: 0 when connected, -EAGAIN while a round runs (a round that
 * gave up starts again when @new_round), else the round's error.
 */
int cr_try_connected(struct clnt_rdma *cr, bool new_round)
{
	if (cr->cr_conn == CR_CONNECTED)
		return 0;
	if (cr->cr_conn == CR_GAVE_UP) {
		if (!new_round)
			return cr->cr_conn_err;
		cr->cr_conn = CR_CONNECTED;	/* so that it can be lost */
		cr_conn_lost(cr);
	}
	return -EAGAIN;
}

/*
 * A caller is about to post on the endpoint with the lock dropped (lock
 * held now, connection up): the reconnector waits for it to leave.
 */
void cr_ep_get(struct clnt_rdma *cr)
{
	cr->cr_ep_users++;
}

void cr_ep_put(struct clnt_rdma *cr)
{
	if (!--cr->cr_ep_users && cr->cr_conn == CR_RECONNECTING)
		pthread_cond_broadcast(&cr->cr_conn_cond);
}

/* ---- the last call's outcome --------------------------------------------- */

/* Record a call's outcome for clnt_geterr(); calls may run in parallel. */
enum clnt_stat cr_put_err(struct clnt_rdma *cr, const struct rpc_err *e)
{
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	cr->cr_err = *e;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return e->re_status;
}

/* An outcome with no more to it than a status and an errno. */
enum clnt_stat cr_fill_err(struct rpc_err *e, enum clnt_stat st, int err)
{
	memset(e, 0, sizeof(*e));
	e->re_status = st;
	e->re_errno = err < 0 ? -err : err;
	return st;
}

enum clnt_stat cr_set_err(struct clnt_rdma *cr, enum clnt_stat st, int err)
{
	struct rpc_err e;

	cr_fill_err(&e, st, err);
	return cr_put_err(cr, &e);
}
