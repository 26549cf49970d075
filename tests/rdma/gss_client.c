/*
 * An echo client that establishes an RPCSEC_GSS context (RFC 2203,
 * Kerberos V5) over clnt_rdma_create(), or over libtirpc's TCP with -t,
 * and echoes opaques of 0 bytes to past 1 MiB at one service level,
 * checking every byte; the sizes cross the inline threshold, the client's
 * receive size (a Reply chunk asked for again) and the Long Call.  Test
 * code.
 *
 *   gss_client -a ADDR -p PORT [-b SOURCE] -s SERVICE@HOST
 *              -l none|integrity|privacy [-t]
 */
#include "config.h"
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
	printf("gss_client: %u bytes: %s%s (%.0f ms)\n", len, clnt_sperrno(st),
	       st == RPC_SUCCESS && !ok ? ", WRONG bytes" : "", now_ms() - t0);
	if (st == RPC_SUCCESS)
		xdr_free((xdrproc_t)(void (*)(void))xdr_echo_bytes, (char *)&res);
	free(buf);
	return ok;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *src = NULL, *service = NULL;
	const char *level = "none";
	struct timeval tv = { 60, 0 };
	struct rpcrdma_options o;
	struct rpc_gss_sec sec;
	unsigned int i, bad = 0;
	enum clnt_stat st;
	int c, tcp = 0;
	CLIENT *cl;
	AUTH *a;

	while ((c = getopt(argc, argv, "a:p:b:s:l:t")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'b': src = optarg; break;
		case 's': service = optarg; break;
		case 'l': level = optarg; break;
		case 't': tcp = 1; break;
		default: return 2;
		}
	}
	if (!addr || !service || (!port && !tcp)) {
		fprintf(stderr, "usage: gss_client -a ADDR -p PORT [-b SOURCE] "
			"-s SERVICE@HOST -l none|integrity|privacy [-t]\n");
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
