/*
 * Setting up an RDMA CLIENT's state (call slots and their memory), its
 * connection (first, and again for the reconnector), and freeing it all.
 * The CLIENT itself is made and destroyed in clnt_rdma.c.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include "clnt_rdma.h"
#include "probes.h"


/*
 * A call its caller gave up on (RQ_ABANDONED) still holds what the server
 * may use until its Reply comes: its Reply chunk's registration (a per-RPC
 * MR where the device has no windows) and Read chunks over the slot's
 * scratch or spill buffer.  Revoked here, before that memory is freed and
 * so that the PD can be deallocated; nothing may post any more (the
 * progress thread is gone, the QP about to go).
 */
static void release_abandoned(struct clnt_rdma *cr)
{
	uint32_t i;

	unsigned int n;

	for (i = 0; i < cr->cr_nslots; i++) {
		n = rpcrdma_clnt_release(&cr->cr_x, &cr->cr_reqs[i].rq_ch,
					 0, false);
		cr_count_deregs(cr, n);
	}
}

void cr_free(struct clnt_rdma *cr)
{
	uint32_t i, log_level = cr->cr_x.rx_opts.ro_log_level;
	int rc;

	RPCRDMA_PROBE2(disconnect, &cr->cr_x, 0);
	if (cr->cr_reqs) {
		release_abandoned(cr);
		for (i = 0; i < cr->cr_nslots; i++) {
			rpcrdma_wake_fini(&cr->cr_reqs[i].rq_wake);
			rpcrdma_clnt_mw_fini(&cr->cr_x, &cr->cr_reqs[i].rq_ch);
			free(cr->cr_reqs[i].rq_spill);
		}
		free(cr->cr_reqs);
	}
	free(cr->cr_scratch_mem);
	free(cr->cr_reply_mem);
	free(cr->cr_host);
	free(cr->cr_port);
	if (cr->cr_stopfd >= 0)
		close(cr->cr_stopfd);
	if (cr->cr_kickfd >= 0)
		close(cr->cr_kickfd);
	if (cr->cr_creditfd >= 0)
		close(cr->cr_creditfd);
	pthread_cond_destroy(&cr->cr_credit_cond);
	pthread_cond_destroy(&cr->cr_conn_cond);
	pthread_mutex_destroy(&cr->cr_auth_lock);
	/* A PD still in use means registrations leaked (memory pinned for
	 * the process's life): said at the warning level, so tests see it. */
	rc = rpcrdma_xprt_fini(&cr->cr_x);
	if (rc && log_level >= RPCRDMA_LOG_WARNING)
		fprintf(stderr, "rpcrdma: client handle destroyed, but its "
			"protection domain is still in use: %s\n", strerror(-rc));
	free(cr);
}

/*
 * Where a handle's xids start: at random.  Why: a server's duplicate
 * request cache knows a retransmission by its xid, procedure, arguments
 * and the peer's address without the port (a retransmission comes on a
 * new connection), so two handles on one host whose xids walk in step
 * (getpid() ^ time() gives processes started together nearly the same
 * start, and the slot bits hide the difference) would have one's Calls
 * taken for the other's retransmissions and dropped.
 */
static uint32_t initial_xid(void)
{
	struct timespec ts;
	uint32_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t)sizeof(v))
		return v;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)getpid() * 2654435761u ^ (uint32_t)ts.tv_nsec ^
	       (uint32_t)time(NULL);
}

/*
 * Resolve the server and connect.  The first time the endpoint is set up
 * whole and the receives posted; a reconnection (cr_connect_ep) keeps
 * the endpoint's PD, CQ and buffers, makes a new QP, and leaves the
 * receives to the reconnector, which knows which ones callers hold.
 */
static int cr_connect(struct clnt_rdma *cr, bool first)
{
	struct rpcrdma_xprt *x = &cr->cr_x;
	int tmo = (int)x->rx_opts.ro_connect_timeout_ms;
	uint8_t pdata[RPCRDMA_CM_PRIVATE_LEN], peer[256];
	uint8_t peer_len = 0;
	uint32_t i;
	int rc;

	rc = rpcrdma_ep_resolve(&x->rx_ep, cr->cr_host, cr->cr_port,
				x->rx_opts.ro_source, tmo);
	RPCRDMA_DBG("client: resolve %s:%s from %s: %d", cr->cr_host,
		    cr->cr_port, x->rx_opts.ro_source ? x->rx_opts.ro_source : "any",
		    rc);
	if (rc)
		return rc;
	if (!first) {
		rc = rpcrdma_ep_renew_qp(&x->rx_ep);
		if (rc)
			return rc;
		goto connect;
	}
	/* Up to one receive per credit, plus one for a stray or error
	 * Reply, the first RPCRDMA_RECV_CHUNK registered now and the others
	 * as calls in flight need them (cr_recv_need); send queue room for
	 * a window bind and invalidation per slot. */
	x->rx_extra_wr = 2 * cr->cr_nslots;
	x->rx_recv_first = RPCRDMA_RECV_CHUNK;
	rc = rpcrdma_xprt_setup_ep(x, x->rx_opts.ro_max_requests + 1);
	RPCRDMA_DBG("client: endpoint setup: %d, inline granted %u", rc,
		    x->rx_ep.re_inline_granted);
	if (rc)
		return rc;
	for (i = 0; i < x->rx_ep.re_recv_ready; i++) {
		rc = rpcrdma_xprt_repost(x, &x->rx_ep.re_reps[i]);
		if (rc)
			return rc;
	}
	/*
	 * Reply chunks through memory windows where the device has them.
	 * Why lazily, and only the first reply_windows slots (the ones taken
	 * first): a window keeps its slot's max_reply registered while the
	 * connection lasts, so it is made on the slot's first Reply chunk
	 * (marshal_reply), never for a client that offers none, and at most
	 * reply_windows of them.  The other slots, and every slot where the
	 * device has no windows, register per RPC.
	 */
	if (cr->cr_reply_mem)
		for (i = 0; i < cr->cr_nslots && i < x->rx_opts.ro_reply_windows; i++)
			cr->cr_reqs[i].rq_ch.qc_mw_allowed = true;
connect:
	/* RFC 8797: we never ask for Send With Invalidate.  rxe fails the
	 * connection when a peer invalidates an ibv_reg_mr MR (our per-RPC
	 * registrations), and siw's provider never reports IBV_WC_WITH_INV,
	 * so the client could skip no work.  A Reply that invalidates anyway
	 * is handled (clnt_wait.c). */
	x->rx_remote_inv = false;
	rc = (int)rpcrdma_xprt_private(x, pdata, sizeof(pdata));
	if (rc < 0)
		return rc;
	rc = rpcrdma_ep_connect(&x->rx_ep, pdata, (uint8_t)rc, tmo, peer,
				&peer_len);
	if (rc)
		return rc;
	rpcrdma_xprt_negotiate(x, peer, peer_len);
	return 0;
}

int cr_connect_first(struct clnt_rdma *cr)
{
	int rc = cr_connect(cr, true);

	RPCRDMA_PROBE2(connect, &cr->cr_x, rc);
	return rc;
}

int cr_connect_ep(struct clnt_rdma *cr)
{
	return cr_connect(cr, false);
}

/* Recursive: libtirpc's RPCSEC_GSS refresh calls on the handle whose call
 * it refreshes, from inside that call. */
static void cr_auth_lock_init(struct clnt_rdma *cr)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&cr->cr_auth_lock, &a);
	pthread_mutexattr_destroy(&a);
}

/*
 * A new handle's slots and their memory, its progress thread's eventfds
 * and the rest of its initial state; cr_x is set up already.  0, or
 * -ENOMEM (cr_free() then undoes what was done).
 */
int cr_setup(struct clnt_rdma *cr, const char *host, const char *port)
{
	uint32_t i, reply_cap = 0;

	rpcrdma_cond_init(&cr->cr_credit_cond);
	cr_auth_lock_init(cr);
	cr->cr_credit_qtail = &cr->cr_credit_q;
	rpcrdma_cond_init(&cr->cr_conn_cond);
	for (cr->cr_nslots = 1; cr->cr_nslots < cr->cr_x.rx_opts.ro_max_requests;)
		cr->cr_nslots <<= 1;
	cr->cr_reqs = calloc(cr->cr_nslots, sizeof(*cr->cr_reqs));
	if (!cr->cr_reqs)
		return -ENOMEM;
	cr->cr_scratch_mem = malloc((size_t)cr->cr_nslots *
				    cr->cr_x.rx_opts.ro_inline_send);
	if (!cr->cr_scratch_mem)
		return -ENOMEM;
	/* Reply chunk targets: address space only, pinned per RPC. */
	if (cr->cr_x.rx_opts.ro_max_reply &&
	    cr->cr_x.rx_opts.ro_reply_chunks != RPCRDMA_REPLY_CHUNK_NEVER) {
		reply_cap = (cr->cr_x.rx_opts.ro_max_reply + 4095) & ~4095u;
		if (posix_memalign((void **)&cr->cr_reply_mem, 4096,
				   (size_t)cr->cr_nslots * reply_cap))
			return -ENOMEM;
	}
	cr->cr_x.rx_reap = cr_reap_wait;
	cr->cr_x.rx_reap_arg = cr;
	for (i = 0; i < cr->cr_nslots; i++) {
		if (rpcrdma_wake_init(&cr->cr_reqs[i].rq_wake))
			return -ENOMEM;
		cr->cr_reqs[i].rq_scratch = cr->cr_scratch_mem +
					    (size_t)i * cr->cr_x.rx_opts.ro_inline_send;
		if (cr->cr_reply_mem) {
			cr->cr_reqs[i].rq_ch.qc_reply_buf = cr->cr_reply_mem +
							    (size_t)i * reply_cap;
			cr->cr_reqs[i].rq_ch.qc_reply_cap = reply_cap;
		}
	}
	cr->cr_stopfd = eventfd(0, EFD_CLOEXEC);
	cr->cr_kickfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	cr->cr_creditfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	cr->cr_host = strdup(host);
	cr->cr_port = strdup(port);
	if (cr->cr_stopfd < 0 || cr->cr_kickfd < 0 || cr->cr_creditfd < 0 ||
	    !cr->cr_host || !cr->cr_port)
		return -ENOMEM;
	cr->cr_credits = 1;	/* one call until the first grant */
	cr->cr_xid = initial_xid();
	cr->cr_timeout.tv_sec = 25;
	if (cr->cr_x.rx_opts.ro_call_timeout_ms) {
		/* Configured: as if clnt_control(CLSET_TIMEOUT) had set it. */
		cr->cr_timeout.tv_sec = cr->cr_x.rx_opts.ro_call_timeout_ms / 1000;
		cr->cr_timeout.tv_usec = cr->cr_x.rx_opts.ro_call_timeout_ms % 1000 * 1000;
		cr->cr_timeout_set = 1;
	}
	return 0;
}
