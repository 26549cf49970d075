/*
 * The server's Reply path: encode a Reply into the serving thread's
 * scratch, post it now or park it (never wait for the peer), its chunks'
 * RDMA Writes chained in front of its Send (one post, no wait), With
 * Invalidate where the client allows it; answer what cannot be served
 * with RDMA_ERROR, and let a program answer without waiting for its
 * Reply's Send to complete.
 */
#include "config.h"
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rchunks.h"
#include "svc_drc.h"
#include "svc_int.h"
#include "svc_reply_plan.h"
#include "svc_reply_post.h"
#include "probes.h"

/* How a Reply went, as the svc_reply probe names it. */
static const char *const reply_names[] = {
	[SVC_RDMA_REPLY_INLINE] = "inline",
	[SVC_RDMA_REPLY_DIRECT] = "write list",
	[SVC_RDMA_REPLY_CHUNK] = "reply chunk",
	[SVC_RDMA_REPLY_ERR_CHUNK] = "err_chunk",
};

/* An accepted Reply's results, taken out of the message once: a Reply
 * that does not fit inline is encoded a second time, for its chunk. */
struct reply_res {
	xdrproc_t res_xres;		/* NULL: nothing but the RPC header */
	void *res_where;
};

static void take_results(struct rpc_msg *msg, struct reply_res *res)
{
	res->res_xres = NULL;
	res->res_where = NULL;
	if (msg->rm_reply.rp_stat == MSG_ACCEPTED &&
	    msg->rm_reply.rp_acpt.ar_stat == SUCCESS) {
		res->res_xres = msg->acpted_rply.ar_results.proc;
		res->res_where = msg->acpted_rply.ar_results.where;
		msg->acpted_rply.ar_results.proc = (xdrproc_t)(void (*)(void))xdr_void;
		msg->acpted_rply.ar_results.where = NULL;
	}
}

/*
 * Where a Reply's bytes come from: encoded now from the program's
 * message, or a Reply the duplicate request cache kept (a retransmitted
 * Call), replayed with the segments it had, into the new Call's chunks.
 */
struct reply_src {
	SVCAUTH *src_auth;		/* the Call's flavour wraps the results */
	struct rpc_msg *src_msg;
	struct reply_res src_res;
	const struct rpcrdma_drc_reply *src_kept;
};

/* Encode the Reply into buf, results wrapped by the Call's auth flavour. */
/*
 * The common Reply, accepted with SUCCESS and an empty verifier: its
 * header in one piece, then its results as xdr_replymsg would.  1 done,
 * 0 failed, -1 (nothing written) for any other Reply.  Why: xdr_replymsg
 * puts the same six words one x_putlong at a time, through a union and
 * the verifier's opaque, for every Reply.
 */
static int put_reply_fast(XDR *xdrs, struct rpc_msg *msg)
{
	const struct accepted_reply *ar = &msg->acpted_rply;
	int32_t *ip;

	if (msg->rm_direction != REPLY ||
	    msg->rm_reply.rp_stat != MSG_ACCEPTED || ar->ar_stat != SUCCESS ||
	    ar->ar_verf.oa_length != 0)
		return -1;
	ip = XDR_INLINE(xdrs, 6 * BYTES_PER_XDR_UNIT);
	if (!ip)
		return -1;
	IXDR_PUT_U_INT32(ip, msg->rm_xid);
	IXDR_PUT_U_INT32(ip, REPLY);
	IXDR_PUT_U_INT32(ip, MSG_ACCEPTED);
	IXDR_PUT_U_INT32(ip, ar->ar_verf.oa_flavor);
	IXDR_PUT_U_INT32(ip, 0);
	IXDR_PUT_U_INT32(ip, SUCCESS);
	return (*ar->ar_results.proc)(xdrs, ar->ar_results.where) ? 1 : 0;
}

static int encode_reply(SVCAUTH *auth, struct rpc_msg *msg,
			const struct reply_res *res, struct rpcrdma_xdr_buf *xb,
			char *buf, uint32_t len, uint32_t threshold)
{
	XDR xdrs;
	int ok;

	rpcrdma_xdrbuf_init(xb, buf, len, threshold);
	rpcrdma_xdrbuf_create(&xdrs, xb);
	ok = put_reply_fast(&xdrs, msg);
	if (ok < 0)
		ok = xdr_replymsg(&xdrs, msg);
	ok = ok &&
	     (!res->res_xres ||
	      SVCAUTH_WRAP(auth, &xdrs, res->res_xres, res->res_where));
	XDR_DESTROY(&xdrs);
	/* Full: a step whose failure the encoder ignored (RPCSEC_GSS's
	 * setpos) ran out of room, and what followed is not the Reply. */
	return ok && !rpcrdma_xdrbuf_full(xb) ? 0 : -EMSGSIZE;
}

static int src_encode(const struct reply_src *s, struct rpcrdma_xdr_buf *xb,
		      char *buf, uint32_t len, uint32_t threshold)
{
	if (s->src_kept)
		return svc_rdma_drc_replay(s->src_kept, xb, buf, len, threshold);
	return encode_reply(s->src_auth, s->src_msg, &s->src_res, xb, buf, len,
			    threshold);
}

/*
 * Direct data placement, as wp planned it (svc_reply_plan.c): the
 * Reply's large opaques, one per Write chunk the Call offered and in
 * that order, go by RDMA Write from b, a buffer of the chunk pool just
 * their size, so the results are never referenced after this returns;
 * the rest goes inline.  Nothing is posted here: -ENOMEM without a
 * chain (the caller answers ERR_CHUNK).
 */
static int reply_write_chunks(struct svc_rdma_conn *c,
			      const struct svc_rdma_wplan *wp,
			      struct svc_rdma_buf *b, const struct rpcrdma_hdr *h,
			      struct svc_rdma_chain *ch)
{
	uint64_t off = 0;
	unsigned int k;
	int rc, chained = 0;

	for (k = 0; k < wp->wp_nchunks; k++) {
		memcpy(b->sb_mem + off, wp->wp_place[k].wpl_addr,
		       wp->wp_place[k].wpl_len);
		rc = svc_rdma_chain_writes(ch, b, off, &h->hd_writes[k],
					   &chained);
		if (rc) {
			/* Nothing was posted: the pool has it back. */
			svc_rdma_buf_put(c, b);
			return rc;
		}
		off += wp->wp_place[k].wpl_len;
	}
	/* Chained: the chain's until its Send completes.  Else nothing
	 * to write (every segment empty): the pool has it back. */
	if (chained) {
		ch->rc_buf = *b;
		memset(b, 0, sizeof(*b));
	} else {
		svc_rdma_buf_put(c, b);
	}
	pthread_mutex_lock(&c->cn_x.rx_lock);
	c->cn_x.rx_stats.rs_write_chunks += wp->wp_nchunks;
	c->cn_x.rx_stats.rs_write_chunk_bytes += wp->wp_bytes;
	pthread_mutex_unlock(&c->cn_x.rx_lock);
	return 0;
}

/*
 * A Reply too large to Send goes into the Call's Reply chunk: encoded
 * whole into a buffer of the chunk pool, RDMA Written, then announced
 * by an RDMA_NOMSG header carrying the lengths written.  -EMSGSIZE when
 * the Reply chunk (svc_rdma_reply_decide found one) is too small, or the
 * Reply is longer than max_chunk_bytes (the caller answers ERR_CHUNK:
 * never a truncated Reply); other errors are the connection's.
 */
static int reply_in_chunk(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			  const struct reply_src *src, struct rpcrdma_hdr *h,
			  struct svc_rdma_chain *ch)
{
	struct rpcrdma_xprt *x = &c->cn_x;
	struct rpcrdma_chunk_limits lim;
	struct svc_rdma_buf b;
	struct rpcrdma_xdr_buf xb;
	int64_t room;
	size_t len, offered;
	int rc, chained = 0;

	/* The Reply's length is known only once encoded, but it can never be
	 * more than the chunk the client offered: take that much, encode,
	 * and give back the rest at once. */
	room = rpcrdma_chunk_capacity(&ct->ct_hdr.hd_reply);
	if (room <= 0)
		return -EMSGSIZE;
	if (room > SVC_RDMA_MAX_REPLY)
		room = SVC_RDMA_MAX_REPLY;
	/* Under max_conn_memory the room may be less than the chunk: a Reply
	 * that then does not fit is that limit's refusal. */
	offered = (size_t)room;
	room = (int64_t)svc_rdma_buf_room(c, offered);
	if (!room) {
		svc_rdma_count_mem_limit(c);
		return -EMSGSIZE;
	}
	rc = svc_rdma_buf_get(c, (size_t)room, &b);
	if (rc)
		return rc;
	/* Threshold 0: every byte copied, so the Reply is b's first len. */
	rc = src_encode(src, &xb, b.sb_mem, (uint32_t)room, 0);
	if (rc == -EMSGSIZE && (size_t)room < offered)
		svc_rdma_count_mem_limit(c);
	len = rpcrdma_xdrbuf_len(&xb);
	/* Too large for the scratch, it is whole only here. */
	if (!rc)
		svc_rdma_drc_keep(c, ct, &xb);
	if (!rc) {
		svc_rdma_chunk_limits(c, &lim);
		if (!rpcrdma_reply_fits(&lim, len)) {
			svc_rdma_count_chunk_limit(c);
			rc = -EMSGSIZE;
		}
	}
	if (!rc)
		rc = rpcrdma_fill_chunk(&ct->ct_hdr.hd_reply, len, &h->hd_reply);
	if (rc) {
		svc_rdma_buf_put(c, &b);
		return rc;
	}
	svc_rdma_buf_trim(c, &b, len);
	rc = svc_rdma_chain_writes(ch, &b, 0, &h->hd_reply, &chained);
	if (rc) {
		svc_rdma_buf_put(c, &b);
		return rc;
	}
	if (chained)
		ch->rc_buf = b;
	else
		svc_rdma_buf_put(c, &b);
	h->hd_proc = RPCRDMA_NOMSG;
	h->hd_has_reply = true;
	pthread_mutex_lock(&x->rx_lock);
	x->rx_stats.rs_reply_chunk_replies++;
	x->rx_stats.rs_reply_chunk_bytes += len;
	pthread_mutex_unlock(&x->rx_lock);
	return 0;
}

/*
 * The largest Reply one Send may carry: the client's limit, or a send
 * buffer's when this Reply could not be mapped from one (send_buffer
 * smaller than what the client receives).
 */
static uint32_t reply_send_max(const struct rpcrdma_xprt *x,
			       const struct rpcrdma_xdr_buf *xb,
			       const struct rpcrdma_hdr *h)
{
	ssize_t n = rpcrdma_hdr_size(h);

	if (!xb || n < 0)
		return x->rx_send_max;
	return rpcrdma_xprt_plan_max(x, xb, (uint32_t)n);
}

/*
 * Send a Reply for ct: decided by svc_rdma_reply_decide (inline, with its
 * large opaques in the Call's Write chunks, or in its Reply chunk;
 * RDMA_ERROR / ERR_CHUNK when none fits), then done step by step.
 */
static bool_t reply_send(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			 const struct reply_src *src)
{
	struct rpcrdma_xprt *x = &c->cn_x;
	uint8_t hdr[RPCRDMA_HDRLEN_MAX];
	struct rpcrdma_xdr_buf xb, empty;
	const struct rpcrdma_xdr_buf *body = &xb;
	struct rpcrdma_chunk_limits lim;
	struct svc_rdma_reply_in in;
	enum svc_rdma_reply_verdict v;
	struct svc_rdma_wplan wp;
	struct svc_rdma_buf b;
	struct rpcrdma_hdr h;
	struct rpcrdma_send_pre pre;
	struct svc_rdma_chain *ch = NULL;
	uint32_t credits;
	ssize_t n = 0;
	bool parked = false;
	int rc;

	ct->ct_rel_queued = 0;
	memset(&pre, 0, sizeof(pre));
	/* RFC 8797: the client takes Send With Invalidate, and the Call
	 * carried one rkey: the Reply kills it on arrival. */
	if (x->rx_peer_remote_inv &&
	    svc_rdma_inv_rkey(&ct->ct_hdr, &pre.sp_inv_rkey))
		pre.sp_inv = 1;
	/* A ring: the receives it keeps posted; a shared queue: by need. */
	credits = svc_rdma_conn_grant(c, ct->ct_hdr.hd_credits, false);
	svc_rdma_reply_header(&ct->ct_hdr, ct->ct_xid, credits, &h);
	/* Each service thread owns one scratch slice: Replies encode in
	 * parallel. */
	/* A wrapped body (RPCSEC_GSS integrity, privacy) is sealed as one
	 * opaque: every byte copied, inline or in the Reply chunk. */
	rc = src_encode(src, &xb, c->cn_scratch +
			(size_t)ct->ct_slot * x->rx_opts.ro_inline_send,
			x->rx_opts.ro_inline_send,
			ct->ct_wrapped ? 0 : x->rx_opts.ro_page_threshold);
	/* Encoded whole: the duplicate request cache keeps a copy. */
	if (!rc && !src->src_kept)
		svc_rdma_drc_keep(c, ct, &xb);
	svc_rdma_chunk_limits(c, &lim);
	in = (struct svc_rdma_reply_in){
		.ri_call = &ct->ct_hdr,
		.ri_xb = rc ? NULL : &xb,
		.ri_send_max = reply_send_max(x, rc ? NULL : &xb, &h),
		.ri_max_bytes = SVC_RDMA_MAX_REPLY,
		.ri_lim = &lim,
	};
	v = svc_rdma_reply_decide(&in, &h, &wp);
	/* The bytes are known before anything is copied: take just those.
	 * None to be had: the Write chunks go back unused, and the Reply
	 * goes as if the Call had offered none. */
	if (v == SVC_RDMA_REPLY_DIRECT && svc_rdma_buf_get(c, wp.wp_bytes, &b)) {
		svc_rdma_reply_header(&ct->ct_hdr, ct->ct_xid, credits, &h);
		in.ri_no_direct = true;
		v = svc_rdma_reply_decide(&in, &h, &wp);
	}
	rpcrdma_xdrbuf_init(&empty, NULL, 0, 0);
	if (v == SVC_RDMA_REPLY_DIRECT || v == SVC_RDMA_REPLY_CHUNK)
		ch = svc_rdma_chain_new(c);
	switch (v) {
	case SVC_RDMA_REPLY_INLINE:
		rc = 0;
		break;
	case SVC_RDMA_REPLY_DIRECT:
		rc = reply_write_chunks(c, &wp, &b, &h, ch);
		body = &wp.wp_rest;
		break;
	case SVC_RDMA_REPLY_CHUNK:
		rc = reply_in_chunk(c, ct, src, &h, ch);
		body = &empty;
		break;
	case SVC_RDMA_REPLY_ERR_CHUNK:
	default:
		rc = -EMSGSIZE;
		body = &empty;
		break;
	}
	/* Too large to Send, and no Reply chunk took it: ERR_CHUNK below. */
	if ((v == SVC_RDMA_REPLY_CHUNK || v == SVC_RDMA_REPLY_ERR_CHUNK) &&
	    (rc == -EMSGSIZE || rc == -ENOMEM)) {
		pthread_mutex_lock(&x->rx_lock);
		x->rx_stats.rs_too_large++;
		pthread_mutex_unlock(&x->rx_lock);
	}
	if (!rc) {
		n = rpcrdma_hdr_encode(hdr, sizeof(hdr), &h);
		if (n < 0)
			rc = (int)n;
	}
	/* The Call's arguments are decoded: its receive (and its Read chunks'
	 * buffer) goes back before the Reply grants the credit that lets the
	 * client use it again. */
	svc_rdma_call_release(c, ct);
	/* A connection whose Sends or Writes stall is torn down there,
	 * alone (svc_rdma_conn_stalled tells it once). */
	if (!rc) {
		rc = svc_rdma_reply_post(c, ct, hdr, (size_t)n, body, ch, &pre);
		/* Parked: rs_replies counts it when it goes (svc_park.c). */
		parked = rc == 1;
		if (parked)
			rc = 0;
	} else if (ch) {
		svc_rdma_chain_drop(c, ch);
	}
	if (rc == -ETIMEDOUT)
		svc_rdma_conn_stalled(c, "a Reply's RDMA Writes");
	ct->ct_rel_status = -rc;
	if (rc == -EMSGSIZE || rc == -ENOMEM)	/* no room: fail it cleanly */
		svc_rdma_conn_send_error(c, ct->ct_xid, RPCRDMA_ERR_CHUNK,
					 credits);
	pthread_mutex_lock(&x->rx_lock);
	if (!rc) {
		if (!parked)
			x->rx_stats.rs_replies++;
		RPCRDMA_PROBE4(svc_reply, x, ct->ct_xid, reply_names[v],
			       body->xb_len);
	}
	x->rx_stats.rs_credits_granted = credits;
	RPCRDMA_PROBE2(credits, x, credits);
	pthread_mutex_unlock(&x->rx_lock);
	RPCRDMA_DBG("conn %p: Reply%s xid %#x: %d%s", (void *)c,
		    src->src_kept ? " (kept)" : "", ct->ct_xid, rc,
		    pre.sp_inv ? " (with invalidate)" : "");
	return rc == 0;
}

bool_t svc_rdma_reply(struct svc_rdma_conn *c, SVCAUTH *auth,
		      struct rpc_msg *msg)
{
	struct svc_rdma_call *ct = svc_rdma_conn_call(c);
	struct reply_src src = { .src_auth = auth, .src_msg = msg };

	/* Not the thread serving a Call of this connection: nothing to answer.
	 * Answered already: rpcgen's stubs follow a failed svc_sendreply()
	 * with svcerr_systemerr(), but the client has its RDMA_ERROR. */
	if (!ct || ct->ct_answered)
		return FALSE;
	ct->ct_answered = 1;
	msg->rm_xid = ct->ct_xid;
	take_results(msg, &src.src_res);
	return reply_send(c, ct, &src);
}

/*
 * A retransmitted Call whose first copy was executed: its kept Reply
 * again, into the chunks this copy brought; the procedure does not run.
 */
void svc_rdma_reply_kept(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			 const struct rpcrdma_drc_reply *kept)
{
	struct reply_src src = { .src_kept = kept };

	ct->ct_answered = 1;
	reply_send(c, ct, &src);
}
