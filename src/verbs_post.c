/*
 * Verbs plumbing, posting and polling: Receives, Sends (Writes chained in
 * front, Send With Invalidate), RDMA Read/Write chains, and arming,
 * draining, sleeping on and polling the CQ (the endpoint: verbs.c).
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <string.h>
#include "verbs.h"
#include "verbs_thread.h"

static int rpcrdma_post_recv_here(struct rpcrdma_ep *ep, struct rpcrdma_rep *rep)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rep->rr_buf,
		.length = ep->re_recv_size,
		.lkey = rep->rr_lkey,
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

static int rpcrdma_post_send_run_here(struct rpcrdma_ep *ep,
			  struct rpcrdma_sendctx *const *scs, unsigned int n,
			  unsigned int *posted)
{
	struct ibv_send_wr wr[RPCRDMA_POST_RUN], *bad = NULL;
	struct ibv_sge sge[RPCRDMA_POST_RUN];
	unsigned int i;
	int rc;

	*posted = 0;
	if (!n || n > RPCRDMA_POST_RUN)
		return -EINVAL;
	memset(wr, 0, sizeof(wr[0]) * n);
	for (i = 0; i < n; i++) {
		const struct rpcrdma_sendctx *sc = scs[i];

		if (sc->sc_sg || sc->sc_pre)
			return -EINVAL;
		sge[i].addr = (uintptr_t)sc->sc_buf;
		sge[i].length = sc->sc_len;
		sge[i].lkey = sc->sc_lkey;
		wr[i].num_sge = 1;
		wr[i].wr_id = (uintptr_t)&sc->sc_cqe;
		wr[i].sg_list = &sge[i];
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = (sc->sc_inline ? IBV_SEND_INLINE : 0) |
				   (sc->sc_signaled ? IBV_SEND_SIGNALED : 0);
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	errno = 0;
	rc = rpcrdma_vt_rc(ibv_post_send(ep->re_id->qp, wr, &bad));
	if (!rc)
		*posted = n;
	else if (bad >= wr && bad < wr + n)
		*posted = (unsigned int)(bad - wr);
	return rc;
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
 * Sleep on the completion channel (the CQ is armed), and on @fd too
 * (-1: none), until one is readable or timeout_ms passes (-1: no
 * timeout); consume the channel's events (@fd is its owner's to read:
 * *fd_ready says whether it is).  1 woke, 0 timed out, or a negative
 * errno.
 */
int rpcrdma_cq_sleep_or(struct rpcrdma_ep *ep, int fd, int timeout_ms,
			bool *fd_ready)
{
	struct pollfd p[2] = {
		{ .fd = ep->re_comp_ch->fd, .events = POLLIN },
		{ .fd = fd, .events = POLLIN },
	};
	int rc = poll(p, fd >= 0 ? 2 : 1, timeout_ms);

	if (fd_ready)
		*fd_ready = rc > 0 && p[1].revents;
	if (rc < 0)
		return errno == EINTR ? 1 : -errno;
	if (!rc)
		return 0;
	if (p[0].revents)
		rpcrdma_cq_drain_events(ep);
	return 1;
}

int rpcrdma_cq_sleep(struct rpcrdma_ep *ep, int timeout_ms)
{
	return rpcrdma_cq_sleep_or(ep, -1, timeout_ms, NULL);
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

/* ---- the public names: here, or on the verbs thread (verbs_thread.h) ---- */

RPCRDMA_VT_R2(int, rpcrdma_post_recv, struct rpcrdma_ep *, struct rpcrdma_rep *)
RPCRDMA_VT_R4(int, rpcrdma_post_send_run, struct rpcrdma_ep *, struct rpcrdma_sendctx *const *, unsigned int, unsigned int *)
RPCRDMA_VT_R7(int, rpcrdma_post_send_sges, struct rpcrdma_ep *, struct rpcrdma_sendctx *, const struct rpcrdma_sge *, unsigned int, int, int, const struct rpcrdma_send_pre *)
RPCRDMA_VT_R7(int, rpcrdma_post_rw, struct rpcrdma_ep *, int, const struct rpcrdma_sge *, const struct rpcrdma_remote *, unsigned int, struct rpcrdma_cqe *, struct rpcrdma_cqe *)
RPCRDMA_VT_V3(rpcrdma_dev_rd_limits, struct rpcrdma_ep *, uint32_t *, uint32_t *)
RPCRDMA_VT_R1(int, rpcrdma_cq_arm, struct rpcrdma_ep *)
