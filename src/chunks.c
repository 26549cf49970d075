/*
 * The chunk planner: a Call's XDR segments become inline bytes, Read
 * chunks at their XDR positions, or one position-zero Read chunk; a
 * Reply chunk is sized; returned chunks are checked against what was
 * offered.  Decides only: the client registers and encodes what it says.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "chunks.h"

uint32_t rpcrdma_read_list_size(unsigned int n)
{
	return n * (4 + RPCRDMA_READ_SEGMENT_SIZE);
}

uint32_t rpcrdma_write_chunk_size(unsigned int nsegs)
{
	return 4 + 4 + nsegs * RPCRDMA_SEGMENT_SIZE;
}

uint32_t rpcrdma_reply_chunk_size(unsigned int nsegs)
{
	return 4 + nsegs * RPCRDMA_SEGMENT_SIZE;
}

static uint32_t xdr_roundup(uint32_t len)
{
	return (4 - (len & 3)) & 3;
}

/* Header plus Send payload, in 64 bits so nothing wraps past a limit. */
static bool fits_peer(const struct rpcrdma_call_limits *cl, uint32_t hdrlen,
		      uint64_t payload)
{
	return (uint64_t)hdrlen + payload <= cl->cl_peer_inline;
}

static void plan_inline(const struct rpcrdma_xdr_buf *xb,
			const struct rpcrdma_call_limits *cl,
			struct rpcrdma_call_plan *out)
{
	out->cp_kind = RPCRDMA_CALL_INLINE;
	out->cp_nrsegs = 0;
	out->cp_inline = *xb;
	out->cp_hdrlen = cl->cl_hdr_base;
}

/*
 * Read chunks: each referenced segment at the XDR position where its data
 * begins, counted in the full stream (earlier chunks and their roundup
 * included, so every position is a multiple of 4).  RFC 8166 3.4.5: the
 * roundup of a chunked item is neither in the chunk nor inline, so the
 * first bytes of the copied segment after a reference, which hold that
 * roundup (xdr_buf.c puts it there), are skipped.  -EMSGSIZE if more
 * references than segments we may advertise.
 */
static int plan_readch(const struct rpcrdma_xdr_buf *xb,
		       const struct rpcrdma_call_limits *cl,
		       struct rpcrdma_call_plan *out)
{
	struct rpcrdma_xdr_buf *in = &out->cp_inline;
	uint32_t pos = 0, skip = 0;
	unsigned int i;

	memset(in, 0, sizeof(*in));
	out->cp_kind = RPCRDMA_CALL_READCH;
	out->cp_nrsegs = 0;
	for (i = 0; i < xb->xb_nsegs; i++) {
		const struct rpcrdma_xdr_seg *s = &xb->xb_segs[i];
		struct rpcrdma_rseg_plan *rp;
		struct rpcrdma_xdr_seg *d;
		uint32_t cut;

		if (!s->xs_len)
			continue;
		if (s->xs_ref) {
			if (out->cp_nrsegs == cl->cl_max_rsegs ||
			    out->cp_nrsegs == RPCRDMA_CHUNK_MAX_RSEGS)
				return -EMSGSIZE;
			rp = &out->cp_rsegs[out->cp_nrsegs++];
			rp->rp_position = pos;
			rp->rp_addr = s->xs_base;
			rp->rp_len = s->xs_len;
			rp->rp_src = RPCRDMA_RS_CALLER;
			pos += s->xs_len;
			skip = xdr_roundup(s->xs_len);
			continue;
		}
		cut = skip < s->xs_len ? skip : s->xs_len;
		skip -= cut;
		pos += s->xs_len;
		if (cut == s->xs_len)
			continue;
		d = &in->xb_segs[in->xb_nsegs++];
		d->xs_base = s->xs_base + cut;
		d->xs_len = s->xs_len - cut;
		d->xs_ref = false;
		in->xb_len += d->xs_len;
	}
	out->cp_hdrlen = cl->cl_hdr_base + rpcrdma_read_list_size(out->cp_nrsegs);
	return 0;
}

/* Long Call: every segment, in stream order, all at position zero. */
static int plan_long(const struct rpcrdma_xdr_buf *xb,
		     const struct rpcrdma_call_limits *cl,
		     struct rpcrdma_call_plan *out)
{
	unsigned int i;

	memset(&out->cp_inline, 0, sizeof(out->cp_inline));
	out->cp_kind = RPCRDMA_CALL_LONGCH;
	out->cp_nrsegs = 0;
	for (i = 0; i < xb->xb_nsegs; i++) {
		const struct rpcrdma_xdr_seg *s = &xb->xb_segs[i];
		struct rpcrdma_rseg_plan *rp;

		if (!s->xs_len)
			continue;
		if (out->cp_nrsegs == cl->cl_max_rsegs ||
		    out->cp_nrsegs == RPCRDMA_CHUNK_MAX_RSEGS)
			return -EMSGSIZE;
		rp = &out->cp_rsegs[out->cp_nrsegs++];
		rp->rp_position = 0;
		rp->rp_addr = s->xs_base;
		rp->rp_len = s->xs_len;
		rp->rp_src = s->xs_ref ? RPCRDMA_RS_CALLER : RPCRDMA_RS_SCRATCH;
	}
	if (!out->cp_nrsegs)
		return -EMSGSIZE;	/* an empty Call cannot be a chunk */
	out->cp_hdrlen = cl->cl_hdr_base + rpcrdma_read_list_size(out->cp_nrsegs);
	return fits_peer(cl, out->cp_hdrlen, 0) ? 0 : -EMSGSIZE;
}

int rpcrdma_plan_call(const struct rpcrdma_xdr_buf *xb,
		      const struct rpcrdma_call_limits *cl,
		      enum rpcrdma_call_force force,
		      struct rpcrdma_call_plan *out)
{
	bool refs = rpcrdma_xdrbuf_nrefs(xb) > 0;
	int rc;

	switch (force) {
	case RPCRDMA_CALL_AUTO:
	case RPCRDMA_CALL_READ:
	case RPCRDMA_CALL_LONG:
		break;
	default:
		return -EINVAL;
	}
	if (xb->xb_nsegs > RPCRDMA_XDRBUF_MAX_SEGS)
		return -EINVAL;
	if (cl->cl_max_call && xb->xb_len > cl->cl_max_call)
		return -EMSGSIZE;
	if (force == RPCRDMA_CALL_LONG)
		return plan_long(xb, cl, out);
	if (force == RPCRDMA_CALL_AUTO || !refs) {
		if (fits_peer(cl, cl->cl_hdr_base, xb->xb_len)) {
			plan_inline(xb, cl, out);
			return 0;
		}
	}
	if (refs) {
		rc = plan_readch(xb, cl, out);
		if (!rc && fits_peer(cl, out->cp_hdrlen, out->cp_inline.xb_len))
			return 0;
	}
	return plan_long(xb, cl, out);
}

int rpcrdma_plan_call_reply(const struct rpcrdma_xdr_buf *xb,
			    const struct rpcrdma_call_limits *cl,
			    enum rpcrdma_call_force force,
			    enum rpcrdma_reply_force rforce, bool unknown,
			    uint32_t *reply_len, struct rpcrdma_call_plan *out)
{
	uint32_t rch = rpcrdma_reply_chunk_size(1);
	struct rpcrdma_call_limits lim;
	int rc;

	rc = rpcrdma_plan_call(xb, cl, force, out);
	if (rc)
		return rc;
	/*
	 * A Reply chunk offered only because the Reply's size is unknown
	 * takes 20 bytes of the Call's inline room: when that alone pushes
	 * the Call into Read chunks, keep the Call inline and offer none
	 * (Read chunks cost an RDMA Read, and a server may not take them).
	 */
	if (!*reply_len || out->cp_kind == RPCRDMA_CALL_INLINE || !unknown ||
	    rforce != RPCRDMA_REPLY_AUTO || force != RPCRDMA_CALL_AUTO ||
	    (uint64_t)xb->xb_len + cl->cl_hdr_base - rch > cl->cl_peer_inline)
		return 0;
	*reply_len = 0;
	lim = *cl;
	lim.cl_hdr_base -= rch;
	return rpcrdma_plan_call(xb, &lim, RPCRDMA_CALL_AUTO, out);
}

uint32_t rpcrdma_plan_reply(uint32_t max_reply, uint32_t dflt,
			    uint32_t recv_inline, enum rpcrdma_reply_force force)
{
	uint32_t m = max_reply ? max_reply : dflt;

	switch (force) {
	case RPCRDMA_REPLY_NEVER:
		return 0;
	case RPCRDMA_REPLY_ALWAYS:
		if (!m)
			m = recv_inline;
		break;
	case RPCRDMA_REPLY_AUTO:
		if (!m || (uint64_t)m + RPCRDMA_HDRLEN_MIN <= recv_inline)
			return 0;
		break;
	default:
		return 0;
	}
	if (m > UINT32_MAX - 3)
		return UINT32_MAX & ~3u;
	return (m + 3) & ~3u;
}

bool rpcrdma_offer_unknown(enum rpcrdma_reply_seen seen)
{
	return seen != RPCRDMA_SEEN_INLINE;
}

enum rpcrdma_reply_seen rpcrdma_reply_learn(enum rpcrdma_reply_seen seen,
					    bool offered, bool in_chunk,
					    bool refused)
{
	if (in_chunk || refused)
		return RPCRDMA_SEEN_CHUNK;
	/* Sticky: one large Reply says the procedure can draw them. */
	if (seen == RPCRDMA_SEEN_NOTHING && offered)
		return RPCRDMA_SEEN_INLINE;
	return seen;
}

int rpcrdma_chunk_returned(const struct rpcrdma_chunk *offered,
			   const struct rpcrdma_chunk *returned,
			   uint64_t *total)
{
	uint64_t sum = 0;
	bool short_seen = false;
	uint32_t i;

	*total = 0;
	if (!returned->rc_nsegs || returned->rc_nsegs > offered->rc_nsegs)
		return -EBADMSG;
	for (i = 0; i < returned->rc_nsegs; i++) {
		const struct rpcrdma_segment *o = &offered->rc_segs[i];
		const struct rpcrdma_segment *r = &returned->rc_segs[i];

		if (r->se_handle != o->se_handle || r->se_offset != o->se_offset ||
		    r->se_length > o->se_length)
			return -EBADMSG;
		if (short_seen && r->se_length)
			return -EBADMSG;	/* a hole in the data */
		if (r->se_length < o->se_length)
			short_seen = true;
		sum += r->se_length;
	}
	*total = sum;
	return 0;
}
