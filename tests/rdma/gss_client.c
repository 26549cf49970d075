/*
 * An echo client that establishes an RPCSEC_GSS context (RFC 2203,
 * Kerberos V5) over clnt_rdma_create(), or over libtirpc's TCP with -t,
 * and echoes opaques of 0 bytes to past 1 MiB at one service level,
 * checking every byte; the sizes cross the inline threshold, the client's
 * receive size (a Reply chunk asked for again) and the Long Call.  Test
 * code.
 *
 *   gss_client -a ADDR -p PORT [-b SOURCE] -s SERVICE@HOST
 *              -l none|integrity|privacy [-t] [-T THREADS] [-M]
 *
 * -M: then bad input on the established context, through an AUTH that
 * passes through libtirpc's but mangles what it sends: one bit of the
 * header's MIC flipped (the server must refuse it: AUTH_ERROR,
 * RPCSEC_GSS_CREDPROBLEM), and at integrity or privacy one bit of the
 * checksummed or sealed body (GARBAGE_ARGS); a good call after each.
 * -T: after the sizes, THREADS threads call at once on the one CLIENT and
 * its one RPCSEC_GSS context (libtirpc's AUTH keeps one sequence number:
 * the transport serializes such calls), each echoing a mix of sizes.
 */
#include "config.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <gssapi/gssapi.h>
#include <gssapi/gssapi_krb5.h>
#include <rpc/rpc.h>
#include <rpc/auth_gss.h>
#include <rpcrdma/rpcrdma.h>
#include "echo.h"

static const unsigned int sizes[] = {
	0, 1, 100, 1000, 1024, 4000, 8192, 16000, 17500, 60000, 70000,
	262144, (1u << 20) + 5,
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double t0;
static int quiet;

static int echo(CLIENT *cl, unsigned int len, unsigned int seed)
{
	struct timeval tv = { 60, 0 };
	echo_bytes arg, res;
	enum clnt_stat st;
	char *buf = malloc(len + 1);
	unsigned int i;
	int ok;

	if (!buf)
		return 0;
	for (i = 0; i < len; i++)
		buf[i] = (char)(i * 29u + seed * 101u + (i >> 7));
	arg.echo_bytes_len = len;
	arg.echo_bytes_val = buf;
	memset(&res, 0, sizeof(res));
	st = clnt_call(cl, ECHO_BYTES, (xdrproc_t)(void (*)(void))xdr_echo_bytes, (char *)&arg,
		       (xdrproc_t)(void (*)(void))xdr_echo_bytes, (char *)&res, tv);
	ok = st == RPC_SUCCESS && res.echo_bytes_len == len &&
	     (!len || !memcmp(res.echo_bytes_val, buf, len));
	if (!quiet || !ok)
		printf("gss_client: %u bytes: %s%s (%.0f ms)\n", len,
		       clnt_sperrno(st),
		       st == RPC_SUCCESS && !ok ? ", WRONG bytes" : "",
		       now_ms() - t0);
	if (st == RPC_SUCCESS)
		xdr_free((xdrproc_t)(void (*)(void))xdr_echo_bytes, (char *)&res);
	free(buf);
	return ok;
}

/* -T: one thread's share, on the shared CLIENT. */
#define THREAD_ROUNDS 8
static const unsigned int thread_sizes[] = { 0, 100, 4000, 17500, 70000 };

struct thread_arg {
	CLIENT *ta_cl;
	unsigned int ta_id, ta_bad;
	pthread_t ta_tid;
};

static void *thread_main(void *arg)
{
	struct thread_arg *ta = arg;
	unsigned int r, i, n = sizeof(thread_sizes) / sizeof(thread_sizes[0]);

	for (r = 0; r < THREAD_ROUNDS; r++)
		for (i = 0; i < n; i++)
			ta->ta_bad += !echo(ta->ta_cl,
					    thread_sizes[(i + ta->ta_id) % n],
					    ta->ta_id * 1000 + r * n + i);
	return NULL;
}

/* THREADS threads at once on cl: how many of their calls failed. */
static unsigned int threads_on(CLIENT *cl, unsigned int threads)
{
	struct thread_arg *ta = calloc(threads, sizeof(*ta));
	unsigned int i, bad = 0;

	if (!ta)
		return 1;
	quiet = 1;
	for (i = 0; i < threads; i++) {
		ta[i].ta_cl = cl;
		ta[i].ta_id = i;
		if (pthread_create(&ta[i].ta_tid, NULL, thread_main, &ta[i])) {
			threads = i;
			bad++;
			break;
		}
	}
	for (i = 0; i < threads; i++) {
		pthread_join(ta[i].ta_tid, NULL);
		bad += ta[i].ta_bad;
	}
	quiet = 0;
	printf("gss_client: %u threads x %u calls at once: %u failed (%.0f ms)\n",
	       threads, THREAD_ROUNDS * (unsigned int)(sizeof(thread_sizes) /
						       sizeof(thread_sizes[0])),
	       bad, now_ms() - t0);
	free(ta);
	return bad;
}

/* -M: the AUTH in front of libtirpc's RPCSEC_GSS one. */
static AUTH *gss_real;
static int mangle;	/* 1: the header's MIC; 2: the wrapped body */
static uint32_t mangle_buf[4096];	/* words: xdrmem reads them */

static void mangle_nextverf(AUTH *a)
{
	AUTH_NEXTVERF(gss_real);
}

/* The real marshal into a copy of the header so far, then sent with one
 * bit of the verifier (the MIC over that header) flipped. */
static int mangle_marshal(AUTH *a, XDR *x)
{
	char *tmp = (char *)mangle_buf, *hdr;
	u_int pos = XDR_GETPOS(x), end;
	XDR t;
	int ok;

	if (mangle != 1)
		return AUTH_MARSHALL(gss_real, x);
	if (!XDR_SETPOS(x, 0) || !(hdr = (char *)XDR_INLINE(x, (int)pos)) ||
	    pos > 1024)
		return FALSE;
	memcpy(tmp, hdr, pos);
	xdrmem_create(&t, tmp, sizeof(mangle_buf), XDR_ENCODE);
	ok = XDR_SETPOS(&t, pos) && AUTH_MARSHALL(gss_real, &t);
	end = XDR_GETPOS(&t);
	XDR_DESTROY(&t);
	a->ah_cred = gss_real->ah_cred;
	if (!ok || end < pos + 8)
		return FALSE;
	tmp[end - 5] ^= 0x10;	/* inside the MIC, not its padding */
	return XDR_PUTBYTES(x, tmp + pos, end - pos);
}

static int mangle_validate(AUTH *a, struct opaque_auth *v)
{
	return AUTH_VALIDATE(gss_real, v);
}

static int mangle_refresh(AUTH *a, void *arg)
{
	return AUTH_REFRESH(gss_real, arg);
}

static void mangle_destroy(AUTH *a)
{
}

/* The real wrap into a buffer, sent with one bit of the body flipped. */
static int mangle_wrap(AUTH *a, XDR *x, xdrproc_t f, caddr_t p)
{
	char *tmp = (char *)mangle_buf;
	u_int n;
	XDR t;
	int ok;

	if (mangle != 2)
		return AUTH_WRAP(gss_real, x, f, p);
	xdrmem_create(&t, tmp, sizeof(mangle_buf), XDR_ENCODE);
	ok = AUTH_WRAP(gss_real, &t, f, p);
	n = XDR_GETPOS(&t);
	XDR_DESTROY(&t);
	if (!ok || n < 16)
		return FALSE;
	tmp[13] ^= 0x01;	/* past the length and sequence words */
	return XDR_PUTBYTES(x, tmp, n);
}

static int mangle_unwrap(AUTH *a, XDR *x, xdrproc_t f, caddr_t p)
{
	return AUTH_UNWRAP(gss_real, x, f, p);
}

static struct auth_ops mangle_ops = {
	.ah_nextverf = mangle_nextverf,
	.ah_marshal = mangle_marshal,
	.ah_validate = mangle_validate,
	.ah_refresh = mangle_refresh,
	.ah_destroy = mangle_destroy,
	.ah_wrap = mangle_wrap,
	.ah_unwrap = mangle_unwrap,
};

/* One ECHO_BYTES of 100 bytes mangled as mode says: its outcome right,
 * then a good one served.  How many of the two failed. */
static unsigned int mangled(CLIENT *cl, int mode, enum clnt_stat want,
			    int want_why)
{
	struct timeval tv = { 60, 0 };
	char buf[100] = "mangled";
	echo_bytes arg = { sizeof(buf), buf }, res;
	struct rpc_err e;
	enum clnt_stat st;
	AUTH proxy;
	int ok;

	memset(&proxy, 0, sizeof(proxy));
	proxy.ah_ops = &mangle_ops;
	proxy.ah_cred = gss_real->ah_cred;	/* RPCSEC_GSS: serialized */
	gss_real = cl->cl_auth;
	cl->cl_auth = &proxy;
	mangle = mode;
	memset(&res, 0, sizeof(res));
	st = clnt_call(cl, ECHO_BYTES, (xdrproc_t)(void (*)(void))xdr_echo_bytes, (char *)&arg,
		       (xdrproc_t)(void (*)(void))xdr_echo_bytes, (char *)&res, tv);
	clnt_geterr(cl, &e);
	mangle = 0;
	cl->cl_auth = gss_real;
	ok = st == want && (st != RPC_AUTHERROR || (int)e.re_why == want_why);
	printf("gss_client: %s flipped: %s (why %d): %s\n",
	       mode == 1 ? "a bit of the header's MIC" : "a bit of the wrapped body",
	       clnt_sperrno(st), st == RPC_AUTHERROR ? (int)e.re_why : 0,
	       ok ? "refused as it must be" : "WRONG");
	if (st == RPC_SUCCESS)
		xdr_free((xdrproc_t)(void (*)(void))xdr_echo_bytes, (char *)&res);
	return !ok + !echo(cl, 1000, 77);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *src = NULL, *service = NULL;
	const char *level = "none";
	struct timeval tv = { 60, 0 };
	struct rpcrdma_options o;
	struct rpc_gss_sec sec;
	unsigned int i, bad = 0, threads = 0;
	enum clnt_stat st;
	int c, tcp = 0, bad_input = 0;
	CLIENT *cl;
	AUTH *a;

	while ((c = getopt(argc, argv, "a:p:b:s:l:tT:M")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'b': src = optarg; break;
		case 's': service = optarg; break;
		case 'l': level = optarg; break;
		case 't': tcp = 1; break;
		case 'T': threads = (unsigned int)atoi(optarg); break;
		case 'M': bad_input = 1; break;
		default: return 2;
		}
	}
	if (!addr || !service || (!port && !tcp)) {
		fprintf(stderr, "usage: gss_client -a ADDR -p PORT [-b SOURCE] "
			"-s SERVICE@HOST -l none|integrity|privacy [-t] [-T THREADS] [-M]\n");
		return 2;
	}
	memset(&sec, 0, sizeof(sec));
	sec.mech = (gss_OID)gss_mech_krb5;
	sec.qop = GSS_C_QOP_DEFAULT;
	sec.svc = !strcmp(level, "none") ? RPCSEC_GSS_SVC_NONE :
		  !strcmp(level, "integrity") ? RPCSEC_GSS_SVC_INTEGRITY :
		  RPCSEC_GSS_SVC_PRIVACY;
	sec.cred = GSS_C_NO_CREDENTIAL;
	if (tcp) {
		cl = clnt_create(addr, ECHO_PROG, ECHO_VERS, "tcp");
	} else {
		rpcrdma_options_init(&o);
		o.ro_source = src;
		cl = clnt_rdma_create(addr, port, ECHO_PROG, ECHO_VERS, &o);
	}
	if (!cl) {
		clnt_pcreateerror("gss_client");
		return 1;
	}
	t0 = now_ms();
	/* RPCSEC_GSS_INIT goes as a Call like any other. */
	a = authgss_create_default(cl, (char *)service, &sec);
	if (!a) {
		clnt_pcreateerror("authgss_create_default");
		printf("gss_client: FAIL: no context with %s\n", service);
		return 1;
	}
	auth_destroy(cl->cl_auth);
	cl->cl_auth = a;
	printf("gss_client: context with %s, service %s (%.0f ms)\n", service,
	       level, now_ms() - t0);
	st = clnt_call(cl, ECHO_NULL, (xdrproc_t)(void (*)(void))xdr_void, NULL,
		       (xdrproc_t)(void (*)(void))xdr_void, NULL, tv);
	printf("gss_client: NULL: %s\n", clnt_sperrno(st));
	bad += st != RPC_SUCCESS;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		bad += !echo(cl, sizes[i], i);
	if (bad_input) {
		gss_real = cl->cl_auth;
		bad += mangled(cl, 1, RPC_AUTHERROR, RPCSEC_GSS_CREDPROBLEM);
		if (sec.svc != RPCSEC_GSS_SVC_NONE)
			bad += mangled(cl, 2, RPC_CANTDECODEARGS, 0);
	}
	if (threads)
		bad += threads_on(cl, threads);
	/* RPCSEC_GSS_DESTROY goes too; the server is then stopped without
	 * a context. */
	auth_destroy(cl->cl_auth);
	cl->cl_auth = authnone_create();
	st = clnt_call(cl, ECHO_SHUTDOWN, (xdrproc_t)(void (*)(void))xdr_void, NULL,
		       (xdrproc_t)(void (*)(void))xdr_void, NULL, tv);
	bad += st != RPC_SUCCESS;
	printf("gss_client: %s: %u failed\n", bad ? "FAIL" : "ok", bad);
	clnt_destroy(cl);
	return bad ? 1 : 0;
}
