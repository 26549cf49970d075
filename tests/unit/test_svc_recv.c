/*
 * Unit test: the server's verdict on a received message (svc_recv.c):
 * each kind of message gets the answer RFC 8166 asks for, with a reason,
 * and a usable Call is found inline or mapped from its Read chunks.
 */
#include "config.h"
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "svc_recv.h"

static uint8_t msg[512];
static size_t len;

static void put(uint32_t v)
{
	msg[len++] = (uint8_t)(v >> 24);
	msg[len++] = (uint8_t)(v >> 16);
	msg[len++] = (uint8_t)(v >> 8);
	msg[len++] = (uint8_t)v;
}

/* xid, vers, credits, proc */
static void start(uint32_t vers, uint32_t proc)
{
	len = 0;
	put(0xabcd);
	put(vers);
	put(32);
	put(proc);
}

static void segment(uint32_t handle, uint32_t length, uint64_t offset)
{
	put(handle);
	put(length);
	put((uint32_t)(offset >> 32));
	put((uint32_t)offset);
}

static enum svc_rdma_recv_verdict decide(struct svc_rdma_recv *rv, uint32_t max_call)
{
	struct rpcrdma_chunk_limits lim = rpcrdma_limits_max_call(max_call);
	struct rpcrdma_hdr h;

	svc_rdma_recv_decide(msg, (uint32_t)len, &lim, &h, rv);
	if (rv->rv_verdict != SVC_RDMA_RECV_INLINE && rv->rv_verdict != SVC_RDMA_RECV_PULL)
		ck_assert_ptr_nonnull(rv->rv_why);
	else
		ck_assert_ptr_null(rv->rv_why);
	return rv->rv_verdict;
}

START_TEST(inline_call)
{
	struct svc_rdma_recv rv;

	start(1, RPCRDMA_MSG);
	put(0); put(0); put(0);
	put(0xabcd); put(0); put(2);	/* the RPC Call begins */
	ck_assert_int_eq(decide(&rv, 1 << 20), SVC_RDMA_RECV_INLINE);
	ck_assert_uint_eq(rv.rv_off, RPCRDMA_HDRLEN_MIN);
	ck_assert_uint_eq(rv.rv_len, 12);
}
END_TEST

START_TEST(read_chunks_mapped)
{
	struct svc_rdma_recv rv;

	start(1, RPCRDMA_MSG);
	put(1); put(8); segment(5, 6, 0x1000);	/* 6 bytes at XDR position 8 */
	put(0); put(0); put(0);
	put(0xabcd); put(0); put(7);		/* inline: 8 before, 4 after */
	ck_assert_int_eq(decide(&rv, 1 << 20), SVC_RDMA_RECV_PULL);
	ck_assert_uint_eq(rv.rv_len, 12);
	ck_assert_uint_eq(rv.rv_map.cm_len, 8 + 6 + 2 + 4);
	ck_assert_uint_eq(rv.rv_map.cm_npulls, 1);
	ck_assert_uint_eq(rv.rv_map.cm_pulls[0].pl_dst, 8);
	/* the same Call over a smaller limit is refused, not truncated */
	ck_assert_int_eq(decide(&rv, 19), SVC_RDMA_RECV_ERR_CHUNK);
}
END_TEST

START_TEST(refusals)
{
	struct svc_rdma_recv rv;

	start(1, RPCRDMA_MSG);
	len = 12;
	ck_assert_int_eq(decide(&rv, 1 << 20), SVC_RDMA_RECV_DROP);

	start(2, RPCRDMA_MSG);
	ck_assert_int_eq(decide(&rv, 1 << 20), SVC_RDMA_RECV_ERR_VERS);

	start(1, RPCRDMA_MSG);
	put(7);		/* a list discriminator that is not 0 or 1 */
	ck_assert_int_eq(decide(&rv, 1 << 20), SVC_RDMA_RECV_ERR_CHUNK);

	start(1, RPCRDMA_ERROR);
	put(RPCRDMA_ERR_CHUNK);
	ck_assert_int_eq(decide(&rv, 1 << 20), SVC_RDMA_RECV_ERR_CHUNK);

	/* RDMA_NOMSG whose message could only go in a Reply chunk */
	start(1, RPCRDMA_NOMSG);
	put(0); put(0); put(1); put(1); segment(1, 4096, 0x1000);
	ck_assert_int_eq(decide(&rv, 1 << 20), SVC_RDMA_RECV_ERR_CHUNK);

	/* a Write chunk whose remote range wraps */
	start(1, RPCRDMA_MSG);
	put(0); put(1); put(1); segment(1, 4096, UINT64_MAX - 100); put(0); put(0);
	ck_assert_int_eq(decide(&rv, 1 << 20), SVC_RDMA_RECV_ERR_CHUNK);

	/* RDMA_MSG with a position-zero Read chunk */
	start(1, RPCRDMA_MSG);
	put(1); put(0); segment(1, 64, 0x1000); put(0); put(0); put(0);
	ck_assert_int_eq(decide(&rv, 1 << 20), SVC_RDMA_RECV_ERR_CHUNK);
}
END_TEST

/* A peer that granted no RDMA Reads: its Read chunks get ERR_CHUNK,
 * counted as over a limit; its inline Calls are served. */
START_TEST(no_reads_granted)
{
	struct rpcrdma_chunk_limits lim = rpcrdma_limits_max_call(1 << 20);
	struct svc_rdma_recv rv;
	struct rpcrdma_hdr h;

	lim.lm_no_reads = 1;
	start(1, RPCRDMA_MSG);
	put(1); put(8); segment(5, 6, 0x1000);
	put(0); put(0); put(0);
	put(0xabcd); put(0); put(7);
	svc_rdma_recv_decide(msg, (uint32_t)len, &lim, &h, &rv);
	ck_assert_int_eq(rv.rv_verdict, SVC_RDMA_RECV_ERR_CHUNK);
	ck_assert(rv.rv_over_limit);
	ck_assert_ptr_nonnull(rv.rv_why);

	start(1, RPCRDMA_MSG);
	put(0); put(0); put(0);
	put(0xabcd); put(0); put(2);
	svc_rdma_recv_decide(msg, (uint32_t)len, &lim, &h, &rv);
	ck_assert_int_eq(rv.rv_verdict, SVC_RDMA_RECV_INLINE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svc_recv");
	TCase *tc = tcase_create("verdict");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, inline_call);
	tcase_add_test(tc, read_chunks_mapped);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, no_reads_granted);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
