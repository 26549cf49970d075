/*
 * A connection's Calls as they come: taken off its queue, their transport
 * header judged (svc_recv.c), Read chunks pulled, the RPC header decoded,
 * the duplicate request cache asked; a bad one answered or dropped here.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "poller.h"
#include "svc_drc.h"
#include "svc_recv.h"
#include "svc_int.h"
#include "probes.h"


/*
 * Check one received message's transport header.  Returns the offset of
 * the RPC Call in it, or -1 after dealing with a bad one as RFC 8166 says:
 * ERR_VERS for another version, ERR_CHUNK for an unusable header, a silent
 * drop for a message too short to attribute.
 */
/* The receive verdicts as the svc_recv probe names them. */
static const char *const verdict_names[] = {
	[SVC_RDMA_RECV_INLINE] = "inline",
	[SVC_RDMA_RECV_PULL] = "read chunks",
	[SVC_RDMA_RECV_ERR_VERS] = "err_vers",
	[SVC_RDMA_RECV_ERR_CHUNK] = "err_chunk",
	[SVC_RDMA_RECV_DROP] = "drop",
};
#define VERDICTS (sizeof(verdict_names) / sizeof(verdict_names[0]))

static void count_bad_call(struct svc_rdma_conn *c)
{
	pthread_mutex_lock(&c->cn_x.rx_lock);
	c->cn_x.rx_stats.rs_bad_calls++;
	pthread_mutex_unlock(&c->cn_x.rx_lock);
}

/* A Call's Reads went on while its thread went to other Calls. */
static void count_deferred(struct svc_rdma_conn *c)
{
	pthread_mutex_lock(&c->cn_x.rx_lock);
	c->cn_x.rx_stats.rs_reads_deferred++;
	pthread_mutex_unlock(&c->cn_x.rx_lock);
}

/*
 * Read chunks that could not be pulled (rc): the Call's receive goes back,
 * then an ERR_CHUNK when no memory was to be had; Reads that failed or
 * stalled end the connection, alone.  Counted either way.
 */
static void pull_failed(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			struct rpcrdma_rep *rep, int rc)
{
	svc_rdma_conn_repost(c, rep);
	RPCRDMA_DBG("conn %p: Read chunks of xid %#x: %d", (void *)c,
		    ct->ct_hdr.hd_xid, rc);
	if (rc == -ENOMEM) {
		svc_rdma_conn_send_error(c, ct->ct_hdr.hd_xid,
					 RPCRDMA_ERR_CHUNK, 0);
		return;
	}
	if (rc == -ETIMEDOUT)
		svc_rdma_conn_stalled(c, "a Call's RDMA Reads");
	count_bad_call(c);
	svc_rdma_conn_dropped(c);
}

/*
 * Threaded: a Call with Read chunks goes to a holder of its connection
 * (svc_hold.c), its Reads to be posted by the next step: 1 (held, or put
 * back at the head of the queue when every holder is taken), or the
 * pull's failure (-ENOMEM: answer ERR_CHUNK; -EPROTO: past its grant).
 */
static int conn_hold_call(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			  const struct rpcrdma_call_map *m, const uint8_t *inl,
			  struct rpcrdma_rep *rep)
{
	struct svc_rdma_hold *h;
	int rc;

	rc = svc_rdma_hold_claim(c, rep, &h);
	if (rc == -EBUSY)
		return 1;
	if (rc)
		return rc;
	h->ho_ct.ct_hdr = ct->ct_hdr;
	rc = svc_rdma_pull_prepare(c, &h->ho_ct, m, inl, rep, &h->ho_rw);
	if (rc) {
		svc_rdma_hold_free(c, h);
		return rc;
	}
	/* Ready for its first step at once: nothing was posted yet. */
	h->ho_room = __atomic_load_n(&c->cn_x.rx_rw_freed, __ATOMIC_ACQUIRE) - 1;
	svc_rdma_hold_put(c, h);
	count_deferred(c);
	return 1;
}

/*
 * Decode the transport header of a received Call into ct->ct_hdr and
 * find its RPC message: inline after the header, or reassembled from its
 * Read chunks.  0 with the message at *msgp; 1 when its Reads are under
 * way (svc_run: ct->ct_pull holds it until they complete; threaded: a
 * holder of the connection does); -1 when the Call was answered with
 * RDMA_ERROR or dropped (counted either way), its receive reposted first.
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
	RPCRDMA_PROBE4(svc_recv, &c->cn_x, h->hd_xid,
		       verdict_names[rv.rv_verdict < VERDICTS ? rv.rv_verdict :
				     VERDICTS - 1], rep->rr_len);
	if (rv.rv_why)
		RPCRDMA_DBG("conn %p: xid %#x refused: %s", (void *)c, h->hd_xid,
			    rv.rv_why);
	switch (rv.rv_verdict) {
	case SVC_RDMA_RECV_INLINE:
		*msgp = (char *)rep->rr_buf + rv.rv_off;
		*lenp = rv.rv_len;
		return 0;
	case SVC_RDMA_RECV_PULL:
		break;
	case SVC_RDMA_RECV_ERR_VERS:
		/* Its receive goes back before the answer grants it again. */
		svc_rdma_conn_repost(c, rep);
		svc_rdma_conn_send_error(c, h->hd_xid, RPCRDMA_ERR_VERS, 0);
		return -1;
	case SVC_RDMA_RECV_ERR_CHUNK:
		if (rv.rv_over_limit)
			svc_rdma_count_chunk_limit(c);
		svc_rdma_conn_repost(c, rep);
		svc_rdma_conn_send_error(c, h->hd_xid, RPCRDMA_ERR_CHUNK, 0);
		return -1;
	case SVC_RDMA_RECV_DROP:
	default:
		count_bad_call(c);
		svc_rdma_conn_repost(c, rep);
		svc_rdma_conn_dropped(c);
		return -1;
	}
	/* No thread waits for a Call's Reads (svc_chunks.c says why). */
	if (c->cn_threaded) {
		rc = conn_hold_call(c, ct, &rv.rv_map, rep->rr_buf + rv.rv_off,
				    rep);
		if (rc > 0)
			return 1;
	} else {
		rc = svc_rdma_pull_prepare(c, ct, &rv.rv_map,
					   rep->rr_buf + rv.rv_off, rep,
					   &c->cn_rw[ct->ct_slot]);
		if (!rc)
			rc = svc_rdma_pull_step(c, ct, msgp, lenp);
		if (!rc)
			return 0;
		if (rc == -EINPROGRESS) {
			count_deferred(c);
			return 1;
		}
	}
	pull_failed(c, ct, rep, rc);
	return -1;
}

/*
 * A Call of another RPC version (RFC 5531 section 9): xdr_callmsg()
 * refuses it, but the peer is owed MSG_DENIED / RPC_MISMATCH naming the
 * one version we speak, on the connection, which stays up.  1 when msg
 * was such a Call and was answered (its receive reposted), 0 when it is
 * no RPC Call at all (the caller drops it).
 */
static int deny_vers(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
		     struct rpcrdma_rep *rep, const char *m, uint32_t len)
{
	struct rpc_msg reply;
	uint32_t xid;

	if (!svc_rdma_other_rpcvers(m, len, &xid))
		return 0;
	memset(&reply, 0, sizeof(reply));
	reply.rm_direction = REPLY;
	reply.rm_reply.rp_stat = MSG_DENIED;
	reply.rjcted_rply.rj_stat = RPC_MISMATCH;
	reply.rjcted_rply.rj_vers.low = RPC_MSG_VERSION;
	reply.rjcted_rply.rj_vers.high = RPC_MSG_VERSION;
	ct->ct_cur = rep;
	ct->ct_xid = xid;
	ct->ct_answered = 0;
	pthread_mutex_lock(&c->cn_x.rx_lock);
	c->cn_x.rx_stats.rs_bad_calls++;
	pthread_mutex_unlock(&c->cn_x.rx_lock);
	/* No results: no auth flavour to wrap them. */
	svc_rdma_reply(c, NULL, &reply);
	/* Sent or not, the receive is back (reply_send reposts it). */
	if (ct->ct_cur) {
		svc_rdma_conn_repost(c, ct->ct_cur);
		ct->ct_cur = NULL;
	}
	return 1;
}

bool_t svc_rdma_call_recv(struct svc_rdma_conn *c, struct rpc_msg *msg)
{
	struct svc_rdma_call *ct = svc_rdma_conn_call(c), *own = ct;
	uint32_t nrecv = c->cn_qcap;

	if (!ct)
		return FALSE;
	/* A dispatcher that never replied leaves its Call behind (one whose
	 * Reads are under way was not dispatched yet). */
	if (!ct->ct_pull.pu_rep)
		svc_rdma_call_release(c, ct);
	if (c->cn_threaded) {
		/* The leader reaps and sleeps; here, at most a look. */
		if (!__atomic_load_n(&c->cn_qlen, __ATOMIC_RELAXED))
			svc_rdma_conn_reap(c);
	} else if (!c->cn_qlen || ct->ct_pull.pu_rep) {
		/* svc_run woke us: consume the channel's event, then poll. */
		if (rpcrdma_cq_drain_events(&c->cn_x.rx_ep)) {
			pthread_mutex_lock(&c->cn_x.rx_lock);
			c->cn_x.rx_stats.rs_wakeups++;
			pthread_mutex_unlock(&c->cn_x.rx_lock);
		}
		svc_rdma_conn_reap(c);
	}
	RPCRDMA_DBG("conn %p: %u Calls queued, dead %d", (void *)c, c->cn_qlen,
		    c->cn_x.rx_dead);
	for (;;) {
		struct rpcrdma_rep *rep = NULL;
		struct svc_rdma_hold *h;
		struct rpcrdma_drc_reply kept;
		uint32_t len;
		char *m;
		int rc;

		/* A held Call this thread took and is done with: its holder
		 * is free, and the thread's own Call state is current again. */
		if (ct != own) {
			svc_rdma_hold_free(c, svc_rdma_hold_of(c, ct));
			ct = own;
			svc_rdma_thread_call = own;
		}
		/* svc_run: this turn's budget spent (on bad ones too), the
		 * rest waits for the next turn (conn_stat yields). */
		if (!c->cn_threaded && c->cn_turn >= SVC_RDMA_TURN_CALLS)
			break;
		/* Threaded: a held Call whose chain completed goes first
		 * (served by this thread once pulled whole). */
		if (c->cn_threaded && (h = svc_rdma_hold_take(c, ct))) {
			rep = h->ho_ct.ct_pull.pu_rep;
			rc = svc_rdma_pull_step(c, &h->ho_ct, &m, &len);
			if (rc == -EINPROGRESS) {
				svc_rdma_hold_put(c, h);
				continue;
			}
			if (rc) {
				pull_failed(c, &h->ho_ct, rep, rc);
				svc_rdma_hold_free(c, h);
				continue;
			}
			h->ho_ct.ct_conn = c;
			ct = &h->ho_ct;
			svc_rdma_thread_call = ct;
			goto pulled;
		}
		/* svc_run: a Call whose Reads are under way goes first: the
		 * connection's later Calls wait behind it. */
		if (ct->ct_pull.pu_rep) {
			rep = ct->ct_pull.pu_rep;
			rc = svc_rdma_pull_step(c, ct, &m, &len);
			if (rc == -EINPROGRESS)
				break;
			if (rc) {
				pull_failed(c, ct, rep, rc);
				continue;
			}
			goto pulled;
		}
		/* Taken under the lock, handled outside it: a bad header's
		 * RDMA_ERROR may have to reap for a send context. */
		pthread_mutex_lock(&c->cn_lock);
		/* Threaded: the head waits for a free holder (svc_hold.c). */
		if (c->cn_qlen && !c->cn_hold_full) {
			rep = c->cn_queue[c->cn_qhead];
			c->cn_qhead = (c->cn_qhead + 1) % nrecv;
			__atomic_store_n(&c->cn_qlen, c->cn_qlen - 1,
					 __ATOMIC_RELAXED);
		}
		pthread_mutex_unlock(&c->cn_lock);
		if (!rep)
			break;
		c->cn_turn++;
		rc = conn_check_call(c, ct, rep, &m, &len);
		if (rc > 0) {
			/* Its Reads are under way: not idle meanwhile. */
			__atomic_store_n(&c->cn_last_call_ns,
					 rpcrdma_poll_now_ns(NULL),
					 __ATOMIC_RELAXED);
			/* Threaded: on to its first step, or others. */
			if (c->cn_threaded)
				continue;
			break;
		}
		if (rc)
			continue;
pulled:
		xdrmem_create(&ct->ct_args, m, len, XDR_DECODE);
		if (!xdr_callmsg(&ct->ct_args, msg)) {
			/* Another RPC version gets RPC_MISMATCH; what is no
			 * RPC Call at all, nothing to answer it with. */
			if (deny_vers(c, ct, rep, m, len))
				continue;
			count_bad_call(c);
			svc_rdma_conn_repost(c, rep);
			svc_rdma_conn_dropped(c);
			svc_rdma_buf_put(c, &ct->ct_callbuf);
			continue;
		}
		__atomic_store_n(&c->cn_last_call_ns, rpcrdma_poll_now_ns(NULL),
				 __ATOMIC_RELAXED);
		ct->ct_cur = rep;
		ct->ct_xid = msg->rm_xid;
		ct->ct_answered = 0;
		ct->ct_wrapped = rpcrdma_call_wraps_body(m, len);
		pthread_mutex_lock(&c->cn_x.rx_lock);
		c->cn_x.rx_stats.rs_calls++;
		pthread_mutex_unlock(&c->cn_x.rx_lock);
		/* A retransmission: answered from the cache, or dropped. */
		switch (svc_rdma_drc_check(c, ct, msg, m, len, &kept)) {
		case SVC_RDMA_DRC_SERVE:
			if (c->cn_threaded && rpcrdma_call_is_gss(m, len))
				svc_rdma_gss_enter(c, ct);
			return TRUE;
		case SVC_RDMA_DRC_RESEND:
			svc_rdma_reply_kept(c, ct, &kept);
			rpcrdma_drc_reply_free(&kept);
			break;
		case SVC_RDMA_DRC_DROP:
			break;
		}
		/* Its receive goes back: the first copy is the one served. */
		svc_rdma_call_release(c, ct);
	}
	return FALSE;
}
