/*
 * The preload's clients: libtirpc's creation calls answered by
 * clnt_rdma_create() for netids rdma/rdma6, and for TCP requests under
 * RPCRDMA_PRELOAD=tcp (falling back to TCP, logged and counted).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "preload/preload.h"

static bool is_tcp(const char *netid)
{
	return netid && (!strcmp(netid, "tcp") || !strcmp(netid, "tcp6"));
}

/* A CLIENT over RDMA, or NULL with rpc_createerr set by the library. */
static CLIENT *rdma_client(const char *host, const char *port, rpcprog_t prog,
			   rpcvers_t vers, const struct timeval *tp)
{
	struct rpcrdma_options o;
	CLIENT *cl;

	rpcrdma_options_init(&o);
	/* The program's creation timeout bounds our connect as well. */
	if (tp && (tp->tv_sec > 0 || tp->tv_usec > 0))
		o.ro_connect_timeout_ms = tp->tv_sec > 600 ? 600000 :
			(uint32_t)(tp->tv_sec * 1000 + tp->tv_usec / 1000 + 1);
	cl = clnt_rdma_create(host, port ? port : preload_port(), prog, vers, &o);
	if (cl) {
		preload_count(PC_CLNT_RDMA);
		preload_clnt_track(cl);
		preload_log(PRELOAD_LOG_DEBUG, "client for %s program %lu version "
			    "%lu over RDMA", host, (unsigned long)prog,
			    (unsigned long)vers);
	}
	return cl;
}

/* TCP asked and RDMA refused: say so, count it, the caller goes on to TCP. */
static void fell_back(const char *call, const char *host, rpcprog_t prog)
{
	preload_count(PC_CLNT_TCP_FALLBACK);
	preload_log(PRELOAD_LOG_WARNING, "%s: no RDMA to %s for program %lu (%s); "
		    "falling back to TCP", call, host ? host : "?",
		    (unsigned long)prog, clnt_spcreateerror("RDMA"));
}

/* Netid rdma asked and refused: the library's rpc_createerr stands. */
static void rdma_failed(const char *call, const char *host)
{
	preload_count(PC_CLNT_RDMA_FAILED);
	preload_log(PRELOAD_LOG_DEBUG, "%s: %s", call,
		    clnt_spcreateerror(host ? host : "RDMA"));
}

/*
 * What clnt_create & co. do with a netid: 1 and *clp set when the
 * preload answered it (*clp NULL on failure), 0 to pass through.
 */
static int by_netid(const char *call, const char *host, rpcprog_t prog,
		    rpcvers_t vers, const char *netid, const struct timeval *tp,
		    CLIENT **clp)
{
	if (preload_rdma_netid(netid)) {
		*clp = rdma_client(host, NULL, prog, vers, tp);
		if (!*clp)
			rdma_failed(call, host);
		return 1;
	}
	if (is_tcp(netid) && host && preload_tcp_wanted(prog, host)) {
		*clp = rdma_client(host, NULL, prog, vers, tp);
		if (*clp)
			return 1;
		fell_back(call, host, prog);
	}
	return 0;
}

#define PASS(var, name, ...)						\
	do {								\
		PRELOAD_NEXT(var, name, PRELOAD_TIRPC);			\
		if (!var) {						\
			rpc_createerr.cf_stat = RPC_SYSTEMERROR;	\
			rpc_createerr.cf_error.re_errno = ENOSYS;	\
			cl = NULL;					\
		} else {						\
			cl = var(__VA_ARGS__);				\
		}							\
	} while (0)

PRELOAD_EXPORT CLIENT *clnt_create_timed(const char *host, const rpcprog_t prog,
					 const rpcvers_t vers, const char *nettype,
					 const struct timeval *tp)
{
	static CLIENT *(*next)(const char *, rpcprog_t, rpcvers_t, const char *,
			       const struct timeval *);
	CLIENT *cl;

	if (preload_enter() &&
	    by_netid("clnt_create", host, prog, vers, nettype, tp, &cl)) {
		preload_leave();
		return cl;
	}
	PASS(next, "clnt_create_timed", host, prog, vers, nettype, tp);
	preload_leave();
	return cl;
}

PRELOAD_EXPORT CLIENT *clnt_create(const char *host, const rpcprog_t prog,
				   const rpcvers_t vers, const char *nettype)
{
	static CLIENT *(*next)(const char *, rpcprog_t, rpcvers_t, const char *);
	CLIENT *cl;

	if (preload_enter() &&
	    by_netid("clnt_create", host, prog, vers, nettype, NULL, &cl)) {
		preload_leave();
		return cl;
	}
	PASS(next, "clnt_create", host, prog, vers, nettype);
	preload_leave();
	return cl;
}

PRELOAD_EXPORT CLIENT *clnt_tp_create_timed(const char *host, const rpcprog_t prog,
					    const rpcvers_t vers,
					    const struct netconfig *nconf,
					    const struct timeval *tp)
{
	static CLIENT *(*next)(const char *, rpcprog_t, rpcvers_t,
			       const struct netconfig *, const struct timeval *);
	CLIENT *cl;

	if (preload_enter() && nconf &&
	    by_netid("clnt_tp_create", host, prog, vers, nconf->nc_netid, tp, &cl)) {
		preload_leave();
		return cl;
	}
	PASS(next, "clnt_tp_create_timed", host, prog, vers, nconf, tp);
	preload_leave();
	return cl;
}

PRELOAD_EXPORT CLIENT *clnt_tp_create(const char *host, const rpcprog_t prog,
				      const rpcvers_t vers,
				      const struct netconfig *nconf)
{
	static CLIENT *(*next)(const char *, rpcprog_t, rpcvers_t,
			       const struct netconfig *);
	CLIENT *cl;

	if (preload_enter() && nconf &&
	    by_netid("clnt_tp_create", host, prog, vers, nconf->nc_netid, NULL, &cl)) {
		preload_leave();
		return cl;
	}
	PASS(next, "clnt_tp_create", host, prog, vers, nconf);
	preload_leave();
	return cl;
}

/* Versions vers_high down to vers_low, as libtirpc's clnt_create_vers. */
static CLIENT *rdma_vers(const char *host, rpcprog_t prog, rpcvers_t *vers_out,
			 rpcvers_t low, rpcvers_t high, const struct timeval *tp)
{
	struct timeval to = { 10, 0 };
	struct rpc_err err;
	enum clnt_stat st;
	CLIENT *cl;

	for (;;) {
		cl = rdma_client(host, NULL, prog, high, tp);
		if (!cl)
			return NULL;
		st = clnt_call(cl, NULLPROC, (xdrproc_t)(void (*)(void))xdr_void, NULL,
			       (xdrproc_t)(void (*)(void))xdr_void, NULL, to);
		if (st == RPC_SUCCESS) {
			*vers_out = high;
			return cl;
		}
		clnt_geterr(cl, &err);
		clnt_destroy(cl);
		if (st != RPC_PROGVERSMISMATCH || high <= low)
			break;
		high = err.re_vers.high < high ? err.re_vers.high : high - 1;
		if (err.re_vers.low > low)
			low = err.re_vers.low;
		if (low > high)
			break;
	}
	rpc_createerr.cf_stat = st;
	rpc_createerr.cf_error = err;
	return NULL;
}

static int vers_by_netid(const char *host, rpcprog_t prog, rpcvers_t *vers_out,
			 rpcvers_t low, rpcvers_t high, const char *nettype,
			 const struct timeval *tp, CLIENT **clp)
{
	if (preload_rdma_netid(nettype)) {
		*clp = rdma_vers(host, prog, vers_out, low, high, tp);
		if (!*clp)
			rdma_failed("clnt_create_vers", host);
		return 1;
	}
	if (is_tcp(nettype) && host && preload_tcp_wanted(prog, host)) {
		*clp = rdma_vers(host, prog, vers_out, low, high, tp);
		if (*clp)
			return 1;
		fell_back("clnt_create_vers", host, prog);
	}
	return 0;
}

PRELOAD_EXPORT CLIENT *clnt_create_vers_timed(const char *host, const rpcprog_t prog,
					      rpcvers_t *vers_out, const rpcvers_t low,
					      const rpcvers_t high, const char *nettype,
					      const struct timeval *tp)
{
	static CLIENT *(*next)(const char *, rpcprog_t, rpcvers_t *, rpcvers_t,
			       rpcvers_t, const char *, const struct timeval *);
	CLIENT *cl;

	if (preload_enter() &&
	    vers_by_netid(host, prog, vers_out, low, high, nettype, tp, &cl)) {
		preload_leave();
		return cl;
	}
	PASS(next, "clnt_create_vers_timed", host, prog, vers_out, low, high,
	     nettype, tp);
	preload_leave();
	return cl;
}

PRELOAD_EXPORT CLIENT *clnt_create_vers(const char *host, const rpcprog_t prog,
					rpcvers_t *vers_out, const rpcvers_t low,
					const rpcvers_t high, const char *nettype)
{
	static CLIENT *(*next)(const char *, rpcprog_t, rpcvers_t *, rpcvers_t,
			       rpcvers_t, const char *);
	CLIENT *cl;

	if (preload_enter() &&
	    vers_by_netid(host, prog, vers_out, low, high, nettype, NULL, &cl)) {
		preload_leave();
		return cl;
	}
	PASS(next, "clnt_create_vers", host, prog, vers_out, low, high, nettype);
	preload_leave();
	return cl;
}

/* A socket address's host and port as strings; false if not IP. */
static bool addr_strings(const struct sockaddr *sa, size_t len, char *host,
			 size_t hlen, char *port, size_t plen)
{
	unsigned int p;

	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, host, hlen);
		p = ntohs(s4->sin_port);
	} else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, hlen);
		p = ntohs(s6->sin6_port);
	} else {
		return false;
	}
	snprintf(port, plen, "%u", p);
	return true;
}

PRELOAD_EXPORT CLIENT *clnt_tli_create(const int fd, const struct netconfig *nconf,
				       struct netbuf *svcaddr, const rpcprog_t prog,
				       const rpcvers_t vers, const u_int sendsz,
				       const u_int recvsz)
{
	static CLIENT *(*next)(int, const struct netconfig *, struct netbuf *,
			       rpcprog_t, rpcvers_t, u_int, u_int);
	char host[INET6_ADDRSTRLEN], port[8];
	CLIENT *cl;

	if (preload_enter() && nconf && svcaddr && svcaddr->buf &&
	    addr_strings(svcaddr->buf, svcaddr->len, host, sizeof(host),
			 port, sizeof(port))) {
		if (preload_rdma_netid(nconf->nc_netid)) {
			/* The address is the RDMA service's: its port too. */
			cl = rdma_client(host, strcmp(port, "0") ? port : NULL,
					 prog, vers, NULL);
			if (!cl)
				rdma_failed("clnt_tli_create", host);
			preload_leave();
			return cl;
		}
		/* A TCP port says nothing of the RDMA one: the default. */
		if (is_tcp(nconf->nc_netid) && preload_tcp_wanted(prog, host)) {
			cl = rdma_client(host, NULL, prog, vers, NULL);
			if (cl) {
				preload_leave();
				return cl;
			}
			fell_back("clnt_tli_create", host, prog);
		}
	}
	PASS(next, "clnt_tli_create", fd, nconf, svcaddr, prog, vers, sendsz, recvsz);
	preload_leave();
	return cl;
}

PRELOAD_EXPORT CLIENT *clnttcp_create(struct sockaddr_in *raddr, u_long prog,
				      u_long vers, int *sockp, u_int sendsz,
				      u_int recvsz)
{
	static CLIENT *(*next)(struct sockaddr_in *, u_long, u_long, int *,
			       u_int, u_int);
	char host[INET6_ADDRSTRLEN], port[8];
	CLIENT *cl;

	if (preload_enter() && raddr &&
	    addr_strings((struct sockaddr *)raddr, sizeof(*raddr), host,
			 sizeof(host), port, sizeof(port)) &&
	    preload_tcp_wanted(prog, host)) {
		cl = rdma_client(host, NULL, prog, vers, NULL);
		if (cl) {
			preload_leave();
			return cl;
		}
		fell_back("clnttcp_create", host, prog);
	}
	PASS(next, "clnttcp_create", raddr, prog, vers, sockp, sendsz, recvsz);
	preload_leave();
	return cl;
}
