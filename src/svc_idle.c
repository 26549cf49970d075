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
		}
	}
}

static struct svc_rdma_listener *idle_lst(SVCXPRT *xprt)
{
	return rpcrdma_container_of(xprt, struct svc_rdma_listener, ln_idle_xprt);
}

static bool_t idle_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_rdma_listener *l = idle_lst(xprt);
	uint64_t ticks;

	(void)msg;
	if (read(xprt->xp_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		RPCRDMA_DBG("idle timer: %s", strerror(errno));
	pthread_mutex_lock(&l->ln_lock);
	svc_rdma_idle_sweep(l);
	pthread_mutex_unlock(&l->ln_lock);
	return FALSE;	/* never a Call */
}

static enum xprt_stat idle_stat(SVCXPRT *xprt)
{
	(void)xprt;
	return XPRT_IDLE;
}

static bool_t idle_never(SVCXPRT *xprt, xdrproc_t p, void *a)
{
	(void)xprt;
	(void)p;
	(void)a;
	return FALSE;
}

static bool_t idle_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	(void)xprt;
	(void)msg;
	return FALSE;
}

/* The listener owns it: svc_rdma_idle_stop() is the only way it goes. */
static void idle_destroy(SVCXPRT *xprt)
{
	(void)xprt;
}

static const struct xp_ops idle_ops = {
	.xp_recv = idle_recv,
	.xp_stat = idle_stat,
	.xp_getargs = idle_never,
	.xp_reply = idle_reply,
	.xp_freeargs = idle_never,
	.xp_destroy = idle_destroy,
};

/*
 * svc_run() mode with idle_timeout_ms set: a timer ticking at a quarter
 * of the timeout (100 ms to 10 s), so a connection goes within 1.25 times
 * it.  0, or -errno.
 */
int svc_rdma_idle_start(struct svc_rdma_listener *l)
{
	uint32_t ms = l->ln_opts.ro_idle_timeout_ms, tick = ms / 4;
	struct itimerspec its;
	int fd;

	l->ln_idle_xprt.xp_fd = -1;
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
	l->ln_idle_xprt.xp_fd = fd;
	l->ln_idle_xprt.xp_ops = &idle_ops;
	l->ln_idle_xprt.xp_netid = "rdma";
	l->ln_idle_xprt.xp_tp = "rdma";
	l->ln_idle_xprt.xp_p3 = &l->ln_idle_ext;
	xprt_register(&l->ln_idle_xprt);
	return 0;
}

void svc_rdma_idle_stop(struct svc_rdma_listener *l)
{
	if (l->ln_idle_xprt.xp_fd < 0)
		return;
	xprt_unregister(&l->ln_idle_xprt);
	close(l->ln_idle_xprt.xp_fd);
	l->ln_idle_xprt.xp_fd = -1;
}

/* Its descriptor for a private event loop (svc_rdma_pollfds), or -1. */
int svc_rdma_idle_fd(const struct svc_rdma_listener *l)
{
	return l->ln_idle_xprt.xp_fd;
}
