/*
 * The packages' smoke test program: README.md's example made whole, built
 * against the installed librpcrdma-dev only (pkg-config librpcrdma) and run
 * over RDMA by tests/pkg/smoke.sh.  One file, a server and a client.
 */
#include <rpcrdma/rpcrdma.h>          /* pkg-config librpcrdma */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG	0x20000aaa
#define VERS	1
#define PROC_XOR	1	/* returns its bytes XOR 0x5a */
#define PROC_STOP	2	/* replies, then the server's svc_run() returns */

struct blob {
	u_int len;
	char *val;
};

static bool_t xdr_blob(XDR *x, struct blob *b)
{
	return xdr_bytes(x, &b->val, &b->len, 4u << 20);
}

/* xdr_void, typed as xdrproc_t expects. */
static bool_t xdr_none(XDR *x, void *p)
{
	return TRUE;
}

static unsigned long served;
static char seen[1024];		/* the length of each Call run, for the log */

static void prog_dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
	struct blob b = { 0, NULL };
	u_int i;

	switch (rq->rq_proc) {
	case NULLPROC:
		svc_sendreply(xprt, (xdrproc_t)xdr_none, NULL);
		return;
	case PROC_XOR:
		if (!svc_getargs(xprt, (xdrproc_t)xdr_blob, (char *)&b)) {
			svcerr_decode(xprt);
			return;
		}
		for (i = 0; i < b.len; i++)
			b.val[i] ^= 0x5a;
		served++;
		if (strlen(seen) < sizeof(seen) - 16)
			snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen),
				 " %u", b.len);
		svc_sendreply(xprt, (xdrproc_t)xdr_blob, (char *)&b);
		svc_freeargs(xprt, (xdrproc_t)xdr_blob, (char *)&b);
		return;
	case PROC_STOP:
		svc_sendreply(xprt, (xdrproc_t)xdr_none, NULL);
		svc_exit();
		return;
	default:
		svcerr_noproc(xprt);
	}
}

/* The file the dynamic linker mapped for librpcrdma, from /proc/self/maps. */
static void print_library(const char *who)
{
	char line[4096], *p;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		if (p && strstr(p, "/librpcrdma.so")) {
			printf("%s: library %s", who, p);
			break;
		}
	}
	if (f)
		fclose(f);
}

static int server(const char *addr, const char *port, const char *ready)
{
	SVCXPRT *xprt = svc_rdma_create(addr, port, NULL);
	FILE *f;

	if (!xprt) {
		clnt_pcreateerror("svc_rdma_create");
		return 1;
	}
	if (!svc_reg(xprt, PROG, VERS, prog_dispatch, NULL)) {
		fprintf(stderr, "svc_reg failed\n");
		return 1;
	}
	print_library("server");
	f = fopen(ready, "w");
	if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f))
		return 1;
	svc_run();
	printf("server: served %lu calls\n", served);
	printf("server: their lengths:%s\n", seen);
	return 0;
}

static int client(const char *host, const char *port, const char *source)
{
	static const u_int sizes[] = { 0, 1, 100, 1000, 4000, 64 * 1024, 1024 * 1024 };
	struct timeval tv = { 60, 0 };
	struct rpcrdma_options o;
	struct rpcrdma_stats st = RPCRDMA_STATS_INIT;
	struct blob arg, res;
	unsigned long calls = 0;
	CLIENT *cl = NULL;
	u_int s, i;
	int tries, round;

	rpcrdma_options_init(&o);
	o.ro_source = source;
	/* A first connect on the emulated bed may fail half-way: retry. */
	for (tries = 0; tries < 50 && !cl; tries++) {
		cl = clnt_rdma_create(host, port, PROG, VERS, &o);
		if (!cl) {
			clnt_pcreateerror("clnt_rdma_create");
			usleep(200 * 1000);
		}
	}
	if (!cl)
		return 1;
	print_library("client");
	printf("client: librpcrdma %s\n", rpcrdma_version());
	for (round = 0; round < 3; round++) {
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			arg.len = sizes[s];
			arg.val = malloc(arg.len + 1);
			for (i = 0; i < arg.len; i++)
				arg.val[i] = (char)(i * 7 + round + s);
			memset(&res, 0, sizeof(res));
			if (clnt_call(cl, PROC_XOR, (xdrproc_t)xdr_blob, (char *)&arg,
				      (xdrproc_t)xdr_blob, (char *)&res, tv) != RPC_SUCCESS) {
				clnt_perror(cl, "clnt_call");
				return 1;
			}
			if (res.len != arg.len) {
				fprintf(stderr, "reply of %u bytes to a call of %u\n",
					res.len, arg.len);
				return 1;
			}
			for (i = 0; i < arg.len; i++)
				if ((res.val[i] ^ 0x5a) != arg.val[i]) {
					fprintf(stderr, "reply byte %u of %u is wrong\n",
						i, arg.len);
					return 1;
				}
			xdr_free((xdrproc_t)xdr_blob, (char *)&res);
			free(arg.val);
			calls++;
		}
	}
	if (clnt_call(cl, PROC_STOP, (xdrproc_t)xdr_none, NULL,
		      (xdrproc_t)xdr_none, NULL, tv) != RPC_SUCCESS) {
		clnt_perror(cl, "clnt_call stop");
		return 1;
	}
	/* A Call sent again runs again on the server: on a new connection
	 * (retransmit), or with a Reply chunk after the server answered
	 * ERR_CHUNK for a Reply too large for inline (retry). */
	if (clnt_control(cl, RPCRDMA_CLGET_STATS, (char *)&st))
		printf("client: reconnects %llu retransmits %llu reply_chunk_retries %llu\n",
		       (unsigned long long)st.rs_reconnects,
		       (unsigned long long)st.rs_retransmits,
		       (unsigned long long)st.rs_reply_chunk_retries);
	clnt_destroy(cl);
	printf("client: %lu calls of 0 B to 1 MiB, every reply verified\n", calls);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "server"))
		return server(argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "client"))
		return client(argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: smoke server ADDR PORT READYFILE\n"
		"       smoke client SERVER PORT SOURCE\n");
	return 2;
}
