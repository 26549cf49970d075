/*
 * Transport glue shared by client and server: the options a handle runs
 * with, endpoint setup sized from them, RFC 8797 threshold negotiation, and the
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
	if (rpcrdma_cond_init(&x->rx_sendctx_cond)) {
		pthread_mutex_destroy(&x->rx_lock);
		return -ENOMEM;
	}
	rpcrdma_mr_table_init(&x->rx_mrs, x->rx_opts.ro_mr_cache);
	/* Sends in flight are bounded by the ring; twice that leaves room
	 * for completed releases a reaper has not run yet. */
	if (rpcrdma_relq_init(&x->rx_rel, 2 * x->rx_opts.ro_max_requests)) {
		pthread_cond_destroy(&x->rx_sendctx_cond);
		pthread_mutex_destroy(&x->rx_lock);
		return -ENOMEM;
	}
	rc = rpcrdma_sendctx_init(&x->rx_ring, x->rx_opts.ro_max_requests,
				  x->rx_opts.ro_signal_every);
	if (rc)
		rpcrdma_relq_fini(&x->rx_rel);
	return rc;
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
 * One send buffer per credit: a Send never waits for more than its credit.
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
	RPCRDMA_DBG("options on device %s: strategy %u max_inline_data %u "
		    "signal_every %u", dev ? dev : "?",
		    x->rx_opts.ro_send_strategy, x->rx_opts.ro_max_inline_data,
		    x->rx_opts.ro_signal_every);
	x->rx_mrs.mt_max_cached = x->rx_opts.ro_mr_cache;
	rc = rpcrdma_sendctx_init(&x->rx_ring, x->rx_opts.ro_max_requests,
				  x->rx_opts.ro_signal_every);
	if (rc)
		return rc;
	a = (struct rpcrdma_ep_attr){
		.ea_nrecv = nrecv,
		.ea_recv_size = x->rx_opts.ro_inline_recv,
		.ea_nsend = x->rx_opts.ro_max_requests,
		.ea_send_size = x->rx_opts.ro_inline_send,
		.ea_max_inline = x->rx_opts.ro_max_inline_data,
		.ea_max_sge = RPCRDMA_XDRBUF_MAX_SEGS + 1,
		.ea_nrw = x->rx_nrw,
		.ea_extra_wr = x->rx_extra_wr,
	};
	rc = rpcrdma_ep_setup(&x->rx_ep, &a);
	if (rc && x->rx_ep.re_failed_step)
		RPCRDMA_DBG("endpoint setup on %s: %s: %s", dev ? dev : "?",
			    x->rx_ep.re_failed_step, strerror(-rc));

	x->rx_stats.rs_inline_granted = x->rx_ep.re_inline_granted;
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

	rpcrdma_cm_private_decode(pdata, len, &p);
	x->rx_peer_remote_inv = p.pv_remote_inv;
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
	pthread_cond_destroy(&x->rx_sendctx_cond);
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
		     struct rpcrdma_sendctx *sc, uint32_t hdrlen,
		     int inline_data, uint64_t seq, struct rpcrdma_sge *sg)
{
	uint32_t copied = hdrlen, *off = &copied;
	unsigned int i;
	int hard, rc;

	for (i = 0; i < pl->sp_nsge; i++) {
		const struct rpcrdma_plan_sge *ps = &pl->sp_sge[i];

		sg[i].sg_len = ps->pg_len;
		sg[i].sg_lkey = 0;
		sg[i].sg_addr = (uintptr_t)ps->pg_addr;
		if (inline_data)
			continue;
		switch (ps->pg_src) {
		case RPCRDMA_PS_HDR:
			sg[i].sg_addr = (uintptr_t)sc->sc_buf;
			sg[i].sg_lkey = rpcrdma_ep_send_lkey(&x->rx_ep);
			break;
		case RPCRDMA_PS_SCRATCH:
			/*
			 * Head and tail are small and live in a per-call
			 * scratch the caller reuses at once: copied beside
			 * the header, only caller memory (the pages) is
			 * still referenced once we return.  They always fit:
			 * the whole message is within the send buffer size.
			 */
			if (*off + ps->pg_len > x->rx_ep.re_send_size)
				return -ENOENT;
			memcpy(sc->sc_buf + *off, ps->pg_addr, ps->pg_len);
			sg[i].sg_addr = (uintptr_t)(sc->sc_buf + *off);
			sg[i].sg_lkey = rpcrdma_ep_send_lkey(&x->rx_ep);
			*off += ps->pg_len;
			break;
		case RPCRDMA_PS_CALLER:
			rc = rpcrdma_mr_map(&x->rx_mrs, &x->rx_ep, ps->pg_addr,
					    ps->pg_len, seq, x->rx_completed_seq,
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

int rpcrdma_deadline_passed(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/*
 * Take a send context, waiting while the ring is empty (counted): the
 * waiter reaps completions itself through rx_reap (event-loop.md).  Lock
 * held.
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
		if (rpcrdma_deadline_passed(deadline))
			return -ETIMEDOUT;
		pthread_mutex_unlock(&x->rx_lock);
		x->rx_reap(x->rx_reap_arg);
		pthread_mutex_lock(&x->rx_lock);
	}
}

/* The xid a Send carries: the transport header's first word (probes). */
static uint32_t hdr_xid(const void *hdr)
{
	uint32_t w;

	memcpy(&w, hdr, sizeof(w));
	return ntohl(w);
}

/* A Send carrying Writes is signaled: its completion frees their room. */
static bool pre_signals(const struct rpcrdma_send_pre *pre)
{
	return pre && pre->sp_nwrites;
}

/* Inline: the provider copies header and segments while posting. */
static int send_inline(struct rpcrdma_xprt *x, struct rpcrdma_sendctx *sc,
		       const void *hdr, uint32_t hdrlen,
		       const struct rpcrdma_xdr_buf *xb,
		       const struct rpcrdma_send_pre *pre, int *sig)
{
	struct rpcrdma_sge sg[RPCRDMA_XDRBUF_MAX_SEGS + 1];
	struct rpcrdma_sge_plan pl;
	int rc;

	rpcrdma_plan_sges(RPCRDMA_NOCH_INLINE, hdr, hdrlen, xb, &pl);
	fill_sges(x, &pl, sc, 0, 1, sc->sc_seq, sg);
	*sig = rpcrdma_sendctx_needs_signal(&x->rx_ring, sc->sc_index,
					    pre_signals(pre));
	rc = rpcrdma_post_send_sges(&x->rx_ep, sc, sg, pl.sp_nsge, 1, *sig > 0,
				    pre);
	if (!rc) {
		x->rx_stats.rs_inline_sends++;
		x->rx_stats.rs_inline_bytes += rpcrdma_xdrbuf_len(xb);
		RPCRDMA_PROBE5(send_posted, x, hdr_xid(hdr), "inline",
			       xb->xb_len, *sig > 0);
	}
	return rc;
}

/* Pull-up: one copy into the context's registered buffer, one SGE. */
static int send_pullup(struct rpcrdma_xprt *x, struct rpcrdma_sendctx *sc,
		       const void *hdr, uint32_t hdrlen,
		       const struct rpcrdma_xdr_buf *xb,
		       const struct rpcrdma_send_pre *pre, int *sig)
{
	size_t len = rpcrdma_xdrbuf_len(xb);
	int rc;

	memcpy(sc->sc_buf, hdr, hdrlen);
	rpcrdma_xdrbuf_copy_out(xb, sc->sc_buf + hdrlen,
				x->rx_ep.re_send_size - hdrlen);
	*sig = rpcrdma_sendctx_needs_signal(&x->rx_ring, sc->sc_index,
					    pre_signals(pre));
	rc = rpcrdma_post_send_pullup(&x->rx_ep, sc, (uint32_t)(hdrlen + len),
				      *sig > 0, pre);
	if (!rc) {
		x->rx_stats.rs_pullup_sends++;
		x->rx_stats.rs_pullup_bytes += len;
		RPCRDMA_PROBE5(send_posted, x, hdr_xid(hdr), "pullup", len,
			       *sig > 0);
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
		       const struct rpcrdma_xdr_buf *xb,
		       const struct rpcrdma_send_pre *pre, int *sig,
		       uint64_t *seqp)
{
	struct rpcrdma_sge sg[RPCRDMA_XDRBUF_MAX_SEGS + 1];
	struct rpcrdma_sge_plan pl;
	int rc;

	rpcrdma_plan_sges(RPCRDMA_NOCH_MAPPED, hdr, hdrlen, xb, &pl);
	memcpy(sc->sc_buf, hdr, hdrlen);
	/* Once per Send: release one-shot registrations of completed ones. */
	rpcrdma_mr_reap(&x->rx_mrs, x->rx_completed_seq);
	if (fill_sges(x, &pl, sc, hdrlen, 0, sc->sc_seq, sg))
		return -ENOENT;
	*sig = rpcrdma_sendctx_needs_signal(&x->rx_ring, sc->sc_index, true);
	rc = rpcrdma_post_send_sges(&x->rx_ep, sc, sg, pl.sp_nsge, 0, *sig > 0,
				    pre);
	if (!rc) {
		x->rx_stats.rs_mapped_sends++;
		x->rx_stats.rs_mapped_sges += pl.sp_nsge;
		RPCRDMA_PROBE5(send_posted, x, hdr_xid(hdr), "mapped",
			       xb->xb_len, *sig > 0);
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
 * Returns 0 and sets *seqp to 0, or, for a Send that gathers caller
 * memory (the XDR buffer's pages; head and tail are always copied), to its
 * sequence number: the caller must then wait with rpcrdma_xprt_wait_send()
 * before reusing that memory.  With rel, such a Send queues rel to run
 * once it has completed instead (*seqp stays 0, *queuedp is set), unless
 * the queue is full: then the caller waits as without rel.
 */
int rpcrdma_xprt_send_owned(struct rpcrdma_xprt *x, const void *hdr,
			    size_t hdrlen, const struct rpcrdma_xdr_buf *xb,
			    const struct timespec *deadline,
			    const struct rpcrdma_release *rel,
			    uint64_t *seqp, int *queuedp)
{
	return rpcrdma_xprt_send_chain(x, hdr, hdrlen, xb, deadline, rel, NULL,
				       seqp, queuedp);
}

/*
 * rpcrdma_xprt_send_owned(), with pre (transport.h): the Writes it
 * carries posted in front of the Send, in one post.  The Send is then
 * signaled and seen as gathering memory the caller owns (the Writes'),
 * so rel is queued for it, or *seqp is set, as above; and a post that
 * fails keeps the same promise (the chain may be posted in part).
 */
int rpcrdma_xprt_send_chain(struct rpcrdma_xprt *x, const void *hdr,
			    size_t hdrlen, const struct rpcrdma_xdr_buf *xb,
			    const struct timespec *deadline,
			    const struct rpcrdma_release *rel,
			    const struct rpcrdma_send_pre *pre,
			    uint64_t *seqp, int *queuedp)
{
	enum rpcrdma_strategy forced;
	struct rpcrdma_send_limits sl;
	struct rpcrdma_msg_shape ms;
	struct rpcrdma_choice ch;
	struct rpcrdma_sendctx *sc;
	int idx, sig = 0, rc;

	*seqp = 0;
	*queuedp = 0;
	pthread_mutex_lock(&x->rx_lock);
	forced = (enum rpcrdma_strategy)x->rx_opts.ro_send_strategy;
	send_limits(x, &sl);
	/* Why no inline Send With Invalidate: siw's provider refuses it
	 * (EINVAL at post time); the payload goes by pull-up or mapped. */
	if (pre && pre->sp_inv)
		sl.sl_max_inline = 0;
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
		rc = send_mapped(x, sc, hdr, (uint32_t)hdrlen, xb, pre, &sig,
				 seqp);
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
		rc = send_inline(x, sc, hdr, (uint32_t)hdrlen, xb, pre, &sig);
	else
		rc = send_pullup(x, sc, hdr, (uint32_t)hdrlen, xb, pre, &sig);
out_posted:
	if (pre_signals(pre))
		*seqp = sc->sc_seq;
	if (rc) {
		/* Nothing was posted, or a chain in part: the QP is broken;
		 * the caller gives up. */
		x->rx_dead = rc;
		goto out_queue;
	}
	count_fallback(&x->rx_stats, ch.ch_fallback);
	if (sig > 0)
		x->rx_stats.rs_signaled_sends++;
	if (pre && pre->sp_inv)
		x->rx_stats.rs_remote_inv_sends++;
out_queue:
	/* Queued while still holding the lock: in posting order. */
	if (*seqp && rel &&
	    !rpcrdma_relq_push(&x->rx_rel, *seqp, rel->rl_fn, rel->rl_arg)) {
		*seqp = 0;
		*queuedp = 1;
	}
out_unlock:
	pthread_mutex_unlock(&x->rx_lock);
	return rc;
}

int rpcrdma_xprt_send(struct rpcrdma_xprt *x, const void *hdr, size_t hdrlen,
		      const struct rpcrdma_xdr_buf *xb,
		      const struct timespec *deadline, uint64_t *seqp)
{
	int queued;

	return rpcrdma_xprt_send_owned(x, hdr, hdrlen, xb, deadline, NULL,
				       seqp, &queued);
}

/*
 * Run the releases whose Sends have completed, lock not held: their
 * callbacks may free the memory those Sends gathered.  Reapers call it
 * after taking Send completions.
 */
void rpcrdma_xprt_run_releases(struct rpcrdma_xprt *x)
{
	struct rpcrdma_release r;
	bool due;

	for (;;) {
		pthread_mutex_lock(&x->rx_lock);
		due = rpcrdma_relq_pop_due(&x->rx_rel, x->rx_completed_seq, &r);
		pthread_mutex_unlock(&x->rx_lock);
		if (!due)
			return;
		r.rl_fn(r.rl_arg, 0);
	}
}

/* Reap until the Send seq has completed (or the connection or the clock
 * ends): 0 or -ETIMEDOUT.  rx_lock held, dropped while reaping. */
static int reap_until_seq(struct rpcrdma_xprt *x, uint64_t seq,
			  const struct timespec *deadline)
{
	while (x->rx_completed_seq < seq && !x->rx_dead) {
		/* Reaping ourselves, we must watch the clock. */
		if (rpcrdma_deadline_passed(deadline))
			return -ETIMEDOUT;
		pthread_mutex_unlock(&x->rx_lock);
		x->rx_reap(x->rx_reap_arg);
		pthread_mutex_lock(&x->rx_lock);
	}
	return 0;
}

/*
 * Wait until the Send with sequence number seq has completed, so the
 * caller memory it gathered may be reused.  Completions arrive in posting
 * order, so any later completion implies this one.
 */
int rpcrdma_xprt_wait_send(struct rpcrdma_xprt *x, uint64_t seq,
			   const struct timespec *deadline)
{
	int rc;

	if (!seq)
		return 0;
	pthread_mutex_lock(&x->rx_lock);
	if (x->rx_completed_seq < seq && !x->rx_dead)
		x->rx_stats.rs_reply_waits_for_send++;
	rc = reap_until_seq(x, seq, deadline);
	pthread_mutex_unlock(&x->rx_lock);
	return rc;
}

/*
 * Why: memory a queued release holds (a server's chained Reply keeps its
 * chunk buffer until its Send completes) may be what a caller is short of.
 * Reap until every release queued now has run, or the deadline passes:
 * 0, -ETIMEDOUT, or -ENOENT if none was queued.  Their Sends are
 * signaled, so each completes.
 */
int rpcrdma_xprt_reclaim(struct rpcrdma_xprt *x, const struct timespec *deadline)
{
	uint64_t seq;
	int rc;

	pthread_mutex_lock(&x->rx_lock);
	seq = rpcrdma_relq_last_seq(&x->rx_rel);
	rc = seq ? reap_until_seq(x, seq, deadline) : -ENOENT;
	pthread_mutex_unlock(&x->rx_lock);
	if (seq)
		rpcrdma_xprt_run_releases(x);
	return rc;
}

/* A signaled Send completed: it and every older context are free again. */
void rpcrdma_xprt_send_done(struct rpcrdma_xprt *x,
			    struct rpcrdma_sendctx *sc, int ok)
{
	RPCRDMA_PROBE3(send_completed, x, sc->sc_seq, ok);
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
