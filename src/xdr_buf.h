/*
 * Outgoing RPC message as an ordered segment vector (the shape of the
 * kernel's xdr_buf: head, page list, tail), filled through an XDR encode
 * stream of ours that plugs into libtirpc's XDR.  Pure logic, no verbs.
 */
#ifndef RPCRDMA_XDR_BUF_H
#define RPCRDMA_XDR_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <rpc/rpc.h>

/* Most segments one message may have (copied and referenced together). */
#define RPCRDMA_XDRBUF_MAX_SEGS 16

/* One piece of the message, in stream order. */
struct rpcrdma_xdr_seg {
	const char *xs_base;	/* first byte: in scratch, or in caller memory */
	uint32_t xs_len;	/* bytes */
	bool xs_ref;		/* true: caller memory referenced, not copied */
};

/*
 * The message.  Copied segments are carved out of the scratch in order;
 * referenced segments point at the caller's memory, which must stay
 * valid and unchanged until the Send that carries it completes.
 */
struct rpcrdma_xdr_buf {
	char *xb_scratch;		/* caller storage for copied bytes */
	uint32_t xb_scratch_len;
	uint32_t xb_scratch_used;	/* next free scratch offset */
	uint32_t xb_threshold;		/* reference opaques >= this; 0 = never */
	uint32_t xb_len;		/* stream position == bytes encoded */
	uint32_t xb_hiwater;		/* bytes ever written in the last copied seg */
	uint32_t xb_pad_due;		/* XDR pad owed by the reference just added */
	bool xb_full;			/* a put failed for want of scratch or segments */
	unsigned int xb_nsegs;
	struct rpcrdma_xdr_seg xb_segs[RPCRDMA_XDRBUF_MAX_SEGS];
};

/*
 * A run of consecutive segments.  head = the copied segment before the
 * first reference; pages = from the first reference through the last
 * (copied pieces between two references, e.g. XDR padding, included);
 * tail = the copied segment after the last reference.  With no reference
 * at all, everything is head.
 */
struct rpcrdma_xdr_view {
	const struct rpcrdma_xdr_seg *xv_segs;
	unsigned int xv_nsegs;
	size_t xv_len;
};

/* Returns 0, or -EINVAL (scratch NULL with a length, or length >= 4 GiB). */
int rpcrdma_xdrbuf_init(struct rpcrdma_xdr_buf *xb, void *scratch,
			size_t scratch_len, uint32_t threshold);
/* A message already linear in mem, len bytes: one copied segment, as if
 * it had been encoded there (mem NULL or len 0: an empty message). */
void rpcrdma_xdrbuf_wrap(struct rpcrdma_xdr_buf *xb, char *mem, uint32_t len);
/* Forget the message; keep the scratch and threshold. */
void rpcrdma_xdrbuf_reset(struct rpcrdma_xdr_buf *xb);
/* An XDR_ENCODE stream appending to @xb; XDR_DESTROY is a no-op. */
void rpcrdma_xdrbuf_create(XDR *xdrs, struct rpcrdma_xdr_buf *xb);

size_t rpcrdma_xdrbuf_len(const struct rpcrdma_xdr_buf *xb);
/*
 * Whether an encode failed for want of room (scratch, segments, the 4 GiB
 * stream) rather than because the data could not be encoded at all: only
 * then can a larger buffer help.
 */
bool rpcrdma_xdrbuf_full(const struct rpcrdma_xdr_buf *xb);
/* Non-empty segments, i.e. how many SGEs a gather list would need. */
unsigned int rpcrdma_xdrbuf_nsegs(const struct rpcrdma_xdr_buf *xb);
/* Referenced segments: non-zero means the Send must be signaled. */
unsigned int rpcrdma_xdrbuf_nrefs(const struct rpcrdma_xdr_buf *xb);
void rpcrdma_xdrbuf_views(const struct rpcrdma_xdr_buf *xb,
			  struct rpcrdma_xdr_view *head,
			  struct rpcrdma_xdr_view *pages,
			  struct rpcrdma_xdr_view *tail);
/* Linearize into @dst; returns bytes written or -EMSGSIZE. */
ssize_t rpcrdma_xdrbuf_copy_out(const struct rpcrdma_xdr_buf *xb, void *dst,
				size_t dst_len);

#endif /* RPCRDMA_XDR_BUF_H */
