/*
 * librpcrdma-preload: what its files share.  The next definition of an
 * interposed symbol, the per-thread guard that lets only the outermost
 * interposed call act, the log, the configuration (RPCRDMA_PRELOAD) and
 * the counters dumped at exit (librpcrdma-preload(8)).
 */
#ifndef RPCRDMA_PRELOAD_H
#define RPCRDMA_PRELOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <rpc/rpc.h>

#define PRELOAD_EXPORT __attribute__((visibility("default")))
#define PRELOAD_TIRPC "TIRPC_0.3.0"

/*
 * The next definition of name after the preload, of version (NULL: the
 * default one, as dlsym gives), or NULL when the libraries loaded lack it:
 * then one clear error is logged, once per name, and the interposer
 * behaves as the missing call would (fails the way it documents).
 */
void *preload_next(const char *name, const char *version);
/* PRELOAD_NEXT(fp, "name", PRELOAD_TIRPC): resolve once into a static fp. */
#define PRELOAD_NEXT(fp, name, version)					\
	do {								\
		if (!(fp))						\
			*(void **)&(fp) = preload_next((name), (version)); \
	} while (0)

/*
 * The reentrancy guard: libtirpc's functions call each other, librpcrdma
 * calls libtirpc, and the preload calls both; only the outermost
 * interposed call on a thread acts.  preload_enter() returns true for the
 * outermost one; every preload_enter() is paired with preload_leave().
 */
bool preload_enter(void);
/* false when the libtirpc loaded is not the one the preload was built
 * for (logged once): then preload_enter() is always false. */
bool preload_active(void);
void preload_leave(void);

/* The library's log level (log_level, RPCRDMA_LOG_LEVEL): 0 off .. 3 debug. */
enum { PRELOAD_LOG_ERROR = 1, PRELOAD_LOG_WARNING = 2, PRELOAD_LOG_DEBUG = 3 };
int preload_log_level(void);
/* One line on stderr, "librpcrdma-preload: ...", at level or below. */
void preload_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* RPCRDMA_PRELOAD: whether a TCP request of prog (to host; NULL: a
 * server's) goes over RDMA. */
bool preload_tcp_wanted(rpcprog_t prog, const char *host);
bool preload_tcp_mode(void);

/* The preload's own counters (dumped with the transports' at exit). */
enum preload_counter {
	PC_CLNT_RDMA,		/* RDMA CLIENTs created */
	PC_CLNT_TCP_FALLBACK,	/* TCP asked, RDMA tried, fell back to TCP */
	PC_CLNT_RDMA_FAILED,	/* netid rdma asked, creation failed */
	PC_SVC_LISTENERS,	/* RDMA listeners created */
	PC_SVC_LISTEN_FAILED,	/* RDMA listeners that could not be created */
	PC_SVC_REG,		/* registrations on an RDMA listener */
	PC_SVC_MIRRORED,	/* ... of them mirroring a TCP registration */
	PC_RPCB_UNSET,		/* rdma registrations removed from rpcbind */
	PC_MISSING_SYMBOL,	/* calls whose libtirpc definition was missing */
	PC_NCOUNTERS
};
void preload_count(enum preload_counter c);

/* netids: "rdma" or "rdma6" (AF_INET6 wanted), else 0. */
int preload_rdma_netid(const char *netid);
/* A netconfig for "rdma"/"rdma6" (freenetconfigent frees it), or NULL. */
struct netconfig *preload_rdma_nconf(const char *netid);
/* The port argument for clnt_rdma_create/svc_rdma_create (NULL: the
 * library's own choice, rpcbind then the port key). */
const char *preload_port(void);

/* Handles to sum and report at exit (clnt.c and svc.c). */
void preload_clnt_track(CLIENT *cl);
void preload_svc_track(SVCXPRT *listener);
/* The sum so far; printed by preload.c at exit. */
void preload_stats_dump(FILE *f);

#endif /* RPCRDMA_PRELOAD_H */
