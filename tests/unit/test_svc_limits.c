/*
 * Unit test: the server's small decisions about peers: a connection SVCXPRT's
 * address netbufs are copies sized to the family; max_connections admits
 * up to the limit (0: none); an RPC Call of another rpcvers is recognised,
 * with its xid, and nothing else is; a connection is idle once no Call
 * came for the timeout (0: never); max_conn_memory counts rings and chunk
 * buffers in pool units, refuses one unit over, and gives all back.
 */
#include "config.h"
#include <check.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "pool.h"
#include "svc_limits.h"

START_TEST(netbufs)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(20049) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	struct sockaddr other = { .sa_family = AF_UNIX };
	struct svc_rdma_addr a;
	struct netbuf nb;

	inet_pton(AF_INET, "10.20.0.2", &in.sin_addr);
	svc_rdma_set_netbuf(&nb, &a, (struct sockaddr *)&in);
	ck_assert_ptr_eq(nb.buf, &a.sa_ss);
	ck_assert_uint_eq(nb.maxlen, sizeof(struct sockaddr_storage));
	ck_assert_uint_eq(nb.len, sizeof(in));
	ck_assert_int_eq(memcmp(nb.buf, &in, sizeof(in)), 0);
	/* A copy: the cm_id's own address may go first. */
	in.sin_port = 0;
	ck_assert_uint_eq(ntohs(((struct sockaddr_in *)nb.buf)->sin_port), 20049);

	svc_rdma_set_netbuf(&nb, &a, (struct sockaddr *)&in6);
	ck_assert_uint_eq(nb.len, sizeof(in6));
	/* Unknown family or none: an empty netbuf, never garbage. */
	svc_rdma_set_netbuf(&nb, &a, &other);
	ck_assert_uint_eq(nb.len, 0);
	ck_assert_ptr_eq(nb.buf, &a.sa_ss);
	svc_rdma_set_netbuf(&nb, &a, NULL);
	ck_assert_uint_eq(nb.len, 0);
}
END_TEST

START_TEST(max_connections)
{
	ck_assert(svc_rdma_may_accept(0, 0));
	ck_assert(svc_rdma_may_accept(100000, 0));
	ck_assert(svc_rdma_may_accept(0, 1));
	ck_assert(!svc_rdma_may_accept(1, 1));
	ck_assert(svc_rdma_may_accept(2, 3));
	ck_assert(!svc_rdma_may_accept(3, 3));
	ck_assert(!svc_rdma_may_accept(4, 3));
}
END_TEST

START_TEST(conn_memory)
{
	const uint64_t u = RPCRDMA_POOL_UNIT;
	struct svc_rdma_mem m = { .sm_limit = 0 };

	ck_assert_uint_eq(svc_rdma_mem_cost(0), u);
	ck_assert_uint_eq(svc_rdma_mem_cost(1), u);
	ck_assert_uint_eq(svc_rdma_mem_cost(u), u);
	ck_assert_uint_eq(svc_rdma_mem_cost(u + 1), 2 * u);
	ck_assert_uint_eq(svc_rdma_mem_cost(UINT64_MAX - u), UINT64_MAX - u + 1);
	ck_assert_uint_eq(svc_rdma_mem_cost(UINT64_MAX), UINT64_MAX);
	/* 32 receives and sends of 4 KiB and one 4 KiB scratch slice. */
	ck_assert_uint_eq(svc_rdma_ring_bytes(32, 4096, 32, 4096, 4096),
			  65 * 4096);
	ck_assert_uint_eq(svc_rdma_ring_bytes(UINT32_MAX, UINT32_MAX, UINT32_MAX,
					      UINT32_MAX, 0),
			  2 * (uint64_t)UINT32_MAX * UINT32_MAX);

	/* No limit: anything, and the rings always fit. */
	m.sm_rings = 1ull << 40;
	ck_assert(svc_rdma_mem_rings_fit(&m));
	ck_assert_int_eq(svc_rdma_mem_take(&m, 1ull << 40), 0);
	ck_assert_uint_eq(svc_rdma_mem_room(&m, 12345), 12345);

	/* Rings of 100 KiB and three units of room after them. */
	m = (struct svc_rdma_mem){ .sm_limit = 100 * 1024 + 3 * u,
				   .sm_rings = 100 * 1024 };
	ck_assert(svc_rdma_mem_rings_fit(&m));
	ck_assert_uint_eq(svc_rdma_mem_room(&m, 1u << 20), 3 * u);
	ck_assert_int_eq(svc_rdma_mem_take(&m, u + 1), 0);	/* two units */
	ck_assert_uint_eq(m.sm_chunks, 2 * u);
	ck_assert_uint_eq(svc_rdma_mem_room(&m, 1u << 20), u);
	ck_assert_int_eq(svc_rdma_mem_take(&m, u + 1), -ENOBUFS);
	ck_assert_uint_eq(m.sm_chunks, 2 * u);		/* nothing taken */
	ck_assert_int_eq(svc_rdma_mem_take(&m, 1), 0);	/* exactly at it */
	ck_assert_uint_eq(svc_rdma_mem_room(&m, 1u << 20), 0);
	ck_assert_int_eq(svc_rdma_mem_take(&m, 0), -ENOBUFS);
	svc_rdma_mem_give(&m, 1);
	svc_rdma_mem_give(&m, u + 1);
	ck_assert_uint_eq(m.sm_chunks, 0);
	/* Trimmed from three units to one: two come back. */
	ck_assert_int_eq(svc_rdma_mem_take(&m, 3 * u), 0);
	svc_rdma_mem_trim(&m, 3 * u, 100);
	ck_assert_uint_eq(m.sm_chunks, u);
	svc_rdma_mem_trim(&m, 100, 200);	/* keep >= len: unchanged */
	ck_assert_uint_eq(m.sm_chunks, u);
	svc_rdma_mem_give(&m, 100);
	ck_assert_uint_eq(m.sm_chunks, 0);
	/* Given back more than held (never by the library): no wrap. */
	svc_rdma_mem_give(&m, u);
	ck_assert_uint_eq(m.sm_chunks, 0);

	/* Rings over the limit: refused at accept, and no room at all. */
	m = (struct svc_rdma_mem){ .sm_limit = 4096, .sm_rings = 4097 };
	ck_assert(!svc_rdma_mem_rings_fit(&m));
	ck_assert_uint_eq(svc_rdma_mem_room(&m, u), 0);
	ck_assert_int_eq(svc_rdma_mem_take(&m, 1), -ENOBUFS);
	m.sm_rings = 4096;
	ck_assert(svc_rdma_mem_rings_fit(&m));
	ck_assert_int_eq(svc_rdma_mem_take(&m, 1), -ENOBUFS);
	/* The largest limit and lengths do not overflow. */
	m = (struct svc_rdma_mem){ .sm_limit = UINT64_MAX, .sm_rings = 1 };
	ck_assert_int_eq(svc_rdma_mem_take(&m, UINT64_MAX), -ENOBUFS);
	ck_assert_int_eq(svc_rdma_mem_take(&m, UINT64_MAX / 2), 0);
}
END_TEST

static uint32_t words[4];

static const void *call(uint32_t xid, uint32_t type, uint32_t vers)
{
	words[0] = htonl(xid);
	words[1] = htonl(type);
	words[2] = htonl(vers);
	words[3] = htonl(0x20049001);
	return words;
}

START_TEST(rpcvers)
{
	uint32_t xid = 0;

	ck_assert(svc_rdma_other_rpcvers(call(0x1234, 0, 3), 16, &xid));
	ck_assert_uint_eq(xid, 0x1234);
	ck_assert(svc_rdma_other_rpcvers(call(7, 0, 1), 12, &xid));
	ck_assert(svc_rdma_other_rpcvers(call(7, 0, 0xffffffff), 16, &xid));
	/* Version 2 is ours; a Reply or garbage is not a Call to deny. */
	ck_assert(!svc_rdma_other_rpcvers(call(7, 0, 2), 16, &xid));
	ck_assert(!svc_rdma_other_rpcvers(call(7, 1, 3), 16, &xid));
	ck_assert(!svc_rdma_other_rpcvers(call(7, 0xdeadbeef, 3), 16, &xid));
	/* Too short to carry rpcvers. */
	ck_assert(!svc_rdma_other_rpcvers(call(7, 0, 3), 11, &xid));
	ck_assert(!svc_rdma_other_rpcvers(NULL, 16, &xid));
}
END_TEST

START_TEST(idle)
{
	uint64_t ms = 1000000;

	/* 0: never idle, however long. */
	ck_assert(!svc_rdma_is_idle(0, 1000000 * ms, 0));
	ck_assert(!svc_rdma_is_idle(5 * ms, 5 * ms + 1999 * ms, 2000));
	ck_assert(svc_rdma_is_idle(5 * ms, 5 * ms + 2000 * ms, 2000));
	ck_assert(svc_rdma_is_idle(5 * ms, 5 * ms + 86400000 * ms, 2000));
	/* A Call stamped after the sweep read the clock: not idle. */
	ck_assert(!svc_rdma_is_idle(9 * ms, 5 * ms, 1));
	/* The largest timeout does not overflow. */
	ck_assert(!svc_rdma_is_idle(0, 86399999 * ms, 86400000));
	ck_assert(svc_rdma_is_idle(0, 86400000 * ms, 86400000));
}
END_TEST

/*
 * The passive side's CM event reports the peer's request from our side:
 * initiator_depth is what the peer serves, responder_resources what it
 * issues.  We issue no more than it serves, capped by the device.
 */
START_TEST(read_depths)
{
	uint32_t ord, ird;

	/* responder_resources 1, initiator_depth 8 at the peer: one Read. */
	svc_rdma_read_depths(1, 8, 128, 128, &ord, &ird);
	ck_assert_uint_eq(ord, 1);
	ck_assert_uint_eq(ird, 8);
	/* The Linux client: initiator_depth 0, responder resources its
	 * device's: we issue as many as our device can, serve none. */
	svc_rdma_read_depths(16, 0, 128, 128, &ord, &ird);
	ck_assert_uint_eq(ord, 16);
	ck_assert_uint_eq(ird, 0);
	svc_rdma_read_depths(200, 0, 16, 128, &ord, &ird);
	ck_assert_uint_eq(ord, 16);
	/* A peer serving none: 0 stays 0 (its Read chunks get ERR_CHUNK). */
	svc_rdma_read_depths(0, 4, 128, 128, &ord, &ird);
	ck_assert_uint_eq(ord, 0);
	ck_assert_uint_eq(ird, 4);
	/* A device that could not be asked: at most 1; never past 255. */
	svc_rdma_read_depths(8, 8, 0, 0, &ord, &ird);
	ck_assert_uint_eq(ord, 1);
	ck_assert_uint_eq(ird, 1);
	svc_rdma_read_depths(1000, 1000, 4096, 4096, &ord, &ird);
	ck_assert_uint_eq(ord, 255);
	ck_assert_uint_eq(ird, 255);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svc_limits");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, netbufs);
	tcase_add_test(tc, max_connections);
	tcase_add_test(tc, rpcvers);
	tcase_add_test(tc, idle);
	tcase_add_test(tc, conn_memory);
	tcase_add_test(tc, read_depths);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
