/*
 * Per-peer stall budgets, the deciding half (svc_peers.h): a small table
 * of peer addresses that stalled a serving thread, and until when each is
 * refused.  No locking, no I/O: the listener holds ln_lock around it.
 */
#include "config.h"
#include <string.h>
#include <netinet/in.h>
#include "svc_peers.h"

unsigned int svc_rdma_peer_key(const struct sockaddr *sa, uint8_t key[16])
{
	const struct sockaddr_in6 *s6;

	memset(key, 0, 16);
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET) {
		memcpy(key, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 4;
	}
	if (sa->sa_family != AF_INET6)
		return 0;
	s6 = (const struct sockaddr_in6 *)sa;
	if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memcpy(key, &s6->sin6_addr.s6_addr[12], 4);
		return 4;
	}
	memcpy(key, &s6->sin6_addr, 16);
	return 16;
}

int svc_rdma_peer_same(const struct sockaddr *a, const struct sockaddr *b)
{
	uint8_t ka[16], kb[16];
	unsigned int la = svc_rdma_peer_key(a, ka);

	return la && la == svc_rdma_peer_key(b, kb) && !memcmp(ka, kb, la);
}

static struct svc_rdma_peer *find(const struct svc_rdma_peers *t,
				  const uint8_t *key, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < SVC_RDMA_PEERS; i++)
		if (t->pt_peer[i].pe_len == len &&
		    !memcmp(t->pt_peer[i].pe_addr, key, len))
			return (struct svc_rdma_peer *)&t->pt_peer[i];
	return NULL;
}

int svc_rdma_peer_refused(const struct svc_rdma_peers *t,
			  const struct sockaddr *sa, uint64_t now_ns)
{
	uint8_t key[16];
	unsigned int len = svc_rdma_peer_key(sa, key);
	const struct svc_rdma_peer *p = len ? find(t, key, len) : NULL;

	return p && now_ns < p->pe_until_ns;
}

void svc_rdma_peer_penalize(struct svc_rdma_peers *t, const struct sockaddr *sa,
			    uint64_t now_ns, uint64_t penalty_ns)
{
	uint8_t key[16];
	unsigned int i, len = svc_rdma_peer_key(sa, key);
	struct svc_rdma_peer *p;

	if (!len)
		return;
	p = find(t, key, len);
	if (!p) {
		/* A free or expired entry, else the one ending first. */
		p = &t->pt_peer[0];
		for (i = 0; i < SVC_RDMA_PEERS; i++) {
			struct svc_rdma_peer *q = &t->pt_peer[i];

			if (!q->pe_len || q->pe_until_ns <= now_ns) {
				p = q;
				break;
			}
			if (q->pe_until_ns < p->pe_until_ns)
				p = q;
		}
		memcpy(p->pe_addr, key, 16);
		p->pe_len = (uint8_t)len;
		p->pe_until_ns = 0;
	}
	if (p->pe_until_ns < now_ns + penalty_ns)
		p->pe_until_ns = now_ns + penalty_ns;
}

uint32_t svc_rdma_stall_budget_ms(uint32_t stall_ms, uint64_t bytes)
{
	const uint64_t r = SVC_RDMA_STALL_FLOOR_BPS;
	uint64_t ms;

	if (bytes / r > UINT32_MAX / 1000u)
		return UINT32_MAX;
	ms = stall_ms + bytes / r * 1000u + ((bytes % r) * 1000u + r - 1) / r;

	return ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
}

uint64_t svc_rdma_penalty_ns(uint32_t stall_ms)
{
	return (uint64_t)stall_ms * SVC_RDMA_PENALTY_FACTOR * 1000000u;
}
