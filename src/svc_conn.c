/*
 * One server connection below its SVCXPRT: completions reaped into its
 * Call queue (the shared dispatcher, completion.h), receives reposted, a
 * Call's resources released, and the connection lingered over and freed.
 * Everything here takes the connection; svc_rdma.c wraps it for libtirpc.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "completion.h"
#include "poller.h"
#include "svc_drc.h"
#include "svc_int.h"
#include "probes.h"

/* The Call this thread is serving (svc_threads.c sets it);
 * svc_rdma_conn_call() in svc_int.h reads it. */
__thread struct svc_rdma_call *svc_rdma_thread_call;

/* Add one connection's counters into a sum. */
void svc_rdma_stats_add(struct rpcrdma_stats *sum, const struct rpcrdma_stats *s)
{
	const uint64_t *src = (const uint64_t *)s;
	uint64_t *dst = (uint64_t *)sum;
	size_t i;

	uint64_t peak = sum->rs_reads_peak > s->rs_reads_peak ?
			sum->rs_reads_peak : s->rs_reads_peak;

	/* The counters, past rs_size and rs_lib_size. */
	for (i = offsetof(struct rpcrdma_stats, rs_calls) / sizeof(uint64_t);
	     i < sizeof(*s) / sizeof(uint64_t); i++)
		dst[i] += src[i];
	sum->rs_reads_peak = peak;	/* a most, not a sum */
}

/* ---- one connection ------------------------------------------------------ */

/* The connection failed (first cause kept). */
static void conn_fail(struct rpcrdma_xprt *x, int err)
{
	pthread_mutex_lock(&x->rx_lock);
	if (!x->rx_dead)
		x->rx_dead = err;
	pthread_mutex_unlock(&x->rx_lock);
}

/*
 * A completion failed the connection (first cause kept).  One no context
 * can be recovered for (no wr_id, or a kind we never post) has nothing to
 * hand it to: counted, and the connection fails, alone: a receive or send
 * slot may be lost with it.
 */
static void conn_cqe_fail(void *owner, const struct rpcrdma_wc *wc, int unknown)
{
	struct svc_rdma_conn *c = owner;
	struct rpcrdma_xprt *x = &c->cn_x;

	if (!unknown) {
		/* A shared queue's buffer is the listener's: it goes back. */
		if (c->cn_srq && wc->wc_ctx &&
		    wc->wc_ctx->cq_kind == RPCRDMA_CQE_RECV)
			svc_rdma_srq_lost(c->cn_srq,
					  rpcrdma_container_of(wc->wc_ctx,
							       struct rpcrdma_rep,
							       rr_cqe));
		conn_fail(x, -ECONNRESET);
		return;
	}
	RPCRDMA_DBG("conn: completion of %s %d (%s) refused",
		    wc->wc_ctx ? "unknown kind" : "no context",
		    wc->wc_ctx ? (int)wc->wc_ctx->cq_kind : 0, wc->wc_status);
	pthread_mutex_lock(&x->rx_lock);
	x->rx_stats.rs_cqe_unknown++;
	if (!x->rx_dead)
		x->rx_dead = -EIO;
	pthread_mutex_unlock(&x->rx_lock);
}

/*
 * A Call from a shared queue past its client's grant: the client broke
 * RFC 8166's credit rule, and the buffer it took was another client's
 * share.  Its connection goes, alone, counted; the buffer goes back.
 */
static void conn_over_grant(struct svc_rdma_conn *c, struct rpcrdma_rep *rep)
{
	svc_rdma_srq_repost(c->cn_srq, rep);
	svc_rdma_conn_past_grant(c);
}

void svc_rdma_conn_past_grant(struct svc_rdma_conn *c)
{
	struct rpcrdma_xprt *x = &c->cn_x;
	int first;

	/* Once per connection, whatever else ended it first (a burst past
	 * the grant can be found as the connection goes for another cause:
	 * still counted, once). */
	pthread_mutex_lock(&x->rx_lock);
	first = !c->cn_past_grant;
	c->cn_past_grant = 1;
	if (first)
		x->rx_stats.rs_grant_exceeded++;
	if (!x->rx_dead)
		x->rx_dead = -EPROTO;
	pthread_mutex_unlock(&x->rx_lock);
	if (!first)
		return;
	/* Its QP stops taking the others' receives now, not at teardown. */
	rpcrdma_ep_disconnect(&x->rx_ep);
	RPCRDMA_DBG("conn %p: past its grant of %u: closed", (void *)c,
		    c->cn_grant.gr_granted);
}

/*
 * Why: libtirpc's svcauth_gss keeps a connection's RPCSEC_GSS context
 * (sequence window, the sequence number its wrap and unwrap use, the
 * context itself, which RPCSEC_GSS_DESTROY frees) in one record per
 * SVCXPRT, with no lock; two threads serving two of a connection's GSS
 * Calls would wrap one Reply with the other's number, or use a freed
 * context.  So they are served one at a time, and while one is, no
 * other thread picks the connection (svc_threads.c, conn_ready): only a
 * thread that took a Call before the mark waits here.
 */
void svc_rdma_gss_enter(struct svc_rdma_conn *c, struct svc_rdma_call *ct)
{
	__atomic_store_n(&c->cn_gss_busy, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&c->cn_gss_lock);
	__atomic_store_n(&c->cn_gss_busy, 1, __ATOMIC_RELAXED);
	ct->ct_gss = true;
}

void svc_rdma_gss_leave(struct svc_rdma_conn *c, struct svc_rdma_call *ct)
{
	if (!ct || !ct->ct_gss)
		return;
	ct->ct_gss = false;
	__atomic_store_n(&c->cn_gss_busy, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&c->cn_gss_lock);
}

/* A Receive completed: into the Call queue (reap lock held). */
/*
 * Whether other connections' Calls came between this connection's last
 * two.  If so, its next Call will most likely come after theirs, and a
 * svc_run server that spun for it would spin for nothing while their
 * Calls wait in the kernel (one thread serves every connection): it
 * looks once and goes back to poll(2), which serves whoever is ready.
 * A connection alone, or the only busy one, spins as before.
 */
static void conn_mark_call(struct svc_rdma_conn *c)
{
	uint64_t now = __atomic_add_fetch(&c->cn_lst->ln_calls, 1,
					  __ATOMIC_RELAXED);

	c->cn_interleaved = c->cn_mark && now - c->cn_mark > 1;
	c->cn_mark = now;
}

static void conn_cqe_recv(void *owner, struct rpcrdma_rep *rep)
{
	struct svc_rdma_conn *c = owner;

	if (c->cn_srq && (svc_rdma_srq_call(c->cn_srq, &c->cn_grant) ||
			  c->cn_qlen >= c->cn_qcap)) {
		conn_over_grant(c, rep);
		return;
	}
	c->cn_queue[(c->cn_qhead + c->cn_qlen++) % c->cn_qcap] = rep;
	/* Only svc_run's turn reads it (conn_stat): threads skip the atomic. */
	if (!c->cn_threaded)
		conn_mark_call(c);
}

/* The server posts Sends, Receives and RDMA Read/Write chains. */
static const struct rpcrdma_cq_ops conn_cq_ops = {
	.cqo_name = "conn",
	.cqo_kinds = RPCRDMA_CQE_BIT(RPCRDMA_CQE_SEND) |
		    RPCRDMA_CQE_BIT(RPCRDMA_CQE_RECV) |
		    RPCRDMA_CQE_BIT(RPCRDMA_CQE_RW) |
		    RPCRDMA_CQE_BIT(RPCRDMA_CQE_RW_MEMBER) |
		    RPCRDMA_CQE_BIT(RPCRDMA_CQE_RW_AHEAD),
	.cqo_recv = conn_cqe_recv,
	.cqo_fail = conn_cqe_fail,
};

/*
 * Reap completions into the Call queue: how many completions, or a
 * negative errno.  The CQ is not armed here: that happens only on the way
 * back to sleep (conn_stat), never per message.
 */
static int conn_reap_locked(struct svc_rdma_conn *c)
{
	struct rpcrdma_xprt *x = &c->cn_x;
	int n = rpcrdma_cq_reap(x, &conn_cq_ops, c);

	if (n < 0) {
		pthread_mutex_lock(&x->rx_lock);
		x->rx_dead = n;
		pthread_mutex_unlock(&x->rx_lock);
	}
	return n;
}

/* Service threads reap one CQ from several threads: one at a time. */
static int conn_reap(struct svc_rdma_conn *c)
{
	int n;

	pthread_mutex_lock(&c->cn_lock);
	n = conn_reap_locked(c);
	pthread_mutex_unlock(&c->cn_lock);
	/* Async Replies whose Sends just completed: their results go back;
	 * parked Replies may take the contexts and room those freed. */
	if (n > 0) {
		rpcrdma_xprt_run_releases(&c->cn_x);
		svc_rdma_park_drain(&c->cn_park);
	}
	return n;
}

int svc_rdma_conn_reap(struct svc_rdma_conn *c)
{
	return conn_reap(c);
}

/* ---- the connection's side of the completion model (poller.h) ----------- */

static int conn_po_reap(void *arg)
{
	return conn_reap(arg);
}

/*
 * svc_run: the chain of a Call whose Reads are under way (svc_chunks.c)
 * completed or failed, or the connection died.  Waiting for room, it has
 * no chain: the completion that frees the room wakes svc_run instead.
 */
static int conn_pull_ready(struct svc_rdma_conn *c)
{
	const struct svc_rdma_pull *pu = &c->cn_call.ct_pull;

	if (__atomic_load_n(&c->cn_x.rx_dead, __ATOMIC_RELAXED))
		return 1;
	return pu->pu_posted && rpcrdma_rw_state(pu->pu_rw) != 0;
}

/* A Call to serve, or the connection is gone: back to the dispatcher.  A
 * Call whose Reads are under way goes first (svc_call.c). */
static int conn_po_done(void *arg)
{
	struct svc_rdma_conn *c = arg;

	if (c->cn_call.ct_pull.pu_rep)
		return conn_pull_ready(c);
	return __atomic_load_n(&c->cn_qlen, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&c->cn_x.rx_dead, __ATOMIC_RELAXED);
}

static int conn_po_arm(void *arg)
{
	return rpcrdma_cq_arm(&((struct svc_rdma_conn *)arg)->cn_x.rx_ep);
}

/* svc_run() sleeps in poll(2) on the channel: no po_sleep. */
static const struct rpcrdma_poll_ops conn_spin_ops = {
	.po_reap = conn_po_reap,
	.po_done = conn_po_done,
	.po_arm = conn_po_arm,
	.po_now_ns = rpcrdma_poll_now_ns,
	.po_yield = rpcrdma_poll_yield,
};

static void conn_add_poll_stats(struct svc_rdma_conn *c,
				const struct rpcrdma_poll_stats *ps)
{
	struct rpcrdma_stats *st = &c->cn_x.rx_stats;

	pthread_mutex_lock(&c->cn_x.rx_lock);
	st->rs_wakeups += ps->ps_wakeups;
	st->rs_busy_poll_hits += ps->ps_hits;
	st->rs_busy_poll_misses += ps->ps_misses;
	st->rs_empty_polls += ps->ps_empty;
	pthread_mutex_unlock(&c->cn_x.rx_lock);
}

/*
 * Nothing queued: spin for the next Call, as long as the last Calls took
 * to come (spin.h) and at most spin_us, before arming the
 * CQ and going back to svc_run's poll(2).  1 if a Call (or the
 * connection's death) is there to handle, 0 to sleep (the CQ armed).
 */
int svc_rdma_conn_spin(struct svc_rdma_conn *c, uint32_t spin_us)
{
	struct rpcrdma_poll_stats ps = { 0 };
	int rc;

	if (conn_po_done(c))
		return 1;
	rc = rpcrdma_poll_wait(&conn_spin_ops, c, &c->cn_spin, spin_us, 0, &ps);
	conn_add_poll_stats(c, &ps);
	/* Not armed (-EACCES: the kernel refused): no sleep would end. */
	if (rc < 0 && rc != -EAGAIN) {
		conn_fail(&c->cn_x, rc);
		return 1;
	}
	return rc == 0;
}

/*
 * Called by the Send path when every send context is in use: the service
 * thread is the only one reaping, so wait briefly for a completion and
 * reap it here, queueing any Calls that come with it.  The CQ is armed
 * only if nothing is there yet.
 */
void svc_rdma_conn_reap_wait(void *arg)
{
	struct svc_rdma_conn *c = arg;
	struct rpcrdma_ep *ep = &c->cn_x.rx_ep;
	int rc;

	/* Threaded: the channel is the leader's; reap, or let time pass. */
	if (c->cn_threaded) {
		if (!conn_reap(c))
			usleep(500);
		return;
	}
	if (conn_reap(c))
		return;
	rc = rpcrdma_cq_arm(ep);
	if (rc) {
		conn_fail(&c->cn_x, rc);
		return;
	}
	if (conn_reap(c))
		return;
	rc = rpcrdma_cq_sleep(ep, 10);
	if (rc > 0) {
		pthread_mutex_lock(&c->cn_x.rx_lock);
		c->cn_x.rx_stats.rs_wakeups++;
		pthread_mutex_unlock(&c->cn_x.rx_lock);
	} else if (!rc && svc_rdma_cm_watch(c)) {
		/* 10 ms without a completion: is the peer gone (svc_cm.c)? */
		return;
	}
	conn_reap(c);
}

static void conn_repost(struct svc_rdma_conn *c, struct rpcrdma_rep *rep)
{
	struct rpcrdma_xprt *x = &c->cn_x;

	int rc;

	/* The shared queue's: its post is the listener's, not the QP's. */
	if (c->cn_srq) {
		rc = svc_rdma_srq_repost(c->cn_srq, rep);
		pthread_mutex_lock(&x->rx_lock);
		if (!rc)
			x->rx_stats.rs_recv_posted++;
		/* The kernel refused the process (conn_refused parks it);
		 * another failure is the queue's, not this connection's. */
		else if (rc == -EACCES && !x->rx_dead)
			x->rx_dead = rc;
		pthread_mutex_unlock(&x->rx_lock);
		return;
	}
	pthread_mutex_lock(&x->rx_lock);
	rc = rpcrdma_xprt_repost(x, rep);
	/* -EACCES kept: the connection cannot be torn down (conn_refused). */
	if (rc && !x->rx_dead)
		x->rx_dead = rc == -EACCES ? rc : -ECONNRESET;
	pthread_mutex_unlock(&x->rx_lock);
}

void svc_rdma_conn_repost(struct svc_rdma_conn *c, struct rpcrdma_rep *rep)
{
	conn_repost(c, rep);
}

void svc_rdma_conn_dropped(struct svc_rdma_conn *c)
{
	if (c->cn_srq)
		svc_rdma_srq_dropped(c->cn_srq, &c->cn_grant);
}

/* A Call is answered (or abandoned): its receive and chunk buffer go back. */
void svc_rdma_call_release(struct svc_rdma_conn *c, struct svc_rdma_call *ct)
{
	svc_rdma_drc_release(c, ct);
	if (ct->ct_cur) {
		conn_repost(c, ct->ct_cur);
		ct->ct_cur = NULL;
		/* Never answered (its dispatcher sent nothing, or a copy of a
		 * Call in progress): its credit comes back. */
		if (!ct->ct_answered)
			svc_rdma_conn_dropped(c);
	}
	svc_rdma_buf_put(c, &ct->ct_callbuf);
}


/*
 * A healthy connection destroyed by the server itself (svc_destroy(), or
 * its listener's) may have just posted its last Reply, unsignaled:
 * disconnecting at once flushes it unsent, and a client waiting for it (a
 * SHUTDOWN-style Call) gets nothing.  So linger, reaping, until every Send
 * is known complete or SVC_RDMA_LINGER_MS pass, as close(2) lets a
 * socket's queued data go.  A dead connection goes at once.
 */
#define SVC_RDMA_LINGER_MS 100

static void conn_linger(struct svc_rdma_conn *c)
{
	struct rpcrdma_xprt *x = &c->cn_x;
	struct timespec end;
	int done;

	rpcrdma_deadline_ms(&end, SVC_RDMA_LINGER_MS);
	for (;;) {
		pthread_mutex_lock(&x->rx_lock);
		done = x->rx_dead ||
		       (x->rx_completed_seq >= x->rx_send_seq &&
			!svc_rdma_park_busy(&c->cn_park));
		pthread_mutex_unlock(&x->rx_lock);
		if (done || rpcrdma_deadline_passed(&end))
			return;
		conn_reap(c);
		usleep(1000);
	}
}

/* Under ln_lock: take c off a listener's list. */
static void conn_unlink(struct svc_rdma_conn **pp, struct svc_rdma_conn *c)
{
	for (; *pp; pp = &(*pp)->cn_next)
		if (*pp == c) {
			*pp = c->cn_next;
			return;
		}
}

/*
 * Under ln_lock: the kernel refused c's verbs or CM calls (the process
 * changed credentials, rpcrdma_thread_own_creds(3)).  Its QP and cm_id
 * cannot be destroyed, and the QP may still write into its receive
 * buffers: it is counted as lost, never as freed, and parked with its
 * memory for the life of the process.  1 if so.
 */
static int conn_refused(struct svc_rdma_listener *l, struct svc_rdma_conn *c)
{
	int refused;

	pthread_mutex_lock(&c->cn_x.rx_lock);
	refused = c->cn_x.rx_dead == -EACCES;
	if (refused) {
		if (!c->cn_lost) {
			c->cn_lost = 1;
			c->cn_x.rx_stats.rs_conns_lost++;
		}
		svc_rdma_stats_add(&l->ln_closed, &c->cn_x.rx_stats);
	}
	pthread_mutex_unlock(&c->cn_x.rx_lock);
	if (!refused)
		return 0;
	c->cn_next = l->ln_parked;
	l->ln_parked = c;
	/* The cause was logged once (rpcrdma_vt_refused). */
	RPCRDMA_DBG("conn %p lost: the kernel refused its verbs calls; its "
		    "resources stay allocated", (void *)c);
	return 1;
}

uint32_t svc_rdma_conn_grant(struct svc_rdma_conn *c, uint32_t requested,
			     bool error)
{
	struct rpcrdma_xprt *x = &c->cn_x;
	uint32_t v;
	int moved;

	/* A ring of its own: exactly the receives it keeps posted. */
	if (!c->cn_srq)
		return x->rx_ep.re_nrecv;
	v = svc_rdma_srq_grant(c->cn_srq, &c->cn_grant, requested, error, &moved);
	if (moved) {
		pthread_mutex_lock(&x->rx_lock);
		if (moved > 0)
			x->rx_stats.rs_credit_raises++;
		else
			x->rx_stats.rs_credit_cuts++;
		pthread_mutex_unlock(&x->rx_lock);
	}
	return v;
}

void svc_rdma_conn_grant_stats(struct svc_rdma_conn *c,
			       struct rpcrdma_stats *st, int first)
{
	uint32_t v;

	if (!c->cn_srq)
		v = c->cn_x.rx_ep.re_nrecv;
	else {
		pthread_mutex_lock(&c->cn_srq->sq_lock);
		v = c->cn_grant.gr_granted;
		pthread_mutex_unlock(&c->cn_srq->sq_lock);
	}
	if (first || v < st->rs_grant_min)
		st->rs_grant_min = v;
	if (v > st->rs_grant_max)
		st->rs_grant_max = v;
	st->rs_grant_sum += v;
}

void svc_rdma_conn_srq_leave(struct svc_rdma_conn *c)
{
	struct svc_rdma_srq *q = c->cn_srq;

	if (!q)
		return;
	/* Calls taken off the queue, never served: their buffers back. */
	if (c->cn_call.ct_cur) {
		svc_rdma_srq_repost(q, c->cn_call.ct_cur);
		c->cn_call.ct_cur = NULL;
	}
	/* A Call whose Reads were under way (its buffer goes with the QP). */
	if (c->cn_call.ct_pull.pu_rep) {
		svc_rdma_srq_repost(q, c->cn_call.ct_pull.pu_rep);
		c->cn_call.ct_pull.pu_rep = NULL;
	}
	while (c->cn_qlen) {
		svc_rdma_srq_repost(q, c->cn_queue[c->cn_qhead]);
		c->cn_qhead = (c->cn_qhead + 1) % c->cn_qcap;
		c->cn_qlen--;
	}
	pthread_mutex_lock(&c->cn_lst->ln_lock);
	svc_rdma_srq_detach(&c->cn_dev->dv_srqs, q, &c->cn_grant);
	pthread_mutex_unlock(&c->cn_lst->ln_lock);
	c->cn_srq = NULL;
}

void svc_rdma_conn_destroy(struct svc_rdma_conn *c)
{
	struct svc_rdma_listener *l = c->cn_lst;

	l->ln_tirpc->to_conn_unregister(c);
	/*
	 * Off the live list (nothing picks or polls it any more) onto the
	 * closing one, so svc_rdma_get_stats() still counts it while it
	 * lingers: a server that reads its counters as a client goes saw
	 * that client's connection nowhere.
	 */
	pthread_mutex_lock(&l->ln_lock);
	conn_unlink(&l->ln_conns, c);
	if (conn_refused(l, c)) {
		pthread_mutex_unlock(&l->ln_lock);
		return;
	}
	c->cn_next = l->ln_closing;
	l->ln_closing = c;
	pthread_mutex_unlock(&l->ln_lock);
	/* svc_run: a Call its program never answered is forgotten. */
	svc_rdma_drc_release(c, &c->cn_call);
	conn_linger(c);
	/* Replies still parked never go: their buffers go back. */
	svc_rdma_park_fini(&c->cn_park);
	/*
	 * A flushed completion or a refused post (-ECONNRESET) can end a
	 * connection before rdma_cm reports the peer gone, and destroying its
	 * cm_id drops that event: the loss is counted here instead.
	 */
	pthread_mutex_lock(&c->cn_x.rx_lock);
	if (!c->cn_lost && c->cn_x.rx_dead == -ECONNRESET) {
		c->cn_lost = 1;
		c->cn_x.rx_stats.rs_conns_lost++;
	}
	c->cn_x.rx_stats.rs_conns_freed++;
	RPCRDMA_PROBE2(svc_teardown, &c->cn_x, c->cn_lost);
	pthread_mutex_unlock(&c->cn_x.rx_lock);
	rpcrdma_ep_disconnect(&c->cn_x.rx_ep);
	/* Its events a wait kept name c, and hold its id. */
	svc_rdma_cm_forget(l, c->cn_x.rx_ep.re_id);
	svc_rdma_bufs_free(c);
	/*
	 * Shared receives its QP took and nobody reaped (Calls that came
	 * as it went, receives flushed) would be lost to the queue with
	 * the CQ: the QP goes first (svc_rdma_bufs_free), then its CQ is
	 * reaped dry, and every buffer found goes back
	 * (svc_rdma_conn_srq_leave).  What that reaping counts (a burst
	 * past the grant that came as the peer went) is the connection's
	 * too: its counters join the listener's closed sum only after.
	 */
	if (c->cn_srq)
		while (conn_reap(c) > 0)
			;
	pthread_mutex_lock(&l->ln_lock);
	conn_unlink(&l->ln_closing, c);
	svc_rdma_stats_add(&l->ln_closed, &c->cn_x.rx_stats);
	pthread_mutex_unlock(&l->ln_lock);
	rpcrdma_xprt_fini(&c->cn_x);
	/* Calls whose Reads were under way: receives and buffers back. */
	svc_rdma_holds_fini(c);
	/* Its QP is gone: it takes no more shared receives. */
	svc_rdma_conn_srq_leave(c);
	svc_rdma_dev_put(l, c->cn_dev);
	/* Threaded: the private fd goes back once nobody can look it up,
	 * open: svc_run() may be polling it (svc_fdpool.c). */
	if (c->cn_threaded)
		svc_rdma_fdpool_put(&l->ln_fdpool, c->cn_fd);
	pthread_mutex_destroy(&c->cn_lock);
	pthread_mutex_destroy(&c->cn_gss_lock);
	free(c->cn_queue);
	free(c->cn_scratch);
	free(c->cn_rw);
	free(c);
}
