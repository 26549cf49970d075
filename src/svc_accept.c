/*
 * The listener's side of a connection's life: a CONNECT_REQUEST admitted
 * (max_connections, then max_conn_memory once its rings exist) or refused
 * and counted; the connection set up, accepted, handed to svc_run() or
 * the service threads; CM events of connections gone.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "poller.h"
#include "svc_int.h"
#include "probes.h"

static void conn_free_early(struct svc_rdma_listener *l,
			    struct svc_rdma_conn *c)
{
	svc_rdma_bufs_free(c);
	rpcrdma_xprt_fini(&c->cn_x);
	svc_rdma_conn_srq_leave(c);
	if (c->cn_dev)
		svc_rdma_dev_put(l, c->cn_dev);
	pthread_mutex_destroy(&c->cn_lock);
	free(c->cn_queue);
	free(c->cn_scratch);
	free(c->cn_rw);
	free(c);
}

/* Below max_connections, counting every connection held, dead or not. */
static int lst_has_room(struct svc_rdma_listener *l)
{
	struct svc_rdma_conn *c;
	uint32_t held = 0;
	int room;

	pthread_mutex_lock(&l->ln_lock);
	for (c = l->ln_conns; c; c = c->cn_next)
		held++;
	room = svc_rdma_may_accept(held, l->ln_opts.ro_max_connections);
	pthread_mutex_unlock(&l->ln_lock);
	if (!room)
		RPCRDMA_DBG("listener: max_connections %u reached, refused",
			    l->ln_opts.ro_max_connections);
	return room;
}

/* Reject a request before anything is allocated for it, counted. */
static struct rdma_cm_id *lst_refuse(struct svc_rdma_listener *l,
				     struct rdma_cm_event *ev)
{
	ev->id->context = NULL;
	rpcrdma_cm_reject(ev->id);
	pthread_mutex_lock(&l->ln_lock);
	l->ln_closed.rs_conns_refused++;
	pthread_mutex_unlock(&l->ln_lock);
	return ev->id;
}

/*
 * max_conn_memory, as this connection's device resolved it: the rings
 * just set up count first (on a shared receive queue, the receives its
 * grant may hold); a limit they alone exceed refuses it.
 */
static int conn_mem_init(struct svc_rdma_conn *c)
{
	struct rpcrdma_xprt *x = &c->cn_x;
	struct svc_rdma_mem *m = &c->cn_mem;

	m->sm_limit = x->rx_opts.ro_max_conn_memory;
	/* On a shared queue, the receives it may hold at once: one per
	 * credit at most, of its class's size. */
	m->sm_rings = svc_rdma_ring_bytes(c->cn_srq ? x->rx_opts.ro_max_requests :
					  x->rx_ep.re_nrecv,
					  c->cn_srq ? x->rx_srq_size :
					  x->rx_opts.ro_inline_recv,
					  x->rx_ep.re_nsend,
					  x->rx_ep.re_send_size,
					  (uint64_t)x->rx_opts.ro_inline_send *
					  c->cn_nslots);
	if (svc_rdma_mem_rings_fit(m))
		return 1;
	RPCRDMA_DBG("accept: rings of %llu bytes over max_conn_memory %llu",
		    (unsigned long long)m->sm_rings,
		    (unsigned long long)m->sm_limit);
	errno = ENOBUFS;
	return 0;
}

/*
 * Its receives from the device's shared queue of its client's size class
 * (svc_srq.h), its floor's credit taken: 0, or -ENOSPC (no class has room:
 * refused).  A device without SRQs (said once), or recv_buffers 0: a ring
 * of its own, as before, and 0.
 */
static int conn_srq_join(struct svc_rdma_listener *l, struct svc_rdma_conn *c)
{
	struct rpcrdma_xprt *x = &c->cn_x;
	struct svc_rdma_dev *d = c->cn_dev;
	uint32_t size = x->rx_opts.ro_inline_recv;
	int rc, warn = 0;

	/* ln_lock orders the queues' making: before sq_grow_lock, sq_lock. */
	pthread_mutex_lock(&l->ln_lock);
	rc = svc_rdma_srq_attach(&d->dv_srqs, d->dv_verbs, d->dv_pd,
				 x->rx_opts.ro_recv_buffers, l->ln_opts.ro_inline_recv,
				 x->rx_opts.ro_max_requests, &size, &c->cn_srq,
				 &c->cn_grant);
	if (rc == -EOPNOTSUPP && x->rx_opts.ro_recv_buffers) {
		warn = !d->dv_srq_warned;
		d->dv_srq_warned = 1;
	}
	pthread_mutex_unlock(&l->ln_lock);
	if (rc == -EOPNOTSUPP) {
		if (!x->rx_opts.ro_recv_buffers)
			return 0;
		x->rx_stats.rs_srq_fallbacks++;
		if (warn && x->rx_opts.ro_log_level >= RPCRDMA_LOG_WARNING)
			fprintf(stderr, "rpcrdma: warning: device %s has no shared "
				"receive queues: each connection gets a receive "
				"ring of its own (rpcrdma(7), SIZING)\n",
				rpcrdma_ep_device_name(&x->rx_ep) ?
				rpcrdma_ep_device_name(&x->rx_ep) : "?");
		return 0;
	}
	if (rc) {
		RPCRDMA_DBG("accept: no shared receive buffer class has room");
		return rc;
	}
	if (size < x->rx_opts.ro_inline_recv) {
		x->rx_stats.rs_recv_downgrades++;
		RPCRDMA_DBG("accept: receive size %u, not %u: its class is full",
			    size, x->rx_opts.ro_inline_recv);
	}
	x->rx_srq = c->cn_srq->sq_ibv;
	x->rx_srq_size = size;
	return 0;
}

/*
 * A CONNECT_REQUEST: set the connection up, post receives, accept.  On
 * failure the request is rejected and its id returned, to be destroyed
 * once the event is acked (rdma_destroy_id waits for that).
 */
static struct rdma_cm_id *lst_accept(struct svc_rdma_listener *l, struct rdma_cm_event *ev)
{
	struct svc_rdma_conn *c = calloc(1, sizeof(*c));
	uint8_t pdata[RPCRDMA_CM_PRIVATE_LEN];
	uint32_t i, slots = l->ln_threads.th_nthreads ? l->ln_threads.th_nthreads : 1;
	uint32_t init_max, resp_max;
	struct rpcrdma_xprt *x;
	const char *why;
	int fd = -1;
	ssize_t n;

	if (!c || rpcrdma_xprt_init_conn(&c->cn_x, &l->ln_src)) {
		free(c);
		goto out_reject;
	}
	pthread_mutex_init(&c->cn_lock, NULL);
	pthread_mutex_init(&c->cn_gss_lock, NULL);
	/* A peer within its grant has at most max_requests Replies out. */
	svc_rdma_park_init(&c->cn_park, c->cn_x.rx_opts.ro_max_requests);
	c->cn_lst = l;
	x = &c->cn_x;
	x->rx_ep.re_id = ev->id;
	x->rx_ep.re_cm_ch = l->ln_ch;
	x->rx_ep.re_cm_shared = 1;
	x->rx_reap = svc_rdma_conn_reap_wait;
	x->rx_reap_arg = c;
	ev->id->context = c;
	rpcrdma_xprt_negotiate(x, ev->param.conn.private_data,
			       ev->param.conn.private_data ?
			       ev->param.conn.private_data_len : 0);
	c->cn_qcap = x->rx_opts.ro_max_requests;
	c->cn_queue = calloc(c->cn_qcap, sizeof(*c->cn_queue));
	/* One Reply scratch slice per thread that may reply at once. */
	c->cn_nslots = slots;
	c->cn_scratch = malloc((size_t)x->rx_opts.ro_inline_send * slots);
	c->cn_rw = calloc(slots, sizeof(*c->cn_rw));
	/* Its device's entry: the PD every connection there shares. */
	c->cn_dev = svc_rdma_dev_get(l, rpcrdma_id_verbs(ev->id));
	if (c->cn_dev) {
		x->rx_ep.re_pd = c->cn_dev->dv_pd;
		x->rx_ep.re_pd_shared = 1;
	}
	/* Room for one chain of RDMA Reads or Writes per slot, and as many
	 * Reads outstanding as the client offered to serve. */
	x->rx_nrw = 16 * slots;
	rpcrdma_dev_rd_limits(&x->rx_ep, &init_max, &resp_max);
	svc_rdma_read_depths(ev->param.conn.initiator_depth,
			     ev->param.conn.responder_resources, init_max,
			     resp_max, &x->rx_ep.re_rd_depth, &x->rx_ep.re_rd_resp);
	RPCRDMA_DBG("accept: the peer serves %u RDMA Reads, issues %u; we "
		    "issue up to %u, serve %u", ev->param.conn.initiator_depth,
		    ev->param.conn.responder_resources, x->rx_ep.re_rd_depth,
		    x->rx_ep.re_rd_resp);
	if (l->ln_threads.th_nthreads)
		fd = svc_rdma_fdpool_get(&l->ln_fdpool);
	why = "out of memory or descriptors";
	if (!c->cn_queue || !c->cn_scratch || !c->cn_rw || !c->cn_dev ||
	    (l->ln_threads.th_nthreads && fd < 0))
		goto out_free;
	why = "no shared receive buffers";
	if (conn_srq_join(l, c))
		goto out_free;
	why = "endpoint setup";
	if (rpcrdma_xprt_setup_ep(x, c->cn_srq ? 0 : x->rx_opts.ro_max_requests))
		goto out_free;
	why = "over max_conn_memory";
	if (!conn_mem_init(c)) {
		pthread_mutex_lock(&l->ln_lock);
		l->ln_closed.rs_conn_mem_limit++;
		pthread_mutex_unlock(&l->ln_lock);
		goto out_free;
	}
	why = "receive post";
	for (i = 0; i < x->rx_ep.re_nrecv; i++)
		if (rpcrdma_xprt_repost(x, &x->rx_ep.re_reps[i]))
			goto out_free;
	why = "rdma_accept";
	n = rpcrdma_xprt_private(x, pdata, sizeof(pdata));
	if (n < 0 || rpcrdma_ep_accept(&x->rx_ep, pdata, (uint8_t)n))
		goto out_free;

	c->cn_lst = l;
	c->cn_threaded = l->ln_threads.th_nthreads > 0;
	/* Threaded: fd, a private eventfd, so svc_run() never wakes for it,
	 * only finds it. */
	c->cn_fd = c->cn_threaded ? fd : c->cn_x.rx_ep.re_comp_ch->fd;
	l->ln_tirpc->to_conn_init(c);
	c->cn_last_call_ns = rpcrdma_poll_now_ns(NULL);
	x->rx_stats.rs_conns_accepted++;
	RPCRDMA_PROBE2(svc_accept, x, x->rx_ep.re_nrecv);
	pthread_mutex_lock(&l->ln_lock);
	c->cn_next = l->ln_conns;
	l->ln_conns = c;
	pthread_mutex_unlock(&l->ln_lock);
	l->ln_tirpc->to_conn_register(c);
	return NULL;

out_free:
	/* Why, not errno: the step that failed logged its own error. */
	RPCRDMA_DBG("accept failed: %s", why);
	if (fd >= 0)
		svc_rdma_fdpool_put(&l->ln_fdpool, fd);
	if (ev->id->qp)
		rpcrdma_cm_destroy_qp(ev->id);
	x->rx_ep.re_id = NULL;
	conn_free_early(l, c);
out_reject:
	return lst_refuse(l, ev);
}

/* Handle every pending CM event: svc_run's lst_recv, or the leader. */
void svc_rdma_lst_events(struct svc_rdma_listener *l)
{
	struct rdma_cm_event *ev;
	int rc;

	while (!(rc = svc_rdma_cm_next(l, &ev))) {
		struct svc_rdma_conn *c = ev->id->context, *gone = NULL;
		struct rdma_cm_id *refused = NULL;

		RPCRDMA_DBG("listener: %s status %d", rpcrdma_cm_event_name(ev),
			    ev->status);
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			/* A peer that stalled us lately first (svc_loop.c). */
			refused = svc_rdma_peer_admit(l, ev->id) && lst_has_room(l) ?
				  lst_accept(l, ev) : lst_refuse(l, ev);
		} else if (svc_rdma_cm_ends_conn(l, ev)) {
			/* Gone: the QP flushes, so svc_run sees XPRT_DIED. */
			pthread_mutex_lock(&c->cn_x.rx_lock);
			if (!c->cn_x.rx_dead)
				c->cn_x.rx_dead = -ECONNRESET;
			if (!c->cn_lost) {
				c->cn_lost = 1;
				c->cn_x.rx_stats.rs_conns_lost++;
			}
			pthread_mutex_unlock(&c->cn_x.rx_lock);
			rpcrdma_cm_disconnect(ev->id);
			gone = c;
		}
		rpcrdma_cm_ack(ev);
		if (refused)
			rpcrdma_cm_destroy_id(refused);
		/*
		 * Without service threads nobody else may ever destroy it: its
		 * CQ fires only if flushes come after it was armed, which a
		 * peer gone early (or siw after a terminate) does not give,
		 * and svc_run() would keep its descriptor and memory for good.
		 * Here, one thread serves everything, so nothing uses it now;
		 * destroyed after the ack (rdma_destroy_id waits for acks).
		 * Service threads: their leader collects dead connections.
		 */
		if (gone && !l->ln_threads.th_nthreads)
			svc_rdma_conn_destroy(gone);
	}
	/*
	 * Not "none pending": the channel stays readable and taking its
	 * events keeps failing (the kernel refuses a process that changed
	 * credentials, rpcrdma_thread_own_creds(3)).  It leaves every poll
	 * set, or the loop would spin on it.
	 */
	if (rc != -EAGAIN && !l->ln_cm_refused) {
		l->ln_cm_refused = 1;
		/* A refusal was logged once already (rpcrdma_vt_refused). */
		if (rc == -EACCES)
			RPCRDMA_DBG("listener: CM events refused: no more "
				    "connections");
		else if (l->ln_opts.ro_log_level >= RPCRDMA_LOG_ERROR)
			fprintf(stderr, "rpcrdma: error: listener: its CM events "
				"cannot be taken (%s): it accepts no more "
				"connections\n", strerror(-rc));
	}
}
