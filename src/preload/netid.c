/*
 * The netids "rdma" and "rdma6" (RFC 8166), absent from /etc/netconfig:
 * getnetconfigent() answers them, and the port the preload passes to
 * librpcrdma's creation calls.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <rpc/rpc.h>
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

/* librpcrdma's own (issue 21, rpcbind), when the loaded one has it. */
typedef struct netconfig *(*getnc_fn)(const char *);
static getnc_fn lib_getnc(void)
{
	static getnc_fn fp;
	static int tried;

	if (!__atomic_load_n(&tried, __ATOMIC_ACQUIRE)) {
		*(void **)&fp = dlsym(RTLD_DEFAULT, "rpcrdma_getnetconfigent");
		__atomic_store_n(&tried, 1, __ATOMIC_RELEASE);
	}
	return fp;
}

/* Laid out as libtirpc's: every string in the block nc_netid points at. */
static struct netconfig *local_nconf(const char *netid)
{
	int fam = preload_rdma_netid(netid);
	const char *pf = fam == 6 ? "inet6" : "inet";
	size_t ln = strlen(netid) + 1, lp = strlen(pf) + 1;
	struct netconfig *nc = calloc(1, sizeof(*nc));
	char *s = malloc(ln + lp + 5 + 2);

	if (!nc || !s) {
		free(nc);
		free(s);
		return NULL;
	}
	memcpy(s, netid, ln);
	memcpy(s + ln, pf, lp);
	memcpy(s + ln + lp, "rdma", 5);
	memcpy(s + ln + lp + 5, "-", 2);
	nc->nc_netid = s;
	nc->nc_semantics = NC_TPI_COTS_ORD;
	nc->nc_flag = NC_VISIBLE;
	nc->nc_protofmly = s + ln;
	nc->nc_proto = s + ln + lp;
	nc->nc_device = s + ln + lp + 5;
	return nc;
}

struct netconfig *preload_rdma_nconf(const char *netid)
{
	getnc_fn fn = lib_getnc();

	if (!preload_rdma_netid(netid))
		return NULL;
	return fn ? fn(netid) : local_nconf(netid);
}

/*
 * NULL lets a librpcrdma that knows rpcbind and the port key choose; an
 * older one needs the port spelled out: RPCRDMA_PORT, else 20049.
 */
const char *preload_port(void)
{
	const char *p;

	if (lib_getnc())
		return NULL;
	p = getenv("RPCRDMA_PORT");
	return p && *p ? p : "20049";
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
