/*
 * The RDMA server's top: the only file that speaks libtirpc's SVCXPRT.
 * A listening SVCXPRT whose CM events create one SVCXPRT per connection
 * (svc_accept.c), each registered with libtirpc so svc_run() polls it.
 * A connection's xp_fd is its completion channel; Calls queue up there.
 * With ro_svc_threads, the listener's own threads serve instead
 * (svc_threads.c): every xp_fd is then a private eventfd svc_run() never
 * wakes for, kept only so svc_getreq_common() finds the SVCXPRT.
 * Who polls, sleeps and wakes whom, in both modes: svc_loop.c.  Below this
 * file everything takes the server's own connection and listener.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/eventfd.h>
#include "abi.h"
#include "netid.h"
#include "svc_drc.h"
#include "svc_int.h"
#include "fdreg.h"

static const struct xp_ops conn_ops, listener_ops, idle_ops, kick_ops;
static const struct xp_ops2 svc_rdma_ops2;

static struct svc_rdma_conn *to_conn(SVCXPRT *xprt)
{
	return rpcrdma_container_of(xprt, struct svc_rdma_conn, cn_xprt);
}

/* The connection behind xprt, or NULL for any other SVCXPRT. */
static struct svc_rdma_conn *conn_of(SVCXPRT *xprt)
{
	return xprt && xprt->xp_ops == &conn_ops ? to_conn(xprt) : NULL;
}

static struct svc_rdma_listener *to_lst(SVCXPRT *xprt)
{
	return rpcrdma_container_of(xprt, struct svc_rdma_listener, ln_xprt);
}

/* The listener behind xprt, or NULL for any other SVCXPRT. */
static struct svc_rdma_listener *lst_of(SVCXPRT *xprt)
{
	return xprt && xprt->xp_ops == &listener_ops ? to_lst(xprt) : NULL;
}

/* Under ln_lock: add the counters of a list of connections into a sum. */
static void conns_add(struct rpcrdma_stats *sum, struct svc_rdma_conn *c)
{
	for (; c; c = c->cn_next) {
		pthread_mutex_lock(&c->cn_x.rx_lock);
		svc_rdma_stats_add(sum, &c->cn_x.rx_stats);
		pthread_mutex_unlock(&c->cn_x.rx_lock);
	}
}

/* ---- one connection ------------------------------------------------------ */

static bool_t conn_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	return svc_rdma_call_recv(to_conn(xprt), msg);
}

static enum xprt_stat conn_stat(SVCXPRT *xprt)
{
	struct svc_rdma_conn *c = to_conn(xprt);
	int spent;

	/* Threaded: one Call per svc_getreq_common(), and libtirpc never
	 * destroys what other threads may be serving (svc_threads.c does). */
	if (c->cn_threaded)
		return XPRT_IDLE;
	if (c->cn_x.rx_dead)
		return XPRT_DIED;
	/* The turn's budget spent, or other connections' Calls coming
	 * between this one's (svc_conn.c, conn_mark_call): one look, no
	 * spin, before it ends. */
	spent = c->cn_turn >= SVC_RDMA_TURN_CALLS;
	if (!svc_rdma_conn_spin(c, spent || c->cn_interleaved ? 0 :
				c->cn_x.rx_opts.ro_busy_poll_us)) {
		c->cn_turn = 0;
		return XPRT_IDLE;	/* the CQ armed: back to poll(2) */
	}
	if (c->cn_x.rx_dead)
		return XPRT_DIED;
	if (!spent)
		return XPRT_MOREREQS;
	/* Calls left: the others' turns first (svc_loop.c). */
	c->cn_turn = 0;
	svc_rdma_conn_yield(c);
	return XPRT_IDLE;
}

static bool_t conn_getargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	struct svc_rdma_call *ct = svc_rdma_conn_call(to_conn(xprt));

	if (!ct || !ct->ct_cur)
		return FALSE;
	return SVCAUTH_UNWRAP(&SVC_XP_AUTH(xprt), &ct->ct_args, xargs, argsp);
}

/* The Call's auth flavour wraps its results (svc_reply.c encodes). */
static bool_t conn_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	return svc_rdma_reply(to_conn(xprt), &SVC_XP_AUTH(xprt), msg);
}

static bool_t conn_freeargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	XDR xdrs;

	(void)xprt;
	xdrs.x_op = XDR_FREE;
	return xargs(&xdrs, argsp);
}

static void conn_destroy(SVCXPRT *xprt)
{
	svc_rdma_conn_destroy(to_conn(xprt));
}

static bool_t conn_control(SVCXPRT *xprt, const u_int rq, void *in)
{
	(void)xprt;
	(void)rq;
	(void)in;
	return FALSE;
}

static const struct xp_ops conn_ops = {
	.xp_recv = conn_recv,
	.xp_stat = conn_stat,
	.xp_getargs = conn_getargs,
	.xp_reply = conn_reply,
	.xp_freeargs = conn_freeargs,
	.xp_destroy = conn_destroy,
};

/* Listener and connections alike answer no svc_control() request. */
static const struct xp_ops2 svc_rdma_ops2 = {
	.xp_control = conn_control,
};

/* ---- the listener's hidden SVCXPRTs (svc_run mode) --------------------- */

static enum xprt_stat hidden_stat(SVCXPRT *xprt)
{
	(void)xprt;
	return XPRT_IDLE;
}

static bool_t hidden_never(SVCXPRT *xprt, xdrproc_t p, void *a)
{
	(void)xprt;
	(void)p;
	(void)a;
	return FALSE;
}

static bool_t hidden_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	(void)xprt;
	(void)msg;
	return FALSE;
}

/* The listener owns it: hidden_stop() is the only way it goes. */
static void hidden_destroy(SVCXPRT *xprt)
{
	(void)xprt;
}

/* idle_timeout_ms: the timer ticked (svc_idle.c). */
static bool_t idle_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	(void)msg;
	svc_rdma_idle_tick(rpcrdma_container_of(xprt, struct svc_rdma_listener,
						ln_idle_xprt), xprt->xp_fd);
	return FALSE;	/* never a Call */
}

/*
 * Fair turns: connections that yielded get theirs (svc_loop.c); first,
 * CM events a wait took early (svc_cm.c), which kicked to be acted on.
 */
static bool_t kick_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_rdma_listener *l =
		rpcrdma_container_of(xprt, struct svc_rdma_listener, ln_kick_xprt);

	(void)msg;
	if (__atomic_load_n(&l->ln_nkept, __ATOMIC_RELAXED))
		svc_rdma_lst_events(l);
	svc_rdma_kick_pass(l, xprt->xp_fd);
	return FALSE;	/* never a Call of its own */
}

static const struct xp_ops idle_ops = {
	.xp_recv = idle_recv,
	.xp_stat = hidden_stat,
	.xp_getargs = hidden_never,
	.xp_reply = hidden_reply,
	.xp_freeargs = hidden_never,
	.xp_destroy = hidden_destroy,
};

static const struct xp_ops kick_ops = {
	.xp_recv = kick_recv,
	.xp_stat = hidden_stat,
	.xp_getargs = hidden_never,
	.xp_reply = hidden_reply,
	.xp_freeargs = hidden_never,
	.xp_destroy = hidden_destroy,
};

/* Register fd (when there is one) as a hidden SVCXPRT of the listener. */
static void hidden_start(SVCXPRT *xprt, SVCXPRT_EXT *ext,
			 const struct xp_ops *ops, int fd)
{
	xprt->xp_fd = fd;
	if (fd < 0)
		return;
	xprt->xp_ops = ops;
	xprt->xp_netid = "rdma";
	xprt->xp_tp = "rdma";
	xprt->xp_p3 = ext;
	xprt_register(xprt);
}

static void hidden_stop(SVCXPRT *xprt)
{
	if (xprt->xp_fd < 0)
		return;
	xprt_unregister(xprt);
	close(xprt->xp_fd);
	xprt->xp_fd = -1;
}

/* svc_run() mode with idle_timeout_ms set: the idle timer. */
static int idle_start(struct svc_rdma_listener *l)
{
	int fd = -1, rc = svc_rdma_idle_open(l, &fd);

	hidden_start(&l->ln_idle_xprt, &l->ln_idle_ext, &idle_ops, rc ? -1 : fd);
	return rc;
}

/* svc_run() mode: the kick eventfd. */
static int kick_start(struct svc_rdma_listener *l)
{
	int fd = -1, rc = svc_rdma_kick_open(l, &fd);

	hidden_start(&l->ln_kick_xprt, &l->ln_kick_ext, &kick_ops, rc ? -1 : fd);
	return rc;
}

/* ---- the listener -------------------------------------------------------- */

static bool_t lst_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_rdma_listener *l = to_lst(xprt);

	(void)msg;
	/* Threaded: the leader takes CM events; svc_run only woke to see
	 * svc_exit() (svc_threads_kick), or to close the descriptors of
	 * connections gone, now that its poll is over (svc_fdpool.c). */
	if (l->ln_threads.th_nthreads) {
		uint64_t v;

		while (read(xprt->xp_fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			;
		svc_rdma_fdpool_close_all(&l->ln_fdpool);
	} else {
		svc_rdma_lst_events(l);
		/* Out of svc_run()'s set: its channel would wake it forever. */
		if (l->ln_cm_refused)
			xprt_unregister(xprt);
	}
	return FALSE;	/* a listener never carries a Call itself */
}

static enum xprt_stat lst_stat(SVCXPRT *xprt)
{
	(void)xprt;
	return XPRT_IDLE;
}

static bool_t lst_never(SVCXPRT *xprt, xdrproc_t p, void *a)
{
	(void)xprt;
	(void)p;
	(void)a;
	return FALSE;
}

static bool_t lst_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	(void)xprt;
	(void)msg;
	return FALSE;
}

static void lst_destroy(SVCXPRT *xprt)
{
	struct svc_rdma_listener *l = to_lst(xprt);

	/* No thread may serve or poll what is torn down below. */
	if (l->ln_threads.th_nthreads)
		svc_threads_stop(l);
	xprt_unregister(xprt);
	rpcrdma_fdreg_del(xprt->xp_fd);
	hidden_stop(&l->ln_idle_xprt);
	hidden_stop(&l->ln_kick_xprt);
	while (l->ln_conns)
		svc_rdma_conn_destroy(l->ln_conns);
	if (l->ln_threads.th_nthreads)
		close(xprt->xp_fd);
	svc_rdma_fdpool_fini(&l->ln_fdpool);
	svc_rdma_drc_stop(l);
	/* After the last connection: nothing uses the PDs any more. */
	svc_rdma_devs_fini(l);
	/* Events a wait took early and nobody acted on: acked, or the
	 * listener's id could not be destroyed. */
	svc_rdma_cm_forget_all(l);
	rpcrdma_listen_close(l->ln_ch, l->ln_id);
	pthread_mutex_destroy(&l->ln_lock);
	rpcrdma_optsrc_fini(&l->ln_src);
	free(l);
}

static const struct xp_ops listener_ops = {
	.xp_recv = lst_recv,
	.xp_stat = lst_stat,
	.xp_getargs = lst_never,
	.xp_reply = lst_reply,
	.xp_freeargs = lst_never,
	.xp_destroy = lst_destroy,
};


/* ---- the connections' SVCXPRTs, for the files below ----------------- */

/* "rdma6" for a transport on an IPv6 address, else "rdma" (RFC 8166). */
static char *netid_of(const struct netbuf *laddr)
{
	const struct sockaddr *sa = laddr->buf;

	return laddr->len >= sizeof(sa->sa_family) && sa->sa_family == AF_INET6 ?
	       RPCRDMA_NETID6 : RPCRDMA_NETID;
}

/*
 * A connection's SVCXPRT: the listener's prototype (our ops), its
 * descriptor, and its addresses as libtirpc's TCP transport sets them: the
 * peer's in xp_rtaddr (and the legacy xp_raddr when it fits), the local
 * one in xp_ltaddr.  Copied: the cm_id's own go with it.
 */
static void conn_init(struct svc_rdma_conn *c)
{
	SVCXPRT *xprt = &c->cn_xprt;
	struct rdma_cm_id *id = c->cn_x.rx_ep.re_id;

	*xprt = c->cn_lst->ln_conn_xprt;
	xprt->xp_fd = c->cn_fd;
	xprt->xp_p3 = &c->cn_ext;
	c->cn_ext.xp_auth.svc_ah_ops = NULL;
	svc_rdma_set_netbuf(&xprt->xp_ltaddr, &c->cn_laddr,
			    rpcrdma_id_local_addr(id));
	svc_rdma_set_netbuf(&xprt->xp_rtaddr, &c->cn_raddr,
			    rpcrdma_id_peer_addr(id));
	if (xprt->xp_rtaddr.len &&
	    xprt->xp_rtaddr.len <= sizeof(xprt->xp_raddr)) {
		memcpy(&xprt->xp_raddr, &c->cn_raddr.sa_ss, xprt->xp_rtaddr.len);
		xprt->xp_addrlen = (int)xprt->xp_rtaddr.len;
	}
	xprt->xp_netid = xprt->xp_tp = netid_of(&xprt->xp_ltaddr);
}

/* Registered for rpcrdma_fd_sockinfo(3) while libtirpc has it. */
static void conn_register(struct svc_rdma_conn *c)
{
	if (rpcrdma_fdreg_add(c->cn_fd, RPCRDMA_SI_CONNECTION,
			      (struct sockaddr *)&c->cn_laddr.sa_ss,
			      (struct sockaddr *)&c->cn_raddr.sa_ss))
		RPCRDMA_DBG("conn %p: descriptor %d not registered", (void *)c,
			    c->cn_fd);
	xprt_register(&c->cn_xprt);
}

/*
 * Why the auth goes here: libtirpc's svcauth_gss keeps a connection's
 * RPCSEC_GSS context in a cache keyed by the SVCXPRT's address, dropped
 * only by RPCSEC_GSS_DESTROY or after 5 idle minutes.  A connection made
 * later at the same address must never inherit it, so it is destroyed
 * with the connection (AUTH_SYS's ops destroy nothing).
 */
static void conn_unregister(struct svc_rdma_conn *c)
{
	SVCAUTH *auth = &c->cn_ext.xp_auth;

	xprt_unregister(&c->cn_xprt);
	rpcrdma_fdreg_del(c->cn_fd);
	if (auth->svc_ah_ops && auth->svc_ah_ops->svc_ah_destroy)
		SVCAUTH_DESTROY(auth);
	auth->svc_ah_ops = NULL;
	auth->svc_ah_private = NULL;
}

static void getreq(int fd)
{
	svc_getreq_common(fd);
}

static const struct svc_rdma_tirpc_ops tirpc_ops = {
	.to_conn_init = conn_init,
	.to_conn_register = conn_register,
	.to_conn_unregister = conn_unregister,
	.to_getreq = getreq,
};

SVCXPRT *svc_rdma_create(const char *host, const char *port,
			 const struct rpcrdma_options *opts)
{
	struct svc_rdma_listener *l = calloc(1, sizeof(*l));
	char portbuf[8];
	int rc;

	if (!l) {
		rc = -ENOMEM;
		goto out_err;
	}
	rc = rpcrdma_options_setup(&l->ln_src, opts, RPCRDMA_CS_SERVER);
	if (rc) {
		rpcrdma_optsrc_fini(&l->ln_src);
		free(l);
		goto out_err;
	}
	rpcrdma_optsrc_resolve(&l->ln_src, NULL, RPCRDMA_DRV_OTHER, &l->ln_opts);
	pthread_mutex_init(&l->ln_lock, NULL);
	svc_rdma_fdpool_init(&l->ln_fdpool);
	if (!port) {	/* the port key, RPCRDMA_DEFAULT_PORT unless set */
		snprintf(portbuf, sizeof(portbuf), "%u", l->ln_opts.ro_port);
		port = portbuf;
	}
	rc = rpcrdma_listen(&l->ln_ch, &l->ln_id, host, port,
			    (int)l->ln_opts.ro_max_requests);
	if (rc) {
		pthread_mutex_destroy(&l->ln_lock);
		rpcrdma_optsrc_fini(&l->ln_src);
		free(l);
		goto out_err;
	}
	l->ln_tirpc = &tirpc_ops;
	l->ln_kickfd = l->ln_runfd = -1;
	l->ln_xprt.xp_fd = l->ln_ch->fd;
	if (l->ln_opts.ro_svc_threads) {
		/*
		 * The leader polls the CM channel; svc_run() gets a private
		 * eventfd instead, so it has something to wait on and is
		 * woken only to return after svc_exit().
		 */
		l->ln_runfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		l->ln_xprt.xp_fd = l->ln_runfd;
		l->ln_fdpool.fp_wakefd = l->ln_runfd;
		if (l->ln_xprt.xp_fd < 0) {
			rc = -errno;
			goto out_listen;
		}
	}
	l->ln_xprt.xp_port = rpcrdma_id_port(l->ln_id);
	svc_rdma_set_netbuf(&l->ln_xprt.xp_ltaddr, &l->ln_laddr,
			    rpcrdma_id_local_addr(l->ln_id));
	l->ln_xprt.xp_ops = &listener_ops;
	l->ln_xprt.xp_ops2 = &svc_rdma_ops2;
	l->ln_xprt.xp_netid = l->ln_xprt.xp_tp = netid_of(&l->ln_xprt.xp_ltaddr);
	l->ln_xprt.xp_p3 = &l->ln_ext;
	/* What every connection's SVCXPRT starts as (svc_accept.c). */
	l->ln_conn_xprt.xp_ops = &conn_ops;
	l->ln_conn_xprt.xp_ops2 = &svc_rdma_ops2;
	l->ln_conn_xprt.xp_netid = "rdma";
	l->ln_conn_xprt.xp_tp = "rdma";
	/* The cache first: a service thread may serve Calls at once. */
	rc = svc_rdma_drc_start(l);
	if (!rc && l->ln_opts.ro_svc_threads) {
		rc = svc_threads_start(l);
		if (rc)
			svc_rdma_drc_stop(l);
	}
	if (rc) {
		if (l->ln_opts.ro_svc_threads)
			close(l->ln_xprt.xp_fd);
		goto out_listen;
	}
	rc = idle_start(l);
	if (!rc) {
		rc = kick_start(l);
		if (rc)
			hidden_stop(&l->ln_idle_xprt);
	}
	if (rc) {
		if (l->ln_opts.ro_svc_threads) {
			svc_threads_stop(l);
			close(l->ln_xprt.xp_fd);
		}
		svc_rdma_drc_stop(l);
		goto out_listen;
	}
	if (rpcrdma_fdreg_add(l->ln_xprt.xp_fd, RPCRDMA_SI_LISTENER,
			      (struct sockaddr *)&l->ln_laddr.sa_ss, NULL))
		RPCRDMA_DBG("listener: descriptor not registered");
	xprt_register(&l->ln_xprt);
	return &l->ln_xprt;

out_listen:
	rpcrdma_listen_close(l->ln_ch, l->ln_id);
	pthread_mutex_destroy(&l->ln_lock);
	rpcrdma_optsrc_fini(&l->ln_src);
	free(l);

out_err:
	rpc_createerr.cf_stat = RPC_SYSTEMERROR;
	rpc_createerr.cf_error.re_errno = -rc;
	return NULL;
}

/* Counters of one connection, or of every connection a listener accepted. */
/* Filled into the program's struct only as far as its rs_size. */
int svc_rdma_get_stats(SVCXPRT *xprt, struct rpcrdma_stats *prog)
{
	struct rpcrdma_stats st, *stats = &st;
	struct svc_rdma_listener *l;
	struct svc_rdma_conn *c;

	if (!xprt || !prog)
		return -1;
	if (prog->rs_size < RPCRDMA_STATS_SIZE_0_1) {
		errno = EINVAL;
		return -1;
	}
	if (xprt->xp_ops == &conn_ops) {
		c = to_conn(xprt);
		pthread_mutex_lock(&c->cn_x.rx_lock);
		*stats = c->cn_x.rx_stats;
		pthread_mutex_unlock(&c->cn_x.rx_lock);
		/* Pinned memory is its device's, shared with its siblings. */
		pthread_mutex_lock(&c->cn_dev->dv_lock);
		stats->rs_pool_pinned = c->cn_dev->dv_pinned;
		stats->rs_pool_pinned_peak = c->cn_dev->dv_pinned_peak;
		pthread_mutex_unlock(&c->cn_dev->dv_lock);
		svc_rdma_conn_grant_stats(c, stats, 1);
		return rpcrdma_stats_export(prog, stats) ? -1 : 0;
	}
	if (xprt->xp_ops != &listener_ops)
		return -1;
	l = to_lst(xprt);
	pthread_mutex_lock(&l->ln_lock);
	*stats = l->ln_closed;
	stats->rs_ring_pinned = 0;	/* a closed connection's are freed */
	conns_add(stats, l->ln_conns);
	conns_add(stats, l->ln_closing);
	svc_rdma_devs_pinned(l, &stats->rs_pool_pinned,
			     &stats->rs_pool_pinned_peak);
	/* Gauges, not sums: the queues' now, the live connections' grants. */
	svc_rdma_devs_srq_stats(l, stats);
	for (c = l->ln_conns; c; c = c->cn_next)
		svc_rdma_conn_grant_stats(c, stats, c == l->ln_conns);
	pthread_mutex_unlock(&l->ln_lock);
	return rpcrdma_stats_export(prog, stats) ? -1 : 0;
}

/*
 * The options in force: a connection's, after its device's section; a
 * listener's, from its creation (no device).
 */
int svc_rdma_get_options(SVCXPRT *xprt, struct rpcrdma_options *opts)
{
	const struct rpcrdma_options *in_force;

	if (!xprt || !opts)
		return -1;
	if (xprt->xp_ops == &conn_ops)
		in_force = &to_conn(xprt)->cn_x.rx_opts;
	else if (xprt->xp_ops == &listener_ops)
		in_force = &to_lst(xprt)->ln_opts;
	else
		return -1;
	/* Only as far as the program's ro_size (rpcrdma(7), ABI). */
	if (rpcrdma_options_export(opts, in_force)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/*
 * Change live keys: on one connection, or on a listener, for it, every
 * connection it has and every one it accepts later (the handle layer).
 */
int svc_rdma_set_options(SVCXPRT *xprt, const struct rpcrdma_options *opts)
{
	struct svc_rdma_listener *l;
	struct svc_rdma_conn *c;
	char err[256];
	int rc = 0;

	if (!xprt || !opts)
		return -1;
	if (xprt->xp_ops == &conn_ops)
		return rpcrdma_xprt_set_options(&to_conn(xprt)->cn_x, opts) ? -1 : 0;
	if (xprt->xp_ops != &listener_ops)
		return -1;
	l = to_lst(xprt);
	pthread_mutex_lock(&l->ln_lock);
	if (rpcrdma_optsrc_update(&l->ln_src, opts, err, sizeof(err))) {
		pthread_mutex_unlock(&l->ln_lock);
		if (l->ln_opts.ro_log_level >= RPCRDMA_LOG_ERROR)
			fprintf(stderr, "rpcrdma: options not changed: %s\n", err);
		return -1;
	}
	rpcrdma_options_update(&l->ln_opts, opts, RPCRDMA_CS_SERVER, err, sizeof(err));
	for (c = l->ln_conns; c; c = c->cn_next)
		rc |= rpcrdma_xprt_set_options(&c->cn_x, opts);
	pthread_mutex_unlock(&l->ln_lock);
	return rc ? -1 : 0;
}

/*
 * The descriptors a private event loop must watch for this listener: its
 * own and one per connection.  Returns how many there are (which may be
 * more than max: only max are filled), or -1 if xprt is not a listener.
 */
int svc_rdma_pollfds(SVCXPRT *xprt, struct pollfd *fds, int max)
{
	struct svc_rdma_listener *l = lst_of(xprt);
	struct svc_rdma_conn *c;
	int n = 0;

	if (!l || max < 0 || (max && !fds))
		return -1;
	pthread_mutex_lock(&l->ln_lock);
	/* A refused CM channel (svc_rdma_lst_events) is left out: -1. */
	if (n < max)
		fds[n] = (struct pollfd){ .fd = l->ln_cm_refused &&
					  !l->ln_threads.th_nthreads ? -1 : xprt->xp_fd,
					  .events = POLLIN };
	n++;
	/* idle_timeout_ms: the timer that closes idle connections. */
	if (l->ln_idle_xprt.xp_fd >= 0) {
		if (n < max)
			fds[n] = (struct pollfd){ .fd = l->ln_idle_xprt.xp_fd,
						  .events = POLLIN };
		n++;
	}
	/* The kick: turns of connections that yielded. */
	if (l->ln_kick_xprt.xp_fd >= 0) {
		if (n < max)
			fds[n] = (struct pollfd){ .fd = l->ln_kick_xprt.xp_fd,
						  .events = POLLIN };
		n++;
	}
	/* Threaded: the service threads watch the connections themselves. */
	for (c = l->ln_threads.th_nthreads ? NULL : l->ln_conns; c;
	     c = c->cn_next, n++)
		if (n < max)
			fds[n] = (struct pollfd){ .fd = c->cn_xprt.xp_fd,
						  .events = POLLIN };
	pthread_mutex_unlock(&l->ln_lock);
	return n;
}

/*
 * One turn of a private service loop, for programs that run their own
 * thread instead of svc_run(): wait up to timeout_ms for the listener or
 * any of its connections, then serve everything ready through libtirpc's
 * dispatcher (svc_getreq_common), which also reaps dead connections.
 */
int svc_rdma_serve(SVCXPRT *xprt, int timeout_ms)
{
	struct pollfd *fds;
	int n, got, i, served = 0;

	n = svc_rdma_pollfds(xprt, NULL, 0);
	if (n < 0) {
		errno = EINVAL;
		return -1;
	}
	/* Threaded: the service threads serve; this loop only waits. */
	if (lst_of(xprt)->ln_threads.th_nthreads) {
		if (poll(NULL, 0, timeout_ms) < 0 && errno != EINTR)
			return -1;
		return 0;
	}
	fds = calloc((size_t)n, sizeof(*fds));
	if (!fds) {
		errno = ENOMEM;
		return -1;
	}
	n = svc_rdma_pollfds(xprt, fds, n);
	got = poll(fds, (nfds_t)n, timeout_ms);
	for (i = 0; got > 0 && i < n; i++) {
		if (!fds[i].revents)
			continue;
		svc_getreq_common(fds[i].fd);
		served++;
	}
	free(fds);
	if (got < 0)
		return errno == EINTR ? 0 : -1;
	return served;
}

/* ---- the program's regions (svc_rdma_pool_add(3), svc_mem.c) ------------- */

struct ibv_pd *svc_rdma_get_pd(SVCXPRT *xprt, struct ibv_context *verbs)
{
	return svc_rdma_mem_get_pd(lst_of(xprt), verbs);
}

int svc_rdma_pool_add(SVCXPRT *xprt, struct ibv_mr *mr)
{
	return svc_rdma_mem_add(lst_of(xprt), mr);
}

/*
 * svc_sendreply(), but the service thread never waits for the Reply's
 * Send: done(arg, status) runs once the transport holds no reference to
 * res, so done is where res may be freed.  That is at once for a Reply
 * copied into a send buffer (inline, pull-up) and for any Reply that
 * could not be sent; for one gathered from res (mapped) it is when its
 * Send completes, from whichever thread reaps that completion, or when the
 * connection is torn down.  done runs exactly once, perhaps before this
 * returns, and must not call into this transport.  status is 0 when the
 * Reply was posted (for a torn-down connection: ECONNRESET, the Reply may
 * not have arrived), else the errno that kept it from being sent.  On any
 * other SVCXPRT this is svc_sendreply() followed by done.
 */
bool_t svc_rdma_sendreply_async(SVCXPRT *xprt, xdrproc_t xres, void *res,
				void (*done)(void *arg, int status), void *arg)
{
	struct svc_rdma_conn *c = conn_of(xprt);
	struct svc_rdma_call *ct = c ? svc_rdma_conn_call(c) : NULL;
	bool_t ok;

	if (!ct || !done) {
		ok = svc_sendreply(xprt, xres, res);
		if (done)
			done(arg, ok ? 0 : (c ? EPERM : EIO));
		return ok;
	}
	ct->ct_rel.rl_fn = done;
	ct->ct_rel.rl_arg = arg;
	ct->ct_rel_queued = 0;
	ct->ct_rel_status = EIO;	/* until conn_reply says otherwise */
	ok = svc_sendreply(xprt, xres, res);
	ct->ct_rel.rl_fn = NULL;
	if (!ct->ct_rel_queued)
		done(arg, ct->ct_rel_status);
	return ok;
}
