/*
 * How long one waiter spins before it sleeps, learned from its own waits:
 * spin about twice as long as the completions it waits for have lately
 * taken to come, never less than a floor and never more than busy_poll_us,
 * and not at all while they keep coming later than that.  A busy_poll_us
 * at or below the floor is spun whole, as before learning.  Pure logic,
 * unit-tested (tests/unit/test_spin.c); poller.c applies it.
 */
#ifndef RPCRDMA_SPIN_H
#define RPCRDMA_SPIN_H

#include <stdint.h>

/*
 * A spin is never cut below this (or busy_poll_us if that is less): the
 * budget the library spun before it learned, kept so that lulls at depth,
 * where completions mostly come at once, do not make the poller sleep.
 */
#define RPCRDMA_SPIN_FLOOR_US	300
/* Spins at busy_poll_us that ran out in a row before spinning stops. */
#define RPCRDMA_SPIN_GIVE_UP	2
/* While stopped, one wait in this many still spins busy_poll_us, to see
 * whether completions come sooner again. */
#define RPCRDMA_SPIN_PROBE	16

/*
 * The bound of a client's spin: busy_poll_us, or busy_poll_alone_us (if
 * larger) while its call is the only one in flight (inflight <= 1): a lone
 * call waits for its own round trip, and nobody else needs the CPU its
 * spin takes; at depth the spinner slows the completions it waits for
 * (rxe's kernel work shares the cores).
 */
uint32_t rpcrdma_spin_bound(uint32_t busy_poll_us, uint32_t alone_us,
			    uint32_t inflight);

/* One waiter's state; zero is a valid start.  Used by whoever holds the
 * waiter's role (the poller role, one connection's or leader's loop). */
struct rpcrdma_spin {
	uint32_t sp_learned_us;	/* how long completions take to come */
	uint8_t sp_over;	/* spins of cap_us that ran out, in a row */
	uint8_t sp_skipped;	/* waits not spun since spinning stopped */
};

/* How long to spin now, at most cap_us (busy_poll_us); 0: sleep at once. */
uint32_t rpcrdma_spin_budget(struct rpcrdma_spin *sp, uint32_t cap_us);

/* A completion came after spinning spun_us. */
void rpcrdma_spin_hit(struct rpcrdma_spin *sp, uint64_t spun_us);

/* A spin of budget_us ran out: the completion comes later than that. */
void rpcrdma_spin_miss(struct rpcrdma_spin *sp, uint32_t budget_us,
		       uint32_t cap_us);

#endif /* RPCRDMA_SPIN_H */
