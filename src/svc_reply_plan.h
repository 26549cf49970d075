/*
 * How the server sends one Reply, decided apart from doing it (the
 * mirror of svc_recv.h): inline, its large opaques placed directly into
 * the Call's Write chunks, whole in its Reply chunk, or ERR_CHUNK.  Pure:
 * no verbs, no allocation; svc_reply.c does what it says.
 */
#ifndef RPCRDMA_SVC_REPLY_PLAN_H
#define RPCRDMA_SVC_REPLY_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include "rchunks.h"
#include "rpc_rdma.h"
#include "xdr_buf.h"

enum svc_rdma_reply_verdict {
	/* RDMA_MSG: the whole Reply in the Send; Write chunks back unused. */
	SVC_RDMA_REPLY_INLINE,
	/* RDMA_MSG: each large opaque RDMA Written into the next Write
	 * chunk the Call offered, the rest of the Reply in the Send. */
	SVC_RDMA_REPLY_DIRECT,
	/* RDMA_NOMSG: too large to Send, the whole Reply RDMA Written into
	 * the Call's Reply chunk (its length known only once encoded there,
	 * so that step may still refuse it). */
	SVC_RDMA_REPLY_CHUNK,
	/* It fits nowhere the Call offered: RDMA_ERROR / ERR_CHUNK, never
	 * a truncated Reply. */
	SVC_RDMA_REPLY_ERR_CHUNK,
};

/* One opaque placed directly: its bytes, for the Write chunk of its turn. */
struct svc_rdma_wplace {
	const char *wpl_addr;
	uint32_t wpl_len;		/* data only: never its XDR roundup */
};

/*
 * Direct placement: the i-th large opaque of the Reply (a referenced
 * segment of its encoding) goes into the Call's i-th Write chunk; the
 * Send carries the rest.
 */
struct svc_rdma_wplan {
	unsigned int wp_nchunks;	/* Write chunks filled, from the first */
	struct svc_rdma_wplace wp_place[RPCRDMA_XDRBUF_MAX_SEGS];
	uint64_t wp_bytes;		/* their sum: one chunk buffer holds all */
	/* What the Send carries after the header: the Reply without the
	 * placed opaques and their roundup.  Only copied segments. */
	struct rpcrdma_xdr_buf wp_rest;
};

/* What the verdict depends on. */
struct svc_rdma_reply_in {
	const struct rpcrdma_hdr *ri_call;	/* the Call's Write list and
						 * Reply chunk */
	const struct rpcrdma_xdr_buf *ri_xb;	/* the Reply as encoded into
						 * the Send's scratch; NULL:
						 * too large for it */
	uint32_t ri_send_max;			/* largest Send the peer takes */
	uint64_t ri_max_bytes;			/* our ceiling on one Reply's
						 * chunk bytes (its buffer) */
	const struct rpcrdma_chunk_limits *ri_lim; /* max_chunk_bytes */
	bool ri_no_direct;			/* no chunk memory for direct
						 * placement: decide without */
};

/*
 * The header every Reply starts from: RDMA_MSG, xid, our credits, and
 * the Call's Write chunks returned unused (every length 0).
 */
void svc_rdma_reply_header(const struct rpcrdma_hdr *call, uint32_t xid,
			   uint32_t credits, struct rpcrdma_hdr *h);

/*
 * Plan direct placement of xb's referenced segments into nwrites Write
 * chunks, in order.  0, or -ENOENT when it does not apply: nothing
 * referenced, no Write chunk, or more opaques than Write chunks.
 */
int svc_rdma_plan_writes(const struct rpcrdma_xdr_buf *xb, uint32_t nwrites,
			 struct svc_rdma_wplan *wp);

/*
 * Decide for in.  h is the Reply's header from svc_rdma_reply_header();
 * for DIRECT its Write chunks get the lengths wp places, otherwise they
 * stay unused.  wp is filled for DIRECT only.
 */
enum svc_rdma_reply_verdict
svc_rdma_reply_decide(const struct svc_rdma_reply_in *in,
		      struct rpcrdma_hdr *h, struct svc_rdma_wplan *wp);

/*
 * Send With Invalidate (RFC 8797), as the kernel's svcrdma chooses: the
 * rkey to invalidate with the Reply when every segment of the Call's read
 * list, Write list and Reply chunk carries one and the same rkey.  true
 * with *rkey set; false when the Call carried none, or more than one.
 */
bool svc_rdma_inv_rkey(const struct rpcrdma_hdr *call, uint32_t *rkey);

#endif /* RPCRDMA_SVC_REPLY_PLAN_H */
