/*
 * Per-peer stall budgets, the deciding half (svc_peers.c, pure,
 * unit-tested natively): which peer addresses spent their budget and until
 * when their new connections are refused.  Keyed by address without the
 * port, as a reconnection comes from a new port.
 */
#ifndef RPCRDMA_SVC_PEERS_H
#define RPCRDMA_SVC_PEERS_H

#include <stdint.h>
#include <sys/socket.h>

/* Peers remembered at once; past that the one whose penalty ends first
 * makes room (a penalty is a throttle, not a ban list). */
#define SVC_RDMA_PEERS 64

/*
 * A peer whose connection stalled (one blocking step reached
 * svc_stall_ms) is refused for this many times svc_stall_ms: whatever it
 * does, it holds the server at most 1/(1 + 30), about 3%, of the time.
 */
#define SVC_RDMA_PENALTY_FACTOR 30

/*
 * A Read or Write chain moves bytes, and moving them takes time even from
 * a healthy peer: its budget is svc_stall_ms plus the time the chain's
 * bytes take at this floor rate (bytes per second: 4 MiB/s, far below any
 * RDMA link, a loaded software one included), so only a peer that stopped
 * is taken for stalled, not one that asked for a large transfer.
 */
#define SVC_RDMA_STALL_FLOOR_BPS (4u << 20)

struct svc_rdma_peer {
	uint8_t pe_addr[16];		/* IPv4 in the first 4 bytes */
	uint8_t pe_len;			/* 4 or 16; 0: a free entry */
	uint64_t pe_until_ns;		/* refused until then */
};

struct svc_rdma_peers {
	struct svc_rdma_peer pt_peer[SVC_RDMA_PEERS];
};

/* The address of sa as a key (an IPv4-mapped IPv6 one as IPv4): its
 * length, 0 for a family without one (never penalized). */
unsigned int svc_rdma_peer_key(const struct sockaddr *sa, uint8_t key[16]);
/* a and b are the same peer address (ports aside). */
int svc_rdma_peer_same(const struct sockaddr *a, const struct sockaddr *b);
/* sa's new connections are refused at now. */
int svc_rdma_peer_refused(const struct svc_rdma_peers *t,
			  const struct sockaddr *sa, uint64_t now_ns);
/* sa spent its budget at now: refused until now + penalty_ns (or later,
 * if already so). */
void svc_rdma_peer_penalize(struct svc_rdma_peers *t, const struct sockaddr *sa,
			    uint64_t now_ns, uint64_t penalty_ns);
/* The budget of one blocking step moving bytes (0: a Send), in ms. */
uint32_t svc_rdma_stall_budget_ms(uint32_t stall_ms, uint64_t bytes);
/* How long a stalled peer is refused, from svc_stall_ms. */
uint64_t svc_rdma_penalty_ns(uint32_t stall_ms);

#endif /* RPCRDMA_SVC_PEERS_H */
