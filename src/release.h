/*
 * Deferred releases: callbacks that run once the Send gathering some
 * caller memory has completed, so a server can answer without waiting
 * for its Reply's Send (svc_rdma_sendreply_async).  A bounded FIFO keyed
 * by Send sequence number; pure bookkeeping, no verbs, no locking.
 */
#ifndef RPCRDMA_RELEASE_H
#define RPCRDMA_RELEASE_H

#include <stdbool.h>
#include <stdint.h>

typedef void (*rpcrdma_release_fn)(void *arg, int status);

struct rpcrdma_release {
	uint64_t rl_seq;		/* run once this Send has completed */
	rpcrdma_release_fn rl_fn;
	void *rl_arg;
};

struct rpcrdma_relq {
	struct rpcrdma_release *rlq_ents;
	uint32_t rlq_cap;
	uint32_t rlq_head;		/* oldest entry */
	uint32_t rlq_len;
};

/* Room for cap entries, allocated now: pushing never allocates. */
int rpcrdma_relq_init(struct rpcrdma_relq *q, uint32_t cap);
void rpcrdma_relq_fini(struct rpcrdma_relq *q);

/* Queue a release; -ENOSPC when full (the caller then waits itself). */
int rpcrdma_relq_push(struct rpcrdma_relq *q, uint64_t seq,
		      rpcrdma_release_fn fn, void *arg);

/*
 * Take the oldest entry whose Send is complete (rl_seq <= completed);
 * false when there is none.  Sends complete in posting order and entries
 * are pushed in posting order, so only the oldest needs looking at.
 */
bool rpcrdma_relq_pop_due(struct rpcrdma_relq *q, uint64_t completed,
			  struct rpcrdma_release *out);

/* Take the oldest entry, due or not (teardown); false when empty. */
/* The Send sequence the newest entry waits for; 0 when empty. */
uint64_t rpcrdma_relq_last_seq(const struct rpcrdma_relq *q);
bool rpcrdma_relq_pop(struct rpcrdma_relq *q, struct rpcrdma_release *out);

#endif /* RPCRDMA_RELEASE_H */
