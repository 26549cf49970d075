/*
 * The RDMA CLIENT's private state, shared by its files.  Each calls only
 * the ones below it:
 *
 *   clnt_rdma.c       libtirpc's clnt_ops, create/destroy: CLIENT *
 *   clnt_async.c      calls that do not wait: clnt_rdma_call_async(3)
 *   clnt_reconnect.c  the progress thread: CM events, reconnection
 *   clnt_async_drive.c  their driver: clnt_rdma_progress(3), batches
 *   clnt_async_step.c   one such call's steps, its callback
 *   clnt_call.c       one call: credits, slots, send, resend, retry
 *   clnt_msg.c        the RPC message: encode the Call, decode the Reply
 *   clnt_wait.c       waiting: the poller role, reaping, Replies to calls
 *   clnt_setup.c      slots' memory, connecting, freeing
 *   clnt_state.c      slot and connection state, errors
 *   clnt_chunks.c     registrations and the transport header
 */
#ifndef RPCRDMA_CLNT_RDMA_H
#define RPCRDMA_CLNT_RDMA_H

#include <stdbool.h>
#include <rpc/rpc.h>
#include "clnt_chunks.h"
#include "probes.h"
#include "spin.h"
#include "transport.h"
#include "wake.h"


/* The life of one call slot; every change goes through cr_slot_move(). */
enum rpcrdma_req_state {
	RQ_FREE,	/* unused; may be taken by a caller holding a credit */
	RQ_SENT,	/* Call posted; the caller waits for the Reply */
	RQ_REPLIED,	/* Reply attached in rq_rep; the caller decodes it */
	RQ_FAILED,	/* the connection died or the peer sent RDMA_ERROR */
	RQ_ABANDONED,	/* the caller timed out; the Reply, if any, is dropped */
	RQ_RESEND,	/* the connection was lost with the Call sent, or about
			   to be: it goes again, same xid, once reconnected;
			   it holds its slot but no credit */
};

/*
 * The connection, as the calls see it (clnt_state.c, clnt_reconnect.c).  Who moves it:
 * any thread that notices a loss makes CONNECTED LOST and kicks the
 * progress thread; that thread alone makes it RECONNECTING, waits until
 * no caller uses the endpoint, reconnects, and makes it CONNECTED again,
 * or GAVE_UP; a new call finding GAVE_UP makes it LOST for another round.
 */
enum cr_conn_state {
	CR_CONNECTED,
	CR_LOST,		/* a loss was noticed; the reconnector is kicked */
	CR_RECONNECTING,	/* the endpoint belongs to the reconnector */
	CR_GAVE_UP,		/* the last round failed: cr_conn_err */
};

struct rpcrdma_req {
	enum rpcrdma_req_state rq_state;
	uint32_t rq_xid;
	int rq_err;			/* RQ_FAILED: negative errno */
	bool rq_refused_chunk;		/* RQ_FAILED by RDMA_ERROR/ERR_CHUNK */
	struct rpcrdma_rep *rq_rep;
	size_t rq_off;			/* RPC message offset in rq_rep */
	struct rpcrdma_wake rq_wake;	/* its blocking caller sleeps on it */
	struct cr_waiter *rq_sleeper;	/* that caller, linked in cr_waiters */
	char *rq_scratch;		/* XDR head/tail storage (copied when sent) */
	char *rq_spill;			/* a Call too big for scratch, all copied */
	uint32_t rq_spill_len;
	uint64_t rq_send_seq;		/* mapped Send still gathering caller memory */
	struct rpcrdma_req_chunks rq_ch;	/* chunks offered, and what came back */
	struct cr_async *rq_async;	/* the asynchronous call holding it, or NULL */
	struct rpcrdma_req *rq_ready_next;	/* in cr_async_ctl's ready list */
	bool rq_on_ready;		/* on it: look at the slot's owner */
};

/*
 * The asynchronous calls of a CLIENT (clnt_async.c).  clnt_state.c puts
 * a slot of theirs that left RQ_SENT on the ready list and kicks whoever
 * drives them (cr_async_kick); everything else is clnt_async*.c's.  Under
 * rx_lock, but for the atomics noted.
 */
struct cr_async;
struct cr_async_ctl {
	int ac_evfd;			/* eventfd: progress to make (-1: none yet) */
	int ac_timerfd;			/* the earliest deadline */
	int ac_epfd;			/* epoll over the two and the channel */
	int ac_kicked;			/* ac_evfd written since it was read */
	int ac_busy;			/* a thread runs the progress (atomic) */
	int ac_rekick;			/* kicked while busy (atomic) */
	int ac_sleeping;		/* the busy thread sleeps (atomic) */
	int ac_thread;			/* the progress thread drives them */
	int ac_fd_given;		/* ac_epfd is polled: arm the CQ for it */
	struct rpcrdma_req *ac_ready;	/* slots that left RQ_SENT, FIFO */
	struct rpcrdma_req **ac_ready_tail;
	struct cr_async *ac_wait_head;	/* waiting for a credit or the connection */
	struct cr_async **ac_wait_tail;
	struct cr_async *ac_all;	/* every live call (doubly linked) */
	struct cr_async *ac_free;	/* spare call records */
	struct cr_async *ac_over;	/* over outside the driver: callbacks due */
	uint32_t ac_live;		/* calls started, callback not yet run */
	uint32_t ac_waiting;		/* on the wait list (atomic read) */
	uint64_t ac_next_ns;		/* no deadline passes before (0: none) */
	uint64_t ac_timer_ns;		/* what ac_timerfd is set to */
	int ac_destroying;		/* clnt_destroy: no new calls */
};

/*
 * A thread waiting in cr_wait_for(): asleep on w_cond or on w_rq's
 * rq_wake (one is set) unless it is the poller.  The poller wakes the
 * first one when it leaves, so the role passes on while anyone still
 * waits.  A Reply's waiter is unlinked by whoever moves its slot out of
 * RQ_SENT (cr_slot_move), so that it may return without the lock.
 */
struct clnt_rdma;
struct cr_waiter {
	pthread_cond_t *w_cond;		/* credit waits (cr_credit_wait's) */
	struct rpcrdma_req *w_rq;	/* its own: a Reply's wait */
	struct cr_waiter *w_next;
	struct cr_waiter **w_pprev;	/* what points at it in cr_waiters */
	int w_linked;			/* in cr_waiters (atomic read) */
};

/*
 * A blocking call waiting for a credit (take_slot), in arrival order in
 * cr_credit_q: a credit that frees goes to the first, woken on its own
 * condition, and a new call waits behind the queue even when a credit is
 * free.  Why: a caller that never sleeps (its Reply came while it
 * polled) took the credit each time it returned and called again, so at
 * 128 blocking callers on 32 credits a few ran while the others waited
 * for hundreds of milliseconds.
 */
struct cr_credit_wait {
	pthread_cond_t cw_cond;
	struct cr_credit_wait *cw_next;
};

#define CR_RESEND_SLEEPER	((const void *)1)

struct clnt_rdma {
	CLIENT cr_clnt;
	struct rpcrdma_xprt cr_x;
	rpcprog_t cr_prog;
	rpcvers_t cr_vers;
	uint32_t cr_xid;
	uint32_t cr_credits;		/* calls we may have in flight now */
	uint32_t cr_inflight;		/* slots holding a credit (cr_slot_move) */
	pthread_cond_t cr_credit_cond;	/* calls going again (RQ_RESEND) */
	/* Calls whose AUTH keeps per-call state in one place (RPCSEC_GSS:
	 * one sequence number) go one at a time, as over libtirpc's TCP;
	 * recursive: a GSS refresh calls on this handle (cr_auth_serial). */
	pthread_mutex_t cr_auth_lock;
	struct cr_credit_wait *cr_credit_q;	/* new calls, first to come first */
	struct cr_credit_wait **cr_credit_qtail;
	/* eventfd: a credit freed while a credit waiter, as the poller,
	 * sleeps on the channel, which no completion would tell it
	 * (cr_credit_kick).  The sleeper (atomic): its cr_credit_wait, or
	 * CR_RESEND_SLEEPER for a call going again. */
	int cr_creditfd;
	const void *cr_credit_sleeper;
	struct rpcrdma_req *cr_reqs;
	uint32_t cr_nslots;		/* cr_reqs: a power of two >= credits */
	int cr_polling;			/* a waiter is reaping the CQ */
	struct rpcrdma_spin cr_spin;	/* the poller's alone (spin.h) */
	int cr_gone;			/* a CM event: fail once the CQ is drained */
	struct cr_waiter *cr_waiters;	/* the others, asleep */
	struct rpc_err cr_err;		/* the last call's outcome */
	char *cr_scratch_mem;		/* every slot's scratch, one allocation */
	char *cr_reply_mem;		/* every slot's Reply chunk target */
	uint32_t cr_hints[RPCRDMA_MAX_HINTS];	/* per-procedure Reply bounds */
	/* What Replies taught, per procedure (the last for all others),
	 * apart for calls with a Write chunk, whose Replies leave the bulk
	 * out: enum rpcrdma_reply_seen. */
	uint8_t cr_seen[2][RPCRDMA_MAX_HINTS + 1];
	struct timeval cr_timeout;
	int cr_timeout_set;
	pthread_t cr_thread;
	int cr_stopfd;			/* eventfd: stop the progress thread */
	int cr_thread_started;
	int cr_vt_marked;		/* its creator switches credentials per
					 * thread: so does the progress thread
					 * (verbs_thread.h) */
	/* Reconnection (clnt_state.c, clnt_reconnect.c). */
	char *cr_host, *cr_port;	/* what the connection was made to */
	int cr_kickfd;			/* eventfd: the connection was lost */
	enum cr_conn_state cr_conn;
	int cr_conn_err;		/* CR_GAVE_UP: why, negative errno */
	uint32_t cr_gen;		/* connections made so far */
	uint32_t cr_ep_users;		/* callers using the endpoint unlocked */
	uint32_t cr_abandoned;		/* slots in RQ_ABANDONED */
	uint32_t cr_resending;		/* slots in RQ_RESEND */
	pthread_cond_t cr_conn_cond;	/* cr_conn changed, or users left */
	/* Procedures whose refusal at a limit was logged (clnt_msg.c). */
	uint8_t cr_limit_warned[RPCRDMA_MAX_HINTS + 1];
	struct cr_async_ctl cr_async;	/* clnt_rdma_call_async(3) */
};


static inline struct clnt_rdma *to_cr(CLIENT *cl)
{
	return rpcrdma_container_of(cl, struct clnt_rdma, cr_clnt);
}

/* clnt_call.c: a call, and its steps for clnt_async.c */

/* What a step of a call leads to (cr_call). */
enum cc_next {
	CC_SEND,	/* marshal and post the Call (again), endpoint held */
	CC_WAIT,	/* posted: wait for the slot to leave RQ_SENT */
	CC_REPLIED,	/* the slot left RQ_SENT: a Reply, or RQ_FAILED */
	CC_RESEND,	/* the connection went: go again once reconnected */
	CC_RELEASE,	/* over, cc_st set: give back the slot */
	CC_RETURN,	/* over, cc_st set, the slot already dealt with */
};

/* One call in progress. */
struct cr_call {
	struct clnt_rdma *cc_cr;
	AUTH *cc_auth;				/* the CLIENT's, at this call */
	struct rpcrdma_req *cc_rq;
	struct cr_async *cc_async;		/* an asynchronous call's, or NULL */
	rpcproc_t cc_proc;
	xdrproc_t cc_xres;
	void *cc_resp;
	struct rpcrdma_result_buf *cc_rb;	/* zero-copy, or NULL */
	struct rpcrdma_xdr_buf cc_xb;		/* the Call, encoded */
	xdrproc_t cc_xargs;			/* what it was encoded from: */
	void *cc_argsp;				/* RPCSEC_GSS encodes it anew */
	struct timespec cc_deadline;
	bool cc_retried;	/* went once more with a Reply chunk */
	bool cc_held;		/* holds the endpoint (cr_ep_get) */
	bool cc_counted;	/* in rs_calls: a Call of it was posted */
	enum clnt_stat cc_st;	/* the outcome, once over */
	struct rpc_err cc_err;	/* a decoded Reply's, for clnt_geterr() */
	bool cc_err_due;	/* cc_err to record at the release */
};

void cr_call_init(struct cr_call *c, struct clnt_rdma *cr, AUTH *auth,
		  struct rpcrdma_result_buf *rb, rpcproc_t proc,
		  xdrproc_t xres, void *resp, struct timeval tmo);
int cr_call_take(struct cr_call *c, bool wait);
enum clnt_stat cr_call_not_taken(struct cr_call *c, int rc);
enum cc_next cr_call_encode(struct cr_call *c, xdrproc_t xargs, void *argsp);
enum cc_next cr_call_post(struct cr_call *c);
enum cc_next cr_call_abandon(struct cr_call *c);
enum cc_next cr_call_replied(struct cr_call *c);
void cr_call_resend_prep(struct cr_call *c);
enum cc_next cr_call_resend_try(struct cr_call *c, bool wait);
void cr_call_release(struct cr_call *c);
enum clnt_stat cr_call(struct clnt_rdma *cr, AUTH *auth,
		       struct rpcrdma_result_buf *rb, rpcproc_t proc, xdrproc_t xargs, void *argsp,
		       xdrproc_t xres, void *resp, struct timeval tmo);

/* clnt_reconnect.c */
void *cr_progress(void *arg);

/* clnt_msg.c */
int cr_encode_call(struct clnt_rdma *cr, struct rpcrdma_req *rq, AUTH *auth,
		   rpcproc_t proc, xdrproc_t xargs, void *argsp,
		   char *buf, uint32_t len, uint32_t threshold,
		   struct rpcrdma_xdr_buf *xb);
int cr_encode_spilled(struct clnt_rdma *cr, struct rpcrdma_req *rq,
		      AUTH *auth, rpcproc_t proc, xdrproc_t xargs, void *argsp,
		      struct rpcrdma_xdr_buf *xb);
void cr_trim_spill(struct rpcrdma_req *rq);
/* The largest buffer a Call is encoded into with every byte copied. */
#define RPCRDMA_SPILL_MAX	((4u << 20) + (64u << 10))
enum clnt_stat cr_refuse(struct clnt_rdma *cr, enum clnt_stat st, int err);
enum clnt_stat cr_call_too_large(struct clnt_rdma *cr, rpcproc_t proc,
				 size_t len);
enum clnt_stat cr_refused_chunk(struct clnt_rdma *cr, rpcproc_t proc,
				const struct rpcrdma_req *rq, size_t call_len);
enum clnt_stat cr_decode_reply(struct rpcrdma_req *rq, AUTH *auth,
			       xdrproc_t xres, void *resp, struct rpc_err *e);
uint32_t cr_reply_bound(struct clnt_rdma *cr, rpcproc_t proc, xdrproc_t xres,
			bool ddp);
bool cr_reply_learn(struct clnt_rdma *cr, rpcproc_t proc, xdrproc_t xres,
		    const struct rpcrdma_req *rq);

/* clnt_wait.c */
int cr_wait_for(struct clnt_rdma *cr,
		int (*done)(struct clnt_rdma *cr, const void *ctx),
		const void *ctx, pthread_cond_t *cond,
		struct rpcrdma_req *rq, const struct timespec *deadline);
int cr_reap(struct clnt_rdma *cr);
int cr_reap_gone(struct clnt_rdma *cr);
void cr_reap_wait(void *arg);
void cr_hand_over(struct clnt_rdma *cr);

/* clnt_setup.c */
int cr_setup(struct clnt_rdma *cr, const char *host, const char *port);

/*
 * Whether calls with this AUTH must go one at a time: libtirpc's
 * RPCSEC_GSS keeps one sequence number per context, which its marshal
 * sets and its validate and unwrap of the Reply read back, so two calls
 * in flight would check one Reply against the other's number (its own
 * TCP client holds the connection for a whole call).  Its flavour is set
 * by its first marshal, within authgss_create().
 */
static inline bool cr_auth_serial(const AUTH *auth)
{
	return auth && auth->ah_cred.oa_flavor == RPCSEC_GSS;
}
int cr_connect_first(struct clnt_rdma *cr);
int cr_connect_ep(struct clnt_rdma *cr);
void cr_free(struct clnt_rdma *cr);

/*
 * n registrations or windows of calls made dead: counted, and the
 * chunk_inval probe fired, in one place so a trace summing the probe
 * always equals rs_chunk_deregs.  Lock held.
 */
static inline void cr_count_deregs(struct clnt_rdma *cr, unsigned int n)
{
	cr->cr_x.rx_stats.rs_chunk_deregs += n;
	if (n)
		RPCRDMA_PROBE2(chunk_inval, &cr->cr_x, n);
}

/* The poller's spin bound now (spin.h, rpcrdma_spin_bound).  Lock held. */
static inline uint32_t cr_spin_bound(const struct clnt_rdma *cr)
{
	return rpcrdma_spin_bound(cr->cr_x.rx_opts.ro_busy_poll_us,
				  cr->cr_x.rx_opts.ro_busy_poll_alone_us,
				  cr->cr_inflight);
}

/* clnt_state.c */
void cr_slot_move(struct clnt_rdma *cr, struct rpcrdma_req *rq,
		  enum rpcrdma_req_state to);
struct rpcrdma_req *cr_slot_find(struct clnt_rdma *cr, uint32_t xid);
void cr_free_abandoned(struct clnt_rdma *cr, struct rpcrdma_req *rq);
void cr_fail_all(struct clnt_rdma *cr, int err);
void cr_waiter_link(struct clnt_rdma *cr, struct cr_waiter *w);
void cr_waiter_unlink(struct clnt_rdma *cr, struct cr_waiter *w);
void cr_credit_enqueue(struct clnt_rdma *cr, struct cr_credit_wait *cw);
void cr_credit_dequeue(struct clnt_rdma *cr, struct cr_credit_wait *cw);
void cr_credit_freed(struct clnt_rdma *cr);
void cr_credit_wake_all(struct clnt_rdma *cr);
void cr_credit_signal(struct clnt_rdma *cr, struct cr_credit_wait *cw);
bool cr_can_reconnect(const struct clnt_rdma *cr);
int cr_wait_connected(struct clnt_rdma *cr, bool new_round,
		      const struct timespec *deadline);
int cr_try_connected(struct clnt_rdma *cr, bool new_round);
void cr_ep_get(struct clnt_rdma *cr);
void cr_ep_put(struct clnt_rdma *cr);
enum clnt_stat cr_put_err(struct clnt_rdma *cr, const struct rpc_err *e);
enum clnt_stat cr_set_err(struct clnt_rdma *cr, enum clnt_stat st, int err);
enum clnt_stat cr_fill_err(struct rpc_err *e, enum clnt_stat st, int err);
void cr_async_kick(struct clnt_rdma *cr);

/* clnt_async.c, clnt_async_drive.c (clnt_rdma.c and clnt_reconnect.c call
 * them) */
struct cr_async_args {
	rpcproc_t aa_proc;
	xdrproc_t aa_xargs;
	void *aa_args;
	xdrproc_t aa_xres;
	void *aa_res;
	struct timeval aa_tmo;
	void (*aa_done)(CLIENT *cl, enum clnt_stat st, void *arg);
	CLIENT *aa_cl;		/* passed to aa_done, never used here */
	void *aa_arg;
};
int cr_async_start(struct clnt_rdma *cr, AUTH *auth,
		   const struct cr_async_args *aa);
int cr_async_fd(struct clnt_rdma *cr);
int cr_async_thread(struct clnt_rdma *cr);
void cr_async_destroy(struct clnt_rdma *cr);
int cr_async_progress(struct clnt_rdma *cr, int timeout_ms);	/* _drive.c */

#endif /* RPCRDMA_CLNT_RDMA_H */
