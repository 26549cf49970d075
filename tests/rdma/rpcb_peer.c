/*
 * rpcbind and the port key in the test bed (tests/rdma/rpcb-cases.sh): a
 * server that listens with svc_rdma_create() and registers with svc_reg()
 * and rpcrdma_getnetconfigent("rdma"), and a client that connects with a
 * NULL port, so that the port comes from rpcbind or the port key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>

#define RP_VERS		1
#define RP_NULL		0
#define RP_INC		1	/* u_int -> u_int + 1 */
#define RP_STOP		2	/* reply, then leave svc_run() */

static int stop;

static void dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
	u_int v = 0;

	switch (rq->rq_proc) {
	case RP_NULL:
		svc_sendreply(xprt, (xdrproc_t)(void (*)(void))xdr_void, NULL);
		break;
	case RP_INC:
		if (!svc_getargs(xprt, (xdrproc_t)xdr_u_int, (char *)&v)) {
			svcerr_decode(xprt);
			break;
		}
		v++;
		svc_sendreply(xprt, (xdrproc_t)xdr_u_int, (char *)&v);
		break;
	case RP_STOP:
		svc_sendreply(xprt, (xdrproc_t)(void (*)(void))xdr_void, NULL);
		stop = 1;
		svc_exit();
		break;
	default:
		svcerr_noproc(xprt);
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: rpcb_peer server -a ADDR|- [-p PORT] [-R] -r READY -P PROG\n"
		"       rpcb_peer client -a HOST [-p PORT] -P PROG [-n CALLS] [-S]\n"
		"       rpcb_peer badreg -P PROG UADDR\n");
	return 2;
}

static int server(const char *addr, const char *port, int reg,
		  const char *ready, rpcprog_t prog)
{
	struct netconfig *nc = NULL;
	SVCXPRT *l;
	FILE *f;

	l = svc_rdma_create(addr, port, NULL);
	if (!l) {
		clnt_pcreateerror("server: svc_rdma_create");
		return 1;
	}
	if (reg) {
		nc = rpcrdma_getnetconfigent("rdma");
		if (!nc) {
			perror("server: rpcrdma_getnetconfigent");
			return 1;
		}
	}
	/* A stale registration of an earlier run would only be replaced. */
	if (reg)
		svc_unreg(prog, RP_VERS);
	if (!svc_reg(l, prog, RP_VERS, dispatch, nc)) {
		clnt_pcreateerror("server: svc_reg");
		return 1;
	}
	printf("server: listening port %u netid %s registered %s\n",
	       (unsigned)l->xp_port, l->xp_netid, reg ? "yes" : "no");
	fflush(stdout);
	if (nc)
		freenetconfigent(nc);
	f = fopen(ready, "w");
	if (!f || fclose(f))
		return 1;
	svc_run();
	if (reg)
		svc_unreg(prog, RP_VERS);
	printf("server: stopped %s\n", stop ? "by the client" : "on its own");
	return stop ? 0 : 1;
}

static int client(const char *host, const char *port, rpcprog_t prog,
		  unsigned int calls, int send_stop)
{
	struct timeval tv = { 25, 0 };
	enum clnt_stat st;
	unsigned int i;
	u_int in, out;
	CLIENT *cl;

	cl = clnt_rdma_create(host, port, prog, RP_VERS, NULL);
	if (!cl) {
		clnt_pcreateerror("client: clnt_rdma_create");
		printf("client: create failed: cf_stat %d errno %d\n",
		       (int)rpc_createerr.cf_stat, rpc_createerr.cf_error.re_errno);
		return 3;
	}
	for (i = 0; i < calls; i++) {
		in = 1000 + i;
		out = 0;
		st = clnt_call(cl, RP_INC, (xdrproc_t)xdr_u_int, (char *)&in,
			       (xdrproc_t)xdr_u_int, (char *)&out, tv);
		if (st != RPC_SUCCESS || out != in + 1) {
			clnt_perror(cl, "client: call");
			printf("client: call %u: status %d, %u for %u\n", i, (int)st,
			       out, in);
			return 1;
		}
	}
	printf("client: %u calls verified\n", calls);
	if (send_stop) {
		st = clnt_call(cl, RP_STOP, (xdrproc_t)(void (*)(void))xdr_void, NULL,
			       (xdrproc_t)(void (*)(void))xdr_void, NULL, tv);
		if (st != RPC_SUCCESS) {
			clnt_perror(cl, "client: stop");
			return 1;
		}
	}
	clnt_destroy(cl);
	return 0;
}

/* A registration whose address is garbage, as a broken or hostile
 * rpcbind could hand out: RPCBPROC_SET by hand on the local rpcbind. */
static int badreg(rpcprog_t prog, const char *uaddr)
{
	struct timeval tv = { 10, 0 };
	RPCB r = { .r_prog = prog, .r_vers = RP_VERS, .r_netid = (char *)"rdma",
		   .r_addr = (char *)uaddr, .r_owner = (char *)"0" };
	struct sockaddr_un sun = { .sun_family = AF_LOCAL };
	struct netbuf nb = { sizeof(sun), sizeof(sun), &sun };
	bool_t ok = FALSE;
	CLIENT *cl;
	int fd;

	/* rpcbind's local socket: a SET from it needs no network. */
	strcpy(sun.sun_path, "/var/run/rpcbind.sock");
	fd = socket(AF_LOCAL, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		perror("badreg: /var/run/rpcbind.sock");
		return 1;
	}
	cl = clnt_vc_create(fd, &nb, RPCBPROG, RPCBVERS, 0, 0);
	if (!cl) {
		clnt_pcreateerror("badreg: clnt_vc_create");
		return 1;
	}
	if (clnt_call(cl, RPCBPROC_SET, (xdrproc_t)xdr_rpcb, (char *)&r,
		      (xdrproc_t)xdr_bool, (char *)&ok, tv) != RPC_SUCCESS || !ok) {
		clnt_perror(cl, "badreg: RPCBPROC_SET");
		return 1;
	}
	clnt_destroy(cl);
	close(fd);
	printf("badreg: %lu registered at %s\n", (unsigned long)prog, uaddr);
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *ready = NULL, *mode;
	unsigned int calls = 5;
	rpcprog_t prog = 0;
	int c, reg = 0, send_stop = 0;

	if (argc < 2)
		return usage();
	mode = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "a:p:r:P:n:RS")) != -1) {
		switch (c) {
		case 'a': addr = strcmp(optarg, "-") ? optarg : NULL; break;
		case 'p': port = optarg; break;
		case 'r': ready = optarg; break;
		case 'P': prog = (rpcprog_t)strtoul(optarg, NULL, 0); break;
		case 'n': calls = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'R': reg = 1; break;
		case 'S': send_stop = 1; break;
		default: return usage();
		}
	}
	if (!prog)
		return usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "server") && ready)
		return server(addr, port, reg, ready, prog);
	if (!strcmp(mode, "client") && addr)
		return client(addr, port, prog, calls, send_stop);
	if (!strcmp(mode, "badreg") && optind < argc)
		return badreg(prog, argv[optind]);
	return usage();
}
