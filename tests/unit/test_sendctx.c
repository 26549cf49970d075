/*
 * Unit test: the send-context ring hands out contexts in order, wraps,
 * starts again at 0 when empty,
 * signals on cadence, on caller memory and when the ring fills, and never
 * gets stuck full with no signaled Send left to complete it; sized over
 * the credits, it has a context for every call a credit lets start.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "sendctx.h"

/* Get, decide and return the signal decision, asserting each step works. */
static int post(struct rpcrdma_sendctx_ring *r, bool refs, int *idxp)
{
	int idx = rpcrdma_sendctx_get(r);
	int sig;

	ck_assert_int_ge(idx, 0);
	sig = rpcrdma_sendctx_needs_signal(r, (unsigned int)idx, refs);
	ck_assert_int_ge(sig, 0);
	if (idxp)
		*idxp = idx;
	return sig;
}

START_TEST(init_rejects_zero)
{
	struct rpcrdma_sendctx_ring r;

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 0, 1), -EINVAL);
	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 4, 0), -EINVAL);
	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 4, 1), 0);
	ck_assert_uint_eq(rpcrdma_sendctx_in_use(&r), 0);
}
END_TEST

START_TEST(fill_and_empty)
{
	struct rpcrdma_sendctx_ring r;
	int i, idx;

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 8, 1), 0);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(post(&r, false, &idx), 1);
		ck_assert_int_eq(idx, i);
	}
	ck_assert_uint_eq(rpcrdma_sendctx_in_use(&r), 8);
	ck_assert_int_eq(rpcrdma_sendctx_get(&r), -EAGAIN);
	ck_assert_int_eq(rpcrdma_sendctx_get(&r), -EAGAIN);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(rpcrdma_sendctx_complete(&r, i), 1);
		ck_assert_uint_eq(rpcrdma_sendctx_in_use(&r), 7 - i);
	}
	ck_assert_int_eq(rpcrdma_sendctx_get(&r), 0);
}
END_TEST

/*
 * A non-power-of-two size, many laps, indices strictly in order while the
 * ring never empties and has little free at its front: each completion
 * comes three Sends late.
 */
START_TEST(wrap_around)
{
	struct rpcrdma_sendctx_ring r;
	unsigned int n, expect = 0;
	int idx, lag[3] = { -1, -1, -1 };

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 5, 1), 0);
	for (n = 0; n < 100000; n++) {
		idx = rpcrdma_sendctx_get(&r);
		if (idx != (int)expect ||
		    rpcrdma_sendctx_needs_signal(&r, (unsigned int)idx, false) != 1)
			ck_abort_msg("send %u: idx %d", n, idx);
		expect = (expect + 1) % 5;
		if (lag[0] >= 0 && (rpcrdma_sendctx_complete(&r, lag[0]) != 1 ||
				    rpcrdma_sendctx_in_use(&r) != 3))
			ck_abort_msg("send %u: bad release", n);
		lag[0] = lag[1];
		lag[1] = lag[2];
		lag[2] = idx;
	}
}
END_TEST

/*
 * With room at its front, the ring goes back to 0 rather than take a
 * context it never used: 32 to 40 Sends unreleased (signaled every 8,
 * the oldest signaled one completing whenever 40 are out) keep to about
 * 50 of 136 contexts, never refused.
 */
START_TEST(keeps_to_what_it_uses)
{
	struct rpcrdma_sendctx_ring r;
	int out[136], sig[136], n_out = 0, idx, i, k;
	unsigned int n, highest = 0;

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 136, 8), 0);
	for (n = 0; n < 100000; n++) {
		idx = rpcrdma_sendctx_get(&r);
		if (idx < 0)
			ck_abort_msg("send %u refused, %d out", n, n_out);
		if ((unsigned int)idx > highest)
			highest = (unsigned int)idx;
		out[n_out] = idx;
		sig[n_out++] = rpcrdma_sendctx_needs_signal(&r, idx, false);
		if (n_out < 40)
			continue;
		for (k = 0; !sig[k]; k++)
			;
		if (rpcrdma_sendctx_complete(&r, out[k]) != k + 1)
			ck_abort_msg("send %u: bad release", n);
		for (i = k + 1; i < n_out; i++) {
			out[i - k - 1] = out[i];
			sig[i - k - 1] = sig[i];
		}
		n_out -= k + 1;
	}
	ck_assert_uint_le(highest, 56);
}
END_TEST

/*
 * An empty ring starts again at 0, so a connection that never has more
 * than a few Sends unreleased only uses (and registers the buffers of)
 * the first few contexts: one call at a time, signaled every 8, keeps to
 * 0..7 of 40 whatever how long it runs.
 */
START_TEST(empty_restarts_at_zero)
{
	struct rpcrdma_sendctx_ring r;
	unsigned int n, highest = 0;
	int idx, a, b;

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 40, 8), 0);
	for (n = 0; n < 1000; n++) {
		if (post(&r, false, &idx))
			ck_assert_int_eq(rpcrdma_sendctx_complete(&r, idx), 8);
		if ((unsigned int)idx > highest)
			highest = (unsigned int)idx;
	}
	ck_assert_uint_eq(highest, 7);
	/* Emptied by a flushed (unsignaled) one, too; not while one is out. */
	post(&r, false, &a);
	post(&r, false, &b);
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, a), 1);
	ck_assert_int_eq(rpcrdma_sendctx_get(&r), b + 1);
	ck_assert_int_eq(rpcrdma_sendctx_needs_signal(&r, b + 1, false), 0);
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, b + 1), 2);
	ck_assert_int_eq(rpcrdma_sendctx_get(&r), 0);
}
END_TEST

static void check_cadence(unsigned int size, unsigned int every)
{
	struct rpcrdma_sendctx_ring r;
	unsigned int k;
	int idx;

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, size, every), 0);
	for (k = 1; k <= 10 * size; k++) {
		int sig = post(&r, false, &idx);

		ck_assert_int_eq(sig, k % every == 0);
		if (sig)
			rpcrdma_sendctx_complete(&r, idx);
	}
}

START_TEST(cadence)
{
	check_cadence(16, 1);
	check_cadence(16, 4);
	check_cadence(16, 16);
	check_cadence(7, 7);
}
END_TEST

/* Caller memory forces a signal and restarts the count. */
START_TEST(cadence_with_caller_memory)
{
	struct rpcrdma_sendctx_ring r;
	static const bool refs[] = { 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0 };
	static const int want[] = { 0, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1 };
	unsigned int i;

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 64, 4), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_int_eq(post(&r, refs[i], NULL), want[i]);
}
END_TEST

/* Cadence longer than the ring: the Send that fills it is signaled. */
START_TEST(signal_when_ring_fills)
{
	struct rpcrdma_sendctx_ring r;
	int lap, i, idx;

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 4, 100), 0);
	for (lap = 0; lap < 10; lap++) {
		for (i = 0; i < 3; i++)
			ck_assert_int_eq(post(&r, false, NULL), 0);
		ck_assert_int_eq(post(&r, false, &idx), 1);
		ck_assert_int_eq(rpcrdma_sendctx_get(&r), -EAGAIN);
		ck_assert_int_eq(rpcrdma_sendctx_complete(&r, idx), 4);
	}
	/* a fill that a completion undoes between get and post is not full */
	for (i = 0; i < 3; i++)
		post(&r, false, NULL);
	idx = rpcrdma_sendctx_get(&r);
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, (idx + 3) % 4), 3);
	ck_assert_int_eq(rpcrdma_sendctx_needs_signal(&r, idx, false), 0);
}
END_TEST

START_TEST(release_several)
{
	struct rpcrdma_sendctx_ring r;
	int i, idx[6];

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 8, 4), 0);
	for (i = 0; i < 6; i++)
		post(&r, false, &idx[i]);
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, idx[3]), 4);
	ck_assert_uint_eq(rpcrdma_sendctx_in_use(&r), 2);
	/* a flushed (unsignaled) Send may complete too, in order */
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, idx[5]), 2);
	ck_assert_uint_eq(rpcrdma_sendctx_in_use(&r), 0);
}
END_TEST

START_TEST(complete_rejects_not_outstanding)
{
	struct rpcrdma_sendctx_ring r;
	int i, a, b, c;

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 4, 1), 0);
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, 0), -EINVAL);	/* empty */
	for (i = 0; i < 4; i++)			/* move the ring off index 0 */
		post(&r, false, &a);		/* (emptied, it starts at 0) */
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, 2), 3);	/* a: 3 */
	post(&r, false, &b);			/* 0: wrapped */
	c = rpcrdma_sendctx_get(&r);		/* 1: handed out, not posted */
	ck_assert_int_eq(a, 3);
	ck_assert_int_eq(b, 0);
	ck_assert_int_eq(c, 1);
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, 4), -EINVAL);
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, 2), -EINVAL);	/* free */
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, c), -EINVAL);	/* unposted */
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, a), 1);
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, a), -EINVAL);	/* twice */
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, b), 1);
	ck_assert_uint_eq(rpcrdma_sendctx_in_use(&r), 1);
}
END_TEST

START_TEST(decide_and_unget_misuse)
{
	struct rpcrdma_sendctx_ring r;
	int a, b;

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 4, 2), 0);
	ck_assert_int_eq(rpcrdma_sendctx_needs_signal(&r, 0, false), -EINVAL);
	a = rpcrdma_sendctx_get(&r);
	b = rpcrdma_sendctx_get(&r);
	ck_assert_int_eq(rpcrdma_sendctx_needs_signal(&r, b, false), -EINVAL);
	ck_assert_int_eq(rpcrdma_sendctx_unget(&r, a), -EINVAL);	/* not newest */
	ck_assert_int_eq(rpcrdma_sendctx_unget(&r, b), 0);
	ck_assert_int_eq(rpcrdma_sendctx_needs_signal(&r, a, false), 0);
	ck_assert_int_eq(rpcrdma_sendctx_needs_signal(&r, a, false), -EINVAL);
	ck_assert_int_eq(rpcrdma_sendctx_unget(&r, a), -EINVAL);	/* posted */
	ck_assert_int_eq(rpcrdma_sendctx_get(&r), b);			/* reused */
	ck_assert_uint_eq(rpcrdma_sendctx_in_use(&r), 2);
}
END_TEST

/* ---- randomized no-deadlock simulation ---------------------------------- */
/* Check's asserts write to its log on every call; hot loops only on failure. */
#define SIM_CHECK(cond) do { if (!(cond)) ck_abort_msg("failed: " #cond \
	" (size %u every %u refs %u%% step %u)", size, every, ref_pct, step); } while (0)

static uint64_t rng_state;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

#define SIM_MAX 64

/*
 * Model: the posted Sends in order with their signal bit; the HCA
 * completes only signaled ones, oldest first, at random moments.  A full
 * ring must always have a signaled Send outstanding (or a context the
 * sender still holds), else it would wait forever.
 */
static void simulate(unsigned int size, unsigned int every, unsigned int ref_pct,
		     uint64_t seed)
{
	struct rpcrdma_sendctx_ring r;
	int q_idx[SIM_MAX];
	bool q_sig[SIM_MAX];
	unsigned int q_len = 0, held = 0, step, waits = 0;
	int held_idx[2];

	rng_state = seed;
	if (rpcrdma_sendctx_init(&r, size, every))
		ck_abort_msg("init");
	for (step = 0; step < 20000; step++) {
		unsigned int sig_out = 0, i, op = rng() % 100;
		/* alternate slow and fast completion phases so the ring fills */
		unsigned int comp_pct = (step / 1000) % 2 ? 60 : 5;

		for (i = 0; i < q_len; i++)
			sig_out += q_sig[i];
		SIM_CHECK(rpcrdma_sendctx_in_use(&r) == q_len + held);

		if (op < comp_pct && sig_out) {
			/* the oldest signaled Send completes */
			unsigned int k = 0;
			int n;

			while (!q_sig[k])
				k++;
			n = rpcrdma_sendctx_complete(&r, q_idx[k]);
			SIM_CHECK(n == (int)k + 1);
			for (i = k + 1; i < q_len; i++) {
				q_idx[i - k - 1] = q_idx[i];
				q_sig[i - k - 1] = q_sig[i];
			}
			q_len -= k + 1;
		} else if (held && (op < comp_pct + 30 || held == 2)) {
			/* post the oldest held context, or give the newest back */
			bool refs = rng() % 100 < ref_pct;
			int sig;

			if (rng() % 10 == 0) {
				SIM_CHECK(rpcrdma_sendctx_unget(&r,
						 held_idx[held - 1]) == 0);
				held--;
				continue;
			}
			sig = rpcrdma_sendctx_needs_signal(&r, held_idx[0], refs);
			SIM_CHECK(sig >= 0);
			if (refs)
				SIM_CHECK(sig == 1);
			q_idx[q_len] = held_idx[0];
			q_sig[q_len++] = sig;
			held_idx[0] = held_idx[1];
			held--;
		} else {
			int idx = rpcrdma_sendctx_get(&r);

			if (idx == -EAGAIN) {
				waits++;
				/* Full: all of it, or all it kept to, which is
				 * more than a signaled Send's worth. */
				SIM_CHECK(q_len + held == size ||
					  q_len + held > every);
				/* the deadlock we must never reach */
				SIM_CHECK(sig_out > 0 || held > 0);
				continue;
			}
			SIM_CHECK(idx >= 0);
			held_idx[held++] = idx;
		}
	}
	SIM_CHECK(waits > 0);	/* the full ring was exercised */
}

START_TEST(no_deadlock_random)
{
	static const unsigned int sizes[] = { 1, 2, 3, 4, 7, 16, 32 };
	static const unsigned int pcts[] = { 0, 5, 50 };
	unsigned int s, p;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		unsigned int n = sizes[s];
		unsigned int everies[] = { 1, 4, n, n + 1, 3 * n + 5, 1000 };
		unsigned int e;

		for (e = 0; e < sizeof(everies) / sizeof(everies[0]); e++)
			for (p = 0; p < sizeof(pcts) / sizeof(pcts[0]); p++)
				simulate(n, everies[e], pcts[p], seed++);
	}
}
END_TEST

/*
 * The post queue: contexts queued as decided come out oldest first, over
 * the ring's wrap, while completions of posted ones release others; a
 * context queued twice, out of order, or not decided is refused.
 */
START_TEST(queue_in_order_over_wrap)
{
	struct rpcrdma_sendctx_ring r;
	unsigned int lap, i, next = 0;
	int idx;

	/* Signaled every 5 (the ring's size): it never goes back to 0 early. */
	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 5, 5), 0);
	ck_assert_int_eq(rpcrdma_sendctx_next_queued(&r), -EAGAIN);
	ck_assert_int_eq(rpcrdma_sendctx_dequeue(&r), -EAGAIN);
	for (lap = 0; lap < 7; lap++) {
		unsigned int ids[3];

		/* Three decided and queued, then posted in order. */
		for (i = 0; i < 3; i++) {
			post(&r, false, &idx);
			ck_assert_int_eq(rpcrdma_sendctx_queue(&r, (unsigned)idx), 0);
		}
		for (i = 0; i < 3; i++) {
			ck_assert_int_eq(rpcrdma_sendctx_next_queued(&r),
					 (int)next);
			ck_assert_int_eq(rpcrdma_sendctx_dequeue(&r), 0);
			ids[i] = next;
			next = (next + 1) % 5;
		}
		ck_assert_int_eq(rpcrdma_sendctx_next_queued(&r), -EAGAIN);
		/* The middle one's completion releases it and the older
		 * ones (the last lap's newest too); this lap's newest stays,
		 * so the ring never empties and goes round. */
		ck_assert_int_eq(rpcrdma_sendctx_complete(&r, ids[1]),
				 lap ? 3 : 2);
		ck_assert_uint_eq(rpcrdma_sendctx_in_use(&r), 1);
	}
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, (next + 4) % 5), 1);
	ck_assert_uint_eq(rpcrdma_sendctx_in_use(&r), 0);
}
END_TEST

START_TEST(queue_interleaved_with_completions)
{
	struct rpcrdma_sendctx_ring r;
	int a, b, c;

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 4, 1), 0);
	post(&r, false, &a);
	ck_assert_int_eq(rpcrdma_sendctx_queue(&r, (unsigned)a), 0);
	post(&r, false, &b);
	ck_assert_int_eq(rpcrdma_sendctx_queue(&r, (unsigned)b), 0);
	/* a is posted and completes while b still waits to be posted. */
	ck_assert_int_eq(rpcrdma_sendctx_next_queued(&r), a);
	ck_assert_int_eq(rpcrdma_sendctx_dequeue(&r), 0);
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, (unsigned)a), 1);
	post(&r, false, &c);
	ck_assert_int_eq(rpcrdma_sendctx_queue(&r, (unsigned)c), 0);
	ck_assert_int_eq(rpcrdma_sendctx_next_queued(&r), b);
	ck_assert_int_eq(rpcrdma_sendctx_dequeue(&r), 0);
	ck_assert_int_eq(rpcrdma_sendctx_next_queued(&r), c);
	ck_assert_int_eq(rpcrdma_sendctx_dequeue(&r), 0);
	ck_assert_int_eq(rpcrdma_sendctx_dequeue(&r), -EAGAIN);
	ck_assert_int_eq(rpcrdma_sendctx_complete(&r, (unsigned)c), 2);
	ck_assert_uint_eq(rpcrdma_sendctx_in_use(&r), 0);
}
END_TEST

START_TEST(queue_misuse)
{
	struct rpcrdma_sendctx_ring r;
	int a, b, u;

	ck_assert_int_eq(rpcrdma_sendctx_init(&r, 4, 1), 0);
	ck_assert_int_eq(rpcrdma_sendctx_queue(&r, 0), -EINVAL); /* none decided */
	post(&r, false, &a);
	post(&r, false, &b);
	/* Not the newest decided. */
	ck_assert_int_eq(rpcrdma_sendctx_queue(&r, (unsigned)a), -EINVAL);
	ck_assert_int_eq(rpcrdma_sendctx_queue(&r, (unsigned)b), 0);
	/* Twice. */
	ck_assert_int_eq(rpcrdma_sendctx_queue(&r, (unsigned)b), -EINVAL);
	/* Handed out, not decided. */
	u = rpcrdma_sendctx_get(&r);
	ck_assert_int_ge(u, 0);
	ck_assert_int_eq(rpcrdma_sendctx_queue(&r, (unsigned)u), -EINVAL);
	ck_assert_int_eq(rpcrdma_sendctx_queue(&r, 99), -EINVAL);
	ck_assert_int_eq(rpcrdma_sendctx_next_queued(&r), b);
}
END_TEST

/*
 * credits calls in flight, one Send each; each turn the oldest call's
 * Reply comes with its Send's completion (seen only if that Send was
 * signaled: then it frees every context up to it), and the credit it gave
 * back starts a call at once.  Returns the first turn whose call found no
 * context, or -1 if none did in @turns.
 */
static int first_call_without_context(unsigned int size, unsigned int credits,
				      unsigned int every, unsigned int turns)
{
	struct rpcrdma_sendctx_ring r;
	int idx[1024], sig[1024];
	unsigned int head = 0, tail = 0, t;

	ck_assert_uint_le(credits, 1024);
	ck_assert_int_eq(rpcrdma_sendctx_init(&r, size, every), 0);
	for (; tail < credits; tail++)
		sig[tail % 1024] = post(&r, false, &idx[tail % 1024]);
	for (t = 0; t < turns; t++, head++, tail++) {
		int i;

		if (sig[head % 1024])
			ck_assert_int_gt(rpcrdma_sendctx_complete(&r, (unsigned int)idx[head % 1024]), 0);
		i = rpcrdma_sendctx_get(&r);
		if (i < 0)
			return (int)t;
		idx[tail % 1024] = i;
		sig[tail % 1024] = rpcrdma_sendctx_needs_signal(&r, (unsigned int)i, false);
		ck_assert_int_ge(sig[tail % 1024], 0);
	}
	return -1;
}

/* A client's ring has signal_every contexts over its credits: a call whose
 * credit came back finds one even while the unsignaled Sends before the
 * next signaled one wait for it; with one per credit it does not. */
START_TEST(ring_size_over_credits)
{
	static const unsigned int every[] = { 1, 2, 8, 16, 31 };
	unsigned int i;

	ck_assert_uint_eq(rpcrdma_sendctx_ring_size(32, 8, false), 32);
	ck_assert_uint_eq(rpcrdma_sendctx_ring_size(32, 8, true), 40);
	ck_assert_uint_eq(rpcrdma_sendctx_ring_size(32, 1, true), 33);
	ck_assert_uint_eq(rpcrdma_sendctx_ring_size(4, 100, true), 8);
	for (i = 0; i < sizeof(every) / sizeof(every[0]); i++) {
		unsigned int size = rpcrdma_sendctx_ring_size(32, every[i], true);

		ck_assert_int_eq(first_call_without_context(size, 32, every[i], 5000), -1);
	}
	/* One context per credit: the first Reply of an unsignaled Send
	 * already leaves the next call without one. */
	ck_assert_int_eq(first_call_without_context(32, 32, 8, 5000), 0);
	ck_assert_int_ge(first_call_without_context(35, 32, 8, 5000), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sendctx");
	TCase *tc = tcase_create("ring");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, init_rejects_zero);
	tcase_add_test(tc, fill_and_empty);
	tcase_add_test(tc, wrap_around);
	tcase_add_test(tc, empty_restarts_at_zero);
	tcase_add_test(tc, keeps_to_what_it_uses);
	tcase_add_test(tc, cadence);
	tcase_add_test(tc, cadence_with_caller_memory);
	tcase_add_test(tc, signal_when_ring_fills);
	tcase_add_test(tc, release_several);
	tcase_add_test(tc, complete_rejects_not_outstanding);
	tcase_add_test(tc, decide_and_unget_misuse);
	tcase_add_test(tc, no_deadlock_random);
	tcase_add_test(tc, queue_in_order_over_wrap);
	tcase_add_test(tc, queue_interleaved_with_completions);
	tcase_add_test(tc, queue_misuse);
	tcase_add_test(tc, ring_size_over_credits);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
