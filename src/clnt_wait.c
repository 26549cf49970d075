/*
 * Waiting in the client: whoever waits reaps the CQ, one poller at a
 * time, the others asleep (poller.h); the Replies it reaps go to their
 * calls (handle_reply).  Also the Send path's short reap (cr_reap_wait).
 * Every wait of the client, in one table: src/event-loop.md.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "clnt_rdma.h"
#include "probes.h"
#include "completion.h"
#include "poller.h"

/*
 * Why the server answered RDMA_ERROR.  ERR_CHUNK for a Call that carried
 * Read chunks: the server cannot take them, so the Call could not be
 * sent in a form it accepts (-EMSGSIZE, as for a Call no Send can carry);
 * otherwise the Reply would not fit what we offered (-EPROTO).
 */
static int refused_err(const struct rpcrdma_req_chunks *ch,
		       const struct rpcrdma_hdr *h)
{
	if (h->hd_err == RPCRDMA_ERR_VERS)
		return -EPROTONOSUPPORT;
	return ch->qc_kind != RPCRDMA_CALL_INLINE ? -EMSGSIZE : -EPROTO;
}

/*
 * The Reply's Send invalidated rkey (RFC 8797): the device says it is dead,
 * whatever the server was asked.  Its own call's is counted (clnt_chunks.c);
 * a window of another call in flight is taken as revoked too, uncounted
 * there, since invalidating a dead window again is what a window must never
 * see (rxe's kernel driver dereferences NULL on it).  Only slots no caller
 * is releasing are looked at: RQ_SENT and RQ_ABANDONED.  Lock held.
 */
static void remote_inv(struct clnt_rdma *cr, struct rpcrdma_req *rq,
		       uint32_t rkey)
{
	struct rpcrdma_stats *st = &cr->cr_x.rx_stats;
	uint32_t i;
	int how;

	if (rq && rq->rq_state == RQ_SENT) {
		how = rpcrdma_clnt_remote_inv(&rq->rq_ch, rkey);
		st->rs_remote_invs += how != 0;
		if (how == 2)		/* its window: revoked, by the server */
			cr_count_deregs(cr, 1);
		if (how)
			return;
	}
	for (i = 0; i < cr->cr_nslots; i++) {
		struct rpcrdma_req *o = &cr->cr_reqs[i];

		if ((o->rq_state != RQ_SENT && o->rq_state != RQ_ABANDONED) ||
		    !o->rq_ch.qc_mw_bound || o->rq_ch.qc_mw.mw_rkey != rkey)
			continue;
		if (rpcrdma_clnt_remote_inv(&o->rq_ch, rkey) == 2)
			cr_count_deregs(cr, 1);
		RPCRDMA_DBG("client: the Reply to xid %#x invalidated the "
			    "window of xid %#x", rq ? rq->rq_xid : 0, o->rq_xid);
		return;
	}
}

/*
 * A Reply arrived.  The grant it carries takes effect at once (0 counts as
 * 1, and never more than we asked for); then the Reply goes to its call,
 * or back to the receive queue if nobody waits for it.  Lock held; the
 * call whose caller is to be woken is returned, to be signalled once the
 * lock is dropped (so that it does not wake only to wait for the lock).
 */
static struct rpcrdma_req *handle_reply(struct clnt_rdma *cr,
					struct rpcrdma_rep *rep)
{
	struct rpcrdma_req *rq, *wake = NULL;
	struct rpcrdma_hdr h;
	uint32_t grant;
	bool more;
	int rc;

	rc = rpcrdma_hdr_decode(rep->rr_buf, rep->rr_len, &h);
	RPCRDMA_DBG("client: Reply of %u bytes: decode %d xid %#x proc %u",
		    rep->rr_len, rc, h.hd_xid, h.hd_proc);
	rq = (rc == 0 || rc == -EBADMSG || rc == -EPROTONOSUPPORT) ?
	     cr_slot_find(cr, h.hd_xid) : NULL;
	if (rep->rr_with_inv)
		remote_inv(cr, rq, rep->rr_inv_rkey);
	if (rc == 0 && h.hd_proc == RPCRDMA_ERROR && rq) {
		/* The server refused our Call; no Reply is coming. */
		if (rq->rq_state == RQ_SENT) {
			rq->rq_err = refused_err(&rq->rq_ch, &h);
			rq->rq_refused_chunk = h.hd_err == RPCRDMA_ERR_CHUNK;
			cr_slot_move(cr, rq, RQ_FAILED);
			wake = rq;
		} else if (rq->rq_state == RQ_ABANDONED) {
			cr_free_abandoned(cr, rq);
			cr_credit_freed(cr);
		}
		cr->cr_x.rx_stats.rs_bad_replies++;
		RPCRDMA_PROBE3(err_recv, &cr->cr_x, h.hd_xid, h.hd_err);
		if (h.hd_err == RPCRDMA_ERR_CHUNK)
			cr->cr_x.rx_stats.rs_err_chunk++;
		goto out_repost;
	}
	if (rc || (h.hd_proc != RPCRDMA_MSG && h.hd_proc != RPCRDMA_NOMSG) ||
	    !rq || (rq->rq_state != RQ_SENT && rq->rq_state != RQ_ABANDONED)) {
		cr->cr_x.rx_stats.rs_bad_replies++;
		goto out_repost;
	}
	grant = h.hd_credits ? h.hd_credits : 1;
	if (grant > cr->cr_x.rx_opts.ro_max_requests)
		grant = cr->cr_x.rx_opts.ro_max_requests;
	/* Why not on every Reply: a Reply frees no credit until its caller
	 * gives the slot back (release_slot wakes the first waiter then);
	 * waking every credit waiter per Reply cost 128 threads a wake-up
	 * each. */
	more = grant > cr->cr_credits;
	cr->cr_credits = grant;
	if (more)
		cr_credit_wake_all(cr);
	cr->cr_x.rx_stats.rs_credits_granted = grant;
	RPCRDMA_PROBE2(credits, &cr->cr_x, grant);
	if (__atomic_load_n(&cr->cr_async.ac_waiting, __ATOMIC_RELAXED))
		cr_async_kick(cr);

	if (rq->rq_state == RQ_ABANDONED) {
		cr_free_abandoned(cr, rq);
		cr_credit_freed(cr);
		goto out_repost;
	}
	/* The chunks that came back must be the ones this call offered. */
	if (rpcrdma_clnt_check_reply(&rq->rq_ch, &h, &cr->cr_x.rx_stats)) {
		rq->rq_err = -EBADMSG;
		cr_slot_move(cr, rq, RQ_FAILED);
		cr->cr_x.rx_stats.rs_bad_replies++;
		wake = rq;
		goto out_repost;
	}
	rq->rq_rep = rep;
	rq->rq_off = h.hd_hdrlen;
	cr_slot_move(cr, rq, RQ_REPLIED);
	cr->cr_x.rx_stats.rs_replies++;
	RPCRDMA_PROBE4(reply, &cr->cr_x, h.hd_xid, h.hd_proc, rep->rr_len);
	return rq;

out_repost:
	if (rpcrdma_xprt_repost(&cr->cr_x, rep))
		cr_fail_all(cr, -ECONNRESET);
	return wake;
}

/* A Receive completed: match it to its call (completion.h). */
static void reap_recv(void *owner, struct rpcrdma_rep *rep)
{
	struct clnt_rdma *cr = owner;
	struct rpcrdma_req *wake;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	wake = handle_reply(cr, rep);
	/* An asynchronous call has no thread waiting (clnt_async.c). */
	if (wake && wake->rq_async)
		wake = NULL;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	if (wake)
		rpcrdma_wake_post(&wake->rq_wake);
}

/* A completion failed the connection: every call waiting fails. */
static void reap_fail(void *owner, const struct rpcrdma_wc *wc, int unknown)
{
	struct clnt_rdma *cr = owner;

	(void)wc;
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	if (unknown)
		cr->cr_x.rx_stats.rs_cqe_unknown++;
	cr_fail_all(cr, -ECONNRESET);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

/*
 * The client posts Sends, Receives and window binds and invalidations;
 * RDMA Read/Write is the server's.  Anything else is refused, counted,
 * and fails the connection (reconnection recovers).
 */
static const struct rpcrdma_cq_ops clnt_cq_ops = {
	.cqo_name = "client",
	.cqo_kinds = RPCRDMA_CQE_BIT(RPCRDMA_CQE_SEND) |
		    RPCRDMA_CQE_BIT(RPCRDMA_CQE_RECV) |
		    RPCRDMA_CQE_BIT(RPCRDMA_CQE_BIND) |
		    RPCRDMA_CQE_BIT(RPCRDMA_CQE_INV),
	.cqo_recv = reap_recv,
	.cqo_fail = reap_fail,
};

/* Handle what completed: how many completions (0: the CQ was empty). */
int cr_reap(struct clnt_rdma *cr)
{
	int n = rpcrdma_cq_reap(&cr->cr_x, &clnt_cq_ops, cr);

	if (n < 0) {
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		cr_fail_all(cr, n);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
	}
	return n;
}

/* ---- waiting: one poller, the others asleep ------------------------------ */

struct cr_poll_arg {
	struct clnt_rdma *pa_cr;
	int (*pa_done)(struct clnt_rdma *cr, const void *ctx);
	const void *pa_ctx;
	bool pa_credit;		/* a credit's wait, not a Reply's */
};

/*
 * The connection went (handle_cm) while we polled: once a reap that began
 * after that found the CQ empty, every Reply sent before it is in; what
 * is still waiting fails.
 */
int cr_reap_gone(struct clnt_rdma *cr)
{
	int gone = __atomic_load_n(&cr->cr_gone, __ATOMIC_ACQUIRE);
	int n = cr_reap(cr);

	if (n == 0 && gone) {
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		if (cr->cr_gone)
			cr_fail_all(cr, -ECONNRESET);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
	}
	return n;
}

static int cr_po_reap(void *arg)
{
	return cr_reap_gone(((struct cr_poll_arg *)arg)->pa_cr);
}

static int cr_po_done(void *arg)
{
	struct cr_poll_arg *pa = arg;

	return pa->pa_done(pa->pa_cr, pa->pa_ctx);
}

static int cr_po_arm(void *arg)
{
	return rpcrdma_cq_arm(&((struct cr_poll_arg *)arg)->pa_cr->cr_x.rx_ep);
}

/*
 * Asleep on the channel.  A credit waiter also sleeps on cr_creditfd: a
 * credit is freed by a caller giving its slot back, which no completion
 * announces (cr_credit_kick, clnt_state.c).  It says it sleeps, then looks
 * once more, so a credit freed in between is never missed.
 */
static int cr_po_sleep(void *arg, int timeout_ms)
{
	struct cr_poll_arg *pa = arg;
	struct clnt_rdma *cr = pa->pa_cr;
	bool kicked = false;
	uint64_t v;
	int rc = 0;		/* it did not sleep: its turn had come */

	if (!pa->pa_credit)
		return rpcrdma_cq_sleep(&cr->cr_x.rx_ep, timeout_ms);
	__atomic_store_n(&cr->cr_credit_sleeper,
			 pa->pa_ctx ? pa->pa_ctx : CR_RESEND_SLEEPER,
			 __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!pa->pa_done(cr, pa->pa_ctx))
		rc = rpcrdma_cq_sleep_or(&cr->cr_x.rx_ep, cr->cr_creditfd,
					 timeout_ms, &kicked);
	__atomic_store_n(&cr->cr_credit_sleeper, NULL, __ATOMIC_RELAXED);
	if (kicked && read(cr->cr_creditfd, &v, sizeof(v)) < 0 &&
	    errno != EAGAIN)
		return -errno;
	return rc;
}

static const struct rpcrdma_poll_ops cr_poll_ops = {
	.po_reap = cr_po_reap,
	.po_done = cr_po_done,
	.po_arm = cr_po_arm,
	.po_sleep = cr_po_sleep,
	.po_now_ns = rpcrdma_poll_now_ns,
	.po_yield = rpcrdma_poll_yield,
};

/*
 * The poller role is free: wake a sleeper to take it, lock held.  Every
 * one linked still waits: a Reply's waiter whose Reply came was unlinked
 * when its slot left RQ_SENT (cr_slot_move), so the role never goes to
 * one that would only pass it on, one more wake-up in the chain.  A
 * credit waiter (its own condition, or the shared one of calls going
 * again) polls until its turn comes.
 */
void cr_hand_over(struct clnt_rdma *cr)
{
	struct cr_waiter *w = cr->cr_polling ? NULL : cr->cr_waiters;

	if (w && w->w_rq)
		rpcrdma_wake_post(&w->w_rq->rq_wake);
	else if (w)
		pthread_cond_signal(w->w_cond);
	/* Nobody polls: whoever drives asynchronous calls must, and arm
	 * the CQ for its descriptor (the poller may have taken its event). */
	else if (!cr->cr_polling && cr->cr_async.ac_live &&
		 !__atomic_load_n(&cr->cr_async.ac_busy, __ATOMIC_SEQ_CST))
		cr_async_kick(cr);
	/* The reconnector waits for the poller to leave. */
	if (!cr->cr_polling && cr->cr_conn == CR_RECONNECTING)
		pthread_cond_broadcast(&cr->cr_conn_cond);
}

static void cr_add_poll_stats(struct rpcrdma_stats *st,
			      const struct rpcrdma_poll_stats *ps)
{
	st->rs_wakeups += ps->ps_wakeups;
	st->rs_busy_poll_hits += ps->ps_hits;
	st->rs_busy_poll_misses += ps->ps_misses;
	st->rs_empty_polls += ps->ps_empty;
}

static uint64_t to_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/*
 * Wait, lock held, until done() holds: as the poller if nobody polls
 * (reaping the CQ, spinning as long as cr_spin learned, at most
 * ro_busy_poll_us, or busy_poll_alone_us for a lone call: cr_spin_bound;
 * then sleeping on the channel), else asleep on cond (shared) or on
 * rq's rq_wake (its own: a Reply's) until a Reply, a credit or the role
 * is handed over.  0, lock held; -ETIMEDOUT at the deadline, lock held;
 * or, waiting for rq only, 1: done, lock not held.
 *
 * Why 1: a caller woken for its Reply was unlinked by the poller that
 * handed it over (cr_slot_move), so it has nothing left to do under the
 * lock; taking it back, just as the poller takes it for the next Reply,
 * was the most contended hold of a call, and made the unlock after it a
 * futex call.
 */
int cr_wait_for(struct clnt_rdma *cr,
		       int (*done)(struct clnt_rdma *cr, const void *ctx),
		       const void *ctx, pthread_cond_t *cond,
		       struct rpcrdma_req *rq,
		       const struct timespec *deadline)
{
	struct cr_poll_arg pa = { cr, done, ctx, !rq };
	struct cr_waiter me = { .w_cond = cond, .w_rq = rq };
	struct rpcrdma_poll_stats ps;
	uint32_t spin_us;
	int rc = 0;

	while (!done(cr, ctx)) {
		if (!cr->cr_polling) {
			if (me.w_linked)
				cr_waiter_unlink(cr, &me);
			spin_us = cr_spin_bound(cr);
			cr->cr_polling = 1;
			pthread_mutex_unlock(&cr->cr_x.rx_lock);
			memset(&ps, 0, sizeof(ps));
			rc = rpcrdma_poll_wait(&cr_poll_ops, &pa, &cr->cr_spin,
					       spin_us, to_ns(deadline), &ps);
			pthread_mutex_lock(&cr->cr_x.rx_lock);
			cr->cr_polling = 0;
			cr_add_poll_stats(&cr->cr_x.rx_stats, &ps);
			if (rc == -ETIMEDOUT || done(cr, ctx))
				break;
			if (rc < 0)
				cr_fail_all(cr, rc);
			continue;
		}
		if (!me.w_linked)
			cr_waiter_link(cr, &me);
		if (rq) {
			rc = rpcrdma_wake_sleep(&rq->rq_wake,
						&cr->cr_x.rx_lock, deadline);
			if (!__atomic_load_n(&me.w_linked, __ATOMIC_ACQUIRE))
				return 1;	/* its Reply, handed over */
			pthread_mutex_lock(&cr->cr_x.rx_lock);
		} else {
			rc = -pthread_cond_timedwait(cond, &cr->cr_x.rx_lock,
						     deadline);
		}
		if (rc == -ETIMEDOUT && !done(cr, ctx))
			break;
		rc = 0;
	}
	if (me.w_linked)
		cr_waiter_unlink(cr, &me);
	cr_hand_over(cr);
	return done(cr, ctx) ? 0 : rc ? rc : -ETIMEDOUT;
}

/*
 * The Send path found no free send context, or waits for a mapped
 * Send's completion (lock not held): reap a little as the poller if the
 * role is free, else let the poller do it and wait briefly.
 */
void cr_reap_wait(void *arg)
{
	struct clnt_rdma *cr = arg;
	struct rpcrdma_ep *ep = &cr->cr_x.rx_ep;
	struct timespec ts;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	if (cr->cr_polling) {
		rpcrdma_deadline_ms(&ts, 10);
		pthread_cond_timedwait(&cr->cr_x.rx_sendctx_cond,
				       &cr->cr_x.rx_lock, &ts);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return;
	}
	cr->cr_polling = 1;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	if (!cr_reap(cr) && !rpcrdma_cq_arm(ep) && !cr_reap(cr))
		rpcrdma_cq_sleep(ep, 10);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	cr->cr_polling = 0;
	cr_hand_over(cr);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}
