/*
 * A client's port from rpcbind: RPCBPROC_DUMP (version 4, else 3) over
 * TCP to port 111 of the server, bounded by one deadline, and the
 * registration of the program under netid rdma/rdma6 picked from it.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <rpc/rpc.h>
#include <rpc/rpcb_prot.h>
#include "netid.h"
#include "rpcb_lookup.h"
#include "transport.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A TCP connection to addr within the deadline; the fd or -errno. */
static int connect_by(const struct addrinfo *ai, long long deadline)
{
	struct pollfd pfd;
	socklen_t len = sizeof(int);
	int fd, err = 0, left;

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		err = -errno;
		goto fail;
	}
	pfd.fd = fd;
	pfd.events = POLLOUT;
	left = (int)(deadline - now_ms());
	if (left <= 0 || poll(&pfd, 1, left) != 1) {
		err = -ETIMEDOUT;
		goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
		err = err ? -err : -errno;
		goto fail;
	}
	/* libtirpc's record stream writes a blocking descriptor. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		err = -errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return err;
}

static int dump_pick(int fd, const struct addrinfo *ai, rpcprog_t prog,
		     rpcvers_t vers, const char *netid, long long deadline)
{
	struct netbuf nb = { ai->ai_addrlen, ai->ai_addrlen, ai->ai_addr };
	rpcvers_t v = RPCBVERS4;
	rpcblist_ptr list = NULL;
	enum clnt_stat st;
	struct timeval tv;
	long long left;
	CLIENT *cl;
	int rc;

	cl = clnt_vc_create(fd, &nb, RPCBPROG, RPCBVERS4, 0, 0);
	if (!cl)
		return -ECONNREFUSED;
	for (;;) {
		left = deadline - now_ms();
		if (left <= 0) {
			rc = -ETIMEDOUT;
			break;
		}
		tv.tv_sec = (time_t)(left / 1000);
		tv.tv_usec = (suseconds_t)(left % 1000 * 1000);
		st = clnt_call(cl, RPCBPROC_DUMP, (xdrproc_t)(void (*)(void))xdr_void, NULL,
			       (xdrproc_t)xdr_rpcblist_ptr, (char *)&list, tv);
		if (st == RPC_PROGVERSMISMATCH && v == RPCBVERS4) {
			v = RPCBVERS;
			clnt_control(cl, CLSET_VERS, (char *)&v);
			continue;
		}
		if (st != RPC_SUCCESS) {
			rc = st == RPC_TIMEDOUT ? -ETIMEDOUT : -EPROTO;
			break;
		}
		rc = rpcrdma_rpcb_pick(list, prog, vers, netid);
		clnt_freeres(cl, (xdrproc_t)xdr_rpcblist_ptr, (char *)&list);
		break;
	}
	clnt_destroy(cl);
	return rc;
}

int rpcrdma_rpcb_lookup(const char *host, rpcprog_t prog, rpcvers_t vers,
			unsigned int timeout_ms, const char **netid)
{
	struct addrinfo hints, *res;
	long long deadline = now_ms() + timeout_ms;
	int fd, rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	*netid = RPCRDMA_NETID;
	rc = getaddrinfo(host, "111", &hints, &res);
	if (rc)
		return rc == EAI_SYSTEM ? -errno : -EHOSTUNREACH;
	*netid = res->ai_family == AF_INET6 ? RPCRDMA_NETID6 : RPCRDMA_NETID;
	fd = connect_by(res, deadline);
	if (fd < 0) {
		freeaddrinfo(res);
		return fd;
	}
	rc = dump_pick(fd, res, prog, vers, *netid, deadline);
	close(fd);
	freeaddrinfo(res);
	return rc;
}

int rpcrdma_rpcb_port(const char *host, rpcprog_t prog, rpcvers_t vers,
		      const struct rpcrdma_options *o, char *buf, size_t len)
{
	const char *netid;
	int port = rpcrdma_rpcb_lookup(host, prog, vers,
				       o->ro_rpcbind_timeout_ms, &netid);

	int from = port > 0;

	if (from) {
		RPCRDMA_DBG("client: port %d of program %lu version %lu from "
			    "rpcbind on %s (netid %s)", port, (unsigned long)prog,
			    (unsigned long)vers, host, netid);
	} else {
		RPCRDMA_DBG("client: rpcbind on %s has no %s port of program %lu "
			    "version %lu (%s): the port key, %u", host, netid,
			    (unsigned long)prog, (unsigned long)vers,
			    strerror(-port), o->ro_port);
		port = (int)o->ro_port;
	}
	snprintf(buf, len, "%d", port);
	return from;
}
