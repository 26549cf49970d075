/*
 * A non-idempotent program for the duplicate request cache tests, served
 * beside ECHO_PROG by echo_server: COUNT_ADD adds one to a counter (after
 * sleeping the Call's ms) and returns the new count with `bytes` bytes of
 * a pattern drawn from it, so a Reply shows which execution made it;
 * COUNT_GET returns the count.  Hand-written dispatcher, no rpcgen.
 */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <rpc/rpc.h>
#include "drc_prog.h"

static unsigned int count;

struct add_args {
	u_int ms, bytes;
};

struct add_res {
	u_int count;
	u_int len;
	char *data;
};

static bool_t xdr_add_args(XDR *x, struct add_args *a)
{
	return xdr_u_int(x, &a->ms) && xdr_u_int(x, &a->bytes);
}

static bool_t xdr_add_res(XDR *x, struct add_res *r)
{
	return xdr_u_int(x, &r->count) &&
	       xdr_bytes(x, &r->data, &r->len, DRC_PROG_MAX_BYTES);
}

static void dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
	struct add_args a = { 0, 0 };
	struct add_res r = { 0, 0, NULL };
	u_int i;

	switch (rq->rq_proc) {
	case 0:
		svc_sendreply(xprt, (xdrproc_t)(void (*)(void))xdr_void, NULL);
		return;
	case DRC_PROC_ADD:
		if (!svc_getargs(xprt, (xdrproc_t)(void (*)(void))xdr_add_args, (char *)&a) ||
		    a.bytes > DRC_PROG_MAX_BYTES) {
			svcerr_decode(xprt);
			return;
		}
		r.count = __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST);
		if (a.ms)
			usleep(a.ms * 1000u);
		r.len = a.bytes;
		r.data = malloc(a.bytes ? a.bytes : 1);
		if (!r.data) {
			svcerr_systemerr(xprt);
			return;
		}
		for (i = 0; i < a.bytes; i++)
			r.data[i] = (char)DRC_PATTERN(r.count, i);
		svc_sendreply(xprt, (xdrproc_t)(void (*)(void))xdr_add_res, (char *)&r);
		free(r.data);
		return;
	case DRC_PROC_GET:
		r.count = __atomic_load_n(&count, __ATOMIC_SEQ_CST);
		svc_sendreply(xprt, (xdrproc_t)(void (*)(void))xdr_u_int, (char *)&r.count);
		return;
	default:
		svcerr_noproc(xprt);
	}
}

int drc_prog_register(SVCXPRT *listener)
{
	return svc_reg(listener, DRC_PROG, DRC_VERS, dispatch, NULL) ? 0 : -1;
}
