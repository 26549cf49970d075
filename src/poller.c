/*
 * The waiting policy of the completion model (poller.h): reap, spin for
 * a bounded time while the CQ stays empty (how long: spin.c; yielding the
 * CPU every few polls), then arm and reap once more before sleeping.
 * Pure logic over an ops table; no verbs calls here.
 */
#include "config.h"
#include <errno.h>
#include <sched.h>
#include <time.h>
#include "poller.h"

uint64_t rpcrdma_poll_now_ns(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void rpcrdma_poll_yield(void *arg)
{
	(void)arg;
	sched_yield();
}

/* Milliseconds to sleep before the deadline, rounded up; -1: none. */
static int sleep_ms(uint64_t now, uint64_t deadline)
{
	uint64_t left;

	if (!deadline)
		return -1;
	left = deadline - now;
	if (left / 1000000 >= 60000)
		return 60000;
	return (int)((left + 999999) / 1000000);
}

/* A spin found a completion after spun_ns: counted, and learned from. */
static void spin_hit(struct rpcrdma_poll_stats *st, struct rpcrdma_spin *sp,
		     uint64_t spun_ns)
{
	st->ps_hits++;
	rpcrdma_spin_hit(sp, spun_ns / 1000);
}

int rpcrdma_poll_wait(const struct rpcrdma_poll_ops *ops, void *arg,
		      struct rpcrdma_spin *sp, uint32_t spin_us,
		      uint64_t deadline_ns, struct rpcrdma_poll_stats *st)
{
	uint64_t spin_start = 0, spin_end = 0, now;
	uint32_t budget = 0;
	int n, spun = 0, rc;

	for (;;) {
		n = ops->po_reap(arg);
		if (n < 0)
			return n;
		if (ops->po_done(arg)) {
			if (n && spun)
				spin_hit(st, sp, ops->po_now_ns(arg) - spin_start);
			return 0;
		}
		now = ops->po_now_ns(arg);
		if (n) {
			/* Progress: the spin starts again. */
			if (spun)
				spin_hit(st, sp, now - spin_start);
			spun = 0;
			continue;
		}
		st->ps_empty++;
		if (deadline_ns && now >= deadline_ns)
			return -ETIMEDOUT;
		if (!spun++) {
			budget = rpcrdma_spin_budget(sp, spin_us);
			spin_start = now;
			spin_end = now + (uint64_t)budget * 1000;
		}
		if (now < spin_end) {
			if (ops->po_yield && spun % RPCRDMA_SPIN_YIELD_EVERY == 0)
				ops->po_yield(arg);
			continue;
		}

		/* The spin ran out: arm, and look once more before sleeping. */
		st->ps_misses++;
		if (budget)
			rpcrdma_spin_miss(sp, budget, spin_us);
		rc = ops->po_arm(arg);
		if (rc)
			return rc;
		n = ops->po_reap(arg);
		if (n < 0)
			return n;
		if (ops->po_done(arg))
			return 0;
		if (n) {
			spun = 0;
			continue;
		}
		if (!ops->po_sleep)
			return -EAGAIN;
		rc = ops->po_sleep(arg, sleep_ms(now, deadline_ns));
		if (rc < 0)
			return rc;
		if (rc)
			st->ps_wakeups++;
		spun = 0;
	}
}
