/*
 * The server's Reply path: encode a Reply into the serving thread's
 * scratch, post it within a bounded wait (a peer that takes no Sends is
 * torn down alone), answer what cannot be served with RDMA_ERROR, and
 * let a program answer without waiting for its Reply's Send to complete.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "svc_threads.h"

/*
 * How long a Reply or RDMA_ERROR may wait for a send context before its
 * connection counts as stalled.  The wait runs on the service thread, so
 * every other connection waits with it.  A healthy peer frees a context
 * with its next signaled Send completion: a few ms even under QEMU
 * emulation, and still well under this after a few transport
 * retransmissions (rxe's ACK timeout is under a second; siw rides TCP,
 * whose first retransmissions come after 1 s, then 2 s).  A peer that
 * takes no Sends at all (no receive posted: its Replies sit in RNR retry
 * forever) frees none, and may hold everybody else no longer than this.
 */
#define SVC_RDMA_SEND_STALL_MS 5000

/* The peer stopped taking our Sends: tear this connection down, alone. */
static void conn_stalled(struct svc_rdma_conn *c)
{
	struct rpcrdma_xprt *x = &c->sc_x;
	int stalled = 0;

	pthread_mutex_lock(&x->rx_lock);
	/* Already dead (e.g. -ETIMEDOUT by an earlier stall): counted once. */
	if (!x->rx_dead) {
		x->rx_dead = -ETIMEDOUT;
		x->rx_stats.rs_stalled_conns++;
		stalled = 1;
	}
	pthread_mutex_unlock(&x->rx_lock);
	if (stalled) {
		RPCRDMA_DBG("conn %p: Sends stalled %d ms, torn down",
			    (void *)c, SVC_RDMA_SEND_STALL_MS);
		rpcrdma_ep_disconnect(&x->rx_ep);
	}
}

/*
 * Post one message, waiting at most SVC_RDMA_SEND_STALL_MS for a send
 * context.  When none came free, this connection's Sends have stalled and
 * it is torn down alone: marked dead (-ETIMEDOUT), so its later Sends fail
 * at once and svc_run sees XPRT_DIED (conn_stat) and destroys it;
 * disconnected now, so its QP flushes what is posted; and counted.
 */
static int conn_send_bounded(struct svc_rdma_conn *c, const void *hdr,
			     size_t hdrlen, const struct rpcrdma_xdr_buf *xb,
			     const struct rpcrdma_release *rel, uint64_t *seqp,
			     int *queuedp)
{
	struct timeval tv = { SVC_RDMA_SEND_STALL_MS / 1000,
			      (SVC_RDMA_SEND_STALL_MS % 1000) * 1000 };
	struct timespec deadline;
	int rc;

	rpcrdma_deadline(&deadline, &tv);
	rc = rpcrdma_xprt_send_owned(&c->sc_x, hdr, hdrlen, xb, &deadline,
				     rel, seqp, queuedp);
	if (rc == -ETIMEDOUT)
		conn_stalled(c);
	return rc;
}

/*
 * Answer a Call we cannot serve with RDMA_ERROR; the connection stays up,
 * unless the answer cannot be posted in time (conn_send_bounded).
 */
void svc_rdma_conn_send_error(struct svc_rdma_conn *c, uint32_t xid, uint32_t err)
{
	struct rpcrdma_xprt *x = &c->sc_x;
	uint8_t hdr[RPCRDMA_HDRLEN_ERR_VERS];
	struct rpcrdma_xdr_buf empty;
	uint64_t seq;
	ssize_t n;
	int queued;

	n = rpcrdma_encode_error(hdr, sizeof(hdr), xid,
				 x->rx_ep.re_nrecv, err);
	if (n < 0)
		return;
	rpcrdma_xdrbuf_init(&empty, NULL, 0, 0);
	/* Nothing gathered from caller memory: nothing to wait for after. */
	conn_send_bounded(c, hdr, (size_t)n, &empty, NULL, &seq, &queued);
	pthread_mutex_lock(&x->rx_lock);
	x->rx_stats.rs_bad_calls++;
	pthread_mutex_unlock(&x->rx_lock);
}

/* Encode the Reply, results wrapped by the Call's auth flavour. */
static int conn_encode_reply(SVCXPRT *xprt, struct rpc_msg *msg,
			     struct rpcrdma_xdr_buf *xb, uint32_t slot)
{
	struct svc_rdma_conn *c = svc_rdma_conn_of(xprt);
	xdrproc_t xres = NULL;
	void *where = NULL;
	XDR xdrs;
	int ok;

	if (msg->rm_reply.rp_stat == MSG_ACCEPTED &&
	    msg->rm_reply.rp_acpt.ar_stat == SUCCESS) {
		xres = msg->acpted_rply.ar_results.proc;
		where = msg->acpted_rply.ar_results.where;
		msg->acpted_rply.ar_results.proc = (xdrproc_t)(void (*)(void))xdr_void;
		msg->acpted_rply.ar_results.where = NULL;
	}
	/* Each service thread owns one slice: Replies encode in parallel. */
	rpcrdma_xdrbuf_init(xb, c->sc_scratch +
			    (size_t)slot * c->sc_x.rx_opts.ro_inline_send,
			    c->sc_x.rx_opts.ro_inline_send,
			    c->sc_x.rx_opts.ro_page_threshold);
	rpcrdma_xdrbuf_create(&xdrs, xb);
	ok = xdr_replymsg(&xdrs, msg) &&
	     (!xres || SVCAUTH_WRAP(&SVC_XP_AUTH(xprt), &xdrs, xres, where));
	XDR_DESTROY(&xdrs);
	return ok ? 0 : -EMSGSIZE;
}

bool_t svc_rdma_conn_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_rdma_conn *c = svc_rdma_conn_of(xprt);
	struct svc_rdma_call *ct = svc_rdma_conn_call(c);
	struct rpcrdma_xprt *x = &c->sc_x;
	uint8_t hdr[RPCRDMA_HDRLEN_MIN];
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_hdr h;
	struct timespec deadline;
	struct timeval tv = { SVC_RDMA_SEND_STALL_MS / 1000,
			      (SVC_RDMA_SEND_STALL_MS % 1000) * 1000 };
	const struct rpcrdma_release *rel;
	uint64_t seq = 0;
	ssize_t n;
	int rc;

	/* Not the thread serving a Call of this connection: nothing to answer. */
	if (!ct)
		return FALSE;
	rel = ct->ct_rel.rl_fn ? &ct->ct_rel : NULL;
	ct->ct_rel_queued = 0;
	msg->rm_xid = ct->ct_xid;
	memset(&h, 0, sizeof(h));
	h.rh_xid = msg->rm_xid;
	/* We grant exactly the receives we keep posted. */
	h.rh_credits = x->rx_ep.re_nrecv;
	h.rh_proc = RPCRDMA_MSG;
	n = rpcrdma_hdr_encode(hdr, sizeof(hdr), &h);
	rc = n < 0 ? (int)n : conn_encode_reply(xprt, msg, &xb, ct->ct_slot);
	/* The Call's arguments are decoded: its receive goes back before the
	 * Reply grants the credit that lets the client use it again. */
	if (ct->ct_cur) {
		svc_rdma_conn_repost(c, ct->ct_cur);
		ct->ct_cur = NULL;
	}
	rpcrdma_deadline(&deadline, &tv);
	/* A connection whose Sends stall is torn down there, alone. */
	if (!rc)
		rc = conn_send_bounded(c, hdr, (size_t)n, &xb, rel, &seq,
				       &ct->ct_rel_queued);
	/* svc_sendreply's caller may free the results once we return: a
	 * mapped Reply that gathers them must have completed by then, or its
	 * connection be torn down (its QP flushed) as stalled.  An async
	 * Reply's release was queued instead (seq 0): no wait. */
	if (!rc && rpcrdma_xprt_wait_send(x, seq, &deadline) == -ETIMEDOUT)
		conn_stalled(c);
	ct->ct_rel_status = -rc;
	if (rc == -EMSGSIZE)	/* would need a Reply chunk: fail it cleanly */
		svc_rdma_conn_send_error(c, msg->rm_xid, RPCRDMA_ERR_CHUNK);
	pthread_mutex_lock(&x->rx_lock);
	if (!rc)
		x->rx_stats.rs_replies++;
	x->rx_stats.rs_credits_granted = x->rx_ep.re_nrecv;
	pthread_mutex_unlock(&x->rx_lock);
	RPCRDMA_DBG("conn %p: Reply xid %#x: %d", (void *)c, msg->rm_xid, rc);
	return rc == 0;
}

/*
 * svc_sendreply(), but the service thread never waits for the Reply's
 * Send: done(arg, status) runs once the transport holds no reference to
 * res, so done is where res may be freed.  That is at once for a Reply
 * copied into a send buffer (inline, pull-up) and for any Reply that
 * could not be sent; for one gathered from res (mapped) it is when its
 * Send completes, from whichever thread reaps that completion, or when the
 * connection is torn down.  done runs exactly once, perhaps before this
 * returns, and must not call into this transport.  status is 0 when the
 * Reply was posted (for a torn-down connection: ECONNRESET, the Reply may
 * not have arrived), else the errno that kept it from being sent.  On any
 * other SVCXPRT this is svc_sendreply() followed by done.
 */
bool_t svc_rdma_sendreply_async(SVCXPRT *xprt, xdrproc_t xres, void *res,
				void (*done)(void *arg, int status), void *arg)
{
	struct svc_rdma_conn *c = svc_rdma_conn_of(xprt);
	struct svc_rdma_call *ct = c ? svc_rdma_conn_call(c) : NULL;
	bool_t ok;

	if (!ct || !done) {
		ok = svc_sendreply(xprt, xres, res);
		if (done)
			done(arg, ok ? 0 : (c ? EPERM : EIO));
		return ok;
	}
	ct->ct_rel.rl_fn = done;
	ct->ct_rel.rl_arg = arg;
	ct->ct_rel_queued = 0;
	ct->ct_rel_status = EIO;	/* until conn_reply says otherwise */
	ok = svc_sendreply(xprt, xres, res);
	ct->ct_rel.rl_fn = NULL;
	if (!ct->ct_rel_queued)
		done(arg, ct->ct_rel_status);
	return ok;
}
