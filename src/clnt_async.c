/*
 * Calls that do not wait (clnt_rdma_call_async(3)): one record per call,
 * moved along by clnt_call.c's steps (clnt_async_step.c) by whichever
 * thread drives the progress (clnt_async_drive.c).  This file starts the
 * calls, gives out the descriptor and ends them all at clnt_destroy().
 * Waits: src/event-loop.md.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "clnt_async.h"

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
		ca_set_timer(ac);
	}
	/* Behind the calls already waiting; else posted at once, by this
	 * thread as the driver (the program's, or a callback's). */
	if (ac->ac_wait_head ||
	    (!ca_driving_here(cr) && !(own = ca_drive_begin(cr, &prev)))) {
		wait_append(ac, a);
		cr_async_kick(cr);
		goto out_unlock;
	}
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	batch_init(&done);
	ca_try_waiting(cr, a, &done);
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
		ca_arm_for_fd(cr);
		ca_drive_end(cr, prev);
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
