/*
 * Deferred releases (release.h): a fixed-size ring of callbacks waiting
 * for a Send to complete.  The transport holds its lock around every
 * call here and runs the callbacks after dropping it.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include "release.h"

int rpcrdma_relq_init(struct rpcrdma_relq *q, uint32_t cap)
{
	q->rq_head = q->rq_len = 0;
	q->rq_cap = cap;
	q->rq_ents = cap ? calloc(cap, sizeof(*q->rq_ents)) : NULL;
	return cap && !q->rq_ents ? -ENOMEM : 0;
}

void rpcrdma_relq_fini(struct rpcrdma_relq *q)
{
	free(q->rq_ents);
	q->rq_ents = NULL;
	q->rq_cap = q->rq_len = 0;
}

int rpcrdma_relq_push(struct rpcrdma_relq *q, uint64_t seq,
		      rpcrdma_release_fn fn, void *arg)
{
	struct rpcrdma_release *r;

	if (q->rq_len == q->rq_cap)
		return -ENOSPC;
	r = &q->rq_ents[(q->rq_head + q->rq_len++) % q->rq_cap];
	r->rl_seq = seq;
	r->rl_fn = fn;
	r->rl_arg = arg;
	return 0;
}

bool rpcrdma_relq_pop(struct rpcrdma_relq *q, struct rpcrdma_release *out)
{
	if (!q->rq_len)
		return false;
	*out = q->rq_ents[q->rq_head];
	q->rq_head = (q->rq_head + 1) % q->rq_cap;
	q->rq_len--;
	return true;
}

bool rpcrdma_relq_pop_due(struct rpcrdma_relq *q, uint64_t completed,
			  struct rpcrdma_release *out)
{
	if (!q->rq_len || q->rq_ents[q->rq_head].rl_seq > completed)
		return false;
	return rpcrdma_relq_pop(q, out);
}
