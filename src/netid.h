/*
 * The RDMA netids and universal addresses: which netid is which family,
 * their struct netconfig, and the pure parsing the rpcbind lookup needs.
 */
#ifndef RPCRDMA_NETID_H
#define RPCRDMA_NETID_H

#include <stdint.h>
#include <rpc/rpc.h>
#include <rpc/rpcb_prot.h>

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

/* Longest universal address taken: an IPv6 literal, a scope, the port. */
#define RPCRDMA_UADDR_MAX	128
/* rpcbind registrations looked at in one answer, at most. */
#define RPCRDMA_RPCB_MAX_ENTRIES 4096

/*
 * The port of a universal address "h1.h2.h3.h4.p1.p2" (family
 * RPCRDMA_NETID_INET) or "IPV6-LITERAL.p1.p2" (_INET6): 1..65535, or
 * -EINVAL when anything in it is malformed (the host part must be an
 * address of the family; port 0 is refused).
 */
int rpcrdma_uaddr_port(const char *uaddr, int family);
/*
 * The port of the first registration of prog/vers under netid in an
 * RPCBPROC_DUMP list whose address parses; -ENOENT when there is none,
 * -EINVAL when there are only garbled ones.
 */
int rpcrdma_rpcb_pick(const rpcblist *list, rpcprog_t prog, rpcvers_t vers,
		      const char *netid);

#endif /* RPCRDMA_NETID_H */
