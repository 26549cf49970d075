/*
 * The procedures of the preload's rpcgen server (its main() is rpcgen's
 * own, -s tcp: svctcp_create, svc_register, svc_run).  Linked with
 * libtirpc only; librpcrdma comes in through LD_PRELOAD, or not at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <rpc/rpc.h>
#include <rpc/rpcsec_gss.h>
#include "pre_echo.h"

/* An RPCSEC_GSS caller, as libtirpc's svcauth_gss established it (its
 * service name libtirpc's default, nfs@host): said once per level. */
static void show_gss_caller(struct svc_req *rq)
{
	static int shown[4];
	rpc_gss_rawcred_t *rc = NULL;
	void *cookie = NULL;

	if (rq->rq_cred.oa_flavor != RPCSEC_GSS ||
	    !rpc_gss_getcred(rq, &rc, NULL, &cookie) || !rc ||
	    rc->service < 1 || rc->service > 3 || shown[rc->service]++)
		return;
	fprintf(stderr, "pre_server: caller %s service %d\n",
		rc->client_principal ? rc->client_principal->name : "?",
		(int)rc->service);
}

void *pre_null_1_svc(void *argp, struct svc_req *rq)
{
	static char dummy;

	return &dummy;
}

pre_bytes *pre_echo_1_svc(pre_bytes *argp, struct svc_req *rq)
{
	static pre_bytes res;

	show_gss_caller(rq);
	res = *argp;	/* the arguments outlive the Reply's encoding */
	return &res;
}

/* The netid libtirpc or librpcrdma gave the connection this Call came on. */
pre_str *pre_netid_1_svc(void *argp, struct svc_req *rq)
{
	static pre_str res;

	res = rq->rq_xprt->xp_netid ? rq->rq_xprt->xp_netid : "none";
	return &res;
}

/* Answer, then exit normally: atexit handlers (the preload's) run. */
void *pre_exit_1_svc(void *argp, struct svc_req *rq)
{
	svc_sendreply(rq->rq_xprt, (xdrproc_t)(void (*)(void))xdr_void, NULL);
	fprintf(stderr, "pre_server: exiting\n");
	exit(0);
}
