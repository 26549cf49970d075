/*
 * The driver of the asynchronous calls: one thread at a time (the
 * program's in clnt_rdma_progress(3), or the progress thread) reaps
 * Replies in batches, steps the calls (clnt_async_step.c), runs their
 * callbacks and, with nothing to do, sleeps as the poller or on the
 * eventfd; the timerfd follows the earliest deadline.
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "clnt_async.h"
#include "poller.h"

/* Only the driver (ac_busy) steps calls; this thread is it when set. */
static __thread struct clnt_rdma *driving;

/* This thread drives @cr's calls now (a callback starting another). */
bool ca_driving_here(const struct clnt_rdma *cr)
{
	return driving == cr;
}

/* The timerfd follows the earliest deadline.  Lock held. */
void ca_set_timer(struct cr_async_ctl *ac)
{
	struct itimerspec its;

	if (ac->ac_timer_ns == ac->ac_next_ns)
		return;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(ac->ac_next_ns / 1000000000u);
	its.it_value.tv_nsec = (long)(ac->ac_next_ns % 1000000000u);
	if (!timerfd_settime(ac->ac_timerfd, TFD_TIMER_ABSTIME, &its, NULL))
		ac->ac_timer_ns = ac->ac_next_ns;
}

/* ---- the driver ----------------------------------------------------------- */

/*
 * Take the driver role, lock held: false if another thread has it.
 * @prev: what this thread drove before (a callback may start calls on
 * another CLIENT), for ca_drive_end.
 */
bool ca_drive_begin(struct clnt_rdma *cr, struct clnt_rdma **prev)
{
	if (__atomic_load_n(&cr->cr_async.ac_busy, __ATOMIC_RELAXED))
		return false;
	__atomic_store_n(&cr->cr_async.ac_busy, 1, __ATOMIC_SEQ_CST);
	*prev = driving;
	driving = cr;
	return true;
}

/* Give it up, lock held; what was kicked meanwhile is kicked again. */
void ca_drive_end(struct clnt_rdma *cr, struct clnt_rdma *prev)
{
	struct cr_async_ctl *ac = &cr->cr_async;

	driving = prev;
	__atomic_store_n(&ac->ac_busy, 0, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&ac->ac_rekick, 0, __ATOMIC_SEQ_CST) ||
	    ac->ac_ready)
		cr_async_kick(cr);
}

/* One pass: reap if nobody polls, then the ready, waiting and late calls. */
static void pass(struct clnt_rdma *cr, struct batch *done)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	uint64_t v, now;
	bool late;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	while (ac->ac_over) {
		struct cr_async *a = ac->ac_over;

		ac->ac_over = a->a_link;
		batch_add(done, a);
	}
	if (ac->ac_kicked) {
		ac->ac_kicked = 0;
		if (read(ac->ac_evfd, &v, sizeof(v)) < 0)
			v = 0;
	}
	if (!cr->cr_polling && ac->ac_live) {
		cr->cr_polling = 1;
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		cr_reap_gone(cr);
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		cr->cr_polling = 0;
		cr_hand_over(cr);
	}
	/* What kicked us so far is looked at below. */
	__atomic_store_n(&ac->ac_rekick, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	ca_run_ready(cr, done);
	now = rpcrdma_poll_now_ns(NULL);
	late = ac->ac_destroying || (ac->ac_next_ns && now >= ac->ac_next_ns);
	if (late && ac->ac_timer_ns && now >= ac->ac_timer_ns &&
	    read(ac->ac_timerfd, &v, sizeof(v)) < 0)
		v = 0;
	if (__atomic_load_n(&ac->ac_waiting, __ATOMIC_RELAXED))
		ca_run_waiting(cr, late, done);
	if (late)
		ca_run_deadlines(cr, now, done);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	ca_set_timer(ac);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

/* The poller loop's view of the driver (poller.h). */
static int ap_reap(void *arg)
{
	return cr_reap_gone(arg);
}

static int ap_done(void *arg)
{
	struct cr_async_ctl *ac = &((struct clnt_rdma *)arg)->cr_async;

	return __atomic_load_n(&ac->ac_ready, __ATOMIC_ACQUIRE) != NULL ||
	       __atomic_load_n(&ac->ac_rekick, __ATOMIC_SEQ_CST);
}

static int ap_arm(void *arg)
{
	return rpcrdma_cq_arm(&((struct clnt_rdma *)arg)->cr_x.rx_ep);
}

/* Asleep on the channel and the eventfd: a completion or a kick. */
static int ap_sleep(void *arg, int timeout_ms)
{
	struct clnt_rdma *cr = arg;
	struct cr_async_ctl *ac = &cr->cr_async;
	int rc = 1;

	__atomic_store_n(&ac->ac_sleeping, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&ac->ac_rekick, __ATOMIC_SEQ_CST))
		rc = rpcrdma_cq_sleep_or(&cr->cr_x.rx_ep, ac->ac_evfd,
					 timeout_ms, NULL);
	__atomic_store_n(&ac->ac_sleeping, 0, __ATOMIC_SEQ_CST);
	return rc;
}

static const struct rpcrdma_poll_ops async_poll_ops = {
	.po_reap = ap_reap,
	.po_done = ap_done,
	.po_arm = ap_arm,
	.po_sleep = ap_sleep,
	.po_now_ns = rpcrdma_poll_now_ns,
	.po_yield = rpcrdma_poll_yield,
};

/*
 * Nothing completed and the program would wait until @until_ns: reap,
 * spin and sleep as a poller does if the role is free, else sleep on the
 * eventfd until the poller (or the reconnector) kicks.  Lock not held.
 */
static void wait_progress(struct clnt_rdma *cr, uint64_t until_ns)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	struct rpcrdma_poll_stats ps;
	struct pollfd p = { .fd = ac->ac_evfd, .events = POLLIN };
	uint64_t now, end = until_ns;
	int rc;

	if (ac->ac_next_ns && (!end || ac->ac_next_ns < end))
		end = ac->ac_next_ns;
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	/* While the connection is down the reconnector needs the role: a
	 * blocking caller waits for it on cr_conn_cond, we on the eventfd
	 * it kicks when done. */
	if (!cr->cr_polling && cr->cr_conn == CR_CONNECTED &&
	    !cr->cr_x.rx_dead) {
		uint32_t spin_us = cr_spin_bound(cr);

		cr->cr_polling = 1;
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		memset(&ps, 0, sizeof(ps));
		rc = rpcrdma_poll_wait(&async_poll_ops, cr, &cr->cr_spin,
				       spin_us, end, &ps);
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		cr->cr_polling = 0;
		cr->cr_x.rx_stats.rs_wakeups += ps.ps_wakeups;
		cr->cr_x.rx_stats.rs_busy_poll_hits += ps.ps_hits;
		cr->cr_x.rx_stats.rs_busy_poll_misses += ps.ps_misses;
		cr->cr_x.rx_stats.rs_empty_polls += ps.ps_empty;
		if (rc < 0 && rc != -ETIMEDOUT)
			cr_fail_all(cr, rc);
		cr_hand_over(cr);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return;
	}
	__atomic_store_n(&ac->ac_sleeping, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	now = rpcrdma_poll_now_ns(NULL);
	if (!__atomic_load_n(&ac->ac_rekick, __ATOMIC_SEQ_CST))
		poll(&p, 1, !end ? -1 : end <= now ? 0 :
			    (int)((end - now + 999999) / 1000000));
	__atomic_store_n(&ac->ac_sleeping, 0, __ATOMIC_SEQ_CST);
}

/*
 * Before the driver leaves with calls in flight, lock held: the CQ
 * armed for the descriptor, after one more look (a completion just
 * before arming is not missed).  True if that look found work.
 */
bool ca_arm_for_fd(struct clnt_rdma *cr)
{
	int n;

	/* Only a descriptor someone polls needs it; the poller kicks us
	 * when it leaves. */
	if (!cr->cr_async.ac_fd_given || cr->cr_polling ||
	    !cr->cr_async.ac_live)
		return false;
	cr->cr_polling = 1;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	rpcrdma_cq_drain_events(&cr->cr_x.rx_ep);
	n = rpcrdma_cq_arm(&cr->cr_x.rx_ep);
	if (!n)
		n = cr_reap_gone(cr);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	cr->cr_polling = 0;
	cr_hand_over(cr);
	return n != 0 || cr->cr_async.ac_ready;
}

int cr_async_progress(struct clnt_rdma *cr, int timeout_ms)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	struct clnt_rdma *prev;
	uint64_t until = 0;
	struct batch done;
	int ran = 0;

	if (timeout_ms > 0)
		until = rpcrdma_poll_now_ns(NULL) +
			(uint64_t)timeout_ms * 1000000u;
	batch_init(&done);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	if (ac->ac_epfd < 0 || !ca_drive_begin(cr, &prev)) {
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return 0;
	}
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	for (;;) {
		pass(cr, &done);
		ran += ca_run_callbacks(cr, &done);
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		if (ac->ac_ready ||
		    __atomic_load_n(&ac->ac_rekick, __ATOMIC_SEQ_CST)) {
			pthread_mutex_unlock(&cr->cr_x.rx_lock);
			continue;
		}
		if (!ran && timeout_ms && ac->ac_live &&
		    (!until || rpcrdma_poll_now_ns(NULL) < until)) {
			pthread_mutex_unlock(&cr->cr_x.rx_lock);
			wait_progress(cr, until);
			continue;
		}
		if (ca_arm_for_fd(cr)) {
			pthread_mutex_unlock(&cr->cr_x.rx_lock);
			continue;
		}
		break;
	}
	ca_drive_end(cr, prev);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return ran;
}
