/*
 * Decoding a Reply whose bulk data may already sit in the caller's
 * buffer.  RFC 8166 3.5.4: a Responder that uses a Write chunk removes
 * the data item and its roundup from the Payload stream and returns the
 * length it wrote; the length word stays inline.  So when the decoder
 * (rpcgen's xdr_bytes/xdr_opaque) asks for bytes into the very buffer
 * offered as the chunk, they are there already: check the count, skip
 * the roundup that is not inline, consume nothing.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "xdr_dec.h"

static struct rpcrdma_xdr_dec *xd_of(XDR *xdrs)
{
	return xdrs->x_private;
}

static uint32_t roundup_of(uint32_t n)
{
	return (4 - (n & 3)) & 3;
}

static bool_t xd_take(struct rpcrdma_xdr_dec *xd, void *dst, uint32_t n)
{
	if (n > xd->xd_len - xd->xd_pos)
		return FALSE;
	memcpy(dst, xd->xd_base + xd->xd_pos, n);
	xd->xd_pos += n;
	return TRUE;
}

static bool_t xd_getlong(XDR *xdrs, long *lp)
{
	struct rpcrdma_xdr_dec *xd = xd_of(xdrs);
	unsigned char b[4];

	xd->xd_skip_pad = 0;
	if (!xd_take(xd, b, 4))
		return FALSE;
	*lp = (long)(int32_t)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
			      (uint32_t)b[2] << 8 | b[3]);
	return TRUE;
}

/*
 * The placed opaque: the Responder must have written all @n bytes the
 * inline length word announced, and at most their roundup more; fewer
 * means data is missing (never decode what was not written).
 */
static bool_t xd_placed(struct rpcrdma_xdr_dec *xd, uint32_t n)
{
	struct rpcrdma_ddp_target *t = xd->xd_ddp;

	t->dt_consumed = true;
	if (!t->dt_written)
		return xd_take(xd, t->dt_addr, n);	/* unused: inline */
	if (t->dt_written < n || t->dt_written - n > roundup_of(n))
		return FALSE;
	xd->xd_skip_pad = roundup_of(n);
	return TRUE;
}

static bool_t xd_getbytes(XDR *xdrs, char *addr, u_int len)
{
	struct rpcrdma_xdr_dec *xd = xd_of(xdrs);
	struct rpcrdma_ddp_target *t = xd->xd_ddp;
	uint32_t pad = xd->xd_skip_pad;

	xd->xd_skip_pad = 0;
	if (pad && len == pad)
		return TRUE;	/* xdr_opaque's roundup of the placed item */
	if (t && !t->dt_consumed && addr == t->dt_addr && len) {
		if (len > t->dt_cap)
			return FALSE;
		return xd_placed(xd, len);
	}
	return xd_take(xd, addr, len);
}

static bool_t xd_putlong(XDR *xdrs, const long *lp)
{
	return FALSE;
}

static bool_t xd_putbytes(XDR *xdrs, const char *addr, u_int len)
{
	return FALSE;
}

static u_int xd_getpostn(XDR *xdrs)
{
	return xd_of(xdrs)->xd_pos;
}

static bool_t xd_setpostn(XDR *xdrs, u_int pos)
{
	struct rpcrdma_xdr_dec *xd = xd_of(xdrs);

	if (pos > xd->xd_len)
		return FALSE;
	xd->xd_skip_pad = 0;
	xd->xd_pos = pos;
	return TRUE;
}

/* rpcgen's IXDR_GET_* read int32_t in place: aligned spots only. */
static int32_t *xd_inline(XDR *xdrs, u_int len)
{
	struct rpcrdma_xdr_dec *xd = xd_of(xdrs);
	const char *p = xd->xd_base + xd->xd_pos;

	xd->xd_skip_pad = 0;
	if (!len || len > xd->xd_len - xd->xd_pos || ((uintptr_t)p & 3))
		return NULL;
	xd->xd_pos += len;
	return (int32_t *)(uintptr_t)p;
}

static void xd_destroy(XDR *xdrs)
{
}

static bool_t xd_control(XDR *xdrs, int request, void *info)
{
	return FALSE;
}

static const struct xdr_ops rpcrdma_xdrdec_ops = {
	.x_getlong = xd_getlong,
	.x_putlong = xd_putlong,
	.x_getbytes = xd_getbytes,
	.x_putbytes = xd_putbytes,
	.x_getpostn = xd_getpostn,
	.x_setpostn = xd_setpostn,
	.x_inline = xd_inline,
	.x_destroy = xd_destroy,
	.x_control = xd_control,
};

void rpcrdma_xdrdec_create(XDR *xdrs, struct rpcrdma_xdr_dec *xd,
			   const void *buf, uint32_t len,
			   struct rpcrdma_ddp_target *ddp)
{
	xd->xd_base = buf;
	xd->xd_len = len;
	xd->xd_pos = 0;
	xd->xd_skip_pad = 0;
	xd->xd_ddp = ddp;
	if (ddp)
		ddp->dt_consumed = false;
	memset(xdrs, 0, sizeof(*xdrs));
	xdrs->x_op = XDR_DECODE;
	xdrs->x_ops = &rpcrdma_xdrdec_ops;
	xdrs->x_private = xd;
}

int rpcrdma_xdrdec_finish(const struct rpcrdma_xdr_dec *xd)
{
	const struct rpcrdma_ddp_target *t = xd->xd_ddp;

	return t && t->dt_written && !t->dt_consumed ? -EBADMSG : 0;
}
