/*
 * The client's reconnection schedule (backoff.h): how long to wait before
 * the next attempt, and when to give up.  No clock and no verbs here.
 */
#include "config.h"
#include "backoff.h"

int rpcrdma_backoff_ms(uint32_t attempts, uint64_t elapsed_ms, uint32_t tries,
		       uint32_t limit_ms)
{
	uint32_t delay;

	if (attempts >= tries)
		return -1;
	if (!attempts)
		delay = 0;
	else if (attempts > 5)
		delay = RPCRDMA_BACKOFF_MAX_MS;
	else
		delay = RPCRDMA_BACKOFF_MIN_MS << (attempts - 1);
	if (delay > RPCRDMA_BACKOFF_MAX_MS)
		delay = RPCRDMA_BACKOFF_MAX_MS;
	if (limit_ms && elapsed_ms + delay > limit_ms)
		return -1;
	return (int)delay;
}
