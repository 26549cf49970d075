/*
 * One RPC call on the client (cr_call): a credit and a slot, the Call
 * encoded, marshalled and sent, its Reply waited for and decoded.  A
 * call goes again, same xid, when the connection is lost under it, and
 * once more with a Reply chunk when its Reply did not fit inline.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include <time.h>
#include "clnt_rdma.h"
#include "probes.h"

/* ---- credits and slots --------------------------------------------------- */

/* A call that may not wait (clnt_async.c) is over at its deadline. */
static bool passed(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec &&
		now.tv_nsec >= deadline->tv_nsec);
}

static int reply_done(struct clnt_rdma *cr, const void *ctx)
{
	const struct rpcrdma_req *rq = ctx;

	(void)cr;
	return __atomic_load_n(&rq->rq_state, __ATOMIC_ACQUIRE) != RQ_SENT;
}

/* A call going again may take a credit (its slot it has). */
static int resend_credit_done(struct clnt_rdma *cr, const void *ctx)
{
	(void)ctx;
	return __atomic_load_n(&cr->cr_x.rx_dead, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&cr->cr_inflight, __ATOMIC_RELAXED) <
	       __atomic_load_n(&cr->cr_credits, __ATOMIC_RELAXED);
}

/* A new call may take a credit and a slot (calls going again hold one). */
static int credit_done(struct clnt_rdma *cr, const void *ctx)
{
	return resend_credit_done(cr, ctx) &&
	       (__atomic_load_n(&cr->cr_x.rx_dead, __ATOMIC_RELAXED) ||
		__atomic_load_n(&cr->cr_inflight, __ATOMIC_RELAXED) +
		__atomic_load_n(&cr->cr_resending, __ATOMIC_RELAXED) <
		cr->cr_nslots);
}

/* A waiting call (ctx, its struct cr_credit_wait) may take one: it is
 * first in the queue, or the connection failed (take_credit sees to it). */
static int credit_turn(struct clnt_rdma *cr, const void *ctx)
{
	return credit_done(cr, NULL) &&
	       (__atomic_load_n(&cr->cr_x.rx_dead, __ATOMIC_RELAXED) ||
		__atomic_load_n(&cr->cr_credit_q, __ATOMIC_RELAXED) == ctx);
}

/*
 * A credit for a new call, lock held: 0, or why not.  Where the client
 * reconnects, a lost connection is waited for (a round that gave up
 * starts again); else its error is returned.  A blocking call that must
 * wait joins the queue (*queued) and keeps its place until take_slot
 * takes it out; an asynchronous one (!wait) is told -EAGAIN and tries
 * again when its driver is kicked.
 */
static int take_credit(struct clnt_rdma *cr, const struct timespec *deadline,
		       bool wait, struct cr_credit_wait *me, bool *queued)
{
	int rc;

	for (;;) {
		if (cr->cr_conn != CR_CONNECTED || cr->cr_x.rx_dead) {
			if (!cr_can_reconnect(cr))
				return cr->cr_x.rx_dead ? cr->cr_x.rx_dead : -ECONNRESET;
			if (cr->cr_conn == CR_CONNECTED)
				cr_fail_all(cr, cr->cr_x.rx_dead);
			rc = wait ? cr_wait_connected(cr, true, deadline) :
				    cr_try_connected(cr, true);
			if (rc)
				return rc;
			continue;
		}
		if (credit_done(cr, NULL) &&
		    (!wait || !cr->cr_credit_q || cr->cr_credit_q == me))
			return 0;
		if (cr_can_reconnect(cr) && cr->cr_abandoned &&
		    cr->cr_abandoned >= cr->cr_credits) {
			/* Every credit is held by a call its caller gave up
			 * on: a server that drops calls would starve us for
			 * good.  A new connection starts the credits anew. */
			cr->cr_x.rx_stats.rs_credit_recoveries++;
			cr_fail_all(cr, -ETIMEDOUT);
			continue;
		}
		/* Replies free credits; someone must reap them, maybe us. */
		if (!wait)
			return -EAGAIN;	/* counted once by the caller */
		if (!*queued) {
			rpcrdma_cond_init(&me->cw_cond);
			cr_credit_enqueue(cr, me);
			*queued = true;
			cr->cr_x.rx_stats.rs_credit_waits++;	/* once a call */
		}
		if (cr_wait_for(cr, credit_turn, me, &me->cw_cond, NULL,
				deadline))
			return -ETIMEDOUT;
	}
}

/*
 * Receives for a call in slot i, lock held: 0, or -errno (none added).
 * Slots are taken lowest first, so at most i + 1 calls are in flight or
 * hold their Reply's buffer once slot i is taken; one receive more takes
 * a stray or error Reply.  Why not all at setup: a receive per credit is
 * registered memory for every CLIENT (17 KiB each at the defaults), and
 * most never have more than a few calls in flight.  Those added are
 * posted now, or by the reconnector (repost_free) if the client is not
 * connected.
 */
static int cr_recv_need(struct clnt_rdma *cr, uint32_t i)
{
	struct rpcrdma_xprt *x = &cr->cr_x;
	uint32_t from = x->rx_ep.re_recv_ready, k;
	int rc;

	if (__builtin_expect(i + 2 <= from, 1))
		return 0;
	rc = rpcrdma_ep_recv_grow(&x->rx_ep, i + 2);
	RPCRDMA_DBG("client: receives %u..%u registered: %d", from,
		    x->rx_ep.re_recv_ready, rc);
	if (rc)
		return rc;
	x->rx_stats.rs_ring_pinned = rpcrdma_ep_ring_bytes(&x->rx_ep);
	if (cr->cr_conn != CR_CONNECTED)
		return 0;
	for (k = from; k < x->rx_ep.re_recv_ready; k++)
		if (rpcrdma_xprt_repost(x, &x->rx_ep.re_reps[k]))
			cr_fail_all(cr, -ECONNRESET);
	return 0;
}

/*
 * The lowest free slot for a call that holds a credit, lock held: a
 * slot's memory (its Reply chunk window on rxe pins its Reply buffer once
 * used) is reused before another's is touched, so a handle pins what its
 * concurrency needs, not all its slots.
 */
static int take_free_slot(struct clnt_rdma *cr, struct cr_async *async,
			  struct rpcrdma_req **rqp)
{
	uint32_t i, mask = cr->cr_nslots - 1;

	for (i = 0; i < cr->cr_nslots; i++)
		if (cr->cr_reqs[i].rq_state == RQ_FREE)
			break;
	if (i == cr->cr_nslots)
		return -EAGAIN;	/* cannot happen: credit_done counted slots */
	if (cr_recv_need(cr, i))
		return -ENOMEM;
	/* The xid names its slot in its low bits (find_req); the rest
	 * counts calls, so an xid comes back only after 2^32 / slots. */
	cr->cr_xid = ((cr->cr_xid + cr->cr_nslots) & ~mask) | i;
	*rqp = &cr->cr_reqs[i];
	(*rqp)->rq_xid = cr->cr_xid;
	(*rqp)->rq_rep = NULL;
	(*rqp)->rq_refused_chunk = false;
	(*rqp)->rq_async = async;
	rpcrdma_wake_reset(&(*rqp)->rq_wake);
	cr_slot_move(cr, *rqp, RQ_SENT);
	cr_ep_get(cr);
	return 0;
}

/*
 * A credit and a slot for a new call, lock held; the caller then holds
 * the endpoint (cr_ep_get) until its Call is posted.
 */
static int take_slot(struct clnt_rdma *cr, const struct timespec *deadline,
		     bool wait, struct cr_async *async, struct rpcrdma_req **rqp)
{
	struct cr_credit_wait me;
	bool queued = false;
	int rc;

	rc = take_credit(cr, deadline, wait, &me, &queued);
	if (!rc)
		rc = take_free_slot(cr, async, rqp);
	if (queued) {
		cr_credit_dequeue(cr, &me);
		pthread_cond_destroy(&me.cw_cond);
		/* Once its own is taken, another credit may still be free (a
		 * larger grant, or this call gave up): the next looks.  Not
		 * before: it would only wake to find none. */
		if (cr->cr_credit_q && credit_done(cr, NULL))
			cr_credit_signal(cr, cr->cr_credit_q);
	}
	return rc;
}

/*
 * A call the connection's loss left in RQ_RESEND goes again once the
 * client reconnected and a credit is free, lock held: 0, the call in
 * RQ_SENT holding the endpoint; or why not (the round gave up, or the
 * deadline passed), the slot still in RQ_RESEND.
 */
static int wait_resend(struct clnt_rdma *cr, struct rpcrdma_req *rq,
		       const struct timespec *deadline, bool wait)
{
	int rc;

	for (;;) {
		rc = wait ? cr_wait_connected(cr, false, deadline) :
			    cr_try_connected(cr, false);
		if (rc)
			return rc;
		if (cr->cr_x.rx_dead) {
			/* Lost again before we went: wait for that round. */
			cr_fail_all(cr, cr->cr_x.rx_dead);
			continue;
		}
		if (resend_credit_done(cr, NULL))
			break;
		if (!wait)
			return -EAGAIN;
		if (cr_wait_for(cr, resend_credit_done, NULL,
				&cr->cr_credit_cond, NULL, deadline))
			return -ETIMEDOUT;
	}
	rq->rq_err = 0;
	rq->rq_refused_chunk = false;
	cr_slot_move(cr, rq, RQ_SENT);
	cr->cr_x.rx_stats.rs_retransmits++;
	RPCRDMA_PROBE2(retransmit, &cr->cr_x, rq->rq_xid);
	cr_ep_get(cr);
	return 0;
}

/* The call is over: give back its Reply buffer, slot and credit. Lock held. */
static void release_slot(struct clnt_rdma *cr, struct rpcrdma_req *rq)
{
	/* While the client reconnects, the reconnector posts it instead. */
	if (rq->rq_rep && cr->cr_conn == CR_CONNECTED &&
	    rpcrdma_xprt_repost(&cr->cr_x, rq->rq_rep))
		cr_fail_all(cr, -ECONNRESET);
	rq->rq_rep = NULL;
	rq->rq_async = NULL;
	cr_slot_move(cr, rq, RQ_FREE);
	cr_credit_freed(cr);
}

/*
 * A mapped Call gathered the caller's memory: the call may not return
 * before that Send completed, even when the Reply overtook it (counted)
 * or the call timed out.  A Send completes or is flushed when the QP
 * fails, so the grace period only guards against a wedged device.
 */
static void wait_send_done(struct clnt_rdma *cr, struct rpcrdma_req *rq,
			   const struct timespec *deadline)
{
	struct timespec later = *deadline;

	later.tv_sec += 30;
	rpcrdma_xprt_wait_send(&cr->cr_x, rq->rq_send_seq, &later);
	rq->rq_send_seq = 0;
}

/* ---- the call ----------------------------------------------------------- */

/* Revoke the call's remote access; counted.  Lock not held. */
static void release_chunks(struct clnt_rdma *cr, struct rpcrdma_req *rq,
			   int caller_only)
{
	unsigned int n;
	bool post;

	if (!rq->rq_ch.qc_mw_bound && !rq->rq_ch.qc_regs.rg_n)
		return;
	/* Invalidating a window posts on the QP: not while reconnecting. */
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	post = cr->cr_conn == CR_CONNECTED;
	if (post)
		cr_ep_get(cr);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	n = rpcrdma_clnt_release(&cr->cr_x, &rq->rq_ch, caller_only, post);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	if (post)
		cr_ep_put(cr);
	cr_count_deregs(cr, n);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

/* The Call into the slot's scratch, else whole into its spill buffer. */
enum cc_next cr_call_encode(struct cr_call *c, xdrproc_t xargs, void *argsp)
{
	struct clnt_rdma *cr = c->cc_cr;
	struct rpcrdma_req *rq = c->cc_rq;
	int rc;

	c->cc_xargs = xargs;
	c->cc_argsp = argsp;
	rc = cr_encode_call(cr, rq, c->cc_auth, c->cc_proc, xargs, argsp,
			    rq->rq_scratch,
			    cr->cr_x.rx_opts.ro_inline_send,
			    cr->cr_x.rx_opts.ro_page_threshold, &c->cc_xb);
	if (rc == -EMSGSIZE)
		rc = cr_encode_spilled(cr, rq, c->cc_auth, c->cc_proc, xargs,
				       argsp, &c->cc_xb);
	if (!rc)
		return CC_SEND;
	/* Too large for any buffer is a limit, not bad arguments: larger
	 * than the largest buffer tried (what the buffer holds says less:
	 * an RPCSEC_GSS wrap stops where it went back for its length). */
	c->cc_st = rc == -EMSGSIZE ?
		   cr_call_too_large(cr, c->cc_proc, RPCRDMA_SPILL_MAX) :
		   cr_refuse(cr, RPC_CANTENCODEARGS, rc);
	return CC_RELEASE;
}

/* Marshalling failed (nothing registered, nothing posted). */
static enum cc_next marshal_failed(struct cr_call *c, int rc)
{
	struct clnt_rdma *cr = c->cc_cr;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	if (rc == -EMSGSIZE)
		cr->cr_x.rx_stats.rs_too_large++;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	if (c->cc_counted)
		c->cc_st = cr_set_err(cr, RPC_CANTSEND, rc);
	else if (rc == -EMSGSIZE)
		c->cc_st = cr_call_too_large(cr, c->cc_proc,
					     rpcrdma_xdrbuf_len(&c->cc_xb));
	else
		c->cc_st = cr_refuse(cr, RPC_CANTSEND, rc);
	return CC_RELEASE;
}

/*
 * Marshal and post the Call, endpoint held: CC_WAIT, posted (its slot
 * may have left RQ_SENT already); CC_RESEND, the connection went as we
 * posted; CC_RELEASE, over.  Lock not held on entry or return, except
 * with @keep on CC_WAIT: then held (the blocking caller waits next, and
 * one lock round less per call is one chance less to queue behind the
 * poller).
 */
static enum cc_next call_post(struct cr_call *c, bool keep)
{
	struct clnt_rdma *cr = c->cc_cr;
	struct rpcrdma_req *rq = c->cc_rq;
	struct rpcrdma_xdr_buf send;
	int rc;

	/* Chunks as the Call's size and the Reply's bound need (chunks.c). */
	rc = rpcrdma_clnt_marshal(&cr->cr_x, &rq->rq_ch, rq->rq_xid, &c->cc_xb,
				  cr_reply_bound(cr, c->cc_proc, c->cc_xres,
						 c->cc_rb != NULL),
				  c->cc_rb, &send);
	if (rc)
		return marshal_failed(c, rc);
	/* Returns with the lock held: the accounting below shares its hold. */
	rc = rpcrdma_xprt_send_hold(&cr->cr_x, rq->rq_ch.qc_hdr,
				    rq->rq_ch.qc_hdrlen, &send, &c->cc_deadline,
				    &rq->rq_send_seq);
	RPCRDMA_DBG("client: Call xid %#x, %zu bytes, chunks %d, reply chunk %d: %d",
		    rq->rq_xid, rpcrdma_xdrbuf_len(&c->cc_xb),
		    (int)rq->rq_ch.qc_kind, (int)rq->rq_ch.qc_has_reply, rc);
	cr_ep_put(cr);
	c->cc_held = false;
	if (rc && (rc == -ETIMEDOUT || !cr->cr_x.rx_dead ||
		   !cr_can_reconnect(cr))) {
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		release_chunks(cr, rq, 0);
		c->cc_st = (c->cc_counted ? cr_set_err : cr_refuse)(cr,
				rc == -ETIMEDOUT ? RPC_TIMEDOUT : RPC_CANTSEND,
				rc);
		return CC_RELEASE;
	}
	if (rc) {
		/* The connection went as we posted: this call goes again. */
		cr_fail_all(cr, cr->cr_x.rx_dead);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return CC_RESEND;
	}
	/* Once per call: a retry or resend is counted apart
	 * (rs_reply_chunk_retries, rs_retransmits). */
	if (!c->cc_counted)
		cr->cr_x.rx_stats.rs_calls++;
	c->cc_counted = true;
	rpcrdma_clnt_count_call(&rq->rq_ch, &cr->cr_x.rx_stats);
	RPCRDMA_PROBE6(marshal, &cr->cr_x, rq->rq_xid,
		       rpcrdma_call_kind_name(rq->rq_ch.qc_kind),
		       rpcrdma_reply_kind_name(&rq->rq_ch),
		       c->cc_xb.xb_len, rq->rq_ch.qc_hdrlen);
	if (rq->rq_ch.qc_nregs)
		RPCRDMA_PROBE3(chunk_reg, &cr->cr_x, rq->rq_xid,
			       rq->rq_ch.qc_nregs);
	if (!keep)
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return CC_WAIT;
}

enum cc_next cr_call_post(struct cr_call *c)
{
	return call_post(c, false);
}

/*
 * The call's deadline passed with its slot in RQ_SENT, lock held on
 * entry, not on return: the call is over (RPC_TIMEDOUT) but its slot
 * keeps the credit until the Reply or the connection ends, as the
 * server may still be working on it.
 */
enum cc_next cr_call_abandon(struct cr_call *c)
{
	struct clnt_rdma *cr = c->cc_cr;
	struct rpcrdma_req *rq = c->cc_rq;

	rq->rq_async = NULL;
	cr_slot_move(cr, rq, RQ_ABANDONED);
	cr->cr_x.rx_stats.rs_timeouts++;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	/* The caller's memory must not stay remotely accessible once we
	 * return; our Reply buffer goes with the slot. */
	release_chunks(cr, rq, 1);
	wait_send_done(cr, rq, &c->cc_deadline);
	/* The spill buffer stays: the server may still read it. */
	c->cc_st = cr_set_err(cr, RPC_TIMEDOUT, 0);
	return CC_RETURN;
}

/*
 * Post, then wait for the Reply (clnt_call).  Lock not held.  Once out
 * of RQ_SENT the slot moves only by our hand (cr_slot_move's table), so
 * its state is read without the lock when the wait returned without it.
 */
static enum cc_next send_once(struct cr_call *c)
{
	struct clnt_rdma *cr = c->cc_cr;
	struct rpcrdma_req *rq = c->cc_rq;
	enum cc_next next = call_post(c, true);
	int rc;

	if (next != CC_WAIT)
		return next;
	rc = cr_wait_for(cr, reply_done, rq, NULL, rq, &c->cc_deadline);
	if (rc < 0)
		return cr_call_abandon(c);
	next = __atomic_load_n(&rq->rq_state, __ATOMIC_ACQUIRE) == RQ_RESEND ?
	       CC_RESEND : CC_REPLIED;
	if (rc == 0)
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return next;
}

/*
 * Why: RPCSEC_GSS wants a new sequence number for every transmission,
 * the same xid kept (RFC 2203 5.3.3.1); the server's sequence window
 * drops a Call whose number it has seen as a replay, so the bytes sent
 * before cannot go again.  Other flavours go again as they were (a
 * duplicate request cache knows them by their xid).  CC_SEND, or
 * CC_RELEASE with cc_st set.
 */
static enum cc_next encode_again(struct cr_call *c)
{
	if (!c->cc_auth || c->cc_auth->ah_cred.oa_flavor != RPCSEC_GSS)
		return CC_SEND;
	return cr_call_encode(c, c->cc_xargs, c->cc_argsp);
}

/* The slot is in RQ_RESEND: the Send done, the chunks revoked.  Lock not held. */
void cr_call_resend_prep(struct cr_call *c)
{
	wait_send_done(c->cc_cr, c->cc_rq, &c->cc_deadline);
	release_chunks(c->cc_cr, c->cc_rq, 0);
	/* Cannot fail but for memory: the bytes sent before then go, and
	 * the server, if it saw them, drops them (the call times out). */
	(void)encode_again(c);
}

/*
 * Go again on the new connection, after cr_call_resend_prep(): CC_SEND,
 * endpoint held; CC_RETURN, over (the round gave up, or the deadline
 * passed); CC_WAIT when @wait is false and it would wait.  Lock not
 * held on entry or return.
 */
enum cc_next cr_call_resend_try(struct cr_call *c, bool wait)
{
	struct clnt_rdma *cr = c->cc_cr;
	struct rpcrdma_req *rq = c->cc_rq;
	int rc;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	rc = wait_resend(cr, rq, &c->cc_deadline, wait);
	if (rc == -EAGAIN && passed(&c->cc_deadline))
		rc = -ETIMEDOUT;
	if (rc == -EAGAIN) {
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return CC_WAIT;
	}
	if (rc) {
		/* It never went again: it holds no credit. */
		rq->rq_async = NULL;
		cr_slot_move(cr, rq, RQ_FREE);
		cr_credit_freed(cr);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		cr_trim_spill(rq);
		c->cc_st = cr_set_err(cr, rc == -ETIMEDOUT ? RPC_TIMEDOUT :
				      RPC_CANTRECV, rc);
		return CC_RETURN;
	}
	c->cc_held = true;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return CC_SEND;
}

/* The blocking resend: wait to go again on the new connection. */
static enum cc_next resend(struct cr_call *c)
{
	cr_call_resend_prep(c);
	return cr_call_resend_try(c, true);
}

/*
 * The Reply did not fit inline and we offered no chunk: once more, same
 * xid (a duplicate request cache knows it), with one.  The server ran
 * the procedure; see ro_reply_chunks.  Lock not held.
 */
static enum cc_next retry_with_chunk(struct cr_call *c)
{
	struct clnt_rdma *cr = c->cc_cr;
	struct rpcrdma_req *rq = c->cc_rq;

	c->cc_retried = true;
	if (encode_again(c) != CC_SEND)
		return CC_RELEASE;
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	cr->cr_x.rx_stats.rs_reply_chunk_retries++;
	rq->rq_err = 0;
	rq->rq_refused_chunk = false;
	if (cr->cr_conn != CR_CONNECTED || cr->cr_x.rx_dead) {
		/* Lost meanwhile: it goes again once reconnected. */
		if (!cr_can_reconnect(cr)) {
			pthread_mutex_unlock(&cr->cr_x.rx_lock);
			c->cc_st = cr_set_err(cr, RPC_CANTSEND,
					      cr->cr_x.rx_dead);
			return CC_RELEASE;
		}
		cr_slot_move(cr, rq, RQ_RESEND);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return CC_RESEND;
	}
	cr_slot_move(cr, rq, RQ_SENT);
	cr_ep_get(cr);
	c->cc_held = true;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return CC_SEND;
}

/*
 * The slot left RQ_SENT: a Reply, or a failure.  CC_RELEASE, over;
 * CC_SEND, once more with a Reply chunk; CC_RESEND.  Lock not held.
 */
enum cc_next cr_call_replied(struct cr_call *c)
{
	struct clnt_rdma *cr = c->cc_cr;
	struct rpcrdma_req *rq = c->cc_rq;

	wait_send_done(cr, rq, &c->cc_deadline);
	/* The Reply is here: no rkey of this RPC may work any longer. */
	release_chunks(cr, rq, 0);
	if (cr_reply_learn(cr, c->cc_proc, c->cc_xres, rq) && !c->cc_retried)
		return retry_with_chunk(c);
	if (rq->rq_state == RQ_FAILED && rq->rq_refused_chunk) {
		c->cc_st = cr_refused_chunk(cr, c->cc_proc, rq,
					    rpcrdma_xdrbuf_len(&c->cc_xb));
	} else if (rq->rq_state == RQ_FAILED) {
		c->cc_st = cr_set_err(cr, rq->rq_err == -EMSGSIZE ?
				      RPC_CANTSEND : RPC_CANTRECV, rq->rq_err);
	} else {
		c->cc_st = cr_decode_reply(rq, c->cc_auth, c->cc_xres,
					   c->cc_resp, &c->cc_err);
		c->cc_err_due = true;
	}
	if (c->cc_rb)
		c->cc_rb->rb_written = rq->rq_ch.qc_ddp.dt_written;
	return CC_RELEASE;
}

/* Give back what the call still holds: endpoint, slot and credit. */
void cr_call_release(struct cr_call *c)
{
	struct clnt_rdma *cr = c->cc_cr;

	cr_trim_spill(c->cc_rq);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	if (c->cc_held)
		cr_ep_put(cr);
	if (c->cc_err_due)
		cr->cr_err = c->cc_err;	/* cr_put_err's, in this hold */
	release_slot(cr, c->cc_rq);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

void cr_call_init(struct cr_call *c, struct clnt_rdma *cr, AUTH *auth,
		  struct rpcrdma_result_buf *rb, rpcproc_t proc,
		  xdrproc_t xres, void *resp, struct timeval tmo)
{
	memset(c, 0, sizeof(*c));
	c->cc_cr = cr;
	c->cc_auth = auth;
	c->cc_proc = proc;
	c->cc_xres = xres;
	c->cc_resp = resp;
	c->cc_rb = rb;
	c->cc_held = true;
	rpcrdma_deadline(&c->cc_deadline,
			 cr->cr_timeout_set ? &cr->cr_timeout : &tmo);
}

/*
 * A credit and a slot for the call: 0, the slot in RQ_SENT and the
 * endpoint held; -EAGAIN when @wait is false and it would wait (counted
 * in rs_credit_waits by the caller, once per call); else why not, for
 * cr_call_not_taken().
 */
int cr_call_take(struct cr_call *c, bool wait)
{
	struct clnt_rdma *cr = c->cc_cr;
	int rc;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	rc = take_slot(cr, &c->cc_deadline, wait, c->cc_async, &c->cc_rq);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return rc == -EAGAIN && passed(&c->cc_deadline) ? -ETIMEDOUT : rc;
}

/* The call never got a slot: its outcome (counted, as clnt_call's). */
enum clnt_stat cr_call_not_taken(struct cr_call *c, int rc)
{
	if (rc == -ETIMEDOUT)
		return cr_refuse(c->cc_cr, RPC_TIMEDOUT, 0);
	return cr_refuse(c->cc_cr, RPC_CANTSEND, rc);
}

/*
 * The call, for clnt_call() (clnt_rdma.c): @rb is the zero-copy buffer
 * the caller set for it, or NULL.  Each turn of the loop posts the Call
 * once: the first time, again after a lost connection (RQ_RESEND), or
 * once more with a Reply chunk.
 */
enum clnt_stat cr_call(struct clnt_rdma *cr, AUTH *auth,
		       struct rpcrdma_result_buf *rb, rpcproc_t proc, xdrproc_t xargs, void *argsp,
		       xdrproc_t xres, void *resp, struct timeval tmo)
{
	struct cr_call c;
	enum cc_next next;
	int rc;

	cr_call_init(&c, cr, auth, rb, proc, xres, resp, tmo);
	rc = cr_call_take(&c, true);
	if (rc)
		return cr_call_not_taken(&c, rc);

	next = cr_call_encode(&c, xargs, argsp);
	while (next == CC_SEND) {
		next = send_once(&c);
		if (next == CC_REPLIED)
			next = cr_call_replied(&c);
		if (next == CC_RESEND)
			next = resend(&c);
	}
	if (next == CC_RELEASE)
		cr_call_release(&c);
	return c.cc_st;
}
