/*
 * Client chunk marshalling (RFC 8166 section 3.5): the planner decides
 * which bytes go as Read chunks and whether a Reply chunk is offered;
 * here each chunk gets its per-RPC registration and its place in the
 * transport header, and a Reply's returned chunks are held to the offer
 * (never more than offered, only our handles, the length the Responder
 * returned is the length decoded).
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "clnt_chunks.h"

static void qc_reset(struct rpcrdma_req_chunks *qc)
{
	rpcrdma_regset_init(&qc->qc_regs);
	qc->qc_mw_bound = false;
	qc->qc_has_write = false;
	qc->qc_has_reply = false;
	qc->qc_rb = NULL;
	qc->qc_kind = RPCRDMA_CALL_INLINE;
	qc->qc_read_bytes = 0;
	qc->qc_nregs = 0;
	qc->qc_nomsg = false;
	qc->qc_reply_len = 0;
	qc->qc_ddp.dt_written = 0;
}

static int add_reg(struct rpcrdma_xprt *x, struct rpcrdma_req_chunks *qc,
		   const void *addr, uint32_t len, int remote_write, int caller,
		   struct rpcrdma_segment *seg)
{
	int err = rpcrdma_regset_add(&qc->qc_regs, &x->rx_ep, addr, len,
				     remote_write, caller, seg);

	if (!err)
		qc->qc_nregs++;
	return err;
}

/* Registrations for the read list, in plan order, into @h. */
static int marshal_reads(struct rpcrdma_xprt *x, struct rpcrdma_req_chunks *qc,
			 const struct rpcrdma_call_plan *pl,
			 struct rpcrdma_hdr *h)
{
	unsigned int i;
	int err;

	for (i = 0; i < pl->cp_nrsegs; i++) {
		const struct rpcrdma_rseg_plan *rp = &pl->cp_rsegs[i];
		struct rpcrdma_read_segment *rs = &h->hd_reads[h->hd_nreads];

		err = add_reg(x, qc, rp->rp_addr, rp->rp_len, 0,
			      rp->rp_src == RPCRDMA_RS_CALLER, &rs->rd_seg);
		if (err)
			return err;
		rs->rd_position = rp->rp_position;
		h->hd_nreads++;
		qc->qc_read_bytes += rp->rp_len;
	}
	return 0;
}

int rpcrdma_clnt_mw_setup(struct rpcrdma_xprt *x, struct rpcrdma_req_chunks *qc)
{
	int err = rpcrdma_mw_init(&x->rx_ep, &qc->qc_mw, qc->qc_reply_buf,
				  qc->qc_reply_cap);

	qc->qc_mw_ready = !err;
	qc->qc_mw_gen = x->rx_conn_gen;
	/* Its base registration stays until the connection goes: counted
	 * apart from the rings (callers marshal without the lock). */
	if (!err)
		__atomic_fetch_add(&x->rx_stats.rs_window_pinned,
				   (uint64_t)qc->qc_reply_cap, __ATOMIC_RELAXED);
	return err;
}

void rpcrdma_clnt_mw_fini(struct rpcrdma_xprt *x, struct rpcrdma_req_chunks *qc)
{
	if (qc->qc_mw_ready) {
		rpcrdma_mw_fini(&qc->qc_mw);
		__atomic_fetch_sub(&x->rx_stats.rs_window_pinned,
				   (uint64_t)qc->qc_reply_cap, __ATOMIC_RELAXED);
	}
	qc->qc_mw_ready = false;
}

/*
 * The Reply chunk over the slot's buffer: a window bound for this RPC
 * (a work request ordered before the Send, so it is valid when the peer
 * learns the rkey), or a per-RPC MR where windows are not available.
 */
static int marshal_reply(struct rpcrdma_xprt *x, struct rpcrdma_req_chunks *qc,
			 uint32_t len)
{
	struct rpcrdma_segment *seg = &qc->qc_reply.rc_segs[0];

	qc->qc_reply.rc_nsegs = 1;
	/* A reconnection freed the windows with their QP (drop_windows):
	 * the slot binds a new one on this connection. */
	if (qc->qc_mw_allowed && !qc->qc_mw_ready) {
		qc->qc_mw_allowed = !rpcrdma_clnt_mw_setup(x, qc);
		RPCRDMA_DBG("client: slot's Reply chunks via %s",
			    qc->qc_mw_allowed ? "a memory window" : "per-RPC MRs");
	}
	/* Windows work here, but this slot is past reply_windows. */
	if (!qc->qc_mw_allowed &&
	    __atomic_load_n(&x->rx_stats.rs_window_pinned, __ATOMIC_RELAXED))
		__atomic_fetch_add(&x->rx_stats.rs_window_fallbacks, 1,
				   __ATOMIC_RELAXED);
	if (!qc->qc_mw_ready || qc->qc_mw.mw_bound)
		return add_reg(x, qc, qc->qc_reply_buf, len, 1, 0, seg);
	if (rpcrdma_mw_bind(&x->rx_ep, &qc->qc_mw, qc->qc_reply_buf, len))
		return -ENOMEM;
	qc->qc_mw_bound = true;
	qc->qc_nregs++;
	RPCRDMA_DBG("client: window %p bound, rkey %#x", (void *)&qc->qc_mw,
		    qc->qc_mw.mw_rkey);
	seg->se_handle = qc->qc_mw.mw_rkey;
	seg->se_length = len;
	seg->se_offset = (uint64_t)(uintptr_t)qc->qc_reply_buf;
	return 0;
}

/* One-segment chunk over [addr, addr+len), remote write only. */
static int marshal_chunk(struct rpcrdma_xprt *x, struct rpcrdma_req_chunks *qc,
			 void *addr, uint32_t len, int caller,
			 struct rpcrdma_chunk *ch)
{
	ch->rc_nsegs = 1;
	return add_reg(x, qc, addr, len, 1, caller, &ch->rc_segs[0]);
}

int rpcrdma_clnt_marshal(struct rpcrdma_xprt *x, struct rpcrdma_req_chunks *qc,
			 uint32_t xid, const struct rpcrdma_xdr_buf *xb,
			 uint32_t max_reply, struct rpcrdma_result_buf *rb,
			 struct rpcrdma_xdr_buf *send)
{
	enum rpcrdma_call_force cforce =
		(enum rpcrdma_call_force)x->rx_opts.ro_call_chunks;
	enum rpcrdma_reply_force rforce =
		(enum rpcrdma_reply_force)x->rx_opts.ro_reply_chunks;
	struct rpcrdma_call_limits cl;
	struct rpcrdma_call_plan plan;
	struct rpcrdma_hdr h;
	uint32_t reply_len;
	ssize_t n;
	int err;

	qc_reset(qc);
	if (rb && (!rb->rb_addr || !rb->rb_len || rb->rb_len > UINT32_MAX))
		return -EINVAL;
	reply_len = rpcrdma_plan_reply(max_reply, x->rx_opts.ro_max_reply,
				       x->rx_recv_max, rforce);
	if (reply_len > qc->qc_reply_cap)
		reply_len = qc->qc_reply_cap;
	cl.cl_hdr_base = RPCRDMA_HDRLEN_MIN +
			 (rb ? rpcrdma_write_chunk_size(1) : 0) +
			 (reply_len ? rpcrdma_reply_chunk_size(1) : 0);
	cl.cl_peer_inline = rpcrdma_xprt_plan_max(x, xb, cl.cl_hdr_base);
	cl.cl_max_rsegs = RPCRDMA_MAX_READ_SEGS;
	cl.cl_max_call = 0;
	/* Chunks for the Call; a Reply chunk offered only because the
	 * Reply's bound is unknown may be dropped (chunks.h). */
	err = rpcrdma_plan_call_reply(xb, &cl, cforce, rforce, !max_reply,
				      &reply_len, &plan);
	if (err)
		return err;

	rpcrdma_hdr_clear(&h);
	h.hd_xid = xid;
	h.hd_credits = x->rx_opts.ro_max_requests;
	h.hd_proc = plan.cp_kind == RPCRDMA_CALL_LONGCH ? RPCRDMA_NOMSG :
							  RPCRDMA_MSG;
	qc->qc_kind = plan.cp_kind;
	err = marshal_reads(x, qc, &plan, &h);
	if (!err && rb) {
		err = marshal_chunk(x, qc, rb->rb_addr, (uint32_t)rb->rb_len, 1,
				    &qc->qc_write);
		if (!err) {
			qc->qc_has_write = true;
			qc->qc_rb = rb;
			qc->qc_ddp.dt_addr = rb->rb_addr;
			qc->qc_ddp.dt_cap = (uint32_t)rb->rb_len;
			h.hd_writes[0] = qc->qc_write;
			h.hd_nwrites = 1;
		}
	}
	if (!err && reply_len) {
		err = marshal_reply(x, qc, reply_len);
		if (!err) {
			qc->qc_has_reply = true;
			h.hd_has_reply = true;
			h.hd_reply = qc->qc_reply;
		}
	}
	if (err) {
		rpcrdma_clnt_release(x, qc, 0, true);
		return err;
	}
	n = rpcrdma_hdr_encode(qc->qc_hdr, sizeof(qc->qc_hdr), &h);
	if (n < 0) {
		rpcrdma_clnt_release(x, qc, 0, true);
		return (int)n;
	}
	qc->qc_hdrlen = (uint32_t)n;
	*send = plan.cp_inline;
	return 0;
}

void rpcrdma_clnt_count_call(const struct rpcrdma_req_chunks *qc,
			     struct rpcrdma_stats *st)
{
	switch (qc->qc_kind) {
	case RPCRDMA_CALL_READCH:
		st->rs_read_chunk_calls++;
		st->rs_read_chunk_bytes += qc->qc_read_bytes;
		break;
	case RPCRDMA_CALL_LONGCH:
		st->rs_long_calls++;
		st->rs_long_call_bytes += qc->qc_read_bytes;
		break;
	default:
		break;
	}
	st->rs_write_chunks += qc->qc_has_write;
	st->rs_reply_chunks += qc->qc_has_reply;
	st->rs_chunk_regs += qc->qc_nregs;
}

/* A returned chunk's bytes, held to what we offered; -EBADMSG if not. */
static int returned_len(const struct rpcrdma_chunk *offered,
			const struct rpcrdma_chunk *returned, uint32_t *len)
{
	uint64_t total;

	if (rpcrdma_chunk_returned(offered, returned, &total) ||
	    total > UINT32_MAX)
		return -EBADMSG;
	*len = (uint32_t)total;
	return 0;
}

int rpcrdma_clnt_check_reply(struct rpcrdma_req_chunks *qc,
			     const struct rpcrdma_hdr *h,
			     struct rpcrdma_stats *st)
{
	qc->qc_nomsg = h->hd_proc == RPCRDMA_NOMSG;
	qc->qc_reply_len = 0;
	qc->qc_ddp.dt_written = 0;
	/* A Reply carries no read list; only chunks we offered come back. */
	if (h->hd_nreads || h->hd_nwrites > (qc->qc_has_write ? 1u : 0u) ||
	    (h->hd_has_reply && !qc->qc_has_reply) ||
	    (qc->qc_nomsg && !h->hd_has_reply))
		goto bad;
	if (h->hd_nwrites &&
	    returned_len(&qc->qc_write, &h->hd_writes[0], &qc->qc_ddp.dt_written))
		goto bad;
	if (h->hd_has_reply &&
	    returned_len(&qc->qc_reply, &h->hd_reply, &qc->qc_reply_len))
		goto bad;
	if (qc->qc_nomsg) {
		st->rs_reply_chunk_replies++;
		st->rs_reply_chunk_bytes += qc->qc_reply_len;
	}
	if (qc->qc_has_write) {
		st->rs_write_chunk_bytes += qc->qc_ddp.dt_written;
		st->rs_write_chunks_unused += !qc->qc_ddp.dt_written;
	}
	return 0;
bad:
	st->rs_bad_chunks++;
	return -EBADMSG;
}

int rpcrdma_clnt_remote_inv(struct rpcrdma_req_chunks *qc, uint32_t rkey)
{
	unsigned int i;

	if (qc->qc_mw_bound && qc->qc_mw.mw_rkey == rkey) {
		qc->qc_mw_bound = false;
		qc->qc_mw.mw_bound = 0;
		RPCRDMA_DBG("client: window %p invalidated by the server, "
			    "rkey %#x", (void *)&qc->qc_mw, rkey);
		return 2;
	}
	for (i = 0; i < qc->qc_regs.rg_n; i++)
		if (rpcrdma_mr_rkey(qc->qc_regs.rg_mr[i]) == rkey)
			return 1;
	return 0;
}

/*
 * A window is invalidated by a work request: posted here, executed before
 * anything posted later on the QP (the slot's next bind included).
 */
unsigned int rpcrdma_clnt_release(struct rpcrdma_xprt *x,
				  struct rpcrdma_req_chunks *qc, int caller_only,
				  bool can_post)
{
	unsigned int n = 0;

	if (!caller_only && qc->qc_mw_bound) {
		qc->qc_mw_bound = false;
		if (!can_post || qc->qc_mw_gen != x->rx_conn_gen) {
			qc->qc_mw.mw_bound = 0;
			n++;
		} else if (!rpcrdma_mw_invalidate(&x->rx_ep, &qc->qc_mw)) {
			n++;
		}
		RPCRDMA_DBG("client: window %p invalidated, rkey %#x",
			    (void *)&qc->qc_mw, qc->qc_mw.mw_rkey);
	}
	if (qc->qc_regs.rg_n)
		n += rpcrdma_regset_release(&qc->qc_regs, caller_only);
	return n;
}
