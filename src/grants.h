/*
 * Credits granted by need (RFC 8166 section 3.3.1) to the connections of
 * one shared receive queue, and which of its size classes a connection
 * gets.  Pure (grants.c), unit-tested natively; svc_srq.c locks and calls.
 *
 * The invariant every function here keeps: the Calls the clients may
 * still send (gp_committed) never exceed the receives posted (gp_posted).
 * A client sends a Call only while its Calls without a Reply are fewer
 * than the grant of the last Reply it read (it starts with one), so after
 * Replies 1..R carrying grants g1..gR it has sent at most
 * H = max(1, max over j of j + gj) Calls: its horizon.  Of those, the
 * server received gr_calls; the rest, H - gr_calls, may still arrive and
 * each needs a posted receive.  A Reply can only raise H (by as much as
 * its grant reaches past it), a received Call moves one from "may arrive"
 * to "arrived" and takes one posted receive, and a connection's share goes
 * only once its QP can consume no more receives.  So a grant is cut
 * simply by granting less: H stays, and the share shrinks by one per
 * Reply as the client's older grant runs out.
 */
#ifndef RPCRDMA_GRANTS_H
#define RPCRDMA_GRANTS_H

#include <stdbool.h>
#include <stdint.h>

/* The receives of one shared queue and what its connections may use. */
struct rpcrdma_grant_pool {
	uint32_t gp_buffers;		/* receive buffers the queue owns */
	uint32_t gp_posted;		/* of them, posted now */
	uint32_t gp_reserve;		/* posted but never granted: a peer
					 * over its grant takes these first */
	uint32_t gp_back;		/* given back by served Calls, to be
					 * posted with the next batch: never
					 * granted before, but no shortage */
	uint64_t gp_committed;		/* Calls the clients may still send */
	uint32_t gp_conns;		/* connections holding a share */
	uint32_t gp_max;		/* buffers it may grow to (0 or at
					 * most gp_buffers: it cannot grow) */
	uint64_t gp_raises, gp_cuts;	/* Replies that raised, cut a grant */
	uint64_t gp_overcommits;	/* times committed > posted was seen:
					 * a bug, never expected */
};

/* One connection's grant. */
struct rpcrdma_grant {
	uint64_t gr_calls;		/* Calls received */
	uint64_t gr_replies;		/* Replies sent (each carried a grant) */
	uint64_t gr_horizon;		/* most Calls the client may have sent */
	uint32_t gr_granted;		/* the grant of the last Reply (1 before) */
	uint32_t gr_desired;		/* what the policy wanted then: room may
					 * have granted less, tried again next */
	uint32_t gr_busy;		/* most Calls without a Reply at once
					 * since gr_since: its need */
	uint64_t gr_since;		/* Replies when gr_busy began */
	uint32_t gr_floor, gr_ceiling;	/* bounds of gr_granted */
};

/* The Calls the client may still send: its share of the posted receives. */
static inline uint64_t rpcrdma_grant_share(const struct rpcrdma_grant *g)
{
	return g->gr_horizon > g->gr_calls ? g->gr_horizon - g->gr_calls : 0;
}

/* Posted receives not yet promised to anyone (the reserve excluded). */
uint64_t rpcrdma_grant_room(const struct rpcrdma_grant_pool *p);

/*
 * A new connection: its floor's share, one Call before the first Reply.
 * 0, or -ENOSPC when the posted receives cannot back it (nothing taken).
 */
int rpcrdma_grant_admit(struct rpcrdma_grant_pool *p, struct rpcrdma_grant *g,
			uint32_t floor, uint32_t ceiling);

/*
 * A Call arrived on the connection, taking one posted receive.  0, or
 * -EPROTO when it is past the client's horizon (it sent beyond its
 * grant): the receive is counted taken either way.
 */
int rpcrdma_grant_call(struct rpcrdma_grant_pool *p, struct rpcrdma_grant *g);

/*
 * A Call dropped without an answer, its receive posted again: it is
 * taken off the connection's Calls, so the client's credit for it comes
 * back on our books (the client may count it outstanding until it gives
 * up on it: that only makes it send less).  So a peer whose junk the
 * server drops is never closed for it.  Call it after the repost.
 */
void rpcrdma_grant_dropped(struct rpcrdma_grant_pool *p,
			   struct rpcrdma_grant *g);

/* A receive of the queue failed or was flushed: taken, no Call. */
void rpcrdma_grant_lost(struct rpcrdma_grant_pool *p);

/* n receives posted (back) to the queue. */
void rpcrdma_grant_posted(struct rpcrdma_grant_pool *p, uint32_t n);

/*
 * The grant a connection's policy wants for its next Reply, before room
 * is asked: its first Reply, all it asked for; then a client that has
 * every credit busy gets twice as many at once; and while the queue is
 * short of room (rpcrdma_grant_pressed), one that kept fewer than half
 * of them busy over a whole grant's worth of Replies (a burst draining is
 * not idleness) gets half as many, so that others can be raised.  Within
 * [floor, ceiling] and never past what it asked for (requested, its
 * Calls' rdma_credit; 0: not said).  A lone caller settles at 2.  What
 * room cut short is wanted again by the next Reply (the queue grows
 * meanwhile), unless that one cuts.
 *
 * Why no cut without pressure: the server sees only the Calls it has
 * received and not answered, and a server that keeps up answers each as
 * it comes, so a client with all its credits busy looks nearly idle from
 * here (its Calls and Replies are on the wire); cutting it would only
 * throttle it.
 */
uint32_t rpcrdma_grant_want(const struct rpcrdma_grant_pool *p,
			    const struct rpcrdma_grant *g, uint32_t requested);
/*
 * Less than a quarter of the queue's buffers free: room, and those given
 * back and waiting for their batch's post (a batch is no shortage).
 */
bool rpcrdma_grant_short(const struct rpcrdma_grant_pool *p);
/*
 * The queue is pressed: short of room and at the most buffers it may
 * have.  Why not short alone: a queue that can grow is grown instead
 * (rpcrdma_grant_reply's *limited), and cutting a busy client there
 * throttled it for nothing (128 blocking callers of one CLIENT were held
 * to 64 credits, cut and raised in turn).
 */
bool rpcrdma_grant_pressed(const struct rpcrdma_grant_pool *p);

/*
 * The Reply to one of the connection's Calls goes now: the grant it
 * carries, what the posted receives allow of rpcrdma_grant_want().  Never
 * less than 1 (a client reads 0 as 1), which costs no room: the Call
 * answered held the share it gives.  *limited: room cut the raise, or
 * the queue is short of room and may grow (the caller adds buffers).
 */
uint32_t rpcrdma_grant_reply(struct rpcrdma_grant_pool *p,
			     struct rpcrdma_grant *g, uint32_t requested,
			     bool *limited);

/*
 * An RDMA_ERROR answering a Call: the client takes it as that Call's
 * Reply but may not read its credits, so it repeats the last grant.
 */
uint32_t rpcrdma_grant_error(struct rpcrdma_grant_pool *p,
			     struct rpcrdma_grant *g);

/* The connection's QP consumes no more receives: its share goes back. */
void rpcrdma_grant_release(struct rpcrdma_grant_pool *p,
			   struct rpcrdma_grant *g);

/* Whether the invariant holds now (counted in gp_overcommits if not). */
bool rpcrdma_grant_check(struct rpcrdma_grant_pool *p);

/*
 * Served Calls' buffers are given back to a queue in batches: one post
 * (and one pass under the queue's lock) for several.  The batch of a
 * queue of n buffers: n / 16, within 1..RPCRDMA_GRANT_BATCH_MAX, so the
 * buffers held back never reach the reserve's size.
 */
#define RPCRDMA_GRANT_BATCH_MAX 16
uint32_t rpcrdma_grant_batch(uint32_t n);
/*
 * Whether back buffers given back and not yet posted are to be posted
 * now: a whole batch, or any when room is wanted (a connection to admit
 * finds none; rpcrdma_grant_wants_back): before the queue grows.
 */
bool rpcrdma_grant_refill_now(uint32_t back, uint32_t batch,
			      bool room_wanted);
/*
 * Whether the next Reply to g's Calls would grant less than its policy
 * wants (rpcrdma_grant_want) for want of room that the buffers given
 * back (gp_back) would give: they are posted first, so a batch never
 * changes a grant.
 */
bool rpcrdma_grant_wants_back(const struct rpcrdma_grant_pool *p,
			      const struct rpcrdma_grant *g,
			      uint32_t requested);

/* The reserve of a queue of n buffers: max(8, n / 16), at most n / 2. */
uint32_t rpcrdma_grant_reserve(uint32_t n);
/*
 * The SRQ limit of a queue of n buffers: its reserve plus an eighth of
 * the rest.  Posted receives below it mean nearly every buffer the grants
 * can hand out holds a Call (svc_srq.c, srq_arm).
 */
uint32_t rpcrdma_srq_limit(uint32_t n);

/*
 * Size classes of shared receive buffers: of 4 KiB, 16 KiB, 65 KiB and
 * 256 KiB, those at most half the listener's inline_recv, then
 * inline_recv itself (4, 16 and 65 KiB at the defaults), ascending.  The number of
 * classes written to sizes (at most max).
 */
#define RPCRDMA_SRQ_CLASSES 4
unsigned int rpcrdma_srq_classes(uint32_t inline_recv, uint32_t *sizes,
				 unsigned int max);

/*
 * The order in which a connection whose client Sends at most want bytes
 * tries the classes: those that hold want, smallest first; then the
 * smaller ones, largest first (its client is told the smaller receive
 * size, RFC 8797, and sends larger Calls in chunks).  Returns n.
 */
unsigned int rpcrdma_srq_class_order(const uint32_t *sizes, unsigned int n,
				     uint32_t want, unsigned int *order);

#endif /* RPCRDMA_GRANTS_H */
