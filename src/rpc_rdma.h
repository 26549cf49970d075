/*
 * RPC-over-RDMA Version 1 transport header codec (RFC 8166 section 4) and
 * RFC 8797 connection private data.  Pure byte-buffer work: no verbs, no
 * I/O, no allocation; every function is safe to call on hostile input.
 */
#ifndef RPCRDMA_RPC_RDMA_H
#define RPCRDMA_RPC_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- wire constants (RFC 8166 section 4.2) ------------------------------ */

#define RPCRDMA_VERSION		1	/* the only rdma_vers we speak */

/* rdma_proc */
#define RPCRDMA_MSG		0	/* RPC message follows the header inline */
#define RPCRDMA_NOMSG		1	/* RPC message is in a chunk, not inline */
#define RPCRDMA_MSGP		2	/* deprecated (section 4.6.1), refused */
#define RPCRDMA_DONE		3	/* deprecated (section 4.6.2), refused */
#define RPCRDMA_ERROR		4	/* transport-level error report */

/* rdma_err, in an RDMA_ERROR body */
#define RPCRDMA_ERR_VERS	1	/* followed by low and high version */
#define RPCRDMA_ERR_CHUNK	2

/* xid, vers, credits, proc: the prefix every version shares. */
#define RPCRDMA_HDRLEN_FIXED	16
/* RDMA_MSG/RDMA_NOMSG with all three lists absent: fixed + three 0 words. */
#define RPCRDMA_HDRLEN_MIN	28
/* RDMA_ERROR: fixed + rdma_err, plus low/high for ERR_VERS. */
#define RPCRDMA_HDRLEN_ERR_CHUNK 20
#define RPCRDMA_HDRLEN_ERR_VERS	28

/* Encoded sizes of list items. */
#define RPCRDMA_SEGMENT_SIZE	16	/* handle, length, offset (8) */
#define RPCRDMA_READ_SEGMENT_SIZE 20	/* position + segment */

/*
 * How much of a header we are willing to represent.  A header that carries
 * more is refused with -EBADMSG (the peer gets ERR_CHUNK); nothing is
 * ever written past these arrays.
 */
#define RPCRDMA_MAX_READ_SEGS	16	/* read list entries */
#define RPCRDMA_MAX_WRITE_CHUNKS 4	/* write list entries */
#define RPCRDMA_MAX_CHUNK_SEGS	16	/* segments in a write/reply chunk */

/* Largest header the encoder can produce with the bounds above. */
#define RPCRDMA_HDRLEN_MAX						\
	(RPCRDMA_HDRLEN_FIXED +						\
	 RPCRDMA_MAX_READ_SEGS * (4 + RPCRDMA_READ_SEGMENT_SIZE) + 4 +	\
	 RPCRDMA_MAX_WRITE_CHUNKS *					\
		(4 + 4 + RPCRDMA_MAX_CHUNK_SEGS * RPCRDMA_SEGMENT_SIZE) + 4 + \
	 4 + 4 + RPCRDMA_MAX_CHUNK_SEGS * RPCRDMA_SEGMENT_SIZE)

/* ---- decoded header ---------------------------------------------------- */

/* One registered memory region of the peer (RFC 8166 section 4.1). */
struct rpcrdma_segment {
	uint32_t se_handle;		/* steering tag (rkey) */
	uint32_t se_length;		/* bytes */
	uint64_t se_offset;		/* remote address */
};

/* A read list entry: a segment and where its data sits in the XDR stream. */
struct rpcrdma_read_segment {
	uint32_t rd_position;		/* XDR position; 0 = whole RPC message */
	struct rpcrdma_segment rd_seg;
};

/* A write chunk or the reply chunk: a counted array of segments. */
struct rpcrdma_chunk {
	uint32_t rc_nsegs;		/* 1..RPCRDMA_MAX_CHUNK_SEGS */
	struct rpcrdma_segment rc_segs[RPCRDMA_MAX_CHUNK_SEGS];
};

struct rpcrdma_hdr {
	uint32_t hd_xid;		/* host order, like every field here */
	uint32_t hd_vers;
	uint32_t hd_credits;
	uint32_t hd_proc;

	/* RDMA_MSG / RDMA_NOMSG */
	uint32_t hd_nreads;
	struct rpcrdma_read_segment hd_reads[RPCRDMA_MAX_READ_SEGS];
	uint32_t hd_nwrites;
	struct rpcrdma_chunk hd_writes[RPCRDMA_MAX_WRITE_CHUNKS];
	bool hd_has_reply;
	struct rpcrdma_chunk hd_reply;

	/* RDMA_ERROR */
	uint32_t hd_err;		/* RPCRDMA_ERR_VERS or RPCRDMA_ERR_CHUNK */
	uint32_t hd_vers_low;		/* ERR_VERS only */
	uint32_t hd_vers_high;		/* ERR_VERS only */

	/*
	 * Bytes of transport header decoded.  For RDMA_MSG the RPC message
	 * begins here (it may equal the receive length; whether an empty
	 * message is acceptable is the RPC layer's call).
	 */
	size_t hd_hdrlen;
};

/*
 * An empty header: counts, scalars and every chunk's segment count zero;
 * segments past a count are left as they were (nothing reads them).
 */
void rpcrdma_hdr_clear(struct rpcrdma_hdr *h);

/*
 * Decode the transport header at the start of a received message of
 * len bytes.  h is overwritten in every case (its counts and scalars
 * zeroed first, segments past a count left as they were); the buffer
 * is only read, never beyond len, and may have any alignment.
 *
 * Returns, and what a Responder does with each (a Requester decoding a
 * Reply never answers: on any error it discards the Reply):
 *
 *   0                success; h describes RDMA_MSG, RDMA_NOMSG or
 *                    RDMA_ERROR, and hd_hdrlen <= len.
 *
 *   -ENODATA         fewer than RPCRDMA_HDRLEN_FIXED (16) bytes: not even
 *                    the xid/vers/credits/proc prefix that every version
 *                    of the protocol begins with, so the message cannot
 *                    be attributed to a version or answered.  DROP it.
 *                    hd_xid is filled when len >= 4, for logging only.
 *
 *   -EPROTONOSUPPORT rdma_vers is not 1.  RFC 8166 section 4.5.1: reply
 *                    RDMA_ERROR/ERR_VERS listing the versions we support
 *                    (rpcrdma_encode_error does).  hd_xid and hd_vers
 *                    are valid; nothing past the prefix was examined.
 *
 *   -EBADMSG         version 1, but the header cannot be used: unknown
 *                    rdma_proc (section 4.5.2); RDMA_MSGP or RDMA_DONE
 *                    (deprecated, section 4.6); an XDR error (section
 *                    4.5.3) such as a list discriminator that is not 0 or
 *                    1, a list or chunk running past the end of the
 *                    receive, a chunk of zero segments, an RDMA_NOMSG
 *                    with no chunks at all, an RDMA_ERROR with an
 *                    unknown rdma_err; or more read segments, write
 *                    chunks or chunk segments than the bounds above.
 *                    Reply RDMA_ERROR/ERR_CHUNK.  hd_xid, hd_vers,
 *                    hd_credits and hd_proc are valid; the lists are not.
 *
 *   -EINVAL          buf or h is NULL (a caller bug, not a wire error).
 */
int rpcrdma_hdr_decode(const void *buf, size_t len, struct rpcrdma_hdr *h);

/*
 * Encoded size of h as an RDMA_MSG or RDMA_NOMSG header, or -EINVAL if h
 * cannot be encoded (see rpcrdma_hdr_encode).  Lets a caller work out how
 * much inline room is left for the RPC message before encoding.
 */
ssize_t rpcrdma_hdr_size(const struct rpcrdma_hdr *h);

/*
 * Encode h (hd_proc RDMA_MSG or RDMA_NOMSG, with its read list, write
 * list and reply chunk) into buf.  rdma_vers is always written as 1;
 * hd_vers and the RDMA_ERROR fields are ignored.  For RDMA_MSG the caller
 * appends the RPC message at the returned offset.
 *
 * Returns the number of bytes written; -EMSGSIZE if len is too small
 * (nothing is written then); -EINVAL if buf or h is NULL or h is not
 * encodable: another
 * proc, counts beyond the bounds, a chunk with no segments, or an
 * RDMA_NOMSG with no chunk to carry the message (the receiver would
 * answer ERR_CHUNK).
 */
ssize_t rpcrdma_hdr_encode(void *buf, size_t len, const struct rpcrdma_hdr *h);

/*
 * Encode an RDMA_ERROR header answering the message whose xid is given.
 * err RPCRDMA_ERR_VERS also carries our supported range, 1..1
 * (RPCRDMA_HDRLEN_ERR_VERS bytes); RPCRDMA_ERR_CHUNK is
 * RPCRDMA_HDRLEN_ERR_CHUNK bytes.  xid is the host-order value from
 * hd_xid.  Returns bytes written, -EMSGSIZE if len is too small,
 * -EINVAL for any other err or a NULL buf.
 */
ssize_t rpcrdma_encode_error(void *buf, size_t len, uint32_t xid,
			     uint32_t credits, uint32_t err);

/* ---- RFC 8797 connection private data ---------------------------------- */

#define RPCRDMA_CM_MAGIC	0xf6ab0e18u	/* Format Identifier */
#define RPCRDMA_CM_VERSION	1
#define RPCRDMA_CM_F_REMOTE_INV	0x01	/* we accept Send With Invalidate */
#define RPCRDMA_CM_PRIVATE_LEN	8

/* Inline threshold each way when the peer offers nothing (RFC 8166 3.3.2). */
#define RPCRDMA_DEFAULT_INLINE	1024
/* Range one octet can express: (0..255 + 1) * 1024. */
#define RPCRDMA_CM_MIN_INLINE	1024
#define RPCRDMA_CM_MAX_INLINE	(256 * 1024)

struct rpcrdma_cm_private {
	uint32_t pv_send_size;		/* largest Send the sender will post */
	uint32_t pv_recv_size;		/* largest Send the sender can receive */
	bool pv_remote_inv;		/* sender accepts Send With Invalidate */
};

/*
 * Encode our offer into buf.  Sizes are sent as size/1024 - 1 in one
 * octet, so they are clamped to 1 KiB..256 KiB and rounded down to a
 * multiple of 1 KiB; a caller using other sizes must then honour the
 * rounded values itself.  Returns RPCRDMA_CM_PRIVATE_LEN, -EMSGSIZE if
 * len < RPCRDMA_CM_PRIVATE_LEN, or -EINVAL for a NULL buf.
 */
ssize_t rpcrdma_cm_private_encode(void *buf, size_t len, uint32_t send_size,
				  uint32_t recv_size, bool remote_inv);

/*
 * Decode the peer's private data (buf may be NULL, len may be 0 or larger
 * than 8: RDMA-CM pads it).  p is always filled in:
 *   0        a version-1 offer was found; p holds the peer's sizes.
 *   -ENOMSG  none, too short, wrong Format Identifier or an unknown
 *            version: RFC 8797 says to ignore it, so p holds
 *            RPCRDMA_DEFAULT_INLINE each way and no remote invalidation.
 */
int rpcrdma_cm_private_decode(const void *buf, size_t len,
			      struct rpcrdma_cm_private *p);

/*
 * A responder's buffer sizes fitted to the requester's (decoded) private
 * data: send buffers no larger than it can receive (RFC 8166's 1 KiB if
 * it offered nothing); receive buffers no larger than the largest Send it
 * said it will post, when it offered (RFC 8797).  Never grows a size.
 */
void rpcrdma_cm_fit(const struct rpcrdma_cm_private *peer, bool offered,
		    uint32_t *send_size, uint32_t *recv_size);

/*
 * Whether an RPC Call, its first len bytes at call (from its xid on, at
 * least through its credential's service field), carries an RPCSEC_GSS
 * DATA credential with integrity or privacy (RFC 2203 5.3.2): its
 * arguments and its results then travel as one opaque the GSS layer
 * checksums or seals, so nothing in them may be placed by RDMA (no Read
 * or Write chunk items: such messages go inline or as Long Calls and
 * Replies, RFC 8166 3.5.4), and the encoder must see them contiguous.
 */
bool rpcrdma_call_wraps_body(const void *call, size_t len);

/*
 * Whether an RPC Call (its first len bytes, through its credential's
 * flavour) carries an RPCSEC_GSS credential, whatever its procedure:
 * libtirpc's svcauth_gss keeps one context per connection with one
 * sequence number and window, unlocked, so a threaded server serves such
 * Calls of one connection one at a time.
 */
bool rpcrdma_call_is_gss(const void *call, size_t len);

#endif /* RPCRDMA_RPC_RDMA_H */
