/*
 * The server's verdict on a received message (svc_recv.h).  One function
 * turns the header codec's and the chunk planner's answers into what the
 * connection does; svc_call.c carries it out, the fuzz target checks it.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "svc_recv.h"

/* Why a message is refused, or NULL when it is a usable Call. */
static const char *unusable(int rc, const struct rpcrdma_hdr *h,
			    const struct rpcrdma_chunk_limits *lim,
			    bool *over_limit)
{
	if (rc)
		return "malformed transport header";
	/* A Call carries its message inline or in Read chunks. */
	if (h->hd_proc != RPCRDMA_MSG && h->hd_proc != RPCRDMA_NOMSG)
		return "RDMA_ERROR is not a Call";
	if (h->hd_proc == RPCRDMA_NOMSG && !h->hd_nreads)
		return "RDMA_NOMSG without Read chunks";
	/* Write and Reply chunks we could never address, or over the
	 * limits, are refused before use. */
	rc = rpcrdma_check_chunks(h, lim);
	if (rc == -EMSGSIZE) {
		*over_limit = true;
		return "Write or Reply chunks over the limits";
	}
	if (rc)
		return "a Write or Reply chunk wraps";
	return NULL;
}

void svc_rdma_recv_decide(const void *buf, uint32_t len,
			  const struct rpcrdma_chunk_limits *lim,
			  struct rpcrdma_hdr *h, struct svc_rdma_recv *rv)
{
	int rc = rpcrdma_hdr_decode(buf, len, h);

	memset(rv, 0, sizeof(*rv));
	if (rc == -ENODATA) {
		rv->rv_verdict = SVC_RDMA_RECV_DROP;
		rv->rv_why = "shorter than a header prefix";
		return;
	}
	if (rc == -EPROTONOSUPPORT) {
		rv->rv_verdict = SVC_RDMA_RECV_ERR_VERS;
		rv->rv_why = "rdma_vers is not 1";
		return;
	}
	rv->rv_why = unusable(rc, h, lim, &rv->rv_over_limit);
	if (rv->rv_why) {
		rv->rv_verdict = SVC_RDMA_RECV_ERR_CHUNK;
		return;
	}
	rv->rv_off = (uint32_t)h->hd_hdrlen;
	rv->rv_len = len - rv->rv_off;
	if (!h->hd_nreads) {
		rv->rv_verdict = SVC_RDMA_RECV_INLINE;
		return;
	}
	/* A peer that granted no RDMA Reads at connect yet sends Read
	 * chunks: they cannot be pulled, as over a limit of 0 Reads (RFC
	 * 8166 section 4.5.2, the Responder cannot use the chunk).  The
	 * connection stays; its inline Calls are served. */
	if (lim->lm_no_reads) {
		rv->rv_verdict = SVC_RDMA_RECV_ERR_CHUNK;
		rv->rv_over_limit = true;
		rv->rv_why = "Read chunks, but the peer serves no RDMA Reads";
		return;
	}
	rc = rpcrdma_map_call(h, rv->rv_len, lim, &rv->rv_map);
	if (!rc) {
		rv->rv_verdict = SVC_RDMA_RECV_PULL;
		return;
	}
	rv->rv_verdict = SVC_RDMA_RECV_ERR_CHUNK;
	rv->rv_over_limit = rc == -EMSGSIZE;
	rv->rv_why = rc == -EMSGSIZE ? "Read chunks over the limits" :
		     "read list cannot describe a Call";
}
