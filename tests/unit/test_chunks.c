/*
 * Unit test: the chunk planner.  Real xdr_bufs are planned, then a
 * Responder is simulated (read list data inserted at its positions, XDR
 * roundup restored) and the result must be the Call byte for byte, for
 * every size residue mod 4; plus tables for Reply chunk sizing and for
 * the checks on returned chunks.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <rpc/rpc.h>

#include "chunks.h"
#include "xdr_dec.h"

#define THRESH 1024
#define HDRMIN RPCRDMA_HDRLEN_MIN
static char scratch[4096];
static char pay1[70000], pay2[70000];

static const struct rpcrdma_call_limits lim4k = { 4096, HDRMIN, 16, 0 };

/* u_int 7, opaque<> @l1, u_int 9, opaque<> @l2 (if any), u_int 11. */
static void build(struct rpcrdma_xdr_buf *xb, u_int l1, u_int l2)
{
	char *p1 = pay1, *p2 = pay2;
	u_int a = 7, b = 9, c = 11;
	XDR x;

	ck_assert_int_eq(rpcrdma_xdrbuf_init(xb, scratch, sizeof(scratch),
					     THRESH), 0);
	rpcrdma_xdrbuf_create(&x, xb);
	ck_assert(xdr_u_int(&x, &a));
	ck_assert(xdr_bytes(&x, &p1, &l1, ~0u));
	ck_assert(xdr_u_int(&x, &b));
	if (l2)
		ck_assert(xdr_bytes(&x, &p2, &l2, ~0u));
	ck_assert(xdr_u_int(&x, &c));
}

/*
 * What a Responder does with the plan (RFC 8166 3.5.3): long Call, the
 * position-zero chunk's segments concatenated; otherwise the inline bytes
 * with each chunk inserted at its position, followed by its roundup.
 * Returns the length of the rebuilt Call in @out.
 */
static size_t rebuild(const struct rpcrdma_call_plan *pl, char *out, size_t max)
{
	static char in[8192];
	size_t inlen = 0, ip = 0, op = 0;
	unsigned int i;

	for (i = 0; i < pl->cp_inline.xb_nsegs; i++) {
		memcpy(in + inlen, pl->cp_inline.xb_segs[i].xs_base,
		       pl->cp_inline.xb_segs[i].xs_len);
		inlen += pl->cp_inline.xb_segs[i].xs_len;
	}
	ck_assert_uint_eq(inlen, pl->cp_inline.xb_len);
	for (i = 0; i < pl->cp_nrsegs; i++) {
		const struct rpcrdma_rseg_plan *r = &pl->cp_rsegs[i];
		size_t gap;

		ck_assert_uint_eq(r->rp_position % 4, 0);
		if (pl->cp_kind == RPCRDMA_CALL_LONGCH) {
			ck_assert_uint_eq(r->rp_position, 0);
			gap = 0;
		} else {
			ck_assert_uint_ge(r->rp_position, op);
			gap = r->rp_position - op;
		}
		ck_assert_uint_le(ip + gap, inlen);
		memcpy(out + op, in + ip, gap);
		ip += gap;
		op += gap;
		ck_assert_uint_le(op + r->rp_len + 3, max);
		memcpy(out + op, r->rp_addr, r->rp_len);
		op += r->rp_len;
		if (pl->cp_kind != RPCRDMA_CALL_LONGCH)
			while (op & 3)
				out[op++] = 0;
	}
	memcpy(out + op, in + ip, inlen - ip);
	return op + inlen - ip;
}

static void check_rebuild(const struct rpcrdma_xdr_buf *xb,
			  const struct rpcrdma_call_plan *pl)
{
	static char want[150000], got[150000];
	ssize_t n = rpcrdma_xdrbuf_copy_out(xb, want, sizeof(want));

	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(rebuild(pl, got, sizeof(got)), (size_t)n);
	ck_assert(!memcmp(want, got, (size_t)n));
}

static void fill(void)
{
	size_t i;

	for (i = 0; i < sizeof(pay1); i++) {
		pay1[i] = (char)(i * 7 + 1);
		pay2[i] = (char)(i * 13 + 5);
	}
}

/* Small Calls stay inline under AUTO: no read list, header minimal. */
START_TEST(auto_inline)
{
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_call_plan pl;

	build(&xb, 100, 0);
	ck_assert_int_eq(rpcrdma_plan_call(&xb, &lim4k, RPCRDMA_CALL_AUTO, &pl), 0);
	ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_INLINE);
	ck_assert_uint_eq(pl.cp_nrsegs, 0);
	ck_assert_uint_eq(pl.cp_hdrlen, HDRMIN);
	/* 2 KiB is referenced (>= threshold) but still fits inline */
	build(&xb, 2048, 0);
	ck_assert_int_eq(rpcrdma_plan_call(&xb, &lim4k, RPCRDMA_CALL_AUTO, &pl), 0);
	ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_INLINE);
	check_rebuild(&xb, &pl);
}
END_TEST

/* Every size from the threshold up, all residues mod 4, both opaques. */
START_TEST(readch_rebuilds)
{
	static const u_int sizes[] = { 4061, 4062, 4063, 4064, 4068, 4069,
				       8192, 8193, 65535, 65536, 65537, 65538 };
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_call_plan pl;
	unsigned int i;

	fill();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		build(&xb, sizes[i], 0);
		ck_assert_int_eq(rpcrdma_plan_call(&xb, &lim4k,
						   RPCRDMA_CALL_AUTO, &pl), 0);
		ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_READCH);
		ck_assert_uint_eq(pl.cp_nrsegs, 1);
		/* u_int + opaque length come first */
		ck_assert_uint_eq(pl.cp_rsegs[0].rp_position, 8);
		ck_assert_uint_eq(pl.cp_rsegs[0].rp_len, sizes[i]);
		ck_assert_ptr_eq(pl.cp_rsegs[0].rp_addr, pay1);
		ck_assert_int_eq(pl.cp_rsegs[0].rp_src, RPCRDMA_RS_CALLER);
		/* inline: 7, len, 9, 11; the roundup is gone */
		ck_assert_uint_eq(pl.cp_inline.xb_len, 16);
		ck_assert_uint_eq(pl.cp_hdrlen, HDRMIN + 24);
		check_rebuild(&xb, &pl);

		/* two chunks: the second's position counts the first's roundup */
		build(&xb, sizes[i], sizes[(i + 3) % 12]);
		ck_assert_int_eq(rpcrdma_plan_call(&xb, &lim4k,
						   RPCRDMA_CALL_AUTO, &pl), 0);
		ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_READCH);
		ck_assert_uint_eq(pl.cp_nrsegs, 2);
		ck_assert_uint_eq(pl.cp_rsegs[1].rp_position,
				  8 + ((sizes[i] + 3) & ~3u) + 8);
		ck_assert_uint_eq(pl.cp_hdrlen, HDRMIN + 48);
		check_rebuild(&xb, &pl);
	}
}
END_TEST

/* Forced kinds: READ even when inline would do; LONG always. */
START_TEST(forced)
{
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_call_plan pl;
	unsigned int i, total = 0;

	fill();
	build(&xb, 1025, 0);
	ck_assert_int_eq(rpcrdma_plan_call(&xb, &lim4k, RPCRDMA_CALL_READ, &pl), 0);
	ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_READCH);
	check_rebuild(&xb, &pl);
	ck_assert_int_eq(rpcrdma_plan_call(&xb, &lim4k, RPCRDMA_CALL_LONG, &pl), 0);
	ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_LONGCH);
	ck_assert_uint_eq(pl.cp_inline.xb_len, 0);
	for (i = 0; i < pl.cp_nrsegs; i++) {
		ck_assert_uint_eq(pl.cp_rsegs[i].rp_position, 0);
		total += pl.cp_rsegs[i].rp_len;
	}
	/* the long chunk is the whole stream, roundup included */
	ck_assert_uint_eq(total, rpcrdma_xdrbuf_len(&xb));
	ck_assert_int_eq(pl.cp_rsegs[0].rp_src, RPCRDMA_RS_SCRATCH);
	ck_assert_int_eq(pl.cp_rsegs[1].rp_src, RPCRDMA_RS_CALLER);
	check_rebuild(&xb, &pl);
	/* READ with nothing referenced: inline if it fits */
	build(&xb, 100, 0);
	ck_assert_int_eq(rpcrdma_plan_call(&xb, &lim4k, RPCRDMA_CALL_READ, &pl), 0);
	ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_INLINE);
	ck_assert_int_eq(rpcrdma_plan_call(&xb, &lim4k, 99, &pl), -EINVAL);
}
END_TEST

/* Nothing referenced and too big for the peer: long Call. */
START_TEST(long_when_nothing_ddp)
{
	static const struct rpcrdma_call_limits tiny = { 1024, HDRMIN, 16, 0 };
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_call_plan pl;

	fill();
	build(&xb, 1000, 0);	/* below THRESH: copied, 1020 bytes of Call */
	ck_assert_uint_eq(rpcrdma_xdrbuf_nrefs(&xb), 0);
	ck_assert_int_eq(rpcrdma_plan_call(&xb, &tiny, RPCRDMA_CALL_AUTO, &pl), 0);
	ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_LONGCH);
	ck_assert_uint_eq(pl.cp_nrsegs, 1);
	ck_assert_uint_eq(pl.cp_rsegs[0].rp_len, rpcrdma_xdrbuf_len(&xb));
	check_rebuild(&xb, &pl);
}
END_TEST

/* The reduced inline part still too big: long Call instead. */
START_TEST(readch_falls_back_to_long)
{
	static const struct rpcrdma_call_limits tiny = { 1024, HDRMIN, 16, 0 };
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_call_plan pl;
	char *p1 = pay1;
	u_int l1 = 2000, i, v = 3;
	XDR x;

	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, sizeof(scratch),
					     THRESH), 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	ck_assert(xdr_bytes(&x, &p1, &l1, ~0u));
	for (i = 0; i < 300; i++)	/* 1200 copied bytes after it */
		ck_assert(xdr_u_int(&x, &v));
	ck_assert_int_eq(rpcrdma_plan_call(&xb, &tiny, RPCRDMA_CALL_AUTO, &pl), 0);
	ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_LONGCH);
	check_rebuild(&xb, &pl);
}
END_TEST

START_TEST(call_limits)
{
	static const struct rpcrdma_call_limits max = { 4096, HDRMIN, 16, 8192 };
	static const struct rpcrdma_call_limits one = { 4096, HDRMIN, 1, 0 };
	static const struct rpcrdma_call_limits nohdr = { 40, HDRMIN, 16, 0 };
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_call_plan pl;

	fill();
	build(&xb, 9000, 0);
	ck_assert_int_eq(rpcrdma_plan_call(&xb, &max, RPCRDMA_CALL_AUTO, &pl),
			 -EMSGSIZE);
	/* two chunks, one segment allowed, long needs 5: refused */
	build(&xb, 5000, 5000);
	ck_assert_int_eq(rpcrdma_plan_call(&xb, &one, RPCRDMA_CALL_AUTO, &pl),
			 -EMSGSIZE);
	/* a header with read list that the peer cannot receive */
	build(&xb, 5000, 0);
	ck_assert_int_eq(rpcrdma_plan_call(&xb, &nohdr, RPCRDMA_CALL_AUTO, &pl),
			 -EMSGSIZE);
}
END_TEST

/* ---- Reply chunk sizing --------------------------------------------------- */
struct reply_row {
	uint32_t max, dflt, recv;
	enum rpcrdma_reply_force force;
	uint32_t want;
};

static const struct reply_row reply_rows[] = {
	{ 0, 0, 4096, RPCRDMA_REPLY_AUTO, 0 },		/* nothing known, no default */
	{ 0, 1048576, 4096, RPCRDMA_REPLY_AUTO, 1048576 },	/* the default */
	{ 100, 1048576, 4096, RPCRDMA_REPLY_AUTO, 0 },	/* hint: fits */
	{ 4096 - HDRMIN, 1048576, 4096, RPCRDMA_REPLY_AUTO, 0 },	/* exactly fits */
	{ 4096 - HDRMIN + 1, 0, 4096, RPCRDMA_REPLY_AUTO, 4072 },	/* rounded */
	{ 70001, 0, 4096, RPCRDMA_REPLY_AUTO, 70004 },
	{ 100, 0, 4096, RPCRDMA_REPLY_ALWAYS, 100 },
	{ 0, 0, 4096, RPCRDMA_REPLY_ALWAYS, 4096 },
	{ 1048576, 0, 4096, RPCRDMA_REPLY_NEVER, 0 },
	{ UINT32_MAX, 0, 4096, RPCRDMA_REPLY_AUTO, UINT32_MAX & ~3u },
	{ 1048576, 0, 4096, 42, 0 },
};

START_TEST(reply_table)
{
	const struct reply_row *r = &reply_rows[_i];

	ck_assert_uint_eq(rpcrdma_plan_reply(r->max, r->dflt, r->recv, r->force),
			  r->want);
}
END_TEST

/* ---- learning which procedures need a Reply chunk ------------------------ */
START_TEST(reply_learning)
{
	enum rpcrdma_reply_seen s = RPCRDMA_SEEN_NOTHING;

	/* On every device: the first call probes, inline Replies stop it. */
	ck_assert(rpcrdma_offer_unknown(s));
	s = rpcrdma_reply_learn(s, true, false, false);
	ck_assert_int_eq(s, RPCRDMA_SEEN_INLINE);
	ck_assert(!rpcrdma_offer_unknown(s));
	/* Calls that offered nothing and came back inline teach nothing. */
	ck_assert_int_eq(rpcrdma_reply_learn(s, false, false, false),
			 RPCRDMA_SEEN_INLINE);
	ck_assert_int_eq(rpcrdma_reply_learn(RPCRDMA_SEEN_NOTHING, false,
					     false, false),
			 RPCRDMA_SEEN_NOTHING);
	/* A refusal for want of a chunk, or a Reply in one, is for good. */
	s = rpcrdma_reply_learn(s, false, false, true);
	ck_assert_int_eq(s, RPCRDMA_SEEN_CHUNK);
	ck_assert(rpcrdma_offer_unknown(s));
	ck_assert_int_eq(rpcrdma_reply_learn(s, true, false, false),
			 RPCRDMA_SEEN_CHUNK);
	ck_assert_int_eq(rpcrdma_reply_learn(RPCRDMA_SEEN_NOTHING, true, true,
					     false),
			 RPCRDMA_SEEN_CHUNK);
}
END_TEST

/* ---- returned chunks ------------------------------------------------------ */
static struct rpcrdma_chunk chunk(unsigned n, const uint32_t *lens)
{
	struct rpcrdma_chunk c;
	unsigned i;

	memset(&c, 0, sizeof(c));
	c.rc_nsegs = n;
	for (i = 0; i < n; i++) {
		c.rc_segs[i].se_handle = 0x100 + i;
		c.rc_segs[i].se_length = lens[i];
		c.rc_segs[i].se_offset = 0x7f0000000000ull + i * 0x100000ull;
	}
	return c;
}

START_TEST(returned_checks)
{
	static const uint32_t off1[] = { 65536 }, off3[] = { 4096, 4096, 4096 };
	static const uint32_t r_ok[] = { 1000 }, r_zero[] = { 0 };
	static const uint32_t r_long[] = { 65537 };
	static const uint32_t r3_ok[] = { 4096, 100, 0 }, r3_hole[] = { 4096, 0, 8 };
	static const uint32_t r3_full[] = { 4096, 4096, 4096 };
	struct rpcrdma_chunk o1 = chunk(1, off1), o3 = chunk(3, off3), r;
	uint64_t total;

	r = chunk(1, r_ok);
	ck_assert_int_eq(rpcrdma_chunk_returned(&o1, &r, &total), 0);
	ck_assert_uint_eq(total, 1000);
	r = chunk(1, r_zero);	/* unused chunk */
	ck_assert_int_eq(rpcrdma_chunk_returned(&o1, &r, &total), 0);
	ck_assert_uint_eq(total, 0);
	r = chunk(1, r_long);	/* more than offered */
	ck_assert_int_eq(rpcrdma_chunk_returned(&o1, &r, &total), -EBADMSG);
	r = chunk(1, r_ok);
	r.rc_segs[0].se_handle ^= 1;	/* not our handle */
	ck_assert_int_eq(rpcrdma_chunk_returned(&o1, &r, &total), -EBADMSG);
	r = chunk(1, r_ok);
	r.rc_segs[0].se_offset += 4;	/* not our offset */
	ck_assert_int_eq(rpcrdma_chunk_returned(&o1, &r, &total), -EBADMSG);
	r = chunk(3, r3_ok);
	ck_assert_int_eq(rpcrdma_chunk_returned(&o1, &r, &total), -EBADMSG);
	ck_assert_int_eq(rpcrdma_chunk_returned(&o3, &r, &total), 0);
	ck_assert_uint_eq(total, 4196);
	r = chunk(3, r3_hole);
	ck_assert_int_eq(rpcrdma_chunk_returned(&o3, &r, &total), -EBADMSG);
	r = chunk(3, r3_full);
	ck_assert_int_eq(rpcrdma_chunk_returned(&o3, &r, &total), 0);
	ck_assert_uint_eq(total, 3 * 4096);
	r = chunk(1, r_ok);
	r.rc_nsegs = 0;
	ck_assert_int_eq(rpcrdma_chunk_returned(&o1, &r, &total), -EBADMSG);
}
END_TEST

/* Lengths near 2^32 must not wrap in the sum (a libevpl-style bug). */
START_TEST(returned_no_wrap)
{
	static const uint32_t big[] = { UINT32_MAX, UINT32_MAX };
	struct rpcrdma_chunk o = chunk(2, big), r = chunk(2, big);
	uint64_t total;

	ck_assert_int_eq(rpcrdma_chunk_returned(&o, &r, &total), 0);
	ck_assert_uint_eq(total, 2ull * UINT32_MAX);
}
END_TEST

START_TEST(sizes)
{
	ck_assert_uint_eq(rpcrdma_read_list_size(2), 48);
	ck_assert_uint_eq(rpcrdma_write_chunk_size(1), 24);
	ck_assert_uint_eq(rpcrdma_reply_chunk_size(1), 20);
}
END_TEST

/* ---- the Reply decoder and the Write chunk ------------------------------ */
static char inl[8192] __attribute__((aligned(8)));
static char target[8192];

/* u_int 5, opaque<> of @n bytes (inline only if @with_data), u_int 6. */
static uint32_t reply_inline(u_int n, bool with_data)
{
	XDR x;
	u_int a = 5, b = 6;

	xdrmem_create(&x, inl, sizeof(inl), XDR_ENCODE);
	ck_assert(xdr_u_int(&x, &a));
	if (with_data) {
		char *p = pay1;

		ck_assert(xdr_bytes(&x, &p, &n, ~0u));
	} else {
		ck_assert(xdr_u_int(&x, &n));
	}
	ck_assert(xdr_u_int(&x, &b));
	return xdr_getpos(&x);
}

/* 1 if decoding succeeds, with the data and trailer checked. */
static int decode(uint32_t len, struct rpcrdma_ddp_target *t, u_int n,
		  char *into, int *finish)
{
	struct rpcrdma_xdr_dec xd;
	u_int a = 0, b = 0, got = 0;
	char *p = into;
	XDR x;
	int ok;

	rpcrdma_xdrdec_create(&x, &xd, inl, len, t);
	ok = xdr_u_int(&x, &a) && xdr_bytes(&x, &p, &got, ~0u) &&
	     xdr_u_int(&x, &b);
	*finish = rpcrdma_xdrdec_finish(&xd);
	if (!ok)
		return 0;
	ck_assert_uint_eq(a, 5);
	ck_assert_uint_eq(b, 6);
	ck_assert_uint_eq(got, n);
	ck_assert_ptr_eq(p, into);
	ck_assert(!memcmp(p, pay1, n));
	return 1;
}

START_TEST(ddp_decode)
{
	static const u_int dsizes[] = { 1, 2, 3, 4, 4093, 4094, 4095, 4096 };
	struct rpcrdma_ddp_target t;
	unsigned int i;
	uint32_t len;
	int fin;

	fill();
	for (i = 0; i < sizeof(dsizes) / sizeof(dsizes[0]); i++) {
		u_int n = dsizes[i], pad = (4 - (n & 3)) & 3;

		/* placed: the data is in the target, not inline */
		len = reply_inline(n, false);
		memset(target, 0, sizeof(target));
		memcpy(target, pay1, n);
		t = (struct rpcrdma_ddp_target){ target, sizeof(target), n, false };
		ck_assert_int_eq(decode(len, &t, n, target, &fin), 1);
		ck_assert(t.dt_consumed);
		ck_assert_int_eq(fin, 0);
		/* the Responder wrote the roundup too: still fine */
		t.dt_written = n + pad;
		ck_assert_int_eq(decode(len, &t, n, target, &fin), 1);
		/* fewer bytes written than the length word says: refused */
		t.dt_written = n - 1;
		if (n > 1)
			ck_assert_int_eq(decode(len, &t, n, target, &fin), 0);
		t.dt_written = n + pad + 1;
		ck_assert_int_eq(decode(len, &t, n, target, &fin), 0);
		/* the target too small for the announced length */
		t = (struct rpcrdma_ddp_target){ target, n - 1, n, false };
		if (n > 1)
			ck_assert_int_eq(decode(len, &t, n, target, &fin), 0);

		/* unused chunk (length 0): the data came inline, into target */
		len = reply_inline(n, true);
		memset(target, 0, sizeof(target));
		t = (struct rpcrdma_ddp_target){ target, sizeof(target), 0, false };
		ck_assert_int_eq(decode(len, &t, n, target, &fin), 1);
		ck_assert(t.dt_consumed);
		ck_assert_int_eq(fin, 0);
		/* no target at all: plain xdrmem behaviour, into any buffer */
		ck_assert_int_eq(decode(len, NULL, n, target + 100, &fin), 1);
	}
}
END_TEST

/* Data written to the chunk that the decoder never asked for. */
START_TEST(ddp_not_consumed)
{
	struct rpcrdma_ddp_target t = { target, sizeof(target), 100, false };
	uint32_t len;
	int fin;

	fill();
	len = reply_inline(100, true);
	/* decoded into another buffer: the chunk's data is left over */
	ck_assert_int_eq(decode(len, &t, 100, target + 200, &fin), 1);
	ck_assert(!t.dt_consumed);
	ck_assert_int_eq(fin, -EBADMSG);
}
END_TEST

/* Truncated inline data never reads past the end. */
START_TEST(dec_bounds)
{
	uint32_t len;
	int fin;

	fill();
	len = reply_inline(1000, true);
	ck_assert_int_eq(decode(len - 5, NULL, 1000, target, &fin), 0);
	ck_assert_int_eq(decode(len, NULL, 1000, target, &fin), 1);
}
END_TEST

/*
 * A Reply chunk offered only because the Reply's bound is unknown is
 * dropped when its 20 header bytes alone push the Call out of inline,
 * and only then: a known bound, a forced kind, or a Call too large
 * either way keep it.
 */
START_TEST(unknown_reply_dropped)
{
	const uint32_t rch = rpcrdma_reply_chunk_size(1);
	const struct rpcrdma_call_limits lim = { 4096, HDRMIN + rch, 16, 0 };
	/* Header and Call: 4096 bytes less 8 alone, 12 over with the chunk. */
	const u_int edge = 4096 - HDRMIN - 16 - 8;
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_call_plan pl;
	uint32_t reply_len;

	build(&xb, edge, 0);
	reply_len = 1024;
	ck_assert_int_eq(rpcrdma_plan_call_reply(&xb, &lim, RPCRDMA_CALL_AUTO,
						 RPCRDMA_REPLY_AUTO, true,
						 &reply_len, &pl), 0);
	ck_assert_uint_eq(reply_len, 0);
	ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_INLINE);
	ck_assert_uint_eq(pl.cp_hdrlen, HDRMIN);
	check_rebuild(&xb, &pl);

	/* The bound is known: the chunk is wanted, the Call takes chunks. */
	reply_len = 1024;
	ck_assert_int_eq(rpcrdma_plan_call_reply(&xb, &lim, RPCRDMA_CALL_AUTO,
						 RPCRDMA_REPLY_AUTO, false,
						 &reply_len, &pl), 0);
	ck_assert_uint_eq(reply_len, 1024);
	ck_assert_int_ne(pl.cp_kind, RPCRDMA_CALL_INLINE);

	/* reply_chunks=always: the offer is the program's choice. */
	reply_len = 1024;
	ck_assert_int_eq(rpcrdma_plan_call_reply(&xb, &lim, RPCRDMA_CALL_AUTO,
						 RPCRDMA_REPLY_ALWAYS, true,
						 &reply_len, &pl), 0);
	ck_assert_uint_eq(reply_len, 1024);
	ck_assert_int_ne(pl.cp_kind, RPCRDMA_CALL_INLINE);

	/* call_chunks=read: Read chunks were asked for anyway. */
	reply_len = 1024;
	ck_assert_int_eq(rpcrdma_plan_call_reply(&xb, &lim, RPCRDMA_CALL_READ,
						 RPCRDMA_REPLY_AUTO, true,
						 &reply_len, &pl), 0);
	ck_assert_uint_eq(reply_len, 1024);
	ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_READCH);

	/* Inline with the chunk: nothing to drop. */
	build(&xb, edge - 12, 0);
	reply_len = 1024;
	ck_assert_int_eq(rpcrdma_plan_call_reply(&xb, &lim, RPCRDMA_CALL_AUTO,
						 RPCRDMA_REPLY_AUTO, true,
						 &reply_len, &pl), 0);
	ck_assert_uint_eq(reply_len, 1024);
	ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_INLINE);
	ck_assert_uint_eq(pl.cp_hdrlen, HDRMIN + rch);

	/* Not inline even without it: the chunk stays. */
	build(&xb, edge + 12, 0);
	reply_len = 1024;
	ck_assert_int_eq(rpcrdma_plan_call_reply(&xb, &lim, RPCRDMA_CALL_AUTO,
						 RPCRDMA_REPLY_AUTO, true,
						 &reply_len, &pl), 0);
	ck_assert_uint_eq(reply_len, 1024);
	ck_assert_int_ne(pl.cp_kind, RPCRDMA_CALL_INLINE);

	/* No chunk offered: the plan is rpcrdma_plan_call's. */
	build(&xb, edge, 0);
	reply_len = 0;
	ck_assert_int_eq(rpcrdma_plan_call_reply(&xb, &lim4k, RPCRDMA_CALL_AUTO,
						 RPCRDMA_REPLY_AUTO, true,
						 &reply_len, &pl), 0);
	ck_assert_uint_eq(reply_len, 0);
	ck_assert_int_eq(pl.cp_kind, RPCRDMA_CALL_INLINE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chunks");
	TCase *tc = tcase_create("call");
	TCase *tr = tcase_create("reply");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, auto_inline);
	tcase_add_test(tc, readch_rebuilds);
	tcase_add_test(tc, forced);
	tcase_add_test(tc, long_when_nothing_ddp);
	tcase_add_test(tc, readch_falls_back_to_long);
	tcase_add_test(tc, call_limits);
	tcase_add_test(tc, unknown_reply_dropped);
	suite_add_tcase(s, tc);
	tcase_add_loop_test(tr, reply_table, 0,
			    sizeof(reply_rows) / sizeof(reply_rows[0]));
	tcase_add_test(tr, returned_checks);
	tcase_add_test(tr, reply_learning);
	tcase_add_test(tr, returned_no_wrap);
	tcase_add_test(tr, sizes);
	tcase_add_test(tr, ddp_decode);
	tcase_add_test(tr, ddp_not_consumed);
	tcase_add_test(tr, dec_bounds);
	suite_add_tcase(s, tr);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
