/*
 * A listener's shared receive queues: per device and size class one SRQ
 * whose registered buffers every connection of that class receives its
 * Calls into, grown in chunks up to recv_buffers, and the credits each
 * connection is granted from it by need (grants.h: the invariant).
 */
#ifndef RPCRDMA_SVC_SRQ_H
#define RPCRDMA_SVC_SRQ_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <rpcrdma/rpcrdma.h>
#include "grants.h"
#include "verbs.h"

/* Buffers added to a queue at a time: its first, and each growth. */
#define SVC_RDMA_SRQ_CHUNK 32

struct svc_rdma_srq_chunk;

/* One shared receive queue: one device, one buffer size. */
struct svc_rdma_srq {
	struct ibv_srq *sq_ibv;
	struct ibv_pd *sq_pd;
	uint32_t sq_size;		/* bytes of each buffer: its class */
	uint32_t sq_max;		/* buffers it may grow to */
	/* A leaf: the pool and the grant of every connection on it. */
	pthread_mutex_t sq_lock;
	struct rpcrdma_grant_pool sq_pool;
	uint64_t sq_pinned;		/* bytes registered (sq_lock) */
	/* Growth, one at a time (before sq_lock, never under it). */
	pthread_mutex_t sq_grow_lock;
	struct svc_rdma_srq_chunk *sq_chunks;
	int sq_grow_failed;		/* registering more failed: stop trying */
	int sq_armed;			/* its limit event armed (atomic: armed
					 * twice at worst, which is harmless) */
	/* Buffers given back, not yet posted (sq_lock; sq_pool.gp_back of
	 * them): posted together once there are sq_batch, or when room
	 * is wanted. */
	struct rpcrdma_rep *sq_back[RPCRDMA_GRANT_BATCH_MAX];
	uint32_t sq_batch;		/* rpcrdma_grant_batch(gp_buffers) */
	uint64_t sq_refills;		/* posts of given-back buffers */
};

/* The queues of one device (struct svc_rdma_dev holds it). */
struct svc_rdma_srqs {
	int ss_state;			/* 0 not asked; 1 has SRQs; -1 has none */
	uint32_t ss_max_wr;		/* the device's max_srq_wr */
	unsigned int ss_nclasses;
	uint32_t ss_sizes[RPCRDMA_SRQ_CLASSES];
	struct svc_rdma_srq *ss_q[RPCRDMA_SRQ_CLASSES];
};

/*
 * A new connection on the device, whose client sends at most *size bytes:
 * its queue, with its floor's share taken.  *size becomes the class's if
 * smaller (a full class).  0; -EOPNOTSUPP: the device has no SRQs (or
 * recv_buffers is 0), use rings; -ENOSPC: no class has room (refuse).
 * Called under the device's dv_lock (it creates queues).
 */
int svc_rdma_srq_attach(struct svc_rdma_srqs *ss, struct ibv_context *verbs,
			struct ibv_pd *pd, uint32_t recv_buffers,
			uint32_t inline_recv, uint32_t max_requests,
			uint32_t *size, struct svc_rdma_srq **qp,
			struct rpcrdma_grant *g);
/*
 * Its QP consumes no more receives: its share goes back, and the queue
 * with its buffers when it was the last connection on it (so a listener
 * at rest holds no receive memory).  Under the listener's ln_lock.
 */
void svc_rdma_srq_detach(struct svc_rdma_srqs *ss, struct svc_rdma_srq *q,
			 struct rpcrdma_grant *g);
/* A Call arrived in one of q's buffers: 0, or -EPROTO (past its grant). */
int svc_rdma_srq_call(struct svc_rdma_srq *q, struct rpcrdma_grant *g);
/* One of g's Calls dropped without an answer, its buffer back (grants.h). */
void svc_rdma_srq_dropped(struct svc_rdma_srq *q, struct rpcrdma_grant *g);
/* A receive of q completed in error (flushed): its buffer goes back. */
void svc_rdma_srq_lost(struct svc_rdma_srq *q, struct rpcrdma_rep *rep);
/*
 * A Call's buffer goes back: posted with the others given back once
 * there are a batch of them, or at once while the queue is short of room
 * (grants.h, rpcrdma_grant_refill_now).  0, or the negative errno of the
 * post this call made.
 */
int svc_rdma_srq_repost(struct svc_rdma_srq *q, struct rpcrdma_rep *rep);
/* The grant the Reply (error: the RDMA_ERROR) to one of g's Calls carries. */
uint32_t svc_rdma_srq_grant(struct svc_rdma_srq *q, struct rpcrdma_grant *g,
			    uint32_t requested, bool error, int *raised);
/* The device's queues go, after its last connection. */
void svc_rdma_srqs_fini(struct svc_rdma_srqs *ss);
/*
 * Read the device's asynchronous events, without blocking, and arm again
 * the queues whose limit they report (or whose arming failed before):
 * how many limit events were read.  Under the listener's ln_lock.
 */
unsigned int svc_rdma_srqs_events(struct svc_rdma_srqs *ss,
				  struct ibv_context *verbs);
/* Add the device's queues into a listener's counters. */
void svc_rdma_srqs_stats(struct svc_rdma_srqs *ss, struct rpcrdma_stats *st);

#endif /* RPCRDMA_SVC_SRQ_H */
