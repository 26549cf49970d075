/*
 * What the verbs files share privately (verbs.c for the endpoint, verbs_cm.c
 * for the listener): a CM or completion channel made non-blocking.
 */
#ifndef RPCRDMA_VERBS_INT_H
#define RPCRDMA_VERBS_INT_H

#include <errno.h>
#include <fcntl.h>

static inline int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

struct ibv_context;
/* Before the first queue on a siw device: its key guard (verbs.c says why). */
void rpcrdma_siw_key_guard(struct ibv_context *verbs);

#endif
