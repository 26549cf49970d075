/*
 * What the server does with one received message, decided apart from
 * doing it: decode the transport header, refuse what RFC 8166 says to
 * refuse, and say where the RPC Call is.  Pure: no verbs, no allocation.
 */
#ifndef RPCRDMA_SVC_RECV_H
#define RPCRDMA_SVC_RECV_H

#include <stdbool.h>
#include <stdint.h>
#include "rchunks.h"
#include "rpc_rdma.h"

enum svc_rdma_recv_verdict {
	SVC_RDMA_RECV_INLINE,		/* dispatch the Call at rv_off, rv_len */
	SVC_RDMA_RECV_PULL,		/* rebuild it by rv_map first */
	SVC_RDMA_RECV_ERR_VERS,		/* answer RDMA_ERROR / ERR_VERS */
	SVC_RDMA_RECV_ERR_CHUNK,	/* answer RDMA_ERROR / ERR_CHUNK */
	SVC_RDMA_RECV_DROP,		/* cannot be attributed: count, drop */
};

struct svc_rdma_recv {
	enum svc_rdma_recv_verdict rv_verdict;
	const char *rv_why;		/* refusals: why, for a debug line */
	bool rv_over_limit;		/* ERR_CHUNK for a limit of lim (counted) */
	uint32_t rv_off;		/* the inline RPC message: after the */
	uint32_t rv_len;		/* header, to the end of the receive */
	struct rpcrdma_call_map rv_map;	/* PULL: the Call's reassembly */
};

/*
 * Decide for the len bytes received at buf, decoding the header into h,
 * under the connection's chunk limits (rchunks.h).
 */
void svc_rdma_recv_decide(const void *buf, uint32_t len,
			  const struct rpcrdma_chunk_limits *lim,
			  struct rpcrdma_hdr *h, struct svc_rdma_recv *rv);

#endif /* RPCRDMA_SVC_RECV_H */
