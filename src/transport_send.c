/*
 * The Send path shared by client and server: the chooser's strategy for
 * each message, the send-context ring, the post queue (whoever holds
 * rx_post_lock posts what others decided), and what a Send's completion
 * releases.  Who waits and who posts: event-loop.md, "Locks".
 */
#include "config.h"
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <arpa/inet.h>
#include "transport.h"
#include "probes.h"

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

uint32_t rpcrdma_xprt_plan_max(const struct rpcrdma_xprt *x,
			       const struct rpcrdma_xdr_buf *xb,
			       uint32_t hdr_room)
{
	struct rpcrdma_send_limits sl;
	struct rpcrdma_msg_shape ms;

	/* Send buffers as large as the peer's limit (a server's, fitted,
	 * and a client's to the kernel's server): no shape to look at. */
	if (x->rx_send_max <= x->rx_ep.re_send_size)
		return x->rx_send_max;
	send_limits(x, &sl);
	/* Any memory can be registered when needed, as at the Send. */
	rpcrdma_msg_shape_of(xb, hdr_room, true, &ms);
	return rpcrdma_send_plan_max(&ms, &sl);
}

/*
 * Turn a mapped Send's SGE plan into gather entries with lkeys.  Mapping
 * caller memory may register it now (counted); failing that, the caller
 * falls back.
 */
static int fill_sges(struct rpcrdma_xprt *x, const struct rpcrdma_sge_plan *pl,
		     struct rpcrdma_sendctx *sc, uint32_t hdrlen,
		     uint64_t seq, struct rpcrdma_sge *sg)
{
	uint32_t copied = hdrlen, *off = &copied;
	unsigned int i;
	int hard, rc;

	for (i = 0; i < pl->sp_nsge; i++) {
		const struct rpcrdma_plan_sge *ps = &pl->sp_sge[i];

		sg[i].sg_len = ps->pg_len;
		sg[i].sg_lkey = 0;
		sg[i].sg_addr = (uintptr_t)ps->pg_addr;
		switch (ps->pg_src) {
		case RPCRDMA_PS_HDR:
			sg[i].sg_addr = (uintptr_t)sc->sc_buf;
			sg[i].sg_lkey = sc->sc_lkey;
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
			sg[i].sg_lkey = sc->sc_lkey;
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

/*
 * Take rx_lock and a send context: its index, lock held; or, lock
 * dropped, why not.  While the ring is empty (counted) the sender reaps
 * completions itself through rx_reap (event-loop.md), no lock held.
 */
static int get_sendctx(struct rpcrdma_xprt *x, const struct timespec *deadline)
{
	int idx;

	pthread_mutex_lock(&x->rx_lock);
	for (;;) {
		if (x->rx_dead) {
			idx = x->rx_dead;
			break;
		}
		idx = rpcrdma_sendctx_get(&x->rx_ring);
		if (idx >= 0)
			return idx;
		x->rx_stats.rs_empty_sendctx_q++;
		if (rpcrdma_deadline_passed(deadline)) {
			idx = -ETIMEDOUT;
			break;
		}
		pthread_mutex_unlock(&x->rx_lock);
		x->rx_reap(x->rx_reap_arg);
		pthread_mutex_lock(&x->rx_lock);
	}
	pthread_mutex_unlock(&x->rx_lock);
	return idx;
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

/* A Send as decided under rx_lock, before it is queued for posting. */
struct send_wr {
	struct rpcrdma_sge sw_sg[RPCRDMA_XDRBUF_MAX_SEGS + 1];
	unsigned int sw_nsge;		/* mapped: its gather list */
	uint32_t sw_len;		/* copied: bytes in the context's buffer */
	int sw_sig;			/* rpcrdma_sendctx_needs_signal() */
	enum rpcrdma_chunktype sw_type;	/* what to count */
};

/*
 * Inline or pull-up: header and message copied into the context's
 * buffer, so the Send needs no memory of its sender's and whoever holds
 * rx_post_lock may post it later (post_pending).  Inline, the provider
 * copies it again while posting; a message that small costs little.
 */
static void build_copied(struct rpcrdma_xprt *x, struct rpcrdma_sendctx *sc,
			 const void *hdr, uint32_t hdrlen,
			 const struct rpcrdma_xdr_buf *xb,
			 const struct rpcrdma_send_pre *pre, struct send_wr *sw)
{
	size_t len = rpcrdma_xdrbuf_len(xb);

	memcpy(sc->sc_buf, hdr, hdrlen);
	rpcrdma_xdrbuf_copy_out(xb, sc->sc_buf + hdrlen,
				x->rx_ep.re_send_size - hdrlen);
	sw->sw_nsge = 0;
	sw->sw_len = (uint32_t)(hdrlen + len);
	sw->sw_sig = rpcrdma_sendctx_needs_signal(&x->rx_ring, sc->sc_index,
						  pre_signals(pre));
}

/*
 * Mapped: the header from the context's buffer, every segment where it
 * is.  The device reads the caller's memory and the scratch, both reused
 * once the call returns, so the Send is always signaled and the caller
 * is told which completion to wait for.  -ENOENT (nothing decided) when
 * some memory could not be registered.
 */
static int build_mapped(struct rpcrdma_xprt *x, struct rpcrdma_sendctx *sc,
			const void *hdr, uint32_t hdrlen,
			const struct rpcrdma_xdr_buf *xb, struct send_wr *sw)
{
	struct rpcrdma_sge_plan pl;

	rpcrdma_plan_sges(RPCRDMA_NOCH_MAPPED, hdr, hdrlen, xb, &pl);
	memcpy(sc->sc_buf, hdr, hdrlen);
	/* Once per Send: release one-shot registrations of completed ones. */
	rpcrdma_mr_reap(&x->rx_mrs, x->rx_completed_seq);
	if (fill_sges(x, &pl, sc, hdrlen, sc->sc_seq, sw->sw_sg))
		return -ENOENT;
	sw->sw_nsge = pl.sp_nsge;
	sw->sw_len = 0;
	sw->sw_sig = rpcrdma_sendctx_needs_signal(&x->rx_ring, sc->sc_index,
						  true);
	return 0;
}

/*
 * A copy its sender owns (sp_body): the header from the context's
 * buffer, then the copy, registered by its owner.  Signaled, as a mapped
 * Send is: the owner releases the copy on its completion.
 */
static void build_owned(struct rpcrdma_xprt *x, struct rpcrdma_sendctx *sc,
			const void *hdr, uint32_t hdrlen,
			const struct rpcrdma_sge *body, struct send_wr *sw)
{
	memcpy(sc->sc_buf, hdr, hdrlen);
	sw->sw_type = RPCRDMA_NOCH_MAPPED;
	sw->sw_sg[0].sg_addr = (uintptr_t)sc->sc_buf;
	sw->sw_sg[0].sg_len = hdrlen;
	sw->sw_sg[0].sg_lkey = sc->sc_lkey;
	sw->sw_sg[1] = *body;
	sw->sw_nsge = 2;
	sw->sw_len = 0;
	sw->sw_sig = rpcrdma_sendctx_needs_signal(&x->rx_ring, sc->sc_index,
						  true);
}

/* Queue the decided Send behind the others not yet posted (rx_lock held). */
static void queue_send(struct rpcrdma_xprt *x, struct rpcrdma_sendctx *sc,
		       const struct send_wr *sw,
		       const struct rpcrdma_send_pre *pre, int *rcp)
{
	sc->sc_sg = sw->sw_nsge ? sw->sw_sg : NULL;
	sc->sc_pre = pre;
	sc->sc_rcp = rcp;
	sc->sc_len = sw->sw_len;
	sc->sc_nsge = (uint16_t)sw->sw_nsge;
	sc->sc_inline = sw->sw_type == RPCRDMA_NOCH_INLINE;
	sc->sc_signaled = sw->sw_sig > 0;
	/* Decided just now, under the same lock: it is the newest. */
	(void)rpcrdma_sendctx_queue(&x->rx_ring, sc->sc_index);
}

/*
 * Take the oldest Sends waiting to be posted (rx_lock held): a run of
 * copied ones, or one that has Writes in front or gathers its sender's
 * memory alone.  Where each one's sender waits for the result (NULL: it
 * does not) goes in rcps, read now: once posted, a context may complete
 * and be decided again before we look.
 */
static unsigned int take_run(struct rpcrdma_xprt *x,
			     struct rpcrdma_sendctx **run, int **rcps)
{
	unsigned int n = 0;
	int idx;

	while (n < RPCRDMA_POST_RUN &&
	       (idx = rpcrdma_sendctx_next_queued(&x->rx_ring)) >= 0) {
		struct rpcrdma_sendctx *sc = &x->rx_ep.re_sendctxs[idx];
		bool alone = sc->sc_sg || sc->sc_pre;

		if (alone && n)
			break;
		run[n] = sc;
		rcps[n++] = sc->sc_rcp;
		rpcrdma_sendctx_dequeue(&x->rx_ring);
		if (alone)
			break;
	}
	return n;
}

/* Post a run take_run() took, rx_post_lock held: 0, or why not. */
static int post_run(struct rpcrdma_xprt *x, struct rpcrdma_sendctx *const *run,
		    unsigned int n, unsigned int *posted)
{
	const struct rpcrdma_sendctx *sc = run[0];
	struct rpcrdma_sge own = {
		.sg_addr = (uintptr_t)sc->sc_buf,
		.sg_len = sc->sc_len,
		.sg_lkey = sc->sc_lkey,
	};
	int rc;

	if (!sc->sc_sg && !sc->sc_pre)
		return rpcrdma_post_send_run(&x->rx_ep, run, n, posted);
	/* Alone: with Writes in front, or gathering its sender's memory. */
	rc = rpcrdma_post_send_sges(&x->rx_ep, run[0],
				    sc->sc_sg ? sc->sc_sg : &own,
				    sc->sc_sg ? sc->sc_nsge : 1,
				    sc->sc_inline, sc->sc_signaled, sc->sc_pre);
	*posted = rc ? 0 : 1;
	return rc;
}

/*
 * A post failed: the QP is broken.  Nothing more is posted; the senders
 * still waiting are told why, and if a Send whose sender did not wait
 * was lost, the connection is torn down so that its call learns it the
 * way it learns of any lost connection (its peer, the CM event).
 */
static void post_failed(struct rpcrdma_xprt *x, int *const *rcps,
			unsigned int n, int rc)
{
	bool lost = false;
	unsigned int i;
	int idx;

	pthread_mutex_lock(&x->rx_lock);
	if (!x->rx_dead)
		x->rx_dead = rc;
	for (i = 0; i < n; i++) {
		if (rcps[i])
			*rcps[i] = rc;
		else
			lost = true;
	}
	while ((idx = rpcrdma_sendctx_next_queued(&x->rx_ring)) >= 0) {
		if (x->rx_ep.re_sendctxs[idx].sc_rcp)
			*x->rx_ep.re_sendctxs[idx].sc_rcp = rc;
		else
			lost = true;
		rpcrdma_sendctx_dequeue(&x->rx_ring);
	}
	pthread_mutex_unlock(&x->rx_lock);
	if (lost)
		rpcrdma_ep_disconnect(&x->rx_ep);
}

/*
 * Post every Send waiting, oldest first: both locks held on entry,
 * neither on return (rx_lock still, with @hold).  rx_post_lock is let
 * go under rx_lock once nothing is left: a sender that queues after that
 * finds it free, one that queued before was posted here, so no Send is
 * left behind (send_chain).
 */
static void post_pending(struct rpcrdma_xprt *x, bool hold)
{
	struct rpcrdma_sendctx *run[RPCRDMA_POST_RUN];
	int *rcps[RPCRDMA_POST_RUN];
	unsigned int n, posted, i;
	int rc;

	while ((n = take_run(x, run, rcps))) {
		pthread_mutex_unlock(&x->rx_lock);
		rc = post_run(x, run, n, &posted);
		for (i = 0; i < posted; i++)
			if (rcps[i])
				*rcps[i] = 0;
		if (rc)
			post_failed(x, rcps + posted, n - posted, rc);
		pthread_mutex_lock(&x->rx_lock);
	}
	pthread_mutex_unlock(&x->rx_post_lock);
	if (!hold)
		pthread_mutex_unlock(&x->rx_lock);
}

/*
 * Count a decided Send, rx_lock held.  Counted as it is queued, not
 * once posted: its post may be another sender's (post_pending), and a
 * post fails only with the connection.
 */
static void count_send(struct rpcrdma_xprt *x, const struct rpcrdma_xdr_buf *xb,
		       const struct send_wr *sw,
		       const struct rpcrdma_send_pre *pre)
{
	struct rpcrdma_stats *st = &x->rx_stats;
	uint64_t len = rpcrdma_xdrbuf_len(xb);

	switch (sw->sw_type) {
	case RPCRDMA_NOCH_INLINE:
		st->rs_inline_sends++;
		st->rs_inline_bytes += len;
		break;
	case RPCRDMA_NOCH_MAPPED:
		st->rs_mapped_sends++;
		st->rs_mapped_sges += sw->sw_nsge;
		break;
	default:
		st->rs_pullup_sends++;
		st->rs_pullup_bytes += len;
		break;
	}
	if (sw->sw_sig > 0)
		st->rs_signaled_sends++;
	if (pre && pre->sp_inv)
		st->rs_remote_inv_sends++;
}

/* A decided Send: its probe (send_posted, as it is queued to post). */
static void probe_send(struct rpcrdma_xprt *x, const void *hdr,
		       const struct rpcrdma_xdr_buf *xb,
		       const struct send_wr *sw)
{
	size_t len = sw->sw_type == RPCRDMA_NOCH_PULLUP ?
		     rpcrdma_xdrbuf_len(xb) : xb->xb_len;

	RPCRDMA_PROBE5(send_posted, x, hdr_xid(hdr),
		       rpcrdma_chunktype_name(sw->sw_type), len,
		       sw->sw_sig > 0);
}

/*
 * Post one message: the chooser picks inline, pull-up or mapped for this
 * shape on this QP (or honours the forced strategy, falling back when it
 * cannot carry the message, counted), then one helper builds the Send.
 *
 * Two locks (event-loop.md): rx_post_lock is held from taking the send
 * context to the post, so posting order equals the ring's order, which
 * its signaling relies on; rx_lock only while deciding and counting.
 * Why: a post is a system call (a doorbell; on siw the transmit itself),
 * and under rx_lock every reaper and caller of the connection queued
 * behind it.
 *
 * Returns 0 and sets *seqp to 0, or, for a Send that gathers caller
 * memory (the XDR buffer's pages; head and tail are always copied), to its
 * sequence number: the caller must then wait with rpcrdma_xprt_wait_send()
 * before reusing that memory.  With rel, such a Send queues rel to run
 * once it has completed instead (*seqp stays 0, *queuedp is set), unless
 * the queue is full: then the caller waits as without rel.
 *
 * With pre (transport.h), the Writes it carries are posted in front of
 * the Send, in one post.  The Send is then signaled and seen as
 * gathering memory the caller owns (the Writes'), so rel is queued for
 * it, or *seqp is set, as above; and a post that fails keeps the same
 * promise (the chain may be posted in part).  With @hold, rx_lock is
 * held on return, whatever the outcome; else not.
 */
static int send_chain(struct rpcrdma_xprt *x, const void *hdr, size_t hdrlen,
		      const struct rpcrdma_xdr_buf *xb,
		      const struct timespec *deadline,
		      const struct rpcrdma_release *rel,
		      const struct rpcrdma_send_pre *pre,
		      uint64_t *seqp, int *queuedp, bool hold)
{
	enum rpcrdma_strategy forced;
	struct rpcrdma_send_limits sl;
	struct rpcrdma_msg_shape ms;
	struct rpcrdma_choice ch;
	struct rpcrdma_sendctx *sc;
	struct send_wr sw;
	int idx, rc, my_rc = -EIO;
	bool foreign;

	*seqp = 0;
	*queuedp = 0;
	idx = get_sendctx(x, deadline);		/* rx_lock, on success */
	if (idx < 0) {
		if (hold)
			pthread_mutex_lock(&x->rx_lock);
		return idx;
	}
	sc = &x->rx_ep.re_sendctxs[idx];
	if (__builtin_expect(!sc->sc_ready, 0)) {
		/* First use of its chunk: registered now, once. */
		rc = rpcrdma_ep_send_buf(&x->rx_ep, sc);
		RPCRDMA_DBG("send buffers %u..: registered: %d", sc->sc_index, rc);
		if (rc)
			goto out_unget;
		x->rx_stats.rs_ring_pinned = rpcrdma_ep_ring_bytes(&x->rx_ep);
	}
	forced = (enum rpcrdma_strategy)x->rx_opts.ro_send_strategy;
	send_limits(x, &sl);
	/* Why no inline Send With Invalidate: siw's provider refuses it
	 * (EINVAL at post time); the payload goes by pull-up or mapped. */
	if (pre && pre->sp_inv)
		sl.sl_max_inline = 0;
	if (pre && pre->sp_body) {
		/* A copy the sender owns: nothing to choose. */
		sc->sc_seq = ++x->rx_send_seq;
		build_owned(x, sc, hdr, (uint32_t)hdrlen, pre->sp_body, &sw);
		ch.ch_type = RPCRDMA_NOCH_MAPPED;
		ch.ch_fallback = RPCRDMA_FB_NONE;
		goto decided;
	}
	/* Any memory can be registered when needed (counted), unless the
	 * sender will not wait for the Send (sp_copy). */
	rpcrdma_msg_shape_of(xb, (uint32_t)hdrlen, !(pre && pre->sp_copy), &ms);
	rc = rpcrdma_choose(&ms, &sl, forced, &ch);
	if (rc) {
		x->rx_stats.rs_too_large++;
		goto out_unget;
	}
	sc->sc_seq = ++x->rx_send_seq;

	sw.sw_type = ch.ch_type;
	if (ch.ch_type == RPCRDMA_NOCH_MAPPED &&
	    build_mapped(x, sc, hdr, (uint32_t)hdrlen, xb, &sw)) {
		/* The memory could not be registered: choose again without
		 * mapping; the chooser reports (and we count) why. */
		ms.ms_mappable = false;
		if (rpcrdma_choose(&ms, &sl, forced, &ch) ||
		    ch.ch_type == RPCRDMA_NOCH_MAPPED) {
			x->rx_send_seq--;
			rc = -ENOMEM;
			goto out_unget;
		}
		sw.sw_type = ch.ch_type;
	}
	if (sw.sw_type != RPCRDMA_NOCH_MAPPED)
		build_copied(x, sc, hdr, (uint32_t)hdrlen, xb, pre, &sw);
decided:
	/* Caller memory is read until the Send completes: said before the
	 * post, so that a chain posted in part keeps the promise too, and
	 * queued before it, in posting order, so that its completion finds
	 * it (this may hold the memory until the QP goes if the post fails).
	 * A mapped Send without references gathers only its own buffer. */
	if ((sw.sw_type == RPCRDMA_NOCH_MAPPED &&
	     (rpcrdma_xdrbuf_nrefs(xb) || (pre && pre->sp_body))) ||
	    pre_signals(pre))
		*seqp = sc->sc_seq;
	if (*seqp && rel &&
	    !rpcrdma_relq_push(&x->rx_rel, *seqp, rel->rl_fn, rel->rl_arg)) {
		*seqp = 0;
		*queuedp = 1;
	}
	count_send(x, xb, &sw, pre);
	count_fallback(&x->rx_stats, ch.ch_fallback);
	probe_send(x, hdr, xb, &sw);

	/*
	 * A Send that gathers its sender's memory, or has Writes in front,
	 * is posted before its sender returns: the sender waits its turn
	 * on rx_post_lock.  A copied one needs nothing of its sender's: if
	 * another sender is posting, that one posts it too (one post, one
	 * doorbell, for every Send queued meanwhile) and this one returns
	 * at once.  Why: a post is a system call (on siw, the transmit
	 * itself), and many callers of one connection queued behind each
	 * other's, each asleep on the lock.
	 */
	foreign = sw.sw_type == RPCRDMA_NOCH_MAPPED || pre;
	queue_send(x, sc, &sw, pre, foreign ? &my_rc : NULL);
	if (!pthread_mutex_trylock(&x->rx_post_lock)) {
		post_pending(x, hold);
	} else if (!foreign) {
		if (!hold)
			pthread_mutex_unlock(&x->rx_lock);
		return 0;
	} else {
		pthread_mutex_unlock(&x->rx_lock);
		pthread_mutex_lock(&x->rx_post_lock);
		pthread_mutex_lock(&x->rx_lock);
		post_pending(x, hold);
	}
	/* Set by whoever posted it, before rx_post_lock was let go. */
	return foreign ? my_rc : 0;

out_unget:
	rpcrdma_sendctx_unget(&x->rx_ring, (unsigned)idx);
	if (!hold)
		pthread_mutex_unlock(&x->rx_lock);
	return rc;
}

int rpcrdma_xprt_send_owned(struct rpcrdma_xprt *x, const void *hdr,
			    size_t hdrlen, const struct rpcrdma_xdr_buf *xb,
			    const struct timespec *deadline,
			    const struct rpcrdma_release *rel,
			    uint64_t *seqp, int *queuedp)
{
	return rpcrdma_xprt_send_chain(x, hdr, hdrlen, xb, deadline, rel, NULL,
				       seqp, queuedp);
}

int rpcrdma_xprt_send_chain(struct rpcrdma_xprt *x, const void *hdr,
			    size_t hdrlen, const struct rpcrdma_xdr_buf *xb,
			    const struct timespec *deadline,
			    const struct rpcrdma_release *rel,
			    const struct rpcrdma_send_pre *pre,
			    uint64_t *seqp, int *queuedp)
{
	return send_chain(x, hdr, hdrlen, xb, deadline, rel, pre, seqp,
			  queuedp, false);
}

int rpcrdma_xprt_send_hold(struct rpcrdma_xprt *x, const void *hdr,
			   size_t hdrlen, const struct rpcrdma_xdr_buf *xb,
			   const struct timespec *deadline, uint64_t *seqp)
{
	int queued;

	return send_chain(x, hdr, hdrlen, xb, deadline, NULL, NULL, seqp,
			  &queued, true);
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
