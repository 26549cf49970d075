/*
 * Calls that do not wait (clnt_rdma_call_async(3)): one record per call,
 * moved along by clnt_call.c's steps by whichever thread drives the
 * progress (clnt_rdma_progress(3), or the progress thread), which reaps
 * Replies in batches and runs the callbacks.  Waits: src/event-loop.md.
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "clnt_rdma.h"
#include "poller.h"

enum ca_state {
	CA_WAIT_SLOT,	/* waiting for a credit, a slot or the connection */
	CA_SENT,	/* posted: its slot leaving RQ_SENT puts it on ac_ready */
	CA_WAIT_RESEND,	/* lost with its connection: waiting to go again */
	CA_DONE,	/* over, cc_st set: its callback is due */
};

struct cr_async {
	struct cr_call a_c;
	enum ca_state a_state;
	xdrproc_t a_xargs;
	void *a_args;
	void (*a_done)(CLIENT *cl, enum clnt_stat st, void *arg);
	CLIENT *a_cl;
	void *a_arg;
	uint64_t a_deadline_ns;
	bool a_waited;			/* counted in rs_credit_waits */
	struct cr_async *a_next, *a_prev;	/* ac_all */
	struct cr_async *a_link;	/* the wait list, a batch, or ac_free */
};

/* Only the driver (ac_busy) steps calls; this thread is it when set. */
static __thread struct clnt_rdma *driving;

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* ---- descriptors ---------------------------------------------------------- */

static int ep_add(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* The eventfd, the deadline's timerfd and the epoll over them and the
 * completion channel (which outlives reconnections), once.  Lock held. */
static int async_fds(struct clnt_rdma *cr)
{
	struct cr_async_ctl *ac = &cr->cr_async;

	if (ac->ac_epfd >= 0)
		return 0;
	ac->ac_evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ac->ac_timerfd = timerfd_create(CLOCK_MONOTONIC,
					TFD_CLOEXEC | TFD_NONBLOCK);
	ac->ac_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ac->ac_evfd < 0 || ac->ac_timerfd < 0 || ac->ac_epfd < 0 ||
	    ep_add(ac->ac_epfd, ac->ac_evfd) ||
	    ep_add(ac->ac_epfd, ac->ac_timerfd) ||
	    ep_add(ac->ac_epfd, cr->cr_x.rx_ep.re_comp_ch->fd)) {
		int err = errno ? -errno : -ENOMEM;

		if (ac->ac_evfd >= 0)
			close(ac->ac_evfd);
		if (ac->ac_timerfd >= 0)
			close(ac->ac_timerfd);
		if (ac->ac_epfd >= 0)
			close(ac->ac_epfd);
		ac->ac_evfd = ac->ac_timerfd = ac->ac_epfd = -1;
		return err;
	}
	return 0;
}

/* The timerfd follows the earliest deadline.  Lock held. */
static void set_timer(struct cr_async_ctl *ac)
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

/* ---- the lists ------------------------------------------------------------ */

static void wait_append(struct cr_async_ctl *ac, struct cr_async *a)
{
	a->a_link = NULL;
	*ac->ac_wait_tail = a;
	ac->ac_wait_tail = &a->a_link;
	__atomic_store_n(&ac->ac_waiting, ac->ac_waiting + 1, __ATOMIC_RELAXED);
}

/* A batch the driver works through unlocked, in order. */
struct batch {
	struct cr_async *b_head, **b_tail;
};

static void batch_init(struct batch *b)
{
	b->b_head = NULL;
	b->b_tail = &b->b_head;
}

static void batch_add(struct batch *b, struct cr_async *a)
{
	a->a_link = NULL;
	*b->b_tail = a;
	b->b_tail = &a->a_link;
}

/* The call is over: off ac_all, its callback due (@done).  Lock held. */
static void finish_locked(struct clnt_rdma *cr, struct cr_async *a,
			  struct batch *done)
{
	struct cr_async_ctl *ac = &cr->cr_async;

	a->a_state = CA_DONE;
	if (a->a_prev)
		a->a_prev->a_next = a->a_next;
	else
		ac->ac_all = a->a_next;
	if (a->a_next)
		a->a_next->a_prev = a->a_prev;
	batch_add(done, a);
}

static void finish(struct clnt_rdma *cr, struct cr_async *a,
		   struct batch *done)
{
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	finish_locked(cr, a, done);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

/* ---- stepping one call (the driver only, lock not held) ------------------- */

/* Run the call's steps until it waits or is over. */
static void drive(struct clnt_rdma *cr, struct cr_async *a, enum cc_next next,
		  struct batch *done)
{
	struct cr_call *c = &a->a_c;

	for (;;) {
		switch (next) {
		case CC_SEND:
			next = cr_call_post(c);
			continue;
		case CC_WAIT:
			a->a_state = CA_SENT;
			return;
		case CC_REPLIED:
			next = cr_call_replied(c);
			continue;
		case CC_RESEND:
			if (a->a_state != CA_WAIT_RESEND)
				cr_call_resend_prep(c);
			a->a_state = CA_WAIT_RESEND;
			next = cr_call_resend_try(c, false);
			if (next == CC_WAIT) {
				pthread_mutex_lock(&cr->cr_x.rx_lock);
				wait_append(&cr->cr_async, a);
				pthread_mutex_unlock(&cr->cr_x.rx_lock);
				return;
			}
			continue;
		case CC_RELEASE:
			cr_call_release(c);
			/* fall through */
		case CC_RETURN:
			finish(cr, a, done);
			return;
		}
	}
}

/* A waiting call tries again: false if it still waits (requeued). */
static bool try_waiting(struct clnt_rdma *cr, struct cr_async *a,
			struct batch *done)
{
	struct cr_call *c = &a->a_c;
	enum cc_next next;
	int rc;

	if (a->a_state == CA_WAIT_RESEND) {
		drive(cr, a, CC_RESEND, done);
		return a->a_state != CA_WAIT_RESEND;
	}
	rc = cr->cr_async.ac_destroying ? -ECANCELED : cr_call_take(c, false);
	if (rc == -ECANCELED)
		rc = -ETIMEDOUT;	/* RPC_INTR, as every call destroyed */
	if (rc == -EAGAIN) {
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		if (!a->a_waited && cr->cr_conn == CR_CONNECTED)
			cr->cr_x.rx_stats.rs_credit_waits++;
		a->a_waited = true;
		wait_append(&cr->cr_async, a);
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return false;
	}
	if (rc) {
		c->cc_st = cr_call_not_taken(c, rc);
		finish(cr, a, done);
		return true;
	}
	next = cr_call_encode(c, a->a_xargs, a->a_args);
	drive(cr, a, next, done);
	return true;
}

/*
 * The waiting calls, in order: new calls stop at the first that still
 * waits (no credit for it, none for those behind); @all: every one tries
 * (a deadline passed, or the CLIENT is going).
 */
static void run_waiting(struct clnt_rdma *cr, bool all, struct batch *done)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	struct cr_async *a, *next;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	a = ac->ac_wait_head;
	ac->ac_wait_head = NULL;
	ac->ac_wait_tail = &ac->ac_wait_head;
	__atomic_store_n(&ac->ac_waiting, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	for (; a; a = next) {
		next = a->a_link;
		if (!try_waiting(cr, a, done) && !all &&
		    a->a_state == CA_WAIT_SLOT)
			break;
	}
	if (!a)
		return;
	/* The rest keep their places, behind the one requeued. */
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	for (a = next; a; a = next) {
		next = a->a_link;
		wait_append(ac, a);
	}
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

/* The slots that left RQ_SENT: their calls go on (a Reply, a failure,
 * a lost connection). */
static void run_ready(struct clnt_rdma *cr, struct batch *done)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	struct rpcrdma_req *rq, *next;
	struct batch todo;
	struct cr_async *a;

	batch_init(&todo);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	for (rq = ac->ac_ready; rq; rq = next) {
		next = rq->rq_ready_next;
		rq->rq_on_ready = false;
		a = rq->rq_async;
		if (a && a->a_state == CA_SENT && a->a_c.cc_rq == rq &&
		    rq->rq_state != RQ_SENT)
			batch_add(&todo, a);
	}
	ac->ac_ready = NULL;
	ac->ac_ready_tail = &ac->ac_ready;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	for (a = todo.b_head; a; a = todo.b_head) {
		todo.b_head = a->a_link;
		drive(cr, a, a->a_c.cc_rq->rq_state == RQ_RESEND ?
			     CC_RESEND : CC_REPLIED, done);
	}
}

/*
 * Posted calls whose deadline passed (all of them when the CLIENT goes)
 * are abandoned, as clnt_call's; the next deadline is found.  Waiting
 * calls time out in run_waiting.  True if any call waits.
 */
static bool run_deadlines(struct clnt_rdma *cr, uint64_t now,
			  struct batch *done)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	struct cr_async *a, *next;
	bool destroying = ac->ac_destroying, waiting;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	ac->ac_next_ns = 0;
	for (a = ac->ac_all; a; a = next) {
		next = a->a_next;
		if (a->a_state == CA_SENT && a->a_c.cc_rq->rq_state == RQ_SENT &&
		    (destroying || a->a_deadline_ns <= now)) {
			finish_locked(cr, a, done);
			cr_call_abandon(&a->a_c);	/* drops the lock */
			pthread_mutex_lock(&cr->cr_x.rx_lock);
			next = ac->ac_all;	/* the list may have changed */
			continue;
		}
		if (!ac->ac_next_ns || a->a_deadline_ns < ac->ac_next_ns)
			ac->ac_next_ns = a->a_deadline_ns;
	}
	waiting = ac->ac_wait_head != NULL;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return waiting;
}

/* The callbacks, on this thread, in order; records back to ac_free. */
static int run_callbacks(struct clnt_rdma *cr, struct batch *done)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	struct cr_async *a, *next;
	int n = 0;

	for (a = done->b_head; a; a = a->a_link) {
		/* Destroyed with the CLIENT: interrupted, not timed out. */
		if (ac->ac_destroying && a->a_c.cc_st == RPC_TIMEDOUT)
			a->a_c.cc_st = RPC_INTR;
		a->a_done(a->a_cl, a->a_c.cc_st, a->a_arg);
		n++;
	}
	if (!n)
		return 0;
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	for (a = done->b_head; a; a = next) {
		next = a->a_link;
		a->a_link = ac->ac_free;
		ac->ac_free = a;
	}
	ac->ac_live -= (uint32_t)n;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	batch_init(done);
	return n;
}

/* ---- the driver ----------------------------------------------------------- */

/*
 * Take the driver role, lock held: false if another thread has it.
 * @prev: what this thread drove before (a callback may start calls on
 * another CLIENT), for drive_end.
 */
static bool drive_begin(struct clnt_rdma *cr, struct clnt_rdma **prev)
{
	if (__atomic_load_n(&cr->cr_async.ac_busy, __ATOMIC_RELAXED))
		return false;
	__atomic_store_n(&cr->cr_async.ac_busy, 1, __ATOMIC_SEQ_CST);
	*prev = driving;
	driving = cr;
	return true;
}

/* Give it up, lock held; what was kicked meanwhile is kicked again. */
static void drive_end(struct clnt_rdma *cr, struct clnt_rdma *prev)
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
	run_ready(cr, done);
	now = rpcrdma_poll_now_ns(NULL);
	late = ac->ac_destroying || (ac->ac_next_ns && now >= ac->ac_next_ns);
	if (late && ac->ac_timer_ns && now >= ac->ac_timer_ns &&
	    read(ac->ac_timerfd, &v, sizeof(v)) < 0)
		v = 0;
	if (__atomic_load_n(&ac->ac_waiting, __ATOMIC_RELAXED))
		run_waiting(cr, late, done);
	if (late)
		run_deadlines(cr, now, done);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	set_timer(ac);
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
	struct pollfd p[2] = {
		{ .fd = cr->cr_x.rx_ep.re_comp_ch->fd, .events = POLLIN },
		{ .fd = ac->ac_evfd, .events = POLLIN },
	};
	int rc = 1;

	__atomic_store_n(&ac->ac_sleeping, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&ac->ac_rekick, __ATOMIC_SEQ_CST))
		rc = poll(p, 2, timeout_ms);
	__atomic_store_n(&ac->ac_sleeping, 0, __ATOMIC_SEQ_CST);
	if (rc < 0)
		return errno == EINTR ? 1 : -errno;
	if (p[0].revents)
		rpcrdma_cq_drain_events(&cr->cr_x.rx_ep);
	return rc > 0;
}

static const struct rpcrdma_poll_ops async_poll_ops = {
	.po_reap = ap_reap,
	.po_done = ap_done,
	.po_arm = ap_arm,
	.po_sleep = ap_sleep,
	.po_now_ns = rpcrdma_poll_now_ns,
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
		cr->cr_polling = 1;
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		memset(&ps, 0, sizeof(ps));
		rc = rpcrdma_poll_wait(&async_poll_ops, cr,
				       cr->cr_x.rx_opts.ro_busy_poll_us, end, &ps);
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
static bool arm_for_fd(struct clnt_rdma *cr)
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
	if (ac->ac_epfd < 0 || !drive_begin(cr, &prev)) {
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return 0;
	}
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	for (;;) {
		pass(cr, &done);
		ran += run_callbacks(cr, &done);
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
		if (arm_for_fd(cr)) {
			pthread_mutex_unlock(&cr->cr_x.rx_lock);
			continue;
		}
		break;
	}
	drive_end(cr, prev);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return ran;
}

/* ---- starting a call ------------------------------------------------------ */

int cr_async_start(struct clnt_rdma *cr, AUTH *auth,
		   const struct cr_async_args *aa)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	struct clnt_rdma *prev = NULL;
	struct cr_async *a;
	struct batch done;
	bool own = false;
	int rc;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	rc = ac->ac_destroying ? -ESHUTDOWN : async_fds(cr);
	if (rc)
		goto out_unlock;
	a = ac->ac_free;
	if (a)
		ac->ac_free = a->a_link;
	else if (!(a = malloc(sizeof(*a)))) {
		rc = -ENOMEM;
		goto out_unlock;
	}
	memset(a, 0, sizeof(*a));
	cr_call_init(&a->a_c, cr, auth, NULL, aa->aa_proc, aa->aa_xres,
		     aa->aa_res, aa->aa_tmo);
	a->a_c.cc_async = a;
	a->a_xargs = aa->aa_xargs;
	a->a_args = aa->aa_args;
	a->a_done = aa->aa_done;
	a->a_cl = aa->aa_cl;
	a->a_arg = aa->aa_arg;
	a->a_deadline_ns = ts_ns(&a->a_c.cc_deadline);
	a->a_next = ac->ac_all;
	if (a->a_next)
		a->a_next->a_prev = a;
	ac->ac_all = a;
	ac->ac_live++;
	if (!ac->ac_next_ns || a->a_deadline_ns < ac->ac_next_ns) {
		ac->ac_next_ns = a->a_deadline_ns;
		set_timer(ac);
	}
	/* Behind the calls already waiting; else posted at once, by this
	 * thread as the driver (the program's, or a callback's). */
	if (ac->ac_wait_head || (driving != cr && !(own = drive_begin(cr, &prev)))) {
		wait_append(ac, a);
		cr_async_kick(cr);
		goto out_unlock;
	}
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	batch_init(&done);
	try_waiting(cr, a, &done);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	if (done.b_head) {
		/* Over already: its callback runs from the progress, never
		 * from here. */
		done.b_head->a_link = ac->ac_over;
		ac->ac_over = done.b_head;
		__atomic_store_n(&ac->ac_rekick, 1, __ATOMIC_SEQ_CST);
	}
	if (own) {
		/* A descriptor polled must see this call's Reply. */
		arm_for_fd(cr);
		drive_end(cr, prev);
	}
out_unlock:
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return rc;
}

/* ---- the program's handles on it ------------------------------------------ */

/* The descriptor to poll: readable when clnt_rdma_progress has work. */
int cr_async_fd(struct clnt_rdma *cr)
{
	int rc;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	rc = async_fds(cr);
	if (!rc) {
		cr->cr_async.ac_fd_given = 1;
		rc = cr->cr_async.ac_epfd;
	}
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return rc;
}

/* The progress thread drives them from now on; it is told by its kick. */
int cr_async_thread(struct clnt_rdma *cr)
{
	uint64_t one = 1;
	int rc;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	rc = async_fds(cr);
	if (!rc && !cr->cr_async.ac_thread) {
		cr->cr_async.ac_fd_given = 1;
		__atomic_store_n(&cr->cr_async.ac_thread, 1, __ATOMIC_RELEASE);
		if (write(cr->cr_kickfd, &one, sizeof(one)) != sizeof(one))
			rc = -errno;
	}
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	return rc;
}

/*
 * clnt_destroy() with calls in flight, the progress thread stopped and
 * the QP in error: every call ends now, each callback runs once (a Reply
 * already in is decoded; the rest end RPC_INTR); then the records and
 * descriptors go.
 */
void cr_async_destroy(struct clnt_rdma *cr)
{
	struct cr_async_ctl *ac = &cr->cr_async;
	struct cr_async *a;
	int rounds;

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	ac->ac_destroying = 1;
	for (a = ac->ac_all; a; a = a->a_next) {
		a->a_c.cc_deadline.tv_sec = 0;
		a->a_c.cc_deadline.tv_nsec = 0;
		a->a_deadline_ns = 0;
	}
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	for (rounds = 0; ac->ac_live && rounds < 100; rounds++)
		cr_async_progress(cr, 0);
	if (ac->ac_live)
		RPCRDMA_DBG("client: %u asynchronous calls left at destroy",
			    ac->ac_live);
	while ((a = ac->ac_free)) {
		ac->ac_free = a->a_link;
		free(a);
	}
	if (ac->ac_epfd >= 0) {
		close(ac->ac_epfd);
		close(ac->ac_timerfd);
		close(ac->ac_evfd);
	}
	ac->ac_epfd = ac->ac_timerfd = ac->ac_evfd = -1;
}
