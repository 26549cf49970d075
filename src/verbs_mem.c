/*
 * The verbs layer's memory half (verbs.h): protection domains, memory
 * registrations and their keys, and type 2 memory windows, bound and
 * invalidated by work requests.  Like verbs.c, it decides nothing.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "verbs.h"
#include "verbs_thread.h"

static struct ibv_mr *rpcrdma_reg_mem_here(struct rpcrdma_ep *ep, void *addr, size_t len)
{
	return ibv_reg_mr(ep->re_pd, addr, len, IBV_ACCESS_LOCAL_WRITE);
}

static struct ibv_pd *rpcrdma_pd_alloc_here(struct ibv_context *verbs)
{
	return ibv_alloc_pd(verbs);
}

static int rpcrdma_pd_free_here(struct ibv_pd *pd)
{
	errno = 0;
	return rpcrdma_vt_rc(ibv_dealloc_pd(pd));
}

static struct ibv_mr *rpcrdma_pd_reg_here(struct ibv_pd *pd, void *addr, size_t len)
{
	return ibv_reg_mr(pd, addr, len, IBV_ACCESS_LOCAL_WRITE);
}

struct ibv_pd *rpcrdma_mr_pd(const struct ibv_mr *mr)
{
	return mr->pd;
}

void *rpcrdma_mr_addr(const struct ibv_mr *mr)
{
	return mr->addr;
}

size_t rpcrdma_mr_len(const struct ibv_mr *mr)
{
	return mr->length;
}

struct ibv_context *rpcrdma_id_verbs(const struct rdma_cm_id *id)
{
	return id->verbs;
}

static void rpcrdma_dereg_mem_here(struct ibv_mr *mr)
{
	ibv_dereg_mr(mr);
}

uint32_t rpcrdma_mr_lkey(const struct ibv_mr *mr)
{
	return mr->lkey;
}

/*
 * One kind of remote access, never both: a Read chunk's source is only
 * read by the peer, a Write or Reply chunk only written.  Remote write
 * needs local write on the same MR (the verbs rule), remote read not.
 */
static struct ibv_mr *rpcrdma_reg_remote_here(struct rpcrdma_ep *ep, void *addr,
				  size_t len, int remote_write)
{
	int access = remote_write ?
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE :
		     IBV_ACCESS_REMOTE_READ;

	return ibv_reg_mr(ep->re_pd, addr, len, access);
}

uint32_t rpcrdma_mr_rkey(const struct ibv_mr *mr)
{
	return mr->rkey;
}

static int rpcrdma_mw_init_here(struct rpcrdma_ep *ep, struct rpcrdma_mw *mw, void *buf,
		    size_t len)
{
	memset(mw, 0, sizeof(*mw));
	mw->mw_bind_cqe.cq_kind = RPCRDMA_CQE_BIND;
	mw->mw_inv_cqe.cq_kind = RPCRDMA_CQE_INV;
	mw->mw_ibv = ibv_alloc_mw(ep->re_pd, IBV_MW_TYPE_2);
	if (!mw->mw_ibv)
		return -EOPNOTSUPP;
	/* Remote write through a window needs local write on its MR. */
	mw->mw_base = ibv_reg_mr(ep->re_pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_MW_BIND);
	if (!mw->mw_base) {
		ibv_dealloc_mw(mw->mw_ibv);
		mw->mw_ibv = NULL;
		return -EOPNOTSUPP;
	}
	mw->mw_rkey = mw->mw_ibv->rkey;
	return 0;
}

static void rpcrdma_mw_fini_here(struct rpcrdma_mw *mw)
{
	if (mw->mw_ibv)
		ibv_dealloc_mw(mw->mw_ibv);
	if (mw->mw_base)
		ibv_dereg_mr(mw->mw_base);
	mw->mw_ibv = NULL;
	mw->mw_base = NULL;
}

/* Each binding gets a fresh key byte, so an old rkey never matches. */
static int rpcrdma_mw_bind_here(struct rpcrdma_ep *ep, struct rpcrdma_mw *mw, void *addr,
		    uint32_t len)
{
	struct ibv_send_wr wr, *bad;
	uint32_t rkey = ibv_inc_rkey(mw->mw_rkey);
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)&mw->mw_bind_cqe;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw->mw_ibv;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mw->mw_base;
	wr.bind_mw.bind_info.addr = (uintptr_t)addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	errno = 0;
	rc = rpcrdma_vt_rc(ibv_post_send(ep->re_id->qp, &wr, &bad));
	if (!rc) {
		/* Type 2 binds by work request leave updating the window's
		 * rkey to us; the provider names the window by it next time. */
		mw->mw_ibv->rkey = rkey;
		mw->mw_rkey = rkey;
		mw->mw_bound = 1;
	}
	return rc;
}

static int rpcrdma_mw_invalidate_here(struct rpcrdma_ep *ep, struct rpcrdma_mw *mw)
{
	struct ibv_send_wr wr, *bad;
	int rc;

	if (!mw->mw_bound)
		return 0;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)&mw->mw_inv_cqe;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = mw->mw_rkey;
	errno = 0;
	rc = rpcrdma_vt_rc(ibv_post_send(ep->re_id->qp, &wr, &bad));
	if (!rc)
		mw->mw_bound = 0;
	return rc;
}

/* ---- the public names: here, or on the verbs thread (verbs_thread.h) ---- */

RPCRDMA_VT_R3(struct ibv_mr *, rpcrdma_reg_mem, struct rpcrdma_ep *, void *, size_t)
RPCRDMA_VT_R1(struct ibv_pd *, rpcrdma_pd_alloc, struct ibv_context *)
RPCRDMA_VT_R1(int, rpcrdma_pd_free, struct ibv_pd *)
RPCRDMA_VT_R3(struct ibv_mr *, rpcrdma_pd_reg, struct ibv_pd *, void *, size_t)
RPCRDMA_VT_V1(rpcrdma_dereg_mem, struct ibv_mr *)
RPCRDMA_VT_R4(struct ibv_mr *, rpcrdma_reg_remote, struct rpcrdma_ep *, void *, size_t, int)
RPCRDMA_VT_R4(int, rpcrdma_mw_init, struct rpcrdma_ep *, struct rpcrdma_mw *, void *, size_t)
RPCRDMA_VT_V1(rpcrdma_mw_fini, struct rpcrdma_mw *)
RPCRDMA_VT_R4(int, rpcrdma_mw_bind, struct rpcrdma_ep *, struct rpcrdma_mw *, void *, uint32_t)
RPCRDMA_VT_R2(int, rpcrdma_mw_invalidate, struct rpcrdma_ep *, struct rpcrdma_mw *)
