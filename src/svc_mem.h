/*
 * The server's registered chunk memory: per listener and device one PD
 * its connections share, and on it the program's regions and our own
 * pool (pool_size) from which each Call takes only the bytes it needs.
 */
#ifndef RPCRDMA_SVC_MEM_H
#define RPCRDMA_SVC_MEM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "pool.h"
#include "svc_srq.h"
#include "verbs.h"

struct svc_rdma_listener;
struct svc_rdma_conn;

/* One registered region a pool allocator carves up. */
struct svc_rdma_region {
	struct svc_rdma_region *rgn_next;
	char *rgn_mem;
	struct ibv_mr *rgn_mr;
	int rgn_user;			/* the program's (svc_rdma_pool_add) */
	struct rpcrdma_pool rgn_pool;
};

/* One device a listener's connections use; lives as long as the listener. */
struct svc_rdma_dev {
	struct svc_rdma_dev *dv_next;
	struct ibv_context *dv_verbs;
	struct ibv_pd *dv_pd;
	int dv_refs;			/* listener + connections, under ln_lock */
	pthread_mutex_t dv_lock;	/* everything below */
	struct svc_rdma_region *dv_regions; /* the program's first, then ours */
	size_t dv_pool_size;		/* ours, registered on first use */
	int dv_own_tried;
	uint64_t dv_pinned;		/* ours and fallbacks, registered now */
	uint64_t dv_pinned_peak;
	struct svc_rdma_srqs dv_srqs;	/* its shared receive queues (ln_lock) */
	int dv_srq_warned;		/* "no SRQs" said once (ln_lock) */
};

/* The registered bytes one Call (or its Reply) uses. */
struct svc_rdma_buf {
	char *sb_mem;			/* NULL: none held */
	size_t sb_len;
	uint32_t sb_lkey;
	struct svc_rdma_region *sb_reg;	/* NULL: a fallback, sb_mr its own */
	size_t sb_off;
	struct ibv_mr *sb_mr;
};

/* A buffer a failed RDMA Read/Write may still reach: kept until the QP goes. */
struct svc_rdma_held {
	struct svc_rdma_held *sh_next;
	struct svc_rdma_buf sh_buf;
};

struct svc_rdma_dev *svc_rdma_dev_get(struct svc_rdma_listener *l,
				      struct ibv_context *verbs);
void svc_rdma_dev_put(struct svc_rdma_listener *l, struct svc_rdma_dev *d);
void svc_rdma_devs_fini(struct svc_rdma_listener *l);
/* svc_rdma_get_pd(3), svc_rdma_pool_add(3) for a listener (NULL: EINVAL). */
struct ibv_pd *svc_rdma_mem_get_pd(struct svc_rdma_listener *l,
				   struct ibv_context *verbs);
int svc_rdma_mem_add(struct svc_rdma_listener *l, struct ibv_mr *mr);
void svc_rdma_devs_pinned(struct svc_rdma_listener *l, uint64_t *now,
			  uint64_t *peak);
void svc_rdma_devs_srq_stats(struct svc_rdma_listener *l,
			     struct rpcrdma_stats *st);

int svc_rdma_buf_get(struct svc_rdma_conn *c, size_t len,
		     struct svc_rdma_buf *b);
size_t svc_rdma_buf_room(struct svc_rdma_conn *c, size_t want);
void svc_rdma_count_mem_limit(struct svc_rdma_conn *c);
void svc_rdma_buf_trim(struct svc_rdma_conn *c, struct svc_rdma_buf *b,
		       size_t keep);
void svc_rdma_buf_put(struct svc_rdma_conn *c, struct svc_rdma_buf *b);
void svc_rdma_buf_hold(struct svc_rdma_conn *c, struct svc_rdma_buf *b);
void svc_rdma_bufs_free(struct svc_rdma_conn *c);

#endif /* RPCRDMA_SVC_MEM_H */
