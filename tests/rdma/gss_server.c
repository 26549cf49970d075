/*
 * An echo server whose callers authenticate with RPCSEC_GSS (RFC 2203),
 * over svc_rdma_create() and libtirpc's svcauth_gss: the service name is
 * set, and each caller's principal and service level are printed once
 * ("gss_server: caller P service N"), so that a case can check what the
 * server saw.  NULL, ECHO_BYTES and ECHO_SHUTDOWN of echo.x.  Test code.
 *
 *   gss_server -a ADDR -p PORT -r READYFILE -s SERVICE@HOST [-j THREADS]
 *
 * -j: the listener's own service threads (svc_threads): Calls of one
 * connection are served in parallel, except RPCSEC_GSS ones.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gssapi/gssapi.h>
#include <rpc/rpc.h>
#include <rpc/auth_gss.h>
#include <rpc/svc_auth_gss.h>
#include <rpc/rpcsec_gss.h>
#include <rpcrdma/rpcrdma.h>
#include "echo.h"

static unsigned long calls, gss_calls;	/* atomics: -j serves in parallel */

/* Once per service level: who called, as svcauth_gss established it. */
static void show_caller(struct svc_req *rq)
{
	static int shown[4];
	rpc_gss_rawcred_t *rc = NULL;
	void *cookie = NULL;

	if (rq->rq_cred.oa_flavor != RPCSEC_GSS) {
		printf("gss_server: a call of flavour %d\n",
		       (int)rq->rq_cred.oa_flavor);
		return;
	}
	/* libtirpc dispatches RPCSEC_GSS_DESTROY's NULL Call too, its
	 * context already gone: only DATA has a caller to ask about. */
	if (((struct rpc_gss_cred *)rq->rq_clntcred)->gc_proc !=
	    RPCSEC_GSS_DATA)
		return;
	__atomic_add_fetch(&gss_calls, 1, __ATOMIC_RELAXED);
	if (!rpc_gss_getcred(rq, &rc, NULL, &cookie) || !rc) {
		printf("gss_server: rpc_gss_getcred failed\n");
		return;
	}
	if (rc->service < 1 || rc->service > 3 ||
	    __atomic_fetch_add(&shown[rc->service], 1, __ATOMIC_RELAXED))
		return;
	printf("gss_server: caller %s service %d\n",
	       rc->client_principal ? rc->client_principal->name : "?",
	       (int)rc->service);
	fflush(stdout);
}

static void dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
	echo_bytes arg;

	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	show_caller(rq);
	switch (rq->rq_proc) {
	case ECHO_NULL:
		svc_sendreply(xprt, (xdrproc_t)(void (*)(void))xdr_void, NULL);
		break;
	case ECHO_BYTES:
		memset(&arg, 0, sizeof(arg));
		if (!svc_getargs(xprt, (xdrproc_t)(void (*)(void))xdr_echo_bytes, (char *)&arg)) {
			printf("gss_server: arguments not decoded\n");
			svcerr_decode(xprt);
			break;
		}
		/* A Reply too large for the client's receive and no chunk
		 * offered fails here, and the client asks again with one. */
		svc_sendreply(xprt, (xdrproc_t)(void (*)(void))xdr_echo_bytes, (char *)&arg);
		svc_freeargs(xprt, (xdrproc_t)(void (*)(void))xdr_echo_bytes, (char *)&arg);
		break;
	case ECHO_SHUTDOWN:
		svc_sendreply(xprt, (xdrproc_t)(void (*)(void))xdr_void, NULL);
		svc_exit();
		break;
	default:
		svcerr_noproc(xprt);
	}
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *ready = NULL, *service = NULL;
	struct rpcrdma_options o;
	gss_buffer_desc nb;
	gss_name_t name;
	OM_uint32 maj, min;
	SVCXPRT *l;
	FILE *f;
	int c, threads = 0;

	while ((c = getopt(argc, argv, "a:p:r:s:j:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'r': ready = optarg; break;
		case 's': service = optarg; break;
		case 'j': threads = atoi(optarg); break;
		default: return 2;
		}
	}
	if (!addr || !port || !ready || !service) {
		fprintf(stderr, "usage: gss_server -a ADDR -p PORT -r READY "
			"-s SERVICE@HOST [-j THREADS]\n");
		return 2;
	}
	nb.value = (void *)service;
	nb.length = strlen(service);
	maj = gss_import_name(&min, &nb, GSS_C_NT_HOSTBASED_SERVICE, &name);
	if (maj != GSS_S_COMPLETE || !svcauth_gss_set_svc_name(name)) {
		fprintf(stderr, "gss_server: service name %s refused\n", service);
		return 1;
	}
	gss_release_name(&min, &name);	/* libtirpc keeps a copy */
	rpcrdma_options_init(&o);
	o.ro_svc_threads = (uint32_t)threads;
	l = svc_rdma_create(addr, port, &o);
	if (!l) {
		clnt_pcreateerror("svc_rdma_create");
		return 1;
	}
	if (!svc_reg(l, ECHO_PROG, ECHO_VERS, dispatch, NULL)) {
		fprintf(stderr, "gss_server: svc_reg failed\n");
		return 1;
	}
	f = fopen(ready, "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	svc_run();
	printf("gss_server: %lu calls, %lu with RPCSEC_GSS\n", calls, gss_calls);
	svc_destroy(l);
	return 0;
}
