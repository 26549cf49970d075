/*
 * Memory registrations a transport can map Sends from: buffers the caller
 * registered once (clnt_rdma_reg_mem), and registrations made on the hot
 * path for memory nobody registered: one-shot by default, or kept in a
 * bounded cache when the program allows it.
 */
#ifndef RPCRDMA_MR_H
#define RPCRDMA_MR_H

#include <stddef.h>
#include <stdint.h>
#include "verbs.h"

struct rpcrdma_mr {
	uintptr_t mr_start, mr_end;	/* [start, end) covered */
	struct ibv_mr *mr_ibv;
	int mr_user;			/* registered by the caller, never evicted */
	int mr_oneshot;			/* for one Send only: freed once it completed */
	uint64_t mr_last_seq;		/* newest Send that used it */
	uint64_t mr_lru;		/* last use, for eviction */
	struct rpcrdma_mr *mr_next;
};

struct rpcrdma_mr_table {
	struct rpcrdma_mr *mt_head;
	unsigned int mt_cached;		/* cache entries (mr_user == 0) */
	unsigned int mt_max_cached;	/* 0: no cache, register per Send */
	uint64_t mt_clock;
};

void rpcrdma_mr_table_init(struct rpcrdma_mr_table *t, unsigned int max_cached);
void rpcrdma_mr_table_fini(struct rpcrdma_mr_table *t);
struct rpcrdma_mr *rpcrdma_mr_add_user(struct rpcrdma_mr_table *t,
				       struct rpcrdma_ep *ep, void *addr,
				       size_t len);
int rpcrdma_mr_remove_user(struct rpcrdma_mr_table *t, struct rpcrdma_mr *mr);
void rpcrdma_mr_reap(struct rpcrdma_mr_table *t, uint64_t completed_seq);
int rpcrdma_mr_map(struct rpcrdma_mr_table *t, struct rpcrdma_ep *ep,
		   const void *addr, size_t len, uint64_t seq,
		   uint64_t completed_seq, uint32_t *lkey, int *hardway);

#endif /* RPCRDMA_MR_H */
