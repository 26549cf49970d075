/*
 * The send-context ring: a fixed set of Send contexts, sized to the
 * credits, handed out in order and released by in-order Send completions.
 * Pure index logic; the caller holds the lock around every call.
 */
#ifndef RPCRDMA_SENDCTX_H
#define RPCRDMA_SENDCTX_H

#include <stdbool.h>

/*
 * Slots sr_tail .. sr_head-1 (mod sr_size) are in use, oldest first; the
 * last sr_undecided of them were handed out by get() but not yet decided
 * (needs_signal() not yet called for them).
 */
struct rpcrdma_sendctx_ring {
	unsigned int sr_size;		/* contexts in the ring */
	unsigned int sr_wrap;		/* where the head goes back to 0 now:
					 * sr_size, or less (sendctx.c, why) */
	unsigned int sr_high;		/* contexts ever handed out: 0 .. this */
	unsigned int sr_signal_every;	/* signal at least one Send in N */
	unsigned int sr_head;		/* next index get() hands out */
	unsigned int sr_tail;		/* oldest index in use */
	unsigned int sr_in_use;
	unsigned int sr_undecided;	/* handed out, not yet decided */
	unsigned int sr_unsignaled;	/* Sends posted since the last signaled one */
	unsigned int sr_queued;		/* decided, queued, not yet posted ... */
	unsigned int sr_queue_head;	/* ... the oldest of them */
};

/*
 * How many contexts a ring for @credits calls in flight needs: @credits,
 * and with @over also @signal_every more (at most @credits more), so that
 * a call whose credit came back finds a context while the Sends before
 * the next signaled one wait for its completion (sendctx.c, why).
 */
unsigned int rpcrdma_sendctx_ring_size(unsigned int credits,
				       unsigned int signal_every, bool over);

/* Returns 0, or -EINVAL if @size or @signal_every is 0. */
int rpcrdma_sendctx_init(struct rpcrdma_sendctx_ring *ring, unsigned int size,
			 unsigned int signal_every);
/* Next free context index, or -EAGAIN when the ring is full; 0 whenever
 * none is in use (an empty ring starts again at 0).  Full: every context
 * up to sr_wrap is in use (sendctx.c). */
int rpcrdma_sendctx_get(struct rpcrdma_sendctx_ring *ring);
/*
 * Give back the newest context from get() that will not be posted after
 * all (build failed).  0, or -EINVAL if @idx is not that context.
 */
int rpcrdma_sendctx_unget(struct rpcrdma_sendctx_ring *ring, unsigned int idx);
/*
 * Decide, just before posting, whether the Send on context @idx must be
 * signaled: 1 = signal, 0 = not, -EINVAL if @idx is not the oldest
 * context handed out and not yet decided (call exactly once per Send, in
 * posting order).
 */
int rpcrdma_sendctx_needs_signal(struct rpcrdma_sendctx_ring *ring,
				 unsigned int idx, bool refs_caller_memory);
/*
 * A completion for the posted Send on @idx: releases it and every older
 * context.  Returns how many were released (>= 1), or -EINVAL if @idx is
 * not a posted, outstanding context.
 */
int rpcrdma_sendctx_complete(struct rpcrdma_sendctx_ring *ring, unsigned int idx);
unsigned int rpcrdma_sendctx_in_use(const struct rpcrdma_sendctx_ring *ring);
/*
 * Queue context @idx, just decided, to be posted after every context
 * queued before it (whoever posts may be another sender).  0, or -EINVAL
 * if @idx is not the newest decided context or is queued already.
 */
int rpcrdma_sendctx_queue(struct rpcrdma_sendctx_ring *ring, unsigned int idx);
/* The oldest queued context, to post next; -EAGAIN if none is queued. */
int rpcrdma_sendctx_next_queued(const struct rpcrdma_sendctx_ring *ring);
/* The oldest queued context is being posted: off the queue (-EAGAIN: none). */
int rpcrdma_sendctx_dequeue(struct rpcrdma_sendctx_ring *ring);

#endif /* RPCRDMA_SENDCTX_H */
