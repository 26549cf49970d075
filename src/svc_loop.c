/*
 * The server's serving loop under svc_run(): fair turns (the kick), per-peer
 * stall budgets, and the private loop svc_rdma_serve().  Who polls, who
 * sleeps and who wakes whom, in both modes, is written once, in
 * src/event-loop.md: keep it true there when a wait here changes.
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

	pthread_mutex_lock(&l->ln_lock);
	c->cn_yield_gen = l->ln_kick_gen + 1;
	pthread_mutex_unlock(&l->ln_lock);
	pthread_mutex_lock(&c->cn_x.rx_lock);
	c->cn_x.rx_stats.rs_turns_yielded++;
	pthread_mutex_unlock(&c->cn_x.rx_lock);
	svc_rdma_kick(l);
}

/* Wake svc_run() for a kick pass (kick_recv in svc_rdma.c). */
void svc_rdma_kick(struct svc_rdma_listener *l)
{
	uint64_t one = 1;

	if (l->ln_kickfd >= 0 && write(l->ln_kickfd, &one, sizeof(one)) < 0)
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
				fd = c->cn_fd;
				break;
			}
		pthread_mutex_unlock(&l->ln_lock);
		if (fd < 0)
			return;
		l->ln_tirpc->to_getreq(fd);
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
	l->ln_kickfd = *fdp;
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
