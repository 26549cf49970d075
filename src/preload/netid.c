/*
 * The netids "rdma" and "rdma6" (RFC 8166), absent from /etc/netconfig:
 * getnetconfigent() answers them with librpcrdma's netconfig, and
 * libtirpc's address translators reach librpcrdma's, which know them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "preload/preload.h"

int preload_rdma_netid(const char *netid)
{
	if (!netid)
		return 0;
	if (!strcmp(netid, "rdma"))
		return 4;
	if (!strcmp(netid, "rdma6"))
		return 6;
	return 0;
}

struct netconfig *preload_rdma_nconf(const char *netid)
{
	return preload_rdma_netid(netid) ? rpcrdma_getnetconfigent(netid) : NULL;
}

/* NULL: librpcrdma's own choice, the "port" key then (client) rpcbind. */
const char *preload_port(void)
{
	return NULL;
}

PRELOAD_EXPORT struct netconfig *getnetconfigent(const char *netid)
{
	static struct netconfig *(*next)(const char *);

	if (preload_rdma_netid(netid) && preload_active()) {
		preload_log(PRELOAD_LOG_DEBUG, "getnetconfigent(%s): answered", netid);
		return preload_rdma_nconf(netid);
	}
	PRELOAD_NEXT(next, "getnetconfigent", PRELOAD_TIRPC);
	return next ? next(netid) : NULL;
}

/*
 * librpcrdma's taddr2uaddr()/uaddr2taddr() (at libtirpc's version) know
 * rdma and rdma6, so that rpcb_set() can register an RDMA listener; they
 * take effect only when librpcrdma precedes libtirpc in the lookup order,
 * and under the preload libtirpc comes first (the program's own library).
 * The preload comes before both: it hands the calls to librpcrdma's.
 */
static void *translator(const char *name)
{
	void *h, *fp = NULL;

	if (preload_active()) {
		h = dlopen("librpcrdma.so.0", RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			fp = dlvsym(h, name, PRELOAD_TIRPC);
			dlclose(h);
		}
	}
	return fp ? fp : preload_next(name, PRELOAD_TIRPC);
}

PRELOAD_EXPORT char *taddr2uaddr(const struct netconfig *nc,
				 const struct netbuf *nb)
{
	static char *(*fp)(const struct netconfig *, const struct netbuf *);

	if (!fp)
		*(void **)&fp = translator("taddr2uaddr");
	return fp ? fp(nc, nb) : NULL;
}

PRELOAD_EXPORT struct netbuf *uaddr2taddr(const struct netconfig *nc,
					  const char *uaddr)
{
	static struct netbuf *(*fp)(const struct netconfig *, const char *);

	if (!fp)
		*(void **)&fp = translator("uaddr2taddr");
	return fp ? fp(nc, uaddr) : NULL;
}
