/*
 * The client's side of chunks: turning a planned Call into registrations
 * and a transport header (read list, Write chunk, Reply chunk), checking
 * what the Reply returned against that offer, and saying where the RPC
 * Reply to decode is.  One struct per call slot, allocated with it.
 */
#ifndef RPCRDMA_CLNT_CHUNKS_H
#define RPCRDMA_CLNT_CHUNKS_H

#include <stdbool.h>
#include "chunks.h"
#include "rdma_reg.h"
#include "transport.h"
#include "xdr_dec.h"

struct rpcrdma_req_chunks {
	struct rpcrdma_regset qc_regs;
	char *qc_reply_buf;		/* the slot's Reply chunk target */
	uint32_t qc_reply_cap;		/* its size (ro_max_reply) */
	/*
	 * Where the device has type 2 memory windows, the Reply chunk is a
	 * window over qc_reply_buf bound per RPC (set up on the slot's first
	 * Reply chunk); else a per-RPC MR like every other chunk.
	 */
	bool qc_mw_allowed, qc_mw_ready, qc_mw_bound;
	struct rpcrdma_mw qc_mw;
	uint32_t qc_mw_gen;		/* the connection (rx_conn_gen) it was made on */
	bool qc_has_write, qc_has_reply;/* offered on this call */
	struct rpcrdma_chunk qc_write;	/* the Write chunk offered */
	struct rpcrdma_chunk qc_reply;	/* the Reply chunk offered */
	struct rpcrdma_result_buf *qc_rb; /* the caller's zero-copy request */
	struct rpcrdma_ddp_target qc_ddp;
	enum rpcrdma_call_kind qc_kind;
	uint64_t qc_read_bytes;		/* Read chunk bytes offered */
	unsigned int qc_nregs;		/* registrations made for this call */
	/* Filled from the Reply (rpcrdma_clnt_check_reply). */
	bool qc_nomsg;
	uint32_t qc_reply_len;		/* bytes in the Reply chunk */
	uint32_t qc_hdrlen;
	uint8_t qc_hdr[RPCRDMA_HDRLEN_MAX];	/* the Call's transport header */
};

/*
 * Plan @xb for this connection, register what the plan and the Reply
 * need (@max_reply: the Reply's bound, 0 unknown; @rb: zero-copy buffer
 * or NULL) and encode the transport header into qc_hdr.  *@send gets
 * what the Send carries after the header.  0 or a negative errno
 * (-EMSGSIZE: no plan fits; -ENOMEM: registration failed); on error
 * nothing stays registered.
 */
int rpcrdma_clnt_marshal(struct rpcrdma_xprt *x, struct rpcrdma_req_chunks *qc,
			 uint32_t xid, const struct rpcrdma_xdr_buf *xb,
			 uint32_t max_reply, struct rpcrdma_result_buf *rb,
			 struct rpcrdma_xdr_buf *send);

/*
 * A Reply for this call arrived with header @h (RDMA_MSG or RDMA_NOMSG):
 * its write list and Reply chunk must be ones we offered, with lengths
 * within the offer.  0 or -EBADMSG.  Counts into @st.
 */
int rpcrdma_clnt_check_reply(struct rpcrdma_req_chunks *qc,
			     const struct rpcrdma_hdr *h,
			     struct rpcrdma_stats *st);

/*
 * For the marshal probe (probes.h): the Call's chunk type and the
 * chunks offered for the Reply, as the kernel's xprtrdma_marshal names
 * them.  A table look-up, so that probes cost nothing when not traced.
 */
static inline const char *rpcrdma_call_kind_name(enum rpcrdma_call_kind k)
{
	return k == RPCRDMA_CALL_READCH ? "read list" :
	       k == RPCRDMA_CALL_LONGCH ? "long call" : "inline";
}

static inline const char *
rpcrdma_reply_kind_name(const struct rpcrdma_req_chunks *qc)
{
	static const char *const names[4] = {
		"none", "write list", "reply chunk", "write list+reply chunk",
	};

	return names[(qc->qc_has_write ? 1 : 0) | (qc->qc_has_reply ? 2 : 0)];
}

/* Count what marshal did (lock held). */
void rpcrdma_clnt_count_call(const struct rpcrdma_req_chunks *qc,
			     struct rpcrdma_stats *st);

/*
 * Revoke remote access (all, or @caller_only).  Returns how many
 * registrations went, for rs_chunk_deregs.  A window is invalidated by
 * a work request when @can_post (the connection it was bound on is up);
 * else it died with its QP (a type 2 window answers only that QP) and is
 * just marked unbound.
 */
unsigned int rpcrdma_clnt_release(struct rpcrdma_xprt *x,
				  struct rpcrdma_req_chunks *qc, int caller_only,
				  bool can_post);

/*
 * A Reply's Send invalidated rkey here (Send With Invalidate): 0 if it is
 * none of this call's (nothing changes: each of this call's rkeys is still
 * revoked by the client itself); 1 if it is one of its per-RPC MRs (still
 * deregistered by rpcrdma_clnt_release, which frees it); 2 if it is its
 * window, now unbound with no work request (revoked: count it as such).
 */
int rpcrdma_clnt_remote_inv(struct rpcrdma_req_chunks *qc, uint32_t rkey);

/* Set up the slot's window now (its first Reply chunk; counted in
 * rs_window_pinned): 0 or -EOPNOTSUPP.  And undo it, before the
 * endpoint goes. */
int rpcrdma_clnt_mw_setup(struct rpcrdma_xprt *x, struct rpcrdma_req_chunks *qc);
void rpcrdma_clnt_mw_fini(struct rpcrdma_xprt *x, struct rpcrdma_req_chunks *qc);

#endif /* RPCRDMA_CLNT_CHUNKS_H */
