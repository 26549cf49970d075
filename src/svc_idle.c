/*
 * idle_timeout_ms: a connection that brings no Call for that long is
 * closed, alone, and counted (rs_idle_closed).  Under svc_run() a timerfd
 * registered as a hidden SVCXPRT wakes the sweep; service threads sweep
 * whenever their leader rebuilds its poll set (at least once a second).
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/timerfd.h>
#include "poller.h"
#include "svc_int.h"

/*
 * Under ln_lock.  An idle connection is marked dead and disconnected: its
 * QP flushes, so whoever serves it sees it die and destroys it as any
 * other.  Not counted as lost too: the peer did nothing wrong.
 */
void svc_rdma_idle_sweep(struct svc_rdma_listener *l)
{
	uint32_t ms = l->ln_opts.ro_idle_timeout_ms;
	uint64_t now = rpcrdma_poll_now_ns(NULL);
	struct svc_rdma_conn *c;
	int kick = 0;

	if (!ms)
		return;
	for (c = l->ln_conns; c; c = c->cn_next) {
		struct rpcrdma_xprt *x = &c->cn_x;
		int closed = 0;

		if (!svc_rdma_is_idle(__atomic_load_n(&c->cn_last_call_ns,
						      __ATOMIC_RELAXED), now, ms))
			continue;
		pthread_mutex_lock(&x->rx_lock);
		if (!x->rx_dead) {
			x->rx_dead = -ETIMEDOUT;
			x->rx_stats.rs_idle_closed++;
			c->cn_lost = 1;
			closed = 1;
		}
		pthread_mutex_unlock(&x->rx_lock);
		if (closed) {
			RPCRDMA_DBG("conn %p: no Call for %u ms, closed",
				    (void *)c, ms);
			rpcrdma_ep_disconnect(&x->rx_ep);
			/*
			 * svc_run: its turn comes from its completion channel,
			 * which fired with the flushes of its posted receives;
			 * on a shared receive queue it has none, and a silent
			 * peer may never answer the disconnect.  So it gets a
			 * turn of the kick pass (ln_lock held), where it is
			 * found dead and destroyed.
			 */
			if (l->ln_kickfd >= 0) {
				c->cn_yield_gen = l->ln_kick_gen + 1;
				kick = 1;
			}
		}
	}
	if (kick)
		svc_rdma_kick(l);
}

/* The timer ticked (svc_run mode): read it, then sweep. */
void svc_rdma_idle_tick(struct svc_rdma_listener *l, int fd)
{
	uint64_t ticks;

	if (read(fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		RPCRDMA_DBG("idle timer: %s", strerror(errno));
	pthread_mutex_lock(&l->ln_lock);
	svc_rdma_idle_sweep(l);
	pthread_mutex_unlock(&l->ln_lock);
}

/*
 * svc_run() mode with idle_timeout_ms set: a timer ticking at a quarter
 * of the timeout (100 ms to 10 s), so a connection goes within 1.25 times
 * it.  0 with the timer's descriptor in *fdp (-1: none needed), or
 * -errno.  svc_rdma.c registers it as a hidden SVCXPRT.
 */
int svc_rdma_idle_open(struct svc_rdma_listener *l, int *fdp)
{
	uint32_t ms = l->ln_opts.ro_idle_timeout_ms, tick = ms / 4;
	struct itimerspec its;
	int fd;

	*fdp = -1;
	if (!ms || l->ln_opts.ro_svc_threads)
		return 0;
	if (tick < 100)
		tick = 100;
	if (tick > 10000)
		tick = 10000;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0)
		return -errno;
	memset(&its, 0, sizeof(its));
	its.it_interval.tv_sec = tick / 1000;
	its.it_interval.tv_nsec = (long)(tick % 1000) * 1000000;
	its.it_value = its.it_interval;
	if (timerfd_settime(fd, 0, &its, NULL)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	*fdp = fd;
	return 0;
}
