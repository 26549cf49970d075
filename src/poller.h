/*
 * Who polls, spins, arms and sleeps: one waiter's loop over a completion
 * queue, the same for client callers and server loops.  The verbs calls
 * come in through an ops table, so the policy is unit-tested without a
 * device (tests/unit/test_poller.c).  Which thread runs it where, what
 * else sleeps and who wakes whom: src/event-loop.md, the one description.
 */
#ifndef RPCRDMA_POLLER_H
#define RPCRDMA_POLLER_H

#include <stdint.h>
#include "spin.h"

struct rpcrdma_poll_ops {
	/* Reap what completed: how many completions, or a negative errno. */
	int (*po_reap)(void *arg);
	/* The waiter's condition: nonzero once it holds. */
	int (*po_done)(void *arg);
	/* Ask for an event on the next completion (ibv_req_notify_cq). */
	int (*po_arm)(void *arg);
	/*
	 * Sleep on the completion channel until an event or timeout_ms
	 * (-1: none): 1 woke, 0 timed out, negative errno.  NULL: the
	 * caller sleeps elsewhere (the server's svc_run poll(2)).
	 */
	int (*po_sleep)(void *arg, int timeout_ms);
	uint64_t (*po_now_ns)(void *arg);	/* CLOCK_MONOTONIC */
	/* Let another runnable thread have this CPU a moment (NULL: never):
	 * called every RPCRDMA_SPIN_YIELD_EVERY empty polls of a spin. */
	void (*po_yield)(void *arg);
};

/*
 * Why a spin yields: on soft devices the completion it waits for is made
 * on the same CPUs (rxe's kernel work, siw's, the peer, the callers it
 * just woke); a spinner that keeps its CPU delays that.  Measured, one
 * poll in 4 yielding against none, 32 in flight: +10..21% calls/s
 * (against the raw-verbs baseline of the same run, medians of 6 rounds),
 * neutral at 1 in flight.  On an idle core a yield returns at once.
 */
#define RPCRDMA_SPIN_YIELD_EVERY	4

/* The po_now_ns every transport uses: CLOCK_MONOTONIC in ns, arg unused. */
uint64_t rpcrdma_poll_now_ns(void *arg);
/* The po_yield every transport uses: sched_yield(2), arg unused. */
void rpcrdma_poll_yield(void *arg);

/* What one waiter's loop did, added to the transport counters. */
struct rpcrdma_poll_stats {
	uint64_t ps_wakeups;		/* sleeps on the channel that woke */
	uint64_t ps_hits;		/* spins ended by a completion */
	uint64_t ps_misses;		/* spins that ran out: armed to sleep */
	uint64_t ps_empty;		/* polls that found nothing */
};

/*
 * Poll until po_done holds, spinning after the last completion before
 * arming the CQ and sleeping, as long as sp learned (spin.h) and at most
 * spin_us (busy_poll_us; 300 us or less is spun whole); arming happens only on
 * the way to sleep, never per message, and one more poll after arming
 * closes the race with a completion that came just before it.
 * deadline_ns 0: no deadline.  Returns 0 once done, -ETIMEDOUT, -EAGAIN
 * (armed, po_sleep is NULL: go and sleep), or a negative errno.
 */
int rpcrdma_poll_wait(const struct rpcrdma_poll_ops *ops, void *arg,
		      struct rpcrdma_spin *sp, uint32_t spin_us,
		      uint64_t deadline_ns, struct rpcrdma_poll_stats *st);

#endif /* RPCRDMA_POLLER_H */
