/*
 * The descriptors of RDMA transports, as rpcrdma_fd_sockinfo(3) answers
 * for them: what each is (listener, server connection, client) and its
 * addresses.  Servers and clients add a descriptor when they hand it to
 * the program (xp_fd, CLGET_FD) and remove it before it closes.
 */
#ifndef RPCRDMA_FDREG_H
#define RPCRDMA_FDREG_H

#include <sys/socket.h>

/* 0, or -EINVAL (fd < 0) / -ENOMEM.  local, peer: NULL for none. */
int rpcrdma_fdreg_add(int fd, unsigned int flags, const struct sockaddr *local,
		      const struct sockaddr *peer);
void rpcrdma_fdreg_del(int fd);
/* The addresses of a registered fd changed (a client's reconnection). */
void rpcrdma_fdreg_set_peer(int fd, const struct sockaddr *local,
			    const struct sockaddr *peer);

#endif /* RPCRDMA_FDREG_H */
