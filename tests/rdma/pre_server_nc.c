/*
 * A server of the preload's program that names netid rdma itself, the
 * ways a libtirpc program can: svc_create(), svc_tp_create() with
 * getnetconfigent("rdma"), or svc_tli_create() then svc_reg().  The
 * dispatch is rpcgen's (-m); linked with libtirpc only.
 *   pre_server_nc create|tp|tli READYFILE
 */
#include <stdio.h>
#include <string.h>
#include <rpc/rpc.h>
#include "pre_echo.h"

void pre_prog_1(struct svc_req *rq, SVCXPRT *xprt);

int main(int argc, char **argv)
{
	struct netconfig *nc;
	SVCXPRT *x;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: pre_server_nc create|tp|tli READYFILE\n");
		return 2;
	}
	if (!strcmp(argv[1], "create")) {
		if (svc_create(pre_prog_1, PRE_PROG, PRE_VERS, "rdma") != 1) {
			fprintf(stderr, "svc_create(rdma) failed\n");
			return 1;
		}
	} else {
		nc = getnetconfigent("rdma");
		if (!nc) {
			fprintf(stderr, "getnetconfigent(rdma): %s\n", nc_sperror());
			return 1;
		}
		if (!strcmp(argv[1], "tp")) {
			x = svc_tp_create(pre_prog_1, PRE_PROG, PRE_VERS, nc);
		} else {
			x = svc_tli_create(RPC_ANYFD, nc, NULL, 0, 0);
			if (x && !svc_reg(x, PRE_PROG, PRE_VERS, pre_prog_1, nc))
				x = NULL;
		}
		if (!x) {
			fprintf(stderr, "%s(rdma) failed\n", argv[1]);
			return 1;
		}
		freenetconfigent(nc);
	}
	f = fopen(argv[2], "w");
	if (!f || fclose(f))
		return 1;
	svc_run();
	return 1;
}
