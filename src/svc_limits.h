/*
 * What the server tells a service about a connection (the caller's and
 * the local address) and the bounds a listener keeps on what peers may
 * hold (svc_limits.c).
 */
#ifndef RPCRDMA_SVC_LIMITS_H
#define RPCRDMA_SVC_LIMITS_H

#include <sys/socket.h>
#include <rdma/rdma_cma.h>
#include <rpc/rpc.h>

struct svc_rdma_listener;

/* An address a netbuf of an SVCXPRT points at: lives with the SVCXPRT. */
struct svc_rdma_addr {
	struct sockaddr_storage sa_ss;
};

void svc_rdma_set_netbuf(struct netbuf *nb, struct svc_rdma_addr *a,
			 const struct sockaddr *sa);
void svc_rdma_set_conn_addrs(SVCXPRT *xprt, struct svc_rdma_addr *local,
			     struct svc_rdma_addr *remote,
			     struct rdma_cm_id *id);
/* The listener may accept one more connection (under sl_lock). */
int svc_rdma_may_accept(const struct svc_rdma_listener *l);

#endif /* RPCRDMA_SVC_LIMITS_H */
