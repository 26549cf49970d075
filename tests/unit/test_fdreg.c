/*
 * Unit test: the transport descriptor registry behind rpcrdma_fd_sockinfo.
 * A registered fd answers SOCK_STREAM/IPPROTO_TCP with its flags, family
 * and addresses; an unregistered or removed one, and a negative one,
 * ENOTSOCK; a too small si_size EINVAL; the library writes no further
 * than the program's si_size; a far descriptor grows the table.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <rpcrdma/rpcrdma.h>

#include "fdreg.h"

static struct sockaddr_in v4(const char *a, int port)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, a, &in.sin_addr);
	return in;
}

START_TEST(registered_answers_as_tcp)
{
	struct sockaddr_in l = v4("10.20.0.1", 20049), p = v4("10.20.0.2", 40000);
	struct rpcrdma_sockinfo si = RPCRDMA_SOCKINFO_INIT;
	struct sockaddr_in *got;

	ck_assert_int_eq(rpcrdma_fdreg_add(7, RPCRDMA_SI_CONNECTION,
					   (struct sockaddr *)&l,
					   (struct sockaddr *)&p), 0);
	ck_assert_int_eq(rpcrdma_fd_sockinfo(7, &si), 0);
	ck_assert_uint_eq(si.si_flags, RPCRDMA_SI_CONNECTION);
	ck_assert_int_eq(si.si_type, SOCK_STREAM);
	ck_assert_int_eq(si.si_protocol, IPPROTO_TCP);
	ck_assert_int_eq(si.si_family, AF_INET);
	ck_assert_uint_eq(si.si_lib_size, sizeof(si));
	got = (struct sockaddr_in *)&si.si_peer;
	ck_assert_int_eq(got->sin_family, AF_INET);
	ck_assert_int_eq(memcmp(&got->sin_addr, &p.sin_addr, 4), 0);
	ck_assert_int_eq(ntohs(got->sin_port), 40000);
	got = (struct sockaddr_in *)&si.si_local;
	ck_assert_int_eq(ntohs(got->sin_port), 20049);
	rpcrdma_fdreg_del(7);
	errno = 0;
	ck_assert_int_eq(rpcrdma_fd_sockinfo(7, &si), -1);
	ck_assert_int_eq(errno, ENOTSOCK);
}
END_TEST

START_TEST(listener_has_no_peer)
{
	struct sockaddr_in6 l = { .sin6_family = AF_INET6, .sin6_port = htons(20049) };
	struct rpcrdma_sockinfo si = RPCRDMA_SOCKINFO_INIT;

	ck_assert_int_eq(rpcrdma_fdreg_add(3, RPCRDMA_SI_LISTENER,
					   (struct sockaddr *)&l, NULL), 0);
	ck_assert_int_eq(rpcrdma_fd_sockinfo(3, &si), 0);
	ck_assert_int_eq(si.si_family, AF_INET6);
	ck_assert_int_eq(si.si_peer.ss_family, AF_UNSPEC);
	rpcrdma_fdreg_del(3);
}
END_TEST

START_TEST(bad_input)
{
	struct rpcrdma_sockinfo si = RPCRDMA_SOCKINFO_INIT;

	ck_assert_int_eq(rpcrdma_fdreg_add(-1, RPCRDMA_SI_CLIENT, NULL, NULL), -EINVAL);
	ck_assert_int_eq(rpcrdma_fdreg_add(5, 0, NULL, NULL), -EINVAL);
	errno = 0;
	ck_assert_int_eq(rpcrdma_fd_sockinfo(-1, &si), -1);
	ck_assert_int_eq(errno, ENOTSOCK);
	errno = 0;
	ck_assert_int_eq(rpcrdma_fd_sockinfo(100000, &si), -1);
	ck_assert_int_eq(errno, ENOTSOCK);
	si.si_size = 8;
	errno = 0;
	ck_assert_int_eq(rpcrdma_fd_sockinfo(0, &si), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(rpcrdma_fd_sockinfo(0, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	rpcrdma_fdreg_del(-1);		/* harmless */
	rpcrdma_fdreg_del(1 << 20);	/* harmless */
}
END_TEST

/* A program built against a larger struct: nothing past si_size written
 * beyond what the library knows; a far fd grows the table. */
START_TEST(size_first_and_growth)
{
	struct sockaddr_in l = v4("10.20.0.1", 1);
	struct { struct rpcrdma_sockinfo si; unsigned char tail[16]; } big;

	memset(&big, 0xa5, sizeof(big));
	big.si.si_size = sizeof(big);
	ck_assert_int_eq(rpcrdma_fdreg_add(4000, RPCRDMA_SI_CLIENT,
					   (struct sockaddr *)&l, NULL), 0);
	ck_assert_int_eq(rpcrdma_fd_sockinfo(4000, &big.si), 0);
	ck_assert_uint_eq(big.si.si_size, sizeof(big));
	ck_assert_uint_eq(big.si.si_lib_size, sizeof(struct rpcrdma_sockinfo));
	ck_assert_uint_eq(big.tail[0], 0xa5);
	ck_assert_uint_eq(big.tail[15], 0xa5);
	rpcrdma_fdreg_del(4000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fdreg");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, registered_answers_as_tcp);
	tcase_add_test(tc, listener_has_no_peer);
	tcase_add_test(tc, bad_input);
	tcase_add_test(tc, size_first_and_growth);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
