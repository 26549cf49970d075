/*
 * The RDMA CLIENT: libtirpc's clnt_ops over one RPC-over-RDMA connection,
 * and the only file that knows CLIENT *: creating and destroying one,
 * clnt_control(), and the caller's registrations.  The files below take
 * struct clnt_rdma (clnt_rdma.h).  Many threads may call at once, up to
 * the granted credits (clnt_call.c); a thread waiting for its Reply
 * reaps the CQ itself, one at a time (clnt_wait.c); a progress thread
 * remains only for connection events (clnt_reconnect.c).
 */
#include "config.h"
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "abi.h"
#include "clnt_rdma.h"
#include "fdreg.h"
#include "verbs_thread.h"
#include "rpcb_lookup.h"

static struct clnt_ops cr_ops;

/* The zero-copy buffer for this thread's next call on one CLIENT. */
static __thread struct {
	CLIENT *nb_cl;
	struct rpcrdma_result_buf *nb_rb;
} next_result;

static struct rpcrdma_result_buf *take_result_buf(CLIENT *cl)
{
	struct rpcrdma_result_buf *rb = NULL;

	if (next_result.nb_cl == cl)
		rb = next_result.nb_rb;
	next_result.nb_cl = NULL;
	next_result.nb_rb = NULL;
	return rb;
}

static enum clnt_stat clnt_rdma_call(CLIENT *cl, rpcproc_t proc,
				     xdrproc_t xargs, void *argsp,
				     xdrproc_t xres, void *resp,
				     struct timeval tmo)
{
	struct clnt_rdma *cr = to_cr(cl);
	AUTH *auth = cl->cl_auth;
	enum clnt_stat st;

	if (!cr_auth_serial(auth))
		return cr_call(cr, auth, take_result_buf(cl), proc, xargs,
			       argsp, xres, resp, tmo);
	pthread_mutex_lock(&cr->cr_auth_lock);
	st = cr_call(cr, auth, take_result_buf(cl), proc, xargs, argsp,
		     xres, resp, tmo);
	pthread_mutex_unlock(&cr->cr_auth_lock);
	return st;
}

static void clnt_rdma_abort(CLIENT *cl)
{
	(void)cl;
}

static void clnt_rdma_geterr(CLIENT *cl, struct rpc_err *err)
{
	struct clnt_rdma *cr = to_cr(cl);

	pthread_mutex_lock(&cr->cr_x.rx_lock);
	*err = cr->cr_err;
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
}

static bool_t clnt_rdma_freeres(CLIENT *cl, xdrproc_t xres, void *resp)
{
	XDR xdrs;

	(void)cl;
	xdrs.x_op = XDR_FREE;
	return xres(&xdrs, resp);
}

static bool_t clnt_rdma_control(CLIENT *cl, u_int req, void *info)
{
	struct clnt_rdma *cr = to_cr(cl);

	switch (req) {
	case CLSET_TIMEOUT:
		if (!info)
			return FALSE;
		cr->cr_timeout = *(struct timeval *)info;
		cr->cr_timeout_set = 1;
		return TRUE;
	case CLGET_TIMEOUT:
		if (!info)
			return FALSE;
		*(struct timeval *)info = cr->cr_timeout;
		return TRUE;
	case CLGET_XID:
		*(uint32_t *)info = cr->cr_xid;
		return TRUE;
	case CLSET_XID:
		cr->cr_xid = *(uint32_t *)info - 1;
		return TRUE;
	case CLGET_PROG:
		*(uint32_t *)info = (uint32_t)cr->cr_prog;
		return TRUE;
	case CLSET_PROG:
		cr->cr_prog = *(uint32_t *)info;
		return TRUE;
	case CLGET_VERS:
		*(uint32_t *)info = (uint32_t)cr->cr_vers;
		return TRUE;
	case CLSET_VERS:
		cr->cr_vers = *(uint32_t *)info;
		return TRUE;
	case CLGET_FD:
		*(int *)info = cr->cr_x.rx_ep.re_comp_ch->fd;
		return TRUE;
	case RPCRDMA_CLSET_REPLY_HINT: {
		const struct rpcrdma_reply_hint *rh = info;

		if (!rh || rpcrdma_reply_hint_check(rh) ||
		    rh->rh_proc >= RPCRDMA_MAX_HINTS)
			return FALSE;
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		cr->cr_hints[rh->rh_proc] = rh->rh_max_reply;
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return TRUE;
	}
	case RPCRDMA_CLGET_STATS: {
		/* Only as far as the program's rs_size (rpcrdma(7), ABI). */
		struct rpcrdma_stats st;

		if (!info)
			return FALSE;
		pthread_mutex_lock(&cr->cr_x.rx_lock);
		st = cr->cr_x.rx_stats;
		pthread_mutex_unlock(&cr->cr_x.rx_lock);
		return !rpcrdma_stats_export(info, &st);
	}
	case RPCRDMA_CLGET_OPTIONS:
		return info && !rpcrdma_options_export(info, &cr->cr_x.rx_opts);
	case RPCRDMA_CLSET_OPTIONS:
		return info && !rpcrdma_xprt_set_options(&cr->cr_x, info);
	default:
		return FALSE;
	}
}

int clnt_rdma_set_result_buf(CLIENT *cl, struct rpcrdma_result_buf *rb)
{
	if (!cl || cl->cl_ops != &cr_ops ||
	    (rb && (rpcrdma_result_buf_check(rb) || !rb->rb_addr ||
		    !rb->rb_len || rb->rb_len > UINT32_MAX))) {
		errno = EINVAL;
		return -1;
	}
	if (rb)
		rb->rb_written = 0;
	next_result.nb_cl = rb ? cl : NULL;
	next_result.nb_rb = rb;
	return 0;
}

/*
 * The handle goes; its cl_auth is the program's, as with libtirpc's
 * clients (clnt_vc_destroy never touches it): programs do
 * auth_destroy(cl->cl_auth) and then clnt_destroy(cl), and an RPCSEC_GSS
 * auth's destroy calls on the handle, which must still serve.  Ours
 * would be AUTH_NONE's, which is libtirpc's one static.
 */
static void clnt_rdma_destroy(CLIENT *cl)
{
	struct clnt_rdma *cr = to_cr(cl);
	uint64_t one = 1;

	if (cr->cr_thread_started) {
		if (write(cr->cr_stopfd, &one, sizeof(one)) != sizeof(one))
			abort();	/* an eventfd write cannot fail here */
		pthread_join(cr->cr_thread, NULL);
	}
	rpcrdma_fdreg_del(cr->cr_x.rx_ep.re_comp_ch->fd);
	rpcrdma_ep_disconnect(&cr->cr_x.rx_ep);
	/* Asynchronous calls still in flight end, each callback once. */
	cr_async_destroy(cr);
	cr_free(cr);
}

CLIENT *clnt_rdma_create(const char *host, const char *port, rpcprog_t prog,
			 rpcvers_t vers, const struct rpcrdma_options *opts)
{
	struct clnt_rdma *cr;
	char portbuf[8];
	int rc;

	memset(&rpc_createerr, 0, sizeof(rpc_createerr));
	if (!host) {
		rpc_createerr.cf_stat = RPC_UNKNOWNADDR;
		rpc_createerr.cf_error.re_errno = EINVAL;
		return NULL;
	}
	cr = calloc(1, sizeof(*cr));
	if (!cr)
		goto out_nomem;
	cr->cr_stopfd = -1;
	cr->cr_kickfd = -1;
	cr->cr_creditfd = -1;
	cr->cr_async.ac_evfd = cr->cr_async.ac_timerfd = -1;
	cr->cr_async.ac_epfd = -1;
	cr->cr_async.ac_ready_tail = &cr->cr_async.ac_ready;
	cr->cr_async.ac_wait_tail = &cr->cr_async.ac_wait_head;
	rc = rpcrdma_xprt_init(&cr->cr_x, opts);
	if (rc) {
		free(cr);
		if (rc != -EINVAL)
			goto out_nomem;
		/* Bad options, a file or a variable: rpcrdma.conf(5). */
		rpc_createerr.cf_stat = RPC_SYSTEMERROR;
		rpc_createerr.cf_error.re_errno = EINVAL;
		return NULL;
	}
	if (!port) {
		/* rpcbind on host, else the port key (rpcb_lookup.c). */
		rpcrdma_rpcb_port(host, prog, vers, &cr->cr_x.rx_opts, portbuf,
				  sizeof(portbuf));
		port = portbuf;
	}
	if (cr_setup(cr, host, port))
		goto out_free_nomem;
	cr->cr_prog = prog;
	cr->cr_vers = vers;
	cr->cr_clnt.cl_ops = &cr_ops;
	cr->cr_clnt.cl_netid = "rdma";
	cr->cr_clnt.cl_tp = "rdma";
	cr->cr_clnt.cl_auth = authnone_create();
	if (!cr->cr_clnt.cl_auth)
		goto out_free_nomem;

	rc = cr_connect_first(cr);
	RPCRDMA_DBG("client: connect %s:%s: %d, inline granted %u", host, port,
		    rc, cr->cr_x.rx_ep.re_inline_granted);
	if (rc) {
		rpc_createerr.cf_stat = rc == -EHOSTUNREACH || rc == -ENODEV ||
					rc == -EADDRNOTAVAIL ?
					RPC_UNKNOWNHOST : RPC_SYSTEMERROR;
		rpc_createerr.cf_error.re_errno = -rc;
		cr_free(cr);
		return NULL;
	}
	/* CLGET_FD's descriptor, for rpcrdma_fd_sockinfo(3): the channel
	 * outlives reconnections (the addresses are the first connection's). */
	if (rpcrdma_fdreg_add(cr->cr_x.rx_ep.re_comp_ch->fd, RPCRDMA_SI_CLIENT,
			      rpcrdma_id_local_addr(cr->cr_x.rx_ep.re_id),
			      rpcrdma_id_peer_addr(cr->cr_x.rx_ep.re_id)))
		RPCRDMA_DBG("client: descriptor not registered");
	cr->cr_vt_marked = rpcrdma_vt_marked;
	if (pthread_create(&cr->cr_thread, NULL, cr_progress, cr)) {
		rpcrdma_fdreg_del(cr->cr_x.rx_ep.re_comp_ch->fd);
		rpcrdma_ep_disconnect(&cr->cr_x.rx_ep);
		goto out_free_nomem;
	}
	cr->cr_thread_started = 1;
	return &cr->cr_clnt;

out_free_nomem:
	cr_free(cr);
out_nomem:
	rpc_createerr.cf_stat = RPC_SYSTEMERROR;
	rpc_createerr.cf_error.re_errno = ENOMEM;
	return NULL;
}


struct rpcrdma_mr *clnt_rdma_reg_mem(CLIENT *cl, void *addr, size_t len)
{
	struct clnt_rdma *cr;
	struct rpcrdma_mr *mr;

	if (!cl || cl->cl_ops != &cr_ops) {
		errno = EINVAL;
		return NULL;
	}
	cr = to_cr(cl);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	mr = rpcrdma_mr_add_user(&cr->cr_x.rx_mrs, &cr->cr_x.rx_ep, addr, len);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	if (!mr && !errno)
		errno = EINVAL;
	return mr;
}

int clnt_rdma_dereg_mem(CLIENT *cl, struct rpcrdma_mr *mr)
{
	struct clnt_rdma *cr;
	int rc;

	if (!cl || cl->cl_ops != &cr_ops) {
		errno = EINVAL;
		return -1;
	}
	cr = to_cr(cl);
	pthread_mutex_lock(&cr->cr_x.rx_lock);
	rc = rpcrdma_mr_remove_user(&cr->cr_x.rx_mrs, mr);
	pthread_mutex_unlock(&cr->cr_x.rx_lock);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return 0;
}

/* ---- asynchronous calls (clnt_async.c) ----------------------------------- */

static bool is_rdma(CLIENT *cl)
{
	if (cl && cl->cl_ops == &cr_ops)
		return true;
	errno = EINVAL;
	return false;
}

int clnt_rdma_call_async(CLIENT *cl, rpcproc_t proc, xdrproc_t xargs,
			 void *args, xdrproc_t xres, void *res,
			 struct timeval timeout,
			 void (*done)(CLIENT *cl, enum clnt_stat st, void *arg),
			 void *arg)
{
	struct cr_async_args aa = {
		.aa_proc = proc, .aa_xargs = xargs, .aa_args = args,
		.aa_xres = xres, .aa_res = res, .aa_tmo = timeout,
		.aa_done = done, .aa_cl = cl, .aa_arg = arg,
	};
	int rc;

	if (!is_rdma(cl))
		return -1;
	if (!xargs || !xres || !done || timeout.tv_sec < 0 ||
	    timeout.tv_usec < 0 || timeout.tv_usec >= 1000000) {
		errno = EINVAL;
		return -1;
	}
	/* Its Reply is checked on another thread, while other calls may
	 * marshal: RPCSEC_GSS's one sequence number cannot have that. */
	if (cr_auth_serial(cl->cl_auth)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	rc = cr_async_start(to_cr(cl), cl->cl_auth, &aa);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return 0;
}

int clnt_rdma_progress(CLIENT *cl, int timeout_ms)
{
	if (!is_rdma(cl))
		return -1;
	return cr_async_progress(to_cr(cl), timeout_ms);
}

int clnt_rdma_progress_fd(CLIENT *cl)
{
	int rc;

	if (!is_rdma(cl))
		return -1;
	rc = cr_async_fd(to_cr(cl));
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return rc;
}

int clnt_rdma_progress_thread(CLIENT *cl)
{
	int rc;

	if (!is_rdma(cl))
		return -1;
	rc = cr_async_thread(to_cr(cl));
	if (rc) {
		errno = -rc;
		return -1;
	}
	return 0;
}

static struct clnt_ops cr_ops = {
	.cl_call = clnt_rdma_call,
	.cl_abort = clnt_rdma_abort,
	.cl_geterr = clnt_rdma_geterr,
	.cl_freeres = clnt_rdma_freeres,
	.cl_destroy = clnt_rdma_destroy,
	.cl_control = clnt_rdma_control,
};
