/*
 * The Reply's verdict (svc_reply_plan.h): direct placement when the Call
 * offered Write chunks and the Reply has opaques to place, else inline
 * when it fits a Send, else the Reply chunk, else ERR_CHUNK.  Pure.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "svc_reply_plan.h"

static uint32_t xdr_roundup(uint32_t len)
{
	return (4 - (len & 3)) & 3;
}

/* The Call's Write chunks, returned unused: every length 0. */
static void writes_unused(const struct rpcrdma_hdr *call, struct rpcrdma_hdr *h)
{
	uint32_t i, j;

	h->hd_nwrites = call->hd_nwrites;
	for (i = 0; i < h->hd_nwrites; i++) {
		h->hd_writes[i] = call->hd_writes[i];
		for (j = 0; j < h->hd_writes[i].rc_nsegs; j++)
			h->hd_writes[i].rc_segs[j].se_length = 0;
	}
}

void svc_rdma_reply_header(const struct rpcrdma_hdr *call, uint32_t xid,
			   uint32_t credits, struct rpcrdma_hdr *h)
{
	rpcrdma_hdr_clear(h);
	h->hd_xid = xid;
	h->hd_credits = credits;
	h->hd_proc = RPCRDMA_MSG;
	writes_unused(call, h);
}

/*
 * Each referenced segment is one opaque for the next Write chunk.  RFC
 * 8166 3.4.6: the roundup of a placed item is neither written nor sent,
 * so the first bytes of the copied segment after a reference, which hold
 * that roundup (xdr_buf.c puts it there), are skipped.
 */
int svc_rdma_plan_writes(const struct rpcrdma_xdr_buf *xb, uint32_t nwrites,
			 struct svc_rdma_wplan *wp)
{
	struct rpcrdma_xdr_buf *rest = &wp->wp_rest;
	uint32_t skip = 0;
	unsigned int i;

	wp->wp_nchunks = 0;
	wp->wp_bytes = 0;
	memset(rest, 0, sizeof(*rest));
	if (!nwrites || !rpcrdma_xdrbuf_nrefs(xb) ||
	    xb->xb_nsegs > RPCRDMA_XDRBUF_MAX_SEGS)
		return -ENOENT;
	for (i = 0; i < xb->xb_nsegs; i++) {
		const struct rpcrdma_xdr_seg *s = &xb->xb_segs[i];
		struct rpcrdma_xdr_seg *d;
		uint32_t cut;

		if (!s->xs_len)
			continue;
		if (s->xs_ref) {
			/* More opaques than Write chunks: none is placed. */
			if (wp->wp_nchunks == nwrites ||
			    wp->wp_nchunks == RPCRDMA_XDRBUF_MAX_SEGS)
				return -ENOENT;
			wp->wp_place[wp->wp_nchunks].wpl_addr = s->xs_base;
			wp->wp_place[wp->wp_nchunks].wpl_len = s->xs_len;
			wp->wp_nchunks++;
			wp->wp_bytes += s->xs_len;
			skip = xdr_roundup(s->xs_len);
			continue;
		}
		cut = skip < s->xs_len ? skip : s->xs_len;
		skip -= cut;
		if (cut == s->xs_len)
			continue;
		d = &rest->xb_segs[rest->xb_nsegs++];
		d->xs_base = s->xs_base + cut;
		d->xs_len = s->xs_len - cut;
		d->xs_ref = false;
		rest->xb_len += d->xs_len;
	}
	return 0;
}

/*
 * Direct placement applies: planned, every opaque fits its Write chunk,
 * the bytes are within our buffer and max_chunk_bytes, and header plus
 * rest fit a Send.  Otherwise h's Write chunks go back unused.
 */
static bool plan_direct(const struct svc_rdma_reply_in *in,
			struct rpcrdma_hdr *h, struct svc_rdma_wplan *wp)
{
	const struct rpcrdma_hdr *call = in->ri_call;
	unsigned int k;
	ssize_t n;

	if (svc_rdma_plan_writes(in->ri_xb, call->hd_nwrites, wp))
		return false;
	for (k = 0; k < wp->wp_nchunks; k++)
		if (rpcrdma_fill_chunk(&call->hd_writes[k],
				       wp->wp_place[k].wpl_len, &h->hd_writes[k]))
			goto out_unused;
	n = rpcrdma_hdr_size(h);
	if (n < 0 || wp->wp_bytes > in->ri_max_bytes ||
	    !rpcrdma_reply_fits(in->ri_lim, wp->wp_bytes) ||
	    (size_t)n + wp->wp_rest.xb_len > in->ri_send_max)
		goto out_unused;
	return true;

out_unused:
	writes_unused(call, h);
	return false;
}

enum svc_rdma_reply_verdict
svc_rdma_reply_decide(const struct svc_rdma_reply_in *in,
		      struct rpcrdma_hdr *h, struct svc_rdma_wplan *wp)
{
	const struct rpcrdma_hdr *call = in->ri_call;
	ssize_t n;

	/* Large opaques into the Write chunks offered, even when the whole
	 * Reply would fit inline: the client asked for them there. */
	if (in->ri_xb && !in->ri_no_direct && plan_direct(in, h, wp))
		return SVC_RDMA_REPLY_DIRECT;
	if (in->ri_xb) {
		n = rpcrdma_hdr_size(h);
		if (n >= 0 && (size_t)n + rpcrdma_xdrbuf_len(in->ri_xb) <=
			      in->ri_send_max)
			return SVC_RDMA_REPLY_INLINE;
	}
	/* Too large to Send: the Reply chunk, if there is one to write. */
	if (call->hd_has_reply && rpcrdma_chunk_capacity(&call->hd_reply) > 0)
		return SVC_RDMA_REPLY_CHUNK;
	return SVC_RDMA_REPLY_ERR_CHUNK;
}

/* One more segment's rkey: false once two differ. */
static bool one_rkey(uint32_t handle, bool *seen, uint32_t *rkey)
{
	if (*seen && *rkey != handle)
		return false;
	*seen = true;
	*rkey = handle;
	return true;
}

static bool chunk_rkey(const struct rpcrdma_chunk *ch, bool *seen,
		       uint32_t *rkey)
{
	uint32_t j;

	for (j = 0; j < ch->rc_nsegs && j < RPCRDMA_MAX_CHUNK_SEGS; j++)
		if (!one_rkey(ch->rc_segs[j].se_handle, seen, rkey))
			return false;
	return true;
}

bool svc_rdma_inv_rkey(const struct rpcrdma_hdr *call, uint32_t *rkey)
{
	bool seen = false;
	uint32_t i;

	for (i = 0; i < call->hd_nreads && i < RPCRDMA_MAX_READ_SEGS; i++)
		if (!one_rkey(call->hd_reads[i].rd_seg.se_handle, &seen, rkey))
			return false;
	for (i = 0; i < call->hd_nwrites && i < RPCRDMA_MAX_WRITE_CHUNKS; i++)
		if (!chunk_rkey(&call->hd_writes[i], &seen, rkey))
			return false;
	if (call->hd_has_reply && !chunk_rkey(&call->hd_reply, &seen, rkey))
		return false;
	return seen;
}
