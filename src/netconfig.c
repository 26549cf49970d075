/*
 * The netids RFC 8166 names, "rdma" and "rdma6", as struct netconfig:
 * /etc/netconfig lacks them, so rpcrdma_getnetconfigent() builds one in
 * the layout libtirpc's getnetconfigent() returns, for freenetconfigent().
 * And taddr2uaddr()/uaddr2taddr() that know them, for svc_reg() -> rpcb_set().
 */
#include "config.h"
#include <errno.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <rpcrdma/rpcrdma.h>
#include <rpc/rpc_com.h>
#include "netid.h"

int rpcrdma_netid_family(const char *netid)
{
	if (!netid)
		return -EINVAL;
	if (!strcmp(netid, RPCRDMA_NETID))
		return RPCRDMA_NETID_INET;
	if (!strcmp(netid, RPCRDMA_NETID6))
		return RPCRDMA_NETID_INET6;
	return -ENOENT;
}

/*
 * libtirpc's dup_ncp() layout, which freenetconfigent() undoes: the
 * struct, one buffer holding every string and starting at nc_netid, and
 * nc_lookups (NULL here: no name-to-address library).
 */
struct netconfig *rpcrdma_netconfig_build(const char *netid)
{
	int fam = rpcrdma_netid_family(netid);
	const char *fmly = fam == RPCRDMA_NETID_INET6 ? NC_INET6 : NC_INET;
	const char *strs[4];
	size_t len = 0, i;
	struct netconfig *nc;
	char *buf, *p;

	if (fam < 0) {
		errno = -fam;
		return NULL;
	}
	strs[0] = netid;
	strs[1] = fmly;
	strs[2] = RPCRDMA_NC_PROTO;
	strs[3] = "-";
	for (i = 0; i < 4; i++)
		len += strlen(strs[i]) + 1;
	nc = calloc(1, sizeof(*nc));
	buf = malloc(len);
	if (!nc || !buf) {
		free(nc);
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	p = buf;
	for (i = 0; i < 4; i++) {
		size_t n = strlen(strs[i]) + 1;

		memcpy(p, strs[i], n);
		p += n;
	}
	nc->nc_netid = buf;
	nc->nc_protofmly = buf + strlen(strs[0]) + 1;
	nc->nc_proto = nc->nc_protofmly + strlen(strs[1]) + 1;
	nc->nc_device = nc->nc_proto + strlen(strs[2]) + 1;
	nc->nc_semantics = NC_TPI_COTS_ORD;
	nc->nc_flag = NC_VISIBLE;
	nc->nc_nlookups = 0;
	nc->nc_lookups = NULL;
	return nc;
}

RPCRDMA_EXPORT struct netconfig *rpcrdma_getnetconfigent(const char *netid)
{
	return rpcrdma_netconfig_build(netid);
}

/*
 * libtirpc translates addresses by a fixed table of netids (udp, tcp,
 * udp6, tcp6, local), so its rpcb_set(), which svc_reg(3) calls with the
 * program's netconfig, cannot register an "rdma" transport: taddr2uaddr()
 * returns NULL and rpcb_set() fails with RPC_N2AXLATEFAILURE.  These two
 * take the place of libtirpc's (exported at its version, TIRPC_0.3.0, so
 * that libtirpc's own calls reach them when librpcrdma comes before it in
 * the program's libraries, as pkg-config --libs puts it): the RDMA netids
 * by their family, every other netid exactly as libtirpc does.
 */
static int netid_af(const struct netconfig *nc)
{
	int fam = nc ? rpcrdma_netid_family(nc->nc_netid) : -EINVAL;

	if (fam == RPCRDMA_NETID_INET)
		return AF_INET;
	if (fam == RPCRDMA_NETID_INET6)
		return AF_INET6;
	return 0;
}

/* An address of the netid's family only: "rdma" with an IPv6 address is
 * refused (NULL), as libtirpc refuses "tcp" with one. */
static bool nb_is(const struct netbuf *nb, int af)
{
	const struct sockaddr *sa = nb ? nb->buf : NULL;

	return sa && nb->len >= (af == AF_INET6 ? sizeof(struct sockaddr_in6) :
				 sizeof(struct sockaddr_in)) &&
	       sa->sa_family == af;
}

RPCRDMA_EXPORT char *taddr2uaddr(const struct netconfig *nc,
				 const struct netbuf *nb)
{
	struct __rpc_sockinfo si;
	int af = netid_af(nc);

	if (af)
		return nb_is(nb, af) ? __rpc_taddr2uaddr_af(af, nb) : NULL;
	if (!nc || !__rpc_nconf2sockinfo(nc, &si))
		return NULL;
	return __rpc_taddr2uaddr_af(si.si_af, nb);
}

RPCRDMA_EXPORT struct netbuf *uaddr2taddr(const struct netconfig *nc,
					  const char *uaddr)
{
	struct __rpc_sockinfo si;
	int af = netid_af(nc);

	if (af)
		return uaddr ? __rpc_uaddr2taddr_af(af, uaddr) : NULL;
	if (!nc || !__rpc_nconf2sockinfo(nc, &si))
		return NULL;
	return __rpc_uaddr2taddr_af(si.si_af, uaddr);
}
