/*
 * librpcrdma-preload: socket queries on RDMA transport descriptors (xp_fd,
 * CLGET_FD) answered as a TCP socket would (rpcrdma_fd_sockinfo(3)).  The
 * real call goes first; only its ENOTSOCK on a descriptor of the library
 * is answered here, so real sockets cost nothing more.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <rpcrdma/rpcrdma.h>
#include "preload.h"

/* SO_RCVBUF/SO_SNDBUF: a nominal size; RDMA credits, not a socket buffer,
 * bound what is in flight. */
#define SOCKQ_NOMINAL_BUF	(256 * 1024)

/* fd's answer, when the real call said ENOTSOCK and fd is ours. */
static bool ours(int rc, int fd, struct rpcrdma_sockinfo *si)
{
	int saved = errno;

	if (rc == 0 || saved != ENOTSOCK)
		return false;
	si->si_size = sizeof(*si);
	if (rpcrdma_fd_sockinfo(fd, si)) {
		errno = saved;
		return false;
	}
	return true;
}

static socklen_t sa_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	       ss->ss_family == AF_INET ? sizeof(struct sockaddr_in) : 0;
}

static int give_addr(const struct sockaddr_storage *ss, struct sockaddr *sa,
		     socklen_t *len)
{
	socklen_t n = sa_len(ss);

	if (!sa || !len) {
		errno = EFAULT;
		return -1;
	}
	if (!n) {
		errno = ENOTCONN;
		return -1;
	}
	memcpy(sa, ss, *len < n ? *len : n);
	*len = n;
	return 0;
}

static int give_int(int v, void *val, socklen_t *len)
{
	if (!val || !len || *len < sizeof(int)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(val, &v, sizeof(v));
	*len = sizeof(int);
	return 0;
}

PRELOAD_EXPORT int getsockopt(int fd, int level, int name, void *val,
			      socklen_t *len)
{
	static int (*next)(int, int, int, void *, socklen_t *);
	struct rpcrdma_sockinfo si;
	int rc;

	PRELOAD_NEXT(next, "getsockopt", NULL);
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	rc = next(fd, level, name, val, len);
	if (!ours(rc, fd, &si))
		return rc;
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_TYPE:
			return give_int(si.si_type, val, len);
		case SO_DOMAIN:
			return give_int(si.si_family, val, len);
		case SO_PROTOCOL:
			return give_int(si.si_protocol, val, len);
		case SO_ACCEPTCONN:
			return give_int(!!(si.si_flags & RPCRDMA_SI_LISTENER), val, len);
		case SO_ERROR:
		case SO_KEEPALIVE:
			return give_int(0, val, len);
		case SO_REUSEADDR:
			return give_int(!!(si.si_flags & RPCRDMA_SI_LISTENER), val, len);
		case SO_RCVBUF:
		case SO_SNDBUF:
			return give_int(SOCKQ_NOMINAL_BUF, val, len);
		}
	} else if (level == IPPROTO_TCP && name == TCP_NODELAY) {
		/* A Send leaves at once: nothing is ever delayed. */
		return give_int(1, val, len);
	}
	errno = ENOPROTOOPT;
	return -1;
}

/* The options programs set on TCP transports: accepted, without effect. */
PRELOAD_EXPORT int setsockopt(int fd, int level, int name, const void *val,
			      socklen_t len)
{
	static int (*next)(int, int, int, const void *, socklen_t);
	struct rpcrdma_sockinfo si;
	int rc;

	PRELOAD_NEXT(next, "setsockopt", NULL);
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	rc = next(fd, level, name, val, len);
	if (!ours(rc, fd, &si))
		return rc;
	if ((level == SOL_SOCKET &&
	     (name == SO_KEEPALIVE || name == SO_RCVBUF || name == SO_SNDBUF ||
	      name == SO_REUSEADDR)) ||
	    (level == IPPROTO_TCP && name == TCP_NODELAY)) {
		preload_log(PRELOAD_LOG_DEBUG, "setsockopt(%d, %d, %d) on an RDMA "
			    "transport: accepted, no effect", fd, level, name);
		return 0;
	}
	errno = ENOPROTOOPT;
	return -1;
}

PRELOAD_EXPORT int getsockname(int fd, struct sockaddr *sa, socklen_t *len)
{
	static int (*next)(int, struct sockaddr *, socklen_t *);
	struct rpcrdma_sockinfo si;
	int rc;

	PRELOAD_NEXT(next, "getsockname", NULL);
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	rc = next(fd, sa, len);
	if (!ours(rc, fd, &si))
		return rc;
	return give_addr(&si.si_local, sa, len);
}

PRELOAD_EXPORT int getpeername(int fd, struct sockaddr *sa, socklen_t *len)
{
	static int (*next)(int, struct sockaddr *, socklen_t *);
	struct rpcrdma_sockinfo si;
	int rc;

	PRELOAD_NEXT(next, "getpeername", NULL);
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	rc = next(fd, sa, len);
	if (!ours(rc, fd, &si))
		return rc;
	return give_addr(&si.si_peer, sa, len);
}
