/*
 * A server's view of who it serves and how many: each connection SVCXPRT
 * carries the peer's address (svc_getrpccaller) and the local one
 * (xp_ltaddr); a listener refuses connections past max_connections; a
 * connection holds no more than max_conn_memory; a Call of another RPC
 * version is told so.  Decisions only, no verbs.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <infiniband/ib.h>
#include <arpa/inet.h>
#include "pool.h"
#include "svc_limits.h"

static socklen_t sa_len(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	default:
		return 0;
	}
}

/*
 * Point nb at a copy of sa kept in a: maxlen is the storage, len the
 * address (0 for a family we do not know, so nobody reads garbage).
 */
void svc_rdma_set_netbuf(struct netbuf *nb, struct svc_rdma_addr *a,
			 const struct sockaddr *sa)
{
	socklen_t len = sa ? sa_len(sa) : 0;

	memset(a, 0, sizeof(*a));
	if (len > sizeof(a->sa_ss))
		len = 0;
	if (len)
		memcpy(&a->sa_ss, sa, len);
	nb->buf = &a->sa_ss;
	nb->maxlen = sizeof(a->sa_ss);
	nb->len = len;
}

int svc_rdma_may_accept(uint32_t nconns, uint32_t max)
{
	return !max || nconns < max;
}

uint64_t svc_rdma_mem_cost(uint64_t len)
{
	const uint64_t u = RPCRDMA_POOL_UNIT;

	if (!len)
		return u;
	if (len > UINT64_MAX - u)
		return UINT64_MAX;	/* more than any limit grants */
	return (len + u - 1) / u * u;
}

uint64_t svc_rdma_ring_bytes(uint32_t nrecv, uint32_t recv_size,
			     uint32_t nsend, uint32_t send_size,
			     uint64_t scratch)
{
	/* 32 x 32 bits: each product fits; so does their sum with scratch
	 * as large as any allocation can be. */
	return (uint64_t)nrecv * recv_size + (uint64_t)nsend * send_size +
	       scratch;
}

int svc_rdma_mem_rings_fit(const struct svc_rdma_mem *m)
{
	return !m->sm_limit || m->sm_rings <= m->sm_limit;
}

/* What the limit leaves for chunks now (no limit: everything). */
static uint64_t mem_left(const struct svc_rdma_mem *m)
{
	uint64_t used = m->sm_rings + m->sm_chunks;

	if (!m->sm_limit)
		return UINT64_MAX;
	return used >= m->sm_limit ? 0 : m->sm_limit - used;
}

int svc_rdma_mem_take(struct svc_rdma_mem *m, uint64_t len)
{
	uint64_t cost = svc_rdma_mem_cost(len);

	if (cost > mem_left(m))
		return -ENOBUFS;
	m->sm_chunks += cost;
	return 0;
}

void svc_rdma_mem_give(struct svc_rdma_mem *m, uint64_t len)
{
	uint64_t cost = svc_rdma_mem_cost(len);

	m->sm_chunks = cost > m->sm_chunks ? 0 : m->sm_chunks - cost;
}

void svc_rdma_mem_trim(struct svc_rdma_mem *m, uint64_t len, uint64_t keep)
{
	if (keep >= len)
		return;
	svc_rdma_mem_give(m, len);
	m->sm_chunks += svc_rdma_mem_cost(keep);
}

uint64_t svc_rdma_mem_room(const struct svc_rdma_mem *m, uint64_t want)
{
	uint64_t left = mem_left(m) / RPCRDMA_POOL_UNIT * RPCRDMA_POOL_UNIT;

	return want < left ? want : left;
}

/*
 * xid, msg_type CALL, rpcvers: RFC 5531 section 9 asks a server to deny
 * a Call of another version with RPC_MISMATCH rather than ignore it.
 */
int svc_rdma_other_rpcvers(const void *msg, uint32_t len, uint32_t *xidp)
{
	uint32_t w[3];

	if (!msg || len < sizeof(w))
		return 0;
	memcpy(w, msg, sizeof(w));
	if (ntohl(w[1]) != CALL || ntohl(w[2]) == RPC_MSG_VERSION)
		return 0;
	*xidp = ntohl(w[0]);
	return 1;
}

int svc_rdma_is_idle(uint64_t last_ns, uint64_t now_ns, uint32_t timeout_ms)
{
	return timeout_ms && now_ns > last_ns &&
	       now_ns - last_ns >= (uint64_t)timeout_ms * 1000000u;
}

/* At most lim (0: unknown, then at most 1), never past the CM's 255. */
static uint32_t depth_cap(uint32_t want, uint32_t lim)
{
	if (!lim)
		lim = 1;
	if (lim > 255)
		lim = 255;
	return want < lim ? want : lim;
}

/*
 * Never more Reads than the peer serves: more would be refused by its QP
 * (iWARP terminates the connection), and the kernel's svcrdma likewise
 * takes its depth from initiator_depth.  A 0 stays 0: that peer gets
 * ERR_CHUNK for Read chunks (svc_recv.c), never a wait for a grant that
 * cannot come.
 */
void svc_rdma_read_depths(uint32_t ev_init, uint32_t ev_resp,
			  uint32_t dev_init_max, uint32_t dev_resp_max,
			  uint32_t *ord, uint32_t *ird)
{
	*ord = depth_cap(ev_init, dev_init_max);
	*ird = depth_cap(ev_resp, dev_resp_max);
}
