/*
 * The differential test's server: xdrdiff.x's procedures, registered on an
 * svc_rdma_create() listener and on a libtirpc TCP transport, both served
 * by one svc_run().  Echoes return their argument, XD_GEN builds its
 * result from a seed, XD_SINK returns the digest of its argument.
 * -s SERVICE@HOST: RPCSEC_GSS callers are served too (svcauth_gss with
 * that service name; the keytab from KRB5_KTNAME).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <gssapi/gssapi.h>
#include <rpc/rpc.h>
#include <rpc/svc_auth_gss.h>
#include <rpcrdma/rpcrdma.h>
#include "xdrdiff_common.h"

#define ECHO(name, type)						\
bool_t name##_1_svc(type *argp, type *result, struct svc_req *rq)	\
{									\
	(void)rq;							\
	*result = *argp;						\
	memset(argp, 0, sizeof(*argp));					\
	return TRUE;							\
}
ECHO(xd_all, xd_all)
ECHO(xd_str, xd_str)
ECHO(xd_opq, xd_opq)
ECHO(xd_ints, xd_ints)
ECHO(xd_pts, xd_pts)
ECHO(xd_un, xd_un)
ECHO(xd_scalars, xd_scalars)

bool_t xd_null_1_svc(void *argp, void *result, struct svc_req *rq)
{
	(void)argp; (void)result; (void)rq;
	return TRUE;
}

bool_t xd_shutdown_1_svc(void *argp, void *result, struct svc_req *rq)
{
	(void)argp; (void)result; (void)rq;
	return TRUE;
}

bool_t xd_gen_1_svc(xd_gen *argp, xd_all *result, struct svc_req *rq)
{
	uint64_t rng = argp->seed | 1;

	(void)rq;
	xd_gen_all(&rng, argp->size, argp->shape % XD_SHAPES, result);
	return TRUE;
}

bool_t xd_sink_1_svc(xd_all *argp, u_quad_t *result, struct svc_req *rq)
{
	(void)rq;
	*result = xd_digest((xdrproc_t)xdr_xd_all, argp);
	return TRUE;
}

int xdrdiff_prog_1_freeresult(SVCXPRT *transp, xdrproc_t xres, caddr_t result)
{
	(void)transp;
	xdr_free(xres, result);
	return 1;
}

void xdrdiff_prog_1(struct svc_req *rq, SVCXPRT *xprt);

static unsigned long served;
static SVCXPRT *listener;

static void dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
	served++;
	xdrdiff_prog_1(rq, xprt);
	if (rq->rq_proc == XD_SHUTDOWN)
		svc_exit();
}

static SVCXPRT *tcp_listener(const char *port)
{
	struct sockaddr_in sin;
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return NULL;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)(atoi(port) + 5000));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 16)) {
		perror("tcp bind/listen");
		close(fd);
		return NULL;
	}
	/* The most libtirpc takes (256 KiB): RPCSEC_GSS integrity and
	 * privacy over TCP need a whole body in one record buffer. */
	return svctcp_create(fd, 256 << 10, 256 << 10);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *ready = NULL, *service = NULL;
	struct rpcrdma_options o;
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;
	SVCXPRT *tcp;
	FILE *f;
	int c;

	rpcrdma_options_init(&o);
	while ((c = getopt(argc, argv, "a:p:r:s:")) != -1) {
		switch (c) {
		case 's': service = optarg; break;
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'r': ready = optarg; break;
		default: return 2;
		}
	}
	if (!addr || !port || !ready) {
		fprintf(stderr, "usage: xdrdiff_server -a ADDR -p PORT -r READYFILE "
			"[-s SERVICE@HOST]\n");
		return 2;
	}
	if (service) {
		gss_buffer_desc nb = { strlen(service), (void *)service };
		OM_uint32 maj, min;
		gss_name_t name;

		maj = gss_import_name(&min, &nb, GSS_C_NT_HOSTBASED_SERVICE,
				      &name);
		if (maj != GSS_S_COMPLETE || !svcauth_gss_set_svc_name(name)) {
			fprintf(stderr, "xdrdiff_server: service name %s "
				"refused\n", service);
			return 1;
		}
		gss_release_name(&min, &name);
	}
	listener = svc_rdma_create(addr, port, &o);
	if (!listener) {
		clnt_pcreateerror("svc_rdma_create");
		return 1;
	}
	tcp = tcp_listener(port);
	if (!tcp) {
		fprintf(stderr, "svctcp_create failed\n");
		return 1;
	}
	if (!svc_reg(listener, XDRDIFF_PROG, XDRDIFF_VERS, dispatch, NULL) ||
	    !svc_register(tcp, XDRDIFF_PROG, XDRDIFF_VERS, dispatch, 0)) {
		fprintf(stderr, "svc_reg failed\n");
		return 1;
	}
	f = fopen(ready, "w");
	if (!f)
		return 1;
	fclose(f);
	svc_run();
	svc_rdma_get_stats(listener, &s);
	printf("server: %lu calls served, %llu of them over RDMA\n", served,
	       (unsigned long long)s.rs_calls);
	return 0;
}
