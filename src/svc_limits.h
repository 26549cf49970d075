/*
 * What the server tells a service about a connection (the caller's and
 * the local address) and the small decisions of its bounds: whether a
 * listener takes one more connection, whether a connection may hold more
 * memory, whether a message is an RPC Call of another version.  Pure
 * (svc_limits.c), unit-tested natively.
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
/* A listener holding nconns may accept one more (max 0: no limit). */
int svc_rdma_may_accept(uint32_t nconns, uint32_t max);
/*
 * What one connection holds against max_conn_memory: its rings, fixed at
 * accept, and the chunk buffers its Calls hold now, each counted in whole
 * pool units (what the pool hands out).  The caller locks.
 */
struct svc_rdma_mem {
	uint64_t sm_limit;		/* max_conn_memory; 0: no limit */
	uint64_t sm_rings;		/* receive and send buffers, Reply scratch */
	uint64_t sm_chunks;		/* chunk buffers held now */
};

/* The bytes len of chunk memory counts for: whole pool units, at least one. */
uint64_t svc_rdma_mem_cost(uint64_t len);
/* A connection's rings: nrecv receive buffers, nsend send buffers, scratch. */
uint64_t svc_rdma_ring_bytes(uint32_t nrecv, uint32_t recv_size,
			     uint32_t nsend, uint32_t send_size,
			     uint64_t scratch);
/* The rings alone are within the limit (or there is none). */
int svc_rdma_mem_rings_fit(const struct svc_rdma_mem *m);
/* Take len bytes of chunk memory: 0, or -ENOBUFS (nothing taken). */
int svc_rdma_mem_take(struct svc_rdma_mem *m, uint64_t len);
/* Give back len bytes taken; trim: keep only keep of the len taken. */
void svc_rdma_mem_give(struct svc_rdma_mem *m, uint64_t len);
void svc_rdma_mem_trim(struct svc_rdma_mem *m, uint64_t len, uint64_t keep);
/* The most of want that svc_rdma_mem_take would grant now. */
uint64_t svc_rdma_mem_room(const struct svc_rdma_mem *m, uint64_t want);

/* The message is an RPC Call of an rpcvers other than 2: its xid. */
int svc_rdma_other_rpcvers(const void *msg, uint32_t len, uint32_t *xidp);
/* No Call since last_ns for timeout_ms by now_ns (timeout 0: never idle). */
int svc_rdma_is_idle(uint64_t last_ns, uint64_t now_ns, uint32_t timeout_ms);

/*
 * The RDMA Read depths an accepted connection uses, from the peer's
 * connect request as the CM reports it on the passive side (from our
 * side: ev_init is how many Reads the peer serves at once, its responder
 * resources; ev_resp how many it issues, its initiator depth) and the
 * device's limits (0: unknown).  *ord: the Reads we may have outstanding
 * and accept with as initiator_depth; *ird: our responder_resources.
 */
void svc_rdma_read_depths(uint32_t ev_init, uint32_t ev_resp,
			  uint32_t dev_init_max, uint32_t dev_resp_max,
			  uint32_t *ord, uint32_t *ird);

#endif /* RPCRDMA_SVC_LIMITS_H */
