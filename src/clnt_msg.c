/*
 * The RPC message of an RDMA call: the Call encoded into the slot's
 * scratch (or, when it does not fit, whole into a spill buffer), the
 * Reply decoded from its receive buffer or Reply chunk, and what Replies
 * teach about offering Reply chunks.
 */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clnt_rdma.h"
#include "rchunks.h"


/*
 * RPC call header, credentials, then the arguments, into an XDR buffer
 * over @buf: opaques of at least @threshold bytes referenced in place
 * (0: none), the rest copied.
 */
int cr_encode_call(struct clnt_rdma *cr, struct rpcrdma_req *rq, AUTH *auth,
		       rpcproc_t proc, xdrproc_t xargs, void *argsp,
		       char *buf, uint32_t len, uint32_t threshold,
		       struct rpcrdma_xdr_buf *xb)
{
	XDR xdrs;
	uint32_t call = CALL, rpcvers = RPC_MSG_VERSION;
	uint32_t prog = (uint32_t)cr->cr_prog, vers = (uint32_t)cr->cr_vers;
	uint32_t p = (uint32_t)proc, xid = rq->rq_xid;
	int32_t *ip;
	int ok;

	rpcrdma_xdrbuf_init(xb, buf, len, threshold);
	rpcrdma_xdrbuf_create(&xdrs, xb);
	/* Why: six x_putlong calls, each through the ops table with its own
	 * room check, where the empty scratch takes the six words at once
	 * (word by word remains for a scratch too small). */
	ip = XDR_INLINE(&xdrs, 6 * BYTES_PER_XDR_UNIT);
	if (ip) {
		IXDR_PUT_U_INT32(ip, xid);
		IXDR_PUT_U_INT32(ip, call);
		IXDR_PUT_U_INT32(ip, rpcvers);
		IXDR_PUT_U_INT32(ip, prog);
		IXDR_PUT_U_INT32(ip, vers);
		IXDR_PUT_U_INT32(ip, p);
		ok = 1;
	} else {
		ok = xdr_u_int32_t(&xdrs, &xid) &&
		     xdr_u_int32_t(&xdrs, &call) &&
		     xdr_u_int32_t(&xdrs, &rpcvers) &&
		     xdr_u_int32_t(&xdrs, &prog) &&
		     xdr_u_int32_t(&xdrs, &vers) && xdr_u_int32_t(&xdrs, &p);
	}
	ok = ok && AUTH_MARSHALL(auth, &xdrs);
	/* RPCSEC_GSS integrity or privacy: the arguments are one opaque the
	 * GSS layer checksums or seals over contiguous bytes, and nothing of
	 * them may be placed by RDMA, so every byte is copied (the header,
	 * all copied so far, says). */
	if (ok && xb->xb_nsegs == 1 &&
	    rpcrdma_call_wraps_body(buf, rpcrdma_xdrbuf_len(xb)))
		xb->xb_threshold = 0;
	ok = ok && AUTH_WRAP(auth, &xdrs, xargs, argsp);
	XDR_DESTROY(&xdrs);
	/* Full: a step whose failure the encoder ignored ran out of room. */
	if (ok && !rpcrdma_xdrbuf_full(xb))
		return 0;
	/* Only a buffer that ran out is worth growing (cr_encode_spilled). */
	return rpcrdma_xdrbuf_full(xb) ? -EMSGSIZE : -EINVAL;
}

/* Spill buffers kept by a slot between calls; larger ones are freed. */
#define RPCRDMA_SPILL_KEEP	(64u << 10)

/*
 * The arguments did not fit the slot's scratch (copied, non-opaque data
 * beyond ro_inline_send, or more pieces than one XDR buffer tracks):
 * encode the whole Call copied into a buffer of the slot's own, grown
 * up to RPCRDMA_SPILL_MAX; it then goes inline if it fits, else as a
 * long Call.  Slow, rare, counted.  -EMSGSIZE when even that is short,
 * -EINVAL when the arguments cannot be encoded at all, -ENOMEM.
 */
int cr_encode_spilled(struct clnt_rdma *cr, struct rpcrdma_req *rq,
			  AUTH *auth, rpcproc_t proc, xdrproc_t xargs, void *argsp,
			  struct rpcrdma_xdr_buf *xb)
{
	uint32_t len = rq->rq_spill_len ? rq->rq_spill_len : RPCRDMA_SPILL_KEEP;

	for (;;) {
		if (len > rq->rq_spill_len) {
			char *p = realloc(rq->rq_spill, len);

			if (!p)
				return -ENOMEM;
			rq->rq_spill = p;
			rq->rq_spill_len = len;
		}
		int rc = cr_encode_call(cr, rq, auth, proc, xargs, argsp,
					rq->rq_spill, len, 0, xb);

		if (!rc) {
			pthread_mutex_lock(&cr->cr_x.rx_lock);
			cr->cr_x.rx_stats.rs_spilled_calls++;
			pthread_mutex_unlock(&cr->cr_x.rx_lock);
			return 0;
		}
		if (rc != -EMSGSIZE)
			return rc;
		if (len >= RPCRDMA_SPILL_MAX)
			return -EMSGSIZE;
		len = len * 4 > RPCRDMA_SPILL_MAX ? RPCRDMA_SPILL_MAX : len * 4;
	}
}

/*
 * A call that ends before any Send of it is still a call the program
 * made: counted in rs_calls (and rs_calls_refused), so that the counters
 * and the program agree.  Lock not held.
 */
enum clnt_stat cr_refuse(struct clnt_rdma *cr, enum clnt_stat st, int err)
{
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	cr->cr_x.rx_stats.rs_calls++;
	cr->cr_x.rx_stats.rs_calls_refused++;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return cr_set_err(cr, st, err);
}

/* Log a limit once per procedure and handle (clnt_sperror cannot say it). */
static bool first_warning(struct clnt_rdma *cr, rpcproc_t proc)
{
	uint8_t *w = &cr->cr_limit_warned[proc < RPCRDMA_MAX_HINTS ?
					   proc : RPCRDMA_MAX_HINTS];

	return cr->cr_x.rx_opts.ro_log_level >= RPCRDMA_LOG_WARNING &&
	       !__atomic_exchange_n(w, 1, __ATOMIC_RELAXED);
}

/*
 * The Call (@len bytes encoded) is larger than this transport can carry:
 * copied data past RPCRDMA_SPILL_MAX, or more than any chunk can hold.
 * RPC_CANTSEND/EMSGSIZE, as libtirpc's UDP says of a datagram too large.
 */
enum clnt_stat cr_call_too_large(struct clnt_rdma *cr, rpcproc_t proc,
				 size_t len)
{
	if (first_warning(cr, proc))
		fprintf(stderr, "rpcrdma: program %lu version %lu procedure %lu: "
			"Call of %zu bytes or more not sent: larger than a Call "
			"over RDMA may be (%u bytes copied, or what the server's "
			"max_chunk_bytes allows)\n",
			(unsigned long)cr->cr_prog, (unsigned long)cr->cr_vers,
			(unsigned long)proc, len, RPCRDMA_SPILL_MAX);
	return cr_refuse(cr, RPC_CANTSEND, -EMSGSIZE);
}

static uint32_t chunk_bytes(const struct rpcrdma_chunk *c)
{
	uint32_t i, n = 0;

	for (i = 0; i < c->rc_nsegs; i++)
		n += c->rc_segs[i].se_length;
	return n;
}

/*
 * The server answered ERR_CHUNK.  RFC 8166 has no finer code, so which
 * message was too large is inferred: a Call sent inline, or one within
 * the chunk bytes a server takes by default (RPCRDMA_SVC_CHUNK_BYTES),
 * was refused for its Reply: larger than the Reply chunk offered (or
 * than inline, with none).  That is RPC_CANTRECV/EMSGSIZE, counted in
 * rs_reply_too_large, and a warning names what would allow it.
 * Otherwise the Call itself: RPC_CANTSEND/EMSGSIZE.
 */
enum clnt_stat cr_refused_chunk(struct clnt_rdma *cr, rpcproc_t proc,
				const struct rpcrdma_req *rq, size_t call_len)
{
	const struct rpcrdma_req_chunks *ch = &rq->rq_ch;
	uint32_t offered = ch->qc_has_reply ? chunk_bytes(&ch->qc_reply) : 0;
	bool warn;

	if (ch->qc_kind != RPCRDMA_CALL_INLINE &&
	    call_len > RPCRDMA_SVC_CHUNK_BYTES) {
		warn = first_warning(cr, proc);
		if (warn)
			fprintf(stderr, "rpcrdma: program %lu version %lu procedure "
				"%lu: the server refused a Call of %zu bytes "
				"(ERR_CHUNK): larger than its max_chunk_bytes\n",
				(unsigned long)cr->cr_prog,
				(unsigned long)cr->cr_vers, (unsigned long)proc,
				call_len);
		return cr_set_err(cr, RPC_CANTSEND, -EMSGSIZE);
	}
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	cr->cr_x.rx_stats.rs_reply_too_large++;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	if (first_warning(cr, proc)) {
		if (offered)
			fprintf(stderr, "rpcrdma: program %lu version %lu procedure "
				"%lu: the Reply is larger than the %u-byte Reply "
				"chunk offered (the server answered ERR_CHUNK; "
				"the procedure ran): raise max_reply "
				"(rpcrdma.conf(5)), or give the procedure its bound "
				"with clnt_control(RPCRDMA_CLSET_REPLY_HINT)\n",
				(unsigned long)cr->cr_prog,
				(unsigned long)cr->cr_vers, (unsigned long)proc,
				offered);
		else
			fprintf(stderr, "rpcrdma: program %lu version %lu procedure "
				"%lu: the Reply does not fit inline and no Reply "
				"chunk was offered (the server answered ERR_CHUNK; "
				"the procedure ran): set reply_chunks and max_reply "
				"(rpcrdma.conf(5)), or give the procedure its bound "
				"with clnt_control(RPCRDMA_CLSET_REPLY_HINT)\n",
				(unsigned long)cr->cr_prog,
				(unsigned long)cr->cr_vers, (unsigned long)proc);
	}
	return cr_set_err(cr, RPC_CANTRECV, -EMSGSIZE);
}

/* A call is over and nothing may read its spill buffer: trim it. */
void cr_trim_spill(struct rpcrdma_req *rq)
{
	if (rq->rq_spill_len <= RPCRDMA_SPILL_KEEP)
		return;
	free(rq->rq_spill);
	rq->rq_spill = NULL;
	rq->rq_spill_len = 0;
}

/*
 * The common Reply's header, accepted with SUCCESS and an empty verifier,
 * read in one piece into @msg: true.  Anything else rewinds for
 * xdr_replymsg.  Why: it walks a union and the verifier through x_getlong
 * word by word, about 400 of a NULL call's 6,000 instructions (callgrind).
 */
static bool get_reply_fast(XDR *xdrs, struct rpc_msg *msg)
{
	int32_t *ip = XDR_INLINE(xdrs, 6 * BYTES_PER_XDR_UNIT);

	if (ip && ntohl((uint32_t)ip[1]) == REPLY &&
	    ntohl((uint32_t)ip[2]) == MSG_ACCEPTED &&
	    ntohl((uint32_t)ip[4]) == 0 &&
	    ntohl((uint32_t)ip[5]) == SUCCESS) {
		msg->rm_xid = ntohl((uint32_t)ip[0]);
		msg->rm_direction = REPLY;
		msg->rm_reply.rp_stat = MSG_ACCEPTED;
		msg->acpted_rply.ar_verf.oa_flavor =
			(enum_t)ntohl((uint32_t)ip[3]);
		msg->acpted_rply.ar_verf.oa_length = 0;
		msg->acpted_rply.ar_stat = SUCCESS;
		return true;
	}
	if (ip)
		(void)XDR_SETPOS(xdrs, 0);
	return false;
}

/*
 * Decode the Reply into resp: its outcome, also in *e for clnt_geterr(),
 * which the caller records when it gives the slot back (one lock hold
 * less per call).  Lock not held.
 */
enum clnt_stat cr_decode_reply(struct rpcrdma_req *rq, AUTH *auth,
			       xdrproc_t xres, void *resp, struct rpc_err *e)
{
	struct rpcrdma_req_chunks *ch = &rq->rq_ch;
	struct rpcrdma_rep *rep = rq->rq_rep;
	struct rpcrdma_xdr_dec xd;
	struct rpc_msg msg;
	XDR xdrs;
	enum clnt_stat st;

	/* RDMA_NOMSG: the whole Reply was written into our Reply chunk. */
	if (ch->qc_nomsg)
		rpcrdma_xdrdec_create(&xdrs, &xd, ch->qc_reply_buf,
				      ch->qc_reply_len,
				      ch->qc_has_write ? &ch->qc_ddp : NULL);
	else
		rpcrdma_xdrdec_create(&xdrs, &xd, rep->rr_buf + rq->rq_off,
				      (uint32_t)(rep->rr_len - rq->rq_off),
				      ch->qc_has_write ? &ch->qc_ddp : NULL);
	memset(&msg, 0, sizeof(msg));
	msg.acpted_rply.ar_verf = _null_auth;
	msg.acpted_rply.ar_results.where = NULL;
	msg.acpted_rply.ar_results.proc = (xdrproc_t)(void (*)(void))xdr_void;
	if (!get_reply_fast(&xdrs, &msg) && !xdr_replymsg(&xdrs, &msg)) {
		XDR_DESTROY(&xdrs);
		return cr_fill_err(e, RPC_CANTDECODERES, EBADMSG);
	}
	_seterr_reply(&msg, e);
	st = e->re_status;
	if (st == RPC_SUCCESS) {
		if (!AUTH_VALIDATE(auth, &msg.acpted_rply.ar_verf))
			st = cr_fill_err(e, RPC_AUTHERROR, 0);
		else if (!AUTH_UNWRAP(auth, &xdrs, xres, resp) ||
			 rpcrdma_xdrdec_finish(&xd))
			st = cr_fill_err(e, RPC_CANTDECODERES, EBADMSG);
	} else if (AUTH_REFRESH(auth, &msg)) {
		/* Fresh credentials would need a resend; report as is. */
	}
	if (msg.acpted_rply.ar_verf.oa_base) {
		xdrs.x_op = XDR_FREE;
		xdr_opaque_auth(&xdrs, &msg.acpted_rply.ar_verf);
	}
	XDR_DESTROY(&xdrs);
	return st;
}

static uint8_t *seen_of(struct clnt_rdma *cr, rpcproc_t proc, bool ddp)
{
	return &cr->cr_seen[ddp][proc < RPCRDMA_MAX_HINTS ? proc : RPCRDMA_MAX_HINTS];
}

/* An accepted Reply with void results: 6 words and a verifier body. */
#define RPCRDMA_VOID_REPLY_MAX (6 * 4 + MAX_AUTH_BYTES)

static bool void_results(xdrproc_t xres)
{
	return xres == (xdrproc_t)(void (*)(void))xdr_void;
}

static uint32_t hint_of(const struct clnt_rdma *cr, rpcproc_t proc)
{
	return proc < RPCRDMA_MAX_HINTS ? cr->cr_hints[proc] : 0;
}

/* Whether this call's Reply chunk is left to what Replies taught. */
static bool learned(const struct clnt_rdma *cr, rpcproc_t proc, xdrproc_t xres)
{
	return cr->cr_x.rx_opts.ro_reply_chunks == RPCRDMA_REPLY_CHUNK_AUTO &&
	       !void_results(xres) && !hint_of(cr, proc);
}

/*
 * The bound on this call's Reply: void results surely fit inline (an
 * accepted reply header and a verifier); else the procedure's hint, if
 * the program gave one; else, under auto, what earlier Replies of the
 * procedure taught (rpcrdma_offer_unknown): "fits inline" once they
 * came inline.  0: unknown, ro_max_reply decides.
 */
uint32_t cr_reply_bound(struct clnt_rdma *cr, rpcproc_t proc,
			    xdrproc_t xres, bool ddp)
{
	enum rpcrdma_reply_seen seen;

	if (void_results(xres))
		return RPCRDMA_VOID_REPLY_MAX;
	if (!learned(cr, proc, xres))
		return hint_of(cr, proc);
	seen = (enum rpcrdma_reply_seen)__atomic_load_n(seen_of(cr, proc, ddp),
							__ATOMIC_RELAXED);
	return rpcrdma_offer_unknown(seen) ?
	       0 : RPCRDMA_VOID_REPLY_MAX;
}

/*
 * Learn from this call's outcome (auto, no hint): a Reply that came in
 * the Reply chunk, or ERR_CHUNK to a call that offered none, marks the
 * procedure for good; an inline Reply to an offer stops the probing.
 * Returns true when the call should go again with a Reply chunk.
 */
bool cr_reply_learn(struct clnt_rdma *cr, rpcproc_t proc,
			xdrproc_t xres, const struct rpcrdma_req *rq)
{
	const struct rpcrdma_req_chunks *ch = &rq->rq_ch;
	bool refused = rq->rq_state == RQ_FAILED && rq->rq_refused_chunk &&
		       !ch->qc_has_reply;
	uint8_t *seen = seen_of(cr, proc, ch->qc_has_write);
	enum rpcrdma_reply_seen was, now;

	if (!learned(cr, proc, xres) || !cr->cr_x.rx_opts.ro_max_reply)
		return false;
	if (rq->rq_state != RQ_REPLIED && !refused)
		return false;
	was = (enum rpcrdma_reply_seen)__atomic_load_n(seen, __ATOMIC_RELAXED);
	now = rpcrdma_reply_learn(was, ch->qc_has_reply,
				  rq->rq_state == RQ_REPLIED && ch->qc_nomsg,
				  refused);
	if (now != was)
		__atomic_store_n(seen, (uint8_t)now, __ATOMIC_RELAXED);
	return refused;
}
