/*
 * Unit test: our XDR encode stream produces byte-for-byte what libtirpc's
 * xdrmem produces, for rpcgen-generated encoders and a full call header,
 * while putting large opaques in referenced segments; it fails cleanly
 * when scratch or the segment vector runs out.
 */
#include "config.h"
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <rpc/rpc.h>

#include "xdr_buf.h"

/* ---- what rpcgen -c makes of this .x (encoders pasted verbatim) ---------
 *	struct pt { int a; int b; unsigned int c; int d; int e; hyper h; };
 *	struct args { unsigned int id; string name<>; opaque blob<>;
 *		      opaque fix[7]; int vals<>; pt p; };
 */
typedef struct pt {
	int a, b;
	u_int c;
	int d, e;
	int64_t h;
} pt;

typedef struct args {
	u_int id;
	char *name;
	struct { u_int blob_len; char *blob_val; } blob;
	char fix[7];
	struct { u_int vals_len; int *vals_val; } vals;
	pt p;
} args;

static bool_t xdr_pt(XDR *xdrs, pt *objp)
{
	register int32_t *buf;

	if (xdrs->x_op == XDR_ENCODE) {
		buf = XDR_INLINE(xdrs, 5 * BYTES_PER_XDR_UNIT);
		if (buf == NULL) {
			if (!xdr_int(xdrs, &objp->a))
				return FALSE;
			if (!xdr_int(xdrs, &objp->b))
				return FALSE;
			if (!xdr_u_int(xdrs, &objp->c))
				return FALSE;
			if (!xdr_int(xdrs, &objp->d))
				return FALSE;
			if (!xdr_int(xdrs, &objp->e))
				return FALSE;
		} else {
			IXDR_PUT_LONG(buf, objp->a);
			IXDR_PUT_LONG(buf, objp->b);
			IXDR_PUT_U_LONG(buf, objp->c);
			IXDR_PUT_LONG(buf, objp->d);
			IXDR_PUT_LONG(buf, objp->e);
		}
		if (!xdr_quad_t(xdrs, &objp->h))
			return FALSE;
		return TRUE;
	}
	return FALSE;	/* decode branch not needed here */
}

static bool_t xdr_args(XDR *xdrs, args *objp)
{
	if (!xdr_u_int(xdrs, &objp->id))
		return FALSE;
	if (!xdr_string(xdrs, &objp->name, ~0))
		return FALSE;
	if (!xdr_bytes(xdrs, (char **)&objp->blob.blob_val,
		       (u_int *)&objp->blob.blob_len, ~0))
		return FALSE;
	if (!xdr_opaque(xdrs, objp->fix, 7))
		return FALSE;
	if (!xdr_array(xdrs, (char **)&objp->vals.vals_val,
		       (u_int *)&objp->vals.vals_len, ~0, sizeof(int),
		       (xdrproc_t)xdr_int))
		return FALSE;
	if (!xdr_pt(xdrs, &objp->p))
		return FALSE;
	return TRUE;
}

/* ---- fixtures ----------------------------------------------------------- */
#define BIG (64 * 1024)

static char blobmem[4 * 1024 + 16];
static char namemem[] = "hello";
static int valsmem[5] = { 1, -2, 3, 0x7fffffff, -0x7fffffff - 1 };
static uint32_t scratch_words[BIG / 4];	/* 4-byte aligned scratch */
static char *scratch = (char *)scratch_words;
static char ref[BIG], out[BIG];

static void fill_args(args *a, u_int bloblen)
{
	u_int i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < sizeof(blobmem); i++)
		blobmem[i] = (char)(i * 7 + 1);
	a->id = 0xdeadbeef;
	a->name = namemem;
	a->blob.blob_len = bloblen;
	a->blob.blob_val = blobmem;
	memcpy(a->fix, "ABCDEFG", 7);
	a->vals.vals_len = 5;
	a->vals.vals_val = valsmem;
	a->p.a = -1;
	a->p.b = 2;
	a->p.c = 0x80000001u;
	a->p.d = 4;
	a->p.e = 5;
	a->p.h = -0x123456789abcdefLL;
}

/* libtirpc's own encoding, the reference. */
static u_int xdrmem_encode(bool_t (*fn)(XDR *, void *), void *obj, char *dst,
			   u_int len)
{
	XDR x;
	u_int n;

	xdrmem_create(&x, dst, len, XDR_ENCODE);
	ck_assert(fn(&x, obj));
	n = XDR_GETPOS(&x);
	XDR_DESTROY(&x);
	return n;
}

static bool_t enc_args(XDR *x, void *obj)
{
	return xdr_args(x, obj);
}

/* Structural invariants every successful encode must satisfy. */
static void check_shape(const struct rpcrdma_xdr_buf *xb)
{
	struct rpcrdma_xdr_view h, p, t;
	unsigned int i;
	size_t sum = 0;

	rpcrdma_xdrbuf_views(xb, &h, &p, &t);
	ck_assert_uint_eq(h.xv_nsegs + p.xv_nsegs + t.xv_nsegs,
			  rpcrdma_xdrbuf_nsegs(xb));
	ck_assert_uint_eq(h.xv_len + p.xv_len + t.xv_len, rpcrdma_xdrbuf_len(xb));
	ck_assert_uint_le(h.xv_nsegs, 1);
	ck_assert_uint_le(t.xv_nsegs, 1);
	if (h.xv_nsegs)
		ck_assert(!h.xv_segs[0].xs_ref);
	if (t.xv_nsegs)
		ck_assert(!t.xv_segs[0].xs_ref);
	if (p.xv_nsegs) {
		ck_assert(p.xv_segs[0].xs_ref);
		ck_assert(p.xv_segs[p.xv_nsegs - 1].xs_ref);
	}
	for (i = 0; i < rpcrdma_xdrbuf_nsegs(xb); i++) {
		const struct rpcrdma_xdr_seg *s = &xb->xb_segs[i];

		ck_assert_uint_gt(s->xs_len, 0);
		sum += s->xs_len;
		if (!s->xs_ref) {
			ck_assert(s->xs_base >= xb->xb_scratch);
			ck_assert(s->xs_base + s->xs_len <=
				  xb->xb_scratch + xb->xb_scratch_len);
		} else if (s->xs_len & 3) {
			/* its XDR pad follows at once, in scratch */
			u_int pad = 4 - (s->xs_len & 3), k;

			ck_assert_uint_lt(i + 1, rpcrdma_xdrbuf_nsegs(xb));
			ck_assert(!xb->xb_segs[i + 1].xs_ref);
			ck_assert_uint_ge(xb->xb_segs[i + 1].xs_len, pad);
			for (k = 0; k < pad; k++)
				ck_assert_int_eq(xb->xb_segs[i + 1].xs_base[k], 0);
		}
	}
	ck_assert_uint_eq(sum, rpcrdma_xdrbuf_len(xb));
}

static const struct rpcrdma_xdr_seg *find_ref(const struct rpcrdma_xdr_buf *xb,
					      const void *base)
{
	unsigned int i;

	for (i = 0; i < xb->xb_nsegs; i++)
		if (xb->xb_segs[i].xs_ref && xb->xb_segs[i].xs_base == base)
			return &xb->xb_segs[i];
	return NULL;
}

/* ---- tests -------------------------------------------------------------- */
static const uint32_t thresholds[] = { 0, 1, 64, 1024 };

START_TEST(rpcgen_matches_xdrmem)
{
	uint32_t thr = thresholds[_i];
	u_int n, top = 3 * (thr ? thr : 64) + 3;
	struct rpcrdma_xdr_buf xb;
	XDR x;
	args a;

	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, BIG, thr), 0);
	for (n = 0; n <= top; n++) {
		const struct rpcrdma_xdr_seg *s;
		u_int rlen;

		fill_args(&a, n);
		rlen = xdrmem_encode(enc_args, &a, ref, sizeof(ref));
		rpcrdma_xdrbuf_reset(&xb);
		rpcrdma_xdrbuf_create(&x, &xb);
		ck_assert(xdr_args(&x, &a));
		ck_assert_uint_eq(XDR_GETPOS(&x), rlen);
		XDR_DESTROY(&x);
		ck_assert_uint_eq(rpcrdma_xdrbuf_len(&xb), rlen);
		memset(out, 0x5a, rlen + 8);
		ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, out, sizeof(out)),
				 (ssize_t)rlen);
		ck_assert_mem_eq(out, ref, rlen);
		ck_assert_int_eq(out[rlen], 0x5a);
		check_shape(&xb);

		s = find_ref(&xb, blobmem);
		if (thr && n >= thr) {
			ck_assert_ptr_nonnull(s);
			ck_assert_uint_eq(s->xs_len, n);
		} else {
			ck_assert_ptr_null(s);
		}
		/* the 7-byte fixed opaque and the name follow the same rule */
		ck_assert((find_ref(&xb, a.fix) != NULL) == (thr && 7 >= thr));
		ck_assert((find_ref(&xb, namemem) != NULL) == (thr && 5 >= thr));
		if (!thr)
			ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), 1);
	}
}
END_TEST

/* Same bytes when scratch is misaligned and x_inline must refuse. */
START_TEST(misaligned_scratch_falls_back)
{
	struct rpcrdma_xdr_buf xb;
	u_int rlen;
	XDR x;
	args a;

	fill_args(&a, 100);
	rlen = xdrmem_encode(enc_args, &a, ref, sizeof(ref));
	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch + 1, BIG - 1, 64), 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	ck_assert_ptr_null(XDR_INLINE(&x, 4));
	ck_assert(xdr_args(&x, &a));
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, out, sizeof(out)),
			 (ssize_t)rlen);
	ck_assert_mem_eq(out, ref, rlen);
	check_shape(&xb);
}
END_TEST

static bool_t enc_call(XDR *x, void *obj)
{
	struct { struct rpc_msg *m; args *a; } *c = obj;

	return xdr_callmsg(x, c->m) && xdr_args(x, c->a);
}

START_TEST(callmsg_matches_xdrmem)
{
	static const u_int sizes[] = { 0, 63, 64, 65, 200, 4095 };
	struct rpcrdma_xdr_buf xb;
	struct rpc_msg m;
	unsigned int i;
	XDR x;
	args a;
	struct { struct rpc_msg *m; args *a; } c = { &m, &a };

	memset(&m, 0, sizeof(m));
	m.rm_xid = 0x01020304;
	m.rm_direction = CALL;
	m.rm_call.cb_rpcvers = RPC_MSG_VERSION;
	m.rm_call.cb_prog = 0x20000099;
	m.rm_call.cb_vers = 3;
	m.rm_call.cb_proc = 7;
	m.rm_call.cb_cred = _null_auth;
	m.rm_call.cb_verf = _null_auth;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		u_int rlen;

		fill_args(&a, sizes[i]);
		rlen = xdrmem_encode(enc_call, &c, ref, sizeof(ref));
		ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, BIG, 64), 0);
		rpcrdma_xdrbuf_create(&x, &xb);
		ck_assert(enc_call(&x, &c));
		ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, out, sizeof(out)),
				 (ssize_t)rlen);
		ck_assert_mem_eq(out, ref, rlen);
		check_shape(&xb);
		ck_assert_uint_eq(rpcrdma_xdrbuf_nrefs(&xb), sizes[i] >= 64);
	}
}
END_TEST

/* Exactly enough scratch works; one byte less fails with no overrun. */
START_TEST(scratch_exhaustion)
{
	static char small[512];
	struct rpcrdma_xdr_buf xb;
	u_int rlen, len;
	XDR x;
	args a;

	fill_args(&a, 40);
	rlen = xdrmem_encode(enc_args, &a, ref, sizeof(ref));
	ck_assert_uint_lt(rlen, sizeof(small));
	for (len = 0; len <= rlen; len++) {
		char *p = malloc(len ? len : 1);	/* ASan bounds the scratch */

		ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, p, len, 0), 0);
		rpcrdma_xdrbuf_create(&x, &xb);
		ck_assert_int_eq(xdr_args(&x, &a), len == rlen);
		ck_assert_uint_le(rpcrdma_xdrbuf_len(&xb), len);
		if (len == rlen) {
			ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, small,
								 sizeof(small)),
					 (ssize_t)rlen);
			ck_assert_mem_eq(small, ref, rlen);
		}
		free(p);
	}
	/* A referenced opaque needs scratch only for its padding. */
	{
		char sc[4];
		char data[8] = "abcde";

		/* pad goes at stream offset 5, i.e. scratch offset 1 (kept
		 * congruent mod 4 so later inline items stay aligned) */
		ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, sc, 3, 4), 0);
		rpcrdma_xdrbuf_create(&x, &xb);
		ck_assert(!xdr_opaque(&x, data, 5));
		ck_assert_uint_eq(rpcrdma_xdrbuf_len(&xb), 0);
		ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), 0);
		ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, sc, 4, 4), 0);
		rpcrdma_xdrbuf_create(&x, &xb);
		ck_assert(xdr_opaque(&x, data, 5));
		ck_assert_uint_eq(rpcrdma_xdrbuf_len(&xb), 8);
		ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), 2);
	}
}
END_TEST

/* A message already linear (a parked Reply's copy): one copied segment,
 * no reference, read out whole; empty when there is nothing. */
START_TEST(wrap_is_one_copied_segment)
{
	static char mem[100], back[100];
	struct rpcrdma_xdr_view head, pages, tail;
	struct rpcrdma_xdr_buf xb;
	unsigned int i;

	for (i = 0; i < sizeof(mem); i++)
		mem[i] = (char)i;
	rpcrdma_xdrbuf_wrap(&xb, mem, sizeof(mem));
	ck_assert_uint_eq(rpcrdma_xdrbuf_len(&xb), sizeof(mem));
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), 1);
	ck_assert_uint_eq(rpcrdma_xdrbuf_nrefs(&xb), 0);
	rpcrdma_xdrbuf_views(&xb, &head, &pages, &tail);
	ck_assert_uint_eq(head.xv_len, sizeof(mem));
	ck_assert_uint_eq(pages.xv_len + tail.xv_len, 0);
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, back, sizeof(back)),
			 (ssize_t)sizeof(back));
	ck_assert_mem_eq(back, mem, sizeof(mem));
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, back, sizeof(back) - 1),
			 -EMSGSIZE);
	rpcrdma_xdrbuf_wrap(&xb, NULL, 0);
	ck_assert_uint_eq(rpcrdma_xdrbuf_len(&xb), 0);
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), 0);
	rpcrdma_xdrbuf_wrap(&xb, mem, 0);
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), 0);
}
END_TEST

/*
 * Thresholds of 1 to 3 (page_threshold allows them): an opaque shorter
 * than the threshold is copied with its padding, which is never
 * referenced, so every reference is an opaque's data, starting on an XDR
 * unit.  Found by fuzz-plan: a Read chunk held the padding.
 */
START_TEST(tiny_threshold_keeps_padding)
{
	static char sc[64], data[8] = "abcdefg";
	struct rpcrdma_xdr_buf xb;
	u_int th, len, i;
	XDR x;

	for (th = 1; th <= 3; th++)
		for (len = 1; len <= 7; len++) {
			u_int xid = 1;

			ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, sc, sizeof(sc), th), 0);
			rpcrdma_xdrbuf_create(&x, &xb);
			ck_assert(xdr_u_int(&x, &xid));
			ck_assert(xdr_opaque(&x, data, len));
			ck_assert_uint_eq(rpcrdma_xdrbuf_len(&xb), 4 + ((len + 3) & ~3u));
			ck_assert_uint_eq(rpcrdma_xdrbuf_nrefs(&xb), len >= th);
			for (i = 0; i < xb.xb_nsegs; i++)
				if (xb.xb_segs[i].xs_ref)
					ck_assert(xb.xb_segs[i].xs_base == data &&
						  xb.xb_segs[i].xs_len == len);
		}
}
END_TEST

START_TEST(segment_exhaustion)
{
	static char data[9] = "12345678";
	struct rpcrdma_xdr_buf xb;
	unsigned int i;
	u_int before;
	XDR x;
	int one = 1;

	/* unpadded references: one segment each */
	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, BIG, 8), 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	for (i = 0; i < RPCRDMA_XDRBUF_MAX_SEGS; i++)
		ck_assert(xdr_opaque(&x, data, 8));
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), RPCRDMA_XDRBUF_MAX_SEGS);
	before = XDR_GETPOS(&x);
	ck_assert(!xdr_opaque(&x, data, 8));
	ck_assert(!xdr_int(&x, &one));		/* would need a new copied seg */
	ck_assert_ptr_null(XDR_INLINE(&x, 4));
	ck_assert_uint_eq(XDR_GETPOS(&x), before);
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), RPCRDMA_XDRBUF_MAX_SEGS);
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, out, sizeof(out)),
			 (ssize_t)before);

	/* padded references: two segments each; the last one that fits
	 * must fit with its padding, or fail as a whole */
	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, BIG, 4), 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	ck_assert(xdr_int(&x, &one));		/* head: 1 seg */
	for (i = 0; i < (RPCRDMA_XDRBUF_MAX_SEGS - 1) / 2; i++)
		ck_assert(xdr_opaque(&x, data, 5));
	before = XDR_GETPOS(&x);
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb),
			  1 + 2 * ((RPCRDMA_XDRBUF_MAX_SEGS - 1) / 2));
	ck_assert(!xdr_opaque(&x, data, 5));	/* 1 slot left, needs 2 */
	ck_assert_uint_eq(XDR_GETPOS(&x), before);
	ck_assert(xdr_opaque(&x, data, 4));	/* needs 1: fits */
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), RPCRDMA_XDRBUF_MAX_SEGS);
	check_shape(&xb);
}
END_TEST

START_TEST(putlong_big_endian)
{
	struct rpcrdma_xdr_buf xb;
	long v;
	XDR x;
	static const unsigned char want[] = {
		1, 2, 3, 4, 0xff, 0xff, 0xff, 0xff, 0x80, 0, 0, 0 };

	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, BIG, 0), 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	v = 0x01020304;
	ck_assert(XDR_PUTLONG(&x, &v));
	v = -1;
	ck_assert(XDR_PUTLONG(&x, &v));
	v = (long)0x80000000u;
	ck_assert(XDR_PUTLONG(&x, &v));
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, out, sizeof(out)), 12);
	ck_assert_mem_eq(out, want, 12);
}
END_TEST

START_TEST(decode_ops_refused)
{
	struct rpcrdma_xdr_buf xb;
	char buf[4];
	long v;
	XDR x;

	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, BIG, 0), 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	ck_assert_int_eq(x.x_op, XDR_ENCODE);
	ck_assert(!XDR_GETLONG(&x, &v));
	ck_assert(!XDR_GETBYTES(&x, buf, 4));
	ck_assert(!x.x_ops->x_control(&x, 0, NULL));
	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, NULL, 4, 0), -EINVAL);
}
END_TEST

START_TEST(inline_and_alignment)
{
	static char data[8] = "abcde";
	struct rpcrdma_xdr_buf xb;
	int32_t *p;
	XDR x;

	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, 24, 4), 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	p = XDR_INLINE(&x, 8);
	ck_assert_ptr_eq(p, scratch);
	ck_assert_uint_eq(XDR_GETPOS(&x), 8);
	/* ref of 5 then 3 pad bytes: the next item is aligned again */
	ck_assert(xdr_opaque(&x, data, 5));
	ck_assert_uint_eq(XDR_GETPOS(&x), 16);
	p = XDR_INLINE(&x, 4);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq((uintptr_t)p & 3, 0);
	ck_assert_ptr_null(XDR_INLINE(&x, 32));	/* no room */
	ck_assert_ptr_null(XDR_INLINE(&x, 0));
	ck_assert_uint_eq(XDR_GETPOS(&x), 20);
	check_shape(&xb);
}
END_TEST

/*
 * What RPCSEC_GSS's wrap does (RFC 2203 5.3.2.2, libtirpc's
 * xdr_rpc_gss_wrap_data): skip the body's length word, encode the body,
 * come back to fill the length in, read the body back contiguous
 * (XDR_INLINE), then go to the end.  The result is what xdrmem makes;
 * and past the scratch the move fails and marks the buffer full, as a
 * caller that ignores the failure must not send what follows.
 */
START_TEST(setpos_gss_wrap)
{
	static char body[40] = "a body the GSS layer checksums, 38 byt";
	struct rpcrdma_xdr_buf xb;
	char want[128], small[32];
	u_int start, end, len, seq = 7, i;
	XDR x, m;
	char *p;

	for (i = 0; i < 2; i++) {
		XDR *s = i ? &x : &m;

		if (i) {
			ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, BIG, 0), 0);
			rpcrdma_xdrbuf_create(&x, &xb);
		} else {
			xdrmem_create(&m, want, sizeof(want), XDR_ENCODE);
		}
		ck_assert(xdr_u_int(s, &seq));		/* a header word */
		start = XDR_GETPOS(s);
		ck_assert(XDR_SETPOS(s, start + 4));
		ck_assert(xdr_u_int(s, &seq));
		p = body;
		len = sizeof(body);
		ck_assert(xdr_bytes(s, &p, &len, sizeof(body)));
		end = XDR_GETPOS(s);
		len = end - start - 4;
		ck_assert(XDR_SETPOS(s, start + 4));
		ck_assert_ptr_nonnull(XDR_INLINE(s, len));
		ck_assert(XDR_SETPOS(s, start));
		ck_assert(xdr_u_int(s, &len));
		ck_assert(XDR_SETPOS(s, end));
		ck_assert(xdr_u_int(s, &seq));		/* the checksum's place */
	}
	ck_assert_uint_eq(XDR_GETPOS(&x), XDR_GETPOS(&m));
	ck_assert(!rpcrdma_xdrbuf_full(&xb));
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), 1);
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, out, sizeof(out)),
			 (int)XDR_GETPOS(&m));
	ck_assert_mem_eq(out, want, XDR_GETPOS(&m));

	/* past the scratch: refused, and the buffer is full */
	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, small, sizeof(small), 0), 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	ck_assert(xdr_u_int(&x, &seq));
	ck_assert(XDR_SETPOS(&x, sizeof(small)));
	ck_assert(!rpcrdma_xdrbuf_full(&xb));
	ck_assert(!XDR_SETPOS(&x, sizeof(small) + 4));
	ck_assert(rpcrdma_xdrbuf_full(&xb));
}
END_TEST

START_TEST(setpos_rules)
{
	static char data[9] = "12345678";
	struct rpcrdma_xdr_buf xb;
	u_int mark, end, v = 1, patch = 99;
	XDR x, m;
	char want[32];

	/* back-patch a word, then return to the end */
	xdrmem_create(&m, want, sizeof(want), XDR_ENCODE);
	ck_assert(xdr_u_int(&m, &v) && xdr_u_int(&m, &patch) && xdr_u_int(&m, &v));
	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, BIG, 8), 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	ck_assert(xdr_u_int(&x, &v));
	mark = XDR_GETPOS(&x);
	ck_assert(xdr_u_int(&x, &v));
	ck_assert(xdr_u_int(&x, &v));
	end = XDR_GETPOS(&x);
	ck_assert(XDR_SETPOS(&x, mark));
	ck_assert(xdr_u_int(&x, &patch));
	ck_assert(XDR_SETPOS(&x, end));
	/* past the end: allowed within the scratch, as xdrmem, zeroed */
	ck_assert(XDR_SETPOS(&x, end + 4));
	ck_assert_uint_eq(XDR_GETPOS(&x), end + 4);
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, out, sizeof(out)), 16);
	ck_assert_mem_eq(out, want, 12);
	ck_assert_uint_eq(out[12] | out[13] | out[14] | out[15], 0);
	ck_assert(XDR_SETPOS(&x, end));
	ck_assert(!rpcrdma_xdrbuf_full(&xb));
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, out, sizeof(out)), 12);
	ck_assert_mem_eq(out, want, 12);

	/* after a reference only "stay here" is allowed */
	ck_assert(xdr_opaque(&x, data, 8));
	ck_assert(XDR_SETPOS(&x, 20));
	ck_assert(!XDR_SETPOS(&x, 16));		/* inside the reference */
	ck_assert(!XDR_SETPOS(&x, 4));		/* an earlier segment */
	ck_assert(xdr_u_int(&x, &v));
	ck_assert(XDR_SETPOS(&x, 20));		/* truncate the tail to empty */
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), 2);
	ck_assert(!XDR_SETPOS(&x, 19));
	ck_assert(XDR_SETPOS(&x, 24));		/* written before: allowed */
	ck_assert(XDR_SETPOS(&x, 20));
	ck_assert(xdr_opaque(&x, data, 8));	/* empty tail seg is dropped */
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), 3);
	ck_assert_uint_eq(xb.xb_nsegs, 3);
	check_shape(&xb);
}
END_TEST

START_TEST(copy_out_and_reset)
{
	struct rpcrdma_xdr_buf xb;
	u_int rlen;
	XDR x;
	args a;

	fill_args(&a, 300);
	rlen = xdrmem_encode(enc_args, &a, ref, sizeof(ref));
	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, BIG, 64), 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	ck_assert(xdr_args(&x, &a));
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, out, rlen - 1), -EMSGSIZE);
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, out, rlen), (ssize_t)rlen);
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), 3);	/* head, blob, tail */
	rpcrdma_xdrbuf_reset(&xb);
	ck_assert_uint_eq(rpcrdma_xdrbuf_len(&xb), 0);
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), 0);
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, NULL, 0), 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	ck_assert(xdr_args(&x, &a));
	memset(out, 0, sizeof(out));
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, out, rlen), (ssize_t)rlen);
	ck_assert_mem_eq(out, ref, rlen);
}
END_TEST

/*
 * rpcgen's string<> past 64 KiB (issue 17), referenced or copied: the
 * encoding is xdrmem's, byte for byte, and a string over its bound is a
 * failure of the data, not of room (xdrbuf_full stays false, so the
 * client does not grow a spill buffer for it nor call it a limit).
 */
START_TEST(big_strings)
{
	static const u_int sizes[] = { 0, 1, 9001, 65535, 65536, 65537,
				       65538, 200001, (1u << 20) + 1 };
	struct rpcrdma_xdr_buf xb;
	unsigned int i, k;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		u_int n = sizes[i];
		size_t cap = n + 64;
		char *s = malloc(n + 1), *want = malloc(cap), *got = malloc(cap);
		char *sb = malloc(cap);
		XDR x;

		ck_assert_ptr_nonnull(s);
		ck_assert_ptr_nonnull(want);
		ck_assert_ptr_nonnull(got);
		ck_assert_ptr_nonnull(sb);
		memset(s, 'q', n);
		s[n] = '\0';
		if (n)
			s[n - 1] = 'z';
		xdrmem_create(&x, want, (u_int)cap, XDR_ENCODE);
		ck_assert(xdr_string(&x, &s, ~0u));
		ck_assert_uint_eq(xdr_getpos(&x), 4 + ((n + 3) & ~3u));
		/* k = 0: referenced over a 4 KiB scratch; 1: all copied. */
		for (k = 0; k < 2; k++) {
			ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, sb,
					 k ? cap : 4096, k ? 0 : 1024), 0);
			rpcrdma_xdrbuf_create(&x, &xb);
			ck_assert_msg(xdr_string(&x, &s, ~0u),
				      "string of %u bytes, %s", n,
				      k ? "copied" : "referenced");
			ck_assert(!rpcrdma_xdrbuf_full(&xb));
			ck_assert_uint_eq(rpcrdma_xdrbuf_len(&xb),
					  4 + ((n + 3) & ~3u));
			ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(&xb, got, cap),
					 (ssize_t)(4 + ((n + 3) & ~3u)));
			ck_assert_mem_eq(got, want, 4 + ((n + 3) & ~3u));
			if (!k && n >= 1024)
				ck_assert_uint_eq(rpcrdma_xdrbuf_nrefs(&xb), 1);
		}
		/* Too small a copy buffer: out of room, and it says so. */
		if (n > 64) {
			rpcrdma_xdrbuf_init(&xb, sb, n / 2, 0);
			rpcrdma_xdrbuf_create(&x, &xb);
			ck_assert(!xdr_string(&x, &s, ~0u));
			ck_assert(rpcrdma_xdrbuf_full(&xb));
		}
		/* Over its bound: bad data, with room to spare. */
		if (n) {
			rpcrdma_xdrbuf_init(&xb, sb, cap, 1024);
			rpcrdma_xdrbuf_create(&x, &xb);
			ck_assert(!xdr_string(&x, &s, n - 1));
			ck_assert(!rpcrdma_xdrbuf_full(&xb));
		}
		free(s);
		free(want);
		free(got);
		free(sb);
	}
}
END_TEST

/* Running out of segments is room too; reset forgets it. */
START_TEST(full_flag_segments)
{
	static char data[64], sc[256];
	struct rpcrdma_xdr_buf xb;
	unsigned int i;
	bool_t ok = TRUE;
	XDR x;

	rpcrdma_xdrbuf_init(&xb, sc, sizeof(sc), 4);
	rpcrdma_xdrbuf_create(&x, &xb);
	for (i = 0; ok && i < 2 * RPCRDMA_XDRBUF_MAX_SEGS; i++)
		ok = xdr_opaque(&x, data, 5);
	ck_assert(!ok);
	ck_assert(rpcrdma_xdrbuf_full(&xb));
	rpcrdma_xdrbuf_reset(&xb);
	ck_assert(!rpcrdma_xdrbuf_full(&xb));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("xdr_buf");
	TCase *tc = tcase_create("encode");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, rpcgen_matches_xdrmem, 0,
			    sizeof(thresholds) / sizeof(thresholds[0]));
	tcase_add_test(tc, misaligned_scratch_falls_back);
	tcase_add_test(tc, callmsg_matches_xdrmem);
	tcase_add_test(tc, scratch_exhaustion);
	tcase_add_test(tc, segment_exhaustion);
	tcase_add_test(tc, tiny_threshold_keeps_padding);
	tcase_add_test(tc, putlong_big_endian);
	tcase_add_test(tc, decode_ops_refused);
	tcase_add_test(tc, inline_and_alignment);
	tcase_add_test(tc, setpos_rules);
	tcase_add_test(tc, setpos_gss_wrap);
	tcase_add_test(tc, copy_out_and_reset);
	tcase_add_test(tc, big_strings);
	tcase_add_test(tc, full_flag_segments);
	tcase_add_test(tc, wrap_is_one_copied_segment);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

