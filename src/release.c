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
	q->rlq_head = q->rlq_len = 0;
	q->rlq_cap = cap;
	q->rlq_ents = cap ? calloc(cap, sizeof(*q->rlq_ents)) : NULL;
	return cap && !q->rlq_ents ? -ENOMEM : 0;
}

void rpcrdma_relq_fini(struct rpcrdma_relq *q)
{
	free(q->rlq_ents);
	q->rlq_ents = NULL;
	q->rlq_cap = q->rlq_len = 0;
}

int rpcrdma_relq_push(struct rpcrdma_relq *q, uint64_t seq,
		      rpcrdma_release_fn fn, void *arg)
{
	struct rpcrdma_release *r;

	if (q->rlq_len == q->rlq_cap)
		return -ENOSPC;
	r = &q->rlq_ents[(q->rlq_head + q->rlq_len++) % q->rlq_cap];
	r->rl_seq = seq;
	r->rl_fn = fn;
	r->rl_arg = arg;
	return 0;
}

bool rpcrdma_relq_pop(struct rpcrdma_relq *q, struct rpcrdma_release *out)
{
	if (!q->rlq_len)
		return false;
	*out = q->rlq_ents[q->rlq_head];
	q->rlq_head = (q->rlq_head + 1) % q->rlq_cap;
	q->rlq_len--;
	return true;
}

bool rpcrdma_relq_pop_due(struct rpcrdma_relq *q, uint64_t completed,
			  struct rpcrdma_release *out)
{
	if (!q->rlq_len || q->rlq_ents[q->rlq_head].rl_seq > completed)
		return false;
	return rpcrdma_relq_pop(q, out);
}

uint64_t rpcrdma_relq_last_seq(const struct rpcrdma_relq *q)
{
	if (!q->rlq_len)
		return 0;
	return q->rlq_ents[(q->rlq_head + q->rlq_len - 1) % q->rlq_cap].rl_seq;
}
