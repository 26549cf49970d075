/*
 * Unit test: the server's verdict on a Reply (svc_reply_plan.c): inline
 * when it fits a Send, its large opaques into the Call's Write chunks when
 * offered (the rest inline, their roundup nowhere), the Reply chunk when
 * too large to Send, ERR_CHUNK when nothing the Call offered can take it;
 * and the one rkey a Reply may invalidate (RFC 8797).
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "svc_reply_plan.h"

static char head[64], tail[64], data[8192];
static struct rpcrdma_xdr_buf xb;
static struct rpcrdma_hdr call, h;
static struct rpcrdma_chunk_limits lim;
static struct svc_rdma_reply_in in;

static void seg(const char *base, uint32_t n, bool ref)
{
	xb.xb_segs[xb.xb_nsegs++] = (struct rpcrdma_xdr_seg){ base, n, ref };
	xb.xb_len += n;
}

/* A Reply of a 12-byte head, an opaque of n bytes (referenced when ref),
 * its roundup and an 8-byte tail, as xdr_buf.c lays it out. */
static void reply(uint32_t n, bool ref)
{
	uint32_t pad = (4 - (n & 3)) & 3;

	memset(&xb, 0, sizeof(xb));
	if (!ref) {
		seg(head, 12 + n + pad + 8, false);
		return;
	}
	seg(head, 12, false);
	seg(data, n, true);
	seg(tail, pad + 8, false);
}

static void write_chunk(uint32_t len)
{
	struct rpcrdma_chunk *ch = &call.hd_writes[call.hd_nwrites++];

	ch->rc_nsegs = 1;
	ch->rc_segs[0] = (struct rpcrdma_segment){ 0x1234, len, 0x10000 };
}

static void reply_chunk(uint32_t len)
{
	call.hd_has_reply = true;
	call.hd_reply.rc_nsegs = 1;
	call.hd_reply.rc_segs[0] = (struct rpcrdma_segment){ 0x5678, len, 0x20000 };
}

static void setup(void)
{
	memset(&call, 0, sizeof(call));
	lim = rpcrdma_limits_max_call(UINT32_MAX);
	in = (struct svc_rdma_reply_in){
		.ri_call = &call,
		.ri_xb = &xb,
		.ri_send_max = 1024,
		.ri_max_bytes = 1 << 20,
		.ri_lim = &lim,
	};
}

static enum svc_rdma_reply_verdict decide(struct svc_rdma_wplan *wp)
{
	svc_rdma_reply_header(&call, 0xabcd, 32, &h);
	ck_assert_uint_eq(h.hd_proc, RPCRDMA_MSG);
	ck_assert_uint_eq(h.hd_nwrites, call.hd_nwrites);
	return svc_rdma_reply_decide(&in, &h, wp);
}

static void assert_unused(void)
{
	uint32_t i;

	for (i = 0; i < h.hd_nwrites; i++) {
		ck_assert_uint_eq(h.hd_writes[i].rc_segs[0].se_handle,
				  call.hd_writes[i].rc_segs[0].se_handle);
		ck_assert_uint_eq(h.hd_writes[i].rc_segs[0].se_length, 0);
	}
}

START_TEST(inline_reply)
{
	struct svc_rdma_wplan wp;

	setup();
	reply(100, false);
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_INLINE);
	/* Write chunks offered but nothing referenced: inline, unused. */
	write_chunk(4096);
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_INLINE);
	assert_unused();
	ck_assert_uint_eq(h.hd_xid, 0xabcd);
	ck_assert_uint_eq(h.hd_credits, 32);
}
END_TEST

START_TEST(direct_placement)
{
	struct svc_rdma_wplan wp;

	setup();
	reply(1001, true);
	write_chunk(4096);
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_DIRECT);
	ck_assert_uint_eq(wp.wp_nchunks, 1);
	ck_assert_ptr_eq(wp.wp_place[0].wpl_addr, data);
	ck_assert_uint_eq(wp.wp_place[0].wpl_len, 1001);
	ck_assert_uint_eq(wp.wp_bytes, 1001);
	ck_assert_uint_eq(h.hd_writes[0].rc_segs[0].se_length, 1001);
	/* The rest: head and tail, the opaque's 3 bytes of roundup cut. */
	ck_assert_uint_eq(wp.wp_rest.xb_len, 12 + 8);
	ck_assert_uint_eq(wp.wp_rest.xb_nsegs, 2);
	ck_assert_ptr_eq(wp.wp_rest.xb_segs[1].xs_base, tail + 3);
	ck_assert(!wp.wp_rest.xb_segs[1].xs_ref);

	/* Even when the whole Reply would fit inline. */
	reply(100, true);
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_DIRECT);
	/* Two Write chunks, one opaque: the second goes back unused. */
	write_chunk(4096);
	reply(2000, true);
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_DIRECT);
	ck_assert_uint_eq(h.hd_writes[0].rc_segs[0].se_length, 2000);
	ck_assert_uint_eq(h.hd_writes[1].rc_segs[0].se_length, 0);
}
END_TEST

START_TEST(direct_refused)
{
	struct svc_rdma_wplan wp;

	setup();
	reply(1001, true);
	reply_chunk(8192);
	/* A Write chunk too small: the Reply chunk instead (1021 bytes and
	 * a header do not fit 1024), the Write chunk unused. */
	write_chunk(512);
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_CHUNK);
	assert_unused();
	/* Over max_chunk_bytes. */
	call.hd_nwrites = 0;
	write_chunk(4096);
	lim.lm_max_bytes = 1000;
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_CHUNK);
	assert_unused();
	lim.lm_max_bytes = UINT32_MAX;
	/* Over our buffer. */
	in.ri_max_bytes = 1000;
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_CHUNK);
	in.ri_max_bytes = 1 << 20;
	/* No chunk memory for it: decided without. */
	in.ri_no_direct = true;
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_CHUNK);
	assert_unused();
	in.ri_no_direct = false;
	/* The rest too large for a Send. */
	in.ri_send_max = 40;
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_CHUNK);
	in.ri_send_max = 1024;
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_DIRECT);
}
END_TEST

START_TEST(plan_writes)
{
	struct svc_rdma_wplan wp;

	reply(100, false);
	ck_assert_int_eq(svc_rdma_plan_writes(&xb, 1, &wp), -ENOENT);
	reply(100, true);
	ck_assert_int_eq(svc_rdma_plan_writes(&xb, 0, &wp), -ENOENT);
	ck_assert_int_eq(svc_rdma_plan_writes(&xb, 1, &wp), 0);
	/* Two opaques, one Write chunk: nothing placed. */
	seg(data, 64, true);
	seg(tail, 4, false);
	ck_assert_int_eq(svc_rdma_plan_writes(&xb, 1, &wp), -ENOENT);
	ck_assert_int_eq(svc_rdma_plan_writes(&xb, 2, &wp), 0);
	ck_assert_uint_eq(wp.wp_nchunks, 2);
	ck_assert_uint_eq(wp.wp_bytes, 164);
	/* 100 is a multiple of 4: nothing cut after the first. */
	ck_assert_uint_eq(wp.wp_rest.xb_len, 12 + 8 + 4);
}
END_TEST

START_TEST(too_large_to_send)
{
	struct svc_rdma_wplan wp;

	setup();
	/* Not even encoded into the Send's scratch. */
	in.ri_xb = NULL;
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_ERR_CHUNK);
	reply_chunk(8192);
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_CHUNK);
	/* A Reply chunk of nothing takes nothing. */
	reply_chunk(0);
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_ERR_CHUNK);
	/* Encoded, but header and Reply over the peer's inline size. */
	in.ri_xb = &xb;
	reply(1000, false);
	call.hd_has_reply = false;
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_ERR_CHUNK);
	reply_chunk(4096);
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_CHUNK);
	in.ri_send_max = 4096;
	ck_assert_int_eq(decide(&wp), SVC_RDMA_REPLY_INLINE);
}
END_TEST

/* Send With Invalidate: exactly one distinct rkey over the Call's read
 * list, Write list and Reply chunk, or none at all. */
START_TEST(inv_rkey)
{
	struct rpcrdma_hdr c;
	uint32_t rkey = 0xdead;

	memset(&c, 0, sizeof(c));
	ck_assert(!svc_rdma_inv_rkey(&c, &rkey));	/* no chunks */
	c.hd_has_reply = true;
	c.hd_reply.rc_nsegs = 2;
	c.hd_reply.rc_segs[0].se_handle = 7;
	c.hd_reply.rc_segs[1].se_handle = 7;
	ck_assert(svc_rdma_inv_rkey(&c, &rkey));
	ck_assert_uint_eq(rkey, 7);
	c.hd_nwrites = 1;				/* a second rkey */
	c.hd_writes[0].rc_nsegs = 1;
	c.hd_writes[0].rc_segs[0].se_handle = 9;
	ck_assert(!svc_rdma_inv_rkey(&c, &rkey));
	c.hd_writes[0].rc_segs[0].se_handle = 7;	/* the same one */
	ck_assert(svc_rdma_inv_rkey(&c, &rkey));
	c.hd_nreads = 1;				/* a Read segment's */
	c.hd_reads[0].rd_seg.se_handle = 8;
	ck_assert(!svc_rdma_inv_rkey(&c, &rkey));
	c.hd_has_reply = false;
	c.hd_nwrites = 0;
	ck_assert(svc_rdma_inv_rkey(&c, &rkey));
	ck_assert_uint_eq(rkey, 8);
	/* rkey 0 is an rkey like any other. */
	c.hd_reads[0].rd_seg.se_handle = 0;
	ck_assert(svc_rdma_inv_rkey(&c, &rkey));
	ck_assert_uint_eq(rkey, 0);
}
END_TEST


int main(void)
{
	Suite *s = suite_create("svc_reply_plan");
	TCase *tc = tcase_create("verdict");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, inline_reply);
	tcase_add_test(tc, direct_placement);
	tcase_add_test(tc, direct_refused);
	tcase_add_test(tc, plan_writes);
	tcase_add_test(tc, too_large_to_send);
	tcase_add_test(tc, inv_rkey);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
