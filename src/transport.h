/*
 * What the client and the server transports share: one connection's
 * endpoint, its send-context ring, negotiated inline thresholds, counters,
 * and the Send path (header + XDR buffer -> posted Send).
 */
#ifndef RPCRDMA_TRANSPORT_H
#define RPCRDMA_TRANSPORT_H

#include <pthread.h>
#include <time.h>
#include <rpcrdma/rpcrdma.h>
#include "chooser.h"
#include "mr.h"
#include "release.h"
#include "options.h"
#include "rpc_rdma.h"
#include "sendctx.h"
#include "verbs.h"
#include "xdr_buf.h"

#define RPCRDMA_WC_BATCH 16
/* ro_max_reply: 1 MiB of data plus room for any RPC and NFS header. */
#define RPCRDMA_DEFAULT_MAX_REPLY (1024 * 1024 + 4096)
#define RPCRDMA_MAX_REPLY	(64u * 1024 * 1024)

struct rpcrdma_rw_ahead;

struct rpcrdma_xprt {
	struct rpcrdma_ep rx_ep;
	struct rpcrdma_options rx_opts;
	pthread_mutex_t rx_lock;
	/* Held by whoever posts the Sends queued (transport_send.c,
	 * rpcrdma_xprt_send_chain); taken before rx_lock, or tried under
	 * it; nothing waits while holding it. */
	pthread_mutex_t rx_post_lock;
	pthread_cond_t rx_sendctx_cond;	/* a send context was released */
	struct rpcrdma_sendctx_ring rx_ring;
	uint32_t rx_send_max;		/* largest Send the peer accepts */
	uint32_t rx_recv_max;		/* largest Send we accept */
	/* A server's client's private data (rpcrdma_xprt_negotiate, before
	 * the rings exist), its rings fitted to it; rx_peer_offered: an RFC
	 * 8797 offer was in it. */
	struct rpcrdma_cm_private rx_peer;
	bool rx_peer_offered;
	struct rpcrdma_stats rx_stats;
	int rx_dead;			/* negative errno once the QP is gone */
	struct rpcrdma_mr_table rx_mrs;	/* memory mapped Sends may gather */
	uint64_t rx_send_seq;		/* sequence number of the last Send */
	uint64_t rx_completed_seq;	/* every Send up to this one completed */
	struct rpcrdma_relq rx_rel;	/* releases waiting for their Sends */
	uint32_t rx_rw_used;		/* send-queue room RDMA Read/Write holds */
	uint32_t rx_rd_used;		/* RDMA Reads posted, not known complete */
	uint32_t rx_rw_freed;		/* times room was given back (atomic,
					 * written under rx_lock): a chain that
					 * found none looks again once it moved */
	uint32_t rx_nrw;		/* room to set aside at setup (server) */
	/* Contexts of Writes posted ahead of their Send (rdma_rw.h), made
	 * at first use, one per room slot; freed with the QP's CQ. */
	struct rpcrdma_rw_ahead *rx_ahead;
	uint32_t rx_nahead;
	/*
	 * Completions are reaped by the threads that wait for them (no
	 * progress thread polls a CQ), so a sender that finds every send
	 * context in use, or waits for a Send, reaps through rx_reap: it
	 * waits a little for completions and reaps them, lock not held.
	 * Both sides set it (src/event-loop.md).
	 */
	void (*rx_reap)(void *arg);
	void *rx_reap_arg;
	/* What the options were resolved from, again once the device is
	 * known: a client's own, a server connection's its listener's. */
	const struct rpcrdma_optsrc *rx_src;
	struct rpcrdma_optsrc rx_own_src;
	uint32_t rx_conn_gen;		/* client: connections made before this one */
	uint32_t rx_extra_wr;		/* send queue room for binds and
					   invalidations (client windows) */
	uint32_t rx_recv_first;		/* receives registered at setup (0: all;
					 * a client grows them, clnt_call.c) */
	bool rx_peer_remote_inv;	/* the peer takes Send With Invalidate
					   (its RFC 8797 private data) */
	bool rx_remote_inv;		/* we do: said in our private data */
	/* A server connection receiving from a shared queue (svc_srq.h):
	 * its buffers' size, which bounds what its client is told. */
	struct ibv_srq *rx_srq;
	uint32_t rx_srq_size;
};

int rpcrdma_options_setup(struct rpcrdma_optsrc *src,
			  const struct rpcrdma_options *o, unsigned int role);
int rpcrdma_xprt_init(struct rpcrdma_xprt *x, const struct rpcrdma_options *o);
/* Send contexts (and send buffers) per connection: the credits, and for
 * a client signal_every over (transport.c, why). */
uint32_t rpcrdma_xprt_nsend(const struct rpcrdma_xprt *x);
int rpcrdma_xprt_init_conn(struct rpcrdma_xprt *x,
			   const struct rpcrdma_optsrc *src);
int rpcrdma_xprt_set_options(struct rpcrdma_xprt *x,
			     const struct rpcrdma_options *change);
int rpcrdma_xprt_setup_ep(struct rpcrdma_xprt *x, uint32_t nrecv);
void rpcrdma_xprt_negotiate(struct rpcrdma_xprt *x, const uint8_t *pdata,
			    uint8_t len);
ssize_t rpcrdma_xprt_private(struct rpcrdma_xprt *x, uint8_t *buf, size_t len);
/* 0, or why the endpoint's own PD could not be freed (-EBUSY: leak). */
int rpcrdma_xprt_fini(struct rpcrdma_xprt *x);

/*
 * The largest message, header included, a chunk planner may leave to one
 * Send of xb behind a header of at most hdr_room bytes: the peer's limit,
 * or a send buffer's when xb could not be mapped from one (chooser.h).
 */
uint32_t rpcrdma_xprt_plan_max(const struct rpcrdma_xprt *x,
			       const struct rpcrdma_xdr_buf *xb,
			       uint32_t hdr_room);

/*
 * rpcrdma_xprt_send_owned() without rel, returning with rx_lock held
 * whatever the outcome: the client's call accounts for its Send in the
 * same hold (one lock round less per call; under 32 callers, one chance
 * less to queue on the lock).
 */
int rpcrdma_xprt_send_hold(struct rpcrdma_xprt *x, const void *hdr,
			   size_t hdrlen, const struct rpcrdma_xdr_buf *xb,
			   const struct timespec *deadline, uint64_t *seqp);
int rpcrdma_xprt_send_owned(struct rpcrdma_xprt *x, const void *hdr,
			    size_t hdrlen, const struct rpcrdma_xdr_buf *xb,
			    const struct timespec *deadline,
			    const struct rpcrdma_release *rel,
			    uint64_t *seqp, int *queuedp);
/*
 * The same with pre (verbs.h): RDMA Writes posted in front of the Send in
 * one ibv_post_send, and/or Send With Invalidate.  With Writes, the Send
 * is signaled and rel (their memory) is handled as for a mapped Send:
 * queued (*queuedp; it runs once the Send completed, or with ECONNRESET
 * once the QP is destroyed), else *seqp to wait for.  On an error, *seqp
 * or *queuedp set means the chain may be posted in part (the Writes may
 * still land: the memory stays until the QP goes); neither, nothing was.
 */
int rpcrdma_xprt_send_chain(struct rpcrdma_xprt *x, const void *hdr,
			    size_t hdrlen, const struct rpcrdma_xdr_buf *xb,
			    const struct timespec *deadline,
			    const struct rpcrdma_release *rel,
			    const struct rpcrdma_send_pre *pre,
			    uint64_t *seqp, int *queuedp);
void rpcrdma_xprt_run_releases(struct rpcrdma_xprt *x);
int rpcrdma_xprt_reclaim(struct rpcrdma_xprt *x, const struct timespec *deadline);
int rpcrdma_xprt_wait_send(struct rpcrdma_xprt *x, uint64_t seq,
			   const struct timespec *deadline);
void rpcrdma_xprt_send_done(struct rpcrdma_xprt *x,
			    struct rpcrdma_sendctx *sc, int ok);
int rpcrdma_xprt_repost(struct rpcrdma_xprt *x, struct rpcrdma_rep *rep);
int rpcrdma_cond_init(pthread_cond_t *c);

/* Transport tracing to stderr: RPCRDMA_DEBUG, or a handle with log_level debug. */
extern int rpcrdma_debug;
void rpcrdma_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define RPCRDMA_DBG(...) do { if (rpcrdma_debug) rpcrdma_dbg(__VA_ARGS__); } while (0)
void rpcrdma_deadline(struct timespec *ts, const struct timeval *tv);
void rpcrdma_deadline_ms(struct timespec *ts, unsigned int ms);
/* CLOCK_MONOTONIC has reached the deadline. */
int rpcrdma_deadline_passed(const struct timespec *deadline);

#endif /* RPCRDMA_TRANSPORT_H */
