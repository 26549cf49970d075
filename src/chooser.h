/*
 * The Send chooser: given an outgoing message's shape and the device and
 * peer limits, pick how the Send carries it (inline, pull-up, mapped, or
 * "needs chunks"), and plan its gather list.  Pure logic, no verbs.
 */
#ifndef RPCRDMA_CHOOSER_H
#define RPCRDMA_CHOOSER_H

#include <stdbool.h>
#include <stdint.h>

#include "xdr_buf.h"

/* How one RPC message travels (the kernel's enum rpcrdma_chunktype). */
enum rpcrdma_chunktype {
	RPCRDMA_NOCH_INLINE,	/* IBV_SEND_INLINE from CPU addresses, no lkey */
	RPCRDMA_NOCH_PULLUP,	/* one copy into the registered send buffer */
	RPCRDMA_NOCH_MAPPED,	/* header + one SGE per segment, no copy */
	RPCRDMA_READCH,		/* Call with a read list carrying bulk data */
	RPCRDMA_AREADCH,	/* Call entirely in a position-zero read chunk */
	RPCRDMA_WRITECH,	/* Reply bulk data pushed through a write list */
	RPCRDMA_REPLYCH,	/* Reply entirely in a reply chunk */
};

/* What the caller asks for: AUTO decides per message, others force. */
enum rpcrdma_strategy {
	RPCRDMA_STRAT_AUTO,
	RPCRDMA_STRAT_INLINE,
	RPCRDMA_STRAT_PULLUP,
	RPCRDMA_STRAT_MAPPED,
};

/* Why the preferred strategy was not used (the first reason found). */
enum rpcrdma_fallback {
	RPCRDMA_FB_NONE,		/* the preference was honoured */
	RPCRDMA_FB_TOO_MANY_SGES,	/* header + segments > max_send_sge */
	RPCRDMA_FB_TOO_BIG_FOR_INLINE,	/* Send > granted max_inline_data */
	RPCRDMA_FB_TOO_BIG_FOR_SENDBUF,	/* Send (pull-up) or header (mapped)
					   > the registered send buffer */
	RPCRDMA_FB_NOT_MAPPABLE,	/* referenced memory has no lkey */
	RPCRDMA_FB_TOO_BIG_FOR_PEER,	/* Send > peer's inline threshold */
};

/* Short identifiers for counters, logs and man pages; "unknown" if bad. */
const char *rpcrdma_chunktype_name(enum rpcrdma_chunktype t);
const char *rpcrdma_strategy_name(enum rpcrdma_strategy s);
const char *rpcrdma_fallback_name(enum rpcrdma_fallback f);
/* The strategy named @name (as strategy_name() spells it), or -EINVAL. */
int rpcrdma_strategy_from_name(const char *name);

/* What one connection can do; all sizes count transport header included. */
struct rpcrdma_send_limits {
	uint32_t sl_max_inline;	/* QP's granted max_inline_data; 0 = none */
	uint32_t sl_max_sge;	/* QP's granted max_send_sge (>= 1) */
	uint32_t sl_sendbuf;	/* bytes in one registered send buffer */
	uint32_t sl_peer_inline;/* peer's inline receive threshold */
	uint32_t sl_inline_cutoff; /* auto: inline if Send <= this; 0 = never */
	uint32_t sl_mapped_min;	/* auto: map if referenced bytes >= this;
				   0 = never */
};

/* Everything the choice depends on, taken from one message. */
struct rpcrdma_msg_shape {
	uint32_t ms_hdrlen;	/* transport header bytes */
	uint32_t ms_msglen;	/* RPC message bytes (rpcrdma_xdrbuf_len) */
	unsigned int ms_nsegs;	/* non-empty segments */
	unsigned int ms_nrefs;	/* of which reference caller memory */
	uint32_t ms_refbytes;	/* bytes in referenced segments */
	bool ms_mappable;	/* every reference has an lkey (or may get one) */
};

/* The outcome of rpcrdma_choose(). */
struct rpcrdma_choice {
	enum rpcrdma_chunktype ch_type;
	enum rpcrdma_fallback ch_fallback;
	unsigned int ch_nsge;	/* SGEs the Send will use */
};

/*
 * Shape of @xb sent behind a @hdrlen-byte transport header; @mappable
 * says whether its referenced segments can be given lkeys (caller-
 * registered memory, or an MR cache is allowed to register them).
 */
void rpcrdma_msg_shape_of(const struct rpcrdma_xdr_buf *xb, uint32_t hdrlen,
			  bool mappable, struct rpcrdma_msg_shape *ms);

/*
 * Pick the chunk type for one Send.  AUTO prefers by size (see
 * chooser.c); a preferred or forced strategy that cannot carry the
 * message falls back to the others in the order inline, pull-up, mapped,
 * and ch_fallback says why the first choice failed.
 * Returns 0; -EMSGSIZE when no Send can carry the message, so chunks are
 * needed (ch_type: the preferred type; ch_fallback: TOO_BIG_FOR_PEER, or
 * the first reason); -EINVAL for an unknown strategy or sl_max_sge == 0.
 */
int rpcrdma_choose(const struct rpcrdma_msg_shape *ms,
		   const struct rpcrdma_send_limits *sl,
		   enum rpcrdma_strategy forced, struct rpcrdma_choice *out);

/*
 * The largest message (header included) a chunk planner may leave to one
 * Send, for a message of this shape (ms_hdrlen: the header's bound): the
 * peer's limit when the message could be mapped, its header and copied
 * bytes in a send buffer; else what a send buffer holds, so that no
 * message is planned inline that no strategy can carry.
 */
uint32_t rpcrdma_send_plan_max(const struct rpcrdma_msg_shape *ms,
			       const struct rpcrdma_send_limits *sl);

/* Where one planned SGE's bytes live, hence which lkey the verbs layer uses. */
enum rpcrdma_sge_src {
	RPCRDMA_PS_HDR,		/* the registered send buffer (the header, or
				   with pull-up the whole Send) */
	RPCRDMA_PS_SCRATCH,	/* a copied segment, in the registered scratch */
	RPCRDMA_PS_CALLER,	/* a referenced segment, in caller memory */
};

struct rpcrdma_plan_sge {
	const void *pg_addr;	/* NULL for pull-up: the send buffer, caller's */
	uint32_t pg_len;
	enum rpcrdma_sge_src pg_src;
};

/* A gather list to be turned into ibv_sge by the verbs layer. */
struct rpcrdma_sge_plan {
	unsigned int sp_nsge;
	struct rpcrdma_plan_sge sp_sge[RPCRDMA_XDRBUF_MAX_SEGS + 1];
};

/*
 * Plan the SGEs of a Send of type @type: INLINE and MAPPED give the header
 * then one SGE per non-empty segment, in order, merging nothing; PULLUP
 * gives one SGE of the total length with pg_addr NULL.  Returns 0;
 * -EINVAL for a missing header or an unknown type; -EOPNOTSUPP for the
 * chunk types (not planned here yet); -EMSGSIZE if a pull-up total
 * overflows 32 bits.
 */
int rpcrdma_plan_sges(enum rpcrdma_chunktype type, const void *hdr,
		      uint32_t hdrlen, const struct rpcrdma_xdr_buf *xb,
		      struct rpcrdma_sge_plan *plan);

#endif /* RPCRDMA_CHOOSER_H */
