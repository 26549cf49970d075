/*
 * One asynchronous call's steps, for the driver only (clnt_async_drive.c),
 * lock not held: a waiting call tries for a credit again, a posted one
 * goes on when its slot leaves RQ_SENT or its deadline passes, and the
 * calls over run their callbacks in order.
 */
#include "config.h"
#include <errno.h>
#include "clnt_async.h"

/* The call is over: off ac_all, its callback due (@done).  Lock held. */
static void finish_locked(struct clnt_rdma *cr, struct cr_async *a,
			  struct batch *done)
{
	struct cr_async_ctl *ac = &cr->cr_async;

	a->a_state = CA_DONE;
	if (a->a_prev)
		a->a_prev->a_next = a->a_next;
	else
		ac->ac_all = a->a_next;
	if (a->a_next)
		a->a_next->a_prev = a->a_prev;
	batch_add(done, a);
}

static void finish(struct clnt_rdma *cr, struct cr_async *a,
		   struct batch *done)
{
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	finish_locked(cr, a, done);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

/* ---- stepping one call (the driver only, lock not held) ------------------- */

/* Run the call's steps until it waits or is over. */
static void drive(struct clnt_rdma *cr, struct cr_async *a, enum cc_next next,
		  struct batch *done)
{
	struct cr_call *c = &a->a_c;

	for (;;) {
		switch (next) {
		case CC_SEND:
			next = cr_call_post(c);
			continue;
		case CC_WAIT:
			a->a_state = CA_SENT;
			return;
		case CC_REPLIED:
			next = cr_call_replied(c);
			continue;
		case CC_RESEND:
			if (a->a_state != CA_WAIT_RESEND)
				cr_call_resend_prep(c);
			a->a_state = CA_WAIT_RESEND;
			next = cr_call_resend_try(c, false);
			if (next == CC_WAIT) {
				pthread_mutex_lock(&cr->cr_x.rx_lock);
				wait_append(&cr->cr_async, a);
				pthread_mutex_unlock(&cr->cr_x.rx_lock);
				return;
			}
			continue;
		case CC_RELEASE:
			cr_call_release(c);
			/* fall through */
		case CC_RETURN:
			finish(cr, a, done);
			return;
		}
	}
}

/* A waiting call tries again: false if it still waits (requeued). */
bool ca_try_waiting(struct clnt_rdma *cr, struct cr_async *a,
		    struct batch *done)
{
	struct cr_call *c = &a->a_c;
	enum cc_next next;
	int rc;

	if (a->a_state == CA_WAIT_RESEND) {
		drive(cr, a, CC_RESEND, done);
		return a->a_state != CA_WAIT_RESEND;
	}
	rc = cr->cr_async.ac_destroying ? -ECANCELED : cr_call_take(c, false);
	if (rc == -ECANCELED)
		rc = -ETIMEDOUT;	/* RPC_INTR, as every call destroyed */
	if (rc == -EAGAIN) {
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		if (!a->a_waited && cr->cr_conn == CR_CONNECTED)
			cr->cr_x.rx_stats.rs_credit_waits++;
		a->a_waited = true;
		wait_append(&cr->cr_async, a);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return false;
	}
	if (rc) {
		c->cc_st = cr_call_not_taken(c, rc);
		finish(cr, a, done);
		return true;
	}
	next = cr_call_encode(c, a->a_xargs, a->a_args);
	drive(cr, a, next, done);
	return true;
}

/*
 * The waiting calls, in order: new calls stop at the first that still
 * waits (no credit for it, none for those behind); @all: every one tries
 * (a deadline passed, or the CLIENT is going).
 */
void ca_run_waiting(struct clnt_rdma *cr, bool all, struct batch *done)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	struct cr_async *a, *next;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	a = ac->ac_wait_head;
	ac->ac_wait_head = NULL;
	ac->ac_wait_tail = &ac->ac_wait_head;
	__atomic_store_n(&ac->ac_waiting, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	for (; a; a = next) {
		next = a->a_link;
		if (!ca_try_waiting(cr, a, done) && !all &&
		    a->a_state == CA_WAIT_SLOT)
			break;
	}
	if (!a)
		return;
	/* The rest keep their places, behind the one requeued. */
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	for (a = next; a; a = next) {
		next = a->a_link;
		wait_append(ac, a);
	}
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

/* The slots that left RQ_SENT: their calls go on (a Reply, a failure,
 * a lost connection). */
void ca_run_ready(struct clnt_rdma *cr, struct batch *done)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	struct rpcrdma_req *rq, *next;
	struct batch todo;
	struct cr_async *a;

	batch_init(&todo);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	for (rq = ac->ac_ready; rq; rq = next) {
		next = rq->rq_ready_next;
		rq->rq_on_ready = false;
		a = rq->rq_async;
		if (a && a->a_state == CA_SENT && a->a_c.cc_rq == rq &&
		    rq->rq_state != RQ_SENT)
			batch_add(&todo, a);
	}
	ac->ac_ready = NULL;
	ac->ac_ready_tail = &ac->ac_ready;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	for (a = todo.b_head; a; a = todo.b_head) {
		todo.b_head = a->a_link;
		drive(cr, a, a->a_c.cc_rq->rq_state == RQ_RESEND ?
			     CC_RESEND : CC_REPLIED, done);
	}
}

/*
 * Posted calls whose deadline passed (all of them when the CLIENT goes)
 * are abandoned, as clnt_call's; the next deadline is found.  Waiting
 * calls time out in ca_run_waiting.  True if any call waits.
 */
bool ca_run_deadlines(struct clnt_rdma *cr, uint64_t now,
		      struct batch *done)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	struct cr_async *a, *next;
	bool destroying = ac->ac_destroying, waiting;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	ac->ac_next_ns = 0;
	for (a = ac->ac_all; a; a = next) {
		next = a->a_next;
		if (a->a_state == CA_SENT && a->a_c.cc_rq->rq_state == RQ_SENT &&
		    (destroying || a->a_deadline_ns <= now)) {
			finish_locked(cr, a, done);
			cr_call_abandon(&a->a_c);	/* drops the lock */
			pthread_mutex_lock(&cr->cr_x.rx_lock);
			next = ac->ac_all;	/* the list may have changed */
			continue;
		}
		if (!ac->ac_next_ns || a->a_deadline_ns < ac->ac_next_ns)
			ac->ac_next_ns = a->a_deadline_ns;
	}
	waiting = ac->ac_wait_head != NULL;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return waiting;
}

/* The callbacks, on this thread, in order; records back to ac_free. */
int ca_run_callbacks(struct clnt_rdma *cr, struct batch *done)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	struct cr_async *a, *next;
	int n = 0;

	for (a = done->b_head; a; a = a->a_link) {
		/* Destroyed with the CLIENT: interrupted, not timed out. */
		if (ac->ac_destroying && a->a_c.cc_st == RPC_TIMEDOUT)
			a->a_c.cc_st = RPC_INTR;
		a->a_done(a->a_cl, a->a_c.cc_st, a->a_arg);
		n++;
	}
	if (!n)
		return 0;
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	for (a = done->b_head; a; a = next) {
		next = a->a_link;
		a->a_link = ac->ac_free;
		ac->ac_free = a;
	}
	ac->ac_live -= (uint32_t)n;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	batch_init(done);
	return n;
}
