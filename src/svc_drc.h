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
/* What to do with a Call the cache was asked about. */
enum svc_rdma_drc_do {
	SVC_RDMA_DRC_SERVE,	/* new (or not cached): run the procedure */
	SVC_RDMA_DRC_RESEND,	/* executed before: send *kept again, free it */
	SVC_RDMA_DRC_DROP,	/* its first copy still runs: drop this one */
};

/*
 * A Call was decoded into msg (m, len: the RPC message, ct->ct_args past
 * its header): is it a retransmission?  The caller answers it from the
 * cache or drops it, then releases it (svc_call.c).
 */
enum svc_rdma_drc_do svc_rdma_drc_check(struct svc_rdma_conn *c,
				       struct svc_rdma_call *ct,
				       const struct rpc_msg *msg, const char *m,
				       uint32_t len, struct rpcrdma_drc_reply *kept);
/* ct's Reply, encoded whole in xb: keep a copy for its retransmissions. */
void svc_rdma_drc_keep(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
		       const struct rpcrdma_xdr_buf *xb);
/* ct is done with, answered or not: a Call never answered is forgotten. */
void svc_rdma_drc_release(struct svc_rdma_conn *c, struct svc_rdma_call *ct);
/* A kept Reply as an XDR buffer over buf (threshold 0: all copied). */
int svc_rdma_drc_replay(const struct rpcrdma_drc_reply *r,
			struct rpcrdma_xdr_buf *xb, char *buf, uint32_t len,
			uint32_t threshold);

#endif /* RPCRDMA_SVC_DRC_H */
