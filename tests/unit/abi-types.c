/*
 * Every public type of rpcrdma.h reachable from one function, so that abidw
 * records also those a program passes through clnt_control()'s void *
 * (struct rpcrdma_reply_hint, ...): compiled by tests/unit/abi.test and
 * make abi-baseline into abi/types.abi's probe, never installed.
 */
#include <rpcrdma/rpcrdma.h>

void rpcrdma_abi_types(struct rpcrdma_options *o, struct rpcrdma_stats *s,
		       struct rpcrdma_reply_hint *h, struct rpcrdma_result_buf *r,
		       enum rpcrdma_send_strategy ss, enum rpcrdma_call_chunks cc,
		       enum rpcrdma_reply_chunks rc);

void rpcrdma_abi_types(struct rpcrdma_options *o, struct rpcrdma_stats *s,
		       struct rpcrdma_reply_hint *h, struct rpcrdma_result_buf *r,
		       enum rpcrdma_send_strategy ss, enum rpcrdma_call_chunks cc,
		       enum rpcrdma_reply_chunks rc)
{
	(void)o; (void)s; (void)h; (void)r; (void)ss; (void)cc; (void)rc;
}
