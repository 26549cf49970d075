/*
 * Fuzz target: chunk planning, both ends.  A Call built through our XDR
 * stream from the input is planned (inline, Read chunks or one long
 * chunk) under input limits; the plan must respect the limits, its header
 * must round-trip, and the Responder's map of it (rchunks.c) must rebuild
 * the very Call, every byte placed once.  Other inputs drive Reply chunk
 * sizing, chunk filling and the check of returned chunks.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "chunks.h"
#include "rchunks.h"
#include "xdr_buf.h"

#define MAX_OPS		40
#define MAX_ITEM	2048
#define MSG_MAX		(MAX_OPS * (MAX_ITEM + 8) + 8)

static char pattern[MAX_ITEM * 4];	/* caller memory the opaques point at */
static uint8_t want[MSG_MAX], got[MSG_MAX], inl[MSG_MAX], seen[MSG_MAX];
static char scratch[8192];

static uint32_t roundup4(uint32_t n)
{
	return (4 - (n & 3)) & 3;
}

/*
 * Build a Call: an xid first (a real Call never starts with data), then
 * u32s, fixed opaques and counted opaques as the input says.  false when
 * an item does not fit: the client then fails the call (RPC_CANTENCODEARGS)
 * and nothing is planned, so neither is anything here.
 */
static bool build_call(struct fuzz_in *in, struct rpcrdma_xdr_buf *xb)
{
	uint32_t scratch_len = fuzz_take(in, 2) % sizeof(scratch);
	uint32_t threshold = fuzz_take(in, 2) % (MAX_ITEM + 1);
	unsigned int op;
	XDR x;
	u_int u = fuzz_take(in, 4);

	FUZZ_CHECK(rpcrdma_xdrbuf_init(xb, scratch, scratch_len, threshold) == 0);
	rpcrdma_xdrbuf_create(&x, xb);
	if (!xdr_u_int(&x, &u))
		return false;
	for (op = 0; op < MAX_OPS && in->left; op++) {
		uint32_t kind = fuzz_take(in, 1) % 3;
		uint32_t len = fuzz_take(in, 2) % (MAX_ITEM + 1);
		char *base = pattern + fuzz_take(in, 1) * 7 % (sizeof(pattern) - MAX_ITEM);
		bool_t ok;

		u = fuzz_take(in, 4);
		if (kind == 0) {
			ok = xdr_u_int(&x, &u);
		} else if (kind == 1) {
			ok = xdr_opaque(&x, base, len);
		} else {
			u_int n = len;

			ok = xdr_bytes(&x, &base, &n, MAX_ITEM);
		}
		if (!ok)
			return false;
	}
	FUZZ_CHECK(xb->xb_len % 4 == 0);
	return true;
}

/* Lay every byte of [off, off+len) of the Call once. */
static void place(uint32_t off, uint32_t len, uint32_t total)
{
	uint32_t i;

	FUZZ_CHECK(off <= total && len <= total - off);
	for (i = 0; i < len; i++) {
		FUZZ_CHECK(!seen[off + i]);
		seen[off + i] = 1;
	}
}

/* The Responder's side: decode our header, map it, rebuild the Call. */
static void check_rebuild(const struct rpcrdma_call_plan *pl, uint32_t total)
{
	static uint8_t enc[RPCRDMA_HDRLEN_MAX];
	struct rpcrdma_chunk_limits lim_at, lim_below;
	struct rpcrdma_hdr h, d;
	struct rpcrdma_call_map m;
	ssize_t n, ilen;
	unsigned int i;

	memset(&h, 0, sizeof(h));
	h.hd_xid = 1;
	h.hd_vers = RPCRDMA_VERSION;
	h.hd_proc = pl->cp_kind == RPCRDMA_CALL_LONGCH ? RPCRDMA_NOMSG : RPCRDMA_MSG;
	h.hd_nreads = pl->cp_nrsegs;
	for (i = 0; i < pl->cp_nrsegs; i++) {
		h.hd_reads[i].rd_position = pl->cp_rsegs[i].rp_position;
		h.hd_reads[i].rd_seg.se_handle = i;
		h.hd_reads[i].rd_seg.se_length = pl->cp_rsegs[i].rp_len;
		/* The "remote address" is where the bytes are: a Read is a copy. */
		h.hd_reads[i].rd_seg.se_offset = (uintptr_t)pl->cp_rsegs[i].rp_addr;
	}
	n = rpcrdma_hdr_encode(enc, sizeof(enc), &h);
	FUZZ_CHECK(n > 0);
	FUZZ_CHECK(rpcrdma_hdr_decode(enc, (size_t)n, &d) == 0);
	FUZZ_CHECK(d.hd_nreads == h.hd_nreads && d.hd_hdrlen == (size_t)n);

	ilen = rpcrdma_xdrbuf_copy_out(&pl->cp_inline, inl, sizeof(inl));
	FUZZ_CHECK(ilen >= 0 && (size_t)ilen == pl->cp_inline.xb_len);
	lim_at = rpcrdma_limits_max_call(total);
	lim_below = rpcrdma_limits_max_call(total - 1);
	if (total)
		FUZZ_CHECK(rpcrdma_map_call(&d, (uint32_t)ilen, &lim_below, &m) == -EMSGSIZE);
	FUZZ_CHECK(rpcrdma_map_call(&d, (uint32_t)ilen, &lim_at, &m) == 0);
	FUZZ_CHECK(m.cm_len == total);

	memset(seen, 0, total);
	memset(got, 0xa5, total);
	for (i = 0; i < m.cm_ncopies; i++) {
		FUZZ_CHECK(m.cm_copies[i].cy_src <= ilen &&
			   m.cm_copies[i].cy_len <= ilen - m.cm_copies[i].cy_src);
		place(m.cm_copies[i].cy_dst, m.cm_copies[i].cy_len, total);
		memcpy(got + m.cm_copies[i].cy_dst, inl + m.cm_copies[i].cy_src,
		       m.cm_copies[i].cy_len);
	}
	for (i = 0; i < m.cm_npulls; i++) {
		const struct rpcrdma_pull *p = &m.cm_pulls[i];

		place(p->pl_dst, p->pl_seg.se_length, total);
		memcpy(got + p->pl_dst, (const void *)(uintptr_t)p->pl_seg.se_offset,
		       p->pl_seg.se_length);
	}
	for (i = 0; i < m.cm_nzeros; i++) {
		FUZZ_CHECK(m.cm_zeros[i].zr_len >= 1 && m.cm_zeros[i].zr_len <= 3);
		place(m.cm_zeros[i].zr_dst, m.cm_zeros[i].zr_len, total);
		memset(got + m.cm_zeros[i].zr_dst, 0, m.cm_zeros[i].zr_len);
	}
	for (i = 0; i < total; i++)
		FUZZ_CHECK(seen[i]);
	FUZZ_CHECK(memcmp(got, want, total) == 0);
}

static void fuzz_call(struct fuzz_in *in)
{
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_call_limits cl;
	struct rpcrdma_call_plan pl;
	unsigned int force, i, nrefs;
	uint64_t chunked = 0;
	ssize_t total;
	int rc;

	cl.cl_peer_inline = fuzz_take(in, 2);
	cl.cl_hdr_base = RPCRDMA_HDRLEN_MIN + 4 * (fuzz_take(in, 1) % 64);
	cl.cl_max_rsegs = fuzz_take(in, 1) % (RPCRDMA_CHUNK_MAX_RSEGS + 3);
	cl.cl_max_call = fuzz_take(in, 1) & 1 ? fuzz_take(in, 3) : 0;
	force = fuzz_take(in, 1) % 4;	/* 3 is no force at all */
	if (!build_call(in, &xb))
		return;
	total = rpcrdma_xdrbuf_copy_out(&xb, want, sizeof(want));
	FUZZ_CHECK(total >= 0 && (size_t)total == xb.xb_len);
	nrefs = rpcrdma_xdrbuf_nrefs(&xb);

	rc = rpcrdma_plan_call(&xb, &cl, (enum rpcrdma_call_force)force, &pl);
	if (force == 3) {
		FUZZ_CHECK(rc == -EINVAL);
		return;
	}
	FUZZ_CHECK(rc == 0 || rc == -EMSGSIZE);
	if (cl.cl_max_call && xb.xb_len > cl.cl_max_call)
		FUZZ_CHECK(rc == -EMSGSIZE);
	if (rc)
		return;
	FUZZ_CHECK(pl.cp_nrsegs <= cl.cl_max_rsegs &&
		   pl.cp_nrsegs <= RPCRDMA_CHUNK_MAX_RSEGS);
	FUZZ_CHECK(pl.cp_hdrlen == cl.cl_hdr_base + rpcrdma_read_list_size(pl.cp_nrsegs));
	FUZZ_CHECK((uint64_t)pl.cp_hdrlen + pl.cp_inline.xb_len <= cl.cl_peer_inline);
	for (i = 0; i < pl.cp_nrsegs; i++) {
		const struct rpcrdma_rseg_plan *r = &pl.cp_rsegs[i];

		FUZZ_CHECK(r->rp_len > 0);
		FUZZ_CHECK(r->rp_position % 4 == 0 && r->rp_position <= xb.xb_len);
		if (i)
			FUZZ_CHECK(r->rp_position >= pl.cp_rsegs[i - 1].rp_position);
		chunked += r->rp_len;
	}
	switch (pl.cp_kind) {
	case RPCRDMA_CALL_INLINE:
		FUZZ_CHECK(force != RPCRDMA_CALL_LONG);
		FUZZ_CHECK(force == RPCRDMA_CALL_AUTO || !nrefs);
		FUZZ_CHECK(!pl.cp_nrsegs && pl.cp_inline.xb_len == xb.xb_len);
		FUZZ_CHECK(memcmp(&pl.cp_inline, &xb, sizeof(xb)) == 0);
		return;
	case RPCRDMA_CALL_READCH:
		FUZZ_CHECK(force != RPCRDMA_CALL_LONG && nrefs);
		FUZZ_CHECK(pl.cp_nrsegs == nrefs);
		for (i = 0; i < pl.cp_nrsegs; i++) {
			FUZZ_CHECK(pl.cp_rsegs[i].rp_src == RPCRDMA_RS_CALLER);
			FUZZ_CHECK(pl.cp_rsegs[i].rp_position > 0);
			chunked += roundup4(pl.cp_rsegs[i].rp_len);
		}
		FUZZ_CHECK(chunked + pl.cp_inline.xb_len == xb.xb_len);
		break;
	case RPCRDMA_CALL_LONGCH:
		FUZZ_CHECK(pl.cp_nrsegs >= 1 && pl.cp_inline.xb_len == 0);
		for (i = 0; i < pl.cp_nrsegs; i++)
			FUZZ_CHECK(pl.cp_rsegs[i].rp_position == 0);
		FUZZ_CHECK(chunked == xb.xb_len);
		break;
	default:
		FUZZ_CHECK(!"unknown plan kind");
	}
	check_rebuild(&pl, (uint32_t)total);
}

static void fuzz_reply(struct fuzz_in *in)
{
	uint32_t max = fuzz_take(in, 1) & 1 ? fuzz_take(in, 4) : fuzz_take(in, 2);
	uint32_t dflt = fuzz_take(in, 3), recv = fuzz_take(in, 3);
	unsigned int force = fuzz_take(in, 1) % 4;
	uint32_t m = max ? max : dflt;
	uint32_t r = rpcrdma_plan_reply(max, dflt, recv, (enum rpcrdma_reply_force)force);

	FUZZ_CHECK(r % 4 == 0);
	switch (force) {
	case RPCRDMA_REPLY_NEVER:
	case 3:
		FUZZ_CHECK(r == 0);
		return;
	case RPCRDMA_REPLY_AUTO:
		if (!m || (uint64_t)m + RPCRDMA_HDRLEN_MIN <= recv) {
			FUZZ_CHECK(r == 0);
			return;
		}
		break;
	case RPCRDMA_REPLY_ALWAYS:
		if (!m)
			m = recv;
		break;
	}
	/* Big enough for the Reply, unless that is not expressible. */
	FUZZ_CHECK(r >= m || r == (UINT32_MAX & ~3u));
	FUZZ_CHECK(r - m < 4 || r < m);
}

static void take_chunk(struct fuzz_in *in, struct rpcrdma_chunk *ch)
{
	uint32_t i;

	memset(ch, 0, sizeof(*ch));
	ch->rc_nsegs = fuzz_take(in, 1) % (RPCRDMA_MAX_CHUNK_SEGS + 2);
	for (i = 0; i < ch->rc_nsegs && i < RPCRDMA_MAX_CHUNK_SEGS; i++) {
		ch->rc_segs[i].se_handle = fuzz_take(in, 1);
		ch->rc_segs[i].se_length = fuzz_take(in, 1) & 1 ? fuzz_take(in, 4) :
					   fuzz_take(in, 2);
		ch->rc_segs[i].se_offset = fuzz_take(in, 1) & 1 ?
			(uint64_t)fuzz_take(in, 4) << 32 | fuzz_take(in, 4) :
			fuzz_take(in, 2);
	}
}

/* What rpcrdma_chunk_returned must say, spelled out the long way. */
static bool returned_ok(const struct rpcrdma_chunk *o, const struct rpcrdma_chunk *r,
			uint64_t *sum)
{
	uint32_t i, last_full = 0;

	*sum = 0;
	if (r->rc_nsegs < 1 || r->rc_nsegs > o->rc_nsegs)
		return false;
	for (i = 0; i < r->rc_nsegs; i++) {
		if (r->rc_segs[i].se_handle != o->rc_segs[i].se_handle ||
		    r->rc_segs[i].se_offset != o->rc_segs[i].se_offset ||
		    r->rc_segs[i].se_length > o->rc_segs[i].se_length)
			return false;
		*sum += r->rc_segs[i].se_length;
	}
	/* Data is contiguous: segments before the last non-empty one are full. */
	for (i = 0; i < r->rc_nsegs; i++)
		if (r->rc_segs[i].se_length)
			last_full = i;
	for (i = 0; i < last_full; i++)
		if (r->rc_segs[i].se_length != o->rc_segs[i].se_length)
			return false;
	return true;
}

static void fuzz_chunks(struct fuzz_in *in)
{
	struct rpcrdma_chunk offered, written, returned;
	uint64_t cap = 0, total, want_sum, len;
	bool wraps = false;
	int64_t c;
	uint32_t i;
	int rc;

	take_chunk(in, &offered);
	if (offered.rc_nsegs > RPCRDMA_MAX_CHUNK_SEGS) {
		FUZZ_CHECK(rpcrdma_chunk_capacity(&offered) == -EBADMSG);
		return;
	}
	for (i = 0; i < offered.rc_nsegs; i++) {
		const struct rpcrdma_segment *s = &offered.rc_segs[i];

		wraps |= s->se_offset + s->se_length < s->se_offset;
		cap += s->se_length;
	}
	c = rpcrdma_chunk_capacity(&offered);
	FUZZ_CHECK(wraps ? c == -EBADMSG : c >= 0 && (uint64_t)c == cap);

	len = fuzz_take(in, 1) & 1 ? cap - fuzz_take(in, 2) % (cap + 1) :
	      (uint64_t)fuzz_take(in, 4) << 8;
	rc = rpcrdma_fill_chunk(&offered, len, &written);
	if (wraps || len > cap) {
		FUZZ_CHECK(rc == -EMSGSIZE);
	} else {
		FUZZ_CHECK(rc == 0);
		/* A Reply filled by us passes our own client's check, if sent. */
		if (offered.rc_nsegs) {
			FUZZ_CHECK(rpcrdma_chunk_returned(&offered, &written, &total) == 0);
			FUZZ_CHECK(total == len);
		} else {
			FUZZ_CHECK(len == 0);
		}
	}

	take_chunk(in, &returned);
	if (returned.rc_nsegs > RPCRDMA_MAX_CHUNK_SEGS)
		returned.rc_nsegs = RPCRDMA_MAX_CHUNK_SEGS;
	/* Half the time, a small edit of what was offered. */
	if (fuzz_take(in, 1) & 1) {
		returned = offered;
		if (returned.rc_nsegs) {
			i = fuzz_take(in, 1) % returned.rc_nsegs;
			returned.rc_segs[i].se_length -= fuzz_take(in, 1);
			returned.rc_nsegs -= fuzz_take(in, 1) % returned.rc_nsegs;
		}
	}
	rc = rpcrdma_chunk_returned(&offered, &returned, &total);
	FUZZ_CHECK(rc == 0 || rc == -EBADMSG);
	FUZZ_CHECK((rc == 0) == returned_ok(&offered, &returned, &want_sum));
	FUZZ_CHECK(rc ? total == 0 : total == want_sum);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	static bool ready;
	size_t i;

	if (!ready) {
		for (i = 0; i < sizeof(pattern); i++)
			pattern[i] = (char)(i * 131 + (i >> 8));
		ready = true;
	}
	switch (fuzz_take(&in, 1) % 3) {
	case 0:
		fuzz_call(&in);
		break;
	case 1:
		fuzz_reply(&in);
		break;
	default:
		fuzz_chunks(&in);
		break;
	}
	return 0;
}
