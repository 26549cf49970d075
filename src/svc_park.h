/*
 * Replies a connection could not post at once, because its send contexts
 * or its send-queue room for RDMA Writes were all held by Sends not yet
 * completed: each keeps what its Send needs, owned, and whoever reaps the
 * connection next posts them, in order.  So no serving thread waits for
 * one peer to take its Sends (svc_reply_post.c parks, svc_conn.c drains).
 */
#ifndef RPCRDMA_SVC_PARK_H
#define RPCRDMA_SVC_PARK_H

#include <pthread.h>
#include "rpc_rdma.h"
#include "transport.h"

/* Writes that go ahead of a Reply's Send, in chains, before it (its
 * chain's, svc_reply_post.h): ah_done of ah_n posted so far. */
struct svc_rdma_ahead {
	const struct rpcrdma_sge *ah_local;
	const struct rpcrdma_remote *ah_remote;
	unsigned int ah_n;
	unsigned int ah_done;
};

struct svc_rdma_parked {
	struct svc_rdma_parked *pk_next;
	struct rpcrdma_xprt *pk_x;
	uint8_t pk_hdr[RPCRDMA_HDRLEN_MAX];
	uint32_t pk_hdrlen;
	uint32_t pk_room;		/* Write room it holds once posted */
	bool pk_reply;			/* a Reply (rs_replies once posted), not
					 * an RDMA_ERROR */
	struct rpcrdma_xdr_buf pk_body;	/* over pk_copy; empty with sp_body */
	struct rpcrdma_send_pre pk_pre;	/* its Writes, invalidation, sp_body */
	struct svc_rdma_ahead pk_ahead;	/* Writes before those, posted first */
	/* What its Writes and sp_body read: called once, with 0 (its Send
	 * completed), a negative errno (never posted: give back), or
	 * -EINPROGRESS (posted perhaps in part: hold until the QP goes). */
	struct rpcrdma_release pk_owner;
	char pk_copy[];			/* a body that fits a send buffer */
};

struct svc_rdma_park {
	pthread_mutex_t pa_lock;	/* the list; one drainer at a time */
	struct svc_rdma_parked *pa_head, *pa_tail;
	uint32_t pa_n;			/* parked now (atomic reads) */
	uint32_t pa_max;		/* more: the peer is past its grant */
	int pa_again;			/* a drain was asked while one ran */
};

void svc_rdma_park_init(struct svc_rdma_park *pa, uint32_t max);
/* Whether Replies wait here: a new one queues behind them. */
bool svc_rdma_park_busy(struct svc_rdma_park *pa);
/*
 * A parked Reply: hdr, a body of len bytes (copied here when body is
 * given; NULL: pre->sp_body carries it), the Writes and invalidation of
 * pre, after the Writes of ahead (NULL: none; owned by owner too), each
 * chain of them posted as room allows, owner released as pk_owner says
 * (-EINPROGRESS once any went); reply: a Reply, counted in
 * rs_replies when it is posted.  0, -ENOMEM (nothing kept: the
 * caller gives back what it holds), or -ENOBUFS: pa_max are parked
 * already, which a peer within its grant cannot make happen (nothing kept).
 */
int svc_rdma_park_reply(struct svc_rdma_park *pa, struct rpcrdma_xprt *x,
			const void *hdr, size_t hdrlen,
			const struct rpcrdma_xdr_buf *body,
			const struct rpcrdma_send_pre *pre,
			const struct svc_rdma_ahead *ahead,
			const struct rpcrdma_release *owner, bool reply);
/* Post what can be posted now, in order, without waiting; never blocks. */
void svc_rdma_park_drain(struct svc_rdma_park *pa);
/* The connection is gone: every parked Reply given back, unposted. */
void svc_rdma_park_fini(struct svc_rdma_park *pa);

#endif /* RPCRDMA_SVC_PARK_H */
