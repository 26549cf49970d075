/*
 * The server's use of the duplicate request cache (drc.h): one cache per
 * listener, consulted as a Call is received, given each Reply as it is
 * encoded (svc_drc.c).  Without drc_size none of this does anything.
 */
#ifndef RPCRDMA_SVC_DRC_H
#define RPCRDMA_SVC_DRC_H

#include <rpc/rpc.h>
#include "drc.h"
#include "xdr_buf.h"

struct svc_rdma_listener;
struct svc_rdma_conn;
struct svc_rdma_call;

int svc_rdma_drc_start(struct svc_rdma_listener *l);
void svc_rdma_drc_stop(struct svc_rdma_listener *l);
/*
 * A Call was decoded into msg (m, len: the RPC message, ct->ct_args past
 * its header).  0: serve it.  1: it was a retransmission, answered from
 * the cache or dropped (its first copy still runs); its receive is back.
 */
int svc_rdma_drc_check(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
		       const struct rpc_msg *msg, const char *m, uint32_t len);
/* ct's Reply, encoded whole in xb: keep a copy for its retransmissions. */
void svc_rdma_drc_keep(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
		       const struct rpcrdma_xdr_buf *xb);
/* ct is done with, answered or not: a Call never answered is forgotten. */
void svc_rdma_drc_release(struct svc_rdma_conn *c, struct svc_rdma_call *ct);
/* A kept Reply as an XDR buffer over buf (threshold 0: all copied). */
int svc_rdma_drc_replay(const struct rpcrdma_drc_reply *r,
			struct rpcrdma_xdr_buf *xb, char *buf, uint32_t len,
			uint32_t threshold);
/* svc_reply.c: send a kept Reply for ct. */
void svc_rdma_drc_resend(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			 const struct rpcrdma_drc_reply *kept);

#endif /* RPCRDMA_SVC_DRC_H */
