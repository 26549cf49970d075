/*
 * The XDR encode stream behind every outgoing RPC message: small items are
 * copied into caller scratch, large opaques are referenced in place as
 * segments, so a Send can gather them without a copy.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "xdr_buf.h"

int rpcrdma_xdrbuf_init(struct rpcrdma_xdr_buf *xb, void *scratch,
			size_t scratch_len, uint32_t threshold)
{
	if ((!scratch && scratch_len) || scratch_len > UINT32_MAX)
		return -EINVAL;
	/* Not memset: no segment is read past xb_nsegs, and this runs for
	 * every message. */
	rpcrdma_xdrbuf_reset(xb);
	xb->xb_scratch = scratch;
	xb->xb_scratch_len = (uint32_t)scratch_len;
	xb->xb_threshold = threshold;
	return 0;
}

void rpcrdma_xdrbuf_wrap(struct rpcrdma_xdr_buf *xb, char *mem, uint32_t len)
{
	rpcrdma_xdrbuf_init(xb, mem, mem ? len : 0, 0);
	if (!mem || !len)
		return;
	xb->xb_segs[0].xs_base = mem;
	xb->xb_segs[0].xs_len = len;
	xb->xb_segs[0].xs_ref = false;
	xb->xb_nsegs = 1;
	xb->xb_scratch_used = len;
	xb->xb_hiwater = len;
	xb->xb_len = len;
}

void rpcrdma_xdrbuf_reset(struct rpcrdma_xdr_buf *xb)
{
	xb->xb_scratch_used = 0;
	xb->xb_len = 0;
	xb->xb_hiwater = 0;
	xb->xb_pad_due = 0;
	xb->xb_full = false;
	xb->xb_nsegs = 0;
}

static struct rpcrdma_xdr_seg *rpcrdma_xb_last(struct rpcrdma_xdr_buf *xb)
{
	return xb->xb_nsegs ? &xb->xb_segs[xb->xb_nsegs - 1] : NULL;
}

/*
 * Where @len more copied bytes would go.  They extend the last segment if
 * it is a copied one; otherwise they open a new copied segment, placed so
 * that its scratch offset is congruent mod 4 to its stream position.  Why:
 * the padding of a referenced opaque lands in scratch without the opaque
 * itself, which would leave every later item misaligned in scratch and
 * make x_inline (hence rpcgen's IXDR_PUT_* fast path) fail needlessly.
 * Returns false, changing nothing, when scratch, segments or the 32-bit
 * stream position would run out.
 */
static bool rpcrdma_xb_plan(const struct rpcrdma_xdr_buf *xb, uint32_t len,
			    uint32_t *offp, bool *newsegp)
{
	const struct rpcrdma_xdr_seg *last =
		xb->xb_nsegs ? &xb->xb_segs[xb->xb_nsegs - 1] : NULL;
	uint32_t off = xb->xb_scratch_used;

	if (len > UINT32_MAX - xb->xb_len)
		return false;
	*newsegp = !last || last->xs_ref;
	if (*newsegp) {
		if (xb->xb_nsegs >= RPCRDMA_XDRBUF_MAX_SEGS)
			return false;
		off += (xb->xb_len - off) & 3;
	}
	if (off > xb->xb_scratch_len || len > xb->xb_scratch_len - off)
		return false;
	*offp = off;
	return true;
}

/* Commit a plan from rpcrdma_xb_plan(); returns where the bytes go. */
static char *rpcrdma_xb_commit(struct rpcrdma_xdr_buf *xb, uint32_t len,
			       uint32_t off, bool newseg)
{
	struct rpcrdma_xdr_seg *seg;

	if (newseg) {
		seg = &xb->xb_segs[xb->xb_nsegs++];
		seg->xs_base = xb->xb_scratch + off;
		seg->xs_len = 0;
		seg->xs_ref = false;
		xb->xb_hiwater = 0;
	} else {
		seg = rpcrdma_xb_last(xb);
	}
	seg->xs_len += len;
	if (seg->xs_len > xb->xb_hiwater)
		xb->xb_hiwater = seg->xs_len;
	xb->xb_scratch_used = off + len;
	xb->xb_len += len;
	return xb->xb_scratch + off;
}

static char *rpcrdma_xb_reserve(struct rpcrdma_xdr_buf *xb, uint32_t len)
{
	uint32_t off;
	bool newseg;

	if (!rpcrdma_xb_plan(xb, len, &off, &newseg)) {
		xb->xb_full = true;
		return NULL;
	}
	return rpcrdma_xb_commit(xb, len, off, newseg);
}

/*
 * Append @len bytes of caller memory by reference.  The XDR pad that
 * xdr_opaque() sends next must then go to scratch, so reserve a segment
 * and scratch room for it now: the opaque fails as a unit instead of
 * leaving a reference whose padding could not be encoded.
 */
static bool rpcrdma_xb_add_ref(struct rpcrdma_xdr_buf *xb, const char *addr,
			       uint32_t len)
{
	struct rpcrdma_xdr_seg *last = rpcrdma_xb_last(xb);
	uint32_t pad = (4 - (len & 3)) & 3;
	uint32_t off;

	if (len > UINT32_MAX - xb->xb_len)
		return false;
	/* A copied segment emptied by x_setpostn would be a zero-length SGE. */
	if (last && !last->xs_ref && last->xs_len == 0) {
		xb->xb_scratch_used = (uint32_t)(last->xs_base - xb->xb_scratch);
		xb->xb_nsegs--;
	}
	if (xb->xb_nsegs + (pad ? 2 : 1) > RPCRDMA_XDRBUF_MAX_SEGS)
		return false;
	if (pad) {
		off = xb->xb_scratch_used;
		off += (xb->xb_len + len - off) & 3;
		if (off > xb->xb_scratch_len || pad > xb->xb_scratch_len - off)
			return false;
	}
	xb->xb_segs[xb->xb_nsegs].xs_base = addr;
	xb->xb_segs[xb->xb_nsegs].xs_len = len;
	xb->xb_segs[xb->xb_nsegs].xs_ref = true;
	xb->xb_nsegs++;
	xb->xb_len += len;
	xb->xb_hiwater = 0;
	xb->xb_pad_due = pad;
	return true;
}

static struct rpcrdma_xdr_buf *rpcrdma_xb_of(XDR *xdrs)
{
	return xdrs->x_private;
}

/* Replies are decoded with xdrmem on the receive buffer, never here. */
static bool_t rpcrdma_xb_getlong(XDR *xdrs, long *lp)
{
	return FALSE;
}

static bool_t rpcrdma_xb_getbytes(XDR *xdrs, char *addr, u_int len)
{
	return FALSE;
}

/* libtirpc's "long" is the 32-bit XDR unit, whatever sizeof(long) is. */
static bool_t rpcrdma_xb_putlong(XDR *xdrs, const long *lp)
{
	struct rpcrdma_xdr_buf *xb = rpcrdma_xb_of(xdrs);
	uint32_t v = (uint32_t)*lp;
	unsigned char *p;

	xb->xb_pad_due = 0;
	p = (unsigned char *)rpcrdma_xb_reserve(xb, 4);
	if (!p)
		return FALSE;
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
	return TRUE;
}

/*
 * Copy or reference.  The bytes right after a referenced opaque of the
 * owed pad length are its XDR padding (xdr_opaque sends them as a
 * separate put of its static zeros): always copy those, even when the
 * threshold is tiny, so padding sits in scratch right after the reference.
 * Nor is anything referenced that starts off an XDR unit, as the padding
 * of a copied opaque does: with a threshold of 2 or 3 it would become a
 * Read chunk at an unaligned position holding the roundup RFC 8166 3.4.5
 * keeps out of chunks, and the Responder would rebuild another Call.
 */
static bool_t rpcrdma_xb_putbytes(XDR *xdrs, const char *addr, u_int len)
{
	struct rpcrdma_xdr_buf *xb = rpcrdma_xb_of(xdrs);
	uint32_t pad = xb->xb_pad_due;
	char *p;

	xb->xb_pad_due = 0;
	if (len == 0)
		return TRUE;
	if (xb->xb_threshold && len >= xb->xb_threshold &&
	    !(xb->xb_len & 3) && len != pad) {
		if (rpcrdma_xb_add_ref(xb, addr, len))
			return TRUE;
		xb->xb_full = true;
		return FALSE;
	}
	p = rpcrdma_xb_reserve(xb, len);
	if (!p)
		return FALSE;
	memcpy(p, addr, len);
	return TRUE;
}

static u_int rpcrdma_xb_getpostn(XDR *xdrs)
{
	return rpcrdma_xb_of(xdrs)->xb_len;
}

/*
 * Only within the last copied segment: back to any byte of it, and on
 * past its end as far as the scratch goes, as xdrmem allows (RPCSEC_GSS
 * skips a length word, encodes the body, then comes back to fill it in);
 * bytes skipped over that were never written are zeroed.  Moving back
 * truncates the message as it does with xdrmem.  Moving into a
 * referenced segment would mean writing caller memory, so refuse.
 */
static bool_t rpcrdma_xb_setpostn(XDR *xdrs, u_int pos)
{
	struct rpcrdma_xdr_buf *xb = rpcrdma_xb_of(xdrs);
	struct rpcrdma_xdr_seg *last = rpcrdma_xb_last(xb);
	uint32_t start, room;

	xb->xb_pad_due = 0;
	if (pos == xb->xb_len)
		return TRUE;
	if (!last || last->xs_ref)
		return FALSE;
	start = xb->xb_len - last->xs_len;
	/* The segment may grow to the end of the scratch. */
	room = xb->xb_scratch_len - (uint32_t)(last->xs_base - xb->xb_scratch);
	if (pos < start)
		return FALSE;
	if (pos - start > room) {
		/* A caller that ignores the failure (RPCSEC_GSS does) must
		 * not send what it encodes next: the buffer ran out. */
		xb->xb_full = true;
		return FALSE;
	}
	if (pos - start > xb->xb_hiwater) {
		memset((char *)last->xs_base + xb->xb_hiwater, 0,
		       pos - start - xb->xb_hiwater);
		xb->xb_hiwater = pos - start;
	}
	last->xs_len = pos - start;
	xb->xb_scratch_used =
		(uint32_t)(last->xs_base - xb->xb_scratch) + last->xs_len;
	xb->xb_len = pos;
	return TRUE;
}

/*
 * Contiguous scratch for rpcgen's IXDR_PUT_* macros, which store int32_t
 * directly: refuse (NULL, caller falls back to x_putlong) when the spot
 * is not 4-byte aligned or there is no room.
 */
static int32_t *rpcrdma_xb_inline(XDR *xdrs, u_int len)
{
	struct rpcrdma_xdr_buf *xb = rpcrdma_xb_of(xdrs);
	uint32_t off;
	bool newseg;

	xb->xb_pad_due = 0;
	if (len == 0 || !rpcrdma_xb_plan(xb, len, &off, &newseg))
		return NULL;
	if ((uintptr_t)(xb->xb_scratch + off) & 3)
		return NULL;
	return (int32_t *)(void *)rpcrdma_xb_commit(xb, len, off, newseg);
}

/* The buffer belongs to the caller; nothing to free. */
static void rpcrdma_xb_destroy(XDR *xdrs)
{
}

static bool_t rpcrdma_xb_control(XDR *xdrs, int request, void *info)
{
	return FALSE;
}

static const struct xdr_ops rpcrdma_xdrbuf_ops = {
	.x_getlong = rpcrdma_xb_getlong,
	.x_putlong = rpcrdma_xb_putlong,
	.x_getbytes = rpcrdma_xb_getbytes,
	.x_putbytes = rpcrdma_xb_putbytes,
	.x_getpostn = rpcrdma_xb_getpostn,
	.x_setpostn = rpcrdma_xb_setpostn,
	.x_inline = rpcrdma_xb_inline,
	.x_destroy = rpcrdma_xb_destroy,
	.x_control = rpcrdma_xb_control,
};

void rpcrdma_xdrbuf_create(XDR *xdrs, struct rpcrdma_xdr_buf *xb)
{
	memset(xdrs, 0, sizeof(*xdrs));
	xdrs->x_op = XDR_ENCODE;
	xdrs->x_ops = &rpcrdma_xdrbuf_ops;
	xdrs->x_private = xb;
}

size_t rpcrdma_xdrbuf_len(const struct rpcrdma_xdr_buf *xb)
{
	return xb->xb_len;
}

bool rpcrdma_xdrbuf_full(const struct rpcrdma_xdr_buf *xb)
{
	return xb->xb_full;
}

/* Only the last segment can be empty (a copied one cut back by setpos). */
unsigned int rpcrdma_xdrbuf_nsegs(const struct rpcrdma_xdr_buf *xb)
{
	unsigned int n = xb->xb_nsegs;

	if (n && xb->xb_segs[n - 1].xs_len == 0)
		n--;
	return n;
}

unsigned int rpcrdma_xdrbuf_nrefs(const struct rpcrdma_xdr_buf *xb)
{
	unsigned int i, n = 0;

	for (i = 0; i < xb->xb_nsegs; i++)
		n += xb->xb_segs[i].xs_ref;
	return n;
}

static void rpcrdma_xb_view(struct rpcrdma_xdr_view *v,
			    const struct rpcrdma_xdr_seg *segs,
			    unsigned int first, unsigned int end)
{
	unsigned int i;

	v->xv_segs = &segs[first];
	v->xv_nsegs = end - first;
	v->xv_len = 0;
	for (i = first; i < end; i++)
		v->xv_len += segs[i].xs_len;
}

void rpcrdma_xdrbuf_views(const struct rpcrdma_xdr_buf *xb,
			  struct rpcrdma_xdr_view *head,
			  struct rpcrdma_xdr_view *pages,
			  struct rpcrdma_xdr_view *tail)
{
	unsigned int n = rpcrdma_xdrbuf_nsegs(xb);
	unsigned int i, first = n, end = n;

	for (i = 0; i < n; i++) {
		if (!xb->xb_segs[i].xs_ref)
			continue;
		if (first == n)
			first = i;
		end = i + 1;
	}
	rpcrdma_xb_view(head, xb->xb_segs, 0, first);
	rpcrdma_xb_view(pages, xb->xb_segs, first, end);
	rpcrdma_xb_view(tail, xb->xb_segs, end, n);
}

ssize_t rpcrdma_xdrbuf_copy_out(const struct rpcrdma_xdr_buf *xb, void *dst,
				size_t dst_len)
{
	char *p = dst;
	unsigned int i;

	if (xb->xb_len > dst_len)
		return -EMSGSIZE;
	for (i = 0; i < xb->xb_nsegs; i++) {
		if (!xb->xb_segs[i].xs_len)
			continue;
		memcpy(p, xb->xb_segs[i].xs_base, xb->xb_segs[i].xs_len);
		p += xb->xb_segs[i].xs_len;
	}
	return (ssize_t)xb->xb_len;
}
