/*
 * Unit test: the completion model's waiting policy (poller.c) over a
 * scripted fake CQ and clock: spin budget, arm only on the way to sleep,
 * the poll after arming that closes the race, deadlines, counters, and
 * the CPU yielded every few polls of a spin, never once armed.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "poller.h"

/* A fake CQ: script[i] completions on the i-th poll; time moves per poll. */
struct fake {
	const int *script;
	int nscript, polls;
	int arms, sleeps, wake_after_sleep;
	int done_at;		/* done once this many completions were seen */
	int seen;
	uint64_t now, step_ns;	/* each poll advances the clock */
	int sleep_result;
	int reap_error_at;	/* poll number that fails, -1 none */
	int armed_when_polled;	/* polls made while armed */
	int armed;
	int sleep_to;		/* nonzero: a sleep lasts until this poll */
	int yields, yields_armed;
};

static int f_reap(void *arg)
{
	struct fake *f = arg;
	int n = f->polls < f->nscript ? f->script[f->polls] : 0;

	if (f->polls == f->reap_error_at)
		return -EIO;
	f->polls++;
	f->now += f->step_ns;
	f->seen += n;
	if (f->armed)
		f->armed_when_polled++;
	return n;
}

static int f_done(void *arg)
{
	struct fake *f = arg;

	return f->seen >= f->done_at;
}

static int f_arm(void *arg)
{
	struct fake *f = arg;

	f->arms++;
	f->armed = 1;
	return 0;
}

static int f_sleep(void *arg, int timeout_ms)
{
	struct fake *f = arg;

	(void)timeout_ms;
	f->sleeps++;
	f->armed = 0;
	if (f->sleep_to && f->polls < f->sleep_to) {
		f->now += (uint64_t)(f->sleep_to - f->polls) * f->step_ns;
		f->polls = f->sleep_to;
	}
	/* What woke us shows on the next poll. */
	f->now += 1000000;
	return f->sleep_result;
}

static uint64_t f_now(void *arg)
{
	return ((struct fake *)arg)->now;
}

static void f_yield(void *arg)
{
	struct fake *f = arg;

	f->yields++;
	f->yields_armed += f->armed;
}

static const struct rpcrdma_poll_ops ops = {
	f_reap, f_done, f_arm, f_sleep, f_now, f_yield,
};
static const struct rpcrdma_poll_ops ops_nosleep = {
	f_reap, f_done, f_arm, NULL, f_now, NULL,
};

/* A waiter that learned nothing: spin budgets of 300 us or less, as every
 * test below asks, are spun whole (spin.h). */
static struct rpcrdma_spin fresh;

static struct fake mk(const int *script, int n, int done_at)
{
	struct fake f;

	memset(&f, 0, sizeof(f));
	f.script = script;
	f.nscript = n;
	f.done_at = done_at;
	f.step_ns = 1000;	/* 1 µs per poll */
	f.sleep_result = 1;
	f.reap_error_at = -1;
	f.now = 1000000000;
	return f;
}

/* Already there: one poll, no arm, no counters but none empty. */
START_TEST(immediate)
{
	static const int sc[] = { 1 };
	struct fake f = mk(sc, 1, 1);
	struct rpcrdma_poll_stats st = { 0 };

	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &fresh, 50, 0, &st), 0);
	ck_assert_int_eq(f.polls, 1);
	ck_assert_int_eq(f.arms, 0);
	ck_assert_uint_eq(st.ps_hits, 0);
	ck_assert_uint_eq(st.ps_empty, 0);
}
END_TEST

/* Found while spinning: a hit, never armed, never slept. */
START_TEST(spin_hit)
{
	static const int sc[] = { 0, 0, 0, 0, 0, 1 };
	struct fake f = mk(sc, 6, 1);
	struct rpcrdma_poll_stats st = { 0 };

	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &fresh, 50, 0, &st), 0);
	ck_assert_int_eq(f.arms, 0);
	ck_assert_int_eq(f.sleeps, 0);
	ck_assert_uint_eq(st.ps_hits, 1);
	ck_assert_uint_eq(st.ps_misses, 0);
	ck_assert_uint_eq(st.ps_empty, 5);
}
END_TEST

/* The budget runs out: arm once, poll once armed, sleep, then find it. */
START_TEST(spin_miss_sleeps)
{
	int sc[200] = { 0 };
	struct fake f;
	struct rpcrdma_poll_stats st = { 0 };

	sc[150] = 1;
	f = mk(sc, 200, 1);
	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &fresh, 20, 0, &st), 0);
	/* ~20 empty polls of spin, then one arm and exactly one sleep... */
	ck_assert_uint_ge(st.ps_misses, 1);
	ck_assert_int_eq(f.arms, (int)st.ps_misses);
	ck_assert_int_eq(f.sleeps, (int)st.ps_misses);
	ck_assert_uint_eq(st.ps_wakeups, st.ps_misses);
	/* ...and every arm is followed by one poll before the sleep. */
	ck_assert_int_eq(f.armed_when_polled, f.arms);
	ck_assert_uint_lt(st.ps_empty, 150);
}
END_TEST

/* Spin 0: never spin; arm after the first empty poll. */
START_TEST(no_spin)
{
	static const int sc[] = { 0, 0, 1 };
	struct fake f = mk(sc, 3, 1);
	struct rpcrdma_poll_stats st = { 0 };

	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &fresh, 0, 0, &st), 0);
	ck_assert_int_eq(f.arms, 1);
	ck_assert_int_eq(f.sleeps, 1);
	ck_assert_uint_eq(st.ps_misses, 1);
	ck_assert_uint_eq(st.ps_hits, 0);
	ck_assert_int_eq(f.polls, 3);
}
END_TEST

/* A spin yields the CPU once every RPCRDMA_SPIN_YIELD_EVERY empty polls;
 * not spinning, it never yields. */
START_TEST(yields_while_spinning)
{
	int sc[3 * RPCRDMA_SPIN_YIELD_EVERY + 2] = { 0 };
	int n = 3 * RPCRDMA_SPIN_YIELD_EVERY + 2;
	struct fake f;
	struct rpcrdma_poll_stats st = { 0 };
	static const int sc0[] = { 0, 0, 0, 1 };

	sc[n - 1] = 1;
	f = mk(sc, n, 1);
	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &fresh, 200, 0, &st), 0);
	ck_assert_uint_eq(st.ps_empty, (uint64_t)n - 1);
	ck_assert_int_eq(f.yields, (n - 1) / RPCRDMA_SPIN_YIELD_EVERY);
	ck_assert_int_eq(f.yields_armed, 0);
	ck_assert_int_eq(f.sleeps, 0);

	memset(&st, 0, sizeof(st));
	f = mk(sc0, 4, 1);
	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &fresh, 0, 0, &st), 0);
	ck_assert_int_eq(f.yields, 0);
}
END_TEST

/* The completion lands between the arm and the sleep: no sleep. */
START_TEST(race_after_arm)
{
	static const int sc[] = { 0, 1 };
	struct fake f = mk(sc, 2, 1);
	struct rpcrdma_poll_stats st = { 0 };

	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &fresh, 0, 0, &st), 0);
	ck_assert_int_eq(f.arms, 1);
	ck_assert_int_eq(f.sleeps, 0);
}
END_TEST

/* Completions that are not ours restart the spin budget: no arm. */
START_TEST(others_progress)
{
	int sc[64];
	struct fake f;
	struct rpcrdma_poll_stats st = { 0 };

	for (int i = 0; i < 64; i++)
		sc[i] = i % 5 == 4;	/* one completion every 5 polls */
	f = mk(sc, 64, 10);
	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &fresh, 10, 0, &st), 0);
	ck_assert_int_eq(f.arms, 0);
	ck_assert_uint_eq(st.ps_hits, 10);
}
END_TEST

START_TEST(deadline)
{
	struct fake f = mk(NULL, 0, 1);
	struct rpcrdma_poll_stats st = { 0 };

	f.sleep_result = 0;	/* sleeps time out */
	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &fresh, 5, f.now + 5000000, &st),
			 -ETIMEDOUT);
	ck_assert_uint_eq(st.ps_wakeups, 0);
	ck_assert_int_gt(f.sleeps, 0);
}
END_TEST

/* No po_sleep (the server): armed, then -EAGAIN to go and sleep. */
START_TEST(nosleep_eagain)
{
	struct fake f = mk(NULL, 0, 1);
	struct rpcrdma_poll_stats st = { 0 };

	ck_assert_int_eq(rpcrdma_poll_wait(&ops_nosleep, &f, &fresh, 10, 0, &st), -EAGAIN);
	ck_assert_int_eq(f.arms, 1);
	ck_assert_int_eq(f.armed_when_polled, 1);
	ck_assert_uint_eq(st.ps_misses, 1);
}
END_TEST

START_TEST(reap_error)
{
	struct fake f = mk(NULL, 0, 1);
	struct rpcrdma_poll_stats st = { 0 };

	f.reap_error_at = 3;
	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &fresh, 50, 0, &st), -EIO);
}
END_TEST

/*
 * With a learning spin (spin.h): a Reply 500 us away is missed by the
 * floor (300 us), and the wait sleeps; within a few waits like it the
 * spin is long enough and a wait never arms.  busy_poll_us 300 bounds it.
 */
START_TEST(learns_longer_spin)
{
	int sc[600] = { 0 };
	struct rpcrdma_spin sp;
	struct rpcrdma_poll_stats st = { 0 };
	struct fake f;
	int i;

	memset(&sp, 0, sizeof(sp));
	sc[500] = 1;
	f = mk(sc, 600, 1);
	f.sleep_to = 500;	/* the sleep ends with the completion */
	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &sp, 2000, 0, &st), 0);
	ck_assert_int_eq(f.arms, 1);
	for (i = 0; i < 10; i++) {
		f = mk(sc, 600, 1);
		f.sleep_to = 500;
		ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &sp, 2000, 0, &st), 0);
		if (!f.arms)
			break;
	}
	ck_assert_int_lt(i, 10);
	f = mk(sc, 600, 1);
	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &sp, 2000, 0, &st), 0);
	ck_assert_int_eq(f.arms, 0);
	f = mk(sc, 600, 1);
	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &sp, 300, 0, &st), 0);
	ck_assert_int_eq(f.arms, 1);
}
END_TEST

/* Completions later than busy_poll_us: spins at it run out, and after
 * RPCRDMA_SPIN_GIVE_UP of them a wait arms at each first empty poll. */
START_TEST(stops_spinning_when_late)
{
	struct rpcrdma_spin sp;
	struct rpcrdma_poll_stats st = { 0 };
	struct fake f;

	memset(&sp, 0, sizeof(sp));
	f = mk(NULL, 0, 1);
	f.sleep_result = 0;	/* sleeps end with nothing yet */
	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &sp, 400, f.now + 20000000, &st),
			 -ETIMEDOUT);
	ck_assert_uint_ge(st.ps_misses, RPCRDMA_SPIN_GIVE_UP);
	ck_assert_uint_eq(sp.sp_over, RPCRDMA_SPIN_GIVE_UP);
	/* No completion: every turn is one empty poll, an arm and a sleep
	 * (the probe, one turn in RPCRDMA_SPIN_PROBE, is not due yet). */
	memset(&st, 0, sizeof(st));
	sp.sp_skipped = 0;
	f = mk(NULL, 0, 1);
	f.sleep_result = 0;
	ck_assert_int_eq(rpcrdma_poll_wait(&ops, &f, &sp, 400, f.now + 5500000, &st),
			 -ETIMEDOUT);
	ck_assert_int_ge(f.arms, 3);
	ck_assert_uint_eq(st.ps_empty, (uint64_t)f.arms + 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("poller");
	TCase *tc = tcase_create("wait");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, immediate);
	tcase_add_test(tc, spin_hit);
	tcase_add_test(tc, spin_miss_sleeps);
	tcase_add_test(tc, no_spin);
	tcase_add_test(tc, yields_while_spinning);
	tcase_add_test(tc, race_after_arm);
	tcase_add_test(tc, others_progress);
	tcase_add_test(tc, deadline);
	tcase_add_test(tc, nosleep_eagain);
	tcase_add_test(tc, reap_error);
	tcase_add_test(tc, learns_longer_spin);
	tcase_add_test(tc, stops_spinning_when_late);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
