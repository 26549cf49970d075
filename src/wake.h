/*
 * A wake-up for one sleeper that drops a mutex to sleep: a semaphore, as
 * a condition wait takes its mutex back marked contended (glibc), so the
 * next unlock was a futex call per RPC (src/event-loop.md).
 */
#ifndef RPCRDMA_WAKE_H
#define RPCRDMA_WAKE_H

#include <pthread.h>
#include <semaphore.h>
#include <time.h>

struct rpcrdma_wake {
	sem_t wk_sem;
};

/* 0, or -errno. */
int rpcrdma_wake_init(struct rpcrdma_wake *wk);
void rpcrdma_wake_fini(struct rpcrdma_wake *wk);

/*
 * Wake the sleeper, or the next wait if nobody sleeps yet: a wake is
 * never lost.  A system call only when a thread sleeps.  Any lock.
 */
void rpcrdma_wake_post(struct rpcrdma_wake *wk);

/*
 * Drop @lock, sleep until a wake or the CLOCK_MONOTONIC @deadline; the
 * lock is not taken back (a caller whose wait is over may not need it).
 * 0, or -ETIMEDOUT.  A wake may be stale (posted for an earlier wait):
 * callers test what they wait for and wait again.
 */
int rpcrdma_wake_sleep(struct rpcrdma_wake *wk, pthread_mutex_t *lock,
		       const struct timespec *deadline);

/* Forget stale wakes (a slot taken for a new call).  No system call. */
void rpcrdma_wake_reset(struct rpcrdma_wake *wk);

#endif /* RPCRDMA_WAKE_H */
