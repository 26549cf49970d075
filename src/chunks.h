/*
 * Chunk planning (RFC 8166 sections 3.4-3.5): which parts of a Call go
 * as Read chunks and at which XDR positions, when a Call goes whole as a
 * position-zero Read chunk, when a Reply chunk is offered and how big,
 * and whether what a Responder returned in its write list and Reply chunk
 * is something we offered.  Pure logic, no verbs, no allocation.
 */
#ifndef RPCRDMA_CHUNKS_H
#define RPCRDMA_CHUNKS_H

#include <stdbool.h>
#include <stdint.h>

#include "rpc_rdma.h"
#include "xdr_buf.h"

/* How a Call travels; a forced kind is used even when inline would do. */
enum rpcrdma_call_force {
	RPCRDMA_CALL_AUTO,	/* inline if it fits, else Read chunks, else long */
	RPCRDMA_CALL_READ,	/* referenced segments always as Read chunks */
	RPCRDMA_CALL_LONG,	/* always RDMA_NOMSG, whole Call at position 0 */
};

/* What planning found for the Call. */
enum rpcrdma_call_kind {
	RPCRDMA_CALL_INLINE,	/* RDMA_MSG, no read list */
	RPCRDMA_CALL_READCH,	/* RDMA_MSG + read list, reduced inline part */
	RPCRDMA_CALL_LONGCH,	/* RDMA_NOMSG, one position-zero Read chunk */
};

/* Where a Read segment's bytes live, hence how they are registered. */
enum rpcrdma_rseg_src {
	RPCRDMA_RS_SCRATCH,	/* the slot's scratch (copied XDR) */
	RPCRDMA_RS_CALLER,	/* a referenced opaque, in caller memory */
};

struct rpcrdma_rseg_plan {
	uint32_t rp_position;	/* XDR position (padding counted); 0: long */
	const char *rp_addr;
	uint32_t rp_len;	/* data only: XDR roundup is never in a chunk */
	enum rpcrdma_rseg_src rp_src;
};

#define RPCRDMA_CHUNK_MAX_RSEGS RPCRDMA_XDRBUF_MAX_SEGS

struct rpcrdma_call_plan {
	enum rpcrdma_call_kind cp_kind;
	unsigned int cp_nrsegs;
	struct rpcrdma_rseg_plan cp_rsegs[RPCRDMA_CHUNK_MAX_RSEGS];
	/*
	 * What the Send carries after the transport header: the whole Call
	 * (INLINE), the Call without its Read chunks and their roundup
	 * (READCH), nothing (LONGCH).  Only copied (scratch) segments.
	 */
	struct rpcrdma_xdr_buf cp_inline;
	uint32_t cp_hdrlen;	/* transport header bytes, read list included */
};

/* What the Call's planning depends on besides the message. */
struct rpcrdma_call_limits {
	uint32_t cl_peer_inline;	/* largest Send the peer receives */
	uint32_t cl_hdr_base;		/* header without read list: fixed,
					   write list, reply chunk, 3 list ends */
	uint32_t cl_max_rsegs;		/* read segments we may advertise */
	uint64_t cl_max_call;		/* largest RPC Call; 0: unlimited */
};

/*
 * Plan @xb.  AUTO: inline when header + Call fit the peer's threshold;
 * otherwise every referenced segment becomes a Read chunk at its XDR
 * position and the remainder (minus the chunks' roundup) goes inline; if
 * that still does not fit, or nothing is referenced, the whole Call goes
 * as one position-zero Read chunk of one segment per XDR segment.
 * Returns 0; -EMSGSIZE when no plan fits (header too big, too many
 * segments, larger than cl_max_call); -EINVAL for an unknown force.
 */
int rpcrdma_plan_call(const struct rpcrdma_xdr_buf *xb,
		      const struct rpcrdma_call_limits *cl,
		      enum rpcrdma_call_force force,
		      struct rpcrdma_call_plan *out);

/* Whether a Reply chunk is offered, and its size. */
enum rpcrdma_reply_force {
	RPCRDMA_REPLY_AUTO,	/* offered when the Reply may not fit inline */
	RPCRDMA_REPLY_ALWAYS,	/* offered on every call */
	RPCRDMA_REPLY_NEVER,	/* never: large Replies draw ERR_CHUNK */
};

/*
 * The Reply chunk to offer, in bytes (0: none), for a Reply of at most
 * @max_reply bytes (0: unknown, use @dflt) received through buffers of
 * @recv_inline bytes.  A Reply that surely fits in the receive buffer
 * behind a minimal header needs no chunk.  Sizes are rounded up to XDR
 * units.
 */
uint32_t rpcrdma_plan_reply(uint32_t max_reply, uint32_t dflt,
			    uint32_t recv_inline, enum rpcrdma_reply_force force);

/*
 * Plan @xb (as rpcrdma_plan_call) beside a Reply chunk of *@reply_len
 * bytes (0: none), which @cl->cl_hdr_base counts already.  A Reply chunk
 * offered only because the Reply's size is @unknown, with @force and
 * @rforce both auto, is dropped (*@reply_len becomes 0) when it alone
 * would push an inline Call into Read chunks.  Returns as
 * rpcrdma_plan_call.
 */
int rpcrdma_plan_call_reply(const struct rpcrdma_xdr_buf *xb,
			    const struct rpcrdma_call_limits *cl,
			    enum rpcrdma_call_force force,
			    enum rpcrdma_reply_force rforce, bool unknown,
			    uint32_t *reply_len, struct rpcrdma_call_plan *out);

/*
 * What a CLIENT learned of one procedure's Replies, for reply_chunks=auto
 * when the program gave no bound (rpcrdma_offer_unknown).
 */
enum rpcrdma_reply_seen {
	RPCRDMA_SEEN_NOTHING,	/* no Reply yet */
	RPCRDMA_SEEN_INLINE,	/* Replies came inline although a chunk was offered */
	RPCRDMA_SEEN_CHUNK,	/* a Reply needed a Reply chunk: offer one from now on */
};

/*
 * Under auto, whether a call whose Reply size is unknown offers the
 * default Reply chunk: until the procedure's Replies are seen to fit
 * inline, and for good once one did not.  Why on every device: an offer
 * costs a registration per RPC, or with memory windows a bind and an
 * invalidation (two more posts, system calls on rxe: 3.7 against 1.4
 * per call, measured); not offering costs one ERR_CHUNK and retry per
 * procedure whose Replies grow.
 */
bool rpcrdma_offer_unknown(enum rpcrdma_reply_seen seen);

/*
 * What one Reply teaches: @offered, whether the call offered a Reply
 * chunk; @in_chunk, whether the Reply came in it; @refused, whether the
 * server answered ERR_CHUNK to a call that offered none.
 */
enum rpcrdma_reply_seen rpcrdma_reply_learn(enum rpcrdma_reply_seen seen,
					    bool offered, bool in_chunk,
					    bool refused);

/*
 * A chunk the Responder returned against the one we offered: the same
 * segments (handles and offsets) in the same order, none longer than
 * offered, lengths summed without wrapping, and the data contiguous (a
 * short segment may only be followed by empty ones).  *@total gets the
 * bytes written.  0, or -EBADMSG.
 */
int rpcrdma_chunk_returned(const struct rpcrdma_chunk *offered,
			   const struct rpcrdma_chunk *returned,
			   uint64_t *total);

/* Bytes a read list of @n entries adds to a header. */
uint32_t rpcrdma_read_list_size(unsigned int n);
/* Bytes one write chunk or a Reply chunk of @nsegs segments adds. */
uint32_t rpcrdma_write_chunk_size(unsigned int nsegs);
uint32_t rpcrdma_reply_chunk_size(unsigned int nsegs);

#endif /* RPCRDMA_CHUNKS_H */
