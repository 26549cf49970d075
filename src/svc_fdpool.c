/*
 * Threaded listeners: the private eventfds their connections register as
 * xp_fd.  A connection's goes back here when it is destroyed, open, and
 * svc_run() is woken (fp_wakefd, the listener's own xp_fd); on that wake,
 * in svc_run()'s thread, the listener closes every one given back
 * (svc_rdma_fdpool_close_all).  Why not close it at once: svc_run() polls
 * a copy of libtirpc's descriptor table taken before it slept; a
 * descriptor closed under that copy comes back as POLLNVAL, and libtirpc
 * then unregisters the SVCXPRT of that slot, by then NULL, and aborts
 * (assert in __xprt_do_unregister).  An eventfd nobody writes never wakes
 * that copy, so an open one is harmless; and once svc_run() is back from
 * the poll that woke it, it copies the table afresh, without them.  Until
 * then a new connection may take one again.  A program that never runs
 * svc_run() keeps them, at most as many as it had connections at once.
 */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "svc_int.h"

void svc_rdma_fdpool_init(struct svc_rdma_fdpool *p)
{
	p->fp_wakefd = -1;
	p->fp_fds = NULL;
	p->fp_n = p->fp_cap = 0;
	pthread_mutex_init(&p->fp_lock, NULL);
}

int svc_rdma_fdpool_get(struct svc_rdma_fdpool *p)
{
	int fd = -1;

	pthread_mutex_lock(&p->fp_lock);
	if (p->fp_n)
		fd = p->fp_fds[--p->fp_n];
	pthread_mutex_unlock(&p->fp_lock);
	return fd >= 0 ? fd : eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

void svc_rdma_fdpool_put(struct svc_rdma_fdpool *p, int fd)
{
	uint64_t v;

	if (fd < 0)
		return;
	/* Nobody should have written it; if someone did, drain it. */
	while (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		;
	pthread_mutex_lock(&p->fp_lock);
	if (p->fp_n == p->fp_cap) {
		uint32_t cap = p->fp_cap ? 2 * p->fp_cap : 16;
		int *fds = realloc(p->fp_fds, cap * sizeof(*fds));

		if (!fds) {
			/* Out of memory: leak the descriptor, never close
			 * it under svc_run (see above). */
			pthread_mutex_unlock(&p->fp_lock);
			return;
		}
		p->fp_fds = fds;
		p->fp_cap = cap;
	}
	p->fp_fds[p->fp_n++] = fd;
	pthread_mutex_unlock(&p->fp_lock);
	/* svc_run() closes it once it is past the poll that may hold it. */
	v = 1;
	if (p->fp_wakefd >= 0 && write(p->fp_wakefd, &v, sizeof(v)) < 0)
		RPCRDMA_DBG("fdpool: wake: %s", strerror(errno));
}

void svc_rdma_fdpool_close_all(struct svc_rdma_fdpool *p)
{
	int *fds;
	uint32_t n;

	pthread_mutex_lock(&p->fp_lock);
	fds = p->fp_fds;
	n = p->fp_n;
	p->fp_fds = NULL;
	p->fp_n = p->fp_cap = 0;
	pthread_mutex_unlock(&p->fp_lock);
	while (n)
		close(fds[--n]);
	free(fds);
}

void svc_rdma_fdpool_fini(struct svc_rdma_fdpool *p)
{
	while (p->fp_n)
		close(p->fp_fds[--p->fp_n]);
	free(p->fp_fds);
	p->fp_fds = NULL;
	p->fp_cap = 0;
	pthread_mutex_destroy(&p->fp_lock);
}
