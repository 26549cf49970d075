/*
 * Unit test: per-peer stall budgets.  A peer is keyed by address alone
 * (any port, IPv4-mapped IPv6 as IPv4); a penalty refuses it until it
 * ends, never another address, and is only ever extended; a full table
 * makes room with an expired entry, else the one ending first; 30 times
 * svc_stall_ms.
 */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "svc_peers.h"

static const uint64_t ms = 1000000;

static struct sockaddr_in v4(const char *a, int port)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, a, &in.sin_addr);
	return in;
}

static struct sockaddr_in6 v6(const char *a, int port)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };

	inet_pton(AF_INET6, a, &in6.sin6_addr);
	return in6;
}

#define SA(x) ((const struct sockaddr *)&(x))

START_TEST(keys)
{
	struct sockaddr_in a = v4("10.20.0.2", 1000), b = v4("10.20.0.2", 2000),
			   c = v4("10.20.0.3", 1000);
	struct sockaddr_in6 m = v6("::ffff:10.20.0.2", 5), d = v6("fe80::1", 1),
			    e = v6("fe80::2", 1);
	struct sockaddr other = { .sa_family = AF_UNIX };
	uint8_t k[16];

	ck_assert_uint_eq(svc_rdma_peer_key(SA(a), k), 4);
	ck_assert_uint_eq(svc_rdma_peer_key(SA(m), k), 4);
	ck_assert_uint_eq(svc_rdma_peer_key(SA(d), k), 16);
	ck_assert_uint_eq(svc_rdma_peer_key(&other, k), 0);
	ck_assert_uint_eq(svc_rdma_peer_key(NULL, k), 0);
	ck_assert(svc_rdma_peer_same(SA(a), SA(b)));	/* ports aside */
	ck_assert(svc_rdma_peer_same(SA(a), SA(m)));	/* mapped */
	ck_assert(!svc_rdma_peer_same(SA(a), SA(c)));
	ck_assert(!svc_rdma_peer_same(SA(d), SA(e)));
	ck_assert(!svc_rdma_peer_same(&other, &other));	/* no key: nobody */
}
END_TEST

START_TEST(penalty)
{
	static struct svc_rdma_peers t;
	struct sockaddr_in a = v4("10.20.0.3", 1000), again = v4("10.20.0.3", 1001),
			   bystander = v4("10.20.0.2", 1000);
	struct sockaddr other = { .sa_family = AF_UNIX };

	memset(&t, 0, sizeof(t));
	ck_assert_uint_eq(svc_rdma_penalty_ns(1000), 30000 * ms);
	/* A chain's budget grows with its bytes, a Send's does not. */
	ck_assert_uint_eq(svc_rdma_stall_budget_ms(1000, 0), 1000);
	ck_assert_uint_eq(svc_rdma_stall_budget_ms(1000, 1), 1001);
	ck_assert_uint_eq(svc_rdma_stall_budget_ms(1000, 4u << 20), 2000);
	ck_assert_uint_eq(svc_rdma_stall_budget_ms(10, UINT64_MAX), UINT32_MAX);
	ck_assert(!svc_rdma_peer_refused(&t, SA(a), 5 * ms));
	svc_rdma_peer_penalize(&t, SA(a), 10 * ms, 100 * ms);
	/* Reconnecting from another port does not help; others unaffected. */
	ck_assert(svc_rdma_peer_refused(&t, SA(again), 10 * ms));
	ck_assert(svc_rdma_peer_refused(&t, SA(again), 109 * ms));
	ck_assert(!svc_rdma_peer_refused(&t, SA(again), 110 * ms));
	ck_assert(!svc_rdma_peer_refused(&t, SA(bystander), 50 * ms));
	/* Extended by a later stall, never shortened by an earlier one. */
	svc_rdma_peer_penalize(&t, SA(a), 50 * ms, 100 * ms);
	ck_assert(svc_rdma_peer_refused(&t, SA(a), 149 * ms));
	svc_rdma_peer_penalize(&t, SA(a), 20 * ms, 10 * ms);
	ck_assert(svc_rdma_peer_refused(&t, SA(a), 149 * ms));
	/* No address, no penalty. */
	svc_rdma_peer_penalize(&t, &other, 0, 100 * ms);
	ck_assert(!svc_rdma_peer_refused(&t, &other, 1 * ms));
}
END_TEST

START_TEST(full)
{
	static struct svc_rdma_peers t;
	struct sockaddr_in6 p;
	char buf[64];
	int i;

	memset(&t, 0, sizeof(t));
	/* Fill it: peer i refused until 1000 + i ms. */
	for (i = 0; i < SVC_RDMA_PEERS; i++) {
		snprintf(buf, sizeof(buf), "2001:db8::%x", i + 1);
		p = v6(buf, 1);
		svc_rdma_peer_penalize(&t, SA(p), 0, (1000 + (uint64_t)i) * ms);
	}
	/* One more: the one ending first (peer 0) makes room. */
	p = v6("2001:db8::ffff", 1);
	svc_rdma_peer_penalize(&t, SA(p), 0, 5000 * ms);
	ck_assert(svc_rdma_peer_refused(&t, SA(p), 10 * ms));
	p = v6("2001:db8::1", 1);
	ck_assert(!svc_rdma_peer_refused(&t, SA(p), 10 * ms));
	p = v6("2001:db8::2", 1);
	ck_assert(svc_rdma_peer_refused(&t, SA(p), 10 * ms));
	/* Later, an expired entry is taken before a live one. */
	p = v6("2001:db8::1", 1);
	svc_rdma_peer_penalize(&t, SA(p), 1001 * ms, 10 * ms);
	ck_assert(svc_rdma_peer_refused(&t, SA(p), 1005 * ms));
	p = v6("2001:db8::ffff", 1);
	ck_assert(svc_rdma_peer_refused(&t, SA(p), 1005 * ms));
	p = v6(buf, 1);	/* the last one filled, ending at 1063 ms */
	ck_assert(svc_rdma_peer_refused(&t, SA(p), 1005 * ms));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svc_peers");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, keys);
	tcase_add_test(tc, penalty);
	tcase_add_test(tc, full);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
