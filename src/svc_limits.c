/*
 * A server's view of who it serves and how many: each connection SVCXPRT
 * carries the peer's address (svc_getrpccaller) and the local one
 * (xp_ltaddr), and a listener refuses connections past max_connections.
 */
#include "config.h"
#include <string.h>
#include <netinet/in.h>
#include <infiniband/ib.h>
#include "svc_threads.h"

static socklen_t sa_len(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	default:
		return 0;
	}
}

/*
 * Point nb at a copy of sa kept in a: maxlen is the storage, len the
 * address (0 for a family we do not know, so nobody reads garbage).
 */
void svc_rdma_set_netbuf(struct netbuf *nb, struct svc_rdma_addr *a,
			 const struct sockaddr *sa)
{
	socklen_t len = sa ? sa_len(sa) : 0;

	memset(a, 0, sizeof(*a));
	if (len > sizeof(a->sa_ss))
		len = 0;
	if (len)
		memcpy(&a->sa_ss, sa, len);
	nb->buf = &a->sa_ss;
	nb->maxlen = sizeof(a->sa_ss);
	nb->len = len;
}

/*
 * A connection's addresses, as libtirpc's TCP transport sets them: the
 * peer's in xp_rtaddr (and the legacy xp_raddr when it fits), the local
 * one in xp_ltaddr.  Copied: the cm_id's own go with it.
 */
void svc_rdma_set_conn_addrs(SVCXPRT *xprt, struct svc_rdma_addr *local,
			     struct svc_rdma_addr *remote, struct rdma_cm_id *id)
{
	svc_rdma_set_netbuf(&xprt->xp_ltaddr, local, rdma_get_local_addr(id));
	svc_rdma_set_netbuf(&xprt->xp_rtaddr, remote, rdma_get_peer_addr(id));
	if (xprt->xp_rtaddr.len &&
	    xprt->xp_rtaddr.len <= sizeof(xprt->xp_raddr)) {
		memcpy(&xprt->xp_raddr, &remote->sa_ss, xprt->xp_rtaddr.len);
		xprt->xp_addrlen = (int)xprt->xp_rtaddr.len;
	}
}

/* Called under sl_lock; 0 max_connections: no limit. */
int svc_rdma_may_accept(const struct svc_rdma_listener *l)
{
	const struct svc_rdma_conn *c;
	uint32_t n = 0, max = l->sl_opts.ro_max_connections;

	if (!max)
		return 1;
	for (c = l->sl_conns; c; c = c->sc_next)
		if (++n >= max)
			return 0;
	return 1;
}
