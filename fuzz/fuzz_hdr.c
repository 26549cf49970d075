/*
 * Fuzz target: the transport header decoder, every list and chunk.  A
 * header it accepts must lie inside the receive, re-encode to the very
 * bytes received and decode again to the same thing; one it refuses must
 * be refused for the reason its bytes give.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "rpc_rdma.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void check_lists(const struct rpcrdma_hdr *h)
{
	uint32_t i;

	FUZZ_CHECK(h->rh_nreads <= RPCRDMA_MAX_READ_SEGS);
	FUZZ_CHECK(h->rh_nwrites <= RPCRDMA_MAX_WRITE_CHUNKS);
	for (i = 0; i < h->rh_nwrites; i++)
		FUZZ_CHECK(h->rh_writes[i].rc_nsegs >= 1 &&
			   h->rh_writes[i].rc_nsegs <= RPCRDMA_MAX_CHUNK_SEGS);
	if (h->rh_has_reply)
		FUZZ_CHECK(h->rh_reply.rc_nsegs >= 1 &&
			   h->rh_reply.rc_nsegs <= RPCRDMA_MAX_CHUNK_SEGS);
	else
		FUZZ_CHECK(h->rh_reply.rc_nsegs == 0);
}

/* RDMA_MSG / RDMA_NOMSG: encode(decode(x)) is x's header, byte for byte. */
static void check_msg(const uint8_t *buf, const struct rpcrdma_hdr *h)
{
	static uint8_t enc[RPCRDMA_HDRLEN_MAX];
	struct rpcrdma_hdr again;
	ssize_t n;

	check_lists(h);
	FUZZ_CHECK(h->rh_hdrlen >= RPCRDMA_HDRLEN_MIN);
	if (h->rh_proc == RPCRDMA_NOMSG)
		FUZZ_CHECK(h->rh_nreads || h->rh_nwrites || h->rh_has_reply);
	n = rpcrdma_hdr_size(h);
	FUZZ_CHECK(n >= 0 && (size_t)n == h->rh_hdrlen);
	FUZZ_CHECK(rpcrdma_hdr_encode(enc, (size_t)n - 1, h) == -EMSGSIZE);
	n = rpcrdma_hdr_encode(enc, sizeof(enc), h);
	FUZZ_CHECK(n >= 0 && (size_t)n == h->rh_hdrlen);
	FUZZ_CHECK(memcmp(enc, buf, (size_t)n) == 0);
	FUZZ_CHECK(rpcrdma_hdr_decode(enc, (size_t)n, &again) == 0);
	FUZZ_CHECK(memcmp(&again, h, sizeof(again)) == 0);
}

static void check_error(const uint8_t *buf, const struct rpcrdma_hdr *h)
{
	uint8_t enc[RPCRDMA_HDRLEN_ERR_VERS];
	ssize_t n;

	FUZZ_CHECK(h->rh_nreads == 0 && h->rh_nwrites == 0 && !h->rh_has_reply);
	FUZZ_CHECK(h->rh_err == RPCRDMA_ERR_VERS || h->rh_err == RPCRDMA_ERR_CHUNK);
	FUZZ_CHECK(h->rh_hdrlen == (h->rh_err == RPCRDMA_ERR_VERS ?
				    RPCRDMA_HDRLEN_ERR_VERS : RPCRDMA_HDRLEN_ERR_CHUNK));
	FUZZ_CHECK(h->rh_vers_low == (h->rh_hdrlen > 20 ? be32(buf + 20) : 0));
	FUZZ_CHECK(h->rh_vers_high == (h->rh_hdrlen > 24 ? be32(buf + 24) : 0));
	/* Our own RDMA_ERROR for the same xid has the same 20-byte prefix. */
	n = rpcrdma_encode_error(enc, sizeof(enc), h->rh_xid, h->rh_credits, h->rh_err);
	FUZZ_CHECK(n >= 0 && (size_t)n == h->rh_hdrlen);
	FUZZ_CHECK(memcmp(enc, buf, RPCRDMA_HDRLEN_ERR_CHUNK) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma_hdr h, shorter;
	int rc = rpcrdma_hdr_decode(data, size, &h);

	FUZZ_CHECK(rc == 0 || rc == -ENODATA || rc == -EPROTONOSUPPORT ||
		   rc == -EBADMSG);
	FUZZ_CHECK((rc == -ENODATA) == (size < RPCRDMA_HDRLEN_FIXED));
	if (size >= 4)
		FUZZ_CHECK(h.rh_xid == be32(data));
	if (rc == -ENODATA)
		return 0;
	FUZZ_CHECK(h.rh_vers == be32(data + 4));
	FUZZ_CHECK((rc == -EPROTONOSUPPORT) == (h.rh_vers != RPCRDMA_VERSION));
	if (rc) {
		/* A refused header hands back no list that looks usable. */
		FUZZ_CHECK(h.rh_nreads == 0 && h.rh_nwrites == 0 && !h.rh_has_reply);
		FUZZ_CHECK(h.rh_hdrlen == 0);
		return 0;
	}
	FUZZ_CHECK(h.rh_credits == be32(data + 8) && h.rh_proc == be32(data + 12));
	FUZZ_CHECK(h.rh_hdrlen <= size);
	switch (h.rh_proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
		check_msg(data, &h);
		break;
	case RPCRDMA_ERROR:
		check_error(data, &h);
		break;
	default:
		FUZZ_CHECK(!"decoded an rdma_proc that is refused");
	}
	/* The header delimits itself: what follows it changes nothing ... */
	FUZZ_CHECK(rpcrdma_hdr_decode(data, h.rh_hdrlen, &shorter) == 0);
	FUZZ_CHECK(memcmp(&shorter, &h, sizeof(h)) == 0);
	/* ... and one byte less of it is an error, never a shorter header. */
	rc = rpcrdma_hdr_decode(data, h.rh_hdrlen - 1, &shorter);
	FUZZ_CHECK(rc == -EBADMSG || rc == -ENODATA);
	return 0;
}
