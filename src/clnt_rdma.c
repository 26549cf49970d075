/*
 * The RDMA CLIENT: libtirpc clnt_ops over one RPC-over-RDMA connection.
 * Many threads may call at once, up to the granted credits.  A thread
 * waiting for its Reply reaps the CQ itself, one at a time (poller.h);
 * a progress thread remains only for connection events.
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "clnt_rdma.h"
#include "completion.h"
#include "poller.h"

static void wait_send_done(struct clnt_rdma *cr, struct rpcrdma_req *rq,
			   const struct timespec *deadline);

/*
 * An abandoned call is over (its Reply came, or the connection went):
 * what stayed registered for it, its Reply buffer, is revoked before
 * the slot can be reused.  Lock held.
 */
static void free_abandoned(struct clnt_rdma *cr, struct rpcrdma_req *rq)
{
	cr->cr_x.rx_stats.rs_chunk_deregs +=
		rpcrdma_clnt_release(&cr->cr_x, &rq->rq_ch, 0,
				     cr->cr_conn == CR_CONNECTED);
	rq->rq_state = RQ_FREE;
	cr->cr_inflight--;
	cr->cr_abandoned--;
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
	if (!cr->cr_x.rx_dead)
		cr->cr_x.rx_dead = err;
	if (again)
		cr_conn_lost(cr);
	for (i = 0; i < cr->cr_nslots; i++) {
		struct rpcrdma_req *rq = &cr->cr_reqs[i];

		if (rq->rq_state == RQ_SENT) {
			rq->rq_err = err;
			if (again) {
				cr->cr_inflight--;
				cr->cr_resending++;
			}
			__atomic_store_n(&rq->rq_state, again ? RQ_RESEND : RQ_FAILED,
					 __ATOMIC_RELEASE);
			pthread_cond_signal(&rq->rq_cond);
		} else if (rq->rq_state == RQ_ABANDONED) {
			free_abandoned(cr, rq);
		}
	}
	pthread_cond_broadcast(&cr->cr_credit_cond);
	pthread_cond_broadcast(&cr->cr_x.rx_sendctx_cond);
}

/* An xid's low bits are its slot (take_slot): O(1), no scan. */
static struct rpcrdma_req *find_req(struct clnt_rdma *cr, uint32_t xid)
{
	struct rpcrdma_req *rq = &cr->cr_reqs[xid & (cr->cr_nslots - 1)];

	return rq->rq_state != RQ_FREE && rq->rq_xid == xid ? rq : NULL;
}

/*
 * Why the server answered RDMA_ERROR.  ERR_CHUNK for a Call that carried
 * Read chunks: the server cannot take them, so the Call could not be
 * sent in a form it accepts (-EMSGSIZE, as for a Call no Send can carry);
 * otherwise the Reply would not fit what we offered (-EPROTO).
 */
static int refused_err(const struct rpcrdma_req_chunks *ch,
		       const struct rpcrdma_hdr *h)
{
	if (h->rh_err == RPCRDMA_ERR_VERS)
		return -EPROTONOSUPPORT;
	return ch->qc_kind != RPCRDMA_CALL_INLINE ? -EMSGSIZE : -EPROTO;
}

/*
 * A Reply arrived.  The grant it carries takes effect at once (0 counts as
 * 1, and never more than we asked for); then the Reply goes to its call,
 * or back to the receive queue if nobody waits for it.  Lock held.
 */
static void handle_reply(struct clnt_rdma *cr, struct rpcrdma_rep *rep)
{
	struct rpcrdma_hdr h;
	struct rpcrdma_req *rq;
	uint32_t grant;
	int rc;

	rc = rpcrdma_hdr_decode(rep->rr_buf, rep->rr_len, &h);
	RPCRDMA_DBG("client: Reply of %u bytes: decode %d xid %#x proc %u",
		    rep->rr_len, rc, h.rh_xid, h.rh_proc);
	rq = (rc == 0 || rc == -EBADMSG || rc == -EPROTONOSUPPORT) ?
	     find_req(cr, h.rh_xid) : NULL;
	if (rc == 0 && h.rh_proc == RPCRDMA_ERROR && rq) {
		/* The server refused our Call; no Reply is coming. */
		if (rq->rq_state == RQ_SENT) {
			rq->rq_err = refused_err(&rq->rq_ch, &h);
			rq->rq_refused_chunk = h.rh_err == RPCRDMA_ERR_CHUNK;
			__atomic_store_n(&rq->rq_state, RQ_FAILED, __ATOMIC_RELEASE);
			pthread_cond_signal(&rq->rq_cond);
		} else if (rq->rq_state == RQ_ABANDONED) {
			free_abandoned(cr, rq);
			pthread_cond_broadcast(&cr->cr_credit_cond);
		}
		cr->cr_x.rx_stats.rs_bad_replies++;
		if (h.rh_err == RPCRDMA_ERR_CHUNK)
			cr->cr_x.rx_stats.rs_err_chunk++;
		goto out_repost;
	}
	if (rc || (h.rh_proc != RPCRDMA_MSG && h.rh_proc != RPCRDMA_NOMSG) ||
	    !rq || (rq->rq_state != RQ_SENT && rq->rq_state != RQ_ABANDONED)) {
		cr->cr_x.rx_stats.rs_bad_replies++;
		goto out_repost;
	}
	grant = h.rh_credits ? h.rh_credits : 1;
	if (grant > cr->cr_x.rx_opts.ro_max_requests)
		grant = cr->cr_x.rx_opts.ro_max_requests;
	cr->cr_credits = grant;
	cr->cr_x.rx_stats.rs_credits_granted = grant;
	pthread_cond_broadcast(&cr->cr_credit_cond);

	if (rq->rq_state == RQ_ABANDONED) {
		free_abandoned(cr, rq);
		goto out_repost;
	}
	/* The chunks that came back must be the ones this call offered. */
	if (rpcrdma_clnt_check_reply(&rq->rq_ch, &h, &cr->cr_x.rx_stats)) {
		rq->rq_err = -EBADMSG;
		__atomic_store_n(&rq->rq_state, RQ_FAILED, __ATOMIC_RELEASE);
		cr->cr_x.rx_stats.rs_bad_replies++;
		pthread_cond_signal(&rq->rq_cond);
		goto out_repost;
	}
	rq->rq_rep = rep;
	rq->rq_off = h.rh_hdrlen;
	__atomic_store_n(&rq->rq_state, RQ_REPLIED, __ATOMIC_RELEASE);
	cr->cr_x.rx_stats.rs_replies++;
	pthread_cond_signal(&rq->rq_cond);
	return;

out_repost:
	if (rpcrdma_xprt_repost(&cr->cr_x, rep))
		cr_fail_all(cr, -ECONNRESET);
}

/* A Receive completed: match it to its call (completion.h). */
static void reap_recv(void *owner, struct rpcrdma_rep *rep)
{
	struct clnt_rdma *cr = owner;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	handle_reply(cr, rep);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
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
static int reap(struct clnt_rdma *cr)
{
	int n = rpcrdma_cq_reap(&cr->cr_x, &clnt_cq_ops, cr);

	if (n < 0) {
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		cr_fail_all(cr, n);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
	}
	return n;
}

/*
 * Any CM event after ESTABLISHED means the connection is going away.  A
 * Reply the peer sent before it left is already in the CQ (its receive
 * completed before the disconnect reached us), so the calls fail only
 * once the CQ has been drained: here, if nobody polls; else the poller
 * does it (cr_po_reap), woken by the flushes of our QP, now in error.
 */
static void handle_cm(struct clnt_rdma *cr)
{
	struct rdma_cm_event *ev;
	bool gone = false;

	while (!rdma_get_cm_event(cr->cr_x.rx_ep.re_cm_ch, &ev)) {
		rdma_ack_cm_event(ev);
		gone = true;
	}
	if (!gone)
		return;
	rpcrdma_ep_disconnect(&cr->cr_x.rx_ep);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	if (cr->cr_polling) {
		__atomic_store_n(&cr->cr_gone, 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return;
	}
	cr->cr_polling = 1;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	reap(cr);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	cr->cr_polling = 0;
	cr_fail_all(cr, -ECONNRESET);
	cr_hand_over(cr);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

/*
 * Connection events nobody waits for, and reconnection when a loss is
 * noticed (clnt_reconnect.c).  Completions are reaped by the callers
 * waiting for them (cr_wait_for), so this thread sleeps.  Only this
 * thread replaces the CM channel, so it reads it unlocked.
 */
void *cr_progress(void *arg)
{
	struct clnt_rdma *cr = arg;
	struct pollfd pfd[3] = {
		{ .fd = -1, .events = POLLIN },
		{ .fd = cr->cr_stopfd, .events = POLLIN },
		{ .fd = cr->cr_kickfd, .events = POLLIN },
	};
	uint64_t n;

	for (;;) {
		pfd[0].fd = cr->cr_x.rx_ep.re_cm_ch ? cr->cr_x.rx_ep.re_cm_ch->fd : -1;
		if (poll(pfd, 3, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (pfd[0].revents)
			handle_cm(cr);
		if (pfd[2].revents) {
			if (read(cr->cr_kickfd, &n, sizeof(n)) != sizeof(n))
				continue;
			if (cr_reconnect(cr) == -ECANCELED)
				break;
		}
	}
	return NULL;
}

/* ---- waiting: one poller, the others asleep ------------------------------ */

struct cr_poll_arg {
	struct clnt_rdma *pa_cr;
	int (*pa_done)(struct clnt_rdma *cr, const void *ctx);
	const void *pa_ctx;
};

/*
 * The connection went (handle_cm) while we polled: once a reap that began
 * after that found the CQ empty, every Reply sent before it is in; what
 * is still waiting fails.
 */
static int cr_po_reap(void *arg)
{
	struct clnt_rdma *cr = ((struct cr_poll_arg *)arg)->pa_cr;
	int gone = __atomic_load_n(&cr->cr_gone, __ATOMIC_ACQUIRE);
	int n = reap(cr);

	if (n == 0 && gone) {
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		if (cr->cr_gone)
			cr_fail_all(cr, -ECONNRESET);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
	}
	return n;
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

static int cr_po_sleep(void *arg, int timeout_ms)
{
	return rpcrdma_cq_sleep(&((struct cr_poll_arg *)arg)->pa_cr->cr_x.rx_ep,
				timeout_ms);
}

static const struct rpcrdma_poll_ops cr_poll_ops = {
	.po_reap = cr_po_reap,
	.po_done = cr_po_done,
	.po_arm = cr_po_arm,
	.po_sleep = cr_po_sleep,
	.po_now_ns = rpcrdma_poll_now_ns,
};

static void cr_unlink(struct clnt_rdma *cr, struct cr_waiter *w)
{
	struct cr_waiter **pp;

	for (pp = &cr->cr_waiters; *pp; pp = &(*pp)->w_next)
		if (*pp == w) {
			*pp = w->w_next;
			return;
		}
}

/* The poller role is free: wake a sleeper to take it.  Lock held. */
void cr_hand_over(struct clnt_rdma *cr)
{
	if (!cr->cr_polling && cr->cr_waiters)
		pthread_cond_signal(cr->cr_waiters->w_cond);
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
 * (reaping the CQ, spinning ro_busy_poll_us, then sleeping on the
 * channel), else asleep on cond until a Reply, a credit or the role is
 * handed over.  0, or -ETIMEDOUT at the deadline.
 */
static int cr_wait_for(struct clnt_rdma *cr,
		       int (*done)(struct clnt_rdma *cr, const void *ctx),
		       const void *ctx, pthread_cond_t *cond,
		       const struct timespec *deadline)
{
	struct cr_poll_arg pa = { cr, done, ctx };
	struct cr_waiter me = { cond, NULL };
	struct rpcrdma_poll_stats ps;
	int rc = 0, linked = 0;

	while (!done(cr, ctx)) {
		if (!cr->cr_polling) {
			if (linked) {
				cr_unlink(cr, &me);
				linked = 0;
			}
			cr->cr_polling = 1;
			pthread_mutex_unlock(&cr->cr_x.rx_lock);
			memset(&ps, 0, sizeof(ps));
			rc = rpcrdma_poll_wait(&cr_poll_ops, &pa,
					       cr->cr_x.rx_opts.ro_busy_poll_us,
					       to_ns(deadline), &ps);
			pthread_mutex_lock(&cr->cr_x.rx_lock);
			cr->cr_polling = 0;
			cr_add_poll_stats(&cr->cr_x.rx_stats, &ps);
			if (rc == -ETIMEDOUT || done(cr, ctx))
				break;
			if (rc < 0)
				cr_fail_all(cr, rc);
			continue;
		}
		if (!linked) {
			me.w_next = cr->cr_waiters;
			cr->cr_waiters = &me;
			linked = 1;
		}
		if (pthread_cond_timedwait(cond, &cr->cr_x.rx_lock, deadline) ==
		    ETIMEDOUT && !done(cr, ctx)) {
			rc = -ETIMEDOUT;
			break;
		}
	}
	if (linked)
		cr_unlink(cr, &me);
	cr_hand_over(cr);
	return done(cr, ctx) ? 0 : rc ? rc : -ETIMEDOUT;
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
	if (!reap(cr) && !rpcrdma_cq_arm(ep) && !reap(cr))
		rpcrdma_cq_sleep(ep, 10);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	cr->cr_polling = 0;
	cr_hand_over(cr);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

/* Record a call's outcome for clnt_geterr(); calls may run in parallel. */
enum clnt_stat cr_put_err(struct clnt_rdma *cr, const struct rpc_err *e)
{
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	cr->cr_err = *e;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return e->re_status;
}

enum clnt_stat cr_set_err(struct clnt_rdma *cr, enum clnt_stat st, int err)
{
	struct rpc_err e;

	memset(&e, 0, sizeof(e));
	e.re_status = st;
	e.re_errno = err < 0 ? -err : err;
	return cr_put_err(cr, &e);
}

/* Wait for a credit and a free slot; the slot is ours on success. Lock held. */
/*
 * A credit and a slot for a new call, lock held; the caller then holds
 * the endpoint (cr_ep_get) until its Call is posted.  Where the client
 * reconnects, a lost connection is waited for (a round that gave up
 * starts again); else its error is returned.
 */
static int take_slot(struct clnt_rdma *cr, const struct timespec *deadline,
		     struct rpcrdma_req **rqp)
{
	uint32_t i, mask = cr->cr_nslots - 1;
	int rc;

	for (;;) {
		if (cr->cr_conn != CR_CONNECTED || cr->cr_x.rx_dead) {
			if (!cr_can_reconnect(cr))
				return cr->cr_x.rx_dead ? cr->cr_x.rx_dead : -ECONNRESET;
			if (cr->cr_conn == CR_CONNECTED)
				cr_fail_all(cr, cr->cr_x.rx_dead);
			rc = cr_wait_connected(cr, true, deadline);
			if (rc)
				return rc;
			continue;
		}
		if (credit_done(cr, NULL))
			break;
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
		cr->cr_x.rx_stats.rs_credit_waits++;
		if (cr_wait_for(cr, credit_done, NULL, &cr->cr_credit_cond,
				deadline))
			return -ETIMEDOUT;
	}
	/*
	 * The lowest free slot: a slot's memory (its Reply chunk window on
	 * rxe pins its Reply buffer once used) is reused before another's
	 * is touched, so a handle pins what its concurrency needs, not all
	 * its slots.
	 */
	for (i = 0; i < cr->cr_nslots; i++)
		if (cr->cr_reqs[i].rq_state == RQ_FREE)
			break;
	if (i == cr->cr_nslots)
		return -EAGAIN;	/* cannot happen: credit_done counted slots */
	/* The xid names its slot in its low bits (find_req); the rest
	 * counts calls, so an xid comes back only after 2^32 / slots. */
	cr->cr_xid = ((cr->cr_xid + cr->cr_nslots) & ~mask) | i;
	cr->cr_inflight++;
	*rqp = &cr->cr_reqs[i];
	(*rqp)->rq_xid = cr->cr_xid;
	(*rqp)->rq_rep = NULL;
	(*rqp)->rq_refused_chunk = false;
	__atomic_store_n(&(*rqp)->rq_state, RQ_SENT, __ATOMIC_RELEASE);
	cr_ep_get(cr);
	return 0;
}

/*
 * A call the connection's loss left in RQ_RESEND goes again once the
 * client reconnected and a credit is free, lock held: 0, the call in
 * RQ_SENT holding the endpoint; or why not (the round gave up, or the
 * deadline passed), the slot still in RQ_RESEND.
 */
static int wait_resend(struct clnt_rdma *cr, struct rpcrdma_req *rq,
		       const struct timespec *deadline)
{
	int rc;

	for (;;) {
		rc = cr_wait_connected(cr, false, deadline);
		if (rc)
			return rc;
		if (cr->cr_x.rx_dead) {
			/* Lost again before we went: wait for that round. */
			cr_fail_all(cr, cr->cr_x.rx_dead);
			continue;
		}
		if (resend_credit_done(cr, NULL))
			break;
		if (cr_wait_for(cr, resend_credit_done, NULL,
				&cr->cr_credit_cond, deadline))
			return -ETIMEDOUT;
	}
	cr->cr_resending--;
	cr->cr_inflight++;
	rq->rq_err = 0;
	rq->rq_refused_chunk = false;
	__atomic_store_n(&rq->rq_state, RQ_SENT, __ATOMIC_RELEASE);
	cr->cr_x.rx_stats.rs_retransmits++;
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
	rq->rq_state = RQ_FREE;
	cr->cr_inflight--;
	pthread_cond_signal(&cr->cr_credit_cond);
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

/* The zero-copy buffer for this thread's next call on one CLIENT. */
static __thread struct {
	CLIENT *nb_cl;
	struct rpcrdma_result_buf *nb_rb;
} next_result;

static struct rpcrdma_result_buf *take_result_buf(CLIENT *cl)
{
	struct rpcrdma_result_buf *rb = NULL;

	if (next_result.nb_cl == cl)
		rb = next_result.nb_rb;
	next_result.nb_cl = NULL;
	next_result.nb_rb = NULL;
	return rb;
}

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
	cr->cr_x.rx_stats.rs_chunk_deregs += n;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

static enum clnt_stat clnt_rdma_call(CLIENT *cl, rpcproc_t proc,
				     xdrproc_t xargs, void *argsp,
				     xdrproc_t xres, void *resp,
				     struct timeval tmo)
{
	struct clnt_rdma *cr = to_cr(cl);
	struct rpcrdma_result_buf *rb = take_result_buf(cl);
	struct rpcrdma_xdr_buf xb, send;
	struct rpcrdma_req *rq;
	struct timespec deadline;
	enum clnt_stat st;
	bool retried = false, held = true, counted = false;
	int rc;

	rpcrdma_deadline(&deadline, cr->cr_timeout_set ? &cr->cr_timeout : &tmo);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	rc = take_slot(cr, &deadline, &rq);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	if (rc == -ETIMEDOUT)
		return cr_refuse(cr, RPC_TIMEDOUT, 0);
	if (rc)
		return cr_refuse(cr, RPC_CANTSEND, rc);

	rc = cr_encode_call(cr, rq, proc, xargs, argsp, rq->rq_scratch,
			    cr->cr_x.rx_opts.ro_inline_send,
			    cr->cr_x.rx_opts.ro_page_threshold, &xb);
	if (rc == -EMSGSIZE)
		rc = cr_encode_spilled(cr, rq, proc, xargs, argsp, &xb);
	if (rc) {
		/* Too large for any buffer is a limit, not bad arguments. */
		st = rc == -EMSGSIZE ?
		     cr_call_too_large(cr, proc, rpcrdma_xdrbuf_len(&xb)) :
		     cr_refuse(cr, RPC_CANTENCODEARGS, rc);
		goto out_release;
	}
again:
	/* Chunks as the Call's size and the Reply's bound need (chunks.c). */
	rc = rpcrdma_clnt_marshal(&cr->cr_x, &rq->rq_ch, rq->rq_xid, &xb,
				  cr_reply_bound(cr, proc, xres, rb != NULL), rb,
				  &send);
	if (rc) {
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		if (rc == -EMSGSIZE)
			cr->cr_x.rx_stats.rs_too_large++;
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		if (counted)
			st = cr_set_err(cr, RPC_CANTSEND, rc);
		else if (rc == -EMSGSIZE)
			st = cr_call_too_large(cr, proc, rpcrdma_xdrbuf_len(&xb));
		else
			st = cr_refuse(cr, RPC_CANTSEND, rc);
		goto out_release;
	}
	rc = rpcrdma_xprt_send(&cr->cr_x, rq->rq_ch.qc_hdr, rq->rq_ch.qc_hdrlen,
			       &send, &deadline, &rq->rq_send_seq);
	RPCRDMA_DBG("client: Call xid %#x, %zu bytes, chunks %d, reply chunk %d: %d",
		    rq->rq_xid, rpcrdma_xdrbuf_len(&xb), (int)rq->rq_ch.qc_kind,
		    (int)rq->rq_ch.qc_has_reply, rc);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	cr_ep_put(cr);
	held = false;
	if (rc && (rc == -ETIMEDOUT || !cr->cr_x.rx_dead ||
		   !cr_can_reconnect(cr))) {
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		release_chunks(cr, rq, 0);
		st = (counted ? cr_set_err : cr_refuse)(cr, rc == -ETIMEDOUT ?
						       RPC_TIMEDOUT : RPC_CANTSEND, rc);
		goto out_release;
	}
	if (rc) {
		/* The connection went as we posted: this call goes again. */
		cr_fail_all(cr, cr->cr_x.rx_dead);
	} else {
		/* Once per call: a retry or resend is counted apart
		 * (rs_reply_chunk_retries, rs_retransmits). */
		if (!counted)
			cr->cr_x.rx_stats.rs_calls++;
		counted = true;
		rpcrdma_clnt_count_call(&rq->rq_ch, &cr->cr_x.rx_stats);
		if (cr_wait_for(cr, reply_done, rq, &rq->rq_cond, &deadline)) {
			/* Keep the credit until the Reply or the connection
			 * ends: the server may still be working on it. */
			rq->rq_state = RQ_ABANDONED;
			cr->cr_abandoned++;
			cr->cr_x.rx_stats.rs_timeouts++;
			pthread_mutex_unlock(&cr->cr_x.rx_lock);
			/* The caller's memory must not stay remotely accessible
			 * once we return; our Reply buffer goes with the slot. */
			release_chunks(cr, rq, 1);
			wait_send_done(cr, rq, &deadline);
			/* The spill buffer stays: the server may still read it. */
			return cr_set_err(cr, RPC_TIMEDOUT, 0);
		}
	}
	if (rq->rq_state == RQ_RESEND) {
resend:		/* lock held */
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		wait_send_done(cr, rq, &deadline);
		release_chunks(cr, rq, 0);
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		rc = wait_resend(cr, rq, &deadline);
		if (rc) {
			/* It never went again: it holds no credit. */
			cr->cr_resending--;
			rq->rq_state = RQ_FREE;
			pthread_cond_signal(&cr->cr_credit_cond);
			pthread_mutex_unlock(&cr->cr_x.rx_lock);
			cr_trim_spill(rq);
			return cr_set_err(cr, rc == -ETIMEDOUT ? RPC_TIMEDOUT :
					  RPC_CANTRECV, rc);
		}
		held = true;
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		goto again;
	}
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	wait_send_done(cr, rq, &deadline);
	/* The Reply is here: no rkey of this RPC may work any longer. */
	release_chunks(cr, rq, 0);
	if (cr_reply_learn(cr, proc, xres, rq) && !retried) {
		/* The Reply did not fit inline and we offered no chunk: once
		 * more, same xid (a duplicate request cache knows it), with
		 * one.  The server ran the procedure; see ro_reply_chunks. */
		retried = true;
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		cr->cr_x.rx_stats.rs_reply_chunk_retries++;
		rq->rq_err = 0;
		rq->rq_refused_chunk = false;
		if (cr->cr_conn != CR_CONNECTED || cr->cr_x.rx_dead) {
			/* Lost meanwhile: it goes again once reconnected. */
			if (!cr_can_reconnect(cr)) {
				pthread_mutex_unlock(&cr->cr_x.rx_lock);
				st = cr_set_err(cr, RPC_CANTSEND, cr->cr_x.rx_dead);
				goto out_release;
			}
			rq->rq_state = RQ_RESEND;
			cr->cr_inflight--;
			cr->cr_resending++;
			goto resend;
		}
		__atomic_store_n(&rq->rq_state, RQ_SENT, __ATOMIC_RELEASE);
		cr_ep_get(cr);
		held = true;
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		goto again;
	}
	if (rq->rq_state == RQ_FAILED && rq->rq_refused_chunk)
		st = cr_refused_chunk(cr, proc, rq, rpcrdma_xdrbuf_len(&xb));
	else if (rq->rq_state == RQ_FAILED)
		st = cr_set_err(cr, rq->rq_err == -EMSGSIZE ? RPC_CANTSEND :
				RPC_CANTRECV, rq->rq_err);
	else
		st = cr_decode_reply(cr, rq, xres, resp);
	if (rb)
		rb->rb_written = rq->rq_ch.qc_ddp.dt_written;

out_release:
	cr_trim_spill(rq);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	if (held)
		cr_ep_put(cr);
	release_slot(cr, rq);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return st;
}

static void clnt_rdma_abort(CLIENT *cl)
{
	(void)cl;
}

static void clnt_rdma_geterr(CLIENT *cl, struct rpc_err *err)
{
	struct clnt_rdma *cr = to_cr(cl);

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	*err = cr->cr_err;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

static bool_t clnt_rdma_freeres(CLIENT *cl, xdrproc_t xres, void *resp)
{
	XDR xdrs;

	(void)cl;
	xdrs.x_op = XDR_FREE;
	return xres(&xdrs, resp);
}

static bool_t clnt_rdma_control(CLIENT *cl, u_int req, void *info)
{
	struct clnt_rdma *cr = to_cr(cl);

	switch (req) {
	case CLSET_TIMEOUT:
		if (!info)
			return FALSE;
		cr->cr_timeout = *(struct timeval *)info;
		cr->cr_timeout_set = 1;
		return TRUE;
	case CLGET_TIMEOUT:
		if (!info)
			return FALSE;
		*(struct timeval *)info = cr->cr_timeout;
		return TRUE;
	case CLGET_XID:
		*(uint32_t *)info = cr->cr_xid;
		return TRUE;
	case CLSET_XID:
		cr->cr_xid = *(uint32_t *)info - 1;
		return TRUE;
	case CLGET_PROG:
		*(uint32_t *)info = (uint32_t)cr->cr_prog;
		return TRUE;
	case CLSET_PROG:
		cr->cr_prog = *(uint32_t *)info;
		return TRUE;
	case CLGET_VERS:
		*(uint32_t *)info = (uint32_t)cr->cr_vers;
		return TRUE;
	case CLSET_VERS:
		cr->cr_vers = *(uint32_t *)info;
		return TRUE;
	case CLGET_FD:
		*(int *)info = cr->cr_x.rx_ep.re_comp_ch->fd;
		return TRUE;
	case RPCRDMA_CLSET_REPLY_HINT: {
		const struct rpcrdma_reply_hint *rh = info;

		if (!rh || rh->rh_proc >= RPCRDMA_MAX_HINTS)
			return FALSE;
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		cr->cr_hints[rh->rh_proc] = rh->rh_max_reply;
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return TRUE;
	}
	case RPCRDMA_CLGET_STATS:
		if (!info)
			return FALSE;
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		*(struct rpcrdma_stats *)info = cr->cr_x.rx_stats;
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return TRUE;
	case RPCRDMA_CLGET_OPTIONS:
		if (!info)
			return FALSE;
		*(struct rpcrdma_options *)info = cr->cr_x.rx_opts;
		return TRUE;
	case RPCRDMA_CLSET_OPTIONS:
		return info && !rpcrdma_xprt_set_options(&cr->cr_x, info);
	default:
		return FALSE;
	}
}

int clnt_rdma_set_result_buf(CLIENT *cl, struct rpcrdma_result_buf *rb)
{
	if (!cl || cl->cl_ops != &cr_ops ||
	    (rb && (!rb->rb_addr || !rb->rb_len || rb->rb_len > UINT32_MAX))) {
		errno = EINVAL;
		return -1;
	}
	if (rb)
		rb->rb_written = 0;
	next_result.nb_cl = rb ? cl : NULL;
	next_result.nb_rb = rb;
	return 0;
}

struct clnt_ops cr_ops = {
	.cl_call = clnt_rdma_call,
	.cl_abort = clnt_rdma_abort,
	.cl_geterr = clnt_rdma_geterr,
	.cl_freeres = clnt_rdma_freeres,
	.cl_destroy = cr_destroy,
	.cl_control = clnt_rdma_control,
};
