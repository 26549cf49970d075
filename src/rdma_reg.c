/*
 * Per-RPC chunk registrations.  A registration made for one RPC and
 * deregistered when it ends is the one scheme every device offers (siw
 * has no memory windows); ibv_dereg_mr() returns only once the rkey is
 * dead, so a late RDMA access by the peer fails instead of landing.
 */
#include "config.h"
#include <errno.h>
#include "rdma_reg.h"

int rpcrdma_regset_add(struct rpcrdma_regset *rg, struct rpcrdma_ep *ep,
		       const void *addr, uint32_t len, int remote_write,
		       int caller, struct rpcrdma_segment *seg)
{
	struct ibv_mr *mr;

	if (!addr || !len || rg->rg_n == RPCRDMA_REQ_MAX_REGS)
		return -EINVAL;
	mr = rpcrdma_reg_remote(ep, (void *)(uintptr_t)addr, len, remote_write);
	if (!mr)
		return -ENOMEM;
	rg->rg_mr[rg->rg_n] = mr;
	rg->rg_caller[rg->rg_n] = caller;
	rg->rg_n++;
	seg->se_handle = rpcrdma_mr_rkey(mr);
	seg->se_length = len;
	seg->se_offset = (uint64_t)(uintptr_t)addr;
	return 0;
}

unsigned int rpcrdma_regset_release(struct rpcrdma_regset *rg, int caller_only)
{
	unsigned int i, kept = 0, gone = 0;

	for (i = 0; i < rg->rg_n; i++) {
		if (caller_only && !rg->rg_caller[i]) {
			rg->rg_mr[kept] = rg->rg_mr[i];
			rg->rg_caller[kept++] = 0;
			continue;
		}
		rpcrdma_dereg_mem(rg->rg_mr[i]);
		gone++;
	}
	rg->rg_n = kept;
	return gone;
}
