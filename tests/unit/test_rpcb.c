/*
 * Unit test: the netids rdma and rdma6 as struct netconfig (freed by
 * libtirpc's freenetconfigent), address translation for them, universal
 * address parsing and the choice of a registration from rpcbind's list.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>

#include "netid.h"

START_TEST(netconfig_entries)
{
	struct netconfig *nc = rpcrdma_getnetconfigent("rdma");

	ck_assert_ptr_nonnull(nc);
	ck_assert_str_eq(nc->nc_netid, "rdma");
	ck_assert_str_eq(nc->nc_protofmly, NC_INET);
	ck_assert_str_eq(nc->nc_proto, "rdma");
	ck_assert_str_eq(nc->nc_device, "-");
	ck_assert_uint_eq(nc->nc_semantics, NC_TPI_COTS_ORD);
	ck_assert_uint_eq(nc->nc_flag, NC_VISIBLE);
	ck_assert_uint_eq(nc->nc_nlookups, 0);
	ck_assert_ptr_null(nc->nc_lookups);
	/* One buffer from nc_netid on, as freenetconfigent() expects. */
	ck_assert_ptr_eq(nc->nc_protofmly, nc->nc_netid + 5);
	freenetconfigent(nc);

	nc = rpcrdma_getnetconfigent("rdma6");
	ck_assert_ptr_nonnull(nc);
	ck_assert_str_eq(nc->nc_netid, "rdma6");
	ck_assert_str_eq(nc->nc_protofmly, NC_INET6);
	freenetconfigent(nc);

	errno = 0;
	ck_assert_ptr_null(rpcrdma_getnetconfigent("tcp"));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(rpcrdma_getnetconfigent("RDMA"));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(rpcrdma_getnetconfigent("rdma "));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(rpcrdma_getnetconfigent(""));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(rpcrdma_getnetconfigent(NULL));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* What svc_reg() -> rpcb_set() asks: the listener's address as a uaddr. */
START_TEST(translate)
{
	struct netconfig *nc4 = rpcrdma_getnetconfigent("rdma");
	struct netconfig *nc6 = rpcrdma_getnetconfigent("rdma6");
	struct netconfig *tcp = getnetconfigent("tcp");
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(20049) };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(20050) };
	struct netbuf nb4 = { sizeof(sin), sizeof(sin), &sin };
	struct netbuf nb6 = { sizeof(sin6), sizeof(sin6), &sin6 };
	struct netbuf *t;
	char *u;

	inet_pton(AF_INET, "10.20.0.1", &sin.sin_addr);
	inet_pton(AF_INET6, "fd00::1", &sin6.sin6_addr);
	u = taddr2uaddr(nc4, &nb4);
	ck_assert_str_eq(u, "10.20.0.1.78.81");
	free(u);
	u = taddr2uaddr(nc6, &nb6);
	ck_assert_str_eq(u, "fd00::1.78.82");
	free(u);
	/* The wildcard, as a listener on every address registers. */
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	u = taddr2uaddr(nc4, &nb4);
	ck_assert_str_eq(u, "0.0.0.0.78.81");
	free(u);
	/* A family the netid is not: refused, like libtirpc's tcp. */
	ck_assert_ptr_null(taddr2uaddr(nc4, &nb6));
	ck_assert_ptr_null(taddr2uaddr(nc6, &nb4));
	ck_assert_ptr_null(taddr2uaddr(nc4, NULL));
	nb4.len = 2;
	ck_assert_ptr_null(taddr2uaddr(nc4, &nb4));
	nb4.len = sizeof(sin);
	ck_assert_ptr_null(taddr2uaddr(NULL, &nb4));

	t = uaddr2taddr(nc4, "10.20.0.2.78.81");
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(((struct sockaddr_in *)t->buf)->sin_port, htons(20049));
	free(t->buf);
	free(t);
	ck_assert_ptr_null(uaddr2taddr(nc4, NULL));

	/* Every other netid as libtirpc translates it. */
	ck_assert_ptr_nonnull(tcp);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	u = taddr2uaddr(tcp, &nb4);
	ck_assert_str_eq(u, "127.0.0.1.78.81");
	free(u);
	freenetconfigent(tcp);
	freenetconfigent(nc4);
	freenetconfigent(nc6);
}
END_TEST

START_TEST(uaddr_ports)
{
	const int v4 = RPCRDMA_NETID_INET, v6 = RPCRDMA_NETID_INET6;
	static const char *const bad4[] = {
		"", ".", "..", "78.81", ".78.81", "10.20.0.1.78", "10.20.0.1.256.1",
		"10.20.0.1.1.256", "10.20.0.1.-1.2", "10.20.0.1.78.81x",
		"10.20.0.1.078.81", "10.20.0.1.78.081", "10.20.0.1.0.0",
		"10.20.0.1..81", "10.20.0.1.78.", "host.78.81", "10.20.0.1.78.81 ",
		" 10.20.0.1.78.81", "1.2.3.4.5.6.7", "10.20.0.1.+7.81",
		"fd00::1.78.81", "10.20.0.1.1000.1", "10.20.0.1.78.81.",
	};
	char longu[300];
	size_t i;

	ck_assert_int_eq(rpcrdma_uaddr_port("10.20.0.1.78.81", v4), 20049);
	ck_assert_int_eq(rpcrdma_uaddr_port("0.0.0.0.78.82", v4), 20050);
	ck_assert_int_eq(rpcrdma_uaddr_port("127.0.0.1.0.1", v4), 1);
	ck_assert_int_eq(rpcrdma_uaddr_port("127.0.0.1.255.255", v4), 65535);
	ck_assert_int_eq(rpcrdma_uaddr_port("fd00::1.78.81", v6), 20049);
	ck_assert_int_eq(rpcrdma_uaddr_port("::.78.81", v6), 20049);
	ck_assert_int_eq(rpcrdma_uaddr_port("::ffff:10.0.0.1.4.1", v6), 1025);
	for (i = 0; i < sizeof(bad4) / sizeof(bad4[0]); i++)
		ck_assert_msg(rpcrdma_uaddr_port(bad4[i], v4) == -EINVAL,
			      "\"%s\" taken", bad4[i]);
	ck_assert_int_eq(rpcrdma_uaddr_port("10.20.0.1.78.81", v6), -EINVAL);
	ck_assert_int_eq(rpcrdma_uaddr_port(NULL, v4), -EINVAL);
	ck_assert_int_eq(rpcrdma_uaddr_port("10.20.0.1.78.81", 0), -EINVAL);
	memset(longu, '1', sizeof(longu) - 1);
	longu[sizeof(longu) - 1] = '\0';
	memcpy(longu + sizeof(longu) - 7, ".78.81", 6);
	ck_assert_int_eq(rpcrdma_uaddr_port(longu, v4), -EINVAL);
}
END_TEST

static void entry(rpcblist *e, rpcblist *next, rpcprog_t prog, rpcvers_t vers,
		  const char *netid, const char *addr)
{
	e->rpcb_map.r_prog = prog;
	e->rpcb_map.r_vers = vers;
	e->rpcb_map.r_netid = (char *)netid;
	e->rpcb_map.r_addr = (char *)addr;
	e->rpcb_map.r_owner = (char *)"0";
	e->rpcb_next = next;
}

START_TEST(pick)
{
	rpcblist e[7];

	/* tcp, another version, rdma6, a NULL netid, garbage, then the one. */
	entry(&e[0], &e[1], 400100, 1, "tcp", "0.0.0.0.3.232");
	entry(&e[1], &e[2], 400100, 2, "rdma", "0.0.0.0.78.83");
	entry(&e[2], &e[3], 400100, 1, "rdma6", "::.78.84");
	entry(&e[3], &e[4], 400100, 1, NULL, "0.0.0.0.78.85");
	entry(&e[4], &e[5], 400100, 1, "rdma", "not an address");
	entry(&e[5], &e[6], 400100, 1, "rdma", "0.0.0.0.78.82");
	entry(&e[6], NULL, 400101, 1, "rdma", "0.0.0.0.78.86");
	ck_assert_int_eq(rpcrdma_rpcb_pick(e, 400100, 1, "rdma"), 20050);
	ck_assert_int_eq(rpcrdma_rpcb_pick(e, 400100, 2, "rdma"), 20051);
	ck_assert_int_eq(rpcrdma_rpcb_pick(e, 400100, 1, "rdma6"), 20052);
	ck_assert_int_eq(rpcrdma_rpcb_pick(e, 400101, 1, "rdma"), 20054);
	ck_assert_int_eq(rpcrdma_rpcb_pick(e, 400100, 3, "rdma"), -ENOENT);
	ck_assert_int_eq(rpcrdma_rpcb_pick(e, 400102, 1, "rdma"), -ENOENT);
	ck_assert_int_eq(rpcrdma_rpcb_pick(NULL, 400100, 1, "rdma"), -ENOENT);
	ck_assert_int_eq(rpcrdma_rpcb_pick(e, 400100, 1, "tcp"), -ENOENT);
	/* Only a garbled registration: said apart from none. */
	e[4].rpcb_next = NULL;
	ck_assert_int_eq(rpcrdma_rpcb_pick(e, 400100, 1, "rdma"), -EINVAL);
	/* A NULL address (a broken peer's XDR would not give one, but). */
	entry(&e[4], NULL, 400100, 1, "rdma", NULL);
	ck_assert_int_eq(rpcrdma_rpcb_pick(e, 400100, 1, "rdma"), -EINVAL);
	/* An rdma6 registration does not answer an IPv4 peer. */
	e[1].rpcb_next = NULL;
	ck_assert_int_eq(rpcrdma_rpcb_pick(e, 400100, 1, "rdma"), -ENOENT);
	/* A loop (a list longer than any rpcbind keeps) ends. */
	entry(&e[0], &e[1], 400100, 1, "tcp", "0.0.0.0.3.232");
	entry(&e[1], &e[0], 400100, 1, "rdma", "bad");
	ck_assert_int_eq(rpcrdma_rpcb_pick(e, 400100, 1, "rdma"), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rpcb");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, netconfig_entries);
	tcase_add_test(tc, translate);
	tcase_add_test(tc, uaddr_ports);
	tcase_add_test(tc, pick);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
