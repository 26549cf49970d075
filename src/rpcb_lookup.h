/*
 * Asking rpcbind on a server for the port of an RDMA service, for
 * clnt_rdma_create() with a NULL port.
 */
#ifndef RPCRDMA_RPCB_LOOKUP_H
#define RPCRDMA_RPCB_LOOKUP_H

#include <stddef.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>

/*
 * The port prog/vers is registered on under netid rdma (rdma6 when host
 * resolves to IPv6; *netid says which) in rpcbind on host, asked within
 * timeout_ms: 1..65535, or -errno: -ECONNREFUSED (no rpcbind), -ETIMEDOUT,
 * -ENOENT (not registered), -EINVAL (only garbled addresses), -EPROTO.
 */
int rpcrdma_rpcb_lookup(const char *host, rpcprog_t prog, rpcvers_t vers,
			unsigned int timeout_ms, const char **netid);
/*
 * clnt_rdma_create() with a NULL port: the port rpcbind gives, else the
 * port key (o->ro_port), as a string in buf; which one is logged (debug).
 * 1 when it came from rpcbind, 0 from the key.
 */
int rpcrdma_rpcb_port(const char *host, rpcprog_t prog, rpcvers_t vers,
		      const struct rpcrdma_options *o, char *buf, size_t len);

#endif /* RPCRDMA_RPCB_LOOKUP_H */
