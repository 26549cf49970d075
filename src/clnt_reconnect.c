/*
 * The client's progress thread: connection events, and reconnection as
 * the kernel's xprtrdma does it: after a lost connection it connects
 * again with backoff and a bound, and the calls still pending go again
 * with their original xids.  The states and who moves them: enum
 * cr_conn_state in clnt_rdma.h (moved by clnt_state.c and here).
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "backoff.h"
#include "clnt_rdma.h"
#include "probes.h"
#include "verbs_thread.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Sleep @ms unless the CLIENT is being destroyed (true). */
static bool sleep_or_stop(struct clnt_rdma *cr, int ms)
{
	struct pollfd p = { .fd = cr->cr_stopfd, .events = POLLIN };

	return poll(&p, 1, ms) > 0;
}

/*
 * Every receive buffer no caller holds goes back on the new QP, lock
 * held.  A caller decoding a Reply keeps its buffer and reposts it when
 * done (release_slot).
 */
static int repost_free(struct clnt_rdma *cr)
{
	struct rpcrdma_ep *ep = &cr->cr_x.rx_ep;
	uint32_t i, j;
	int rc;

	for (i = 0; i < ep->re_recv_ready; i++) {
		struct rpcrdma_rep *rep = &ep->re_reps[i];

		for (j = 0; j < cr->cr_nslots; j++)
			if (cr->cr_reqs[j].rq_rep == rep)
				break;
		if (j < cr->cr_nslots)
			continue;
		rc = rpcrdma_xprt_repost(&cr->cr_x, rep);
		if (rc)
			return rc;
	}
	return 0;
}

/* The endpoint's per-connection state starts again: no Send is in flight. */
static void reset_sends(struct rpcrdma_xprt *x)
{
	rpcrdma_sendctx_init(&x->rx_ring, rpcrdma_xprt_nsend(x),
			     x->rx_opts.ro_signal_every);
	x->rx_completed_seq = x->rx_send_seq;
	pthread_cond_broadcast(&x->rx_sendctx_cond);
}

/*
 * The windows bound through the old QP go before it does, endpoint
 * taken.  rxe keeps a reference on the QP for each type-2 window bound
 * through it: a QP destroyed first waits 10 s for them, fails, and the
 * window's dealloc later drops a reference on a freed QP (a kernel
 * use-after-free seen on 6.12).  Each slot binds a fresh window on the
 * new connection (marshal_reply); callers only clear flags meanwhile.
 */
static void drop_windows(struct clnt_rdma *cr)
{
	uint32_t i;

	for (i = 0; i < cr->cr_nslots; i++)
		rpcrdma_clnt_mw_fini(&cr->cr_x, &cr->cr_reqs[i].rq_ch);
}

/*
 * One round, run by the progress thread when kicked: take the endpoint
 * (no caller posting, nobody reaping), drop the old connection, connect
 * again until it works, the tries or the time run out, or the CLIENT is
 * destroyed (-ECANCELED).  Calls waiting in cr_wait_connected() then go
 * again or fail.
 */
static int cr_reconnect(struct clnt_rdma *cr)
{
	struct rpcrdma_xprt *x = &cr->cr_x;
	uint32_t attempt;
	uint64_t start;
	int rc = -ETIMEDOUT, delay;

	pthread_mutex_lock(&x->rx_lock);
	if (cr->cr_conn != CR_LOST) {
		pthread_mutex_unlock(&x->rx_lock);
		return 0;
	}
	cr->cr_conn = CR_RECONNECTING;
	pthread_mutex_unlock(&x->rx_lock);
	/* A QP in error flushes its work: a poller asleep on it wakes. */
	rpcrdma_ep_disconnect(&x->rx_ep);
	pthread_mutex_lock(&x->rx_lock);
	while (cr->cr_ep_users || cr->cr_polling)
		pthread_cond_wait(&cr->cr_conn_cond, &x->rx_lock);
	cr->cr_polling = 1;		/* nobody else reaps until we are done */
	pthread_mutex_unlock(&x->rx_lock);

	drop_windows(cr);
	rpcrdma_ep_drop_conn(&x->rx_ep);
	pthread_mutex_lock(&x->rx_lock);
	reset_sends(x);
	pthread_mutex_unlock(&x->rx_lock);
	start = now_ms();
	for (attempt = 0;; attempt++) {
		delay = rpcrdma_backoff_ms(attempt, now_ms() - start,
					   x->rx_opts.ro_reconnect_tries,
					   x->rx_opts.ro_reconnect_timeout_ms);
		if (delay < 0)
			break;
		if (delay && sleep_or_stop(cr, delay)) {
			rc = -ECANCELED;
			break;
		}
		rc = cr_connect_ep(cr);
		RPCRDMA_DBG("client: reconnect attempt %u: %d", attempt + 1, rc);
		if (!rc)
			break;
		RPCRDMA_PROBE3(reconnect, x, attempt + 1, rc);
		pthread_mutex_lock(&x->rx_lock);
		x->rx_stats.rs_reconnect_failures++;
		pthread_mutex_unlock(&x->rx_lock);
		rpcrdma_ep_drop_conn(&x->rx_ep);
	}

	pthread_mutex_lock(&x->rx_lock);
	if (!rc) {
		cr->cr_gen++;
		x->rx_conn_gen = cr->cr_gen;
		x->rx_dead = 0;
		cr->cr_credits = 1;	/* one call until the first grant */
		x->rx_stats.rs_reconnects++;
		RPCRDMA_PROBE3(reconnect, x, attempt + 1, 0);
		rc = repost_free(cr);
		cr->cr_conn = CR_CONNECTED;
		if (rc)
			cr_fail_all(cr, rc);
		rc = 0;
	} else {
		if (!x->rx_dead)
			x->rx_dead = rc;
		cr->cr_conn = CR_GAVE_UP;
		cr->cr_conn_err = rc;
	}
	cr->cr_polling = 0;
	cr_hand_over(cr);
	pthread_cond_broadcast(&cr->cr_conn_cond);
	cr_credit_wake_all(cr);
	if (cr->cr_async.ac_live)
		cr_async_kick(cr);	/* their calls go again, or fail */
	pthread_mutex_unlock(&x->rx_lock);
	return rc == -ECANCELED ? rc : 0;
}

/*
 * Any CM event after ESTABLISHED means the connection is going away.  A
 * Reply the peer sent before it left is already in the CQ (its receive
 * completed before the disconnect reached us), so the calls fail only
 * once the CQ has been drained: here, if nobody polls; else the poller
 * does it (cr_po_reap), woken by the flushes of our QP, now in error.
 */
static int handle_cm(struct clnt_rdma *cr)
{
	struct rdma_cm_event *ev;
	bool gone = false;
	int rc;

	while (!(rc = rpcrdma_cm_next(cr->cr_x.rx_ep.re_cm_ch, &ev))) {
		rpcrdma_cm_ack(ev);
		gone = true;
	}
	/* Not "none pending": the channel fails for good (the kernel refuses
	 * a process that changed credentials, rpcrdma_thread_own_creds(3)),
	 * and the connection cannot be managed any more: as a loss. */
	rc = rc == -EAGAIN ? 0 : rc;
	if (rc)
		gone = true;
	if (!gone)
		return 0;
	rpcrdma_ep_disconnect(&cr->cr_x.rx_ep);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	if (cr->cr_polling) {
		__atomic_store_n(&cr->cr_gone, 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return rc;
	}
	cr->cr_polling = 1;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	cr_reap(cr);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	cr->cr_polling = 0;
	cr_fail_all(cr, -ECONNRESET);
	cr_hand_over(cr);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return rc;
}

/*
 * Connection events nobody waits for, reconnection when a loss is
 * noticed (cr_reconnect), and asynchronous calls' progress when the
 * program hands it over (clnt_rdma_progress_thread(3)).  Completions are reaped by the callers
 * waiting for them (cr_wait_for), so this thread sleeps.  Only this
 * thread replaces the CM channel, so it reads it unlocked.
 */
void *cr_progress(void *arg)
{
	struct clnt_rdma *cr = arg;
	struct pollfd pfd[4] = {
		{ .fd = -1, .events = POLLIN },
		{ .fd = cr->cr_stopfd, .events = POLLIN },
		{ .fd = cr->cr_kickfd, .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	struct rdma_event_channel *refused = NULL;
	uint64_t n;

	/* Created by a marked thread, it has that thread's credentials of
	 * the moment: its verbs and CM calls go through the verbs thread too. */
	rpcrdma_vt_marked = cr->cr_vt_marked;
	for (;;) {
		/* A refused channel (handle_cm) leaves the set: no spinning. */
		pfd[0].fd = cr->cr_x.rx_ep.re_cm_ch &&
			    cr->cr_x.rx_ep.re_cm_ch != refused ?
			    cr->cr_x.rx_ep.re_cm_ch->fd : -1;
		/* clnt_rdma_progress_thread(3): the asynchronous calls'
		 * descriptor too (set once, before the kick that tells us). */
		pfd[3].fd = __atomic_load_n(&cr->cr_async.ac_thread,
					    __ATOMIC_ACQUIRE) ?
			    cr->cr_async.ac_epfd : -1;
		if (poll(pfd, 4, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (pfd[3].revents)
			cr_async_progress(cr, 0);
		if (pfd[0].revents && handle_cm(cr))
			refused = cr->cr_x.rx_ep.re_cm_ch;
		if (pfd[2].revents) {
			if (read(cr->cr_kickfd, &n, sizeof(n)) != sizeof(n))
				continue;
			if (cr_reconnect(cr) == -ECANCELED)
				break;
		}
	}
	return NULL;
}
