/*
 * The XDR decode stream for Replies: reads the inline part (or the Reply
 * chunk) like xdrmem, and finds the one opaque a Write chunk carried
 * where the program asked for it (its own buffer), honouring the length
 * the Responder returned.  Pure logic, no verbs.
 */
#ifndef RPCRDMA_XDR_DEC_H
#define RPCRDMA_XDR_DEC_H

#include <stdbool.h>
#include <stdint.h>
#include <rpc/rpc.h>

/* A caller buffer offered as a Write chunk (direct data placement). */
struct rpcrdma_ddp_target {
	char *dt_addr;		/* the opaque decoded into this address ... */
	uint32_t dt_cap;	/* ... of this many bytes is the chunk */
	uint32_t dt_written;	/* bytes the Responder wrote there;
				   0: the chunk was unused, data inline */
	bool dt_consumed;	/* the decoder met the opaque */
};

struct rpcrdma_xdr_dec {
	const char *xd_base;
	uint32_t xd_len;
	uint32_t xd_pos;
	uint32_t xd_skip_pad;	/* roundup of a placed opaque: not inline */
	struct rpcrdma_ddp_target *xd_ddp;	/* NULL: no Write chunk */
};

void rpcrdma_xdrdec_create(XDR *xdrs, struct rpcrdma_xdr_dec *xd,
			   const void *buf, uint32_t len,
			   struct rpcrdma_ddp_target *ddp);

/*
 * After decoding: 0, or -EBADMSG when the Responder wrote data into the
 * Write chunk that the decoder never asked for (the Reply could not
 * have been decoded correctly).
 */
int rpcrdma_xdrdec_finish(const struct rpcrdma_xdr_dec *xd);

#endif /* RPCRDMA_XDR_DEC_H */
