/*
 * The server's private structures, shared by the svc_run() side
 * (svc_rdma.c) and the service threads that can serve a listener's
 * connections instead (svc_threads.c, ro_svc_threads > 0).
 */
#ifndef RPCRDMA_SVC_THREADS_H
#define RPCRDMA_SVC_THREADS_H

#include "transport.h"
#include <rpc/svc_mt.h>

struct svc_rdma_listener;
struct svc_rdma_conn;

/*
 * The Call being served: one per connection under svc_run(), one per
 * service thread in threaded mode, so parallel Calls share nothing.
 */
struct svc_rdma_call {
	struct svc_rdma_conn *ct_conn;	/* threaded: the connection served */
	struct rpcrdma_rep *ct_cur;	/* the Call's receive, until reposted */
	uint32_t ct_xid;		/* its xid: svc_sendreply() leaves it 0 */
	uint32_t ct_slot;		/* which scratch slice its Reply uses */
	XDR ct_args;			/* decoder over ct_cur's RPC message */
};

/* One accepted connection. */
struct svc_rdma_conn {
	SVCXPRT sc_xprt;
	SVCXPRT_EXT sc_ext;
	struct rpcrdma_xprt sc_x;
	struct svc_rdma_listener *sc_lst;
	struct svc_rdma_conn *sc_next;	/* listener's list of connections */
	pthread_mutex_t sc_lock;	/* the Call queue and CQ reaping */
	struct rpcrdma_rep **sc_queue;	/* Calls received, not yet served */
	uint32_t sc_qhead, sc_qlen;
	struct svc_rdma_call sc_call;	/* svc_run mode: the Call being served */
	char *sc_scratch;		/* Reply head/tail storage (registered) */
	struct ibv_mr *sc_scratch_mr;
	int sc_threaded;		/* served by the listener's threads */
	int sc_refs;			/* threaded: threads serving it (sl_lock) */
	struct svc_rdma_conn *sc_gone;	/* threaded: the leader's to destroy */
};

/* The service threads of one listener (threaded mode only). */
struct svc_rdma_pool {
	pthread_t *sp_threads;
	uint32_t sp_nthreads;
	pthread_cond_t sp_cond;		/* Calls queued, or a leader is wanted */
	int sp_leader;			/* one thread polls, the others wait */
	int sp_stop;
	int sp_wakefd;			/* eventfd: refresh the leader's set, stop */
};

struct svc_rdma_listener {
	SVCXPRT sl_xprt;
	SVCXPRT_EXT sl_ext;
	struct rpcrdma_options sl_opts;
	struct rpcrdma_optsrc sl_src;	/* configuration read at creation */
	struct rdma_event_channel *sl_ch;
	struct rdma_cm_id *sl_id;
	pthread_mutex_t sl_lock;
	struct svc_rdma_conn *sl_conns;
	struct rpcrdma_stats sl_closed;	/* counters of connections gone, and
					 * the leader's poll counters */
	struct svc_rdma_pool sl_pool;
};

/* svc_rdma.c, for the service threads. */
int svc_rdma_conn_reap(struct svc_rdma_conn *c);
void svc_rdma_conn_repost(struct svc_rdma_conn *c, struct rpcrdma_rep *rep);
void svc_rdma_conn_destroy(struct svc_rdma_conn *c);
void svc_rdma_lst_events(struct svc_rdma_listener *l);

/* svc_threads.c */
extern __thread struct svc_rdma_call *svc_rdma_thread_call;
int svc_threads_start(struct svc_rdma_listener *l);
void svc_threads_stop(struct svc_rdma_listener *l);
void svc_threads_kick(struct svc_rdma_listener *l);

#endif /* RPCRDMA_SVC_THREADS_H */
