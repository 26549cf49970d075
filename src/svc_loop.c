/*
 * The server's serving loop: who polls, who sleeps, who wakes whom (below,
 * kept true here and nowhere else), fair turns under svc_run() (the kick),
 * per-peer stall budgets, and the private loop svc_rdma_serve().
 *
 * svc_run() mode (svc_threads 0): one thread, libtirpc's, does everything.
 *   Sleeps: svc_run() in poll(2) over every registered descriptor: the
 *   listener's CM channel, each connection's completion channel (its xp_fd),
 *   the idle timer (svc_idle.c) and the kick eventfd.
 *   Wakes it: a CM event; a completion on an armed CQ (the channel fires
 *   once per arming); the timer; a write to the kick.
 *   Polls: for each ready descriptor libtirpc's svc_getreq_common() calls
 *   xp_recv, then xp_stat, and again while xp_stat says XPRT_MOREREQS: that
 *   is the descriptor's turn.  lst_recv takes every CM event (accepts,
 *   refusals, connections gone, destroyed at once); idle_recv sweeps idle
 *   connections; conn_recv reaps its own CQ only and takes one queued Call.
 *   A connection's turn: conn_stat spins up to busy_poll_us for its next
 *   Call (XPRT_MOREREQS), but after SVC_RDMA_TURN_CALLS Calls it only looks
 *   (no spin): Calls still queued, it yields (svc_rdma_conn_yield: marked
 *   for the next kick pass, the kick written) and says XPRT_IDLE, so libtirpc
 *   goes on to the next ready descriptor; the next poll(2) returns at once,
 *   with the CM channel, the timer and every other channel, and kick_recv
 *   gives each yielded connection its next turn.  One pass of svc_run() thus
 *   serves any connection at most two turns (its channel's and the kick's).
 *   A CQ is armed only when its connection's turn ends with nothing queued
 *   (conn_spin): the one way back to sleep, so no completion is missed.
 *   Blocks: inside a turn, waiting for a send context, a Reply's Send or a
 *   Read/Write chain, reaping that connection's CQ only, at most
 *   svc_stall_ms (a chain: plus its bytes at 4 MiB/s; svc_rdma_stall_deadline);
 *   then the connection is torn down and its peer refused a while
 *   (svc_rdma_peer_stalled).  Dead
 *   connections: conn_stat says XPRT_DIED and libtirpc destroys them.
 *
 * Service threads (svc_threads N, svc_threads.c): svc_run(), or the
 *   program's loop, serves nothing: it sleeps on the listener's private
 *   eventfd, written only by svc_threads_kick() after svc_exit().
 *   Of the N threads at most one leads at a time: it alone polls the wake
 *   eventfd, the CM channel and every completion channel, collects dead
 *   connections and sweeps idle ones (set_build), reaps every CQ into the
 *   connections' Call queues, spins busy_poll_us, and only when no Call is
 *   queued anywhere arms every CQ and sleeps in poll(2) (at most 1 s).  The
 *   others take queued Calls (pick: round-robin, a connection goes to the
 *   tail after each Call) and, with none, sleep on th_cond.
 *   Who leads: a thread with no Call to take when nobody leads; and, however
 *   busy the connections, the next free thread once SVC_RDMA_TURN_CALLS
 *   Calls were taken since the last lead (a forced lead: one look at the CM
 *   channel and every CQ without sleeping, counted rs_forced_leads), so new
 *   connections, other connections' Calls, the idle sweep and cleanup never
 *   wait behind a busy connection.
 *   Wakes whom: a leader ending its turn broadcasts th_cond (followers take
 *   what it queued, one of them leads next); the thread that ends the last
 *   Call of a dead connection writes the wake eventfd so the leader collects
 *   it; svc_threads_stop() writes it and broadcasts.  A follower that needs
 *   a send context reaps its own connection's CQ (svc_rdma_conn_reap_wait),
 *   bounded by svc_stall_ms as above.
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "poller.h"
#include "svc_int.h"

/* ---- fair turns under svc_run(): the kick ------------------------------- */

/*
 * The turn of c ended with Calls still queued: it is served again in the
 * next kick pass, after everything else ready now.  svc_run mode only.
 */
void svc_rdma_conn_yield(struct svc_rdma_conn *c)
{
	struct svc_rdma_listener *l = c->cn_lst;
	uint64_t one = 1;

	pthread_mutex_lock(&l->ln_lock);
	c->cn_yield_gen = l->ln_kick_gen + 1;
	pthread_mutex_unlock(&l->ln_lock);
	pthread_mutex_lock(&c->cn_x.rx_lock);
	c->cn_x.rx_stats.rs_turns_yielded++;
	pthread_mutex_unlock(&c->cn_x.rx_lock);
	if (write(l->ln_kick_xprt.xp_fd, &one, sizeof(one)) < 0)
		RPCRDMA_DBG("kick: %s", strerror(errno));
}

/*
 * One kick pass: one more turn for each connection that yielded before
 * it, through libtirpc as its own descriptor would have had.  One that
 * yields again waits for the next pass (a newer generation); one that died
 * in its turn is destroyed by libtirpc and off the list.
 */
void svc_rdma_kick_pass(struct svc_rdma_listener *l, int kickfd)
{
	struct svc_rdma_conn *c;
	uint64_t v, gen;
	int fd;

	if (read(kickfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		RPCRDMA_DBG("kick: %s", strerror(errno));
	pthread_mutex_lock(&l->ln_lock);
	gen = ++l->ln_kick_gen;
	pthread_mutex_unlock(&l->ln_lock);
	for (;;) {
		fd = -1;
		pthread_mutex_lock(&l->ln_lock);
		for (c = l->ln_conns; c; c = c->cn_next)
			if (c->cn_yield_gen && c->cn_yield_gen <= gen) {
				c->cn_yield_gen = 0;
				fd = c->cn_xprt.xp_fd;
				break;
			}
		pthread_mutex_unlock(&l->ln_lock);
		if (fd < 0)
			return;
		svc_getreq_common(fd);
	}
}

/*
 * svc_run() mode: the kick eventfd, which svc_rdma.c registers as a
 * hidden SVCXPRT.  0 with it in *fdp (-1 in threaded mode), or -errno.
 */
int svc_rdma_kick_open(struct svc_rdma_listener *l, int *fdp)
{
	*fdp = -1;
	if (l->ln_opts.ro_svc_threads)
		return 0;
	*fdp = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return *fdp < 0 ? -errno : 0;
}

/* ---- per-peer stall budgets ---------------------------------------------- */

/*
 * The deadline of one blocking step of c that moves bytes (a Read or
 * Write chain; 0 for a Send): svc_stall_ms, plus the bytes' time at a
 * floor rate, from now; or now for a connection whose peer already
 * stalled (it may not block at all: its step fails, and the connection
 * goes, the moment it would wait).
 */
void svc_rdma_stall_deadline(struct svc_rdma_conn *c, uint64_t bytes,
			     struct timespec *ts)
{
	uint32_t ms = svc_rdma_stall_budget_ms(c->cn_x.rx_opts.ro_svc_stall_ms,
					       bytes);

	if (__atomic_load_n(&c->cn_penalized, __ATOMIC_RELAXED))
		ms = 0;
	rpcrdma_deadline_ms(ts, ms);
}

/*
 * c's peer held a serving thread for svc_stall_ms: its budget is spent.
 * Its new connections are refused for SVC_RDMA_PENALTY_FACTOR times that,
 * and its other connections get no time to block from now on, so neither
 * reconnecting nor many connections at once keep the server stalled.
 */
void svc_rdma_peer_stalled(struct svc_rdma_conn *c)
{
	struct svc_rdma_listener *l = c->cn_lst;
	const struct sockaddr *sa = (const struct sockaddr *)&c->cn_raddr.sa_ss;
	struct svc_rdma_conn *o;

	if (!l)
		return;
	pthread_mutex_lock(&l->ln_lock);
	svc_rdma_peer_penalize(&l->ln_peers, sa, rpcrdma_poll_now_ns(NULL),
			       svc_rdma_penalty_ns(c->cn_x.rx_opts.ro_svc_stall_ms));
	for (o = l->ln_conns; o; o = o->cn_next)
		if (svc_rdma_peer_same(sa, (const struct sockaddr *)&o->cn_raddr.sa_ss))
			__atomic_store_n(&o->cn_penalized, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&l->ln_lock);
	RPCRDMA_DBG("conn %p: its peer is refused for %u ms", (void *)c,
		    c->cn_x.rx_opts.ro_svc_stall_ms * SVC_RDMA_PENALTY_FACTOR);
}

/* A CONNECT_REQUEST from id's peer may go on: 0 (counted) while refused. */
int svc_rdma_peer_admit(struct svc_rdma_listener *l, struct rdma_cm_id *id)
{
	int refused;

	pthread_mutex_lock(&l->ln_lock);
	refused = svc_rdma_peer_refused(&l->ln_peers, rdma_get_peer_addr(id),
					rpcrdma_poll_now_ns(NULL));
	if (refused)
		l->ln_closed.rs_stall_refused++;
	pthread_mutex_unlock(&l->ln_lock);
	if (refused)
		RPCRDMA_DBG("listener: its peer stalled us lately: refused");
	return !refused;
}

/* ---- a private service loop ---------------------------------------------- */
