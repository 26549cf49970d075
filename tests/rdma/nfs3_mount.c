/*
 * MOUNT v3 (RFC 1813 appendix I) of the tests' NFSv3 server, over libtirpc
 * TCP on a fixed port (no rpcbind: the client is told the port): MNT gives
 * the root handle, DUMP and EXPORT answer empty lists, UMNT ends svc_run().
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <rpc/rpc.h>
#include "nfs3_fs.h"

bool_t xdr_nothing(XDR *x, void *p)
{
	(void)x; (void)p;
	return TRUE;
}

/* MNT of "/" or the directory's own path gives the root handle. */
void mount_dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
	char *path = NULL, fh[FH_LEN];
	static int flavors[] = { AUTH_SYS };
	mountres3 r;
	bool_t none = FALSE;
	struct stat st;

	switch (rq->rq_proc) {
	case MOUNTPROC3_NULL:
	case 4:		/* UMNTALL */
		svc_sendreply(xprt, (xdrproc_t)xdr_nothing, NULL);
		return;
	case 2:		/* DUMP */
	case 5:		/* EXPORT */
		svc_sendreply(xprt, (xdrproc_t)xdr_bool, (char *)&none);
		return;
	case MOUNTPROC3_MNT:
	case MOUNTPROC3_UMNT:
		break;
	default:
		svcerr_noproc(xprt);
		return;
	}
	if (!svc_getargs(xprt, (xdrproc_t)xdr_dirpath, (char *)&path)) {
		svcerr_decode(xprt);
		return;
	}
	if (rq->rq_proc == MOUNTPROC3_UMNT) {
		svc_sendreply(xprt, (xdrproc_t)xdr_nothing, NULL);
		printf("nfs3_server: UMNT %s\n", path);
		svc_freeargs(xprt, (xdrproc_t)xdr_dirpath, (char *)&path);
		svc_exit();
		return;
	}
	memset(&r, 0, sizeof(r));
	if (strcmp(path, "/") && strcmp(path, fs_root()))
		r.fhs_status = MNT3ERR_NOENT;
	else if (lstat(fs_root(), &st))
		r.fhs_status = MNT3ERR_IO;
	else {
		nfs_fh3 h;

		fs_fh(st.st_ino, &h, fh);
		r.mountres3_u.mountinfo.fhandle.fhandle3_len = h.data.data_len;
		r.mountres3_u.mountinfo.fhandle.fhandle3_val = h.data.data_val;
		r.mountres3_u.mountinfo.auth_flavors.auth_flavors_len = 1;
		r.mountres3_u.mountinfo.auth_flavors.auth_flavors_val = flavors;
	}
	printf("nfs3_server: MNT %s: %d\n", path, (int)r.fhs_status);
	fflush(stdout);
	svc_sendreply(xprt, (xdrproc_t)xdr_mountres3, (char *)&r);
	svc_freeargs(xprt, (xdrproc_t)xdr_dirpath, (char *)&path);
}

SVCXPRT *mount_listener(const char *addr, const char *port)
{
	struct sockaddr_in sin;
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return NULL;
	/* The restarted server binds the port its predecessor left. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(port));
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 16)) {
		perror("nfs3_server: mount bind/listen");
		close(fd);
		return NULL;
	}
	return svctcp_create(fd, 0, 0);
}

