/*
 * The RDMA netids and universal addresses: which netid is which family,
 * their struct netconfig, and the pure parsing the rpcbind lookup needs.
 */
#ifndef RPCRDMA_NETID_H
#define RPCRDMA_NETID_H

#include <stdint.h>
#include <rpc/rpc.h>

#define RPCRDMA_NETID		"rdma"
#define RPCRDMA_NETID6		"rdma6"
/* nc_proto of both: libtirpc maps netids to families by name only. */
#define RPCRDMA_NC_PROTO	"rdma"

#define RPCRDMA_NETID_INET	4
#define RPCRDMA_NETID_INET6	6

/* RPCRDMA_NETID_INET or _INET6 for "rdma"/"rdma6"; -ENOENT, -EINVAL. */
int rpcrdma_netid_family(const char *netid);
/* A netconfig freenetconfigent() frees; NULL with errno. */
struct netconfig *rpcrdma_netconfig_build(const char *netid);

#endif /* RPCRDMA_NETID_H */
