/*
 * Posting a decided Reply (svc_reply_post.c), for the Reply path above it
 * (svc_reply.c): the chain of RDMA Writes a Send carries in front of it,
 * and the one call that posts the Send or parks it.
 */
#ifndef RPCRDMA_SVC_REPLY_POST_H
#define RPCRDMA_SVC_REPLY_POST_H

#include "svc_int.h"

/*
 * One post per Reply: its Write-chunk or Reply-chunk RDMA Writes go in
 * front of its Send, in one ibv_post_send (RC ordering places the data
 * before the Send arrives), instead of being waited for first.  The
 * chunk buffer they read and their send-queue room are the chain's
 * until the Send completes (chain_release, queued on it); a chain that
 * fails, or is flushed, keeps them until the connection's QP is gone.
 * A chain holds every Write a Reply can have; those past what one post
 * in front of a Send holds go ahead of it (rpcrdma_rw_ahead), in chains
 * nobody waits for, the Reply parked until they are all posted.
 */
#define SVC_RDMA_REPLY_WRITES_MAX \
	(RPCRDMA_MAX_WRITE_CHUNKS * RPCRDMA_MAX_CHUNK_SEGS)

struct svc_rdma_chain {
	struct svc_rdma_conn *rc_conn;
	struct svc_rdma_buf rc_buf;	/* what the Writes read */
	struct svc_rdma_buf rc_body;	/* a svc_sendreply() Reply's copy (reply_own) */
	struct rpcrdma_sge rc_body_sge;
	uint32_t rc_room;		/* send-queue room reserved for them */
	unsigned int rc_max;		/* Writes the chain may hold here */
	unsigned int rc_n;
	uint64_t rc_bytes;
	struct rpcrdma_sge rc_local[SVC_RDMA_REPLY_WRITES_MAX];
	struct rpcrdma_remote rc_remote[SVC_RDMA_REPLY_WRITES_MAX];
};

/* A chain (NULL: no memory); with no send-queue room for Writes, one that
 * holds none. */
struct svc_rdma_chain *svc_rdma_chain_new(struct svc_rdma_conn *c);
/* The Writes of b from off into written, onto the chain (which then owns
 * b: *chained): 0, or -ENOMEM (no chain: nothing was posted). */
int svc_rdma_chain_writes(struct svc_rdma_chain *rc,
			  const struct svc_rdma_buf *b, uint64_t off,
			  const struct rpcrdma_chunk *written, int *chained);
/* Nothing was posted: the chain's buffer goes back, and the chain. */
void svc_rdma_chain_drop(struct svc_rdma_conn *c, struct svc_rdma_chain *rc);
/*
 * Post the Reply's Send, its chain's Writes in front (ch NULL or empty:
 * none), With Invalidate when pre says so, now or parked (no context or
 * room free).  The chain is released there, queued on the Send, or parked
 * with it; svc_sendreply()'s results are copied.  0 posted, 1 parked, or
 * the connection's failure.
 */
int svc_rdma_reply_post(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			const void *hdr, size_t hdrlen,
			const struct rpcrdma_xdr_buf *body,
			struct svc_rdma_chain *ch, struct rpcrdma_send_pre *pre);

#endif /* RPCRDMA_SVC_REPLY_POST_H */
