/*
 * The netids RFC 8166 names, "rdma" and "rdma6", as struct netconfig:
 * /etc/netconfig lacks them, so rpcrdma_getnetconfigent() builds one in
 * the layout libtirpc's getnetconfigent() returns, for freenetconfigent().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rpcrdma/rpcrdma.h>
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
