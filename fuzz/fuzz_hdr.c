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

	FUZZ_CHECK(h->hd_nreads <= RPCRDMA_MAX_READ_SEGS);
	FUZZ_CHECK(h->hd_nwrites <= RPCRDMA_MAX_WRITE_CHUNKS);
	for (i = 0; i < h->hd_nwrites; i++)
		FUZZ_CHECK(h->hd_writes[i].rc_nsegs >= 1 &&
			   h->hd_writes[i].rc_nsegs <= RPCRDMA_MAX_CHUNK_SEGS);
	if (h->hd_has_reply)
		FUZZ_CHECK(h->hd_reply.rc_nsegs >= 1 &&
			   h->hd_reply.rc_nsegs <= RPCRDMA_MAX_CHUNK_SEGS);
	else
		FUZZ_CHECK(h->hd_reply.rc_nsegs == 0);
}

/* RDMA_MSG / RDMA_NOMSG: encode(decode(x)) is x's header, byte for byte. */
static void check_msg(const uint8_t *buf, const struct rpcrdma_hdr *h)
{
	static uint8_t enc[RPCRDMA_HDRLEN_MAX];
	/* Zeroed: decoding leaves segments past a count as they were. */
	struct rpcrdma_hdr again;
	ssize_t n;

	memset(&again, 0, sizeof(again));

	check_lists(h);
	FUZZ_CHECK(h->hd_hdrlen >= RPCRDMA_HDRLEN_MIN);
	if (h->hd_proc == RPCRDMA_NOMSG)
		FUZZ_CHECK(h->hd_nreads || h->hd_nwrites || h->hd_has_reply);
	n = rpcrdma_hdr_size(h);
	FUZZ_CHECK(n >= 0 && (size_t)n == h->hd_hdrlen);
	FUZZ_CHECK(rpcrdma_hdr_encode(enc, (size_t)n - 1, h) == -EMSGSIZE);
	n = rpcrdma_hdr_encode(enc, sizeof(enc), h);
	FUZZ_CHECK(n >= 0 && (size_t)n == h->hd_hdrlen);
	FUZZ_CHECK(memcmp(enc, buf, (size_t)n) == 0);
	FUZZ_CHECK(rpcrdma_hdr_decode(enc, (size_t)n, &again) == 0);
	FUZZ_CHECK(memcmp(&again, h, sizeof(again)) == 0);
}

static void check_error(const uint8_t *buf, const struct rpcrdma_hdr *h)
{
	uint8_t enc[RPCRDMA_HDRLEN_ERR_VERS];
	ssize_t n;

	FUZZ_CHECK(h->hd_nreads == 0 && h->hd_nwrites == 0 && !h->hd_has_reply);
	FUZZ_CHECK(h->hd_err == RPCRDMA_ERR_VERS || h->hd_err == RPCRDMA_ERR_CHUNK);
	FUZZ_CHECK(h->hd_hdrlen == (h->hd_err == RPCRDMA_ERR_VERS ?
				    RPCRDMA_HDRLEN_ERR_VERS : RPCRDMA_HDRLEN_ERR_CHUNK));
	FUZZ_CHECK(h->hd_vers_low == (h->hd_hdrlen > 20 ? be32(buf + 20) : 0));
	FUZZ_CHECK(h->hd_vers_high == (h->hd_hdrlen > 24 ? be32(buf + 24) : 0));
	/* Our own RDMA_ERROR for the same xid has the same 20-byte prefix. */
	n = rpcrdma_encode_error(enc, sizeof(enc), h->hd_xid, h->hd_credits, h->hd_err);
	FUZZ_CHECK(n >= 0 && (size_t)n == h->hd_hdrlen);
	FUZZ_CHECK(memcmp(enc, buf, RPCRDMA_HDRLEN_ERR_CHUNK) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Zeroed: decoding leaves segments past a count as they were. */
	struct rpcrdma_hdr h = { 0 }, shorter = { 0 };
	int rc = rpcrdma_hdr_decode(data, size, &h);

	FUZZ_CHECK(rc == 0 || rc == -ENODATA || rc == -EPROTONOSUPPORT ||
		   rc == -EBADMSG);
	FUZZ_CHECK((rc == -ENODATA) == (size < RPCRDMA_HDRLEN_FIXED));
	if (size >= 4)
		FUZZ_CHECK(h.hd_xid == be32(data));
	if (rc == -ENODATA)
		return 0;
	FUZZ_CHECK(h.hd_vers == be32(data + 4));
	FUZZ_CHECK((rc == -EPROTONOSUPPORT) == (h.hd_vers != RPCRDMA_VERSION));
	if (rc) {
		/* A refused header hands back no list that looks usable. */
		FUZZ_CHECK(h.hd_nreads == 0 && h.hd_nwrites == 0 && !h.hd_has_reply);
		FUZZ_CHECK(h.hd_hdrlen == 0);
		return 0;
	}
	FUZZ_CHECK(h.hd_credits == be32(data + 8) && h.hd_proc == be32(data + 12));
	FUZZ_CHECK(h.hd_hdrlen <= size);
	switch (h.hd_proc) {
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
	FUZZ_CHECK(rpcrdma_hdr_decode(data, h.hd_hdrlen, &shorter) == 0);
	FUZZ_CHECK(memcmp(&shorter, &h, sizeof(h)) == 0);
	/* ... and one byte less of it is an error, never a shorter header. */
	rc = rpcrdma_hdr_decode(data, h.hd_hdrlen - 1, &shorter);
	FUZZ_CHECK(rc == -EBADMSG || rc == -ENODATA);
	return 0;
}
