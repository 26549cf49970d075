/*
 * The preload's servers: RDMA listeners (svc_rdma_create) for netids
 * rdma/rdma6, and under RPCRDMA_PRELOAD=tcp an RDMA listener beside TCP
 * with every TCP registration mirrored on it; rpcbind entries under rdma
 * removed at exit.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <rpc/rpc.h>
#include <rpc/pmap_clnt.h>
#include <rpcrdma/rpcrdma.h>
#include "preload/preload.h"

typedef void (*dispatch_fn)(struct svc_req *, SVCXPRT *);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* The listeners on the default port, for rdma and rdma6 ([0], [1]). */
static SVCXPRT *listeners[2];

/* Registrations made with rpcbind under an rdma netid, undone at exit. */
#define MAX_REGS 64
static struct reg {
	rpcprog_t prog;
	rpcvers_t vers;
	int fam;
} regs[MAX_REGS];
static unsigned int nregs;

static bool_t (*next_svc_reg)(SVCXPRT *, rpcprog_t, rpcvers_t, dispatch_fn,
			      const struct netconfig *);
static bool_t (*next_rpcb_unset)(rpcprog_t, rpcvers_t, const struct netconfig *);

static const char *fam_netid(int fam)
{
	return fam == 6 ? "rdma6" : "rdma";
}

static bool is_ours(const SVCXPRT *xprt)
{
	return xprt && (xprt == listeners[0] || xprt == listeners[1] ||
			(xprt->xp_netid && preload_rdma_netid(xprt->xp_netid)));
}

static SVCXPRT *new_listener(int fam, const char *host, const char *port)
{
	SVCXPRT *l;

	if (!host && fam == 6)
		host = "::";
	l = svc_rdma_create(host, port ? port : preload_port(), NULL);
	if (!l) {
		preload_count(PC_SVC_LISTEN_FAILED);
		preload_log(PRELOAD_LOG_WARNING, "no RDMA listener (%s): %s",
			    fam_netid(fam), clnt_spcreateerror("svc_rdma_create"));
		return NULL;
	}
	preload_count(PC_SVC_LISTENERS);
	preload_svc_track(l);
	preload_log(PRELOAD_LOG_DEBUG, "RDMA listener (%s) on port %u",
		    fam_netid(fam), (unsigned int)l->xp_port);
	return l;
}

/* The default listener for fam, created on first use. */
static SVCXPRT *listener(int fam)
{
	SVCXPRT *l;

	pthread_mutex_lock(&lock);
	l = listeners[fam == 6];
	if (!l)
		l = listeners[fam == 6] = new_listener(fam, NULL, NULL);
	pthread_mutex_unlock(&lock);
	return l;
}

static void unset_all(void)
{
	struct netconfig *nc;
	unsigned int i;

	PRELOAD_NEXT(next_rpcb_unset, "rpcb_unset", PRELOAD_TIRPC);
	preload_enter();
	for (i = 0; i < nregs && next_rpcb_unset; i++) {
		nc = preload_rdma_nconf(fam_netid(regs[i].fam));
		if (nc && next_rpcb_unset(regs[i].prog, regs[i].vers, nc))
			preload_count(PC_RPCB_UNSET);
		if (nc)
			freenetconfigent(nc);
	}
	nregs = 0;
	preload_leave();
}

/*
 * Register dispatch for prog/vers on l (and with rpcbind under the rdma
 * netid, when the loaded librpcrdma registers RDMA transports).
 */
static bool_t reg_rdma(SVCXPRT *l, int fam, rpcprog_t prog, rpcvers_t vers,
		       dispatch_fn dispatch, const struct netconfig *given)
{
	static bool atexit_done;
	struct netconfig *nc = NULL;
	bool_t ok;

	PRELOAD_NEXT(next_svc_reg, "svc_reg", PRELOAD_TIRPC);
	if (!next_svc_reg)
		return FALSE;
	/* Without librpcrdma's rpcbind support there is nothing to tell it. */
	if (!given && !preload_port())
		given = nc = preload_rdma_nconf(fam_netid(fam));
	ok = next_svc_reg(l, prog, vers, dispatch, given);
	if (!ok && given) {
		preload_log(PRELOAD_LOG_WARNING, "program %lu version %lu: no "
			    "rpcbind registration under %s; served on port %u",
			    (unsigned long)prog, (unsigned long)vers,
			    fam_netid(fam), (unsigned int)l->xp_port);
		/* libtirpc keeps the dispatch even so. */
		ok = TRUE;
	} else if (ok && given) {
		pthread_mutex_lock(&lock);
		if (nregs < MAX_REGS)
			regs[nregs++] = (struct reg){ prog, vers, fam };
		if (!atexit_done)
			atexit_done = atexit(unset_all) == 0;
		pthread_mutex_unlock(&lock);
	}
	if (nc)
		freenetconfigent(nc);
	if (ok)
		preload_count(PC_SVC_REG);
	preload_log(PRELOAD_LOG_DEBUG, "program %lu version %lu %sregistered "
		    "on the RDMA listener (%s)", (unsigned long)prog,
		    (unsigned long)vers, ok ? "" : "not ", fam_netid(fam));
	return ok;
}

/* A TCP registration of prog/vers: the same dispatch over RDMA. */
static void mirror(rpcprog_t prog, rpcvers_t vers, dispatch_fn dispatch)
{
	SVCXPRT *l;

	if (!preload_tcp_wanted(prog, NULL))
		return;
	l = listener(4);
	if (l && reg_rdma(l, 4, prog, vers, dispatch, NULL)) {
		preload_count(PC_SVC_MIRRORED);
		preload_log(PRELOAD_LOG_DEBUG, "program %lu version %lu: TCP "
			    "registration mirrored over RDMA, port %u",
			    (unsigned long)prog, (unsigned long)vers,
			    (unsigned int)l->xp_port);
	}
}

static bool nettype_has_tcp(const char *t)
{
	return !t || !strcasecmp(t, "tcp") || !strcasecmp(t, "tcp6") ||
	       !strcasecmp(t, "netpath") || !strcasecmp(t, "visible") ||
	       !strcasecmp(t, "circuit_v") || !strcasecmp(t, "circuit_n");
}

/* A transport libtirpc made for TCP (not an RDMA one answering as such). */
static bool xprt_is_tcp(const SVCXPRT *xprt, const struct netconfig *nconf)
{
	if (is_ours(xprt))
		return false;
	if (nconf && nconf->nc_netid)
		return !strcmp(nconf->nc_netid, "tcp") || !strcmp(nconf->nc_netid, "tcp6");
	return xprt->xp_netid && (!strcmp(xprt->xp_netid, "tcp") ||
				  !strcmp(xprt->xp_netid, "tcp6"));
}

PRELOAD_EXPORT int svc_create(dispatch_fn dispatch, const rpcprog_t prog,
			      const rpcvers_t vers, const char *nettype)
{
	static int (*next)(dispatch_fn, rpcprog_t, rpcvers_t, const char *);
	bool outer = preload_enter();
	int fam, n = 0;

	if (outer && (fam = preload_rdma_netid(nettype))) {
		SVCXPRT *l = listener(fam);

		n = l && reg_rdma(l, fam, prog, vers, dispatch, NULL);
	} else {
		PRELOAD_NEXT(next, "svc_create", PRELOAD_TIRPC);
		n = next ? next(dispatch, prog, vers, nettype) : 0;
		if (outer && n > 0 && preload_tcp_mode() && nettype_has_tcp(nettype))
			mirror(prog, vers, dispatch);
	}
	preload_leave();
	return n;
}

PRELOAD_EXPORT SVCXPRT *svc_tp_create(dispatch_fn dispatch, const rpcprog_t prog,
				      const rpcvers_t vers,
				      const struct netconfig *nconf)
{
	static SVCXPRT *(*next)(dispatch_fn, rpcprog_t, rpcvers_t,
				const struct netconfig *);
	bool outer = preload_enter();
	SVCXPRT *x;
	int fam;

	if (outer && nconf && (fam = preload_rdma_netid(nconf->nc_netid))) {
		x = listener(fam);
		if (x && !reg_rdma(x, fam, prog, vers, dispatch, NULL))
			x = NULL;
	} else {
		PRELOAD_NEXT(next, "svc_tp_create", PRELOAD_TIRPC);
		x = next ? next(dispatch, prog, vers, nconf) : NULL;
		if (outer && x && preload_tcp_mode() && xprt_is_tcp(x, nconf))
			mirror(prog, vers, dispatch);
	}
	preload_leave();
	return x;
}

/* A listener on bindaddr's address and port (0: the default port). */
static SVCXPRT *tli_listener(int fam, const struct t_bind *bind)
{
	char host[INET6_ADDRSTRLEN] = "", port[8] = "";
	const struct sockaddr *sa;
	unsigned int p = 0;

	if (!bind || !bind->addr.buf || !bind->addr.len)
		return listener(fam);
	sa = bind->addr.buf;
	if (sa->sa_family == AF_INET && bind->addr.len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		p = ntohs(s4->sin_port);
	} else if (sa->sa_family == AF_INET6 &&
		   bind->addr.len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		p = ntohs(s6->sin6_port);
	} else {
		return listener(fam);
	}
	if (p)
		snprintf(port, sizeof(port), "%u", p);
	return new_listener(fam, host, p ? port : NULL);
}

PRELOAD_EXPORT SVCXPRT *svc_tli_create(const int fd, const struct netconfig *nconf,
				       const struct t_bind *bindaddr,
				       const u_int sendsz, const u_int recvsz)
{
	static SVCXPRT *(*next)(int, const struct netconfig *,
				const struct t_bind *, u_int, u_int);
	bool outer = preload_enter();
	SVCXPRT *x;
	int fam;

	if (outer && nconf && (fam = preload_rdma_netid(nconf->nc_netid))) {
		x = tli_listener(fam, bindaddr);
	} else {
		PRELOAD_NEXT(next, "svc_tli_create", PRELOAD_TIRPC);
		x = next ? next(fd, nconf, bindaddr, sendsz, recvsz) : NULL;
		/* The RDMA listener now, so that a busy port shows at once. */
		if (outer && x && preload_tcp_mode() && xprt_is_tcp(x, nconf))
			listener(4);
	}
	preload_leave();
	return x;
}

PRELOAD_EXPORT SVCXPRT *svctcp_create(int sock, u_int sendsz, u_int recvsz)
{
	static SVCXPRT *(*next)(int, u_int, u_int);
	bool outer = preload_enter();
	SVCXPRT *x;

	PRELOAD_NEXT(next, "svctcp_create", PRELOAD_TIRPC);
	x = next ? next(sock, sendsz, recvsz) : NULL;
	if (outer && x && preload_tcp_mode())
		listener(4);
	preload_leave();
	return x;
}

PRELOAD_EXPORT bool_t svc_reg(SVCXPRT *xprt, const rpcprog_t prog,
			      const rpcvers_t vers, dispatch_fn dispatch,
			      const struct netconfig *nconf)
{
	bool outer = preload_enter();
	bool_t ok;
	int fam;

	PRELOAD_NEXT(next_svc_reg, "svc_reg", PRELOAD_TIRPC);
	if (!next_svc_reg) {
		ok = FALSE;
	} else if (outer && nconf && (fam = preload_rdma_netid(nconf->nc_netid)) &&
		   is_ours(xprt)) {
		ok = reg_rdma(xprt, fam, prog, vers, dispatch, nconf);
	} else {
		ok = next_svc_reg(xprt, prog, vers, dispatch, nconf);
		if (outer && ok && preload_tcp_mode() && xprt_is_tcp(xprt, nconf))
			mirror(prog, vers, dispatch);
	}
	preload_leave();
	return ok;
}

PRELOAD_EXPORT bool_t svc_register(SVCXPRT *xprt, u_long prog, u_long vers,
				   dispatch_fn dispatch, int protocol)
{
	static bool_t (*next)(SVCXPRT *, u_long, u_long, dispatch_fn, int);
	bool outer = preload_enter();
	bool_t ok;

	PRELOAD_NEXT(next, "svc_register", PRELOAD_TIRPC);
	ok = next ? next(xprt, prog, vers, dispatch, protocol) : FALSE;
	if (outer && ok && preload_tcp_mode() && !is_ours(xprt) &&
	    (protocol == IPPROTO_TCP || xprt_is_tcp(xprt, NULL)))
		mirror(prog, vers, dispatch);
	preload_leave();
	return ok;
}

/* A stale rdma registration goes with the TCP one the program clears. */
PRELOAD_EXPORT bool_t pmap_unset(u_long prog, u_long vers)
{
	static bool_t (*next)(u_long, u_long);
	bool outer = preload_enter();
	struct netconfig *nc;
	bool_t ok;

	PRELOAD_NEXT(next, "pmap_unset", PRELOAD_TIRPC);
	ok = next ? next(prog, vers) : FALSE;
	if (outer && preload_tcp_wanted(prog, NULL) && !preload_port() &&
	    (nc = preload_rdma_nconf("rdma"))) {
		PRELOAD_NEXT(next_rpcb_unset, "rpcb_unset", PRELOAD_TIRPC);
		if (next_rpcb_unset && next_rpcb_unset(prog, vers, nc))
			preload_count(PC_RPCB_UNSET);
		freenetconfigent(nc);
	}
	preload_leave();
	return ok;
}

/* svc_unreg() clears every netid with rpcbind: nothing left for exit. */
PRELOAD_EXPORT void svc_unreg(const rpcprog_t prog, const rpcvers_t vers)
{
	static void (*next)(rpcprog_t, rpcvers_t);
	unsigned int i, j;

	preload_enter();
	PRELOAD_NEXT(next, "svc_unreg", PRELOAD_TIRPC);
	if (next)
		next(prog, vers);
	pthread_mutex_lock(&lock);
	for (i = j = 0; i < nregs; i++)
		if (regs[i].prog != prog || regs[i].vers != vers)
			regs[j++] = regs[i];
	nregs = j;
	pthread_mutex_unlock(&lock);
	preload_leave();
}
