/*
 * Fuzz target: the server's path from a received buffer to the
 * dispatcher, with no device.  The verdict must follow from the header,
 * the Call it points at must lie in the receive (or, rebuilt from Read
 * chunks, be tiled exactly by the map), and an
 * RPC call header libtirpc decodes from it must re-encode to its bytes.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <rpc/rpc.h>

#include "fuzz.h"
#include "svc_recv.h"

/* Smaller than the server's limit, so rebuilding stays cheap; the
 * decision is the same arithmetic at any limit. */
#define FUZZ_MAX_CALL	(64u << 10)

static uint8_t call[FUZZ_MAX_CALL], seen[FUZZ_MAX_CALL];

static void place(uint32_t off, uint64_t len, uint32_t total)
{
	uint32_t i;

	FUZZ_CHECK(off <= total && len <= total - off);
	for (i = 0; i < len; i++) {
		FUZZ_CHECK(!seen[off + i]);
		seen[off + i] = 1;
	}
}

/*
 * An RDMA Read: the "remote memory" is the received bytes themselves,
 * from se_offset on, wrapping, so the fuzzer also chooses what a Read
 * brings (a long Call's RPC header included).
 */
static void pull(uint8_t *dst, const struct rpcrdma_segment *seg, const uint8_t *mem,
		 uint32_t memlen)
{
	uint32_t done = 0, at = (uint32_t)(seg->se_offset % memlen), n;

	while (done < seg->se_length) {
		n = memlen - at;
		if (n > seg->se_length - done)
			n = seg->se_length - done;
		memcpy(dst + done, mem + at, n);
		done += n;
		at = 0;
	}
}

/* Lay the Call out as svc_rdma_pull_call does. */
static uint32_t rebuild(const struct svc_rdma_recv *rv, const uint8_t *inl)
{
	const struct rpcrdma_call_map *m = &rv->rv_map;
	uint32_t i;

	FUZZ_CHECK(m->cm_len <= FUZZ_MAX_CALL);
	memset(seen, 0, m->cm_len);
	for (i = 0; i < m->cm_ncopies; i++) {
		const struct rpcrdma_copy *c = &m->cm_copies[i];

		FUZZ_CHECK(c->cy_src <= rv->rv_len && c->cy_len <= rv->rv_len - c->cy_src);
		place(c->cy_dst, c->cy_len, m->cm_len);
		memcpy(call + c->cy_dst, inl + c->cy_src, c->cy_len);
	}
	for (i = 0; i < m->cm_npulls; i++) {
		place(m->cm_pulls[i].pl_dst, m->cm_pulls[i].pl_seg.se_length, m->cm_len);
		pull(call + m->cm_pulls[i].pl_dst, &m->cm_pulls[i].pl_seg, inl - rv->rv_off,
		     rv->rv_off + rv->rv_len);
	}
	for (i = 0; i < m->cm_nzeros; i++) {
		place(m->cm_zeros[i].zr_dst, m->cm_zeros[i].zr_len, m->cm_len);
		memset(call + m->cm_zeros[i].zr_dst, 0, m->cm_zeros[i].zr_len);
	}
	for (i = 0; i < m->cm_len; i++)
		FUZZ_CHECK(seen[i]);
	return m->cm_len;
}

static u_int pad4(u_int n)
{
	return (4 - (n & 3)) & 3;
}

/* What the dispatcher gets: libtirpc's Call header, as svc_rdma.c reads it. */
static void decode_call(uint8_t *msg, uint32_t len)
{
	static char cred[MAX_AUTH_BYTES], verf[MAX_AUTH_BYTES];
	static uint8_t enc[2 * MAX_AUTH_BYTES + 64];
	struct rpc_msg m;
	u_int used, cl, vl, v;
	XDR x;

	memset(&m, 0, sizeof(m));
	m.rm_call.cb_cred.oa_base = cred;
	m.rm_call.cb_verf.oa_base = verf;
	xdrmem_create(&x, (char *)msg, len, XDR_DECODE);
	if (!xdr_callmsg(&x, &m))
		return;		/* svc_rdma.c counts it and drops it */
	used = xdr_getpos(&x);
	FUZZ_CHECK(used <= len && used % 4 == 0);
	FUZZ_CHECK(m.rm_direction == CALL);
	FUZZ_CHECK(m.rm_call.cb_cred.oa_length <= MAX_AUTH_BYTES &&
		   m.rm_call.cb_verf.oa_length <= MAX_AUTH_BYTES);
	FUZZ_CHECK(m.rm_call.cb_cred.oa_base == cred && m.rm_call.cb_verf.oa_base == verf);
	xdrmem_create(&x, (char *)enc, sizeof(enc), XDR_ENCODE);
	FUZZ_CHECK(xdr_callmsg(&x, &m));
	FUZZ_CHECK(xdr_getpos(&x) == used);
	/* Byte for byte, but opaque padding: decoding does not check it. */
	cl = m.rm_call.cb_cred.oa_length;
	vl = m.rm_call.cb_verf.oa_length;
	v = 32 + cl + pad4(cl);
	FUZZ_CHECK(used == v + 8 + vl + pad4(vl));
	FUZZ_CHECK(memcmp(enc, msg, 32 + cl) == 0);
	FUZZ_CHECK(memcmp(enc + v, msg + v, 8 + vl) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[FUZZ_MAX_CALL];
	/* Zeroed: decoding leaves segments past a count as they were. */
	struct rpcrdma_hdr h = { 0 }, d = { 0 };
	struct svc_rdma_recv rv;
	uint32_t len;
	int rc;

	if (size > sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	struct rpcrdma_chunk_limits lim = rpcrdma_limits_max_call(FUZZ_MAX_CALL);

	svc_rdma_recv_decide(buf, (uint32_t)size, &lim, &h, &rv);
	rc = rpcrdma_hdr_decode(data, size, &d);
	switch (rv.rv_verdict) {
	case SVC_RDMA_RECV_DROP:
		FUZZ_CHECK(rc == -ENODATA && size < RPCRDMA_HDRLEN_FIXED);
		break;
	case SVC_RDMA_RECV_ERR_VERS:
		FUZZ_CHECK(rc == -EPROTONOSUPPORT && h.hd_vers != RPCRDMA_VERSION);
		break;
	case SVC_RDMA_RECV_ERR_CHUNK:
		FUZZ_CHECK(rc == 0 || rc == -EBADMSG);
		break;
	case SVC_RDMA_RECV_INLINE:
	case SVC_RDMA_RECV_PULL:
		FUZZ_CHECK(rc == 0 && memcmp(&h, &d, sizeof(h)) == 0);
		FUZZ_CHECK(h.hd_proc == RPCRDMA_MSG || h.hd_proc == RPCRDMA_NOMSG);
		FUZZ_CHECK(rv.rv_off == h.hd_hdrlen && rv.rv_off + rv.rv_len == size);
		FUZZ_CHECK(!rv.rv_why);
		break;
	default:
		FUZZ_CHECK(!"unknown verdict");
	}
	if (rv.rv_verdict != SVC_RDMA_RECV_INLINE && rv.rv_verdict != SVC_RDMA_RECV_PULL) {
		FUZZ_CHECK(rv.rv_why != NULL);
		return 0;
	}
	if (rv.rv_verdict == SVC_RDMA_RECV_INLINE) {
		FUZZ_CHECK(h.hd_nreads == 0 && h.hd_proc == RPCRDMA_MSG);
		decode_call(buf + rv.rv_off, rv.rv_len);
		return 0;
	}
	FUZZ_CHECK(h.hd_nreads > 0);
	if (h.hd_proc == RPCRDMA_NOMSG)
		FUZZ_CHECK(rv.rv_len == 0 && rv.rv_map.cm_ncopies == 0);
	len = rebuild(&rv, buf + rv.rv_off);
	decode_call(call, len);
	return 0;
}
