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

/*
 * Why more contexts than credits: a context comes back only when a
 * signaled Send at or after it completes.  A call's Reply may come as
 * early as its Send's completion; its credit is then free while its
 * context, if unsignaled, waits for the next signaled Send, which belongs
 * to a call still in flight.  With one context per credit the next call
 * found none and waited for a reap (rxe, 32 blocking calls in flight,
 * signal_every 8: 6-12% of calls).  Up to signal_every - 1 such contexts,
 * the calls in flight and the new one: credits + signal_every - 1; one
 * more for a Send whose completion is reaped just after its Reply.  At
 * most credits more: past that the Send that fills the ring is signaled
 * (rpcrdma_sendctx_needs_signal, (c)) and its completion frees them.
 */
unsigned int rpcrdma_sendctx_ring_size(unsigned int credits,
				       unsigned int signal_every, bool over)
{
	if (!over)
		return credits;
	return credits + (signal_every < credits ? signal_every : credits);
}

int rpcrdma_sendctx_init(struct rpcrdma_sendctx_ring *ring, unsigned int size,
			 unsigned int signal_every)
{
	if (!size || !signal_every || size > INT_MAX)
		return -EINVAL;
	memset(ring, 0, sizeof(*ring));
	ring->sr_size = size;
	ring->sr_wrap = size;
	ring->sr_signal_every = signal_every;
	return 0;
}

/* Index arithmetic mod sr_wrap without relying on unsigned wrap of a counter. */
static unsigned int rpcrdma_sc_next(const struct rpcrdma_sendctx_ring *ring,
				    unsigned int idx)
{
	return idx + 1 == ring->sr_wrap ? 0 : idx + 1;
}

/* How far @idx is past the oldest in-use context. */
static unsigned int rpcrdma_sc_age(const struct rpcrdma_sendctx_ring *ring,
				   unsigned int idx)
{
	return idx >= ring->sr_tail ? idx - ring->sr_tail
				    : idx + ring->sr_wrap - ring->sr_tail;
}

/* Every context up to sr_wrap in use: the head met the tail. */
static bool rpcrdma_sc_full(const struct rpcrdma_sendctx_ring *ring)
{
	return ring->sr_in_use && ring->sr_head == ring->sr_tail;
}

/*
 * The ring keeps to the contexts it has used (sr_high) where it can.
 * Why: send buffers are registered a few contexts at a time, when first
 * handed out (verbs.c, rpcrdma_ep_send_buf), and a connection with 128
 * credits that never has more than a few dozen Sends unreleased at once
 * should not go round, and register, all 136.  So an empty ring starts
 * again at 0, and a head about to take a context never used goes back to
 * 0 instead (sr_wrap marks where) if more than sr_signal_every contexts
 * are free there: room for a signaled Send's worth before it meets the
 * tail.  Only a head that finds context 0 still busy, or little room,
 * takes a new one: the contexts used follow the Sends unreleased at once.
 * Once the tail has gone round too, sr_wrap is the ring's size again.
 */
int rpcrdma_sendctx_get(struct rpcrdma_sendctx_ring *ring)
{
	unsigned int idx, next;

	if (ring->sr_in_use == ring->sr_size || rpcrdma_sc_full(ring))
		return -EAGAIN;
	if (!ring->sr_in_use)
		ring->sr_head = ring->sr_tail = 0;
	/* Not wrapped: no context in use at or past the head. */
	if (ring->sr_tail <= ring->sr_head)
		ring->sr_wrap = ring->sr_size;
	idx = ring->sr_head;
	next = rpcrdma_sc_next(ring, idx);
	if (next && next >= ring->sr_high && ring->sr_tail <= idx &&
	    ring->sr_tail > ring->sr_signal_every) {
		ring->sr_wrap = next;
		next = 0;
	}
	if (idx + 1 > ring->sr_high)
		ring->sr_high = idx + 1;
	ring->sr_head = next;
	ring->sr_in_use++;
	ring->sr_undecided++;
	return (int)idx;
}

int rpcrdma_sendctx_unget(struct rpcrdma_sendctx_ring *ring, unsigned int idx)
{
	unsigned int newest;

	if (!ring->sr_undecided || idx >= ring->sr_size)
		return -EINVAL;
	newest = ring->sr_head ? ring->sr_head - 1 : ring->sr_wrap - 1;
	if (idx != newest)
		return -EINVAL;
	ring->sr_head = newest;
	ring->sr_in_use--;
	ring->sr_undecided--;
	return 0;
}

/*
 * Signal when (a) the Send references caller memory: the call may not
 * return before the HCA is done reading it; (b) sr_signal_every Sends have
 * gone unsignaled; (c) this Send is the newest and fills the ring.  Why
 * (c): a context is freed only by a completion, and unsignaled Sends make
 * none.  If the ring is full when a sender waits, the newest context was
 * decided while the ring was full (nothing was handed out since), so by
 * (c) it is signaled and its completion, still pending, will free the
 * whole ring.  Without (c) a ring of unsignaled Sends would wait forever
 * whenever sr_signal_every > sr_size.
 */
int rpcrdma_sendctx_needs_signal(struct rpcrdma_sendctx_ring *ring,
				 unsigned int idx, bool refs_caller_memory)
{
	unsigned int posted = ring->sr_in_use - ring->sr_undecided;
	bool newest, signal;

	if (!ring->sr_undecided || idx >= ring->sr_size ||
	    rpcrdma_sc_age(ring, idx) != posted)
		return -EINVAL;
	ring->sr_undecided--;
	newest = ring->sr_undecided == 0;
	signal = refs_caller_memory ||
		 ring->sr_unsignaled + 1 >= ring->sr_signal_every ||
		 (newest && rpcrdma_sc_full(ring));
	ring->sr_unsignaled = signal ? 0 : ring->sr_unsignaled + 1;
	return signal;
}

int rpcrdma_sendctx_complete(struct rpcrdma_sendctx_ring *ring, unsigned int idx)
{
	unsigned int age;

	if (idx >= ring->sr_size)
		return -EINVAL;
	age = rpcrdma_sc_age(ring, idx);
	if (age >= ring->sr_in_use - ring->sr_undecided)
		return -EINVAL;
	ring->sr_tail = rpcrdma_sc_next(ring, idx);
	ring->sr_in_use -= age + 1;
	return (int)(age + 1);
}

unsigned int rpcrdma_sendctx_in_use(const struct rpcrdma_sendctx_ring *ring)
{
	return ring->sr_in_use;
}

/*
 * Contexts are decided in ring order and queued as they are decided, so
 * the queue is one run of the ring: from sr_queue_head, sr_queued long,
 * ending at the newest decided context.
 */
int rpcrdma_sendctx_queue(struct rpcrdma_sendctx_ring *ring, unsigned int idx)
{
	unsigned int decided = ring->sr_in_use - ring->sr_undecided;

	if (idx >= ring->sr_size || !decided ||
	    rpcrdma_sc_age(ring, idx) != decided - 1 ||
	    ring->sr_queued >= decided)
		return -EINVAL;
	if (ring->sr_queued &&
	    rpcrdma_sc_age(ring, ring->sr_queue_head) + ring->sr_queued !=
	    decided - 1)
		return -EINVAL;		/* @idx queued already */
	if (!ring->sr_queued)
		ring->sr_queue_head = idx;
	ring->sr_queued++;
	return 0;
}

int rpcrdma_sendctx_next_queued(const struct rpcrdma_sendctx_ring *ring)
{
	return ring->sr_queued ? (int)ring->sr_queue_head : -EAGAIN;
}

int rpcrdma_sendctx_dequeue(struct rpcrdma_sendctx_ring *ring)
{
	if (!ring->sr_queued)
		return -EAGAIN;
	ring->sr_queue_head = rpcrdma_sc_next(ring, ring->sr_queue_head);
	ring->sr_queued--;
	return 0;
}
