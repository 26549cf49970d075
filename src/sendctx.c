/*
 * Send-context ring bookkeeping: which contexts are free, which Sends must
 * be signaled, and what a Send completion releases.  Completions on one
 * send queue arrive in posting order, so releasing is a tail move.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "sendctx.h"

int rpcrdma_sendctx_init(struct rpcrdma_sendctx_ring *ring, unsigned int size,
			 unsigned int signal_every)
{
	if (!size || !signal_every || size > INT_MAX)
		return -EINVAL;
	memset(ring, 0, sizeof(*ring));
	ring->sc_size = size;
	ring->sc_signal_every = signal_every;
	return 0;
}

/* Index arithmetic mod sc_size without relying on unsigned wrap of a counter. */
static unsigned int rpcrdma_sc_next(const struct rpcrdma_sendctx_ring *ring,
				    unsigned int idx)
{
	return idx + 1 == ring->sc_size ? 0 : idx + 1;
}

/* How far @idx is past the oldest in-use context. */
static unsigned int rpcrdma_sc_age(const struct rpcrdma_sendctx_ring *ring,
				   unsigned int idx)
{
	return idx >= ring->sc_tail ? idx - ring->sc_tail
				    : idx + ring->sc_size - ring->sc_tail;
}

int rpcrdma_sendctx_get(struct rpcrdma_sendctx_ring *ring)
{
	unsigned int idx = ring->sc_head;

	if (ring->sc_in_use == ring->sc_size)
		return -EAGAIN;
	ring->sc_head = rpcrdma_sc_next(ring, idx);
	ring->sc_in_use++;
	ring->sc_undecided++;
	return (int)idx;
}

int rpcrdma_sendctx_unget(struct rpcrdma_sendctx_ring *ring, unsigned int idx)
{
	unsigned int newest;

	if (!ring->sc_undecided || idx >= ring->sc_size)
		return -EINVAL;
	newest = ring->sc_head ? ring->sc_head - 1 : ring->sc_size - 1;
	if (idx != newest)
		return -EINVAL;
	ring->sc_head = newest;
	ring->sc_in_use--;
	ring->sc_undecided--;
	return 0;
}

/*
 * Signal when (a) the Send references caller memory: the call may not
 * return before the HCA is done reading it; (b) sc_signal_every Sends have
 * gone unsignaled; (c) this Send is the newest and fills the ring.  Why
 * (c): a context is freed only by a completion, and unsignaled Sends make
 * none.  If the ring is full when a sender waits, the newest context was
 * decided while the ring was full (nothing was handed out since), so by
 * (c) it is signaled and its completion, still pending, will free the
 * whole ring.  Without (c) a ring of unsignaled Sends would wait forever
 * whenever sc_signal_every > sc_size.
 */
int rpcrdma_sendctx_needs_signal(struct rpcrdma_sendctx_ring *ring,
				 unsigned int idx, bool refs_caller_memory)
{
	unsigned int posted = ring->sc_in_use - ring->sc_undecided;
	bool newest, signal;

	if (!ring->sc_undecided || idx >= ring->sc_size ||
	    rpcrdma_sc_age(ring, idx) != posted)
		return -EINVAL;
	ring->sc_undecided--;
	newest = ring->sc_undecided == 0;
	signal = refs_caller_memory ||
		 ring->sc_unsignaled + 1 >= ring->sc_signal_every ||
		 (newest && ring->sc_in_use == ring->sc_size);
	ring->sc_unsignaled = signal ? 0 : ring->sc_unsignaled + 1;
	return signal;
}

int rpcrdma_sendctx_complete(struct rpcrdma_sendctx_ring *ring, unsigned int idx)
{
	unsigned int age;

	if (idx >= ring->sc_size)
		return -EINVAL;
	age = rpcrdma_sc_age(ring, idx);
	if (age >= ring->sc_in_use - ring->sc_undecided)
		return -EINVAL;
	ring->sc_tail = rpcrdma_sc_next(ring, idx);
	ring->sc_in_use -= age + 1;
	return (int)(age + 1);
}

unsigned int rpcrdma_sendctx_in_use(const struct rpcrdma_sendctx_ring *ring)
{
	return ring->sc_in_use;
}
