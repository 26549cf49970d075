/*
 * The RDMA server: a listening SVCXPRT whose CM events create one SVCXPRT
 * per connection (svc_accept.c), each registered with libtirpc so
 * svc_run() polls it.
 * A connection's xp_fd is its completion channel; Calls queue up there.
 * With ro_svc_threads, the listener's own threads serve instead
 * (svc_threads.c): every xp_fd is then a private eventfd svc_run() never
 * wakes for, kept only so svc_getreq_common() finds the SVCXPRT.
 * Who polls, sleeps and wakes whom, in both modes: svc_loop.c.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/eventfd.h>
#include "completion.h"
#include "poller.h"
#include "svc_drc.h"
#include "svc_recv.h"
#include "svc_int.h"

static const struct xp_ops conn_ops, listener_ops;
static const struct xp_ops2 svc_rdma_ops2;

static struct svc_rdma_conn *to_conn(SVCXPRT *xprt)
{
	return rpcrdma_container_of(xprt, struct svc_rdma_conn, cn_xprt);
}

/* The connection behind xprt, or NULL for any other SVCXPRT. */
struct svc_rdma_conn *svc_rdma_conn_of(SVCXPRT *xprt)
{
	return xprt && xprt->xp_ops == &conn_ops ? to_conn(xprt) : NULL;
}

static struct svc_rdma_listener *to_lst(SVCXPRT *xprt)
{
	return rpcrdma_container_of(xprt, struct svc_rdma_listener, ln_xprt);
}

/* The listener behind xprt, or NULL for any other SVCXPRT. */
struct svc_rdma_listener *svc_rdma_lst_of(SVCXPRT *xprt)
{
	return xprt && xprt->xp_ops == &listener_ops ? to_lst(xprt) : NULL;
}

/* Add one connection's counters into a sum. */
static void stats_add(struct rpcrdma_stats *sum, const struct rpcrdma_stats *s)
{
	const uint64_t *src = (const uint64_t *)s;
	uint64_t *dst = (uint64_t *)sum;
	size_t i;

	uint64_t peak = sum->rs_reads_peak > s->rs_reads_peak ?
			sum->rs_reads_peak : s->rs_reads_peak;

	for (i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		dst[i] += src[i];
	sum->rs_reads_peak = peak;	/* a most, not a sum */
}

/* Under ln_lock: add the counters of a list of connections into a sum. */
static void conns_add(struct rpcrdma_stats *sum, struct svc_rdma_conn *c)
{
	for (; c; c = c->cn_next) {
		pthread_mutex_lock(&c->cn_x.rx_lock);
		stats_add(sum, &c->cn_x.rx_stats);
		pthread_mutex_unlock(&c->cn_x.rx_lock);
	}
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

/* A Receive completed: into the Call queue (reap lock held). */
static void conn_cqe_recv(void *owner, struct rpcrdma_rep *rep)
{
	struct svc_rdma_conn *c = owner;

	c->cn_queue[(c->cn_qhead + c->cn_qlen++) % c->cn_x.rx_ep.re_nrecv] = rep;
}

/* The server posts Sends, Receives and RDMA Read/Write chains. */
static const struct rpcrdma_cq_ops conn_cq_ops = {
	.cqo_name = "conn",
	.cqo_kinds = RPCRDMA_CQE_BIT(RPCRDMA_CQE_SEND) |
		    RPCRDMA_CQE_BIT(RPCRDMA_CQE_RECV) |
		    RPCRDMA_CQE_BIT(RPCRDMA_CQE_RW) |
		    RPCRDMA_CQE_BIT(RPCRDMA_CQE_RW_MEMBER),
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
	/* Async Replies whose Sends just completed: their results go back. */
	if (n > 0)
		rpcrdma_xprt_run_releases(&c->cn_x);
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

/* A Call to serve, or the connection is gone: back to the dispatcher. */
static int conn_po_done(void *arg)
{
	struct svc_rdma_conn *c = arg;

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
 * Nothing queued: spin up to spin_us for the next Call before arming the
 * CQ and going back to svc_run's poll(2).  1 if a Call (or the
 * connection's death) is there to handle, 0 to sleep (the CQ armed).
 */
static int conn_spin(struct svc_rdma_conn *c, uint32_t spin_us)
{
	struct rpcrdma_poll_stats ps = { 0 };
	int rc;

	if (conn_po_done(c))
		return 1;
	rc = rpcrdma_poll_wait(&conn_spin_ops, c, spin_us, 0, &ps);
	conn_add_poll_stats(c, &ps);
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

	/* Threaded: the channel is the leader's; reap, or let time pass. */
	if (c->cn_threaded) {
		if (!conn_reap(c))
			usleep(500);
		return;
	}
	if (conn_reap(c) || rpcrdma_cq_arm(ep) || conn_reap(c))
		return;
	if (rpcrdma_cq_sleep(ep, 10) > 0) {
		pthread_mutex_lock(&c->cn_x.rx_lock);
		c->cn_x.rx_stats.rs_wakeups++;
		pthread_mutex_unlock(&c->cn_x.rx_lock);
	}
	conn_reap(c);
}

static void conn_repost(struct svc_rdma_conn *c, struct rpcrdma_rep *rep)
{
	struct rpcrdma_xprt *x = &c->cn_x;

	pthread_mutex_lock(&x->rx_lock);
	if (rpcrdma_xprt_repost(x, rep) && !x->rx_dead)
		x->rx_dead = -ECONNRESET;
	pthread_mutex_unlock(&x->rx_lock);
}

void svc_rdma_conn_repost(struct svc_rdma_conn *c, struct rpcrdma_rep *rep)
{
	conn_repost(c, rep);
}

/* A Call is answered (or abandoned): its receive and chunk buffer go back. */
void svc_rdma_call_release(struct svc_rdma_conn *c, struct svc_rdma_call *ct)
{
	svc_rdma_drc_release(c, ct);
	if (ct->ct_cur) {
		conn_repost(c, ct->ct_cur);
		ct->ct_cur = NULL;
	}
	svc_rdma_buf_put(c, &ct->ct_callbuf);
}


/*
 * Check one received message's transport header.  Returns the offset of
 * the RPC Call in it, or -1 after dealing with a bad one as RFC 8166 says:
 * ERR_VERS for another version, ERR_CHUNK for an unusable header, a silent
 * drop for a message too short to attribute.
 */
static void count_bad_call(struct svc_rdma_conn *c)
{
	pthread_mutex_lock(&c->cn_x.rx_lock);
	c->cn_x.rx_stats.rs_bad_calls++;
	pthread_mutex_unlock(&c->cn_x.rx_lock);
}

/*
 * Decode the transport header of a received Call into ct->ct_hdr and
 * find its RPC message: inline after the header, or reassembled from its
 * Read chunks.  0 with the message at *msgp; -1 when the Call was
 * answered with RDMA_ERROR or dropped (counted either way).
 */
static int conn_check_call(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			   struct rpcrdma_rep *rep, char **msgp, uint32_t *lenp)
{
	struct rpcrdma_hdr *h = &ct->ct_hdr;
	struct rpcrdma_chunk_limits lim;
	struct svc_rdma_recv rv;
	int rc;

	svc_rdma_chunk_limits(c, &lim);
	svc_rdma_recv_decide(rep->rr_buf, rep->rr_len, &lim, h, &rv);
	if (rv.rv_why)
		RPCRDMA_DBG("conn %p: xid %#x refused: %s", (void *)c, h->rh_xid,
			    rv.rv_why);
	switch (rv.rv_verdict) {
	case SVC_RDMA_RECV_INLINE:
		*msgp = (char *)rep->rr_buf + rv.rv_off;
		*lenp = rv.rv_len;
		return 0;
	case SVC_RDMA_RECV_PULL:
		break;
	case SVC_RDMA_RECV_ERR_VERS:
		svc_rdma_conn_send_error(c, h->rh_xid, RPCRDMA_ERR_VERS);
		return -1;
	case SVC_RDMA_RECV_ERR_CHUNK:
		if (rv.rv_over_limit)
			svc_rdma_count_chunk_limit(c);
		svc_rdma_conn_send_error(c, h->rh_xid, RPCRDMA_ERR_CHUNK);
		return -1;
	case SVC_RDMA_RECV_DROP:
	default:
		count_bad_call(c);
		return -1;
	}
	rc = svc_rdma_pull_call(c, ct, &rv.rv_map, rep->rr_buf + rv.rv_off,
				msgp, lenp);
	if (!rc)
		return 0;
	RPCRDMA_DBG("conn %p: Read chunks of xid %#x: %d", (void *)c,
		    h->rh_xid, rc);
	if (rc == -ENOMEM) {
		svc_rdma_conn_send_error(c, h->rh_xid, RPCRDMA_ERR_CHUNK);
		return -1;
	}
	/* The Reads failed or stalled: the connection goes, alone. */
	if (rc == -ETIMEDOUT)
		svc_rdma_conn_stalled(c, "a Call's RDMA Reads");
	count_bad_call(c);
	return -1;
}

static bool_t conn_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_rdma_conn *c = to_conn(xprt);
	struct svc_rdma_call *ct = svc_rdma_conn_call(c);
	uint32_t nrecv = c->cn_x.rx_ep.re_nrecv;

	if (!ct)
		return FALSE;
	/* A dispatcher that never replied leaves its Call behind. */
	svc_rdma_call_release(c, ct);
	if (c->cn_threaded) {
		/* The leader reaps and sleeps; here, at most a look. */
		if (!__atomic_load_n(&c->cn_qlen, __ATOMIC_RELAXED))
			conn_reap(c);
	} else if (!c->cn_qlen) {
		/* svc_run woke us: consume the channel's event, then poll. */
		if (rpcrdma_cq_drain_events(&c->cn_x.rx_ep)) {
			pthread_mutex_lock(&c->cn_x.rx_lock);
			c->cn_x.rx_stats.rs_wakeups++;
			pthread_mutex_unlock(&c->cn_x.rx_lock);
		}
		conn_reap(c);
	}
	RPCRDMA_DBG("conn %p: %u Calls queued, dead %d", (void *)c, c->cn_qlen,
		    c->cn_x.rx_dead);
	for (;;) {
		struct rpcrdma_rep *rep = NULL;
		uint32_t len;
		char *m;

		/* svc_run: this turn's budget spent (on bad ones too), the
		 * rest waits for the next turn (conn_stat yields). */
		if (!c->cn_threaded && c->cn_turn >= SVC_RDMA_TURN_CALLS)
			break;
		/* Taken under the lock, handled outside it: a bad header's
		 * RDMA_ERROR may have to reap for a send context. */
		pthread_mutex_lock(&c->cn_lock);
		if (c->cn_qlen) {
			rep = c->cn_queue[c->cn_qhead];
			c->cn_qhead = (c->cn_qhead + 1) % nrecv;
			__atomic_store_n(&c->cn_qlen, c->cn_qlen - 1,
					 __ATOMIC_RELAXED);
		}
		pthread_mutex_unlock(&c->cn_lock);
		if (!rep)
			break;
		c->cn_turn++;
		if (conn_check_call(c, ct, rep, &m, &len)) {
			conn_repost(c, rep);
			continue;
		}
		xdrmem_create(&ct->ct_args, m, len, XDR_DECODE);
		if (!xdr_callmsg(&ct->ct_args, msg)) {
			/* Another RPC version gets RPC_MISMATCH; what is no
			 * RPC Call at all, nothing to answer it with. */
			if (svc_rdma_conn_deny_vers(c, ct, rep, m, len))
				continue;
			count_bad_call(c);
			conn_repost(c, rep);
			svc_rdma_buf_put(c, &ct->ct_callbuf);
			continue;
		}
		__atomic_store_n(&c->cn_last_call_ns, rpcrdma_poll_now_ns(NULL),
				 __ATOMIC_RELAXED);
		ct->ct_cur = rep;
		ct->ct_xid = msg->rm_xid;
		ct->ct_answered = 0;
		pthread_mutex_lock(&c->cn_x.rx_lock);
		c->cn_x.rx_stats.rs_calls++;
		pthread_mutex_unlock(&c->cn_x.rx_lock);
		/* A retransmission: answered from the cache, or dropped. */
		if (svc_rdma_drc_check(c, ct, msg, m, len))
			continue;
		return TRUE;
	}
	return FALSE;
}

static enum xprt_stat conn_stat(SVCXPRT *xprt)
{
	struct svc_rdma_conn *c = to_conn(xprt);
	int spent;

	/* Threaded: one Call per svc_getreq_common(), and libtirpc never
	 * destroys what other threads may be serving (svc_threads.c does). */
	if (c->cn_threaded)
		return XPRT_IDLE;
	if (c->cn_x.rx_dead)
		return XPRT_DIED;
	/* The turn's budget spent: one look, no spin, before it ends. */
	spent = c->cn_turn >= SVC_RDMA_TURN_CALLS;
	if (!conn_spin(c, spent ? 0 : c->cn_x.rx_opts.ro_busy_poll_us)) {
		c->cn_turn = 0;
		return XPRT_IDLE;	/* the CQ armed: back to poll(2) */
	}
	if (c->cn_x.rx_dead)
		return XPRT_DIED;
	if (!spent)
		return XPRT_MOREREQS;
	/* Calls left: the others' turns first (svc_loop.c). */
	c->cn_turn = 0;
	svc_rdma_conn_yield(c);
	return XPRT_IDLE;
}

static bool_t conn_getargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	struct svc_rdma_call *ct = svc_rdma_conn_call(to_conn(xprt));

	if (!ct || !ct->ct_cur)
		return FALSE;
	return SVCAUTH_UNWRAP(&SVC_XP_AUTH(xprt), &ct->ct_args, xargs, argsp);
}

static bool_t conn_freeargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	XDR xdrs;

	(void)xprt;
	xdrs.x_op = XDR_FREE;
	return xargs(&xdrs, argsp);
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
		done = x->rx_dead || x->rx_completed_seq >= x->rx_send_seq;
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

static void conn_destroy(SVCXPRT *xprt)
{
	struct svc_rdma_conn *c = to_conn(xprt);
	struct svc_rdma_listener *l = c->cn_lst;

	xprt_unregister(xprt);
	/*
	 * Off the live list (nothing picks or polls it any more) onto the
	 * closing one, so svc_rdma_get_stats() still counts it while it
	 * lingers: a server that reads its counters as a client goes saw
	 * that client's connection nowhere.
	 */
	pthread_mutex_lock(&l->ln_lock);
	conn_unlink(&l->ln_conns, c);
	c->cn_next = l->ln_closing;
	l->ln_closing = c;
	pthread_mutex_unlock(&l->ln_lock);
	/* svc_run: a Call its program never answered is forgotten. */
	svc_rdma_drc_release(c, &c->cn_call);
	conn_linger(c);
	pthread_mutex_lock(&l->ln_lock);
	conn_unlink(&l->ln_closing, c);
	c->cn_x.rx_stats.rs_conns_freed++;
	stats_add(&l->ln_closed, &c->cn_x.rx_stats);
	pthread_mutex_unlock(&l->ln_lock);
	rpcrdma_ep_disconnect(&c->cn_x.rx_ep);
	svc_rdma_bufs_free(c);
	rpcrdma_xprt_fini(&c->cn_x);
	svc_rdma_dev_put(l, c->cn_dev);
	/* Threaded: the private fd goes once nobody can look it up. */
	if (c->cn_threaded)
		close(c->cn_xprt.xp_fd);
	pthread_mutex_destroy(&c->cn_lock);
	free(c->cn_queue);
	free(c->cn_scratch);
	free(c->cn_rw);
	free(c);
}

void svc_rdma_conn_destroy(struct svc_rdma_conn *c)
{
	conn_destroy(&c->cn_xprt);
}

static bool_t conn_control(SVCXPRT *xprt, const u_int rq, void *in)
{
	(void)xprt;
	(void)rq;
	(void)in;
	return FALSE;
}

static const struct xp_ops conn_ops = {
	.xp_recv = conn_recv,
	.xp_stat = conn_stat,
	.xp_getargs = conn_getargs,
	.xp_reply = svc_rdma_conn_reply,
	.xp_freeargs = conn_freeargs,
	.xp_destroy = conn_destroy,
};

/* Listener and connections alike answer no svc_control() request. */
static const struct xp_ops2 svc_rdma_ops2 = {
	.xp_control = conn_control,
};

/*
 * The SVCXPRT of a connection just accepted (svc_accept.c).  Threaded:
 * fd, a private eventfd, so svc_run() never wakes for it, only finds it.
 */
void svc_rdma_conn_xprt_init(struct svc_rdma_conn *c, int fd)
{
	c->cn_xprt.xp_fd = c->cn_threaded ? fd : c->cn_x.rx_ep.re_comp_ch->fd;
	c->cn_xprt.xp_ops = &conn_ops;
	c->cn_xprt.xp_ops2 = &svc_rdma_ops2;
	c->cn_xprt.xp_netid = "rdma";
	c->cn_xprt.xp_tp = "rdma";
	c->cn_xprt.xp_p3 = &c->cn_ext;
	c->cn_ext.xp_auth.svc_ah_ops = NULL;
}

/* ---- the listener -------------------------------------------------------- */

static bool_t lst_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_rdma_listener *l = to_lst(xprt);

	(void)msg;
	/* Threaded: the leader takes CM events; svc_run only woke to see
	 * svc_exit() (svc_threads_kick). */
	if (!l->ln_threads.th_nthreads)
		svc_rdma_lst_events(l);
	return FALSE;	/* a listener never carries a Call itself */
}

static enum xprt_stat lst_stat(SVCXPRT *xprt)
{
	(void)xprt;
	return XPRT_IDLE;
}

static bool_t lst_never(SVCXPRT *xprt, xdrproc_t p, void *a)
{
	(void)xprt;
	(void)p;
	(void)a;
	return FALSE;
}

static bool_t lst_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	(void)xprt;
	(void)msg;
	return FALSE;
}

static void lst_destroy(SVCXPRT *xprt)
{
	struct svc_rdma_listener *l = to_lst(xprt);

	/* No thread may serve or poll what is torn down below. */
	if (l->ln_threads.th_nthreads)
		svc_threads_stop(l);
	xprt_unregister(xprt);
	svc_rdma_idle_stop(l);
	svc_rdma_loop_stop(l);
	while (l->ln_conns)
		conn_destroy(&l->ln_conns->cn_xprt);
	if (l->ln_threads.th_nthreads)
		close(xprt->xp_fd);
	svc_rdma_drc_stop(l);
	/* After the last connection: nothing uses the PDs any more. */
	svc_rdma_devs_fini(l);
	rdma_destroy_id(l->ln_id);
	rdma_destroy_event_channel(l->ln_ch);
	pthread_mutex_destroy(&l->ln_lock);
	rpcrdma_optsrc_fini(&l->ln_src);
	free(l);
}

static const struct xp_ops listener_ops = {
	.xp_recv = lst_recv,
	.xp_stat = lst_stat,
	.xp_getargs = lst_never,
	.xp_reply = lst_reply,
	.xp_freeargs = lst_never,
	.xp_destroy = lst_destroy,
};


SVCXPRT *svc_rdma_create(const char *host, const char *port,
			 const struct rpcrdma_options *opts)
{
	struct svc_rdma_listener *l = calloc(1, sizeof(*l));
	int rc;

	if (!l) {
		rc = -ENOMEM;
		goto out_err;
	}
	rc = rpcrdma_options_setup(&l->ln_src, opts, RPCRDMA_CS_SERVER);
	if (rc) {
		rpcrdma_optsrc_fini(&l->ln_src);
		free(l);
		goto out_err;
	}
	rpcrdma_optsrc_resolve(&l->ln_src, NULL, &l->ln_opts);
	pthread_mutex_init(&l->ln_lock, NULL);
	rc = rpcrdma_listen(&l->ln_ch, &l->ln_id, host, port,
			    (int)l->ln_opts.ro_max_requests);
	if (rc) {
		pthread_mutex_destroy(&l->ln_lock);
		rpcrdma_optsrc_fini(&l->ln_src);
		free(l);
		goto out_err;
	}
	l->ln_xprt.xp_fd = l->ln_ch->fd;
	if (l->ln_opts.ro_svc_threads) {
		/*
		 * The leader polls the CM channel; svc_run() gets a private
		 * eventfd instead, so it has something to wait on and is
		 * woken only to return after svc_exit().
		 */
		l->ln_xprt.xp_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (l->ln_xprt.xp_fd < 0) {
			rc = -errno;
			goto out_listen;
		}
	}
	l->ln_xprt.xp_port = ntohs(rdma_get_src_port(l->ln_id));
	svc_rdma_set_netbuf(&l->ln_xprt.xp_ltaddr, &l->ln_laddr,
			    rdma_get_local_addr(l->ln_id));
	l->ln_xprt.xp_ops = &listener_ops;
	l->ln_xprt.xp_ops2 = &svc_rdma_ops2;
	l->ln_xprt.xp_netid = "rdma";
	l->ln_xprt.xp_tp = "rdma";
	l->ln_xprt.xp_p3 = &l->ln_ext;
	/* The cache first: a service thread may serve Calls at once. */
	rc = svc_rdma_drc_start(l);
	if (!rc && l->ln_opts.ro_svc_threads) {
		rc = svc_threads_start(l);
		if (rc)
			svc_rdma_drc_stop(l);
	}
	if (rc) {
		if (l->ln_opts.ro_svc_threads)
			close(l->ln_xprt.xp_fd);
		goto out_listen;
	}
	rc = svc_rdma_idle_start(l);
	if (!rc) {
		rc = svc_rdma_loop_start(l);
		if (rc)
			svc_rdma_idle_stop(l);
	}
	if (rc) {
		if (l->ln_opts.ro_svc_threads) {
			svc_threads_stop(l);
			close(l->ln_xprt.xp_fd);
		}
		svc_rdma_drc_stop(l);
		goto out_listen;
	}
	xprt_register(&l->ln_xprt);
	return &l->ln_xprt;

out_listen:
	rdma_destroy_id(l->ln_id);
	rdma_destroy_event_channel(l->ln_ch);
	pthread_mutex_destroy(&l->ln_lock);
	rpcrdma_optsrc_fini(&l->ln_src);
	free(l);

out_err:
	rpc_createerr.cf_stat = RPC_SYSTEMERROR;
	rpc_createerr.cf_error.re_errno = -rc;
	return NULL;
}

/* Counters of one connection, or of every connection a listener accepted. */
int svc_rdma_get_stats(SVCXPRT *xprt, struct rpcrdma_stats *stats)
{
	struct svc_rdma_listener *l;
	struct svc_rdma_conn *c;

	if (!xprt || !stats)
		return -1;
	memset(stats, 0, sizeof(*stats));
	if (xprt->xp_ops == &conn_ops) {
		c = to_conn(xprt);
		pthread_mutex_lock(&c->cn_x.rx_lock);
		*stats = c->cn_x.rx_stats;
		pthread_mutex_unlock(&c->cn_x.rx_lock);
		/* Pinned memory is its device's, shared with its siblings. */
		pthread_mutex_lock(&c->cn_dev->dv_lock);
		stats->rs_pool_pinned = c->cn_dev->dv_pinned;
		stats->rs_pool_pinned_peak = c->cn_dev->dv_pinned_peak;
		pthread_mutex_unlock(&c->cn_dev->dv_lock);
		return 0;
	}
	if (xprt->xp_ops != &listener_ops)
		return -1;
	l = to_lst(xprt);
	pthread_mutex_lock(&l->ln_lock);
	*stats = l->ln_closed;
	conns_add(stats, l->ln_conns);
	conns_add(stats, l->ln_closing);
	svc_rdma_devs_pinned(l, &stats->rs_pool_pinned,
			     &stats->rs_pool_pinned_peak);
	pthread_mutex_unlock(&l->ln_lock);
	return 0;
}

/*
 * The options in force: a connection's, after its device's section; a
 * listener's, from its creation (no device).
 */
int svc_rdma_get_options(SVCXPRT *xprt, struct rpcrdma_options *opts)
{
	if (!xprt || !opts)
		return -1;
	if (xprt->xp_ops == &conn_ops)
		*opts = to_conn(xprt)->cn_x.rx_opts;
	else if (xprt->xp_ops == &listener_ops)
		*opts = to_lst(xprt)->ln_opts;
	else
		return -1;
	return 0;
}

/*
 * Change live keys: on one connection, or on a listener, for it, every
 * connection it has and every one it accepts later (the handle layer).
 */
int svc_rdma_set_options(SVCXPRT *xprt, const struct rpcrdma_options *opts)
{
	struct svc_rdma_listener *l;
	struct svc_rdma_conn *c;
	char err[256];
	int rc = 0;

	if (!xprt || !opts)
		return -1;
	if (xprt->xp_ops == &conn_ops)
		return rpcrdma_xprt_set_options(&to_conn(xprt)->cn_x, opts) ? -1 : 0;
	if (xprt->xp_ops != &listener_ops)
		return -1;
	l = to_lst(xprt);
	pthread_mutex_lock(&l->ln_lock);
	if (rpcrdma_optsrc_update(&l->ln_src, opts, err, sizeof(err))) {
		pthread_mutex_unlock(&l->ln_lock);
		if (l->ln_opts.ro_log_level >= RPCRDMA_LOG_ERROR)
			fprintf(stderr, "rpcrdma: options not changed: %s\n", err);
		return -1;
	}
	rpcrdma_options_update(&l->ln_opts, opts, RPCRDMA_CS_SERVER, err, sizeof(err));
	for (c = l->ln_conns; c; c = c->cn_next)
		rc |= rpcrdma_xprt_set_options(&c->cn_x, opts);
	pthread_mutex_unlock(&l->ln_lock);
	return rc ? -1 : 0;
}
