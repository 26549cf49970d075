/*
 * The preload's client: clnt_create(host, PRE_PROG, PRE_VERS, netid) as
 * any libtirpc program, then N echoes of varied sizes, each verified, and
 * the server's netid for the connection.  Linked with libtirpc only.
 *   pre_client HOST NETID N [EXPECTED-SERVER-NETID|-] [exit]
 * PRE_CLIENT_CALL=tp: clnt_tp_create(getnetconfigent(NETID)) instead;
 * =vers: clnt_create_vers (versions 1 to 3).
 * PRE_CLIENT_GSS=SERVICE@HOST:integrity|privacy|none: the calls go with
 * an RPCSEC_GSS context (libtirpc's rpc_gss_seccreate, Kerberos V5),
 * destroyed before PRE_EXIT.  PRE_CLIENT_AUTH=sys: with AUTH_SYS.
 * It ends as libtirpc programs do: auth_destroy(cl->cl_auth), then
 * clnt_destroy(cl), which must leave the auth alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rpc/rpc.h>
#include <rpc/rpcsec_gss.h>
#include "pre_echo.h"

/* PRE_CLIENT_GSS: cl's auth an RPCSEC_GSS context; 0, or -1 said. */
static int gss_auth(CLIENT *cl, const char *spec)
{
	char *s = strdup(spec), *level = s ? strrchr(s, ':') : NULL;
	rpc_gss_service_t svc;
	AUTH *a;

	if (!level) {
		fprintf(stderr, "PRE_CLIENT_GSS=%s: SERVICE@HOST:LEVEL\n", spec);
		free(s);
		return -1;
	}
	*level++ = '\0';
	svc = !strcmp(level, "none") ? rpcsec_gss_svc_none :
	      !strcmp(level, "integrity") ? rpcsec_gss_svc_integrity :
	      rpcsec_gss_svc_privacy;
	a = rpc_gss_seccreate(cl, s, "kerberos_v5", svc, NULL, NULL, NULL);
	if (!a) {
		clnt_pcreateerror("rpc_gss_seccreate");
		free(s);
		return -1;
	}
	auth_destroy(cl->cl_auth);
	cl->cl_auth = a;
	fprintf(stderr, "pre_client: RPCSEC_GSS context with %s, %s\n", s,
		level);
	free(s);
	return 0;
}

int main(int argc, char **argv)
{
	struct timeval to = { 30, 0 };
	const char *expect = argc > 4 && strcmp(argv[4], "-") ? argv[4] : NULL;
	unsigned int i, n, ok = 0;
	pre_bytes arg, *res;
	pre_str *netid;
	const char *how;
	CLIENT *cl;
	char *buf;

	if (argc < 4) {
		fprintf(stderr, "usage: pre_client HOST NETID N [NETID] [exit]\n");
		return 2;
	}
	n = (unsigned int)strtoul(argv[3], NULL, 0);
	how = getenv("PRE_CLIENT_CALL");
	if (how && !strcmp(how, "tp")) {
		struct netconfig *nc = getnetconfigent(argv[2]);

		if (!nc) {
			fprintf(stderr, "getnetconfigent(%s): %s\n", argv[2], nc_sperror());
			return 3;
		}
		cl = clnt_tp_create(argv[1], PRE_PROG, PRE_VERS, nc);
		freenetconfigent(nc);
	} else if (how && !strcmp(how, "vers")) {
		rpcvers_t got = 0;

		cl = clnt_create_vers(argv[1], PRE_PROG, &got, 1, 3, argv[2]);
		if (cl && got != PRE_VERS) {
			fprintf(stderr, "clnt_create_vers: version %lu\n", (unsigned long)got);
			return 1;
		}
	} else {
		cl = clnt_create(argv[1], PRE_PROG, PRE_VERS, argv[2]);
	}
	if (!cl) {
		clnt_pcreateerror(argv[1]);
		return 3;
	}
	clnt_control(cl, CLSET_TIMEOUT, (char *)&to);
	if (getenv("PRE_CLIENT_GSS") && gss_auth(cl, getenv("PRE_CLIENT_GSS")))
		return 3;
	if (getenv("PRE_CLIENT_AUTH") && !strcmp(getenv("PRE_CLIENT_AUTH"), "sys")) {
		auth_destroy(cl->cl_auth);
		cl->cl_auth = authunix_create_default();
	}
	buf = malloc(4096);
	for (i = 0; i < n; i++) {
		unsigned int len = 1 + (i * 97) % 3000, j;

		for (j = 0; j < len; j++)
			buf[j] = (char)(i + j * 7);
		arg.pre_bytes_len = len;
		arg.pre_bytes_val = buf;
		res = pre_echo_1(&arg, cl);
		if (!res) {
			clnt_perror(cl, "PRE_ECHO");
			break;
		}
		if (res->pre_bytes_len == len && !memcmp(res->pre_bytes_val, buf, len))
			ok++;
		else
			fprintf(stderr, "call %u: reply differs (%u bytes)\n", i,
				res->pre_bytes_len);
		xdr_free((xdrproc_t)xdr_pre_bytes, (char *)res);
	}
	netid = pre_netid_1(NULL, cl);
	printf("calls %u verified %u server-netid %s\n", n, ok,
	       netid ? *netid : "(failed)");
	/* RPCSEC_GSS_DESTROY while the server runs; PRE_EXIT without. */
	if (getenv("PRE_CLIENT_GSS")) {
		auth_destroy(cl->cl_auth);
		cl->cl_auth = authnone_create();
	}
	if (argc > 5 && !strcmp(argv[5], "exit") && !pre_exit_1(NULL, cl))
		clnt_perror(cl, "PRE_EXIT");
	if (ok != n || !netid || (expect && strcmp(*netid, expect))) {
		fprintf(stderr, "pre_client: %u of %u verified, server netid %s "
			"(expected %s)\n", ok, n, netid ? *netid : "?",
			expect ? expect : "any");
		auth_destroy(cl->cl_auth);
		clnt_destroy(cl);
		return 1;
	}
	auth_destroy(cl->cl_auth);
	clnt_destroy(cl);
	free(buf);
	return 0;
}
