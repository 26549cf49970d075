/*
 * The registry of transport descriptors and rpcrdma_fd_sockinfo(3): a
 * table indexed by descriptor, grown as needed, under one lock; what a
 * socket query on xp_fd (or CLGET_FD) would learn from a TCP socket.
 */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <rpcrdma/rpcrdma.h>
#include "fdreg.h"

struct fdreg_ent {
	unsigned int fe_flags;		/* RPCRDMA_SI_*; 0: not ours */
	struct sockaddr_storage fe_local;
	struct sockaddr_storage fe_peer;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fdreg_ent *reg;
static size_t reg_len;

static void copy_sa(struct sockaddr_storage *dst, const struct sockaddr *sa)
{
	size_t n = 0;

	memset(dst, 0, sizeof(*dst));
	if (!sa)
		return;
	if (sa->sa_family == AF_INET)
		n = sizeof(struct sockaddr_in);
	else if (sa->sa_family == AF_INET6)
		n = sizeof(struct sockaddr_in6);
	memcpy(dst, sa, n);
}

int rpcrdma_fdreg_add(int fd, unsigned int flags, const struct sockaddr *local,
		      const struct sockaddr *peer)
{
	int rc = 0;

	if (fd < 0 || !flags)
		return -EINVAL;
	pthread_mutex_lock(&reg_lock);
	if ((size_t)fd >= reg_len) {
		size_t n = (size_t)fd + 64;
		struct fdreg_ent *r = realloc(reg, n * sizeof(*r));

		if (!r) {
			rc = -ENOMEM;
			goto out;
		}
		memset(r + reg_len, 0, (n - reg_len) * sizeof(*r));
		reg = r;
		reg_len = n;
	}
	reg[fd].fe_flags = flags;
	copy_sa(&reg[fd].fe_local, local);
	copy_sa(&reg[fd].fe_peer, peer);
out:
	pthread_mutex_unlock(&reg_lock);
	return rc;
}

void rpcrdma_fdreg_del(int fd)
{
	pthread_mutex_lock(&reg_lock);
	if (fd >= 0 && (size_t)fd < reg_len)
		memset(&reg[fd], 0, sizeof(reg[fd]));
	pthread_mutex_unlock(&reg_lock);
}

void rpcrdma_fdreg_set_peer(int fd, const struct sockaddr *local,
			    const struct sockaddr *peer)
{
	pthread_mutex_lock(&reg_lock);
	if (fd >= 0 && (size_t)fd < reg_len && reg[fd].fe_flags) {
		copy_sa(&reg[fd].fe_local, local);
		copy_sa(&reg[fd].fe_peer, peer);
	}
	pthread_mutex_unlock(&reg_lock);
}

/* ---- the public call ------------------------------------------------------ */

int rpcrdma_fd_sockinfo(int fd, struct rpcrdma_sockinfo *si)
{
	struct rpcrdma_sockinfo out;
	int rc = 0;

	if (!si || si->si_size < RPCRDMA_SOCKINFO_SIZE_0_1) {
		errno = EINVAL;
		return -1;
	}
	memset(&out, 0, sizeof(out));
	out.si_size = si->si_size;
	out.si_lib_size = sizeof(out);
	pthread_mutex_lock(&reg_lock);
	if (fd < 0 || (size_t)fd >= reg_len || !reg[fd].fe_flags) {
		rc = -ENOTSOCK;
	} else {
		out.si_flags = reg[fd].fe_flags;
		out.si_local = reg[fd].fe_local;
		out.si_peer = reg[fd].fe_peer;
	}
	pthread_mutex_unlock(&reg_lock);
	if (rc) {
		errno = -rc;
		return -1;
	}
	out.si_type = SOCK_STREAM;
	out.si_protocol = IPPROTO_TCP;
	out.si_family = out.si_local.ss_family ? out.si_local.ss_family :
			out.si_peer.ss_family;
	/* Only as far as the program's si_size (rpcrdma(7), ABI). */
	memcpy(si, &out, si->si_size < sizeof(out) ? si->si_size : sizeof(out));
	return 0;
}
