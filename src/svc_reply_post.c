/*
 * Posting a decided Reply: its chunks' RDMA Writes chained in front of its
 * Send (one post, no wait; more than one post holds go ahead of it),
 * svc_sendreply()'s results copied so that no Send of theirs is waited
 * for, and a Reply or RDMA_ERROR that finds no send context or Write room
 * parked (svc_park.c); a stalled peer torn down.
 */
#include "config.h"
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "svc_reply_post.h"
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
 * past its grant.  A Reply with more Writes than go in front of one Send
 * posts the first ahead of it (rpcrdma_rw_ahead), parked until they have
 * all gone.  What may still wait, up to svc_stall_ms (default 1 s,
 * svc_rdma_stall_deadline, plus its Writes' bytes at 4 MiB/s: a large
 * transfer is not a stall), is a Send whose release queue is full (twice
 * the send contexts, counted in rs_reply_waits_for_send): past it the
 * connection is torn down and its address refused for 30 times as long
 * (svc_rdma_peer_stalled), the last resort.
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

/* A chain; with no send-queue room for Writes, one that holds none
 * (rc_max 0: only a Reply's copy, reply_own). */
struct svc_rdma_chain *svc_rdma_chain_new(struct svc_rdma_conn *c)
{
	struct svc_rdma_chain *rc;

	rc = calloc(1, sizeof(*rc));
	if (rc) {
		rc->rc_conn = c;
		rc->rc_max = c->cn_x.rx_ep.re_rw_slots ?
			     SVC_RDMA_REPLY_WRITES_MAX : 0;
	}
	return rc;
}

int svc_rdma_chain_writes(struct svc_rdma_chain *rc,
			  const struct svc_rdma_buf *b, uint64_t off,
			  const struct rpcrdma_chunk *written, int *chained)
{
	unsigned int before;

	if (!rc)
		return -ENOMEM;
	before = rc->rc_n;
	/* A Reply fills its Write chunks or its Reply chunk, each at most
	 * RPCRDMA_MAX_CHUNK_SEGS: SVC_RDMA_REPLY_WRITES_MAX holds them. */
	if (svc_rdma_chunk_writes(b, off, written, rc->rc_local, rc->rc_remote,
				  &rc->rc_n, rc->rc_max, &rc->rc_bytes))
		return -EINVAL;
	*chained |= rc->rc_n > before;
	return 0;
}

void svc_rdma_chain_drop(struct svc_rdma_conn *c, struct svc_rdma_chain *rc)
{
	svc_rdma_buf_put(c, &rc->rc_buf);
	free(rc);
}

static void chain_hold(struct svc_rdma_chain *rc);

/* The chain's Send completed (status 0), or its QP is gone, or nothing
 * was posted: b and the room go back.  -EINPROGRESS (a parked Reply
 * posted in part, svc_park.h): they stay until the QP goes.  Runs once,
 * from the release queue, reply_send or the parked queue. */
static void chain_release(void *arg, int status)
{
	struct svc_rdma_chain *rc = arg;

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
static void chain_hold(struct svc_rdma_chain *rc)
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
			   struct svc_rdma_chain **chp, struct rpcrdma_send_pre *pre)
{
	size_t len = rpcrdma_xdrbuf_len(body);
	struct svc_rdma_chain *own = *chp;
	int err;

	if (!own && !(own = svc_rdma_chain_new(c)))
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
		     struct svc_rdma_chain **chp, struct rpcrdma_send_pre *pre)
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

/* The Writes one post in front of a Send holds: the post's own limit, or
 * the connection's room for Writes if less (rpcrdma_rw_reserve). */
static unsigned int reply_front_max(const struct rpcrdma_xprt *x)
{
	return x->rx_ep.re_rw_slots < RPCRDMA_SEND_PRE_MAX ?
	       x->rx_ep.re_rw_slots : RPCRDMA_SEND_PRE_MAX;
}

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
		      struct svc_rdma_chain *ch, struct rpcrdma_send_pre *pre,
		      const struct svc_rdma_ahead *ahead, bool reply)
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
					 pre, ahead, ch ? &owner : NULL, reply);
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
		reply_park(c, hdr, (size_t)n, &empty, NULL, &pre, NULL, false);
	pthread_mutex_lock(&x->rx_lock);
	x->rx_stats.rs_bad_calls++;
	pthread_mutex_unlock(&x->rx_lock);
	RPCRDMA_PROBE3(svc_err_send, x, xid, err);
}

/*
 * Post the Reply's Send, its chain's Writes in front (ch NULL or empty:
 * none), With Invalidate when pre says so, now or parked (no context or
 * room free: reply_park).  The chain is released here, queued on the
 * Send, or parked with it; svc_sendreply()'s results are copied
 * (reply_own).  0 posted, 1 parked, or the connection's failure.
 */
int svc_rdma_reply_post(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
		      const void *hdr, size_t hdrlen,
		      const struct rpcrdma_xdr_buf *body,
		      struct svc_rdma_chain *ch, struct rpcrdma_send_pre *pre)
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
	/* More Writes than go in front of one Send: the first go ahead of
	 * it, chain by chain as room comes (svc_park.c), never waited for. */
	if (ch && ch->rc_n > reply_front_max(x)) {
		struct svc_rdma_ahead ahead = {
			.ah_local = ch->rc_local,
			.ah_remote = ch->rc_remote,
			.ah_n = ch->rc_n - reply_front_max(x),
		};

		pre->sp_local = ch->rc_local + ahead.ah_n;
		pre->sp_remote = ch->rc_remote + ahead.ah_n;
		pre->sp_nwrites = reply_front_max(x);
		return reply_park(c, hdr, hdrlen, body, ch, pre, &ahead, true);
	}
	/* Behind Replies parked already, in order. */
	if (svc_rdma_park_busy(&c->cn_park))
		return reply_park(c, hdr, hdrlen, body, ch, pre, NULL, true);
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
	return reply_park(c, hdr, hdrlen, body, ch, pre, NULL, true);
}

