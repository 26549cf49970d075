/*
 * One-sleeper wake-ups over a semaphore (wake.h): posting costs a system
 * call only when the thread sleeps, and the woken thread takes its mutex
 * back, if it needs it, as any locker does, so an unlock later pays a
 * futex call only for a real contender.
 */
#define _GNU_SOURCE	/* sem_clockwait */
#include "config.h"
#include <errno.h>
#include "wake.h"

int rpcrdma_wake_init(struct rpcrdma_wake *wk)
{
	return sem_init(&wk->wk_sem, 0, 0) ? -errno : 0;
}

void rpcrdma_wake_fini(struct rpcrdma_wake *wk)
{
	sem_destroy(&wk->wk_sem);
}

void rpcrdma_wake_post(struct rpcrdma_wake *wk)
{
	int n;

	/* Why not always: a sleeper woken twice (its Reply, then the
	 * poller role) needs one wake; counts beyond it only make the
	 * next waits return at once. */
	if (!sem_getvalue(&wk->wk_sem, &n) && n > 0)
		return;
	sem_post(&wk->wk_sem);
}

int rpcrdma_wake_sleep(struct rpcrdma_wake *wk, pthread_mutex_t *lock,
		       const struct timespec *deadline)
{
	int rc;

	pthread_mutex_unlock(lock);
	do
		rc = sem_clockwait(&wk->wk_sem, CLOCK_MONOTONIC, deadline);
	while (rc && errno == EINTR);
	return rc ? -errno : 0;
}

void rpcrdma_wake_reset(struct rpcrdma_wake *wk)
{
	while (!sem_trywait(&wk->wk_sem))
		;
}
