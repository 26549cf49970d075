/*
 * When a client that lost its connection tries again (pure logic, so
 * the policy is unit-tested without a network): at once, then after a
 * delay doubling from RPCRDMA_BACKOFF_MIN_MS to RPCRDMA_BACKOFF_MAX_MS.
 */
#ifndef RPCRDMA_BACKOFF_H
#define RPCRDMA_BACKOFF_H

#include <stdint.h>

#define RPCRDMA_BACKOFF_MIN_MS	100
#define RPCRDMA_BACKOFF_MAX_MS	2000

/*
 * Milliseconds to wait before the next attempt, after @attempts were made
 * and @elapsed_ms passed since the connection was lost; -1 to give up:
 * @tries attempts made (0: reconnection is off), or the next would start
 * later than @limit_ms after the loss (0: no time bound).
 */
int rpcrdma_backoff_ms(uint32_t attempts, uint64_t elapsed_ms, uint32_t tries,
		       uint32_t limit_ms);

#endif /* RPCRDMA_BACKOFF_H */
