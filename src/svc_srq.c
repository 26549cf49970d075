/*
 * Shared receive queues (svc_srq.h): per device and size class one SRQ,
 * its buffers registered in chunks of SVC_RDMA_SRQ_CHUNK as grants need
 * them, up to recv_buffers, and given back in batches.  Invariant
 * (grants.h): the Calls every client of a queue may still send never
 * exceed its posted receives; the bookkeeping is grants.c's, done here
 * under the queue's sq_lock.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "svc_srq.h"
#include "transport.h"

/* One registered run of buffers of a queue. */
struct svc_rdma_srq_chunk {
	struct svc_rdma_srq_chunk *ck_next;
	uint8_t *ck_mem;
	struct ibv_mr *ck_mr;
	struct rpcrdma_rep ck_reps[SVC_RDMA_SRQ_CHUNK];
};

/*
 * Post n of the queue's buffers; what went is counted posted.  A buffer
 * that could not be posted is lost to the queue (its share never counted):
 * the device refused, and nothing better can be done with it.
 */
static int srq_post(struct svc_rdma_srq *q, struct rpcrdma_rep *const *reps,
		    unsigned int n)
{
	unsigned int posted = 0;
	int rc = rpcrdma_srq_post(q->sq_ibv, reps, n, q->sq_size, &posted);

	pthread_mutex_lock(&q->sq_lock);
	rpcrdma_grant_posted(&q->sq_pool, posted);
	if (rc)
		q->sq_pool.gp_buffers -= n - posted;
	/* The invariant, checked where a Call's buffer comes back: counted
	 * if ever broken (rs_grant_overcommits; the tests assert 0). */
	rpcrdma_grant_check(&q->sq_pool);
	pthread_mutex_unlock(&q->sq_lock);
	return rc;
}

/*
 * Under sq_lock: the buffers given back, taken to be posted if it is
 * time (all of them when room is wanted).  Why batches: each post is a
 * pass under sq_lock, which every connection's Calls and Replies take,
 * and a doorbell on the device.  What it costs: nothing a client sees.
 * A batch is at most a sixteenth of the queue and never granted until
 * posted (the invariant holds as before); a Reply whose grant they would
 * raise, and a connection that finds no room, post them first.
 */
static unsigned int srq_take_back(struct svc_rdma_srq *q,
				  struct rpcrdma_rep **reps, bool room_wanted)
{
	unsigned int n = q->sq_pool.gp_back;

	if (!rpcrdma_grant_refill_now(n, q->sq_batch, room_wanted))
		return 0;
	memcpy(reps, q->sq_back, n * sizeof(*reps));
	q->sq_pool.gp_back = 0;
	q->sq_refills++;
	return n;
}

/*
 * Why a limit event at all, when the grants already keep every Call a
 * receive: it is the device's own word that nearly every buffer the
 * grants can hand out holds a Call no thread has served yet (the server
 * is behind, or a few connections hold the whole queue), counted for the
 * operator (rs_srq_limit_events).  The limit: the reserve (which granted
 * Calls never reach) plus an eighth of the rest.  The device refuses a
 * limit above what is posted now; then it is armed at the next look
 * (svc_rdma_srqs_events) or growth.
 */
static void srq_arm(struct svc_rdma_srq *q)
{
	uint32_t limit;
	int rc;

	pthread_mutex_lock(&q->sq_lock);
	limit = rpcrdma_srq_limit(q->sq_pool.gp_buffers);
	pthread_mutex_unlock(&q->sq_lock);
	rc = rpcrdma_srq_arm(q->sq_ibv, limit);
	__atomic_store_n(&q->sq_armed, !rc, __ATOMIC_RELAXED);
	if (rc)
		RPCRDMA_DBG("srq %u: limit %u not armed: %s", q->sq_size,
			    limit, strerror(-rc));
}

/*
 * One more chunk of buffers, registered and posted: 0, or why not
 * (-ENOSPC: the queue is at its size).  Growth never runs under sq_lock:
 * registration is a system call, and Replies take sq_lock meanwhile.
 */
static int srq_grow(struct svc_rdma_srq *q)
{
	struct rpcrdma_rep *reps[SVC_RDMA_SRQ_CHUNK];
	struct svc_rdma_srq_chunk *ck;
	size_t len = (size_t)SVC_RDMA_SRQ_CHUNK * q->sq_size;
	uint32_t have;
	unsigned int i;
	int rc;

	pthread_mutex_lock(&q->sq_grow_lock);
	pthread_mutex_lock(&q->sq_lock);
	have = q->sq_pool.gp_buffers;
	pthread_mutex_unlock(&q->sq_lock);
	rc = -ENOSPC;
	if (q->sq_grow_failed || have + SVC_RDMA_SRQ_CHUNK > q->sq_max)
		goto out_unlock;
	rc = -ENOMEM;
	ck = calloc(1, sizeof(*ck));
	if (!ck)
		goto out_unlock;
	if (posix_memalign((void **)&ck->ck_mem, 4096, len))
		goto out_free_chunk;
	ck->ck_mr = rpcrdma_pd_reg(q->sq_pd, ck->ck_mem, len);
	if (!ck->ck_mr) {
		rc = errno ? -errno : -ENOMEM;
		q->sq_grow_failed = 1;
		RPCRDMA_DBG("srq %u: registering %zu bytes more: %s", q->sq_size,
			    len, strerror(-rc));
		goto out_free_mem;
	}
	for (i = 0; i < SVC_RDMA_SRQ_CHUNK; i++) {
		struct rpcrdma_rep *rep = &ck->ck_reps[i];

		rep->rr_cqe.cq_kind = RPCRDMA_CQE_RECV;
		rep->rr_buf = ck->ck_mem + (size_t)i * q->sq_size;
		rep->rr_index = have + i;
		rep->rr_lkey = rpcrdma_mr_lkey(ck->ck_mr);
		reps[i] = rep;
	}
	ck->ck_next = q->sq_chunks;
	q->sq_chunks = ck;
	pthread_mutex_lock(&q->sq_lock);
	q->sq_pool.gp_buffers += SVC_RDMA_SRQ_CHUNK;
	q->sq_pool.gp_reserve = rpcrdma_grant_reserve(q->sq_pool.gp_buffers);
	q->sq_batch = rpcrdma_grant_batch(q->sq_pool.gp_buffers);
	q->sq_pinned += len;
	pthread_mutex_unlock(&q->sq_lock);
	rc = srq_post(q, reps, SVC_RDMA_SRQ_CHUNK);
	if (!rc)
		srq_arm(q);
	pthread_mutex_unlock(&q->sq_grow_lock);
	return rc;

out_free_mem:
	free(ck->ck_mem);
out_free_chunk:
	free(ck);
out_unlock:
	pthread_mutex_unlock(&q->sq_grow_lock);
	return rc;
}

static void srq_free(struct svc_rdma_srq *q)
{
	while (q->sq_chunks) {
		struct svc_rdma_srq_chunk *ck = q->sq_chunks;

		q->sq_chunks = ck->ck_next;
		rpcrdma_dereg_mem(ck->ck_mr);
		free(ck->ck_mem);
		free(ck);
	}
	pthread_mutex_destroy(&q->sq_grow_lock);
	pthread_mutex_destroy(&q->sq_lock);
	free(q);
}

/*
 * A queue of the class, made with its first chunk; NULL if the device
 * refuses.  Its size: recv_buffers in whole chunks, within the device's
 * max_srq_wr.
 */
static struct svc_rdma_srq *srq_new(struct svc_rdma_srqs *ss, struct ibv_pd *pd,
				    uint32_t size, uint32_t recv_buffers)
{
	struct svc_rdma_srq *q = calloc(1, sizeof(*q));
	uint32_t max = recv_buffers;

	if (!q)
		return NULL;
	if (ss->ss_max_wr && max > ss->ss_max_wr)
		max = ss->ss_max_wr;
	max -= max % SVC_RDMA_SRQ_CHUNK;
	if (!max)
		max = SVC_RDMA_SRQ_CHUNK;
	q->sq_size = size;
	q->sq_max = max;
	q->sq_pool.gp_max = max;
	q->sq_pd = pd;
	pthread_mutex_init(&q->sq_lock, NULL);
	pthread_mutex_init(&q->sq_grow_lock, NULL);
	q->sq_ibv = rpcrdma_srq_create(pd, max);
	if (!q->sq_ibv) {
		RPCRDMA_DBG("srq %u: ibv_create_srq of %u: %s", size, max,
			    strerror(errno));
		srq_free(q);
		return NULL;
	}
	if (srq_grow(q)) {
		rpcrdma_srq_destroy(q->sq_ibv);
		srq_free(q);
		return NULL;
	}
	return q;
}

/* Whether the class's queue can take one more floor, growing it if not. */
static bool srq_has_room(struct svc_rdma_srq *q)
{
	struct rpcrdma_rep *reps[RPCRDMA_GRANT_BATCH_MAX];
	unsigned int n;
	bool room;

	for (;;) {
		pthread_mutex_lock(&q->sq_lock);
		room = rpcrdma_grant_room(&q->sq_pool) >= 1;
		n = room ? 0 : srq_take_back(q, reps, true);
		pthread_mutex_unlock(&q->sq_lock);
		if (room)
			return true;
		/* Buffers given back first, then more registered. */
		if (n)
			srq_post(q, reps, n);
		else if (srq_grow(q))
			return false;
	}
}

int svc_rdma_srq_attach(struct svc_rdma_srqs *ss, struct ibv_context *verbs,
			struct ibv_pd *pd, uint32_t recv_buffers,
			uint32_t inline_recv, uint32_t max_requests,
			uint32_t *size, struct svc_rdma_srq **qp,
			struct rpcrdma_grant *g)
{
	unsigned int order[RPCRDMA_SRQ_CLASSES], i, n, k;
	struct svc_rdma_srq *q;
	uint32_t max_srq;
	int rc;

	if (!recv_buffers)
		return -EOPNOTSUPP;
	if (!ss->ss_state) {
		rc = rpcrdma_dev_srq_limits(verbs, &max_srq, &ss->ss_max_wr);
		/* RPCRDMA_DEBUG_NO_SRQ: as a device without (max_srq 0), so
		 * that the fallback runs on devices that have them. */
		if (getenv("RPCRDMA_DEBUG_NO_SRQ"))
			max_srq = 0;
		ss->ss_state = !rc && max_srq && ss->ss_max_wr ? 1 : -1;
		ss->ss_nclasses = rpcrdma_srq_classes(inline_recv, ss->ss_sizes,
						      RPCRDMA_SRQ_CLASSES);
	}
	if (ss->ss_state < 0)
		return -EOPNOTSUPP;
	n = rpcrdma_srq_class_order(ss->ss_sizes, ss->ss_nclasses, *size, order);
	for (i = 0; i < n; i++) {
		k = order[i];
		/* A class is made on its first connection. */
		if (!ss->ss_q[k])
			ss->ss_q[k] = srq_new(ss, pd, ss->ss_sizes[k], recv_buffers);
		q = ss->ss_q[k];
		if (!q || !srq_has_room(q))
			continue;
		pthread_mutex_lock(&q->sq_lock);
		rc = rpcrdma_grant_admit(&q->sq_pool, g, 1, max_requests);
		pthread_mutex_unlock(&q->sq_lock);
		if (rc)
			continue;
		if (ss->ss_sizes[k] < *size)
			*size = ss->ss_sizes[k];
		*qp = q;
		return 0;
	}
	/* No class made at all: the device refused its SRQs. */
	for (i = 0; i < ss->ss_nclasses && !ss->ss_q[i]; i++)
		;
	if (i == ss->ss_nclasses) {
		ss->ss_state = -1;
		return -EOPNOTSUPP;
	}
	return -ENOSPC;
}

void svc_rdma_srq_detach(struct svc_rdma_srqs *ss, struct svc_rdma_srq *q,
			 struct rpcrdma_grant *g)
{
	unsigned int i;
	uint32_t conns;

	pthread_mutex_lock(&q->sq_lock);
	rpcrdma_grant_release(&q->sq_pool, g);
	conns = q->sq_pool.gp_conns;
	pthread_mutex_unlock(&q->sq_lock);
	if (conns)
		return;
	/* Its last connection gone: its memory goes back until the next. */
	for (i = 0; i < RPCRDMA_SRQ_CLASSES; i++)
		if (ss->ss_q[i] == q && !rpcrdma_srq_destroy(q->sq_ibv)) {
			ss->ss_q[i] = NULL;
			srq_free(q);
		}
}

int svc_rdma_srq_call(struct svc_rdma_srq *q, struct rpcrdma_grant *g)
{
	int rc;

	pthread_mutex_lock(&q->sq_lock);
	rc = rpcrdma_grant_call(&q->sq_pool, g);
	pthread_mutex_unlock(&q->sq_lock);
	return rc;
}

void svc_rdma_srq_dropped(struct svc_rdma_srq *q, struct rpcrdma_grant *g)
{
	pthread_mutex_lock(&q->sq_lock);
	rpcrdma_grant_dropped(&q->sq_pool, g);
	pthread_mutex_unlock(&q->sq_lock);
}

void svc_rdma_srq_lost(struct svc_rdma_srq *q, struct rpcrdma_rep *rep)
{
	pthread_mutex_lock(&q->sq_lock);
	rpcrdma_grant_lost(&q->sq_pool);
	pthread_mutex_unlock(&q->sq_lock);
	svc_rdma_srq_repost(q, rep);
}

int svc_rdma_srq_repost(struct svc_rdma_srq *q, struct rpcrdma_rep *rep)
{
	struct rpcrdma_rep *reps[RPCRDMA_GRANT_BATCH_MAX];
	unsigned int n;

	pthread_mutex_lock(&q->sq_lock);
	q->sq_back[q->sq_pool.gp_back++] = rep;
	n = srq_take_back(q, reps, false);
	pthread_mutex_unlock(&q->sq_lock);
	return n ? srq_post(q, reps, n) : 0;
}

uint32_t svc_rdma_srq_grant(struct svc_rdma_srq *q, struct rpcrdma_grant *g,
			    uint32_t requested, bool error, int *raised)
{
	struct rpcrdma_rep *reps[RPCRDMA_GRANT_BATCH_MAX];
	bool limited = false;
	unsigned int n = 0;
	uint32_t was, v;

	pthread_mutex_lock(&q->sq_lock);
	/* Room that buffers given back would give: they are posted first. */
	if (!error && rpcrdma_grant_wants_back(&q->sq_pool, g, requested))
		n = srq_take_back(q, reps, true);
	if (n) {
		pthread_mutex_unlock(&q->sq_lock);
		srq_post(q, reps, n);
		pthread_mutex_lock(&q->sq_lock);
	}
	was = g->gr_granted;
	v = error ? rpcrdma_grant_error(&q->sq_pool, g) :
		    rpcrdma_grant_reply(&q->sq_pool, g, requested, &limited);
	pthread_mutex_unlock(&q->sq_lock);
	*raised = v > was ? 1 : v < was ? -1 : 0;
	/* Room held the raise back: more buffers for the next Replies. */
	if (limited)
		srq_grow(q);
	return v;
}

void svc_rdma_srqs_fini(struct svc_rdma_srqs *ss)
{
	unsigned int i;

	for (i = 0; i < RPCRDMA_SRQ_CLASSES; i++) {
		struct svc_rdma_srq *q = ss->ss_q[i];

		if (!q)
			continue;
		if (rpcrdma_srq_destroy(q->sq_ibv)) {
			/* Still in use (a parked connection's QP): kept. */
			RPCRDMA_DBG("srq %u still in use: kept", q->sq_size);
			continue;
		}
		srq_free(q);
		ss->ss_q[i] = NULL;
	}
}

unsigned int svc_rdma_srqs_events(struct svc_rdma_srqs *ss,
				  struct ibv_context *verbs)
{
	unsigned int i, n = 0, read;
	struct ibv_srq *srq;
	const char *kind;

	if (ss->ss_state != 1)
		return 0;
	/* Bounded: another reader's flood costs this caller little. */
	for (read = 0; read < 64 &&
		       rpcrdma_dev_async_next(verbs, &srq, &kind) > 0; read++) {
		for (i = 0; srq && i < RPCRDMA_SRQ_CLASSES; i++)
			if (ss->ss_q[i] && ss->ss_q[i]->sq_ibv == srq) {
				__atomic_store_n(&ss->ss_q[i]->sq_armed, 0,
						 __ATOMIC_RELAXED);
				n++;
			}
		if (!srq)
			RPCRDMA_DBG("device %p: asynchronous event %s",
				    (void *)verbs, kind);
	}
	for (i = 0; i < RPCRDMA_SRQ_CLASSES; i++)
		if (ss->ss_q[i] &&
		    !__atomic_load_n(&ss->ss_q[i]->sq_armed, __ATOMIC_RELAXED))
			srq_arm(ss->ss_q[i]);
	return n;
}

void svc_rdma_srqs_stats(struct svc_rdma_srqs *ss, struct rpcrdma_stats *st)
{
	unsigned int i;

	for (i = 0; i < RPCRDMA_SRQ_CLASSES; i++) {
		struct svc_rdma_srq *q = ss->ss_q[i];

		if (!q)
			continue;
		pthread_mutex_lock(&q->sq_lock);
		st->rs_srq_posted += q->sq_pool.gp_posted;
		st->rs_srq_in_use += q->sq_pool.gp_buffers - q->sq_pool.gp_posted -
				     q->sq_pool.gp_back;
		st->rs_srq_refills += q->sq_refills;
		st->rs_srq_pinned += q->sq_pinned;
		st->rs_srq_committed += q->sq_pool.gp_committed;
		st->rs_grant_overcommits += q->sq_pool.gp_overcommits;
		pthread_mutex_unlock(&q->sq_lock);
	}
}
