/*
 * The server's duplicate request cache (drc_size): the Replies of Calls
 * already executed, keyed without the source port, so that a Call sent
 * again on a new connection after a loss is answered without running its
 * procedure twice.  Pure logic (drc.c), no locking, no verbs; unit-tested.
 */
#ifndef RPCRDMA_DRC_H
#define RPCRDMA_DRC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Bytes of a Call's arguments the key's checksum covers (nfsd's RC_CSUMLEN). */
#define RPCRDMA_DRC_CSUM_BYTES	256
/* A Reply kept this long answers a retransmission; then it is stale
 * (nfsd's RC_EXPIRE): a client gives up on a Call long before. */
#define RPCRDMA_DRC_EXPIRE_MS	120000
/* Largest Reply kept: larger ones carry bulk data (reads, idempotent as a
 * rule), and copying each would cost the data path a memcpy. */
#define RPCRDMA_DRC_MAX_REPLY	(256u << 10)
/* All Replies kept together: the cache's memory bound beside drc_size. */
#define RPCRDMA_DRC_MAX_BYTES	(16u << 20)
/* Segments of a kept Reply's layout (RPCRDMA_XDRBUF_MAX_SEGS). */
#define RPCRDMA_DRC_MAX_SEGS	16

/* What identifies one Call, whichever connection it came on. */
struct rpcrdma_drc_key {
	uint32_t dk_xid, dk_prog, dk_vers, dk_proc;
	uint32_t dk_family;		/* AF_INET, AF_INET6, AF_IB */
	uint8_t dk_addr[16];		/* the peer's address, never its port */
	uint32_t dk_arglen;		/* bytes of arguments */
	uint32_t dk_csum;		/* their first bytes, and the credential */
};

/* A kept Reply: the RPC message's bytes, and how it was cut into
 * segments (copied / referenced), so a retransmission can be sent with
 * the same direct data placement into the chunks it brings. */
struct rpcrdma_drc_reply {
	uint8_t *dr_bytes;
	uint32_t dr_len;
	uint32_t dr_nsegs;
	uint32_t dr_seglen[RPCRDMA_DRC_MAX_SEGS];
	uint8_t dr_segref[RPCRDMA_DRC_MAX_SEGS];
};

struct rpcrdma_drc_entry;

struct rpcrdma_drc_stats {
	uint64_t ds_hits;		/* answered from the cache */
	uint64_t ds_misses;		/* executed (and kept if they could be) */
	uint64_t ds_inprog_drops;	/* dropped: the first copy still runs */
	uint64_t ds_evictions;		/* Replies dropped for room, or not kept */
};

struct rpcrdma_drc {
	uint32_t dc_max;		/* drc_size: entries at most */
	uint32_t dc_count;		/* entries now, in progress or done */
	uint64_t dc_bytes;		/* Reply bytes kept */
	uint64_t dc_max_bytes;
	uint32_t dc_nbuckets;		/* a power of two */
	struct rpcrdma_drc_entry **dc_buckets;
	/* Done entries, least recently completed first (in-progress ones
	 * are never evicted, so they are not on it). */
	struct rpcrdma_drc_entry *dc_lru_head, *dc_lru_tail;
	struct rpcrdma_drc_stats dc_stats;
};

enum rpcrdma_drc_verdict {
	RPCRDMA_DRC_MISS,	/* execute it; *entry tracks it (may be NULL) */
	RPCRDMA_DRC_HIT,	/* executed before: send *reply (a copy) */
	RPCRDMA_DRC_INPROG,	/* its first copy still runs: drop this one */
};

/* 0, or -ENOMEM.  max 0 is an empty cache that keeps nothing. */
int rpcrdma_drc_init(struct rpcrdma_drc *dc, uint32_t max, uint64_t max_bytes);
void rpcrdma_drc_fini(struct rpcrdma_drc *dc);

/*
 * A Call arrives.  MISS: *entryp is its new in-progress entry (NULL when
 * it cannot be kept: the cache is full of Calls in progress, or out of
 * memory), to be completed or abandoned.  HIT: *reply is a copy of the
 * kept Reply, to free with rpcrdma_drc_reply_free.  INPROG: nothing.
 */
enum rpcrdma_drc_verdict rpcrdma_drc_lookup(struct rpcrdma_drc *dc,
					    const struct rpcrdma_drc_key *k,
					    uint64_t now_ms,
					    struct rpcrdma_drc_entry **entryp,
					    struct rpcrdma_drc_reply *reply);
/*
 * The Call's Reply is known: keep a copy of it (taken from reply).  A
 * Reply over RPCRDMA_DRC_MAX_REPLY, or one that no room can be made for,
 * is not kept, and its entry goes (counted as an eviction).
 */
void rpcrdma_drc_complete(struct rpcrdma_drc *dc, struct rpcrdma_drc_entry *e,
			  const struct rpcrdma_drc_reply *reply, uint64_t now_ms);
/* No Reply will come (the program dropped the Call): forget it. */
void rpcrdma_drc_abandon(struct rpcrdma_drc *dc, struct rpcrdma_drc_entry *e);

void rpcrdma_drc_reply_free(struct rpcrdma_drc_reply *r);

/* The key's address part from a peer's sockaddr (port left out); 0, or
 * -EAFNOSUPPORT. */
int rpcrdma_drc_key_addr(struct rpcrdma_drc_key *k, const struct sockaddr *sa);
/* The key's checksum over the credential and the arguments' first bytes. */
uint32_t rpcrdma_drc_csum(const void *cred, uint32_t credlen, uint32_t flavor,
			  const void *args, uint32_t arglen);

#endif /* RPCRDMA_DRC_H */
