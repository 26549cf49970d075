/*
 * Unit test: the duplicate request cache (drc.c).  A Call is a miss and
 * gets an in-progress entry; its copy while it runs is dropped; once
 * completed a copy gets the kept Reply (bytes and segment layout) from
 * any source port of the same address, never from another address, xid,
 * procedure or arguments; stale Replies expire; the least recently
 * completed are evicted for room (entries and bytes), Calls in progress
 * never; too large a Reply is not kept; an abandoned Call is forgotten.
 */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "drc.h"

static struct rpcrdma_drc_key key(uint32_t xid, const char *ip, uint16_t port,
				  const char *args)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct rpcrdma_drc_key k;

	inet_pton(AF_INET, ip, &in.sin_addr);
	memset(&k, 0, sizeof(k));
	ck_assert_int_eq(rpcrdma_drc_key_addr(&k, (struct sockaddr *)&in), 0);
	k.dk_xid = xid;
	k.dk_prog = 0x20049002;
	k.dk_vers = 1;
	k.dk_proc = 1;
	k.dk_arglen = (uint32_t)strlen(args);
	k.dk_csum = rpcrdma_drc_csum(NULL, 0, 1, args, k.dk_arglen);
	return k;
}

static struct rpcrdma_drc_reply reply_of(const char *text)
{
	struct rpcrdma_drc_reply r;

	memset(&r, 0, sizeof(r));
	r.dr_bytes = (uint8_t *)(uintptr_t)text;
	r.dr_len = (uint32_t)strlen(text);
	r.dr_nsegs = 1;
	r.dr_seglen[0] = r.dr_len;
	return r;
}

/* Look k up, expecting verdict v; a HIT must bring back text. */
static struct rpcrdma_drc_entry *expect(struct rpcrdma_drc *dc,
					const struct rpcrdma_drc_key *k,
					uint64_t now, enum rpcrdma_drc_verdict v,
					const char *text)
{
	struct rpcrdma_drc_entry *e;
	struct rpcrdma_drc_reply r;

	ck_assert_int_eq(rpcrdma_drc_lookup(dc, k, now, &e, &r), v);
	if (v == RPCRDMA_DRC_HIT) {
		ck_assert_ptr_null(e);
		ck_assert_uint_eq(r.dr_len, strlen(text));
		ck_assert_int_eq(memcmp(r.dr_bytes, text, r.dr_len), 0);
		rpcrdma_drc_reply_free(&r);
	}
	if (v == RPCRDMA_DRC_INPROG)
		ck_assert_ptr_null(e);
	return e;
}

START_TEST(once)
{
	struct rpcrdma_drc dc;
	struct rpcrdma_drc_key k = key(7, "10.20.0.2", 900, "add 1"), o;
	struct rpcrdma_drc_reply r = reply_of("count 1");
	struct rpcrdma_drc_entry *e;

	ck_assert_int_eq(rpcrdma_drc_init(&dc, 4, 1 << 20), 0);
	e = expect(&dc, &k, 1000, RPCRDMA_DRC_MISS, NULL);
	ck_assert_ptr_nonnull(e);
	/* Its copy on a new connection (other port) while it runs: dropped. */
	o = key(7, "10.20.0.2", 901, "add 1");
	expect(&dc, &o, 1001, RPCRDMA_DRC_INPROG, NULL);
	r.dr_nsegs = 3;
	r.dr_seglen[0] = 2; r.dr_seglen[1] = 3; r.dr_seglen[2] = 2;
	r.dr_segref[1] = 1;
	rpcrdma_drc_complete(&dc, e, &r, 1002);
	{
		struct rpcrdma_drc_reply got;

		ck_assert_int_eq(rpcrdma_drc_lookup(&dc, &o, 1003, &e, &got),
				 RPCRDMA_DRC_HIT);
		/* A copy, with the layout it was sent with. */
		ck_assert_ptr_ne(got.dr_bytes, r.dr_bytes);
		ck_assert_uint_eq(got.dr_nsegs, 3);
		ck_assert_uint_eq(got.dr_seglen[1], 3);
		ck_assert_uint_eq(got.dr_segref[1], 1);
		ck_assert_uint_eq(got.dr_segref[0], 0);
		rpcrdma_drc_reply_free(&got);
	}
	/* Anything else about it differs: another Call. */
	o = key(7, "10.20.0.3", 900, "add 1");
	rpcrdma_drc_abandon(&dc, expect(&dc, &o, 1004, RPCRDMA_DRC_MISS, NULL));
	o = key(8, "10.20.0.2", 900, "add 1");
	rpcrdma_drc_abandon(&dc, expect(&dc, &o, 1004, RPCRDMA_DRC_MISS, NULL));
	o = key(7, "10.20.0.2", 900, "add 2");
	rpcrdma_drc_abandon(&dc, expect(&dc, &o, 1004, RPCRDMA_DRC_MISS, NULL));
	o = key(7, "10.20.0.2", 900, "add 1");
	o.dk_proc = 2;
	rpcrdma_drc_abandon(&dc, expect(&dc, &o, 1004, RPCRDMA_DRC_MISS, NULL));
	ck_assert_uint_eq(dc.dc_stats.ds_hits, 1);
	ck_assert_uint_eq(dc.dc_stats.ds_misses, 5);
	ck_assert_uint_eq(dc.dc_stats.ds_inprog_drops, 1);
	ck_assert_uint_eq(dc.dc_stats.ds_evictions, 0);
	ck_assert_uint_eq(dc.dc_count, 1);
	/* Stale after RPCRDMA_DRC_EXPIRE_MS: executed again. */
	e = expect(&dc, &k, 1002 + RPCRDMA_DRC_EXPIRE_MS, RPCRDMA_DRC_MISS, NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(dc.dc_stats.ds_evictions, 1);
	rpcrdma_drc_fini(&dc);
}
END_TEST

START_TEST(abandoned)
{
	struct rpcrdma_drc dc;
	struct rpcrdma_drc_key k = key(9, "10.20.0.2", 900, "x");
	struct rpcrdma_drc_entry *e;

	ck_assert_int_eq(rpcrdma_drc_init(&dc, 4, 1 << 20), 0);
	e = expect(&dc, &k, 0, RPCRDMA_DRC_MISS, NULL);
	rpcrdma_drc_abandon(&dc, e);
	ck_assert_uint_eq(dc.dc_count, 0);
	/* Never answered: its retransmission runs (it is no duplicate). */
	e = expect(&dc, &k, 1, RPCRDMA_DRC_MISS, NULL);
	ck_assert_ptr_nonnull(e);
	rpcrdma_drc_fini(&dc);
}
END_TEST

START_TEST(eviction)
{
	struct rpcrdma_drc dc;
	struct rpcrdma_drc_key k[4];
	struct rpcrdma_drc_entry *e[4], *f;
	struct rpcrdma_drc_reply r = reply_of("reply");
	uint32_t i;

	ck_assert_int_eq(rpcrdma_drc_init(&dc, 3, 1 << 20), 0);
	for (i = 0; i < 4; i++)
		k[i] = key(100 + i, "10.20.0.2", 900, "a");
	for (i = 0; i < 3; i++)
		e[i] = expect(&dc, &k[i], i, RPCRDMA_DRC_MISS, NULL);
	/* Full of Calls in progress: the fourth runs, but is not kept. */
	f = expect(&dc, &k[3], 3, RPCRDMA_DRC_MISS, NULL);
	ck_assert_ptr_null(f);
	ck_assert_uint_eq(dc.dc_stats.ds_evictions, 0);
	/* Completed in the order 1, 0, 2: 1 is the least recent. */
	rpcrdma_drc_complete(&dc, e[1], &r, 10);
	rpcrdma_drc_complete(&dc, e[0], &r, 11);
	rpcrdma_drc_complete(&dc, e[2], &r, 12);
	f = expect(&dc, &k[3], 13, RPCRDMA_DRC_MISS, NULL);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(dc.dc_stats.ds_evictions, 1);
	expect(&dc, &k[0], 14, RPCRDMA_DRC_HIT, "reply");
	expect(&dc, &k[2], 14, RPCRDMA_DRC_HIT, "reply");
	/* 1 was evicted: it runs again, and 0 (least recent now) goes. */
	e[1] = expect(&dc, &k[1], 14, RPCRDMA_DRC_MISS, NULL);
	ck_assert_ptr_nonnull(e[1]);
	ck_assert_uint_eq(dc.dc_stats.ds_evictions, 2);
	expect(&dc, &k[2], 15, RPCRDMA_DRC_HIT, "reply");
	ck_assert_uint_eq(dc.dc_count, 3);
	rpcrdma_drc_fini(&dc);
}
END_TEST

START_TEST(bytes)
{
	struct rpcrdma_drc dc;
	struct rpcrdma_drc_key a = key(1, "10.20.0.2", 900, "a"),
			       b = key(2, "10.20.0.2", 900, "a"),
			       c = key(3, "10.20.0.2", 900, "a");
	struct rpcrdma_drc_reply r = reply_of("0123456789");
	struct rpcrdma_drc_entry *e;
	uint8_t *big;

	/* Room for two 10-byte Replies. */
	ck_assert_int_eq(rpcrdma_drc_init(&dc, 100, 25), 0);
	rpcrdma_drc_complete(&dc, expect(&dc, &a, 0, RPCRDMA_DRC_MISS, NULL), &r, 0);
	rpcrdma_drc_complete(&dc, expect(&dc, &b, 1, RPCRDMA_DRC_MISS, NULL), &r, 1);
	rpcrdma_drc_complete(&dc, expect(&dc, &c, 2, RPCRDMA_DRC_MISS, NULL), &r, 2);
	ck_assert_uint_eq(dc.dc_bytes, 20);
	ck_assert_uint_eq(dc.dc_stats.ds_evictions, 1);
	expect(&dc, &b, 3, RPCRDMA_DRC_HIT, "0123456789");
	expect(&dc, &c, 3, RPCRDMA_DRC_HIT, "0123456789");
	rpcrdma_drc_fini(&dc);

	/* Over RPCRDMA_DRC_MAX_REPLY: not kept, its entry gone, counted. */
	ck_assert_int_eq(rpcrdma_drc_init(&dc, 100, 1ull << 30), 0);
	big = calloc(1, RPCRDMA_DRC_MAX_REPLY + 1);
	ck_assert_ptr_nonnull(big);
	r.dr_bytes = big;
	r.dr_len = r.dr_seglen[0] = RPCRDMA_DRC_MAX_REPLY + 1;
	e = expect(&dc, &a, 0, RPCRDMA_DRC_MISS, NULL);
	rpcrdma_drc_complete(&dc, e, &r, 0);
	ck_assert_uint_eq(dc.dc_count, 0);
	ck_assert_uint_eq(dc.dc_stats.ds_evictions, 1);
	r.dr_len = r.dr_seglen[0] = RPCRDMA_DRC_MAX_REPLY;
	e = expect(&dc, &a, 1, RPCRDMA_DRC_MISS, NULL);
	rpcrdma_drc_complete(&dc, e, &r, 1);
	ck_assert_uint_eq(dc.dc_count, 1);
	free(big);
	rpcrdma_drc_fini(&dc);
}
END_TEST

START_TEST(off_and_keys)
{
	struct rpcrdma_drc dc;
	struct rpcrdma_drc_key k = key(1, "10.20.0.2", 900, "a"), k6;
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(1) };
	struct sockaddr un = { .sa_family = AF_UNIX };
	char args[1000];

	/* drc_size 0: every Call runs, nothing is kept. */
	ck_assert_int_eq(rpcrdma_drc_init(&dc, 0, 1 << 20), 0);
	ck_assert_ptr_null(expect(&dc, &k, 0, RPCRDMA_DRC_MISS, NULL));
	ck_assert_ptr_null(expect(&dc, &k, 0, RPCRDMA_DRC_MISS, NULL));
	rpcrdma_drc_fini(&dc);
	/* IPv6: the address without the port. */
	inet_pton(AF_INET6, "fd00::2", &in6.sin6_addr);
	ck_assert_int_eq(rpcrdma_drc_key_addr(&k6, (struct sockaddr *)&in6), 0);
	ck_assert_int_eq(memcmp(k6.dk_addr, &in6.sin6_addr, 16), 0);
	ck_assert_int_ne(rpcrdma_drc_key_addr(&k6, &un), 0);
	/* The checksum covers the credential and the first bytes only. */
	memset(args, 'a', sizeof(args));
	ck_assert_uint_ne(rpcrdma_drc_csum("u1", 2, 1, args, 10),
			  rpcrdma_drc_csum("u2", 2, 1, args, 10));
	ck_assert_uint_ne(rpcrdma_drc_csum(NULL, 0, 1, args, 10),
			  rpcrdma_drc_csum(NULL, 0, 6, args, 10));
	ck_assert_uint_eq(rpcrdma_drc_csum(NULL, 0, 1, args, 900),
			  rpcrdma_drc_csum(NULL, 0, 1, args, 1000));
	args[0] = 'b';
	ck_assert_uint_ne(rpcrdma_drc_csum(NULL, 0, 1, args, 900),
			  rpcrdma_drc_csum(NULL, 0, 1, args + 1, 900));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("drc");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, once);
	tcase_add_test(tc, abandoned);
	tcase_add_test(tc, eviction);
	tcase_add_test(tc, bytes);
	tcase_add_test(tc, off_and_keys);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
