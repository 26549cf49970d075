/*
 * Transport glue shared by client and server: the options a handle runs
 * with, endpoint setup sized from them, RFC 8797 threshold negotiation and
 * the Receives.  The Send path is transport_send.c.
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "transport.h"
#include "probes.h"

extern char **environ;

int rpcrdma_debug;

__attribute__((constructor)) static void rpcrdma_debug_init(void)
{
	rpcrdma_debug = getenv("RPCRDMA_DEBUG") != NULL;
}

void rpcrdma_dbg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "rpcrdma[%d]: ", (int)getpid());
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/*
 * Read the configuration for one handle being created and print what is
 * wrong with it, at the handle's log level.  The file is RPCRDMA_CONF when
 * set (and must then exist), else $(sysconfdir)/rpcrdma.conf.
 */
int rpcrdma_options_setup(struct rpcrdma_optsrc *src,
			  const struct rpcrdma_options *o, unsigned int role)
{
	const char *named = getenv("RPCRDMA_CONF");
	struct rpcrdma_options in_force;
	char err[512];
	const char *d;
	bool is_err;
	size_t i;
	int rc;

	rc = rpcrdma_optsrc_init(src, o, role, named ? named : RPCRDMA_CONF_FILE,
				 named != NULL, environ, err, sizeof(err));
	rpcrdma_optsrc_resolve(src, NULL, RPCRDMA_DRV_OTHER, &in_force);
	if (in_force.ro_log_level >= RPCRDMA_LOG_DEBUG)
		__atomic_store_n(&rpcrdma_debug, 1, __ATOMIC_RELAXED);
	for (i = 0; src->os_conf && (d = rpcrdma_conf_diag(src->os_conf, i, &is_err)); i++)
		if (in_force.ro_log_level >= (is_err ? RPCRDMA_LOG_ERROR :
					      RPCRDMA_LOG_WARNING))
			fprintf(stderr, "rpcrdma: %s%s\n", is_err ? "" : "warning: ", d);
	if (rc && err[0] && in_force.ro_log_level >= RPCRDMA_LOG_ERROR)
		fprintf(stderr, "rpcrdma: %s %s not created: %s\n",
			role == RPCRDMA_CS_CLIENT ? "client" : "server",
			role == RPCRDMA_CS_CLIENT ? "handle" : "listener", err);
	return rc;
}

static int xprt_init(struct rpcrdma_xprt *x)
{
	int rc;

	rpcrdma_optsrc_resolve(x->rx_src, NULL, RPCRDMA_DRV_OTHER, &x->rx_opts);
	/* Until the peer says otherwise, RFC 8166's 1 KiB each way. */
	x->rx_send_max = RPCRDMA_DEFAULT_INLINE;
	x->rx_recv_max = x->rx_opts.ro_inline_recv;
	if (pthread_mutex_init(&x->rx_lock, NULL))
		return -ENOMEM;
	if (pthread_mutex_init(&x->rx_post_lock, NULL))
		goto out_lock;
	if (rpcrdma_cond_init(&x->rx_sendctx_cond))
		goto out_post_lock;
	rpcrdma_mr_table_init(&x->rx_mrs, x->rx_opts.ro_mr_cache);
	/* Sends in flight are bounded by the ring; twice that leaves room
	 * for completed releases a reaper has not run yet. */
	if (rpcrdma_relq_init(&x->rx_rel, 2 * rpcrdma_xprt_nsend(x)))
		goto out_cond;
	rc = rpcrdma_sendctx_init(&x->rx_ring, rpcrdma_xprt_nsend(x),
				  x->rx_opts.ro_signal_every);
	if (rc)
		rpcrdma_relq_fini(&x->rx_rel);
	return rc;

out_cond:
	pthread_cond_destroy(&x->rx_sendctx_cond);
out_post_lock:
	pthread_mutex_destroy(&x->rx_post_lock);
out_lock:
	pthread_mutex_destroy(&x->rx_lock);
	return -ENOMEM;
}

/*
 * A client's send contexts: one per credit, and signal_every over
 * (rpcrdma_sendctx_ring_size says why).  A server's stay one per credit:
 * its Replies waited for a context far less often (1-3% of them at 32
 * in flight on rxe), and its registered memory is what bounds its
 * connections (svc_limits.c).  Before the endpoint exists, the options
 * not yet fitted to the device bound it the same way.
 */
uint32_t rpcrdma_xprt_nsend(const struct rpcrdma_xprt *x)
{
	return rpcrdma_sendctx_ring_size(x->rx_opts.ro_max_requests,
					 x->rx_opts.ro_signal_every,
					 x->rx_src->os_role == RPCRDMA_CS_CLIENT);
}

/* A client: its own configuration, read now.  -EINVAL: bad options. */
int rpcrdma_xprt_init(struct rpcrdma_xprt *x, const struct rpcrdma_options *o)
{
	int rc;

	memset(x, 0, sizeof(*x));
	x->rx_src = &x->rx_own_src;
	rc = rpcrdma_options_setup(&x->rx_own_src, o, RPCRDMA_CS_CLIENT);
	if (!rc)
		rc = xprt_init(x);
	if (rc)
		rpcrdma_optsrc_fini(&x->rx_own_src);
	return rc;
}

/*
 * Live keys changed by the program on one transport (clnt_control
 * RPCRDMA_CLSET_OPTIONS, svc_rdma_set_options): 0, or -EINVAL reported
 * like a bad field at creation.
 */
int rpcrdma_xprt_set_options(struct rpcrdma_xprt *x,
			     const struct rpcrdma_options *change)
{
	char err[256];
	int rc;

	pthread_mutex_lock(&x->rx_lock);
	rc = rpcrdma_options_update(&x->rx_opts, change, x->rx_src->os_role,
				    err, sizeof(err));
	pthread_mutex_unlock(&x->rx_lock);
	if (rc && x->rx_opts.ro_log_level >= RPCRDMA_LOG_ERROR)
		fprintf(stderr, "rpcrdma: options not changed: %s\n", err);
	return rc;
}

/* A server's connection: the listener's configuration, kept alive by it. */
int rpcrdma_xprt_init_conn(struct rpcrdma_xprt *x,
			   const struct rpcrdma_optsrc *src)
{
	memset(x, 0, sizeof(*x));
	x->rx_src = src;
	return xprt_init(x);
}

/*
 * A server's rings sized to its client, as the kernel's svcrdma does: a
 * receive buffer larger than any Send the client will post, or a send
 * buffer larger than it can receive, would only pin memory.  So a large
 * inline_recv costs only connections whose clients offer large Sends.
 */
static void xprt_fit_peer(struct rpcrdma_xprt *x)
{
	if (x->rx_src->os_role != RPCRDMA_CS_SERVER)
		return;
	rpcrdma_cm_fit(&x->rx_peer, x->rx_peer_offered,
		       &x->rx_opts.ro_inline_send, &x->rx_opts.ro_inline_recv);
	/* Its shared queue's class may be smaller than the offer (full). */
	if (x->rx_srq && x->rx_opts.ro_inline_recv > x->rx_srq_size)
		x->rx_opts.ro_inline_recv = x->rx_srq_size;
	x->rx_recv_max = x->rx_opts.ro_inline_recv;
}

/*
 * One send buffer per credit: a Send never waits for more than its credit.
 * Each holds send_buffer bytes, at most inline_send: a larger Send is
 * mapped (its header and copied bytes from the buffer, the rest from
 * where it lies), so a large inline_send costs no pinned memory itself.
 * The device is known now: its [device] section and its driver's
 * built-in defaults apply from here on, before the QP is created (only
 * keys that size no buffer may be set there, so what was allocated from
 * the first resolution still fits).
 */
int rpcrdma_xprt_setup_ep(struct rpcrdma_xprt *x, uint32_t nrecv)
{
	const char *dev = rpcrdma_ep_device_name(&x->rx_ep);
	struct rpcrdma_ep_attr a;
	int rc;

	rpcrdma_optsrc_resolve(x->rx_src, dev, rpcrdma_ep_driver(&x->rx_ep),
			       &x->rx_opts);
	xprt_fit_peer(x);
	RPCRDMA_DBG("options on device %s: strategy %u max_inline_data %u "
		    "signal_every %u", dev ? dev : "?",
		    x->rx_opts.ro_send_strategy, x->rx_opts.ro_max_inline_data,
		    x->rx_opts.ro_signal_every);
	x->rx_mrs.mt_max_cached = x->rx_opts.ro_mr_cache;
	rc = rpcrdma_sendctx_init(&x->rx_ring, rpcrdma_xprt_nsend(x),
				  x->rx_opts.ro_signal_every);
	if (rc)
		return rc;
	a = (struct rpcrdma_ep_attr){
		.ea_nrecv = nrecv,
		.ea_recv_size = x->rx_opts.ro_inline_recv,
		.ea_recv_first = x->rx_recv_first,
		.ea_nsend = rpcrdma_xprt_nsend(x),
		.ea_send_size = x->rx_opts.ro_send_buffer < x->rx_opts.ro_inline_send ?
				x->rx_opts.ro_send_buffer : x->rx_opts.ro_inline_send,
		.ea_max_inline = x->rx_opts.ro_max_inline_data,
		.ea_max_sge = RPCRDMA_XDRBUF_MAX_SEGS + 1,
		.ea_nrw = x->rx_nrw,
		.ea_extra_wr = x->rx_extra_wr,
		.ea_srq = x->rx_srq,
		/* Completions of every Call its grant may allow at once. */
		.ea_srq_recv = x->rx_opts.ro_max_requests,
	};
	rc = rpcrdma_ep_setup(&x->rx_ep, &a);
	if (rc && x->rx_ep.re_failed_step)
		RPCRDMA_DBG("endpoint setup on %s: %s: %s", dev ? dev : "?",
			    x->rx_ep.re_failed_step, strerror(-rc));

	x->rx_stats.rs_inline_granted = x->rx_ep.re_inline_granted;
	if (!rc)
		x->rx_stats.rs_ring_pinned = rpcrdma_ep_ring_bytes(&x->rx_ep);
	return rc;
}

ssize_t rpcrdma_xprt_private(struct rpcrdma_xprt *x, uint8_t *buf, size_t len)
{
	return rpcrdma_cm_private_encode(buf, len, x->rx_opts.ro_inline_send,
					 x->rx_opts.ro_inline_recv,
					 x->rx_remote_inv);
}

/* We may Send no more than the peer can receive, nor than we provisioned. */
void rpcrdma_xprt_negotiate(struct rpcrdma_xprt *x, const uint8_t *pdata,
			    uint8_t len)
{
	struct rpcrdma_cm_private p;
	bool offered = !rpcrdma_cm_private_decode(pdata, len, &p);

	x->rx_peer_remote_inv = p.pv_remote_inv;
	/* A server negotiates before its rings exist (svc_accept.c). */
	if (x->rx_src->os_role == RPCRDMA_CS_SERVER) {
		x->rx_peer = p;
		x->rx_peer_offered = offered;
		xprt_fit_peer(x);
	}
	x->rx_send_max = p.pv_recv_size < x->rx_opts.ro_inline_send ?
			 p.pv_recv_size : x->rx_opts.ro_inline_send;
}

int rpcrdma_xprt_fini(struct rpcrdma_xprt *x)
{
	struct rpcrdma_release r;
	int rc;

	rpcrdma_mr_table_fini(&x->rx_mrs);
	rc = rpcrdma_ep_destroy(&x->rx_ep);
	/* The QP is gone: nothing references the memory any more, but the
	 * Sends may not have arrived. */
	while (rpcrdma_relq_pop(&x->rx_rel, &r))
		r.rl_fn(r.rl_arg, ECONNRESET);
	rpcrdma_relq_fini(&x->rx_rel);
	/* Its CQ is gone with the QP: no completion can name them now. */
	free(x->rx_ahead);
	pthread_cond_destroy(&x->rx_sendctx_cond);
	pthread_mutex_destroy(&x->rx_post_lock);
	pthread_mutex_destroy(&x->rx_lock);
	if (x->rx_src == &x->rx_own_src)
		rpcrdma_optsrc_fini(&x->rx_own_src);
	return rc;
}

/* Every wait in the library is against CLOCK_MONOTONIC deadlines. */
int rpcrdma_cond_init(pthread_cond_t *c)
{
	pthread_condattr_t a;
	int rc;

	if (pthread_condattr_init(&a))
		return -ENOMEM;
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	rc = pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
	return rc ? -rc : 0;
}

void rpcrdma_deadline_ms(struct timespec *ts, unsigned int ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };

	rpcrdma_deadline(ts, &tv);
}

void rpcrdma_deadline(struct timespec *ts, const struct timeval *tv)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += tv->tv_sec;
	ts->tv_nsec += (long)tv->tv_usec * 1000;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

int rpcrdma_deadline_passed(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

int rpcrdma_xprt_repost(struct rpcrdma_xprt *x, struct rpcrdma_rep *rep)
{
	int rc = rpcrdma_post_recv(&x->rx_ep, rep);

	if (!rc)
		x->rx_stats.rs_recv_posted++;
	return rc;
}
