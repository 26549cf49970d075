/*
 * librpcrdma public API: ONC RPC over RDMA (RFC 8166) for libtirpc.
 * Everything a program needs to create RDMA CLIENT and SVCXPRT handles.
 */
#ifndef RPCRDMA_RPCRDMA_H
#define RPCRDMA_RPCRDMA_H

#ifdef __cplusplus
extern "C" {
#endif

#define RPCRDMA_EXPORT __attribute__((visibility("default")))

/* Version of the library actually loaded, "MAJOR.MINOR.PATCH". */
RPCRDMA_EXPORT const char *rpcrdma_version(void);

#ifdef __cplusplus
}
#endif
#endif /* RPCRDMA_RPCRDMA_H */
