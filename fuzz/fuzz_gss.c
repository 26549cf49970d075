/*
 * Fuzz target: the codec's reading of an RPC Call's credential
 * (rpcrdma_call_is_gss, rpcrdma_call_wraps_body), which decides whether
 * a Call is served alone and whether its body may be placed by RDMA,
 * checked against libtirpc's own decoders (xdr_callmsg, xdr_rpc_gss_cred).
 */
#include "config.h"

#include <string.h>
#include <rpc/rpc.h>
#include <rpc/auth_gss.h>

#include "fuzz.h"
#include "rpc_rdma.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint32_t buf[1 << 14];	/* aligned: xdrmem reads words */
	struct rpc_gss_cred gc;
	struct rpc_msg msg;
	bool gss, wraps;
	XDR xdrs;
	size_t n;

	gss = rpcrdma_call_is_gss(data, size);
	wraps = rpcrdma_call_wraps_body(data, size);
	/* Only ever from the words they name, never past the input. */
	FUZZ_CHECK(!wraps || gss);
	FUZZ_CHECK(gss == (size >= 28 && be32(data + 4) == 0 &&
			   be32(data + 24) == RPCSEC_GSS));
	if (wraps) {
		uint32_t svc = be32(data + 44);

		FUZZ_CHECK(size >= 48 && be32(data + 28) >= 16 &&
			   be32(data + 36) == RPCSEC_GSS_DATA);
		FUZZ_CHECK(svc == RPCSEC_GSS_SVC_INTEGRITY ||
			   svc == RPCSEC_GSS_SVC_PRIVACY);
	}
	/* What libtirpc decodes (a copy: xdrmem wants it aligned). */
	n = size < sizeof(buf) ? size : sizeof(buf);
	memcpy(buf, data, n);
	memset(&msg, 0, sizeof(msg));
	xdrmem_create(&xdrs, (char *)buf, (u_int)n, XDR_DECODE);
	if (!xdr_callmsg(&xdrs, &msg)) {
		XDR_DESTROY(&xdrs);
		goto out;
	}
	XDR_DESTROY(&xdrs);
	/* A Call libtirpc reads: the same flavour, and for RPCSEC_GSS the
	 * same procedure and service as its credential decoder finds. */
	FUZZ_CHECK(gss == (msg.rm_call.cb_cred.oa_flavor == RPCSEC_GSS));
	if (gss && msg.rm_call.cb_cred.oa_length) {
		memset(&gc, 0, sizeof(gc));
		xdrmem_create(&xdrs, msg.rm_call.cb_cred.oa_base,
			      msg.rm_call.cb_cred.oa_length, XDR_DECODE);
		if (xdr_rpc_gss_cred(&xdrs, &gc))
			FUZZ_CHECK(wraps ==
				   (gc.gc_proc == RPCSEC_GSS_DATA &&
				    (gc.gc_svc == RPCSEC_GSS_SVC_INTEGRITY ||
				     gc.gc_svc == RPCSEC_GSS_SVC_PRIVACY)));
		XDR_DESTROY(&xdrs);
		xdrs.x_op = XDR_FREE;
		xdr_rpc_gss_cred(&xdrs, &gc);
	}
out:
	/* What it allocated, even when it failed past them. */
	free(msg.rm_call.cb_cred.oa_base);
	free(msg.rm_call.cb_verf.oa_base);
	return 0;
}
