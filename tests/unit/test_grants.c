/*
 * Unit test: credits granted by need (grants.c).  A connection is admitted
 * with one credit's share and refused when the posted receives cannot back
 * it; a busy client's grant doubles up to its ceiling (and what it asked),
 * an idle one's halves to its floor, room bounds a raise; RDMA_ERROR
 * repeats the grant; a Call past the horizon is refused; and a model of
 * many clients following RFC 8166's credit rule, with Calls and Replies in
 * flight in random order, never finds a receive missing for a Call
 * arriving and never sees "may still send" exceed "posted".
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grants.h"

static struct rpcrdma_grant_pool pool(uint32_t posted)
{
	return (struct rpcrdma_grant_pool){
		.gp_buffers = posted,
		.gp_posted = posted,
		.gp_reserve = rpcrdma_grant_reserve(posted),
	};
}

START_TEST(admit_and_refuse)
{
	struct rpcrdma_grant_pool p = pool(32);	/* reserve 8: room 24 */
	struct rpcrdma_grant g[30];
	int i;

	ck_assert_uint_eq(p.gp_reserve, 8);
	for (i = 0; i < 24; i++)
		ck_assert_int_eq(rpcrdma_grant_admit(&p, &g[i], 1, 32), 0);
	ck_assert_uint_eq(p.gp_committed, 24);
	ck_assert_int_eq(rpcrdma_grant_admit(&p, &g[24], 1, 32), -ENOSPC);
	ck_assert_uint_eq(p.gp_conns, 24);
	/* One leaves (its QP gone): its share is back. */
	rpcrdma_grant_release(&p, &g[3]);
	ck_assert_uint_eq(p.gp_committed, 23);
	ck_assert_int_eq(rpcrdma_grant_admit(&p, &g[24], 1, 32), 0);
	ck_assert_uint_eq(g[24].gr_granted, 1);
	ck_assert_uint_eq(rpcrdma_grant_share(&g[24]), 1);
}
END_TEST

/* One Call in, its receive back, its Reply out: the grant it carries. */
static uint32_t round_trip(struct rpcrdma_grant_pool *p, struct rpcrdma_grant *g,
			   uint32_t requested)
{
	bool limited;

	ck_assert_int_eq(rpcrdma_grant_call(p, g), 0);
	rpcrdma_grant_posted(p, 1);
	return rpcrdma_grant_reply(p, g, requested, &limited);
}

/*
 * The client keeps its whole grant busy: it sends until its Calls without
 * a Reply reach the grant of the last Reply (read at once); then one is
 * answered, its receive reposted first.
 */
static uint32_t busy_step(struct rpcrdma_grant_pool *p, struct rpcrdma_grant *g,
			  uint32_t requested, bool *limited)
{
	while (g->gr_calls - g->gr_replies < g->gr_granted)
		ck_assert_int_eq(rpcrdma_grant_call(p, g), 0);
	rpcrdma_grant_posted(p, 1);
	return rpcrdma_grant_reply(p, g, requested, limited);
}

START_TEST(raise_and_cut)
{
	struct rpcrdma_grant_pool p = pool(512);
	struct rpcrdma_grant g;
	uint32_t v, last, i;
	bool limited;

	ck_assert_int_eq(rpcrdma_grant_admit(&p, &g, 1, 32), 0);
	/* The first Reply grants what was asked, within the ceiling. */
	ck_assert_uint_eq(round_trip(&p, &g, 4), 4);
	/* Then, busy: doubled at once, 8 16 32, never past the ceiling. */
	for (last = 4, i = 0; i < 40; i++) {
		v = busy_step(&p, &g, 0, &limited);
		ck_assert(!limited);
		ck_assert_uint_ge(v, last);
		last = v;
		ck_assert(rpcrdma_grant_check(&p));
	}
	ck_assert_uint_eq(g.gr_granted, 32);
	ck_assert_uint_eq(p.gp_raises, 4);
	ck_assert_uint_eq(p.gp_cuts, 0);
	ck_assert_uint_eq(rpcrdma_grant_want(&p, &g, 0), 32);
	/* What it asked for bounds it too. */
	ck_assert_uint_eq(rpcrdma_grant_want(&p, &g, 8), 8);
	/* Its Calls answered, a burst draining: no cut while it drains. */
	while (g.gr_calls > g.gr_replies) {
		rpcrdma_grant_posted(&p, 1);
		ck_assert_uint_eq(rpcrdma_grant_reply(&p, &g, 0, &limited), 32);
	}
	/* Then one Call at a time, with room to spare: kept (a server that
	 * keeps up sees a busy client as nearly idle). */
	for (i = 0; i < 100; i++)
		ck_assert_uint_eq(round_trip(&p, &g, 0), 32);
	ck_assert_uint_eq(p.gp_cuts, 0);
	/* The queue short of room (others' shares): halved after each
	 * grant's worth of Replies, 16 8 4 2, where a lone caller stays. */
	p.gp_committed += rpcrdma_grant_room(&p) - 10;
	ck_assert(rpcrdma_grant_pressed(&p));
	for (last = 32, i = 0; i < 200; i++) {
		v = round_trip(&p, &g, 0);
		ck_assert_uint_le(v, last);
		last = v;
	}
	ck_assert_uint_eq(g.gr_granted, 2);
	ck_assert_uint_eq(p.gp_cuts, 4);
	ck_assert_uint_eq(p.gp_raises, 4);
	/* The share shrank with the cuts, one per Reply: back to the grant. */
	ck_assert_uint_eq(rpcrdma_grant_share(&g), 2);
	ck_assert(rpcrdma_grant_check(&p));
}
END_TEST

START_TEST(room_bounds_a_raise)
{
	/* 24 buffers of room: a busy client cannot take what another
	 * was promised. */
	struct rpcrdma_grant_pool p = pool(32);
	struct rpcrdma_grant a, b;
	bool limited, was_limited = false;
	uint32_t i;

	ck_assert_int_eq(rpcrdma_grant_admit(&p, &a, 1, 64), 0);
	ck_assert_int_eq(rpcrdma_grant_admit(&p, &b, 1, 64), 0);
	for (i = 0; i < 100; i++) {
		busy_step(&p, &a, 0, &limited);
		was_limited |= limited;
		ck_assert(rpcrdma_grant_check(&p));
		ck_assert_uint_le(p.gp_committed, p.gp_posted - p.gp_reserve);
	}
	ck_assert(was_limited);
	ck_assert_uint_ge(a.gr_granted, 16);
	ck_assert_uint_le(a.gr_granted, 23);
	ck_assert_uint_eq(p.gp_committed,
			  rpcrdma_grant_share(&a) + rpcrdma_grant_share(&b));
	/* Room comes back (a queue grown): the raise held back comes at
	 * the next Reply, though a is no busier than its grant. */
	p.gp_posted += 64;
	p.gp_buffers += 64;
	p.gp_reserve = rpcrdma_grant_reserve(p.gp_buffers);
	ck_assert_uint_gt(a.gr_desired, a.gr_granted);
	ck_assert_int_eq(rpcrdma_grant_call(&p, &a), 0);
	rpcrdma_grant_posted(&p, 1);
	ck_assert_uint_eq(rpcrdma_grant_reply(&p, &a, 0, &limited), a.gr_desired);
	ck_assert(!limited);
	ck_assert(rpcrdma_grant_check(&p));
	/* b still has its one Call, and its Reply grants at least 1. */
	ck_assert_uint_ge(round_trip(&p, &b, 64), 1);
	ck_assert(rpcrdma_grant_check(&p));
}
END_TEST

START_TEST(error_repeats_grant)
{
	struct rpcrdma_grant_pool p = pool(512);
	struct rpcrdma_grant g;

	ck_assert_int_eq(rpcrdma_grant_admit(&p, &g, 1, 32), 0);
	ck_assert_uint_eq(round_trip(&p, &g, 2), 2);
	ck_assert_int_eq(rpcrdma_grant_call(&p, &g), 0);
	rpcrdma_grant_posted(&p, 1);
	ck_assert_uint_eq(rpcrdma_grant_error(&p, &g), 2);
	ck_assert_uint_eq(g.gr_replies, 2);
	ck_assert_uint_eq(g.gr_horizon, 4);
	ck_assert(rpcrdma_grant_check(&p));
}
END_TEST

START_TEST(over_grant_refused)
{
	struct rpcrdma_grant_pool p = pool(512);
	struct rpcrdma_grant g;

	ck_assert_int_eq(rpcrdma_grant_admit(&p, &g, 1, 32), 0);
	/* One Call before the first Reply; a second is past the horizon. */
	ck_assert_int_eq(rpcrdma_grant_call(&p, &g), 0);
	ck_assert_int_eq(rpcrdma_grant_call(&p, &g), -EPROTO);
	/* Its receive is counted taken all the same; nothing committed left. */
	ck_assert_uint_eq(p.gp_posted, 510);
	ck_assert_uint_eq(p.gp_committed, 0);
}
END_TEST

START_TEST(dropped_gives_back)
{
	struct rpcrdma_grant_pool p = pool(512);
	struct rpcrdma_grant g;
	int i;

	ck_assert_int_eq(rpcrdma_grant_admit(&p, &g, 1, 32), 0);
	/* Junk dropped without an answer, again and again, within the one
	 * credit it has: never past its grant. */
	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(rpcrdma_grant_call(&p, &g), 0);
		rpcrdma_grant_posted(&p, 1);
		rpcrdma_grant_dropped(&p, &g);
		ck_assert(rpcrdma_grant_check(&p));
	}
	ck_assert_uint_eq(p.gp_committed, 1);
	ck_assert_uint_eq(rpcrdma_grant_share(&g), 1);
	/* Two at once, though, are past it. */
	ck_assert_int_eq(rpcrdma_grant_call(&p, &g), 0);
	ck_assert_int_eq(rpcrdma_grant_call(&p, &g), -EPROTO);
}
END_TEST

START_TEST(classes)
{
	uint32_t sizes[RPCRDMA_SRQ_CLASSES];
	unsigned int order[RPCRDMA_SRQ_CLASSES];

	ck_assert_uint_eq(rpcrdma_srq_classes(66560, sizes, RPCRDMA_SRQ_CLASSES), 3);
	ck_assert_uint_eq(sizes[0], 4096);
	ck_assert_uint_eq(sizes[1], 16384);
	ck_assert_uint_eq(sizes[2], 66560);
	/* 8 KiB: 4 KiB is half of it, a class; 6 KiB: no 4 KiB class. */
	ck_assert_uint_eq(rpcrdma_srq_classes(8192, sizes, RPCRDMA_SRQ_CLASSES), 2);
	ck_assert_uint_eq(rpcrdma_srq_classes(6144, sizes, RPCRDMA_SRQ_CLASSES), 1);
	ck_assert_uint_eq(rpcrdma_srq_classes(4096, sizes, RPCRDMA_SRQ_CLASSES), 1);
	ck_assert_uint_eq(sizes[0], 4096);
	ck_assert_uint_eq(rpcrdma_srq_classes(1024, sizes, RPCRDMA_SRQ_CLASSES), 1);
	ck_assert_uint_eq(sizes[0], 1024);
	/* 17 KiB (a client's inline_recv): 16 KiB is no saving. */
	ck_assert_uint_eq(rpcrdma_srq_classes(17408, sizes, RPCRDMA_SRQ_CLASSES), 2);
	ck_assert_uint_eq(sizes[1], 17408);
	/* 256 KiB: this library's 65 KiB offer keeps a class of its own. */
	ck_assert_uint_eq(rpcrdma_srq_classes(262144, sizes, RPCRDMA_SRQ_CLASSES), 4);
	ck_assert_uint_eq(sizes[2], 66560);
	ck_assert_uint_eq(sizes[3], 262144);
	/* Fewer slots: the last is always inline_recv. */
	ck_assert_uint_eq(rpcrdma_srq_classes(262144, sizes, 3), 3);
	ck_assert_uint_eq(sizes[2], 262144);

	rpcrdma_srq_classes(66560, sizes, RPCRDMA_SRQ_CLASSES);
	/* The Linux client's 4 KiB: 4 KiB first, then larger, none smaller. */
	ck_assert_uint_eq(rpcrdma_srq_class_order(sizes, 3, 4096, order), 3);
	ck_assert_uint_eq(order[0], 0);
	ck_assert_uint_eq(order[1], 1);
	ck_assert_uint_eq(order[2], 2);
	/* Ours, 65 KiB: its class, then the smaller ones, largest first. */
	rpcrdma_srq_class_order(sizes, 3, 66560, order);
	ck_assert_uint_eq(order[0], 2);
	ck_assert_uint_eq(order[1], 1);
	ck_assert_uint_eq(order[2], 0);
	/* 20 KiB: the 65 KiB class, then 16 KiB, then 4 KiB. */
	rpcrdma_srq_class_order(sizes, 3, 20480, order);
	ck_assert_uint_eq(order[0], 2);
	ck_assert_uint_eq(order[1], 1);
	/* RFC 8166's 1 KiB without private data: the smallest class. */
	rpcrdma_srq_class_order(sizes, 3, 1024, order);
	ck_assert_uint_eq(order[0], 0);
}
END_TEST

/*
 * The model: NC clients, each obeying RFC 8166 (a Call only while its
 * Calls without a Reply are fewer than the grant of the last Reply it
 * read, 1 before any), over RC (each direction in order).  The server
 * takes a Call off the wire only into a posted receive (asserted: a
 * missing one is an RNR, fatal on iWARP), answers Calls in any order,
 * reposting the receive before the Reply goes, and sometimes answers with
 * RDMA_ERROR; clients come and go.
 */
#define NC 12
#define WIRE 256

struct model_client {
	int live;
	struct rpcrdma_grant g;
	uint32_t credit;		/* the client's own view */
	uint32_t outstanding;		/* Calls without a Reply read */
	uint32_t to_srv, to_cli;	/* Calls, Replies on the wire */
	uint32_t rep_grant[WIRE];	/* grants of the Replies on the wire */
	uint32_t rep_head;
	uint32_t held;			/* Calls received, not answered */
	uint32_t lost;			/* Calls dropped: outstanding for good */
	uint32_t asked;
};

/*
 * Buffers given back: posted at once (batch 0), or held back and posted
 * as the queue does (rpcrdma_grant_refill_now, svc_srq.c).
 */
static void model_give_back(struct rpcrdma_grant_pool *p, uint32_t n,
			    uint32_t batch)
{
	p->gp_back += n;
	if (!batch || rpcrdma_grant_refill_now(p->gp_back, batch, false)) {
		rpcrdma_grant_posted(p, p->gp_back);
		p->gp_back = 0;
	}
}

/* Room was wanted: every buffer given back is posted. */
static void model_refill(struct rpcrdma_grant_pool *p)
{
	rpcrdma_grant_posted(p, p->gp_back);
	p->gp_back = 0;
}

/* What a model run did: the same for the same seed, batched or not. */
struct model_out {
	uint64_t arrivals, raises, cuts, refusals;
};

static struct model_out model_run(unsigned int seed, uint32_t buffers,
				  uint32_t batch)
{
	struct rpcrdma_grant_pool p = pool(buffers);
	struct model_client cl[NC];
	uint64_t steps, arrivals = 0, refusals = 0;
	int i;

	srand(seed);
	memset(cl, 0, sizeof(cl));
	for (steps = 0; steps < 200000; steps++) {
		struct model_client *m = &cl[rand() % NC];
		int what = rand() % 100;
		bool limited;

		if (!m->live) {
			/* A new connection: admitted if there is room. */
			if (what < 5) {
				struct rpcrdma_grant g;

				if (rpcrdma_grant_admit(&p, &g, 1, 64) &&
				    (!p.gp_back || (model_refill(&p),
						    rpcrdma_grant_admit(&p, &g, 1, 64)))) {
					refusals++;
					continue;
				}
				memset(m, 0, sizeof(*m));
				m->g = g;
				m->live = 1;
				m->credit = 1;
				m->asked = 1 + rand() % 64;
			}
			continue;
		}
		if (what < 35) {
			/* The client sends, if its credit allows. */
			if (m->outstanding < m->credit && m->to_srv + m->to_cli < WIRE) {
				m->outstanding++;
				m->to_srv++;
			}
		} else if (what < 60) {
			/* A Call arrives: it must find a receive posted. */
			if (m->to_srv) {
				ck_assert_msg(p.gp_posted > 0, "RNR: no receive posted");
				ck_assert_int_eq(rpcrdma_grant_call(&p, &m->g), 0);
				m->to_srv--;
				m->held++;
				arrivals++;
			}
		} else if (what < 85) {
			/* The server answers one: receive back, then the Reply. */
			if (m->held) {
				uint32_t v;

				m->held--;
				model_give_back(&p, 1, batch);
				if (what == 84) {
					/* Dropped: no Reply; the client keeps
					 * counting it (it never gives up here). */
					rpcrdma_grant_dropped(&p, &m->g);
					m->lost++;
				} else {
					/* Room that what was given back
					 * would give: posted first. */
					if (what < 83 &&
					    rpcrdma_grant_wants_back(&p, &m->g, m->asked))
						model_refill(&p);
					v = what < 83 ? rpcrdma_grant_reply(&p, &m->g, m->asked, &limited) :
							rpcrdma_grant_error(&p, &m->g);
					m->rep_grant[(m->rep_head + m->to_cli) % WIRE] = v;
					m->to_cli++;
				}
			}
		} else if (what < 99) {
			/* The client reads a Reply and its grant. */
			if (m->to_cli) {
				uint32_t v = m->rep_grant[m->rep_head];

				m->rep_head = (m->rep_head + 1) % WIRE;
				m->to_cli--;
				m->outstanding--;
				m->credit = v ? v : 1;
			}
		} else {
			/* The connection goes: its QP takes nothing more, the
			 * Calls it held and those on the wire are dropped. */
			model_give_back(&p, m->held, batch);
			rpcrdma_grant_release(&p, &m->g);
			m->live = 0;
		}
		/* Every Call on the wire has a receive; the promise holds. */
		{
			uint32_t wire = 0;

			for (i = 0; i < NC; i++)
				wire += cl[i].live ? cl[i].to_srv : 0;
			ck_assert_uint_le(wire, p.gp_posted);
		}
		ck_assert_msg(rpcrdma_grant_check(&p), "committed %llu > posted %u",
			      (unsigned long long)p.gp_committed, p.gp_posted);
	}
	ck_assert_uint_lt(p.gp_back, batch ? batch : 1);
	fprintf(stderr, "model seed %u buffers %u batch %u: arrivals %llu raises %llu cuts %llu refusals %llu\n", seed, buffers, batch, (unsigned long long)arrivals, (unsigned long long)p.gp_raises, (unsigned long long)p.gp_cuts, (unsigned long long)refusals);
	ck_assert_uint_gt(arrivals, 5000);
	ck_assert_uint_gt(p.gp_raises, 100);
	ck_assert_uint_gt(p.gp_cuts, 10);
	return (struct model_out){ arrivals, p.gp_raises, p.gp_cuts, refusals };
}

/*
 * Buffers given back in batches change no grant: a Reply that would
 * grant more with them posts them first (rpcrdma_grant_wants_back), an
 * admission that finds no room too, and shortage counts them as room.
 * So the same clients see the same grants, step for step.
 */
static void model_same(unsigned int seed, uint32_t buffers)
{
	struct model_out a = model_run(seed, buffers, 0);
	struct model_out b = model_run(seed, buffers,
				       rpcrdma_grant_batch(buffers));

	ck_assert_uint_eq(a.arrivals, b.arrivals);
	ck_assert_uint_eq(a.raises, b.raises);
	ck_assert_uint_eq(a.cuts, b.cuts);
	ck_assert_uint_eq(a.refusals, b.refusals);
}

/*
 * A queue that may still grow is short of room, never pressed: it asks
 * for buffers (limited) and cuts nobody; at its most buffers, it is
 * pressed and an idle connection is cut as before.
 */
START_TEST(short_grows_before_cutting)
{
	struct rpcrdma_grant_pool p = pool(64);
	struct rpcrdma_grant g;
	bool limited = false;
	uint32_t i, v;

	ck_assert_int_eq(rpcrdma_grant_admit(&p, &g, 1, 32), 0);
	ck_assert_uint_eq(round_trip(&p, &g, 0), 32);
	p.gp_max = 128;
	p.gp_committed += rpcrdma_grant_room(&p) - 4;	/* others' shares */
	ck_assert(rpcrdma_grant_short(&p));
	ck_assert(!rpcrdma_grant_pressed(&p));
	for (i = 0; i < 200; i++) {
		ck_assert_int_eq(rpcrdma_grant_call(&p, &g), 0);
		rpcrdma_grant_posted(&p, 1);
		v = rpcrdma_grant_reply(&p, &g, 0, &limited);
		ck_assert_uint_eq(v, 32);
		ck_assert(limited);
	}
	ck_assert_uint_eq(p.gp_cuts, 0);
	p.gp_max = p.gp_buffers;
	ck_assert(rpcrdma_grant_pressed(&p));
	for (i = 0; i < 200; i++)
		round_trip(&p, &g, 0);
	/* Cut while pressed (until its cuts gave back enough room). */
	ck_assert_uint_ge(p.gp_cuts, 1);
	ck_assert_uint_lt(g.gr_granted, 32);
	ck_assert(rpcrdma_grant_check(&p));
}
END_TEST

/*
 * The SRQ limit lies between the reserve, which granted Calls never
 * reach, and the buffers: Calls holding seven eighths of what the grants
 * can hand out bring the posted receives under it, and fewer do not.
 */
START_TEST(srq_limit)
{
	static const uint32_t ns[] = { 32, 64, 96, 512, 1024, 1048576 };
	unsigned int i;

	ck_assert_uint_eq(rpcrdma_srq_limit(32), 8 + 3);
	ck_assert_uint_eq(rpcrdma_srq_limit(512), 32 + 60);
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		uint32_t n = ns[i], r = rpcrdma_grant_reserve(n);
		uint32_t lim = rpcrdma_srq_limit(n), grantable = n - r;

		ck_assert_uint_gt(lim, r);
		ck_assert_uint_lt(lim, n);
		/* Calls held: n - posted.  All the grantable ones: under. */
		ck_assert_uint_lt(n - grantable, lim);
		/* Three quarters of them: not yet. */
		ck_assert_uint_ge(n - grantable * 3 / 4, lim);
	}
}
END_TEST

/*
 * The refill batch is a sixteenth of the queue within 1..16; a queue
 * whose room was wanted posts every buffer given back.
 */
START_TEST(refill_batches)
{
	ck_assert_uint_eq(rpcrdma_grant_batch(8), 1);
	ck_assert_uint_eq(rpcrdma_grant_batch(32), 2);
	ck_assert_uint_eq(rpcrdma_grant_batch(128), 8);
	ck_assert_uint_eq(rpcrdma_grant_batch(1024), RPCRDMA_GRANT_BATCH_MAX);
	ck_assert_uint_eq(rpcrdma_grant_batch(1u << 20), RPCRDMA_GRANT_BATCH_MAX);
	ck_assert(rpcrdma_grant_batch(1024) <= rpcrdma_grant_reserve(1024));
	/* Only a whole batch goes, or any when room is wanted. */
	ck_assert(!rpcrdma_grant_refill_now(0, 16, false));
	ck_assert(!rpcrdma_grant_refill_now(15, 16, false));
	ck_assert(rpcrdma_grant_refill_now(16, 16, false));
	ck_assert(rpcrdma_grant_refill_now(1, 16, true));
	ck_assert(!rpcrdma_grant_refill_now(0, 16, true));
}
END_TEST

START_TEST(model_many_clients)
{
	/* Each unbatched, then batched (the promise holds all the same). */
	model_same(3, 32);	/* tight: raises limited by room */
	model_same(2, 64);
	model_same(1, 512);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("grants");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, admit_and_refuse);
	tcase_add_test(tc, raise_and_cut);
	tcase_add_test(tc, room_bounds_a_raise);
	tcase_add_test(tc, error_repeats_grant);
	tcase_add_test(tc, over_grant_refused);
	tcase_add_test(tc, dropped_gives_back);
	tcase_add_test(tc, classes);
	tcase_add_test(tc, srq_limit);
	tcase_add_test(tc, short_grows_before_cutting);
	tcase_add_test(tc, refill_batches);
	tcase_add_test(tc, model_many_clients);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
