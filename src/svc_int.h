/*
 * The RDMA server's private header: its listener, connection, Call and
 * service-thread structures, and what each server file offers the files
 * above it.  svc_rdma.c is the top (the only one speaking SVCXPRT); the
 * sections below run from there downward, and a file calls only into
 * sections after its own.
 */
#ifndef RPCRDMA_SVC_INT_H
#define RPCRDMA_SVC_INT_H

#include "rchunks.h"
#include "rdma_rw.h"
#include "svc_mem.h"
#include "svc_park.h"
#include "svc_srq.h"
#include "transport.h"
#include "svc_limits.h"
#include "svc_peers.h"
#include "spin.h"
#include <rpc/svc_mt.h>

struct svc_rdma_listener;
struct svc_rdma_conn;
struct rpcrdma_drc_reply;

/*
 * A Call's Read chunks being pulled without waiting (svc_run mode, where
 * one thread serves every connection): one chain at a time, posted as
 * room allows; the Call is dispatched once the last chain completes
 * (svc_call.c), and the connection's later Calls wait behind it.
 */
struct svc_rdma_pull {
	struct rpcrdma_rep *pu_rep;	/* the Call's receive; NULL: none under way */
	struct rpcrdma_rw_ctx *pu_rw;	/* its chains' context: its slot's under
					 * svc_run, its holder's when threaded */
	uint32_t pu_len;		/* the Call's bytes, in ct_callbuf */
	uint64_t pu_bytes;		/* what its Reads move */
	unsigned int pu_n;		/* pieces to read */
	unsigned int pu_done;		/* read so far */
	unsigned int pu_posted;		/* in the chain posted; 0: none */
	struct rpcrdma_sge pu_local[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_remote pu_remote[RPCRDMA_MAX_READ_SEGS];
};

/*
 * The Call being served: one per connection under svc_run(), one per
 * service thread in threaded mode, so parallel Calls share nothing.
 */
struct svc_rdma_call {
	struct svc_rdma_conn *ct_conn;	/* threaded: the connection served */
	struct rpcrdma_rep *ct_cur;	/* the Call's receive, until reposted */
	uint32_t ct_xid;		/* its xid: svc_sendreply() leaves it 0 */
	int ct_answered;		/* a Reply or RDMA_ERROR went for it */
	bool ct_wrapped;		/* RPCSEC_GSS integrity/privacy: its
					 * Reply is one opaque, placed nowhere
					 * (rpcrdma_call_wraps_body) */
	bool ct_gss;			/* threaded: it holds its connection's
					 * cn_gss_lock (svc_rdma_gss_enter) */
	uint32_t ct_slot;		/* which scratch slice its Reply uses */
	XDR ct_args;			/* decoder over ct_cur's RPC message */
	struct rpcrdma_hdr ct_hdr;	/* its transport header: the chunks */
	struct svc_rdma_buf ct_callbuf;	/* its Read chunks' Call, until answered */
	/* svc_rdma_sendreply_async: run once the results are unreferenced */
	struct rpcrdma_release ct_rel;	/* rl_fn NULL: svc_sendreply() */
	int ct_rel_queued;		/* reply_send queued ct_rel */
	int ct_rel_status;		/* else: errno for rl_fn, 0 if sent */
	struct rpcrdma_drc_entry *ct_drc; /* drc_size: its entry until answered */
	struct svc_rdma_pull ct_pull;	/* svc_run: its Read chunks under way */
};

/*
 * Threaded: a Call whose RDMA Reads are under way, held by its connection
 * rather than by a service thread (svc_hold.c), so that no thread waits
 * for a peer's adapter.
 */
enum svc_rdma_hold_state {
	SVC_RDMA_HOLD_FREE = 0,		/* holds no Call */
	SVC_RDMA_HOLD_PULLING,		/* its Reads under way, or waiting for
					 * send-queue room: nobody touches it */
	SVC_RDMA_HOLD_BUSY,		/* a thread steps it, or serves it once
					 * pulled whole */
};

struct svc_rdma_hold {
	struct svc_rdma_call ho_ct;	/* the Call (ct_slot: its thread's) */
	struct rpcrdma_rw_ctx ho_rw;	/* its chains of Reads */
	int ho_state;			/* enum svc_rdma_hold_state (cn_lock;
					 * read atomically for a look) */
	uint32_t ho_room;		/* rx_rw_freed before its last step */
};

/* One accepted connection. */
struct svc_rdma_conn {
	SVCXPRT cn_xprt;		/* svc_rdma.c's alone */
	SVCXPRT_EXT cn_ext;
	int cn_fd;			/* the descriptor libtirpc polls for it:
					 * its completion channel, or, threaded,
					 * a private eventfd */
	struct rpcrdma_xprt cn_x;
	struct svc_rdma_listener *cn_lst;
	struct svc_rdma_conn *cn_next;	/* listener's list of connections */
	pthread_mutex_t cn_lock;	/* the Call queue and CQ reaping */
	struct rpcrdma_rep **cn_queue;	/* Calls received, not yet served */
	uint32_t cn_qhead, cn_qlen, cn_qcap;
	struct svc_rdma_srq *cn_srq;	/* its shared receive queue; NULL: a
					 * ring of its own (svc_srq.h) */
	struct rpcrdma_grant cn_grant;	/* cn_srq's sq_lock: its credits */
	struct svc_rdma_call cn_call;	/* svc_run mode: the Call being served */
	char *cn_scratch;		/* Reply head/tail storage (copied when sent) */
	uint32_t cn_nslots;		/* Calls served at once: scratch slices */
	struct rpcrdma_rw_ctx *cn_rw;	/* per slot: its Calls' RDMA Reads and
					 * Writes (rdma_rw.h: the connection's) */
	struct svc_rdma_dev *cn_dev;	/* its device: shared PD, chunk pool */
	struct svc_rdma_held *cn_held;	/* buffers a failed Read/Write may reach */
	struct svc_rdma_park cn_park;	/* Replies not yet posted (svc_park.h) */
	int cn_threaded;		/* served by the listener's threads */
	struct svc_rdma_hold *cn_holds;	/* threaded: cn_nholds, made at its first
					 * Call with Read chunks (svc_hold.c) */
	uint32_t cn_nholds;
	int cn_hold_full;		/* a Call waits at the queue's head for a
					 * holder: the queue waits too (cn_lock) */
	int cn_refs;			/* threaded: threads serving it (ln_lock) */
	/* Threaded: the one RPCSEC_GSS Call of it being served (libtirpc's
	 * context has one sequence number, unlocked); while busy, no other
	 * thread picks the connection. */
	pthread_mutex_t cn_gss_lock;
	int cn_gss_busy;		/* atomic */
	struct svc_rdma_conn *cn_gone;	/* threaded: the leader's to destroy */
	struct svc_rdma_addr cn_laddr;	/* xp_ltaddr's storage */
	struct svc_rdma_addr cn_raddr;	/* xp_rtaddr's: svc_getrpccaller() */
	int cn_lost;			/* the peer or fabric ended it (rx_lock) */
	int cn_past_grant;		/* it sent Calls past its grant (rx_lock) */
	uint64_t cn_last_call_ns;	/* a Call last came (idle_timeout_ms) */
	struct svc_rdma_mem cn_mem;	/* max_conn_memory (cn_dev->dv_lock) */
	/* svc_run mode, fair turns (svc_loop.c): */
	uint32_t cn_turn;		/* Calls taken in this turn */
	struct rpcrdma_spin cn_spin;	/* svc_run's, for the next Call (spin.h) */
	uint64_t cn_mark;		/* ln_calls when its last Call came */
	bool cn_interleaved;		/* other connections' Calls came between
					 * its last two: svc_run does not spin
					 * for its next (svc_rdma.c, conn_stat) */
	uint64_t cn_yield_gen;		/* the kick pass that serves it next; 0: none */
	int cn_penalized;		/* its peer stalled: no time to block (atomic) */
};

/* The service threads of one listener (threaded mode only). */
struct svc_rdma_threads {
	pthread_t *th_threads;
	uint32_t th_nthreads;
	pthread_cond_t th_cond;		/* Calls queued, or a leader is wanted */
	int th_leader;			/* one thread polls, the others wait */
	int th_stop;
	int th_wakefd;			/* eventfd: refresh the leader's set, stop */
	uint32_t th_since_lead;		/* Calls picked since a thread last led */
	struct rpcrdma_spin th_spin;	/* the leader's alone (spin.h) */
};

/*
 * What only svc_rdma.c does with libtirpc, for the files below it: they
 * never touch an SVCXPRT, and reach libtirpc only through this table,
 * which svc_rdma.c fills (static const) and hands each listener.
 */
struct svc_rdma_tirpc_ops {
	/* A connection accepted: give it its SVCXPRT (fd cn_fd), before
	 * anything can serve it. */
	void (*to_conn_init)(struct svc_rdma_conn *c);
	/* Then, once it is listed: register it with libtirpc. */
	void (*to_conn_register)(struct svc_rdma_conn *c);
	/* It is being destroyed: libtirpc forgets it first. */
	void (*to_conn_unregister)(struct svc_rdma_conn *c);
	/* Serve what is ready on a connection's descriptor (cn_fd) through
	 * libtirpc's auth and dispatch table: svc_getreq_common(). */
	void (*to_getreq)(int fd);
};

#define SVC_RDMA_CM_KEPT 32	/* CM events a wait may take early */

/* Threaded: connections' private eventfds, reused, never closed under
 * svc_run (svc_fdpool.c says why). */
struct svc_rdma_fdpool {
	pthread_mutex_t fp_lock;
	int fp_wakefd;			/* written on each put: svc_run()'s */
	int *fp_fds;
	uint32_t fp_n, fp_cap;
};

void svc_rdma_fdpool_init(struct svc_rdma_fdpool *p);
/* An eventfd: one given back, or a new one; -1 with errno on failure. */
int svc_rdma_fdpool_get(struct svc_rdma_fdpool *p);
/* fd (from get) back, open, and fp_wakefd written; < 0 is ignored. */
void svc_rdma_fdpool_put(struct svc_rdma_fdpool *p, int fd);
/* In svc_run()'s thread, woken by fp_wakefd: close those given back. */
void svc_rdma_fdpool_close_all(struct svc_rdma_fdpool *p);
/* Closes them all: with the listener, after its connections. */
void svc_rdma_fdpool_fini(struct svc_rdma_fdpool *p);

struct svc_rdma_listener {
	SVCXPRT ln_xprt;
	SVCXPRT_EXT ln_ext;
	struct rpcrdma_options ln_opts;
	struct rpcrdma_optsrc ln_src;	/* configuration read at creation */
	struct rdma_event_channel *ln_ch;
	struct rdma_cm_id *ln_id;
	pthread_mutex_t ln_lock;
	struct svc_rdma_conn *ln_conns;
	struct svc_rdma_conn *ln_closing; /* unlinked, being destroyed: their
					   * counters not yet in ln_closed */
	struct svc_rdma_conn *ln_parked;	/* refused by the kernel: their QPs and
					 * ids live on, so their memory is kept */
	struct rpcrdma_stats ln_closed;	/* counters of connections gone, and
					 * the leader's poll counters */
	struct svc_rdma_threads ln_threads;
	struct svc_rdma_dev *ln_devs;	/* per device: PD and chunk pool */
	struct svc_rdma_addr ln_laddr;	/* xp_ltaddr's storage */
	SVCXPRT ln_idle_xprt;		/* svc_run mode: the idle timer */
	SVCXPRT_EXT ln_idle_ext;
	SVCXPRT ln_kick_xprt;		/* svc_run mode: turns of yielded connections */
	SVCXPRT_EXT ln_kick_ext;
	SVCXPRT ln_conn_xprt;		/* what a connection's SVCXPRT starts as
					 * (svc_rdma.c's ops) */
	uint64_t ln_kick_gen;		/* kick passes so far */
	struct svc_rdma_fdpool ln_fdpool; /* threaded: connections' xp_fds */
	uint64_t ln_calls;		/* Calls its connections received
					 * (atomic): who is interleaved */
	struct svc_rdma_peers ln_peers;	/* peers refused for stalling (ln_lock) */
	struct svc_rdma_drc *ln_drc;	/* drc_size: the duplicate request cache */
	const struct svc_rdma_tirpc_ops *ln_tirpc;
	int ln_runfd;			/* threaded: svc_run()'s private eventfd */
	int ln_cm_refused;		/* its CM channel failed for good (the kernel
					 * refused the process): out of every poll set */
	int ln_kickfd;			/* svc_run mode: the kick eventfd, or -1 */
	/* svc_run mode: CM events a wait took early, oldest first (svc_cm.c,
	 * ln_lock), until svc_rdma_lst_events acts on them */
	struct rdma_cm_event *ln_kept[SVC_RDMA_CM_KEPT];
	uint32_t ln_nkept;
};

/* svc_threads.c: service threads (ro_svc_threads > 0). */
int svc_threads_start(struct svc_rdma_listener *l);
void svc_threads_stop(struct svc_rdma_listener *l);
void svc_threads_kick(struct svc_rdma_listener *l);

/* svc_accept.c: connection requests, and connections the CM says are gone. */
void svc_rdma_lst_events(struct svc_rdma_listener *l);

/* svc_idle.c: idle_timeout_ms. */
void svc_rdma_idle_sweep(struct svc_rdma_listener *l);
int svc_rdma_idle_open(struct svc_rdma_listener *l, int *fdp);
void svc_rdma_idle_tick(struct svc_rdma_listener *l, int fd);

/* svc_call.c: the next Call of a connection, decoded into msg; FALSE: none. */
bool_t svc_rdma_call_recv(struct svc_rdma_conn *c, struct rpc_msg *msg);

/* svc_reply.c: Replies; svc_reply_post.c: posting them, RDMA_ERRORs, and
 * tearing down a stalled peer. */
bool_t svc_rdma_reply(struct svc_rdma_conn *c, SVCAUTH *auth,
		      struct rpc_msg *msg);
void svc_rdma_reply_kept(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			 const struct rpcrdma_drc_reply *kept);
/* credits 0: the RDMA_ERROR answers a Call no Reply answered (its grant is
 * counted here); else the grant its Reply, not sent, already counted. */
void svc_rdma_conn_send_error(struct svc_rdma_conn *c, uint32_t xid,
			      uint32_t err, uint32_t credits);
void svc_rdma_conn_stalled(struct svc_rdma_conn *c, const char *what);
/* How long one Send, or one RDMA Read/Write chain, may take before its
 * connection counts as stalled: svc_stall_ms, plus a chain's bytes at a
 * floor rate (svc_rdma_stall_deadline, svc_rdma_stall_budget_ms). */

/* svc_chunks.c: Read chunks in, Reply and Write chunks out. */
/* Largest Call reassembled from Read chunks, and largest chunked Reply:
 * the per-slot buffers, and the ceiling of max_chunk_bytes. */
#define SVC_RDMA_MAX_CALL	RPCRDMA_SVC_CHUNK_BYTES
#define SVC_RDMA_MAX_REPLY	RPCRDMA_SVC_CHUNK_BYTES

void svc_rdma_chunk_limits(const struct svc_rdma_conn *c,
			   struct rpcrdma_chunk_limits *lim);
void svc_rdma_count_chunk_limit(struct svc_rdma_conn *c);
/*
 * A Call's Read chunks, pulled without waiting (ct->ct_pull): prepare
 * lays out the Call received in rep (its inline pieces copied) for Reads
 * into rw's chains, posting nothing: 0 (pu_rep holds rep), or -ENOMEM
 * (answer ERR_CHUNK, nothing was read).  Step, called first and then
 * again once the chain posted completed (or room came back), posts the
 * next chain or finishes: 0 with the Call at *msgp (pu_rep cleared: rep
 * is the caller's again), -EINPROGRESS (Reads under way, pu_rep holds
 * rep), or the connection's failure (pu_rep cleared).
 */
int svc_rdma_pull_prepare(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
			  const struct rpcrdma_call_map *m, const uint8_t *inl,
			  struct rpcrdma_rep *rep, struct rpcrdma_rw_ctx *rw);
int svc_rdma_pull_step(struct svc_rdma_conn *c, struct svc_rdma_call *ct,
		       char **msgp, uint32_t *lenp);

int svc_rdma_chunk_writes(const struct svc_rdma_buf *b, uint64_t off,
			  const struct rpcrdma_chunk *written,
			  struct rpcrdma_sge *local, struct rpcrdma_remote *rem,
			  unsigned int *n, unsigned int max, uint64_t *bytes);

/* svc_hold.c: threaded, the Calls whose Reads are under way. */
/*
 * A holder for the Call in rep, taken (BUSY): 0 with *hp; -EBUSY when
 * every holder is taken, rep put back at the head of the connection's
 * queue, which waits until one is free (cn_hold_full); -ENOMEM.
 */
int svc_rdma_hold_claim(struct svc_rdma_conn *c, struct rpcrdma_rep *rep,
			struct svc_rdma_hold **hp);
/* A holder whose chain completed, or whose room came back, taken (BUSY)
 * for its next step by the thread serving with ct; NULL if none. */
struct svc_rdma_hold *svc_rdma_hold_take(struct svc_rdma_conn *c,
					 const struct svc_rdma_call *ct);
/* Whether one is ready for that (a look, no lock: svc_threads.c). */
bool svc_rdma_hold_ready(struct svc_rdma_conn *c);
/* Stepped, its Reads under way again: back to PULLING. */
void svc_rdma_hold_put(struct svc_rdma_conn *c, struct svc_rdma_hold *h);
/* Its Call answered, dropped or failed: free, and the queue goes on. */
void svc_rdma_hold_free(struct svc_rdma_conn *c, struct svc_rdma_hold *h);
/* The holder of a Call its thread serves, or NULL (the thread's own). */
struct svc_rdma_hold *svc_rdma_hold_of(struct svc_rdma_conn *c,
				       struct svc_rdma_call *ct);
/* The connection goes, its QP destroyed: receives back, buffers put. */
void svc_rdma_holds_fini(struct svc_rdma_conn *c);

/* svc_conn.c: one connection below its SVCXPRT. */
extern __thread struct svc_rdma_call *svc_rdma_thread_call;
void svc_rdma_stats_add(struct rpcrdma_stats *sum, const struct rpcrdma_stats *s);
int svc_rdma_conn_reap(struct svc_rdma_conn *c);
int svc_rdma_conn_spin(struct svc_rdma_conn *c, uint32_t spin_us);
void svc_rdma_conn_reap_wait(void *arg);
void svc_rdma_conn_repost(struct svc_rdma_conn *c, struct rpcrdma_rep *rep);
/* A Call dropped without an answer, its receive reposted: its credit back
 * on a shared queue's books (grants.h, rpcrdma_grant_dropped). */
void svc_rdma_conn_dropped(struct svc_rdma_conn *c);
void svc_rdma_call_release(struct svc_rdma_conn *c, struct svc_rdma_call *ct);
void svc_rdma_conn_destroy(struct svc_rdma_conn *c);
/* The grant its next Reply (error: RDMA_ERROR) carries, counted. */
uint32_t svc_rdma_conn_grant(struct svc_rdma_conn *c, uint32_t requested,
			     bool error);
/* Its shared receives and grant into a listener's sum (first: the first
 * connection summed, so rs_grant_min starts from it). */
void svc_rdma_conn_grant_stats(struct svc_rdma_conn *c,
			       struct rpcrdma_stats *st, int first);
/* Its peer broke RFC 8166's credit rule (a Call past its grant on a shared
 * queue, or more Replies out than max_requests, svc_reply_post.c): closed
 * alone, counted in rs_grant_exceeded. */
void svc_rdma_conn_past_grant(struct svc_rdma_conn *c);
/* Threaded: a Call with an RPCSEC_GSS credential is served alone among
 * its connection's (enter as it goes to libtirpc, leave when served). */
void svc_rdma_gss_enter(struct svc_rdma_conn *c, struct svc_rdma_call *ct);
void svc_rdma_gss_leave(struct svc_rdma_conn *c, struct svc_rdma_call *ct);
/* Its receives back to its shared queue, its share released: the QP is gone. */
void svc_rdma_conn_srq_leave(struct svc_rdma_conn *c);

/*
 * The Call state of this connection: its own under svc_run(), the calling
 * service thread's in threaded mode; NULL from a thread that is not
 * serving this connection (it has no Call of it to answer).
 */
static inline struct svc_rdma_call *svc_rdma_conn_call(struct svc_rdma_conn *c)
{
	struct svc_rdma_call *ct = svc_rdma_thread_call;

	if (!c->cn_threaded)
		return &c->cn_call;
	return ct && ct->ct_conn == c ? ct : NULL;
}

/* svc_cm.c: the listener's CM events, in order, and a wait's early look. */
int svc_rdma_cm_ends_conn(const struct svc_rdma_listener *l,
			  const struct rdma_cm_event *ev);
int svc_rdma_cm_next(struct svc_rdma_listener *l, struct rdma_cm_event **evp);
int svc_rdma_cm_watch(struct svc_rdma_conn *c);
void svc_rdma_cm_forget(struct svc_rdma_listener *l, struct rdma_cm_id *id);
void svc_rdma_cm_forget_all(struct svc_rdma_listener *l);

/*
 * svc_loop.c: the serving loop's rules (who polls, who sleeps, who wakes
 * whom: src/event-loop.md).  A connection's turn is at most
 * SVC_RDMA_TURN_CALLS Calls: a quarter of the default 32 credits, so a
 * peer keeping its whole window full is served in four turns while every
 * other ready connection, the CM channel and the idle timer get theirs.
 */
#define SVC_RDMA_TURN_CALLS 8
int svc_rdma_kick_open(struct svc_rdma_listener *l, int *fdp);
void svc_rdma_kick(struct svc_rdma_listener *l);
void svc_rdma_kick_pass(struct svc_rdma_listener *l, int kickfd);
void svc_rdma_conn_yield(struct svc_rdma_conn *c);
void svc_rdma_stall_deadline(struct svc_rdma_conn *c, uint64_t bytes,
			     struct timespec *ts);
void svc_rdma_peer_stalled(struct svc_rdma_conn *c);
int svc_rdma_peer_admit(struct svc_rdma_listener *l, struct rdma_cm_id *id);

#endif /* RPCRDMA_SVC_INT_H */
