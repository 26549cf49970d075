/*
 * The duplicate request cache's logic: a hash of entries keyed by
 * (xid, program, version, procedure, peer address, arguments' length and
 * checksum), in progress or done, the done ones on an LRU list evicted
 * for room under an entry count and a byte budget.  Pure, no locking.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <infiniband/ib.h>
#include "drc.h"

struct rpcrdma_drc_entry {
	struct rpcrdma_drc_key de_key;
	uint32_t de_hash;
	int de_done;
	uint64_t de_when_ms;		/* when completed */
	struct rpcrdma_drc_reply de_reply;
	struct rpcrdma_drc_entry *de_chain;	/* bucket */
	struct rpcrdma_drc_entry *de_prev, *de_next;	/* LRU, done only */
};

/* FNV-1a: cheap, and all we need against accidental equality. */
static uint32_t fnv(uint32_t h, const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--) {
		h ^= *b++;
		h *= 16777619u;
	}
	return h;
}

uint32_t rpcrdma_drc_csum(const void *cred, uint32_t credlen, uint32_t flavor,
			  const void *args, uint32_t arglen)
{
	uint32_t h = 2166136261u;

	h = fnv(h, &flavor, sizeof(flavor));
	if (cred && credlen)
		h = fnv(h, cred, credlen);
	if (args)
		h = fnv(h, args, arglen < RPCRDMA_DRC_CSUM_BYTES ?
			arglen : RPCRDMA_DRC_CSUM_BYTES);
	return h;
}

int rpcrdma_drc_key_addr(struct rpcrdma_drc_key *k, const struct sockaddr *sa)
{
	memset(k->dk_addr, 0, sizeof(k->dk_addr));
	k->dk_family = sa ? sa->sa_family : AF_UNSPEC;
	switch (k->dk_family) {
	case AF_INET:
		memcpy(k->dk_addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 0;
	case AF_INET6:
		memcpy(k->dk_addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 0;
	case AF_IB:
		memcpy(k->dk_addr, &((const struct sockaddr_ib *)sa)->sib_addr, 16);
		return 0;
	default:
		return -EAFNOSUPPORT;
	}
}

static int key_eq(const struct rpcrdma_drc_key *a, const struct rpcrdma_drc_key *b)
{
	return a->dk_xid == b->dk_xid && a->dk_prog == b->dk_prog &&
	       a->dk_vers == b->dk_vers && a->dk_proc == b->dk_proc &&
	       a->dk_family == b->dk_family && a->dk_arglen == b->dk_arglen &&
	       a->dk_csum == b->dk_csum &&
	       !memcmp(a->dk_addr, b->dk_addr, sizeof(a->dk_addr));
}

static uint32_t key_hash(const struct rpcrdma_drc_key *k)
{
	uint32_t h = 2166136261u;

	h = fnv(h, &k->dk_xid, sizeof(k->dk_xid));
	h = fnv(h, k->dk_addr, sizeof(k->dk_addr));
	return h ^ k->dk_proc ^ k->dk_csum;
}

int rpcrdma_drc_init(struct rpcrdma_drc *dc, uint32_t max, uint64_t max_bytes)
{
	uint32_t n = 16;

	memset(dc, 0, sizeof(*dc));
	dc->dc_max = max;
	dc->dc_max_bytes = max_bytes;
	while (n < max && n < (1u << 20))
		n <<= 1;
	dc->dc_nbuckets = n;
	dc->dc_buckets = calloc(n, sizeof(*dc->dc_buckets));
	return dc->dc_buckets ? 0 : -ENOMEM;
}

static void lru_unlink(struct rpcrdma_drc *dc, struct rpcrdma_drc_entry *e)
{
	if (e->de_prev)
		e->de_prev->de_next = e->de_next;
	else
		dc->dc_lru_head = e->de_next;
	if (e->de_next)
		e->de_next->de_prev = e->de_prev;
	else
		dc->dc_lru_tail = e->de_prev;
	e->de_prev = e->de_next = NULL;
}

/* Most recently completed at the tail; eviction takes the head. */
static void lru_append(struct rpcrdma_drc *dc, struct rpcrdma_drc_entry *e)
{
	e->de_next = NULL;
	e->de_prev = dc->dc_lru_tail;
	if (dc->dc_lru_tail)
		dc->dc_lru_tail->de_next = e;
	else
		dc->dc_lru_head = e;
	dc->dc_lru_tail = e;
}

/* Out of its bucket, off the LRU, freed with its Reply. */
static void entry_remove(struct rpcrdma_drc *dc, struct rpcrdma_drc_entry *e)
{
	struct rpcrdma_drc_entry **pp = &dc->dc_buckets[e->de_hash & (dc->dc_nbuckets - 1)];

	while (*pp && *pp != e)
		pp = &(*pp)->de_chain;
	if (*pp)
		*pp = e->de_chain;
	if (e->de_done) {
		lru_unlink(dc, e);
		dc->dc_bytes -= e->de_reply.dr_len;
	}
	dc->dc_count--;
	rpcrdma_drc_reply_free(&e->de_reply);
	free(e);
}

static void evict_head(struct rpcrdma_drc *dc)
{
	entry_remove(dc, dc->dc_lru_head);
	dc->dc_stats.ds_evictions++;
}

void rpcrdma_drc_fini(struct rpcrdma_drc *dc)
{
	uint32_t i;

	for (i = 0; dc->dc_buckets && i < dc->dc_nbuckets; i++)
		while (dc->dc_buckets[i])
			entry_remove(dc, dc->dc_buckets[i]);
	free(dc->dc_buckets);
	dc->dc_buckets = NULL;
}

static int reply_copy(struct rpcrdma_drc_reply *dst,
		      const struct rpcrdma_drc_reply *src)
{
	*dst = *src;
	dst->dr_bytes = malloc(src->dr_len ? src->dr_len : 1);
	if (!dst->dr_bytes)
		return -ENOMEM;
	memcpy(dst->dr_bytes, src->dr_bytes, src->dr_len);
	return 0;
}

void rpcrdma_drc_reply_free(struct rpcrdma_drc_reply *r)
{
	free(r->dr_bytes);
	r->dr_bytes = NULL;
	r->dr_len = 0;
}

enum rpcrdma_drc_verdict rpcrdma_drc_lookup(struct rpcrdma_drc *dc,
					    const struct rpcrdma_drc_key *k,
					    uint64_t now_ms,
					    struct rpcrdma_drc_entry **entryp,
					    struct rpcrdma_drc_reply *reply)
{
	uint32_t h = key_hash(k);
	struct rpcrdma_drc_entry *e, **bucket;

	*entryp = NULL;
	memset(reply, 0, sizeof(*reply));
	if (!dc->dc_max || !dc->dc_buckets) {
		dc->dc_stats.ds_misses++;
		return RPCRDMA_DRC_MISS;
	}
	bucket = &dc->dc_buckets[h & (dc->dc_nbuckets - 1)];
	for (e = *bucket; e; e = e->de_chain)
		if (e->de_hash == h && key_eq(&e->de_key, k))
			break;
	/* Stale: this xid's Reply is no retransmission's any more. */
	if (e && e->de_done && now_ms - e->de_when_ms >= RPCRDMA_DRC_EXPIRE_MS) {
		entry_remove(dc, e);
		dc->dc_stats.ds_evictions++;
		e = NULL;
	}
	if (e && !e->de_done) {
		dc->dc_stats.ds_inprog_drops++;
		return RPCRDMA_DRC_INPROG;
	}
	if (e && !reply_copy(reply, &e->de_reply)) {
		dc->dc_stats.ds_hits++;
		return RPCRDMA_DRC_HIT;
	}
	if (e)		/* no memory for the copy: run it again, as uncached */
		entry_remove(dc, e);
	dc->dc_stats.ds_misses++;
	/* Room: the least recently completed go; Calls in progress stay. */
	while (dc->dc_count >= dc->dc_max && dc->dc_lru_head)
		evict_head(dc);
	if (dc->dc_count >= dc->dc_max)
		return RPCRDMA_DRC_MISS;
	e = calloc(1, sizeof(*e));
	if (!e)
		return RPCRDMA_DRC_MISS;
	e->de_key = *k;
	e->de_hash = h;
	e->de_chain = *bucket;
	*bucket = e;
	dc->dc_count++;
	*entryp = e;
	return RPCRDMA_DRC_MISS;
}

void rpcrdma_drc_complete(struct rpcrdma_drc *dc, struct rpcrdma_drc_entry *e,
			  const struct rpcrdma_drc_reply *reply, uint64_t now_ms)
{
	if (!e)
		return;
	if (reply->dr_len > RPCRDMA_DRC_MAX_REPLY ||
	    reply->dr_len > dc->dc_max_bytes ||
	    reply->dr_nsegs > RPCRDMA_DRC_MAX_SEGS ||
	    reply_copy(&e->de_reply, reply)) {
		e->de_reply.dr_bytes = NULL;
		entry_remove(dc, e);
		dc->dc_stats.ds_evictions++;
		return;
	}
	while (dc->dc_bytes + reply->dr_len > dc->dc_max_bytes && dc->dc_lru_head)
		evict_head(dc);
	e->de_done = 1;
	e->de_when_ms = now_ms;
	dc->dc_bytes += reply->dr_len;
	lru_append(dc, e);
}

void rpcrdma_drc_abandon(struct rpcrdma_drc *dc, struct rpcrdma_drc_entry *e)
{
	if (e && !e->de_done)
		entry_remove(dc, e);
}
