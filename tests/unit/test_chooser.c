/*
 * Unit test: the Send chooser picks the expected chunk type and fallback
 * reason over a table of message shapes x device limits x strategy, and
 * the SGE planner gathers real xdr_bufs exactly as copy_out linearizes them.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <rpc/rpc.h>

#include "chooser.h"

/* ---- device limits ------------------------------------------------------ */
/* max_inline, max_sge, sendbuf, peer_inline, inline_cutoff, mapped_min */
static const struct rpcrdma_send_limits rxe = { 512, 32, 4096, 4096, 512, 1024 };
static const struct rpcrdma_send_limits siw80 = { 80, 6, 4096, 4096, 256, 1024 };
static const struct rpcrdma_send_limits siw0 = { 0, 6, 4096, 4096, 256, 1024 };
static const struct rpcrdma_send_limits sge1 = { 256, 1, 1024, 4096, 256, 1024 };
static const struct rpcrdma_send_limits tiny = { 512, 32, 256, 4096, 128, 1024 };
/* AUTO tunables off: never prefers inline nor mapped. */
static const struct rpcrdma_send_limits noauto = { 512, 32, 4096, 4096, 0, 0 };

#define SH(h, m, n, r, rb, map) { (h), (m), (n), (r), (rb), (map) }
#define HDR 28		/* a minimal RDMA_MSG header, no chunk lists */

#define AUTO	RPCRDMA_STRAT_AUTO
#define S_INL	RPCRDMA_STRAT_INLINE
#define S_PUL	RPCRDMA_STRAT_PULLUP
#define S_MAP	RPCRDMA_STRAT_MAPPED
#define INL	RPCRDMA_NOCH_INLINE
#define PUL	RPCRDMA_NOCH_PULLUP
#define MAP	RPCRDMA_NOCH_MAPPED
#define NONE	RPCRDMA_FB_NONE
#define SGES	RPCRDMA_FB_TOO_MANY_SGES
#define BIGINL	RPCRDMA_FB_TOO_BIG_FOR_INLINE
#define BIGBUF	RPCRDMA_FB_TOO_BIG_FOR_SENDBUF
#define NOMAP	RPCRDMA_FB_NOT_MAPPABLE
#define BIGPEER	RPCRDMA_FB_TOO_BIG_FOR_PEER

struct row {
	const char *what;
	const struct rpcrdma_send_limits *dev;
	struct rpcrdma_msg_shape shape;
	enum rpcrdma_strategy strat;
	int rc;				/* 0 or -EMSGSIZE */
	enum rpcrdma_chunktype type;	/* checked when rc == 0 */
	enum rpcrdma_fallback fb;	/* checked always */
	unsigned int nsge;		/* checked when rc == 0 */
};

static const struct row rows[] = {
	/* rxe: inline granted 512, 32 SGEs; sizes around the grant */
	{ "rxe at grant", &rxe, SH(HDR, 484, 1, 0, 0, true), AUTO, 0, INL, NONE, 2 },
	{ "rxe grant+1", &rxe, SH(HDR, 485, 1, 0, 0, true), AUTO, 0, PUL, NONE, 1 },
	{ "rxe force inline at grant", &rxe, SH(HDR, 484, 1, 0, 0, true), S_INL, 0, INL, NONE, 2 },
	{ "rxe force inline grant+1", &rxe, SH(HDR, 485, 1, 0, 0, true), S_INL, 0, PUL, BIGINL, 1 },
	{ "rxe force pullup small", &rxe, SH(HDR, 100, 1, 0, 0, true), S_PUL, 0, PUL, NONE, 1 },
	{ "rxe force mapped no refs", &rxe, SH(HDR, 100, 1, 0, 0, true), S_MAP, 0, MAP, NONE, 2 },
	/* the peer's inline threshold (4096 here) bounds every strategy */
	{ "rxe at peer", &rxe, SH(HDR, 4068, 1, 0, 0, true), AUTO, 0, PUL, NONE, 1 },
	{ "rxe peer+1 auto", &rxe, SH(HDR, 4069, 1, 0, 0, true), AUTO, -EMSGSIZE, PUL, BIGPEER, 0 },
	{ "rxe peer+1 inline", &rxe, SH(HDR, 4069, 1, 0, 0, true), S_INL, -EMSGSIZE, INL, BIGPEER, 0 },
	{ "rxe peer+1 pullup", &rxe, SH(HDR, 4069, 1, 0, 0, true), S_PUL, -EMSGSIZE, PUL, BIGPEER, 0 },
	{ "rxe peer+1 mapped", &rxe, SH(HDR, 4069, 3, 1, 4061, true), S_MAP, -EMSGSIZE, MAP, BIGPEER, 0 },
	/* mapped_min (1024) on referenced bytes: one below, at */
	{ "rxe refs below mapped_min", &rxe, SH(HDR, 1032, 3, 1, 1023, true), AUTO, 0, PUL, NONE, 1 },
	{ "rxe refs at mapped_min", &rxe, SH(HDR, 1032, 3, 1, 1024, true), AUTO, 0, MAP, NONE, 4 },
	{ "rxe refs not mappable", &rxe, SH(HDR, 1032, 3, 1, 1024, false), AUTO, 0, PUL, NOMAP, 1 },
	{ "rxe force mapped not mappable", &rxe, SH(HDR, 1032, 3, 1, 1024, false), S_MAP, 0, PUL, NOMAP, 1 },
	{ "rxe force mapped small unmappable inline", &rxe, SH(HDR, 300, 3, 1, 200, false), S_MAP, 0, INL, NOMAP, 4 },
	{ "rxe 31 segs mapped", &rxe, SH(HDR, 3000, 31, 15, 2800, true), AUTO, 0, MAP, NONE, 32 },
	{ "rxe 32 segs mapped", &rxe, SH(HDR, 3000, 32, 16, 2800, true), AUTO, 0, PUL, SGES, 1 },
	{ "rxe refs too small unmappable", &rxe, SH(HDR, 1032, 3, 1, 1023, false), AUTO, 0, PUL, NONE, 1 },

	/* siw: inline 80, 6 SGEs; cutoff 256 is clamped to the grant */
	{ "siw at grant", &siw80, SH(HDR, 52, 1, 0, 0, true), AUTO, 0, INL, NONE, 2 },
	{ "siw grant+1", &siw80, SH(HDR, 53, 1, 0, 0, true), AUTO, 0, PUL, NONE, 1 },
	{ "siw force inline grant+1", &siw80, SH(HDR, 53, 1, 0, 0, true), S_INL, 0, PUL, BIGINL, 1 },
	{ "siw inline 6 sges", &siw80, SH(HDR, 52, 5, 2, 20, true), AUTO, 0, INL, NONE, 6 },
	{ "siw inline 7 sges", &siw80, SH(HDR, 52, 6, 3, 20, true), AUTO, 0, PUL, SGES, 1 },
	{ "siw inline both: size first", &siw80, SH(HDR, 53, 6, 3, 20, true), S_INL, 0, PUL, BIGINL, 1 },
	{ "siw mapped 6 sges", &siw80, SH(HDR, 2048, 5, 2, 2000, true), AUTO, 0, MAP, NONE, 6 },
	{ "siw mapped 7 sges", &siw80, SH(HDR, 2048, 6, 3, 2000, true), AUTO, 0, PUL, SGES, 1 },
	{ "siw force mapped 7 sges", &siw80, SH(HDR, 2048, 6, 3, 2000, true), S_MAP, 0, PUL, SGES, 1 },

	/* siw with no inline granted: never inline */
	{ "siw0 small auto", &siw0, SH(HDR, 4, 1, 0, 0, true), AUTO, 0, PUL, NONE, 1 },
	{ "siw0 force inline", &siw0, SH(HDR, 4, 1, 0, 0, true), S_INL, 0, PUL, BIGINL, 1 },

	/* one SGE: even header + one segment is too many to gather */
	{ "sge1 small auto", &sge1, SH(HDR, 100, 1, 0, 0, true), AUTO, 0, PUL, SGES, 1 },
	{ "sge1 header only", &sge1, SH(HDR, 0, 0, 0, 0, true), AUTO, 0, INL, NONE, 1 },
	{ "sge1 force mapped", &sge1, SH(HDR, 900, 3, 1, 800, true), S_MAP, 0, PUL, SGES, 1 },
	{ "sge1 at sendbuf", &sge1, SH(HDR, 996, 3, 1, 1024, true), AUTO, 0, PUL, SGES, 1 },
	{ "sge1 nothing fits", &sge1, SH(HDR, 2048, 3, 1, 2000, true), AUTO, -EMSGSIZE, MAP, SGES, 0 },
	{ "sge1 nothing fits pullup", &sge1, SH(HDR, 997, 1, 0, 0, true), S_PUL, -EMSGSIZE, PUL, BIGBUF, 0 },

	/* tiny send buffer (256) below the inline grant (512), cutoff 128 */
	{ "tiny at cutoff", &tiny, SH(HDR, 100, 1, 0, 0, true), AUTO, 0, INL, NONE, 2 },
	{ "tiny cutoff+1", &tiny, SH(HDR, 101, 1, 0, 0, true), AUTO, 0, PUL, NONE, 1 },
	{ "tiny at sendbuf", &tiny, SH(HDR, 228, 1, 0, 0, true), AUTO, 0, PUL, NONE, 1 },
	{ "tiny sendbuf+1 -> inline", &tiny, SH(HDR, 229, 1, 0, 0, true), AUTO, 0, INL, BIGBUF, 2 },
	/* mapped gathers the header and copied bytes from the send buffer */
	{ "tiny force pullup big copied", &tiny, SH(HDR, 600, 1, 0, 0, true), S_PUL, -EMSGSIZE, PUL, BIGBUF, 0 },
	{ "tiny force pullup big refs -> mapped", &tiny, SH(HDR, 600, 2, 1, 400, true), S_PUL, 0, MAP, BIGBUF, 3 },
	{ "tiny mapped copied at sendbuf", &tiny, SH(HDR, 2228, 2, 1, 2000, true), AUTO, 0, MAP, NONE, 3 },
	{ "tiny mapped copied sendbuf+1", &tiny, SH(HDR, 2229, 2, 1, 2000, true), AUTO, -EMSGSIZE, MAP, BIGBUF, 0 },
	{ "tiny force inline big -> mapped", &tiny, SH(HDR, 600, 3, 1, 500, true), S_INL, 0, MAP, BIGINL, 4 },
	{ "tiny header > sendbuf", &tiny, SH(300, 2000, 3, 1, 1900, true), S_MAP, -EMSGSIZE, MAP, BIGBUF, 0 },
	{ "tiny big unmappable", &tiny, SH(HDR, 2048, 3, 1, 2000, false), AUTO, -EMSGSIZE, MAP, NOMAP, 0 },

	/* AUTO with its tunables off: pull-up whenever it fits */
	{ "noauto small", &noauto, SH(HDR, 100, 1, 0, 0, true), AUTO, 0, PUL, NONE, 1 },
	{ "noauto big refs", &noauto, SH(HDR, 2048, 3, 1, 2000, true), AUTO, 0, PUL, NONE, 1 },
	{ "noauto force inline", &noauto, SH(HDR, 100, 1, 0, 0, true), S_INL, 0, INL, NONE, 2 },
};

START_TEST(choose_table)
{
	const struct row *r = &rows[_i];
	struct rpcrdma_choice c;
	int rc;

	memset(&c, 0xa5, sizeof(c));
	rc = rpcrdma_choose(&r->shape, r->dev, r->strat, &c);
	ck_assert_msg(rc == r->rc, "%s: rc %d, want %d", r->what, rc, r->rc);
	ck_assert_msg(c.ch_fallback == r->fb, "%s: fallback %s, want %s",
		      r->what, rpcrdma_fallback_name(c.ch_fallback),
		      rpcrdma_fallback_name(r->fb));
	/* on error ch_type is the preferred type (documented) */
	ck_assert_msg(c.ch_type == r->type, "%s: type %s, want %s", r->what,
		      rpcrdma_chunktype_name(c.ch_type),
		      rpcrdma_chunktype_name(r->type));
	if (rc == 0)
		ck_assert_msg(c.ch_nsge == r->nsge, "%s: nsge %u, want %u",
			      r->what, c.ch_nsge, r->nsge);
}
END_TEST

/*
 * What a chunk planner may leave to one Send: the peer's limit when the
 * message maps from a send buffer, else the buffer's size.
 */
START_TEST(plan_max_by_shape)
{
	/* send buffers of 17 KiB, the peer receiving 65 KiB */
	static const struct rpcrdma_send_limits big = { 256, 8, 17408, 66560, 256, 65536 };
	const struct rpcrdma_msg_shape refs = SH(HDR, 65600, 3, 1, 65536, true);
	const struct rpcrdma_msg_shape copied = SH(HDR, 65600, 1, 0, 0, true);
	const struct rpcrdma_msg_shape many = SH(HDR, 65600, 9, 8, 65536, true);
	const struct rpcrdma_msg_shape small = SH(HDR, 1000, 1, 0, 0, true);

	ck_assert_uint_eq(rpcrdma_send_plan_max(&refs, &big), 66560);
	ck_assert_uint_eq(rpcrdma_send_plan_max(&copied, &big), 17408);
	ck_assert_uint_eq(rpcrdma_send_plan_max(&many, &big), 17408);	/* 10 SGEs */
	ck_assert_uint_eq(rpcrdma_send_plan_max(&small, &big), 66560);
	/* buffers as large as the peer's limit: always the limit */
	ck_assert_uint_eq(rpcrdma_send_plan_max(&copied, &rxe), 4096);
}
END_TEST

START_TEST(choose_rejects_bad_args)
{
	struct rpcrdma_msg_shape ms = SH(HDR, 100, 1, 0, 0, true);
	struct rpcrdma_send_limits sl = rxe;
	struct rpcrdma_choice c;

	ck_assert_int_eq(rpcrdma_choose(&ms, &sl, (enum rpcrdma_strategy)99, &c),
			 -EINVAL);
	ck_assert_int_eq(rpcrdma_choose(&ms, &sl, (enum rpcrdma_strategy)-1, &c),
			 -EINVAL);
	sl.sl_max_sge = 0;
	ck_assert_int_eq(rpcrdma_choose(&ms, &sl, AUTO, &c), -EINVAL);
}
END_TEST

/* A 4 GiB message plus header must not wrap below the limits. */
START_TEST(choose_no_wrap)
{
	struct rpcrdma_msg_shape ms = SH(HDR, UINT32_MAX, 1, 0, 0, true);
	struct rpcrdma_send_limits sl = { UINT32_MAX, 32, UINT32_MAX, UINT32_MAX,
					  UINT32_MAX, 0 };
	struct rpcrdma_choice c;

	ck_assert_int_eq(rpcrdma_choose(&ms, &sl, AUTO, &c), -EMSGSIZE);
	ck_assert_int_eq(c.ch_fallback, BIGPEER);
}
END_TEST

START_TEST(names)
{
	int i, j;

	for (i = RPCRDMA_NOCH_INLINE; i <= RPCRDMA_REPLYCH; i++) {
		const char *a = rpcrdma_chunktype_name((enum rpcrdma_chunktype)i);

		ck_assert_str_ne(a, "unknown");
		for (j = RPCRDMA_NOCH_INLINE; j < i; j++)
			ck_assert_str_ne(a, rpcrdma_chunktype_name((enum rpcrdma_chunktype)j));
	}
	for (i = RPCRDMA_FB_NONE; i <= RPCRDMA_FB_TOO_BIG_FOR_PEER; i++) {
		const char *a = rpcrdma_fallback_name((enum rpcrdma_fallback)i);

		ck_assert_str_ne(a, "unknown");
		for (j = RPCRDMA_FB_NONE; j < i; j++)
			ck_assert_str_ne(a, rpcrdma_fallback_name((enum rpcrdma_fallback)j));
	}
	for (i = RPCRDMA_STRAT_AUTO; i <= RPCRDMA_STRAT_MAPPED; i++) {
		const char *a = rpcrdma_strategy_name((enum rpcrdma_strategy)i);

		ck_assert_str_ne(a, "unknown");
		ck_assert_int_eq(rpcrdma_strategy_from_name(a), i);
	}
	ck_assert_str_eq(rpcrdma_chunktype_name((enum rpcrdma_chunktype)99), "unknown");
	ck_assert_str_eq(rpcrdma_fallback_name((enum rpcrdma_fallback)99), "unknown");
	ck_assert_str_eq(rpcrdma_strategy_name((enum rpcrdma_strategy)99), "unknown");
	ck_assert_str_eq(rpcrdma_strategy_name(RPCRDMA_STRAT_PULLUP), "pullup");
	ck_assert_int_eq(rpcrdma_strategy_from_name("pull-up"), -EINVAL);
	ck_assert_int_eq(rpcrdma_strategy_from_name("unknown"), -EINVAL);
	ck_assert_int_eq(rpcrdma_strategy_from_name(NULL), -EINVAL);
}
END_TEST

/* ---- planning over real xdr_bufs ---------------------------------------- */
#define THRESH 1024
static char scratch[4096];
static char payload[4096];
static const char hdr[HDR] = "rdma-transport-header-bytes";

/* Encode u_int 7, opaque<> of @len bytes, u_int 9 into @xb. */
static void build(struct rpcrdma_xdr_buf *xb, u_int len)
{
	char *p = payload;
	u_int a = 7, b = 9;
	XDR x;

	ck_assert_int_eq(rpcrdma_xdrbuf_init(xb, scratch, sizeof(scratch),
					     THRESH), 0);
	rpcrdma_xdrbuf_create(&x, xb);
	ck_assert(xdr_u_int(&x, &a));
	ck_assert(xdr_bytes(&x, &p, &len, ~0u));
	ck_assert(xdr_u_int(&x, &b));
}

/* The plan's bytes, gathered, must be header + copy_out of the message. */
static void check_concat(const struct rpcrdma_sge_plan *pl,
			 const struct rpcrdma_xdr_buf *xb)
{
	static char want[HDR + 8192], got[HDR + 8192];
	size_t len = HDR + rpcrdma_xdrbuf_len(xb), off = 0;
	unsigned int i;

	memcpy(want, hdr, HDR);
	ck_assert_int_eq(rpcrdma_xdrbuf_copy_out(xb, want + HDR,
						 sizeof(want) - HDR),
			 (ssize_t)rpcrdma_xdrbuf_len(xb));
	for (i = 0; i < pl->sp_nsge; i++) {
		ck_assert_uint_gt(pl->sp_sge[i].pg_len, 0);
		ck_assert_uint_le(off + pl->sp_sge[i].pg_len, sizeof(got));
		memcpy(got + off, pl->sp_sge[i].pg_addr, pl->sp_sge[i].pg_len);
		off += pl->sp_sge[i].pg_len;
	}
	ck_assert_uint_eq(off, len);
	ck_assert_mem_eq(got, want, len);
}

/* Sources must say where each byte lives, for the verbs layer's lkeys. */
static void check_sources(const struct rpcrdma_sge_plan *pl)
{
	unsigned int i;

	ck_assert_ptr_eq(pl->sp_sge[0].pg_addr, hdr);
	ck_assert_int_eq(pl->sp_sge[0].pg_src, RPCRDMA_PS_HDR);
	for (i = 1; i < pl->sp_nsge; i++) {
		const char *a = pl->sp_sge[i].pg_addr;
		bool in_scratch = a >= scratch && a < scratch + sizeof(scratch);
		bool in_payload = a >= payload && a < payload + sizeof(payload);

		if (pl->sp_sge[i].pg_src == RPCRDMA_PS_SCRATCH)
			ck_assert(in_scratch);
		else
			ck_assert(pl->sp_sge[i].pg_src == RPCRDMA_PS_CALLER &&
				  in_payload);
	}
}

static void fill_payload(void)
{
	size_t i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (char)(i * 7 + 3);
}

/* Opaque above the threshold with an odd length: head, reference, pad+tail. */
START_TEST(plan_referenced)
{
	static const enum rpcrdma_chunktype gather[] = {
		RPCRDMA_NOCH_INLINE, RPCRDMA_NOCH_MAPPED,
	};
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_sge_plan pl;
	struct rpcrdma_msg_shape ms;
	struct rpcrdma_choice c;
	unsigned int k;

	fill_payload();
	build(&xb, 1501);
	for (k = 0; k < 2; k++) {
		memset(&pl, 0xa5, sizeof(pl));
		ck_assert_int_eq(rpcrdma_plan_sges(gather[k], hdr, HDR, &xb, &pl), 0);
		ck_assert_uint_eq(pl.sp_nsge, 4);
		ck_assert_uint_eq(pl.sp_sge[0].pg_len, HDR);
		ck_assert_int_eq(pl.sp_sge[1].pg_src, RPCRDMA_PS_SCRATCH);
		ck_assert_uint_eq(pl.sp_sge[1].pg_len, 8);	/* 7, length */
		ck_assert_int_eq(pl.sp_sge[2].pg_src, RPCRDMA_PS_CALLER);
		ck_assert_ptr_eq(pl.sp_sge[2].pg_addr, payload);
		ck_assert_uint_eq(pl.sp_sge[2].pg_len, 1501);
		ck_assert_int_eq(pl.sp_sge[3].pg_src, RPCRDMA_PS_SCRATCH);
		ck_assert_uint_eq(pl.sp_sge[3].pg_len, 3 + 4);	/* pad, 9 */
		check_sources(&pl);
		check_concat(&pl, &xb);
	}
	/* the shape agrees with the plan, and AUTO maps it on rxe */
	rpcrdma_msg_shape_of(&xb, HDR, true, &ms);
	ck_assert_uint_eq(ms.ms_hdrlen, HDR);
	ck_assert_uint_eq(ms.ms_msglen, 8 + 1501 + 7);
	ck_assert_uint_eq(ms.ms_nsegs, 3);
	ck_assert_uint_eq(ms.ms_nrefs, 1);
	ck_assert_uint_eq(ms.ms_refbytes, 1501);
	ck_assert(ms.ms_mappable);
	ck_assert_int_eq(rpcrdma_choose(&ms, &rxe, AUTO, &c), 0);
	ck_assert_int_eq(c.ch_type, MAP);
	ck_assert_uint_eq(c.ch_nsge, pl.sp_nsge);

	memset(&pl, 0xa5, sizeof(pl));
	ck_assert_int_eq(rpcrdma_plan_sges(RPCRDMA_NOCH_PULLUP, hdr, HDR, &xb,
					   &pl), 0);
	ck_assert_uint_eq(pl.sp_nsge, 1);
	ck_assert_ptr_null(pl.sp_sge[0].pg_addr);
	ck_assert_uint_eq(pl.sp_sge[0].pg_len, HDR + 8 + 1501 + 7);
	ck_assert_int_eq(pl.sp_sge[0].pg_src, RPCRDMA_PS_HDR);
}
END_TEST

/* One byte below the page threshold: all copied, one segment, pull-up. */
START_TEST(plan_below_threshold)
{
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_sge_plan pl;
	struct rpcrdma_msg_shape ms;
	struct rpcrdma_choice c;

	fill_payload();
	build(&xb, THRESH - 1);
	ck_assert_int_eq(rpcrdma_plan_sges(RPCRDMA_NOCH_MAPPED, hdr, HDR, &xb,
					   &pl), 0);
	ck_assert_uint_eq(pl.sp_nsge, 2);
	ck_assert_int_eq(pl.sp_sge[1].pg_src, RPCRDMA_PS_SCRATCH);
	ck_assert_uint_eq(pl.sp_sge[1].pg_len, 4 + 4 + 1024 + 4);
	check_sources(&pl);
	check_concat(&pl, &xb);
	rpcrdma_msg_shape_of(&xb, HDR, false, &ms);
	ck_assert_uint_eq(ms.ms_nrefs, 0);
	ck_assert_uint_eq(ms.ms_refbytes, 0);
	/* no references: "not mappable" does not matter */
	ck_assert_int_eq(rpcrdma_choose(&ms, &rxe, S_MAP, &c), 0);
	ck_assert_int_eq(c.ch_type, MAP);
	ck_assert_int_eq(rpcrdma_choose(&ms, &rxe, AUTO, &c), 0);
	ck_assert_int_eq(c.ch_type, PUL);
	ck_assert_int_eq(c.ch_fallback, NONE);

	/* at the threshold: referenced, and AUTO maps (1024 >= mapped_min) */
	build(&xb, THRESH);
	rpcrdma_msg_shape_of(&xb, HDR, true, &ms);
	ck_assert_uint_eq(ms.ms_nrefs, 1);
	ck_assert_uint_eq(ms.ms_nsegs, 3);
	ck_assert_int_eq(rpcrdma_choose(&ms, &rxe, AUTO, &c), 0);
	ck_assert_int_eq(c.ch_type, MAP);
}
END_TEST

/* A copied segment cut back to empty by setpos is not an SGE. */
START_TEST(plan_skips_empty)
{
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_sge_plan pl;
	struct rpcrdma_msg_shape ms;
	char *p = payload;
	u_int a = 7, len = 2048;
	XDR x;

	fill_payload();
	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, sizeof(scratch),
					     THRESH), 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	ck_assert(xdr_u_int(&x, &a));
	ck_assert(xdr_bytes(&x, &p, &len, ~0u));	/* no pad: 2048 */
	ck_assert(xdr_u_int(&x, &a));
	ck_assert(XDR_SETPOS(&x, 4 + 4 + 2048));
	ck_assert_uint_eq(xb.xb_nsegs, 3);
	ck_assert_uint_eq(xb.xb_segs[2].xs_len, 0);
	ck_assert_int_eq(rpcrdma_plan_sges(RPCRDMA_NOCH_INLINE, hdr, HDR, &xb,
					   &pl), 0);
	ck_assert_uint_eq(pl.sp_nsge, 3);
	ck_assert_uint_eq(pl.sp_nsge, 1 + rpcrdma_xdrbuf_nsegs(&xb));
	check_sources(&pl);
	check_concat(&pl, &xb);
	rpcrdma_msg_shape_of(&xb, HDR, true, &ms);
	ck_assert_uint_eq(ms.ms_nsegs, 2);
}
END_TEST

/* The most segments an xdr_buf holds fit the plan: 16 + header. */
START_TEST(plan_max_segments)
{
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_sge_plan pl;
	struct rpcrdma_msg_shape ms;
	struct rpcrdma_choice c;
	u_int a = 1, len = 200;
	XDR x;
	int i;

	fill_payload();
	ck_assert_int_eq(rpcrdma_xdrbuf_init(&xb, scratch, sizeof(scratch), 100),
			 0);
	rpcrdma_xdrbuf_create(&x, &xb);
	for (i = 0; i < RPCRDMA_XDRBUF_MAX_SEGS / 2; i++) {
		char *p = payload + i * 200;

		ck_assert(xdr_u_int(&x, &a));
		ck_assert(xdr_bytes(&x, &p, &len, ~0u));
	}
	ck_assert_uint_eq(rpcrdma_xdrbuf_nsegs(&xb), RPCRDMA_XDRBUF_MAX_SEGS);
	memset(&pl, 0xa5, sizeof(pl));
	ck_assert_int_eq(rpcrdma_plan_sges(RPCRDMA_NOCH_MAPPED, hdr, HDR, &xb,
					   &pl), 0);
	ck_assert_uint_eq(pl.sp_nsge, RPCRDMA_XDRBUF_MAX_SEGS + 1);
	check_sources(&pl);
	check_concat(&pl, &xb);
	/* 17 SGEs: fine on rxe, too many on siw (6) */
	rpcrdma_msg_shape_of(&xb, HDR, true, &ms);
	ck_assert_int_eq(rpcrdma_choose(&ms, &rxe, S_MAP, &c), 0);
	ck_assert_int_eq(c.ch_type, MAP);
	ck_assert_uint_eq(c.ch_nsge, RPCRDMA_XDRBUF_MAX_SEGS + 1);
	ck_assert_int_eq(rpcrdma_choose(&ms, &siw80, S_MAP, &c), 0);
	ck_assert_int_eq(c.ch_type, PUL);
	ck_assert_int_eq(c.ch_fallback, SGES);
}
END_TEST

START_TEST(plan_rejects)
{
	struct rpcrdma_xdr_buf xb;
	struct rpcrdma_sge_plan pl;

	build(&xb, 16);
	ck_assert_int_eq(rpcrdma_plan_sges(RPCRDMA_NOCH_INLINE, NULL, HDR, &xb,
					   &pl), -EINVAL);
	ck_assert_int_eq(rpcrdma_plan_sges(RPCRDMA_NOCH_INLINE, hdr, 0, &xb,
					   &pl), -EINVAL);
	ck_assert_int_eq(rpcrdma_plan_sges((enum rpcrdma_chunktype)99, hdr, HDR,
					   &xb, &pl), -EINVAL);
	ck_assert_int_eq(rpcrdma_plan_sges(RPCRDMA_READCH, hdr, HDR, &xb, &pl),
			 -EOPNOTSUPP);
	ck_assert_int_eq(rpcrdma_plan_sges(RPCRDMA_AREADCH, hdr, HDR, &xb, &pl),
			 -EOPNOTSUPP);
	ck_assert_int_eq(rpcrdma_plan_sges(RPCRDMA_WRITECH, hdr, HDR, &xb, &pl),
			 -EOPNOTSUPP);
	ck_assert_int_eq(rpcrdma_plan_sges(RPCRDMA_REPLYCH, hdr, HDR, &xb, &pl),
			 -EOPNOTSUPP);
	/* pull-up total past 32 bits */
	xb.xb_len = UINT32_MAX - 10;
	ck_assert_int_eq(rpcrdma_plan_sges(RPCRDMA_NOCH_PULLUP, hdr, HDR, &xb,
					   &pl), -EMSGSIZE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chooser");
	TCase *tc = tcase_create("choose");
	TCase *tp = tcase_create("plan");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, choose_table, 0, sizeof(rows) / sizeof(rows[0]));
	tcase_add_test(tc, choose_rejects_bad_args);
	tcase_add_test(tc, choose_no_wrap);
	tcase_add_test(tc, plan_max_by_shape);
	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);
	tcase_add_test(tp, plan_referenced);
	tcase_add_test(tp, plan_below_threshold);
	tcase_add_test(tp, plan_skips_empty);
	tcase_add_test(tp, plan_max_segments);
	tcase_add_test(tp, plan_rejects);
	suite_add_tcase(s, tp);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
