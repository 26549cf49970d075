/*
 * Verbs plumbing, the endpoint: address resolution, QP/CQ/buffer setup with
 * the inline grant read back, connect/accept with private data, teardown
 * (posting and polling: verbs_post.c; the listener and CM events:
 * verbs_cm.c; memory: verbs_mem.c).  Nothing here decides anything about
 * RPC; it only does what it is told.
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "verbs.h"
#include "verbs_int.h"
#include "verbs_thread.h"

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

/* Which soft driver a device is, from its vendor id (rxe and siw set
 * their own; hardware sets its PCI vendor's). */
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

/*
 * Create the QP asking for ea_max_inline bytes of inline data.  Providers
 * differ: rxe grants up to 512, siw refuses more than 80 with EINVAL, so on
 * EINVAL step down through smaller sizes to none.  The caller reads the
 * real grant from re_inline_granted.
 */
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
		attr.cap.max_recv_wr = a->ea_srq ? 0 : a->ea_nrecv;
		attr.srq = a->ea_srq;
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

uint64_t rpcrdma_ep_ring_bytes(const struct rpcrdma_ep *ep)
{
	return (uint64_t)ep->re_recv_ready * ep->re_recv_size +
	       ep->re_send_pinned;
}

int rpcrdma_ep_recv_grow(struct rpcrdma_ep *ep, uint32_t n)
{
	uint32_t from = ep->re_recv_ready, to, i;
	struct ibv_mr *mr;

	if (n > ep->re_nrecv)
		n = ep->re_nrecv;
	if (n <= from)
		return 0;
	to = (n + RPCRDMA_RECV_CHUNK - 1) / RPCRDMA_RECV_CHUNK *
	     RPCRDMA_RECV_CHUNK;
	if (to > ep->re_nrecv)
		to = ep->re_nrecv;
	errno = 0;
	mr = rpcrdma_reg_mem(ep, ep->re_reps[from].rr_buf,
			     (size_t)(to - from) * ep->re_recv_size);
	if (!mr)
		return errno ? -errno : -ENOMEM;
	ep->re_recv_mrs[ep->re_recv_nmr++] = mr;
	for (i = from; i < to; i++)
		ep->re_reps[i].rr_lkey = mr->lkey;
	ep->re_recv_ready = to;
	return 0;
}

/* Once per chunk: the hot path pays one test of sc_ready. */
int rpcrdma_ep_send_buf(struct rpcrdma_ep *ep, struct rpcrdma_sendctx *sc)
{
	uint32_t c = sc->sc_index / RPCRDMA_SEND_CHUNK;
	uint32_t first = c * RPCRDMA_SEND_CHUNK, n, i;
	struct ibv_mr *mr;

	if (sc->sc_ready)
		return 0;
	n = ep->re_nsend - first < RPCRDMA_SEND_CHUNK ? ep->re_nsend - first
						      : RPCRDMA_SEND_CHUNK;
	errno = 0;
	mr = rpcrdma_reg_mem(ep, ep->re_sendctxs[first].sc_buf,
			     (size_t)n * ep->re_send_size);
	if (!mr)
		return errno ? -errno : -ENOMEM;
	ep->re_send_mrs[c] = mr;
	ep->re_send_pinned += (uint64_t)n * ep->re_send_size;
	for (i = first; i < first + n; i++) {
		ep->re_sendctxs[i].sc_lkey = mr->lkey;
		ep->re_sendctxs[i].sc_ready = 1;
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

/*
 * siw's mmap keys: the siw provider of rdma-core takes a key of exactly
 * SIW_INVAL_UOBJ_KEY (0x90000, page 144) for "no key" and fails the CQ,
 * QP or SRQ it came with (errno left as it was: a stale ENOMEM), though
 * the kernel handed it out as a valid key, the lowest free pages of the
 * process's context first.  A process whose queues reach page 144 (about
 * 30 server connections, 17 CLIENTs) could make no more, for good.  So
 * the first queue made on a siw device is a guard: a CQ of 32768 entries
 * (257 pages, 1 MiB of kernel memory, never pinned) holding pages 0 to
 * 256 for the life of the process.  Best effort: a program that made
 * queues on the context before may leave page 144 in a hole.
 */
#define SIW_GUARD_CQE	32768
#define SIW_GUARDS	8

void rpcrdma_siw_key_guard(struct ibv_context *verbs)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct ibv_context *guarded[SIW_GUARDS];
	static struct ibv_cq *guard[SIW_GUARDS];	/* reachable: kept */
	struct ibv_device_attr da;
	unsigned int i;

	memset(&da, 0, sizeof(da));
	if (!verbs || ibv_query_device(verbs, &da) ||
	    driver_of(verbs->device, &da) != RPCRDMA_DRV_SIW)
		return;
	pthread_mutex_lock(&lock);
	for (i = 0; i < SIW_GUARDS && guarded[i] && guarded[i] != verbs; i++)
		;
	if (i < SIW_GUARDS && !guarded[i]) {
		/* Kept, never destroyed: the pages must stay taken. */
		guard[i] = ibv_create_cq(verbs, SIW_GUARD_CQE, NULL, NULL, 0);
		if (guard[i])
			guarded[i] = verbs;
	}
	pthread_mutex_unlock(&lock);
}

static int rpcrdma_ep_setup_here(struct rpcrdma_ep *ep, const struct rpcrdma_ep_attr *a)
{
	const char *what;
	uint32_t i, nchunks;
	size_t len;
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
	rpcrdma_siw_key_guard(ep->re_id->verbs);
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
				  (int)(a->ea_nsend + a->ea_nrw + a->ea_extra_wr +
					(a->ea_srq ? a->ea_srq_recv : a->ea_nrecv)), ep,
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
	/* None of its own when it takes them from a shared queue; else
	 * address space for all, registered as rpcrdma_ep_recv_grow says. */
	len = (size_t)a->ea_nrecv * a->ea_recv_size;
	if (a->ea_nrecv &&
	    posix_memalign((void **)&ep->re_recv_mem, 4096, len)) {
		ep->re_recv_mem = NULL;
		rc = -ENOMEM;
		goto out_fail;
	}
	ep->re_recv_mrs = calloc(a->ea_nrecv / RPCRDMA_RECV_CHUNK + 2,
				 sizeof(*ep->re_recv_mrs));
	if (!ep->re_recv_mrs) {
		rc = -ENOMEM;
		goto out_fail;
	}
	ep->re_nsend = a->ea_nsend;
	ep->re_rw_slots = a->ea_nrw;
	ep->re_send_size = a->ea_send_size;
	what = "send buffers";
	/* Address space for all; registered a chunk at a time (verbs.h). */
	len = (size_t)a->ea_nsend * a->ea_send_size;
	if (posix_memalign((void **)&ep->re_send_mem, 4096, len ? len : 1)) {
		ep->re_send_mem = NULL;
		rc = -ENOMEM;
		goto out_fail;
	}
	nchunks = (a->ea_nsend + RPCRDMA_SEND_CHUNK - 1) / RPCRDMA_SEND_CHUNK;
	ep->re_send_mrs = calloc(nchunks ? nchunks : 1, sizeof(*ep->re_send_mrs));
	ep->re_reps = calloc(a->ea_nrecv ? a->ea_nrecv : 1, sizeof(*ep->re_reps));
	ep->re_sendctxs = calloc(a->ea_nsend, sizeof(*ep->re_sendctxs));
	if (!ep->re_reps || !ep->re_sendctxs || !ep->re_send_mrs)
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
	/* The first chunks now: a connection that cannot register them
	 * fails here, as it did when the whole rings were registered. */
	what = "receive buffers";
	rc = rpcrdma_ep_recv_grow(ep, a->ea_recv_first ? a->ea_recv_first :
						   a->ea_nrecv);
	if (rc)
		goto out_fail;
	what = "send buffers";
	if (a->ea_nsend) {
		rc = rpcrdma_ep_send_buf(ep, &ep->re_sendctxs[0]);
		if (rc)
			goto out_fail;
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
	if (ep->re_recv_mrs) {
		uint32_t m;

		for (m = 0; m < ep->re_recv_nmr; m++)
			ibv_dereg_mr(ep->re_recv_mrs[m]);
	}
	free(ep->re_recv_mrs);
	if (ep->re_send_mrs) {
		uint32_t c;

		for (c = 0; c * RPCRDMA_SEND_CHUNK < ep->re_nsend; c++)
			if (ep->re_send_mrs[c])
				ibv_dereg_mr(ep->re_send_mrs[c]);
	}
	free(ep->re_send_mrs);
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
