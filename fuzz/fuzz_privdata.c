/*
 * Fuzz target: RFC 8797 connection private data.  Whatever the peer sends,
 * the sizes we take are 1 KiB..256 KiB in whole KiB (or the defaults when
 * it is not a version-1 offer), and our own encoding of what we decoded
 * decodes to the same.  The tail of the input also drives the encoder.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "rpc_rdma.h"

static void check_size(uint32_t v)
{
	FUZZ_CHECK(v >= RPCRDMA_CM_MIN_INLINE && v <= RPCRDMA_CM_MAX_INLINE);
	FUZZ_CHECK(v % 1024 == 0);
}

/* What the one octet can say about a size we want to offer. */
static uint32_t expect_size(uint32_t want)
{
	if (want < RPCRDMA_CM_MIN_INLINE)
		return RPCRDMA_CM_MIN_INLINE;
	if (want > RPCRDMA_CM_MAX_INLINE)
		return RPCRDMA_CM_MAX_INLINE;
	return want / 1024 * 1024;
}

static bool same(const struct rpcrdma_cm_private *a, const struct rpcrdma_cm_private *b)
{
	return a->pv_send_size == b->pv_send_size && a->pv_recv_size == b->pv_recv_size &&
	       a->pv_remote_inv == b->pv_remote_inv;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma_cm_private p, q;
	uint8_t enc[RPCRDMA_CM_PRIVATE_LEN];
	struct fuzz_in in = { data, size };
	uint32_t s, r;
	bool inv;
	int rc;

	rc = rpcrdma_cm_private_decode(data, size, &p);
	FUZZ_CHECK(rc == 0 || rc == -ENOMSG);
	check_size(p.pv_send_size);
	check_size(p.pv_recv_size);
	if (rc) {
		FUZZ_CHECK(p.pv_send_size == RPCRDMA_DEFAULT_INLINE &&
			   p.pv_recv_size == RPCRDMA_DEFAULT_INLINE &&
			   !p.pv_remote_inv);
	} else {
		FUZZ_CHECK(size >= RPCRDMA_CM_PRIVATE_LEN);
		FUZZ_CHECK(rpcrdma_cm_private_encode(enc, sizeof(enc), p.pv_send_size,
						     p.pv_recv_size, p.pv_remote_inv) ==
			   RPCRDMA_CM_PRIVATE_LEN);
		/* Byte for byte but the reserved flag bits, which we ignore. */
		FUZZ_CHECK(memcmp(enc, data, 5) == 0);
		FUZZ_CHECK(enc[5] == (data[5] & RPCRDMA_CM_F_REMOTE_INV));
		FUZZ_CHECK(memcmp(enc + 6, data + 6, 2) == 0);
		FUZZ_CHECK(rpcrdma_cm_private_decode(enc, sizeof(enc), &q) == 0);
		FUZZ_CHECK(same(&p, &q));
	}
	/* Padding after the eight bytes (RDMA-CM adds it) changes nothing. */
	if (size > RPCRDMA_CM_PRIVATE_LEN) {
		FUZZ_CHECK(rpcrdma_cm_private_decode(data, RPCRDMA_CM_PRIVATE_LEN, &q) == rc);
		FUZZ_CHECK(same(&p, &q));
	}

	/* The encoder, on sizes taken from the input. */
	s = fuzz_take(&in, 4);
	r = fuzz_take(&in, 4);
	inv = fuzz_take(&in, 1) & 1;
	FUZZ_CHECK(rpcrdma_cm_private_encode(enc, RPCRDMA_CM_PRIVATE_LEN - 1, s, r, inv) ==
		   -EMSGSIZE);
	FUZZ_CHECK(rpcrdma_cm_private_encode(enc, sizeof(enc), s, r, inv) ==
		   RPCRDMA_CM_PRIVATE_LEN);
	FUZZ_CHECK(rpcrdma_cm_private_decode(enc, sizeof(enc), &q) == 0);
	FUZZ_CHECK(q.pv_send_size == expect_size(s));
	FUZZ_CHECK(q.pv_recv_size == expect_size(r));
	FUZZ_CHECK(q.pv_remote_inv == inv);
	return 0;
}
