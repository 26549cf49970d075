/*
 * Credits granted by need, and size classes of shared receive buffers:
 * pure decisions and the bookkeeping that keeps "Calls the clients may
 * still send <= receives posted" (grants.h says why it holds).
 */
#include "config.h"
#include <errno.h>
#include "grants.h"

uint64_t rpcrdma_grant_room(const struct rpcrdma_grant_pool *p)
{
	uint64_t avail = p->gp_posted > p->gp_reserve ?
			 p->gp_posted - p->gp_reserve : 0;

	return avail > p->gp_committed ? avail - p->gp_committed : 0;
}

int rpcrdma_grant_admit(struct rpcrdma_grant_pool *p, struct rpcrdma_grant *g,
			uint32_t floor, uint32_t ceiling)
{
	if (rpcrdma_grant_room(p) < 1)
		return -ENOSPC;
	*g = (struct rpcrdma_grant){
		.gr_horizon = 1,	/* one Call before the first Reply */
		.gr_granted = 1,
		.gr_floor = floor ? floor : 1,
		.gr_ceiling = ceiling > floor ? ceiling : (floor ? floor : 1),
	};
	p->gp_committed += 1;
	p->gp_conns++;
	return 0;
}

void rpcrdma_grant_dropped(struct rpcrdma_grant_pool *p,
			   struct rpcrdma_grant *g)
{
	if (!g->gr_calls)
		return;
	g->gr_calls--;
	/* Back among those it may send: its receive was posted again. */
	if (g->gr_calls < g->gr_horizon)
		p->gp_committed++;
}

int rpcrdma_grant_call(struct rpcrdma_grant_pool *p, struct rpcrdma_grant *g)
{
	uint64_t unreplied;
	int over = g->gr_calls >= g->gr_horizon;

	if (p->gp_posted)
		p->gp_posted--;
	/* Within its horizon, it was one of the Calls committed. */
	if (!over && p->gp_committed)
		p->gp_committed--;
	g->gr_calls++;
	unreplied = g->gr_calls - g->gr_replies;
	if (unreplied > g->gr_busy)
		g->gr_busy = unreplied > UINT32_MAX ? UINT32_MAX : (uint32_t)unreplied;
	return over ? -EPROTO : 0;
}

void rpcrdma_grant_lost(struct rpcrdma_grant_pool *p)
{
	if (p->gp_posted)
		p->gp_posted--;
}

void rpcrdma_grant_posted(struct rpcrdma_grant_pool *p, uint32_t n)
{
	p->gp_posted += n;
}

bool rpcrdma_grant_short(const struct rpcrdma_grant_pool *p)
{
	return rpcrdma_grant_room(p) + p->gp_back < p->gp_buffers / 4;
}

bool rpcrdma_grant_pressed(const struct rpcrdma_grant_pool *p)
{
	return rpcrdma_grant_short(p) && p->gp_max <= p->gp_buffers;
}

uint32_t rpcrdma_grant_want(const struct rpcrdma_grant_pool *p,
			    const struct rpcrdma_grant *g, uint32_t requested)
{
	uint32_t want = g->gr_granted, cap = g->gr_ceiling;

	if (requested && requested < cap)
		cap = requested;
	/* The first Reply: what the client asked for, room permitting (a
	 * client whose first calls came all at once would else wait out a
	 * doubling per Reply); idleness cuts it later. */
	if (!g->gr_replies)
		want = cap;
	else if (g->gr_busy >= g->gr_granted)
		want = g->gr_granted > cap / 2 ? cap : g->gr_granted * 2;
	else if (g->gr_replies - g->gr_since >= g->gr_granted &&
		 (uint64_t)g->gr_busy * 2 < g->gr_granted &&
		 rpcrdma_grant_pressed(p))
		want = g->gr_granted / 2;
	/* Room held the last one back: still wanted, unless now a cut. */
	if (g->gr_desired > g->gr_granted && want >= g->gr_granted &&
	    g->gr_desired > want)
		want = g->gr_desired;
	if (want > cap)
		want = cap;
	if (want < g->gr_floor)
		want = g->gr_floor;
	return want ? want : 1;
}

/*
 * Send the Reply with grant v: the horizon reaches to this Reply's index
 * plus v, and what it adds past the old one is newly committed.
 */
static void grant_send(struct rpcrdma_grant_pool *p, struct rpcrdma_grant *g,
		       uint32_t v)
{
	uint64_t reach;
	bool renew = v != g->gr_granted ||
		     g->gr_replies - g->gr_since >= g->gr_granted;

	g->gr_replies++;
	reach = g->gr_replies + v;
	if (reach > g->gr_horizon) {
		p->gp_committed += reach - g->gr_horizon;
		g->gr_horizon = reach;
	}
	g->gr_granted = v;
	/* A new grant, or a whole one's worth of Replies measured: the need
	 * is measured anew, from what is unanswered now. */
	if (renew) {
		g->gr_since = g->gr_replies;
		g->gr_busy = (uint32_t)(g->gr_calls > g->gr_replies ?
					g->gr_calls - g->gr_replies : 0);
	}
}

/* The most grant v the Reply about to go can carry without new room
 * beyond what the pool has: the horizon already covers replies + 1 + v
 * for v up to this. */
static uint64_t grant_free_reach(const struct rpcrdma_grant *g)
{
	uint64_t next = g->gr_replies + 1;

	return g->gr_horizon > next ? g->gr_horizon - next : 0;
}

bool rpcrdma_grant_wants_back(const struct rpcrdma_grant_pool *p,
			      const struct rpcrdma_grant *g,
			      uint32_t requested)
{
	return p->gp_back && rpcrdma_grant_want(p, g, requested) >
			     grant_free_reach(g) + rpcrdma_grant_room(p);
}

uint32_t rpcrdma_grant_reply(struct rpcrdma_grant_pool *p,
			     struct rpcrdma_grant *g, uint32_t requested,
			     bool *limited)
{
	uint32_t want = rpcrdma_grant_want(p, g, requested);
	uint64_t most = grant_free_reach(g) + rpcrdma_grant_room(p);

	*limited = false;
	g->gr_desired = want;
	if (want > most) {
		*limited = true;
		want = (uint32_t)most;
	}
	if (!want)
		want = 1;	/* free: the Call answered held its share */
	if (rpcrdma_grant_short(p) && p->gp_max > p->gp_buffers)
		*limited = true;
	if (want > g->gr_granted)
		p->gp_raises++;
	else if (want < g->gr_granted)
		p->gp_cuts++;
	grant_send(p, g, want);
	return want;
}

uint32_t rpcrdma_grant_error(struct rpcrdma_grant_pool *p,
			     struct rpcrdma_grant *g)
{
	uint32_t v = g->gr_granted;

	/* The same grant again: its reach past the horizon is one more
	 * Reply's, which the answered Call's share pays for. */
	grant_send(p, g, v);
	return v;
}

void rpcrdma_grant_release(struct rpcrdma_grant_pool *p,
			   struct rpcrdma_grant *g)
{
	uint64_t share = rpcrdma_grant_share(g);

	p->gp_committed = p->gp_committed > share ? p->gp_committed - share : 0;
	if (p->gp_conns)
		p->gp_conns--;
	g->gr_horizon = g->gr_calls;
}

bool rpcrdma_grant_check(struct rpcrdma_grant_pool *p)
{
	if (p->gp_committed <= p->gp_posted)
		return true;
	p->gp_overcommits++;
	return false;
}

uint32_t rpcrdma_grant_batch(uint32_t n)
{
	uint32_t b = n / 16;

	return b < 1 ? 1 : b > RPCRDMA_GRANT_BATCH_MAX ? RPCRDMA_GRANT_BATCH_MAX : b;
}

bool rpcrdma_grant_refill_now(uint32_t back, uint32_t batch,
			      bool room_wanted)
{
	return back && (back >= batch || room_wanted);
}

uint32_t rpcrdma_grant_reserve(uint32_t n)
{
	uint32_t r = n / 16 > 8 ? n / 16 : 8;

	return r > n / 2 ? n / 2 : r;
}

uint32_t rpcrdma_srq_limit(uint32_t n)
{
	uint32_t r = rpcrdma_grant_reserve(n);

	return r + (n - r) / 8;
}

unsigned int rpcrdma_srq_classes(uint32_t inline_recv, uint32_t *sizes,
				 unsigned int max)
{
	/* What peers offer: RFC 8166's default and the Linux client's 4 KiB,
	 * 16 KiB, this library's 65 KiB (inline_send's default). */
	static const uint32_t steps[] = { 4096, 16384, 66560, 262144 };
	unsigned int i, n = 0;

	/* A class within twice of inline_recv is no saving: it goes. */
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]) && n + 1 < max; i++)
		if ((uint64_t)steps[i] * 2 <= inline_recv)
			sizes[n++] = steps[i];
	if (n < max)
		sizes[n++] = inline_recv;
	return n;
}

unsigned int rpcrdma_srq_class_order(const uint32_t *sizes, unsigned int n,
				     uint32_t want, unsigned int *order)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		if (sizes[i] >= want)
			order[k++] = i;
	for (i = n; i-- > 0;)
		if (sizes[i] < want)
			order[k++] = i;
	return k;
}
