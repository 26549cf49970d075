/*
 * Service threads' Calls whose RDMA Reads are under way: held by their
 * connection, not by a thread (svc_int.h, struct svc_rdma_hold), so that
 * no service thread waits for a peer's adapter.  Invariant: a holder is
 * touched by one thread at a time, the one that took it BUSY under
 * cn_lock; and a Call that found every holder taken waits at the head of
 * its connection's queue, which waits with it, until one is freed.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include "svc_int.h"

/*
 * Under cn_lock: the holders, made at the connection's first Call with
 * Read chunks.  Why as many as service threads: as many Calls of one
 * connection could pull at once when each thread waited for its own.
 */
static int holds_make(struct svc_rdma_conn *c)
{
	uint32_t n = c->cn_lst->ln_threads.th_nthreads;
	struct svc_rdma_hold *h;

	if (c->cn_holds)
		return 0;
	h = calloc(n ? n : 1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	/* Looked at without the lock (svc_rdma_hold_ready): count first. */
	c->cn_nholds = n ? n : 1;
	__atomic_store_n(&c->cn_holds, h, __ATOMIC_RELEASE);
	return 0;
}

int svc_rdma_hold_claim(struct svc_rdma_conn *c, struct rpcrdma_rep *rep,
			struct svc_rdma_hold **hp)
{
	struct svc_rdma_hold *h = NULL;
	uint32_t i;
	int rc;

	pthread_mutex_lock(&c->cn_lock);
	rc = holds_make(c);
	for (i = 0; !rc && i < c->cn_nholds; i++)
		if (c->cn_holds[i].ho_state == SVC_RDMA_HOLD_FREE) {
			h = &c->cn_holds[i];
			__atomic_store_n(&h->ho_state, SVC_RDMA_HOLD_BUSY,
					 __ATOMIC_RELAXED);
			break;
		}
	/* Every one taken: rep first again, the queue waits for a free one.
	 * It fits: the Calls of a client within its grant, this one
	 * included, never outnumber the queue's places. */
	if (!rc && !h) {
		rc = -EBUSY;
		if (c->cn_qlen < c->cn_qcap) {
			c->cn_qhead = (c->cn_qhead + c->cn_qcap - 1) % c->cn_qcap;
			c->cn_queue[c->cn_qhead] = rep;
			__atomic_store_n(&c->cn_qlen, c->cn_qlen + 1,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&c->cn_hold_full, 1, __ATOMIC_RELAXED);
		} else {
			rc = -EPROTO;	/* past its grant: the caller drops it */
		}
	}
	pthread_mutex_unlock(&c->cn_lock);
	if (rc == -EBUSY) {
		pthread_mutex_lock(&c->cn_x.rx_lock);
		c->cn_x.rx_stats.rs_reads_queued++;
		pthread_mutex_unlock(&c->cn_x.rx_lock);
	}
	*hp = h;
	return rc;
}

/* PULLING, and its chain completed or failed, its room came back, or the
 * connection died: its next step will tell which. */
static bool hold_is_ready(struct svc_rdma_conn *c, struct svc_rdma_hold *h)
{
	const struct svc_rdma_pull *pu = &h->ho_ct.ct_pull;

	if (__atomic_load_n(&h->ho_state, __ATOMIC_ACQUIRE) !=
	    SVC_RDMA_HOLD_PULLING)
		return false;
	if (__atomic_load_n(&c->cn_x.rx_dead, __ATOMIC_RELAXED))
		return true;
	if (pu->pu_posted)
		return rpcrdma_rw_state(&h->ho_rw) != 0;
	return __atomic_load_n(&c->cn_x.rx_rw_freed, __ATOMIC_ACQUIRE) !=
	       h->ho_room;
}

bool svc_rdma_hold_ready(struct svc_rdma_conn *c)
{
	struct svc_rdma_hold *h = __atomic_load_n(&c->cn_holds,
						  __ATOMIC_ACQUIRE);
	uint32_t i;

	for (i = 0; h && i < c->cn_nholds; i++)
		if (hold_is_ready(c, &h[i]))
			return true;
	return false;
}

struct svc_rdma_hold *svc_rdma_hold_take(struct svc_rdma_conn *c,
					 const struct svc_rdma_call *ct)
{
	struct svc_rdma_hold *h = NULL;
	uint32_t i;

	if (!svc_rdma_hold_ready(c))
		return NULL;
	pthread_mutex_lock(&c->cn_lock);
	for (i = 0; i < c->cn_nholds; i++)
		if (hold_is_ready(c, &c->cn_holds[i])) {
			h = &c->cn_holds[i];
			__atomic_store_n(&h->ho_state, SVC_RDMA_HOLD_BUSY,
					 __ATOMIC_RELAXED);
			break;
		}
	pthread_mutex_unlock(&c->cn_lock);
	if (!h)
		return NULL;
	/* Room given back from here on wakes it if its step finds none. */
	h->ho_room = __atomic_load_n(&c->cn_x.rx_rw_freed, __ATOMIC_ACQUIRE);
	h->ho_ct.ct_slot = ct->ct_slot;
	return h;
}

void svc_rdma_hold_put(struct svc_rdma_conn *c, struct svc_rdma_hold *h)
{
	(void)c;
	__atomic_store_n(&h->ho_state, SVC_RDMA_HOLD_PULLING, __ATOMIC_RELEASE);
}

void svc_rdma_hold_free(struct svc_rdma_conn *c, struct svc_rdma_hold *h)
{
	pthread_mutex_lock(&c->cn_lock);
	h->ho_ct.ct_conn = NULL;
	__atomic_store_n(&h->ho_state, SVC_RDMA_HOLD_FREE, __ATOMIC_RELEASE);
	__atomic_store_n(&c->cn_hold_full, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&c->cn_lock);
}

struct svc_rdma_hold *svc_rdma_hold_of(struct svc_rdma_conn *c,
				       struct svc_rdma_call *ct)
{
	if (!c->cn_holds || ct < &c->cn_holds[0].ho_ct ||
	    ct > &c->cn_holds[c->cn_nholds - 1].ho_ct)
		return NULL;
	return rpcrdma_container_of(ct, struct svc_rdma_hold, ho_ct);
}

void svc_rdma_holds_fini(struct svc_rdma_conn *c)
{
	uint32_t i;

	for (i = 0; i < c->cn_nholds; i++) {
		struct svc_rdma_call *ct = &c->cn_holds[i].ho_ct;

		/* Its receive: the shared queue's (the QP is gone). */
		if (ct->ct_pull.pu_rep && c->cn_srq)
			svc_rdma_srq_repost(c->cn_srq, ct->ct_pull.pu_rep);
		ct->ct_pull.pu_rep = NULL;
		svc_rdma_buf_put(c, &ct->ct_callbuf);
	}
	free(c->cn_holds);
	c->cn_holds = NULL;
	c->cn_nholds = 0;
}
