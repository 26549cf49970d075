/*
 * The registration table behind mapped Sends.  Lookups find a registration
 * covering a segment; a miss registers the segment's pages "the hard way".
 * Such a registration lives for one Send by default: a cached one would
 * map stale pages if the program freed the memory and the same addresses
 * came back.  With a cache allowed, the least recently used entry whose
 * last Send completed is evicted (one still referenced is never freed).
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "mr.h"

void rpcrdma_mr_table_init(struct rpcrdma_mr_table *t, unsigned int max_cached)
{
	t->mt_head = NULL;
	t->mt_cached = 0;
	t->mt_max_cached = max_cached;
	t->mt_clock = 0;
}

static void mr_free(struct rpcrdma_mr *mr)
{
	if (mr->mr_ibv)
		rpcrdma_dereg_mem(mr->mr_ibv);
	free(mr);
}

void rpcrdma_mr_table_fini(struct rpcrdma_mr_table *t)
{
	while (t->mt_head) {
		struct rpcrdma_mr *mr = t->mt_head;

		t->mt_head = mr->mr_next;
		mr_free(mr);
	}
	t->mt_cached = 0;
}

static struct rpcrdma_mr *mr_insert(struct rpcrdma_mr_table *t,
				    struct rpcrdma_ep *ep, uintptr_t start,
				    uintptr_t end, int user)
{
	struct rpcrdma_mr *mr = calloc(1, sizeof(*mr));

	if (!mr)
		return NULL;
	mr->mr_ibv = rpcrdma_reg_mem(ep, (void *)start, end - start);
	if (!mr->mr_ibv) {
		free(mr);
		return NULL;
	}
	mr->mr_start = start;
	mr->mr_end = end;
	mr->mr_user = user;
	mr->mr_lru = ++t->mt_clock;
	mr->mr_next = t->mt_head;
	t->mt_head = mr;
	if (!user)
		t->mt_cached++;
	return mr;
}

struct rpcrdma_mr *rpcrdma_mr_add_user(struct rpcrdma_mr_table *t,
				       struct rpcrdma_ep *ep, void *addr,
				       size_t len)
{
	if (!addr || !len)
		return NULL;
	return mr_insert(t, ep, (uintptr_t)addr, (uintptr_t)addr + len, 1);
}

static int mr_unlink(struct rpcrdma_mr_table *t, struct rpcrdma_mr *mr)
{
	struct rpcrdma_mr **pp;

	for (pp = &t->mt_head; *pp; pp = &(*pp)->mr_next)
		if (*pp == mr) {
			*pp = mr->mr_next;
			if (!mr->mr_user)
				t->mt_cached--;
			return 0;
		}
	return -ENOENT;
}

int rpcrdma_mr_remove_user(struct rpcrdma_mr_table *t, struct rpcrdma_mr *mr)
{
	if (!mr || !mr->mr_user || mr_unlink(t, mr))
		return -EINVAL;
	mr_free(mr);
	return 0;
}

/* Free the one-shot registrations whose Send has completed. */
void rpcrdma_mr_reap(struct rpcrdma_mr_table *t, uint64_t completed_seq)
{
	struct rpcrdma_mr **pp = &t->mt_head, *mr;

	while ((mr = *pp)) {
		if (mr->mr_oneshot && mr->mr_last_seq <= completed_seq) {
			*pp = mr->mr_next;
			t->mt_cached--;
			mr_free(mr);
			continue;
		}
		pp = &mr->mr_next;
	}
}

/* A registration covering [addr, addr+len), user ones first. */
static int rpcrdma_mr_find(struct rpcrdma_mr_table *t, const void *addr,
			   size_t len, struct rpcrdma_mr **mrp)
{
	uintptr_t a = (uintptr_t)addr;
	struct rpcrdma_mr *mr, *hit = NULL;

	if (a + len < a)
		return -EINVAL;
	for (mr = t->mt_head; mr; mr = mr->mr_next)
		if (!mr->mr_oneshot && a >= mr->mr_start &&
		    a + len <= mr->mr_end && (!hit || mr->mr_user))
			hit = mr;
	if (!hit)
		return -ENOENT;
	*mrp = hit;
	return 0;
}

/* Make room for one cache entry; -EBUSY if every entry is still in use. */
static int mr_evict(struct rpcrdma_mr_table *t, uint64_t completed_seq)
{
	struct rpcrdma_mr *mr, *victim = NULL;

	for (mr = t->mt_head; mr; mr = mr->mr_next)
		if (!mr->mr_user && mr->mr_last_seq <= completed_seq &&
		    (!victim || mr->mr_lru < victim->mr_lru))
			victim = mr;
	if (!victim)
		return -EBUSY;
	mr_unlink(t, victim);
	mr_free(victim);
	return 0;
}

/*
 * The lkey for a segment a Send with sequence number seq will reference.
 * *hardway is set when the segment had to be registered now.
 */
int rpcrdma_mr_map(struct rpcrdma_mr_table *t, struct rpcrdma_ep *ep,
		   const void *addr, size_t len, uint64_t seq,
		   uint64_t completed_seq, uint32_t *lkey, int *hardway)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t mask = (uintptr_t)(page > 0 ? page : 4096) - 1;
	struct rpcrdma_mr *mr;

	*hardway = 0;
	if (rpcrdma_mr_find(t, addr, len, &mr)) {
		if (t->mt_max_cached && t->mt_cached >= t->mt_max_cached &&
		    mr_evict(t, completed_seq))
			return -EBUSY;
		mr = mr_insert(t, ep, (uintptr_t)addr & ~mask,
			       ((uintptr_t)addr + len + mask) & ~mask, 0);
		if (!mr)
			return -ENOMEM;
		mr->mr_oneshot = !t->mt_max_cached;
		*hardway = 1;
	}
	mr->mr_last_seq = seq;
	mr->mr_lru = ++t->mt_clock;
	*lkey = rpcrdma_mr_lkey(mr->mr_ibv);
	return 0;
}
