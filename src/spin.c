/*
 * Adaptive busy polling (spin.h): spinning pays only when the completion
 * comes before a sleep and a wake-up would have ended, so the budget
 * follows how long completions have taken to come to this waiter.
 */
#include "config.h"
#include "spin.h"

/* Added to twice the learned wait: room for a completion a little late. */
#define SPIN_SLACK_US	50

uint32_t rpcrdma_spin_bound(uint32_t busy_poll_us, uint32_t alone_us,
			    uint32_t inflight)
{
	return inflight <= 1 && alone_us > busy_poll_us ? alone_us : busy_poll_us;
}

uint32_t rpcrdma_spin_budget(struct rpcrdma_spin *sp, uint32_t cap_us)
{
	uint64_t want;

	/* A bound at the floor leaves nothing to learn: spin it, as always
	 * (0: never). */
	if (cap_us <= RPCRDMA_SPIN_FLOOR_US)
		return cap_us;
	if (sp->sp_over >= RPCRDMA_SPIN_GIVE_UP) {
		/* Completions come later than any spin allowed: sleep at
		 * once, and probe now and then at the cap. */
		if (++sp->sp_skipped < RPCRDMA_SPIN_PROBE)
			return 0;
		sp->sp_skipped = 0;
		return cap_us;
	}
	want = 2 * (uint64_t)sp->sp_learned_us + SPIN_SLACK_US;
	if (want < RPCRDMA_SPIN_FLOOR_US)
		return RPCRDMA_SPIN_FLOOR_US;
	return want > cap_us ? cap_us : (uint32_t)want;
}

/* A moving average over about the last four waits. */
static void learn(struct rpcrdma_spin *sp, uint64_t us)
{
	int64_t d;

	if (us > UINT32_MAX)
		us = UINT32_MAX;
	d = (int64_t)us - (int64_t)sp->sp_learned_us;
	sp->sp_learned_us = (uint32_t)((int64_t)sp->sp_learned_us + d / 4);
}

void rpcrdma_spin_hit(struct rpcrdma_spin *sp, uint64_t spun_us)
{
	learn(sp, spun_us);
	sp->sp_over = 0;
	sp->sp_skipped = 0;
}

void rpcrdma_spin_miss(struct rpcrdma_spin *sp, uint32_t budget_us,
		       uint32_t cap_us)
{
	/*
	 * It took longer than budget_us: averaged in as budget_us, so spins
	 * that keep running out lengthen the next ones (towards twice that,
	 * up to the cap), while one lull among quick completions (many
	 * calls in flight) lengthens them little.  A run of misses at the
	 * cap stops spinning (budget above).
	 */
	learn(sp, budget_us);
	if (cap_us > RPCRDMA_SPIN_FLOOR_US && budget_us >= cap_us &&
	    sp->sp_over < RPCRDMA_SPIN_GIVE_UP)
		sp->sp_over++;
}
