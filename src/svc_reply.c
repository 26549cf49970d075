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
#include "probes.h"

/*
 * No Reply waits for its peer.  A Reply that finds every send context or
 * all the Write room of its connection held by Sends not yet completed
 * is parked (reply_park, svc_park.c), owning copies of what its Send
 * reads, and posted when completions free them; a svc_sendreply() Reply's
 * referenced results are copied (reply_own), so its Send is never waited
 * for either.  A peer that takes no Sends at all (no receive posted: its
 * Replies sit in RNR retry forever) so costs only its own connection; if
 * it keeps sending, more Replies parked than max_requests close it as
 * past its grant.  What may still wait, up to svc_stall_ms (default 1 s,
 * svc_rdma_stall_deadline), is a full release queue, Writes too many to
 * chain, and a service thread's RDMA Read chains (svc_chunks.c; svc_run
 * does not wait for Reads): past it the connection is torn down and its
 * address refused for 30 times as long (svc_rdma_peer_stalled), the last
 * resort.  Read and Write chains get
 * the bound plus their bytes at 4 MiB/s (SVC_RDMA_STALL_FLOOR_BPS): a
 * large transfer is not a stall.
 */

/*
 * The peer stopped taking our Sends, or answering our Reads and Writes
 * (what: which wait ran out): tear this connection down, alone.  Said on
 * stderr, once per stall, because its peer is then refused a while and an
 * operator must be able to tell why a client cannot connect.
 */
void svc_rdma_conn_stalled(struct svc_rdma_conn *c, const char *what)
{
	struct rpcrdma_xprt *x = &c->cn_x;
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
		char host[NI_MAXHOST] = "?";
		const struct sockaddr_storage *ss = &c->cn_raddr.sa_ss;

		getnameinfo((const struct sockaddr *)ss, sizeof(*ss), host,
			    sizeof(host), NULL, 0, NI_NUMERICHOST);
		fprintf(stderr, "rpcrdma: server: the connection from %s "
			"stalled waiting for %s (svc_stall_ms %u): torn down, "
			"its address refused for %u s\n", host, what,
			x->rx_opts.ro_svc_stall_ms,
			x->rx_opts.ro_svc_stall_ms * SVC_RDMA_PENALTY_FACTOR / 1000);
		rpcrdma_ep_disconnect(&x->rx_ep);
		/* Its peer's stall budget is spent. */
		svc_rdma_peer_stalled(c);
	}
}

/* How a Reply went, as the svc_reply probe names it. */
static const char *const reply_names[] = {
	[SVC_RDMA_REPLY_INLINE] = "inline",
	[SVC_RDMA_REPLY_DIRECT] = "write list",
	[SVC_RDMA_REPLY_CHUNK] = "reply chunk",
	[SVC_RDMA_REPLY_ERR_CHUNK] = "err_chunk",
};

/*
 * One post per Reply: its Write-chunk or Reply-chunk RDMA Writes go in
 * front of its Send, in one ibv_post_send (RC ordering places the data
 * before the Send arrives), instead of being waited for first.  The
 * chunk buffer they read and their send-queue room are the chain's
 * until the Send completes (chain_release, queued on it); a chain that
 * fails, or is flushed, keeps them until the connection's QP is gone.
 * Writes that do not fit one chain are moved first, waited for, as
 * before (svc_rdma_push_chunk).
 */
struct reply_chain {
	struct svc_rdma_conn *rc_conn;
	struct svc_rdma_buf rc_buf;	/* what the Writes read */
	struct svc_rdma_buf rc_body;	/* a svc_sendreply() Reply's copy (reply_own) */
	struct rpcrdma_sge rc_body_sge;
	uint32_t rc_room;		/* send-queue room reserved for them */
	unsigned int rc_max;		/* Writes one chain may hold here */
	unsigned int rc_n;
	uint64_t rc_bytes;
	struct rpcrdma_sge rc_local[RPCRDMA_SEND_PRE_MAX];
	struct rpcrdma_remote rc_remote[RPCRDMA_SEND_PRE_MAX];
};

/* A chain; with no send-queue room for Writes, one that holds none
 * (rc_max 0: only a Reply's copy, reply_own). */
static struct reply_chain *chain_new(struct svc_rdma_conn *c)
{
	uint32_t slots = c->cn_x.rx_ep.re_rw_slots;
	struct reply_chain *rc;

	rc = calloc(1, sizeof(*rc));
	if (rc) {
		rc->rc_conn = c;
		rc->rc_max = slots < RPCRDMA_SEND_PRE_MAX ? slots :
			     RPCRDMA_SEND_PRE_MAX;
	}
	return rc;
}

/*
 * The Writes of b from off into written: onto the chain when they fit
 * (the chain then owns b: *chained), else moved now and waited for.
 */
static int chain_or_push(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			 struct reply_chain *rc, const struct svc_rdma_buf *b,
			 uint64_t off, const struct rpcrdma_chunk *written,
			 int *chained)
{
	unsigned int before = rc ? rc->rc_n : 0;

	if (rc && !svc_rdma_chunk_writes(b, off, written, rc->rc_local,
					 rc->rc_remote, &rc->rc_n, rc->rc_max,
					 &rc->rc_bytes)) {
		*chained |= rc->rc_n > before;
		return 0;
	}
	return svc_rdma_push_chunk(c, ct, b, off, written);
}

static void chain_hold(struct reply_chain *rc);

/* The chain's Send completed (status 0), or its QP is gone, or nothing
 * was posted: b and the room go back.  -EINPROGRESS (a parked Reply
 * posted in part, svc_park.h): they stay until the QP goes.  Runs once,
 * from the release queue, reply_send or the parked queue. */
static void chain_release(void *arg, int status)
{
	struct reply_chain *rc = arg;

	if (status == -EINPROGRESS) {
		chain_hold(rc);
		return;
	}
	if (rc->rc_room)
		rpcrdma_rw_unreserve(&rc->rc_conn->cn_x, rc->rc_room);
	svc_rdma_buf_put(rc->rc_conn, &rc->rc_buf);
	svc_rdma_buf_put(rc->rc_conn, &rc->rc_body);
	free(rc);
}

/* A chain that may have been posted in part and was not queued: its
 * Writes may still land, so b stays until the QP goes. */
static void chain_hold(struct reply_chain *rc)
{
	if (rc->rc_room)
		rpcrdma_rw_unreserve(&rc->rc_conn->cn_x, rc->rc_room);
	svc_rdma_buf_hold(rc->rc_conn, &rc->rc_buf);
	svc_rdma_buf_hold(rc->rc_conn, &rc->rc_body);
	free(rc);
}

/*
 * A Reply's body copied into a buffer of the chunk pool, which its Send
 * gathers (pre->sp_body) and which goes back with the chain *chp (made
 * here if need be) when that Send completes.  0, or none to be had.
 */
static int reply_copy_body(struct svc_rdma_conn *c,
			   const struct rpcrdma_xdr_buf *body,
			   struct reply_chain **chp, struct rpcrdma_send_pre *pre)
{
	size_t len = rpcrdma_xdrbuf_len(body);
	struct reply_chain *own = *chp;
	int err;

	if (!own && !(own = chain_new(c)))
		return -ENOMEM;
	err = svc_rdma_buf_get(c, len, &own->rc_body);
	if (!err && rpcrdma_xdrbuf_copy_out(body, own->rc_body.sb_mem, len) !=
		    (ssize_t)len) {
		svc_rdma_buf_put(c, &own->rc_body);
		err = -EMSGSIZE;
	}
	if (err) {
		if (!*chp)
			free(own);
		return err;
	}
	own->rc_body_sge.sg_addr = (uintptr_t)own->rc_body.sb_mem;
	own->rc_body_sge.sg_len = (uint32_t)len;
	own->rc_body_sge.sg_lkey = own->rc_body.sb_lkey;
	pre->sp_body = &own->rc_body_sge;
	*chp = own;
	return 0;
}

/*
 * A svc_sendreply() Reply whose body references the program's results:
 * the program frees them once we return, and a Send that gathered them
 * would have to be waited for, on the serving thread, for as long as the
 * peer takes to accept it (forever, for a peer that posts no receives).
 * So they are copied, once: into the send buffer when the whole Send
 * fits one (pre->sp_copy: inline or pull-up), else into a buffer of the
 * chunk pool (reply_copy_body).  1 copied, 0 no copy needed, < 0 none
 * to be had (the caller waits, as before).
 */
static int reply_own(struct svc_rdma_conn *c, size_t hdrlen,
		     const struct rpcrdma_xdr_buf *body,
		     struct reply_chain **chp, struct rpcrdma_send_pre *pre)
{
	struct rpcrdma_xprt *x = &c->cn_x;
	int err;

	if (!rpcrdma_xdrbuf_nrefs(body))
		return 0;
	if (hdrlen + rpcrdma_xdrbuf_len(body) <= x->rx_ep.re_send_size) {
		pre->sp_copy = 1;
	} else {
		err = reply_copy_body(c, body, chp, pre);
		if (err)
			return err;
	}
	pthread_mutex_lock(&x->rx_lock);
	x->rx_stats.rs_reply_copies++;
	pthread_mutex_unlock(&x->rx_lock);
	return 1;
}

/* A deadline already passed: what is free now, or nothing. */
static const struct timespec reply_now;

/*
 * No send context or Write room of the connection is free now (its
 * earlier Sends have not completed): the Reply waits in its parked queue
 * (svc_park.h), owning what its Send reads, and the thread goes on.  The
 * body is copied (into the chunk pool when no send buffer holds it); the
 * chain ch, if any, goes with it.  reply: a Reply, not an RDMA_ERROR
 * (rs_replies counts it when it goes).  1 parked; or -ENOBUFS, the
 * connection closed for having more Replies out than any grant allows
 * (its peer takes none and keeps sending); or no memory.  Nothing is
 * kept on failure.
 */
static int reply_park(struct svc_rdma_conn *c, const void *hdr, size_t hdrlen,
		      const struct rpcrdma_xdr_buf *body,
		      struct reply_chain *ch, struct rpcrdma_send_pre *pre,
		      bool reply)
{
	struct rpcrdma_xprt *x = &c->cn_x;
	struct rpcrdma_release owner = { 0, chain_release, NULL };
	const struct rpcrdma_xdr_buf *copy = body;
	int rc = 0;

	if (!pre->sp_body &&
	    hdrlen + rpcrdma_xdrbuf_len(body) > x->rx_ep.re_send_size)
		rc = reply_copy_body(c, body, &ch, pre);
	if (!rc) {
		if (pre->sp_body)
			copy = NULL;
		owner.rl_arg = ch;
		rc = svc_rdma_park_reply(&c->cn_park, x, hdr, hdrlen, copy,
					 pre, ch ? &owner : NULL, reply);
	}
	if (rc) {
		if (ch)
			chain_release(ch, rc);
		if (rc == -ENOBUFS)
			svc_rdma_conn_past_grant(c);
		return rc;
	}
	pthread_mutex_lock(&x->rx_lock);
	x->rx_stats.rs_replies_parked++;
	pthread_mutex_unlock(&x->rx_lock);
	/* A completion may have come since we looked: nothing is left
	 * waiting for one that already came. */
	svc_rdma_park_drain(&c->cn_park);
	return 1;
}

/*
 * Answer a Call we cannot serve with RDMA_ERROR; the connection stays up.
 * Like a Reply it never waits for a send context: it is parked.
 */
void svc_rdma_conn_send_error(struct svc_rdma_conn *c, uint32_t xid,
			      uint32_t err, uint32_t credits)
{
	struct rpcrdma_xprt *x = &c->cn_x;
	uint8_t hdr[RPCRDMA_HDRLEN_ERR_VERS];
	struct rpcrdma_send_pre pre;
	struct rpcrdma_xdr_buf empty;
	uint64_t seq;
	ssize_t n;
	int rc = -ETIMEDOUT, queued;

	if (!credits)
		credits = svc_rdma_conn_grant(c, 0, true);
	n = rpcrdma_encode_error(hdr, sizeof(hdr), xid, credits, err);
	if (n < 0)
		return;
	rpcrdma_xdrbuf_init(&empty, NULL, 0, 0);
	memset(&pre, 0, sizeof(pre));
	/* Nothing gathered from caller memory: nothing to wait for after. */
	if (!svc_rdma_park_busy(&c->cn_park)) {
		rc = rpcrdma_xprt_send_chain(x, hdr, (size_t)n, &empty,
					     &reply_now, NULL, NULL, &seq,
					     &queued);
		if (rc == -ETIMEDOUT && svc_rdma_conn_reap(c) > 0)
			rc = rpcrdma_xprt_send_chain(x, hdr, (size_t)n, &empty,
						     &reply_now, NULL, NULL,
						     &seq, &queued);
	}
	if (rc == -ETIMEDOUT)
		reply_park(c, hdr, (size_t)n, &empty, NULL, &pre, false);
	pthread_mutex_lock(&x->rx_lock);
	x->rx_stats.rs_bad_calls++;
	pthread_mutex_unlock(&x->rx_lock);
	RPCRDMA_PROBE3(svc_err_send, x, xid, err);
}

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
	return ok ? 0 : -EMSGSIZE;
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
 * the rest goes inline.  Errors are the connection's.
 */
static int reply_write_chunks(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			      const struct svc_rdma_wplan *wp,
			      struct svc_rdma_buf *b, const struct rpcrdma_hdr *h,
			      struct reply_chain *ch)
{
	uint64_t off = 0;
	unsigned int k;
	int rc, chained = 0;

	for (k = 0; k < wp->wp_nchunks; k++) {
		memcpy(b->sb_mem + off, wp->wp_place[k].wpl_addr,
		       wp->wp_place[k].wpl_len);
		rc = chain_or_push(c, ct, ch, b, off, &h->hd_writes[k],
				   &chained);
		if (rc) {
			svc_rdma_buf_hold(c, b);
			return rc;
		}
		off += wp->wp_place[k].wpl_len;
	}
	/* Chained: the chain's until its Send completes.  Else written
	 * and acknowledged: the pool may have it back. */
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
			  struct reply_chain *ch)
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
	rc = chain_or_push(c, ct, ch, &b, 0, &h->hd_reply, &chained);
	if (rc) {
		svc_rdma_buf_hold(c, &b);
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
 * Post the Reply's Send, its chain's Writes in front (ch NULL or empty:
 * none), With Invalidate when pre says so, now or parked (no context or
 * room free: reply_park).  The chain is released here, queued on the
 * Send, or parked with it; svc_sendreply()'s results are copied
 * (reply_own).  0 posted, 1 parked, or the connection's failure.
 */
static int reply_post(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
		      const void *hdr, size_t hdrlen,
		      const struct rpcrdma_xdr_buf *body,
		      struct reply_chain *ch, struct rpcrdma_send_pre *pre)
{
	struct rpcrdma_xprt *x = &c->cn_x;
	const struct rpcrdma_release *rel;
	struct rpcrdma_release chain_rel = { 0, chain_release, NULL };
	struct timespec deadline;
	uint64_t seq = 0, bytes;
	int rc = 0, queued = 0, reaped = 0;

	rel = ct->ct_rel.rl_fn ? &ct->ct_rel : NULL;
	/* svc_sendreply(): nothing of the program's gathered (reply_own). */
	if (!rel)
		reply_own(c, hdrlen, body, &ch, pre);
	if (ch && ch->rc_n) {
		pre->sp_local = ch->rc_local;
		pre->sp_remote = ch->rc_remote;
		pre->sp_nwrites = ch->rc_n;
		/* A Write that fails completes into the slot's chain
		 * context, as one of a Read/Write chain's would. */
		c->cn_rw[ct->ct_slot].rw_member.cq_kind = RPCRDMA_CQE_RW_MEMBER;
		pre->sp_member = &c->cn_rw[ct->ct_slot].rw_member;
	}
	/* The results were copied into the chain's buffers: the program's
	 * release needs no wait for this Send. */
	if (ch && (ch->rc_n || ch->rc_body.sb_mem)) {
		chain_rel.rl_arg = ch;
		rel = &chain_rel;
	} else {
		free(ch);
		ch = NULL;
	}
	/* Behind Replies parked already, in order. */
	if (svc_rdma_park_busy(&c->cn_park))
		return reply_park(c, hdr, hdrlen, body, ch, pre, true);
again:
	if (ch && ch->rc_n) {
		rc = rpcrdma_rw_reserve(x, ch->rc_n, &reply_now);
		if (rc == -ETIMEDOUT)
			goto full;
		if (rc) {
			/* Nothing posted: b goes back at once. */
			chain_release(ch, rc);
			return rc;
		}
		ch->rc_room = ch->rc_n;
	}
	/* Once queued, the chain is the reaper's (it may be freed at once). */
	bytes = ch ? ch->rc_bytes : 0;
	rc = rpcrdma_xprt_send_chain(x, hdr, hdrlen, body, &reply_now, rel,
				     pre, &seq,
				     ch ? &queued : &ct->ct_rel_queued);
	if (rc == -ETIMEDOUT) {
		/* No send context free now: nothing was posted. */
		if (ch && ch->rc_room) {
			rpcrdma_rw_unreserve(x, ch->rc_room);
			ch->rc_room = 0;
		}
		goto full;
	}
	/* The one wait left: a release queue full (counted).  Torn down if
	 * it stalls; a chain's Writes may then still land. */
	svc_rdma_stall_deadline(c, bytes, &deadline);
	if (!rc && rpcrdma_xprt_wait_send(x, seq, &deadline) == -ETIMEDOUT) {
		svc_rdma_conn_stalled(c, ch && ch->rc_n ?
					 "a Reply's RDMA Writes" :
					 "a Reply's Send");
		if (ch)
			rc = -ETIMEDOUT;
	}
	if (ch && !queued) {
		if (rc && seq)
			chain_hold(ch);		/* posted, perhaps in part */
		else if (rc)
			chain_release(ch, rc);	/* nothing was posted */
		else
			chain_release(ch, 0);	/* its Send completed */
	}
	return rc;

full:
	/* Completions not yet reaped may free what it needs: look once. */
	if (!reaped++ && svc_rdma_conn_reap(c) > 0)
		goto again;
	return reply_park(c, hdr, hdrlen, body, ch, pre, true);
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
	struct reply_chain *ch = NULL;
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
	rc = src_encode(src, &xb, c->cn_scratch +
			(size_t)ct->ct_slot * x->rx_opts.ro_inline_send,
			x->rx_opts.ro_inline_send, x->rx_opts.ro_page_threshold);
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
		ch = chain_new(c);
	switch (v) {
	case SVC_RDMA_REPLY_INLINE:
		rc = 0;
		break;
	case SVC_RDMA_REPLY_DIRECT:
		rc = reply_write_chunks(c, ct, &wp, &b, &h, ch);
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
		rc = reply_post(c, ct, hdr, (size_t)n, body, ch, &pre);
		/* Parked: rs_replies counts it when it goes (svc_park.c). */
		parked = rc == 1;
		if (parked)
			rc = 0;
	} else if (ch) {
		/* Nothing posted: a chained buffer goes back. */
		svc_rdma_buf_put(c, &ch->rc_buf);
		free(ch);
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
