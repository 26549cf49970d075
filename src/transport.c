/*
 * Transport glue shared by client and server: tunable defaults, endpoint
 * setup sized from the options, RFC 8797 threshold negotiation, and the
 * pull-up Send path through the send-context ring.
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "transport.h"

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

void rpcrdma_options_init(struct rpcrdma_options *o)
{
	memset(o, 0, sizeof(*o));
	o->ro_max_requests = 32;
	o->ro_inline_send = 4096;
	o->ro_inline_recv = 4096;
	o->ro_signal_every = 8;
	o->ro_page_threshold = 1024;
	o->ro_connect_timeout_ms = 5000;
	o->ro_max_inline_data = 256;
}

/*
 * Bring every tunable into the range the wire and the code can honour.
 * Inline sizes are what RFC 8797 can express (1..256 KiB in 1 KiB steps);
 * rounding here means what we offer is exactly what we provision.
 */
void rpcrdma_options_sanitize(struct rpcrdma_options *o)
{
	if (o->ro_max_requests < 1)
		o->ro_max_requests = 1;
	if (o->ro_max_requests > 1024)
		o->ro_max_requests = 1024;
	if (o->ro_inline_send < RPCRDMA_CM_MIN_INLINE)
		o->ro_inline_send = RPCRDMA_CM_MIN_INLINE;
	if (o->ro_inline_send > RPCRDMA_CM_MAX_INLINE)
		o->ro_inline_send = RPCRDMA_CM_MAX_INLINE;
	o->ro_inline_send -= o->ro_inline_send % 1024;
	if (o->ro_inline_recv < RPCRDMA_CM_MIN_INLINE)
		o->ro_inline_recv = RPCRDMA_CM_MIN_INLINE;
	if (o->ro_inline_recv > RPCRDMA_CM_MAX_INLINE)
		o->ro_inline_recv = RPCRDMA_CM_MAX_INLINE;
	o->ro_inline_recv -= o->ro_inline_recv % 1024;
	if (o->ro_signal_every < 1)
		o->ro_signal_every = 1;
	if (o->ro_connect_timeout_ms < 1)
		o->ro_connect_timeout_ms = 1;
}

int rpcrdma_xprt_init(struct rpcrdma_xprt *x, const struct rpcrdma_options *o)
{
	memset(x, 0, sizeof(*x));
	if (o)
		x->rx_opts = *o;
	else
		rpcrdma_options_init(&x->rx_opts);
	rpcrdma_options_sanitize(&x->rx_opts);
	/* Until the peer says otherwise, RFC 8166's 1 KiB each way. */
	x->rx_send_max = RPCRDMA_DEFAULT_INLINE;
	x->rx_recv_max = x->rx_opts.ro_inline_recv;
	if (pthread_mutex_init(&x->rx_lock, NULL))
		return -ENOMEM;
	if (rpcrdma_cond_init(&x->rx_sendctx_cond)) {
		pthread_mutex_destroy(&x->rx_lock);
		return -ENOMEM;
	}
	return rpcrdma_sendctx_init(&x->rx_ring, x->rx_opts.ro_max_requests,
				    x->rx_opts.ro_signal_every);
}

/* One send buffer per credit: a Send never waits for more than its credit. */
int rpcrdma_xprt_setup_ep(struct rpcrdma_xprt *x, uint32_t nrecv)
{
	struct rpcrdma_ep_attr a = {
		.ea_nrecv = nrecv,
		.ea_recv_size = x->rx_opts.ro_inline_recv,
		.ea_nsend = x->rx_opts.ro_max_requests,
		.ea_send_size = x->rx_opts.ro_inline_send,
		.ea_max_inline = x->rx_opts.ro_max_inline_data,
	};

	return rpcrdma_ep_setup(&x->rx_ep, &a);
}

ssize_t rpcrdma_xprt_private(struct rpcrdma_xprt *x, uint8_t *buf, size_t len)
{
	return rpcrdma_cm_private_encode(buf, len, x->rx_opts.ro_inline_send,
					 x->rx_opts.ro_inline_recv, false);
}

/* We may Send no more than the peer can receive, nor than we provisioned. */
void rpcrdma_xprt_negotiate(struct rpcrdma_xprt *x, const uint8_t *pdata,
			    uint8_t len)
{
	struct rpcrdma_cm_private p;

	rpcrdma_cm_private_decode(pdata, len, &p);
	x->rx_send_max = p.cp_recv_size < x->rx_opts.ro_inline_send ?
			 p.cp_recv_size : x->rx_opts.ro_inline_send;
}

void rpcrdma_xprt_fini(struct rpcrdma_xprt *x)
{
	rpcrdma_ep_destroy(&x->rx_ep);
	pthread_cond_destroy(&x->rx_sendctx_cond);
	pthread_mutex_destroy(&x->rx_lock);
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

/*
 * Pull-up: copy the transport header and the whole XDR buffer into one
 * registered send buffer and post it as a single SGE.  Holding rx_lock
 * from get() to post keeps posting order equal to decision order, which
 * the ring's signaling logic relies on.
 */
int rpcrdma_xprt_send(struct rpcrdma_xprt *x, const void *hdr, size_t hdrlen,
		      const struct rpcrdma_xdr_buf *xb,
		      const struct timespec *deadline)
{
	size_t total = hdrlen + rpcrdma_xdrbuf_len(xb);
	struct rpcrdma_sendctx *sc;
	int idx, sig, rc;

	if (total > x->rx_send_max || total > x->rx_ep.re_send_size) {
		pthread_mutex_lock(&x->rx_lock);
		x->rx_stats.rs_too_large++;
		pthread_mutex_unlock(&x->rx_lock);
		return -EMSGSIZE;
	}
	pthread_mutex_lock(&x->rx_lock);
	for (;;) {
		if (x->rx_dead) {
			rc = x->rx_dead;
			goto out_unlock;
		}
		idx = rpcrdma_sendctx_get(&x->rx_ring);
		if (idx >= 0)
			break;
		x->rx_stats.rs_empty_sendctx_q++;
		if (x->rx_reap) {
			struct timespec now;

			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > deadline->tv_sec ||
			    (now.tv_sec == deadline->tv_sec &&
			     now.tv_nsec >= deadline->tv_nsec)) {
				rc = -ETIMEDOUT;
				goto out_unlock;
			}
			pthread_mutex_unlock(&x->rx_lock);
			x->rx_reap(x->rx_reap_arg);
			pthread_mutex_lock(&x->rx_lock);
			continue;
		}
		rc = pthread_cond_timedwait(&x->rx_sendctx_cond, &x->rx_lock,
					    deadline);
		if (rc == ETIMEDOUT) {
			rc = -ETIMEDOUT;
			goto out_unlock;
		}
	}
	sc = &x->rx_ep.re_sendctxs[idx];
	memcpy(sc->sc_buf, hdr, hdrlen);
	rpcrdma_xdrbuf_copy_out(xb, sc->sc_buf + hdrlen,
				x->rx_ep.re_send_size - hdrlen);
	sig = rpcrdma_sendctx_needs_signal(&x->rx_ring, (unsigned)idx, false);
	rc = rpcrdma_post_send_pullup(&x->rx_ep, sc, (uint32_t)total, sig > 0);
	if (rc) {
		/* Nothing was posted: the QP is broken; the caller gives up. */
		x->rx_dead = rc;
		goto out_unlock;
	}
	x->rx_stats.rs_pullup_sends++;
	x->rx_stats.rs_pullup_bytes += rpcrdma_xdrbuf_len(xb);
	if (sig > 0)
		x->rx_stats.rs_signaled_sends++;
out_unlock:
	pthread_mutex_unlock(&x->rx_lock);
	return rc;
}

/* A signaled Send completed: it and every older context are free again. */
void rpcrdma_xprt_send_done(struct rpcrdma_xprt *x,
			    struct rpcrdma_sendctx *sc, int ok)
{
	pthread_mutex_lock(&x->rx_lock);
	if (ok)
		rpcrdma_sendctx_complete(&x->rx_ring, sc->sc_index);
	else if (!x->rx_dead)
		x->rx_dead = -ECONNRESET;
	pthread_cond_broadcast(&x->rx_sendctx_cond);
	pthread_mutex_unlock(&x->rx_lock);
}

int rpcrdma_xprt_repost(struct rpcrdma_xprt *x, struct rpcrdma_rep *rep)
{
	int rc = rpcrdma_post_recv(&x->rx_ep, rep);

	if (!rc)
		x->rx_stats.rs_recv_posted++;
	return rc;
}
