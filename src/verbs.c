/*
 * Verbs plumbing: address resolution, QP/CQ/buffer setup with the inline
 * grant read back, connect/accept with private data, posting and polling,
 * the listener and CM events (memory: verbs_mem.c).  Nothing here decides
 * anything about RPC; it only does what it is told.
 */
#include "config.h"
#include <errno.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "verbs.h"
#include "verbs_thread.h"

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/*
 * Wait for the next CM event on a non-blocking channel and check it is the
 * one expected.  The event's private data is copied out before the ack,
 * because acking frees it.
 */
static int wait_cm_event(struct rdma_event_channel *ch,
			 enum rdma_cm_event_type want, int timeout_ms,
			 uint8_t *pdata, uint8_t *pdata_len)
{
	struct rdma_cm_event *ev;
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	enum rdma_cm_event_type got;
	int status, rc;

	for (;;) {
		if (!rdma_get_cm_event(ch, &ev))
			break;
		if (errno != EAGAIN)
			return -errno;
		rc = poll(&pfd, 1, timeout_ms);
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (rc == 0)
			return -ETIMEDOUT;
	}
	got = ev->event;
	status = ev->status;
	if (got == want && pdata && pdata_len) {
		uint8_t n = ev->param.conn.private_data_len;

		if (!ev->param.conn.private_data)
			n = 0;
		memcpy(pdata, ev->param.conn.private_data, n);
		*pdata_len = n;
	}
	rdma_ack_cm_event(ev);
	if (got == want)
		return 0;
	switch (got) {
	case RDMA_CM_EVENT_REJECTED:
		return -ECONNREFUSED;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		return -EHOSTUNREACH;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		return status < 0 ? status : -ECONNABORTED;
	default:
		return -EPROTO;
	}
}

/* One attempt at address and route resolution on a fresh id. */
static int resolve_once(struct rpcrdma_ep *ep, const struct rdma_addrinfo *ai,
			int timeout_ms)
{
	int rc;

	if (rdma_create_id(ep->re_cm_ch, &ep->re_id, ep, RDMA_PS_TCP))
		return -errno;
	if (rdma_resolve_addr(ep->re_id, ai->ai_src_addr, ai->ai_dst_addr,
			      timeout_ms))
		return -errno;
	rc = wait_cm_event(ep->re_cm_ch, RDMA_CM_EVENT_ADDR_RESOLVED,
			   timeout_ms + 500, NULL, NULL);
	if (rc)
		return rc;
	if (rdma_resolve_route(ep->re_id, timeout_ms))
		return -errno;
	return wait_cm_event(ep->re_cm_ch, RDMA_CM_EVENT_ROUTE_RESOLVED,
			     timeout_ms + 500, NULL, NULL);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * Resolve host:port (and the optional local source address) to a route.
 * Binding the source matters where one machine holds several devices:
 * the address a connection comes from decides which device carries it.
 * A resolution can stall while the neighbour entry is refreshed (seen on
 * rxe), so it is retried with short attempts until the timeout.
 */
static int rpcrdma_ep_resolve_here(struct rpcrdma_ep *ep, const char *host,
		       const char *port, const char *source, int timeout_ms)
{
	struct rdma_addrinfo hints, *res, *src = NULL;
	long deadline = now_ms() + timeout_ms, left;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (source) {
		hints.ai_flags = RAI_PASSIVE;
		if (rdma_getaddrinfo(source, NULL, &hints, &src))
			return errno ? -errno : -EADDRNOTAVAIL;
		hints.ai_flags = 0;
		hints.ai_src_addr = src->ai_src_addr;
		hints.ai_src_len = src->ai_src_len;
	}
	rc = rdma_getaddrinfo(host, port, &hints, &res);
	if (src)
		rdma_freeaddrinfo(src);
	if (rc)
		return errno ? -errno : -EHOSTUNREACH;

	ep->re_cm_ch = rdma_create_event_channel();
	if (!ep->re_cm_ch) {
		rc = -errno;
		goto out_free_ai;
	}
	rc = set_nonblock(ep->re_cm_ch->fd);
	if (rc)
		goto out_free_ai;
	for (;;) {
		left = deadline - now_ms();
		rc = resolve_once(ep, res, left < 1000 ? (int)(left > 1 ? left : 1) : 1000);
		if (!rc || (rc != -ETIMEDOUT && rc != -EHOSTUNREACH) ||
		    now_ms() >= deadline)
			break;
		rdma_destroy_id(ep->re_id);
		ep->re_id = NULL;
	}
out_free_ai:
	rdma_freeaddrinfo(res);
	return rc;
}

/*
 * A verb failed: its errno, cleared before the call.  Providers may fail
 * without setting one (libsiw, when the kernel could not map a queue),
 * and a stale EAGAIN from a non-blocking channel would mislead.
 */
static int verbs_errno(void)
{
	return errno ? -errno : -ENOMEM;
}

/*
 * Create the QP asking for ea_max_inline bytes of inline data.  Providers
 * differ: rxe grants up to 512, siw refuses more than 80 with EINVAL, so on
 * EINVAL step down through smaller sizes to none.  The caller reads the
 * real grant from re_inline_granted.
 */
/* rxe's vendor id, as its kernel driver reports it. */
#define RXE_VENDOR_ID 0xffffff

/*
 * Why a second bit: rxe writes the kernel's IB_WC_WITH_INVALIDATE (bit 2)
 * into the user CQ untranslated, where libibverbs reads bit 2 as
 * IBV_WC_IP_CSUM_OK; a Receive on an RC QP carries no checksum flag, so on
 * rxe bit 2 means the Send invalidated an rkey.
 */
#define RXE_WC_WITH_INV (1u << 2)

/* siw's vendor id, as its kernel driver reports it ("bmt"). */
#define SIW_VENDOR_ID 0x626d74

static enum rpcrdma_driver driver_of(const struct ibv_device *dev,
				     const struct ibv_device_attr *da)
{
	if (dev->transport_type == IBV_TRANSPORT_IB &&
	    da->vendor_id == RXE_VENDOR_ID)
		return RPCRDMA_DRV_RXE;
	if (dev->transport_type == IBV_TRANSPORT_IWARP &&
	    da->vendor_id == SIW_VENDOR_ID)
		return RPCRDMA_DRV_SIW;
	return RPCRDMA_DRV_OTHER;
}

static int create_qp(struct rpcrdma_ep *ep, const struct rpcrdma_ep_attr *a)
{
	static const uint32_t steps[] = { 256, 128, 80, 64, 32, 0 };
	struct ibv_qp_init_attr attr;
	struct ibv_qp_attr qa;
	uint32_t want = a->ea_max_inline, max_sge = a->ea_max_sge ? a->ea_max_sge : 1;
	struct ibv_device_attr da;
	size_t i = 0;

	/* Mapped Sends gather many segments: ask what the device allows. */
	memset(&da, 0, sizeof(da));
	if (!ibv_query_device(ep->re_id->verbs, &da) && da.max_sge > 0 &&
	    (uint32_t)da.max_sge < max_sge)
		max_sge = (uint32_t)da.max_sge;
	ep->re_wc_inv_flags = IBV_WC_WITH_INV;
	if (driver_of(ep->re_id->verbs->device, &da) == RPCRDMA_DRV_RXE)
		ep->re_wc_inv_flags |= RXE_WC_WITH_INV;

	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.send_cq = ep->re_cq;
		attr.recv_cq = ep->re_cq;
		attr.qp_type = IBV_QPT_RC;
		attr.cap.max_send_wr = a->ea_nsend + a->ea_nrw + a->ea_extra_wr;
		attr.cap.max_recv_wr = a->ea_nrecv;
		attr.cap.max_send_sge = max_sge;
		attr.cap.max_recv_sge = 1;
		attr.cap.max_inline_data = want;
		errno = 0;
		if (!rdma_create_qp(ep->re_id, ep->re_pd, &attr))
			break;
		if (errno != EINVAL || want == 0)
			return verbs_errno();
		while (i < sizeof(steps) / sizeof(steps[0]) && steps[i] >= want)
			i++;
		want = i < sizeof(steps) / sizeof(steps[0]) ? steps[i] : 0;
	}
	memset(&qa, 0, sizeof(qa));
	if (ibv_query_qp(ep->re_id->qp, &qa, IBV_QP_CAP, &attr))
		return -errno;
	ep->re_inline_granted = qa.cap.max_inline_data;
	ep->re_max_send_sge = qa.cap.max_send_sge;
	return 0;
}

static int alloc_region(struct rpcrdma_ep *ep, uint32_t n, uint32_t size,
			uint8_t **mem, struct ibv_mr **mr)
{
	size_t len = (size_t)n * size;

	if (posix_memalign((void **)mem, 4096, len ? len : 1))
		return -ENOMEM;
	memset(*mem, 0, len);
	*mr = ibv_reg_mr(ep->re_pd, *mem, len, IBV_ACCESS_LOCAL_WRITE);
	if (!*mr) {
		free(*mem);
		*mem = NULL;
		return errno ? -errno : -ENOMEM;
	}
	return 0;
}

const char *rpcrdma_ep_device_name(const struct rpcrdma_ep *ep)
{
	if (!ep->re_id || !ep->re_id->verbs)
		return NULL;
	return ibv_get_device_name(ep->re_id->verbs->device);
}

static enum rpcrdma_driver rpcrdma_ep_driver_here(struct rpcrdma_ep *ep)
{
	struct ibv_device_attr da;

	memset(&da, 0, sizeof(da));
	if (!ep->re_id || !ep->re_id->verbs ||
	    ibv_query_device(ep->re_id->verbs, &da))
		return RPCRDMA_DRV_OTHER;
	return driver_of(ep->re_id->verbs->device, &da);
}

static int rpcrdma_ep_setup_here(struct rpcrdma_ep *ep, const struct rpcrdma_ep_attr *a)
{
	const char *what;
	uint32_t i;
	int rc;

	/* A server's connections on one device share their listener's PD,
	 * so one registered pool serves them all. */
	if (ep->re_pd)
		ep->re_pd_shared = 1;
	else
		ep->re_pd = ibv_alloc_pd(ep->re_id->verbs);
	if (!ep->re_pd) {
		rc = -ENOMEM;
		what = "ibv_alloc_pd";
		goto out_fail;
	}
	what = "ibv_create_comp_channel";
	errno = 0;
	ep->re_comp_ch = ibv_create_comp_channel(ep->re_id->verbs);
	if (!ep->re_comp_ch) {
		rc = verbs_errno();
		goto out_fail;
	}
	rc = set_nonblock(ep->re_comp_ch->fd);
	if (rc)
		goto out_fail;
	what = "ibv_create_cq";
	errno = 0;
	ep->re_cq = ibv_create_cq(ep->re_id->verbs,
				  (int)(a->ea_nsend + a->ea_nrw + a->ea_extra_wr + a->ea_nrecv), ep,
				  ep->re_comp_ch, 0);
	if (!ep->re_cq) {
		rc = verbs_errno();
		goto out_fail;
	}
	what = "rdma_create_qp";
	rc = create_qp(ep, a);
	if (rc)
		goto out_fail;
	ep->re_attr = *a;

	ep->re_nrecv = a->ea_nrecv;
	ep->re_recv_size = a->ea_recv_size;
	what = "receive buffers";
	rc = alloc_region(ep, a->ea_nrecv, a->ea_recv_size, &ep->re_recv_mem,
			  &ep->re_recv_mr);
	if (rc)
		goto out_fail;
	ep->re_nsend = a->ea_nsend;
	ep->re_rw_slots = a->ea_nrw;
	ep->re_send_size = a->ea_send_size;
	what = "send buffers";
	rc = alloc_region(ep, a->ea_nsend, a->ea_send_size, &ep->re_send_mem,
			  &ep->re_send_mr);
	if (rc)
		goto out_fail;
	ep->re_reps = calloc(a->ea_nrecv, sizeof(*ep->re_reps));
	ep->re_sendctxs = calloc(a->ea_nsend, sizeof(*ep->re_sendctxs));
	if (!ep->re_reps || !ep->re_sendctxs)
		return -ENOMEM;
	for (i = 0; i < a->ea_nrecv; i++) {
		ep->re_reps[i].rr_cqe.cq_kind = RPCRDMA_CQE_RECV;
		ep->re_reps[i].rr_buf = ep->re_recv_mem + (size_t)i * a->ea_recv_size;
		ep->re_reps[i].rr_index = i;
	}
	for (i = 0; i < a->ea_nsend; i++) {
		ep->re_sendctxs[i].sc_cqe.cq_kind = RPCRDMA_CQE_SEND;
		ep->re_sendctxs[i].sc_buf = ep->re_send_mem + (size_t)i * a->ea_send_size;
		ep->re_sendctxs[i].sc_index = i;
	}
	return rpcrdma_cq_arm(ep);

out_fail:
	/* The caller tears down what was made, and can say what failed. */
	ep->re_failed_step = what;
	return rc;
}

static void fill_conn_param(struct rdma_conn_param *p, const void *pdata,
			    uint8_t len, uint32_t ord, uint32_t ird)
{
	memset(p, 0, sizeof(*p));
	p->private_data = pdata;
	p->private_data_len = len;
	p->initiator_depth = (uint8_t)(ord > 255 ? 255 : ord);
	p->responder_resources = (uint8_t)(ird > 255 ? 255 : ird);
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static int rpcrdma_ep_connect_here(struct rpcrdma_ep *ep, const void *pdata,
		       uint8_t pdata_len, int timeout_ms,
		       uint8_t *peer_pdata, uint8_t *peer_len)
{
	struct rdma_conn_param p;
	uint32_t init_max, resp_max;

	/* A client never initiates RDMA Reads; it serves the server's, as
	 * many at once as its device can (the kernel's svcrdma refuses a
	 * client offering none, and pulls one at a time from one offering
	 * one).  What the server may issue is what it accepts with. */
	rpcrdma_dev_rd_limits(ep, &init_max, &resp_max);
	fill_conn_param(&p, pdata, pdata_len, 0, resp_max ? resp_max : 1);
	if (rdma_connect(ep->re_id, &p))
		return -errno;
	return wait_cm_event(ep->re_cm_ch, RDMA_CM_EVENT_ESTABLISHED,
			     timeout_ms, peer_pdata, peer_len);
}

static int rpcrdma_ep_accept_here(struct rpcrdma_ep *ep, const void *pdata,
		      uint8_t pdata_len)
{
	struct rdma_conn_param p;

	/* The depths the caller settled on from the peer's request. */
	fill_conn_param(&p, pdata, pdata_len, ep->re_rd_depth, ep->re_rd_resp);
	errno = 0;
	return rpcrdma_vt_rc(rdma_accept(ep->re_id, &p));
}

static void rpcrdma_ep_disconnect_here(struct rpcrdma_ep *ep)
{
	if (ep->re_id)
		rdma_disconnect(ep->re_id);
}

static void rpcrdma_ep_drop_conn_here(struct rpcrdma_ep *ep)
{
	struct ibv_wc wc[16];

	if (ep->re_id) {
		rdma_disconnect(ep->re_id);
		if (ep->re_id->qp)
			rdma_destroy_qp(ep->re_id);
		rdma_destroy_id(ep->re_id);
		ep->re_id = NULL;
	}
	if (ep->re_cm_ch && !ep->re_cm_shared)
		rdma_destroy_event_channel(ep->re_cm_ch);
	ep->re_cm_ch = NULL;
	/* The old QP's flushed work requests: nothing waits for them now. */
	if (ep->re_cq)
		while (ibv_poll_cq(ep->re_cq, 16, wc) > 0)
			;
	if (ep->re_comp_ch)
		rpcrdma_cq_drain_events(ep);
}

static int rpcrdma_ep_renew_qp_here(struct rpcrdma_ep *ep)
{
	int rc;

	if (!ep->re_id || ep->re_id->verbs != ep->re_pd->context)
		return -ENODEV;
	rc = create_qp(ep, &ep->re_attr);
	if (rc)
		return rc;
	return rpcrdma_cq_arm(ep);
}

/* The QP goes first when memory it may still access is about to be freed. */
static void rpcrdma_ep_destroy_qp_here(struct rpcrdma_ep *ep)
{
	if (ep->re_id && ep->re_id->qp)
		rdma_destroy_qp(ep->re_id);
}

/*
 * Undo rpcrdma_ep_setup/resolve in reverse; safe on a partial setup.
 * 0, or why the PD could not go (-EBUSY: something registered is left).
 */
static int rpcrdma_ep_destroy_here(struct rpcrdma_ep *ep)
{
	int rc = 0;

	if (ep->re_id && ep->re_id->qp)
		rdma_destroy_qp(ep->re_id);
	if (ep->re_recv_mr)
		ibv_dereg_mr(ep->re_recv_mr);
	if (ep->re_send_mr)
		ibv_dereg_mr(ep->re_send_mr);
	free(ep->re_recv_mem);
	free(ep->re_send_mem);
	free(ep->re_reps);
	free(ep->re_sendctxs);
	if (ep->re_cq)
		ibv_destroy_cq(ep->re_cq);
	if (ep->re_comp_ch)
		ibv_destroy_comp_channel(ep->re_comp_ch);
	if (ep->re_pd && !ep->re_pd_shared)
		rc = rpcrdma_pd_free(ep->re_pd);
	if (ep->re_id)
		rdma_destroy_id(ep->re_id);
	if (ep->re_cm_ch && !ep->re_cm_shared)
		rdma_destroy_event_channel(ep->re_cm_ch);
	memset(ep, 0, sizeof(*ep));
	return rc;
}

static int rpcrdma_post_recv_here(struct rpcrdma_ep *ep, struct rpcrdma_rep *rep)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rep->rr_buf,
		.length = ep->re_recv_size,
		.lkey = ep->re_recv_mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = (uintptr_t)&rep->rr_cqe,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	errno = 0;
	return rpcrdma_vt_rc(ibv_post_recv(ep->re_id->qp, &wr, &bad));
}

/*
 * Why every RDMA Write is signaled: siw transmits an unsignaled WR's data
 * zero-copy, and completes it once handed to TCP, which may still read
 * the pages; a buffer reused after the chain completes would then go out
 * changed.  Signaled, siw copies.  (Their completions are no-ops; the CQ
 * has room for every send-queue WR.)
 */
#define WRITE_FLAGS IBV_SEND_SIGNALED

/*
 * Post wr, with pre's Writes chained in front of it and its opcode made
 * Send With Invalidate if pre asks: one ibv_post_send either way.
 */
static int post_send_pre(struct rpcrdma_ep *ep, struct ibv_send_wr *wr,
			 const struct rpcrdma_send_pre *pre)
{
	struct ibv_send_wr wrs[RPCRDMA_SEND_PRE_MAX], *first = wr, *bad;
	struct ibv_sge sge[RPCRDMA_SEND_PRE_MAX];
	unsigned int i, n = pre ? pre->sp_nwrites : 0;

	if (n > RPCRDMA_SEND_PRE_MAX)
		return -EINVAL;
	if (pre && pre->sp_inv) {
		wr->opcode = IBV_WR_SEND_WITH_INV;
		wr->invalidate_rkey = pre->sp_inv_rkey;
		/* Why also here: siw's provider (rdma-core 44) sends the STag
		 * in wr.rdma.rkey, not invalidate_rkey; a Send uses neither
		 * otherwise. */
		wr->wr.rdma.rkey = pre->sp_inv_rkey;
	}
	if (n) {
		memset(wrs, 0, sizeof(wrs[0]) * n);
		for (i = 0; i < n; i++) {
			sge[i].addr = pre->sp_local[i].sg_addr;
			sge[i].length = pre->sp_local[i].sg_len;
			sge[i].lkey = pre->sp_local[i].sg_lkey;
			wrs[i].wr_id = (uintptr_t)pre->sp_member;
			wrs[i].sg_list = &sge[i];
			wrs[i].num_sge = 1;
			wrs[i].opcode = IBV_WR_RDMA_WRITE;
			wrs[i].send_flags = WRITE_FLAGS;
			wrs[i].wr.rdma.remote_addr = pre->sp_remote[i].rm_addr;
			wrs[i].wr.rdma.rkey = pre->sp_remote[i].rm_rkey;
			wrs[i].next = i + 1 < n ? &wrs[i + 1] : wr;
		}
		first = wrs;
	}
	errno = 0;
	return rpcrdma_vt_rc(ibv_post_send(ep->re_id->qp, first, &bad));
}

static int rpcrdma_post_send_pullup_here(struct rpcrdma_ep *ep,
			     struct rpcrdma_sendctx *sc, uint32_t len,
			     int signaled, const struct rpcrdma_send_pre *pre)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)sc->sc_buf,
		.length = len,
		.lkey = ep->re_send_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = (uintptr_t)&sc->sc_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
	};

	return post_send_pre(ep, &wr, pre);
}

/*
 * Post one Send gathering n entries.  Inline data is copied by the
 * provider during the post, so its entries need no lkey and their memory
 * may be reused as soon as this returns.
 */
static int rpcrdma_post_send_sges_here(struct rpcrdma_ep *ep, struct rpcrdma_sendctx *sc,
			   const struct rpcrdma_sge *sges, unsigned int n,
			   int inline_data, int signaled,
			   const struct rpcrdma_send_pre *pre)
{
	struct ibv_sge sge[32];
	struct ibv_send_wr wr;
	unsigned int i;

	if (n > 32 || n > ep->re_max_send_sge)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		sge[i].addr = sges[i].sg_addr;
		sge[i].length = sges[i].sg_len;
		sge[i].lkey = sges[i].sg_lkey;
	}
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)&sc->sc_cqe;
	wr.sg_list = sge;
	wr.num_sge = (int)n;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = (inline_data ? IBV_SEND_INLINE : 0) |
			(signaled ? IBV_SEND_SIGNALED : 0);
	return post_send_pre(ep, &wr, pre);
}

static int rpcrdma_post_rw_here(struct rpcrdma_ep *ep, int write,
		    const struct rpcrdma_sge *local,
		    const struct rpcrdma_remote *remote, unsigned int n,
		    struct rpcrdma_cqe *last, struct rpcrdma_cqe *member)
{
	struct ibv_send_wr wr[16], *bad;
	struct ibv_sge sge[16];
	unsigned int i;

	if (!n || n > 16)
		return -EINVAL;
	memset(wr, 0, sizeof(wr[0]) * n);
	for (i = 0; i < n; i++) {
		sge[i].addr = local[i].sg_addr;
		sge[i].length = local[i].sg_len;
		sge[i].lkey = local[i].sg_lkey;
		wr[i].wr_id = (uintptr_t)(i + 1 < n ? member : last);
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
		wr[i].wr.rdma.remote_addr = remote[i].rm_addr;
		wr[i].wr.rdma.rkey = remote[i].rm_rkey;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	/* Writes all signaled (see WRITE_FLAGS); Reads the last only. */
	for (i = 0; i < n; i++)
		wr[i].send_flags = write ? WRITE_FLAGS : 0;
	wr[n - 1].send_flags = IBV_SEND_SIGNALED;
	errno = 0;
	return rpcrdma_vt_rc(ibv_post_send(ep->re_id->qp, wr, &bad));
}

static void rpcrdma_dev_rd_limits_here(struct rpcrdma_ep *ep, uint32_t *init_max,
			   uint32_t *resp_max)
{
	struct ibv_device_attr da;

	*init_max = *resp_max = 0;
	if (!ep->re_id || !ep->re_id->verbs ||
	    ibv_query_device(ep->re_id->verbs, &da))
		return;
	*init_max = da.max_qp_init_rd_atom > 0 ? (uint32_t)da.max_qp_init_rd_atom : 0;
	*resp_max = da.max_qp_rd_atom > 0 ? (uint32_t)da.max_qp_rd_atom : 0;
}

uint32_t rpcrdma_ep_send_lkey(const struct rpcrdma_ep *ep)
{
	return ep->re_send_mr->lkey;
}

static int rpcrdma_cq_arm_here(struct rpcrdma_ep *ep)
{
	errno = 0;
	return rpcrdma_vt_rc(ibv_req_notify_cq(ep->re_cq, 0));
}

/* Consume pending completion events without arming: 1 if there were. */
int rpcrdma_cq_drain_events(struct rpcrdma_ep *ep)
{
	unsigned int n = 0;
	struct ibv_cq *cq;
	void *ctx;

	while (!ibv_get_cq_event(ep->re_comp_ch, &cq, &ctx))
		n++;
	if (n)
		ibv_ack_cq_events(ep->re_cq, n);
	return n > 0;
}

/*
 * Sleep on the completion channel (the CQ is armed) until it is readable
 * or timeout_ms passes (-1: no timeout); consume its events.  1 woke,
 * 0 timed out, or a negative errno.
 */
int rpcrdma_cq_sleep(struct rpcrdma_ep *ep, int timeout_ms)
{
	struct pollfd pfd = { .fd = ep->re_comp_ch->fd, .events = POLLIN };
	int rc = poll(&pfd, 1, timeout_ms);

	if (rc < 0)
		return errno == EINTR ? 1 : -errno;
	if (!rc)
		return 0;
	rpcrdma_cq_drain_events(ep);
	return 1;
}

int rpcrdma_cq_poll(struct rpcrdma_ep *ep, struct rpcrdma_wc *wcs, int n)
{
	struct ibv_wc wc[16];
	int got, i;

	if (n > 16)
		n = 16;
	got = ibv_poll_cq(ep->re_cq, n, wc);
	if (got < 0)
		return -EIO;
	for (i = 0; i < got; i++) {
		wcs[i].wc_ctx = (struct rpcrdma_cqe *)(uintptr_t)wc[i].wr_id;
		wcs[i].wc_ok = wc[i].status == IBV_WC_SUCCESS;
		wcs[i].wc_flushed = wc[i].status == IBV_WC_WR_FLUSH_ERR;
		wcs[i].wc_status = ibv_wc_status_str(wc[i].status);
		wcs[i].wc_byte_len = wc[i].byte_len;
		wcs[i].wc_with_inv = wc[i].status == IBV_WC_SUCCESS &&
				     wc[i].opcode == IBV_WC_RECV &&
				     (wc[i].wc_flags & ep->re_wc_inv_flags);
		wcs[i].wc_inv_rkey = wcs[i].wc_with_inv ?
				     wc[i].invalidated_rkey : 0;
	}
	return got;
}

static int rpcrdma_listen_here(struct rdma_event_channel **chp, struct rdma_cm_id **idp,
		   const char *host, const char *port, int backlog)
{
	struct rdma_addrinfo hints, *res;
	int rc = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(host, port, &hints, &res))
		return errno ? -errno : -EADDRNOTAVAIL;
	*chp = rdma_create_event_channel();
	if (!*chp) {
		rc = -errno;
		goto out_free_ai;
	}
	rc = set_nonblock((*chp)->fd);
	if (rc)
		goto out_destroy_ch;
	if (rdma_create_id(*chp, idp, NULL, RDMA_PS_TCP)) {
		rc = -errno;
		goto out_destroy_ch;
	}
	if (rdma_bind_addr(*idp, res->ai_src_addr) || rdma_listen(*idp, backlog)) {
		rc = -errno;
		goto out_destroy_id;
	}
	rdma_freeaddrinfo(res);
	return 0;

out_destroy_id:
	rdma_destroy_id(*idp);
	*idp = NULL;
out_destroy_ch:
	rdma_destroy_event_channel(*chp);
	*chp = NULL;
out_free_ai:
	rdma_freeaddrinfo(res);
	return rc;
}

static void rpcrdma_listen_close_here(struct rdma_event_channel *ch, struct rdma_cm_id *id)
{
	if (id)
		rdma_destroy_id(id);
	if (ch)
		rdma_destroy_event_channel(ch);
}

uint16_t rpcrdma_id_port(struct rdma_cm_id *id)
{
	return ntohs(rdma_get_src_port(id));
}

struct sockaddr *rpcrdma_id_local_addr(struct rdma_cm_id *id)
{
	return rdma_get_local_addr(id);
}

struct sockaddr *rpcrdma_id_peer_addr(struct rdma_cm_id *id)
{
	return rdma_get_peer_addr(id);
}

static int rpcrdma_cm_next_here(struct rdma_event_channel *ch, struct rdma_cm_event **evp)
{
	errno = 0;
	if (!rdma_get_cm_event(ch, evp))
		return 0;
	return errno == EAGAIN || !errno ? -EAGAIN : rpcrdma_vt_rc(-errno);
}

void rpcrdma_cm_ack(struct rdma_cm_event *ev)
{
	rdma_ack_cm_event(ev);
}

const char *rpcrdma_cm_event_name(const struct rdma_cm_event *ev)
{
	return rdma_event_str(ev->event);
}

static void rpcrdma_cm_reject_here(struct rdma_cm_id *id)
{
	rdma_reject(id, NULL, 0);
}

static void rpcrdma_cm_disconnect_here(struct rdma_cm_id *id)
{
	rdma_disconnect(id);
}

static void rpcrdma_cm_destroy_qp_here(struct rdma_cm_id *id)
{
	rdma_destroy_qp(id);
}

/* 0, or why the id lives on (-EACCES: the kernel refused). */
static int rpcrdma_cm_destroy_id_here(struct rdma_cm_id *id)
{
	errno = 0;
	return rpcrdma_vt_rc(rdma_destroy_id(id));
}

/* ---- the public names: here, or on the verbs thread (verbs_thread.h) ---- */

RPCRDMA_VT_R5(int, rpcrdma_ep_resolve, struct rpcrdma_ep *, const char *, const char *, const char *, int)
RPCRDMA_VT_R1(enum rpcrdma_driver, rpcrdma_ep_driver, struct rpcrdma_ep *)
RPCRDMA_VT_R2(int, rpcrdma_ep_setup, struct rpcrdma_ep *, const struct rpcrdma_ep_attr *)
RPCRDMA_VT_R6(int, rpcrdma_ep_connect, struct rpcrdma_ep *, const void *, uint8_t, int, uint8_t *, uint8_t *)
RPCRDMA_VT_R3(int, rpcrdma_ep_accept, struct rpcrdma_ep *, const void *, uint8_t)
RPCRDMA_VT_V1(rpcrdma_ep_disconnect, struct rpcrdma_ep *)
RPCRDMA_VT_V1(rpcrdma_ep_drop_conn, struct rpcrdma_ep *)
RPCRDMA_VT_R1(int, rpcrdma_ep_renew_qp, struct rpcrdma_ep *)
RPCRDMA_VT_V1(rpcrdma_ep_destroy_qp, struct rpcrdma_ep *)
RPCRDMA_VT_R1(int, rpcrdma_ep_destroy, struct rpcrdma_ep *)
RPCRDMA_VT_R2(int, rpcrdma_post_recv, struct rpcrdma_ep *, struct rpcrdma_rep *)
RPCRDMA_VT_R5(int, rpcrdma_post_send_pullup, struct rpcrdma_ep *, struct rpcrdma_sendctx *, uint32_t, int, const struct rpcrdma_send_pre *)
RPCRDMA_VT_R7(int, rpcrdma_post_send_sges, struct rpcrdma_ep *, struct rpcrdma_sendctx *, const struct rpcrdma_sge *, unsigned int, int, int, const struct rpcrdma_send_pre *)
RPCRDMA_VT_R7(int, rpcrdma_post_rw, struct rpcrdma_ep *, int, const struct rpcrdma_sge *, const struct rpcrdma_remote *, unsigned int, struct rpcrdma_cqe *, struct rpcrdma_cqe *)
RPCRDMA_VT_V3(rpcrdma_dev_rd_limits, struct rpcrdma_ep *, uint32_t *, uint32_t *)
RPCRDMA_VT_R1(int, rpcrdma_cq_arm, struct rpcrdma_ep *)
RPCRDMA_VT_R5(int, rpcrdma_listen, struct rdma_event_channel **, struct rdma_cm_id **, const char *, const char *, int)
RPCRDMA_VT_V2(rpcrdma_listen_close, struct rdma_event_channel *, struct rdma_cm_id *)
RPCRDMA_VT_R2(int, rpcrdma_cm_next, struct rdma_event_channel *, struct rdma_cm_event **)
RPCRDMA_VT_V1(rpcrdma_cm_reject, struct rdma_cm_id *)
RPCRDMA_VT_V1(rpcrdma_cm_disconnect, struct rdma_cm_id *)
RPCRDMA_VT_V1(rpcrdma_cm_destroy_qp, struct rdma_cm_id *)
RPCRDMA_VT_R1(int, rpcrdma_cm_destroy_id, struct rdma_cm_id *)
