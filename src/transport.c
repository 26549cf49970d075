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
	o->ro_send_strategy = RPCRDMA_SEND_AUTO;
	o->ro_inline_cutoff = 256;
	o->ro_mapped_min = 8192;
	o->ro_mr_cache = 0;
	o->ro_busy_poll_us = RPCRDMA_DEFAULT_BUSY_POLL_US;
	o->ro_max_reply = RPCRDMA_DEFAULT_MAX_REPLY;
	/* The process-wide default strategy, e.g. RPCRDMA_SEND_STRATEGY=mapped. */
	{
		const char *env = getenv("RPCRDMA_SEND_STRATEGY");
		int st = env ? rpcrdma_strategy_from_name(env) : -1;

		if (st >= 0)
			o->ro_send_strategy = (uint32_t)st;
	}
	/* How long a waiter spins on the CQ before it sleeps, in µs. */
	{
		const char *env = getenv("RPCRDMA_BUSY_POLL_US");
		char *end;
		unsigned long v;

		if (env && *env) {
			v = strtoul(env, &end, 10);
			if (!*end && v <= RPCRDMA_MAX_BUSY_POLL_US)
				o->ro_busy_poll_us = (uint32_t)v;
		}
	}
	/* Service threads of a server, e.g. RPCRDMA_SVC_THREADS=4. */
	{
		const char *env = getenv("RPCRDMA_SVC_THREADS");
		char *end;
		unsigned long v;

		if (env && *env) {
			v = strtoul(env, &end, 10);
			if (!*end)
				o->ro_svc_threads = v > RPCRDMA_MAX_SVC_THREADS ?
					RPCRDMA_MAX_SVC_THREADS : (uint32_t)v;
		}
	}
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
	if (o->ro_send_strategy > RPCRDMA_SEND_MAPPED)
		o->ro_send_strategy = RPCRDMA_SEND_AUTO;
	if (o->ro_max_inline_data > 4096)
		o->ro_max_inline_data = 4096;
	if (o->ro_busy_poll_us > RPCRDMA_MAX_BUSY_POLL_US)
		o->ro_busy_poll_us = RPCRDMA_MAX_BUSY_POLL_US;
	if (o->ro_svc_threads > RPCRDMA_MAX_SVC_THREADS)
		o->ro_svc_threads = RPCRDMA_MAX_SVC_THREADS;
	if (o->ro_max_reply > RPCRDMA_MAX_REPLY)
		o->ro_max_reply = RPCRDMA_MAX_REPLY;
	if (o->ro_call_chunks > RPCRDMA_CALL_CHUNKS_LONG)
		o->ro_call_chunks = RPCRDMA_CALL_CHUNKS_AUTO;
	if (o->ro_reply_chunks > RPCRDMA_REPLY_CHUNK_NEVER)
		o->ro_reply_chunks = RPCRDMA_REPLY_CHUNK_AUTO;
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
	rpcrdma_mr_table_init(&x->rx_mrs, x->rx_opts.ro_mr_cache);
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
		.ea_max_sge = RPCRDMA_XDRBUF_MAX_SEGS + 1,
		.ea_extra_wr = x->rx_extra_wr,
	};

	int rc = rpcrdma_ep_setup(&x->rx_ep, &a);

	x->rx_stats.rs_inline_granted = x->rx_ep.re_inline_granted;
	return rc;
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
	rpcrdma_mr_table_fini(&x->rx_mrs);
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

static void count_fallback(struct rpcrdma_stats *st, enum rpcrdma_fallback f)
{
	switch (f) {
	case RPCRDMA_FB_TOO_MANY_SGES:
		st->rs_fallback_too_many_sges++;
		break;
	case RPCRDMA_FB_TOO_BIG_FOR_INLINE:
		st->rs_fallback_too_big_for_inline++;
		break;
	case RPCRDMA_FB_TOO_BIG_FOR_SENDBUF:
		st->rs_fallback_too_big_for_sendbuf++;
		break;
	case RPCRDMA_FB_NOT_MAPPABLE:
		st->rs_fallback_not_mappable++;
		break;
	default:
		break;
	}
}

static void send_limits(const struct rpcrdma_xprt *x,
			struct rpcrdma_send_limits *sl)
{
	sl->sl_max_inline = x->rx_ep.re_inline_granted;
	sl->sl_max_sge = x->rx_ep.re_max_send_sge ? x->rx_ep.re_max_send_sge : 1;
	sl->sl_sendbuf = x->rx_ep.re_send_size;
	sl->sl_peer_inline = x->rx_send_max;
	sl->sl_inline_cutoff = x->rx_opts.ro_inline_cutoff;
	sl->sl_mapped_min = x->rx_opts.ro_mapped_min;
}

/*
 * Turn an SGE plan into gather entries with lkeys.  Mapping caller memory
 * may register it now (counted); failing that, the caller falls back.
 */
static int fill_sges(struct rpcrdma_xprt *x, const struct rpcrdma_sge_plan *pl,
		     struct rpcrdma_sendctx *sc, uint32_t scratch_lkey,
		     int inline_data, uint64_t seq, struct rpcrdma_sge *sg)
{
	unsigned int i;
	int hard, rc;

	for (i = 0; i < pl->sp_nsge; i++) {
		const struct rpcrdma_plan_sge *ps = &pl->sp_sge[i];

		sg[i].sg_len = ps->ps_len;
		sg[i].sg_lkey = 0;
		sg[i].sg_addr = (uintptr_t)ps->ps_addr;
		if (inline_data)
			continue;
		switch (ps->ps_src) {
		case RPCRDMA_PS_HDR:
			sg[i].sg_addr = (uintptr_t)sc->sc_buf;
			sg[i].sg_lkey = rpcrdma_ep_send_lkey(&x->rx_ep);
			break;
		case RPCRDMA_PS_SCRATCH:
			sg[i].sg_lkey = scratch_lkey;
			break;
		case RPCRDMA_PS_CALLER:
			rc = rpcrdma_mr_map(&x->rx_mrs, &x->rx_ep, ps->ps_addr,
					    ps->ps_len, seq, x->rx_completed_seq,
					    &sg[i].sg_lkey, &hard);
			if (rc)
				return rc;
			if (hard)
				x->rx_stats.rs_hardway_register_count++;
			break;
		}
	}
	return 0;
}

static int deadline_passed(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/*
 * Take a send context, waiting while the ring is empty (counted).  Without
 * a progress thread the waiter reaps completions itself.  Lock held.
 */
static int get_sendctx(struct rpcrdma_xprt *x, const struct timespec *deadline)
{
	int idx;

	for (;;) {
		if (x->rx_dead)
			return x->rx_dead;
		idx = rpcrdma_sendctx_get(&x->rx_ring);
		if (idx >= 0)
			return idx;
		x->rx_stats.rs_empty_sendctx_q++;
		if (!x->rx_reap) {
			if (pthread_cond_timedwait(&x->rx_sendctx_cond,
						   &x->rx_lock, deadline) ==
			    ETIMEDOUT)
				return -ETIMEDOUT;
			continue;
		}
		if (deadline_passed(deadline))
			return -ETIMEDOUT;
		pthread_mutex_unlock(&x->rx_lock);
		x->rx_reap(x->rx_reap_arg);
		pthread_mutex_lock(&x->rx_lock);
	}
}

/* Inline: the provider copies header and segments while posting. */
static int send_inline(struct rpcrdma_xprt *x, struct rpcrdma_sendctx *sc,
		       const void *hdr, uint32_t hdrlen,
		       const struct rpcrdma_xdr_buf *xb, int *sig)
{
	struct rpcrdma_sge sg[RPCRDMA_XDRBUF_MAX_SEGS + 1];
	struct rpcrdma_sge_plan pl;
	int rc;

	rpcrdma_plan_sges(RPCRDMA_NOCH_INLINE, hdr, hdrlen, xb, &pl);
	fill_sges(x, &pl, sc, 0, 1, sc->sc_seq, sg);
	*sig = rpcrdma_sendctx_needs_signal(&x->rx_ring, sc->sc_index, false);
	rc = rpcrdma_post_send_sges(&x->rx_ep, sc, sg, pl.sp_nsge, 1, *sig > 0);
	if (!rc) {
		x->rx_stats.rs_inline_sends++;
		x->rx_stats.rs_inline_bytes += rpcrdma_xdrbuf_len(xb);
	}
	return rc;
}

/* Pull-up: one copy into the context's registered buffer, one SGE. */
static int send_pullup(struct rpcrdma_xprt *x, struct rpcrdma_sendctx *sc,
		       const void *hdr, uint32_t hdrlen,
		       const struct rpcrdma_xdr_buf *xb, int *sig)
{
	size_t len = rpcrdma_xdrbuf_len(xb);
	int rc;

	memcpy(sc->sc_buf, hdr, hdrlen);
	rpcrdma_xdrbuf_copy_out(xb, sc->sc_buf + hdrlen,
				x->rx_ep.re_send_size - hdrlen);
	*sig = rpcrdma_sendctx_needs_signal(&x->rx_ring, sc->sc_index, false);
	rc = rpcrdma_post_send_pullup(&x->rx_ep, sc, (uint32_t)(hdrlen + len),
				      *sig > 0);
	if (!rc) {
		x->rx_stats.rs_pullup_sends++;
		x->rx_stats.rs_pullup_bytes += len;
	}
	return rc;
}

/*
 * Mapped: the header from the context's buffer, every segment where it
 * is.  The device reads the caller's memory and the scratch, both reused
 * once the call returns, so the Send is always signaled and *seqp tells
 * the caller which completion to wait for.  -ENOENT (nothing posted)
 * when some memory could not be registered.
 */
static int send_mapped(struct rpcrdma_xprt *x, struct rpcrdma_sendctx *sc,
		       const void *hdr, uint32_t hdrlen,
		       const struct rpcrdma_xdr_buf *xb, uint32_t scratch_lkey,
		       int *sig, uint64_t *seqp)
{
	struct rpcrdma_sge sg[RPCRDMA_XDRBUF_MAX_SEGS + 1];
	struct rpcrdma_sge_plan pl;
	int rc;

	rpcrdma_plan_sges(RPCRDMA_NOCH_MAPPED, hdr, hdrlen, xb, &pl);
	memcpy(sc->sc_buf, hdr, hdrlen);
	/* Once per Send: release one-shot registrations of completed ones. */
	rpcrdma_mr_reap(&x->rx_mrs, x->rx_completed_seq);
	if (fill_sges(x, &pl, sc, scratch_lkey, 0, sc->sc_seq, sg))
		return -ENOENT;
	*sig = rpcrdma_sendctx_needs_signal(&x->rx_ring, sc->sc_index, true);
	rc = rpcrdma_post_send_sges(&x->rx_ep, sc, sg, pl.sp_nsge, 0, *sig > 0);
	if (!rc) {
		x->rx_stats.rs_mapped_sends++;
		x->rx_stats.rs_mapped_sges += pl.sp_nsge;
		*seqp = sc->sc_seq;
	}
	return rc;
}

/*
 * Post one message: the chooser picks inline, pull-up or mapped for this
 * shape on this QP (or honours the forced strategy, falling back when it
 * cannot carry the message, counted), then one helper builds the Send.
 * Holding rx_lock from get() to post keeps posting order equal to
 * decision order, which the ring's signaling logic relies on.
 *
 * Returns 0 and sets *seqp to 0, or, for a Send that gathers memory the
 * caller will reuse, to its sequence number: the caller must then wait
 * with rpcrdma_xprt_wait_send() before reusing that memory.
 */
int rpcrdma_xprt_send(struct rpcrdma_xprt *x, const void *hdr, size_t hdrlen,
		      const struct rpcrdma_xdr_buf *xb, uint32_t scratch_lkey,
		      const struct timespec *deadline, uint64_t *seqp)
{
	enum rpcrdma_strategy forced =
		(enum rpcrdma_strategy)x->rx_opts.ro_send_strategy;
	struct rpcrdma_send_limits sl;
	struct rpcrdma_msg_shape ms;
	struct rpcrdma_choice ch;
	struct rpcrdma_sendctx *sc;
	int idx, sig = 0, rc;

	*seqp = 0;
	pthread_mutex_lock(&x->rx_lock);
	send_limits(x, &sl);
	/* Any memory can be registered when needed (counted). */
	rpcrdma_msg_shape_of(xb, (uint32_t)hdrlen, true, &ms);
	rc = rpcrdma_choose(&ms, &sl, forced, &ch);
	if (rc) {
		x->rx_stats.rs_too_large++;
		goto out_unlock;
	}
	idx = get_sendctx(x, deadline);
	if (idx < 0) {
		rc = idx;
		goto out_unlock;
	}
	sc = &x->rx_ep.re_sendctxs[idx];
	sc->sc_seq = ++x->rx_send_seq;

	if (ch.ch_type == RPCRDMA_NOCH_MAPPED) {
		rc = send_mapped(x, sc, hdr, (uint32_t)hdrlen, xb, scratch_lkey,
				 &sig, seqp);
		if (rc != -ENOENT)
			goto out_posted;
		/* The memory could not be registered: choose again without
		 * mapping; the chooser reports (and we count) why. */
		ms.ms_mappable = false;
		if (rpcrdma_choose(&ms, &sl, forced, &ch) ||
		    ch.ch_type == RPCRDMA_NOCH_MAPPED) {
			rpcrdma_sendctx_unget(&x->rx_ring, (unsigned)idx);
			rc = -ENOMEM;
			goto out_unlock;
		}
	}
	if (ch.ch_type == RPCRDMA_NOCH_INLINE)
		rc = send_inline(x, sc, hdr, (uint32_t)hdrlen, xb, &sig);
	else
		rc = send_pullup(x, sc, hdr, (uint32_t)hdrlen, xb, &sig);
out_posted:
	if (rc) {
		/* Nothing was posted: the QP is broken; the caller gives up. */
		x->rx_dead = rc;
		goto out_unlock;
	}
	count_fallback(&x->rx_stats, ch.ch_fallback);
	if (sig > 0)
		x->rx_stats.rs_signaled_sends++;
out_unlock:
	pthread_mutex_unlock(&x->rx_lock);
	return rc;
}

/*
 * Wait until the Send with sequence number seq has completed, so the
 * caller memory it gathered may be reused.  Completions arrive in posting
 * order, so any later completion implies this one.
 */
int rpcrdma_xprt_wait_send(struct rpcrdma_xprt *x, uint64_t seq,
			   const struct timespec *deadline)
{
	int rc = 0, waited = 0;

	if (!seq)
		return 0;
	pthread_mutex_lock(&x->rx_lock);
	while (x->rx_completed_seq < seq && !x->rx_dead) {
		if (!waited++)
			x->rx_stats.rs_reply_waits_for_send++;
		if (x->rx_reap) {
			/* Reaping ourselves, we must watch the clock. */
			if (deadline_passed(deadline)) {
				rc = -ETIMEDOUT;
				break;
			}
			pthread_mutex_unlock(&x->rx_lock);
			x->rx_reap(x->rx_reap_arg);
			pthread_mutex_lock(&x->rx_lock);
			continue;
		}
		if (pthread_cond_timedwait(&x->rx_sendctx_cond, &x->rx_lock,
					   deadline) == ETIMEDOUT) {
			rc = -ETIMEDOUT;
			break;
		}
	}
	pthread_mutex_unlock(&x->rx_lock);
	return rc;
}

/* A signaled Send completed: it and every older context are free again. */
void rpcrdma_xprt_send_done(struct rpcrdma_xprt *x,
			    struct rpcrdma_sendctx *sc, int ok)
{
	pthread_mutex_lock(&x->rx_lock);
	if (ok) {
		rpcrdma_sendctx_complete(&x->rx_ring, sc->sc_index);
		if (sc->sc_seq > x->rx_completed_seq)
			x->rx_completed_seq = sc->sc_seq;
	}
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
