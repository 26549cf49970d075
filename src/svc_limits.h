/*
 * What the server tells a service about a connection (the caller's and
 * the local address) and the small decisions of its bounds: whether a
 * listener takes one more connection, whether a message is an RPC Call of
 * another version.  Pure (svc_limits.c), unit-tested natively.
 */
#ifndef RPCRDMA_SVC_LIMITS_H
#define RPCRDMA_SVC_LIMITS_H

#include <stdint.h>
#include <sys/socket.h>
#include <rdma/rdma_cma.h>
#include <rpc/rpc.h>

/* An address a netbuf of an SVCXPRT points at: lives with the SVCXPRT. */
struct svc_rdma_addr {
	struct sockaddr_storage sa_ss;
};

void svc_rdma_set_netbuf(struct netbuf *nb, struct svc_rdma_addr *a,
			 const struct sockaddr *sa);
void svc_rdma_set_conn_addrs(SVCXPRT *xprt, struct svc_rdma_addr *local,
			     struct svc_rdma_addr *remote,
			     struct rdma_cm_id *id);
/* A listener holding nconns may accept one more (max 0: no limit). */
int svc_rdma_may_accept(uint32_t nconns, uint32_t max);
/* The message is an RPC Call of an rpcvers other than 2: its xid. */
int svc_rdma_other_rpcvers(const void *msg, uint32_t len, uint32_t *xidp);
/* No Call since last_ns for timeout_ms by now_ns (timeout 0: never idle). */
int svc_rdma_is_idle(uint64_t last_ns, uint64_t now_ns, uint32_t timeout_ms);

#endif /* RPCRDMA_SVC_LIMITS_H */
