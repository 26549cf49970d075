/*
 * The Responder's chunk planning (RFC 8166 sections 3.5 and 3.6): where
 * a Call's Read chunks land when it is reassembled, and how many bytes of
 * a Reply go into each segment of a Write or Reply chunk.  Pure logic on
 * decoded headers: no verbs, no allocation; hostile input is refused.
 */
#ifndef RPCRDMA_RCHUNKS_H
#define RPCRDMA_RCHUNKS_H

#include <stdint.h>
#include "rpc_rdma.h"

/* One RDMA Read: a peer segment into the reassembled Call at pl_dst. */
struct rpcrdma_pull {
	uint32_t pl_dst;
	struct rpcrdma_segment pl_seg;
};

/* Bytes of the inline part copied into the reassembled Call. */
struct rpcrdma_copy {
	uint32_t cy_src;		/* offset in the inline RPC message */
	uint32_t cy_dst;
	uint32_t cy_len;
};

/* Zero bytes: the XDR roundup a Read chunk leaves out. */
struct rpcrdma_zero {
	uint32_t zr_dst;
	uint32_t zr_len;
};

/*
 * How to rebuild a Call that came with a read list.  The reassembled
 * message is cm_len bytes: inline pieces, chunk data and roundup, in
 * XDR order.
 */
struct rpcrdma_call_map {
	uint32_t cm_len;
	uint64_t cm_chunk_bytes;	/* bytes the Reads move */
	unsigned int cm_npulls;
	struct rpcrdma_pull cm_pulls[RPCRDMA_MAX_READ_SEGS];
	unsigned int cm_ncopies;
	struct rpcrdma_copy cm_copies[RPCRDMA_MAX_READ_SEGS + 1];
	unsigned int cm_nzeros;
	struct rpcrdma_zero cm_zeros[RPCRDMA_MAX_READ_SEGS];
};

/*
 * Compile-time ceiling of max_chunk_bytes: the size of the per-slot
 * buffers a Call is reassembled in and a chunked Reply is encoded in.
 */
#define RPCRDMA_SVC_CHUNK_BYTES	((4u << 20) + (64u << 10))

/*
 * What one Call may ask of the Responder (rpcrdma.conf(5) max_chunk_bytes,
 * max_chunk_segs, max_chunks) and the buffer its Call is rebuilt in.  The
 * codec parses up to its arrays; anything past these is refused here,
 * before a byte is allocated or moved.
 */
struct rpcrdma_chunk_limits {
	uint32_t lm_max_bytes;		/* chunk bytes one Call's Reads move,
					 * and, apart, one Reply's Writes */
	uint32_t lm_max_segs;		/* segments in one chunk */
	uint32_t lm_max_chunks;		/* Read chunks (positions) in a read
					 * list; Write chunks in a write list */
	uint32_t lm_max_call;		/* bytes of the reassembled Call */
	uint32_t lm_no_reads;		/* the peer serves no RDMA Reads (its
					 * responder resources were 0) */
};

/* The limits when only the Call's size is bounded: the codec's own. */
static inline struct rpcrdma_chunk_limits rpcrdma_limits_max_call(uint32_t max_call)
{
	struct rpcrdma_chunk_limits lim = {
		.lm_max_bytes = UINT32_MAX,
		.lm_max_segs = RPCRDMA_MAX_CHUNK_SEGS,
		.lm_max_chunks = RPCRDMA_MAX_READ_SEGS,
		.lm_max_call = max_call,
	};

	return lim;
}

/*
 * Plan the reassembly of the Call described by h (RDMA_MSG or RDMA_NOMSG
 * with a read list) whose inline RPC message is inline_len bytes.
 *
 * RDMA_NOMSG: every segment has position 0; the Call is their data in
 * order (one chunk), and nothing may come inline.  RDMA_MSG: segments of
 * one position form one chunk; positions are XDR offsets in the whole
 * Call, so a chunk begins where the inline bytes before it and the
 * earlier chunks (with their roundup) end; position 0 is refused (that is
 * RDMA_NOMSG's).
 *
 * Returns 0; -EBADMSG for a read list that cannot describe a Call
 * (positions out of order or past the message, position 0 with
 * RDMA_MSG, inline data with RDMA_NOMSG, a segment whose remote range
 * wraps); -EMSGSIZE for one over a limit of lim: more than lm_max_segs
 * segments in a chunk, more than lm_max_chunks chunks, more than
 * lm_max_bytes of chunk data (summed in 64 bits), or a Call longer than
 * lm_max_call.  Both are answered with ERR_CHUNK, before anything is
 * allocated.
 */
int rpcrdma_map_call(const struct rpcrdma_hdr *h, uint32_t inline_len,
		     const struct rpcrdma_chunk_limits *lim,
		     struct rpcrdma_call_map *m);

/*
 * Check the Write list and Reply chunk a Call offers against lim, before
 * the Call is served: at most lm_max_chunks Write chunks, at most
 * lm_max_segs segments in each and in the Reply chunk (-EMSGSIZE), no
 * segment whose remote range wraps 64 bits (-EBADMSG).  What the
 * Responder then writes is bounded by lm_max_bytes (rpcrdma_reply_fits).
 */
int rpcrdma_check_chunks(const struct rpcrdma_hdr *h,
			 const struct rpcrdma_chunk_limits *lim);

/* May one Reply RDMA Write bytes bytes (summed over its chunks)? */
static inline int rpcrdma_reply_fits(const struct rpcrdma_chunk_limits *lim,
				     uint64_t bytes)
{
	return bytes <= lim->lm_max_bytes;
}

/*
 * Check a Write or Reply chunk the Requester offered: no segment's remote
 * range wraps 64 bits (offset + length may be at most 2^64 - 1).
 * Returns its capacity in bytes (summed in 64 bits), or -EBADMSG.
 */
int64_t rpcrdma_chunk_capacity(const struct rpcrdma_chunk *ch);

/*
 * Spread len bytes over ch's segments in order, filling each before the
 * next: written gets ch's segments with the lengths actually used (0 for
 * the ones left empty).  Returns 0, or -EMSGSIZE if ch holds less.
 */
int rpcrdma_fill_chunk(const struct rpcrdma_chunk *ch, uint64_t len,
		       struct rpcrdma_chunk *written);

#endif /* RPCRDMA_RCHUNKS_H */
